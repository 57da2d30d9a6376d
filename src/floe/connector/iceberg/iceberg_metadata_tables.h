#pragma once

// Iceberg metadata tables as SQL relations: "t$snapshots", "t$history", "t$manifests",
// "t$files", "t$partitions", "t$refs" and "t$properties". Each is a table provider over
// the table metadata the statement pinned when it resolved the name; the manifest-based
// tables read the snapshot's manifest list and manifests when the scan is planned, once.
//
// Columns follow the Iceberg reference implementation's metadata tables, with floe's
// nested types where Iceberg has them: snapshot summaries are map<text, text>, partition
// tuples structs (the union of every spec's partition fields, by partition field id),
// per-column metrics map<int, bigint> and map<int, bytea> (bounds in the spec's
// single-value serialization), partition summaries a list of structs. SQL cannot
// subscript these yet; they print as PostgreSQL-style literals ({k=>v}, (a,b), {1,2}).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/exec/table_provider.h"
#include "floe/iceberg/table.h"

namespace floe::connector {

enum class MetadataTableKind : uint8_t {
  kSnapshots,
  kHistory,
  kManifests,
  kFiles,
  kPartitions,
  kRefs,
  kProperties,
};

/// The name after the '$' ("snapshots").
std::string_view MetadataTableKindName(MetadataTableKind kind);

/// The kind a name after '$' denotes (exact, lower case). kNotFound naming `table_name`
/// ("db.t$snapshot") and listing the known metadata tables otherwise.
Result<MetadataTableKind> ParseMetadataTableKind(std::string_view name,
                                                 std::string_view table_name);

/// A relation name's last part split at its last '$': {"t", "snapshots"} for
/// "t$snapshots"; nullopt when there is no '$' with text on both sides.
std::optional<std::pair<std::string, std::string>> SplitMetadataTableName(std::string_view part);

/// One metadata table of one Iceberg table, as one statement sees it.
class IcebergMetadataTable final : public exec::TableProvider {
 public:
  /// `name` is what EXPLAIN shows ("db.t$files"). `snapshot_id` selects the snapshot whose
  /// manifests, files and partitions are listed (default: the current one; the other
  /// kinds describe the whole metadata and ignore it). kNotFound for an unknown snapshot;
  /// kInvalidArgument when the partition types cannot be derived from the metadata.
  static Result<std::shared_ptr<IcebergMetadataTable>> Make(
      std::string name, MetadataTableKind kind, iceberg::Table table,
      std::optional<int64_t> snapshot_id = std::nullopt);

  std::string_view kind() const override { return "iceberg_metadata"; }
  std::string display_name() const override { return name_; }
  const SchemaPtr& schema() const override { return schema_; }
  /// Exact row counts for the tables read from the metadata file alone (snapshots,
  /// history, refs, properties); unknown for the manifest-based ones.
  plan::Statistics statistics() const override;
  /// One partition holding exactly the projected columns in batches of at most
  /// batch_size rows (the limit applied).
  Result<exec::PlanPtr> Scan(const exec::ScanRequest& request,
                             const exec::SessionConfig& config) const override;

  /// The rows with only the `projection` columns (indexes into schema(), in output
  /// order; repeats allowed, none gives a batch without columns that still counts the
  /// rows). Manifest metrics are read only when a metrics column is projected. Errors of
  /// reading manifest lists and manifests name the file; kInternal for a bad index.
  Result<RecordBatchPtr> Read(const std::vector<int>& projection) const;

  MetadataTableKind metadata_kind() const { return kind_; }

 private:
  IcebergMetadataTable() = default;

  std::string name_;
  MetadataTableKind kind_ = MetadataTableKind::kSnapshots;
  iceberg::Table table_;
  // The snapshot the manifest-based tables list; nullptr for a table without snapshots.
  const iceberg::Snapshot* snapshot_ = nullptr;
  // The partition struct over every spec's fields (no fields when never partitioned).
  TypePtr partition_type_;
  SchemaPtr schema_;
};

}  // namespace floe::connector
