#pragma once

// Small integer ids for the strings of low-cardinality group keys, so that keys of strings
// and integers pack into KeyTable's one or two 64-bit words (TPC-H Q16 groups by brand,
// type, size and supplier: 25 brands and 150 types, ids of two bytes each, and the four
// keys fit 16 bytes) instead of being encoded row by row and compared as bytes.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/memory_pool.h"
#include "floe/common/pool_buffer.h"
#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::exec {

/// Maps each string (or binary) key column to int16 ids, one id per distinct value in
/// order of first appearance (a NULL stays NULL), so that two rows have equal ids exactly
/// when their values are equal. The ids stay valid for the interner's lifetime. It gives
/// up (Map returns false, for good) once a column holds more distinct values than
/// kMaxIds, or more than one for every kRowsPerId rows after kProbationRows rows: a key
/// of many distinct strings gains nothing from ids.
class KeyInterner {
 public:
  static constexpr int64_t kMaxIds = 32767;
  static constexpr int64_t kProbationRows = 16384;
  static constexpr int64_t kRowsPerId = 16;

  /// An interner for keys of these types when interning their string columns lets the
  /// keys pack into KeyTable's 16 bytes (and they do not already); else null.
  static std::unique_ptr<KeyInterner> Make(const std::vector<TypePtr>& key_types, MemoryPool* pool);

  /// The key types the table is made for: each interned column as int16.
  const std::vector<TypePtr>& mapped_types() const { return mapped_types_; }

  /// `keys` with each interned column replaced by its ids, in `out`. False when a column
  /// now holds too many distinct values: the interner is then done (`out` is unset) and
  /// the caller keys its groups by the columns themselves.
  Result<bool> Map(const std::vector<ArrayPtr>& keys, std::vector<ArrayPtr>* out);

  int64_t memory_size() const;

 private:
  // The distinct values of one column: an open-addressing table of ids into `starts`
  // (their bytes, end to end, in `bytes`).
  struct Dictionary {
    std::vector<int32_t> slots;  // id + 1, 0 when empty
    std::vector<uint64_t> hashes;
    std::vector<uint32_t> starts;  // value id's bytes are [starts[id], starts[id + 1])
    std::string bytes;
    // The id of `v`, adding it when new; -1 when the dictionary is full.
    int32_t Intern(std::string_view v, uint64_t hash);
    void Grow();
  };

  KeyInterner(std::vector<TypePtr> mapped, std::vector<int> columns, MemoryPool* pool);

  std::vector<TypePtr> mapped_types_;
  std::vector<int> columns_;  // the interned key columns
  std::vector<Dictionary> dictionaries_;
  MemoryPool* pool_;
  int64_t rows_ = 0;
  bool done_ = false;
  std::vector<int16_t> ids_;
};

}  // namespace floe::exec
