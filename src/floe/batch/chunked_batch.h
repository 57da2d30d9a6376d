#pragma once

// Rows of several batches of one schema addressed as one run of rows, gathered from without
// concatenating the batches first (a hash join's build side: concatenating would copy it
// once more, and on a fresh process first-touch that much new memory).

#include <cstdint>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"

namespace floe {

class ChunkedBatch {
 public:
  ChunkedBatch() = default;

  /// The rows of `batches` in order: row r is row r - start(c) of batch c. Empty batches are
  /// dropped. Columns of list or map type (inside structs too) are not gathered from
  /// several batches: with one of them the batches are concatenated here (from `pool`).
  /// kInvalidArgument when a batch's columns do not match the schema's count.
  static Result<ChunkedBatch> Make(SchemaPtr schema, std::vector<RecordBatchPtr> batches,
                                   MemoryPool* pool = DefaultMemoryPool());

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return starts_.empty() ? 0 : starts_.back(); }
  /// The batches the rows are kept in (one after Make concatenated them).
  const std::vector<RecordBatchPtr>& batches() const { return batches_; }

  /// The rows at `indices[0..n)` as one batch of the schema; an index of -1 gives a row of
  /// NULLs. kInvalidArgument for an index outside [-1, num_rows()).
  Result<RecordBatchPtr> Take(const int64_t* indices, int64_t n,
                              MemoryPool* pool = DefaultMemoryPool()) const;

 private:
  // The batch holding row r (0 <= r < num_rows()).
  uint32_t BatchOf(int64_t r) const {
    uint32_t c = directory_[static_cast<size_t>(r >> shift_)];
    while (starts_[c + 1] <= r) ++c;
    return c;
  }

  SchemaPtr schema_;
  std::vector<RecordBatchPtr> batches_;
  std::vector<int64_t> starts_;  // the first row of each batch, then num_rows()
  // directory_[k]: the batch holding row k << shift_; 2^shift_ rows are at most the average
  // batch's, so the batch of row r is directory_[r >> shift_] or one of the few after it.
  int shift_ = 0;
  std::vector<uint32_t> directory_;
};

}  // namespace floe
