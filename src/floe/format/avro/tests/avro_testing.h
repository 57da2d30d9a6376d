#pragma once

// Helpers shared by the Avro tests: write batches to in-memory files and read them back.

#include <memory>
#include <string>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/format/avro/reader.h"
#include "floe/format/avro/writer.h"
#include "floe/io/file.h"

namespace floe::avro::testing {

inline Result<std::string> WriteBytes(const std::string& schema_json,
                                      const std::vector<RecordBatchPtr>& batches,
                                      AvroWriteOptions options = {},
                                      KeyValueMetadata metadata = {}) {
  auto stream = std::make_unique<io::BufferOutputStream>("test.avro");
  io::BufferOutputStream* raw = stream.get();
  FLOE_ASSIGN_OR_RAISE(auto writer, AvroFileWriter::Open(std::move(stream), schema_json,
                                                         std::move(metadata), std::move(options)));
  for (const auto& b : batches) FLOE_RETURN_NOT_OK(writer->Write(*b));
  FLOE_RETURN_NOT_OK(writer->Close());
  return raw->bytes();
}

inline Result<std::unique_ptr<AvroFileReader>> OpenBytes(const std::string& bytes,
                                                         std::string name = "test.avro") {
  FLOE_ASSIGN_OR_RAISE(BufferPtr buf, Buffer::CopyOf(std::string_view(bytes)));
  return AvroFileReader::Open(std::shared_ptr<io::RandomAccessFile>(
      io::MakeBufferFile(std::move(buf), std::move(name))));
}

/// Every record of the file resolved to `target`, as one batch.
inline Result<RecordBatchPtr> ReadOne(const AvroFileReader& reader, SchemaPtr target,
                                      int64_t batch_size = 8192) {
  FLOE_ASSIGN_OR_RAISE(auto batches, reader.ReadAll(target, batch_size));
  int64_t rows = 0;
  std::vector<ArrayPtr> columns;
  for (int c = 0; c < target->num_fields(); ++c) {
    std::vector<ArrayPtr> parts;
    for (const auto& b : batches) parts.push_back(b->column(c));
    if (parts.empty()) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr empty, MakeBuilder(target->field(c).type())->Finish());
      parts.push_back(empty);
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr all, Concatenate(parts));
    columns.push_back(std::move(all));
  }
  for (const auto& b : batches) rows += b->num_rows();
  return RecordBatch::Make(target, rows, std::move(columns));
}

inline Result<RecordBatchPtr> ReadBytes(const std::string& bytes, SchemaPtr target) {
  FLOE_ASSIGN_OR_RAISE(auto reader, OpenBytes(bytes));
  return ReadOne(*reader, std::move(target));
}

}  // namespace floe::avro::testing
