#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// OFFSET / LIMIT. Global: requires Distribution::Single(), skips `offset` rows, then
/// emits up to `fetch` rows (all when absent). Local: applies `fetch` to each partition
/// separately (offset must be 0). Stops pulling its input as soon as it has enough.
class LimitExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "LimitExec";
  /// kInternal for a negative offset or fetch, or a local limit with an offset.
  static Result<PlanPtr> Make(PlanPtr input, int64_t offset, std::optional<int64_t> fetch,
                              bool global);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<Distribution> RequiredInputDistribution() const override;
  std::vector<bool> MaintainsInputOrder() const override { return {true}; }
  std::string ToString() const override;

  const PlanPtr& input() const { return input_; }
  int64_t offset() const { return offset_; }
  const std::optional<int64_t>& fetch() const { return fetch_; }
  bool global() const { return global_; }

 private:
  LimitExec(PlanPtr input, int64_t offset, std::optional<int64_t> fetch, bool global);

  PlanPtr input_;
  int64_t offset_;
  std::optional<int64_t> fetch_;
  bool global_;
  PlanProperties properties_;
};

}  // namespace floe::exec
