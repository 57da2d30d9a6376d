#include "floe/iceberg/expression.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "floe/batch/value_format.h"
#include "floe/common/calendar.h"
#include "floe/common/logging.h"
#include "floe/iceberg/value_text.h"

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
// Values
// ---------------------------------------------------------------------------------------

int64_t Utf8Length(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

namespace {

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <typename F>
int CmpFloat(F a, F b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  return Cmp(a, b);
}

}  // namespace

int CompareValues(const Scalar& a, const Scalar& b) {
  const auto& va = a.value();
  const auto& vb = b.value();
  if (va.index() != vb.index()) return Cmp(va.index(), vb.index());
  switch (va.index()) {
    case 1:
      return Cmp(std::get<bool>(va), std::get<bool>(vb));
    case 2:
      return Cmp(std::get<int32_t>(va), std::get<int32_t>(vb));
    case 3:
      return Cmp(std::get<int64_t>(va), std::get<int64_t>(vb));
    case 4:
      return CmpFloat(std::get<float>(va), std::get<float>(vb));
    case 5:
      return CmpFloat(std::get<double>(va), std::get<double>(vb));
    case 6:
      return Cmp(std::get<Int128>(va), std::get<Int128>(vb));
    case 7: {
      const std::string& x = std::get<std::string>(va);
      const std::string& y = std::get<std::string>(vb);
      int c = std::memcmp(x.data(), y.data(), std::min(x.size(), y.size()));
      if (c != 0) return c < 0 ? -1 : 1;
      return Cmp(x.size(), y.size());
    }
    default:
      return 0;
  }
}

std::string LiteralToString(const Scalar& literal) {
  if (literal.is_null()) return "null";
  switch (literal.type()->id()) {
    case TypeId::kBoolean:
      return literal.get<bool>() ? "true" : "false";
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal:
      return FormatScalar(literal);
    default: {
      std::string text = FormatScalar(literal);
      std::string out = "'";
      for (char c : text) {
        if (c == '\'') out.push_back('\'');
        out.push_back(c);
      }
      out.push_back('\'');
      return out;
    }
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
// Literal conversion
// ---------------------------------------------------------------------------------------

namespace {

Int128 Pow10(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// A decimal text with at most `scale` fraction digits, as an unscaled value.
bool ParseDecimalText(std::string_view text, int scale, Int128* out) {
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) neg = text[i++] == '-';
  Int128 v = 0;
  int digits = 0, frac = -1;
  for (; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '.' && frac < 0) {
      frac = 0;
      continue;
    }
    if (ch < '0' || ch > '9' || digits >= 38) return false;
    v = v * 10 + (ch - '0');
    ++digits;
    if (frac >= 0) ++frac;
  }
  if (digits == 0) return false;
  if (frac < 0) frac = 0;
  if (frac > scale) return false;
  v *= Pow10(scale - frac);
  *out = neg ? -v : v;
  return true;
}

bool FitsPrecision(Int128 unscaled, int precision) {
  Int128 limit = Pow10(precision);
  return unscaled < limit && unscaled > -limit;
}

Status NoConversion(const Scalar& literal, const TypePtr& type) {
  return Status::Invalid("cannot convert literal {} of type {} to {}", LiteralToString(literal),
                         literal.type()->ToString(), type->ToString());
}

}  // namespace

Result<std::optional<Scalar>> ConvertLiteral(const Scalar& literal, const TypePtr& type,
                                             bool* above_max) {
  const TypeId from = literal.type()->id();
  const TypeId to = type->id();
  if (literal.is_null()) return NoConversion(literal, type);
  auto ok = [&](Scalar::Storage v) -> Result<std::optional<Scalar>> {
    return std::optional<Scalar>(Scalar::Make(type, std::move(v)));
  };
  auto out_of_range = [&](bool above) -> Result<std::optional<Scalar>> {
    *above_max = above;
    return std::optional<Scalar>();
  };
  const auto& v = literal.value();
  // Integer sources (int8..int64) as one wide value.
  if (literal.type()->is_integer()) {
    const int64_t x =
        std::holds_alternative<int32_t>(v) ? std::get<int32_t>(v) : std::get<int64_t>(v);
    switch (to) {
      case TypeId::kInt32:
      case TypeId::kDate:
        if (x > INT32_MAX) return out_of_range(true);
        if (x < INT32_MIN) return out_of_range(false);
        return ok(static_cast<int32_t>(x));
      case TypeId::kInt64:
      case TypeId::kTime:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs:
        return ok(x);
      case TypeId::kFloat32:
        return ok(static_cast<float>(x));
      case TypeId::kFloat64:
        return ok(static_cast<double>(x));
      case TypeId::kDecimal: {
        Int128 u = Int128{x} * Pow10(type->scale());
        if (!FitsPrecision(u, type->precision())) return out_of_range(x > 0);
        return ok(u);
      }
      default:
        return NoConversion(literal, type);
    }
  }
  switch (from) {
    case TypeId::kBoolean:
      if (to == TypeId::kBoolean) return ok(std::get<bool>(v));
      return NoConversion(literal, type);
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      const double x = from == TypeId::kFloat32 ? std::get<float>(v) : std::get<double>(v);
      if (to == TypeId::kFloat64) return ok(x);
      if (to == TypeId::kFloat32) {
        if (!std::isnan(x) && !std::isinf(x)) {
          if (x > std::numeric_limits<float>::max()) return out_of_range(true);
          if (x < -std::numeric_limits<float>::max()) return out_of_range(false);
        }
        return ok(static_cast<float>(x));
      }
      if (to == TypeId::kDecimal && std::isfinite(x)) {
        const double scaled = std::round(x * std::pow(10.0, type->scale()));
        if (std::fabs(scaled) >= std::pow(10.0, type->precision())) return out_of_range(x > 0);
        return ok(static_cast<Int128>(scaled));
      }
      return NoConversion(literal, type);
    }
    case TypeId::kDecimal: {
      const Int128 u = std::get<Int128>(v);
      if (to == TypeId::kDecimal) {
        if (type->scale() != literal.type()->scale()) return NoConversion(literal, type);
        if (!FitsPrecision(u, type->precision())) return out_of_range(u > 0);
        return ok(u);
      }
      const double x = static_cast<double>(u) / std::pow(10.0, literal.type()->scale());
      if (to == TypeId::kFloat64) return ok(x);
      if (to == TypeId::kFloat32) return ok(static_cast<float>(x));
      return NoConversion(literal, type);
    }
    case TypeId::kDate: {
      const int32_t d = std::get<int32_t>(v);
      if (to == TypeId::kDate) return ok(d);
      if (to == TypeId::kTimestamp || to == TypeId::kTimestampTz) return ok(d * kMicrosPerDay);
      if (to == TypeId::kTimestampNs || to == TypeId::kTimestampTzNs) {
        const __int128 nanos = static_cast<__int128>(d) * kMicrosPerDay * 1000;
        if (nanos > std::numeric_limits<int64_t>::max()) return out_of_range(true);
        if (nanos < std::numeric_limits<int64_t>::min()) return out_of_range(false);
        return ok(static_cast<int64_t>(nanos));
      }
      return NoConversion(literal, type);
    }
    case TypeId::kTime:
      if (to == TypeId::kTime) return ok(std::get<int64_t>(v));
      return NoConversion(literal, type);
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      const int64_t x = std::get<int64_t>(v);
      const bool nanos = from == TypeId::kTimestampNs || from == TypeId::kTimestampTzNs;
      const int64_t micros = nanos ? (x >= 0 ? x / 1000 : -((-x + 999) / 1000)) : x;
      switch (to) {
        case TypeId::kTimestamp:
        case TypeId::kTimestampTz:
          return ok(micros);
        case TypeId::kTimestampNs:
        case TypeId::kTimestampTzNs: {
          if (nanos) return ok(x);
          if (x > INT64_MAX / 1000) return out_of_range(true);
          if (x < INT64_MIN / 1000) return out_of_range(false);
          return ok(x * 1000);
        }
        case TypeId::kDate: {
          return ok(static_cast<int32_t>(FloorDiv(micros, kMicrosPerDay)));
        }
        default:
          return NoConversion(literal, type);
      }
    }
    case TypeId::kString: {
      const std::string& s = std::get<std::string>(v);
      switch (to) {
        case TypeId::kString:
          return ok(s);
        case TypeId::kDate: {
          const std::optional<int32_t> days = ParseIsoDate(s);
          if (!days) break;
          return ok(*days);
        }
        case TypeId::kTime: {
          const std::optional<int64_t> micros = ParseIsoTime(s);
          if (!micros) break;
          return ok(*micros);
        }
        case TypeId::kTimestamp:
        case TypeId::kTimestampTz:
        case TypeId::kTimestampNs:
        case TypeId::kTimestampTzNs: {
          const std::optional<IsoTimestamp> ts = ParseIsoTimestamp(s);
          if (!ts) break;
          const bool with_zone = to == TypeId::kTimestampTz || to == TypeId::kTimestampTzNs;
          if (ts->has_offset && !with_zone) {
            return Status::Invalid("timestamp literal '{}' has a zone offset but {} has none", s,
                                   type->ToString());
          }
          const bool nanos = to == TypeId::kTimestampNs || to == TypeId::kTimestampTzNs;
          if (std::optional<int64_t> v = IsoTimestampUnits(*ts, nanos)) return ok(*v);
          return out_of_range(ts->nanos > 0);
        }
        case TypeId::kUuid: {
          std::optional<std::string> bytes = ParseUuidText(s);
          if (!bytes) break;
          return ok(std::move(*bytes));
        }
        case TypeId::kDecimal: {
          Int128 u;
          if (!ParseDecimalText(s, type->scale(), &u)) break;
          if (!FitsPrecision(u, type->precision())) return out_of_range(u > 0);
          return ok(u);
        }
        default:
          return NoConversion(literal, type);
      }
      return Status::Invalid("cannot parse '{}' as {}", s, type->ToString());
    }
    case TypeId::kBinary:
    case TypeId::kFixed: {
      const std::string& s = std::get<std::string>(v);
      if (to == TypeId::kBinary) return ok(s);
      if (to == TypeId::kFixed && static_cast<int>(s.size()) == type->byte_width()) return ok(s);
      return NoConversion(literal, type);
    }
    case TypeId::kUuid:
      if (to == TypeId::kUuid) return ok(std::get<std::string>(v));
      return NoConversion(literal, type);
    default:
      return NoConversion(literal, type);
  }
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
