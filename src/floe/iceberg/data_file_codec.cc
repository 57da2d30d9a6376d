// data_file structs <-> DataFile (data_file_codec_internal.h), and a list of DataFiles as
// bytes (EncodeDataFiles / DecodeDataFiles).

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "floe/batch/scalar.h"
#include "floe/common/ascii.h"
#include "floe/format/avro/reader.h"
#include "floe/format/avro/schema.h"
#include "floe/format/avro/writer.h"
#include "floe/iceberg/data_file_codec_internal.h"
#include "floe/io/file.h"

namespace floe::iceberg {

namespace internal {

namespace {

/// Partition values are Iceberg primitives (nested types and the engine's int8/int16 are not).
Status CheckPartitionType(const DataType& type, std::string_view field) {
  if (!type.is_nested() && type.id() != TypeId::kInt8 && type.id() != TypeId::kInt16) {
    return Status::OK();
  }
  return Status::NotSupported("partition field '{}' has type {}, which is not a partition type",
                              field, type.ToString());
}

Status AppendMetricMap(ArrayBuilder* builder, const std::map<int32_t, int64_t>& values,
                       bool empty_present) {
  auto* mb = static_cast<MapBuilder*>(builder);
  if (values.empty() && !empty_present) return mb->AppendNull();
  FLOE_RETURN_NOT_OK(mb->Append());
  auto* keys = static_cast<Int32Builder*>(mb->key_builder());
  auto* vals = static_cast<Int64Builder*>(mb->item_builder());
  for (const auto& [k, v] : values) {
    FLOE_RETURN_NOT_OK(keys->Append(k));
    FLOE_RETURN_NOT_OK(vals->Append(v));
  }
  return Status::OK();
}

Status AppendBoundMap(ArrayBuilder* builder, const std::map<int32_t, std::string>& values,
                      bool empty_present) {
  auto* mb = static_cast<MapBuilder*>(builder);
  if (values.empty() && !empty_present) return mb->AppendNull();
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
Status AppendList(ArrayBuilder* builder, const std::vector<T>& values, bool null_when_empty) {
  auto* lb = static_cast<ListBuilder*>(builder);
  if (values.empty() && null_when_empty) return lb->AppendNull();
  FLOE_RETURN_NOT_OK(lb->Append());
  auto* vb = static_cast<B*>(lb->value_builder());
  for (const T& v : values) FLOE_RETURN_NOT_OK(vb->Append(v));
  return Status::OK();
}

}  // namespace

Result<DataFileDecoder> DataFileDecoder::Make(const TypePtr& partition_type, DataFileLayout layout,
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

Status DataFileDecoder::Decode(int64_t i, int32_t spec_id, std::string_view what, int64_t index,
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
    if (begin == end) {
      out->empty_metric_maps |= static_cast<uint8_t>(1u << m);
      continue;
    }
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
        return Status::Corrupt("{}: data_file {} has equality field id {}, not a field id", where(),
                               out->file_path, vals[k]);
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

bool DataFileDecoder::KeepStat(int32_t id) const {
  if (!filter_stats_) return true;
  if (id < 0) return false;
  if (id < kMaxBitmapStatsId) {
    return static_cast<size_t>(id) < stats_filter_.size() && stats_filter_[static_cast<size_t>(id)];
  }
  return std::binary_search(large_stats_ids_.begin(), large_stats_ids_.end(), id);
}

TypePtr ReadPartitionType(const TypePtr& partition_type) {
  std::vector<Field> fields;
  for (const Field& f : partition_type->fields()) fields.push_back(f.WithNullable(true));
  return Struct(std::move(fields));
}

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
  auto empty_present = [&](int m) { return ((f.empty_metric_maps >> m) & 1) != 0; };
  for (int m = 0; m < 4; ++m) {
    FLOE_RETURN_NOT_OK(AppendMetricMap(child(l.metric_maps[m]), *counts[m], empty_present(m)));
  }
  FLOE_RETURN_NOT_OK(AppendBoundMap(child(l.metric_maps[4]), f.lower_bounds, empty_present(4)));
  FLOE_RETURN_NOT_OK(AppendBoundMap(child(l.metric_maps[5]), f.upper_bounds, empty_present(5)));
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

Result<std::string> AvroSchemaFor(const std::vector<Field>& fields, std::string_view name) {
  floe::Schema schema(fields);
  return avro::ToAvroSchemaJson(schema, name);
}

}  // namespace internal

using internal::AppendDataFile;
using internal::AvroSchemaFor;
using internal::CheckPartition;
using internal::DataFileDecoder;
using internal::DataFileLayout;
using internal::ReadPartitionType;

namespace {

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

}  // namespace

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
  std::string lower = AsciiLower(name);
  if (lower == "parquet") return FileFormat::kParquet;
  if (lower == "avro") return FileFormat::kAvro;
  if (lower == "orc") return FileFormat::kOrc;
  if (lower == "puffin") return FileFormat::kPuffin;
  return Status::NotSupported("file format '{}' is not parquet, avro, orc or puffin", name);
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
