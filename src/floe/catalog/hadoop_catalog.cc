#include "floe/catalog/hadoop_catalog.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "floe/catalog/metadata_files_internal.h"
#include "floe/catalog/purge.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/iceberg/table_location.h"
#include "floe/io/file_io.h"
#include "floe/io/s3_file_io.h"

namespace floe::catalog {
namespace {

using internal::ReadMetadataFile;
using internal::StripTrailingSlashes;
using internal::WantsGzip;

namespace fs = std::filesystem;

constexpr std::string_view kHintFile = "version-hint.text";
constexpr std::string_view kLocationProperty = "location";
// Version hints are a number; anything longer is not one.
constexpr int64_t kMaxHintBytes = 64;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A local path for a location written as a path or a file: URI ("" for other schemes).
std::string LocalPath(const std::string& location) {
  std::string_view scheme = io::UriScheme(location);
  if (scheme.empty()) return location;
  if (scheme != "file") return "";
  std::string_view rest = std::string_view(location).substr(5);
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    if (rest.substr(0, 9) == "localhost") rest.remove_prefix(9);
  }
  return std::string(rest);
}

Status ValidateDirectoryNamespace(const Namespace& ns) {
  if (ns.empty()) return Status::Invalid("a namespace needs at least one level");
  for (const std::string& level : ns) {
    // Levels are stored as dotted strings elsewhere and as directory names here.
    if (level.find('.') != std::string::npos) {
      return Status::Invalid("namespace level '{}' contains a '.'", level);
    }
    FLOE_RETURN_NOT_OK(ValidatePathSegment("namespace level", level));
  }
  return Status::OK();
}

Status ValidateDirectoryIdentifier(const TableIdentifier& id) {
  FLOE_RETURN_NOT_OK(ValidateDirectoryNamespace(id.ns));
  FLOE_RETURN_NOT_OK(ValidatePathSegment("table name", id.name));
  // A table is a directory, and hidden names are this catalog's temporary files.
  if (id.name.front() == '.') {
    return Status::Invalid(
        "table name '{}' starts with '.', which a hadoop catalog keeps for "
        "its temporary files",
        id.name);
  }
  return Status::OK();
}

bool IsDirectory(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

bool IsRegular(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// The three names metadata version `version` can have.
std::vector<std::string> VersionFileNames(int64_t version) {
  return {fmt::format("v{}.metadata.json", version), fmt::format("v{}.gz.metadata.json", version),
          fmt::format("v{}.metadata.json.gz", version)};
}

// The version of a "v<N>.metadata.json" name (and its gzip forms); nullopt for other names.
std::optional<int64_t> VersionOf(std::string_view name) {
  if (name.size() < 2 || name[0] != 'v') return std::nullopt;
  size_t digits = 1;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) {
    ++digits;
  }
  if (digits == 1 || digits > 19) return std::nullopt;
  std::string_view suffix = name.substr(digits);
  if (suffix != ".metadata.json" && suffix != ".gz.metadata.json" &&
      suffix != ".metadata.json.gz") {
    return std::nullopt;
  }
  return std::stoll(std::string(name.substr(1, digits - 1)));
}

// The file of metadata version `version` in `metadata_dir`, when it exists.
std::optional<fs::path> VersionFile(const fs::path& metadata_dir, int64_t version) {
  for (const std::string& name : VersionFileNames(version)) {
    fs::path path = metadata_dir / name;
    if (IsRegular(path)) return path;
  }
  return std::nullopt;
}

std::optional<int64_t> ReadHint(const fs::path& metadata_dir) {
  int fd = ::open((metadata_dir / std::string(kHintFile)).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buffer[kMaxHintBytes];
  ssize_t n = ::read(fd, buffer, sizeof(buffer));
  ::close(fd);
  if (n <= 0) return std::nullopt;
  std::string_view text(buffer, static_cast<size_t>(n));
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  if (text.empty() || text.size() > 18) return std::nullopt;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  return std::stoll(std::string(text));
}

// The current metadata of a table directory.
struct Current {
  int64_t version = 0;
  std::string path;
};

// The current version in `metadata_dir`: the hint's version (when its file exists) or else
// the highest listed version, then forward while the next version exists (a committer
// writes its file before the hint). nullopt when the directory holds no version file.
std::optional<Current> FindCurrent(const fs::path& metadata_dir) {
  std::optional<int64_t> start;
  std::optional<fs::path> file;
  if (std::optional<int64_t> hint = ReadHint(metadata_dir); hint.has_value()) {
    file = VersionFile(metadata_dir, *hint);
    if (file.has_value()) start = hint;
  }
  if (!start.has_value()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(metadata_dir, ec)) {
      std::optional<int64_t> version = VersionOf(entry.path().filename().string());
      if (version.has_value() && (!start.has_value() || *version > *start)) {
        start = version;
        file = entry.path();
      }
    }
    if (!start.has_value()) return std::nullopt;
  }
  int64_t version = *start;
  while (std::optional<fs::path> next = VersionFile(metadata_dir, version + 1)) {
    ++version;
    file = std::move(next);
  }
  return Current{version, file->string()};
}

// Creates `table_dir/metadata` so that no one ever sees `table_dir` without its metadata
// directory (which would read as a namespace): both are made under a hidden name beside it
// and renamed into place. A table directory that exists already is left as it is.
std::error_code CreateTableDirectories(const fs::path& table_dir) {
  std::error_code ec;
  if (IsDirectory(table_dir / "metadata")) return ec;
  const fs::path staging =
      table_dir.parent_path() /
      fmt::format(".{}.creating-{}", table_dir.filename().string(), iceberg::NewUuid());
  fs::create_directories(staging / "metadata", ec);
  if (ec) return ec;
  if (::rename(staging.c_str(), table_dir.c_str()) != 0) {
    const int error = errno;
    fs::remove_all(staging, ec);
    ec.clear();
    // Someone made it first (a table being created, or a namespace: the caller decides).
    if (error == EEXIST || error == ENOTEMPTY) return ec;
    return std::error_code(error, std::generic_category());
  }
  return ec;
}

// Whether `dir` is a table directory: its metadata directory holds a version hint or a
// metadata file.
bool IsTableDir(const fs::path& dir) {
  const fs::path metadata = dir / "metadata";
  if (!IsDirectory(metadata)) return false;
  if (IsRegular(metadata / std::string(kHintFile))) return true;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(metadata, ec)) {
    if (iceberg::IsMetadataFileName(entry.path().filename().string())) return true;
  }
  return false;
}

Result<std::string> ReadFileBytes(const io::FileIO& io, const std::string& path) {
  FLOE_ASSIGN_OR_RAISE(auto file, io.NewInputFile(path));
  FLOE_ASSIGN_OR_RAISE(BufferPtr bytes, file->ReadAt(0, file->size()));
  return std::string(reinterpret_cast<const char*>(bytes->data()),
                     static_cast<size_t>(bytes->size()));
}

std::string VersionFileName(int64_t version, bool gzip) {
  return fmt::format("v{}{}.metadata.json", version, gzip ? ".gz" : "");
}

Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError("writing {}: {}", path, std::strerror(errno));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  if (::fsync(fd) != 0) return Status::IOError("syncing {}: {}", path, std::strerror(errno));
  return Status::OK();
}

// Writes a complete temporary file beside `target` (a hidden name); returns its path.
// kNotFound when the directory does not exist.
Result<std::string> WriteTemporary(const fs::path& dir, std::string_view bytes) {
  const std::string temp = (dir / fmt::format(".{}.tmp", iceberg::NewUuid())).string();
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    int error = errno;
    if (error == ENOENT) return Status::NotFound("directory {} does not exist", dir.string());
    return Status::IOError("creating {}: {}", temp, std::strerror(error));
  }
  Status written = WriteAll(fd, bytes, temp);
  if (::close(fd) != 0 && written.ok()) {
    written = Status::IOError("closing {}: {}", temp, std::strerror(errno));
  }
  if (!written.ok()) {
    ::unlink(temp.c_str());
    return written;
  }
  return temp;
}

// Makes `bytes` the file `target` only if no file of that name exists, atomically: a reader
// never sees a partial file and of two writers exactly one succeeds. kConstraint when the
// file exists, kNotFound when its directory does not.
Status PublishExclusive(const fs::path& target, std::string_view bytes) {
  FLOE_ASSIGN_OR_RAISE(std::string temp, WriteTemporary(target.parent_path(), bytes));
  int rc = ::link(temp.c_str(), target.c_str());
  int error = rc == 0 ? 0 : errno;
  ::unlink(temp.c_str());
  if (rc == 0) return Status::OK();
  if (error == EEXIST) return Status::Constraint("{} already exists", target.string());
  if (error == ENOENT) {
    return Status::NotFound("directory {} does not exist", target.parent_path().string());
  }
  if (error == EPERM || error == ENOTSUP || error == EXDEV || error == EMLINK) {
    // A file system without hard links: create the file exclusively instead (a concurrent
    // reader may then see it partly written, but still only one writer wins).
    int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
      error = errno;
      if (error == EEXIST) return Status::Constraint("{} already exists", target.string());
      return Status::IOError("creating {}: {}", target.string(), std::strerror(error));
    }
    Status written = WriteAll(fd, bytes, target.string());
    ::close(fd);
    if (!written.ok()) ::unlink(target.c_str());
    return written;
  }
  return Status::IOError("creating {}: {}", target.string(), std::strerror(error));
}

// Replaces version-hint.text atomically.
Status WriteHint(const fs::path& metadata_dir, int64_t version) {
  FLOE_ASSIGN_OR_RAISE(std::string temp, WriteTemporary(metadata_dir, std::to_string(version)));
  const fs::path hint = metadata_dir / std::string(kHintFile);
  if (::rename(temp.c_str(), hint.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return Status::IOError("replacing {}: {}", hint.string(), std::strerror(error));
  }
  return Status::OK();
}

// The subdirectories of `dir` that are not hidden, sorted by name.
std::vector<std::string> SubdirectoryNames(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.empty() || name.front() == '.') continue;
    std::error_code type_ec;
    if (entry.is_directory(type_ec)) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

Result<std::shared_ptr<HadoopCatalog>> HadoopCatalog::Make(HadoopCatalogOptions options,
                                                           std::shared_ptr<const io::FileIO> io) {
  if (options.name.empty()) return Status::Invalid("HadoopCatalog: the catalog name is empty");
  if (options.warehouse.empty()) {
    return Status::Invalid("hadoop catalog {}: no warehouse directory given", options.name);
  }
  if (io::IsS3Path(options.warehouse)) {
    // As Iceberg says of its HadoopCatalog: a commit is safe only on a file system whose
    // rename is atomic and fails when the target exists.
    return Status::NotSupported(
        "hadoop catalog {}: warehouse '{}' is on S3, which has no atomic rename: a Hadoop "
        "catalog's commit needs one (two writers could both win). Use a SQL catalog "
        "(sqlite or postgresql) with the warehouse on S3",
        options.name, io::RedactUri(options.warehouse));
  }
  std::string local = LocalPath(options.warehouse);
  if (local.empty()) {
    return Status::NotSupported(
        "hadoop catalog {}: warehouse '{}' is not on the local file system (only local "
        "directories and file: URIs are supported)",
        options.name, io::RedactUri(options.warehouse));
  }
  std::error_code ec;
  fs::path absolute = fs::absolute(local, ec);
  if (ec)
    return Status::IOError("hadoop catalog {}: warehouse '{}': {}", options.name, local,
                           ec.message());
  options.warehouse = StripTrailingSlashes(absolute.lexically_normal().string());
  if (!options.create && !IsDirectory(options.warehouse)) {
    return Status::NotFound("hadoop catalog {}: warehouse directory {} does not exist",
                            options.name, options.warehouse);
  }
  fs::create_directories(options.warehouse, ec);
  if (ec || !IsDirectory(options.warehouse)) {
    return Status::IOError("hadoop catalog {}: cannot create the warehouse directory {}: {}",
                           options.name, options.warehouse, ec ? ec.message() : "not a directory");
  }
  if (io == nullptr) io = std::make_shared<io::LocalFileIO>();
  return std::shared_ptr<HadoopCatalog>(new HadoopCatalog(std::move(options), std::move(io)));
}

std::string HadoopCatalog::ToString() const {
  return fmt::format("HadoopCatalog(name={}, warehouse={})", options_.name, options_.warehouse);
}

std::string HadoopCatalog::NamespaceDir(const Namespace& ns) const {
  return ns.empty() ? options_.warehouse
                    : fmt::format("{}/{}", options_.warehouse, fmt::join(ns, "/"));
}

std::string HadoopCatalog::TableLocation(const TableIdentifier& id) const {
  return fmt::format("{}/{}", NamespaceDir(id.ns), id.name);
}

Result<bool> HadoopCatalog::IsNamespaceDir(const Namespace& ns) const {
  // Every level must be a directory that is not a table (a table's own subdirectories are
  // not namespaces).
  fs::path dir = options_.warehouse;
  for (const std::string& level : ns) {
    dir /= level;
    if (!IsDirectory(dir) || IsTableDir(dir)) return false;
  }
  return true;
}

Status HadoopCatalog::RequireNamespace(const Namespace& ns) const {
  FLOE_ASSIGN_OR_RAISE(bool exists, IsNamespaceDir(ns));
  if (!exists) return Status::NotFound("namespace {} does not exist", NamespaceToString(ns));
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Namespaces
// ---------------------------------------------------------------------------------------

Status HadoopCatalog::CreateNamespace(const Namespace& ns,
                                      const std::map<std::string, std::string>& properties) {
  FLOE_RETURN_NOT_OK(ValidateDirectoryNamespace(ns));
  const std::string name = NamespaceToString(ns);
  if (!properties.empty()) {
    return Status::NotSupported(
        "cannot create namespace {} with properties ({}): hadoop catalog {} keeps no namespace "
        "properties",
        name, properties.begin()->first, options_.name);
  }
  fs::path dir = options_.warehouse;
  for (size_t i = 0; i < ns.size(); ++i) {
    dir /= ns[i];
    if (IsTableDir(dir)) {
      return Status::Constraint("cannot create namespace {}: {} is a table", name,
                                NamespaceToString(Namespace(ns.begin(), ns.begin() + i + 1)));
    }
  }
  std::error_code ec;
  fs::create_directories(dir.parent_path(), ec);
  if (ec) return Status::IOError("create namespace {}: {}: {}", name, dir.string(), ec.message());
  // The last level is created on its own, so that of two concurrent creators exactly one
  // succeeds.
  bool created = fs::create_directory(dir, ec);
  if (ec) return Status::IOError("create namespace {}: {}: {}", name, dir.string(), ec.message());
  if (!created) return Status::Constraint("namespace {} already exists", name);
  return Status::OK();
}

Result<std::vector<Namespace>> HadoopCatalog::ListNamespaces(const Namespace& parent) const {
  if (!parent.empty()) {
    FLOE_RETURN_NOT_OK(ValidateDirectoryNamespace(parent));
    FLOE_RETURN_NOT_OK(RequireNamespace(parent));
  }
  const fs::path dir = NamespaceDir(parent);
  std::vector<Namespace> out;
  for (const std::string& child : SubdirectoryNames(dir)) {
    // A directory whose name holds a '.' cannot be named as a namespace level.
    if (child.find('.') != std::string::npos || IsTableDir(dir / child)) continue;
    Namespace ns = parent;
    ns.push_back(child);
    out.push_back(std::move(ns));
  }
  return out;
}

Result<bool> HadoopCatalog::NamespaceExists(const Namespace& ns) const {
  FLOE_RETURN_NOT_OK(ValidateDirectoryNamespace(ns));
  return IsNamespaceDir(ns);
}

Result<std::map<std::string, std::string>> HadoopCatalog::LoadNamespaceProperties(
    const Namespace& ns) const {
  FLOE_RETURN_NOT_OK(ValidateDirectoryNamespace(ns));
  FLOE_RETURN_NOT_OK(RequireNamespace(ns));
  return std::map<std::string, std::string>{{std::string(kLocationProperty), NamespaceDir(ns)}};
}

Status HadoopCatalog::UpdateNamespaceProperties(const Namespace& ns,
                                                const std::set<std::string>& removals,
                                                const std::map<std::string, std::string>& updates) {
  FLOE_RETURN_NOT_OK(ValidateDirectoryNamespace(ns));
  const std::string name = NamespaceToString(ns);
  for (const auto& [key, value] : updates) {
    if (removals.count(key) != 0) {
      return Status::Invalid("namespace {}: property '{}' is both updated and removed", name, key);
    }
  }
  FLOE_RETURN_NOT_OK(RequireNamespace(ns));
  if (removals.empty() && updates.empty()) return Status::OK();
  return Status::NotSupported(
      "cannot change the properties of namespace {}: hadoop catalog {} keeps no namespace "
      "properties",
      name, options_.name);
}

Status HadoopCatalog::DropNamespace(const Namespace& ns) {
  FLOE_RETURN_NOT_OK(ValidateDirectoryNamespace(ns));
  const std::string name = NamespaceToString(ns);
  FLOE_RETURN_NOT_OK(RequireNamespace(ns));
  const fs::path dir = NamespaceDir(ns);
  std::vector<std::string> tables;
  std::vector<std::string> children;
  std::vector<std::string> others;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string entry_name = entry.path().filename().string();
    std::error_code type_ec;
    if (!entry.is_directory(type_ec)) {
      others.push_back(std::move(entry_name));
    } else if (IsTableDir(entry.path())) {
      tables.push_back(std::move(entry_name));
    } else {
      children.push_back(std::move(entry_name));
    }
  }
  if (ec)
    return Status::IOError("drop namespace {}: listing {}: {}", name, dir.string(), ec.message());
  if (!tables.empty()) {
    return Status::Constraint("namespace {} is not empty: it holds {} table{}", name, tables.size(),
                              tables.size() == 1 ? "" : "s");
  }
  if (!children.empty()) {
    std::sort(children.begin(), children.end());
    return Status::Constraint("namespace {} is not empty: it holds namespace {}.{}", name, name,
                              children.front());
  }
  if (!others.empty()) {
    std::sort(others.begin(), others.end());
    return Status::Constraint("namespace {} is not empty: its directory {} holds file {}", name,
                              dir.string(), others.front());
  }
  // rmdir: fails (and drops nothing) when something was created in the meantime.
  if (::rmdir(dir.c_str()) != 0) {
    int error = errno;
    if (error == ENOTEMPTY || error == EEXIST) {
      return Status::Constraint("namespace {} is not empty", name);
    }
    if (error == ENOENT) return Status::NotFound("namespace {} does not exist", name);
    return Status::IOError("drop namespace {}: removing {}: {}", name, dir.string(),
                           std::strerror(error));
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------

Result<std::vector<TableIdentifier>> HadoopCatalog::ListTables(const Namespace& ns) const {
  FLOE_RETURN_NOT_OK(ValidateDirectoryNamespace(ns));
  FLOE_RETURN_NOT_OK(RequireNamespace(ns));
  const fs::path dir = NamespaceDir(ns);
  std::vector<TableIdentifier> tables;
  for (const std::string& child : SubdirectoryNames(dir)) {
    if (IsTableDir(dir / child)) tables.push_back(TableIdentifier{ns, child});
  }
  return tables;
}

Result<bool> HadoopCatalog::TableExists(const TableIdentifier& id) const {
  FLOE_RETURN_NOT_OK(ValidateDirectoryIdentifier(id));
  return IsTableDir(TableLocation(id));
}

Result<iceberg::Table> HadoopCatalog::CreateTable(const TableIdentifier& id,
                                                  const CreateTableRequest& request) {
  FLOE_RETURN_NOT_OK(ValidateDirectoryIdentifier(id));
  if (request.schema == nullptr) {
    return Status::Invalid("create table {}: no schema given", id.ToString());
  }
  const std::string location = TableLocation(id);
  if (!request.location.empty()) {
    std::string wanted = StripTrailingSlashes(LocalPath(request.location));
    if (wanted != location) {
      return Status::Invalid(
          "create table {}: a table of hadoop catalog {} is at {}; it cannot be created at {}",
          id.ToString(), options_.name, location, request.location);
    }
  }
  iceberg::NewTableOptions options;
  options.schema = request.schema;
  options.spec = request.spec;
  options.sort_order = request.sort_order;
  options.location = location;
  options.properties = request.properties;
  options.format_version = request.format_version;
  FLOE_ASSIGN_OR_RAISE(iceberg::TableMetadataPtr metadata,
                       iceberg::NewTableMetadata(options, NowMs()));
  const std::vector<iceberg::TableRequirement> requirements = {
      iceberg::TableRequirement::AssertCreate()};
  Result<iceberg::Table> created =
      CommitTable(id, requirements, iceberg::CreateTableUpdates(*metadata));
  if (!created.ok() && created.status().code() == StatusCode::kCommitConflict) {
    return Status::Constraint("table {} already exists", id.ToString());
  }
  return created;
}

Result<iceberg::Table> HadoopCatalog::LoadTable(const TableIdentifier& id) const {
  FLOE_RETURN_NOT_OK(ValidateDirectoryIdentifier(id));
  const fs::path table_dir = TableLocation(id);
  std::optional<Current> current = FindCurrent(table_dir / "metadata");
  if (!current.has_value()) {
    if (!IsTableDir(table_dir)) return Status::NotFound("table {} does not exist", id.ToString());
    // Metadata files named otherwise ("00001-<uuid>.metadata.json", a hint naming one), as
    // some writers leave them: readable, though commits need v<N> names.
    FLOE_ASSIGN_OR_RAISE(std::string path, iceberg::FindCurrentMetadataFile(table_dir.string()));
    current = Current{0, std::move(path)};
  }
  FLOE_ASSIGN_OR_RAISE(iceberg::TableMetadataPtr metadata, ReadMetadataFile(*io_, current->path));
  return iceberg::Table{std::move(current->path), std::move(metadata), io_};
}

Result<iceberg::Table> HadoopCatalog::RegisterTable(const TableIdentifier& id,
                                                    const std::string& metadata_location) {
  FLOE_RETURN_NOT_OK(ValidateDirectoryIdentifier(id));
  if (metadata_location.empty()) {
    return Status::Invalid("register table {}: no metadata file given", id.ToString());
  }
  // The file must be readable metadata before a name points at it.
  FLOE_ASSIGN_OR_RAISE(iceberg::TableMetadataPtr metadata,
                       ReadMetadataFile(*io_, metadata_location));
  FLOE_ASSIGN_OR_RAISE(std::string bytes, ReadFileBytes(*io_, metadata_location));
  FLOE_RETURN_NOT_OK(RequireNamespace(id.ns));
  const fs::path table_dir = TableLocation(id);
  if (IsTableDir(table_dir)) return Status::Constraint("table {} already exists", id.ToString());
  if (IsDirectory(table_dir) && !IsDirectory(table_dir / "metadata")) {
    return Status::Constraint("cannot register table {}: namespace {} has that name", id.ToString(),
                              id.ToString());
  }
  const bool gzip = bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
                    static_cast<unsigned char>(bytes[1]) == 0x8b;
  const fs::path metadata_dir = table_dir / "metadata";
  const fs::path target = metadata_dir / VersionFileName(1, gzip);
  std::error_code ec = CreateTableDirectories(table_dir);
  if (!ec && !IsDirectory(metadata_dir)) {
    return Status::Constraint("cannot register table {}: namespace {} has that name", id.ToString(),
                              id.ToString());
  }
  if (ec) {
    return Status::IOError("register table {}: creating {}: {}", id.ToString(),
                           metadata_dir.string(), ec.message());
  }
  Status published = PublishExclusive(target, bytes);
  if (published.code() == StatusCode::kConstraint) {
    return Status::Constraint("table {} already exists", id.ToString());
  }
  FLOE_RETURN_NOT_OK(published.WithPrefix(fmt::format("register table {}: ", id.ToString())));
  (void)WriteHint(metadata_dir, 1);
  return iceberg::Table{target.string(), std::move(metadata), io_};
}

Status HadoopCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  FLOE_RETURN_NOT_OK(ValidateDirectoryIdentifier(from));
  FLOE_RETURN_NOT_OK(ValidateDirectoryIdentifier(to));
  return Status::NotSupported(
      "cannot rename table {} to {}: hadoop catalog {} does not support renaming tables (a "
      "table is its directory)",
      from.ToString(), to.ToString(), options_.name);
}

Status HadoopCatalog::DropTable(const TableIdentifier& id, bool purge) {
  FLOE_RETURN_NOT_OK(ValidateDirectoryIdentifier(id));
  const fs::path table_dir = TableLocation(id);
  std::optional<Current> current = FindCurrent(table_dir / "metadata");
  if (!current.has_value()) {
    if (!IsTableDir(table_dir)) return Status::NotFound("table {} does not exist", id.ToString());
    FLOE_ASSIGN_OR_RAISE(std::string path, iceberg::FindCurrentMetadataFile(table_dir.string()));
    current = Current{0, std::move(path)};
  }
  // Files inside the table directory go with it; the others are purged after it is gone.
  iceberg::TableMetadataPtr metadata;
  Result<std::vector<std::string>> outside = std::vector<std::string>();
  if (purge) {
    Result<iceberg::TableMetadataPtr> read = ReadMetadataFile(*io_, current->path);
    if (!read.ok()) {
      return read.status().WithPrefix(fmt::format(
          "cannot purge table {} (nothing was dropped; drop it without purge): ", id.ToString()));
    }
    metadata = std::move(*read);
    outside = ReachableFiles(*io_, *metadata, current->path);
    if (outside.ok()) {
      const std::string prefix = table_dir.string() + "/";
      std::erase_if(*outside,
                    [&](const std::string& file) { return LocalPath(file).rfind(prefix, 0) == 0; });
    }
  }
  // The table disappears at once: its directory is renamed to a hidden name, then removed.
  const fs::path trash =
      table_dir.parent_path() / fmt::format(".{}.dropped-{}", id.name, iceberg::NewUuid());
  if (::rename(table_dir.c_str(), trash.c_str()) != 0) {
    int error = errno;
    if (error == ENOENT) return Status::NotFound("table {} does not exist", id.ToString());
    return Status::IOError("drop table {}: renaming {}: {}", id.ToString(), table_dir.string(),
                           std::strerror(error));
  }
  std::error_code ec;
  fs::remove_all(trash, ec);
  if (ec) {
    return Status::IOError("table {} was dropped, but removing its directory {} failed: {}",
                           id.ToString(), trash.string(), ec.message());
  }
  if (!purge) return Status::OK();
  return DeleteDroppedTableFiles(*io_, id, outside, *metadata, current->path);
}

Result<iceberg::Table> HadoopCatalog::CommitTable(
    const TableIdentifier& id, const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates) {
  FLOE_RETURN_NOT_OK(ValidateDirectoryIdentifier(id));
  const bool create = std::any_of(requirements.begin(), requirements.end(), [](const auto& r) {
    return r.kind == iceberg::TableRequirement::Kind::kAssertCreate;
  });
  const std::string location = TableLocation(id);
  const fs::path table_dir = location;
  const fs::path metadata_dir = table_dir / "metadata";

  // The base: the metadata current now (nullptr when the table does not exist).
  std::optional<Current> current = FindCurrent(metadata_dir);
  iceberg::TableMetadataPtr base;
  if (current.has_value()) {
    Result<iceberg::TableMetadataPtr> read = ReadMetadataFile(*io_, current->path);
    if (!read.ok()) {
      if (read.status().code() == StatusCode::kNotFound && !IsTableDir(table_dir)) {
        return Status::NotFound("table {} was dropped during the commit", id.ToString());
      }
      return read.status();
    }
    base = std::move(*read);
  } else if (!create) {
    if (IsTableDir(table_dir)) {
      return Status::NotSupported(
          "cannot commit to table {}: its metadata files are not named v<N>.metadata.json, the "
          "only names hadoop catalog {} commits",
          id.ToString(), options_.name);
    }
    return Status::NotFound("table {} does not exist", id.ToString());
  } else {
    FLOE_RETURN_NOT_OK(RequireNamespace(id.ns));
    // A directory without a metadata directory is a namespace (one with it is a table being
    // created concurrently: the exclusive write below decides).
    if (IsDirectory(table_dir) && !IsDirectory(metadata_dir)) {
      return Status::Constraint("cannot create table {}: namespace {} has that name", id.ToString(),
                                id.ToString());
    }
  }
  FLOE_RETURN_NOT_OK(iceberg::CheckRequirements(base.get(), requirements)
                         .WithPrefix(fmt::format("commit to table {}: ", id.ToString())));
  if (base != nullptr && updates.empty()) {
    return iceberg::Table{current->path, base, io_};
  }

  // The new metadata.
  iceberg::TableMetadataPtr next;
  int64_t version = 1;
  if (base != nullptr) {
    FLOE_ASSIGN_OR_RAISE(
        next, iceberg::ApplyUpdates(*base, updates, std::max(NowMs(), base->last_updated_ms),
                                    current->path));
    version = current->version + 1;
    if (next->location != base->location) {
      return Status::Invalid(
          "commit to table {}: a table of hadoop catalog {} cannot move (from {} to {})",
          id.ToString(), options_.name, base->location, next->location);
    }
  } else {
    iceberg::TableMetadata empty;
    std::vector<iceberg::TableUpdate> create_updates;
    for (const auto& update : updates) {
      if (const auto* upgrade = std::get_if<iceberg::update::UpgradeFormatVersion>(&update)) {
        empty.format_version = upgrade->format_version;
      }
    }
    create_updates.push_back(iceberg::update::SetLocation{location});
    create_updates.insert(create_updates.end(), updates.begin(), updates.end());
    FLOE_ASSIGN_OR_RAISE(next, iceberg::ApplyUpdates(empty, create_updates, NowMs()));
    if (StripTrailingSlashes(LocalPath(next->location)) != location) {
      return Status::Invalid(
          "create table {}: a table of hadoop catalog {} is at {}; it cannot be created at {}",
          id.ToString(), options_.name, location, next->location);
    }
  }
  const std::string file_name = VersionFileName(version, WantsGzip(next->properties));
  FLOE_ASSIGN_OR_RAISE(std::string bytes,
                       internal::MetadataFileBytes(*next, file_name, WantsGzip(next->properties)));
  const fs::path target = metadata_dir / file_name;
  if (base == nullptr) {
    std::error_code ec = CreateTableDirectories(table_dir);
    if (!ec && !IsDirectory(metadata_dir)) {
      return Status::Constraint("cannot create table {}: namespace {} has that name", id.ToString(),
                                id.ToString());
    }
    if (ec) {
      return Status::IOError("create table {}: creating {}: {}", id.ToString(),
                             metadata_dir.string(), ec.message());
    }
  }
  // The compare-and-set: version N+1 is written only if no one has written it. A version
  // file under another name form (gzip or not) is a conflict too.
  if (VersionFile(metadata_dir, version).has_value()) {
    return base == nullptr
               ? Status::CommitConflict("commit to table {}: the table was created concurrently",
                                        id.ToString())
               : Status::CommitConflict(
                     "commit to table {} lost to a concurrent commit: version {} exists",
                     id.ToString(), version);
  }
  Status published = PublishExclusive(target, bytes);
  if (published.code() == StatusCode::kConstraint) {
    if (base == nullptr) {
      return Status::CommitConflict("commit to table {}: the table was created concurrently",
                                    id.ToString());
    }
    return Status::CommitConflict(
        "commit to table {} lost to a concurrent commit: {} was written by another committer",
        id.ToString(), target.string());
  }
  if (published.code() == StatusCode::kNotFound) {
    return Status::NotFound("table {} was dropped during the commit", id.ToString());
  }
  FLOE_RETURN_NOT_OK(published.WithPrefix(fmt::format("commit to table {}: ", id.ToString())));
  // The commit has happened: a hint that cannot be written is only stale, and readers step
  // past a stale hint.
  (void)WriteHint(metadata_dir, version);
  if (base != nullptr) {
    internal::DeleteObsoleteMetadata(*io_, *base, current->path, *next, target.string());
  }
  return iceberg::Table{target.string(), std::move(next), io_};
}

}  // namespace floe::catalog
