#pragma once

// Nested array assembly: the definition and repetition levels and the values of a read's
// leaf batches become the arrays of its columns. Private to floe/format/parquet.

#include <vector>

#include "floe/batch/array.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"
#include "floe/format/parquet/column_reader_internal.h"
#include "floe/format/parquet/schema_internal.h"

namespace floe::parquet::internal {

/// The array of `node` (of `schema`) from the leaf batches `batches` (by leaf index), with its
/// buffers from `pool`. kCorrupt when the levels and the values disagree.
Result<ArrayPtr> AssembleFromLevels(const FileSchema& schema,
                                    const std::vector<LeafBatch*>& batches, MemoryPool* pool,
                                    const ReadNode& node);

}  // namespace floe::parquet::internal
