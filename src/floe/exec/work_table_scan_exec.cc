#include "floe/exec/work_table_scan_exec.h"

#include <utility>

#include "floe/codec/nodes.pb.h"
#include "floe/codec/value_codec.h"
#include "floe/exec/plan_codec.h"
#include "fmt/format.h"

namespace floe::exec {

Result<PlanPtr> WorkTableScanExec::Make(std::string name, int work_table_id, SchemaPtr schema) {
  if (!schema) return Status::Internal("WorkTableScanExec of \"{}\" needs a schema", name);
  PlanProperties properties;
  properties.schema = std::move(schema);
  properties.partitioning = Partitioning::Single();
  return PlanPtr(new WorkTableScanExec(std::move(name), work_table_id, std::move(properties)));
}

Result<PlanPtr> WorkTableScanExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (!children.empty()) return Status::Internal("WorkTableScanExec takes no children");
  return Make(name_, work_table_id_, properties_.schema);
}

Result<BatchStreamPtr> WorkTableScanExec::Execute(int partition, const TaskContextPtr& ctx) const {
  if (partition != 0) return Status::Internal("WorkTableScanExec: no partition {}", partition);
  std::shared_ptr<const WorkTable> table = ctx->FindWorkTable(work_table_id_);
  if (!table) {
    return Status::Internal(
        "WorkTableScanExec: the work table {} of recursive query \"{}\" is not set (it is read "
        "only under its RecursiveQueryExec)",
        work_table_id_, name_);
  }
  // The batches carry the recursive query's schema, which has this node's types; they are
  // labelled with this node's own.
  std::vector<RecordBatchPtr> batches;
  batches.reserve(table->batches.size());
  for (const RecordBatchPtr& batch : table->batches) {
    if (batch->schema().get() == properties_.schema.get()) {
      batches.push_back(batch);
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(
        RecordBatchPtr relabelled,
        RecordBatch::Make(properties_.schema, batch->num_rows(), batch->columns()));
    batches.push_back(std::move(relabelled));
  }
  return MakeVectorStream(properties_.schema, std::move(batches));
}

std::string WorkTableScanExec::ToString() const {
  return fmt::format("WorkTableScanExec: {} (work table {})", name_, work_table_id_);
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

Status WorkTableScanExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::WorkTableScanNode m;
  m.set_name(name_);
  m.set_work_table_id(work_table_id_);
  codec::EncodeSchema(*properties_.schema, m.mutable_schema());
  return out.SetPayload(m);
}

Result<PlanPtr> WorkTableScanExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 0));
  codec::proto::WorkTableScanNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(SchemaPtr schema, DecodeNodeSchema(in, m.schema()));
  return Make(m.name(), m.work_table_id(), std::move(schema));
}

}  // namespace floe::exec
