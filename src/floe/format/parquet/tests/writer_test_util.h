#pragma once

// Helpers shared by the Parquet writer tests: building arrays from scalars, writing files to
// memory, decoding their footers and page indexes, and reading them back.

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/builder.h"
#include "floe/batch/scalar.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/file.h"
#include "floe/testing/matchers.h"

namespace floe::parquet::testing {

/// An array of `type` from scalars (nulls as Scalar::Null).
inline Result<ArrayPtr> FromScalars(const TypePtr& type, const std::vector<Scalar>& values) {
  auto b = MakeBuilder(type);
  for (const auto& v : values) FLOE_RETURN_NOT_OK(b->AppendScalar(v));
  return b->Finish();
}

/// A file written to memory.
struct WrittenFile {
  std::string bytes;
  std::shared_ptr<const FileMetaData> metadata;
};

inline Result<WrittenFile> WriteBatches(const SchemaPtr& schema,
                                        const std::vector<RecordBatchPtr>& batches,
                                        WriterOptions options = {}) {
  auto stream = std::make_unique<io::BufferOutputStream>("mem.parquet");
  io::BufferOutputStream* raw = stream.get();
  FLOE_ASSIGN_OR_RAISE(auto writer,
                       ParquetFileWriter::Open(std::move(stream), schema, std::move(options)));
  for (const auto& b : batches) FLOE_RETURN_NOT_OK(writer->Write(*b));
  FLOE_ASSIGN_OR_RAISE(auto md, writer->Close());
  WrittenFile out;
  out.bytes = raw->TakeBytes();
  out.metadata = std::move(md);
  return out;
}

/// A file of `row_groups` row groups of `rows_per_group` rows: i = row * 7 (int64, required),
/// s = "v<row>" (string), field ids 1 and 2. SevensRows are its rows from `first_row` on.
inline Result<WrittenFile> WriteSevensFile(int64_t row_groups, int64_t rows_per_group) {
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{Field("i", Int64(), false, 1), Field("s", String(), true, 2)});
  std::vector<Scalar> is, ss;
  for (int64_t r = 0; r < row_groups * rows_per_group; ++r) {
    is.push_back(Scalar::I64(r * 7));
    ss.push_back(Scalar::Str("v" + std::to_string(r)));
  }
  WriterOptions options;
  options.row_group_max_rows = rows_per_group;
  FLOE_ASSIGN_OR_RAISE(auto i, FromScalars(Int64(), is));
  FLOE_ASSIGN_OR_RAISE(auto s, FromScalars(String(), ss));
  FLOE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(schema, row_groups * rows_per_group, {i, s}));
  return WriteBatches(schema, {batch}, options);
}

/// Expects `batch` to hold the rows of a WriteSevensFile file from `first_row` on.
inline void ExpectSevensRows(const RecordBatch& batch, int64_t first_row) {
  std::vector<Scalar> is, ss;
  for (int64_t r = first_row; r < first_row + batch.num_rows(); ++r) {
    is.push_back(Scalar::I64(r * 7));
    ss.push_back(Scalar::Str("v" + std::to_string(r)));
  }
  ASSERT_OK_AND_ASSIGN(auto i, FromScalars(Int64(), is));
  ASSERT_OK_AND_ASSIGN(auto s, FromScalars(String(), ss));
  EXPECT_TRUE(batch.column(0)->Equals(*i)) << "row " << first_row;
  EXPECT_TRUE(batch.column(1)->Equals(*s)) << "row " << first_row;
}

inline std::span<const uint8_t> Span(const std::string& s, size_t offset = 0,
                                     size_t length = std::string::npos) {
  length = std::min(length, s.size() - offset);
  return {reinterpret_cast<const uint8_t*>(s.data()) + offset, length};
}

/// The footer decoded from the file's bytes.
inline Result<FileMetaData> DecodeFileFooter(const std::string& bytes) {
  return DecodeFooter(Span(bytes), bytes.size());
}

template <typename T>
Result<T> DecodeAt(const std::string& bytes, int64_t offset, int64_t length) {
  T out;
  FLOE_ASSIGN_OR_RAISE(size_t used, DecodeThrift(Span(bytes, static_cast<size_t>(offset),
                                                      static_cast<size_t>(length)),
                                                 &out, static_cast<uint64_t>(offset)));
  if (static_cast<int64_t>(used) != length) {
    return Status::Corrupt("decoded {} of {} bytes", used, length);
  }
  return out;
}

/// Reads every row of the file back: one concatenated array per column.
inline Result<std::vector<ArrayPtr>> ReadBack(const std::string& bytes, SchemaPtr* schema_out) {
  FLOE_ASSIGN_OR_RAISE(auto buffer, Buffer::CopyOf(std::string_view(bytes)));
  std::shared_ptr<io::RandomAccessFile> file = io::MakeBufferFile(buffer, "mem.parquet");
  FLOE_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::Open(file));
  if (schema_out) *schema_out = reader->schema();
  FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(ReadRequest{}));
  std::vector<std::vector<ArrayPtr>> parts(static_cast<size_t>(reader->schema()->num_fields()));
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (!batch) break;
    for (int c = 0; c < batch->num_columns(); ++c) {
      parts[static_cast<size_t>(c)].push_back(batch->column(c));
    }
  }
  std::vector<ArrayPtr> out;
  for (size_t c = 0; c < parts.size(); ++c) {
    if (parts[c].empty()) {
      FLOE_ASSIGN_OR_RAISE(
          auto empty, MakeBuilder(reader->schema()->field(static_cast<int>(c)).type())->Finish());
      out.push_back(empty);
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(auto a, Concatenate(parts[c]));
    out.push_back(std::move(a));
  }
  return out;
}

inline std::string LE32(int32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
inline std::string LE64(int64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
inline std::string LEF(float v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
inline std::string LED(double v) { return std::string(reinterpret_cast<const char*>(&v), 8); }

}  // namespace floe::parquet::testing
