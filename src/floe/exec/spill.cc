#include "floe/exec/spill.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>

#include "floe/batch/buffer.h"
#include "floe/common/memory_pool.h"

namespace floe::exec {

// The format is described in spill.h.

namespace {

constexpr char kMagic[8] = {'F', 'L', 'O', 'E', 'S', 'P', 'L', '1'};

// No array is longer than this (a sanity bound well past any batch floe makes).
constexpr uint64_t kMaxArrayLength = uint64_t{1} << 40;

// Writes one encoded batch at `out`, or only counts its bytes when `out` is null, so that
// the one encoder both sizes a batch and writes it into memory allocated once. Padding is
// relative to the batch's start.
class BlockWriter {
 public:
  explicit BlockWriter(uint8_t* out) : out_(out) {}

  void U8(uint8_t v) { Put(&v, 1); }
  void U64(uint64_t v) { Put(&v, 8); }
  void Bytes(const void* p, size_t n) {
    U64(n);
    Put(p, n);
    Pad();
  }
  void Zeros(size_t n) {
    U64(n);
    Fill(n);
    Pad();
  }
  void Pad() {
    const size_t used = pos_ % 8;
    if (used != 0) Fill(8 - used);
  }
  /// Room for `n` bytes that the caller writes: where they go, or null when counting.
  uint8_t* Take(size_t n) {
    uint8_t* at = out_ == nullptr ? nullptr : out_ + pos_;
    pos_ += n;
    return at;
  }
  size_t size() const { return pos_; }

 private:
  void Put(const void* p, size_t n) {
    if (out_ != nullptr && n > 0) std::memcpy(out_ + pos_, p, n);
    pos_ += n;
  }
  void Fill(size_t n) {
    if (out_ != nullptr) std::memset(out_ + pos_, 0, n);
    pos_ += n;
  }

  uint8_t* out_;
  size_t pos_ = 0;
};

Status MissingBuffer(const Array& a, const char* what) {
  return Status::Invalid("cannot encode {} array of {} values: no {} buffer", a.type()->ToString(),
                         a.length(), what);
}

void WriteBitmap(BlockWriter& w, const uint8_t* bits, int64_t offset, int64_t length) {
  const size_t bytes = static_cast<size_t>(bit_util::BytesForBits(length));
  w.U64(bytes);
  uint8_t* at = w.Take(bytes);
  if (at != nullptr && bytes > 0) {
    // The copy sets bits one at a time when `offset` is not a byte's start, and leaves the
    // bits past `length` in the last byte as they were.
    std::memset(at, 0, bytes);
    bit_util::CopyBitmap(bits, offset, length, at, 0);
  }
  w.Pad();
}

// Writes offsets [0, length] rebased to start at 0; returns the first and last offsets.
Result<std::pair<int64_t, int64_t>> WriteOffsets(BlockWriter& w, const Array& a) {
  const int64_t n = a.length();
  if (!a.buffer(1)) return MissingBuffer(a, "offsets");
  const int32_t* off = a.value_offsets();
  w.U64(static_cast<uint64_t>(n + 1) * 4);
  if (uint8_t* rebased = w.Take(static_cast<size_t>(n + 1) * 4)) {
    for (int64_t i = 0; i <= n; ++i) {
      const int32_t v = off[i] - off[0];
      std::memcpy(rebased + i * 4, &v, 4);
    }
  }
  w.Pad();
  return std::pair<int64_t, int64_t>{off[0], off[n]};
}

Status WriteArray(BlockWriter& w, const Array& a) {
  const int64_t n = a.length();
  const int64_t nulls = a.null_count();
  w.U8(static_cast<uint8_t>(a.type_id()));
  w.U64(static_cast<uint64_t>(n));
  w.U64(static_cast<uint64_t>(nulls));
  w.Pad();
  if (nulls > 0) {
    if (a.validity() != nullptr) {
      WriteBitmap(w, a.validity(), a.offset(), n);
    } else {
      // All null without a bitmap: written as an all-zero bitmap.
      w.Zeros(static_cast<size_t>(bit_util::BytesForBits(n)));
    }
  }
  switch (a.type_id()) {
    case TypeId::kBoolean:
      if (!a.buffer(1)) return MissingBuffer(a, "values");
      WriteBitmap(w, a.buffer(1)->data(), a.offset(), n);
      break;
    case TypeId::kString:
    case TypeId::kBinary: {
      FLOE_ASSIGN_OR_RAISE(auto range, WriteOffsets(w, a));
      if (!a.buffer(2)) return MissingBuffer(a, "data");
      w.Bytes(a.buffer(2)->data() + range.first, static_cast<size_t>(range.second - range.first));
      break;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      FLOE_ASSIGN_OR_RAISE(auto range, WriteOffsets(w, a));
      FLOE_RETURN_NOT_OK(
          WriteArray(w, *a.child(0)->Slice(range.first, range.second - range.first)));
      break;
    }
    case TypeId::kStruct:
      for (int f = 0; f < a.num_children(); ++f) FLOE_RETURN_NOT_OK(WriteArray(w, *a.field(f)));
      break;
    default: {
      if (!a.buffer(1)) return MissingBuffer(a, "values");
      const int64_t width = a.type()->byte_width();
      w.Bytes(a.buffer(1)->data() + a.offset() * width, static_cast<size_t>(n * width));
      break;
    }
  }
  return Status::OK();
}

// Reads one block [begin, end) of `data`; offsets in errors are `base` + the position in
// `data`.
class BlockReader {
 public:
  BlockReader(const std::string& where, BufferPtr data, int64_t begin, int64_t end, int64_t base)
      : where_(where), data_(std::move(data)), begin_(begin), end_(end), base_(base), pos_(begin) {}

  int64_t remaining() const { return end_ - pos_; }
  Result<uint8_t> U8() {
    if (remaining() < 1) return Error("truncated batch");
    return data_->data()[pos_++];
  }
  Result<uint64_t> U64() {
    if (remaining() < 8) return Error("truncated batch");
    uint64_t v;
    std::memcpy(&v, data_->data() + pos_, 8);
    pos_ += 8;
    return v;
  }
  void Pad() {
    pos_ = begin_ + ((pos_ - begin_ + 7) & ~int64_t{7});
    if (pos_ > end_) pos_ = end_;
  }
  // A length-prefixed buffer whose length must be `expected`.
  Result<BufferPtr> Bytes(uint64_t expected, const char* what) {
    const int64_t at = pos_;
    FLOE_ASSIGN_OR_RAISE(uint64_t n, U64());
    if (n != expected) {
      return ErrorAt(at, std::string(what) + " buffer of " + std::to_string(n) + " bytes where " +
                             std::to_string(expected) + " were expected");
    }
    if (n > static_cast<uint64_t>(remaining())) {
      return ErrorAt(at, std::string(what) + " buffer of " + std::to_string(n) +
                             " bytes past the end of the batch (" + std::to_string(remaining()) +
                             " bytes remain)");
    }
    BufferPtr b = Buffer::Slice(data_, pos_, static_cast<int64_t>(n));
    pos_ += static_cast<int64_t>(n);
    Pad();
    return b;
  }
  Status Error(const std::string& what) const { return ErrorAt(pos_, what); }
  Status ErrorAt(int64_t pos, const std::string& what) const {
    return Status::Corrupt("{}: {} at offset {}", where_, what, base_ + pos);
  }
  int64_t pos() const { return pos_; }
  int64_t end() const { return end_; }

 private:
  const std::string& where_;
  BufferPtr data_;
  int64_t begin_;
  int64_t end_;
  int64_t base_;
  int64_t pos_;
};

Result<ArrayPtr> ReadArray(BlockReader& r, const TypePtr& type) {
  const int64_t start = r.pos();
  FLOE_ASSIGN_OR_RAISE(uint8_t id, r.U8());
  if (id != static_cast<uint8_t>(type->id())) {
    return r.ErrorAt(start, "column of type id " + std::to_string(id) + " where " +
                                type->ToString() + " was expected");
  }
  FLOE_ASSIGN_OR_RAISE(uint64_t n64, r.U64());
  FLOE_ASSIGN_OR_RAISE(uint64_t nulls64, r.U64());
  r.Pad();
  if (n64 > kMaxArrayLength || nulls64 > n64) {
    return r.ErrorAt(start, "bad array length " + std::to_string(n64) + " with " +
                                std::to_string(nulls64) + " nulls");
  }
  const int64_t n = static_cast<int64_t>(n64);
  const int64_t nulls = static_cast<int64_t>(nulls64);
  std::vector<BufferPtr> buffers(static_cast<size_t>(NumBuffers(type->id())));
  std::vector<ArrayPtr> children;
  const uint64_t bitmap_bytes = static_cast<uint64_t>(bit_util::BytesForBits(n));
  if (nulls > 0) {
    const int64_t at = r.pos();
    FLOE_ASSIGN_OR_RAISE(buffers[0], r.Bytes(bitmap_bytes, "validity"));
    if (n - bit_util::CountSetBits(buffers[0]->data(), 0, n) != nulls) {
      return r.ErrorAt(at,
                       "validity bitmap disagrees with the null count " + std::to_string(nulls));
    }
  }
  auto read_offsets = [&](int64_t* last) -> Status {
    const int64_t at = r.pos();
    FLOE_ASSIGN_OR_RAISE(buffers[1], r.Bytes((n64 + 1) * 4, "offsets"));
    const int32_t* off = buffers[1]->data_as<int32_t>();
    if (off[0] != 0) return r.ErrorAt(at, "offsets not starting at 0");
    for (int64_t i = 0; i < n; ++i) {
      if (off[i + 1] < off[i]) return r.ErrorAt(at, "decreasing offsets");
    }
    *last = off[n];
    return Status::OK();
  };
  switch (type->id()) {
    case TypeId::kBoolean: {
      FLOE_ASSIGN_OR_RAISE(buffers[1], r.Bytes(bitmap_bytes, "values"));
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      int64_t last;
      FLOE_RETURN_NOT_OK(read_offsets(&last));
      FLOE_ASSIGN_OR_RAISE(buffers[2], r.Bytes(static_cast<uint64_t>(last), "data"));
      break;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      int64_t last;
      FLOE_RETURN_NOT_OK(read_offsets(&last));
      TypePtr child_type =
          type->id() == TypeId::kList ? type->field(0).type() : type->map_entries_type();
      const int64_t at = r.pos();
      FLOE_ASSIGN_OR_RAISE(ArrayPtr child, ReadArray(r, child_type));
      if (child->length() != last) {
        return r.ErrorAt(at, "list child of " + std::to_string(child->length()) +
                                 " values where the offsets end at " + std::to_string(last));
      }
      children.push_back(std::move(child));
      break;
    }
    case TypeId::kStruct:
      for (int f = 0; f < type->num_fields(); ++f) {
        const int64_t at = r.pos();
        FLOE_ASSIGN_OR_RAISE(ArrayPtr child, ReadArray(r, type->field(f).type()));
        if (child->length() != n) {
          return r.ErrorAt(at, "struct field of " + std::to_string(child->length()) +
                                   " values in a struct of " + std::to_string(n));
        }
        children.push_back(std::move(child));
      }
      break;
    default: {
      const uint64_t width = static_cast<uint64_t>(type->byte_width());
      // Checked before multiplying: n * width could overflow 64 bits.
      if (width > 0 && n64 > static_cast<uint64_t>(r.remaining()) / width) {
        return r.ErrorAt(start, "array of " + std::to_string(n64) + " values of " +
                                    std::to_string(width) + " bytes past the end of the batch");
      }
      FLOE_ASSIGN_OR_RAISE(buffers[1], r.Bytes(n64 * width, "values"));
      break;
    }
  }
  auto made = Array::Make(type, n, std::move(buffers), std::move(children), nulls);
  if (!made.ok()) return r.ErrorAt(start, "invalid array (" + made.status().message() + ")");
  return made;
}

// Decodes the block [begin, end) of `data` (without its length prefix).
Result<RecordBatchPtr> DecodeBlock(const std::string& where, const BufferPtr& data, int64_t begin,
                                   int64_t end, int64_t base, const SchemaPtr& schema) {
  BlockReader r(where, data, begin, end, base);
  FLOE_ASSIGN_OR_RAISE(uint64_t rows, r.U64());
  if (rows > kMaxArrayLength) return r.ErrorAt(begin, "bad row count " + std::to_string(rows));
  std::vector<ArrayPtr> columns;
  columns.reserve(static_cast<size_t>(schema->num_fields()));
  for (int c = 0; c < schema->num_fields(); ++c) {
    const int64_t at = r.pos();
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, ReadArray(r, schema->field(c).type()));
    if (static_cast<uint64_t>(a->length()) != rows) {
      return r.ErrorAt(at, "column " + std::to_string(c) + " of " + std::to_string(a->length()) +
                               " values in a batch of " + std::to_string(rows) + " rows");
    }
    columns.push_back(std::move(a));
  }
  if (r.pos() != r.end()) return r.Error("trailing bytes in batch");
  auto batch = RecordBatch::Make(schema, static_cast<int64_t>(rows), std::move(columns));
  if (!batch.ok()) return r.ErrorAt(begin, "invalid batch (" + batch.status().message() + ")");
  return batch;
}

Result<BufferPtr> AlignedCopy(std::string_view bytes) { return Buffer::CopyOf(bytes); }

Result<std::vector<RecordBatchPtr>> DecodeAligned(const BufferPtr& data, const SchemaPtr& schema,
                                                  const std::string& where, int64_t max_batches) {
  std::vector<RecordBatchPtr> batches;
  const int64_t size = data->size();
  int64_t pos = 0;
  while (pos < size) {
    if (static_cast<int64_t>(batches.size()) == max_batches) {
      return Status::Corrupt("{}: trailing bytes after the batch at offset {}", where, pos);
    }
    if (size - pos < 8) {
      return Status::Corrupt("{}: truncated batch length at offset {}", where, pos);
    }
    uint64_t len;
    std::memcpy(&len, data->data() + pos, 8);
    if (len % 8 != 0 || len < 8 || len > static_cast<uint64_t>(size - pos - 8)) {
      return Status::Corrupt("{}: batch of {} bytes at offset {} where {} bytes remain", where, len,
                             pos, size - pos - 8);
    }
    const int64_t begin = pos + 8;
    const int64_t end = begin + static_cast<int64_t>(len);
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, DecodeBlock(where, data, begin, end, 0, schema));
    batches.push_back(std::move(batch));
    pos = end;
  }
  return batches;
}

Status WriteAll(int fd, const std::string& path, const char* p, size_t n) {
  while (n > 0) {
    ssize_t k = ::write(fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      return Status::IOError("spill file {}: write failed: {}", path, std::strerror(errno));
    }
    p += k;
    n -= static_cast<size_t>(k);
  }
  return Status::OK();
}

class SpillReader final : public BatchStream {
 public:
  SpillReader(std::string path, SchemaPtr schema, int fd, int64_t offset, int64_t file_size)
      : path_(std::move(path)),
        where_("spill file " + path_),
        schema_(std::move(schema)),
        fd_(fd),
        offset_(offset),
        file_size_(file_size) {}
  ~SpillReader() override {
    if (fd_ >= 0) ::close(fd_);
  }
  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (fd_ < 0) return RecordBatchPtr();
    uint64_t len;
    FLOE_RETURN_NOT_OK(ReadExact(&len, 8));
    if (len == 0) {
      ::close(fd_);
      fd_ = -1;
      return RecordBatchPtr();
    }
    // The block must fit in the file (before its end marker): this bounds the allocation.
    if (len % 8 != 0 || len > static_cast<uint64_t>(file_size_ - offset_)) {
      return Status::Corrupt("spill file {}: batch of {} bytes at offset {} where {} remain", path_,
                             len, offset_ - 8, file_size_ - offset_);
    }
    // Read into memory that is not zeroed first: the read fills all of it.
    BufferBuilder builder;
    FLOE_RETURN_NOT_OK(builder.Reserve(static_cast<int64_t>(len)));
    const int64_t block_offset = offset_;
    FLOE_RETURN_NOT_OK(ReadExact(builder.mutable_data(), static_cast<size_t>(len)));
    builder.UnsafeAdvance(static_cast<int64_t>(len));
    FLOE_ASSIGN_OR_RAISE(BufferPtr block, builder.Finish());
    return DecodeBlock(where_, block, 0, static_cast<int64_t>(len), block_offset, schema_);
  }

 private:
  Status ReadExact(void* p, size_t n) {
    char* out = static_cast<char*>(p);
    size_t got = 0;
    while (got < n) {
      ssize_t k = ::read(fd_, out + got, n - got);
      if (k < 0) {
        if (errno == EINTR) continue;
        return Status::IOError("spill file {}: read failed at offset {}: {}", path_,
                               offset_ + static_cast<int64_t>(got), std::strerror(errno));
      }
      if (k == 0) {
        return Status::Corrupt("spill file {}: unexpected end of file at offset {}", path_,
                               offset_ + static_cast<int64_t>(got));
      }
      got += static_cast<size_t>(k);
    }
    offset_ += static_cast<int64_t>(n);
    return Status::OK();
  }

  std::string path_;
  std::string where_;
  SchemaPtr schema_;
  int fd_;
  int64_t offset_;
  int64_t file_size_;
};

}  // namespace

namespace {

// Encodes `batch` at `out` (null: only counts); the bytes it takes.
Result<int64_t> EncodeBatch(const RecordBatch& batch, uint8_t* out) {
  BlockWriter w(out);
  w.U64(0);  // the block length, set below
  w.U64(static_cast<uint64_t>(batch.num_rows()));
  for (const auto& c : batch.columns()) FLOE_RETURN_NOT_OK(WriteArray(w, *c));
  const uint64_t len = w.size() - 8;
  if (out != nullptr) std::memcpy(out, &len, 8);
  return static_cast<int64_t>(w.size());
}

}  // namespace

Result<int64_t> EncodedBatchSize(const RecordBatch& batch) { return EncodeBatch(batch, nullptr); }

Status AppendEncodedBatch(const RecordBatch& batch, std::string* out) {
  FLOE_ASSIGN_OR_RAISE(int64_t size, EncodedBatchSize(batch));
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(size));
  return EncodeBatch(batch, reinterpret_cast<uint8_t*>(out->data() + start)).status();
}

Status AppendEncodedBatch(const RecordBatch& batch, BufferBuilder* out, int64_t encoded_size) {
  int64_t size = encoded_size;
  if (size < 0) {
    FLOE_ASSIGN_OR_RAISE(size, EncodedBatchSize(batch));
  }
  FLOE_RETURN_NOT_OK(out->Reserve(size));
  FLOE_RETURN_NOT_OK(EncodeBatch(batch, out->mutable_data() + out->size()).status());
  out->UnsafeAdvance(size);
  return Status::OK();
}

Result<RecordBatchPtr> DecodeBatch(std::string_view bytes, const SchemaPtr& schema,
                                   const std::string& where) {
  if (bytes.empty()) return Status::Corrupt("{}: no batch at offset 0", where);
  FLOE_ASSIGN_OR_RAISE(BufferPtr data, AlignedCopy(bytes));
  FLOE_ASSIGN_OR_RAISE(auto batches, DecodeAligned(data, schema, where, 1));
  return batches[0];
}

Result<std::vector<RecordBatchPtr>> DecodeBatches(std::string_view bytes, const SchemaPtr& schema,
                                                  const std::string& where) {
  if (bytes.empty()) return std::vector<RecordBatchPtr>{};
  FLOE_ASSIGN_OR_RAISE(BufferPtr data, AlignedCopy(bytes));
  return DecodeAligned(data, schema, where, -1);
}

Result<std::vector<RecordBatchPtr>> DecodeBatches(const BufferPtr& bytes, const SchemaPtr& schema,
                                                  const std::string& where) {
  if (reinterpret_cast<uintptr_t>(bytes->data()) % 8 != 0) {
    return DecodeBatches(bytes->view(), schema, where);
  }
  return DecodeAligned(bytes, schema, where, -1);
}

namespace {

// The process's live spill directories.
// Spill files are created under its mutex, so none is created once the directories are gone.
struct SpillDirectoryRegistry {
  std::mutex mutex;
  std::set<std::string> paths;
  std::set<std::string> swept;  // the bases searched for abandoned directories
  bool terminated = false;
};

SpillDirectoryRegistry& Registry() {
  static auto* registry = new SpillDirectoryRegistry();  // never destroyed: used at exit
  return *registry;
}

}  // namespace

Result<std::unique_ptr<SpillWriter>> SpillWriter::Make(std::string path, SchemaPtr schema) {
  int fd = -1;
  {
    SpillDirectoryRegistry& registry = Registry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    if (registry.terminated) return Status::Cancelled("the process is terminating");
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  }
  if (fd < 0) {
    return Status::IOError("cannot create spill file {}: {}", path, std::strerror(errno));
  }
  std::unique_ptr<SpillWriter> w(new SpillWriter(std::move(path), std::move(schema), fd));
  FLOE_RETURN_NOT_OK(WriteAll(fd, w->path_, kMagic, 8));
  w->bytes_ = 8;
  return w;
}

SpillWriter::~SpillWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Result<int64_t> SpillWriter::Write(const RecordBatch& batch) {
  if (fd_ < 0) return Status::Internal("spill file {}: write after Finish", path_);
  if (batch.num_columns() != schema_->num_fields()) {
    return Status::Internal("spill file {}: batch of {} columns for a schema of {}", path_,
                            batch.num_columns(), schema_->num_fields());
  }
  scratch_.Reset();
  FLOE_RETURN_NOT_OK(AppendEncodedBatch(batch, &scratch_));
  FLOE_RETURN_NOT_OK(WriteAll(fd_, path_, reinterpret_cast<const char*>(scratch_.data()),
                              static_cast<size_t>(scratch_.size())));
  const int64_t written = scratch_.size();
  bytes_ += written;
  // A very large batch's scratch space is not kept for the next one.
  if (scratch_.capacity() > (int64_t{64} << 20)) scratch_ = BufferBuilder();
  return written;
}

int64_t MergeCursorBytes(int64_t encoded_bytes, int64_t key_bytes) {
  return 2 * (DefaultMemoryPool()->BlockBytes(encoded_bytes) + key_bytes);
}

Result<int64_t> SpillWriter::Finish() {
  if (fd_ < 0) return bytes_;
  uint64_t end = 0;
  FLOE_RETURN_NOT_OK(WriteAll(fd_, path_, reinterpret_cast<const char*>(&end), 8));
  bytes_ += 8;
  if (::close(fd_) != 0) {
    fd_ = -1;
    return Status::IOError("spill file {}: close failed: {}", path_, std::strerror(errno));
  }
  fd_ = -1;
  return bytes_;
}

Result<BatchStreamPtr> OpenSpillFile(const std::string& path, SchemaPtr schema) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("cannot open spill file {}: {}", path, std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return Status::IOError("cannot stat spill file {}: {}", path, std::strerror(err));
  }
  char magic[8];
  ssize_t k = ::read(fd, magic, 8);
  if (k != 8 || std::memcmp(magic, kMagic, 8) != 0) {
    ::close(fd);
    return Status::Corrupt("spill file {}: bad magic at offset 0", path);
  }
  return std::make_unique<SpillReader>(path, std::move(schema), fd, 8,
                                       static_cast<int64_t>(st.st_size));
}

std::string NewSpillPath(const std::string& directory, const std::string& prefix) {
  static std::atomic<int64_t> counter{0};
  std::string dir = directory.empty() ? std::filesystem::temp_directory_path().string() : directory;
  return dir + "/" + prefix + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1)) + ".spill";
}

namespace {

constexpr const char* kSpillDirectoryPrefix = "floe-spill-";
constexpr const char* kLockFile = ".lock";

// Removes `path` and everything in it. Its owners may still delete files in it meanwhile
// (remove_all stops at a file that vanished under it), so it tries again while it can.
void RemoveTree(const std::string& path) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    if (!std::filesystem::exists(path, ec) && !ec) return;
  }
}

// Removes the spill directories in `base` that their process left behind: one it could not
// remove because it was killed (SIGKILL, or mpirun ending a job). A live directory's lock
// file is held (flock) by its process as long as the directory exists, and the kernel
// releases it when the process dies however it dies, so a lock that can be taken marks an
// abandoned directory; one without a lock file is not floe's to remove.
void SweepAbandoned(const std::string& base) {
  std::error_code ec;
  std::filesystem::directory_iterator it(base, ec);
  if (ec) return;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return;
    const std::string name = it->path().filename().string();
    if (name.rfind(kSpillDirectoryPrefix, 0) != 0) continue;
    const std::string lock = it->path().string() + "/" + kLockFile;
    int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) RemoveTree(it->path().string());
    ::close(fd);
  }
}

}  // namespace

// A directory becomes visible under its final name only with its lock held: it is made
// under a name the sweep passes over (a leading dot), locked, then renamed, so no other
// process's sweep can take a directory that is being created for abandoned.
Result<std::unique_ptr<SpillDirectory>> SpillDirectory::Make(const std::string& base,
                                                             const std::string& tag) {
  std::error_code ec;
  std::string root = base;
  if (root.empty()) root = std::filesystem::temp_directory_path(ec).string();
  if (ec) return Status::IOError("no temporary directory for spill files: {}", ec.message());
  const std::string name = kSpillDirectoryPrefix + std::to_string(::getpid()) + "-" + tag;
  std::string path = root + "/" + name;
  const std::string staging = root + "/." + name;
  SpillDirectoryRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (registry.terminated) return Status::Cancelled("the process is terminating");
  if (registry.swept.insert(root).second) SweepAbandoned(root);
  std::filesystem::create_directories(root, ec);
  if (ec) return Status::IOError("cannot create the spill directory {}: {}", root, ec.message());
  RemoveTree(staging);  // this process's own, left by a Make that failed half-way
  if (::mkdir(staging.c_str(), 0700) != 0) {
    return Status::IOError("cannot create the spill directory {}: {}", staging,
                           std::strerror(errno));
  }
  const std::string lock_path = staging + "/" + kLockFile;
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0 ||
      ::rename(staging.c_str(), path.c_str()) != 0) {
    Status error =
        Status::IOError("cannot create the spill directory {}: {}", path, std::strerror(errno));
    if (fd >= 0) ::close(fd);
    RemoveTree(staging);
    return error;
  }
  registry.paths.insert(path);
  return std::unique_ptr<SpillDirectory>(new SpillDirectory(std::move(path), fd));
}

// The tree goes under the registry's lock although that holds up other queries' spill files
// meanwhile: removed outside it, a termination could exit between the erase and the removal
// and leave the directory behind.
SpillDirectory::~SpillDirectory() {
  SpillDirectoryRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  RemoveTree(path_);
  registry.paths.erase(path_);
  ::close(lock_fd_);  // after the removal: until then no sweep may take the directory
}

int RemoveSpillDirectories() {
  SpillDirectoryRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.terminated = true;
  int removed = 0;
  for (const std::string& path : registry.paths) {
    RemoveTree(path);
    ++removed;
  }
  registry.paths.clear();
  return removed;
}

}  // namespace floe::exec
