#pragma once

// Cuts an enforced physical plan into a DAG of stages at its exchanges (Ballista's
// model, DESIGN.md section 3). Every RepartitionExec and CoalescePartitionsExec (which
// also feeds a broadcast join's build side) becomes a stage boundary: its input becomes
// a stage rooted at a ShuffleWriterExec that routes rows to the exchange's output
// partitions, and a ShuffleReaderExec takes its place in the consuming stage. A
// SortPreservingMergeExec stays in the consuming stage over a ShuffleReaderExec whose
// partitions are its input's, each in order (over an input of one partition it needs no
// exchange and stays in its input's stage). A RecursiveQueryExec's subtree is never cut: the
// recursion runs in one task. The final stage's root is the plan's root.

#include <functional>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::scheduler {

struct Stage {
  /// 1, 2, ... in the order the stages complete in a sequential run (inputs first); the
  /// final stage has the highest id.
  int id = 0;
  /// A ShuffleWriterExec over the stage's fragment, or the plan's root for the final stage.
  exec::PlanPtr plan;
  /// The stages whose output this one reads, ascending.
  std::vector<int> inputs;
  /// Tasks: one per partition of `plan`.
  int partition_count() const { return plan->partition_count(); }
};

class StagePlan {
 public:
  /// Stages ordered by id; the last one is the final stage.
  const std::vector<Stage>& stages() const { return stages_; }
  const Stage& final_stage() const { return stages_.back(); }
  const Stage& stage(int id) const { return stages_[static_cast<size_t>(id - 1)]; }

  /// One block per stage, inputs first:
  ///   Stage 1 (4 tasks) <- inputs: none
  ///     ShuffleWriterExec: stage=1, output=Hash([a], 4)  [partitions=4 ...]
  ///       ...
  std::string ToString() const;

  /// The same stages with each stage's plan replaced by `rewrite(plan)` (the first error
  /// is returned). The rewrite must keep the plan's shape: its schema and partitions.
  Result<StagePlan> Rewrite(
      const std::function<Result<exec::PlanPtr>(const exec::PlanPtr&)>& rewrite) const;

 private:
  friend Result<StagePlan> PlanStages(const exec::PlanPtr& plan);
  std::vector<Stage> stages_;
};

/// Cuts `plan` (already passed through EnforceRequirements) into stages.
Result<StagePlan> PlanStages(const exec::PlanPtr& plan);

}  // namespace floe::scheduler
