// floe's REST catalog server (rest/rest_server.h) over the SQL catalog on SQLite, reached
// by floe's REST client and by plain HTTP calls: OAuth2 tokens that expire and are renewed
// (by token exchange, by the client credentials, after a 401), a wrong secret refused once,
// requests without a valid token, bodies that are not what the spec says (400 naming the
// field), a body over the limit (413), paging, staged creates, multi-table commits, the
// spec's error types, and logs without secrets. The catalog behaviour suite runs every
// other case through this server too (catalog_behaviour_test.cc, instance floe_rest).

#include <atomic>
#include <chrono>
#include <mutex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/catalog/rest/rest_catalog.h"
#include "floe/catalog/rest/rest_server.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/catalog/tests/catalog_test_internal.h"
#include "floe/io/http_client.h"
#include "floe/testing/matchers.h"

namespace floe::catalog {
namespace {

using ::floe::catalog::testing::FileNames;
using ::floe::catalog::testing::TempDir;
using ::floe::catalog::testing::TestDatabase;
using ::floe::catalog::testing::TestSchema;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::system_clock;
using Req = iceberg::TableRequirement;

constexpr const char* kSecret = "the-client-secret-42";

class FloeRestServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(db_, TestDatabase::Make("sqlite", dir_.path()));
    ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, db_->Open());
    SqlCatalogOptions options;
    options.name = "lake";
    options.warehouse = dir_.path() + "/wh/";
    ASSERT_OK_AND_ASSIGN(
        sql_, SqlCatalog::Make(std::move(backend), std::make_shared<io::LocalFileIO>(), options));
  }

  // Starts the server with the test's clock and log.
  void Start(RestServerOptions options = {}, io::HttpServerOptions http = {}) {
    options.clock = [this] { return Now(); };
    options.log = [this](const std::string& line) {
      std::lock_guard lock(log_mutex_);
      log_.push_back(line);
    };
    ASSERT_OK_AND_ASSIGN(server_, RestCatalogServer::Start(sql_, options, http));
  }
  void StartWithClient(std::chrono::seconds ttl = std::chrono::seconds(3600)) {
    RestServerOptions options;
    options.clients = {{"app", kSecret}};
    options.token_ttl = ttl;
    Start(options);
  }

  Result<std::shared_ptr<RestCatalog>> Client(std::map<std::string, std::string> properties = {
                                                  {"credential", std::string("app:") + kSecret}}) {
    RestCatalogOptions options;
    options.name = "lake";
    options.uri = server_->uri();
    options.properties = std::move(properties);
    options.clock = [this] { return client_skew_ ? Now() - *client_skew_ : Now(); };
    options.http.retry.base_delay = std::chrono::milliseconds(1);
    return RestCatalog::Make(std::move(options));
  }

  // A plain HTTP call to the server.
  io::HttpResponse Call(const std::string& method, const std::string& path,
                        const std::string& body = "", const std::string& token = "",
                        const std::string& content_type = "application/json") {
    io::HttpRequest request;
    request.method = method;
    request.url = server_->uri() + path;
    request.body = body;
    request.headers = {{"Content-Type", content_type}};
    if (!token.empty()) request.headers.emplace_back("Authorization", "Bearer " + token);
    request.retry_statuses = {};
    request.what = method + " " + path;
    auto response = http_.Send(request);
    EXPECT_TRUE(response.ok()) << response.status().ToString();
    return response.ok() ? *response : io::HttpResponse{};
  }

  std::string Token() {
    io::HttpResponse r = Call("POST", "/v1/oauth/tokens",
                              std::string("grant_type=client_credentials&client_id=app&"
                                          "client_secret=") +
                                  kSecret,
                              "", "application/x-www-form-urlencoded");
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body).value("access_token", "");
  }

  Clock::time_point Now() const { return base_ + std::chrono::milliseconds(offset_ms_.load()); }
  void Advance(int64_t seconds) { offset_ms_ += seconds * 1000; }
  void AdvanceMs(int64_t milliseconds) { offset_ms_ += milliseconds; }

  std::vector<std::string> Log() {
    std::lock_guard lock(log_mutex_);
    return log_;
  }

  TempDir dir_;
  std::unique_ptr<TestDatabase> db_;
  std::shared_ptr<SqlCatalog> sql_;
  std::unique_ptr<RestCatalogServer> server_;
  io::HttpClient http_{io::HttpOptions{}};
  const Clock::time_point base_ = Clock::now();
  std::atomic<int64_t> offset_ms_{0};
  std::optional<std::chrono::seconds> client_skew_;
  std::mutex log_mutex_;
  std::vector<std::string> log_;
};

TEST_F(FloeRestServerTest, TokensExpireAndTheClientRenewsThem) {
  StartWithClient(std::chrono::seconds(100));
  ASSERT_OK_AND_ASSIGN(auto catalog, Client());
  EXPECT_EQ(server_->stats().token_grants, 1);
  ASSERT_OK(catalog->CreateNamespace({"db"}));

  // Within the last tenth of its life: the client trades the live token for a new one.
  Advance(95);
  ASSERT_OK(catalog->ListNamespaces());
  EXPECT_EQ(server_->stats().token_grants, 2);
  EXPECT_THAT(Log().back(), HasSubstr("token exchange"));

  // Long after it ran out: the exchange is refused and the credentials get a new one.
  Advance(1000);
  ASSERT_OK(catalog->ListNamespaces());
  EXPECT_EQ(server_->stats().token_grants, 3);
  EXPECT_THAT(Log().back(), HasSubstr("client credentials"));

  // The server's clock runs ahead of the client's: the token the client thinks live is
  // refused with 401, and the client signs in again and repeats the call once.
  client_skew_ = std::chrono::seconds(0);
  Advance(200);
  client_skew_ = std::chrono::seconds(200);
  const int64_t unauthorized = server_->stats().unauthorized;
  ASSERT_OK_AND_ASSIGN(auto namespaces, catalog->ListNamespaces());
  EXPECT_EQ(namespaces, std::vector<Namespace>{{"db"}});
  EXPECT_EQ(server_->stats().token_grants, 4);
  EXPECT_EQ(server_->stats().unauthorized, unauthorized + 1);
}

// A token of two seconds is renewed by token exchange in the last tenth of its life, before
// the server refuses it (the renewal margin was whole seconds: none below ten seconds).
TEST_F(FloeRestServerTest, ShortLivedTokensAreRenewedBeforeTheyRunOut) {
  StartWithClient(std::chrono::seconds(2));
  ASSERT_OK_AND_ASSIGN(auto catalog, Client());
  for (int round = 1; round <= 3; ++round) {
    AdvanceMs(1850);
    ASSERT_OK(catalog->ListNamespaces());
    EXPECT_EQ(server_->stats().token_grants, 1 + round);
    EXPECT_THAT(Log().back(), HasSubstr("token exchange"));
  }
  EXPECT_EQ(server_->stats().unauthorized, 0);
}

TEST_F(FloeRestServerTest, WrongSecretIsOneClearRefusal) {
  StartWithClient();
  const int64_t before = server_->stats().requests;
  EXPECT_THAT(Client({{"credential", "app:not-the-secret"}}),
              IsErrorWith(StatusCode::kInvalidArgument, "invalid_client"));
  // One token request, no retries, and no call past it.
  EXPECT_EQ(server_->stats().requests, before + 1);
  EXPECT_EQ(server_->stats().token_grants, 0);
  EXPECT_THAT(Client({{"credential", "nobody:" + std::string(kSecret)}}),
              IsError(StatusCode::kInvalidArgument));
  // A client id cannot forge a log line.
  EXPECT_EQ(Call("POST", "/v1/oauth/tokens",
                 "grant_type=client_credentials&client_id=x%0Agranted&client_secret=y", "",
                 "application/x-www-form-urlencoded")
                .status,
            401);
  EXPECT_THAT(Log().back(), HasSubstr("refused a token to client 'x?granted' from 127.0.0.1:"));
  for (const std::string& line : Log()) {
    EXPECT_THAT(line, Not(HasSubstr("not-the-secret")));
    EXPECT_THAT(line, Not(HasSubstr(kSecret)));
  }
}

TEST_F(FloeRestServerTest, CallsNeedALiveToken) {
  StartWithClient(std::chrono::seconds(60));
  EXPECT_EQ(Call("GET", "/v1/namespaces").status, 401);
  EXPECT_EQ(Call("GET", "/v1/namespaces", "", "made-up").status, 401);
  const std::string token = Token();
  EXPECT_EQ(Call("GET", "/v1/namespaces", "", token).status, 200);
  Advance(61);
  io::HttpResponse expired = Call("GET", "/v1/namespaces", "", token);
  EXPECT_EQ(expired.status, 401);
  EXPECT_EQ(json::parse(expired.body)["error"]["type"], "NotAuthorizedException");
  // An exchange needs a live subject token.
  io::HttpResponse exchange = Call(
      "POST", "/v1/oauth/tokens",
      "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token=" + token,
      "", "application/x-www-form-urlencoded");
  EXPECT_EQ(exchange.status, 400);
  EXPECT_EQ(json::parse(exchange.body)["error"], "invalid_grant");
  EXPECT_EQ(Call("POST", "/v1/oauth/tokens", "grant_type=password", "",
                 "application/x-www-form-urlencoded")
                .status,
            400);
}

TEST_F(FloeRestServerTest, WithoutClientsEveryRequestIsServed) {
  Start();
  ASSERT_OK_AND_ASSIGN(auto catalog, Client({}));
  ASSERT_OK(catalog->CreateNamespace({"open"}));
  EXPECT_EQ(Call("GET", "/v1/namespaces/open").status, 200);
}

// Each request body that breaks the spec is refused with 400 and a message naming the field.
TEST_F(FloeRestServerTest, BadBodiesAreRefusedNamingTheField) {
  Start();
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace": ["db"]})").status, 200);
  const std::string schema =
      R"({"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "x", "required": false, "type": "long"}]})";
  ASSERT_EQ(
      Call("POST", "/v1/namespaces/db/tables", R"({"name": "t", "schema": )" + schema + "}").status,
      200);
  struct Case {
    std::string method, path, body, message;
  };
  const std::vector<Case> cases = {
      {"POST", "/v1/namespaces", "{not json",
       "create namespace request: the body is not valid JSON"},
      {"POST", "/v1/namespaces", "[1]", "the body must be a JSON object"},
      {"POST", "/v1/namespaces", "{}", "field 'namespace' is missing"},
      {"POST", "/v1/namespaces", R"({"namespace": "db"})",
       "field 'namespace' must be an array of strings"},
      {"POST", "/v1/namespaces", R"({"namespace": ["a"], "properties": {"k": 1}})",
       "field 'properties': the value of 'k' must be a string"},
      {"POST", "/v1/namespaces/db/tables", R"({"schema": )" + schema + "}",
       "create table request: field 'name' is missing"},
      {"POST", "/v1/namespaces/db/tables", R"({"name": "u"})", "field 'schema' is missing"},
      {"POST", "/v1/namespaces/db/tables", R"({"name": "u", "schema": {"type": "struct"}})",
       "create table request: field 'schema'"},
      {"POST", "/v1/namespaces/db/tables",
       R"({"name": "u", "schema": )" + schema + R"(, "stage-create": "yes"})",
       "field 'stage-create' must be true or false"},
      {"POST", "/v1/namespaces/db/tables/t", R"({"updates": []})",
       "commit table request: field 'requirements' is missing"},
      {"POST", "/v1/namespaces/db/tables/t",
       R"({"requirements": [], "updates": [{"action": "no-such-action"}]})",
       "commit table request: field 'updates[0]'"},
      {"POST", "/v1/namespaces/db/tables/t",
       R"({"identifier": {"namespace": ["db"], "name": "other"}, "requirements": [], "updates": []})",
       "field 'identifier' names db.other, the path db.t"},
      {"POST", "/v1/tables/rename", R"({"source": {"namespace": ["db"], "name": "t"}})",
       "rename table request: field 'destination' is missing"},
      {"POST", "/v1/tables/rename",
       R"({"source": {"namespace": ["db"]}, "destination": {"namespace": ["db"], "name": "u"}})",
       "rename table request: field 'source': field 'name' is missing"},
      {"POST", "/v1/namespaces/db/properties", R"({"removals": "k"})",
       "field 'removals' must be an array of strings"},
      {"POST", "/v1/transactions/commit",
       R"({"table-changes": [{"requirements": [], "updates": []}]})",
       "table-changes[0]: field 'identifier' is missing"},
      {"GET", "/v1/namespaces?pageSize=-1", "", "'pageSize' must be a positive integer"},
      {"GET", "/v1/namespaces/db/tables/t?snapshots=some", "", "'snapshots' must be"},
      {"DELETE", "/v1/namespaces/db/tables/t?purgeRequested=maybe", "", "'purgeRequested'"},
  };
  for (const Case& c : cases) {
    io::HttpResponse r = Call(c.method, c.path, c.body);
    EXPECT_EQ(r.status, 400) << c.path << " " << c.body << ": " << r.body;
    json body = json::parse(r.body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << r.body;
    EXPECT_EQ(body["error"]["type"], "BadRequestException") << r.body;
    EXPECT_THAT(body["error"]["message"].get<std::string>(), HasSubstr(c.message)) << c.body;
  }
  // Nothing above changed the table.
  ASSERT_OK_AND_ASSIGN(iceberg::Table t, sql_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(
      iceberg::MetadataFileVersion(std::filesystem::path(t.metadata_location).filename().string()),
      0);
}

TEST_F(FloeRestServerTest, BodiesOverTheLimitAreRefusedUnread) {
  io::HttpServerOptions http;
  http.max_body_bytes = 1024;
  Start({}, http);
  EXPECT_EQ(Call("POST", "/v1/namespaces", std::string(4096, ' ')).status, 413);
  EXPECT_EQ(Call("POST", "/v1/namespaces", R"({"namespace": ["small"]})").status, 200);
}

TEST_F(FloeRestServerTest, UnknownPathsAndMethods) {
  Start();
  EXPECT_EQ(Call("GET", "/v2/config").status, 404);
  EXPECT_EQ(Call("GET", "/v1/nothing").status, 404);
  EXPECT_EQ(Call("PUT", "/v1/namespaces").status, 405);
  EXPECT_EQ(Call("GET", "/v1/namespaces/%zz").status, 400);
}

TEST_F(FloeRestServerTest, NotFoundAndConflictsCarryTheSpecsTypes) {
  Start();
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace": ["db"]})").status, 200);
  auto type = [](const io::HttpResponse& r) {
    return json::parse(r.body)["error"]["type"].get<std::string>();
  };
  io::HttpResponse r = Call("GET", "/v1/namespaces/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(type(r), "NoSuchNamespaceException");
  r = Call("GET", "/v1/namespaces/db/tables/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(type(r), "NoSuchTableException");
  // A table the path names is missing, its namespace too: NoSuchTableException, as the
  // spec answers loads (Spark looks for metadata table db.t.snapshots after that answer).
  r = Call("GET", "/v1/namespaces/db%1Ft/tables/snapshots");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(type(r), "NoSuchTableException");
  EXPECT_EQ(type(Call("DELETE", "/v1/namespaces/nope/tables/t")), "NoSuchTableException");
  // A table created in a missing namespace: NoSuchNamespaceException.
  r = Call("POST", "/v1/namespaces/nope/tables",
           R"({"name": "t", "schema": {"type": "struct", "fields": []}})");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(type(r), "NoSuchNamespaceException");
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/db").status, 204);
  EXPECT_EQ(Call("HEAD", "/v1/namespaces/nope").status, 404);
  r = Call("POST", "/v1/namespaces", R"({"namespace": ["db"]})");
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(type(r), "AlreadyExistsException");
  ASSERT_OK_AND_ASSIGN(auto catalog, Client({}));
  CreateTableRequest request;
  request.schema = TestSchema();
  ASSERT_OK(catalog->CreateTable({{"db"}, "t"}, request));
  r = Call("DELETE", "/v1/namespaces/db");
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(type(r), "NamespaceNotEmptyException");
  EXPECT_THAT(catalog->DropNamespace({"db"}), IsError(StatusCode::kConstraint));
  EXPECT_THAT(catalog->CommitTable({{"db"}, "t"}, {Req::AssertCurrentSchemaId(7)}, {}),
              IsErrorWith(StatusCode::kCommitConflict, "CommitFailedException"));
  EXPECT_THAT(catalog->RenameTable({{"db"}, "t"}, {{"nope"}, "t"}),
              IsErrorWith(StatusCode::kNotFound, "namespace nope"));
}

// pyiceberg's purge_table sends purgeRequested=True, which the reference server reads as
// true (Java's Boolean.parseBoolean ignores case).
TEST_F(FloeRestServerTest, PurgeRequestedIsReadInAnyCase) {
  Start();
  ASSERT_OK_AND_ASSIGN(auto catalog, Client({}));
  ASSERT_OK(catalog->CreateNamespace({"db"}));
  CreateTableRequest request;
  request.schema = TestSchema();
  ASSERT_OK(catalog->CreateTable({{"db"}, "kept"}, request));
  ASSERT_OK(catalog->CreateTable({{"db"}, "purged"}, request));
  EXPECT_EQ(Call("DELETE", "/v1/namespaces/db/tables/kept?purgeRequested=False").status, 204);
  EXPECT_EQ(Call("DELETE", "/v1/namespaces/db/tables/purged?purgeRequested=True").status, 204);
  EXPECT_EQ(FileNames(dir_.path() + "/wh/db/kept/metadata").size(), 1u);
  EXPECT_TRUE(FileNames(dir_.path() + "/wh/db/purged/metadata").empty());
  ASSERT_OK_AND_ASSIGN(auto tables, catalog->ListTables({"db"}));
  EXPECT_TRUE(tables.empty());
}

TEST_F(FloeRestServerTest, ListsComeInPages) {
  Start();
  ASSERT_OK_AND_ASSIGN(auto catalog, Client({}));
  for (const char* ns : {"a", "b", "c", "d", "e"}) ASSERT_OK(catalog->CreateNamespace({ns}));
  std::vector<std::string> seen;
  std::string token;
  int pages = 0;
  while (true) {
    std::string path = "/v1/namespaces?pageSize=2";
    if (!token.empty()) path += "&pageToken=" + token;
    json page = json::parse(Call("GET", path).body);
    ++pages;
    for (const json& ns : page["namespaces"]) seen.push_back(ns[0]);
    if (!page.contains("next-page-token")) break;
    token = page["next-page-token"];
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  // The client pages through the same lists.
  ASSERT_OK_AND_ASSIGN(auto paged, Client({{"rest-page-size", "2"}}));
  ASSERT_OK_AND_ASSIGN(auto all, paged->ListNamespaces());
  EXPECT_EQ(all.size(), 5u);
}

TEST_F(FloeRestServerTest, StagedCreateWritesNothingUntilTheClientCommits) {
  Start();
  ASSERT_OK_AND_ASSIGN(auto catalog, Client({}));
  ASSERT_OK(catalog->CreateNamespace({"db"}));
  const std::string schema =
      R"({"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "x", "required": false, "type": "long"}]})";
  io::HttpResponse staged =
      Call("POST", "/v1/namespaces/db/tables",
           R"({"name": "t", "stage-create": true, "schema": )" + schema + "}");
  ASSERT_EQ(staged.status, 200) << staged.body;
  json result = json::parse(staged.body);
  EXPECT_FALSE(result.contains("metadata-location"));
  EXPECT_EQ(result["metadata"]["location"], dir_.path() + "/wh/db/t");
  EXPECT_TRUE(FileNames(dir_.path() + "/wh/db").empty());
  ASSERT_OK_AND_ASSIGN(bool exists, catalog->TableExists({{"db"}, "t"}));
  EXPECT_FALSE(exists);
  // The client commits the staged metadata with assert-create.
  ASSERT_OK_AND_ASSIGN(auto metadata, iceberg::TableMetadataFromJson(result["metadata"], "staged"));
  ASSERT_OK(catalog->CommitTable({{"db"}, "t"}, {Req::AssertCreate()},
                                 iceberg::CreateTableUpdates(*metadata)));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(table.metadata->table_uuid, metadata->table_uuid);
  // A second staged create of the same name is refused at once.
  EXPECT_EQ(Call("POST", "/v1/namespaces/db/tables",
                 R"({"name": "t", "stage-create": true, "schema": )" + schema + "}")
                .status,
            409);
}

// Spark's create requests number the columns from 0 (the server numbers them afresh, as the
// spec's reference implementation does): the table's ids start at 1, and its identifier
// field, partition spec and sort order keep their columns; staged or not.
TEST_F(FloeRestServerTest, CreateRequestsMayNumberColumnsFromZero) {
  Start();
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace": ["db"]})").status, 200);
  const std::string rest = R"(, "schema": {"type": "struct", "schema-id": 0,
      "identifier-field-ids": [0], "fields": [
        {"id": 0, "name": "id", "required": true, "type": "long"},
        {"id": 1, "name": "tags", "required": false,
         "type": {"type": "list", "element-id": 3, "element": "string", "element-required": false}},
        {"id": 2, "name": "cat", "required": false, "type": "string"}]},
    "partition-spec": {"spec-id": 0, "fields": [
      {"name": "cat", "transform": "identity", "source-id": 2, "field-id": 1000}]},
    "write-order": {"order-id": 1, "fields": [
      {"transform": "identity", "source-id": 0, "direction": "asc", "null-order": "nulls-first"}]}})";
  for (const char* start : {R"({"name": "t")", R"({"name": "staged", "stage-create": true)"}) {
    io::HttpResponse r = Call("POST", "/v1/namespaces/db/tables", start + rest);
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_OK_AND_ASSIGN(
        auto metadata, iceberg::TableMetadataFromJson(json::parse(r.body)["metadata"], "created"));
    const iceberg::SchemaPtr schema = metadata->CurrentSchema();
    std::vector<std::pair<std::string, int32_t>> ids;
    for (const Field& field : schema->fields()) ids.emplace_back(field.name(), field.field_id());
    EXPECT_EQ(ids,
              (std::vector<std::pair<std::string, int32_t>>{{"id", 1}, {"tags", 2}, {"cat", 3}}));
    EXPECT_EQ(schema->FindColumnName(4), "tags.element");
    EXPECT_EQ(schema->identifier_field_ids(), std::vector<int32_t>{1});
    ASSERT_EQ(metadata->DefaultSpec()->fields().size(), 1u);
    EXPECT_EQ(metadata->DefaultSpec()->fields()[0].source_id, 3);
    ASSERT_EQ(metadata->DefaultSortOrder()->fields().size(), 1u);
    EXPECT_EQ(metadata->DefaultSortOrder()->fields()[0].source_id, 1);
  }
}

// Spark's REPLACE TABLE ... AS SELECT with fewer columns adds a schema whose
// last-column-id is its own highest id, below the table's: the table keeps its own, as
// Iceberg's server does, so no id is ever given twice.
TEST_F(FloeRestServerTest, AddSchemaNeverLowersTheLastColumnId) {
  Start();
  ASSERT_OK_AND_ASSIGN(auto catalog, Client({}));
  ASSERT_OK(catalog->CreateNamespace({"db"}));
  CreateTableRequest request;
  request.schema = TestSchema();
  ASSERT_OK(catalog->CreateTable({{"db"}, "t"}, request));
  io::HttpResponse r = Call("POST", "/v1/namespaces/db/tables/t", R"({"requirements": [],
      "updates": [{"action": "add-schema", "last-column-id": 1, "schema": {"type": "struct",
                   "schema-id": 1, "fields": [
                     {"id": 1, "name": "id", "required": true, "type": "long"}]}},
                  {"action": "set-current-schema", "schema-id": -1}]})");
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(table.metadata->current_schema_id, 1);
  EXPECT_EQ(table.metadata->CurrentSchema()->num_fields(), 1);
  EXPECT_EQ(table.metadata->last_column_id, 2);
}

// (That a multi-table commit is all or nothing is a case of the behaviour suite.)
TEST_F(FloeRestServerTest, MultiTableCommitNamingATableTwiceIsRefused) {
  Start();
  ASSERT_OK_AND_ASSIGN(auto catalog, Client({}));
  ASSERT_TRUE(catalog->SupportsTransactions());
  ASSERT_OK(catalog->CreateNamespace({"db"}));
  CreateTableRequest request;
  request.schema = TestSchema();
  ASSERT_OK(catalog->CreateTable({{"db"}, "a"}, request));
  EXPECT_THAT(catalog->CommitTransaction(
                  {{{{"db"}, "a"}, {}, {iceberg::update::SetProperties{{{"k", "3"}}}}},
                   {{{"db"}, "a"}, {}, {iceberg::update::SetProperties{{{"k", "4"}}}}}}),
              IsErrorWith(StatusCode::kInvalidArgument, "names table db.a twice"));
}

TEST_F(FloeRestServerTest, NamespacePropertiesReportWhatChanged) {
  Start();
  ASSERT_EQ(
      Call("POST", "/v1/namespaces", R"({"namespace": ["db"], "properties": {"a": "1"}})").status,
      200);
  io::HttpResponse r = Call("POST", "/v1/namespaces/db/properties",
                            R"({"removals": ["a", "zz"], "updates": {"b": "2"}})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body),
            json::parse(R"({"updated": ["b"], "removed": ["a"], "missing": ["zz"]})"));
}

// HTTPS with a certificate of the test's own (made by the openssl command): a client that
// trusts its authority (`ssl.cabundle`) works, one that does not is refused before it sends
// anything.
TEST_F(FloeRestServerTest, ServesHttpsToClientsThatTrustItsAuthority) {
  const std::string cert = dir_.path() + "/server.pem";
  const std::string key = dir_.path() + "/server.key";
  const std::string command =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
      "-addext subjectAltName=IP:127.0.0.1 -keyout " +
      key + " -out " + cert + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  io::HttpServerOptions http;
  http.tls_certificate = cert;
  http.tls_private_key = key;
  RestServerOptions options;
  options.clients = {{"app", kSecret}};
  Start(options, http);
  ASSERT_THAT(server_->uri(), ::testing::StartsWith("https://127.0.0.1:"));
  ASSERT_OK_AND_ASSIGN(auto trusting, Client({{"credential", std::string("app:") + kSecret},
                                              {"ssl.cabundle", cert}}));
  ASSERT_OK(trusting->CreateNamespace({"secure"}));
  ASSERT_OK_AND_ASSIGN(auto namespaces, trusting->ListNamespaces());
  EXPECT_EQ(namespaces, std::vector<Namespace>{{"secure"}});
  const int64_t grants = server_->stats().token_grants;
  EXPECT_THAT(Client(), IsError(StatusCode::kIOError));
  EXPECT_EQ(server_->stats().token_grants, grants);
  io::HttpServerOptions bad;
  bad.tls_certificate = cert;
  bad.tls_private_key = dir_.path() + "/missing.key";
  EXPECT_THAT(io::HttpServer::Start(bad, nullptr),
              IsErrorWith(StatusCode::kInvalidArgument, "cannot load the TLS certificate"));
}

}  // namespace
}  // namespace floe::catalog
