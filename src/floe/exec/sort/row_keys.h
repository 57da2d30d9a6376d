#pragma once

// Row keys for orderings, shared by sort, merge, window, aggregation and joins.
//
// A normalized key is a byte string per row such that memcmp order is the ordering's
// order: per key column a NULL marker (NULLS FIRST/LAST), then the value in an
// order-preserving form (integers big-endian with the sign bit flipped; floats with
// -0.0 as 0.0 and every NaN as one NaN greater than every number, as PostgreSQL sorts;
// decimals as 128-bit integers; strings and binary by bytes, escaped and terminated so
// that no key is a prefix of another; fixed and uuid raw; nested values element by
// element), every byte inverted for DESC. Equal keys (byte-equal) are exactly the rows
// that GROUP BY / DISTINCT put together: NULLs equal NULLs, NaN equals NaN, -0.0 = 0.0.

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// Direction and NULL placement of one key column.
struct SortOptions {
  bool descending = false;
  bool nulls_first = false;
};

/// Normalized keys of a batch's rows: row i is data[offsets[i] .. offsets[i + 1]). The
/// bytes live in the default pool, so that a sort's keys come back to the pool's recycling
/// (bounded under a memory_limit) rather than staying in malloc's heap once freed.
struct RowKeys {
  PoolVector<uint8_t> data;
  PoolVector<uint32_t> offsets;  // num_rows + 1 entries

  int64_t num_rows() const { return static_cast<int64_t>(offsets.size()) - 1; }
  std::string_view Key(int64_t i) const {
    return {reinterpret_cast<const char*>(data.data()) + offsets[i], offsets[i + 1] - offsets[i]};
  }
  /// The first 8 bytes of key i as a big-endian integer (zero-padded): comparing
  /// prefixes first, then the full keys when they tie, is the key order.
  uint64_t Prefix(int64_t i) const;
  int64_t memory_size() const {
    return static_cast<int64_t>(data.capacity() + offsets.capacity() * sizeof(uint32_t));
  }
};

/// Encodes the rows of `columns` (equal lengths; one SortOptions per column) into `out`.
/// kNotSupported for a type without an encoding (none today), kInvalidArgument when the
/// keys of one batch pass 4 GiB.
Status EncodeRowKeys(const std::vector<ArrayPtr>& columns, const std::vector<SortOptions>& options,
                     RowKeys* out);

/// Three-way comparison of two keys (memcmp order; a shorter key that is a prefix sorts
/// first, which the encoding never produces for unequal values).
inline int CompareKeys(std::string_view a, std::string_view b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

/// A hash of a normalized key's bytes.
uint64_t HashKeyBytes(const uint8_t* data, size_t size);

/// The options of each key of an ordering.
std::vector<SortOptions> SortOptionsOf(const Ordering& ordering);

/// Evaluates each key expression of `ordering` over `batch`.
Result<std::vector<ArrayPtr>> EvaluateKeys(const Ordering& ordering, const RecordBatch& batch);
Result<std::vector<ArrayPtr>> EvaluateExprs(const std::vector<expr::PhysicalExprPtr>& exprs,
                                            const RecordBatch& batch);

/// The permutation that sorts the rows of `keys` (stable: equal keys keep input order).
/// The permutation and the sort's working space come from the default pool.
PoolVector<int64_t> SortIndices(const RowKeys& keys);

}  // namespace floe::exec
