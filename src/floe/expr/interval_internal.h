#pragma once

// The casts of intervals (interval_functions.cc), private to the expr module: text and
// interval both ways (PostgreSQL's input and output forms, common/interval.h), time to
// interval and interval to its time of day.

#include "floe/batch/array.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::expr::internal {

/// PostgreSQL's timestamp + interval (the months first, the day of the month clamped, then
/// the days, then the microseconds), `value` and the result in units of which
/// `unit_per_day` make a day (microseconds, or nanoseconds with `unit_per_micro` 1000).
/// Infinity plus an interval is infinity; "timestamp out of range" past int64 or (in
/// microseconds) before 4714-11-24 BC. (arithmetic.cc)
Status AddIntervalOrError(int64_t value, int64_t unit_per_day, int32_t months, int32_t days,
                          int64_t micros, int64_t unit_per_micro, int64_t* out);
/// date + interval: a timestamp (infinite dates give infinite timestamps).
Status AddIntervalToDate(int32_t date, int32_t months, int32_t days, int64_t micros,
                         int64_t* out);

/// Whether a cast from `from` to `to` is an interval's (one side is an interval).
inline bool IsIntervalCast(const DataType& from, const DataType& to) {
  return from.is_interval() || to.is_interval();
}

/// Whether the explicit cast exists when one side is an interval.
bool CanExplicitCastInterval(const DataType& from, const DataType& to);

/// CAST with an interval on one side (IsIntervalCast). kInvalidArgument for text that is
/// not an interval.
Result<ArrayPtr> CastInterval(const Array& in, const TypePtr& to, MemoryPool* pool);

}  // namespace floe::expr::internal
