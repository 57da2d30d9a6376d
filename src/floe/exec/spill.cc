#include "floe/exec/spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "floe/batch/buffer.h"

namespace floe::exec {

// Format: "FLOESPL1", then per batch: u64 block length, then the block: u64 row count,
// then each column (recursively): u8 type id, u64 length, u64 null count, the validity
// bitmap when null count > 0, the value buffers (bitmaps and offsets rebased to start at
// 0), then the children. Every buffer is preceded by its u64 byte length and padded to
// 8 bytes so that values read back are aligned. The file ends with a u64 0.

namespace {

constexpr char kMagic[8] = {'F', 'L', 'O', 'E', 'S', 'P', 'L', '1'};

class BlockWriter {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U64(uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), 8); }
  void Bytes(const void* p, size_t n) {
    U64(n);
    out_.append(static_cast<const char*>(p), n);
    Pad();
  }
  void Pad() {
    while (out_.size() % 8 != 0) out_.push_back(0);
  }
  std::string& str() { return out_; }

 private:
  std::string out_;
};

void WriteBitmap(BlockWriter& w, const uint8_t* bits, int64_t offset, int64_t length) {
  std::string tmp(static_cast<size_t>(bit_util::BytesForBits(length)), '\0');
  if (length > 0) {
    bit_util::CopyBitmap(bits, offset, length, reinterpret_cast<uint8_t*>(tmp.data()), 0);
  }
  w.Bytes(tmp.data(), tmp.size());
}

// Writes offsets [0, length] rebased to start at 0; returns the first and last offsets.
std::pair<int64_t, int64_t> WriteOffsets(BlockWriter& w, const Array& a) {
  const int32_t* off = a.value_offsets();
  const int64_t n = a.length();
  std::vector<int32_t> rebased(static_cast<size_t>(n) + 1);
  for (int64_t i = 0; i <= n; ++i) rebased[i] = off[i] - off[0];
  w.Bytes(rebased.data(), rebased.size() * 4);
  return {off[0], off[n]};
}

void WriteArray(BlockWriter& w, const Array& a) {
  const int64_t n = a.length();
  w.U8(static_cast<uint8_t>(a.type_id()));
  w.U64(static_cast<uint64_t>(n));
  w.U64(static_cast<uint64_t>(a.null_count()));
  w.Pad();
  if (a.null_count() > 0 && a.null_count() != n) {
    WriteBitmap(w, a.validity(), a.offset(), n);
  }
  switch (a.type_id()) {
    case TypeId::kBoolean:
      WriteBitmap(w, a.buffer(1)->data(), a.offset(), n);
      break;
    case TypeId::kString:
    case TypeId::kBinary: {
      auto [b, e] = WriteOffsets(w, a);
      w.Bytes(a.buffer(2)->data() + b, static_cast<size_t>(e - b));
      break;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      auto [b, e] = WriteOffsets(w, a);
      WriteArray(w, *a.child(0)->Slice(b, e - b));
      break;
    }
    case TypeId::kStruct:
      for (int f = 0; f < a.num_children(); ++f) WriteArray(w, *a.field(f));
      break;
    default: {
      const int64_t width = a.type()->byte_width();
      w.Bytes(a.buffer(1)->data() + a.offset() * width, static_cast<size_t>(n * width));
      break;
    }
  }
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

class BlockReader {
 public:
  BlockReader(const std::string& path, BufferPtr block, int64_t file_offset)
      : path_(path), block_(std::move(block)), base_(file_offset) {}

  Status Need(int64_t n) const {
    if (n < 0 || pos_ + n > block_->size()) {
      return Status::Corrupt("spill file {}: truncated or malformed batch at offset {}", path_,
                             base_ + pos_);
    }
    return Status::OK();
  }
  Result<uint8_t> U8() {
    FLOE_RETURN_NOT_OK(Need(1));
    return block_->data()[pos_++];
  }
  Result<uint64_t> U64() {
    FLOE_RETURN_NOT_OK(Need(8));
    uint64_t v;
    std::memcpy(&v, block_->data() + pos_, 8);
    pos_ += 8;
    return v;
  }
  void Pad() { pos_ = (pos_ + 7) & ~int64_t{7}; }
  Result<BufferPtr> Bytes(int64_t expected) {
    FLOE_ASSIGN_OR_RAISE(uint64_t n, U64());
    if (expected >= 0 && n != static_cast<uint64_t>(expected)) {
      return Status::Corrupt(
          "spill file {}: buffer of {} bytes where {} were expected at offset {}", path_, n,
          expected, base_ + pos_ - 8);
    }
    if (n > static_cast<uint64_t>(block_->size())) FLOE_RETURN_NOT_OK(Need(INT64_MAX / 2));
    FLOE_RETURN_NOT_OK(Need(static_cast<int64_t>(n)));
    BufferPtr b = Buffer::Slice(block_, pos_, static_cast<int64_t>(n));
    pos_ += static_cast<int64_t>(n);
    Pad();
    return b;
  }
  Status Error(const std::string& what) const { return ErrorAt(pos_, what); }
  Status ErrorAt(int64_t pos, const std::string& what) const {
    return Status::Corrupt("spill file {}: {} at offset {}", path_, what, base_ + pos);
  }
  int64_t pos() const { return pos_; }
  int64_t size() const { return block_->size(); }

 private:
  const std::string& path_;
  BufferPtr block_;
  int64_t base_;
  int64_t pos_ = 0;
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
  if (n64 > (uint64_t{1} << 40) || nulls64 > n64) return r.Error("bad array length");
  const int64_t n = static_cast<int64_t>(n64);
  const int64_t nulls = static_cast<int64_t>(nulls64);
  std::vector<BufferPtr> buffers(static_cast<size_t>(NumBuffers(type->id())));
  std::vector<ArrayPtr> children;
  const int64_t bitmap_bytes = bit_util::BytesForBits(n);
  if (nulls > 0 && nulls != n) {
    FLOE_ASSIGN_OR_RAISE(buffers[0], r.Bytes(bitmap_bytes));
  } else if (nulls == n && n > 0) {
    FLOE_ASSIGN_OR_RAISE(auto zero, Buffer::AllocateZeroed(bitmap_bytes));
    buffers[0] = std::move(zero);
  }
  auto read_offsets = [&](int64_t* last) -> Status {
    FLOE_ASSIGN_OR_RAISE(buffers[1], r.Bytes((n + 1) * 4));
    const int32_t* off = buffers[1]->data_as<int32_t>();
    if (off[0] != 0) return r.Error("offsets not starting at 0");
    for (int64_t i = 0; i < n; ++i) {
      if (off[i + 1] < off[i]) return r.Error("decreasing offsets");
    }
    *last = off[n];
    return Status::OK();
  };
  switch (type->id()) {
    case TypeId::kBoolean: {
      FLOE_ASSIGN_OR_RAISE(buffers[1], r.Bytes(bitmap_bytes));
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      int64_t last;
      FLOE_RETURN_NOT_OK(read_offsets(&last));
      FLOE_ASSIGN_OR_RAISE(buffers[2], r.Bytes(last));
      break;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      int64_t last;
      FLOE_RETURN_NOT_OK(read_offsets(&last));
      TypePtr child_type =
          type->id() == TypeId::kList ? type->field(0).type() : type->map_entries_type();
      FLOE_ASSIGN_OR_RAISE(ArrayPtr child, ReadArray(r, child_type));
      if (child->length() != last) return r.Error("list child length mismatch");
      children.push_back(std::move(child));
      break;
    }
    case TypeId::kStruct:
      for (int f = 0; f < type->num_fields(); ++f) {
        FLOE_ASSIGN_OR_RAISE(ArrayPtr child, ReadArray(r, type->field(f).type()));
        if (child->length() != n) return r.Error("struct field length mismatch");
        children.push_back(std::move(child));
      }
      break;
    default: {
      FLOE_ASSIGN_OR_RAISE(buffers[1], r.Bytes(n * type->byte_width()));
      break;
    }
  }
  auto made = Array::Make(type, n, std::move(buffers), std::move(children), nulls);
  if (!made.ok()) return r.Error("invalid array (" + made.status().message() + ")");
  return made;
}

class SpillReader final : public BatchStream {
 public:
  SpillReader(std::string path, SchemaPtr schema, int fd, int64_t offset)
      : path_(std::move(path)), schema_(std::move(schema)), fd_(fd), offset_(offset) {}
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
    if (len > (uint64_t{1} << 40)) {
      return Status::Corrupt("spill file {}: batch length {} at offset {}", path_, len,
                             offset_ - 8);
    }
    FLOE_ASSIGN_OR_RAISE(auto block, Buffer::AllocateZeroed(static_cast<int64_t>(len)));
    int64_t block_offset = offset_;
    FLOE_RETURN_NOT_OK(ReadExact(block->mutable_data(), static_cast<size_t>(len)));
    BlockReader r(path_, block, block_offset);
    FLOE_ASSIGN_OR_RAISE(uint64_t rows, r.U64());
    std::vector<ArrayPtr> columns;
    for (int c = 0; c < schema_->num_fields(); ++c) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr a, ReadArray(r, schema_->field(c).type()));
      if (static_cast<uint64_t>(a->length()) != rows) return r.Error("column length mismatch");
      columns.push_back(std::move(a));
    }
    if (r.pos() != r.size()) return r.Error("trailing bytes in batch");
    return RecordBatch::Make(schema_, static_cast<int64_t>(rows), std::move(columns));
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
  SchemaPtr schema_;
  int fd_;
  int64_t offset_;
};

}  // namespace

Result<std::unique_ptr<SpillWriter>> SpillWriter::Make(std::string path, SchemaPtr schema) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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

Status SpillWriter::Write(const RecordBatch& batch) {
  if (fd_ < 0) return Status::Internal("spill file {}: write after Finish", path_);
  if (batch.num_columns() != schema_->num_fields()) {
    return Status::Internal("spill file {}: batch of {} columns for a schema of {}", path_,
                            batch.num_columns(), schema_->num_fields());
  }
  BlockWriter w;
  w.U64(0);  // the block length, patched below
  w.U64(static_cast<uint64_t>(batch.num_rows()));
  for (const auto& c : batch.columns()) WriteArray(w, *c);
  uint64_t len = w.str().size() - 8;
  std::memcpy(w.str().data(), &len, 8);
  FLOE_RETURN_NOT_OK(WriteAll(fd_, path_, w.str().data(), w.str().size()));
  bytes_ += static_cast<int64_t>(w.str().size());
  return Status::OK();
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
  char magic[8];
  ssize_t k = ::read(fd, magic, 8);
  if (k != 8 || std::memcmp(magic, kMagic, 8) != 0) {
    ::close(fd);
    return Status::Corrupt("spill file {}: bad magic at offset 0", path);
  }
  return std::make_unique<SpillReader>(path, std::move(schema), fd, 8);
}

std::string NewSpillPath(const std::string& directory, const std::string& prefix) {
  static std::atomic<int64_t> counter{0};
  std::string dir = directory.empty() ? std::filesystem::temp_directory_path().string() : directory;
  return dir + "/" + prefix + "-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1)) + ".spill";
}

}  // namespace floe::exec
