#include "floe/iceberg/task_reader.h"

#include <algorithm>
#include <utility>

#include "floe/batch/builder.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/residual_internal.h"
#include "floe/iceberg/task_reader_internal.h"

namespace floe::iceberg {

std::vector<int> RowGroupsInRange(const parquet::FileMetaData& metadata, int64_t start,
                                  int64_t length) {
  std::vector<int> selected;
  for (size_t i = 0; i < metadata.row_groups.size(); ++i) {
    const parquet::RowGroup& rg = metadata.row_groups[i];
    std::optional<int64_t> first;
    for (const parquet::ColumnChunk& chunk : rg.columns) {
      if (!chunk.meta_data) continue;
      int64_t offset = chunk.meta_data->data_page_offset;
      if (chunk.meta_data->dictionary_page_offset && *chunk.meta_data->dictionary_page_offset > 0) {
        offset = std::min(offset, *chunk.meta_data->dictionary_page_offset);
      }
      first = first ? std::min(*first, offset) : offset;
    }
    if (!first) first = rg.file_offset;
    if (!first) first = 0;
    if (*first >= start && *first - start < length) selected.push_back(static_cast<int>(i));
  }
  return selected;
}

namespace {

using internal::MissingValues;

// Adds the initial defaults of `field` and its descendants to `missing` (entries already
// present, the partition values, win).
void CollectDefaults(const Field& field, const Schema& schema, MissingValues& missing) {
  const FieldDefaults* defaults = schema.FindDefaults(field.field_id());
  if (defaults != nullptr && defaults->initial_default && missing.count(field.field_id()) == 0) {
    missing.emplace(field.field_id(), *defaults->initial_default);
  }
  for (const Field& child : field.type()->fields()) CollectDefaults(child, schema, missing);
}

bool ContainsId(const Field& field, int32_t id) {
  if (field.field_id() == id) return true;
  for (const Field& child : field.type()->fields()) {
    if (ContainsId(child, id)) return true;
  }
  return false;
}

bool HasAnyFieldId(const floe::Schema& schema) {
  for (const Field& f : schema.fields()) {
    if (f.has_field_id()) return true;
  }
  return false;
}

// Batches of rows with no columns, for projections that need nothing from the file. No
// batch spans two of `row_groups` (row counts), so row positions can follow them.
class RowCountStream final : public RecordBatchReader {
 public:
  RowCountStream(std::vector<int64_t> row_groups, int64_t batch_size)
      : schema_(std::make_shared<floe::Schema>()),
        row_groups_(std::move(row_groups)),
        batch_size_(batch_size) {}
  const floe::SchemaPtr& schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    while (next_ < row_groups_.size() && row_groups_[next_] == 0) ++next_;
    if (next_ == row_groups_.size()) return nullptr;
    const int64_t n = std::min(row_groups_[next_], batch_size_);
    row_groups_[next_] -= n;
    return RecordBatch::Make(schema_, n, {});
  }

 private:
  floe::SchemaPtr schema_;
  std::vector<int64_t> row_groups_;
  size_t next_ = 0;
  int64_t batch_size_;
};

// The stream of one task: reads file batches, projects them onto the read fields, applies
// deletes and the residual, drops the extra columns and rebatches.
class TaskStream final : public RecordBatchReader {
 public:
  struct Plan {
    std::string path;
    std::unique_ptr<parquet::ParquetFileReader> file;
    std::unique_ptr<RecordBatchReader> inner;
    // Output columns first, then the extra columns deletes and the residual need.
    floe::SchemaPtr read_schema;
    floe::SchemaPtr output_schema;
    // For each read field, the inner batch column it comes from, or -1.
    std::vector<int> source_column;
    // The file's field (with mapped ids) of each inner batch column.
    std::vector<Field> inner_fields;
    MissingValues missing;
    // Read fields that are metadata columns (metadata_columns.h): (read index, field id).
    std::vector<std::pair<int, int32_t>> metadata_columns;
    int32_t spec_id = 0;
    // Row lineage inheritance: the file's first row id (unknown: NULL row ids) and data
    // sequence number.
    std::optional<int64_t> first_row_id;
    int64_t data_sequence_number = 0;
    // The _partition value's fields, when it is read.
    std::vector<Scalar> partition;
    std::unique_ptr<DeleteFilter> deletes;
    ExpressionPtr residual;
    // (first file position, rows) of the row groups read, in order; empty when
    // positions are not needed.
    std::vector<std::pair<int64_t, int64_t>> row_groups;
    int64_t batch_size = 8192;
    MemoryPool* pool = nullptr;
  };

  explicit TaskStream(Plan plan) : plan_(std::move(plan)) {}

  const floe::SchemaPtr& schema() const override { return plan_.output_schema; }

  Result<RecordBatchPtr> Next() override {
    const int64_t batch_size = plan_.batch_size;
    while (true) {
      if (pending_rows_ >= batch_size || (done_ && pending_rows_ > 0)) return TakePending();
      if (done_) return nullptr;
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr raw, plan_.inner->Next());
      if (raw == nullptr) {
        done_ = true;
        continue;
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out, Process(raw));
      if (out != nullptr && out->num_rows() > 0) {
        pending_rows_ += out->num_rows();
        pending_.push_back(std::move(out));
      }
    }
  }

 private:
  Result<int64_t> FirstPosition(int64_t rows) {
    if (plan_.row_groups.empty()) return 0;
    while (rg_index_ < plan_.row_groups.size() &&
           rg_consumed_ == plan_.row_groups[rg_index_].second) {
      ++rg_index_;
      rg_consumed_ = 0;
    }
    if (rg_index_ == plan_.row_groups.size() ||
        rows > plan_.row_groups[rg_index_].second - rg_consumed_) {
      return Status::Corrupt(
          "data file '{}': the Parquet reader returned more rows than the "
          "row groups hold",
          plan_.path);
    }
    const int64_t first = plan_.row_groups[rg_index_].first + rg_consumed_;
    rg_consumed_ += rows;
    return first;
  }

  Result<RecordBatchPtr> Process(const RecordBatchPtr& raw) {
    const int64_t rows = raw->num_rows();
    FLOE_ASSIGN_OR_RAISE(int64_t first_position, FirstPosition(rows));
    const floe::Schema& read_schema = *plan_.read_schema;
    std::vector<ArrayPtr> columns;
    columns.reserve(static_cast<size_t>(read_schema.num_fields()));
    for (int i = 0; i < read_schema.num_fields(); ++i) {
      if (!plan_.metadata_columns.empty() && IsMetadataColumn(read_schema.field(i).field_id())) {
        const int source = plan_.source_column[static_cast<size_t>(i)];
        ArrayPtr stored = source >= 0 ? raw->column(source) : nullptr;
        FLOE_ASSIGN_OR_RAISE(ArrayPtr column,
                             MetadataArray(read_schema.field(i), stored, first_position, rows));
        columns.push_back(std::move(column));
        continue;
      }
      const int source = plan_.source_column[static_cast<size_t>(i)];
      ArrayPtr file_column = source >= 0 ? raw->column(source) : nullptr;
      const Field* file_field =
          source >= 0 ? &plan_.inner_fields[static_cast<size_t>(source)] : nullptr;
      FLOE_ASSIGN_OR_RAISE(ArrayPtr column,
                           internal::ProjectArray(file_column, file_field, read_schema.field(i),
                                                  rows, plan_.missing, plan_.path, plan_.pool));
      columns.push_back(std::move(column));
    }
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, RecordBatch::Make(plan_.read_schema, rows, columns));
    std::vector<uint8_t> keep(static_cast<size_t>(rows), 1);
    if (plan_.deletes != nullptr) {
      Status st = plan_.deletes->Apply(*batch, first_position, keep);
      if (!st.ok()) {
        return Status(st.code(), "data file '" + plan_.path + "': " + st.message());
      }
    }
    if (plan_.residual != nullptr) {
      FLOE_RETURN_NOT_OK(internal::ApplyResidual(*plan_.residual, *batch, keep));
    }
    const int output_columns = plan_.output_schema->num_fields();
    columns.resize(static_cast<size_t>(output_columns));
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out,
                         RecordBatch::Make(plan_.output_schema, rows, std::move(columns)));
    return internal::FilterBatch(out, keep, plan_.pool);
  }

  // The values of a metadata column for `rows` rows from file position `first_position`;
  // `stored` is the file's column of a row lineage field, or null.
  Result<ArrayPtr> MetadataArray(const Field& field, const ArrayPtr& stored, int64_t first_position,
                                 int64_t rows) {
    switch (field.field_id()) {
      case kRowIdColumnId:
      case kLastUpdatedSequenceNumberColumnId: {
        // A stored value wins; a NULL (or no column) inherits.
        const bool row_id = field.field_id() == kRowIdColumnId;
        NumericBuilder<int64_t> builder(Int64(), plan_.pool);
        FLOE_RETURN_NOT_OK(builder.Reserve(rows));
        for (int64_t r = 0; r < rows; ++r) {
          if (stored != nullptr && stored->IsValid(r)) {
            builder.UnsafeAppend(stored->Value<int64_t>(r));
          } else if (!row_id) {
            builder.UnsafeAppend(plan_.data_sequence_number);
          } else if (plan_.first_row_id) {
            builder.UnsafeAppend(*plan_.first_row_id + first_position + r);
          } else {
            FLOE_RETURN_NOT_OK(builder.AppendNull());
          }
        }
        return builder.Finish();
      }
      case kFileColumnId:
        return internal::ConstantArray(Scalar::Str(plan_.path), rows, plan_.pool);
      case kSpecIdColumnId:
        return internal::ConstantArray(Scalar::I32(plan_.spec_id), rows, plan_.pool);
      case kPosColumnId: {
        NumericBuilder<int64_t> builder(Int64(), plan_.pool);
        FLOE_RETURN_NOT_OK(builder.Reserve(rows));
        for (int64_t r = 0; r < rows; ++r) builder.UnsafeAppend(first_position + r);
        return builder.Finish();
      }
      case kPartitionColumnId: {
        std::vector<ArrayPtr> children;
        for (const Scalar& value : plan_.partition) {
          FLOE_ASSIGN_OR_RAISE(ArrayPtr child, internal::ConstantArray(value, rows, plan_.pool));
          children.push_back(std::move(child));
        }
        return Array::Make(field.type(), rows, {nullptr}, std::move(children), 0);
      }
      default:
        return Status::Internal("no metadata column has field id {}", field.field_id());
    }
  }

  Result<RecordBatchPtr> TakePending() {
    const int64_t batch_size = plan_.batch_size;
    RecordBatchPtr head;
    if (pending_.size() == 1 || pending_[0]->num_rows() >= batch_size) {
      head = pending_[0];
      pending_.erase(pending_.begin());
    } else {
      // Coalesce small filtered batches up to batch_size rows.
      std::vector<RecordBatchPtr> parts;
      int64_t rows = 0;
      while (!pending_.empty() && rows < batch_size) {
        rows += pending_[0]->num_rows();
        parts.push_back(pending_[0]);
        pending_.erase(pending_.begin());
      }
      FLOE_ASSIGN_OR_RAISE(head, internal::ConcatenateBatches(parts, plan_.pool));
    }
    if (head->num_rows() > batch_size) {
      pending_.insert(pending_.begin(), head->Slice(batch_size, head->num_rows() - batch_size));
      head = head->Slice(0, batch_size);
    }
    pending_rows_ -= head->num_rows();
    return head;
  }

  Plan plan_;
  size_t rg_index_ = 0;
  int64_t rg_consumed_ = 0;
  std::vector<RecordBatchPtr> pending_;
  int64_t pending_rows_ = 0;
  bool done_ = false;
};

// Reads the tasks of a group one after another.
class GroupStream final : public RecordBatchReader {
 public:
  GroupStream(const TaskReader& reader, std::vector<FileScanTask> tasks)
      : reader_(reader), tasks_(std::move(tasks)) {}
  const floe::SchemaPtr& schema() const override { return reader_.output_schema(); }
  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (current_ == nullptr) {
        if (next_task_ == tasks_.size()) return nullptr;
        FLOE_ASSIGN_OR_RAISE(current_, reader_.Read(tasks_[next_task_++]));
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, current_->Next());
      if (batch != nullptr) return batch;
      current_.reset();
    }
  }

 private:
  const TaskReader& reader_;
  std::vector<FileScanTask> tasks_;
  size_t next_task_ = 0;
  std::unique_ptr<RecordBatchReader> current_;
};

}  // namespace

Result<std::unique_ptr<TaskReader>> TaskReader::Make(
    std::shared_ptr<const io::FileIO> io, SchemaPtr projected, SchemaPtr table_schema,
    std::shared_ptr<const NameMapping> name_mapping, TaskReaderOptions options,
    std::shared_ptr<DeleteFileCache> cache) {
  if (io == nullptr || projected == nullptr) {
    return Status::Invalid("TaskReader needs a FileIO and a projected schema");
  }
  if (options.batch_size <= 0) {
    return Status::Invalid("batch_size must be positive, got {}", options.batch_size);
  }
  std::unique_ptr<TaskReader> reader(new TaskReader());
  reader->io_ = io;
  reader->projected_ = projected;
  reader->table_schema_ = table_schema ? std::move(table_schema) : projected;
  reader->name_mapping_ = std::move(name_mapping);
  reader->options_ = options;
  reader->cache_ = cache ? std::move(cache) : std::make_shared<DeleteFileCache>(io, options.pool);
  return reader;
}

Result<std::unique_ptr<RecordBatchReader>> TaskReader::Read(const ScanTaskGroup& group) const {
  return std::unique_ptr<RecordBatchReader>(new GroupStream(*this, group.tasks));
}

Result<std::unique_ptr<RecordBatchReader>> TaskReader::Read(const FileScanTask& task) const {
  if (task.data_file == nullptr) return Status::Invalid("scan task without a data file");
  const DataFile& data_file = *task.data_file;
  const std::string& path = data_file.file_path;
  if (data_file.content != FileContent::kData) {
    return Status::Invalid("scan task file '{}' is not a data file", path);
  }
  if (data_file.file_format != FileFormat::kParquet) {
    return Status::NotSupported("data file '{}': only Parquet data files can be read", path);
  }
  if (task.start < 0 || task.length <= 0) {
    return Status::Invalid("data file '{}': invalid task byte range start {} length {}", path,
                           task.start, task.length);
  }

  TaskStream::Plan plan;
  plan.path = path;
  plan.batch_size = options_.batch_size;
  plan.pool = options_.pool;
  // The residual prunes row groups and pages and drops rows in the Parquet reader; it is
  // evaluated on the rows that remain only when the options ask for it.
  const ExpressionPtr residual =
      internal::IsTrivialResidual(task.residual) ? nullptr : task.residual;
  if (options_.apply_residual) plan.residual = residual;

  FLOE_ASSIGN_OR_RAISE(plan.deletes, DeleteFilter::Make(data_file, task.delete_files, *cache_));
  if (plan.deletes->empty()) plan.deletes.reset();

  // The read fields: the projection, then what deletes and the residual need besides.
  std::vector<Field> read_fields = projected_->fields();
  plan.output_schema = projected_->columns();
  std::vector<int32_t> extra_ids;
  if (plan.deletes != nullptr) extra_ids = plan.deletes->EqualityFieldIds();
  if (plan.residual != nullptr) {
    for (int32_t id : ReferencedFieldIds(*plan.residual)) {
      if (std::find(extra_ids.begin(), extra_ids.end(), id) == extra_ids.end()) {
        extra_ids.push_back(id);
      }
    }
  }
  for (size_t i = 0; i < read_fields.size(); ++i) {
    const int32_t id = read_fields[i].field_id();
    if (!IsMetadataColumn(id)) continue;
    plan.metadata_columns.emplace_back(static_cast<int>(i), id);
    if (id == kPartitionColumnId) {
      if (task.spec == nullptr) {
        return Status::Invalid("data file '{}': _partition needs the task's partition spec", path);
      }
      plan.partition =
          UnifiedPartitionValues(*read_fields[i].type(), *task.spec, data_file.partition);
    }
  }
  plan.spec_id = task.spec != nullptr ? task.spec->spec_id() : data_file.spec_id;
  plan.first_row_id = data_file.first_row_id;
  plan.data_sequence_number = task.data_sequence_number;
  std::vector<int32_t> missing_ids;
  for (int32_t id : extra_ids) {
    bool present = std::any_of(read_fields.begin(), read_fields.end(),
                               [&](const Field& f) { return ContainsId(f, id); });
    if (!present) missing_ids.push_back(id);
  }
  if (!missing_ids.empty()) {
    FLOE_ASSIGN_OR_RAISE(SchemaPtr extra, table_schema_->Select(missing_ids));
    for (const Field& f : extra->fields()) read_fields.push_back(f);
  }
  plan.read_schema = std::make_shared<floe::Schema>(read_fields);

  // Values of columns the file lacks: identity partition values, then initial defaults.
  if (task.spec != nullptr) {
    const auto& fields = task.spec->fields();
    for (size_t i = 0; i < fields.size() && i < data_file.partition.size(); ++i) {
      if (fields[i].transform.kind() == TransformKind::kIdentity) {
        plan.missing.emplace(fields[i].source_id, data_file.partition[i]);
      }
    }
  }
  for (const Field& f : read_fields) {
    CollectDefaults(f, *projected_, plan.missing);
    CollectDefaults(f, *table_schema_, plan.missing);
  }

  // Open the file and map its columns to the read fields by field id.
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<io::RandomAccessFile> input, io_->NewScanInputFile(path));
  parquet::ReaderOptions reader_options;
  reader_options.batch_size = options_.batch_size;
  reader_options.use_page_index = options_.use_page_index;
  reader_options.read_ahead_bytes = options_.read_ahead_bytes;
  reader_options.verify_page_checksums = options_.verify_page_checksums;
  reader_options.pool = options_.pool;
  FLOE_ASSIGN_OR_RAISE(
      plan.file, parquet::ParquetFileReader::Open(
                     std::shared_ptr<io::RandomAccessFile>(std::move(input)), reader_options));
  const parquet::ParquetFileReader& file = *plan.file;
  std::vector<Field> file_fields = file.schema()->fields();
  if (!HasAnyFieldId(*file.schema())) {
    if (!name_mapping_) {
      return Status::Invalid("data file '{}' has no field ids and the table has no name mapping",
                             path);
    }
    file_fields = name_mapping_->Apply(*file.schema())->fields();
  }
  std::vector<int> file_columns;
  plan.source_column.assign(read_fields.size(), -1);
  for (size_t i = 0; i < read_fields.size(); ++i) {
    const int32_t read_id = read_fields[i].field_id();
    if (IsMetadataColumn(read_id) && !IsRowLineageColumn(read_id)) continue;
    for (size_t c = 0; c < file_fields.size(); ++c) {
      if (!file_fields[c].has_field_id() ||
          file_fields[c].field_id() != read_fields[i].field_id()) {
        continue;
      }
      auto it = std::find(file_columns.begin(), file_columns.end(), static_cast<int>(c));
      plan.source_column[i] = static_cast<int>(it - file_columns.begin());
      if (it == file_columns.end()) {
        file_columns.push_back(static_cast<int>(c));
        plan.inner_fields.push_back(file_fields[c]);
      }
      break;
    }
  }

  // Row groups: those starting in the byte range, less those the residual rules out.
  const parquet::FileMetaData& metadata = file.metadata();
  std::vector<int> row_groups = RowGroupsInRange(metadata, task.start, task.length);
  // A part of the range reads its share of the range's rows: rows [begin, end) of each
  // row group it overlaps (slices, by position in row_groups; empty: whole row groups).
  std::vector<std::pair<int64_t, int64_t>> slices;
  if (task.is_part()) {
    if (task.parts < 1 || task.part_begin < 0 || task.part_begin >= task.part_end ||
        task.part_end > task.parts) {
      return Status::Invalid("data file '{}': task part [{}, {}) of {}", path, task.part_begin,
                             task.part_end, task.parts);
    }
    bool nested = false;
    for (int c : file_columns) nested = nested || file.schema()->field(c).type()->is_nested();
    if (nested) {
      // The reader cannot cut nested columns: the first part reads the whole range.
      if (task.part_begin > 0) row_groups.clear();
    } else {
      int64_t total = 0;
      for (int rg : row_groups) total += metadata.row_groups[static_cast<size_t>(rg)].num_rows;
      auto bound = [&](int64_t k) {
        return static_cast<int64_t>(static_cast<__int128>(total) * k / task.parts);
      };
      const int64_t from = bound(task.part_begin), to = bound(task.part_end);
      std::vector<int> overlapped;
      int64_t at = 0;
      for (int rg : row_groups) {
        const int64_t rows = metadata.row_groups[static_cast<size_t>(rg)].num_rows;
        const int64_t lo = std::max(from, at), hi = std::min(to, at + rows);
        if (lo < hi) {
          overlapped.push_back(rg);
          slices.emplace_back(lo - at, hi - at);
        }
        at += rows;
      }
      row_groups = std::move(overlapped);
    }
  }
  std::vector<parquet::ColumnPredicate> predicates;
  if (residual != nullptr) {
    predicates = internal::ResidualToParquetPredicates(*residual, file_fields);
  }
  // The key sets, on the file's columns of the table field's own type (a promoted column's
  // values are in another domain: a date's days are not a timestamp's microseconds).
  for (const auto& [field_id, keys] : options_.key_sets) {
    const floe::Field* table_field = table_schema_->FindFieldById(field_id);
    if (table_field == nullptr || keys == nullptr) continue;
    for (size_t c = 0; c < file_fields.size(); ++c) {
      if (!file_fields[c].has_field_id() || file_fields[c].field_id() != field_id) continue;
      if (file_fields[c].type()->Equals(*table_field->type())) {
        parquet::ColumnPredicate predicate;
        predicate.column = static_cast<int>(c);
        predicate.op = parquet::ColumnPredicate::Op::kIn;
        predicate.key_bitmap = keys;
        predicates.push_back(std::move(predicate));
      }
      break;
    }
  }
  if (!predicates.empty() && !row_groups.empty()) {
    FLOE_ASSIGN_OR_RAISE(std::vector<int> survivors, file.PruneRowGroups(predicates));
    std::vector<int> kept;
    std::vector<std::pair<int64_t, int64_t>> kept_slices;
    for (size_t i = 0; i < row_groups.size(); ++i) {
      if (!std::binary_search(survivors.begin(), survivors.end(), row_groups[i])) continue;
      kept.push_back(row_groups[i]);
      if (!slices.empty()) kept_slices.push_back(slices[i]);
    }
    row_groups = std::move(kept);
    slices = std::move(kept_slices);
  }
  const bool reads_positions = std::any_of(
      plan.metadata_columns.begin(), plan.metadata_columns.end(), [](const auto& column) {
        return column.second == kPosColumnId || column.second == kRowIdColumnId;
      });
  const bool need_positions =
      reads_positions || (plan.deletes != nullptr && plan.deletes->has_position_deletes());
  std::vector<int64_t> first_row(metadata.row_groups.size() + 1, 0);
  for (size_t i = 0; i < metadata.row_groups.size(); ++i) {
    first_row[i + 1] = first_row[i] + metadata.row_groups[i].num_rows;
  }
  std::vector<int64_t> row_group_rows;
  for (size_t i = 0; i < row_groups.size(); ++i) {
    const size_t rg = static_cast<size_t>(row_groups[i]);
    const auto [begin, end] =
        slices.empty() ? std::make_pair(int64_t{0}, metadata.row_groups[rg].num_rows) : slices[i];
    row_group_rows.push_back(end - begin);
    if (need_positions) plan.row_groups.emplace_back(first_row[rg] + begin, end - begin);
  }
  // A batch of zero rows still has to pass through the pipeline once for nothing, so an
  // empty selection reads nothing.
  if (file_columns.empty()) {
    plan.inner = std::make_unique<RowCountStream>(std::move(row_group_rows), options_.batch_size);
  } else {
    parquet::ReadRequest request;
    request.columns = file_columns;
    request.row_groups = row_groups;
    request.row_group_rows = slices;
    // Page pruning and row filtering drop rows inside a row group, so positions would be
    // lost: only without position deletes.
    if (!need_positions) {
      request.predicates = std::move(predicates);
      request.filter_rows = true;
    }
    FLOE_ASSIGN_OR_RAISE(plan.inner, file.Read(request));
    if (plan.inner->schema()->num_fields() != static_cast<int>(file_columns.size())) {
      return Status::Internal("data file '{}': the Parquet reader returned {} columns, not {}",
                              path, plan.inner->schema()->num_fields(), file_columns.size());
    }
  }
  return std::unique_ptr<RecordBatchReader>(new TaskStream(std::move(plan)));
}

}  // namespace floe::iceberg
