#include "floe/exec/union_exec.h"

#include <utility>

#include "floe/codec/plan.pb.h"
#include "floe/exec/plan_codec.h"

namespace floe::exec {

namespace {

// Re-labels each batch with the union's schema (names and nullability may differ).
class RelabelStream final : public BatchStream {
 public:
  RelabelStream(BatchStreamPtr input, SchemaPtr schema)
      : input_(std::move(input)), schema_(std::move(schema)) {}
  const SchemaPtr& schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (!batch || batch->schema().get() == schema_.get()) return batch;
    return RecordBatch::Make(schema_, batch->num_rows(), batch->columns());
  }

 private:
  BatchStreamPtr input_;
  SchemaPtr schema_;
};

}  // namespace

Result<PlanPtr> UnionExec::Make(std::vector<PlanPtr> children) {
  if (children.empty()) return Status::Internal("UnionExec: no children");
  const SchemaPtr& first = children[0]->schema();
  std::vector<Field> fields = first->fields();
  int partitions = 0;
  for (size_t c = 0; c < children.size(); ++c) {
    if (!children[c]) return Status::Internal("UnionExec: child {} is null", c);
    const SchemaPtr& schema = children[c]->schema();
    if (schema->num_fields() != first->num_fields()) {
      return Status::Internal("UnionExec: child {} has {} columns, child 0 has {}", c,
                              schema->num_fields(), first->num_fields());
    }
    for (int i = 0; i < schema->num_fields(); ++i) {
      const Field& field = schema->field(i);
      if (!field.type()->Equals(*first->field(i).type())) {
        return Status::Internal("UnionExec: column {} ({}) is {} in child {} but {} in child 0",
                                i + 1, first->field(i).name(), field.type()->ToString(), c,
                                first->field(i).type()->ToString());
      }
      if (field.nullable())
        fields[static_cast<size_t>(i)] = fields[static_cast<size_t>(i)].WithNullable(true);
    }
    partitions += children[c]->partition_count();
  }
  PlanProperties properties;
  properties.schema = std::make_shared<const Schema>(std::move(fields));
  properties.partitioning = Partitioning::Unknown(partitions);
  return PlanPtr(new UnionExec(std::move(children), std::move(properties)));
}

Result<PlanPtr> UnionExec::WithNewChildren(std::vector<PlanPtr> children) const {
  return Make(std::move(children));
}

Result<BatchStreamPtr> UnionExec::Execute(int partition, const TaskContextPtr& ctx) const {
  int p = partition;
  for (const PlanPtr& child : children_) {
    if (p < child->partition_count()) {
      FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(child, p, ctx));
      return BatchStreamPtr(std::make_unique<RelabelStream>(std::move(input), schema()));
    }
    p -= child->partition_count();
  }
  return Status::Internal("UnionExec: no partition {}", partition);
}

std::vector<bool> UnionExec::MaintainsInputOrder() const {
  return std::vector<bool>(children_.size(), true);
}

std::string UnionExec::ToString() const { return "UnionExec"; }

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h): nothing but its inputs.

Status UnionExec::Encode(codec::PlanEncoder& out) const {
  return out.SetPayload(codec::proto::PlanNode());
}

Result<PlanPtr> UnionExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  if (children.empty()) return in.Corrupt("no children");
  return Make(std::move(children));
}

}  // namespace floe::exec
