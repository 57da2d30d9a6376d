#pragma once

// A boolean expression evaluated as a filter: which rows of a batch it keeps. Only TRUE
// keeps a row, so a conjunction `c1 AND c2 AND ...` keeps exactly the rows where every
// conjunct is TRUE, and the conjuncts can be evaluated one after another, each on the
// rows still selected, stopping once none is left. Comparisons of a column with a
// constant run first (they cannot fail) as tight loops; once few rows remain they test
// only those rows, and other conjuncts are evaluated on just those rows gathered.
// Evaluating a conjunct on fewer rows can only avoid errors a row outside the result
// would have raised, as PostgreSQL's own evaluation of AND stops at the first FALSE.

#include <cstdint>
#include <optional>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/expr/physical_expr.h"

namespace floe::expr {

namespace internal {
class ConstantComparison;
}  // namespace internal

/// The rows a filter keeps from one batch.
struct FilterSelection {
  /// How many rows are kept.
  int64_t selected = 0;
  /// When some but not all rows are kept: a boolean mask without NULLs, true for the
  /// kept rows. Null when every row or no row is kept.
  ArrayPtr mask;
};

/// A boolean PhysicalExpr prepared for filtering. Immutable; Select may be called from
/// several threads at once.
class FilterPredicate {
 public:
  /// kInternal when `predicate` is not boolean.
  static Result<FilterPredicate> Make(PhysicalExprPtr predicate);

  FilterPredicate(FilterPredicate&&) noexcept;
  FilterPredicate& operator=(FilterPredicate&&) noexcept;
  ~FilterPredicate();

  /// The rows of `batch` where the predicate is TRUE. Errors as PhysicalExpr::Evaluate.
  Result<FilterSelection> Select(const RecordBatch& batch, EvalContext& ctx) const;

  const PhysicalExprPtr& predicate() const { return predicate_; }

 private:
  struct Conjunct;
  FilterPredicate() = default;

  PhysicalExprPtr predicate_;
  std::vector<Conjunct> conjuncts_;
};

}  // namespace floe::expr
