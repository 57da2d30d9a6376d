#pragma once

// The registration of the codecs of the Iceberg scan, write and commit nodes and of the
// Iceberg transform expression (each defined beside its Make; messages in codec/iceberg.proto).

#include "floe/exec/plan_codec.h"

namespace floe::connector {

/// Registers IcebergScanExec, IcebergWriteExec, IcebergCommitExec and IcebergTransformExpr.
void RegisterIcebergPlanCodecs(exec::PlanCodecRegistry* registry);

}  // namespace floe::connector
