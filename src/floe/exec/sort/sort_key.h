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
#include "floe/common/logging.h"
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

/// A fixed-length array of trivially copyable values in memory from the default pool:
/// large arrays get the pool's recycled blocks and huge pages (fresh memory from the
/// system costs a page fault per 4 KiB, which is dear in virtual machines). Move-only.
template <typename T>
class PooledArray {
 public:
  PooledArray() = default;
  ~PooledArray() { Reset(); }
  PooledArray(PooledArray&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  PooledArray& operator=(PooledArray&& other) noexcept {
    if (this != &other) {
      Reset();
      data_ = other.data_;
      size_ = other.size_;
      other.data_ = nullptr;
      other.size_ = 0;
    }
    return *this;
  }
  PooledArray(const PooledArray&) = delete;
  PooledArray& operator=(const PooledArray&) = delete;

  /// Replaces the contents with `n` copies of `value`; aborts when the system refuses
  /// the memory (as std::vector would).
  void Assign(int64_t n, T value) {
    Resize(n);
    for (int64_t i = 0; i < n; ++i) data_[i] = value;
  }
  /// Replaces the contents with `n` values whose bytes are all zero (one memset; the
  /// zero of every integer and of a struct of them, padding included).
  void Zero(int64_t n) {
    Resize(n);
    if (n > 0) std::memset(static_cast<void*>(data_), 0, static_cast<size_t>(n) * sizeof(T));
  }
  /// Makes the array `n` values long with unspecified contents.
  void Resize(int64_t n) {
    if (n == size_) return;
    Reset();
    if (n == 0) return;
    auto p = DefaultMemoryPool()->Allocate(n * static_cast<int64_t>(sizeof(T)));
    FLOE_CHECK(p.ok(), p.status().ToString());
    data_ = reinterpret_cast<T*>(*p);
    size_ = n;
  }
  void Reset() {
    if (data_ != nullptr) {
      DefaultMemoryPool()->Free(reinterpret_cast<uint8_t*>(data_),
                                size_ * static_cast<int64_t>(sizeof(T)));
    }
    data_ = nullptr;
    size_ = 0;
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](int64_t i) { return data_[i]; }
  const T& operator[](int64_t i) const { return data_[i]; }
  int64_t memory_size() const { return size_ * static_cast<int64_t>(sizeof(T)); }

 private:
  T* data_ = nullptr;
  int64_t size_ = 0;
};

/// Open-addressing hash table from keys to dense ids in order of first insertion.
///
/// A table made with KeyTable() holds normalized keys (byte strings, see EncodeRowKeys;
/// equality is byte equality) and is used through the RowKeys overloads. A table made
/// with KeyTable(key_types) is used through the column overloads, which take the key
/// columns themselves: when every key type is fixed-width (integers, date, time,
/// timestamps, decimal, boolean, floats, fixed, uuid) and their widths add up to at most
/// 16 bytes, the values are packed into one or two 64-bit words that are hashed and
/// compared directly (floats with -0.0 as 0.0 and every NaN as one NaN); other layouts
/// encode the columns with EncodeRowKeys. Either way equal keys are exactly the rows
/// that GROUP BY puts together: NULLs equal NULLs (in the same columns).
///
/// A grouping calls Insert(columns, ids, &new_rows) per batch (Reserve first when the
/// number of groups is known); a hash join Reserves the build side's row count, Inserts
/// the build rows (with `skip` set on rows whose NULL keys match nothing) and calls the
/// const Find per probe batch with its own Scratch.
class KeyTable {
 public:
  static constexpr uint32_t kNotFound = UINT32_MAX;
  /// A table of normalized keys (the RowKeys overloads).
  KeyTable() { Clear(); }
  /// A table of the rows of key columns of these types (the column overloads).
  explicit KeyTable(const std::vector<TypePtr>& key_types);

  int64_t num_keys() const { return num_keys_; }
  int64_t memory_size() const;
  /// True when keys are packed into `packed_words()` 64-bit words (the fast path).
  bool packed() const { return packed_words_ > 0; }
  int packed_words() const { return packed_words_; }
  /// Removes every key (the layout stays).
  void Clear();
  /// Sizes the table for `n` keys in all, so that inserting them does not grow it.
  void Reserve(int64_t n);

  /// Assigns ids[i] for every row of `keys`, inserting new keys; rows that inserted a key
  /// are appended to `new_rows`. Rows with skip[i] set (when given) get kNotFound.
  /// Only for tables made with KeyTable().
  void Insert(const RowKeys& keys, uint32_t* ids, std::vector<int64_t>* new_rows,
              const uint8_t* skip = nullptr);
  /// Finds each row's key: ids[i] is its id or kNotFound (also for skip[i] set). Const
  /// and thread-safe: `scratch` holds the hashes. Only for tables made with KeyTable().
  void Find(const RowKeys& keys, uint32_t* ids, const uint8_t* skip,
            std::vector<uint64_t>* scratch) const;

  /// Per-call buffers of the column overloads (one per thread for Find).
  struct Scratch {
    RowKeys keys;
    std::vector<uint64_t> words;
    std::vector<uint64_t> hashes;
    std::vector<uint32_t> null_masks;
  };
  /// Insert over the rows of `columns` (one per key type given at construction, equal
  /// lengths). `new_rows` may be null. kInvalidArgument when the columns do not match the
  /// key types or (unpacked) their keys pass 4 GiB in one call.
  Status Insert(const std::vector<ArrayPtr>& columns, uint32_t* ids, std::vector<int64_t>* new_rows,
                const uint8_t* skip = nullptr);
  /// Find over the rows of `columns`; const and thread-safe with one `scratch` per thread.
  Status Find(const std::vector<ArrayPtr>& columns, uint32_t* ids, const uint8_t* skip,
              Scratch* scratch) const;

 private:
  struct Slot {
    uint64_t hash;
    uint32_t id;
    uint32_t len;  // the key's bytes
  };
  // Packed keys: slots of `words` key words and one word holding id + 1 (0: empty).
  struct PackedIndex {
    int words = 0;
    int shift = 64;
    uint64_t mask = 0;
    int64_t size = 0;
    int64_t grow_at = 0;
    PooledArray<uint64_t> slots;
    void Allocate(int64_t capacity);
    void Grow();
    int64_t memory_size() const { return slots.memory_size(); }
  };
  struct PackedColumn {
    TypeId type;
    int width;
    int offset;
  };
  void Grow();
  void Rehash(size_t capacity);
  static void Hash(const RowKeys& keys, std::vector<uint64_t>* out);
  Status CheckColumns(const std::vector<ArrayPtr>& columns) const;
  // Packs the rows of `columns` into `words` rows of packed_words_ words (or points at
  // the column's own values); fills null_masks (a bit per NULL column) when any is null.
  const uint64_t* Pack(const std::vector<ArrayPtr>& columns, Scratch* scratch,
                       bool* any_null) const;
  template <int W>
  void InsertPacked(const uint64_t* keys, int64_t n, const uint32_t* null_masks, uint32_t* ids,
                    std::vector<int64_t>* new_rows, const uint8_t* skip);
  template <int W>
  void FindPacked(const uint64_t* keys, int64_t n, const uint32_t* null_masks, uint32_t* ids,
                  const uint8_t* skip, Scratch* scratch) const;
  template <int W>
  uint32_t FindNullKey(const uint64_t* k, uint32_t mask) const;

  int64_t num_keys_ = 0;
  // Normalized keys.
  PooledArray<Slot> slots_;
  size_t mask_ = 0;
  // The keys' bytes, in blocks that never move (kept by Clear for reuse).
  uint8_t* ArenaAllocate(uint32_t len);
  std::vector<PooledArray<uint8_t>> arena_blocks_;
  size_t arena_block_ = 0;  // the block being filled
  int64_t arena_used_ = 0;  // bytes used in it
  std::vector<const uint8_t*> key_ptr_;
  std::vector<uint64_t> hashes_;
  // Column keys.
  std::vector<TypePtr> key_types_;
  int packed_words_ = 0;
  std::vector<PackedColumn> packed_columns_;
  PackedIndex packed_;        // keys without NULLs
  PackedIndex packed_nulls_;  // keys with NULLs: the NULL mask word, then the values
  Scratch scratch_;           // Insert's buffers
};

/// The options of each key of an ordering.
std::vector<SortOptions> SortOptionsOf(const Ordering& ordering);

/// Evaluates each key expression of `ordering` over `batch`.
Result<std::vector<ArrayPtr>> EvaluateKeys(const Ordering& ordering, const RecordBatch& batch);
Result<std::vector<ArrayPtr>> EvaluateExprs(const std::vector<expr::PhysicalExprPtr>& exprs,
                                            const RecordBatch& batch);

/// The permutation that sorts the rows of `keys` (stable: equal keys keep input order).
/// The permutation and the sort's working space come from the default pool.
PoolVector<int64_t> SortIndices(const RowKeys& keys);

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
