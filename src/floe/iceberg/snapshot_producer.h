#pragma once

// Snapshot producers: the operations that commit a new snapshot to an Iceberg table
// (spec, "Snapshots", "Snapshot Summary"; commit semantics as documented for the reference
// implementation's AppendFiles, OverwriteFiles, ReplacePartitions, DeleteFiles and
// RewriteFiles). Each operation is configured, then committed once:
//
//   auto append = FastAppend::Make(ops);
//   append->AppendFile(file);
//   FLOE_ASSIGN_OR_RAISE(Table table, append->Commit());
//
// A commit writes manifests (`<location>/metadata/<uuid>-m<N>.avro`) and a manifest list
// (`<location>/metadata/snap-<snapshot id>-<attempt>-<uuid>.avro`) through the table's
// FileIO and hands AddSnapshot + SetSnapshotRef to TableOperations::Commit with the
// requirements assert-table-uuid and assert-ref-snapshot-id. On kCommitConflict it
// refreshes, validates the snapshots committed concurrently against the operation, and
// retries with exponential backoff (`commit.retry.*` table properties). Files the
// operation wrote that no committed metadata references are deleted when it fails and
// when a later attempt succeeds; data files belong to the caller and are never deleted.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_operations.h"

namespace floe::iceberg {

/// Commit retry settings (table properties `commit.retry.num-retries` (4),
/// `commit.retry.min-wait-ms` (100), `commit.retry.max-wait-ms` (60000),
/// `commit.retry.total-timeout-ms` (1800000)).
struct CommitRetryOptions {
  int num_retries = 4;
  int64_t min_wait_ms = 100;
  int64_t max_wait_ms = 60000;
  int64_t total_timeout_ms = 1800000;

  /// Reads the properties; a value that is not a non-negative integer is kInvalidArgument
  /// naming the property.
  static Result<CommitRetryOptions> FromProperties(
      const std::map<std::string, std::string>& properties);
};

/// Runs `attempt` until it succeeds, fails with anything but kCommitConflict, or the
/// retries / total timeout of `options` are used up; waits min_wait * 2^n (capped at
/// max_wait) before retry n+1. `attempt` receives the attempt number (0 first).
/// `retryable` (may be null) decides whether a kCommitConflict status is retried.
Result<Table> RunWithRetries(const CommitRetryOptions& options,
                             const std::function<Result<Table>(int attempt)>& attempt,
                             const std::function<bool(const Status&)>& retryable = nullptr);

/// Manifest merging settings (table properties `commit.manifest-merge.enabled` (true),
/// `commit.manifest.min-count-to-merge` (100), `commit.manifest.target-size-bytes`
/// (8 MiB)).
struct ManifestMergeOptions {
  bool enabled = true;
  int min_count_to_merge = 100;
  int64_t target_size_bytes = 8LL << 20;

  static Result<ManifestMergeOptions> FromProperties(
      const std::map<std::string, std::string>& properties);
};

/// The common part of every snapshot-producing operation. Not thread-safe; commit once.
class SnapshotProducer {
 public:
  virtual ~SnapshotProducer();
  SnapshotProducer(const SnapshotProducer&) = delete;
  SnapshotProducer& operator=(const SnapshotProducer&) = delete;

  /// Commits to branch `branch` instead of main. A branch that does not exist yet is
  /// created at the new snapshot, whose parent is the table's current snapshot.
  void ToBranch(std::string branch);
  /// Adds a custom property to the snapshot summary.
  void SetSummaryProperty(std::string key, std::string value);
  /// Overrides the table's `commit.retry.*` properties.
  void SetRetryOptions(CommitRetryOptions options);

  /// Writes the manifests and the manifest list and commits the snapshot, retrying on
  /// concurrent commits. Returns the table as committed. Errors: kInvalidArgument for an
  /// operation that cannot apply (a file to remove that is not in the table, a filter
  /// that matches only part of a file), kCommitConflict when a concurrent commit
  /// conflicts with this operation or the retries are used up, and I/O errors. After an
  /// error nothing this operation wrote is left behind, except after kCommitStateUnknown
  /// (the catalog could not tell whether the commit landed): then every file is kept.
  Result<Table> Commit();

  /// The id of the snapshot this operation commits (stable across retries).
  int64_t snapshot_id() const { return snapshot_id_; }
  /// The operation recorded in the summary ("append", "overwrite", "delete", "replace").
  const std::string& operation() const { return operation_; }

 protected:
  SnapshotProducer(TableOperationsPtr ops, std::string operation, bool merge_manifests);

  /// Adds a data or delete file to the new snapshot.
  Status AddFileInternal(DataFilePtr file);
  /// Removes the live file at `path` (data or delete file); it must be in the table.
  void DeletePathInternal(std::string path);
  /// Removes every live data file whose rows all match `filter` (unbound); a file where
  /// some rows may match and others may not is kInvalidArgument.
  void DeleteByFilterInternal(ExpressionPtr filter);

  TableOperationsPtr ops_;
  std::string operation_;
  bool merge_manifests_;
  bool case_sensitive_ = true;

  std::vector<DataFilePtr> added_data_files_;
  std::vector<DataFilePtr> added_delete_files_;
  std::set<std::string> delete_paths_;
  ExpressionPtr delete_filter_;
  /// ReplacePartitions: remove every live file in the partitions of the added data files.
  bool replace_added_partitions_ = false;

  /// Validation of concurrent commits: data files added since the starting snapshot that
  /// match this filter (or lie in the replaced partitions) are a conflict.
  bool validate_no_conflicting_data_ = false;
  ExpressionPtr conflict_detection_filter_;
  std::optional<int64_t> validate_from_snapshot_id_;
  /// Require every explicitly removed file to exist when validating (always on).
  bool validate_deleted_files_exist_ = true;
  /// Delete files added concurrently that may apply to a data file this operation removes
  /// are a conflict (by referenced data file, else by partition; a global equality delete
  /// applies to every file).
  bool validate_no_new_deletes_ = false;
  /// Every added data file must hold only rows matching the delete filter.
  bool validate_added_files_match_filter_ = false;
  /// RowDelta: the data files its delete files apply to. A concurrent commit that removed
  /// one is a conflict; with validate_no_new_deletes_, so is a delete file added
  /// concurrently for one (by path, else by partition: `referenced_partitions_` holds their
  /// partition keys).
  std::set<std::string> referenced_data_files_;
  std::set<std::string> referenced_partitions_;
  /// RowDelta: delete files to remove, by DeleteFileKey (a deletion vector replaced by a
  /// merged one); each must still be live.
  std::set<std::string> removed_delete_keys_;

 private:
  struct State;
  struct Attempt;

  // Commit: the retry options, the attempts (RunWithRetries), then the files no committed
  // metadata references are deleted.
  Result<CommitRetryOptions> RetryOptions() const;
  void DeleteUncommittedFiles(bool committed, const std::set<std::string>& committed_files);

  // One attempt, against the table as refreshed; the steps below, in this order. Adds the
  // manifest list and manifests of a successful commit to `committed_files`.
  Result<Table> CommitAttempt(int attempt, std::set<std::string>* committed_files);

  // Apply: the parent snapshot (the branch head) and the branch's ref; kInvalidArgument for a
  // tag.
  Status ResolveParent(Attempt& a);
  // Apply: a new snapshot id when there is none yet or a concurrent commit took it (then what
  // was written with the old one is stale).
  void AssignSnapshotId(const Attempt& a);
  // Validate: the first attempt fixes the snapshot concurrent commits are validated from.
  void SetStartingSnapshot(const Attempt& a);
  // Apply: only data files are appended, the table has a current schema, delete files need
  // format version 2.
  Status CheckAgainstTable(Attempt& a);
  // Apply: the partitions ReplacePartitions replaces and the delete filter, bound.
  Status BindRemovals(Attempt& a);
  // Validate: the snapshots committed since the starting snapshot, which must still be an
  // ancestor of the branch, with ValidateNoConflictingData over them when asked.
  Status ValidateConcurrentCommits(Attempt& a);
  // Validate: no data file committed concurrently matches the conflict detection filter or
  // lies in a replaced partition.
  Status ValidateNoConflictingData(const Attempt& a);
  // Validate: every added data file holds only rows matching the delete filter, when asked.
  Status ValidateAddedFilesMatchFilter(const Attempt& a);
  // Apply: counts the added files and writes their manifests (once; retries reuse them).
  Status AddNewFiles(Attempt& a);
  // Apply: the parent's manifests, with the removed files marked DELETED.
  Status FilterParentManifests(Attempt& a);
  // Validate: every file removed by path was found live (a conflict on a retry).
  Status ValidateDeletedFilesExist(const Attempt& a);
  // Validate: delete files committed concurrently for data files this operation removes
  // would be lost with them (their rows would come back), and for data files its delete
  // files apply to (a row deleted twice, an updated row written twice): a conflict.
  Status ValidateNoNewDeletes(const Attempt& a);
  // Validate: every data file the added delete files apply to is still live (no concurrent
  // commit removed it).
  Status ValidateReferencedFilesExist(const Attempt& a);
  // Apply: the manifest list's manifests, merged per the table's settings.
  Status MergeManifests(Attempt& a);
  // Apply: writes the manifest list and commits the snapshot and the branch's ref through
  // TableOperations, with the requirements assert-table-uuid and assert-ref-snapshot-id.
  Result<Table> CommitSnapshot(const Attempt& a, std::set<std::string>* committed_files);

  std::unique_ptr<State> state_;
  int64_t snapshot_id_ = 0;
};

/// Appends data files in new manifests and carries the parent's manifests over unchanged
/// (operation "append").
class FastAppend final : public SnapshotProducer {
 public:
  static std::unique_ptr<FastAppend> Make(TableOperationsPtr ops);
  /// Adds a data file (content kData; its spec_id must name a spec of the table).
  FastAppend& AppendFile(DataFilePtr file);

 private:
  explicit FastAppend(TableOperationsPtr ops);
};

/// Appends data files and merges small manifests per the table's merge properties
/// (operation "append"). Entries of merged manifests that were not added by this
/// snapshot become EXISTING.
class MergeAppend final : public SnapshotProducer {
 public:
  static std::unique_ptr<MergeAppend> Make(TableOperationsPtr ops);
  MergeAppend& AppendFile(DataFilePtr file);

 private:
  explicit MergeAppend(TableOperationsPtr ops);
};

/// Replaces data (operation "overwrite"): removes the files matching a row filter (whole
/// files only) and files named explicitly, and adds new files. With
/// ValidateNoConflictingData, data files added concurrently that match the conflict
/// detection filter (default: the row filter when no file is removed explicitly,
/// otherwise everything) fail the commit.
class OverwriteFiles final : public SnapshotProducer {
 public:
  static std::unique_ptr<OverwriteFiles> Make(TableOperationsPtr ops);
  OverwriteFiles& OverwriteByRowFilter(ExpressionPtr filter);
  OverwriteFiles& AddFile(DataFilePtr file);
  OverwriteFiles& DeleteFile(std::string path);
  OverwriteFiles& ConflictDetectionFilter(ExpressionPtr filter);
  OverwriteFiles& ValidateNoConflictingData();
  /// Delete files committed concurrently for a data file this overwrite removes fail the
  /// commit (their rows would be lost).
  OverwriteFiles& ValidateNoConflictingDeletes();
  /// Every added data file must provably hold only rows matching the row filter (by its
  /// partition or column metrics); kInvalidArgument naming the file otherwise.
  OverwriteFiles& ValidateAddedFilesMatchOverwriteFilter();
  /// Concurrent commits are validated from this snapshot instead of the one the first
  /// attempt was based on.
  OverwriteFiles& ValidateFromSnapshot(int64_t snapshot_id);
  OverwriteFiles& CaseSensitive(bool case_sensitive);

 private:
  explicit OverwriteFiles(TableOperationsPtr ops);
};

/// Dynamic partition overwrite (operation "overwrite", summary `replace-partitions`):
/// every live file in a partition of an added data file is removed. In an unpartitioned
/// table every live file is removed. With ValidateNoConflictingData, data added
/// concurrently to a replaced partition fails the commit.
class ReplacePartitions final : public SnapshotProducer {
 public:
  static std::unique_ptr<ReplacePartitions> Make(TableOperationsPtr ops);
  ReplacePartitions& AddFile(DataFilePtr file);
  ReplacePartitions& ValidateNoConflictingData();
  ReplacePartitions& ValidateFromSnapshot(int64_t snapshot_id);

 private:
  explicit ReplacePartitions(TableOperationsPtr ops);
};

/// Removes whole files (operation "delete"): by path or by a row filter that matches
/// every row of each file it removes.
class DeleteFiles final : public SnapshotProducer {
 public:
  static std::unique_ptr<DeleteFiles> Make(TableOperationsPtr ops);
  DeleteFiles& DeleteFile(std::string path);
  DeleteFiles& DeleteFromRowFilter(ExpressionPtr filter);
  /// Data files appended since `snapshot_id` that may hold rows matching `filter` fail the
  /// commit (a row-level DELETE under serializable isolation that removes whole files).
  DeleteFiles& ValidateNoConflictingData(ExpressionPtr filter, int64_t snapshot_id);
  DeleteFiles& CaseSensitive(bool case_sensitive);

 private:
  explicit DeleteFiles(TableOperationsPtr ops);
};

/// Replaces a set of files with another holding the same rows (operation "replace",
/// e.g. compaction). Every replaced file must still be live, also after a concurrent
/// commit, and no delete file for a replaced data file may have been committed
/// concurrently (kCommitConflict naming the file otherwise).
class RewriteFiles final : public SnapshotProducer {
 public:
  static std::unique_ptr<RewriteFiles> Make(TableOperationsPtr ops);
  RewriteFiles& DeleteFile(std::string path);
  RewriteFiles& AddFile(DataFilePtr file);

 private:
  explicit RewriteFiles(TableOperationsPtr ops);
};

/// Row-level changes by merge-on-read (operation "overwrite", or "delete" when only delete
/// files are added): adds data files and position delete files in one snapshot. The data
/// files the delete files apply to must still be live when it commits (a concurrent commit
/// that removed one fails it with kCommitConflict); with ValidateNoConflictingDeleteFiles,
/// a delete file committed concurrently for one of them fails it too, and with
/// ValidateNoConflictingDataFiles (serializable isolation) any data file appended
/// concurrently does.
class RowDelta final : public SnapshotProducer {
 public:
  static std::unique_ptr<RowDelta> Make(TableOperationsPtr ops);
  RowDelta& AddRows(DataFilePtr file);
  /// A position delete file; `data_file` is the path of the data file it applies to, or ""
  /// when it may apply to several (then every data file of its partition is protected).
  RowDelta& AddDeletes(DataFilePtr file);
  /// Removes a live delete file: a deletion vector this commit's merged vector replaces
  /// (format version 3 keeps one vector per data file). Its removal by a concurrent commit
  /// is a conflict.
  RowDelta& RemoveDeletes(DataFilePtr file);
  RowDelta& ValidateFromSnapshot(int64_t snapshot_id);
  RowDelta& ValidateNoConflictingDataFiles();
  /// Narrows ValidateNoConflictingDataFiles to data files that may hold rows matching
  /// `filter` (unbound or bound to the current schema).
  RowDelta& ConflictDetectionFilter(ExpressionPtr filter);
  RowDelta& ValidateNoConflictingDeleteFiles();

 private:
  explicit RowDelta(TableOperationsPtr ops);
};

/// How a delete file is named for removal: its path, and for a deletion vector (one blob of a
/// Puffin file that may hold others) "@" and its content offset.
std::string DeleteFileKey(const DataFile& file);

/// A fresh random positive 63-bit snapshot id not used in `metadata` (may be null).
int64_t NewSnapshotId(const TableMetadata* metadata);

}  // namespace floe::iceberg
