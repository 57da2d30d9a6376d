#pragma once

// The registry of plan node codecs and the plan <-> bytes entry points (DESIGN.md
// section 4). Every ExecutionPlan type registers its stable name, codec version and
// Decode function here, explicitly (RegisterBuiltinPlanCodecs); its Encode member writes
// exactly the parts its Make takes, and Decode calls Make with them. Node codecs are
// defined in plan_codec_nodes.cc (engine nodes) and plan_codec_iceberg.cc (Parquet and
// Iceberg scans and writes).
//
// Decoding never trusts its input: an unknown node name or version is kNotSupported, a
// payload or value that does not parse is kCorrupt naming the node, and every node is
// rebuilt through its Make, which validates the parts again.

#include <cstdint>
#include <map>
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

/// Registers every engine plan node and physical expression type.
void RegisterBuiltinPlanCodecs(PlanCodecRegistry* registry);
/// The Parquet and Iceberg scan and write nodes and the Iceberg transform expression
/// (part of the built-ins; plan_codec_iceberg.cc).
void RegisterIcebergPlanCodecs(PlanCodecRegistry* registry);
/// A registry with the built-in codecs (made once, on first use).
const PlanCodecRegistry& BuiltinPlanCodecs();

/// The envelope of `plan` and its subtree. kNotSupported naming a node type that has no
/// registered codec.
Result<codec::proto::PlanNode> EncodePlan(const ExecutionPlan& plan,
                                          const PlanCodecRegistry& registry = BuiltinPlanCodecs());
/// Rebuilds a plan from its envelope, children first.
Result<PlanPtr> DecodePlan(const codec::proto::PlanNode& message,
                           const PlanCodecRegistry& registry = BuiltinPlanCodecs());

/// EncodePlan serialized to bytes, and back. DecodePlanBytes: kCorrupt when `bytes` is not
/// an envelope; errors of DecodePlan otherwise.
Result<std::string> EncodePlanBytes(const ExecutionPlan& plan,
                                    const PlanCodecRegistry& registry = BuiltinPlanCodecs());
Result<PlanPtr> DecodePlanBytes(std::string_view bytes,
                                const PlanCodecRegistry& registry = BuiltinPlanCodecs());

/// Encodes and decodes `plan`, checks that encoding the result gives the same bytes and
/// the same EXPLAIN text, and returns the decoded plan (the codec_roundtrip setting runs
/// every stage through this). kInternal describing the first difference.
Result<PlanPtr> RoundTripPlan(const PlanPtr& plan,
                              const PlanCodecRegistry& registry = BuiltinPlanCodecs());

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
/// Expressions of a node, encoded in order.
Status EncodePhysicalExprs(const std::vector<expr::PhysicalExprPtr>& exprs,
                           google::protobuf::RepeatedPtrField<codec::proto::PhysicalExpr>* out);

}  // namespace floe::exec
