#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/io/file.h"

namespace floe::parquet {

struct FileMetaData;

/// How a file is written.
struct WriterOptions {
  /// "zstd" (default), "snappy", "gzip", "lz4_raw", "brotli", "uncompressed".
  std::string compression = "zstd";
  /// Codec level where the codec has one; nullopt means the codec's default.
  std::optional<int> compression_level;
  /// A row group is closed when its encoded size reaches this many bytes...
  int64_t row_group_size_bytes = 128LL << 20;
  /// ... or when it holds this many rows.
  int64_t row_group_max_rows = 1 << 20;
  /// Target size of a data page before compression.
  int64_t page_size_bytes = 1 << 20;
  /// Dictionary encoding is used until the dictionary reaches this size, then the
  /// column chunk falls back to PLAIN.
  bool enable_dictionary = true;
  int64_t dictionary_page_size_limit = 1 << 20;
  /// 1 or 2.
  int data_page_version = 1;
  bool write_statistics = true;
  /// Binary and string min/max statistics (chunk statistics and the column index) longer
  /// than this are truncated: the min to a prefix, the max to a prefix with its last byte
  /// incremented, and is_min/max_value_exact set to false. 0 disables truncation.
  int32_t statistics_truncate_length = 64;
  /// Column index and offset index after the row groups.
  bool write_page_index = true;
  /// Key-value metadata written into the footer as given.
  KeyValueMetadata key_value_metadata;
  MemoryPool* pool = DefaultMemoryPool();
};

/// The created_by string of files floe writes: "floe version <version> (build <id>)".
std::string WriterCreatedBy();

/// Writes a Parquet file from record batches. Field ids of the schema are written as
/// Parquet field_id. Not thread-safe.
class ParquetFileWriter {
 public:
  /// Checks that every type of `schema` can be written and writes the magic.
  static Result<std::unique_ptr<ParquetFileWriter>> Open(std::unique_ptr<io::OutputStream> out,
                                                         SchemaPtr schema,
                                                         WriterOptions options = {});
  virtual ~ParquetFileWriter() = default;

  /// Appends the rows of `batch`, whose schema must equal the writer's schema.
  virtual Status Write(const RecordBatch& batch) = 0;
  /// Closes the current row group, if it has rows.
  virtual Status FlushRowGroup() = 0;
  /// Writes the last row group, the page index and the footer, and closes the
  /// stream. Returns the footer as written.
  virtual Result<std::shared_ptr<const FileMetaData>> Close() = 0;

  /// Bytes written to the stream plus the estimated size of buffered rows; callers
  /// roll to a new file when this passes their target file size.
  virtual int64_t EstimatedFileSize() const = 0;
  /// The memory the writer holds now: its encoders' buffers and dictionaries and the
  /// open row group's pages, by capacity (what a caller with many open files budgets).
  virtual int64_t MemoryBytes() const = 0;
  virtual int64_t num_rows() const = 0;
};

}  // namespace floe::parquet
