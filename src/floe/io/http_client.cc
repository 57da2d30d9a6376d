#include "floe/io/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "floe/common/ascii.h"

namespace floe::io {

namespace {

size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t WriteHeader(char* data, size_t size, size_t n, void* user) {
  std::string_view line(data, size * n);
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
      value.remove_prefix(1);
    }
    while (!value.empty() &&
           (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
      value.remove_suffix(1);
    }
    (*static_cast<std::map<std::string, std::string>*>(user))[AsciiLower(line.substr(0, colon))] =
        std::string(value);
  }
  return size * n;
}

void CurlGlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

// The curl handle pool: a handle is taken for one request and returned after it, so its
// connections stay open for the next.
struct HttpClient::Pool {
  std::mutex mutex;
  std::vector<CURL*> idle;

  ~Pool() {
    for (CURL* h : idle) curl_easy_cleanup(h);
  }
  CURL* Take() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!idle.empty()) {
        CURL* h = idle.back();
        idle.pop_back();
        curl_easy_reset(h);
        return h;
      }
    }
    return curl_easy_init();
  }
  void Give(CURL* h) {
    std::lock_guard<std::mutex> lock(mutex);
    idle.push_back(h);
  }
};

HttpClient::HttpClient(HttpOptions options)
    : options_(std::move(options)), pool_(std::make_unique<Pool>()) {
  CurlGlobalInit();
  if (options_.retry.max_attempts < 1) options_.retry.max_attempts = 1;
}

HttpClient::~HttpClient() = default;

Result<HttpResponse> HttpClient::SendOnce(const HttpRequest& request, bool* retryable) const {
  *retryable = false;
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : request.headers) {
    headers = curl_slist_append(headers, (name + ": " + value).c_str());
  }
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip

  CURL* h = pool_->Take();
  if (h == nullptr) {
    curl_slist_free_all(headers);
    return Status::IOError("{}: cannot create a curl handle", request.what);
  }
  HttpResponse response;
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  // The path exactly as built: curl would otherwise remove "." and ".." segments, which are
  // names here (an S3 key "a/../b", a table called "..") and, for S3, part of the signature.
  curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  if (!options_.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, options_.ca_file.c_str());
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count()));
  // A request fails when it moves fewer than 1 byte per second for the timeout.
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
                   std::max(1L, static_cast<long>(options_.request_timeout.count() / 1000)));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, WriteHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &response.headers);
  if (request.accept_compressed) curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  if (request.method == "GET") {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (request.method == "PUT" || request.method == "POST") {
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
    }
  }
  const CURLcode code = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    // The connection may be broken: do not reuse the handle.
    curl_easy_cleanup(h);
    *retryable = code == CURLE_COULDNT_CONNECT || code == CURLE_OPERATION_TIMEDOUT ||
                 code == CURLE_SEND_ERROR || code == CURLE_RECV_ERROR ||
                 code == CURLE_GOT_NOTHING || code == CURLE_PARTIAL_FILE ||
                 code == CURLE_COULDNT_RESOLVE_HOST;
    return Status::IOError("{}: {}", request.what, error[0] ? error : curl_easy_strerror(code));
  }
  pool_->Give(h);
  const auto& transient = request.retry_statuses;
  *retryable = std::find(transient.begin(), transient.end(), response.status) != transient.end();
  return response;
}

Result<HttpResponse> HttpClient::Send(const std::function<Result<HttpRequest>()>& make) const {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 start);
  };
  thread_local std::mt19937_64 random(std::random_device{}());
  Status last;
  int attempt = 0;
  while (true) {
    ++attempt;
    FLOE_ASSIGN_OR_RAISE(HttpRequest request, make());
    bool retryable = false;
    Result<HttpResponse> response = SendOnce(request, &retryable);
    bool give_up = !retryable || attempt >= options_.retry.max_attempts;
    // Exponential back-off, at least half of it waited, the rest random.
    const int64_t cap =
        std::min<int64_t>(options_.retry.max_delay.count(), options_.retry.base_delay.count()
                                                                << std::min(attempt - 1, 20));
    const int64_t wait =
        cap / 2 + static_cast<int64_t>(random() % static_cast<uint64_t>(cap / 2 + 1));
    if (!give_up && elapsed() + std::chrono::milliseconds(wait) > options_.retry.max_total) {
      give_up = true;
    }
    if (give_up) {
      if (response.ok()) {
        response->attempts = attempt;
        response->gave_up = retryable;
        response->elapsed = elapsed();
        return response;
      }
      if (!retryable) return response;
      last = response.status();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(wait));
  }
  const double seconds = std::chrono::duration<double>(elapsed()).count();
  return Status::IOError("{} (gave up after {} attempt(s) in {:.1f} s)", last.message(), attempt,
                         seconds);
}

Result<HttpResponse> HttpClient::Send(const HttpRequest& request) const {
  return Send([&]() -> Result<HttpRequest> { return request; });
}

Result<HttpEndpoint> ParseHttpEndpoint(std::string_view url, std::string_view what) {
  const size_t sep = url.find("://");
  if (sep == std::string_view::npos) {
    return Status::Invalid("{} '{}' has no scheme (http:// or https://)", what, url);
  }
  HttpEndpoint endpoint;
  endpoint.scheme = AsciiLower(url.substr(0, sep));
  endpoint.authority = std::string(url.substr(sep + 3));
  while (!endpoint.authority.empty() && endpoint.authority.back() == '/') {
    endpoint.authority.pop_back();
  }
  if ((endpoint.scheme != "http" && endpoint.scheme != "https") || endpoint.authority.empty() ||
      endpoint.authority.find('/') != std::string::npos) {
    return Status::Invalid("{} '{}' is not http(s)://host[:port]", what, url);
  }
  return endpoint;
}

}  // namespace floe::io
