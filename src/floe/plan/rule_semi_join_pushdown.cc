// Semi and anti join pushdown. A semi or anti join keeps or drops rows of its left input
// by a condition on that input's columns alone (plus the right input), so it commutes
// with what sits below it on the left as long as its keys can be expressed there: it
// moves below a projection (keys substituted by the projected expressions) and into the
// side of an inner join that holds every column its keys use. TPC-H Q18's
// `o_orderkey IN (SELECT l_orderkey ... HAVING ...)` then filters orders before orders
// are joined with lineitem and customer, instead of filtering the joined rows at the
// end. Joins with a residual filter, and mark joins (which add a column), stay where
// they are.

#include <algorithm>
#include <vector>

#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

namespace {

using expr::ExprPtr;

bool Pushable(const LogicalPlan& node) {
  return node.kind == LogicalKind::kJoin &&
         (node.join_type == JoinType::kSemi || node.join_type == JoinType::kAnti) &&
         node.join_filter == nullptr && !node.left_keys.empty();
}

std::vector<int> KeyColumns(const std::vector<ExprPtr>& keys) {
  std::vector<int> columns;
  for (const ExprPtr& k : keys) {
    for (int c : expr::ReferencedColumns(*k)) columns.push_back(c);
  }
  return columns;
}

bool AnyVolatile(const std::vector<ExprPtr>& exprs) {
  return std::any_of(exprs.begin(), exprs.end(),
                     [](const ExprPtr& e) { return expr::IsVolatile(*e); });
}

// `semi` with its left input replaced by `left` and its keys by `keys`.
LogicalPlanPtr Rebuild(const LogicalPlan& semi, LogicalPlanPtr left, std::vector<ExprPtr> keys) {
  return MakeJoin(std::move(left), semi.children[1], semi.join_type, std::move(keys),
                  semi.right_keys, nullptr, semi.null_equals_null);
}

// Pushes one pushable semi/anti join as far down its left input as it goes.
LogicalPlanPtr PushOne(const LogicalPlan& semi) {
  const LogicalPlanPtr& left = semi.children[0];
  if (AnyVolatile(semi.left_keys)) return nullptr;
  if (left->kind == LogicalKind::kProjection && !AnyVolatile(left->exprs)) {
    std::vector<ExprPtr> keys;
    for (const ExprPtr& k : semi.left_keys) keys.push_back(expr::SubstituteColumns(k, left->exprs));
    LogicalPlanPtr below = Rebuild(semi, left->children[0], std::move(keys));
    if (LogicalPlanPtr deeper = PushOne(*below)) below = deeper;
    return WithNewChildren(*left, {below});
  }
  if (left->kind == LogicalKind::kJoin && left->join_type == JoinType::kInner) {
    const int left_width = left->children[0]->schema->num_fields();
    const std::vector<int> columns = KeyColumns(semi.left_keys);
    const bool all_left =
        std::all_of(columns.begin(), columns.end(), [&](int c) { return c < left_width; });
    const bool all_right =
        std::all_of(columns.begin(), columns.end(), [&](int c) { return c >= left_width; });
    if (all_left) {
      LogicalPlanPtr below = Rebuild(semi, left->children[0], semi.left_keys);
      if (LogicalPlanPtr deeper = PushOne(*below)) below = deeper;
      return WithNewChildren(*left, {below, left->children[1]});
    }
    if (all_right) {
      const int width = left->schema->num_fields();
      std::vector<int> mapping(static_cast<size_t>(width), -1);
      for (int c = left_width; c < width; ++c) mapping[static_cast<size_t>(c)] = c - left_width;
      std::vector<ExprPtr> keys;
      for (const ExprPtr& k : semi.left_keys) keys.push_back(expr::RemapColumns(k, mapping));
      LogicalPlanPtr below = Rebuild(semi, left->children[1], std::move(keys));
      if (LogicalPlanPtr deeper = PushOne(*below)) below = deeper;
      return WithNewChildren(*left, {left->children[0], below});
    }
  }
  return nullptr;
}

LogicalPlanPtr PushIfPushable(const LogicalPlanPtr& node) {
  if (Pushable(*node)) {
    if (LogicalPlanPtr pushed = PushOne(*node)) return pushed;
  }
  return node;
}

}  // namespace

Result<LogicalPlanPtr> PushDownSemiJoins(const LogicalPlanPtr& plan) {
  return TransformUp(plan, PushIfPushable);
}

}  // namespace floe::plan::internal
