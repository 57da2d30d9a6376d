#pragma once

// The registry of plan node codecs and the plan <-> bytes entry points (DESIGN.md
// section 4). Every ExecutionPlan type registers its stable name, codec version and
// Decode function here, explicitly (RegisterExecPlanCodecs and each connector's); its Encode member
// writes exactly the parts its Make takes, and Decode calls Make with them. Each node's codec is
// defined in the node's own file, beside its Make; the session's registry
// (session/plan_codecs.h) holds every one.
//
// Decoding never trusts its input: an unknown node name or version is kNotSupported, a
// payload or value that does not parse is kCorrupt naming the node, and every node is
// rebuilt through its Make, which validates the parts again.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/codec/nodes.pb.h"
#include "floe/codec/plan.pb.h"
#include "floe/codec/plan_codec.h"
#include "floe/common/logging.h"
#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// Rebuilds one node from its payload and its (already decoded) children.
using PlanDecodeFn = Result<PlanPtr> (*)(codec::PlanDecoder& in, std::vector<PlanPtr> children);

struct PlanCodecEntry {
  std::string name;
  uint32_t version = 1;
  PlanDecodeFn decode = nullptr;
};

class PlanCodecRegistry {
 public:
  /// kInvalidArgument when `name` is registered already.
  Status Register(std::string name, uint32_t version, PlanDecodeFn decode);
  /// nullptr when unknown.
  const PlanCodecEntry* Find(std::string_view name) const;
  /// Every registered node name, sorted.
  std::vector<std::string> names() const;

  codec::PhysicalExprCodecs& exprs() { return exprs_; }
  const codec::PhysicalExprCodecs& exprs() const { return exprs_; }

 private:
  std::map<std::string, PlanCodecEntry, std::less<>> entries_;
  codec::PhysicalExprCodecs exprs_;
};

/// Registers node type `Node` (its kName and Decode) at codec version 1; aborts when it is
/// registered already (registration is the program's own, not input).
template <typename Node>
void RegisterPlanCodec(PlanCodecRegistry* registry) {
  Status s = registry->Register(std::string(Node::kName), 1, &Node::Decode);
  FLOE_CHECK(s.ok(), s.ToString());
}

/// kCorrupt "plan node X: N children where M are expected" unless there are `n`.
Status ExpectChildren(const codec::PlanDecoder& in, const std::vector<PlanPtr>& children, size_t n);

/// Registers exec's own plan nodes and physical expression types. Connectors register
/// theirs; the session's registry (session/plan_codecs.h) holds them all.
void RegisterExecPlanCodecs(PlanCodecRegistry* registry);

/// The envelope of `plan` and its subtree. kNotSupported naming a node type that has no
/// registered codec.
Result<codec::proto::PlanNode> EncodePlan(const ExecutionPlan& plan,
                                          const PlanCodecRegistry& registry);
/// Rebuilds a plan from its envelope, children first.
Result<PlanPtr> DecodePlan(const codec::proto::PlanNode& message,
                           const PlanCodecRegistry& registry);

/// EncodePlan serialized to bytes, and back. DecodePlanBytes: kCorrupt when `bytes` is not
/// an envelope; errors of DecodePlan otherwise.
Result<std::string> EncodePlanBytes(const ExecutionPlan& plan, const PlanCodecRegistry& registry);
Result<PlanPtr> DecodePlanBytes(std::string_view bytes, const PlanCodecRegistry& registry);

/// Encodes and decodes `plan`, checks that encoding the result gives the same bytes and
/// the same EXPLAIN text, and returns the decoded plan (the codec_roundtrip setting runs
/// every stage through this). kInternal describing the first difference.
Result<PlanPtr> RoundTripPlan(const PlanPtr& plan, const PlanCodecRegistry& registry);

// Value codecs of exec's own types, for node codecs.
Status EncodePartitioning(const Partitioning& partitioning, codec::proto::Partitioning* out);
/// Hash expressions are compiled against `schema` (the partitioned rows').
Result<Partitioning> DecodePartitioning(const codec::proto::Partitioning& message,
                                        const SchemaPtr& schema, codec::PlanDecoder& in);
Status EncodeOrdering(const Ordering& ordering,
                      google::protobuf::RepeatedPtrField<codec::proto::SortExpr>* out);
Result<Ordering> DecodeOrdering(
    const google::protobuf::RepeatedPtrField<codec::proto::SortExpr>& message,
    const SchemaPtr& schema, codec::PlanDecoder& in);
/// `status` of a node's decoding with the node's name in front when it is kCorrupt or
/// kNotSupported (the codes DecodePlan passes on; it names the node of any other itself).
Status DecodeError(const codec::PlanDecoder& in, const Status& status);
/// A schema or type of a node's payload; kCorrupt naming the node when it does not decode.
Result<SchemaPtr> DecodeNodeSchema(const codec::PlanDecoder& in,
                                   const codec::proto::Schema& message);
Result<TypePtr> DecodeNodeType(const codec::PlanDecoder& in, const codec::proto::DataType& message);
/// Bound engine expressions over `schema` (a scan's filters), each checked to compile there.
Result<std::vector<expr::ExprPtr>> DecodeNodeFilters(
    const codec::PlanDecoder& in,
    const google::protobuf::RepeatedPtrField<codec::proto::Expr>& messages,
    const SchemaPtr& schema);
/// A row limit: nullopt when absent, kCorrupt when negative.
Result<std::optional<int64_t>> DecodeNodeLimit(const codec::PlanDecoder& in, bool has,
                                               const codec::proto::OptionalInt64& limit);
/// Expressions of a node, encoded in order.
/// A scan's dynamic filter uses into / out of its repeated DynamicFilterUse field (the
/// message type is the connector codec's: anything with id() and column()).
template <typename Repeated>
void EncodeDynamicFilterUses(const std::vector<DynamicFilterUse>& uses, Repeated* out) {
  for (const DynamicFilterUse& use : uses) {
    auto* m = out->Add();
    m->set_id(use.id);
    m->set_column(use.column);
  }
}
template <typename Repeated>
std::vector<DynamicFilterUse> DecodeDynamicFilterUses(const Repeated& messages) {
  std::vector<DynamicFilterUse> uses;
  for (const auto& m : messages) uses.push_back(DynamicFilterUse{m.id(), m.column()});
  return uses;
}

Status EncodePhysicalExprs(const std::vector<expr::PhysicalExprPtr>& exprs,
                           google::protobuf::RepeatedPtrField<codec::proto::PhysicalExpr>* out);

}  // namespace floe::exec
