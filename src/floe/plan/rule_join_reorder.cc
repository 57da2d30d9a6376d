// Join reordering. A tree of inner joins is flattened into its leaves (the relations that
// are not inner joins) and its conditions (key equalities and filter conjuncts over the
// leaves' columns). When every leaf has a row-count estimate, the joins are rebuilt
// left-deep and greedily: the largest relation first (the probe side of every hash join
// above it), then each time the relation connected to what is joined so far by an
// equality whose join has the smallest estimated result (a relation without one only
// when none is connected, so no cross join is introduced where a connected choice
// exists). Every condition is applied at the first
// join where its columns are all present: equalities between the two sides become keys,
// the rest the join filter. A projection restores the original column order.

#include <algorithm>
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

struct Equality {
  ExprPtr left;  // over the region's columns (leaves side by side, original order)
  ExprPtr right;
  bool null_equals_null = false;
  bool applied = false;
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

bool OnlyLeaf(const std::vector<int>& leaves, int leaf) {
  return leaves.size() == 1 && leaves[0] == leaf;
}

ExprPtr EqualityExpr(const Equality& e) {
  if (e.null_equals_null) {
    return expr::Call("is_not_distinct_from", {e.left, e.right}, Boolean(), false);
  }
  return expr::Compare("eq", e.left, e.right);
}

Result<LogicalPlanPtr> Reorder(const LogicalPlanPtr& root, Region region) {
  const size_t n = region.leaves.size();
  std::vector<double> rows(n);
  for (size_t i = 0; i < n; ++i) {
    rows[i] = static_cast<double>(*EstimateStatistics(*region.leaves[i]).row_count);
  }
  const int width = root->schema->num_fields();
  std::vector<int> leaf_of_column(static_cast<size_t>(width));
  for (size_t i = 0; i < n; ++i) {
    const int w = region.leaves[i]->schema->num_fields();
    for (int c = 0; c < w; ++c) {
      leaf_of_column[static_cast<size_t>(region.offsets[i] + c)] = static_cast<int>(i);
    }
  }
  std::vector<std::vector<int>> eq_left(region.equalities.size());
  std::vector<std::vector<int>> eq_right(region.equalities.size());
  for (size_t k = 0; k < region.equalities.size(); ++k) {
    eq_left[k] = LeavesOf(*region.equalities[k].left, leaf_of_column);
    eq_right[k] = LeavesOf(*region.equalities[k].right, leaf_of_column);
  }

  std::vector<bool> joined(n, false);
  // position[c]: where region column c is in the plan built so far (-1: not yet there).
  std::vector<int> position(static_cast<size_t>(width), -1);
  int built_width = 0;
  auto add_leaf_columns = [&](size_t leaf) {
    const int w = region.leaves[leaf]->schema->num_fields();
    for (int c = 0; c < w; ++c)
      position[static_cast<size_t>(region.offsets[leaf] + c)] = built_width + c;
    built_width += w;
  };

  size_t first = 0;
  for (size_t i = 1; i < n; ++i) {
    if (rows[i] > rows[first]) first = i;
  }
  LogicalPlanPtr plan = region.leaves[first];
  joined[first] = true;
  add_leaf_columns(first);

  // The join of the plan built so far with leaf j: keys from the equalities it
  // completes, the other newly complete conditions as its filter. Nothing is marked
  // applied here, so candidates can be tried.
  struct Step {
    LogicalPlanPtr plan;
    std::vector<size_t> equalities;
    std::vector<size_t> filters;
    std::vector<int> position;
    int built_width = 0;
  };
  auto try_join = [&](size_t j) -> Step {
    Step step;
    step.position = position;
    step.built_width = built_width;
    const LogicalPlanPtr& leaf = region.leaves[j];
    const int leaf_width = leaf->schema->num_fields();
    const std::vector<int>& to_left = position;  // region column -> built plan column
    std::vector<int> to_right(static_cast<size_t>(width), -1);
    for (int c = 0; c < leaf_width; ++c) {
      to_right[static_cast<size_t>(region.offsets[j] + c)] = c;
      step.position[static_cast<size_t>(region.offsets[j] + c)] = step.built_width + c;
    }
    step.built_width += leaf_width;
    std::vector<bool> after = joined;
    after[j] = true;

    std::vector<ExprPtr> left_keys;
    std::vector<ExprPtr> right_keys;
    std::vector<bool> null_equals_null;
    std::vector<ExprPtr> filter;
    for (size_t k = 0; k < region.equalities.size(); ++k) {
      const Equality& e = region.equalities[k];
      if (e.applied) continue;
      if (!eq_left[k].empty() && AllIn(eq_left[k], joined) &&
          OnlyLeaf(eq_right[k], static_cast<int>(j))) {
        left_keys.push_back(expr::RemapColumns(e.left, to_left));
        right_keys.push_back(expr::RemapColumns(e.right, to_right));
      } else if (!eq_right[k].empty() && AllIn(eq_right[k], joined) &&
                 OnlyLeaf(eq_left[k], static_cast<int>(j))) {
        left_keys.push_back(expr::RemapColumns(e.right, to_left));
        right_keys.push_back(expr::RemapColumns(e.left, to_right));
      } else if (AllIn(eq_left[k], after) && AllIn(eq_right[k], after)) {
        filter.push_back(expr::RemapColumns(EqualityExpr(e), step.position));
      } else {
        continue;
      }
      null_equals_null.resize(left_keys.size(), e.null_equals_null);
      step.equalities.push_back(k);
    }
    for (size_t f = 0; f < region.filters.size(); ++f) {
      const Condition& c = region.filters[f];
      if (c.applied || !AllIn(LeavesOf(*c.expr, leaf_of_column), after)) continue;
      filter.push_back(expr::RemapColumns(c.expr, step.position));
      step.filters.push_back(f);
    }
    step.plan = MakeJoin(plan, leaf, JoinType::kInner, std::move(left_keys), std::move(right_keys),
                         expr::JoinConjunction(std::move(filter)), std::move(null_equals_null));
    return step;
  };

  for (size_t step_index = 1; step_index < n; ++step_index) {
    // Among the relations connected by an equality, the one whose join is estimated to
    // give the fewest rows (so a selective foreign-key join comes before a join on a
    // low-cardinality column that multiplies rows); with none connected, the smallest.
    std::optional<size_t> best;
    bool best_connected = false;
    double best_rows = 0;
    for (size_t j = 0; j < n; ++j) {
      if (joined[j]) continue;
      bool connected = false;
      for (size_t k = 0; k < region.equalities.size() && !connected; ++k) {
        if (region.equalities[k].applied) continue;
        connected = (AllIn(eq_left[k], joined) && !eq_left[k].empty() &&
                     OnlyLeaf(eq_right[k], static_cast<int>(j))) ||
                    (AllIn(eq_right[k], joined) && !eq_right[k].empty() &&
                     OnlyLeaf(eq_left[k], static_cast<int>(j)));
      }
      double out = rows[j];
      if (connected) {
        std::optional<int64_t> estimate = EstimateStatistics(*try_join(j).plan).row_count;
        if (estimate) out = static_cast<double>(*estimate);
      }
      if (!best || (connected && !best_connected) ||
          (connected == best_connected &&
           (out < best_rows || (out == best_rows && rows[j] < rows[*best])))) {
        best = j;
        best_connected = connected;
        best_rows = out;
      }
    }
    const size_t j = *best;
    Step chosen = try_join(j);
    for (size_t k : chosen.equalities) region.equalities[k].applied = true;
    for (size_t f : chosen.filters) region.filters[f].applied = true;
    joined[j] = true;
    position = std::move(chosen.position);
    built_width = chosen.built_width;
    plan = std::move(chosen.plan);
  }

  // Restore the original column order (and names) when it changed.
  bool identity = true;
  for (int c = 0; c < width; ++c) identity &= position[static_cast<size_t>(c)] == c;
  if (identity) return plan;
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (int c = 0; c < width; ++c) {
    const Field& f = plan->schema->field(position[static_cast<size_t>(c)]);
    exprs.push_back(
        expr::Column(position[static_cast<size_t>(c)], f.name(), f.type(), f.nullable()));
    names.push_back(root->schema->field(c).name());
  }
  return MakeProjection(std::move(plan), std::move(exprs), std::move(names));
}

Result<LogicalPlanPtr> Rewrite(const LogicalPlanPtr& plan) {
  if (!IsInnerJoin(*plan)) {
    std::vector<LogicalPlanPtr> children;
    bool changed = false;
    for (const auto& c : plan->children) {
      FLOE_ASSIGN_OR_RAISE(LogicalPlanPtr n, Rewrite(c));
      changed |= n != c;
      children.push_back(std::move(n));
    }
    return changed ? WithNewChildren(*plan, std::move(children)) : plan;
  }
  Region region;
  Flatten(plan, 0, &region);
  bool estimated = true;
  for (auto& leaf : region.leaves) {
    FLOE_ASSIGN_OR_RAISE(leaf, Rewrite(leaf));
    estimated &= EstimateStatistics(*leaf).row_count.has_value();
  }
  // Two relations need no order: the physical planner picks the build side.
  if (!estimated || region.leaves.size() < 3) {
    size_t next = 0;
    return ReplaceLeaves(plan, region.leaves, &next);
  }
  return Reorder(plan, std::move(region));
}

}  // namespace

Result<LogicalPlanPtr> ReorderJoins(const LogicalPlanPtr& plan) { return Rewrite(plan); }

}  // namespace floe::plan::internal
