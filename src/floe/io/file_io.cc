#include "floe/io/file_io.h"
#include "floe/common/ascii.h"
#include "floe/io/local_file.h"
#include "floe/io/s3_file_io.h"

#include <fcntl.h>
#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace floe::io {

namespace fs = std::filesystem;

std::vector<Status> FileIO::DeleteFiles(const std::vector<std::string>& paths) const {
  std::vector<Status> results;
  results.reserve(paths.size());
  for (const std::string& path : paths) results.push_back(Delete(path));
  return results;
}

namespace {

bool IsSchemeChar(char c, bool first) {
  if (std::isalpha(static_cast<unsigned char>(c))) return true;
  if (first) return false;
  return std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
}

// The words of a property key, lower-cased: split at separators and at camelCase boundaries.
std::vector<std::string> KeyWords(std::string_view key) {
  std::vector<std::string> words;
  std::string current;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    bool separator = !std::isalnum(static_cast<unsigned char>(c));
    bool camel_break = std::isupper(static_cast<unsigned char>(c)) && i > 0 &&
                       std::islower(static_cast<unsigned char>(key[i - 1]));
    if (separator || camel_break) {
      if (!current.empty()) words.push_back(std::move(current));
      current.clear();
      if (separator) continue;
    }
    current.push_back(AsciiToLower(c));
  }
  if (!current.empty()) words.push_back(std::move(current));
  return words;
}

bool IsKeyIdentifier(const std::vector<std::string>& words) {
  // "access-key-id", "accessKeyId", "key-id": names a key, does not hold it.
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "key" && words[i + 1] == "id") return true;
  }
  return false;
}

std::string MaskIdentifier(std::string_view value) {
  if (value.size() <= 4) return "***";
  return "***" + std::string(value.substr(value.size() - 4));
}

Status ErrnoStatus(std::string_view what, const std::string& written, const std::string& local) {
  int err = errno;
  if (written == local) {
    return Status::IOError("{} '{}': {}", what, RedactUri(written), std::strerror(err));
  }
  return Status::IOError("{} '{}' (local path '{}'): {}", what, RedactUri(written), local,
                         std::strerror(err));
}

std::string Described(const std::string& written, const std::string& local) {
  if (written == local) return fmt::format("'{}'", RedactUri(written));
  return fmt::format("'{}' (local path '{}')", RedactUri(written), local);
}

}  // namespace

std::string_view UriScheme(std::string_view path) {
  size_t i = 0;
  while (i < path.size() && IsSchemeChar(path[i], i == 0)) ++i;
  if (i == 0 || i >= path.size() || path[i] != ':') return {};
  std::string_view scheme = path.substr(0, i);
  if (path.substr(i + 1).starts_with("//") || AsciiLower(scheme) == "file") return scheme;
  return {};
}

bool IsSecretKey(std::string_view key) {
  std::vector<std::string> words = KeyWords(key);
  if (words.empty()) return false;
  static constexpr std::string_view kSecretWords[] = {
      "secret",        "password",  "passwd", "token",  "credential", "credentials",
      "authorization", "signature", "sas",    "apikey", "privatekey", "passphrase"};
  for (const std::string& w : words) {
    for (std::string_view s : kSecretWords) {
      if (w == s) return true;
    }
  }
  return words.back() == "key";
}

std::string RedactValue(std::string_view key, std::string_view value) {
  if (IsSecretKey(key)) return "***";
  if (IsKeyIdentifier(KeyWords(key))) return MaskIdentifier(value);
  return RedactUri(value);
}

std::map<std::string, std::string> RedactProperties(
    const std::map<std::string, std::string>& properties) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : properties) out.emplace(key, RedactValue(key, value));
  return out;
}

std::string RedactUri(std::string_view uri) {
  size_t scheme_end = uri.find("://");
  if (scheme_end == std::string_view::npos) return std::string(uri);
  size_t authority_begin = scheme_end + 3;
  size_t authority_end = uri.find_first_of("/?#", authority_begin);
  if (authority_end == std::string_view::npos) authority_end = uri.size();
  std::string out(uri.substr(0, authority_begin));
  std::string_view authority = uri.substr(authority_begin, authority_end - authority_begin);
  size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at);
    size_t colon = userinfo.find(':');
    if (colon != std::string_view::npos) {
      out.append(userinfo.substr(0, colon));
      out.append(":***");
    } else {
      out.append(userinfo);
    }
    out.append(authority.substr(at));
  } else {
    out.append(authority);
  }
  std::string_view rest = uri.substr(authority_end);
  size_t query = rest.find('?');
  if (query == std::string_view::npos) {
    out.append(rest);
    return out;
  }
  out.append(rest.substr(0, query + 1));
  std::string_view params = rest.substr(query + 1);
  std::string_view fragment;
  if (size_t hash = params.find('#'); hash != std::string_view::npos) {
    fragment = params.substr(hash);
    params = params.substr(0, hash);
  }
  bool first = true;
  while (true) {
    size_t amp = params.find('&');
    std::string_view param = params.substr(0, amp);
    if (!first) out.push_back('&');
    first = false;
    size_t eq = param.find('=');
    std::string_view name = param.substr(0, eq);
    std::string lower = AsciiLower(name);
    bool secret = IsSecretKey(name) || lower == "x-amz-signature" || lower == "x-amz-credential" ||
                  lower == "sig" || lower == "signature";
    if (secret && eq != std::string_view::npos) {
      out.append(name);
      out.append("=***");
    } else {
      out.append(param);
    }
    if (amp == std::string_view::npos) break;
    params = params.substr(amp + 1);
  }
  out.append(fragment);
  return out;
}

Result<PathMapRule> ParsePathMapRule(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return Status::Invalid("path map rule '{}' has no '=': expected FROM_PREFIX=TO_PREFIX",
                           RedactUri(text));
  }
  PathMapRule rule{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
  if (rule.from.empty()) {
    return Status::Invalid("path map rule '{}' has an empty FROM prefix", RedactUri(text));
  }
  if (rule.from.back() == '/' && !rule.to.empty() && rule.to.back() != '/') rule.to.push_back('/');
  return rule;
}

LocalFileIO::LocalFileIO(LocalFileIOOptions options) : options_(std::move(options)) {}

Result<std::shared_ptr<LocalFileIO>> LocalFileIO::Make(const std::vector<std::string>& path_map,
                                                       std::string base_dir) {
  LocalFileIOOptions options;
  options.base_dir = std::move(base_dir);
  for (const std::string& text : path_map) {
    FLOE_ASSIGN_OR_RAISE(PathMapRule rule, ParsePathMapRule(text));
    for (const PathMapRule& existing : options.path_map) {
      if (existing.from == rule.from && existing.to != rule.to) {
        return Status::Invalid("path map prefix '{}' is mapped twice: to '{}' and to '{}'",
                               RedactUri(rule.from), RedactUri(existing.to), RedactUri(rule.to));
      }
    }
    options.path_map.push_back(std::move(rule));
  }
  return std::make_shared<LocalFileIO>(std::move(options));
}

Result<std::vector<std::string>> FileIO::Glob(const std::string& pattern) const {
  return Status::NotSupported("cannot expand \"{}\": {} has no glob", RedactUri(pattern),
                              ToString());
}

Result<std::vector<std::string>> ExpandPathPatterns(const FileIO& io,
                                                    const std::vector<std::string>& patterns,
                                                    std::string_view function) {
  std::vector<std::string> paths;
  for (const std::string& pattern : patterns) {
    if (pattern.empty()) return Status::Invalid("{}: empty path", function);
    if (IsS3Path(pattern) && !HasGlobCharacters(pattern)) {
      paths.push_back(pattern);
      continue;
    }
    Result<std::vector<std::string>> matches = io.Glob(pattern);
    if (!matches.ok()) {
      if (matches.status().code() == StatusCode::kNotFound && !HasGlobCharacters(pattern) &&
          !IsS3Path(pattern)) {
        return Status::NotFound("no files match \"{}\" (the file does not exist)", pattern);
      }
      return matches.status();
    }
    if (matches->empty()) return Status::NotFound("no files match \"{}\"", pattern);
    paths.insert(paths.end(), matches->begin(), matches->end());
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  return paths;
}

bool HasGlobCharacters(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

Result<std::string> LocalFileIO::ResolvePath(const std::string& path) const {
  if (path.empty()) return Status::Invalid("empty file path");
  std::string mapped = path;
  const PathMapRule* best = nullptr;
  for (const PathMapRule& rule : options_.path_map) {
    if (path.starts_with(rule.from) && (best == nullptr || rule.from.size() > best->from.size())) {
      best = &rule;
    }
  }
  if (best != nullptr) mapped = best->to + path.substr(best->from.size());

  std::string_view scheme = UriScheme(mapped);
  std::string local;
  if (scheme.empty()) {
    local = mapped;
  } else if (AsciiLower(scheme) == "file") {
    std::string_view rest = std::string_view(mapped).substr(scheme.size() + 1);
    if (rest.starts_with("//")) {
      std::string_view after = rest.substr(2);
      size_t slash = after.find('/');
      std::string_view authority = after.substr(0, slash);
      if (authority.empty() || AsciiLower(authority) == "localhost") {
        local = slash == std::string_view::npos ? "/" : std::string(after.substr(slash));
      } else {
        // "file://data/x": a relative path written as a URI; the authority is its first part.
        local = std::string(after);
      }
    } else {
      local = std::string(rest);
    }
    if (local.empty()) {
      return Status::Invalid("file URI '{}' names no path", RedactUri(path));
    }
  } else {
    size_t authority_begin = scheme.size() + 3;
    size_t authority_end = mapped.find('/', authority_begin);
    std::string bucket = RedactUri(
        mapped.substr(0, authority_end == std::string::npos ? mapped.size() : authority_end + 1));
    if (bucket.back() != '/') bucket.push_back('/');
    return Status::NotSupported(
        "cannot open '{}': the local file system cannot read '{}://' paths and no path map rule "
        "matches; map it to a local directory, e.g. --path-map '{}=/local/dir/'",
        RedactUri(path), scheme, bucket);
  }
  fs::path p(local);
  if (p.is_relative() && !options_.base_dir.empty()) p = fs::path(options_.base_dir) / p;
  std::string normal = p.lexically_normal().string();
  // lexically_normal keeps a trailing separator for "dir/"; callers name files and directories
  // alike without one.
  if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  if (normal.empty()) normal = ".";
  return normal;
}

Result<std::unique_ptr<RandomAccessFile>> LocalFileIO::NewInputFile(const std::string& path) const {
  return Open(path, LocalReadOptions{}.map_min_size);
}

Result<std::unique_ptr<RandomAccessFile>> LocalFileIO::NewScanInputFile(
    const std::string& path) const {
  return Open(path, kScanMapMinSize);
}

Result<std::unique_ptr<RandomAccessFile>> LocalFileIO::Open(const std::string& path,
                                                            int64_t map_min_size) const {
  FLOE_ASSIGN_OR_RAISE(std::string local, ResolvePath(path));
  auto file = OpenLocalFile(local, LocalReadOptions{map_min_size});
  if (!file.ok()) {
    if (file.error().code() == StatusCode::kNotFound) {
      return Status::NotFound("file {} does not exist", Described(path, local));
    }
    if (path != local) return file.error().WithPrefix(fmt::format("'{}': ", RedactUri(path)));
  }
  return file;
}

Result<std::unique_ptr<OutputStream>> LocalFileIO::NewOutputFile(const std::string& path,
                                                                 CreateMode mode) const {
  FLOE_ASSIGN_OR_RAISE(std::string local, ResolvePath(path));
  fs::path parent = fs::path(local).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) {
      return Status::IOError("creating the directory '{}' for {}: {}", parent.string(),
                             Described(path, local), ec.message());
    }
  }
  if (mode == CreateMode::kExclusive) {
    // O_EXCL decides atomically who creates the file; the winner then reopens its own empty file.
    int fd = ::open(local.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
      if (errno == EEXIST)
        return Status::Constraint("file {} already exists", Described(path, local));
      return ErrnoStatus("creating", path, local);
    }
    ::close(fd);
  }
  return CreateLocalFile(local);
}

Result<bool> LocalFileIO::Exists(const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(std::string local, ResolvePath(path));
  std::error_code ec;
  fs::file_status st = fs::status(local, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::IOError("checking whether {} exists: {}", Described(path, local), ec.message());
  }
  return fs::exists(st);
}

Status LocalFileIO::Delete(const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(std::string local, ResolvePath(path));
  std::error_code ec;
  fs::file_status st = fs::symlink_status(local, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return Status::OK();
    return Status::IOError("deleting {}: {}", Described(path, local), ec.message());
  }
  if (fs::is_directory(st)) {
    return Status::IOError("cannot delete {}: it is a directory", Described(path, local));
  }
  if (::unlink(local.c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus("deleting", path, local);
  }
  return Status::OK();
}

Result<std::vector<FileInfo>> LocalFileIO::ListDirectory(const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(std::string local, ResolvePath(path));
  std::error_code ec;
  fs::directory_iterator it(local, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) {
      return Status::NotFound("directory {} does not exist", Described(path, local));
    }
    return Status::IOError("listing {}: {}", Described(path, local), ec.message());
  }
  std::string prefix = path;
  if (!prefix.empty() && prefix.back() != '/') prefix.push_back('/');
  std::vector<FileInfo> out;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    FileInfo info;
    info.name = it->path().filename().string();
    info.path = prefix + info.name;
    std::error_code entry_ec;
    info.is_directory = it->is_directory(entry_ec);
    if (!info.is_directory) {
      uintmax_t size = it->file_size(entry_ec);
      info.size = entry_ec ? 0 : static_cast<int64_t>(size);
    }
    out.push_back(std::move(info));
  }
  if (ec) return Status::IOError("listing {}: {}", Described(path, local), ec.message());
  std::sort(out.begin(), out.end(),
            [](const FileInfo& a, const FileInfo& b) { return a.name < b.name; });
  return out;
}

Result<std::vector<std::string>> LocalFileIO::Glob(const std::string& pattern) const {
  if (pattern.empty()) return Status::Invalid("empty file path");
  // A plain path that no rule rewrites and no base directory moves is globbed as written,
  // so that the matches are spelled as the user spelled the pattern.
  bool as_written =
      UriScheme(pattern).empty() && (options_.base_dir.empty() || fs::path(pattern).is_absolute());
  for (const PathMapRule& rule : options_.path_map) {
    if (pattern.starts_with(rule.from)) as_written = false;
  }
  std::string local = pattern;
  if (!as_written) {
    FLOE_ASSIGN_OR_RAISE(local, ResolvePath(pattern));
  }
  glob_t matches;
  std::memset(&matches, 0, sizeof(matches));
  const int rc = glob(local.c_str(), 0, nullptr, &matches);
  if (rc == GLOB_NOMATCH) {
    globfree(&matches);
    return Status::NotFound("no files match \"{}\"", pattern);
  }
  if (rc != 0) {
    globfree(&matches);
    return Status::IOError("cannot expand \"{}\": {}", pattern,
                           rc == GLOB_ABORTED ? "a directory could not be read" : "out of memory");
  }
  std::vector<std::string> out;
  out.reserve(matches.gl_pathc);
  for (size_t i = 0; i < matches.gl_pathc; ++i) out.emplace_back(matches.gl_pathv[i]);
  globfree(&matches);
  return out;
}

std::string LocalFileIO::ToString() const {
  std::string out = "LocalFileIO(base=";
  out += options_.base_dir.empty() ? "<working directory>" : options_.base_dir;
  out += ", path-map=[";
  for (size_t i = 0; i < options_.path_map.size(); ++i) {
    if (i > 0) out += ", ";
    out += RedactUri(options_.path_map[i].from) + "=" + RedactUri(options_.path_map[i].to);
  }
  out += "], properties={";
  bool first = true;
  for (const auto& [key, value] : RedactProperties(options_.properties)) {
    if (!first) out += ", ";
    first = false;
    out += key + "=" + value;
  }
  out += "})";
  return out;
}

}  // namespace floe::io
