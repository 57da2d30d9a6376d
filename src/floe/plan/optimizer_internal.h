#pragma once

// The optimizer's rules as plain functions (one file each), shared by optimizer.cc and
// the optimizer's tests. Each takes an immutable plan and returns a plan with the same
// output schema and the same result.

#include <functional>
#include <vector>

#include "floe/common/result.h"
#include "floe/expr/expr.h"
#include "floe/plan/logical_plan.h"

namespace floe::plan::internal {

/// Constant folding and boolean simplification of one expression. Constant
/// sub-expressions are evaluated; an evaluation error is returned (a constant 1/0 is a
/// query error) unless the sub-expression sits where it might not be evaluated (a CASE
/// branch after the first WHEN, a COALESCE argument after the first), where it is left
/// as it is.
Result<expr::ExprPtr> SimplifyExpr(const expr::ExprPtr& e);

/// Rewrites the plan bottom-up: every node's children first (the node is copied only when
/// one of them changed), then `fn` on the node.
LogicalPlanPtr TransformUp(const LogicalPlanPtr& plan,
                           const std::function<LogicalPlanPtr(const LogicalPlanPtr&)>& fn);

/// Simplifies every expression of the plan; removes filters that are always true and
/// replaces filters that are never true (and what they make empty) by empty Values.
Result<LogicalPlanPtr> SimplifyPlan(const LogicalPlanPtr& plan);

/// Moves filter conjuncts as close to the scans as they can go (see
/// rule_predicate_pushdown.cc), turning equalities between join sides into join keys.
Result<LogicalPlanPtr> PushDownPredicates(const LogicalPlanPtr& plan);

/// Semi and anti joins without a residual filter move below projections and into the
/// side of an inner join that holds their keys' columns.
Result<LogicalPlanPtr> PushDownSemiJoins(const LogicalPlanPtr& plan);

/// Aggregations whose groups a join keeps only where the other side has their keys read
/// only the input rows with those keys (a semi join below the aggregation), when the
/// estimates say it pays (rule_semi_join_reduction.cc).
Result<LogicalPlanPtr> ReduceAggregatesBySemiJoin(const LogicalPlanPtr& plan);

/// Aggregations whose aggregates are all DISTINCT over the same arguments (count, sum, avg,
/// min, max) become a grouping by the keys and the arguments under the plain functions
/// (rule_distinct_aggregates.cc).
Result<LogicalPlanPtr> SplitDistinctAggregates(const LogicalPlanPtr& plan);

/// True when two aggregate calls over the same input compute the same value (the function,
/// typed arguments, filter and ORDER BY equal; nothing volatile), as SameSubtree compares
/// aggregations (logical_plan.cc).
bool SameAggregate(const AggregateCall& a, const AggregateCall& b);

/// An aggregation without GROUP BY whose input is the same as a grouped aggregation's
/// elsewhere in the plan, and whose calls combine from per-group values (sum, min, max,
/// count), reads that grouped aggregation instead (rule_totals_from_groups.cc): the plan
/// then holds it twice and it is computed once.
Result<LogicalPlanPtr> DeriveTotalsFromGroups(const LogicalPlanPtr& plan);

/// Greedy reordering of trees of inner joins by estimated row counts.
Result<LogicalPlanPtr> ReorderJoins(const LogicalPlanPtr& plan);

/// Scans read only the columns used; unused projection expressions and pass-through
/// columns are dropped.
Result<LogicalPlanPtr> PushDownProjections(const LogicalPlanPtr& plan);

/// Calls and casts that occur more than once among an aggregation's group keys and
/// arguments (where every row evaluates them) are computed once, by a Projection below it.
Result<LogicalPlanPtr> HoistCommonSubexpressions(const LogicalPlanPtr& plan);

/// Limits pushed through projections, into UNION ALL inputs, the preserved side of left
/// joins and scans.
Result<LogicalPlanPtr> PushDownLimits(const LogicalPlanPtr& plan);

/// count(*) without GROUP BY over an unfiltered scan of a source with an exact row count
/// becomes a one-row Values (no data file is read).
Result<LogicalPlanPtr> AnswerFromStatistics(const LogicalPlanPtr& plan);

/// The conjuncts of `e` with what every branch of a disjunction holds factored out:
/// (a AND b) OR (a AND c) gives {a, b OR c}; an OR left with a branch that held only common
/// conjuncts is true and dropped. Anything else gives {e}. (disjunctions.cc)
std::vector<expr::ExprPtr> FactorDisjunction(const expr::ExprPtr& e);

/// What the disjunction `e` implies over the conjuncts `keep` accepts: the OR of each
/// branch's kept conjuncts, or nullptr when a branch keeps none (or `e` is no OR).
expr::ExprPtr ImpliedDisjunction(const expr::ExprPtr& e,
                                 const std::function<bool(const expr::Expr&)>& keep);

/// Restrictions of single columns the disjunction `e` implies, for pruning: for a column
/// every branch compares with constants, `column IN (every branch's values)` (or `=`), or
/// the bounds that admit every branch's range (`>=`/`>` the least lower bound, `<=`/`<` the
/// greatest upper one).
std::vector<expr::ExprPtr> ImpliedColumnRanges(const expr::ExprPtr& e);

/// True for a boolean literal equal to `value`.
bool IsBoolLiteral(const expr::Expr& e, bool value);
/// True for a NULL literal.
bool IsNullLiteral(const expr::Expr& e);

/// Estimated fraction of rows for which `predicate` is true, given the statistics of the
/// input it is evaluated over.
double EstimateSelectivity(const expr::Expr& predicate, const Statistics& input);

}  // namespace floe::plan::internal
