#pragma once

// FileIO over S3 (s3://, s3a:// and s3n:// locations) through S3Client, and the
// configuration it is made from: Iceberg's property names as pyiceberg and the Java library
// read them, then the standard AWS environment variables and shared files.

#include <map>
#include <memory>
#include <string>

#include "floe/common/result.h"
#include "floe/io/file_io.h"
#include "floe/io/s3_client.h"

namespace floe::io {

/// The configuration of an S3FileIO.
struct S3FileIOOptions {
  S3Options client;
  /// Objects up to this size are written with one PUT; larger ones as multipart uploads of
  /// parts this size (`s3.multipart.part-size-bytes`; at least 5 MiB, S3's minimum).
  int64_t part_size = int64_t{32} << 20;
  /// Parts uploaded at once per file.
  int upload_threads = 4;
};

/// The S3 options from properties (a catalog's in ~/.floe.yaml, or a table's), in
/// Iceberg's names: `s3.endpoint`, `s3.access-key-id`, `s3.secret-access-key`,
/// `s3.session-token` (and when it expires, `s3.session-token-expires-at-ms`), `s3.region`
/// (else `client.region`), `s3.path-style-access` (by default path-style for an endpoint on
/// an IP address or localhost, virtual-hosted else), `s3.multipart.part-size-bytes`. What
/// they leave out comes from the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
/// `AWS_SESSION_TOKEN`, `AWS_REGION` / `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL_S3` /
/// `AWS_ENDPOINT_URL`), then from the shared files `~/.aws/credentials` and `~/.aws/config`
/// (`AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE`) for the profile `AWS_PROFILE` (default
/// "default"). `env` and `home` are the environment and home directory to read (tests pass
/// their own).
/// kInvalidArgument naming the property for a malformed value.
Result<S3FileIOOptions> S3FileIOOptionsFrom(const std::map<std::string, std::string>& properties,
                                            const std::map<std::string, std::string>& env,
                                            const std::string& home);

/// S3FileIOOptionsFrom with this process's environment and $HOME.
Result<S3FileIOOptions> S3FileIOOptionsFrom(const std::map<std::string, std::string>& properties);

/// Files on S3. Reads are ranged GETs (the size from one HEAD when the file is opened);
/// writes buffer up to the part size and go out as one PUT at Close, or as a multipart
/// upload whose parts are sent while the file is written (an upload that fails, or a file
/// dropped before Close, is aborted: nothing is left behind). CreateMode::kExclusive makes
/// the final write conditional (If-None-Match: *), so a metadata file is never replaced.
/// Directories are key prefixes.
class S3FileIO final : public FileIO {
 public:
  static Result<std::shared_ptr<S3FileIO>> Make(S3FileIOOptions options);

  Result<std::unique_ptr<RandomAccessFile>> NewInputFile(const std::string& path) const override;
  Result<std::unique_ptr<OutputStream>> NewOutputFile(
      const std::string& path, CreateMode mode = CreateMode::kOverwrite) const override;
  Result<bool> Exists(const std::string& path) const override;
  Status Delete(const std::string& path) const override;
  /// One DeleteObjects request per bucket and 1000 keys.
  std::vector<Status> DeleteFiles(const std::vector<std::string>& paths) const override;
  Result<std::vector<FileInfo>> ListDirectory(const std::string& path) const override;
  Result<std::string> ResolvePath(const std::string& path) const override;
  /// Lists the keys under the pattern's key up to its first wildcard (one level down with a
  /// '/' delimiter when the rest of the pattern holds no '/', else every key below) and
  /// keeps those the pattern matches; the matches keep the pattern's scheme and bucket.
  /// Keys ending in '/' (directory markers) never match. kInvalidArgument for a wildcard in
  /// the bucket; the listing's errors (an unknown bucket is kNotFound, access denied
  /// kInvalidArgument).
  Result<std::vector<std::string>> Glob(const std::string& pattern) const override;
  std::string ToString() const override;

  const S3FileIOOptions& options() const { return options_; }
  const std::shared_ptr<const S3Client>& client() const { return client_; }

 private:
  S3FileIO(S3FileIOOptions options, std::shared_ptr<const S3Client> client)
      : options_(std::move(options)), client_(std::move(client)) {}

  S3FileIOOptions options_;
  std::shared_ptr<const S3Client> client_;
};

/// Whether `path` is an S3 location (s3://, s3a://, s3n://).
bool IsS3Path(std::string_view path);

}  // namespace floe::io
