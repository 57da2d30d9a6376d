#pragma once

// Snapshot expiration (spec, "Snapshot Retention Policy"): removes snapshots that no ref's
// retention keeps, removes refs past their max age, commits, and then deletes the files
// that only the removed snapshots reached.

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_operations.h"

namespace floe::iceberg {

/// What an expiration did.
struct ExpireSnapshotsResult {
  /// The table as committed (unchanged when nothing expired).
  Table table;
  std::vector<int64_t> expired_snapshot_ids;  // ascending
  std::vector<std::string> removed_refs;      // by name
  /// Files deleted after the commit, sorted (empty when cleanup is off).
  std::vector<std::string> deleted_manifest_lists;
  std::vector<std::string> deleted_manifests;
  /// Data and delete files.
  std::vector<std::string> deleted_files;
  std::vector<std::string> deleted_statistics_files;
  /// Why cleanup did not run (a manifest that could not be read: then nothing was deleted,
  /// since reachability was unknown). The expiration itself is committed either way.
  Status cleanup_status;
};

/// Expires snapshots. Which snapshots are kept:
///  - every ref's snapshot (main always; other refs unless older than their
///    max-ref-age-ms, default the `history.expire.max-ref-age-ms` property, else forever);
///  - along each kept branch, the newest ancestors while fewer than min-snapshots-to-keep
///    are kept or the snapshot is not older than the branch's max-snapshot-age-ms (the
///    defaults: RetainLast / `history.expire.min-snapshots-to-keep` (1) and ExpireOlderThan /
///    `history.expire.max-snapshot-age-ms` (5 days));
///  - snapshots in no kept branch's history that are not older than the default age.
/// Snapshots named with ExpireSnapshotId are removed unless a kept ref points at them
/// (kInvalidArgument). Commits RemoveSnapshotRef for expired refs and RemoveSnapshots with
/// assert-ref-snapshot-id on every ref of the base, retrying on conflicts. After the commit
/// (never before) the files only removed snapshots reached are deleted: their manifest
/// lists, manifests no kept snapshot lists, data and delete files live in no kept snapshot,
/// and statistics files of removed snapshots.
class ExpireSnapshots {
 public:
  static std::unique_ptr<ExpireSnapshots> Make(TableOperationsPtr ops);

  /// Expire snapshots older than this time (milliseconds since the epoch).
  ExpireSnapshots& ExpireOlderThan(int64_t timestamp_ms);
  /// Keep at least this many of each branch's newest snapshots (at least 1).
  ExpireSnapshots& RetainLast(int count);
  ExpireSnapshots& ExpireSnapshotId(int64_t snapshot_id);
  /// Whether to delete unreachable files after the commit (default true).
  ExpireSnapshots& CleanExpiredFiles(bool clean);
  /// The current time used for ages (default: the clock at Commit).
  ExpireSnapshots& SetNowMs(int64_t now_ms);

  /// The snapshot ids and refs `base` would lose, without committing.
  Result<std::pair<std::set<int64_t>, std::set<std::string>>> Apply(const TableMetadata& base,
                                                                    int64_t now_ms) const;
  Result<ExpireSnapshotsResult> Commit();

 private:
  explicit ExpireSnapshots(TableOperationsPtr ops);
  TableOperationsPtr ops_;
  std::optional<int64_t> older_than_ms_;
  std::optional<int> retain_last_;
  std::set<int64_t> explicit_ids_;
  bool clean_ = true;
  std::optional<int64_t> now_ms_;
};

}  // namespace floe::iceberg
