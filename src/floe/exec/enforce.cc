#include "floe/exec/enforce.h"

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "floe/exec/aggregate/aggregate_exec.h"
#include "floe/exec/coalesce_partitions_exec.h"
#include "floe/exec/repartition_exec.h"
#include "floe/exec/sort/sort_exec.h"
#include "floe/exec/sort/sort_preserving_merge_exec.h"

namespace floe::exec {

namespace {

using Rewrite = std::function<Result<PlanPtr>(PlanPtr node, std::vector<PlanPtr> children)>;

using Rewritten = std::map<const ExecutionPlan*, PlanPtr>;

Result<PlanPtr> TransformUp(const PlanPtr& plan, const Rewrite& rewrite, Rewritten* done) {
  auto it = done->find(plan.get());
  if (it != done->end()) return it->second;
  std::vector<PlanPtr> children = plan->children();
  for (PlanPtr& child : children) {
    FLOE_ASSIGN_OR_RAISE(child, TransformUp(child, rewrite, done));
  }
  FLOE_ASSIGN_OR_RAISE(PlanPtr out, rewrite(plan, std::move(children)));
  done->emplace(plan.get(), out);
  return out;
}

// Rewrites bottom up: `rewrite` gets each node with its already rewritten children and
// returns the node to put in its place. A node the plan holds in two places (planned once
// for both) is rewritten once, so that both places keep sharing it.
Result<PlanPtr> TransformUp(const PlanPtr& plan, const Rewrite& rewrite) {
  Rewritten done;
  return TransformUp(plan, rewrite, &done);
}

// `node` over `children`, rebuilt only when a child changed.
Result<PlanPtr> WithChildren(const PlanPtr& node, std::vector<PlanPtr> children) {
  std::vector<PlanPtr> old = node->children();
  bool changed = old.size() != children.size();
  for (size_t i = 0; !changed && i < old.size(); ++i) changed = old[i] != children[i];
  if (!changed) return node;
  return node->WithNewChildren(std::move(children));
}

Result<PlanPtr> MakeSingle(PlanPtr child, const Ordering& ordering) {
  if (child->partition_count() == 1) return child;
  if (ordering.empty()) return CoalescePartitionsExec::Make(std::move(child));
  if (!OrderingSatisfies(child->properties().ordering, ordering)) {
    FLOE_ASSIGN_OR_RAISE(child, SortExec::Make(ordering, std::move(child), std::nullopt, true));
  }
  return SortPreservingMergeExec::Make(ordering, std::move(child), std::nullopt);
}

Result<PlanPtr> MakeHash(PlanPtr child, const std::vector<expr::PhysicalExprPtr>& exprs,
                         int partitions) {
  if (partitions <= 1) {
    if (child->partition_count() == 1) return child;
    return CoalescePartitionsExec::Make(std::move(child));
  }
  return RepartitionExec::Make(std::move(child), Partitioning::Hash(exprs, partitions));
}

// A final aggregation over its partial phase whose input already holds all rows of a group
// in one partition (a partitioned join on the group keys): one phase over that input, with
// no exchange between the phases. Null when that does not apply.
Result<PlanPtr> CollapseAggregatePhases(const PlanPtr& node, const std::vector<PlanPtr>& children) {
  if (node->name() != HashAggregateExec::kName || children.size() != 1 ||
      children[0]->name() != HashAggregateExec::kName) {
    return PlanPtr();
  }
  const auto& final_phase = static_cast<const HashAggregateExec&>(*node);
  const auto& partial = static_cast<const HashAggregateExec&>(*children[0]);
  if (final_phase.mode() != AggregateMode::kFinal || partial.mode() != AggregateMode::kPartial ||
      partial.group_exprs().empty()) {
    return PlanPtr();
  }
  const PlanPtr& input = partial.input();
  if (input->partition_count() <= 1 ||
      !PartitioningGroups(input->properties().partitioning,
                          Distribution::Hash(partial.group_exprs()))) {
    return PlanPtr();
  }
  FLOE_ASSIGN_OR_RAISE(PlanPtr single,
                       HashAggregateExec::Make(AggregateMode::kSingle, partial.group_exprs(),
                                               partial.group_names(), partial.aggregates(), input));
  if (!single->schema()->Equals(*node->schema())) return PlanPtr();
  return single;
}

Result<PlanPtr> EnforceDistributionOf(const PlanPtr& node, std::vector<PlanPtr> children,
                                      int target_partitions) {
  FLOE_ASSIGN_OR_RAISE(PlanPtr collapsed, CollapseAggregatePhases(node, children));
  if (collapsed) return collapsed;
  std::vector<Distribution> required = node->RequiredInputDistribution();
  std::vector<Ordering> orderings = node->RequiredInputOrdering();
  bool any_hash = false;
  for (size_t i = 0; i < children.size() && i < required.size(); ++i) {
    const Distribution& d = required[i];
    const Ordering no_ordering;
    const Ordering& ordering = i < orderings.size() ? orderings[i] : no_ordering;
    switch (d.kind()) {
      case Distribution::Kind::kUnspecified:
        break;
      case Distribution::Kind::kSingle: {
        FLOE_ASSIGN_OR_RAISE(children[i], MakeSingle(std::move(children[i]), ordering));
        break;
      }
      case Distribution::Kind::kBroadcast: {
        FLOE_ASSIGN_OR_RAISE(children[i], MakeSingle(std::move(children[i]), no_ordering));
        break;
      }
      case Distribution::Kind::kHash: {
        if (d.exprs().empty()) {
          FLOE_ASSIGN_OR_RAISE(children[i], MakeSingle(std::move(children[i]), ordering));
          break;
        }
        any_hash = true;
        // One input needs rows of equal keys together; several must be co-partitioned.
        const Partitioning& has = children[i]->properties().partitioning;
        if (children.size() == 1 ? !PartitioningGroups(has, d) : !PartitioningSatisfies(has, d)) {
          FLOE_ASSIGN_OR_RAISE(children[i],
                               MakeHash(std::move(children[i]), d.exprs(), target_partitions));
        }
        break;
      }
    }
  }
  if (any_hash) {
    // Co-partitioned inputs (a partitioned join) need equal partition counts: inputs
    // whose count differs from the others are hashed again into target_partitions.
    int count = -1;
    bool differ = false;
    for (size_t i = 0; i < children.size() && i < required.size(); ++i) {
      if (required[i].kind() != Distribution::Kind::kHash || required[i].exprs().empty()) continue;
      int n = children[i]->partition_count();
      if (count >= 0 && n != count) differ = true;
      count = n;
    }
    if (differ) {
      for (size_t i = 0; i < children.size() && i < required.size(); ++i) {
        if (required[i].kind() != Distribution::Kind::kHash || required[i].exprs().empty()) {
          continue;
        }
        if (children[i]->partition_count() == target_partitions) continue;
        PlanPtr input = children[i];
        // Re-hashing the output of an exchange: hash the exchange's input instead.
        if (input->name() == RepartitionExec::kName) input = input->children()[0];
        FLOE_ASSIGN_OR_RAISE(children[i],
                             MakeHash(std::move(input), required[i].exprs(), target_partitions));
      }
    }
  }
  return WithChildren(node, std::move(children));
}

Result<PlanPtr> EnforceSortingOf(const PlanPtr& node, std::vector<PlanPtr> children) {
  std::vector<Ordering> required = node->RequiredInputOrdering();
  for (size_t i = 0; i < children.size() && i < required.size(); ++i) {
    if (required[i].empty()) continue;
    if (OrderingSatisfies(children[i]->properties().ordering, required[i])) continue;
    FLOE_ASSIGN_OR_RAISE(children[i],
                         SortExec::Make(required[i], std::move(children[i]), std::nullopt, true));
  }
  return WithChildren(node, std::move(children));
}

bool SamePartitioning(const Partitioning& a, const Partitioning& b) {
  if (a.partition_count() != b.partition_count()) return false;
  if (a.partition_count() == 1) return true;
  if (a.kind() != b.kind()) return false;
  if (a.kind() != Partitioning::Kind::kHash) return a.kind() == Partitioning::Kind::kRoundRobin;
  return PartitioningSatisfies(a, Distribution::Hash(b.exprs()));
}

Result<PlanPtr> RemoveRedundant(const PlanPtr& node, std::vector<PlanPtr> children) {
  FLOE_ASSIGN_OR_RAISE(PlanPtr rebuilt, WithChildren(node, std::move(children)));
  std::vector<PlanPtr> inputs = rebuilt->children();
  if (inputs.size() != 1) return rebuilt;
  const PlanPtr& input = inputs[0];
  std::string_view name = rebuilt->name();
  if (name == RepartitionExec::kName) {
    const auto& repartition = static_cast<const RepartitionExec&>(*rebuilt);
    if (SamePartitioning(input->properties().partitioning, repartition.partitioning())) {
      return input;
    }
  } else if (name == SortExec::kName) {
    const auto& sort = static_cast<const SortExec&>(*rebuilt);
    if (!sort.fetch() && OrderingSatisfies(input->properties().ordering, sort.keys()) &&
        (sort.preserve_partitioning() || input->partition_count() == 1)) {
      return input;
    }
  } else if (name == CoalescePartitionsExec::kName) {
    if (input->partition_count() == 1) return input;
  } else if (name == SortPreservingMergeExec::kName) {
    const auto& merge = static_cast<const SortPreservingMergeExec&>(*rebuilt);
    if (!merge.fetch() && input->partition_count() == 1 &&
        OrderingSatisfies(input->properties().ordering, merge.keys())) {
      return input;
    }
  }
  return rebuilt;
}

}  // namespace

Result<PlanPtr> EnforceDistribution(PlanPtr plan, const SessionConfig& config) {
  if (!plan) return Status::Internal("EnforceDistribution: no plan");
  const int target = std::max(1, config.target_partitions());
  return TransformUp(plan, [target](PlanPtr node, std::vector<PlanPtr> children) {
    return EnforceDistributionOf(node, std::move(children), target);
  });
}

Result<PlanPtr> EnforceSorting(PlanPtr plan, const SessionConfig& config) {
  if (!plan) return Status::Internal("EnforceSorting: no plan");
  return TransformUp(plan, [](PlanPtr node, std::vector<PlanPtr> children) {
    return EnforceSortingOf(node, std::move(children));
  });
}

Result<PlanPtr> EnforceRequirements(PlanPtr plan, const SessionConfig& config) {
  FLOE_ASSIGN_OR_RAISE(plan, EnforceDistribution(std::move(plan), config));
  FLOE_ASSIGN_OR_RAISE(plan, EnforceSorting(std::move(plan), config));
  return TransformUp(plan, [](PlanPtr node, std::vector<PlanPtr> children) {
    return RemoveRedundant(node, std::move(children));
  });
}

}  // namespace floe::exec
