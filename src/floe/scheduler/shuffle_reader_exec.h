#pragma once

// The reading end of an exchange between stages (shuffle_exec.h).

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::scheduler {

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
  std::optional<int64_t> KnownRows(int partition, const exec::TaskContextPtr& ctx) const override;
  std::string ToString() const override;

  int stage_id() const { return stage_id_; }

 private:
  ShuffleReaderExec(int stage_id, exec::PlanProperties properties)
      : stage_id_(stage_id), properties_(std::move(properties)) {}
  int stage_id_;
  exec::PlanProperties properties_;
};

}  // namespace floe::scheduler
