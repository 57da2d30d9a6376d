#include "floe/plan/logical_plan.h"

#include <string>
#include <utility>
#include <vector>

#include "floe/plan/optimizer_internal.h"

namespace floe::plan {

namespace {

std::string JoinExprs(const std::vector<expr::ExprPtr>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i > 0) out += ", ";
    out += exprs[i] ? exprs[i]->ToString() : "<null>";
  }
  return out;
}

std::string JoinSortKeys(const std::vector<SortKey>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) out += ", ";
    out += keys[i].ToString();
  }
  return out;
}

std::string BoundToString(const WindowFrameBound& bound) {
  switch (bound.kind) {
    case WindowFrameBound::Kind::kUnboundedPreceding:
      return "UNBOUNDED PRECEDING";
    case WindowFrameBound::Kind::kPreceding:
      return std::to_string(bound.offset) + " PRECEDING";
    case WindowFrameBound::Kind::kCurrentRow:
      return "CURRENT ROW";
    case WindowFrameBound::Kind::kFollowing:
      return std::to_string(bound.offset) + " FOLLOWING";
    case WindowFrameBound::Kind::kUnboundedFollowing:
      return "UNBOUNDED FOLLOWING";
  }
  return "?";
}

/// Window functions that never return NULL.
bool WindowNeverNull(const WindowCall& call) {
  if (call.is_aggregate) {
    return call.aggregate.never_null;
  }
  return expr::WindowNeverNull(call.window_op);
}

bool AggregateNeverNull(const AggregateCall& call) { return call.function.never_null; }

std::string ProjectionItem(const expr::ExprPtr& e, const std::string& name) {
  std::string s = e->ToString();
  if (e->kind == expr::ExprKind::kColumn && e->name == name) return s;
  return s + " AS " + name;
}

void AppendNode(const LogicalPlan& node, int depth, std::string* out) {
  out->append(static_cast<size_t>(depth) * 2, ' ');
  const Schema& schema = *node.schema;
  switch (node.kind) {
    case LogicalKind::kScan: {
      *out += "Scan: " + node.source->display_name();
      *out += " projection=[";
      const Schema& source_schema = *node.source->schema();
      for (size_t i = 0; i < node.projection.size(); ++i) {
        if (i > 0) *out += ", ";
        *out += source_schema.field(node.projection[i]).name();
      }
      *out += "]";
      if (!node.filters.empty()) *out += " filters=[" + JoinExprs(node.filters) + "]";
      if (node.scan_limit) *out += " limit=" + std::to_string(*node.scan_limit);
      break;
    }
    case LogicalKind::kValues: {
      *out += "Values:";
      for (size_t r = 0; r < node.rows.size(); ++r) {
        *out += r == 0 ? " (" : ", (";
        *out += JoinExprs(node.rows[r]) + ")";
      }
      break;
    }
    case LogicalKind::kProjection: {
      *out += "Projection: ";
      for (size_t i = 0; i < node.exprs.size(); ++i) {
        if (i > 0) *out += ", ";
        *out += ProjectionItem(node.exprs[i], schema.field(static_cast<int>(i)).name());
      }
      break;
    }
    case LogicalKind::kFilter:
      *out += "Filter: " + node.predicate->ToString();
      break;
    case LogicalKind::kAggregate: {
      *out += "Aggregate: groups=[";
      for (size_t i = 0; i < node.group_exprs.size(); ++i) {
        if (i > 0) *out += ", ";
        *out += ProjectionItem(node.group_exprs[i], schema.field(static_cast<int>(i)).name());
      }
      *out += "] aggregates=[";
      for (size_t i = 0; i < node.aggregates.size(); ++i) {
        if (i > 0) *out += ", ";
        *out += node.aggregates[i].ToString() + " AS " +
                schema.field(static_cast<int>(node.group_exprs.size() + i)).name();
      }
      *out += "]";
      break;
    }
    case LogicalKind::kWindow: {
      *out += "Window: ";
      size_t base = static_cast<size_t>(schema.num_fields()) - node.windows.size();
      for (size_t i = 0; i < node.windows.size(); ++i) {
        if (i > 0) *out += ", ";
        *out +=
            node.windows[i].ToString() + " AS " + schema.field(static_cast<int>(base + i)).name();
      }
      break;
    }
    case LogicalKind::kUnnest: {
      *out += "Unnest: ";
      int at = node.children.empty() ? 0 : node.children[0]->schema->num_fields();
      for (size_t i = 0; i < node.exprs.size(); ++i) {
        if (i > 0) *out += ", ";
        *out += node.exprs[i]->ToString() + " AS ";
        const bool expand = i < node.unnest_expand.size() && node.unnest_expand[i];
        const int width = expand ? node.exprs[i]->type->field(0).type()->num_fields() : 1;
        if (width != 1) *out += "(";
        for (int j = 0; j < width; ++j) {
          if (j > 0) *out += ", ";
          *out += schema.field(at++).name();
        }
        if (width != 1) *out += ")";
      }
      if (node.unnest_ordinality) *out += " WITH ORDINALITY AS " + schema.field(at).name();
      break;
    }
    case LogicalKind::kJoin: {
      *out += "Join(";
      *out += JoinTypeName(node.join_type);
      *out += "):";
      if (!node.left_keys.empty()) {
        *out += " keys=[";
        for (size_t i = 0; i < node.left_keys.size(); ++i) {
          if (i > 0) *out += ", ";
          bool nen = i < node.null_equals_null.size() && node.null_equals_null[i];
          *out += node.left_keys[i]->ToString() + (nen ? " <=> " : " = ") +
                  node.right_keys[i]->ToString();
        }
        *out += "]";
      }
      if (node.join_filter) *out += " filter=" + node.join_filter->ToString();
      if (node.left_keys.empty() && !node.join_filter) *out += " cross";
      break;
    }
    case LogicalKind::kSort:
      *out += "Sort: " + JoinSortKeys(node.sort_keys);
      break;
    case LogicalKind::kLimit:
      *out += "Limit: offset=" + std::to_string(node.offset) +
              " fetch=" + (node.fetch ? std::to_string(*node.fetch) : std::string("all"));
      break;
    case LogicalKind::kUnion:
      *out += node.set_all ? "Union: all" : "Union: distinct";
      break;
    case LogicalKind::kMaxOneRow:
      *out += "MaxOneRow";
      break;
    case LogicalKind::kRecursiveQuery:
      *out += "RecursiveQuery: " + node.work_table_name + " (work table " +
              std::to_string(node.work_table_id) + "), " + (node.set_all ? "UNION ALL" : "UNION");
      break;
    case LogicalKind::kWorkTableScan:
      *out += "WorkTableScan: " + node.work_table_name + " (work table " +
              std::to_string(node.work_table_id) + ")";
      break;
  }
  *out += "\n";
  for (const auto& child : node.children) AppendNode(*child, depth + 1, out);
}

std::shared_ptr<LogicalPlan> NewNode(LogicalKind kind, std::vector<LogicalPlanPtr> children) {
  auto node = std::make_shared<LogicalPlan>();
  node->kind = kind;
  node->children = std::move(children);
  return node;
}

SchemaPtr JoinSchema(const Schema& left, const Schema& right, JoinType type) {
  std::vector<Field> fields;
  bool left_nullable = type == JoinType::kRight || type == JoinType::kFull;
  bool right_nullable = type == JoinType::kLeft || type == JoinType::kFull;
  for (const Field& f : left.fields()) {
    fields.push_back(left_nullable ? f.WithNullable(true) : f);
  }
  switch (type) {
    case JoinType::kSemi:
    case JoinType::kAnti:
    case JoinType::kNullAwareAnti:
      break;
    case JoinType::kMark:
      fields.emplace_back("mark", Boolean(), true);
      break;
    default:
      for (const Field& f : right.fields()) {
        fields.push_back(right_nullable ? f.WithNullable(true) : f);
      }
      break;
  }
  return std::make_shared<Schema>(std::move(fields));
}

SchemaPtr UnionSchema(const std::vector<LogicalPlanPtr>& children) {
  std::vector<Field> fields = children.front()->schema->fields();
  for (size_t c = 1; c < children.size(); ++c) {
    const Schema& s = *children[c]->schema;
    for (int i = 0; i < s.num_fields() && i < static_cast<int>(fields.size()); ++i) {
      if (s.field(i).nullable())
        fields[static_cast<size_t>(i)] = fields[static_cast<size_t>(i)].WithNullable(true);
    }
  }
  return std::make_shared<Schema>(std::move(fields));
}

}  // namespace

std::string_view JoinTypeName(JoinType type) {
  switch (type) {
    case JoinType::kInner:
      return "inner";
    case JoinType::kLeft:
      return "left";
    case JoinType::kRight:
      return "right";
    case JoinType::kFull:
      return "full";
    case JoinType::kSemi:
      return "semi";
    case JoinType::kAnti:
      return "anti";
    case JoinType::kMark:
      return "mark";
    case JoinType::kRightSemi:
      return "right semi";
    case JoinType::kRightAnti:
      return "right anti";
    case JoinType::kNullAwareAnti:
      return "null-aware anti";
  }
  return "?";
}

std::string SortKey::ToString() const {
  std::string out = expr->ToString();
  out += ascending ? " ASC" : " DESC";
  out += nulls_first ? " NULLS FIRST" : " NULLS LAST";
  return out;
}

std::string AggregateCall::ToString() const {
  std::string out = function.name + "(";
  if (function.distinct) out += "DISTINCT ";
  out += JoinExprs(args);
  if (!order_by.empty()) out += " ORDER BY " + JoinSortKeys(order_by);
  out += ")";
  if (filter) out += " FILTER (WHERE " + filter->ToString() + ")";
  return out;
}

std::string WindowCall::ToString() const {
  std::string out = (is_aggregate ? aggregate.name : function) + "(";
  if (is_aggregate && aggregate.distinct) out += "DISTINCT ";
  out += JoinExprs(args) + ") OVER (";
  bool space = false;
  if (!partition_by.empty()) {
    out += "PARTITION BY " + JoinExprs(partition_by);
    space = true;
  }
  if (!order_by.empty()) {
    if (space) out += " ";
    out += "ORDER BY " + JoinSortKeys(order_by);
    space = true;
  }
  if (space) out += " ";
  switch (frame.mode) {
    case WindowFrame::Mode::kRows:
      out += "ROWS";
      break;
    case WindowFrame::Mode::kRange:
      out += "RANGE";
      break;
    case WindowFrame::Mode::kGroups:
      out += "GROUPS";
      break;
  }
  out += " BETWEEN " + BoundToString(frame.start) + " AND " + BoundToString(frame.end) + ")";
  return out;
}

std::string LogicalPlan::ToString() const {
  std::string out;
  AppendNode(*this, 0, &out);
  return out;
}

LogicalPlanPtr MakeScan(TableSourcePtr source, std::vector<int> projection,
                        std::vector<expr::ExprPtr> filters, std::optional<int64_t> limit) {
  auto node = NewNode(LogicalKind::kScan, {});
  std::vector<Field> fields;
  for (int index : projection) fields.push_back(source->schema()->field(index));
  node->schema = std::make_shared<Schema>(std::move(fields));
  node->source = std::move(source);
  node->projection = std::move(projection);
  node->filters = std::move(filters);
  node->scan_limit = limit;
  return node;
}

LogicalPlanPtr MakeValues(SchemaPtr schema, std::vector<std::vector<expr::ExprPtr>> rows) {
  auto node = NewNode(LogicalKind::kValues, {});
  node->schema = std::move(schema);
  node->rows = std::move(rows);
  return node;
}

LogicalPlanPtr MakeProjection(LogicalPlanPtr input, std::vector<expr::ExprPtr> exprs,
                              std::vector<std::string> names) {
  auto node = NewNode(LogicalKind::kProjection, {std::move(input)});
  std::vector<Field> fields;
  for (size_t i = 0; i < exprs.size(); ++i) {
    fields.emplace_back(names[i], exprs[i]->type, exprs[i]->nullable);
  }
  node->schema = std::make_shared<Schema>(std::move(fields));
  node->exprs = std::move(exprs);
  return node;
}

LogicalPlanPtr MakeFilter(LogicalPlanPtr input, expr::ExprPtr predicate) {
  auto node = NewNode(LogicalKind::kFilter, {input});
  node->schema = input->schema;
  node->predicate = std::move(predicate);
  return node;
}

LogicalPlanPtr MakeAggregate(LogicalPlanPtr input, std::vector<expr::ExprPtr> group_exprs,
                             std::vector<std::string> group_names,
                             std::vector<AggregateCall> aggregates,
                             std::vector<std::string> aggregate_names) {
  auto node = NewNode(LogicalKind::kAggregate, {std::move(input)});
  std::vector<Field> fields;
  for (size_t i = 0; i < group_exprs.size(); ++i) {
    fields.emplace_back(group_names[i], group_exprs[i]->type, group_exprs[i]->nullable);
  }
  for (size_t i = 0; i < aggregates.size(); ++i) {
    fields.emplace_back(aggregate_names[i], aggregates[i].function.return_type,
                        !AggregateNeverNull(aggregates[i]));
  }
  node->schema = std::make_shared<Schema>(std::move(fields));
  node->group_exprs = std::move(group_exprs);
  node->aggregates = std::move(aggregates);
  return node;
}

LogicalPlanPtr MakeWindow(LogicalPlanPtr input, std::vector<WindowCall> windows,
                          std::vector<std::string> names) {
  auto node = NewNode(LogicalKind::kWindow, {input});
  std::vector<Field> fields = input->schema->fields();
  for (size_t i = 0; i < windows.size(); ++i) {
    fields.emplace_back(names[i], windows[i].type, !WindowNeverNull(windows[i]));
  }
  node->schema = std::make_shared<Schema>(std::move(fields));
  node->windows = std::move(windows);
  return node;
}

std::vector<Field> UnnestOutputFields(const std::vector<expr::ExprPtr>& lists,
                                      const std::vector<bool>& expand, bool ordinality,
                                      const std::vector<std::string>& names) {
  std::vector<Field> fields;
  size_t name = 0;
  auto next_name = [&]() { return name < names.size() ? names[name++] : std::string(); };
  for (size_t i = 0; i < lists.size(); ++i) {
    const TypePtr& element = lists[i]->type->field(0).type();
    if (i < expand.size() && expand[i] && element->id() == TypeId::kStruct) {
      for (const Field& f : element->fields()) fields.emplace_back(next_name(), f.type(), true);
    } else {
      // Past the end of a shorter list the element is NULL.
      fields.emplace_back(next_name(), element, true);
    }
  }
  if (ordinality) fields.emplace_back(next_name(), Int64(), false);
  return fields;
}

LogicalPlanPtr MakeUnnest(LogicalPlanPtr input, std::vector<expr::ExprPtr> lists,
                          std::vector<bool> expand, bool ordinality,
                          std::vector<std::string> names) {
  auto node = NewNode(LogicalKind::kUnnest, {input});
  std::vector<Field> fields = input->schema->fields();
  for (Field& f : UnnestOutputFields(lists, expand, ordinality, names)) {
    fields.push_back(std::move(f));
  }
  node->schema = std::make_shared<Schema>(std::move(fields));
  expand.resize(lists.size(), false);
  node->exprs = std::move(lists);
  node->unnest_expand = std::move(expand);
  node->unnest_ordinality = ordinality;
  return node;
}

LogicalPlanPtr MakeJoin(LogicalPlanPtr left, LogicalPlanPtr right, JoinType type,
                        std::vector<expr::ExprPtr> left_keys, std::vector<expr::ExprPtr> right_keys,
                        expr::ExprPtr filter, std::vector<bool> null_equals_null) {
  auto node = NewNode(LogicalKind::kJoin, {left, right});
  node->schema = JoinSchema(*left->schema, *right->schema, type);
  node->join_type = type;
  null_equals_null.resize(left_keys.size(), false);
  node->left_keys = std::move(left_keys);
  node->right_keys = std::move(right_keys);
  node->join_filter = std::move(filter);
  node->null_equals_null = std::move(null_equals_null);
  return node;
}

LogicalPlanPtr MakeSort(LogicalPlanPtr input, std::vector<SortKey> keys) {
  auto node = NewNode(LogicalKind::kSort, {input});
  node->schema = input->schema;
  node->sort_keys = std::move(keys);
  return node;
}

int64_t LimitRowsNeeded(int64_t offset, int64_t fetch) {
  int64_t out = 0;
  if (__builtin_add_overflow(offset, fetch, &out)) return INT64_MAX;
  return out;
}

LogicalPlanPtr MakeLimit(LogicalPlanPtr input, int64_t offset, std::optional<int64_t> fetch) {
  auto node = NewNode(LogicalKind::kLimit, {input});
  node->schema = input->schema;
  node->offset = offset;
  node->fetch = fetch;
  return node;
}

LogicalPlanPtr MakeUnion(std::vector<LogicalPlanPtr> children, bool all) {
  SchemaPtr schema = UnionSchema(children);
  auto node = NewNode(LogicalKind::kUnion, std::move(children));
  node->schema = std::move(schema);
  node->set_all = all;
  return node;
}

LogicalPlanPtr MakeMaxOneRow(LogicalPlanPtr input) {
  auto node = NewNode(LogicalKind::kMaxOneRow, {input});
  node->schema = input->schema;
  return node;
}

LogicalPlanPtr MakeRecursiveQuery(LogicalPlanPtr static_term, LogicalPlanPtr recursive_term,
                                  bool all, int work_table_id, std::string name, SchemaPtr schema) {
  auto node =
      NewNode(LogicalKind::kRecursiveQuery, {std::move(static_term), std::move(recursive_term)});
  node->schema = std::move(schema);
  node->set_all = all;
  node->work_table_id = work_table_id;
  node->work_table_name = std::move(name);
  return node;
}

LogicalPlanPtr MakeWorkTableScan(int work_table_id, std::string name, SchemaPtr schema) {
  auto node = NewNode(LogicalKind::kWorkTableScan, {});
  node->schema = std::move(schema);
  node->work_table_id = work_table_id;
  node->work_table_name = std::move(name);
  return node;
}

LogicalPlanPtr WithNewChildren(const LogicalPlan& node, std::vector<LogicalPlanPtr> children) {
  auto copy = std::make_shared<LogicalPlan>(node);
  copy->children = std::move(children);
  switch (node.kind) {
    case LogicalKind::kScan:
    case LogicalKind::kValues:
    case LogicalKind::kProjection:
    case LogicalKind::kAggregate:
    case LogicalKind::kRecursiveQuery:
    case LogicalKind::kWorkTableScan:
      // The schema derives from the node's own expressions, or is the node's own; keep it
      // (names included).
      break;
    case LogicalKind::kFilter:
    case LogicalKind::kSort:
    case LogicalKind::kLimit:
    case LogicalKind::kMaxOneRow:
      copy->schema = copy->children.front()->schema;
      break;
    case LogicalKind::kWindow: {
      std::vector<Field> fields = copy->children.front()->schema->fields();
      const Schema& old = *node.schema;
      for (size_t i = 0; i < node.windows.size(); ++i) {
        fields.push_back(old.field(old.num_fields() - static_cast<int>(node.windows.size()) +
                                   static_cast<int>(i)));
      }
      copy->schema = std::make_shared<Schema>(std::move(fields));
      break;
    }
    case LogicalKind::kUnnest: {
      std::vector<Field> fields = copy->children.front()->schema->fields();
      const Schema& old = *node.schema;
      const int added = old.num_fields() - node.children.front()->schema->num_fields();
      for (int i = old.num_fields() - added; i < old.num_fields(); ++i) {
        fields.push_back(old.field(i));
      }
      copy->schema = std::make_shared<Schema>(std::move(fields));
      break;
    }
    case LogicalKind::kJoin:
      copy->schema =
          JoinSchema(*copy->children[0]->schema, *copy->children[1]->schema, node.join_type);
      break;
    case LogicalKind::kUnion:
      copy->schema = UnionSchema(copy->children);
      break;
  }
  return copy;
}

namespace {

// kInternal when `e` refers to a column outside [0, width).
Status CheckColumns(const expr::ExprPtr& e, int width, const LogicalPlan& node,
                    std::string_view what) {
  if (e == nullptr) return Status::OK();
  for (int c : expr::ReferencedColumns(*e)) {
    if (c < 0 || c >= width) {
      return Status::Internal(
          "invalid plan: {} of {} refers to column #{} of an input of {} "
          "columns",
          what, node.ToString().substr(0, node.ToString().find('\n')), c, width);
    }
  }
  return Status::OK();
}

size_t ChildrenOf(LogicalKind kind) {
  switch (kind) {
    case LogicalKind::kScan:
    case LogicalKind::kValues:
    case LogicalKind::kWorkTableScan:
      return 0;
    case LogicalKind::kJoin:
    case LogicalKind::kRecursiveQuery:
      return 2;
    default:
      return 1;
  }
}

}  // namespace

namespace {

bool SameExpr(const expr::ExprPtr& a, const expr::ExprPtr& b) {
  if (a == nullptr || b == nullptr) return a == b;
  return !expr::IsVolatile(*a) && a->Equals(*b);
}

bool SameExprs(const std::vector<expr::ExprPtr>& a, const std::vector<expr::ExprPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameExpr(a[i], b[i])) return false;
  }
  return true;
}

bool SameSortKeys(const std::vector<SortKey>& a, const std::vector<SortKey>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].ascending != b[i].ascending || a[i].nulls_first != b[i].nulls_first ||
        !SameExpr(a[i].expr, b[i].expr)) {
      return false;
    }
  }
  return true;
}

}  // namespace

namespace internal {

bool SameAggregate(const AggregateCall& a, const AggregateCall& b) {
  return a.function.name == b.function.name && a.function.distinct == b.function.distinct &&
         a.function.return_type->Equals(*b.function.return_type) && SameExprs(a.args, b.args) &&
         SameExpr(a.filter, b.filter) && SameSortKeys(a.order_by, b.order_by);
}

}  // namespace internal

namespace {

// The node's own parameters (not its children) are the same.
bool SameNode(const LogicalPlan& a, const LogicalPlan& b) {
  switch (a.kind) {
    case LogicalKind::kScan:
      return (a.source == b.source || a.source->SameSource(*b.source)) &&
             a.projection == b.projection && SameExprs(a.filters, b.filters) &&
             a.scan_limit == b.scan_limit;
    case LogicalKind::kValues:
      if (a.rows.size() != b.rows.size()) return false;
      for (size_t r = 0; r < a.rows.size(); ++r) {
        if (!SameExprs(a.rows[r], b.rows[r])) return false;
      }
      return true;
    case LogicalKind::kProjection:
      return SameExprs(a.exprs, b.exprs);
    case LogicalKind::kFilter:
      return SameExpr(a.predicate, b.predicate);
    case LogicalKind::kAggregate:
      if (!SameExprs(a.group_exprs, b.group_exprs) || a.aggregates.size() != b.aggregates.size()) {
        return false;
      }
      for (size_t i = 0; i < a.aggregates.size(); ++i) {
        if (!internal::SameAggregate(a.aggregates[i], b.aggregates[i])) return false;
      }
      return true;
    case LogicalKind::kJoin:
      return a.join_type == b.join_type && SameExprs(a.left_keys, b.left_keys) &&
             SameExprs(a.right_keys, b.right_keys) && SameExpr(a.join_filter, b.join_filter) &&
             a.null_equals_null == b.null_equals_null;
    case LogicalKind::kSort:
      return SameSortKeys(a.sort_keys, b.sort_keys);
    case LogicalKind::kLimit:
      return a.offset == b.offset && a.fetch == b.fetch;
    case LogicalKind::kUnion:
      return a.set_all == b.set_all;
    case LogicalKind::kMaxOneRow:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool SameSubtree(const LogicalPlan& a, const LogicalPlan& b) {
  if (a.kind != b.kind || a.children.size() != b.children.size() || !a.schema->Equals(*b.schema) ||
      !SameNode(a, b)) {
    return false;
  }
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (!SameSubtree(*a.children[i], *b.children[i])) return false;
  }
  return true;
}

bool Repeatable(const LogicalPlan& plan) { return SameSubtree(plan, plan); }

Status ValidatePlan(const LogicalPlan& plan) {
  const size_t want = ChildrenOf(plan.kind);
  if (plan.kind == LogicalKind::kUnion ? plan.children.size() < 2 : plan.children.size() != want) {
    return Status::Internal("invalid plan: a {} node with {} inputs",
                            plan.ToString().substr(0, plan.ToString().find(':')),
                            plan.children.size());
  }
  for (const LogicalPlanPtr& child : plan.children) {
    if (child == nullptr) return Status::Internal("invalid plan: a missing input");
    FLOE_RETURN_NOT_OK(ValidatePlan(*child));
  }
  const int in = plan.children.empty() ? 0 : plan.children[0]->schema->num_fields();
  switch (plan.kind) {
    case LogicalKind::kScan: {
      const int source = plan.source->schema()->num_fields();
      for (int c : plan.projection) {
        if (c < 0 || c >= source) {
          return Status::Internal("invalid plan: scan of {} reads column #{} of {}",
                                  plan.source->display_name(), c, source);
        }
      }
      for (const expr::ExprPtr& f : plan.filters) {
        FLOE_RETURN_NOT_OK(CheckColumns(f, source, plan, "a filter"));
      }
      break;
    }
    case LogicalKind::kValues:
      for (const auto& row : plan.rows) {
        for (const expr::ExprPtr& e : row) FLOE_RETURN_NOT_OK(CheckColumns(e, 0, plan, "a value"));
      }
      break;
    case LogicalKind::kProjection:
      for (const expr::ExprPtr& e : plan.exprs) {
        FLOE_RETURN_NOT_OK(CheckColumns(e, in, plan, "an expression"));
      }
      break;
    case LogicalKind::kFilter:
      FLOE_RETURN_NOT_OK(CheckColumns(plan.predicate, in, plan, "the predicate"));
      break;
    case LogicalKind::kAggregate:
      for (const expr::ExprPtr& e : plan.group_exprs) {
        FLOE_RETURN_NOT_OK(CheckColumns(e, in, plan, "a group key"));
      }
      for (const AggregateCall& a : plan.aggregates) {
        for (const expr::ExprPtr& e : a.args) {
          FLOE_RETURN_NOT_OK(CheckColumns(e, in, plan, "an aggregate argument"));
        }
        FLOE_RETURN_NOT_OK(CheckColumns(a.filter, in, plan, "an aggregate filter"));
        for (const SortKey& k : a.order_by) {
          FLOE_RETURN_NOT_OK(CheckColumns(k.expr, in, plan, "an aggregate order"));
        }
      }
      break;
    case LogicalKind::kWindow:
      for (const WindowCall& w : plan.windows) {
        for (const expr::ExprPtr& e : w.args) {
          FLOE_RETURN_NOT_OK(CheckColumns(e, in, plan, "a window argument"));
        }
        for (const expr::ExprPtr& e : w.partition_by) {
          FLOE_RETURN_NOT_OK(CheckColumns(e, in, plan, "a window partition"));
        }
        for (const SortKey& k : w.order_by) {
          FLOE_RETURN_NOT_OK(CheckColumns(k.expr, in, plan, "a window order"));
        }
      }
      break;
    case LogicalKind::kJoin: {
      const int right = plan.children[1]->schema->num_fields();
      if (plan.left_keys.size() != plan.right_keys.size()) {
        return Status::Internal("invalid plan: a join with {} left and {} right keys",
                                plan.left_keys.size(), plan.right_keys.size());
      }
      for (const expr::ExprPtr& e : plan.left_keys) {
        FLOE_RETURN_NOT_OK(CheckColumns(e, in, plan, "a left key"));
      }
      for (const expr::ExprPtr& e : plan.right_keys) {
        FLOE_RETURN_NOT_OK(CheckColumns(e, right, plan, "a right key"));
      }
      FLOE_RETURN_NOT_OK(CheckColumns(plan.join_filter, in + right, plan, "the join filter"));
      break;
    }
    case LogicalKind::kSort:
      for (const SortKey& k : plan.sort_keys) {
        FLOE_RETURN_NOT_OK(CheckColumns(k.expr, in, plan, "a sort key"));
      }
      break;
    case LogicalKind::kUnion:
      for (const LogicalPlanPtr& child : plan.children) {
        if (child->schema->num_fields() != in) {
          return Status::Internal("invalid plan: union inputs of {} and {} columns", in,
                                  child->schema->num_fields());
        }
      }
      break;
    case LogicalKind::kUnnest:
      for (const expr::ExprPtr& e : plan.exprs) {
        FLOE_RETURN_NOT_OK(CheckColumns(e, in, plan, "an unnested list"));
        if (e->type->id() != TypeId::kList) {
          return Status::Internal("invalid plan: unnest of {} of type {}", e->ToString(),
                                  e->type->ToString());
        }
      }
      break;
    case LogicalKind::kRecursiveQuery:
      for (const LogicalPlanPtr& child : plan.children) {
        if (child->schema->num_fields() != plan.schema->num_fields()) {
          return Status::Internal("invalid plan: a recursive query of {} columns over a term of {}",
                                  plan.schema->num_fields(), child->schema->num_fields());
        }
      }
      break;
    case LogicalKind::kLimit:
    case LogicalKind::kMaxOneRow:
    case LogicalKind::kWorkTableScan:
      break;
  }
  return Status::OK();
}

}  // namespace floe::plan
