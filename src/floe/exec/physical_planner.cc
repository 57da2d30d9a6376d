#include "floe/exec/physical_planner.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/exec/aggregate/aggregate_exec.h"
#include "floe/exec/filter_exec.h"
#include "floe/exec/join/hash_join_exec.h"
#include "floe/exec/join/nested_loop_join_exec.h"
#include "floe/exec/limit_exec.h"
#include "floe/exec/max_one_row_exec.h"
#include "floe/exec/projection_exec.h"
#include "floe/exec/recursive_query_exec.h"
#include "floe/exec/repartition_exec.h"
#include "floe/exec/sort/sort_exec.h"
#include "floe/exec/sort/sort_preserving_merge_exec.h"
#include "floe/exec/table_provider.h"
#include "floe/exec/union_exec.h"
#include "floe/exec/unnest_exec.h"
#include "floe/exec/values_exec.h"
#include "floe/exec/window/window_exec.h"
#include "floe/exec/work_table_scan_exec.h"
#include "floe/expr/physical_expr.h"
#include "floe/plan/optimizer.h"

namespace floe::exec {

// ---------------------------------------------------------------------------------------
// The planner

namespace {

using plan::LogicalKind;
using plan::LogicalPlan;
using plan::LogicalPlanPtr;

Result<std::vector<expr::PhysicalExprPtr>> CompileAll(const std::vector<expr::ExprPtr>& exprs,
                                                      const SchemaPtr& schema) {
  std::vector<expr::PhysicalExprPtr> out;
  out.reserve(exprs.size());
  for (const auto& e : exprs) {
    FLOE_ASSIGN_OR_RAISE(expr::PhysicalExprPtr compiled, expr::Compile(e, schema));
    out.push_back(std::move(compiled));
  }
  return out;
}

Result<Ordering> CompileOrdering(const std::vector<plan::SortKey>& keys, const SchemaPtr& schema) {
  Ordering out;
  for (const plan::SortKey& key : keys) {
    PhysicalSortExpr sort;
    FLOE_ASSIGN_OR_RAISE(sort.expr, expr::Compile(key.expr, schema));
    sort.descending = !key.ascending;
    sort.nulls_first = key.nulls_first;
    out.push_back(std::move(sort));
  }
  return out;
}

// Estimates the planner weighs are capped at plan::kMaxEstimate (rows or bytes), so that
// its sums and products of them stay within int64 (an exact count of a generate_series may
// be near 2^63).
std::optional<int64_t> Capped(std::optional<int64_t> estimate) {
  if (estimate) return std::min(*estimate, plan::kMaxEstimate);
  return estimate;
}

// Estimated bytes of a relation, or nullopt when nothing is known.
std::optional<int64_t> EstimatedBytes(const LogicalPlan& node) {
  plan::Statistics stats = plan::EstimateStatistics(node);
  if (stats.total_bytes) return Capped(stats.total_bytes);
  if (!stats.row_count) return std::nullopt;
  int64_t width = 0;
  for (const Field& field : node.schema->fields()) {
    const int w = field.type()->byte_width();
    width += w > 0 ? w : 16;
  }
  return Capped(Capped(stats.row_count).value() *
                std::min<int64_t>(std::max<int64_t>(width, 1), 1 << 14));
}

// A semi / anti / left join builds its table on the preserved side only when the other side
// has at least this many rows: below it, a table of the other side is cheap and saves
// repartitioning the preserved side.
constexpr int64_t kPreservedBuildMinRows = 100000;

// A broadcast join's estimated build side takes at most this share of memory_limit.
constexpr int64_t kBroadcastBudgetDivisor = 8;
// ... and its largest possible build side (see plan::MaxRows) at most this share.
constexpr int64_t kBroadcastBoundDivisor = 2;
// What a hash table takes per build row beyond the row's values (the accounting of
// HashJoinExec's build side: key ids, the row map, key slots at half load).
constexpr int64_t kHashTableBytesPerRow = 56;

std::optional<int64_t> EstimatedRows(const LogicalPlan& node) {
  return Capped(plan::EstimateStatistics(node).row_count);
}

// True when a join that keeps every left row (left, semi, anti) should build its table on
// the left: the left side has clearly fewer estimated rows and the right side is not small.
bool PreservedSideBuilds(const LogicalPlan& left, const LogicalPlan& right) {
  std::optional<int64_t> lr = EstimatedRows(left);
  std::optional<int64_t> rr = EstimatedRows(right);
  return lr && rr && *lr * 2 <= *rr && *rr >= kPreservedBuildMinRows;
}

class Planner {
 public:
  explicit Planner(const SessionConfig& config, bool share = true)
      : config_(config), share_(share) {}

  // `fetch` is the number of rows a LIMIT above needs (passed through projections down
  // to a sort, which keeps only that many).
  Result<PlanPtr> Plan(const LogicalPlanPtr& node, std::optional<int64_t> fetch = std::nullopt) {
    // An aggregation or join the plan holds twice (a WITH item referenced twice) is planned
    // once: both places get the same node, and the stage planner runs the stages below it
    // once for both (its exchange outputs are read by every consumer).
    const bool shareable =
        share_ && (node->kind == LogicalKind::kAggregate || node->kind == LogicalKind::kJoin);
    if (shareable) {
      for (const auto& [logical, physical] : shared_) {
        if (plan::SameSubtree(*logical, *node)) return physical;
      }
      FLOE_ASSIGN_OR_RAISE(PlanPtr planned, PlanNode(node, fetch));
      shared_.emplace_back(node, planned);
      return planned;
    }
    return PlanNode(node, fetch);
  }

 private:
  Result<PlanPtr> PlanNode(const LogicalPlanPtr& node, std::optional<int64_t> fetch) {
    switch (node->kind) {
      case LogicalKind::kScan:
        return PlanScan(*node);
      case LogicalKind::kValues:
        return PlanValues(*node);
      case LogicalKind::kProjection: {
        FLOE_ASSIGN_OR_RAISE(PlanPtr input, Plan(node->children[0], fetch));
        FLOE_ASSIGN_OR_RAISE(auto exprs, CompileAll(node->exprs, input->schema()));
        return ProjectionExec::Make(std::move(exprs), FieldNames(*node->schema), input);
      }
      case LogicalKind::kFilter: {
        FLOE_ASSIGN_OR_RAISE(std::optional<PlanPtr> not_in, PlanNotInFilter(*node));
        if (not_in) return std::move(*not_in);
        FLOE_ASSIGN_OR_RAISE(PlanPtr input, Plan(node->children[0]));
        FLOE_ASSIGN_OR_RAISE(auto predicate, expr::Compile(node->predicate, input->schema()));
        return FilterExec::Make(std::move(predicate), input);
      }
      case LogicalKind::kAggregate:
        return PlanAggregate(*node);
      case LogicalKind::kWindow:
        return PlanWindow(*node);
      case LogicalKind::kJoin:
        return PlanJoin(*node);
      case LogicalKind::kSort:
        return PlanSort(*node, fetch);
      case LogicalKind::kLimit:
        return PlanLimit(*node);
      case LogicalKind::kUnion:
        return PlanUnion(*node);
      case LogicalKind::kMaxOneRow: {
        FLOE_ASSIGN_OR_RAISE(PlanPtr input, Plan(node->children[0]));
        return MaxOneRowExec::Make(std::move(input));
      }
      case LogicalKind::kUnnest: {
        FLOE_ASSIGN_OR_RAISE(PlanPtr input, Plan(node->children[0]));
        FLOE_ASSIGN_OR_RAISE(auto lists, CompileAll(node->exprs, input->schema()));
        const std::vector<std::string> all = FieldNames(*node->schema);
        std::vector<std::string> names(all.begin() + input->schema()->num_fields(), all.end());
        return UnnestExec::Make(std::move(lists), node->unnest_expand, node->unnest_ordinality,
                                std::move(names), std::move(input));
      }
      case LogicalKind::kRecursiveQuery:
        return PlanRecursiveQuery(*node);
      case LogicalKind::kWorkTableScan:
        return WorkTableScanExec::Make(node->work_table_name, node->work_table_id, node->schema);
    }
    return Status::Internal("unknown logical node kind {}", static_cast<int>(node->kind));
  }

  // A filter that keeps the rows whose mark join mark is false (x NOT IN (subquery) in a
  // WHERE) as a null-aware anti join: no mark column to make and filter. The mark comes
  // back as a constant false for whatever reads the filter's output; the filter's other
  // conjuncts stay above. Nullopt when the filter is not of that shape.
  Result<std::optional<PlanPtr>> PlanNotInFilter(const LogicalPlan& node) {
    const LogicalPlan& join = *node.children[0];
    if (join.kind != LogicalKind::kJoin || join.join_type != plan::JoinType::kMark ||
        join.left_keys.empty()) {
      return std::nullopt;
    }
    const int mark = join.schema->num_fields() - 1;
    std::vector<expr::ExprPtr> rest;
    bool found = false;
    for (const expr::ExprPtr& c : expr::SplitConjunction(node.predicate)) {
      if (!found && c->kind == expr::ExprKind::kCall && c->name == "not" && c->args.size() == 1 &&
          c->args[0]->kind == expr::ExprKind::kColumn && c->args[0]->column == mark) {
        found = true;
        continue;
      }
      const std::vector<int> used = expr::ReferencedColumns(*c);
      if (std::find(used.begin(), used.end(), mark) != used.end()) return std::nullopt;
      rest.push_back(c);
    }
    if (!found) return std::nullopt;
    LogicalPlanPtr anti =
        plan::MakeJoin(join.children[0], join.children[1], plan::JoinType::kNullAwareAnti,
                       join.left_keys, join.right_keys, join.join_filter, join.null_equals_null);
    FLOE_ASSIGN_OR_RAISE(PlanPtr rows, PlanJoin(*anti));
    std::vector<std::string> names = FieldNames(*join.schema);
    FLOE_ASSIGN_OR_RAISE(auto exprs, LeadingColumns(rows->schema(), mark));
    FLOE_ASSIGN_OR_RAISE(auto no_mark,
                         expr::Compile(expr::Literal(Scalar::Bool(false)), rows->schema()));
    exprs.push_back(std::move(no_mark));
    FLOE_ASSIGN_OR_RAISE(PlanPtr out, ProjectionExec::Make(std::move(exprs), names, rows));
    if (rest.empty()) return out;
    FLOE_ASSIGN_OR_RAISE(auto predicate,
                         expr::Compile(expr::JoinConjunction(std::move(rest)), out->schema()));
    return FilterExec::Make(std::move(predicate), out);
  }

  // The first `count` columns of `schema`, compiled.
  static Result<std::vector<expr::PhysicalExprPtr>> LeadingColumns(const SchemaPtr& schema,
                                                                   int count) {
    std::vector<expr::PhysicalExprPtr> out;
    for (int i = 0; i < count; ++i) {
      const Field& f = schema->field(i);
      FLOE_ASSIGN_OR_RAISE(
          auto column, expr::Compile(expr::Column(i, f.name(), f.type(), f.nullable()), schema));
      out.push_back(std::move(column));
    }
    return out;
  }

  static std::vector<std::string> FieldNames(const Schema& schema) {
    std::vector<std::string> names;
    for (const Field& field : schema.fields()) names.push_back(field.name());
    return names;
  }

  Result<PlanPtr> PlanScan(const LogicalPlan& node) {
    const auto* provider = dynamic_cast<const TableProvider*>(node.source.get());
    if (provider == nullptr) {
      return Status::NotSupported("scanning {} ({}) is not supported",
                                  node.source ? node.source->display_name() : "nothing",
                                  node.source ? node.source->kind() : "");
    }
    ScanRequest request;
    request.projection = node.projection;
    request.filters = node.filters;
    request.limit = node.scan_limit;
    return provider->Scan(request, config_);
  }

  Result<PlanPtr> PlanValues(const LogicalPlan& node) {
    const SchemaPtr& schema = node.schema;
    const int64_t num_rows = static_cast<int64_t>(node.rows.size());
    std::vector<RecordBatchPtr> batches;
    const int64_t batch_size = std::max<int64_t>(1, config_.batch_size());
    for (int64_t start = 0; start < num_rows; start += batch_size) {
      const int64_t end = std::min(num_rows, start + batch_size);
      std::vector<ArrayPtr> columns;
      for (int c = 0; c < schema->num_fields(); ++c) {
        std::unique_ptr<ArrayBuilder> builder = MakeBuilder(schema->field(c).type());
        for (int64_t r = start; r < end; ++r) {
          const auto& row = node.rows[static_cast<size_t>(r)];
          if (static_cast<int>(row.size()) != schema->num_fields()) {
            return Status::Internal("VALUES row {} has {} values for {} columns", r + 1, row.size(),
                                    schema->num_fields());
          }
          // A one-value array rather than a Scalar: values may be nested (ARRAY[1, 2]).
          FLOE_ASSIGN_OR_RAISE(ArrayPtr value,
                               expr::EvaluateConstantArray(row[static_cast<size_t>(c)]));
          FLOE_RETURN_NOT_OK(builder->AppendArraySlice(*value, 0, 1));
        }
        FLOE_ASSIGN_OR_RAISE(ArrayPtr column, builder->Finish());
        columns.push_back(std::move(column));
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                           RecordBatch::Make(schema, end - start, std::move(columns)));
      batches.push_back(std::move(batch));
    }
    return ValuesExec::Make(schema, std::move(batches));
  }

  // A grouping without aggregates under an aggregation by its first keys, as a split
  // DISTINCT aggregate is (plan/rule_distinct_aggregates.cc): the number of those keys.
  static int GroupPrefixOfInput(const LogicalPlan& node) {
    const LogicalPlan& input = *node.children[0];
    if (input.kind != plan::LogicalKind::kAggregate || !input.aggregates.empty() ||
        node.group_exprs.empty() || node.group_exprs.size() >= input.group_exprs.size()) {
      return 0;
    }
    for (size_t i = 0; i < node.group_exprs.size(); ++i) {
      const expr::Expr& e = *node.group_exprs[i];
      if (e.kind != expr::ExprKind::kColumn || e.column != static_cast<int>(i)) return 0;
    }
    for (const plan::AggregateCall& call : node.aggregates) {
      if (call.function.distinct || !call.order_by.empty()) return 0;
    }
    return static_cast<int>(node.group_exprs.size());
  }

  // `hash_prefix` > 0: the rows go to the final phase hashed on the first `hash_prefix` group
  // keys only (an aggregation above by those keys then runs in the same partitions).
  Result<PlanPtr> PlanAggregate(const LogicalPlan& node, int hash_prefix = 0) {
    // An aggregation over a grouping by its keys and more runs in one phase in the
    // partitions the grouping's exchange made by its keys: one exchange instead of two.
    const int prefix = GroupPrefixOfInput(node);
    PlanPtr input;
    if (prefix > 0 && config_.target_partitions() > 1) {
      FLOE_ASSIGN_OR_RAISE(input, PlanAggregate(*node.children[0], prefix));
    } else {
      FLOE_ASSIGN_OR_RAISE(input, Plan(node.children[0]));
    }
    const int groups = static_cast<int>(node.group_exprs.size());
    std::vector<std::string> names = FieldNames(*node.schema);
    std::vector<std::string> group_names(names.begin(), names.begin() + groups);

    // Aggregates with an ORDER BY see their rows in that order: one sorted partition
    // feeds a single-phase aggregation.
    const std::vector<plan::SortKey>* order_by = nullptr;
    bool single =
        input->partition_count() == 1 ||
        (prefix > 0 && input->properties().partitioning.kind() == Partitioning::Kind::kHash);
    for (const plan::AggregateCall& call : node.aggregates) {
      if (call.function.distinct) single = true;
      if (!call.order_by.empty()) {
        if (order_by != nullptr && !SameKeys(*order_by, call.order_by)) {
          return Status::NotSupported(
              "aggregates with different ORDER BY clauses in one query level ({})",
              call.ToString());
        }
        order_by = &call.order_by;
        single = true;
      }
    }
    if (order_by != nullptr) {
      FLOE_ASSIGN_OR_RAISE(Ordering keys, CompileOrdering(*order_by, input->schema()));
      FLOE_ASSIGN_OR_RAISE(input, SortExec::Make(std::move(keys), input, std::nullopt,
                                                 /*preserve_partitioning=*/false));
    }

    FLOE_ASSIGN_OR_RAISE(auto group_exprs, CompileAll(node.group_exprs, input->schema()));
    std::vector<AggregateExprSpec> specs;
    for (size_t i = 0; i < node.aggregates.size(); ++i) {
      const plan::AggregateCall& call = node.aggregates[i];
      AggregateExprSpec spec;
      spec.function = call.function;
      FLOE_ASSIGN_OR_RAISE(spec.args, CompileAll(call.args, input->schema()));
      if (call.filter) {
        FLOE_ASSIGN_OR_RAISE(spec.filter, expr::Compile(call.filter, input->schema()));
      }
      spec.name = names[static_cast<size_t>(groups) + i];
      specs.push_back(std::move(spec));
    }
    if (single) {
      return HashAggregateExec::Make(AggregateMode::kSingle, std::move(group_exprs),
                                     std::move(group_names), std::move(specs), input);
    }
    std::vector<AggregateExprSpec> final_specs;
    for (const AggregateExprSpec& spec : specs) {
      AggregateExprSpec final_spec;
      final_spec.function = spec.function;
      final_spec.name = spec.name;
      final_specs.push_back(std::move(final_spec));
    }
    FLOE_ASSIGN_OR_RAISE(PlanPtr partial,
                         HashAggregateExec::Make(AggregateMode::kPartial, std::move(group_exprs),
                                                 group_names, std::move(specs), input));
    if (hash_prefix > 0 && hash_prefix < groups) {
      FLOE_ASSIGN_OR_RAISE(auto hash, LeadingColumns(partial->schema(), hash_prefix));
      FLOE_ASSIGN_OR_RAISE(
          partial,
          RepartitionExec::Make(std::move(partial),
                                Partitioning::Hash(std::move(hash), config_.target_partitions())));
    }
    FLOE_ASSIGN_OR_RAISE(auto final_groups, LeadingColumns(partial->schema(), groups));
    return HashAggregateExec::Make(AggregateMode::kFinal, std::move(final_groups),
                                   std::move(group_names), std::move(final_specs), partial);
  }

  static bool SameKeys(const std::vector<plan::SortKey>& a, const std::vector<plan::SortKey>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].expr->Equals(*b[i].expr) || a[i].ascending != b[i].ascending ||
          a[i].nulls_first != b[i].nulls_first) {
        return false;
      }
    }
    return true;
  }

  static bool SameExprs(const std::vector<expr::ExprPtr>& a, const std::vector<expr::ExprPtr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i]->Equals(*b[i])) return false;
    }
    return true;
  }

  Result<PlanPtr> PlanWindow(const LogicalPlan& node) {
    FLOE_ASSIGN_OR_RAISE(PlanPtr input, Plan(node.children[0]));
    const int input_columns = node.children[0]->schema->num_fields();
    std::vector<std::string> names = FieldNames(*node.schema);
    // Windows sharing PARTITION BY and ORDER BY run in one WindowExec, one after another.
    std::vector<std::vector<size_t>> groups;
    for (size_t i = 0; i < node.windows.size(); ++i) {
      bool placed = false;
      for (auto& group : groups) {
        const plan::WindowCall& first = node.windows[group[0]];
        if (SameExprs(first.partition_by, node.windows[i].partition_by) &&
            SameKeys(first.order_by, node.windows[i].order_by)) {
          group.push_back(i);
          placed = true;
          break;
        }
      }
      if (!placed) groups.push_back({i});
    }
    // Output column of window i after the chain.
    std::vector<int> position(node.windows.size());
    int next = input_columns;
    for (const auto& group : groups) {
      std::vector<WindowExprSpec> specs;
      for (size_t i : group) {
        const plan::WindowCall& call = node.windows[i];
        WindowExprSpec spec;
        spec.call = call;
        FLOE_ASSIGN_OR_RAISE(spec.args, CompileAll(call.args, input->schema()));
        FLOE_ASSIGN_OR_RAISE(spec.partition_by, CompileAll(call.partition_by, input->schema()));
        FLOE_ASSIGN_OR_RAISE(spec.order_by, CompileOrdering(call.order_by, input->schema()));
        spec.name = names[static_cast<size_t>(input_columns) + i];
        specs.push_back(std::move(spec));
        position[i] = next++;
      }
      FLOE_ASSIGN_OR_RAISE(input, WindowExec::Make(std::move(specs), input));
    }
    if (groups.size() <= 1) return input;
    bool in_order = true;
    for (size_t i = 0; i < position.size(); ++i) {
      in_order = in_order && position[i] == input_columns + static_cast<int>(i);
    }
    if (in_order) return input;
    std::vector<int> order;
    for (int c = 0; c < input_columns; ++c) order.push_back(c);
    for (int p : position) order.push_back(p);
    return Reorder(input, order, names);
  }

  // A projection that outputs input columns `order`, named `names`.
  static Result<PlanPtr> Reorder(const PlanPtr& input, const std::vector<int>& order,
                                 std::vector<std::string> names) {
    std::vector<expr::PhysicalExprPtr> exprs;
    for (int c : order) {
      const Field& field = input->schema()->field(c);
      FLOE_ASSIGN_OR_RAISE(
          expr::PhysicalExprPtr column,
          expr::Compile(expr::Column(c, field.name(), field.type(), field.nullable()),
                        input->schema()));
      exprs.push_back(std::move(column));
    }
    return ProjectionExec::Make(std::move(exprs), std::move(names), input);
  }

  Result<PlanPtr> PlanJoin(const LogicalPlan& node) {
    const LogicalPlanPtr& left_node = node.children[0];
    const LogicalPlanPtr& right_node = node.children[1];
    FLOE_ASSIGN_OR_RAISE(PlanPtr left, Plan(left_node));
    FLOE_ASSIGN_OR_RAISE(PlanPtr right, Plan(right_node));
    const int nl = left->schema()->num_fields();
    const int nr = right->schema()->num_fields();
    std::vector<std::string> names = FieldNames(*node.schema);

    if (node.left_keys.empty()) {
      expr::PhysicalExprPtr filter;
      if (node.join_filter) {
        FLOE_ASSIGN_OR_RAISE(
            filter,
            expr::Compile(node.join_filter, JoinOutputSchema(*left->schema(), *right->schema(),
                                                             plan::JoinType::kInner)));
      }
      FLOE_ASSIGN_OR_RAISE(
          PlanPtr join, NestedLoopJoinExec::Make(left, right, node.join_type, std::move(filter)));
      return Rename(join, names);
    }

    plan::JoinType type = node.join_type;
    bool swap = false;
    if (type == plan::JoinType::kRight) {
      swap = true;
    } else if (type == plan::JoinType::kInner) {
      std::optional<int64_t> lb = EstimatedBytes(*left_node);
      std::optional<int64_t> rb = EstimatedBytes(*right_node);
      if (lb && rb) {
        swap = *lb < *rb;
      } else {
        std::optional<int64_t> lr = EstimatedRows(*left_node);
        std::optional<int64_t> rr = EstimatedRows(*right_node);
        swap = lr && rr && *lr < *rr;
      }
    } else if (type == plan::JoinType::kLeft && PreservedSideBuilds(*left_node, *right_node)) {
      // The same for a left join: a right join with the table on the preserved side, whose
      // unmatched rows are emitted once the probe side is done.
      swap = true;
      type = plan::JoinType::kRight;
    } else if (type == plan::JoinType::kSemi || type == plan::JoinType::kAnti) {
      // Build the table on the preserved (left) side when it has clearly fewer rows and
      // the right side is not small: a right semi / anti join, which probes with the
      // subquery's rows and emits the marked (unmarked) build rows. Both sides are then
      // repartitioned by the keys, which costs less than a hash table of the larger side.
      swap = PreservedSideBuilds(*left_node, *right_node);
      if (swap) {
        type =
            type == plan::JoinType::kSemi ? plan::JoinType::kRightSemi : plan::JoinType::kRightAnti;
      }
    }
    const bool swapped_right = swap && node.join_type == plan::JoinType::kRight;
    std::vector<expr::ExprPtr> probe_keys = node.left_keys;
    std::vector<expr::ExprPtr> build_keys = node.right_keys;
    expr::ExprPtr filter = node.join_filter;
    PlanPtr probe = left;
    PlanPtr build = right;
    const LogicalPlan* build_node = right_node.get();
    if (swap) {
      std::swap(probe, build);
      std::swap(probe_keys, build_keys);
      build_node = left_node.get();
      if (swapped_right) type = plan::JoinType::kLeft;
      if (filter) {
        // The filter was over left ++ right; the swapped join's rows are right ++ left.
        std::vector<int> mapping(static_cast<size_t>(nl + nr));
        for (int i = 0; i < nl; ++i) mapping[static_cast<size_t>(i)] = nr + i;
        for (int i = 0; i < nr; ++i) mapping[static_cast<size_t>(nl + i)] = i;
        filter = expr::RemapColumns(filter, mapping);
      }
    }

    const bool build_preserved =
        type == plan::JoinType::kRightSemi || type == plan::JoinType::kRightAnti;
    JoinMode mode = JoinMode::kPartitioned;
    if (type == plan::JoinType::kMark || type == plan::JoinType::kNullAwareAnti) {
      mode = JoinMode::kBroadcast;
    } else if (type != plan::JoinType::kFull && type != plan::JoinType::kRight &&
               BroadcastPays(*build_node, build_node == right_node.get() ? *left_node : *right_node,
                             type)) {
      // A right semi / anti join's tasks each see a share of the probe rows: their verdicts
      // are merged by build position, which needs the build side read in one order by every
      // process, as a stage's output is (a build side of one partition runs in each
      // process that probes, and is partitioned instead).
      if (!build_preserved || build->partition_count() > 1) mode = JoinMode::kBroadcast;
    }

    FLOE_ASSIGN_OR_RAISE(auto probe_exprs, CompileAll(probe_keys, probe->schema()));
    FLOE_ASSIGN_OR_RAISE(auto build_exprs, CompileAll(build_keys, build->schema()));
    expr::PhysicalExprPtr compiled_filter;
    if (filter) {
      FLOE_ASSIGN_OR_RAISE(
          compiled_filter,
          expr::Compile(filter, JoinOutputSchema(*probe->schema(), *build->schema(),
                                                 plan::JoinType::kInner)));
    }
    std::vector<bool> null_equals_null = node.null_equals_null;
    null_equals_null.resize(probe_keys.size(), false);
    // A broadcast join's build side is complete before its probe side's scans open: they
    // can skip the rows whose key the table does not hold (inner and semi joins drop them).
    std::vector<DynamicFilterTarget> dynamic_filters;
    if (share_ && config_.dynamic_join_filters() &&
        HashJoinExec::PublishesDynamicFilters(mode, type)) {
      for (size_t k = 0; k < probe_keys.size(); ++k) {
        const expr::ExprPtr& key = probe_keys[k];
        if (null_equals_null[k] || key->kind != expr::ExprKind::kColumn ||
            !DynamicFilter::Supports(*key->type)) {
          continue;
        }
        PlanPtr attached = AttachDynamicFilter(probe, key->column, next_dynamic_filter_);
        if (attached == nullptr) continue;
        probe = std::move(attached);
        dynamic_filters.push_back(DynamicFilterTarget{next_dynamic_filter_++, static_cast<int>(k)});
      }
    }
    FLOE_ASSIGN_OR_RAISE(
        PlanPtr join,
        HashJoinExec::Make(probe, build, std::move(probe_exprs), std::move(build_exprs), type,
                           std::move(compiled_filter), std::move(null_equals_null), mode,
                           std::move(dynamic_filters)));
    if (build_preserved && mode == JoinMode::kBroadcast) {
      return MergeBuildVerdicts(join, type, names);
    }
    // A right semi / anti join's output is the build side: the logical left columns.
    if (!swap || build_preserved) return Rename(join, names);
    // Back to left ++ right.
    std::vector<int> order;
    for (int i = 0; i < nl; ++i) order.push_back(nr + i);
    for (int i = 0; i < nr; ++i) order.push_back(i);
    return Reorder(join, order, names);
  }

  // Whether to broadcast `build` to the partitions of `probe`: a small build side, or one
  // whose copy to every partition moves no more bytes than repartitioning the probe side
  // would, as long as its table takes a small share of the memory budget (a broadcast table
  // is built whole; a partitioned one is built a partition at a time).
  bool BroadcastPays(const LogicalPlan& build, const LogicalPlan& probe,
                     plan::JoinType type) const {
    std::optional<int64_t> bytes = EstimatedBytes(build);
    std::optional<int64_t> probe_bytes = EstimatedBytes(probe);
    // The table holds more than the rows: their key ids, row map and key slots.
    const std::optional<int64_t> rows = EstimatedRows(build);
    const int64_t table_bytes = bytes.value_or(0) + rows.value_or(0) * kHashTableBytesPerRow;
    // The estimate may rest on guessed selectivities. A broadcast table that outgrows the
    // budget spills when the join type allows (HashJoinExec::BroadcastMaySpill), at the
    // cost of every task reading the spilled build side; where it cannot, the table's
    // bound (the rows the sources hold) must also fit a larger share of the budget.
    bool fits = bytes && table_bytes <= config_.memory_limit() / kBroadcastBudgetDivisor;
    if (fits && rows && *rows > 0 && !HashJoinExec::BroadcastMaySpill(type)) {
      if (const std::optional<int64_t> max_rows = plan::MaxRows(build)) {
        const double row_bytes =
            static_cast<double>(*bytes) / static_cast<double>(*rows) + kHashTableBytesPerRow;
        fits = row_bytes * static_cast<double>(*max_rows) <=
               static_cast<double>(config_.memory_limit() / kBroadcastBoundDivisor);
      }
    }
    return bytes && fits &&
           (*bytes < config_.broadcast_join_threshold() ||
            (probe_bytes && *bytes * config_.target_partitions() <= *probe_bytes));
  }

  // The result of a broadcast right semi (anti) join from its tasks' rows: each task
  // emitted the build rows its probe rows matched (left unmatched) with their build
  // positions. A row of the result is one some task matched (every task left unmatched):
  // the rows go by position to one partition, where a row and its position are one group
  // counting the tasks that emitted it.
  Result<PlanPtr> MergeBuildVerdicts(const PlanPtr& join, plan::JoinType type,
                                     const std::vector<std::string>& names) {
    const Schema& schema = *join->schema();
    const int columns = schema.num_fields() - 1;  // the last is the build position
    std::vector<int> order;
    for (int c = 0; c < columns; ++c) order.push_back(c);
    const int tasks = join->partition_count();
    if (tasks == 1) return Reorder(join, order, names);
    const Field& position_field = schema.field(columns);
    FLOE_ASSIGN_OR_RAISE(
        expr::PhysicalExprPtr position,
        expr::Compile(expr::Column(columns, position_field.name(), position_field.type(), false),
                      join->schema()));
    FLOE_ASSIGN_OR_RAISE(
        PlanPtr exchanged,
        RepartitionExec::Make(join, Partitioning::Hash({position}, config_.target_partitions())));
    // The position first: the exchange's key groups the rows already.
    std::vector<int> group_columns{columns};
    group_columns.insert(group_columns.end(), order.begin(), order.end());
    std::vector<expr::PhysicalExprPtr> groups;
    std::vector<std::string> group_names;
    for (int c : group_columns) {
      const Field& f = schema.field(c);
      FLOE_ASSIGN_OR_RAISE(
          expr::PhysicalExprPtr column,
          expr::Compile(expr::Column(c, f.name(), f.type(), f.nullable()), join->schema()));
      groups.push_back(std::move(column));
      group_names.push_back("c" + std::to_string(group_names.size()));
    }
    AggregateExprSpec emitted;
    FLOE_ASSIGN_OR_RAISE(emitted.function, expr::ResolveAggregate("count_star", {}, false));
    emitted.name = "tasks";
    FLOE_ASSIGN_OR_RAISE(
        PlanPtr merged,
        HashAggregateExec::Make(AggregateMode::kSingle, std::move(groups), std::move(group_names),
                                {std::move(emitted)}, std::move(exchanged)));
    const int count_column = columns + 1;
    if (type == plan::JoinType::kRightAnti) {
      const Field& count = merged->schema()->field(count_column);
      FLOE_ASSIGN_OR_RAISE(expr::PhysicalExprPtr every_task,
                           expr::Compile(expr::Compare("eq",
                                                       expr::Column(count_column, count.name(),
                                                                    count.type(), count.nullable()),
                                                       expr::Literal(Scalar::I64(tasks))),
                                         merged->schema()));
      FLOE_ASSIGN_OR_RAISE(merged, FilterExec::Make(std::move(every_task), std::move(merged)));
    }
    for (int& c : order) c += 1;
    return Reorder(merged, order, names);
  }

  // The join's output carries its inputs' names; the logical plan may name them
  // differently only when names were made unique, which a projection restores.
  static Result<PlanPtr> Rename(const PlanPtr& plan, const std::vector<std::string>& names) {
    const Schema& schema = *plan->schema();
    if (static_cast<int>(names.size()) != schema.num_fields()) return plan;
    bool same = true;
    for (int i = 0; i < schema.num_fields(); ++i) {
      same = same && schema.field(i).name() == names[static_cast<size_t>(i)];
    }
    if (same) return plan;
    std::vector<int> order;
    for (int i = 0; i < schema.num_fields(); ++i) order.push_back(i);
    return Reorder(plan, order, names);
  }

  Result<PlanPtr> PlanSort(const LogicalPlan& node, std::optional<int64_t> fetch) {
    FLOE_ASSIGN_OR_RAISE(PlanPtr input, Plan(node.children[0]));
    FLOE_ASSIGN_OR_RAISE(Ordering keys, CompileOrdering(node.sort_keys, input->schema()));
    FLOE_ASSIGN_OR_RAISE(PlanPtr sorted,
                         SortExec::Make(keys, input, fetch, /*preserve_partitioning=*/true));
    return SortPreservingMergeExec::Make(std::move(keys), sorted, fetch);
  }

  Result<PlanPtr> PlanLimit(const LogicalPlan& node) {
    std::optional<int64_t> needed;
    if (node.fetch) needed = plan::LimitRowsNeeded(node.offset, *node.fetch);
    FLOE_ASSIGN_OR_RAISE(PlanPtr input, Plan(node.children[0], needed));
    if (needed && input->name() != SortPreservingMergeExec::kName && input->partition_count() > 1) {
      FLOE_ASSIGN_OR_RAISE(input, LimitExec::Make(input, 0, needed, /*global=*/false));
    }
    return LimitExec::Make(input, node.offset, node.fetch, /*global=*/true);
  }

  Result<PlanPtr> PlanUnion(const LogicalPlan& node) {
    std::vector<PlanPtr> children;
    for (const LogicalPlanPtr& child : node.children) {
      FLOE_ASSIGN_OR_RAISE(PlanPtr planned, Plan(child));
      children.push_back(std::move(planned));
    }
    FLOE_ASSIGN_OR_RAISE(PlanPtr all, UnionExec::Make(std::move(children)));
    FLOE_ASSIGN_OR_RAISE(all, Rename(all, FieldNames(*node.schema)));
    if (node.set_all) return all;
    // UNION without ALL: group by every column.
    std::vector<expr::PhysicalExprPtr> groups;
    std::vector<std::string> names;
    for (int c = 0; c < all->schema()->num_fields(); ++c) {
      const Field& field = all->schema()->field(c);
      FLOE_ASSIGN_OR_RAISE(
          expr::PhysicalExprPtr column,
          expr::Compile(expr::Column(c, field.name(), field.type(), field.nullable()),
                        all->schema()));
      groups.push_back(std::move(column));
      names.push_back(field.name());
    }
    return HashAggregateExec::Make(AggregateMode::kSingle, std::move(groups), std::move(names), {},
                                   all);
  }

  // The whole recursion runs in one task (RecursiveQueryExec), so its terms are planned
  // for one partition: their scans read in one partition and no exchange is needed inside.
  Result<PlanPtr> PlanRecursiveQuery(const LogicalPlan& node) {
    SessionConfig single = config_;
    FLOE_RETURN_NOT_OK(single.Set("target_partitions", "1"));
    // Exchanges inside run within the task, where a node's shared state serves one reader:
    // nothing is shared there. Nor are dynamic filters planned there: their ids would be
    // this planner's own, not unique within the whole plan.
    Planner planner(single, /*share=*/false);
    const std::vector<std::string> names = FieldNames(*node.schema);
    FLOE_ASSIGN_OR_RAISE(PlanPtr static_term, planner.Plan(node.children[0]));
    FLOE_ASSIGN_OR_RAISE(static_term, Rename(static_term, names));
    FLOE_ASSIGN_OR_RAISE(PlanPtr recursive_term, planner.Plan(node.children[1]));
    FLOE_ASSIGN_OR_RAISE(recursive_term, Rename(recursive_term, names));
    return RecursiveQueryExec::Make(node.work_table_name, node.work_table_id, !node.set_all,
                                    std::move(static_term), std::move(recursive_term));
  }

  // `plan` with dynamic filter `id` read over its output column `column` by the scan that
  // produces the column, through nodes that pass rows through one by one (projections of
  // the column, filters, the probe side of broadcast inner and semi joins, which publish
  // their own filters before opening it); null when there is no such scan.
  static PlanPtr AttachDynamicFilter(const PlanPtr& plan, int column, int id) {
    const std::string_view name = plan->name();
    int below = -1;
    if (name == ProjectionExec::kName) {
      const expr::ExprPtr& source =
          static_cast<const ProjectionExec&>(*plan).exprs()[static_cast<size_t>(column)]->source();
      if (source != nullptr && source->kind == expr::ExprKind::kColumn) below = source->column;
    } else if (name == FilterExec::kName) {
      below = column;
    } else if (name == HashJoinExec::kName) {
      const auto& join = static_cast<const HashJoinExec&>(*plan);
      if (HashJoinExec::PublishesDynamicFilters(join.mode(), join.join_type()) &&
          column < join.left()->schema()->num_fields()) {
        below = column;
      }
    } else {
      return plan->WithDynamicFilter(id, column);
    }
    if (below < 0) return nullptr;
    std::vector<PlanPtr> children = plan->children();
    PlanPtr child = AttachDynamicFilter(children[0], below, id);
    if (child == nullptr) return nullptr;
    children[0] = std::move(child);
    Result<PlanPtr> rebuilt = plan->WithNewChildren(std::move(children));
    return rebuilt.ok() ? *rebuilt : nullptr;
  }

  const SessionConfig& config_;
  // False for the planner of a recursive query's terms: no shared subplans and no dynamic
  // filters there.
  const bool share_;
  // The id of the next dynamic filter (unique within the plan).
  int next_dynamic_filter_ = 1;
  // The aggregations and joins planned so far, for planning a repeated one once.
  std::vector<std::pair<LogicalPlanPtr, PlanPtr>> shared_;
};

}  // namespace

Result<PlanPtr> CreatePhysicalPlan(const plan::LogicalPlanPtr& plan, const SessionConfig& config) {
  if (!plan) return Status::Internal("CreatePhysicalPlan: no plan");
  Planner planner(config);
  return planner.Plan(plan);
}

}  // namespace floe::exec
