#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/transform.h"
#include "floe/type/type.h"

namespace floe::iceberg {

class Expression;
/// Expressions are immutable and shared.
using ExpressionPtr = std::shared_ptr<const Expression>;

/// The operations of Iceberg filter expressions (spec, "Scan Planning"; the API's
/// expression model).
enum class Operation : uint8_t {
  kTrue,
  kFalse,
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kNotNull,
  kIsNan,
  kNotNan,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kEq,
  kNotEq,
  kIn,
  kNotIn,
  kStartsWith,
  kNotStartsWith,
};

/// The operation that is true exactly where `op` is false (for predicates; kAnd <-> kOr
/// and kTrue <-> kFalse too). kNot maps to itself.
Operation Negate(Operation op);
/// The operation with its operands swapped (a < b <=> b > a); others map to themselves.
Operation FlipComparison(Operation op);

/// What a predicate tests: a column, optionally through a transform (`bucket(16, id)`).
/// Unbound terms name the column; bound terms carry its field id and type.
struct Term {
  /// The column's dotted name as written (unbound) or its full name (bound).
  std::string name;
  std::optional<Transform> transform;
  /// Bound terms only: the field id, the source field's type and nullability.
  int32_t field_id = kNoFieldId;
  TypePtr source_type;
  bool nullable = true;
  /// For terms bound to a partition tuple: the index of the field in the tuple (-1
  /// otherwise).
  int position = -1;

  /// An unbound term on `column`, optionally through `transform`.
  static Term Ref(std::string column, std::optional<Transform> transform = std::nullopt) {
    Term t;
    t.name = std::move(column);
    t.transform = std::move(transform);
    return t;
  }

  bool bound() const { return source_type != nullptr; }
  /// The type of the term's values: the source type, or the transform's result type.
  TypePtr type() const;
  /// "id", "bucket(16, id)".
  std::string ToString() const;
  bool operator==(const Term& other) const;
};

/// A filter expression: TRUE, FALSE, AND, OR, NOT or a predicate on a term. Predicates
/// are unbound (on a column name, literals as given) or bound (on a field id, literals
/// converted to the term's type). Build with the factories below; they simplify
/// constants (AND with FALSE is FALSE, NOT NOT x is x, ...).
class Expression {
 public:
  static ExpressionPtr True();
  static ExpressionPtr False();
  static ExpressionPtr And(ExpressionPtr left, ExpressionPtr right);
  static ExpressionPtr Or(ExpressionPtr left, ExpressionPtr right);
  static ExpressionPtr Not(ExpressionPtr child);
  /// An unbound predicate on a column name; literals may be of any convertible type.
  /// The literal count must suit the operation (none for null/NaN tests, one for
  /// comparisons and STARTS WITH, any for IN): kInvalidArgument otherwise.
  static Result<ExpressionPtr> Predicate(Operation op, Term term,
                                         std::vector<Scalar> literals = {});
  /// Predicate(op, Term{column}, literals) for the common case; aborts on a bad count.
  static ExpressionPtr Make(Operation op, std::string column, std::vector<Scalar> literals = {});
  /// A bound predicate (used by Bind and the projections); literals must already have
  /// term.type(). No checks beyond the literal count.
  static ExpressionPtr MakeBound(Operation op, Term term, std::vector<Scalar> literals = {});

  Operation op() const { return op_; }
  bool is_predicate() const { return op_ >= Operation::kIsNull; }
  /// For AND/OR: both children; for NOT: left() is the child.
  const ExpressionPtr& left() const { return left_; }
  const ExpressionPtr& right() const { return right_; }
  const ExpressionPtr& child() const { return left_; }
  const Term& term() const { return term_; }
  const std::vector<Scalar>& literals() const { return literals_; }
  const Scalar& literal() const { return literals_[0]; }
  /// True when every predicate in the tree is bound (constants count as bound).
  bool bound() const;

  /// "id > 5 and name starts with 'a'", "not (x is null)", "id in (1, 2)", "true".
  std::string ToString() const;
  /// Structural equality: same shape, operations, terms and literal values.
  bool Equals(const Expression& other) const;

 private:
  Expression() = default;

  Operation op_ = Operation::kTrue;
  ExpressionPtr left_;
  ExpressionPtr right_;
  Term term_;
  std::vector<Scalar> literals_;
};

bool IsAlwaysTrue(const Expression& expr);
bool IsAlwaysFalse(const Expression& expr);

/// Binds an unbound expression to `schema`: column names resolve to fields (dotted names
/// reach nested struct fields; case-insensitive matching when !case_sensitive), literals
/// convert to the field's (or transform result's) type. Conversions that go out of the
/// type's range turn the predicate into TRUE or FALSE (an int column is never < a long
/// literal below INT32_MIN). Strings convert to dates, times, timestamps, uuids and
/// decimals. Predicates that are decided by nullability (IS NULL on a required column)
/// fold to constants. Errors: kBind naming the column for an unknown column, a
/// non-primitive column, a literal that cannot convert, a NULL or NaN literal in a
/// comparison, IS NAN on a non-floating column, STARTS WITH on a non-string. An
/// already bound expression is returned as is.
Result<ExpressionPtr> Bind(const ExpressionPtr& expr, const Schema& schema, bool case_sensitive);

/// Pushes NOT down to the predicates (negating them), leaving no NOT nodes.
ExpressionPtr RewriteNot(const ExpressionPtr& expr);

/// The field ids a bound expression reads, ascending and unique.
std::vector<int32_t> ReferencedFieldIds(const Expression& expr);

}  // namespace floe::iceberg
