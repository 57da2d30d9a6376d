#include <filesystem>
#include <string>
#include <vector>

#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/testing/matchers.h"

namespace floe::parquet {
namespace {

namespace fs = std::filesystem;

// Every Parquet file of the shared Iceberg fixtures reads without error, with as many
// rows as its footer says.
TEST(ReaderFixtures, EveryFixtureFileReads) {
  const fs::path root = "../shared/fixtures/iceberg";
  if (!fs::exists(root)) GTEST_SKIP() << "no fixtures at " << root;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".parquet") continue;
    SCOPED_TRACE(entry.path().string());
    ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::OpenPath(entry.path().string()));
    int64_t footer_rows = 0;
    for (const RowGroup& rg : reader->metadata().row_groups) footer_rows += rg.num_rows;
    EXPECT_EQ(footer_rows, reader->num_rows());
    ReaderOptions small;
    small.batch_size = 7;
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

}  // namespace
}  // namespace floe::parquet
