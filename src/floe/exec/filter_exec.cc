#include "floe/exec/filter_exec.h"

#include <utility>

#include "floe/batch/select.h"
#include "floe/codec/nodes.pb.h"
#include "floe/codec/plan_codec.h"
#include "floe/exec/plan_codec.h"

namespace floe::exec {

namespace {

class FilterStream final : public BatchStream {
 public:
  FilterStream(BatchStreamPtr input, std::shared_ptr<const expr::FilterPredicate> filter,
               MemoryPool* pool)
      : input_(std::move(input)), filter_(std::move(filter)) {
    eval_.pool = pool;
  }

  const SchemaPtr& schema() const override { return input_->schema(); }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
      if (!batch) return batch;
      if (batch->num_rows() == 0) continue;
      FLOE_ASSIGN_OR_RAISE(expr::FilterSelection selection, filter_->Select(*batch, eval_));
      if (selection.selected == batch->num_rows()) return batch;
      if (selection.selected == 0) continue;
      return FilterBatch(*batch, *selection.mask, eval_.pool);
    }
  }

 private:
  BatchStreamPtr input_;
  std::shared_ptr<const expr::FilterPredicate> filter_;
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
  FLOE_ASSIGN_OR_RAISE(expr::FilterPredicate filter, expr::FilterPredicate::Make(predicate));
  return PlanPtr(new FilterExec(std::move(predicate),
                                std::make_shared<const expr::FilterPredicate>(std::move(filter)),
                                std::move(input)));
}

Result<PlanPtr> FilterExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) {
    return Status::Internal("FilterExec takes one child, got {}", children.size());
  }
  return Make(predicate_, std::move(children[0]));
}

Result<BatchStreamPtr> FilterExec::Execute(int partition, const TaskContextPtr& ctx) const {
  FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(input_, partition, ctx));
  return BatchStreamPtr(std::make_unique<FilterStream>(std::move(input), filter_, ctx->pool()));
}

std::string FilterExec::ToString() const { return "FilterExec: " + predicate_->ToString(); }

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

Status FilterExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::FilterNode m;
  FLOE_RETURN_NOT_OK(codec::EncodePhysicalExpr(*predicate_, m.mutable_predicate()));
  return out.SetPayload(m);
}

Result<PlanPtr> FilterExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  codec::proto::FilterNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(auto predicate, in.Expr(m.predicate(), children[0]->schema()));
  return Make(std::move(predicate), std::move(children[0]));
}

}  // namespace floe::exec
