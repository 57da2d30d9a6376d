// Registration of the Iceberg connector's codecs. Each node's codec is in its own file, beside
// its Make: IcebergScanExec's in iceberg_table.cc, IcebergWriteExec's, IcebergCommitExec's and
// IcebergTransformExpr's in iceberg_write.cc, and the pinned table they share in
// iceberg_codec_internal.h.

#include "floe/connector/iceberg/iceberg_plan_codec.h"

#include <string>

#include "floe/common/logging.h"
#include "floe/connector/iceberg/iceberg_delta_write_exec.h"
#include "floe/connector/iceberg/iceberg_table.h"
#include "floe/connector/iceberg/iceberg_write.h"

namespace floe::connector {

void RegisterIcebergPlanCodecs(exec::PlanCodecRegistry* registry) {
  exec::RegisterPlanCodec<IcebergScanExec>(registry);
  exec::RegisterPlanCodec<IcebergWriteExec>(registry);
  exec::RegisterPlanCodec<IcebergCommitExec>(registry);
  exec::RegisterPlanCodec<IcebergDeltaWriteExec>(registry);
  Status s = registry->exprs().Register(std::string(IcebergTransformExpr::kName),
                                        &IcebergTransformExpr::Decode);
  FLOE_CHECK(s.ok(), s.ToString());
}

}  // namespace floe::connector
