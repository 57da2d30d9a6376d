#pragma once

#include <algorithm>
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
  /// Of the n rows of the range's row groups (before any pruning), rows
  /// [part_begin * n / parts, part_end * n / parts) in file order: a part of a range that
  /// several scan partitions share (SplitTasksIntoParts). 0, 1 of 1 is the whole range.
  int64_t part_begin = 0;
  int64_t part_end = 1;
  int64_t parts = 1;

  bool is_part() const { return part_begin != 0 || part_end != parts; }
  /// Whether the range is the whole file (a part of it reads some of its rows: the parts
  /// of a range are planned together, so that they add up to the file).
  bool is_whole_file() const {
    return start == 0 && data_file && length == data_file->file_size_in_bytes;
  }
  /// The bytes the task reads, as groups balance them: a part's share of its range.
  int64_t weight() const {
    if (!is_part()) return length;
    return static_cast<int64_t>(static_cast<__int128>(length) * (part_end - part_begin) / parts);
  }
};

/// A group of tasks one scan partition reads, in order.
struct ScanTaskGroup {
  std::vector<FileScanTask> tasks;
  int64_t total_bytes = 0;
  int64_t estimated_row_count = 0;
};

}  // namespace floe::iceberg
