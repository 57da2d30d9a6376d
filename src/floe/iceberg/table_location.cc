#include "floe/iceberg/table_location.h"

#include <filesystem>
#include <map>
#include <system_error>

#include <fmt/format.h>

#include "floe/format/compression/codec.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kHintFile = "version-hint.text";
// A version hint is a short line; anything longer is not a hint.
constexpr int64_t kMaxHintBytes = 4096;
// Metadata files are JSON; refuse to read absurd sizes into memory.
constexpr int64_t kMaxMetadataFileBytes = int64_t{1} << 30;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool AllDigits(std::string_view s) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The name without its metadata suffix, or nullopt when it has none.
std::optional<std::string_view> StripMetadataSuffix(std::string_view name) {
  for (std::string_view suffix : {".gz.metadata.json", ".metadata.json.gz", ".metadata.json"}) {
    if (EndsWith(name, suffix) && name.size() > suffix.size()) {
      return name.substr(0, name.size() - suffix.size());
    }
  }
  return std::nullopt;
}

bool IsRegularFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

Result<std::string> ReadAll(const io::RandomAccessFile& file, int64_t limit) {
  const int64_t size = file.size();
  if (size > limit) {
    return Status::Corrupt("{}: file of {} bytes is larger than the {} bytes allowed", file.path(),
                           size, limit);
  }
  FLOE_ASSIGN_OR_RAISE(BufferPtr bytes, file.ReadAt(0, size));
  return std::string(reinterpret_cast<const char*>(bytes->data()),
                     static_cast<size_t>(bytes->size()));
}

std::string Trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  size_t e = s.find_last_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, e - b + 1);
}

// The metadata file names a version hint may mean: "3" is v3 (plain or compressed), a
// file name is itself, another bare name is that name with a metadata suffix.
std::vector<std::string> HintCandidates(const std::string& hint);

}  // namespace

std::optional<int64_t> MetadataFileVersion(std::string_view file_name) {
  auto stem = StripMetadataSuffix(file_name);
  if (!stem) return std::nullopt;
  std::string_view s = *stem;
  if (!s.empty() && s[0] == 'v' && AllDigits(s.substr(1))) {
    return std::stoll(std::string(s.substr(1)));
  }
  size_t dash = s.find('-');
  if (dash != std::string_view::npos && AllDigits(s.substr(0, dash))) {
    return std::stoll(std::string(s.substr(0, dash)));
  }
  return std::nullopt;
}

bool IsMetadataFileName(std::string_view file_name) {
  return StripMetadataSuffix(file_name).has_value();
}

namespace {

std::vector<std::string> HintCandidates(const std::string& hint) {
  std::vector<std::string> candidates;
  if (AllDigits(hint)) {
    for (const char* pattern :
         {"v{}.metadata.json", "v{}.gz.metadata.json", "v{}.metadata.json.gz"}) {
      candidates.push_back(fmt::format(fmt::runtime(pattern), hint));
    }
  } else if (!hint.empty() && hint.find('/') == std::string::npos) {
    if (IsMetadataFileName(hint)) {
      candidates.push_back(hint);
    } else {
      for (const char* suffix : {".metadata.json", ".gz.metadata.json", ".metadata.json.gz"}) {
        candidates.push_back(hint + suffix);
      }
    }
  }
  return candidates;
}

}  // namespace

Result<std::string> FindCurrentMetadataFile(const std::string& table_path) {
  const fs::path root(table_path);
  if (IsRegularFile(root)) return table_path;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return Status::NotFound("table path {} is neither a metadata file nor a directory", table_path);
  }
  fs::path dir = root / "metadata";
  if (!fs::is_directory(dir, ec)) {
    return Status::NotFound("table directory {} has no metadata directory", table_path);
  }

  // The version hint.
  const fs::path hint_path = dir / std::string(kHintFile);
  if (IsRegularFile(hint_path)) {
    FLOE_ASSIGN_OR_RAISE(auto hint_file, io::OpenLocalFile(hint_path.string()));
    FLOE_ASSIGN_OR_RAISE(std::string hint, ReadAll(*hint_file, kMaxHintBytes));
    for (const auto& name : HintCandidates(Trim(std::move(hint)))) {
      if (IsRegularFile(dir / name)) return (dir / name).string();
    }
    // A stale or unreadable hint: fall back to listing the directory, like Hadoop tables do.
  }

  std::optional<int64_t> best_version;
  std::string best;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string name = it->path().filename().string();
    auto version = MetadataFileVersion(name);
    if (!version) continue;
    // Ties (the same version plain and compressed) go to the lexicographically smaller name,
    // so the choice does not depend on the listing order.
    if (!best_version || *version > *best_version ||
        (*version == *best_version && it->path().string() < best)) {
      best_version = version;
      best = it->path().string();
    }
  }
  if (ec) {
    return Status::IOError("cannot list metadata directory {}: {}", dir.string(), ec.message());
  }
  if (!best_version) {
    return Status::NotFound("metadata directory {} holds no numbered metadata file", dir.string());
  }
  return best;
}

Result<std::string> FindCurrentMetadataFile(const io::FileIO& io, const std::string& table_path) {
  std::string root = table_path;
  while (!root.empty() && root.back() == '/') root.pop_back();
  const std::string name = root.substr(root.rfind('/') + 1);
  if (IsMetadataFileName(name)) {
    FLOE_ASSIGN_OR_RAISE(bool exists, io.Exists(root));
    if (!exists) return Status::NotFound("metadata file {} does not exist", table_path);
    return root;
  }
  const std::string dir = root + "/metadata";
  Result<std::vector<io::FileInfo>> listed = io.ListDirectory(dir);
  if (!listed.ok()) {
    if (listed.status().code() == StatusCode::kNotFound) {
      return Status::NotFound("table location {} has no metadata directory", table_path);
    }
    return listed.status();
  }
  std::map<std::string, const io::FileInfo*> files;
  for (const io::FileInfo& f : *listed) {
    if (!f.is_directory) files[f.name] = &f;
  }
  if (auto hint = files.find(std::string(kHintFile)); hint != files.end()) {
    FLOE_ASSIGN_OR_RAISE(auto file, io.NewInputFile(hint->second->path));
    FLOE_ASSIGN_OR_RAISE(std::string text, ReadAll(*file, kMaxHintBytes));
    for (const std::string& c : HintCandidates(Trim(std::move(text)))) {
      if (auto it = files.find(c); it != files.end()) return it->second->path;
    }
  }
  std::optional<int64_t> best_version;
  std::string best;
  for (const auto& [file_name, info] : files) {
    auto version = MetadataFileVersion(file_name);
    if (version && (!best_version || *version > *best_version)) {
      best_version = version;
      best = info->path;
    }
  }
  if (!best_version) {
    return Status::NotFound("metadata directory {} holds no numbered metadata file", dir);
  }
  return best;
}

Result<TableMetadataPtr> ReadTableMetadata(const io::RandomAccessFile& file) {
  FLOE_ASSIGN_OR_RAISE(std::string bytes, ReadAll(file, kMaxMetadataFileBytes));
  return TableMetadataFromBytes(bytes, file.path());
}

Result<TableMetadataPtr> ReadTableMetadata(const std::string& path) {
  FLOE_ASSIGN_OR_RAISE(auto file, io::OpenLocalFile(path));
  return ReadTableMetadata(*file);
}

Result<TableMetadataPtr> LoadTableFromDirectory(const std::string& table_path,
                                                std::string* metadata_path) {
  FLOE_ASSIGN_OR_RAISE(std::string path, FindCurrentMetadataFile(table_path));
  if (metadata_path != nullptr) *metadata_path = path;
  return ReadTableMetadata(path);
}

Status WriteTableMetadata(const TableMetadata& metadata, const std::string& path) {
  FLOE_ASSIGN_OR_RAISE(std::string text, TableMetadataToJsonString(metadata, /*pretty=*/true));
  std::vector<uint8_t> compressed;
  std::string_view out = text;
  if (EndsWith(path, ".gz.metadata.json") || EndsWith(path, ".metadata.json.gz")) {
    FLOE_ASSIGN_OR_RAISE(
        compressed,
        compression::Compress(
            compression::CodecKind::kGzip,
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size())));
    out = std::string_view(reinterpret_cast<const char*>(compressed.data()), compressed.size());
  }
  FLOE_ASSIGN_OR_RAISE(auto stream, io::CreateLocalFile(path));
  FLOE_RETURN_NOT_OK(stream->Write(out));
  return stream->Close();
}

}  // namespace floe::iceberg
