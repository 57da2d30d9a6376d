#include "floe/connector/iceberg/iceberg_filter.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace floe::connector {

namespace {

using iceberg::Expression;
using iceberg::ExpressionPtr;
using iceberg::Operation;
using Converted = std::optional<ExpressionPtr>;

bool IsIntegerType(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
         id == TypeId::kInt64;
}

bool IsFloatingType(TypeId id) { return id == TypeId::kFloat32 || id == TypeId::kFloat64; }

// A cast that maps a column's values to the target type one to one and keeps their
// order, so a comparison of the cast value with a constant is the same comparison of
// the column with that constant (the Iceberg binder converts the constant exactly, or
// folds the predicate when it is out of the column's range).
bool IsOrderPreservingCast(const DataType& from, const DataType& to) {
  if (IsIntegerType(from.id()) && IsIntegerType(to.id())) {
    return to.byte_width() >= from.byte_width();
  }
  if (from.id() == TypeId::kDecimal && to.id() == TypeId::kDecimal) {
    return from.scale() == to.scale() && to.precision() >= from.precision();
  }
  return from.Equals(to);
}

// The column a term reads, through order-preserving casts; -1 otherwise.
int TermColumn(const expr::Expr& e, const Schema& columns) {
  const expr::Expr* x = &e;
  while (x->kind == expr::ExprKind::kCast && x->args.size() == 1) {
    if (!IsOrderPreservingCast(*x->args[0]->type, *x->type)) return -1;
    x = x->args[0].get();
  }
  if (x->kind != expr::ExprKind::kColumn) return -1;
  if (x->column < 0 || x->column >= columns.num_fields()) return -1;
  const Field& field = columns.field(x->column);
  if (field.type()->is_nested() || !field.type()->Equals(*x->type)) return -1;
  // Values of a declared type differ from what Iceberg's metrics hold (char(n) is
  // compared without its padding): such columns are filtered by the engine only.
  if (field.type()->extension() != Extension::kNone) return -1;
  return x->column;
}

bool IsNaNScalar(const Scalar& s) {
  if (s.is_null() || !s.type()) return false;
  if (s.type()->id() == TypeId::kFloat64) return std::isnan(s.get<double>());
  if (s.type()->id() == TypeId::kFloat32) return std::isnan(s.get<float>());
  return false;
}

// A non-NULL, non-NaN constant.
const Scalar* Constant(const expr::Expr& e) {
  if (e.kind != expr::ExprKind::kLiteral || e.literal.is_null() || !e.literal.type()) {
    return nullptr;
  }
  if (IsNaNScalar(e.literal)) return nullptr;
  return &e.literal;
}

std::optional<Operation> ComparisonOperation(const std::string& name) {
  if (name == "eq") return Operation::kEq;
  if (name == "ne") return Operation::kNotEq;
  if (name == "lt") return Operation::kLt;
  if (name == "le") return Operation::kLtEq;
  if (name == "gt") return Operation::kGt;
  if (name == "ge") return Operation::kGtEq;
  return std::nullopt;
}

Converted MakePredicate(Operation op, const Field& field, std::vector<Scalar> literals) {
  auto made = Expression::Predicate(op, iceberg::Term::Ref(field.name()), std::move(literals));
  if (!made.ok()) return std::nullopt;
  return *made;
}

// LIKE's pattern as a literal prefix: ("abc", true) for 'abc%', ("abc", false) for a
// pattern without wildcards; nullopt for anything else.
std::optional<std::pair<std::string, bool>> LikePrefix(const std::string& pattern,
                                                       const std::string& escape) {
  if (escape.size() > 1) return std::nullopt;
  std::string literal;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (!escape.empty() && c == escape[0]) {
      if (i + 1 == pattern.size()) return std::nullopt;  // an error at run time
      literal.push_back(pattern[++i]);
    } else if (c == '%') {
      // Only trailing '%'s may follow.
      for (size_t j = i; j < pattern.size(); ++j) {
        if (pattern[j] != '%') return std::nullopt;
      }
      return std::make_pair(literal, true);
    } else if (c == '_') {
      return std::nullopt;
    } else {
      literal.push_back(c);
    }
  }
  return std::make_pair(literal, false);
}

// `negated`: convert for the rows where `e` is FALSE (under an odd number of NOTs) rather
// than TRUE.
Converted Convert(const expr::Expr& e, const Schema& columns, bool negated) {
  if (e.kind != expr::ExprKind::kCall || e.type == nullptr || e.type->id() != TypeId::kBoolean) {
    return std::nullopt;
  }
  const std::string& name = e.name;
  const std::vector<expr::ExprPtr>& args = e.args;
  if (name == "not" && args.size() == 1) return Convert(*args[0], columns, !negated);
  if ((name == "and" || name == "or") && args.size() >= 2) {
    // In the converted polarity, AND may drop the sides it cannot express; OR may not.
    const bool conjunction = (name == "and") != negated;
    std::optional<ExpressionPtr> out;
    for (const expr::ExprPtr& arg : args) {
      Converted side = Convert(*arg, columns, negated);
      if (!side) {
        if (conjunction) continue;
        return std::nullopt;
      }
      if (!out) {
        out = *side;
      } else {
        out = conjunction ? Expression::And(*out, *side) : Expression::Or(*out, *side);
      }
    }
    return out;
  }
  if ((name == "is_null" || name == "is_not_null") && args.size() == 1) {
    int column = TermColumn(*args[0], columns);
    if (column < 0) return std::nullopt;
    const bool is_null = (name == "is_null") != negated;
    return MakePredicate(is_null ? Operation::kIsNull : Operation::kNotNull, columns.field(column),
                         {});
  }
  if (name == "in_list" && args.size() >= 2) {
    int column = TermColumn(*args[0], columns);
    if (column < 0) return std::nullopt;
    std::vector<Scalar> values;
    bool has_null = false;
    for (size_t i = 1; i < args.size(); ++i) {
      const expr::Expr& value = *args[i];
      if (value.kind == expr::ExprKind::kLiteral && value.literal.is_null()) {
        has_null = true;
        continue;
      }
      const Scalar* constant = Constant(value);
      if (constant == nullptr) return std::nullopt;
      values.push_back(*constant);
    }
    // x NOT IN (..., NULL) is never TRUE; leave it to the engine.
    if (negated && has_null) return std::nullopt;
    if (values.empty()) return Expression::False();
    return MakePredicate(negated ? Operation::kNotIn : Operation::kIn, columns.field(column),
                         std::move(values));
  }
  if (name == "like" && (args.size() == 2 || args.size() == 3)) {
    int column = TermColumn(*args[0], columns);
    if (column < 0 || columns.field(column).type()->id() != TypeId::kString) return std::nullopt;
    const Scalar* pattern = Constant(*args[1]);
    if (pattern == nullptr || pattern->type()->id() != TypeId::kString) return std::nullopt;
    std::string escape = "\\";
    if (args.size() == 3) {
      const Scalar* esc = Constant(*args[2]);
      if (esc == nullptr || esc->type()->id() != TypeId::kString) return std::nullopt;
      escape = esc->get<std::string>();
    }
    auto prefix = LikePrefix(pattern->get<std::string>(), escape);
    if (!prefix) return std::nullopt;
    const Field& field = columns.field(column);
    Scalar value = Scalar::Str(prefix->first);
    if (!prefix->second) {
      return MakePredicate(negated ? Operation::kNotEq : Operation::kEq, field, {value});
    }
    // LIKE '%' is TRUE for every non-NULL value.
    if (prefix->first.empty()) {
      return MakePredicate(negated ? Operation::kIsNull : Operation::kNotNull, field, {});
    }
    return MakePredicate(negated ? Operation::kNotStartsWith : Operation::kStartsWith, field,
                         {value});
  }
  std::optional<Operation> op = ComparisonOperation(name);
  if (!op || args.size() != 2) return std::nullopt;
  int column = TermColumn(*args[0], columns);
  const Scalar* constant = Constant(*args[1]);
  if (column < 0 || constant == nullptr) {
    column = TermColumn(*args[1], columns);
    constant = Constant(*args[0]);
    if (column < 0 || constant == nullptr) return std::nullopt;
    *op = iceberg::FlipComparison(*op);
  }
  if (negated) *op = iceberg::Negate(*op);
  const Field& field = columns.field(column);
  // NaN sorts above every number in SQL, but metrics leave NaNs out of their bounds.
  if (IsFloatingType(field.type()->id()) &&
      (*op == Operation::kGt || *op == Operation::kGtEq || *op == Operation::kNotEq)) {
    return std::nullopt;
  }
  return MakePredicate(*op, field, {*constant});
}

}  // namespace

bool ConvertsExactly(const expr::Expr& conjunct, const Schema& columns, int visible) {
  if (conjunct.kind != expr::ExprKind::kCall || conjunct.args.empty()) return false;
  const expr::Expr& subject = *conjunct.args[0];
  if (subject.kind != expr::ExprKind::kColumn || subject.column < 0 || subject.column >= visible ||
      subject.column >= columns.num_fields()) {
    return false;
  }
  const DataType& type = *columns.field(subject.column).type();
  if (!subject.type || !subject.type->Equals(type)) return false;
  const std::string& name = conjunct.name;
  if (name == "is_null" || name == "is_not_null") return conjunct.args.size() == 1;
  const TypeId id = type.id();
  const bool ordered = type.is_integer() || type.is_timestamp() || id == TypeId::kDate ||
                       id == TypeId::kString || id == TypeId::kDecimal;
  if (!ordered && id != TypeId::kBoolean) return false;
  const bool comparison =
      name == "eq" || name == "lt" || name == "le" || name == "gt" || name == "ge";
  if (!(comparison && conjunct.args.size() == 2) && name != "in_list") return false;
  if (comparison && name != "eq" && !ordered) return false;
  for (size_t i = 1; i < conjunct.args.size(); ++i) {
    const expr::Expr& constant = *conjunct.args[i];
    if (constant.kind != expr::ExprKind::kLiteral || constant.literal.is_null() ||
        !constant.literal.type() || !constant.literal.type()->Equals(type)) {
      return false;
    }
  }
  return conjunct.args.size() >= 2;
}

std::optional<iceberg::ExpressionPtr> ToIcebergFilter(const expr::Expr& conjunct,
                                                      const Schema& columns) {
  return Convert(conjunct, columns, /*negated=*/false);
}

}  // namespace floe::connector
