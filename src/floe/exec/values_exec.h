#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// Batches held in the plan, in one partition (VALUES, constant relations, tests).
class ValuesExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "ValuesExec";
  /// kInternal when a batch's column types differ from `schema`.
  static Result<PlanPtr> Make(SchemaPtr schema, std::vector<RecordBatchPtr> batches);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  /// The rows of its batches.
  std::optional<int64_t> KnownRows(int partition, const TaskContextPtr& ctx) const override;
  std::string ToString() const override;

  const std::vector<RecordBatchPtr>& batches() const { return batches_; }

 private:
  ValuesExec(PlanProperties properties, std::vector<RecordBatchPtr> batches)
      : properties_(std::move(properties)), batches_(std::move(batches)) {}

  PlanProperties properties_;
  std::vector<RecordBatchPtr> batches_;
};

}  // namespace floe::exec
