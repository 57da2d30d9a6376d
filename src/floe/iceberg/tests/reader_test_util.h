#pragma once

// Helpers for the task reader and delete filter tests: small arrays, Parquet files in a
// temporary directory, and a FileIO rooted there.

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/file.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg::testing {

inline ArrayPtr I32s(const std::vector<std::optional<int32_t>>& values) {
  Int32Builder b(Int32());
  for (const auto& v : values) EXPECT_OK(v ? b.Append(*v) : b.AppendNull());
  return *b.Finish();
}

inline ArrayPtr I64s(const std::vector<std::optional<int64_t>>& values) {
  Int64Builder b(Int64());
  for (const auto& v : values) EXPECT_OK(v ? b.Append(*v) : b.AppendNull());
  return *b.Finish();
}

inline ArrayPtr F32s(const std::vector<std::optional<float>>& values) {
  Float32Builder b(Float32());
  for (const auto& v : values) EXPECT_OK(v ? b.Append(*v) : b.AppendNull());
  return *b.Finish();
}

inline ArrayPtr Strs(const std::vector<std::optional<std::string>>& values) {
  BinaryBuilder b(String());
  for (const auto& v : values) EXPECT_OK(v ? b.Append(*v) : b.AppendNull());
  return *b.Finish();
}

/// A fresh directory under the system temp directory, removed at destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ =
        std::filesystem::temp_directory_path() / ("floe_reader_test_" + std::to_string(::getpid()) +
                                                  "_" + std::to_string(counter.fetch_add(1)));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string path() const { return path_.string(); }
  std::string Join(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// Writes `columns` under `fields` to a Parquet file at `path`, flushing a row group every
/// `rows_per_group` rows when positive.
inline void WriteParquet(const std::string& path, std::vector<Field> fields,
                         std::vector<ArrayPtr> columns, int64_t rows_per_group = 0,
                         parquet::WriterOptions options = {}) {
  auto schema = std::make_shared<floe::Schema>(std::move(fields));
  int64_t rows = columns.empty() ? 0 : columns[0]->length();
  auto out = io::CreateLocalFile(path);
  ASSERT_OK(out);
  auto writer = parquet::ParquetFileWriter::Open(std::move(*out), schema, options);
  ASSERT_OK(writer);
  auto batch = RecordBatch::Make(schema, rows, columns);
  ASSERT_OK(batch);
  if (rows_per_group <= 0) rows_per_group = rows > 0 ? rows : 1;
  for (int64_t start = 0; start < rows; start += rows_per_group) {
    int64_t n = std::min(rows_per_group, rows - start);
    ASSERT_OK((*writer)->Write(*(*batch)->Slice(start, n)));
    ASSERT_OK((*writer)->FlushRowGroup());
  }
  ASSERT_OK((*writer)->Close());
}

inline int64_t FileSize(const std::string& path) {
  return static_cast<int64_t>(std::filesystem::file_size(path));
}

}  // namespace floe::iceberg::testing
