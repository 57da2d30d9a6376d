// Predicate pushdown. Filters are split into conjuncts and each conjunct travels down the
// plan as far as it keeps its meaning:
//   Projection   substituted by the projected expressions (unless one is volatile)
//   Sort         through;  Limit, MaxOneRow, Values: stops (a filter below a limit or a
//                one-row check would change the result)
//   Aggregate    conjuncts over group columns only (substituted by the group expressions)
//   Window       conjuncts over columns every window partitions by
//   Union        into every input
//   Join         inner: one-sided conjuncts go into that side, left = right equalities
//                become join keys (turning comma joins with WHERE equalities into
//                equi-joins), other two-sided conjuncts become the join filter.
//                Outer joins: conjuncts from above only into the preserved side; ON
//                conjuncts only into the null-supplying side. Semi/anti/mark: conjuncts
//                from above go into the left input.
//   Scan         what the source evaluates exactly moves into the scan's filters; what it
//                can only prune with is copied there and also kept above.
// Volatile conjuncts (random() < 0.5) stay where they are written. What an OR conjunct says
// beyond itself is made explicit on the way (disjunctions.cc): conjuncts common to all its
// branches are factored out, the OR of its branches' one-sided conjuncts goes into that
// side of an inner join, and scans get the column ranges and IN lists it implies.

#include <algorithm>
#include <iterator>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

namespace {

using expr::Expr;
using expr::ExprKind;
using expr::ExprPtr;
using Conjuncts = std::vector<ExprPtr>;

LogicalPlanPtr AddFilter(LogicalPlanPtr input, Conjuncts conjuncts) {
  if (conjuncts.empty()) return input;
  return MakeFilter(std::move(input), expr::JoinConjunction(std::move(conjuncts)));
}

bool Contains(const Conjuncts& list, const Expr& e) {
  return std::any_of(list.begin(), list.end(), [&](const ExprPtr& x) { return x->Equals(e); });
}

// The conjuncts with what every branch of an OR among them holds factored out of it.
Conjuncts Factor(Conjuncts conjuncts) {
  Conjuncts out;
  for (ExprPtr& c : conjuncts) {
    for (ExprPtr& f : FactorDisjunction(c)) {
      if (!Contains(out, *f)) out.push_back(std::move(f));
    }
  }
  return out;
}

Result<LogicalPlanPtr> Push(const LogicalPlanPtr& plan, Conjuncts conjuncts);

// Rewrites the children without conjuncts from above and keeps `conjuncts` in a filter
// over the node.
Result<LogicalPlanPtr> Stop(const LogicalPlanPtr& plan, Conjuncts conjuncts) {
  std::vector<LogicalPlanPtr> children;
  bool changed = false;
  for (const auto& c : plan->children) {
    FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr n, Push(c, {}));
    changed |= n != c;
    children.push_back(std::move(n));
  }
  LogicalPlanPtr node = changed ? WithNewChildren(*plan, std::move(children)) : plan;
  return AddFilter(std::move(node), std::move(conjuncts));
}

Result<LogicalPlanPtr> PushFilter(const LogicalPlan& node, Conjuncts conjuncts) {
  Conjuncts movable;
  Conjuncts fixed;
  for (ExprPtr& c : expr::SplitConjunction(node.predicate)) {
    (expr::IsVolatile(*c) ? fixed : movable).push_back(std::move(c));
  }
  for (ExprPtr& c : conjuncts) {
    if (!Contains(movable, *c)) movable.push_back(std::move(c));
  }
  FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr child, Push(node.children[0], Factor(std::move(movable))));
  return AddFilter(std::move(child), std::move(fixed));
}

Result<LogicalPlanPtr> PushProjection(const LogicalPlanPtr& plan, Conjuncts conjuncts) {
  const LogicalPlan& node = *plan;
  Conjuncts below;
  Conjuncts kept;
  for (ExprPtr& c : conjuncts) {
    bool ok = true;
    for (int col : expr::ReferencedColumns(*c)) {
      ok &= !expr::IsVolatile(*node.exprs[static_cast<size_t>(col)]);
    }
    if (ok) {
      below.push_back(expr::SubstituteColumns(c, node.exprs));
    } else {
      kept.push_back(std::move(c));
    }
  }
  FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr child, Push(node.children[0], std::move(below)));
  LogicalPlanPtr out = child == node.children[0] ? plan : WithNewChildren(node, {child});
  return AddFilter(std::move(out), std::move(kept));
}

Result<LogicalPlanPtr> PushAggregate(const LogicalPlanPtr& plan, Conjuncts conjuncts) {
  const LogicalPlan& node = *plan;
  const auto groups = static_cast<int>(node.group_exprs.size());
  Conjuncts below;
  Conjuncts kept;
  for (ExprPtr& c : conjuncts) {
    std::vector<int> cols = expr::ReferencedColumns(*c);
    // Without GROUP BY the aggregate returns a row even for no input: nothing moves.
    bool ok = groups > 0 && !cols.empty();
    for (int col : cols) {
      ok &= col < groups && !expr::IsVolatile(*node.group_exprs[static_cast<size_t>(col)]);
    }
    if (ok) {
      below.push_back(expr::SubstituteColumns(c, node.group_exprs));
    } else {
      kept.push_back(std::move(c));
    }
  }
  FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr child, Push(node.children[0], std::move(below)));
  LogicalPlanPtr out = child == node.children[0] ? plan : WithNewChildren(node, {child});
  return AddFilter(std::move(out), std::move(kept));
}

Result<LogicalPlanPtr> PushWindow(const LogicalPlanPtr& plan, Conjuncts conjuncts) {
  const LogicalPlan& node = *plan;
  const int inputs = node.children[0]->schema->num_fields();
  // Columns every window call partitions by.
  auto partitioned_by_all = [&](int col) {
    for (const WindowCall& w : node.windows) {
      bool found = false;
      for (const ExprPtr& p : w.partition_by) {
        found |= p->kind == ExprKind::kColumn && p->column == col;
      }
      if (!found) return false;
    }
    return !node.windows.empty();
  };
  Conjuncts below;
  Conjuncts kept;
  for (ExprPtr& c : conjuncts) {
    std::vector<int> cols = expr::ReferencedColumns(*c);
    bool ok = !cols.empty();
    for (int col : cols) ok &= col < inputs && partitioned_by_all(col);
    (ok ? below : kept).push_back(std::move(c));
  }
  FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr child, Push(node.children[0], std::move(below)));
  LogicalPlanPtr out = child == node.children[0] ? plan : WithNewChildren(node, {child});
  return AddFilter(std::move(out), std::move(kept));
}

// An Unnest repeats each input row per element: a conjunct over input columns alone holds
// for all of a row's repeats or for none, so it filters the input instead (unless it is
// volatile, when each repeat draws its own value).
Result<LogicalPlanPtr> PushUnnest(const LogicalPlanPtr& plan, Conjuncts conjuncts) {
  const LogicalPlan& node = *plan;
  const int inputs = node.children[0]->schema->num_fields();
  Conjuncts below;
  Conjuncts kept;
  for (ExprPtr& c : conjuncts) {
    bool ok = !expr::IsVolatile(*c);
    for (int col : expr::ReferencedColumns(*c)) ok &= col < inputs;
    (ok ? below : kept).push_back(std::move(c));
  }
  FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr child, Push(node.children[0], std::move(below)));
  LogicalPlanPtr out = child == node.children[0] ? plan : WithNewChildren(node, {child});
  return AddFilter(std::move(out), std::move(kept));
}

Result<LogicalPlanPtr> PushUnion(const LogicalPlanPtr& plan, Conjuncts conjuncts) {
  std::vector<LogicalPlanPtr> children;
  bool changed = !conjuncts.empty();
  for (const auto& c : plan->children) {
    FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr n, Push(c, conjuncts));
    changed |= n != c;
    children.push_back(std::move(n));
  }
  return changed ? WithNewChildren(*plan, std::move(children)) : plan;
}

enum class Side { kNone, kLeft, kRight, kBoth };

Side SideOf(const Expr& e, int left_columns) {
  std::vector<int> cols = expr::ReferencedColumns(e);
  if (cols.empty()) return Side::kNone;
  if (cols.back() < left_columns) return Side::kLeft;
  if (cols.front() >= left_columns) return Side::kRight;
  return Side::kBoth;
}

// True when `e` is NULL whenever a column in [begin, end) is NULL: it reaches such a
// column only through operators that return NULL for a NULL operand.
bool StrictIn(const Expr& e, int begin, int end) {
  switch (e.kind) {
    case ExprKind::kColumn:
      return e.column >= begin && e.column < end;
    case ExprKind::kCast:
      return StrictIn(*e.args[0], begin, end);
    case ExprKind::kCall: {
      static constexpr std::string_view kStrict[] = {
          "eq",       "ne",       "lt",     "le",     "gt",     "ge",        "add",
          "subtract", "multiply", "divide", "modulo", "negate", "concat_op", "like"};
      if (std::find(std::begin(kStrict), std::end(kStrict), e.name) == std::end(kStrict)) {
        return false;
      }
      return std::any_of(e.args.begin(), e.args.end(),
                         [&](const ExprPtr& a) { return StrictIn(*a, begin, end); });
    }
    default:
      return false;
  }
}

// True when a row whose columns [begin, end) are all NULL fails `conjunct` (NULL or
// false): a filter above an outer join with it removes every row the join padded.
bool RejectsNulls(const Expr& conjunct, int begin, int end) {
  if (conjunct.kind == ExprKind::kCall) {
    if (conjunct.name == "or") {
      return std::all_of(conjunct.args.begin(), conjunct.args.end(),
                         [&](const ExprPtr& a) { return RejectsNulls(*a, begin, end); });
    }
    if (conjunct.name == "is_true" || conjunct.name == "is_not_null") {
      return StrictIn(*conjunct.args[0], begin, end);
    }
  }
  return StrictIn(conjunct, begin, end);
}

Result<LogicalPlanPtr> PushJoin(const LogicalPlanPtr& plan, Conjuncts conjuncts) {
  const LogicalPlan& node = *plan;
  const int nl = node.children[0]->schema->num_fields();
  const int nr = node.children[1]->schema->num_fields();
  // An outer join under a filter that rejects its padded rows is an inner join.
  JoinType join_type = node.join_type;
  if (join_type == JoinType::kLeft || join_type == JoinType::kRight) {
    const int begin = join_type == JoinType::kLeft ? nl : 0;
    const int end = join_type == JoinType::kLeft ? nl + nr : nl;
    for (const ExprPtr& c : conjuncts) {
      if (RejectsNulls(*c, begin, end)) join_type = JoinType::kInner;
    }
  }
  std::vector<int> right_mapping(static_cast<size_t>(nl + nr), -1);
  for (int i = nl; i < nl + nr; ++i) right_mapping[static_cast<size_t>(i)] = i - nl;
  auto to_right = [&](const ExprPtr& e) { return expr::RemapColumns(e, right_mapping); };

  std::vector<ExprPtr> left_keys = node.left_keys;
  std::vector<ExprPtr> right_keys = node.right_keys;
  std::vector<bool> null_equals_null = node.null_equals_null;
  null_equals_null.resize(left_keys.size(), false);
  Conjuncts left;
  Conjuncts right;
  Conjuncts filter;
  Conjuncts above;

  // left_expr = right_expr (or IS NOT DISTINCT FROM) between the two sides -> a key.
  auto try_key = [&](const ExprPtr& c) {
    if (c->kind != ExprKind::kCall || c->args.size() != 2 || expr::IsVolatile(*c)) return false;
    const bool nen = c->name == "is_not_distinct_from";
    if (c->name != "eq" && !nen) return false;
    const ExprPtr& a = c->args[0];
    const ExprPtr& b = c->args[1];
    if (!a->type || !b->type || !a->type->Equals(*b->type)) return false;
    const Side sa = SideOf(*a, nl);
    const Side sb = SideOf(*b, nl);
    if (sa == Side::kLeft && sb == Side::kRight) {
      left_keys.push_back(a);
      right_keys.push_back(to_right(b));
    } else if (sa == Side::kRight && sb == Side::kLeft) {
      left_keys.push_back(b);
      right_keys.push_back(to_right(a));
    } else {
      return false;
    }
    null_equals_null.push_back(nen);
    return true;
  };

  // An OR over both sides implies, for each side, the OR of its branches' conjuncts over
  // that side alone, which the side can apply before the join.
  auto push_implied = [&](const ExprPtr& c) {
    ExprPtr l = ImpliedDisjunction(c, [&](const Expr& t) { return SideOf(t, nl) == Side::kLeft; });
    if (l != nullptr && !Contains(left, *l)) left.push_back(std::move(l));
    ExprPtr r = ImpliedDisjunction(c, [&](const Expr& t) { return SideOf(t, nl) == Side::kRight; });
    if (r != nullptr) {
      r = to_right(r);
      if (!Contains(right, *r)) right.push_back(std::move(r));
    }
  };

  conjuncts = Factor(std::move(conjuncts));
  const Conjuncts on = Factor(expr::SplitConjunction(node.join_filter));
  switch (join_type) {
    case JoinType::kInner: {
      Conjuncts all = on;
      for (auto& c : conjuncts) all.push_back(std::move(c));
      for (const ExprPtr& c : all) {
        if (expr::IsVolatile(*c)) {
          filter.push_back(c);
          continue;
        }
        switch (SideOf(*c, nl)) {
          case Side::kNone:
          case Side::kLeft:
            left.push_back(c);
            break;
          case Side::kRight:
            right.push_back(to_right(c));
            break;
          case Side::kBoth:
            if (!try_key(c)) {
              filter.push_back(c);
              push_implied(c);
            }
            break;
        }
      }
      break;
    }
    case JoinType::kLeft:
    case JoinType::kRight: {
      // The preserved side takes conjuncts from above; the null-supplying side takes ON
      // conjuncts.
      const bool left_preserved = join_type == JoinType::kLeft;
      const Side preserved = left_preserved ? Side::kLeft : Side::kRight;
      for (auto& c : conjuncts) {
        if (SideOf(*c, nl) == preserved) {
          (left_preserved ? left : right).push_back(left_preserved ? c : to_right(c));
        } else {
          above.push_back(std::move(c));
        }
      }
      for (const ExprPtr& c : on) {
        const Side side = SideOf(*c, nl);
        if (expr::IsVolatile(*c)) {
          filter.push_back(c);
        } else if (side == Side::kBoth) {
          if (!try_key(c)) filter.push_back(c);
        } else if (side != Side::kNone && side != preserved) {
          (left_preserved ? right : left).push_back(left_preserved ? to_right(c) : c);
        } else {
          filter.push_back(c);
        }
      }
      break;
    }
    case JoinType::kFull:
    case JoinType::kRightSemi:  // physical only; kept as written
    case JoinType::kRightAnti:
      above = std::move(conjuncts);
      for (const ExprPtr& c : on) {
        if (expr::IsVolatile(*c) || SideOf(*c, nl) != Side::kBoth || !try_key(c)) {
          filter.push_back(c);
        }
      }
      break;
    case JoinType::kSemi:
    case JoinType::kAnti: {
      // The output is the left input's columns.
      left = std::move(conjuncts);
      const bool semi = join_type == JoinType::kSemi;
      for (const ExprPtr& c : on) {
        const Side side = SideOf(*c, nl);
        if (expr::IsVolatile(*c)) {
          filter.push_back(c);
        } else if (side == Side::kRight) {
          right.push_back(to_right(c));
        } else if (side == Side::kBoth) {
          if (!try_key(c)) filter.push_back(c);
        } else if (semi) {
          // A left row failing a left-only ON conjunct matches nothing.
          left.push_back(c);
        } else {
          filter.push_back(c);
        }
      }
      break;
    }
    case JoinType::kMark:
    case JoinType::kNullAwareAnti:  // physical only; treated as the mark join it stands for
      // The ON condition decides the NULL-aware mark; it stays as written.
      for (auto& c : conjuncts) {
        (SideOf(*c, nl) == Side::kLeft ? left : above).push_back(std::move(c));
      }
      filter = on;
      break;
  }

  FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr new_left, Push(node.children[0], std::move(left)));
  FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr new_right, Push(node.children[1], std::move(right)));
  LogicalPlanPtr join = MakeJoin(
      std::move(new_left), std::move(new_right), join_type, std::move(left_keys),
      std::move(right_keys), expr::JoinConjunction(std::move(filter)), std::move(null_equals_null));
  return AddFilter(std::move(join), std::move(above));
}

Result<LogicalPlanPtr> PushScan(const LogicalPlanPtr& plan, Conjuncts conjuncts) {
  const LogicalPlan& node = *plan;
  // A scan that stops after a number of rows applies it before any filter.
  if (conjuncts.empty() || node.scan_limit) return AddFilter(plan, std::move(conjuncts));
  std::vector<ExprPtr> filters = node.filters;
  Conjuncts above;
  // The column ranges and IN lists an OR implies let the source prune by them; where it
  // cannot, they are dropped (the OR they come from stays).
  for (const ExprPtr& c : conjuncts) {
    for (ExprPtr& implied : ImpliedColumnRanges(c)) {
      if (Contains(conjuncts, *implied)) continue;
      ExprPtr over_source = expr::RemapColumns(implied, node.projection);
      if (node.source->SupportsFilter(*over_source) != TableSource::FilterPushdown::kUnsupported &&
          !Contains(filters, *over_source)) {
        filters.push_back(std::move(over_source));
      }
    }
  }
  for (ExprPtr& c : conjuncts) {
    ExprPtr over_source = expr::RemapColumns(c, node.projection);
    switch (node.source->SupportsFilter(*over_source)) {
      case TableSource::FilterPushdown::kExact:
        if (!Contains(filters, *over_source)) filters.push_back(std::move(over_source));
        break;
      case TableSource::FilterPushdown::kInexact:
        if (!Contains(filters, *over_source)) filters.push_back(std::move(over_source));
        above.push_back(std::move(c));
        break;
      case TableSource::FilterPushdown::kUnsupported:
        above.push_back(std::move(c));
        break;
    }
  }
  LogicalPlanPtr scan =
      filters.size() == node.filters.size()
          ? plan
          : MakeScan(node.source, node.projection, std::move(filters), node.scan_limit);
  return AddFilter(std::move(scan), std::move(above));
}

Result<LogicalPlanPtr> Push(const LogicalPlanPtr& plan, Conjuncts conjuncts) {
  switch (plan->kind) {
    case LogicalKind::kFilter:
      return PushFilter(*plan, std::move(conjuncts));
    case LogicalKind::kProjection:
      return PushProjection(plan, std::move(conjuncts));
    case LogicalKind::kSort: {
      FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr child, Push(plan->children[0], std::move(conjuncts)));
      return child == plan->children[0] ? plan : WithNewChildren(*plan, {child});
    }
    case LogicalKind::kAggregate:
      return PushAggregate(plan, std::move(conjuncts));
    case LogicalKind::kWindow:
      return PushWindow(plan, std::move(conjuncts));
    case LogicalKind::kUnnest:
      return PushUnnest(plan, std::move(conjuncts));
    case LogicalKind::kUnion:
      return PushUnion(plan, std::move(conjuncts));
    case LogicalKind::kJoin:
      return PushJoin(plan, std::move(conjuncts));
    case LogicalKind::kScan:
      return PushScan(plan, std::move(conjuncts));
    case LogicalKind::kLimit:
    case LogicalKind::kMaxOneRow:
    case LogicalKind::kValues:
    // A filter over a recursive query filters its result, not what each iteration reads.
    case LogicalKind::kRecursiveQuery:
    case LogicalKind::kWorkTableScan:
      return Stop(plan, std::move(conjuncts));
  }
  return Stop(plan, std::move(conjuncts));
}

}  // namespace

Result<LogicalPlanPtr> PushDownPredicates(const LogicalPlanPtr& plan) { return Push(plan, {}); }

}  // namespace floe::plan::internal
