#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"

namespace floe::iceberg {

class Expression;
/// Expressions are immutable and shared (defined in expression.h).
using ExpressionPtr = std::shared_ptr<const Expression>;

/// One unit of scan work: a byte range of one data file, the delete files that apply to
/// it, and the residual filter still to evaluate on its rows. Built by scan planning on
/// the coordinator; executed by the task reader anywhere.
struct FileScanTask {
  DataFilePtr data_file;
  /// The spec the data file was written with (for its partition tuple).
  PartitionSpecPtr spec;
  /// The data file's data sequence number (after inheritance).
  int64_t data_sequence_number = 0;
  /// Byte range [start, start + length) of the file: the task reads the row groups whose
  /// first byte lies in it. The whole file is start 0, length file_size_in_bytes.
  int64_t start = 0;
  int64_t length = 0;
  /// Position delete files (Parquet or deletion vectors) and equality delete files that
  /// apply, already filtered by partition and sequence number.
  std::vector<DataFilePtr> delete_files;
  /// The filter still to evaluate on the rows, bound to the scan's schema; nullptr or
  /// always-true when partition values and metrics already prove every row matches.
  ExpressionPtr residual;
  /// Rows in the range before deletes and residual: the file's record count for a whole
  /// file, an estimate proportional to bytes for a split.
  int64_t estimated_row_count = 0;

  bool is_whole_file() const {
    return start == 0 && data_file && length == data_file->file_size_in_bytes;
  }
};

/// A group of tasks one scan partition reads, in order.
struct ScanTaskGroup {
  std::vector<FileScanTask> tasks;
  int64_t total_bytes = 0;
  int64_t estimated_row_count = 0;
};

}  // namespace floe::iceberg
