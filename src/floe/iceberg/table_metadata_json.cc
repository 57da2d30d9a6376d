// Table metadata JSON (spec, "Table Metadata" and appendix C "JSON serialization").

#include <algorithm>
#include <limits>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/format/compression/codec.h"
#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/type_json.h"

namespace floe::iceberg {

using internal::GetArray;
using internal::GetInt;
using internal::GetInt32;
using internal::GetOptionalInt;
using internal::GetOptionalString;
using internal::GetString;
using nlohmann::json;

namespace {

// Decompressed metadata larger than this is refused (a bound against gzip bombs).
constexpr int64_t kMaxMetadataBytes = int64_t{512} << 20;

Result<std::map<std::string, std::string>> StringMap(const json& j, std::string_view key,
                                                     std::string_view context) {
  std::map<std::string, std::string> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_object()) return internal::WrongType(context, key, "an object", *it);
  for (const auto& [k, v] : it->items()) {
    // Values must be strings; numbers and booleans written by lenient writers are kept as text.
    if (v.is_string()) {
      out.emplace(k, v.get<std::string>());
    } else if (v.is_number() || v.is_boolean()) {
      out.emplace(k, v.dump());
    } else {
      return Status::Corrupt("{}: '{}' value of '{}' must be a string, got {}", context, key, k,
                             v.type_name());
    }
  }
  return out;
}

Result<int32_t> ToInt32(int64_t v, std::string_view key, std::string_view context) {
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return Status::Corrupt("{}: '{}' is out of range", context, key);
  }
  return static_cast<int32_t>(v);
}

Result<PartitionField> PartitionFieldFromJson(const json& f, std::string_view context,
                                              std::optional<int32_t> assigned_id) {
  if (!f.is_object()) {
    return Status::Corrupt("{}: a partition field must be an object, got {}", context,
                           f.type_name());
  }
  PartitionField field;
  FLOE_ASSIGN_OR_RAISE(field.name, GetString(f, "name", context));
  std::string sub = fmt::format("{}: partition field '{}'", context, field.name);
  FLOE_ASSIGN_OR_RAISE(std::string transform, GetString(f, "transform", sub));
  auto parsed = Transform::Parse(transform);
  if (!parsed.ok()) return Status::Corrupt("{}: {}", sub, parsed.error().message());
  field.transform = *parsed;
  if (f.contains("source-id")) {
    FLOE_ASSIGN_OR_RAISE(field.source_id, GetInt32(f, "source-id", sub));
  } else if (auto ids = f.find("source-ids"); ids != f.end()) {
    if (!ids->is_array() || ids->size() != 1 || !(*ids)[0].is_number_integer()) {
      return Status::NotSupported("{}: multi-argument transforms ('source-ids') are not supported",
                                  sub);
    }
    FLOE_ASSIGN_OR_RAISE(int64_t id, internal::AsInt((*ids)[0], "source-ids", sub));
    FLOE_ASSIGN_OR_RAISE(field.source_id, ToInt32(id, "source-ids", sub));
  } else {
    return internal::Missing(sub, "source-id");
  }
  if (f.contains("field-id")) {
    FLOE_ASSIGN_OR_RAISE(field.field_id, GetInt32(f, "field-id", sub));
  } else if (assigned_id) {
    field.field_id = *assigned_id;
  } else {
    return internal::Missing(sub, "field-id");
  }
  return field;
}

Result<PartitionSpecPtr> MakeSpec(const Schema& schema, int32_t spec_id,
                                  std::vector<PartitionField> fields, std::string_view context) {
  auto spec = PartitionSpec::Make(schema, spec_id, std::move(fields),
                                  /*allow_missing_sources=*/true);
  if (!spec.ok()) {
    return Status::Corrupt("{}: partition spec {}: {}", context, spec_id, spec.error().message());
  }
  return *spec;
}

}  // namespace

Result<PartitionSpecPtr> PartitionSpecFromFieldsJson(const json& fields, const Schema& schema,
                                                     int32_t spec_id, std::string_view context) {
  if (!fields.is_array()) {
    return Status::Corrupt("{}: partition fields must be an array, got {}", context,
                           fields.type_name());
  }
  std::vector<PartitionField> out;
  int32_t next_id = kPartitionFieldIdStart;
  for (const json& f : fields) {
    FLOE_ASSIGN_OR_RAISE(PartitionField field, PartitionFieldFromJson(f, context, next_id));
    next_id = std::max(next_id, field.field_id) + 1;
    out.push_back(std::move(field));
  }
  return MakeSpec(schema, spec_id, std::move(out), context);
}

Result<PartitionSpecPtr> PartitionSpecFromJson(const json& j, const Schema& schema,
                                               std::string_view context) {
  if (!j.is_object()) {
    return Status::Corrupt("{}: a partition spec must be an object, got {}", context,
                           j.type_name());
  }
  FLOE_ASSIGN_OR_RAISE(int32_t spec_id, GetInt32(j, "spec-id", context));
  std::string sub = fmt::format("{}: partition spec {}", context, spec_id);
  FLOE_ASSIGN_OR_RAISE(const json* fields, GetArray(j, "fields", sub));
  std::vector<PartitionField> out;
  for (const json& f : *fields) {
    FLOE_ASSIGN_OR_RAISE(PartitionField field, PartitionFieldFromJson(f, sub, std::nullopt));
    out.push_back(std::move(field));
  }
  return MakeSpec(schema, spec_id, std::move(out), context);
}

json PartitionFieldsToJson(const PartitionSpec& spec) {
  json fields = json::array();
  for (const auto& f : spec.fields()) {
    fields.push_back(json{{"name", f.name},
                          {"transform", f.transform.ToString()},
                          {"source-id", f.source_id},
                          {"field-id", f.field_id}});
  }
  return fields;
}

json PartitionSpecToJson(const PartitionSpec& spec) {
  return json{{"spec-id", spec.spec_id()}, {"fields", PartitionFieldsToJson(spec)}};
}

Result<SortOrderPtr> SortOrderFromJson(const json& j, const Schema& schema,
                                       std::string_view context) {
  if (!j.is_object()) {
    return Status::Corrupt("{}: a sort order must be an object, got {}", context, j.type_name());
  }
  FLOE_ASSIGN_OR_RAISE(int32_t order_id, GetInt32(j, "order-id", context));
  std::string sub = fmt::format("{}: sort order {}", context, order_id);
  FLOE_ASSIGN_OR_RAISE(const json* fields, GetArray(j, "fields", sub));
  std::vector<SortField> out;
  for (const json& f : *fields) {
    if (!f.is_object()) return Status::Corrupt("{}: a sort field must be an object", sub);
    SortField field;
    FLOE_ASSIGN_OR_RAISE(std::string transform, GetString(f, "transform", sub));
    auto parsed = Transform::Parse(transform);
    if (!parsed.ok()) return Status::Corrupt("{}: {}", sub, parsed.error().message());
    field.transform = *parsed;
    FLOE_ASSIGN_OR_RAISE(field.source_id, GetInt32(f, "source-id", sub));
    FLOE_ASSIGN_OR_RAISE(std::string direction, GetString(f, "direction", sub));
    FLOE_ASSIGN_OR_RAISE(std::string null_order, GetString(f, "null-order", sub));
    if (direction == "asc") {
      field.direction = SortDirection::kAsc;
    } else if (direction == "desc") {
      field.direction = SortDirection::kDesc;
    } else {
      return Status::Corrupt("{}: unknown sort direction '{}'", sub, direction);
    }
    if (null_order == "nulls-first") {
      field.null_order = NullOrder::kNullsFirst;
    } else if (null_order == "nulls-last") {
      field.null_order = NullOrder::kNullsLast;
    } else {
      return Status::Corrupt("{}: unknown null order '{}'", sub, null_order);
    }
    out.push_back(std::move(field));
  }
  auto order = SortOrder::Make(schema, order_id, std::move(out));
  if (!order.ok()) return Status::Corrupt("{}: {}", sub, order.error().message());
  return *order;
}

json SortOrderToJson(const SortOrder& order) {
  json fields = json::array();
  for (const auto& f : order.fields()) {
    fields.push_back(json{
        {"transform", f.transform.ToString()},
        {"source-id", f.source_id},
        {"direction", f.direction == SortDirection::kAsc ? "asc" : "desc"},
        {"null-order", f.null_order == NullOrder::kNullsFirst ? "nulls-first" : "nulls-last"}});
  }
  return json{{"order-id", order.order_id()}, {"fields", std::move(fields)}};
}

Result<Snapshot> SnapshotFromJson(const json& j, int format_version, std::string_view context) {
  if (!j.is_object()) {
    return Status::Corrupt("{}: a snapshot must be an object, got {}", context, j.type_name());
  }
  Snapshot s;
  FLOE_ASSIGN_OR_RAISE(s.snapshot_id, internal::GetId(j, "snapshot-id", context));
  std::string sub = fmt::format("{}: snapshot {}", context, s.snapshot_id);
  FLOE_ASSIGN_OR_RAISE(s.parent_snapshot_id, internal::GetOptionalId(j, "parent-snapshot-id", sub));
  if (format_version >= 2) {
    FLOE_ASSIGN_OR_RAISE(s.sequence_number, GetInt(j, "sequence-number", sub));
  } else {
    FLOE_ASSIGN_OR_RAISE(auto seq, GetOptionalInt(j, "sequence-number", sub));
    s.sequence_number = seq.value_or(0);
  }
  FLOE_ASSIGN_OR_RAISE(s.timestamp_ms, GetInt(j, "timestamp-ms", sub));
  FLOE_ASSIGN_OR_RAISE(auto list, GetOptionalString(j, "manifest-list", sub));
  if (list) {
    s.manifest_list = *list;
  } else if (auto m = j.find("manifests"); m != j.end() && format_version == 1) {
    if (!m->is_array()) return internal::WrongType(sub, "manifests", "an array", *m);
    for (const json& path : *m) {
      if (!path.is_string()) return Status::Corrupt("{}: 'manifests' must hold strings", sub);
      s.manifests.push_back(path.get<std::string>());
    }
  } else {
    return internal::Missing(sub, "manifest-list");
  }
  FLOE_ASSIGN_OR_RAISE(s.summary, StringMap(j, "summary", sub));
  if (format_version >= 2 && s.summary.count("operation") == 0) {
    return Status::Corrupt("{}: summary lacks the required 'operation'", sub);
  }
  FLOE_ASSIGN_OR_RAISE(auto schema_id, GetOptionalInt(j, "schema-id", sub));
  if (schema_id) {
    FLOE_ASSIGN_OR_RAISE(int32_t id, ToInt32(*schema_id, "schema-id", sub));
    s.schema_id = id;
  }
  FLOE_ASSIGN_OR_RAISE(s.first_row_id, GetOptionalInt(j, "first-row-id", sub));
  FLOE_ASSIGN_OR_RAISE(s.added_rows, GetOptionalInt(j, "added-rows", sub));
  FLOE_ASSIGN_OR_RAISE(s.key_id, GetOptionalString(j, "key-id", sub));
  return s;
}

json SnapshotToJson(const Snapshot& s, int format_version) {
  json out = json::object();
  out["snapshot-id"] = s.snapshot_id;
  if (s.parent_snapshot_id) out["parent-snapshot-id"] = *s.parent_snapshot_id;
  // As the reference implementation: written whenever it is set (a v1 table upgraded from
  // or read as v2 keeps its snapshots' sequence numbers).
  if (format_version >= 2 || s.sequence_number > 0) out["sequence-number"] = s.sequence_number;
  out["timestamp-ms"] = s.timestamp_ms;
  if (!s.manifest_list.empty() || s.manifests.empty()) {
    out["manifest-list"] = s.manifest_list;
  } else {
    out["manifests"] = s.manifests;
  }
  if (!s.summary.empty() || format_version >= 2) out["summary"] = s.summary;
  if (s.schema_id) out["schema-id"] = *s.schema_id;
  if (s.first_row_id) out["first-row-id"] = *s.first_row_id;
  if (s.added_rows) out["added-rows"] = *s.added_rows;
  if (s.key_id) out["key-id"] = *s.key_id;
  return out;
}

Result<SnapshotRef> RefFromJson(const json& j, std::string_view context) {
  if (!j.is_object()) return Status::Corrupt("{}: a ref must be an object", context);
  SnapshotRef ref;
  FLOE_ASSIGN_OR_RAISE(ref.snapshot_id, internal::GetId(j, "snapshot-id", context));
  FLOE_ASSIGN_OR_RAISE(std::string type, GetString(j, "type", context));
  if (type == "branch") {
    ref.type = SnapshotRef::Type::kBranch;
  } else if (type == "tag") {
    ref.type = SnapshotRef::Type::kTag;
  } else {
    return Status::Corrupt("{}: unknown ref type '{}'", context, type);
  }
  FLOE_ASSIGN_OR_RAISE(auto min_keep, GetOptionalInt(j, "min-snapshots-to-keep", context));
  if (min_keep) {
    FLOE_ASSIGN_OR_RAISE(int32_t v, ToInt32(*min_keep, "min-snapshots-to-keep", context));
    ref.min_snapshots_to_keep = v;
  }
  FLOE_ASSIGN_OR_RAISE(ref.max_snapshot_age_ms, GetOptionalInt(j, "max-snapshot-age-ms", context));
  FLOE_ASSIGN_OR_RAISE(ref.max_ref_age_ms, GetOptionalInt(j, "max-ref-age-ms", context));
  return ref;
}

json RefToJson(const SnapshotRef& ref) {
  json out = json::object();
  out["snapshot-id"] = ref.snapshot_id;
  out["type"] = ref.is_branch() ? "branch" : "tag";
  if (ref.min_snapshots_to_keep) out["min-snapshots-to-keep"] = *ref.min_snapshots_to_keep;
  if (ref.max_snapshot_age_ms) out["max-snapshot-age-ms"] = *ref.max_snapshot_age_ms;
  if (ref.max_ref_age_ms) out["max-ref-age-ms"] = *ref.max_ref_age_ms;
  return out;
}

Result<StatisticsFile> StatisticsFromJson(const json& j, std::string_view context) {
  if (!j.is_object()) return Status::Corrupt("{}: a statistics entry must be an object", context);
  StatisticsFile s;
  FLOE_ASSIGN_OR_RAISE(s.snapshot_id, internal::GetId(j, "snapshot-id", context));
  FLOE_ASSIGN_OR_RAISE(s.statistics_path, GetString(j, "statistics-path", context));
  FLOE_ASSIGN_OR_RAISE(s.file_size_in_bytes, GetInt(j, "file-size-in-bytes", context));
  FLOE_ASSIGN_OR_RAISE(s.file_footer_size_in_bytes,
                       GetInt(j, "file-footer-size-in-bytes", context));
  FLOE_ASSIGN_OR_RAISE(s.key_metadata, GetOptionalString(j, "key-metadata", context));
  FLOE_ASSIGN_OR_RAISE(const json* blobs, GetArray(j, "blob-metadata", context));
  for (const json& b : *blobs) {
    if (!b.is_object())
      return Status::Corrupt("{}: blob-metadata entries must be objects", context);
    BlobMetadata blob;
    FLOE_ASSIGN_OR_RAISE(blob.type, GetString(b, "type", context));
    FLOE_ASSIGN_OR_RAISE(blob.snapshot_id, internal::GetId(b, "snapshot-id", context));
    FLOE_ASSIGN_OR_RAISE(blob.sequence_number, GetInt(b, "sequence-number", context));
    FLOE_ASSIGN_OR_RAISE(const json* fields, GetArray(b, "fields", context));
    for (const json& f : *fields) {
      FLOE_ASSIGN_OR_RAISE(int64_t id, internal::AsInt(f, "fields", context));
      FLOE_ASSIGN_OR_RAISE(int32_t id32, ToInt32(id, "fields", context));
      blob.fields.push_back(id32);
    }
    FLOE_ASSIGN_OR_RAISE(blob.properties, StringMap(b, "properties", context));
    s.blob_metadata.push_back(std::move(blob));
  }
  return s;
}

json StatisticsToJson(const StatisticsFile& s) {
  json blobs = json::array();
  for (const auto& b : s.blob_metadata) {
    json blob{{"type", b.type},
              {"snapshot-id", b.snapshot_id},
              {"sequence-number", b.sequence_number},
              {"fields", b.fields}};
    if (!b.properties.empty()) blob["properties"] = b.properties;
    blobs.push_back(std::move(blob));
  }
  json out{{"snapshot-id", s.snapshot_id},
           {"statistics-path", s.statistics_path},
           {"file-size-in-bytes", s.file_size_in_bytes},
           {"file-footer-size-in-bytes", s.file_footer_size_in_bytes},
           {"blob-metadata", std::move(blobs)}};
  if (s.key_metadata) out["key-metadata"] = *s.key_metadata;
  return out;
}

namespace {

// Reads an optional array member, parsing each element with `parse`.
template <typename T, typename Parse>
Result<std::vector<T>> OptionalList(const json& j, std::string_view key, std::string_view context,
                                    Parse parse) {
  std::vector<T> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array()) return internal::WrongType(context, key, "an array", *it);
  size_t i = 0;
  for (const json& e : *it) {
    std::string sub = fmt::format("{}: {}[{}]", context, key, i++);
    FLOE_ASSIGN_OR_RAISE(T value, parse(e, sub));
    out.push_back(std::move(value));
  }
  return out;
}

}  // namespace

Result<TableMetadataPtr> TableMetadataFromJson(const json& j, std::string_view file_name) {
  const std::string ctx(file_name);
  if (!j.is_object()) {
    return Status::Corrupt("{}: table metadata must be a JSON object, got {}", ctx, j.type_name());
  }
  auto md = std::make_shared<TableMetadata>();
  FLOE_ASSIGN_OR_RAISE(int64_t version, GetInt(j, "format-version", ctx));
  if (version < 1 || version > kMaxSupportedFormatVersion) {
    return Status::NotSupported("{}: format-version {} is not supported (1 to {} are)", ctx,
                                version, kMaxSupportedFormatVersion);
  }
  md->format_version = static_cast<int>(version);
  const bool v1 = version == 1;

  if (v1) {
    FLOE_ASSIGN_OR_RAISE(auto uuid, GetOptionalString(j, "table-uuid", ctx));
    md->table_uuid = uuid.value_or("");
  } else {
    FLOE_ASSIGN_OR_RAISE(md->table_uuid, GetString(j, "table-uuid", ctx));
  }
  FLOE_ASSIGN_OR_RAISE(md->location, GetString(j, "location", ctx));
  if (v1) {
    FLOE_ASSIGN_OR_RAISE(auto seq, GetOptionalInt(j, "last-sequence-number", ctx));
    md->last_sequence_number = seq.value_or(0);
  } else {
    FLOE_ASSIGN_OR_RAISE(md->last_sequence_number, GetInt(j, "last-sequence-number", ctx));
  }
  FLOE_ASSIGN_OR_RAISE(md->last_updated_ms, GetInt(j, "last-updated-ms", ctx));
  FLOE_ASSIGN_OR_RAISE(md->last_column_id, GetInt32(j, "last-column-id", ctx));

  // Schemas: `schemas` + `current-schema-id`, or v1's single `schema`.
  if (auto schemas = j.find("schemas"); schemas != j.end() && !(v1 && schemas->is_null())) {
    if (!schemas->is_array()) return internal::WrongType(ctx, "schemas", "an array", *schemas);
    size_t i = 0;
    for (const json& s : *schemas) {
      FLOE_ASSIGN_OR_RAISE(SchemaPtr schema,
                           SchemaFromJson(s, fmt::format("{}: schemas[{}]", ctx, i++)));
      md->schemas.push_back(std::move(schema));
    }
    if (v1 && !j.contains("current-schema-id")) {
      if (md->schemas.empty()) return internal::Missing(ctx, "current-schema-id");
      md->current_schema_id = md->schemas.front()->schema_id();
    } else {
      FLOE_ASSIGN_OR_RAISE(md->current_schema_id, GetInt32(j, "current-schema-id", ctx));
    }
  } else if (v1 && j.contains("schema")) {
    FLOE_ASSIGN_OR_RAISE(SchemaPtr schema, SchemaFromJson(j["schema"], ctx + ": schema"));
    md->current_schema_id = schema->schema_id();
    md->schemas.push_back(std::move(schema));
  } else {
    return internal::Missing(ctx, "schemas");
  }
  SchemaPtr current = md->CurrentSchema();
  if (current == nullptr) {
    return Status::Corrupt("{}: current-schema-id {} is not among the schemas", ctx,
                           md->current_schema_id);
  }

  // Partition specs: `partition-specs` + `default-spec-id`, or v1's `partition-spec` fields.
  if (auto specs = j.find("partition-specs"); specs != j.end() && !(v1 && specs->is_null())) {
    if (!specs->is_array()) {
      return internal::WrongType(ctx, "partition-specs", "an array", *specs);
    }
    size_t i = 0;
    for (const json& s : *specs) {
      FLOE_ASSIGN_OR_RAISE(
          PartitionSpecPtr spec,
          PartitionSpecFromJson(s, *current, fmt::format("{}: partition-specs[{}]", ctx, i++)));
      md->partition_specs.push_back(std::move(spec));
    }
    if (v1 && !j.contains("default-spec-id")) {
      if (md->partition_specs.empty()) return internal::Missing(ctx, "default-spec-id");
      md->default_spec_id = md->partition_specs.front()->spec_id();
    } else {
      FLOE_ASSIGN_OR_RAISE(md->default_spec_id, GetInt32(j, "default-spec-id", ctx));
    }
  } else if (v1 && j.contains("partition-spec")) {
    FLOE_ASSIGN_OR_RAISE(
        PartitionSpecPtr spec,
        PartitionSpecFromFieldsJson(j["partition-spec"], *current, 0, ctx + ": partition-spec"));
    md->partition_specs.push_back(std::move(spec));
    md->default_spec_id = 0;
  } else {
    return internal::Missing(ctx, "partition-specs");
  }
  if (md->DefaultSpec() == nullptr) {
    return Status::Corrupt("{}: default-spec-id {} is not among the partition-specs", ctx,
                           md->default_spec_id);
  }
  if (v1) {
    FLOE_ASSIGN_OR_RAISE(auto last, GetOptionalInt(j, "last-partition-id", ctx));
    if (last) {
      FLOE_ASSIGN_OR_RAISE(md->last_partition_id, ToInt32(*last, "last-partition-id", ctx));
    } else {
      md->last_partition_id = kPartitionFieldIdStart - 1;
      for (const auto& s : md->partition_specs) {
        md->last_partition_id = std::max(md->last_partition_id, s->last_assigned_field_id());
      }
    }
  } else {
    FLOE_ASSIGN_OR_RAISE(md->last_partition_id, GetInt32(j, "last-partition-id", ctx));
  }

  FLOE_ASSIGN_OR_RAISE(md->properties, StringMap(j, "properties", ctx));

  FLOE_ASSIGN_OR_RAISE(auto current_snapshot,
                       internal::GetOptionalId(j, "current-snapshot-id", ctx));
  if (current_snapshot && *current_snapshot != -1) md->current_snapshot_id = *current_snapshot;

  const int fv = md->format_version;
  FLOE_ASSIGN_OR_RAISE(
      md->snapshots,
      OptionalList<Snapshot>(j, "snapshots", ctx, [fv](const json& e, std::string_view c) {
        return SnapshotFromJson(e, fv, c);
      }));
  FLOE_ASSIGN_OR_RAISE(md->snapshot_log,
                       OptionalList<SnapshotLogEntry>(
                           j, "snapshot-log", ctx,
                           [](const json& e, std::string_view c) -> Result<SnapshotLogEntry> {
                             if (!e.is_object()) return Status::Corrupt("{}: must be an object", c);
                             SnapshotLogEntry entry;
                             FLOE_ASSIGN_OR_RAISE(entry.timestamp_ms, GetInt(e, "timestamp-ms", c));
                             FLOE_ASSIGN_OR_RAISE(entry.snapshot_id,
                                                  internal::GetId(e, "snapshot-id", c));
                             return entry;
                           }));
  FLOE_ASSIGN_OR_RAISE(md->metadata_log,
                       OptionalList<MetadataLogEntry>(
                           j, "metadata-log", ctx,
                           [](const json& e, std::string_view c) -> Result<MetadataLogEntry> {
                             if (!e.is_object()) return Status::Corrupt("{}: must be an object", c);
                             MetadataLogEntry entry;
                             FLOE_ASSIGN_OR_RAISE(entry.timestamp_ms, GetInt(e, "timestamp-ms", c));
                             FLOE_ASSIGN_OR_RAISE(entry.metadata_file,
                                                  GetString(e, "metadata-file", c));
                             return entry;
                           }));

  // Sort orders (required from v2; v1 tables without them are unsorted). A historical
  // order may name a column the current schema dropped: try the other schemas then.
  if (!v1 || j.contains("sort-orders")) {
    FLOE_ASSIGN_OR_RAISE(const json* orders, GetArray(j, "sort-orders", ctx));
    size_t i = 0;
    for (const json& o : *orders) {
      std::string sub = fmt::format("{}: sort-orders[{}]", ctx, i++);
      auto order = SortOrderFromJson(o, *current, sub);
      for (auto it = md->schemas.rbegin(); !order.ok() && it != md->schemas.rend(); ++it) {
        if (auto other = SortOrderFromJson(o, **it, sub); other.ok()) order = std::move(other);
      }
      if (!order.ok()) return order.error();
      md->sort_orders.push_back(*order);
    }
    FLOE_ASSIGN_OR_RAISE(md->default_sort_order_id, GetInt32(j, "default-sort-order-id", ctx));
  } else {
    md->sort_orders.push_back(SortOrder::Unsorted());
    md->default_sort_order_id = 0;
  }

  if (auto refs = j.find("refs"); refs != j.end() && !refs->is_null()) {
    if (!refs->is_object()) return internal::WrongType(ctx, "refs", "an object", *refs);
    for (const auto& [name, r] : refs->items()) {
      FLOE_ASSIGN_OR_RAISE(SnapshotRef ref, RefFromJson(r, fmt::format("{}: refs.{}", ctx, name)));
      md->refs.emplace(name, ref);
    }
  }
  if (md->current_snapshot_id && md->refs.count(std::string(kMainBranch)) == 0) {
    SnapshotRef main;
    main.snapshot_id = *md->current_snapshot_id;
    md->refs.emplace(std::string(kMainBranch), main);
  }

  FLOE_ASSIGN_OR_RAISE(md->statistics,
                       OptionalList<StatisticsFile>(j, "statistics", ctx, StatisticsFromJson));
  FLOE_ASSIGN_OR_RAISE(
      md->partition_statistics,
      OptionalList<PartitionStatisticsFile>(
          j, "partition-statistics", ctx,
          [](const json& e, std::string_view c) -> Result<PartitionStatisticsFile> {
            if (!e.is_object()) return Status::Corrupt("{}: must be an object", c);
            PartitionStatisticsFile f;
            FLOE_ASSIGN_OR_RAISE(f.snapshot_id, internal::GetId(e, "snapshot-id", c));
            FLOE_ASSIGN_OR_RAISE(f.statistics_path, GetString(e, "statistics-path", c));
            FLOE_ASSIGN_OR_RAISE(f.file_size_in_bytes, GetInt(e, "file-size-in-bytes", c));
            return f;
          }));
  FLOE_ASSIGN_OR_RAISE(md->next_row_id, GetOptionalInt(j, "next-row-id", ctx));
  FLOE_ASSIGN_OR_RAISE(
      md->encryption_keys,
      OptionalList<EncryptedKey>(
          j, "encryption-keys", ctx, [](const json& e, std::string_view c) -> Result<EncryptedKey> {
            if (!e.is_object()) return Status::Corrupt("{}: must be an object", c);
            EncryptedKey k;
            FLOE_ASSIGN_OR_RAISE(k.key_id, GetString(e, "key-id", c));
            FLOE_ASSIGN_OR_RAISE(k.encrypted_key_metadata,
                                 GetString(e, "encrypted-key-metadata", c));
            FLOE_ASSIGN_OR_RAISE(k.encrypted_by_id, GetOptionalString(e, "encrypted-by-id", c));
            FLOE_ASSIGN_OR_RAISE(k.properties, StringMap(e, "properties", c));
            return k;
          }));

  Status valid = md->Validate();
  if (!valid.ok()) return valid.WithPrefix(ctx + ": ");
  return TableMetadataPtr(std::move(md));
}

Result<TableMetadataPtr> TableMetadataFromBytes(std::string_view bytes,
                                                std::string_view file_name) {
  std::vector<uint8_t> inflated;
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f &&
      static_cast<uint8_t>(bytes[1]) == 0x8b) {
    FLOE_ASSIGN_OR_RAISE(auto gunzip,
                         compression::Decompressor::Make(compression::CodecKind::kGzip));
    Status st = gunzip->DecompressBounded(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
        kMaxMetadataBytes, &inflated);
    if (!st.ok()) {
      return Status::Corrupt("{}: gzip-compressed metadata does not decompress: {}", file_name,
                             st.message());
    }
    bytes = std::string_view(reinterpret_cast<const char*>(inflated.data()), inflated.size());
  }
  FLOE_ASSIGN_OR_RAISE(json j, internal::ParseJson(bytes, file_name));
  return TableMetadataFromJson(j, file_name);
}

Result<json> TableMetadataToJson(const TableMetadata& md) {
  if (md.format_version < 1 || md.format_version > kMaxSupportedFormatVersion) {
    return Status::NotSupported("cannot write format-version {}", md.format_version);
  }
  FLOE_RETURN_NOT_OK(md.Validate());
  const bool v1 = md.format_version == 1;
  json out = json::object();
  out["format-version"] = md.format_version;
  if (!md.table_uuid.empty() || !v1) out["table-uuid"] = md.table_uuid;
  out["location"] = md.location;
  // A v1 table keeps a sequence number it was given (as snapshots do, above).
  if (!v1 || md.last_sequence_number > 0) out["last-sequence-number"] = md.last_sequence_number;
  out["last-updated-ms"] = md.last_updated_ms;
  out["last-column-id"] = md.last_column_id;
  json schemas = json::array();
  for (const auto& s : md.schemas) {
    FLOE_ASSIGN_OR_RAISE(json sj, SchemaToJson(*s));
    schemas.push_back(std::move(sj));
  }
  if (v1) {
    FLOE_ASSIGN_OR_RAISE(out["schema"], SchemaToJson(*md.CurrentSchema()));
  }
  out["current-schema-id"] = md.current_schema_id;
  out["schemas"] = std::move(schemas);
  if (v1) out["partition-spec"] = PartitionFieldsToJson(*md.DefaultSpec());
  out["default-spec-id"] = md.default_spec_id;
  json specs = json::array();
  for (const auto& s : md.partition_specs) specs.push_back(PartitionSpecToJson(*s));
  out["partition-specs"] = std::move(specs);
  out["last-partition-id"] = md.last_partition_id;
  out["default-sort-order-id"] = md.default_sort_order_id;
  json orders = json::array();
  for (const auto& o : md.sort_orders) orders.push_back(SortOrderToJson(*o));
  out["sort-orders"] = std::move(orders);
  out["properties"] = md.properties;
  out["current-snapshot-id"] = md.current_snapshot_id.value_or(-1);
  json refs = json::object();
  for (const auto& [name, ref] : md.refs) refs[name] = RefToJson(ref);
  out["refs"] = std::move(refs);
  json snapshots = json::array();
  for (const auto& s : md.snapshots) snapshots.push_back(SnapshotToJson(s, md.format_version));
  out["snapshots"] = std::move(snapshots);
  json stats = json::array();
  for (const auto& s : md.statistics) stats.push_back(StatisticsToJson(s));
  out["statistics"] = std::move(stats);
  json pstats = json::array();
  for (const auto& s : md.partition_statistics) {
    pstats.push_back(json{{"snapshot-id", s.snapshot_id},
                          {"statistics-path", s.statistics_path},
                          {"file-size-in-bytes", s.file_size_in_bytes}});
  }
  out["partition-statistics"] = std::move(pstats);
  json slog = json::array();
  for (const auto& e : md.snapshot_log) {
    slog.push_back(json{{"timestamp-ms", e.timestamp_ms}, {"snapshot-id", e.snapshot_id}});
  }
  out["snapshot-log"] = std::move(slog);
  json mlog = json::array();
  for (const auto& e : md.metadata_log) {
    mlog.push_back(json{{"timestamp-ms", e.timestamp_ms}, {"metadata-file", e.metadata_file}});
  }
  out["metadata-log"] = std::move(mlog);
  if (md.next_row_id) out["next-row-id"] = *md.next_row_id;
  if (!md.encryption_keys.empty()) {
    json keys = json::array();
    for (const auto& k : md.encryption_keys) {
      json kj{{"key-id", k.key_id}, {"encrypted-key-metadata", k.encrypted_key_metadata}};
      if (k.encrypted_by_id) kj["encrypted-by-id"] = *k.encrypted_by_id;
      if (!k.properties.empty()) kj["properties"] = k.properties;
      keys.push_back(std::move(kj));
    }
    out["encryption-keys"] = std::move(keys);
  }
  return out;
}

Result<std::string> TableMetadataToJsonString(const TableMetadata& md, bool pretty) {
  FLOE_ASSIGN_OR_RAISE(json j, TableMetadataToJson(md));
  return pretty ? j.dump(2) : j.dump();
}

}  // namespace floe::iceberg
