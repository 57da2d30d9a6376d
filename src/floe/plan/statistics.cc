// Row-count estimates for the optimizer and the physical planner. Scans start from the
// source's statistics; filters scale by selectivity guesses (equality 0.1 or 1/ndv,
// ranges 0.33 or the fraction of [min, max] they keep); equi-joins give |L|*|R| /
// max(ndv(left key), ndv(right key)); aggregates estimate their groups from the group
// columns' distinct counts. Unknown stays unknown (nullopt) so that callers can tell a
// guess built on nothing from one built on statistics.

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "floe/plan/optimizer.h"
#include "floe/plan/optimizer_internal.h"

namespace floe::plan {

namespace {

using expr::Expr;
using expr::ExprKind;

constexpr double kEqualitySelectivity = 0.1;
constexpr double kRangeSelectivity = 0.33;
constexpr double kDefaultSelectivity = 0.5;
// The least fraction of rows an anti join is estimated to keep.
constexpr double kAntiMinSelectivity = 0.1;

// An estimate of rows or bytes as a count: rounded up, and within [0, kMaxEstimate] (a
// product of guesses may pass what int64 holds, or be NaN).
int64_t Count(double estimate) {
  if (!(estimate > 0)) return 0;
  return estimate >= static_cast<double>(kMaxEstimate) ? kMaxEstimate
                                                       : static_cast<int64_t>(std::ceil(estimate));
}

const ColumnStatistics* ColumnStats(const Statistics& stats, const Expr& e) {
  if (e.kind != ExprKind::kColumn || e.column < 0 ||
      static_cast<size_t>(e.column) >= stats.columns.size()) {
    return nullptr;
  }
  return &stats.columns[static_cast<size_t>(e.column)];
}

// A numeric view of a scalar for range interpolation (integers, floats, decimals at
// their scale, dates, times and timestamps).
std::optional<double> AsDouble(const Scalar& s) {
  if (s.is_null() || !s.type()) return std::nullopt;
  const DataType& t = *s.type();
  if (const auto* v = std::get_if<int32_t>(&s.value())) return static_cast<double>(*v);
  if (const auto* v = std::get_if<int64_t>(&s.value())) return static_cast<double>(*v);
  if (const auto* v = std::get_if<float>(&s.value())) return static_cast<double>(*v);
  if (const auto* v = std::get_if<double>(&s.value())) return *v;
  if (const auto* v = std::get_if<Int128>(&s.value())) {
    return static_cast<double>(*v) / std::pow(10.0, t.scale());
  }
  return std::nullopt;
}

// Distinct values of a column: its statistics, else the integer range, else the rows.
std::optional<double> DistinctGuess(const Statistics& stats, const Expr& e) {
  const ColumnStatistics* c = ColumnStats(stats, e);
  std::optional<double> rows;
  if (stats.row_count) rows = static_cast<double>(*stats.row_count);
  if (c && c->distinct_count && *c->distinct_count > 0) {
    return static_cast<double>(*c->distinct_count);
  }
  if (c && c->min && c->max && e.type && (e.type->is_integer() || e.type->id() == TypeId::kDate)) {
    std::optional<double> lo = AsDouble(*c->min);
    std::optional<double> hi = AsDouble(*c->max);
    if (lo && hi && *hi >= *lo) {
      double range = *hi - *lo + 1;
      return rows ? std::min(range, *rows) : range;
    }
  }
  return rows;
}

const Expr* LiteralArg(const Expr& call, int* column_side) {
  if (call.args.size() != 2) return nullptr;
  if (call.args[1]->kind == ExprKind::kLiteral && call.args[0]->kind == ExprKind::kColumn) {
    *column_side = 0;
    return call.args[1].get();
  }
  if (call.args[0]->kind == ExprKind::kLiteral && call.args[1]->kind == ExprKind::kColumn) {
    *column_side = 1;
    return call.args[0].get();
  }
  return nullptr;
}

double RangeSelectivity(const Expr& call, const Statistics& input) {
  int column_side = 0;
  const Expr* literal = LiteralArg(call, &column_side);
  if (!literal) return kRangeSelectivity;
  const ColumnStatistics* c = ColumnStats(input, *call.args[static_cast<size_t>(column_side)]);
  if (!c || !c->min || !c->max) return kRangeSelectivity;
  std::optional<double> lo = AsDouble(*c->min);
  std::optional<double> hi = AsDouble(*c->max);
  std::optional<double> v = AsDouble(literal->literal);
  if (!lo || !hi || !v || !(*hi > *lo)) return kRangeSelectivity;
  // The fraction of [lo, hi] below v, assuming uniformly spread values.
  double below = std::clamp((*v - *lo) / (*hi - *lo), 0.0, 1.0);
  bool keeps_below = call.name == "lt" || call.name == "le";
  if (column_side == 1) keeps_below = !keeps_below;  // 5 < x is x > 5
  double s = keeps_below ? below : 1.0 - below;
  return std::clamp(s, 0.0005, 1.0);
}

// The column of a range comparison between a column and a literal (-1 otherwise).
int ColumnOfRange(const Expr& call) {
  if (call.kind != ExprKind::kCall ||
      (call.name != "lt" && call.name != "le" && call.name != "gt" && call.name != "ge")) {
    return -1;
  }
  int column_side = 0;
  if (!LiteralArg(call, &column_side)) return -1;
  return call.args[static_cast<size_t>(column_side)]->column;
}

// A range comparison as the fractions [lo, hi] of its column's [min, max] that it keeps
// (nullopt without bounds to interpolate in).
std::optional<std::pair<double, double>> RangeBounds(const Expr& call, const Statistics& input) {
  if (ColumnOfRange(call) < 0) return std::nullopt;
  int column_side = 0;
  const Expr* literal = LiteralArg(call, &column_side);
  const ColumnStatistics* c = ColumnStats(input, *call.args[static_cast<size_t>(column_side)]);
  if (!c || !c->min || !c->max) return std::nullopt;
  std::optional<double> lo = AsDouble(*c->min);
  std::optional<double> hi = AsDouble(*c->max);
  std::optional<double> v = AsDouble(literal->literal);
  if (!lo || !hi || !v || !(*hi > *lo)) return std::nullopt;
  double at = std::clamp((*v - *lo) / (*hi - *lo), 0.0, 1.0);
  bool keeps_below = call.name == "lt" || call.name == "le";
  if (column_side == 1) keeps_below = !keeps_below;  // 5 < x is x > 5
  return keeps_below ? std::make_pair(0.0, at) : std::make_pair(at, 1.0);
}

Statistics Unknown() { return Statistics{}; }

// Bytes per row of expressions over `input`: column references take their column's
// average width, other expressions their type's width (16 for variable-width types).
// nullopt when a referenced column's width is unknown.
std::optional<double> RowWidth(const std::vector<expr::ExprPtr>& exprs, const Statistics& input) {
  double width = 0;
  for (const auto& e : exprs) {
    if (e->kind == ExprKind::kColumn) {
      const ColumnStatistics* c = ColumnStats(input, *e);
      if (!c || !c->avg_width) return std::nullopt;
      width += *c->avg_width;
    } else {
      const int w = e->type ? e->type->byte_width() : 0;
      width += w > 0 ? w : 16;
    }
  }
  return width;
}

Statistics Scaled(const Statistics& in, double fraction) {
  Statistics out;
  out.columns = in.columns;
  for (ColumnStatistics& c : out.columns) {
    if (c.null_count) c.null_count = Count(static_cast<double>(*c.null_count) * fraction);
    if (c.distinct_count) {
      c.distinct_count =
          std::max<int64_t>(1, Count(static_cast<double>(*c.distinct_count) * fraction));
    }
  }
  if (in.row_count) {
    out.row_count = Count(static_cast<double>(*in.row_count) * fraction);
  }
  if (in.total_bytes) {
    out.total_bytes = Count(static_cast<double>(*in.total_bytes) * fraction);
  }
  return out;
}

Statistics WithRows(const Statistics& in, std::optional<int64_t> rows) {
  if (!in.row_count || !rows) {
    Statistics out = in;
    out.row_count = rows;
    out.exact = false;
    return out;
  }
  double fraction = *in.row_count > 0 ? static_cast<double>(*rows) / *in.row_count : 0.0;
  Statistics out = Scaled(in, std::min(fraction, 1.0));
  out.row_count = rows;
  return out;
}

Statistics ScanStatistics(const LogicalPlan& plan) {
  Statistics source = plan.source->statistics();
  Statistics out;
  out.row_count = source.row_count;
  out.exact = source.exact;
  double width = 0;
  bool widths_known = source.row_count.has_value() && !source.columns.empty();
  for (int index : plan.projection) {
    widths_known = widths_known && static_cast<size_t>(index) < source.columns.size() &&
                   source.columns[static_cast<size_t>(index)].avg_width.has_value();
    if (widths_known) width += *source.columns[static_cast<size_t>(index)].avg_width;
  }
  if (widths_known) {
    out.total_bytes = Count(width * static_cast<double>(*source.row_count));
  } else if (source.total_bytes) {
    const int total = plan.source->schema()->num_fields();
    out.total_bytes = total > 0 ? Count(static_cast<double>(*source.total_bytes) *
                                        static_cast<double>(plan.projection.size()) / total)
                                : *source.total_bytes;
  }
  if (!source.columns.empty()) {
    for (int index : plan.projection) {
      out.columns.push_back(static_cast<size_t>(index) < source.columns.size()
                                ? source.columns[static_cast<size_t>(index)]
                                : ColumnStatistics{});
    }
  }
  // Exact filters run in the scan; inexact ones are also kept above (and counted there).
  double selectivity = 1.0;
  for (const auto& f : plan.filters) {
    if (plan.source->SupportsFilter(*f) == TableSource::FilterPushdown::kExact) {
      selectivity *= internal::EstimateSelectivity(*f, source);
    }
  }
  if (selectivity < 1.0) {
    out = Scaled(out, selectivity);
    out.exact = false;
  }
  if (plan.scan_limit && out.row_count && *out.row_count > *plan.scan_limit) {
    out = WithRows(out, *plan.scan_limit);
  }
  return out;
}

Statistics JoinStatistics(const LogicalPlan& plan) {
  Statistics left = EstimateStatistics(*plan.children[0]);
  Statistics right = EstimateStatistics(*plan.children[1]);
  Statistics out;
  const int nl = plan.children[0]->schema->num_fields();
  const int nr = plan.children[1]->schema->num_fields();
  auto column_stats = [](const Statistics& s, int n) {
    std::vector<ColumnStatistics> cols = s.columns;
    cols.resize(static_cast<size_t>(n));
    return cols;
  };
  if (!left.row_count || !right.row_count) {
    if (plan.join_type == JoinType::kSemi || plan.join_type == JoinType::kAnti ||
        plan.join_type == JoinType::kMark) {
      out.row_count = left.row_count;
    }
    return out;
  }
  const double l = static_cast<double>(*left.row_count);
  const double r = static_cast<double>(*right.row_count);
  double inner = l * r;
  // The fraction of left rows with a matching key, assuming the side with fewer distinct
  // keys has its keys among the other's (containment): the semi join's selectivity.
  double matched = kDefaultSelectivity;
  if (!plan.left_keys.empty()) {
    // Each side's distinct keys: the product of its key columns' distinct counts (as if
    // independent), at most its rows. The join holds |L| |R| / max of the two (containment:
    // the side with fewer keys has them among the other's). Taking the largest single
    // column's count instead overestimated a join on a composite foreign key: TPC-H Q9's
    // lineitem joined with its parts' partsupp rows on (part, supplier) came out 7x its
    // 320,585 rows, so lineitem went to orders first.
    double left_distinct = 1.0;
    double right_distinct = 1.0;
    matched = 1.0;
    for (size_t i = 0; i < plan.left_keys.size(); ++i) {
      std::optional<double> dl = DistinctGuess(left, *plan.left_keys[i]);
      std::optional<double> dr = DistinctGuess(right, *plan.right_keys[i]);
      left_distinct *= std::max(1.0, dl.value_or(l));
      right_distinct *= std::max(1.0, dr.value_or(r));
      const double left_keys = std::max(1.0, std::min(dl.value_or(l), l));
      const double right_keys = std::min(dr.value_or(r), r);
      matched = std::min(matched, right_keys / left_keys);
    }
    left_distinct = std::min(left_distinct, std::max(l, 1.0));
    right_distinct = std::min(right_distinct, std::max(r, 1.0));
    inner = l * r / std::max({1.0, left_distinct, right_distinct});
  }
  if (plan.join_filter) inner *= kRangeSelectivity;
  double rows = inner;
  switch (plan.join_type) {
    case JoinType::kInner:
      break;
    case JoinType::kLeft:
      rows = std::max(inner, l);
      break;
    case JoinType::kRight:
      rows = std::max(inner, r);
      break;
    case JoinType::kFull:
      rows = std::max(inner, l + r);
      break;
    case JoinType::kSemi:
      rows = l * (plan.join_filter ? matched * kRangeSelectivity : matched);
      break;
    case JoinType::kAnti:
    case JoinType::kNullAwareAnti:
      // Never estimated empty: the containment assumption is a guess.
      rows = l * std::max(1.0 - matched, kAntiMinSelectivity);
      break;
    case JoinType::kMark:
      rows = l;
      break;
    case JoinType::kRightSemi:
    case JoinType::kRightAnti:
      rows = r * kDefaultSelectivity;
      break;
  }
  out.row_count = Count(rows);
  if (left.total_bytes && right.total_bytes && l > 0 && r > 0) {
    double row_bytes = *left.total_bytes / l;
    if (plan.join_type != JoinType::kSemi && plan.join_type != JoinType::kAnti &&
        plan.join_type != JoinType::kMark) {
      row_bytes += *right.total_bytes / r;
    }
    out.total_bytes = Count(row_bytes * rows);
  }
  if (!left.columns.empty() || !right.columns.empty()) {
    out.columns = column_stats(left, nl);
    if (plan.join_type == JoinType::kMark) {
      out.columns.emplace_back();
    } else if (plan.join_type != JoinType::kSemi && plan.join_type != JoinType::kAnti) {
      std::vector<ColumnStatistics> rc = column_stats(right, nr);
      out.columns.insert(out.columns.end(), rc.begin(), rc.end());
    }
    // Outer joins add NULLs: null counts are no longer known.
    for (ColumnStatistics& c : out.columns) c.null_count.reset();
  }
  return out;
}

Statistics AggregateStatistics(const LogicalPlan& plan) {
  Statistics input = EstimateStatistics(*plan.children[0]);
  Statistics out;
  const size_t width = plan.group_exprs.size() + plan.aggregates.size();
  if (plan.group_exprs.empty()) {
    out.row_count = 1;
    out.exact = true;
    return out;
  }
  if (!input.row_count) return out;
  const double rows = static_cast<double>(*input.row_count);
  double groups = 1.0;
  for (const auto& g : plan.group_exprs) {
    std::optional<double> d = DistinctGuess(input, *g);
    // Without statistics a group column is guessed to repeat each value ten times.
    groups *= d && ColumnStats(input, *g) && ColumnStats(input, *g)->distinct_count
                  ? *d
                  : std::max(1.0, rows / 10);
    if (groups >= rows) break;
  }
  out.row_count = Count(std::min(groups, std::max(rows, 1.0)));
  if (input.total_bytes && *input.row_count > 0) {
    out.total_bytes =
        Count(static_cast<double>(*input.total_bytes) / rows * static_cast<double>(*out.row_count));
  }
  out.columns.resize(width);
  return out;
}

}  // namespace

namespace internal {

double EstimateSelectivity(const Expr& predicate, const Statistics& input) {
  if (predicate.kind == ExprKind::kLiteral) {
    return IsBoolLiteral(predicate, true) ? 1.0 : 0.0;
  }
  if (predicate.kind != ExprKind::kCall) return kDefaultSelectivity;
  const std::string& name = predicate.name;
  if (name == "and") {
    // Range conjuncts on one column (x >= a AND x < b) keep the part of [min, max]
    // between their bounds, not the product of their separate fractions.
    double s = 1.0;
    std::vector<bool> done(predicate.args.size(), false);
    for (size_t i = 0; i < predicate.args.size(); ++i) {
      if (done[i]) continue;
      std::optional<std::pair<double, double>> range = RangeBounds(*predicate.args[i], input);
      if (!range) continue;
      const int column = ColumnOfRange(*predicate.args[i]);
      double lo = range->first;
      double hi = range->second;
      int merged = 1;
      for (size_t j = i + 1; j < predicate.args.size(); ++j) {
        if (done[j] || ColumnOfRange(*predicate.args[j]) != column) continue;
        std::optional<std::pair<double, double>> other = RangeBounds(*predicate.args[j], input);
        if (!other) continue;
        lo = std::max(lo, other->first);
        hi = std::min(hi, other->second);
        done[j] = true;
        ++merged;
      }
      if (merged < 2) continue;
      done[i] = true;
      s *= std::clamp(hi - lo, 0.0005, 1.0);
    }
    for (size_t i = 0; i < predicate.args.size(); ++i) {
      if (!done[i]) s *= EstimateSelectivity(*predicate.args[i], input);
    }
    return s;
  }
  if (name == "or") {
    double keep_none = 1.0;
    for (const auto& a : predicate.args) keep_none *= 1.0 - EstimateSelectivity(*a, input);
    return 1.0 - keep_none;
  }
  if (name == "not" && predicate.args.size() == 1) {
    return std::clamp(1.0 - EstimateSelectivity(*predicate.args[0], input), 0.0, 1.0);
  }
  if (name == "eq" || name == "is_not_distinct_from") {
    int column_side = 0;
    if (LiteralArg(predicate, &column_side)) {
      std::optional<double> d =
          DistinctGuess(input, *predicate.args[static_cast<size_t>(column_side)]);
      const ColumnStatistics* c =
          ColumnStats(input, *predicate.args[static_cast<size_t>(column_side)]);
      if (d && c && c->distinct_count) return 1.0 / std::max(1.0, *d);
    }
    return kEqualitySelectivity;
  }
  if (name == "ne" || name == "is_distinct_from") {
    int column_side = 0;
    if (LiteralArg(predicate, &column_side)) {
      const ColumnStatistics* c =
          ColumnStats(input, *predicate.args[static_cast<size_t>(column_side)]);
      if (c && c->distinct_count && *c->distinct_count > 0) {
        return 1.0 - 1.0 / static_cast<double>(*c->distinct_count);
      }
    }
    return 1.0 - kEqualitySelectivity;
  }
  if (name == "lt" || name == "le" || name == "gt" || name == "ge") {
    return RangeSelectivity(predicate, input);
  }
  if (name == "in_list") {
    // k values of the column's d distinct ones when d is known (TPC-H Q16's p_size IN (eight
    // sizes) keeps 8 / 50 of the parts, not 0.8), else kEqualitySelectivity each.
    const auto k = static_cast<double>(predicate.args.size() - 1);
    const ColumnStatistics* c = ColumnStats(input, *predicate.args[0]);
    if (c && c->distinct_count && *c->distinct_count > 0) {
      return std::min(1.0, k / static_cast<double>(*c->distinct_count));
    }
    return std::min(1.0, kEqualitySelectivity * k);
  }
  if (name == "is_null" && predicate.args.size() == 1) {
    const ColumnStatistics* c = ColumnStats(input, *predicate.args[0]);
    if (c && c->null_count && input.row_count && *input.row_count > 0) {
      return static_cast<double>(*c->null_count) / *input.row_count;
    }
    return kEqualitySelectivity;
  }
  if (name == "is_not_null") return 1.0 - kEqualitySelectivity;
  if (name == "like" || name == "ilike") return kEqualitySelectivity;
  return kDefaultSelectivity;
}

}  // namespace internal

Statistics EstimateStatistics(const LogicalPlan& plan) {
  switch (plan.kind) {
    case LogicalKind::kScan:
      return ScanStatistics(plan);
    case LogicalKind::kValues: {
      Statistics out;
      out.row_count = static_cast<int64_t>(plan.rows.size());
      out.exact = true;
      return out;
    }
    case LogicalKind::kProjection: {
      Statistics input = EstimateStatistics(*plan.children[0]);
      Statistics out;
      out.row_count = input.row_count;
      out.exact = input.exact;
      std::optional<double> width = RowWidth(plan.exprs, input);
      if (width && input.row_count) {
        out.total_bytes = Count(*width * static_cast<double>(*input.row_count));
      } else if (input.total_bytes) {
        const int in_width = plan.children[0]->schema->num_fields();
        out.total_bytes = in_width > 0 ? Count(static_cast<double>(*input.total_bytes) *
                                               static_cast<double>(plan.exprs.size()) / in_width)
                                       : *input.total_bytes;
      }
      if (!input.columns.empty()) {
        for (const auto& e : plan.exprs) {
          const ColumnStatistics* c = ColumnStats(input, *e);
          out.columns.push_back(c ? *c : ColumnStatistics{});
        }
      }
      return out;
    }
    case LogicalKind::kFilter: {
      Statistics input = EstimateStatistics(*plan.children[0]);
      Statistics out = Scaled(input, internal::EstimateSelectivity(*plan.predicate, input));
      out.exact = false;
      return out;
    }
    case LogicalKind::kAggregate:
      return AggregateStatistics(plan);
    case LogicalKind::kWindow: {
      Statistics input = EstimateStatistics(*plan.children[0]);
      if (!input.columns.empty()) input.columns.resize(plan.schema->fields().size());
      return input;
    }
    case LogicalKind::kUnnest: {
      // The lists' lengths are unknown: no estimate of the rows, the input's column
      // statistics for the input's columns (their values repeat, their ranges hold).
      Statistics input = EstimateStatistics(*plan.children[0]);
      Statistics out;
      out.columns = std::move(input.columns);
      if (!out.columns.empty()) out.columns.resize(plan.schema->fields().size());
      return out;
    }
    case LogicalKind::kJoin:
      return JoinStatistics(plan);
    case LogicalKind::kSort:
    case LogicalKind::kMaxOneRow: {
      Statistics input = EstimateStatistics(*plan.children[0]);
      if (plan.kind == LogicalKind::kMaxOneRow) {
        Statistics out;
        out.row_count = 1;
        return out;
      }
      return input;
    }
    case LogicalKind::kLimit: {
      Statistics input = EstimateStatistics(*plan.children[0]);
      std::optional<int64_t> rows = input.row_count;
      if (rows) rows = std::max<int64_t>(0, *rows - plan.offset);
      if (plan.fetch) rows = rows ? std::min(*rows, *plan.fetch) : *plan.fetch;
      Statistics out = WithRows(input, rows);
      out.exact = input.exact && input.row_count.has_value();
      return out;
    }
    case LogicalKind::kUnion: {
      Statistics out;
      int64_t rows = 0;
      int64_t bytes = 0;
      bool bytes_known = true;
      for (const auto& c : plan.children) {
        Statistics s = EstimateStatistics(*c);
        if (!s.row_count) return Unknown();
        rows += *s.row_count;
        if (s.total_bytes) {
          bytes += *s.total_bytes;
        } else {
          bytes_known = false;
        }
      }
      out.row_count = rows;
      if (bytes_known) out.total_bytes = bytes;
      return out;
    }
    case LogicalKind::kRecursiveQuery:
    case LogicalKind::kWorkTableScan:
      // How many iterations run, and what each yields, is not known before they run.
      return Unknown();
  }
  return Unknown();
}

std::optional<int64_t> MaxRows(const LogicalPlan& plan) {
  auto child = [&](size_t i) { return MaxRows(*plan.children[i]); };
  switch (plan.kind) {
    case LogicalKind::kScan: {
      const Statistics source = plan.source->statistics();
      if (!source.exact || !source.row_count) return std::nullopt;
      return plan.scan_limit ? std::min(*source.row_count, *plan.scan_limit) : *source.row_count;
    }
    case LogicalKind::kValues:
      return static_cast<int64_t>(plan.rows.size());
    case LogicalKind::kProjection:
    case LogicalKind::kFilter:
    case LogicalKind::kWindow:
    case LogicalKind::kSort:
      return child(0);
    case LogicalKind::kAggregate:
      if (plan.group_exprs.empty()) return 1;
      return child(0);
    case LogicalKind::kMaxOneRow:
      return 1;
    case LogicalKind::kLimit: {
      std::optional<int64_t> rows = child(0);
      if (plan.fetch) return rows ? std::min(*rows, *plan.fetch) : *plan.fetch;
      return rows;
    }
    case LogicalKind::kJoin:
      switch (plan.join_type) {
        case JoinType::kSemi:
        case JoinType::kAnti:
        case JoinType::kNullAwareAnti:
        case JoinType::kMark:
          return child(0);
        case JoinType::kRightSemi:
        case JoinType::kRightAnti:
          return child(1);
        default:
          // Only the product of the inputs bounds a join that pairs rows: too loose to use.
          return std::nullopt;
      }
    case LogicalKind::kUnion: {
      int64_t sum = 0;
      for (size_t i = 0; i < plan.children.size(); ++i) {
        const std::optional<int64_t> rows = child(i);
        if (!rows || __builtin_add_overflow(sum, *rows, &sum)) return std::nullopt;
      }
      return sum;
    }
    case LogicalKind::kUnnest:
    case LogicalKind::kRecursiveQuery:
    case LogicalKind::kWorkTableScan:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace floe::plan
