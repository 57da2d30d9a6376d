// Commit vocabulary as JSON (REST catalog spec, "TableRequirement" and "TableUpdate").

#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/table_update.h"
#include "floe/iceberg/table_update_internal.h"
#include "floe/iceberg/type_json.h"

namespace floe::iceberg {

using internal::kMaxWrittenFormatVersion;
using internal::MakeIdRequirement;
using internal::Overloaded;
using nlohmann::json;

namespace {

using RK = TableRequirement::Kind;

}  // namespace

json TableRequirementToJson(const TableRequirement& r) {
  json out{{"type", r.type_name()}};
  switch (r.kind) {
    case RK::kAssertCreate:
      break;
    case RK::kAssertTableUuid:
      out["uuid"] = r.uuid;
      break;
    case RK::kAssertRefSnapshotId:
      out["ref"] = r.ref;
      out["snapshot-id"] = r.snapshot_id ? json(*r.snapshot_id) : json(nullptr);
      break;
    case RK::kAssertLastAssignedFieldId:
      out["last-assigned-field-id"] = r.id;
      break;
    case RK::kAssertCurrentSchemaId:
      out["current-schema-id"] = r.id;
      break;
    case RK::kAssertLastAssignedPartitionId:
      out["last-assigned-partition-id"] = r.id;
      break;
    case RK::kAssertDefaultSpecId:
      out["default-spec-id"] = r.id;
      break;
    case RK::kAssertDefaultSortOrderId:
      out["default-sort-order-id"] = r.id;
      break;
  }
  return out;
}

Result<TableRequirement> TableRequirementFromJson(const json& j) {
  constexpr std::string_view kContext = "table requirement";
  if (!j.is_object()) return Status::Invalid("a table requirement must be an object");
  FLOE_ASSIGN_OR_RAISE(std::string type, internal::GetString(j, "type", kContext));
  auto with_id = [&](RK kind, std::string_view key) -> Result<TableRequirement> {
    FLOE_ASSIGN_OR_RAISE(int32_t id, internal::GetInt32(j, key, kContext));
    return MakeIdRequirement(kind, id);
  };
  if (type == "assert-create") return TableRequirement::AssertCreate();
  if (type == "assert-table-uuid") {
    FLOE_ASSIGN_OR_RAISE(std::string uuid, internal::GetString(j, "uuid", kContext));
    return TableRequirement::AssertTableUuid(std::move(uuid));
  }
  if (type == "assert-ref-snapshot-id") {
    FLOE_ASSIGN_OR_RAISE(std::string ref, internal::GetString(j, "ref", kContext));
    FLOE_ASSIGN_OR_RAISE(auto id, internal::GetOptionalId(j, "snapshot-id", kContext));
    return TableRequirement::AssertRefSnapshotId(std::move(ref), id);
  }
  if (type == "assert-last-assigned-field-id") {
    return with_id(RK::kAssertLastAssignedFieldId, "last-assigned-field-id");
  }
  if (type == "assert-current-schema-id") {
    return with_id(RK::kAssertCurrentSchemaId, "current-schema-id");
  }
  if (type == "assert-last-assigned-partition-id") {
    return with_id(RK::kAssertLastAssignedPartitionId, "last-assigned-partition-id");
  }
  if (type == "assert-default-spec-id") return with_id(RK::kAssertDefaultSpecId, "default-spec-id");
  if (type == "assert-default-sort-order-id") {
    return with_id(RK::kAssertDefaultSortOrderId, "default-sort-order-id");
  }
  return Status::NotSupported("unknown table requirement type '{}'", type);
}

Result<json> TableUpdateToJson(const TableUpdate& u) {
  json out{{"action", UpdateActionName(u)}};
  Status st = std::visit(
      Overloaded{[&](const update::AssignUuid& v) {
                   out["uuid"] = v.uuid;
                   return Status::OK();
                 },
                 [&](const update::UpgradeFormatVersion& v) {
                   out["format-version"] = v.format_version;
                   return Status::OK();
                 },
                 [&](const update::AddSchema& v) -> Status {
                   if (v.schema == nullptr) return Status::Invalid("add-schema without a schema");
                   FLOE_ASSIGN_OR_RAISE(out["schema"], SchemaToJson(*v.schema));
                   if (v.last_column_id) out["last-column-id"] = *v.last_column_id;
                   return Status::OK();
                 },
                 [&](const update::SetCurrentSchema& v) {
                   out["schema-id"] = v.schema_id;
                   return Status::OK();
                 },
                 [&](const update::AddSpec& v) -> Status {
                   if (v.spec == nullptr) return Status::Invalid("add-spec without a spec");
                   out["spec"] = PartitionSpecToJson(*v.spec);
                   return Status::OK();
                 },
                 [&](const update::SetDefaultSpec& v) {
                   out["spec-id"] = v.spec_id;
                   return Status::OK();
                 },
                 [&](const update::AddSortOrder& v) -> Status {
                   if (v.sort_order == nullptr) {
                     return Status::Invalid("add-sort-order without a sort order");
                   }
                   out["sort-order"] = SortOrderToJson(*v.sort_order);
                   return Status::OK();
                 },
                 [&](const update::SetDefaultSortOrder& v) {
                   out["sort-order-id"] = v.sort_order_id;
                   return Status::OK();
                 },
                 [&](const update::AddSnapshot& v) {
                   out["snapshot"] = SnapshotToJson(v.snapshot, kMaxWrittenFormatVersion);
                   return Status::OK();
                 },
                 [&](const update::SetSnapshotRef& v) {
                   json ref = RefToJson(v.ref);
                   ref["ref-name"] = v.ref_name;
                   ref["action"] = out["action"];
                   out = std::move(ref);
                   return Status::OK();
                 },
                 [&](const update::RemoveSnapshots& v) {
                   out["snapshot-ids"] = v.snapshot_ids;
                   return Status::OK();
                 },
                 [&](const update::RemoveSnapshotRef& v) {
                   out["ref-name"] = v.ref_name;
                   return Status::OK();
                 },
                 [&](const update::SetLocation& v) {
                   out["location"] = v.location;
                   return Status::OK();
                 },
                 [&](const update::SetProperties& v) {
                   out["updates"] = v.updates;
                   return Status::OK();
                 },
                 [&](const update::RemoveProperties& v) {
                   out["removals"] = v.removals;
                   return Status::OK();
                 },
                 [&](const update::SetStatistics& v) {
                   out["snapshot-id"] = v.statistics.snapshot_id;
                   out["statistics"] = StatisticsToJson(v.statistics);
                   return Status::OK();
                 },
                 [&](const update::RemoveStatistics& v) {
                   out["snapshot-id"] = v.snapshot_id;
                   return Status::OK();
                 }},
      u);
  FLOE_RETURN_NOT_OK(st);
  return out;
}

Result<TableUpdate> TableUpdateFromJson(const json& j, const TableMetadata* current,
                                        const Schema* last_added_schema) {
  constexpr std::string_view kContext = "table update";
  if (!j.is_object()) return Status::Invalid("a table update must be an object");
  FLOE_ASSIGN_OR_RAISE(std::string action, internal::GetString(j, "action", kContext));
  std::string context = fmt::format("table update {}", action);
  auto source_schema = [&]() -> Result<const Schema*> {
    if (last_added_schema != nullptr) return last_added_schema;
    if (current != nullptr && current->CurrentSchema() != nullptr) {
      return current->CurrentSchema().get();
    }
    return Status::Invalid("{}: no schema to resolve sources against", context);
  };
  auto string_map = [&](std::string_view key) -> Result<std::map<std::string, std::string>> {
    FLOE_ASSIGN_OR_RAISE(const json* obj, internal::GetObject(j, key, context));
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : obj->items()) {
      if (!v.is_string()) return Status::Invalid("{}: '{}' values must be strings", context, key);
      out[k] = v.get<std::string>();
    }
    return out;
  };
  if (action == "assign-uuid") {
    FLOE_ASSIGN_OR_RAISE(std::string uuid, internal::GetString(j, "uuid", context));
    return update::AssignUuid{std::move(uuid)};
  }
  if (action == "upgrade-format-version") {
    FLOE_ASSIGN_OR_RAISE(int32_t v, internal::GetInt32(j, "format-version", context));
    return update::UpgradeFormatVersion{v};
  }
  if (action == "add-schema") {
    FLOE_ASSIGN_OR_RAISE(const json* s, internal::GetObject(j, "schema", context));
    FLOE_ASSIGN_OR_RAISE(SchemaPtr schema, SchemaFromJson(*s, context));
    update::AddSchema out{std::move(schema), std::nullopt};
    if (j.contains("last-column-id")) {
      FLOE_ASSIGN_OR_RAISE(int32_t last, internal::GetInt32(j, "last-column-id", context));
      out.last_column_id = last;
    }
    return out;
  }
  if (action == "set-current-schema") {
    FLOE_ASSIGN_OR_RAISE(int32_t id, internal::GetInt32(j, "schema-id", context));
    return update::SetCurrentSchema{id};
  }
  if (action == "add-spec") {
    FLOE_ASSIGN_OR_RAISE(const json* s, internal::GetObject(j, "spec", context));
    FLOE_ASSIGN_OR_RAISE(const Schema* schema, source_schema());
    FLOE_ASSIGN_OR_RAISE(PartitionSpecPtr spec, PartitionSpecFromJson(*s, *schema, context));
    return update::AddSpec{std::move(spec)};
  }
  if (action == "set-default-spec") {
    FLOE_ASSIGN_OR_RAISE(int32_t id, internal::GetInt32(j, "spec-id", context));
    return update::SetDefaultSpec{id};
  }
  if (action == "add-sort-order") {
    FLOE_ASSIGN_OR_RAISE(const json* s, internal::GetObject(j, "sort-order", context));
    FLOE_ASSIGN_OR_RAISE(const Schema* schema, source_schema());
    FLOE_ASSIGN_OR_RAISE(SortOrderPtr order, SortOrderFromJson(*s, *schema, context));
    return update::AddSortOrder{std::move(order)};
  }
  if (action == "set-default-sort-order") {
    FLOE_ASSIGN_OR_RAISE(int32_t id, internal::GetInt32(j, "sort-order-id", context));
    return update::SetDefaultSortOrder{id};
  }
  if (action == "add-snapshot") {
    FLOE_ASSIGN_OR_RAISE(const json* s, internal::GetObject(j, "snapshot", context));
    int version = current != nullptr ? current->format_version : kMaxWrittenFormatVersion;
    FLOE_ASSIGN_OR_RAISE(Snapshot snapshot, SnapshotFromJson(*s, version, context));
    return update::AddSnapshot{std::move(snapshot)};
  }
  if (action == "set-snapshot-ref") {
    FLOE_ASSIGN_OR_RAISE(std::string name, internal::GetString(j, "ref-name", context));
    FLOE_ASSIGN_OR_RAISE(SnapshotRef ref, RefFromJson(j, context));
    return update::SetSnapshotRef{std::move(name), ref};
  }
  if (action == "remove-snapshots") {
    FLOE_ASSIGN_OR_RAISE(const json* ids, internal::GetArray(j, "snapshot-ids", context));
    update::RemoveSnapshots out;
    for (const json& id : *ids) {
      FLOE_ASSIGN_OR_RAISE(int64_t v, internal::AsId(id, "snapshot-ids", context));
      out.snapshot_ids.push_back(v);
    }
    return out;
  }
  if (action == "remove-snapshot-ref") {
    FLOE_ASSIGN_OR_RAISE(std::string name, internal::GetString(j, "ref-name", context));
    return update::RemoveSnapshotRef{std::move(name)};
  }
  if (action == "set-location") {
    FLOE_ASSIGN_OR_RAISE(std::string location, internal::GetString(j, "location", context));
    return update::SetLocation{std::move(location)};
  }
  if (action == "set-properties") {
    FLOE_ASSIGN_OR_RAISE(auto updates, string_map("updates"));
    return update::SetProperties{std::move(updates)};
  }
  if (action == "remove-properties") {
    FLOE_ASSIGN_OR_RAISE(const json* keys, internal::GetArray(j, "removals", context));
    update::RemoveProperties out;
    for (const json& k : *keys) {
      if (!k.is_string()) return Status::Invalid("{}: removals must be strings", context);
      out.removals.insert(k.get<std::string>());
    }
    return out;
  }
  if (action == "set-statistics") {
    FLOE_ASSIGN_OR_RAISE(const json* s, internal::GetObject(j, "statistics", context));
    FLOE_ASSIGN_OR_RAISE(StatisticsFile stats, StatisticsFromJson(*s, context));
    return update::SetStatistics{std::move(stats)};
  }
  if (action == "remove-statistics") {
    FLOE_ASSIGN_OR_RAISE(int64_t id, internal::GetId(j, "snapshot-id", context));
    return update::RemoveStatistics{id};
  }
  return Status::NotSupported("unknown table update action '{}'", action);
}

}  // namespace floe::iceberg
