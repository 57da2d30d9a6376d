#include "floe/iceberg/metadata_update.h"

#include <algorithm>

#include "floe/iceberg/snapshot_producer.h"

namespace floe::iceberg {

namespace {

std::vector<TableRequirement> WithUuid(const TableMetadata& base,
                                       std::vector<TableRequirement> requirements) {
  if (!base.table_uuid.empty()) {
    requirements.insert(requirements.begin(), TableRequirement::AssertTableUuid(base.table_uuid));
  }
  return requirements;
}

/// Runs `attempt` against fresh metadata with the table's retry settings.
Result<Table> CommitWithRetries(const TableOperationsPtr& ops,
                                const std::function<Result<Table>(const Table&)>& attempt) {
  FLOE_ASSIGN_OR_RAISE(Table current, ops->Refresh());
  FLOE_ASSIGN_OR_RAISE(CommitRetryOptions retry,
                       CommitRetryOptions::FromProperties(current.metadata->properties));
  return RunWithRetries(retry, [&](int) -> Result<Table> {
    FLOE_ASSIGN_OR_RAISE(Table table, ops->Refresh());
    return attempt(table);
  });
}

/// Time transforms on one source overlap (a day field makes a month field redundant).
bool IsTimeTransform(const Transform& t) {
  return t.kind() == TransformKind::kYear || t.kind() == TransformKind::kMonth ||
         t.kind() == TransformKind::kDay || t.kind() == TransformKind::kHour;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// UpdatePartitionSpec
// ---------------------------------------------------------------------------------------

UpdatePartitionSpec::UpdatePartitionSpec(TableOperationsPtr ops) : ops_(std::move(ops)) {}

std::unique_ptr<UpdatePartitionSpec> UpdatePartitionSpec::Make(TableOperationsPtr ops) {
  return std::unique_ptr<UpdatePartitionSpec>(new UpdatePartitionSpec(std::move(ops)));
}

UpdatePartitionSpec& UpdatePartitionSpec::CaseSensitive(bool case_sensitive) {
  case_sensitive_ = case_sensitive;
  return *this;
}

UpdatePartitionSpec& UpdatePartitionSpec::AddField(std::string source_name, Transform transform,
                                                   std::string name) {
  changes_.push_back(
      Change{Change::Kind::kAdd, std::move(name), std::move(source_name), std::move(transform)});
  return *this;
}

UpdatePartitionSpec& UpdatePartitionSpec::RemoveField(std::string name) {
  changes_.push_back(Change{Change::Kind::kRemove, std::move(name), "", Transform::Identity()});
  return *this;
}

UpdatePartitionSpec& UpdatePartitionSpec::RenameField(std::string name, std::string new_name) {
  changes_.push_back(
      Change{Change::Kind::kRename, std::move(name), std::move(new_name), Transform::Identity()});
  return *this;
}

Result<std::pair<PartitionSpecPtr, int32_t>> UpdatePartitionSpec::Apply(
    const TableMetadata& base) const {
  SchemaPtr schema = base.CurrentSchema();
  PartitionSpecPtr current = base.DefaultSpec();
  if (schema == nullptr || current == nullptr) {
    return Status::Corrupt("table {} has no current schema or default spec", ops_->name());
  }
  const bool v1 = base.format_version < 2;
  int32_t last_id = base.last_partition_id;
  for (const auto& spec : base.partition_specs) {
    last_id = std::max(last_id, spec->last_assigned_field_id());
  }
  std::vector<PartitionField> fields = current->fields();
  auto find_by_name = [&](const std::string& name) -> PartitionField* {
    for (auto& f : fields) {
      if (f.name == name) return &f;
    }
    return nullptr;
  };
  std::vector<int32_t> removed_ids;
  for (const Change& c : changes_) {
    switch (c.kind) {
      case Change::Kind::kAdd: {
        FLOE_ASSIGN_OR_RAISE(const Field* source,
                             schema->FindFieldByName(c.other, case_sensitive_));
        if (source == nullptr) {
          return Status::Invalid("table {}: cannot partition by '{}': no such column", ops_->name(),
                                 c.other);
        }
        if (!c.transform.CanTransform(*source->type())) {
          return Status::Invalid(
              "table {}: cannot partition by {}: the transform does not apply "
              "to {}",
              ops_->name(), c.transform.ToExpressionString(c.other), source->type()->ToString());
        }
        std::string full = *schema->FindColumnName(source->field_id());
        std::string name = c.name.empty() ? DefaultPartitionFieldName(c.transform, full,
                                                                      PartitionNaming::kEvolution)
                                          : c.name;
        for (const auto& f : fields) {
          bool same_source = f.source_id == source->field_id();
          if (same_source && f.transform.kind() != TransformKind::kVoid &&
              (f.transform == c.transform ||
               (IsTimeTransform(f.transform) && IsTimeTransform(c.transform)))) {
            return Status::Invalid(
                "table {}: cannot add partition field {}: it duplicates or "
                "overlaps field '{}'",
                ops_->name(), c.transform.ToExpressionString(full), f.name);
          }
          if (f.name == name) {
            return Status::Invalid("table {}: cannot add partition field '{}': the name is taken",
                                   ops_->name(), name);
          }
        }
        // A partition name may equal a column name only for an identity field on it.
        FLOE_ASSIGN_OR_RAISE(const Field* clash, schema->FindFieldByName(name, true));
        if (clash != nullptr && !(c.transform.kind() == TransformKind::kIdentity &&
                                  clash->field_id() == source->field_id())) {
          return Status::Invalid(
              "table {}: cannot add partition field '{}': it conflicts with a column name",
              ops_->name(), name);
        }
        int32_t id = 0;
        if (!v1) {
          // Reuse the id a previous spec gave the same (source, transform).
          for (const auto& spec : base.partition_specs) {
            for (const auto& f : spec->fields()) {
              if (f.source_id == source->field_id() && f.transform == c.transform) id = f.field_id;
            }
          }
        }
        if (id == 0) id = ++last_id;
        fields.push_back(PartitionField{source->field_id(), id, name, c.transform});
        break;
      }
      case Change::Kind::kRemove: {
        PartitionField* f = find_by_name(c.name);
        if (f == nullptr || (v1 && f->transform.kind() == TransformKind::kVoid)) {
          return Status::Invalid("table {}: cannot remove partition field '{}': no such field",
                                 ops_->name(), c.name);
        }
        if (v1) {
          f->transform = Transform::Void();
        } else {
          fields.erase(fields.begin() + (f - fields.data()));
        }
        break;
      }
      case Change::Kind::kRename: {
        PartitionField* f = find_by_name(c.name);
        if (f == nullptr) {
          return Status::Invalid("table {}: cannot rename partition field '{}': no such field",
                                 ops_->name(), c.name);
        }
        if (c.other.empty() || find_by_name(c.other) != nullptr) {
          return Status::Invalid(
              "table {}: cannot rename partition field '{}' to '{}': the name "
              "is empty or taken",
              ops_->name(), c.name, c.other);
        }
        f->name = c.other;
        break;
      }
    }
  }
  int32_t new_id = 0;
  for (const auto& spec : base.partition_specs) new_id = std::max(new_id, spec->spec_id() + 1);
  auto spec = PartitionSpec::Make(*schema, new_id, std::move(fields), true);
  if (!spec.has_value()) {
    return spec.error().WithPrefix(fmt::format("table {}: invalid partition spec: ", ops_->name()));
  }
  return std::make_pair(*spec, last_id);
}

Result<Table> UpdatePartitionSpec::Commit() {
  return CommitWithRetries(ops_, [&](const Table& table) -> Result<Table> {
    const TableMetadata& base = *table.metadata;
    FLOE_ASSIGN_OR_RAISE(auto applied, Apply(base));
    if (applied.first->CompatibleWith(*base.DefaultSpec())) return table;
    return ops_->Commit(
        WithUuid(base, {TableRequirement::AssertDefaultSpecId(base.default_spec_id),
                        TableRequirement::AssertLastAssignedPartitionId(base.last_partition_id)}),
        {update::AddSpec{applied.first}, update::SetDefaultSpec{-1}});
  });
}

// ---------------------------------------------------------------------------------------
// ReplaceSortOrder
// ---------------------------------------------------------------------------------------

ReplaceSortOrder::ReplaceSortOrder(TableOperationsPtr ops) : ops_(std::move(ops)) {}

std::unique_ptr<ReplaceSortOrder> ReplaceSortOrder::Make(TableOperationsPtr ops) {
  return std::unique_ptr<ReplaceSortOrder>(new ReplaceSortOrder(std::move(ops)));
}

ReplaceSortOrder& ReplaceSortOrder::CaseSensitive(bool case_sensitive) {
  case_sensitive_ = case_sensitive;
  return *this;
}

ReplaceSortOrder& ReplaceSortOrder::Asc(std::string name, NullOrder null_order,
                                        Transform transform) {
  keys_.push_back(Key{std::move(name), std::move(transform), SortDirection::kAsc, null_order});
  return *this;
}

ReplaceSortOrder& ReplaceSortOrder::Desc(std::string name, NullOrder null_order,
                                         Transform transform) {
  keys_.push_back(Key{std::move(name), std::move(transform), SortDirection::kDesc, null_order});
  return *this;
}

Result<SortOrderPtr> ReplaceSortOrder::Apply(const TableMetadata& base) const {
  SchemaPtr schema = base.CurrentSchema();
  if (schema == nullptr) return Status::Corrupt("table {} has no current schema", ops_->name());
  if (keys_.empty()) return SortOrder::Unsorted();
  std::vector<SortField> fields;
  for (const Key& k : keys_) {
    FLOE_ASSIGN_OR_RAISE(const Field* source, schema->FindFieldByName(k.name, case_sensitive_));
    if (source == nullptr) {
      return Status::Invalid("table {}: cannot sort by '{}': no such column", ops_->name(), k.name);
    }
    fields.push_back(SortField{source->field_id(), k.transform, k.direction, k.null_order});
  }
  int32_t new_id = 1;
  for (const auto& o : base.sort_orders) new_id = std::max(new_id, o->order_id() + 1);
  auto order = SortOrder::Make(*schema, new_id, std::move(fields));
  if (!order.has_value()) {
    return order.error().WithPrefix(fmt::format("table {}: invalid sort order: ", ops_->name()));
  }
  return *order;
}

Result<Table> ReplaceSortOrder::Commit() {
  return CommitWithRetries(ops_, [&](const Table& table) -> Result<Table> {
    const TableMetadata& base = *table.metadata;
    FLOE_ASSIGN_OR_RAISE(SortOrderPtr order, Apply(base));
    return ops_->Commit(
        WithUuid(base, {TableRequirement::AssertCurrentSchemaId(base.current_schema_id)}),
        {update::AddSortOrder{order}, update::SetDefaultSortOrder{-1}});
  });
}

// ---------------------------------------------------------------------------------------
// UpdateProperties
// ---------------------------------------------------------------------------------------

UpdateProperties::UpdateProperties(TableOperationsPtr ops) : ops_(std::move(ops)) {}

std::unique_ptr<UpdateProperties> UpdateProperties::Make(TableOperationsPtr ops) {
  return std::unique_ptr<UpdateProperties>(new UpdateProperties(std::move(ops)));
}

UpdateProperties& UpdateProperties::Set(std::string key, std::string value) {
  updates_[std::move(key)] = std::move(value);
  return *this;
}

UpdateProperties& UpdateProperties::Remove(std::string key) {
  removals_.insert(std::move(key));
  return *this;
}

Result<Table> UpgradeFormatVersion(TableOperationsPtr ops, int format_version) {
  return CommitWithRetries(ops, [&](const Table& table) -> Result<Table> {
    if (table.metadata->format_version == format_version) return table;
    return ops->Commit(WithUuid(*table.metadata, {}),
                       {update::UpgradeFormatVersion{format_version}});
  });
}

Result<Table> UpdateProperties::Commit() {
  for (const auto& key : removals_) {
    if (updates_.count(key) > 0) {
      return Status::Invalid("table {}: property '{}' is both set and removed", ops_->name(), key);
    }
  }
  if (updates_.count("format-version") > 0 || removals_.count("format-version") > 0) {
    return Status::Invalid(
        "table {}: format-version is not a table property; upgrade the format "
        "version instead",
        ops_->name());
  }
  return CommitWithRetries(ops_, [&](const Table& table) -> Result<Table> {
    std::vector<TableUpdate> updates;
    if (!updates_.empty()) updates.push_back(update::SetProperties{updates_});
    if (!removals_.empty()) updates.push_back(update::RemoveProperties{removals_});
    if (updates.empty()) return table;
    return ops_->Commit(WithUuid(*table.metadata, {}), updates);
  });
}

// ---------------------------------------------------------------------------------------
// ManageSnapshots
// ---------------------------------------------------------------------------------------

ManageSnapshots::ManageSnapshots(TableOperationsPtr ops) : ops_(std::move(ops)) {}

std::unique_ptr<ManageSnapshots> ManageSnapshots::Make(TableOperationsPtr ops) {
  return std::unique_ptr<ManageSnapshots>(new ManageSnapshots(std::move(ops)));
}

ManageSnapshots& ManageSnapshots::CreateBranch(std::string name,
                                               std::optional<int64_t> snapshot_id) {
  changes_.push_back(Change{Change::Kind::kCreateBranch, std::move(name), "", snapshot_id});
  return *this;
}
ManageSnapshots& ManageSnapshots::CreateTag(std::string name, int64_t snapshot_id) {
  changes_.push_back(Change{Change::Kind::kCreateTag, std::move(name), "", snapshot_id});
  return *this;
}
ManageSnapshots& ManageSnapshots::RemoveBranch(std::string name) {
  changes_.push_back(Change{Change::Kind::kRemoveBranch, std::move(name), "", std::nullopt});
  return *this;
}
ManageSnapshots& ManageSnapshots::RemoveTag(std::string name) {
  changes_.push_back(Change{Change::Kind::kRemoveTag, std::move(name), "", std::nullopt});
  return *this;
}
ManageSnapshots& ManageSnapshots::RenameBranch(std::string name, std::string new_name) {
  changes_.push_back(
      Change{Change::Kind::kRenameBranch, std::move(name), std::move(new_name), std::nullopt});
  return *this;
}
ManageSnapshots& ManageSnapshots::ReplaceBranch(std::string name, int64_t snapshot_id) {
  changes_.push_back(Change{Change::Kind::kReplaceBranch, std::move(name), "", snapshot_id});
  return *this;
}
ManageSnapshots& ManageSnapshots::ReplaceTag(std::string name, int64_t snapshot_id) {
  changes_.push_back(Change{Change::Kind::kReplaceTag, std::move(name), "", snapshot_id});
  return *this;
}
ManageSnapshots& ManageSnapshots::FastForwardBranch(std::string name, std::string to) {
  changes_.push_back(
      Change{Change::Kind::kFastForward, std::move(name), std::move(to), std::nullopt});
  return *this;
}
ManageSnapshots& ManageSnapshots::SetCurrentSnapshot(int64_t snapshot_id) {
  changes_.push_back(Change{Change::Kind::kSetCurrent, std::string(kMainBranch), "", snapshot_id});
  return *this;
}
ManageSnapshots& ManageSnapshots::RollbackTo(int64_t snapshot_id) {
  changes_.push_back(Change{Change::Kind::kRollback, std::string(kMainBranch), "", snapshot_id});
  return *this;
}
ManageSnapshots& ManageSnapshots::SetMinSnapshotsToKeep(std::string branch, int32_t count) {
  changes_.push_back(Change{Change::Kind::kMinSnapshots, std::move(branch), "", count});
  return *this;
}
ManageSnapshots& ManageSnapshots::SetMaxSnapshotAgeMs(std::string branch, int64_t age_ms) {
  changes_.push_back(Change{Change::Kind::kMaxSnapshotAge, std::move(branch), "", age_ms});
  return *this;
}
ManageSnapshots& ManageSnapshots::SetMaxRefAgeMs(std::string ref, int64_t age_ms) {
  changes_.push_back(Change{Change::Kind::kMaxRefAge, std::move(ref), "", age_ms});
  return *this;
}

Result<std::map<std::string, SnapshotRef>> ManageSnapshots::Apply(const TableMetadata& base) const {
  std::map<std::string, SnapshotRef> refs = base.refs;
  const std::string table = ops_->name();
  auto need_snapshot = [&](int64_t id) -> Status {
    if (base.SnapshotById(id) == nullptr) {
      return Status::NotFound("table {}: snapshot {} does not exist", table, id);
    }
    return Status::OK();
  };
  auto need_ref = [&](const std::string& name, bool branch) -> Result<SnapshotRef*> {
    auto it = refs.find(name);
    if (it == refs.end() || it->second.is_branch() != branch) {
      return Status::NotFound("table {}: {} '{}' does not exist", table, branch ? "branch" : "tag",
                              name);
    }
    return &it->second;
  };
  auto need_new = [&](const std::string& name) -> Status {
    if (name.empty()) return Status::Invalid("table {}: a ref needs a name", table);
    if (refs.count(name) > 0) {
      return Status::Invalid("table {}: ref '{}' already exists", table, name);
    }
    return Status::OK();
  };
  for (const Change& c : changes_) {
    switch (c.kind) {
      case Change::Kind::kCreateBranch:
      case Change::Kind::kCreateTag: {
        FLOE_RETURN_NOT_OK(need_new(c.name));
        std::optional<int64_t> id = c.value;
        if (!id) {
          if (!base.current_snapshot_id) {
            return Status::Invalid(
                "table {}: cannot create branch '{}': the table has no "
                "current snapshot",
                table, c.name);
          }
          id = base.current_snapshot_id;
        }
        FLOE_RETURN_NOT_OK(need_snapshot(*id));
        SnapshotRef ref;
        ref.snapshot_id = *id;
        ref.type = c.kind == Change::Kind::kCreateTag ? SnapshotRef::Type::kTag
                                                      : SnapshotRef::Type::kBranch;
        refs[c.name] = ref;
        break;
      }
      case Change::Kind::kRemoveBranch:
      case Change::Kind::kRemoveTag: {
        bool branch = c.kind == Change::Kind::kRemoveBranch;
        if (branch && c.name == kMainBranch) {
          return Status::Invalid("table {}: cannot remove the main branch", table);
        }
        FLOE_RETURN_NOT_OK(need_ref(c.name, branch).status());
        refs.erase(c.name);
        break;
      }
      case Change::Kind::kRenameBranch: {
        if (c.name == kMainBranch) {
          return Status::Invalid("table {}: cannot rename the main branch", table);
        }
        FLOE_ASSIGN_OR_RAISE(SnapshotRef * ref, need_ref(c.name, true));
        FLOE_RETURN_NOT_OK(need_new(c.other));
        SnapshotRef copy = *ref;
        refs.erase(c.name);
        refs[c.other] = copy;
        break;
      }
      case Change::Kind::kReplaceBranch:
      case Change::Kind::kReplaceTag: {
        FLOE_ASSIGN_OR_RAISE(SnapshotRef * ref,
                             need_ref(c.name, c.kind == Change::Kind::kReplaceBranch));
        FLOE_RETURN_NOT_OK(need_snapshot(*c.value));
        ref->snapshot_id = *c.value;
        break;
      }
      case Change::Kind::kFastForward: {
        FLOE_ASSIGN_OR_RAISE(SnapshotRef * ref, need_ref(c.name, true));
        auto to = refs.find(c.other);
        if (to == refs.end()) {
          return Status::NotFound("table {}: ref '{}' does not exist", table, c.other);
        }
        int64_t target = to->second.snapshot_id;
        auto ancestors = base.Ancestors(target);
        if (std::find(ancestors.begin(), ancestors.end(), ref->snapshot_id) == ancestors.end()) {
          return Status::Invalid(
              "table {}: cannot fast-forward '{}' to '{}': snapshot {} is not "
              "an ancestor of snapshot {}",
              table, c.name, c.other, ref->snapshot_id, target);
        }
        ref->snapshot_id = target;
        break;
      }
      case Change::Kind::kSetCurrent:
      case Change::Kind::kRollback: {
        FLOE_RETURN_NOT_OK(need_snapshot(*c.value));
        auto it = refs.find(std::string(kMainBranch));
        if (c.kind == Change::Kind::kRollback) {
          std::vector<int64_t> ancestors;
          if (it != refs.end()) ancestors = base.Ancestors(it->second.snapshot_id);
          if (std::find(ancestors.begin(), ancestors.end(), *c.value) == ancestors.end()) {
            return Status::Invalid(
                "table {}: cannot roll back to snapshot {}: it is not an "
                "ancestor of the current snapshot",
                table, *c.value);
          }
        }
        if (it == refs.end()) {
          SnapshotRef ref;
          ref.snapshot_id = *c.value;
          refs[std::string(kMainBranch)] = ref;
        } else {
          it->second.snapshot_id = *c.value;
        }
        break;
      }
      case Change::Kind::kMinSnapshots:
      case Change::Kind::kMaxSnapshotAge: {
        FLOE_ASSIGN_OR_RAISE(SnapshotRef * ref, need_ref(c.name, true));
        if (*c.value <= 0) {
          return Status::Invalid("table {}: retention of branch '{}' must be positive, got {}",
                                 table, c.name, *c.value);
        }
        if (c.kind == Change::Kind::kMinSnapshots) {
          ref->min_snapshots_to_keep = static_cast<int32_t>(*c.value);
        } else {
          ref->max_snapshot_age_ms = *c.value;
        }
        break;
      }
      case Change::Kind::kMaxRefAge: {
        auto it = refs.find(c.name);
        if (it == refs.end()) {
          return Status::NotFound("table {}: ref '{}' does not exist", table, c.name);
        }
        if (*c.value <= 0) {
          return Status::Invalid("table {}: max-ref-age-ms of '{}' must be positive, got {}", table,
                                 c.name, *c.value);
        }
        it->second.max_ref_age_ms = *c.value;
        break;
      }
    }
  }
  return refs;
}

Result<Table> ManageSnapshots::Commit() {
  return CommitWithRetries(ops_, [&](const Table& table) -> Result<Table> {
    const TableMetadata& base = *table.metadata;
    FLOE_ASSIGN_OR_RAISE(auto refs, Apply(base));
    std::vector<TableRequirement> requirements;
    std::vector<TableUpdate> updates;
    for (const auto& [name, ref] : base.refs) {
      if (refs.count(name) == 0) {
        requirements.push_back(TableRequirement::AssertRefSnapshotId(name, ref.snapshot_id));
        updates.push_back(update::RemoveSnapshotRef{name});
      }
    }
    for (const auto& [name, ref] : refs) {
      auto it = base.refs.find(name);
      if (it != base.refs.end() && it->second == ref) continue;
      requirements.push_back(TableRequirement::AssertRefSnapshotId(
          name,
          it == base.refs.end() ? std::nullopt : std::optional<int64_t>(it->second.snapshot_id)));
      updates.push_back(update::SetSnapshotRef{name, ref});
    }
    if (updates.empty()) return table;
    return ops_->Commit(WithUuid(base, std::move(requirements)), updates);
  });
}

}  // namespace floe::iceberg
