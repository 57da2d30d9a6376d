#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// Redistributes rows into `partitioning` (Hash: row r goes to HashRows(exprs)[r] % n;
/// RoundRobin: whole batches in turn). An exchange: the stage planner replaces it by a
/// shuffle. Executed in process, the first Execute of any output partition runs every
/// input partition once (on ctx->threads() when there is a pool) and routes rows into
/// per-output buffers, which spill to ctx->spill_directory() past the memory budget.
class RepartitionExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "RepartitionExec";
  /// kInternal for a partitioning other than Hash or RoundRobin, or fewer than 1 partition.
  static Result<PlanPtr> Make(PlanPtr input, Partitioning partitioning);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  /// "RepartitionExec: Hash([a], 4)" (with the input's partition count).
  std::string ToString() const override;

  const PlanPtr& input() const { return input_; }
  const Partitioning& partitioning() const { return properties_.partitioning; }

 private:
  RepartitionExec(PlanPtr input, PlanProperties properties)
      : input_(std::move(input)), properties_(std::move(properties)) {}

  PlanPtr input_;
  PlanProperties properties_;
};

}  // namespace floe::exec
