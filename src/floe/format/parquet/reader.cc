#include "floe/format/parquet/reader.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <optional>
#include <system_error>
#include <utility>

#include "floe/common/thread_pool.h"
#include "floe/format/parquet/column_reader_internal.h"
#include "floe/format/parquet/level_assembly_internal.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader_internal.h"
#include "floe/format/parquet/schema_internal.h"
#include "floe/io/local_file.h"

namespace floe::parquet {

using internal::FileReader;

namespace internal {

Status FileReader::Init() {
  const int64_t size = file_->size();
  const std::string& path = file_->path();
  if (size < static_cast<int64_t>(4 + kFooterTrailerSize)) {
    return Status::Corrupt("'{}' is not a Parquet file: {} bytes is too small", path, size);
  }
  FLOE_ASSIGN_OR_RAISE(BufferPtr head, file_->ReadAt(0, 4));
  if (head->view() != kParquetMagic) {
    return Status::Corrupt("'{}' is not a Parquet file: bad magic at byte offset 0", path);
  }
  int64_t tail_size = std::min<int64_t>(size - 4, kDefaultFooterReadSize);
  FLOE_ASSIGN_OR_RAISE(BufferPtr tail, file_->ReadAt(size - tail_size, tail_size));
  auto footer_len = ReadFooterLength(tail->span(), static_cast<uint64_t>(size));
  if (!footer_len.ok()) return footer_len.status().WithPrefix(fmt::format("'{}': ", path));
  int64_t need = static_cast<int64_t>(*footer_len) + static_cast<int64_t>(kFooterTrailerSize);
  if (need > size - 4) {
    return Status::Corrupt("'{}': footer length {} does not fit the file of {} bytes", path,
                           *footer_len, size);
  }
  if (need > tail_size) {
    FLOE_ASSIGN_OR_RAISE(tail, file_->ReadAt(size - need, need));
  }
  auto md = DecodeFooter(tail->span(), static_cast<uint64_t>(size));
  // A file truncated since it was opened (and mapped) decodes zeros: that, not the footer
  // they make, is what is wrong.
  FLOE_RETURN_NOT_OK(file_->CheckIntact());
  if (!md.ok()) return md.status().WithPrefix(fmt::format("'{}': footer: ", path));
  metadata_ = std::move(*md);
  data_end_ = size - need;
  auto schema = internal::MapSchema(metadata_.schema);
  if (!schema.ok()) return schema.status().WithPrefix(fmt::format("'{}': ", path));
  schema_ = std::move(*schema);
  for (size_t i = 0; i < metadata_.row_groups.size(); ++i) {
    const RowGroup& rg = metadata_.row_groups[i];
    if (rg.columns.size() != schema_.leaves.size()) {
      return Status::Corrupt("'{}': row group {} has {} columns, the schema has {} leaves", path, i,
                             rg.columns.size(), schema_.leaves.size());
    }
    if (rg.num_rows < 0) {
      return Status::Corrupt("'{}': row group {} has {} rows", path, i, rg.num_rows);
    }
  }
  return Status::OK();
}

Result<std::vector<int>> FileReader::ColumnsByFieldId(const std::vector<int32_t>& ids) const {
  std::vector<int> out;
  for (int32_t id : ids) {
    int i = schema_.schema->GetFieldIndexById(id);
    if (i < 0) return Status::NotFound("'{}' has no column with field id {}", path(), id);
    out.push_back(i);
  }
  return out;
}

Result<std::vector<int>> FileReader::ColumnsByName(const std::vector<std::string>& names) const {
  std::vector<int> out;
  for (const std::string& name : names) {
    int i = schema_.schema->GetFieldIndex(name);
    if (i < 0) return Status::NotFound("'{}' has no column named '{}'", path(), name);
    out.push_back(i);
  }
  return out;
}

Result<std::unique_ptr<RecordBatchReader>> FileReader::Read(const ReadRequest& request) const {
  std::vector<int> columns;
  if (request.columns) {
    columns = *request.columns;
    for (int c : columns) {
      if (c < 0 || c >= schema_.schema->num_fields()) {
        return Status::Invalid("column {} does not exist in '{}' ({} columns)", c, path(),
                               schema_.schema->num_fields());
      }
    }
  } else {
    for (int i = 0; i < schema_.schema->num_fields(); ++i) columns.push_back(i);
  }
  std::vector<int> row_groups;
  std::map<int, std::pair<int64_t, int64_t>> slices;
  if (request.row_groups) {
    row_groups = *request.row_groups;
    for (size_t i = 0; i < row_groups.size(); ++i) {
      if (row_groups[i] < 0 || row_groups[i] >= num_row_groups() ||
          (i > 0 && row_groups[i] <= row_groups[i - 1])) {
        return Status::Invalid("row groups must be ascending indices below {}", num_row_groups());
      }
    }
    if (!request.row_group_rows.empty()) {
      if (request.row_group_rows.size() != row_groups.size()) {
        return Status::Invalid("'{}': {} row ranges for {} row groups", path(),
                               request.row_group_rows.size(), row_groups.size());
      }
      for (int c : columns) {
        if (schema_.top[static_cast<size_t>(c)].kind != ReadNode::Kind::kLeaf) {
          return Status::Invalid("'{}': column '{}' is nested: its row groups cannot be sliced",
                                 path(), schema_.schema->field(c).name());
        }
      }
      for (size_t i = 0; i < row_groups.size(); ++i) {
        const auto [begin, end] = request.row_group_rows[i];
        const int64_t rows = metadata_.row_groups[static_cast<size_t>(row_groups[i])].num_rows;
        if (begin < 0 || begin >= end || end > rows) {
          return Status::Invalid("'{}': rows [{}, {}) of row group {}, which has {} rows", path(),
                                 begin, end, row_groups[i], rows);
        }
        if (begin > 0 || end < rows) slices[row_groups[i]] = {begin, end};
      }
    }
    if (!request.predicates.empty()) {
      FLOE_ASSIGN_OR_RAISE(std::vector<int> kept, PruneRowGroups(request.predicates));
      std::vector<int> both;
      std::set_intersection(row_groups.begin(), row_groups.end(), kept.begin(), kept.end(),
                            std::back_inserter(both));
      row_groups = std::move(both);
    }
  } else {
    if (!request.row_group_rows.empty()) {
      return Status::Invalid("'{}': row ranges without their row groups", path());
    }
    FLOE_ASSIGN_OR_RAISE(row_groups, PruneRowGroups(request.predicates));
  }
  std::vector<Field> fields;
  for (int c : columns) fields.push_back(schema_.schema->field(c));
  auto schema = std::make_shared<Schema>(std::move(fields), schema_.schema->metadata());
  return std::unique_ptr<RecordBatchReader>(
      new BatchReader(this, std::move(schema), std::move(columns), std::move(row_groups),
                      std::move(slices), request.predicates, request.filter_rows));
}

BatchReader::BatchReader(const FileReader* file, SchemaPtr schema, std::vector<int> columns,
                         std::vector<int> row_groups,
                         std::map<int, std::pair<int64_t, int64_t>> slices,
                         std::vector<ColumnPredicate> predicates, bool filter_rows)
    : file_(file),
      schema_(std::move(schema)),
      columns_(std::move(columns)),
      row_groups_(std::move(row_groups)),
      slices_(std::move(slices)),
      predicates_(std::move(predicates)),
      filter_rows_(filter_rows) {
  const FileSchema& fs = file_->file_schema();
  std::vector<bool> used(fs.leaves.size(), false);
  for (int c : columns_) {
    auto [b, e] = fs.top_leaf_range[static_cast<size_t>(c)];
    for (int l = b; l < e; ++l) used[static_cast<size_t>(l)] = true;
  }
  by_leaf_.assign(fs.leaves.size(), nullptr);
  for (size_t l = 0; l < used.size(); ++l) {
    if (!used[l]) continue;
    leaves_.push_back(static_cast<int>(l));
    batches_.push_back(std::make_unique<LeafBatch>(file_->options().pool));
    by_leaf_[l] = batches_.back().get();
  }
  if (filter_rows_) SetUpRowFilters();
}

Status BatchReader::RowCountError(size_t k, int64_t got) const {
  return Status::Corrupt("'{}', column '{}', row group {}: {} rows where {} were expected",
                         file_->path(),
                         file_->file_schema().leaves[static_cast<size_t>(leaves_[k])].path,
                         current_rg_, rg_done_ + got, rg_rows_);
}

Status BatchReader::ReadLeaves(int64_t rows, bool filtered) {
  const FileSchema& fs = file_->file_schema();
  for (size_t k = 0; k < leaves_.size(); ++k) {
    const bool is_filtered = !filtered_leaf_.empty() && filtered_leaf_[k];
    if (is_filtered != filtered) continue;
    batches_[k]->Reset();
    const LeafInfo& leaf = fs.leaves[static_cast<size_t>(leaves_[k])];
    if (leaf.max_rep == 0 && leaf.out_width > 0) {
      FLOE_RETURN_NOT_OK(batches_[k]->values.Reserve(rows * leaf.out_width));
    }
    FLOE_ASSIGN_OR_RAISE(int64_t got, readers_[k]->ReadRecords(rows, batches_[k].get()));
    if (got != rows) return RowCountError(k, got);
  }
  return Status::OK();
}

Status BatchReader::ReadUnfilteredSelected(int64_t rows, int64_t count) {
  for (size_t k = 0; k < leaves_.size(); ++k) {
    if (filtered_leaf_[k]) continue;
    batches_[k]->Reset();
    FLOE_ASSIGN_OR_RAISE(
        int64_t got, readers_[k]->ReadSelected(rows, selection_.data(), count, batches_[k].get()));
    if (got != rows) return RowCountError(k, got);
  }
  return Status::OK();
}

BatchReader::~BatchReader() {
  if (read_ahead_) cancelled_->store(true);
  DropReadAhead();
}

void BatchReader::DropReadAhead() {
  if (!read_ahead_) return;
  // A read no thread has taken up yet never will be; one under way is waited for, as it
  // reads the file.
  if (read_ahead_->claimed->exchange(true)) read_ahead_->bytes.wait();
  read_ahead_.reset();
}

Status BatchReader::PlanRowGroup(int rg_index, std::vector<ChunkRange>* ranges,
                                 std::vector<const ColumnMetaData*>* metas) const {
  const RowGroup& rg = file_->metadata().row_groups[static_cast<size_t>(rg_index)];
  const FileSchema& fs = file_->file_schema();
  const std::string& path = file_->path();
  for (size_t i = 0; i < leaves_.size(); ++i) {
    const LeafInfo& leaf = fs.leaves[static_cast<size_t>(leaves_[i])];
    const ColumnChunk& cc = rg.columns[static_cast<size_t>(leaf.column_index)];
    auto meta = cc.GetMetaData();
    if (!meta.ok()) {
      return meta.status().WithPrefix(
          fmt::format("'{}', column '{}', row group {}: ", path, leaf.path, rg_index));
    }
    if (cc.file_path) {
      return Status::NotSupported("'{}', column '{}', row group {}: column chunk in another file",
                                  path, leaf.path, rg_index);
    }
    const ColumnMetaData& m = **meta;
    int64_t start = m.data_page_offset;
    if (m.dictionary_page_offset && *m.dictionary_page_offset > 0 &&
        *m.dictionary_page_offset < start) {
      start = *m.dictionary_page_offset;
    }
    int64_t size = m.total_compressed_size;
    if (start < 4 || size < 0 || size > file_->data_end() - start) {
      return Status::Corrupt(
          "'{}', column '{}', row group {}: column chunk [{}, +{}) lies outside the data area "
          "[4, {})",
          path, leaf.path, rg_index, start, size, file_->data_end());
    }
    ranges->push_back(ChunkRange{start, size, i});
    metas->push_back(&m);
  }
  return Status::OK();
}

Result<std::vector<BufferPtr>> BatchReader::ReadChunks(
    const io::RandomAccessFile& file, std::vector<ChunkRange> ranges, size_t num_leaves,
    int64_t coalesce_gap_bytes, int64_t read_ahead_bytes, const std::atomic<bool>& cancelled) {
  // Coalesced reads: ranges closer than the gap (and not past the read-ahead window)
  // are read with one request.
  std::vector<BufferPtr> chunk_bytes(num_leaves);
  std::sort(ranges.begin(), ranges.end(),
            [](const ChunkRange& a, const ChunkRange& b) { return a.offset < b.offset; });
  size_t i = 0;
  while (i < ranges.size()) {
    if (cancelled.load()) return Status::Cancelled("'{}': read-ahead cancelled", file.path());
    int64_t begin = ranges[i].offset;
    int64_t end = begin + ranges[i].size;
    size_t j = i + 1;
    while (j < ranges.size() && ranges[j].offset - end <= coalesce_gap_bytes &&
           std::max(end, ranges[j].offset + ranges[j].size) - begin <= read_ahead_bytes) {
      end = std::max(end, ranges[j].offset + ranges[j].size);
      ++j;
    }
    FLOE_ASSIGN_OR_RAISE(BufferPtr bytes, file.ReadAt(begin, end - begin));
    for (size_t k = i; k < j; ++k) {
      chunk_bytes[ranges[k].index] = Buffer::Slice(bytes, ranges[k].offset - begin, ranges[k].size);
    }
    i = j;
  }
  return chunk_bytes;
}

void BatchReader::StartReadAhead() {
  const ReaderOptions& opt = file_->options();
  if (next_rg_ >= row_groups_.size() || opt.read_ahead_bytes <= 0) return;
  const int rg = row_groups_[next_rg_];
  std::vector<ChunkRange> ranges;
  std::vector<const ColumnMetaData*> metas;
  if (!PlanRowGroup(rg, &ranges, &metas).ok()) return;
  int64_t total = 0;
  for (const ChunkRange& r : ranges) total += r.size;
  if (total > opt.read_ahead_bytes) return;
  const io::RandomAccessFile* file = &file_->file();
  if (io::IsMemoryMapped(*file)) {
    // Reads of a mapped file are views, read from disk when first touched, a fault at a
    // time: the kernel reads the next row group's pages ahead instead of a thread.
    for (const ChunkRange& r : ranges) file->WillNeed(r.offset, r.size);
    return;
  }
  auto claimed = std::make_shared<std::atomic<bool>>(false);
  // The task owns everything it uses but the file, which outlives this stream: the stream's
  // destructor waits for a task that claimed the read, and one that did not claim it never
  // touches the file.
  auto task = [file, claimed, ranges = std::move(ranges), n = leaves_.size(),
               gap = opt.coalesce_gap_bytes, window = opt.read_ahead_bytes,
               cancelled = cancelled_]() mutable -> Result<std::vector<BufferPtr>> {
    if (claimed->exchange(true)) return Status::Cancelled("read-ahead taken over by its reader");
    return ReadChunks(*file, std::move(ranges), n, gap, window, *cancelled);
  };
  try {
    read_ahead_ = ReadAhead{rg, claimed, IoThreadPool()->Submit(std::move(task))};
  } catch (const std::system_error&) {
    // No thread to be had: that row group is read when it starts.
    read_ahead_.reset();
  }
}

Status BatchReader::StartRowGroup() {
  current_rg_ = row_groups_[next_rg_++];
  const RowGroup& rg = file_->metadata().row_groups[static_cast<size_t>(current_rg_)];
  rg_rows_ = rg.num_rows;
  rg_done_ = 0;
  const FileSchema& fs = file_->file_schema();
  const std::string& path = file_->path();
  const ReaderOptions& opt = file_->options();

  std::vector<ChunkRange> ranges;
  std::vector<const ColumnMetaData*> metas;
  FLOE_RETURN_NOT_OK(PlanRowGroup(current_rg_, &ranges, &metas));
  std::vector<BufferPtr> chunk_bytes;
  if (read_ahead_ && read_ahead_->row_group == current_rg_ &&
      !read_ahead_->claimed->exchange(true)) {
    // No I/O thread has taken the read-ahead of this row group up: it is done here, and the
    // queued task does nothing.
    read_ahead_.reset();
  }
  if (read_ahead_ && read_ahead_->row_group == current_rg_) {
    // Read ahead while the previous row group decoded; its error, if any, is this one's.
    Result<std::vector<BufferPtr>> bytes = read_ahead_->bytes.get();
    read_ahead_.reset();
    if (!bytes.ok()) {
      return bytes.status().WithPrefix(fmt::format("'{}', row group {}: ", path, current_rg_));
    }
    chunk_bytes = std::move(*bytes);
  } else {
    DropReadAhead();
    auto bytes = ReadChunks(file_->file(), ranges, leaves_.size(), opt.coalesce_gap_bytes,
                            opt.read_ahead_bytes, *cancelled_);
    if (!bytes.ok()) {
      return bytes.status().WithPrefix(fmt::format("'{}', row group {}: ", path, current_rg_));
    }
    chunk_bytes = std::move(*bytes);
  }
  StartReadAhead();
  for (size_t k = 0; k < leaves_.size(); ++k) {
    const LeafInfo& leaf = fs.leaves[static_cast<size_t>(leaves_[k])];
    std::string context =
        fmt::format("'{}', column '{}', row group {}", path, leaf.path, current_rg_);
    // Readers carry over from row group to row group, with their buffers.
    if (k < readers_.size()) {
      FLOE_RETURN_NOT_OK(readers_[k]->Restart(*metas[k], chunk_bytes[k], ranges[k].offset, rg_rows_,
                                              std::move(context)));
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(auto reader,
                         ColumnChunkReader::Make(leaf, *metas[k], chunk_bytes[k], ranges[k].offset,
                                                 rg_rows_, std::move(context)));
    std::vector<std::vector<std::string>> string_sets;
    for (const RowFilter& f : row_filters_) {
      if (f.width == 0 && f.batch == k) string_sets.push_back(f.strings);
    }
    if (!string_sets.empty()) reader->SetStringFilter(std::move(string_sets));
    reader->SetVerifyChecksums(opt.verify_page_checksums);
    readers_.push_back(std::move(reader));
  }
  const auto slice = slices_.find(current_rg_);
  if (slice != slices_.end()) return SelectRows(rg, slice->second);
  if (opt.use_page_index && !predicates_.empty()) return SelectRows(rg, {0, rg_rows_});
  return Status::OK();
}

Result<RecordBatchPtr> BatchReader::Next() {
  Result<RecordBatchPtr> next = ReadNext();
  // Bytes a truncated mapped file lost read as zeros, which decode to errors of their own:
  // the truncation is what went wrong.
  if (!next.ok()) FLOE_RETURN_NOT_OK(file_->file().CheckIntact());
  return next;
}

Result<RecordBatchPtr> BatchReader::ReadNext() {
  const FileSchema& fs = file_->file_schema();
  while (true) {
    while (current_rg_ < 0 || rg_done_ >= rg_rows_) {
      if (next_rg_ >= row_groups_.size()) {
        // What was read decided what was skipped (page indexes): it must have been the file's.
        FLOE_RETURN_NOT_OK(file_->file().CheckIntact());
        return RecordBatchPtr();
      }
      FLOE_RETURN_NOT_OK(StartRowGroup());
    }
    const int64_t want =
        std::min(std::max<int64_t>(file_->options().batch_size, 1), rg_rows_ - rg_done_);
    int64_t rows = want;
    bool unfiltered_read = false;
    if (!row_filters_.empty()) {
      // The columns the filters read come first; the others are then read for the rows
      // that pass only.
      FLOE_ASSIGN_OR_RAISE(const int64_t count, FilterRows(want));
      {
        // Compacting costs a copy of the passing rows of the filtered columns and saves
        // decoding the failing rows of the others (and the caller's filtering of them). A
        // filtered batch that holds some rows only must be compacted.
        const bool must =
            std::find(held_selected_.begin(), held_selected_.end(), true) != held_selected_.end();
        if (count == 0 || count * 4 <= want * 3 || must) {
          FLOE_RETURN_NOT_OK(ReadUnfilteredSelected(want, count));
          rg_done_ += want;
          if (count == 0) continue;
          FLOE_RETURN_NOT_OK(CompactFilteredBatches(count));
          rows = count;
          unfiltered_read = true;
        }
      }
    }
    if (!unfiltered_read) {
      FLOE_RETURN_NOT_OK(ReadLeaves(want, false));
      rg_done_ += want;
    }
    std::vector<ArrayPtr> arrays;
    for (int c : columns_) {
      auto array =
          AssembleFromLevels(fs, by_leaf_, file_->options().pool, fs.top[static_cast<size_t>(c)]);
      if (!array.ok()) {
        return array.status().WithPrefix(
            fmt::format("'{}', row group {}: ", file_->path(), current_rg_));
      }
      arrays.push_back(std::move(*array));
    }
    // Every value of the batch was decoded from the file's bytes, not from the zeros a
    // mapping of a truncated file reads as.
    FLOE_RETURN_NOT_OK(file_->file().CheckIntact());
    return RecordBatch::Make(schema_, rows, std::move(arrays));
  }
}

}  // namespace internal

Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::Open(
    std::shared_ptr<io::RandomAccessFile> file, ReaderOptions options) {
  auto reader = std::make_unique<FileReader>(std::move(file), options);
  FLOE_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<ParquetFileReader>(std::move(reader));
}

Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::OpenPath(const std::string& path,
                                                                       ReaderOptions options) {
  // The reader checks that a mapped file stayed whole (CheckIntact) before it hands on what
  // it decoded.
  FLOE_ASSIGN_OR_RAISE(auto file,
                       io::OpenLocalFile(path, io::LocalReadOptions{io::kScanMapMinSize}));
  return Open(std::shared_ptr<io::RandomAccessFile>(std::move(file)), options);
}

}  // namespace floe::parquet
