#pragma once

// Helpers for the resolvers of the string, date/time and math function families: matching
// argument types against PostgreSQL-style parameter types and the "does not exist" error.

#include <string>
#include <string_view>
#include <vector>

#include "floe/expr/cast_internal.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/function_registry_internal.h"

namespace floe::expr::internal {

/// Whether an argument of type `from` can be passed as `to`, adding one to `cost` when an
/// implicit cast is needed. A null `from` fits anything, and so does an untyped literal
/// (UnknownType), at no cost as text and at the cost of a cast as any other type.
inline bool Accepts(const TypePtr& from, const TypePtr& to, int* cost) {
  if (from == nullptr) {
    ++*cost;
    return true;
  }
  if (from->Equals(*to)) return true;
  if (IsUnknownType(from)) {
    ++*cost;
    return true;
  }
  if (CanImplicitCast(*from, *to)) {
    ++*cost;
    return true;
  }
  return false;
}

/// Matches every argument against `params` (same count).
inline bool AcceptsAll(const std::vector<TypePtr>& args, const std::vector<TypePtr>& params,
                       int* cost) {
  if (args.size() != params.size()) return false;
  int c = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!Accepts(args[i], params[i], &c)) return false;
  }
  *cost += c;
  return true;
}

/// kBind "function name(integer, text) does not exist".
inline Status NoSuchFunction(std::string_view name, const std::vector<TypePtr>& args) {
  std::string list;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) list += ", ";
    list += args[i] && !IsUnknownType(args[i]) ? SqlTypeName(*args[i]) : "unknown";
  }
  return Status::Bind("function {}({}) does not exist", name, list);
}

/// A resolution with these parameter and result types.
inline ResolvedFunction Resolution(std::string name, std::vector<TypePtr> params, TypePtr ret,
                                   bool null_if_any_arg_null = true,
                                   bool volatile_function = false) {
  ResolvedFunction fn;
  fn.name = std::move(name);
  fn.arg_types = std::move(params);
  fn.return_type = std::move(ret);
  fn.null_if_any_arg_null = null_if_any_arg_null;
  fn.volatile_function = volatile_function;
  return fn;
}

/// A resolver trying fixed parameter lists in order (the cheapest match wins); every list
/// returns `ret`.
inline ScalarResolver Signatures(std::string name, std::vector<std::vector<TypePtr>> candidates,
                                 TypePtr ret) {
  return [name = std::move(name), candidates = std::move(candidates), ret = std::move(ret)](
             const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
    int best_cost = -1;
    const std::vector<TypePtr>* best = nullptr;
    for (const auto& params : candidates) {
      int c = 0;
      if (AcceptsAll(args, params, &c) && (best == nullptr || c < best_cost)) {
        best = &params;
        best_cost = c;
      }
    }
    if (best == nullptr) return NoSuchFunction(name, args);
    *cost += best_cost;
    return Resolution(name, *best, ret);
  };
}

}  // namespace floe::expr::internal
