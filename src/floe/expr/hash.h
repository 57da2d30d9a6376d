#pragma once

// Row hashing for hash partitioning, hash joins and hash aggregation. One function, so
// that Hash(exprs, n) partitioning means the same thing on every operator and rank:
// partition = HashRows(...)[i] % n. Equal values hash equally across types that compare
// equal after coercion only when they were coerced to one type first (the planner does).
// NULLs hash to a fixed value; -0.0 and 0.0 hash equally; all NaNs hash equally.

#include <cstdint>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"

namespace floe::expr {

/// Writes one 64-bit hash per row of the columns (all of one length) into `out`
/// (resized to the row count). Every type, nested ones included.
Status HashRows(const std::vector<ArrayPtr>& columns, std::vector<uint64_t>* out);
/// HashRows into out[0..n), n being the columns' length: memory the caller sized, which
/// need not be initialised (a hash join's build side hashes millions of rows at once).
Status HashRows(const std::vector<ArrayPtr>& columns, uint64_t* out);

/// The rows of a batch grouped by hash partition, and scratch space that a caller keeps
/// from batch to batch so that routing does not allocate.
struct PartitionedRows {
  /// Row indices, partition by partition; within a partition in increasing order.
  std::vector<int64_t> rows;
  /// n + 1 entries: partition p's rows are rows[starts[p] .. starts[p + 1]).
  std::vector<int64_t> starts;
  /// HashRows of the key columns.
  std::vector<uint64_t> hashes;
  /// The partition of each row.
  std::vector<uint32_t> partitions;
};

/// Groups the rows of `columns` by partition HashRows(columns)[r] % n (the partitioning
/// Hash(exprs, n) means everywhere). kInvalidArgument when n < 1.
Status PartitionRows(const std::vector<ArrayPtr>& columns, int n, PartitionedRows* out);

}  // namespace floe::expr
