// Binder entry points, error placement, and the FROM clause: tables (resolved once per
// statement), table functions, subqueries, CTE references, VALUES, and joins with ON,
// USING and NATURAL.

#include "floe/plan/binder.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "floe/common/ascii.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/physical_expr.h"
#include "floe/plan/binder_internal.h"
#include "floe/sql/parser.h"

namespace floe::plan {

namespace internal {

std::string Binder::Where(int location) const {
  std::string where = sql::DescribeLocation(text_, location);
  return where.empty() ? "" : " (" + where + ")";
}

Status Binder::BindError(int location, std::string message) const {
  return Status::Bind(message + Where(location));
}

Status Binder::NotSupported(int location, std::string message) const {
  return Status::NotSupported(message + Where(location));
}

namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ".";
    out += names[i];
  }
  return out;
}

/// Marks the source's hidden columns (the last ones of a scan of all its columns) as system
/// columns.
void MarkSystemColumns(const TableSource& source, std::vector<ScopeColumn>* columns) {
  const size_t hidden = static_cast<size_t>(source.hidden_columns());
  for (size_t i = columns->size() - hidden; i < columns->size(); ++i) (*columns)[i].system = true;
}

/// Applies `AS alias(a, b, ...)` to a relation's columns.
Status ApplyAliases(const Binder& binder, const sql::TableRef& ref, std::string default_name,
                    std::vector<ScopeColumn>* columns) {
  std::string qualifier = ref.alias.empty() ? std::move(default_name) : ref.alias;
  const size_t available = static_cast<size_t>(std::count_if(
      columns->begin(), columns->end(), [](const ScopeColumn& c) { return !c.system; }));
  if (ref.column_aliases.size() > available) {
    return binder.BindError(
        ref.location, "table \"" + qualifier + "\" has " + std::to_string(available) +
                          " columns available but " + std::to_string(ref.column_aliases.size()) +
                          " columns specified");
  }
  for (size_t i = 0; i < columns->size(); ++i) {
    (*columns)[i].table = qualifier;
    if (i < ref.column_aliases.size()) (*columns)[i].name = ref.column_aliases[i];
  }
  return Status::OK();
}

std::vector<ScopeColumn> ColumnsOf(const Schema& schema) {
  std::vector<ScopeColumn> columns;
  for (int i = 0; i < schema.num_fields(); ++i) {
    const Field& f = schema.field(i);
    columns.push_back(ScopeColumn{"", f.name(), f.type(), f.nullable(), i, false});
  }
  return columns;
}

/// The one visible column named `name` among `columns`, or -1 (-2 when ambiguous).
int FindUnqualified(const std::vector<ScopeColumn>& columns, const std::string& name) {
  int found = -1;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].using_hidden || columns[i].system || columns[i].name != name) continue;
    if (found >= 0) return -2;
    found = static_cast<int>(i);
  }
  return found;
}

}  // namespace

bool Binder::IsUnnestRef(const sql::TableRef& ref) const {
  if (ref.kind != sql::TableRef::Kind::kFunction || ref.function->names.empty()) return false;
  const std::string name = AsciiLower(ref.function->names.back());
  // Functions returning records, and any call with a column definition list (which
  // BindFromFunction checks), plan as one too.
  if (!ref.column_definitions.empty() || expr::IsRecordReturningFunction(name)) return true;
  if (!expr::IsSetReturningFunction(name)) return false;
  // A table function of the same name (generate_series) serves constant arguments: it
  // streams its rows in parallel partitions instead of one list.
  if (name == "generate_series" && !ref.ordinality) {
    for (const sql::ParsedExprPtr& a : ref.function->args) {
      if (!BindConstantExpr(*a, text_, options_).ok()) return true;
    }
    return false;
  }
  return true;
}

Result<BoundRelation> Binder::BindFunctionUnnest(const sql::TableRef& ref,
                                                 const BoundRelation* left, const Scope* outer) {
  const sql::ParsedExpr& call = *ref.function;
  const std::string name = AsciiLower(call.names.back());
  LogicalPlanPtr input =
      left != nullptr ? left->plan : MakeValues(std::make_shared<Schema>(), {{}});
  Scope scope{left != nullptr ? left->columns : std::vector<ScopeColumn>{}, outer};
  ExprContext ctx;
  ctx.scope = &scope;
  ctx.allow_subqueries = false;
  ctx.srf_as_list = true;
  ctx.clause = "functions in FROM";
  FLOE_ASSIGN_OR_RAISE(expr::ExprPtr list, BindFromFunction(ref, ctx));
  if (list->type->id() != TypeId::kList) {
    return BindError(ref.location, "function " + name + " in FROM is not set-returning");
  }
  const TypePtr& element = list->type->field(0).type();
  const bool expand = element->id() == TypeId::kStruct;
  std::vector<std::string> names;
  if (expand) {
    for (const Field& f : element->fields()) names.push_back(f.name());
  } else {
    // A function of a scalar result is named by the alias when no column list is given,
    // as in PostgreSQL: FROM unnest(a) u has a column u.
    names.push_back(!ref.alias.empty() && ref.column_aliases.empty() ? ref.alias : name);
  }
  if (ref.ordinality) names.push_back("ordinality");
  const int base = input->schema->num_fields();
  LogicalPlanPtr plan = MakeUnnest(input, {list}, {expand}, ref.ordinality, names);
  std::vector<ScopeColumn> added;
  for (int i = base; i < plan->schema->num_fields(); ++i) {
    const Field& f = plan->schema->field(i);
    added.push_back(ScopeColumn{"", f.name(), f.type(), f.nullable(), i, false});
  }
  FLOE_RETURN_NOT_OK(ApplyAliases(*this, ref, name, &added));
  BoundRelation rel{plan, left != nullptr ? left->columns : std::vector<ScopeColumn>{}};
  for (ScopeColumn& c : added) rel.columns.push_back(std::move(c));
  return rel;
}

Result<TableSourcePtr> Binder::ResolveTableFunction(const std::string& name,
                                                    const std::vector<TableFunctionArg>& args,
                                                    int location) {
  auto same_args = [&](const std::vector<TableFunctionArg>& other) {
    if (other.size() != args.size()) return false;
    for (size_t i = 0; i < args.size(); ++i) {
      if (other[i].name != args[i].name ||
          !expr::Literal(other[i].value)->Equals(*expr::Literal(args[i].value))) {
        return false;
      }
    }
    return true;
  };
  for (const ResolvedTableFunction& cached : table_function_cache_) {
    if (cached.name == name && same_args(cached.args)) return cached.source;
  }
  auto resolved = resolver_->ResolveTableFunction(name, args);
  if (!resolved.ok()) {
    Status st = resolved.status();
    return Status(st.code(), st.message() + Where(location));
  }
  table_function_cache_.push_back(ResolvedTableFunction{name, args, *resolved});
  return *resolved;
}

Result<BoundRelation> Binder::BindTableRef(const sql::TableRef& ref, const Scope* outer) {
  if (ref.lateral && ref.kind != sql::TableRef::Kind::kFunction) {
    return NotSupported(ref.location, "LATERAL subqueries are not supported");
  }
  if (IsUnnestRef(ref)) return BindFunctionUnnest(ref, nullptr, outer);
  switch (ref.kind) {
    case sql::TableRef::Kind::kTable: {
      // A CTE of an enclosing WITH, innermost first.
      if (ref.names.size() == 1) {
        for (size_t level = cte_stack_.size(); level-- > 0;) {
          auto found = cte_stack_[level].ctes.find(ref.names[0]);
          if (found == cte_stack_[level].ctes.end()) continue;
          const sql::CommonTableExpr* cte = found->second;
          FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr cte_plan, BindCteReference(ref, level, *cte));
          BoundRelation rel{cte_plan, ColumnsOf(*cte_plan->schema)};
          if (cte->column_names.size() > rel.columns.size()) {
            return BindError(cte->location,
                             "WITH query \"" + cte->name + "\" has " +
                                 std::to_string(rel.columns.size()) + " columns available but " +
                                 std::to_string(cte->column_names.size()) + " columns specified");
          }
          for (size_t i = 0; i < cte->column_names.size(); ++i) {
            rel.columns[i].name = cte->column_names[i];
          }
          FLOE_RETURN_NOT_OK(ApplyAliases(*this, ref, cte->name, &rel.columns));
          return rel;
        }
      }
      std::string key = JoinNames(ref.names);
      TableSourcePtr source;
      auto cached = table_cache_.find(key);
      if (cached != table_cache_.end()) {
        source = cached->second;
      } else {
        auto resolved = resolver_->ResolveTable(ref.names);
        if (!resolved.ok()) {
          Status st = resolved.status();
          return Status(st.code(), st.message() + Where(ref.location));
        }
        source = *resolved;
        table_cache_.emplace(key, source);
      }
      std::vector<int> projection;
      for (int i = 0; i < source->schema()->num_fields(); ++i) projection.push_back(i);
      LogicalPlanPtr plan = MakeScan(source, std::move(projection));
      BoundRelation rel{plan, ColumnsOf(*plan->schema)};
      MarkSystemColumns(*source, &rel.columns);
      FLOE_RETURN_NOT_OK(ApplyAliases(*this, ref, ref.names.back(), &rel.columns));
      return rel;
    }
    case sql::TableRef::Kind::kFunction: {
      const sql::ParsedExpr& call = *ref.function;
      std::string name = call.names.empty() ? "" : call.names.back();
      std::vector<TableFunctionArg> args;
      for (size_t i = 0; i < call.args.size(); ++i) {
        FLOE_ASSIGN_OR_RAISE(expr::ExprPtr bound, BindConstantExpr(*call.args[i], text_, options_));
        FLOE_ASSIGN_OR_RAISE(Scalar value, EvaluateConstantAt(bound, call.args[i]->location));
        std::string arg_name = i < call.arg_names.size() ? call.arg_names[i] : "";
        args.push_back(TableFunctionArg{std::move(arg_name), std::move(value)});
      }
      FLOE_ASSIGN_OR_RAISE(TableSourcePtr source, ResolveTableFunction(name, args, ref.location));
      std::vector<int> projection;
      for (int i = 0; i < source->schema()->num_fields(); ++i) projection.push_back(i);
      LogicalPlanPtr plan = MakeScan(source, std::move(projection));
      BoundRelation rel{plan, ColumnsOf(*plan->schema)};
      MarkSystemColumns(*source, &rel.columns);
      FLOE_RETURN_NOT_OK(ApplyAliases(*this, ref, name, &rel.columns));
      // A function of a scalar result (its one column carries the function's own name, as
      // generate_series's does) is named by the alias when no column list is given, as in
      // PostgreSQL: FROM generate_series(1, 3) x has a column x.
      if (!ref.alias.empty() && ref.column_aliases.empty() && rel.columns.size() == 1 &&
          rel.columns[0].name == name) {
        rel.columns[0].name = ref.alias;
      }
      return rel;
    }
    case sql::TableRef::Kind::kSubquery: {
      FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr plan, BindSelectStmt(*ref.subquery, nullptr));
      BoundRelation rel{plan, ColumnsOf(*plan->schema)};
      FLOE_RETURN_NOT_OK(ApplyAliases(*this, ref, "", &rel.columns));
      return rel;
    }
    case sql::TableRef::Kind::kJoin:
      break;
  }

  // Joins. A set-returning call on the right of an inner or cross join may use the left
  // side's columns (functions in FROM are implicitly LATERAL).
  if (IsUnnestRef(*ref.right) &&
      (ref.join_kind == sql::JoinKind::kInner || ref.join_kind == sql::JoinKind::kCross) &&
      ref.using_columns.empty() && !ref.natural) {
    FLOE_ASSIGN_OR_RAISE(BoundRelation left, BindTableRef(*ref.left, outer));
    FLOE_ASSIGN_OR_RAISE(BoundRelation rel, BindFunctionUnnest(*ref.right, &left, outer));
    if (ref.on) {
      Scope scope{rel.columns, nullptr};
      ExprContext ctx;
      ctx.scope = &scope;
      ctx.allow_subqueries = false;
      ctx.clause = "JOIN conditions";
      FLOE_ASSIGN_OR_RAISE(expr::ExprPtr on, BindExpr(*ref.on, ctx));
      FLOE_ASSIGN_OR_RAISE(on, CoerceTo(on, Boolean(), ref.on->location));
      rel.plan = MakeFilter(rel.plan, on);
    }
    if (!ref.alias.empty()) {
      for (ScopeColumn& c : rel.columns) c.table = ref.alias;
    }
    return rel;
  }
  if (IsUnnestRef(*ref.right)) {
    return NotSupported(ref.right->location,
                        "a set-returning function on the right of this join is not supported");
  }
  // A recursive query's reference to itself must not be on the side an outer join fills with
  // NULLs.
  const bool left_outer =
      ref.join_kind == sql::JoinKind::kRight || ref.join_kind == sql::JoinKind::kFull;
  const bool right_outer =
      ref.join_kind == sql::JoinKind::kLeft || ref.join_kind == sql::JoinKind::kFull;
  Result<BoundRelation> bound_left = [&] {
    RecursionContextScope scope(this, RecursionContext::kOuterJoin, left_outer);
    return BindTableRef(*ref.left, outer);
  }();
  FLOE_ASSIGN_OR_RAISE(BoundRelation left, std::move(bound_left));
  Result<BoundRelation> bound_right = [&] {
    RecursionContextScope scope(this, RecursionContext::kOuterJoin, right_outer);
    return BindTableRef(*ref.right, outer);
  }();
  FLOE_ASSIGN_OR_RAISE(BoundRelation right, std::move(bound_right));
  JoinType type = JoinType::kInner;
  switch (ref.join_kind) {
    case sql::JoinKind::kInner:
    case sql::JoinKind::kCross:
      type = JoinType::kInner;
      break;
    case sql::JoinKind::kLeft:
      type = JoinType::kLeft;
      break;
    case sql::JoinKind::kRight:
      type = JoinType::kRight;
      break;
    case sql::JoinKind::kFull:
      type = JoinType::kFull;
      break;
  }
  int left_width = left.plan->schema->num_fields();
  std::vector<ScopeColumn> combined = left.columns;
  for (ScopeColumn c : right.columns) {
    c.index += left_width;
    combined.push_back(std::move(c));
  }
  bool left_nullable = type == JoinType::kRight || type == JoinType::kFull;
  bool right_nullable = type == JoinType::kLeft || type == JoinType::kFull;
  for (size_t i = 0; i < combined.size(); ++i) {
    bool is_left = i < left.columns.size();
    if ((is_left && left_nullable) || (!is_left && right_nullable)) combined[i].nullable = true;
  }

  std::vector<std::string> using_columns = ref.using_columns;
  if (ref.natural) {
    for (const ScopeColumn& c : left.columns) {
      if (c.using_hidden || c.system) continue;
      if (FindUnqualified(right.columns, c.name) >= 0 &&
          std::find(using_columns.begin(), using_columns.end(), c.name) == using_columns.end()) {
        using_columns.push_back(c.name);
      }
    }
  }

  std::vector<expr::ExprPtr> left_keys;
  std::vector<expr::ExprPtr> right_keys;
  expr::ExprPtr filter;
  if (!using_columns.empty() || ref.natural) {
    std::vector<std::pair<int, int>> pairs;  // (left position, right position) in columns
    for (const std::string& name : using_columns) {
      int l = FindUnqualified(left.columns, name);
      int r = FindUnqualified(right.columns, name);
      if (l == -2 || r == -2) {
        return BindError(ref.location, "common column name \"" + name +
                                           "\" appears more than once in " +
                                           (l == -2 ? "left" : "right") + " table");
      }
      if (l < 0 || r < 0) {
        return BindError(ref.location, "column \"" + name +
                                           "\" specified in USING clause "
                                           "does not exist in " +
                                           (l < 0 ? "left" : "right") + " table");
      }
      pairs.emplace_back(l, r);
      const ScopeColumn& lc = left.columns[static_cast<size_t>(l)];
      const ScopeColumn& rc = right.columns[static_cast<size_t>(r)];
      expr::ExprPtr lk = expr::Column(lc.index, lc.name, lc.type, lc.nullable);
      expr::ExprPtr rk = expr::Column(rc.index, rc.name, rc.type, rc.nullable);
      FLOE_ASSIGN_OR_RAISE(auto unified, Unify(lk, rk, "JOIN/USING", ref.location));
      left_keys.push_back(unified.first);
      right_keys.push_back(unified.second);
    }
    LogicalPlanPtr join = MakeJoin(left.plan, right.plan, type, left_keys, right_keys, nullptr);
    // Merged columns first, then the rest of the left and right columns.
    std::vector<expr::ExprPtr> exprs;
    std::vector<std::string> names;
    std::vector<ScopeColumn> columns;
    std::set<int> merged_left, merged_right;
    for (size_t k = 0; k < pairs.size(); ++k) {
      const ScopeColumn& lc = combined[static_cast<size_t>(pairs[k].first)];
      const ScopeColumn& rc = combined[left.columns.size() + static_cast<size_t>(pairs[k].second)];
      merged_left.insert(pairs[k].first);
      merged_right.insert(pairs[k].second);
      expr::ExprPtr lx = expr::Column(lc.index, lc.name, lc.type, lc.nullable);
      expr::ExprPtr rx = expr::Column(rc.index, rc.name, rc.type, rc.nullable);
      FLOE_ASSIGN_OR_RAISE(auto unified, Unify(lx, rx, "JOIN/USING", ref.location));
      expr::ExprPtr merged;
      if (type == JoinType::kFull) {
        merged = expr::Call("coalesce", {unified.first, unified.second}, unified.first->type,
                            unified.first->nullable && unified.second->nullable);
      } else {
        merged = type == JoinType::kRight ? unified.second : unified.first;
      }
      columns.push_back(ScopeColumn{"", lc.name, merged->type, merged->nullable,
                                    static_cast<int>(exprs.size()), false});
      exprs.push_back(merged);
      names.push_back(lc.name);
    }
    for (size_t i = 0; i < combined.size(); ++i) {
      ScopeColumn c = combined[i];
      bool is_left = i < left.columns.size();
      int pos = static_cast<int>(is_left ? i : i - left.columns.size());
      if (is_left ? merged_left.count(pos) > 0 : merged_right.count(pos) > 0) {
        c.using_hidden = true;
      }
      exprs.push_back(expr::Column(c.index, c.name, c.type, c.nullable));
      names.push_back(c.name);
      c.index = static_cast<int>(exprs.size()) - 1;
      columns.push_back(std::move(c));
    }
    BoundRelation rel{MakeProjection(join, std::move(exprs), std::move(names)), std::move(columns)};
    if (!ref.alias.empty()) {
      for (ScopeColumn& c : rel.columns) c.table = ref.alias;
    }
    return rel;
  }

  if (ref.on) {
    Scope scope{combined, nullptr};
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.allow_subqueries = false;
    ctx.clause = "JOIN conditions";
    FLOE_ASSIGN_OR_RAISE(expr::ExprPtr on, BindExpr(*ref.on, ctx));
    FLOE_ASSIGN_OR_RAISE(on, CoerceTo(on, Boolean(), ref.on->location));
    if (on->type->id() != TypeId::kBoolean) {
      return BindError(ref.on->location, "argument of JOIN/ON must be type boolean, not type " +
                                             SqlTypeName(*on->type));
    }
    std::vector<expr::ExprPtr> rest;
    for (const expr::ExprPtr& c : expr::SplitConjunction(on)) {
      if (c->kind == expr::ExprKind::kCall && c->name == "eq" && c->args.size() == 2) {
        auto side = [&](const expr::ExprPtr& e) {
          std::vector<int> cols = expr::ReferencedColumns(*e);
          if (cols.empty()) return 0;
          if (cols.back() < left_width) return 1;
          if (cols.front() >= left_width) return 2;
          return 0;
        };
        int a = side(c->args[0]);
        int b = side(c->args[1]);
        if (a != 0 && b != 0 && a != b) {
          expr::ExprPtr l = a == 1 ? c->args[0] : c->args[1];
          expr::ExprPtr r = a == 1 ? c->args[1] : c->args[0];
          std::vector<int> shift(static_cast<size_t>(left_width + right.plan->schema->num_fields()),
                                 -1);
          for (int i = left_width; i < static_cast<int>(shift.size()); ++i) {
            shift[static_cast<size_t>(i)] = i - left_width;
          }
          left_keys.push_back(l);
          right_keys.push_back(expr::RemapColumns(r, shift));
          continue;
        }
      }
      rest.push_back(c);
    }
    filter = expr::JoinConjunction(std::move(rest));
  }
  BoundRelation rel{MakeJoin(left.plan, right.plan, type, left_keys, right_keys, filter),
                    std::move(combined)};
  if (!ref.alias.empty()) {
    for (ScopeColumn& c : rel.columns) c.table = ref.alias;
  }
  return rel;
}

Result<BoundRelation> Binder::BindFrom(const std::vector<sql::TableRefPtr>& from,
                                       const Scope* outer) {
  if (from.empty()) {
    return BoundRelation{MakeValues(std::make_shared<Schema>(), {{}}), {}};
  }
  FLOE_ASSIGN_OR_RAISE(BoundRelation rel, BindTableRef(*from[0], outer));
  for (size_t i = 1; i < from.size(); ++i) {
    if (IsUnnestRef(*from[i])) {
      FLOE_ASSIGN_OR_RAISE(rel, BindFunctionUnnest(*from[i], &rel, outer));
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(BoundRelation next, BindTableRef(*from[i], outer));
    int width = rel.plan->schema->num_fields();
    for (ScopeColumn c : next.columns) {
      c.index += width;
      rel.columns.push_back(std::move(c));
    }
    rel.plan = MakeJoin(rel.plan, next.plan, JoinType::kInner, {}, {}, nullptr);
  }
  return rel;
}

Result<LogicalPlanPtr> Binder::BindValues(const sql::SelectStmt& stmt) {
  Scope empty;
  size_t width = stmt.values.front().size();
  // An INSERT's own VALUES list (the statement's top query) knows its columns' types.
  const std::vector<TypePtr>* targets =
      &stmt == insert_values_ ? &options_.insert_value_types : nullptr;
  std::vector<std::vector<expr::ExprPtr>> rows;
  for (const auto& row : stmt.values) {
    if (row.size() != width) {
      return BindError(row.empty() ? stmt.location : row.front()->location,
                       "VALUES lists must all be the same length");
    }
    std::vector<expr::ExprPtr> bound;
    for (const auto& item : row) {
      ExprContext ctx;
      ctx.scope = &empty;
      ctx.allow_subqueries = false;
      ctx.clause = "VALUES";
      const size_t c = bound.size();
      const TypePtr target = targets != nullptr && c < targets->size() ? (*targets)[c] : TypePtr();
      FLOE_ASSIGN_OR_RAISE(expr::ExprPtr e, target != nullptr
                                                ? BindAssignedValue(*item, ctx, target)
                                                : BindExpr(*item, ctx));
      if (targets != nullptr && c < targets->size() && (*targets)[c] != nullptr && IsUntyped(*e)) {
        FLOE_ASSIGN_OR_RAISE(e, CoerceTo(e, (*targets)[c], item->location));
      }
      bound.push_back(std::move(e));
    }
    rows.push_back(std::move(bound));
  }
  std::vector<Field> fields;
  for (size_t c = 0; c < width; ++c) {
    TypePtr type;
    for (const auto& row : rows) {
      if (IsUntyped(*row[c])) continue;
      if (!type) {
        type = row[c]->type;
      } else {
        FLOE_ASSIGN_OR_RAISE(
            type, CommonTypeAt(type, row[c]->type, "VALUES", stmt.values[0][c]->location));
      }
    }
    if (!type) type = String();
    bool nullable = false;
    for (size_t r = 0; r < rows.size(); ++r) {
      FLOE_ASSIGN_OR_RAISE(rows[r][c], CoerceTo(rows[r][c], type, stmt.values[r][c]->location));
      nullable = nullable || rows[r][c]->nullable;
    }
    fields.emplace_back("column" + std::to_string(c + 1), type, nullable);
  }
  return MakeValues(std::make_shared<Schema>(std::move(fields)), std::move(rows));
}

Result<Scalar> Binder::EvaluateConstantAt(const expr::ExprPtr& e, int location) {
  auto value = expr::EvaluateConstant(e);
  if (!value.ok()) {
    Status st = value.status();
    return Status(st.code(), st.message() + Where(location));
  }
  return *value;
}

}  // namespace internal

Result<LogicalPlanPtr> BindQuery(const sql::SelectStmt& query, std::string_view text,
                                 RelationResolver& resolver, const BindOptions& options) {
  internal::Binder binder(text, &resolver, options);
  if (!options.insert_value_types.empty() && !query.values.empty() &&
      query.set_op == sql::SelectStmt::SetOp::kNone) {
    binder.set_insert_values(&query);
  }
  return binder.BindSelectStmt(query, nullptr);
}

Result<expr::ExprPtr> BindConstantExpr(const sql::ParsedExpr& expr, std::string_view text,
                                       const BindOptions& options) {
  internal::Binder binder(text, nullptr, options);
  internal::Scope empty;
  internal::ExprContext ctx;
  ctx.scope = &empty;
  ctx.allow_subqueries = false;
  ctx.clause = "constant expressions";
  return binder.BindExpr(expr, ctx);
}

Result<TypePtr> BindType(const sql::TypeName& type, std::string_view text,
                         std::shared_ptr<const UserTypes> user_types) {
  BindOptions options;
  options.user_types = std::move(user_types);
  internal::Binder binder(text, nullptr, options);
  return binder.BindTypeName(type);
}

std::string UserTypes::NameOf(const DataType* type) const {
  for (const auto& [name, composite] : composites) {
    if (composite.type.get() == type) return name;
  }
  for (const auto& [name, domain] : domains) {
    // Only a domain over a composite type has a type object of its own.
    if (domain.type.get() == type && type->id() == TypeId::kStruct) return name;
  }
  return "";
}

bool HasTypeRules(const sql::TypeName& type, const UserTypes* user_types) {
  if (std::optional<sql::TypeName> element = internal::ArrayElementTypeName(type, user_types)) {
    return HasTypeRules(*element, user_types);
  }
  const std::string& name = type.name;
  if ((name == "bpchar" || name == "varchar") && !type.modifiers.empty() && type.modifiers[0] > 0) {
    return true;
  }
  if (user_types == nullptr) return false;
  const std::string key = name.starts_with("public.") ? name.substr(7) : name;
  if (auto d = user_types->domains.find(key); d != user_types->domains.end()) {
    return d->second.not_null || !d->second.checks.empty() ||
           HasTypeRules(d->second.base, user_types);
  }
  if (auto c = user_types->composites.find(key); c != user_types->composites.end()) {
    for (const sql::TypeName& field : c->second.field_types) {
      if (HasTypeRules(field, user_types)) return true;
    }
  }
  return false;
}

Result<expr::ExprPtr> BindDomainCheck(const sql::ParsedExpr& check, const TypePtr& value_type,
                                      std::string_view text, const BindOptions& options) {
  internal::Binder binder(text, nullptr, options);
  internal::Scope scope;
  scope.columns.push_back(internal::ScopeColumn{"", "value", value_type, true, 0, false});
  internal::ExprContext ctx;
  ctx.scope = &scope;
  ctx.allow_subqueries = false;
  ctx.clause = "check constraints";
  FLOE_ASSIGN_OR_RAISE(expr::ExprPtr predicate, binder.BindExpr(check, ctx));
  return binder.RequireBoolean(std::move(predicate), "CHECK", check.location);
}

std::string TypeNameOf(const DataType& type) {
  if (type.id() == TypeId::kDecimal) {
    return "numeric(" + std::to_string(type.precision()) + "," + std::to_string(type.scale()) + ")";
  }
  return floe::SqlTypeName(type);
}

}  // namespace floe::plan
