#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// UNION ALL: output partitions are the children's partitions concatenated (child 0's
/// first). The schema has the first child's names; a column is nullable when it is in
/// any child.
class UnionExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "UnionExec";
  /// kInternal for no children, or children whose column counts or types differ.
  static Result<PlanPtr> Make(std::vector<PlanPtr> children);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return children_; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<bool> MaintainsInputOrder() const override;
  std::string ToString() const override;

 private:
  UnionExec(std::vector<PlanPtr> children, PlanProperties properties)
      : children_(std::move(children)), properties_(std::move(properties)) {}

  std::vector<PlanPtr> children_;
  PlanProperties properties_;
};

}  // namespace floe::exec
