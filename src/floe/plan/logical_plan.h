#pragma once

// The logical plan: what the binder builds, the optimizer rewrites and the physical
// planner (exec/physical_planner.h) turns into ExecutionPlans. Nodes are immutable and
// shared. Every node has an output schema; expressions in a node refer to the columns of
// its input by index (for a join: the left input's columns, then the right input's).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/scalar.h"
#include "floe/expr/expr.h"
#include "floe/expr/function_registry.h"
#include "floe/type/type.h"

namespace floe::plan {

/// Estimated or exact statistics of a relation. Unknown values are nullopt.
struct ColumnStatistics {
  std::optional<Scalar> min;
  std::optional<Scalar> max;
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  /// Estimated bytes per value in memory (fixed width, or the average string length plus
  /// its offset); join sides and broadcasts are chosen by the bytes it adds up to.
  std::optional<double> avg_width;
};

/// The largest row or byte estimate: a product of guesses may pass what int64 holds, so
/// estimates are capped here (past it means "huge"), and sums and products of a few capped
/// estimates stay within int64. Exact counts (Statistics::exact) are not capped.
inline constexpr int64_t kMaxEstimate = int64_t{1} << 48;

struct Statistics {
  std::optional<int64_t> row_count;
  std::optional<int64_t> total_bytes;
  bool exact = false;                     // row_count is exact (count(*) may be answered from it)
  std::vector<ColumnStatistics> columns;  // empty, or one per output column
};

/// A relation a scan reads: a table of a catalog, read_parquet(...), generate_series(...).
/// Implementations live in layers above (the exec module's table providers); the logical
/// plan only needs the schema, statistics and what can be pushed into the scan.
class TableSource {
 public:
  virtual ~TableSource() = default;
  /// A stable kind name ("parquet", "generate_series", "iceberg").
  virtual std::string_view kind() const = 0;
  /// The name shown by EXPLAIN ("read_parquet(3 files)", "db.events").
  virtual std::string display_name() const = 0;
  virtual const SchemaPtr& schema() const = 0;
  /// The last this many columns of schema() are system columns (an Iceberg table's _file,
  /// _pos, ...): SELECT * and NATURAL joins leave them out, and a name finds one only when
  /// no other column of the FROM item has it.
  virtual int hidden_columns() const { return 0; }
  /// Statistics of the whole source (no filter applied).
  virtual Statistics statistics() const { return {}; }
  /// True when `other` reads the same rows as this source: the same object, or another
  /// binding of the same data (read_parquet of the same files, the same snapshot of the
  /// same table named twice in one statement). Plans over either may share one evaluation
  /// (SameSubtree).
  virtual bool SameSource(const TableSource& other) const { return this == &other; }
  /// How a filter conjunct can be pushed into the scan.
  enum class FilterPushdown {
    kUnsupported,  // keep it above the scan
    kInexact,      // the scan prunes with it (row groups, files), the filter stays above
    kExact,        // the scan returns only rows satisfying it
  };
  /// `conjunct` refers to columns of schema().
  virtual FilterPushdown SupportsFilter(const expr::Expr& conjunct) const {
    return FilterPushdown::kUnsupported;
  }
  /// The exact number of rows a scan with these pushed conjuncts (each kExact) returns,
  /// known without reading data (an Iceberg table counts its manifests' record counts);
  /// nullopt when unknown. Only asked when `filters` is not empty (statistics() answers
  /// the unfiltered count).
  virtual std::optional<int64_t> CountRowsExactly(const std::vector<expr::ExprPtr>& filters) const {
    return std::nullopt;
  }
};
using TableSourcePtr = std::shared_ptr<const TableSource>;

enum class LogicalKind {
  kScan,        // source, projection, filters, limit
  kValues,      // rows of constant expressions (no input); SELECT 1 is one empty row
  kProjection,  // exprs (over the input) named by the schema
  kFilter,      // predicate (boolean)
  kAggregate,   // group_exprs then aggregates; output: groups..., aggregates...
  kWindow,      // input columns..., then one column per window call
  kJoin,        // join_type, left_keys/right_keys (equi), filter (over left ++ right)
  kSort,        // sort_keys
  kLimit,       // offset, fetch
  kUnion,       // children (two or more) with equal column types; set_all (false: distinct)
  kMaxOneRow,   // passes its input through; more than one row is an error (scalar
                // subqueries: "more than one row returned by a subquery used as an
                // expression")
  kUnnest,      // exprs (list-typed, over the input), unnest_expand, unnest_ordinality:
                // each input row repeated once per element of its longest list, with the
                // lists' elements side by side (NULL past a shorter list's end; an input
                // row whose lists are all NULL or empty yields no row), as PostgreSQL runs
                // several set-returning functions in one select list. Output: the input
                // columns, then per expr its element (a struct element's fields when
                // unnest_expand says so), then the ordinality (bigint, from 1) if asked.
  // WITH RECURSIVE name AS (static UNION [ALL] recursive): children {static term,
  // recursive term} with equal column types; work_table_id, work_table_name; set_all
  // (false: UNION, a row equal to one output before is dropped). The recursive term reads
  // the rows of the previous iteration through kWorkTableScan nodes of the same id; the
  // schema has the WITH item's column names, every column nullable.
  kRecursiveQuery,
  // No input: the work table work_table_id (the previous iteration's rows of the recursive
  // query of that id), with the given schema.
  kWorkTableScan,
};

enum class JoinType {
  kInner,
  kLeft,
  kRight,
  kFull,
  kSemi,  // left rows with a match; output: the left columns
  kAnti,  // left rows without a match; output: the left columns
  /// Left rows each with one boolean "mark" column appended: true when a right row
  /// matches; NULL when none matches but a NULL key made the comparison unknown (the left
  /// key is NULL and the right side is not empty, or the right side holds a NULL key);
  /// false otherwise. Exactly x IN (subquery) semantics, so NOT IN is NOT(mark).
  kMark,
  /// Physical only (the physical planner's choice, never in a logical plan): a semi / anti
  /// join whose preserved side is the RIGHT input, so that the hash table is built on it
  /// when it is the smaller side. Output: the right rows with (kRightSemi) / without
  /// (kRightAnti) a matching left row; the right columns.
  kRightSemi,
  kRightAnti,
  /// Physical only: the left rows whose kMark mark would be false (x NOT IN (subquery) in
  /// a WHERE, which drops the rows where it is NULL): rows without a match, and, when the
  /// right side is not empty, only where neither the left key nor any right key is NULL.
  /// Output: the left columns. Broadcast only (it needs the whole right side).
  kNullAwareAnti,
};
std::string_view JoinTypeName(JoinType type);

struct SortKey {
  expr::ExprPtr expr;
  bool ascending = true;
  bool nulls_first = false;  // PostgreSQL's default: NULLS LAST for ASC, FIRST for DESC
  std::string ToString() const;
};

struct AggregateCall {
  expr::ResolvedAggregate function;
  std::vector<expr::ExprPtr> args;  // over the input, cast to function.arg_types
  expr::ExprPtr filter;             // FILTER (WHERE ...) or null
  std::vector<SortKey> order_by;    // string_agg(x, ',' ORDER BY y)
  std::string ToString() const;
};

struct WindowFrameBound {
  enum class Kind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  Kind kind = Kind::kUnboundedPreceding;
  int64_t offset = 0;  // kPreceding / kFollowing (ROWS and GROUPS; RANGE offsets are
                       // in the order key's unit: days for dates, micros for timestamps)
};

struct WindowFrame {
  enum class Mode { kRows, kRange, kGroups };
  Mode mode = Mode::kRange;
  WindowFrameBound start{WindowFrameBound::Kind::kUnboundedPreceding, 0};
  WindowFrameBound end{WindowFrameBound::Kind::kCurrentRow, 0};
};

struct WindowCall {
  std::string function;  // a window function, or an aggregate name
  bool is_aggregate = false;
  expr::WindowOp window_op = expr::WindowOp::kRowNumber;  // when !is_aggregate
  expr::ResolvedAggregate aggregate;                      // when is_aggregate
  std::vector<expr::ExprPtr> args;
  std::vector<expr::ExprPtr> partition_by;
  std::vector<SortKey> order_by;
  WindowFrame frame;
  TypePtr type;
  std::string ToString() const;
};

struct LogicalPlan;
using LogicalPlanPtr = std::shared_ptr<const LogicalPlan>;

/// One node. Each kind uses the members its comment in LogicalKind names.
struct LogicalPlan {
  LogicalKind kind = LogicalKind::kValues;
  SchemaPtr schema;  // the output columns (names as the query will show them)
  std::vector<LogicalPlanPtr> children;

  // kScan
  TableSourcePtr source;
  std::vector<int> projection;         // source columns read, in output order
  std::vector<expr::ExprPtr> filters;  // pushed conjuncts, over the source's schema
  std::optional<int64_t> scan_limit;   // rows the scan may stop after (no filter left)

  // kValues
  std::vector<std::vector<expr::ExprPtr>> rows;

  // kProjection
  std::vector<expr::ExprPtr> exprs;

  // kFilter
  expr::ExprPtr predicate;

  // kAggregate
  std::vector<expr::ExprPtr> group_exprs;
  std::vector<AggregateCall> aggregates;

  // kWindow
  std::vector<WindowCall> windows;

  // kJoin
  JoinType join_type = JoinType::kInner;
  std::vector<expr::ExprPtr> left_keys;   // over the left input
  std::vector<expr::ExprPtr> right_keys;  // over the right input, same types as left_keys
  expr::ExprPtr join_filter;              // over left ++ right columns, or null
  /// Per key pair: true when NULL keys match (IS NOT DISTINCT FROM; INTERSECT/EXCEPT).
  std::vector<bool> null_equals_null;

  // kSort
  std::vector<SortKey> sort_keys;

  // kLimit
  int64_t offset = 0;
  std::optional<int64_t> fetch;

  // kUnion
  bool set_all = true;

  // kRecursiveQuery, kWorkTableScan (and set_all)
  int work_table_id = 0;
  std::string work_table_name;

  // kUnnest (and exprs)
  std::vector<bool> unnest_expand;  // per expr: a struct element becomes its fields
  bool unnest_ordinality = false;

  /// An indented tree, one node per line ("Projection: a, b + 1\n  Filter: ...").
  std::string ToString() const;
};

// Constructors that compute the output schema from the inputs.
LogicalPlanPtr MakeScan(TableSourcePtr source, std::vector<int> projection,
                        std::vector<expr::ExprPtr> filters = {},
                        std::optional<int64_t> limit = std::nullopt);
LogicalPlanPtr MakeValues(SchemaPtr schema, std::vector<std::vector<expr::ExprPtr>> rows);
LogicalPlanPtr MakeProjection(LogicalPlanPtr input, std::vector<expr::ExprPtr> exprs,
                              std::vector<std::string> names);
LogicalPlanPtr MakeFilter(LogicalPlanPtr input, expr::ExprPtr predicate);
LogicalPlanPtr MakeAggregate(LogicalPlanPtr input, std::vector<expr::ExprPtr> group_exprs,
                             std::vector<std::string> group_names,
                             std::vector<AggregateCall> aggregates,
                             std::vector<std::string> aggregate_names);
LogicalPlanPtr MakeWindow(LogicalPlanPtr input, std::vector<WindowCall> windows,
                          std::vector<std::string> names);
LogicalPlanPtr MakeJoin(LogicalPlanPtr left, LogicalPlanPtr right, JoinType type,
                        std::vector<expr::ExprPtr> left_keys, std::vector<expr::ExprPtr> right_keys,
                        expr::ExprPtr filter, std::vector<bool> null_equals_null = {});
LogicalPlanPtr MakeSort(LogicalPlanPtr input, std::vector<SortKey> keys);
LogicalPlanPtr MakeLimit(LogicalPlanPtr input, int64_t offset, std::optional<int64_t> fetch);
/// The rows a LIMIT `fetch` OFFSET `offset` reads from its input: their sum, or the largest
/// int64 where it would overflow (LIMIT 9223372036854775807 OFFSET n is "no limit").
int64_t LimitRowsNeeded(int64_t offset, int64_t fetch);
/// Output names are the first child's; nullability is the OR over children.
LogicalPlanPtr MakeUnion(std::vector<LogicalPlanPtr> children, bool all);
LogicalPlanPtr MakeMaxOneRow(LogicalPlanPtr input);
/// `schema` names the columns (the static term's types, every column nullable); the terms'
/// column types must equal its types.
LogicalPlanPtr MakeRecursiveQuery(LogicalPlanPtr static_term, LogicalPlanPtr recursive_term,
                                  bool all, int work_table_id, std::string name, SchemaPtr schema);
LogicalPlanPtr MakeWorkTableScan(int work_table_id, std::string name, SchemaPtr schema);
/// `lists` are list-typed expressions over `input`; `names` name the output columns after
/// the input's: one per element, or per field of an expanded struct element, then the
/// ordinality's when `ordinality`.
LogicalPlanPtr MakeUnnest(LogicalPlanPtr input, std::vector<expr::ExprPtr> lists,
                          std::vector<bool> expand, bool ordinality,
                          std::vector<std::string> names);
/// The columns an Unnest of these lists adds after its input's.
std::vector<Field> UnnestOutputFields(const std::vector<expr::ExprPtr>& lists,
                                      const std::vector<bool>& expand, bool ordinality,
                                      const std::vector<std::string>& names);

/// A copy of `node` with new children (same kind and parameters); the schema is
/// recomputed where it derives from the children.
LogicalPlanPtr WithNewChildren(const LogicalPlan& node, std::vector<LogicalPlanPtr> children);

/// True when `a` and `b` compute the same rows: the same kinds and parameters node by node
/// (expressions equal with their types, scans of the same source: TableSource::SameSource),
/// the same output
/// schemas, and no volatile expression (random(), nextval) anywhere, so that one evaluation
/// can serve both (a WITH item referenced twice). Windows, unnests and recursive queries
/// are never the same (conservative).
bool SameSubtree(const LogicalPlan& a, const LogicalPlan& b);
/// True when evaluating `plan` twice gives the same rows both times: SameSubtree(plan, plan)
/// (no volatile expression, only the kinds SameSubtree compares).
bool Repeatable(const LogicalPlan& plan);

/// Checks that every node has the children its kind takes and that every column an
/// expression refers to exists in the input it is evaluated over. kInternal naming the node
/// and the column otherwise: a plan the binder or a rule got wrong is an error, never a
/// crash of the rules that walk it.
Status ValidatePlan(const LogicalPlan& plan);

}  // namespace floe::plan
