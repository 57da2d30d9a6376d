#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "floe/batch/buffer.h"
#include "floe/common/result.h"

namespace floe::io {

/// A file that can be read at any offset. Implementations are thread-safe: ranges
/// may be read concurrently.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  /// The file's size in bytes.
  virtual int64_t size() const = 0;
  /// Reads exactly bytes [offset, offset + length); a range past the end is an
  /// IOError naming the file, the range and the size.
  virtual Result<BufferPtr> ReadAt(int64_t offset, int64_t length) const = 0;
  /// The path or URI the file was opened with, for error messages.
  virtual const std::string& path() const = 0;
  /// Whether every read so far returned the file's bytes. A memory-mapped local file that
  /// was truncated while it was mapped reads as zeros where its bytes went (instead of
  /// killing the process); a reader of such a file calls this after it decoded what it
  /// read and before it hands any of it on. Other files report an error from the read
  /// itself and always answer OK.
  virtual Status CheckIntact() const { return Status::OK(); }
  /// A hint that bytes [offset, offset + length) will be read soon: a memory-mapped file
  /// asks the kernel to bring them into the page cache in the background. Others ignore it.
  virtual void WillNeed(int64_t offset, int64_t length) const {
    (void)offset;
    (void)length;
  }
};

/// A sequential output with a known position.
class OutputStream {
 public:
  virtual ~OutputStream() = default;
  virtual Status Write(const void* data, int64_t length) = 0;
  Status Write(std::string_view bytes) {
    return Write(bytes.data(), static_cast<int64_t>(bytes.size()));
  }
  /// Bytes written so far.
  virtual int64_t position() const = 0;
  /// Flushes and closes; the file is complete only after Close succeeds.
  virtual Status Close() = 0;
  virtual const std::string& path() const = 0;
};

/// Opens a local file for reading (pread; no shared file position).
Result<std::unique_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path);

/// Opens (creating or truncating) a local file for writing.
Result<std::unique_ptr<OutputStream>> CreateLocalFile(const std::string& path);

/// A read-only file over bytes in memory (tests, fuzzing, small objects).
std::unique_ptr<RandomAccessFile> MakeBufferFile(BufferPtr bytes, std::string name = "<memory>");

/// An output stream that collects its bytes in memory.
class BufferOutputStream final : public OutputStream {
 public:
  explicit BufferOutputStream(std::string name = "<memory>") : name_(std::move(name)) {}
  Status Write(const void* data, int64_t length) override {
    bytes_.append(static_cast<const char*>(data), static_cast<size_t>(length));
    return Status::OK();
  }
  int64_t position() const override { return static_cast<int64_t>(bytes_.size()); }
  Status Close() override { return Status::OK(); }
  const std::string& path() const override { return name_; }
  const std::string& bytes() const { return bytes_; }
  std::string TakeBytes() { return std::move(bytes_); }

 private:
  std::string name_;
  std::string bytes_;
};

}  // namespace floe::io
