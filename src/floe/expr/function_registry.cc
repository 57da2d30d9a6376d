// The scalar function registry and PostgreSQL-style resolution over it.

#include "floe/expr/function_registry.h"

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/expr/aggregate_internal.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/json_internal.h"
#include "floe/expr/signature_internal.h"
#include "floe/type/list_type.h"

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

Status NoSuchFunctionOrOperator(std::string_view name, const std::vector<TypePtr>& arg_types) {
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

// The type with every UnknownType in it (at any depth) as plain text.
TypePtr WithoutUnknown(const TypePtr& t) {
  if (t == nullptr) return t;
  if (IsUnknownType(t)) return String();
  if (!t->is_nested()) return t;
  std::vector<Field> fields;
  bool changed = false;
  for (const Field& f : t->fields()) {
    TypePtr inner = WithoutUnknown(f.type());
    changed = changed || inner != f.type();
    fields.push_back(f.WithType(std::move(inner)));
  }
  if (!changed) return t;
  switch (t->id()) {
    case TypeId::kList:
      return List(std::move(fields[0]));
    case TypeId::kMap:
      return Map(std::move(fields[0]), std::move(fields[1]));
    default:
      return Struct(std::move(fields));
  }
}

// The leaf values of list value `row` of `list` (every level of a nested list flattened, in
// storage order), as indices into the innermost child array.
void CollectLeaves(const Array& list, int64_t row, std::vector<int64_t>* leaves) {
  const Array& child = *list.child(0);
  for (int64_t j = list.ListBegin(row); j < list.ListEnd(row); ++j) {
    if (child.type_id() == TypeId::kList) {
      if (!child.IsNull(j)) CollectLeaves(child, j, leaves);
    } else {
      leaves->push_back(j);
    }
  }
}

// The innermost child array of a (nested) list array.
const Array& LeafArray(const Array& list) {
  const Array* a = &list;
  while (a->type_id() == TypeId::kList) a = a->child(0).get();
  return *a;
}

// `name(fixed..., VARIADIC array)` of a function with PostgreSQL's `VARIADIC "any"`
// (VariadicFormName): the array's elements become the last arguments, row by row, and the
// function itself runs on them. A NULL array gives NULL; an empty one calls the function
// with no variadic arguments (with one NULL when it needs at least one, as concat does).
ScalarFunctionDef VariadicAnyForm(std::string name, size_t num_fixed) {
  const std::string form = VariadicFormName(name);
  // The underlying call for these fixed types and `count` leaf elements.
  auto resolve_inner = [name](const std::vector<TypePtr>& fixed, const TypePtr& leaf,
                              size_t count) -> Result<ResolvedFunction> {
    std::vector<TypePtr> types = fixed;
    types.insert(types.end(), count, leaf);
    auto resolved = ScalarFunctionRegistry::Instance().Resolve(name, types);
    if (!resolved.ok() && count == 0) {
      types.push_back(leaf);
      return ScalarFunctionRegistry::Instance().Resolve(name, types);
    }
    return resolved;
  };
  ScalarResolver resolver = [form, name, num_fixed, resolve_inner](
                                const std::vector<TypePtr>& args,
                                int* cost) -> Result<ResolvedFunction> {
    if (args.empty() || args.back() == nullptr || args.back()->id() != TypeId::kList ||
        IsUnknownType(args.back())) {
      return Status::Bind("VARIADIC argument must be an array");
    }
    // Only the parameters before the variadic one may be passed apart from the array.
    if (args.size() != num_fixed + 1) return NoSuchFunction(name, args);
    const std::vector<TypePtr> fixed(args.begin(), args.end() - 1);
    FLOE_ASSIGN_OR_RAISE(ResolvedFunction inner,
                         resolve_inner(fixed, ListLeafType(args.back()), 1));
    std::vector<TypePtr> params(inner.arg_types.begin(),
                                inner.arg_types.begin() + static_cast<int64_t>(fixed.size()));
    for (size_t i = 0; i < fixed.size(); ++i) {
      if (!Accepts(fixed[i], params[i], cost)) return NoSuchFunction(name, args);
    }
    params.push_back(args.back());
    return Resolution(form, std::move(params), inner.return_type,
                      /*null_if_any_arg_null=*/false);
  };
  ScalarKernel kernel = [resolve_inner](const ResolvedFunction& f,
                                        const std::vector<ColumnarValue>& args, int64_t n,
                                        EvalContext& ctx) -> Result<ColumnarValue> {
    const size_t num_fixed = args.size() - 1;
    std::vector<TypePtr> fixed(f.arg_types.begin(), f.arg_types.end() - 1);
    const TypePtr leaf_type = ListLeafType(f.arg_types.back());
    std::vector<ArrayPtr> arrays;
    for (const ColumnarValue& a : args) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr array, a.ToArray(n, ctx.pool));
      arrays.push_back(std::move(array));
    }
    const Array& list = *arrays.back();
    const Array& leaf_values = LeafArray(list);
    std::map<size_t, std::pair<ResolvedFunction, ScalarKernel>> calls;
    std::unique_ptr<ArrayBuilder> out = MakeBuilder(f.return_type, ctx.pool);
    std::vector<int64_t> leaves;
    for (int64_t i = 0; i < n; ++i) {
      if (list.IsNull(i)) {
        FLOE_RETURN_NOT_OK(out->AppendNull());
        continue;
      }
      leaves.clear();
      CollectLeaves(list, i, &leaves);
      auto call = calls.find(leaves.size());
      if (call == calls.end()) {
        FLOE_ASSIGN_OR_RAISE(ResolvedFunction inner,
                             resolve_inner(fixed, leaf_type, leaves.size()));
        FLOE_ASSIGN_OR_RAISE(ScalarKernel inner_kernel,
                             ScalarFunctionRegistry::Instance().Kernel(inner));
        call = calls.emplace(leaves.size(), std::pair{std::move(inner), std::move(inner_kernel)})
                   .first;
      }
      const ResolvedFunction& inner = call->second.first;
      std::vector<ArrayPtr> row_arrays;
      for (size_t k = 0; k < num_fixed; ++k) row_arrays.push_back(arrays[k]->Slice(i, 1));
      for (int64_t leaf : leaves) row_arrays.push_back(leaf_values.Slice(leaf, 1));
      // The NULL that stands in for no variadic argument (resolve_inner).
      if (inner.arg_types.size() > row_arrays.size()) {
        std::unique_ptr<ArrayBuilder> null_value = MakeBuilder(inner.arg_types.back(), ctx.pool);
        FLOE_RETURN_NOT_OK(null_value->AppendNull());
        FLOE_ASSIGN_OR_RAISE(ArrayPtr null_array, null_value->Finish());
        row_arrays.push_back(std::move(null_array));
      }
      for (size_t k = 0; k < row_arrays.size(); ++k) {
        if (!row_arrays[k]->type()->Equals(*inner.arg_types[k])) {
          FLOE_ASSIGN_OR_RAISE(row_arrays[k],
                               CastArrayValues(*row_arrays[k], inner.arg_types[k], ctx.pool));
        }
      }
      std::vector<ColumnarValue> row_args(row_arrays.size());
      for (size_t k = 0; k < row_arrays.size(); ++k) row_args[k] = ColumnarValue(row_arrays[k]);
      FLOE_ASSIGN_OR_RAISE(ColumnarValue value, call->second.second(inner, row_args, 1, ctx));
      FLOE_ASSIGN_OR_RAISE(ArrayPtr value_array, value.ToArray(1, ctx.pool));
      FLOE_RETURN_NOT_OK(out->AppendArraySlice(*value_array, 0, 1));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr result, out->Finish());
    return ColumnarValue(std::move(result));
  };
  return ScalarFunctionDef{form, {}, std::move(resolver), std::move(kernel)};
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
  RegisterIntervalFunctions(*this);
  RegisterOrderedSetFunctions(*this);
  RegisterFormattingFunctions(*this);
  RegisterNumericFunctions(*this);
  // PostgreSQL's functions with `VARIADIC "any"` and the count of parameters before it:
  // their f(..., VARIADIC array) forms.
  for (const auto& [name, num_fixed] :
       {std::pair{"concat", 0}, std::pair{"concat_ws", 1}, std::pair{"json_build_array", 0},
        std::pair{"json_build_object", 0}, std::pair{"jsonb_build_array", 0},
        std::pair{"jsonb_build_object", 0}}) {
    Add(VariadicAnyForm(name, static_cast<size_t>(num_fixed)));
  }
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
  if (best) {
    for (TypePtr& t : best->arg_types) t = WithoutUnknown(t);
    best->return_type = WithoutUnknown(best->return_type);
    return std::move(*best);
  }
  // A resolver's error other than a type mismatch (a bad constant argument, an
  // unsupported form) says more than the generic message.
  if (any && !first_error.ok() && first_error.code() != StatusCode::kBind) return first_error;
  // PostgreSQL's own messages for the SQL constructs ("COALESCE types integer and text
  // cannot be matched", "argument of AND must be type boolean, not type integer").
  if (any && (first_error.message().find("cannot be matched") != std::string::npos ||
              first_error.message().starts_with("argument of "))) {
    return first_error;
  }
  return NoSuchFunctionOrOperator(name, arg_types);
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

std::string VariadicFormName(std::string_view name) { return "variadic " + std::string(name); }

const TypePtr& UnknownType() {
  // A copy of text's type: equal to it, but not the same instance.
  static const TypePtr* unknown = new TypePtr(std::make_shared<const DataType>(*String()));
  return *unknown;
}

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
