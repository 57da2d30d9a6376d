#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// Set-returning functions (PostgreSQL's ProjectSet, and FROM unnest(...)): evaluates
/// list-typed expressions over each input row and emits the row once per element of its
/// longest list, with the lists' elements side by side and NULL past a shorter list's end;
/// a row whose lists are all NULL or empty yields no row. Output: the input columns, then
/// per list its element (or, when `expand` says so, the fields of its struct element),
/// then, with `ordinality`, the element's position (bigint, from 1). A row's elements may
/// span several output batches, so one long list never makes one huge batch.
class UnnestExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "UnnestExec";
  /// kInternal unless every expression is list-typed and `names` has one name per output
  /// column after the input's.
  static Result<PlanPtr> Make(std::vector<expr::PhysicalExprPtr> lists, std::vector<bool> expand,
                              bool ordinality, std::vector<std::string> names, PlanPtr input);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<bool> MaintainsInputOrder() const override { return {true}; }
  std::string ToString() const override;

  const std::vector<expr::PhysicalExprPtr>& lists() const { return lists_; }
  const std::vector<bool>& expand() const { return expand_; }
  bool ordinality() const { return ordinality_; }

 private:
  UnnestExec(std::vector<expr::PhysicalExprPtr> lists, std::vector<bool> expand, bool ordinality,
             std::vector<std::string> names, PlanPtr input, PlanProperties properties)
      : lists_(std::move(lists)),
        expand_(std::move(expand)),
        ordinality_(ordinality),
        names_(std::move(names)),
        input_(std::move(input)),
        properties_(std::move(properties)) {}

  std::vector<expr::PhysicalExprPtr> lists_;
  std::vector<bool> expand_;
  bool ordinality_;
  std::vector<std::string> names_;
  PlanPtr input_;
  PlanProperties properties_;
};

}  // namespace floe::exec
