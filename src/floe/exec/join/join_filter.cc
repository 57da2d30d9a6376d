#include "floe/exec/join/join_filter.h"

#include <algorithm>
#include <bit>

namespace floe::exec {

JoinFilter::JoinFilter(int64_t num_keys) {
  // 16 bits per key, in a power of two of words between 2 and 2^24 (past that the word
  // index would reach into the bits that pick the bits within a word).
  const uint64_t want = static_cast<uint64_t>(std::max<int64_t>(num_keys, 1)) / 4;
  const uint64_t words = std::clamp<uint64_t>(std::bit_ceil(want), 2, uint64_t{1} << 24);
  shift_ = 64 - std::countr_zero(words);
  words_.Zero(static_cast<int64_t>(words));
}

void JoinFilter::Insert(const uint64_t* hashes, int64_t n, const uint8_t* skip) {
  uint64_t* words = words_.data();
  for (int64_t r = 0; r < n; ++r) {
    if (skip != nullptr && skip[r]) continue;
    words[hashes[r] >> shift_] |= BitsOf(hashes[r]);
  }
}

int64_t JoinFilter::Select(const uint64_t* hashes, int64_t n, const uint8_t* skip,
                           int64_t* rows) const {
  const uint64_t* words = words_.data();
  const int shift = shift_;
  int64_t count = 0;
  // Branch-free: every row is written, and the count moves past the rows that pass.
  // The words of rows a little ahead are prefetched: a large filter is read from beyond
  // the core's own caches.
  constexpr int64_t kAhead = 16;
  const int64_t head = std::max<int64_t>(n - kAhead, 0);
  auto run = [&](int64_t begin, int64_t end, bool prefetch) {
    for (int64_t r = begin; r < end; ++r) {
      if (prefetch) __builtin_prefetch(words + (hashes[r + kAhead] >> shift));
      const uint64_t m = BitsOf(hashes[r]);
      rows[count] = r;
      const bool pass = (words[hashes[r] >> shift] & m) == m;
      count += skip == nullptr ? pass : pass & (skip[r] == 0);
    }
  };
  run(0, head, true);
  run(head, n, false);
  return count;
}

}  // namespace floe::exec
