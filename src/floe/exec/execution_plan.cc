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

bool SameSource(const expr::PhysicalExprPtr& a, const expr::PhysicalExprPtr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  const expr::ExprPtr& sa = a->source();
  const expr::ExprPtr& sb = b->source();
  if (sa && sb) return sa->Equals(*sb);
  return a->ToString() == b->ToString();
}

bool SameExprs(const std::vector<expr::PhysicalExprPtr>& a,
               const std::vector<expr::PhysicalExprPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameSource(a[i], b[i])) return false;
  }
  return true;
}

std::string ExprsToString(const std::vector<expr::PhysicalExprPtr>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i > 0) out += ", ";
    out += exprs[i]->ToString();
  }
  return out;
}

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

std::string PhysicalSortExpr::ToString() const {
  std::string out = expr->ToString();
  if (descending) out += " DESC";
  // PostgreSQL's defaults are NULLS LAST for ASC and NULLS FIRST for DESC; only the
  // other choice is spelled out.
  if (nulls_first != descending) out += nulls_first ? " NULLS FIRST" : " NULLS LAST";
  return out;
}

bool PhysicalSortExpr::Equals(const PhysicalSortExpr& other) const {
  return descending == other.descending && nulls_first == other.nulls_first &&
         SameSource(expr, other.expr);
}

std::string OrderingToString(const Ordering& ordering) {
  std::string out;
  for (size_t i = 0; i < ordering.size(); ++i) {
    if (i > 0) out += ", ";
    out += ordering[i].ToString();
  }
  return out;
}

bool OrderingSatisfies(const Ordering& provided, const Ordering& required) {
  if (required.size() > provided.size()) return false;
  for (size_t i = 0; i < required.size(); ++i) {
    if (!provided[i].Equals(required[i])) return false;
  }
  return true;
}

std::string Partitioning::ToString() const {
  switch (kind_) {
    case Kind::kSingle:
      return "Single";
    case Kind::kHash:
      return fmt::format("Hash([{}], {})", ExprsToString(exprs_), n_);
    case Kind::kRoundRobin:
      return fmt::format("RoundRobin({})", n_);
    case Kind::kUnknown:
      return fmt::format("Unknown({})", n_);
  }
  return "?";
}

std::string Distribution::ToString() const {
  switch (kind_) {
    case Kind::kUnspecified:
      return "Unspecified";
    case Kind::kSingle:
      return "Single";
    case Kind::kHash:
      return fmt::format("Hash([{}])", ExprsToString(exprs_));
    case Kind::kBroadcast:
      return "Broadcast";
  }
  return "?";
}

bool PartitioningSatisfies(const Partitioning& partitioning, const Distribution& required) {
  switch (required.kind()) {
    case Distribution::Kind::kUnspecified:
      return true;
    case Distribution::Kind::kSingle:
    case Distribution::Kind::kBroadcast:
      return partitioning.partition_count() == 1;
    case Distribution::Kind::kHash:
      if (partitioning.partition_count() == 1) return true;
      return partitioning.kind() == Partitioning::Kind::kHash &&
             SameExprs(partitioning.exprs(), required.exprs());
  }
  return false;
}

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

OperatorMetrics& QueryMetrics::For(const ExecutionPlan* node, int partition, int rank) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<OperatorMetrics>& slot = metrics_[{node, partition, rank}];
  if (!slot) slot = std::make_unique<OperatorMetrics>();
  return *slot;
}

std::vector<QueryMetrics::Part> QueryMetrics::PartsOf(const ExecutionPlan* node) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Part> out;
  constexpr int kLowest = std::numeric_limits<int>::min();
  for (auto it = metrics_.lower_bound({node, kLowest, kLowest});
       it != metrics_.end() && std::get<0>(it->first) == node; ++it) {
    out.push_back({std::get<1>(it->first), std::get<2>(it->first), it->second.get()});
  }
  return out;
}

std::vector<std::pair<int, const OperatorMetrics*>> QueryMetrics::Of(
    const ExecutionPlan* node) const {
  std::vector<std::pair<int, const OperatorMetrics*>> out;
  for (const Part& part : PartsOf(node)) out.emplace_back(part.partition, part.metrics);
  return out;
}

void QueryMetrics::SetExchangeBytes(int rank, int64_t served, int64_t fetched) {
  std::lock_guard<std::mutex> lock(mutex_);
  exchange_bytes_[rank] = {served, fetched};
}

std::map<int, QueryMetrics::ExchangeBytes> QueryMetrics::exchange_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return exchange_bytes_;
}

TaskContext::TaskContext(SessionConfig config, std::shared_ptr<MemoryManager> memory,
                         ThreadPool* threads, std::string spill_directory,
                         std::shared_ptr<ExchangeService> exchange)
    : config_(std::move(config)),
      memory_(std::move(memory)),
      threads_(threads),
      spill_directory_(std::move(spill_directory)),
      exchange_(std::move(exchange)) {
  if (!memory_) memory_ = std::make_shared<MemoryManager>(0);
}

Status TaskContext::CheckCancelled() const {
  if (cancelled()) return Status::Cancelled("the query was cancelled");
  return Status::OK();
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
