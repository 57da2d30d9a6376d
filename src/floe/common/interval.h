#pragma once

// PostgreSQL's interval: months, days and microseconds kept apart, since a month has no
// fixed number of days and a day no fixed number of hours across a time-zone change. Two
// intervals compare by their span with a month as 30 days and a day as 24 hours ('1 mon'
// = '30 days'), while each prints its own fields.
//
// The engine stores one in 16 bytes (type/type.h Extension::kInterval over fixed(16)):
// int32 months, int32 days, int64 microseconds, little-endian.

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/common/result.h"

namespace floe {

struct IntervalValue {
  int32_t months = 0;
  int32_t days = 0;
  int64_t micros = 0;

  bool operator==(const IntervalValue&) const = default;
};

inline constexpr int kIntervalBytes = 16;

/// The 16 stored bytes of an interval, and back (`bytes` has kIntervalBytes).
std::string IntervalBytes(const IntervalValue& v);
IntervalValue IntervalFromBytes(std::string_view bytes);

/// The span PostgreSQL compares by, in microseconds (a month is 30 days).
__int128 IntervalSpan(const IntervalValue& v);
inline int CompareIntervals(const IntervalValue& a, const IntervalValue& b) {
  const __int128 x = IntervalSpan(a), y = IntervalSpan(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

/// The fields an interval's typmod allows (INTERVAL '1' DAY, INTERVAL '1:2' HOUR TO
/// MINUTE), as PostgreSQL's bit mask: year 4, month 2, day 8, hour 1024, minute 2048,
/// second 4096. 0 is no restriction. The mask decides what a bare number means and drops
/// the fields below the lowest one given.
inline constexpr int64_t kIntervalMaskYear = 4;
inline constexpr int64_t kIntervalMaskMonth = 2;
inline constexpr int64_t kIntervalMaskDay = 8;
inline constexpr int64_t kIntervalMaskHour = 1024;
inline constexpr int64_t kIntervalMaskMinute = 2048;
inline constexpr int64_t kIntervalMaskSecond = 4096;

/// PostgreSQL's interval input: '1 day 02:03:04', '@ 1 minute ago', '-1 +02:03',
/// '10 years -11 month', '1.5 weeks', '1-2' (years-months), ISO 8601 ('P1Y2M3DT4H',
/// 'P0001-02-03T04:05:06'). kInvalidArgument: 'invalid input syntax for type interval:
/// "..."' or 'interval field value out of range: "..."'.
Result<IntervalValue> ParseIntervalText(std::string_view text, int64_t mask = 0);

/// PostgreSQL's output (IntervalStyle postgres): '1 year 2 mons -3 days +04:05:06.5',
/// '00:00:00' for zero.
void AppendIntervalText(const IntervalValue& v, std::string* out);
std::string IntervalText(const IntervalValue& v);

/// Arithmetic with PostgreSQL's rules and its error "interval out of range".
Result<IntervalValue> AddIntervals(const IntervalValue& a, const IntervalValue& b);
Result<IntervalValue> SubtractIntervals(const IntervalValue& a, const IntervalValue& b);
Result<IntervalValue> NegateInterval(const IntervalValue& v);
/// interval * float8 and interval / float8: a fraction of a month spills into days (30 a
/// month) and a fraction of a day into microseconds. Division by zero is an error.
Result<IntervalValue> MultiplyInterval(const IntervalValue& v, double factor);
Result<IntervalValue> DivideInterval(const IntervalValue& v, double divisor);

/// Whole days out of the microseconds (justify_hours), whole months out of the days
/// (justify_days), both with the signs made to agree (justify_interval).
Result<IntervalValue> JustifyHours(const IntervalValue& v);
Result<IntervalValue> JustifyDays(const IntervalValue& v);
Result<IntervalValue> JustifyInterval(const IntervalValue& v);

/// a - b of two timestamps (microseconds since the epoch) as PostgreSQL gives it: days
/// and microseconds, no months.
Result<IntervalValue> TimestampDifference(int64_t a, int64_t b);

/// age(a, b): the difference in years, months and days of the calendar (borrowing the
/// length of the earlier timestamp's month), then the time of day.
Result<IntervalValue> TimestampAge(int64_t a, int64_t b);

}  // namespace floe
