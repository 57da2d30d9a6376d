#pragma once

// ASCII case folding for names, keywords and property values (SQL identifiers, Iceberg
// property values such as "gzip" or "true"): bytes outside A-Z are left as they are, so
// UTF-8 text passes through unchanged.

#include <string>
#include <string_view>

namespace floe {

/// `c` lower-cased if it is an ASCII capital letter.
constexpr char AsciiToLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

/// `s` with its ASCII capital letters lower-cased.
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiToLower(c);
  return out;
}

/// `s` with its ASCII small letters upper-cased (option names in messages).
inline std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c;
  return out;
}

/// Whether `a` and `b` are equal ignoring ASCII case.
constexpr bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiToLower(a[i]) != AsciiToLower(b[i])) return false;
  }
  return true;
}

}  // namespace floe
