// A Parquet file read through a memory mapping that another writer truncates: the reader
// hands on no batch decoded from the zeros the lost pages read as, and reports the file.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "floe/format/parquet/reader.h"
#include "floe/format/parquet/tests/writer_test_util.h"
#include "floe/io/local_file.h"
#include "floe/testing/matchers.h"

namespace floe::parquet {
namespace {

using ::floe::parquet::testing::ExpectSevensRows;
using ::floe::parquet::testing::WriteSevensFile;
using ::floe::testing::IsErrorWith;

constexpr int64_t kRowGroups = 4;
constexpr int64_t kRowsPerGroup = 50000;

class ReaderMappedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_parquet_mapped_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "t.parquet").string();
    ASSERT_OK_AND_ASSIGN(auto written, WriteSevensFile(kRowGroups, kRowsPerGroup));
    std::ofstream(path_, std::ios::binary) << written.bytes;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(ReaderMappedFileTest, ATruncatedFileIsAnErrorNotWrongRows) {
  for (int64_t keep : {int64_t{0}, int64_t{4096}}) {
    SCOPED_TRACE(keep);
    SetUp();
    ASSERT_OK_AND_ASSIGN(auto file, io::OpenLocalFile(path_, io::LocalReadOptions{0}));
    ASSERT_TRUE(io::IsMemoryMapped(*file));
    ReaderOptions options;
    options.batch_size = 5000;
    ASSERT_OK_AND_ASSIGN(auto reader,
                         ParquetFileReader::Open(std::shared_ptr(std::move(file)), options));
    ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ReadRequest{}));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, stream->Next());
    ASSERT_TRUE(first);
    ExpectSevensRows(*first, 0);
    int64_t rows = first->num_rows();

    ASSERT_EQ(::truncate(path_.c_str(), keep), 0);
    while (true) {
      Result<RecordBatchPtr> next = stream->Next();
      if (!next.ok()) {
        EXPECT_THAT(next,
                    IsErrorWith(StatusCode::kIOError, "t.parquet' changed while it was read"));
        break;
      }
      // A batch decoded before the pages it needed were touched after the truncation holds
      // the file's rows; the stream must not end as if the file were whole.
      ASSERT_TRUE(*next) << "the stream ended after " << rows << " rows";
      ExpectSevensRows(**next, rows);
      rows += (*next)->num_rows();
    }
    EXPECT_LT(rows, kRowGroups * kRowsPerGroup);
  }
}

TEST_F(ReaderMappedFileTest, OpenPathReadsEveryRowOfAFileLargeEnoughToMap) {
  ASSERT_GE(std::filesystem::file_size(path_), static_cast<uintmax_t>(io::kScanMapMinSize));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::OpenPath(path_, ReaderOptions{}));
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ReadRequest{}));
  int64_t rows = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
    if (!batch) break;
    ExpectSevensRows(*batch, rows);
    rows += batch->num_rows();
  }
  EXPECT_EQ(rows, kRowGroups * kRowsPerGroup);
}

}  // namespace
}  // namespace floe::parquet
