#include "floe/iceberg/literal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "floe/batch/value_format.h"
#include "floe/common/calendar.h"
#include "floe/iceberg/value_text.h"

namespace floe::iceberg {

namespace {

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <typename F>
int CmpFloat(F a, F b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  return Cmp(a, b);
}

}  // namespace

int CompareValues(const Scalar& a, const Scalar& b) {
  const auto& va = a.value();
  const auto& vb = b.value();
  if (va.index() != vb.index()) return Cmp(va.index(), vb.index());
  switch (va.index()) {
    case 1:
      return Cmp(std::get<bool>(va), std::get<bool>(vb));
    case 2:
      return Cmp(std::get<int32_t>(va), std::get<int32_t>(vb));
    case 3:
      return Cmp(std::get<int64_t>(va), std::get<int64_t>(vb));
    case 4:
      return CmpFloat(std::get<float>(va), std::get<float>(vb));
    case 5:
      return CmpFloat(std::get<double>(va), std::get<double>(vb));
    case 6:
      return Cmp(std::get<Int128>(va), std::get<Int128>(vb));
    case 7: {
      const std::string& x = std::get<std::string>(va);
      const std::string& y = std::get<std::string>(vb);
      int c = std::memcmp(x.data(), y.data(), std::min(x.size(), y.size()));
      if (c != 0) return c < 0 ? -1 : 1;
      return Cmp(x.size(), y.size());
    }
    default:
      return 0;
  }
}

std::string LiteralToString(const Scalar& literal) {
  if (literal.is_null()) return "null";
  switch (literal.type()->id()) {
    case TypeId::kBoolean:
      return literal.get<bool>() ? "true" : "false";
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal:
      return FormatScalar(literal);
    default: {
      std::string text = FormatScalar(literal);
      std::string out = "'";
      for (char c : text) {
        if (c == '\'') out.push_back('\'');
        out.push_back(c);
      }
      out.push_back('\'');
      return out;
    }
  }
}

namespace {

Int128 Pow10(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// A decimal text with at most `scale` fraction digits, as an unscaled value.
bool ParseDecimalText(std::string_view text, int scale, Int128* out) {
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) neg = text[i++] == '-';
  Int128 v = 0;
  int digits = 0, frac = -1;
  for (; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '.' && frac < 0) {
      frac = 0;
      continue;
    }
    if (ch < '0' || ch > '9' || digits >= 38) return false;
    v = v * 10 + (ch - '0');
    ++digits;
    if (frac >= 0) ++frac;
  }
  if (digits == 0) return false;
  if (frac < 0) frac = 0;
  if (frac > scale) return false;
  v *= Pow10(scale - frac);
  *out = neg ? -v : v;
  return true;
}

bool FitsPrecision(Int128 unscaled, int precision) {
  Int128 limit = Pow10(precision);
  return unscaled < limit && unscaled > -limit;
}

Status NoConversion(const Scalar& literal, const TypePtr& type) {
  return Status::Invalid("cannot convert literal {} of type {} to {}", LiteralToString(literal),
                         literal.type()->ToString(), type->ToString());
}

}  // namespace

Result<std::optional<Scalar>> ConvertLiteral(const Scalar& literal, const TypePtr& type,
                                             bool* above_max) {
  const TypeId from = literal.type()->id();
  const TypeId to = type->id();
  if (literal.is_null()) return NoConversion(literal, type);
  auto ok = [&](Scalar::Storage v) -> Result<std::optional<Scalar>> {
    return std::optional<Scalar>(Scalar::Make(type, std::move(v)));
  };
  auto out_of_range = [&](bool above) -> Result<std::optional<Scalar>> {
    *above_max = above;
    return std::optional<Scalar>();
  };
  const auto& v = literal.value();
  // Integer sources (int8..int64) as one wide value.
  if (literal.type()->is_integer()) {
    const int64_t x =
        std::holds_alternative<int32_t>(v) ? std::get<int32_t>(v) : std::get<int64_t>(v);
    switch (to) {
      case TypeId::kInt32:
      case TypeId::kDate:
        if (x > INT32_MAX) return out_of_range(true);
        if (x < INT32_MIN) return out_of_range(false);
        return ok(static_cast<int32_t>(x));
      case TypeId::kInt64:
      case TypeId::kTime:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs:
        return ok(x);
      case TypeId::kFloat32:
        return ok(static_cast<float>(x));
      case TypeId::kFloat64:
        return ok(static_cast<double>(x));
      case TypeId::kDecimal: {
        Int128 u = Int128{x} * Pow10(type->scale());
        if (!FitsPrecision(u, type->precision())) return out_of_range(x > 0);
        return ok(u);
      }
      default:
        return NoConversion(literal, type);
    }
  }
  switch (from) {
    case TypeId::kBoolean:
      if (to == TypeId::kBoolean) return ok(std::get<bool>(v));
      return NoConversion(literal, type);
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      const double x = from == TypeId::kFloat32 ? std::get<float>(v) : std::get<double>(v);
      if (to == TypeId::kFloat64) return ok(x);
      if (to == TypeId::kFloat32) {
        if (!std::isnan(x) && !std::isinf(x)) {
          if (x > std::numeric_limits<float>::max()) return out_of_range(true);
          if (x < -std::numeric_limits<float>::max()) return out_of_range(false);
        }
        return ok(static_cast<float>(x));
      }
      if (to == TypeId::kDecimal && std::isfinite(x)) {
        const double scaled = std::round(x * std::pow(10.0, type->scale()));
        if (std::fabs(scaled) >= std::pow(10.0, type->precision())) return out_of_range(x > 0);
        return ok(static_cast<Int128>(scaled));
      }
      return NoConversion(literal, type);
    }
    case TypeId::kDecimal: {
      const Int128 u = std::get<Int128>(v);
      if (to == TypeId::kDecimal) {
        if (type->scale() != literal.type()->scale()) return NoConversion(literal, type);
        if (!FitsPrecision(u, type->precision())) return out_of_range(u > 0);
        return ok(u);
      }
      const double x = static_cast<double>(u) / std::pow(10.0, literal.type()->scale());
      if (to == TypeId::kFloat64) return ok(x);
      if (to == TypeId::kFloat32) return ok(static_cast<float>(x));
      return NoConversion(literal, type);
    }
    case TypeId::kDate: {
      const int32_t d = std::get<int32_t>(v);
      if (to == TypeId::kDate) return ok(d);
      if (to == TypeId::kTimestamp || to == TypeId::kTimestampTz) return ok(d * kMicrosPerDay);
      if (to == TypeId::kTimestampNs || to == TypeId::kTimestampTzNs) {
        const __int128 nanos = static_cast<__int128>(d) * kMicrosPerDay * 1000;
        if (nanos > std::numeric_limits<int64_t>::max()) return out_of_range(true);
        if (nanos < std::numeric_limits<int64_t>::min()) return out_of_range(false);
        return ok(static_cast<int64_t>(nanos));
      }
      return NoConversion(literal, type);
    }
    case TypeId::kTime:
      if (to == TypeId::kTime) return ok(std::get<int64_t>(v));
      return NoConversion(literal, type);
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      const int64_t x = std::get<int64_t>(v);
      const bool nanos = from == TypeId::kTimestampNs || from == TypeId::kTimestampTzNs;
      const int64_t micros = nanos ? (x >= 0 ? x / 1000 : -((-x + 999) / 1000)) : x;
      switch (to) {
        case TypeId::kTimestamp:
        case TypeId::kTimestampTz:
          return ok(micros);
        case TypeId::kTimestampNs:
        case TypeId::kTimestampTzNs: {
          if (nanos) return ok(x);
          if (x > INT64_MAX / 1000) return out_of_range(true);
          if (x < INT64_MIN / 1000) return out_of_range(false);
          return ok(x * 1000);
        }
        case TypeId::kDate: {
          return ok(static_cast<int32_t>(FloorDiv(micros, kMicrosPerDay)));
        }
        default:
          return NoConversion(literal, type);
      }
    }
    case TypeId::kString: {
      const std::string& s = std::get<std::string>(v);
      switch (to) {
        case TypeId::kString:
          return ok(s);
        case TypeId::kDate: {
          const std::optional<int32_t> days = ParseIsoDate(s);
          if (!days) break;
          return ok(*days);
        }
        case TypeId::kTime: {
          const std::optional<int64_t> micros = ParseIsoTime(s);
          if (!micros) break;
          return ok(*micros);
        }
        case TypeId::kTimestamp:
        case TypeId::kTimestampTz:
        case TypeId::kTimestampNs:
        case TypeId::kTimestampTzNs: {
          const std::optional<IsoTimestamp> ts = ParseIsoTimestamp(s);
          if (!ts) break;
          const bool with_zone = to == TypeId::kTimestampTz || to == TypeId::kTimestampTzNs;
          if (ts->has_offset && !with_zone) {
            return Status::Invalid("timestamp literal '{}' has a zone offset but {} has none", s,
                                   type->ToString());
          }
          const bool nanos = to == TypeId::kTimestampNs || to == TypeId::kTimestampTzNs;
          if (std::optional<int64_t> v = IsoTimestampUnits(*ts, nanos)) return ok(*v);
          return out_of_range(ts->nanos > 0);
        }
        case TypeId::kUuid: {
          std::optional<std::string> bytes = ParseUuidText(s);
          if (!bytes) break;
          return ok(std::move(*bytes));
        }
        case TypeId::kDecimal: {
          Int128 u;
          if (!ParseDecimalText(s, type->scale(), &u)) break;
          if (!FitsPrecision(u, type->precision())) return out_of_range(u > 0);
          return ok(u);
        }
        default:
          return NoConversion(literal, type);
      }
      return Status::Invalid("cannot parse '{}' as {}", s, type->ToString());
    }
    case TypeId::kBinary:
    case TypeId::kFixed: {
      const std::string& s = std::get<std::string>(v);
      if (to == TypeId::kBinary) return ok(s);
      if (to == TypeId::kFixed && static_cast<int>(s.size()) == type->byte_width()) return ok(s);
      return NoConversion(literal, type);
    }
    case TypeId::kUuid:
      if (to == TypeId::kUuid) return ok(std::get<std::string>(v));
      return NoConversion(literal, type);
    default:
      return NoConversion(literal, type);
  }
}

}  // namespace floe::iceberg
