#pragma once

// The registry behind function_registry.h, private to the expr module. A function family
// registers one resolver (argument types -> ResolvedFunction, or an error when they do
// not fit) and one kernel (evaluates arguments already cast to the resolved types). The
// groups are registered explicitly by the registry's constructor:
//   RegisterArithmeticFunctions, RegisterComparisonFunctions, RegisterBooleanFunctions
//   (and/or/not/is_*/in_list/like/coalesce/nullif/greatest/least),
//   RegisterStringFunctions, RegisterDatetimeFunctions, RegisterMathFunctions,
//   RegisterJsonFunctions, RegisterArrayFunctions, RegisterSetReturningFunctions,
//   RegisterFormattingFunctions, RegisterRecordFunctions, RegisterJsonRecordFunctions.
// Elementwise loop templates shared by the kernels live in kernel_internal.h.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/physical_expr.h"

namespace floe::expr::internal {

/// Evaluates a call over `num_rows` rows. Arguments are arrays of num_rows values or
/// scalars; the result may be a scalar only when every argument was one.
using ScalarKernel = std::function<Result<ColumnarValue>(const ResolvedFunction& fn,
                                                         const std::vector<ColumnarValue>& args,
                                                         int64_t num_rows, EvalContext& ctx)>;

/// Resolves a call's argument types, or returns an error (kBind) saying why not. A
/// resolver reports the number of implicit casts it needed in `cost` so the registry can
/// prefer the closest of several candidate families registered under one name.
using ScalarResolver =
    std::function<Result<ResolvedFunction>(const std::vector<TypePtr>& arg_types, int* cost)>;

struct ScalarFunctionDef {
  std::string name;                  // canonical, lower-case
  std::vector<std::string> aliases;  // other spellings that resolve to `name`
  ScalarResolver resolve;
  ScalarKernel kernel;
  /// A set-returning function: the kernel returns per row the list of rows it yields
  /// (ResolvedFunction::set_returning).
  bool set_returning = false;
};

class ScalarFunctionRegistry {
 public:
  static ScalarFunctionRegistry& Instance();

  /// Adds a definition (several may share a name: candidates are tried in order and the
  /// lowest cost wins).
  void Add(ScalarFunctionDef def);
  Result<ResolvedFunction> Resolve(std::string_view name,
                                   const std::vector<TypePtr>& arg_types) const;
  /// The kernel for a resolution (looked up by name and argument types).
  Result<ScalarKernel> Kernel(const ResolvedFunction& fn) const;
  bool Contains(std::string_view name) const;
  /// True when a definition of `name` is set-returning.
  bool ContainsSetReturning(std::string_view name) const;

 private:
  ScalarFunctionRegistry();
  std::vector<ScalarFunctionDef> defs_;
};

/// CAST(value AS to) over `num_rows` rows with PostgreSQL's rules and errors
/// (kInvalidArgument: "invalid input syntax for type integer: \"abc\"", "integer out of
/// range", "value too long for type ..."). Used by the kCast expression (cast.cc).
Result<ColumnarValue> CastValue(const ColumnarValue& value, const TypePtr& to, int64_t num_rows,
                                EvalContext& ctx);

void RegisterArithmeticFunctions(ScalarFunctionRegistry& registry);
void RegisterComparisonFunctions(ScalarFunctionRegistry& registry);
void RegisterBooleanFunctions(ScalarFunctionRegistry& registry);
void RegisterStringFunctions(ScalarFunctionRegistry& registry);
void RegisterDatetimeFunctions(ScalarFunctionRegistry& registry);
void RegisterMathFunctions(ScalarFunctionRegistry& registry);
void RegisterSetReturningFunctions(ScalarFunctionRegistry& registry);
/// json_functions.cc (declared with the json casts in json_internal.h).
void RegisterJsonFunctions(ScalarFunctionRegistry& registry);
void RegisterArrayFunctions(ScalarFunctionRegistry& registry);
/// interval_functions.cc (the casts in interval_internal.h).
void RegisterIntervalFunctions(ScalarFunctionRegistry& registry);
void RegisterNumericFunctions(ScalarFunctionRegistry& registry);
/// ordered_set_functions.cc: the final steps of percentile_cont, percentile_disc, mode.
void RegisterOrderedSetFunctions(ScalarFunctionRegistry& registry);
/// to_char, to_timestamp(text, text), to_date, to_number (formatting_functions.cc).
void RegisterFormattingFunctions(ScalarFunctionRegistry& registry);
/// record_functions.cc: the row constructor, record comparisons and null tests.
void RegisterRecordFunctions(ScalarFunctionRegistry& registry);
/// json_record_functions.cc: json(b)_populate_record(set), json(b)_to_record(set) and
/// row_to_json and array_to_json.
void RegisterJsonRecordFunctions(ScalarFunctionRegistry& registry);

}  // namespace floe::expr::internal
