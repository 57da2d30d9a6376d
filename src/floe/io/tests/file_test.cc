#include "floe/io/file.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "floe/testing/matchers.h"

namespace floe::io {
namespace {

using testing::IsError;
using testing::IsErrorWith;

class LocalFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_io_test_" + std::to_string(::getpid()));
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

TEST(MemoryFileTest, ReadsSlices) {
  auto file = MakeBufferFile(Buffer::CopyOf(std::string_view("abcdef")).ValueOrDie());
  ASSERT_OK_AND_ASSIGN(auto mid, file->ReadAt(2, 3));
  EXPECT_EQ(mid->view(), "cde");
  EXPECT_THAT(file->ReadAt(4, 3), IsError(StatusCode::kIOError));
}

}  // namespace
}  // namespace floe::io
