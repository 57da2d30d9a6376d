#include "floe/io/s3_client.h"

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <map>

#include <fmt/format.h>

#include "floe/common/ascii.h"
#include "floe/common/base64.h"
#include "floe/io/xml_internal.h"

namespace floe::io {

// ---------------------------------------------------------------------------------------
// Requests and responses

struct S3Client::Call {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string bucket;
  std::string key;  // empty for bucket-level requests
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;
  /// What the request is, for messages ("GET s3://b/k bytes 0-99").
  std::string what;
};

struct S3Client::Response : HttpResponse {};

namespace {

using internal::XmlEscape;
using internal::XmlValue;
using internal::XmlValues;

std::string Base64Md5(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), md, &n, EVP_md5(), nullptr);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(md), n));
}

// The server's error code and message from an S3 error body, "Code: Message".
std::string ServerError(const S3Client::Response& r) {
  std::string code = XmlValue(r.body, "Code");
  std::string message = XmlValue(r.body, "Message");
  if (code.empty() && message.empty()) return fmt::format("HTTP {}", r.status);
  return fmt::format("HTTP {} {}{}{}", r.status, code, message.empty() ? "" : ": ", message);
}

}  // namespace

Result<S3Location> ParseS3Uri(std::string_view uri) {
  for (std::string_view scheme : {"s3://", "s3a://", "s3n://"}) {
    if (uri.substr(0, scheme.size()) != scheme) continue;
    std::string_view rest = uri.substr(scheme.size());
    const size_t slash = rest.find('/');
    S3Location at;
    at.bucket = std::string(rest.substr(0, slash));
    at.key = slash == std::string_view::npos ? "" : std::string(rest.substr(slash + 1));
    if (at.bucket.empty()) return Status::Invalid("'{}' names no bucket", uri);
    return at;
  }
  return Status::Invalid("'{}' is not an S3 URI (s3://, s3a:// or s3n://bucket/key)", uri);
}

S3Client::S3Client(S3Options options) : options_(std::move(options)) {
  HttpOptions http;
  http.retry = options_.retry;
  http.connect_timeout = options_.connect_timeout;
  http.request_timeout = options_.request_timeout;
  http_ = std::make_unique<HttpClient>(std::move(http));
}

S3Client::~S3Client() = default;

Result<std::shared_ptr<const S3Client>> S3Client::Make(S3Options options) {
  const sigv4::Credentials initial = options.credentials_provider
                                         ? options.credentials_provider->Peek().credentials
                                         : options.credentials;
  if (initial.access_key_id.empty() || initial.secret_access_key.empty()) {
    return Status::Invalid(
        "S3: no credentials (set s3.access-key-id and s3.secret-access-key, or "
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)");
  }
  if (options.region.empty()) options.region = "us-east-1";
  std::string endpoint = options.endpoint.empty()
                             ? "https://s3." + options.region + ".amazonaws.com"
                             : options.endpoint;
  FLOE_ASSIGN_OR_RAISE(HttpEndpoint parsed, ParseHttpEndpoint(endpoint, "S3 endpoint"));
  if (options.retry.max_attempts < 1) options.retry.max_attempts = 1;
  auto client = std::shared_ptr<S3Client>(new S3Client(std::move(options)));
  client->scheme_ = std::move(parsed.scheme);
  client->authority_ = std::move(parsed.authority);
  return std::shared_ptr<const S3Client>(std::move(client));
}

std::string S3Client::ToString() const {
  return fmt::format("S3 {}://{} region {} {} access key {}", scheme_, authority_, options_.region,
                     options_.path_style ? "path-style" : "virtual-hosted",
                     options_.credentials_provider
                         ? options_.credentials_provider->Peek().credentials.access_key_id
                         : options_.credentials.access_key_id);
}

Result<HttpRequest> S3Client::MakeRequest(const Call& call) const {
  // The URL and the host header: path-style puts the bucket in the path, virtual-hosted
  // in the host.
  std::string host = options_.path_style ? authority_ : call.bucket + "." + authority_;
  std::string path = "/";
  if (options_.path_style) path += sigv4::UriEncode(call.bucket, false) + "/";
  path += sigv4::UriEncode(call.key, true);
  if (!options_.path_style && call.key.empty()) path = "/";
  if (options_.path_style && call.key.empty()) path.pop_back();
  HttpRequest out;
  out.url = scheme_ + "://" + host + path;
  for (size_t i = 0; i < call.query.size(); ++i) {
    out.url += i == 0 ? '?' : '&';
    out.url += sigv4::UriEncode(call.query[i].first, false) + '=' +
               sigv4::UriEncode(call.query[i].second, false);
  }

  // Signed anew for each attempt: the signature covers the time, and temporary credentials
  // may have been renewed since the last attempt. The request keeps the credentials it was
  // signed with whatever happens to the provider's afterwards.
  sigv4::Credentials credentials = options_.credentials;
  if (options_.credentials_provider) {
    Result<ExpiringCredentials> current = options_.credentials_provider->Current();
    if (!current.ok()) return current.status().WithPrefix(call.what + ": ");
    credentials = std::move(current->credentials);
  }
  sigv4::Request request;
  request.method = call.method;
  request.canonical_uri = path;
  request.query = call.query;
  request.payload_hash =
      call.body.empty() ? std::string(sigv4::kEmptyPayloadHash) : sigv4::Sha256Hex(call.body);
  const std::string date = sigv4::AmzDate(std::chrono::system_clock::now());
  request.headers = {
      {"host", host}, {"x-amz-content-sha256", request.payload_hash}, {"x-amz-date", date}};
  if (!credentials.session_token.empty()) {
    request.headers.emplace_back("x-amz-security-token", credentials.session_token);
  }
  for (const auto& h : call.headers) request.headers.push_back(h);
  FLOE_ASSIGN_OR_RAISE(sigv4::Signed sig,
                       sigv4::Sign(request, credentials, options_.region, "s3", date));
  out.headers = std::move(request.headers);
  out.headers.emplace_back("Authorization", sig.authorization);
  if (call.method == "PUT" || call.method == "POST") {
    out.headers.emplace_back("Content-Type", "application/octet-stream");
  }
  out.method = call.method;
  out.body = call.body;
  out.retry_statuses = {500, 502, 503, 504, 429};
  out.what = call.what;
  return out;
}

namespace {

struct ProcessCounts {
  std::atomic<int64_t> get{0}, head{0}, put{0}, list{0}, remove{0}, other{0};
  std::atomic<int64_t> bytes_read{0}, bytes_written{0}, retries{0}, failed{0};
};

ProcessCounts& Counts() {
  static auto* counts = new ProcessCounts();  // never destroyed: clients may outlive main
  return *counts;
}

// Counts one request: its kind from the method and query, its payload, its attempts.
void CountRequest(const S3Client::Call& call, const Result<S3Client::Response>& response,
                  int attempts) {
  ProcessCounts& c = Counts();
  auto has_query = [&](std::string_view name) {
    for (const auto& [key, value] : call.query) {
      if (key == name) return true;
    }
    return false;
  };
  if (call.method == "GET") {
    (has_query("list-type") || has_query("uploads") ? c.list : c.get).fetch_add(1);
  } else if (call.method == "HEAD") {
    c.head.fetch_add(1);
  } else if (call.method == "PUT") {
    c.put.fetch_add(1);
  } else if (call.method == "DELETE" && !has_query("uploadId")) {
    c.remove.fetch_add(1);
  } else if (call.method == "POST" && has_query("delete")) {
    c.remove.fetch_add(1);
  } else {
    c.other.fetch_add(1);
  }
  if (call.method == "PUT") c.bytes_written.fetch_add(static_cast<int64_t>(call.body.size()));
  if (response.ok() && call.method == "GET" && !has_query("list-type") && !has_query("uploads")) {
    c.bytes_read.fetch_add(static_cast<int64_t>(response->body.size()));
  }
  c.retries.fetch_add(std::max(0, attempts - 1));
  if (!response.ok()) c.failed.fetch_add(1);
}

}  // namespace

S3RequestCounts S3RequestCounts::operator-(const S3RequestCounts& before) const {
  S3RequestCounts d;
  d.get = get - before.get;
  d.head = head - before.head;
  d.put = put - before.put;
  d.list = list - before.list;
  d.remove = remove - before.remove;
  d.other = other - before.other;
  d.bytes_read = bytes_read - before.bytes_read;
  d.bytes_written = bytes_written - before.bytes_written;
  d.retries = retries - before.retries;
  d.failed = failed - before.failed;
  return d;
}

std::string S3RequestCounts::ToString() const {
  std::string kinds;
  for (const auto& [name, n] : {std::pair<const char*, int64_t>{"get", get},
                                {"head", head},
                                {"put", put},
                                {"list", list},
                                {"delete", remove},
                                {"other", other}}) {
    if (n > 0) kinds += fmt::format("{}{}={}", kinds.empty() ? "" : " ", name, n);
  }
  std::string out = fmt::format("requests={}", requests());
  if (!kinds.empty()) out += " (" + kinds + ")";
  out += fmt::format(" read={} written={} retries={}", bytes_read, bytes_written, retries);
  if (failed > 0) out += fmt::format(" failed={}", failed);
  return out;
}

S3RequestCounts ProcessS3RequestCounts() {
  const ProcessCounts& c = Counts();
  S3RequestCounts out;
  out.get = c.get.load();
  out.head = c.head.load();
  out.put = c.put.load();
  out.list = c.list.load();
  out.remove = c.remove.load();
  out.other = c.other.load();
  out.bytes_read = c.bytes_read.load();
  out.bytes_written = c.bytes_written.load();
  out.retries = c.retries.load();
  out.failed = c.failed.load();
  return out;
}

Result<S3Client::Response> S3Client::Send(const Call& call) const {
  Result<HttpResponse> http = http_->Send([&] { return MakeRequest(call); });
  if (!http.ok()) {
    // No answer came (connection errors to the end): the attempts are in the message.
    Result<Response> failed = http.status();
    CountRequest(call, failed, 1);
    return failed;
  }
  const int attempts = http->attempts;
  Response answer;
  static_cast<HttpResponse&>(answer) = std::move(*http);
  Result<Response> response = std::move(answer);
  if (response->gave_up) {
    const double seconds = std::chrono::duration<double>(response->elapsed).count();
    response = Status::IOError("{}: {} (gave up after {} attempt(s) in {:.1f} s)", call.what,
                               ServerError(*response), response->attempts, seconds);
  }
  CountRequest(call, response, attempts);
  return response;
}

namespace {

// The status of a response the caller did not expect.
Status Unexpected(const std::string& what, const S3Client::Response& r) {
  const std::string detail = ServerError(r);
  if (r.status == 404) {
    const std::string code = XmlValue(r.body, "Code");
    return Status::NotFound("{}: {}", what,
                            code == "NoSuchBucket" ? "the bucket does not exist (" + detail + ")"
                                                   : "not found (" + detail + ")");
  }
  if (r.status == 403) {
    return Status::Invalid("{}: access denied ({}); check the credentials and their permissions",
                           what, detail);
  }
  if (r.status == 400 || r.status == 401) return Status::Invalid("{}: {}", what, detail);
  return Status::IOError("{}: {}", what, detail);
}

}  // namespace

Result<std::string> S3Client::Get(const S3Location& at, int64_t offset, int64_t length) const {
  Call call;
  call.method = "GET";
  call.bucket = at.bucket;
  call.key = at.key;
  if (length == 0) return std::string();
  if (offset > 0 || length > 0) {
    const std::string range = length > 0 ? fmt::format("bytes={}-{}", offset, offset + length - 1)
                                         : fmt::format("bytes={}-", offset);
    call.headers.emplace_back("range", range);
    call.what = fmt::format("GET {} {}", at.ToString(), range);
  } else {
    call.what = "GET " + at.ToString();
  }
  FLOE_ASSIGN_OR_RAISE(Response r, Send(call));
  if (r.status == 416) {
    return Status::IOError("{}: the range is past the end of the object", call.what);
  }
  if (r.status != 200 && r.status != 206) return Unexpected(call.what, r);
  if (length > 0 && static_cast<int64_t>(r.body.size()) != length) {
    return Status::IOError("{}: {} bytes came, {} were asked for (the object is shorter)",
                           call.what, r.body.size(), length);
  }
  return std::move(r.body);
}

Result<std::optional<int64_t>> S3Client::Head(const S3Location& at) const {
  Call call;
  call.method = "HEAD";
  call.bucket = at.bucket;
  call.key = at.key;
  call.what = "HEAD " + at.ToString();
  FLOE_ASSIGN_OR_RAISE(Response r, Send(call));
  if (r.status == 404) return std::optional<int64_t>();
  if (r.status != 200) return Unexpected(call.what, r);
  auto it = r.headers.find("content-length");
  if (it == r.headers.end()) return Status::IOError("{}: no Content-Length", call.what);
  return std::optional<int64_t>(std::stoll(it->second));
}

Status S3Client::Put(const S3Location& at, std::string_view data, bool if_none_match) const {
  Call call;
  call.method = "PUT";
  call.bucket = at.bucket;
  call.key = at.key;
  call.body = data;
  call.what = fmt::format("PUT {} ({} bytes)", at.ToString(), data.size());
  if (if_none_match) call.headers.emplace_back("if-none-match", "*");
  FLOE_ASSIGN_OR_RAISE(Response r, Send(call));
  if (r.status == 412 ||
      (r.status == 409 && XmlValue(r.body, "Code") == "ConditionalRequestConflict")) {
    return Status::Constraint("{}: the object already exists", at.ToString());
  }
  if (r.status != 200) return Unexpected(call.what, r);
  return Status::OK();
}

Result<std::string> S3Client::CreateMultipartUpload(const S3Location& at) const {
  Call call;
  call.method = "POST";
  call.bucket = at.bucket;
  call.key = at.key;
  call.query = {{"uploads", ""}};
  call.what = "CreateMultipartUpload " + at.ToString();
  FLOE_ASSIGN_OR_RAISE(Response r, Send(call));
  if (r.status != 200) return Unexpected(call.what, r);
  std::string id = XmlValue(r.body, "UploadId");
  if (id.empty()) return Status::IOError("{}: no UploadId in the answer", call.what);
  return id;
}

Result<std::string> S3Client::UploadPart(const S3Location& at, const std::string& upload_id,
                                         int part_number, std::string_view data) const {
  Call call;
  call.method = "PUT";
  call.bucket = at.bucket;
  call.key = at.key;
  call.query = {{"partNumber", std::to_string(part_number)}, {"uploadId", upload_id}};
  call.body = data;
  call.what =
      fmt::format("UploadPart {} part {} ({} bytes)", at.ToString(), part_number, data.size());
  FLOE_ASSIGN_OR_RAISE(Response r, Send(call));
  if (r.status != 200) return Unexpected(call.what, r);
  auto it = r.headers.find("etag");
  if (it == r.headers.end()) return Status::IOError("{}: no ETag in the answer", call.what);
  return it->second;
}

Status S3Client::CompleteMultipartUpload(const S3Location& at, const std::string& upload_id,
                                         const std::vector<std::string>& etags) const {
  std::string xml = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < etags.size(); ++i) {
    xml += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1,
                       XmlEscape(etags[i]));
  }
  xml += "</CompleteMultipartUpload>";
  Call call;
  call.method = "POST";
  call.bucket = at.bucket;
  call.key = at.key;
  call.query = {{"uploadId", upload_id}};
  call.body = xml;
  call.what = fmt::format("CompleteMultipartUpload {} ({} parts)", at.ToString(), etags.size());
  FLOE_ASSIGN_OR_RAISE(Response r, Send(call));
  // S3 may answer 200 with an error in the body.
  if (r.status != 200 || r.body.find("<Error>") != std::string::npos) {
    return Unexpected(call.what, r);
  }
  return Status::OK();
}

Status S3Client::AbortMultipartUpload(const S3Location& at, const std::string& upload_id) const {
  Call call;
  call.method = "DELETE";
  call.bucket = at.bucket;
  call.key = at.key;
  call.query = {{"uploadId", upload_id}};
  call.what = "AbortMultipartUpload " + at.ToString();
  FLOE_ASSIGN_OR_RAISE(Response r, Send(call));
  if (r.status != 204 && r.status != 200 && r.status != 404) return Unexpected(call.what, r);
  return Status::OK();
}

Result<std::vector<std::string>> S3Client::ListMultipartUploads(const std::string& bucket,
                                                                const std::string& prefix) const {
  Call call;
  call.method = "GET";
  call.bucket = bucket;
  call.query = {{"prefix", prefix}, {"uploads", ""}};
  call.what = fmt::format("ListMultipartUploads s3://{}/{}", bucket, prefix);
  FLOE_ASSIGN_OR_RAISE(Response r, Send(call));
  if (r.status != 200) return Unexpected(call.what, r);
  std::vector<std::string> keys;
  for (const std::string& upload : XmlValues(r.body, "Upload")) {
    keys.push_back(XmlValue(upload, "Key"));
  }
  return keys;
}

Status S3Client::Delete(const S3Location& at) const {
  Call call;
  call.method = "DELETE";
  call.bucket = at.bucket;
  call.key = at.key;
  call.what = "DELETE " + at.ToString();
  FLOE_ASSIGN_OR_RAISE(Response r, Send(call));
  if (r.status != 204 && r.status != 200 && r.status != 404) return Unexpected(call.what, r);
  if (r.status == 404 && XmlValue(r.body, "Code") == "NoSuchBucket") {
    return Unexpected(call.what, r);
  }
  return Status::OK();
}

Result<std::vector<S3DeleteFailure>> S3Client::DeleteMany(
    const std::string& bucket, const std::vector<std::string>& keys) const {
  constexpr size_t kBatch = 1000;  // the most one DeleteObjects request takes
  std::vector<S3DeleteFailure> failures;
  for (size_t first = 0; first < keys.size(); first += kBatch) {
    const size_t last = std::min(keys.size(), first + kBatch);
    std::string xml = "<Delete><Quiet>true</Quiet>";
    for (size_t i = first; i < last; ++i) {
      xml += "<Object><Key>" + XmlEscape(keys[i]) + "</Key></Object>";
    }
    xml += "</Delete>";
    Call call;
    call.method = "POST";
    call.bucket = bucket;
    call.query = {{"delete", ""}};
    call.headers.emplace_back("content-md5", Base64Md5(xml));
    call.body = xml;
    call.what = fmt::format("DeleteObjects s3://{} ({} keys)", bucket, last - first);
    FLOE_ASSIGN_OR_RAISE(Response r, Send(call));
    if (r.status != 200) return Unexpected(call.what, r);
    for (const std::string& error : XmlValues(r.body, "Error")) {
      failures.push_back(
          {XmlValue(error, "Key"), XmlValue(error, "Code"), XmlValue(error, "Message")});
    }
  }
  return failures;
}

Result<S3Listing> S3Client::List(const std::string& bucket, const std::string& prefix,
                                 const std::string& delimiter, int page_size) const {
  S3Listing listing;
  std::string token;
  while (true) {
    Call call;
    call.method = "GET";
    call.bucket = bucket;
    call.query = {{"list-type", "2"}, {"prefix", prefix}};
    if (!delimiter.empty()) call.query.emplace_back("delimiter", delimiter);
    if (page_size > 0) call.query.emplace_back("max-keys", std::to_string(page_size));
    if (!token.empty()) call.query.emplace_back("continuation-token", token);
    call.what = fmt::format("LIST s3://{}/{}", bucket, prefix);
    FLOE_ASSIGN_OR_RAISE(Response r, Send(call));
    if (r.status != 200) return Unexpected(call.what, r);
    for (const std::string& contents : XmlValues(r.body, "Contents")) {
      S3Object object;
      object.key = XmlValue(contents, "Key");
      const std::string size = XmlValue(contents, "Size");
      object.size = size.empty() ? 0 : std::stoll(size);
      listing.objects.push_back(std::move(object));
    }
    for (const std::string& common : XmlValues(r.body, "CommonPrefixes")) {
      listing.prefixes.push_back(XmlValue(common, "Prefix"));
    }
    if (XmlValue(r.body, "IsTruncated") != "true") break;
    token = XmlValue(r.body, "NextContinuationToken");
    if (token.empty()) {
      return Status::IOError("{}: a truncated listing without a continuation token", call.what);
    }
  }
  return listing;
}

}  // namespace floe::io
