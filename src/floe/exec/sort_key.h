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
#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// Direction and NULL placement of one key column.
struct SortOptions {
  bool descending = false;
  bool nulls_first = false;
};

/// Normalized keys of a batch's rows: row i is data[offsets[i] .. offsets[i + 1]).
struct RowKeys {
  std::vector<uint8_t> data;
  std::vector<uint32_t> offsets;  // num_rows + 1 entries

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

/// Open-addressing hash table from normalized keys (byte strings, see EncodeRowKeys) to
/// dense ids in order of first insertion; equality is byte equality.
class KeyTable {
 public:
  static constexpr uint32_t kNotFound = UINT32_MAX;
  KeyTable() { Clear(); }

  int64_t num_keys() const { return static_cast<int64_t>(key_len_.size()); }
  int64_t memory_size() const;
  void Clear();
  /// Assigns ids[i] for every row of `keys`, inserting new keys; rows that inserted a key
  /// are appended to `new_rows`. Rows with skip[i] set (when given) get kNotFound.
  void Insert(const RowKeys& keys, uint32_t* ids, std::vector<int64_t>* new_rows,
              const uint8_t* skip = nullptr);
  /// Finds each row's key: ids[i] is its id or kNotFound (also for skip[i] set). Const
  /// and thread-safe: `scratch` holds the hashes.
  void Find(const RowKeys& keys, uint32_t* ids, const uint8_t* skip,
            std::vector<uint64_t>* scratch) const;

 private:
  struct Slot {
    uint64_t hash;
    uint32_t id;
  };
  void Grow();
  static void Hash(const RowKeys& keys, std::vector<uint64_t>* out);

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  std::vector<uint8_t> arena_;
  std::vector<uint32_t> key_len_;
  std::vector<uint64_t> key_off_;
  std::vector<uint64_t> hashes_;
};

/// The options of each key of an ordering.
std::vector<SortOptions> SortOptionsOf(const Ordering& ordering);

/// Evaluates each key expression of `ordering` over `batch`.
Result<std::vector<ArrayPtr>> EvaluateKeys(const Ordering& ordering, const RecordBatch& batch);
Result<std::vector<ArrayPtr>> EvaluateExprs(const std::vector<expr::PhysicalExprPtr>& exprs,
                                            const RecordBatch& batch);

/// The permutation that sorts the rows of `keys` (stable: equal keys keep input order).
std::vector<int64_t> SortIndices(const RowKeys& keys);

/// Bytes held by a batch's buffers (shared buffers counted once per array).
int64_t BatchMemorySize(const RecordBatch& batch);
int64_t ArrayMemorySize(const Array& array);

/// Builds batches from rows picked out of other batches (of one schema): Add(batch, row)
/// appends one row; consecutive rows of one batch are copied as slices.
class RowInterleaver {
 public:
  explicit RowInterleaver(SchemaPtr schema, MemoryPool* pool = DefaultMemoryPool());
  void Add(const RecordBatchPtr& batch, int64_t row);
  int64_t num_rows() const { return rows_; }
  /// The rows added so far as one batch; empties the interleaver.
  Result<RecordBatchPtr> Finish();

 private:
  struct Run {
    RecordBatchPtr batch;
    int64_t begin, end;
  };
  SchemaPtr schema_;
  MemoryPool* pool_;
  std::vector<Run> runs_;
  int64_t rows_ = 0;
};

/// A sorted stream of batches with its current row, for k-way merges.
class MergeCursor {
 public:
  MergeCursor(BatchStreamPtr stream, Ordering keys)
      : stream_(std::move(stream)), keys_(std::move(keys)), options_(SortOptionsOf(keys_)) {}
  /// Keys are the columns `key_columns` of the batches themselves.
  MergeCursor(BatchStreamPtr stream, std::vector<int> key_columns, std::vector<SortOptions> options)
      : stream_(std::move(stream)),
        key_columns_(std::move(key_columns)),
        options_(std::move(options)) {}
  /// Loads the first batch; false when the stream is empty.
  Result<bool> Init() { return LoadNext(); }
  bool done() const { return batch_ == nullptr; }
  const RecordBatchPtr& batch() const { return batch_; }
  int64_t row() const { return row_; }
  std::string_view key() const { return keys_rows_.Key(row_); }
  /// Moves to the next row; false at the end of the stream.
  Result<bool> Advance();

 private:
  Result<bool> LoadNext();
  BatchStreamPtr stream_;
  Ordering keys_;
  std::vector<int> key_columns_;
  std::vector<SortOptions> options_;
  RecordBatchPtr batch_;
  RowKeys keys_rows_;
  int64_t row_ = 0;
};

/// Merges sorted cursors (a loser-tree-free binary heap; ties go to the lower cursor
/// index, so the merge is stable across inputs in index order).
class KWayMerger {
 public:
  /// Takes cursors that have been Init()ed (empty ones are dropped).
  explicit KWayMerger(std::vector<std::unique_ptr<MergeCursor>> cursors);
  bool done() const { return heap_.empty(); }
  /// The cursor holding the smallest row.
  MergeCursor* top() const { return cursors_[heap_[0]].get(); }
  /// Advances the top cursor and restores the heap.
  Status Pop();

 private:
  bool Less(int a, int b) const;
  void SiftDown(size_t i);
  std::vector<std::unique_ptr<MergeCursor>> cursors_;
  std::vector<int> heap_;
};

/// A stream that merges `cursors` into batches of `batch_size` rows, stopping after
/// `limit` rows (< 0: no limit). `owned` is kept alive with the stream (spill files).
BatchStreamPtr MakeMergeStream(SchemaPtr schema, std::vector<std::unique_ptr<MergeCursor>> cursors,
                               int64_t batch_size, int64_t limit,
                               std::shared_ptr<void> owned = nullptr);

}  // namespace floe::exec
