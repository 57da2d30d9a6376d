#include "floe/iceberg/evaluator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "floe/batch/builder.h"
#include "floe/iceberg/projection.h"
#include "floe/iceberg/single_value.h"
#include "floe/type/type_visit.h"

namespace floe::iceberg {
namespace {

bool IsNaN(const Scalar& s) {
  if (s.is_null()) return false;
  if (s.type()->id() == TypeId::kFloat32) return std::isnan(s.get<float>());
  if (s.type()->id() == TypeId::kFloat64) return std::isnan(s.get<double>());
  return false;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

// Compares the first prefix.size() bytes of `s` with `prefix` (shorter `s` compares as
// itself).
int ComparePrefix(std::string_view s, std::string_view prefix) {
  std::string_view head = s.substr(0, std::min(s.size(), prefix.size()));
  int c = head.compare(prefix);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// Three-valued result: kFalse < kUnknown < kTrue, so AND is min, OR is max, NOT is 2 - x.
using Truth = uint8_t;
constexpr Truth kFalse = 0;
constexpr Truth kUnknown = 1;
constexpr Truth kTrue = 2;

// The truth of a predicate on one value (NULL compares unknown, as in SQL).
Truth EvalPredicateOnValue(const Expression& pred, const Scalar& value) {
  const Operation op = pred.op();
  if (op == Operation::kIsNull) return value.is_null() ? kTrue : kFalse;
  if (op == Operation::kNotNull) return value.is_null() ? kFalse : kTrue;
  if (op == Operation::kIsNan) return IsNaN(value) ? kTrue : kFalse;
  if (op == Operation::kNotNan) return IsNaN(value) ? kFalse : kTrue;
  if (value.is_null()) return kUnknown;
  const bool nan = IsNaN(value);
  auto cmp = [&](const Scalar& lit) { return CompareValues(value, lit); };
  switch (op) {
    case Operation::kLt:
      return !nan && cmp(pred.literal()) < 0 ? kTrue : kFalse;
    case Operation::kLtEq:
      return !nan && cmp(pred.literal()) <= 0 ? kTrue : kFalse;
    case Operation::kGt:
      return !nan && cmp(pred.literal()) > 0 ? kTrue : kFalse;
    case Operation::kGtEq:
      return !nan && cmp(pred.literal()) >= 0 ? kTrue : kFalse;
    case Operation::kEq:
      return !nan && cmp(pred.literal()) == 0 ? kTrue : kFalse;
    case Operation::kNotEq:
      return nan || cmp(pred.literal()) != 0 ? kTrue : kFalse;
    case Operation::kIn:
    case Operation::kNotIn: {
      bool found = false;
      if (!nan) {
        for (const Scalar& lit : pred.literals()) found = found || cmp(lit) == 0;
      }
      return (found == (op == Operation::kIn)) ? kTrue : kFalse;
    }
    case Operation::kStartsWith:
    case Operation::kNotStartsWith: {
      if (!std::holds_alternative<std::string>(value.value())) return kUnknown;
      const bool starts = StartsWith(value.get<std::string>(), pred.literal().get<std::string>());
      return (starts == (op == Operation::kStartsWith)) ? kTrue : kFalse;
    }
    default:
      return kUnknown;
  }
}

template <typename Leaf>
Result<Truth> EvalTree(const Expression& e, const Leaf& leaf) {
  switch (e.op()) {
    case Operation::kTrue:
      return kTrue;
    case Operation::kFalse:
      return kFalse;
    case Operation::kAnd: {
      FLOE_ASSIGN_OR_RAISE(Truth l, EvalTree(*e.left(), leaf));
      if (l == kFalse) return kFalse;
      FLOE_ASSIGN_OR_RAISE(Truth r, EvalTree(*e.right(), leaf));
      return std::min(l, r);
    }
    case Operation::kOr: {
      FLOE_ASSIGN_OR_RAISE(Truth l, EvalTree(*e.left(), leaf));
      if (l == kTrue) return kTrue;
      FLOE_ASSIGN_OR_RAISE(Truth r, EvalTree(*e.right(), leaf));
      return std::max(l, r);
    }
    case Operation::kNot: {
      FLOE_ASSIGN_OR_RAISE(Truth c, EvalTree(*e.child(), leaf));
      return static_cast<Truth>(2 - c);
    }
    default:
      return leaf(e);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Partition tuples
// ---------------------------------------------------------------------------------------

Result<bool> EvaluatePartition(const Expression& partition_expr, const PartitionValues& partition) {
  auto leaf = [&](const Expression& pred) -> Result<Truth> {
    const int pos = pred.term().position;
    if (pos < 0 || static_cast<size_t>(pos) >= partition.size()) {
      return Status::Invalid("predicate {} reads partition position {} of a {}-field tuple",
                             pred.ToString(), pos, partition.size());
    }
    const Scalar& v = partition[static_cast<size_t>(pos)];
    if (pred.term().transform.has_value()) {
      FLOE_ASSIGN_OR_RAISE(Scalar t, pred.term().transform->Apply(v));
      return EvalPredicateOnValue(pred, t);
    }
    return EvalPredicateOnValue(pred, v);
  };
  FLOE_ASSIGN_OR_RAISE(Truth t, EvalTree(partition_expr, leaf));
  return t == kTrue;
}

// ---------------------------------------------------------------------------------------
// Manifest summaries
// ---------------------------------------------------------------------------------------

Result<std::unique_ptr<ManifestEvaluator>> ManifestEvaluator::Make(ExpressionPtr inclusive,
                                                                   TypePtr partition_type) {
  if (inclusive == nullptr || partition_type == nullptr ||
      partition_type->id() != TypeId::kStruct) {
    return Status::Invalid("a manifest evaluator needs an expression and a partition struct type");
  }
  if (!inclusive->bound()) {
    return Status::Invalid("manifest evaluator expression is not bound: {}", inclusive->ToString());
  }
  return std::unique_ptr<ManifestEvaluator>(
      new ManifestEvaluator(RewriteNot(inclusive), std::move(partition_type)));
}

Result<bool> ManifestEvaluator::MayMatch(const ManifestFile& manifest) const {
  if (IsAlwaysTrue(*expr_)) return true;
  if (IsAlwaysFalse(*expr_)) return false;
  if (manifest.partitions.empty()) return true;
  if (manifest.partitions.size() < static_cast<size_t>(partition_type_->num_fields())) {
    return Status::Corrupt("manifest {} has {} partition summaries, its spec {} has {} fields",
                           manifest.manifest_path, manifest.partitions.size(),
                           manifest.partition_spec_id, partition_type_->num_fields());
  }
  auto decode = [&](const std::optional<std::string>& bytes, const TypePtr& type,
                    int pos) -> Result<std::optional<Scalar>> {
    if (!bytes.has_value()) return std::optional<Scalar>();
    auto r = DeserializeValue(type, *bytes);
    if (!r.has_value()) {
      return Status::Corrupt("manifest {}: partition summary {}: {}", manifest.manifest_path, pos,
                             r.error().message());
    }
    if (IsNaN(*r)) return std::optional<Scalar>();
    return std::optional<Scalar>(*r);
  };
  auto leaf = [&](const Expression& pred) -> Result<Truth> {
    const int pos = pred.term().position;
    if (pos < 0 || pos >= partition_type_->num_fields() || pred.term().transform.has_value()) {
      return kTrue;
    }
    const PartitionFieldSummary& s = manifest.partitions[static_cast<size_t>(pos)];
    const TypePtr& type = partition_type_->field(pos).type();
    FLOE_ASSIGN_OR_RAISE(auto lower, decode(s.lower_bound, type, pos));
    FLOE_ASSIGN_OR_RAISE(auto upper, decode(s.upper_bound, type, pos));
    const bool floating = type->is_floating();
    // All values null: a null flag and no bounds (and, for floats, known to hold no NaN).
    const bool all_null = s.contains_null && !s.lower_bound.has_value() &&
                          (!floating || (s.contains_nan.has_value() && !*s.contains_nan));
    const Operation op = pred.op();
    switch (op) {
      case Operation::kIsNull:
        return s.contains_null ? kTrue : kFalse;
      case Operation::kNotNull:
        return all_null ? kFalse : kTrue;
      case Operation::kIsNan:
        if (s.contains_nan.has_value() && !*s.contains_nan) return kFalse;
        return all_null ? kFalse : kTrue;
      case Operation::kNotNan:
        // Only NaN: it has NaN, no null and no (non-NaN) bound.
        if (s.contains_nan.value_or(false) && !s.contains_null && !s.lower_bound.has_value()) {
          return kFalse;
        }
        return kTrue;
      case Operation::kNotEq:
      case Operation::kNotIn:
        return kTrue;
      default:
        break;
    }
    // The remaining operations need a non-null, non-NaN value.
    if (!lower.has_value() || !upper.has_value()) {
      // No bounds: only nulls or NaNs, or the writer left them out.
      if (!s.lower_bound.has_value() && !s.upper_bound.has_value() &&
          (s.contains_null || s.contains_nan.value_or(false))) {
        return kFalse;
      }
      return kTrue;
    }
    switch (op) {
      case Operation::kLt:
        return CompareValues(*lower, pred.literal()) < 0 ? kTrue : kFalse;
      case Operation::kLtEq:
        return CompareValues(*lower, pred.literal()) <= 0 ? kTrue : kFalse;
      case Operation::kGt:
        return CompareValues(*upper, pred.literal()) > 0 ? kTrue : kFalse;
      case Operation::kGtEq:
        return CompareValues(*upper, pred.literal()) >= 0 ? kTrue : kFalse;
      case Operation::kEq:
        return CompareValues(*lower, pred.literal()) <= 0 &&
                       CompareValues(*upper, pred.literal()) >= 0
                   ? kTrue
                   : kFalse;
      case Operation::kIn:
        for (const Scalar& lit : pred.literals()) {
          if (CompareValues(*lower, lit) <= 0 && CompareValues(*upper, lit) >= 0) return kTrue;
        }
        return kFalse;
      case Operation::kStartsWith: {
        const std::string& p = pred.literal().get<std::string>();
        if (ComparePrefix(lower->get<std::string>(), p) > 0) return kFalse;
        if (ComparePrefix(upper->get<std::string>(), p) < 0) return kFalse;
        return kTrue;
      }
      case Operation::kNotStartsWith: {
        if (s.contains_null) return kTrue;
        const std::string& p = pred.literal().get<std::string>();
        // Every value lies between two strings that start with the prefix.
        if (StartsWith(lower->get<std::string>(), p) && StartsWith(upper->get<std::string>(), p)) {
          return kFalse;
        }
        return kTrue;
      }
      default:
        return kTrue;
    }
  };
  FLOE_ASSIGN_OR_RAISE(Truth t, EvalTree(*expr_, leaf));
  return t != kFalse;
}

// ---------------------------------------------------------------------------------------
// Column metrics
// ---------------------------------------------------------------------------------------

namespace {

// What a data file's metrics say about one field.
struct FieldMetrics {
  bool usable = false;  // false: transform term, or a field inside a list or map
  bool nullable = true;
  bool floating = false;
  std::optional<int64_t> values;
  std::optional<int64_t> nulls;
  std::optional<int64_t> nans;
  std::optional<Scalar> lower;  // NaN bounds are dropped
  std::optional<Scalar> upper;

  bool NullsOnly() const { return values && nulls && *values == *nulls; }
  bool NaNsOnly() const { return values && nans && *values == *nans; }
  // No value is both non-null and non-NaN.
  bool NoOrdinaryValues() const {
    return NullsOnly() || NaNsOnly() || (values && nulls && nans && *nulls + *nans == *values);
  }
  bool NoNulls() const { return !nullable || (nulls && *nulls == 0); }
  bool NoNaNs() const { return !floating || (nans && *nans == 0); }
};

template <typename K, typename V>
std::optional<V> Lookup(const std::map<K, V>& m, K key) {
  auto it = m.find(key);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

Result<FieldMetrics> GetMetrics(const Term& term, const Schema& schema, const DataFile& file) {
  FieldMetrics m;
  if (term.transform.has_value()) return m;
  const int32_t id = term.field_id;
  for (std::optional<int32_t> parent = schema.FindParentId(id); parent;
       parent = schema.FindParentId(*parent)) {
    const Field* f = schema.FindFieldById(*parent);
    if (f == nullptr || f->type()->id() != TypeId::kStruct) return m;
  }
  m.usable = true;
  m.nullable = term.nullable;
  m.floating = term.source_type->is_floating();
  m.values = Lookup(file.value_counts, id);
  m.nulls = Lookup(file.null_value_counts, id);
  m.nans = Lookup(file.nan_value_counts, id);
  auto decode = [&](const std::map<int32_t, std::string>& bounds,
                    std::string_view which) -> Result<std::optional<Scalar>> {
    auto it = bounds.find(id);
    if (it == bounds.end()) return std::optional<Scalar>();
    auto r = DeserializeValue(term.source_type, it->second);
    if (!r.has_value()) {
      return Status::Corrupt("data file {}: {} bound of field {}: {}", file.file_path, which, id,
                             r.error().message());
    }
    if (IsNaN(*r)) return std::optional<Scalar>();
    return std::optional<Scalar>(*r);
  };
  FLOE_ASSIGN_OR_RAISE(m.lower, decode(file.lower_bounds, "lower"));
  FLOE_ASSIGN_OR_RAISE(m.upper, decode(file.upper_bounds, "upper"));
  return m;
}

Result<Truth> InclusiveLeaf(const Expression& pred, const Schema& schema, const DataFile& file) {
  FLOE_ASSIGN_OR_RAISE(FieldMetrics m, GetMetrics(pred.term(), schema, file));
  if (!m.usable) return kTrue;
  const Operation op = pred.op();
  switch (op) {
    case Operation::kIsNull:
      return (m.nulls && *m.nulls == 0) ? kFalse : kTrue;
    case Operation::kNotNull:
      return m.NullsOnly() ? kFalse : kTrue;
    case Operation::kIsNan:
      if (m.nans && *m.nans == 0) return kFalse;
      return m.NullsOnly() ? kFalse : kTrue;
    case Operation::kNotNan:
      return m.NaNsOnly() ? kFalse : kTrue;
    case Operation::kNotEq:
    case Operation::kNotIn:
      return kTrue;
    default:
      break;
  }
  if (m.NoOrdinaryValues()) return kFalse;
  const Scalar* lit = pred.literals().empty() ? nullptr : &pred.literals()[0];
  switch (op) {
    case Operation::kLt:
      return (m.lower && CompareValues(*m.lower, *lit) >= 0) ? kFalse : kTrue;
    case Operation::kLtEq:
      return (m.lower && CompareValues(*m.lower, *lit) > 0) ? kFalse : kTrue;
    case Operation::kGt:
      return (m.upper && CompareValues(*m.upper, *lit) <= 0) ? kFalse : kTrue;
    case Operation::kGtEq:
      return (m.upper && CompareValues(*m.upper, *lit) < 0) ? kFalse : kTrue;
    case Operation::kEq:
      if (m.lower && CompareValues(*m.lower, *lit) > 0) return kFalse;
      if (m.upper && CompareValues(*m.upper, *lit) < 0) return kFalse;
      return kTrue;
    case Operation::kIn:
      for (const Scalar& v : pred.literals()) {
        if (m.lower && CompareValues(*m.lower, v) > 0) continue;
        if (m.upper && CompareValues(*m.upper, v) < 0) continue;
        return kTrue;
      }
      return kFalse;
    case Operation::kStartsWith: {
      const std::string& p = lit->get<std::string>();
      // Truncated bounds still bracket the values: lower <= min and upper >= max.
      if (m.lower && ComparePrefix(m.lower->get<std::string>(), p) > 0) return kFalse;
      if (m.upper && ComparePrefix(m.upper->get<std::string>(), p) < 0) return kFalse;
      return kTrue;
    }
    case Operation::kNotStartsWith: {
      if (!m.NoNulls()) return kTrue;
      const std::string& p = lit->get<std::string>();
      if (m.lower && m.upper && StartsWith(m.lower->get<std::string>(), p) &&
          StartsWith(m.upper->get<std::string>(), p)) {
        return kFalse;
      }
      return kTrue;
    }
    default:
      return kTrue;
  }
}

Result<Truth> StrictLeaf(const Expression& pred, const Schema& schema, const DataFile& file) {
  FLOE_ASSIGN_OR_RAISE(FieldMetrics m, GetMetrics(pred.term(), schema, file));
  if (!m.usable) return kFalse;
  const Operation op = pred.op();
  switch (op) {
    case Operation::kIsNull:
      return m.NullsOnly() ? kTrue : kFalse;
    case Operation::kNotNull:
      return m.NoNulls() ? kTrue : kFalse;
    case Operation::kIsNan:
      return m.NaNsOnly() ? kTrue : kFalse;
    case Operation::kNotNan:
      return ((m.nans && *m.nans == 0) || m.NullsOnly()) ? kTrue : kFalse;
    default:
      break;
  }
  // A NULL row never matches a comparison, and NaN matches only !=.
  if (!m.NoNulls()) return kFalse;
  if (op != Operation::kNotEq && op != Operation::kNotIn && !m.NoNaNs()) return kFalse;
  const Scalar* lit = pred.literals().empty() ? nullptr : &pred.literals()[0];
  switch (op) {
    case Operation::kLt:
      return (m.upper && CompareValues(*m.upper, *lit) < 0) ? kTrue : kFalse;
    case Operation::kLtEq:
      return (m.upper && CompareValues(*m.upper, *lit) <= 0) ? kTrue : kFalse;
    case Operation::kGt:
      return (m.lower && CompareValues(*m.lower, *lit) > 0) ? kTrue : kFalse;
    case Operation::kGtEq:
      return (m.lower && CompareValues(*m.lower, *lit) >= 0) ? kTrue : kFalse;
    case Operation::kEq:
      return (m.lower && m.upper && CompareValues(*m.lower, *lit) == 0 &&
              CompareValues(*m.upper, *lit) == 0)
                 ? kTrue
                 : kFalse;
    case Operation::kNotEq:
      if (m.lower && CompareValues(*m.lower, *lit) > 0) return kTrue;
      if (m.upper && CompareValues(*m.upper, *lit) < 0) return kTrue;
      return kFalse;
    case Operation::kIn:
      if (!m.lower || !m.upper || CompareValues(*m.lower, *m.upper) != 0) return kFalse;
      for (const Scalar& v : pred.literals()) {
        if (CompareValues(*m.lower, v) == 0) return kTrue;
      }
      return kFalse;
    case Operation::kNotIn:
      if (!m.lower || !m.upper) return kFalse;
      for (const Scalar& v : pred.literals()) {
        if (CompareValues(*m.lower, v) <= 0 && CompareValues(*m.upper, v) >= 0) return kFalse;
      }
      return kTrue;
    case Operation::kStartsWith: {
      const std::string& p = lit->get<std::string>();
      return (m.lower && m.upper && StartsWith(m.lower->get<std::string>(), p) &&
              StartsWith(m.upper->get<std::string>(), p))
                 ? kTrue
                 : kFalse;
    }
    case Operation::kNotStartsWith: {
      const std::string& p = lit->get<std::string>();
      if (m.lower && ComparePrefix(m.lower->get<std::string>(), p) > 0) return kTrue;
      if (m.upper && ComparePrefix(m.upper->get<std::string>(), p) < 0) return kTrue;
      return kFalse;
    }
    default:
      return kFalse;
  }
}

}  // namespace

Result<bool> InclusiveMetricsMayMatch(const Expression& bound, const Schema& schema,
                                      const DataFile& file) {
  if (file.record_count == 0) return false;
  ExpressionPtr expr = RewriteNot(std::shared_ptr<const Expression>(&bound, [](auto*) {}));
  auto leaf = [&](const Expression& pred) { return InclusiveLeaf(pred, schema, file); };
  FLOE_ASSIGN_OR_RAISE(Truth t, EvalTree(*expr, leaf));
  return t != kFalse;
}

Result<bool> StrictMetricsAllMatch(const Expression& bound, const Schema& schema,
                                   const DataFile& file) {
  if (file.record_count <= 0) return true;
  ExpressionPtr expr = RewriteNot(std::shared_ptr<const Expression>(&bound, [](auto*) {}));
  auto leaf = [&](const Expression& pred) { return StrictLeaf(pred, schema, file); };
  FLOE_ASSIGN_OR_RAISE(Truth t, EvalTree(*expr, leaf));
  return t == kTrue;
}

InclusiveMetricsEvaluator::InclusiveMetricsEvaluator(ExpressionPtr bound, SchemaPtr schema)
    : expr_(RewriteNot(bound)), schema_(std::move(schema)) {}

Result<bool> InclusiveMetricsEvaluator::MayMatch(const DataFile& file) const {
  return InclusiveMetricsMayMatch(*expr_, *schema_, file);
}

StrictMetricsEvaluator::StrictMetricsEvaluator(ExpressionPtr bound, SchemaPtr schema)
    : expr_(RewriteNot(bound)), schema_(std::move(schema)) {}

Result<bool> StrictMetricsEvaluator::AllMatch(const DataFile& file) const {
  return StrictMetricsAllMatch(*expr_, *schema_, file);
}

// ---------------------------------------------------------------------------------------
// Residuals
// ---------------------------------------------------------------------------------------

Result<std::unique_ptr<ResidualEvaluator>> ResidualEvaluator::Make(ExpressionPtr bound,
                                                                   PartitionSpecPtr spec,
                                                                   SchemaPtr schema) {
  if (bound == nullptr || spec == nullptr || schema == nullptr) {
    return Status::Invalid("a residual evaluator needs a filter, a spec and a schema");
  }
  std::unique_ptr<ResidualEvaluator> r(new ResidualEvaluator());
  r->expr_ = RewriteNot(bound);
  if (spec->is_unpartitioned()) return r;
  auto partition_type = spec->PartitionType(*schema);
  // A spec whose source column was dropped cannot decide anything: keep the whole filter.
  if (!partition_type.has_value()) return r;
  std::vector<ExpressionPtr> leaves;
  std::function<void(const ExpressionPtr&)> collect = [&](const ExpressionPtr& e) {
    if (e->op() == Operation::kAnd || e->op() == Operation::kOr) {
      collect(e->left());
      collect(e->right());
    } else if (e->is_predicate()) {
      leaves.push_back(e);
    }
  };
  collect(r->expr_);
  for (const ExpressionPtr& leaf : leaves) {
    Projections p;
    FLOE_ASSIGN_OR_RAISE(p.strict, ProjectStrict(leaf, *spec, *schema, *partition_type));
    FLOE_ASSIGN_OR_RAISE(p.inclusive, ProjectInclusive(leaf, *spec, *schema, *partition_type));
    r->projections_[leaf.get()] = std::move(p);
  }
  return r;
}

Result<ExpressionPtr> ResidualEvaluator::Residual(const ExpressionPtr& e,
                                                  const PartitionValues& partition) const {
  switch (e->op()) {
    case Operation::kAnd: {
      FLOE_ASSIGN_OR_RAISE(auto l, Residual(e->left(), partition));
      if (IsAlwaysFalse(*l)) return l;
      FLOE_ASSIGN_OR_RAISE(auto r, Residual(e->right(), partition));
      return Expression::And(std::move(l), std::move(r));
    }
    case Operation::kOr: {
      FLOE_ASSIGN_OR_RAISE(auto l, Residual(e->left(), partition));
      if (IsAlwaysTrue(*l)) return l;
      FLOE_ASSIGN_OR_RAISE(auto r, Residual(e->right(), partition));
      return Expression::Or(std::move(l), std::move(r));
    }
    default:
      break;
  }
  auto it = projections_.find(e.get());
  if (it == projections_.end()) return e;
  FLOE_ASSIGN_OR_RAISE(bool all, EvaluatePartition(*it->second.strict, partition));
  if (all) return Expression::True();
  FLOE_ASSIGN_OR_RAISE(bool may, EvaluatePartition(*it->second.inclusive, partition));
  if (!may) return Expression::False();
  return e;
}

Result<ExpressionPtr> ResidualEvaluator::ResidualFor(const PartitionValues& partition) const {
  return Residual(expr_, partition);
}

// ---------------------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------------------

namespace {

// Finds the column with `field_id` at any struct depth: the array (sliced to the batch)
// and, when it sits inside structs, the rows where an enclosing struct is NULL.
bool FindColumn(const std::vector<Field>& fields, const std::vector<ArrayPtr>& arrays,
                int32_t field_id, ArrayPtr* out, std::vector<ArrayPtr>* parents) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].field_id() == field_id) {
      *out = arrays[i];
      return true;
    }
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const TypePtr& t = fields[i].type();
    if (t->id() != TypeId::kStruct) continue;
    std::vector<ArrayPtr> children;
    for (int c = 0; c < t->num_fields(); ++c) children.push_back(arrays[i]->field(c));
    parents->push_back(arrays[i]);
    if (FindColumn(t->fields(), children, field_id, out, parents)) return true;
    parents->pop_back();
  }
  return false;
}

// Writes the truth of `pred` for every row into `out` (kFalse/kUnknown/kTrue), with
// `valid[i]` = the value is not NULL.
template <typename T, typename Get>
void CompareRows(Operation op, int64_t n, const uint8_t* valid, Get get, const std::vector<T>& lits,
                 uint8_t* out) {
  const T lit = lits.empty() ? T() : lits[0];
  auto run = [&](auto pred) {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = valid[i] ? static_cast<uint8_t>(pred(get(i)) ? kTrue : kFalse) : kUnknown;
    }
  };
  switch (op) {
    case Operation::kLt:
      run([&](const T& v) { return v < lit; });
      break;
    case Operation::kLtEq:
      run([&](const T& v) { return v <= lit; });
      break;
    case Operation::kGt:
      run([&](const T& v) { return v > lit; });
      break;
    case Operation::kGtEq:
      run([&](const T& v) { return v >= lit; });
      break;
    case Operation::kEq:
      run([&](const T& v) { return v == lit; });
      break;
    case Operation::kNotEq:
      run([&](const T& v) { return !(v == lit); });
      break;
    case Operation::kIn:
    case Operation::kNotIn: {
      const bool want = op == Operation::kIn;
      if constexpr (std::is_integral_v<T> || std::is_same_v<T, Int128> ||
                    std::is_same_v<T, std::string_view>) {
        // Long lists (a join's keys) are searched: a total order.
        if (lits.size() > 8) {
          std::vector<T> sorted = lits;
          std::sort(sorted.begin(), sorted.end());
          run([&](const T& v) {
            return std::binary_search(sorted.begin(), sorted.end(), v) == want;
          });
          break;
        }
      }
      run([&](const T& v) {
        bool found = false;
        for (const T& l : lits) found = found || v == l;
        return found == want;
      });
      break;
    }
    default:
      break;
  }
}

template <typename T>
std::vector<T> LiteralValues(const std::vector<Scalar>& lits) {
  std::vector<T> out;
  for (const Scalar& s : lits) out.push_back(s.get<T>());
  return out;
}

Status EvalPredicateRows(const Expression& pred, const RecordBatch& batch, uint8_t* out) {
  const int64_t n = batch.num_rows();
  ArrayPtr column;
  std::vector<ArrayPtr> parents;
  if (!FindColumn(batch.schema()->fields(), batch.columns(), pred.term().field_id, &column,
                  &parents)) {
    return Status::NotFound("field id {} ({}) is not in the batch", pred.term().field_id,
                            pred.term().name);
  }
  if (pred.term().transform.has_value()) {
    FLOE_ASSIGN_OR_RAISE(column, pred.term().transform->Apply(*column));
  }
  std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
  for (int64_t i = 0; i < n; ++i) valid[i] = column->IsValid(i);
  for (const ArrayPtr& p : parents) {
    if (p->null_count() == 0) continue;
    for (int64_t i = 0; i < n; ++i) valid[i] &= p->IsValid(i);
  }
  const Operation op = pred.op();
  const TypeId id = column->type_id();
  const TypePtr term_type = pred.term().type();
  if (term_type == nullptr || term_type->id() != id ||
      (id == TypeId::kDecimal && term_type->scale() != column->type()->scale())) {
    return Status::Invalid("predicate {} expects type {}, but the batch column of field {} is {}",
                           pred.ToString(), term_type ? term_type->ToString() : "none",
                           pred.term().field_id, column->type()->ToString());
  }
  if (op == Operation::kIsNull || op == Operation::kNotNull) {
    const uint8_t when_valid = op == Operation::kNotNull ? kTrue : kFalse;
    for (int64_t i = 0; i < n; ++i) out[i] = valid[i] ? when_valid : (kTrue - when_valid);
    return Status::OK();
  }
  if (op == Operation::kIsNan || op == Operation::kNotNan) {
    const bool want = op == Operation::kIsNan;
    for (int64_t i = 0; i < n; ++i) {
      bool nan = false;
      if (valid[i]) {
        nan = id == TypeId::kFloat32 ? std::isnan(column->Value<float>(i))
                                     : std::isnan(column->Value<double>(i));
      }
      out[i] = (nan == want) ? kTrue : kFalse;
    }
    return Status::OK();
  }
  const std::vector<Scalar>& lits = pred.literals();
  return VisitPhysicalType(id, [&]<typename T>(TypeTag<T>) -> Status {
    if constexpr (std::is_same_v<T, bool>) {
      CompareRows<bool>(
          op, n, valid.data(), [&](int64_t i) { return column->BoolValue(i); },
          LiteralValues<bool>(lits), out);
    } else if constexpr (std::is_same_v<T, Int128>) {
      CompareRows<Int128>(
          op, n, valid.data(), [&](int64_t i) { return column->DecimalValue(i); },
          LiteralValues<Int128>(lits), out);
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      std::vector<std::string_view> views;
      for (const Scalar& s : lits) views.push_back(s.get<std::string>());
      if (op == Operation::kStartsWith || op == Operation::kNotStartsWith) {
        const std::string_view p = views[0];
        const bool want = op == Operation::kStartsWith;
        for (int64_t i = 0; i < n; ++i) {
          out[i] = valid[i] ? ((StartsWith(column->BytesValue(i), p) == want) ? kTrue : kFalse)
                            : kUnknown;
        }
        return Status::OK();
      }
      CompareRows<std::string_view>(
          op, n, valid.data(), [&](int64_t i) { return column->BytesValue(i); }, views, out);
    } else if constexpr (!std::is_void_v<T>) {
      // Literals of int8 and int16 columns are held as int32 (ScalarStorageOf).
      using L = ScalarStorageOf<T>;
      const T* v = column->values<T>();
      CompareRows<L>(
          op, n, valid.data(), [&](int64_t i) { return L{v[i]}; }, LiteralValues<L>(lits), out);
    } else {
      return Status::NotSupported("cannot evaluate {} on a column of type {}", pred.ToString(),
                                  column->type()->ToString());
    }
    return Status::OK();
  });
}

Status EvalRows(const Expression& e, const RecordBatch& batch, uint8_t* out) {
  const int64_t n = batch.num_rows();
  switch (e.op()) {
    case Operation::kTrue:
      std::fill(out, out + n, uint8_t{kTrue});
      return Status::OK();
    case Operation::kFalse:
      std::fill(out, out + n, uint8_t{kFalse});
      return Status::OK();
    case Operation::kAnd:
    case Operation::kOr: {
      FLOE_RETURN_NOT_OK(EvalRows(*e.left(), batch, out));
      std::vector<uint8_t> right(static_cast<size_t>(n));
      FLOE_RETURN_NOT_OK(EvalRows(*e.right(), batch, right.data()));
      if (e.op() == Operation::kAnd) {
        for (int64_t i = 0; i < n; ++i) out[i] = std::min(out[i], right[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) out[i] = std::max(out[i], right[i]);
      }
      return Status::OK();
    }
    case Operation::kNot:
      FLOE_RETURN_NOT_OK(EvalRows(*e.child(), batch, out));
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(kTrue - out[i]);
      return Status::OK();
    default:
      if (!e.term().bound()) {
        return Status::Invalid("cannot evaluate unbound predicate {}", e.ToString());
      }
      return EvalPredicateRows(e, batch, out);
  }
}

}  // namespace

Result<ArrayPtr> EvaluateRows(const Expression& bound, const RecordBatch& batch) {
  const int64_t n = batch.num_rows();
  std::vector<uint8_t> truth(static_cast<size_t>(n));
  FLOE_RETURN_NOT_OK(EvalRows(bound, batch, truth.data()));
  BooleanBuilder builder;
  FLOE_RETURN_NOT_OK(builder.Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    if (truth[i] == kUnknown) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
    } else {
      builder.UnsafeAppend(truth[i] == kTrue);
    }
  }
  return builder.Finish();
}

}  // namespace floe::iceberg
