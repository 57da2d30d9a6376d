#include "floe/io/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <ctime>
#include <map>

#include "floe/common/ascii.h"
#include "floe/common/base64.h"

namespace floe::io::sigv4 {
namespace {

std::string Hex(const unsigned char* bytes, size_t n) {
  return HexEncode(std::string_view(reinterpret_cast<const char*>(bytes), n));
}

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &n);
  return std::string(reinterpret_cast<const char*>(out), n);
}

// A header value as signed: surrounding whitespace trimmed, runs of spaces made one.
std::string CanonicalValue(std::string_view value) {
  std::string out;
  bool space = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

bool ValidAmzDate(std::string_view d) {
  if (d.size() != 16 || d[8] != 'T' || d[15] != 'Z') return false;
  for (size_t i = 0; i < 15; ++i) {
    if (i != 8 && (d[i] < '0' || d[i] > '9')) return false;
  }
  return true;
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), out, &n, EVP_sha256(), nullptr);
  return Hex(out, n);
}

std::string UriEncode(std::string_view text, bool keep_slash) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back("0123456789ABCDEF"[c >> 4]);
      out.push_back("0123456789ABCDEF"[c & 0xf]);
    }
  }
  return out;
}

std::string AmzDate(std::chrono::system_clock::time_point time) {
  const std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[17];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

Result<Signed> Sign(const Request& request, const Credentials& credentials, std::string_view region,
                    std::string_view service, std::string_view amz_date) {
  if (!ValidAmzDate(amz_date)) {
    return Status::Invalid("SigV4: '{}' is not a date of the form 20150830T123600Z", amz_date);
  }
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return Status::Invalid("SigV4: no access key id or secret access key to sign with");
  }
  // Header names lowercased and sorted; values of a repeated name joined by commas.
  std::map<std::string, std::string> headers;
  for (const auto& [name, value] : request.headers) {
    std::string& joined = headers[AsciiLower(name)];
    if (!joined.empty()) joined += ',';
    joined += CanonicalValue(value);
  }
  if (headers.count("host") == 0) return Status::Invalid("SigV4: the request has no host header");
  std::string canonical_headers;
  std::string signed_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers += name + ':' + value + '\n';
    if (!signed_headers.empty()) signed_headers += ';';
    signed_headers += name;
  }
  // Query parameters encoded, then sorted by name and value.
  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [name, value] : request.query) {
    query.emplace_back(UriEncode(name, false), UriEncode(value, false));
  }
  std::sort(query.begin(), query.end());
  std::string canonical_query;
  for (const auto& [name, value] : query) {
    if (!canonical_query.empty()) canonical_query += '&';
    canonical_query += name + '=' + value;
  }
  Signed out;
  out.signed_headers = signed_headers;
  out.canonical_request = request.method + '\n' +
                          (request.canonical_uri.empty() ? "/" : request.canonical_uri) + '\n' +
                          canonical_query + '\n' + canonical_headers + '\n' + signed_headers +
                          '\n' + request.payload_hash;
  const std::string_view day = amz_date.substr(0, 8);
  const std::string scope =
      std::string(day) + '/' + std::string(region) + '/' + std::string(service) + "/aws4_request";
  out.string_to_sign = "AWS4-HMAC-SHA256\n" + std::string(amz_date) + '\n' + scope + '\n' +
                       Sha256Hex(out.canonical_request);
  std::string key = Hmac("AWS4" + credentials.secret_access_key, day);
  key = Hmac(key, region);
  key = Hmac(key, service);
  key = Hmac(key, "aws4_request");
  const std::string mac = Hmac(key, out.string_to_sign);
  out.signature = Hex(reinterpret_cast<const unsigned char*>(mac.data()), mac.size());
  out.authorization = "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + '/' + scope +
                      ", SignedHeaders=" + signed_headers + ", Signature=" + out.signature;
  return out;
}

}  // namespace floe::io::sigv4
