#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/dynamic_filter.h"
#include "floe/exec/execution_plan.h"
#include "floe/plan/logical_plan.h"

namespace floe::exec {

enum class JoinMode { kPartitioned, kBroadcast };
std::string_view JoinModeName(JoinMode mode);

/// Equi-join through a hash table. The RIGHT child is the build side, the LEFT child the
/// probe side. Output: left ++ right columns (inner/left/right/full), left columns
/// (semi/anti), left columns ++ boolean "mark" (mark), right columns (right semi/anti: the
/// build rows with / without a match, emitted once the probe side is done). `filter` (over
/// left ++ right) is evaluated on candidate pairs. kPartitioned: both sides Hash-distributed
/// by their keys with equal partition counts; every join type. kBroadcast: the right child
/// is one partition read by every probe partition, the table is built once per query;
/// inner, left, semi, anti, mark, right semi and right anti. A broadcast right semi / anti
/// join sees only its own partition's probe rows: each task emits the build rows its probe
/// rows matched (did not match), with a last int64 column kBuildRowColumn, the row's
/// position in the build side (the same in every task and process: the build side is read
/// in one order everywhere), and the planner merges the tasks' rows by it (a row of the
/// join's result is one some task matched, or one every task left unmatched). Right and
/// full joins are partitioned only. A partitioned build side past the memory budget spills:
/// both sides of the partition go to 32 bucket files by key hash and are joined bucket by bucket
/// (a grace hash join; a bucket that still does not fit, from skewed keys, fails with
/// kOutOfMemory). A broadcast build side past the budget fails with kOutOfMemory naming the
/// join and memory_limit. A broadcast join publishes, once its table is built, a dynamic
/// filter of the build keys for each of `dynamic_filters` (dynamic_filter.h): the scans
/// below its probe side that read it skip rows whose key is not among them.
class HashJoinExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "HashJoinExec";
  static Result<PlanPtr> Make(PlanPtr left, PlanPtr right,
                              std::vector<expr::PhysicalExprPtr> left_keys,
                              std::vector<expr::PhysicalExprPtr> right_keys, plan::JoinType type,
                              expr::PhysicalExprPtr filter, std::vector<bool> null_equals_null,
                              JoinMode mode, std::vector<DynamicFilterTarget> dynamic_filters = {});

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {left_, right_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  std::vector<Distribution> RequiredInputDistribution() const override;
  /// "HashJoinExec: mode=Partitioned, type=Inner, on=[(a, b)], filter=..."
  std::string ToString() const override;

  const PlanPtr& left() const { return left_; }
  const PlanPtr& right() const { return right_; }
  const std::vector<expr::PhysicalExprPtr>& left_keys() const { return left_keys_; }
  const std::vector<expr::PhysicalExprPtr>& right_keys() const { return right_keys_; }
  plan::JoinType join_type() const { return type_; }
  const expr::PhysicalExprPtr& filter() const { return filter_; }
  const std::vector<bool>& null_equals_null() const { return null_equals_null_; }
  JoinMode mode() const { return mode_; }
  const std::vector<DynamicFilterTarget>& dynamic_filters() const { return dynamic_filters_; }
  /// The build row column of a broadcast right semi / anti join's output.
  static constexpr std::string_view kBuildRowColumn = "__build_row";
  /// The shards a broadcast build of 256k+ rows is split into, for the join's tasks to
  /// build together: enough for `probe_partitions` tasks coming at once to share them out
  /// evenly; one when memory_limit is set (each shard's copies of keys and row lists cost
  /// memory that a query near its limit may not have: TPC-H Q21 at sf10 under 1GB failed).
  static int BroadcastBuildShards(const SessionConfig& config, int probe_partitions);
  /// Whether a broadcast join of this type can go on when its build side outgrows the
  /// memory budget: the build side goes to bucket files by key hash once, and each task
  /// joins its probe rows bucket by bucket (a grace hash join). Inner, left, semi and anti
  /// joins can; a mark or null-aware anti join's answer depends on the whole build side
  /// (any NULL key), and a right semi / anti join's verdicts are merged by build position.
  static bool BroadcastMaySpill(plan::JoinType type) {
    return type == plan::JoinType::kInner || type == plan::JoinType::kLeft ||
           type == plan::JoinType::kSemi || type == plan::JoinType::kAnti;
  }
  /// Whether a join of this mode and type can publish dynamic filters: a broadcast one
  /// (its table is complete before its probe side opens) where a probe row without a match
  /// adds nothing (inner, semi, right semi, right anti).
  static bool PublishesDynamicFilters(JoinMode mode, plan::JoinType type) {
    return mode == JoinMode::kBroadcast &&
           (type == plan::JoinType::kInner || type == plan::JoinType::kSemi ||
            type == plan::JoinType::kRightSemi || type == plan::JoinType::kRightAnti);
  }

 private:
  HashJoinExec(PlanPtr left, PlanPtr right, std::vector<expr::PhysicalExprPtr> left_keys,
               std::vector<expr::PhysicalExprPtr> right_keys, plan::JoinType type,
               expr::PhysicalExprPtr filter, std::vector<bool> null_equals_null, JoinMode mode,
               std::vector<DynamicFilterTarget> dynamic_filters, PlanProperties properties)
      : left_(std::move(left)),
        right_(std::move(right)),
        left_keys_(std::move(left_keys)),
        right_keys_(std::move(right_keys)),
        type_(type),
        filter_(std::move(filter)),
        null_equals_null_(std::move(null_equals_null)),
        mode_(mode),
        dynamic_filters_(std::move(dynamic_filters)),
        properties_(std::move(properties)) {}

  PlanPtr left_, right_;
  std::vector<expr::PhysicalExprPtr> left_keys_, right_keys_;
  plan::JoinType type_;
  expr::PhysicalExprPtr filter_;
  std::vector<bool> null_equals_null_;
  JoinMode mode_;
  std::vector<DynamicFilterTarget> dynamic_filters_;
  PlanProperties properties_;
};

}  // namespace floe::exec
