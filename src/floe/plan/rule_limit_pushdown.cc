// Limit pushdown. A LIMIT (with OFFSET) is copied as far down as rows map one to one:
//   Limit over Limit        merged into one
//   Limit over Projection   moves below it
//   Limit over UNION ALL    every input gets Limit(offset + fetch); the outer one stays
//   Limit over left join    the left input gets Limit(offset + fetch) (each left row
//                           gives at least one output row); the outer one stays
//   Limit over a Scan       without filters: the scan may stop after offset + fetch rows;
//                           the outer limit stays (scans of several partitions overshoot)
// A Limit over a Sort stays: the physical planner turns the pair into a top-K sort.

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

namespace {

LogicalPlanPtr PushLimit(const LogicalPlanPtr& limit);

// `input` limited to its first `n` rows, pushed down as far as it goes.
LogicalPlanPtr LimitInput(const LogicalPlanPtr& input, int64_t n) {
  if (input->kind == LogicalKind::kLimit && input->offset == 0 && input->fetch &&
      *input->fetch <= n) {
    return input;
  }
  return PushLimit(MakeLimit(input, 0, n));
}

LogicalPlanPtr PushLimit(const LogicalPlanPtr& limit) {
  const int64_t offset = limit->offset;
  const int64_t fetch = *limit->fetch;
  const LogicalPlanPtr& child = limit->children[0];
  switch (child->kind) {
    case LogicalKind::kLimit: {
      // Skip `offset` rows of the inner limit's output, then take at most `fetch`.
      const int64_t inner_offset = child->offset;
      std::optional<int64_t> inner_fetch = child->fetch;
      const int64_t merged_offset = LimitRowsNeeded(inner_offset, offset);
      int64_t merged_fetch = fetch;
      if (inner_fetch) merged_fetch = std::min(fetch, std::max<int64_t>(0, *inner_fetch - offset));
      return PushLimit(MakeLimit(child->children[0], merged_offset, merged_fetch));
    }
    case LogicalKind::kProjection: {
      LogicalPlanPtr below = PushLimit(MakeLimit(child->children[0], offset, fetch));
      return WithNewChildren(*child, {std::move(below)});
    }
    case LogicalKind::kUnion: {
      if (!child->set_all) return limit;
      std::vector<LogicalPlanPtr> inputs;
      for (const auto& c : child->children)
        inputs.push_back(LimitInput(c, LimitRowsNeeded(offset, fetch)));
      return MakeLimit(WithNewChildren(*child, std::move(inputs)), offset, fetch);
    }
    case LogicalKind::kJoin: {
      if (child->join_type != JoinType::kLeft) return limit;
      LogicalPlanPtr left = LimitInput(child->children[0], LimitRowsNeeded(offset, fetch));
      if (left == child->children[0]) return limit;
      return MakeLimit(WithNewChildren(*child, {std::move(left), child->children[1]}), offset,
                       fetch);
    }
    case LogicalKind::kScan: {
      if (!child->filters.empty()) return limit;
      const int64_t n = LimitRowsNeeded(offset, fetch);
      if (child->scan_limit && *child->scan_limit <= n) return limit;
      return MakeLimit(MakeScan(child->source, child->projection, child->filters, n), offset,
                       fetch);
    }
    default:
      return limit;
  }
}

}  // namespace

Result<LogicalPlanPtr> PushDownLimits(const LogicalPlanPtr& plan) {
  return TransformUp(plan, [](const LogicalPlanPtr& node) {
    return node->kind == LogicalKind::kLimit && node->fetch ? PushLimit(node) : node;
  });
}

}  // namespace floe::plan::internal
