// Codecs of the Iceberg write and commit nodes and of the Iceberg transform expression
// (plan_codec.h; messages in codec/iceberg.proto), and the registration of the connector's
// codecs. IcebergScanExec's codec is in iceberg_table.cc; the pinned table both share is in
// iceberg_codec_internal.h.
//
// A write target carries the base metadata location and the table's schema, spec, sort order
// and properties as planned (checked against that file on decode). The commit needs the
// catalog connection of the session that planned the statement, which no message can
// carry: a target decoded in the process that planned it is that very target (the same
// object, found by its operation id while the plan lives), so the commit and the statement's
// write journal work as before; a target rebuilt elsewhere can write data files, but an
// IcebergCommitExec there is refused (kNotSupported).

#include <map>
#include <mutex>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "floe/codec/iceberg_codec.h"
#include "floe/codec/value_codec.h"
#include "floe/connector/iceberg/iceberg_codec_internal.h"
#include "floe/connector/iceberg/iceberg_plan_codec.h"
#include "floe/connector/iceberg/iceberg_table.h"
#include "floe/connector/iceberg/iceberg_write.h"
#include "floe/exec/plan_codec.h"
#include "floe/iceberg/type_json.h"
#include "floe/io/file_io.h"

namespace floe::connector {

namespace pb = codec::proto;

namespace {

// ---------------------------------------------------------------------------------------
// Write targets

pb::IcebergWriteTarget::Mode EncodeMode(IcebergWriteTarget::Mode mode) {
  switch (mode) {
    case IcebergWriteTarget::Mode::kAppend:
      return pb::IcebergWriteTarget::APPEND;
    case IcebergWriteTarget::Mode::kReplacePartitions:
      return pb::IcebergWriteTarget::REPLACE_PARTITIONS;
    case IcebergWriteTarget::Mode::kOverwrite:
      return pb::IcebergWriteTarget::OVERWRITE;
  }
  return pb::IcebergWriteTarget::APPEND;
}

// The schema, spec and sort order a write uses, in their Iceberg JSON forms.
struct TargetForms {
  std::string schema;
  std::string spec;
  std::string sort_order;
};

Result<TargetForms> FormsOf(const iceberg::TableMetadata& metadata, std::string_view name) {
  iceberg::SchemaPtr schema = metadata.CurrentSchema();
  iceberg::PartitionSpecPtr spec = metadata.DefaultSpec();
  iceberg::SortOrderPtr order = metadata.DefaultSortOrder();
  if (!schema || !spec || !order) {
    return Status::Invalid("table {} lacks its current schema, default spec or sort order", name);
  }
  TargetForms forms;
  FLOE_ASSIGN_OR_RAISE(forms.schema, iceberg::SchemaToJsonString(*schema));
  forms.spec = iceberg::PartitionSpecToJson(*spec).dump();
  forms.sort_order = iceberg::SortOrderToJson(*order).dump();
  return forms;
}

Status EncodeTarget(const IcebergWriteTarget& target, pb::IcebergWriteTarget* out) {
  FLOE_RETURN_NOT_OK(
      internal::EncodeTableRef(target.table, target.table_name, out->mutable_table()));
  const iceberg::TableMetadata& metadata = *target.table.metadata;
  FLOE_ASSIGN_OR_RAISE(TargetForms forms, FormsOf(metadata, target.table_name));
  out->set_table_name(target.table_name);
  out->set_schema_json(std::move(forms.schema));
  out->set_partition_spec_json(std::move(forms.spec));
  out->set_sort_order_json(std::move(forms.sort_order));
  for (const auto& [key, value] : metadata.properties) {
    pb::KeyValue* property = out->add_properties();
    property->set_key(key);
    property->set_value(value);
  }
  if (target.ops) out->set_catalog_table(target.ops->name());
  out->set_operation_id(target.operation_id);
  out->set_mode(EncodeMode(target.mode));
  out->set_fanout(target.fanout);
  return Status::OK();
}

// The targets of this process's plans, by operation id, while their plans live. A target
// decoded here is the planned one: the commit keeps its catalog connection and the writers
// and the commit share the statement's write journal (keyed by the target).
class LiveTargets {
 public:
  static LiveTargets& Get() {
    static LiveTargets* live = new LiveTargets();
    return *live;
  }

  void Add(const IcebergWriteTargetPtr& target, bool planned_here) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(targets_, [](const auto& entry) { return entry.second.target.expired(); });
    auto it = targets_.find(target->operation_id);
    if (it != targets_.end() && !it->second.target.expired()) {
      // The planned target wins over one rebuilt from a message.
      if (it->second.planned_here || !planned_here) return;
    }
    targets_[target->operation_id] = Entry{target, planned_here};
  }

  std::pair<IcebergWriteTargetPtr, bool> Find(const std::string& operation_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = targets_.find(operation_id);
    if (it == targets_.end()) return {nullptr, false};
    return {it->second.target.lock(), it->second.planned_here};
  }

 private:
  struct Entry {
    std::weak_ptr<const IcebergWriteTarget> target;
    bool planned_here = false;
  };
  std::mutex mutex_;
  std::map<std::string, Entry> targets_;
};

// Table operations of a target rebuilt from a message: writers never call them; a commit
// cannot, because the catalog connection stayed with the session that planned it.
class UnconnectedTableOperations final : public iceberg::TableOperations {
 public:
  UnconnectedTableOperations(std::string name, std::string operation_id,
                             std::shared_ptr<const io::FileIO> io)
      : name_(std::move(name)), operation_id_(std::move(operation_id)), io_(std::move(io)) {}

  Result<iceberg::Table> Refresh() const override { return Unconnected(); }
  Result<iceberg::Table> Commit(const std::vector<iceberg::TableRequirement>&,
                                const std::vector<iceberg::TableUpdate>&) override {
    return Unconnected();
  }
  std::shared_ptr<const io::FileIO> io() const override { return io_; }
  std::string name() const override { return name_; }

 private:
  Status Unconnected() const {
    return Status::NotSupported(
        "table {}: the write of operation {} was decoded in a process that did not plan it and "
        "has no catalog connection; only the planning process commits",
        name_, operation_id_);
  }

  std::string name_;
  std::string operation_id_;
  std::shared_ptr<const io::FileIO> io_;
};

Result<IcebergWriteTargetPtr> DecodeTarget(const codec::PlanDecoder& in,
                                           const pb::IcebergWriteTarget& m, bool need_catalog) {
  if (m.operation_id().empty()) return in.Corrupt("a write target without an operation id");
  auto [live, planned_here] = LiveTargets::Get().Find(m.operation_id());
  if (live != nullptr) {
    pb::IcebergWriteTarget mine;
    FLOE_RETURN_NOT_OK(exec::DecodeError(in, EncodeTarget(*live, &mine)));
    if (mine.SerializeAsString() != m.SerializeAsString()) {
      return in.Corrupt(fmt::format(
          "the write target of operation {} (table {}) differs from the one planned in this "
          "process",
          m.operation_id(), live->table_name));
    }
    if (planned_here || !need_catalog) return live;
  }
  if (need_catalog) {
    return Status::NotSupported(
        "plan node {}: the commit of operation {} to table {} can only run in the process that "
        "planned it (it needs that session's catalog connection)",
        in.node_name(), m.operation_id(),
        m.catalog_table().empty() ? m.table_name() : m.catalog_table());
  }
  auto target = std::make_shared<IcebergWriteTarget>();
  target->table_name = m.table_name();
  FLOE_ASSIGN_OR_RAISE(target->table, internal::DecodeTableRef(in, m.table(), m.table_name()));
  const iceberg::TableMetadata& metadata = *target->table.metadata;
  Result<TargetForms> forms = FormsOf(metadata, m.table_name());
  if (!forms.ok()) return exec::DecodeError(in, forms.status());
  auto check = [&](std::string_view what, const std::string& have, const std::string& want) {
    if (have == want) return Status::OK();
    return in.Corrupt(fmt::format("the {} of table {} in {} is {}, the plan's is {}", what,
                                  m.table_name(), m.table().metadata_location(), have, want));
  };
  FLOE_RETURN_NOT_OK(check("schema", forms->schema, m.schema_json()));
  FLOE_RETURN_NOT_OK(check("partition spec", forms->spec, m.partition_spec_json()));
  FLOE_RETURN_NOT_OK(check("sort order", forms->sort_order, m.sort_order_json()));
  std::map<std::string, std::string> properties;
  for (const pb::KeyValue& property : m.properties()) {
    properties[property.key()] = property.value();
  }
  if (properties != metadata.properties) {
    return in.Corrupt(fmt::format("the properties of table {} in {} differ from the plan's",
                                  m.table_name(), m.table().metadata_location()));
  }
  switch (m.mode()) {
    case pb::IcebergWriteTarget::APPEND:
      target->mode = IcebergWriteTarget::Mode::kAppend;
      break;
    case pb::IcebergWriteTarget::REPLACE_PARTITIONS:
      target->mode = IcebergWriteTarget::Mode::kReplacePartitions;
      break;
    case pb::IcebergWriteTarget::OVERWRITE:
      target->mode = IcebergWriteTarget::Mode::kOverwrite;
      break;
    default:
      return in.Corrupt(fmt::format("unknown write mode {}", static_cast<int>(m.mode())));
  }
  target->operation_id = m.operation_id();
  target->fanout = m.fanout();
  target->ops = std::make_shared<UnconnectedTableOperations>(
      m.catalog_table().empty() ? m.table_name() : m.catalog_table(), m.operation_id(),
      target->table.io);
  IcebergWriteTargetPtr out = std::move(target);
  LiveTargets::Get().Add(out, /*planned_here=*/false);
  return out;
}

Status EncodeTargetOf(const IcebergWriteTargetPtr& target, pb::IcebergWriteTarget* out) {
  if (target == nullptr) return Status::Internal("a write node without its target");
  FLOE_RETURN_NOT_OK(EncodeTarget(*target, out));
  // Decoding in this process finds this target again (see LiveTargets).
  LiveTargets::Get().Add(
      target, target->ops != nullptr &&
                  dynamic_cast<const UnconnectedTableOperations*>(target->ops.get()) == nullptr);
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// IcebergTransformExpr: iceberg_transform('<transform>', column)

Result<expr::PhysicalExprPtr> DecodeIcebergTransform(const expr::ExprPtr& source,
                                                     const SchemaPtr& input_schema) {
  if (source->kind != expr::ExprKind::kCall || source->name != "iceberg_transform" ||
      source->args.size() != 2) {
    return Status::Corrupt(
        "an IcebergTransform must be iceberg_transform('<transform>', column), "
        "not {}",
        source->ToString());
  }
  const expr::Expr& text = *source->args[0];
  const expr::Expr& column = *source->args[1];
  if (text.kind != expr::ExprKind::kLiteral || text.literal.is_null() ||
      text.literal.type() == nullptr || text.literal.type()->id() != TypeId::kString) {
    return Status::Corrupt("iceberg_transform's first argument must be a transform name, not {}",
                           text.ToString());
  }
  const std::string name = text.literal.get<std::string>();
  Result<iceberg::Transform> transform = iceberg::Transform::Parse(name);
  if (!transform.ok() || transform->kind() == iceberg::TransformKind::kUnknown) {
    return Status::Corrupt("unknown Iceberg transform \"{}\"", name);
  }
  if (column.kind != expr::ExprKind::kColumn || column.column < 0 ||
      column.column >= input_schema->num_fields()) {
    return Status::Corrupt("iceberg_transform's second argument must be an input column, not {}",
                           column.ToString());
  }
  const Field& field = input_schema->field(column.column);
  if (column.type == nullptr || !column.type->Equals(*field.type())) {
    return Status::Corrupt("iceberg_transform's column #{} is {} here, {} in the plan",
                           column.column, field.type()->ToString(),
                           column.type ? column.type->ToString() : "untyped");
  }
  Result<expr::PhysicalExprPtr> out =
      IcebergTransformExpr::Make(*transform, column.column, input_schema);
  if (!out.ok()) return Status::Corrupt("{}", out.status().message());
  return out;
}

}  // namespace

void RegisterIcebergPlanCodecs(exec::PlanCodecRegistry* registry) {
  exec::RegisterPlanCodec<IcebergScanExec>(registry);
  exec::RegisterPlanCodec<IcebergWriteExec>(registry);
  exec::RegisterPlanCodec<IcebergCommitExec>(registry);
  Status s =
      registry->exprs().Register(std::string(IcebergTransformExpr::kName), &DecodeIcebergTransform);
  FLOE_CHECK(s.ok(), s.ToString());
}

// IcebergWriteExec, IcebergCommitExec: their target; the partition tuple, the sort keys and
// the required distribution follow from it and the input, as when planned.

Status IcebergWriteExec::Encode(codec::PlanEncoder& out) const {
  pb::IcebergWriteNode m;
  FLOE_RETURN_NOT_OK(EncodeTargetOf(target_, m.mutable_target()));
  return out.SetPayload(m);
}

Result<exec::PlanPtr> IcebergWriteExec::Decode(codec::PlanDecoder& in,
                                               std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 1));
  pb::IcebergWriteNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(IcebergWriteTargetPtr target,
                       DecodeTarget(in, m.target(), /*need_catalog=*/false));
  Result<exec::PlanPtr> plan = Make(std::move(target), std::move(children[0]));
  if (!plan.ok()) return exec::DecodeError(in, plan.status());
  return plan;
}

Status IcebergCommitExec::Encode(codec::PlanEncoder& out) const {
  pb::IcebergCommitNode m;
  FLOE_RETURN_NOT_OK(EncodeTargetOf(target_, m.mutable_target()));
  return out.SetPayload(m);
}

Result<exec::PlanPtr> IcebergCommitExec::Decode(codec::PlanDecoder& in,
                                                std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 1));
  pb::IcebergCommitNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(IcebergWriteTargetPtr target,
                       DecodeTarget(in, m.target(), /*need_catalog=*/true));
  Result<exec::PlanPtr> plan = Make(std::move(target), std::move(children[0]));
  if (!plan.ok()) return exec::DecodeError(in, plan.status());
  return plan;
}

}  // namespace floe::connector
