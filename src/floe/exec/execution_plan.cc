#include "floe/exec/execution_plan.h"

#include <chrono>
#include <functional>
#include <limits>
#include <string>
#include <utility>

#include "floe/exec/exchange_service.h"
#include "fmt/format.h"

namespace floe::exec {

Status ExecutionPlan::Encode(codec::PlanEncoder&) const {
  return Status::NotSupported("plan node {} has no codec", name());
}

Status ExecutionPlan::DeleteUncommitted(const TaskContextPtr&) const { return Status::OK(); }

Status DeleteUncommittedWrites(const PlanPtr& plan, const TaskContextPtr& ctx) {
  Status first = plan->DeleteUncommitted(ctx);
  for (const PlanPtr& child : plan->children()) {
    Status st = DeleteUncommittedWrites(child, ctx);
    if (first.ok() && !st.ok()) first = st;
  }
  return first;
}

namespace {

// Checks for cancellation between batches and, when `metrics` is set, counts what
// passes through.
class InstrumentedStream final : public BatchStream {
 public:
  InstrumentedStream(BatchStreamPtr input, TaskContextPtr ctx, OperatorMetrics* metrics)
      : input_(std::move(input)), ctx_(std::move(ctx)), metrics_(metrics) {}

  const SchemaPtr& schema() const override { return input_->schema(); }

  Result<RecordBatchPtr> Next() override {
    FLOE_RETURN_NOT_OK(ctx_->CheckCancelled());
    if (ExchangeService* exchange = ctx_->exchange().get()) exchange->Progress();
    if (metrics_ == nullptr) return input_->Next();
    auto start = std::chrono::steady_clock::now();
    Result<RecordBatchPtr> batch = input_->Next();
    metrics_->elapsed_nanos.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now() - start)
                                          .count(),
                                      std::memory_order_relaxed);
    if (batch.ok() && *batch) {
      metrics_->rows.fetch_add((*batch)->num_rows(), std::memory_order_relaxed);
      metrics_->batches.fetch_add(1, std::memory_order_relaxed);
      metrics_->bytes.fetch_add((*batch)->memory_size(), std::memory_order_relaxed);
    }
    return batch;
  }

 private:
  BatchStreamPtr input_;
  TaskContextPtr ctx_;
  OperatorMetrics* metrics_;
};

class VectorStream final : public BatchStream {
 public:
  VectorStream(SchemaPtr schema, std::vector<RecordBatchPtr> batches)
      : schema_(std::move(schema)), batches_(std::move(batches)) {}
  const SchemaPtr& schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    if (next_ >= batches_.size()) return RecordBatchPtr();
    return std::move(batches_[next_++]);
  }

 private:
  SchemaPtr schema_;
  std::vector<RecordBatchPtr> batches_;
  size_t next_ = 0;
};

}  // namespace

std::vector<Distribution> ExecutionPlan::RequiredInputDistribution() const {
  return std::vector<Distribution>(children().size(), Distribution::Unspecified());
}

std::vector<Ordering> ExecutionPlan::RequiredInputOrdering() const {
  return std::vector<Ordering>(children().size());
}

std::vector<bool> ExecutionPlan::MaintainsInputOrder() const {
  return std::vector<bool>(children().size(), false);
}

std::string PlanToString(const ExecutionPlan& plan) {
  std::string out;
  std::function<void(const ExecutionPlan&, int)> visit = [&](const ExecutionPlan& node, int depth) {
    out.append(static_cast<size_t>(depth) * 2, ' ');
    const Partitioning& partitioning = node.properties().partitioning;
    out += fmt::format("{}  [partitions={} {}]\n", node.ToString(), partitioning.partition_count(),
                       partitioning.ToString());
    for (const PlanPtr& child : node.children()) visit(*child, depth + 1);
  };
  visit(plan, 0);
  return out;
}

PlanPtr WithDynamicFilters(PlanPtr plan, const std::vector<DynamicFilterUse>& uses) {
  for (const DynamicFilterUse& use : uses) {
    if (plan == nullptr) return nullptr;
    plan = plan->WithDynamicFilter(use.id, use.column);
  }
  return plan;
}

Result<BatchStreamPtr> ExecutePlan(const PlanPtr& plan, int partition, const TaskContextPtr& ctx) {
  if (!plan) return Status::Internal("ExecutePlan: no plan");
  if (partition < 0 || partition >= plan->partition_count()) {
    return Status::Internal("{}: partition {} out of range (the node has {})", plan->name(),
                            partition, plan->partition_count());
  }
  FLOE_RETURN_NOT_OK(ctx->CheckCancelled());
  OperatorMetrics* metrics = nullptr;
  if (QueryMetrics* query_metrics = ctx->metrics()) {
    metrics = &query_metrics->For(plan.get(), partition);
  }
  auto start = std::chrono::steady_clock::now();
  FLOE_ASSIGN_OR_RAISE(BatchStreamPtr stream, plan->Execute(partition, ctx));
  if (metrics != nullptr) {
    metrics->elapsed_nanos.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         std::chrono::steady_clock::now() - start)
                                         .count(),
                                     std::memory_order_relaxed);
  }
  return BatchStreamPtr(std::make_unique<InstrumentedStream>(std::move(stream), ctx, metrics));
}

Result<std::vector<RecordBatchPtr>> CollectAll(const PlanPtr& plan, const TaskContextPtr& ctx) {
  std::vector<RecordBatchPtr> out;
  for (int p = 0; p < plan->partition_count(); ++p) {
    FLOE_ASSIGN_OR_RAISE(BatchStreamPtr stream, ExecutePlan(plan, p, ctx));
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
      if (!batch) break;
      out.push_back(std::move(batch));
    }
  }
  return out;
}

BatchStreamPtr MakeVectorStream(SchemaPtr schema, std::vector<RecordBatchPtr> batches) {
  return std::make_unique<VectorStream>(std::move(schema), std::move(batches));
}

}  // namespace floe::exec
