#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"
#include "floe/plan/logical_plan.h"

namespace floe::exec {

/// A join without equi keys: every left row against every right row, keeping the pairs
/// where `filter` (over left ++ right; null = cross join) is true. The right child is
/// collected once (Broadcast) and shared; inner/left/semi/anti/mark stream the left side
/// per partition; right and full require Single on both sides. Output columns as
/// HashJoinExec.
class NestedLoopJoinExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "NestedLoopJoinExec";
  static Result<PlanPtr> Make(PlanPtr left, PlanPtr right, plan::JoinType type,
                              expr::PhysicalExprPtr filter);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {left_, right_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<Distribution> RequiredInputDistribution() const override;
  /// "NestedLoopJoinExec: type=Inner, filter=a < b"
  std::string ToString() const override;

  const PlanPtr& left() const { return left_; }
  const PlanPtr& right() const { return right_; }
  plan::JoinType join_type() const { return type_; }
  const expr::PhysicalExprPtr& filter() const { return filter_; }

 private:
  NestedLoopJoinExec(PlanPtr left, PlanPtr right, plan::JoinType type, expr::PhysicalExprPtr filter,
                     PlanProperties properties)
      : left_(std::move(left)),
        right_(std::move(right)),
        type_(type),
        filter_(std::move(filter)),
        properties_(std::move(properties)) {}

  PlanPtr left_, right_;
  plan::JoinType type_;
  expr::PhysicalExprPtr filter_;
  PlanProperties properties_;
};

/// The output schema of a join of these input schemas (shared with HashJoinExec): left ++
/// right columns, the side that may go unmatched made nullable; semi/anti: left; mark:
/// left ++ "mark" boolean.
SchemaPtr JoinOutputSchema(const Schema& left, const Schema& right, plan::JoinType type);

}  // namespace floe::exec
