#pragma once

// Bit packing, unpacking and LEB128 varints for the Parquet encodings. Private to
// floe/format/parquet.

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace floe::parquet::internal {

static_assert(std::endian::native == std::endian::little,
              "the Parquet encodings assume a little-endian host");

inline uint64_t LoadLE64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

/// Reads a ULEB128 varint of at most `max_bytes` bytes at `*pos`, advancing it. False when the
/// varint runs off `end` or is longer than `max_bytes`.
inline bool ReadUleb(const uint8_t** pos, const uint8_t* end, int max_bytes, uint64_t* out) {
  uint64_t v = 0;
  const uint8_t* p = *pos;
  for (int i = 0; i < max_bytes; ++i) {
    if (p == end) return false;
    uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      *pos = p;
      *out = v;
      return true;
    }
  }
  return false;
}

inline void AppendUleb(uint64_t v, std::vector<uint8_t>* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t ZigZagDecode(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

/// The number of bits needed to represent `v` (0 for 0).
inline int BitWidth(uint64_t v) { return v == 0 ? 0 : 64 - std::countl_zero(v); }

// Extracts value I of a group of eight W-bit values packed LSB first at `in`. Reads up to
// byte (I * W) / 8 + 8 (+1 when W > 56), so callers guarantee W + 9 readable bytes.
template <int W, int I, typename Out>
inline Out ExtractPacked(const uint8_t* in) {
  constexpr int kBit = I * W;
  constexpr int kByte = kBit / 8;
  constexpr int kShift = kBit % 8;
  constexpr uint64_t kMask = W == 64 ? ~uint64_t{0} : (uint64_t{1} << W) - 1;
  uint64_t word = LoadLE64(in + kByte) >> kShift;
  if constexpr (kShift + W > 64) {
    word |= static_cast<uint64_t>(in[kByte + 8]) << (64 - kShift);
  }
  return static_cast<Out>(word & kMask);
}

template <int W, typename Out, size_t... I>
inline void Unpack8(const uint8_t* in, Out* out, std::index_sequence<I...>) {
  ((out[I] = ExtractPacked<W, static_cast<int>(I), Out>(in)), ...);
}

// Unpacks `groups` groups of eight W-bit values from `in`, which holds `in_bytes` readable bytes
// (at least ceil of the packed size, possibly fewer for a truncated last group: missing bits read
// as zero).
template <int W, typename Out>
void UnpackGroups(const uint8_t* in, int64_t in_bytes, Out* out, int64_t groups) {
  if constexpr (W == 0) {
    std::memset(out, 0, sizeof(Out) * 8 * groups);
  } else {
    int64_t g = 0;
    // Fast path: whole 8-byte loads stay inside the input.
    for (; g < groups && (g + 1) * W + 9 <= in_bytes; ++g) {
      Unpack8<W, Out>(in + g * W, out + g * 8, std::make_index_sequence<8>());
    }
    for (; g < groups; ++g) {
      uint8_t padded[W + 16] = {};
      int64_t avail = in_bytes - g * W;
      if (avail > 0) std::memcpy(padded, in + g * W, avail < W ? avail : W);
      Unpack8<W, Out>(padded, out + g * 8, std::make_index_sequence<8>());
    }
  }
}

template <typename Out>
using UnpackFn = void (*)(const uint8_t*, int64_t, Out*, int64_t);

template <typename Out, size_t... W>
constexpr auto MakeUnpackTable(std::index_sequence<W...>) {
  return std::array<UnpackFn<Out>, sizeof...(W)>{&UnpackGroups<static_cast<int>(W), Out>...};
}

/// Unpacks `groups` groups of eight `width`-bit values (0 <= width <= 32) into uint32.
inline void Unpack32(const uint8_t* in, int64_t in_bytes, int width, uint32_t* out,
                     int64_t groups) {
  static constexpr auto kTable = MakeUnpackTable<uint32_t>(std::make_index_sequence<33>());
  kTable[width](in, in_bytes, out, groups);
}

/// Unpacks `groups` groups of eight `width`-bit values (0 <= width <= 64) into uint64.
inline void Unpack64(const uint8_t* in, int64_t in_bytes, int width, uint64_t* out,
                     int64_t groups) {
  static constexpr auto kTable = MakeUnpackTable<uint64_t>(std::make_index_sequence<65>());
  kTable[width](in, in_bytes, out, groups);
}

/// Appends `n` values of `width` bits (0..64), packed LSB first, padded with zero bits to a
/// whole byte.
template <typename T>
void PackBits(const T* values, int64_t n, int width, std::vector<uint8_t>* out) {
  if (width == 0 || n == 0) return;
  size_t start = out->size();
  out->resize(start + (n * width + 7) / 8);
  uint8_t* dst = out->data() + start;
  uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  // Bits accumulate in a 128-bit window so that a 64-bit value always fits beside leftovers.
  unsigned __int128 acc = 0;
  int bits = 0;
  for (int64_t i = 0; i < n; ++i) {
    acc |= static_cast<unsigned __int128>(static_cast<uint64_t>(values[i]) & mask) << bits;
    bits += width;
    while (bits >= 8) {
      *dst++ = static_cast<uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) *dst++ = static_cast<uint8_t>(acc);
}

}  // namespace floe::parquet::internal
