#pragma once

// The codecs of the Iceberg scan, write and commit nodes and of the Iceberg transform
// expression (iceberg_plan_codec.cc; messages in codec/iceberg.proto).

#include "floe/exec/plan_codec.h"

namespace floe::connector {

/// Registers IcebergScanExec, IcebergWriteExec, IcebergCommitExec and IcebergTransformExpr.
void RegisterIcebergPlanCodecs(exec::PlanCodecRegistry* registry);

}  // namespace floe::connector
