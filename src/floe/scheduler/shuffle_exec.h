#pragma once

// The two ends of an exchange between stages (DESIGN.md section 3). The stage planner
// (stage_planner.h) roots every non-final stage at a ShuffleWriterExec and puts a
// ShuffleReaderExec where the consuming stage reads it.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::exec {
class PlanCodecRegistry;
}  // namespace floe::exec

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

/// Streams output partition p of stage `stage_id` from the exchange. `partitioning` is
/// that of the stage's output (its partition count is this node's); `ordering` holds
/// within each partition when the writer kept its input's partitions.
class ShuffleReaderExec final : public exec::ExecutionPlan {
 public:
  static constexpr std::string_view kName = "ShuffleReaderExec";
  static Result<exec::PlanPtr> Make(int stage_id, SchemaPtr schema, exec::Partitioning partitioning,
                                    exec::Ordering ordering = {});

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<exec::PlanPtr> Decode(codec::PlanDecoder& in, std::vector<exec::PlanPtr> children);
  const exec::PlanProperties& properties() const override { return properties_; }
  std::vector<exec::PlanPtr> children() const override { return {}; }
  Result<exec::PlanPtr> WithNewChildren(std::vector<exec::PlanPtr> children) const override;
  Result<exec::BatchStreamPtr> Execute(int partition,
                                       const exec::TaskContextPtr& ctx) const override;
  std::string ToString() const override;

  int stage_id() const { return stage_id_; }

 private:
  ShuffleReaderExec(int stage_id, exec::PlanProperties properties)
      : stage_id_(stage_id), properties_(std::move(properties)) {}
  int stage_id_;
  exec::PlanProperties properties_;
};

/// Registers the codecs of ShuffleWriterExec and ShuffleReaderExec.
void RegisterSchedulerPlanCodecs(exec::PlanCodecRegistry* registry);

}  // namespace floe::scheduler
