#pragma once

// What the binder needs to type-check calls: PostgreSQL's implicit-cast and numeric
// promotion rules, scalar-function resolution and aggregate resolution. The kernels
// behind the names live in the expr module; the binder sees only signatures.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::expr {

/// True when PostgreSQL would cast `from` to `to` implicitly (int2 -> int4 -> int8 ->
/// numeric -> float4 -> float8; date -> timestamp -> timestamptz; varchar/text
/// interchangeably; a string literal's unknown type to anything is the binder's job).
bool CanImplicitCast(const DataType& from, const DataType& to);

/// True when an explicit CAST from `from` to `to` exists (it may still fail on a value).
bool CanExplicitCast(const DataType& from, const DataType& to);

/// The type two values are both coerced to for CASE, COALESCE, VALUES, UNION and ARRAY
/// (PostgreSQL's "UNION, CASE, and related constructs" rules): integers widen, integers and
/// decimals of one scale give a decimal wide enough for both, of different scales a
/// numeric (each value keeps its own scale, as PostgreSQL's numerics do), anything with
/// float gives float64, date with timestamp gives timestamp. kBind error naming both types
/// when none exists ("CASE types integer and text cannot be matched" style, with `context`
/// as the construct).
Result<TypePtr> CommonType(const TypePtr& a, const TypePtr& b, std::string_view context);
/// The same for operands that are only compared (=, <, IN, BETWEEN, join keys): integers
/// and decimals of any scales meet as a decimal wide enough for both.
Result<TypePtr> ComparisonType(const TypePtr& a, const TypePtr& b, std::string_view context);

/// A scalar function resolved for argument types: the types each argument must be cast
/// to before the call, and the result type.
struct ResolvedFunction {
  std::string name;                // the canonical name (aliases resolved: "substring" ->
                                   // "substr", "ceiling" -> "ceil", ...)
  std::vector<TypePtr> arg_types;  // one per argument
  TypePtr return_type;
  /// The result is NULL only when an argument is NULL (false for coalesce, is_null, ...,
  /// and for functions that can return NULL on non-NULL input such as nullif).
  bool null_if_any_arg_null = true;
  bool volatile_function = false;  // random(), now() (the binder folds now() per statement)
  /// A set-returning function (unnest, generate_series, jsonb_array_elements, ...): its
  /// kernel returns, per row, the list of rows it yields, as a list<T> (list<struct<...>>
  /// for several output columns), and the binder plans the call as an Unnest over it.
  bool set_returning = false;
};

/// The argument type of an untyped string literal or NULL (PostgreSQL's `unknown`) among
/// the argument types of ResolveScalarFunction: one text type instance, told apart by its
/// identity (IsUnknownType). Resolvers that look at type ids see text, as they always did;
/// those that match parameter lists let it stand for any parameter type, as PostgreSQL
/// resolves an unknown argument ('{a,b}' for a text[] parameter, '{"a":1}' for jsonb), and
/// the binder then converts the literal. A resolution never returns it (it becomes text).
const TypePtr& UnknownType();
inline bool IsUnknownType(const TypePtr& t) { return t != nullptr && t == UnknownType(); }

/// The name under which `name(fixed..., VARIADIC array)` resolves for the functions with
/// PostgreSQL's `VARIADIC "any"` (concat, concat_ws, json_build_array, json_build_object and
/// their jsonb forms): "variadic <name>", taking the fixed arguments and the array; its
/// elements (every dimension flattened) are the function's last arguments, row by row.
std::string VariadicFormName(std::string_view name);

/// Resolves `name` (lower-case) for these argument types, choosing the candidate
/// PostgreSQL would choose (exact match, then fewest implicit casts, preferring the
/// numeric category's preferred type). kBind "function name(types) does not exist" or
/// "operator does not exist: text + integer" (for the reserved operator names) when none
/// fits.
Result<ResolvedFunction> ResolveScalarFunction(std::string_view name,
                                               const std::vector<TypePtr>& arg_types);
/// True when `name` is a registered scalar function (any signature).
bool IsScalarFunction(std::string_view name);
/// True when `name` is a set-returning function (unnest, generate_series, ...).
bool IsSetReturningFunction(std::string_view name);
/// True when `name` returns one record (json_populate_record, jsonb_to_record, ...): in FROM
/// its fields are the columns of one row.
bool IsRecordReturningFunction(std::string_view name);

/// The dimensions an array literal's text declares by its leading braces ('{{1,2},{3,4}}'
/// has 2, '{}' 1), 0 when it does not start with '{': a constant cast to an array type takes
/// the dimensions it has, as PostgreSQL's arrays do whatever their declared type.
int ArrayTextDimensions(std::string_view text);

/// "extract"(field, x) resolves to decimal(38, 6); PostgreSQL's numeric result has a
/// field-dependent scale (EXTRACT(year ...) prints 2024, EXTRACT(second ...) 12.500000).
/// The scale PostgreSQL gives a constant `field` (case-insensitive: 0 for year, month,
/// day, hour, minute, microseconds, dow, doy, week, quarter, ...; 3 for milliseconds; 6
/// for second, epoch and julian), or -1 when the field is unknown. A binder that knows the
/// field may cast the call's result to decimal(38, scale).
int ExtractResultScale(std::string_view field);

/// to_number(text, format) resolves to decimal(38, 10), floe's numeric without a declared
/// scale; PostgreSQL's result has as many digits after the point as the input gave, at most
/// the template's. The scale of the template `format` (its digit positions after the
/// point, plus those after V), when it is a valid template and needs at most 10; -1
/// otherwise. A binder that knows the template may cast the call's result to it.
int ToNumberResultScale(std::string_view format);

/// An aggregate resolved for argument types. Partial aggregation emits `state_fields`
/// per group; the final phase merges them and produces `return_type`.
struct ResolvedAggregate {
  std::string name;                // count, sum, avg, min, max, bool_and, bool_or,
                                   // string_agg, count_star (count(*)), stddev, ...
  std::vector<TypePtr> arg_types;  // the types each argument must be cast to
  TypePtr return_type;             // PostgreSQL's: sum(int4) -> int8, sum(int8) ->
                                   // numeric (decimal(38, 0)), avg(int) -> numeric, ...
  bool distinct = false;
  std::vector<Field> state_fields;  // the partial state's columns
  bool never_null = false;          // an empty input gives 0, not NULL (count)
};

/// kBind "function name(types) does not exist" when no signature fits.
Result<ResolvedAggregate> ResolveAggregate(std::string_view name,
                                           const std::vector<TypePtr>& arg_types, bool distinct);
bool IsAggregateFunction(std::string_view name);
/// Whether the aggregate `name` (lower case) gives a value, never NULL, over no rows (count).
bool AggregateNeverNull(std::string_view name);
/// Whether the aggregate `name` is count(*) (the binder's "count_star").
bool IsCountStar(std::string_view name);

/// The window-only functions (aggregates are window functions too), registered once by name.
enum class WindowOp : uint8_t {
  kRowNumber,
  kRank,
  kDenseRank,
  kPercentRank,
  kCumeDist,
  kNtile,
  kLag,
  kLead,
  kFirstValue,
  kLastValue,
  kNthValue,
};

/// The window function of that name (lower case), if there is one.
std::optional<WindowOp> FindWindowOp(std::string_view name);

/// Whether the function never returns NULL (the ranks, cume_dist and ntile).
bool WindowNeverNull(WindowOp op);

/// A window-only function resolved for argument types.
struct ResolvedWindowFunction {
  std::string name;
  WindowOp op = WindowOp::kRowNumber;
  std::vector<TypePtr> arg_types;  // the types each argument must be cast to
  TypePtr return_type;
};
/// kBind "function name(types) does not exist" when no signature fits.
Result<ResolvedWindowFunction> ResolveWindowFunction(std::string_view name,
                                                     const std::vector<TypePtr>& arg_types);
bool IsWindowFunction(std::string_view name);

}  // namespace floe::expr
