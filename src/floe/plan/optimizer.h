#pragma once

// Logical optimizer: a fixed sequence of rewrite rules, each a function from plan to
// plan that preserves the result (rows, and their order where the plan defines one).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/plan/logical_plan.h"

namespace floe::plan {

class OptimizerRule {
 public:
  virtual ~OptimizerRule() = default;
  virtual std::string_view name() const = 0;
  virtual Result<LogicalPlanPtr> Rewrite(const LogicalPlanPtr& plan) const = 0;
};

/// The default rules, in order: constant folding and simplification, predicate pushdown
/// (through projections, joins, aggregates on group columns, into scans), join reordering
/// by estimated row counts (where statistics exist), projection pushdown (scans read only
/// the columns used), limit pushdown, answers from statistics, and common sub-expressions
/// of an aggregation's inputs computed once.
std::vector<std::unique_ptr<OptimizerRule>> DefaultRules();

/// Runs the default rules.
Result<LogicalPlanPtr> Optimize(const LogicalPlanPtr& plan);

/// Estimated statistics of a plan's output (selectivity guesses where nothing is known).
Statistics EstimateStatistics(const LogicalPlan& plan);

/// An upper bound of the rows a plan yields, from exact source row counts only (no
/// selectivity guess): filters, aggregations, semi and anti joins keep at most their input.
/// nullopt when a source's count is not exact, and for joins that pair rows (only the
/// product of their inputs bounds them).
std::optional<int64_t> MaxRows(const LogicalPlan& plan);

}  // namespace floe::plan
