#include "floe/catalog/metadata_files_internal.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
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

void DeleteObsoleteMetadata(const io::FileIO& io, const iceberg::TableMetadata& base,
                            const std::string& base_location, const iceberg::TableMetadata& next,
                            const std::string& next_location) {
  if (!EqualsIgnoreAsciiCase(next.Property("write.metadata.delete-after-commit.enabled", "false"),
                             "true")) {
    return;
  }
  std::set<std::string> kept{next_location};
  for (const auto& entry : next.metadata_log) kept.insert(entry.metadata_file);
  std::set<std::string> candidates{base_location};
  for (const auto& entry : base.metadata_log) candidates.insert(entry.metadata_file);
  for (const std::string& file : candidates) {
    if (kept.count(file) == 0) (void)io.Delete(file);
  }
}

}  // namespace floe::catalog::internal
