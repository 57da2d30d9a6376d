#pragma once

#include <cstdint>
#include <string_view>

namespace floe {

/// True when `bytes` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates,
/// nothing past U+10FFFF). ASCII runs are checked eight bytes at a time.
bool IsValidUtf8(std::string_view bytes);

inline bool IsValidUtf8(const uint8_t* data, int64_t size) {
  return IsValidUtf8(
      std::string_view(reinterpret_cast<const char*>(data), static_cast<size_t>(size)));
}

}  // namespace floe
