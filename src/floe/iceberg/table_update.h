#pragma once

// Table requirements and metadata updates, the vocabulary of a commit (REST catalog spec,
// `CommitTableRequest`): a committer states what it assumes of the current metadata
// (requirements) and what it changes (updates); a catalog checks the one against the
// metadata it holds and applies the other to produce the next metadata file.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

/// One assumption about the current metadata (REST spec, `TableRequirement`).
struct TableRequirement {
  enum class Kind : uint8_t {
    kAssertCreate,                   // the table does not exist
    kAssertTableUuid,                // uuid
    kAssertRefSnapshotId,            // ref points at snapshot_id (nullopt: ref must not exist)
    kAssertLastAssignedFieldId,      // last-column-id == id
    kAssertCurrentSchemaId,          // current-schema-id == id
    kAssertLastAssignedPartitionId,  // last-partition-id == id
    kAssertDefaultSpecId,            // default-spec-id == id
    kAssertDefaultSortOrderId,       // default-sort-order-id == id
  };
  Kind kind = Kind::kAssertCreate;
  std::string uuid;
  std::string ref;
  std::optional<int64_t> snapshot_id;
  int32_t id = 0;

  static TableRequirement AssertCreate();
  static TableRequirement AssertTableUuid(std::string uuid);
  static TableRequirement AssertRefSnapshotId(std::string ref, std::optional<int64_t> snapshot_id);
  static TableRequirement AssertLastAssignedFieldId(int32_t id);
  static TableRequirement AssertCurrentSchemaId(int32_t id);
  static TableRequirement AssertLastAssignedPartitionId(int32_t id);
  static TableRequirement AssertDefaultSpecId(int32_t id);
  static TableRequirement AssertDefaultSortOrderId(int32_t id);

  /// The REST spec's type string ("assert-create", "assert-ref-snapshot-id", ...).
  std::string_view type_name() const;
  bool operator==(const TableRequirement& other) const = default;
};

/// Checks every requirement against `current` (nullptr when the table does not exist).
/// The first failed requirement is a kCommitConflict saying what was expected and what
/// was found ("requirement failed: branch main is at snapshot 12, expected 11").
Status CheckRequirements(const TableMetadata* current,
                         const std::vector<TableRequirement>& requirements);

/// The metadata updates (REST spec, `TableUpdate`). A `-1` id in SetCurrentSchema,
/// SetDefaultSpec and SetDefaultSortOrder means "the one added last in this commit".
namespace update {
struct AssignUuid {
  std::string uuid;
};
struct UpgradeFormatVersion {
  int format_version = 2;
};
/// Adds a schema. Its schema id is reassigned to the next free id when it collides; a
/// schema equal (ignoring id) to an existing one is not added again but still counts as
/// "the last added" for a following SetCurrentSchema(-1).
struct AddSchema {
  SchemaPtr schema;
  /// The table's new last-column-id; nullopt: max(current, schema's highest field id).
  std::optional<int32_t> last_column_id;
};
struct SetCurrentSchema {
  int32_t schema_id = -1;
};
/// Adds a spec (its id reassigned like AddSchema's; an equal spec is reused).
struct AddSpec {
  PartitionSpecPtr spec;
};
struct SetDefaultSpec {
  int32_t spec_id = -1;
};
/// Adds a sort order (an equal order is reused; the unsorted order is always id 0).
struct AddSortOrder {
  SortOrderPtr sort_order;
};
struct SetDefaultSortOrder {
  int32_t sort_order_id = -1;
};
/// Adds a snapshot. Its sequence number must be greater than the table's last sequence
/// number (v2+), its parent must exist when set; last-sequence-number advances to it.
struct AddSnapshot {
  Snapshot snapshot;
};
/// Points a branch or tag at a snapshot. Moving `main` also sets current-snapshot-id and
/// appends to the snapshot log.
struct SetSnapshotRef {
  std::string ref_name;
  SnapshotRef ref;
};
struct RemoveSnapshots {
  std::vector<int64_t> snapshot_ids;
};
struct RemoveSnapshotRef {
  std::string ref_name;
};
struct SetLocation {
  std::string location;
};
struct SetProperties {
  std::map<std::string, std::string> updates;
};
struct RemoveProperties {
  std::set<std::string> removals;
};
struct SetStatistics {
  StatisticsFile statistics;
};
struct RemoveStatistics {
  int64_t snapshot_id = 0;
};
}  // namespace update

using TableUpdate =
    std::variant<update::AssignUuid, update::UpgradeFormatVersion, update::AddSchema,
                 update::SetCurrentSchema, update::AddSpec, update::SetDefaultSpec,
                 update::AddSortOrder, update::SetDefaultSortOrder, update::AddSnapshot,
                 update::SetSnapshotRef, update::RemoveSnapshots, update::RemoveSnapshotRef,
                 update::SetLocation, update::SetProperties, update::RemoveProperties,
                 update::SetStatistics, update::RemoveStatistics>;

/// The REST spec's action string of an update ("add-schema", "set-snapshot-ref", ...).
std::string_view UpdateActionName(const TableUpdate& update);

/// Applies `updates` in order to `base` and returns validated new metadata with
/// last-updated-ms set to `now_ms`. When `previous_metadata_location` is non-empty, it is
/// appended to the metadata log (trimmed to `write.metadata.previous-versions-max`, default
/// 100). Removing snapshots also drops their refs, statistics and snapshot-log entries.
/// An update that cannot apply (unknown schema id, a snapshot id already present, a
/// sequence number that does not advance, a format downgrade) is kInvalidArgument naming
/// the update; the caller's base is never modified.
Result<TableMetadataPtr> ApplyUpdates(const TableMetadata& base,
                                      const std::vector<TableUpdate>& updates, int64_t now_ms,
                                      const std::string& previous_metadata_location = "");

/// What a new table is made from.
struct NewTableOptions {
  /// Field ids are reassigned from 1 in schema order (nested fields after their parent's
  /// siblings, as the spec's reference implementation does); identifier fields and
  /// defaults follow their fields.
  SchemaPtr schema;
  /// Sources refer to `schema`'s ids before reassignment; partition field ids are
  /// reassigned from 1000. nullptr: unpartitioned.
  PartitionSpecPtr spec;
  /// Sources refer to `schema`'s ids before reassignment. nullptr: unsorted.
  SortOrderPtr sort_order;
  std::string location;
  std::map<std::string, std::string> properties;
  int format_version = 2;
};

/// The metadata of a new, empty table: a fresh UUID, the schema/spec/sort order with ids
/// assigned as the spec requires (schema 0, spec 0, sort order 1 or 0 when unsorted), no
/// snapshots. The `format-version` property, when present, overrides `format_version` and
/// is not stored as a property. kInvalidArgument for an unsupported format version (only 1
/// and 2 are written) or a spec/sort order that does not fit the schema.
Result<TableMetadataPtr> NewTableMetadata(const NewTableOptions& options, int64_t now_ms);

/// The updates that create `metadata` from nothing (what a CommitTable with an
/// assert-create requirement carries).
std::vector<TableUpdate> CreateTableUpdates(const TableMetadata& metadata);

/// A random (version 4) UUID in its canonical lower-case text form.
std::string NewUuid();

/// The file name of metadata version `version`: "NNNNN-<uuid>.metadata.json" (five digits,
/// zero padded), or "...gz.metadata.json" when `gzip`.
std::string MetadataFileName(int64_t version, bool gzip = false);

/// REST JSON forms (for catalogs that speak JSON and for the plan codec).
nlohmann::json TableRequirementToJson(const TableRequirement& requirement);
Result<TableRequirement> TableRequirementFromJson(const nlohmann::json& json);
Result<nlohmann::json> TableUpdateToJson(const TableUpdate& update);
/// `current` resolves schema sources of specs and sort orders (the schema added last in
/// the same commit, else the current schema).
Result<TableUpdate> TableUpdateFromJson(const nlohmann::json& json, const TableMetadata* current,
                                        const Schema* last_added_schema);

}  // namespace floe::iceberg
