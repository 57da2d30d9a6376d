#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// Passes its single-partition input through and fails with kInvalidArgument "more than
/// one row returned by a subquery used as an expression" when it holds two rows or more
/// (a scalar subquery's guard, logical kMaxOneRow).
class MaxOneRowExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "MaxOneRowExec";
  static Result<PlanPtr> Make(PlanPtr input);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<Distribution> RequiredInputDistribution() const override {
    return {Distribution::Single()};
  }
  std::vector<bool> MaintainsInputOrder() const override { return {true}; }
  std::string ToString() const override { return "MaxOneRowExec"; }

 private:
  explicit MaxOneRowExec(PlanPtr input);
  PlanPtr input_;
  PlanProperties properties_;
};

}  // namespace floe::exec
