#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace floe {

/// The offset of the first byte that does not begin a well-formed UTF-8 sequence (RFC 3629:
/// no overlong forms, no surrogates, nothing past U+10FFFF), or npos when `bytes` is
/// well-formed. ASCII runs are checked eight bytes at a time.
size_t InvalidUtf8Offset(std::string_view bytes);

/// True when every byte of data[0, size) is ASCII (below 0x80): 32 bytes a step.
bool IsAscii(const uint8_t* data, size_t size);

/// True when `bytes` is well-formed UTF-8.
inline bool IsValidUtf8(std::string_view bytes) {
  return InvalidUtf8Offset(bytes) == std::string_view::npos;
}

inline bool IsValidUtf8(const uint8_t* data, int64_t size) {
  return IsValidUtf8(
      std::string_view(reinterpret_cast<const char*>(data), static_cast<size_t>(size)));
}

/// Whether `c` continues a UTF-8 sequence (10xxxxxx) rather than beginning one.
constexpr bool IsUtf8Continuation(char c) { return (static_cast<uint8_t>(c) & 0xC0) == 0x80; }

/// The number of code points of UTF-8 text (the bytes that begin a sequence).
inline int64_t CountCodePoints(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += IsUtf8Continuation(c) ? 0 : 1;
  return n;
}

/// The code point of one well-formed UTF-8 sequence (1 to 4 bytes, all of `seq`).
inline char32_t DecodeCodePoint(std::string_view seq) {
  const auto b = [&](size_t k) { return static_cast<char32_t>(static_cast<uint8_t>(seq[k])); };
  switch (seq.size()) {
    case 1:
      return b(0);
    case 2:
      return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
      return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

/// Appends the UTF-8 encoding of code point `c` (at most U+10FFFF).
inline void AppendCodePoint(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

}  // namespace floe
