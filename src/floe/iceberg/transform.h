#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "floe/batch/array.h"
#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::iceberg {

enum class TransformKind : uint8_t {
  kIdentity,
  kBucket,
  kTruncate,
  kYear,
  kMonth,
  kDay,
  kHour,
  kVoid,
  /// A transform this version does not know; kept by name so metadata round-trips,
  /// but it can neither be applied nor projected.
  kUnknown,
};

/// A partition or sort transform (Iceberg spec, "Partition Transforms").
class Transform {
 public:
  static Transform Identity() { return Transform(TransformKind::kIdentity, 0); }
  /// bucket[n], n > 0 (checked by Parse; aborts here on n <= 0).
  static Transform Bucket(int32_t num_buckets);
  /// truncate[w], w > 0.
  static Transform Truncate(int32_t width);
  static Transform Year() { return Transform(TransformKind::kYear, 0); }
  static Transform Month() { return Transform(TransformKind::kMonth, 0); }
  static Transform Day() { return Transform(TransformKind::kDay, 0); }
  static Transform Hour() { return Transform(TransformKind::kHour, 0); }
  static Transform Void() { return Transform(TransformKind::kVoid, 0); }

  /// Parses the metadata spelling: "identity", "bucket[16]", "truncate[4]", "year",
  /// "month", "day", "hour", "void". Anything else parses as kUnknown with its text kept;
  /// a malformed parameter ("bucket[0]", "bucket[x]") is kInvalidArgument.
  static Result<Transform> Parse(std::string_view text);

  TransformKind kind() const { return kind_; }
  /// N for bucket, W for truncate, 0 otherwise.
  int32_t param() const { return param_; }

  /// The metadata spelling, inverse of Parse.
  std::string ToString() const;
  /// The spec's SQL-ish form over a source column: "day(ts)", "bucket(16, id)",
  /// "truncate(4, name)", "id" for identity, "void(x)".
  std::string ToExpressionString(std::string_view source_name) const;

  /// Whether the transform accepts a source of this type (spec's transform table).
  bool CanTransform(const DataType& source) const;
  /// The result type for a source type: identity/truncate keep it, bucket -> int,
  /// year/month/day/hour -> int (day's values are dates by the spec: kDate), void keeps the
  /// source type. kInvalidArgument when CanTransform is false.
  Result<TypePtr> ResultType(const TypePtr& source) const;

  /// Applies the transform to one value. NULL maps to NULL (void maps everything to NULL).
  Result<Scalar> Apply(const Scalar& value) const;
  /// Applies the transform to every value of an array (NULLs stay NULL); the result has
  /// ResultType(values.type()).
  Result<ArrayPtr> Apply(const Array& values) const;

  /// The human form of a transformed value, as used in partition paths and partition
  /// metadata tables: year "2024", month "2024-03", day "2024-03-07", hour "2024-03-07-13",
  /// bucket/identity values in their text form, "null" for NULL.
  std::string ToHumanString(const Scalar& transformed) const;

  /// True for transforms where a <= b implies T(a) <= T(b) (identity, truncate and the
  /// temporal ones).
  bool PreservesOrder() const;
  /// True when an ordering by this transform of a column also orders by `other`
  /// of the same column (identity satisfies all order-preserving ones; hour satisfies day,
  /// month, year; day satisfies month, year; month satisfies year; equal transforms).
  bool SatisfiesOrderOf(const Transform& other) const;

  bool operator==(const Transform& other) const {
    return kind_ == other.kind_ && param_ == other.param_ && unknown_name_ == other.unknown_name_;
  }
  bool operator!=(const Transform& other) const { return !(*this == other); }

 private:
  Transform(TransformKind kind, int32_t param) : kind_(kind), param_(param) {}

  TransformKind kind_;
  int32_t param_;
  std::string unknown_name_;
};

/// Murmur3 x86_32 with seed 0 over raw bytes, as the spec's bucket transform uses it.
int32_t Murmur3Hash32(const void* data, size_t length);

/// The spec's bucket hash of one non-null value (int and date hash as long; decimal as its
/// minimal big-endian two's-complement bytes; time/timestamps as long micros, ns
/// timestamps converted to micros; string as UTF-8; uuid as 16 big-endian bytes; fixed and
/// binary as their bytes). kInvalidArgument for NULL or an unsupported type.
Result<int32_t> BucketHash(const Scalar& value);

}  // namespace floe::iceberg
