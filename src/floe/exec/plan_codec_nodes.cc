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

// HashAggregateExec

Status HashAggregateExec::Encode(codec::PlanEncoder& out) const {
  pb::HashAggregateNode m;
  switch (mode_) {
    case AggregateMode::kPartial:
      m.set_mode(pb::HashAggregateNode::PARTIAL);
      break;
    case AggregateMode::kFinal:
      m.set_mode(pb::HashAggregateNode::FINAL);
      break;
    case AggregateMode::kSingle:
      m.set_mode(pb::HashAggregateNode::SINGLE);
      break;
  }
  FLOE_RETURN_NOT_OK(EncodePhysicalExprs(group_exprs_, m.mutable_group_exprs()));
  for (const std::string& name : group_names_) m.add_group_names(name);
  for (const AggregateExprSpec& a : aggregates_) {
    pb::AggregateExpr* am = m.add_aggregates();
    FLOE_RETURN_NOT_OK(EncodeAggregateFunction(a.function, am->mutable_function()));
    FLOE_RETURN_NOT_OK(EncodePhysicalExprs(a.args, am->mutable_args()));
    if (a.filter) FLOE_RETURN_NOT_OK(codec::EncodePhysicalExpr(*a.filter, am->mutable_filter()));
    am->set_name(a.name);
  }
  return out.SetPayload(m);
}

Result<PlanPtr> HashAggregateExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  pb::HashAggregateNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  AggregateMode mode;
  switch (m.mode()) {
    case pb::HashAggregateNode::PARTIAL:
      mode = AggregateMode::kPartial;
      break;
    case pb::HashAggregateNode::FINAL:
      mode = AggregateMode::kFinal;
      break;
    case pb::HashAggregateNode::SINGLE:
      mode = AggregateMode::kSingle;
      break;
    default:
      return in.Corrupt(fmt::format("unknown aggregate mode {}", static_cast<int>(m.mode())));
  }
  const SchemaPtr& input = children[0]->schema();
  FLOE_ASSIGN_OR_RAISE(auto group_exprs, in.Exprs(m.group_exprs(), input));
  std::vector<std::string> group_names(m.group_names().begin(), m.group_names().end());
  std::vector<AggregateExprSpec> aggregates;
  for (const pb::AggregateExpr& am : m.aggregates()) {
    AggregateExprSpec spec;
    FLOE_ASSIGN_OR_RAISE(spec.function, DecodeAggregateFunction(in, am.function()));
    FLOE_ASSIGN_OR_RAISE(spec.args, in.Exprs(am.args(), input));
    if (am.has_filter()) {
      FLOE_ASSIGN_OR_RAISE(spec.filter, in.Expr(am.filter(), input));
    }
    spec.name = am.name();
    aggregates.push_back(std::move(spec));
  }
  return Make(mode, std::move(group_exprs), std::move(group_names), std::move(aggregates),
              std::move(children[0]));
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

// WindowExec

namespace {

pb::WindowFrameBound::Kind EncodeBoundKind(plan::WindowFrameBound::Kind kind) {
  using K = plan::WindowFrameBound::Kind;
  switch (kind) {
    case K::kUnboundedPreceding:
      return pb::WindowFrameBound::UNBOUNDED_PRECEDING;
    case K::kPreceding:
      return pb::WindowFrameBound::PRECEDING;
    case K::kCurrentRow:
      return pb::WindowFrameBound::CURRENT_ROW;
    case K::kFollowing:
      return pb::WindowFrameBound::FOLLOWING;
    case K::kUnboundedFollowing:
      return pb::WindowFrameBound::UNBOUNDED_FOLLOWING;
  }
  return pb::WindowFrameBound::CURRENT_ROW;
}

Result<plan::WindowFrameBound> DecodeBound(const codec::PlanDecoder& in,
                                           const pb::WindowFrameBound& m) {
  using K = plan::WindowFrameBound::Kind;
  plan::WindowFrameBound bound;
  switch (m.kind()) {
    case pb::WindowFrameBound::UNBOUNDED_PRECEDING:
      bound.kind = K::kUnboundedPreceding;
      break;
    case pb::WindowFrameBound::PRECEDING:
      bound.kind = K::kPreceding;
      break;
    case pb::WindowFrameBound::CURRENT_ROW:
      bound.kind = K::kCurrentRow;
      break;
    case pb::WindowFrameBound::FOLLOWING:
      bound.kind = K::kFollowing;
      break;
    case pb::WindowFrameBound::UNBOUNDED_FOLLOWING:
      bound.kind = K::kUnboundedFollowing;
      break;
    default:
      return in.Corrupt(fmt::format("unknown window frame bound {}", static_cast<int>(m.kind())));
  }
  if (m.offset() < 0) return in.Corrupt("a negative window frame offset");
  bound.offset = m.offset();
  return bound;
}

}  // namespace

Status WindowExec::Encode(codec::PlanEncoder& out) const {
  pb::WindowNode m;
  for (const WindowExprSpec& w : windows_) {
    pb::WindowExpr* wm = m.add_windows();
    wm->set_function(w.call.function);
    wm->set_is_aggregate(w.call.is_aggregate);
    if (w.call.is_aggregate) {
      FLOE_RETURN_NOT_OK(EncodeAggregateFunction(w.call.aggregate, wm->mutable_aggregate()));
    }
    switch (w.call.frame.mode) {
      case plan::WindowFrame::Mode::kRows:
        wm->set_frame_mode(pb::WindowExpr::ROWS);
        break;
      case plan::WindowFrame::Mode::kRange:
        wm->set_frame_mode(pb::WindowExpr::RANGE);
        break;
      case plan::WindowFrame::Mode::kGroups:
        wm->set_frame_mode(pb::WindowExpr::GROUPS);
        break;
    }
    wm->mutable_frame_start()->set_kind(EncodeBoundKind(w.call.frame.start.kind));
    wm->mutable_frame_start()->set_offset(w.call.frame.start.offset);
    wm->mutable_frame_end()->set_kind(EncodeBoundKind(w.call.frame.end.kind));
    wm->mutable_frame_end()->set_offset(w.call.frame.end.offset);
    if (w.call.type == nullptr) return Status::Internal("window {} has no type", w.name);
    codec::EncodeType(*w.call.type, wm->mutable_type());
    FLOE_RETURN_NOT_OK(EncodePhysicalExprs(w.args, wm->mutable_args()));
    FLOE_RETURN_NOT_OK(EncodePhysicalExprs(w.partition_by, wm->mutable_partition_by()));
    FLOE_RETURN_NOT_OK(EncodeOrdering(w.order_by, wm->mutable_order_by()));
    wm->set_name(w.name);
  }
  return out.SetPayload(m);
}

Result<PlanPtr> WindowExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  pb::WindowNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  const SchemaPtr& input = children[0]->schema();
  std::vector<WindowExprSpec> windows;
  for (const pb::WindowExpr& wm : m.windows()) {
    WindowExprSpec w;
    w.call.function = wm.function();
    w.call.is_aggregate = wm.is_aggregate();
    if (wm.is_aggregate()) {
      FLOE_ASSIGN_OR_RAISE(w.call.aggregate, DecodeAggregateFunction(in, wm.aggregate()));
    }
    switch (wm.frame_mode()) {
      case pb::WindowExpr::ROWS:
        w.call.frame.mode = plan::WindowFrame::Mode::kRows;
        break;
      case pb::WindowExpr::RANGE:
        w.call.frame.mode = plan::WindowFrame::Mode::kRange;
        break;
      case pb::WindowExpr::GROUPS:
        w.call.frame.mode = plan::WindowFrame::Mode::kGroups;
        break;
      default:
        return in.Corrupt(
            fmt::format("unknown window frame mode {}", static_cast<int>(wm.frame_mode())));
    }
    FLOE_ASSIGN_OR_RAISE(w.call.frame.start, DecodeBound(in, wm.frame_start()));
    FLOE_ASSIGN_OR_RAISE(w.call.frame.end, DecodeBound(in, wm.frame_end()));
    FLOE_ASSIGN_OR_RAISE(w.call.type, DecodeNodeType(in, wm.type()));
    FLOE_ASSIGN_OR_RAISE(w.args, in.Exprs(wm.args(), input));
    FLOE_ASSIGN_OR_RAISE(w.partition_by, in.Exprs(wm.partition_by(), input));
    FLOE_ASSIGN_OR_RAISE(w.order_by, DecodeOrdering(wm.order_by(), input, in));
    w.name = wm.name();
    windows.push_back(std::move(w));
  }
  return Make(std::move(windows), std::move(children[0]));
}

}  // namespace floe::exec
