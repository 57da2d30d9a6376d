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

/// bytea's hex input after its "\x" (and decode(text, 'hex')): pairs of hex digits,
/// whitespace between them allowed. kInvalidArgument "invalid hexadecimal digit: \"g\"" or
/// "invalid hexadecimal data: odd number of digits".
Status ParseHexBytes(std::string_view text, std::string* out);
/// bytea's escape input (and decode(text, 'escape')): "\\" for a backslash, "\ooo" for
/// an octal byte, other bytes as they are. kInvalidArgument "invalid input syntax for type
/// bytea" for any other backslash.
Status ParseEscapedBytes(std::string_view text, std::string* out);

/// The weekday of a day number (days since 1970-01-01, a Thursday): Monday = 0 .. Sunday = 6.
constexpr int64_t MondayBasedWeekday(int64_t days) { return FloorMod(days + 3, 7); }

/// An ISO 8601 week date's year (astronomical) and week (1..53).
struct IsoWeek {
  int64_t year;
  int64_t week;
};

/// The ISO week a day number falls in: a week runs Monday to Sunday and belongs to the
/// year its Thursday falls in.
constexpr IsoWeek IsoWeekOf(int64_t days) {
  const int64_t thursday = days - MondayBasedWeekday(days) + 3;
  const int64_t year = CivilFromDays(thursday).year;
  return {year, (thursday - DaysFromCivil(year, 1, 1)) / 7 + 1};
}

/// The day number of the Monday that starts ISO week 1 of `year` (the week of January 4).
constexpr int64_t IsoYearStart(int64_t year) {
  const int64_t january4 = DaysFromCivil(year, 1, 4);
  return january4 - MondayBasedWeekday(january4);
}

/// "integer out of range" (smallint, bigint, tinyint by the type).
Status IntOutOfRange(TypeId id);

/// 10^n for 0 <= n <= 38.
Int128 Pow10(int n);

/// The special values 'infinity' and '-infinity' of dates and timestamps: the ends of
/// the storage range, as PostgreSQL stores them.
inline constexpr int32_t kDateInfinity = INT32_MAX;
inline constexpr int32_t kDateMinusInfinity = INT32_MIN;
inline constexpr int64_t kTimestampInfinity = INT64_MAX;
inline constexpr int64_t kTimestampMinusInfinity = INT64_MIN;

/// PostgreSQL's text input of dates, times and timestamps (datetime_input.cc), with
/// DateStyle ISO, MDY and the session zone UTC: ISO forms ("1997-02-10 17:32:01-08",
/// "1997-02-10T17:32:01Z"), textual ones ("Mon Feb 10 17:32:01 1997 PST",
/// "Feb-10-1997"), run-together digits ("19970210 173201"), "1997.041" (day of year),
/// Julian days ("J2451187"), BC years, zone abbreviations, POSIX zones ("GMT+8") and
/// full zone names ("America/New_York", from the system's tz database), and the special
/// values 'now', 'today', 'tomorrow', 'yesterday', 'epoch', 'infinity', '-infinity' and
/// (for time) 'allballs'. A zone is applied for timestamptz only; the others ignore it as
/// PostgreSQL does. kInvalidArgument "invalid input syntax for type date: \"...\"",
/// "date/time field value out of range: \"...\"", "time zone \"...\" not recognized".
Result<int32_t> ParseDate(std::string_view text);
/// A time of day as microseconds since midnight.
Result<int64_t> ParseTime(std::string_view text);
/// A timestamp as microseconds since the epoch (UTC with `with_zone`).
Result<int64_t> ParseTimestamp(std::string_view text, bool with_zone);

/// A time zone as AT TIME ZONE names one: a zone abbreviation ('PST': a fixed offset), a
/// POSIX offset ('+05', 'UTC+5': hours WEST of UTC, as PostgreSQL reads them) or a name of
/// the system's tz database ('America/New_York', 'Japan'; case-insensitive).
struct TimeZone {
  int64_t fixed_seconds = 0;    // seconds east of UTC, when `rules` is null
  const void* rules = nullptr;  // the tz database's rules (datetime_input.cc)
};
/// kInvalidArgument "time zone \"x\" not recognized".
Result<TimeZone> LookupTimeZone(std::string_view name);
/// The zone's offset (seconds east of UTC) at a UTC instant, or at a local wall-clock time
/// (seconds since the epoch as if it were UTC; a time that a transition skips or repeats
/// reads as PostgreSQL reads it). kNotSupported past the tz database's last transition of a
/// zone with daylight-saving rules after it.
Result<int64_t> ZoneOffsetAtUtc(const TimeZone& zone, int64_t utc_seconds);
Result<int64_t> ZoneOffsetAtLocal(const TimeZone& zone, int64_t local_seconds);
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

/// PostgreSQL's record input (record_in) of each string into the struct type `to`
/// (record_functions.cc): '(1,"a b",,"x""y")', an empty unquoted field being NULL; the fields
/// take their types' text input. kInvalidArgument "malformed record literal: \"...\" (too
/// few columns)" and the like on bad syntax.
Result<ArrayPtr> ParseRecordTexts(const Array& strings, const TypePtr& to, MemoryPool* pool);

/// A record cast to another struct type of as many fields, field by field by position (the
/// names are `to`'s), each by the cast rules (record_functions.cc).
Result<ArrayPtr> CastRecord(const Array& in, const TypePtr& to, MemoryPool* pool);

/// A one-value array holding `scalar`.
Result<ArrayPtr> ScalarToArray(const Scalar& scalar, int64_t length, MemoryPool* pool);

}  // namespace floe::expr::internal
