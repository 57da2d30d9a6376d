#include "floe/exec/plan_codec.h"

#include <mutex>
#include <utility>

#include "floe/codec/value_codec.h"
#include "floe/exec/aggregate/aggregate_exec.h"
#include "floe/exec/coalesce_partitions_exec.h"
#include "floe/exec/empty_exec.h"
#include "floe/exec/filter_exec.h"
#include "floe/exec/join/hash_join_exec.h"
#include "floe/exec/join/nested_loop_join_exec.h"
#include "floe/exec/limit_exec.h"
#include "floe/exec/max_one_row_exec.h"
#include "floe/exec/plan_codec_internal.h"
#include "floe/exec/projection_exec.h"
#include "floe/exec/recursive_query_exec.h"
#include "floe/exec/repartition_exec.h"
#include "floe/exec/sort/sort_exec.h"
#include "floe/exec/sort/sort_preserving_merge_exec.h"
#include "floe/exec/union_exec.h"
#include "floe/exec/unnest_exec.h"
#include "floe/exec/values_exec.h"
#include "floe/exec/window/window_exec.h"
#include "floe/exec/work_table_scan_exec.h"

namespace floe::exec {

Status PlanCodecRegistry::Register(std::string name, uint32_t version, PlanDecodeFn decode) {
  PlanCodecEntry entry{name, version, decode};
  if (!entries_.emplace(std::move(name), std::move(entry)).second) {
    return Status::Invalid("plan node type \"{}\" is registered twice", entry.name);
  }
  return Status::OK();
}

const PlanCodecEntry* PlanCodecRegistry::Find(std::string_view name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<std::string> PlanCodecRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries_) out.push_back(name);
  return out;
}

void RegisterExecPlanCodecs(PlanCodecRegistry* registry) {
  RegisterPlanCodec<FilterExec>(registry);
  RegisterPlanCodec<ProjectionExec>(registry);
  RegisterPlanCodec<UnnestExec>(registry);
  RegisterPlanCodec<LimitExec>(registry);
  RegisterPlanCodec<CoalescePartitionsExec>(registry);
  RegisterPlanCodec<RepartitionExec>(registry);
  RegisterPlanCodec<UnionExec>(registry);
  RegisterPlanCodec<MaxOneRowExec>(registry);
  RegisterPlanCodec<RecursiveQueryExec>(registry);
  RegisterPlanCodec<WorkTableScanExec>(registry);
  RegisterPlanCodec<SortExec>(registry);
  RegisterPlanCodec<SortPreservingMergeExec>(registry);
  RegisterPlanCodec<ValuesExec>(registry);
  RegisterPlanCodec<EmptyExec>(registry);
  RegisterPlanCodec<HashAggregateExec>(registry);
  RegisterPlanCodec<HashJoinExec>(registry);
  RegisterPlanCodec<NestedLoopJoinExec>(registry);
  RegisterPlanCodec<WindowExec>(registry);
}

Result<codec::proto::PlanNode> EncodePlan(const ExecutionPlan& plan,
                                          const PlanCodecRegistry& registry) {
  const PlanCodecEntry* entry = registry.Find(plan.name());
  if (entry == nullptr) {
    return Status::NotSupported("plan node {} has no registered codec", plan.name());
  }
  codec::proto::PlanNode out;
  out.set_name(entry->name);
  out.set_version(entry->version);
  codec::PlanEncoder encoder;
  Status encoded = plan.Encode(encoder);
  if (!encoded.ok()) return encoded.WithPrefix(fmt::format("encoding {}: ", plan.name()));
  out.set_payload(std::move(encoder.payload()));
  for (const PlanPtr& child : plan.children()) {
    FLOE_ASSIGN_OR_RAISE(codec::proto::PlanNode c, EncodePlan(*child, registry));
    *out.add_children() = std::move(c);
  }
  return out;
}

namespace {

// Plans deeper than this are refused, so that a hostile envelope does not recurse without
// bound. Queries nest 1,000 levels deep at most (a few nodes each), and joins of hundreds
// of relations nest one node per join.
constexpr int kMaxPlanDepth = 4096;

Result<PlanPtr> DecodePlanAt(const codec::proto::PlanNode& message,
                             const PlanCodecRegistry& registry, int depth) {
  if (depth > kMaxPlanDepth) {
    return Status::Corrupt("plan nested deeper than {} nodes", kMaxPlanDepth);
  }
  const PlanCodecEntry* entry = registry.Find(message.name());
  if (entry == nullptr) {
    return Status::NotSupported("unknown plan node type \"{}\"", message.name());
  }
  if (message.version() != entry->version) {
    return Status::NotSupported("plan node {} has codec version {}; this floe reads version {}",
                                message.name(), message.version(), entry->version);
  }
  std::vector<PlanPtr> children;
  children.reserve(static_cast<size_t>(message.children_size()));
  for (const codec::proto::PlanNode& child : message.children()) {
    FLOE_ASSIGN_OR_RAISE(PlanPtr c, DecodePlanAt(child, registry, depth + 1));
    children.push_back(std::move(c));
  }
  codec::DecodeContext context{&registry.exprs()};
  codec::PlanDecoder decoder(entry->name, message.payload(), context);
  Result<PlanPtr> plan = entry->decode(decoder, std::move(children));
  if (!plan.ok()) {
    // Make's own errors (a child of the wrong shape, a bad part) are reported as a
    // corrupt plan: the sender's planner would never have built such a node. What this
    // process could not do (read a file the plan names, allocate) keeps its code.
    const Status& s = plan.status();
    switch (s.code()) {
      case StatusCode::kCorrupt:
      case StatusCode::kNotSupported:
        return s;
      case StatusCode::kIOError:
      case StatusCode::kNotFound:
      case StatusCode::kOutOfMemory:
      case StatusCode::kCancelled:
        return s.WithPrefix(fmt::format("plan node {}: ", entry->name));
      default:
        return Status::Corrupt("plan node {}: {}", entry->name, s.message());
    }
  }
  return plan;
}

}  // namespace

Result<PlanPtr> DecodePlan(const codec::proto::PlanNode& message,
                           const PlanCodecRegistry& registry) {
  return DecodePlanAt(message, registry, 0);
}

Result<std::string> EncodePlanBytes(const ExecutionPlan& plan, const PlanCodecRegistry& registry) {
  FLOE_ASSIGN_OR_RAISE(codec::proto::PlanNode message, EncodePlan(plan, registry));
  std::string bytes;
  if (!message.SerializeToString(&bytes)) {
    return Status::Internal("cannot serialize the plan of {}", plan.name());
  }
  return bytes;
}

Result<PlanPtr> DecodePlanBytes(std::string_view bytes, const PlanCodecRegistry& registry) {
  codec::proto::PlanNode message;
  if (!codec::ParseMessage(bytes, &message)) {
    return Status::Corrupt("{} bytes are not an encoded plan", bytes.size());
  }
  return DecodePlan(message, registry);
}

Result<PlanPtr> RoundTripPlan(const PlanPtr& plan, const PlanCodecRegistry& registry) {
  FLOE_ASSIGN_OR_RAISE(std::string bytes, EncodePlanBytes(*plan, registry));
  FLOE_ASSIGN_OR_RAISE(PlanPtr decoded, DecodePlanBytes(bytes, registry));
  FLOE_ASSIGN_OR_RAISE(std::string again, EncodePlanBytes(*decoded, registry));
  if (again != bytes) {
    return Status::Internal("plan codec round trip changed the encoding of:\n{}",
                            PlanToString(*plan));
  }
  std::string before = PlanToString(*plan);
  std::string after = PlanToString(*decoded);
  if (before != after) {
    return Status::Internal("plan codec round trip changed the plan:\n{}\nbecame\n{}", before,
                            after);
  }
  return decoded;
}

Status ExpectChildren(const codec::PlanDecoder& in, const std::vector<PlanPtr>& children,
                      size_t n) {
  if (children.size() != n) {
    return in.Corrupt(fmt::format("{} children where {} are expected", children.size(), n));
  }
  return Status::OK();
}

Status DecodeError(const codec::PlanDecoder& in, const Status& status) {
  if (status.code() == StatusCode::kCorrupt || status.code() == StatusCode::kNotSupported) {
    return in.Annotate(status);
  }
  return status;
}

Result<SchemaPtr> DecodeNodeSchema(const codec::PlanDecoder& in,
                                   const codec::proto::Schema& message) {
  Result<SchemaPtr> schema = codec::DecodeSchema(message);
  if (!schema.ok()) return in.Annotate(schema.status());
  return schema;
}

Result<TypePtr> DecodeNodeType(const codec::PlanDecoder& in,
                               const codec::proto::DataType& message) {
  Result<TypePtr> type = codec::DecodeType(message);
  if (!type.ok()) return in.Annotate(type.status());
  return type;
}

Result<std::vector<expr::ExprPtr>> DecodeNodeFilters(
    const codec::PlanDecoder& in,
    const google::protobuf::RepeatedPtrField<codec::proto::Expr>& messages,
    const SchemaPtr& schema) {
  std::vector<expr::ExprPtr> out;
  for (int i = 0; i < messages.size(); ++i) {
    Result<expr::ExprPtr> e = codec::DecodeExpr(messages[i]);
    if (!e.ok()) return DecodeError(in, e.status().WithPrefix(fmt::format("filter {}: ", i)));
    Result<expr::PhysicalExprPtr> compiled = expr::Compile(*e, schema);
    if (!compiled.ok()) {
      return in.Corrupt(fmt::format("filter {} ({}) does not apply to the scan's columns: {}", i,
                                    (*e)->ToString(), compiled.status().message()));
    }
    out.push_back(std::move(*e));
  }
  return out;
}

Result<std::optional<int64_t>> DecodeNodeLimit(const codec::PlanDecoder& in, bool has,
                                               const codec::proto::OptionalInt64& limit) {
  if (!has) return std::optional<int64_t>();
  if (limit.value() < 0) return in.Corrupt(fmt::format("negative limit {}", limit.value()));
  return std::optional<int64_t>(limit.value());
}

Status EncodePhysicalExprs(const std::vector<expr::PhysicalExprPtr>& exprs,
                           google::protobuf::RepeatedPtrField<codec::proto::PhysicalExpr>* out) {
  for (const expr::PhysicalExprPtr& e : exprs) {
    FLOE_RETURN_NOT_OK(codec::EncodePhysicalExpr(*e, out->Add()));
  }
  return Status::OK();
}

Status EncodePartitioning(const Partitioning& partitioning, codec::proto::Partitioning* out) {
  switch (partitioning.kind()) {
    case Partitioning::Kind::kSingle:
      out->set_kind(codec::proto::Partitioning::SINGLE);
      break;
    case Partitioning::Kind::kHash:
      out->set_kind(codec::proto::Partitioning::HASH);
      break;
    case Partitioning::Kind::kRoundRobin:
      out->set_kind(codec::proto::Partitioning::ROUND_ROBIN);
      break;
    case Partitioning::Kind::kUnknown:
      out->set_kind(codec::proto::Partitioning::UNKNOWN);
      break;
  }
  out->set_partition_count(partitioning.partition_count());
  return EncodePhysicalExprs(partitioning.exprs(), out->mutable_exprs());
}

Result<Partitioning> DecodePartitioning(const codec::proto::Partitioning& message,
                                        const SchemaPtr& schema, codec::PlanDecoder& in) {
  const int n = message.partition_count();
  if (n < 1) return in.Corrupt(fmt::format("a partitioning of {} partitions", n));
  if (message.kind() != codec::proto::Partitioning::HASH && message.exprs_size() > 0) {
    return in.Corrupt("a partitioning with expressions that is not a hash partitioning");
  }
  switch (message.kind()) {
    case codec::proto::Partitioning::SINGLE:
      if (n != 1) return in.Corrupt(fmt::format("a single partitioning of {} partitions", n));
      return Partitioning::Single();
    case codec::proto::Partitioning::HASH: {
      FLOE_ASSIGN_OR_RAISE(auto exprs, in.Exprs(message.exprs(), schema));
      return Partitioning::Hash(std::move(exprs), n);
    }
    case codec::proto::Partitioning::ROUND_ROBIN:
      return Partitioning::RoundRobin(n);
    case codec::proto::Partitioning::UNKNOWN:
      return Partitioning::Unknown(n);
    default:
      break;
  }
  return in.Corrupt(fmt::format("unknown partitioning kind {}", static_cast<int>(message.kind())));
}

Status EncodeOrdering(const Ordering& ordering,
                      google::protobuf::RepeatedPtrField<codec::proto::SortExpr>* out) {
  for (const PhysicalSortExpr& key : ordering) {
    codec::proto::SortExpr* m = out->Add();
    FLOE_RETURN_NOT_OK(codec::EncodePhysicalExpr(*key.expr, m->mutable_expr()));
    m->set_descending(key.descending);
    m->set_nulls_first(key.nulls_first);
  }
  return Status::OK();
}

Result<Ordering> DecodeOrdering(
    const google::protobuf::RepeatedPtrField<codec::proto::SortExpr>& message,
    const SchemaPtr& schema, codec::PlanDecoder& in) {
  Ordering out;
  out.reserve(static_cast<size_t>(message.size()));
  for (const codec::proto::SortExpr& m : message) {
    FLOE_ASSIGN_OR_RAISE(expr::PhysicalExprPtr e, in.Expr(m.expr(), schema));
    out.push_back(PhysicalSortExpr{std::move(e), m.descending(), m.nulls_first()});
  }
  return out;
}

namespace internal {

Result<codec::proto::JoinType> EncodeJoinType(plan::JoinType type) {
  switch (type) {
    case plan::JoinType::kInner:
      return codec::proto::INNER;
    case plan::JoinType::kLeft:
      return codec::proto::LEFT;
    case plan::JoinType::kRight:
      return codec::proto::RIGHT;
    case plan::JoinType::kFull:
      return codec::proto::FULL;
    case plan::JoinType::kSemi:
      return codec::proto::SEMI;
    case plan::JoinType::kAnti:
      return codec::proto::ANTI;
    case plan::JoinType::kMark:
      return codec::proto::MARK;
    case plan::JoinType::kRightSemi:
      return codec::proto::RIGHT_SEMI;
    case plan::JoinType::kRightAnti:
      return codec::proto::RIGHT_ANTI;
    case plan::JoinType::kNullAwareAnti:
      return codec::proto::NULL_AWARE_ANTI;
  }
  return Status::Internal("join type {} has no codec", static_cast<int>(type));
}

Result<plan::JoinType> DecodeJoinType(const codec::PlanDecoder& in, codec::proto::JoinType type) {
  switch (type) {
    case codec::proto::INNER:
      return plan::JoinType::kInner;
    case codec::proto::LEFT:
      return plan::JoinType::kLeft;
    case codec::proto::RIGHT:
      return plan::JoinType::kRight;
    case codec::proto::FULL:
      return plan::JoinType::kFull;
    case codec::proto::SEMI:
      return plan::JoinType::kSemi;
    case codec::proto::ANTI:
      return plan::JoinType::kAnti;
    case codec::proto::MARK:
      return plan::JoinType::kMark;
    case codec::proto::RIGHT_SEMI:
      return plan::JoinType::kRightSemi;
    case codec::proto::RIGHT_ANTI:
      return plan::JoinType::kRightAnti;
    case codec::proto::NULL_AWARE_ANTI:
      return plan::JoinType::kNullAwareAnti;
    default:
      break;
  }
  return in.Corrupt(fmt::format("unknown join type {}", static_cast<int>(type)));
}

Status EncodeAggregateFunction(const expr::ResolvedAggregate& f,
                               codec::proto::ResolvedAggregate* out) {
  out->set_name(f.name);
  for (const TypePtr& t : f.arg_types) codec::EncodeType(*t, out->add_arg_types());
  out->set_distinct(f.distinct);
  if (f.return_type == nullptr) return Status::Internal("aggregate {} has no type", f.name);
  codec::EncodeType(*f.return_type, out->mutable_return_type());
  return Status::OK();
}

Result<expr::ResolvedAggregate> DecodeAggregateFunction(
    const codec::PlanDecoder& in, const codec::proto::ResolvedAggregate& message) {
  std::vector<TypePtr> arg_types;
  for (const codec::proto::DataType& t : message.arg_types()) {
    FLOE_ASSIGN_OR_RAISE(TypePtr type, DecodeNodeType(in, t));
    arg_types.push_back(std::move(type));
  }
  Result<expr::ResolvedAggregate> resolved =
      expr::ResolveAggregate(message.name(), arg_types, message.distinct());
  if (!resolved.ok()) return in.Corrupt(resolved.status().message());
  FLOE_ASSIGN_OR_RAISE(TypePtr return_type, DecodeNodeType(in, message.return_type()));
  if (!resolved->return_type->Equals(*return_type)) {
    return in.Corrupt(fmt::format("aggregate {} returns {} here, {} in the plan", message.name(),
                                  resolved->return_type->ToString(), return_type->ToString()));
  }
  return resolved;
}

}  // namespace internal

}  // namespace floe::exec
