// Projection pushdown. The columns each node must produce are computed top-down; scans
// read only those, projections and VALUES drop unused expressions, and join and UNION
// inputs are trimmed (by an inserted projection) to what the node uses, so unused
// columns do not fill hash tables or travel through exchanges. Nodes that pass their
// input's columns through (filter, sort, limit, window) may return a few more columns
// than asked (those their own expressions use); the parent maps them away. Aggregate
// calls and window calls are never dropped, so every node keeps its meaning, and the
// plan's output schema is unchanged.
//
// A node is never asked for zero columns when it has some: it keeps its narrowest
// column, so that row counts survive (count(*) over a scan reads one column).

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

namespace {

using expr::ExprPtr;

// A rewritten node: its output is the original node's columns `columns` (ascending
// original indices, a superset of what was asked), in that order.
struct Pruned {
  LogicalPlanPtr plan;
  std::vector<int> columns;
};

std::vector<int> AllColumns(const LogicalPlan& plan) {
  std::vector<int> out(static_cast<size_t>(plan.schema->num_fields()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int>(i);
  return out;
}

void Normalize(std::vector<int>* cols) {
  std::sort(cols->begin(), cols->end());
  cols->erase(std::unique(cols->begin(), cols->end()), cols->end());
}

void AddColumns(const expr::Expr& e, std::vector<int>* cols) {
  for (int c : expr::ReferencedColumns(e)) cols->push_back(c);
}

// The column to keep when none is needed: the first fixed-width one, else the first.
int NarrowestColumn(const Schema& schema) {
  for (int i = 0; i < schema.num_fields(); ++i) {
    const TypePtr& t = schema.field(i).type();
    if (t && (t->is_fixed_width() || t->id() == TypeId::kBoolean)) return i;
  }
  return 0;
}

// old column -> new position (or -1) for a pruned node.
std::vector<int> MappingOf(const Pruned& p, int old_width) {
  std::vector<int> m(static_cast<size_t>(old_width), -1);
  for (size_t i = 0; i < p.columns.size(); ++i)
    m[static_cast<size_t>(p.columns[i])] = static_cast<int>(i);
  return m;
}

std::vector<ExprPtr> RemapAll(const std::vector<ExprPtr>& exprs, const std::vector<int>& m) {
  std::vector<ExprPtr> out;
  out.reserve(exprs.size());
  for (const ExprPtr& e : exprs) out.push_back(expr::RemapColumns(e, m));
  return out;
}

std::vector<SortKey> RemapKeys(const std::vector<SortKey>& keys, const std::vector<int>& m) {
  std::vector<SortKey> out = keys;
  for (SortKey& k : out) k.expr = expr::RemapColumns(k.expr, m);
  return out;
}

ExprPtr RemapOptional(const ExprPtr& e, const std::vector<int>& m) {
  return e ? expr::RemapColumns(e, m) : nullptr;
}

std::vector<std::string> Names(const Schema& schema, size_t begin, size_t end) {
  std::vector<std::string> out;
  for (size_t i = begin; i < end; ++i) out.push_back(schema.field(static_cast<int>(i)).name());
  return out;
}

Result<Pruned> Prune(const LogicalPlanPtr& plan, std::vector<int> required);

// Prunes `plan` to exactly `required` (inserting a projection when it returns more).
Result<LogicalPlanPtr> PruneExactly(const LogicalPlanPtr& plan, std::vector<int> required) {
  Normalize(&required);
  if (required.empty() && plan->schema->num_fields() > 0) {
    required.push_back(NarrowestColumn(*plan->schema));
  }
  FLOE_ASSIGN_OR_RAISE(Pruned p, Prune(plan, required));
  if (p.columns == required) return p.plan;
  const std::vector<int> m = MappingOf(p, plan->schema->num_fields());
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (int c : required) {
    const Field& f = p.plan->schema->field(m[static_cast<size_t>(c)]);
    exprs.push_back(expr::Column(m[static_cast<size_t>(c)], f.name(), f.type(), f.nullable()));
    names.push_back(f.name());
  }
  return MakeProjection(p.plan, std::move(exprs), std::move(names));
}

Result<Pruned> PruneScan(const LogicalPlanPtr& plan, const std::vector<int>& required) {
  if (required.size() == plan->projection.size()) return Pruned{plan, required};
  std::vector<int> projection;
  for (int c : required) projection.push_back(plan->projection[static_cast<size_t>(c)]);
  return Pruned{MakeScan(plan->source, std::move(projection), plan->filters, plan->scan_limit),
                required};
}

Result<Pruned> PruneValues(const LogicalPlanPtr& plan, const std::vector<int>& required) {
  if (static_cast<int>(required.size()) == plan->schema->num_fields()) {
    return Pruned{plan, required};
  }
  std::vector<Field> fields;
  for (int c : required) fields.push_back(plan->schema->field(c));
  std::vector<std::vector<ExprPtr>> rows;
  for (const auto& row : plan->rows) {
    std::vector<ExprPtr> r;
    for (int c : required) r.push_back(row[static_cast<size_t>(c)]);
    rows.push_back(std::move(r));
  }
  return Pruned{MakeValues(std::make_shared<Schema>(std::move(fields)), std::move(rows)), required};
}

Result<Pruned> PruneProjection(const LogicalPlanPtr& plan, const std::vector<int>& required) {
  std::vector<int> child_required;
  for (int c : required) AddColumns(*plan->exprs[static_cast<size_t>(c)], &child_required);
  const LogicalPlanPtr& input = plan->children[0];
  FLOE_ASSIGN_OR_RAISE(Pruned child, Prune(input, child_required));
  if (child.plan == input && required.size() == plan->exprs.size()) {
    return Pruned{plan, required};
  }
  const std::vector<int> m = MappingOf(child, input->schema->num_fields());
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (int c : required) {
    exprs.push_back(expr::RemapColumns(plan->exprs[static_cast<size_t>(c)], m));
    names.push_back(plan->schema->field(c).name());
  }
  // A projection over one that only selects columns reads the columns directly.
  LogicalPlanPtr below = child.plan;
  if (below->kind == LogicalKind::kProjection &&
      std::all_of(below->exprs.begin(), below->exprs.end(),
                  [](const ExprPtr& e) { return e->kind == expr::ExprKind::kColumn; })) {
    for (ExprPtr& e : exprs) e = expr::SubstituteColumns(e, below->exprs);
    below = below->children[0];
  }
  return Pruned{MakeProjection(std::move(below), std::move(exprs), std::move(names)), required};
}

// Filter, Sort, Limit, MaxOneRow: the input's columns pass through; the node's own
// expressions add what they use.
Result<Pruned> PrunePassThrough(const LogicalPlanPtr& plan, std::vector<int> required) {
  if (plan->kind == LogicalKind::kFilter) AddColumns(*plan->predicate, &required);
  if (plan->kind == LogicalKind::kSort) {
    for (const SortKey& k : plan->sort_keys) AddColumns(*k.expr, &required);
  }
  const LogicalPlanPtr& input = plan->children[0];
  FLOE_ASSIGN_OR_RAISE(Pruned child, Prune(input, std::move(required)));
  if (child.plan == input) return Pruned{plan, child.columns};
  const std::vector<int> m = MappingOf(child, input->schema->num_fields());
  LogicalPlanPtr out;
  switch (plan->kind) {
    case LogicalKind::kFilter:
      out = MakeFilter(child.plan, expr::RemapColumns(plan->predicate, m));
      break;
    case LogicalKind::kSort:
      out = MakeSort(child.plan, RemapKeys(plan->sort_keys, m));
      break;
    case LogicalKind::kLimit:
      out = MakeLimit(child.plan, plan->offset, plan->fetch);
      break;
    default:
      out = MakeMaxOneRow(child.plan);
      break;
  }
  return Pruned{std::move(out), child.columns};
}

Result<Pruned> PruneAggregate(const LogicalPlanPtr& plan) {
  std::vector<int> child_required;
  for (const ExprPtr& g : plan->group_exprs) AddColumns(*g, &child_required);
  for (const AggregateCall& a : plan->aggregates) {
    for (const ExprPtr& e : a.args) AddColumns(*e, &child_required);
    if (a.filter) AddColumns(*a.filter, &child_required);
    for (const SortKey& k : a.order_by) AddColumns(*k.expr, &child_required);
  }
  const LogicalPlanPtr& input = plan->children[0];
  FLOE_ASSIGN_OR_RAISE(Pruned child, Prune(input, child_required));
  std::vector<int> all = AllColumns(*plan);
  if (child.plan == input) return Pruned{plan, all};
  const std::vector<int> m = MappingOf(child, input->schema->num_fields());
  std::vector<AggregateCall> calls = plan->aggregates;
  for (AggregateCall& a : calls) {
    a.args = RemapAll(a.args, m);
    a.filter = RemapOptional(a.filter, m);
    a.order_by = RemapKeys(a.order_by, m);
  }
  const size_t groups = plan->group_exprs.size();
  return Pruned{
      MakeAggregate(child.plan, RemapAll(plan->group_exprs, m), Names(*plan->schema, 0, groups),
                    std::move(calls), Names(*plan->schema, groups, plan->schema->fields().size())),
      all};
}

Result<Pruned> PruneWindow(const LogicalPlanPtr& plan, const std::vector<int>& required) {
  const LogicalPlanPtr& input = plan->children[0];
  const int inputs = input->schema->num_fields();
  std::vector<int> child_required;
  for (int c : required) {
    if (c < inputs) child_required.push_back(c);
  }
  for (const WindowCall& w : plan->windows) {
    for (const ExprPtr& e : w.args) AddColumns(*e, &child_required);
    for (const ExprPtr& e : w.partition_by) AddColumns(*e, &child_required);
    for (const SortKey& k : w.order_by) AddColumns(*k.expr, &child_required);
  }
  FLOE_ASSIGN_OR_RAISE(Pruned child, Prune(input, child_required));
  std::vector<int> columns = child.columns;
  for (size_t i = 0; i < plan->windows.size(); ++i) columns.push_back(inputs + static_cast<int>(i));
  if (child.plan == input) return Pruned{plan, columns};
  const std::vector<int> m = MappingOf(child, inputs);
  std::vector<WindowCall> calls = plan->windows;
  for (WindowCall& w : calls) {
    w.args = RemapAll(w.args, m);
    w.partition_by = RemapAll(w.partition_by, m);
    w.order_by = RemapKeys(w.order_by, m);
  }
  return Pruned{
      MakeWindow(child.plan, std::move(calls),
                 Names(*plan->schema, static_cast<size_t>(inputs), plan->schema->fields().size())),
      columns};
}

Result<Pruned> PruneUnnest(const LogicalPlanPtr& plan, const std::vector<int>& required) {
  const LogicalPlanPtr& input = plan->children[0];
  const int inputs = input->schema->num_fields();
  std::vector<int> child_required;
  for (int c : required) {
    if (c < inputs) child_required.push_back(c);
  }
  for (const ExprPtr& e : plan->exprs) AddColumns(*e, &child_required);
  FLOE_ASSIGN_OR_RAISE(Pruned child, Prune(input, child_required));
  std::vector<int> columns = child.columns;
  for (int i = inputs; i < plan->schema->num_fields(); ++i) columns.push_back(i);
  if (child.plan == input) return Pruned{plan, columns};
  const std::vector<int> m = MappingOf(child, inputs);
  return Pruned{
      MakeUnnest(child.plan, RemapAll(plan->exprs, m), plan->unnest_expand, plan->unnest_ordinality,
                 Names(*plan->schema, static_cast<size_t>(inputs), plan->schema->fields().size())),
      columns};
}

Result<Pruned> PruneJoin(const LogicalPlanPtr& plan, const std::vector<int>& required) {
  const LogicalPlanPtr& left_input = plan->children[0];
  const LogicalPlanPtr& right_input = plan->children[1];
  const int nl = left_input->schema->num_fields();
  const int nr = right_input->schema->num_fields();
  const JoinType type = plan->join_type;
  const bool has_right_output =
      type != JoinType::kSemi && type != JoinType::kAnti && type != JoinType::kMark;
  std::vector<int> left_required;
  std::vector<int> right_required;
  for (int c : required) {
    if (c < nl) {
      left_required.push_back(c);
    } else if (has_right_output) {
      right_required.push_back(c - nl);
    }
  }
  for (const ExprPtr& k : plan->left_keys) AddColumns(*k, &left_required);
  for (const ExprPtr& k : plan->right_keys) AddColumns(*k, &right_required);
  if (plan->join_filter) {
    for (int c : expr::ReferencedColumns(*plan->join_filter)) {
      (c < nl ? left_required : right_required).push_back(c < nl ? c : c - nl);
    }
  }
  Normalize(&left_required);
  Normalize(&right_required);
  if (left_required.empty() && nl > 0) {
    left_required.push_back(NarrowestColumn(*left_input->schema));
  }
  if (right_required.empty() && nr > 0) {
    right_required.push_back(NarrowestColumn(*right_input->schema));
  }

  FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr left, PruneExactly(left_input, left_required));
  FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr right, PruneExactly(right_input, right_required));

  // Output columns of the new join, as original join columns.
  std::vector<int> columns = left_required;
  if (has_right_output) {
    for (int c : right_required) columns.push_back(c + nl);
  } else if (type == JoinType::kMark) {
    columns.push_back(nl);
  }
  if (left == left_input && right == right_input) return Pruned{plan, AllColumns(*plan)};

  std::vector<int> left_map(static_cast<size_t>(nl), -1);
  for (size_t i = 0; i < left_required.size(); ++i) {
    left_map[static_cast<size_t>(left_required[i])] = static_cast<int>(i);
  }
  std::vector<int> right_map(static_cast<size_t>(nr), -1);
  for (size_t i = 0; i < right_required.size(); ++i) {
    right_map[static_cast<size_t>(right_required[i])] = static_cast<int>(i);
  }
  std::vector<int> both_map(static_cast<size_t>(nl + nr), -1);
  for (int c = 0; c < nl; ++c) both_map[static_cast<size_t>(c)] = left_map[static_cast<size_t>(c)];
  const int new_nl = static_cast<int>(left_required.size());
  for (int c = 0; c < nr; ++c) {
    const int m = right_map[static_cast<size_t>(c)];
    both_map[static_cast<size_t>(nl + c)] = m < 0 ? -1 : new_nl + m;
  }
  LogicalPlanPtr join =
      MakeJoin(std::move(left), std::move(right), type, RemapAll(plan->left_keys, left_map),
               RemapAll(plan->right_keys, right_map), RemapOptional(plan->join_filter, both_map),
               plan->null_equals_null);
  return Pruned{std::move(join), std::move(columns)};
}

Result<Pruned> PruneUnion(const LogicalPlanPtr& plan, std::vector<int> required) {
  // DISTINCT compares whole rows: every column is needed.
  if (!plan->set_all) required = AllColumns(*plan);
  std::vector<LogicalPlanPtr> children;
  bool changed = false;
  for (const auto& c : plan->children) {
    FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr n, PruneExactly(c, required));
    changed |= n != c;
    children.push_back(std::move(n));
  }
  if (!changed) return Pruned{plan, AllColumns(*plan)};
  Normalize(&required);
  if (required.empty() && plan->schema->num_fields() > 0) {
    required.push_back(NarrowestColumn(*plan->schema));
  }
  // The union takes its names from its first input, which keeps the original names.
  return Pruned{MakeUnion(std::move(children), plan->set_all), std::move(required)};
}

// Every column of a recursive query feeds the next iteration (its work table has them all):
// its terms keep their outputs, and only what lies inside them is pruned.
Result<Pruned> PruneRecursiveQuery(const LogicalPlanPtr& plan) {
  std::vector<LogicalPlanPtr> children;
  bool changed = false;
  for (const auto& c : plan->children) {
    FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr n, PruneExactly(c, AllColumns(*c)));
    changed |= n != c;
    children.push_back(std::move(n));
  }
  if (!changed) return Pruned{plan, AllColumns(*plan)};
  return Pruned{WithNewChildren(*plan, std::move(children)), AllColumns(*plan)};
}

Result<Pruned> Prune(const LogicalPlanPtr& plan, std::vector<int> required) {
  Normalize(&required);
  if (required.empty() && plan->schema->num_fields() > 0) {
    required.push_back(NarrowestColumn(*plan->schema));
  }
  switch (plan->kind) {
    case LogicalKind::kScan:
      return PruneScan(plan, required);
    case LogicalKind::kValues:
      return PruneValues(plan, required);
    case LogicalKind::kProjection:
      return PruneProjection(plan, required);
    case LogicalKind::kFilter:
    case LogicalKind::kSort:
    case LogicalKind::kLimit:
    case LogicalKind::kMaxOneRow:
      return PrunePassThrough(plan, std::move(required));
    case LogicalKind::kAggregate:
      return PruneAggregate(plan);
    case LogicalKind::kWindow:
      return PruneWindow(plan, required);
    case LogicalKind::kUnnest:
      return PruneUnnest(plan, required);
    case LogicalKind::kJoin:
      return PruneJoin(plan, required);
    case LogicalKind::kUnion:
      return PruneUnion(plan, std::move(required));
    case LogicalKind::kRecursiveQuery:
      return PruneRecursiveQuery(plan);
    case LogicalKind::kWorkTableScan:
      return Pruned{plan, AllColumns(*plan)};
  }
  return Pruned{plan, AllColumns(*plan)};
}

}  // namespace

Result<LogicalPlanPtr> PushDownProjections(const LogicalPlanPtr& plan) {
  std::vector<int> all = AllColumns(*plan);
  FLOE_ASSIGN_OR_RAISE(Pruned p, Prune(plan, all));
  if (p.columns != all) {
    return Status::Internal("projection pushdown lost output columns of {}", plan->ToString());
  }
  return p.plan;
}

}  // namespace floe::plan::internal
