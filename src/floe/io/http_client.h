#pragma once

// HTTP over libcurl, shared by the S3 client and the REST catalog client: a pool of curl
// handles (a handle is taken for one request and given back after it, so its connections
// stay open for the next), one request with a method, URL, headers and body, the response's
// status, headers and body, connect and stall timeouts, and bounded retries with
// exponential back-off and jitter on connection errors and on the statuses a request names
// as transient. Nothing here prints a header value: callers say what a request is for
// messages (`HttpRequest::what`), and that text must hold no secret.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/common/result.h"

namespace floe::io {

/// How transient failures are retried.
struct HttpRetryPolicy {
  /// Attempts in all, the first included.
  int max_attempts = 6;
  /// The first back-off; each next one doubles, up to max_delay, and a random part of it
  /// (at least half) is waited.
  std::chrono::milliseconds base_delay{100};
  std::chrono::milliseconds max_delay{5000};
  /// No retry starts later than this after the first attempt.
  std::chrono::milliseconds max_total{60000};
};

struct HttpOptions {
  HttpRetryPolicy retry;
  std::chrono::milliseconds connect_timeout{10000};
  /// A request with no progress for this long fails (and may be retried).
  std::chrono::milliseconds request_timeout{120000};
  /// PEM file of the certificate authorities HTTPS servers are checked against; empty: the
  /// system's.
  std::string ca_file;
};

struct HttpRequest {
  /// GET, HEAD, PUT, POST, DELETE.
  std::string method = "GET";
  /// The full URL, query included (already encoded).
  std::string url;
  /// Sent as given; curl adds Host and Content-Length.
  std::vector<std::pair<std::string, std::string>> headers;
  /// The body of a PUT or POST (may be empty); the caller keeps it alive.
  std::string_view body;
  /// Statuses that are transient for this request and retried like connection errors.
  std::vector<long> retry_statuses = {429, 503};
  /// Asks for a compressed answer (Accept-Encoding) and decodes it.
  bool accept_compressed = false;
  /// What the request is, for messages ("GET s3://b/k"); never holds a secret.
  std::string what;
};

struct HttpResponse {
  long status = 0;
  std::string body;
  /// Header names lowercased; the last of repeated headers.
  std::map<std::string, std::string> headers;
  /// How many attempts were made, and whether the last status was one the request named
  /// transient (the retries gave up on it).
  int attempts = 1;
  bool gave_up = false;
  /// The time from the first attempt to the answer.
  std::chrono::milliseconds elapsed{0};
};

/// The scheme and authority of a service endpoint.
struct HttpEndpoint {
  std::string scheme;     // "http" or "https"
  std::string authority;  // "host[:port]"
};

/// Parses "http(s)://host[:port]" (trailing slashes allowed, no path). kInvalidArgument
/// naming `what` ("S3 endpoint") and the text otherwise.
Result<HttpEndpoint> ParseHttpEndpoint(std::string_view url, std::string_view what);

class HttpClient {
 public:
  explicit HttpClient(HttpOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// Sends the request made by `make` (called again for each attempt, so that a request
  /// signed with the time can be signed anew) and retries connection errors and the
  /// request's transient statuses by the retry policy. Returns the response of any status;
  /// when the retries gave up on a transient status, that last response with `gave_up`.
  /// kIOError naming `what`, the attempts and the time when no response came.
  Result<HttpResponse> Send(const std::function<Result<HttpRequest>()>& make) const;
  /// Send for a request that is the same on every attempt.
  Result<HttpResponse> Send(const HttpRequest& request) const;

  const HttpOptions& options() const { return options_; }

 private:
  // One attempt; `retryable` says whether a connection error may be retried.
  Result<HttpResponse> SendOnce(const HttpRequest& request, bool* retryable) const;

  HttpOptions options_;
  struct Pool;
  std::unique_ptr<Pool> pool_;
};

}  // namespace floe::io
