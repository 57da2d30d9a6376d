// A whole session on S3 (moto, authenticating): a SQL catalog whose warehouse is an S3
// location and whose FileIO resolves s3:// paths with known credentials. DDL, a partitioned
// INSERT, SELECT, time travel, EXPLAIN ANALYZE and a failing statement, in one process and
// with every stage sent through the plan codec; every file of the table is on S3, and no
// output ever holds the secret key.

#include <filesystem>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/catalog/sqlite_backend.h"
#include "floe/iceberg/table.h"
#include "floe/io/resolving_file_io.h"
#include "floe/session/session.h"
#include "floe/session/tests/query_rows.h"
#include "floe/testing/matchers.h"
#include "floe/testing/moto_s3.h"
#include "floe/testing/scratch_dir.h"

namespace floe::session {
namespace {

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
  Result<std::vector<std::string>> Run(const std::string& sql) {
    Result<std::unique_ptr<QueryResult>> result = session_->Execute(sql);
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

INSTANTIATE_TEST_SUITE_P(InProcessAndThroughTheCodec, S3SessionTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "codec" : "direct"; });

}  // namespace
}  // namespace floe::session
