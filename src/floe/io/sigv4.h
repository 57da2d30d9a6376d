#pragma once

// AWS Signature Version 4 (AWS General Reference, "Signing AWS API requests"), written here
// over OpenSSL's SHA-256 and HMAC-SHA256 rather than taken from the HTTP library: the
// canonical request, the string to sign, the derived signing key and the Authorization
// header. The S3 client (s3_client.h) adds the x-amz-date, x-amz-content-sha256 and
// x-amz-security-token headers and signs every request with this.

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/common/result.h"

namespace floe::io::sigv4 {

/// An access key, its secret and, for temporary credentials, the session token. Never
/// printed: ToString-style helpers show the access key id only.
struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
};

/// A request as the signer sees it.
struct Request {
  std::string method;  // "GET", "PUT", ...
  /// The path as sent, already URI-encoded (S3 encodes each key byte once; the signer does
  /// not encode it again).
  std::string canonical_uri;
  /// Query parameters, not encoded (a parameter without a value has an empty one).
  std::vector<std::pair<std::string, std::string>> query;
  /// Every header to sign, host included; names in any case.
  std::vector<std::pair<std::string, std::string>> headers;
  /// Lowercase hex SHA-256 of the payload, or "UNSIGNED-PAYLOAD".
  std::string payload_hash;
};

/// The signature and what it was computed from (the intermediate strings are for tests and
/// for messages that explain a rejected signature; they hold no secret).
struct Signed {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // "host;x-amz-date"
  std::string signature;       // lowercase hex
  std::string authorization;   // the Authorization header's value
};

/// Signs `request` for `region` and `service` at `amz_date` ("20150830T123600Z").
/// kInvalidArgument for a malformed date, a missing host header or empty credentials.
Result<Signed> Sign(const Request& request, const Credentials& credentials, std::string_view region,
                    std::string_view service, std::string_view amz_date);

/// "YYYYMMDDTHHMMSSZ" of a time point (UTC).
std::string AmzDate(std::chrono::system_clock::time_point time);

/// Lowercase hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

/// URI-encodes `text` as SigV4 wants: every byte but A-Z a-z 0-9 - _ . ~ as %XX
/// (uppercase hex), '/' kept when `keep_slash` (object keys in paths).
std::string UriEncode(std::string_view text, bool keep_slash);

/// The SHA-256 of an empty payload, in hex.
inline constexpr std::string_view kEmptyPayloadHash =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

}  // namespace floe::io::sigv4
