#pragma once

// Row selection on arrays and batches: filter by a boolean mask, gather by indices,
// concatenate. Every type, nested ones included.

#include <cstdint>
#include <memory>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"

namespace floe {

/// The rows where `mask` (boolean, same length) is true; NULL counts as false.
Result<ArrayPtr> FilterArray(const Array& array, const Array& mask,
                             MemoryPool* pool = DefaultMemoryPool());
Result<RecordBatchPtr> FilterBatch(const RecordBatch& batch, const Array& mask,
                                   MemoryPool* pool = DefaultMemoryPool());

/// Rows at `indices` (each in [0, length)); an index of -1 yields NULL (outer joins).
Result<ArrayPtr> TakeArray(const Array& array, const int64_t* indices, int64_t n,
                           MemoryPool* pool = DefaultMemoryPool());
Result<RecordBatchPtr> TakeBatch(const RecordBatch& batch, const int64_t* indices, int64_t n,
                                 MemoryPool* pool = DefaultMemoryPool());

/// One array / batch of all rows, in order (all of the same type / schema).
Result<ArrayPtr> ConcatenateArrays(const std::vector<ArrayPtr>& arrays,
                                   MemoryPool* pool = DefaultMemoryPool());
Result<RecordBatchPtr> ConcatenateBatches(const SchemaPtr& schema,
                                          const std::vector<RecordBatchPtr>& batches,
                                          MemoryPool* pool = DefaultMemoryPool());

class ArrayBuilder;

/// Gathers rows of batches of one schema into batches of `batch_size` rows: each row is
/// copied once, into per-column buffers reserved for a whole batch (a string column's
/// value bytes for as many as the last full batch held), and a batch is handed out as soon
/// as it is full. Exchanges use one per output partition.
class BatchAccumulator {
 public:
  BatchAccumulator(SchemaPtr schema, int64_t batch_size, MemoryPool* pool = DefaultMemoryPool());
  ~BatchAccumulator();
  BatchAccumulator(BatchAccumulator&&) noexcept;
  BatchAccumulator& operator=(BatchAccumulator&&) noexcept;

  /// Appends the rows of `batch` at `indices[0..n)` (each in [0, num_rows)); every batch
  /// that fills up is appended to `out`. kInvalidArgument for a batch of another schema
  /// or an index out of range.
  Status Append(const RecordBatch& batch, const int64_t* indices, int64_t n,
                std::vector<RecordBatchPtr>* out);
  /// Appends rows [offset, offset + length) of `batch`, like Append.
  Status AppendSlice(const RecordBatch& batch, int64_t offset, int64_t length,
                     std::vector<RecordBatchPtr>* out);
  /// Rows held that have not yet made a full batch.
  int64_t num_rows() const { return rows_; }
  int64_t batch_size() const { return batch_size_; }
  /// The rows held as one batch (nullptr when there are none); the accumulator is empty
  /// afterwards.
  Result<RecordBatchPtr> Flush();

 private:
  Status Start();

  SchemaPtr schema_;
  int64_t batch_size_;
  MemoryPool* pool_;
  std::vector<std::unique_ptr<ArrayBuilder>> builders_;
  // Per column: the value bytes of the last full batch (string and binary columns).
  std::vector<int64_t> data_bytes_;
  int64_t rows_ = 0;
  bool reserved_ = false;
};

}  // namespace floe
