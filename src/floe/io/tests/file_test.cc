#include "floe/io/file.h"

#include <sys/stat.h>

#include <filesystem>

#include "floe/io/local_file.h"

#include <gtest/gtest.h>

#include "floe/testing/matchers.h"

namespace floe::io {
namespace {

using testing::IsError;
using testing::IsErrorWith;

class LocalFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("floe_io_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(LocalFileTest, WriteThenReadRanges) {
  std::string path = (dir_ / "a.bin").string();
  ASSERT_OK_AND_ASSIGN(auto out, CreateLocalFile(path));
  std::string big(3 << 20, 'x');
  ASSERT_OK(out->Write("hello "));
  ASSERT_OK(out->Write(big));
  ASSERT_OK(out->Write("world"));
  EXPECT_EQ(out->position(), 11 + static_cast<int64_t>(big.size()));
  ASSERT_OK(out->Close());

  ASSERT_OK_AND_ASSIGN(auto in, OpenLocalFile(path));
  EXPECT_EQ(in->size(), 11 + static_cast<int64_t>(big.size()));
  ASSERT_OK_AND_ASSIGN(auto head, in->ReadAt(0, 6));
  EXPECT_EQ(head->view(), "hello ");
  ASSERT_OK_AND_ASSIGN(auto tail, in->ReadAt(in->size() - 5, 5));
  EXPECT_EQ(tail->view(), "world");
  EXPECT_THAT(in->ReadAt(in->size() - 2, 5), IsErrorWith(StatusCode::kIOError, "a.bin"));
  EXPECT_THAT(in->ReadAt(-1, 1), IsError(StatusCode::kIOError));
}

TEST_F(LocalFileTest, MissingFileAndDirectory) {
  EXPECT_THAT(OpenLocalFile((dir_ / "nope").string()), IsError(StatusCode::kNotFound));
  EXPECT_THAT(OpenLocalFile(dir_.string()), IsError(StatusCode::kIOError));
}

TEST_F(LocalFileTest, MappedAndPreadReadsAgree) {
  std::string path = (dir_ / "m.bin").string();
  std::string bytes;
  for (int i = 0; i < 300000; ++i) bytes.push_back(static_cast<char>('a' + i % 23));
  {
    ASSERT_OK_AND_ASSIGN(auto out, CreateLocalFile(path));
    ASSERT_OK(out->Write(bytes));
    ASSERT_OK(out->Close());
  }
  const int64_t size = static_cast<int64_t>(bytes.size());
  for (int64_t map_min_size : {int64_t{-1}, int64_t{0}, size, size + 1}) {
    SCOPED_TRACE(map_min_size);
    ASSERT_OK_AND_ASSIGN(auto in, OpenLocalFile(path, LocalReadOptions{map_min_size}));
    EXPECT_EQ(IsMemoryMapped(*in), map_min_size >= 0 && map_min_size <= size);
    EXPECT_EQ(in->size(), size);
    BufferPtr keep;
    for (auto [offset, length] : std::vector<std::pair<int64_t, int64_t>>{
             {0, 0}, {0, 1}, {5, 4096}, {4095, 2}, {size - 7, 7}, {0, size}, {size, 0}}) {
      ASSERT_OK_AND_ASSIGN(auto got, in->ReadAt(offset, length));
      EXPECT_EQ(got->view(), std::string_view(bytes).substr(static_cast<size_t>(offset),
                                                            static_cast<size_t>(length)));
      if (length == 7) keep = got;
    }
    EXPECT_THAT(in->ReadAt(size - 2, 5), IsErrorWith(StatusCode::kIOError, "m.bin"));
    EXPECT_THAT(in->ReadAt(-1, 1), IsError(StatusCode::kIOError));
    EXPECT_THAT(in->ReadAt(1, -1), IsError(StatusCode::kIOError));
    // A view outlives the file it was read from.
    in.reset();
    EXPECT_EQ(keep->view(), std::string_view(bytes).substr(bytes.size() - 7));
  }
}

TEST_F(LocalFileTest, EmptyFilesAreNotMapped) {
  std::string path = (dir_ / "empty.bin").string();
  {
    ASSERT_OK_AND_ASSIGN(auto out, CreateLocalFile(path));
    ASSERT_OK(out->Close());
  }
  ASSERT_OK_AND_ASSIGN(auto empty, OpenLocalFile(path, LocalReadOptions{0}));
  EXPECT_FALSE(IsMemoryMapped(*empty));
  EXPECT_EQ(empty->size(), 0);
  ASSERT_OK_AND_ASSIGN(auto none, empty->ReadAt(0, 0));
  EXPECT_EQ(none->size(), 0);
  // The default reads with pread.
  ASSERT_OK_AND_ASSIGN(auto plain, OpenLocalFile(path));
  EXPECT_FALSE(IsMemoryMapped(*plain));
}

// Only regular files are read: a FIFO would block the open (or the reads) for ever, and a
// device has no size.
TEST_F(LocalFileTest, NonRegularFilesAreRefused) {
  const std::string fifo = (dir_ / "pipe.parquet").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(OpenLocalFile(fifo),
              IsErrorWith(StatusCode::kIOError, "'" + fifo + "' is a FIFO, not a regular file"));
  EXPECT_THAT(OpenLocalFile("/dev/null"),
              IsErrorWith(StatusCode::kIOError, "is a character device, not a regular file"));
  EXPECT_THAT(OpenLocalFile(dir_.string()),
              IsErrorWith(StatusCode::kIOError, "is a directory, not a regular file"));
}

TEST(MemoryFileTest, ReadsSlices) {
  auto file = MakeBufferFile(Buffer::CopyOf(std::string_view("abcdef")).ValueOrDie());
  ASSERT_OK_AND_ASSIGN(auto mid, file->ReadAt(2, 3));
  EXPECT_EQ(mid->view(), "cde");
  EXPECT_THAT(file->ReadAt(4, 3), IsError(StatusCode::kIOError));
}

}  // namespace
}  // namespace floe::io
