// Aggregates answered from statistics: count(*) with no GROUP BY over a scan without a
// limit becomes a one-row Values when the source knows the count exactly: with no pushed
// filter from its statistics (read_parquet sums its footers' row counts; an Iceberg table
// takes its snapshot's total-records when the snapshot has no delete files), with exact
// pushed filters (no filter left above the scan) from CountRowsExactly (an Iceberg table
// sums the record counts of the files its identity-partition filter selects). No data file
// is read.

#include <utility>
#include <vector>

#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

namespace {

// The exact row count the aggregate's input produces, or nullopt.
std::optional<int64_t> ExactRows(const LogicalPlan& input) {
  const LogicalPlan* node = &input;
  // Projections keep the row count.
  while (node->kind == LogicalKind::kProjection && node->children.size() == 1) {
    node = node->children[0].get();
  }
  if (node->kind != LogicalKind::kScan || !node->source) return std::nullopt;
  if (node->scan_limit.has_value()) return std::nullopt;
  // A filter the scan cannot apply exactly stays above it, so the path from the
  // aggregate reaches the scan only when every pushed filter is exact.
  if (!node->filters.empty()) return node->source->CountRowsExactly(node->filters);
  const Statistics stats = node->source->statistics();
  if (!stats.exact || !stats.row_count.has_value()) return std::nullopt;
  return stats.row_count;
}

LogicalPlanPtr Answer(const LogicalPlanPtr& node) {
  if (node->kind != LogicalKind::kAggregate || !node->group_exprs.empty() ||
      node->aggregates.empty() || node->children.size() != 1) {
    return node;
  }
  for (const AggregateCall& call : node->aggregates) {
    if (!expr::IsCountStar(call.function.name) || call.filter || !call.args.empty()) return node;
  }
  std::optional<int64_t> rows = ExactRows(*node->children[0]);
  if (!rows) return node;
  std::vector<expr::ExprPtr> row;
  for (int i = 0; i < node->schema->num_fields(); ++i) {
    row.push_back(expr::Literal(Scalar::I64(*rows)));
  }
  return MakeValues(node->schema, {std::move(row)});
}

}  // namespace

Result<LogicalPlanPtr> AnswerFromStatistics(const LogicalPlanPtr& plan) {
  return TransformUp(plan, Answer);
}

}  // namespace floe::plan::internal
