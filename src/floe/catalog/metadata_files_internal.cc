#include "floe/catalog/metadata_files_internal.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <span>
#include <vector>

#include "floe/common/ascii.h"
#include "floe/format/compression/codec.h"
#include "floe/iceberg/table_location.h"

namespace floe::catalog::internal {

std::string StripTrailingSlashes(std::string location) {
  while (location.size() > 1 && location.back() == '/') location.pop_back();
  return location;
}

Result<iceberg::TableMetadataPtr> ReadMetadataFile(const io::FileIO& io, const std::string& path) {
  FLOE_ASSIGN_OR_RAISE(auto file, io.NewInputFile(path));
  return iceberg::ReadTableMetadata(*file);
}

bool WantsGzip(const std::map<std::string, std::string>& properties) {
  auto it = properties.find("write.metadata.compression-codec");
  return it != properties.end() && EqualsIgnoreAsciiCase(it->second, "gzip");
}

Result<std::string> MetadataFileBytes(const iceberg::TableMetadata& metadata,
                                      const std::string& path, bool gzip) {
  FLOE_ASSIGN_OR_RAISE(std::string text, iceberg::TableMetadataToJsonString(metadata));
  Result<iceberg::TableMetadataPtr> reread = iceberg::TableMetadataFromBytes(text, path);
  if (!reread.ok()) {
    return Status::Invalid("the new metadata {} would not read back, so it is not written: {}",
                           path, reread.status().message());
  }
  if (!gzip) return text;
  FLOE_ASSIGN_OR_RAISE(
      std::vector<uint8_t> compressed,
      compression::Compress(
          compression::CodecKind::kGzip,
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size())));
  return std::string(reinterpret_cast<const char*>(compressed.data()), compressed.size());
}

}  // namespace floe::catalog::internal
