#include "floe/iceberg/transform.h"

#include <charconv>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/common/base64.h"
#include "floe/common/calendar.h"
#include "floe/common/logging.h"
#include "floe/iceberg/single_value.h"
#include "floe/type/type_visit.h"

namespace floe::iceberg {
namespace {

int32_t YearsFromDays(int64_t days) {
  return static_cast<int32_t>(CivilFromDays(days).year - 1970);
}

int32_t MonthsFromDays(int64_t days) {
  const CivilDate date = CivilFromDays(days);
  return static_cast<int32_t>((date.year - 1970) * 12 + (date.month - 1));
}

bool IsNanos(TypeId id) { return id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs; }

// Microseconds of a time/timestamp storage value (ns timestamps floor to micros).
int64_t ToMicros(TypeId id, int64_t v) { return IsNanos(id) ? FloorDiv(v, 1000) : v; }

uint32_t Rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

uint32_t HashLong(int64_t v) { return static_cast<uint32_t>(Murmur3Hash32(&v, sizeof(v))); }

uint32_t HashBytes(std::string_view b) {
  return static_cast<uint32_t>(Murmur3Hash32(b.data(), b.size()));
}

int32_t BucketOf(uint32_t hash, int32_t n) {
  return static_cast<int32_t>((hash & 0x7fffffffu) % static_cast<uint32_t>(n));
}

// v - (((v % w) + w) % w); the subtraction wraps like the spec's reference (Java) integer
// arithmetic does at the type's minimum.
template <typename T>
T TruncateInteger(T v, T w) {
  T r = v % w;
  if (r < 0) r += w;
  if constexpr (sizeof(T) <= 8) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(v) - static_cast<U>(r));
  } else {
    // Decimal unscaled values stay within 38 digits, far from the 128-bit limits.
    return v - r;
  }
}

// The byte length of the first `width` code points of a UTF-8 string.
size_t Utf8PrefixBytes(std::string_view s, int32_t width) {
  size_t i = 0;
  int32_t count = 0;
  while (i < s.size() && count < width) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xc0) == 0x80) ++i;
    ++count;
  }
  return i;
}

bool IsTemporal(TransformKind k) {
  return k == TransformKind::kYear || k == TransformKind::kMonth || k == TransformKind::kDay ||
         k == TransformKind::kHour;
}

// Temporal transform of a date (days) or timestamp (micros) value.
int32_t ApplyTemporal(TransformKind kind, TypeId source, int64_t v) {
  if (source == TypeId::kDate) {
    switch (kind) {
      case TransformKind::kYear:
        return YearsFromDays(v);
      case TransformKind::kMonth:
        return MonthsFromDays(v);
      default:
        return static_cast<int32_t>(v);
    }
  }
  const int64_t micros = ToMicros(source, v);
  switch (kind) {
    case TransformKind::kYear:
      return YearsFromDays(FloorDiv(micros, kMicrosPerDay));
    case TransformKind::kMonth:
      return MonthsFromDays(FloorDiv(micros, kMicrosPerDay));
    case TransformKind::kDay:
      return static_cast<int32_t>(FloorDiv(micros, kMicrosPerDay));
    default:
      return static_cast<int32_t>(FloorDiv(micros, kMicrosPerHour));
  }
}

}  // namespace

int32_t Murmur3Hash32(const void* data, size_t length) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  const uint32_t c1 = 0xcc9e2d51;
  const uint32_t c2 = 0x1b873593;
  uint32_t h = 0;
  const size_t blocks = length / 4;
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k;
    std::memcpy(&k, bytes + i * 4, 4);
    k *= c1;
    k = Rotl32(k, 15);
    k *= c2;
    h ^= k;
    h = Rotl32(h, 13);
    h = h * 5 + 0xe6546b64;
  }
  const uint8_t* tail = bytes + blocks * 4;
  uint32_t k = 0;
  switch (length & 3) {
    case 3:
      k ^= static_cast<uint32_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      k ^= static_cast<uint32_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      k ^= tail[0];
      k *= c1;
      k = Rotl32(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= static_cast<uint32_t>(length);
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return static_cast<int32_t>(h);
}

Result<int32_t> BucketHash(const Scalar& value) {
  if (value.is_null()) return Status::Invalid("bucket hash of NULL");
  const TypeId id = value.type()->id();
  return VisitPhysicalType(id, [&]<typename T>(TypeTag<T>) -> Result<int32_t> {
    if constexpr (std::is_same_v<T, Int128>) {
      return static_cast<int32_t>(HashBytes(DecimalToMinimalBytes(value.get<Int128>())));
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      return static_cast<int32_t>(HashBytes(value.get<std::string>()));
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // Integers and dates hash as longs, times and timestamps as longs of microseconds.
      using S = ScalarStorageOf<T>;
      return static_cast<int32_t>(HashLong(ToMicros(id, value.get<S>())));
    } else {
      return Status::Invalid("bucket hash is not defined for type {}", value.type()->ToString());
    }
  });
}

Transform Transform::Bucket(int32_t num_buckets) {
  FLOE_CHECK(num_buckets > 0, "bucket transform needs a positive bucket count");
  return Transform(TransformKind::kBucket, num_buckets);
}

Transform Transform::Truncate(int32_t width) {
  FLOE_CHECK(width > 0, "truncate transform needs a positive width");
  return Transform(TransformKind::kTruncate, width);
}

Result<Transform> Transform::Parse(std::string_view text) {
  if (text == "identity") return Identity();
  if (text == "year") return Year();
  if (text == "month") return Month();
  if (text == "day") return Day();
  if (text == "hour") return Hour();
  if (text == "void") return Void();
  auto parse_param = [&](std::string_view prefix, TransformKind kind) -> Result<Transform> {
    std::string_view inner = text.substr(prefix.size() + 1, text.size() - prefix.size() - 2);
    int32_t n = 0;
    auto [ptr, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), n);
    if (inner.empty() || ec != std::errc() || ptr != inner.data() + inner.size() || n <= 0) {
      return Status::Invalid("malformed transform '{}': the parameter must be a positive integer",
                             text);
    }
    return Transform(kind, n);
  };
  for (auto [prefix, kind] : {std::pair{std::string_view("bucket"), TransformKind::kBucket},
                              std::pair{std::string_view("truncate"), TransformKind::kTruncate}}) {
    if (text.size() >= prefix.size() + 2 && text.substr(0, prefix.size()) == prefix &&
        text[prefix.size()] == '[' && text.back() == ']') {
      return parse_param(prefix, kind);
    }
  }
  Transform unknown(TransformKind::kUnknown, 0);
  unknown.unknown_name_ = std::string(text);
  return unknown;
}

std::string Transform::ToString() const {
  switch (kind_) {
    case TransformKind::kIdentity:
      return "identity";
    case TransformKind::kBucket:
      return fmt::format("bucket[{}]", param_);
    case TransformKind::kTruncate:
      return fmt::format("truncate[{}]", param_);
    case TransformKind::kYear:
      return "year";
    case TransformKind::kMonth:
      return "month";
    case TransformKind::kDay:
      return "day";
    case TransformKind::kHour:
      return "hour";
    case TransformKind::kVoid:
      return "void";
    case TransformKind::kUnknown:
      return unknown_name_;
  }
  return unknown_name_;
}

std::string Transform::ToExpressionString(std::string_view source_name) const {
  switch (kind_) {
    case TransformKind::kIdentity:
      return std::string(source_name);
    case TransformKind::kBucket:
      return fmt::format("bucket({}, {})", param_, source_name);
    case TransformKind::kTruncate:
      return fmt::format("truncate({}, {})", param_, source_name);
    default:
      return fmt::format("{}({})", ToString(), source_name);
  }
}

bool Transform::CanTransform(const DataType& source) const {
  const TypeId id = source.id();
  switch (kind_) {
    case TransformKind::kIdentity:
    case TransformKind::kVoid:
      return !source.is_nested();
    case TransformKind::kBucket:
      return source.is_integer() || id == TypeId::kDecimal || id == TypeId::kDate ||
             id == TypeId::kTime || source.is_timestamp() || id == TypeId::kString ||
             id == TypeId::kUuid || id == TypeId::kFixed || id == TypeId::kBinary;
    case TransformKind::kTruncate:
      return source.is_integer() || id == TypeId::kDecimal || id == TypeId::kString ||
             id == TypeId::kBinary;
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
      return id == TypeId::kDate || source.is_timestamp();
    case TransformKind::kHour:
      return source.is_timestamp();
    case TransformKind::kUnknown:
      return false;
  }
  return false;
}

Result<TypePtr> Transform::ResultType(const TypePtr& source) const {
  if (!CanTransform(*source)) {
    return Status::Invalid("transform {} cannot apply to type {}", ToString(), source->ToString());
  }
  switch (kind_) {
    case TransformKind::kBucket:
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kHour:
      return Int32();
    case TransformKind::kDay:
      return Date();
    default:
      return source;
  }
}

Result<Scalar> Transform::Apply(const Scalar& value) const {
  FLOE_ASSIGN_OR_RAISE(TypePtr result_type, ResultType(value.type()));
  if (value.is_null() || kind_ == TransformKind::kVoid) return Scalar::Null(result_type);
  const TypeId id = value.type()->id();
  switch (kind_) {
    case TransformKind::kIdentity:
      return value;
    case TransformKind::kBucket: {
      FLOE_ASSIGN_OR_RAISE(int32_t hash, BucketHash(value));
      return Scalar::Make(result_type, BucketOf(static_cast<uint32_t>(hash), param_));
    }
    case TransformKind::kTruncate:
      return VisitPhysicalType(id, [&]<typename T>(TypeTag<T>) -> Result<Scalar> {
        if constexpr (std::is_same_v<T, Int128> ||
                      (std::is_integral_v<T> && !std::is_same_v<T, bool>)) {
          // int8 and int16 truncate as int32.
          using S = ScalarStorageOf<T>;
          return Scalar::Make(result_type, TruncateInteger<S>(value.get<S>(), param_));
        } else {
          const std::string& s = value.get<std::string>();
          const size_t keep =
              id == TypeId::kString ? Utf8PrefixBytes(s, param_) : static_cast<size_t>(param_);
          return Scalar::Make(result_type, s.substr(0, keep));
        }
      });
    default: {
      const int64_t v = id == TypeId::kDate ? value.get<int32_t>() : value.get<int64_t>();
      return Scalar::Make(result_type, ApplyTemporal(kind_, id, v));
    }
  }
}

namespace {

// Builds an int32/date array from `values` keeping the validity of `source`.
template <typename Fn>
Result<ArrayPtr> MapToInt32(const Array& source, const TypePtr& result_type, Fn&& fn) {
  Int32Builder builder(result_type);
  FLOE_RETURN_NOT_OK(builder.Reserve(source.length()));
  for (int64_t i = 0; i < source.length(); ++i) {
    if (source.IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
    } else {
      builder.UnsafeAppend(fn(i));
    }
  }
  return builder.Finish();
}

template <typename T, typename Fn>
Result<ArrayPtr> MapNumeric(const Array& source, const TypePtr& result_type, Fn&& fn) {
  NumericBuilder<T> builder(result_type);
  FLOE_RETURN_NOT_OK(builder.Reserve(source.length()));
  const T* values = source.values<T>();
  for (int64_t i = 0; i < source.length(); ++i) {
    if (source.IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
    } else {
      builder.UnsafeAppend(fn(values[i]));
    }
  }
  return builder.Finish();
}

}  // namespace

Result<ArrayPtr> Transform::Apply(const Array& values) const {
  FLOE_ASSIGN_OR_RAISE(TypePtr result_type, ResultType(values.type()));
  const TypeId id = values.type_id();
  const int64_t n = values.length();
  switch (kind_) {
    case TransformKind::kIdentity:
      return values.Slice(0, n);
    case TransformKind::kVoid:
      return Array::MakeNull(result_type, n);
    case TransformKind::kBucket: {
      const int32_t buckets = param_;
      return VisitPhysicalType(id, [&]<typename T>(TypeTag<T>) -> Result<ArrayPtr> {
        if constexpr (std::is_same_v<T, Int128>) {
          return MapToInt32(values, result_type, [&](int64_t i) {
            return BucketOf(HashBytes(DecimalToMinimalBytes(values.DecimalValue(i))), buckets);
          });
        } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          const T* v = values.values<T>();
          if constexpr (std::is_same_v<T, int64_t>) {
            if (IsNanos(id)) {
              // Nanosecond timestamps hash as their microseconds.
              return MapToInt32(values, result_type, [&](int64_t i) {
                return BucketOf(HashLong(FloorDiv(v[i], 1000)), buckets);
              });
            }
          }
          return MapToInt32(values, result_type,
                            [&](int64_t i) { return BucketOf(HashLong(v[i]), buckets); });
        } else {
          return MapToInt32(values, result_type, [&](int64_t i) {
            return BucketOf(HashBytes(values.BytesValue(i)), buckets);
          });
        }
      });
    }
    case TransformKind::kTruncate:
      return VisitPhysicalType(id, [&]<typename T>(TypeTag<T>) -> Result<ArrayPtr> {
        if constexpr (std::is_same_v<T, Int128>) {
          DecimalBuilder builder(result_type);
          FLOE_RETURN_NOT_OK(builder.Reserve(n));
          for (int64_t i = 0; i < n; ++i) {
            if (values.IsNull(i)) {
              FLOE_RETURN_NOT_OK(builder.AppendNull());
            } else {
              builder.UnsafeAppend(TruncateInteger<Int128>(values.DecimalValue(i), param_));
            }
          }
          return builder.Finish();
        } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          // int8 and int16 truncate as int32.
          using S = ScalarStorageOf<T>;
          return MapNumeric<T>(values, result_type, [w = S{param_}](T v) {
            return static_cast<T>(TruncateInteger<S>(v, w));
          });
        } else {
          BinaryBuilder builder(result_type);
          FLOE_RETURN_NOT_OK(builder.Reserve(n));
          const bool is_string = id == TypeId::kString;
          for (int64_t i = 0; i < n; ++i) {
            if (values.IsNull(i)) {
              FLOE_RETURN_NOT_OK(builder.AppendNull());
              continue;
            }
            std::string_view s = values.BytesValue(i);
            size_t keep = is_string ? Utf8PrefixBytes(s, param_)
                                    : std::min(s.size(), static_cast<size_t>(param_));
            FLOE_RETURN_NOT_OK(builder.Append(s.substr(0, keep)));
          }
          return builder.Finish();
        }
      });
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
    case TransformKind::kHour: {
      const TransformKind kind = kind_;
      if (id == TypeId::kDate) {
        const int32_t* v = values.values<int32_t>();
        return MapToInt32(values, result_type,
                          [&](int64_t i) { return ApplyTemporal(kind, id, v[i]); });
      }
      const int64_t* v = values.values<int64_t>();
      return MapToInt32(values, result_type,
                        [&](int64_t i) { return ApplyTemporal(kind, id, v[i]); });
    }
    case TransformKind::kUnknown:
      break;
  }
  return Status::NotSupported("transform {} cannot be applied", ToString());
}

std::string Transform::ToHumanString(const Scalar& transformed) const {
  if (transformed.is_null()) return "null";
  switch (kind_) {
    case TransformKind::kYear: {
      int64_t y = 1970 + int64_t{transformed.get<int32_t>()};
      return fmt::format("{:04d}", y);
    }
    case TransformKind::kMonth: {
      int64_t m = transformed.get<int32_t>();
      return fmt::format("{:04d}-{:02d}", 1970 + FloorDiv(m, 12), FloorMod(m, 12) + 1);
    }
    case TransformKind::kDay: {
      const CivilDate date = CivilFromDays(transformed.get<int32_t>());
      return fmt::format("{:04d}-{:02d}-{:02d}", date.year, date.month, date.day);
    }
    case TransformKind::kHour: {
      int64_t h = transformed.get<int32_t>();
      const CivilDate date = CivilFromDays(FloorDiv(h, 24));
      return fmt::format("{:04d}-{:02d}-{:02d}-{:02d}", date.year, date.month, date.day,
                         FloorMod(h, 24));
    }
    default:
      break;
  }
  switch (transformed.type()->id()) {
    case TypeId::kString:
      return transformed.get<std::string>();
    case TypeId::kBinary:
    case TypeId::kFixed: {
      // Binary partition values print as base64, as other Iceberg engines write them.
      return Base64Encode(transformed.get<std::string>());
    }
    default:
      return FormatScalar(transformed);
  }
}

bool Transform::PreservesOrder() const {
  return kind_ == TransformKind::kIdentity || kind_ == TransformKind::kTruncate ||
         IsTemporal(kind_);
}

bool Transform::SatisfiesOrderOf(const Transform& other) const {
  if (*this == other) return true;
  switch (kind_) {
    case TransformKind::kIdentity:
      return other.PreservesOrder();
    case TransformKind::kHour:
      return other.kind_ == TransformKind::kDay || other.kind_ == TransformKind::kMonth ||
             other.kind_ == TransformKind::kYear;
    case TransformKind::kDay:
      return other.kind_ == TransformKind::kMonth || other.kind_ == TransformKind::kYear;
    case TransformKind::kMonth:
      return other.kind_ == TransformKind::kYear;
    default:
      return false;
  }
}

}  // namespace floe::iceberg
