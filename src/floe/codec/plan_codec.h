#pragma once

// The plan codec's building blocks (DESIGN.md section 4). A plan node encodes exactly the
// parts its Make takes into its own protobuf message (nodes.proto, iceberg.proto); the
// envelope (plan.proto) names the node type and its codec version and carries the
// children. Decoding parses the message and calls Make with the parts, so whatever
// arrives is validated again. The registry of node codecs and EncodePlan / DecodePlan
// live with the nodes (exec/plan_codec.h); this module holds what they share: payload
// handling, the value codecs (value_codec.h) and the physical expression codecs.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/codec/values.pb.h"
#include "floe/common/result.h"
#include "floe/expr/physical_expr.h"
#include "floe/type/type.h"

namespace google::protobuf {
class MessageLite;
}

namespace floe::codec {

/// How deeply the messages of a plan may nest: a plan node per level of the plan, and the
/// levels of its expressions (protobuf's own default, 100, refused plans that floe runs).
constexpr int kMaxMessageDepth = 10000;

/// Parses `bytes` into `message` allowing kMaxMessageDepth levels of nesting; false when
/// they are not such a message.
bool ParseMessage(std::string_view bytes, google::protobuf::MessageLite* message);

/// Rebuilds a physical expression of one node type from the bound expression it was
/// compiled from, against the schema of the batches it will see.
using PhysicalExprDecodeFn = Result<expr::PhysicalExprPtr> (*)(const expr::ExprPtr& source,
                                                               const SchemaPtr& input_schema);

/// Physical expression types by stable name. The engine's own ("Column", "Literal",
/// "Call", "Cast", "Case") compile their source with expr::Compile; other modules add
/// theirs (exec's "IcebergTransform").
class PhysicalExprCodecs {
 public:
  /// The engine's own types registered.
  PhysicalExprCodecs();
  /// kInvalidArgument when `name` is registered already.
  Status Register(std::string name, PhysicalExprDecodeFn decode);
  /// nullptr when unknown.
  PhysicalExprDecodeFn Find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, PhysicalExprDecodeFn, std::less<>> decoders_;
};

/// Writes `expr` (its type name and bound source). kNotSupported when it has no source.
Status EncodePhysicalExpr(const expr::PhysicalExpr& expr, proto::PhysicalExpr* out);

/// What decoding needs from the process it runs in. Everything a node is built from
/// travels in its message; this names only the decoders available here.
struct DecodeContext {
  const PhysicalExprCodecs* exprs = nullptr;
};

/// Collects one node's payload.
class PlanEncoder {
 public:
  /// Serializes `message` as the node's payload. kInternal when serialization fails.
  Status SetPayload(const google::protobuf::MessageLite& message);
  std::string& payload() { return payload_; }

 private:
  std::string payload_;
};

/// Reads one node's payload and rebuilds the values inside it. Errors are kCorrupt and
/// name the node type ("plan node FilterExec: ...").
class PlanDecoder {
 public:
  PlanDecoder(std::string_view node_name, std::string_view payload, const DecodeContext& context)
      : node_name_(node_name), payload_(payload), context_(context) {}

  std::string_view node_name() const { return node_name_; }
  const DecodeContext& context() const { return context_; }

  /// Parses the payload into `message`.
  Status ReadPayload(google::protobuf::MessageLite* message) const;
  /// kCorrupt "plan node <name>: <what>".
  Status Corrupt(std::string_view what) const;
  /// An error of decoding with this node's name in front of its message (code kept).
  Status Annotate(const Status& status) const;

  /// A physical expression compiled against `input_schema`. kCorrupt for an unknown
  /// expression type or a source that does not compile there.
  Result<expr::PhysicalExprPtr> Expr(const proto::PhysicalExpr& message,
                                     const SchemaPtr& input_schema) const;
  /// Each of `messages` as Expr does.
  template <typename Repeated>
  Result<std::vector<expr::PhysicalExprPtr>> Exprs(const Repeated& messages,
                                                   const SchemaPtr& input_schema) const {
    std::vector<expr::PhysicalExprPtr> out;
    out.reserve(static_cast<size_t>(messages.size()));
    for (const auto& message : messages) {
      FLOE_ASSIGN_OR_RAISE(expr::PhysicalExprPtr e, Expr(message, input_schema));
      out.push_back(std::move(e));
    }
    return out;
  }

 private:
  std::string_view node_name_;
  std::string_view payload_;
  const DecodeContext& context_;
};

}  // namespace floe::codec
