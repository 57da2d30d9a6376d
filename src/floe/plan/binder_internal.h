#pragma once

// The binder's private state, shared by binder.cc (scopes, FROM), bind_expr.cc
// (expressions), bind_query.cc (SELECT pipeline, set operations) and subquery.cc
// (subquery planning and decorrelation).
//
// Bound expressions refer to the columns of the plan they are evaluated over. Two kinds
// of column indices are reserved while binding:
//  - outer references (a correlated subquery's reference to its enclosing query):
//    column = -1 - index, the index into the enclosing query's plan;
//  - placeholders (aggregate calls, window calls and subqueries that are planned later):
//    column = kPlaceholderBase - id; replaced by real columns once planned.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "floe/plan/binder.h"
#include "floe/type/sql_type_name.h"

namespace floe::plan::internal {

inline constexpr int kPlaceholderBase = -1000000;

inline bool IsOuterRef(const expr::Expr& e) {
  return e.kind == expr::ExprKind::kColumn && e.column < 0 && e.column > kPlaceholderBase;
}
inline bool IsPlaceholder(const expr::Expr& e) {
  return e.kind == expr::ExprKind::kColumn && e.column <= kPlaceholderBase;
}
inline int PlaceholderId(const expr::Expr& e) { return kPlaceholderBase - e.column; }

/// A column visible by name in a scope.
struct ScopeColumn {
  std::string table;  // the qualifier (alias or table name); "" for none
  std::string name;
  TypePtr type;
  bool nullable = true;
  int index = 0;  // in the scope plan's output
  /// A column merged away by USING/NATURAL: found only qualified, not by `*`.
  bool using_hidden = false;
  /// A table's system column (TableSource::hidden_columns: _file, _pos, ...): not expanded
  /// by `*`, a whole-row reference or NATURAL, and found by name only when no other column
  /// of the scope has that name.
  bool system = false;
};

/// The columns a FROM clause makes visible, over one plan.
struct Scope {
  std::vector<ScopeColumn> columns;
  /// The enclosing query's scope (correlated subqueries), or null.
  const Scope* outer = nullptr;
};

/// A FROM item bound: its plan and its columns (indices into plan's output).
struct BoundRelation {
  LogicalPlanPtr plan;
  std::vector<ScopeColumn> columns;
};

/// A correlated subquery's bound body: its FROM (filtered by the uncorrelated part of
/// its WHERE), the correlated WHERE conjuncts (over filtered's columns, outer columns as
/// outer references), and the rest of the query.
struct SubqueryBody {
  LogicalPlanPtr plan;                    // the full query plan (uncorrelated subqueries)
  LogicalPlanPtr filtered;                // FROM + uncorrelated WHERE (correlated subqueries)
  std::vector<expr::ExprPtr> correlated;  // correlated WHERE conjuncts
  /// The single select expression over `filtered` (plain SELECT without aggregation).
  expr::ExprPtr select_expr;
  bool simple = false;          // no aggregation, DISTINCT, LIMIT, windows, set operation
  bool aggregate_only = false;  // aggregates without GROUP BY/HAVING/LIMIT/DISTINCT
};

enum class PendingKind { kScalar, kExists, kIn };

/// A subquery bound to a placeholder and planned later (joined onto the plan the
/// placeholder's expression is evaluated over).
struct PendingSubquery {
  int placeholder = 0;
  PendingKind kind = PendingKind::kScalar;
  const sql::ParsedExpr* node = nullptr;
  expr::ExprPtr value;  // kIn: the left operand over the outer plan
  TypePtr type;
  bool before_aggregate = false;  // appears inside an aggregate's arguments
  const Scope* scope = nullptr;   // the scope the subquery is correlated to
  SubqueryBody body;
};

/// What kind of expression is being bound (what is allowed in it).
struct ExprContext {
  const Scope* scope = nullptr;
  bool allow_aggregates = false;
  bool allow_windows = false;
  bool allow_subqueries = true;
  std::string_view clause = "";  // "WHERE", "JOIN conditions", ... for errors
  bool in_aggregate = false;
  /// Set-returning calls become placeholders of an Unnest below the select list.
  bool allow_srf = false;
  /// The expression is a FROM item's set-returning call: it stays the list-valued call.
  bool srf_as_list = false;
};

/// `type` with `dims` dimensions when it is an array type (PostgreSQL's arrays take the
/// dimensions of their value, whatever the declared type says), else `type`.
TypePtr WithArrayDims(const TypePtr& type, int dims);

/// The element type of an array type as written (int[] or _int4: int4), or nothing when
/// `type` is no array type. `_x` is x's array type unless the session has a type `_x`.
std::optional<sql::TypeName> ArrayElementTypeName(const sql::TypeName& type,
                                                  const UserTypes* user_types);

class Binder {
 public:
  Binder(std::string_view text, RelationResolver* resolver, const BindOptions& options)
      : text_(text), resolver_(resolver), options_(options) {}

  // ---- errors (binder.cc)
  std::string Where(int location) const;
  Status BindError(int location, std::string message) const;
  Status NotSupported(int location, std::string message) const;

  // ---- queries (bind_query.cc)
  /// Binds a query; `outer` is the enclosing scope for subqueries.
  Result<LogicalPlanPtr> BindSelectStmt(const sql::SelectStmt& stmt, const Scope* outer);
  /// Binds a subquery's body for decorrelation.
  Result<SubqueryBody> BindSubqueryBody(const sql::SelectStmt& stmt, const Scope* outer,
                                        bool need_correlated_forms);
  /// Binds a plain SELECT; extra_groups (over the FROM plan) are prepended to GROUP BY and
  /// appended to the output (decorrelated scalar aggregates).
  /// What BindSelect found (for subquery planning).
  struct SelectInfo {
    bool aggregating = false;
    bool windows = false;
    bool outer_ref_outside_where = false;
  };
  struct SelectOptions {
    const Scope* outer = nullptr;
    /// When set, correlated WHERE conjuncts are not filtered but returned here.
    std::vector<expr::ExprPtr>* correlated_out = nullptr;
    LogicalPlanPtr* filtered_out = nullptr;
    std::vector<expr::ExprPtr>* select_exprs_out = nullptr;  // over filtered_out
    const std::vector<expr::ExprPtr>* extra_groups = nullptr;
    SelectInfo* info_out = nullptr;
  };
  /// BindSelect with the statement's own WITH clause in scope.
  Result<LogicalPlanPtr> BindSelectWithCtes(const sql::SelectStmt& stmt, const SelectOptions& opts);
  Result<LogicalPlanPtr> BindSetOp(const sql::SelectStmt& stmt, const Scope* outer);
  /// ORDER BY (output columns by name or ordinal), LIMIT and OFFSET over a finished plan.
  Result<LogicalPlanPtr> ApplyOutputOrderLimit(LogicalPlanPtr plan, const sql::SelectStmt& stmt);
  Result<LogicalPlanPtr> ApplyLimit(LogicalPlanPtr plan, const sql::SelectStmt& stmt);
  Status PushCtes(const sql::SelectStmt& stmt, bool* pushed);
  Result<expr::ExprPtr> RequireBoolean(expr::ExprPtr e, std::string_view what, int location);
  /// Maps an expression bound over the FROM scope to the aggregate's output.
  Result<expr::ExprPtr> RewriteAfterAggregate(const expr::ExprPtr& e,
                                              const std::vector<expr::ExprPtr>& groups,
                                              const Scope& scope);
  Result<LogicalPlanPtr> BindSelect(const sql::SelectStmt& stmt, const SelectOptions& opts);

  // ---- FROM (binder.cc)
  Result<BoundRelation> BindFrom(const std::vector<sql::TableRefPtr>& from, const Scope* outer);
  Result<BoundRelation> BindTableRef(const sql::TableRef& ref, const Scope* outer);
  Result<LogicalPlanPtr> BindValues(const sql::SelectStmt& stmt);
  /// The INSERT's own VALUES list, whose untyped literals take BindOptions::
  /// insert_value_types.
  void set_insert_values(const sql::SelectStmt* values) { insert_values_ = values; }

  // ---- expressions (bind_expr.cc)
  Result<expr::ExprPtr> BindExpr(const sql::ParsedExpr& e, ExprContext& ctx);
  /// Casts `e` to `type` (string literals are converted now; others get a kCast).
  Result<expr::ExprPtr> CoerceTo(const expr::ExprPtr& e, const TypePtr& type, int location);
  /// Unifies the types of two operands that are compared (untyped string literals take the
  /// other side's type; expr::ComparisonType otherwise).
  Result<std::pair<expr::ExprPtr, expr::ExprPtr>> Unify(expr::ExprPtr a, expr::ExprPtr b,
                                                        std::string_view context, int location);
  /// Resolves and builds a call of `name`, converting the arguments to the parameter types.
  /// `unknown[i]` marks an argument that is an untyped literal as written (PostgreSQL's
  /// `unknown`): it may take any parameter type (expr::UnknownType).
  Result<expr::ExprPtr> MakeCall(std::string_view name, std::vector<expr::ExprPtr> args,
                                 int location, const std::vector<bool>& unknown = {});
  /// `name(args..., VARIADIC array)`, its arguments bound: the array's elements as the last
  /// arguments of a function with VARIADIC "any", else the array as the last argument.
  /// "VARIADIC argument must be an array" when it is not one.
  Result<expr::ExprPtr> BindVariadicCall(const std::string& name, std::vector<expr::ExprPtr> args,
                                         const sql::ParsedExpr& e);
  /// Which of `args`, bound from `parsed`, are untyped literals as written (a bare string
  /// constant or NULL; not one cast to text, which keeps its untyped node).
  std::vector<bool> UnknownArgs(const std::vector<sql::ParsedExprPtr>& parsed,
                                const std::vector<expr::ExprPtr>& args) const;
  Result<expr::ExprPtr> MakeCompare(std::string_view op, expr::ExprPtr a, expr::ExprPtr b,
                                    int location);
  Result<TypePtr> BindTypeName(const sql::TypeName& type);
  /// An explicit cast of `x` to the type `type` names (CAST, ::, and function-style casts
  /// such as float8(x)): "cannot cast type a to b" where no explicit cast exists; to
  /// varchar(n), the first n characters.
  Result<expr::ExprPtr> BindExplicitCast(expr::ExprPtr x, const sql::TypeName& type, int location);
  /// `value IN (items)`, or NOT IN when `negated`: the items and the value brought to their
  /// common type, as one in_list call.
  Result<expr::ExprPtr> BindInList(const sql::ParsedExpr& value,
                                   const std::vector<const sql::ParsedExpr*>& items, bool negated,
                                   ExprContext& ctx);
  /// `x op ANY|ALL (array)`: over ARRAY[...] the OR (ANY) or AND (ALL) of the comparisons (an
  /// IN list for = ANY and <> ALL); over a list-valued expression an any_<op> / all_<op> call.
  Result<expr::ExprPtr> BindQuantifiedArray(const sql::ParsedExpr& e, ExprContext& ctx);
  // ---- arrays and composite values (bind_array.cc)
  /// ARRAY[...]: make_array over the elements brought to their common type; `target` is the
  /// array type of a cast around it (typing an empty ARRAY[] and untyped elements), or null.
  Result<expr::ExprPtr> BindArray(const sql::ParsedExpr& e, ExprContext& ctx,
                                  const TypePtr& target);
  /// ARRAY(subquery): the subquery's one column as an array in its order ('{}' for no
  /// rows), bound as the scalar subquery (SELECT array_agg(x ORDER BY ...) ...) over the
  /// subquery's FROM and WHERE when it is a plain SELECT, else over the subquery in FROM.
  Result<expr::ExprPtr> BindArraySubquery(const sql::ParsedExpr& e, ExprContext& ctx);
  /// a[i]..., a[l:u]..., and m[key] on maps.
  Result<expr::ExprPtr> BindSubscript(const sql::ParsedExpr& e, ExprContext& ctx);
  /// (x).field.
  Result<expr::ExprPtr> BindFieldSelect(const sql::ParsedExpr& e, ExprContext& ctx);
  /// Field `name` of a struct-valued expression, or PostgreSQL's error.
  Result<expr::ExprPtr> SelectField(expr::ExprPtr x, const std::string& name, int location);
  Result<expr::ExprPtr> BindMapLookup(expr::ExprPtr map, const sql::ParsedExpr& key,
                                      ExprContext& ctx, int location);
  /// array_fill(value, dims [, lbounds]) with its arguments bound: the call with a NULL of
  /// the result type first, whose number of dimensions is the number of elements of `dims`
  /// (an ARRAY[...] constructor or a constant; kNotSupported otherwise).
  /// `unknown`: which arguments are untyped literals as written (UnknownArgs).
  Result<expr::ExprPtr> BindArrayFill(std::vector<expr::ExprPtr> args,
                                      const std::vector<bool>& unknown, int location);
  /// Gives the untyped arguments of an array function (array_append(a, NULL)) the array or
  /// element type its other arguments call for.
  Status CoerceUntypedArrayArgs(std::string_view name, std::vector<expr::ExprPtr>& args);

  // ---- records (bind_row.cc)
  /// ROW(a, b, ...) and (a, b, ...): a struct of fields f1, f2, ...; t.* and (x).* among the
  /// arguments expand to their columns or fields. `target`, the type of a cast around the
  /// constructor, types its untyped arguments (ROW('x', '2012-12-31')::t), or is null.
  Result<expr::ExprPtr> BindRow(const sql::ParsedExpr& e, ExprContext& ctx, const TypePtr& target);
  /// The values `t.*` (t's columns) or `(x).*` (the record x's fields) stand for, named.
  Result<std::vector<std::pair<std::string, expr::ExprPtr>>> ExpandStar(const sql::ParsedExpr& e,
                                                                        ExprContext& ctx);
  /// A cast of a row constructor, or to `record`: the constructor's untyped fields take the
  /// composite type's field types, and the row must have as many fields as the type.
  Result<expr::ExprPtr> BindRecordCast(const sql::ParsedExpr& e, ExprContext& ctx);
  /// A column reference, or else a whole-row reference: `t` alone for the FROM item t's
  /// columns as one record, named by them.
  Result<expr::ExprPtr> BindColumnRef(const sql::ParsedExpr& e, ExprContext& ctx);
  /// `op` (eq, ne, lt, le, gt, ge) between two row constructors, field by field with SQL's
  /// NULL semantics.
  Result<expr::ExprPtr> BindRowComparison(const sql::ParsedExpr& e, const char* op,
                                          ExprContext& ctx);
  /// ROW(...) [NOT] IN (ROW(...), ...): the OR of the row comparisons (NOT IN: the AND of <>).
  Result<expr::ExprPtr> BindRowInList(const sql::ParsedExpr& e, ExprContext& ctx);
  /// An INSERT's VALUES item bound for its column of type `target`: a row constructor for a
  /// record column takes the column's type (ROW('y', NULL) into a column of (text, int)), as
  /// PostgreSQL's assignment does; anything else binds as it is.
  Result<expr::ExprPtr> BindAssignedValue(const sql::ParsedExpr& e, ExprContext& ctx,
                                          const TypePtr& target);
  /// IS [NOT] NULL of a record: every field NULL (or the record), or none.
  expr::ExprPtr RecordNullTest(expr::ExprPtr x, bool negated);
  /// The session's composite type of that name, or null.
  TypePtr FindCompositeType(const std::string& name) const;
  /// What values of the type `declared` names need beyond a cast to its type (HasTypeRules):
  /// char(n) and varchar(n) lengths (also of array elements: an explicit cast truncates, an
  /// `assignment` is an error past n, as PostgreSQL's), a domain's NOT NULL and CHECK
  /// constraints, and a composite type's attributes' rules (as `assignment`s too: a record
  /// cast truncates char(n) attributes, json(b)_populate_record is an error). `v` is of the
  /// type BindTypeName gives `declared`.
  Result<expr::ExprPtr> ApplyTypeRules(expr::ExprPtr v, const sql::TypeName& declared,
                                       bool assignment, int location);
  /// A call of json(b)_populate_record(set) whose record type (its first argument's) is a
  /// composite type or domain of the session with rules: the result with them applied (an
  /// assignment of each attribute, as PostgreSQL's populate_record does). kNotSupported for
  /// the recordset forms of such types.
  Result<expr::ExprPtr> ApplyRecordRules(expr::ExprPtr call, std::string_view function,
                                         int location);
  /// ApplyTypeRules for the fields of the struct `v` declared as `field_types`; the struct
  /// stays NULL where it is.
  Result<expr::ExprPtr> ApplyFieldRules(expr::ExprPtr v,
                                        const std::vector<sql::TypeName>& field_types,
                                        bool assignment, int location);
  /// The struct a column definition list (AS x(a int, b text)) declares.
  Result<TypePtr> BindColumnDefinitions(const std::vector<sql::ColumnDef>& columns);
  /// The call of a FROM item BindFunctionUnnest plans, as a list-valued expression: a
  /// set-returning call, or a function returning one record (as a list of it), typed by the
  /// item's column definition list where it has one.
  Result<expr::ExprPtr> BindFromFunction(const sql::TableRef& ref, ExprContext& ctx);

  /// expr::CommonType with the error placed at `location`.
  Result<TypePtr> CommonTypeAt(const TypePtr& a, const TypePtr& b, std::string_view context,
                               int location) const;
  /// expr::ComparisonType (operands that are only compared) with the error placed there.
  Result<TypePtr> ComparisonTypeAt(const TypePtr& a, const TypePtr& b, std::string_view context,
                                   int location) const;
  /// True for string literals and NULL as written (PostgreSQL's "unknown" type), which
  /// take the type their context asks for.
  bool IsUntyped(const expr::Expr& e) const { return untyped_.count(&e) > 0; }
  expr::ExprPtr UntypedLiteral(Scalar value) {
    expr::ExprPtr e = expr::Literal(std::move(value));
    untyped_.insert(e.get());
    untyped_keep_.push_back(e);
    return e;
  }
  /// The PostgreSQL output name of a select item without alias.
  static std::string OutputName(const sql::ParsedExpr& e);
  Result<Scalar> EvaluateConstantAt(const expr::ExprPtr& e, int location);
  Result<std::optional<int64_t>> BindLimitValue(const sql::ParsedExprPtr& e, std::string_view what);

  // Column lookup.
  Result<expr::ExprPtr> ResolveColumn(const sql::ParsedExpr& e, const ExprContext& ctx);

  // ---- subqueries (subquery.cc)
  /// Binds a subquery expression in a scalar context: a placeholder, planned later.
  Result<expr::ExprPtr> BindSubqueryExpr(const sql::ParsedExpr& e, ExprContext& ctx);
  /// Tries to plan a WHERE conjunct that is [NOT] EXISTS / IN (subquery) as a semi or
  /// anti join onto `plan`. Returns false when the conjunct has another form.
  Result<bool> TryPlanSubqueryConjunct(const sql::ParsedExpr& conjunct, const Scope& scope,
                                       LogicalPlanPtr* plan);
  /// Joins the pending subqueries (those with before_aggregate == `before_aggregate`)
  /// onto `plan`; `rewrite` maps outer-side expressions (bound over the FROM scope) to
  /// `plan`'s columns. Afterwards the placeholders resolve through placeholder_values_.
  Status PlanPendingSubqueries(
      LogicalPlanPtr* plan, bool before_aggregate,
      const std::function<Result<expr::ExprPtr>(const expr::ExprPtr&)>& rewrite);

  /// The right side, keys and filter of a join computing `value IN (subquery)`.
  struct InJoinParts {
    LogicalPlanPtr right;
    std::vector<expr::ExprPtr> left_keys, right_keys;
    expr::ExprPtr filter;
  };
  Result<InJoinParts> BuildInJoin(
      const SubqueryBody& body, const expr::ExprPtr& value, int outer_width,
      const std::function<Result<expr::ExprPtr>(const expr::ExprPtr&)>& rewrite, int location);
  /// A correlated x IN (subquery) joined onto `plan` with PostgreSQL's NULL semantics per
  /// correlation group; the result's expression over the new plan.
  Result<expr::ExprPtr> PlanCorrelatedIn(const InJoinParts& parts, LogicalPlanPtr* plan,
                                         int location);
  Result<expr::ExprPtr> PlanOneSubquery(
      const PendingSubquery& p, LogicalPlanPtr* plan,
      const std::function<Result<expr::ExprPtr>(const expr::ExprPtr&)>& rewrite);

  // ---- placeholders
  int NewPlaceholder() { return next_placeholder_++; }
  expr::ExprPtr PlaceholderExpr(int id, TypePtr type, std::string name) {
    return expr::Column(kPlaceholderBase - id, std::move(name), std::move(type));
  }
  bool IsSetReturningPlaceholder(const expr::Expr& e) const {
    return IsPlaceholder(e) && srf_placeholders_.count(PlaceholderId(e)) > 0;
  }
  /// Replaces placeholders whose values are known (placeholder_values_).
  expr::ExprPtr ReplacePlaceholders(const expr::ExprPtr& e) const;

  // Aggregates and windows collected while binding one SELECT's expressions.
  struct AggregateInfo {
    int placeholder;
    AggregateCall call;
    std::string name;
  };
  struct WindowInfo {
    int placeholder;
    WindowCall call;
    std::string name;
  };
  /// A set-returning call of a select list, planned as an Unnest column.
  struct SrfInfo {
    int placeholder;
    expr::ExprPtr call;  // list-valued
    std::string name;
  };
  struct SelectState {
    std::vector<AggregateInfo> aggregates;
    std::vector<SrfInfo> srfs;
    std::vector<WindowInfo> windows;
    std::vector<PendingSubquery> pending;
    const std::vector<sql::WindowDef>* named_windows = nullptr;
    bool correlated_allowed = true;
    /// Outer references created while binding this SELECT (indices into outer plan).
    int outer_refs = 0;
    bool outer_ref_outside_where = false;
    bool binding_where = false;
    /// Its FROM reads a recursive query's work table (no aggregates then).
    bool reads_work_table = false;
  };
  SelectState* state() { return states_.back().get(); }

  std::string_view text() const { return text_; }
  RelationResolver* resolver() { return resolver_; }
  const BindOptions& options() const { return options_; }

  // ---- WITH (bind_cte.cc)
  /// The WITH items of one WITH clause, by name.
  struct CteLevel {
    std::map<std::string, const sql::CommonTableExpr*> ctes;
    bool recursive = false;  // WITH RECURSIVE: every item sees every item, itself included
  };
  std::vector<CteLevel> cte_stack_;  // innermost last

  /// Where a recursive query's reference to itself must not be (PostgreSQL's rules).
  enum class RecursionContext { kSubquery, kOuterJoin, kExcept };
  /// An item of a WITH RECURSIVE list whose body is being bound.
  struct RecursiveCte {
    enum class Phase {
      kNonRecursiveTerm,  // the terms before the last UNION: no self-reference
      kMalformed,         // not a UNION: a self-reference is an error
      kRecursiveTerm,     // the last UNION input: a self-reference reads the work table
    };
    const sql::CommonTableExpr* cte = nullptr;
    size_t level = 0;  // its WITH clause in cte_stack_
    Phase phase = Phase::kMalformed;
    int work_table_id = 0;
    SchemaPtr schema;     // the work table's columns
    int references = 0;   // self-references bound in the recursive term
    size_t contexts = 0;  // recursion_contexts_.size() when the term began
    size_t bodies = 0;    // cte_bodies_.size() when the term began
  };
  std::vector<RecursiveCte*> recursive_ctes_;
  std::vector<RecursionContext> recursion_contexts_;
  /// The items of WITH RECURSIVE lists whose bodies are being bound, with their level.
  std::vector<std::pair<const sql::CommonTableExpr*, size_t>> cte_bodies_;
  int next_work_table_id_ = 1;

  /// Keeps `context` on recursion_contexts_ while it lives (when `active`).
  class RecursionContextScope {
   public:
    RecursionContextScope(Binder* binder, RecursionContext context, bool active = true)
        : binder_(binder), active_(active) {
      if (active_) binder_->recursion_contexts_.push_back(context);
    }
    ~RecursionContextScope() {
      if (active_) binder_->recursion_contexts_.pop_back();
    }
    RecursionContextScope(const RecursionContextScope&) = delete;
    RecursionContextScope& operator=(const RecursionContextScope&) = delete;

   private:
    Binder* binder_;
    bool active_;
  };

  /// The plan a FROM item `ref` naming the WITH item `cte` of cte_stack_[level] reads: the
  /// item's body bound (a RecursiveQuery for a recursive item), or, inside the item's own
  /// recursive term, its work table. PostgreSQL's errors for self-references where they may
  /// not be, and for mutual recursion.
  Result<LogicalPlanPtr> BindCteReference(const sql::TableRef& ref, size_t level,
                                          const sql::CommonTableExpr& cte);
  /// True when output column `i` of `plan` is an untyped literal as written (SELECT 'a',
  /// SELECT NULL), which takes the type the other inputs of a union give it.
  bool IsUntypedOutput(const LogicalPlanPtr& plan, int i) const {
    return plan->kind == LogicalKind::kProjection &&
           IsUntyped(*plan->exprs[static_cast<size_t>(i)]);
  }
  /// `plan` with its output columns cast to `types` (where they differ), names kept.
  Result<LogicalPlanPtr> CastOutputs(const LogicalPlanPtr& plan, const std::vector<TypePtr>& types,
                                     int location);
  /// The source of a table function call: the one an earlier call of the statement with the
  /// same name and arguments resolved (so that a WITH item referenced twice reads one
  /// source, and both references are seen to be the same), else a new one.
  Result<TableSourcePtr> ResolveTableFunction(const std::string& name,
                                              const std::vector<TableFunctionArg>& args,
                                              int location);
  std::map<std::string, TableSourcePtr> table_cache_;
  struct ResolvedTableFunction {
    std::string name;
    std::vector<TableFunctionArg> args;
    TableSourcePtr source;
  };
  std::vector<ResolvedTableFunction> table_function_cache_;
  std::vector<std::unique_ptr<SelectState>> states_;
  std::map<int, expr::ExprPtr> placeholder_values_;
  std::set<int> srf_placeholders_;  // placeholders of set-returning calls
  std::set<const expr::Expr*> untyped_;
  std::map<const expr::Expr*, int> column_locations_;  // where column refs were written
  std::vector<expr::ExprPtr> untyped_keep_;            // keeps untyped_'s pointers alive
  /// Expressions the binder writes itself (ARRAY(subquery)'s rewrite): pending subqueries
  /// point into them until the query is planned.
  std::vector<sql::ParsedExprPtr> synthesized_;
  /// Outer references created so far (any subquery level).
  int outer_ref_count_ = 0;

 private:
  Result<LogicalPlanPtr> BindSelectImpl(const sql::SelectStmt& stmt, const SelectOptions& opts);
  Result<expr::ExprPtr> BindExprImpl(const sql::ParsedExpr& e, ExprContext& ctx);
  Result<expr::ExprPtr> BindFunction(const sql::ParsedExpr& e, ExprContext& ctx);
  Result<expr::ExprPtr> BindBinaryOp(const sql::ParsedExpr& e, ExprContext& ctx);
  Result<expr::ExprPtr> BindAggregate(const sql::ParsedExpr& e, ExprContext& ctx);
  Result<expr::ExprPtr> BindWindow(const sql::ParsedExpr& e, ExprContext& ctx);
  /// percentile_cont / percentile_disc / mode ... WITHIN GROUP (ORDER BY x): array_agg(x
  /// ORDER BY x) and the function's final step over that list (expr/ordered_set_functions.cc).
  Result<expr::ExprPtr> BindOrderedSetAggregate(const sql::ParsedExpr& e, ExprContext& ctx);
  Result<expr::ExprPtr> BindSetReturning(expr::ExprPtr call, const sql::ParsedExpr& e,
                                         ExprContext& ctx);
  /// A FROM item calling a set-returning function: an Unnest over `left` (the FROM items
  /// before it, whose columns its arguments may use, as PostgreSQL's implicitly lateral
  /// function calls) or over one empty row.
  Result<BoundRelation> BindFunctionUnnest(const sql::TableRef& ref, const BoundRelation* left,
                                           const Scope* outer);
  /// A WITH RECURSIVE item's body (bind_cte.cc).
  Result<LogicalPlanPtr> BindRecursiveLevelCte(const sql::CommonTableExpr& cte, size_t level);
  /// The RecursiveQuery of an item of the form `static UNION [ALL] recursive`, or null when
  /// its last UNION input does not reference it (a plain WITH item).
  Result<LogicalPlanPtr> BindRecursiveUnion(const sql::CommonTableExpr& cte, RecursiveCte* rc);
  Result<LogicalPlanPtr> BindWorkTableReference(const sql::TableRef& ref, RecursiveCte* rc);
  /// Whether a FROM item is a call that BindFunctionUnnest plans.
  bool IsUnnestRef(const sql::TableRef& ref) const;

  std::string_view text_;
  RelationResolver* resolver_;
  BindOptions options_;
  const sql::SelectStmt* insert_values_ = nullptr;
  int next_placeholder_ = 0;
};

/// True when `e` or a sub-expression satisfies `pred`.
bool AnyOf(const expr::ExprPtr& e, const std::function<bool(const expr::Expr&)>& pred);
/// A copy where every node for which `fn` returns non-null is replaced by that result.
Result<expr::ExprPtr> Transform(
    const expr::ExprPtr& e, const std::function<Result<expr::ExprPtr>(const expr::ExprPtr&)>& fn);

}  // namespace floe::plan::internal
