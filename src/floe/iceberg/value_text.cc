#include "floe/iceberg/value_text.h"

#include <limits>

#include "floe/common/calendar.h"

namespace floe::iceberg {
namespace {

// Reads the text left to right; each method consumes only on success of its whole item.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  bool done() const { return i_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  bool Consume(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  // Between `min` and `max` digits (as many as there are, up to `max`); false if fewer.
  bool Digits(int min, int max, int64_t* out, int* count = nullptr) {
    int64_t v = 0;
    int n = 0;
    while (n < max && peek() >= '0' && peek() <= '9') {
      v = v * 10 + (peek() - '0');
      ++i_;
      ++n;
    }
    if (n < min) return false;
    *out = v;
    if (count != nullptr) *count = n;
    return true;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// [+|-]YYYY[Y...]: four digits, or a sign and four to nine (java.time's ISO year: a year
// beyond four digits needs its sign).
bool ReadDate(Cursor& c, int64_t* days) {
  const bool negative = c.Consume('-');
  const bool signed_year = negative || c.Consume('+');
  int64_t y = 0, m = 0, d = 0;
  int year_digits = 0;
  if (!c.Digits(4, signed_year ? 9 : 4, &y, &year_digits)) return false;
  if (negative) y = -y;
  if (!c.Consume('-') || !c.Digits(2, 2, &m) || !c.Consume('-') || !c.Digits(2, 2, &d)) {
    return false;
  }
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<int>(m))) return false;
  *days = DaysFromCivil(y, static_cast<int>(m), static_cast<int>(d));
  return true;
}

bool ReadTime(Cursor& c, int64_t* nanos) {
  int64_t h = 0, mi = 0, s = 0, frac = 0;
  if (!c.Digits(2, 2, &h) || !c.Consume(':') || !c.Digits(2, 2, &mi)) return false;
  if (c.Consume(':')) {
    if (!c.Digits(2, 2, &s)) return false;
    if (c.Consume('.')) {
      int digits = 0;
      if (!c.Digits(1, 9, &frac, &digits)) return false;
      for (; digits < 9; ++digits) frac *= 10;
    }
  }
  if (h > 23 || mi > 59 || s > 59) return false;
  *nanos = ((h * 60 + mi) * 60 + s) * kNanosPerSecond + frac;
  return true;
}

int HexDigit(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> ParseUuidText(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  std::string bytes;
  for (size_t i = 0; i < text.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return std::nullopt;
      ++i;
      continue;
    }
    const int hi = HexDigit(text[i]);
    const int lo = HexDigit(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    bytes.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return bytes;
}

std::optional<std::string> ParseHexText(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string bytes;
  for (size_t i = 0; i < text.size(); i += 2) {
    const int hi = HexDigit(text[i]);
    const int lo = HexDigit(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    bytes.push_back(static_cast<char>(hi * 16 + lo));
  }
  return bytes;
}

std::optional<int32_t> ParseIsoDate(std::string_view text) {
  Cursor c(text);
  int64_t days = 0;
  if (!ReadDate(c, &days) || !c.done()) return std::nullopt;
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(days);
}

std::optional<int64_t> ParseIsoTime(std::string_view text) {
  Cursor c(text);
  int64_t nanos = 0;
  if (!ReadTime(c, &nanos) || !c.done()) return std::nullopt;
  return nanos / 1000;
}

std::optional<IsoTimestamp> ParseIsoTimestamp(std::string_view text) {
  Cursor c(text);
  int64_t days = 0, tod = 0;
  if (!ReadDate(c, &days)) return std::nullopt;
  if (!c.Consume('T') && !c.Consume(' ')) return std::nullopt;
  if (!ReadTime(c, &tod)) return std::nullopt;
  IsoTimestamp out;
  int64_t offset_minutes = 0;
  if (c.Consume('Z')) {
    out.has_offset = true;
  } else if (c.peek() == '+' || c.peek() == '-') {
    const bool negative = c.peek() == '-';
    c.Consume(c.peek());
    int64_t oh = 0, om = 0;
    if (!c.Digits(2, 2, &oh)) return std::nullopt;
    if (c.Consume(':') && !c.Digits(2, 2, &om)) return std::nullopt;
    if (oh > 18 || om > 59 || oh * 60 + om > 18 * 60) return std::nullopt;
    offset_minutes = (oh * 60 + om) * (negative ? -1 : 1);
    out.has_offset = true;
  }
  if (!c.done()) return std::nullopt;
  out.nanos = static_cast<__int128>(days) * kMicrosPerDay * 1000 + tod -
              static_cast<__int128>(offset_minutes) * 60 * kNanosPerSecond;
  return out;
}

std::optional<int64_t> IsoTimestampUnits(const IsoTimestamp& value, bool nanos) {
  __int128 v = value.nanos;
  if (!nanos) v = v / 1000 - (v % 1000 < 0 ? 1 : 0);
  if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) {
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

}  // namespace floe::iceberg
