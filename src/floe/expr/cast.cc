// CAST between types with PostgreSQL's rules and error messages.

#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/common/ascii.h"
#include "floe/common/logging.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/interval_internal.h"
#include "floe/expr/json_internal.h"
#include "floe/expr/numeric_internal.h"
#include "floe/type/sql_type_name.h"
#include "floe/type/type_visit.h"

namespace floe::expr::internal {

namespace {

bool IsPgSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsPgSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsPgSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

Status InvalidSyntax(std::string_view type_name, std::string_view text) {
  return Status::Invalid("invalid input syntax for type {}: \"{}\"", type_name, text);
}

template <typename T>
bool FitsInt(int64_t v) {
  return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
}

// Value i of an integer array (the callers pass integers only).
int64_t IntAt(const Array& a, int64_t i) {
  return VisitPhysicalType(a.type_id(), [&]<typename T>(TypeTag<T>) -> int64_t {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, Int128>) {
      return static_cast<int64_t>(a.Value<T>(i));
    } else {
      FLOE_DCHECK(false, "IntAt of a non-integer array");
      return 0;
    }
  });
}

double FloatAt(const Array& a, int64_t i) {
  return a.type_id() == TypeId::kFloat32 ? a.Value<float>(i) : a.Value<double>(i);
}

Int128 Abs128(Int128 v) { return v < 0 ? -v : v; }

// Rounds value / 10^digits half away from zero.
Int128 DivRoundPow10(Int128 value, int digits) {
  if (digits <= 0) return value;
  if (digits > 38) return 0;
  const Int128 p = Pow10(digits);
  Int128 q = value / p;
  const Int128 r = value % p;
  if (Abs128(r) * 2 >= p) q += value < 0 ? -1 : 1;
  return q;
}

// Builds an array of `n` values by calling fn(i, &value) for each non-null input row
// (rows where `in` is null stay null).
template <typename Builder, typename Value, typename Fn>
Result<ArrayPtr> BuildValues(const Array& in, const TypePtr& to, MemoryPool* pool, Fn&& fn) {
  Builder builder(to, pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(in.length()));
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    Value v{};
    FLOE_RETURN_NOT_OK(fn(i, &v));
    FLOE_RETURN_NOT_OK(builder.Append(v));
  }
  return builder.Finish();
}

template <typename Fn>
Result<ArrayPtr> BuildBools(const Array& in, MemoryPool* pool, Fn&& fn) {
  BooleanBuilder builder(pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(in.length()));
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    bool v = false;
    FLOE_RETURN_NOT_OK(fn(i, &v));
    builder.UnsafeAppend(v);
  }
  return builder.Finish();
}

// fn(i, std::string* out) appends the value's bytes.
template <typename Fn>
Result<ArrayPtr> BuildBytes(const Array& in, const TypePtr& to, MemoryPool* pool, Fn&& fn) {
  auto builder = MakeBuilder(to, pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(in.length()));
  std::string buf;
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    buf.clear();
    FLOE_RETURN_NOT_OK(fn(i, &buf));
    if (to->id() == TypeId::kString || to->id() == TypeId::kBinary) {
      FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(builder.get())->Append(buf));
    } else {
      FLOE_RETURN_NOT_OK(static_cast<FixedSizeBinaryBuilder*>(builder.get())->Append(buf));
    }
  }
  return builder->Finish();
}

// ---------------------------------------------------------------------------------------
// Text input.

Result<int64_t> ParseInt(std::string_view text, TypeId to) {
  const std::string_view s = Trim(text);
  const std::string_view type_name = SqlTypeName(to);
  size_t pos = 0;
  bool negative = false;
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    negative = s[pos] == '-';
    ++pos;
  }
  if (pos == s.size()) return InvalidSyntax(type_name, text);
  // Accumulate negatively so INT64_MIN parses.
  int64_t value = 0;
  bool overflow = false;
  for (; pos < s.size(); ++pos) {
    const char c = s[pos];
    if (c == '_' && pos > 0 && IsDigit(s[pos - 1]) && pos + 1 < s.size() && IsDigit(s[pos + 1])) {
      continue;
    }
    if (!IsDigit(c)) return InvalidSyntax(type_name, text);
    const int d = c - '0';
    if (value < (std::numeric_limits<int64_t>::min() + d) / 10) overflow = true;
    if (!overflow) value = value * 10 - d;
  }
  if (!negative) {
    // INT64_MIN has no positive counterpart: "9223372036854775808" is out of range.
    if (value == std::numeric_limits<int64_t>::min()) {
      overflow = true;
    } else {
      value = -value;
    }
  }
  bool fits = !overflow;
  if (fits) {
    switch (to) {
      case TypeId::kInt8:
        fits = FitsInt<int8_t>(value);
        break;
      case TypeId::kInt16:
        fits = FitsInt<int16_t>(value);
        break;
      case TypeId::kInt32:
        fits = FitsInt<int32_t>(value);
        break;
      default:
        break;
    }
  }
  if (!fits) {
    return Status::Invalid("value \"{}\" is out of range for type {}", text, type_name);
  }
  return value;
}

Result<double> ParseFloat(std::string_view text, bool is_float32) {
  const std::string_view type_name = SqlTypeName(is_float32 ? TypeId::kFloat32 : TypeId::kFloat64);
  std::string s(Trim(text));
  if (s.empty()) return InvalidSyntax(type_name, text);
  std::string_view body = s;
  bool negative = false;
  if (body[0] == '+' || body[0] == '-') {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (EqualsIgnoreAsciiCase(s, "nan")) return std::numeric_limits<double>::quiet_NaN();
  if (EqualsIgnoreAsciiCase(body, "infinity") || EqualsIgnoreAsciiCase(body, "inf")) {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  // strtod would also accept "nan(...)", hex floats and "infinity" spellings handled above.
  for (char c : body) {
    if (!(IsDigit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
      return InvalidSyntax(type_name, text);
    }
  }
  errno = 0;
  char* end = nullptr;
  if (is_float32) {
    // Rounded once, from the decimal text to the nearest float: through a double it would
    // be rounded twice, one unit in the last place off for some inputs.
    const float f = std::strtof(s.c_str(), &end);
    if (end != s.c_str() + s.size()) return InvalidSyntax(type_name, text);
    // An underflow to a subnormal value is one (as in PostgreSQL); to zero it is not.
    if (errno == ERANGE && (f == 0.0f || std::isinf(f))) {
      return Status::Invalid("\"{}\" is out of range for type real", Trim(text));
    }
    return f;
  }
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return InvalidSyntax(type_name, text);
  if (errno == ERANGE && (std::isinf(v) || v == 0.0)) {
    return Status::Invalid("\"{}\" is out of range for type double precision", Trim(text));
  }
  return v;
}

Result<bool> ParseBool(std::string_view text) {
  const std::string_view s = Trim(text);
  std::string lower;
  for (char c : s) lower.push_back(AsciiToLower(c));
  auto is_prefix = [&](std::string_view word, size_t min_len) {
    return lower.size() >= min_len && lower.size() <= word.size() &&
           word.substr(0, lower.size()) == lower;
  };
  if (is_prefix("true", 1) || is_prefix("yes", 1) || lower == "on" || lower == "1") return true;
  if (is_prefix("false", 1) || is_prefix("no", 1) || is_prefix("off", 2) || lower == "0") {
    return false;
  }
  return InvalidSyntax("boolean", text);
}

// bytea input: "\x" hex or the escape format.
Status ParseBytea(std::string_view text, std::string* out) {
  if (text.size() >= 2 && text[0] == '\\' && (text[1] == 'x' || text[1] == 'X')) {
    return ParseHexBytes(text.substr(2), out);
  }
  return ParseEscapedBytes(text, out);
}

Status ParseUuid(std::string_view text, std::string* out) {
  std::string_view s = text;
  if (s.size() >= 2 && s.front() == '{' && s.back() == '}') s = s.substr(1, s.size() - 2);
  int digits = 0;
  int hi = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    if (v < 0) {
      // A hyphen may follow any group of four digits.
      if (c == '-' && digits > 0 && digits % 4 == 0 && digits < 32 && i + 1 < s.size() &&
          s[i + 1] != '-') {
        continue;
      }
      return InvalidSyntax("uuid", text);
    }
    if (digits >= 32) return InvalidSyntax("uuid", text);
    if (hi < 0) {
      hi = v;
    } else {
      out->push_back(static_cast<char>(hi * 16 + v));
      hi = -1;
    }
    ++digits;
  }
  if (digits != 32) return InvalidSyntax("uuid", text);
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Casts by target.

Result<ArrayPtr> CastToString(const Array& in, const TypePtr& to, MemoryPool* pool) {
  const TypeId from = in.type_id();
  return BuildBytes(in, to, pool, [&](int64_t i, std::string* out) {
    if (from == TypeId::kBoolean) {
      out->append(in.BoolValue(i) ? "true" : "false");
    } else {
      AppendValueText(in, i, out);
    }
    return Status::OK();
  });
}

Result<ArrayPtr> CastFromString(const Array& in, const TypePtr& to, MemoryPool* pool) {
  switch (to->id()) {
    case TypeId::kBoolean:
      return BuildBools(in, pool, [&](int64_t i, bool* v) {
        FLOE_ASSIGN_OR_RAISE(*v, ParseBool(in.BytesValue(i)));
        return Status::OK();
      });
    case TypeId::kInt8:
      return BuildValues<Int8Builder, int8_t>(in, to, pool, [&](int64_t i, int8_t* v) {
        FLOE_ASSIGN_OR_RAISE(int64_t x, ParseInt(in.BytesValue(i), TypeId::kInt8));
        *v = static_cast<int8_t>(x);
        return Status::OK();
      });
    case TypeId::kInt16:
      return BuildValues<Int16Builder, int16_t>(in, to, pool, [&](int64_t i, int16_t* v) {
        FLOE_ASSIGN_OR_RAISE(int64_t x, ParseInt(in.BytesValue(i), TypeId::kInt16));
        *v = static_cast<int16_t>(x);
        return Status::OK();
      });
    case TypeId::kInt32:
      return BuildValues<Int32Builder, int32_t>(in, to, pool, [&](int64_t i, int32_t* v) {
        FLOE_ASSIGN_OR_RAISE(int64_t x, ParseInt(in.BytesValue(i), TypeId::kInt32));
        *v = static_cast<int32_t>(x);
        return Status::OK();
      });
    case TypeId::kInt64:
      return BuildValues<Int64Builder, int64_t>(in, to, pool, [&](int64_t i, int64_t* v) {
        FLOE_ASSIGN_OR_RAISE(*v, ParseInt(in.BytesValue(i), TypeId::kInt64));
        return Status::OK();
      });
    case TypeId::kFloat32:
      return BuildValues<Float32Builder, float>(in, to, pool, [&](int64_t i, float* v) {
        FLOE_ASSIGN_OR_RAISE(double x, ParseFloat(in.BytesValue(i), true));
        *v = static_cast<float>(x);
        return Status::OK();
      });
    case TypeId::kFloat64:
      return BuildValues<Float64Builder, double>(in, to, pool, [&](int64_t i, double* v) {
        FLOE_ASSIGN_OR_RAISE(*v, ParseFloat(in.BytesValue(i), false));
        return Status::OK();
      });
    case TypeId::kDecimal:
      return BuildValues<DecimalBuilder, Int128>(in, to, pool, [&](int64_t i, Int128* v) {
        FLOE_ASSIGN_OR_RAISE(*v, ParseDecimal(in.BytesValue(i), to->precision(), to->scale()));
        return Status::OK();
      });
    case TypeId::kDate:
      return BuildValues<Int32Builder, int32_t>(in, to, pool, [&](int64_t i, int32_t* v) {
        FLOE_ASSIGN_OR_RAISE(*v, ParseDate(in.BytesValue(i)));
        return Status::OK();
      });
    case TypeId::kTime:
      return BuildValues<Int64Builder, int64_t>(in, to, pool, [&](int64_t i, int64_t* v) {
        FLOE_ASSIGN_OR_RAISE(*v, ParseTime(in.BytesValue(i)));
        return Status::OK();
      });
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      const bool zone = to->id() == TypeId::kTimestampTz || to->id() == TypeId::kTimestampTzNs;
      const bool nanos = to->id() == TypeId::kTimestampNs || to->id() == TypeId::kTimestampTzNs;
      return BuildValues<Int64Builder, int64_t>(in, to, pool, [&](int64_t i, int64_t* v) {
        FLOE_ASSIGN_OR_RAISE(*v, ParseTimestamp(in.BytesValue(i), zone));
        if (nanos && *v != kTimestampInfinity && *v != kTimestampMinusInfinity) {
          if (__builtin_mul_overflow(*v, int64_t{1000}, v)) {
            return Status::Invalid("timestamp out of range: \"{}\"", in.BytesValue(i));
          }
        }
        return Status::OK();
      });
    }
    case TypeId::kString:
      return in.Slice(0, in.length());
    case TypeId::kList:
      return ParseArrayTexts(in, to, pool);
    case TypeId::kStruct:
      return ParseRecordTexts(in, to, pool);
    case TypeId::kBinary:
      return BuildBytes(in, to, pool, [&](int64_t i, std::string* out) {
        return ParseBytea(in.BytesValue(i), out);
      });
    case TypeId::kUuid:
      return BuildBytes(in, to, pool, [&](int64_t i, std::string* out) {
        return ParseUuid(Trim(in.BytesValue(i)), out);
      });
    case TypeId::kFixed:
      return BuildBytes(in, to, pool, [&](int64_t i, std::string* out) -> Status {
        FLOE_RETURN_NOT_OK(ParseBytea(in.BytesValue(i), out));
        if (static_cast<int>(out->size()) != to->byte_width()) {
          return Status::Invalid("cannot cast a {}-byte value to {}", out->size(), to->ToString());
        }
        return Status::OK();
      });
    default:
      return Status::NotSupported("cannot cast type text to {}", to->ToString());
  }
}

template <typename T>
Result<ArrayPtr> CastToInt(const Array& in, const TypePtr& to, MemoryPool* pool) {
  const TypeId from = in.type_id();
  const TypeId to_id = to->id();
  return BuildValues<NumericBuilder<T>, T>(in, to, pool, [&](int64_t i, T* v) -> Status {
    if (in.type()->is_integer()) {
      const int64_t x = IntAt(in, i);
      if (!FitsInt<T>(x)) return IntOutOfRange(to_id);
      *v = static_cast<T>(x);
    } else if (from == TypeId::kBoolean) {
      *v = in.BoolValue(i) ? 1 : 0;
    } else if (from == TypeId::kFloat32 || from == TypeId::kFloat64) {
      const double x = std::nearbyint(FloatAt(in, i));
      // The bounds are exact powers of two, so the comparison is exact.
      if (std::isnan(x) || x < static_cast<double>(std::numeric_limits<T>::min()) ||
          x >= -static_cast<double>(std::numeric_limits<T>::min())) {
        return IntOutOfRange(to_id);
      }
      *v = static_cast<T>(x);
    } else {
      const Int128 x = DivRoundPow10(in.DecimalValue(i), in.type()->scale());
      if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max()) {
        return IntOutOfRange(to_id);
      }
      *v = static_cast<T>(x);
    }
    return Status::OK();
  });
}

Result<ArrayPtr> CastToFloat(const Array& in, const TypePtr& to, MemoryPool* pool) {
  const TypeId from = in.type_id();
  auto read = [&](int64_t i) -> double {
    if (in.type()->is_integer()) return static_cast<double>(IntAt(in, i));
    if (from == TypeId::kFloat32 || from == TypeId::kFloat64) return FloatAt(in, i);
    if (from == TypeId::kBoolean) return in.BoolValue(i) ? 1 : 0;
    return DecimalToDouble(in.DecimalValue(i), in.type()->scale());
  };
  if (to->id() == TypeId::kFloat64) {
    return BuildValues<Float64Builder, double>(in, to, pool, [&](int64_t i, double* v) {
      *v = read(i);
      return Status::OK();
    });
  }
  return BuildValues<Float32Builder, float>(in, to, pool, [&](int64_t i, float* v) -> Status {
    if (in.type()->is_integer()) {
      *v = static_cast<float>(IntAt(in, i));
      return Status::OK();
    }
    const double x = read(i);
    *v = static_cast<float>(x);
    if (std::isinf(*v) && !std::isinf(x)) return Status::Invalid("value out of range: overflow");
    if (*v == 0.0f && x != 0.0) return Status::Invalid("value out of range: underflow");
    return Status::OK();
  });
}

Result<ArrayPtr> CastToDecimal(const Array& in, const TypePtr& to, MemoryPool* pool) {
  const TypeId from = in.type_id();
  const int p = to->precision();
  const int s = to->scale();
  return BuildValues<DecimalBuilder, Int128>(in, to, pool, [&](int64_t i, Int128* v) -> Status {
    if (in.type()->is_integer() || from == TypeId::kBoolean) {
      const int64_t x = from == TypeId::kBoolean ? (in.BoolValue(i) ? 1 : 0) : IntAt(in, i);
      FLOE_ASSIGN_OR_RAISE(*v, RescaleDecimal(x, 0, p, s));
    } else if (from == TypeId::kDecimal) {
      FLOE_ASSIGN_OR_RAISE(*v, RescaleDecimal(in.DecimalValue(i), in.type()->scale(), p, s));
    } else {
      const double x = FloatAt(in, i);
      if (std::isnan(x)) return Status::Invalid("cannot convert NaN to numeric({},{})", p, s);
      if (std::isinf(x)) return DecimalOverflow(p, s);
      // PostgreSQL converts through the float's text with DBL_DIG (FLT_DIG) digits.
      const std::string text = fmt::format("{:.{}g}", x, from == TypeId::kFloat32 ? 6 : 15);
      FLOE_ASSIGN_OR_RAISE(*v, ParseDecimal(text, p, s));
    }
    return Status::OK();
  });
}

Result<ArrayPtr> CastTemporal(const Array& in, const TypePtr& to, MemoryPool* pool) {
  const TypeId from = in.type_id();
  const bool from_nanos = from == TypeId::kTimestampNs || from == TypeId::kTimestampTzNs;
  const bool to_nanos = to->id() == TypeId::kTimestampNs || to->id() == TypeId::kTimestampTzNs;
  // Microseconds since the epoch of a date or timestamp value.
  auto micros = [&](int64_t i) -> int64_t {
    if (from == TypeId::kDate) return in.Value<int32_t>(i) * kMicrosPerDay;
    const int64_t v = in.Value<int64_t>(i);
    return from_nanos ? FloorDiv(v, 1000) : v;
  };
  // 'infinity' and '-infinity' stay themselves from dates to timestamps and back: +1, -1,
  // or 0 for a finite value.
  auto infinite = [&](int64_t i) -> int {
    if (from == TypeId::kDate) {
      const int32_t d = in.Value<int32_t>(i);
      return d == kDateInfinity ? 1 : d == kDateMinusInfinity ? -1 : 0;
    }
    const int64_t v = in.Value<int64_t>(i);
    return v == kTimestampInfinity ? 1 : v == kTimestampMinusInfinity ? -1 : 0;
  };
  switch (to->id()) {
    case TypeId::kDate:
      return BuildValues<Int32Builder, int32_t>(in, to, pool, [&](int64_t i, int32_t* v) {
        if (const int inf = infinite(i)) {
          *v = inf > 0 ? kDateInfinity : kDateMinusInfinity;
          return Status::OK();
        }
        const int64_t days = FloorDiv(micros(i), kMicrosPerDay);
        if (!IsValidDate(days)) return Status::Invalid("date out of range");
        *v = static_cast<int32_t>(days);
        return Status::OK();
      });
    case TypeId::kTime:
      return BuildValues<Int64Builder, int64_t>(in, to, pool, [&](int64_t i, int64_t* v) {
        // PostgreSQL's answer is null; an error is the nearest this kernel gives.
        if (infinite(i) != 0)
          return Status::NotSupported("cannot cast an infinite timestamp to time");
        *v = FloorMod(micros(i), kMicrosPerDay);
        return Status::OK();
      });
    default:
      return BuildValues<Int64Builder, int64_t>(in, to, pool, [&](int64_t i, int64_t* v) -> Status {
        if (const int inf = infinite(i)) {
          *v = inf > 0 ? kTimestampInfinity : kTimestampMinusInfinity;
          return Status::OK();
        }
        if (from == TypeId::kDate) {
          const int64_t days = in.Value<int32_t>(i);
          if (days < kMinTimestampDays || days >= kEndTimestampDays) {
            return Status::Invalid("date out of range for timestamp");
          }
        }
        if (from_nanos && !to_nanos) {
          *v = micros(i);
        } else if (from_nanos && to_nanos) {
          *v = in.Value<int64_t>(i);
        } else if (to_nanos) {
          if (__builtin_mul_overflow(micros(i), int64_t{1000}, v)) {
            return Status::Invalid("timestamp out of range for nanosecond precision");
          }
        } else {
          *v = micros(i);
        }
        return Status::OK();
      });
  }
}

bool IsTemporal(TypeId id) {
  return id == TypeId::kDate || (id >= TypeId::kTimestamp && id <= TypeId::kTimestampTzNs);
}
bool IsNumeric(TypeId id) { return id >= TypeId::kInt8 && id <= TypeId::kDecimal; }

Result<ArrayPtr> CastArray(const Array& in, const TypePtr& to, MemoryPool* pool);

// character(n) (type.h kBpchar) to another type: its text without trailing spaces, as
// PostgreSQL's bpchar-to-text cast; to character(n): the value's text as it is (a typmod's
// padding and truncation are bpchar_typmod's).
Result<ArrayPtr> CastBpchar(const Array& in, const TypePtr& to, MemoryPool* pool) {
  if (!in.type()->is_bpchar()) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr text, CastArray(in, String(), pool));
    return Array::Make(to, text->length(), text->buffers(), {}, text->null_count(), text->offset());
  }
  if (to->is_bpchar()) return in.Slice(0, in.length());
  BinaryBuilder builder(String(), pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(in.length()));
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    std::string_view s = in.BytesValue(i);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    FLOE_RETURN_NOT_OK(builder.Append(s));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr text, builder.Finish());
  if (to->id() == TypeId::kString && to->extension() == Extension::kNone) return text;
  return CastArray(*text, to, pool);
}

Result<ArrayPtr> CastArray(const Array& in, const TypePtr& to, MemoryPool* pool) {
  const TypeId from = in.type_id();
  const TypeId to_id = to->id();
  if (in.type()->Equals(*to)) return in.Slice(0, in.length());
  if (in.type()->is_bpchar() || to->is_bpchar()) return CastBpchar(in, to, pool);
  if (IsJsonCast(*in.type(), *to)) return CastJson(in, to, pool);
  if (IsIntervalCast(*in.type(), *to)) return CastInterval(in, to, pool);
  if (IsNumericCast(*in.type(), *to)) return CastNumeric(in, to, pool);
  if (to_id == TypeId::kString) {
    if (from == TypeId::kString) return in.Slice(0, in.length());
    return CastToString(in, to, pool);
  }
  if (from == TypeId::kString) return CastFromString(in, to, pool);
  const bool numeric_from = IsNumeric(from) || from == TypeId::kBoolean;
  if (numeric_from && (IsNumeric(to_id) || to_id == TypeId::kBoolean)) {
    switch (to_id) {
      case TypeId::kBoolean:
        if (!in.type()->is_integer()) break;
        return BuildBools(in, pool, [&](int64_t i, bool* v) {
          *v = IntAt(in, i) != 0;
          return Status::OK();
        });
      case TypeId::kInt8:
        return CastToInt<int8_t>(in, to, pool);
      case TypeId::kInt16:
        return CastToInt<int16_t>(in, to, pool);
      case TypeId::kInt32:
        return CastToInt<int32_t>(in, to, pool);
      case TypeId::kInt64:
        return CastToInt<int64_t>(in, to, pool);
      case TypeId::kFloat32:
      case TypeId::kFloat64:
        return CastToFloat(in, to, pool);
      case TypeId::kDecimal:
        return CastToDecimal(in, to, pool);
      default:
        break;
    }
  }
  if (IsTemporal(from) &&
      (IsTemporal(to_id) || (to_id == TypeId::kTime && from != TypeId::kDate))) {
    return CastTemporal(in, to, pool);
  }
  if (from == TypeId::kList && to_id == TypeId::kList) {
    // The offsets and validity stay; the elements are cast.
    FLOE_ASSIGN_OR_RAISE(ArrayPtr elements, CastArray(*in.child(0), to->field(0).type(), pool));
    return Array::Make(to, in.length(), in.buffers(), {std::move(elements)}, in.null_count(),
                       in.offset());
  }
  if (from == TypeId::kStruct && to_id == TypeId::kStruct) return CastRecord(in, to, pool);
  if (from == TypeId::kBinary && (to_id == TypeId::kFixed || to_id == TypeId::kUuid)) {
    return BuildBytes(in, to, pool, [&](int64_t i, std::string* out) -> Status {
      const std::string_view b = in.BytesValue(i);
      if (static_cast<int>(b.size()) != to->byte_width()) {
        return Status::Invalid("cannot cast a {}-byte binary value to {}", b.size(),
                               to->ToString());
      }
      out->append(b);
      return Status::OK();
    });
  }
  if ((from == TypeId::kFixed || from == TypeId::kUuid) && to_id == TypeId::kBinary) {
    return BuildBytes(in, to, pool, [&](int64_t i, std::string* out) {
      out->append(in.BytesValue(i));
      return Status::OK();
    });
  }
  return Status::NotSupported("cannot cast type {} to {}", SqlTypeName(*in.type()),
                              SqlTypeName(*to));
}

}  // namespace

// ---------------------------------------------------------------------------------------

Status ParseHexBytes(std::string_view text, std::string* out) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  size_t i = 0;
  while (i < text.size()) {
    if (IsPgSpace(text[i])) {
      ++i;
      continue;
    }
    const int hi = hex(text[i]);
    if (hi < 0) return Status::Invalid("invalid hexadecimal digit: \"{}\"", text.substr(i, 1));
    if (i + 1 >= text.size()) {
      return Status::Invalid("invalid hexadecimal data: odd number of digits");
    }
    const int lo = hex(text[i + 1]);
    if (lo < 0) {
      return Status::Invalid("invalid hexadecimal digit: \"{}\"", text.substr(i + 1, 1));
    }
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return Status::OK();
}

Status ParseEscapedBytes(std::string_view text, std::string* out) {
  auto octal = [](char c, char max) { return c >= '0' && c <= max; };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out->push_back(text[i]);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '\\') {
      out->push_back('\\');
      ++i;
    } else if (i + 3 < text.size() && octal(text[i + 1], '3') && octal(text[i + 2], '7') &&
               octal(text[i + 3], '7')) {
      out->push_back(static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 +
                                       (text[i + 3] - '0')));
      i += 3;
    } else {
      return InvalidSyntax("bytea", text);
    }
  }
  return Status::OK();
}

Status IntOutOfRange(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return Status::Invalid("tinyint out of range");
    case TypeId::kInt16:
      return Status::Invalid("smallint out of range");
    case TypeId::kInt32:
      return Status::Invalid("integer out of range");
    default:
      return Status::Invalid("bigint out of range");
  }
}

Int128 Pow10(int n) {
  static const auto kTable = [] {
    std::array<Int128, 39> t{};
    t[0] = 1;
    for (int i = 1; i < 39; ++i) t[static_cast<size_t>(i)] = t[static_cast<size_t>(i - 1)] * 10;
    return t;
  }();
  return kTable[static_cast<size_t>(n)];
}

Status DecimalOverflow(int precision, int scale) {
  return Status::Invalid(
      "numeric field overflow: a field with precision {}, scale {} must round to an absolute "
      "value less than 10^{}",
      precision, scale, precision - scale);
}

Result<Int128> RescaleDecimal(Int128 value, int from_scale, int precision, int scale) {
  Int128 v = value;
  if (scale < from_scale) {
    v = DivRoundPow10(value, from_scale - scale);
  } else if (scale > from_scale) {
    const int k = scale - from_scale;
    // |value| < 10^(38-k) keeps the product within 38 digits.
    if (k > 38 || Abs128(value) >= Pow10(38 - k)) return DecimalOverflow(precision, scale);
    v = value * Pow10(k);
  }
  if (Abs128(v) >= Pow10(precision)) return DecimalOverflow(precision, scale);
  return v;
}

Result<Int128> ParseDecimal(std::string_view text, int precision, int scale) {
  const std::string_view s = Trim(text);
  size_t pos = 0;
  bool negative = false;
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    negative = s[pos] == '-';
    ++pos;
  }
  const std::string_view body = s.substr(pos);
  if (EqualsIgnoreAsciiCase(body, "nan") || EqualsIgnoreAsciiCase(body, "infinity") ||
      EqualsIgnoreAsciiCase(body, "inf")) {
    if (EqualsIgnoreAsciiCase(body, "nan")) {
      return Status::Invalid("cannot convert NaN to numeric({},{})", precision, scale);
    }
    return DecimalOverflow(precision, scale);
  }
  std::string digits;  // significant digits without leading zeros
  int64_t exp10 = 0;   // value = digits * 10^exp10
  bool any_digit = false;
  bool seen_point = false;
  for (; pos < s.size(); ++pos) {
    const char c = s[pos];
    if (IsDigit(c)) {
      any_digit = true;
      if (!(digits.empty() && c == '0')) digits.push_back(c);
      if (seen_point) --exp10;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else if (c == '_' && pos > 0 && IsDigit(s[pos - 1]) && pos + 1 < s.size() &&
               IsDigit(s[pos + 1])) {
      continue;
    } else {
      break;
    }
  }
  if (!any_digit) return InvalidSyntax("numeric", text);
  if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
    ++pos;
    bool exp_negative = false;
    if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
      exp_negative = s[pos] == '-';
      ++pos;
    }
    int64_t e = 0;
    if (pos >= s.size() || !IsDigit(s[pos])) return InvalidSyntax("numeric", text);
    while (pos < s.size() && IsDigit(s[pos])) {
      if (e < 100000000) e = e * 10 + (s[pos] - '0');
      ++pos;
    }
    exp10 += exp_negative ? -e : e;
  }
  if (pos != s.size()) return InvalidSyntax("numeric", text);
  if (digits.empty()) return Int128{0};
  // Unscaled target = digits * 10^(exp10 + scale).
  const int64_t shift = exp10 + scale;
  bool round_up = false;
  if (shift < 0) {
    const int64_t drop = -shift;
    if (drop > static_cast<int64_t>(digits.size())) {
      digits.clear();
    } else {
      round_up = digits[digits.size() - static_cast<size_t>(drop)] >= '5';
      digits.resize(digits.size() - static_cast<size_t>(drop));
    }
  } else {
    if (shift + static_cast<int64_t>(digits.size()) > precision) {
      return DecimalOverflow(precision, scale);
    }
    digits.append(static_cast<size_t>(shift), '0');
  }
  if (static_cast<int64_t>(digits.size()) > precision) return DecimalOverflow(precision, scale);
  Int128 v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  if (round_up) ++v;
  if (v >= Pow10(precision)) return DecimalOverflow(precision, scale);
  return negative ? -v : v;
}

double DecimalToDouble(Int128 value, int scale) {
  if (Abs128(value) < (Int128{1} << 53) && scale <= 22) {
    // Both operands are exact, so the one division rounds correctly.
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    return static_cast<double>(static_cast<int64_t>(value)) / kPow10[scale];
  }
  std::string text;
  AppendDecimalText(value, scale, &text);
  return std::strtod(text.c_str(), nullptr);
}

Result<ArrayPtr> CastArrayValues(const Array& in, const TypePtr& to, MemoryPool* pool) {
  return CastArray(in, to, pool);
}

Result<ArrayPtr> ScalarToArray(const Scalar& scalar, int64_t length, MemoryPool* pool) {
  auto builder = MakeBuilder(scalar.type(), pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(length));
  for (int64_t i = 0; i < length; ++i) FLOE_RETURN_NOT_OK(builder->AppendScalar(scalar));
  return builder->Finish();
}

Result<ColumnarValue> CastValue(const ColumnarValue& value, const TypePtr& to, int64_t num_rows,
                                EvalContext& ctx) {
  (void)num_rows;
  if (value.type() && value.type()->Equals(*to)) return value;
  if (value.is_scalar()) {
    const Scalar& s = value.scalar();
    if (s.is_null()) return ColumnarValue(Scalar::Null(to));
    if (!s.type()) return Status::Internal("cast of an untyped scalar to {}", to->ToString());
    FLOE_ASSIGN_OR_RAISE(ArrayPtr one, ScalarToArray(s, 1, ctx.pool));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, CastArray(*one, to, ctx.pool));
    if (to->is_nested()) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr many, ScalarToArray(s, num_rows, ctx.pool));
      FLOE_ASSIGN_OR_RAISE(ArrayPtr all, CastArray(*many, to, ctx.pool));
      return ColumnarValue(std::move(all));
    }
    return ColumnarValue(ScalarAt(*out, 0));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, CastArray(*value.array(), to, ctx.pool));
  return ColumnarValue(std::move(out));
}

}  // namespace floe::expr::internal
