// Codecs of the Iceberg scan, write and commit nodes and of the Iceberg transform expression
// (plan_codec.h; messages in codec/iceberg.proto).
//
// An Iceberg scan travels with everything it was planned from: the pinned metadata file
// (immutable: the decoder reads exactly that file, as the catalogs do, and checks the
// table's uuid and last-updated time), the FileIO configuration its data files resolve
// through, the snapshot, schema, projection and bound filter of its TableScan, and the
// planned task groups with every data and delete file. Nothing is planned again on decode.
//
// A write target carries the base metadata location and the table's schema, spec, sort order
// and properties as planned (checked against that file on decode). The commit needs the
// catalog connection of the session that planned the statement, which no message can
// carry: a target decoded in the process that planned it is that very target (the same
// object, found by its operation id while the plan lives), so the commit and the statement's
// write journal work as before; a target rebuilt elsewhere can write data files, but an
// IcebergCommitExec there is refused (kNotSupported).

#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "floe/codec/iceberg_codec.h"
#include "floe/codec/value_codec.h"
#include "floe/connector/iceberg/iceberg_plan_codec.h"
#include "floe/connector/iceberg/iceberg_table.h"
#include "floe/connector/iceberg/iceberg_write.h"
#include "floe/exec/plan_codec.h"
#include "floe/iceberg/table_location.h"
#include "floe/iceberg/type_json.h"
#include "floe/io/file_io.h"

namespace floe::connector {

namespace pb = codec::proto;

namespace {

// ---------------------------------------------------------------------------------------
// FileIO and pinned tables

Status EncodeFileIO(const std::shared_ptr<const io::FileIO>& io, std::string_view table,
                    pb::FileIOConfig* out) {
  const auto* local = dynamic_cast<const io::LocalFileIO*>(io.get());
  if (local == nullptr) {
    return Status::NotSupported("table {}: its FileIO {} has no codec", table,
                                io ? io->ToString() : std::string("(none)"));
  }
  out->set_kind("local");
  for (const io::PathMapRule& rule : local->options().path_map) {
    pb::FileIOConfig::PathMapRule* r = out->add_path_map();
    r->set_from(rule.from);
    r->set_to(rule.to);
  }
  out->set_base_dir(local->options().base_dir);
  return Status::OK();
}

Result<std::shared_ptr<const io::FileIO>> DecodeFileIO(const codec::PlanDecoder& in,
                                                       const pb::FileIOConfig& m) {
  if (m.kind() != "local") return in.Corrupt(fmt::format("unknown FileIO kind \"{}\"", m.kind()));
  io::LocalFileIOOptions options;
  for (const pb::FileIOConfig::PathMapRule& rule : m.path_map()) {
    if (rule.from().empty()) return in.Corrupt("a path-map rule with an empty prefix");
    options.path_map.push_back(io::PathMapRule{rule.from(), rule.to()});
  }
  options.base_dir = m.base_dir();
  return std::shared_ptr<const io::FileIO>(std::make_shared<io::LocalFileIO>(std::move(options)));
}

Status EncodeTableRef(const iceberg::Table& table, std::string_view name,
                      pb::IcebergTableRef* out) {
  if (table.metadata == nullptr || table.metadata_location.empty()) {
    return Status::NotSupported("table {} is not pinned to a metadata file", name);
  }
  out->set_metadata_location(table.metadata_location);
  out->set_table_uuid(table.metadata->table_uuid);
  out->set_last_updated_ms(table.metadata->last_updated_ms);
  return EncodeFileIO(table.io, name, out->mutable_io());
}

// Metadata files decoded in this process, while some plan holds them, by location and the
// identity the message names: every task of a stage decodes the same scan, and a metadata
// file is immutable, so it is read once.
class DecodedMetadata {
 public:
  static DecodedMetadata& Get() {
    static DecodedMetadata* cache = new DecodedMetadata();
    return *cache;
  }

  static std::string Key(const pb::IcebergTableRef& m) {
    return fmt::format("{}\n{}\n{}", m.metadata_location(), m.table_uuid(), m.last_updated_ms());
  }

  iceberg::TableMetadataPtr Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : it->second.lock();
  }

  void Add(const std::string& key, const iceberg::TableMetadataPtr& metadata) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(entries_, [](const auto& entry) { return entry.second.expired(); });
    entries_[key] = metadata;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::weak_ptr<const iceberg::TableMetadata>> entries_;
};

// Reads the pinned metadata file. The catalogs (and iceberg::OpenTable) read metadata files
// through a plain local FileIO: path-map rules and the base directory apply to the paths
// inside the metadata, not to its own location, which is absolute or relative to the working
// directory. The file is read the same way here.
Result<iceberg::Table> DecodeTableRef(const codec::PlanDecoder& in, const pb::IcebergTableRef& m,
                                      std::string_view name) {
  if (m.metadata_location().empty()) {
    return in.Corrupt(fmt::format("table {} has no metadata location", name));
  }
  iceberg::Table table;
  FLOE_ASSIGN_OR_RAISE(table.io, DecodeFileIO(in, m.io()));
  const io::LocalFileIO reader;
  auto read = [&]() -> Result<iceberg::TableMetadataPtr> {
    // Only a regular file: a device or a pipe named by a hostile message could block or
    // never end.
    FLOE_ASSIGN_OR_RAISE(std::string local, reader.ResolvePath(m.metadata_location()));
    std::error_code ec;
    if (std::filesystem::exists(local, ec) && !std::filesystem::is_regular_file(local, ec)) {
      return Status::IOError("{} is not a regular file", local);
    }
    FLOE_ASSIGN_OR_RAISE(auto file, reader.NewInputFile(m.metadata_location()));
    return iceberg::ReadTableMetadata(*file);
  };
  const std::string key = DecodedMetadata::Key(m);
  if (iceberg::TableMetadataPtr cached = DecodedMetadata::Get().Find(key)) {
    table.metadata = std::move(cached);
    table.metadata_location = m.metadata_location();
    return table;
  }
  Result<iceberg::TableMetadataPtr> metadata = read();
  if (!metadata.ok()) {
    const Status& s = metadata.status();
    const std::string what = fmt::format("cannot read the metadata file {} of table {}: {}",
                                         m.metadata_location(), name, s.message());
    if (s.code() == StatusCode::kCorrupt || s.code() == StatusCode::kNotSupported) {
      return in.Annotate(Status(s.code(), what));
    }
    return Status::IOError(what);
  }
  if ((*metadata)->table_uuid != m.table_uuid() ||
      (*metadata)->last_updated_ms != m.last_updated_ms()) {
    return in.Corrupt(fmt::format(
        "the metadata file {} is not the one the plan pinned for table {} (uuid {} updated at "
        "{}, the plan has uuid {} updated at {})",
        m.metadata_location(), name, (*metadata)->table_uuid, (*metadata)->last_updated_ms,
        m.table_uuid(), m.last_updated_ms()));
  }
  DecodedMetadata::Get().Add(key, *metadata);
  table.metadata = std::move(*metadata);
  table.metadata_location = m.metadata_location();
  return table;
}

// ---------------------------------------------------------------------------------------
// Iceberg scans

// The field ids that select `projected` out of `full` (Schema::Select): a field kept whole
// by its own id, a struct kept in part by the ids of what it keeps.
void ProjectionIds(const Field& projected, const Field& full, std::vector<int32_t>* out) {
  if (projected.type()->Equals(*full.type()) || projected.type()->id() != TypeId::kStruct ||
      full.type()->id() != TypeId::kStruct) {
    out->push_back(projected.field_id());
    return;
  }
  for (const Field& child : projected.type()->fields()) {
    for (const Field& candidate : full.type()->fields()) {
      if (candidate.field_id() == child.field_id()) ProjectionIds(child, candidate, out);
    }
  }
}

// The index of each distinct data file of the scan (by pointer, in order of appearance).
struct FileTable {
  std::map<const iceberg::DataFile*, int32_t> index;
  Status Add(const iceberg::DataFilePtr& file, pb::IcebergScanNode* m, int32_t* at) {
    auto it = index.find(file.get());
    if (it != index.end()) {
      *at = it->second;
      return Status::OK();
    }
    *at = static_cast<int32_t>(index.size());
    index.emplace(file.get(), *at);
    return codec::EncodeDataFile(*file, m->add_files());
  }
};

Status EncodeTask(const iceberg::FileScanTask& task, FileTable* files, pb::IcebergScanNode* m,
                  pb::IcebergScanTask* out) {
  int32_t at = 0;
  FLOE_RETURN_NOT_OK(files->Add(task.data_file, m, &at));
  out->set_data_file(at);
  out->set_spec_id(task.spec ? task.spec->spec_id() : task.data_file->spec_id);
  out->set_data_sequence_number(task.data_sequence_number);
  out->set_start(task.start);
  out->set_length(task.length);
  for (const iceberg::DataFilePtr& file : task.delete_files) {
    FLOE_RETURN_NOT_OK(files->Add(file, m, &at));
    out->add_delete_files(at);
  }
  if (task.residual) {
    FLOE_RETURN_NOT_OK(codec::EncodeIcebergExpression(*task.residual, out->mutable_residual()));
  }
  out->set_estimated_row_count(task.estimated_row_count);
  return Status::OK();
}

Result<iceberg::FileScanTask> DecodeTask(const codec::PlanDecoder& in, const pb::IcebergScanTask& m,
                                         const std::vector<iceberg::DataFilePtr>& files,
                                         const iceberg::TableMetadata& metadata,
                                         const iceberg::Schema& schema) {
  auto file_at = [&](int32_t i) -> Result<iceberg::DataFilePtr> {
    if (i < 0 || static_cast<size_t>(i) >= files.size()) {
      return in.Corrupt(fmt::format("a task names file {} of {}", i, files.size()));
    }
    return files[static_cast<size_t>(i)];
  };
  iceberg::FileScanTask task;
  FLOE_ASSIGN_OR_RAISE(task.data_file, file_at(m.data_file()));
  task.spec = metadata.SpecById(m.spec_id());
  if (task.spec == nullptr) {
    return in.Corrupt(fmt::format("the task of {} names partition spec {}, which the table lacks",
                                  task.data_file->file_path, m.spec_id()));
  }
  if (m.start() < 0 || m.length() < 0 || m.estimated_row_count() < 0) {
    return in.Corrupt(fmt::format("the task of {} has a negative start, length or row count",
                                  task.data_file->file_path));
  }
  task.data_sequence_number = m.data_sequence_number();
  task.start = m.start();
  task.length = m.length();
  for (int32_t i : m.delete_files()) {
    FLOE_ASSIGN_OR_RAISE(iceberg::DataFilePtr file, file_at(i));
    task.delete_files.push_back(std::move(file));
  }
  if (m.has_residual()) {
    Result<iceberg::ExpressionPtr> residual = codec::DecodeIcebergExpression(m.residual(), schema);
    if (!residual.ok()) {
      return exec::DecodeError(in, residual.status().WithPrefix(fmt::format(
                                       "the residual of {}: ", task.data_file->file_path)));
    }
    task.residual = std::move(*residual);
  }
  task.estimated_row_count = m.estimated_row_count();
  return task;
}

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
  FLOE_RETURN_NOT_OK(EncodeTableRef(target.table, target.table_name, out->mutable_table()));
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
  FLOE_ASSIGN_OR_RAISE(target->table, DecodeTableRef(in, m.table(), m.table_name()));
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

// IcebergScanExec

Status IcebergScanExec::Encode(codec::PlanEncoder& out) const {
  pb::IcebergScanNode m;
  const iceberg::TableScan& scan = *parts_.scan;
  const iceberg::TableMetadata& metadata = scan.metadata();
  if (parts_.table.metadata.get() != &metadata) {
    return Status::NotSupported("table {}: the scan was planned over other metadata than {}",
                                parts_.table_name, parts_.table.metadata_location);
  }
  m.set_table_name(parts_.table_name);
  FLOE_RETURN_NOT_OK(EncodeTableRef(parts_.table, parts_.table_name, m.mutable_table()));
  const iceberg::Schema& schema = *scan.schema();
  if (const iceberg::Snapshot* snapshot = scan.snapshot()) {
    m.mutable_snapshot_id()->set_value(snapshot->snapshot_id);
    // A scan of the current snapshot with the current schema rebuilds unpinned; any other
    // selects its snapshot, and with it the snapshot's schema.
    m.set_pinned(metadata.current_snapshot_id != snapshot->snapshot_id ||
                 schema.schema_id() != metadata.current_schema_id);
  }
  m.set_schema_id(schema.schema_id());
  const iceberg::Schema& projected = *scan.projected_schema();
  for (const Field& field : projected.fields()) {
    const Field* full = schema.FindFieldById(field.field_id());
    if (full == nullptr) {
      return Status::Internal("table {}: projected field {} is not in the scan's schema",
                              parts_.table_name, field.field_id());
    }
    std::vector<int32_t> ids;
    ProjectionIds(field, *full, &ids);
    for (int32_t id : ids) m.add_projected_field_ids(id);
  }
  codec::EncodeSchema(*projected.columns(), m.mutable_projected_schema());
  if (scan.bound_filter()) {
    FLOE_RETURN_NOT_OK(codec::EncodeIcebergExpression(*scan.bound_filter(), m.mutable_filter()));
  }
  FileTable files;
  for (const iceberg::ScanTaskGroup& group : parts_.groups) {
    pb::IcebergScanTaskGroup* g = m.add_groups();
    for (const iceberg::FileScanTask& task : group.tasks) {
      FLOE_RETURN_NOT_OK(EncodeTask(task, &files, &m, g->add_tasks()));
    }
    g->set_total_bytes(group.total_bytes);
    g->set_estimated_row_count(group.estimated_row_count);
  }
  for (int c : parts_.projection) m.add_projection(c);
  for (const expr::ExprPtr& filter : parts_.filters) {
    FLOE_RETURN_NOT_OK(codec::EncodeExpr(*filter, m.add_filters()));
  }
  if (parts_.limit) m.mutable_limit()->set_value(*parts_.limit);
  return out.SetPayload(m);
}

Result<exec::PlanPtr> IcebergScanExec::Decode(codec::PlanDecoder& in,
                                              std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 0));
  pb::IcebergScanNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  const std::string& name = m.table_name();
  Parts parts;
  parts.table_name = name;
  FLOE_ASSIGN_OR_RAISE(parts.table, DecodeTableRef(in, m.table(), name));
  const iceberg::TableMetadataPtr& metadata = parts.table.metadata;
  // The schema the scan reads with, resolved as TableScan::Make will, so that the filter
  // binds to it first.
  iceberg::SchemaPtr schema = metadata->CurrentSchema();
  iceberg::ScanOptions options;
  if (m.pinned()) {
    if (!m.has_snapshot_id()) return in.Corrupt("a pinned scan without a snapshot");
    const iceberg::Snapshot* snapshot = metadata->SnapshotById(m.snapshot_id().value());
    if (snapshot == nullptr) {
      return in.Corrupt(fmt::format("table {} has no snapshot {} in {}", name,
                                    m.snapshot_id().value(), parts.table.metadata_location));
    }
    options.snapshot.snapshot_id = m.snapshot_id().value();
    schema = metadata->SchemaForSnapshot(*snapshot);
  }
  if (schema == nullptr || schema->schema_id() != m.schema_id()) {
    return in.Corrupt(fmt::format("table {}: the scan reads schema {}, the metadata gives {}", name,
                                  m.schema_id(), schema ? schema->schema_id() : -1));
  }
  options.projected_field_ids.assign(m.projected_field_ids().begin(),
                                     m.projected_field_ids().end());
  if (m.has_filter()) {
    Result<iceberg::ExpressionPtr> filter = codec::DecodeIcebergExpression(m.filter(), *schema);
    if (!filter.ok())
      return exec::DecodeError(in, filter.status().WithPrefix("the scan's filter: "));
    options.filter = std::move(*filter);
  }
  Result<std::unique_ptr<iceberg::TableScan>> made =
      iceberg::TableScan::Make(metadata, parts.table.io, std::move(options));
  if (!made.ok()) return exec::DecodeError(in, made.status());
  std::shared_ptr<const iceberg::TableScan> scan = std::move(*made);
  const iceberg::Snapshot* snapshot = scan->snapshot();
  if (m.has_snapshot_id() != (snapshot != nullptr) ||
      (snapshot != nullptr && snapshot->snapshot_id != m.snapshot_id().value())) {
    return in.Corrupt(fmt::format(
        "table {}: the scan reads snapshot {}, the metadata gives {}", name,
        m.has_snapshot_id() ? std::to_string(m.snapshot_id().value()) : std::string("none"),
        snapshot ? std::to_string(snapshot->snapshot_id) : std::string("none")));
  }
  Result<SchemaPtr> projected = codec::DecodeSchema(m.projected_schema());
  if (!projected.ok()) return exec::DecodeError(in, projected.status());
  if (!(*projected)->Equals(*scan->projected_schema()->columns())) {
    return in.Corrupt(fmt::format("table {}: the projected field ids select {}, the plan has {}",
                                  name, scan->projected_schema()->columns()->ToString(),
                                  (*projected)->ToString()));
  }
  std::vector<iceberg::DataFilePtr> files;
  files.reserve(static_cast<size_t>(m.files_size()));
  for (const pb::IcebergDataFile& f : m.files()) {
    Result<iceberg::DataFilePtr> file = codec::DecodeDataFile(f);
    if (!file.ok()) return exec::DecodeError(in, file.status());
    files.push_back(std::move(*file));
  }
  for (const pb::IcebergScanTaskGroup& g : m.groups()) {
    iceberg::ScanTaskGroup group;
    for (const pb::IcebergScanTask& t : g.tasks()) {
      FLOE_ASSIGN_OR_RAISE(iceberg::FileScanTask task,
                           DecodeTask(in, t, files, *metadata, *scan->schema()));
      group.tasks.push_back(std::move(task));
    }
    group.total_bytes = g.total_bytes();
    group.estimated_row_count = g.estimated_row_count();
    parts.groups.push_back(std::move(group));
  }
  const int columns = scan->projected_schema()->num_fields();
  for (int32_t c : m.projection()) {
    if (c < 0 || c >= columns) {
      return in.Corrupt(fmt::format("projected column {} of {}", c, columns));
    }
    parts.projection.push_back(c);
  }
  FLOE_ASSIGN_OR_RAISE(parts.filters,
                       exec::DecodeNodeFilters(in, m.filters(), scan->schema()->columns()));
  FLOE_ASSIGN_OR_RAISE(parts.limit, exec::DecodeNodeLimit(in, m.has_limit(), m.limit()));
  parts.scan = std::move(scan);
  Result<exec::PlanPtr> plan = Make(std::move(parts));
  if (!plan.ok()) return exec::DecodeError(in, plan.status());
  return plan;
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
