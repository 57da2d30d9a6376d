#pragma once

// Row selection on arrays and batches: filter by a boolean mask, gather by indices,
// concatenate. Every type, nested ones included.

#include <cstdint>
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

}  // namespace floe
