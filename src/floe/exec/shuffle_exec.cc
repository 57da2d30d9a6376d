#include "floe/exec/shuffle_exec.h"

#include <utility>

#include "floe/batch/select.h"
#include "floe/exec/exchange.h"
#include "floe/expr/hash.h"

namespace floe::exec {

namespace {

// Gathers the rows bound for each output partition into batches of up to batch_size
// rows before handing them to the exchange.
class PartitionBuffers {
 public:
  PartitionBuffers(ExchangeService* exchange, int stage, int input_partition, int n,
                   int64_t batch_size, SchemaPtr schema)
      : exchange_(exchange),
        stage_(stage),
        input_partition_(input_partition),
        batch_size_(batch_size < 1 ? 1 : batch_size),
        schema_(std::move(schema)),
        pending_(static_cast<size_t>(n)),
        pending_rows_(static_cast<size_t>(n), 0) {}

  Status Add(int output, RecordBatchPtr batch) {
    if (batch->num_rows() == 0) return Status::OK();
    auto o = static_cast<size_t>(output);
    if (pending_[o].empty() && batch->num_rows() >= batch_size_) {
      return exchange_->Write(stage_, input_partition_, output, batch);
    }
    pending_rows_[o] += batch->num_rows();
    pending_[o].push_back(std::move(batch));
    if (pending_rows_[o] >= batch_size_) return Flush(output);
    return Status::OK();
  }

  Status Flush(int output) {
    auto o = static_cast<size_t>(output);
    if (pending_[o].empty()) return Status::OK();
    RecordBatchPtr batch;
    if (pending_[o].size() == 1) {
      batch = pending_[o][0];
    } else {
      FLOE_ASSIGN_OR_RAISE(batch, ConcatenateBatches(schema_, pending_[o]));
    }
    pending_[o].clear();
    pending_rows_[o] = 0;
    return exchange_->Write(stage_, input_partition_, output, batch);
  }

  Status FlushAll() {
    for (size_t o = 0; o < pending_.size(); ++o) FLOE_RETURN_NOT_OK(Flush(static_cast<int>(o)));
    return Status::OK();
  }

 private:
  ExchangeService* exchange_;
  int stage_;
  int input_partition_;
  int64_t batch_size_;
  SchemaPtr schema_;
  std::vector<std::vector<RecordBatchPtr>> pending_;
  std::vector<int64_t> pending_rows_;
};

Status RouteByHash(const RecordBatchPtr& batch, const std::vector<expr::PhysicalExprPtr>& exprs,
                   int n, PartitionBuffers* buffers) {
  std::vector<ArrayPtr> keys;
  expr::EvalContext eval;
  for (const auto& e : exprs) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr key, expr::EvaluateToArray(*e, *batch, eval));
    keys.push_back(std::move(key));
  }
  std::vector<uint64_t> hashes;
  FLOE_RETURN_NOT_OK(expr::HashRows(keys, &hashes));
  std::vector<std::vector<int64_t>> indices(static_cast<size_t>(n));
  for (int64_t r = 0; r < batch->num_rows(); ++r) {
    indices[hashes[static_cast<size_t>(r)] % static_cast<uint64_t>(n)].push_back(r);
  }
  for (int o = 0; o < n; ++o) {
    const auto& rows = indices[static_cast<size_t>(o)];
    if (rows.empty()) continue;
    if (static_cast<int64_t>(rows.size()) == batch->num_rows()) {
      FLOE_RETURN_NOT_OK(buffers->Add(o, batch));
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr part,
                         TakeBatch(*batch, rows.data(), static_cast<int64_t>(rows.size())));
    FLOE_RETURN_NOT_OK(buffers->Add(o, std::move(part)));
  }
  return Status::OK();
}

}  // namespace

ShuffleWriterExec::ShuffleWriterExec(PlanPtr input, int stage_id, Partitioning output)
    : input_(std::move(input)), stage_id_(stage_id), output_(std::move(output)) {
  properties_.schema = input_->schema();
  properties_.partitioning = Partitioning::Unknown(input_->partition_count());
  properties_.ordering = input_->properties().ordering;
}

Result<PlanPtr> ShuffleWriterExec::Make(PlanPtr input, int stage_id, Partitioning output) {
  if (!input) return Status::Invalid("ShuffleWriterExec needs an input");
  switch (output.kind()) {
    case Partitioning::Kind::kHash:
      if (output.exprs().empty()) {
        return Status::Invalid("ShuffleWriterExec: hash partitioning without keys");
      }
      [[fallthrough]];
    case Partitioning::Kind::kRoundRobin:
      if (output.partition_count() < 1) {
        return Status::Invalid("ShuffleWriterExec: {} partitions", output.partition_count());
      }
      break;
    case Partitioning::Kind::kSingle:
      break;
    case Partitioning::Kind::kUnknown:
      if (output.partition_count() != input->partition_count()) {
        return Status::Invalid(
            "ShuffleWriterExec: {} keeps partitions only with the input's count ({})",
            output.ToString(), input->partition_count());
      }
      break;
  }
  return PlanPtr(new ShuffleWriterExec(std::move(input), stage_id, std::move(output)));
}

Result<PlanPtr> ShuffleWriterExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) return Status::Internal("ShuffleWriterExec takes one child");
  return Make(std::move(children[0]), stage_id_, output_);
}

std::string ShuffleWriterExec::ToString() const {
  std::string out = "ShuffleWriterExec: stage=" + std::to_string(stage_id_) + ", output=";
  if (output_.kind() == Partitioning::Kind::kUnknown) {
    out += "KeepPartitions(" + std::to_string(output_.partition_count()) + ")";
  } else {
    out += output_.ToString();
  }
  return out;
}

Result<BatchStreamPtr> ShuffleWriterExec::Execute(int partition, const TaskContextPtr& ctx) const {
  ExchangeService* exchange = ctx->exchange().get();
  if (exchange == nullptr) {
    return Status::Internal("ShuffleWriterExec of stage {} runs without an exchange", stage_id_);
  }
  const int n = output_.partition_count();
  FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(input_, partition, ctx));
  PartitionBuffers buffers(exchange, stage_id_, partition, n, ctx->config().batch_size(), schema());
  int round_robin = n > 0 ? partition % n : 0;
  while (true) {
    FLOE_RETURN_NOT_OK(ctx->CheckCancelled());
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input->Next());
    if (!batch) break;
    if (batch->num_rows() == 0) continue;
    switch (output_.kind()) {
      case Partitioning::Kind::kHash:
        FLOE_RETURN_NOT_OK(RouteByHash(batch, output_.exprs(), n, &buffers));
        break;
      case Partitioning::Kind::kRoundRobin:
        FLOE_RETURN_NOT_OK(buffers.Add(round_robin, batch));
        round_robin = (round_robin + 1) % n;
        break;
      case Partitioning::Kind::kSingle:
        FLOE_RETURN_NOT_OK(buffers.Add(0, batch));
        break;
      case Partitioning::Kind::kUnknown:
        FLOE_RETURN_NOT_OK(buffers.Add(partition, batch));
        break;
    }
  }
  FLOE_RETURN_NOT_OK(buffers.FlushAll());
  FLOE_RETURN_NOT_OK(exchange->Finish(stage_id_, partition));
  return MakeVectorStream(schema(), {});
}

Result<PlanPtr> ShuffleReaderExec::Make(int stage_id, SchemaPtr schema, Partitioning partitioning,
                                        Ordering ordering) {
  if (!schema) return Status::Invalid("ShuffleReaderExec needs a schema");
  if (partitioning.partition_count() < 1) {
    return Status::Invalid("ShuffleReaderExec of stage {}: {} partitions", stage_id,
                           partitioning.partition_count());
  }
  PlanProperties properties;
  properties.schema = std::move(schema);
  properties.partitioning = std::move(partitioning);
  properties.ordering = std::move(ordering);
  return PlanPtr(new ShuffleReaderExec(stage_id, std::move(properties)));
}

Result<PlanPtr> ShuffleReaderExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (!children.empty()) return Status::Internal("ShuffleReaderExec takes no children");
  return Make(stage_id_, properties_.schema, properties_.partitioning, properties_.ordering);
}

std::string ShuffleReaderExec::ToString() const {
  std::string out = "ShuffleReaderExec: stage=" + std::to_string(stage_id_);
  if (!properties_.ordering.empty()) {
    out += ", ordering=[" + OrderingToString(properties_.ordering) + "]";
  }
  return out;
}

Result<BatchStreamPtr> ShuffleReaderExec::Execute(int partition, const TaskContextPtr& ctx) const {
  if (!ctx->exchange()) {
    return Status::Internal("ShuffleReaderExec of stage {} runs without an exchange", stage_id_);
  }
  return ctx->exchange()->Open(stage_id_, partition);
}

}  // namespace floe::exec
