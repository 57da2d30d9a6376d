#include "floe/exec/empty_exec.h"

#include <memory>
#include <utility>

#include "floe/codec/nodes.pb.h"
#include "floe/codec/value_codec.h"
#include "floe/exec/plan_codec.h"

namespace floe::exec {

namespace {

class EmptyStream final : public BatchStream {
 public:
  explicit EmptyStream(SchemaPtr schema) : schema_(std::move(schema)) {}
  const SchemaPtr& schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override { return RecordBatchPtr(); }

 private:
  SchemaPtr schema_;
};

}  // namespace

Result<PlanPtr> EmptyExec::Make(SchemaPtr schema, int partitions) {
  if (!schema) return Status::Internal("EmptyExec: no schema");
  if (partitions < 1) return Status::Internal("EmptyExec: {} partitions", partitions);
  PlanProperties properties;
  properties.schema = std::move(schema);
  properties.partitioning =
      partitions == 1 ? Partitioning::Single() : Partitioning::Unknown(partitions);
  return PlanPtr(new EmptyExec(std::move(properties)));
}

Result<PlanPtr> EmptyExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (!children.empty()) return Status::Internal("EmptyExec takes no children");
  return Make(schema(), partition_count());
}

Result<BatchStreamPtr> EmptyExec::Execute(int partition, const TaskContextPtr&) const {
  if (partition < 0 || partition >= partition_count()) {
    return Status::Internal("EmptyExec: no partition {}", partition);
  }
  return BatchStreamPtr(std::make_unique<EmptyStream>(schema()));
}

std::string EmptyExec::ToString() const { return "EmptyExec"; }

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

Status EmptyExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::EmptyNode m;
  codec::EncodeSchema(*properties_.schema, m.mutable_schema());
  m.set_partitions(properties_.partitioning.partition_count());
  return out.SetPayload(m);
}

Result<PlanPtr> EmptyExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 0));
  codec::proto::EmptyNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(SchemaPtr schema, DecodeNodeSchema(in, m.schema()));
  return Make(std::move(schema), m.partitions());
}

}  // namespace floe::exec
