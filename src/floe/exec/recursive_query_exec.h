#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// A recursive query (WITH RECURSIVE t AS (static UNION [ALL] recursive)), with PostgreSQL's
/// iteration: the static term's rows are output and become the work table; then, as long as
/// the last iteration produced rows, the recursive term runs over them (its
/// WorkTableScanExecs of `work_table_id` read them) and its rows are output and become the
/// next work table. With `distinct` (UNION) a row equal to one output before is dropped,
/// in the static term's rows too; equality is GROUP BY's (NULLs equal).
///
/// One output partition, and both inputs in one partition: the whole recursion runs in the
/// one task that executes this node (the stage planner cuts no stage inside it). Each run of
/// an input has a child TaskContext of its own (TaskContext::MakeChild), so that state the
/// subtree shares by node (a broadcast join's table, a repartition's buffers) is made anew
/// for each iteration. Rows stream out as they are made, so a LIMIT above stops the
/// recursion once it has its rows.
///
/// The work table, the rows of the iteration under way and (for UNION) the keys of every
/// row output are held in a memory reservation: past the memory_limit the query fails with
/// kOutOfMemory naming the recursive query (nothing spills). More iterations than the
/// max_recursive_iterations setting (0: no limit) fail with kInvalidArgument; the recursion
/// stops between batches when the query is cancelled.
class RecursiveQueryExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "RecursiveQueryExec";
  /// kInternal when the inputs' column counts or types differ. The output has the static
  /// term's names and types, every column nullable.
  static Result<PlanPtr> Make(std::string name, int work_table_id, bool distinct,
                              PlanPtr static_term, PlanPtr recursive_term);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {static_term_, recursive_term_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  /// Single for both inputs.
  std::vector<Distribution> RequiredInputDistribution() const override;
  /// "RecursiveQueryExec: t (work table 1), UNION ALL".
  std::string ToString() const override;

  const std::string& query_name() const { return name_; }
  int work_table_id() const { return work_table_id_; }
  bool distinct() const { return distinct_; }
  const PlanPtr& static_term() const { return static_term_; }
  const PlanPtr& recursive_term() const { return recursive_term_; }

 private:
  RecursiveQueryExec(std::string name, int work_table_id, bool distinct, PlanPtr static_term,
                     PlanPtr recursive_term, PlanProperties properties)
      : name_(std::move(name)),
        work_table_id_(work_table_id),
        distinct_(distinct),
        static_term_(std::move(static_term)),
        recursive_term_(std::move(recursive_term)),
        properties_(std::move(properties)) {}

  std::string name_;
  int work_table_id_;
  bool distinct_;
  PlanPtr static_term_;
  PlanPtr recursive_term_;
  PlanProperties properties_;
};

}  // namespace floe::exec
