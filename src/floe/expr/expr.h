#pragma once

// Bound scalar expressions: what the binder produces and the logical plan holds. An Expr
// is typed and refers to its input by column index (into the schema of the plan node's
// input; for joins, the left columns followed by the right ones). Expressions are
// immutable and shared; rewrites build new trees. Compile (physical_expr.h) turns one
// into an evaluable PhysicalExpr.
//
// Function calls name a function of the registry (function_registry.h) with arguments
// already coerced to the signature the registry resolved, so a kCall needs no further
// type checking. Three-valued logic and the other SQL forms are calls of reserved names:
//   "and", "or" (two or more args), "not", "is_null", "is_not_null",
//   "is_true", "is_false", "is_not_true", "is_not_false",
//   "is_distinct_from", "is_not_distinct_from",
//   "in_list"(value, e1, e2, ...)  (NOT IN is not(in_list(...))),
//   "like"(value, pattern[, escape]), "ilike"(...), "coalesce"(...), "nullif"(a, b),
//   "greatest"(...), "least"(...),
//   comparison "eq", "ne", "lt", "le", "gt", "ge",
//   arithmetic "add", "subtract", "multiply", "divide", "modulo", "negate",
//   "concat_op" (||),
//   "interval_add"(x, months int32, days int32, micros int64) for date/timestamp +- interval.
// CASE is its own kind because its branches are evaluated only for the rows that reach
// them (CASE WHEN x = 0 THEN 0 ELSE 1 / x END never divides by zero).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "floe/batch/scalar.h"
#include "floe/type/type.h"

namespace floe::expr {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

enum class ExprKind { kColumn, kLiteral, kCall, kCast, kCase };

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  TypePtr type;           // the result type
  bool nullable = true;   // false only when the result can never be NULL

  // kColumn
  int column = -1;        // index into the input schema
  std::string name;       // kColumn: the column's name (display only); kCall: function name

  // kLiteral
  Scalar literal = Scalar::Null(nullptr);

  // kCall: args; kCast: args[0]; kCase: args = [when0, then0, when1, then1, ..., else?]
  std::vector<ExprPtr> args;
  bool case_has_else = false;  // kCase: the last arg is the ELSE value

  /// "#3:name", literals in SQL form ('abc', 1, NULL::int64), calls as name(args),
  /// casts as CAST(x AS type), CASE WHEN .. THEN .. END.
  std::string ToString() const;
  /// Structural equality (types included).
  bool Equals(const Expr& other) const;
  /// A hash consistent with Equals.
  size_t Hash() const;
};

ExprPtr Column(int index, std::string name, TypePtr type, bool nullable = true);
ExprPtr Literal(Scalar value);
/// A call of a registry function; `type` is the resolved return type.
ExprPtr Call(std::string name, std::vector<ExprPtr> args, TypePtr type, bool nullable = true);
ExprPtr Cast(ExprPtr input, TypePtr type);
/// CASE WHEN w0 THEN t0 ... [ELSE e] END; `when_then` alternates when/then.
ExprPtr Case(std::vector<ExprPtr> when_then, ExprPtr else_value, TypePtr type);

/// Conveniences for the reserved boolean calls (they build kCall nodes).
ExprPtr And(std::vector<ExprPtr> args);
ExprPtr Or(std::vector<ExprPtr> args);
ExprPtr Not(ExprPtr arg);
ExprPtr IsNull(ExprPtr arg);
/// eq/ne/lt/le/gt/ge over two arguments of one type.
ExprPtr Compare(std::string op, ExprPtr left, ExprPtr right);

/// Splits nested "and" calls into their conjuncts (a lone non-AND expression yields itself).
std::vector<ExprPtr> SplitConjunction(const ExprPtr& expr);
/// And of the list, or nullptr for an empty list, or the single element.
ExprPtr JoinConjunction(std::vector<ExprPtr> conjuncts);

/// Indices of every column referenced, ascending, without duplicates.
std::vector<int> ReferencedColumns(const Expr& expr);
/// A copy with every column index i replaced by mapping[i] (mapping[i] < 0 is an
/// internal error: the caller promised the column survives).
ExprPtr RemapColumns(const ExprPtr& expr, const std::vector<int>& mapping);
/// A copy where every column i is replaced by replacements[i] (inlining a projection).
ExprPtr SubstituteColumns(const ExprPtr& expr, const std::vector<ExprPtr>& replacements);
/// True when the expression is free of column references.
bool IsConstant(const Expr& expr);
/// True when evaluation can differ between calls with equal inputs (now(), random()).
bool IsVolatile(const Expr& expr);

}  // namespace floe::expr
