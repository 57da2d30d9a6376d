#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// Merges the input's partitions, each ordered by `keys`, into one ordered partition
/// (k-way merge). With `fetch`, stops after that many rows.
class SortPreservingMergeExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "SortPreservingMergeExec";
  static Result<PlanPtr> Make(Ordering keys, PlanPtr input, std::optional<int64_t> fetch);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<Ordering> RequiredInputOrdering() const override { return {keys_}; }
  std::vector<bool> MaintainsInputOrder() const override { return {true}; }
  /// "SortPreservingMergeExec: a, b DESC [fetch=10]"
  std::string ToString() const override;

  const Ordering& keys() const { return keys_; }
  const PlanPtr& input() const { return input_; }
  std::optional<int64_t> fetch() const { return fetch_; }

 private:
  SortPreservingMergeExec(Ordering keys, PlanPtr input, std::optional<int64_t> fetch,
                          PlanProperties properties)
      : keys_(std::move(keys)),
        input_(std::move(input)),
        fetch_(fetch),
        properties_(std::move(properties)) {}

  Ordering keys_;
  PlanPtr input_;
  std::optional<int64_t> fetch_;
  PlanProperties properties_;
};

}  // namespace floe::exec
