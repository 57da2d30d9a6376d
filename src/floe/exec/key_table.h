#pragma once

// The table that maps row keys to dense ids, shared by aggregation (group ids) and joins
// (build-row ids).

#include <cstdint>
#include <cstring>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/logging.h"
#include "floe/common/memory_pool.h"
#include "floe/common/pool_buffer.h"
#include "floe/common/result.h"
#include "floe/exec/sort/row_keys.h"

namespace floe::exec {

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

  /// True when keys of these types pack into words (what packed() says of a table made
  /// for them).
  static bool Packs(const std::vector<TypePtr>& key_types);

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
    PoolBuffer<uint64_t> slots;
    void Allocate(int64_t capacity);
    void Grow();
    // Moves the keys into a table of `capacity` slots (a power of two).
    void Rehash(int64_t capacity);
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
  PoolBuffer<Slot> slots_;
  size_t mask_ = 0;
  // The keys' bytes, in blocks that never move (kept by Clear for reuse).
  uint8_t* ArenaAllocate(uint32_t len);
  std::vector<PoolBuffer<uint8_t>> arena_blocks_;
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

}  // namespace floe::exec
