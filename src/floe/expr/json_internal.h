#pragma once

// The json and jsonb casts and functions (json_functions.cc), private to the expr module.

#include <memory>
#include <string>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/expr/aggregate.h"
#include "floe/expr/json.h"
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

/// A sub-value's JSON text: its bytes in the parsed `source` (jsonb's text is normalized
/// already, so its sub-values' bytes are too).
std::string_view SubText(std::string_view source, const JsonValue& v);
/// ->> and #>>'s text of a value: a string's contents, NULL (`*is_null`) for null, else the
/// JSON text. kInvalidArgument for a json string holding \u0000, which text cannot hold.
Status AsText(std::string_view source, const JsonValue& v, std::string* out, bool* is_null);

/// Appends value `i` of `array` as to_json writes it (null, numbers, escaped strings,
/// ISO dates and timestamps, arrays, objects for structs, json/jsonb as they are).
Status AppendValueAsJson(const Array& array, int64_t i, std::string* out);
/// Appends the text of a non-NULL object key (json_build_object, json_object_agg);
/// kInvalidArgument for arrays, composites and json.
Status AppendJsonKeyText(const Array& array, int64_t i, std::string* out);

/// The accumulator of json_agg / jsonb_agg (`object` false) or json_object_agg /
/// jsonb_object_agg (true): json_aggregate.cc.
std::unique_ptr<GroupsAccumulator> MakeJsonAggAccumulator(bool object, bool jsonb,
                                                          const TypePtr& return_type,
                                                          MemoryPool* pool);

}  // namespace floe::expr::internal
