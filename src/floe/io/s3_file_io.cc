#include "floe/io/s3_file_io.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "floe/common/ascii.h"

extern char** environ;

namespace floe::io {
namespace {

constexpr int64_t kMinPartSize = int64_t{5} << 20;  // S3's smallest part but the last

// ---------------------------------------------------------------------------------------
// Configuration

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return std::string(s);
}

// The settings of one section of an AWS shared file ("[default]", "[profile x]" in the
// config file, "[x]" in the credentials file).
std::map<std::string, std::string> IniSection(const std::string& file, const std::string& name) {
  std::map<std::string, std::string> out;
  std::ifstream in(file);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      inside = Trim(std::string_view(t).substr(1, t.size() - 2)) == name;
      continue;
    }
    const size_t eq = t.find('=');
    if (inside && eq != std::string::npos) {
      out[AsciiLower(Trim(std::string_view(t).substr(0, eq)))] =
          Trim(std::string_view(t).substr(eq + 1));
    }
  }
  return out;
}

// The first non-empty value among the candidates.
std::string First(std::initializer_list<std::string> candidates) {
  for (const std::string& c : candidates) {
    if (!c.empty()) return c;
  }
  return "";
}

std::string Get(const std::map<std::string, std::string>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? "" : it->second;
}

// ---------------------------------------------------------------------------------------
// Files

Result<S3Location> Locate(std::string_view path) { return ParseS3Uri(path); }

class S3InputFile final : public RandomAccessFile {
 public:
  S3InputFile(std::shared_ptr<const S3Client> client, std::string path, S3Location at, int64_t size)
      : client_(std::move(client)), path_(std::move(path)), at_(std::move(at)), size_(size) {}

  int64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) const override {
    if (offset < 0 || length < 0 || offset > size_ || length > size_ - offset) {
      return Status::IOError("{}: cannot read {} bytes at offset {}: the file has {} bytes", path_,
                             length, offset, size_);
    }
    if (length == 0) return Buffer::CopyOf(std::string_view());
    FLOE_ASSIGN_OR_RAISE(std::string bytes, client_->Get(at_, offset, length));
    auto owner = std::make_shared<std::string>(std::move(bytes));
    return Buffer::Wrap(reinterpret_cast<const uint8_t*>(owner->data()),
                        static_cast<int64_t>(owner->size()), owner);
  }

 private:
  std::shared_ptr<const S3Client> client_;
  std::string path_;
  S3Location at_;
  int64_t size_;
};

class S3OutputStream final : public OutputStream {
 public:
  S3OutputStream(std::shared_ptr<const S3Client> client, std::string path, S3Location at,
                 CreateMode mode, int64_t part_size, int threads)
      : client_(std::move(client)),
        path_(std::move(path)),
        at_(std::move(at)),
        mode_(mode),
        part_size_(part_size),
        threads_(std::max(1, threads)) {}

  // Dropped before Close (or after a failed Close): the upload goes, no object is left.
  ~S3OutputStream() override {
    if (!closed_) Abandon();
  }

  Status Write(const void* data, int64_t length) override {
    if (closed_) return Status::IOError("{}: write after close", path_);
    FLOE_RETURN_NOT_OK(failed_);
    buffer_.append(static_cast<const char*>(data), static_cast<size_t>(length));
    position_ += length;
    // An exclusive file is written with one conditional PUT, whatever its size.
    while (mode_ != CreateMode::kExclusive && static_cast<int64_t>(buffer_.size()) >= part_size_) {
      std::string part = buffer_.substr(0, static_cast<size_t>(part_size_));
      buffer_.erase(0, static_cast<size_t>(part_size_));
      if (Status st = SendPart(std::move(part)); !st.ok()) return Fail(std::move(st));
    }
    return Status::OK();
  }

  int64_t position() const override { return position_; }
  const std::string& path() const override { return path_; }

  Status Close() override {
    if (closed_) return Status::OK();
    FLOE_RETURN_NOT_OK(failed_);
    if (upload_id_.empty()) {
      Status st = client_->Put(at_, buffer_, mode_ == CreateMode::kExclusive);
      if (!st.ok()) return Fail(std::move(st));
      closed_ = true;
      return Status::OK();
    }
    if (!buffer_.empty()) {
      if (Status st = SendPart(std::move(buffer_)); !st.ok()) return Fail(std::move(st));
      buffer_.clear();
    }
    while (!pending_.empty()) {
      if (Status st = Collect(); !st.ok()) return Fail(std::move(st));
    }
    Status st = client_->CompleteMultipartUpload(at_, upload_id_, etags_);
    if (!st.ok()) return Fail(std::move(st));
    closed_ = true;
    return Status::OK();
  }

 private:
  // Sends a part on its own thread, at most `threads_` at once.
  Status SendPart(std::string part) {
    if (upload_id_.empty()) {
      FLOE_ASSIGN_OR_RAISE(upload_id_, client_->CreateMultipartUpload(at_));
    }
    while (static_cast<int>(pending_.size()) >= threads_) FLOE_RETURN_NOT_OK(Collect());
    const int number = ++parts_;
    auto job = std::make_unique<PartUpload>();
    job->thread = std::thread([job = job.get(), client = client_, at = at_, id = upload_id_, number,
                               bytes = std::move(part)] {
      Result<std::string> etag = client->UploadPart(at, id, number, bytes);
      if (etag.ok()) {
        job->etag = std::move(*etag);
      } else {
        job->status = etag.status();
      }
    });
    pending_.push_back(std::move(job));
    return Status::OK();
  }

  // Waits for the oldest part in flight; its ETag, in part order.
  Status Collect() {
    std::unique_ptr<PartUpload> job = std::move(pending_.front());
    pending_.pop_front();
    job->thread.join();
    FLOE_RETURN_NOT_OK(job->status);
    etags_.push_back(std::move(job->etag));
    return Status::OK();
  }

  Status Fail(Status st) {
    failed_ = st;
    Abandon();
    return st;
  }

  void Abandon() {
    while (!pending_.empty()) {
      pending_.front()->thread.join();
      pending_.pop_front();
    }
    if (!upload_id_.empty()) {
      (void)client_->AbortMultipartUpload(at_, upload_id_);
      upload_id_.clear();
    }
    closed_ = true;
  }

  std::shared_ptr<const S3Client> client_;
  std::string path_;
  S3Location at_;
  CreateMode mode_;
  int64_t part_size_;
  int threads_;
  std::string buffer_;
  int64_t position_ = 0;
  std::string upload_id_;
  int parts_ = 0;
  // A part on its way: the thread sending it, and what it got.
  struct PartUpload {
    std::thread thread;
    Status status;
    std::string etag;
  };
  std::deque<std::unique_ptr<PartUpload>> pending_;
  std::vector<std::string> etags_;
  Status failed_;
  bool closed_ = false;
};

}  // namespace

bool IsS3Path(std::string_view path) {
  return path.starts_with("s3://") || path.starts_with("s3a://") || path.starts_with("s3n://");
}

Result<S3FileIOOptions> S3FileIOOptionsFrom(const std::map<std::string, std::string>& properties,
                                            const std::map<std::string, std::string>& env,
                                            const std::string& home) {
  const std::string profile = First({Get(env, "AWS_PROFILE"), "default"});
  const std::string credentials_file = First(
      {Get(env, "AWS_SHARED_CREDENTIALS_FILE"), home.empty() ? "" : home + "/.aws/credentials"});
  const std::string config_file =
      First({Get(env, "AWS_CONFIG_FILE"), home.empty() ? "" : home + "/.aws/config"});
  std::map<std::string, std::string> shared;
  if (!credentials_file.empty()) shared = IniSection(credentials_file, profile);
  std::map<std::string, std::string> config;
  if (!config_file.empty()) {
    config = IniSection(config_file, profile == "default" ? "default" : "profile " + profile);
  }

  S3FileIOOptions o;
  S3Options& c = o.client;
  c.endpoint = First({Get(properties, "s3.endpoint"), Get(env, "AWS_ENDPOINT_URL_S3"),
                      Get(env, "AWS_ENDPOINT_URL"), Get(config, "endpoint_url")});
  c.region =
      First({Get(properties, "s3.region"), Get(properties, "client.region"), Get(env, "AWS_REGION"),
             Get(env, "AWS_DEFAULT_REGION"), Get(config, "region"), "us-east-1"});
  c.credentials.access_key_id =
      First({Get(properties, "s3.access-key-id"), Get(env, "AWS_ACCESS_KEY_ID"),
             Get(shared, "aws_access_key_id"), Get(config, "aws_access_key_id")});
  c.credentials.secret_access_key =
      First({Get(properties, "s3.secret-access-key"), Get(env, "AWS_SECRET_ACCESS_KEY"),
             Get(shared, "aws_secret_access_key"), Get(config, "aws_secret_access_key")});
  c.credentials.session_token =
      First({Get(properties, "s3.session-token"), Get(env, "AWS_SESSION_TOKEN"),
             Get(shared, "aws_session_token"), Get(config, "aws_session_token")});
  // Only the properties say when credentials expire: the environment's and the shared
  // files' are taken to last.
  FLOE_ASSIGN_OR_RAISE(c.credentials_expire_at, ExpiryFrom(properties));
  const std::string path_style = AsciiLower(Get(properties, "s3.path-style-access"));
  if (path_style == "true") {
    c.path_style = true;
  } else if (path_style.empty()) {
    // A bucket cannot be a subdomain of an IP address or of localhost: path-style there.
    const size_t sep = c.endpoint.find("://");
    std::string host = sep == std::string::npos ? "" : c.endpoint.substr(sep + 3);
    host = host.substr(0, host.find_first_of(":/"));
    c.path_style = host == "localhost" ||
                   (!host.empty() && host.find_first_not_of("0123456789.") == std::string::npos);
  } else if (path_style != "false") {
    return Status::Invalid("s3.path-style-access must be true or false, not '{}'",
                           Get(properties, "s3.path-style-access"));
  }
  const std::string part_size = Get(properties, "s3.multipart.part-size-bytes");
  if (!part_size.empty()) {
    char* end = nullptr;
    const long long v = std::strtoll(part_size.c_str(), &end, 10);
    if (end == part_size.c_str() || *end != '\0' || v < kMinPartSize) {
      return Status::Invalid(
          "s3.multipart.part-size-bytes must be a number of bytes of at "
          "least {} (5 MiB), not '{}'",
          kMinPartSize, part_size);
    }
    o.part_size = v;
  }
  return o;
}

Result<S3FileIOOptions> S3FileIOOptionsFrom(const std::map<std::string, std::string>& properties) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    const size_t eq = kv.find('=');
    if (eq != std::string_view::npos && kv.starts_with("AWS_")) {
      env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
    }
  }
  const char* home = std::getenv("HOME");
  return S3FileIOOptionsFrom(properties, env, home == nullptr ? "" : home);
}

Result<std::shared_ptr<S3FileIO>> S3FileIO::Make(S3FileIOOptions options) {
  if (options.part_size < kMinPartSize) options.part_size = kMinPartSize;
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<const S3Client> client, S3Client::Make(options.client));
  return std::shared_ptr<S3FileIO>(new S3FileIO(std::move(options), std::move(client)));
}

Result<std::unique_ptr<RandomAccessFile>> S3FileIO::NewInputFile(const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(S3Location at, Locate(path));
  FLOE_ASSIGN_OR_RAISE(std::optional<int64_t> size, client_->Head(at));
  if (!size) return Status::NotFound("{} does not exist", path);
  return std::unique_ptr<RandomAccessFile>(
      std::make_unique<S3InputFile>(client_, path, std::move(at), *size));
}

Result<std::unique_ptr<OutputStream>> S3FileIO::NewOutputFile(const std::string& path,
                                                              CreateMode mode) const {
  FLOE_ASSIGN_OR_RAISE(S3Location at, Locate(path));
  if (at.key.empty() || at.key.back() == '/') {
    return Status::Invalid("{} names no object to write", path);
  }
  return std::unique_ptr<OutputStream>(std::make_unique<S3OutputStream>(
      client_, path, std::move(at), mode, options_.part_size, options_.upload_threads));
}

Result<bool> S3FileIO::Exists(const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(S3Location at, Locate(path));
  if (!at.key.empty() && at.key.back() != '/') {
    FLOE_ASSIGN_OR_RAISE(std::optional<int64_t> size, client_->Head(at));
    if (size) return true;
  }
  // A "directory": some key below it.
  std::string prefix = at.key;
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  FLOE_ASSIGN_OR_RAISE(S3Listing listing, client_->List(at.bucket, prefix, "/", 1));
  return !listing.objects.empty() || !listing.prefixes.empty();
}

Status S3FileIO::Delete(const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(S3Location at, Locate(path));
  if (at.key.empty()) return Status::IOError("{} is a bucket, not a file", path);
  return client_->Delete(at);
}

std::vector<Status> S3FileIO::DeleteFiles(const std::vector<std::string>& paths) const {
  std::vector<Status> results(paths.size());
  // The paths' indexes by bucket and key (a key named twice is deleted once).
  std::map<std::string, std::map<std::string, std::vector<size_t>>> buckets;
  for (size_t i = 0; i < paths.size(); ++i) {
    Result<S3Location> at = Locate(paths[i]);
    if (!at.ok()) {
      results[i] = at.status();
    } else if (at->key.empty()) {
      results[i] = Status::IOError("{} is a bucket, not a file", paths[i]);
    } else {
      buckets[at->bucket][at->key].push_back(i);
    }
  }
  for (const auto& [bucket, keys] : buckets) {
    std::vector<std::string> names;
    names.reserve(keys.size());
    for (const auto& entry : keys) names.push_back(entry.first);
    Result<std::vector<S3DeleteFailure>> failures = client_->DeleteMany(bucket, names);
    if (!failures.ok()) {
      for (const auto& entry : keys) {
        for (size_t i : entry.second) results[i] = failures.status();
      }
      continue;
    }
    for (const S3DeleteFailure& failure : *failures) {
      auto it = keys.find(failure.key);
      if (it == keys.end()) continue;
      for (size_t i : it->second) {
        results[i] =
            Status::IOError("cannot delete {}: {}: {}", paths[i], failure.code, failure.message);
      }
    }
  }
  return results;
}

Result<std::vector<FileInfo>> S3FileIO::ListDirectory(const std::string& path) const {
  FLOE_ASSIGN_OR_RAISE(S3Location at, Locate(path));
  std::string prefix = at.key;
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  FLOE_ASSIGN_OR_RAISE(S3Listing listing, client_->List(at.bucket, prefix, "/"));
  if (listing.objects.empty() && listing.prefixes.empty()) {
    return Status::NotFound("directory {} does not exist (no object under it)", path);
  }
  std::string base = path;
  while (!base.empty() && base.back() == '/') base.pop_back();
  std::vector<FileInfo> out;
  for (const S3Object& object : listing.objects) {
    FileInfo info;
    info.name = object.key.substr(prefix.size());
    if (info.name.empty()) continue;  // a "directory marker" object
    info.path = base + "/" + info.name;
    info.size = object.size;
    out.push_back(std::move(info));
  }
  for (const std::string& p : listing.prefixes) {
    FileInfo info;
    info.name = p.substr(prefix.size());
    while (!info.name.empty() && info.name.back() == '/') info.name.pop_back();
    info.path = base + "/" + info.name;
    info.is_directory = true;
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(),
            [](const FileInfo& a, const FileInfo& b) { return a.name < b.name; });
  return out;
}

Result<std::string> S3FileIO::ResolvePath(const std::string& path) const {
  FLOE_RETURN_NOT_OK(Locate(path).status());
  return path;
}

Result<std::vector<std::string>> S3FileIO::Glob(const std::string& pattern) const {
  FLOE_ASSIGN_OR_RAISE(S3Location at, Locate(pattern));
  if (HasGlobCharacters(at.bucket)) {
    return Status::Invalid("\"{}\": a bucket name cannot be a pattern", pattern);
  }
  // Every key the pattern can match starts with its key up to the first wildcard or escape.
  const size_t literal = at.key.find_first_of("*?[\\");
  const std::string prefix = at.key.substr(0, literal);
  const bool one_level =
      literal == std::string::npos || at.key.find('/', literal) == std::string::npos;
  FLOE_ASSIGN_OR_RAISE(S3Listing listing, client_->List(at.bucket, prefix, one_level ? "/" : ""));
  // The scheme and bucket as the pattern spells them ("s3a://bucket/").
  const std::string base = pattern.substr(0, pattern.size() - at.key.size());
  std::vector<std::string> out;
  for (const S3Object& object : listing.objects) {
    if (object.key.empty() || object.key.back() == '/') continue;
    if (fnmatch(at.key.c_str(), object.key.c_str(), FNM_PATHNAME | FNM_PERIOD) == 0) {
      out.push_back(base + object.key);
    }
  }
  if (out.empty()) return Status::NotFound("no files match \"{}\"", pattern);
  std::sort(out.begin(), out.end());
  return out;
}

std::string S3FileIO::ToString() const { return "S3FileIO(" + client_->ToString() + ")"; }

}  // namespace floe::io
