#include "floe/format/puffin/puffin.h"

#include <lz4frame.h>
#include <zstd.h>

#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "floe/format/compression/codec.h"

namespace floe::puffin {

namespace {

using nlohmann::json;

// Footer trailer: payload size (4), flags (4), magic (4).
constexpr int64_t kTrailerSize = 12;
constexpr uint8_t kFlagCompressed = 0x01;

Result<std::vector<uint8_t>> CompressLz4Frame(std::span<const uint8_t> input) {
  LZ4F_preferences_t prefs;
  std::memset(&prefs, 0, sizeof(prefs));
  prefs.frameInfo.contentSize = input.size();
  std::vector<uint8_t> out(LZ4F_compressFrameBound(input.size(), &prefs));
  size_t n = LZ4F_compressFrame(out.data(), out.size(), input.data(), input.size(), &prefs);
  if (LZ4F_isError(n)) {
    return Status::Internal("lz4 frame compression failed: {}", LZ4F_getErrorName(n));
  }
  out.resize(n);
  return out;
}

Result<std::vector<uint8_t>> DecompressLz4Frame(std::span<const uint8_t> input, int64_t max_size,
                                                std::string_view where) {
  LZ4F_dctx* ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) {
    return Status::OutOfMemory("creating an lz4 decompression context");
  }
  std::unique_ptr<LZ4F_dctx, decltype(&LZ4F_freeDecompressionContext)> guard(
      ctx, &LZ4F_freeDecompressionContext);
  LZ4F_frameInfo_t info;
  size_t consumed = input.size();
  size_t rc = LZ4F_getFrameInfo(ctx, &info, input.data(), &consumed);
  if (LZ4F_isError(rc)) {
    return Status::Corrupt("{}: malformed lz4 frame header: {}", where, LZ4F_getErrorName(rc));
  }
  if (info.contentSize == 0 && input.size() > consumed + 4) {
    return Status::Corrupt("{}: lz4 frame has no content size, which Puffin requires", where);
  }
  if (info.contentSize > static_cast<uint64_t>(max_size)) {
    return Status::Corrupt("{}: lz4 frame declares {} bytes, more than the limit of {}", where,
                           info.contentSize, max_size);
  }
  std::vector<uint8_t> out(info.contentSize);
  size_t in_pos = consumed;
  size_t out_pos = 0;
  while (true) {
    size_t dst = out.size() - out_pos;
    size_t src = input.size() - in_pos;
    // A one-byte scratch buffer lets the decoder report output beyond the declared size.
    uint8_t scratch;
    uint8_t* dst_ptr = dst == 0 ? &scratch : out.data() + out_pos;
    if (dst == 0) dst = 1;
    rc = LZ4F_decompress(ctx, dst_ptr, &dst, input.data() + in_pos, &src, nullptr);
    if (LZ4F_isError(rc)) {
      return Status::Corrupt("{}: malformed lz4 frame: {}", where, LZ4F_getErrorName(rc));
    }
    if (dst_ptr == &scratch && dst > 0) {
      return Status::Corrupt("{}: lz4 frame holds more than its declared {} bytes", where,
                             info.contentSize);
    }
    in_pos += src;
    out_pos += dst_ptr == &scratch ? 0 : dst;
    if (rc == 0) break;
    if (src == 0 && dst == 0) {
      return Status::Corrupt("{}: lz4 frame is truncated", where);
    }
    if (in_pos >= input.size()) return Status::Corrupt("{}: lz4 frame is truncated", where);
  }
  if (out_pos != out.size()) {
    return Status::Corrupt("{}: lz4 frame holds {} bytes but declares {}", where, out_pos,
                           out.size());
  }
  if (in_pos != input.size()) {
    return Status::Corrupt("{}: {} bytes follow the lz4 frame", where, input.size() - in_pos);
  }
  return out;
}

Result<std::vector<uint8_t>> DecompressZstdFrame(std::span<const uint8_t> input, int64_t max_size,
                                                 std::string_view where) {
  unsigned long long size = ZSTD_getFrameContentSize(input.data(), input.size());
  if (size == ZSTD_CONTENTSIZE_ERROR) {
    return Status::Corrupt("{}: malformed zstd frame header", where);
  }
  if (size == ZSTD_CONTENTSIZE_UNKNOWN) {
    return Status::Corrupt("{}: zstd frame has no content size, which Puffin requires", where);
  }
  if (size > static_cast<unsigned long long>(max_size)) {
    return Status::Corrupt("{}: zstd frame declares {} bytes, more than the limit of {}", where,
                           size, max_size);
  }
  size_t frame = ZSTD_findFrameCompressedSize(input.data(), input.size());
  if (ZSTD_isError(frame) || frame != input.size()) {
    return Status::Corrupt("{}: blob is not exactly one zstd frame", where);
  }
  std::vector<uint8_t> out(size);
  Status st = compression::Decompress(compression::CodecKind::kZstd, input, out);
  if (!st.ok()) return st.WithPrefix(fmt::format("{}: ", where));
  return out;
}

Result<std::vector<uint8_t>> Decompress(PuffinCodec codec, std::span<const uint8_t> input,
                                        int64_t max_size, std::string_view where) {
  switch (codec) {
    case PuffinCodec::kNone:
      return std::vector<uint8_t>(input.begin(), input.end());
    case PuffinCodec::kLz4:
      return DecompressLz4Frame(input, max_size, where);
    case PuffinCodec::kZstd:
      return DecompressZstdFrame(input, max_size, where);
  }
  return Status::Internal("unknown Puffin codec");
}

Result<std::vector<uint8_t>> Compress(PuffinCodec codec, std::span<const uint8_t> input) {
  switch (codec) {
    case PuffinCodec::kNone:
      return std::vector<uint8_t>(input.begin(), input.end());
    case PuffinCodec::kLz4:
      return CompressLz4Frame(input);
    case PuffinCodec::kZstd:
      // A one-shot zstd frame records its content size.
      return compression::Compress(compression::CodecKind::kZstd, input);
  }
  return Status::Internal("unknown Puffin codec");
}

int32_t LE32(const uint8_t* p) {
  return static_cast<int32_t>(uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) |
                              (uint32_t{p[3]} << 24));
}

void PutLE32(std::string* out, int32_t value) {
  uint32_t v = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

Result<std::map<std::string, std::string>> StringMap(const json& object, std::string_view what,
                                                     std::string_view where) {
  std::map<std::string, std::string> out;
  if (!object.is_object()) {
    return Status::Corrupt("Puffin footer of '{}': {} is not a JSON object", where, what);
  }
  for (const auto& [key, value] : object.items()) {
    if (!value.is_string()) {
      return Status::Corrupt("Puffin footer of '{}': {} property '{}' is not a string", where, what,
                             key);
    }
    out.emplace(key, value.get<std::string>());
  }
  return out;
}

Result<int64_t> RequiredLong(const json& blob, const char* name, size_t index,
                             std::string_view where) {
  auto it = blob.find(name);
  if (it == blob.end()) {
    return Status::Corrupt("Puffin footer of '{}': blob {} has no '{}'", where, index, name);
  }
  if (!it->is_number_integer()) {
    return Status::Corrupt("Puffin footer of '{}': blob {} field '{}' is not an integer", where,
                           index, name);
  }
  if (it->is_number_unsigned() &&
      it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Status::Corrupt("Puffin footer of '{}': blob {} field '{}' is out of range", where,
                           index, name);
  }
  return it->get<int64_t>();
}

}  // namespace

std::string_view PuffinCodecName(PuffinCodec codec) {
  switch (codec) {
    case PuffinCodec::kNone:
      return "";
    case PuffinCodec::kLz4:
      return "lz4";
    case PuffinCodec::kZstd:
      return "zstd";
  }
  return "";
}

std::string FileMetadataToJson(const FileMetadata& metadata) {
  json blobs = json::array();
  for (const BlobMetadata& b : metadata.blobs) {
    json blob = {{"type", b.type},
                 {"fields", b.fields},
                 {"snapshot-id", b.snapshot_id},
                 {"sequence-number", b.sequence_number},
                 {"offset", b.offset},
                 {"length", b.length}};
    if (b.compression != PuffinCodec::kNone) {
      blob["compression-codec"] = std::string(PuffinCodecName(b.compression));
    }
    if (!b.properties.empty()) blob["properties"] = b.properties;
    blobs.push_back(std::move(blob));
  }
  json root = {{"blobs", std::move(blobs)}};
  if (!metadata.properties.empty()) root["properties"] = metadata.properties;
  return root.dump();
}

Result<FileMetadata> FileMetadataFromJson(std::string_view text, std::string_view where) {
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return Status::Corrupt("Puffin footer of '{}' is not valid JSON", where);
  }
  if (!root.is_object()) {
    return Status::Corrupt("Puffin footer of '{}' is not a JSON object", where);
  }
  FileMetadata metadata;
  auto blobs = root.find("blobs");
  if (blobs == root.end() || !blobs->is_array()) {
    return Status::Corrupt("Puffin footer of '{}' has no 'blobs' list", where);
  }
  for (size_t i = 0; i < blobs->size(); ++i) {
    const json& b = (*blobs)[i];
    if (!b.is_object()) {
      return Status::Corrupt("Puffin footer of '{}': blob {} is not an object", where, i);
    }
    BlobMetadata blob;
    auto type = b.find("type");
    if (type == b.end() || !type->is_string()) {
      return Status::Corrupt("Puffin footer of '{}': blob {} has no string 'type'", where, i);
    }
    blob.type = type->get<std::string>();
    auto fields = b.find("fields");
    if (fields == b.end() || !fields->is_array()) {
      return Status::Corrupt("Puffin footer of '{}': blob {} has no 'fields' list", where, i);
    }
    for (const json& f : *fields) {
      if (!f.is_number_integer() || f.get<int64_t>() < std::numeric_limits<int32_t>::min() ||
          f.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
        return Status::Corrupt("Puffin footer of '{}': blob {} has a field id that is not an int",
                               where, i);
      }
      blob.fields.push_back(static_cast<int32_t>(f.get<int64_t>()));
    }
    FLOE_ASSIGN_OR_RAISE(blob.snapshot_id, RequiredLong(b, "snapshot-id", i, where));
    FLOE_ASSIGN_OR_RAISE(blob.sequence_number, RequiredLong(b, "sequence-number", i, where));
    FLOE_ASSIGN_OR_RAISE(blob.offset, RequiredLong(b, "offset", i, where));
    FLOE_ASSIGN_OR_RAISE(blob.length, RequiredLong(b, "length", i, where));
    auto codec = b.find("compression-codec");
    if (codec != b.end() && !codec->is_null()) {
      if (!codec->is_string()) {
        return Status::Corrupt("Puffin footer of '{}': blob {} compression-codec is not a string",
                               where, i);
      }
      std::string name = codec->get<std::string>();
      if (name == "lz4") {
        blob.compression = PuffinCodec::kLz4;
      } else if (name == "zstd") {
        blob.compression = PuffinCodec::kZstd;
      } else {
        return Status::NotSupported(
            "Puffin file '{}': blob {} uses compression codec '{}'; only "
            "lz4 and zstd are defined",
            where, i, name);
      }
    }
    auto props = b.find("properties");
    if (props != b.end() && !props->is_null()) {
      FLOE_ASSIGN_OR_RAISE(blob.properties,
                           StringMap(*props, fmt::format("blob {} properties", i), where));
    }
    metadata.blobs.push_back(std::move(blob));
  }
  auto props = root.find("properties");
  if (props != root.end() && !props->is_null()) {
    FLOE_ASSIGN_OR_RAISE(metadata.properties, StringMap(*props, "file properties", where));
  }
  return metadata;
}

Result<std::unique_ptr<PuffinReader>> PuffinReader::Open(std::shared_ptr<io::RandomAccessFile> file,
                                                         PuffinReaderOptions options) {
  const std::string& path = file->path();
  int64_t size = file->size();
  constexpr int64_t kMinSize = 4 + 4 + kTrailerSize;
  if (size < kMinSize) {
    return Status::Corrupt("Puffin file '{}' has {} bytes, fewer than the {} of an empty file",
                           path, size, kMinSize);
  }
  FLOE_ASSIGN_OR_RAISE(BufferPtr head, file->ReadAt(0, 4));
  if (head->view() != kMagic) {
    return Status::Corrupt("Puffin file '{}' does not start with the magic PFA1", path);
  }
  FLOE_ASSIGN_OR_RAISE(BufferPtr trailer, file->ReadAt(size - kTrailerSize, kTrailerSize));
  const uint8_t* t = trailer->data();
  if (std::memcmp(t + 8, kMagic.data(), 4) != 0) {
    return Status::Corrupt("Puffin file '{}' does not end with the magic PFA1 (offset {})", path,
                           size - 4);
  }
  int32_t payload_size = LE32(t);
  int64_t payload_end = size - kTrailerSize;
  if (payload_size < 0 || payload_size > payload_end - 8) {
    return Status::Corrupt(
        "Puffin file '{}': footer payload size {} (at offset {}) does not fit "
        "in the file of {} bytes",
        path, payload_size, payload_end, size);
  }
  if (t[4] & ~kFlagCompressed || t[5] != 0 || t[6] != 0 || t[7] != 0) {
    return Status::NotSupported(
        "Puffin file '{}': unknown footer flags {:02x} {:02x} {:02x} {:02x}", path, t[4], t[5],
        t[6], t[7]);
  }
  int64_t footer_start = payload_end - payload_size - 4;
  FLOE_ASSIGN_OR_RAISE(BufferPtr footer, file->ReadAt(footer_start, 4 + payload_size));
  if (std::memcmp(footer->data(), kMagic.data(), 4) != 0) {
    return Status::Corrupt("Puffin file '{}': no footer magic at offset {}", path, footer_start);
  }
  std::span<const uint8_t> payload = footer->span().subspan(4);
  std::vector<uint8_t> decompressed;
  if (t[4] & kFlagCompressed) {
    FLOE_ASSIGN_OR_RAISE(decompressed,
                         DecompressLz4Frame(payload, options.max_decompressed_bytes,
                                            fmt::format("Puffin footer of '{}'", path)));
    payload = decompressed;
  }
  std::string_view json_text(reinterpret_cast<const char*>(payload.data()), payload.size());
  std::unique_ptr<PuffinReader> reader(new PuffinReader(std::move(file), options));
  FLOE_ASSIGN_OR_RAISE(reader->metadata_, FileMetadataFromJson(json_text, path));
  for (size_t i = 0; i < reader->metadata_.blobs.size(); ++i) {
    const BlobMetadata& b = reader->metadata_.blobs[i];
    if (b.offset < 4 || b.length < 0 || b.offset > footer_start ||
        b.length > footer_start - b.offset) {
      return Status::Corrupt(
          "Puffin file '{}': blob {} at offset {} with {} bytes lies outside "
          "the blob area [4, {})",
          path, i, b.offset, b.length, footer_start);
    }
  }
  reader->footer_size_ = size - footer_start;
  return reader;
}

Result<BufferPtr> PuffinReader::ReadBlob(const BlobMetadata& blob) const {
  int64_t footer_start = file_->size() - footer_size_;
  if (blob.offset < 4 || blob.length < 0 || blob.offset > footer_start ||
      blob.length > footer_start - blob.offset) {
    return Status::Invalid(
        "Puffin file '{}': blob at offset {} with {} bytes lies outside the "
        "blob area [4, {})",
        path(), blob.offset, blob.length, footer_start);
  }
  FLOE_ASSIGN_OR_RAISE(BufferPtr raw, file_->ReadAt(blob.offset, blob.length));
  if (blob.compression == PuffinCodec::kNone) return raw;
  FLOE_ASSIGN_OR_RAISE(
      std::vector<uint8_t> bytes,
      Decompress(blob.compression, raw->span(), options_.max_decompressed_bytes,
                 fmt::format("Puffin file '{}' blob at offset {}", path(), blob.offset)));
  return Buffer::CopyOf(std::span<const uint8_t>(bytes));
}

PuffinWriter::PuffinWriter(io::OutputStream* out, PuffinWriterOptions options)
    : out_(out), compress_footer_(options.compress_footer) {
  metadata_.properties = std::move(options.properties);
  metadata_.properties.emplace("created-by", "floe");
}

Result<std::unique_ptr<PuffinWriter>> PuffinWriter::Make(io::OutputStream* out,
                                                         PuffinWriterOptions options) {
  if (out->position() != 0) {
    return Status::Invalid("Puffin file '{}' must be written from its start, not at offset {}",
                           out->path(), out->position());
  }
  FLOE_RETURN_NOT_OK(out->Write(kMagic));
  return std::unique_ptr<PuffinWriter>(new PuffinWriter(out, std::move(options)));
}

Result<BlobMetadata> PuffinWriter::AddBlob(BlobInfo info, std::span<const uint8_t> data,
                                           PuffinCodec codec) {
  if (finished_) return Status::Invalid("Puffin file '{}' is already finished", out_->path());
  FLOE_ASSIGN_OR_RAISE(std::vector<uint8_t> bytes, Compress(codec, data));
  BlobMetadata blob;
  blob.type = std::move(info.type);
  blob.fields = std::move(info.fields);
  blob.snapshot_id = info.snapshot_id;
  blob.sequence_number = info.sequence_number;
  blob.properties = std::move(info.properties);
  blob.compression = codec;
  blob.offset = out_->position();
  blob.length = static_cast<int64_t>(bytes.size());
  FLOE_RETURN_NOT_OK(out_->Write(bytes.data(), blob.length));
  metadata_.blobs.push_back(blob);
  return blob;
}

Result<int64_t> PuffinWriter::Finish() {
  if (finished_) return Status::Invalid("Puffin file '{}' is already finished", out_->path());
  finished_ = true;
  std::string json_text = FileMetadataToJson(metadata_);
  std::vector<uint8_t> payload(json_text.begin(), json_text.end());
  if (compress_footer_) {
    FLOE_ASSIGN_OR_RAISE(payload, CompressLz4Frame(payload));
  }
  if (payload.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::NotSupported("Puffin footer of '{}' would have {} bytes, more than 2 GiB",
                                out_->path(), payload.size());
  }
  std::string footer(kMagic);
  footer.append(reinterpret_cast<const char*>(payload.data()), payload.size());
  PutLE32(&footer, static_cast<int32_t>(payload.size()));
  footer.push_back(static_cast<char>(compress_footer_ ? kFlagCompressed : 0));
  footer.append(3, '\0');
  footer.append(kMagic);
  FLOE_RETURN_NOT_OK(out_->Write(footer));
  int64_t size = out_->position();
  FLOE_RETURN_NOT_OK(out_->Close());
  return size;
}

}  // namespace floe::puffin
