// The scalar function registry and PostgreSQL-style resolution over it.

#include "floe/expr/function_registry.h"

#include <limits>
#include <optional>

#include "floe/expr/aggregate_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/json_internal.h"

namespace floe::expr {

namespace internal {

namespace {

bool NameMatches(const ScalarFunctionDef& def, std::string_view name) {
  if (def.name == name) return true;
  for (const std::string& a : def.aliases) {
    if (a == name) return true;
  }
  return false;
}

// The SQL spelling of the reserved operator names, for "operator does not exist".
std::string_view OperatorSymbol(std::string_view name) {
  if (name == "eq") return "=";
  if (name == "ne") return "<>";
  if (name == "lt") return "<";
  if (name == "le") return "<=";
  if (name == "gt") return ">";
  if (name == "ge") return ">=";
  if (name == "add") return "+";
  if (name == "subtract") return "-";
  if (name == "multiply") return "*";
  if (name == "bitwise_and") return "&";
  if (name == "bitwise_or") return "|";
  if (name == "bitwise_xor") return "#";
  if (name == "bitwise_not") return "~";
  if (name == "bitwise_shift_left") return "<<";
  if (name == "bitwise_shift_right") return ">>";
  if (name == "divide") return "/";
  if (name == "modulo") return "%";
  if (name == "negate") return "-";
  if (name == "concat_op") return "||";
  if (name == "like") return "~~";
  if (name == "ilike") return "~~*";
  if (name == "is_distinct_from") return "IS DISTINCT FROM";
  if (name == "is_not_distinct_from") return "IS NOT DISTINCT FROM";
  return {};
}

Status NoSuchFunction(std::string_view name, const std::vector<TypePtr>& arg_types) {
  std::string_view symbol = OperatorSymbol(name);
  if (!symbol.empty()) {
    if (arg_types.size() == 1) {
      return Status::Bind("operator does not exist: {} {}", symbol, SqlTypeName(arg_types[0]));
    }
    if (arg_types.size() == 2) {
      return Status::Bind("operator does not exist: {} {} {}", SqlTypeName(arg_types[0]), symbol,
                          SqlTypeName(arg_types[1]));
    }
  }
  return Status::Bind("function {} does not exist", SignatureText(name, arg_types));
}

}  // namespace

ScalarFunctionRegistry& ScalarFunctionRegistry::Instance() {
  static ScalarFunctionRegistry* registry = new ScalarFunctionRegistry();
  return *registry;
}

ScalarFunctionRegistry::ScalarFunctionRegistry() {
  RegisterArithmeticFunctions(*this);
  RegisterComparisonFunctions(*this);
  RegisterBooleanFunctions(*this);
  RegisterStringFunctions(*this);
  RegisterDatetimeFunctions(*this);
  RegisterMathFunctions(*this);
  RegisterSetReturningFunctions(*this);
  RegisterJsonFunctions(*this);
  RegisterArrayFunctions(*this);
  RegisterRecordFunctions(*this);
  RegisterJsonRecordFunctions(*this);
}

void ScalarFunctionRegistry::Add(ScalarFunctionDef def) { defs_.push_back(std::move(def)); }

Result<ResolvedFunction> ScalarFunctionRegistry::Resolve(
    std::string_view name, const std::vector<TypePtr>& arg_types) const {
  for (const TypePtr& t : arg_types) {
    if (!t) return Status::Bind("function {}: an argument has no type", name);
  }
  std::optional<ResolvedFunction> best;
  int best_cost = std::numeric_limits<int>::max();
  Status first_error;
  bool any = false;
  for (const ScalarFunctionDef& def : defs_) {
    if (!NameMatches(def, name)) continue;
    any = true;
    int cost = 0;
    Result<ResolvedFunction> r = def.resolve(arg_types, &cost);
    if (!r.ok()) {
      if (first_error.ok()) first_error = r.status();
      continue;
    }
    if (cost < best_cost) {
      best_cost = cost;
      best = std::move(*r);
      best->name = def.name;
      best->set_returning = best->set_returning || def.set_returning;
    }
  }
  if (best) return std::move(*best);
  // A resolver's error other than a type mismatch (a bad constant argument, an
  // unsupported form) says more than the generic message.
  if (any && !first_error.ok() && first_error.code() != StatusCode::kBind) return first_error;
  // PostgreSQL's own messages for the SQL constructs ("COALESCE types integer and text
  // cannot be matched", "argument of AND must be type boolean, not type integer").
  if (any && (first_error.message().find("cannot be matched") != std::string::npos ||
              first_error.message().starts_with("argument of "))) {
    return first_error;
  }
  return NoSuchFunction(name, arg_types);
}

Result<ScalarKernel> ScalarFunctionRegistry::Kernel(const ResolvedFunction& fn) const {
  const ScalarFunctionDef* found = nullptr;
  int found_count = 0;
  for (const ScalarFunctionDef& def : defs_) {
    if (def.name == fn.name) {
      found = &def;
      ++found_count;
    }
  }
  if (found_count == 0) return Status::Internal("no kernel for function '{}'", fn.name);
  if (found_count == 1) return found->kernel;
  // Several families share the name: the one that takes the resolved types as they are.
  const ScalarFunctionDef* best = nullptr;
  int best_cost = std::numeric_limits<int>::max();
  for (const ScalarFunctionDef& def : defs_) {
    if (def.name != fn.name) continue;
    int cost = 0;
    Result<ResolvedFunction> r = def.resolve(fn.arg_types, &cost);
    if (r.ok() && cost < best_cost) {
      best = &def;
      best_cost = cost;
    }
  }
  if (best == nullptr) {
    return Status::Internal("no kernel for {}", SignatureText(fn.name, fn.arg_types));
  }
  return best->kernel;
}

bool ScalarFunctionRegistry::Contains(std::string_view name) const {
  for (const ScalarFunctionDef& def : defs_) {
    if (NameMatches(def, name)) return true;
  }
  return false;
}

bool ScalarFunctionRegistry::ContainsSetReturning(std::string_view name) const {
  for (const ScalarFunctionDef& def : defs_) {
    if (def.set_returning && NameMatches(def, name)) return true;
  }
  return false;
}

}  // namespace internal

Result<ResolvedFunction> ResolveScalarFunction(std::string_view name,
                                               const std::vector<TypePtr>& arg_types) {
  return internal::ScalarFunctionRegistry::Instance().Resolve(name, arg_types);
}

bool IsScalarFunction(std::string_view name) {
  return internal::ScalarFunctionRegistry::Instance().Contains(name);
}

bool IsSetReturningFunction(std::string_view name) {
  return internal::ScalarFunctionRegistry::Instance().ContainsSetReturning(name);
}

}  // namespace floe::expr
