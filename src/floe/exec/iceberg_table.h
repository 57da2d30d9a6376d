#pragma once

// Iceberg tables as SQL relations: IcebergTable is the table provider a catalog name
// resolves to (pinned to the metadata loaded when the statement resolved it), and
// IcebergScanExec reads the file task groups planned once, when the physical plan is
// made, each output partition exactly one group.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/exec/table_provider.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_scan.h"

namespace floe::exec {

/// A table of a catalog, as one statement sees it.
class IcebergTable final : public TableProvider {
 public:
  /// `name` is what EXPLAIN shows ("db.events"). The scan reads `selector`'s snapshot
  /// (the current one by default) with that snapshot's schema when pinned, else the
  /// current schema. kNotFound for an unknown snapshot or ref.
  static Result<std::shared_ptr<IcebergTable>> Make(std::string name, iceberg::Table table,
                                                    iceberg::SnapshotSelector selector = {});

  std::string_view kind() const override { return "iceberg"; }
  std::string display_name() const override { return name_; }
  const SchemaPtr& schema() const override { return schema_; }
  /// Rows and bytes from the snapshot summary; the row count is exact when the snapshot
  /// has no delete files.
  plan::Statistics statistics() const override { return statistics_; }
  /// kInexact for what ToIcebergFilter converts (the scan prunes with it and its task
  /// reader drops failing rows; the engine's filter stays above).
  FilterPushdown SupportsFilter(const expr::Expr& conjunct) const override;
  /// Plans the files now: the filters' Iceberg forms prune manifests, files, row groups
  /// and pages; the tasks are grouped by bytes into at most target_partitions groups.
  Result<PlanPtr> Scan(const ScanRequest& request, const SessionConfig& config) const override;

  const iceberg::Table& table() const { return table_; }

 private:
  IcebergTable() = default;

  std::string name_;
  iceberg::Table table_;
  iceberg::SnapshotSelector selector_;
  iceberg::SchemaPtr iceberg_schema_;  // the schema the scan reads with
  SchemaPtr schema_;
  plan::Statistics statistics_;
};

/// Reads planned Iceberg file task groups: output partition i reads groups[i] (deletes
/// applied, the residual evaluated), producing `projection` (column indexes of the scan's
/// schema, in output order), and stops after `limit` rows per partition.
class IcebergScanExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "IcebergScanExec";

  /// The parts a scan is built from (what another process needs to rebuild it).
  struct Parts {
    std::string table_name;
    /// The table as pinned when the statement resolved it (metadata location and io).
    iceberg::Table table;
    /// The planned scan: snapshot, schema, projection (all of `projection`'s columns, in
    /// schema order) and the pushed filter.
    std::shared_ptr<const iceberg::TableScan> scan;
    std::vector<iceberg::ScanTaskGroup> groups;
    /// Output columns as indexes into scan->schema()'s top-level columns.
    std::vector<int> projection;
    /// The engine filters the Iceberg filter was converted from (for EXPLAIN).
    std::vector<expr::ExprPtr> filters;
    std::optional<int64_t> limit;
  };

  /// kInternal for a projection out of range; no groups gives one empty partition.
  static Result<PlanPtr> Make(Parts parts);

  std::string_view name() const override { return kName; }
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  /// Partitions, files and bytes per partition, the snapshot and the pushed filter.
  std::string ToString() const override;

  const Parts& parts() const { return parts_; }

 private:
  IcebergScanExec() = default;

  Parts parts_;
  PlanProperties properties_;
};

}  // namespace floe::exec
