#pragma once

// What the date/time and the numeric templates (formatting.h) share: reading literal text
// out of a template, character lengths, and the character classes PostgreSQL's readers use.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/ascii.h"

namespace floe::expr::internal {

/// The bytes of the UTF-8 character starting at `pos` (1 for a stray byte; never past the
/// end of `text`).
inline size_t CharLength(std::string_view text, size_t pos) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  size_t n = 1;
  if (lead >= 0xF0) {
    n = 4;
  } else if (lead >= 0xE0) {
    n = 3;
  } else if (lead >= 0xC0) {
    n = 2;
  }
  return std::min(n, text.size() - pos);
}

/// C's isspace in the C locale.
constexpr bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

constexpr bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

/// An ASCII punctuation character: printable, not a letter, digit or blank.
constexpr bool IsSeparatorChar(char c) {
  return c > 0x20 && c < 0x7F && !IsAsciiDigit(c) && !(c >= 'a' && c <= 'z') &&
         !(c >= 'A' && c <= 'Z');
}

/// Whether `text` at `pos` begins with `prefix`, ignoring ASCII case.
inline bool StartsWithIgnoreCase(std::string_view text, size_t pos, std::string_view prefix) {
  return text.size() - pos >= prefix.size() &&
         EqualsIgnoreAsciiCase(text.substr(pos, prefix.size()), prefix);
}

/// One character of a template's literal text.
struct LiteralChar {
  std::string text;     // the character (UTF-8)
  bool quoted = false;  // inside double quotes
};

/// Reads the literal text at `*pos` (where no pattern starts) and advances past it: a
/// double-quoted run gives its characters (a backslash there takes the next character as it
/// is; the run ends at the closing quote or the end of the template), anything else one
/// character (a backslash directly before a double quote stands for the quote).
inline std::vector<LiteralChar> ReadLiteral(std::string_view text, size_t* pos) {
  std::vector<LiteralChar> out;
  size_t i = *pos;
  if (text[i] == '"') {
    ++i;
    while (i < text.size() && text[i] != '"') {
      if (text[i] == '\\' && i + 1 < text.size()) ++i;
      const size_t n = CharLength(text, i);
      out.push_back({std::string(text.substr(i, n)), true});
      i += n;
    }
    if (i < text.size()) ++i;  // the closing quote
  } else {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '"') ++i;
    const size_t n = CharLength(text, i);
    out.push_back({std::string(text.substr(i, n)), false});
    i += n;
  }
  *pos = i;
  return out;
}

/// The English ordinal suffix of a number: "st", "nd", "rd" or "th" (11th, 12th, 13th).
inline std::string_view OrdinalSuffix(long long value) {
  const long long v = value < 0 ? -(value % 100) : value % 100;
  if (v >= 11 && v <= 13) return "th";
  switch (v % 10) {
    case 1:
      return "st";
    case 2:
      return "nd";
    case 3:
      return "rd";
    default:
      return "th";
  }
}

/// The suffix in upper case ("ST") when `upper`.
inline std::string Ordinal(long long value, bool upper) {
  std::string s(OrdinalSuffix(value));
  if (upper) {
    for (char& c : s) c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

}  // namespace floe::expr::internal
