#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/key_bitmap.h"
#include "floe/common/result.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/delete_filter.h"
#include "floe/iceberg/name_mapping.h"
#include "floe/iceberg/scan_task.h"
#include "floe/iceberg/schema.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

/// How scan tasks are read.
struct TaskReaderOptions {
  /// At most this many rows per output batch; small filtered batches are coalesced up to it.
  int64_t batch_size = 8192;
  /// Prune pages with the Parquet column and offset indexes (only for tasks without
  /// position deletes, whose row positions must stay exact).
  bool use_page_index = true;
  /// Bytes of column chunks the Parquet reader may read ahead of decoding.
  int64_t read_ahead_bytes = 64 << 20;
  /// Evaluate the residual filter on every row read. When false, the residual only skips
  /// row groups and pages and drops the rows the Parquet reader can rule out cheaply
  /// (parquet::ReadRequest::filter_rows), so the rows returned are a superset of the
  /// matches: for callers that evaluate the filter themselves.
  bool apply_residual = true;
  /// Check the CRC of Parquet pages that carry one (parquet::ReaderOptions).
  bool verify_page_checksums = true;
  /// Sets of keys by field id (a join's keys above the scan): the row groups and pages
  /// holding none of a field's keys are skipped, and, where the residual's rows are dropped,
  /// so are the rows whose value is not among them. Only for callers that drop those rows
  /// themselves (the join), like apply_residual false.
  std::vector<std::pair<int32_t, std::shared_ptr<const KeyBitmap>>> key_sets;
  MemoryPool* pool = DefaultMemoryPool();
};

/// Reads FileScanTasks into batches of a projected Iceberg schema (spec, "Column
/// Projection", "Schema Evolution", "Default values", "Scan Planning", "Position Delete
/// Files", "Equality Delete Files", "Deletion Vectors"):
///  - columns are matched by field id at every depth, never by name when the file has ids;
///    a file without ids is matched through the name mapping;
///  - a column the file lacks reads as the task's identity partition value for it, else
///    the field's initial default, else NULL (a required field with none is an error);
///  - int -> long, float -> double, decimal precision widening and date -> timestamp
///    promotions are applied;
///  - only the row groups whose first byte lies in the task's byte range are read, and
///    row groups whose statistics rule out the residual are skipped;
///  - position deletes, deletion vectors and equality deletes remove rows;
///  - without position deletes, the Parquet reader drops the rows that fail the residual's
///    simple comparisons before decoding the other columns;
///  - the residual filter is evaluated on every row (unless apply_residual is false).
/// Output fields carry the projected schema's field ids. Thread-safe: tasks of one scan
/// may be read concurrently, sharing the delete file cache.
class TaskReader {
 public:
  /// `projected` is the output schema; `table_schema` the scan's schema the residual is
  /// bound to and that equality delete fields are looked up in (defaults to `projected`).
  /// `name_mapping` (the table's schema.name-mapping.default) gives field ids to the
  /// columns of data files written without them; such a file is an error without it.
  /// `cache` may be shared by several readers of one scan; a new one is made when null.
  static Result<std::unique_ptr<TaskReader>> Make(
      std::shared_ptr<const io::FileIO> io, SchemaPtr projected, SchemaPtr table_schema,
      std::shared_ptr<const NameMapping> name_mapping = nullptr, TaskReaderOptions options = {},
      std::shared_ptr<DeleteFileCache> cache = nullptr);

  /// The output schema (the projected Iceberg schema's columns).
  const floe::SchemaPtr& output_schema() const { return projected_->columns(); }

  /// A stream of the task's live rows. Errors name the data or delete file.
  Result<std::unique_ptr<RecordBatchReader>> Read(const FileScanTask& task) const;

  /// Reads every task of a group in order as one stream.
  Result<std::unique_ptr<RecordBatchReader>> Read(const ScanTaskGroup& group) const;

 private:
  TaskReader() = default;

  std::shared_ptr<const io::FileIO> io_;
  SchemaPtr projected_;
  SchemaPtr table_schema_;
  std::shared_ptr<const NameMapping> name_mapping_;
  TaskReaderOptions options_;
  std::shared_ptr<DeleteFileCache> cache_;
};

/// The row groups of a Parquet file that belong to the byte range [start, start + length):
/// those whose first byte (the smallest dictionary or data page offset of their column
/// chunks, else the row group's file_offset) lies in it.
std::vector<int> RowGroupsInRange(const parquet::FileMetaData& metadata, int64_t start,
                                  int64_t length);

}  // namespace floe::iceberg
