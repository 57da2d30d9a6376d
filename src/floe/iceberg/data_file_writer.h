#pragma once

// Writing Iceberg data files: the write.* table properties, per-column metrics modes, and a
// writer of one Parquet data file that produces its manifest `data_file` record (Iceberg spec,
// "Manifests": column sizes, value/null/NaN counts, lower/upper bounds, split offsets).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/format/parquet/writer.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

/// Table property names the data-file writers read (Iceberg "Configuration" page).
inline constexpr std::string_view kParquetCompressionCodec = "write.parquet.compression-codec";
inline constexpr std::string_view kParquetCompressionLevel = "write.parquet.compression-level";
inline constexpr std::string_view kParquetRowGroupSizeBytes = "write.parquet.row-group-size-bytes";
inline constexpr std::string_view kParquetPageSizeBytes = "write.parquet.page-size-bytes";
inline constexpr std::string_view kParquetDictSizeBytes = "write.parquet.dict-size-bytes";
inline constexpr std::string_view kTargetFileSizeBytes = "write.target-file-size-bytes";
inline constexpr std::string_view kMetricsModeDefault = "write.metadata.metrics.default";
/// Followed by a column's full dotted name ("write.metadata.metrics.column.loc.lat").
inline constexpr std::string_view kMetricsModeColumnPrefix = "write.metadata.metrics.column.";
inline constexpr std::string_view kMetricsMaxInferredColumnDefaults =
    "write.metadata.metrics.max-inferred-column-defaults";
inline constexpr std::string_view kWriteDataPath = "write.data.path";
inline constexpr std::string_view kWriteFolderStoragePath = "write.folder-storage.path";
inline constexpr std::string_view kObjectStorageEnabled = "write.object-storage.enabled";

/// Which column metrics a data file records (write.metadata.metrics.*).
struct MetricsMode {
  enum class Kind : uint8_t {
    /// Nothing but the column size.
    kNone,
    /// Value, null and NaN counts.
    kCounts,
    /// Counts and bounds; strings cut to `length` code points, binary to `length` bytes.
    kTruncate,
    /// Counts and exact bounds.
    kFull,
  };
  Kind kind = Kind::kTruncate;
  /// The truncation length of kTruncate (> 0).
  int32_t length = 16;

  static MetricsMode None() { return {Kind::kNone, 0}; }
  static MetricsMode Counts() { return {Kind::kCounts, 0}; }
  static MetricsMode Truncate(int32_t length) { return {Kind::kTruncate, length}; }
  static MetricsMode Full() { return {Kind::kFull, 0}; }

  /// Parses "none", "counts", "full" or "truncate(N)" with N > 0 (case-insensitive, surrounding
  /// blanks ignored). kInvalidArgument quoting the text otherwise.
  static Result<MetricsMode> Parse(std::string_view text);
  /// The property spelling: "none", "counts", "truncate(16)", "full".
  std::string ToString() const;

  /// A serialized lower or upper bound of a column of type `type` as this mode records it
  /// (the spec's rule for truncate(N), as in the reference implementation): a string lower
  /// bound keeps its first N code points and a binary one its first N bytes; an upper bound
  /// keeps as many and increments the last code point (byte) that can be incremented,
  /// dropping the rest, and is nullopt when none can. Other modes and types (fixed and uuid
  /// have a fixed width) keep the bound as it is.
  std::string LowerBound(std::string_view bound, TypeId type) const;
  std::optional<std::string> UpperBound(std::string_view bound, TypeId type) const;

  bool operator==(const MetricsMode& other) const = default;
};

/// The write.* table properties that govern data files, with the Iceberg defaults.
struct WriterProperties {
  /// zstd, gzip, snappy, lz4 (written as LZ4_RAW), brotli or uncompressed.
  std::string compression_codec = "zstd";
  std::optional<int> compression_level;
  int64_t row_group_size_bytes = 128LL << 20;
  int64_t page_size_bytes = 1LL << 20;
  int64_t dict_size_bytes = 2LL << 20;
  int64_t target_file_size_bytes = 512LL << 20;
  /// write.metadata.metrics.default; nullopt when the table does not set it (then the default
  /// is truncate(16) for the first max_inferred_column_defaults top-level columns and none
  /// beyond them).
  std::optional<MetricsMode> default_metrics;
  /// write.metadata.metrics.column.<name>, by full dotted column name.
  std::map<std::string, MetricsMode> column_metrics;
  int32_t max_inferred_column_defaults = 100;
  /// Where data files go: write.data.path, else write.folder-storage.path, else the table
  /// location + "/data"; no trailing '/'. write.object-storage.enabled is not honoured: files
  /// always use the plain <data location>/<partition path>/<file> layout.
  std::string data_location;

  /// Reads the properties from a table's `properties`, then applies `overrides` (same keys,
  /// e.g. the options of one write) on top. Unknown keys are ignored. A malformed value is
  /// kInvalidArgument naming the property and the value; a codec floe cannot write (lzo) is
  /// kNotSupported naming the property.
  static Result<WriterProperties> Make(const std::map<std::string, std::string>& properties,
                                       std::string_view table_location,
                                       const std::map<std::string, std::string>& overrides = {});

  /// The Parquet writer options these properties ask for.
  parquet::WriterOptions ToParquetOptions() const;
};

/// The metrics mode of every field of one schema under some WriterProperties, with the
/// Iceberg rules: an explicit column mode wins; columns of the sort order are raised to at least
/// truncate(16) when the default is weaker; without an explicit default, the first
/// max_inferred_column_defaults top-level columns (with everything nested in them) get
/// truncate(16) and the rest none. Column names that are not in the schema are ignored (they may
/// name a dropped column).
class MetricsConfig {
 public:
  static std::shared_ptr<const MetricsConfig> Make(const WriterProperties& properties,
                                                   const Schema& schema,
                                                   const SortOrder* sort_order = nullptr);

  /// The mode for a field id (the default mode for an id it does not know).
  MetricsMode ModeFor(int32_t field_id) const;

 private:
  MetricsConfig() = default;
  MetricsMode default_mode_;
  std::map<int32_t, MetricsMode> modes_;
};

/// Checks that `batch`'s columns match the columns of `schema` by position, with the same types
/// (field names, ids and nullability inside the input's types may differ), and returns the batch
/// re-typed with the table's fields (sharing the input's buffers). kInvalidArgument naming the
/// column for a missing or extra column or a different type. Nulls are not checked here.
Result<RecordBatchPtr> ConformBatch(const Schema& schema, const RecordBatch& batch);

/// Checks a batch returned by ConformBatch for NULLs in required fields at any depth (a required
/// top-level column, a required field of a non-null struct, a required list element or map
/// value): kConstraint "NULL value in required column 'name'" naming the full column name (and
/// the row, for columns outside lists and maps). NULLs below a NULL struct, list or map are
/// allowed.
Status CheckRequiredFields(const Schema& schema, const RecordBatch& batch);

/// What a DataFileWriter records about its file beyond the rows.
struct DataFileWriterOptions {
  /// The partition spec and the file's partition tuple (empty for an unpartitioned spec).
  int32_t spec_id = 0;
  PartitionValues partition;
  /// Set on the DataFile when the rows are sorted by this table sort order.
  std::optional<int32_t> sort_order_id;
  /// Column statistics are always written (the value and null counts come from them).
  parquet::WriterOptions parquet;
};

/// Writes one Parquet data file of one partition and produces its DataFile. The file's Parquet
/// schema is the table schema's columns (with their field ids); its footer carries the schema
/// as "iceberg.schema". Metrics are keyed by the field ids of leaf columns: column sizes always;
/// value, null and NaN (float and double) counts unless the mode is none; lower and upper bounds
/// in the single-value serialization for truncate and full, only for leaves reached through
/// structs (leaves inside lists and maps get counts only). NaN is never a bound; a zero float
/// lower bound is written as -0.0 and a zero upper bound as +0.0, so bounds hold under either
/// ordering of the zeros.
///
/// Any failure of Write or Close aborts the writer: its file is deleted and every later call
/// returns the same error. Not thread-safe.
class DataFileWriter {
 public:
  /// Creates `path` through `io` (it must not exist) and writes the Parquet header.
  static Result<std::unique_ptr<DataFileWriter>> Open(std::shared_ptr<const io::FileIO> io,
                                                      std::string path, SchemaPtr schema,
                                                      std::shared_ptr<const MetricsConfig> metrics,
                                                      DataFileWriterOptions options);
  ~DataFileWriter();
  DataFileWriter(const DataFileWriter&) = delete;
  DataFileWriter& operator=(const DataFileWriter&) = delete;

  /// Appends the rows of `batch` (see ConformBatch for the accepted schemas). A NULL in a
  /// required field at any depth (a required top-level column, a required field of a non-null
  /// struct, a required list element or map value) is kConstraint "NULL value in required
  /// column 'name'" naming the full column name; it is detected before any row of the batch is
  /// written.
  Status Write(const RecordBatch& batch);
  /// Finishes the file and returns its DataFile.
  Result<DataFile> Close();
  /// Stops writing and deletes the file. Idempotent; a no-op after a successful Close.
  Status Abort();

  const std::string& path() const { return path_; }
  int64_t num_rows() const;
  /// Bytes written plus the estimated size of the buffered row group.
  int64_t EstimatedFileSize() const;
  /// The memory the open file holds (its Parquet writer's buffers, encoders and pages of
  /// the open row group); 0 once closed.
  int64_t MemoryBytes() const;

 private:
  struct Impl;
  explicit DataFileWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

}  // namespace floe::iceberg
