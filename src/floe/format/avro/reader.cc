#include "floe/format/avro/reader.h"

#include <fmt/format.h>
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <optional>

#include "floe/batch/builder.h"
#include "floe/format/avro/encoding_internal.h"
#include "floe/format/avro/reader_internal.h"
#include "floe/format/compression/codec.h"

namespace floe::avro {

using internal::ReadVarLong;

namespace {

constexpr char kMagic[4] = {'O', 'b', 'j', 1};

// A bounded cursor over the header bytes.
struct HeaderCursor {
  const uint8_t* p;
  const uint8_t* begin;
  const uint8_t* end;
  const std::string& path;

  int64_t offset() const { return p - begin; }
  Status Corrupt(std::string_view what) const {
    return Status::Corrupt("Avro file {}: {} at byte offset {}", path, what, offset());
  }
  Result<int64_t> Long(std::string_view what) {
    int64_t v;
    if (!ReadVarLong(p, end, &v)) return Corrupt(fmt::format("truncated or overlong {}", what));
    return v;
  }
  Result<std::string_view> Bytes(std::string_view what) {
    FLOE_ASSIGN_OR_RAISE(int64_t n, Long(what));
    if (n < 0 || n > end - p) {
      return Corrupt(fmt::format("{} length {} exceeds the {} bytes left", what, n, end - p));
    }
    std::string_view s(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    p += n;
    return s;
  }
};

}  // namespace

const std::string* AvroFileReader::metadata_value(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {

// The writer schemas parsed last, by their JSON text: a table's manifests repeat a few
// schemas (one per partition spec and format version), and planning opens thousands of
// them. Parsed nodes are immutable and shared.
Result<AvroNodePtr> ParseWriterSchema(const std::string& text) {
  constexpr size_t kEntries = 8;
  static std::mutex mutex;
  static std::array<std::pair<std::string, AvroNodePtr>, kEntries> entries;
  static size_t next = 0;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& [cached, node] : entries) {
      if (node != nullptr && cached == text) return node;
    }
  }
  FLOE_ASSIGN_OR_RAISE(AvroNodePtr node, ParseAvroSchema(text));
  std::lock_guard<std::mutex> lock(mutex);
  entries[next] = {text, node};
  next = (next + 1) % kEntries;
  return node;
}

}  // namespace

Result<std::unique_ptr<AvroFileReader>> AvroFileReader::Open(
    std::shared_ptr<io::RandomAccessFile> file) {
  std::unique_ptr<AvroFileReader> r(new AvroFileReader());
  r->file_ = std::move(file);
  const std::string& path = r->file_->path();
  int64_t size = r->file_->size();
  if (size < 4 + 1 + 16) {
    return Status::Corrupt("Avro file {}: {} bytes is too short for a container header", path,
                           size);
  }
  FLOE_ASSIGN_OR_RAISE(r->bytes_, r->file_->ReadAt(0, size));
  const uint8_t* data = r->bytes_->data();
  if (std::memcmp(data, kMagic, 4) != 0) {
    return Status::Corrupt("Avro file {}: bad magic (not an Avro object container file)", path);
  }
  HeaderCursor c{data + 4, data, data + size, path};
  while (true) {
    FLOE_ASSIGN_OR_RAISE(int64_t count, c.Long("metadata block count"));
    if (count == 0) break;
    if (count < 0) {
      if (count == INT64_MIN) return c.Corrupt("metadata block count out of range");
      count = -count;
      FLOE_ASSIGN_OR_RAISE(int64_t block_bytes, c.Long("metadata block size"));
      if (block_bytes < 0 || block_bytes > c.end - c.p) {
        return c.Corrupt(fmt::format("metadata block size {} is out of range", block_bytes));
      }
    }
    // Each entry takes at least two bytes (two empty lengths).
    if (count > (c.end - c.p) / 2) {
      return c.Corrupt(fmt::format("metadata block count {} exceeds the file size", count));
    }
    for (int64_t i = 0; i < count; ++i) {
      FLOE_ASSIGN_OR_RAISE(std::string_view key, c.Bytes("metadata key"));
      FLOE_ASSIGN_OR_RAISE(std::string_view value, c.Bytes("metadata value"));
      r->metadata_.emplace_back(std::string(key), std::string(value));
    }
  }
  if (c.end - c.p < 16) return c.Corrupt("truncated sync marker");
  std::memcpy(r->sync_.data(), c.p, 16);
  c.p += 16;
  r->data_start_ = c.offset();

  const std::string* schema = r->metadata_value("avro.schema");
  if (schema == nullptr) {
    return Status::Corrupt("Avro file {}: header has no avro.schema", path);
  }
  r->schema_json_ = *schema;
  auto parsed = ParseWriterSchema(r->schema_json_);
  if (!parsed.has_value()) {
    return Status::Corrupt("Avro file {}: bad writer schema: {}", path, parsed.error().message());
  }
  r->schema_ = std::move(*parsed);
  if (const std::string* codec = r->metadata_value("avro.codec"); codec && !codec->empty()) {
    r->codec_ = *codec;
  }
  auto codec = internal::CodecFromName(r->codec_);
  if (!codec.has_value()) return codec.error().WithPrefix(fmt::format("Avro file {}: ", path));
  return r;
}

Result<Schema> AvroFileReader::FileSchema() const { return AvroToFloeSchema(*schema_); }

namespace internal {

Result<std::optional<compression::CodecKind>> CodecFromName(std::string_view name) {
  if (name == "null") return std::optional<compression::CodecKind>();
  if (name == "deflate") return std::optional(compression::CodecKind::kDeflate);
  if (name == "snappy") return std::optional(compression::CodecKind::kSnappy);
  if (name == "zstandard" || name == "zstd") return std::optional(compression::CodecKind::kZstd);
  return Status::NotSupported("Avro codec '{}' is not supported", name);
}

}  // namespace internal

// ---------------------------------------------------------------------------------
// The batch stream.

namespace {

// Inflates the raw deflate data (RFC 1951) of Avro's "deflate" codec with libdeflate's
// whole-buffer decompressor (about twice zlib's speed on 64 KiB blocks, and cheaper table
// set-up on the one-record blocks some writers make), into one buffer reused from block to
// block: its first size is a guess from the compressed size, and it keeps the largest size
// a block needed, so blocks of a similar size inflate in a single call. Avro does not store
// a block's inflated size: when the output does not fit, the buffer doubles (up to
// `max_output`) and the block inflates again.
class Inflater {
 public:
  Inflater() = default;
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  ~Inflater() {
    if (decompressor_ != nullptr) libdeflate_free_decompressor(decompressor_);
  }

  // Inflates `in`, at most `max_output` bytes; the output is [data(), data() + size).
  Status Inflate(std::span<const uint8_t> in, int64_t max_output) {
    if (decompressor_ == nullptr) {
      decompressor_ = libdeflate_alloc_decompressor();
      if (decompressor_ == nullptr) {
        return Status::OutOfMemory("cannot allocate a deflate decompressor");
      }
    }
    if (capacity_ == 0) {
      FLOE_RETURN_NOT_OK(
          Grow(std::min<int64_t>(static_cast<int64_t>(in.size()) * 4 + 4096, max_output)));
    }
    while (true) {
      size_t produced = 0;
      const libdeflate_result rc = libdeflate_deflate_decompress(
          decompressor_, in.data(), in.size(), buffer_.get(),
          static_cast<size_t>(std::min(capacity_, max_output)), &produced);
      if (rc == LIBDEFLATE_SUCCESS) {
        size_ = static_cast<int64_t>(produced);
        return Status::OK();
      }
      if (rc != LIBDEFLATE_INSUFFICIENT_SPACE) {
        return Status::Corrupt("malformed or truncated deflate data ({} compressed bytes)",
                               in.size());
      }
      if (capacity_ >= max_output) {
        return Status::Corrupt("{} compressed bytes inflate to more than {} bytes", in.size(),
                               max_output);
      }
      FLOE_RETURN_NOT_OK(Grow(std::min(capacity_ * 2, max_output)));
    }
  }

  const uint8_t* data() const { return buffer_.get(); }
  int64_t size() const { return size_; }

 private:
  // Replaces the buffer by one of `capacity` bytes (a retry inflates the block again).
  Status Grow(int64_t capacity) {
    buffer_.reset();
    buffer_.reset(new (std::nothrow) uint8_t[static_cast<size_t>(capacity)]);
    if (buffer_ == nullptr) {
      capacity_ = 0;
      return Status::OutOfMemory("cannot allocate {} bytes for an inflated block", capacity);
    }
    capacity_ = capacity;
    return Status::OK();
  }

  libdeflate_decompressor* decompressor_ = nullptr;
  std::unique_ptr<uint8_t[]> buffer_;
  int64_t capacity_ = 0;
  int64_t size_ = 0;
};

class AvroBatchReader final : public RecordBatchReader {
 public:
  AvroBatchReader(std::shared_ptr<io::RandomAccessFile> file, BufferPtr bytes, int64_t start,
                  std::array<uint8_t, 16> sync, std::optional<compression::CodecKind> codec,
                  SchemaPtr target, int64_t batch_size, bool record_may_be_empty)
      : file_(std::move(file)),
        bytes_(std::move(bytes)),
        pos_(start),
        sync_(sync),
        codec_(codec),
        schema_(std::move(target)),
        batch_size_(batch_size),
        record_may_be_empty_(record_may_be_empty) {}

  Status Init(const AvroNode& file_schema) {
    std::vector<ArrayBuilder*> raw;
    for (const Field& f : schema_->fields()) {
      builders_.push_back(MakeBuilder(f.type()));
      raw.push_back(builders_.back().get());
    }
    FLOE_ASSIGN_OR_RAISE(plan_, internal::CompileRecord(file_schema, schema_->fields(), raw, ""));
    CollectBuilders(plan_);
    AttachSinks();
    if (codec_ && *codec_ != compression::CodecKind::kDeflate) {
      FLOE_ASSIGN_OR_RAISE(decompressor_, compression::Decompressor::Make(*codec_));
    }
    return Status::OK();
  }

  const SchemaPtr& schema() const override { return schema_; }

  // Gives each int-keyed metric map op a sink of its own where that keeps the values in
  // order: nothing but the op and NULLs of its own union may append to the map builder,
  // and no enclosing struct may be appended as NULL (which appends to its fields).
  void AttachSinks() {
    std::vector<const ArrayBuilder*> nulled;
    std::vector<std::pair<const ArrayBuilder*, int>> appenders;
    CountAppenders(plan_, &nulled, &appenders);
    auto count_of = [&](const ArrayBuilder* b) {
      for (const auto& [builder, n] : appenders) {
        if (builder == b) return n;
      }
      return 0;
    };
    std::vector<internal::Op*> fast;
    FindSinkable(plan_, false, nulled, &fast);
    for (internal::Op* op : fast) {
      if (count_of(op->builder) != 1) continue;
      sinks_.push_back(std::make_unique<internal::IntMapSink>(
          static_cast<MapBuilder*>(op->builder), op->code == internal::OpCode::kMapIntBinary,
          op->builder->pool()));
      op->sink = sinks_.back().get();
      RouteNulls(plan_, op->builder, op->sink);
    }
  }

  // Builders that kAppendNull ops target, and how many other ops target each builder.
  static void CountAppenders(const internal::Op& op, std::vector<const ArrayBuilder*>* nulled,
                             std::vector<std::pair<const ArrayBuilder*, int>>* appenders) {
    if (op.builder != nullptr) {
      if (op.code == internal::OpCode::kAppendNull) {
        nulled->push_back(op.builder);
      } else if (op.code != internal::OpCode::kUnion) {
        auto it = std::find_if(appenders->begin(), appenders->end(),
                               [&](const auto& e) { return e.first == op.builder; });
        if (it == appenders->end()) {
          appenders->emplace_back(op.builder, 1);
        } else {
          ++it->second;
        }
      }
    }
    for (const ArrayBuilder* m : op.missing) nulled->push_back(m);
    for (const internal::Op& c : op.children) CountAppenders(c, nulled, appenders);
  }

  static void FindSinkable(internal::Op& op, bool nulled_ancestor,
                           const std::vector<const ArrayBuilder*>& nulled,
                           std::vector<internal::Op*>* out) {
    if (op.code == internal::OpCode::kMapIntLong || op.code == internal::OpCode::kMapIntBinary) {
      if (!nulled_ancestor) out->push_back(&op);
      return;
    }
    if (op.code == internal::OpCode::kStruct &&
        std::find(nulled.begin(), nulled.end(), op.builder) != nulled.end()) {
      nulled_ancestor = true;
    }
    for (internal::Op& c : op.children) FindSinkable(c, nulled_ancestor, nulled, out);
  }

  static void RouteNulls(internal::Op& op, const ArrayBuilder* builder,
                         internal::IntMapSink* sink) {
    if (op.code == internal::OpCode::kAppendNull && op.builder == builder) {
      op.code = internal::OpCode::kIntMapNull;
      op.sink = sink;
    }
    for (internal::Op& c : op.children) RouteNulls(c, builder, sink);
  }

  // Every builder the plan appends to (each once), for capacity hints.
  void CollectBuilders(const internal::Op& op) {
    if (op.builder != nullptr &&
        std::find(nested_.begin(), nested_.end(), op.builder) == nested_.end()) {
      nested_.push_back(op.builder);
    }
    for (const internal::Op& c : op.children) CollectBuilders(c);
  }

  Result<RecordBatchPtr> Next() override {
    if (!failed_.ok()) return failed_;
    auto result = NextImpl();
    if (!result.has_value()) failed_ = result.error();
    return result;
  }

 private:
  Status Corrupt(std::string_view what, int64_t offset) const {
    return Status::Corrupt("Avro file {}: {} at byte offset {}", file_->path(), what, offset);
  }

  // Reads the next block header and payload; false at the end of the file.
  Result<bool> NextBlock() {
    const uint8_t* base = bytes_->data();
    int64_t size = bytes_->size();
    if (pos_ >= size) return false;
    const uint8_t* p = base + pos_;
    const uint8_t* end = base + size;
    block_offset_ = pos_;
    int64_t count, bytes;
    if (!internal::ReadVarLong(p, end, &count)) return Corrupt("truncated block count", pos_);
    if (!internal::ReadVarLong(p, end, &bytes)) return Corrupt("truncated block size", pos_);
    if (count < 0) return Corrupt(fmt::format("negative block count {}", count), pos_);
    if (bytes < 0 || bytes > end - p - 16) {
      return Corrupt(
          fmt::format("block size {} exceeds the {} bytes left in the file", bytes, end - p), pos_);
    }
    const uint8_t* data = p;
    p += bytes;
    if (std::memcmp(p, sync_.data(), 16) != 0) {
      return Corrupt("sync marker mismatch", p - base);
    }
    pos_ = p + 16 - base;
    if (!codec_) {
      block_begin_ = data;
      block_end_ = data + bytes;
    } else if (*codec_ == compression::CodecKind::kDeflate) {
      int64_t max_out = std::min<int64_t>(bytes * 1100 + (1 << 20), int64_t{1} << 31);
      Status s =
          inflater_.Inflate(std::span<const uint8_t>(data, static_cast<size_t>(bytes)), max_out);
      if (!s.ok()) {
        return Corrupt(fmt::format("cannot decompress block: {}", s.message()), block_offset_);
      }
      block_begin_ = inflater_.data();
      block_end_ = inflater_.data() + inflater_.size();
    } else {
      scratch_.clear();
      std::span<const uint8_t> in(data, static_cast<size_t>(bytes));
      if (*codec_ == compression::CodecKind::kSnappy) {
        if (bytes < 4) return Corrupt("snappy block shorter than its CRC", block_offset_);
        in = in.first(in.size() - 4);
      }
      // Bounded by the data's own size: no codec here expands more than ~1000 times.
      int64_t max_out = std::min<int64_t>(bytes * 1100 + (1 << 20), int64_t{1} << 31);
      Status s = decompressor_->DecompressBounded(in, max_out, &scratch_);
      if (!s.ok()) {
        return Corrupt(fmt::format("cannot decompress block: {}", s.message()), block_offset_);
      }
      if (*codec_ == compression::CodecKind::kSnappy) {
        const uint8_t* c = data + bytes - 4;
        uint32_t want = (uint32_t{c[0]} << 24) | (uint32_t{c[1]} << 16) | (uint32_t{c[2]} << 8) |
                        uint32_t{c[3]};
        uint32_t got =
            static_cast<uint32_t>(crc32(0, scratch_.data(), static_cast<uInt>(scratch_.size())));
        if (want != got) {
          return Corrupt(
              fmt::format("snappy block CRC32 {:08x} does not match the data's {:08x}", want, got),
              block_offset_);
        }
      }
      block_begin_ = scratch_.data();
      block_end_ = scratch_.data() + scratch_.size();
    }
    int64_t limit = record_may_be_empty_ ? (int64_t{1} << 24) : (block_end_ - block_begin_);
    if (count > limit) {
      return Corrupt(fmt::format("block count {} exceeds the block's {} bytes", count,
                                 block_end_ - block_begin_),
                     block_offset_);
    }
    remaining_ = count;
    cursor_ = block_begin_;
    return true;
  }

  Result<RecordBatchPtr> NextImpl() {
    int64_t rows = 0;
    while (rows < batch_size_) {
      if (remaining_ == 0) {
        if (cursor_ != block_end_) {
          return Corrupt(
              fmt::format("{} bytes left over after the block's records", block_end_ - cursor_),
              block_offset_);
        }
        FLOE_ASSIGN_OR_RAISE(bool more, NextBlock());
        if (!more) break;
        continue;
      }
      int64_t n = std::min(remaining_, batch_size_ - rows);
      for (auto& b : builders_) FLOE_RETURN_NOT_OK(b->Reserve(n));
      internal::Decoder dec(block_end_);
      const uint8_t* p = cursor_;
      for (int64_t i = 0; i < n; ++i) {
        if (!dec.Decode(plan_, p)) {
          return Corrupt(fmt::format("record {} of block: {}", i, dec.error().message()),
                         block_offset_);
        }
      }
      cursor_ = p;
      remaining_ -= n;
      rows += n;
    }
    if (rows == 0) return RecordBatchPtr();
    // The next batch will likely need as much room as this one: note each nested
    // builder's size and reserve it again after Finish, so builders do not regrow from
    // empty batch after batch.
    std::vector<std::pair<int64_t, int64_t>> sizes;
    sizes.reserve(nested_.size());
    for (ArrayBuilder* b : nested_) {
      int64_t data =
          b->type()->is_binary_like() ? static_cast<BinaryBuilder*>(b)->data_length() : 0;
      sizes.emplace_back(b->length(), data);
    }
    for (auto& sink : sinks_) FLOE_RETURN_NOT_OK(sink->Flush());
    std::vector<ArrayPtr> columns;
    for (auto& b : builders_) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr a, b->Finish());
      columns.push_back(std::move(a));
    }
    internal::ResetReservations(plan_);
    for (size_t i = 0; i < nested_.size(); ++i) {
      FLOE_RETURN_NOT_OK(nested_[i]->Reserve(sizes[i].first));
      if (sizes[i].second > 0) {
        // With room for one reservation step more, the decoder's step-wise reservations
        // (see AppendBinary) do not double the buffer near the end of a similar batch.
        FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(nested_[i])
                               ->ReserveData(sizes[i].second + internal::kDataReserveStep));
      }
    }
    return RecordBatch::Make(schema_, rows, std::move(columns));
  }

  std::shared_ptr<io::RandomAccessFile> file_;
  BufferPtr bytes_;
  int64_t pos_;
  std::array<uint8_t, 16> sync_;
  std::optional<compression::CodecKind> codec_;
  SchemaPtr schema_;
  int64_t batch_size_;
  bool record_may_be_empty_;
  std::vector<std::unique_ptr<ArrayBuilder>> builders_;
  std::vector<ArrayBuilder*> nested_;
  internal::Op plan_;
  std::vector<std::unique_ptr<internal::IntMapSink>> sinks_;
  std::unique_ptr<compression::Decompressor> decompressor_;
  std::vector<uint8_t> scratch_;
  Inflater inflater_;
  int64_t block_offset_ = 0;
  const uint8_t* block_begin_ = nullptr;
  const uint8_t* block_end_ = nullptr;
  const uint8_t* cursor_ = nullptr;
  int64_t remaining_ = 0;
  Status failed_;
};

}  // namespace

Result<std::unique_ptr<RecordBatchReader>> AvroFileReader::Read(SchemaPtr target,
                                                                int64_t batch_size) const {
  if (batch_size <= 0) return Status::Invalid("Avro read: batch_size must be positive");
  FLOE_ASSIGN_OR_RAISE(auto codec, internal::CodecFromName(codec_));
  auto reader =
      std::make_unique<AvroBatchReader>(file_, bytes_, data_start_, sync_, codec, std::move(target),
                                        batch_size, internal::MinSizeIsZeroForTest(*schema_));
  Status s = reader->Init(*schema_);
  if (!s.ok()) return s.WithPrefix(fmt::format("Avro file {}: ", file_->path()));
  return std::unique_ptr<RecordBatchReader>(std::move(reader));
}

Result<std::vector<RecordBatchPtr>> AvroFileReader::ReadAll(SchemaPtr target,
                                                            int64_t batch_size) const {
  FLOE_ASSIGN_OR_RAISE(auto reader, Read(std::move(target), batch_size));
  std::vector<RecordBatchPtr> out;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->Next());
    if (!b) break;
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace floe::avro
