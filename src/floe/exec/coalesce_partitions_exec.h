#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// One output partition reading every input partition in turn (an exchange: the stage
/// planner cuts the plan here). Keeps the ordering only when the input has one
/// partition.
class CoalescePartitionsExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "CoalescePartitionsExec";
  static Result<PlanPtr> Make(PlanPtr input);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<bool> MaintainsInputOrder() const override;
  std::string ToString() const override;

  const PlanPtr& input() const { return input_; }

 private:
  explicit CoalescePartitionsExec(PlanPtr input);

  PlanPtr input_;
  PlanProperties properties_;
};

}  // namespace floe::exec
