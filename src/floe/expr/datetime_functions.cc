// Date/time functions with PostgreSQL's semantics: date_trunc, extract (numeric) and
// date_part (float8), make_date, to_timestamp. Values are int32 days and int64
// microseconds; the session time zone is UTC, so timestamptz behaves like timestamp.

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
  return Status::Invalid("unit \"{}\" not recognized for type {}", unit, PgTypeName(*type));
}
Status UnitNotSupported(std::string_view unit, const TypePtr& type) {
  return Status::Invalid("unit \"{}\" not supported for type {}", unit, PgTypeName(*type));
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

// date_trunc over microseconds since the epoch.
Result<int64_t> TruncTimestamp(Unit unit, int64_t ts) {
  const int64_t days = FloorDiv(ts, kMicrosPerDay);
  switch (unit) {
    case Unit::kMicroseconds:
      return ts;
    case Unit::kMilliseconds:
      return FloorDiv(ts, 1000) * 1000;
    case Unit::kSecond:
      return FloorDiv(ts, kMicrosPerSecond) * kMicrosPerSecond;
    case Unit::kMinute:
      return FloorDiv(ts, kMicrosPerMinute) * kMicrosPerMinute;
    case Unit::kHour:
      return FloorDiv(ts, kMicrosPerHour) * kMicrosPerHour;
    case Unit::kDay:
      return days * kMicrosPerDay;
    case Unit::kWeek:
      return (days - MondayBasedWeekday(days)) * kMicrosPerDay;
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
  return DaysFromCivil(year, month, 1) * kMicrosPerDay;
}

// A field of a timestamp (or, with `time_only`, of a time of day), times 10^6 so that
// fractional fields (second, milliseconds, epoch, julian) are exact.
Result<Int128> ExtractMicroUnits(Unit unit, std::string_view unit_text, const TypePtr& type,
                                 int64_t ts, bool time_only) {
  constexpr Int128 kM = 1000000;
  const int64_t days = FloorDiv(ts, kMicrosPerDay);
  const int64_t in_day = ts - days * kMicrosPerDay;
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
        if (days < INT32_MIN || days > INT32_MAX) {
          return Status::Invalid("date out of range: {}-{:02}-{:02}", y, m, d);
        }
        *out = static_cast<int32_t>(days);
        return Status::OK();
      });
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

}  // namespace

void RegisterDatetimeFunctions(ScalarFunctionRegistry& r) {
  r.Add({"date_trunc", {}, UnitAndTemporal("date_trunc", true, false, nullptr), DateTruncKernel});
  r.Add({"extract",
         {},
         UnitAndTemporal("extract", false, true, Decimal(38, 6)),
         ExtractKernel(false)});
  r.Add(
      {"date_part", {}, UnitAndTemporal("date_part", false, true, Float64()), ExtractKernel(true)});
  r.Add({"make_date",
         {},
         Signatures("make_date", {{Int32(), Int32(), Int32()}}, Date()),
         MakeDateKernel});
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
