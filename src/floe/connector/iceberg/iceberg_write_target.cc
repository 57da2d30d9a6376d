#include "floe/connector/iceberg/iceberg_write_target.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include <nlohmann/json.hpp>

#include "floe/codec/iceberg.pb.h"
#include "floe/codec/iceberg_codec.h"
#include "floe/common/ascii.h"
#include "floe/connector/iceberg/iceberg_codec_internal.h"
#include "floe/connector/iceberg/iceberg_write_target.h"
#include "floe/exec/plan_codec.h"
#include "floe/iceberg/in_flight_files.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_update.h"
#include "floe/iceberg/type_json.h"
#include "floe/io/file_io.h"

namespace floe::connector {

namespace {

constexpr std::string_view kFanoutProperty = "write.fanout.enabled";

}  // namespace

Result<IcebergWriteTargetPtr> MakeWriteTarget(std::string table_name, iceberg::Table table,
                                              iceberg::TableOperationsPtr ops,
                                              IcebergWriteTarget::Mode mode) {
  if (!table.metadata || !table.metadata->CurrentSchema()) {
    return Status::Invalid("table {} has no current schema", table_name);
  }
  auto target = std::make_shared<IcebergWriteTarget>();
  const auto& properties = table.metadata->properties;
  if (auto it = properties.find(std::string(kFanoutProperty)); it != properties.end()) {
    const std::string value = AsciiLower(it->second);
    if (value != "true" && value != "false") {
      return Status::Invalid("table {}: property {} must be true or false, not '{}'", table_name,
                             kFanoutProperty, it->second);
    }
    target->fanout = value == "true";
  }
  target->table_name = std::move(table_name);
  target->table = std::move(table);
  target->ops = std::move(ops);
  target->operation_id = iceberg::NewUuid();
  target->mode = mode;
  return IcebergWriteTargetPtr(std::move(target));
}

Result<std::shared_ptr<const WriteJournal>> WriteJournal::For(const exec::TaskContextPtr& ctx,
                                                              const IcebergWriteTarget* target) {
  return ctx->GetOrCreateShared<WriteJournal>(target,
                                              []() -> Result<std::shared_ptr<const WriteJournal>> {
                                                return std::make_shared<const WriteJournal>();
                                              });
}

void WriteJournal::Record(const std::vector<std::string>& paths) const {
  std::lock_guard<std::mutex> lock(mutex_);
  paths_.insert(paths_.end(), paths.begin(), paths.end());
}

void WriteJournal::MarkCommitted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  committed_ = true;
}

void WriteJournal::MarkCommitStateUnknown() const {
  std::lock_guard<std::mutex> lock(mutex_);
  keep_ = true;
}

bool WriteJournal::committed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return committed_;
}

Status WriteJournal::DeleteUncommitted(const io::FileIO& io) const {
  std::vector<std::string> paths;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (committed_ || keep_) return Status::OK();
    paths.swap(paths_);
  }
  Status first;
  for (const std::string& path : paths) {
    Status st = io.Delete(path);
    iceberg::InFlightFiles::Process().Deleted(path);
    if (!st.ok() && first.ok()) first = st;
  }
  return first;
}

// ---------------------------------------------------------------------------------------
// Codecs (exec/plan_codec.h; messages in codec/iceberg.proto). IcebergWriteExec and
// IcebergCommitExec carry their target; the partition tuple, the sort keys and the required
// distribution follow from it and the input, as when planned.
//
// A write target carries the base metadata location and the table's schema, spec, sort order
// and properties as planned (checked against that file on decode). The commit needs the
// catalog connection of the session that planned the statement, which no message can
// carry: a target decoded in the process that planned it is that very target (the same
// object, found by its operation id while the plan lives), so the commit and the statement's
// write journal work as before; a target rebuilt elsewhere can write data files, but an
// IcebergCommitExec there is refused (kNotSupported).

namespace pb = codec::proto;

namespace {

pb::IcebergWriteTarget::Mode EncodeMode(IcebergWriteTarget::Mode mode) {
  switch (mode) {
    case IcebergWriteTarget::Mode::kAppend:
      return pb::IcebergWriteTarget::APPEND;
    case IcebergWriteTarget::Mode::kReplacePartitions:
      return pb::IcebergWriteTarget::REPLACE_PARTITIONS;
    case IcebergWriteTarget::Mode::kOverwrite:
      return pb::IcebergWriteTarget::OVERWRITE;
    case IcebergWriteTarget::Mode::kRowDelta:
      return pb::IcebergWriteTarget::ROW_DELTA;
    case IcebergWriteTarget::Mode::kRewriteFiles:
      return pb::IcebergWriteTarget::REWRITE_FILES;
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
  if (target.base_snapshot_id) out->set_base_snapshot_id(*target.base_snapshot_id);
  out->set_serializable(target.serializable);
  for (const std::string& path : target.rewritten_files) out->add_rewritten_files(path);
  out->set_row_lineage(target.row_lineage);
  if (target.conflict_filter) {
    FLOE_RETURN_NOT_OK(
        codec::EncodeIcebergExpression(*target.conflict_filter, out->mutable_conflict_filter()));
  }
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

}  // namespace

Result<iceberg::PartitionedWriterOptions> TaskWriterOptions(const IcebergWriteTarget& target,
                                                            int partition,
                                                            const exec::TaskContextPtr& ctx) {
  constexpr int64_t kMinFanoutBudget = 16LL << 20;
  FLOE_ASSIGN_OR_RAISE(iceberg::PartitionedWriterOptions options,
                       iceberg::WriterOptionsForTable(*target.table.metadata, target.table.io));
  options.writer_id = partition;
  options.task_id = 0;
  options.operation_id = target.operation_id;
  options.in_flight_owner = ctx.get();  // sealed by the commit (IcebergCommitExec)
  if (target.row_lineage) {
    // The data files store the rows' lineage after the table's columns.
    std::vector<Field> fields = options.schema->fields();
    for (Field& field : iceberg::RowLineageFields()) fields.push_back(std::move(field));
    FLOE_ASSIGN_OR_RAISE(
        options.schema,
        iceberg::Schema::Make(options.schema->schema_id(), std::move(fields),
                              options.schema->identifier_field_ids(), options.schema->defaults()));
  }
  const int slots = ctx->threads() != nullptr ? std::max(1, ctx->threads()->size()) : 1;
  options.fanout_memory_budget_bytes =
      std::max<int64_t>(kMinFanoutBudget, ctx->config().memory_limit() / 2 / slots);
  return options;
}

Status DeleteUncommittedWrites(const IcebergWriteTarget& target, const exec::TaskContextPtr& ctx) {
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<const WriteJournal> journal,
                       WriteJournal::For(ctx, &target));
  return journal->DeleteUncommitted(*target.table.io);
}

namespace internal {

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
    case pb::IcebergWriteTarget::ROW_DELTA:
      target->mode = IcebergWriteTarget::Mode::kRowDelta;
      break;
    case pb::IcebergWriteTarget::REWRITE_FILES:
      target->mode = IcebergWriteTarget::Mode::kRewriteFiles;
      break;
    default:
      return in.Corrupt(fmt::format("unknown write mode {}", static_cast<int>(m.mode())));
  }
  target->operation_id = m.operation_id();
  target->fanout = m.fanout();
  if (m.has_base_snapshot_id()) target->base_snapshot_id = m.base_snapshot_id();
  target->serializable = m.serializable();
  target->rewritten_files.assign(m.rewritten_files().begin(), m.rewritten_files().end());
  target->row_lineage = m.row_lineage();
  if (m.has_conflict_filter()) {
    Result<iceberg::ExpressionPtr> filter =
        codec::DecodeIcebergExpression(m.conflict_filter(), *metadata.CurrentSchema());
    if (!filter.ok()) {
      return exec::DecodeError(in, filter.status().WithPrefix("the conflict filter: "));
    }
    target->conflict_filter = std::move(*filter);
  }
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

}  // namespace internal

}  // namespace floe::connector
