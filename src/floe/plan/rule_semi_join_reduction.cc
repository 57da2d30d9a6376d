// Semi-join reduction of aggregates. A join that keeps only the groups of an aggregation
// whose keys the other side holds (an inner join on group columns, or a left join whose
// right side is the aggregation: the decorrelated form of a correlated scalar subquery)
// lets the aggregation read only the input rows with those keys: a semi join of the
// aggregation's input with the other side's key values, below the aggregation. TPC-H Q17
// then averages the quantities of the ~200 parts its filters select instead of all
// 200,000, and Q2 and Q20 likewise. The other side is evaluated twice (once for its keys),
// so the rewrite is made only when the estimates say that side is cheap to read again (its
// scans read at most half the rows the aggregation's input scans read: the semi join then
// moves down into that input, see rule_semi_join_pushdown.cc) and selective (at most a
// quarter of the groups), and only when it has no volatile expression (both evaluations
// must see the same rows). Keys that match NULL (IS NOT DISTINCT FROM) are not used: the
// semi join would drop the NULL group.

#include <algorithm>
#include <optional>
#include <vector>

#include "floe/plan/optimizer.h"
#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

namespace {

using expr::ExprPtr;

// The other side's leaves' rows summed: what reading it again costs. Nullopt when a leaf
// has no estimate.
std::optional<int64_t> LeafRows(const LogicalPlan& node) {
  if (node.children.empty()) {
    // A scan reads its source's rows whatever its filters keep.
    if (node.kind == LogicalKind::kScan) return node.source->statistics().row_count;
    return EstimateStatistics(node).row_count;
  }
  int64_t sum = 0;
  for (const LogicalPlanPtr& c : node.children) {
    std::optional<int64_t> rows = LeafRows(*c);
    if (!rows) return std::nullopt;
    sum += *rows;
  }
  return sum;
}

// An aggregation reached from `node` through projections, with `key` (over `node`'s
// output) mapped to an expression over the aggregation's output; null when there is none.
struct AggregateUnder {
  const LogicalPlan* aggregate = nullptr;
  std::vector<const LogicalPlan*> projections;  // from the top down
};

AggregateUnder FindAggregate(const LogicalPlan& node) {
  AggregateUnder out;
  const LogicalPlan* at = &node;
  while (at->kind == LogicalKind::kProjection) {
    out.projections.push_back(at);
    at = at->children[0].get();
  }
  if (at->kind == LogicalKind::kAggregate && !at->group_exprs.empty()) out.aggregate = at;
  return out;
}

// The group expression (over the aggregation's input) a key over the top of `under` is, or
// null when it is not a plain group column.
ExprPtr GroupOfKey(const AggregateUnder& under, const ExprPtr& key) {
  ExprPtr e = key;
  for (const LogicalPlan* p : under.projections) e = expr::SubstituteColumns(e, p->exprs);
  if (e->kind != expr::ExprKind::kColumn) return nullptr;
  const int column = e->column;
  if (column < 0 || column >= static_cast<int>(under.aggregate->group_exprs.size())) {
    return nullptr;
  }
  return under.aggregate->group_exprs[static_cast<size_t>(column)];
}

// `side` (an input of `join` holding an aggregation) with the aggregation's input reduced
// by a semi join with `other`'s keys; null when the rewrite does not apply or pay.
LogicalPlanPtr Reduce(const LogicalPlan& join, bool agg_on_left) {
  const LogicalPlanPtr& side = join.children[agg_on_left ? 0 : 1];
  const LogicalPlanPtr& other = join.children[agg_on_left ? 1 : 0];
  AggregateUnder under = FindAggregate(*side);
  // The other side is evaluated twice: both must see the same rows.
  if (under.aggregate == nullptr || !Repeatable(*other)) return nullptr;
  const auto& side_keys = agg_on_left ? join.left_keys : join.right_keys;
  const auto& other_keys = agg_on_left ? join.right_keys : join.left_keys;
  std::vector<ExprPtr> groups, keys;
  for (size_t i = 0; i < side_keys.size(); ++i) {
    if (i < join.null_equals_null.size() && join.null_equals_null[i]) continue;
    ExprPtr group = GroupOfKey(under, side_keys[i]);
    if (group == nullptr || expr::IsVolatile(*other_keys[i])) continue;
    groups.push_back(std::move(group));
    keys.push_back(other_keys[i]);
  }
  if (groups.empty()) return nullptr;
  // Only when it pays, by the estimates.
  const LogicalPlanPtr& input = under.aggregate->children[0];
  const Statistics group_stats = EstimateStatistics(*under.aggregate);
  const Statistics other_stats = EstimateStatistics(*other);
  const std::optional<int64_t> input_cost = LeafRows(*input);
  const std::optional<int64_t> other_cost = LeafRows(*other);
  if (!group_stats.row_count || !other_stats.row_count || !input_cost || !other_cost) {
    return nullptr;
  }
  if (*other_stats.row_count * 4 > *group_stats.row_count || *other_cost * 2 > *input_cost) {
    return nullptr;
  }
  // The other side's key values, and the aggregation over the input rows that have them.
  std::vector<std::string> names;
  std::vector<ExprPtr> right_keys;
  for (size_t i = 0; i < keys.size(); ++i) {
    names.push_back("__reduce" + std::to_string(i));
    right_keys.push_back(
        expr::Column(static_cast<int>(i), names.back(), keys[i]->type, keys[i]->nullable));
  }
  LogicalPlanPtr key_values = MakeProjection(other, keys, std::move(names));
  LogicalPlanPtr reduced_input = MakeJoin(input, std::move(key_values), JoinType::kSemi, groups,
                                          std::move(right_keys), nullptr);
  LogicalPlanPtr rebuilt = WithNewChildren(*under.aggregate, {std::move(reduced_input)});
  for (auto it = under.projections.rbegin(); it != under.projections.rend(); ++it) {
    rebuilt = WithNewChildren(**it, {std::move(rebuilt)});
  }
  return rebuilt;
}

LogicalPlanPtr ReduceJoin(const LogicalPlanPtr& plan) {
  const LogicalPlan& node = *plan;
  if (node.kind != LogicalKind::kJoin || node.left_keys.empty()) return plan;
  if (node.join_type == JoinType::kInner) {
    if (LogicalPlanPtr left = Reduce(node, /*agg_on_left=*/true)) {
      return WithNewChildren(node, {std::move(left), node.children[1]});
    }
    if (LogicalPlanPtr right = Reduce(node, /*agg_on_left=*/false)) {
      return WithNewChildren(node, {node.children[0], std::move(right)});
    }
  } else if (node.join_type == JoinType::kLeft) {
    // Right rows matter only where they match a left row.
    if (LogicalPlanPtr right = Reduce(node, /*agg_on_left=*/false)) {
      return WithNewChildren(node, {node.children[0], std::move(right)});
    }
  }
  return plan;
}

}  // namespace

Result<LogicalPlanPtr> ReduceAggregatesBySemiJoin(const LogicalPlanPtr& plan) {
  return TransformUp(plan, ReduceJoin);
}

}  // namespace floe::plan::internal
