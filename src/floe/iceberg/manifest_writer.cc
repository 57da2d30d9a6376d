// Writing manifests and manifest lists (spec, "Manifests", "Manifest Lists").

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <variant>

#include "floe/batch/builder.h"
#include "floe/format/avro/writer.h"
#include "floe/iceberg/data_file_codec_internal.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/type_json.h"
#include "floe/io/file.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

namespace {

using internal::AppendBytesOpt;
using internal::AppendDataFile;
using internal::AppendOpt;
using internal::AvroSchemaFor;
using internal::CheckPartition;
using internal::DataFileLayout;
using internal::kMetricMaps;

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

}  // namespace floe::iceberg
