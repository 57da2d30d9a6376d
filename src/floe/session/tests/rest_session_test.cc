// A whole SQL session on a REST catalog (Apache Iceberg's REST catalog test server, started
// once by the test executable): schema and table DDL, partitioned INSERTs committed through
// the REST commit endpoint, SELECTs with exact results, schema evolution, metadata tables,
// and DROP ... PURGE, in one process and with every stage sent through the plan codec.

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/catalog/catalog.h"
#include "floe/session/session.h"
#include "floe/session/tests/query_rows.h"
#include "floe/testing/matchers.h"
#include "floe/testing/rest_catalog_server.h"
#include "floe/testing/scratch_dir.h"

namespace floe::session {
namespace {

using ::testing::ElementsAre;

class RestSessionTest : public floe::testing::ScratchDirTest,
                        public ::testing::WithParamInterface<bool> {
 protected:
  RestSessionTest() : ScratchDirTest("floe_session_rest") {}

  void SetUp() override {
    ScratchDirTest::SetUp();
    ASSERT_OK_AND_ASSIGN(floe::testing::RestCatalogServer * server,
                         floe::testing::SharedRestCatalogServer());
    ASSERT_OK_AND_ASSIGN(catalog::CatalogPtr catalog, catalog::OpenCatalog(server->uri()));
    SessionOptions options;
    options.catalog = std::move(catalog);
    options.warehouse = dir_;
    options.threads = 2;
    ASSERT_OK_AND_ASSIGN(session_, Session::Make(options));
    if (GetParam()) {
      ASSERT_OK(session_->mutable_config().Set("codec_roundtrip", "on"));
    }
  }

  // A schema of the test's own on the shared server.
  std::string Schema() const { return GetParam() ? "db_codec" : "db_direct"; }

  Result<std::vector<std::string>> Run(const std::string& sql) {
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<QueryResult> result,
                         session_->Execute(fmt::format(fmt::runtime(sql), Schema())));
    return Rows(*result);
  }

  std::unique_ptr<Session> session_;
};

TEST_P(RestSessionTest, ATableThroughTheRestCatalogFromCreateToDrop) {
  ASSERT_OK(Run("CREATE SCHEMA {}").status());
  ASSERT_OK(Run("CREATE TABLE {}.t (id bigint, day date, s text) "
                "WITH (partitioning = 'day(day)')")
                .status());
  ASSERT_OK(Run("INSERT INTO {}.t SELECT g, DATE '2024-01-01' + CAST(g % 3 AS int), 'r' || g "
                "FROM generate_series(1, 1000) s(g)")
                .status());
  EXPECT_THAT(Run("SELECT day, count(*), sum(id) FROM {}.t GROUP BY day ORDER BY day"),
              floe::testing::IsOkAndHolds(ElementsAre(
                  "2024-01-01|333|166833", "2024-01-02|334|167167", "2024-01-03|333|166500")));
  EXPECT_THAT(Run("SELECT count(*) FROM {}.\"t$snapshots\""),
              floe::testing::IsOkAndHolds(ElementsAre("1")));
  EXPECT_THAT(Run("SELECT count(*) FROM {}.\"t$files\""),
              floe::testing::IsOkAndHolds(ElementsAre("3")));
  // Schema evolution and a second commit on top of the first.
  ASSERT_OK(Run("ALTER TABLE {}.t ADD COLUMN x int").status());
  ASSERT_OK(Run("INSERT INTO {}.t VALUES (5000, DATE '2024-02-01', 'late', 7)").status());
  EXPECT_THAT(Run("SELECT count(*), sum(x), max(s) FILTER (WHERE x IS NOT NULL) FROM {}.t"),
              floe::testing::IsOkAndHolds(ElementsAre("1001|7|late")));
  EXPECT_THAT(Run("SELECT count(*) FROM {}.\"t$snapshots\""),
              floe::testing::IsOkAndHolds(ElementsAre("2")));
  EXPECT_THAT(Run("SHOW TABLES FROM {}"),
              floe::testing::IsOkAndHolds(ElementsAre(Schema() + "|t")));
  ASSERT_OK(Run("DROP TABLE {}.t PURGE").status());
  EXPECT_THAT(Run("SELECT * FROM {}.t"),
              floe::testing::IsErrorWith(StatusCode::kNotFound, "does not exist"));
  ASSERT_OK(Run("DROP SCHEMA {}").status());
}

INSTANTIATE_TEST_SUITE_P(InProcessAndThroughTheCodec, RestSessionTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "codec" : "direct"; });

}  // namespace
}  // namespace floe::session
