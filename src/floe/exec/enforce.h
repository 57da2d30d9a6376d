#pragma once

// Enforcement of the distributions and orderings nodes require of their inputs
// (DESIGN.md section 3): exchanges and sorts are inserted wherever a requirement is not
// met, so no operator receives input it was not built for.

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"
#include "floe/exec/session_config.h"

namespace floe::exec {

/// Meets every RequiredInputDistribution, bottom up:
///   Single    -> CoalescePartitionsExec, or, when the parent also requires an ordering
///                of that input, SortExec (per partition, if needed) + SortPreservingMergeExec;
///   Hash(e)   -> RepartitionExec(Hash(e, target_partitions)) (CoalescePartitionsExec when
///                target_partitions is 1); children of one node that require Hash end
///                up with equal partition counts;
///   Broadcast -> CoalescePartitionsExec (one partition every consumer partition reads).
Result<PlanPtr> EnforceDistribution(PlanPtr plan, const SessionConfig& config);

/// Meets every RequiredInputOrdering with SortExec(preserve_partitioning = true) where
/// the input's ordering does not already start with the required one.
Result<PlanPtr> EnforceSorting(PlanPtr plan, const SessionConfig& config);

/// EnforceDistribution, then EnforceSorting, then removes redundant nodes: a
/// RepartitionExec whose input already has its partitioning, a SortExec (without fetch)
/// whose input already has its ordering, a CoalescePartitionsExec over one partition, a
/// SortPreservingMergeExec (without fetch) over one partition that is already ordered.
Result<PlanPtr> EnforceRequirements(PlanPtr plan, const SessionConfig& config);

}  // namespace floe::exec
