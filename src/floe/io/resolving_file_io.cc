#include "floe/io/resolving_file_io.h"

#include <map>

namespace floe::io {

ResolvingFileIO::ResolvingFileIO(LocalFileIOOptions local, std::optional<S3FileIOOptions> s3)
    : local_(std::move(local)), s3_options_(std::move(s3)) {}

Result<const FileIO*> ResolvingFileIO::For(const std::string& path) const {
  if (!IsS3Path(path)) return static_cast<const FileIO*>(&local_);
  // A path-map rule says where an S3 location is on the local file system (tables copied
  // off S3): it wins.
  for (const PathMapRule& rule : local_.options().path_map) {
    if (path.starts_with(rule.from)) return static_cast<const FileIO*>(&local_);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (s3_ == nullptr) {
    if (!s3_options_) {
      // The bucket's prefix, for the path-map suggestion ("s3a://warehouse/").
      const size_t bucket_end = path.find('/', path.find("://") + 3);
      const std::string bucket =
          path.substr(0, bucket_end == std::string::npos ? path.size() : bucket_end + 1);
      return Status::Invalid(
          "{} is on S3, but no S3 credentials are configured (s3.access-key-id and "
          "s3.secret-access-key on the catalog, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
          "or ~/.aws/credentials); if the files are on this machine, map them to a local "
          "directory, e.g. --path-map '{}=/local/dir/'",
          RedactUri(path), RedactUri(bucket));
    }
    FLOE_ASSIGN_OR_RAISE(s3_, S3FileIO::Make(*s3_options_));
  }
  return static_cast<const FileIO*>(s3_.get());
}

Result<std::unique_ptr<RandomAccessFile>> ResolvingFileIO::NewInputFile(
    const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(const FileIO* io, For(path));
  return io->NewInputFile(path);
}

Result<std::unique_ptr<RandomAccessFile>> ResolvingFileIO::NewScanInputFile(
    const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(const FileIO* io, For(path));
  return io->NewScanInputFile(path);
}

Result<std::unique_ptr<OutputStream>> ResolvingFileIO::NewOutputFile(const std::string& path,
                                                                     CreateMode mode) const {
  FLOE_ASSIGN_OR_RAISE(const FileIO* io, For(path));
  return io->NewOutputFile(path, mode);
}

Result<bool> ResolvingFileIO::Exists(const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(const FileIO* io, For(path));
  return io->Exists(path);
}

Status ResolvingFileIO::Delete(const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(const FileIO* io, For(path));
  return io->Delete(path);
}

std::vector<Status> ResolvingFileIO::DeleteFiles(const std::vector<std::string>& paths) const {
  std::vector<Status> results(paths.size());
  std::map<const FileIO*, std::vector<size_t>> sides;
  for (size_t i = 0; i < paths.size(); ++i) {
    Result<const FileIO*> io = For(paths[i]);
    if (io.ok()) {
      sides[*io].push_back(i);
    } else {
      results[i] = io.status();
    }
  }
  for (const auto& [io, indexes] : sides) {
    std::vector<std::string> batch;
    batch.reserve(indexes.size());
    for (size_t i : indexes) batch.push_back(paths[i]);
    std::vector<Status> deleted = io->DeleteFiles(batch);
    for (size_t k = 0; k < indexes.size(); ++k) results[indexes[k]] = std::move(deleted[k]);
  }
  return results;
}

Result<std::vector<FileInfo>> ResolvingFileIO::ListDirectory(const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(const FileIO* io, For(path));
  return io->ListDirectory(path);
}

Result<std::string> ResolvingFileIO::ResolvePath(const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(const FileIO* io, For(path));
  return io->ResolvePath(path);
}

Result<std::vector<std::string>> ResolvingFileIO::Glob(const std::string& pattern) const {
  FLOE_ASSIGN_OR_RAISE(const FileIO* io, For(pattern));
  return io->Glob(pattern);
}

std::string ResolvingFileIO::ToString() const {
  std::string out = local_.ToString();
  if (s3_options_) {
    const S3Options& c = s3_options_->client;
    const std::string access_key = c.credentials_provider
                                       ? c.credentials_provider->Peek().credentials.access_key_id
                                       : c.credentials.access_key_id;
    out += " + S3(" + (c.endpoint.empty() ? "AWS" : c.endpoint) + " region " + c.region +
           (c.path_style ? " path-style" : "") + " access key " + access_key + ")";
  }
  return out;
}

Result<std::shared_ptr<ResolvingFileIO>> MakeResolvingFileIO(
    LocalFileIOOptions local, const std::map<std::string, std::string>& properties) {
  FLOE_ASSIGN_OR_RAISE(S3FileIOOptions s3, S3FileIOOptionsFrom(properties));
  std::optional<S3FileIOOptions> usable;
  if (!s3.client.credentials.access_key_id.empty() &&
      !s3.client.credentials.secret_access_key.empty()) {
    usable = std::move(s3);
  }
  auto io = std::make_shared<ResolvingFileIO>(std::move(local), std::move(usable));
  io->properties_ = properties;
  return io;
}

Result<std::shared_ptr<const FileIO>> TableFileIO(
    const std::shared_ptr<const FileIO>& catalog_io,
    const std::map<std::string, std::string>& table_properties, const CredentialsRenewal* renewal) {
  std::map<std::string, std::string> s3;
  for (const auto& [key, value] : table_properties) {
    if (key.starts_with("s3.") || key == "client.region") s3.emplace(key, value);
  }
  const auto* resolving = dynamic_cast<const ResolvingFileIO*>(catalog_io.get());
  if (s3.empty() || resolving == nullptr) return catalog_io;
  FLOE_ASSIGN_OR_RAISE(std::optional<std::chrono::system_clock::time_point> expiry, ExpiryFrom(s3));
  // Credentials that are renewed are not part of the key: each load brings new ones, and
  // every load of the table shares the one provider that renews them.
  const bool renewed = renewal != nullptr && expiry.has_value();
  std::map<std::string, std::string> key = s3;
  if (renewed) {
    for (const char* credential : {"s3.access-key-id", "s3.secret-access-key", "s3.session-token",
                                   kSessionTokenExpiresAtMs}) {
      key.erase(credential);
    }
    // No property name is empty: this entry cannot be a table's.
    key[""] = renewal->what;
  }
  std::lock_guard<std::mutex> lock(resolving->mutex_);
  auto found = resolving->tables_.find(key);
  if (found != resolving->tables_.end()) {
    if (renewed) {
      const auto* io = dynamic_cast<const ResolvingFileIO*>(found->second.get());
      // The load's own credentials, when it brought a whole set (the expiry may come
      // without keys, which are then the catalog's).
      Result<ExpiringCredentials> vended = ExpiringCredentialsFrom(s3, renewal->what);
      if (io != nullptr && io->s3_options_ && io->s3_options_->client.credentials_provider &&
          vended.ok()) {
        io->s3_options_->client.credentials_provider->Offer(*vended);
      }
    }
    return found->second;
  }
  // Vended credentials change with every load: the cache is bounded (tables that hold a
  // FileIO keep it alive).
  constexpr size_t kMaxTableFileIOs = 32;
  if (resolving->tables_.size() >= kMaxTableFileIOs) resolving->tables_.clear();
  // The catalog's settings as it resolved them (properties, environment, shared files),
  // the table's over them.
  std::map<std::string, std::string> merged = s3;
  if (s3.count("client.region") != 0 && s3.count("s3.region") == 0) {
    merged["s3.region"] = s3.at("client.region");
  }
  std::map<std::string, std::string> base = resolving->properties_;
  if (const std::optional<S3FileIOOptions>& o = resolving->s3_options_) {
    const S3Options& c = o->client;
    base = {{"s3.endpoint", c.endpoint},
            {"s3.region", c.region},
            {"s3.access-key-id", c.credentials.access_key_id},
            {"s3.secret-access-key", c.credentials.secret_access_key},
            {"s3.session-token", c.credentials.session_token},
            {"s3.multipart.part-size-bytes", std::to_string(o->part_size)}};
    // The addressing follows the endpoint: the catalog's only with the catalog's endpoint.
    if (s3.count("s3.endpoint") == 0)
      base["s3.path-style-access"] = c.path_style ? "true" : "false";
  }
  merged.insert(base.begin(), base.end());  // keys the table set stay the table's
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<ResolvingFileIO> io,
                       MakeResolvingFileIO(resolving->local_.options(), merged));
  if (renewed && io->s3_options_) {
    S3Options& c = io->s3_options_->client;
    c.credentials_provider = std::make_shared<CredentialsProvider>(
        ExpiringCredentials{c.credentials, c.credentials_expire_at}, renewal->what,
        renewal->refresh, renewal->clock);
  }
  resolving->tables_.emplace(std::move(key), io);
  return std::shared_ptr<const FileIO>(std::move(io));
}

}  // namespace floe::io
