#pragma once

// A set of integer keys as one bit per value of their range: what a hash join publishes
// of its build keys when they are too many to list but span a small enough range (TPC-H's
// order keys), for the scans below its probe side to drop the rows whose key is not in it.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace floe {

struct KeyBitmap {
  /// The least key; bit v - lo of `words` is set for each key v.
  int64_t lo = 0;
  /// The greatest key minus the least.
  uint64_t span = 0;
  std::vector<uint64_t> words;

  KeyBitmap() = default;
  /// No key yet, over the range [lo, hi] (lo <= hi).
  KeyBitmap(int64_t lo, int64_t hi)
      : lo(lo),
        span(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)),
        words(static_cast<size_t>(span / 64 + 1), 0) {}

  int64_t hi() const { return static_cast<int64_t>(static_cast<uint64_t>(lo) + span); }

  /// Adds key v of [lo, hi()].
  void Add(int64_t v) {
    const uint64_t d = static_cast<uint64_t>(v) - static_cast<uint64_t>(lo);
    words[d >> 6] |= uint64_t{1} << (d & 63);
  }

  bool Contains(int64_t v) const { return Contains(words.data(), lo, span, v); }
  /// The membership test over a bitmap's parts, for loops that hold them in registers.
  static bool Contains(const uint64_t* words, int64_t lo, uint64_t span, int64_t v) {
    // Below lo wraps to more than span.
    const uint64_t d = static_cast<uint64_t>(v) - static_cast<uint64_t>(lo);
    return d <= span && ((words[d >> 6] >> (d & 63)) & 1) != 0;
  }

  /// Whether a key lies in [a, b].
  bool AnyIn(int64_t a, int64_t b) const {
    a = std::max(a, lo);
    b = std::min(b, hi());
    if (a > b) return false;
    const uint64_t first = static_cast<uint64_t>(a) - static_cast<uint64_t>(lo);
    const uint64_t last = static_cast<uint64_t>(b) - static_cast<uint64_t>(lo);
    for (uint64_t w = first >> 6; w <= last >> 6; ++w) {
      uint64_t bits = words[w];
      if (w == first >> 6) bits &= ~uint64_t{0} << (first & 63);
      if (w == last >> 6 && (last & 63) != 63) bits &= (uint64_t{1} << ((last & 63) + 1)) - 1;
      if (bits != 0) return true;
    }
    return false;
  }
};

}  // namespace floe
