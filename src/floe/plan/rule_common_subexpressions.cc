// Common sub-expressions of an aggregation's inputs are computed once. A call or cast that
// occurs more than once among the group keys and the aggregate arguments (TPC-H Q1 sums
// both l_extendedprice * (1 - l_discount) and that times (1 + l_tax)) becomes a column of a
// Projection placed below the Aggregate, which passes every input column through; the
// keys and arguments then read that column.
//
// Only occurrences that are evaluated for every row count: the aggregate evaluates its
// keys and arguments over whole batches, but a CASE evaluates a THEN or ELSE value only
// where it is chosen, and COALESCE an argument after the first only where the earlier ones
// are NULL, so hoisting one of those could raise an error (1 / 0) the query never meets.
// Volatile expressions (random()) are left alone: two calls are two values.

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

namespace {

struct ExprHash {
  size_t operator()(const expr::ExprPtr& e) const { return e->Hash(); }
};
struct ExprEqual {
  bool operator()(const expr::ExprPtr& a, const expr::ExprPtr& b) const { return a->Equals(*b); }
};
template <typename V>
using ExprMap = std::unordered_map<expr::ExprPtr, V, ExprHash, ExprEqual>;

// The arguments of `e` that are evaluated for every row `e` is evaluated for.
size_t EagerArgs(const expr::Expr& e) {
  if (e.kind == expr::ExprKind::kCase) return e.args.empty() ? 0 : 1;  // the first WHEN
  if (e.kind == expr::ExprKind::kCall && e.name == "coalesce") return e.args.empty() ? 0 : 1;
  return e.args.size();
}

bool Candidate(const expr::Expr& e) {
  return (e.kind == expr::ExprKind::kCall || e.kind == expr::ExprKind::kCast) &&
         !expr::IsVolatile(e);
}

// Counts the eagerly evaluated calls and casts of `e` (each node of the tree once).
void Count(const expr::ExprPtr& e, ExprMap<int>* counts) {
  if (Candidate(*e)) ++(*counts)[e];
  const size_t eager = EagerArgs(*e);
  for (size_t i = 0; i < eager; ++i) Count(e->args[i], counts);
}

class Hoister {
 public:
  Hoister(const Schema& input, ExprMap<int> counts) : input_(input), counts_(std::move(counts)) {}

  // `e` with each outermost repeated sub-expression replaced by a column of the
  // projection (eager positions only).
  expr::ExprPtr Rewrite(const expr::ExprPtr& e) {
    if (Candidate(*e)) {
      auto it = counts_.find(e);
      if (it != counts_.end() && it->second > 1) return ColumnFor(e);
    }
    const size_t eager = EagerArgs(*e);
    std::vector<expr::ExprPtr> args = e->args;
    bool changed = false;
    for (size_t i = 0; i < eager; ++i) {
      expr::ExprPtr a = Rewrite(e->args[i]);
      changed |= a != e->args[i];
      args[i] = std::move(a);
    }
    if (!changed) return e;
    auto copy = std::make_shared<expr::Expr>(*e);
    copy->args = std::move(args);
    return copy;
  }

  const std::vector<expr::ExprPtr>& hoisted() const { return hoisted_; }

 private:
  expr::ExprPtr ColumnFor(const expr::ExprPtr& e) {
    auto it = columns_.find(e);
    if (it == columns_.end()) {
      const int index = input_.num_fields() + static_cast<int>(hoisted_.size());
      expr::ExprPtr column = expr::Column(index, "__common_expr_" + std::to_string(hoisted_.size()),
                                          e->type, e->nullable);
      hoisted_.push_back(e);
      it = columns_.emplace(e, std::move(column)).first;
    }
    return it->second;
  }

  const Schema& input_;
  ExprMap<int> counts_;
  ExprMap<expr::ExprPtr> columns_;
  std::vector<expr::ExprPtr> hoisted_;
};

LogicalPlanPtr Hoist(const LogicalPlanPtr& node) {
  if (node->kind != LogicalKind::kAggregate || node->children.size() != 1) return node;
  ExprMap<int> counts;
  for (const expr::ExprPtr& g : node->group_exprs) Count(g, &counts);
  for (const AggregateCall& call : node->aggregates) {
    for (const expr::ExprPtr& a : call.args) Count(a, &counts);
  }
  bool repeated = false;
  for (const auto& [e, n] : counts) repeated |= n > 1;
  if (!repeated) return node;

  const LogicalPlanPtr& input = node->children[0];
  const Schema& in = *input->schema;
  Hoister hoister(in, std::move(counts));
  std::vector<expr::ExprPtr> groups;
  for (const expr::ExprPtr& g : node->group_exprs) groups.push_back(hoister.Rewrite(g));
  std::vector<AggregateCall> aggregates = node->aggregates;
  for (AggregateCall& call : aggregates) {
    for (expr::ExprPtr& a : call.args) a = hoister.Rewrite(a);
  }

  std::vector<expr::ExprPtr> exprs;
  std::vector<std::string> names;
  for (int i = 0; i < in.num_fields(); ++i) {
    const Field& f = in.field(i);
    exprs.push_back(expr::Column(i, f.name(), f.type(), f.nullable()));
    names.push_back(f.name());
  }
  for (size_t k = 0; k < hoister.hoisted().size(); ++k) {
    exprs.push_back(hoister.hoisted()[k]);
    names.push_back("__common_expr_" + std::to_string(k));
  }
  LogicalPlanPtr projection = MakeProjection(input, std::move(exprs), std::move(names));

  const Schema& out = *node->schema;
  std::vector<std::string> group_names;
  std::vector<std::string> aggregate_names;
  for (int i = 0; i < out.num_fields(); ++i) {
    (static_cast<size_t>(i) < groups.size() ? group_names : aggregate_names)
        .push_back(out.field(i).name());
  }
  return MakeAggregate(std::move(projection), std::move(groups), std::move(group_names),
                       std::move(aggregates), std::move(aggregate_names));
}

}  // namespace

Result<LogicalPlanPtr> HoistCommonSubexpressions(const LogicalPlanPtr& plan) {
  return TransformUp(plan, Hoist);
}

}  // namespace floe::plan::internal
