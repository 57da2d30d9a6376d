// Reading manifest lists and manifests (spec, "Manifests", "Manifest Lists").

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <nlohmann/json.hpp>

#include "floe/format/avro/reader.h"
#include "floe/iceberg/data_file_codec_internal.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/type_json.h"
#include "floe/io/file.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

namespace {

using internal::DataFileDecoder;
using internal::DataFileLayout;
using internal::OptBytes;
using internal::OptI32;
using internal::OptI64;
using internal::ReadPartitionType;

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

}  // namespace floe::iceberg
