// The batch stream reads the next row group's column chunks while the current one decodes
// (ReaderOptions::read_ahead_bytes): same rows with and without it, safe early destruction,
// and errors of a read-ahead surface on the batch that needs its bytes.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "floe/common/thread_pool.h"
#include "floe/format/parquet/reader.h"
#include "floe/format/parquet/tests/writer_test_util.h"
#include "floe/testing/matchers.h"

namespace floe::parquet {
namespace {

using ::floe::parquet::testing::ExpectSevensRows;
using ::floe::parquet::testing::WriteSevensFile;
using ::floe::testing::IsErrorWith;

constexpr int64_t kRowGroups = 5;
constexpr int64_t kRowsPerGroup = 1000;

/// Delegates to a file, optionally slowly, and fails reads that touch [fail_begin, fail_end).
class TestFile final : public io::RandomAccessFile {
 public:
  explicit TestFile(std::shared_ptr<io::RandomAccessFile> base) : base_(std::move(base)) {}
  int64_t size() const override { return base_->size(); }
  const std::string& path() const override { return base_->path(); }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) const override {
    in_flight_.fetch_add(1);
    reads_.fetch_add(1);
    if (std::this_thread::get_id() != owner_) reads_elsewhere_.fetch_add(1);
    if (delay_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    Result<BufferPtr> out = base_->ReadAt(offset, length);
    if (offset < fail_end_ && offset + length > fail_begin_) {
      touched_failing_.store(true);
      out = Status::IOError("injected read error at byte {}", offset);
    }
    in_flight_.fetch_sub(1);
    return out;
  }

  std::shared_ptr<io::RandomAccessFile> base_;
  int delay_ms_ = 0;
  int64_t fail_begin_ = 0;
  int64_t fail_end_ = 0;
  mutable std::atomic<int> in_flight_{0};
  // Reads made, and those made on a thread other than the one that made this file.
  mutable std::atomic<int> reads_{0};
  mutable std::atomic<int> reads_elsewhere_{0};
  std::thread::id owner_ = std::this_thread::get_id();
  mutable std::atomic<bool> touched_failing_{false};
};

/// A file of kRowGroups row groups: i = row * 7, s = "v<row>".
std::shared_ptr<io::RandomAccessFile> MakeFile() {
  auto written = WriteSevensFile(kRowGroups, kRowsPerGroup);
  EXPECT_OK(written);
  auto buffer = Buffer::CopyOf(std::string_view(written->bytes));
  EXPECT_OK(buffer);
  return io::MakeBufferFile(*buffer, "mem.parquet");
}

/// The byte range of row group `rg`'s column chunks.
std::pair<int64_t, int64_t> RowGroupBytes(const ParquetFileReader& reader, int rg) {
  int64_t begin = std::numeric_limits<int64_t>::max(), end = 0;
  for (const ColumnChunk& cc : reader.metadata().row_groups[static_cast<size_t>(rg)].columns) {
    auto meta = cc.GetMetaData();
    EXPECT_OK(meta);
    const ColumnMetaData& m = **meta;
    int64_t start = m.data_page_offset;
    if (m.dictionary_page_offset && *m.dictionary_page_offset > 0) {
      start = std::min(start, *m.dictionary_page_offset);
    }
    begin = std::min(begin, start);
    end = std::max(end, start + m.total_compressed_size);
  }
  return {begin, end};
}

void ExpectRows(const RecordBatch& batch, int64_t first_row) { ExpectSevensRows(batch, first_row); }

TEST(ReaderReadAhead, SameRowsWithAndWithout) {
  auto base = MakeFile();
  for (int64_t read_ahead : {int64_t{0}, int64_t{100}, int64_t{64} << 20}) {
    for (int64_t batch_size : {int64_t{300}, int64_t{8192}}) {
      auto file = std::make_shared<TestFile>(base);
      file->delay_ms_ = 1;
      ReaderOptions options;
      options.read_ahead_bytes = read_ahead;
      options.batch_size = batch_size;
      ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(file, options));
      ASSERT_EQ(reader->num_row_groups(), kRowGroups);
      ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ReadRequest{}));
      int64_t rows = 0;
      while (true) {
        ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
        if (!batch) break;
        ExpectRows(*batch, rows);
        rows += batch->num_rows();
      }
      EXPECT_EQ(rows, kRowGroups * kRowsPerGroup) << read_ahead << " " << batch_size;
    }
  }
}

TEST(ReaderReadAhead, ReadsTheNextRowGroupWhileTheCurrentOneDecodes) {
  auto file = std::make_shared<TestFile>(MakeFile());
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(file));
  // Row group 1's bytes fail: once row group 0 started, its read-ahead touches them before
  // the stream is asked for them.
  std::tie(file->fail_begin_, file->fail_end_) = RowGroupBytes(*reader, 1);
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ReadRequest{}));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
  ASSERT_NE(batch, nullptr);
  ExpectRows(*batch, 0);
  for (int i = 0; i < 500 && !file->touched_failing_.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(file->touched_failing_.load());
}

TEST(ReaderReadAhead, ErrorSurfacesOnTheBatchThatNeedsIt) {
  for (int64_t read_ahead : {int64_t{0}, int64_t{64} << 20}) {
    auto file = std::make_shared<TestFile>(MakeFile());
    ReaderOptions options;
    options.read_ahead_bytes = read_ahead;
    ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(file, options));
    std::tie(file->fail_begin_, file->fail_end_) = RowGroupBytes(*reader, 2);
    ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ReadRequest{}));
    for (int rg = 0; rg < 2; ++rg) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
      ASSERT_NE(batch, nullptr);
      ExpectRows(*batch, rg * kRowsPerGroup);
    }
    EXPECT_THAT(stream->Next(),
                IsErrorWith(StatusCode::kIOError, "row group 2: injected read error"));
  }
}

TEST(ReaderReadAhead, EarlyDestructionWaitsForTheRead) {
  auto file = std::make_shared<TestFile>(MakeFile());
  file->delay_ms_ = 50;
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(file));
  for (int batches = 0; batches < 3; ++batches) {
    ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ReadRequest{}));
    for (int b = 0; b < batches; ++b) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
      ASSERT_NE(batch, nullptr);
    }
    stream.reset();
    EXPECT_EQ(file->in_flight_.load(), 0);
  }
  // The reader (and the file) go away right after a stream with a read-ahead in flight.
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ReadRequest{}));
  ASSERT_OK(stream->Next());
  stream.reset();
  reader.reset();
  EXPECT_EQ(file->in_flight_.load(), 0);
}

// Holds every thread of the I/O pool until Release (or destruction).
class BusyIoPool {
 public:
  BusyIoPool() {
    for (int i = 0; i < IoThreadPool()->size(); ++i) {
      done_.push_back(IoThreadPool()->Submit([this] {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [this] { return released_; });
      }));
    }
  }
  ~BusyIoPool() { Release(); }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      released_ = true;
    }
    cv_.notify_all();
    for (auto& f : done_) f.wait();
    // Tasks queued behind the blockers have started by now; let them finish.
    std::vector<std::future<void>> after;
    for (int i = 0; i < IoThreadPool()->size(); ++i) after.push_back(IoThreadPool()->Submit([] {}));
    for (auto& f : after) f.wait();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool released_ = false;
  std::vector<std::future<void>> done_;
};

TEST(ReaderReadAhead, AReadNoThreadTookUpIsDoneByItsReader) {
  auto file = std::make_shared<TestFile>(MakeFile());
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(file));
  {
    // Every read-ahead stays queued: the stream reads each row group itself, on this
    // thread, and never waits for the pool.
    BusyIoPool busy;
    ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ReadRequest{}));
    int64_t rows = 0;
    for (;;) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
      if (batch == nullptr) break;
      ExpectRows(*batch, rows);
      rows += batch->num_rows();
    }
    EXPECT_EQ(rows, kRowGroups * kRowsPerGroup);
    EXPECT_EQ(file->reads_elsewhere_.load(), 0);
    // A stream that goes while its read-ahead is still queued does not wait for it, and the
    // task does not read once it runs.
    ASSERT_OK_AND_ASSIGN(stream, reader->Read(ReadRequest{}));
    ASSERT_OK(stream->Next());
    stream.reset();
    const int reads = file->reads_.load();
    busy.Release();
    EXPECT_EQ(file->reads_.load(), reads);
    EXPECT_EQ(file->reads_elsewhere_.load(), 0);
  }
  // With the pool free again, read-aheads run there.
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ReadRequest{}));
  ASSERT_OK(stream->Next());
  for (int i = 0; i < 500 && file->reads_elsewhere_.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GT(file->reads_elsewhere_.load(), 0);
}

}  // namespace
}  // namespace floe::parquet
