// Intervals as values (common/interval.h, Extension::kInterval): their arithmetic with
// each other, with numbers and with dates, times and timestamps; timestamp - timestamp;
// comparisons by span (a month is 30 days); justify_*, age and make_interval; and the
// casts between intervals and text or time.

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/calendar.h"
#include "floe/common/interval.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/comparison_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/interval_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"
#include "floe/type/sql_type_name.h"

namespace floe::expr::internal {

namespace {

using Args = std::vector<ColumnarValue>;

IntervalValue Load(std::string_view bytes) { return IntervalFromBytes(bytes); }

bool IsInterval(const TypePtr& t) { return t != nullptr && t->is_interval(); }

// One overload: parameter types and the result.
struct Overload {
  std::vector<TypePtr> params;
  TypePtr ret;
};

// A resolver over overloads (the cheapest match wins, the first among equals). Only calls
// with an interval among their arguments, or `also` (timestamp - timestamp), reach it.
ScalarResolver Overloads(std::string name, std::vector<Overload> overloads) {
  return [name = std::move(name), overloads = std::move(overloads)](
             const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
    const Overload* best = nullptr;
    int best_cost = 0;
    for (const Overload& o : overloads) {
      int c = 0;
      if (AcceptsAll(args, o.params, &c) && (best == nullptr || c < best_cost)) {
        best = &o;
        best_cost = c;
      }
    }
    if (best == nullptr) return NoSuchFunction(name, args);
    *cost += best_cost;
    return Resolution(name, best->params, best->ret);
  };
}

Status AddToTimestamp(int64_t ts, const IntervalValue& v, int64_t* out) {
  return AddIntervalOrError(ts, kMicrosPerDay, v.months, v.days, v.micros, 1, out);
}

// Time of day + interval: only the microseconds count, wrapped into a day.
int64_t AddToTime(int64_t time, const IntervalValue& v) {
  return FloorMod(FloorMod(time, kMicrosPerDay) + FloorMod(v.micros, kMicrosPerDay), kMicrosPerDay);
}

Result<IntervalValue> Negated(const IntervalValue& v) { return NegateInterval(v); }

// --- kernels ------------------------------------------------------------------------------

// interval (+|-) interval, and (+|-) with a date, time or timestamp on either side.
ScalarKernel AddSubtractKernel(bool subtract) {
  return [subtract](const ResolvedFunction& f, const Args& args, int64_t n,
                    EvalContext& ctx) -> Result<ColumnarValue> {
    const TypePtr& t0 = f.arg_types[0];
    const TypePtr& t1 = f.arg_types[1];
    const TypePtr& ret = f.return_type;
    if (IsInterval(t0) && IsInterval(t1)) {
      return Map2Fallible<std::string, std::string_view, std::string_view>(
          args[0], args[1], n, ret, ctx,
          [subtract](std::string_view a, std::string_view b, std::string* out) -> Status {
            FLOE_ASSIGN_OR_RAISE(IntervalValue r, subtract ? SubtractIntervals(Load(a), Load(b))
                                                           : AddIntervals(Load(a), Load(b)));
            *out = IntervalBytes(r);
            return Status::OK();
          });
    }
    if (!IsInterval(t0) && !IsInterval(t1)) {
      // timestamp - timestamp and time - time: an interval of days and microseconds.
      return Map2Fallible<std::string, int64_t, int64_t>(
          args[0], args[1], n, ret, ctx, [](int64_t a, int64_t b, std::string* out) -> Status {
            if (a == kTimestampInfinity || a == kTimestampMinusInfinity ||
                b == kTimestampInfinity || b == kTimestampMinusInfinity) {
              return Status::Invalid("cannot subtract infinite timestamps");
            }
            FLOE_ASSIGN_OR_RAISE(IntervalValue r, TimestampDifference(a, b));
            *out = IntervalBytes(r);
            return Status::OK();
          });
    }
    // One side is the interval; the other a date, time or timestamp.
    const bool interval_first = IsInterval(t0);
    const ColumnarValue& value = interval_first ? args[1] : args[0];
    const ColumnarValue& interval = interval_first ? args[0] : args[1];
    const TypeId id = (interval_first ? t1 : t0)->id();
    auto apply = [subtract](std::string_view bytes) -> Result<IntervalValue> {
      return subtract ? Negated(Load(bytes)) : Result<IntervalValue>(Load(bytes));
    };
    if (id == TypeId::kDate) {
      return Map2Fallible<int64_t, int32_t, std::string_view>(
          value, interval, n, ret, ctx,
          [&](int32_t d, std::string_view bytes, int64_t* out) -> Status {
            FLOE_ASSIGN_OR_RAISE(IntervalValue v, apply(bytes));
            return AddIntervalToDate(d, v.months, v.days, v.micros, out);
          });
    }
    if (id == TypeId::kTime) {
      return Map2Fallible<int64_t, int64_t, std::string_view>(
          value, interval, n, ret, ctx,
          [&](int64_t time, std::string_view bytes, int64_t* out) -> Status {
            FLOE_ASSIGN_OR_RAISE(IntervalValue v, apply(bytes));
            *out = AddToTime(time, v);
            return Status::OK();
          });
    }
    return Map2Fallible<int64_t, int64_t, std::string_view>(
        value, interval, n, ret, ctx,
        [&](int64_t ts, std::string_view bytes, int64_t* out) -> Status {
          FLOE_ASSIGN_OR_RAISE(IntervalValue v, apply(bytes));
          return AddToTimestamp(ts, v, out);
        });
  };
}

// interval * float8, float8 * interval, interval / float8.
ScalarKernel ScaleKernel(bool divide) {
  return [divide](const ResolvedFunction& f, const Args& args, int64_t n,
                  EvalContext& ctx) -> Result<ColumnarValue> {
    const bool interval_first = IsInterval(f.arg_types[0]);
    const ColumnarValue& interval = interval_first ? args[0] : args[1];
    const ColumnarValue& factor = interval_first ? args[1] : args[0];
    return Map2Fallible<std::string, std::string_view, double>(
        interval, factor, n, f.return_type, ctx,
        [divide](std::string_view bytes, double x, std::string* out) -> Status {
          FLOE_ASSIGN_OR_RAISE(IntervalValue r, divide ? DivideInterval(Load(bytes), x)
                                                       : MultiplyInterval(Load(bytes), x));
          *out = IntervalBytes(r);
          return Status::OK();
        });
  };
}

// A function of one interval to an interval (negate, justify_*).
ScalarKernel UnaryKernel(Result<IntervalValue> (*op)(const IntervalValue&)) {
  return [op](const ResolvedFunction& f, const Args& args, int64_t n,
              EvalContext& ctx) -> Result<ColumnarValue> {
    return Map1Fallible<std::string, std::string_view>(
        args[0], n, f.return_type, ctx, [op](std::string_view bytes, std::string* out) -> Status {
          FLOE_ASSIGN_OR_RAISE(IntervalValue r, op(Load(bytes)));
          *out = IntervalBytes(r);
          return Status::OK();
        });
  };
}

Result<ColumnarValue> AgeKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                EvalContext& ctx) {
  return Map2Fallible<std::string, int64_t, int64_t>(
      args[0], args[1], n, f.return_type, ctx,
      [](int64_t a, int64_t b, std::string* out) -> Status {
        if (a == kTimestampInfinity || a == kTimestampMinusInfinity || b == kTimestampInfinity ||
            b == kTimestampMinusInfinity) {
          return Status::NotSupported("age of an infinite timestamp is not supported");
        }
        FLOE_ASSIGN_OR_RAISE(IntervalValue r, TimestampAge(a, b));
        *out = IntervalBytes(r);
        return Status::OK();
      });
}

// make_interval(years, months, weeks, days, hours, mins, secs), trailing ones defaulting
// to zero.
Result<ColumnarValue> MakeIntervalKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                         EvalContext& ctx) {
  std::vector<ValueReader<int32_t>> ints;
  const size_t num_ints = std::min<size_t>(args.size(), 6);
  for (size_t k = 0; k < num_ints; ++k) ints.emplace_back(args[k]);
  std::optional<ValueReader<double>> seconds;
  if (args.size() == 7) seconds.emplace(args[6]);
  const bool scalar = AllScalars(args);
  const int64_t rows = scalar ? 1 : n;
  FixedSizeBinaryBuilder builder(f.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(rows));
  for (int64_t i = 0; i < rows; ++i) {
    bool null = seconds && seconds->IsNull(i);
    for (const auto& r : ints) null = null || r.IsNull(i);
    if (null) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    auto part = [&](size_t k) -> int64_t { return k < ints.size() ? ints[k][i] : 0; };
    const __int128 months = static_cast<__int128>(part(0)) * 12 + part(1);
    const __int128 days = static_cast<__int128>(part(2)) * 7 + part(3);
    const double secs = seconds ? (*seconds)[i] : 0.0;
    const double micros = static_cast<double>(part(4)) * kMicrosPerHour +
                          static_cast<double>(part(5)) * kMicrosPerMinute + std::rint(secs * 1e6);
    if (!std::isfinite(micros) || std::fabs(micros) >= 9.2e18 || months > INT32_MAX ||
        months < INT32_MIN || days > INT32_MAX || days < INT32_MIN) {
      return Status::Invalid("interval out of range");
    }
    IntervalValue v{static_cast<int32_t>(months), static_cast<int32_t>(days),
                    static_cast<int64_t>(micros)};
    FLOE_RETURN_NOT_OK(builder.Append(IntervalBytes(v)));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  if (scalar) return ColumnarValue(ScalarAt(*out, 0));
  return ColumnarValue(std::move(out));
}

Result<ResolvedFunction> ResolveMakeInterval(const std::vector<TypePtr>& args, int* cost) {
  if (args.size() > 7) return NoSuchFunction("make_interval", args);
  std::vector<TypePtr> params;
  for (size_t k = 0; k < args.size(); ++k) params.push_back(k < 6 ? Int32() : Float64());
  int c = 0;
  if (!AcceptsAll(args, params, &c)) return NoSuchFunction("make_interval", args);
  *cost += c;
  return Resolution("make_interval", std::move(params), Interval());
}

}  // namespace

// --- casts --------------------------------------------------------------------------------

bool CanExplicitCastInterval(const DataType& from, const DataType& to) {
  const DataType& other = from.is_interval() ? to : from;
  if (from.is_interval() && to.is_interval()) return true;
  return (other.id() == TypeId::kString && other.extension() == Extension::kNone) ||
         (other.id() == TypeId::kTime && other.extension() == Extension::kNone);
}

Result<ArrayPtr> CastInterval(const Array& in, const TypePtr& to, MemoryPool* pool) {
  const DataType& from = *in.type();
  if (!CanExplicitCastInterval(from, *to)) {
    return Status::NotSupported("cannot cast type {} to {}", SqlTypeName(from), SqlTypeName(*to));
  }
  EvalContext ctx;
  ctx.pool = pool;
  const ColumnarValue value{in.Slice(0, in.length())};
  Result<ColumnarValue> out = Status::Internal("interval cast");
  if (from.is_interval() && to->is_interval()) return in.Slice(0, in.length());
  if (from.id() == TypeId::kString) {
    out = Map1Fallible<std::string, std::string_view>(
        value, in.length(), to, ctx, [](std::string_view text, std::string* r) -> Status {
          FLOE_ASSIGN_OR_RAISE(IntervalValue v, ParseIntervalText(text));
          *r = IntervalBytes(v);
          return Status::OK();
        });
  } else if (to->id() == TypeId::kString) {
    out = Map1<std::string, std::string_view>(
        value, in.length(), to, ctx,
        [](std::string_view bytes) { return IntervalText(Load(bytes)); });
  } else if (from.id() == TypeId::kTime) {
    out = Map1<std::string, int64_t>(value, in.length(), to, ctx, [](int64_t micros) {
      return IntervalBytes(IntervalValue{0, 0, micros});
    });
  } else {
    // interval -> time: the time of day of its microseconds.
    out = Map1<int64_t, std::string_view>(value, in.length(), to, ctx, [](std::string_view bytes) {
      return FloorMod(Load(bytes).micros, kMicrosPerDay);
    });
  }
  FLOE_ASSIGN_OR_RAISE(ColumnarValue result, std::move(out));
  return result.array();
}

// --- registration -------------------------------------------------------------------------

void RegisterIntervalFunctions(ScalarFunctionRegistry& r) {
  const TypePtr I = Interval();
  const TypePtr ts = Timestamp();
  const TypePtr tz = TimestampTz();
  const TypePtr date = Date();
  const TypePtr time = Time();
  const TypePtr f8 = Float64();
  r.Add({"add",
         {},
         Overloads("add", {{{I, I}, I},
                           {{ts, I}, ts},
                           {{I, ts}, ts},
                           {{tz, I}, tz},
                           {{I, tz}, tz},
                           {{date, I}, ts},
                           {{I, date}, ts},
                           {{time, I}, time},
                           {{I, time}, time}}),
         AddSubtractKernel(false)});
  r.Add({"subtract",
         {},
         Overloads("subtract", {{{I, I}, I},
                                {{ts, I}, ts},
                                {{tz, I}, tz},
                                {{date, I}, ts},
                                {{time, I}, time},
                                {{ts, ts}, I},
                                {{tz, tz}, I},
                                {{time, time}, I}}),
         AddSubtractKernel(true)});
  r.Add({"multiply", {}, Overloads("multiply", {{{I, f8}, I}, {{f8, I}, I}}), ScaleKernel(false)});
  r.Add({"divide", {}, Overloads("divide", {{{I, f8}, I}}), ScaleKernel(true)});
  r.Add({"negate", {}, Overloads("negate", {{{I}, I}}), UnaryKernel(NegateInterval)});
  r.Add({"justify_hours", {}, Overloads("justify_hours", {{{I}, I}}), UnaryKernel(JustifyHours)});
  r.Add({"justify_days", {}, Overloads("justify_days", {{{I}, I}}), UnaryKernel(JustifyDays)});
  r.Add({"justify_interval",
         {},
         Overloads("justify_interval", {{{I}, I}}),
         UnaryKernel(JustifyInterval)});
  r.Add({"age", {}, Overloads("age", {{{ts, ts}, I}, {{tz, tz}, I}}), AgeKernel});
  r.Add({"make_interval", {}, ResolveMakeInterval, MakeIntervalKernel});
  RegisterValueKeyComparisons(r, I);
}

}  // namespace floe::expr::internal
