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

namespace {

sql::ParsedExprPtr NewParsed(sql::ExprKind kind, int location) {
  auto e = std::make_shared<sql::ParsedExpr>();
  e->kind = kind;
  e->location = location;
  return e;
}

// Whether `e` calls an aggregate or window function outside a subquery of its own.
bool HasAggregateOrWindow(const sql::ParsedExpr& e) {
  if (e.kind == sql::ExprKind::kFunction && !e.names.empty() &&
      (e.agg_star || e.over || e.agg_within_group ||
       expr::IsAggregateFunction(AsciiLower(e.names.back())))) {
    return true;
  }
  for (const sql::ParsedExprPtr& a : e.args) {
    if (a && HasAggregateOrWindow(*a)) return true;
  }
  for (const auto& [when, then] : e.when_then) {
    if ((when && HasAggregateOrWindow(*when)) || (then && HasAggregateOrWindow(*then))) {
      return true;
    }
  }
  return e.else_expr && HasAggregateOrWindow(*e.else_expr);
}

// The 1-based position ORDER BY item `key` names among a single-column select list: an
// ordinal, or the column's alias; 0 when it names neither.
int SortKeyPosition(const sql::ParsedExpr& key, const std::string& alias) {
  if (key.kind == sql::ExprKind::kConstant && key.constant.kind == sql::Constant::Kind::kInteger) {
    return static_cast<int>(key.constant.integer);
  }
  if (key.kind == sql::ExprKind::kColumnRef && key.names.size() == 1 && !alias.empty() &&
      key.names[0] == alias) {
    return 1;
  }
  return 0;
}

sql::ParsedExprPtr ColumnRef(const std::string& table, const std::string& name, int location) {
  sql::ParsedExprPtr e = NewParsed(sql::ExprKind::kColumnRef, location);
  e->names = {table, name};
  return e;
}

}  // namespace

Result<ExprPtr> Binder::BindArraySubquery(const sql::ParsedExpr& e, ExprContext& ctx) {
  const sql::SelectStmt& q = *e.subquery;
  // The subquery's one output column (a set operation's come from its first input).
  const sql::SelectStmt* first = &q;
  while (first->set_op != sql::SelectStmt::SetOp::kNone && !first->inputs.empty()) {
    first = first->inputs[0].get();
  }
  const bool star = !first->targets.empty() && first->targets[0].expr &&
                    first->targets[0].expr->kind == sql::ExprKind::kStar;
  if (first->values.empty() && (first->targets.size() != 1 || star)) {
    if (first->targets.size() != 1) {
      return BindError(e.location, "subquery must return only one column");
    }
    return NotSupported(e.location, "ARRAY(SELECT * ...) is not supported (name the column)");
  }
  auto aggregate = NewParsed(sql::ExprKind::kFunction, e.location);
  aggregate->names = {"array_agg"};
  auto outer = std::make_shared<sql::SelectStmt>();
  outer->location = q.location;
  const bool plain = q.set_op == sql::SelectStmt::SetOp::kNone && q.values.empty() && !q.with &&
                     !q.distinct && q.group_by.empty() && !q.having && q.windows.empty() &&
                     !q.limit && !q.offset && !HasAggregateOrWindow(*q.targets[0].expr);
  if (plain) {
    // Over the subquery's own FROM and WHERE, so that its references to the enclosing query
    // stay those of a subquery's WHERE.
    const sql::SelectItem& target = q.targets[0];
    aggregate->args = {target.expr};
    for (const sql::SortItem& item : q.order_by) {
      sql::SortItem key = item;
      const int position = SortKeyPosition(*item.expr, target.alias);
      if (position > 1 || position < 0) {
        return BindError(item.location, "ORDER BY position " + std::to_string(position) +
                                            " is not in select list");
      }
      if (position == 1) key.expr = target.expr;
      aggregate->agg_order_by.push_back(std::move(key));
    }
    outer->from = q.from;
    outer->where = q.where;
  } else {
    // Over the subquery as a FROM item s(v, k1, ...): ORDER BY items that are not its column
    // become hidden columns of a plain SELECT (a set operation's ORDER BY names its column).
    auto inner = std::make_shared<sql::SelectStmt>(q);
    std::vector<std::string> columns = {"v"};
    aggregate->args = {ColumnRef("s", "v", e.location)};
    const std::string alias = first->values.empty() ? first->targets[0].alias : "";
    for (const sql::SortItem& item : q.order_by) {
      sql::SortItem key = item;
      const int position = SortKeyPosition(*item.expr, alias);
      if (position > 1 || position < 0) {
        return BindError(item.location, "ORDER BY position " + std::to_string(position) +
                                            " is not in select list");
      }
      if (position == 1) {
        key.expr = ColumnRef("s", "v", item.location);
      } else if (q.set_op == sql::SelectStmt::SetOp::kNone && q.values.empty() && !q.distinct) {
        columns.push_back("k" + std::to_string(columns.size()));
        inner->targets.push_back(sql::SelectItem{item.expr, "", item.location});
        key.expr = ColumnRef("s", columns.back(), item.location);
      } else {
        // The column by its own name: the only one an ORDER BY here can name.
        key.expr = ColumnRef("s", "v", item.location);
      }
      aggregate->agg_order_by.push_back(std::move(key));
    }
    auto from = std::make_shared<sql::TableRef>();
    from->kind = sql::TableRef::Kind::kSubquery;
    from->location = e.location;
    from->subquery = std::move(inner);
    from->alias = "s";
    from->column_aliases = std::move(columns);
    outer->from = {std::move(from)};
  }
  outer->targets.push_back(sql::SelectItem{aggregate, "array", e.location});
  auto subquery = NewParsed(sql::ExprKind::kScalarSubquery, e.location);
  subquery->subquery = std::move(outer);
  // No rows give an empty array, not NULL: outside the subquery, where a correlated one
  // that finds no rows is NULL too.
  auto empty = NewParsed(sql::ExprKind::kConstant, e.location);
  empty->constant.kind = sql::Constant::Kind::kString;
  empty->constant.text = "{}";
  auto coalesce = NewParsed(sql::ExprKind::kCoalesce, e.location);
  coalesce->args = {subquery, empty};
  synthesized_.push_back(coalesce);
  return BindExpr(*coalesce, ctx);
}

Result<ExprPtr> Binder::BindArray(const sql::ParsedExpr& e, ExprContext& ctx,
                                  const TypePtr& target) {
  if (e.subquery != nullptr) return BindArraySubquery(e, ctx);
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
    return BindError(e.location,
                     "cannot subscript type " +
                         (IsUntyped(*x) ? std::string("unknown") : SqlTypeName(*x->type)) +
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
    return BindError(location,
                     "column notation ." + name + " applied to type " +
                         (IsUntyped(*x) ? std::string("unknown") : SqlTypeName(*x->type)) +
                         ", which is not a composite type");
  }
  for (int i = 0; i < x->type->num_fields(); ++i) {
    if (x->type->field(i).name() != name) continue;
    const Field& f = x->type->field(i);
    return expr::Call("struct_field",
                      {x, expr::Literal(Scalar::I32(i)), expr::Literal(Scalar::Null(f.type()))},
                      f.type(), true);
  }
  return BindError(location,
                   "column \"" + name + "\" not found in data type " + SqlTypeName(*x->type));
}

Result<ExprPtr> Binder::BindMapLookup(ExprPtr map, const sql::ParsedExpr& key, ExprContext& ctx,
                                      int location) {
  FLOE_ASSIGN_OR_RAISE(ExprPtr k, BindExprImpl(key, ctx));
  FLOE_ASSIGN_OR_RAISE(k, CoerceTo(k, map->type->field(0).type(), key.location));
  return MakeCall("map_value", {std::move(map), std::move(k)}, location);
}

Result<ExprPtr> Binder::BindArrayFill(std::vector<ExprPtr> args, const std::vector<bool>& unknown,
                                      int location) {
  if (args.size() != 2 && args.size() != 3) {
    return BindError(location, "function array_fill takes two or three arguments");
  }
  if (unknown[0]) {
    return BindError(location,
                     "could not determine polymorphic type because input has type unknown");
  }
  if (IsUntyped(*args[0])) {
    // A literal cast to text keeps its untyped node (UnknownArgs): it is text.
    FLOE_ASSIGN_OR_RAISE(args[0], CoerceTo(args[0], String(), location));
  }
  const TypePtr ints = List(Int32());
  for (size_t i = 1; i < args.size(); ++i) {
    if (IsUntyped(*args[i])) {
      FLOE_ASSIGN_OR_RAISE(args[i], CoerceTo(args[i], ints, location));
    } else if (args[i]->type->id() == TypeId::kList &&
               args[i]->type->field(0).type()->id() == TypeId::kList) {
      return BindError(location,
                       "wrong number of array subscripts: the dimension array must be one "
                       "dimensional");
    } else if (!args[i]->type->Equals(*ints)) {
      if (!expr::CanImplicitCast(*args[i]->type, *ints)) {
        return BindError(location, "function array_fill(" + SqlTypeName(*args[0]->type) + ", " +
                                       SqlTypeName(*args[i]->type) + ") does not exist");
      }
      args[i] = expr::Cast(args[i], ints);
    }
  }
  // The number of dimensions: the elements of ARRAY[...], or of a constant's value.
  const ExprPtr* dims = &args[1];
  while ((*dims)->kind == expr::ExprKind::kCast) dims = &(*dims)->args[0];
  int64_t count = -1;
  if ((*dims)->kind == expr::ExprKind::kCall && (*dims)->name == "make_array") {
    count = static_cast<int64_t>((*dims)->args.size());
  } else if (expr::IsConstant(*args[1])) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr value, expr::EvaluateConstantArray(args[1]));
    if (value->IsNull(0)) {
      return BindError(location, "dimension array or low bound array cannot be null");
    }
    count = value->ListEnd(0) - value->ListBegin(0);
  }
  if (count < 0) {
    return NotSupported(location,
                        "array_fill with dimensions that are neither ARRAY[...] nor a constant is "
                        "not supported (a floe array has its number of dimensions in its type)");
  }
  TypePtr result = args[0]->type;
  for (int64_t i = 0; i < std::max<int64_t>(count, 1); ++i) result = List(result);
  args.insert(args.begin(), expr::Literal(Scalar::Null(result)));
  return MakeCall("array_fill", std::move(args), location);
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
