#pragma once

// Text forms for EXPLAIN and EXPLAIN ANALYZE.

#include <string>

#include "floe/exec/execution_plan.h"
#include "floe/scheduler/stage_planner.h"

namespace floe::session {

/// The stages of an executed query, each operator annotated with what it did: one line
/// per operator, "<ToString()>  [partitions=N]  rows=R batches=B bytes=Y time=T" summed
/// over partitions, then one indented line per partition that ran:
/// "    partition 0: rows=R batches=B bytes=Y time=T" (times in ms with 3 decimals).
/// Operators that never ran show "not executed". Under MPI (metrics.ranks() > 1) every
/// partition line names its rank ("partition 0 on rank 1: ..."; a partition that more
/// than one rank ran, such as a broadcast build side, has a line per rank), and a last
/// section has one line per rank: "rank R: tasks=T rows=N time=Xms exchange sent=S
/// received=F" (rows its tasks produced, bytes sent to and received from other ranks).
std::string ExplainAnalyzeStages(const scheduler::StagePlan& stages,
                                 const exec::QueryMetrics& metrics);

/// The same annotation for one plan tree, each line prefixed by `indent` spaces.
std::string AnnotatedPlanToString(const exec::ExecutionPlan& plan,
                                  const exec::QueryMetrics& metrics, int indent = 0);

}  // namespace floe::session
