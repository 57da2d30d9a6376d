// Commit vocabulary (REST catalog spec, "CommitTableRequest"): requirement checks, applying
// metadata updates, and the metadata of new tables.

#include "floe/iceberg/table_update.h"

#include <algorithm>
#include <random>
#include <set>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>

#include "floe/iceberg/table_update_internal.h"

namespace floe::iceberg {

using internal::kMaxWrittenFormatVersion;
using internal::MakeIdRequirement;
using internal::Overloaded;

// ---------------------------------------------------------------------------------------
// Requirements
// ---------------------------------------------------------------------------------------

namespace {

using RK = TableRequirement::Kind;

TableRequirement MakeRequirement(RK kind) {
  TableRequirement r;
  r.kind = kind;
  return r;
}

std::string SnapshotText(std::optional<int64_t> id) {
  return id ? fmt::format("snapshot {}", *id) : std::string("no snapshot");
}

}  // namespace

namespace internal {

TableRequirement MakeIdRequirement(RK kind, int32_t id) {
  TableRequirement r = MakeRequirement(kind);
  r.id = id;
  return r;
}

}  // namespace internal

TableRequirement TableRequirement::AssertCreate() { return MakeRequirement(RK::kAssertCreate); }
TableRequirement TableRequirement::AssertTableUuid(std::string uuid) {
  TableRequirement r = MakeRequirement(RK::kAssertTableUuid);
  r.uuid = std::move(uuid);
  return r;
}
TableRequirement TableRequirement::AssertRefSnapshotId(std::string ref,
                                                       std::optional<int64_t> snapshot_id) {
  TableRequirement r = MakeRequirement(RK::kAssertRefSnapshotId);
  r.ref = std::move(ref);
  r.snapshot_id = snapshot_id;
  return r;
}
TableRequirement TableRequirement::AssertLastAssignedFieldId(int32_t id) {
  return MakeIdRequirement(RK::kAssertLastAssignedFieldId, id);
}
TableRequirement TableRequirement::AssertCurrentSchemaId(int32_t id) {
  return MakeIdRequirement(RK::kAssertCurrentSchemaId, id);
}
TableRequirement TableRequirement::AssertLastAssignedPartitionId(int32_t id) {
  return MakeIdRequirement(RK::kAssertLastAssignedPartitionId, id);
}
TableRequirement TableRequirement::AssertDefaultSpecId(int32_t id) {
  return MakeIdRequirement(RK::kAssertDefaultSpecId, id);
}
TableRequirement TableRequirement::AssertDefaultSortOrderId(int32_t id) {
  return MakeIdRequirement(RK::kAssertDefaultSortOrderId, id);
}

std::string_view TableRequirement::type_name() const {
  switch (kind) {
    case RK::kAssertCreate:
      return "assert-create";
    case RK::kAssertTableUuid:
      return "assert-table-uuid";
    case RK::kAssertRefSnapshotId:
      return "assert-ref-snapshot-id";
    case RK::kAssertLastAssignedFieldId:
      return "assert-last-assigned-field-id";
    case RK::kAssertCurrentSchemaId:
      return "assert-current-schema-id";
    case RK::kAssertLastAssignedPartitionId:
      return "assert-last-assigned-partition-id";
    case RK::kAssertDefaultSpecId:
      return "assert-default-spec-id";
    case RK::kAssertDefaultSortOrderId:
      return "assert-default-sort-order-id";
  }
  return "unknown";
}

namespace {

Status CheckOne(const TableMetadata* md, const TableRequirement& r) {
  auto conflict = [&](std::string what) {
    return Status::CommitConflict("requirement {} failed: {}", r.type_name(), what);
  };
  if (r.kind == RK::kAssertCreate) {
    if (md != nullptr) return conflict("the table already exists");
    return Status::OK();
  }
  if (md == nullptr) return conflict("the table does not exist");
  auto check_id = [&](std::string_view name, int32_t found) -> Status {
    if (found == r.id) return Status::OK();
    return conflict(fmt::format("{} is {}, expected {}", name, found, r.id));
  };
  switch (r.kind) {
    case RK::kAssertCreate:
      break;
    case RK::kAssertTableUuid:
      if (md->table_uuid != r.uuid) {
        return conflict(fmt::format("table uuid is {}, expected {}", md->table_uuid, r.uuid));
      }
      break;
    case RK::kAssertRefSnapshotId: {
      auto it = md->refs.find(r.ref);
      std::optional<int64_t> found;
      if (it != md->refs.end()) found = it->second.snapshot_id;
      if (found != r.snapshot_id) {
        return conflict(fmt::format("ref {} is at {}, expected {}", r.ref, SnapshotText(found),
                                    SnapshotText(r.snapshot_id)));
      }
      break;
    }
    case RK::kAssertLastAssignedFieldId:
      return check_id("last-column-id", md->last_column_id);
    case RK::kAssertCurrentSchemaId:
      return check_id("current-schema-id", md->current_schema_id);
    case RK::kAssertLastAssignedPartitionId:
      return check_id("last-partition-id", md->last_partition_id);
    case RK::kAssertDefaultSpecId:
      return check_id("default-spec-id", md->default_spec_id);
    case RK::kAssertDefaultSortOrderId:
      return check_id("default-sort-order-id", md->default_sort_order_id);
  }
  return Status::OK();
}

}  // namespace

Status CheckRequirements(const TableMetadata* current,
                         const std::vector<TableRequirement>& requirements) {
  for (const TableRequirement& r : requirements) FLOE_RETURN_NOT_OK(CheckOne(current, r));
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Updates
// ---------------------------------------------------------------------------------------

namespace {

constexpr int64_t kDefaultPreviousVersionsMax = 100;

bool SameScalar(const Scalar& a, const Scalar& b) {
  return a.type()->Equals(*b.type()) && a.value() == b.value();
}

bool SameSchemaContent(const Schema& a, const Schema& b) {
  if (a.num_fields() != b.num_fields()) return false;
  for (int i = 0; i < a.num_fields(); ++i) {
    if (!a.fields()[static_cast<size_t>(i)].Equals(b.fields()[static_cast<size_t>(i)])) {
      return false;
    }
  }
  if (a.identifier_field_ids() != b.identifier_field_ids()) return false;
  if (a.defaults().size() != b.defaults().size()) return false;
  for (const auto& [id, d] : a.defaults()) {
    const FieldDefaults* other = b.FindDefaults(id);
    if (other == nullptr) return false;
    if (d.initial_default.has_value() != other->initial_default.has_value() ||
        d.write_default.has_value() != other->write_default.has_value()) {
      return false;
    }
    if (d.initial_default && !SameScalar(*d.initial_default, *other->initial_default)) {
      return false;
    }
    if (d.write_default && !SameScalar(*d.write_default, *other->write_default)) return false;
  }
  return true;
}

Result<SchemaPtr> WithSchemaId(const Schema& schema, int32_t id) {
  return Schema::Make(id, schema.fields(), schema.identifier_field_ids(), schema.defaults());
}

// Applies updates to one mutable copy of the metadata, remembering what this commit added
// (for the "-1 means last added" convention and snapshot-log timestamps).
class UpdateApplier {
 public:
  UpdateApplier(TableMetadata md, int64_t now_ms) : md_(std::move(md)), now_ms_(now_ms) {}

  Status Apply(const TableUpdate& update) {
    Status st = std::visit([this](const auto& u) { return Do(u); }, update);
    if (!st.ok()) return st.WithPrefix(fmt::format("{}: ", UpdateActionName(update)));
    return st;
  }

  TableMetadata Take() && { return std::move(md_); }

 private:
  bool is_new_table() const { return md_.schemas.empty(); }

  // The schema that spec and sort-order sources refer to: the one added last in this
  // commit, else the current one.
  Result<SchemaPtr> SourceSchema() const {
    if (last_schema_id_) return md_.SchemaById(*last_schema_id_);
    SchemaPtr s = md_.CurrentSchema();
    if (s == nullptr) return Status::Invalid("the table has no schema yet");
    return s;
  }

  Status Do(const update::AssignUuid& u) {
    if (u.uuid.empty()) return Status::Invalid("the uuid is empty");
    if (!md_.table_uuid.empty() && md_.table_uuid != u.uuid) {
      return Status::Invalid("the table uuid is {}; it cannot change to {}", md_.table_uuid,
                             u.uuid);
    }
    md_.table_uuid = u.uuid;
    return Status::OK();
  }

  Status Do(const update::UpgradeFormatVersion& u) {
    if (u.format_version < 1 || u.format_version > kMaxWrittenFormatVersion) {
      return Status::NotSupported("format version {} cannot be written (1 to {} can)",
                                  u.format_version, kMaxWrittenFormatVersion);
    }
    if (!is_new_table() && u.format_version < md_.format_version) {
      return Status::Invalid("cannot downgrade format version {} to {}", md_.format_version,
                             u.format_version);
    }
    md_.format_version = u.format_version;
    // Row lineage starts at 0 (spec, "Row Lineage"): rows written before the upgrade get
    // their ids when a v3 manifest list first lists their manifests.
    if (md_.format_version >= 3 && !md_.next_row_id) md_.next_row_id = 0;
    return Status::OK();
  }

  Status Do(const update::AddSchema& u) {
    if (u.schema == nullptr) return Status::Invalid("no schema");
    int32_t last_column_id =
        u.last_column_id.value_or(std::max(md_.last_column_id, u.schema->highest_field_id()));
    if (last_column_id < md_.last_column_id) {
      return Status::Invalid("last-column-id {} is below the table's {}", last_column_id,
                             md_.last_column_id);
    }
    if (u.schema->highest_field_id() > last_column_id) {
      return Status::Invalid("the schema uses field id {} above last-column-id {}",
                             u.schema->highest_field_id(), last_column_id);
    }
    md_.last_column_id = last_column_id;
    for (const SchemaPtr& existing : md_.schemas) {
      if (SameSchemaContent(*existing, *u.schema)) {
        last_schema_id_ = existing->schema_id();
        return Status::OK();
      }
    }
    int32_t id = 0;
    for (const SchemaPtr& existing : md_.schemas) id = std::max(id, existing->schema_id() + 1);
    FLOE_ASSIGN_OR_RAISE(SchemaPtr schema, WithSchemaId(*u.schema, id));
    md_.schemas.push_back(std::move(schema));
    last_schema_id_ = id;
    return Status::OK();
  }

  Status Do(const update::SetCurrentSchema& u) {
    int32_t id = u.schema_id;
    if (id == -1) {
      if (!last_schema_id_) return Status::Invalid("no schema was added in this commit");
      id = *last_schema_id_;
    }
    if (md_.SchemaById(id) == nullptr) return Status::Invalid("no schema with id {}", id);
    md_.current_schema_id = id;
    return Status::OK();
  }

  Status Do(const update::AddSpec& u) {
    if (u.spec == nullptr) return Status::Invalid("no partition spec");
    for (const PartitionSpecPtr& existing : md_.partition_specs) {
      if (existing->CompatibleWith(*u.spec)) {
        last_spec_id_ = existing->spec_id();
        return Status::OK();
      }
    }
    FLOE_ASSIGN_OR_RAISE(SchemaPtr schema, SourceSchema());
    int32_t id = 0;
    for (const PartitionSpecPtr& existing : md_.partition_specs) {
      id = std::max(id, existing->spec_id() + 1);
    }
    FLOE_ASSIGN_OR_RAISE(PartitionSpecPtr spec,
                         PartitionSpec::Make(*schema, id, u.spec->fields(),
                                             /*allow_missing_sources=*/true));
    md_.last_partition_id = std::max(md_.last_partition_id, spec->last_assigned_field_id());
    md_.partition_specs.push_back(std::move(spec));
    last_spec_id_ = id;
    return Status::OK();
  }

  Status Do(const update::SetDefaultSpec& u) {
    int32_t id = u.spec_id;
    if (id == -1) {
      if (!last_spec_id_) return Status::Invalid("no spec was added in this commit");
      id = *last_spec_id_;
    }
    if (md_.SpecById(id) == nullptr) return Status::Invalid("no partition spec {}", id);
    md_.default_spec_id = id;
    return Status::OK();
  }

  Status Do(const update::AddSortOrder& u) {
    if (u.sort_order == nullptr) return Status::Invalid("no sort order");
    for (const SortOrderPtr& existing : md_.sort_orders) {
      if (existing->fields() == u.sort_order->fields()) {
        last_order_id_ = existing->order_id();
        return Status::OK();
      }
    }
    SortOrderPtr order;
    if (u.sort_order->is_unsorted()) {
      order = SortOrder::Unsorted();
    } else {
      FLOE_ASSIGN_OR_RAISE(SchemaPtr schema, SourceSchema());
      int32_t id = 1;
      for (const SortOrderPtr& existing : md_.sort_orders) {
        id = std::max(id, existing->order_id() + 1);
      }
      FLOE_ASSIGN_OR_RAISE(order, SortOrder::Make(*schema, id, u.sort_order->fields()));
    }
    last_order_id_ = order->order_id();
    md_.sort_orders.push_back(std::move(order));
    return Status::OK();
  }

  Status Do(const update::SetDefaultSortOrder& u) {
    int32_t id = u.sort_order_id;
    if (id == -1) {
      if (!last_order_id_) return Status::Invalid("no sort order was added in this commit");
      id = *last_order_id_;
    }
    if (md_.SortOrderById(id) == nullptr) return Status::Invalid("no sort order {}", id);
    md_.default_sort_order_id = id;
    return Status::OK();
  }

  Status Do(const update::AddSnapshot& u) {
    const Snapshot& s = u.snapshot;
    if (s.snapshot_id <= 0) {
      return Status::Invalid("snapshot id {} is not positive", s.snapshot_id);
    }
    if (md_.SnapshotById(s.snapshot_id) != nullptr) {
      return Status::Invalid("snapshot {} already exists", s.snapshot_id);
    }
    if (md_.format_version >= 2 && s.sequence_number <= md_.last_sequence_number &&
        s.parent_snapshot_id.has_value()) {
      return Status::Invalid(
          "snapshot {} has sequence number {}, not above the table's last sequence number {}",
          s.snapshot_id, s.sequence_number, md_.last_sequence_number);
    }
    if (md_.format_version >= 2 && s.sequence_number < md_.last_sequence_number) {
      return Status::Invalid(
          "snapshot {} has sequence number {}, below the table's last sequence number {}",
          s.snapshot_id, s.sequence_number, md_.last_sequence_number);
    }
    if (md_.format_version >= 2 && s.summary.count("operation") == 0) {
      return Status::Invalid("snapshot {} has no 'operation' in its summary", s.snapshot_id);
    }
    if (s.schema_id && md_.SchemaById(*s.schema_id) == nullptr) {
      return Status::Invalid("snapshot {} names schema {}, which does not exist", s.snapshot_id,
                             *s.schema_id);
    }
    if (md_.format_version >= 3 && s.first_row_id) {
      int64_t next = md_.next_row_id.value_or(0);
      if (*s.first_row_id < next) {
        return Status::Invalid("snapshot {} has first-row-id {} below next-row-id {}",
                               s.snapshot_id, *s.first_row_id, next);
      }
      md_.next_row_id = *s.first_row_id + s.added_rows.value_or(0);
    }
    md_.snapshots.push_back(s);
    md_.last_sequence_number = std::max(md_.last_sequence_number, s.sequence_number);
    added_snapshots_.insert(s.snapshot_id);
    return Status::OK();
  }

  Status Do(const update::SetSnapshotRef& u) {
    if (u.ref_name.empty()) return Status::Invalid("the ref name is empty");
    const Snapshot* s = md_.SnapshotById(u.ref.snapshot_id);
    if (s == nullptr) {
      return Status::Invalid("ref {} names snapshot {}, which does not exist", u.ref_name,
                             u.ref.snapshot_id);
    }
    if (u.ref_name == kMainBranch && !u.ref.is_branch()) {
      return Status::Invalid("'main' must be a branch");
    }
    auto it = md_.refs.find(u.ref_name);
    if (it != md_.refs.end() && it->second == u.ref) return Status::OK();
    md_.refs[u.ref_name] = u.ref;
    if (u.ref_name == kMainBranch) {
      md_.current_snapshot_id = u.ref.snapshot_id;
      int64_t ts = added_snapshots_.count(u.ref.snapshot_id) ? s->timestamp_ms : now_ms_;
      md_.snapshot_log.push_back({ts, u.ref.snapshot_id});
    }
    return Status::OK();
  }

  Status Do(const update::RemoveSnapshots& u) {
    std::set<int64_t> removed(u.snapshot_ids.begin(), u.snapshot_ids.end());
    std::erase_if(md_.snapshots,
                  [&](const Snapshot& s) { return removed.count(s.snapshot_id) != 0; });
    std::erase_if(md_.statistics,
                  [&](const StatisticsFile& s) { return removed.count(s.snapshot_id) != 0; });
    std::erase_if(md_.partition_statistics, [&](const PartitionStatisticsFile& s) {
      return removed.count(s.snapshot_id) != 0;
    });
    for (auto it = md_.refs.begin(); it != md_.refs.end();) {
      if (removed.count(it->second.snapshot_id)) {
        if (it->first == kMainBranch) md_.current_snapshot_id.reset();
        it = md_.refs.erase(it);
      } else {
        ++it;
      }
    }
    // The snapshot log must stay a valid history: entries before a removed snapshot are
    // dropped with it (the reference implementation's rule).
    std::vector<SnapshotLogEntry> log;
    for (const SnapshotLogEntry& e : md_.snapshot_log) {
      if (removed.count(e.snapshot_id) || md_.SnapshotById(e.snapshot_id) == nullptr) {
        log.clear();
      } else {
        log.push_back(e);
      }
    }
    md_.snapshot_log = std::move(log);
    return Status::OK();
  }

  Status Do(const update::RemoveSnapshotRef& u) {
    if (md_.refs.erase(u.ref_name) && u.ref_name == kMainBranch) {
      md_.current_snapshot_id.reset();
    }
    return Status::OK();
  }

  Status Do(const update::SetLocation& u) {
    if (u.location.empty()) return Status::Invalid("the location is empty");
    md_.location = u.location;
    while (md_.location.size() > 1 && md_.location.back() == '/') md_.location.pop_back();
    return Status::OK();
  }

  Status Do(const update::SetProperties& u) {
    for (const auto& [k, v] : u.updates) md_.properties[k] = v;
    return Status::OK();
  }

  Status Do(const update::RemoveProperties& u) {
    for (const std::string& k : u.removals) md_.properties.erase(k);
    return Status::OK();
  }

  Status Do(const update::SetStatistics& u) {
    if (md_.SnapshotById(u.statistics.snapshot_id) == nullptr) {
      return Status::Invalid("statistics for snapshot {}, which does not exist",
                             u.statistics.snapshot_id);
    }
    std::erase_if(md_.statistics, [&](const StatisticsFile& s) {
      return s.snapshot_id == u.statistics.snapshot_id;
    });
    md_.statistics.push_back(u.statistics);
    return Status::OK();
  }

  Status Do(const update::RemoveStatistics& u) {
    std::erase_if(md_.statistics,
                  [&](const StatisticsFile& s) { return s.snapshot_id == u.snapshot_id; });
    return Status::OK();
  }

  TableMetadata md_;
  int64_t now_ms_;
  std::optional<int32_t> last_schema_id_;
  std::optional<int32_t> last_spec_id_;
  std::optional<int32_t> last_order_id_;
  std::set<int64_t> added_snapshots_;
};

}  // namespace

std::string_view UpdateActionName(const TableUpdate& update) {
  return std::visit(
      Overloaded{[](const update::AssignUuid&) { return "assign-uuid"; },
                 [](const update::UpgradeFormatVersion&) { return "upgrade-format-version"; },
                 [](const update::AddSchema&) { return "add-schema"; },
                 [](const update::SetCurrentSchema&) { return "set-current-schema"; },
                 [](const update::AddSpec&) { return "add-spec"; },
                 [](const update::SetDefaultSpec&) { return "set-default-spec"; },
                 [](const update::AddSortOrder&) { return "add-sort-order"; },
                 [](const update::SetDefaultSortOrder&) { return "set-default-sort-order"; },
                 [](const update::AddSnapshot&) { return "add-snapshot"; },
                 [](const update::SetSnapshotRef&) { return "set-snapshot-ref"; },
                 [](const update::RemoveSnapshots&) { return "remove-snapshots"; },
                 [](const update::RemoveSnapshotRef&) { return "remove-snapshot-ref"; },
                 [](const update::SetLocation&) { return "set-location"; },
                 [](const update::SetProperties&) { return "set-properties"; },
                 [](const update::RemoveProperties&) { return "remove-properties"; },
                 [](const update::SetStatistics&) { return "set-statistics"; },
                 [](const update::RemoveStatistics&) { return "remove-statistics"; }},
      update);
}

Result<TableMetadataPtr> ApplyUpdates(const TableMetadata& base,
                                      const std::vector<TableUpdate>& updates, int64_t now_ms,
                                      const std::string& previous_metadata_location) {
  UpdateApplier applier(base, now_ms);
  for (const TableUpdate& u : updates) FLOE_RETURN_NOT_OK(applier.Apply(u));
  TableMetadata md = std::move(applier).Take();
  md.last_updated_ms = std::max(now_ms, base.last_updated_ms);
  if (!previous_metadata_location.empty()) {
    md.metadata_log.push_back({base.last_updated_ms, previous_metadata_location});
    int64_t keep = kDefaultPreviousVersionsMax;
    std::string max_text = md.Property("write.metadata.previous-versions-max");
    if (!max_text.empty()) {
      try {
        keep = std::max<int64_t>(1, std::stoll(max_text));
      } catch (const std::exception&) {
        return Status::Invalid(
            "table property write.metadata.previous-versions-max is '{}', not a number", max_text);
      }
    }
    if (static_cast<int64_t>(md.metadata_log.size()) > keep) {
      md.metadata_log.erase(md.metadata_log.begin(),
                            md.metadata_log.end() - static_cast<std::ptrdiff_t>(keep));
    }
  }
  if (md.location.empty()) return Status::Invalid("the table has no location");
  if (md.table_uuid.empty() && md.format_version >= 2) {
    return Status::Invalid("a v{} table needs a uuid", md.format_version);
  }
  Status st = md.Validate();
  if (!st.ok()) return Status::Invalid("the updated metadata is invalid: {}", st.message());
  return std::make_shared<const TableMetadata>(std::move(md));
}

// ---------------------------------------------------------------------------------------
// New tables
// ---------------------------------------------------------------------------------------

namespace {

Result<int32_t> MapSource(const std::map<int32_t, int32_t>& mapping, int32_t old_id,
                          std::string_view what) {
  auto it = mapping.find(old_id);
  if (it == mapping.end()) {
    return Status::Invalid("{} refers to field id {}, which is not in the schema", what, old_id);
  }
  return it->second;
}

}  // namespace

Result<TableMetadataPtr> NewTableMetadata(const NewTableOptions& options, int64_t now_ms) {
  if (options.schema == nullptr) return Status::Invalid("a new table needs a schema");
  if (options.location.empty()) return Status::Invalid("a new table needs a location");
  TableMetadata md;
  md.properties = options.properties;
  md.format_version = options.format_version;
  if (auto it = md.properties.find("format-version"); it != md.properties.end()) {
    const std::string& text = it->second;
    if (text.size() != 1 || text[0] < '1' || text[0] > '0' + kMaxWrittenFormatVersion) {
      return Status::Invalid("format-version '{}' cannot be written (1 to {} can)", text,
                             kMaxWrittenFormatVersion);
    }
    md.format_version = text[0] - '0';
    md.properties.erase(it);
  }
  if (md.format_version < 1 || md.format_version > kMaxWrittenFormatVersion) {
    return Status::Invalid("format version {} cannot be written (1 to {} can)", md.format_version,
                           kMaxWrittenFormatVersion);
  }
  // Row lineage starts at 0 (spec, "Row Lineage").
  if (md.format_version >= 3) md.next_row_id = 0;

  FreshFieldIds fresh;
  std::vector<Field> fields = fresh.Fields(options.schema->fields());
  const auto& mapping = fresh.mapping();
  std::vector<int32_t> identifiers;
  for (int32_t id : options.schema->identifier_field_ids()) {
    FLOE_ASSIGN_OR_RAISE(int32_t mapped, MapSource(mapping, id, "an identifier field"));
    identifiers.push_back(mapped);
  }
  std::map<int32_t, FieldDefaults> defaults;
  for (const auto& [id, d] : options.schema->defaults()) {
    FLOE_ASSIGN_OR_RAISE(int32_t mapped, MapSource(mapping, id, "a default"));
    defaults[mapped] = d;
  }
  FLOE_ASSIGN_OR_RAISE(SchemaPtr schema, Schema::Make(0, std::move(fields), std::move(identifiers),
                                                      std::move(defaults)));

  std::vector<PartitionField> spec_fields;
  if (options.spec != nullptr) {
    int32_t next_field_id = kPartitionFieldIdStart;
    for (const PartitionField& f : options.spec->fields()) {
      PartitionField out = f;
      FLOE_ASSIGN_OR_RAISE(out.source_id, MapSource(mapping, f.source_id,
                                                    fmt::format("partition field '{}'", f.name)));
      out.field_id = next_field_id++;
      spec_fields.push_back(std::move(out));
    }
  }
  FLOE_ASSIGN_OR_RAISE(PartitionSpecPtr spec, PartitionSpec::Make(*schema, 0, spec_fields));

  SortOrderPtr order = SortOrder::Unsorted();
  if (options.sort_order != nullptr && !options.sort_order->is_unsorted()) {
    std::vector<SortField> sort_fields;
    for (const SortField& f : options.sort_order->fields()) {
      SortField out = f;
      FLOE_ASSIGN_OR_RAISE(out.source_id, MapSource(mapping, f.source_id, "a sort field"));
      sort_fields.push_back(out);
    }
    FLOE_ASSIGN_OR_RAISE(order, SortOrder::Make(*schema, 1, std::move(sort_fields)));
  }

  md.table_uuid = NewUuid();
  md.location = options.location;
  while (md.location.size() > 1 && md.location.back() == '/') md.location.pop_back();
  md.last_sequence_number = 0;
  md.last_updated_ms = now_ms;
  md.last_column_id = fresh.last_id();
  md.schemas = {schema};
  md.current_schema_id = 0;
  md.last_partition_id = spec->last_assigned_field_id();
  md.partition_specs = {spec};
  md.default_spec_id = 0;
  md.sort_orders = {order};
  md.default_sort_order_id = order->order_id();
  FLOE_RETURN_NOT_OK(md.Validate());
  return std::make_shared<const TableMetadata>(std::move(md));
}

std::vector<TableUpdate> CreateTableUpdates(const TableMetadata& md) {
  std::vector<TableUpdate> out;
  out.push_back(update::AssignUuid{md.table_uuid});
  out.push_back(update::UpgradeFormatVersion{md.format_version});
  for (const SchemaPtr& s : md.schemas) out.push_back(update::AddSchema{s, md.last_column_id});
  out.push_back(update::SetCurrentSchema{md.current_schema_id});
  for (const PartitionSpecPtr& s : md.partition_specs) out.push_back(update::AddSpec{s});
  out.push_back(update::SetDefaultSpec{md.default_spec_id});
  for (const SortOrderPtr& o : md.sort_orders) out.push_back(update::AddSortOrder{o});
  out.push_back(update::SetDefaultSortOrder{md.default_sort_order_id});
  out.push_back(update::SetLocation{md.location});
  if (!md.properties.empty()) out.push_back(update::SetProperties{md.properties});
  return out;
}

std::string NewUuid() {
  // One generator per thread, reseeded in a forked child (which would otherwise repeat its
  // parent's sequence and so its file names and table UUIDs).
  struct Generator {
    pid_t pid = -1;
    std::mt19937_64 engine;
  };
  thread_local Generator gen;
  if (gen.pid != getpid()) {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device(), device(), device()};
    gen.engine.seed(seed);
    gen.pid = getpid();
  }
  std::mt19937_64& rng = gen.engine;
  uint64_t hi = rng();
  uint64_t lo = rng();
  hi = (hi & ~uint64_t{0xF000}) | uint64_t{0x4000};            // version 4
  lo = (lo & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);  // RFC 4122 variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                     hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFULL);
}

std::string MetadataFileName(int64_t version, bool gzip) {
  return fmt::format("{:05d}-{}{}", version, NewUuid(),
                     gzip ? ".gz.metadata.json" : ".metadata.json");
}

}  // namespace floe::iceberg
