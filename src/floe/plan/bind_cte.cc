// WITH items as FROM items: a plain item's body is bound where it is referenced (inlined);
// an item of a WITH RECURSIVE list that references itself, of the form `non-recursive term
// UNION [ALL] recursive term`, becomes a RecursiveQuery whose recursive term reads the
// previous iteration's rows through a WorkTableScan, with PostgreSQL's rules (parse_cte.c)
// for where the self-reference may be and for the column types: those of the
// non-recursive term (an untyped literal there is text), to which the recursive term's
// output is cast when their common type is the non-recursive term's, and an error when it
// is not.

#include <string>
#include <utility>
#include <vector>

#include "floe/plan/binder_internal.h"
#include "fmt/format.h"

namespace floe::plan::internal {

using expr::ExprPtr;

Result<LogicalPlanPtr> Binder::BindCteReference(const sql::TableRef& ref, size_t level,
                                                const sql::CommonTableExpr& cte) {
  if (!cte_stack_[level].recursive) {
    // A plain WITH item's body does not see the item itself: hide it while binding.
    std::map<std::string, const sql::CommonTableExpr*>& ctes = cte_stack_[level].ctes;
    auto saved = ctes;
    ctes.erase(cte.name);
    auto plan = BindSelectStmt(*cte.query, nullptr);
    cte_stack_[level].ctes = std::move(saved);
    return plan;
  }
  for (auto it = recursive_ctes_.rbegin(); it != recursive_ctes_.rend(); ++it) {
    if ((*it)->cte == &cte) return BindWorkTableReference(ref, *it);
  }
  cte_bodies_.emplace_back(&cte, level);
  auto plan = BindRecursiveLevelCte(cte, level);
  cte_bodies_.pop_back();
  return plan;
}

Result<LogicalPlanPtr> Binder::BindRecursiveLevelCte(const sql::CommonTableExpr& cte,
                                                     size_t level) {
  const sql::SelectStmt& body = *cte.query;
  RecursiveCte rc;
  rc.cte = &cte;
  rc.level = level;
  rc.bodies = cte_bodies_.size();
  recursive_ctes_.push_back(&rc);
  Result<LogicalPlanPtr> plan = [&]() -> Result<LogicalPlanPtr> {
    if (body.set_op == sql::SelectStmt::SetOp::kUnion && body.inputs.size() >= 2) {
      // The body's own WITH is visible to both terms.
      bool pushed = false;
      FLOE_RETURN_NOT_OK(PushCtes(body, &pushed));
      auto recursive = BindRecursiveUnion(cte, &rc);
      if (pushed) cte_stack_.pop_back();
      return recursive;
    }
    rc.phase = RecursiveCte::Phase::kMalformed;
    return BindSelectStmt(body, nullptr);
  }();
  recursive_ctes_.pop_back();
  FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr bound, std::move(plan));
  // A UNION whose last input does not reference the item is a plain WITH item.
  if (bound == nullptr) return BindSelectStmt(body, nullptr);
  return bound;
}

Result<LogicalPlanPtr> Binder::BindRecursiveUnion(const sql::CommonTableExpr& cte,
                                                  RecursiveCte* rc) {
  const sql::SelectStmt& body = *cte.query;
  const std::string& name = cte.name;
  auto at = [&](const sql::SelectStmtPtr& input) {
    return input->location >= 0 ? input->location : cte.location;
  };

  // The non-recursive term: every UNION input but the last (the parser flattens a chain of
  // one kind of UNION, which PostgreSQL nests to the left).
  rc->phase = RecursiveCte::Phase::kNonRecursiveTerm;
  LogicalPlanPtr static_term;
  if (body.inputs.size() == 2) {
    FLOE_ASSIGN_OR_RAISE(static_term, BindSelectStmt(*body.inputs[0], nullptr));
  } else {
    sql::SelectStmt left;
    left.set_op = body.set_op;
    left.set_all = body.set_all;
    left.inputs.assign(body.inputs.begin(), body.inputs.end() - 1);
    left.location = body.location;
    FLOE_ASSIGN_OR_RAISE(static_term, BindSelectStmt(left, nullptr));
  }
  const Schema& static_schema = *static_term->schema;
  const int width = static_schema.num_fields();
  if (cte.column_names.size() > static_cast<size_t>(width)) {
    return BindError(cte.location, fmt::format("WITH query \"{}\" has {} columns available but {} "
                                               "columns specified",
                                               name, width, cte.column_names.size()));
  }
  // The columns: the WITH item's names, the non-recursive term's types (text for an untyped
  // literal, as SELECT 'a' UNION SELECT 'b' gives text). PostgreSQL's numeric has no
  // precision unless declared, so that n + 1 stays numeric however often it runs: a
  // decimal column takes the most digits, keeping its scale.
  std::vector<TypePtr> types;
  std::vector<Field> fields;
  for (int i = 0; i < width; ++i) {
    const Field& f = static_schema.field(i);
    TypePtr type = IsUntypedOutput(static_term, i) ? String() : f.type();
    if (type->id() == TypeId::kDecimal) type = Decimal(38, type->scale());
    std::string column =
        static_cast<size_t>(i) < cte.column_names.size() ? cte.column_names[i] : f.name();
    types.push_back(type);
    fields.emplace_back(std::move(column), type, true);
  }
  FLOE_ASSIGN_OR_RAISE(static_term, CastOutputs(static_term, types, at(body.inputs[0])));
  SchemaPtr schema = std::make_shared<Schema>(std::move(fields));

  // The recursive term, its self-reference reading the work table.
  rc->phase = RecursiveCte::Phase::kRecursiveTerm;
  rc->work_table_id = next_work_table_id_++;
  rc->schema = schema;
  rc->contexts = recursion_contexts_.size();
  const sql::SelectStmtPtr& last = body.inputs.back();
  FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr recursive_term, BindSelectStmt(*last, nullptr));
  if (rc->references == 0) return LogicalPlanPtr();

  if (!body.order_by.empty()) {
    return NotSupported(body.order_by[0].expr->location,
                        "ORDER BY in a recursive query is not implemented");
  }
  if (body.offset) {
    return NotSupported(body.offset->location, "OFFSET in a recursive query is not implemented");
  }
  if (body.limit) {
    return NotSupported(body.limit->location, "LIMIT in a recursive query is not implemented");
  }
  if (recursive_term->schema->num_fields() != width) {
    return BindError(at(last), "each UNION query must have the same number of columns");
  }
  // The recursive term's output takes the non-recursive term's types where their common
  // type is that; any other common type is PostgreSQL's error.
  for (int i = 0; i < width; ++i) {
    const TypePtr& type = types[static_cast<size_t>(i)];
    const TypePtr& other = recursive_term->schema->field(i).type();
    if (IsUntypedOutput(recursive_term, i) || other->Equals(*type)) continue;
    FLOE_ASSIGN_OR_RAISE(TypePtr common, CommonTypeAt(type, other, "UNION", at(last)));
    // Decimals of other precisions and scales are all PostgreSQL's numeric: the recursive
    // term's values are rounded to the column's scale.
    const bool both_numeric = common->id() == TypeId::kDecimal && type->id() == TypeId::kDecimal;
    if (!common->Equals(*type) && !both_numeric) {
      return BindError(at(body.inputs[0]),
                       fmt::format("recursive query \"{}\" column {} has type {} in non-recursive "
                                   "term but type {} overall",
                                   name, i + 1, SqlTypeName(*type), SqlTypeName(*common)));
    }
  }
  FLOE_ASSIGN_OR_RAISE(recursive_term, CastOutputs(recursive_term, types, at(last)));
  return MakeRecursiveQuery(std::move(static_term), std::move(recursive_term), body.set_all,
                            rc->work_table_id, name, std::move(schema));
}

Result<LogicalPlanPtr> Binder::BindWorkTableReference(const sql::TableRef& ref, RecursiveCte* rc) {
  const std::string& name = rc->cte->name;
  // Another item of the same WITH list between the item and this reference: a cycle.
  for (size_t i = rc->bodies; i < cte_bodies_.size(); ++i) {
    if (cte_bodies_[i].second == rc->level && cte_bodies_[i].first != rc->cte) {
      return NotSupported(rc->cte->location,
                          "mutual recursion between WITH items is not implemented");
    }
  }
  switch (rc->phase) {
    case RecursiveCte::Phase::kNonRecursiveTerm:
      return BindError(ref.location, "recursive reference to query \"" + name +
                                         "\" must not appear within its non-recursive term");
    case RecursiveCte::Phase::kMalformed:
      return BindError(rc->cte->location,
                       "recursive query \"" + name +
                           "\" does not have the form non-recursive-term UNION [ALL] "
                           "recursive-term");
    case RecursiveCte::Phase::kRecursiveTerm:
      break;
  }
  if (recursion_contexts_.size() > rc->contexts) {
    // The outermost context decides, except that a subquery overrides any.
    RecursionContext context = recursion_contexts_[rc->contexts];
    for (size_t i = rc->contexts; i < recursion_contexts_.size(); ++i) {
      if (recursion_contexts_[i] == RecursionContext::kSubquery)
        context = RecursionContext::kSubquery;
    }
    const char* where = context == RecursionContext::kSubquery    ? "a subquery"
                        : context == RecursionContext::kOuterJoin ? "an outer join"
                                                                  : "EXCEPT";
    return BindError(ref.location, "recursive reference to query \"" + name +
                                       "\" must not appear within " + where);
  }
  if (++rc->references > 1) {
    return BindError(ref.location, "recursive reference to query \"" + name +
                                       "\" must not appear more than once");
  }
  if (!states_.empty()) state()->reads_work_table = true;
  return MakeWorkTableScan(rc->work_table_id, name, rc->schema);
}

}  // namespace floe::plan::internal
