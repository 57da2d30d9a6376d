#include "floe/exec/values_exec.h"

#include <utility>

#include "floe/codec/nodes.pb.h"
#include "floe/codec/value_codec.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/spill.h"
#include "fmt/format.h"

namespace floe::exec {

Result<PlanPtr> ValuesExec::Make(SchemaPtr schema, std::vector<RecordBatchPtr> batches) {
  if (!schema) return Status::Internal("ValuesExec: no schema");
  std::vector<RecordBatchPtr> out;
  out.reserve(batches.size());
  for (size_t b = 0; b < batches.size(); ++b) {
    const RecordBatchPtr& batch = batches[b];
    if (batch->num_columns() != schema->num_fields()) {
      return Status::Internal("ValuesExec: batch {} has {} columns, the schema {}", b,
                              batch->num_columns(), schema->num_fields());
    }
    for (int i = 0; i < schema->num_fields(); ++i) {
      if (!batch->column(i)->type()->Equals(*schema->field(i).type())) {
        return Status::Internal("ValuesExec: column {} of batch {} is {}, the schema says {}",
                                schema->field(i).name(), b, batch->column(i)->type()->ToString(),
                                schema->field(i).type()->ToString());
      }
    }
    if (batch->num_rows() == 0) continue;
    if (batch->schema().get() == schema.get()) {
      out.push_back(batch);
    } else {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr rebased,
                           RecordBatch::Make(schema, batch->num_rows(), batch->columns()));
      out.push_back(std::move(rebased));
    }
  }
  PlanProperties properties;
  properties.schema = std::move(schema);
  properties.partitioning = Partitioning::Single();
  return PlanPtr(new ValuesExec(std::move(properties), std::move(out)));
}

Result<PlanPtr> ValuesExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (!children.empty()) return Status::Internal("ValuesExec takes no children");
  return Make(schema(), batches_);
}

Result<BatchStreamPtr> ValuesExec::Execute(int partition, const TaskContextPtr&) const {
  if (partition != 0) return Status::Internal("ValuesExec: no partition {}", partition);
  return MakeVectorStream(schema(), batches_);
}

std::optional<int64_t> ValuesExec::KnownRows(int partition, const TaskContextPtr&) const {
  if (partition != 0) return std::nullopt;
  int64_t rows = 0;
  for (const RecordBatchPtr& batch : batches_) rows += batch->num_rows();
  return rows;
}

std::string ValuesExec::ToString() const {
  int64_t rows = 0;
  for (const RecordBatchPtr& batch : batches_) rows += batch->num_rows();
  return fmt::format("ValuesExec: rows={}", rows);
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h): the rows travel in the exchange's batch encoding.

Status ValuesExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::ValuesNode m;
  codec::EncodeSchema(*properties_.schema, m.mutable_schema());
  for (const RecordBatchPtr& batch : batches_) {
    FLOE_RETURN_NOT_OK(AppendEncodedBatch(*batch, m.add_batches()));
  }
  return out.SetPayload(m);
}

Result<PlanPtr> ValuesExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 0));
  codec::proto::ValuesNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(SchemaPtr schema, DecodeNodeSchema(in, m.schema()));
  std::vector<RecordBatchPtr> batches;
  for (int i = 0; i < m.batches_size(); ++i) {
    FLOE_ASSIGN_OR_RAISE(
        RecordBatchPtr batch,
        DecodeBatch(m.batches(i), schema, fmt::format("plan node ValuesExec: batch {}", i)));
    batches.push_back(std::move(batch));
  }
  return Make(std::move(schema), std::move(batches));
}

}  // namespace floe::exec
