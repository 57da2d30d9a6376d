#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/batch/scalar.h"

namespace floe::iceberg {

/// What a file holds (manifest `content`, data_file `content`).
enum class FileContent : uint8_t { kData = 0, kPositionDeletes = 1, kEqualityDeletes = 2 };

enum class FileFormat : uint8_t { kParquet, kAvro, kOrc, kPuffin };

/// A partition tuple: one value per partition field of the file's spec, in spec order,
/// typed by the transform's result type (NULL for a null partition value).
using PartitionValues = std::vector<Scalar>;

/// The manifest's `data_file` struct (spec, "Manifests"), for data and delete files.
/// Bounds hold the spec's single-value binary serialization, decoded on demand.
struct DataFile {
  FileContent content = FileContent::kData;
  /// The path exactly as written in the manifest (not resolved by FileIO).
  std::string file_path;
  FileFormat file_format = FileFormat::kParquet;
  /// The spec the partition tuple belongs to (from the manifest).
  int32_t spec_id = 0;
  PartitionValues partition;
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::map<int32_t, int64_t> column_sizes;
  std::map<int32_t, int64_t> value_counts;
  std::map<int32_t, int64_t> null_value_counts;
  std::map<int32_t, int64_t> nan_value_counts;
  std::map<int32_t, std::string> lower_bounds;
  std::map<int32_t, std::string> upper_bounds;
  /// The metric maps above that the manifest holds as present but empty (bit i: the i-th
  /// in the order column_sizes, value_counts, null_value_counts, nan_value_counts,
  /// lower_bounds, upper_bounds), as opposed to absent (NULL). Writers keep the distinction
  /// (an empty map is written as one), so rewritten manifests and the metadata tables show
  /// what the writer of the file wrote.
  uint8_t empty_metric_maps = 0;
  std::optional<std::string> key_metadata;
  std::vector<int64_t> split_offsets;
  /// Field ids of the equality key (equality delete files).
  std::vector<int32_t> equality_ids;
  std::optional<int32_t> sort_order_id;
  /// v3: first row id of the file (row lineage).
  std::optional<int64_t> first_row_id;
  /// v3: for position deletes and deletion vectors, the data file they apply to.
  std::optional<std::string> referenced_data_file;
  /// v3 deletion vectors: the blob's offset and size inside the Puffin file.
  std::optional<int64_t> content_offset;
  std::optional<int64_t> content_size_in_bytes;

  bool is_deletion_vector() const {
    return file_format == FileFormat::kPuffin && content == FileContent::kPositionDeletes;
  }
};

using DataFilePtr = std::shared_ptr<const DataFile>;

enum class ManifestEntryStatus : uint8_t { kExisting = 0, kAdded = 1, kDeleted = 2 };

/// One manifest entry with inheritance applied: snapshot id and sequence numbers are
/// always set after reading (a null in the file inherits from the manifest list entry
/// for ADDED entries, per the spec's "Sequence Number Inheritance").
struct ManifestEntry {
  ManifestEntryStatus status = ManifestEntryStatus::kAdded;
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  int64_t file_sequence_number = 0;
  DataFilePtr data_file;
};

/// Per-partition-field summary in a manifest list entry.
struct PartitionFieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;
  std::optional<std::string> lower_bound;  // single-value serialization
  std::optional<std::string> upper_bound;
};

/// A manifest list entry (spec, "Manifest Lists"). v1 lists lack content and sequence
/// numbers: they read as kData and 0.
struct ManifestFile {
  std::string manifest_path;
  int64_t manifest_length = 0;
  int32_t partition_spec_id = 0;
  FileContent content = FileContent::kData;
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  std::optional<int32_t> added_files_count;
  std::optional<int32_t> existing_files_count;
  std::optional<int32_t> deleted_files_count;
  std::optional<int64_t> added_rows_count;
  std::optional<int64_t> existing_rows_count;
  std::optional<int64_t> deleted_rows_count;
  std::vector<PartitionFieldSummary> partitions;
  std::optional<std::string> key_metadata;
  /// v3: first row id assigned to the manifest's data files.
  std::optional<int64_t> first_row_id;
};

}  // namespace floe::iceberg
