#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// Evaluates one expression per output column over each input batch. The output keeps the
/// input's partitioning and ordering as far as their expressions survive the projection
/// (re-expressed over the output columns); otherwise Unknown(n) and the surviving prefix
/// of the ordering.
class ProjectionExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "ProjectionExec";
  /// kInternal when `exprs` and `names` differ in length.
  static Result<PlanPtr> Make(std::vector<expr::PhysicalExprPtr> exprs,
                              std::vector<std::string> names, PlanPtr input);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<bool> MaintainsInputOrder() const override { return {true}; }
  std::string ToString() const override;

  const std::vector<expr::PhysicalExprPtr>& exprs() const { return exprs_; }
  const std::vector<std::string>& names() const { return names_; }
  const PlanPtr& input() const { return input_; }

 private:
  ProjectionExec(std::vector<expr::PhysicalExprPtr> exprs, std::vector<std::string> names,
                 PlanPtr input, PlanProperties properties)
      : exprs_(std::move(exprs)),
        names_(std::move(names)),
        input_(std::move(input)),
        properties_(std::move(properties)) {}

  std::vector<expr::PhysicalExprPtr> exprs_;
  std::vector<std::string> names_;
  PlanPtr input_;
  PlanProperties properties_;
};

}  // namespace floe::exec
