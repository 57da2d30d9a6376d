#pragma once

// A client of the Iceberg REST catalog (the REST OpenAPI specification,
// open-api/rest-catalog-open-api.yaml): GET /v1/config first (the server's defaults, then
// the client's properties, then the server's overrides; `prefix`; the `endpoints` the
// server serves decide which calls are made), then namespaces, tables, commits as
// requirements + updates, and multi-table transactions, all over floe's HTTP client.
//
// Authentication takes pyiceberg's and the Java library's property names: `token` (a
// bearer token), or `credential` ("client-id:client-secret", OAuth2 client credentials at
// `oauth2-server-uri`, default <uri>/v1/oauth/tokens, with `scope`, default "catalog");
// a token with an end (`expires_in`, or a JWT's `exp`) is refreshed before it expires, by
// an RFC 8693 token exchange of the current token (`token-exchange-enabled`), else with the
// credential (`token-refresh-enabled: false` turns refreshing off), and a call answered 401
// or 419 fetches a new token from the credential and is sent once more. `header.<name>`
// properties are sent as headers on every call. `ssl.cabundle` names a PEM file of the
// certificate authorities an https:// catalog is checked against (default: the system's).
//
// Errors follow the spec's responses: 404 names the missing namespace or table; 409 is
// kConstraint (already exists, not empty) or, on a commit, kCommitConflict; 500, 502 and
// 504 on a commit are kCommitStateUnknown (the commit may have happened: nothing written
// may be deleted); 400, 401/419, 403 and 503 say what was refused, with the server's
// message. No message and no ToString() holds a token, a client secret or a storage key.
//
// Tables loaded or created get a FileIO from the catalog's properties (after the config
// merge) and the load result's `config` and `storage-credentials` (the credential with the
// longest prefix of the table's location wins): vended credentials reach the S3 FileIO.
// Vended credentials that expire (`s3.session-token-expires-at-ms`) are renewed before they
// do (io/credentials_provider.h), from the table's credentials endpoint where the server
// lists it, else by loading the table again; every load of a table shares them. A table's
// FileIO holds the catalog weakly: once the catalog is closed, renewing fails, naming the
// table.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/catalog/catalog.h"
#include "floe/io/credentials_provider.h"
#include "floe/io/file_io.h"
#include "floe/io/http_client.h"

namespace floe::catalog {

struct RestCatalogOptions {
  std::string name = "rest";
  /// The catalog's base URI, "http://host:port" or "https://host/some/path"; calls go to
  /// <uri>/v1/...
  std::string uri;
  /// Sent to GET /v1/config as `warehouse` (empty: not sent).
  std::string warehouse;
  /// Every other property: token, credential, scope, oauth2-server-uri, header.<name>,
  /// s3.*, prefix, ...
  std::map<std::string, std::string> properties;
  io::HttpOptions http;
  /// Local side of table FileIOs (path maps).
  io::LocalFileIOOptions local;
  /// The time, for the expiry of tokens and vended credentials (tests set it).
  std::function<std::chrono::system_clock::time_point()> clock;
};

class RestCatalog final : public Catalog, public std::enable_shared_from_this<RestCatalog> {
 public:
  /// Connects: fetches a token when `credential` is set, then GET /v1/config. Errors name
  /// the URI (redacted) and what the server said.
  static Result<std::shared_ptr<RestCatalog>> Make(RestCatalogOptions options);
  ~RestCatalog() override;

  const std::string& name() const override { return options_.name; }
  std::shared_ptr<const io::FileIO> io() const override { return io_; }
  /// "rest catalog <name> at <uri> (properties, secrets redacted)".
  std::string ToString() const override;

  Status CreateNamespace(const Namespace& ns,
                         const std::map<std::string, std::string>& properties = {}) override;
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent = {}) const override;
  Result<bool> NamespaceExists(const Namespace& ns) const override;
  Result<std::map<std::string, std::string>> LoadNamespaceProperties(
      const Namespace& ns) const override;
  Status UpdateNamespaceProperties(const Namespace& ns, const std::set<std::string>& removals,
                                   const std::map<std::string, std::string>& updates) override;
  Status DropNamespace(const Namespace& ns) override;

  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) const override;
  Result<bool> TableExists(const TableIdentifier& id) const override;
  Result<iceberg::Table> CreateTable(const TableIdentifier& id,
                                     const CreateTableRequest& request) override;
  Result<iceberg::Table> LoadTable(const TableIdentifier& id) const override;
  Result<iceberg::Table> RegisterTable(const TableIdentifier& id,
                                       const std::string& metadata_location) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  Status DropTable(const TableIdentifier& id, bool purge = false) override;
  Result<iceberg::Table> CommitTable(const TableIdentifier& id,
                                     const std::vector<iceberg::TableRequirement>& requirements,
                                     const std::vector<iceberg::TableUpdate>& updates) override;

  /// Commits changes to several tables atomically (POST /v1/{prefix}/transactions/commit):
  /// all or none. kNotSupported when the server does not list that endpoint; errors as
  /// CommitTable's.
  Status CommitTransaction(const std::vector<TableCommit>& commits) override;
  bool SupportsTransactions() const override {
    return Serves("POST /v1/{prefix}/transactions/commit");
  }

  /// The catalog's properties after the config merge (secrets included: not for printing).
  const std::map<std::string, std::string>& properties() const { return properties_; }
  /// Whether the server serves `endpoint` ("GET /v1/{prefix}/namespaces").
  bool Serves(const std::string& endpoint) const;

  struct Call;
  struct Session;

 private:
  explicit RestCatalog(RestCatalogOptions options);
  Status Initialize();
  // Sends a call with the session's headers, refreshing the token before it expires and
  // once more after a 401 or 419.
  Result<io::HttpResponse> Send(const Call& call) const;
  // Every page of a list call (pageSize from `rest-page-size`, pageToken from each
  // answer's next-page-token): the items of the answers' `key` arrays, in order. An answer
  // other than 200 is `refused`'s error.
  Result<std::vector<nlohmann::json>> AllPages(
      Call call, const std::string& key,
      const std::function<Status(const io::HttpResponse&)>& refused) const;
  // An exists call: HEAD where the server serves `head_endpoint`, else GET; 200/204 true,
  // 404 false, anything else `refused`'s error.
  Result<bool> Exists(Call call, const std::string& head_endpoint,
                      const std::function<Status(const io::HttpResponse&)>& refused) const;
  std::string Url(const std::string& path) const;
  Result<iceberg::Table> TableFromLoadResult(const TableIdentifier& id,
                                             const nlohmann::json& result,
                                             const std::string& what) const;
  Result<std::shared_ptr<const io::FileIO>> TableIo(const TableIdentifier& id,
                                                    const std::string& location,
                                                    const nlohmann::json& result) const;
  // New vended S3 credentials of table `id` at `location`: from the table's credentials
  // endpoint when served, else from a new load of the table.
  Result<io::ExpiringCredentials> RenewCredentials(const TableIdentifier& id,
                                                   const std::string& location) const;

  RestCatalogOptions options_;
  std::map<std::string, std::string> properties_;
  std::string base_;    // <uri> without a trailing '/'
  std::string prefix_;  // "" or "<prefix>/"
  std::set<std::string> endpoints_;
  std::unique_ptr<io::HttpClient> http_;
  std::unique_ptr<Session> session_;
  std::shared_ptr<const io::FileIO> io_;
};

/// Merges a GET /v1/config answer into the client's properties as the spec says: the
/// server's `defaults`, overridden by the client's properties, overridden by the server's
/// `overrides`. kInvalidArgument for an answer of another shape.
Result<std::map<std::string, std::string>> MergeRestConfig(
    const nlohmann::json& config, const std::map<std::string, std::string>& client);

/// The storage credential of a load result whose prefix is the longest matching
/// `location` merged over the result's `config`: what a table's FileIO is built from.
std::map<std::string, std::string> VendedTableProperties(const nlohmann::json& load_result,
                                                         const std::string& location);

}  // namespace floe::catalog
