#include "floe/iceberg/expression.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "floe/common/logging.h"

namespace floe::iceberg {

Operation Negate(Operation op) {
  switch (op) {
    case Operation::kTrue:
      return Operation::kFalse;
    case Operation::kFalse:
      return Operation::kTrue;
    case Operation::kAnd:
      return Operation::kOr;
    case Operation::kOr:
      return Operation::kAnd;
    case Operation::kNot:
      return Operation::kNot;
    case Operation::kIsNull:
      return Operation::kNotNull;
    case Operation::kNotNull:
      return Operation::kIsNull;
    case Operation::kIsNan:
      return Operation::kNotNan;
    case Operation::kNotNan:
      return Operation::kIsNan;
    case Operation::kLt:
      return Operation::kGtEq;
    case Operation::kLtEq:
      return Operation::kGt;
    case Operation::kGt:
      return Operation::kLtEq;
    case Operation::kGtEq:
      return Operation::kLt;
    case Operation::kEq:
      return Operation::kNotEq;
    case Operation::kNotEq:
      return Operation::kEq;
    case Operation::kIn:
      return Operation::kNotIn;
    case Operation::kNotIn:
      return Operation::kIn;
    case Operation::kStartsWith:
      return Operation::kNotStartsWith;
    case Operation::kNotStartsWith:
      return Operation::kStartsWith;
  }
  return op;
}

Operation FlipComparison(Operation op) {
  switch (op) {
    case Operation::kLt:
      return Operation::kGt;
    case Operation::kLtEq:
      return Operation::kGtEq;
    case Operation::kGt:
      return Operation::kLt;
    case Operation::kGtEq:
      return Operation::kLtEq;
    default:
      return op;
  }
}

// ---------------------------------------------------------------------------------------
// Terms and expressions
// ---------------------------------------------------------------------------------------

TypePtr Term::type() const {
  if (!transform.has_value() || source_type == nullptr) return source_type;
  auto r = transform->ResultType(source_type);
  return r.has_value() ? *r : source_type;
}

std::string Term::ToString() const {
  return transform.has_value() ? transform->ToExpressionString(name) : name;
}

bool Term::operator==(const Term& other) const {
  if (transform != other.transform || field_id != other.field_id || position != other.position) {
    return false;
  }
  if (bound() != other.bound()) return false;
  if (bound()) return source_type->Equals(*other.source_type);
  return name == other.name;
}

ExpressionPtr Expression::True() {
  static const ExpressionPtr kTrue = [] {
    std::shared_ptr<Expression> e(new Expression());
    e->op_ = Operation::kTrue;
    return e;
  }();
  return kTrue;
}

ExpressionPtr Expression::False() {
  static const ExpressionPtr kFalse = [] {
    std::shared_ptr<Expression> e(new Expression());
    e->op_ = Operation::kFalse;
    return e;
  }();
  return kFalse;
}

ExpressionPtr Expression::And(ExpressionPtr left, ExpressionPtr right) {
  if (left->op_ == Operation::kFalse || right->op_ == Operation::kFalse) return False();
  if (left->op_ == Operation::kTrue) return right;
  if (right->op_ == Operation::kTrue) return left;
  std::shared_ptr<Expression> e(new Expression());
  e->op_ = Operation::kAnd;
  e->left_ = std::move(left);
  e->right_ = std::move(right);
  return e;
}

ExpressionPtr Expression::Or(ExpressionPtr left, ExpressionPtr right) {
  if (left->op_ == Operation::kTrue || right->op_ == Operation::kTrue) return True();
  if (left->op_ == Operation::kFalse) return right;
  if (right->op_ == Operation::kFalse) return left;
  std::shared_ptr<Expression> e(new Expression());
  e->op_ = Operation::kOr;
  e->left_ = std::move(left);
  e->right_ = std::move(right);
  return e;
}

ExpressionPtr Expression::Not(ExpressionPtr child) {
  if (child->op_ == Operation::kTrue) return False();
  if (child->op_ == Operation::kFalse) return True();
  if (child->op_ == Operation::kNot) return child->left_;
  std::shared_ptr<Expression> e(new Expression());
  e->op_ = Operation::kNot;
  e->left_ = std::move(child);
  return e;
}

namespace {

Status CheckLiteralCount(Operation op, size_t n) {
  switch (op) {
    case Operation::kIsNull:
    case Operation::kNotNull:
    case Operation::kIsNan:
    case Operation::kNotNan:
      if (n != 0) return Status::Invalid("a null or NaN test takes no literal, got {}", n);
      return Status::OK();
    case Operation::kIn:
    case Operation::kNotIn:
      return Status::OK();
    case Operation::kTrue:
    case Operation::kFalse:
    case Operation::kAnd:
    case Operation::kOr:
    case Operation::kNot:
      return Status::Invalid("not a predicate operation");
    default:
      if (n != 1) return Status::Invalid("a comparison takes one literal, got {}", n);
      return Status::OK();
  }
}

}  // namespace

Result<ExpressionPtr> Expression::Predicate(Operation op, Term term, std::vector<Scalar> literals) {
  FLOE_RETURN_NOT_OK(CheckLiteralCount(op, literals.size()));
  std::shared_ptr<Expression> e(new Expression());
  e->op_ = op;
  e->term_ = std::move(term);
  e->literals_ = std::move(literals);
  return ExpressionPtr(std::move(e));
}

ExpressionPtr Expression::Make(Operation op, std::string column, std::vector<Scalar> literals) {
  Term term;
  term.name = std::move(column);
  auto r = Predicate(op, std::move(term), std::move(literals));
  FLOE_CHECK(r.has_value(), r.has_value() ? "" : r.error().ToString());
  return *r;
}

ExpressionPtr Expression::MakeBound(Operation op, Term term, std::vector<Scalar> literals) {
  std::shared_ptr<Expression> e(new Expression());
  e->op_ = op;
  e->term_ = std::move(term);
  e->literals_ = std::move(literals);
  return e;
}

bool Expression::bound() const {
  switch (op_) {
    case Operation::kTrue:
    case Operation::kFalse:
      return true;
    case Operation::kAnd:
    case Operation::kOr:
      return left_->bound() && right_->bound();
    case Operation::kNot:
      return left_->bound();
    default:
      return term_.bound();
  }
}

std::string Expression::ToString() const {
  const std::string t = term_.ToString();
  switch (op_) {
    case Operation::kTrue:
      return "true";
    case Operation::kFalse:
      return "false";
    case Operation::kAnd: {
      // AND binds tighter than OR, so only OR children need parentheses.
      auto side = [](const Expression& e) {
        return e.op_ == Operation::kOr ? "(" + e.ToString() + ")" : e.ToString();
      };
      return side(*left_) + " and " + side(*right_);
    }
    case Operation::kOr:
      return left_->ToString() + " or " + right_->ToString();
    case Operation::kNot:
      return "not (" + left_->ToString() + ")";
    case Operation::kIsNull:
      return t + " is null";
    case Operation::kNotNull:
      return t + " is not null";
    case Operation::kIsNan:
      return t + " is nan";
    case Operation::kNotNan:
      return t + " is not nan";
    case Operation::kLt:
      return t + " < " + LiteralToString(literal());
    case Operation::kLtEq:
      return t + " <= " + LiteralToString(literal());
    case Operation::kGt:
      return t + " > " + LiteralToString(literal());
    case Operation::kGtEq:
      return t + " >= " + LiteralToString(literal());
    case Operation::kEq:
      return t + " = " + LiteralToString(literal());
    case Operation::kNotEq:
      return t + " != " + LiteralToString(literal());
    case Operation::kIn:
    case Operation::kNotIn: {
      std::string out = t + (op_ == Operation::kIn ? " in (" : " not in (");
      for (size_t i = 0; i < literals_.size(); ++i) {
        if (i > 0) out += ", ";
        out += LiteralToString(literals_[i]);
      }
      return out + ")";
    }
    case Operation::kStartsWith:
      return t + " starts with " + LiteralToString(literal());
    case Operation::kNotStartsWith:
      return t + " not starts with " + LiteralToString(literal());
  }
  return "";
}

bool Expression::Equals(const Expression& other) const {
  if (op_ != other.op_) return false;
  switch (op_) {
    case Operation::kTrue:
    case Operation::kFalse:
      return true;
    case Operation::kAnd:
    case Operation::kOr:
      return left_->Equals(*other.left_) && right_->Equals(*other.right_);
    case Operation::kNot:
      return left_->Equals(*other.left_);
    default:
      break;
  }
  if (!(term_ == other.term_) || literals_.size() != other.literals_.size()) return false;
  for (size_t i = 0; i < literals_.size(); ++i) {
    const Scalar& a = literals_[i];
    const Scalar& b = other.literals_[i];
    if (a.is_null() != b.is_null() || a.type()->id() != b.type()->id()) return false;
    if (!a.is_null() && CompareValues(a, b) != 0) return false;
  }
  return true;
}

bool IsAlwaysTrue(const Expression& expr) { return expr.op() == Operation::kTrue; }
bool IsAlwaysFalse(const Expression& expr) { return expr.op() == Operation::kFalse; }

ExpressionPtr RewriteNot(const ExpressionPtr& expr) {
  switch (expr->op()) {
    case Operation::kTrue:
    case Operation::kFalse:
      return expr;
    case Operation::kAnd:
    case Operation::kOr: {
      ExpressionPtr l = RewriteNot(expr->left());
      ExpressionPtr r = RewriteNot(expr->right());
      // Subtrees without NOT come back unchanged; so does their parent.
      if (l == expr->left() && r == expr->right()) return expr;
      return expr->op() == Operation::kAnd ? Expression::And(std::move(l), std::move(r))
                                           : Expression::Or(std::move(l), std::move(r));
    }
    case Operation::kNot: {
      const ExpressionPtr& c = expr->child();
      switch (c->op()) {
        case Operation::kTrue:
          return Expression::False();
        case Operation::kFalse:
          return Expression::True();
        case Operation::kAnd:
          return Expression::Or(RewriteNot(Expression::Not(c->left())),
                                RewriteNot(Expression::Not(c->right())));
        case Operation::kOr:
          return Expression::And(RewriteNot(Expression::Not(c->left())),
                                 RewriteNot(Expression::Not(c->right())));
        case Operation::kNot:
          return RewriteNot(c->child());
        default:
          return Expression::MakeBound(Negate(c->op()), c->term(), c->literals());
      }
    }
    default:
      return expr;
  }
}

namespace {

void CollectIds(const Expression& e, std::set<int32_t>* ids) {
  switch (e.op()) {
    case Operation::kTrue:
    case Operation::kFalse:
      return;
    case Operation::kAnd:
    case Operation::kOr:
      CollectIds(*e.left(), ids);
      CollectIds(*e.right(), ids);
      return;
    case Operation::kNot:
      CollectIds(*e.child(), ids);
      return;
    default:
      if (e.term().bound()) ids->insert(e.term().field_id);
  }
}

}  // namespace

std::vector<int32_t> ReferencedFieldIds(const Expression& expr) {
  std::set<int32_t> ids;
  CollectIds(expr, &ids);
  return {ids.begin(), ids.end()};
}

// ---------------------------------------------------------------------------------------
// Binding
// ---------------------------------------------------------------------------------------

namespace {

bool IsNaNValue(const Scalar& s) {
  if (s.is_null()) return false;
  if (s.type()->id() == TypeId::kFloat32) return std::isnan(s.get<float>());
  if (s.type()->id() == TypeId::kFloat64) return std::isnan(s.get<double>());
  return false;
}

Result<ExpressionPtr> BindPredicate(const Expression& pred, const Schema& schema,
                                    bool case_sensitive) {
  const Term& unbound = pred.term();
  FLOE_ASSIGN_OR_RAISE(const Field* field, schema.FindFieldByName(unbound.name, case_sensitive));
  if (field == nullptr) {
    return Status::Bind("cannot find column '{}' in schema {}", unbound.name, schema.schema_id());
  }
  if (field->type()->is_nested()) {
    return Status::Bind("column '{}' has nested type {} and cannot be filtered", unbound.name,
                        field->type()->ToString());
  }
  Term term;
  term.name = schema.FindColumnName(field->field_id()).value_or(field->name());
  term.transform = unbound.transform;
  term.field_id = field->field_id();
  term.source_type = field->type();
  term.nullable = field->nullable();
  if (term.transform.has_value() && !term.transform->CanTransform(*field->type())) {
    return Status::Bind("transform {} cannot apply to column '{}' of type {}",
                        term.transform->ToString(), unbound.name, field->type()->ToString());
  }
  // A transform term can be NULL for non-null input only through void.
  const bool term_nullable =
      term.nullable || (term.transform && term.transform->kind() == TransformKind::kVoid);
  const TypePtr type = term.type();
  const Operation op = pred.op();
  switch (op) {
    case Operation::kIsNull:
      if (!term_nullable) return Expression::False();
      return Expression::MakeBound(op, term);
    case Operation::kNotNull:
      if (!term_nullable) return Expression::True();
      return Expression::MakeBound(op, term);
    case Operation::kIsNan:
    case Operation::kNotNan:
      if (!type->is_floating()) {
        return Status::Bind("{} applies to float and double columns only, not '{}' of type {}",
                            op == Operation::kIsNan ? "IS NAN" : "NOT NAN", unbound.name,
                            type->ToString());
      }
      return Expression::MakeBound(op, term);
    case Operation::kStartsWith:
    case Operation::kNotStartsWith:
      if (type->id() != TypeId::kString) {
        return Status::Bind("STARTS WITH applies to string columns only, not '{}' of type {}",
                            unbound.name, type->ToString());
      }
      break;
    default:
      break;
  }
  std::vector<Scalar> converted;
  bool any_above = false, any_below = false;
  for (const Scalar& lit : pred.literals()) {
    if (lit.is_null()) {
      return Status::Bind("comparison of column '{}' with NULL; use IS NULL", unbound.name);
    }
    if (IsNaNValue(lit)) {
      return Status::Bind("comparison of column '{}' with NaN; use IS NAN", unbound.name);
    }
    bool above = false;
    auto r = ConvertLiteral(lit, type, &above);
    if (!r.has_value()) {
      return Status::Bind("column '{}': {}", unbound.name, r.error().message());
    }
    if (r->has_value()) {
      converted.push_back(**r);
    } else {
      (above ? any_above : any_below) = true;
    }
  }
  switch (op) {
    case Operation::kLt:
    case Operation::kLtEq:
      if (any_above) return Expression::True();
      if (any_below) return Expression::False();
      break;
    case Operation::kGt:
    case Operation::kGtEq:
      if (any_above) return Expression::False();
      if (any_below) return Expression::True();
      break;
    case Operation::kEq:
      if (converted.empty()) return Expression::False();
      break;
    case Operation::kNotEq:
      if (converted.empty()) return Expression::True();
      break;
    case Operation::kIn:
    case Operation::kNotIn: {
      std::sort(converted.begin(), converted.end(),
                [](const Scalar& a, const Scalar& b) { return CompareValues(a, b) < 0; });
      converted.erase(
          std::unique(converted.begin(), converted.end(),
                      [](const Scalar& a, const Scalar& b) { return CompareValues(a, b) == 0; }),
          converted.end());
      if (converted.empty()) {
        return op == Operation::kIn ? Expression::False() : Expression::True();
      }
      if (converted.size() == 1) {
        return Expression::MakeBound(op == Operation::kIn ? Operation::kEq : Operation::kNotEq,
                                     term, std::move(converted));
      }
      break;
    }
    default:
      break;
  }
  return Expression::MakeBound(op, term, std::move(converted));
}

}  // namespace

Result<ExpressionPtr> Bind(const ExpressionPtr& expr, const Schema& schema, bool case_sensitive) {
  switch (expr->op()) {
    case Operation::kTrue:
    case Operation::kFalse:
      return expr;
    case Operation::kAnd: {
      FLOE_ASSIGN_OR_RAISE(auto l, Bind(expr->left(), schema, case_sensitive));
      FLOE_ASSIGN_OR_RAISE(auto r, Bind(expr->right(), schema, case_sensitive));
      return Expression::And(std::move(l), std::move(r));
    }
    case Operation::kOr: {
      FLOE_ASSIGN_OR_RAISE(auto l, Bind(expr->left(), schema, case_sensitive));
      FLOE_ASSIGN_OR_RAISE(auto r, Bind(expr->right(), schema, case_sensitive));
      return Expression::Or(std::move(l), std::move(r));
    }
    case Operation::kNot: {
      FLOE_ASSIGN_OR_RAISE(auto c, Bind(expr->child(), schema, case_sensitive));
      return Expression::Not(std::move(c));
    }
    default:
      if (expr->term().bound()) return expr;
      return BindPredicate(*expr, schema, case_sensitive);
  }
}

}  // namespace floe::iceberg
