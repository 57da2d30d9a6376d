#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::compression {

/// The block compression codecs of Parquet (CompressionCodec) and Avro.
enum class CodecKind : uint8_t {
  kUncompressed,
  kSnappy,
  /// Gzip framing (RFC 1952); concatenated members are read as one stream.
  kGzip,
  kZstd,
  /// A raw LZ4 block (Parquet LZ4_RAW).
  kLz4Raw,
  /// Parquet's deprecated LZ4: Hadoop framing, big-endian uncompressed and compressed length
  /// prefixes per block. Reading falls back to a raw LZ4 block and then to the LZ4 frame format
  /// when the input does not parse as Hadoop framing.
  kLz4Hadoop,
  kBrotli,
  /// Raw deflate (RFC 1951) without zlib or gzip header, as Avro's "deflate" codec.
  kDeflate,
};

/// The lower-case name of a codec ("zstd", "lz4_hadoop", ...).
std::string_view CodecName(CodecKind kind);

/// The level a codec compresses at when none is given: zstd 3, gzip/deflate 6, brotli 5;
/// nullopt for codecs without levels.
std::optional<int> DefaultLevel(CodecKind kind);

/// Decompresses blocks of one codec. Holds the library's context (z_stream, ...) so that a
/// column reader decompressing page after page pays for it once; zstd's one-shot Decompress
/// uses the calling thread's context instead (it keeps nothing between calls), so the many
/// readers of a scan do not each make one. Not thread-safe: use one per thread or per reader.
class Decompressor {
 public:
  virtual ~Decompressor() = default;

  /// A decompressor for `kind`.
  static Result<std::unique_ptr<Decompressor>> Make(CodecKind kind);

  CodecKind kind() const { return kind_; }

  /// Decompresses `input` into `output`, whose size is the known uncompressed size (Parquet's
  /// uncompressed_page_size). Corrupt when the data is malformed or decompresses to any other
  /// size; the message names the codec and both sizes.
  virtual Status Decompress(std::span<const uint8_t> input, std::span<uint8_t> output) = 0;

  /// Decompresses `input` of unknown uncompressed size, appending to `out`. Corrupt when the
  /// data is malformed or would exceed `max_output` bytes (Avro blocks).
  virtual Status DecompressBounded(std::span<const uint8_t> input, int64_t max_output,
                                   std::vector<uint8_t>* out) = 0;

 protected:
  explicit Decompressor(CodecKind kind) : kind_(kind) {}

 private:
  CodecKind kind_;
};

/// Compresses blocks of one codec at one level, reusing the library's context.
class Compressor {
 public:
  virtual ~Compressor() = default;

  /// A compressor for `kind` at `level` (DefaultLevel when absent). InvalidArgument when a level
  /// is given for a codec without levels or is outside the codec's range.
  static Result<std::unique_ptr<Compressor>> Make(CodecKind kind,
                                                  std::optional<int> level = std::nullopt);

  CodecKind kind() const { return kind_; }

  /// Appends the compressed form of `input` to `out`.
  virtual Status Compress(std::span<const uint8_t> input, std::vector<uint8_t>* out) = 0;

 protected:
  explicit Compressor(CodecKind kind) : kind_(kind) {}

 private:
  CodecKind kind_;
};

/// One-shot helpers that build a context per call; prefer the objects in loops.
Status Decompress(CodecKind kind, std::span<const uint8_t> input, std::span<uint8_t> output);
/// One-shot compression; returns the compressed bytes.
Result<std::vector<uint8_t>> Compress(CodecKind kind, std::span<const uint8_t> input,
                                      std::optional<int> level = std::nullopt);

}  // namespace floe::compression
