#include "floe/batch/utf8.h"

#include <cstring>

namespace floe {

bool IsAscii(const uint8_t* data, size_t size) {
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    uint64_t w[4];
    std::memcpy(w, data + i, 32);
    if (((w[0] | w[1] | w[2] | w[3]) & kHigh) != 0) return false;
  }
  uint8_t rest = 0;
  for (; i < size; ++i) rest |= data[i];
  return rest < 0x80;
}

size_t InvalidUtf8Offset(std::string_view bytes) {
  const auto* begin = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto* p = begin;
  const auto* end = p + bytes.size();
  while (p < end) {
    // Fast path: eight ASCII bytes at a time.
    if (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        p += 8;
        continue;
      }
    }
    unsigned c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int n;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return static_cast<size_t>(p - begin);
    }
    if (end - p <= n) return static_cast<size_t>(p - begin);
    for (int k = 1; k <= n; ++k) {
      if ((p[k] & 0xC0) != 0x80) return static_cast<size_t>(p - begin);
      cp = (cp << 6) | (p[k] & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return static_cast<size_t>(p - begin);
    }
    p += n + 1;
  }
  return std::string_view::npos;
}

}  // namespace floe
