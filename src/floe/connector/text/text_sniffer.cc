#include "floe/connector/text/text_sniffer.h"

#include <charconv>
#include <set>

#include "floe/common/ascii.h"
#include "floe/common/calendar.h"
#include "floe/expr/json.h"

namespace floe::connector {

namespace {

constexpr SniffMask Bit(SniffedType t) { return static_cast<SniffMask>(1u << t); }

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

bool IsBooleanText(std::string_view s) {
  for (std::string_view word : {"true", "false", "t", "f", "yes", "no"}) {
    if (EqualsIgnoreAsciiCase(s, word)) return true;
  }
  return false;
}

// -?digits without a leading zero, fitting 64 bits.
bool IsBigintText(std::string_view s) {
  std::string_view digits = s;
  if (!digits.empty() && digits.front() == '-') digits.remove_prefix(1);
  if (digits.empty() || digits.size() > 19) return false;
  for (char c : digits) {
    if (!IsDigit(c)) return false;
  }
  if (digits.size() > 1 && digits.front() == '0') return false;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size();
}

bool IsDoubleText(std::string_view s) {
  std::string_view body = s;
  if (!body.empty() && body.front() == '-') body.remove_prefix(1);
  for (std::string_view word : {"nan", "infinity", "inf"}) {
    if (EqualsIgnoreAsciiCase(body, word)) return word != "nan" || body.size() == s.size();
  }
  size_t i = 0;
  size_t int_digits = 0;
  while (i < body.size() && IsDigit(body[i])) ++i, ++int_digits;
  if (int_digits > 1 && body[0] == '0') return false;  // "007.5" is a code, not a number
  size_t frac_digits = 0;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && IsDigit(body[i])) ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < body.size() && IsDigit(body[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == body.size();
}

// Reads `n` digits at s[*i] into *value.
bool Digits(std::string_view s, size_t* i, size_t n, int* value) {
  if (*i + n > s.size()) return false;
  int v = 0;
  for (size_t k = 0; k < n; ++k) {
    const char c = s[*i + k];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *i += n;
  *value = v;
  return true;
}

// HH:MM[:SS[.fraction]] at s[*i] (hours of one or two digits).
bool ParseTimeAt(std::string_view s, size_t* i) {
  int hour = 0;
  int minute = 0;
  int second = 0;
  size_t p = *i;
  size_t hour_digits = p + 1 < s.size() && IsDigit(s[p + 1]) ? 2 : 1;
  if (!Digits(s, &p, hour_digits, &hour) || hour > 23) return false;
  if (p >= s.size() || s[p] != ':') return false;
  ++p;
  if (!Digits(s, &p, 2, &minute) || minute > 59) return false;
  if (p < s.size() && s[p] == ':') {
    ++p;
    if (!Digits(s, &p, 2, &second) || second > 60) return false;
    if (p < s.size() && s[p] == '.') {
      ++p;
      size_t start = p;
      while (p < s.size() && IsDigit(s[p])) ++p;
      if (p == start) return false;
    }
  }
  *i = p;
  return true;
}

// YYYY-MM-DD at s[*i].
bool ParseDateAt(std::string_view s, size_t* i) {
  int year = 0;
  int month = 0;
  int day = 0;
  size_t p = *i;
  if (!Digits(s, &p, 4, &year) || p >= s.size() || s[p] != '-') return false;
  ++p;
  if (!Digits(s, &p, 2, &month) || p >= s.size() || s[p] != '-') return false;
  ++p;
  if (!Digits(s, &p, 2, &day)) return false;
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) return false;
  *i = p;
  return true;
}

// A zone at s[i..]: Z, or +HH, +HH:MM, +HHMM (or -).
bool IsZoneAt(std::string_view s, size_t i) {
  if (i < s.size() && s[i] == ' ') ++i;
  if (i >= s.size()) return false;
  if (s[i] == 'Z' || s[i] == 'z') return i + 1 == s.size();
  if (s[i] != '+' && s[i] != '-') return false;
  ++i;
  int hour = 0;
  int minute = 0;
  if (!Digits(s, &i, 2, &hour) || hour > 15) return false;
  if (i == s.size()) return true;
  if (s[i] == ':') ++i;
  return Digits(s, &i, 2, &minute) && minute < 60 && i == s.size();
}

SniffMask TemporalMask(std::string_view s) {
  size_t i = 0;
  if (ParseTimeAt(s, &i) && i == s.size()) return Bit(kSniffTime);
  i = 0;
  if (!ParseDateAt(s, &i)) return 0;
  if (i == s.size()) return Bit(kSniffDate) | Bit(kSniffTimestamp) | Bit(kSniffTimestampTz);
  if (s[i] != ' ' && s[i] != 'T') return 0;
  ++i;
  if (!ParseTimeAt(s, &i)) return 0;
  if (i == s.size()) return Bit(kSniffTimestamp) | Bit(kSniffTimestampTz);
  return IsZoneAt(s, i) ? Bit(kSniffTimestampTz) : 0;
}

}  // namespace

SniffMask SniffValue(std::string_view value) {
  const std::string_view s = Trim(value);
  SniffMask mask = Bit(kSniffText);
  if (s.empty()) return mask;
  if (IsBooleanText(s)) return mask | Bit(kSniffBoolean);
  if (IsBigintText(s)) return mask | Bit(kSniffBigint) | Bit(kSniffDouble);
  if (IsDoubleText(s)) return mask | Bit(kSniffDouble);
  return mask | TemporalMask(s);
}

TypePtr SniffedTypeOf(SniffMask mask) {
  if (mask == kAllSniffed) return String();
  for (int t = 0; t < kSniffTypes; ++t) {
    if ((mask & Bit(static_cast<SniffedType>(t))) == 0) continue;
    switch (static_cast<SniffedType>(t)) {
      case kSniffBoolean:
        return Boolean();
      case kSniffBigint:
        return Int64();
      case kSniffDouble:
        return Float64();
      case kSniffTime:
        return Time();
      case kSniffDate:
        return Date();
      case kSniffTimestamp:
        return Timestamp();
      case kSniffTimestampTz:
        return TimestampTz();
      default:
        return String();
    }
  }
  return String();
}

std::vector<std::string> DeduplicateNames(std::vector<std::string> names) {
  std::set<std::string> seen;
  for (std::string& name : names) {
    if (seen.insert(name).second) continue;
    for (int k = 1;; ++k) {
      std::string candidate = name + "_" + std::to_string(k);
      if (seen.insert(candidate).second) {
        name = std::move(candidate);
        break;
      }
    }
  }
  return names;
}

CsvSniffResult SniffCsv(const std::vector<SampleRow>& rows, std::optional<bool> header,
                        bool all_text) {
  CsvSniffResult out;
  const size_t columns = rows.empty() ? 1 : std::max<size_t>(1, rows[0].size());
  // Masks over every row but the first, and the first row's own.
  std::vector<SniffMask> rest(columns, kAllSniffed);
  std::vector<SniffMask> first(columns, kAllSniffed);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < columns && c < rows[r].size(); ++c) {
      if (!rows[r][c]) continue;
      SniffMask& mask = r == 0 ? first[c] : rest[c];
      mask &= SniffValue(*rows[r][c]);
    }
  }
  if (header) {
    out.header = *header;
  } else if (!rows.empty()) {
    bool typed_column = false;
    bool differs = false;
    bool first_text_only = true;
    bool any_first = false;
    for (size_t c = 0; c < columns; ++c) {
      const bool has_first = c < rows[0].size() && rows[0][c].has_value();
      if (has_first) {
        any_first = true;
        if (first[c] != (1u << kSniffText)) first_text_only = false;
      }
      if (rest[c] == kAllSniffed || SniffedTypeOf(rest[c])->id() == TypeId::kString) continue;
      typed_column = true;
      // The column's type is the first of `rest`; does the first value have it?
      const SniffMask type_bit = static_cast<SniffMask>(rest[c] & -rest[c]);
      if (has_first && (first[c] & type_bit) == 0) differs = true;
    }
    out.header = typed_column ? differs : (any_first && first_text_only);
  }
  for (size_t c = 0; c < columns; ++c) {
    std::string name;
    if (out.header && c < rows[0].size() && rows[0][c] && !rows[0][c]->empty()) {
      name = *rows[0][c];
    } else {
      name = "column" + std::to_string(c);
    }
    out.names.push_back(std::move(name));
    const SniffMask mask = out.header ? rest[c] : SniffMask(rest[c] & first[c]);
    out.types.push_back(all_text ? String() : SniffedTypeOf(mask));
  }
  out.names = DeduplicateNames(std::move(out.names));
  return out;
}

void JsonSniffer::Add(const expr::JsonValue& object) {
  for (size_t k = 0; k < object.keys.size(); ++k) {
    const std::string& key = object.keys[k];
    auto [it, inserted] = index_.emplace(key, columns_.size());
    if (inserted) columns_.push_back(Column{key});
    Column& column = columns_[it->second];
    const expr::JsonValue& value = object.items[k];
    using Kind = Column::Kind;
    Kind kind = Kind::kJson;
    switch (value.kind) {
      case expr::JsonKind::kNull:
        continue;
      case expr::JsonKind::kBool:
        kind = Kind::kBoolean;
        break;
      case expr::JsonKind::kNumber:
        kind = Kind::kNumber;
        if (!IsBigintText(value.text) && value.text != "0") column.fractional = true;
        break;
      case expr::JsonKind::kString:
        kind = Kind::kString;
        column.strings &= static_cast<SniffMask>(
            TemporalMask(Trim(value.text)) | Bit(kSniffText));
        break;
      default:
        kind = Kind::kJson;
        break;
    }
    if (column.kind == Kind::kNone) {
      column.kind = kind;
    } else if (column.kind != kind) {
      column.kind = Kind::kJson;
    }
  }
}

std::vector<std::string> JsonSniffer::names() const {
  std::vector<std::string> out;
  for (const Column& c : columns_) out.push_back(c.name);
  return out;
}

std::vector<TypePtr> JsonSniffer::types() const {
  std::vector<TypePtr> out;
  for (const Column& c : columns_) {
    switch (c.kind) {
      case Column::Kind::kBoolean:
        out.push_back(Boolean());
        break;
      case Column::Kind::kNumber:
        out.push_back(c.fractional ? Float64() : Int64());
        break;
      case Column::Kind::kString:
        out.push_back(SniffedTypeOf(c.strings));
        break;
      default:
        out.push_back(Json());
        break;
    }
  }
  return out;
}

}  // namespace floe::connector
