#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/io/file.h"

namespace floe::io {

/// One entry of a directory listing.
struct FileInfo {
  /// The entry's path in the FileIO's namespace: the listed directory's path as given, a '/',
  /// and the entry's name. It can be passed back to the same FileIO.
  std::string path;
  /// The entry's name inside the directory.
  std::string name;
  /// Size in bytes (0 for directories).
  int64_t size = 0;
  bool is_directory = false;
};

/// How NewOutputFile treats an existing file.
enum class CreateMode : uint8_t {
  /// Replace an existing file.
  kOverwrite,
  /// Fail with kConstraint when the file exists (for metadata files that must be new).
  kExclusive,
};

/// The files of a table as Iceberg metadata names them: paths and URIs exactly as written in
/// metadata JSON, manifest lists and manifests. Implementations are thread-safe.
class FileIO {
 public:
  virtual ~FileIO() = default;

  /// Opens a file for reading. NotFound when it does not exist; the message names the path as
  /// written and where it resolved to.
  virtual Result<std::unique_ptr<RandomAccessFile>> NewInputFile(const std::string& path) const = 0;
  /// Opens a file for a reader that checks RandomAccessFile::CheckIntact after it decoded
  /// what it read and before it hands any of it on (the Parquet reader): a local file may
  /// then be memory-mapped. Otherwise the same as NewInputFile.
  virtual Result<std::unique_ptr<RandomAccessFile>> NewScanInputFile(
      const std::string& path) const {
    return NewInputFile(path);
  }
  /// Creates a file for writing, creating missing parent directories.
  virtual Result<std::unique_ptr<OutputStream>> NewOutputFile(
      const std::string& path, CreateMode mode = CreateMode::kOverwrite) const = 0;
  /// Whether a file or directory exists at `path`.
  virtual Result<bool> Exists(const std::string& path) const = 0;
  /// Deletes a file. Deleting a file that does not exist succeeds (cleanup is idempotent); a
  /// directory is an IOError.
  virtual Status Delete(const std::string& path) const = 0;
  /// Deletes many files, each as Delete does; one Status per path, in order. Stores that
  /// delete in batches (S3's DeleteObjects, 1000 keys a request) override it; the default
  /// calls Delete for each.
  virtual std::vector<Status> DeleteFiles(const std::vector<std::string>& paths) const;
  /// The entries of a directory sorted by name. NotFound when it does not exist.
  virtual Result<std::vector<FileInfo>> ListDirectory(const std::string& path) const = 0;
  /// The storage location `path` maps to (for messages and diagnostics).
  virtual Result<std::string> ResolvePath(const std::string& path) const = 0;
  /// The files whose paths match the glob pattern `pattern`, sorted: `*` matches any run
  /// of characters and `?` one character, neither of them '/'; `[...]` matches one
  /// character of a set; `\` makes the next character literal; a name that begins with '.'
  /// matches only a pattern segment that begins with '.' (glob(3) and fnmatch(3) with
  /// FNM_PATHNAME | FNM_PERIOD). kNotFound "no files match \"<pattern>\"" when none does.
  /// The default is kNotSupported.
  virtual Result<std::vector<std::string>> Glob(const std::string& pattern) const;
  /// The configuration, with secrets redacted.
  virtual std::string ToString() const = 0;
};

/// Whether `pattern` holds a glob wildcard ('*', '?' or '[').
bool HasGlobCharacters(std::string_view pattern);

/// The files that paths and glob patterns name (the arguments of read_parquet, read_csv,
/// ...): each pattern expanded through `io`'s Glob, except an S3 path without wildcards, used
/// as named (opening it says when it is missing); sorted, each file once. kInvalidArgument
/// "<function>: empty path"; kNotFound "no files match \"<pattern>\"" (with "(the file does
/// not exist)" for a local path without wildcards); the FileIO's errors.
Result<std::vector<std::string>> ExpandPathPatterns(const FileIO& io,
                                                    const std::vector<std::string>& patterns,
                                                    std::string_view function);

/// A rule that rewrites paths starting with `from` to start with `to` instead.
struct PathMapRule {
  std::string from;
  std::string to;
};

/// Parses "FROM=TO" (as given to --path-map). The rule splits at the first '=', so FROM cannot
/// contain '=' while TO can. An empty TO makes matching paths relative to the base directory.
/// When FROM ends with '/' and a non-empty TO does not, a '/' is appended to TO so that
/// "s3://b/=/data" maps "s3://b/x" to "/data/x". InvalidArgument names the rule when it has no
/// '=' or an empty FROM.
Result<PathMapRule> ParsePathMapRule(std::string_view text);

/// The configuration of a LocalFileIO.
struct LocalFileIOOptions {
  /// Prefix rewrites, applied to the path string as written; the longest matching FROM wins.
  std::vector<PathMapRule> path_map;
  /// Directory that relative paths resolve against; empty means the working directory.
  std::string base_dir;
  /// Free-form properties kept for printing (catalog and storage properties); secrets in them
  /// are redacted by ToString().
  std::map<std::string, std::string> properties;
};

/// FileIO over the local file system. A path is resolved as follows:
///  1. The longest path-map rule whose FROM is a prefix of the path rewrites that prefix.
///  2. A "file:" URI becomes a local path: "file:///abs" and "file:/abs" are "/abs",
///     "file://localhost/abs" is "/abs" (RFC 8089), and any other authority is taken as the
///     first component of a relative path ("file://data/x" is "data/x", as some writers emit).
///     Percent-escapes are not decoded.
///  3. A relative path is joined to the base directory.
///  4. Any other scheme ("s3://", "s3a://", "gs://", ...) is NotSupported; the message names the
///     path and suggests a --path-map rule for its bucket.
class LocalFileIO final : public FileIO {
 public:
  explicit LocalFileIO(LocalFileIOOptions options = {});

  /// Builds the options from --path-map rule strings and a --base directory.
  static Result<std::shared_ptr<LocalFileIO>> Make(const std::vector<std::string>& path_map,
                                                   std::string base_dir = "");

  Result<std::unique_ptr<RandomAccessFile>> NewInputFile(const std::string& path) const override;
  /// Memory-maps regular files of at least kScanMapMinSize bytes.
  Result<std::unique_ptr<RandomAccessFile>> NewScanInputFile(
      const std::string& path) const override;
  Result<std::unique_ptr<OutputStream>> NewOutputFile(
      const std::string& path, CreateMode mode = CreateMode::kOverwrite) const override;
  Result<bool> Exists(const std::string& path) const override;
  Status Delete(const std::string& path) const override;
  Result<std::vector<FileInfo>> ListDirectory(const std::string& path) const override;
  Result<std::string> ResolvePath(const std::string& path) const override;
  /// glob(3) over the resolved pattern; the matches are local paths.
  Result<std::vector<std::string>> Glob(const std::string& pattern) const override;
  std::string ToString() const override;

  const LocalFileIOOptions& options() const { return options_; }

 private:
  Result<std::unique_ptr<RandomAccessFile>> Open(const std::string& path,
                                                 int64_t map_min_size) const;

  LocalFileIOOptions options_;
};

/// The scheme of a URI ("s3", "file", ...), or empty for a plain path. A scheme is recognized
/// only when followed by "://", or for "file:"; "a:b/c" is a plain path.
std::string_view UriScheme(std::string_view path);

/// Whether a property key names a secret: its lower-cased words (split at '.', '-', '_', ' ',
/// '/' and camelCase boundaries) contain secret, password, passwd, token, credential(s),
/// authorization, signature, sas, apikey or privatekey, or its last word is "key"
/// ("s3.secret-access-key", "s3.sse.key", "adls.auth.shared-key.account.key"). Key
/// identifiers such as "s3.access-key-id" are not secret (see RedactProperties), and neither is
/// "oauth2-server-uri".
bool IsSecretKey(std::string_view key);

/// The value printed for `key`: "***" for a secret key; for an access key id all but the last
/// four characters masked; otherwise the value with RedactUri applied.
std::string RedactValue(std::string_view key, std::string_view value);

/// A copy of `properties` with every value passed through RedactValue.
std::map<std::string, std::string> RedactProperties(
    const std::map<std::string, std::string>& properties);

/// Hides credentials inside a URI: the password of userinfo ("https://user:***@host") and the
/// values of query parameters that are secret by IsSecretKey or are request signatures
/// ("X-Amz-Signature", "X-Amz-Credential", "sig"). Text without "://" is returned unchanged.
std::string RedactUri(std::string_view uri);

}  // namespace floe::io
