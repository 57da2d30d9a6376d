#include "floe/io/file.h"
#include "floe/io/local_file.h"
#include "floe/io/mapping_guard_internal.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace floe::io {

namespace {

Status ErrnoStatus(std::string_view what, const std::string& path) {
  return Status::IOError("{} '{}': {}", what, path, std::strerror(errno));
}

Status CheckRange(const std::string& path, int64_t size, int64_t offset, int64_t length) {
  if (offset < 0 || length < 0 || offset > size || length > size - offset) {
    return Status::IOError("reading bytes [{}, {}) of '{}', which has {} bytes", offset,
                           offset + length, path, size);
  }
  return Status::OK();
}

class LocalFile final : public RandomAccessFile {
 public:
  LocalFile(int fd, int64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}
  ~LocalFile() override { ::close(fd_); }

  int64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) const override {
    FLOE_RETURN_NOT_OK(CheckRange(path_, size_, offset, length));
    BufferBuilder builder;
    FLOE_RETURN_NOT_OK(builder.Reserve(length));
    int64_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(fd_, builder.mutable_data() + done, static_cast<size_t>(length - done),
                          static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("reading", path_);
      }
      if (n == 0) {
        return Status::IOError("'{}' ended at byte {} while reading [{}, {})", path_, offset + done,
                               offset, offset + length);
      }
      done += n;
    }
    builder.UnsafeAdvance(length);
    return builder.Finish();
  }

 private:
  int fd_;
  int64_t size_;
  std::string path_;
};

// The pages of a read-only mapping of a whole file, guarded against the file's truncation;
// unmapped when the last view of it goes away.
class Mapping {
 public:
  Mapping(void* base, int64_t size)
      : base_(base),
        size_(size),
        guard_(std::make_unique<internal::GuardedRange>(base, static_cast<size_t>(size))) {}
  ~Mapping() {
    // Out of the handler's table before the address range can be reused.
    guard_.reset();
    ::munmap(base_, static_cast<size_t>(size_));
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  const uint8_t* data() const { return static_cast<const uint8_t*>(base_); }
  bool guarded() const { return guard_->registered(); }
  bool truncated() const { return guard_->truncated(); }

 private:
  void* base_;
  int64_t size_;
  std::unique_ptr<internal::GuardedRange> guard_;
};

// What keeps one read of a mapped file alive. When it goes, the pages wholly inside it leave
// the process (they stay in the page cache): a scan's resident memory is the views it holds,
// as it is the buffers it holds when it reads with pread.
class MappedView {
 public:
  MappedView(std::shared_ptr<const Mapping> mapping, int64_t offset, int64_t length)
      : mapping_(std::move(mapping)), offset_(offset), length_(length) {}
  ~MappedView() { Advise(mapping_->data() + offset_, length_, MADV_DONTNEED); }
  MappedView(const MappedView&) = delete;
  MappedView& operator=(const MappedView&) = delete;

  // madvise over the pages of [data, data + length): for MADV_DONTNEED only the pages
  // wholly inside it (a page at either end may hold another view's bytes), for any other
  // advice every page it touches.
  static void Advise(const uint8_t* data, int64_t length, int advice) {
    static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<uintptr_t>(data);
    const auto end = begin + static_cast<uintptr_t>(length);
    const bool inside = advice == MADV_DONTNEED;
    const uintptr_t first = inside ? (begin + page - 1) & ~(page - 1) : begin & ~(page - 1);
    const uintptr_t last = inside ? end & ~(page - 1) : end;
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, advice);
  }

 private:
  std::shared_ptr<const Mapping> mapping_;
  int64_t offset_;
  int64_t length_;
};

// A local file read through a memory mapping: ReadAt hands out views of the mapped pages
// (no copy, no allocation of the bytes).
class MappedFile final : public RandomAccessFile {
 public:
  MappedFile(std::shared_ptr<const Mapping> mapping, int64_t size, std::string path)
      : mapping_(std::move(mapping)), size_(size), path_(std::move(path)) {}

  int64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) const override {
    FLOE_RETURN_NOT_OK(CheckRange(path_, size_, offset, length));
    FLOE_RETURN_NOT_OK(CheckIntact());
    if (length == 0) return Buffer::Wrap(mapping_->data() + offset, 0, mapping_);
    // Pages not in the page cache are read in the background from here, not a fault at a
    // time as the reader touches them.
    WillNeed(offset, length);
    return Buffer::Wrap(mapping_->data() + offset, length,
                        std::make_shared<MappedView>(mapping_, offset, length));
  }

  Status CheckIntact() const override { return mapping_->truncated() ? Truncated() : Status::OK(); }

  void WillNeed(int64_t offset, int64_t length) const override {
    if (offset < 0 || length <= 0 || offset > size_ || length > size_ - offset) return;
    MappedView::Advise(mapping_->data() + offset, length, MADV_WILLNEED);
  }

 private:
  Status Truncated() const {
    // The guard cannot tell a page the file lost from one the device failed to read.
    return Status::IOError(
        "'{}' changed while it was read: part of the {} bytes it had when it was opened "
        "could not be read any more (truncated or rewritten in place by another writer, or "
        "a read error of the device)",
        path_, size_);
  }

  std::shared_ptr<const Mapping> mapping_;
  int64_t size_;
  std::string path_;
};

class LocalOutput final : public OutputStream {
 public:
  LocalOutput(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~LocalOutput() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Status Write(const void* data, int64_t length) override {
    if (fd_ < 0) return Status::IOError("writing to '{}' after it was closed", path_);
    // Small writes are gathered so that encoders can write field by field.
    if (pending_.size() + static_cast<size_t>(length) > kBufferSize) FLOE_RETURN_NOT_OK(Flush());
    if (static_cast<size_t>(length) >= kBufferSize) {
      FLOE_RETURN_NOT_OK(WriteAll(static_cast<const char*>(data), length));
    } else {
      pending_.append(static_cast<const char*>(data), static_cast<size_t>(length));
    }
    position_ += length;
    return Status::OK();
  }
  int64_t position() const override { return position_; }
  const std::string& path() const override { return path_; }

  Status Close() override {
    if (fd_ < 0) return Status::OK();
    FLOE_RETURN_NOT_OK(Flush());
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) return ErrnoStatus("closing", path_);
    return Status::OK();
  }

 private:
  static constexpr size_t kBufferSize = 1 << 20;

  Status Flush() {
    FLOE_RETURN_NOT_OK(WriteAll(pending_.data(), static_cast<int64_t>(pending_.size())));
    pending_.clear();
    return Status::OK();
  }
  Status WriteAll(const char* data, int64_t length) {
    while (length > 0) {
      ssize_t n = ::write(fd_, data, static_cast<size_t>(length));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("writing", path_);
      }
      data += n;
      length -= n;
    }
    return Status::OK();
  }

  int fd_;
  std::string path_;
  std::string pending_;
  int64_t position_ = 0;
};

class MemoryFile final : public RandomAccessFile {
 public:
  MemoryFile(BufferPtr bytes, std::string name)
      : bytes_(std::move(bytes)), name_(std::move(name)) {}
  int64_t size() const override { return bytes_->size(); }
  const std::string& path() const override { return name_; }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) const override {
    FLOE_RETURN_NOT_OK(CheckRange(name_, bytes_->size(), offset, length));
    return Buffer::Slice(bytes_, offset, length);
  }

 private:
  BufferPtr bytes_;
  std::string name_;
};

}  // namespace

Result<std::unique_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path) {
  return OpenLocalFile(path, LocalReadOptions{});
}

Result<std::unique_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path,
                                                        const LocalReadOptions& options) {
  // O_NONBLOCK: opening a FIFO would otherwise wait for a writer; it is refused below.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound("file '{}' does not exist", path);
    return ErrnoStatus("opening", path);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = ErrnoStatus("reading the size of", path);
    ::close(fd);
    return s;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return Status::IOError("'{}' is {}, not a regular file", path, kind);
  }
  // Reads of a regular file never block; the flag is cleared all the same.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const int64_t size = st.st_size;
  if (options.map_min_size >= 0 && size >= options.map_min_size && size > 0) {
    void* base = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (base != MAP_FAILED) {
      auto mapping = std::make_shared<const Mapping>(base, size);
      if (mapping->guarded()) {
        // The mapping keeps the file's pages; the descriptor is not needed any more.
        ::close(fd);
        return std::unique_ptr<RandomAccessFile>(new MappedFile(std::move(mapping), size, path));
      }
    }
    // Files that cannot be mapped (or guarded) are read with pread.
  }
  return std::unique_ptr<RandomAccessFile>(new LocalFile(fd, size, path));
}

Result<std::unique_ptr<OutputStream>> CreateLocalFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("creating", path);
  return std::unique_ptr<OutputStream>(new LocalOutput(fd, path));
}

bool IsMemoryMapped(const RandomAccessFile& file) {
  return dynamic_cast<const MappedFile*>(&file) != nullptr;
}

std::unique_ptr<RandomAccessFile> MakeBufferFile(BufferPtr bytes, std::string name) {
  return std::make_unique<MemoryFile>(std::move(bytes), std::move(name));
}

}  // namespace floe::io
