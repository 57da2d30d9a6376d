#include "floe/exec/max_one_row_exec.h"

#include <memory>
#include <utility>

#include "floe/codec/plan.pb.h"
#include "floe/exec/plan_codec.h"

namespace floe::exec {

namespace {

class MaxOneRowStream final : public BatchStream {
 public:
  explicit MaxOneRowStream(BatchStreamPtr input) : input_(std::move(input)) {}
  const SchemaPtr& schema() const override { return input_->schema(); }
  Result<RecordBatchPtr> Next() override {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (!batch) return batch;
    rows_ += batch->num_rows();
    if (rows_ > 1) {
      return Status::Invalid("more than one row returned by a subquery used as an expression");
    }
    return batch;
  }

 private:
  BatchStreamPtr input_;
  int64_t rows_ = 0;
};

}  // namespace

MaxOneRowExec::MaxOneRowExec(PlanPtr input) : input_(std::move(input)) {
  properties_.schema = input_->schema();
  properties_.partitioning = Partitioning::Single();
  properties_.ordering = input_->properties().ordering;
}

Result<PlanPtr> MaxOneRowExec::Make(PlanPtr input) {
  if (!input) return Status::Internal("MaxOneRowExec needs an input");
  return PlanPtr(new MaxOneRowExec(std::move(input)));
}

Result<PlanPtr> MaxOneRowExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) return Status::Internal("MaxOneRowExec takes one child");
  return Make(std::move(children[0]));
}

Result<BatchStreamPtr> MaxOneRowExec::Execute(int partition, const TaskContextPtr& ctx) const {
  if (input_->partition_count() != 1) {
    return Status::Internal("MaxOneRowExec over {} partitions", input_->partition_count());
  }
  FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(input_, partition, ctx));
  return BatchStreamPtr(std::make_unique<MaxOneRowStream>(std::move(input)));
}

// Codec (plan_codec.h): no parts but the input.

Status MaxOneRowExec::Encode(codec::PlanEncoder& out) const {
  return out.SetPayload(codec::proto::PlanNode());
}

Result<PlanPtr> MaxOneRowExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  return Make(std::move(children[0]));
}

}  // namespace floe::exec
