#pragma once

// The casts of PostgreSQL's numeric without a precision (numeric_functions.cc), private to
// the expr module: with text (its input and output forms, common/numeric.h), integers,
// floats (their 6 or 15 significant digits, as PostgreSQL converts them) and numeric(p, s).

#include "floe/batch/array.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::expr::internal {

/// Whether a cast from `from` to `to` is a numeric's (one side is a numeric).
inline bool IsNumericCast(const DataType& from, const DataType& to) {
  return from.is_numeric() || to.is_numeric();
}

/// Whether the explicit cast exists when one side is a numeric.
bool CanExplicitCastNumeric(const DataType& from, const DataType& to);

/// CAST with a numeric on one side (IsNumericCast). kInvalidArgument for text that is not
/// a number, for values out of the target's range and for NaN or infinity to an integer.
Result<ArrayPtr> CastNumeric(const Array& in, const TypePtr& to, MemoryPool* pool);

}  // namespace floe::expr::internal
