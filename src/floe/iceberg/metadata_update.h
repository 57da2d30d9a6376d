#pragma once

// Table metadata changes other than schemas and snapshots: partition spec evolution, sort
// order replacement, table properties and snapshot references (branches and tags). Each
// operation records its changes, applies them to the table's current metadata on Commit
// (again after a concurrent commit, with the `commit.retry.*` settings) and commits them
// with the requirements that make the change safe.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_operations.h"
#include "floe/iceberg/table_update.h"
#include "floe/iceberg/transform.h"

namespace floe::iceberg {

/// Evolves the default partition spec (spec, "Partition Evolution"). In v2 tables a
/// partition field keeps its id: removed fields disappear from the new spec and a field
/// added with a (source, transform) used by any earlier spec gets that field's id back; new
/// ids continue from the table's last-partition-id. In v1 tables removed fields stay in the
/// spec with the void transform (v1 readers match fields by position). Commits AddSpec +
/// SetDefaultSpec(-1) with assert-default-spec-id and assert-last-assigned-partition-id.
class UpdatePartitionSpec {
 public:
  static std::unique_ptr<UpdatePartitionSpec> Make(TableOperationsPtr ops);

  UpdatePartitionSpec& CaseSensitive(bool case_sensitive);
  /// Adds a field partitioning by `transform` of column `source_name`. An empty `name`
  /// takes the conventional one: the column name for identity, "<col>_bucket_<n>",
  /// "<col>_trunc_<w>", "<col>_year", "<col>_month", "<col>_day", "<col>_hour",
  /// "<col>_null" for void.
  UpdatePartitionSpec& AddField(std::string source_name, Transform transform,
                                std::string name = "");
  /// Removes the partition field named `name`.
  UpdatePartitionSpec& RemoveField(std::string name);
  UpdatePartitionSpec& RenameField(std::string name, std::string new_name);

  /// The new spec for `base` (its spec id is the next free one) and the new
  /// last-partition-id. kInvalidArgument naming the field for unknown columns or fields,
  /// a transform that cannot apply, duplicate fields or names.
  Result<std::pair<PartitionSpecPtr, int32_t>> Apply(const TableMetadata& base) const;
  Result<Table> Commit();

 private:
  explicit UpdatePartitionSpec(TableOperationsPtr ops);
  struct Change {
    enum class Kind : uint8_t { kAdd, kRemove, kRename } kind;
    std::string name;
    std::string other;  // add: source column; rename: new name
    Transform transform = Transform::Identity();
  };
  TableOperationsPtr ops_;
  bool case_sensitive_ = true;
  std::vector<Change> changes_;
};

/// Replaces the default sort order (an empty order is the unsorted order). Commits
/// AddSortOrder + SetDefaultSortOrder(-1) with assert-current-schema-id.
class ReplaceSortOrder {
 public:
  static std::unique_ptr<ReplaceSortOrder> Make(TableOperationsPtr ops);

  ReplaceSortOrder& CaseSensitive(bool case_sensitive);
  /// Ascending by `transform` of column `name`, nulls first by default.
  ReplaceSortOrder& Asc(std::string name, NullOrder null_order = NullOrder::kNullsFirst,
                        Transform transform = Transform::Identity());
  /// Descending, nulls last by default.
  ReplaceSortOrder& Desc(std::string name, NullOrder null_order = NullOrder::kNullsLast,
                         Transform transform = Transform::Identity());

  Result<SortOrderPtr> Apply(const TableMetadata& base) const;
  Result<Table> Commit();

 private:
  explicit ReplaceSortOrder(TableOperationsPtr ops);
  struct Key {
    std::string name;
    Transform transform;
    SortDirection direction;
    NullOrder null_order;
  };
  TableOperationsPtr ops_;
  bool case_sensitive_ = true;
  std::vector<Key> keys_;
};

/// Sets and removes table properties. `format-version` is not a property (kInvalidArgument;
/// upgrading is its own update). Setting and removing the same key is kInvalidArgument.
/// Upgrades the table's format version (1 to 2, 2 to 3, 1 to 3); a lower version is
/// kInvalidArgument, the same one commits nothing.
Result<Table> UpgradeFormatVersion(TableOperationsPtr ops, int format_version);

class UpdateProperties {
 public:
  static std::unique_ptr<UpdateProperties> Make(TableOperationsPtr ops);
  UpdateProperties& Set(std::string key, std::string value);
  UpdateProperties& Remove(std::string key);
  Result<Table> Commit();

 private:
  explicit UpdateProperties(TableOperationsPtr ops);
  TableOperationsPtr ops_;
  std::map<std::string, std::string> updates_;
  std::set<std::string> removals_;
};

/// Manages branches and tags (spec, "Snapshot References"): create, remove, rename,
/// replace, fast-forward, roll back main, and set retention. Each touched ref is guarded by
/// an assert-ref-snapshot-id requirement with the value the change was applied to. Errors
/// (kInvalidArgument / kNotFound) name the ref or snapshot.
class ManageSnapshots {
 public:
  static std::unique_ptr<ManageSnapshots> Make(TableOperationsPtr ops);

  /// A new branch at `snapshot_id` (nullopt: the current snapshot).
  ManageSnapshots& CreateBranch(std::string name,
                                std::optional<int64_t> snapshot_id = std::nullopt);
  ManageSnapshots& CreateTag(std::string name, int64_t snapshot_id);
  /// Removes a branch (not main).
  ManageSnapshots& RemoveBranch(std::string name);
  ManageSnapshots& RemoveTag(std::string name);
  ManageSnapshots& RenameBranch(std::string name, std::string new_name);
  /// Points an existing branch at any snapshot.
  ManageSnapshots& ReplaceBranch(std::string name, int64_t snapshot_id);
  ManageSnapshots& ReplaceTag(std::string name, int64_t snapshot_id);
  /// Moves branch `name` to the snapshot of ref `to`, which must descend from it.
  ManageSnapshots& FastForwardBranch(std::string name, std::string to);
  /// Makes `snapshot_id` main's snapshot (any snapshot of the table).
  ManageSnapshots& SetCurrentSnapshot(int64_t snapshot_id);
  /// Rolls main back to `snapshot_id`, which must be an ancestor of main's snapshot.
  ManageSnapshots& RollbackTo(int64_t snapshot_id);
  ManageSnapshots& SetMinSnapshotsToKeep(std::string branch, int32_t count);
  ManageSnapshots& SetMaxSnapshotAgeMs(std::string branch, int64_t age_ms);
  ManageSnapshots& SetMaxRefAgeMs(std::string ref, int64_t age_ms);

  /// The refs after the changes, for `base`.
  Result<std::map<std::string, SnapshotRef>> Apply(const TableMetadata& base) const;
  Result<Table> Commit();

 private:
  explicit ManageSnapshots(TableOperationsPtr ops);
  struct Change {
    enum class Kind : uint8_t {
      kCreateBranch,
      kCreateTag,
      kRemoveBranch,
      kRemoveTag,
      kRenameBranch,
      kReplaceBranch,
      kReplaceTag,
      kFastForward,
      kSetCurrent,
      kRollback,
      kMinSnapshots,
      kMaxSnapshotAge,
      kMaxRefAge,
    } kind;
    std::string name;
    std::string other;
    std::optional<int64_t> value;
  };
  TableOperationsPtr ops_;
  std::vector<Change> changes_;
};

}  // namespace floe::iceberg
