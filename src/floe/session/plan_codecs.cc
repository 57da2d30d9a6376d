#include "floe/session/plan_codecs.h"

#include "floe/connector/builtin/generate_series.h"
#include "floe/connector/iceberg/iceberg_plan_codec.h"
#include "floe/connector/parquet/parquet_scan_exec.h"
#include "floe/connector/text/text_scan_exec.h"
#include "floe/scheduler/shuffle_exec.h"

namespace floe::session {

const exec::PlanCodecRegistry& EnginePlanCodecs() {
  static const exec::PlanCodecRegistry* registry = [] {
    auto* r = new exec::PlanCodecRegistry();
    exec::RegisterExecPlanCodecs(r);
    scheduler::RegisterSchedulerPlanCodecs(r);
    connector::RegisterGenerateSeriesPlanCodecs(r);
    connector::RegisterParquetPlanCodecs(r);
    connector::RegisterTextPlanCodecs(r);
    connector::RegisterIcebergPlanCodecs(r);
    return r;
  }();
  return *registry;
}

}  // namespace floe::session
