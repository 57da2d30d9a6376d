#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// Sorts its input by `keys`. With preserve_partitioning, each partition is sorted on its
/// own and the input's partitioning is kept; otherwise the input must be one partition.
/// With `fetch`, only the first `fetch` rows are kept (top-K with a bounded heap).
/// Without it, runs are sorted in memory within a MemoryReservation; past the budget,
/// sorted runs are spilled and merged k-way.
class SortExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "SortExec";
  static Result<PlanPtr> Make(Ordering keys, PlanPtr input, std::optional<int64_t> fetch,
                              bool preserve_partitioning);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<Distribution> RequiredInputDistribution() const override;
  /// "SortExec: a ASC NULLS LAST, b DESC [fetch=10] [preserve_partitioning]"
  std::string ToString() const override;

  const Ordering& keys() const { return keys_; }
  const PlanPtr& input() const { return input_; }
  std::optional<int64_t> fetch() const { return fetch_; }
  bool preserve_partitioning() const { return preserve_partitioning_; }

 private:
  SortExec(Ordering keys, PlanPtr input, std::optional<int64_t> fetch, bool preserve_partitioning,
           PlanProperties properties)
      : keys_(std::move(keys)),
        input_(std::move(input)),
        fetch_(fetch),
        preserve_partitioning_(preserve_partitioning),
        properties_(std::move(properties)) {}

  Ordering keys_;
  PlanPtr input_;
  std::optional<int64_t> fetch_;
  bool preserve_partitioning_;
  PlanProperties properties_;
};

}  // namespace floe::exec
