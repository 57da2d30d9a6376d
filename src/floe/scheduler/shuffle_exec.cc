#include "floe/scheduler/shuffle_exec.h"

#include "floe/exec/plan_codec.h"

namespace floe::scheduler {

void RegisterSchedulerPlanCodecs(exec::PlanCodecRegistry* registry) {
  exec::RegisterPlanCodec<ShuffleWriterExec>(registry);
  exec::RegisterPlanCodec<ShuffleReaderExec>(registry);
}

}  // namespace floe::scheduler
