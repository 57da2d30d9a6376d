#include "floe/batch/value_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "floe/common/calendar.h"
#include "floe/common/interval.h"
#include "floe/common/numeric.h"

namespace floe {

namespace {

constexpr char kHex[] = "0123456789abcdef";

void AppendPadded(int64_t v, int width, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  for (int64_t n = r.ptr - buf; n < width; ++n) out->push_back('0');
  out->append(buf, r.ptr);
}

// Appends YYYY-MM-DD for days since 1970-01-01 (proleptic Gregorian) and returns
// whether the year is BC (PostgreSQL prints year 0 as 1 BC, -1 as 2 BC, ...).
bool AppendYmd(int64_t days, std::string* out) {
  const CivilDate date = CivilFromDays(days);
  const int64_t m = date.month;
  const int64_t d = date.day;
  int64_t y = date.year;
  const bool bc = y <= 0;
  if (bc) y = 1 - y;
  AppendPadded(y, 4, out);
  out->push_back('-');
  AppendPadded(m, 2, out);
  out->push_back('-');
  AppendPadded(d, 2, out);
  return bc;
}

// hh:mm:ss[.fraction] with trailing zeros of the fraction dropped.
void AppendClock(int64_t seconds_of_day, int64_t fraction, int digits, std::string* out) {
  AppendPadded(seconds_of_day / 3600, 2, out);
  out->push_back(':');
  AppendPadded(seconds_of_day / 60 % 60, 2, out);
  out->push_back(':');
  AppendPadded(seconds_of_day % 60, 2, out);
  if (fraction == 0) return;
  while (fraction % 10 == 0) {
    fraction /= 10;
    --digits;
  }
  out->push_back('.');
  AppendPadded(fraction, digits, out);
}

template <typename F>
void AppendFloatText(F value, int fixed_exponent_limit, std::string* out) {
  if (std::isnan(value)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(value)) {
    out->append(value < 0 ? "-Infinity" : "Infinity");
    return;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
  const size_t e = s.find('e');
  int exponent = 0;
  std::from_chars(s.data() + e + (s[e + 1] == '+' ? 2 : 1), s.data() + s.size(), exponent);
  // PostgreSQL (like printf's %g) switches to exponent form outside [-4, limit).
  if (exponent < -4 || exponent >= fixed_exponent_limit) {
    out->append(s);
    return;
  }
  std::string_view mantissa = s.substr(0, e);
  if (!mantissa.empty() && mantissa[0] == '-') {
    out->push_back('-');
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }
  if (exponent < 0) {
    out->append("0.");
    out->append(static_cast<size_t>(-exponent - 1), '0');
    out->append(digits);
    return;
  }
  const auto int_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= int_digits) {
    out->append(digits);
    out->append(int_digits - digits.size(), '0');
  } else {
    out->append(digits, 0, int_digits);
    out->push_back('.');
    out->append(digits, int_digits);
  }
}

bool IsPgSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool EqualsNullLiteral(std::string_view s) {
  return s.size() == 4 && (s[0] | 0x20) == 'n' && (s[1] | 0x20) == 'u' && (s[2] | 0x20) == 'l' &&
         (s[3] | 0x20) == 'l';
}

// array_out's rule: quote empty strings, the NULL literal, and anything with
// delimiters, braces, quotes, backslashes or white space; escape " and \ with \.
// Maps also quote '=' and '>' so that "=>" stays unambiguous.
void AppendArrayElement(std::string_view s, bool map_entry, std::string* out) {
  bool quote = s.empty() || EqualsNullLiteral(s);
  for (char c : s) {
    if (c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || IsPgSpace(c) ||
        (map_entry && (c == '=' || c == '>'))) {
      quote = true;
      break;
    }
  }
  if (!quote) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('"');
}

// record_out's rule: quote empty strings and anything with parentheses, commas,
// quotes, backslashes or white space; double " and \.
void AppendRowField(std::string_view s, std::string* out) {
  bool quote = s.empty();
  for (char c : s) {
    if (c == '(' || c == ')' || c == ',' || c == '"' || c == '\\' || IsPgSpace(c)) {
      quote = true;
      break;
    }
  }
  if (!quote) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') out->push_back(c);
    out->push_back(c);
  }
  out->push_back('"');
}

// Appends the text of a non-null value.
void AppendText(const Array& a, int64_t i, std::string* out);

// Appends the text of element `i` of `a` inside an array or map literal.
void AppendElementText(const Array& a, int64_t i, bool map_entry, std::string* out) {
  if (a.IsNull(i)) {
    out->append("NULL");
    return;
  }
  if (a.type_id() == TypeId::kList && !map_entry) {
    // Nested arrays are written inline, as in a multi-dimensional PostgreSQL array.
    AppendText(a, i, out);
    return;
  }
  std::string text;
  AppendText(a, i, &text);
  AppendArrayElement(text, map_entry, out);
}

void AppendText(const Array& a, int64_t i, std::string* out) {
  const DataType& t = *a.type();
  switch (t.id()) {
    case TypeId::kBoolean:
      out->push_back(a.BoolValue(i) ? 't' : 'f');
      return;
    case TypeId::kInt8:
      AppendPadded(a.Value<int8_t>(i), 0, out);
      return;
    case TypeId::kInt16:
      AppendPadded(a.Value<int16_t>(i), 0, out);
      return;
    case TypeId::kInt32:
      AppendPadded(a.Value<int32_t>(i), 0, out);
      return;
    case TypeId::kInt64:
      AppendPadded(a.Value<int64_t>(i), 0, out);
      return;
    case TypeId::kFloat32:
      AppendFloat32Text(a.Value<float>(i), out);
      return;
    case TypeId::kFloat64:
      AppendFloat64Text(a.Value<double>(i), out);
      return;
    case TypeId::kDecimal:
      AppendDecimalText(a.DecimalValue(i), t.scale(), out);
      return;
    case TypeId::kDate:
      AppendDateText(a.Value<int32_t>(i), out);
      return;
    case TypeId::kTime:
      AppendTimeText(a.Value<int64_t>(i), out);
      return;
    case TypeId::kTimestamp:
      AppendTimestampText(a.Value<int64_t>(i), false, false, out);
      return;
    case TypeId::kTimestampTz:
      AppendTimestampText(a.Value<int64_t>(i), false, true, out);
      return;
    case TypeId::kTimestampNs:
      AppendTimestampText(a.Value<int64_t>(i), true, false, out);
      return;
    case TypeId::kTimestampTzNs:
      AppendTimestampText(a.Value<int64_t>(i), true, true, out);
      return;
    case TypeId::kString:
      out->append(a.BytesValue(i));
      return;
    case TypeId::kBinary:
    case TypeId::kFixed:
      if (t.is_interval()) {
        AppendIntervalText(IntervalFromBytes(a.BytesValue(i)), out);
        return;
      }
      if (t.is_numeric()) {
        AppendNumericText(NumericFromBytes(a.BytesValue(i)), out);
        return;
      }
      AppendByteaText(a.BytesValue(i), out);
      return;
    case TypeId::kUuid:
      AppendUuidText(a.BytesValue(i), out);
      return;
    case TypeId::kStruct: {
      out->push_back('(');
      std::string field;
      for (int k = 0; k < a.num_children(); ++k) {
        if (k > 0) out->push_back(',');
        const Array& c = *a.child(k);
        const int64_t j = a.offset() + i;
        if (c.IsNull(j)) continue;
        field.clear();
        AppendText(c, j, &field);
        AppendRowField(field, out);
      }
      out->push_back(')');
      return;
    }
    case TypeId::kList: {
      out->push_back('{');
      const Array& c = *a.child(0);
      for (int64_t j = a.ListBegin(i); j < a.ListEnd(i); ++j) {
        if (j > a.ListBegin(i)) out->push_back(',');
        AppendElementText(c, j, false, out);
      }
      out->push_back('}');
      return;
    }
    case TypeId::kMap: {
      out->push_back('{');
      const Array& entries = *a.child(0);
      const Array& keys = *entries.child(0);
      const Array& values = *entries.child(1);
      for (int64_t j = a.ListBegin(i); j < a.ListEnd(i); ++j) {
        if (j > a.ListBegin(i)) out->push_back(',');
        AppendElementText(keys, entries.offset() + j, true, out);
        out->append("=>");
        AppendElementText(values, entries.offset() + j, true, out);
      }
      out->push_back('}');
      return;
    }
  }
}

// JSON -------------------------------------------------------------------------------

void AppendJsonFloat(double v, bool is_float32, std::string* out) {
  if (std::isnan(v) || std::isinf(v)) {
    out->push_back('"');
    AppendFloat64Text(v, out);
    out->push_back('"');
    return;
  }
  if (is_float32) {
    AppendFloat32Text(static_cast<float>(v), out);
  } else {
    AppendFloat64Text(v, out);
  }
}

void AppendJson(const Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) {
    out->append("null");
    return;
  }
  const DataType& t = *a.type();
  switch (t.id()) {
    case TypeId::kBoolean:
      out->append(a.BoolValue(i) ? "true" : "false");
      return;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDecimal:
      AppendText(a, i, out);
      return;
    case TypeId::kFloat32:
      AppendJsonFloat(a.Value<float>(i), true, out);
      return;
    case TypeId::kFloat64:
      AppendJsonFloat(a.Value<double>(i), false, out);
      return;
    case TypeId::kString:
      AppendJsonString(a.BytesValue(i), out);
      return;
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid: {
      // A numeric is a JSON number, but NaN and the infinities are strings (as PostgreSQL's).
      if (t.is_numeric() && NumericFromBytes(a.BytesValue(i)).is_finite()) {
        AppendText(a, i, out);
        return;
      }
      std::string text;
      AppendText(a, i, &text);
      AppendJsonString(text, out);
      return;
    }
    case TypeId::kStruct: {
      out->push_back('{');
      for (int k = 0; k < a.num_children(); ++k) {
        if (k > 0) out->push_back(',');
        AppendJsonString(t.field(k).name(), out);
        out->push_back(':');
        AppendJson(*a.child(k), a.offset() + i, out);
      }
      out->push_back('}');
      return;
    }
    case TypeId::kList: {
      out->push_back('[');
      for (int64_t j = a.ListBegin(i); j < a.ListEnd(i); ++j) {
        if (j > a.ListBegin(i)) out->push_back(',');
        AppendJson(*a.child(0), j, out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kMap: {
      const Array& entries = *a.child(0);
      const Array& keys = *entries.child(0);
      const Array& values = *entries.child(1);
      const bool object = keys.type_id() == TypeId::kString;
      out->push_back(object ? '{' : '[');
      for (int64_t j = a.ListBegin(i); j < a.ListEnd(i); ++j) {
        if (j > a.ListBegin(i)) out->push_back(',');
        const int64_t e = entries.offset() + j;
        if (object) {
          AppendJsonString(keys.BytesValue(e), out);
          out->push_back(':');
          AppendJson(values, e, out);
        } else {
          out->append("{\"key\":");
          AppendJson(keys, e, out);
          out->append(",\"value\":");
          AppendJson(values, e, out);
          out->push_back('}');
        }
      }
      out->push_back(object ? '}' : ']');
      return;
    }
  }
}

// Scalars ----------------------------------------------------------------------------

int64_t ScalarInt(const Scalar& s) {
  if (const auto* v = std::get_if<int32_t>(&s.value())) return *v;
  if (const auto* v = std::get_if<int64_t>(&s.value())) return *v;
  return 0;
}

// Appends the text of a non-null scalar; false for nested or malformed scalars.
bool AppendScalarText(const Scalar& s, std::string* out) {
  const DataType& t = *s.type();
  const auto& v = s.value();
  switch (t.id()) {
    case TypeId::kBoolean:
      if (!std::holds_alternative<bool>(v)) return false;
      out->push_back(s.get<bool>() ? 't' : 'f');
      return true;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      AppendPadded(ScalarInt(s), 0, out);
      return true;
    case TypeId::kFloat32:
      if (!std::holds_alternative<float>(v)) return false;
      AppendFloat32Text(s.get<float>(), out);
      return true;
    case TypeId::kFloat64:
      if (!std::holds_alternative<double>(v)) return false;
      AppendFloat64Text(s.get<double>(), out);
      return true;
    case TypeId::kDecimal:
      if (!std::holds_alternative<Int128>(v)) return false;
      AppendDecimalText(s.get<Int128>(), t.scale(), out);
      return true;
    case TypeId::kDate:
      AppendDateText(static_cast<int32_t>(ScalarInt(s)), out);
      return true;
    case TypeId::kTime:
      AppendTimeText(ScalarInt(s), out);
      return true;
    case TypeId::kTimestamp:
      AppendTimestampText(ScalarInt(s), false, false, out);
      return true;
    case TypeId::kTimestampTz:
      AppendTimestampText(ScalarInt(s), false, true, out);
      return true;
    case TypeId::kTimestampNs:
      AppendTimestampText(ScalarInt(s), true, false, out);
      return true;
    case TypeId::kTimestampTzNs:
      AppendTimestampText(ScalarInt(s), true, true, out);
      return true;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid: {
      if (!std::holds_alternative<std::string>(v)) return false;
      const std::string& b = s.get<std::string>();
      if (t.id() == TypeId::kString) {
        out->append(b);
      } else if (t.is_interval() && b.size() == static_cast<size_t>(kIntervalBytes)) {
        AppendIntervalText(IntervalFromBytes(b), out);
      } else if (t.is_numeric() && b.size() == static_cast<size_t>(kNumericBytes)) {
        AppendNumericText(NumericFromBytes(b), out);
      } else if (t.id() == TypeId::kUuid && b.size() == 16) {
        AppendUuidText(b, out);
      } else {
        AppendByteaText(b, out);
      }
      return true;
    }
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      return false;
  }
  return false;
}

}  // namespace

void AppendArrayElementText(std::string_view s, std::string* out) {
  AppendArrayElement(s, false, out);
}

void AppendRecordFieldText(std::string_view s, std::string* out) { AppendRowField(s, out); }

void AppendFloat64Text(double value, std::string* out, int extra_float_digits) {
  if (extra_float_digits > 0 || !std::isfinite(value)) {
    AppendFloatText(value, 15, out);
  } else {
    // float8out with extra_float_digits <= 0: %.*g with DBL_DIG + extra_float_digits digits.
    out->append(fmt::format("{:.{}g}", value, std::max(1, 15 + extra_float_digits)));
  }
}

void AppendFloat32Text(float value, std::string* out, int extra_float_digits) {
  if (extra_float_digits > 0 || !std::isfinite(value)) {
    AppendFloatText(value, 6, out);
  } else {
    // float4out: FLT_DIG + extra_float_digits digits of the value widened to double.
    out->append(
        fmt::format("{:.{}g}", static_cast<double>(value), std::max(1, 6 + extra_float_digits)));
  }
}

void AppendInt128Text(Int128 value, std::string* out) {
  using U = unsigned __int128;
  U mag = value < 0 ? U(0) - static_cast<U>(value) : static_cast<U>(value);
  char buf[48];
  char* p = buf + sizeof(buf);
  do {
    *--p = static_cast<char>('0' + static_cast<int>(mag % 10));
    mag /= 10;
  } while (mag != 0);
  if (value < 0) out->push_back('-');
  out->append(p, buf + sizeof(buf));
}

void AppendDecimalText(Int128 unscaled, int scale, std::string* out) {
  std::string digits;
  AppendInt128Text(unscaled, &digits);
  std::string_view mag = digits;
  if (unscaled < 0) {
    out->push_back('-');
    mag.remove_prefix(1);
  }
  if (scale <= 0) {
    out->append(mag);
    return;
  }
  const auto s = static_cast<size_t>(scale);
  if (mag.size() <= s) {
    out->append("0.");
    out->append(s - mag.size(), '0');
    out->append(mag);
    return;
  }
  out->append(mag.substr(0, mag.size() - s));
  out->push_back('.');
  out->append(mag.substr(mag.size() - s));
}

void AppendDateText(int32_t days, std::string* out) {
  // PostgreSQL's 'infinity' and '-infinity' are the ends of the int32 range.
  if (days == INT32_MAX || days == INT32_MIN) {
    out->append(days == INT32_MAX ? "infinity" : "-infinity");
    return;
  }
  if (AppendYmd(days, out)) out->append(" BC");
}

// A time of day is 0 <= micros < 24 h; anything else (a corrupt file can hold any int64)
// prints as a signed duration in hours, minutes and seconds.
void AppendTimeText(int64_t micros, std::string* out) {
  if (micros < 0) out->push_back('-');
  const uint64_t magnitude = micros < 0 ? 0 - static_cast<uint64_t>(micros) : micros;
  AppendClock(static_cast<int64_t>(magnitude / kMicrosPerSecond),
              static_cast<int64_t>(magnitude % kMicrosPerSecond), 6, out);
}

void AppendTimestampText(int64_t value, bool nanos, bool with_zone, std::string* out) {
  // PostgreSQL's 'infinity' and '-infinity' are the ends of the int64 range.
  if (value == INT64_MAX || value == INT64_MIN) {
    out->append(value == INT64_MAX ? "infinity" : "-infinity");
    return;
  }
  const int64_t per_second = nanos ? kNanosPerSecond : kMicrosPerSecond;
  const int64_t seconds = FloorDiv(value, per_second);
  const bool bc = AppendYmd(FloorDiv(seconds, 86400), out);
  out->push_back(' ');
  AppendClock(FloorMod(seconds, 86400), FloorMod(value, per_second), nanos ? 9 : 6, out);
  if (with_zone) out->append("+00");
  if (bc) out->append(" BC");
}

void AppendIsoDateText(int64_t days, std::string* out) {
  const CivilDate date = CivilFromDays(days);
  if (date.year < 0) {
    out->push_back('-');
  } else if (date.year > 9999) {
    out->push_back('+');
  }
  AppendPadded(date.year < 0 ? -date.year : date.year, 4, out);
  out->push_back('-');
  AppendPadded(date.month, 2, out);
  out->push_back('-');
  AppendPadded(date.day, 2, out);
}

void AppendIsoTimestampText(int64_t value, bool nanos, bool with_zone, std::string* out) {
  const int64_t per_second = nanos ? kNanosPerSecond : kMicrosPerSecond;
  const int64_t seconds = FloorDiv(value, per_second);
  AppendIsoDateText(FloorDiv(seconds, 86400), out);
  out->push_back('T');
  AppendClock(FloorMod(seconds, 86400), FloorMod(value, per_second), nanos ? 9 : 6, out);
  if (with_zone) out->append("+00:00");
}

void AppendByteaText(std::string_view bytes, std::string* out) {
  out->append("\\x");
  for (unsigned char c : bytes) {
    out->push_back(kHex[c >> 4]);
    out->push_back(kHex[c & 15]);
  }
}

void AppendUuidText(std::string_view bytes, std::string* out) {
  for (size_t k = 0; k < bytes.size(); ++k) {
    if (k == 4 || k == 6 || k == 8 || k == 10) out->push_back('-');
    const auto c = static_cast<unsigned char>(bytes[k]);
    out->push_back(kHex[c >> 4]);
    out->push_back(kHex[c & 15]);
  }
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

void AppendValueText(const Array& array, int64_t i, std::string* out,
                     const FormatOptions& options) {
  if (array.IsNull(i)) {
    out->append(options.null_text);
    return;
  }
  if (array.type_id() == TypeId::kFloat64) {
    AppendFloat64Text(array.Value<double>(i), out, options.extra_float_digits);
    return;
  }
  if (array.type_id() == TypeId::kFloat32) {
    AppendFloat32Text(array.Value<float>(i), out, options.extra_float_digits);
    return;
  }
  AppendText(array, i, out);
}

std::string FormatValue(const Array& array, int64_t i, const FormatOptions& options) {
  std::string out;
  AppendValueText(array, i, &out, options);
  return out;
}

void AppendJsonValue(const Array& array, int64_t i, std::string* out) { AppendJson(array, i, out); }

std::string FormatScalar(const Scalar& scalar, const FormatOptions& options) {
  if (scalar.is_null() || !scalar.type()) return std::string(options.null_text);
  std::string out;
  if (!AppendScalarText(scalar, &out)) return "<invalid " + scalar.type()->ToString() + ">";
  return out;
}

void AppendJsonScalar(const Scalar& scalar, std::string* out) {
  if (scalar.is_null() || !scalar.type()) {
    out->append("null");
    return;
  }
  const auto& v = scalar.value();
  switch (scalar.type()->id()) {
    case TypeId::kBoolean:
      if (const auto* b = std::get_if<bool>(&v)) {
        out->append(*b ? "true" : "false");
        return;
      }
      break;
    case TypeId::kFloat32:
      if (const auto* f = std::get_if<float>(&v)) {
        AppendJsonFloat(*f, true, out);
        return;
      }
      break;
    case TypeId::kFloat64:
      if (const auto* d = std::get_if<double>(&v)) {
        AppendJsonFloat(*d, false, out);
        return;
      }
      break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDecimal:
      if (AppendScalarText(scalar, out)) return;
      break;
    default: {
      std::string text;
      if (AppendScalarText(scalar, &text)) {
        if (scalar.type()->is_numeric() &&
            NumericFromBytes(scalar.get<std::string>()).is_finite()) {
          out->append(text);
          return;
        }
        AppendJsonString(text, out);
        return;
      }
      break;
    }
  }
  out->append("null");
}

}  // namespace floe
