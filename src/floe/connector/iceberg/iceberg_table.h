#pragma once

// Iceberg tables as SQL relations: IcebergTable is the table provider a catalog name
// resolves to (pinned to the metadata loaded when the statement resolved it), and
// IcebergScanExec reads the file task groups planned once, when the physical plan is
// made, each output partition exactly one group.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/exec/table_provider.h"
#include "floe/expr/physical_expr.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_scan.h"

namespace floe::connector {

/// A table of a catalog, as one statement sees it.
class IcebergTable final : public exec::TableProvider {
 public:
  /// `name` is what EXPLAIN shows ("db.events"). The scan reads `selector`'s snapshot
  /// (the current one by default) with that snapshot's schema when pinned, else the
  /// current schema. kNotFound for an unknown snapshot or ref.
  /// `only_files`, when set, restricts the table to those data files (by path): a
  /// copy-on-write change reads the files it rewrites this way (the statistics are then
  /// estimates).
  static Result<std::shared_ptr<IcebergTable>> Make(
      std::string name, iceberg::Table table, iceberg::SnapshotSelector selector = {},
      std::shared_ptr<const std::set<std::string>> only_files = nullptr);

  std::string_view kind() const override { return "iceberg"; }
  std::string display_name() const override { return name_; }
  const SchemaPtr& schema() const override { return schema_; }
  /// Rows and bytes from the snapshot summary; the row count is exact when the snapshot
  /// has no delete files (an unfiltered scan has no residual). For snapshots of at most
  /// kColumnStatisticsMaxFiles data files, the first call also plans the files once to
  /// add per-column bounds, null counts and widths from the manifests' metrics (bounds
  /// cover the files before deletes, so they are bounds, not exact extremes); a plan that
  /// fails leaves the columns out (the scan reports the error).
  plan::Statistics statistics() const override;
  /// Another binding of the same table in the same state: the same name, metadata file,
  /// snapshot selector and schema, and no file restriction.
  bool SameSource(const plan::TableSource& other) const override;
  /// kExact for a comparison (=, <, <=, >, >=), IN list or IS [NOT] NULL of a column with
  /// a constant of its own type, when the column is an identity partition source in every
  /// partition spec of the table (integer, date, string or boolean columns; strings and
  /// booleans only = and IN): planning decides it from partition values alone, so no
  /// residual remains and the scan returns exactly the matching rows. kInexact for the
  /// rest of what ToIcebergFilter converts (the scan prunes with it and its task reader
  /// drops failing rows; the engine's filter stays above).
  FilterPushdown SupportsFilter(const expr::Expr& conjunct) const override;
  /// Plans the files now: the filters' Iceberg forms prune manifests, files, row groups
  /// and pages; the tasks are grouped by bytes into at most target_partitions groups.
  /// When every file carries the table's sort order, each group's files are put in
  /// sort-key order (IcebergScanExec reports the ordering where that preserves it).
  Result<exec::PlanPtr> Scan(const exec::ScanRequest& request,
                             const exec::SessionConfig& config) const override;

  /// Snapshots with more data files than this get no per-column statistics (planning
  /// every manifest with its metrics would cost more than the estimates gain).
  static constexpr int64_t kColumnStatisticsMaxFiles = 2000;

  /// The exact number of rows a scan with these conjuncts returns, counted from the
  /// manifests alone (no data file is opened), or nullopt when some conjunct is not
  /// kExact or some planned file is split, has delete files or keeps a residual. An empty
  /// list counts the whole snapshot. Planning errors (a manifest that cannot be read).
  /// What count(*) over a scan with exact filters can be answered from.
  Result<std::optional<int64_t>> ExactRowCount(const std::vector<expr::ExprPtr>& filters) const;
  /// ExactRowCount, with a planning error read as "unknown" (the scan will report it).
  std::optional<int64_t> CountRowsExactly(const std::vector<expr::ExprPtr>& filters) const override;

  /// The metadata columns _file, _pos, _spec_id and _partition (iceberg/metadata_columns.h)
  /// end the schema, hidden from SELECT * (a table column of the same name hides one).
  int hidden_columns() const override { return hidden_columns_; }

  const iceberg::Table& table() const { return table_; }

 private:
  IcebergTable() = default;

  std::string name_;
  iceberg::Table table_;
  iceberg::SnapshotSelector selector_;
  std::shared_ptr<const std::set<std::string>> only_files_;
  iceberg::SchemaPtr iceberg_schema_;  // the schema the scan reads with
  SchemaPtr schema_;
  int hidden_columns_ = 0;
  mutable std::mutex statistics_mutex_;
  mutable plan::Statistics statistics_;
  mutable bool column_statistics_done_ = false;
};

/// Reads planned Iceberg file task groups: output partition i reads groups[i] (deletes
/// applied, the residual evaluated), producing `projection` (column indexes of the scan's
/// schema, in output order), and stops after `limit` rows per partition.
///
/// Execution follows the task context's settings: batches of at most `batch_size` rows;
/// `iceberg.read_concurrency` files of a group read at once (the one being consumed and
/// the next ones opened, with their first batch decoded, on the context's thread pool,
/// or on the consuming thread when it gets there first; results stay in group order);
/// `iceberg.read_ahead_bytes` and `iceberg.use_page_index` for the Parquet reader. A
/// scan with no output columns (count(*)) takes the row counts of whole files without
/// deletes or residual from the manifests and opens no such file. A cancelled context
/// fails the stream with kCancelled (never a short or empty result).
///
/// Columns with a declared type (declared_types.h: a smallint stored as int, jsonb stored
/// as string) are converted to it; a stored value the declared type cannot hold fails the
/// scan naming the column.
///
/// Output ordering: when every planned file carries the table's default sort order id
/// and within each group a file's tasks are in byte order and distinct files follow each
/// other with non-overlapping ranges of the first sort key (no NULLs in it, not a
/// floating-point key), the node reports the sort order's leading identity fields that
/// are output columns (direction and null order as the sort order says).
class IcebergScanExec final : public exec::ExecutionPlan {
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
  static Result<exec::PlanPtr> Make(Parts parts);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<exec::PlanPtr> Decode(codec::PlanDecoder& in, std::vector<exec::PlanPtr> children);
  const exec::PlanProperties& properties() const override { return properties_; }
  std::vector<exec::PlanPtr> children() const override { return {}; }
  Result<exec::PlanPtr> WithNewChildren(std::vector<exec::PlanPtr> children) const override;
  Result<exec::BatchStreamPtr> Execute(int partition,
                                       const exec::TaskContextPtr& ctx) const override;
  /// The snapshot, projection, pushed filter, row count of the planned files ("rows=7
  /// (exact)" when no deletes, splits or residual make it an estimate), ordering, and
  /// files and bytes per partition.
  std::string ToString() const override;
  /// This scan reading dynamic filter `id` over output column `column` too (as a residual
  /// ANDed to every task's once the filter is published: it prunes row groups and pages
  /// and drops rows); null with a limit, or for a column read with a conversion.
  exec::PlanPtr WithDynamicFilter(int id, int column) const override;

  const Parts& parts() const { return parts_; }
  const std::vector<exec::DynamicFilterUse>& dynamic_filters() const { return dynamic_filters_; }
  /// Per output column, the cast from the stored to the declared type, or nullptr (read as
  /// stored, or only relabelled).
  const std::vector<expr::PhysicalExprPtr>& conversions() const { return conversions_; }
  /// Whether some output column's declared type differs from its stored one.
  bool relabels() const { return relabels_; }

 private:
  IcebergScanExec() = default;

  Parts parts_;
  exec::PlanProperties properties_;
  /// Per output column, the cast from its stored type to its declared type
  /// (declared_types.h), or nullptr when it is read as stored.
  std::vector<expr::PhysicalExprPtr> conversions_;
  bool relabels_ = false;
  std::vector<exec::DynamicFilterUse> dynamic_filters_;
};

}  // namespace floe::connector
