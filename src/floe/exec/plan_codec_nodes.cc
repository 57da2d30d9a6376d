// Codecs of the engine's plan nodes (plan_codec.h): each Encode writes exactly the parts
// its Make takes, each Decode parses them and calls Make.

#include <utility>

#include "floe/codec/value_codec.h"
#include "floe/common/logging.h"
#include "floe/exec/aggregate/aggregate_exec.h"
#include "floe/exec/coalesce_partitions_exec.h"
#include "floe/exec/empty_exec.h"
#include "floe/exec/filter_exec.h"
#include "floe/exec/join/hash_join_exec.h"
#include "floe/exec/join/nested_loop_join_exec.h"
#include "floe/exec/limit_exec.h"
#include "floe/exec/max_one_row_exec.h"
#include "floe/exec/physical_planner.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/plan_codec_internal.h"
#include "floe/exec/projection_exec.h"
#include "floe/exec/repartition_exec.h"
#include "floe/exec/sort/sort_exec.h"
#include "floe/exec/sort/sort_preserving_merge_exec.h"
#include "floe/exec/union_exec.h"
#include "floe/exec/values_exec.h"
#include "floe/exec/window/window_exec.h"

namespace floe::exec {

namespace pb = codec::proto;

using internal::DecodeAggregateFunction;
using internal::DecodeFetch;
using internal::DecodeJoinType;
using internal::EncodeAggregateFunction;
using internal::EncodeJoinType;

namespace {

// The rows a join's filter sees: the left columns, then the right ones.
SchemaPtr JoinedSchema(const Schema& left, const Schema& right) {
  std::vector<Field> fields = left.fields();
  fields.insert(fields.end(), right.fields().begin(), right.fields().end());
  return std::make_shared<const Schema>(std::move(fields));
}

}  // namespace

void RegisterExecPlanCodecs(PlanCodecRegistry* registry) {
  RegisterPlanCodec<FilterExec>(registry);
  RegisterPlanCodec<ProjectionExec>(registry);
  RegisterPlanCodec<LimitExec>(registry);
  RegisterPlanCodec<CoalescePartitionsExec>(registry);
  RegisterPlanCodec<RepartitionExec>(registry);
  RegisterPlanCodec<UnionExec>(registry);
  RegisterPlanCodec<MaxOneRowExec>(registry);
  RegisterPlanCodec<SortExec>(registry);
  RegisterPlanCodec<SortPreservingMergeExec>(registry);
  RegisterPlanCodec<ValuesExec>(registry);
  RegisterPlanCodec<EmptyExec>(registry);
  RegisterPlanCodec<HashAggregateExec>(registry);
  RegisterPlanCodec<HashJoinExec>(registry);
  RegisterPlanCodec<NestedLoopJoinExec>(registry);
  RegisterPlanCodec<WindowExec>(registry);
}

// HashJoinExec, NestedLoopJoinExec

Status HashJoinExec::Encode(codec::PlanEncoder& out) const {
  pb::HashJoinNode m;
  FLOE_RETURN_NOT_OK(EncodePhysicalExprs(left_keys_, m.mutable_left_keys()));
  FLOE_RETURN_NOT_OK(EncodePhysicalExprs(right_keys_, m.mutable_right_keys()));
  FLOE_ASSIGN_OR_RAISE(pb::JoinType type, EncodeJoinType(type_));
  m.set_type(type);
  if (filter_) FLOE_RETURN_NOT_OK(codec::EncodePhysicalExpr(*filter_, m.mutable_filter()));
  for (bool b : null_equals_null_) m.add_null_equals_null(b);
  m.set_mode(mode_ == JoinMode::kBroadcast ? pb::HashJoinNode::BROADCAST
                                           : pb::HashJoinNode::PARTITIONED);
  return out.SetPayload(m);
}

Result<PlanPtr> HashJoinExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 2));
  pb::HashJoinNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(auto left_keys, in.Exprs(m.left_keys(), children[0]->schema()));
  FLOE_ASSIGN_OR_RAISE(auto right_keys, in.Exprs(m.right_keys(), children[1]->schema()));
  FLOE_ASSIGN_OR_RAISE(plan::JoinType type, DecodeJoinType(in, m.type()));
  expr::PhysicalExprPtr filter;
  if (m.has_filter()) {
    FLOE_ASSIGN_OR_RAISE(
        filter, in.Expr(m.filter(), JoinedSchema(*children[0]->schema(), *children[1]->schema())));
  }
  std::vector<bool> null_equals_null(m.null_equals_null().begin(), m.null_equals_null().end());
  JoinMode mode;
  switch (m.mode()) {
    case pb::HashJoinNode::PARTITIONED:
      mode = JoinMode::kPartitioned;
      break;
    case pb::HashJoinNode::BROADCAST:
      mode = JoinMode::kBroadcast;
      break;
    default:
      return in.Corrupt(fmt::format("unknown join mode {}", static_cast<int>(m.mode())));
  }
  return Make(std::move(children[0]), std::move(children[1]), std::move(left_keys),
              std::move(right_keys), type, std::move(filter), std::move(null_equals_null), mode);
}

Status NestedLoopJoinExec::Encode(codec::PlanEncoder& out) const {
  pb::NestedLoopJoinNode m;
  FLOE_ASSIGN_OR_RAISE(pb::JoinType type, EncodeJoinType(type_));
  m.set_type(type);
  if (filter_) FLOE_RETURN_NOT_OK(codec::EncodePhysicalExpr(*filter_, m.mutable_filter()));
  return out.SetPayload(m);
}

Result<PlanPtr> NestedLoopJoinExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 2));
  pb::NestedLoopJoinNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(plan::JoinType type, DecodeJoinType(in, m.type()));
  expr::PhysicalExprPtr filter;
  if (m.has_filter()) {
    FLOE_ASSIGN_OR_RAISE(
        filter, in.Expr(m.filter(), JoinedSchema(*children[0]->schema(), *children[1]->schema())));
  }
  return Make(std::move(children[0]), std::move(children[1]), type, std::move(filter));
}

}  // namespace floe::exec
