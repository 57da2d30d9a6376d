// SQL end to end through Session: parse, bind, optimize, physical plan, enforcement,
// stages, scheduler, and the results the client sees.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/exec/exchange_service.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/file.h"
#include "floe/scheduler/local_exchange.h"
#include "floe/scheduler/scheduler.h"
#include "floe/session/session.h"
#include "floe/session/tests/query_rows.h"
#include "floe/testing/matchers.h"

namespace floe::session {
namespace {

using exec::ExecutionPlan;
using exec::MemoryManager;
using exec::OperatorMetrics;
using exec::QueryMetrics;
using exec::SessionConfig;
using exec::TaskContextPtr;

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::floe::testing::IsOkAndHolds;

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe-session-test-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    session::SessionOptions options;
    options.threads = 3;
    // Beside the spill directory, whose entries the tests count.
    warehouse_ = dir_.string() + "-warehouse";
    std::filesystem::remove_all(warehouse_);
    options.warehouse = warehouse_.string();
    session_ = session::Session::Make(options).ValueOrDie();
    ASSERT_OK(session_->mutable_config().Set("spill_directory", dir_.string()));
  }
  void TearDown() override {
    session_.reset();
    std::filesystem::remove_all(dir_);
    std::filesystem::remove_all(warehouse_);
  }

  Result<std::vector<std::string>> Query(const std::string& sql) {
    FLOE_ASSIGN_OR_RAISE(auto result, session_->Execute(sql));
    return Rows(*result);
  }

  std::vector<std::string> Q(const std::string& sql) {
    auto rows = Query(sql);
    EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }

  // Writes a Parquet file of (id int64, name string, score float64) with `n` rows.
  std::string WriteParquet(const std::string& name, int n) {
    auto schema = std::make_shared<const Schema>(
        std::vector<Field>{{"id", Int64(), false}, {"name", String()}, {"score", Float64()}});
    std::string path = (dir_ / name).string();
    auto out = io::CreateLocalFile(path).ValueOrDie();
    auto writer = parquet::ParquetFileWriter::Open(std::move(out), schema).ValueOrDie();
    NumericBuilder<int64_t> ids(Int64());
    auto names = MakeBuilder(String());
    NumericBuilder<double> scores(Float64());
    for (int i = 1; i <= n; ++i) {
      EXPECT_OK(ids.Append(i));
      if (i % 10 == 0) {
        EXPECT_OK(names->AppendNull());
      } else {
        EXPECT_OK(names->AppendScalar(Scalar::Str("n" + std::to_string(i % 7))));
      }
      EXPECT_OK(scores.Append(i * 0.5));
    }
    auto batch = RecordBatch::Make(schema, n,
                                   {ids.Finish().ValueOrDie(), names->Finish().ValueOrDie(),
                                    scores.Finish().ValueOrDie()})
                     .ValueOrDie();
    EXPECT_OK(writer->Write(*batch));
    EXPECT_OK(writer->Close());
    return path;
  }

  int SpillFilesLeft() const {
    int n = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
      if (entry.path().extension() != ".parquet") ++n;
    }
    return n;
  }

  std::filesystem::path dir_;
  std::filesystem::path warehouse_;
  std::unique_ptr<session::Session> session_;
};

TEST_F(SessionTest, SelectConstants) {
  EXPECT_EQ(Q("SELECT 1"), (std::vector<std::string>{"1"}));
  EXPECT_EQ(Q("SELECT 1 + 2 AS three, 'x' || 'y', NULL"), (std::vector<std::string>{"3|xy|NULL"}));
  ASSERT_OK_AND_ASSIGN(auto result, session_->Execute("SELECT 1 AS a, 2 AS b"));
  EXPECT_EQ(result->schema()->field(0).name(), "a");
  EXPECT_EQ(result->schema()->field(1).name(), "b");
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(*result));
  EXPECT_EQ(result->command_tag(), "SELECT 1");
}

TEST_F(SessionTest, Values) {
  EXPECT_EQ(Q("VALUES (1, 'a'), (2, NULL), (3, 'c')"),
            (std::vector<std::string>{"1|a", "2|NULL", "3|c"}));
  EXPECT_EQ(Q("SELECT column1 * 10 FROM (VALUES (1), (2)) AS v ORDER BY 1 DESC"),
            (std::vector<std::string>{"20", "10"}));
}

TEST_F(SessionTest, GenerateSeriesAggregates) {
  EXPECT_EQ(Q("SELECT count(*), sum(x), min(x), max(x) FROM generate_series(1, 1000) AS t(x)"),
            (std::vector<std::string>{"1000|500500|1|1000"}));
  EXPECT_EQ(Q("SELECT x % 3 AS k, count(*) AS c, sum(x) FROM generate_series(1, 100) AS t(x) "
              "GROUP BY 1 ORDER BY 1"),
            (std::vector<std::string>{"0|33|1683", "1|34|1717", "2|33|1650"}));
  EXPECT_EQ(Q("SELECT count(*) FROM generate_series(1, 10) AS t(x) WHERE x > 100"),
            (std::vector<std::string>{"0"}));
}

TEST_F(SessionTest, ReadParquet) {
  std::string path = WriteParquet("people.parquet", 100);
  EXPECT_EQ(
      Q("SELECT count(*), count(name), sum(id), sum(score) FROM read_parquet('" + path + "')"),
      (std::vector<std::string>{"100|90|5050|2525"}));
  EXPECT_EQ(Q("SELECT id, name FROM read_parquet('" + path + "') WHERE id > 97 ORDER BY id"),
            (std::vector<std::string>{"98|n0", "99|n1", "100|NULL"}));
  EXPECT_EQ(Q("SELECT name, count(*) FROM read_parquet('" + path +
              "') GROUP BY name ORDER BY name NULLS FIRST LIMIT 3"),
            (std::vector<std::string>{"NULL|10", "n0|13", "n1|14"}));
}

TEST_F(SessionTest, Joins) {
  EXPECT_EQ(Q("SELECT a.x, b.y FROM generate_series(1, 5) AS a(x) JOIN generate_series(3, 8) "
              "AS b(y) ON a.x = b.y ORDER BY 1"),
            (std::vector<std::string>{"3|3", "4|4", "5|5"}));
  EXPECT_EQ(Q("SELECT a.x, b.y FROM generate_series(1, 4) AS a(x) LEFT JOIN "
              "generate_series(3, 8) AS b(y) ON a.x = b.y ORDER BY 1"),
            (std::vector<std::string>{"1|NULL", "2|NULL", "3|3", "4|4"}));
  EXPECT_EQ(Q("SELECT a.x, b.y FROM generate_series(1, 4) AS a(x) RIGHT JOIN "
              "generate_series(3, 6) AS b(y) ON a.x = b.y ORDER BY 2"),
            (std::vector<std::string>{"3|3", "4|4", "NULL|5", "NULL|6"}));
  EXPECT_EQ(Q("SELECT a.x, b.y FROM generate_series(1, 3) AS a(x) FULL JOIN "
              "generate_series(2, 4) AS b(y) ON a.x = b.y ORDER BY 1 NULLS LAST, 2"),
            (std::vector<std::string>{"1|NULL", "2|2", "3|3", "NULL|4"}));
  EXPECT_EQ(Q("SELECT count(*) FROM generate_series(1, 3) AS a(x), generate_series(1, 4) AS "
              "b(y) WHERE a.x < b.y"),
            (std::vector<std::string>{"6"}));
  EXPECT_EQ(Q("SELECT x FROM generate_series(1, 6) AS a(x) WHERE x IN (SELECT y * 2 FROM "
              "generate_series(1, 2) AS b(y)) ORDER BY x"),
            (std::vector<std::string>{"2", "4"}));
}

TEST_F(SessionTest, OrderByLimit) {
  EXPECT_EQ(Q("SELECT x FROM generate_series(1, 100) AS t(x) ORDER BY x DESC LIMIT 3 OFFSET 2"),
            (std::vector<std::string>{"98", "97", "96"}));
  EXPECT_EQ(Q("SELECT count(*) FROM (SELECT x FROM generate_series(1, 100) AS t(x) LIMIT 7) s"),
            (std::vector<std::string>{"7"}));
  EXPECT_EQ(Q("SELECT x FROM generate_series(1, 10) AS t(x) ORDER BY x LIMIT 0"),
            (std::vector<std::string>{}));
}

TEST_F(SessionTest, SetShowReset) {
  EXPECT_EQ(Q("SET batch_size = 7"), (std::vector<std::string>{}));
  EXPECT_EQ(session_->config().batch_size(), 7);
  EXPECT_EQ(Q("SHOW batch_size"), (std::vector<std::string>{"7"}));
  ASSERT_OK_AND_ASSIGN(auto result, session_->Execute("SET target_partitions TO 2"));
  EXPECT_EQ(result->command_tag(), "SET");
  EXPECT_EQ(result->schema()->num_fields(), 0);
  EXPECT_EQ(Q("RESET batch_size"), (std::vector<std::string>{}));
  EXPECT_EQ(Q("SHOW batch_size"), (std::vector<std::string>{"8192"}));
  ASSERT_OK_AND_ASSIGN(result, session_->Execute("SHOW ALL"));
  EXPECT_EQ(result->schema()->field(0).name(), "name");
  EXPECT_EQ(result->schema()->field(1).name(), "setting");
  ASSERT_OK_AND_ASSIGN(auto all, Rows(*result));
  EXPECT_NE(std::find(all.begin(), all.end(), "target_partitions|2"), all.end());
  EXPECT_EQ(all.size(), SessionConfig::Registered().size());
  EXPECT_THAT(session_->Execute("SET no_such_setting = 1"),
              IsErrorWith(StatusCode::kInvalidArgument, "no_such_setting"));
  EXPECT_THAT(session_->Execute("SHOW no_such_setting"),
              IsErrorWith(StatusCode::kInvalidArgument, "no_such_setting"));
}

TEST_F(SessionTest, ExplainShape) {
  // 100 rows in batches of 10 make a scan of two partitions.
  ASSERT_OK(session_->mutable_config().Set("target_partitions", "2"));
  ASSERT_OK(session_->mutable_config().Set("batch_size", "10"));
  ASSERT_OK_AND_ASSIGN(auto result,
                       session_->Execute("EXPLAIN SELECT x % 3, count(*) FROM "
                                         "generate_series(1, 100) AS t(x) GROUP BY 1"));
  EXPECT_EQ(result->schema()->num_fields(), 1);
  EXPECT_EQ(result->schema()->field(0).name(), "plan");
  ASSERT_OK_AND_ASSIGN(auto lines, Rows(*result));
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  EXPECT_NE(text.find("Logical plan:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Physical plan:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Stages:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("mode=Partial"), std::string::npos) << text;
  EXPECT_NE(text.find("mode=Final"), std::string::npos) << text;
  EXPECT_NE(text.find("ShuffleWriterExec: stage=1, output=Hash("), std::string::npos) << text;
  EXPECT_NE(text.find("Stage 2 (final), 2 tasks, inputs: 1"), std::string::npos) << text;

  // (A bare count(*) is answered from the source's exact row count; the filter makes the
  // scan run.)
  ASSERT_OK_AND_ASSIGN(result, session_->Execute("EXPLAIN ANALYZE SELECT count(*) FROM "
                                                 "generate_series(1, 100) AS t(x) WHERE x > 0"));
  ASSERT_OK_AND_ASSIGN(lines, Rows(*result));
  text.clear();
  for (const auto& line : lines) text += line + "\n";
  EXPECT_NE(text.find("rows=100 "), std::string::npos) << text;
  EXPECT_NE(text.find("Rows: 1,"), std::string::npos) << text;
}

// A cluster of one process that reports, as dist's runner does under MPI, what a second
// rank counted: EXPLAIN ANALYZE adds it under that rank and sums every rank's counters.
class TwoRankTestCluster final : public scheduler::QueryCluster {
 public:
  class Runner final : public scheduler::TaskRunner {
   public:
    explicit Runner(ThreadPool* threads) : local_(scheduler::MakeLocalTaskRunner(threads)) {}
    int slots() const override { return local_->slots(); }
    void Run(const scheduler::Stage& stage, int partition, const TaskContextPtr& ctx,
             std::function<void(Status, int)> done) override {
      local_->Run(stage, partition, ctx, std::move(done));
    }
    Status StageComplete(const scheduler::Stage& stage,
                         const std::vector<int>& locations) override {
      return local_->StageComplete(stage, locations);
    }
    void Cancel() override { local_->Cancel(); }
    // "Rank 1" ran partition 5 of stage 1's root, its input and its leaf (the series).
    Status CollectMetrics(const scheduler::StagePlan& stages, QueryMetrics* metrics) override {
      metrics->set_ranks(2);
      const ExecutionPlan* root = stages.stages()[0].plan.get();
      metrics->For(root, 5, 1).elapsed_nanos += 2'000'000;
      metrics->For(root->children()[0].get(), 5, 1).rows += 3;
      const ExecutionPlan* leaf = root;
      while (!leaf->children().empty()) leaf = leaf->children()[0].get();
      OperatorMetrics& series = metrics->For(leaf, 5, 1);
      series.rows += 7;
      series.batches += 1;
      metrics->SetExchangeBytes(0, 100, 40);
      metrics->SetExchangeBytes(1, 40, 100);
      return Status::OK();
    }

   private:
    std::shared_ptr<scheduler::TaskRunner> local_;
  };

  Result<Query> Begin(const scheduler::StagePlan&, const SessionConfig&,
                      std::shared_ptr<MemoryManager> memory, const std::string& spill_directory,
                      bool collect_metrics) override {
    EXPECT_TRUE(collect_metrics);
    return Query{scheduler::MakeLocalExchange(std::move(memory), spill_directory),
                 std::make_shared<Runner>(DefaultThreadPool())};
  }
  int slots() const override { return 3; }
};

TEST_F(SessionTest, ExplainAnalyzeNamesTheRanksOfADistributedQuery) {
  session::SessionOptions options;
  options.threads = 2;
  options.warehouse = warehouse_.string();
  options.cluster = std::make_shared<TwoRankTestCluster>();
  ASSERT_OK_AND_ASSIGN(auto session, session::Session::Make(options));
  ASSERT_OK(session->mutable_config().Set("target_partitions", "2"));
  ASSERT_OK_AND_ASSIGN(auto result,
                       session->Execute("EXPLAIN ANALYZE SELECT x % 3, count(*) FROM "
                                        "generate_series(1, 10000) AS t(x) GROUP BY x % 3"));
  ASSERT_OK_AND_ASSIGN(auto lines, Rows(*result));
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  // The local partitions are rank 0's; the reported one is rank 1's, and the series'
  // total includes it (10000 rows in its two partitions here, plus 7).
  EXPECT_NE(text.find("partition 0 on rank 0: rows=5000 "), std::string::npos) << text;
  EXPECT_NE(text.find("partition 5 on rank 1: rows=7 batches=1 "), std::string::npos) << text;
  EXPECT_NE(text.find("rows=10007 "), std::string::npos) << text;
  // One line per rank: rank 0 ran stage 1's two tasks and the final stage's two.
  EXPECT_NE(text.find("Ranks:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 0: tasks=4 rows="), std::string::npos) << text;
  EXPECT_NE(text.find("exchange sent=100 received=40\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 1: tasks=1 rows=3 time=2.000ms exchange sent=40 received=100\n"),
            std::string::npos)
      << text;
}

TEST_F(SessionTest, TargetPartitionsDefaultsToTheTasksTheSessionRunsAtOnce) {
  // In one process: its threads; RESET returns there, not to the hardware threads.
  session::SessionOptions options;
  options.threads = 5;
  options.warehouse = warehouse_.string();
  ASSERT_OK_AND_ASSIGN(auto alone, session::Session::Make(options));
  EXPECT_EQ(alone->config().target_partitions(), 5);
  ASSERT_OK(alone->Execute("SET target_partitions = 2").status());
  EXPECT_EQ(alone->config().target_partitions(), 2);
  ASSERT_OK(alone->Execute("RESET target_partitions").status());
  EXPECT_EQ(alone->config().target_partitions(), 5);
  // Across processes: every process's task slots together (the cluster's 3, not the
  // 5 threads of this process), after RESET ALL too.
  options.cluster = std::make_shared<TwoRankTestCluster>();
  ASSERT_OK_AND_ASSIGN(auto clustered, session::Session::Make(options));
  EXPECT_EQ(clustered->config().target_partitions(), 3);
  ASSERT_OK(clustered->Execute("SET target_partitions = 7").status());
  ASSERT_OK(clustered->Execute("RESET ALL").status());
  EXPECT_EQ(clustered->config().target_partitions(), 3);
  EXPECT_EQ(clustered->config().batch_size(), 8192);
}

TEST_F(SessionTest, OneThreadRunsEveryTaskOfAManyTaskQuery) {
  // One executor slot: each task's end hands the slot to the next task (it once stayed
  // taken while the next tasks were handed out, and the query waited forever).
  session::SessionOptions options;
  options.threads = 1;
  options.warehouse = warehouse_.string();
  ASSERT_OK_AND_ASSIGN(auto session, session::Session::Make(options));
  ASSERT_OK(session->mutable_config().Set("target_partitions", "4"));
  ASSERT_OK_AND_ASSIGN(auto result,
                       session->Execute("SELECT x % 3, count(*) FROM generate_series(1, 100000) "
                                        "AS g(x) GROUP BY 1 ORDER BY 1"));
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(*result));
  EXPECT_THAT(rows, ::testing::ElementsAre("0|33333", "1|33334", "2|33333"));
}

TEST_F(SessionTest, CatalogTablesLiveInTheSessionsWarehouse) {
  // A SELECT naming a table does not create the embedded catalog.
  EXPECT_THAT(session_->Execute("SELECT * FROM t"),
              IsErrorWith(StatusCode::kNotFound, "table \"t\" does not exist"));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ / "catalog.db"));
  ASSERT_OK(session_->Execute("CREATE TABLE t (a int NOT NULL, b text)").status());
  EXPECT_TRUE(std::filesystem::exists(warehouse_ / "catalog.db"));
  EXPECT_THAT(Q("SELECT count(*) FROM t"), ::testing::ElementsAre("0"));
  EXPECT_THAT(Q("SELECT a, b FROM \"default\".t WHERE a > 1"), ::testing::ElementsAre());
  EXPECT_THAT(Q("SHOW TABLES"), ::testing::ElementsAre("default|t"));
}

TEST_F(SessionTest, TemporaryTablesAreTheSessionsOwnAndGoWithIt) {
  ASSERT_OK(session_->Execute("CREATE TABLE t (a int)").status());
  ASSERT_OK(session_->Execute("INSERT INTO t VALUES (1)").status());
  ASSERT_OK(session_->Execute("CREATE TEMP TABLE t (b text)").status());
  ASSERT_OK(session_->Execute("INSERT INTO t VALUES ('temp')").status());
  // The temporary table shadows the permanent one, as pg_temp comes first.
  EXPECT_THAT(Q("SELECT * FROM t"), ::testing::ElementsAre("temp"));
  EXPECT_THAT(Q("SELECT * FROM pg_temp.t"), ::testing::ElementsAre("temp"));
  EXPECT_THAT(Q("SELECT * FROM \"default\".t"), ::testing::ElementsAre("1"));
  // A failing CREATE TEMP TABLE AS leaves nothing behind.
  EXPECT_THAT(session_->Execute("CREATE TEMP TABLE bad AS SELECT 1 / 0 AS z"),
              IsErrorWith(StatusCode::kInvalidArgument, "division by zero"));
  EXPECT_THAT(session_->Execute("SELECT * FROM bad"), IsError(StatusCode::kNotFound));
  EXPECT_THAT(session_->Execute("CREATE TEMP TABLE s.x (a int)"),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "cannot create temporary relation in non-temporary schema"));

  // Another session of the same warehouse sees only the permanent table.
  session::SessionOptions options;
  options.warehouse = warehouse_.string();
  auto other = session::Session::Make(options).ValueOrDie();
  auto rows = other->Execute("SELECT * FROM t");
  ASSERT_OK(rows.status());
  EXPECT_THAT(Rows(**rows), IsOkAndHolds(::testing::ElementsAre("1")));

  ASSERT_OK(session_->Execute("CREATE TEMP TABLE u AS SELECT 2 AS z").status());
  ASSERT_OK(session_->Execute("DROP TABLE t").status());
  EXPECT_THAT(Q("SELECT * FROM t"), ::testing::ElementsAre("1"));
  EXPECT_THAT(Q("SHOW SCHEMAS").size(), 2u);

  // The session's end drops its temporary tables, their files and their namespace.
  session_.reset();
  rows = other->Execute("SHOW SCHEMAS");
  ASSERT_OK(rows.status());
  EXPECT_THAT(Rows(**rows), IsOkAndHolds(::testing::ElementsAre("default")));
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(warehouse_)) {
    if (entry.is_regular_file() && entry.path().string().find("pg_temp_") != std::string::npos) {
      ++files;
    }
  }
  EXPECT_EQ(files, 0);
}

TEST_F(SessionTest, ErrorsSurfaceWithTheirMessages) {
  EXPECT_THAT(session_->Execute("SELECT * FROM nosuch"),
              IsErrorWith(StatusCode::kNotFound, "table \"nosuch\" does not exist"));
  EXPECT_THAT(session_->Execute("INSERT INTO nosuch VALUES (1)"),
              IsErrorWith(StatusCode::kNotFound, "table \"nosuch\" does not exist"));
  EXPECT_THAT(session_->Execute("DELETE FROM nosuch"),
              IsErrorWith(StatusCode::kNotFound, "table \"nosuch\" does not exist"));
  EXPECT_THAT(session_->Execute("UPDATE nosuch SET a = 1"),
              IsErrorWith(StatusCode::kNotFound, "table \"nosuch\" does not exist"));
  EXPECT_THAT(session_->Execute("CREATE TABLE nosuch_schema.t (a int)"),
              IsErrorWith(StatusCode::kNotFound, "schema \"nosuch_schema\" does not exist"));
  EXPECT_THAT(session_->Execute("SELEC 1"), IsError(StatusCode::kSyntax));
  EXPECT_THAT(session_->Execute("SELECT 1; SELECT 2"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(session_->Execute("SELECT nope FROM generate_series(1, 2) AS t(x)"),
              IsErrorWith(StatusCode::kBind, "column \"nope\" does not exist"));
  EXPECT_THAT(Query("SELECT 10 / (x - 5) FROM generate_series(1, 10) AS t(x)"),
              IsErrorWith(StatusCode::kInvalidArgument, "division by zero"));
  EXPECT_EQ(SpillFilesLeft(), 0);
}

TEST_F(SessionTest, ScalarSubqueryOfTwoRowsFails) {
  EXPECT_EQ(Q("SELECT (SELECT x FROM generate_series(1, 2) AS t(x) WHERE x > 1) + 1"),
            (std::vector<std::string>{"3"}));
  EXPECT_THAT(Query("SELECT (SELECT x FROM generate_series(1, 2) AS t(x))"),
              IsErrorWith(StatusCode::kInvalidArgument, "more than one row"));
}

// The same rows whatever the partitioning and batch size.
TEST_F(SessionTest, ResultsDoNotDependOnPartitionsOrBatchSize) {
  std::string path = WriteParquet("t.parquet", 250);
  const std::vector<std::string> queries = {
      "SELECT x % 7, count(*), sum(x) FROM generate_series(1, 500) AS t(x) GROUP BY 1 ORDER BY 1",
      "SELECT name, count(*), min(id), max(score) FROM read_parquet('" + path +
          "') GROUP BY name ORDER BY name",
      "SELECT a.x, b.id FROM generate_series(1, 40) AS a(x) JOIN read_parquet('" + path +
          "') AS b ON a.x * 3 = b.id ORDER BY 1",
      "SELECT x FROM generate_series(1, 300) AS t(x) ORDER BY x DESC LIMIT 5 OFFSET 3",
      "SELECT count(*), sum(id) FROM read_parquet('" + path + "') WHERE name = 'n3'",
      "SELECT x, y FROM generate_series(1, 20) AS a(x) LEFT JOIN generate_series(5, 9) AS "
      "b(y) ON a.x = b.y ORDER BY x",
      "SELECT count(*) FROM (SELECT DISTINCT x % 13 FROM generate_series(1, 1000) AS t(x)) s",
  };
  std::vector<std::vector<std::string>> expected;
  for (const std::string& sql : queries) expected.push_back(Q(sql));
  for (int partitions : {1, 2, 3, 8}) {
    for (int batch_size : {1, 7, 8192}) {
      ASSERT_OK(session_->mutable_config().Set("target_partitions", std::to_string(partitions)));
      ASSERT_OK(session_->mutable_config().Set("batch_size", std::to_string(batch_size)));
      for (size_t i = 0; i < queries.size(); ++i) {
        EXPECT_EQ(Q(queries[i]), expected[i])
            << queries[i] << " with target_partitions=" << partitions
            << " batch_size=" << batch_size;
      }
    }
  }
  EXPECT_FALSE(expected[0].empty());
  EXPECT_EQ(SpillFilesLeft(), 0);
}

}  // namespace
}  // namespace floe::session
