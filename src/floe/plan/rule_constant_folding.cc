// Constant folding and simplification.
//
// Expressions: constant sub-expressions are evaluated once (expr::EvaluateConstant);
// AND/OR drop neutral operands and collapse on absorbing ones (x AND false -> false, as
// PostgreSQL does even when x could fail), NOT NOT x -> x, a comparison with a NULL literal
// is NULL, CASE drops branches whose condition is a constant false or NULL and stops at a
// constant true one. A constant that fails to evaluate is a query error, except where it
// might never be evaluated (CASE branches after the first condition, COALESCE arguments
// after the first): there it is left for execution to decide.
//
// Plans: a filter that is always true disappears; one that is never true becomes an empty
// Values, and the emptiness propagates up through the nodes whose result it empties.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "floe/expr/physical_expr.h"
#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

using expr::Expr;
using expr::ExprKind;
using expr::ExprPtr;

bool IsBoolLiteral(const Expr& e, bool value) {
  return e.kind == ExprKind::kLiteral && !e.literal.is_null() && e.type &&
         e.type->id() == TypeId::kBoolean && e.literal.get<bool>() == value;
}

bool IsNullLiteral(const Expr& e) { return e.kind == ExprKind::kLiteral && e.literal.is_null(); }

namespace {

ExprPtr BoolLiteral(bool v) { return expr::Literal(Scalar::Bool(v)); }
ExprPtr NullLiteral(const TypePtr& type) { return expr::Literal(Scalar::Null(type)); }

bool IsComparison(const std::string& name) {
  return name == "eq" || name == "ne" || name == "lt" || name == "le" || name == "gt" ||
         name == "ge";
}

ExprPtr WithArgs(const Expr& e, std::vector<ExprPtr> args) {
  Expr copy = e;
  copy.args = std::move(args);
  return std::make_shared<const Expr>(std::move(copy));
}

Result<ExprPtr> Simplify(const ExprPtr& e, bool conditional);

// Evaluates a constant expression into a literal. Errors are returned unless the
// expression is in a conditional position, where it is kept unevaluated.
Result<ExprPtr> Fold(const ExprPtr& e, bool conditional) {
  for (const ExprPtr& a : e->args) {
    if (a->kind != ExprKind::kLiteral) return e;
  }
  if (expr::IsVolatile(*e)) return e;
  Result<Scalar> value = expr::EvaluateConstant(e);
  if (!value.ok()) {
    // Only a failure of the expression itself (division by zero, overflow, a bad cast)
    // is the query's error; anything else is left for execution to report.
    if (conditional || value.status().code() != StatusCode::kInvalidArgument) return e;
    return value.status();
  }
  Scalar s = std::move(value).value();
  if (!s.type()) s = Scalar::Null(e->type);
  return expr::Literal(std::move(s));
}

Result<ExprPtr> SimplifyAndOr(const ExprPtr& e, std::vector<ExprPtr> args) {
  const bool is_and = e->name == "and";
  std::vector<ExprPtr> kept;
  for (ExprPtr& a : args) {
    // Flatten nested ANDs (ORs) produced by earlier rewrites.
    std::vector<ExprPtr> parts;
    if (a->kind == ExprKind::kCall && a->name == e->name) {
      parts = a->args;
    } else {
      parts.push_back(a);
    }
    for (ExprPtr& p : parts) {
      if (IsBoolLiteral(*p, is_and)) continue;                      // neutral
      if (IsBoolLiteral(*p, !is_and)) return BoolLiteral(!is_and);  // absorbing
      kept.push_back(std::move(p));
    }
  }
  if (kept.empty()) return BoolLiteral(is_and);
  if (kept.size() == 1) return kept[0];
  ExprPtr out = is_and ? expr::And(std::move(kept)) : expr::Or(std::move(kept));
  if (out->Equals(*e)) out = e;
  // NULL AND NULL and the like: literals that evaluate without error.
  return Fold(out, true);
}

Result<ExprPtr> SimplifyCase(const ExprPtr& e, bool conditional) {
  const size_t pairs = (e->args.size() - (e->case_has_else ? 1 : 0)) / 2;
  std::vector<ExprPtr> when_then;
  ExprPtr else_value;
  bool done = false;
  for (size_t i = 0; i < pairs && !done; ++i) {
    // Only the first condition is evaluated for every row.
    const bool first = when_then.empty() && i == 0;
    FLOE_ASSIGN_OR_RAISE(ExprPtr when, Simplify(e->args[2 * i], conditional || !first));
    FLOE_ASSIGN_OR_RAISE(ExprPtr then, Simplify(e->args[2 * i + 1], true));
    if (IsBoolLiteral(*when, false) || IsNullLiteral(*when)) continue;
    if (IsBoolLiteral(*when, true)) {
      else_value = then;
      done = true;
      break;
    }
    when_then.push_back(std::move(when));
    when_then.push_back(std::move(then));
  }
  if (!done && e->case_has_else) {
    FLOE_ASSIGN_OR_RAISE(else_value, Simplify(e->args.back(), true));
  }
  if (when_then.empty()) return else_value ? else_value : NullLiteral(e->type);
  ExprPtr out = expr::Case(std::move(when_then), std::move(else_value), e->type);
  if (out->Equals(*e)) return e;
  return out;
}

Result<ExprPtr> Simplify(const ExprPtr& e, bool conditional) {
  switch (e->kind) {
    case ExprKind::kColumn:
    case ExprKind::kLiteral:
      return e;
    case ExprKind::kCase:
      return SimplifyCase(e, conditional);
    case ExprKind::kCast: {
      FLOE_ASSIGN_OR_RAISE(ExprPtr arg, Simplify(e->args[0], conditional));
      ExprPtr out = arg == e->args[0] ? e : WithArgs(*e, {arg});
      return Fold(out, conditional);
    }
    case ExprKind::kCall:
      break;
  }
  std::vector<ExprPtr> args;
  args.reserve(e->args.size());
  bool changed = false;
  for (size_t i = 0; i < e->args.size(); ++i) {
    const bool lazy = e->name == "coalesce" && i > 0;
    FLOE_ASSIGN_OR_RAISE(ExprPtr a, Simplify(e->args[i], conditional || lazy));
    changed |= a != e->args[i];
    args.push_back(std::move(a));
  }
  if (e->name == "and" || e->name == "or") return SimplifyAndOr(e, std::move(args));
  if (e->name == "not" && args.size() == 1 && args[0]->kind == ExprKind::kCall &&
      args[0]->name == "not" && args[0]->args.size() == 1) {
    return args[0]->args[0];
  }
  if (IsComparison(e->name)) {
    for (const ExprPtr& a : args) {
      if (IsNullLiteral(*a)) return NullLiteral(e->type);
    }
  }
  ExprPtr out = changed ? WithArgs(*e, std::move(args)) : e;
  return Fold(out, conditional);
}

Result<std::vector<ExprPtr>> SimplifyAll(const std::vector<ExprPtr>& exprs) {
  std::vector<ExprPtr> out;
  out.reserve(exprs.size());
  for (const ExprPtr& e : exprs) {
    FLOE_ASSIGN_OR_RAISE(ExprPtr s, SimplifyExpr(e));
    out.push_back(std::move(s));
  }
  return out;
}

Result<ExprPtr> SimplifyOptional(const ExprPtr& e) {
  if (!e) return e;
  return SimplifyExpr(e);
}

Status SimplifySortKeys(std::vector<SortKey>* keys) {
  for (SortKey& k : *keys) {
    FLOE_ASSIGN_OR_RAISE(k.expr, SimplifyExpr(k.expr));
  }
  return Status::OK();
}

bool IsEmpty(const LogicalPlan& plan) {
  return plan.kind == LogicalKind::kValues && plan.rows.empty();
}

LogicalPlanPtr EmptyLike(const LogicalPlan& node) { return MakeValues(node.schema, {}); }

// Whether `node`'s result is empty because of its empty children.
bool EmptiedByChildren(const LogicalPlan& node) {
  switch (node.kind) {
    case LogicalKind::kFilter:
    case LogicalKind::kProjection:
    case LogicalKind::kSort:
    case LogicalKind::kLimit:
    case LogicalKind::kWindow:
    case LogicalKind::kMaxOneRow:
    case LogicalKind::kUnnest:
      return IsEmpty(*node.children[0]);
    case LogicalKind::kAggregate:
      // Without GROUP BY an aggregate of no rows is one row.
      return !node.group_exprs.empty() && IsEmpty(*node.children[0]);
    case LogicalKind::kJoin: {
      const bool left = IsEmpty(*node.children[0]);
      const bool right = IsEmpty(*node.children[1]);
      switch (node.join_type) {
        case JoinType::kInner:
        case JoinType::kSemi:
          return left || right;
        case JoinType::kLeft:
        case JoinType::kAnti:
        case JoinType::kMark:
        case JoinType::kNullAwareAnti:
          return left;
        case JoinType::kRight:
        case JoinType::kRightAnti:
          return right;
        case JoinType::kRightSemi:
          return left || right;
        case JoinType::kFull:
          return left && right;
      }
      return false;
    }
    case LogicalKind::kUnion:
      for (const auto& c : node.children) {
        if (!IsEmpty(*c)) return false;
      }
      return true;
    case LogicalKind::kRecursiveQuery:
      // Without rows from the static term there is no iteration.
      return IsEmpty(*node.children[0]);
    default:
      return false;
  }
}

Result<LogicalPlanPtr> SimplifyNode(const LogicalPlanPtr& plan) {
  std::vector<LogicalPlanPtr> children;
  bool children_changed = false;
  for (const auto& c : plan->children) {
    FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr n, SimplifyNode(c));
    children_changed |= n != c;
    children.push_back(std::move(n));
  }
  auto node = std::make_shared<LogicalPlan>(*plan);
  node->children = std::move(children);
  if (EmptiedByChildren(*node)) return EmptyLike(*node);

  switch (node->kind) {
    case LogicalKind::kScan: {
      FLOE_ASSIGN_OR_RAISE(auto filters, SimplifyAll(node->filters));
      node->filters.clear();
      for (auto& f : filters) {
        if (!IsBoolLiteral(*f, true)) node->filters.push_back(std::move(f));
      }
      break;
    }
    case LogicalKind::kValues:
      for (auto& row : node->rows) {
        FLOE_ASSIGN_OR_RAISE(row, SimplifyAll(row));
      }
      break;
    case LogicalKind::kProjection: {
      FLOE_ASSIGN_OR_RAISE(node->exprs, SimplifyAll(node->exprs));
      break;
    }
    case LogicalKind::kFilter: {
      FLOE_ASSIGN_OR_RAISE(node->predicate, SimplifyExpr(node->predicate));
      if (IsBoolLiteral(*node->predicate, true)) return node->children[0];
      if (IsBoolLiteral(*node->predicate, false) || IsNullLiteral(*node->predicate)) {
        return EmptyLike(*node);
      }
      break;
    }
    case LogicalKind::kAggregate: {
      FLOE_ASSIGN_OR_RAISE(node->group_exprs, SimplifyAll(node->group_exprs));
      for (AggregateCall& call : node->aggregates) {
        FLOE_ASSIGN_OR_RAISE(call.args, SimplifyAll(call.args));
        FLOE_ASSIGN_OR_RAISE(call.filter, SimplifyOptional(call.filter));
        if (call.filter && IsBoolLiteral(*call.filter, true)) call.filter = nullptr;
        FLOE_RETURN_NOT_OK(SimplifySortKeys(&call.order_by));
      }
      break;
    }
    case LogicalKind::kUnnest: {
      FLOE_ASSIGN_OR_RAISE(node->exprs, SimplifyAll(node->exprs));
      break;
    }
    case LogicalKind::kWindow:
      for (WindowCall& call : node->windows) {
        FLOE_ASSIGN_OR_RAISE(call.args, SimplifyAll(call.args));
        FLOE_ASSIGN_OR_RAISE(call.partition_by, SimplifyAll(call.partition_by));
        FLOE_RETURN_NOT_OK(SimplifySortKeys(&call.order_by));
      }
      break;
    case LogicalKind::kJoin: {
      FLOE_ASSIGN_OR_RAISE(node->left_keys, SimplifyAll(node->left_keys));
      FLOE_ASSIGN_OR_RAISE(node->right_keys, SimplifyAll(node->right_keys));
      FLOE_ASSIGN_OR_RAISE(node->join_filter, SimplifyOptional(node->join_filter));
      if (node->join_filter && IsBoolLiteral(*node->join_filter, true)) {
        node->join_filter = nullptr;
      }
      if (node->join_filter && node->join_type == JoinType::kInner &&
          (IsBoolLiteral(*node->join_filter, false) || IsNullLiteral(*node->join_filter))) {
        return EmptyLike(*node);
      }
      break;
    }
    case LogicalKind::kSort: {
      FLOE_RETURN_NOT_OK(SimplifySortKeys(&node->sort_keys));
      // Sorting by a constant orders nothing.
      std::vector<SortKey> keys;
      for (SortKey& k : node->sort_keys) {
        if (!expr::IsConstant(*k.expr) || expr::IsVolatile(*k.expr)) keys.push_back(std::move(k));
      }
      if (keys.empty()) return node->children[0];
      node->sort_keys = std::move(keys);
      break;
    }
    case LogicalKind::kLimit:
      if (node->fetch && *node->fetch == 0) return EmptyLike(*node);
      break;
    case LogicalKind::kUnion:
    case LogicalKind::kMaxOneRow:
    case LogicalKind::kRecursiveQuery:
    case LogicalKind::kWorkTableScan:
      break;
  }
  (void)children_changed;
  return LogicalPlanPtr(std::move(node));
}

}  // namespace

Result<ExprPtr> SimplifyExpr(const ExprPtr& e) { return Simplify(e, false); }

Result<LogicalPlanPtr> SimplifyPlan(const LogicalPlanPtr& plan) { return SimplifyNode(plan); }

}  // namespace floe::plan::internal
