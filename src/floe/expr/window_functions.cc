// Resolution of the window-only functions. WindowExec (exec module) evaluates them;
// aggregates used as window functions resolve through ResolveAggregate.

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "floe/expr/aggregate_internal.h"
#include "floe/expr/function_registry.h"

namespace floe::expr {

namespace {

constexpr std::string_view kWindowNames[] = {
    "row_number", "rank", "dense_rank",  "percent_rank", "cume_dist", "ntile",
    "lag",        "lead", "first_value", "last_value",   "nth_value"};

Status NoSuchWindowFunction(std::string_view name, const std::vector<TypePtr>& arg_types) {
  return Status::Bind("function {} does not exist", internal::SignatureText(name, arg_types));
}

bool IsInteger(const TypePtr& t) { return t && t->is_integer(); }

}  // namespace

bool IsWindowFunction(std::string_view name) {
  return std::find(std::begin(kWindowNames), std::end(kWindowNames), name) !=
         std::end(kWindowNames);
}

Result<ResolvedWindowFunction> ResolveWindowFunction(std::string_view name,
                                                     const std::vector<TypePtr>& arg_types) {
  if (!IsWindowFunction(name)) return NoSuchWindowFunction(name, arg_types);
  for (const TypePtr& t : arg_types) {
    if (!t) return NoSuchWindowFunction(name, arg_types);
  }
  ResolvedWindowFunction fn;
  fn.name = std::string(name);
  const size_t n = arg_types.size();
  if (name == "row_number" || name == "rank" || name == "dense_rank") {
    if (n != 0) return NoSuchWindowFunction(name, arg_types);
    fn.return_type = Int64();
  } else if (name == "percent_rank" || name == "cume_dist") {
    if (n != 0) return NoSuchWindowFunction(name, arg_types);
    fn.return_type = Float64();
  } else if (name == "ntile") {
    // ntile(integer) -> integer; the bucket count is evaluated as int64.
    if (n != 1 || !IsInteger(arg_types[0])) return NoSuchWindowFunction(name, arg_types);
    fn.arg_types = {Int64()};
    fn.return_type = Int32();
  } else if (name == "lag" || name == "lead") {
    // lag(x [, offset integer [, default]]): default is coerced to x's type.
    if (n < 1 || n > 3) return NoSuchWindowFunction(name, arg_types);
    if (n >= 2 && !IsInteger(arg_types[1])) return NoSuchWindowFunction(name, arg_types);
    TypePtr value_type = arg_types[0];
    if (n == 3) {
      FLOE_ASSIGN_OR_RAISE(value_type, CommonType(arg_types[0], arg_types[2], name));
    }
    fn.arg_types.push_back(value_type);
    if (n >= 2) fn.arg_types.push_back(Int64());
    if (n == 3) fn.arg_types.push_back(value_type);
    fn.return_type = value_type;
  } else if (name == "first_value" || name == "last_value") {
    if (n != 1) return NoSuchWindowFunction(name, arg_types);
    fn.arg_types = arg_types;
    fn.return_type = arg_types[0];
  } else {  // nth_value(x, n integer)
    if (n != 2 || !IsInteger(arg_types[1])) return NoSuchWindowFunction(name, arg_types);
    fn.arg_types = {arg_types[0], Int64()};
    fn.return_type = arg_types[0];
  }
  return fn;
}

}  // namespace floe::expr
