#pragma once

// The json and jsonb casts and functions (json_functions.cc), private to the expr module.

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/type/type.h"

namespace floe::expr::internal {

/// Whether a cast between `from` and `to` involves json or jsonb (and is CastJson's).
inline bool IsJsonCast(const DataType& from, const DataType& to) {
  return from.is_json() || to.is_json();
}

/// Whether an explicit cast from `from` to `to` exists when one of them is json or jsonb:
/// text and json/jsonb both ways, json <-> jsonb, and jsonb to boolean and the numbers.
bool CanExplicitCastJson(const DataType& from, const DataType& to);

/// CAST with json or jsonb on one side: text -> json validates, text/json -> jsonb
/// normalizes, json/jsonb -> text keeps the text, jsonb -> boolean and numbers take the
/// scalar ("cannot cast jsonb object to type integer").
Result<ArrayPtr> CastJson(const Array& in, const TypePtr& to, MemoryPool* pool);

}  // namespace floe::expr::internal
