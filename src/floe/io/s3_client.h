#pragma once

// A client for the S3 REST API over floe's HTTP client (http_client.h), signed with floe's own
// Signature Version 4 (sigv4.h): ranged GET, HEAD, PUT (conditional with If-None-Match: *),
// multipart uploads, DELETE (one key, or up to 1000 per DeleteObjects request), ListObjectsV2 and
// ListMultipartUploads. Connections are reused through the HTTP client's pool of curl
// handles (keep-alive). Requests that fail transiently (connection errors and timeouts, HTTP 500,
// 502, 503 SlowDown, 504, 429) are retried with exponential back-off and jitter, bounded in
// attempts and in total time; then the error names the request, the attempts and the last
// failure. Nothing secret is ever part of a message or of ToString().

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/io/credentials_provider.h"
#include "floe/io/http_client.h"
#include "floe/io/sigv4.h"

namespace floe::io {

/// A bucket and a key.
struct S3Location {
  std::string bucket;
  std::string key;
  /// "s3://bucket/key", for messages.
  std::string ToString() const { return "s3://" + bucket + "/" + key; }
};

/// Parses "s3://bucket/key" (also s3a:// and s3n://, as Hadoop-based writers name them).
/// kInvalidArgument naming the URI for another scheme or a missing bucket.
Result<S3Location> ParseS3Uri(std::string_view uri);

/// How transient failures are retried.
using S3RetryPolicy = HttpRetryPolicy;

struct S3Options {
  /// "http://127.0.0.1:9000"; empty means AWS: https://s3.<region>.amazonaws.com.
  std::string endpoint;
  std::string region = "us-east-1";
  /// Path-style addressing (endpoint/bucket/key) instead of virtual-hosted
  /// (bucket.endpoint/key).
  bool path_style = false;
  sigv4::Credentials credentials;
  /// When `credentials` stop working (`s3.session-token-expires-at-ms`); nullopt: never.
  std::optional<std::chrono::system_clock::time_point> credentials_expire_at;
  /// When set, asked for the credentials of every request (and of every attempt of one),
  /// instead of `credentials`: temporary credentials renewed before they expire.
  std::shared_ptr<CredentialsProvider> credentials_provider;
  S3RetryPolicy retry;
  std::chrono::milliseconds connect_timeout{10000};
  /// A request with no progress for this long fails (and may be retried).
  std::chrono::milliseconds request_timeout{120000};
};

/// What the process's S3 clients have sent since it started, all clients together: each
/// request once however often it was attempted, by kind, and its payload bytes.
struct S3RequestCounts {
  int64_t get = 0;  // object reads
  int64_t head = 0;
  int64_t put = 0;     // whole objects and upload parts
  int64_t list = 0;    // ListObjectsV2, ListMultipartUploads
  int64_t remove = 0;  // DELETE, DeleteObjects
  int64_t other = 0;   // multipart upload create, complete, abort
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t retries = 0;  // attempts after the first
  int64_t failed = 0;   // requests that ended in an error

  int64_t requests() const { return get + head + put + list + remove + other; }
  S3RequestCounts operator-(const S3RequestCounts& before) const;
  /// "requests=12 (get=8 head=2 put=1 list=1) read=1234 written=56 retries=0", kinds with
  /// no request left out.
  std::string ToString() const;
};

/// The process's counts so far.
S3RequestCounts ProcessS3RequestCounts();

/// One object of a listing.
struct S3Object {
  std::string key;
  int64_t size = 0;
};

/// What a listing returns: objects, and with a delimiter the common prefixes.
struct S3Listing {
  std::vector<S3Object> objects;
  std::vector<std::string> prefixes;
};

/// A key that a DeleteObjects request could not delete, with S3's error code and message.
struct S3DeleteFailure {
  std::string key;
  std::string code;
  std::string message;
};

class S3Client {
 public:
  /// kInvalidArgument for a malformed endpoint or missing credentials.
  static Result<std::shared_ptr<const S3Client>> Make(S3Options options);
  ~S3Client();

  /// Bytes [offset, offset + length) of the object; `length` < 0 reads to its end. A range
  /// the object does not hold in full is kIOError naming the object.
  Result<std::string> Get(const S3Location& at, int64_t offset, int64_t length) const;
  /// The object's size, or nullopt when it does not exist.
  Result<std::optional<int64_t>> Head(const S3Location& at) const;
  /// Writes the object. With `if_none_match`, fails with kConstraint when it exists (a
  /// conditional PUT: two writers can never replace each other's object).
  Status Put(const S3Location& at, std::string_view data, bool if_none_match = false) const;

  /// Multipart uploads: the upload id; each part's ETag; completion from the ETags in part
  /// order (part numbers 1..n); Abort removes the parts.
  Result<std::string> CreateMultipartUpload(const S3Location& at) const;
  Result<std::string> UploadPart(const S3Location& at, const std::string& upload_id,
                                 int part_number, std::string_view data) const;
  Status CompleteMultipartUpload(const S3Location& at, const std::string& upload_id,
                                 const std::vector<std::string>& etags) const;
  Status AbortMultipartUpload(const S3Location& at, const std::string& upload_id) const;
  /// Keys of the uploads under `prefix` not yet completed or aborted.
  Result<std::vector<std::string>> ListMultipartUploads(const std::string& bucket,
                                                        const std::string& prefix) const;

  /// Deletes the object; deleting one that does not exist succeeds.
  Status Delete(const S3Location& at) const;
  /// Deletes the keys, 1000 per request (keys that do not exist are deleted already). The
  /// keys S3 refused, each with its reason; an error when a request fails as a whole.
  Result<std::vector<S3DeleteFailure>> DeleteMany(const std::string& bucket,
                                                  const std::vector<std::string>& keys) const;
  /// Every object under `prefix` (all pages); with a non-empty delimiter, the keys one level
  /// down and the common prefixes below that.
  /// `page_size` > 0 asks for at most that many keys per request (S3's default is 1000).
  Result<S3Listing> List(const std::string& bucket, const std::string& prefix,
                         const std::string& delimiter = "", int page_size = 0) const;

  /// The endpoint, region, addressing and access key id (the provider's current one); never
  /// the secret or the token.
  std::string ToString() const;
  const S3Options& options() const { return options_; }

  struct Response;
  struct Call;

 private:
  explicit S3Client(S3Options options);
  // Sends the request (signed anew for each attempt) and counts it
  // (ProcessS3RequestCounts).
  Result<Response> Send(const Call& call) const;
  Result<HttpRequest> MakeRequest(const Call& call) const;

  S3Options options_;
  std::unique_ptr<HttpClient> http_;
  // From the endpoint: "http" or "https", and host[:port].
  std::string scheme_;
  std::string authority_;
};

}  // namespace floe::io
