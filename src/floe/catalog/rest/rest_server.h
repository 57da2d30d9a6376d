#pragma once

// The Iceberg REST catalog specification served over any floe catalog (`floe catalog
// serve`): so that pyiceberg, Spark, Trino or DuckDB reach a SQL or Hadoop catalog over
// HTTP. RestCatalogService answers requests (and holds no transport); RestCatalogServer puts
// it on an io::HttpServer.
//
// - GET /v1/config lists the endpoints served (the multi-table commit only where the
//   backing catalog commits several tables atomically; the credentials endpoint only when
//   credentials are vended).
// - Namespaces and tables as the spec's paths say (namespace levels joined by %1F), lists
//   paged by pageToken/pageSize, staged creates (`stage-create`: the metadata is returned
//   and nothing is written until the client commits with assert-create), commits as
//   requirements + updates checked by the backing catalog's compare-and-set (a concurrent
//   commit is 409, which clients retry, never a lost update), register, rename, drop with
//   purgeRequested, and metrics reports (accepted and dropped).
// - Errors are the spec's ErrorModel with its exception types: 400 naming the field that is
//   wrong, 401 for a missing or expired token, 404 NoSuchNamespace/NoSuchTable, 409
//   AlreadyExists/NamespaceNotEmpty/CommitFailed, 500 CommitStateUnknown, 503 when the
//   backing store failed.
// - With clients configured, POST /v1/oauth/tokens grants bearer tokens that expire after
//   the TTL, by OAuth2 client credentials (form fields or HTTP Basic) or by RFC 8693 token
//   exchange of a live token; every other call needs a live token. Without clients every
//   request is accepted.
// - With a credential vendor, table loads asking for `vended-credentials` and the
//   credentials endpoint return storage credentials for the table's location.
// Nothing logged or answered holds a secret, a token or a storage key except the token and
// credential answers themselves.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "floe/catalog/catalog.h"
#include "floe/common/result.h"
#include "floe/io/http_server.h"
#include "floe/io/s3_client.h"

namespace floe::catalog {

/// Storage credentials for a table's files.
class CredentialVendor {
 public:
  virtual ~CredentialVendor() = default;
  /// FileIO properties in Iceberg's names (s3.access-key-id, s3.secret-access-key,
  /// s3.session-token, s3.session-token-expires-at-ms, s3.endpoint, ...) that reach the files
  /// under `location`, the storage location of table `id`.
  virtual Result<std::map<std::string, std::string>> Vend(const TableIdentifier& id,
                                                          const std::string& location) = 0;
};

/// What an STS credential vendor is made from.
struct StsVendorOptions {
  /// Where the tables' files are and the server's own credentials (from the catalog's S3
  /// settings): the endpoint, region and path style are handed on with the credentials.
  io::S3Options s3;
  /// AssumeRole of this role, with a session policy that narrows the credentials to the
  /// table's location; empty: GetSessionToken (the server's own rights, not narrowed).
  std::string role_arn;
  /// STS's endpoint; empty: the S3 endpoint when one is set (S3-compatible stores serve
  /// STS there too), else AWS's regional one.
  std::string sts_endpoint;
  /// How long vended credentials live.
  std::chrono::seconds duration{3600};
  std::function<std::chrono::system_clock::time_point()> clock;
};

/// Vends temporary credentials from STS. A table's credentials are reused while at least
/// half their life is left (table loads do not each cost a call to STS); a table on the
/// local file system gets none.
Result<std::shared_ptr<CredentialVendor>> MakeStsCredentialVendor(StsVendorOptions options);

struct RestServerOptions {
  /// OAuth2 clients, id → secret. Empty: no authentication at all.
  std::map<std::string, std::string> clients;
  /// How long a granted token lives.
  std::chrono::seconds token_ttl{3600};
  /// nullptr: no vended credentials.
  std::shared_ptr<CredentialVendor> vendor;
  /// Returned as the config endpoint's `defaults`.
  std::map<std::string, std::string> defaults;
  /// The time, for token expiry (tests set it).
  std::function<std::chrono::system_clock::time_point()> clock;
  /// Receives one line per event worth a log (a token granted or refused, a request that
  /// failed inside the server); never a secret. nullptr: nothing is logged.
  std::function<void(const std::string&)> log;
};

/// What a service did so far.
struct RestServerStats {
  int64_t requests = 0;
  int64_t token_grants = 0;
  int64_t unauthorized = 0;
  /// Storage credentials handed out (table loads and the credentials endpoint).
  int64_t credentials_vended = 0;
};

class RestCatalogService {
 public:
  RestCatalogService(CatalogPtr catalog, RestServerOptions options);
  ~RestCatalogService();

  /// Answers one request. Thread-safe.
  io::HttpServerResponse Handle(const io::HttpServerRequest& request);
  RestServerStats stats() const;

  struct Tokens;

 private:
  struct Route;
  Result<io::HttpServerResponse> Dispatch(const io::HttpServerRequest& request, Route& route);
  io::HttpServerResponse GrantToken(const io::HttpServerRequest& request);
  // The vendor's credentials for a table, counted and logged (`how`: "table load").
  Result<std::map<std::string, std::string>> Vend(const TableIdentifier& id,
                                                  const std::string& location,
                                                  std::string_view how);
  // nullopt when the request may go on; the 401 answer otherwise.
  std::optional<io::HttpServerResponse> Authenticate(const io::HttpServerRequest& request);

  CatalogPtr catalog_;
  RestServerOptions options_;
  std::unique_ptr<Tokens> tokens_;
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> token_grants_{0};
  std::atomic<int64_t> unauthorized_{0};
  std::atomic<int64_t> credentials_vended_{0};
};

/// A RestCatalogService on an HTTP server of its own.
class RestCatalogServer {
 public:
  static Result<std::unique_ptr<RestCatalogServer>> Start(CatalogPtr catalog,
                                                          RestServerOptions options,
                                                          io::HttpServerOptions http);
  ~RestCatalogServer();

  /// "http://127.0.0.1:8181": what clients give as the catalog's uri.
  std::string uri() const { return http_->uri(); }
  int port() const { return http_->port(); }
  RestServerStats stats() const { return service_->stats(); }
  void Stop() { http_->Stop(); }

 private:
  RestCatalogServer() = default;
  std::unique_ptr<RestCatalogService> service_;
  std::unique_ptr<io::HttpServer> http_;
};

}  // namespace floe::catalog
