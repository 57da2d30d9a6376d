#pragma once

// The FileIO of a catalog or a table whose files may be local or on S3: each path goes to
// the FileIO of its scheme (s3://, s3a://, s3n:// to an S3FileIO; plain paths and file: URIs
// to a LocalFileIO), as Iceberg's ResolvingFileIO does. An S3 path that one of the local
// side's path-map rules rewrites is local (a table copied off S3, read where it lies). The S3 side
// is made on first use from options resolved when this is built, so a catalog without S3 settings
// works on local tables and fails only when a path on S3 is used, with an error that says what is
// missing.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "floe/io/file_io.h"
#include "floe/io/s3_file_io.h"

namespace floe::io {

/// How the vended credentials of one table are renewed before they expire (the catalog
/// that vended them supplies it).
struct CredentialsRenewal {
  /// Whose credentials these are, "table db.t of rest catalog lake": named in messages,
  /// and, with the other S3 settings, the identity of the FileIO every load of the table
  /// shares.
  std::string what;
  CredentialsProvider::Refresh refresh;
  /// The system clock when empty.
  CredentialsClock clock;
};

class ResolvingFileIO final : public FileIO {
 public:
  /// `s3` nullopt: no S3 settings were found (an S3 path is then an error).
  ResolvingFileIO(LocalFileIOOptions local, std::optional<S3FileIOOptions> s3);

  Result<std::unique_ptr<RandomAccessFile>> NewInputFile(const std::string& path) const override;
  Result<std::unique_ptr<RandomAccessFile>> NewScanInputFile(
      const std::string& path) const override;
  Result<std::unique_ptr<OutputStream>> NewOutputFile(
      const std::string& path, CreateMode mode = CreateMode::kOverwrite) const override;
  Result<bool> Exists(const std::string& path) const override;
  Status Delete(const std::string& path) const override;
  /// Each side's DeleteFiles with its paths (S3's in batches).
  std::vector<Status> DeleteFiles(const std::vector<std::string>& paths) const override;
  Result<std::vector<FileInfo>> ListDirectory(const std::string& path) const override;
  Result<std::string> ResolvePath(const std::string& path) const override;
  Result<std::vector<std::string>> Glob(const std::string& pattern) const override;
  /// Both sides' settings; never a secret.
  std::string ToString() const override;

  const LocalFileIO& local() const { return local_; }
  const std::optional<S3FileIOOptions>& s3_options() const { return s3_options_; }

  /// The properties this was made from by MakeResolvingFileIO (the catalog's settings);
  /// empty when made from resolved options.
  const std::map<std::string, std::string>& properties() const { return properties_; }

 private:
  friend Result<std::shared_ptr<ResolvingFileIO>> MakeResolvingFileIO(
      LocalFileIOOptions local, const std::map<std::string, std::string>& properties);
  friend Result<std::shared_ptr<const FileIO>> TableFileIO(
      const std::shared_ptr<const FileIO>& catalog_io,
      const std::map<std::string, std::string>& table_properties,
      const CredentialsRenewal* renewal);

  // The FileIO for `path`.
  Result<const FileIO*> For(const std::string& path) const;

  LocalFileIO local_;
  std::optional<S3FileIOOptions> s3_options_;
  std::map<std::string, std::string> properties_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<S3FileIO> s3_;
  // TableFileIO's FileIOs, by the S3 settings of the tables that asked.
  mutable std::map<std::map<std::string, std::string>, std::shared_ptr<const FileIO>> tables_;
};

/// The FileIO for a catalog or a session: a ResolvingFileIO whose S3 side takes its
/// settings from `properties` (Iceberg's s3.* names), the AWS environment and shared files
/// (S3FileIOOptionsFrom). When no credentials are found anywhere, S3 paths are refused.
Result<std::shared_ptr<ResolvingFileIO>> MakeResolvingFileIO(
    LocalFileIOOptions local, const std::map<std::string, std::string>& properties);

/// The FileIO for one table of a catalog whose FileIO is `catalog_io`: with the S3 settings
/// among the table's properties (`s3.*`, `client.region`) over the catalog's, as pyiceberg
/// merges them; `catalog_io` itself when the table sets none or `catalog_io` is not a
/// ResolvingFileIO made by MakeResolvingFileIO. Made once per distinct setting (a bounded
/// number of them are kept: vended credentials change with every table load).
///
/// With `renewal`, credentials that expire (`s3.session-token-expires-at-ms`) are renewed
/// through it: the S3 client gets a CredentialsProvider. Such a FileIO is kept by its
/// settings without the credentials and by `renewal->what`, so that each later load of the
/// table gets the same FileIO, hands it the credentials it brought when they last longer,
/// and shares the ones renewed since. kInvalidArgument for a malformed expiry.
Result<std::shared_ptr<const FileIO>> TableFileIO(
    const std::shared_ptr<const FileIO>& catalog_io,
    const std::map<std::string, std::string>& table_properties,
    const CredentialsRenewal* renewal = nullptr);

}  // namespace floe::io
