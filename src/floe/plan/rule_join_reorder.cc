// Join reordering. A tree of inner joins is flattened into its leaves (the relations that
// are not inner joins) and its conditions (key equalities and filter conjuncts over the
// leaves' columns). When every leaf has a row-count estimate, the joins are rebuilt. Trees
// of at most kMaxDpRelations connected relations are also ordered by dynamic programming
// over the subsets of their leaves (JoinAllByDp: the cheapest bushy plan, a plan's cost
// the sum of its joins' result sizes as below), which replaces the greedy order when it
// costs clearly less (TPC-H Q5: customer meets the filtered nations before supplier
// does). The greedy order is greedy operator ordering: starting from one component per leaf, the
// two components connected by an equality whose join has the smallest estimated result are joined,
// until one is left (components without any connecting equality are cross-joined only
// when nothing connected remains, smallest first). A result's size is its estimated rows
// times the bytes of a row's columns that are still needed after it: those the plan above
// the joins reads and those of conditions not yet applied (plus a fixed cost per row).
// Weighing bytes rather than rows keeps wide columns out of the joins that fan out: TPC-H
// Q10 joins lineitem with orders first (three narrow columns) and probes that with the
// customers, rather than carrying the customers' names, addresses and comments through
// the orders join, which is estimated at as many rows. The result may be bushy: TPC-H Q3
// joins orders with the filtered customers first and probes lineitem against that,
// instead of joining lineitem with every order first. The larger component goes left
// (the probe side; the physical planner still picks the build side by size). Every
// condition is applied at the first join where its columns are all present: equalities
// between the two sides become keys, the rest the join filter. A projection restores
// the original column order. Trees of more than 48 relations keep the order written.
//
// Equalities between plain columns are transitive: a = b and b = c make {a, b, c} one class
// of columns equal in every joined row, so a = c holds too. The reorderer adds the missing
// equalities of each class, so that two relations joined in the query only through a third
// can be joined directly (TPC-H Q9: part and partsupp, both equal to lineitem's l_partkey,
// are joined first, and lineitem probes their small join instead of the whole partsupp).
// A join takes one key per class: a second equality of the class between the same two
// sides is implied by the first and the equalities already applied within each side.

#include <algorithm>
#include <bit>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/plan/optimizer.h"
#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

namespace {

using expr::ExprPtr;

// Trees of more inner joins than this are not reordered.
constexpr size_t kMaxReorderedRelations = 48;
// Trees of at most this many relations are ordered by dynamic programming (3^n / 2 pairs
// of parts weighed), larger ones greedily. Planning time grows threefold a relation: a
// chain of 8 generate_series joined on one column planned in 10 ms, of 9 in 40, of 10 in
// 180 (every pair connected through the column's class). TPC-H's largest tree has 8.
constexpr size_t kMaxDpRelations = 8;
// ... and that order is taken when it costs less than this share of the greedy order's.
constexpr double kDpGain = 0.9;

// The bytes a joined row costs besides its columns' (a hash table slot, a row position),
// and the width taken for a column whose width is not estimated.
constexpr double kRowOverheadBytes = 8;
constexpr double kUnknownColumnBytes = 8;

struct Equality {
  ExprPtr left;  // over the region's columns (leaves side by side, original order)
  ExprPtr right;
  bool null_equals_null = false;
  bool applied = false;
};

// The region columns of an equality between two plain columns (not NULL-safe: `a IS NOT
// DISTINCT FROM b` and `b = c` do not make `a = c`), or nullopt.
std::optional<std::pair<int, int>> PlainColumns(const Equality& e) {
  if (e.null_equals_null || e.left->kind != expr::ExprKind::kColumn ||
      e.right->kind != expr::ExprKind::kColumn) {
    return std::nullopt;
  }
  return std::make_pair(e.left->column, e.right->column);
}

// Classes of region columns, joined by Union.
class ColumnClasses {
 public:
  explicit ColumnClasses(int width) : parent_(static_cast<size_t>(width)) {
    for (size_t i = 0; i < parent_.size(); ++i) parent_[i] = static_cast<int>(i);
  }
  int Find(int c) const {
    while (parent_[static_cast<size_t>(c)] != c) c = parent_[static_cast<size_t>(c)];
    return c;
  }
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

struct Condition {
  ExprPtr expr;
  bool applied = false;
};

struct Region {
  std::vector<LogicalPlanPtr> leaves;
  std::vector<int> offsets;  // first region column of each leaf
  std::vector<Equality> equalities;
  std::vector<Condition> filters;
};

bool IsInnerJoin(const LogicalPlan& p) {
  return p.kind == LogicalKind::kJoin && p.join_type == JoinType::kInner;
}

std::vector<int> Shift(int width, int by) {
  std::vector<int> m(static_cast<size_t>(width));
  for (int i = 0; i < width; ++i) m[static_cast<size_t>(i)] = i + by;
  return m;
}

void Flatten(const LogicalPlanPtr& node, int offset, Region* region) {
  if (!IsInnerJoin(*node)) {
    region->leaves.push_back(node);
    region->offsets.push_back(offset);
    return;
  }
  const int nl = node->children[0]->schema->num_fields();
  const int nr = node->children[1]->schema->num_fields();
  Flatten(node->children[0], offset, region);
  Flatten(node->children[1], offset + nl, region);
  const std::vector<int> left_shift = Shift(nl, offset);
  const std::vector<int> right_shift = Shift(nr, offset + nl);
  for (size_t i = 0; i < node->left_keys.size(); ++i) {
    Equality e;
    e.left = expr::RemapColumns(node->left_keys[i], left_shift);
    e.right = expr::RemapColumns(node->right_keys[i], right_shift);
    e.null_equals_null = i < node->null_equals_null.size() && node->null_equals_null[i];
    region->equalities.push_back(std::move(e));
  }
  const std::vector<int> both_shift = Shift(nl + nr, offset);
  for (const ExprPtr& c : expr::SplitConjunction(node->join_filter)) {
    region->filters.push_back({expr::RemapColumns(c, both_shift), false});
  }
}

// The original tree with its leaves replaced (in order) by `leaves`.
LogicalPlanPtr ReplaceLeaves(const LogicalPlanPtr& node, const std::vector<LogicalPlanPtr>& leaves,
                             size_t* next) {
  if (!IsInnerJoin(*node)) return leaves[(*next)++];
  LogicalPlanPtr left = ReplaceLeaves(node->children[0], leaves, next);
  LogicalPlanPtr right = ReplaceLeaves(node->children[1], leaves, next);
  if (left == node->children[0] && right == node->children[1]) return node;
  return WithNewChildren(*node, {std::move(left), std::move(right)});
}

// Which leaves an expression's columns come from (sorted, unique).
std::vector<int> LeavesOf(const expr::Expr& e, const std::vector<int>& leaf_of_column) {
  std::vector<int> out;
  for (int c : expr::ReferencedColumns(e)) out.push_back(leaf_of_column[static_cast<size_t>(c)]);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool AllIn(const std::vector<int>& leaves, const std::vector<bool>& in) {
  return std::all_of(leaves.begin(), leaves.end(),
                     [&](int l) { return in[static_cast<size_t>(l)]; });
}

ExprPtr EqualityExpr(const Equality& e) {
  if (e.null_equals_null) {
    return expr::Call("is_not_distinct_from", {e.left, e.right}, Boolean(), false);
  }
  return expr::Compare("eq", e.left, e.right);
}

// A joined group of leaves: its plan and where each region column sits in it.
struct Component {
  LogicalPlanPtr plan;
  std::vector<bool> leaves;
  std::vector<int> position;  // region column -> plan column (-1: not in this component)
  int width = 0;
  double rows = 0;
};

// The join of two components, with the conditions it would apply.
struct Candidate {
  LogicalPlanPtr plan;
  std::vector<size_t> equalities;
  std::vector<size_t> filters;
  bool connected = false;  // at least one equality is a join key
};

class Reorderer {
 public:
  // `needed`: the region's columns read above it.
  Reorderer(const LogicalPlanPtr& root, Region region, std::vector<bool> needed)
      : root_(root),
        region_(std::move(region)),
        width_(root->schema->num_fields()),
        needed_(std::move(needed)),
        applied_classes_(width_) {
    const size_t n = region_.leaves.size();
    leaf_of_column_.resize(static_cast<size_t>(width_));
    for (size_t i = 0; i < n; ++i) {
      const int w = region_.leaves[i]->schema->num_fields();
      for (int c = 0; c < w; ++c) {
        leaf_of_column_[static_cast<size_t>(region_.offsets[i] + c)] = static_cast<int>(i);
      }
    }
    DeriveEqualities();
    for (const Equality& e : region_.equalities) {
      eq_left_.push_back(LeavesOf(*e.left, leaf_of_column_));
      eq_right_.push_back(LeavesOf(*e.right, leaf_of_column_));
    }
    for (const Condition& c : region_.filters) {
      filter_leaves_.push_back(LeavesOf(*c.expr, leaf_of_column_));
    }
    for (size_t i = 0; i < n; ++i) {
      Component c;
      c.plan = region_.leaves[i];
      c.leaves.assign(n, false);
      c.leaves[i] = true;
      c.position.assign(static_cast<size_t>(width_), -1);
      c.width = c.plan->schema->num_fields();
      for (int k = 0; k < c.width; ++k) {
        c.position[static_cast<size_t>(region_.offsets[i] + k)] = k;
      }
      c.rows = static_cast<double>(*EstimateStatistics(*c.plan).row_count);
      components_.push_back(std::move(c));
    }
  }

  Result<LogicalPlanPtr> Run() {
    std::optional<std::pair<Component, double>> exhaustive;
    if (components_.size() <= kMaxDpRelations) exhaustive = JoinAllByDp();
    double greedy_cost = 0;
    while (components_.size() > 1) {
      // The connected pair whose join is estimated to give the fewest bytes; with no
      // connected pair, the two smallest components (a cross join nobody can avoid).
      std::optional<std::pair<size_t, size_t>> best;
      double best_bytes = 0;
      double best_inputs = 0;
      for (size_t a = 0; a < components_.size(); ++a) {
        for (size_t b = a + 1; b < components_.size(); ++b) {
          Candidate c = Join(a, b);
          if (!c.connected) continue;
          auto [l, r] = Oriented(a, b);
          const double out = ResultBytes(components_[l], components_[r], c);
          const double inputs = components_[a].rows + components_[b].rows;
          if (!best || out < best_bytes || (out == best_bytes && inputs < best_inputs)) {
            best = std::make_pair(a, b);
            best_bytes = out;
            best_inputs = inputs;
          }
        }
      }
      if (!best) {
        std::vector<size_t> order(components_.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
          return components_[x].rows < components_[y].rows;
        });
        best = std::minmax(order[0], order[1]);
      }
      greedy_cost += best_bytes;
      Merge(best->first, best->second);
    }
    // The exhaustive order replaces the greedy one only when clearly cheaper (ties and near
    // ties keep the greedy order, whose tie-break joins the smaller inputs first).
    if (exhaustive && exhaustive->second < kDpGain * greedy_cost) {
      components_.clear();
      components_.push_back(std::move(exhaustive->first));
    }

    // Restore the original column order (and names) when it changed.
    const Component& all = components_[0];
    bool identity = true;
    for (int c = 0; c < width_; ++c) identity &= all.position[static_cast<size_t>(c)] == c;
    if (identity) return all.plan;
    std::vector<ExprPtr> exprs;
    std::vector<std::string> names;
    for (int c = 0; c < width_; ++c) {
      const int p = all.position[static_cast<size_t>(c)];
      const Field& f = all.plan->schema->field(p);
      exprs.push_back(expr::Column(p, f.name(), f.type(), f.nullable()));
      names.push_back(root_->schema->field(c).name());
    }
    return MakeProjection(all.plan, std::move(exprs), std::move(names));
  }

 private:
  // Adds an equality for every pair of columns of one class (see the top of this file)
  // that come from different leaves, have one type and have none yet.
  void DeriveEqualities() {
    ColumnClasses classes(width_);
    std::vector<std::pair<int, int>> present;
    // Each column as an equality names it (with the query's names for it).
    std::vector<ExprPtr> column(static_cast<size_t>(width_));
    for (const Equality& e : region_.equalities) {
      if (auto cols = PlainColumns(e)) {
        classes.Union(cols->first, cols->second);
        present.push_back(std::minmax(cols->first, cols->second));
        column[static_cast<size_t>(cols->first)] = e.left;
        column[static_cast<size_t>(cols->second)] = e.right;
      }
    }
    std::sort(present.begin(), present.end());
    std::vector<std::vector<int>> members(static_cast<size_t>(width_));
    for (int c = 0; c < width_; ++c) {
      if (column[static_cast<size_t>(c)]) {
        members[static_cast<size_t>(classes.Find(c))].push_back(c);
      }
    }
    for (const std::vector<int>& cls : members) {
      if (cls.size() < 3) continue;  // two columns: their equality is there already
      for (size_t i = 0; i < cls.size(); ++i) {
        for (size_t j = i + 1; j < cls.size(); ++j) {
          const ExprPtr& a = column[static_cast<size_t>(cls[i])];
          const ExprPtr& b = column[static_cast<size_t>(cls[j])];
          if (leaf_of_column_[static_cast<size_t>(cls[i])] ==
                  leaf_of_column_[static_cast<size_t>(cls[j])] ||
              !a->type->Equals(*b->type) ||
              std::binary_search(present.begin(), present.end(), std::make_pair(cls[i], cls[j]))) {
            continue;
          }
          Equality e;
          e.left = a;
          e.right = b;
          region_.equalities.push_back(std::move(e));
        }
      }
    }
  }

  // The estimated bytes of candidate `c`, the join of `left` and `right`: its rows times
  // the widths of its columns that are read above the region or by a condition not within
  // the two sides' leaves, plus kRowOverheadBytes a row.
  double ResultBytes(const Component& left, const Component& right, const Candidate& c) const {
    const Statistics stats = EstimateStatistics(*c.plan);
    const double rows =
        stats.row_count ? static_cast<double>(*stats.row_count) : left.rows * right.rows;
    std::vector<bool> both(left.leaves.size());
    for (size_t i = 0; i < both.size(); ++i) both[i] = left.leaves[i] || right.leaves[i];
    std::vector<bool> read = needed_;
    auto mark = [&](const expr::Expr& e) {
      for (int col : expr::ReferencedColumns(e)) read[static_cast<size_t>(col)] = true;
    };
    for (size_t k = 0; k < region_.equalities.size(); ++k) {
      if (AllIn(eq_left_[k], both) && AllIn(eq_right_[k], both)) continue;
      mark(*region_.equalities[k].left);
      mark(*region_.equalities[k].right);
    }
    for (size_t f = 0; f < region_.filters.size(); ++f) {
      if (!AllIn(filter_leaves_[f], both)) mark(*region_.filters[f].expr);
    }
    double width = kRowOverheadBytes;
    for (int col = 0; col < width_; ++col) {
      if (!read[static_cast<size_t>(col)]) continue;
      int p = left.position[static_cast<size_t>(col)];
      if (p < 0 && right.position[static_cast<size_t>(col)] >= 0) {
        p = left.width + right.position[static_cast<size_t>(col)];
      }
      if (p < 0) continue;
      const size_t at = static_cast<size_t>(p);
      width += at < stats.columns.size() && stats.columns[at].avg_width
                   ? *stats.columns[at].avg_width
                   : kUnknownColumnBytes;
    }
    return rows * width;
  }

  // The larger component (by estimated rows) goes left: the probe side of a hash join.
  std::pair<size_t, size_t> Oriented(size_t a, size_t b) const {
    if (components_[b].rows > components_[a].rows) return {b, a};
    return {a, b};
  }

  // The join of components a and b (oriented): keys from the equalities between them,
  // the other conditions newly complete as its filter. Nothing is marked applied.
  Candidate Join(size_t a, size_t b) const {
    auto [l, r] = Oriented(a, b);
    return JoinSides(
        components_[l], components_[r], [&](size_t k) { return region_.equalities[k].applied; },
        [&](size_t f) { return region_.filters[f].applied; }, applied_classes_);
  }

  // The join of `left` and `right`: keys from the equalities between them, the other
  // conditions newly complete as its filter. `eq_applied` and `filter_applied` say which
  // conditions the sides have applied already, `classes` the columns their applied
  // equalities made equal.
  template <typename EqApplied, typename FilterApplied>
  Candidate JoinSides(const Component& left, const Component& right, EqApplied&& eq_applied,
                      FilterApplied&& filter_applied, const ColumnClasses& classes) const {
    std::vector<bool> both(left.leaves.size());
    for (size_t i = 0; i < both.size(); ++i) both[i] = left.leaves[i] || right.leaves[i];
    std::vector<int> to_right(static_cast<size_t>(width_), -1);
    std::vector<int> joined = left.position;
    for (int c = 0; c < width_; ++c) {
      const int p = right.position[static_cast<size_t>(c)];
      if (p < 0) continue;
      to_right[static_cast<size_t>(c)] = p;
      joined[static_cast<size_t>(c)] = left.width + p;
    }

    Candidate out;
    std::vector<ExprPtr> left_keys;
    std::vector<ExprPtr> right_keys;
    std::vector<bool> null_equals_null;
    std::vector<ExprPtr> filter;
    // The plain-column keys taken so far, as (left side's column, right side's column).
    std::vector<std::pair<int, int>> plain_keys;
    // True when a key already taken implies left column `l` = right column `r`: l and r
    // are equal to its columns within their sides.
    auto implied = [&](int l, int r) {
      return std::any_of(plain_keys.begin(), plain_keys.end(), [&](const auto& key) {
        return classes.Find(l) == classes.Find(key.first) &&
               classes.Find(r) == classes.Find(key.second);
      });
    };
    for (size_t k = 0; k < region_.equalities.size(); ++k) {
      const Equality& e = region_.equalities[k];
      if (eq_applied(k)) continue;
      const auto& el = eq_left_[k];
      const auto& er = eq_right_[k];
      const std::optional<std::pair<int, int>> cols = PlainColumns(e);
      if (!el.empty() && !er.empty() && AllIn(el, left.leaves) && AllIn(er, right.leaves)) {
        if (cols) {
          if (implied(cols->first, cols->second)) {
            out.equalities.push_back(k);
            continue;
          }
          plain_keys.push_back(*cols);
        }
        left_keys.push_back(expr::RemapColumns(e.left, left.position));
        right_keys.push_back(expr::RemapColumns(e.right, to_right));
      } else if (!el.empty() && !er.empty() && AllIn(er, left.leaves) && AllIn(el, right.leaves)) {
        if (cols) {
          if (implied(cols->second, cols->first)) {
            out.equalities.push_back(k);
            continue;
          }
          plain_keys.emplace_back(cols->second, cols->first);
        }
        left_keys.push_back(expr::RemapColumns(e.right, left.position));
        right_keys.push_back(expr::RemapColumns(e.left, to_right));
      } else if (AllIn(el, both) && AllIn(er, both)) {
        filter.push_back(expr::RemapColumns(EqualityExpr(e), joined));
        out.equalities.push_back(k);
        continue;
      } else {
        continue;
      }
      null_equals_null.push_back(e.null_equals_null);
      out.equalities.push_back(k);
    }
    for (size_t f = 0; f < region_.filters.size(); ++f) {
      if (filter_applied(f) || !AllIn(filter_leaves_[f], both)) continue;
      filter.push_back(expr::RemapColumns(region_.filters[f].expr, joined));
      out.filters.push_back(f);
    }
    out.connected = !left_keys.empty();
    out.plan = MakeJoin(left.plan, right.plan, JoinType::kInner, std::move(left_keys),
                        std::move(right_keys), expr::JoinConjunction(std::move(filter)),
                        std::move(null_equals_null));
    return out;
  }

  void Merge(size_t a, size_t b) {
    Candidate chosen = Join(a, b);
    auto [l, r] = Oriented(a, b);
    for (size_t k : chosen.equalities) {
      Equality& e = region_.equalities[k];
      e.applied = true;
      if (auto cols = PlainColumns(e)) applied_classes_.Union(cols->first, cols->second);
    }
    for (size_t f : chosen.filters) region_.filters[f].applied = true;
    Component merged = Merged(components_[l], components_[r], std::move(chosen.plan));
    // The merged component takes the lower index; the other is removed.
    const size_t keep = std::min(a, b);
    const size_t drop = std::max(a, b);
    components_[keep] = std::move(merged);
    components_.erase(components_.begin() + static_cast<std::ptrdiff_t>(drop));
  }

  // The component `plan` makes of `left` and `right` (plan = their join, left ++ right).
  Component Merged(const Component& left, const Component& right, LogicalPlanPtr plan) const {
    Component merged;
    merged.plan = std::move(plan);
    merged.leaves = left.leaves;
    merged.position = left.position;
    for (size_t i = 0; i < merged.leaves.size(); ++i) {
      merged.leaves[i] = merged.leaves[i] || right.leaves[i];
    }
    for (int c = 0; c < width_; ++c) {
      const int p = right.position[static_cast<size_t>(c)];
      if (p >= 0) merged.position[static_cast<size_t>(c)] = left.width + p;
    }
    merged.width = left.width + right.width;
    std::optional<int64_t> estimate = EstimateStatistics(*merged.plan).row_count;
    merged.rows = estimate ? static_cast<double>(*estimate) : left.rows * right.rows;
    return merged;
  }

  // True when equality k lies within `side`: it has columns, all from the side's leaves
  // (the side's plan applied it).
  bool EqualityWithin(size_t k, const Component& side) const {
    return (!eq_left_[k].empty() || !eq_right_[k].empty()) && AllIn(eq_left_[k], side.leaves) &&
           AllIn(eq_right_[k], side.leaves);
  }

  // The join of every leaf by dynamic programming over the subsets of the leaves: a
  // subset's plan is the cheapest join of the plans of two parts of it that an equality
  // connects, its cost the sum of ResultBytes over its joins (so that a filtered
  // dimension can meet its fact table before a join that would fan out: TPC-H Q5 joins
  // customer with the ASIA nations before orders, where the greedy order joined the
  // nations with supplier first and could then only bring customer through supplier).
  // With its cost; nullopt when the leaves are not all connected (the greedy order places
  // the cross joins then). What a part has applied follows from its leaves: a condition lies within
  // one part, or is applied where the parts meet (one with no columns at every join that
  // takes it, which repeats a filter but never drops it).
  std::optional<std::pair<Component, double>> JoinAllByDp() const {
    const size_t n = components_.size();
    const uint32_t full = (uint32_t{1} << n) - 1;
    std::vector<std::optional<Component>> best(full + 1);
    std::vector<double> cost(full + 1, 0);
    for (size_t i = 0; i < n; ++i) best[uint32_t{1} << i] = components_[i];
    for (uint32_t mask = 1; mask <= full; ++mask) {
      if (std::popcount(mask) < 2) continue;
      const uint32_t low = mask & (~mask + 1);
      for (uint32_t sub = (mask - 1) & mask; sub > 0; sub = (sub - 1) & mask) {
        const uint32_t other = mask ^ sub;
        if ((sub & low) == 0 || !best[sub] || !best[other]) continue;
        const Component* left = &*best[sub];
        const Component* right = &*best[other];
        if (right->rows > left->rows) std::swap(left, right);
        ColumnClasses classes(width_);
        for (size_t k = 0; k < region_.equalities.size(); ++k) {
          if (!EqualityWithin(k, *left) && !EqualityWithin(k, *right)) continue;
          if (auto cols = PlainColumns(region_.equalities[k])) {
            classes.Union(cols->first, cols->second);
          }
        }
        auto filter_within = [&](size_t f) {
          return !filter_leaves_[f].empty() && (AllIn(filter_leaves_[f], left->leaves) ||
                                                AllIn(filter_leaves_[f], right->leaves));
        };
        Candidate c = JoinSides(
            *left, *right,
            [&](size_t k) { return EqualityWithin(k, *left) || EqualityWithin(k, *right); },
            filter_within, classes);
        if (!c.connected) continue;
        const double total = cost[sub] + cost[other] + ResultBytes(*left, *right, c);
        if (best[mask] && total >= cost[mask]) continue;
        Component merged = Merged(*left, *right, std::move(c.plan));
        best[mask] = std::move(merged);
        cost[mask] = total;
      }
    }
    if (!best[full]) return std::nullopt;
    return std::make_pair(std::move(*best[full]), cost[full]);
  }

  LogicalPlanPtr root_;
  Region region_;
  int width_;
  std::vector<bool> needed_;  // region columns read above the region
  std::vector<int> leaf_of_column_;
  std::vector<std::vector<int>> eq_left_;
  std::vector<std::vector<int>> eq_right_;
  std::vector<std::vector<int>> filter_leaves_;
  std::vector<Component> components_;
  // Classes of the columns made equal by the equalities applied so far (each within one
  // component).
  ColumnClasses applied_classes_;
};

std::vector<bool> AllNeeded(const LogicalPlan& plan) {
  return std::vector<bool>(static_cast<size_t>(plan.schema->num_fields()), true);
}

// The columns of `node`'s child `i` that `node` reads when the nodes above it read its
// columns `needed`: what projection pushdown (a later rule) will keep, estimated node by
// node so that join orders are weighed by the bytes that travel through them. Kinds not
// handled here read all of their inputs' columns.
std::vector<bool> ChildNeeds(const LogicalPlan& node, size_t i, const std::vector<bool>& needed) {
  const LogicalPlan& child = *node.children[i];
  const int width = child.schema->num_fields();
  std::vector<bool> out(static_cast<size_t>(width), false);
  // Marks the columns of this child that `e` refers to, where the child's columns start at
  // `offset` among the columns `e` is over.
  auto refs = [&](const ExprPtr& e, int offset) {
    if (!e) return;
    for (int c : expr::ReferencedColumns(*e)) {
      if (c >= offset && c < offset + width) out[static_cast<size_t>(c - offset)] = true;
    }
  };
  // Marks the child's columns that the node passes through as its columns from `offset`.
  auto passed = [&](int offset) {
    for (int c = 0; c < width; ++c) {
      if (needed[static_cast<size_t>(offset + c)]) out[static_cast<size_t>(c)] = true;
    }
  };
  switch (node.kind) {
    case LogicalKind::kProjection:
      for (size_t k = 0; k < node.exprs.size(); ++k) {
        if (needed[k]) refs(node.exprs[k], 0);
      }
      return out;
    case LogicalKind::kFilter:
      passed(0);
      refs(node.predicate, 0);
      return out;
    case LogicalKind::kSort:
      passed(0);
      for (const SortKey& k : node.sort_keys) refs(k.expr, 0);
      return out;
    case LogicalKind::kLimit:
      passed(0);
      return out;
    case LogicalKind::kAggregate:
      for (const ExprPtr& g : node.group_exprs) refs(g, 0);
      for (const AggregateCall& a : node.aggregates) {
        for (const ExprPtr& arg : a.args) refs(arg, 0);
        refs(a.filter, 0);
        for (const SortKey& k : a.order_by) refs(k.expr, 0);
      }
      return out;
    case LogicalKind::kJoin: {
      if (node.join_type == JoinType::kRightSemi || node.join_type == JoinType::kRightAnti) break;
      const int nl = node.children[0]->schema->num_fields();
      const bool right_out =
          node.join_type == JoinType::kInner || node.join_type == JoinType::kLeft ||
          node.join_type == JoinType::kRight || node.join_type == JoinType::kFull;
      if (i == 0) {
        passed(0);
      } else if (right_out) {
        passed(nl);
      }
      for (const ExprPtr& k : i == 0 ? node.left_keys : node.right_keys) refs(k, 0);
      refs(node.join_filter, i == 0 ? 0 : nl);
      return out;
    }
    default:
      break;
  }
  return AllNeeded(child);
}

// `needed`: the columns of `plan` that the nodes above it read.
Result<LogicalPlanPtr> Rewrite(const LogicalPlanPtr& plan, const std::vector<bool>& needed) {
  if (!IsInnerJoin(*plan)) {
    std::vector<LogicalPlanPtr> children;
    bool changed = false;
    for (size_t i = 0; i < plan->children.size(); ++i) {
      const LogicalPlanPtr& c = plan->children[i];
      FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr n, Rewrite(c, ChildNeeds(*plan, i, needed)));
      changed |= n != c;
      children.push_back(std::move(n));
    }
    return changed ? WithNewChildren(*plan, std::move(children)) : plan;
  }
  Region region;
  Flatten(plan, 0, &region);
  // The region's columns read above it or by its conditions.
  std::vector<bool> read = needed;
  for (const Equality& e : region.equalities) {
    for (int c : expr::ReferencedColumns(*e.left)) read[static_cast<size_t>(c)] = true;
    for (int c : expr::ReferencedColumns(*e.right)) read[static_cast<size_t>(c)] = true;
  }
  for (const Condition& c : region.filters) {
    for (int col : expr::ReferencedColumns(*c.expr)) read[static_cast<size_t>(col)] = true;
  }
  bool estimated = true;
  for (size_t i = 0; i < region.leaves.size(); ++i) {
    LogicalPlanPtr& leaf = region.leaves[i];
    const auto from = read.begin() + region.offsets[i];
    std::vector<bool> leaf_needs(from, from + leaf->schema->num_fields());
    FLOE_ASSIGN_OR_RAISE(leaf, Rewrite(leaf, leaf_needs));
    estimated &= EstimateStatistics(*leaf).row_count.has_value();
  }
  // Two relations need no order: the physical planner picks the build side. The greedy
  // search costs about the cube of the relations (each step weighs every pair); past
  // kMaxReorderedRelations the joins keep the order the query wrote (a 300-table join spent
  // minutes here).
  if (!estimated || region.leaves.size() < 3 || region.leaves.size() > kMaxReorderedRelations) {
    size_t next = 0;
    return ReplaceLeaves(plan, region.leaves, &next);
  }
  return Reorderer(plan, std::move(region), needed).Run();
}

}  // namespace

Result<LogicalPlanPtr> ReorderJoins(const LogicalPlanPtr& plan) {
  return Rewrite(plan, AllNeeded(*plan));
}

}  // namespace floe::plan::internal
