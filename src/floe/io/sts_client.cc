#include "floe/io/sts_client.h"

#include <charconv>

#include <fmt/format.h>

#include "floe/common/calendar.h"
#include "floe/io/xml_internal.h"

namespace floe::io {

namespace {

constexpr const char* kVersion = "2011-06-15";

std::string FormEncode(std::string_view text) { return sigv4::UriEncode(text, false); }

}  // namespace

Result<std::chrono::system_clock::time_point> ParseIsoUtc(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fff]Z
  auto number = [&](size_t at, size_t n, int* out) {
    if (at + n > text.size()) return false;
    auto [end, ec] = std::from_chars(text.data() + at, text.data() + at + n, *out);
    return ec == std::errc() && end == text.data() + at + n;
  };
  int year, month, day, hour, minute, second;
  if (text.size() < 20 || !number(0, 4, &year) || text[4] != '-' || !number(5, 2, &month) ||
      text[7] != '-' || !number(8, 2, &day) || text[10] != 'T' || !number(11, 2, &hour) ||
      text[13] != ':' || !number(14, 2, &minute) || text[16] != ':' || !number(17, 2, &second) ||
      text.back() != 'Z' || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 60) {
    return Status::Invalid("'{}' is not an ISO 8601 UTC time", text);
  }
  const int64_t days = DaysFromCivil(year, month, day);
  const int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second;
  return std::chrono::system_clock::time_point(std::chrono::seconds(seconds));
}

Result<std::unique_ptr<StsClient>> StsClient::Make(StsOptions options) {
  if (options.credentials.access_key_id.empty() || options.credentials.secret_access_key.empty()) {
    return Status::Invalid("STS needs an access key id and a secret access key");
  }
  if (options.region.empty()) options.region = "us-east-1";
  const std::string endpoint = options.endpoint.empty()
                                   ? "https://sts." + options.region + ".amazonaws.com"
                                   : options.endpoint;
  FLOE_ASSIGN_OR_RAISE(HttpEndpoint parsed, ParseHttpEndpoint(endpoint, "STS endpoint"));
  auto client = std::unique_ptr<StsClient>(new StsClient(std::move(options)));
  client->endpoint_ = std::move(parsed);
  return client;
}

StsClient::StsClient(StsOptions options)
    : options_(std::move(options)), http_(std::make_unique<HttpClient>(options_.http)) {}

StsClient::~StsClient() = default;

Result<TemporaryCredentials> StsClient::AssumeRole(const std::string& role_arn,
                                                   const std::string& session_name,
                                                   std::chrono::seconds duration,
                                                   const std::string& policy) const {
  std::string name;
  for (char c : session_name.substr(0, 64)) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') ||
                         std::string_view("+=,.@-").find(c) != std::string_view::npos;
    name.push_back(allowed ? c : '-');
  }
  if (name.size() < 2) name = "floe-" + name;
  std::string form = fmt::format(
      "Action=AssumeRole&Version={}&RoleArn={}&RoleSessionName={}"
      "&DurationSeconds={}",
      kVersion, FormEncode(role_arn), FormEncode(name), duration.count());
  if (!policy.empty()) form += "&Policy=" + FormEncode(policy);
  return Call(form, fmt::format("STS AssumeRole of {}", role_arn));
}

Result<TemporaryCredentials> StsClient::GetSessionToken(std::chrono::seconds duration) const {
  return Call(fmt::format("Action=GetSessionToken&Version={}&DurationSeconds={}", kVersion,
                          duration.count()),
              "STS GetSessionToken");
}

Result<TemporaryCredentials> StsClient::Call(const std::string& form,
                                             const std::string& what) const {
  auto make = [&]() -> Result<HttpRequest> {
    const std::string date = sigv4::AmzDate(std::chrono::system_clock::now());
    sigv4::Request to_sign;
    to_sign.method = "POST";
    to_sign.canonical_uri = "/";
    to_sign.headers = {{"host", endpoint_.authority},
                       {"content-type", "application/x-www-form-urlencoded; charset=utf-8"},
                       {"x-amz-date", date}};
    if (!options_.credentials.session_token.empty()) {
      to_sign.headers.emplace_back("x-amz-security-token", options_.credentials.session_token);
    }
    to_sign.payload_hash = sigv4::Sha256Hex(form);
    FLOE_ASSIGN_OR_RAISE(sigv4::Signed signed_request,
                         sigv4::Sign(to_sign, options_.credentials, options_.region, "sts", date));
    HttpRequest request;
    request.method = "POST";
    request.url = endpoint_.scheme + "://" + endpoint_.authority + "/";
    for (const auto& header : to_sign.headers) {
      if (header.first != "host") request.headers.push_back(header);
    }
    request.headers.emplace_back("authorization", signed_request.authorization);
    request.body = form;
    request.retry_statuses = {429, 500, 502, 503, 504};
    request.what = what;
    return request;
  };
  FLOE_ASSIGN_OR_RAISE(HttpResponse r, http_->Send(make));
  if (r.status != 200) {
    const std::string code = internal::XmlValue(r.body, "Code");
    const std::string message = internal::XmlValue(r.body, "Message");
    return Status::IOError("{}: refused (HTTP {}{}{})", what, r.status,
                           code.empty() ? "" : ", " + code, message.empty() ? "" : ": " + message);
  }
  TemporaryCredentials out;
  out.credentials.access_key_id = internal::XmlValue(r.body, "AccessKeyId");
  out.credentials.secret_access_key = internal::XmlValue(r.body, "SecretAccessKey");
  out.credentials.session_token = internal::XmlValue(r.body, "SessionToken");
  const std::string expiration = internal::XmlValue(r.body, "Expiration");
  if (out.credentials.access_key_id.empty() || out.credentials.secret_access_key.empty() ||
      expiration.empty()) {
    return Status::IOError("{}: the answer holds no credentials", what);
  }
  FLOE_ASSIGN_OR_RAISE(out.expiration, ParseIsoUtc(expiration));
  return out;
}

}  // namespace floe::io
