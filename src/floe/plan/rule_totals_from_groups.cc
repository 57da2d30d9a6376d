// Totals from groups: an aggregation without GROUP BY over the same input as a grouped
// aggregation elsewhere in the plan reads that grouped aggregation's output instead of the
// input. TPC-H Q11 compares each part's stock value with a fraction of the total over the
// same join:
//
//   SELECT ps_partkey, sum(v) FROM <J> GROUP BY ps_partkey
//   HAVING sum(v) > (SELECT sum(v) * 0.0001 FROM <J>)
//
// The total is the sum of the groups' sums, so the subquery becomes sum(sum) over the
// grouped aggregation, the plan holds that aggregation twice, and the physical planner
// computes it once for both (its input, the join, is read once instead of twice).
//
// A call combines per-group values when: sum -> sum of the sums, min -> min of the mins,
// max -> max of the maxes, count / count(*) -> the sum of the counts, 0 over no groups.
// DISTINCT, FILTER and ORDER BY calls, other functions, and calls the grouped aggregation
// does not compute leave the total as it is. Over no input rows the grouped aggregation has
// no groups and the combined calls give NULL (count: 0), as the total over no rows does.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/expr/function_registry.h"
#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

namespace {

void CollectGrouped(const LogicalPlanPtr& node, std::vector<LogicalPlanPtr>* out) {
  if (node->kind == LogicalKind::kAggregate && !node->group_exprs.empty()) out->push_back(node);
  for (const LogicalPlanPtr& child : node->children) CollectGrouped(child, out);
}

// The function that combines per-group values of `name` into the total, or nullopt.
std::optional<std::string> Combiner(const std::string& name) {
  if (name == "sum" || name == "min" || name == "max") return name;
  if (name == "count" || expr::IsCountStar(name)) return std::string("sum");
  return std::nullopt;
}

// The total of `total` (an aggregation without groups) computed from `grouped`'s output, or
// nullptr when some call does not combine.
Result<LogicalPlanPtr> FromGroups(const LogicalPlan& total, const LogicalPlanPtr& grouped) {
  const int keys = static_cast<int>(grouped->group_exprs.size());
  std::vector<AggregateCall> calls;
  std::vector<std::string> names;
  std::vector<expr::ExprPtr> outputs;  // over the combined calls: the total's columns
  bool cast = false;
  for (size_t i = 0; i < total.aggregates.size(); ++i) {
    const AggregateCall& call = total.aggregates[i];
    if (call.function.distinct || call.filter != nullptr || !call.order_by.empty()) return nullptr;
    std::optional<std::string> combiner = Combiner(call.function.name);
    if (!combiner) return nullptr;
    int found = -1;
    for (size_t j = 0; j < grouped->aggregates.size() && found < 0; ++j) {
      if (SameAggregate(call, grouped->aggregates[j])) found = keys + static_cast<int>(j);
    }
    if (found < 0) return nullptr;
    const Field& field = grouped->schema->field(found);
    expr::ExprPtr column = expr::Column(found, field.name(), field.type(), field.nullable());
    FLOE_ASSIGN_OR_RAISE(expr::ResolvedAggregate resolved,
                         expr::ResolveAggregate(*combiner, {field.type()}, false));
    AggregateCall combined;
    combined.function = std::move(resolved);
    combined.args = {column};
    const TypePtr& want = call.function.return_type;
    const TypePtr got = combined.function.return_type;
    expr::ExprPtr out = expr::Column(static_cast<int>(i), total.schema->field(i).name(), got, true);
    if (call.function.never_null) {
      // count: the sum of the counts, 0 over no groups.
      out = expr::Case({expr::IsNull(out), expr::Literal(Scalar::I64(0))}, expr::Cast(out, want),
                       want);
      cast = true;
    } else if (!got->Equals(*want)) {
      out = expr::Cast(out, want);
      cast = true;
    }
    calls.push_back(std::move(combined));
    names.push_back(total.schema->field(i).name());
    outputs.push_back(std::move(out));
  }
  LogicalPlanPtr combined = MakeAggregate(grouped, {}, {}, std::move(calls), names);
  if (!cast) return combined;
  return MakeProjection(combined, std::move(outputs), std::move(names));
}

}  // namespace

Result<LogicalPlanPtr> DeriveTotalsFromGroups(const LogicalPlanPtr& plan) {
  std::vector<LogicalPlanPtr> grouped;
  CollectGrouped(plan, &grouped);
  if (grouped.empty()) return plan;
  Status failed;
  LogicalPlanPtr out = TransformUp(plan, [&](const LogicalPlanPtr& node) -> LogicalPlanPtr {
    if (node->kind != LogicalKind::kAggregate || !node->group_exprs.empty() ||
        node->aggregates.empty() || !failed.ok()) {
      return node;
    }
    for (const LogicalPlanPtr& g : grouped) {
      if (!SameSubtree(*g->children[0], *node->children[0])) continue;
      Result<LogicalPlanPtr> derived = FromGroups(*node, g);
      if (!derived.ok()) {
        failed = derived.status();
        return node;
      }
      if (*derived != nullptr) return *derived;
    }
    return node;
  });
  FLOE_RETURN_NOT_OK(failed);
  return out;
}

}  // namespace floe::plan::internal
