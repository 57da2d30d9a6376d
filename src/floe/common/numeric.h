#pragma once

// PostgreSQL's numeric without a precision: a decimal number that carries its own scale
// (1.50 and 1.5 are equal values that print differently), plus NaN and the infinities.
// The result scale of each operation follows PostgreSQL's numeric.c: the larger scale for
// + and -, the sum for *, and for / at least 16 significant digits (select_div_scale), so
// that avg(integer) of 38 / 3 is 12.6666666666666667.
//
// The engine stores one in 18 bytes (type/type.h Extension::kNumeric over fixed(18)): the
// int128 unscaled value and the int16 scale, little-endian; NaN and the infinities have
// negative scales. Unlike PostgreSQL's, a value holds at most 38 significant digits (an
// int128) and a scale of at most 1000: an operation whose exact result needs more fails
// with kNotSupported rather than lose digits.

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/common/result.h"

namespace floe {

struct NumericValue {
  enum class Kind : uint8_t { kFinite, kNaN, kPositiveInfinity, kNegativeInfinity };
  Kind kind = Kind::kFinite;
  /// The value is unscaled * 10^-scale (finite values only; 0 otherwise).
  __int128 unscaled = 0;
  int32_t scale = 0;

  bool is_finite() const { return kind == Kind::kFinite; }
  bool is_nan() const { return kind == Kind::kNaN; }
  bool is_infinite() const {
    return kind == Kind::kPositiveInfinity || kind == Kind::kNegativeInfinity;
  }

  static NumericValue Finite(__int128 unscaled, int32_t scale) {
    return NumericValue{Kind::kFinite, unscaled, scale};
  }
  static NumericValue NaN() { return NumericValue{Kind::kNaN, 0, 0}; }
  static NumericValue Infinity(bool negative) {
    return NumericValue{negative ? Kind::kNegativeInfinity : Kind::kPositiveInfinity, 0, 0};
  }
};

inline constexpr int kNumericBytes = 18;
/// The largest scale a value may have (PostgreSQL's NUMERIC_MAX_DISPLAY_SCALE).
inline constexpr int kNumericMaxScale = 1000;
/// The most significant digits a value may have.
inline constexpr int kNumericMaxDigits = 38;

/// The 18 stored bytes of a value, and back (`bytes` has kNumericBytes).
void StoreNumeric(const NumericValue& v, uint8_t* out);
std::string NumericBytes(const NumericValue& v);
NumericValue NumericFromBytes(std::string_view bytes);

/// PostgreSQL's numeric input: optional blanks and sign, digits with an optional point and
/// exponent ("-12.50", ".5", "1.5e3" = 1500, "1e-3" = 0.001), or NaN, Infinity, inf
/// (case-insensitive, signed infinities). kInvalidArgument 'invalid input syntax for type
/// numeric: "..."'; kNotSupported beyond 38 significant digits or scale 1000.
Result<NumericValue> ParseNumeric(std::string_view text);
/// PostgreSQL's output: every digit of the scale ("0.50", "-3"), "NaN", "Infinity",
/// "-Infinity".
void AppendNumericText(const NumericValue& v, std::string* out);
std::string NumericText(const NumericValue& v);

/// Order and equality as PostgreSQL's: by value whatever the scales (1.5 = 1.50), with
/// -Infinity < finite values < Infinity < NaN, and NaN equal to itself.
int CompareNumerics(const NumericValue& a, const NumericValue& b);
/// A key of kNumericBytes bytes whose unsigned byte order is the order above, and which is
/// the same for equal values (1.5 and 1.50): for sorting, grouping and hashing.
void StoreNumericKey(const NumericValue& v, uint8_t* out);

Result<NumericValue> AddNumerics(const NumericValue& a, const NumericValue& b);
Result<NumericValue> SubtractNumerics(const NumericValue& a, const NumericValue& b);
Result<NumericValue> MultiplyNumerics(const NumericValue& a, const NumericValue& b);
/// a / b at PostgreSQL's scale for it (select_div_scale), rounded half away from zero.
/// kInvalidArgument "division by zero".
Result<NumericValue> DivideNumerics(const NumericValue& a, const NumericValue& b);
/// a / b rounded half away from zero to `scale` digits.
Result<NumericValue> DivideNumericsAtScale(const NumericValue& a, const NumericValue& b, int scale);
/// The remainder of a / b truncated, with the sign of a, at the larger scale.
Result<NumericValue> ModNumerics(const NumericValue& a, const NumericValue& b);
Result<NumericValue> NegateNumeric(const NumericValue& v);
NumericValue AbsNumeric(const NumericValue& v);
/// -1, 0 or 1 (scale 0), NaN for NaN.
NumericValue SignNumeric(const NumericValue& v);
/// round(v, digits) and trunc(v, digits): half away from zero / toward zero at `digits`
/// places (negative: left of the point); the result has scale max(digits, 0).
Result<NumericValue> RoundNumeric(const NumericValue& v, int digits);
Result<NumericValue> TruncNumeric(const NumericValue& v, int digits);
/// ceil and floor, scale 0.
Result<NumericValue> CeilNumeric(const NumericValue& v);
Result<NumericValue> FloorNumeric(const NumericValue& v);

/// The square root rounded half away from zero to `scale` digits. kInvalidArgument "cannot
/// take square root of a negative number".
Result<NumericValue> SqrtNumeric(const NumericValue& v, int scale);
/// PostgreSQL's numeric variance of n values from their sum and sum of squares:
/// (n * sum_squares - sum^2) / (n * (n - 1)) for the sample, / n^2 for the population, at
/// numeric division's scale (0, of scale 0, when the numerator is not positive); with
/// `root` the standard deviation, the square root of that at the same scale. n must exceed
/// 1 for the sample and 0 for the population.
Result<NumericValue> NumericVariance(int64_t n, const NumericValue& sum,
                                     const NumericValue& sum_squares, bool sample, bool root);

/// Conversions. From a double as PostgreSQL's float8_numeric (its 15 significant digits,
/// `digits` = 6 for a float4), to a double as numeric_float8 (the nearest double).
Result<NumericValue> NumericFromDouble(double v, int digits = 15);
double NumericToDouble(const NumericValue& v);
/// To an integer of [min, max], rounding half away from zero. kInvalidArgument
/// "cannot convert NaN to <type_name>", "cannot convert infinity to <type_name>" and
/// `out_of_range` when it does not fit.
Result<int64_t> NumericToInt64(const NumericValue& v, int64_t min, int64_t max,
                               std::string_view type_name, const Status& out_of_range);
/// The unscaled value at `scale`, rounding half away from zero; kInvalidArgument
/// "numeric field overflow" unless it has at most `precision` digits. NaN and the
/// infinities do not fit.
Result<__int128> NumericToDecimal(const NumericValue& v, int precision, int scale);

}  // namespace floe
