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
#include "floe/common/calendar.h"
#include "floe/common/result.h"
#include "floe/type/sql_type_name.h"
#include "floe/type/type.h"

namespace floe::expr::internal {

/// PostgreSQL's timestamp range in days: 4714-11-24 BC (Julian day 0) up to the end of
/// 294276 AD (int64 microseconds end earlier, in 294247).
inline constexpr int64_t kMinTimestampDays = -2440588;
inline constexpr int64_t kEndTimestampDays = DaysFromCivil(294277, 1, 1);
/// PostgreSQL's date range: from 4714-11-24 BC up to the end of 5874897 AD.
inline constexpr int64_t kEndDateDays = DaysFromCivil(5874898, 1, 1);

/// Whether `days` (since 1970-01-01) is a date PostgreSQL has.
constexpr bool IsValidDate(int64_t days) {
  return days >= kMinTimestampDays && days < kEndDateDays;
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

/// CAST of any array to `to` by the cast rules (the cast kernel's own conversion).
Result<ArrayPtr> CastArrayValues(const Array& in, const TypePtr& to, MemoryPool* pool);

/// PostgreSQL's array input (array_in) of each string into the list type `to`, nested as
/// deep as `to` (array_functions.cc): '{1,2,NULL}', '{"a b",c}', '{{1,2},{3,4}}', with
/// quoting and backslash escapes; the elements take their type's text input. kInvalidArgument
/// "malformed array literal: \"...\"" on bad syntax, on sub-arrays of different lengths and
/// on another number of dimensions than `to` has.
Result<ArrayPtr> ParseArrayTexts(const Array& strings, const TypePtr& to, MemoryPool* pool);

/// A one-value array holding `scalar`.
Result<ArrayPtr> ScalarToArray(const Scalar& scalar, int64_t length, MemoryPool* pool);

}  // namespace floe::expr::internal
