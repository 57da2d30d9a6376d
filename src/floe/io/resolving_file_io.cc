#include "floe/io/resolving_file_io.h"

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
    out += " + S3(" + (c.endpoint.empty() ? "AWS" : c.endpoint) + " region " + c.region +
           (c.path_style ? " path-style" : "") + " access key " + c.credentials.access_key_id + ")";
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
  return std::make_shared<ResolvingFileIO>(std::move(local), std::move(usable));
}

}  // namespace floe::io
