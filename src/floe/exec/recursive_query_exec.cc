#include "floe/exec/recursive_query_exec.h"

#include <memory>
#include <utility>

#include "floe/batch/select.h"
#include "floe/codec/nodes.pb.h"
#include "floe/exec/key_table.h"
#include "floe/exec/memory_manager.h"
#include "floe/exec/plan_codec.h"
#include "fmt/format.h"

namespace floe::exec {

namespace {

class RecursiveQueryStream final : public BatchStream {
 public:
  RecursiveQueryStream(const RecursiveQueryExec* node, TaskContextPtr ctx)
      : node_(node),
        ctx_(std::move(ctx)),
        reservation_(ctx_->memory(), fmt::format("recursive query \"{}\"", node->query_name())),
        max_iterations_(ctx_->config().max_recursive_iterations()) {
    if (node_->distinct()) {
      std::vector<TypePtr> types;
      for (const Field& field : node_->schema()->fields()) types.push_back(field.type());
      seen_ = std::make_unique<KeyTable>(types);
    }
  }

  const SchemaPtr& schema() const override { return node_->schema(); }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (!input_) {
        FLOE_RETURN_NOT_OK(StartRun());
        if (!input_) return RecordBatchPtr();
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
      if (!batch) {
        input_.reset();
        run_ctx_.reset();
        continue;
      }
      if (batch->num_rows() == 0) continue;
      FLOE_ASSIGN_OR_RAISE(batch, NewRows(std::move(batch)));
      if (!batch) continue;
      produced_bytes_ += batch->memory_size();
      produced_.push_back(batch);
      FLOE_RETURN_NOT_OK(Account());
      return batch;
    }
  }

 private:
  // Opens the static term the first time; then the recursive term over the rows the last
  // run produced, or nothing when it produced none (the end).
  Status StartRun() {
    if (!started_) {
      started_ = true;
      run_ctx_ = TaskContext::MakeChild(ctx_);
      FLOE_ASSIGN_OR_RAISE(input_, ExecutePlan(node_->static_term(), 0, run_ctx_));
      return Status::OK();
    }
    work_.reset();
    work_bytes_ = 0;
    if (produced_.empty()) return Account();
    if (max_iterations_ > 0 && iterations_ >= max_iterations_) {
      return Status::Invalid(
          "recursive query \"{}\" did not end after {} iterations (max_recursive_iterations; "
          "0 for no limit)",
          node_->query_name(), iterations_);
    }
    FLOE_RETURN_NOT_OK(ctx_->CheckCancelled());
    ++iterations_;
    auto table = std::make_shared<WorkTable>();
    table->batches = std::move(produced_);
    produced_.clear();
    work_ = std::move(table);
    work_bytes_ = produced_bytes_;
    produced_bytes_ = 0;
    run_ctx_ = TaskContext::MakeChild(ctx_);
    run_ctx_->SetWorkTable(node_->work_table_id(), work_);
    FLOE_ASSIGN_OR_RAISE(input_, ExecutePlan(node_->recursive_term(), 0, run_ctx_));
    return Status::OK();
  }

  // The rows of `batch` not output before (all of them for UNION ALL), labelled with the
  // node's schema; null when none is new.
  Result<RecordBatchPtr> NewRows(RecordBatchPtr batch) {
    if (seen_) {
      const int64_t n = batch->num_rows();
      ids_.resize(static_cast<size_t>(n));
      new_rows_.clear();
      FLOE_RETURN_NOT_OK(seen_->Insert(batch->columns(), ids_.data(), &new_rows_));
      if (new_rows_.empty()) return RecordBatchPtr();
      if (static_cast<int64_t>(new_rows_.size()) < n) {
        FLOE_ASSIGN_OR_RAISE(
            batch, TakeBatch(*batch, new_rows_.data(), static_cast<int64_t>(new_rows_.size())));
      }
    }
    if (batch->schema().get() == node_->schema().get()) return batch;
    return RecordBatch::Make(node_->schema(), batch->num_rows(), batch->columns());
  }

  Status Account() {
    const int64_t bytes = work_bytes_ + produced_bytes_ + (seen_ ? seen_->memory_size() : 0);
    return reservation_.Resize(bytes);
  }

  const RecursiveQueryExec* node_;
  TaskContextPtr ctx_;
  MemoryReservation reservation_;
  const int64_t max_iterations_;
  bool started_ = false;
  int64_t iterations_ = 0;
  TaskContextPtr run_ctx_;  // the context the open input runs in
  BatchStreamPtr input_;
  std::shared_ptr<const WorkTable> work_;  // what the running iteration reads
  int64_t work_bytes_ = 0;
  std::vector<RecordBatchPtr> produced_;  // the rows the open input produced so far
  int64_t produced_bytes_ = 0;
  std::unique_ptr<KeyTable> seen_;  // UNION: every row output so far
  std::vector<uint32_t> ids_;
  std::vector<int64_t> new_rows_;
};

}  // namespace

Result<PlanPtr> RecursiveQueryExec::Make(std::string name, int work_table_id, bool distinct,
                                         PlanPtr static_term, PlanPtr recursive_term) {
  if (!static_term || !recursive_term) {
    return Status::Internal("RecursiveQueryExec of \"{}\" needs two inputs", name);
  }
  const Schema& first = *static_term->schema();
  const Schema& second = *recursive_term->schema();
  if (first.num_fields() != second.num_fields()) {
    return Status::Internal(
        "RecursiveQueryExec of \"{}\": the static term has {} columns, the recursive term {}", name,
        first.num_fields(), second.num_fields());
  }
  std::vector<Field> fields;
  for (int i = 0; i < first.num_fields(); ++i) {
    if (!first.field(i).type()->Equals(*second.field(i).type())) {
      return Status::Internal(
          "RecursiveQueryExec of \"{}\": column {} is {} in the static term but {} in the "
          "recursive term",
          name, i + 1, first.field(i).type()->ToString(), second.field(i).type()->ToString());
    }
    fields.push_back(first.field(i).WithNullable(true));
  }
  PlanProperties properties;
  properties.schema = std::make_shared<const Schema>(std::move(fields));
  properties.partitioning = Partitioning::Single();
  return PlanPtr(new RecursiveQueryExec(std::move(name), work_table_id, distinct,
                                        std::move(static_term), std::move(recursive_term),
                                        std::move(properties)));
}

Result<PlanPtr> RecursiveQueryExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 2) {
    return Status::Internal("RecursiveQueryExec takes two children, got {}", children.size());
  }
  return Make(name_, work_table_id_, distinct_, std::move(children[0]), std::move(children[1]));
}

std::vector<Distribution> RecursiveQueryExec::RequiredInputDistribution() const {
  return {Distribution::Single(), Distribution::Single()};
}

Result<BatchStreamPtr> RecursiveQueryExec::Execute(int partition, const TaskContextPtr& ctx) const {
  if (partition != 0) return Status::Internal("RecursiveQueryExec: no partition {}", partition);
  if (static_term_->partition_count() != 1 || recursive_term_->partition_count() != 1) {
    return Status::Internal("RecursiveQueryExec of \"{}\" over inputs of {} and {} partitions",
                            name_, static_term_->partition_count(),
                            recursive_term_->partition_count());
  }
  return BatchStreamPtr(std::make_unique<RecursiveQueryStream>(this, ctx));
}

std::string RecursiveQueryExec::ToString() const {
  return fmt::format("RecursiveQueryExec: {} (work table {}), {}", name_, work_table_id_,
                     distinct_ ? "UNION" : "UNION ALL");
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

Status RecursiveQueryExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::RecursiveQueryNode m;
  m.set_name(name_);
  m.set_work_table_id(work_table_id_);
  m.set_distinct(distinct_);
  return out.SetPayload(m);
}

Result<PlanPtr> RecursiveQueryExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 2));
  codec::proto::RecursiveQueryNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  return Make(m.name(), m.work_table_id(), m.distinct(), std::move(children[0]),
              std::move(children[1]));
}

}  // namespace floe::exec
