#include "floe/codec/plan_codec.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message_lite.h>

#include <utility>

#include "floe/codec/value_codec.h"

namespace floe::codec {

namespace {

Result<expr::PhysicalExprPtr> CompileSource(const expr::ExprPtr& source,
                                            const SchemaPtr& input_schema) {
  return expr::Compile(source, input_schema);
}

}  // namespace

PhysicalExprCodecs::PhysicalExprCodecs() {
  for (const char* name : {"Column", "Literal", "Call", "Cast", "Case"}) {
    decoders_.emplace(name, &CompileSource);
  }
}

Status PhysicalExprCodecs::Register(std::string name, PhysicalExprDecodeFn decode) {
  if (!decoders_.emplace(name, decode).second) {
    return Status::Invalid("physical expression type \"{}\" is registered twice", name);
  }
  return Status::OK();
}

PhysicalExprDecodeFn PhysicalExprCodecs::Find(std::string_view name) const {
  auto it = decoders_.find(name);
  return it == decoders_.end() ? nullptr : it->second;
}

std::vector<std::string> PhysicalExprCodecs::names() const {
  std::vector<std::string> out;
  for (const auto& [name, fn] : decoders_) out.push_back(name);
  return out;
}

Status EncodePhysicalExpr(const expr::PhysicalExpr& e, proto::PhysicalExpr* out) {
  if (e.source() == nullptr) {
    return Status::NotSupported("physical expression {} has no bound source", e.ToString());
  }
  out->set_name(std::string(e.name()));
  return EncodeExpr(*e.source(), out->mutable_source());
}

Status PlanEncoder::SetPayload(const google::protobuf::MessageLite& message) {
  payload_.clear();
  if (!message.SerializeToString(&payload_)) {
    return Status::Internal("cannot serialize a {} message", message.GetTypeName());
  }
  return Status::OK();
}

bool ParseMessage(std::string_view bytes, google::protobuf::MessageLite* message) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) return false;
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetRecursionLimit(kMaxMessageDepth);
  return message->ParseFromCodedStream(&input) && input.ConsumedEntireMessage();
}

Status PlanDecoder::ReadPayload(google::protobuf::MessageLite* message) const {
  if (!ParseMessage(payload_, message)) {
    return Corrupt(fmt::format("its {}-byte payload is not a valid {} message", payload_.size(),
                               message->GetTypeName()));
  }
  return Status::OK();
}

Status PlanDecoder::Corrupt(std::string_view what) const {
  return Status::Corrupt("plan node {}: {}", node_name_, what);
}

Status PlanDecoder::Annotate(const Status& status) const {
  if (status.ok()) return status;
  return status.WithPrefix(fmt::format("plan node {}: ", node_name_));
}

Result<expr::PhysicalExprPtr> PlanDecoder::Expr(const proto::PhysicalExpr& message,
                                                const SchemaPtr& input_schema) const {
  PhysicalExprDecodeFn decode =
      context_.exprs == nullptr ? nullptr : context_.exprs->Find(message.name());
  if (decode == nullptr) {
    return Corrupt(fmt::format("unknown physical expression type \"{}\"", message.name()));
  }
  if (!message.has_source()) return Corrupt("a physical expression without its source");
  Result<expr::ExprPtr> source = DecodeExpr(message.source());
  if (!source.ok()) return Annotate(source.status());
  Result<expr::PhysicalExprPtr> compiled = decode(*source, input_schema);
  if (!compiled.ok()) {
    return Corrupt(fmt::format("expression {} does not compile against its input: {}",
                               (*source)->ToString(), compiled.status().message()));
  }
  if ((*compiled)->name() != message.name()) {
    return Corrupt(fmt::format("expression {} compiles to a {}, not a {}", (*source)->ToString(),
                               (*compiled)->name(), message.name()));
  }
  return compiled;
}

}  // namespace floe::codec
