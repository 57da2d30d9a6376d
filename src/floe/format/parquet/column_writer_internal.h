#pragma once

// The writer of one leaf column of a Parquet file, and what it shares with the file writer.
// Private to floe/format/parquet.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "floe/common/result.h"
#include "floe/format/compression/codec.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/writer.h"
#include "floe/format/parquet/writer_internal.h"
#include "floe/io/file.h"

namespace floe::parquet::internal {

/// The bytes a vector has allocated.
template <typename T>
size_t CapacityBytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

/// What one column chunk leaves for the page index.
struct ChunkIndex {
  std::optional<ColumnIndex> column_index;
  OffsetIndex offset_index;
};

/// Shared by the column writers of one file.
struct WriteContext {
  const WriterOptions* options = nullptr;
  CompressionCodec codec = CompressionCodec::kUncompressed;
  std::unique_ptr<compression::Compressor> compressor;
  std::vector<uint8_t> scratch;  // compression output

  Status Compress(std::span<const uint8_t> in, std::vector<uint8_t>* out) {
    if (!compressor) {
      out->assign(in.begin(), in.end());
      return Status::OK();
    }
    out->clear();
    return compressor->Compress(in, out);
  }
};

/// Writes one leaf column: buffers a column chunk's pages in memory until the row group ends.
class ColumnWriter {
 public:
  /// A writer of the column `desc` (which, like `ctx`, must outlive it).
  static std::unique_ptr<ColumnWriter> Make(const LeafColumn& desc, WriteContext* ctx);
  virtual ~ColumnWriter() = default;

  /// Starts the levels of a new batch.
  virtual void BeginBatch() = 0;
  /// Appends entries [begin, end) of `levels`, which start at record boundaries.
  virtual Status Append(const LeafLevels& levels, int64_t begin, int64_t end) = 0;
  /// Bytes the chunk would take now (before compression of the open page).
  virtual int64_t EstimatedSize() const = 0;
  /// Everything the column holds, by capacity.
  virtual int64_t MemoryBytes() const = 0;
  /// Writes the chunk (dictionary page first) at the stream's position and resets for the
  /// next row group.
  virtual Status Flush(io::OutputStream* out, ColumnChunk* chunk, ChunkIndex* index) = 0;
};

}  // namespace floe::parquet::internal
