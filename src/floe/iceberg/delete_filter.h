#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/schema.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

/// Iceberg's reserved field ids of position delete files (spec, "Reserved Field IDs").
inline constexpr int32_t kDeleteFilePathFieldId = 2147483546;
inline constexpr int32_t kDeletePosFieldId = 2147483545;

/// The one data file a position delete file holds deletes for, when its file_path bounds
/// are equal (a file-scoped delete file); nullopt otherwise.
std::optional<std::string> FileScopedPath(const DataFile& file);

/// Deleted row positions of one data file, held as sorted, disjoint, non-adjacent ranges
/// (a deletion vector's runs stay compact).
class PositionDeleteIndex {
 public:
  PositionDeleteIndex() = default;
  /// Takes positions in any order, with duplicates.
  static PositionDeleteIndex FromPositions(std::vector<int64_t> positions);
  /// Takes half-open ranges [first, second) in any order, possibly overlapping.
  static PositionDeleteIndex FromRanges(std::vector<std::pair<int64_t, int64_t>> ranges);

  bool empty() const { return ranges_.empty(); }
  /// The number of deleted positions.
  int64_t cardinality() const;
  bool Contains(int64_t position) const;
  /// Clears keep[i] for every deleted position first + i, i < keep.size().
  void MarkDeleted(int64_t first, std::vector<uint8_t>& keep) const;
  /// This index and `other` together.
  void Merge(const PositionDeleteIndex& other);
  const std::vector<std::pair<int64_t, int64_t>>& ranges() const { return ranges_; }

 private:
  std::vector<std::pair<int64_t, int64_t>> ranges_;
};

/// The key tuples of one equality delete file, encoded null-safely (a NULL key part
/// equals a NULL) and normalised across promoted types.
class EqualityDeleteSet {
 public:
  EqualityDeleteSet(std::vector<int32_t> equality_ids, std::unordered_set<std::string> keys)
      : equality_ids_(std::move(equality_ids)), keys_(std::move(keys)) {}

  const std::vector<int32_t>& equality_ids() const { return equality_ids_; }
  int64_t size() const { return static_cast<int64_t>(keys_.size()); }
  bool Contains(const std::string& key) const { return keys_.count(key) != 0; }

 private:
  std::vector<int32_t> equality_ids_;
  std::unordered_set<std::string> keys_;
};

/// Loads delete files once and shares them: a position delete file's positions for every
/// data file it names, a deletion vector's positions, an equality delete file's key set.
/// One cache serves all tasks of a scan; it is thread-safe.
class DeleteFileCache {
 public:
  explicit DeleteFileCache(std::shared_ptr<const io::FileIO> io,
                           MemoryPool* pool = DefaultMemoryPool())
      : io_(std::move(io)), pool_(pool) {}

  /// The positions `delete_file` deletes from the data file whose manifest path is
  /// `data_file_path` (matched against the delete file's `file_path` column exactly as
  /// written; rows for other files are ignored). Handles Parquet position delete files
  /// and deletion vectors (Puffin blobs).
  Result<std::shared_ptr<const PositionDeleteIndex>> PositionDeletes(
      const DataFile& delete_file, const std::string& data_file_path);

  /// The key set of an equality delete file, keys read by field id in
  /// `delete_file.equality_ids` order.
  Result<std::shared_ptr<const EqualityDeleteSet>> EqualityDeletes(const DataFile& delete_file);

 private:
  using PositionsByFile = std::map<std::string, std::shared_ptr<const PositionDeleteIndex>>;

  Result<std::shared_ptr<const PositionsByFile>> LoadPositionFile(const DataFile& delete_file);
  Result<std::shared_ptr<const PositionDeleteIndex>> LoadDeletionVector(
      const DataFile& delete_file);
  Result<std::shared_ptr<const EqualityDeleteSet>> LoadEqualityFile(const DataFile& delete_file);

  std::shared_ptr<const io::FileIO> io_;
  MemoryPool* pool_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const PositionsByFile>> position_files_;
  std::map<std::string, std::shared_ptr<const PositionDeleteIndex>> deletion_vectors_;
  std::map<std::string, std::shared_ptr<const EqualityDeleteSet>> equality_files_;
};

/// The deletes that apply to one data file: its position deletes merged into one index and
/// its equality delete sets. Apply() marks the deleted rows of a batch.
class DeleteFilter {
 public:
  /// Loads (through `cache`) the delete files of a data file. Delete files of unknown
  /// content or format are kNotSupported.
  static Result<std::unique_ptr<DeleteFilter>> Make(const DataFile& data_file,
                                                    const std::vector<DataFilePtr>& delete_files,
                                                    DeleteFileCache& cache);

  bool has_position_deletes() const { return !positions_.empty(); }
  bool has_equality_deletes() const { return !equality_.empty(); }
  bool empty() const { return positions_.empty() && equality_.empty(); }
  /// Field ids whose values equality deletes compare (they must be in the batches given
  /// to Apply, at top level or inside structs).
  std::vector<int32_t> EqualityFieldIds() const;

  /// Clears keep[i] for each deleted row i of `batch`, whose first row is at file position
  /// `first_position` (rows are consecutive; the position is ignored without position
  /// deletes). Columns are found by field id. kInvalidArgument when an equality field is
  /// missing from the batch.
  Status Apply(const RecordBatch& batch, int64_t first_position, std::vector<uint8_t>& keep) const;

 private:
  DeleteFilter() = default;

  PositionDeleteIndex positions_;
  // Equality delete sets grouped by their equality ids, so a row's key is encoded once
  // per group.
  std::map<std::vector<int32_t>, std::vector<std::shared_ptr<const EqualityDeleteSet>>> equality_;
};

}  // namespace floe::iceberg
