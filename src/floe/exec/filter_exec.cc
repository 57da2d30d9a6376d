#include "floe/exec/filter_exec.h"

#include <utility>

#include "floe/batch/select.h"

namespace floe::exec {

namespace {

class FilterStream final : public BatchStream {
 public:
  FilterStream(BatchStreamPtr input, expr::PhysicalExprPtr predicate, MemoryPool* pool)
      : input_(std::move(input)), predicate_(std::move(predicate)) {
    eval_.pool = pool;
  }

  const SchemaPtr& schema() const override { return input_->schema(); }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
      if (!batch) return batch;
      if (batch->num_rows() == 0) continue;
      FLOE_ASSIGN_OR_RAISE(expr::ColumnarValue mask, predicate_->Evaluate(*batch, eval_));
      if (mask.is_scalar()) {
        const Scalar& value = mask.scalar();
        if (!value.is_null() && value.get<bool>()) return batch;
        continue;
      }
      const Array& array = *mask.array();
      if (array.null_count() == 0 && bit_util::CountSetBits(array.buffer(1)->data(), array.offset(),
                                                            array.length()) == array.length()) {
        return batch;
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out, FilterBatch(*batch, array, eval_.pool));
      if (out->num_rows() > 0) return out;
    }
  }

 private:
  BatchStreamPtr input_;
  expr::PhysicalExprPtr predicate_;
  expr::EvalContext eval_;
};

}  // namespace

Result<PlanPtr> FilterExec::Make(expr::PhysicalExprPtr predicate, PlanPtr input) {
  if (!input) return Status::Internal("FilterExec: no input");
  if (!predicate) return Status::Internal("FilterExec: no predicate");
  if (predicate->type()->id() != TypeId::kBoolean) {
    return Status::Internal("FilterExec: predicate {} is of type {}, not boolean",
                            predicate->ToString(), predicate->type()->ToString());
  }
  return PlanPtr(new FilterExec(std::move(predicate), std::move(input)));
}

Result<PlanPtr> FilterExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) {
    return Status::Internal("FilterExec takes one child, got {}", children.size());
  }
  return Make(predicate_, std::move(children[0]));
}

Result<BatchStreamPtr> FilterExec::Execute(int partition, const TaskContextPtr& ctx) const {
  FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(input_, partition, ctx));
  return BatchStreamPtr(std::make_unique<FilterStream>(std::move(input), predicate_, ctx->pool()));
}

std::string FilterExec::ToString() const { return "FilterExec: " + predicate_->ToString(); }

}  // namespace floe::exec
