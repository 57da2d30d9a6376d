#include "floe/exec/coalesce_partitions_exec.h"

#include <utility>

#include "floe/codec/plan.pb.h"
#include "floe/exec/plan_codec.h"

namespace floe::exec {

namespace {

class CoalesceStream final : public BatchStream {
 public:
  CoalesceStream(PlanPtr input, TaskContextPtr ctx)
      : input_(std::move(input)), ctx_(std::move(ctx)) {}

  const SchemaPtr& schema() const override { return input_->schema(); }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (!current_) {
        if (next_partition_ >= input_->partition_count()) return RecordBatchPtr();
        FLOE_ASSIGN_OR_RAISE(current_, ExecutePlan(input_, next_partition_++, ctx_));
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, current_->Next());
      if (batch) return batch;
      current_.reset();
    }
  }

 private:
  PlanPtr input_;
  TaskContextPtr ctx_;
  int next_partition_ = 0;
  BatchStreamPtr current_;
};

}  // namespace

CoalescePartitionsExec::CoalescePartitionsExec(PlanPtr input) : input_(std::move(input)) {
  properties_.schema = input_->schema();
  properties_.partitioning = Partitioning::Single();
  if (input_->partition_count() == 1) properties_.ordering = input_->properties().ordering;
}

Result<PlanPtr> CoalescePartitionsExec::Make(PlanPtr input) {
  if (!input) return Status::Internal("CoalescePartitionsExec: no input");
  return PlanPtr(new CoalescePartitionsExec(std::move(input)));
}

Result<PlanPtr> CoalescePartitionsExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) {
    return Status::Internal("CoalescePartitionsExec takes one child, got {}", children.size());
  }
  return Make(std::move(children[0]));
}

Result<BatchStreamPtr> CoalescePartitionsExec::Execute(int partition,
                                                       const TaskContextPtr& ctx) const {
  if (partition != 0) return Status::Internal("CoalescePartitionsExec: no partition {}", partition);
  return BatchStreamPtr(std::make_unique<CoalesceStream>(input_, ctx));
}

std::vector<bool> CoalescePartitionsExec::MaintainsInputOrder() const {
  return {input_->partition_count() == 1};
}

std::string CoalescePartitionsExec::ToString() const { return "CoalescePartitionsExec"; }

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h): nothing but its input.

Status CoalescePartitionsExec::Encode(codec::PlanEncoder& out) const {
  return out.SetPayload(codec::proto::PlanNode());
}

Result<PlanPtr> CoalescePartitionsExec::Decode(codec::PlanDecoder& in,
                                               std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  return Make(std::move(children[0]));
}

}  // namespace floe::exec
