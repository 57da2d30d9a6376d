#pragma once

// A client of AWS Security Token Service (the Query API, signed with Signature Version 4):
// temporary credentials for the REST catalog server to vend with table loads. AssumeRole
// takes a role and, optionally, a session policy that narrows what the credentials reach
// (one table's prefix); GetSessionToken returns credentials with the caller's own rights.
// Nothing secret is ever part of a message.

#include <chrono>
#include <memory>
#include <string>

#include "floe/common/result.h"
#include "floe/io/http_client.h"
#include "floe/io/sigv4.h"

namespace floe::io {

struct StsOptions {
  /// "https://sts.<region>.amazonaws.com" when empty.
  std::string endpoint;
  std::string region = "us-east-1";
  /// The caller's credentials (long-term, or temporary with a session token).
  sigv4::Credentials credentials;
  HttpOptions http;
};

/// Credentials that end.
struct TemporaryCredentials {
  sigv4::Credentials credentials;
  std::chrono::system_clock::time_point expiration;
};

class StsClient {
 public:
  /// kInvalidArgument for a malformed endpoint or missing credentials.
  static Result<std::unique_ptr<StsClient>> Make(StsOptions options);
  ~StsClient();

  /// AssumeRole: credentials of `role_arn` for `duration`, named `session_name` (characters
  /// outside [A-Za-z0-9+=,.@-] become '-', at most 64), narrowed by `policy` (a JSON policy
  /// document) when not empty. Errors name the role and STS's code and message.
  Result<TemporaryCredentials> AssumeRole(const std::string& role_arn,
                                          const std::string& session_name,
                                          std::chrono::seconds duration,
                                          const std::string& policy = "") const;
  /// GetSessionToken: credentials with the caller's rights for `duration`.
  Result<TemporaryCredentials> GetSessionToken(std::chrono::seconds duration) const;

 private:
  explicit StsClient(StsOptions options);
  Result<TemporaryCredentials> Call(const std::string& form, const std::string& what) const;

  StsOptions options_;
  HttpEndpoint endpoint_;
  std::unique_ptr<HttpClient> http_;
};

/// Parses an ISO 8601 UTC time as STS writes it ("2026-12-05T19:00:00Z", fractions of a
/// second allowed). kInvalidArgument for another form.
Result<std::chrono::system_clock::time_point> ParseIsoUtc(std::string_view text);

}  // namespace floe::io
