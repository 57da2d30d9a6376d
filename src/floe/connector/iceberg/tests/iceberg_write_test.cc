// The Iceberg write pipeline where SQL logic tests cannot look: the command tags of INSERT
// and CREATE TABLE AS, the data files on disk (a failed statement leaves none behind),
// partition transforms as expressions, the write journal, tables changed by another
// process between statements of a running session, concurrent INSERTs from two sessions,
// and a session of one thread. The rows and errors of these statements are checked by
// test/sql/iceberg/insert_*.test.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/connector/iceberg/iceberg_write.h"
#include "floe/io/file_io.h"
#include "floe/session/session.h"
#include "floe/session/tests/query_rows.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scratch_dir.h"

namespace floe::connector {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

class IcebergWriteTest : public floe::testing::ScratchDirTest {
 protected:
  IcebergWriteTest() : ScratchDirTest("floe_exec_iceberg_write") {}

  void SetUp() override {
    ScratchDirTest::SetUp();
    session_ = MakeSession(4);
  }

  std::unique_ptr<session::Session> MakeSession(int threads) {
    session::SessionOptions options;
    options.warehouse = dir_ + "/warehouse";
    options.threads = threads;
    return session::Session::Make(options).ValueOrDie();
  }

  static Result<std::vector<std::string>> Query(session::Session& session, const std::string& sql) {
    FLOE_ASSIGN_OR_RAISE(auto result, session.Execute(sql));
    FLOE_ASSIGN_OR_RAISE(std::vector<std::string> rows, Rows(*result));
    if (rows.empty()) rows.push_back(result->command_tag());
    return rows;
  }

  std::vector<std::string> Q(const std::string& sql) { return Q(*session_, sql); }
  static std::vector<std::string> Q(session::Session& session, const std::string& sql) {
    auto rows = Query(session, sql);
    EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }

  // Parquet data files under the warehouse.
  int DataFiles() const {
    int n = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
      if (entry.path().extension() == ".parquet") ++n;
    }
    return n;
  }

  std::unique_ptr<session::Session> session_;
};

TEST_F(IcebergWriteTest, InsertReportsItsRowsAndWritesOneFilePerBucket) {
  Q("CREATE TABLE t (id bigint, name text) WITH (partitioning = 'bucket(3, id)')");
  EXPECT_EQ(Q("INSERT INTO t SELECT g, 'n' || CAST(g AS text) FROM generate_series(1, 100) AS "
              "s(g)"),
            std::vector<std::string>{"INSERT 0 100"});
  // Three buckets: the rows of one bucket meet in one writer, one file each.
  EXPECT_EQ(DataFiles(), 3);
  EXPECT_EQ(Q("INSERT INTO t SELECT id, name FROM t WHERE id > 1000"),
            std::vector<std::string>{"INSERT 0 0"});
  EXPECT_EQ(DataFiles(), 3);
}

TEST_F(IcebergWriteTest, FailedInsertLeavesNoFile) {
  Q("CREATE TABLE r (id int NOT NULL, day date) WITH (partitioning = 'day')");
  Q("INSERT INTO r VALUES (1, DATE '2024-01-01')");
  ASSERT_EQ(DataFiles(), 1);
  // The NULL is in one writer; the others finish their files first or are cancelled.
  auto failed = Query(*session_,
                      "INSERT INTO r SELECT CASE WHEN g = 7777 THEN NULL ELSE g END, DATE "
                      "'2024-01-01' + CAST(g % 20 AS int) FROM generate_series(1, 20000) AS s(g)");
  EXPECT_THAT(failed, IsError(StatusCode::kConstraint));
  EXPECT_EQ(DataFiles(), 1);
}

TEST_F(IcebergWriteTest, CreateTableAsReportsItsRowsAndFailsWithoutFiles) {
  EXPECT_EQ(Q("CREATE TABLE c WITH (partitioning = 'k') AS SELECT g AS id, g % 3 AS k, "
              "CAST(g AS smallint) AS small FROM generate_series(1, 10) AS s(g)"),
            std::vector<std::string>{"SELECT 10"});
  EXPECT_EQ(DataFiles(), 3);
  // A failing query leaves no file.
  auto failed = Query(*session_,
                      "CREATE TABLE bad AS SELECT 1 / (g - 5) AS x FROM "
                      "generate_series(1, 10) AS s(g)");
  EXPECT_THAT(failed, IsError(StatusCode::kInvalidArgument));
  EXPECT_EQ(DataFiles(), 3);
  EXPECT_EQ(Q("CREATE TABLE IF NOT EXISTS c AS SELECT 1 AS id"),
            std::vector<std::string>{"CREATE TABLE AS"});
  EXPECT_EQ(DataFiles(), 3);
}

// A table created, changed and written by another process is seen by a running session's
// next statement, and the running session's writes go to the current schema.
TEST_F(IcebergWriteTest, ChangesOfAnotherProcessAreSeenByTheNextStatement) {
  Q("CREATE TABLE seen (id int)");
  Q("INSERT INTO seen VALUES (1)");
  EXPECT_EQ(Q("SELECT * FROM seen"), std::vector<std::string>{"1"});
  auto other = [&](const std::string& sql) {
    const std::string command = std::string(FLOE_CLI_BINARY) + " sql --warehouse '" + dir_ +
                                "/warehouse' -c \"" + sql + "\" > /dev/null";
    return std::system(command.c_str());
  };
  ASSERT_EQ(other("CREATE TABLE other (id int, name text)"), 0);
  ASSERT_EQ(other("INSERT INTO other VALUES (5, 'five')"), 0);
  EXPECT_EQ(Q("SELECT * FROM other"), std::vector<std::string>{"5|five"});
  ASSERT_EQ(other("ALTER TABLE seen ADD COLUMN extra text"), 0);
  EXPECT_EQ(Q("SELECT * FROM seen"), std::vector<std::string>{"1|NULL"});
  Q("INSERT INTO seen VALUES (2, 'two')");
  Q("INSERT INTO seen (id) VALUES (3)");
  ASSERT_EQ(other("INSERT INTO seen VALUES (4, 'four')"), 0);
  EXPECT_EQ(Q("SELECT * FROM seen ORDER BY id"),
            (std::vector<std::string>{"1|NULL", "2|two", "3|NULL", "4|four"}));
}

// Concurrent INSERTs from two sessions (each its own catalog connection) both commit:
// the loser of the catalog swap refreshes and retries, and no row is lost.
TEST_F(IcebergWriteTest, ConcurrentInsertsBothCommit) {
  // Eight writers racing for one table: more retries than the default four, so that a
  // writer that keeps losing on a loaded machine still gets in.
  Q("CREATE TABLE c (id int, k text) WITH (partitioning = 'k', \"commit.retry.num-retries\" = "
    "'30', \"commit.retry.min-wait-ms\" = '20', \"commit.retry.max-wait-ms\" = '500')");
  auto other = MakeSession(2);
  std::vector<std::thread> threads;
  std::vector<Result<std::vector<std::string>>> results(8, std::vector<std::string>{});
  for (int i = 0; i < 8; ++i) {
    session::Session* session = i % 2 == 0 ? session_.get() : other.get();
    threads.emplace_back([&, i, session] {
      results[i] = Query(*session,
                         "INSERT INTO c SELECT g, 'k' || CAST(g % 3 AS text) FROM "
                         "generate_series(" +
                             std::to_string(i * 100 + 1) + ", " + std::to_string(i * 100 + 100) +
                             ") AS s(g)");
    });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& result : results) {
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(*result, std::vector<std::string>{"INSERT 0 100"});
  }
  EXPECT_EQ(Q("SELECT count(*), count(DISTINCT id), sum(id) FROM c"),
            std::vector<std::string>{"800|800|320400"});
  EXPECT_EQ(Q("SELECT count(*) FROM \"c$snapshots\""), std::vector<std::string>{"8"});
}

TEST_F(IcebergWriteTest, WritesRunOnAPoolOfOneThread) {
  auto single = MakeSession(1);
  Q(*single, "CREATE TABLE one (id int, k text) WITH (partitioning = 'k')");
  EXPECT_EQ(Q(*single,
              "INSERT INTO one SELECT g, CAST(g % 5 AS text) FROM generate_series(1, "
              "1000) AS s(g)"),
            std::vector<std::string>{"INSERT 0 1000"});
  EXPECT_EQ(Q(*single, "SELECT count(*) FROM one"), std::vector<std::string>{"1000"});
}

TEST(IcebergTransformExprTest, ComputesTheSpecTransforms) {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"id", Int64()}, {"name", String()}, {"d", Date()}});
  NumericBuilder<int64_t> ids(Int64());
  ASSERT_OK(ids.Append(34));
  ASSERT_OK(ids.AppendNull());
  auto names = MakeBuilder(String());
  ASSERT_OK(names->AppendScalar(Scalar::Str("iceberg")));
  ASSERT_OK(names->AppendScalar(Scalar::Str("ab")));
  NumericBuilder<int32_t> days(Date());
  ASSERT_OK(days.Append(19723));  // 2024-01-01
  ASSERT_OK(days.Append(0));
  auto batch = RecordBatch::Make(schema, 2,
                                 {ids.Finish().ValueOrDie(), names->Finish().ValueOrDie(),
                                  days.Finish().ValueOrDie()})
                   .ValueOrDie();
  expr::EvalContext ctx;
  auto eval = [&](iceberg::Transform t, int column) {
    auto e = connector::IcebergTransformExpr::Make(t, column, schema).ValueOrDie();
    auto array = expr::EvaluateToArray(*e, *batch, ctx).ValueOrDie();
    return FormatValue(*array, 0) + "," + FormatValue(*array, 1);
  };
  // The spec's reference values: bucket of the long 34 is murmur3 2017239379.
  EXPECT_EQ(eval(iceberg::Transform::Bucket(1000), 0), std::to_string(2017239379 % 1000) + ",NULL");
  EXPECT_EQ(eval(iceberg::Transform::Truncate(3), 1), "ice,ab");
  EXPECT_EQ(eval(iceberg::Transform::Month(), 2), "648,0");
  EXPECT_EQ(eval(iceberg::Transform::Year(), 2), "54,0");
  auto e =
      connector::IcebergTransformExpr::Make(iceberg::Transform::Bucket(16), 0, schema).ValueOrDie();
  EXPECT_EQ(e->ToString(), "bucket(16, id)");
  EXPECT_THAT(connector::IcebergTransformExpr::Make(iceberg::Transform::Day(), 1, schema).status(),
              IsErrorWith(StatusCode::kInvalidArgument, "cannot apply to column \"name\""));
}

TEST(WriteJournalTest, DeletesOnlyWhatWasNotCommitted) {
  const std::string dir = ::testing::TempDir() + "/floe_write_journal_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  io::LocalFileIO io;
  auto touch = [&](const std::string& name) {
    auto out = io.NewOutputFile(dir + "/" + name).ValueOrDie();
    EXPECT_OK(out->Write("x", 1));
    EXPECT_OK(out->Close());
    return dir + "/" + name;
  };
  connector::WriteJournal journal;
  journal.Record({touch("a"), touch("b")});
  EXPECT_OK(journal.DeleteUncommitted(io));
  EXPECT_FALSE(std::filesystem::exists(dir + "/a"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/b"));
  connector::WriteJournal committed;
  committed.Record({touch("c")});
  committed.MarkCommitted();
  EXPECT_OK(committed.DeleteUncommitted(io));
  EXPECT_TRUE(std::filesystem::exists(dir + "/c"));
  // A commit whose outcome is unknown may have made the files part of the table.
  connector::WriteJournal unknown;
  unknown.Record({touch("d")});
  unknown.MarkCommitStateUnknown();
  EXPECT_OK(unknown.DeleteUncommitted(io));
  EXPECT_TRUE(std::filesystem::exists(dir + "/d"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace floe::connector
