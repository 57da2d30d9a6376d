#pragma once

#include <functional>
#include <vector>

#include "floe/batch/select.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"
#include "floe/expr/hash.h"
#include "floe/expr/physical_expr.h"

namespace floe::exec {

/// Routes the batches of one input partition to `n` output partitions, for the in-process
/// RepartitionExec and for the shuffle between stages alike: by the hash of key expressions
/// (expr::PartitionRows, so a key lands on the same partition whichever of them routes it) or
/// whole batches to one partition. Each output's rows are copied once into an accumulator and
/// handed to `sink` in batches of `batch_size` rows; a batch that goes whole to an output with
/// nothing pending there passes through uncopied when it is big enough on its own.
class PartitionRouter {
 public:
  using Sink = std::function<Status(int output, RecordBatchPtr batch)>;

  PartitionRouter(const SchemaPtr& schema, int n, int64_t batch_size, MemoryPool* pool, Sink sink);

  /// All rows of `batch` to partition `output`.
  Status Add(int output, const RecordBatchPtr& batch);
  /// Row r of `batch` to the partition of the hash of `exprs` at row r.
  Status AddByHash(const RecordBatchPtr& batch, const std::vector<expr::PhysicalExprPtr>& exprs);
  /// Hands the rows still held to the sink.
  Status Finish();

 private:
  Status SinkFull(int output);

  Sink sink_;
  std::vector<BatchAccumulator> accumulators_;
  // Scratch kept across batches.
  std::vector<RecordBatchPtr> full_;
  std::vector<ArrayPtr> keys_;
  expr::PartitionedRows routed_;
  expr::EvalContext eval_;
};

}  // namespace floe::exec
