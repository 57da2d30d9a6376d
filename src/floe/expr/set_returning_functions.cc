// Set-returning functions callable in a select list (and, through the binder's Unnest,
// in FROM with arguments from the rows before them): each kernel returns per row the
// list of rows the call yields (function_registry.h, ResolvedFunction::set_returning).
// unnest and the JSON set-returning functions register beside their types' functions;
// regexp_matches beside the other regular-expression functions.

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/common/calendar.h"
#include "floe/common/interval.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/interval_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"

namespace floe::expr::internal {

namespace {

using Args = std::vector<ColumnarValue>;

/// The most rows one call in a select list may yield: its rows are one list in memory
/// (generate_series in FROM streams any number of rows).
constexpr int64_t kMaxRowsPerCall = 100'000'000;

// generate_series(start, stop[, step]) over integers: start, start + step, ... while not
// past stop; no rows when the step points away from stop.
template <typename T>
Result<ColumnarValue> GenerateSeriesKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                           EvalContext& ctx) {
  ValueReader<T> start(args[0]);
  ValueReader<T> stop(args[1]);
  std::optional<ValueReader<T>> step;
  if (args.size() == 3) step.emplace(args[2]);
  ListBuilder builder(f.return_type, ctx.pool);
  auto* values = static_cast<NumericBuilder<T>*>(builder.value_builder());
  for (int64_t i = 0; i < n; ++i) {
    if (start.IsNull(i) || stop.IsNull(i) || (step && step->IsNull(i))) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    const Int128 by = step ? static_cast<Int128>((*step)[i]) : 1;
    if (by == 0) return Status::Invalid("step size cannot equal zero");
    const Int128 from = start[i];
    const Int128 to = stop[i];
    const Int128 count = (by > 0 ? (to >= from ? (to - from) / by + 1 : 0)
                                 : (to <= from ? (from - to) / -by + 1 : 0));
    if (count > kMaxRowsPerCall) {
      return Status::Invalid(
          "generate_series in a select list yields at most {} rows per call (this call: {}); "
          "call it in FROM for more",
          kMaxRowsPerCall, static_cast<int64_t>(count));
    }
    FLOE_RETURN_NOT_OK(builder.Append());
    FLOE_RETURN_NOT_OK(values->Reserve(static_cast<int64_t>(count)));
    for (Int128 k = 0; k < count; ++k) {
      FLOE_RETURN_NOT_OK(values->Append(static_cast<T>(from + k * by)));
    }
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  return ColumnarValue(std::move(out));
}

// generate_series(start, stop, step interval) over timestamps: start, then each value plus
// the step (added again and again, as PostgreSQL does: a month step from the 31st clamps
// once and stays), while not past stop.
Result<ColumnarValue> GenerateTimestampSeriesKernel(const ResolvedFunction& f, const Args& args,
                                                    int64_t n, EvalContext& ctx) {
  ValueReader<int64_t> start(args[0]);
  ValueReader<int64_t> stop(args[1]);
  ValueReader<std::string_view> step(args[2]);
  ListBuilder builder(f.return_type, ctx.pool);
  auto* values = static_cast<NumericBuilder<int64_t>*>(builder.value_builder());
  for (int64_t i = 0; i < n; ++i) {
    if (start.IsNull(i) || stop.IsNull(i) || step.IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    const IntervalValue by = IntervalFromBytes(step[i]);
    const __int128 span = IntervalSpan(by);
    if (span == 0) return Status::Invalid("step size cannot equal zero");
    FLOE_RETURN_NOT_OK(builder.Append());
    const int64_t to = stop[i];
    int64_t cur = start[i];
    for (int64_t count = 0; span > 0 ? cur <= to : cur >= to; ++count) {
      if (count == kMaxRowsPerCall) {
        return Status::Invalid(
            "generate_series in a select list yields at most {} rows per call; call it in FROM "
            "for more",
            kMaxRowsPerCall);
      }
      FLOE_RETURN_NOT_OK(values->Append(cur));
      int64_t next = 0;
      if (!AddIntervalOrError(cur, kMicrosPerDay, by.months, by.days, by.micros, 1, &next).ok() ||
          next == cur) {
        break;  // past the timestamp range (or an infinite bound): the series ends
      }
      cur = next;
    }
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  return ColumnarValue(std::move(out));
}

}  // namespace

void RegisterSetReturningFunctions(ScalarFunctionRegistry& r) {
  const TypePtr i4 = Int32();
  const TypePtr i8 = Int64();
  r.Add({"generate_series",
         {},
         Signatures("generate_series", {{i4, i4}, {i4, i4, i4}}, List(i4)),
         GenerateSeriesKernel<int32_t>,
         /*set_returning=*/true});
  r.Add({"generate_series",
         {},
         Signatures("generate_series", {{i8, i8}, {i8, i8, i8}}, List(i8)),
         GenerateSeriesKernel<int64_t>,
         /*set_returning=*/true});
  for (const TypePtr& ts : {Timestamp(), TimestampTz()}) {
    r.Add({"generate_series",
           {},
           Signatures("generate_series", {{ts, ts, Interval()}}, List(ts)),
           GenerateTimestampSeriesKernel,
           /*set_returning=*/true});
  }
}

}  // namespace floe::expr::internal
