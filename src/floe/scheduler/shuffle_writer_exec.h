#pragma once

// The writing end of an exchange between stages (shuffle_exec.h).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::scheduler {

/// Runs input partition p of its input and routes the rows into the query's exchange
/// (TaskContext::exchange()) as output partitions of stage `stage_id`:
///   Hash(exprs, n): row r goes to HashRows(exprs)[r] % n (expr/hash.h);
///   RoundRobin(n): whole batches in turn, starting at p % n;
///   Single: everything to partition 0;
///   Unknown(m) with m = the input's partition count: input partition p to output
///   partition p (keeps each partition's order, for a SortPreservingMergeExec above).
/// Rows bound for one output partition are gathered into batches of up to batch_size
/// rows. Execute(p) does all of that and then returns an empty stream; the stage is
/// complete when every partition has run (the scheduler registers the stage with the
/// exchange before).
class ShuffleWriterExec final : public exec::ExecutionPlan {
 public:
  static constexpr std::string_view kName = "ShuffleWriterExec";
  /// kInvalidArgument for a partitioning it cannot produce.
  static Result<exec::PlanPtr> Make(exec::PlanPtr input, int stage_id, exec::Partitioning output);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<exec::PlanPtr> Decode(codec::PlanDecoder& in, std::vector<exec::PlanPtr> children);
  const exec::PlanProperties& properties() const override { return properties_; }
  std::vector<exec::PlanPtr> children() const override { return {input_}; }
  Result<exec::PlanPtr> WithNewChildren(std::vector<exec::PlanPtr> children) const override;
  Result<exec::BatchStreamPtr> Execute(int partition,
                                       const exec::TaskContextPtr& ctx) const override;
  std::vector<bool> MaintainsInputOrder() const override { return {true}; }
  std::string ToString() const override;

  int stage_id() const { return stage_id_; }
  const exec::Partitioning& output_partitioning() const { return output_; }
  const exec::PlanPtr& input() const { return input_; }

 private:
  ShuffleWriterExec(exec::PlanPtr input, int stage_id, exec::Partitioning output);
  exec::PlanPtr input_;
  int stage_id_;
  exec::Partitioning output_;
  exec::PlanProperties properties_;
};

}  // namespace floe::scheduler
