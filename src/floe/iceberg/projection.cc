#include "floe/iceberg/projection.h"

#include <algorithm>
#include <climits>

#include "floe/batch/utf8.h"
#include "floe/common/calendar.h"

namespace floe::iceberg {
namespace {

bool IsTemporal(TransformKind k) {
  return k == TransformKind::kYear || k == TransformKind::kMonth || k == TransformKind::kDay ||
         k == TransformKind::kHour;
}

// The literal moved by one unit of its type (integers, decimals' unscaled value, dates,
// times and timestamps); nullopt at the type's limit.
std::optional<Scalar> Step(const Scalar& v, int delta) {
  switch (v.value().index()) {
    case 2: {
      const int32_t x = v.get<int32_t>();
      if ((delta > 0 && x == INT32_MAX) || (delta < 0 && x == INT32_MIN)) return std::nullopt;
      return Scalar::Make(v.type(), x + delta);
    }
    case 3: {
      const int64_t x = v.get<int64_t>();
      if ((delta > 0 && x == INT64_MAX) || (delta < 0 && x == INT64_MIN)) return std::nullopt;
      return Scalar::Make(v.type(), x + delta);
    }
    case 6:
      return Scalar::Make(v.type(), v.get<Int128>() + delta);
    default:
      return std::nullopt;
  }
}

Result<std::vector<Scalar>> ApplyAll(const Transform& t, const std::vector<Scalar>& values) {
  std::vector<Scalar> out;
  for (const Scalar& v : values) {
    FLOE_ASSIGN_OR_RAISE(Scalar r, t.Apply(v));
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(),
            [](const Scalar& a, const Scalar& b) { return CompareValues(a, b) < 0; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const Scalar& a, const Scalar& b) { return CompareValues(a, b) == 0; }),
            out.end());
  return out;
}

ExpressionPtr MakeSet(Operation op, const Term& term, std::vector<Scalar> values) {
  if (values.size() == 1) {
    return Expression::MakeBound(op == Operation::kIn ? Operation::kEq : Operation::kNotEq, term,
                                 std::move(values));
  }
  return Expression::MakeBound(op, term, std::move(values));
}

// Older writers truncated pre-epoch timestamps toward zero, so a partition value may be one
// above the floor value for negative results; inclusive projections widen to include it.
ExpressionPtr WidenNegativeTemporal(Operation op, const Term& term, std::vector<Scalar> values) {
  auto is_neg = [](const Scalar& s) { return s.get<int32_t>() < 0; };
  switch (op) {
    case Operation::kLtEq:
      if (is_neg(values[0]))
        values[0] = Scalar::Make(values[0].type(), values[0].get<int32_t>() + 1);
      return Expression::MakeBound(op, term, std::move(values));
    case Operation::kEq:
    case Operation::kIn: {
      std::vector<Scalar> widened;
      for (const Scalar& s : values) {
        widened.push_back(s);
        if (is_neg(s)) widened.push_back(Scalar::Make(s.type(), s.get<int32_t>() + 1));
      }
      std::sort(widened.begin(), widened.end(),
                [](const Scalar& a, const Scalar& b) { return CompareValues(a, b) < 0; });
      widened.erase(
          std::unique(widened.begin(), widened.end(),
                      [](const Scalar& a, const Scalar& b) { return CompareValues(a, b) == 0; }),
          widened.end());
      return MakeSet(Operation::kIn, term, std::move(widened));
    }
    default:
      return Expression::MakeBound(op, term, std::move(values));
  }
}

Result<ExpressionPtr> ProjectOrdered(const Expression& pred, const Transform& t, const Term& pt,
                                     bool strict) {
  const Operation op = pred.op();
  const bool is_bytes =
      pred.term().type()->id() == TypeId::kString || pred.term().type()->id() == TypeId::kBinary;
  const bool temporal = IsTemporal(t.kind());
  auto apply = [&](const Scalar& v) { return t.Apply(v); };
  auto one = [&](Operation out_op, const Scalar& v) -> Result<ExpressionPtr> {
    FLOE_ASSIGN_OR_RAISE(Scalar r, apply(v));
    if (temporal && !strict) return WidenNegativeTemporal(out_op, pt, {r});
    if (temporal && strict && r.get<int32_t>() < 0) return ExpressionPtr();
    return Expression::MakeBound(out_op, pt, {r});
  };
  auto stepped = [&](Operation out_op, int delta) -> Result<ExpressionPtr> {
    std::optional<Scalar> s = Step(pred.literal(), delta);
    if (!s) return ExpressionPtr();
    return one(out_op, *s);
  };
  if (!strict) {
    switch (op) {
      case Operation::kLt:
        return is_bytes ? one(Operation::kLtEq, pred.literal()) : stepped(Operation::kLtEq, -1);
      case Operation::kLtEq:
        return one(Operation::kLtEq, pred.literal());
      case Operation::kGt:
        return is_bytes ? one(Operation::kGtEq, pred.literal()) : stepped(Operation::kGtEq, 1);
      case Operation::kGtEq:
        return one(Operation::kGtEq, pred.literal());
      case Operation::kEq:
        return one(Operation::kEq, pred.literal());
      case Operation::kIn: {
        FLOE_ASSIGN_OR_RAISE(auto values, ApplyAll(t, pred.literals()));
        if (temporal) return WidenNegativeTemporal(Operation::kIn, pt, std::move(values));
        return MakeSet(Operation::kIn, pt, std::move(values));
      }
      case Operation::kStartsWith: {
        const std::string& prefix = pred.literal().get<std::string>();
        if (CountCodePoints(prefix) < t.param()) {
          return Expression::MakeBound(Operation::kStartsWith, pt, {pred.literal()});
        }
        return one(Operation::kEq, pred.literal());
      }
      case Operation::kNotStartsWith: {
        const std::string& prefix = pred.literal().get<std::string>();
        const int64_t len = CountCodePoints(prefix);
        if (len < t.param()) {
          return Expression::MakeBound(Operation::kNotStartsWith, pt, {pred.literal()});
        }
        if (len == t.param()) {
          return Expression::MakeBound(Operation::kNotEq, pt, {pred.literal()});
        }
        return ExpressionPtr();
      }
      default:
        return ExpressionPtr();
    }
  }
  switch (op) {
    case Operation::kLt:
      return one(Operation::kLt, pred.literal());
    case Operation::kLtEq:
      return is_bytes ? one(Operation::kLt, pred.literal()) : stepped(Operation::kLt, 1);
    case Operation::kGt:
      return one(Operation::kGt, pred.literal());
    case Operation::kGtEq:
      return is_bytes ? one(Operation::kGt, pred.literal()) : stepped(Operation::kGt, -1);
    case Operation::kNotEq:
      return one(Operation::kNotEq, pred.literal());
    case Operation::kNotIn: {
      FLOE_ASSIGN_OR_RAISE(auto values, ApplyAll(t, pred.literals()));
      if (temporal) {
        for (const Scalar& v : values) {
          if (v.get<int32_t>() < 0) return ExpressionPtr();
        }
      }
      return MakeSet(Operation::kNotIn, pt, std::move(values));
    }
    case Operation::kStartsWith:
      if (CountCodePoints(pred.literal().get<std::string>()) <= t.param()) {
        return Expression::MakeBound(Operation::kStartsWith, pt, {pred.literal()});
      }
      return ExpressionPtr();
    case Operation::kNotStartsWith:
      return one(Operation::kNotStartsWith, pred.literal());
    default:
      return ExpressionPtr();
  }
}

// truncate(W) of an int or long is v - (((v % W) + W) % W), computed as Java computes it:
// for the values less than W above the type's minimum whose remainder is not zero, the
// subtraction wraps and the partition value lands near the type's maximum, out of order.
// Unless W divides 2^bits (then the minimum is a multiple of W and nothing wraps), the
// projections keep those partitions: an inclusive one lets partition values of at least
// max - W + 2 through, a strict one never counts them as matching, and a literal that
// wraps itself is not projected.
Result<ExpressionPtr> ProjectTruncateInteger(const Expression& pred, const Transform& t,
                                             const Term& pt, bool strict) {
  const bool is64 = pred.term().type()->id() == TypeId::kInt64;
  const int64_t width = t.param();
  if (width <= 1 || (width & (width - 1)) == 0) return ProjectOrdered(pred, t, pt, strict);
  const int64_t min = is64 ? INT64_MIN : INT32_MIN;
  const int64_t max = is64 ? INT64_MAX : INT32_MAX;
  for (const Scalar& literal : pred.literals()) {
    const int64_t v = is64 ? literal.get<int64_t>() : literal.get<int32_t>();
    // Its own truncation may wrap (v - min computed without overflow).
    if (static_cast<uint64_t>(v) - static_cast<uint64_t>(min) < static_cast<uint64_t>(width)) {
      return ExpressionPtr();
    }
  }
  FLOE_ASSIGN_OR_RAISE(ExpressionPtr base, ProjectOrdered(pred, t, pt, strict));
  if (base == nullptr) return base;
  const int64_t first_wrapped = max - width + 2;
  const Scalar bound = is64 ? Scalar::Make(pt.source_type, first_wrapped)
                            : Scalar::Make(pt.source_type, static_cast<int32_t>(first_wrapped));
  const Operation op = pred.op();
  if (!strict && (op == Operation::kLt || op == Operation::kLtEq)) {
    return Expression::Or(base, Expression::MakeBound(Operation::kGtEq, pt, {bound}));
  }
  if (strict && (op == Operation::kGt || op == Operation::kGtEq || op == Operation::kNotEq ||
                 op == Operation::kNotIn)) {
    return Expression::And(base, Expression::MakeBound(Operation::kLt, pt, {bound}));
  }
  return base;
}

// hour() of a microsecond timestamp is an int: past about year 246,000 (and before about
// -242,000) the hour count wraps, as Java's cast does, to the other end of the int range,
// out of order. Projections keep those partitions the way ProjectTruncateInteger does, and
// a literal whose hour does not fit an int is not projected.
Result<ExpressionPtr> ProjectHourOfMicros(const Expression& pred, const Transform& t,
                                          const Term& pt, bool strict) {
  constexpr int64_t kTwo32 = int64_t{1} << 32;
  // The wrapped hours: the latest timestamps land at or below `low_end`, the earliest at or
  // above `high_start`.
  constexpr int64_t low_end = FloorDiv(INT64_MAX, kMicrosPerHour) - kTwo32;
  constexpr int64_t high_start = FloorDiv(INT64_MIN, kMicrosPerHour) + kTwo32;
  for (const Scalar& literal : pred.literals()) {
    const int64_t hours = FloorDiv(literal.get<int64_t>(), kMicrosPerHour);
    if (hours < INT32_MIN || hours > INT32_MAX) return ExpressionPtr();
  }
  FLOE_ASSIGN_OR_RAISE(ExpressionPtr base, ProjectOrdered(pred, t, pt, strict));
  if (base == nullptr) return base;
  auto hour = [&](int64_t v) { return Scalar::Make(pt.source_type, static_cast<int32_t>(v)); };
  const Operation op = pred.op();
  const bool below = op == Operation::kLt || op == Operation::kLtEq;
  const bool above = op == Operation::kGt || op == Operation::kGtEq;
  if (!strict) {
    if (below)
      return Expression::Or(base, Expression::MakeBound(Operation::kGtEq, pt, {hour(high_start)}));
    if (above)
      return Expression::Or(base, Expression::MakeBound(Operation::kLtEq, pt, {hour(low_end)}));
    return base;
  }
  return Expression::And(
      Expression::And(base, Expression::MakeBound(Operation::kGt, pt, {hour(low_end)})),
      Expression::MakeBound(Operation::kLt, pt, {hour(high_start)}));
}

}  // namespace

Result<ExpressionPtr> ProjectPredicate(const Expression& pred, const Transform& transform,
                                       const Term& pt, bool strict) {
  const Operation op = pred.op();
  if (pred.term().transform.has_value()) {
    // A predicate on a transform term projects only onto a partition field with the same
    // transform, where it holds exactly.
    if (*pred.term().transform != transform) return ExpressionPtr();
    return Expression::MakeBound(op, pt, pred.literals());
  }
  if (op == Operation::kIsNull || op == Operation::kNotNull) {
    // Every transform but void maps NULL to NULL and only NULL to NULL.
    if (transform.kind() == TransformKind::kVoid || transform.kind() == TransformKind::kUnknown) {
      return ExpressionPtr();
    }
    return Expression::MakeBound(op, pt);
  }
  switch (transform.kind()) {
    case TransformKind::kIdentity:
      return Expression::MakeBound(op, pt, pred.literals());
    case TransformKind::kBucket: {
      const Operation want_single = strict ? Operation::kNotEq : Operation::kEq;
      const Operation want_set = strict ? Operation::kNotIn : Operation::kIn;
      if (op == want_single) {
        FLOE_ASSIGN_OR_RAISE(Scalar b, transform.Apply(pred.literal()));
        return Expression::MakeBound(op, pt, {b});
      }
      if (op == want_set) {
        FLOE_ASSIGN_OR_RAISE(auto values, ApplyAll(transform, pred.literals()));
        return MakeSet(op, pt, std::move(values));
      }
      return ExpressionPtr();
    }
    case TransformKind::kTruncate:
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
    case TransformKind::kHour: {
      if (op == Operation::kIsNan || op == Operation::kNotNan) return ExpressionPtr();
      // The transforms whose int results wrap at the ends of their input's range.
      const TypeId source = pred.term().type()->id();
      if (transform.kind() == TransformKind::kTruncate &&
          (source == TypeId::kInt32 || source == TypeId::kInt64)) {
        return ProjectTruncateInteger(pred, transform, pt, strict);
      }
      if (transform.kind() == TransformKind::kHour &&
          (source == TypeId::kTimestamp || source == TypeId::kTimestampTz)) {
        return ProjectHourOfMicros(pred, transform, pt, strict);
      }
      return ProjectOrdered(pred, transform, pt, strict);
    }
    default:
      return ExpressionPtr();
  }
}

namespace {

Result<ExpressionPtr> Project(const ExpressionPtr& expr, const PartitionSpec& spec,
                              const Schema& schema, const TypePtr& partition_type, bool strict) {
  switch (expr->op()) {
    case Operation::kTrue:
    case Operation::kFalse:
      return expr;
    case Operation::kAnd: {
      FLOE_ASSIGN_OR_RAISE(auto l, Project(expr->left(), spec, schema, partition_type, strict));
      FLOE_ASSIGN_OR_RAISE(auto r, Project(expr->right(), spec, schema, partition_type, strict));
      return Expression::And(std::move(l), std::move(r));
    }
    case Operation::kOr: {
      FLOE_ASSIGN_OR_RAISE(auto l, Project(expr->left(), spec, schema, partition_type, strict));
      FLOE_ASSIGN_OR_RAISE(auto r, Project(expr->right(), spec, schema, partition_type, strict));
      return Expression::Or(std::move(l), std::move(r));
    }
    case Operation::kNot:
      return Status::Internal("projection expects an expression without NOT");
    default:
      break;
  }
  if (!expr->term().bound()) {
    return Status::Invalid("cannot project unbound predicate {}", expr->ToString());
  }
  ExpressionPtr result = strict ? Expression::False() : Expression::True();
  const auto& fields = spec.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    const PartitionField& pf = fields[i];
    if (pf.source_id != expr->term().field_id) continue;
    if (static_cast<int>(i) >= partition_type->num_fields()) {
      return Status::Invalid("partition type {} has fewer fields than spec {}",
                             partition_type->ToString(), spec.spec_id());
    }
    const Field& out_field = partition_type->field(static_cast<int>(i));
    Term pt;
    pt.name = out_field.name();
    pt.field_id = out_field.field_id();
    pt.source_type = out_field.type();
    pt.nullable = true;
    pt.position = static_cast<int>(i);
    FLOE_ASSIGN_OR_RAISE(ExpressionPtr p, ProjectPredicate(*expr, pf.transform, pt, strict));
    if (p == nullptr) continue;
    result = strict ? Expression::Or(result, p) : Expression::And(result, p);
  }
  return result;
}

}  // namespace

Result<ExpressionPtr> ProjectInclusive(const ExpressionPtr& bound, const PartitionSpec& spec,
                                       const Schema& schema, const TypePtr& partition_type) {
  return Project(RewriteNot(bound), spec, schema, partition_type, false);
}

Result<ExpressionPtr> ProjectStrict(const ExpressionPtr& bound, const PartitionSpec& spec,
                                    const Schema& schema, const TypePtr& partition_type) {
  return Project(RewriteNot(bound), spec, schema, partition_type, true);
}

}  // namespace floe::iceberg
