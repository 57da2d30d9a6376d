#pragma once

// The physical planner: turns an optimized logical plan (plan/logical_plan.h) into
// ExecutionPlan nodes, following the planner conventions the binder, the optimizer and
// this planner share:
//   - joins: an inner join builds on its smaller estimated side (the right child; a
//     projection restores the column order); a build side estimated below
//     broadcast_join_threshold bytes, or at most the probe side's bytes divided by
//     target_partitions (its copies move no more than repartitioning the probe would), is
//     broadcast, otherwise both sides are hash-partitioned; RIGHT joins become LEFT joins with the inputs swapped; FULL joins
//     are partitioned; mark joins are broadcast; joins without equi keys are nested loops;
//   - aggregates: kPartial below the exchange and kFinal above (kSingle when the input
//     has one partition, or for DISTINCT and ordered aggregates);
//   - ORDER BY: a SortExec per partition and a SortPreservingMergeExec, both with the
//     LIMIT's rows as fetch when a LIMIT sits above;
//   - LIMIT: a local LimitExec per partition below the merge and a global one above.
// The result has no exchanges yet: EnforceRequirements (enforce.h) inserts them.

#include <string_view>

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"
#include "floe/exec/session_config.h"
#include "floe/plan/logical_plan.h"

namespace floe::exec {

/// Maps every node of `plan`. kNotSupported naming what has no physical form (a scan of
/// a source that is no TableProvider); errors of node construction pass through.
Result<PlanPtr> CreatePhysicalPlan(const plan::LogicalPlanPtr& plan, const SessionConfig& config);

/// Passes its single-partition input through and fails with kInvalidArgument "more than
/// one row returned by a subquery used as an expression" when it holds two rows or more
/// (a scalar subquery's guard, logical kMaxOneRow).
class MaxOneRowExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "MaxOneRowExec";
  static Result<PlanPtr> Make(PlanPtr input);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;  // plan_codec_nodes.cc
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
