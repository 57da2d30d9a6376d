#pragma once

// Avro binary encoding primitives (Avro specification, "Binary Encoding"): zigzag
// varints, little-endian floats, length-prefixed bytes.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace floe::avro::internal {

inline int64_t ZigZagDecode(uint64_t v) {
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}
inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

/// Reads one zigzag varint of at most 10 bytes at `p`, advancing it. False when the
/// input ends first or the varint is longer than 10 bytes.
[[gnu::always_inline]] inline bool ReadVarLong(const uint8_t*& p, const uint8_t* end, int64_t* out) {
  if (end - p >= 10) [[likely]] {
    uint64_t b = p[0];
    if (b < 0x80) {
      ++p;
      *out = ZigZagDecode(b);
      return true;
    }
    uint64_t v = b & 0x7f;
    for (int i = 1; i < 10; ++i) {
      b = p[i];
      v |= (b & 0x7f) << (7 * i);
      if (b < 0x80) {
        p += i + 1;
        *out = ZigZagDecode(v);
        return true;
      }
    }
    return false;
  }
  uint64_t v = 0;
  for (int i = 0; i < 10 && p + i < end; ++i) {
    uint64_t b = p[i];
    v |= (b & 0x7f) << (7 * i);
    if (b < 0x80) {
      p += i + 1;
      *out = ZigZagDecode(v);
      return true;
    }
  }
  return false;
}

/// Appends the zigzag varint of `v` to `out`.
inline void WriteVarLong(std::string* out, int64_t v) {
  uint64_t u = ZigZagEncode(v);
  char buf[10];
  int n = 0;
  while (u >= 0x80) {
    buf[n++] = static_cast<char>((u & 0x7f) | 0x80);
    u >>= 7;
  }
  buf[n++] = static_cast<char>(u);
  out->append(buf, static_cast<size_t>(n));
}

inline void WriteBytes(std::string* out, std::string_view bytes) {
  WriteVarLong(out, static_cast<int64_t>(bytes.size()));
  out->append(bytes);
}

}  // namespace floe::avro::internal
