#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/format/avro/schema.h"
#include "floe/format/compression/codec.h"
#include "floe/io/file.h"
#include "floe/type/type.h"

namespace floe::avro {

/// How an AvroFileWriter encodes its blocks.
struct AvroWriteOptions {
  /// "null", "deflate", "snappy" or "zstandard" ("zstd" is accepted and written as
  /// "zstandard", the name in the Avro specification).
  std::string codec = "null";
  /// Compression level; the codec's default when absent.
  std::optional<int> level;
  /// A block is written once its uncompressed records reach this many bytes.
  int64_t block_size_bytes = int64_t{1} << 20;
  /// The sync marker; random when absent.
  std::optional<std::array<uint8_t, 16>> sync_marker;
};

/// Writes an Avro object container file. The schema JSON is stored in the header
/// exactly as given (every attribute kept); the header then holds "avro.codec" and the
/// user metadata, in the given order.
class AvroFileWriter {
 public:
  /// Writes the header. InvalidArgument for a schema that does not parse or is not a
  /// record, an unknown codec, or user metadata that sets an "avro." key.
  static Result<std::unique_ptr<AvroFileWriter>> Open(std::unique_ptr<io::OutputStream> out,
                                                      std::string schema_json,
                                                      KeyValueMetadata user_metadata,
                                                      AvroWriteOptions options = {});

  /// Encodes the rows of `batch`. Batch columns are matched to the schema's fields by
  /// field id when the Avro field has one and the batch has a field with it, else by
  /// position; nested structs likewise. InvalidArgument when a column cannot be
  /// encoded as its Avro type, or a NULL meets a non-nullable Avro field (nothing of
  /// the batch is written then).
  Status Write(const RecordBatch& batch);

  /// Writes the last block and closes the stream.
  Status Close();

  int64_t rows_written() const { return rows_written_; }
  const AvroNodePtr& schema() const { return schema_; }

 private:
  AvroFileWriter() = default;
  Status FlushBlock();

  std::unique_ptr<io::OutputStream> out_;
  AvroNodePtr schema_;
  AvroWriteOptions options_;
  std::optional<compression::CodecKind> codec_;
  std::unique_ptr<compression::Compressor> compressor_;
  std::array<uint8_t, 16> sync_{};
  std::string block_;
  int64_t block_rows_ = 0;
  int64_t rows_written_ = 0;
  bool closed_ = false;
};

}  // namespace floe::avro
