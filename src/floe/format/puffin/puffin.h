#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/buffer.h"
#include "floe/common/result.h"
#include "floe/io/file.h"

namespace floe::puffin {

/// The magic at the start of a Puffin file and at both ends of its footer ("PFA1").
inline constexpr std::string_view kMagic = "PFA1";

/// Blob and footer compression (Puffin spec "Compression codecs"): a single LZ4 frame or a single
/// Zstandard frame, each with its content size present.
enum class PuffinCodec : uint8_t { kNone, kLz4, kZstd };

/// The codec's name in blob metadata: "lz4", "zstd" (none has no name).
std::string_view PuffinCodecName(PuffinCodec codec);

/// Metadata of one blob (Puffin spec "BlobMetadata").
struct BlobMetadata {
  std::string type;
  /// Field ids the blob was computed for.
  std::vector<int32_t> fields;
  int64_t snapshot_id = -1;
  int64_t sequence_number = -1;
  /// Where the (possibly compressed) blob bytes lie in the file.
  int64_t offset = 0;
  int64_t length = 0;
  PuffinCodec compression = PuffinCodec::kNone;
  std::map<std::string, std::string> properties;

  bool operator==(const BlobMetadata&) const = default;
};

/// The footer payload (Puffin spec "FileMetadata").
struct FileMetadata {
  std::vector<BlobMetadata> blobs;
  std::map<std::string, std::string> properties;
};

/// Serializes `metadata` as the footer's JSON payload.
std::string FileMetadataToJson(const FileMetadata& metadata);
/// Parses a footer JSON payload; Corrupt (naming `where`) when it is not valid JSON or does not
/// have the required fields with the right types.
Result<FileMetadata> FileMetadataFromJson(std::string_view json, std::string_view where);

/// Limits a reader enforces against lengths read from the file.
struct PuffinReaderOptions {
  /// The largest decompressed blob or footer; a frame declaring more is Corrupt.
  int64_t max_decompressed_bytes = int64_t{1} << 30;
};

/// Reads a Puffin file: its footer on Open, blobs on demand.
class PuffinReader {
 public:
  /// Reads and validates the footer: both magics, the payload size against the file size, the
  /// flags (an unknown flag is NotSupported), the payload (decompressed when flagged) and every
  /// blob's range, which must lie between the leading magic and the footer.
  static Result<std::unique_ptr<PuffinReader>> Open(std::shared_ptr<io::RandomAccessFile> file,
                                                    PuffinReaderOptions options = {});

  const FileMetadata& metadata() const { return metadata_; }
  const std::string& path() const { return file_->path(); }
  /// The footer's size in bytes (from its leading magic to the end of the file).
  int64_t footer_size() const { return footer_size_; }

  /// Reads and decompresses the blob described by `blob` (from metadata()).
  Result<BufferPtr> ReadBlob(const BlobMetadata& blob) const;

 private:
  PuffinReader(std::shared_ptr<io::RandomAccessFile> file, PuffinReaderOptions options)
      : file_(std::move(file)), options_(options) {}

  std::shared_ptr<io::RandomAccessFile> file_;
  PuffinReaderOptions options_;
  FileMetadata metadata_;
  int64_t footer_size_ = 0;
};

/// What a blob is, for PuffinWriter::AddBlob; offset and length are filled in by the writer.
struct BlobInfo {
  std::string type;
  std::vector<int32_t> fields;
  int64_t snapshot_id = -1;
  int64_t sequence_number = -1;
  std::map<std::string, std::string> properties;
};

struct PuffinWriterOptions {
  /// Compress the footer payload with LZ4 (sets footer flag bit 0).
  bool compress_footer = false;
  /// FileMetadata properties; "created-by" defaults to "floe".
  std::map<std::string, std::string> properties;
};

/// Writes a Puffin file: the magic, blobs as they are added, and the footer on Finish.
class PuffinWriter {
 public:
  /// Writes the leading magic to `out`, which must outlive the writer.
  static Result<std::unique_ptr<PuffinWriter>> Make(io::OutputStream* out,
                                                    PuffinWriterOptions options = {});

  /// Appends a blob, compressed with `codec`, and returns its metadata (offset and length are
  /// what a manifest's content_offset and content_size_in_bytes take).
  Result<BlobMetadata> AddBlob(BlobInfo info, std::span<const uint8_t> data,
                               PuffinCodec codec = PuffinCodec::kNone);

  /// Writes the footer and closes the stream. Returns the file's size.
  Result<int64_t> Finish();

  const std::vector<BlobMetadata>& blobs() const { return metadata_.blobs; }

 private:
  PuffinWriter(io::OutputStream* out, PuffinWriterOptions options);

  io::OutputStream* out_;
  bool compress_footer_;
  FileMetadata metadata_;
  bool finished_ = false;
};

}  // namespace floe::puffin
