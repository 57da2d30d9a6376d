#include "floe/connector/iceberg/iceberg_metadata_tables.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "floe/batch/builder.h"
#include "floe/exec/values_exec.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/single_value.h"
#include "floe/io/file_io.h"

namespace floe::connector {

namespace {

constexpr MetadataTableKind kAllKinds[] = {
    MetadataTableKind::kSnapshots,  MetadataTableKind::kHistory,    MetadataTableKind::kManifests,
    MetadataTableKind::kFiles,      MetadataTableKind::kPartitions, MetadataTableKind::kRefs,
    MetadataTableKind::kProperties,
};

// ---------------------------------------------------------------------------------------
// Appending one value of a row to a column builder.

Status AppendI32(ArrayBuilder& b, std::optional<int32_t> v) {
  if (!v) return b.AppendNull();
  return static_cast<Int32Builder&>(b).Append(*v);
}

Status AppendI64(ArrayBuilder& b, std::optional<int64_t> v) {
  if (!v) return b.AppendNull();
  return static_cast<Int64Builder&>(b).Append(*v);
}

Status AppendBool(ArrayBuilder& b, std::optional<bool> v) {
  if (!v) return b.AppendNull();
  return static_cast<BooleanBuilder&>(b).Append(*v);
}

// Strings and bytea.
Status AppendBytes(ArrayBuilder& b, const std::optional<std::string>& v) {
  if (!v) return b.AppendNull();
  return static_cast<BinaryBuilder&>(b).Append(*v);
}

Status AppendMillisAsTimestamp(ArrayBuilder& b, std::optional<int64_t> millis) {
  if (!millis) return b.AppendNull();
  return static_cast<Int64Builder&>(b).Append(*millis * 1000);
}

Status AppendStringMap(ArrayBuilder& b, const std::map<std::string, std::string>& map) {
  auto& mb = static_cast<MapBuilder&>(b);
  FLOE_RETURN_NOT_OK(mb.Append());
  for (const auto& [key, value] : map) {
    FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(mb.key_builder())->Append(key));
    FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(mb.item_builder())->Append(value));
  }
  return Status::OK();
}

// A file's metric map; NULL when the file recorded none (as the manifest's optional map).
// A metric map of a file: NULL when the manifest holds none, an empty map when it holds an
// empty one (DataFile::empty_metric_maps, bit `m`).
Status AppendCountMap(ArrayBuilder& b, const std::map<int32_t, int64_t>& map,
                      const iceberg::DataFile& f, int m) {
  if (map.empty() && ((f.empty_metric_maps >> m) & 1) == 0) return b.AppendNull();
  auto& mb = static_cast<MapBuilder&>(b);
  FLOE_RETURN_NOT_OK(mb.Append());
  for (const auto& [key, value] : map) {
    FLOE_RETURN_NOT_OK(static_cast<Int32Builder*>(mb.key_builder())->Append(key));
    FLOE_RETURN_NOT_OK(static_cast<Int64Builder*>(mb.item_builder())->Append(value));
  }
  return Status::OK();
}

Status AppendBoundMap(ArrayBuilder& b, const std::map<int32_t, std::string>& map,
                      const iceberg::DataFile& f, int m) {
  if (map.empty() && ((f.empty_metric_maps >> m) & 1) == 0) return b.AppendNull();
  auto& mb = static_cast<MapBuilder&>(b);
  FLOE_RETURN_NOT_OK(mb.Append());
  for (const auto& [key, value] : map) {
    FLOE_RETURN_NOT_OK(static_cast<Int32Builder*>(mb.key_builder())->Append(key));
    FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(mb.item_builder())->Append(value));
  }
  return Status::OK();
}

template <typename T>
Status AppendList(ArrayBuilder& b, const std::vector<T>& values) {
  if (values.empty()) return b.AppendNull();
  auto& lb = static_cast<ListBuilder&>(b);
  FLOE_RETURN_NOT_OK(lb.Append());
  for (T v : values) {
    FLOE_RETURN_NOT_OK(static_cast<NumericBuilder<T>*>(lb.value_builder())->Append(v));
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Columns: the fields of a metadata table and, once its rows are loaded, how to append
// row r of each. Declared once per kind, so the schema and the values cannot disagree.

using Appender = std::function<Status(ArrayBuilder&, size_t)>;

struct Columns {
  std::vector<Field> fields;
  std::vector<Appender> appenders;
  size_t rows = 0;

  void Add(std::string name, TypePtr type, bool nullable, Appender appender) {
    fields.emplace_back(std::move(name), std::move(type), nullable);
    appenders.push_back(std::move(appender));
  }
  int Index(std::string_view name) const {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name() == name) return static_cast<int>(i);
    }
    return -1;
  }
};

TypePtr StringMapType() { return Map(String(), String()); }
TypePtr CountMapType() { return Map(Int32(), Int64()); }
TypePtr BoundMapType() { return Map(Int32(), Binary()); }

TypePtr PartitionSummaryType() {
  return List(
      Field("element",
            Struct({Field("contains_null", Boolean(), false), Field("contains_nan", Boolean()),
                    Field("lower_bound", String()), Field("upper_bound", String())}),
            false));
}

// What the column declarations read. Every member may be empty when only the schema is
// wanted (no appender runs then).
struct Context {
  const iceberg::TableMetadata* metadata = nullptr;
  TypePtr partition_type;  // the union of the specs' partition fields
  // Per spec id: its partition struct type (nullptr when not derivable).
  std::map<int32_t, TypePtr> spec_types;
  // The current schema's primitive columns (inside structs too), by full name, and the
  // struct of their metrics.
  struct MetricColumn {
    std::string name;
    int32_t field_id = 0;
    TypePtr type;
  };
  std::vector<MetricColumn> metric_columns;
  TypePtr readable_metrics_type;
};

// snapshots ------------------------------------------------------------------------------

Columns SnapshotColumns(const Context& ctx) {
  Columns c;
  const iceberg::TableMetadata* m = ctx.metadata;
  if (m != nullptr) c.rows = m->snapshots.size();
  auto snapshot = [m](size_t r) -> const iceberg::Snapshot& { return m->snapshots[r]; };
  c.Add("committed_at", TimestampTz(), false, [=](ArrayBuilder& b, size_t r) {
    return AppendMillisAsTimestamp(b, snapshot(r).timestamp_ms);
  });
  c.Add("snapshot_id", Int64(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, snapshot(r).snapshot_id); });
  c.Add("parent_id", Int64(), true,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, snapshot(r).parent_snapshot_id); });
  c.Add("operation", String(), true, [=](ArrayBuilder& b, size_t r) {
    std::string op = snapshot(r).operation();
    return AppendBytes(b, op.empty() ? std::nullopt : std::optional<std::string>(op));
  });
  c.Add("manifest_list", String(), true, [=](ArrayBuilder& b, size_t r) {
    const std::string& list = snapshot(r).manifest_list;
    return AppendBytes(b, list.empty() ? std::nullopt : std::optional<std::string>(list));
  });
  // The summary without its "operation" entry, which is the operation column (as Spark's
  // snapshots table shows it).
  c.Add("summary", StringMapType(), true, [=](ArrayBuilder& b, size_t r) {
    std::map<std::string, std::string> summary = snapshot(r).summary;
    summary.erase("operation");
    return AppendStringMap(b, summary);
  });
  return c;
}

// history --------------------------------------------------------------------------------

Columns HistoryColumns(const Context& ctx) {
  Columns c;
  const iceberg::TableMetadata* m = ctx.metadata;
  auto ancestors = std::make_shared<std::set<int64_t>>();
  if (m != nullptr) {
    c.rows = m->snapshot_log.size();
    if (m->current_snapshot_id) {
      for (int64_t id : m->Ancestors(*m->current_snapshot_id)) ancestors->insert(id);
    }
  }
  auto entry = [m](size_t r) -> const iceberg::SnapshotLogEntry& { return m->snapshot_log[r]; };
  c.Add("made_current_at", TimestampTz(), false, [=](ArrayBuilder& b, size_t r) {
    return AppendMillisAsTimestamp(b, entry(r).timestamp_ms);
  });
  c.Add("snapshot_id", Int64(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, entry(r).snapshot_id); });
  // The parent of a snapshot expired since is unknown.
  c.Add("parent_id", Int64(), true, [=](ArrayBuilder& b, size_t r) {
    const iceberg::Snapshot* s = m->SnapshotById(entry(r).snapshot_id);
    return AppendI64(b, s != nullptr ? s->parent_snapshot_id : std::nullopt);
  });
  c.Add("is_current_ancestor", Boolean(), false, [=](ArrayBuilder& b, size_t r) {
    return AppendBool(b, ancestors->count(entry(r).snapshot_id) > 0);
  });
  return c;
}

// refs -----------------------------------------------------------------------------------

Columns RefColumns(const Context& ctx) {
  Columns c;
  const iceberg::TableMetadata* m = ctx.metadata;
  using Ref = std::pair<std::string, iceberg::SnapshotRef>;
  auto refs = std::make_shared<std::vector<Ref>>();
  if (m != nullptr) refs->assign(m->refs.begin(), m->refs.end());
  c.rows = refs->size();
  auto ref = [refs](size_t r) -> const Ref& { return (*refs)[r]; };
  c.Add("name", String(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendBytes(b, ref(r).first); });
  c.Add("type", String(), false, [=](ArrayBuilder& b, size_t r) {
    return AppendBytes(b, std::string(ref(r).second.is_branch() ? "BRANCH" : "TAG"));
  });
  c.Add("snapshot_id", Int64(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, ref(r).second.snapshot_id); });
  c.Add("max_reference_age_in_ms", Int64(), true,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, ref(r).second.max_ref_age_ms); });
  c.Add("min_snapshots_to_keep", Int32(), true, [=](ArrayBuilder& b, size_t r) {
    return AppendI32(b, ref(r).second.min_snapshots_to_keep);
  });
  c.Add("max_snapshot_age_in_ms", Int64(), true,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, ref(r).second.max_snapshot_age_ms); });
  return c;
}

// properties -----------------------------------------------------------------------------

Columns PropertyColumns(const Context& ctx) {
  Columns c;
  using Property = std::pair<std::string, std::string>;
  auto properties = std::make_shared<std::vector<Property>>();
  if (ctx.metadata != nullptr) {
    // Secret values (an S3 key given as a table property) are never shown.
    std::map<std::string, std::string> shown = io::RedactProperties(ctx.metadata->properties);
    properties->assign(shown.begin(), shown.end());
  }
  c.rows = properties->size();
  c.Add("key", String(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendBytes(b, (*properties)[r].first); });
  c.Add("value", String(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendBytes(b, (*properties)[r].second); });
  return c;
}

// manifests ------------------------------------------------------------------------------

// The human text of a partition summary bound (a day as "2024-01-02"), or NULL when the
// bound is absent or cannot be decoded with the spec's types.
std::optional<std::string> HumanBound(const std::optional<std::string>& bytes,
                                      const iceberg::PartitionField& field, const TypePtr& type) {
  if (!bytes || !type) return std::nullopt;
  Result<Scalar> value = iceberg::DeserializeValue(type, *bytes);
  if (!value.ok()) return std::nullopt;
  return field.transform.ToHumanString(*value);
}

Columns ManifestColumns(const Context& ctx,
                        std::shared_ptr<const std::vector<iceberg::ManifestFile>> manifests) {
  Columns c;
  if (!manifests) manifests = std::make_shared<const std::vector<iceberg::ManifestFile>>();
  c.rows = manifests->size();
  auto manifest = [manifests](size_t r) -> const iceberg::ManifestFile& { return (*manifests)[r]; };
  c.Add("content", Int32(), false, [=](ArrayBuilder& b, size_t r) {
    return AppendI32(b, manifest(r).content == iceberg::FileContent::kData ? 0 : 1);
  });
  c.Add("path", String(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendBytes(b, manifest(r).manifest_path); });
  c.Add("length", Int64(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, manifest(r).manifest_length); });
  c.Add("partition_spec_id", Int32(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI32(b, manifest(r).partition_spec_id); });
  c.Add("added_snapshot_id", Int64(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, manifest(r).added_snapshot_id); });
  // A data manifest counts data files and no delete files, a delete manifest the reverse;
  // NULL when the manifest list does not record the count (v1 snapshots without a list).
  using Count = std::optional<int32_t> iceberg::ManifestFile::*;
  auto counts = [&](std::string name, Count count, bool data) {
    c.Add(std::move(name), Int32(), true, [=](ArrayBuilder& b, size_t r) {
      const iceberg::ManifestFile& mf = manifest(r);
      const bool is_data = mf.content == iceberg::FileContent::kData;
      if (is_data != data) return AppendI32(b, 0);
      return AppendI32(b, mf.*count);
    });
  };
  counts("added_data_files_count", &iceberg::ManifestFile::added_files_count, true);
  counts("existing_data_files_count", &iceberg::ManifestFile::existing_files_count, true);
  counts("deleted_data_files_count", &iceberg::ManifestFile::deleted_files_count, true);
  counts("added_delete_files_count", &iceberg::ManifestFile::added_files_count, false);
  counts("existing_delete_files_count", &iceberg::ManifestFile::existing_files_count, false);
  counts("deleted_delete_files_count", &iceberg::ManifestFile::deleted_files_count, false);
  const iceberg::TableMetadata* m = ctx.metadata;
  std::map<int32_t, TypePtr> spec_types = ctx.spec_types;
  c.Add("partition_summaries", PartitionSummaryType(), false, [=](ArrayBuilder& b, size_t r) {
    const iceberg::ManifestFile& mf = manifest(r);
    auto& lb = static_cast<ListBuilder&>(b);
    FLOE_RETURN_NOT_OK(lb.Append());
    auto& sb = static_cast<StructBuilder&>(*lb.value_builder());
    iceberg::PartitionSpecPtr spec = m->SpecById(mf.partition_spec_id);
    auto type = spec_types.find(mf.partition_spec_id);
    for (size_t i = 0; i < mf.partitions.size(); ++i) {
      const iceberg::PartitionFieldSummary& summary = mf.partitions[i];
      std::optional<std::string> lower;
      std::optional<std::string> upper;
      if (spec && type != spec_types.end() && type->second && i < spec->fields().size() &&
          static_cast<int>(i) < type->second->num_fields()) {
        const TypePtr& field_type = type->second->field(static_cast<int>(i)).type();
        lower = HumanBound(summary.lower_bound, spec->fields()[i], field_type);
        upper = HumanBound(summary.upper_bound, spec->fields()[i], field_type);
      }
      FLOE_RETURN_NOT_OK(sb.Append());
      FLOE_RETURN_NOT_OK(AppendBool(*sb.field_builder(0), summary.contains_null));
      FLOE_RETURN_NOT_OK(AppendBool(*sb.field_builder(1), summary.contains_nan));
      FLOE_RETURN_NOT_OK(AppendBytes(*sb.field_builder(2), lower));
      FLOE_RETURN_NOT_OK(AppendBytes(*sb.field_builder(3), upper));
    }
    return Status::OK();
  });
  return c;
}

// files ----------------------------------------------------------------------------------

// A file's partition tuple placed into the union partition struct by partition field id
// (fields of other specs are NULL).
std::vector<Scalar> UnionPartition(const iceberg::TableMetadata& m, const TypePtr& union_type,
                                   const iceberg::DataFile& file) {
  std::vector<Scalar> out;
  out.reserve(static_cast<size_t>(union_type->num_fields()));
  for (const Field& f : union_type->fields()) out.push_back(Scalar::Null(f.type()));
  iceberg::PartitionSpecPtr spec = m.SpecById(file.spec_id);
  if (!spec) return out;
  for (size_t k = 0; k < spec->fields().size() && k < file.partition.size(); ++k) {
    const int32_t id = spec->fields()[k].field_id;
    for (int u = 0; u < union_type->num_fields(); ++u) {
      if (union_type->field(u).field_id() == id) out[static_cast<size_t>(u)] = file.partition[k];
    }
  }
  return out;
}

Status AppendPartition(ArrayBuilder& b, const std::vector<Scalar>& values) {
  auto& sb = static_cast<StructBuilder&>(b);
  FLOE_RETURN_NOT_OK(sb.Append());
  for (size_t i = 0; i < values.size(); ++i) {
    ArrayBuilder& child = *sb.field_builder(static_cast<int>(i));
    if (values[i].is_null()) {
      FLOE_RETURN_NOT_OK(child.AppendNull());
    } else if (!values[i].type()->Equals(*child.type())) {
      return Status::Internal("partition value of type {} in a {} partition field",
                              values[i].type()->ToString(), child.type()->ToString());
    } else {
      FLOE_RETURN_NOT_OK(child.AppendScalar(values[i]));
    }
  }
  return Status::OK();
}

bool HasPartitionFields(const Context& ctx) {
  return ctx.partition_type && ctx.partition_type->num_fields() > 0;
}

Columns FileColumns(const Context& ctx,
                    std::shared_ptr<const std::vector<iceberg::ManifestEntry>> entries) {
  Columns c;
  if (!entries) entries = std::make_shared<const std::vector<iceberg::ManifestEntry>>();
  c.rows = entries->size();
  auto file = [entries](size_t r) -> const iceberg::DataFile& { return *(*entries)[r].data_file; };
  c.Add("content", Int32(), false, [=](ArrayBuilder& b, size_t r) {
    return AppendI32(b, static_cast<int32_t>(file(r).content));
  });
  c.Add("file_path", String(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendBytes(b, file(r).file_path); });
  c.Add("file_format", String(), false, [=](ArrayBuilder& b, size_t r) {
    return AppendBytes(b, std::string(iceberg::FileFormatName(file(r).file_format)));
  });
  c.Add("spec_id", Int32(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI32(b, file(r).spec_id); });
  // As in the reference implementation, a table never partitioned has no partition column
  // (an empty struct).
  if (HasPartitionFields(ctx)) {
    const iceberg::TableMetadata* m = ctx.metadata;
    TypePtr type = ctx.partition_type;
    c.Add("partition", type, false, [=](ArrayBuilder& b, size_t r) {
      return AppendPartition(b, UnionPartition(*m, type, file(r)));
    });
  }
  c.Add("record_count", Int64(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, file(r).record_count); });
  c.Add("file_size_in_bytes", Int64(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, file(r).file_size_in_bytes); });
  c.Add("column_sizes", CountMapType(), true, [=](ArrayBuilder& b, size_t r) {
    return AppendCountMap(b, file(r).column_sizes, file(r), 0);
  });
  c.Add("value_counts", CountMapType(), true, [=](ArrayBuilder& b, size_t r) {
    return AppendCountMap(b, file(r).value_counts, file(r), 1);
  });
  c.Add("null_value_counts", CountMapType(), true, [=](ArrayBuilder& b, size_t r) {
    return AppendCountMap(b, file(r).null_value_counts, file(r), 2);
  });
  c.Add("nan_value_counts", CountMapType(), true, [=](ArrayBuilder& b, size_t r) {
    return AppendCountMap(b, file(r).nan_value_counts, file(r), 3);
  });
  c.Add("lower_bounds", BoundMapType(), true, [=](ArrayBuilder& b, size_t r) {
    return AppendBoundMap(b, file(r).lower_bounds, file(r), 4);
  });
  c.Add("upper_bounds", BoundMapType(), true, [=](ArrayBuilder& b, size_t r) {
    return AppendBoundMap(b, file(r).upper_bounds, file(r), 5);
  });
  c.Add("key_metadata", Binary(), true,
        [=](ArrayBuilder& b, size_t r) { return AppendBytes(b, file(r).key_metadata); });
  c.Add("split_offsets", List(Int64(), false), true,
        [=](ArrayBuilder& b, size_t r) { return AppendList(b, file(r).split_offsets); });
  c.Add("equality_ids", List(Int32(), false), true,
        [=](ArrayBuilder& b, size_t r) { return AppendList(b, file(r).equality_ids); });
  c.Add("sort_order_id", Int32(), true,
        [=](ArrayBuilder& b, size_t r) { return AppendI32(b, file(r).sort_order_id); });
  c.Add("first_row_id", Int64(), true,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, file(r).first_row_id); });
  c.Add("referenced_data_file", String(), true,
        [=](ArrayBuilder& b, size_t r) { return AppendBytes(b, file(r).referenced_data_file); });
  c.Add("content_offset", Int64(), true,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, file(r).content_offset); });
  c.Add("content_size_in_bytes", Int64(), true,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, file(r).content_size_in_bytes); });
  // The metrics per column of the current schema, bounds decoded to the column's type (a
  // bound that does not decode, e.g. written before a type change, is NULL).
  if (ctx.readable_metrics_type && ctx.readable_metrics_type->num_fields() > 0) {
    std::vector<Context::MetricColumn> columns = ctx.metric_columns;
    c.Add("readable_metrics", ctx.readable_metrics_type, false,
          [=](ArrayBuilder& b, size_t r) -> Status {
            const iceberg::DataFile& f = file(r);
            auto& sb = static_cast<StructBuilder&>(b);
            FLOE_RETURN_NOT_OK(sb.Append());
            auto count = [](const std::map<int32_t, int64_t>& map,
                            int32_t id) -> std::optional<int64_t> {
              auto it = map.find(id);
              if (it == map.end()) return std::nullopt;
              return it->second;
            };
            auto bound = [](ArrayBuilder& out, const std::map<int32_t, std::string>& map,
                            const Context::MetricColumn& column) -> Status {
              auto it = map.find(column.field_id);
              if (it == map.end()) return out.AppendNull();
              Result<Scalar> value = iceberg::DeserializeValue(column.type, it->second);
              if (!value.ok() || value->is_null() || !value->type()->Equals(*out.type())) {
                return out.AppendNull();
              }
              return out.AppendScalar(*value);
            };
            for (size_t i = 0; i < columns.size(); ++i) {
              const Context::MetricColumn& column = columns[i];
              auto& cb = static_cast<StructBuilder&>(*sb.field_builder(static_cast<int>(i)));
              FLOE_RETURN_NOT_OK(cb.Append());
              FLOE_RETURN_NOT_OK(
                  AppendI64(*cb.field_builder(0), count(f.column_sizes, column.field_id)));
              FLOE_RETURN_NOT_OK(
                  AppendI64(*cb.field_builder(1), count(f.value_counts, column.field_id)));
              FLOE_RETURN_NOT_OK(
                  AppendI64(*cb.field_builder(2), count(f.null_value_counts, column.field_id)));
              FLOE_RETURN_NOT_OK(
                  AppendI64(*cb.field_builder(3), count(f.nan_value_counts, column.field_id)));
              FLOE_RETURN_NOT_OK(bound(*cb.field_builder(4), f.lower_bounds, column));
              FLOE_RETURN_NOT_OK(bound(*cb.field_builder(5), f.upper_bounds, column));
            }
            return Status::OK();
          });
  }
  return c;
}

// The files columns whose values come from the manifests' column metrics.
bool IsMetricsColumn(std::string_view name) {
  return name == "column_sizes" || name == "value_counts" || name == "null_value_counts" ||
         name == "nan_value_counts" || name == "lower_bounds" || name == "upper_bounds" ||
         name == "readable_metrics";
}

// partitions -----------------------------------------------------------------------------

struct PartitionRow {
  std::vector<Scalar> partition;
  int32_t spec_id = 0;
  int64_t record_count = 0;
  int32_t file_count = 0;
  int64_t total_data_file_size_in_bytes = 0;
  int64_t position_delete_record_count = 0;
  int32_t position_delete_file_count = 0;
  int64_t equality_delete_record_count = 0;
  int32_t equality_delete_file_count = 0;
  std::optional<int64_t> last_updated_ms;
  std::optional<int64_t> last_updated_snapshot_id;
};

// A byte key for a partition tuple: per value a null flag, then its length and its
// single-value serialization.
Result<std::string> PartitionKey(const std::vector<Scalar>& values) {
  std::string key;
  for (const Scalar& v : values) {
    if (v.is_null()) {
      key.push_back('\0');
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(std::string bytes, iceberg::SerializeValue(v));
    key.push_back('\1');
    key += fmt::format("{}:", bytes.size());
    key += bytes;
  }
  return key;
}

Result<std::vector<PartitionRow>> AggregatePartitions(
    const Context& ctx, const std::vector<iceberg::ManifestEntry>& entries) {
  std::vector<PartitionRow> rows;
  std::unordered_map<std::string, size_t> index;
  const iceberg::TableMetadata& m = *ctx.metadata;
  const bool partitioned = HasPartitionFields(ctx);
  for (const iceberg::ManifestEntry& entry : entries) {
    const iceberg::DataFile& file = *entry.data_file;
    std::vector<Scalar> partition;
    if (partitioned) partition = UnionPartition(m, ctx.partition_type, file);
    FLOE_ASSIGN_OR_RAISE(std::string key, PartitionKey(partition));
    auto [it, inserted] = index.emplace(std::move(key), rows.size());
    if (inserted) {
      rows.emplace_back();
      rows.back().partition = std::move(partition);
    }
    PartitionRow& row = rows[it->second];
    row.spec_id = file.spec_id;
    switch (file.content) {
      case iceberg::FileContent::kData:
        row.record_count += file.record_count;
        row.file_count += 1;
        row.total_data_file_size_in_bytes += file.file_size_in_bytes;
        break;
      case iceberg::FileContent::kPositionDeletes:
        row.position_delete_record_count += file.record_count;
        row.position_delete_file_count += 1;
        break;
      case iceberg::FileContent::kEqualityDeletes:
        row.equality_delete_record_count += file.record_count;
        row.equality_delete_file_count += 1;
        break;
    }
    // The last update is the newest commit that added a live file of the partition.
    const iceberg::Snapshot* snapshot = m.SnapshotById(entry.snapshot_id);
    if (snapshot != nullptr &&
        (!row.last_updated_ms || snapshot->timestamp_ms > *row.last_updated_ms)) {
      row.last_updated_ms = snapshot->timestamp_ms;
      row.last_updated_snapshot_id = snapshot->snapshot_id;
    }
  }
  return rows;
}

Columns PartitionColumns(const Context& ctx,
                         std::shared_ptr<const std::vector<PartitionRow>> partitions) {
  Columns c;
  if (!partitions) partitions = std::make_shared<const std::vector<PartitionRow>>();
  c.rows = partitions->size();
  auto row = [partitions](size_t r) -> const PartitionRow& { return (*partitions)[r]; };
  // An unpartitioned table has one row (when it has files) and neither partition column.
  if (HasPartitionFields(ctx)) {
    c.Add("partition", ctx.partition_type, false,
          [=](ArrayBuilder& b, size_t r) { return AppendPartition(b, row(r).partition); });
    c.Add("spec_id", Int32(), false,
          [=](ArrayBuilder& b, size_t r) { return AppendI32(b, row(r).spec_id); });
  }
  c.Add("record_count", Int64(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, row(r).record_count); });
  c.Add("file_count", Int32(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI32(b, row(r).file_count); });
  c.Add("total_data_file_size_in_bytes", Int64(), false, [=](ArrayBuilder& b, size_t r) {
    return AppendI64(b, row(r).total_data_file_size_in_bytes);
  });
  c.Add("position_delete_record_count", Int64(), false, [=](ArrayBuilder& b, size_t r) {
    return AppendI64(b, row(r).position_delete_record_count);
  });
  c.Add("position_delete_file_count", Int32(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI32(b, row(r).position_delete_file_count); });
  c.Add("equality_delete_record_count", Int64(), false, [=](ArrayBuilder& b, size_t r) {
    return AppendI64(b, row(r).equality_delete_record_count);
  });
  c.Add("equality_delete_file_count", Int32(), false,
        [=](ArrayBuilder& b, size_t r) { return AppendI32(b, row(r).equality_delete_file_count); });
  c.Add("last_updated_at", TimestampTz(), true, [=](ArrayBuilder& b, size_t r) {
    return AppendMillisAsTimestamp(b, row(r).last_updated_ms);
  });
  c.Add("last_updated_snapshot_id", Int64(), true,
        [=](ArrayBuilder& b, size_t r) { return AppendI64(b, row(r).last_updated_snapshot_id); });
  return c;
}

// Loading --------------------------------------------------------------------------------

Result<std::vector<iceberg::ManifestFile>> LoadManifests(const iceberg::Table& table,
                                                         const iceberg::Snapshot* snapshot) {
  if (snapshot == nullptr) return std::vector<iceberg::ManifestFile>();
  if (!snapshot->manifest_list.empty()) {
    return iceberg::ReadManifestList(*table.io, snapshot->manifest_list);
  }
  return iceberg::ManifestFilesFromPaths(*table.io, snapshot->manifests, snapshot->snapshot_id,
                                         table.metadata->default_spec_id);
}

// The live entries (added and existing; data and delete files) of the snapshot.
Result<std::vector<iceberg::ManifestEntry>> LoadEntries(const iceberg::Table& table,
                                                        const Context& ctx,
                                                        const iceberg::Snapshot* snapshot,
                                                        bool with_metrics) {
  FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::ManifestFile> manifests,
                       LoadManifests(table, snapshot));
  std::vector<iceberg::ManifestEntry> out;
  const iceberg::ManifestReadOptions options = iceberg::ManifestReadOptions::Live(with_metrics);
  for (const iceberg::ManifestFile& manifest : manifests) {
    auto type = ctx.spec_types.find(manifest.partition_spec_id);
    std::vector<iceberg::ManifestEntry> entries;
    if (type != ctx.spec_types.end() && type->second) {
      FLOE_ASSIGN_OR_RAISE(entries,
                           iceberg::ReadManifest(*table.io, manifest, type->second, options));
    } else {
      FLOE_ASSIGN_OR_RAISE(entries,
                           iceberg::ReadManifestSelfDescribed(*table.io, manifest, options));
    }
    for (iceberg::ManifestEntry& entry : entries) out.push_back(std::move(entry));
  }
  return out;
}

// The partition struct of a spec over the newest schema that holds its sources.
TypePtr SpecPartitionType(const iceberg::TableMetadata& m, const iceberg::PartitionSpec& spec) {
  if (iceberg::SchemaPtr current = m.CurrentSchema()) {
    Result<TypePtr> type = spec.PartitionType(*current);
    if (type.ok()) return *type;
  }
  for (auto it = m.schemas.rbegin(); it != m.schemas.rend(); ++it) {
    if (!*it) continue;
    Result<TypePtr> type = spec.PartitionType(**it);
    if (type.ok()) return *type;
  }
  return nullptr;
}

void CollectMetricColumns(const std::vector<Field>& fields, const std::string& prefix,
                          std::vector<Context::MetricColumn>* out) {
  for (const Field& f : fields) {
    std::string name = prefix.empty() ? f.name() : prefix + "." + f.name();
    if (f.type()->id() == TypeId::kStruct) {
      CollectMetricColumns(f.type()->fields(), name, out);
    } else if (!f.type()->is_nested() && f.has_field_id()) {
      out->push_back({std::move(name), f.field_id(), f.type()});
    }
  }
}

Context MakeContext(const iceberg::TableMetadata& m) {
  Context ctx;
  ctx.metadata = &m;
  if (iceberg::SchemaPtr schema = m.CurrentSchema()) {
    CollectMetricColumns(schema->fields(), "", &ctx.metric_columns);
  }
  std::sort(ctx.metric_columns.begin(), ctx.metric_columns.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  std::vector<Field> metric_fields;
  for (const Context::MetricColumn& column : ctx.metric_columns) {
    metric_fields.emplace_back(
        column.name,
        Struct({Field("column_size", Int64()), Field("value_count", Int64()),
                Field("null_value_count", Int64()), Field("nan_value_count", Int64()),
                Field("lower_bound", column.type), Field("upper_bound", column.type)}),
        false);
  }
  ctx.readable_metrics_type = Struct(std::move(metric_fields));
  std::map<int32_t, Field> fields;  // by partition field id, the first spec's form
  for (const iceberg::PartitionSpecPtr& spec : m.partition_specs) {
    if (!spec) continue;
    TypePtr type = SpecPartitionType(m, *spec);
    ctx.spec_types[spec->spec_id()] = type;
    if (!type) continue;
    for (const Field& f : type->fields()) fields.emplace(f.field_id(), f);
  }
  std::vector<Field> ordered;
  for (auto& [id, field] : fields) ordered.push_back(field);
  ctx.partition_type = Struct(std::move(ordered));
  return ctx;
}

Columns SchemaColumns(MetadataTableKind kind, const Context& ctx) {
  switch (kind) {
    case MetadataTableKind::kSnapshots:
      return SnapshotColumns(ctx);
    case MetadataTableKind::kHistory:
      return HistoryColumns(ctx);
    case MetadataTableKind::kManifests:
      return ManifestColumns(ctx, nullptr);
    case MetadataTableKind::kFiles:
      return FileColumns(ctx, nullptr);
    case MetadataTableKind::kPartitions:
      return PartitionColumns(ctx, nullptr);
    case MetadataTableKind::kRefs:
      return RefColumns(ctx);
    case MetadataTableKind::kProperties:
      return PropertyColumns(ctx);
  }
  return SnapshotColumns(ctx);
}

}  // namespace

std::string_view MetadataTableKindName(MetadataTableKind kind) {
  switch (kind) {
    case MetadataTableKind::kSnapshots:
      return "snapshots";
    case MetadataTableKind::kHistory:
      return "history";
    case MetadataTableKind::kManifests:
      return "manifests";
    case MetadataTableKind::kFiles:
      return "files";
    case MetadataTableKind::kPartitions:
      return "partitions";
    case MetadataTableKind::kRefs:
      return "refs";
    case MetadataTableKind::kProperties:
      return "properties";
  }
  return "snapshots";
}

Result<MetadataTableKind> ParseMetadataTableKind(std::string_view name,
                                                 std::string_view table_name) {
  std::string known;
  for (MetadataTableKind kind : kAllKinds) {
    if (MetadataTableKindName(kind) == name) return kind;
    known += known.empty() ? "" : ", ";
    known += "$" + std::string(MetadataTableKindName(kind));
  }
  return Status::NotFound("metadata table \"{}\" does not exist (\"{}\" is not one of {})",
                          table_name, name, known);
}

std::optional<std::pair<std::string, std::string>> SplitMetadataTableName(std::string_view part) {
  const size_t dollar = part.rfind('$');
  if (dollar == std::string_view::npos || dollar == 0 || dollar + 1 == part.size()) {
    return std::nullopt;
  }
  return std::make_pair(std::string(part.substr(0, dollar)), std::string(part.substr(dollar + 1)));
}

Result<std::shared_ptr<IcebergMetadataTable>> IcebergMetadataTable::Make(
    std::string name, MetadataTableKind kind, iceberg::Table table,
    std::optional<int64_t> snapshot_id) {
  if (!table.metadata) return Status::Internal("metadata table {} without metadata", name);
  auto out = std::shared_ptr<IcebergMetadataTable>(new IcebergMetadataTable());
  const iceberg::TableMetadata& m = *table.metadata;
  if (snapshot_id) {
    out->snapshot_ = m.SnapshotById(*snapshot_id);
    if (out->snapshot_ == nullptr) {
      return Status::NotFound("table {} has no snapshot {}", name, *snapshot_id);
    }
  } else {
    out->snapshot_ = m.CurrentSnapshot();
  }
  Context ctx = MakeContext(m);
  out->partition_type_ = ctx.partition_type;
  out->schema_ = std::make_shared<const Schema>(SchemaColumns(kind, ctx).fields);
  out->name_ = std::move(name);
  out->kind_ = kind;
  out->table_ = std::move(table);
  return out;
}

plan::Statistics IcebergMetadataTable::statistics() const {
  plan::Statistics stats;
  switch (kind_) {
    case MetadataTableKind::kSnapshots:
    case MetadataTableKind::kHistory:
    case MetadataTableKind::kRefs:
    case MetadataTableKind::kProperties: {
      Context ctx;
      ctx.metadata = table_.metadata.get();
      stats.row_count = static_cast<int64_t>(SchemaColumns(kind_, ctx).rows);
      stats.exact = true;
      break;
    }
    case MetadataTableKind::kManifests:
    case MetadataTableKind::kFiles:
    case MetadataTableKind::kPartitions:
      break;
  }
  return stats;
}

Result<RecordBatchPtr> IcebergMetadataTable::Read(const std::vector<int>& projection) const {
  for (int c : projection) {
    if (c < 0 || c >= schema_->num_fields()) {
      return Status::Internal("metadata table {}: column {} out of range ({} columns)", name_, c,
                              schema_->num_fields());
    }
  }
  Context ctx = MakeContext(*table_.metadata);
  Columns columns;
  switch (kind_) {
    case MetadataTableKind::kManifests: {
      FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::ManifestFile> manifests,
                           LoadManifests(table_, snapshot_));
      columns = ManifestColumns(
          ctx, std::make_shared<const std::vector<iceberg::ManifestFile>>(std::move(manifests)));
      break;
    }
    case MetadataTableKind::kFiles: {
      bool with_metrics = false;
      for (int c : projection)
        with_metrics = with_metrics || IsMetricsColumn(schema_->field(c).name());
      FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::ManifestEntry> entries,
                           LoadEntries(table_, ctx, snapshot_, with_metrics));
      columns = FileColumns(
          ctx, std::make_shared<const std::vector<iceberg::ManifestEntry>>(std::move(entries)));
      break;
    }
    case MetadataTableKind::kPartitions: {
      FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::ManifestEntry> entries,
                           LoadEntries(table_, ctx, snapshot_, /*with_metrics=*/false));
      FLOE_ASSIGN_OR_RAISE(std::vector<PartitionRow> rows, AggregatePartitions(ctx, entries));
      columns =
          PartitionColumns(ctx, std::make_shared<const std::vector<PartitionRow>>(std::move(rows)));
      break;
    }
    default:
      columns = SchemaColumns(kind_, ctx);
      break;
  }
  if (static_cast<int>(columns.fields.size()) != schema_->num_fields()) {
    return Status::Internal("metadata table {}: {} columns, the schema has {}", name_,
                            columns.fields.size(), schema_->num_fields());
  }
  std::vector<Field> fields;
  std::vector<ArrayPtr> arrays;
  for (int c : projection) {
    const Field& field = schema_->field(c);
    std::unique_ptr<ArrayBuilder> builder = MakeBuilder(field.type());
    FLOE_RETURN_NOT_OK(builder->Reserve(static_cast<int64_t>(columns.rows)));
    const Appender& append = columns.appenders[static_cast<size_t>(c)];
    for (size_t r = 0; r < columns.rows; ++r) {
      Status st = append(*builder, r);
      if (!st.ok())
        return st.WithPrefix(fmt::format("metadata table {}, column {}: ", name_, field.name()));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr array, builder->Finish());
    fields.push_back(field);
    arrays.push_back(std::move(array));
  }
  return RecordBatch::Make(std::make_shared<const Schema>(std::move(fields)),
                           static_cast<int64_t>(columns.rows), std::move(arrays));
}

Result<exec::PlanPtr> IcebergMetadataTable::Scan(const exec::ScanRequest& request,
                                                 const exec::SessionConfig& config) const {
  FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, Read(request.projection));
  int64_t rows = batch->num_rows();
  if (request.limit) rows = std::clamp<int64_t>(*request.limit, 0, rows);
  // Batches of at most batch_size rows (a table of many files lists many rows).
  const int64_t batch_size = std::max<int64_t>(config.batch_size(), 1);
  std::vector<RecordBatchPtr> batches;
  for (int64_t offset = 0; offset < rows; offset += batch_size) {
    batches.push_back(batch->Slice(offset, std::min(batch_size, rows - offset)));
  }
  return exec::ValuesExec::Make(batch->schema(), std::move(batches));
}

}  // namespace floe::connector
