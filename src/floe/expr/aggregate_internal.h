#pragma once

// Private to the aggregate files of the expr module (aggregate.cc,
// aggregate_functions.cc, window_functions.cc).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/type/sql_type_name.h"
#include "floe/type/type.h"

namespace floe::expr::internal {

/// PostgreSQL's name of a type for error messages ("integer", "text", "numeric").
std::string SqlTypeName(const TypePtr& type);
/// "name(integer, text)".
std::string SignatureText(std::string_view name, const std::vector<TypePtr>& arg_types);
/// Scalar types with a total order min/max can use (every non-nested type).
bool IsOrderableScalar(const TypePtr& type);

/// What an aggregate computes; the accumulators (aggregate.cc) and the state columns
/// (aggregate_functions.cc) dispatch on it, never on names.
enum class AggregateOp : uint8_t {
  kCountStar,
  kCount,
  kSum,
  kAvg,
  kMin,
  kMax,
  kBoolAnd,
  kBoolOr,
  kStringAgg,
  kArrayAgg,
  kVarSamp,
  kVarPop,
  kStddevSamp,
  kStddevPop,
  kJsonAgg,
  kJsonbAgg,
  kJsonObjectAgg,
  kJsonbObjectAgg,
};

/// The aggregate function `name` (a canonical name or an alias such as every, stddev,
/// variance) as registered in aggregate_functions.cc's one table; nullopt when there is none.
std::optional<AggregateOp> FindAggregateOp(std::string_view name);

}  // namespace floe::expr::internal
