#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace floe {

/// The offset of the first byte that does not begin a well-formed UTF-8 sequence (RFC 3629:
/// no overlong forms, no surrogates, nothing past U+10FFFF), or npos when `bytes` is
/// well-formed. ASCII runs are checked eight bytes at a time.
size_t InvalidUtf8Offset(std::string_view bytes);

/// True when `bytes` is well-formed UTF-8.
inline bool IsValidUtf8(std::string_view bytes) {
  return InvalidUtf8Offset(bytes) == std::string_view::npos;
}

inline bool IsValidUtf8(const uint8_t* data, int64_t size) {
  return IsValidUtf8(
      std::string_view(reinterpret_cast<const char*>(data), static_cast<size_t>(size)));
}

}  // namespace floe
