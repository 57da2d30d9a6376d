#include "floe/iceberg/manifest_io.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <variant>

#include "floe/batch/builder.h"
#include "floe/format/avro/reader.h"
#include "floe/format/avro/schema.h"
#include "floe/format/avro/writer.h"
#include "floe/iceberg/manifest_io_internal.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/type_json.h"
#include "floe/io/file.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

namespace internal {

namespace {

Field Opt(std::string name, TypePtr type, int32_t id) {
  return Field(std::move(name), std::move(type), /*nullable=*/true, id);
}
Field Req(std::string name, TypePtr type, int32_t id, bool for_read) {
  return Field(std::move(name), std::move(type), /*nullable=*/for_read, id);
}

TypePtr MetricMapType(const MetricMapIds& ids) {
  return Map(
      Field("key", Int32(), /*nullable=*/false, ids.key_id),
      Field("value", ids.binary_values ? Binary() : Int64(), /*nullable=*/false, ids.value_id));
}

}  // namespace

std::vector<Field> DataFileFields(int v, const TypePtr& partition_type, bool with_stats,
                                  DataFileLayout* layout) {
  const bool read = v == 0;
  std::vector<Field> f;
  auto add = [&](int* slot, Field field) {
    *slot = static_cast<int>(f.size());
    f.push_back(std::move(field));
  };
  DataFileLayout l;
  if (read || v >= 2) add(&l.content, Req("content", Int32(), kContentId, read));
  add(&l.file_path, Req("file_path", String(), kFilePathId, read));
  add(&l.file_format, Req("file_format", String(), kFileFormatId, read));
  if (!read || partition_type->num_fields() > 0) {
    add(&l.partition, Req("partition", partition_type, kPartitionId, read));
  }
  add(&l.record_count, Req("record_count", Int64(), kRecordCountId, read));
  add(&l.file_size, Req("file_size_in_bytes", Int64(), kFileSizeId, read));
  if (v == 1) add(&l.block_size, Req("block_size_in_bytes", Int64(), kBlockSizeId, false));
  if (!read || with_stats) {
    for (int i = 0; i < 6; ++i) {
      add(&l.metric_maps[i],
          Opt(kMetricMaps[i].name, MetricMapType(kMetricMaps[i]), kMetricMaps[i].field_id));
    }
  }
  add(&l.key_metadata, Opt("key_metadata", Binary(), kKeyMetadataId));
  add(&l.split_offsets,
      Opt("split_offsets", List(Field("element", Int64(), false, kSplitOffsetsElementId)),
          kSplitOffsetsId));
  if (read || v >= 2) {
    add(&l.equality_ids,
        // The spec's element type is int; pyiceberg writes long. Reading as long accepts
        // both (int -> long promotion); the values are range-checked below.
        Opt("equality_ids",
            List(Field("element", read ? Int64() : Int32(), false, kEqualityIdsElementId)),
            kEqualityIdsId));
  }
  add(&l.sort_order_id, Opt("sort_order_id", Int32(), kSortOrderIdId));
  if (read || v >= 3) add(&l.first_row_id, Opt("first_row_id", Int64(), kFirstRowIdId));
  if (read || v >= 2) {
    add(&l.referenced_data_file, Opt("referenced_data_file", String(), kReferencedDataFileId));
  }
  if (read || v >= 3) {
    add(&l.content_offset, Opt("content_offset", Int64(), kContentOffsetId));
    add(&l.content_size, Opt("content_size_in_bytes", Int64(), kContentSizeId));
  }
  if (layout) *layout = l;
  return f;
}

std::vector<Field> ManifestEntryFields(int v, const TypePtr& partition_type, bool with_stats,
                                       DataFileLayout* layout) {
  const bool read = v == 0;
  std::vector<Field> f;
  f.push_back(Req("status", Int32(), kStatusId, read));
  // v1 requires the snapshot id; v2 makes it optional (inherited when null).
  f.push_back(v == 1 ? Req("snapshot_id", Int64(), kSnapshotIdId, false)
                     : Opt("snapshot_id", Int64(), kSnapshotIdId));
  if (read || v >= 2) {
    f.push_back(Opt("sequence_number", Int64(), kSequenceNumberId));
    f.push_back(Opt("file_sequence_number", Int64(), kFileSequenceNumberId));
  }
  f.push_back(Req("data_file", Struct(DataFileFields(v, partition_type, with_stats, layout)),
                  kDataFileId, read));
  return f;
}

std::vector<Field> ManifestFileFields(int v) {
  const bool read = v == 0;
  const bool v2 = read || v >= 2;
  // v1 leaves the counts optional; v2 requires them.
  auto count = [&](std::string name, TypePtr type, int32_t id) {
    return v == 1 ? Opt(std::move(name), std::move(type), id)
                  : Req(std::move(name), std::move(type), id, read);
  };
  std::vector<Field> f;
  f.push_back(Req("manifest_path", String(), kManifestPathId, read));
  f.push_back(Req("manifest_length", Int64(), kManifestLengthId, read));
  f.push_back(Req("partition_spec_id", Int32(), kPartitionSpecIdId, read));
  if (v2) {
    f.push_back(Req("content", Int32(), kManifestContentId, read));
    f.push_back(Req("sequence_number", Int64(), kManifestSequenceNumberId, read));
    f.push_back(Req("min_sequence_number", Int64(), kMinSequenceNumberId, read));
  }
  f.push_back(Req("added_snapshot_id", Int64(), kAddedSnapshotIdId, read));
  f.push_back(count("added_files_count", Int32(), kAddedFilesCountId));
  f.push_back(count("existing_files_count", Int32(), kExistingFilesCountId));
  f.push_back(count("deleted_files_count", Int32(), kDeletedFilesCountId));
  f.push_back(count("added_rows_count", Int64(), kAddedRowsCountId));
  f.push_back(count("existing_rows_count", Int64(), kExistingRowsCountId));
  f.push_back(count("deleted_rows_count", Int64(), kDeletedRowsCountId));
  TypePtr summary = Struct({Req("contains_null", Boolean(), kContainsNullId, read),
                            Opt("contains_nan", Boolean(), kContainsNanId),
                            Opt("lower_bound", Binary(), kLowerBoundId),
                            Opt("upper_bound", Binary(), kUpperBoundId)});
  f.push_back(Opt("partitions", List(Field("element", summary, false, kPartitionsElementId)),
                  kPartitionsId));
  f.push_back(Opt("key_metadata", Binary(), kManifestKeyMetadataId));
  if (read || v >= 3) f.push_back(Opt("first_row_id", Int64(), kManifestFirstRowIdId));
  return f;
}

}  // namespace internal

namespace {

using internal::DataFileLayout;
using internal::kMetricMaps;

// ---------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------

Result<std::shared_ptr<io::RandomAccessFile>> OpenInput(const io::FileIO& io,
                                                        const std::string& path) {
  auto file = io.NewInputFile(path);
  if (!file.has_value()) return file.error();
  return std::shared_ptr<io::RandomAccessFile>(std::move(*file));
}

Result<std::unique_ptr<avro::AvroFileReader>> OpenAvro(const io::FileIO& io,
                                                       const std::string& path,
                                                       std::string_view what) {
  FLOE_ASSIGN_OR_RAISE(auto file, OpenInput(io, path));
  auto reader = avro::AvroFileReader::Open(std::move(file));
  if (!reader.has_value()) {
    return reader.error().WithPrefix(fmt::format("{} {}: ", what, path));
  }
  return std::move(*reader);
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> OptI64(const Array* a, int64_t i) {
  if (a == nullptr || a->IsNull(i)) return std::nullopt;
  return a->Value<int64_t>(i);
}
std::optional<int32_t> OptI32(const Array* a, int64_t i) {
  if (a == nullptr || a->IsNull(i)) return std::nullopt;
  return a->Value<int32_t>(i);
}
std::optional<std::string> OptBytes(const Array* a, int64_t i) {
  if (a == nullptr || a->IsNull(i)) return std::nullopt;
  return std::string(a->BytesValue(i));
}

/// Partition values are Iceberg primitives (nested types and the engine's int8/int16 are not).
Status CheckPartitionType(const DataType& type, std::string_view field) {
  if (!type.is_nested() && type.id() != TypeId::kInt8 && type.id() != TypeId::kInt16) {
    return Status::OK();
  }
  return Status::NotSupported("partition field '{}' has type {}, which is not a partition type",
                              field, type.ToString());
}

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// ---------------------------------------------------------------------------------------
// Decoding data_file structs from batch columns
// ---------------------------------------------------------------------------------------

/// Decodes data_file values of one layout; built once per file, bound to each batch.
class DataFileDecoder {
 public:
  static Result<DataFileDecoder> Make(const TypePtr& partition_type, DataFileLayout layout,
                                      const ManifestReadOptions& options) {
    DataFileDecoder d;
    d.layout_ = layout;
    d.partition_type_ = partition_type;
    for (const Field& f : partition_type->fields()) {
      FLOE_RETURN_NOT_OK(CheckPartitionType(*f.type(), f.name()));
    }
    if (options.include_column_stats && !options.stats_column_ids.empty()) {
      // Ids are dense and small for ordinary columns (a bitmap lookup); the spec's reserved
      // metadata columns sit near 2^31 and are kept in a sorted list instead, so that the
      // bitmap never grows with them.
      for (int32_t id : options.stats_column_ids) {
        if (id < 0) continue;
        if (id < kMaxBitmapStatsId) {
          if (static_cast<size_t>(id) >= d.stats_filter_.size()) {
            d.stats_filter_.resize(static_cast<size_t>(id) + 1, false);
          }
          d.stats_filter_[static_cast<size_t>(id)] = true;
        } else {
          d.large_stats_ids_.push_back(id);
        }
      }
      std::sort(d.large_stats_ids_.begin(), d.large_stats_ids_.end());
      d.filter_stats_ = true;
    }
    return d;
  }

  /// Binds the struct's field arrays (`field(i)` of the data_file struct or the columns
  /// of a batch of data_file records).
  template <typename FieldAt>
  void Bind(FieldAt field_at) {
    auto get = [&](int idx) -> ArrayPtr { return idx < 0 ? nullptr : field_at(idx); };
    content_ = get(layout_.content);
    file_path_ = get(layout_.file_path);
    file_format_ = get(layout_.file_format);
    record_count_ = get(layout_.record_count);
    file_size_ = get(layout_.file_size);
    key_metadata_ = get(layout_.key_metadata);
    split_offsets_ = get(layout_.split_offsets);
    equality_ids_ = get(layout_.equality_ids);
    sort_order_id_ = get(layout_.sort_order_id);
    first_row_id_ = get(layout_.first_row_id);
    referenced_data_file_ = get(layout_.referenced_data_file);
    content_offset_ = get(layout_.content_offset);
    content_size_ = get(layout_.content_size);
    split_values_ = split_offsets_ ? split_offsets_->child(0) : nullptr;
    equality_values_ = equality_ids_ ? equality_ids_->child(0) : nullptr;
    partition_fields_.clear();
    partition_struct_ = nullptr;
    if (layout_.partition >= 0) {
      partition_struct_ = field_at(layout_.partition);
      for (int i = 0; i < partition_struct_->num_children(); ++i) {
        partition_fields_.push_back(partition_struct_->field(i));
      }
    }
    for (int m = 0; m < 6; ++m) {
      maps_[m] = get(layout_.metric_maps[m]);
      if (maps_[m]) {
        const ArrayPtr& entries = maps_[m]->child(0);
        map_keys_[m] = entries->field(0);
        map_values_[m] = entries->field(1);
      } else {
        map_keys_[m] = nullptr;
        map_values_[m] = nullptr;
      }
    }
  }

  /// The record count of row i (for first-row-id inheritance), 0 when null.
  int64_t record_count(int64_t i) const {
    return record_count_ && !record_count_->IsNull(i) ? record_count_->Value<int64_t>(i) : 0;
  }
  bool has_null_first_row_id(int64_t i) const {
    return first_row_id_ == nullptr || first_row_id_->IsNull(i);
  }
  FileContent content(int64_t i) const {
    if (content_ == nullptr || content_->IsNull(i)) return FileContent::kData;
    return static_cast<FileContent>(content_->Value<int32_t>(i));
  }

  /// Decodes row i. Errors name `what` (the file) and the record's `index` in it.
  Status Decode(int64_t i, int32_t spec_id, std::string_view what, int64_t index,
                DataFile* out) const {
    // Formatted only for an error: this runs once per data file.
    auto where = [&]() { return fmt::format("{} entry {}", what, index); };
    if (content_ && !content_->IsNull(i)) {
      int32_t c = content_->Value<int32_t>(i);
      if (c < 0 || c > 2) {
        return Status::Corrupt("{}: data_file content {} is not 0, 1 or 2", where(), c);
      }
      out->content = static_cast<FileContent>(c);
    }
    if (file_path_ == nullptr || file_path_->IsNull(i)) {
      return Status::Corrupt("{}: data_file has no file_path", where());
    }
    out->file_path.assign(file_path_->BytesValue(i));
    if (file_format_ == nullptr || file_format_->IsNull(i)) {
      return Status::Corrupt("{}: data_file {} has no file_format", where(), out->file_path);
    }
    auto format = ParseFileFormat(file_format_->BytesValue(i));
    if (!format.has_value()) {
      return format.error().WithPrefix(fmt::format("{}: data_file {}: ", where(), out->file_path));
    }
    out->file_format = *format;
    out->spec_id = spec_id;
    auto rc = OptI64(record_count_.get(), i);
    auto fs = OptI64(file_size_.get(), i);
    if (!rc || !fs) {
      return Status::Corrupt("{}: data_file {} lacks {}", where(), out->file_path,
                             !rc ? "record_count" : "file_size_in_bytes");
    }
    out->record_count = *rc;
    out->file_size_in_bytes = *fs;

    const auto& pfields = partition_type_->fields();
    out->partition.clear();
    out->partition.reserve(pfields.size());
    // A file without the partition struct (or with a null one) has no partition values.
    const bool no_partition = partition_fields_.empty() || partition_struct_->IsNull(i);
    for (size_t p = 0; p < pfields.size(); ++p) {
      if (no_partition) {
        out->partition.push_back(Scalar::Null(pfields[p].type()));
      } else {
        out->partition.push_back(ScalarAt(*partition_fields_[p], i, pfields[p].type()));
      }
    }

    std::map<int32_t, int64_t>* count_maps[4] = {&out->column_sizes, &out->value_counts,
                                                 &out->null_value_counts, &out->nan_value_counts};
    std::map<int32_t, std::string>* bound_maps[2] = {&out->lower_bounds, &out->upper_bounds};
    for (int m = 0; m < 6; ++m) {
      const Array* map = maps_[m].get();
      if (map == nullptr || map->IsNull(i)) continue;
      const Array& keys = *map_keys_[m];
      const Array& values = *map_values_[m];
      int64_t begin = map->ListBegin(i);
      int64_t end = map->ListEnd(i);
      const int32_t* key_data = keys.values<int32_t>();
      if (m < 4) {
        auto& dst = *count_maps[m];
        const int64_t* vals = values.values<int64_t>();
        for (int64_t k = begin; k < end; ++k) {
          if (!KeepStat(key_data[k])) continue;
          dst.emplace_hint(dst.end(), key_data[k], vals[k]);
        }
      } else {
        auto& dst = *bound_maps[m - 4];
        for (int64_t k = begin; k < end; ++k) {
          if (!KeepStat(key_data[k])) continue;
          dst.emplace_hint(dst.end(), key_data[k], values.BytesValue(k));
        }
      }
    }

    out->key_metadata = OptBytes(key_metadata_.get(), i);
    if (split_offsets_ && !split_offsets_->IsNull(i)) {
      const int64_t* vals = split_values_->values<int64_t>();
      out->split_offsets.assign(vals + split_offsets_->ListBegin(i),
                                vals + split_offsets_->ListEnd(i));
    }
    if (equality_ids_ && !equality_ids_->IsNull(i)) {
      const int64_t* vals = equality_values_->values<int64_t>();
      for (int64_t k = equality_ids_->ListBegin(i); k < equality_ids_->ListEnd(i); ++k) {
        if (vals[k] <= 0 || vals[k] > INT32_MAX) {
          return Status::Corrupt("{}: data_file {} has equality field id {}, not a field id",
                                 where(), out->file_path, vals[k]);
        }
        out->equality_ids.push_back(static_cast<int32_t>(vals[k]));
      }
    }
    out->sort_order_id = OptI32(sort_order_id_.get(), i);
    out->first_row_id = OptI64(first_row_id_.get(), i);
    out->referenced_data_file = OptBytes(referenced_data_file_.get(), i);
    out->content_offset = OptI64(content_offset_.get(), i);
    out->content_size_in_bytes = OptI64(content_size_.get(), i);
    return Status::OK();
  }

 private:
  bool KeepStat(int32_t id) const {
    if (!filter_stats_) return true;
    if (id < 0) return false;
    if (id < kMaxBitmapStatsId) {
      return static_cast<size_t>(id) < stats_filter_.size() &&
             stats_filter_[static_cast<size_t>(id)];
    }
    return std::binary_search(large_stats_ids_.begin(), large_stats_ids_.end(), id);
  }

  DataFileLayout layout_;
  TypePtr partition_type_;
  bool filter_stats_ = false;
  static constexpr int32_t kMaxBitmapStatsId = 1 << 20;
  std::vector<bool> stats_filter_;
  std::vector<int32_t> large_stats_ids_;

  ArrayPtr content_, file_path_, file_format_, record_count_, file_size_, key_metadata_,
      split_offsets_, split_values_, equality_ids_, equality_values_, sort_order_id_, first_row_id_,
      referenced_data_file_, content_offset_, content_size_;
  ArrayPtr partition_struct_;
  std::vector<ArrayPtr> partition_fields_;
  ArrayPtr maps_[6];
  ArrayPtr map_keys_[6];
  ArrayPtr map_values_[6];
};

/// The partition type to read a file with: the caller's type, each field typed as the
/// caller wants. The Avro reader resolves fields by id, so fields the file lacks read
/// as NULL.
TypePtr ReadPartitionType(const TypePtr& partition_type) {
  std::vector<Field> fields;
  for (const Field& f : partition_type->fields()) fields.push_back(f.WithNullable(true));
  return Struct(std::move(fields));
}

Result<ManifestHeader> HeaderFrom(const avro::AvroFileReader& reader, std::string_view path) {
  ManifestHeader h;
  if (const std::string* v = reader.metadata_value("format-version")) {
    auto n = ParseInt(*v);
    if (!n || *n < 1 || *n > 3) {
      return Status::Corrupt("manifest {}: format-version '{}' is not 1, 2 or 3", path, *v);
    }
    h.format_version = static_cast<int>(*n);
  }
  if (const std::string* v = reader.metadata_value("partition-spec-id")) {
    auto n = ParseInt(*v);
    if (!n || *n < 0 || *n > std::numeric_limits<int32_t>::max()) {
      return Status::Corrupt("manifest {}: partition-spec-id '{}' is not a spec id", path, *v);
    }
    h.partition_spec_id = static_cast<int32_t>(*n);
  }
  if (const std::string* v = reader.metadata_value("schema-id")) {
    auto n = ParseInt(*v);
    if (n && *n >= 0 && *n <= std::numeric_limits<int32_t>::max()) {
      h.schema_id = static_cast<int32_t>(*n);
    }
  }
  if (const std::string* v = reader.metadata_value("content")) {
    if (*v == "deletes") {
      h.content = FileContent::kPositionDeletes;
    } else if (*v != "data") {
      return Status::Corrupt("manifest {}: content '{}' is neither 'data' nor 'deletes'", path, *v);
    }
  }
  if (const std::string* v = reader.metadata_value("schema")) h.schema_json = *v;
  if (const std::string* v = reader.metadata_value("partition-spec")) h.partition_spec_json = *v;
  return h;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// File formats and spec JSON
// ---------------------------------------------------------------------------------------

std::string_view FileFormatName(FileFormat format) {
  switch (format) {
    case FileFormat::kParquet:
      return "PARQUET";
    case FileFormat::kAvro:
      return "AVRO";
    case FileFormat::kOrc:
      return "ORC";
    case FileFormat::kPuffin:
      return "PUFFIN";
  }
  return "PARQUET";
}

Result<FileFormat> ParseFileFormat(std::string_view name) {
  std::string lower = LowerAscii(name);
  if (lower == "parquet") return FileFormat::kParquet;
  if (lower == "avro") return FileFormat::kAvro;
  if (lower == "orc") return FileFormat::kOrc;
  if (lower == "puffin") return FileFormat::kPuffin;
  return Status::NotSupported("file format '{}' is not parquet, avro, orc or puffin", name);
}

Result<std::pair<SchemaPtr, PartitionSpecPtr>> PartitionSpecFromHeader(const ManifestHeader& header,
                                                                       std::string_view path) {
  if (header.schema_json.empty() || header.partition_spec_json.empty()) {
    return Status::Corrupt("manifest {}: header has no {}", path,
                           header.schema_json.empty() ? "'schema'" : "'partition-spec'");
  }
  FLOE_ASSIGN_OR_RAISE(SchemaPtr schema,
                       SchemaFromJsonString(header.schema_json, fmt::format("manifest {}", path)));
  nlohmann::json fields_json = nlohmann::json::parse(header.partition_spec_json, nullptr,
                                                     /*allow_exceptions=*/false);
  if (fields_json.is_discarded()) {
    return Status::Corrupt("manifest {}: partition-spec is not valid JSON", path);
  }
  // Some writers store the whole spec object rather than its fields array.
  auto spec =
      fields_json.is_object()
          ? PartitionSpecFromJson(fields_json, *schema, fmt::format("manifest {}", path))
          : PartitionSpecFromFieldsJson(fields_json, *schema, header.partition_spec_id.value_or(0),
                                        fmt::format("manifest {}", path));
  if (!spec.has_value()) return spec.error();
  return std::make_pair(std::move(schema), std::move(*spec));
}

// ---------------------------------------------------------------------------------------
// Manifest lists
// ---------------------------------------------------------------------------------------

Result<std::vector<ManifestFile>> ReadManifestList(const io::FileIO& io, const std::string& path) {
  FLOE_ASSIGN_OR_RAISE(auto reader, OpenAvro(io, path, "manifest list"));
  auto target = std::make_shared<floe::Schema>(internal::ManifestFileFields(0));
  auto stream = reader->Read(target, 4096);
  if (!stream.has_value()) {
    return stream.error().WithPrefix(fmt::format("manifest list {}: ", path));
  }
  std::vector<ManifestFile> out;
  while (true) {
    auto next = (*stream)->Next();
    if (!next.has_value()) return next.error().WithPrefix(fmt::format("manifest list {}: ", path));
    RecordBatchPtr batch = std::move(*next);
    if (!batch) break;
    // Columns in ManifestFileFields(0) order.
    const Array& mpath = *batch->column(0);
    const Array& length = *batch->column(1);
    const Array& spec_id = *batch->column(2);
    const Array* content = batch->column(3).get();
    const Array* seq = batch->column(4).get();
    const Array* min_seq = batch->column(5).get();
    const Array* added_snapshot = batch->column(6).get();
    const Array* counts[3] = {batch->column(7).get(), batch->column(8).get(),
                              batch->column(9).get()};
    const Array* rows[3] = {batch->column(10).get(), batch->column(11).get(),
                            batch->column(12).get()};
    const Array& partitions = *batch->column(13);
    const Array* key_metadata = batch->column(14).get();
    const Array* first_row_id = batch->column(15).get();
    ArrayPtr summary = partitions.child(0);
    ArrayPtr s_null = summary->field(0), s_nan = summary->field(1), s_lower = summary->field(2),
             s_upper = summary->field(3);
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      int64_t index = static_cast<int64_t>(out.size());
      if (mpath.IsNull(i) || length.IsNull(i) || spec_id.IsNull(i)) {
        return Status::Corrupt("manifest list {}: entry {} lacks {}", path, index,
                               mpath.IsNull(i)    ? "manifest_path"
                               : length.IsNull(i) ? "manifest_length"
                                                  : "partition_spec_id");
      }
      ManifestFile m;
      m.manifest_path.assign(mpath.BytesValue(i));
      m.manifest_length = length.Value<int64_t>(i);
      m.partition_spec_id = spec_id.Value<int32_t>(i);
      if (auto c = OptI32(content, i)) {
        if (*c != 0 && *c != 1) {
          return Status::Corrupt("manifest list {}: entry {} has content {} (not 0 or 1)", path,
                                 index, *c);
        }
        m.content = *c == 0 ? FileContent::kData : FileContent::kPositionDeletes;
      }
      m.sequence_number = OptI64(seq, i).value_or(0);
      m.min_sequence_number = OptI64(min_seq, i).value_or(0);
      m.added_snapshot_id = OptI64(added_snapshot, i).value_or(0);
      m.added_files_count = OptI32(counts[0], i);
      m.existing_files_count = OptI32(counts[1], i);
      m.deleted_files_count = OptI32(counts[2], i);
      m.added_rows_count = OptI64(rows[0], i);
      m.existing_rows_count = OptI64(rows[1], i);
      m.deleted_rows_count = OptI64(rows[2], i);
      if (!partitions.IsNull(i)) {
        for (int64_t k = partitions.ListBegin(i); k < partitions.ListEnd(i); ++k) {
          PartitionFieldSummary s;
          s.contains_null = !s_null->IsNull(k) && s_null->BoolValue(k);
          if (!s_nan->IsNull(k)) s.contains_nan = s_nan->BoolValue(k);
          s.lower_bound = OptBytes(s_lower.get(), k);
          s.upper_bound = OptBytes(s_upper.get(), k);
          m.partitions.push_back(std::move(s));
        }
      }
      m.key_metadata = OptBytes(key_metadata, i);
      m.first_row_id = OptI64(first_row_id, i);
      out.push_back(std::move(m));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Manifests
// ---------------------------------------------------------------------------------------

Result<ManifestHeader> ReadManifestHeader(const io::FileIO& io, const std::string& path) {
  FLOE_ASSIGN_OR_RAISE(auto reader, OpenAvro(io, path, "manifest"));
  return HeaderFrom(*reader, path);
}

Result<std::vector<ManifestEntry>> ReadManifest(const io::FileIO& io, const ManifestFile& manifest,
                                                const TypePtr& partition_type,
                                                const ManifestReadOptions& options) {
  const std::string& path = manifest.manifest_path;
  if (!partition_type || partition_type->id() != TypeId::kStruct) {
    return Status::Invalid("manifest {}: the partition type must be a struct", path);
  }
  FLOE_ASSIGN_OR_RAISE(auto reader, OpenAvro(io, path, "manifest"));
  FLOE_ASSIGN_OR_RAISE(ManifestHeader header, HeaderFrom(*reader, path));
  const int32_t spec_id = header.partition_spec_id.value_or(manifest.partition_spec_id);

  DataFileLayout layout;
  TypePtr read_partition = ReadPartitionType(partition_type);
  auto target = std::make_shared<floe::Schema>(
      internal::ManifestEntryFields(0, read_partition, options.include_column_stats, &layout));
  FLOE_ASSIGN_OR_RAISE(DataFileDecoder decoder,
                       DataFileDecoder::Make(partition_type, layout, options));
  auto stream = reader->Read(target, 4096);
  if (!stream.has_value()) return stream.error().WithPrefix(fmt::format("manifest {}: ", path));

  const std::string manifest_name = "manifest " + path;
  const bool inherit_row_ids =
      manifest.first_row_id.has_value() && manifest.content == FileContent::kData;
  int64_t next_row_id = manifest.first_row_id.value_or(0);
  std::vector<ManifestEntry> out;
  int64_t index = 0;
  while (true) {
    auto next = (*stream)->Next();
    if (!next.has_value()) return next.error().WithPrefix(fmt::format("manifest {}: ", path));
    RecordBatchPtr batch = std::move(*next);
    if (!batch) break;
    const Array& status = *batch->column(0);
    const Array& snapshot = *batch->column(1);
    const Array& seq = *batch->column(2);
    const Array& file_seq = *batch->column(3);
    const ArrayPtr& data_file = batch->column(4);
    decoder.Bind([&](int idx) { return data_file->field(idx); });
    for (int64_t i = 0; i < batch->num_rows(); ++i, ++index) {
      if (status.IsNull(i) || data_file->IsNull(i)) {
        return Status::Corrupt("manifest {}: entry {} lacks {}", path, index,
                               status.IsNull(i) ? "status" : "data_file");
      }
      int32_t st = status.Value<int32_t>(i);
      if (st < 0 || st > 2) {
        return Status::Corrupt("manifest {}: entry {} has status {} (not 0, 1 or 2)", path, index,
                               st);
      }
      auto entry_status = static_cast<ManifestEntryStatus>(st);
      std::optional<int64_t> row_id;
      if (inherit_row_ids && decoder.content(i) == FileContent::kData &&
          decoder.has_null_first_row_id(i)) {
        row_id = next_row_id;
        next_row_id += decoder.record_count(i);
      }
      bool wanted = entry_status == ManifestEntryStatus::kAdded      ? options.include_added
                    : entry_status == ManifestEntryStatus::kExisting ? options.include_existing
                                                                     : options.include_deleted;
      if (!wanted) continue;

      ManifestEntry e;
      e.status = entry_status;
      e.snapshot_id = snapshot.IsNull(i) ? manifest.added_snapshot_id : snapshot.Value<int64_t>(i);
      // Sequence numbers are inherited for ADDED entries, and by every entry of a
      // manifest whose sequence number is 0 (v1 metadata, which has none).
      const bool may_inherit =
          entry_status == ManifestEntryStatus::kAdded || manifest.sequence_number == 0;
      if (!seq.IsNull(i)) {
        e.sequence_number = seq.Value<int64_t>(i);
      } else if (may_inherit) {
        e.sequence_number = manifest.sequence_number;
      } else {
        return Status::Corrupt(
            "manifest {}: entry {} (status {}) has a null sequence_number; only ADDED entries "
            "inherit it",
            path, index, st);
      }
      if (!file_seq.IsNull(i)) {
        e.file_sequence_number = file_seq.Value<int64_t>(i);
      } else if (may_inherit) {
        e.file_sequence_number = manifest.sequence_number;
      } else {
        return Status::Corrupt(
            "manifest {}: entry {} (status {}) has a null file_sequence_number; only ADDED "
            "entries inherit it",
            path, index, st);
      }
      auto file = std::make_shared<DataFile>();
      FLOE_RETURN_NOT_OK(decoder.Decode(i, spec_id, manifest_name, index, file.get()));
      if (row_id) file->first_row_id = row_id;
      e.data_file = std::move(file);
      out.push_back(std::move(e));
    }
  }
  return out;
}

Result<std::vector<ManifestEntry>> ReadManifest(const io::FileIO& io, const ManifestFile& manifest,
                                                const PartitionSpec& spec, const Schema& schema,
                                                const ManifestReadOptions& options) {
  auto type = spec.PartitionType(schema);
  if (!type.has_value()) {
    return type.error().WithPrefix(fmt::format("manifest {}: ", manifest.manifest_path));
  }
  return ReadManifest(io, manifest, *type, options);
}

Result<std::vector<ManifestEntry>> ReadManifestSelfDescribed(const io::FileIO& io,
                                                             const ManifestFile& manifest,
                                                             const ManifestReadOptions& options) {
  FLOE_ASSIGN_OR_RAISE(ManifestHeader header, ReadManifestHeader(io, manifest.manifest_path));
  FLOE_ASSIGN_OR_RAISE(auto parts, PartitionSpecFromHeader(header, manifest.manifest_path));
  return ReadManifest(io, manifest, *parts.second, *parts.first, options);
}

Result<std::vector<ManifestFile>> ManifestFilesFromPaths(const io::FileIO& io,
                                                         const std::vector<std::string>& paths,
                                                         int64_t snapshot_id,
                                                         int32_t default_spec_id) {
  std::vector<ManifestFile> out;
  out.reserve(paths.size());
  for (const std::string& path : paths) {
    FLOE_ASSIGN_OR_RAISE(auto file, OpenInput(io, path));
    int64_t length = file->size();
    auto reader = avro::AvroFileReader::Open(std::move(file));
    if (!reader.has_value()) return reader.error().WithPrefix(fmt::format("manifest {}: ", path));
    FLOE_ASSIGN_OR_RAISE(ManifestHeader header, HeaderFrom(**reader, path));
    ManifestFile m;
    m.manifest_path = path;
    m.manifest_length = length;
    m.partition_spec_id = header.partition_spec_id.value_or(default_spec_id);
    m.content = header.content;
    m.added_snapshot_id = snapshot_id;
    out.push_back(std::move(m));
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------

namespace {

/// Forwards to a stream and remembers how many bytes went through, so the length is known
/// after the Avro writer has closed (and released) the stream.
class CountingOutputStream final : public io::OutputStream {
 public:
  CountingOutputStream(std::unique_ptr<io::OutputStream> out, std::shared_ptr<int64_t> count)
      : out_(std::move(out)), count_(std::move(count)) {}
  Status Write(const void* data, int64_t length) override {
    FLOE_RETURN_NOT_OK(out_->Write(data, length));
    *count_ += length;
    return Status::OK();
  }
  int64_t position() const override { return out_->position(); }
  Status Close() override { return out_->Close(); }
  const std::string& path() const override { return out_->path(); }

 private:
  std::unique_ptr<io::OutputStream> out_;
  std::shared_ptr<int64_t> count_;
};

/// An output stream appending to a shared string (kept after the stream is gone).
class StringOutputStream final : public io::OutputStream {
 public:
  explicit StringOutputStream(std::shared_ptr<std::string> bytes) : bytes_(std::move(bytes)) {}
  Status Write(const void* data, int64_t length) override {
    bytes_->append(static_cast<const char*>(data), static_cast<size_t>(length));
    return Status::OK();
  }
  int64_t position() const override { return static_cast<int64_t>(bytes_->size()); }
  Status Close() override { return Status::OK(); }
  const std::string& path() const override { return name_; }

 private:
  std::shared_ptr<std::string> bytes_;
  std::string name_ = "<data files>";
};

Status AppendMetricMap(ArrayBuilder* builder, const std::map<int32_t, int64_t>& values) {
  auto* mb = static_cast<MapBuilder*>(builder);
  if (values.empty()) return mb->AppendNull();
  FLOE_RETURN_NOT_OK(mb->Append());
  auto* keys = static_cast<Int32Builder*>(mb->key_builder());
  auto* vals = static_cast<Int64Builder*>(mb->item_builder());
  for (const auto& [k, v] : values) {
    FLOE_RETURN_NOT_OK(keys->Append(k));
    FLOE_RETURN_NOT_OK(vals->Append(v));
  }
  return Status::OK();
}

Status AppendBoundMap(ArrayBuilder* builder, const std::map<int32_t, std::string>& values) {
  auto* mb = static_cast<MapBuilder*>(builder);
  if (values.empty()) return mb->AppendNull();
  FLOE_RETURN_NOT_OK(mb->Append());
  auto* keys = static_cast<Int32Builder*>(mb->key_builder());
  auto* vals = static_cast<BinaryBuilder*>(mb->item_builder());
  for (const auto& [k, v] : values) {
    FLOE_RETURN_NOT_OK(keys->Append(k));
    FLOE_RETURN_NOT_OK(vals->Append(v));
  }
  return Status::OK();
}

template <typename B, typename T>
Status AppendOpt(ArrayBuilder* builder, const std::optional<T>& v) {
  if (!v) return builder->AppendNull();
  return static_cast<B*>(builder)->Append(*v);
}

Status AppendBytesOpt(ArrayBuilder* builder, const std::optional<std::string>& v) {
  if (!v) return builder->AppendNull();
  return static_cast<BinaryBuilder*>(builder)->Append(*v);
}

template <typename B, typename T>
Status AppendList(ArrayBuilder* builder, const std::vector<T>& values, bool null_when_empty) {
  auto* lb = static_cast<ListBuilder*>(builder);
  if (values.empty() && null_when_empty) return lb->AppendNull();
  FLOE_RETURN_NOT_OK(lb->Append());
  auto* vb = static_cast<B*>(lb->value_builder());
  for (const T& v : values) FLOE_RETURN_NOT_OK(vb->Append(v));
  return Status::OK();
}

/// kInvalidArgument unless the file's partition values match the partition type's fields
/// in number and type (NULLs of any type allowed).
Status CheckPartition(const DataFile& f, const TypePtr& partition_type, std::string_view where) {
  const auto& pfields = partition_type->fields();
  if (f.partition.size() != pfields.size()) {
    return Status::Invalid("{}: data file {} has {} partition values; the partition type has {}",
                           where, f.file_path, f.partition.size(), pfields.size());
  }
  for (size_t p = 0; p < pfields.size(); ++p) {
    const Scalar& v = f.partition[p];
    if (!v.is_null() && !v.type()->Equals(*pfields[p].type())) {
      return Status::Invalid(
          "{}: data file {}: partition value {} has type {}, partition field '{}' is {}", where,
          f.file_path, p, v.type()->ToString(), pfields[p].name(), pfields[p].type()->ToString());
    }
  }
  return Status::OK();
}

/// Appends one data_file struct value to `sb` (built from DataFileFields(version)); the
/// partition values must have passed CheckPartition.
Status AppendDataFile(StructBuilder* sb, const DataFileLayout& l, const DataFile& f,
                      const TypePtr& partition_type, std::string_view where) {
  FLOE_RETURN_NOT_OK(sb->Append());
  auto child = [&](int idx) { return sb->field_builder(idx); };
  if (l.content >= 0) {
    FLOE_RETURN_NOT_OK(
        static_cast<Int32Builder*>(child(l.content))->Append(static_cast<int32_t>(f.content)));
  }
  FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(child(l.file_path))->Append(f.file_path));
  FLOE_RETURN_NOT_OK(
      static_cast<BinaryBuilder*>(child(l.file_format))->Append(FileFormatName(f.file_format)));
  if (l.partition >= 0) {
    auto* pb = static_cast<StructBuilder*>(child(l.partition));
    const auto& pfields = partition_type->fields();
    FLOE_RETURN_NOT_OK(pb->Append());
    for (size_t p = 0; p < pfields.size(); ++p) {
      const Scalar& v = f.partition[p];
      auto st = pb->field_builder(static_cast<int>(p))->AppendScalar(v);
      if (!st.ok()) return st.WithPrefix(fmt::format("{}: data file {}: ", where, f.file_path));
    }
  }
  FLOE_RETURN_NOT_OK(static_cast<Int64Builder*>(child(l.record_count))->Append(f.record_count));
  FLOE_RETURN_NOT_OK(static_cast<Int64Builder*>(child(l.file_size))->Append(f.file_size_in_bytes));
  if (l.block_size >= 0) {
    // Deprecated; v1 requires a value (the spec: "always write a default").
    FLOE_RETURN_NOT_OK(static_cast<Int64Builder*>(child(l.block_size))->Append(64 << 20));
  }
  const std::map<int32_t, int64_t>* counts[4] = {&f.column_sizes, &f.value_counts,
                                                 &f.null_value_counts, &f.nan_value_counts};
  for (int m = 0; m < 4; ++m) {
    FLOE_RETURN_NOT_OK(AppendMetricMap(child(l.metric_maps[m]), *counts[m]));
  }
  FLOE_RETURN_NOT_OK(AppendBoundMap(child(l.metric_maps[4]), f.lower_bounds));
  FLOE_RETURN_NOT_OK(AppendBoundMap(child(l.metric_maps[5]), f.upper_bounds));
  FLOE_RETURN_NOT_OK(AppendBytesOpt(child(l.key_metadata), f.key_metadata));
  FLOE_RETURN_NOT_OK(AppendList<Int64Builder>(child(l.split_offsets), f.split_offsets, true));
  if (l.equality_ids >= 0) {
    FLOE_RETURN_NOT_OK(AppendList<Int32Builder>(child(l.equality_ids), f.equality_ids, true));
  }
  FLOE_RETURN_NOT_OK(AppendOpt<Int32Builder>(child(l.sort_order_id), f.sort_order_id));
  if (l.first_row_id >= 0) {
    FLOE_RETURN_NOT_OK(AppendOpt<Int64Builder>(child(l.first_row_id), f.first_row_id));
  }
  if (l.referenced_data_file >= 0) {
    FLOE_RETURN_NOT_OK(AppendBytesOpt(child(l.referenced_data_file), f.referenced_data_file));
  }
  if (l.content_offset >= 0) {
    FLOE_RETURN_NOT_OK(AppendOpt<Int64Builder>(child(l.content_offset), f.content_offset));
    FLOE_RETURN_NOT_OK(AppendOpt<Int64Builder>(child(l.content_size), f.content_size_in_bytes));
  }
  return Status::OK();
}

/// Builds batches of rows for an Avro writer: one builder per top-level field, flushed
/// every kRows rows.
class BatchWriter {
 public:
  static constexpr int64_t kRows = 1024;

  BatchWriter(std::vector<Field> fields, std::unique_ptr<avro::AvroFileWriter> writer)
      : schema_(std::make_shared<floe::Schema>(std::move(fields))), writer_(std::move(writer)) {
    for (const Field& f : schema_->fields()) builders_.push_back(MakeBuilder(f.type()));
  }
  ArrayBuilder* builder(int i) { return builders_[static_cast<size_t>(i)].get(); }
  Status RowDone() {
    if (++rows_ >= kRows) return Flush();
    return Status::OK();
  }
  Status Flush() {
    if (rows_ == 0) return Status::OK();
    std::vector<ArrayPtr> columns;
    for (auto& b : builders_) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr a, b->Finish());
      columns.push_back(std::move(a));
    }
    FLOE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(schema_, rows_, std::move(columns)));
    rows_ = 0;
    return writer_->Write(*batch);
  }
  Status Close() {
    FLOE_RETURN_NOT_OK(Flush());
    return writer_->Close();
  }

 private:
  floe::SchemaPtr schema_;
  std::unique_ptr<avro::AvroFileWriter> writer_;
  std::vector<std::unique_ptr<ArrayBuilder>> builders_;
  int64_t rows_ = 0;
};

Result<std::string> AvroSchemaFor(const std::vector<Field>& fields, std::string_view name) {
  floe::Schema schema(fields);
  return avro::ToAvroSchemaJson(schema, name);
}

std::string CodecName(const std::string& codec) { return codec.empty() ? "deflate" : codec; }

/// Per-partition-field summary accumulator (spec, "Manifest Lists", field_summary).
class SummaryBuilder {
 public:
  explicit SummaryBuilder(TypePtr type) : type_(std::move(type)) {}

  Status Update(const Scalar& v) {
    if (v.is_null()) {
      contains_null_ = true;
      return Status::OK();
    }
    if (IsNaN(v)) {
      contains_nan_ = true;
      return Status::OK();
    }
    if (!lower_ || Less(v, *lower_)) lower_ = v;
    if (!upper_ || Less(*upper_, v)) upper_ = v;
    return Status::OK();
  }

  Result<PartitionFieldSummary> Finish() const {
    PartitionFieldSummary s;
    s.contains_null = contains_null_;
    if (type_->is_floating())
      s.contains_nan = contains_nan_;
    else
      s.contains_nan = false;
    if (lower_) {
      FLOE_ASSIGN_OR_RAISE(std::string lo, SerializeValue(*lower_));
      FLOE_ASSIGN_OR_RAISE(std::string hi, SerializeValue(*upper_));
      s.lower_bound = std::move(lo);
      s.upper_bound = std::move(hi);
    }
    return s;
  }

 private:
  static bool IsNaN(const Scalar& v) {
    if (const float* f = std::get_if<float>(&v.value())) return *f != *f;
    if (const double* d = std::get_if<double>(&v.value())) return *d != *d;
    return false;
  }
  // Order of Iceberg values of one type: numbers numerically (-0.0 before +0.0),
  // strings and binary as unsigned bytes, booleans false < true.
  static bool Less(const Scalar& a, const Scalar& b) {
    return std::visit(
        [&](const auto& x) -> bool {
          using T = std::decay_t<decltype(x)>;
          const T& y = std::get<T>(b.value());
          if constexpr (std::is_same_v<T, std::monostate>) {
            return false;
          } else if constexpr (std::is_floating_point_v<T>) {
            if (x == y) return std::signbit(x) && !std::signbit(y);
            return x < y;
          } else if constexpr (std::is_same_v<T, std::string>) {
            return std::lexicographical_compare(
                x.begin(), x.end(), y.begin(), y.end(), [](char p, char q) {
                  return static_cast<unsigned char>(p) < static_cast<unsigned char>(q);
                });
          } else {
            return x < y;
          }
        },
        a.value());
  }

  TypePtr type_;
  bool contains_null_ = false;
  bool contains_nan_ = false;
  std::optional<Scalar> lower_;
  std::optional<Scalar> upper_;
};

}  // namespace

struct ManifestWriter::Impl {
  std::string path;
  ManifestWriterOptions options;
  int32_t spec_id = 0;
  TypePtr partition_type;
  DataFileLayout layout;
  std::unique_ptr<BatchWriter> batches;
  std::shared_ptr<int64_t> bytes = std::make_shared<int64_t>(0);
  std::vector<SummaryBuilder> summaries;
  int64_t entries = 0;
  int32_t added_files = 0, existing_files = 0, deleted_files = 0;
  int64_t added_rows = 0, existing_rows = 0, deleted_rows = 0;
  std::optional<int64_t> min_sequence_number;
  bool closed = false;
  bool failed = false;

  Status Append(ManifestEntryStatus status, std::optional<int64_t> snapshot_id,
                std::optional<int64_t> seq, std::optional<int64_t> file_seq, const DataFile& file) {
    if (closed) return Status::Invalid("manifest {}: written after Close", path);
    if (failed) return Status::Invalid("manifest {}: an earlier append failed", path);
    const int v = options.format_version;
    const bool delete_manifest = options.content != FileContent::kData;
    if (delete_manifest != (file.content != FileContent::kData)) {
      return Status::Invalid("manifest {}: a {} manifest cannot hold {} file {}", path,
                             delete_manifest ? "delete" : "data",
                             file.content == FileContent::kData ? "data" : "delete",
                             file.file_path);
    }
    if (v == 1 && !snapshot_id) {
      return Status::Invalid("manifest {}: v1 entries need a snapshot id", path);
    }
    if (v >= 2 && status != ManifestEntryStatus::kAdded && (!seq || !file_seq)) {
      return Status::Invalid(
          "manifest {}: EXISTING and DELETED entries need their sequence numbers (file {})", path,
          file.file_path);
    }
    FLOE_RETURN_NOT_OK(CheckPartition(file, partition_type, fmt::format("manifest {}", path)));
    // Past the checks an append can only fail inside a builder, which leaves the rows
    // uneven: the writer refuses further entries then.
    auto st = AppendRow(status, snapshot_id, seq, file_seq, file);
    if (!st.ok()) {
      failed = true;
      return st;
    }
    ++entries;
    switch (status) {
      case ManifestEntryStatus::kAdded:
        ++added_files;
        added_rows += file.record_count;
        break;
      case ManifestEntryStatus::kExisting:
        ++existing_files;
        existing_rows += file.record_count;
        break;
      case ManifestEntryStatus::kDeleted:
        ++deleted_files;
        deleted_rows += file.record_count;
        break;
    }
    if (status != ManifestEntryStatus::kDeleted) {
      if (seq) min_sequence_number = std::min(min_sequence_number.value_or(*seq), *seq);
    }
    // Partition summaries cover every entry of the manifest.
    for (size_t p = 0; p < summaries.size(); ++p) {
      FLOE_RETURN_NOT_OK(summaries[p].Update(file.partition[p]));
    }
    return Status::OK();
  }

  Status AppendRow(ManifestEntryStatus status, std::optional<int64_t> snapshot_id,
                   std::optional<int64_t> seq, std::optional<int64_t> file_seq,
                   const DataFile& file) {
    const int v = options.format_version;
    int col = 0;
    FLOE_RETURN_NOT_OK(
        static_cast<Int32Builder*>(batches->builder(col++))->Append(static_cast<int32_t>(status)));
    FLOE_RETURN_NOT_OK(AppendOpt<Int64Builder>(batches->builder(col++), snapshot_id));
    if (v >= 2) {
      FLOE_RETURN_NOT_OK(AppendOpt<Int64Builder>(batches->builder(col++), seq));
      FLOE_RETURN_NOT_OK(AppendOpt<Int64Builder>(batches->builder(col++), file_seq));
    }
    FLOE_RETURN_NOT_OK(AppendDataFile(static_cast<StructBuilder*>(batches->builder(col)), layout,
                                      file, partition_type, path));
    return batches->RowDone();
  }
};

ManifestWriter::ManifestWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ManifestWriter::~ManifestWriter() = default;

Result<std::unique_ptr<ManifestWriter>> ManifestWriter::Make(const io::FileIO& io, std::string path,
                                                             const Schema& schema,
                                                             const PartitionSpec& spec,
                                                             ManifestWriterOptions options) {
  const int v = options.format_version;
  if (v < 1 || v > 3) {
    return Status::Invalid("manifest {}: format version {} is not 1, 2 or 3", path, v);
  }
  if (v == 1 && options.content != FileContent::kData) {
    return Status::Invalid("manifest {}: delete manifests need format version 2 or later", path);
  }
  if (v == 1 && !options.snapshot_id) {
    return Status::Invalid("manifest {}: a v1 manifest needs the snapshot id", path);
  }
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->options = options;
  impl->spec_id = spec.spec_id();
  auto ptype = spec.PartitionType(schema);
  if (!ptype.has_value()) return ptype.error().WithPrefix(fmt::format("manifest {}: ", path));
  impl->partition_type = *ptype;
  for (const Field& f : impl->partition_type->fields()) impl->summaries.emplace_back(f.type());

  std::vector<Field> fields =
      internal::ManifestEntryFields(v, impl->partition_type, true, &impl->layout);
  FLOE_ASSIGN_OR_RAISE(std::string avro_schema, AvroSchemaFor(fields, "manifest_entry"));
  FLOE_ASSIGN_OR_RAISE(std::string schema_json, SchemaToJsonString(schema));
  KeyValueMetadata meta;
  meta.emplace_back("schema", schema_json);
  meta.emplace_back("schema-id", std::to_string(schema.schema_id()));
  meta.emplace_back("partition-spec", PartitionFieldsToJson(spec).dump());
  meta.emplace_back("partition-spec-id", std::to_string(spec.spec_id()));
  meta.emplace_back("format-version", std::to_string(v));
  if (v >= 2) {
    meta.emplace_back("content", options.content == FileContent::kData ? "data" : "deletes");
  }
  FLOE_ASSIGN_OR_RAISE(auto out, io.NewOutputFile(path));
  auto counting = std::make_unique<CountingOutputStream>(std::move(out), impl->bytes);
  avro::AvroWriteOptions wopts;
  wopts.codec = CodecName(options.codec);
  auto writer = avro::AvroFileWriter::Open(std::move(counting), std::move(avro_schema),
                                           std::move(meta), wopts);
  if (!writer.has_value()) return writer.error().WithPrefix(fmt::format("manifest {}: ", path));
  impl->batches = std::make_unique<BatchWriter>(std::move(fields), std::move(*writer));
  return std::unique_ptr<ManifestWriter>(new ManifestWriter(std::move(impl)));
}

Status ManifestWriter::Add(const DataFile& file, std::optional<int64_t> data_sequence_number) {
  // An added file's file sequence number is always the commit's (inherited).
  return impl_->Append(ManifestEntryStatus::kAdded, impl_->options.snapshot_id,
                       data_sequence_number, std::nullopt, file);
}

Status ManifestWriter::Existing(const ManifestEntry& entry) {
  if (!entry.data_file)
    return Status::Invalid("manifest {}: entry without a data file", impl_->path);
  return impl_->Append(ManifestEntryStatus::kExisting, entry.snapshot_id, entry.sequence_number,
                       entry.file_sequence_number, *entry.data_file);
}

Status ManifestWriter::Delete(const ManifestEntry& entry) {
  if (!entry.data_file)
    return Status::Invalid("manifest {}: entry without a data file", impl_->path);
  std::optional<int64_t> snapshot = impl_->options.snapshot_id;
  if (!snapshot) snapshot = entry.snapshot_id;
  return impl_->Append(ManifestEntryStatus::kDeleted, snapshot, entry.sequence_number,
                       entry.file_sequence_number, *entry.data_file);
}

Status ManifestWriter::Write(const ManifestEntry& entry) {
  if (!entry.data_file)
    return Status::Invalid("manifest {}: entry without a data file", impl_->path);
  auto opt = [](int64_t s) {
    return s == kUnassignedSequenceNumber ? std::nullopt : std::optional<int64_t>(s);
  };
  return impl_->Append(entry.status, entry.snapshot_id, opt(entry.sequence_number),
                       opt(entry.file_sequence_number), *entry.data_file);
}

int64_t ManifestWriter::entry_count() const { return impl_->entries; }

Result<ManifestFile> ManifestWriter::Close() {
  Impl& s = *impl_;
  if (s.closed) return Status::Invalid("manifest {}: closed twice", s.path);
  s.closed = true;
  if (s.failed) return Status::Invalid("manifest {}: an earlier append failed", s.path);
  FLOE_RETURN_NOT_OK(s.batches->Close());
  ManifestFile m;
  m.manifest_path = s.path;
  m.manifest_length = *s.bytes;
  m.partition_spec_id = s.spec_id;
  m.content =
      s.options.content == FileContent::kData ? FileContent::kData : FileContent::kPositionDeletes;
  m.sequence_number = kUnassignedSequenceNumber;
  // Inherited sequence numbers are the new snapshot's, above every explicit one, so the
  // minimum is the smallest explicit one; with none, it is the snapshot's (assigned later).
  m.min_sequence_number = s.min_sequence_number.value_or(kUnassignedSequenceNumber);
  m.added_snapshot_id = s.options.snapshot_id.value_or(kUnassignedSnapshotId);
  m.added_files_count = s.added_files;
  m.existing_files_count = s.existing_files;
  m.deleted_files_count = s.deleted_files;
  m.added_rows_count = s.added_rows;
  m.existing_rows_count = s.existing_rows;
  m.deleted_rows_count = s.deleted_rows;
  for (const SummaryBuilder& b : s.summaries) {
    FLOE_ASSIGN_OR_RAISE(PartitionFieldSummary summary, b.Finish());
    m.partitions.push_back(std::move(summary));
  }
  if (s.options.format_version >= 3 && m.content == FileContent::kData) {
    m.first_row_id = s.options.first_row_id;
  }
  return m;
}

struct ManifestListWriter::Impl {
  std::string path;
  ManifestListWriterOptions options;
  std::unique_ptr<BatchWriter> batches;
  std::vector<ManifestFile> written;
  std::optional<int64_t> next_row_id;
  bool closed = false;
  bool failed = false;
};

ManifestListWriter::ManifestListWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ManifestListWriter::~ManifestListWriter() = default;

Result<std::unique_ptr<ManifestListWriter>> ManifestListWriter::Make(
    const io::FileIO& io, std::string path, ManifestListWriterOptions options) {
  const int v = options.format_version;
  if (v < 1 || v > 3) {
    return Status::Invalid("manifest list {}: format version {} is not 1, 2 or 3", path, v);
  }
  if (v >= 3 && !options.first_row_id) {
    return Status::Invalid("manifest list {}: a v3 list needs the snapshot's first row id", path);
  }
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->options = options;
  if (v >= 3) impl->next_row_id = options.first_row_id;
  std::vector<Field> fields = internal::ManifestFileFields(v);
  FLOE_ASSIGN_OR_RAISE(std::string avro_schema, AvroSchemaFor(fields, "manifest_file"));
  KeyValueMetadata meta;
  meta.emplace_back("snapshot-id", std::to_string(options.snapshot_id));
  meta.emplace_back("parent-snapshot-id", options.parent_snapshot_id
                                              ? std::to_string(*options.parent_snapshot_id)
                                              : std::string("null"));
  if (v >= 2) meta.emplace_back("sequence-number", std::to_string(options.sequence_number));
  if (v >= 3) meta.emplace_back("first-row-id", std::to_string(*options.first_row_id));
  meta.emplace_back("format-version", std::to_string(v));
  FLOE_ASSIGN_OR_RAISE(auto out, io.NewOutputFile(path));
  avro::AvroWriteOptions wopts;
  wopts.codec = CodecName(options.codec);
  auto writer =
      avro::AvroFileWriter::Open(std::move(out), std::move(avro_schema), std::move(meta), wopts);
  if (!writer.has_value()) {
    return writer.error().WithPrefix(fmt::format("manifest list {}: ", path));
  }
  impl->batches = std::make_unique<BatchWriter>(std::move(fields), std::move(*writer));
  return std::unique_ptr<ManifestListWriter>(new ManifestListWriter(std::move(impl)));
}

Status ManifestListWriter::Add(const ManifestFile& manifest) {
  Impl& s = *impl_;
  if (s.closed) return Status::Invalid("manifest list {}: written after Close", s.path);
  if (s.failed) return Status::Invalid("manifest list {}: an earlier append failed", s.path);
  const int v = s.options.format_version;
  if (v == 1 && manifest.content != FileContent::kData) {
    return Status::Invalid("manifest list {}: a v1 list cannot hold delete manifest {}", s.path,
                           manifest.manifest_path);
  }
  ManifestFile m = manifest;
  if (m.added_snapshot_id == kUnassignedSnapshotId) m.added_snapshot_id = s.options.snapshot_id;
  if (m.sequence_number == kUnassignedSequenceNumber) m.sequence_number = s.options.sequence_number;
  if (m.min_sequence_number == kUnassignedSequenceNumber) {
    m.min_sequence_number = s.options.sequence_number;
  }
  if (v >= 3 && m.content == FileContent::kData && !m.first_row_id) {
    // Spec, "First Row ID Assignment": the added and existing rows will be assigned ids.
    m.first_row_id = *s.next_row_id;
    *s.next_row_id += m.added_rows_count.value_or(0) + m.existing_rows_count.value_or(0);
  }
  if (v < 3) m.first_row_id.reset();
  if (v >= 2 && (!m.added_files_count || !m.existing_files_count || !m.deleted_files_count ||
                 !m.added_rows_count || !m.existing_rows_count || !m.deleted_rows_count)) {
    return Status::Invalid("manifest list {}: manifest {} lacks its file or row counts", s.path,
                           m.manifest_path);
  }
  BatchWriter& b = *s.batches;
  int col = 0;
  auto i32 = [&](int32_t x) { return static_cast<Int32Builder*>(b.builder(col++))->Append(x); };
  auto i64 = [&](int64_t x) { return static_cast<Int64Builder*>(b.builder(col++))->Append(x); };
  auto count32 = [&](const std::optional<int32_t>& x) {
    return AppendOpt<Int32Builder>(b.builder(col++), x);
  };
  auto count64 = [&](const std::optional<int64_t>& x) {
    return AppendOpt<Int64Builder>(b.builder(col++), x);
  };
  Status st = [&]() -> Status {
    FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(b.builder(col++))->Append(m.manifest_path));
    FLOE_RETURN_NOT_OK(i64(m.manifest_length));
    FLOE_RETURN_NOT_OK(i32(m.partition_spec_id));
    if (v >= 2) {
      FLOE_RETURN_NOT_OK(i32(m.content == FileContent::kData ? 0 : 1));
      FLOE_RETURN_NOT_OK(i64(m.sequence_number));
      FLOE_RETURN_NOT_OK(i64(m.min_sequence_number));
    }
    FLOE_RETURN_NOT_OK(i64(m.added_snapshot_id));
    FLOE_RETURN_NOT_OK(count32(m.added_files_count));
    FLOE_RETURN_NOT_OK(count32(m.existing_files_count));
    FLOE_RETURN_NOT_OK(count32(m.deleted_files_count));
    FLOE_RETURN_NOT_OK(count64(m.added_rows_count));
    FLOE_RETURN_NOT_OK(count64(m.existing_rows_count));
    FLOE_RETURN_NOT_OK(count64(m.deleted_rows_count));
    auto* lb = static_cast<ListBuilder*>(b.builder(col++));
    FLOE_RETURN_NOT_OK(lb->Append());
    auto* sb = static_cast<StructBuilder*>(lb->value_builder());
    for (const PartitionFieldSummary& p : m.partitions) {
      FLOE_RETURN_NOT_OK(sb->Append());
      FLOE_RETURN_NOT_OK(
          static_cast<BooleanBuilder*>(sb->field_builder(0))->Append(p.contains_null));
      FLOE_RETURN_NOT_OK(AppendOpt<BooleanBuilder>(sb->field_builder(1), p.contains_nan));
      FLOE_RETURN_NOT_OK(AppendBytesOpt(sb->field_builder(2), p.lower_bound));
      FLOE_RETURN_NOT_OK(AppendBytesOpt(sb->field_builder(3), p.upper_bound));
    }
    FLOE_RETURN_NOT_OK(AppendBytesOpt(b.builder(col++), m.key_metadata));
    if (v >= 3) FLOE_RETURN_NOT_OK(AppendOpt<Int64Builder>(b.builder(col++), m.first_row_id));
    return Status::OK();
  }();
  if (!st.ok()) {
    s.failed = true;
    return st;
  }
  FLOE_RETURN_NOT_OK(b.RowDone());
  s.written.push_back(std::move(m));
  return Status::OK();
}

const std::vector<ManifestFile>& ManifestListWriter::manifests() const { return impl_->written; }

std::optional<int64_t> ManifestListWriter::next_row_id() const { return impl_->next_row_id; }

Status ManifestListWriter::Close() {
  if (impl_->closed) return Status::Invalid("manifest list {}: closed twice", impl_->path);
  impl_->closed = true;
  return impl_->batches->Close();
}

// ---------------------------------------------------------------------------------------
// DataFile <-> bytes
// ---------------------------------------------------------------------------------------

Result<std::string> EncodeDataFiles(const std::vector<DataFilePtr>& files,
                                    const TypePtr& partition_type) {
  if (!partition_type || partition_type->id() != TypeId::kStruct) {
    return Status::Invalid("EncodeDataFiles: the partition type must be a struct");
  }
  // The v3 data_file layout carries every field the other versions have (but the
  // deprecated block size).
  DataFileLayout layout;
  std::vector<Field> fields = internal::DataFileFields(3, partition_type, true, &layout);
  FLOE_ASSIGN_OR_RAISE(std::string avro_schema, AvroSchemaFor(fields, "r2"));
  // The Avro writer owns and closes its stream; the bytes stay in `bytes`.
  auto bytes = std::make_shared<std::string>();
  avro::AvroWriteOptions wopts;
  wopts.codec = "null";
  FLOE_ASSIGN_OR_RAISE(auto writer,
                       avro::AvroFileWriter::Open(std::make_unique<StringOutputStream>(bytes),
                                                  std::move(avro_schema), {}, wopts));
  auto schema = std::make_shared<floe::Schema>(fields);
  // One struct builder for the records, whose fields become the batch columns.
  StructBuilder record(Struct(fields));
  for (size_t i = 0; i < files.size(); ++i) {
    if (!files[i]) return Status::Invalid("EncodeDataFiles: file {} is null", i);
    FLOE_RETURN_NOT_OK(CheckPartition(*files[i], partition_type, "EncodeDataFiles"));
    FLOE_RETURN_NOT_OK(
        AppendDataFile(&record, layout, *files[i], partition_type, "EncodeDataFiles"));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr all, record.Finish());
  std::vector<ArrayPtr> columns;
  for (int i = 0; i < all->num_children(); ++i) columns.push_back(all->field(i));
  FLOE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(schema, all->length(), std::move(columns)));
  FLOE_RETURN_NOT_OK(writer->Write(*batch));
  FLOE_RETURN_NOT_OK(writer->Close());
  return std::move(*bytes);
}

Result<std::vector<DataFilePtr>> DecodeDataFiles(std::string_view bytes,
                                                 const TypePtr& partition_type, int32_t spec_id) {
  if (!partition_type || partition_type->id() != TypeId::kStruct) {
    return Status::Invalid("DecodeDataFiles: the partition type must be a struct");
  }
  FLOE_ASSIGN_OR_RAISE(BufferPtr buffer, Buffer::CopyOf(bytes));
  std::shared_ptr<io::RandomAccessFile> file = io::MakeBufferFile(buffer, "data files");
  auto reader = avro::AvroFileReader::Open(std::move(file));
  if (!reader.has_value()) return reader.error().WithPrefix("DecodeDataFiles: ");
  DataFileLayout layout;
  ManifestReadOptions options;
  auto target = std::make_shared<floe::Schema>(
      internal::DataFileFields(0, ReadPartitionType(partition_type), true, &layout));
  FLOE_ASSIGN_OR_RAISE(DataFileDecoder decoder,
                       DataFileDecoder::Make(partition_type, layout, options));
  auto stream = (*reader)->Read(target, 4096);
  if (!stream.has_value()) return stream.error().WithPrefix("DecodeDataFiles: ");
  std::vector<DataFilePtr> out;
  while (true) {
    auto next = (*stream)->Next();
    if (!next.has_value()) return next.error().WithPrefix("DecodeDataFiles: ");
    RecordBatchPtr batch = std::move(*next);
    if (!batch) break;
    decoder.Bind([&](int idx) { return batch->column(idx); });
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      auto f = std::make_shared<DataFile>();
      FLOE_RETURN_NOT_OK(
          decoder.Decode(i, spec_id, "DecodeDataFiles", static_cast<int64_t>(out.size()), f.get()));
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace floe::iceberg
