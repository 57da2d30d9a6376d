#include "floe/exec/partition_router.h"

#include <utility>

namespace floe::exec {

PartitionRouter::PartitionRouter(const SchemaPtr& schema, int n, int64_t batch_size,
                                 MemoryPool* pool, Sink sink)
    : sink_(std::move(sink)) {
  eval_.pool = pool;
  accumulators_.reserve(static_cast<size_t>(n));
  for (int o = 0; o < n; ++o) accumulators_.emplace_back(schema, batch_size, pool);
}

Status PartitionRouter::Add(int output, const RecordBatchPtr& batch) {
  BatchAccumulator& acc = accumulators_[static_cast<size_t>(output)];
  if (acc.num_rows() == 0 && batch->num_rows() >= acc.batch_size()) return sink_(output, batch);
  FLOE_RETURN_NOT_OK(acc.AppendSlice(*batch, 0, batch->num_rows(), &full_));
  return SinkFull(output);
}

Status PartitionRouter::AddByHash(const RecordBatchPtr& batch,
                                  const std::vector<expr::PhysicalExprPtr>& exprs) {
  keys_.clear();
  for (const expr::PhysicalExprPtr& e : exprs) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr key, expr::EvaluateToArray(*e, *batch, eval_));
    keys_.push_back(std::move(key));
  }
  const int n = static_cast<int>(accumulators_.size());
  FLOE_RETURN_NOT_OK(expr::PartitionRows(keys_, n, &routed_));
  keys_.clear();
  for (int o = 0; o < n; ++o) {
    const int64_t begin = routed_.starts[static_cast<size_t>(o)];
    const int64_t count = routed_.starts[static_cast<size_t>(o) + 1] - begin;
    if (count == 0) continue;
    if (count == batch->num_rows()) {
      FLOE_RETURN_NOT_OK(Add(o, batch));
      continue;
    }
    FLOE_RETURN_NOT_OK(accumulators_[static_cast<size_t>(o)].Append(
        *batch, routed_.rows.data() + begin, count, &full_));
    FLOE_RETURN_NOT_OK(SinkFull(o));
  }
  return Status::OK();
}

Status PartitionRouter::Finish() {
  for (size_t o = 0; o < accumulators_.size(); ++o) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr rest, accumulators_[o].Flush());
    if (rest) FLOE_RETURN_NOT_OK(sink_(static_cast<int>(o), std::move(rest)));
  }
  return Status::OK();
}

Status PartitionRouter::SinkFull(int output) {
  for (RecordBatchPtr& b : full_) FLOE_RETURN_NOT_OK(sink_(output, std::move(b)));
  full_.clear();
  return Status::OK();
}

}  // namespace floe::exec
