// Date/time functions with PostgreSQL's semantics: date_trunc, extract (numeric) and
// date_part (float8), make_date, to_timestamp. Values are int32 days and int64
// microseconds; the session time zone is UTC, so timestamptz behaves like timestamp.

#include <cmath>
#include <cstdint>
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

// Monday = 0 .. Sunday = 6; 1970-01-01 was a Thursday.
int64_t MondayBasedWeekday(int64_t days) { return FloorMod(days + 3, 7); }

struct IsoWeek {
  int64_t year;
  int64_t week;
};

IsoWeek IsoWeekOf(int64_t days) {
  const int64_t thursday = days - MondayBasedWeekday(days) + 3;
  const int64_t year = CivilFromDays(thursday).year;
  return {year, (thursday - DaysFromCivil(year, 1, 1)) / 7 + 1};
}

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
    return Status::NotSupported("extract from an infinite {} is not supported",
                                SqlTypeName(*type));
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
        const double micros = std::nearbyint(seconds * 1e6);
        // PostgreSQL's range: 4714-11-24 BC .. 294276 AD.
        if (!(micros >= -210866803200e6 && micros < 9224318016000e6)) {
          return Status::Invalid("timestamp out of range: \"{}\"", seconds);
        }
        *out = static_cast<int64_t>(micros);
        return Status::OK();
      });
}

// ---------------------------------------------------------------------------------------
// to_char(timestamp, format): PostgreSQL's template patterns for dates and times.

constexpr std::string_view kMonthNames[] = {"January",   "February", "March",    "April",
                                            "May",       "June",     "July",     "August",
                                            "September", "October",  "November", "December"};
constexpr std::string_view kDayNames[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                          "Thursday", "Friday", "Saturday"};

std::string_view OrdinalSuffix(int64_t v) {
  const int64_t last2 = (v < 0 ? -v : v) % 100;
  if (last2 >= 11 && last2 <= 13) return "th";
  switch (last2 % 10) {
    case 1:
      return "st";
    case 2:
      return "nd";
    case 3:
      return "rd";
    default:
      return "th";
  }
}

// A name in the case the pattern was written in ("MONTH", "Month", "month"), blank-padded
// to `width` unless `fill_mode`.
void AppendName(std::string_view name, std::string_view pattern, int width, bool fill_mode,
                std::string* out) {
  std::string text(name);
  const bool all_upper = pattern.size() > 1 && pattern[1] >= 'A' && pattern[1] <= 'Z';
  const bool all_lower = pattern[0] >= 'a' && pattern[0] <= 'z';
  for (char& c : text) {
    if (all_upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (all_lower && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  out->append(text);
  if (!fill_mode) {
    for (int i = static_cast<int>(text.size()); i < width; ++i) out->push_back(' ');
  }
}

std::string ToChar(int64_t ts, std::string_view format, bool with_zone) {
  const int64_t days = FloorDiv(ts, kMicrosPerDay);
  const int64_t in_day = FloorMod(ts, kMicrosPerDay);
  const CivilDate c = CivilFromDays(days);
  const int64_t year = DisplayYear(c.year);
  const int64_t hour = in_day / kMicrosPerHour;
  const int64_t dow = FloorMod(days + 4, 7);
  std::string out;
  bool fill_mode = false;
  size_t i = 0;
  auto starts = [&](std::string_view p) { return format.substr(i, p.size()) == p; };
  // Appends a number zero-padded to `width` (unless FM) and an optional th/TH suffix.
  auto number = [&](int64_t v, int width, size_t pattern_len) {
    std::string digits = std::to_string(v < 0 ? -v : v);
    if (v < 0) out.push_back('-');
    if (!fill_mode) {
      for (int k = static_cast<int>(digits.size()); k < width; ++k) out.push_back('0');
    }
    out.append(digits);
    i += pattern_len;
    if (format.substr(i, 2) == "th") {
      out.append(OrdinalSuffix(v));
      i += 2;
    } else if (format.substr(i, 2) == "TH") {
      std::string suffix(OrdinalSuffix(v));
      for (char& ch : suffix) ch = static_cast<char>(ch - 'a' + 'A');
      out.append(suffix);
      i += 2;
    }
    fill_mode = false;
  };
  auto name = [&](std::string_view text, size_t pattern_len, int width) {
    AppendName(text, format.substr(i, pattern_len), width, fill_mode, &out);
    i += pattern_len;
    fill_mode = false;
  };
  auto upper_ci = [&](std::string_view p) {
    // Case-insensitive match for patterns whose case only changes the output's case.
    if (i + p.size() > format.size()) return false;
    for (size_t k = 0; k < p.size(); ++k) {
      char ch = format[i + k];
      if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
      if (ch != p[k]) return false;
    }
    return true;
  };
  while (i < format.size()) {
    if (starts("FM") || starts("fm")) {
      fill_mode = true;
      i += 2;
    } else if (format[i] == '"') {
      ++i;
      while (i < format.size() && format[i] != '"') {
        if (format[i] == '\\' && i + 1 < format.size()) ++i;
        out.push_back(format[i++]);
      }
      ++i;
    } else if (starts("HH24") || starts("hh24")) {
      number(hour, 2, 4);
    } else if (starts("HH12") || starts("hh12")) {
      number(hour % 12 == 0 ? 12 : hour % 12, 2, 4);
    } else if (starts("HH") || starts("hh")) {
      number(hour % 12 == 0 ? 12 : hour % 12, 2, 2);
    } else if (starts("MI") || starts("mi")) {
      number(in_day / kMicrosPerMinute % 60, 2, 2);
    } else if (starts("SSSS") || starts("ssss")) {
      number(in_day / kMicrosPerSecond, 1, 4);
    } else if (starts("SS") || starts("ss")) {
      number(in_day / kMicrosPerSecond % 60, 2, 2);
    } else if (starts("MS") || starts("ms")) {
      number(in_day / 1000 % 1000, 3, 2);
    } else if (starts("US") || starts("us")) {
      number(in_day % kMicrosPerSecond, 6, 2);
    } else if (starts("AM") || starts("PM") || starts("am") || starts("pm")) {
      const bool lower = format[i] == 'a' || format[i] == 'p';
      out.append(hour < 12 ? (lower ? "am" : "AM") : (lower ? "pm" : "PM"));
      i += 2;
    } else if (starts("A.M.") || starts("P.M.") || starts("a.m.") || starts("p.m.")) {
      const bool lower = format[i] == 'a' || format[i] == 'p';
      out.append(hour < 12 ? (lower ? "a.m." : "A.M.") : (lower ? "p.m." : "P.M."));
      i += 4;
    } else if (starts("YYYY") || starts("yyyy")) {
      number(year < 0 ? -year : year, 4, 4);
    } else if (starts("IYYY") || starts("iyyy")) {
      const int64_t iy = IsoWeekOf(days).year;
      number(iy > 0 ? iy : 1 - iy, 4, 4);
    } else if (starts("YYY") || starts("yyy")) {
      number((year < 0 ? -year : year) % 1000, 3, 3);
    } else if (starts("YY") || starts("yy")) {
      number((year < 0 ? -year : year) % 100, 2, 2);
    } else if (starts("Y") || starts("y")) {
      number((year < 0 ? -year : year) % 10, 1, 1);
    } else if (upper_ci("BC") || upper_ci("AD")) {
      const bool lower = format[i] == 'b' || format[i] == 'a';
      out.append(year < 0 ? (lower ? "bc" : "BC") : (lower ? "ad" : "AD"));
      i += 2;
    } else if (upper_ci("MONTH")) {
      name(kMonthNames[c.month - 1], 5, 9);
    } else if (upper_ci("MON")) {
      name(kMonthNames[c.month - 1].substr(0, 3), 3, 3);
    } else if (starts("MM") || starts("mm")) {
      number(c.month, 2, 2);
    } else if (upper_ci("DAY")) {
      name(kDayNames[dow], 3, 9);
    } else if (upper_ci("DY")) {
      name(kDayNames[dow].substr(0, 3), 2, 3);
    } else if (starts("DDD") || starts("ddd")) {
      number(days - DaysFromCivil(c.year, 1, 1) + 1, 3, 3);
    } else if (starts("DD") || starts("dd")) {
      number(c.day, 2, 2);
    } else if (starts("ID") || starts("id")) {
      number(MondayBasedWeekday(days) + 1, 1, 2);
    } else if (starts("D") || starts("d")) {
      number(dow + 1, 1, 1);
    } else if (starts("IW") || starts("iw")) {
      number(IsoWeekOf(days).week, 2, 2);
    } else if (starts("WW") || starts("ww")) {
      number((days - DaysFromCivil(c.year, 1, 1)) / 7 + 1, 2, 2);
    } else if (starts("Q") || starts("q")) {
      number((c.month - 1) / 3 + 1, 1, 1);
    } else if (starts("J")) {
      number(days + 2440588, 1, 1);
    } else if (starts("TZ") || starts("tz")) {
      if (with_zone) out.append(format[i] == 't' ? "utc" : "UTC");
      i += 2;
    } else if (starts("OF")) {
      if (with_zone) out.append("+00");
      i += 2;
    } else {
      out.push_back(format[i++]);
    }
  }
  return out;
}

Result<ColumnarValue> ToCharKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                   EvalContext& ctx) {
  const bool with_zone = f.arg_types[0]->id() == TypeId::kTimestampTz;
  // An infinite timestamp has no fields: null, as PostgreSQL answers.
  return Map2Nullable<std::string, int64_t, std::string_view>(
      args[0], args[1], n, f.return_type, ctx,
      [with_zone](int64_t ts, std::string_view format, std::string* out, bool* is_null) {
        *is_null = ts == kTimestampInfinity || ts == kTimestampMinusInfinity;
        if (!*is_null) *out = ToChar(ts, format, with_zone);
        return Status::OK();
      });
}

}  // namespace

void RegisterDatetimeFunctions(ScalarFunctionRegistry& r) {
  r.Add({"to_char",
         {},
         [](const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
           if (args.size() == 2) {
             TypePtr param = TemporalParam(args[0], true, false);
             int c = 0;
             if (param != nullptr && Accepts(args[1], String(), &c)) {
               if (!param->Equals(*args[0])) ++c;
               *cost += c;
               return Resolution("to_char", {param, String()}, String());
             }
           }
           return NoSuchFunction("to_char", args);
         },
         ToCharKernel});
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
