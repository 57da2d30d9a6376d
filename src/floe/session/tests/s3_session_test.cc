// A whole session on S3 (moto, authenticating): a SQL catalog whose warehouse is an S3
// location and whose FileIO resolves s3:// paths with known credentials. DDL, a partitioned
// INSERT, SELECT, time travel, EXPLAIN ANALYZE and a failing statement, in one process and
// with every stage sent through the plan codec; every file of the table is on S3, and no
// output ever holds the secret key. Then the same through floe's REST catalog server with
// vended credentials (RestVendedSessionTest): no output holds any secret either.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/catalog/rest/rest_catalog.h"
#include "floe/catalog/rest/rest_server.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/catalog/sqlite_backend.h"
#include "floe/iceberg/table.h"
#include "floe/io/http_client.h"
#include "floe/io/resolving_file_io.h"
#include "floe/session/session.h"
#include "floe/session/tests/query_rows.h"
#include "floe/testing/matchers.h"
#include "floe/testing/moto_s3.h"
#include "floe/testing/scoped_env.h"
#include "floe/testing/scratch_dir.h"

namespace floe::session {
namespace {

using ::floe::testing::IsOkAndHolds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class S3SessionTest : public floe::testing::ScratchDirTest,
                      public ::testing::WithParamInterface<bool> {
 protected:
  S3SessionTest() : ScratchDirTest("floe_session_s3") {}

  static void SetUpTestSuite() {
    moto_ = floe::testing::MotoS3::ForProcess();
    ASSERT_NE(moto_, nullptr);
  }

  void SetUp() override {
    ScratchDirTest::SetUp();
    io::S3FileIOOptions s3;
    s3.client.endpoint = moto_->endpoint;
    s3.client.region = moto_->region;
    s3.client.path_style = true;
    s3.client.credentials = {moto_->access_key_id, moto_->secret_access_key, ""};
    s3.part_size = int64_t{5} << 20;
    io_ = std::make_shared<io::ResolvingFileIO>(io::LocalFileIOOptions{}, s3);
    ASSERT_OK_AND_ASSIGN(catalog::SqlBackendPtr backend,
                         catalog::OpenSqliteBackend(dir_ + "/catalog.db"));
    catalog::SqlCatalogOptions options;
    options.warehouse = "s3://" + moto_->bucket + "/" + Warehouse();
    ASSERT_OK_AND_ASSIGN(auto catalog, catalog::SqlCatalog::Make(backend, io_, options));
    SessionOptions session_options;
    session_options.catalog = std::move(catalog);
    session_options.warehouse = dir_;
    session_options.threads = 2;
    ASSERT_OK_AND_ASSIGN(session_, Session::Make(session_options));
    if (GetParam()) {
      ASSERT_OK(session_->mutable_config().Set("codec_roundtrip", "on"));
    }
  }

  // One warehouse per test case, so that the cases do not see each other's tables.
  std::string Warehouse() const {
    return std::string("wh-") + (GetParam() ? "codec-" : "") +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  // Runs a statement; its rows, and every byte of its output and errors in `seen_`.
  Result<std::vector<std::string>> Run(const std::string& sql) { return RunIn(*session_, sql); }

  Result<std::vector<std::string>> RunIn(Session& session, const std::string& sql) {
    Result<std::unique_ptr<QueryResult>> result = session.Execute(sql);
    if (!result.ok()) {
      seen_ += result.status().ToString();
      return result.status();
    }
    Result<std::vector<std::string>> rows = Rows(**result);
    if (rows.ok()) {
      for (const std::string& row : *rows) seen_ += row + "\n";
    } else {
      seen_ += rows.status().ToString();
    }
    return rows;
  }

  static floe::testing::MotoS3* moto_;
  std::shared_ptr<io::ResolvingFileIO> io_;
  std::unique_ptr<Session> session_;
  std::string seen_;
};

floe::testing::MotoS3* S3SessionTest::moto_ = nullptr;

TEST_P(S3SessionTest, ATableOnS3FromCreateToSelect) {
  ASSERT_OK(Run("CREATE SCHEMA db").status());
  ASSERT_OK(Run("CREATE TABLE db.events (id bigint, day date, s text) "
                "WITH (partitioning = 'day(day)')")
                .status());
  ASSERT_OK_AND_ASSIGN(auto inserted,
                       Run("INSERT INTO db.events SELECT g, DATE '2024-01-01' + CAST(g % 3 AS "
                           "int), 'row ' || g FROM generate_series(1, 3000) s(g)"));
  ASSERT_OK(Run("INSERT INTO db.events VALUES (9999, DATE '2024-02-01', 'late')").status());
  ASSERT_OK_AND_ASSIGN(
      auto counts, Run("SELECT day, count(*), sum(id) FROM db.events GROUP BY day ORDER BY day"));
  EXPECT_THAT(counts, ElementsAre("2024-01-01|1000|1501500", "2024-01-02|1000|1499500",
                                  "2024-01-03|1000|1500500", "2024-02-01|1|9999"));
  ASSERT_OK_AND_ASSIGN(auto filtered, Run("SELECT s FROM db.events WHERE day = DATE "
                                          "'2024-02-01'"));
  EXPECT_THAT(filtered, ElementsAre("late"));
  // A session path map rewrites local paths only: the table on S3 still reads.
  ASSERT_OK(Run("SET iceberg.path_map = '/nonexistent/=/elsewhere/'").status());
  ASSERT_OK_AND_ASSIGN(auto mapped, Run("SELECT count(*), max(s) FROM db.events WHERE id > 2990"));
  EXPECT_THAT(mapped, ElementsAre("11|row 3000"));
  ASSERT_OK(Run("RESET iceberg.path_map").status());
  // Time travel to the first snapshot.
  ASSERT_OK_AND_ASSIGN(
      auto snapshots, Run("SELECT snapshot_id FROM db.\"events$snapshots\" ORDER BY committed_at"));
  ASSERT_EQ(snapshots.size(), 2u);
  ASSERT_OK_AND_ASSIGN(auto first, Run("SELECT count(*) FROM iceberg_scan('db.events', "
                                       "snapshot_id => " +
                                       snapshots[0] + ")"));
  EXPECT_THAT(first, ElementsAre("3000"));
  // Every file the table holds is on S3, under the table's location.
  ASSERT_OK_AND_ASSIGN(auto files, Run("SELECT file_path FROM db.\"events$files\""));
  EXPECT_EQ(files.size(), 4u);
  for (const std::string& f : files) {
    EXPECT_THAT(f, ::testing::StartsWith("s3://" + moto_->bucket + "/" + Warehouse() +
                                         "/db/events/data/day_day="));
  }
  // The table's location opens as a table directory on S3 (the newest metadata file),
  // and so does its metadata file.
  const std::string location = "s3://" + moto_->bucket + "/" + Warehouse() + "/db/events";
  ASSERT_OK_AND_ASSIGN(iceberg::Table opened, iceberg::OpenTable(location, io_));
  EXPECT_EQ(opened.metadata->snapshots.size(), 2u);
  ASSERT_OK_AND_ASSIGN(iceberg::Table again, iceberg::OpenTable(opened.metadata_location, io_));
  EXPECT_EQ(again.metadata->current_snapshot_id, opened.metadata->current_snapshot_id);
  EXPECT_THAT(iceberg::OpenTable(location + "-missing", io_),
              floe::testing::IsErrorWith(StatusCode::kNotFound, "has no metadata directory"));
  // EXPLAIN ANALYZE counts the statement's S3 requests: the manifests planning reads and
  // the data files the scan reads, with their bytes.
  ASSERT_OK_AND_ASSIGN(auto analyzed, Run("EXPLAIN ANALYZE SELECT sum(id) FROM db.events"));
  ASSERT_FALSE(analyzed.empty());
  EXPECT_THAT(analyzed.back(),
              ::testing::MatchesRegex("S3: requests=[0-9]+ \\(get=[0-9]+( head=[0-9]+)?\\) "
                                      "read=[1-9][0-9]* written=0 retries=0"));
  // A failing statement: its error names the table, never the secret.
  EXPECT_FALSE(Run("INSERT INTO db.events VALUES ('not a number', NULL, NULL)").ok());
  EXPECT_FALSE(Run("SELECT * FROM db.missing").ok());
  EXPECT_THAT(seen_, Not(HasSubstr(moto_->secret_access_key)));
  EXPECT_THAT(io_->ToString(), Not(HasSubstr(moto_->secret_access_key)));
  (void)inserted;
}

// Objects changed behind floe's back are errors naming them, never short results; a failed
// INSERT leaves no object and no multipart upload.
TEST_P(S3SessionTest, DamagedObjectsAndFailedWritesOnS3) {
  ASSERT_OK(Run("CREATE SCHEMA db").status());
  ASSERT_OK(Run("CREATE TABLE db.t (id bigint, s text)").status());
  ASSERT_OK(Run("INSERT INTO db.t SELECT g, 'v' || g FROM generate_series(1, 100) s(g)").status());
  ASSERT_OK(
      Run("INSERT INTO db.t SELECT g, 'w' || g FROM generate_series(101, 200) s(g)").status());
  ASSERT_OK_AND_ASSIGN(auto files, Run("SELECT file_path FROM db.\"t$files\" ORDER BY file_path"));
  ASSERT_EQ(files.size(), 2u);
  // A client of its own, to change objects behind the session's back.
  ASSERT_OK_AND_ASSIGN(auto s3, io::S3FileIO::Make(*io_->s3_options()));
  const std::string prefix = Warehouse() + "/db/t/";
  auto objects = [&]() {
    auto listing = s3->client()->List(moto_->bucket, prefix + "data/");
    EXPECT_OK(listing);
    return listing.ok() ? listing->objects.size() : size_t{0};
  };
  ASSERT_EQ(objects(), 2u);

  // A failed INSERT (a cast that fails after rows were read) adds no object and leaves no
  // multipart upload.
  EXPECT_FALSE(Run("INSERT INTO db.t SELECT g, CAST(CAST(1000 / (g - 150) AS int) AS text) "
                   "FROM generate_series(1, 300) s(g)")
                   .ok());
  EXPECT_EQ(objects(), 2u);
  ASSERT_OK_AND_ASSIGN(auto uploads, s3->client()->ListMultipartUploads(moto_->bucket, prefix));
  EXPECT_TRUE(uploads.empty());

  // A truncated data file: an error naming it.
  ASSERT_OK_AND_ASSIGN(io::S3Location first, io::ParseS3Uri(files[0]));
  ASSERT_OK_AND_ASSIGN(std::string bytes, s3->client()->Get(first, 0, -1));
  ASSERT_OK(s3->client()->Put(first, std::string_view(bytes).substr(0, bytes.size() / 2)));
  Result<std::vector<std::string>> truncated = Run("SELECT sum(id) FROM db.t");
  EXPECT_FALSE(truncated.ok());
  EXPECT_THAT(truncated.status().message(), HasSubstr(first.key));
  // Deleted: an error naming it, never the other file's sum alone. (count(*) is answered
  // from the manifests, so the query reads the rows.)
  ASSERT_OK(s3->client()->Delete(first));
  Result<std::vector<std::string>> deleted = Run("SELECT sum(id) FROM db.t");
  EXPECT_FALSE(deleted.ok());
  EXPECT_THAT(deleted.status().message(), HasSubstr(first.key));
  EXPECT_THAT(seen_, Not(HasSubstr(moto_->secret_access_key)));
}

// DROP TABLE keeps a table's objects; DROP TABLE ... PURGE deletes every one of them (data
// files, manifests, manifest lists, metadata files), in DeleteObjects batches.
TEST_P(S3SessionTest, DropPurgeDeletesEveryObjectOfTheTable) {
  ASSERT_OK(Run("CREATE SCHEMA db").status());
  for (const char* table : {"kept", "purged"}) {
    ASSERT_OK(
        Run(fmt::format("CREATE TABLE db.{} (id bigint, k int) WITH (partitioning = 'k')", table))
            .status());
    for (int round = 0; round < 3; ++round) {
      ASSERT_OK(Run(fmt::format("INSERT INTO db.{} SELECT g, g % 7 FROM generate_series(1, 70) "
                                "s(g)",
                                table))
                    .status());
    }
  }
  ASSERT_OK_AND_ASSIGN(auto s3, io::S3FileIO::Make(*io_->s3_options()));
  auto objects = [&](const std::string& table) {
    auto listing = s3->client()->List(moto_->bucket, Warehouse() + "/db/" + table + "/");
    EXPECT_OK(listing);
    return listing.ok() ? listing->objects.size() : size_t{0};
  };
  // 21 data files, 3 manifests, 3 manifest lists, 4 metadata files each.
  ASSERT_EQ(objects("kept"), 31u);
  ASSERT_EQ(objects("purged"), 31u);
  ASSERT_OK(Run("DROP TABLE db.kept").status());
  ASSERT_OK(Run("DROP TABLE db.purged PURGE").status());
  EXPECT_EQ(objects("kept"), 31u);
  EXPECT_EQ(objects("purged"), 0u);
  EXPECT_THAT(seen_, Not(HasSubstr(moto_->secret_access_key)));
}

// A table's own S3 settings (Iceberg's s3.* names as table properties) go over the catalog's
// for its data and manifests, as pyiceberg merges them: a wrong secret key set on the table
// makes its reads fail with access denied, and resetting it reads again. Metadata and SHOW
// never show the secret.
TEST_P(S3SessionTest, TablePropertiesGoOverTheCatalogsS3Settings) {
  const std::string wrong = "table-level-wrong-secret-4f1d";
  ASSERT_OK(Run("CREATE SCHEMA db").status());
  ASSERT_OK(Run("CREATE TABLE db.t (id bigint)").status());
  ASSERT_OK(Run("INSERT INTO db.t SELECT g FROM generate_series(1, 10) s(g)").status());
  ASSERT_OK(Run("ALTER TABLE db.t SET (\"s3.secret-access-key\" = '" + wrong + "')").status());
  Result<std::vector<std::string>> denied = Run("SELECT sum(id) FROM db.t");
  EXPECT_THAT(denied, floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "access denied"));
  ASSERT_OK_AND_ASSIGN(auto shown, Run("SHOW CREATE TABLE db.t"));
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_THAT(shown[0], HasSubstr("\"s3.secret-access-key\" = '***'"));
  ASSERT_OK_AND_ASSIGN(auto properties,
                       Run("SELECT value FROM db.\"t$properties\" WHERE key LIKE 's3.%'"));
  EXPECT_THAT(properties, ElementsAre("***"));
  ASSERT_OK(Run("ALTER TABLE db.t RESET (\"s3.secret-access-key\")").status());
  ASSERT_OK_AND_ASSIGN(auto sum, Run("SELECT sum(id) FROM db.t"));
  EXPECT_THAT(sum, ElementsAre("55"));
  EXPECT_THAT(seen_, Not(HasSubstr(wrong)));
  EXPECT_THAT(seen_, Not(HasSubstr(moto_->secret_access_key)));
}

using ::floe::testing::ScopedEnvironment;

// The AWS settings a session without a configured catalog reads, pointed at moto (or, with
// a null key, at nothing): every variable S3FileIOOptionsFrom looks at is set or cleared,
// and HOME is a directory without ~/.aws.
ScopedEnvironment AwsEnvironment(const std::string& home, const floe::testing::MotoS3* moto,
                                 const char* access_key_id, const char* secret) {
  return ScopedEnvironment({{"HOME", home.c_str()},
                            {"AWS_ACCESS_KEY_ID", access_key_id},
                            {"AWS_SECRET_ACCESS_KEY", secret},
                            {"AWS_SESSION_TOKEN", nullptr},
                            {"AWS_PROFILE", nullptr},
                            {"AWS_SHARED_CREDENTIALS_FILE", nullptr},
                            {"AWS_CONFIG_FILE", nullptr},
                            {"AWS_REGION", moto ? moto->region.c_str() : nullptr},
                            {"AWS_DEFAULT_REGION", nullptr},
                            {"AWS_ENDPOINT_URL_S3", moto ? moto->endpoint.c_str() : nullptr},
                            {"AWS_ENDPOINT_URL", nullptr}});
}

// read_parquet over objects on S3: single objects, globs (`*`, `?`, `[...]`, one level per
// `*`, names beginning with '.' left out as glob(3) does), s3a:// spellings, local and S3
// files in one call, and the errors of a pattern that matches nothing and a missing object.
// The S3 settings are the session's catalog's; through the codec the scan carries them.
TEST_P(S3SessionTest, ReadParquetOfObjectsOnS3) {
  ASSERT_OK(Run("CREATE SCHEMA db").status());
  ASSERT_OK(Run("CREATE TABLE db.src (id bigint, s text)").status());
  // One data file per INSERT: 1..100, 101..300, 301..600.
  ASSERT_OK(Run("SET target_partitions = 1").status());
  ASSERT_OK(
      Run("INSERT INTO db.src SELECT g, 'r' || g FROM generate_series(1, 100) s(g)").status());
  ASSERT_OK(
      Run("INSERT INTO db.src SELECT g, 'r' || g FROM generate_series(101, 300) s(g)").status());
  ASSERT_OK(
      Run("INSERT INTO db.src SELECT g, 'r' || g FROM generate_series(301, 600) s(g)").status());
  ASSERT_OK(Run("RESET target_partitions").status());
  ASSERT_OK_AND_ASSIGN(auto files,
                       Run("SELECT file_path FROM db.\"src$files\" ORDER BY record_count"));
  ASSERT_EQ(files.size(), 3u);

  // The table's own data files, as read_parquet of the table's data directory.
  const std::string table_data = "s3://" + moto_->bucket + "/" + Warehouse() + "/db/src/data/";
  ASSERT_OK_AND_ASSIGN(
      auto all, Run("SELECT count(*), sum(id), min(s), max(s) FROM read_parquet('" + table_data +
                    "*.parquet')"));
  EXPECT_THAT(all, ElementsAre("600|180300|r1|r99"));
  ASSERT_OK_AND_ASSIGN(auto one, Run("SELECT count(*), sum(id) FROM read_parquet('" + files[0] +
                                     "') WHERE id > 50"));
  EXPECT_THAT(one, ElementsAre("50|3775"));

  // Objects under names of our choosing, copied with a client of its own.
  ASSERT_OK_AND_ASSIGN(auto s3, io::S3FileIO::Make(*io_->s3_options()));
  std::vector<std::string> bytes;
  for (const std::string& f : files) {
    ASSERT_OK_AND_ASSIGN(io::S3Location at, io::ParseS3Uri(f));
    ASSERT_OK_AND_ASSIGN(std::string b, s3->client()->Get(at, 0, -1));
    bytes.push_back(std::move(b));
  }
  const std::string key = Warehouse() + "/pq/";
  auto put = [&](const std::string& name, const std::string& content) {
    ASSERT_OK(s3->client()->Put(io::S3Location{moto_->bucket, key + name}, content));
  };
  put("a1.parquet", bytes[0]);       // 1..100
  put("a2.parquet", bytes[1]);       // 101..300
  put("b.parquet", bytes[2]);        // 301..600
  put("sub/c.parquet", bytes[0]);    // 1..100, one level down
  put(".hidden.parquet", bytes[1]);  // never matched by a leading wildcard
  put("notes.txt", "not parquet");
  const std::string pq = "s3://" + moto_->bucket + "/" + key;
  const std::string pq_a = "s3a://" + moto_->bucket + "/" + key;
  auto count_sum = [&](const std::string& from) {
    return Run("SELECT count(*), sum(id) FROM " + from);
  };
  EXPECT_THAT(count_sum("read_parquet('" + pq + "a1.parquet')"),
              IsOkAndHolds(ElementsAre("100|5050")));
  EXPECT_THAT(count_sum("read_parquet('" + pq + "*.parquet')"),
              IsOkAndHolds(ElementsAre("600|180300")));
  EXPECT_THAT(count_sum("read_parquet('" + pq_a + "a?.parquet')"),
              IsOkAndHolds(ElementsAre("300|45150")));
  EXPECT_THAT(count_sum("read_parquet('" + pq + "[b-z]*.parquet')"),
              IsOkAndHolds(ElementsAre("300|135150")));
  EXPECT_THAT(count_sum("read_parquet('" + pq + "*/*.parquet')"),
              IsOkAndHolds(ElementsAre("100|5050")));
  EXPECT_THAT(count_sum("read_parquet('" + pq + ".h*.parquet')"),
              IsOkAndHolds(ElementsAre("200|40100")));
  // The same file twice (a pattern and its name) is read once.
  EXPECT_THAT(count_sum("read_parquet('" + pq + "a*.parquet', '" + pq + "a1.parquet')"),
              IsOkAndHolds(ElementsAre("300|45150")));
  // Local and S3 files in one call.
  const std::string local = dir_ + "/local.parquet";
  {
    std::ofstream out(local, std::ios::binary);
    out << bytes[2];
  }
  EXPECT_THAT(count_sum("read_parquet('" + local + "', '" + pq_a + "a1.parquet', '" + dir_ +
                        "/*.parquet')"),
              IsOkAndHolds(ElementsAre("400|140200")));
  ASSERT_OK_AND_ASSIGN(auto explain,
                       Run("EXPLAIN SELECT id FROM read_parquet('" + pq + "a1.parquet')"));
  EXPECT_THAT(::testing::PrintToString(explain), HasSubstr("read_parquet('" + pq + "a1.parquet')"));

  // A pattern that matches nothing, and a missing object: errors naming them.
  Result<std::vector<std::string>> none = count_sum("read_parquet('" + pq + "*.csv')");
  EXPECT_THAT(none, floe::testing::IsError(StatusCode::kNotFound));
  // (The binder adds where in the statement the relation is.)
  EXPECT_EQ(none.status().message(), "no files match \"" + pq + "*.csv\" (line 1, column 31)");
  Result<std::vector<std::string>> missing =
      count_sum("read_parquet('" + pq + "a1.parquet', '" + pq + "missing.parquet')");
  EXPECT_THAT(missing, floe::testing::IsError(StatusCode::kNotFound));
  EXPECT_EQ(missing.status().message(), pq + "missing.parquet does not exist (line 1, column 31)");
  // A bucket that does not exist.
  Result<std::vector<std::string>> bucket =
      count_sum("read_parquet('s3://no-such-bucket-floe/x/*.parquet')");
  EXPECT_THAT(bucket,
              floe::testing::IsErrorWith(StatusCode::kNotFound, "the bucket does not exist"));
  // An object that is not Parquet.
  EXPECT_THAT(count_sum("read_parquet('" + pq + "notes.txt')"),
              floe::testing::IsErrorWith(StatusCode::kCorrupt, pq + "notes.txt"));
  EXPECT_THAT(seen_, Not(HasSubstr(moto_->secret_access_key)));
}

// A session without a configured catalog takes its S3 settings from the AWS environment:
// with them read_parquet reads, with a wrong secret it is access denied (and the secret is
// printed nowhere), and without any it says what to set.
TEST_P(S3SessionTest, ReadParquetWithTheAwsEnvironment) {
  ASSERT_OK(Run("CREATE SCHEMA db").status());
  ASSERT_OK(Run("CREATE TABLE db.src (id bigint)").status());
  ASSERT_OK(Run("INSERT INTO db.src SELECT g FROM generate_series(1, 1000) s(g)").status());
  const std::string pattern =
      "s3://" + moto_->bucket + "/" + Warehouse() + "/db/src/data/*.parquet";
  const std::string query = "SELECT count(*), sum(id) FROM read_parquet('" + pattern + "')";
  auto session_without_catalog = [&]() -> std::unique_ptr<Session> {
    SessionOptions options;
    options.warehouse = dir_ + "/embedded";
    options.threads = 2;
    auto made = Session::Make(options);
    EXPECT_OK(made);
    if (!made.ok()) return nullptr;
    if (GetParam()) {
      EXPECT_OK((*made)->mutable_config().Set("codec_roundtrip", "on"));
    }
    return std::move(*made);
  };
  const std::string home = dir_ + "/home";
  std::filesystem::create_directories(home);
  {
    ScopedEnvironment env =
        AwsEnvironment(home, moto_, moto_->access_key_id.c_str(), moto_->secret_access_key.c_str());
    std::unique_ptr<Session> session = session_without_catalog();
    ASSERT_NE(session, nullptr);
    EXPECT_THAT(RunIn(*session, query), IsOkAndHolds(ElementsAre("1000|500500")));
  }
  const std::string wrong = "wrongSecretKeyThatMotoRefuses0123456789";
  {
    ScopedEnvironment env =
        AwsEnvironment(home, moto_, moto_->access_key_id.c_str(), wrong.c_str());
    std::unique_ptr<Session> session = session_without_catalog();
    ASSERT_NE(session, nullptr);
    Result<std::vector<std::string>> denied = RunIn(*session, query);
    EXPECT_THAT(denied, floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "access denied"));
    const std::string object =
        "s3://" + moto_->bucket + "/" + Warehouse() + "/db/src/data/x.parquet";
    Result<std::vector<std::string>> denied_object =
        RunIn(*session, "SELECT count(*) FROM read_parquet('" + object + "')");
    EXPECT_THAT(denied_object,
                floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "access denied"));
    EXPECT_THAT(denied_object.status().message(), HasSubstr(object));
    EXPECT_THAT(seen_, Not(HasSubstr(wrong)));
  }
  {
    ScopedEnvironment env = AwsEnvironment(home, nullptr, nullptr, nullptr);
    std::unique_ptr<Session> session = session_without_catalog();
    ASSERT_NE(session, nullptr);
    Result<std::vector<std::string>> refused = RunIn(*session, query);
    EXPECT_THAT(refused, floe::testing::IsError(StatusCode::kInvalidArgument));
    EXPECT_EQ(refused.status().message(),
              pattern +
                  " is on S3, but no S3 credentials are configured (s3.access-key-id and "
                  "s3.secret-access-key on the catalog, AWS_ACCESS_KEY_ID and "
                  "AWS_SECRET_ACCESS_KEY, or ~/.aws/credentials); if the files are on this "
                  "machine, map them to a local directory, e.g. --path-map 's3://" +
                  moto_->bucket + "/=/local/dir/' (line 1, column 31)");
    // Local files never need S3 settings.
    EXPECT_THAT(RunIn(*session, "SELECT count(*) FROM read_parquet('" + dir_ + "/none*.parquet')"),
                floe::testing::IsErrorWith(StatusCode::kNotFound, "no files match"));
  }
  EXPECT_THAT(seen_, Not(HasSubstr(moto_->secret_access_key)));
}

INSTANTIATE_TEST_SUITE_P(InProcessAndThroughTheCodec, S3SessionTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "codec" : "direct"; });

// The same table on S3 through floe's REST catalog server, whose catalog holds the S3 keys,
// and a session that has none: it reads and writes with the credentials the server vends
// (STS AssumeRole on moto). Nothing it prints holds the server's S3 secret, the vended
// secret or session token, or the OAuth2 client secret: not the rows, not SHOW CREATE
// TABLE, not the $properties table, not EXPLAIN ANALYZE, not an error.
class RestVendedSessionTest : public S3SessionTest {
 protected:
  static constexpr const char* kClientSecret = "oauth-client-secret-7777";

  void SetUp() override {
    S3SessionTest::SetUp();
    ASSERT_OK_AND_ASSIGN(catalog::SqlBackendPtr backend,
                         catalog::OpenSqliteBackend(dir_ + "/served.db"));
    catalog::SqlCatalogOptions options;
    options.warehouse = "s3://" + moto_->bucket + "/" + Warehouse();
    ASSERT_OK_AND_ASSIGN(auto served, catalog::SqlCatalog::Make(backend, io_, options));
    catalog::StsVendorOptions vend;
    vend.s3 = io_->s3_options()->client;
    vend.role_arn = moto_->role_arn;
    vend.duration = std::chrono::seconds(900);
    catalog::RestServerOptions server_options;
    server_options.clients = {{"app", kClientSecret}};
    ASSERT_OK_AND_ASSIGN(server_options.vendor, catalog::MakeStsCredentialVendor(vend));
    ASSERT_OK_AND_ASSIGN(server_, catalog::RestCatalogServer::Start(served, server_options, {}));
    catalog::RestCatalogOptions client;
    client.name = "lake";
    client.uri = server_->uri();
    client.properties = {{"credential", std::string("app:") + kClientSecret}};
    ASSERT_OK_AND_ASSIGN(rest_, catalog::RestCatalog::Make(client));
    SessionOptions session_options;
    session_options.catalog = rest_;
    session_options.warehouse = dir_;
    session_options.threads = 2;
    session_.reset();
    ASSERT_OK_AND_ASSIGN(session_, Session::Make(session_options));
    if (GetParam()) {
      ASSERT_OK(session_->mutable_config().Set("codec_roundtrip", "on"));
    }
  }

  void TearDown() override {
    session_.reset();  // the client before the server
    rest_.reset();
    server_.reset();
    S3SessionTest::TearDown();  // and the scratch directory
  }

  // The credentials the server vends for a table now (reused for half their life, so the
  // session was given these).
  std::map<std::string, std::string> Vended(const std::string& table) {
    io::HttpClient http{io::HttpOptions{}};
    io::HttpRequest token;
    token.method = "POST";
    token.url = server_->uri() + "/v1/oauth/tokens";
    const std::string form =
        std::string("grant_type=client_credentials&client_id=app&client_secret=") + kClientSecret;
    token.body = form;
    token.headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
    auto granted = http.Send(token);
    EXPECT_TRUE(granted.ok());
    io::HttpRequest load;
    load.url = server_->uri() + "/v1/namespaces/db/tables/" + table;
    load.headers = {
        {"X-Iceberg-Access-Delegation", "vended-credentials"},
        {"Authorization",
         "Bearer " + nlohmann::json::parse(granted->body)["access_token"].get<std::string>()}};
    auto loaded = http.Send(load);
    EXPECT_TRUE(loaded.ok());
    return nlohmann::json::parse(loaded->body)["config"].get<std::map<std::string, std::string>>();
  }

  std::unique_ptr<catalog::RestCatalogServer> server_;
  std::shared_ptr<catalog::RestCatalog> rest_;
};

TEST_P(RestVendedSessionTest, ATableOnS3ThroughVendedCredentialsPrintsNoSecret) {
  ASSERT_OK(Run("CREATE SCHEMA db").status());
  ASSERT_OK(Run("CREATE TABLE db.events (id bigint, day date, s text) "
                "WITH (partitioning = 'day(day)')")
                .status());
  ASSERT_OK(Run("INSERT INTO db.events SELECT g, DATE '2024-01-01' + CAST(g % 3 AS int), "
                "'row ' || g FROM generate_series(1, 3000) s(g)")
                .status());
  EXPECT_THAT(Run("SELECT day, count(*), sum(id) FROM db.events GROUP BY day ORDER BY day"),
              IsOkAndHolds(ElementsAre("2024-01-01|1000|1501500", "2024-01-02|1000|1499500",
                                       "2024-01-03|1000|1500500")));
  ASSERT_OK_AND_ASSIGN(auto files, Run("SELECT file_path FROM db.\"events$files\""));
  EXPECT_EQ(files.size(), 3u);
  ASSERT_OK(Run("SHOW CREATE TABLE db.events").status());
  ASSERT_OK(Run("SELECT * FROM db.\"events$properties\"").status());
  ASSERT_OK(Run("EXPLAIN ANALYZE SELECT sum(id) FROM db.events").status());
  ASSERT_OK(Run("SHOW ALL").status());
  EXPECT_FALSE(Run("INSERT INTO db.events VALUES ('not a number', NULL, NULL)").ok());
  EXPECT_FALSE(Run("SELECT * FROM db.missing").ok());
  std::map<std::string, std::string> vended = Vended("events");
  ASSERT_THAT(vended["s3.access-key-id"], ::testing::StartsWith("ASIA"));
  for (const std::string& secret : {moto_->secret_access_key, vended["s3.secret-access-key"],
                                    vended["s3.session-token"], std::string(kClientSecret)}) {
    ASSERT_FALSE(secret.empty());
    EXPECT_THAT(seen_, Not(HasSubstr(secret)));
    EXPECT_THAT(rest_->ToString(), Not(HasSubstr(secret)));
  }
  ASSERT_OK(Run("DROP TABLE db.events PURGE").status());
}

INSTANTIATE_TEST_SUITE_P(InProcessAndThroughTheCodec, RestVendedSessionTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "codec" : "direct"; });

}  // namespace
}  // namespace floe::session
