// Distinct aggregates as two groupings. An aggregation whose aggregates are all DISTINCT
// over the same arguments (count(DISTINCT x), sum(DISTINCT x), ...) without FILTER or
// ORDER BY groups its input by the group keys and the arguments first, which removes the
// duplicates, and then aggregates the plain function per group over those rows:
//
//   Aggregate(g; count(DISTINCT x))  =>  Aggregate(g; count(x))
//                                          Aggregate(g, x)
//
// Both are ordinary hash aggregations: partial and final phases, partitioned, spilling past
// the memory budget; the distinct accumulator they replace keeps a set per group of one
// encoded key per row in one thread (TPC-H Q16 spent over a second in it at scale factor
// 10). The functions rewritten are those whose DISTINCT result is the plain function over
// the distinct values (count, sum, avg, min, max) and whose plain form has the same result
// type; a NULL argument forms a group of its own in the first grouping and is then ignored
// by the plain function, as DISTINCT ignores it.

#include <string>
#include <vector>

#include "floe/expr/function_registry.h"
#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

namespace {

using expr::ExprPtr;

bool Rewritable(const AggregateCall& call) {
  const std::string& name = call.function.name;
  return call.function.distinct && call.filter == nullptr && call.order_by.empty() &&
         !call.args.empty() &&
         (name == "count" || name == "sum" || name == "avg" || name == "min" || name == "max");
}

bool SameArgs(const AggregateCall& a, const AggregateCall& b) {
  if (a.args.size() != b.args.size()) return false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!a.args[i]->Equals(*b.args[i])) return false;
  }
  return true;
}

LogicalPlanPtr SplitDistinct(const LogicalPlanPtr& plan) {
  const LogicalPlan& node = *plan;
  if (node.kind != LogicalKind::kAggregate || node.aggregates.empty()) return plan;
  const AggregateCall& first = node.aggregates[0];
  for (const AggregateCall& call : node.aggregates) {
    if (!Rewritable(call) || !SameArgs(call, first)) return plan;
    for (const ExprPtr& a : call.args) {
      if (expr::IsVolatile(*a)) return plan;
    }
  }
  for (const ExprPtr& g : node.group_exprs) {
    if (expr::IsVolatile(*g)) return plan;
  }
  // The plain functions, which must give the DISTINCT forms' types.
  std::vector<AggregateCall> plain;
  for (const AggregateCall& call : node.aggregates) {
    Result<expr::ResolvedAggregate> resolved =
        expr::ResolveAggregate(call.function.name, call.function.arg_types, /*distinct=*/false);
    if (!resolved.ok() || !resolved->return_type->Equals(*call.function.return_type)) return plan;
    plain.push_back(AggregateCall{*std::move(resolved), {}, nullptr, {}});
  }
  // First grouping: the group keys, then the arguments.
  const size_t num_groups = node.group_exprs.size();
  std::vector<ExprPtr> keys = node.group_exprs;
  std::vector<std::string> key_names;
  for (size_t i = 0; i < num_groups; ++i) key_names.push_back(node.schema->field(i).name());
  for (size_t i = 0; i < first.args.size(); ++i) {
    keys.push_back(first.args[i]);
    key_names.push_back("__distinct" + std::to_string(i));
  }
  LogicalPlanPtr distinct = MakeAggregate(node.children[0], keys, key_names, {}, {});
  // Second: the plain functions over the distinct rows.
  std::vector<ExprPtr> groups;
  std::vector<std::string> group_names;
  for (size_t i = 0; i < num_groups; ++i) {
    const Field& f = distinct->schema->field(i);
    groups.push_back(expr::Column(static_cast<int>(i), f.name(), f.type(), f.nullable()));
    group_names.push_back(f.name());
  }
  std::vector<std::string> aggregate_names;
  for (size_t a = 0; a < plain.size(); ++a) {
    for (size_t i = 0; i < first.args.size(); ++i) {
      const Field& f = distinct->schema->field(num_groups + i);
      plain[a].args.push_back(
          expr::Column(static_cast<int>(num_groups + i), f.name(), f.type(), f.nullable()));
    }
    aggregate_names.push_back(node.schema->field(num_groups + a).name());
  }
  return MakeAggregate(std::move(distinct), std::move(groups), std::move(group_names),
                       std::move(plain), std::move(aggregate_names));
}

}  // namespace

Result<LogicalPlanPtr> SplitDistinctAggregates(const LogicalPlanPtr& plan) {
  return TransformUp(plan, SplitDistinct);
}

}  // namespace floe::plan::internal
