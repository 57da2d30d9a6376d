#include <filesystem>
#include <string>
#include <vector>

#include "floe/batch/value_format.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/testing/matchers.h"

namespace floe::parquet {
namespace {

namespace fs = std::filesystem;

// Every Parquet file of the shared Iceberg fixtures reads without error, with as many
// rows as its footer says.
TEST(ReaderFixtureTest, EveryFixtureFileReads) {
  const fs::path root = "../shared/fixtures/iceberg";
  if (!fs::exists(root)) GTEST_FAIL() << "the fixtures are missing at " << root;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".parquet") continue;
    SCOPED_TRACE(entry.path().string());
    ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::OpenPath(entry.path().string()));
    int64_t footer_rows = 0;
    for (const RowGroup& rg : reader->metadata().row_groups) footer_rows += rg.num_rows;
    EXPECT_EQ(footer_rows, reader->num_rows());
    for (int64_t batch_size : {int64_t{8192}, int64_t{7}}) {
      ReaderOptions options;
      options.batch_size = batch_size;
      ASSERT_OK_AND_ASSIGN(auto r, ParquetFileReader::OpenPath(entry.path().string(), options));
      ASSERT_OK_AND_ASSIGN(auto stream, r->Read({}));
      int64_t rows = 0;
      while (true) {
        ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
        if (!batch) break;
        EXPECT_LE(batch->num_rows(), batch_size);
        for (const ArrayPtr& col : batch->columns()) ASSERT_OK(col->ValidateFull());
        rows += batch->num_rows();
      }
      EXPECT_EQ(rows, footer_rows);
    }
    ++files;
  }
  EXPECT_GT(files, 100);
}

// The first row of a fixture file, formatted, with the file's schema.
void ExpectFirstRow(const std::string& relative, const std::string& schema,
                    const std::vector<std::string>& row) {
  const fs::path root = "../shared/fixtures/iceberg";
  if (!fs::exists(root)) GTEST_FAIL() << "the fixtures are missing at " << root;
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::OpenPath((root / relative).string()));
  EXPECT_EQ(reader->schema()->ToString(), schema);
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read({}));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
  ASSERT_NE(batch, nullptr);
  std::vector<std::string> got;
  for (const ArrayPtr& c : batch->columns()) got.push_back(FormatValue(*c, 0));
  EXPECT_EQ(got, row);
}

TEST(ReaderFixtureTest, ExactValues) {
  ExpectFirstRow(
      "duckdb-iceberg/data/persistent/uuid/data/"
      "00000-0-07b11d9e-e7ff-4093-acb3-743bf8b2e5cc-00001.parquet",
      Schema({Field("uuid", Uuid(), false, 1)}).ToString(),
      {"1571effb-facd-42a3-90e9-0af522e9b6c2"});
  ExpectFirstRow(
      "duckdb-iceberg/data/persistent/map_stats/default.db/map_stats/data/_day=2026-01-01/"
      "00000-0-8ed9efb3-5eb4-4225-a66a-2b6b46cb4d32.parquet",
      Schema({Field("timestamp", TimestampTz(), true, 1), Field("input", String(), true, 2),
              Field("output", String(), true, 3),
              Field("metadata", Map(String(), String()), true, 4)})
          .ToString(),
      {"2026-01-01 00:00:00+00", "hello", "world", "{key=>value1}"});
  const std::string spark =
      "duckdb-iceberg-2024/data/iceberg/generated_spec2_0_001/pyspark_iceberg_table/data/"
      "00000-1-3e88ec3a-0596-440f-9ce6-3debf172be49-00001.parquet";
  const fs::path root = "../shared/fixtures/iceberg";
  if (!fs::exists(root)) GTEST_FAIL() << "the fixtures are missing at " << root;
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::OpenPath((root / spark).string()));
  ASSERT_OK_AND_ASSIGN(auto columns, reader->ColumnsByFieldId({6, 8, 9, 12, 14}));
  ReadRequest request;
  request.columns = columns;
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(request));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
  ASSERT_NE(batch, nullptr);
  std::vector<std::string> got;
  for (const ArrayPtr& c : batch->columns()) got.push_back(FormatValue(*c, 0));
  EXPECT_EQ(got, (std::vector<std::string>{"17954.55", "17954.5500000000", "1996-03-13",
                                           "1996-02-12 00:00:00+00",
                                           "c0d646d3-2446-4e7a-9bd7-ff2999b2fb95"}));
}

}  // namespace
}  // namespace floe::parquet
