#include "floe/plan/optimizer.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "floe/plan/optimizer_internal.h"

namespace floe::plan {

namespace {

using RuleFunction = std::function<Result<LogicalPlanPtr>(const LogicalPlanPtr&)>;

class FunctionRule final : public OptimizerRule {
 public:
  FunctionRule(std::string name, RuleFunction fn) : name_(std::move(name)), fn_(std::move(fn)) {}
  std::string_view name() const override { return name_; }
  Result<LogicalPlanPtr> Rewrite(const LogicalPlanPtr& plan) const override { return fn_(plan); }

 private:
  std::string name_;
  RuleFunction fn_;
};

std::unique_ptr<OptimizerRule> Rule(std::string name, RuleFunction fn) {
  return std::make_unique<FunctionRule>(std::move(name), std::move(fn));
}

// Names and types of the output; nullability may only become stricter knowledge.
bool SameOutput(const Schema& a, const Schema& b) {
  if (a.num_fields() != b.num_fields()) return false;
  for (int i = 0; i < a.num_fields(); ++i) {
    const Field& x = a.field(i);
    const Field& y = b.field(i);
    if (x.name() != y.name()) return false;
    if (x.type() && y.type() && !x.type()->Equals(*y.type())) return false;
  }
  return true;
}

}  // namespace

namespace internal {

LogicalPlanPtr TransformUp(const LogicalPlanPtr& plan,
                           const std::function<LogicalPlanPtr(const LogicalPlanPtr&)>& fn) {
  std::vector<LogicalPlanPtr> children;
  bool changed = false;
  for (const LogicalPlanPtr& child : plan->children) {
    children.push_back(TransformUp(child, fn));
    changed |= children.back() != child;
  }
  return fn(changed ? WithNewChildren(*plan, std::move(children)) : plan);
}

}  // namespace internal

std::vector<std::unique_ptr<OptimizerRule>> DefaultRules() {
  std::vector<std::unique_ptr<OptimizerRule>> rules;
  rules.push_back(Rule("simplify_expressions", internal::SimplifyPlan));
  rules.push_back(Rule("derive_totals_from_groups", internal::DeriveTotalsFromGroups));
  rules.push_back(Rule("split_distinct_aggregates", internal::SplitDistinctAggregates));
  rules.push_back(Rule("push_down_predicates", internal::PushDownPredicates));
  rules.push_back(Rule("reorder_joins", internal::ReorderJoins));
  rules.push_back(Rule("reduce_aggregates_by_semi_join", internal::ReduceAggregatesBySemiJoin));
  rules.push_back(Rule("push_down_semi_joins", internal::PushDownSemiJoins));
  rules.push_back(Rule("push_down_predicates", internal::PushDownPredicates));
  rules.push_back(Rule("push_down_projections", internal::PushDownProjections));
  rules.push_back(Rule("push_down_limits", internal::PushDownLimits));
  rules.push_back(Rule("answer_from_statistics", internal::AnswerFromStatistics));
  rules.push_back(Rule("simplify_expressions", internal::SimplifyPlan));
  rules.push_back(Rule("hoist_common_subexpressions", internal::HoistCommonSubexpressions));
  return rules;
}

Result<LogicalPlanPtr> Optimize(const LogicalPlanPtr& plan) {
  FLOE_RETURN_NOT_OK(ValidatePlan(*plan));
  LogicalPlanPtr current = plan;
  for (const auto& rule : DefaultRules()) {
    FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr next, rule->Rewrite(current));
    Status valid = ValidatePlan(*next);
    if (!valid.ok()) return valid.WithPrefix(fmt::format("optimizer rule {}: ", rule->name()));
    if (!SameOutput(*current->schema, *next->schema)) {
      return Status::Internal("optimizer rule {} changed the output schema from {} to {}",
                              rule->name(), current->schema->ToString(), next->schema->ToString());
    }
    current = std::move(next);
  }
  return current;
}

}  // namespace floe::plan
