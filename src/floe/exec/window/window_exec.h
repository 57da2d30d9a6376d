#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"
#include "floe/plan/logical_plan.h"

namespace floe::exec {

/// One window function call of a WindowExec.
struct WindowExprSpec {
  plan::WindowCall call;  // function, frame, result type (its exprs are not used)
  std::vector<expr::PhysicalExprPtr> args, partition_by;
  Ordering order_by;
  std::string name;
};

/// Window functions. All windows share one partition_by and order_by; the input arrives
/// hash-distributed by partition_by (Single when empty) and ordered by partition_by (ASC)
/// ++ order_by. Output: the input columns, then one column per window, in input order.
class WindowExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "WindowExec";
  static Result<PlanPtr> Make(std::vector<WindowExprSpec> windows, PlanPtr input);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<Distribution> RequiredInputDistribution() const override;
  std::vector<Ordering> RequiredInputOrdering() const override;
  std::vector<bool> MaintainsInputOrder() const override { return {true}; }
  /// "WindowExec: wdw=[row_number() OVER (PARTITION BY a ORDER BY b)]"
  std::string ToString() const override;

  const std::vector<WindowExprSpec>& windows() const { return windows_; }
  const PlanPtr& input() const { return input_; }

 private:
  WindowExec(std::vector<WindowExprSpec> windows, PlanPtr input, PlanProperties properties)
      : windows_(std::move(windows)),
        input_(std::move(input)),
        properties_(std::move(properties)) {}

  std::vector<WindowExprSpec> windows_;
  PlanPtr input_;
  PlanProperties properties_;
};

}  // namespace floe::exec
