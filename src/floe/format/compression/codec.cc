#include "floe/format/compression/codec.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace floe::compression {

namespace {

// Growth step for decompression of unknown size: start from a multiple of the input and double.
int64_t InitialGuess(size_t input_size, int64_t max_output) {
  int64_t guess = std::max<int64_t>(static_cast<int64_t>(input_size) * 4, 4096);
  return std::min(guess, max_output);
}

Status SizeMismatch(CodecKind kind, size_t input, int64_t got, size_t expected) {
  return Status::Corrupt("{}: {} compressed bytes decompress to {} bytes, expected {}",
                         CodecName(kind), input, got, expected);
}

Status TooLarge(CodecKind kind, size_t input, int64_t max_output) {
  return Status::Corrupt("{}: {} compressed bytes decompress to more than the limit of {} bytes",
                         CodecName(kind), input, max_output);
}

// ---------------------------------------------------------------------------------------------
// Uncompressed.

class UncompressedDecompressor final : public Decompressor {
 public:
  UncompressedDecompressor() : Decompressor(CodecKind::kUncompressed) {}
  Status Decompress(std::span<const uint8_t> in, std::span<uint8_t> out) override {
    if (in.size() != out.size()) return SizeMismatch(kind(), in.size(), in.size(), out.size());
    if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
    return Status::OK();
  }
  Status DecompressBounded(std::span<const uint8_t> in, int64_t max_output,
                           std::vector<uint8_t>* out) override {
    if (static_cast<int64_t>(in.size()) > max_output)
      return TooLarge(kind(), in.size(), max_output);
    out->insert(out->end(), in.begin(), in.end());
    return Status::OK();
  }
};

class UncompressedCompressor final : public Compressor {
 public:
  UncompressedCompressor() : Compressor(CodecKind::kUncompressed) {}
  Status Compress(std::span<const uint8_t> in, std::vector<uint8_t>* out) override {
    out->insert(out->end(), in.begin(), in.end());
    return Status::OK();
  }
};

// ---------------------------------------------------------------------------------------------
// Snappy.

class SnappyDecompressor final : public Decompressor {
 public:
  SnappyDecompressor() : Decompressor(CodecKind::kSnappy) {}
  Status Decompress(std::span<const uint8_t> in, std::span<uint8_t> out) override {
    const char* src = reinterpret_cast<const char*>(in.data());
    size_t length = 0;
    if (!snappy::GetUncompressedLength(src, in.size(), &length)) {
      return Status::Corrupt("snappy: invalid header in {} compressed bytes", in.size());
    }
    if (length != out.size()) return SizeMismatch(kind(), in.size(), length, out.size());
    if (!snappy::RawUncompress(src, in.size(), reinterpret_cast<char*>(out.data()))) {
      return Status::Corrupt("snappy: malformed data in {} compressed bytes (expected {} bytes)",
                             in.size(), out.size());
    }
    return Status::OK();
  }
  Status DecompressBounded(std::span<const uint8_t> in, int64_t max_output,
                           std::vector<uint8_t>* out) override {
    size_t length = 0;
    if (!snappy::GetUncompressedLength(reinterpret_cast<const char*>(in.data()), in.size(),
                                       &length)) {
      return Status::Corrupt("snappy: invalid header in {} compressed bytes", in.size());
    }
    if (length > static_cast<uint64_t>(max_output)) return TooLarge(kind(), in.size(), max_output);
    size_t start = out->size();
    out->resize(start + length);
    Status st = Decompress(in, std::span<uint8_t>(out->data() + start, length));
    if (!st.ok()) out->resize(start);
    return st;
  }
};

class SnappyCompressor final : public Compressor {
 public:
  SnappyCompressor() : Compressor(CodecKind::kSnappy) {}
  Status Compress(std::span<const uint8_t> in, std::vector<uint8_t>* out) override {
    size_t start = out->size();
    out->resize(start + snappy::MaxCompressedLength(in.size()));
    size_t written = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(in.data()), in.size(),
                        reinterpret_cast<char*>(out->data() + start), &written);
    out->resize(start + written);
    return Status::OK();
  }
};

// ---------------------------------------------------------------------------------------------
// Zlib: gzip and raw deflate.

class ZlibDecompressor final : public Decompressor {
 public:
  explicit ZlibDecompressor(CodecKind kind) : Decompressor(kind) {}
  ~ZlibDecompressor() override {
    if (initialized_) inflateEnd(&stream_);
  }

  Status Decompress(std::span<const uint8_t> in, std::span<uint8_t> out) override {
    int64_t produced = 0;
    FLOE_RETURN_NOT_OK(Run(in, out.data(), static_cast<int64_t>(out.size()), &produced,
                           /*grow=*/nullptr, 0));
    if (produced != static_cast<int64_t>(out.size())) {
      return SizeMismatch(kind(), in.size(), produced, out.size());
    }
    return Status::OK();
  }

  Status DecompressBounded(std::span<const uint8_t> in, int64_t max_output,
                           std::vector<uint8_t>* out) override {
    size_t start = out->size();
    int64_t produced = 0;
    Status st = Run(in, nullptr, 0, &produced, out, max_output);
    if (!st.ok()) out->resize(start);
    return st;
  }

 private:
  Status Reset() {
    int window = kind() == CodecKind::kGzip ? 15 + 32 : -15;
    if (!initialized_) {
      std::memset(&stream_, 0, sizeof(stream_));
      if (inflateInit2(&stream_, window) != Z_OK) {
        return Status::Internal("{}: inflateInit2 failed", CodecName(kind()));
      }
      initialized_ = true;
      return Status::OK();
    }
    if (inflateReset(&stream_) != Z_OK) {
      return Status::Internal("{}: inflateReset failed", CodecName(kind()));
    }
    return Status::OK();
  }

  // Inflates `in` into the fixed buffer `dst` of `capacity` bytes, or, when `grow` is set, appends
  // to `grow` up to `max_output` bytes. Gzip input may hold several concatenated members.
  Status Run(std::span<const uint8_t> in, uint8_t* dst, int64_t capacity, int64_t* produced,
             std::vector<uint8_t>* grow, int64_t max_output) {
    FLOE_RETURN_NOT_OK(Reset());
    size_t grow_start = grow ? grow->size() : 0;
    if (grow) {
      capacity = InitialGuess(in.size(), max_output);
      grow->resize(grow_start + capacity);
      dst = grow->data() + grow_start;
    }
    stream_.next_in = const_cast<Bytef*>(in.data());
    stream_.avail_in = static_cast<uInt>(in.size());
    int64_t total = 0;
    while (true) {
      if (total == capacity && grow && capacity < max_output) {
        capacity = std::min(capacity * 2, max_output);
        grow->resize(grow_start + capacity);
        dst = grow->data() + grow_start;
      }
      // With no room left, inflate into a probe byte: output there means the data is too large.
      // zlib also rejects a null output pointer, which an empty buffer has.
      uint8_t probe;
      bool probing = total == capacity;
      uInt chunk = probing ? 1
                           : static_cast<uInt>(std::min<int64_t>(capacity - total,
                                                                 std::numeric_limits<uInt>::max()));
      stream_.next_out = probing ? &probe : dst + total;
      stream_.avail_out = chunk;
      int rc = inflate(&stream_, Z_NO_FLUSH);
      if (probing) {
        if (stream_.avail_out == 0) {
          return grow ? TooLarge(kind(), in.size(), max_output)
                      : Status::Corrupt("{}: {} compressed bytes decompress to more than {} bytes",
                                        CodecName(kind()), in.size(), capacity);
        }
      } else {
        total += chunk - stream_.avail_out;
      }
      if (rc == Z_STREAM_END) {
        // A gzip file may be several members back to back (RFC 1952 section 2.2).
        if (kind() == CodecKind::kGzip && stream_.avail_in >= 2 && stream_.next_in[0] == 0x1f &&
            stream_.next_in[1] == 0x8b) {
          Bytef* next = stream_.next_in;
          uInt avail = stream_.avail_in;
          if (inflateReset(&stream_) != Z_OK) {
            return Status::Internal("{}: inflateReset failed", CodecName(kind()));
          }
          stream_.next_in = next;
          stream_.avail_in = avail;
          continue;
        }
        break;
      }
      if (rc == Z_OK) continue;
      if (rc == Z_BUF_ERROR) {
        return Status::Corrupt(
            "{}: truncated input: {} compressed bytes end after {} bytes of "
            "output",
            CodecName(kind()), in.size(), total);
      }
      return Status::Corrupt("{}: malformed data at input byte {} (after {} bytes of output): {}",
                             CodecName(kind()), in.size() - stream_.avail_in, total,
                             stream_.msg ? stream_.msg : "error " + std::to_string(rc));
    }
    *produced = total;
    if (grow) grow->resize(grow_start + total);
    return Status::OK();
  }

  z_stream stream_;
  bool initialized_ = false;
};

class ZlibCompressor final : public Compressor {
 public:
  ZlibCompressor(CodecKind kind, int level) : Compressor(kind), level_(level) {}
  ~ZlibCompressor() override {
    if (initialized_) deflateEnd(&stream_);
  }

  Status Compress(std::span<const uint8_t> in, std::vector<uint8_t>* out) override {
    if (!initialized_) {
      std::memset(&stream_, 0, sizeof(stream_));
      int window = kind() == CodecKind::kGzip ? 15 + 16 : -15;
      if (deflateInit2(&stream_, level_, Z_DEFLATED, window, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return Status::Internal("{}: deflateInit2 failed", CodecName(kind()));
      }
      initialized_ = true;
    } else if (deflateReset(&stream_) != Z_OK) {
      return Status::Internal("{}: deflateReset failed", CodecName(kind()));
    }
    size_t start = out->size();
    uLong bound = deflateBound(&stream_, static_cast<uLong>(in.size()));
    out->resize(start + bound);
    stream_.next_in = const_cast<Bytef*>(in.data());
    stream_.avail_in = static_cast<uInt>(in.size());
    stream_.next_out = out->data() + start;
    stream_.avail_out = static_cast<uInt>(bound);
    int rc = deflate(&stream_, Z_FINISH);
    if (rc != Z_STREAM_END) {
      out->resize(start);
      return Status::Internal("{}: deflate of {} bytes failed ({})", CodecName(kind()), in.size(),
                              rc);
    }
    out->resize(start + stream_.total_out);
    return Status::OK();
  }

 private:
  int level_;
  z_stream stream_;
  bool initialized_ = false;
};

// ---------------------------------------------------------------------------------------------
// Zstd.

// The calling thread's context for one-shot decompression, which keeps no state from one
// call to the next: a context is 96 KiB of tables, and a scan has a decompressor per column
// and stream, each a fresh process's first touch of its pages. Null when it cannot be made.
ZSTD_DCtx* ThreadDCtx() {
  struct Holder {
    ZSTD_DCtx* ctx = ZSTD_createDCtx();
    ~Holder() { ZSTD_freeDCtx(ctx); }
  };
  thread_local Holder holder;
  return holder.ctx;
}

class ZstdDecompressor final : public Decompressor {
 public:
  ZstdDecompressor() : Decompressor(CodecKind::kZstd) {}
  ~ZstdDecompressor() override { ZSTD_freeDCtx(ctx_); }

  Status Decompress(std::span<const uint8_t> in, std::span<uint8_t> out) override {
    ZSTD_DCtx* ctx = ThreadDCtx();
    if (ctx == nullptr) return Status::OutOfMemory("zstd: no memory for a decompression context");
    size_t rc = ZSTD_decompressDCtx(ctx, out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(rc)) {
      return Status::Corrupt("zstd: {} compressed bytes (expected {} bytes of output): {}",
                             in.size(), out.size(), ZSTD_getErrorName(rc));
    }
    if (rc != out.size()) return SizeMismatch(kind(), in.size(), rc, out.size());
    return Status::OK();
  }

  Status DecompressBounded(std::span<const uint8_t> in, int64_t max_output,
                           std::vector<uint8_t>* out) override {
    size_t start = out->size();
    // Streaming keeps a window in its context: this decompressor's own, not the thread's.
    if (ctx_ == nullptr) ctx_ = ZSTD_createDCtx();
    if (ctx_ == nullptr) return Status::OutOfMemory("zstd: no memory for a decompression context");
    ZSTD_DCtx_reset(ctx_, ZSTD_reset_session_only);
    int64_t capacity = InitialGuess(in.size(), max_output);
    unsigned long long known = ZSTD_getFrameContentSize(in.data(), in.size());
    if (known != ZSTD_CONTENTSIZE_UNKNOWN && known != ZSTD_CONTENTSIZE_ERROR) {
      if (known > static_cast<unsigned long long>(max_output)) {
        return TooLarge(kind(), in.size(), max_output);
      }
      capacity = std::max<int64_t>(static_cast<int64_t>(known), 1);
    }
    out->resize(start + capacity);
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    int64_t total = 0;
    while (true) {
      if (total == capacity) {
        if (capacity >= max_output) {
          // The buffer is full at the limit: any further output means the data is too large.
          uint8_t probe;
          ZSTD_outBuffer o{&probe, 1, 0};
          size_t rc = ZSTD_decompressStream(ctx_, &o, &input);
          if (ZSTD_isError(rc)) break;
          if (o.pos > 0) {
            out->resize(start);
            return TooLarge(kind(), in.size(), max_output);
          }
          if (rc == 0 || input.pos == input.size) break;
          continue;
        }
        capacity = std::min(capacity * 2, max_output);
        out->resize(start + capacity);
      }
      ZSTD_outBuffer output{out->data() + start, static_cast<size_t>(capacity),
                            static_cast<size_t>(total)};
      size_t rc = ZSTD_decompressStream(ctx_, &output, &input);
      total = static_cast<int64_t>(output.pos);
      if (ZSTD_isError(rc)) {
        out->resize(start);
        return Status::Corrupt("zstd: malformed data at input byte {} of {}: {}", input.pos,
                               in.size(), ZSTD_getErrorName(rc));
      }
      if (rc == 0 && input.pos == input.size) break;
      if (input.pos == input.size && output.pos < output.size) {
        out->resize(start);
        return Status::Corrupt("zstd: truncated input: {} compressed bytes end mid-frame",
                               in.size());
      }
    }
    out->resize(start + total);
    return Status::OK();
  }

 private:
  ZSTD_DCtx* ctx_ = nullptr;  // made by the first DecompressBounded
};

// A compression context holds megabytes of match tables. Compress uses one only for the
// length of the call, so each thread keeps one for every compressor it runs: a
// partitioned write with hundreds of open files (each with its compressor) no longer
// allocates and clears tables per file.
ZSTD_CCtx* ThreadZstdContext() {
  struct Deleter {
    void operator()(ZSTD_CCtx* ctx) const { ZSTD_freeCCtx(ctx); }
  };
  thread_local std::unique_ptr<ZSTD_CCtx, Deleter> ctx(ZSTD_createCCtx());
  return ctx.get();
}

class ZstdCompressor final : public Compressor {
 public:
  explicit ZstdCompressor(int level) : Compressor(CodecKind::kZstd), level_(level) {}

  Status Compress(std::span<const uint8_t> in, std::vector<uint8_t>* out) override {
    ZSTD_CCtx* ctx = ThreadZstdContext();
    if (ctx == nullptr) return Status::OutOfMemory("zstd: cannot create a compression context");
    size_t start = out->size();
    out->resize(start + ZSTD_compressBound(in.size()));
    size_t rc = ZSTD_compressCCtx(ctx, out->data() + start, out->size() - start, in.data(),
                                  in.size(), level_);
    if (ZSTD_isError(rc)) {
      out->resize(start);
      return Status::Internal("zstd: compressing {} bytes failed: {}", in.size(),
                              ZSTD_getErrorName(rc));
    }
    out->resize(start + rc);
    return Status::OK();
  }

 private:
  int level_;
};

// ---------------------------------------------------------------------------------------------
// LZ4: raw blocks, Hadoop framing, and the frame format as a fallback.

uint32_t LoadBE32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}
void AppendBE32(uint32_t v, std::vector<uint8_t>* out) {
  uint8_t b[4] = {static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16),
                  static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
  out->insert(out->end(), b, b + 4);
}

class Lz4Decompressor final : public Decompressor {
 public:
  explicit Lz4Decompressor(CodecKind kind) : Decompressor(kind) {}
  ~Lz4Decompressor() override {
    if (frame_ctx_) LZ4F_freeDecompressionContext(frame_ctx_);
  }

  Status Decompress(std::span<const uint8_t> in, std::span<uint8_t> out) override {
    if (kind() == CodecKind::kLz4Raw) return Raw(in, out);
    if (Hadoop(in, out)) return Status::OK();
    if (Raw(in, out).ok()) return Status::OK();
    int64_t produced = 0;
    if (Frame(in, out, &produced).ok() && produced == static_cast<int64_t>(out.size())) {
      return Status::OK();
    }
    return Status::Corrupt(
        "lz4_hadoop: {} compressed bytes decode to {} bytes neither as Hadoop framing, nor as a "
        "raw LZ4 block, nor as an LZ4 frame",
        in.size(), out.size());
  }

  Status DecompressBounded(std::span<const uint8_t> in, int64_t max_output,
                           std::vector<uint8_t>* out) override {
    size_t start = out->size();
    if (kind() == CodecKind::kLz4Hadoop) {
      // Hadoop framing states the total size up front.
      int64_t total = HadoopTotal(in);
      if (total >= 0) {
        if (total > max_output) return TooLarge(kind(), in.size(), max_output);
        out->resize(start + total);
        if (Hadoop(in, std::span<uint8_t>(out->data() + start, total))) return Status::OK();
        out->resize(start);
      }
    }
    // A raw block does not record its size: grow until it fits or the limit is reached.
    int64_t capacity = InitialGuess(in.size(), max_output);
    while (true) {
      out->resize(start + capacity);
      int rc = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                   reinterpret_cast<char*>(out->data() + start),
                                   static_cast<int>(in.size()), static_cast<int>(capacity));
      if (rc >= 0) {
        out->resize(start + rc);
        return Status::OK();
      }
      if (capacity >= max_output || capacity >= LZ4_MAX_INPUT_SIZE) break;
      capacity = std::min<int64_t>(capacity * 2, max_output);
    }
    out->resize(start);
    return Status::Corrupt(
        "{}: {} compressed bytes are malformed or decompress to more than {} "
        "bytes",
        CodecName(kind()), in.size(), max_output);
  }

 private:
  Status Raw(std::span<const uint8_t> in, std::span<uint8_t> out) {
    if (in.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE) ||
        out.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
      return Status::Corrupt("{}: block of {} bytes (expected {}) exceeds LZ4's size limit",
                             CodecName(kind()), in.size(), out.size());
    }
    int rc = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                 reinterpret_cast<char*>(out.data()), static_cast<int>(in.size()),
                                 static_cast<int>(out.size()));
    if (rc < 0) {
      return Status::Corrupt("{}: malformed block of {} compressed bytes (expected {} bytes)",
                             CodecName(kind()), in.size(), out.size());
    }
    if (static_cast<size_t>(rc) != out.size())
      return SizeMismatch(kind(), in.size(), rc, out.size());
    return Status::OK();
  }

  // The sum of the uncompressed block sizes when `in` parses as Hadoop framing with one
  // compressed chunk per block (as Parquet writers produce), else -1.
  static int64_t HadoopTotal(std::span<const uint8_t> in) {
    size_t pos = 0;
    int64_t total = 0;
    while (pos < in.size()) {
      if (in.size() - pos < 8) return -1;
      total += LoadBE32(in.data() + pos);
      uint32_t compressed = LoadBE32(in.data() + pos + 4);
      pos += 8;
      if (compressed > in.size() - pos) return -1;
      pos += compressed;
    }
    return total;
  }

  // Decodes Hadoop framing into exactly `out`; false when `in` is not Hadoop framing.
  static bool Hadoop(std::span<const uint8_t> in, std::span<uint8_t> out) {
    size_t pos = 0;
    size_t out_pos = 0;
    if (in.size() < 8) return false;
    while (pos < in.size()) {
      if (in.size() - pos < 8) return false;
      uint32_t block = LoadBE32(in.data() + pos);
      pos += 4;
      if (block > out.size() - out_pos) return false;
      size_t block_end = out_pos + block;
      // Hadoop's block stream may split one block into several compressed chunks.
      do {
        if (in.size() - pos < 4) return false;
        uint32_t compressed = LoadBE32(in.data() + pos);
        pos += 4;
        if (compressed > in.size() - pos ||
            compressed > static_cast<uint32_t>(LZ4_MAX_INPUT_SIZE)) {
          return false;
        }
        int rc = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data() + pos),
                                     reinterpret_cast<char*>(out.data() + out_pos),
                                     static_cast<int>(compressed),
                                     static_cast<int>(block_end - out_pos));
        if (rc < 0) return false;
        pos += compressed;
        out_pos += rc;
        if (rc == 0 && block_end != out_pos) return false;
      } while (out_pos < block_end);
    }
    return out_pos == out.size();
  }

  Status Frame(std::span<const uint8_t> in, std::span<uint8_t> out, int64_t* produced) {
    if (!frame_ctx_) {
      if (LZ4F_isError(LZ4F_createDecompressionContext(&frame_ctx_, LZ4F_VERSION))) {
        frame_ctx_ = nullptr;
        return Status::Internal("lz4: cannot create a frame decompression context");
      }
    } else {
      LZ4F_resetDecompressionContext(frame_ctx_);
    }
    size_t in_pos = 0;
    size_t out_pos = 0;
    while (in_pos < in.size()) {
      size_t src = in.size() - in_pos;
      size_t dst = out.size() - out_pos;
      size_t rc = LZ4F_decompress(frame_ctx_, out.data() + out_pos, &dst, in.data() + in_pos, &src,
                                  nullptr);
      if (LZ4F_isError(rc)) {
        return Status::Corrupt("lz4: malformed frame: {}", LZ4F_getErrorName(rc));
      }
      in_pos += src;
      out_pos += dst;
      if (rc == 0 && in_pos == in.size()) break;
      if (src == 0 && dst == 0) return Status::Corrupt("lz4: frame does not fit the output");
    }
    *produced = static_cast<int64_t>(out_pos);
    return Status::OK();
  }

  LZ4F_dctx* frame_ctx_ = nullptr;
};

class Lz4Compressor final : public Compressor {
 public:
  explicit Lz4Compressor(CodecKind kind) : Compressor(kind) {}
  Status Compress(std::span<const uint8_t> in, std::vector<uint8_t>* out) override {
    if (in.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
      return Status::Invalid("{}: {} bytes exceed LZ4's block limit", CodecName(kind()), in.size());
    }
    size_t start = out->size();
    bool hadoop = kind() == CodecKind::kLz4Hadoop;
    size_t header = hadoop ? 8 : 0;
    int bound = LZ4_compressBound(static_cast<int>(in.size()));
    out->resize(start + header + bound);
    int rc = LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                                  reinterpret_cast<char*>(out->data() + start + header),
                                  static_cast<int>(in.size()), bound);
    if (rc <= 0 && !in.empty()) {
      out->resize(start);
      return Status::Internal("{}: compressing {} bytes failed", CodecName(kind()), in.size());
    }
    out->resize(start + header + rc);
    if (hadoop) {
      std::vector<uint8_t> prefix;
      AppendBE32(static_cast<uint32_t>(in.size()), &prefix);
      AppendBE32(static_cast<uint32_t>(rc), &prefix);
      std::memcpy(out->data() + start, prefix.data(), 8);
    }
    return Status::OK();
  }
};

// ---------------------------------------------------------------------------------------------
// Brotli.

class BrotliDecompressor final : public Decompressor {
 public:
  BrotliDecompressor() : Decompressor(CodecKind::kBrotli) {}

  Status Decompress(std::span<const uint8_t> in, std::span<uint8_t> out) override {
    size_t out_size = out.size();
    BrotliDecoderState* state = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
    if (!state) return Status::OutOfMemory("brotli: cannot create a decoder");
    size_t avail_in = in.size();
    const uint8_t* next_in = in.data();
    size_t avail_out = out_size;
    uint8_t* next_out = out.data();
    BrotliDecoderResult rc =
        BrotliDecoderDecompressStream(state, &avail_in, &next_in, &avail_out, &next_out, nullptr);
    int64_t produced = static_cast<int64_t>(out_size - avail_out);
    bool more_output = rc == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT;
    std::string error = rc == BROTLI_DECODER_RESULT_ERROR
                            ? BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state))
                            : "";
    BrotliDecoderDestroyInstance(state);
    if (rc == BROTLI_DECODER_RESULT_ERROR) {
      return Status::Corrupt("brotli: malformed data in {} compressed bytes (expected {}): {}",
                             in.size(), out_size, error);
    }
    if (more_output) {
      return Status::Corrupt("brotli: {} compressed bytes decompress to more than {} bytes",
                             in.size(), out_size);
    }
    if (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
      return Status::Corrupt(
          "brotli: truncated input: {} compressed bytes end after {} of {} "
          "bytes",
          in.size(), produced, out_size);
    }
    if (produced != static_cast<int64_t>(out_size)) {
      return SizeMismatch(kind(), in.size(), produced, out_size);
    }
    return Status::OK();
  }

  Status DecompressBounded(std::span<const uint8_t> in, int64_t max_output,
                           std::vector<uint8_t>* out) override {
    size_t start = out->size();
    BrotliDecoderState* state = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
    if (!state) return Status::OutOfMemory("brotli: cannot create a decoder");
    int64_t capacity = InitialGuess(in.size(), max_output);
    out->resize(start + capacity);
    size_t avail_in = in.size();
    const uint8_t* next_in = in.data();
    int64_t total = 0;
    Status st;
    while (true) {
      size_t avail_out = static_cast<size_t>(capacity - total);
      uint8_t* next_out = out->data() + start + total;
      BrotliDecoderResult rc =
          BrotliDecoderDecompressStream(state, &avail_in, &next_in, &avail_out, &next_out, nullptr);
      total = capacity - static_cast<int64_t>(avail_out);
      if (rc == BROTLI_DECODER_RESULT_SUCCESS) break;
      if (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
        if (capacity >= max_output) {
          st = TooLarge(kind(), in.size(), max_output);
          break;
        }
        capacity = std::min(capacity * 2, max_output);
        out->resize(start + capacity);
        continue;
      }
      st = rc == BROTLI_DECODER_RESULT_ERROR
               ? Status::Corrupt("brotli: malformed data in {} compressed bytes: {}", in.size(),
                                 BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state)))
               : Status::Corrupt("brotli: truncated input of {} bytes", in.size());
      break;
    }
    BrotliDecoderDestroyInstance(state);
    out->resize(st.ok() ? start + total : start);
    return st;
  }
};

class BrotliCompressor final : public Compressor {
 public:
  explicit BrotliCompressor(int level) : Compressor(CodecKind::kBrotli), level_(level) {}
  Status Compress(std::span<const uint8_t> in, std::vector<uint8_t>* out) override {
    size_t start = out->size();
    size_t bound = BrotliEncoderMaxCompressedSize(in.size());
    if (bound == 0) bound = in.size() + 1024;
    out->resize(start + bound);
    size_t written = bound;
    if (!BrotliEncoderCompress(level_, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, in.size(),
                               in.data(), &written, out->data() + start)) {
      out->resize(start);
      return Status::Internal("brotli: compressing {} bytes failed", in.size());
    }
    out->resize(start + written);
    return Status::OK();
  }

 private:
  int level_;
};

}  // namespace

std::string_view CodecName(CodecKind kind) {
  switch (kind) {
    case CodecKind::kUncompressed:
      return "uncompressed";
    case CodecKind::kSnappy:
      return "snappy";
    case CodecKind::kGzip:
      return "gzip";
    case CodecKind::kZstd:
      return "zstd";
    case CodecKind::kLz4Raw:
      return "lz4_raw";
    case CodecKind::kLz4Hadoop:
      return "lz4_hadoop";
    case CodecKind::kBrotli:
      return "brotli";
    case CodecKind::kDeflate:
      return "deflate";
  }
  return "unknown";
}

std::optional<int> DefaultLevel(CodecKind kind) {
  switch (kind) {
    case CodecKind::kZstd:
      return 3;
    case CodecKind::kGzip:
    case CodecKind::kDeflate:
      return 6;
    case CodecKind::kBrotli:
      return 5;
    default:
      return std::nullopt;
  }
}

Result<std::unique_ptr<Decompressor>> Decompressor::Make(CodecKind kind) {
  switch (kind) {
    case CodecKind::kUncompressed:
      return std::make_unique<UncompressedDecompressor>();
    case CodecKind::kSnappy:
      return std::make_unique<SnappyDecompressor>();
    case CodecKind::kGzip:
    case CodecKind::kDeflate:
      return std::make_unique<ZlibDecompressor>(kind);
    case CodecKind::kZstd: {
      auto d = std::make_unique<ZstdDecompressor>();
      return d;
    }
    case CodecKind::kLz4Raw:
    case CodecKind::kLz4Hadoop:
      return std::make_unique<Lz4Decompressor>(kind);
    case CodecKind::kBrotli:
      return std::make_unique<BrotliDecompressor>();
  }
  return Status::Invalid("unknown compression codec {}", static_cast<int>(kind));
}

Result<std::unique_ptr<Compressor>> Compressor::Make(CodecKind kind, std::optional<int> level) {
  std::optional<int> def = DefaultLevel(kind);
  if (level && !def) {
    return Status::Invalid("codec {} takes no compression level (got {})", CodecName(kind), *level);
  }
  int lvl = level.value_or(def.value_or(0));
  switch (kind) {
    case CodecKind::kUncompressed:
      return std::make_unique<UncompressedCompressor>();
    case CodecKind::kSnappy:
      return std::make_unique<SnappyCompressor>();
    case CodecKind::kGzip:
    case CodecKind::kDeflate:
      if (lvl < 0 || lvl > 9) {
        return Status::Invalid("{} level must be in [0, 9], got {}", CodecName(kind), lvl);
      }
      return std::make_unique<ZlibCompressor>(kind, lvl);
    case CodecKind::kZstd:
      if (lvl < ZSTD_minCLevel() || lvl > ZSTD_maxCLevel()) {
        return Status::Invalid("zstd level must be in [{}, {}], got {}", ZSTD_minCLevel(),
                               ZSTD_maxCLevel(), lvl);
      }
      return std::make_unique<ZstdCompressor>(lvl);
    case CodecKind::kLz4Raw:
    case CodecKind::kLz4Hadoop:
      return std::make_unique<Lz4Compressor>(kind);
    case CodecKind::kBrotli:
      if (lvl < BROTLI_MIN_QUALITY || lvl > BROTLI_MAX_QUALITY) {
        return Status::Invalid("brotli level must be in [{}, {}], got {}", BROTLI_MIN_QUALITY,
                               BROTLI_MAX_QUALITY, lvl);
      }
      return std::make_unique<BrotliCompressor>(lvl);
  }
  return Status::Invalid("unknown compression codec {}", static_cast<int>(kind));
}

Status Decompress(CodecKind kind, std::span<const uint8_t> input, std::span<uint8_t> output) {
  FLOE_ASSIGN_OR_RAISE(auto d, Decompressor::Make(kind));
  return d->Decompress(input, output);
}

Result<std::vector<uint8_t>> Compress(CodecKind kind, std::span<const uint8_t> input,
                                      std::optional<int> level) {
  FLOE_ASSIGN_OR_RAISE(auto c, Compressor::Make(kind, level));
  std::vector<uint8_t> out;
  FLOE_RETURN_NOT_OK(c->Compress(input, &out));
  return out;
}

}  // namespace floe::compression
