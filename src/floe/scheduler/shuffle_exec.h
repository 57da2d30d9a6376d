#pragma once

// The two ends of an exchange between stages (DESIGN.md section 3), one file each: the
// stage planner (stage_planner.h) roots every non-final stage at a ShuffleWriterExec
// (shuffle_writer_exec.h) and puts a ShuffleReaderExec (shuffle_reader_exec.h) where the
// consuming stage reads it.

#include "floe/scheduler/shuffle_reader_exec.h"
#include "floe/scheduler/shuffle_writer_exec.h"

namespace floe::exec {
class PlanCodecRegistry;
}  // namespace floe::exec

namespace floe::scheduler {

/// Registers the codecs of ShuffleWriterExec and ShuffleReaderExec.
void RegisterSchedulerPlanCodecs(exec::PlanCodecRegistry* registry);

}  // namespace floe::scheduler
