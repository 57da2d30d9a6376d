#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"
#include "floe/expr/aggregate.h"
#include "floe/expr/function_registry.h"

namespace floe::exec {

enum class AggregateMode { kPartial, kFinal, kSingle };
std::string_view AggregateModeName(AggregateMode mode);

/// One aggregate of a HashAggregateExec.
struct AggregateExprSpec {
  expr::ResolvedAggregate function;
  std::vector<expr::PhysicalExprPtr> args;  // over the input (ignored by kFinal)
  expr::PhysicalExprPtr filter;             // FILTER (WHERE ...) or null
  std::string name;
};

/// Hash aggregation.
///   kPartial: output = group columns, then each aggregate's state_fields (named
///     "<name>[<state field name>]"); keeps the input's partitioning. May emit a group
///     more than once (it flushes its table when it grows past its memory budget).
///   kFinal: the input is a kPartial's output: group_exprs are its columns 0..g-1 and the
///     aggregates read their state columns in order; output = groups, then final values.
///   kSingle: aggregates over the raw input; output as kFinal.
/// kFinal and kSingle require Hash(group columns), or Single without groups. Without
/// GROUP BY and without input rows they emit one row (count 0, others NULL). Past the
/// memory budget they spill their state sorted by group key and merge the runs at the
/// end.
class HashAggregateExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "HashAggregateExec";
  static Result<PlanPtr> Make(AggregateMode mode, std::vector<expr::PhysicalExprPtr> group_exprs,
                              std::vector<std::string> group_names,
                              std::vector<AggregateExprSpec> aggregates, PlanPtr input);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<Distribution> RequiredInputDistribution() const override;
  /// "HashAggregateExec: mode=Final, gby=[a, b], aggr=[sum(x), count(*)]"
  std::string ToString() const override;

  AggregateMode mode() const { return mode_; }
  const std::vector<expr::PhysicalExprPtr>& group_exprs() const { return group_exprs_; }
  const std::vector<std::string>& group_names() const { return group_names_; }
  const std::vector<AggregateExprSpec>& aggregates() const { return aggregates_; }
  const PlanPtr& input() const { return input_; }

 private:
  HashAggregateExec(AggregateMode mode, std::vector<expr::PhysicalExprPtr> group_exprs,
                    std::vector<std::string> group_names, std::vector<AggregateExprSpec> aggregates,
                    PlanPtr input, PlanProperties properties)
      : mode_(mode),
        group_exprs_(std::move(group_exprs)),
        group_names_(std::move(group_names)),
        aggregates_(std::move(aggregates)),
        input_(std::move(input)),
        properties_(std::move(properties)) {}

  AggregateMode mode_;
  std::vector<expr::PhysicalExprPtr> group_exprs_;
  std::vector<std::string> group_names_;
  std::vector<AggregateExprSpec> aggregates_;
  PlanPtr input_;
  PlanProperties properties_;
};

}  // namespace floe::exec
