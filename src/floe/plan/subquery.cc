// Subqueries and their decorrelation.
//
//  - Uncorrelated scalar subquery: left join (no keys) with MaxOneRow(subquery); the value
//    is the appended column (NULL when the subquery is empty).
//  - [NOT] EXISTS / IN (subquery) as a WHERE conjunct: semi / anti join. Correlated
//    equality predicates (inner expression = outer expression) become join keys, other
//    correlated predicates the join filter.
//  - NOT IN, and EXISTS / IN anywhere else (select list, under OR): mark join; the
//    expression uses the mark column (NOT IN is not(mark), which gives PostgreSQL's NULL
//    semantics; EXISTS is is_true(mark) when correlated).
//  - Correlated scalar subquery whose body is an aggregate without GROUP BY over
//    correlated equality predicates: the body grouped by the inner sides of those
//    predicates, left joined on them (count(...) alone becomes coalesce(count, 0)).
//  - Anything else correlated is kNotSupported naming the construct.
//
// Known difference: a correlated IN / EXISTS planned as a mark join whose outer
// correlation key is NULL yields a NULL mark instead of false.

#include <string>
#include <utility>
#include <vector>

#include "floe/common/ascii.h"
#include "floe/plan/binder_internal.h"

namespace floe::plan::internal {

using expr::ExprPtr;

namespace {

bool HasOuterRef(const ExprPtr& e) {
  return AnyOf(e, [](const expr::Expr& n) { return IsOuterRef(n); });
}
bool HasInnerColumn(const ExprPtr& e) {
  return AnyOf(
      e, [](const expr::Expr& n) { return n.kind == expr::ExprKind::kColumn && n.column >= 0; });
}

struct CorrelatedJoin {
  std::vector<ExprPtr> left_keys;   // over the outer plan
  std::vector<ExprPtr> right_keys;  // over the subquery plan
  std::vector<ExprPtr> filters;     // over outer ++ subquery
  bool all_equalities = true;
};

// An aggregate call (not a window) that gives a value over no rows (count), where
// decorrelating through an outer join would give NULL instead.
bool IsNeverNullAggregate(const sql::ParsedExpr& e) {
  return e.kind == sql::ExprKind::kFunction && !e.over &&
         (e.agg_star || (!e.names.empty() && expr::AggregateNeverNull(AsciiLower(e.names.back()))));
}

bool ContainsCount(const sql::ParsedExpr& e) {
  if (IsNeverNullAggregate(e)) return true;
  for (const auto& a : e.args) {
    if (a && ContainsCount(*a)) return true;
  }
  for (const auto& [w, t] : e.when_then) {
    if (ContainsCount(*w) || ContainsCount(*t)) return true;
  }
  return e.else_expr && ContainsCount(*e.else_expr);
}

}  // namespace

namespace {

/// Splits correlated conjuncts into keys and a filter. `outer_width` is the outer plan's
/// column count; `to_outer` maps an outer column (by its index in the outer scope) to an
/// expression over the outer plan.
Result<CorrelatedJoin> SplitCorrelated(
    const std::vector<ExprPtr>& conjuncts, int outer_width,
    const std::function<Result<ExprPtr>(const ExprPtr&)>& rewrite) {
  CorrelatedJoin out;
  auto to_outer = [&](const ExprPtr& e) {
    return Transform(e, [&](const ExprPtr& x) -> Result<ExprPtr> {
      if (!IsOuterRef(*x)) return ExprPtr();
      return rewrite(expr::Column(-1 - x->column, x->name, x->type, x->nullable));
    });
  };
  for (const ExprPtr& c : conjuncts) {
    if (c->kind == expr::ExprKind::kCall && c->name == "eq" && c->args.size() == 2) {
      const ExprPtr& a = c->args[0];
      const ExprPtr& b = c->args[1];
      bool a_outer = HasOuterRef(a) && !HasInnerColumn(a);
      bool b_outer = HasOuterRef(b) && !HasInnerColumn(b);
      bool a_inner = !HasOuterRef(a) && HasInnerColumn(a);
      bool b_inner = !HasOuterRef(b) && HasInnerColumn(b);
      if ((a_outer && b_inner) || (b_outer && a_inner)) {
        FLOE_ASSIGN_OR_RAISE(ExprPtr l, to_outer(a_outer ? a : b));
        out.left_keys.push_back(std::move(l));
        out.right_keys.push_back(a_outer ? b : a);
        continue;
      }
    }
    out.all_equalities = false;
    FLOE_ASSIGN_OR_RAISE(
        ExprPtr f, Transform(c, [&](const ExprPtr& x) -> Result<ExprPtr> {
          if (IsOuterRef(*x)) {
            return rewrite(expr::Column(-1 - x->column, x->name, x->type, x->nullable));
          }
          if (x->kind == expr::ExprKind::kColumn && x->column >= 0) {
            return expr::Column(outer_width + x->column, x->name, x->type, x->nullable);
          }
          return ExprPtr();
        }));
    out.filters.push_back(std::move(f));
  }
  return out;
}

}  // namespace

Result<SubqueryBody> Binder::BindSubqueryBody(const sql::SelectStmt& stmt, const Scope* outer,
                                              bool /*need_correlated_forms*/) {
  // A recursive query's reference to itself must not be inside a subquery expression.
  RecursionContextScope sublink(this, RecursionContext::kSubquery);
  SubqueryBody body;
  int before = outer_ref_count_;
  if (stmt.set_op != sql::SelectStmt::SetOp::kNone || !stmt.values.empty()) {
    FLOE_ASSIGN_OR_RAISE(body.plan, BindSelectStmt(stmt, outer));
    if (outer_ref_count_ > before) {
      return NotSupported(stmt.location,
                          "correlated subqueries with set operations are not supported");
    }
    return body;
  }
  SelectInfo info;
  std::vector<ExprPtr> select_exprs;
  SelectOptions opts;
  opts.outer = outer;
  opts.correlated_out = &body.correlated;
  opts.filtered_out = &body.filtered;
  opts.select_exprs_out = &select_exprs;
  opts.info_out = &info;
  FLOE_ASSIGN_OR_RAISE(body.plan, BindSelectWithCtes(stmt, opts));
  if (info.outer_ref_outside_where) {
    return NotSupported(stmt.location,
                        "correlated references outside a subquery's WHERE clause are not "
                        "supported");
  }
  bool limited = stmt.limit != nullptr || stmt.offset != nullptr;
  body.simple = !info.aggregating && !info.windows && !stmt.distinct && !limited;
  body.aggregate_only = info.aggregating && stmt.group_by.empty() && !stmt.having &&
                        !stmt.distinct && !limited && !info.windows;
  if (select_exprs.size() == 1) body.select_expr = select_exprs[0];
  return body;
}

Result<ExprPtr> Binder::BindSubqueryExpr(const sql::ParsedExpr& e, ExprContext& ctx) {
  if (states_.empty()) return NotSupported(e.location, "subqueries are not supported here");
  PendingSubquery p;
  bool negated = false;
  std::string name = "?column?";
  switch (e.kind) {
    case sql::ExprKind::kScalarSubquery:
      p.kind = PendingKind::kScalar;
      name = OutputName(e);
      break;
    case sql::ExprKind::kExists:
      p.kind = PendingKind::kExists;
      negated = e.negated;
      name = "exists";
      break;
    case sql::ExprKind::kInSubquery:
      p.kind = PendingKind::kIn;
      negated = e.negated;
      break;
    case sql::ExprKind::kQuantified:
      if (e.op == "=" && !e.all) {
        p.kind = PendingKind::kIn;
      } else if ((e.op == "<>" || e.op == "!=") && e.all) {
        p.kind = PendingKind::kIn;
        negated = true;
      } else {
        return NotSupported(e.location, std::string("operator ") + e.op +
                                            (e.all ? " ALL" : " ANY") +
                                            " (subquery) is not supported");
      }
      break;
    default:
      return Status::Internal("not a subquery expression");
  }
  if (p.kind == PendingKind::kIn) {
    FLOE_ASSIGN_OR_RAISE(p.value, BindExpr(*e.args[0], ctx));
  }
  FLOE_ASSIGN_OR_RAISE(p.body, BindSubqueryBody(*e.subquery, ctx.scope, true));
  int width = p.body.plan->schema->num_fields();
  if (p.kind == PendingKind::kScalar && width != 1) {
    return BindError(e.location, "subquery must return only one column");
  }
  if (p.kind == PendingKind::kIn && width != 1) {
    return BindError(e.location,
                     width > 1 ? "subquery has too many columns" : "subquery has too few columns");
  }
  p.type = p.kind == PendingKind::kScalar ? p.body.plan->schema->field(0).type() : Boolean();
  p.node = &e;
  p.before_aggregate = ctx.in_aggregate;
  p.scope = ctx.scope;
  p.placeholder = NewPlaceholder();
  ExprPtr ph = PlaceholderExpr(p.placeholder, p.type, name);
  state()->pending.push_back(std::move(p));
  return negated ? expr::Not(ph) : ph;
}

Status Binder::PlanPendingSubqueries(
    LogicalPlanPtr* plan, bool before_aggregate,
    const std::function<Result<ExprPtr>(const ExprPtr&)>& rewrite) {
  std::vector<PendingSubquery> pending = std::move(state()->pending);
  state()->pending.clear();
  std::vector<PendingSubquery> keep;
  for (PendingSubquery& p : pending) {
    if (p.before_aggregate != before_aggregate) {
      keep.push_back(std::move(p));
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(ExprPtr value, PlanOneSubquery(p, plan, rewrite));
    placeholder_values_[p.placeholder] = std::move(value);
  }
  for (PendingSubquery& p : keep) state()->pending.push_back(std::move(p));
  return Status::OK();
}

Result<ExprPtr> Binder::PlanOneSubquery(
    const PendingSubquery& p, LogicalPlanPtr* plan,
    const std::function<Result<ExprPtr>(const ExprPtr&)>& rewrite) {
  const SubqueryBody& body = p.body;
  int width = (*plan)->schema->num_fields();
  int location = p.node->location;
  bool correlated = !body.correlated.empty();
  switch (p.kind) {
    case PendingKind::kScalar: {
      if (!correlated) {
        *plan = MakeJoin(*plan, MakeMaxOneRow(body.plan), JoinType::kLeft, {}, {}, nullptr);
        const Field& f = (*plan)->schema->field(width);
        return expr::Column(width, f.name(), f.type(), true);
      }
      if (!body.aggregate_only) {
        return NotSupported(location,
                            "correlated scalar subqueries are supported only as an aggregate "
                            "without GROUP BY, HAVING, DISTINCT or LIMIT");
      }
      FLOE_ASSIGN_OR_RAISE(CorrelatedJoin cj, SplitCorrelated(body.correlated, width, rewrite));
      if (!cj.all_equalities) {
        return NotSupported(location,
                            "correlated scalar subqueries with a correlated predicate other "
                            "than an equality are not supported");
      }
      const sql::SelectStmt& stmt = *p.node->subquery;
      const sql::ParsedExpr& target = *stmt.targets[0].expr;
      const bool bare_count = IsNeverNullAggregate(target);
      if (!bare_count && ContainsCount(target)) {
        return NotSupported(location,
                            "correlated scalar subqueries with count inside an expression are "
                            "not supported");
      }
      // Bind the body again, grouped by the inner sides of the correlated equalities.
      std::vector<ExprPtr> dummy;
      SelectOptions opts;
      opts.outer = p.scope;
      opts.correlated_out = &dummy;
      opts.extra_groups = &cj.right_keys;
      FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr right, BindSelectWithCtes(stmt, opts));
      std::vector<ExprPtr> right_keys;
      for (size_t i = 0; i < cj.right_keys.size(); ++i) {
        const Field& f = right->schema->field(static_cast<int>(i) + 1);
        right_keys.push_back(
            expr::Column(static_cast<int>(i) + 1, f.name(), f.type(), f.nullable()));
      }
      *plan = MakeJoin(*plan, right, JoinType::kLeft, cj.left_keys, std::move(right_keys), nullptr);
      const Field& f = (*plan)->schema->field(width);
      ExprPtr value = expr::Column(width, f.name(), f.type(), true);
      if (bare_count) {
        return expr::Call("coalesce",
                          {value, expr::Literal(Scalar::Make(f.type(), static_cast<int64_t>(0)))},
                          f.type(), false);
      }
      return value;
    }
    case PendingKind::kExists: {
      if (!correlated) {
        *plan = MakeJoin(*plan, body.plan, JoinType::kMark, {}, {}, nullptr);
        return expr::Column(width, "mark", Boolean(), false);
      }
      if (!body.simple) {
        return NotSupported(location,
                            "correlated EXISTS subqueries with aggregation, DISTINCT or LIMIT "
                            "are not supported");
      }
      FLOE_ASSIGN_OR_RAISE(CorrelatedJoin cj, SplitCorrelated(body.correlated, width, rewrite));
      *plan = MakeJoin(*plan, body.filtered, JoinType::kMark, cj.left_keys, cj.right_keys,
                       expr::JoinConjunction(cj.filters));
      return expr::Call("is_true", {expr::Column(width, "mark", Boolean(), true)}, Boolean(),
                        false);
    }
    case PendingKind::kIn: {
      FLOE_ASSIGN_OR_RAISE(ExprPtr value, rewrite(p.value));
      value = ReplacePlaceholders(value);
      // Subqueries are joined before window functions are computed: an operand that holds
      // one has no value yet.
      if (AnyOf(value, [](const expr::Expr& n) { return IsPlaceholder(n); })) {
        return NotSupported(location,
                            "a window function in the operand of IN (subquery) is not supported");
      }
      FLOE_ASSIGN_OR_RAISE(auto parts, BuildInJoin(body, value, width, rewrite, location));
      if (correlated) return PlanCorrelatedIn(parts, plan, location);
      *plan = MakeJoin(*plan, parts.right, JoinType::kMark, parts.left_keys, parts.right_keys,
                       parts.filter);
      return expr::Column(width, "mark", Boolean(), true);
    }
  }
  return Status::Internal("unknown subquery kind");
}

// x IN (SELECT y FROM s WHERE s.c = outer.c): true when a row of the outer row's group (the
// rows whose correlation keys match) has y = x; otherwise NULL when the group is not empty
// and x or one of the group's y is NULL; otherwise false. A NULL y elsewhere in s does not
// count (one mark join over all of s's rows would make every row's result NULL), so the
// match and the group's facts are found by two joins: a mark join on (x, keys) against the
// rows whose keys are not NULL, and a left join on the keys against s grouped by them, with
// its row count and whether a y is NULL.
Result<ExprPtr> Binder::PlanCorrelatedIn(const InJoinParts& parts, LogicalPlanPtr* plan,
                                         int location) {
  const ExprPtr& value = parts.left_keys[0];
  const ExprPtr& in_value = parts.right_keys[0];
  // Groups are known only for correlations that are all equalities.
  if (parts.filter != nullptr && (value->nullable || in_value->nullable)) {
    return NotSupported(location,
                        "correlated IN subqueries over values that may be NULL, correlated by "
                        "more than equalities, are not supported");
  }
  const int width = (*plan)->schema->num_fields();
  // 1. Whether a row of the group matches x: a row whose keys hold a NULL matches nothing.
  std::vector<ExprPtr> not_null;
  for (const ExprPtr& k : parts.right_keys) {
    not_null.push_back(expr::Call("is_not_null", {k}, Boolean(), false));
  }
  LogicalPlanPtr candidates = MakeFilter(parts.right, expr::JoinConjunction(not_null));
  *plan =
      MakeJoin(*plan, candidates, JoinType::kMark, parts.left_keys, parts.right_keys, parts.filter);
  ExprPtr matched =
      expr::Call("is_true", {expr::Column(width, "mark", Boolean(), true)}, Boolean(), false);
  // Without NULL values the match decides.
  if (parts.filter != nullptr) return matched;
  // 2. The group's row count and whether it holds a NULL y.
  std::vector<ExprPtr> group_keys(parts.right_keys.begin() + 1, parts.right_keys.end());
  std::vector<std::string> group_names;
  for (size_t i = 0; i < group_keys.size(); ++i) group_names.push_back("key" + std::to_string(i));
  AggregateCall rows;
  FLOE_ASSIGN_OR_RAISE(rows.function, expr::ResolveAggregate("count", {}, false));
  AggregateCall any_null;
  FLOE_ASSIGN_OR_RAISE(any_null.function, expr::ResolveAggregate("bool_or", {Boolean()}, false));
  any_null.args = {expr::Call("is_null", {in_value}, Boolean(), false)};
  LogicalPlanPtr groups =
      MakeAggregate(parts.right, group_keys, std::move(group_names),
                    {std::move(rows), std::move(any_null)}, {"rows", "has_null"});
  std::vector<ExprPtr> left_keys(parts.left_keys.begin() + 1, parts.left_keys.end());
  std::vector<ExprPtr> right_keys;
  for (size_t i = 0; i < group_keys.size(); ++i) {
    const Field& f = groups->schema->field(static_cast<int>(i));
    right_keys.push_back(expr::Column(static_cast<int>(i), f.name(), f.type(), f.nullable()));
  }
  const int at = (*plan)->schema->num_fields();
  *plan = MakeJoin(*plan, groups, JoinType::kLeft, std::move(left_keys), std::move(right_keys),
                   nullptr);
  const int count_col = at + static_cast<int>(group_keys.size());
  ExprPtr group_rows = expr::Column(count_col, "rows", Int64(), true);
  ExprPtr has_null = expr::Column(count_col + 1, "has_null", Boolean(), true);
  ExprPtr unknown = expr::And(
      {expr::Call("is_not_null", {group_rows}, Boolean(), false),
       expr::Or({expr::IsNull(value), expr::Call("is_true", {has_null}, Boolean(), false)})});
  return expr::Case(
      {matched, expr::Literal(Scalar::Bool(true)), unknown, expr::Literal(Scalar::Null(Boolean()))},
      expr::Literal(Scalar::Bool(false)), Boolean());
}

Result<Binder::InJoinParts> Binder::BuildInJoin(
    const SubqueryBody& body, const ExprPtr& value, int outer_width,
    const std::function<Result<ExprPtr>(const ExprPtr&)>& rewrite, int location) {
  InJoinParts parts;
  if (body.correlated.empty()) {
    parts.right = body.plan;
    const Field& f = body.plan->schema->field(0);
    FLOE_ASSIGN_OR_RAISE(
        auto u, Unify(value, expr::Column(0, f.name(), f.type(), f.nullable()), "IN", location));
    parts.left_keys.push_back(u.first);
    parts.right_keys.push_back(u.second);
    return parts;
  }
  if (!body.simple || !body.select_expr ||
      AnyOf(body.select_expr, [](const expr::Expr& n) { return IsPlaceholder(n); })) {
    return NotSupported(location,
                        "correlated IN subqueries with aggregation, DISTINCT, LIMIT or "
                        "subqueries in the select list are not supported");
  }
  const Schema& fs = *body.filtered->schema;
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (int i = 0; i < fs.num_fields(); ++i) {
    exprs.push_back(
        expr::Column(i, fs.field(i).name(), fs.field(i).type(), fs.field(i).nullable()));
    names.push_back(fs.field(i).name());
  }
  int value_index = fs.num_fields();
  exprs.push_back(body.select_expr);
  names.push_back("__in");
  parts.right = MakeProjection(body.filtered, std::move(exprs), std::move(names));
  FLOE_ASSIGN_OR_RAISE(auto u, Unify(value,
                                     expr::Column(value_index, "__in", body.select_expr->type,
                                                  body.select_expr->nullable),
                                     "IN", location));
  FLOE_ASSIGN_OR_RAISE(CorrelatedJoin cj, SplitCorrelated(body.correlated, outer_width, rewrite));
  parts.left_keys.push_back(u.first);
  parts.right_keys.push_back(u.second);
  for (size_t i = 0; i < cj.left_keys.size(); ++i) {
    parts.left_keys.push_back(cj.left_keys[i]);
    parts.right_keys.push_back(cj.right_keys[i]);
  }
  parts.filter = expr::JoinConjunction(cj.filters);
  return parts;
}

Result<bool> Binder::TryPlanSubqueryConjunct(const sql::ParsedExpr& conjunct, const Scope& scope,
                                             LogicalPlanPtr* plan) {
  const sql::ParsedExpr* e = &conjunct;
  bool negated = false;
  if (e->kind == sql::ExprKind::kNot && e->args[0]->kind == sql::ExprKind::kExists) {
    negated = true;
    e = e->args[0].get();
  }
  bool is_exists = e->kind == sql::ExprKind::kExists;
  // x = ANY (array) has no subquery: it is an ordinary predicate.
  bool is_in =
      (e->kind == sql::ExprKind::kInSubquery && !e->negated) ||
      (e->kind == sql::ExprKind::kQuantified && e->subquery != nullptr && e->op == "=" && !e->all);
  if ((!is_exists && !is_in) || states_.empty()) return false;
  if (is_exists && e->negated) negated = !negated;
  auto identity = [](const ExprPtr& x) -> Result<ExprPtr> { return x; };
  int width = (*plan)->schema->num_fields();

  ExprPtr value;
  if (is_in) {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.clause = "WHERE";
    ctx.allow_subqueries = false;
    int before = state()->outer_refs;
    state()->binding_where = true;
    auto bound = BindExpr(*e->args[0], ctx);
    state()->binding_where = false;
    FLOE_ASSIGN_OR_RAISE(value, std::move(bound));
    if (state()->outer_refs > before) {
      return NotSupported(e->location,
                          "IN with a correlated left operand inside a subquery is not supported");
    }
  }
  FLOE_ASSIGN_OR_RAISE(SubqueryBody body, BindSubqueryBody(*e->subquery, &scope, true));
  if (is_exists) {
    if (body.correlated.empty()) {
      *plan =
          MakeJoin(*plan, body.plan, negated ? JoinType::kAnti : JoinType::kSemi, {}, {}, nullptr);
      return true;
    }
    if (!body.simple) {
      return NotSupported(e->location,
                          "correlated EXISTS subqueries with aggregation, DISTINCT or LIMIT are "
                          "not supported");
    }
    FLOE_ASSIGN_OR_RAISE(CorrelatedJoin cj, SplitCorrelated(body.correlated, width, identity));
    *plan = MakeJoin(*plan, body.filtered, negated ? JoinType::kAnti : JoinType::kSemi,
                     cj.left_keys, cj.right_keys, expr::JoinConjunction(cj.filters));
    return true;
  }
  int columns = body.plan->schema->num_fields();
  if (columns != 1) {
    return BindError(e->location, columns > 1 ? "subquery has too many columns"
                                              : "subquery has too few columns");
  }
  FLOE_ASSIGN_OR_RAISE(auto parts, BuildInJoin(body, value, width, identity, e->location));
  *plan = MakeJoin(*plan, parts.right, JoinType::kSemi, parts.left_keys, parts.right_keys,
                   parts.filter);
  return true;
}

}  // namespace floe::plan::internal
