// The REST catalog client's own logic against a scripted server (testing/
// scripted_http_server.h): the config merge, prefix and endpoints, pagination, error
// mapping (a commit's 409, 500, 502, 504), OAuth2 client credentials with the refresh from
// `expires_in` and the one retry after 401 or 419, custom headers, vended credentials, and
// that no secret reaches a message. The catalog behaviour suite runs the client against
// Iceberg's own server and against floe's (catalog_behaviour_test.cc).

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/catalog/catalog_config.h"
#include "floe/catalog/rest/rest_catalog.h"
#include "floe/catalog/tests/catalog_test_internal.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_update.h"
#include "floe/io/credentials_provider.h"
#include "floe/io/resolving_file_io.h"
#include "floe/testing/matchers.h"
#include "floe/testing/rest_catalog_server.h"
#include "floe/testing/scripted_http_server.h"

namespace floe::catalog {
namespace {

using ::floe::catalog::testing::TestSchema;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::floe::testing::ScriptedHttpServer;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using Request = ScriptedHttpServer::Request;
using Response = ScriptedHttpServer::Response;

constexpr const char* kSecret = "s3cr3t-client-value";
constexpr const char* kToken = "tok-abcdef-123456";

Response Json(int status, const json& body) { return {status, body.dump()}; }

Response Error(int status, const std::string& type, const std::string& message) {
  return Json(status, {{"error", {{"message", message}, {"type", type}, {"code", status}}}});
}

// The path of a request without its query.
std::string PathOf(const Request& r) { return r.target.substr(0, r.target.find('?')); }

json LoadResult(const std::string& location, json extra = json::object()) {
  iceberg::NewTableOptions options;
  options.schema = TestSchema();
  options.location = location;
  auto metadata = iceberg::NewTableMetadata(options, 1700000000000);
  EXPECT_TRUE(metadata.ok());
  auto metadata_json = iceberg::TableMetadataToJson(**metadata);
  EXPECT_TRUE(metadata_json.ok());
  json result = {{"metadata-location", location + "/metadata/00000-x.metadata.json"},
                 {"metadata", *metadata_json}};
  for (auto& [key, value] : extra.items()) result[key] = value;
  return result;
}

RestCatalogOptions Options(const ScriptedHttpServer& server) {
  RestCatalogOptions options;
  options.name = "scripted";
  options.uri = server.uri();
  options.http.retry.base_delay = std::chrono::milliseconds(1);
  return options;
}

TEST(RestCatalogConfigTest, DefaultsThenClientThenOverrides) {
  json config = {{"defaults", {{"a", "server-default"}, {"b", "server-default"}}},
                 {"overrides", {{"b", "server-override"}, {"c", "server-override"}}}};
  ASSERT_OK_AND_ASSIGN(auto merged, MergeRestConfig(config, {{"a", "client"}, {"b", "client"}}));
  EXPECT_EQ(merged, (std::map<std::string, std::string>{
                        {"a", "client"}, {"b", "server-override"}, {"c", "server-override"}}));
  EXPECT_THAT(MergeRestConfig(json::array(), {}), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(MergeRestConfig({{"defaults", 3}}, {}), IsError(StatusCode::kInvalidArgument));
}

TEST(RestCatalogConfigTest, LongestStorageCredentialPrefixWins) {
  json result = {{"config", {{"s3.region", "eu-west-1"}, {"s3.access-key-id", "from-config"}}},
                 {"storage-credentials",
                  {{{"prefix", "s3://bucket/"}, {"config", {{"s3.access-key-id", "short"}}}},
                   {{"prefix", "s3://bucket/db/t"}, {"config", {{"s3.access-key-id", "long"}}}},
                   {{"prefix", "s3://other/"}, {"config", {{"s3.access-key-id", "other"}}}}}}};
  EXPECT_EQ(VendedTableProperties(result, "s3://bucket/db/t"),
            (std::map<std::string, std::string>{{"s3.access-key-id", "long"},
                                                {"s3.region", "eu-west-1"}}));
  EXPECT_EQ(VendedTableProperties(result, "s3://bucket/db/u").at("s3.access-key-id"), "short");
  EXPECT_EQ(VendedTableProperties(result, "s3://third/x").at("s3.access-key-id"), "from-config");
}

// The prefix comes from the config's overrides; endpoints decide HEAD or GET.
TEST(RestCatalogClientTest, PrefixAndEndpointsFromTheConfig) {
  ScriptedHttpServer server([](const Request& r) -> Response {
    if (PathOf(r) == "/v1/config") {
      EXPECT_EQ(r.target, "/v1/config?warehouse=wh%201");
      return Json(200, {{"defaults", json::object()},
                        {"overrides", {{"prefix", "p/q"}}},
                        {"endpoints", {"GET /v1/{prefix}/namespaces/{namespace}"}}});
    }
    if (PathOf(r) == "/v1/p/q/namespaces/db" && r.method == "GET") {
      return Json(200, {{"namespace", {"db"}}, {"properties", {{"k", "v"}}}});
    }
    return Error(404, "NoSuchNamespaceException", "no " + r.target);
  });
  RestCatalogOptions options = Options(server);
  options.warehouse = "wh 1";
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(options));
  EXPECT_EQ(catalog->properties().at("prefix"), "p/q");
  EXPECT_EQ(catalog->properties().at("warehouse"), "wh 1");
  ASSERT_OK_AND_ASSIGN(bool exists, catalog->NamespaceExists({"db"}));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, catalog->NamespaceExists({"nope"}));
  EXPECT_FALSE(exists);
  ASSERT_OK_AND_ASSIGN(auto properties, catalog->LoadNamespaceProperties({"db"}));
  EXPECT_EQ(properties, (std::map<std::string, std::string>{{"k", "v"}}));
  for (const Request& r : server.requests()) EXPECT_NE(r.method, "HEAD") << r.target;
  // The server lists no multi-table commit.
  EXPECT_THAT(catalog->CommitTransaction({}), IsError(StatusCode::kNotSupported));
}

// Listings follow next-page-token to the end; namespaces in a path are joined by 0x1F.
TEST(RestCatalogClientTest, PaginationFollowsEveryPage) {
  ScriptedHttpServer server([](const Request& r) -> Response {
    const std::string path = PathOf(r);
    if (path == "/v1/config") return Json(200, json::object());
    if (path == "/v1/namespaces") {
      if (r.target == "/v1/namespaces?parent=a%1Fb&pageSize=2") {
        return Json(
            200, {{"namespaces", {{"a", "b", "z"}, {"a", "b", "y"}}}, {"next-page-token", "t1"}});
      }
      if (r.target == "/v1/namespaces?parent=a%1Fb&pageSize=2&pageToken=t1") {
        return Json(200, {{"namespaces", {{"a", "b", "x"}}}, {"next-page-token", nullptr}});
      }
    }
    if (path == "/v1/namespaces/a%1Fb/tables") {
      if (r.target.find("pageToken=") == std::string::npos) {
        return Json(200, {{"identifiers", {{{"namespace", {"a", "b"}}, {"name", "t2"}}}},
                          {"next-page-token", "n"}});
      }
      return Json(200, {{"identifiers", {{{"namespace", {"a", "b"}}, {"name", "t1"}}}}});
    }
    return Error(500, "Unexpected", r.target);
  });
  RestCatalogOptions options = Options(server);
  options.properties = {{"rest-page-size", "2"}};
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(options));
  ASSERT_OK_AND_ASSIGN(auto namespaces, catalog->ListNamespaces({"a", "b"}));
  EXPECT_EQ(namespaces,
            (std::vector<Namespace>{{"a", "b", "x"}, {"a", "b", "y"}, {"a", "b", "z"}}));
  ASSERT_OK_AND_ASSIGN(auto tables, catalog->ListTables({"a", "b"}));
  EXPECT_EQ(tables, (std::vector<TableIdentifier>{{{"a", "b"}, "t1"}, {{"a", "b"}, "t2"}}));
}

// A commit's errors as the spec defines them; none of them is sent twice.
TEST(RestCatalogClientTest, CommitErrorsAreMappedAndNotRetried) {
  std::atomic<int> status{409};
  ScriptedHttpServer server([&](const Request& r) -> Response {
    if (PathOf(r) == "/v1/config") return Json(200, json::object());
    if (PathOf(r) == "/v1/namespaces/db/tables/t" && r.method == "POST") {
      json body = json::parse(r.body);
      EXPECT_EQ(body["identifier"], json({{"namespace", {"db"}}, {"name", "t"}}));
      EXPECT_EQ(body["updates"][0]["action"], "set-properties");
      return Error(status, "CommitFailedException", "the server says no");
    }
    return Error(500, "Unexpected", r.target);
  });
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(Options(server)));
  const std::vector<iceberg::TableUpdate> updates = {iceberg::update::SetProperties{{{"k", "v"}}}};
  struct Case {
    int status;
    StatusCode code;
    std::string text;
  };
  const std::vector<Case> cases = {
      {409, StatusCode::kCommitConflict, "commit to table db.t: conflict"},
      {500, StatusCode::kCommitStateUnknown, "outcome is unknown (HTTP 500"},
      {502, StatusCode::kCommitStateUnknown, "outcome is unknown (HTTP 502"},
      {504, StatusCode::kCommitStateUnknown, "outcome is unknown (HTTP 504"},
      {503, StatusCode::kIOError, "commit to table db.t: the catalog is unavailable"},
      {400, StatusCode::kInvalidArgument, "commit to table db.t: the catalog refused"},
      {403, StatusCode::kInvalidArgument, "commit to table db.t: forbidden"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.status);
    status = c.status;
    const size_t before = server.requests().size();
    Result<iceberg::Table> result = catalog->CommitTable({{"db"}, "t"}, {}, updates);
    EXPECT_THAT(result, IsErrorWith(c.code, c.text));
    EXPECT_THAT(result.status().message(), HasSubstr("the server says no"));
    EXPECT_EQ(server.requests().size(), before + 1);
  }
}

TEST(RestCatalogClientTest, NotFoundNamesTheTableOrNamespace) {
  ScriptedHttpServer server([](const Request& r) -> Response {
    const std::string path = PathOf(r);
    if (path == "/v1/config") return Json(200, json::object());
    if (path == "/v1/namespaces/db/tables/t") {
      return Error(404, "NoSuchTableException", "Table does not exist: db.t");
    }
    if (path == "/v1/namespaces/gone/tables") {
      return Error(404, "NoSuchNamespaceException", "Namespace does not exist: gone");
    }
    if (path == "/v1/namespaces/busy") return Error(503, "ServiceUnavailable", "try later");
    return Error(500, "Unexpected", r.target);
  });
  RestCatalogOptions options = Options(server);
  options.http.retry.max_attempts = 2;
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(options));
  EXPECT_THAT(catalog->LoadTable({{"db"}, "t"}),
              IsErrorWith(StatusCode::kNotFound,
                          "table db.t does not exist (NoSuchTableException: Table does not "
                          "exist: db.t)"));
  EXPECT_THAT(catalog->ListTables({"gone"}),
              IsErrorWith(StatusCode::kNotFound, "namespace gone does not exist"));
  const size_t before = server.requests().size();
  // 503 on a read is retried by the policy, then named.
  EXPECT_THAT(catalog->LoadNamespaceProperties({"busy"}),
              IsErrorWith(StatusCode::kIOError,
                          "load namespace busy: the catalog is unavailable (ServiceUnavailable: "
                          "try later)"));
  EXPECT_EQ(server.requests().size(), before + 2);
}

// OAuth2 client credentials: the token is fetched at start, sent on every call with the
// custom headers, refreshed before it expires (by `expires_in`), and fetched again once when
// a call is answered 401 or 419; a second refusal fails the call.
// The first token comes from the client credentials; one about to run out is exchanged
// for a fresh one (RFC 8693, the current token as the subject); a refused one is replaced
// through the client credentials.
TEST(RestCatalogClientTest, TokensAreRefreshedBeforeExpiryAndOnceAfter401Or419) {
  std::mutex mutex;
  int issued = 0;
  int exchanged = 0;
  int refuse_next = 0;  // the status to refuse the next namespace call with, 0 for none
  std::string current;
  ScriptedHttpServer server([&](const Request& r) -> Response {
    std::lock_guard<std::mutex> lock(mutex);
    const std::string path = PathOf(r);
    if (path == "/v1/oauth/tokens") {
      EXPECT_EQ(r.headers.at("content-type"), "application/x-www-form-urlencoded");
      EXPECT_THAT(r.body, HasSubstr("scope=catalog%20extra"));
      if (r.body.find("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange") !=
          std::string::npos) {
        EXPECT_THAT(r.body, HasSubstr("subject_token=" + current));
        EXPECT_THAT(r.body, HasSubstr("subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-"
                                      "type%3Aaccess_token"));
        EXPECT_EQ(r.headers.at("authorization"), "Bearer " + current);
        EXPECT_THAT(r.body, Not(HasSubstr(kSecret)));
        ++exchanged;
      } else {
        EXPECT_THAT(r.body, HasSubstr("grant_type=client_credentials"));
        EXPECT_THAT(r.body, HasSubstr("client_id=me"));
        EXPECT_THAT(r.body, HasSubstr(std::string("client_secret=") + kSecret));
      }
      current = std::string(kToken) + "-" + std::to_string(++issued);
      return Json(200, {{"access_token", current},
                        {"token_type", "bearer"},
                        {"expires_in", 3600},
                        {"issued_token_type", "urn:ietf:params:oauth:token-type:access_token"}});
    }
    EXPECT_EQ(r.headers.count("x-tenant"), 1u);
    if (r.headers.count("authorization") == 0 ||
        r.headers.at("authorization") != "Bearer " + current) {
      return Error(401, "NotAuthorizedException", "bad token");
    }
    if (path == "/v1/config") return Json(200, json::object());
    if (refuse_next != 0) {
      const int status = refuse_next;
      refuse_next = 0;
      return Error(status, "NotAuthorizedException", "expired");
    }
    return Json(200, {{"namespace", {"db"}}, {"properties", json::object()}});
  });
  std::atomic<int64_t> now_s{1'000'000};
  RestCatalogOptions options = Options(server);
  options.properties = {{"credential", std::string("me:") + kSecret},
                        {"scope", "catalog extra"},
                        {"header.X-Tenant", "t1"}};
  options.clock = [&] {
    return std::chrono::system_clock::time_point(std::chrono::seconds(now_s));
  };
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(options));
  auto issued_now = [&] {
    std::lock_guard<std::mutex> lock(mutex);
    return issued;
  };
  EXPECT_EQ(issued_now(), 1);
  ASSERT_OK(catalog->LoadNamespaceProperties({"db"}));
  EXPECT_EQ(issued_now(), 1);
  // 54 minutes on: within a tenth of the hour of the end (six minutes), capped at five: no
  // refresh yet; 56 minutes on: refreshed before the call.
  now_s += 54 * 60;
  ASSERT_OK(catalog->LoadNamespaceProperties({"db"}));
  EXPECT_EQ(issued_now(), 1);
  now_s += 2 * 60;
  ASSERT_OK(catalog->LoadNamespaceProperties({"db"}));
  EXPECT_EQ(issued_now(), 2);
  {
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_EQ(exchanged, 1);  // the refresh before expiry was an exchange
  }
  // 401, then 419: a new token each time and the call succeeds on its second sending.
  for (int status : {401, 419}) {
    SCOPED_TRACE(status);
    {
      std::lock_guard<std::mutex> lock(mutex);
      refuse_next = status;
    }
    const int before = issued_now();
    ASSERT_OK(catalog->LoadNamespaceProperties({"db"}));
    EXPECT_EQ(issued_now(), before + 1);
  }
  // Every call carried the current token and the custom header; none carried the secret.
  for (const Request& r : server.requests()) {
    if (PathOf(r) != "/v1/oauth/tokens") {
      EXPECT_THAT(r.target + r.body, Not(HasSubstr(kSecret)));
    }
  }
  EXPECT_THAT(catalog->ToString(), Not(HasSubstr(kSecret)));
  EXPECT_THAT(catalog->ToString(), Not(HasSubstr(kToken)));
}

TEST(RestCatalogClientTest, RefusedTokenRequestIsAClearErrorWithoutTheSecret) {
  ScriptedHttpServer server([](const Request& r) -> Response {
    if (PathOf(r) == "/v1/oauth/tokens") {
      return Json(401, {{"error", "invalid_client"}, {"error_description", "unknown client"}});
    }
    return Error(500, "Unexpected", r.target);
  });
  RestCatalogOptions options = Options(server);
  options.properties = {{"credential", std::string("me:") + kSecret}};
  Result<std::shared_ptr<RestCatalog>> catalog = RestCatalog::Make(options);
  EXPECT_THAT(catalog, IsErrorWith(StatusCode::kInvalidArgument, "invalid_client: unknown client"));
  EXPECT_THAT(catalog.status().message(), Not(HasSubstr(kSecret)));
}

// A JWT given as `token` is used until its `exp` draws near, then exchanged for a fresh one;
// with `token-exchange-enabled: false` and no credential it is used as it is.
std::string Jwt(int64_t exp) {
  auto b64url = [](const std::string& text) {
    static const char* kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    uint32_t bits = 0;
    int count = 0;
    for (unsigned char c : text) {
      bits = (bits << 8) | c;
      count += 8;
      while (count >= 6) {
        count -= 6;
        out.push_back(kAlphabet[(bits >> count) & 63]);
      }
    }
    if (count > 0) out.push_back(kAlphabet[(bits << (6 - count)) & 63]);
    return out;
  };
  return b64url(R"({"alg":"none"})") + "." + b64url(json{{"sub", "floe"}, {"exp", exp}}.dump()) +
         ".sig";
}

TEST(RestCatalogClientTest, AGivenJwtIsExchangedBeforeItsExpiry) {
  const int64_t start_s = 2'000'000;
  const std::string given = Jwt(start_s + 3600);
  std::mutex mutex;
  std::string current = given;
  int exchanged = 0;
  ScriptedHttpServer server([&](const Request& r) -> Response {
    std::lock_guard<std::mutex> lock(mutex);
    if (PathOf(r) == "/v1/oauth/tokens") {
      EXPECT_THAT(r.body, HasSubstr("subject_token=" + current));
      current = "fresh-" + std::to_string(++exchanged);
      return Json(200, {{"access_token", current}, {"token_type", "bearer"}, {"expires_in", 60}});
    }
    if (r.headers.count("authorization") == 0 ||
        r.headers.at("authorization") != "Bearer " + current) {
      return Error(401, "NotAuthorizedException", "bad token");
    }
    if (PathOf(r) == "/v1/config") return Json(200, json::object());
    return Json(200, {{"namespace", {"db"}}, {"properties", json::object()}});
  });
  std::atomic<int64_t> now_s{start_s};
  auto clock = [&] { return std::chrono::system_clock::time_point(std::chrono::seconds(now_s)); };
  RestCatalogOptions options = Options(server);
  options.properties = {{"token", given}};
  options.clock = clock;
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(options));
  ASSERT_OK(catalog->LoadNamespaceProperties({"db"}));
  now_s += 56 * 60;  // within five minutes of the JWT's exp
  ASSERT_OK(catalog->LoadNamespaceProperties({"db"}));
  now_s += 55;  // the fresh token's 60 s are nearly over (a tenth of its life left)
  ASSERT_OK(catalog->LoadNamespaceProperties({"db"}));
  {
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_EQ(exchanged, 2);
  }
  EXPECT_THAT(catalog->ToString(), Not(HasSubstr(given)));

  // Exchange switched off and no credential: the token is sent as given, even near its end.
  {
    std::lock_guard<std::mutex> lock(mutex);
    current = given;
    exchanged = 0;
  }
  now_s = start_s + 59 * 60;
  options.properties = {{"token", given}, {"token-exchange-enabled", "false"}};
  ASSERT_OK_AND_ASSIGN(auto plain, RestCatalog::Make(options));
  ASSERT_OK(plain->LoadNamespaceProperties({"db"}));
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(exchanged, 0);
}

// A static token is sent as given; a 401 with nothing to refresh fails at once, and neither
// the error nor ToString shows the token or storage keys.
TEST(RestCatalogClientTest, StaticTokenAndRedaction) {
  ScriptedHttpServer server([](const Request& r) -> Response {
    if (r.headers.count("authorization") == 0 ||
        r.headers.at("authorization") != std::string("Bearer ") + kToken) {
      return Error(401, "NotAuthorizedException", "no");
    }
    if (PathOf(r) == "/v1/config") {
      return Json(200, {{"defaults", {{"s3.secret-access-key", kSecret}}}});
    }
    return Error(401, "NotAuthorizedException", "token revoked");
  });
  RestCatalogOptions options = Options(server);
  options.properties = {{"token", kToken}};
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(options));
  const size_t before = server.requests().size();
  Result<iceberg::Table> result = catalog->LoadTable({{"db"}, "t"});
  EXPECT_THAT(result, IsErrorWith(StatusCode::kInvalidArgument, "load table db.t: not authorized"));
  EXPECT_THAT(result.status().message(), Not(HasSubstr(kToken)));
  EXPECT_EQ(server.requests().size(), before + 1);
  EXPECT_THAT(catalog->ToString(), Not(HasSubstr(kToken)));
  EXPECT_THAT(catalog->ToString(), Not(HasSubstr(kSecret)));
  EXPECT_THAT(catalog->ToString(), HasSubstr("scripted"));
}

// A table load asks for vended credentials; the table's FileIO is built from them (the
// longest prefix), while a table loaded without any shares the catalog's FileIO.
TEST(RestCatalogClientTest, VendedCredentialsFeedTheTablesFileIO) {
  ScriptedHttpServer server([](const Request& r) -> Response {
    const std::string path = PathOf(r);
    if (path == "/v1/config") return Json(200, json::object());
    if (path == "/v1/namespaces/db/tables/vended") {
      EXPECT_EQ(r.headers.at("x-iceberg-access-delegation"), "vended-credentials");
      return Json(200, LoadResult("s3://bucket/db/vended",
                                  {{"config", {{"s3.endpoint", "http://127.0.0.1:1"}}},
                                   {"storage-credentials",
                                    {{{"prefix", "s3://bucket/"},
                                      {"config",
                                       {{"s3.access-key-id", "AKIASHORTPREFIX00000"},
                                        {"s3.secret-access-key", "short-secret"}}}},
                                     {{"prefix", "s3://bucket/db/vended"},
                                      {"config",
                                       {{"s3.access-key-id", "AKIALONGPREFIX000009"},
                                        {"s3.secret-access-key", kSecret},
                                        {"s3.session-token", "vended-session"}}}}}}}));
    }
    if (path == "/v1/namespaces/db/tables/plain") return Json(200, LoadResult("/tmp/db/plain"));
    return Error(500, "Unexpected", r.target);
  });
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(Options(server)));
  ASSERT_OK_AND_ASSIGN(iceberg::Table plain, catalog->LoadTable({{"db"}, "plain"}));
  EXPECT_EQ(plain.io, catalog->io());
  ASSERT_OK_AND_ASSIGN(iceberg::Table vended, catalog->LoadTable({{"db"}, "vended"}));
  EXPECT_NE(vended.io, catalog->io());
  const auto* resolving = dynamic_cast<const io::ResolvingFileIO*>(vended.io.get());
  ASSERT_NE(resolving, nullptr);
  ASSERT_TRUE(resolving->s3_options().has_value());
  EXPECT_EQ(resolving->s3_options()->client.credentials.access_key_id, "AKIALONGPREFIX000009");
  EXPECT_EQ(resolving->s3_options()->client.credentials.secret_access_key, kSecret);
  EXPECT_EQ(resolving->s3_options()->client.credentials.session_token, "vended-session");
  EXPECT_EQ(resolving->s3_options()->client.endpoint, "http://127.0.0.1:1");
  EXPECT_THAT(vended.io->ToString(), Not(HasSubstr(kSecret)));
  EXPECT_THAT(vended.io->ToString(), Not(HasSubstr("vended-session")));
}

// A scripted server that is both the catalog and S3 (path-style, bucket "bucket"): table
// db.t at s3://bucket/db/t is vended credentials that last two seconds of the fake clock,
// "load-N" from each table load and "renew-N" from each call of the credentials endpoint
// (or the answer `refuse` holds, when set). It keeps the session token every S3 request
// was signed with, and the access key of its Authorization header.
class VendingServer {
 public:
  static constexpr const char* kCredentialsEndpoint =
      "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials";
  static constexpr int64_t kStart = 1767225600000;  // 2026-01-01 00:00:00 UTC
  static constexpr const char* kLocation = "s3://bucket/db/t";
  static constexpr const char* kObject = "s3://bucket/db/t/data/f.parquet";

  explicit VendingServer(bool credentials_endpoint)
      : credentials_endpoint_(credentials_endpoint),
        server_([this](const Request& r) { return Answer(r); }) {}

  RestCatalogOptions Options() {
    RestCatalogOptions options = ::floe::catalog::Options(server_);
    options.clock = [this] { return io::FromEpochMillis(now_ms.load()); };
    return options;
  }

  struct Signed {
    std::string token;
    std::string access_key;
  };
  std::vector<Signed> s3_requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return s3_;
  }
  int loads() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return loads_;
  }
  int renewals() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return renewals_;
  }
  void Refuse(std::optional<Response> answer) {
    std::lock_guard<std::mutex> lock(mutex_);
    refuse_ = std::move(answer);
  }
  const ScriptedHttpServer& server() const { return server_; }

  std::atomic<int64_t> now_ms{kStart};

 private:
  json Credentials(const std::string& token) const {
    return {{"prefix", kLocation},
            {"config",
             {{"s3.access-key-id", "AKIA-" + token},
              {"s3.secret-access-key", std::string(kSecret) + "-" + token},
              {"s3.session-token", token},
              {"s3.session-token-expires-at-ms", std::to_string(now_ms.load() + 2000)}}}};
  }

  Response Answer(const Request& r) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string path = PathOf(r);
    if (path == "/v1/config") {
      json endpoints = {"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}"};
      if (credentials_endpoint_) endpoints.push_back(kCredentialsEndpoint);
      return Json(200, {{"defaults", json::object()}, {"endpoints", endpoints}});
    }
    if (path == "/v1/namespaces/db/tables/t") {
      EXPECT_EQ(r.headers.at("x-iceberg-access-delegation"), "vended-credentials");
      ++loads_;
      return Json(200,
                  LoadResult(kLocation, {{"config",
                                          {{"s3.endpoint", server_.uri()},
                                           {"s3.path-style-access", "true"},
                                           {"s3.region", "eu-west-1"}}},
                                         {"storage-credentials",
                                          {{{"prefix", "s3://bucket/"}, {"config", json::object()}},
                                           Credentials("load-" + std::to_string(loads_))}}}));
    }
    if (path == "/v1/namespaces/db/tables/t/credentials") {
      EXPECT_TRUE(credentials_endpoint_);
      if (refuse_) return *refuse_;
      ++renewals_;
      return Json(200, {{"storage-credentials",
                         {{{"prefix", "s3://"}, {"config", {{"s3.access-key-id", "wrong"}}}},
                          Credentials("renew-" + std::to_string(renewals_))}}});
    }
    if (path.starts_with("/bucket/")) {
      const std::string authorization =
          r.headers.count("authorization") != 0 ? r.headers.at("authorization") : std::string();
      const size_t at = authorization.find("Credential=");
      const std::string key =
          at == std::string::npos
              ? ""
              : authorization.substr(at + 11, authorization.find('/', at) - at - 11);
      s3_.push_back({r.headers.count("x-amz-security-token") != 0
                         ? r.headers.at("x-amz-security-token")
                         : std::string(),
                     key});
      return {200, "0123456789"};
    }
    return Error(500, "Unexpected", r.target);
  }

  const bool credentials_endpoint_;
  mutable std::mutex mutex_;
  std::vector<Signed> s3_;
  int loads_ = 0;
  int renewals_ = 0;
  std::optional<Response> refuse_;
  ScriptedHttpServer server_;
};

// Vended credentials that expire are renewed from the table's credentials endpoint when
// a fifth of their two seconds is left, and the next S3 request is signed with the new
// ones; many threads that find them due renew them once.
TEST(RestCatalogVendedCredentialsTest, RenewedFromTheCredentialsEndpointExactlyWhenDue) {
  VendingServer vending(/*credentials_endpoint=*/true);
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(vending.Options()));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog->LoadTable({{"db"}, "t"}));
  auto last = [&] { return vending.s3_requests().back(); };
  ASSERT_OK_AND_ASSIGN(bool exists, table.io->Exists(VendingServer::kObject));
  EXPECT_TRUE(exists);
  EXPECT_EQ(last().token, "load-1");
  EXPECT_EQ(last().access_key, "AKIA-load-1");
  vending.now_ms = VendingServer::kStart + 1599;
  ASSERT_OK(table.io->Exists(VendingServer::kObject));
  EXPECT_EQ(last().token, "load-1");
  EXPECT_EQ(vending.renewals(), 0);
  vending.now_ms = VendingServer::kStart + 1600;
  ASSERT_OK(table.io->Exists(VendingServer::kObject));
  EXPECT_EQ(vending.renewals(), 1);
  EXPECT_EQ(last().token, "renew-1");
  EXPECT_EQ(last().access_key, "AKIA-renew-1");
  EXPECT_EQ(vending.loads(), 1);

  // renew-1 lasts until 3.6 s: due at 3.2 s. Sixteen threads at once: one renewal; the
  // requests sent while it runs are signed with renew-1, which still works.
  vending.now_ms = VendingServer::kStart + 3200;
  const size_t before = vending.s3_requests().size();
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] { EXPECT_OK(table.io->Exists(VendingServer::kObject)); });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(vending.renewals(), 2);
  const std::vector<VendingServer::Signed> sent = vending.s3_requests();
  ASSERT_EQ(sent.size(), before + 16);
  int renewed = 0;
  for (size_t i = before; i < sent.size(); ++i) {
    EXPECT_THAT(sent[i].token, ::testing::AnyOf("renew-1", "renew-2"));
    EXPECT_EQ(sent[i].access_key, "AKIA-" + sent[i].token);
    renewed += sent[i].token == "renew-2" ? 1 : 0;
  }
  EXPECT_GE(renewed, 1);
  ASSERT_OK(table.io->Exists(VendingServer::kObject));
  EXPECT_EQ(last().token, "renew-2");
  EXPECT_EQ(vending.loads(), 1);
  // The FileIO shows the current access key, never the secret.
  EXPECT_THAT(table.io->ToString(), HasSubstr("access key AKIA-renew-2)"));
  EXPECT_THAT(table.io->ToString(), Not(HasSubstr(kSecret)));
}

// A server that does not list the credentials endpoint: the table is loaded again (asking
// for vended credentials) to renew them.
TEST(RestCatalogVendedCredentialsTest, RenewedByATableLoadWithoutTheEndpoint) {
  VendingServer vending(/*credentials_endpoint=*/false);
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(vending.Options()));
  ASSERT_FALSE(catalog->Serves(VendingServer::kCredentialsEndpoint));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog->LoadTable({{"db"}, "t"}));
  ASSERT_OK(table.io->Exists(VendingServer::kObject));
  EXPECT_EQ(vending.s3_requests().back().token, "load-1");
  vending.now_ms = VendingServer::kStart + 1600;
  ASSERT_OK(table.io->Exists(VendingServer::kObject));
  EXPECT_EQ(vending.loads(), 2);
  EXPECT_EQ(vending.renewals(), 0);
  EXPECT_EQ(vending.s3_requests().back().token, "load-2");
}

// Every load of the table shares one FileIO: a later load's credentials (lasting longer)
// are taken by it, and what one table renews the others use.
TEST(RestCatalogVendedCredentialsTest, LaterLoadsShareTheFileIOAndItsCredentials) {
  VendingServer vending(/*credentials_endpoint=*/true);
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(vending.Options()));
  ASSERT_OK_AND_ASSIGN(iceberg::Table first, catalog->LoadTable({{"db"}, "t"}));
  vending.now_ms = VendingServer::kStart + 1000;
  ASSERT_OK_AND_ASSIGN(iceberg::Table second, catalog->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(first.io, second.io);
  ASSERT_OK(first.io->Exists(VendingServer::kObject));
  EXPECT_EQ(vending.s3_requests().back().token, "load-2");
  // load-2 lasts until 3 s, taken at 1 s: due at 2.6 s.
  vending.now_ms = VendingServer::kStart + 2599;
  ASSERT_OK(second.io->Exists(VendingServer::kObject));
  EXPECT_EQ(vending.renewals(), 0);
  vending.now_ms = VendingServer::kStart + 2600;
  ASSERT_OK(second.io->Exists(VendingServer::kObject));
  EXPECT_EQ(vending.renewals(), 1);
  ASSERT_OK(first.io->Exists(VendingServer::kObject));
  EXPECT_EQ(vending.renewals(), 1);
  EXPECT_EQ(vending.s3_requests().back().token, "renew-1");
}

// A refused renewal fails the S3 request with the catalog's answer, naming the table and
// holding no secret.
TEST(RestCatalogVendedCredentialsTest, ARefusedRenewalIsAClearErrorWithoutSecrets) {
  VendingServer vending(/*credentials_endpoint=*/true);
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(vending.Options()));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog->LoadTable({{"db"}, "t"}));
  vending.Refuse(Error(403, "ForbiddenException", "no access to db.t any more"));
  vending.now_ms = VendingServer::kStart + 2500;
  Result<bool> exists = table.io->Exists(VendingServer::kObject);
  EXPECT_THAT(exists.status(),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "HEAD s3://bucket/db/t/data/f.parquet: renew the S3 credentials of "
                          "table db.t: forbidden by the catalog (ForbiddenException: no access to "
                          "db.t any more)"));
  EXPECT_THAT(exists.status().message(), Not(HasSubstr(kSecret)));
  EXPECT_THAT(exists.status().message(), Not(HasSubstr("load-1")));
  EXPECT_TRUE(vending.s3_requests().empty());
  // An answer without credentials for the table's location.
  vending.Refuse(Json(200, {{"storage-credentials", json::array()}}));
  EXPECT_THAT(table.io->Exists(VendingServer::kObject).status(),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "renew the S3 credentials of table db.t (at s3://bucket/db/t): no S3 "
                          "credentials"));
}

// A table's FileIO does not keep its catalog alive; once the catalog is closed, renewing
// fails, naming the table.
TEST(RestCatalogVendedCredentialsTest, RenewingAfterTheCatalogIsClosedFailsClearly) {
  VendingServer vending(/*credentials_endpoint=*/true);
  ASSERT_OK_AND_ASSIGN(auto catalog, RestCatalog::Make(vending.Options()));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog->LoadTable({{"db"}, "t"}));
  std::weak_ptr<RestCatalog> closed = catalog;
  catalog.reset();
  EXPECT_TRUE(closed.expired());
  ASSERT_OK(table.io->Exists(VendingServer::kObject));  // not due yet
  vending.now_ms = VendingServer::kStart + 1600;
  Result<bool> exists = table.io->Exists(VendingServer::kObject);
  EXPECT_THAT(exists.status(),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "table db.t of rest catalog scripted: its S3 credentials expire and "
                          "cannot be renewed: the catalog is closed"));
  EXPECT_THAT(exists.status().message(), Not(HasSubstr(kSecret)));
  EXPECT_EQ(vending.renewals(), 0);
}

}  // namespace
}  // namespace floe::catalog

namespace floe::catalog {
namespace {

// `OpenCatalog` and configuration files reach the REST client by its URI forms.
TEST(RestCatalogClientTest, OpenedByUriAndConfiguration) {
  ScriptedHttpServer server([](const Request& r) -> Response {
    if (PathOf(r) == "/v1/config") return Json(200, {{"defaults", {{"from", "server"}}}});
    return Error(500, "Unexpected", r.target);
  });
  for (const std::string& uri : {server.uri(), "rest:" + server.uri() + "/"}) {
    ASSERT_OK_AND_ASSIGN(CatalogPtr catalog, OpenCatalog(uri, "", "named", true, {{"k", "v"}}));
    auto* rest = dynamic_cast<RestCatalog*>(catalog.get());
    ASSERT_NE(rest, nullptr);
    EXPECT_EQ(rest->name(), "named");
    EXPECT_EQ(rest->properties().at("from"), "server");
    EXPECT_EQ(rest->properties().at("k"), "v");
  }
  ASSERT_OK_AND_ASSIGN(
      CatalogConfigFile file,
      ParseCatalogConfig("catalog:\n  lake:\n    uri: " + server.uri() + "\n    token: t\n",
                         "floe.yaml"));
  EXPECT_EQ(file.catalogs.at("lake").type, "rest");
  ASSERT_OK_AND_ASSIGN(CatalogPtr catalog,
                       OpenConfiguredCatalog(file.catalogs.at("lake"), file.path));
  EXPECT_EQ(catalog->name(), "lake");
  EXPECT_EQ(server.requests().back().headers.at("authorization"), "Bearer t");
}

}  // namespace
}  // namespace floe::catalog
