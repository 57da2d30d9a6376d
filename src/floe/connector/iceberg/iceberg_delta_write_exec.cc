#include "floe/connector/iceberg/iceberg_delta_write_exec.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "floe/batch/builder.h"
#include "floe/codec/iceberg.pb.h"
#include "floe/codec/iceberg_codec.h"
#include "floe/common/ascii.h"
#include "floe/connector/iceberg/iceberg_codec_internal.h"
#include "floe/exec/plan_codec.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/format/puffin/puffin.h"
#include "floe/iceberg/data_file_writer.h"
#include "floe/iceberg/delete_filter.h"
#include "floe/iceberg/in_flight_files.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/partitioned_writer.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::connector {

namespace pb = codec::proto;

namespace {

SchemaPtr DeltaOutputSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      Field("data_files", Binary(), false), Field("record_count", Int64(), false),
      Field("spec_id", Int32(), false), Field("removed", Boolean(), false)});
}

// The schema of position delete files (spec, "Position Delete Files").
Result<iceberg::SchemaPtr> PositionDeleteSchema() {
  return iceberg::Schema::Make(
      0, {Field("file_path", String(), false, iceberg::kDeleteFilePathFieldId),
          Field("pos", Int64(), false, iceberg::kDeletePosFieldId)});
}

// Writes the changes of one task (see IcebergDeltaWriteExec).
class DeltaWriteStream final : public exec::BatchStream {
 public:
  DeltaWriteStream(const IcebergDeltaWriteExec* node, IcebergWriteTargetPtr target,
                   exec::PlanPtr input, int partition, exec::TaskContextPtr ctx, bool writes_rows,
                   bool duplicate_is_error, std::shared_ptr<const PreviousDeletes> previous)
      : node_(node),
        target_(std::move(target)),
        input_(std::move(input)),
        partition_(partition),
        ctx_(std::move(ctx)),
        writes_rows_(writes_rows),
        duplicate_is_error_(duplicate_is_error),
        previous_(std::move(previous)),
        deletion_vectors_(target_->table.metadata->format_version >= 3),
        partition_granularity_(!deletion_vectors_ &&
                               AsciiLower(target_->table.metadata->Property(
                                   "write.delete.granularity")) == "partition"),
        schema_(DeltaOutputSchema()) {}

  ~DeltaWriteStream() override { Abort(); }

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (output_.empty() && !done_) {
      done_ = true;
      Result<std::vector<RecordBatchPtr>> written = WriteAll();
      if (!written.ok()) {
        Abort();
        return written.status();
      }
      output_ = std::move(*written);
      std::reverse(output_.begin(), output_.end());
    }
    if (output_.empty()) return RecordBatchPtr();
    RecordBatchPtr next = std::move(output_.back());
    output_.pop_back();
    return next;
  }

 private:
  // An open position delete file (format version 2): of one data file, or with
  // write.delete.granularity = partition of every data file of one partition the task
  // deletes from. Rows arrive in (file, position) order, so each file's rows stay sorted.
  struct DeleteWriter {
    std::unique_ptr<iceberg::DataFileWriter> writer;
    int32_t spec_id = 0;
    iceberg::PartitionValues partition;
    std::unique_ptr<ArrayBuilder> paths;
    NumericBuilder<int64_t> positions{Int64()};
    std::string first_data_file;
    bool several_data_files = false;
  };

  // The data file whose deletes arrive now; in format version 3 the positions of its
  // deletion vector.
  struct DeleteFile {
    bool open = false;
    std::string data_file;
    int32_t spec_id = 0;
    iceberg::PartitionValues partition;
    DeleteWriter* writer = nullptr;
    puffin::PositionDeleteSet vector;
    int64_t last = -1;
  };

  void Abort() {
    for (auto& [key, writer] : writers_) {
      if (writer->writer) (void)writer->writer->Abort();
    }
    writers_.clear();
    deletes_.writer = nullptr;
    deletes_.open = false;
    puffin_.reset();
    puffin_out_.reset();
    if (rows_) (void)rows_->Abort();
    rows_.reset();
    for (const std::string& path : written_) (void)target_->table.io->Delete(path);
    written_.clear();
  }

  Result<std::vector<RecordBatchPtr>> WriteAll() {
    const iceberg::TableMetadata& metadata = *target_->table.metadata;
    FLOE_ASSIGN_OR_RAISE(iceberg::PartitionedWriterOptions options,
                         TaskWriterOptions(*target_, partition_, ctx_));
    properties_ = options.properties;
    // Position delete files keep exact bounds of file_path (one data file per delete file:
    // readers and commits recognise it by equal bounds) and of pos.
    properties_.column_metrics["file_path"] = iceberg::MetricsMode::Full();
    properties_.column_metrics["pos"] = iceberg::MetricsMode::Full();
    FLOE_ASSIGN_OR_RAISE(delete_schema_, PositionDeleteSchema());
    delete_metrics_ = iceberg::MetricsConfig::Make(properties_, *delete_schema_);
    files_ = std::make_unique<iceberg::OutputFileFactory>(properties_.data_location, partition_,
                                                          /*task_id=*/1, target_->operation_id);
    if (writes_rows_) {
      FLOE_ASSIGN_OR_RAISE(rows_, iceberg::MakePartitionedWriter(std::move(options), true));
    }
    FLOE_ASSIGN_OR_RAISE(exec::BatchStreamPtr input, exec::ExecutePlan(input_, partition_, ctx_));
    while (true) {
      FLOE_RETURN_NOT_OK(ctx_->CheckCancelled());
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input->Next());
      if (!batch) break;
      if (batch->num_rows() > 0) FLOE_RETURN_NOT_OK(Consume(*batch));
    }
    FLOE_RETURN_NOT_OK(FinishDeleteFile());
    FLOE_RETURN_NOT_OK(FinishPuffinFile());
    while (!writers_.empty()) {
      FLOE_RETURN_NOT_OK(CloseWriter(*writers_.begin()->second));
      writers_.erase(writers_.begin());
    }
    if (rows_) {
      FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::DataFile> files, rows_->Close());
      rows_.reset();
      for (iceberg::DataFile& file : files) {
        written_.push_back(file.file_path);
        done_files_.push_back(std::make_shared<const iceberg::DataFile>(std::move(file)));
      }
    }
    // From here the files belong to the statement: the journal deletes them unless the
    // commit takes them.
    FLOE_ASSIGN_OR_RAISE(auto journal, WriteJournal::For(ctx_, target_.get()));
    journal->Record(written_);
    written_.clear();
    return Encode(metadata);
  }

  // One row per spec of the files written, then per spec of the files removed; the change
  // count in the first.
  Result<std::vector<RecordBatchPtr>> Encode(const iceberg::TableMetadata& metadata) {
    std::vector<RecordBatchPtr> out;
    FLOE_RETURN_NOT_OK(EncodeFiles(metadata, done_files_, /*removed=*/false, &out));
    FLOE_RETURN_NOT_OK(EncodeFiles(metadata, removed_, /*removed=*/true, &out));
    if (out.empty() && changed_ > 0) {
      return Status::Internal("IcebergDeltaWriteExec: {} rows changed and no file written",
                              changed_);
    }
    return out;
  }

  Status EncodeFiles(const iceberg::TableMetadata& metadata,
                     const std::vector<iceberg::DataFilePtr>& files_to_encode, bool removed,
                     std::vector<RecordBatchPtr>* out) {
    std::map<int32_t, std::vector<iceberg::DataFilePtr>> by_spec;
    for (const iceberg::DataFilePtr& file : files_to_encode) {
      by_spec[file->spec_id].push_back(file);
    }
    for (auto& [spec_id, files] : by_spec) {
      iceberg::PartitionSpecPtr spec = metadata.SpecById(spec_id);
      if (spec == nullptr) {
        return Status::Internal("IcebergDeltaWriteExec: no partition spec {}", spec_id);
      }
      FLOE_ASSIGN_OR_RAISE(TypePtr partition_type, spec->PartitionType(*metadata.CurrentSchema()));
      FLOE_ASSIGN_OR_RAISE(std::string encoded, iceberg::EncodeDataFiles(files, partition_type));
      FLOE_ASSIGN_OR_RAISE(
          RecordBatchPtr row,
          OutputRow(std::move(encoded), out->empty() ? changed_ : 0, spec_id, removed));
      out->push_back(std::move(row));
    }
    return Status::OK();
  }

  Result<RecordBatchPtr> OutputRow(std::string encoded, int64_t count, int32_t spec_id,
                                   bool removed) {
    Int32Builder spec_builder(Int32(), ctx_->pool());
    FLOE_RETURN_NOT_OK(spec_builder.Append(spec_id));
    NumericBuilder<int64_t> count_builder(Int64(), ctx_->pool());
    FLOE_RETURN_NOT_OK(count_builder.Append(count));
    auto files_builder = MakeBuilder(Binary(), ctx_->pool());
    FLOE_RETURN_NOT_OK(files_builder->AppendScalar(Scalar::Make(Binary(), std::move(encoded))));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr files, files_builder->Finish());
    FLOE_ASSIGN_OR_RAISE(ArrayPtr counts, count_builder.Finish());
    FLOE_ASSIGN_OR_RAISE(ArrayPtr specs, spec_builder.Finish());
    auto removed_builder = MakeBuilder(Boolean(), ctx_->pool());
    FLOE_RETURN_NOT_OK(removed_builder->AppendScalar(Scalar::Bool(removed)));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr removed_column, removed_builder->Finish());
    return RecordBatch::Make(
        schema_, 1,
        {std::move(files), std::move(counts), std::move(specs), std::move(removed_column)});
  }

  Status Consume(const RecordBatch& batch) {
    const Array& file = *batch.column(0);
    const Array& pos = *batch.column(1);
    const Array& spec = *batch.column(2);
    const int op_column = node_->op_column();
    const Array* partition = node_->has_partition() ? batch.column(3).get() : nullptr;
    const Array& op = *batch.column(op_column);
    // The rows whose values are written (updates and inserts that are not duplicates).
    std::vector<int64_t> keep;
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      if (op.IsNull(r)) return Status::Internal("IcebergDeltaWriteExec: a change without _op");
      const auto kind = static_cast<RowChangeOp>(op.Value<int32_t>(r));
      if (kind == RowChangeOp::kInsert) {
        ++changed_;
        keep.push_back(r);
        continue;
      }
      if (file.IsNull(r) || pos.IsNull(r)) {
        return Status::Internal("IcebergDeltaWriteExec: a deleted row without _file or _pos");
      }
      const std::string_view path = file.BytesValue(r);
      const int64_t position = pos.Value<int64_t>(r);
      if (!deletes_.open || path != deletes_.data_file) {
        FLOE_RETURN_NOT_OK(FinishDeleteFile());
        FLOE_RETURN_NOT_OK(OpenDeleteFile(std::string(path), spec.Value<int32_t>(r), partition, r));
      } else if (position == deletes_.last) {
        if (duplicate_is_error_) {
          return Status::Invalid(
              "MERGE command cannot affect row a second time (HINT: Ensure that not more than "
              "one source row matches any one target row.)");
        }
        continue;  // UPDATE ... FROM: the first joined row wins
      } else if (position < deletes_.last) {
        return Status::Internal("IcebergDeltaWriteExec: positions of {} out of order", path);
      }
      deletes_.last = position;
      if (deletion_vectors_) {
        FLOE_RETURN_NOT_OK(deletes_.vector.Add(position));
      } else {
        DeleteWriter& writer = *deletes_.writer;
        FLOE_RETURN_NOT_OK(writer.positions.Append(position));
        FLOE_RETURN_NOT_OK(writer.paths->AppendScalar(Scalar::Str(deletes_.data_file)));
        if (writer.positions.length() >= 65536) FLOE_RETURN_NOT_OK(FlushPositions(writer));
      }
      ++changed_;
      if (kind == RowChangeOp::kUpdate) keep.push_back(r);
    }
    if (!writes_rows_ || keep.empty()) return Status::OK();
    // The table's columns of the kept rows.
    const int first_value = op_column + 1;
    std::vector<ArrayPtr> columns;
    std::vector<Field> fields;
    std::vector<int> sources;
    for (int c = first_value; c < batch.num_columns(); ++c) sources.push_back(c);
    // Row lineage: the updated row's _row_id (an insert's NULL) and a NULL sequence number.
    if (target_->row_lineage) sources.push_back(op_column - 1);
    for (int c : sources) {
      std::unique_ptr<ArrayBuilder> builder = MakeBuilder(batch.column(c)->type(), ctx_->pool());
      FLOE_RETURN_NOT_OK(
          builder->AppendIndices(*batch.column(c), keep.data(), static_cast<int64_t>(keep.size())));
      FLOE_ASSIGN_OR_RAISE(ArrayPtr column, builder->Finish());
      columns.push_back(std::move(column));
      fields.push_back(batch.schema()->field(c));
    }
    if (target_->row_lineage) {
      FLOE_ASSIGN_OR_RAISE(
          ArrayPtr nulls,
          Array::MakeNull(Int64(), static_cast<int64_t>(keep.size()), ctx_->pool()));
      columns.push_back(std::move(nulls));
      fields.emplace_back("_last_updated_sequence_number", Int64(), true);
    }
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr rows,
                         RecordBatch::Make(std::make_shared<Schema>(std::move(fields)),
                                           static_cast<int64_t>(keep.size()), std::move(columns)));
    return rows_->Write(*rows);
  }

  // The spec's partition tuple of a data file, from its _partition value (fields of the
  // unified partition type, by partition field id).
  Result<iceberg::PartitionValues> PartitionOf(const iceberg::PartitionSpec& spec,
                                               const Array* unified, int64_t row) const {
    iceberg::PartitionValues values;
    const iceberg::TableMetadata& metadata = *target_->table.metadata;
    FLOE_ASSIGN_OR_RAISE(TypePtr type, spec.PartitionType(*metadata.CurrentSchema()));
    for (size_t i = 0; i < spec.fields().size(); ++i) {
      const TypePtr& field_type = type->fields()[i].type();
      Scalar value = Scalar::Null(field_type);
      if (unified != nullptr) {
        const DataType& unified_type = *unified->type();
        for (int c = 0; c < unified_type.num_fields(); ++c) {
          if (unified_type.fields()[static_cast<size_t>(c)].field_id() !=
              spec.fields()[i].field_id) {
            continue;
          }
          Scalar found = ScalarAt(*unified->child(c), row);
          if (!found.is_null()) value = Scalar::Make(field_type, found.value());
        }
      }
      values.push_back(std::move(value));
    }
    return values;
  }

  Status OpenDeleteFile(std::string data_file, int32_t spec_id, const Array* partition,
                        int64_t row) {
    const iceberg::TableMetadata& metadata = *target_->table.metadata;
    iceberg::PartitionSpecPtr spec = metadata.SpecById(spec_id);
    if (spec == nullptr) {
      return Status::Invalid("data file {} names partition spec {}, which table {} lacks",
                             data_file, spec_id, target_->table_name);
    }
    deletes_.data_file = std::move(data_file);
    deletes_.spec_id = spec_id;
    deletes_.last = -1;
    deletes_.open = true;
    FLOE_ASSIGN_OR_RAISE(deletes_.partition, PartitionOf(*spec, partition, row));
    if (deletion_vectors_) {
      deletes_.vector = puffin::PositionDeleteSet();
      return Status::OK();
    }
    // The delete file: the data file's own, or its partition's (granularity partition).
    std::string key = deletes_.data_file;
    if (partition_granularity_) {
      key = std::to_string(spec_id) + "|";
      for (const Scalar& value : deletes_.partition) {
        if (value.is_null()) {
          key += "n|";
          continue;
        }
        FLOE_ASSIGN_OR_RAISE(std::string bytes, iceberg::SerializeValue(value));
        key += std::to_string(bytes.size()) + ":" + bytes + "|";
      }
    }
    std::unique_ptr<DeleteWriter>& writer = writers_[key];
    if (writer == nullptr) {
      writer = std::make_unique<DeleteWriter>();
      writer->spec_id = spec_id;
      writer->partition = deletes_.partition;
      writer->paths = MakeBuilder(String(), ctx_->pool());
      writer->first_data_file = deletes_.data_file;
      const std::string path =
          files_->NewDataFilePath(iceberg::PartitionPath(*spec, deletes_.partition));
      iceberg::DataFileWriterOptions options;
      options.spec_id = spec_id;
      options.partition = deletes_.partition;
      options.parquet = properties_.ToParquetOptions();
      FLOE_ASSIGN_OR_RAISE(
          auto lock, iceberg::InFlightFiles::Process().Add(ctx_.get(), target_->table.io, path));
      FLOE_ASSIGN_OR_RAISE(writer->writer,
                           iceberg::DataFileWriter::Open(target_->table.io, path, delete_schema_,
                                                         delete_metrics_, std::move(options)));
    } else if (writer->first_data_file != deletes_.data_file) {
      writer->several_data_files = true;
    }
    deletes_.writer = writer.get();
    return Status::OK();
  }

  Status FlushPositions(DeleteWriter& writer) {
    if (writer.positions.length() == 0) return Status::OK();
    const int64_t n = writer.positions.length();
    FLOE_ASSIGN_OR_RAISE(ArrayPtr positions, writer.positions.Finish());
    FLOE_ASSIGN_OR_RAISE(ArrayPtr paths, writer.paths->Finish());
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                         RecordBatch::Make(delete_schema_->columns(), n, {paths, positions}));
    return writer.writer->Write(*batch);
  }

  // Closes a position delete file; it applies to one data file (referenced_data_file) unless
  // it holds the deletes of several.
  Status CloseWriter(DeleteWriter& writer) {
    FLOE_RETURN_NOT_OK(FlushPositions(writer));
    FLOE_ASSIGN_OR_RAISE(iceberg::DataFile file, writer.writer->Close());
    writer.writer.reset();
    file.content = iceberg::FileContent::kPositionDeletes;
    file.sort_order_id.reset();
    if (!writer.several_data_files) file.referenced_data_file = writer.first_data_file;
    written_.push_back(file.file_path);
    done_files_.push_back(std::make_shared<const iceberg::DataFile>(std::move(file)));
    return Status::OK();
  }

  // The data file's deletes are all in: its deletion vector is written, or its own delete
  // file closed (a partition's stays open for the partition's other data files).
  Status FinishDeleteFile() {
    if (!deletes_.open) return Status::OK();
    deletes_.open = false;
    if (deletion_vectors_) return FinishDeletionVector();
    if (partition_granularity_) return Status::OK();
    auto it = writers_.find(deletes_.data_file);
    if (it == writers_.end()) return Status::OK();
    FLOE_RETURN_NOT_OK(CloseWriter(*it->second));
    writers_.erase(it);
    deletes_.writer = nullptr;
    return Status::OK();
  }

  // Format version 3: the data file's deletion vector (its earlier deletes and the new
  // ones) goes into the task's Puffin file; the vectors it replaces are to be removed.
  Status FinishDeletionVector() {
    const std::string& data_file = deletes_.data_file;
    if (previous_ != nullptr) {
      auto it = previous_->find(data_file);
      if (it != previous_->end()) {
        if (!cache_) {
          cache_ = std::make_unique<iceberg::DeleteFileCache>(target_->table.io, ctx_->pool());
        }
        for (const iceberg::DataFilePtr& earlier : it->second) {
          if (earlier->content != iceberg::FileContent::kPositionDeletes) continue;
          FLOE_ASSIGN_OR_RAISE(auto positions, cache_->PositionDeletes(*earlier, data_file));
          for (const auto& [begin, end] : positions->ranges()) {
            FLOE_RETURN_NOT_OK(deletes_.vector.AddRange(begin, end));
          }
          if (earlier->is_deletion_vector()) removed_.push_back(earlier);
        }
      }
    }
    if (!puffin_) {
      const iceberg::TableMetadata& metadata = *target_->table.metadata;
      iceberg::PartitionSpecPtr spec = metadata.SpecById(deletes_.spec_id);
      puffin_path_ = files_->NewDataFilePath(iceberg::PartitionPath(*spec, deletes_.partition));
      puffin_path_ = puffin_path_.substr(0, puffin_path_.rfind('.')) + ".puffin";
      FLOE_ASSIGN_OR_RAISE(auto lock, iceberg::InFlightFiles::Process().Add(
                                          ctx_.get(), target_->table.io, puffin_path_));
      FLOE_ASSIGN_OR_RAISE(
          puffin_out_, target_->table.io->NewOutputFile(puffin_path_, io::CreateMode::kExclusive));
      written_.push_back(puffin_path_);
      FLOE_ASSIGN_OR_RAISE(puffin_, puffin::PuffinWriter::Make(puffin_out_.get()));
    }
    const std::string blob = puffin::SerializeDeletionVector(deletes_.vector);
    const int64_t cardinality = deletes_.vector.Cardinality();
    puffin::BlobInfo info;
    info.type = std::string(puffin::kDeletionVectorBlobType);
    info.fields = {iceberg::kPosColumnId};
    info.properties["referenced-data-file"] = data_file;
    info.properties["cardinality"] = std::to_string(cardinality);
    FLOE_ASSIGN_OR_RAISE(
        puffin::BlobMetadata placed,
        puffin_->AddBlob(
            std::move(info),
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(blob.data()), blob.size())));
    iceberg::DataFile file;
    file.content = iceberg::FileContent::kPositionDeletes;
    file.file_format = iceberg::FileFormat::kPuffin;
    file.file_path = puffin_path_;
    file.spec_id = deletes_.spec_id;
    file.partition = deletes_.partition;
    file.record_count = cardinality;
    file.referenced_data_file = data_file;
    file.content_offset = placed.offset;
    file.content_size_in_bytes = placed.length;
    vectors_.push_back(std::move(file));
    return Status::OK();
  }

  // Closes the task's Puffin file; its vectors get its size.
  Status FinishPuffinFile() {
    if (!puffin_) return Status::OK();
    FLOE_ASSIGN_OR_RAISE(int64_t size, puffin_->Finish());
    puffin_.reset();
    puffin_out_.reset();
    for (iceberg::DataFile& file : vectors_) {
      file.file_size_in_bytes = size;
      done_files_.push_back(std::make_shared<const iceberg::DataFile>(std::move(file)));
    }
    vectors_.clear();
    return Status::OK();
  }

  const IcebergDeltaWriteExec* node_;
  IcebergWriteTargetPtr target_;
  exec::PlanPtr input_;
  int partition_;
  exec::TaskContextPtr ctx_;
  bool writes_rows_;
  bool duplicate_is_error_;
  std::shared_ptr<const PreviousDeletes> previous_;
  bool deletion_vectors_;
  bool partition_granularity_;
  SchemaPtr schema_;
  iceberg::WriterProperties properties_;
  iceberg::SchemaPtr delete_schema_;
  std::shared_ptr<const iceberg::MetricsConfig> delete_metrics_;
  std::unique_ptr<iceberg::OutputFileFactory> files_;
  std::unique_ptr<iceberg::PartitionedWriter> rows_;
  DeleteFile deletes_;
  // Format version 2: the open position delete files, by data file or by partition.
  std::map<std::string, std::unique_ptr<DeleteWriter>> writers_;
  // Format version 3: the task's Puffin file and the vectors written into it, the vectors
  // they replace, and the cache that reads earlier deletes.
  std::string puffin_path_;
  std::unique_ptr<io::OutputStream> puffin_out_;
  std::unique_ptr<puffin::PuffinWriter> puffin_;
  std::vector<iceberg::DataFile> vectors_;
  std::vector<iceberg::DataFilePtr> removed_;
  std::unique_ptr<iceberg::DeleteFileCache> cache_;
  // Files finished and not yet in the journal (deleted on abort), and every file finished.
  std::vector<std::string> written_;
  std::vector<iceberg::DataFilePtr> done_files_;
  int64_t changed_ = 0;
  std::vector<RecordBatchPtr> output_;
  bool done_ = false;
};

}  // namespace

Result<exec::PlanPtr> IcebergDeltaWriteExec::Make(IcebergWriteTargetPtr target, exec::PlanPtr input,
                                                  bool has_partition, bool writes_rows,
                                                  bool duplicate_is_error,
                                                  std::shared_ptr<const PreviousDeletes> previous) {
  if (!target || !input) return Status::Internal("IcebergDeltaWriteExec: no target or input");
  const SchemaPtr& in = input->schema();
  const int op = 3 + (has_partition ? 1 : 0) + (target->row_lineage ? 1 : 0);
  auto expect = [&](int i, TypeId id, std::string_view what) -> Status {
    if (in->num_fields() <= i || in->field(i).type()->id() != id) {
      return Status::Internal("IcebergDeltaWriteExec: input column {} must be {}", i, what);
    }
    return Status::OK();
  };
  FLOE_RETURN_NOT_OK(expect(0, TypeId::kString, "_file"));
  FLOE_RETURN_NOT_OK(expect(1, TypeId::kInt64, "_pos"));
  FLOE_RETURN_NOT_OK(expect(2, TypeId::kInt32, "_spec_id"));
  if (has_partition) FLOE_RETURN_NOT_OK(expect(3, TypeId::kStruct, "_partition"));
  if (target->row_lineage) FLOE_RETURN_NOT_OK(expect(op - 1, TypeId::kInt64, "_row_id"));
  FLOE_RETURN_NOT_OK(expect(op, TypeId::kInt32, "_op"));
  const iceberg::SchemaPtr schema = target->table.metadata->CurrentSchema();
  const int values = in->num_fields() - op - 1;
  if (values != (writes_rows ? schema->num_fields() : 0)) {
    return Status::Internal("IcebergDeltaWriteExec: {} value columns for table {} of {}", values,
                            target->table_name, schema->num_fields());
  }
  auto out = std::shared_ptr<IcebergDeltaWriteExec>(new IcebergDeltaWriteExec());
  out->target_ = std::move(target);
  out->input_ = std::move(input);
  out->has_partition_ = has_partition;
  out->writes_rows_ = writes_rows;
  out->duplicate_is_error_ = duplicate_is_error;
  out->previous_ = std::move(previous);
  FLOE_ASSIGN_OR_RAISE(out->file_, expr::Compile(expr::Column(0, "_file", String(), true), in));
  FLOE_ASSIGN_OR_RAISE(out->pos_, expr::Compile(expr::Column(1, "_pos", Int64(), true), in));
  out->properties_.schema = DeltaOutputSchema();
  out->properties_.partitioning = exec::Partitioning::Unknown(out->input_->partition_count());
  return exec::PlanPtr(std::move(out));
}

Result<exec::PlanPtr> IcebergDeltaWriteExec::WithNewChildren(
    std::vector<exec::PlanPtr> children) const {
  if (children.size() != 1) {
    return Status::Internal("IcebergDeltaWriteExec takes one child, got {}", children.size());
  }
  return Make(target_, std::move(children[0]), has_partition_, writes_rows_, duplicate_is_error_,
              previous_);
}

std::vector<exec::Distribution> IcebergDeltaWriteExec::RequiredInputDistribution() const {
  return {exec::Distribution::Hash({file_})};
}

std::vector<exec::Ordering> IcebergDeltaWriteExec::RequiredInputOrdering() const {
  return {exec::Ordering{exec::PhysicalSortExpr{file_, false, false},
                         exec::PhysicalSortExpr{pos_, false, false}}};
}

Result<exec::BatchStreamPtr> IcebergDeltaWriteExec::Execute(int partition,
                                                            const exec::TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= partition_count()) {
    return Status::Internal("IcebergDeltaWriteExec: no partition {}", partition);
  }
  return exec::BatchStreamPtr(std::make_unique<DeltaWriteStream>(
      this, target_, input_, partition, ctx, writes_rows_, duplicate_is_error_, previous_));
}

std::string IcebergDeltaWriteExec::ToString() const {
  std::string out =
      "IcebergDeltaWriteExec: " + target_->table_name +
      (target_->table.metadata->format_version >= 3 ? " deletion vectors" : " position deletes");
  if (writes_rows_) out += " and rows";
  return out;
}

Status IcebergDeltaWriteExec::DeleteUncommitted(const exec::TaskContextPtr& ctx) const {
  return DeleteUncommittedWrites(*target_, ctx);
}

Status IcebergDeltaWriteExec::Encode(codec::PlanEncoder& out) const {
  pb::IcebergDeltaWriteNode m;
  FLOE_RETURN_NOT_OK(internal::EncodeTargetOf(target_, m.mutable_target()));
  m.set_has_partition(has_partition_);
  m.set_writes_rows(writes_rows_);
  m.set_duplicate_is_error(duplicate_is_error_);
  if (previous_ != nullptr) {
    for (const auto& [data_file, deletes] : *previous_) {
      pb::IcebergPreviousDeletes* entry = m.add_previous();
      entry->set_data_file(data_file);
      for (const iceberg::DataFilePtr& file : deletes) {
        FLOE_RETURN_NOT_OK(codec::EncodeDataFile(*file, entry->add_deletes()));
      }
    }
  }
  return out.SetPayload(m);
}

Result<exec::PlanPtr> IcebergDeltaWriteExec::Decode(codec::PlanDecoder& in,
                                                    std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 1));
  pb::IcebergDeltaWriteNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(IcebergWriteTargetPtr target,
                       internal::DecodeTarget(in, m.target(), /*need_catalog=*/false));
  std::shared_ptr<PreviousDeletes> previous;
  if (m.previous_size() > 0) previous = std::make_shared<PreviousDeletes>();
  for (const pb::IcebergPreviousDeletes& entry : m.previous()) {
    std::vector<iceberg::DataFilePtr>& files = (*previous)[entry.data_file()];
    for (const pb::IcebergDataFile& f : entry.deletes()) {
      Result<iceberg::DataFilePtr> file = codec::DecodeDataFile(f);
      if (!file.ok()) return exec::DecodeError(in, file.status());
      files.push_back(std::move(*file));
    }
  }
  Result<exec::PlanPtr> plan = Make(std::move(target), std::move(children[0]), m.has_partition(),
                                    m.writes_rows(), m.duplicate_is_error(), std::move(previous));
  if (!plan.ok()) return exec::DecodeError(in, plan.status());
  return plan;
}

}  // namespace floe::connector
