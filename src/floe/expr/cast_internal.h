#pragma once

// Value-level conversions shared by the cast kernel and the scalar functions: calendar
// arithmetic (proleptic Gregorian, UTC), PostgreSQL's text input forms of dates, times,
// timestamps and numerics, decimal rescaling, and reading one value of an array as a
// Scalar. Private to the expr module's function files.

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/batch/array.h"
#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/type/sql_type_name.h"
#include "floe/type/type.h"

namespace floe::expr::internal {

inline constexpr int64_t kMicrosPerSecond = 1000000;
inline constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
inline constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
inline constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
constexpr int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

/// A calendar date; `year` is astronomical (0 = 1 BC).
struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

/// Days since 1970-01-01 of a proleptic Gregorian date.
constexpr int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = FloorDiv(year, 400);
  const int64_t yoe = year - era * 400;
  const int64_t mp = month > 2 ? month - 3 : month + 9;
  const int64_t doy = (153 * mp + 2) / 5 + day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// The calendar date of a day number (days since 1970-01-01).
constexpr CivilDate CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = FloorDiv(days, 146097);
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return CivilDate{yoe + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

constexpr bool IsLeapYear(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}
inline int DaysInMonth(int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

/// "integer out of range" (smallint, bigint, tinyint by the type).
Status IntOutOfRange(TypeId id);

/// 10^n for 0 <= n <= 38.
Int128 Pow10(int n);

/// PostgreSQL's text input of a date ("1998-12-01", "1998-12-01 BC", a trailing time is
/// ignored). kInvalidArgument "invalid input syntax for type date: \"...\"" or
/// "date/time field value out of range: \"...\"".
Result<int32_t> ParseDate(std::string_view text);
/// "HH:MM[:SS[.ffffff]]" as microseconds since midnight.
Result<int64_t> ParseTime(std::string_view text);
/// "YYYY-MM-DD[( |T)HH:MM[:SS[.ffffff]]][zone]" as microseconds since the epoch. With
/// `with_zone` a zone ("Z", "UTC", "+02", "+0200", "+02:00") is subtracted; without, it
/// is ignored as PostgreSQL does.
Result<int64_t> ParseTimestamp(std::string_view text, bool with_zone);
/// A numeric literal ("-12.5", "1e3", " .5 ") rounded half away from zero to `scale`
/// digits; kInvalidArgument on bad syntax or when it needs more than `precision` digits.
Result<Int128> ParseDecimal(std::string_view text, int precision, int scale);
/// An unscaled decimal at `from_scale` rescaled to decimal(precision, scale), rounding
/// half away from zero; "numeric field overflow" when it does not fit.
Result<Int128> RescaleDecimal(Int128 value, int from_scale, int precision, int scale);
/// "numeric field overflow: a field with precision p, scale s must round to an absolute
/// value less than 10^(p-s)".
Status DecimalOverflow(int precision, int scale);
/// A decimal as a double (correctly rounded).
double DecimalToDouble(Int128 value, int scale);

/// Value `i` of a non-nested array as a Scalar (NULL when it is null).
Scalar ScalarAt(const Array& array, int64_t i);
/// A one-value array holding `scalar`.
Result<ArrayPtr> ScalarToArray(const Scalar& scalar, int64_t length, MemoryPool* pool);

}  // namespace floe::expr::internal
