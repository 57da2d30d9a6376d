#include "floe/scheduler/shuffle_reader_exec.h"

#include <utility>

#include "floe/codec/nodes.pb.h"
#include "floe/codec/value_codec.h"
#include "floe/exec/exchange_service.h"
#include "floe/exec/plan_codec.h"

namespace floe::scheduler {

Result<exec::PlanPtr> ShuffleReaderExec::Make(int stage_id, SchemaPtr schema,
                                              exec::Partitioning partitioning,
                                              exec::Ordering ordering) {
  if (!schema) return Status::Invalid("ShuffleReaderExec needs a schema");
  if (partitioning.partition_count() < 1) {
    return Status::Invalid("ShuffleReaderExec of stage {}: {} partitions", stage_id,
                           partitioning.partition_count());
  }
  exec::PlanProperties properties;
  properties.schema = std::move(schema);
  properties.partitioning = std::move(partitioning);
  properties.ordering = std::move(ordering);
  return exec::PlanPtr(new ShuffleReaderExec(stage_id, std::move(properties)));
}

Result<exec::PlanPtr> ShuffleReaderExec::WithNewChildren(
    std::vector<exec::PlanPtr> children) const {
  if (!children.empty()) return Status::Internal("ShuffleReaderExec takes no children");
  return Make(stage_id_, properties_.schema, properties_.partitioning, properties_.ordering);
}

std::string ShuffleReaderExec::ToString() const {
  std::string out = "ShuffleReaderExec: stage=" + std::to_string(stage_id_);
  if (!properties_.ordering.empty()) {
    out += ", ordering=[" + exec::OrderingToString(properties_.ordering) + "]";
  }
  return out;
}

Result<exec::BatchStreamPtr> ShuffleReaderExec::Execute(int partition,
                                                        const exec::TaskContextPtr& ctx) const {
  if (!ctx->exchange()) {
    return Status::Internal("ShuffleReaderExec of stage {} runs without an exchange", stage_id_);
  }
  return ctx->exchange()->Open(stage_id_, partition);
}

std::optional<int64_t> ShuffleReaderExec::KnownRows(int partition,
                                                    const exec::TaskContextPtr& ctx) const {
  if (!ctx->exchange()) return std::nullopt;
  return ctx->exchange()->RowCount(stage_id_, partition);
}

// ---------------------------------------------------------------------------------------
// Codec (exec/plan_codec.h)

namespace pb = codec::proto;

Status ShuffleReaderExec::Encode(codec::PlanEncoder& out) const {
  pb::ShuffleReaderNode m;
  m.set_stage_id(stage_id_);
  codec::EncodeSchema(*properties_.schema, m.mutable_schema());
  FLOE_RETURN_NOT_OK(exec::EncodePartitioning(properties_.partitioning, m.mutable_partitioning()));
  FLOE_RETURN_NOT_OK(exec::EncodeOrdering(properties_.ordering, m.mutable_ordering()));
  return out.SetPayload(m);
}

Result<exec::PlanPtr> ShuffleReaderExec::Decode(codec::PlanDecoder& in,
                                                std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 0));
  pb::ShuffleReaderNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(SchemaPtr schema, exec::DecodeNodeSchema(in, m.schema()));
  FLOE_ASSIGN_OR_RAISE(exec::Partitioning partitioning,
                       exec::DecodePartitioning(m.partitioning(), schema, in));
  FLOE_ASSIGN_OR_RAISE(exec::Ordering ordering, exec::DecodeOrdering(m.ordering(), schema, in));
  return Make(m.stage_id(), std::move(schema), std::move(partitioning), std::move(ordering));
}

}  // namespace floe::scheduler
