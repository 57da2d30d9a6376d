// Vended storage credentials from floe's REST catalog server, against moto (S3 and STS,
// authenticating; testing/moto_s3.h): STS AssumeRole and GetSessionToken, credentials handed
// out with table loads that ask for them and from the credentials endpoint, and a client
// without S3 credentials of its own writing and reading a table's files with them.

#include <chrono>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/catalog/rest/rest_catalog.h"
#include "floe/catalog/rest/rest_server.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/catalog/tests/catalog_test_internal.h"
#include "floe/io/http_client.h"
#include "floe/io/resolving_file_io.h"
#include "floe/io/sts_client.h"
#include "floe/testing/matchers.h"
#include "floe/testing/moto_s3.h"

namespace floe::catalog {
namespace {

using ::floe::catalog::testing::TempDir;
using ::floe::catalog::testing::TestDatabase;
using ::floe::catalog::testing::TestSchema;
using ::floe::testing::IsErrorWith;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using Clock = std::chrono::system_clock;

class FloeRestVendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    moto_ = ::floe::testing::MotoS3::ForProcess();
    ASSERT_NE(moto_, nullptr);
  }

  io::S3Options S3() const {
    io::S3Options s3;
    s3.endpoint = moto_->endpoint;
    s3.region = moto_->region;
    s3.path_style = true;
    s3.credentials = {moto_->access_key_id, moto_->secret_access_key, ""};
    return s3;
  }

  ::floe::testing::MotoS3* moto_ = nullptr;
};

TEST_F(FloeRestVendTest, StsGivesTemporaryCredentials) {
  io::StsOptions options;
  options.endpoint = moto_->endpoint;
  options.region = moto_->region;
  options.credentials = S3().credentials;
  ASSERT_OK_AND_ASSIGN(auto sts, io::StsClient::Make(options));
  const Clock::time_point before = Clock::now();
  ASSERT_OK_AND_ASSIGN(
      io::TemporaryCredentials assumed,
      sts->AssumeRole(moto_->role_arn, "floe test/session", std::chrono::seconds(900)));
  EXPECT_THAT(assumed.credentials.access_key_id, StartsWith("ASIA"));
  EXPECT_FALSE(assumed.credentials.secret_access_key.empty());
  EXPECT_FALSE(assumed.credentials.session_token.empty());
  EXPECT_GE(assumed.expiration, before + std::chrono::seconds(899));
  EXPECT_LE(assumed.expiration, Clock::now() + std::chrono::seconds(901));
  ASSERT_OK_AND_ASSIGN(io::TemporaryCredentials session,
                       sts->GetSessionToken(std::chrono::seconds(900)));
  EXPECT_FALSE(session.credentials.session_token.empty());

  options.credentials.secret_access_key = "wrong-secret-value";
  ASSERT_OK_AND_ASSIGN(auto refused, io::StsClient::Make(options));
  Result<io::TemporaryCredentials> r =
      refused->AssumeRole(moto_->role_arn, "floe", std::chrono::seconds(900));
  EXPECT_THAT(r, IsErrorWith(StatusCode::kIOError, "STS AssumeRole of " + moto_->role_arn));
  EXPECT_THAT(r.status().ToString(), Not(HasSubstr("wrong-secret-value")));
  EXPECT_THAT(io::ParseIsoUtc("2026-12-05T19:00:00.123Z"), ::floe::testing::IsOk());
  EXPECT_THAT(io::ParseIsoUtc("2026-12-05 19:00"),
              IsErrorWith(StatusCode::kInvalidArgument, "not an ISO 8601 UTC time"));
}

// The server's catalog has the S3 keys; its client has none and works with what is vended.
TEST_F(FloeRestVendTest, ClientsWithoutKeysUseVendedCredentials) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, TestDatabase::Make("sqlite", dir.path()));
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, db->Open());
  const std::string warehouse =
      "s3://" + moto_->bucket + "/vend-" + std::to_string(Clock::now().time_since_epoch().count());
  ASSERT_OK_AND_ASSIGN(
      auto catalog_io,
      io::MakeResolvingFileIO({}, {{"s3.endpoint", moto_->endpoint},
                                   {"s3.region", moto_->region},
                                   {"s3.access-key-id", moto_->access_key_id},
                                   {"s3.secret-access-key", moto_->secret_access_key}}));
  SqlCatalogOptions sql_options;
  sql_options.warehouse = warehouse;
  ASSERT_OK_AND_ASSIGN(auto sql, SqlCatalog::Make(backend, catalog_io, sql_options));

  StsVendorOptions vend;
  vend.s3 = S3();
  vend.role_arn = moto_->role_arn;
  vend.duration = std::chrono::seconds(900);
  RestServerOptions options;
  ASSERT_OK_AND_ASSIGN(options.vendor, MakeStsCredentialVendor(vend));
  ASSERT_OK_AND_ASSIGN(auto server, RestCatalogServer::Start(sql, options, {}));

  RestCatalogOptions client_options;
  client_options.uri = server->uri();
  ASSERT_OK_AND_ASSIGN(auto client, RestCatalog::Make(client_options));
  EXPECT_TRUE(client->Serves("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials"));
  ASSERT_OK(client->CreateNamespace({"db"}));
  CreateTableRequest request;
  request.schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(iceberg::Table created, client->CreateTable({{"db"}, "t"}, request));
  EXPECT_EQ(created.metadata->location, warehouse + "/db/t");
  EXPECT_EQ(server->stats().credentials_vended, 1);

  // The client writes and reads under the table's location with the vended credentials.
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, client->LoadTable({{"db"}, "t"}));
  const std::string path = table.metadata->location + "/data/probe.bin";
  {
    ASSERT_OK_AND_ASSIGN(auto out, table.io->NewOutputFile(path));
    ASSERT_OK(out->Write("vended", 6));
    ASSERT_OK(out->Close());
  }
  ASSERT_OK_AND_ASSIGN(auto in, table.io->NewInputFile(path));
  EXPECT_EQ(in->size(), 6);

  // What commits write with (manifests, manifest lists) is the table's FileIO as last
  // loaded, with the vended credentials: the catalog's has none.
  iceberg::TableOperationsPtr ops = client->TableOps({{"db"}, "t"});
  EXPECT_EQ(ops->io(), client->io());
  ASSERT_OK(ops->Refresh());
  ASSERT_NE(ops->io(), client->io());
  {
    ASSERT_OK_AND_ASSIGN(auto out, ops->io()->NewOutputFile(table.metadata->location + "/m.avro"));
    ASSERT_OK(out->Write("manifest", 8));
    ASSERT_OK(out->Close());
  }
  EXPECT_THAT(client->io()->NewOutputFile(table.metadata->location + "/n.avro"),
              IsErrorWith(StatusCode::kInvalidArgument, "no S3 credentials are configured"));

  // What a load with the delegation header and the credentials endpoint answer.
  io::HttpClient http{io::HttpOptions{}};
  io::HttpRequest load;
  load.url = server->uri() + "/v1/namespaces/db/tables/t";
  load.headers = {{"X-Iceberg-Access-Delegation", "vended-credentials"}};
  ASSERT_OK_AND_ASSIGN(io::HttpResponse loaded, http.Send(load));
  json result = json::parse(loaded.body);
  const json& config = result["storage-credentials"][0]["config"];
  EXPECT_EQ(result["storage-credentials"][0]["prefix"], warehouse + "/db/t");
  EXPECT_THAT(config["s3.access-key-id"].get<std::string>(), StartsWith("ASIA"));
  EXPECT_EQ(config["s3.endpoint"], moto_->endpoint);
  EXPECT_EQ(config["s3.path-style-access"], "true");
  const int64_t expires = std::stoll(config["s3.session-token-expires-at-ms"].get<std::string>());
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
          .count();
  EXPECT_GT(expires, now_ms + 800 * 1000);
  EXPECT_LE(expires, now_ms + 901 * 1000);
  EXPECT_EQ(result["config"], config);
  // Reused while half their life is left: no new STS call, the same key.
  io::HttpRequest credentials;
  credentials.url = server->uri() + "/v1/namespaces/db/tables/t/credentials";
  ASSERT_OK_AND_ASSIGN(io::HttpResponse fresh, http.Send(credentials));
  ASSERT_EQ(fresh.status, 200) << fresh.body;
  EXPECT_EQ(json::parse(fresh.body)["storage-credentials"][0]["config"], config);
  // A load without the header gets none.
  load.headers.clear();
  ASSERT_OK_AND_ASSIGN(io::HttpResponse plain, http.Send(load));
  EXPECT_EQ(json::parse(plain.body)["config"], json::object());
  EXPECT_FALSE(json::parse(plain.body).contains("storage-credentials"));
  // No secret of the server's in what the client prints.
  EXPECT_THAT(client->ToString(), Not(HasSubstr(moto_->secret_access_key)));
  ASSERT_OK(client->DropTable({{"db"}, "t"}, /*purge=*/true));
}

}  // namespace
}  // namespace floe::catalog
