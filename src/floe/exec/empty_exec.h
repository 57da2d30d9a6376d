#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// No rows, in `partitions` partitions (a relation proven empty, WHERE false).
class EmptyExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "EmptyExec";
  /// kInternal when partitions < 1.
  static Result<PlanPtr> Make(SchemaPtr schema, int partitions);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::string ToString() const override;

 private:
  explicit EmptyExec(PlanProperties properties) : properties_(std::move(properties)) {}

  PlanProperties properties_;
};

}  // namespace floe::exec
