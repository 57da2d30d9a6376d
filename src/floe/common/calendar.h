#pragma once

// Calendar arithmetic every module shares: floor division, and the proleptic Gregorian
// calendar in UTC (days since 1970-01-01, the storage form of DATE and of Iceberg's day
// transform). Header-only and constexpr; nothing here overflows for any input that the
// function comments allow.

#include <cstdint>

namespace floe {

inline constexpr int64_t kMicrosPerSecond = 1000000;
inline constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
inline constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
inline constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;
inline constexpr int64_t kNanosPerSecond = 1000 * kMicrosPerSecond;

/// a / b rounded toward negative infinity. Any a; b != 0 and not (a == INT64_MIN, b == -1).
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/// The remainder that goes with FloorDiv: it has b's sign (0 <= result < b for b > 0).
/// Computed from a % b, so a == INT64_MIN does not overflow.
constexpr int64_t FloorMod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
}

/// A calendar date; `year` is astronomical (0 = 1 BC, -1 = 2 BC).
struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

/// Days since 1970-01-01 of a proleptic Gregorian date. |year| < 2^52; month 1..12; day
/// may run past the month's end (it counts on into the next month).
constexpr int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = FloorDiv(year, 400);
  const int64_t yoe = year - era * 400;
  const int64_t mp = month > 2 ? month - 3 : month + 9;
  const int64_t doy = (153 * mp + 2) / 5 + day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// The calendar date of a day number (days since 1970-01-01). |days| < 2^60.
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

/// Days in a month (1..12) of a year.
constexpr int DaysInMonth(int64_t year, int month) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

/// `value` plus an interval of `months`, `days` and `units`, where `value` and `units`
/// count the same unit (`units_per_day` of them make a day: microseconds or nanoseconds
/// since the epoch), as PostgreSQL adds an interval to a timestamp: the months first (the
/// day of the month clamped to the new month's length, the time of day kept), then the
/// days, then the units. False when the result does not fit int64.
constexpr bool AddInterval(int64_t value, int64_t units_per_day, int64_t months, int64_t days,
                           int64_t units, int64_t* out) {
  int64_t v = value;
  if (months != 0) {
    const CivilDate date = CivilFromDays(FloorDiv(value, units_per_day));
    int64_t month_index = 0;
    if (__builtin_add_overflow(date.year * 12 + (date.month - 1), months, &month_index)) {
      return false;
    }
    const int64_t year = FloorDiv(month_index, 12);
    // Past +-2^40 years no day number times a day's units fits int64 (and DaysFromCivil
    // needs |year| < 2^52).
    if (year > (int64_t{1} << 40) || year < -(int64_t{1} << 40)) return false;
    const int month = static_cast<int>(FloorMod(month_index, 12)) + 1;
    const int day = date.day < DaysInMonth(year, month) ? date.day : DaysInMonth(year, month);
    if (__builtin_mul_overflow(DaysFromCivil(year, month, day), units_per_day, &v) ||
        __builtin_add_overflow(v, FloorMod(value, units_per_day), &v)) {
      return false;
    }
  }
  int64_t delta = 0;
  return !__builtin_mul_overflow(days, units_per_day, &delta) &&
         !__builtin_add_overflow(v, delta, &v) && !__builtin_add_overflow(v, units, out);
}

}  // namespace floe
