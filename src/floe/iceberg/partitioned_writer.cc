#include "floe/iceberg/partitioned_writer.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "floe/batch/builder.h"
#include "floe/iceberg/in_flight_files.h"
#include "floe/iceberg/table_update.h"

namespace floe::iceberg {

// ---------------------------------------------------------------------------------------
// Paths and names
// ---------------------------------------------------------------------------------------

std::string EscapePartitionPathPart(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-' || c == '*' || c == '_') {
      out.push_back(ch);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::string PartitionPath(const PartitionSpec& spec, const PartitionValues& values) {
  std::string path;
  for (size_t i = 0; i < spec.fields().size() && i < values.size(); ++i) {
    const PartitionField& f = spec.fields()[i];
    if (i > 0) path.push_back('/');
    path += EscapePartitionPathPart(f.name);
    path.push_back('=');
    path += EscapePartitionPathPart(f.transform.ToHumanString(values[i]));
  }
  return path;
}

OutputFileFactory::OutputFileFactory(std::string data_location, int32_t writer_id, int64_t task_id,
                                     std::string operation_id)
    : data_location_(std::move(data_location)),
      writer_id_(writer_id),
      task_id_(task_id),
      operation_id_(operation_id.empty() ? NewUuid() : std::move(operation_id)) {}

std::string OutputFileFactory::NewDataFilePath(std::string_view partition_path) {
  ++file_count_;
  std::string name =
      fmt::format("{:05d}-{}-{}-{:05d}.parquet", writer_id_, task_id_, operation_id_, file_count_);
  if (partition_path.empty()) return fmt::format("{}/{}", data_location_, name);
  return fmt::format("{}/{}/{}", data_location_, partition_path, name);
}

bool OutputFileFactory::NamedFor(std::string_view file_name, std::string_view operation_id) {
  return file_name.ends_with(".parquet") &&
         file_name.find(fmt::format("-{}-", operation_id)) != std::string_view::npos;
}

// ---------------------------------------------------------------------------------------
// PartitionProjector
// ---------------------------------------------------------------------------------------

namespace {

// The child indices from a top-level column down to field `id`, through structs only.
bool FindStructPath(const std::vector<Field>& fields, int32_t id, std::vector<int>* path) {
  for (size_t i = 0; i < fields.size(); ++i) {
    path->push_back(static_cast<int>(i));
    if (fields[i].field_id() == id) return true;
    if (fields[i].type()->id() == TypeId::kStruct &&
        FindStructPath(fields[i].type()->fields(), id, path)) {
      return true;
    }
    path->pop_back();
  }
  return false;
}

// `leaf` with a NULL wherever one of `ancestors` (same length) is NULL.
Result<ArrayPtr> WithAncestorNulls(const ArrayPtr& leaf, const std::vector<ArrayPtr>& ancestors) {
  const int64_t n = leaf->length();
  const int64_t off = leaf->offset();
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> bits,
                       Buffer::AllocateZeroed(bit_util::BytesForBits(off + n)));
  for (int64_t i = 0; i < n; ++i) {
    bool valid = leaf->IsValid(i);
    for (const ArrayPtr& a : ancestors) valid = valid && a->IsValid(i);
    if (valid) bit_util::SetBit(bits->mutable_data(), off + i);
  }
  std::vector<BufferPtr> buffers = leaf->buffers();
  buffers[0] = std::move(bits);
  return Array::Make(leaf->type(), n, std::move(buffers), leaf->children(), -1, off);
}

}  // namespace

Result<std::shared_ptr<const PartitionProjector>> PartitionProjector::Make(SchemaPtr schema,
                                                                           PartitionSpecPtr spec) {
  if (!schema || !spec) return Status::Invalid("partition projector: null schema or spec");
  std::shared_ptr<PartitionProjector> p(new PartitionProjector());
  for (const PartitionField& f : spec->fields()) {
    std::vector<int> path;
    if (!FindStructPath(schema->fields(), f.source_id, &path)) {
      if (schema->FindFieldById(f.source_id) != nullptr) {
        return Status::Invalid(
            "partition field '{}': source field id {} lies inside a list or map, which cannot "
            "be partitioned on",
            f.name, f.source_id);
      }
      return Status::Invalid("partition field '{}': source field id {} is not in the schema",
                             f.name, f.source_id);
    }
    const Field* source = schema->FindFieldById(f.source_id);
    if (source->type()->is_nested() || !f.transform.CanTransform(*source->type())) {
      return Status::Invalid(
          "partition field '{}': transform {} cannot apply to source '{}' of "
          "type {}",
          f.name, f.transform.ToString(), source->name(), source->type()->ToString());
    }
    p->source_paths_.push_back(std::move(path));
  }
  FLOE_ASSIGN_OR_RAISE(p->partition_type_, spec->PartitionType(*schema));
  p->schema_ = std::move(schema);
  p->spec_ = std::move(spec);
  return p;
}

Result<std::vector<ArrayPtr>> PartitionProjector::Project(const RecordBatch& batch) const {
  if (batch.num_columns() != schema_->num_fields()) {
    return Status::Invalid("partition projector: the batch has {} columns, the schema has {}",
                           batch.num_columns(), schema_->num_fields());
  }
  std::vector<ArrayPtr> out;
  out.reserve(source_paths_.size());
  for (size_t k = 0; k < source_paths_.size(); ++k) {
    const std::vector<int>& path = source_paths_[k];
    ArrayPtr cur = batch.column(path[0]);
    std::vector<ArrayPtr> nullable_ancestors;
    for (size_t d = 1; d < path.size(); ++d) {
      if (cur->type_id() != TypeId::kStruct) {
        return Status::Invalid("partition field '{}': the batch's column is not a struct",
                               spec_->fields()[k].name);
      }
      if (cur->null_count() > 0) nullable_ancestors.push_back(cur);
      cur = cur->field(path[d]);
    }
    if (!nullable_ancestors.empty()) {
      FLOE_ASSIGN_OR_RAISE(cur, WithAncestorNulls(cur, nullable_ancestors));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr values, spec_->fields()[k].transform.Apply(*cur));
    out.push_back(std::move(values));
  }
  return out;
}

PartitionValues PartitionProjector::TupleAt(const std::vector<ArrayPtr>& columns, int64_t row) {
  PartitionValues values;
  values.reserve(columns.size());
  for (const ArrayPtr& c : columns) values.push_back(ScalarAt(*c, row));
  return values;
}

// ---------------------------------------------------------------------------------------
// Row grouping by partition tuple
// ---------------------------------------------------------------------------------------

namespace {

inline uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

uint64_t HashBytes(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = Mix(h ^ w);
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  return Mix(h ^ tail);
}

// The raw bytes of a non-null value of a primitive array.
std::string_view RawValue(const Array& a, int64_t i) {
  if (a.type()->is_binary_like()) return a.BytesValue(i);
  const int w = a.type()->byte_width();
  return {reinterpret_cast<const char*>(a.buffer(1)->data()) + (a.offset() + i) * w,
          static_cast<size_t>(w)};
}

// Folds the values of `a` into per-row hashes.
void HashColumn(const Array& a, std::vector<uint64_t>* hashes) {
  constexpr uint64_t kNullHash = 0x5bd1e9955bd1e995ULL;
  const int64_t n = a.length();
  const bool is_bool = a.type_id() == TypeId::kBoolean;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v;
    if (a.IsNull(i)) {
      v = kNullHash;
    } else if (is_bool) {
      v = a.BoolValue(i) ? 1 : 2;
    } else {
      std::string_view raw = RawValue(a, i);
      v = HashBytes(raw.data(), raw.size());
    }
    uint64_t& h = (*hashes)[static_cast<size_t>(i)];
    h = Mix(h * 31 + v);
  }
}

bool ValuesEqual(const Array& a, int64_t i, int64_t j) {
  bool ni = a.IsNull(i), nj = a.IsNull(j);
  if (ni || nj) return ni == nj;
  if (a.type_id() == TypeId::kBoolean) return a.BoolValue(i) == a.BoolValue(j);
  return RawValue(a, i) == RawValue(a, j);
}

bool RowsEqual(const std::vector<ArrayPtr>& columns, int64_t i, int64_t j) {
  for (const ArrayPtr& c : columns) {
    if (!ValuesEqual(*c, i, j)) return false;
  }
  return true;
}

// A byte string that identifies the tuple of row `row` (equal tuples, equal keys).
std::string TupleKey(const std::vector<ArrayPtr>& columns, int64_t row) {
  std::string key;
  for (const ArrayPtr& c : columns) {
    if (c->IsNull(row)) {
      key.push_back('\0');
      continue;
    }
    key.push_back('\1');
    if (c->type_id() == TypeId::kBoolean) {
      key.push_back(c->BoolValue(row) ? '\1' : '\0');
      continue;
    }
    std::string_view raw = RawValue(*c, row);
    auto len = static_cast<uint32_t>(raw.size());
    key.append(reinterpret_cast<const char*>(&len), sizeof(len));
    key.append(raw);
  }
  return key;
}

struct RowGroups {
  // Rows of each group in order; the first row of a group represents it.
  std::vector<std::vector<int64_t>> rows;
};

RowGroups GroupRows(const std::vector<ArrayPtr>& columns, int64_t n) {
  RowGroups groups;
  if (n == 0) return groups;
  std::vector<uint64_t> hashes(static_cast<size_t>(n), 0);
  for (const ArrayPtr& c : columns) HashColumn(*c, &hashes);
  // Hash -> first group with that hash; further groups with the same hash chain through `next`.
  std::unordered_map<uint64_t, int32_t> first;
  std::vector<int32_t> next;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t h = hashes[static_cast<size_t>(i)];
    auto [it, inserted] = first.try_emplace(h, static_cast<int32_t>(groups.rows.size()));
    int32_t g = it->second;
    if (!inserted) {
      int32_t prev = -1;
      while (g >= 0 && !RowsEqual(columns, groups.rows[static_cast<size_t>(g)][0], i)) {
        prev = g;
        g = next[static_cast<size_t>(g)];
      }
      if (g < 0) {
        g = static_cast<int32_t>(groups.rows.size());
        next[static_cast<size_t>(prev)] = g;
        inserted = true;
      }
    }
    if (inserted) {
      groups.rows.emplace_back();
      next.push_back(-1);
    }
    groups.rows[static_cast<size_t>(g)].push_back(i);
  }
  return groups;
}

// ---------------------------------------------------------------------------------------
// Writers
// ---------------------------------------------------------------------------------------

// What the files of one write share.
struct WriteContext {
  PartitionedWriterOptions options;
  std::shared_ptr<const MetricsConfig> metrics;
  std::unique_ptr<OutputFileFactory> factory;
  parquet::WriterOptions parquet;
  int32_t spec_id = 0;
};

// The files of one partition: one open at a time, a new one when it reaches the target size.
class RollingFileWriter {
 public:
  RollingFileWriter(WriteContext* ctx, PartitionValues partition, std::string partition_path)
      : ctx_(ctx), partition_(std::move(partition)), partition_path_(std::move(partition_path)) {}

  const std::string& partition_path() const { return partition_path_; }
  bool has_open_file() const { return current_ != nullptr; }
  int64_t MemoryBytes() const { return current_ ? current_->MemoryBytes() : 0; }

  Status Write(const RecordBatch& batch, std::vector<DataFile>* done) {
    // The first rows of a file are a probe that measures bytes per row; later slices are sized
    // to reach the target, so files end close to it even when batches are large.
    constexpr int64_t kProbeRows = 1024;
    const int64_t target = ctx_->options.properties.target_file_size_bytes;
    const int64_t n = batch.num_rows();
    int64_t offset = 0;
    while (offset < n) {
      if (!current_) FLOE_RETURN_NOT_OK(OpenFile());
      int64_t take = std::min(n - offset, kProbeRows);
      if (current_->num_rows() > 0) {
        int64_t est = current_->EstimatedFileSize();
        int64_t per_row = std::max<int64_t>(1, est / current_->num_rows());
        take = std::clamp<int64_t>((target - est) / per_row, 1, n - offset);
      }
      if (offset == 0 && take == n) {
        FLOE_RETURN_NOT_OK(current_->Write(batch));
      } else {
        FLOE_RETURN_NOT_OK(current_->Write(*batch.Slice(offset, take)));
      }
      offset += take;
      if (current_->EstimatedFileSize() >= target) FLOE_RETURN_NOT_OK(CloseFile(done));
    }
    return Status::OK();
  }

  Status CloseFile(std::vector<DataFile>* done) {
    if (!current_) return Status::OK();
    std::unique_ptr<DataFileWriter> w = std::move(current_);
    FLOE_ASSIGN_OR_RAISE(DataFile file, w->Close());
    done->push_back(std::move(file));
    return Status::OK();
  }

  Status AbortFile() {
    if (!current_) return Status::OK();
    std::unique_ptr<DataFileWriter> w = std::move(current_);
    Status st = w->Abort();
    InFlightFiles::Process().Deleted(w->path());
    return st;
  }

  // An open file dropped without Close or Abort is deleted by its DataFileWriter.
  ~RollingFileWriter() {
    if (!current_) return;
    const std::string path = current_->path();
    current_.reset();
    InFlightFiles::Process().Deleted(path);
  }

 private:
  Status OpenFile() {
    DataFileWriterOptions o;
    o.spec_id = ctx_->spec_id;
    o.partition = partition_;
    o.sort_order_id = ctx_->options.sort_order_id;
    o.parquet = ctx_->parquet;
    std::string path = ctx_->factory->NewDataFilePath(partition_path_);
    FLOE_ASSIGN_OR_RAISE(
        std::shared_lock<std::shared_mutex> creating,
        InFlightFiles::Process().Add(ctx_->options.in_flight_owner, ctx_->options.io, path));
    auto opened = DataFileWriter::Open(ctx_->options.io, path, ctx_->options.schema, ctx_->metrics,
                                       std::move(o));
    creating.unlock();
    if (!opened.ok()) {
      InFlightFiles::Process().Forget(path);
      return opened.status();
    }
    current_ = std::move(*opened);
    return Status::OK();
  }

  WriteContext* ctx_;
  PartitionValues partition_;
  std::string partition_path_;
  std::unique_ptr<DataFileWriter> current_;
};

// The error handling, closing and aborting that every writer shares.
class WriterBase : public PartitionedWriter {
 public:
  explicit WriterBase(std::unique_ptr<WriteContext> ctx) : ctx_(std::move(ctx)) {}
  // A writer dropped before Close or Abort deletes the files it finished; its open files are
  // deleted by their DataFileWriters.
  ~WriterBase() override {
    if (finished_) return;
    for (const DataFile& f : files_) {
      (void)ctx_->options.io->Delete(f.file_path);
      InFlightFiles::Process().Deleted(f.file_path);
    }
  }

  Status Write(const RecordBatch& batch) final {
    FLOE_RETURN_NOT_OK(CheckUsable());
    Status st;
    auto conformed = ConformBatch(*ctx_->options.schema, batch);
    if (conformed.ok()) {
      // Required fields are checked for the whole batch before any row is routed to a file.
      st = CheckRequiredFields(*ctx_->options.schema, **conformed);
      if (st.ok() && (*conformed)->num_rows() > 0) st = DoWrite(**conformed);
    } else {
      st = conformed.status();
    }
    if (!st.ok()) return Fail(std::move(st));
    return Status::OK();
  }

  Result<std::vector<DataFile>> Close() final {
    FLOE_RETURN_NOT_OK(CheckUsable());
    if (Status st = FinishFiles(); !st.ok()) return Fail(std::move(st));
    finished_ = true;
    // Without an owner the files are the caller's now; a statement's stay in flight until it
    // seals them before its commit.
    if (ctx_->options.in_flight_owner == nullptr) {
      for (const DataFile& f : files_) InFlightFiles::Process().Forget(f.file_path);
    }
    return std::move(files_);
  }

  Status Abort() final {
    if (finished_) return Status::OK();
    finished_ = true;
    if (failed_.ok()) failed_ = Status::Invalid("the writer was aborted");
    Status first;
    for (RollingFileWriter* w : OpenWriters()) {
      Status st = w->AbortFile();
      if (first.ok() && !st.ok()) first = std::move(st);
    }
    for (const DataFile& f : files_) {
      Status st = ctx_->options.io->Delete(f.file_path);
      InFlightFiles::Process().Deleted(f.file_path);
      if (first.ok() && !st.ok()) first = std::move(st);
    }
    files_.clear();
    return first;
  }

 protected:
  virtual Status DoWrite(const RecordBatch& batch) = 0;
  // At Close: writes what the writer still holds and closes every open file.
  virtual Status FinishFiles() {
    for (RollingFileWriter* w : OpenWriters()) FLOE_RETURN_NOT_OK(w->CloseFile(&files_));
    return Status::OK();
  }
  // Every partition writer that may hold an open file.
  virtual std::vector<RollingFileWriter*> OpenWriters() = 0;

  Status CheckUsable() const {
    if (!failed_.ok()) return failed_;
    if (finished_) return Status::Invalid("the partitioned writer is closed");
    return Status::OK();
  }

  Status Fail(Status st) {
    (void)Abort();
    failed_ = st;
    return st;
  }

  std::unique_ptr<WriteContext> ctx_;
  std::vector<DataFile> files_;
  Status failed_;
  bool finished_ = false;
};

class UnpartitionedWriter final : public WriterBase {
 public:
  explicit UnpartitionedWriter(std::unique_ptr<WriteContext> ctx)
      : WriterBase(std::move(ctx)), writer_(ctx_.get(), {}, "") {}

 protected:
  Status DoWrite(const RecordBatch& batch) override { return writer_.Write(batch, &files_); }
  std::vector<RollingFileWriter*> OpenWriters() override { return {&writer_}; }
  int64_t MemoryBytes() const override { return writer_.MemoryBytes(); }

 private:
  RollingFileWriter writer_;
};

// Estimated bytes per row of `batch` (its buffers over its rows; a slice counts its parents'
// whole buffers, which errs on the side of closing files early).
double EstimateRowBytes(const RecordBatch& batch) {
  int64_t bytes = 0;
  std::vector<const Array*> stack;
  for (int c = 0; c < batch.num_columns(); ++c) stack.push_back(batch.column(c).get());
  while (!stack.empty()) {
    const Array* a = stack.back();
    stack.pop_back();
    for (const BufferPtr& b : a->buffers()) {
      if (b) bytes += b->size();
    }
    for (int i = 0; i < a->num_children(); ++i) stack.push_back(a->child(i).get());
  }
  return static_cast<double>(bytes) / static_cast<double>(std::max<int64_t>(1, batch.num_rows()));
}

class FanoutWriter final : public WriterBase {
 public:
  FanoutWriter(std::unique_ptr<WriteContext> ctx,
               std::shared_ptr<const PartitionProjector> projector)
      : WriterBase(std::move(ctx)), projector_(std::move(projector)) {}

 protected:
  // Rows are gathered per partition and handed to the partition's file fanout_flush_rows at a
  // time:
  // writing a few rows into each of hundreds of files in turn would keep every file's column
  // encoders (dictionaries above all) out of the CPU caches.
  Status DoWrite(const RecordBatch& batch) override {
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> columns, projector_->Project(batch));
    if (schema_ == nullptr) schema_ = batch.schema();
    RowGroups groups = GroupRows(columns, batch.num_rows());
    const double row_bytes = EstimateRowBytes(batch);
    const int64_t flush_rows = std::max<int64_t>(1, ctx_->options.fanout_flush_rows);
    for (const std::vector<int64_t>& rows : groups.rows) {
      size_t index = PartitionFor(columns, rows[0]);
      Partition& part = partitions_[index];
      const auto n = static_cast<int64_t>(rows.size());
      if (groups.rows.size() == 1 && part.pending_rows == 0 && n >= flush_rows) {
        FLOE_RETURN_NOT_OK(part.writer->Write(batch, &files_));
        Held(&part);
        continue;
      }
      FLOE_RETURN_NOT_OK(Gather(batch, rows, &part));
      const auto bytes = static_cast<int64_t>(row_bytes * static_cast<double>(n));
      part.pending_bytes += bytes;
      pending_bytes_ += bytes;
      if (part.pending_rows >= flush_rows) FLOE_RETURN_NOT_OK(Flush(&part));
    }
    if (pending_bytes_ > ctx_->options.fanout_memory_budget_bytes / 2) {
      FLOE_RETURN_NOT_OK(FlushPending());
    }
    return EnforceBudget();
  }

  Status FlushPending() {
    for (Partition& part : partitions_) FLOE_RETURN_NOT_OK(Flush(&part));
    return Status::OK();
  }

  // One partition at a time: its last rows, then its file closed, so that only one file's
  // encoders and buffers are live at once (with thousands of partitions, flushing every one
  // before closing any held every file's column writers in memory together).
  Status FinishFiles() override {
    for (Partition& part : partitions_) {
      FLOE_RETURN_NOT_OK(Flush(&part));
      FLOE_RETURN_NOT_OK(part.writer->CloseFile(&files_));
      Held(&part);
    }
    return Status::OK();
  }

  std::vector<RollingFileWriter*> OpenWriters() override {
    std::vector<RollingFileWriter*> out;
    for (const Partition& p : partitions_) out.push_back(p.writer.get());
    return out;
  }

  int64_t MemoryBytes() const override { return pending_bytes_ + held_bytes_; }

 private:
  struct Partition {
    std::unique_ptr<RollingFileWriter> writer;
    // One builder per column holding the rows gathered since the last flush.
    std::vector<std::unique_ptr<ArrayBuilder>> builders;
    int64_t pending_rows = 0;
    int64_t pending_bytes = 0;
    // The memory of the open file, as of its last write.
    int64_t held_bytes = 0;
  };

  // Records the memory the partition's open file holds after a write to it or its close
  // (a file's memory changes only then).
  void Held(Partition* part) {
    const int64_t now = part->writer->MemoryBytes();
    held_bytes_ += now - part->held_bytes;
    part->held_bytes = now;
  }

  size_t PartitionFor(const std::vector<ArrayPtr>& columns, int64_t row) {
    std::string key = TupleKey(columns, row);
    auto it = by_key_.find(key);
    if (it != by_key_.end()) return it->second;
    PartitionValues tuple = PartitionProjector::TupleAt(columns, row);
    std::string path = PartitionPath(*projector_->spec(), tuple);
    Partition part;
    part.writer =
        std::make_unique<RollingFileWriter>(ctx_.get(), std::move(tuple), std::move(path));
    partitions_.push_back(std::move(part));
    by_key_.emplace(std::move(key), partitions_.size() - 1);
    return partitions_.size() - 1;
  }

  // Appends the rows `rows` of `batch` to the partition's builders.
  Status Gather(const RecordBatch& batch, const std::vector<int64_t>& rows, Partition* part) {
    if (part->builders.empty()) {
      for (int c = 0; c < batch.num_columns(); ++c) {
        part->builders.push_back(MakeBuilder(batch.column(c)->type()));
      }
    }
    for (int c = 0; c < batch.num_columns(); ++c) {
      FLOE_RETURN_NOT_OK(part->builders[static_cast<size_t>(c)]->AppendIndices(
          *batch.column(c), rows.data(), static_cast<int64_t>(rows.size())));
    }
    part->pending_rows += static_cast<int64_t>(rows.size());
    return Status::OK();
  }

  Status Flush(Partition* part) {
    if (part->pending_rows == 0) return Status::OK();
    std::vector<ArrayPtr> columns;
    for (auto& b : part->builders) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr a, b->Finish());
      columns.push_back(std::move(a));
    }
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                         RecordBatch::Make(schema_, part->pending_rows, std::move(columns)));
    pending_bytes_ -= part->pending_bytes;
    part->pending_rows = 0;
    part->pending_bytes = 0;
    FLOE_RETURN_NOT_OK(part->writer->Write(*batch, &files_));
    Held(part);
    return Status::OK();
  }

  // Closes the open files holding the most memory until the gathered rows and the open
  // files together are within the budget.
  Status EnforceBudget() {
    const int64_t budget = ctx_->options.fanout_memory_budget_bytes;
    while (pending_bytes_ + held_bytes_ > budget) {
      Partition* largest = nullptr;
      for (Partition& p : partitions_) {
        if (p.writer->has_open_file() &&
            (largest == nullptr || p.held_bytes > largest->held_bytes)) {
          largest = &p;
        }
      }
      if (largest == nullptr) return Status::OK();
      FLOE_RETURN_NOT_OK(largest->writer->CloseFile(&files_));
      Held(largest);
    }
    return Status::OK();
  }

  std::shared_ptr<const PartitionProjector> projector_;
  floe::SchemaPtr schema_;
  std::vector<Partition> partitions_;
  std::unordered_map<std::string, size_t> by_key_;
  int64_t pending_bytes_ = 0;  // estimated bytes of the gathered rows
  int64_t held_bytes_ = 0;     // the open files' memory (Partition::held_bytes summed)
};

class ClusteredWriter final : public WriterBase {
 public:
  ClusteredWriter(std::unique_ptr<WriteContext> ctx,
                  std::shared_ptr<const PartitionProjector> projector)
      : WriterBase(std::move(ctx)), projector_(std::move(projector)) {}

 protected:
  Status DoWrite(const RecordBatch& batch) override {
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> columns, projector_->Project(batch));
    const int64_t n = batch.num_rows();
    int64_t start = 0;
    for (int64_t i = 1; i <= n; ++i) {
      if (i < n && RowsEqual(columns, i, i - 1)) continue;
      FLOE_RETURN_NOT_OK(WriteRun(batch, columns, start, i));
      start = i;
    }
    return Status::OK();
  }

  std::vector<RollingFileWriter*> OpenWriters() override {
    if (!current_) return {};
    return {current_.get()};
  }
  int64_t MemoryBytes() const override { return current_ ? current_->MemoryBytes() : 0; }

 private:
  Status WriteRun(const RecordBatch& batch, const std::vector<ArrayPtr>& columns, int64_t begin,
                  int64_t end) {
    std::string key = TupleKey(columns, begin);
    if (!current_ || key != current_key_) {
      if (current_) {
        FLOE_RETURN_NOT_OK(current_->CloseFile(&files_));
        closed_keys_.insert(std::move(current_key_));
        current_.reset();
      }
      PartitionValues tuple = PartitionProjector::TupleAt(columns, begin);
      std::string path = PartitionPath(*projector_->spec(), tuple);
      if (closed_keys_.count(key) != 0) {
        return Status::Invalid(
            "partition {} seen again after it was closed: input is not clustered by partition",
            path.empty() ? "()" : path);
      }
      current_ = std::make_unique<RollingFileWriter>(ctx_.get(), std::move(tuple), std::move(path));
      current_key_ = std::move(key);
    }
    if (begin == 0 && end == batch.num_rows()) return current_->Write(batch, &files_);
    return current_->Write(*batch.Slice(begin, end - begin), &files_);
  }

  std::shared_ptr<const PartitionProjector> projector_;
  std::unique_ptr<RollingFileWriter> current_;
  std::string current_key_;
  std::unordered_set<std::string> closed_keys_;
};

Result<std::unique_ptr<WriteContext>> MakeContext(PartitionedWriterOptions options) {
  if (!options.io || !options.schema) {
    return Status::Invalid("partitioned writer: null FileIO or schema");
  }
  if (options.fanout_memory_budget_bytes <= 0) {
    return Status::Invalid("partitioned writer: the fanout memory budget must be positive, not {}",
                           options.fanout_memory_budget_bytes);
  }
  auto ctx = std::make_unique<WriteContext>();
  ctx->metrics = MetricsConfig::Make(options.properties, *options.schema, options.sort_order.get());
  ctx->parquet = options.properties.ToParquetOptions();
  ctx->spec_id = options.spec ? options.spec->spec_id() : 0;
  ctx->factory = std::make_unique<OutputFileFactory>(
      options.properties.data_location, options.writer_id, options.task_id, options.operation_id);
  ctx->options = std::move(options);
  return ctx;
}

Result<std::shared_ptr<const PartitionProjector>> MakeProjector(
    const PartitionedWriterOptions& options) {
  PartitionSpecPtr spec = options.spec ? options.spec : PartitionSpec::Unpartitioned();
  return PartitionProjector::Make(options.schema, spec);
}

}  // namespace

Result<PartitionedWriterOptions> WriterOptionsForTable(
    const TableMetadata& metadata, std::shared_ptr<const io::FileIO> io,
    const std::map<std::string, std::string>& overrides) {
  PartitionedWriterOptions o;
  o.schema = metadata.CurrentSchema();
  if (!o.schema) {
    return Status::Invalid("table {}: current schema {} is not in the metadata", metadata.location,
                           metadata.current_schema_id);
  }
  o.spec = metadata.DefaultSpec();
  o.sort_order = metadata.DefaultSortOrder();
  FLOE_ASSIGN_OR_RAISE(o.properties,
                       WriterProperties::Make(metadata.properties, metadata.location, overrides));
  o.io = std::move(io);
  return o;
}

Result<std::unique_ptr<PartitionedWriter>> MakePartitionedWriter(PartitionedWriterOptions options,
                                                                 bool fanout) {
  // A spec of void fields only still gives files a tuple of NULLs: it goes the partitioned way.
  if (!options.spec || options.spec->fields().empty()) {
    return MakeUnpartitionedWriter(std::move(options));
  }
  return fanout ? MakeFanoutWriter(std::move(options)) : MakeClusteredWriter(std::move(options));
}

Result<std::unique_ptr<PartitionedWriter>> MakeUnpartitionedWriter(
    PartitionedWriterOptions options) {
  if (options.spec && !options.spec->fields().empty()) {
    return Status::Invalid("unpartitioned writer: spec {} has partition fields",
                           options.spec->spec_id());
  }
  FLOE_ASSIGN_OR_RAISE(auto ctx, MakeContext(std::move(options)));
  return std::unique_ptr<PartitionedWriter>(new UnpartitionedWriter(std::move(ctx)));
}

Result<std::unique_ptr<PartitionedWriter>> MakeFanoutWriter(PartitionedWriterOptions options) {
  FLOE_ASSIGN_OR_RAISE(auto projector, MakeProjector(options));
  FLOE_ASSIGN_OR_RAISE(auto ctx, MakeContext(std::move(options)));
  return std::unique_ptr<PartitionedWriter>(new FanoutWriter(std::move(ctx), std::move(projector)));
}

Result<std::unique_ptr<PartitionedWriter>> MakeClusteredWriter(PartitionedWriterOptions options) {
  FLOE_ASSIGN_OR_RAISE(auto projector, MakeProjector(options));
  FLOE_ASSIGN_OR_RAISE(auto ctx, MakeContext(std::move(options)));
  return std::unique_ptr<PartitionedWriter>(
      new ClusteredWriter(std::move(ctx), std::move(projector)));
}

}  // namespace floe::iceberg
