// Binding of PostgreSQL's array syntax over the engine's lists: ARRAY[...] constructors,
// subscripts and slices, field selection from composite values, and the untyped arguments of
// the array functions. An array of n dimensions is a list nested n deep with lower bounds 1.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "floe/common/ascii.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/physical_expr.h"
#include "floe/plan/binder_internal.h"
#include "floe/type/list_type.h"

namespace floe::plan::internal {

using expr::ExprPtr;

TypePtr WithArrayDims(const TypePtr& type, int dims) {
  if (type->id() != TypeId::kList || dims < 1) return type;
  TypePtr x = ListLeafType(type);
  for (int i = 0; i < dims; ++i) x = List(x);
  return x;
}

Result<ExprPtr> Binder::BindArray(const sql::ParsedExpr& e, ExprContext& ctx,
                                  const TypePtr& target) {
  if (e.args.empty()) {
    if (target == nullptr || target->id() != TypeId::kList) {
      return BindError(e.location, "cannot determine type of empty array");
    }
    return expr::Cast(expr::Literal(Scalar::Str("{}")), target);
  }
  // A cast around the constructor gives its untyped elements their type (ARRAY['1']::int[]).
  const TypePtr inner = target != nullptr && target->id() == TypeId::kList &&
                                target->field(0).type()->id() == TypeId::kList
                            ? target->field(0).type()
                            : target;
  std::vector<ExprPtr> items;
  TypePtr type;
  for (const auto& a : e.args) {
    ExprPtr x;
    if (a->kind == sql::ExprKind::kArray) {
      FLOE_ASSIGN_OR_RAISE(x, BindArray(*a, ctx, inner));
    } else {
      FLOE_ASSIGN_OR_RAISE(x, BindExprImpl(*a, ctx));
    }
    if (!IsUntyped(*x)) {
      if (!type) {
        type = x->type;
      } else if (!type->Equals(*x->type)) {
        FLOE_ASSIGN_OR_RAISE(type, CommonTypeAt(type, x->type, "ARRAY", a->location));
      }
    }
    items.push_back(std::move(x));
  }
  if (!type) type = target != nullptr ? ListLeafType(target) : String();
  for (size_t i = 0; i < items.size(); ++i) {
    FLOE_ASSIGN_OR_RAISE(items[i], CoerceTo(items[i], type, e.args[i]->location));
  }
  return MakeCall("make_array", std::move(items), e.location);
}

Result<ExprPtr> Binder::BindSubscript(const sql::ParsedExpr& e, ExprContext& ctx) {
  // a[i][j] arrives as nested subscripts: collect them, outermost array first.
  std::vector<const sql::ParsedExpr*> subscripts;
  const sql::ParsedExpr* base = &e;
  while (base->kind == sql::ExprKind::kSubscript) {
    subscripts.push_back(base);
    base = base->args[0].get();
  }
  std::reverse(subscripts.begin(), subscripts.end());
  FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*base, ctx));
  if (x->type->id() == TypeId::kMap && subscripts.size() == 1 && !subscripts[0]->slice) {
    return BindMapLookup(std::move(x), *subscripts[0]->args[1], ctx, e.location);
  }
  if (IsUntyped(*x) || x->type->id() != TypeId::kList) {
    return BindError(e.location, "cannot subscript type " +
                                     (IsUntyped(*x) ? std::string("unknown")
                                                    : SqlTypeName(*x->type)) +
                                     " because it does not support subscripting");
  }
  auto bind_index = [&](const sql::ParsedExprPtr& p, int64_t absent) -> Result<ExprPtr> {
    if (p == nullptr) return expr::Literal(Scalar::I64(absent));
    FLOE_ASSIGN_OR_RAISE(ExprPtr i, BindExprImpl(*p, ctx));
    if (IsUntyped(*i)) {
      FLOE_ASSIGN_OR_RAISE(i, CoerceTo(i, Int64(), p->location));
    }
    if (!i->type->is_integer()) {
      return BindError(p->location, "array subscript must have type integer");
    }
    return CoerceTo(i, Int64(), p->location);
  };
  const int depth = ListDepth(*x->type);
  const bool slice = std::any_of(subscripts.begin(), subscripts.end(),
                                 [](const sql::ParsedExpr* s) { return s->slice; });
  std::vector<ExprPtr> args{x};
  for (const sql::ParsedExpr* s : subscripts) {
    if (slice) {
      // In a slice, a plain subscript i stands for 1:i, as in PostgreSQL.
      FLOE_ASSIGN_OR_RAISE(ExprPtr lower, bind_index(s->slice ? s->args[1] : nullptr, 1));
      FLOE_ASSIGN_OR_RAISE(ExprPtr upper,
                           bind_index(s->slice ? s->args[2] : s->args[1], INT64_MAX));
      args.push_back(std::move(lower));
      args.push_back(std::move(upper));
    } else {
      FLOE_ASSIGN_OR_RAISE(ExprPtr index, bind_index(s->args[1], 0));
      args.push_back(std::move(index));
    }
  }
  const int count = static_cast<int>(subscripts.size());
  if (count != depth) {
    // PostgreSQL gives NULL for an element reference with another number of subscripts
    // than the array's dimensions, and an empty array for a slice with more.
    if (!slice) return expr::Literal(Scalar::Null(ListLeafType(x->type)));
    if (count > depth) {
      return NotSupported(e.location, "a slice with more subscripts than the array's " +
                                          std::to_string(depth) + " dimensions");
    }
  }
  return MakeCall(slice ? "array_slice" : "array_element", std::move(args), e.location);
}

Result<ExprPtr> Binder::BindFieldSelect(const sql::ParsedExpr& e, ExprContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*e.args[0], ctx));
  return SelectField(std::move(x), e.names[0], e.location);
}

Result<ExprPtr> Binder::SelectField(ExprPtr x, const std::string& name, int location) {
  if (IsUntyped(*x) || x->type->id() != TypeId::kStruct) {
    return BindError(location, "column notation ." + name + " applied to type " +
                                   (IsUntyped(*x) ? std::string("unknown")
                                                  : SqlTypeName(*x->type)) +
                                   ", which is not a composite type");
  }
  for (int i = 0; i < x->type->num_fields(); ++i) {
    if (x->type->field(i).name() != name) continue;
    const Field& f = x->type->field(i);
    return expr::Call("struct_field",
                      {x, expr::Literal(Scalar::I32(i)), expr::Literal(Scalar::Null(f.type()))},
                      f.type(), true);
  }
  return BindError(location, "column \"" + name + "\" not found in data type " +
                                 SqlTypeName(*x->type));
}

Result<ExprPtr> Binder::BindMapLookup(ExprPtr map, const sql::ParsedExpr& key, ExprContext& ctx,
                                      int location) {
  FLOE_ASSIGN_OR_RAISE(ExprPtr k, BindExprImpl(key, ctx));
  FLOE_ASSIGN_OR_RAISE(k, CoerceTo(k, map->type->field(0).type(), key.location));
  return MakeCall("map_value", {std::move(map), std::move(k)}, location);
}

Status Binder::CoerceUntypedArrayArgs(std::string_view name, std::vector<ExprPtr>& args) {
  // The array functions' parameters: a = the array, e = an element (PostgreSQL's
  // anycompatiblearray and anycompatible); an untyped argument takes the type the others
  // give it.
  static const std::pair<const char*, const char*> kParams[] = {
      {"array_append", "ae"},   {"array_prepend", "ea"},   {"array_cat", "aa"},
      {"array_position", "ae"}, {"array_positions", "ae"}, {"array_remove", "ae"},
      {"array_replace", "aee"}, {"array_length", "a"},     {"array_lower", "a"},
      {"array_upper", "a"},     {"array_ndims", "a"},      {"array_dims", "a"},
      {"cardinality", "a"},     {"array_to_string", "a"},  {"unnest", "a"}};
  std::string_view params;
  for (const auto& [n, p] : kParams) {
    if (name == n) params = p;
  }
  if (params.empty()) return Status::OK();
  TypePtr list;
  for (size_t i = 0; i < args.size() && i < params.size(); ++i) {
    if (IsUntyped(*args[i])) continue;
    if (params[i] == 'a' && args[i]->type->id() == TypeId::kList) {
      list = args[i]->type;
      break;
    }
  }
  if (!list) {
    for (size_t i = 0; i < args.size() && i < params.size(); ++i) {
      if (params[i] == 'e' && !IsUntyped(*args[i])) {
        list = List(args[i]->type);
        break;
      }
    }
  }
  if (!list) return Status::OK();
  for (size_t i = 0; i < args.size() && i < params.size(); ++i) {
    if (!IsUntyped(*args[i])) continue;
    FLOE_ASSIGN_OR_RAISE(args[i],
                         CoerceTo(args[i], params[i] == 'a' ? list : list->field(0).type(), -1));
  }
  return Status::OK();
}

}  // namespace floe::plan::internal
