#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/format/avro/schema.h"
#include "floe/io/file.h"
#include "floe/type/type.h"

namespace floe::avro {

/// Reads an Avro object container file (Avro specification, "Object Container
/// Files"): header metadata, the writer schema, and data blocks compressed with the
/// null, deflate, snappy (CRC-checked) or zstd codec.
///
/// Records are decoded through a resolution plan compiled once per Read() from the
/// writer schema and a floe target schema: fields are matched by field id (by name
/// when the target field has none) at every nesting level, target fields missing from
/// the file read as NULL, file fields absent from the target are skipped, and Avro's
/// promotions (int -> long/float/double, long -> float/double, float -> double,
/// string <-> bytes) apply. Values go straight into column builders.
class AvroFileReader {
 public:
  /// Reads the header of `file` (the whole file is read into memory). Corrupt for a
  /// bad magic, malformed metadata or schema; NotSupported for an unknown codec.
  static Result<std::unique_ptr<AvroFileReader>> Open(std::shared_ptr<io::RandomAccessFile> file);

  /// The header metadata in file order, values as raw bytes ("avro.schema",
  /// "avro.codec" and every user key).
  const KeyValueMetadata& metadata() const { return metadata_; }
  /// The value of metadata key `key`, or nullptr.
  const std::string* metadata_value(std::string_view key) const;
  /// The writer schema, parsed, and its JSON text as stored.
  const AvroNodePtr& schema() const { return schema_; }
  const std::string& schema_json() const { return schema_json_; }
  /// The codec name ("null" when the header has none).
  const std::string& codec() const { return codec_; }
  const std::array<uint8_t, 16>& sync_marker() const { return sync_; }

  /// The floe form of the writer schema (see AvroToFloeSchema).
  Result<Schema> FileSchema() const;

  /// A stream of batches of at most `batch_size` rows holding the file's records
  /// resolved to `target`. InvalidArgument when a target field cannot be read from the
  /// file (a required field missing, incompatible types). Batches report Corrupt errors
  /// naming the file and the byte offset of the block.
  Result<std::unique_ptr<RecordBatchReader>> Read(SchemaPtr target,
                                                  int64_t batch_size = 8192) const;

  /// Reads every record into one list of batches.
  Result<std::vector<RecordBatchPtr>> ReadAll(SchemaPtr target, int64_t batch_size = 8192) const;

 private:
  AvroFileReader() = default;

  std::shared_ptr<io::RandomAccessFile> file_;
  BufferPtr bytes_;
  KeyValueMetadata metadata_;
  std::string schema_json_;
  AvroNodePtr schema_;
  std::string codec_ = "null";
  std::array<uint8_t, 16> sync_{};
  int64_t data_start_ = 0;
};

}  // namespace floe::avro
