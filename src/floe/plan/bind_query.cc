// The SELECT pipeline: FROM, WHERE, GROUP BY/aggregates, HAVING, windows, the select
// list, DISTINCT, ORDER BY, LIMIT/OFFSET; set operations and VALUES.
//
// Plan shape of a SELECT:
//   Projection (drops hidden ORDER BY columns)          only with hidden columns
//     Limit
//       Sort
//         Aggregate (DISTINCT: every output column)
//           Projection (select list ++ hidden ORDER BY expressions)
//             Window ... (one node per distinct PARTITION BY / ORDER BY)
//               Filter (HAVING)
//                 [joins of subqueries in the select list / HAVING]
//                   Aggregate (GROUP BY exprs; aggregate calls)
//                     Filter (WHERE)
//                       [semi/anti/mark joins of WHERE subqueries]
//                         FROM (joins)

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "floe/expr/physical_expr.h"
#include "floe/plan/binder_internal.h"

namespace floe::plan::internal {

using expr::ExprPtr;

namespace {

void SplitParsed(const sql::ParsedExpr& e, std::vector<const sql::ParsedExpr*>* out) {
  if (e.kind == sql::ExprKind::kAnd) {
    for (const auto& a : e.args) SplitParsed(*a, out);
  } else {
    out->push_back(&e);
  }
}

bool IsOrdinal(const sql::ParsedExpr& e) {
  return e.kind == sql::ExprKind::kConstant && e.constant.kind == sql::Constant::Kind::kInteger;
}

LogicalPlanPtr DistinctAll(const LogicalPlanPtr& plan) {
  std::vector<ExprPtr> groups;
  std::vector<std::string> names;
  const Schema& s = *plan->schema;
  for (int i = 0; i < s.num_fields(); ++i) {
    groups.push_back(expr::Column(i, s.field(i).name(), s.field(i).type(), s.field(i).nullable()));
    names.push_back(s.field(i).name());
  }
  return MakeAggregate(plan, std::move(groups), std::move(names), {}, {});
}

const char* SetOpName(sql::SelectStmt::SetOp op) {
  switch (op) {
    case sql::SelectStmt::SetOp::kUnion:
      return "UNION";
    case sql::SelectStmt::SetOp::kIntersect:
      return "INTERSECT";
    case sql::SelectStmt::SetOp::kExcept:
      return "EXCEPT";
    default:
      return "";
  }
}

}  // namespace

Status Binder::PushCtes(const sql::SelectStmt& stmt, bool* pushed) {
  *pushed = false;
  if (!stmt.with) return Status::OK();
  CteLevel level;
  level.recursive = stmt.with->recursive;
  for (const sql::CommonTableExpr& cte : stmt.with->ctes) {
    if (!level.ctes.emplace(cte.name, &cte).second) {
      return BindError(cte.location,
                       "WITH query name \"" + cte.name + "\" specified more than once");
    }
  }
  cte_stack_.push_back(std::move(level));
  *pushed = true;
  return Status::OK();
}

Result<LogicalPlanPtr> Binder::BindSelectStmt(const sql::SelectStmt& stmt, const Scope* outer) {
  bool pushed = false;
  FLOE_RETURN_NOT_OK(PushCtes(stmt, &pushed));
  Result<LogicalPlanPtr> result = [&]() -> Result<LogicalPlanPtr> {
    if (stmt.set_op != sql::SelectStmt::SetOp::kNone) {
      FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr plan, BindSetOp(stmt, outer));
      return ApplyOutputOrderLimit(std::move(plan), stmt);
    }
    if (!stmt.values.empty()) {
      FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr plan, BindValues(stmt));
      return ApplyOutputOrderLimit(std::move(plan), stmt);
    }
    SelectOptions opts;
    opts.outer = outer;
    return BindSelect(stmt, opts);
  }();
  if (pushed) cte_stack_.pop_back();
  return result;
}

Result<LogicalPlanPtr> Binder::BindSelectWithCtes(const sql::SelectStmt& stmt,
                                                  const SelectOptions& opts) {
  bool pushed = false;
  FLOE_RETURN_NOT_OK(PushCtes(stmt, &pushed));
  auto result = BindSelect(stmt, opts);
  if (pushed) cte_stack_.pop_back();
  return result;
}

Result<std::optional<int64_t>> Binder::BindLimitValue(const sql::ParsedExprPtr& e,
                                                      std::string_view what) {
  if (!e) return std::optional<int64_t>();
  Scope empty;
  ExprContext ctx;
  ctx.scope = &empty;
  ctx.allow_subqueries = false;
  ctx.clause = what;
  FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(*e, ctx));
  if (IsUntyped(*x)) {
    FLOE_ASSIGN_OR_RAISE(x, CoerceTo(x, Int64(), e->location));
  }
  if (!x->type->is_integer()) {
    return BindError(e->location, "argument of " + std::string(what) +
                                      " must be type bigint, not type " + SqlTypeName(*x->type));
  }
  FLOE_ASSIGN_OR_RAISE(Scalar v, EvaluateConstantAt(x, e->location));
  if (v.is_null()) return std::optional<int64_t>();
  int64_t n = 0;
  if (std::holds_alternative<int32_t>(v.value())) {
    n = v.get<int32_t>();
  } else if (std::holds_alternative<int64_t>(v.value())) {
    n = v.get<int64_t>();
  } else {
    return BindError(e->location, std::string(what) + " must be an integer");
  }
  if (n < 0) return BindError(e->location, std::string(what) + " must not be negative");
  return std::optional<int64_t>(n);
}

Result<LogicalPlanPtr> Binder::ApplyLimit(LogicalPlanPtr plan, const sql::SelectStmt& stmt) {
  FLOE_ASSIGN_OR_RAISE(std::optional<int64_t> limit, BindLimitValue(stmt.limit, "LIMIT"));
  FLOE_ASSIGN_OR_RAISE(std::optional<int64_t> offset, BindLimitValue(stmt.offset, "OFFSET"));
  if (limit || (offset && *offset > 0)) plan = MakeLimit(plan, offset.value_or(0), limit);
  return plan;
}

Result<LogicalPlanPtr> Binder::ApplyOutputOrderLimit(LogicalPlanPtr plan,
                                                     const sql::SelectStmt& stmt) {
  if (!stmt.order_by.empty()) {
    const Schema& s = *plan->schema;
    std::vector<SortKey> keys;
    for (const sql::SortItem& item : stmt.order_by) {
      int position = -1;
      const sql::ParsedExpr& e = *item.expr;
      if (IsOrdinal(e)) {
        if (e.constant.integer < 1 || e.constant.integer > s.num_fields()) {
          return BindError(e.location, "ORDER BY position " + std::to_string(e.constant.integer) +
                                           " is not in select list");
        }
        position = static_cast<int>(e.constant.integer - 1);
      } else if (e.kind == sql::ExprKind::kColumnRef && e.names.size() == 1) {
        position = s.GetFieldIndex(e.names[0]);
      }
      if (position < 0) {
        return BindError(e.location,
                         "invalid UNION/INTERSECT/EXCEPT ORDER BY clause: only result column "
                         "names can be used");
      }
      const Field& f = s.field(position);
      keys.push_back(SortKey{expr::Column(position, f.name(), f.type(), f.nullable()),
                             !item.descending, item.nulls_first.value_or(item.descending)});
    }
    plan = MakeSort(plan, std::move(keys));
  }
  return ApplyLimit(std::move(plan), stmt);
}

Result<LogicalPlanPtr> Binder::BindSetOp(const sql::SelectStmt& stmt, const Scope* outer) {
  std::string op = SetOpName(stmt.set_op);
  std::vector<LogicalPlanPtr> inputs;
  for (size_t k = 0; k < stmt.inputs.size(); ++k) {
    // A recursive query's reference to itself must not be on the right of EXCEPT.
    RecursionContextScope except(this, RecursionContext::kExcept,
                                 stmt.set_op == sql::SelectStmt::SetOp::kExcept && k > 0);
    FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr plan, BindSelectStmt(*stmt.inputs[k], outer));
    inputs.push_back(std::move(plan));
  }
  if (inputs.size() < 2) return Status::Internal("{} with {} inputs", op, inputs.size());
  const int width = inputs[0]->schema->num_fields();
  for (size_t k = 1; k < inputs.size(); ++k) {
    if (inputs[k]->schema->num_fields() != width) {
      const int at = stmt.inputs[k]->location;
      return BindError(at >= 0 ? at : stmt.location,
                       "each " + op + " query must have the same number of columns");
    }
  }
  // An output column that is an untyped literal (SELECT NULL, SELECT 'a') takes the other
  // inputs' type; the others are brought to their common type, left to right.
  std::vector<TypePtr> types;
  for (int i = 0; i < width; ++i) {
    TypePtr type;
    for (const LogicalPlanPtr& input : inputs) {
      if (IsUntypedOutput(input, i)) continue;
      const TypePtr& t = input->schema->field(i).type();
      if (type == nullptr || type->Equals(*t)) {
        type = t;
      } else {
        FLOE_ASSIGN_OR_RAISE(type, CommonTypeAt(type, t, op, stmt.location));
      }
    }
    types.push_back(type != nullptr ? type : inputs[0]->schema->field(i).type());
  }
  for (LogicalPlanPtr& input : inputs) {
    FLOE_ASSIGN_OR_RAISE(input, CastOutputs(input, types, stmt.location));
  }
  if (stmt.set_op == sql::SelectStmt::SetOp::kUnion) {
    LogicalPlanPtr u = MakeUnion(std::move(inputs), true);
    return stmt.set_all ? u : DistinctAll(u);
  }
  if (inputs.size() != 2) return Status::Internal("{} with {} inputs", op, inputs.size());
  LogicalPlanPtr left = inputs[0];
  LogicalPlanPtr right = inputs[1];
  if (stmt.set_all) {
    return NotSupported(stmt.location >= 0 ? stmt.location : stmt.inputs[0]->location,
                        op + " ALL is not supported");
  }
  LogicalPlanPtr distinct = DistinctAll(left);
  std::vector<ExprPtr> lk, rk;
  for (int i = 0; i < width; ++i) {
    const Field& lf = distinct->schema->field(i);
    const Field& rf = right->schema->field(i);
    lk.push_back(expr::Column(i, lf.name(), lf.type(), lf.nullable()));
    rk.push_back(expr::Column(i, rf.name(), rf.type(), rf.nullable()));
  }
  std::vector<bool> nen(static_cast<size_t>(width), true);
  return MakeJoin(
      distinct, right,
      stmt.set_op == sql::SelectStmt::SetOp::kIntersect ? JoinType::kSemi : JoinType::kAnti,
      std::move(lk), std::move(rk), nullptr, std::move(nen));
}

Result<LogicalPlanPtr> Binder::CastOutputs(const LogicalPlanPtr& p,
                                           const std::vector<TypePtr>& types, int location) {
  const int width = p->schema->num_fields();
  bool same = true;
  for (int i = 0; i < width; ++i)
    same = same && p->schema->field(i).type()->Equals(*types[static_cast<size_t>(i)]);
  if (same) return p;
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  bool rebuild = p->kind == LogicalKind::kProjection;
  for (int i = 0; i < width; ++i) {
    const Field& f = p->schema->field(i);
    ExprPtr e = rebuild ? p->exprs[static_cast<size_t>(i)]
                        : expr::Column(i, f.name(), f.type(), f.nullable());
    FLOE_ASSIGN_OR_RAISE(e, CoerceTo(e, types[static_cast<size_t>(i)], location));
    exprs.push_back(std::move(e));
    names.push_back(f.name());
  }
  return MakeProjection(rebuild ? p->children[0] : p, std::move(exprs), std::move(names));
}

Result<ExprPtr> Binder::RewriteAfterAggregate(const ExprPtr& e, const std::vector<ExprPtr>& groups,
                                              const Scope& scope) {
  return Transform(e, [&](const ExprPtr& x) -> Result<ExprPtr> {
    for (size_t i = 0; i < groups.size(); ++i) {
      if (x->Equals(*groups[i])) {
        std::string name = groups[i]->kind == expr::ExprKind::kColumn
                               ? groups[i]->name
                               : "group" + std::to_string(i + 1);
        return expr::Column(static_cast<int>(i), name, groups[i]->type, groups[i]->nullable);
      }
    }
    if (IsPlaceholder(*x)) {
      auto it = placeholder_values_.find(PlaceholderId(*x));
      return it != placeholder_values_.end() ? it->second : x;
    }
    if (IsOuterRef(*x)) return x;
    if (x->kind == expr::ExprKind::kColumn) {
      std::string shown = x->name;
      for (const ScopeColumn& c : scope.columns) {
        if (c.index == x->column) {
          shown = c.table.empty() ? c.name : c.table + "." + c.name;
          break;
        }
      }
      auto loc = column_locations_.find(x.get());
      return BindError(loc == column_locations_.end() ? -1 : loc->second,
                       "column \"" + shown +
                           "\" must appear in the GROUP BY clause or be used in an aggregate "
                           "function");
    }
    return ExprPtr();
  });
}

Result<LogicalPlanPtr> Binder::BindSelect(const sql::SelectStmt& stmt, const SelectOptions& opts) {
  states_.push_back(std::make_unique<SelectState>());
  auto result = BindSelectImpl(stmt, opts);
  states_.pop_back();
  return result;
}

Result<LogicalPlanPtr> Binder::BindSelectImpl(const sql::SelectStmt& stmt,
                                              const SelectOptions& opts) {
  SelectState& st = *state();
  st.named_windows = &stmt.windows;
  const bool plain_distinct = stmt.distinct && stmt.distinct_on.empty();
  if (!stmt.grouping_sets.empty()) {
    return NotSupported(stmt.location, "GROUPING SETS, ROLLUP and CUBE are not supported");
  }
  FLOE_ASSIGN_OR_RAISE(BoundRelation from, BindFrom(stmt.from, opts.outer));
  Scope scope{from.columns, opts.outer};
  LogicalPlanPtr plan = from.plan;
  auto identity = [](const ExprPtr& e) -> Result<ExprPtr> { return e; };

  // WHERE: [NOT] EXISTS / IN (subquery) conjuncts become semi/anti joins; the rest filter.
  if (stmt.where) {
    std::vector<const sql::ParsedExpr*> conjuncts;
    SplitParsed(*stmt.where, &conjuncts);
    std::vector<ExprPtr> filters;
    const size_t correlated_before = opts.correlated_out ? opts.correlated_out->size() : 0;
    for (const sql::ParsedExpr* c : conjuncts) {
      FLOE_ASSIGN_OR_RAISE(bool planned, TryPlanSubqueryConjunct(*c, scope, &plan));
      if (planned) continue;
      int before = st.outer_refs;
      st.binding_where = true;
      ExprContext ctx;
      ctx.scope = &scope;
      ctx.clause = "WHERE";
      auto bound = BindExpr(*c, ctx);
      st.binding_where = false;
      FLOE_ASSIGN_OR_RAISE(ExprPtr x, std::move(bound));
      FLOE_ASSIGN_OR_RAISE(x, RequireBoolean(x, "WHERE", c->location));
      if (st.outer_refs > before) {
        if (opts.correlated_out == nullptr) {
          return NotSupported(c->location, "this correlated subquery is not supported");
        }
        opts.correlated_out->push_back(x);
      } else {
        filters.push_back(x);
      }
    }
    FLOE_RETURN_NOT_OK(PlanPendingSubqueries(&plan, false, identity));
    // Correlated conjuncts may hold subqueries of this query too (u.a = t.a + (SELECT 1)):
    // they are columns of the plan now.
    if (opts.correlated_out != nullptr) {
      for (size_t i = correlated_before; i < opts.correlated_out->size(); ++i) {
        (*opts.correlated_out)[i] = ReplacePlaceholders((*opts.correlated_out)[i]);
      }
    }
    if (!filters.empty()) {
      for (ExprPtr& f : filters) f = ReplacePlaceholders(f);
      plan = MakeFilter(plan, expr::JoinConjunction(std::move(filters)));
    }
  }
  if (opts.filtered_out != nullptr) *opts.filtered_out = plan;

  // The select list.
  std::vector<ExprPtr> select_exprs;
  std::vector<std::string> names;
  for (const sql::SelectItem& item : stmt.targets) {
    const sql::ParsedExpr& e = *item.expr;
    if (e.kind == sql::ExprKind::kStar && !e.args.empty()) {
      // (x).*: the record's fields (bind_row.cc).
      ExprContext ctx;
      ctx.scope = &scope;
      ctx.allow_aggregates = true;
      ctx.allow_windows = true;
      ctx.clause = "SELECT";
      FLOE_ASSIGN_OR_RAISE(auto fields, ExpandStar(e, ctx));
      for (auto& [name, x] : fields) {
        select_exprs.push_back(std::move(x));
        names.push_back(name);
      }
      continue;
    }
    if (e.kind == sql::ExprKind::kStar) {
      if (e.names.empty()) {
        if (scope.columns.empty()) {
          return BindError(e.location, "SELECT * with no tables specified is not valid");
        }
        for (const ScopeColumn& c : scope.columns) {
          if (c.using_hidden || c.system) continue;
          select_exprs.push_back(expr::Column(c.index, c.name, c.type, c.nullable));
          names.push_back(c.name);
        }
      } else {
        const std::string& qualifier = e.names.back();
        bool any = false;
        for (const ScopeColumn& c : scope.columns) {
          if (c.table != qualifier) continue;
          any = true;
          if (c.system) continue;
          select_exprs.push_back(expr::Column(c.index, c.name, c.type, c.nullable));
          names.push_back(c.name);
        }
        if (!any) {
          return BindError(e.location, "missing FROM-clause entry for table \"" + qualifier + "\"");
        }
      }
      continue;
    }
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.allow_aggregates = true;
    ctx.allow_windows = true;
    ctx.allow_srf = true;
    ctx.clause = "SELECT";
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(e, ctx));
    select_exprs.push_back(std::move(x));
    names.push_back(item.alias.empty() ? OutputName(e) : item.alias);
  }
  if (opts.select_exprs_out != nullptr) {
    if (!st.srfs.empty()) {
      return NotSupported(stmt.location,
                          "set-returning functions in the select list of this subquery are not "
                          "supported");
    }
    *opts.select_exprs_out = select_exprs;
  }

  // GROUP BY: expressions, output-column aliases, ordinals.
  std::vector<ExprPtr> groups;
  if (opts.extra_groups != nullptr) groups = *opts.extra_groups;
  size_t extra = groups.size();
  for (const auto& g : stmt.group_by) {
    ExprPtr x;
    if (IsOrdinal(*g)) {
      int64_t k = g->constant.integer;
      if (k < 1 || k > static_cast<int64_t>(select_exprs.size())) {
        return BindError(g->location,
                         "GROUP BY position " + std::to_string(k) + " is not in select list");
      }
      x = select_exprs[static_cast<size_t>(k - 1)];
    } else {
      if (g->kind == sql::ExprKind::kColumnRef && g->names.size() == 1) {
        bool in_scope = false;
        for (const ScopeColumn& c : scope.columns) {
          in_scope = in_scope || (!c.using_hidden && c.name == g->names[0]);
        }
        if (!in_scope) {
          for (size_t i = 0; i < stmt.targets.size() && i < select_exprs.size(); ++i) {
            if (stmt.targets[i].alias == g->names[0]) {
              x = select_exprs[i];
              break;
            }
          }
        }
      }
      if (!x) {
        ExprContext ctx;
        ctx.scope = &scope;
        ctx.clause = "GROUP BY";
        ctx.allow_subqueries = false;
        FLOE_ASSIGN_OR_RAISE(x, BindExpr(*g, ctx));
      }
    }
    if (AnyOf(x, [](const expr::Expr& n) { return IsPlaceholder(n); })) {
      return BindError(g->location, "aggregate functions are not allowed in GROUP BY");
    }
    bool dup = false;
    for (const ExprPtr& y : groups) dup = dup || y->Equals(*x);
    if (!dup) groups.push_back(std::move(x));
  }

  // HAVING.
  ExprPtr having;
  if (stmt.having) {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.allow_aggregates = true;
    ctx.clause = "HAVING";
    FLOE_ASSIGN_OR_RAISE(having, BindExpr(*stmt.having, ctx));
    FLOE_ASSIGN_OR_RAISE(having, RequireBoolean(having, "HAVING", stmt.having->location));
  }

  if (st.reads_work_table && !st.aggregates.empty()) {
    return BindError(stmt.location,
                     "aggregate functions are not allowed in a recursive query's recursive term");
  }

  // ORDER BY: output names and ordinals first, then expressions over the FROM scope.
  struct OrderItem {
    int position = -1;
    ExprPtr expr;
    bool ascending = true;
    bool nulls_first = false;
    int location = -1;
  };
  // An ORDER BY or DISTINCT ON item: an output column (by name or ordinal) or an
  // expression over the FROM scope.
  auto bind_item = [&](const sql::ParsedExpr& e, std::string_view clause, OrderItem* o) -> Status {
    o->location = e.location;
    if (IsOrdinal(e)) {
      int64_t k = e.constant.integer;
      if (k < 1 || k > static_cast<int64_t>(select_exprs.size())) {
        return BindError(e.location, std::string(clause) + " position " + std::to_string(k) +
                                         " is not in select list");
      }
      o->position = static_cast<int>(k - 1);
      return Status::OK();
    }
    if (e.kind == sql::ExprKind::kColumnRef && e.names.size() == 1) {
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] != e.names[0]) continue;
        if (o->position >= 0 &&
            !select_exprs[static_cast<size_t>(o->position)]->Equals(*select_exprs[i])) {
          return BindError(e.location,
                           std::string(clause) + " \"" + e.names[0] + "\" is ambiguous");
        }
        if (o->position < 0) o->position = static_cast<int>(i);
      }
    }
    if (o->position < 0) {
      ExprContext ctx;
      ctx.scope = &scope;
      ctx.allow_aggregates = true;
      ctx.allow_windows = true;
      ctx.clause = clause;
      FLOE_ASSIGN_OR_RAISE(o->expr, BindExpr(e, ctx));
      if (IsUntyped(*o->expr)) {
        FLOE_ASSIGN_OR_RAISE(o->expr, CoerceTo(o->expr, String(), e.location));
      }
    }
    return Status::OK();
  };
  std::vector<OrderItem> order;
  for (const sql::SortItem& item : stmt.order_by) {
    OrderItem o;
    o.ascending = !item.descending;
    o.nulls_first = item.nulls_first.value_or(item.descending);
    FLOE_RETURN_NOT_OK(bind_item(*item.expr, "ORDER BY", &o));
    order.push_back(std::move(o));
  }
  std::vector<OrderItem> distinct_on;
  for (const auto& e : stmt.distinct_on) {
    OrderItem o;
    FLOE_RETURN_NOT_OK(bind_item(*e, "DISTINCT ON", &o));
    distinct_on.push_back(std::move(o));
  }

  // Aggregation.
  bool aggregating = !groups.empty() || !st.aggregates.empty() || having != nullptr;
  std::function<Result<ExprPtr>(const ExprPtr&)> rewrite = identity;
  if (aggregating) {
    FLOE_RETURN_NOT_OK(PlanPendingSubqueries(&plan, true, identity));
    std::vector<AggregateCall> calls;
    std::vector<std::string> agg_names;
    for (const AggregateInfo& info : st.aggregates) {
      AggregateCall c = info.call;
      for (ExprPtr& a : c.args) a = ReplacePlaceholders(a);
      if (c.filter) c.filter = ReplacePlaceholders(c.filter);
      for (SortKey& k : c.order_by) k.expr = ReplacePlaceholders(k.expr);
      calls.push_back(std::move(c));
      agg_names.push_back(info.name);
    }
    std::vector<std::string> group_names;
    for (size_t i = 0; i < groups.size(); ++i) {
      group_names.push_back(groups[i]->kind == expr::ExprKind::kColumn
                                ? groups[i]->name
                                : "group" + std::to_string(i + 1));
    }
    plan =
        MakeAggregate(plan, groups, std::move(group_names), std::move(calls), std::move(agg_names));
    for (size_t k = 0; k < st.aggregates.size(); ++k) {
      int index = static_cast<int>(groups.size() + k);
      const Field& f = plan->schema->field(index);
      placeholder_values_[st.aggregates[k].placeholder] =
          expr::Column(index, f.name(), f.type(), f.nullable());
    }
    rewrite = [this, &groups, &scope](const ExprPtr& e) {
      return RewriteAfterAggregate(e, groups, scope);
    };
  }
  // Subqueries in the select list, HAVING and ORDER BY.
  FLOE_RETURN_NOT_OK(PlanPendingSubqueries(&plan, false, rewrite));
  auto finish = [&](const ExprPtr& e) -> Result<ExprPtr> {
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, rewrite(e));
    return ReplacePlaceholders(x);
  };
  if (having) {
    FLOE_ASSIGN_OR_RAISE(having, finish(having));
    plan = MakeFilter(plan, having);
  }

  // Window functions: one Window node per distinct (PARTITION BY, ORDER BY).
  if (!st.windows.empty()) {
    std::vector<std::string> keys;
    std::vector<std::vector<size_t>> members;
    std::vector<WindowCall> calls;
    for (const WindowInfo& info : st.windows) {
      WindowCall c = info.call;
      for (ExprPtr& a : c.args) {
        FLOE_ASSIGN_OR_RAISE(a, finish(a));
      }
      for (ExprPtr& p : c.partition_by) {
        FLOE_ASSIGN_OR_RAISE(p, finish(p));
      }
      for (SortKey& k : c.order_by) {
        FLOE_ASSIGN_OR_RAISE(k.expr, finish(k.expr));
      }
      std::string key;
      for (const ExprPtr& p : c.partition_by) key += p->ToString() + ",";
      key += "|";
      for (const SortKey& k : c.order_by) key += k.ToString() + ",";
      size_t g = 0;
      while (g < keys.size() && keys[g] != key) ++g;
      if (g == keys.size()) {
        keys.push_back(key);
        members.emplace_back();
      }
      members[g].push_back(calls.size());
      calls.push_back(std::move(c));
    }
    for (const auto& group : members) {
      std::vector<WindowCall> node_calls;
      std::vector<std::string> node_names;
      for (size_t i : group) {
        node_calls.push_back(calls[i]);
        node_names.push_back(st.windows[i].name);
      }
      int base = plan->schema->num_fields();
      plan = MakeWindow(plan, std::move(node_calls), std::move(node_names));
      for (size_t j = 0; j < group.size(); ++j) {
        int index = base + static_cast<int>(j);
        const Field& f = plan->schema->field(index);
        placeholder_values_[st.windows[group[j]].placeholder] =
            expr::Column(index, f.name(), f.type(), f.nullable());
      }
    }
  }

  // Set-returning calls of the select list, side by side after aggregation and windows
  // (PostgreSQL's ProjectSet).
  if (!st.srfs.empty()) {
    std::vector<ExprPtr> lists;
    std::vector<std::string> srf_names;
    for (const SrfInfo& info : st.srfs) {
      FLOE_ASSIGN_OR_RAISE(ExprPtr list, finish(info.call));
      lists.push_back(std::move(list));
      srf_names.push_back(info.name);
    }
    const int base = plan->schema->num_fields();
    const size_t count = lists.size();
    plan = MakeUnnest(plan, std::move(lists), std::vector<bool>(count, false), false,
                      std::move(srf_names));
    for (size_t k = 0; k < count; ++k) {
      const int index = base + static_cast<int>(k);
      const Field& f = plan->schema->field(index);
      placeholder_values_[st.srfs[k].placeholder] =
          expr::Column(index, f.name(), f.type(), f.nullable());
    }
  }

  // The output projection (select list ++ hidden ORDER BY expressions).
  std::vector<ExprPtr> out = select_exprs;
  for (ExprPtr& x : out) {
    FLOE_ASSIGN_OR_RAISE(x, finish(x));
  }
  std::vector<std::string> out_names = names;
  for (size_t i = 0; i < extra; ++i) {
    const Field& f = plan->schema->field(static_cast<int>(i));
    out.push_back(expr::Column(static_cast<int>(i), f.name(), f.type(), f.nullable()));
    out_names.push_back("__key" + std::to_string(i + 1));
  }
  size_t visible = out.size();
  std::vector<OrderItem*> items;
  for (OrderItem& o : order) items.push_back(&o);
  for (OrderItem& o : distinct_on) items.push_back(&o);
  for (OrderItem* item : items) {
    OrderItem& o = *item;
    if (o.position >= 0) continue;
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, finish(o.expr));
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i]->Equals(*x)) {
        o.position = static_cast<int>(i);
        break;
      }
    }
    if (o.position < 0) {
      if (plain_distinct) {
        return BindError(o.location,
                         "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
      }
      o.position = static_cast<int>(out.size());
      out.push_back(x);
      out_names.push_back("__order" + std::to_string(out.size() - visible));
    }
  }
  plan = MakeProjection(plan, out, out_names);
  if (plain_distinct) plan = DistinctAll(plan);
  if (!distinct_on.empty()) {
    // DISTINCT ON keeps the first row (in ORDER BY order) of each group:
    // row_number() OVER (PARTITION BY the DISTINCT ON columns ORDER BY ...) = 1.
    for (size_t i = 0; i < order.size() && i < distinct_on.size(); ++i) {
      bool found = false;
      for (const OrderItem& d : distinct_on) found = found || d.position == order[i].position;
      if (!found) {
        return BindError(order[i].location,
                         "SELECT DISTINCT ON expressions must match initial ORDER BY "
                         "expressions");
      }
    }
    auto resolved = expr::ResolveWindowFunction("row_number", {});
    if (!resolved.ok()) return resolved.status();
    WindowCall call;
    call.function = resolved->name;
    call.window_op = resolved->op;
    call.type = resolved->return_type;
    for (const OrderItem& d : distinct_on) {
      const Field& f = plan->schema->field(d.position);
      call.partition_by.push_back(expr::Column(d.position, f.name(), f.type(), f.nullable()));
    }
    for (const OrderItem& o : order) {
      const Field& f = plan->schema->field(o.position);
      call.order_by.push_back(SortKey{expr::Column(o.position, f.name(), f.type(), f.nullable()),
                                      o.ascending, o.nulls_first});
    }
    call.frame.end.kind = WindowFrameBound::Kind::kCurrentRow;
    int width = plan->schema->num_fields();
    plan = MakeWindow(plan, {call}, {"__row_number"});
    FLOE_ASSIGN_OR_RAISE(ExprPtr one, CoerceTo(expr::Literal(Scalar::I32(1)), call.type, -1));
    plan = MakeFilter(
        plan, expr::Compare("eq", expr::Column(width, "__row_number", call.type, false), one));
    std::vector<ExprPtr> exprs;
    for (int i = 0; i < width; ++i) {
      const Field& f = plan->schema->field(i);
      exprs.push_back(expr::Column(i, f.name(), f.type(), f.nullable()));
    }
    plan = MakeProjection(plan, std::move(exprs), out_names);
  }
  if (!order.empty()) {
    std::vector<SortKey> keys;
    for (const OrderItem& o : order) {
      const Field& f = plan->schema->field(o.position);
      keys.push_back(SortKey{expr::Column(o.position, f.name(), f.type(), f.nullable()),
                             o.ascending, o.nulls_first});
    }
    plan = MakeSort(plan, std::move(keys));
  }
  FLOE_ASSIGN_OR_RAISE(plan, ApplyLimit(plan, stmt));
  if (out.size() > visible) {
    std::vector<ExprPtr> exprs;
    std::vector<std::string> final_names;
    for (size_t i = 0; i < visible; ++i) {
      const Field& f = plan->schema->field(static_cast<int>(i));
      exprs.push_back(expr::Column(static_cast<int>(i), f.name(), f.type(), f.nullable()));
      final_names.push_back(f.name());
    }
    plan = MakeProjection(plan, std::move(exprs), std::move(final_names));
  }
  if (opts.info_out != nullptr) {
    opts.info_out->aggregating = aggregating;
    opts.info_out->windows = !st.windows.empty();
    opts.info_out->outer_ref_outside_where = st.outer_ref_outside_where;
  }
  return plan;
}

}  // namespace floe::plan::internal
