#include "floe/io/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <filesystem>

#include "floe/io/local_file.h"
#include "floe/io/mapping_guard_internal.h"

#include <gtest/gtest.h>

#include "floe/testing/matchers.h"

namespace floe::io {
namespace {

using testing::IsError;
using testing::IsErrorWith;

// Writes `bytes` to a new local file at `path`.
void WriteFile(const std::string& path, std::string_view bytes) {
  ASSERT_OK_AND_ASSIGN(auto out, CreateLocalFile(path));
  ASSERT_OK(out->Write(bytes));
  ASSERT_OK(out->Close());
}

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
  ASSERT_NO_FATAL_FAILURE(WriteFile(path, bytes));
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
    // A hint, whatever the range: nothing to see but that it is harmless.
    for (auto [offset, length] : std::vector<std::pair<int64_t, int64_t>>{
             {0, size}, {size - 1, 1}, {size, 1}, {-1, 5}, {5, -1}, {0, size + 1}}) {
      in->WillNeed(offset, length);
    }
    EXPECT_THAT(in->ReadAt(size - 2, 5), IsErrorWith(StatusCode::kIOError, "m.bin"));
    EXPECT_THAT(in->ReadAt(-1, 1), IsError(StatusCode::kIOError));
    EXPECT_THAT(in->ReadAt(1, -1), IsError(StatusCode::kIOError));
    // A view outlives the file it was read from.
    in.reset();
    EXPECT_EQ(keep->view(), std::string_view(bytes).substr(bytes.size() - 7));
  }
}

// The resident kilobytes of the mapping that holds `address`, from /proc/self/smaps.
int64_t ResidentKiB(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 &&
        line.find(':') > line.find(' ')) {
      inside = begin <= at && at < end;
      continue;
    }
    int64_t kib = 0;
    if (inside && std::sscanf(line.c_str(), "Rss: %ld kB", &kib) == 1) return kib;
  }
  return -1;
}

TEST_F(LocalFileTest, AViewsPagesLeaveTheProcessWithIt) {
  std::string path = (dir_ / "v.bin").string();
  const std::string bytes(4 << 20, 'v');
  ASSERT_NO_FATAL_FAILURE(WriteFile(path, bytes));
  ASSERT_OK_AND_ASSIGN(auto in, OpenLocalFile(path, LocalReadOptions{0}));
  ASSERT_TRUE(IsMemoryMapped(*in));
  ASSERT_OK_AND_ASSIGN(auto view, in->ReadAt(0, in->size()));
  const uint8_t* data = view->data();
  int64_t sum = 0;
  for (int64_t i = 0; i < view->size(); i += 4096) sum += data[i];
  EXPECT_EQ(sum, int64_t{'v'} * 1024);
  EXPECT_GE(ResidentKiB(data), 4096);
  // The file stays mapped (the reader holds it); the view's pages are no longer resident.
  view.reset();
  EXPECT_LE(ResidentKiB(data), 8);
  ASSERT_OK_AND_ASSIGN(auto again, in->ReadAt(4096, 8));
  EXPECT_EQ(again->view(), "vvvvvvvv");
}

TEST_F(LocalFileTest, AMappedFileTruncatedWhileReadReadsZerosAndSaysSo) {
  std::string path = (dir_ / "t.bin").string();
  std::string bytes;
  for (int i = 0; i < (1 << 20); ++i) bytes.push_back(static_cast<char>('a' + i % 23));
  ASSERT_NO_FATAL_FAILURE(WriteFile(path, bytes));
  ASSERT_OK_AND_ASSIGN(auto in, OpenLocalFile(path, LocalReadOptions{0}));
  ASSERT_TRUE(IsMemoryMapped(*in));
  ASSERT_OK_AND_ASSIGN(auto view, in->ReadAt(0, in->size()));
  EXPECT_EQ(view->view().substr(0, 4096), std::string_view(bytes).substr(0, 4096));
  ASSERT_OK(in->CheckIntact());

  // Another writer cuts the file to one page.
  ASSERT_EQ(::truncate(path.c_str(), 4096), 0);
  const volatile uint8_t* data = view->data();
  EXPECT_EQ(data[(1 << 20) - 1], 0);                       // past the new end: zeros, not SIGBUS
  EXPECT_EQ(data[100], static_cast<uint8_t>(bytes[100]));  // still in the file
  EXPECT_THAT(in->CheckIntact(), IsErrorWith(StatusCode::kIOError, "t.bin"));
  EXPECT_THAT(in->CheckIntact(), IsErrorWith(StatusCode::kIOError, "changed while it was read"));
  EXPECT_THAT(in->ReadAt(0, 10), IsErrorWith(StatusCode::kIOError, "t.bin"));
  // The view and the file go away as usual.
  view.reset();
  in.reset();

  // A file read with pread cannot read as zeros: its reads fail.
  ASSERT_OK_AND_ASSIGN(auto plain, OpenLocalFile(path));
  ASSERT_OK(plain->CheckIntact());
}

TEST_F(LocalFileTest, FilesPastTheGuardsTableAreReadWithPread) {
  std::string path = (dir_ / "many.bin").string();
  const std::string bytes(10000, 'm');
  ASSERT_NO_FATAL_FAILURE(WriteFile(path, bytes));
  std::vector<std::unique_ptr<RandomAccessFile>> open;
  int mapped = 0;
  for (int i = 0; i < internal::kMaxGuardedRanges + 10; ++i) {
    ASSERT_OK_AND_ASSIGN(auto in, OpenLocalFile(path, LocalReadOptions{0}));
    mapped += IsMemoryMapped(*in) ? 1 : 0;
    open.push_back(std::move(in));
  }
  // Every slot of the table, and not one mapping more: the rest read with pread.
  EXPECT_EQ(mapped, internal::kMaxGuardedRanges);
  for (size_t i : {size_t{0}, open.size() - 1}) {
    ASSERT_OK_AND_ASSIGN(auto got, open[i]->ReadAt(9990, 10));
    EXPECT_EQ(got->view(), "mmmmmmmmmm");
  }
  // Closed files give their slots back.
  open.clear();
  ASSERT_OK_AND_ASSIGN(auto again, OpenLocalFile(path, LocalReadOptions{0}));
  EXPECT_TRUE(IsMemoryMapped(*again));
}

TEST_F(LocalFileTest, ASigbusOutsideTheGuardedMappingsStillKills) {
  std::string path = (dir_ / "raw.bin").string();
  const std::string bytes(1 << 16, 'r');
  ASSERT_NO_FATAL_FAILURE(WriteFile(path, bytes));
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // The guard's handler is installed by a guarded mapping...
        auto guarded = OpenLocalFile(path, LocalReadOptions{0});
        if (!guarded.ok() || !IsMemoryMapped(**guarded)) std::_Exit(3);
        // ...and a mapping it does not guard faults as it would without it.
        int fd = ::open(path.c_str(), O_RDONLY);
        void* raw = ::mmap(nullptr, bytes.size(), PROT_READ, MAP_PRIVATE, fd, 0);
        if (raw == MAP_FAILED || ::ftruncate(::open(path.c_str(), O_WRONLY), 0) != 0) {
          std::_Exit(4);
        }
        volatile char c = static_cast<const char*>(raw)[100];
        (void)c;
        std::_Exit(5);
      },
      ::testing::KilledBySignal(SIGBUS), "");
}

TEST_F(LocalFileTest, EmptyFilesAreNotMapped) {
  std::string path = (dir_ / "empty.bin").string();
  ASSERT_NO_FATAL_FAILURE(WriteFile(path, ""));
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
