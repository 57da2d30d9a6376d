// The plan codec over every registered node type: plans the planner builds for a corpus
// of statements are encoded, decoded and encoded again with identical bytes and EXPLAIN
// text; every registered node must appear in the corpus (a node added without a case
// fails here); running with codec_roundtrip on gives the same rows; malformed envelopes
// and payloads are clear errors.

#include "floe/exec/plan_codec.h"
#include "floe/exec/empty_exec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "floe/exec/coalesce_partitions_exec.h"
#include "floe/exec/repartition_exec.h"
#include "floe/exec/values_exec.h"
#include "floe/session/plan_codecs.h"
#include "floe/session/session.h"
#include "floe/session/tests/query_rows.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scratch_dir.h"

namespace floe::exec {
namespace {

using ::floe::testing::IsError;

void CollectNames(const ExecutionPlan& plan, std::set<std::string>* names) {
  names->insert(std::string(plan.name()));
  for (const PlanPtr& child : plan.children()) CollectNames(*child, names);
}

// A Parquet file of the repository (the working directory) for read_parquet's scan node.
constexpr char kParquetFile[] = "test/data/parquet/row_groups.parquet";

class PlanCodecTest : public testing::ScratchDirTest {
 protected:
  PlanCodecTest() : ScratchDirTest("floe_exec_plan_codec") {}

  void SetUp() override {
    ScratchDirTest::SetUp();
    session::SessionOptions options;
    options.warehouse = dir_ + "/warehouse";
    options.threads = 2;
    ASSERT_OK_AND_ASSIGN(session_, session::Session::Make(options));
    ASSERT_OK(session_->mutable_config().Set("target_partitions", "3"));
    for (const char* sql : {
             "CREATE TABLE t (a int, s text, d date)",
             // Three files: scans of t have three partitions, so plans have exchanges.
             "INSERT INTO t VALUES (1, 'x', DATE '2024-01-01'), (2, 'y', DATE '2024-02-03')",
             "INSERT INTO t VALUES (3, NULL, DATE '2024-02-04')",
             "INSERT INTO t VALUES (2, 'zz', NULL)",
             "CREATE TABLE p (id bigint, s text, ts timestamp) WITH (partitioning = "
             "'bucket(4, id), day(ts)', sorted_by = 'id DESC')",
         }) {
      ASSERT_OK_AND_ASSIGN(auto result, session_->Execute(sql));
      ASSERT_OK(Rows(*result).status()) << sql;
    }
  }

  // Plans `sql`, round-trips every stage and records the node types seen.
  void RoundTripStages(const std::string& sql) {
    SCOPED_TRACE(sql);
    ASSERT_OK_AND_ASSIGN(scheduler::StagePlan stages, session_->PlanStatement(sql));
    for (const scheduler::Stage& stage : stages.stages()) {
      CollectNames(*stage.plan, &seen_);
      ASSERT_OK(RoundTripPlan(stage.plan, session::EnginePlanCodecs()).status())
          << PlanToString(*stage.plan);
    }
  }

  std::vector<std::string> Run(const std::string& sql) {
    Result<std::unique_ptr<session::QueryResult>> result = session_->Execute(sql);
    EXPECT_TRUE(result.ok()) << sql << ": " << result.status().ToString();
    if (!result.ok()) return {};
    Result<std::vector<std::string>> rows = Rows(**result);
    EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
    if (!rows.ok()) return {};
    std::sort(rows->begin(), rows->end());
    return *rows;
  }

  std::unique_ptr<session::Session> session_;
  std::set<std::string> seen_;
};

TEST_F(PlanCodecTest, EveryRegisteredNodeRoundTripsAndGivesTheSameRows) {
  const std::string parquet = kParquetFile;
  ASSERT_TRUE(std::filesystem::is_regular_file(parquet)) << parquet;
  const std::vector<std::string> queries = {
      "SELECT a + 1, upper(s) FROM t WHERE a > 1 ORDER BY 1 LIMIT 2 OFFSET 1",
      "SELECT * FROM (VALUES (1, 'a'), (2, NULL)) v(x, y) WHERE x <> 3",
      "SELECT * FROM t WHERE false",
      "SELECT count(*), sum(generate_series) FROM generate_series(1, 1000)",
      "SELECT g % 7, count(*) FROM generate_series(1, 1000) s(g) GROUP BY 1",
      "SELECT * FROM generate_series(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-03', '1 day')",
      "SELECT s, count(*), count(DISTINCT a), sum(a) FILTER (WHERE a > 1), string_agg(s, ',')"
      " FROM t GROUP BY s ORDER BY s NULLS FIRST",
      "SELECT t1.a, t2.s FROM t t1 JOIN t t2 ON t1.a = t2.a AND t1.s <> t2.s",
      "SELECT t1.a, t2.a FROM t t1 LEFT JOIN t t2 ON t1.a < t2.a",
      "SELECT a FROM t UNION ALL SELECT a + 10 FROM t",
      "SELECT a, (SELECT s FROM t WHERE a = 1) FROM t",
      "SELECT a, row_number() OVER (PARTITION BY s ORDER BY a), sum(a) OVER (ORDER BY a ROWS "
      "BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
      "SELECT a FROM t WHERE a IN (SELECT a FROM t WHERE s = 'x') OR a > 2",
      "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM t t2 WHERE t2.a = t.a AND t2.s = 'y')",
      "SELECT count(*) FROM read_parquet('" + parquet + "')",
      "SELECT * FROM read_parquet('" + parquet + "') LIMIT 3",
      "SELECT name, count(*) FROM read_csv('test/data/text/people.csv', ignore_errors => true) "
      "GROUP BY name",
      "SELECT * FROM read_json('test/data/text/events.jsonl') LIMIT 2",
      "SELECT d, a FROM t WHERE d >= DATE '2024-02-01' AND s LIKE 'y%'",
      "SELECT id, s FROM p WHERE id > 5 ORDER BY id DESC",
      "SELECT a, generate_series(1, a), regexp_matches(s, '.', 'g') FROM t",
      "SELECT * FROM t, regexp_matches(t.s, '(.)') WITH ORDINALITY m(g, n)",
      "WITH RECURSIVE r(n, s) AS (SELECT a, s FROM t UNION SELECT r.n + 1, t.s FROM r JOIN t ON "
      "t.a = r.n WHERE r.n < 5) SELECT n, s FROM r",
  };
  ASSERT_OK(session_->mutable_config().Set("broadcast_join_threshold", "0"));
  for (const std::string& sql : queries) RoundTripStages(sql);
  ASSERT_OK(session_->mutable_config().Set("broadcast_join_threshold", "16MB"));
  for (const std::string& sql : queries) RoundTripStages(sql);
  RoundTripStages("INSERT INTO p SELECT a, s, TIMESTAMP '2024-03-01 10:00:00' FROM t");
  RoundTripStages("INSERT INTO t SELECT a + 5, s, d FROM t");
  // Merge-on-read row-level changes: position deletes and new rows (IcebergDeltaWriteExec).
  for (const char* sql : {
           "CREATE TABLE mor (a int, s text) WITH (partitioning = 'bucket(2, a)', "
           "\"write.delete.mode\" = 'merge-on-read', \"write.update.mode\" = 'merge-on-read')",
           "INSERT INTO mor VALUES (1, 'x'), (2, 'y'), (3, 'z')",
       }) {
    Run(sql);
  }
  RoundTripStages("DELETE FROM mor WHERE a = 2");
  RoundTripStages("UPDATE mor SET s = upper(mor.s) FROM t WHERE mor.a = t.a");

  // The stage planner replaces repartitions and coalesces with shuffles; they still have
  // codecs (a plan before staging may travel too).
  SchemaPtr schema = std::make_shared<Schema>(std::vector<Field>{Field("x", Int64())});
  ASSERT_OK_AND_ASSIGN(PlanPtr empty, EmptyExec::Make(schema, 2));
  ASSERT_OK_AND_ASSIGN(PlanPtr coalesce, CoalescePartitionsExec::Make(empty));
  ASSERT_OK_AND_ASSIGN(PlanPtr repartition,
                       RepartitionExec::Make(coalesce, Partitioning::RoundRobin(4)));
  ASSERT_OK(RoundTripPlan(repartition, session::EnginePlanCodecs()).status());
  CollectNames(*repartition, &seen_);

  for (const std::string& name : session::EnginePlanCodecs().names()) {
    EXPECT_TRUE(seen_.count(name)) << name << " is registered but no test plan contains it";
  }

  // The same rows with every stage decoded from its bytes.
  std::vector<std::vector<std::string>> expected;
  for (const std::string& sql : queries) expected.push_back(Run(sql));
  ASSERT_OK(session_->mutable_config().Set("codec_roundtrip", "on"));
  for (size_t i = 0; i < queries.size(); ++i) {
    EXPECT_EQ(Run(queries[i]), expected[i]) << queries[i];
  }
  // A write through decoded stages commits once, every row once.
  EXPECT_EQ(Run("INSERT INTO p SELECT a, s, TIMESTAMP '2024-03-01 10:00:00' FROM t").size(), 0u);
  EXPECT_EQ(Run("SELECT count(*), sum(id) FROM p"), std::vector<std::string>{"4|8"});
  EXPECT_EQ(Run("SELECT count(*) FROM \"p$snapshots\""), std::vector<std::string>{"1"});
}

TEST_F(PlanCodecTest, EncodingIsDeterministic) {
  ASSERT_OK_AND_ASSIGN(scheduler::StagePlan stages,
                       session_->PlanStatement("SELECT s, count(*) FROM t GROUP BY s"));
  for (const scheduler::Stage& stage : stages.stages()) {
    ASSERT_OK_AND_ASSIGN(std::string first,
                         EncodePlanBytes(*stage.plan, session::EnginePlanCodecs()));
    ASSERT_OK_AND_ASSIGN(std::string second,
                         EncodePlanBytes(*stage.plan, session::EnginePlanCodecs()));
    EXPECT_EQ(first, second);
  }
}

class PlanCodecErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SchemaPtr schema = std::make_shared<Schema>(std::vector<Field>{Field("x", Int64())});
    ASSERT_OK_AND_ASSIGN(PlanPtr empty, EmptyExec::Make(schema, 2));
    ASSERT_OK_AND_ASSIGN(plan_, CoalescePartitionsExec::Make(empty));
    ASSERT_OK_AND_ASSIGN(message_, EncodePlan(*plan_, session::EnginePlanCodecs()));
  }
  PlanPtr plan_;
  codec::proto::PlanNode message_;
};

TEST_F(PlanCodecErrorsTest, UnknownNodeOrVersionIsNotSupported) {
  codec::proto::PlanNode unknown = message_;
  unknown.set_name("TeleportExec");
  Result<PlanPtr> r = DecodePlan(unknown, session::EnginePlanCodecs());
  EXPECT_THAT(r.status(), IsError(StatusCode::kNotSupported));
  EXPECT_EQ(r.status().message(), "unknown plan node type \"TeleportExec\"");

  codec::proto::PlanNode future = message_;
  future.mutable_children(0)->set_version(7);
  r = DecodePlan(future, session::EnginePlanCodecs());
  EXPECT_THAT(r.status(), IsError(StatusCode::kNotSupported));
  EXPECT_EQ(r.status().message(),
            "plan node EmptyExec has codec version 7; this floe reads version 1");
}

TEST_F(PlanCodecErrorsTest, MalformedInputIsCorrupt) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodePlanBytes(*plan_, session::EnginePlanCodecs()));
  EXPECT_THAT(
      DecodePlanBytes(bytes.substr(0, bytes.size() - 3), session::EnginePlanCodecs()).status(),
      IsError(StatusCode::kCorrupt));
  EXPECT_THAT(DecodePlanBytes("\xff\xff\xff", session::EnginePlanCodecs()).status(),
              IsError(StatusCode::kCorrupt));

  codec::proto::PlanNode orphan = message_;
  orphan.clear_children();
  Result<PlanPtr> r = DecodePlan(orphan, session::EnginePlanCodecs());
  EXPECT_THAT(r.status(), IsError(StatusCode::kCorrupt));
  EXPECT_EQ(r.status().message(),
            "plan node CoalescePartitionsExec: 0 children where 1 are expected");

  codec::proto::PlanNode garbage = message_;
  garbage.mutable_children(0)->set_payload("\x0a\xff\xff\xff\xff\x0f");
  r = DecodePlan(garbage, session::EnginePlanCodecs());
  EXPECT_THAT(r.status(), IsError(StatusCode::kCorrupt));
  EXPECT_NE(r.status().message().find("plan node EmptyExec: its 6-byte payload is not a valid"),
            std::string::npos)
      << r.status().message();

  // Make validates the parts again: no partitions is refused.
  codec::proto::EmptyNode node;
  ASSERT_TRUE(node.ParseFromString(message_.children(0).payload()));
  node.set_partitions(0);
  codec::proto::PlanNode bad = message_;
  bad.mutable_children(0)->set_payload(node.SerializeAsString());
  r = DecodePlan(bad, session::EnginePlanCodecs());
  EXPECT_THAT(r.status(), IsError(StatusCode::kCorrupt));
  EXPECT_NE(r.status().message().find("plan node EmptyExec: "), std::string::npos)
      << r.status().message();
}

TEST_F(PlanCodecErrorsTest, DeepPlansAreRefused) {
  codec::proto::PlanNode deep = message_.children(0);
  for (int i = 0; i < 5000; ++i) {
    codec::proto::PlanNode parent;
    parent.set_name("CoalescePartitionsExec");
    parent.set_version(1);
    *parent.add_children() = std::move(deep);
    deep = std::move(parent);
  }
  Result<PlanPtr> r = DecodePlan(deep, session::EnginePlanCodecs());
  EXPECT_THAT(r.status(), IsError(StatusCode::kCorrupt));
  EXPECT_EQ(r.status().message(), "plan nested deeper than 4096 nodes");
}

TEST(PlanCodecRegistryTest, RegisteringTwiceIsAnError) {
  PlanCodecRegistry registry;
  RegisterExecPlanCodecs(&registry);
  EXPECT_THAT(registry.Register("FilterExec", 1, nullptr), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(registry.exprs().Register("Column", nullptr), IsError(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace floe::exec
