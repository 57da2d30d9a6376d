#include "floe/iceberg/delete_filter.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>

#include "floe/format/parquet/reader.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/iceberg/task_reader_internal.h"

namespace floe::iceberg {

std::optional<std::string> FileScopedPath(const DataFile& file) {
  if (file.content != FileContent::kPositionDeletes) return std::nullopt;
  auto lower = file.lower_bounds.find(kDeleteFilePathFieldId);
  auto upper = file.upper_bounds.find(kDeleteFilePathFieldId);
  if (lower == file.lower_bounds.end() || upper == file.upper_bounds.end()) return std::nullopt;
  if (lower->second != upper->second) return std::nullopt;
  return lower->second;
}

// ---------------------------------------------------------------------------------------
// PositionDeleteIndex

PositionDeleteIndex PositionDeleteIndex::FromPositions(std::vector<int64_t> positions) {
  std::sort(positions.begin(), positions.end());
  PositionDeleteIndex index;
  for (int64_t p : positions) {
    if (!index.ranges_.empty() && p <= index.ranges_.back().second) {
      index.ranges_.back().second = std::max(index.ranges_.back().second, p + 1);
    } else {
      index.ranges_.emplace_back(p, p + 1);
    }
  }
  return index;
}

PositionDeleteIndex PositionDeleteIndex::FromRanges(
    std::vector<std::pair<int64_t, int64_t>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  PositionDeleteIndex index;
  for (const auto& [begin, end] : ranges) {
    if (begin >= end) continue;
    if (!index.ranges_.empty() && begin <= index.ranges_.back().second) {
      index.ranges_.back().second = std::max(index.ranges_.back().second, end);
    } else {
      index.ranges_.emplace_back(begin, end);
    }
  }
  return index;
}

int64_t PositionDeleteIndex::cardinality() const {
  int64_t n = 0;
  for (const auto& [begin, end] : ranges_) n += end - begin;
  return n;
}

bool PositionDeleteIndex::Contains(int64_t position) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), position,
                             [](int64_t p, const auto& range) { return p < range.first; });
  if (it == ranges_.begin()) return false;
  --it;
  return position < it->second;
}

void PositionDeleteIndex::MarkDeleted(int64_t first, std::vector<uint8_t>& keep) const {
  const int64_t last = first + static_cast<int64_t>(keep.size());
  // The first range that ends after `first`.
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), first,
                             [](int64_t p, const auto& range) { return p < range.second; });
  for (; it != ranges_.end() && it->first < last; ++it) {
    const int64_t begin = std::max(it->first, first);
    const int64_t end = std::min(it->second, last);
    std::fill(keep.begin() + (begin - first), keep.begin() + (end - first), 0);
  }
}

void PositionDeleteIndex::Merge(const PositionDeleteIndex& other) {
  if (other.empty()) return;
  std::vector<std::pair<int64_t, int64_t>> all = ranges_;
  all.insert(all.end(), other.ranges_.begin(), other.ranges_.end());
  *this = FromRanges(std::move(all));
}

// ---------------------------------------------------------------------------------------
// DeleteFileCache

namespace {

Result<std::unique_ptr<parquet::ParquetFileReader>> OpenParquet(const io::FileIO& io,
                                                                const std::string& path,
                                                                MemoryPool* pool) {
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<io::RandomAccessFile> file, io.NewInputFile(path));
  parquet::ReaderOptions options;
  options.pool = pool;
  options.batch_size = 64 * 1024;
  return parquet::ParquetFileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file)),
                                          options);
}

// The top-level column of `schema` that holds `field_id` (itself or inside structs), or -1.
int TopLevelColumnHolding(const floe::Schema& schema, int32_t field_id) {
  std::function<bool(const Field&)> holds = [&](const Field& f) {
    if (f.field_id() == field_id) return true;
    if (f.type()->id() != TypeId::kStruct) return false;
    for (const Field& child : f.type()->fields()) {
      if (holds(child)) return true;
    }
    return false;
  };
  for (int i = 0; i < schema.num_fields(); ++i) {
    if (holds(schema.field(i))) return i;
  }
  return -1;
}

}  // namespace

Result<std::shared_ptr<const DeleteFileCache::PositionsByFile>> DeleteFileCache::LoadPositionFile(
    const DataFile& delete_file) {
  if (delete_file.file_format != FileFormat::kParquet) {
    return Status::NotSupported("position delete file '{}': only Parquet is supported",
                                delete_file.file_path);
  }
  FLOE_ASSIGN_OR_RAISE(auto reader, OpenParquet(*io_, delete_file.file_path, pool_));
  auto columns = reader->ColumnsByFieldId({kDeleteFilePathFieldId, kDeletePosFieldId});
  if (!columns.ok()) columns = reader->ColumnsByName({"file_path", "pos"});
  if (!columns.ok()) {
    return Status::Corrupt("position delete file '{}' lacks the file_path and pos columns",
                           delete_file.file_path);
  }
  parquet::ReadRequest request;
  request.columns = *columns;
  FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(request));
  std::map<std::string, std::vector<int64_t>> positions;
  std::vector<int64_t>* current = nullptr;
  std::string current_path;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (batch == nullptr) break;
    const Array& paths = *batch->column(0);
    const Array& pos = *batch->column(1);
    if (!paths.type()->is_binary_like() || pos.type_id() != TypeId::kInt64) {
      return Status::Corrupt(
          "position delete file '{}': file_path must be a string and pos a "
          "long, found {} and {}",
          delete_file.file_path, paths.type()->ToString(), pos.type()->ToString());
    }
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      if (paths.IsNull(i) || pos.IsNull(i)) {
        return Status::Corrupt("position delete file '{}': NULL file_path or pos in row {}",
                               delete_file.file_path, i);
      }
      std::string_view path = paths.BytesValue(i);
      if (current == nullptr || path != current_path) {
        current_path = std::string(path);
        current = &positions[current_path];
      }
      current->push_back(pos.Value<int64_t>(i));
    }
  }
  auto result = std::make_shared<PositionsByFile>();
  for (auto& [path, list] : positions) {
    (*result)[path] =
        std::make_shared<PositionDeleteIndex>(PositionDeleteIndex::FromPositions(std::move(list)));
  }
  return std::shared_ptr<const PositionsByFile>(std::move(result));
}

Result<std::shared_ptr<const PositionDeleteIndex>> DeleteFileCache::LoadDeletionVector(
    const DataFile& delete_file) {
  if (!delete_file.content_offset || !delete_file.content_size_in_bytes) {
    return Status::Corrupt("deletion vector '{}' lacks content_offset or content_size_in_bytes",
                           delete_file.file_path);
  }
  const int64_t offset = *delete_file.content_offset;
  const int64_t size = *delete_file.content_size_in_bytes;
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<io::RandomAccessFile> file,
                       io_->NewInputFile(delete_file.file_path));
  if (offset < 0 || size < 0 || offset > file->size() || size > file->size() - offset) {
    return Status::Corrupt("deletion vector '{}': blob [{}, +{}) lies outside the {}-byte file",
                           delete_file.file_path, offset, size, file->size());
  }
  // The manifest's record_count is the vector's cardinality; a mismatch is corruption.
  std::optional<int64_t> cardinality;
  if (delete_file.record_count > 0) cardinality = delete_file.record_count;
  FLOE_ASSIGN_OR_RAISE(puffin::PositionDeleteSet set,
                       puffin::ReadDeletionVector(*file, offset, size, cardinality));
  std::vector<int64_t> positions;
  positions.reserve(static_cast<size_t>(set.Cardinality()));
  set.ForEach([&](int64_t position) { positions.push_back(position); });
  PositionDeleteIndex index = PositionDeleteIndex::FromPositions(std::move(positions));
  return std::make_shared<const PositionDeleteIndex>(std::move(index));
}

Result<std::shared_ptr<const EqualityDeleteSet>> DeleteFileCache::LoadEqualityFile(
    const DataFile& delete_file) {
  if (delete_file.file_format != FileFormat::kParquet) {
    return Status::NotSupported("equality delete file '{}': only Parquet is supported",
                                delete_file.file_path);
  }
  if (delete_file.equality_ids.empty()) {
    return Status::Corrupt("equality delete file '{}' has no equality_ids", delete_file.file_path);
  }
  FLOE_ASSIGN_OR_RAISE(auto reader, OpenParquet(*io_, delete_file.file_path, pool_));
  const floe::Schema& schema = *reader->schema();
  std::vector<int> columns;
  for (int32_t id : delete_file.equality_ids) {
    int column = TopLevelColumnHolding(schema, id);
    if (column < 0) {
      return Status::Corrupt("equality delete file '{}' has no column with field id {}",
                             delete_file.file_path, id);
    }
    if (std::find(columns.begin(), columns.end(), column) == columns.end()) {
      columns.push_back(column);
    }
  }
  parquet::ReadRequest request;
  request.columns = columns;
  FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(request));
  std::unordered_set<std::string> keys;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (batch == nullptr) break;
    const size_t rows = static_cast<size_t>(batch->num_rows());
    std::vector<ArrayPtr> parts;
    std::vector<std::vector<uint8_t>> part_nulls;
    for (int32_t id : delete_file.equality_ids) {
      for (int c = 0; c < batch->num_columns(); ++c) {
        std::vector<uint8_t> nulls(rows, 0);
        ArrayPtr found =
            internal::FindStructPath(batch->column(c), batch->schema()->field(c), id, nulls);
        if (found != nullptr) {
          if (found->type()->is_nested()) {
            return Status::NotSupported(
                "equality delete file '{}': field id {} is not a primitive column",
                delete_file.file_path, id);
          }
          parts.push_back(std::move(found));
          part_nulls.push_back(std::move(nulls));
          break;
        }
      }
    }
    std::string key;
    for (size_t r = 0; r < rows; ++r) {
      key.clear();
      for (size_t k = 0; k < parts.size(); ++k) {
        internal::AppendKeyValue(*parts[k], static_cast<int64_t>(r), part_nulls[k][r] != 0, key);
      }
      keys.insert(key);
    }
  }
  return std::make_shared<const EqualityDeleteSet>(delete_file.equality_ids, std::move(keys));
}

Result<std::shared_ptr<const PositionDeleteIndex>> DeleteFileCache::PositionDeletes(
    const DataFile& delete_file, const std::string& data_file_path) {
  if (delete_file.is_deletion_vector()) {
    const std::string key =
        delete_file.file_path + "@" + std::to_string(delete_file.content_offset.value_or(-1));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = deletion_vectors_.find(key);
      if (it != deletion_vectors_.end()) return it->second;
    }
    FLOE_ASSIGN_OR_RAISE(auto index, LoadDeletionVector(delete_file));
    std::lock_guard<std::mutex> lock(mutex_);
    deletion_vectors_.emplace(key, index);
    return index;
  }
  std::shared_ptr<const PositionsByFile> by_file;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = position_files_.find(delete_file.file_path);
    if (it != position_files_.end()) by_file = it->second;
  }
  if (by_file == nullptr) {
    FLOE_ASSIGN_OR_RAISE(by_file, LoadPositionFile(delete_file));
    std::lock_guard<std::mutex> lock(mutex_);
    position_files_.emplace(delete_file.file_path, by_file);
  }
  auto it = by_file->find(data_file_path);
  if (it == by_file->end()) return std::make_shared<const PositionDeleteIndex>();
  return it->second;
}

Result<std::shared_ptr<const EqualityDeleteSet>> DeleteFileCache::EqualityDeletes(
    const DataFile& delete_file) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = equality_files_.find(delete_file.file_path);
    if (it != equality_files_.end()) return it->second;
  }
  FLOE_ASSIGN_OR_RAISE(auto set, LoadEqualityFile(delete_file));
  std::lock_guard<std::mutex> lock(mutex_);
  equality_files_.emplace(delete_file.file_path, set);
  return set;
}

// ---------------------------------------------------------------------------------------
// DeleteFilter

Result<std::unique_ptr<DeleteFilter>> DeleteFilter::Make(
    const DataFile& data_file, const std::vector<DataFilePtr>& delete_files,
    DeleteFileCache& cache) {
  std::unique_ptr<DeleteFilter> filter(new DeleteFilter());
  for (const DataFilePtr& file : delete_files) {
    switch (file->content) {
      case FileContent::kPositionDeletes: {
        FLOE_ASSIGN_OR_RAISE(auto index, cache.PositionDeletes(*file, data_file.file_path));
        filter->positions_.Merge(*index);
        break;
      }
      case FileContent::kEqualityDeletes: {
        FLOE_ASSIGN_OR_RAISE(auto set, cache.EqualityDeletes(*file));
        if (set->size() > 0) filter->equality_[set->equality_ids()].push_back(std::move(set));
        break;
      }
      default:
        return Status::Invalid("'{}' is listed as a delete file of '{}' but holds data",
                               file->file_path, data_file.file_path);
    }
  }
  return filter;
}

std::vector<int32_t> DeleteFilter::EqualityFieldIds() const {
  std::vector<int32_t> ids;
  for (const auto& [group, sets] : equality_) {
    for (int32_t id : group) {
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
  }
  return ids;
}

Status DeleteFilter::Apply(const RecordBatch& batch, int64_t first_position,
                           std::vector<uint8_t>& keep) const {
  positions_.MarkDeleted(first_position, keep);
  const size_t rows = static_cast<size_t>(batch.num_rows());
  for (const auto& [ids, sets] : equality_) {
    std::vector<ArrayPtr> parts;
    std::vector<std::vector<uint8_t>> part_nulls;
    for (int32_t id : ids) {
      ArrayPtr found;
      std::vector<uint8_t> nulls;
      for (int c = 0; c < batch.num_columns() && found == nullptr; ++c) {
        nulls.assign(rows, 0);
        found = internal::FindStructPath(batch.column(c), batch.schema()->field(c), id, nulls);
      }
      if (found == nullptr) {
        return Status::Invalid("equality delete field id {} is not among the columns read", id);
      }
      parts.push_back(std::move(found));
      part_nulls.push_back(std::move(nulls));
    }
    std::string key;
    for (size_t r = 0; r < rows; ++r) {
      if (!keep[r]) continue;
      key.clear();
      for (size_t k = 0; k < parts.size(); ++k) {
        internal::AppendKeyValue(*parts[k], static_cast<int64_t>(r), part_nulls[k][r] != 0, key);
      }
      for (const auto& set : sets) {
        if (set->Contains(key)) {
          keep[r] = 0;
          break;
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace floe::iceberg
