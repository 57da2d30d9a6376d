// Codecs of the Parquet and Iceberg scan and write nodes and of the Iceberg transform
// expression (plan_codec.h). Not written yet: these nodes cannot leave their process.

#include "floe/exec/iceberg_table.h"
#include "floe/exec/iceberg_write.h"
#include "floe/exec/parquet_scan_exec.h"
#include "floe/exec/plan_codec.h"

namespace floe::exec {

void RegisterIcebergPlanCodecs(PlanCodecRegistry* registry) { (void)registry; }

Status ParquetScanExec::Encode(codec::PlanEncoder&) const {
  return Status::NotSupported("plan node {} has no codec yet", kName);
}
Result<PlanPtr> ParquetScanExec::Decode(codec::PlanDecoder&, std::vector<PlanPtr>) {
  return Status::NotSupported("plan node {} has no codec yet", kName);
}
Status IcebergScanExec::Encode(codec::PlanEncoder&) const {
  return Status::NotSupported("plan node {} has no codec yet", kName);
}
Result<PlanPtr> IcebergScanExec::Decode(codec::PlanDecoder&, std::vector<PlanPtr>) {
  return Status::NotSupported("plan node {} has no codec yet", kName);
}
Status IcebergWriteExec::Encode(codec::PlanEncoder&) const {
  return Status::NotSupported("plan node {} has no codec yet", kName);
}
Result<PlanPtr> IcebergWriteExec::Decode(codec::PlanDecoder&, std::vector<PlanPtr>) {
  return Status::NotSupported("plan node {} has no codec yet", kName);
}
Status IcebergCommitExec::Encode(codec::PlanEncoder&) const {
  return Status::NotSupported("plan node {} has no codec yet", kName);
}
Result<PlanPtr> IcebergCommitExec::Decode(codec::PlanDecoder&, std::vector<PlanPtr>) {
  return Status::NotSupported("plan node {} has no codec yet", kName);
}

}  // namespace floe::exec
