#pragma once

// A Bloom filter over the key hashes of a hash join's build side, checked before the
// hash table so that probe rows without a partner skip the table's cache misses.

#include <cstdint>

#include "floe/exec/key_table.h"

namespace floe::exec {

/// A register-blocked Bloom filter over 64-bit key hashes (expr::HashRows): each key
/// sets 4 bits of one 64-bit word, chosen by the hash. About 16 bits per key, so that
/// about 1 in 200 absent keys passes. A hash that was inserted always passes.
class JoinFilter {
 public:
  /// An empty filter sized for `num_keys` distinct keys.
  explicit JoinFilter(int64_t num_keys);

  /// Adds hashes[r] for every r in [0, n) without skip[r] set (skip may be null).
  void Insert(const uint64_t* hashes, int64_t n, const uint8_t* skip);
  /// True when `hash` may have been inserted; false means it certainly was not.
  bool MayContain(uint64_t hash) const {
    const uint64_t m = BitsOf(hash);
    return (words_[static_cast<int64_t>(hash >> shift_)] & m) == m;
  }
  /// Writes to `rows` (room for n) the r in [0, n), in increasing order, without
  /// skip[r] set (skip may be null) whose hashes[r] may have been inserted; returns how
  /// many.
  int64_t Select(const uint64_t* hashes, int64_t n, const uint8_t* skip, int64_t* rows) const;

  int64_t memory_size() const { return words_.memory_size(); }

 private:
  // The word is chosen by the top bits of the hash and the bits within it by bits 16 to
  // 40, so that neither depends on the low bits that hash partitioning (hash % n) fixes.
  static uint64_t BitsOf(uint64_t h) {
    return (uint64_t{1} << ((h >> 16) & 63)) | (uint64_t{1} << ((h >> 22) & 63)) |
           (uint64_t{1} << ((h >> 28) & 63)) | (uint64_t{1} << ((h >> 34) & 63));
  }

  PoolBuffer<uint64_t> words_;
  int shift_ = 63;
};

}  // namespace floe::exec
