#pragma once

// The physical planner: turns an optimized logical plan (plan/logical_plan.h) into
// ExecutionPlan nodes, following the planner conventions the binder, the optimizer and
// this planner share:
//   - joins: an inner join builds on its smaller estimated side (the right child; a
//     projection restores the column order); a build side estimated below
//     broadcast_join_threshold bytes, or at most the probe side's bytes divided by
//     target_partitions (its copies move no more than repartitioning the probe would), is
//     broadcast, otherwise both sides are hash-partitioned; RIGHT joins become LEFT joins with the
//     inputs swapped; FULL joins are partitioned; mark joins are broadcast; joins without equi keys
//     are nested loops;
//   - aggregates: kPartial below the exchange and kFinal above (kSingle when the input
//     has one partition, or for DISTINCT and ordered aggregates);
//   - ORDER BY: a SortExec per partition and a SortPreservingMergeExec, both with the
//     LIMIT's rows as fetch when a LIMIT sits above;
//   - LIMIT: a local LimitExec per partition below the merge and a global one above.
// The result has no exchanges yet: EnforceRequirements (enforce.h) inserts them.

#include <string_view>

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"
#include "floe/exec/session_config.h"
#include "floe/plan/logical_plan.h"

namespace floe::exec {

/// Maps every node of `plan`. kNotSupported naming what has no physical form (a scan of
/// a source that is no TableProvider); errors of node construction pass through.
Result<PlanPtr> CreatePhysicalPlan(const plan::LogicalPlanPtr& plan, const SessionConfig& config);

}  // namespace floe::exec
