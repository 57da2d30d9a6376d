// Resolution of the window-only functions. WindowExec (exec module) evaluates them;
// aggregates used as window functions resolve through ResolveAggregate.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/expr/aggregate_internal.h"
#include "floe/expr/function_registry.h"

namespace floe::expr {

namespace {

struct WindowFunctionDef {
  std::string_view name;
  WindowOp op;
  bool never_null;
};

constexpr WindowFunctionDef kWindowFunctions[] = {
    {"row_number", WindowOp::kRowNumber, true},
    {"rank", WindowOp::kRank, true},
    {"dense_rank", WindowOp::kDenseRank, true},
    {"percent_rank", WindowOp::kPercentRank, true},
    {"cume_dist", WindowOp::kCumeDist, true},
    {"ntile", WindowOp::kNtile, true},
    {"lag", WindowOp::kLag, false},
    {"lead", WindowOp::kLead, false},
    {"first_value", WindowOp::kFirstValue, false},
    {"last_value", WindowOp::kLastValue, false},
    {"nth_value", WindowOp::kNthValue, false},
};

const WindowFunctionDef* FindWindowFunction(std::string_view name) {
  for (const WindowFunctionDef& def : kWindowFunctions) {
    if (def.name == name) return &def;
  }
  return nullptr;
}

Status NoSuchWindowFunction(std::string_view name, const std::vector<TypePtr>& arg_types) {
  return Status::Bind("function {} does not exist", internal::SignatureText(name, arg_types));
}

bool IsInteger(const TypePtr& t) { return t && t->is_integer(); }

}  // namespace

std::optional<WindowOp> FindWindowOp(std::string_view name) {
  const WindowFunctionDef* def = FindWindowFunction(name);
  if (def == nullptr) return std::nullopt;
  return def->op;
}

bool WindowNeverNull(WindowOp op) {
  for (const WindowFunctionDef& def : kWindowFunctions) {
    if (def.op == op) return def.never_null;
  }
  return false;
}

bool IsWindowFunction(std::string_view name) { return FindWindowFunction(name) != nullptr; }

Result<ResolvedWindowFunction> ResolveWindowFunction(std::string_view name,
                                                     const std::vector<TypePtr>& arg_types) {
  const WindowFunctionDef* def = FindWindowFunction(name);
  if (def == nullptr) return NoSuchWindowFunction(name, arg_types);
  for (const TypePtr& t : arg_types) {
    if (!t) return NoSuchWindowFunction(name, arg_types);
  }
  ResolvedWindowFunction fn;
  fn.name = std::string(name);
  fn.op = def->op;
  const size_t n = arg_types.size();
  switch (def->op) {
    case WindowOp::kRowNumber:
    case WindowOp::kRank:
    case WindowOp::kDenseRank:
      if (n != 0) return NoSuchWindowFunction(name, arg_types);
      fn.return_type = Int64();
      break;
    case WindowOp::kPercentRank:
    case WindowOp::kCumeDist:
      if (n != 0) return NoSuchWindowFunction(name, arg_types);
      fn.return_type = Float64();
      break;
    case WindowOp::kNtile:
      // ntile(integer) -> integer; the bucket count is evaluated as int64.
      if (n != 1 || !IsInteger(arg_types[0])) return NoSuchWindowFunction(name, arg_types);
      fn.arg_types = {Int64()};
      fn.return_type = Int32();
      break;
    case WindowOp::kLag:
    case WindowOp::kLead: {
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
      break;
    }
    case WindowOp::kFirstValue:
    case WindowOp::kLastValue:
      if (n != 1) return NoSuchWindowFunction(name, arg_types);
      fn.arg_types = arg_types;
      fn.return_type = arg_types[0];
      break;
    case WindowOp::kNthValue:
      // nth_value(x, n integer)
      if (n != 2 || !IsInteger(arg_types[1])) return NoSuchWindowFunction(name, arg_types);
      fn.arg_types = {arg_types[0], Int64()};
      fn.return_type = arg_types[0];
      break;
  }
  return fn;
}

}  // namespace floe::expr
