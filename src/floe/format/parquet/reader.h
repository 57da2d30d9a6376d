#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/io/file.h"

namespace floe::parquet {

struct FileMetaData;

/// How a file is read.
struct ReaderOptions {
  /// Rows per batch returned by the batch reader.
  int64_t batch_size = 8192;
  /// Skip pages with the column index / offset index when the file has them.
  bool use_page_index = true;
  /// Byte ranges of the projected column chunks that lie closer than this are read
  /// in one request.
  int64_t coalesce_gap_bytes = 1 << 20;
  /// At most this many bytes of column chunks are read ahead of decoding.
  int64_t read_ahead_bytes = 64 << 20;
  MemoryPool* pool = DefaultMemoryPool();
};

/// A predicate on one column, used to skip row groups and pages whose statistics
/// prove that no row can match. It never filters rows: the caller evaluates the
/// predicate on the rows it gets.
struct ColumnPredicate {
  enum class Op { kEq, kLt, kLe, kGt, kGe, kIsNull, kIsNotNull, kIn };
  /// Index of the top-level column (of ParquetFileReader::schema()) the predicate is on.
  /// Only primitive columns prune.
  int column = -1;
  Op op = Op::kEq;
  /// One value for comparisons, any number for kIn, none for the null tests. Values
  /// have the column's floe type.
  std::vector<Scalar> values;
};

/// What to read from a file.
struct ReadRequest {
  /// Top-level column indices, in output order; nullopt reads every column.
  std::optional<std::vector<int>> columns;
  /// Row groups to read, ascending; nullopt reads all of them (after pruning).
  std::optional<std::vector<int>> row_groups;
  /// Conjunction of predicates used for row-group and page pruning.
  std::vector<ColumnPredicate> predicates;
};

/// Reads one Parquet file: the footer once at Open, then any number of reads.
/// Thread-safe after Open: several Read() streams may run at once.
class ParquetFileReader {
 public:
  /// Reads and validates the footer and maps the Parquet schema to a floe schema
  /// (field ids from the file's field_id). Errors name the file.
  static Result<std::unique_ptr<ParquetFileReader>> Open(
      std::shared_ptr<io::RandomAccessFile> file, ReaderOptions options = {});
  static Result<std::unique_ptr<ParquetFileReader>> OpenPath(const std::string& path,
                                                             ReaderOptions options = {});
  virtual ~ParquetFileReader() = default;

  virtual const FileMetaData& metadata() const = 0;
  /// The floe schema of the file; nested columns are struct/list/map fields.
  virtual const SchemaPtr& schema() const = 0;
  virtual int num_row_groups() const = 0;
  virtual int64_t num_rows() const = 0;

  /// The row groups whose statistics do not rule out every predicate.
  virtual Result<std::vector<int>> PruneRowGroups(
      const std::vector<ColumnPredicate>& predicates) const = 0;

  /// Top-level column indices for the given Parquet field ids, in order; a field id
  /// the file does not have is kNotFound.
  virtual Result<std::vector<int>> ColumnsByFieldId(const std::vector<int32_t>& ids) const = 0;
  /// Top-level column indices for the given names.
  virtual Result<std::vector<int>> ColumnsByName(const std::vector<std::string>& names) const = 0;

  /// A stream of batches of at most batch_size rows with the projected schema.
  virtual Result<std::unique_ptr<RecordBatchReader>> Read(const ReadRequest& request) const = 0;
};

}  // namespace floe::parquet
