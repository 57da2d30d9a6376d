// Date/time functions with PostgreSQL's semantics: date_trunc, extract (numeric) and
// date_part (float8), make_date, make_timestamp, to_timestamp(float8) (to_char and
// to_timestamp(text, text) are in formatting_functions.cc). Values are int32 days and int64
// microseconds; the session time zone is UTC, so timestamptz behaves like timestamp.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/common/interval.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"

namespace floe::expr::internal {

namespace {

using Args = std::vector<ColumnarValue>;

enum class Unit {
  kMicroseconds,
  kMilliseconds,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kWeek,
  kMonth,
  kQuarter,
  kYear,
  kDecade,
  kCentury,
  kMillennium,
  kDow,
  kIsoDow,
  kDoy,
  kEpoch,
  kIsoYear,
  kJulian,
  kTimezone,
  kTimezoneHour,
  kTimezoneMinute,
  kUnknown,
};

// PostgreSQL's unit spellings (case-insensitive; plurals and abbreviations).
Unit ParseUnit(std::string_view text) {
  std::string s;
  for (char c : text) s.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  struct Entry {
    std::string_view name;
    Unit unit;
  };
  static constexpr Entry kUnits[] = {
      {"microsecond", Unit::kMicroseconds},
      {"microseconds", Unit::kMicroseconds},
      {"us", Unit::kMicroseconds},
      {"usec", Unit::kMicroseconds},
      {"usecs", Unit::kMicroseconds},
      {"useconds", Unit::kMicroseconds},
      {"millisecond", Unit::kMilliseconds},
      {"milliseconds", Unit::kMilliseconds},
      {"ms", Unit::kMilliseconds},
      {"msec", Unit::kMilliseconds},
      {"msecs", Unit::kMilliseconds},
      {"mseconds", Unit::kMilliseconds},
      {"second", Unit::kSecond},
      {"seconds", Unit::kSecond},
      {"s", Unit::kSecond},
      {"sec", Unit::kSecond},
      {"secs", Unit::kSecond},
      {"minute", Unit::kMinute},
      {"minutes", Unit::kMinute},
      {"m", Unit::kMinute},
      {"min", Unit::kMinute},
      {"mins", Unit::kMinute},
      {"hour", Unit::kHour},
      {"hours", Unit::kHour},
      {"h", Unit::kHour},
      {"hr", Unit::kHour},
      {"hrs", Unit::kHour},
      {"day", Unit::kDay},
      {"days", Unit::kDay},
      {"d", Unit::kDay},
      {"week", Unit::kWeek},
      {"weeks", Unit::kWeek},
      {"w", Unit::kWeek},
      {"month", Unit::kMonth},
      {"months", Unit::kMonth},
      {"mon", Unit::kMonth},
      {"mons", Unit::kMonth},
      {"quarter", Unit::kQuarter},
      {"qtr", Unit::kQuarter},
      {"year", Unit::kYear},
      {"years", Unit::kYear},
      {"y", Unit::kYear},
      {"yr", Unit::kYear},
      {"yrs", Unit::kYear},
      {"decade", Unit::kDecade},
      {"decades", Unit::kDecade},
      {"dec", Unit::kDecade},
      {"decs", Unit::kDecade},
      {"century", Unit::kCentury},
      {"centuries", Unit::kCentury},
      {"c", Unit::kCentury},
      {"cent", Unit::kCentury},
      {"millennium", Unit::kMillennium},
      {"millennia", Unit::kMillennium},
      {"millenniums", Unit::kMillennium},
      {"mil", Unit::kMillennium},
      {"mils", Unit::kMillennium},
      {"dow", Unit::kDow},
      {"isodow", Unit::kIsoDow},
      {"doy", Unit::kDoy},
      {"epoch", Unit::kEpoch},
      {"isoyear", Unit::kIsoYear},
      {"julian", Unit::kJulian},
      {"j", Unit::kJulian},
      {"timezone", Unit::kTimezone},
      {"timezone_h", Unit::kTimezoneHour},
      {"timezone_hour", Unit::kTimezoneHour},
      {"timezone_m", Unit::kTimezoneMinute},
      {"timezone_minute", Unit::kTimezoneMinute},
  };
  for (const Entry& e : kUnits) {
    if (e.name == s) return e.unit;
  }
  return Unit::kUnknown;
}

Status UnitNotRecognized(std::string_view unit, const TypePtr& type) {
  return Status::Invalid("unit \"{}\" not recognized for type {}", unit, SqlTypeName(*type));
}
Status UnitNotSupported(std::string_view unit, const TypePtr& type) {
  return Status::Invalid("unit \"{}\" not supported for type {}", unit, SqlTypeName(*type));
}

// PostgreSQL's display year (1 BC is -1) from an astronomical year (1 BC is 0).
int64_t DisplayYear(int64_t year) { return year > 0 ? year : year - 1; }

// The first year of the decade/century/millennium containing display year `y`
// (PostgreSQL's date_trunc).
int64_t TruncYear(Unit unit, int64_t y) {
  switch (unit) {
    case Unit::kDecade:
      return y > 0 ? (y / 10) * 10 : -((8 - (y - 1)) / 10) * 10;
    case Unit::kCentury:
      return y > 0 ? ((y + 99) / 100) * 100 - 99 : -((99 - (y - 1)) / 100) * 100 + 1;
    case Unit::kMillennium:
      return y > 0 ? ((y + 999) / 1000) * 1000 - 999 : -((999 - (y - 1)) / 1000) * 1000 + 1;
    default:
      return y;
  }
}

// A truncated timestamp, computed in 128 bits: truncating a value near the start of the
// int64 range can land before it.
Result<int64_t> TruncatedTimestamp(__int128 micros) {
  if (micros < std::numeric_limits<int64_t>::min()) {
    return Status::Invalid("timestamp out of range");
  }
  return static_cast<int64_t>(micros);
}

// date_trunc over microseconds since the epoch.
Result<int64_t> TruncTimestamp(Unit unit, int64_t ts) {
  if (ts == kTimestampInfinity || ts == kTimestampMinusInfinity) return ts;
  const int64_t days = FloorDiv(ts, kMicrosPerDay);
  auto floor_to = [ts](int64_t unit_micros) {
    return TruncatedTimestamp(static_cast<__int128>(FloorDiv(ts, unit_micros)) * unit_micros);
  };
  switch (unit) {
    case Unit::kMicroseconds:
      return ts;
    case Unit::kMilliseconds:
      return floor_to(1000);
    case Unit::kSecond:
      return floor_to(kMicrosPerSecond);
    case Unit::kMinute:
      return floor_to(kMicrosPerMinute);
    case Unit::kHour:
      return floor_to(kMicrosPerHour);
    case Unit::kDay:
      return floor_to(kMicrosPerDay);
    case Unit::kWeek:
      return TruncatedTimestamp(static_cast<__int128>(days - MondayBasedWeekday(days)) *
                                kMicrosPerDay);
    default:
      break;
  }
  const CivilDate c = CivilFromDays(days);
  int64_t year = c.year;
  int month = c.month;
  switch (unit) {
    case Unit::kMonth:
      break;
    case Unit::kQuarter:
      month = (month - 1) / 3 * 3 + 1;
      break;
    case Unit::kYear:
      month = 1;
      break;
    case Unit::kDecade:
    case Unit::kCentury:
    case Unit::kMillennium: {
      const int64_t display = TruncYear(unit, DisplayYear(year));
      year = display > 0 ? display : display + 1;
      month = 1;
      break;
    }
    default:
      return Status::Internal("date_trunc unit");
  }
  return TruncatedTimestamp(static_cast<__int128>(DaysFromCivil(year, month, 1)) * kMicrosPerDay);
}

// A field of a timestamp (or, with `time_only`, of a time of day), times 10^6 so that
// fractional fields (second, milliseconds, epoch, julian) are exact.
Result<Int128> ExtractMicroUnits(Unit unit, std::string_view unit_text, const TypePtr& type,
                                 int64_t ts, bool time_only) {
  constexpr Int128 kM = 1000000;
  if (!time_only && (ts == kTimestampInfinity || ts == kTimestampMinusInfinity)) {
    // PostgreSQL answers +-Infinity or null here, which these result types cannot hold.
    return Status::NotSupported("extract from an infinite {} is not supported", SqlTypeName(*type));
  }
  const int64_t days = FloorDiv(ts, kMicrosPerDay);
  const int64_t in_day = FloorMod(ts, kMicrosPerDay);
  const int64_t in_minute = in_day % kMicrosPerMinute;
  switch (unit) {
    case Unit::kMicroseconds:
      return Int128{in_minute} * kM;
    case Unit::kMilliseconds:
      return Int128{in_minute} * 1000;
    case Unit::kSecond:
      return Int128{in_minute};
    case Unit::kMinute:
      return Int128{in_day / kMicrosPerMinute % 60} * kM;
    case Unit::kHour:
      return Int128{in_day / kMicrosPerHour} * kM;
    case Unit::kEpoch:
      return Int128{ts};
    case Unit::kTimezone:
    case Unit::kTimezoneHour:
    case Unit::kTimezoneMinute:
      if (type->id() != TypeId::kTimestampTz) return UnitNotSupported(unit_text, type);
      return Int128{0};
    case Unit::kUnknown:
      return UnitNotRecognized(unit_text, type);
    default:
      break;
  }
  if (time_only) return UnitNotSupported(unit_text, type);
  const CivilDate c = CivilFromDays(days);
  const int64_t year = DisplayYear(c.year);
  switch (unit) {
    case Unit::kDay:
      return Int128{c.day} * kM;
    case Unit::kMonth:
      return Int128{c.month} * kM;
    case Unit::kQuarter:
      return Int128{(c.month - 1) / 3 + 1} * kM;
    case Unit::kYear:
      return Int128{year} * kM;
    case Unit::kDecade:
      return Int128{year >= 0 ? year / 10 : -((8 - (year - 1)) / 10)} * kM;
    case Unit::kCentury:
      return Int128{year > 0 ? (year + 99) / 100 : -((99 - (year - 1)) / 100)} * kM;
    case Unit::kMillennium:
      return Int128{year > 0 ? (year + 999) / 1000 : -((999 - (year - 1)) / 1000)} * kM;
    case Unit::kWeek:
      return Int128{IsoWeekOf(days).week} * kM;
    case Unit::kIsoYear: {
      const int64_t iso = IsoWeekOf(days).year;
      return Int128{iso > 0 ? iso : iso - 1} * kM;
    }
    case Unit::kDow:
      return Int128{FloorMod(days + 4, 7)} * kM;
    case Unit::kIsoDow:
      return Int128{MondayBasedWeekday(days) + 1} * kM;
    case Unit::kDoy:
      return Int128{days - DaysFromCivil(c.year, 1, 1) + 1} * kM;
    case Unit::kJulian: {
      // Julian day number plus the fraction of the day, rounded to six decimals.
      const Int128 whole = Int128{days + 2440588} * kM;
      const Int128 frac = (Int128{in_day} * kM + kMicrosPerDay / 2) / kMicrosPerDay;
      return whole + frac;
    }
    default:
      return Status::Internal("extract unit");
  }
}

// A field of an interval, times 10^6 as ExtractMicroUnits gives it: the fields as the
// interval holds them (minutes of its microseconds, months of its months), epoch with a
// year as 365.25 days and a month as 30.
Result<Int128> ExtractIntervalMicroUnits(Unit unit, std::string_view unit_text,
                                         const IntervalValue& v) {
  constexpr Int128 kM = 1000000;
  const int64_t in_minute = v.micros % kMicrosPerMinute;
  const int64_t years = v.months / 12;
  switch (unit) {
    case Unit::kMicroseconds:
      return Int128{in_minute} * kM;
    case Unit::kMilliseconds:
      return Int128{in_minute} * 1000;
    case Unit::kSecond:
      return Int128{in_minute};
    case Unit::kMinute:
      return Int128{v.micros / kMicrosPerMinute % 60} * kM;
    case Unit::kHour:
      return Int128{v.micros / kMicrosPerHour} * kM;
    case Unit::kDay:
      return Int128{v.days} * kM;
    case Unit::kMonth:
      return Int128{v.months % 12} * kM;
    case Unit::kQuarter:
      return Int128{v.months % 12 / 3 + 1} * kM;
    case Unit::kYear:
      return Int128{years} * kM;
    case Unit::kDecade:
      return Int128{years / 10} * kM;
    case Unit::kCentury:
      return Int128{years / 100} * kM;
    case Unit::kMillennium:
      return Int128{years / 1000} * kM;
    case Unit::kEpoch:
      // 365.25 days a year: in microseconds, 31557600 seconds.
      return Int128{years} * 31557600 * kM + Int128{v.months % 12} * 30 * kMicrosPerDay +
             Int128{v.days} * kMicrosPerDay + v.micros;
    case Unit::kUnknown:
      return UnitNotRecognized(unit_text, Interval());
    default:
      return UnitNotSupported(unit_text, Interval());
  }
}

// ---------------------------------------------------------------------------------------
// Resolvers.

// The timestamp type a date/time argument is passed as: timestamps keep theirs (the
// nanosecond ones become microsecond ones), a date becomes timestamptz as PostgreSQL
// prefers (date_trunc) or timestamp (extract/date_part), a time stays a time when
// `allow_time`.
TypePtr TemporalParam(const TypePtr& t, bool date_to_tz, bool allow_time) {
  switch (t->id()) {
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
      return Timestamp();
    case TypeId::kTimestampTz:
    case TypeId::kTimestampTzNs:
      return TimestampTz();
    case TypeId::kDate:
      return date_to_tz ? TimestampTz() : Timestamp();
    case TypeId::kTime:
      return allow_time ? Time() : nullptr;
    default:
      return nullptr;
  }
}

ScalarResolver UnitAndTemporal(std::string name, bool date_to_tz, bool allow_time,
                               TypePtr fixed_return) {
  return [name, date_to_tz, allow_time, fixed_return](const std::vector<TypePtr>& args,
                                                      int* cost) -> Result<ResolvedFunction> {
    if (args.size() != 2) return NoSuchFunction(name, args);
    int c = 0;
    if (!Accepts(args[0], String(), &c)) return NoSuchFunction(name, args);
    TypePtr param = TemporalParam(args[1], date_to_tz, allow_time);
    if (param == nullptr) {
      if (!Accepts(args[1], Timestamp(), &c)) return NoSuchFunction(name, args);
      param = Timestamp();
    } else if (!param->Equals(*args[1])) {
      ++c;
    }
    *cost += c;
    return Resolution(name, {String(), param}, fixed_return ? fixed_return : param);
  };
}

// ---------------------------------------------------------------------------------------
// Kernels.

Result<ColumnarValue> DateTruncKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                      EvalContext& ctx) {
  const TypePtr type = f.arg_types[1];
  // The unit is nearly always a constant: parse it once.
  if (args[0].is_scalar() && !args[0].scalar().is_null()) {
    const std::string& text = args[0].scalar().get<std::string>();
    const Unit unit = ParseUnit(text);
    if (unit == Unit::kUnknown || unit > Unit::kMillennium) return UnitNotRecognized(text, type);
    return Map1Fallible<int64_t, int64_t>(args[1], n, f.return_type, ctx,
                                          [unit](int64_t ts, int64_t* out) -> Status {
                                            FLOE_ASSIGN_OR_RAISE(*out, TruncTimestamp(unit, ts));
                                            return Status::OK();
                                          });
  }
  return Map2Fallible<int64_t, std::string_view, int64_t>(
      args[0], args[1], n, f.return_type, ctx,
      [&type](std::string_view text, int64_t ts, int64_t* out) -> Status {
        const Unit unit = ParseUnit(text);
        if (unit == Unit::kUnknown || unit > Unit::kMillennium) {
          return UnitNotRecognized(text, type);
        }
        FLOE_ASSIGN_OR_RAISE(*out, TruncTimestamp(unit, ts));
        return Status::OK();
      });
}

// extract (numeric, scale 6) and date_part (float8).
ScalarKernel ExtractKernel(bool as_double) {
  return [as_double](const ResolvedFunction& f, const Args& args, int64_t n,
                     EvalContext& ctx) -> Result<ColumnarValue> {
    const TypePtr type = f.arg_types[1];
    if (type->is_interval()) {
      auto one = [](std::string_view text, std::string_view bytes) -> Result<Int128> {
        return ExtractIntervalMicroUnits(ParseUnit(text), text, IntervalFromBytes(bytes));
      };
      if (as_double) {
        return Map2Fallible<double, std::string_view, std::string_view>(
            args[0], args[1], n, f.return_type, ctx,
            [&](std::string_view text, std::string_view bytes, double* out) -> Status {
              FLOE_ASSIGN_OR_RAISE(Int128 v, one(text, bytes));
              *out = DecimalToDouble(v, 6);
              return Status::OK();
            });
      }
      return Map2Fallible<Int128, std::string_view, std::string_view>(
          args[0], args[1], n, f.return_type, ctx,
          [&](std::string_view text, std::string_view bytes, Int128* out) -> Status {
            FLOE_ASSIGN_OR_RAISE(*out, one(text, bytes));
            return Status::OK();
          });
    }
    const bool time_only = type->id() == TypeId::kTime;
    if (args[0].is_scalar() && !args[0].scalar().is_null()) {
      // The unit is nearly always a constant: parse it once, not per row.
      const std::string& text = args[0].scalar().get<std::string>();
      const Unit unit = ParseUnit(text);
      auto one = [&, unit](int64_t ts) -> Result<Int128> {
        return ExtractMicroUnits(unit, text, type, ts, time_only);
      };
      if (as_double) {
        return Map1Fallible<double, int64_t>(args[1], n, f.return_type, ctx,
                                             [&](int64_t ts, double* out) -> Status {
                                               FLOE_ASSIGN_OR_RAISE(Int128 v, one(ts));
                                               *out = DecimalToDouble(v, 6);
                                               return Status::OK();
                                             });
      }
      return Map1Fallible<Int128, int64_t>(args[1], n, f.return_type, ctx,
                                           [&](int64_t ts, Int128* out) -> Status {
                                             FLOE_ASSIGN_OR_RAISE(*out, one(ts));
                                             return Status::OK();
                                           });
    }
    auto one = [&](std::string_view text, int64_t ts) -> Result<Int128> {
      return ExtractMicroUnits(ParseUnit(text), text, type, ts, time_only);
    };
    if (as_double) {
      return Map2Fallible<double, std::string_view, int64_t>(
          args[0], args[1], n, f.return_type, ctx,
          [&](std::string_view text, int64_t ts, double* out) -> Status {
            FLOE_ASSIGN_OR_RAISE(Int128 v, one(text, ts));
            *out = DecimalToDouble(v, 6);
            return Status::OK();
          });
    }
    return Map2Fallible<Int128, std::string_view, int64_t>(
        args[0], args[1], n, f.return_type, ctx,
        [&](std::string_view text, int64_t ts, Int128* out) -> Status {
          FLOE_ASSIGN_OR_RAISE(*out, one(text, ts));
          return Status::OK();
        });
  };
}

Result<ColumnarValue> MakeDateKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                     EvalContext& ctx) {
  return Map3Fallible<int32_t, int32_t, int32_t, int32_t>(
      args[0], args[1], args[2], n, f.return_type, ctx,
      [](int32_t y, int32_t m, int32_t d, int32_t* out) -> Status {
        // Negative years are BC (make_date(-44, 3, 15) is 0044-03-15 BC).
        const int64_t year = y < 0 ? int64_t{y} + 1 : y;
        if (y == 0 || m < 1 || m > 12 || d < 1 || d > DaysInMonth(year, m)) {
          return Status::Invalid("date field value out of range: {}-{:02}-{:02}", y, m, d);
        }
        const int64_t days = DaysFromCivil(year, m, d);
        if (!IsValidDate(days)) {
          return Status::Invalid("date out of range: {}-{:02}-{:02}", y, m, d);
        }
        *out = static_cast<int32_t>(days);
        return Status::OK();
      });
}

// make_timestamp(year, month, day, hour, min, sec float8).
Result<ColumnarValue> MakeTimestampKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                          EvalContext& ctx) {
  std::vector<ValueReader<int32_t>> ints;
  for (int k = 0; k < 5; ++k) ints.emplace_back(args[static_cast<size_t>(k)]);
  ValueReader<double> seconds(args[5]);
  const bool scalar = AllScalars(args);
  const int64_t rows = scalar ? 1 : n;
  Int64Builder builder(f.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(rows));
  for (int64_t i = 0; i < rows; ++i) {
    bool null = seconds.IsNull(i);
    for (const auto& r : ints) null = null || r.IsNull(i);
    if (null) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    const int32_t y = ints[0][i], m = ints[1][i], d = ints[2][i], h = ints[3][i], mi = ints[4][i];
    const double sec = seconds[i];
    const int64_t year = y < 0 ? int64_t{y} + 1 : y;
    if (y == 0 || m < 1 || m > 12 || d < 1 || d > DaysInMonth(year, m)) {
      return Status::Invalid("date field value out of range: {}-{:02}-{:02}", y, m, d);
    }
    if (h < 0 || h > 24 || mi < 0 || mi > 59 || !(sec >= 0 && sec <= 60) ||
        (h == 24 && (mi != 0 || sec != 0))) {
      return Status::Invalid("time field value out of range: {}:{:02}:{:02}", h, mi, sec);
    }
    const int64_t days = DaysFromCivil(year, m, d);
    // PostgreSQL's range, and int64 microseconds (which end in 294247).
    const __int128 micros = static_cast<__int128>(days) * kMicrosPerDay + h * kMicrosPerHour +
                            mi * kMicrosPerMinute + static_cast<int64_t>(std::nearbyint(sec * 1e6));
    if (days < kMinTimestampDays || days >= kEndTimestampDays ||
        micros > std::numeric_limits<int64_t>::max()) {
      return Status::Invalid("timestamp out of range: {}-{:02}-{:02}", y, m, d);
    }
    builder.UnsafeAppend(static_cast<int64_t>(micros));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  if (scalar) return ColumnarValue(ScalarAt(*out, 0));
  return ColumnarValue(std::move(out));
}

Result<ColumnarValue> ToTimestampKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                        EvalContext& ctx) {
  return Map1Fallible<int64_t, double>(
      args[0], n, f.return_type, ctx, [](double seconds, int64_t* out) -> Status {
        if (std::isnan(seconds)) {
          return Status::Invalid("timestamp cannot be NaN");
        }
        if (std::isinf(seconds)) {
          *out = seconds > 0 ? kTimestampInfinity : kTimestampMinusInfinity;
          return Status::OK();
        }
        char shown[32];
        std::snprintf(shown, sizeof(shown), "%g", seconds);
        // PostgreSQL's range: 4714-11-24 BC .. 294276 AD.
        if (!(seconds >= -210866803200.0 && seconds < 9224318016000.0)) {
          return Status::Invalid("timestamp out of range: \"{}\"", shown);
        }
        // Rounded to microseconds as PostgreSQL does, from its epoch (2000-01-01): the
        // same double arithmetic gives the same microsecond.
        constexpr double kPostgresEpochSeconds = 946684800.0;
        const double micros = std::nearbyint((seconds - kPostgresEpochSeconds) * 1e6);
        const __int128 value =
            static_cast<__int128>(micros) + __int128{946684800} * kMicrosPerSecond;
        // floe's microseconds end in 294247, before PostgreSQL's range does.
        if (value >= kTimestampInfinity || value <= kTimestampMinusInfinity) {
          return Status::Invalid("timestamp out of range: \"{}\"", shown);
        }
        *out = static_cast<int64_t>(value);
        return Status::OK();
      });
}

// timezone(zone, value): AT TIME ZONE. A timestamptz becomes the wall-clock time (a
// timestamp) of the zone; a timestamp is read as one of the zone (a timestamptz). The zone
// is text (TimeZone) or an interval (hours east of UTC, ISO's sign). A date, or an untyped
// literal, is a timestamptz there (PostgreSQL's preferred type).
Result<ResolvedFunction> ResolveTimezone(const std::vector<TypePtr>& t, int* cost) {
  if (t.size() != 2) return NoSuchFunction("timezone", t);
  TypePtr zone;
  if (t[0]->is_interval()) {
    zone = Interval();
  } else if (t[0]->id() == TypeId::kString && !t[0]->is_json()) {
    zone = String();
  } else {
    return NoSuchFunction("timezone", t);
  }
  *cost = 0;
  switch (IsUnknownType(t[1]) ? TypeId::kDate : t[1]->id()) {
    case TypeId::kTimestamp:
      return Resolution("timezone", {zone, Timestamp()}, TimestampTz());
    case TypeId::kTimestampTz:
      return Resolution("timezone", {zone, TimestampTz()}, Timestamp());
    case TypeId::kDate:
      *cost = 1;
      return Resolution("timezone", {zone, TimestampTz()}, Timestamp());
    case TypeId::kTime:
      return Status::NotSupported(
          "AT TIME ZONE of a time is not supported (floe has no time with time zone)");
    default:
      return NoSuchFunction("timezone", t);
  }
}

Result<ColumnarValue> TimezoneKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                     EvalContext& ctx) {
  const bool to_local = f.return_type->id() == TypeId::kTimestamp;
  const bool interval = f.arg_types[0]->is_interval();
  // The zone of the last row (a constant zone is looked up once).
  std::string last_name;
  TimeZone zone;
  bool have_zone = false;
  return Map2Fallible<int64_t, std::string_view, int64_t>(
      args[0], args[1], n, f.return_type, ctx,
      [&](std::string_view zone_value, int64_t value, int64_t* out) -> Status {
        if (interval) {
          const IntervalValue span = IntervalFromBytes(zone_value);
          if (span.months != 0 || span.days != 0) {
            return Status::Invalid("interval time zone \"{}\" must not include months or days",
                                   IntervalText(span));
          }
          zone = TimeZone{FloorDiv(span.micros, kMicrosPerSecond), nullptr};
        } else if (!have_zone || zone_value != last_name) {
          FLOE_ASSIGN_OR_RAISE(zone, LookupTimeZone(zone_value));
          last_name = std::string(zone_value);
          have_zone = true;
        }
        if (value == kTimestampInfinity || value == kTimestampMinusInfinity) {
          *out = value;
          return Status::OK();
        }
        const int64_t seconds = FloorDiv(value, kMicrosPerSecond);
        int64_t offset = 0;
        if (to_local) {
          FLOE_ASSIGN_OR_RAISE(offset, ZoneOffsetAtUtc(zone, seconds));
        } else {
          FLOE_ASSIGN_OR_RAISE(offset, ZoneOffsetAtLocal(zone, seconds));
          offset = -offset;
        }
        if (__builtin_add_overflow(value, offset * kMicrosPerSecond, out) ||
            *out >= kTimestampInfinity || *out <= kTimestampMinusInfinity) {
          return Status::Invalid("timestamp out of range");
        }
        return Status::OK();
      });
}

}  // namespace

void RegisterDatetimeFunctions(ScalarFunctionRegistry& r) {
  r.Add({"timezone", {}, ResolveTimezone, TimezoneKernel});
  r.Add({"date_trunc", {}, UnitAndTemporal("date_trunc", true, false, nullptr), DateTruncKernel});
  r.Add({"extract",
         {},
         UnitAndTemporal("extract", false, true, Decimal(38, 6)),
         ExtractKernel(false)});
  r.Add(
      {"date_part", {}, UnitAndTemporal("date_part", false, true, Float64()), ExtractKernel(true)});
  r.Add({"extract",
         {},
         Signatures("extract", {{String(), Interval()}}, Decimal(38, 6)),
         ExtractKernel(false)});
  r.Add({"date_part",
         {},
         Signatures("date_part", {{String(), Interval()}}, Float64()),
         ExtractKernel(true)});
  r.Add({"make_date",
         {},
         Signatures("make_date", {{Int32(), Int32(), Int32()}}, Date()),
         MakeDateKernel});
  r.Add({"make_timestamp",
         {},
         Signatures("make_timestamp", {{Int32(), Int32(), Int32(), Int32(), Int32(), Float64()}},
                    Timestamp()),
         MakeTimestampKernel});
  r.Add({"to_timestamp",
         {},
         Signatures("to_timestamp", {{Float64()}}, TimestampTz()),
         ToTimestampKernel});
}

}  // namespace floe::expr::internal

namespace floe::expr {

int ExtractResultScale(std::string_view field) {
  using internal::Unit;
  switch (internal::ParseUnit(field)) {
    case Unit::kUnknown:
      return -1;
    case Unit::kMilliseconds:
      return 3;
    case Unit::kSecond:
    case Unit::kEpoch:
    case Unit::kJulian:
      return 6;
    default:
      return 0;
  }
}

}  // namespace floe::expr
