#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

/// The highest table format version this code reads (v3 is read; v1 and v2 are written).
inline constexpr int kMaxSupportedFormatVersion = 3;

/// A snapshot (spec, "Snapshots").
struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  /// 0 for v1 tables (no sequence numbers).
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  /// The manifest list location; empty for a v1 snapshot that lists `manifests` instead.
  std::string manifest_list;
  /// v1 only: manifest file locations held in the metadata instead of a manifest list.
  std::vector<std::string> manifests;
  /// The summary, including "operation" when the writer recorded one.
  std::map<std::string, std::string> summary;
  std::optional<int32_t> schema_id;
  /// v3 row lineage.
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> added_rows;
  /// v3 encryption: the id of the key that encrypts the manifest list.
  std::optional<std::string> key_id;

  /// summary["operation"], or empty.
  std::string operation() const;
  bool operator==(const Snapshot& other) const = default;
};

/// A named reference to a snapshot (spec, "Snapshot References").
struct SnapshotRef {
  enum class Type : uint8_t { kBranch, kTag };
  int64_t snapshot_id = 0;
  Type type = Type::kBranch;
  std::optional<int32_t> min_snapshots_to_keep;  // branches only
  std::optional<int64_t> max_snapshot_age_ms;    // branches only
  std::optional<int64_t> max_ref_age_ms;

  bool is_branch() const { return type == Type::kBranch; }
  bool operator==(const SnapshotRef& other) const = default;
};

inline constexpr std::string_view kMainBranch = "main";

struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
  bool operator==(const SnapshotLogEntry& other) const = default;
};

struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
  bool operator==(const MetadataLogEntry& other) const = default;
};

/// One blob of a Puffin statistics file, as listed in table metadata.
struct BlobMetadata {
  std::string type;
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  std::vector<int32_t> fields;
  std::map<std::string, std::string> properties;
  bool operator==(const BlobMetadata& other) const = default;
};

/// A table statistics file (spec, "Table Statistics").
struct StatisticsFile {
  int64_t snapshot_id = 0;
  std::string statistics_path;
  int64_t file_size_in_bytes = 0;
  int64_t file_footer_size_in_bytes = 0;
  std::optional<std::string> key_metadata;
  std::vector<BlobMetadata> blob_metadata;
  bool operator==(const StatisticsFile& other) const = default;
};

/// A partition statistics file (spec, "Partition Statistics").
struct PartitionStatisticsFile {
  int64_t snapshot_id = 0;
  std::string statistics_path;
  int64_t file_size_in_bytes = 0;
  bool operator==(const PartitionStatisticsFile& other) const = default;
};

/// A v3 encryption key entry; kept so that metadata round-trips, not used for decryption.
struct EncryptedKey {
  std::string key_id;
  std::string encrypted_key_metadata;
  std::optional<std::string> encrypted_by_id;
  std::map<std::string, std::string> properties;
  bool operator==(const EncryptedKey& other) const = default;
};

/// A table metadata file's content (spec, "Table Metadata"). Plain data; build it through
/// TableMetadataFromJson or by filling the fields and calling Validate().
struct TableMetadata {
  int format_version = 2;
  std::string table_uuid;  // may be empty in v1
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<SchemaPtr> schemas;
  int32_t current_schema_id = 0;
  std::vector<PartitionSpecPtr> partition_specs;
  int32_t default_spec_id = 0;
  int32_t last_partition_id = kPartitionFieldIdStart - 1;
  std::map<std::string, std::string> properties;
  /// nullopt when the table has no current snapshot (written as -1).
  std::optional<int64_t> current_snapshot_id;
  std::vector<Snapshot> snapshots;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  std::vector<SortOrderPtr> sort_orders;
  int32_t default_sort_order_id = 0;
  /// Branches and tags by name. After parsing, "main" is present whenever there is a
  /// current snapshot (implied by current-snapshot-id when the file has no refs).
  std::map<std::string, SnapshotRef> refs;
  std::vector<StatisticsFile> statistics;
  std::vector<PartitionStatisticsFile> partition_statistics;
  /// v3 row lineage.
  std::optional<int64_t> next_row_id;
  /// v3 encryption keys (tolerated and kept, not used).
  std::vector<EncryptedKey> encryption_keys;

  /// Checks the cross references: current schema/spec/sort order exist, the current
  /// snapshot and every ref name existing snapshots, ids are unique. kCorrupt naming what.
  Status Validate() const;

  SchemaPtr SchemaById(int32_t schema_id) const;
  /// The current schema (never null in validated metadata).
  SchemaPtr CurrentSchema() const { return SchemaById(current_schema_id); }
  PartitionSpecPtr SpecById(int32_t spec_id) const;
  PartitionSpecPtr DefaultSpec() const { return SpecById(default_spec_id); }
  SortOrderPtr SortOrderById(int32_t order_id) const;
  SortOrderPtr DefaultSortOrder() const { return SortOrderById(default_sort_order_id); }

  /// The snapshot with this id, or nullptr.
  const Snapshot* SnapshotById(int64_t snapshot_id) const;
  /// The current snapshot, or nullptr when the table has none.
  const Snapshot* CurrentSnapshot() const;
  /// The snapshot a branch or tag points at; kNotFound naming the ref when it is unknown.
  Result<const Snapshot*> SnapshotByRef(std::string_view ref_name) const;
  /// The snapshot that was current at `timestamp_ms`: the last snapshot-log entry at or
  /// before that time (when the log is empty, the current snapshot's ancestry by commit
  /// time). kNotFound when the table had no snapshot then.
  Result<const Snapshot*> SnapshotAsOf(int64_t timestamp_ms) const;
  /// The schema a snapshot was written with (its schema-id, else the current schema).
  SchemaPtr SchemaForSnapshot(const Snapshot& snapshot) const;
  /// The snapshot ids from `snapshot_id` back through its parents (newest first), stopping
  /// at a parent that is no longer in the metadata.
  std::vector<int64_t> Ancestors(int64_t snapshot_id) const;

  /// Property lookup with a default.
  std::string Property(std::string_view key, std::string_view default_value = "") const;

  /// Field-by-field equality (schemas, specs and sort orders compared by content).
  bool Equals(const TableMetadata& other) const;
};

using TableMetadataPtr = std::shared_ptr<const TableMetadata>;

/// Parses table metadata JSON. `file_name` names the file in every error. Unknown
/// format versions are kNotSupported; missing or mistyped required fields are kCorrupt
/// naming the field.
Result<TableMetadataPtr> TableMetadataFromJson(const nlohmann::json& json,
                                               std::string_view file_name);
/// Parses metadata bytes: plain JSON, or gzip-compressed JSON (detected by its magic bytes,
/// whatever the file is called).
Result<TableMetadataPtr> TableMetadataFromBytes(std::string_view bytes, std::string_view file_name);
/// Writes metadata JSON that spec-compliant readers of its format version accept. v1
/// metadata also carries the legacy `schema` and `partition-spec` fields.
Result<nlohmann::json> TableMetadataToJson(const TableMetadata& metadata);
Result<std::string> TableMetadataToJsonString(const TableMetadata& metadata, bool pretty = false);

/// Partition spec and sort order JSON (used in table metadata and in manifest headers).
/// Sources are checked against `schema` (a missing source is tolerated for specs).
Result<PartitionSpecPtr> PartitionSpecFromJson(const nlohmann::json& json, const Schema& schema,
                                               std::string_view context);
/// The v1 `partition-spec` form: an array of fields; field ids absent are assigned from 1000.
Result<PartitionSpecPtr> PartitionSpecFromFieldsJson(const nlohmann::json& fields,
                                                     const Schema& schema, int32_t spec_id,
                                                     std::string_view context);
nlohmann::json PartitionSpecToJson(const PartitionSpec& spec);
/// Only the fields array (manifest headers and v1's `partition-spec`).
nlohmann::json PartitionFieldsToJson(const PartitionSpec& spec);
Result<SortOrderPtr> SortOrderFromJson(const nlohmann::json& json, const Schema& schema,
                                       std::string_view context);
nlohmann::json SortOrderToJson(const SortOrder& order);
/// Snapshot, ref and statistics-file JSON as in table metadata (and REST updates).
Result<Snapshot> SnapshotFromJson(const nlohmann::json& json, int format_version,
                                  std::string_view context);
nlohmann::json SnapshotToJson(const Snapshot& snapshot, int format_version);
Result<SnapshotRef> RefFromJson(const nlohmann::json& json, std::string_view context);
nlohmann::json RefToJson(const SnapshotRef& ref);
Result<StatisticsFile> StatisticsFromJson(const nlohmann::json& json, std::string_view context);
nlohmann::json StatisticsToJson(const StatisticsFile& statistics);

}  // namespace floe::iceberg
