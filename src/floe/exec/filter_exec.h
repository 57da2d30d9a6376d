#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"
#include "floe/expr/filter_predicate.h"

namespace floe::exec {

/// Keeps the rows for which `predicate` is true (NULL counts as false). Preserves
/// partitioning and order; batches that end up empty are dropped.
class FilterExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "FilterExec";
  /// kInternal when the predicate is not boolean.
  static Result<PlanPtr> Make(expr::PhysicalExprPtr predicate, PlanPtr input);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<bool> MaintainsInputOrder() const override { return {true}; }
  std::string ToString() const override;

  const expr::PhysicalExprPtr& predicate() const { return predicate_; }
  const PlanPtr& input() const { return input_; }

 private:
  FilterExec(expr::PhysicalExprPtr predicate, std::shared_ptr<const expr::FilterPredicate> filter,
             PlanPtr input)
      : predicate_(std::move(predicate)), filter_(std::move(filter)), input_(std::move(input)) {
    properties_ = input_->properties();
  }

  expr::PhysicalExprPtr predicate_;
  std::shared_ptr<const expr::FilterPredicate> filter_;  // predicate_ prepared for filtering
  PlanPtr input_;
  PlanProperties properties_;
};

}  // namespace floe::exec
