#pragma once

// Gather kernels shared by the row-selection functions (select.cc) and the builders'
// AppendIndices (builder.cc): tight loops over already validated indices, writing into
// memory the caller has reserved. Not part of the public interface.

#include <bit>
#include <cstdint>
#include <cstring>

#include "floe/batch/array.h"
#include "floe/batch/buffer.h"

namespace floe::internal {

/// How the validity of an array's values is read in a gather loop.
enum class ValidityKind { kAllValid, kAllNull, kBitmap };

inline ValidityKind ClassifyValidity(const Array& array) {
  if (array.null_count() == 0) return ValidityKind::kAllValid;
  if (array.null_count() == array.length() || array.validity() == nullptr) {
    return ValidityKind::kAllNull;
  }
  return ValidityKind::kBitmap;
}

/// Bit i of a bitmap as a 0/1 word.
inline uint64_t BitAt(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1u; }

/// Writes `n` bits, bit i = bit_of(i) (0 or 1), into `dst` from bit `dst_offset` on. Bits
/// of dst before dst_offset are kept; the rest of the last byte written is zeroed. Whole
/// words are assembled in a register and stored at once. Returns the number of set bits.
template <typename BitOf>
int64_t WriteBits(int64_t n, uint8_t* dst, int64_t dst_offset, BitOf&& bit_of) {
  int64_t i = 0;
  int64_t set = 0;
  for (; i < n && ((dst_offset + i) & 7) != 0; ++i) {
    const uint64_t b = bit_of(i);
    bit_util::SetBitTo(dst, dst_offset + i, b != 0);
    set += static_cast<int64_t>(b);
  }
  uint8_t* out = dst + ((dst_offset + i) >> 3);
  for (; i + 64 <= n; i += 64) {
    uint64_t word = 0;
    for (int j = 0; j < 64; ++j) word |= bit_of(i + j) << j;
    std::memcpy(out, &word, 8);
    out += 8;
    set += std::popcount(word);
  }
  if (i < n) {
    const int64_t rest = n - i;
    uint64_t word = 0;
    for (int64_t j = 0; j < rest; ++j) word |= bit_of(i + j) << j;
    std::memcpy(out, &word, static_cast<size_t>(bit_util::BytesForBits(rest)));
    set += std::popcount(word);
  }
  return set;
}

/// Writes the validity of `array`'s values at `indices[0..n)` (an index of -1 is NULL when
/// kNullIndex) to `dst` from bit `dst_offset` on (see WriteBits). Returns the valid count.
template <bool kNullIndex>
int64_t GatherValidity(const Array& array, const int64_t* indices, int64_t n, uint8_t* dst,
                       int64_t dst_offset) {
  switch (ClassifyValidity(array)) {
    case ValidityKind::kAllValid:
      return WriteBits(n, dst, dst_offset, [&](int64_t i) -> uint64_t {
        if constexpr (kNullIndex) return indices[i] >= 0 ? 1u : 0u;
        return 1u;
      });
    case ValidityKind::kAllNull:
      return WriteBits(n, dst, dst_offset, [](int64_t) -> uint64_t { return 0u; });
    case ValidityKind::kBitmap:
      break;
  }
  const uint8_t* bits = array.validity();
  const int64_t off = array.offset();
  return WriteBits(n, dst, dst_offset, [&](int64_t i) -> uint64_t {
    const int64_t k = indices[i];
    if constexpr (kNullIndex) {
      if (k < 0) return 0u;
    }
    return BitAt(bits, off + k);
  });
}

/// Copies `length` bits from src at src_offset to dst at dst_offset, a word at a time.
/// Same contract as WriteBits for the bits of dst around the range.
inline void CopyBits(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
                     int64_t dst_offset) {
  if ((src_offset & 7) == 0 && (dst_offset & 7) == 0) {
    const int64_t whole = length >> 3;
    std::memcpy(dst + (dst_offset >> 3), src + (src_offset >> 3), static_cast<size_t>(whole));
    for (int64_t i = whole << 3; i < length; ++i) {
      bit_util::SetBitTo(dst, dst_offset + i, bit_util::GetBit(src, src_offset + i));
    }
    return;
  }
  WriteBits(length, dst, dst_offset,
            [&](int64_t i) -> uint64_t { return BitAt(src, src_offset + i); });
}

/// A value of W bytes, copied as a unit.
template <int W>
struct Word {
  uint8_t bytes[W];
};

/// dst[i] = src[indices[i]] for values of W bytes (a zero value for an index of -1 when
/// kNullIndex).
template <int W, bool kNullIndex>
void GatherFixed(const uint8_t* src, const int64_t* indices, int64_t n, uint8_t* dst) {
  if constexpr (W == 1 || W == 2 || W == 4 || W == 8) {
    using T = std::conditional_t<
        W == 1, uint8_t,
        std::conditional_t<W == 2, uint16_t, std::conditional_t<W == 4, uint32_t, uint64_t>>>;
    const T* s = reinterpret_cast<const T*>(src);
    T* d = reinterpret_cast<T*>(dst);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (kNullIndex) {
        d[i] = indices[i] >= 0 ? s[indices[i]] : T{0};
      } else {
        d[i] = s[indices[i]];
      }
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = indices[i];
      if constexpr (kNullIndex) {
        if (k < 0) {
          std::memset(dst + i * W, 0, W);
          continue;
        }
      }
      std::memcpy(dst + i * W, src + k * W, W);
    }
  }
}

/// GatherFixed for any width (`width` bytes per value).
template <bool kNullIndex>
void GatherFixedWidth(const uint8_t* src, int width, const int64_t* indices, int64_t n,
                      uint8_t* dst) {
  switch (width) {
    case 1:
      return GatherFixed<1, kNullIndex>(src, indices, n, dst);
    case 2:
      return GatherFixed<2, kNullIndex>(src, indices, n, dst);
    case 4:
      return GatherFixed<4, kNullIndex>(src, indices, n, dst);
    case 8:
      return GatherFixed<8, kNullIndex>(src, indices, n, dst);
    case 16:
      return GatherFixed<16, kNullIndex>(src, indices, n, dst);
    default:
      break;
  }
  const auto w = static_cast<size_t>(width);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = indices[i];
    if (kNullIndex && k < 0) {
      std::memset(dst + i * width, 0, w);
    } else {
      std::memcpy(dst + i * width, src + k * width, w);
    }
  }
}

/// The value bytes of a string/binary array's values at `indices` (-1 counts 0).
template <bool kNullIndex>
int64_t GatherBinaryBytes(const int32_t* offsets, const int64_t* indices, int64_t n) {
  int64_t bytes = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = indices[i];
    if constexpr (kNullIndex) {
      if (k < 0) continue;
    }
    bytes += offsets[k + 1] - offsets[k];
  }
  return bytes;
}

/// Copies the values at `indices` of a string/binary array (its offsets and data) to
/// `dst_data` from byte `base` on, writing the n end offsets (base + running length) to
/// `dst_offsets[0..n)`.
template <bool kNullIndex>
void GatherBinary(const int32_t* offsets, const uint8_t* data, const int64_t* indices, int64_t n,
                  int32_t* dst_offsets, uint8_t* dst_data, int64_t base) {
  int64_t pos = base;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = indices[i];
    if (!kNullIndex || k >= 0) {
      const int32_t start = offsets[k];
      const int32_t len = offsets[k + 1] - start;
      if (len > 0) std::memcpy(dst_data + pos, data + start, static_cast<size_t>(len));
      pos += len;
    }
    dst_offsets[i] = static_cast<int32_t>(pos);
  }
}

}  // namespace floe::internal
