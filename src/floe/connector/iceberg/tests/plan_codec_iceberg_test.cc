// The plan codecs of the Parquet and Iceberg scan and write nodes and of the Iceberg
// transform expression, on plans built the way the planner builds them: every node
// encodes, decodes and encodes again to the same bytes and EXPLAIN text, a decoded scan
// reads the same rows (deletes, residuals, splits, pinned snapshots), a decoded write
// commits, and malformed payloads fail with errors naming what is wrong.

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/batch/value_format.h"
#include "floe/catalog/catalog.h"
#include "floe/codec/iceberg.pb.h"
#include "floe/codec/iceberg_codec.h"
#include "floe/codec/value_codec.h"
#include "floe/common/thread_pool.h"
#include "floe/connector/iceberg/iceberg_table.h"
#include "floe/connector/iceberg/iceberg_write.h"
#include "floe/connector/iceberg/tests/iceberg_session_fixture.h"
#include "floe/connector/parquet/parquet_scan_exec.h"
#include "floe/connector/parquet/parquet_table.h"
#include "floe/exec/enforce.h"
#include "floe/exec/exchange_service.h"
#include "floe/exec/memory_manager.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/repartition_exec.h"
#include "floe/exec/values_exec.h"
#include "floe/iceberg/table.h"
#include "floe/io/file_io.h"
#include "floe/io/resolving_file_io.h"
#include "floe/scheduler/local_exchange.h"
#include "floe/scheduler/scheduler.h"
#include "floe/scheduler/stage_planner.h"
#include "floe/session/plan_codecs.h"
#include "floe/session/session.h"
#include "floe/session/tests/query_rows.h"
#include "floe/testing/batch_rows.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scratch_dir.h"

namespace floe::connector {
namespace {

using exec::CollectAll;
using exec::DecodePlan;
using exec::DecodePlanBytes;
using exec::EncodePlan;
using exec::EncodePlanBytes;
using exec::EnforceRequirements;
using exec::MemoryManager;
using exec::Partitioning;
using exec::PlanCodecEntry;
using exec::PlanCodecRegistry;
using exec::PlanPtr;
using exec::RepartitionExec;
using exec::RoundTripPlan;
using exec::ScanRequest;
using exec::SessionConfig;
using exec::TaskContext;
using exec::TaskContextPtr;

namespace pb = codec::proto;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

constexpr char kFixtures[] = "../shared/fixtures/iceberg/";

// Every row of the batches as "v1|v2|...", sorted.
std::vector<std::string> BatchRows(const std::vector<RecordBatchPtr>& batches) {
  std::vector<std::string> rows = ::floe::testing::BatchRows(batches);
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Every node of a plan, depth first.
void Nodes(const PlanPtr& plan, std::vector<PlanPtr>* out) {
  out->push_back(plan);
  for (const PlanPtr& child : plan->children()) Nodes(child, out);
}

PlanPtr Find(const PlanPtr& plan, std::string_view name) {
  std::vector<PlanPtr> nodes;
  Nodes(plan, &nodes);
  for (const PlanPtr& node : nodes) {
    if (node->name() == name) return node;
  }
  return nullptr;
}

// The envelope of a node (children included) with its own payload replaced by `message`.
template <typename Message>
pb::PlanNode WithPayload(const PlanPtr& plan, const Message& message) {
  pb::PlanNode node = EncodePlan(*plan, session::EnginePlanCodecs()).ValueOrDie();
  node.set_payload(message.SerializeAsString());
  return node;
}

template <typename Message>
Message PayloadOf(const PlanPtr& plan) {
  Message m;
  EXPECT_TRUE(
      m.ParseFromString(EncodePlan(*plan, session::EnginePlanCodecs()).ValueOrDie().payload()));
  return m;
}

// The EXPLAIN text of a plan: every node's line, indented by depth.
std::string ExplainText(const PlanPtr& plan, int depth = 0) {
  std::string out = std::string(static_cast<size_t>(depth) * 2, ' ') + plan->ToString() + "\n";
  for (const PlanPtr& child : plan->children()) out += ExplainText(child, depth + 1);
  return out;
}

expr::ExprPtr Gt(int column, const std::string& name, int64_t value) {
  return expr::Call("gt", {expr::Column(column, name, Int64()), expr::Literal(Scalar::I64(value))},
                    Boolean());
}

expr::ExprPtr InStrings(int column, const std::string& name,
                        const std::vector<std::string>& values) {
  std::vector<expr::ExprPtr> args{expr::Column(column, name, String())};
  for (const std::string& v : values) args.push_back(expr::Literal(Scalar::Str(v)));
  return expr::Call("in_list", std::move(args), Boolean());
}

bool HasResidual(const connector::IcebergScanExec& scan) {
  for (const iceberg::ScanTaskGroup& group : scan.parts().groups) {
    for (const iceberg::FileScanTask& task : group.tasks) {
      if (task.residual && !iceberg::IsAlwaysTrue(*task.residual)) return true;
    }
  }
  return false;
}

int DeleteFiles(const connector::IcebergScanExec& scan) {
  int n = 0;
  for (const iceberg::ScanTaskGroup& group : scan.parts().groups) {
    for (const iceberg::FileScanTask& task : group.tasks) {
      n += static_cast<int>(task.delete_files.size());
    }
  }
  return n;
}

class PlanCodecIcebergTest : public IcebergSessionTest {
 protected:
  PlanCodecIcebergTest() : IcebergSessionTest("floe_exec_codec_iceberg") {}

  // The statement's rows, sorted.
  std::vector<std::string> Q(const std::string& sql) {
    auto result = session_->Execute(sql);
    EXPECT_TRUE(result.ok()) << sql << ": " << result.status().ToString();
    if (!result.ok()) return {};
    auto rows = Rows(**result);
    EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
    if (!rows.ok()) return {};
    std::sort(rows->begin(), rows->end());
    return *rows;
  }

  // db.t: partitioned by bucket(4, id) and day(ts), two snapshots, one NULL name.
  void MakeEvents() {
    Q("CREATE TABLE db.t (id bigint, ts timestamp, name text) WITH (partitioning = "
      "'bucket(4, id), day(ts)')");
    Q("INSERT INTO db.t VALUES (1, TIMESTAMP '2024-01-01 10:00:00', 'a'), "
      "(2, TIMESTAMP '2024-01-01 11:00:00', 'b'), (3, TIMESTAMP '2024-01-02 09:00:00', 'c'), "
      "(4, TIMESTAMP '2024-01-02 10:00:00', 'd'), (5, TIMESTAMP '2024-01-03 08:00:00', 'e'), "
      "(6, TIMESTAMP '2024-01-03 09:00:00', NULL), (7, TIMESTAMP '2024-01-03 10:00:00', 'g'), "
      "(8, TIMESTAMP '2024-01-04 00:00:00', 'h')");
    Q("INSERT INTO db.t VALUES (9, TIMESTAMP '2024-01-05 00:00:00', 'i'), "
      "(10, TIMESTAMP '2024-01-01 12:00:00', 'd')");
  }

  static SessionConfig Config(int partitions) {
    SessionConfig config;
    EXPECT_OK(config.Set("target_partitions", std::to_string(partitions)));
    return config;
  }

  static PlanPtr ScanOf(const std::string& name, iceberg::Table table, ScanRequest request,
                        int partitions = 3, iceberg::SnapshotSelector selector = {}) {
    auto provider = connector::IcebergTable::Make(name, std::move(table), selector).ValueOrDie();
    return provider->Scan(request, Config(partitions)).ValueOrDie();
  }

  PlanPtr Scan(const std::string& name, ScanRequest request, int partitions = 3,
               iceberg::SnapshotSelector selector = {}) {
    return ScanOf(name, Load(name), std::move(request), partitions, selector);
  }

  TaskContextPtr Context() {
    auto memory = std::make_shared<MemoryManager>(0);
    return std::make_shared<TaskContext>(SessionConfig(), memory, threads_.get(), dir_,
                                         scheduler::MakeLocalExchange(memory, dir_));
  }

  // Every row of every partition, sorted.
  std::vector<std::string> Read(const PlanPtr& plan) {
    Result<std::vector<RecordBatchPtr>> batches = CollectAll(plan, Context());
    EXPECT_OK(batches.status());
    if (!batches.ok()) return {"<" + batches.status().ToString() + ">"};
    return BatchRows(*batches);
  }

  // The final stage's rows of a plan run through stages and the scheduler.
  Result<std::vector<std::string>> RunStages(const PlanPtr& plan) {
    FLOE_ASSIGN_OR_RAISE(scheduler::StagePlan stages, scheduler::PlanStages(plan));
    FLOE_ASSIGN_OR_RAISE(auto scheduler,
                         scheduler::QueryScheduler::Start(std::move(stages), Context()));
    std::vector<RecordBatchPtr> batches;
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, scheduler->Next());
      if (!batch) break;
      batches.push_back(std::move(batch));
    }
    return BatchRows(batches);
  }

  // Encode -> decode -> encode: the same bytes and EXPLAIN text (RoundTripPlan), and the
  // same shape. Returns the decoded plan.
  static PlanPtr RoundTrip(const PlanPtr& plan) {
    Result<PlanPtr> decoded = RoundTripPlan(plan, session::EnginePlanCodecs());
    EXPECT_OK(decoded.status());
    if (!decoded.ok()) return nullptr;
    EXPECT_NE(decoded->get(), plan.get());
    EXPECT_EQ((*decoded)->ToString(), plan->ToString());
    EXPECT_EQ((*decoded)->partition_count(), plan->partition_count());
    EXPECT_TRUE((*decoded)->schema()->Equals(*plan->schema()));
    std::string first = EncodePlanBytes(*plan, session::EnginePlanCodecs()).ValueOrDie();
    std::string second = EncodePlanBytes(**decoded, session::EnginePlanCodecs()).ValueOrDie();
    EXPECT_EQ(first, second);
    return *decoded;
  }
};

TEST_F(PlanCodecIcebergTest, RegistryHoldsTheScanAndWriteNodesAndTheTransform) {
  const PlanCodecRegistry& registry = session::EnginePlanCodecs();
  for (const char* name :
       {"ParquetScanExec", "IcebergScanExec", "IcebergWriteExec", "IcebergCommitExec"}) {
    const PlanCodecEntry* entry = registry.Find(name);
    ASSERT_NE(entry, nullptr) << name;
    EXPECT_EQ(entry->version, 1u);
  }
  EXPECT_NE(registry.exprs().Find("IcebergTransform"), nullptr);
}

TEST_F(PlanCodecIcebergTest, PartitionedScanWithFiltersAndResidualsReadsTheSameRows) {
  MakeEvents();
  ScanRequest request;
  request.projection = {0, 1, 2};
  request.filters = {Gt(0, "id", 3), InStrings(2, "name", {"d", "e", "i"})};
  PlanPtr plan = Scan("db.t", request);
  const auto& scan = static_cast<const connector::IcebergScanExec&>(*plan);
  ASSERT_TRUE(HasResidual(scan));
  EXPECT_NE(plan->ToString().find("filter=[id > 3 and name in ('d', 'e', 'i')]"), std::string::npos)
      << plan->ToString();
  PlanPtr decoded = RoundTrip(plan);
  ASSERT_NE(decoded, nullptr);
  const std::vector<std::string> expected{"10|2024-01-01 12:00:00|d", "4|2024-01-02 10:00:00|d",
                                          "5|2024-01-03 08:00:00|e", "9|2024-01-05 00:00:00|i"};
  EXPECT_EQ(Read(plan), expected);
  EXPECT_EQ(Read(decoded), expected);
  // The decoded scan holds the planned tasks (nothing planned again) over the same metadata.
  const auto& again = static_cast<const connector::IcebergScanExec&>(*decoded);
  EXPECT_EQ(again.parts().table.metadata_location, scan.parts().table.metadata_location);
  EXPECT_TRUE(again.parts().table.metadata->Equals(*scan.parts().table.metadata));
  // While a decoded plan holds it, the metadata file is not read again.
  ASSERT_OK_AND_ASSIGN(
      PlanPtr second,
      DecodePlanBytes(EncodePlanBytes(*plan, session::EnginePlanCodecs()).ValueOrDie(),
                      session::EnginePlanCodecs()));
  EXPECT_EQ(static_cast<const connector::IcebergScanExec&>(*second).parts().table.metadata,
            again.parts().table.metadata);
  ASSERT_EQ(again.parts().groups.size(), scan.parts().groups.size());
  for (size_t g = 0; g < scan.parts().groups.size(); ++g) {
    ASSERT_EQ(again.parts().groups[g].tasks.size(), scan.parts().groups[g].tasks.size());
    for (size_t t = 0; t < scan.parts().groups[g].tasks.size(); ++t) {
      const iceberg::FileScanTask& a = scan.parts().groups[g].tasks[t];
      const iceberg::FileScanTask& b = again.parts().groups[g].tasks[t];
      EXPECT_EQ(b.data_file->file_path, a.data_file->file_path);
      EXPECT_EQ(b.data_file->lower_bounds, a.data_file->lower_bounds);
      EXPECT_EQ(b.data_file->partition.size(), a.data_file->partition.size());
      EXPECT_EQ(b.spec->spec_id(), a.spec->spec_id());
      EXPECT_EQ(b.residual ? b.residual->ToString() : "", a.residual ? a.residual->ToString() : "");
    }
  }
}

TEST_F(PlanCodecIcebergTest, ProjectionLimitAndCountingScansRoundTrip) {
  MakeEvents();
  ScanRequest request;
  request.projection = {2, 0};
  request.limit = 3;
  PlanPtr plan = Scan("db.t", request, 1);
  PlanPtr decoded = RoundTrip(plan);
  ASSERT_NE(decoded, nullptr);
  EXPECT_NE(decoded->ToString().find("projection=[name, id] limit=3"), std::string::npos)
      << decoded->ToString();
  EXPECT_EQ(Read(decoded).size(), 3u);
  // count(*): no output columns.
  PlanPtr count = Scan("db.t", ScanRequest{}, 2);
  PlanPtr counted = RoundTrip(count);
  ASSERT_NE(counted, nullptr);
  Result<std::vector<RecordBatchPtr>> batches = CollectAll(counted, Context());
  ASSERT_OK(batches.status());
  int64_t rows = 0;
  for (const RecordBatchPtr& batch : *batches) rows += batch->num_rows();
  EXPECT_EQ(rows, 10);
}

TEST_F(PlanCodecIcebergTest, ScanOfAPinnedSnapshotKeepsItsSchema) {
  MakeEvents();
  const int64_t first = Load("db.t").metadata->snapshots.front().snapshot_id;
  Q("ALTER TABLE db.t ADD COLUMN score double precision");
  Q("INSERT INTO db.t VALUES (11, TIMESTAMP '2024-01-06 00:00:00', 'k', 1.5)");
  iceberg::SnapshotSelector selector;
  selector.snapshot_id = first;
  ScanRequest request;
  request.projection = {0, 2};
  PlanPtr plan = Scan("db.t", request, 2, selector);
  EXPECT_NE(plan->ToString().find(fmt::format("snapshot={}", first)), std::string::npos);
  PlanPtr decoded = RoundTrip(plan);
  ASSERT_NE(decoded, nullptr);
  const std::vector<std::string> expected{"1|a", "2|b",    "3|c", "4|d",
                                          "5|e", "6|NULL", "7|g", "8|h"};
  EXPECT_EQ(Read(decoded), expected);
  EXPECT_EQ(decoded->schema()->num_fields(), 2);
  // The current snapshot reads the new column.
  ScanRequest all;
  all.projection = {0, 3};
  PlanPtr current = RoundTrip(Scan("db.t", all, 2));
  ASSERT_NE(current, nullptr);
  EXPECT_EQ(Read(current).back(), "9|NULL");
  EXPECT_EQ(Read(current).front(), "10|NULL");
  std::vector<std::string> rows = Read(current);
  EXPECT_NE(std::find(rows.begin(), rows.end(), "11|1.5"), rows.end());
}

TEST_F(PlanCodecIcebergTest, SplitFilesRoundTrip) {
  Q("CREATE TABLE db.s (id bigint, name text) WITH (\"write.parquet.row-group-size-bytes\" = "
    "'4096', \"read.split.target-size\" = '4096')");
  Q("INSERT INTO db.s SELECT g, 'name-' || CAST(g AS text) FROM generate_series(1, 20000) AS x(g)");
  ScanRequest request;
  request.projection = {0, 1};
  request.filters = {Gt(0, "id", 19990)};
  PlanPtr plan = Scan("db.s", request, 4);
  const auto& scan = static_cast<const connector::IcebergScanExec&>(*plan);
  int split = 0;
  for (const iceberg::ScanTaskGroup& group : scan.parts().groups) {
    for (const iceberg::FileScanTask& task : group.tasks) split += task.is_whole_file() ? 0 : 1;
  }
  ASSERT_GT(split, 1) << plan->ToString();
  PlanPtr decoded = RoundTrip(plan);
  ASSERT_NE(decoded, nullptr);
  std::vector<std::string> rows = Read(decoded);
  EXPECT_EQ(rows, Read(plan));
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows.front(), "19991|name-19991");
}

// The cases over the shared fixture tables (registered only when they are present).
class PlanCodecIcebergFixtureTest : public PlanCodecIcebergTest {};

// Fixture tables with equality deletes, file-scoped position deletes and deletion vectors
// (v3: Puffin offsets, first row ids).
TEST_F(PlanCodecIcebergFixtureTest, ScansWithDeleteFilesReadTheSameRows) {
  if (!std::filesystem::exists(kFixtures))
    GTEST_FAIL() << "the fixtures are missing at " << kFixtures;
  const std::string duckdb = std::string(kFixtures) + "duckdb-iceberg";
  const std::string tables = std::string(kFixtures) + "iceberg-cxx/tests/tables/";
  struct Case {
    std::string metadata;
    std::shared_ptr<io::LocalFileIO> io;
    size_t rows;
  };
  std::vector<Case> cases{
      {duckdb + "/data/persistent/equality_deletes/warehouse/mydb/mytable_partitioned/metadata/"
                "v6.metadata.json",
       io::LocalFileIO::Make({}, duckdb).ValueOrDie(), 3},
      {tables + "granular_deletes",
       io::LocalFileIO::Make({"s3a://warehouse/=" + tables, "s3://warehouse/=" + tables})
           .ValueOrDie(),
       10},
      {tables + "deletion_vectors",
       io::LocalFileIO::Make({"s3a://warehouse/=" + tables, "s3://warehouse/=" + tables})
           .ValueOrDie(),
       8},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.metadata);
    ASSERT_OK_AND_ASSIGN(iceberg::Table table, iceberg::OpenTable(c.metadata, c.io));
    ScanRequest request;
    for (int i = 0; i < table.metadata->CurrentSchema()->num_fields(); ++i) {
      request.projection.push_back(i);
    }
    PlanPtr plan = ScanOf("fx.t", std::move(table), request, 2);
    EXPECT_GT(DeleteFiles(static_cast<const connector::IcebergScanExec&>(*plan)), 0);
    PlanPtr decoded = RoundTrip(plan);
    ASSERT_NE(decoded, nullptr);
    std::vector<std::string> rows = Read(decoded);
    EXPECT_EQ(rows, Read(plan));
    EXPECT_EQ(rows.size(), c.rows);
  }
}

// Partition tuples of every type (identity on 13 types, bucket, temporal transforms, NULL
// values, decimals), partition evolution and all primitive types travel and read back.
TEST_F(PlanCodecIcebergFixtureTest, FixtureTablesOfEveryPartitionTypeRoundTrip) {
  if (!std::filesystem::exists(kFixtures))
    GTEST_FAIL() << "the fixtures are missing at " << kFixtures;
  const std::string tables = std::string(kFixtures) + "iceberg-cxx/tests/tables/";
  auto io = io::LocalFileIO::Make({"s3a://warehouse/=" + tables, "s3://warehouse/=" + tables,
                                   "s3a://dl-test-maintenance/check/tea-partitioned/=" + tables})
                .ValueOrDie();
  const std::vector<std::pair<std::string, size_t>> cases{{"identity_partitioning", 1},
                                                          {"bucket_partitioning", 1},
                                                          {"decimal_partitioning", 1},
                                                          {"day_timestamptz_partitioning", 3},
                                                          {"hour_timestamptz_partitioning", 3},
                                                          {"partitioning_with_null_value", 4},
                                                          {"partition_evolution", 7},
                                                          {"types/all_trino_types", 1},
                                                          {"v_20240913/iceberg", 1}};
  for (const auto& [dir, expected] : cases) {
    SCOPED_TRACE(dir);
    ASSERT_OK_AND_ASSIGN(iceberg::Table table, iceberg::OpenTable(tables + dir, io));
    ScanRequest request;
    for (int i = 0; i < table.metadata->CurrentSchema()->num_fields(); ++i) {
      request.projection.push_back(i);
    }
    PlanPtr plan = ScanOf("fx.t", std::move(table), request, 2);
    PlanPtr decoded = RoundTrip(plan);
    ASSERT_NE(decoded, nullptr);
    std::vector<std::string> rows = Read(decoded);
    EXPECT_EQ(rows, Read(plan));
    EXPECT_EQ(rows.size(), expected);
  }
  // Identity partitions on float, binary, bigint, decimal(36,23), time, timestamps and
  // fixed[11], the partition columns absent from the data files.
  const std::string duckdb = std::string(kFixtures) + "duckdb-iceberg";
  auto relative = io::LocalFileIO::Make({}, duckdb).ValueOrDie();
  const std::vector<std::pair<std::string, size_t>> identity{
      {"partition_float", 2},
      {"partition_binary", 2},
      {"partition_bigint", 2},
      {"partition_decimal_hugeint", 15},
      {"partition_time/default.db/partition_time", 2},
      {"partition_timestamp/default.db/partition_timestamp", 2},
      {"partition_timestamptz/default.db/partition_timestamptz", 2},
      {"partition_fixed_length_binary/default.db/partition_fixed_length_binary", 2}};
  for (const auto& [dir, expected] : identity) {
    SCOPED_TRACE(dir);
    ASSERT_OK_AND_ASSIGN(iceberg::Table table,
                         iceberg::OpenTable(duckdb + "/data/persistent/" + dir, relative));
    ScanRequest request;
    for (int i = 0; i < table.metadata->CurrentSchema()->num_fields(); ++i) {
      request.projection.push_back(i);
    }
    PlanPtr plan = ScanOf("fx.t", std::move(table), request, 2);
    PlanPtr decoded = RoundTrip(plan);
    ASSERT_NE(decoded, nullptr);
    std::vector<std::string> rows = Read(decoded);
    EXPECT_EQ(rows, Read(plan));
    EXPECT_EQ(rows.size(), expected);
  }
}

TEST_F(PlanCodecIcebergTest, ParquetScanRoundTrips) {
  MakeEvents();
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
    if (entry.path().extension() == ".parquet") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  ASSERT_GE(paths.size(), 3u);
  auto table = connector::ParquetTable::Make(paths).ValueOrDie();
  ScanRequest request;
  request.projection = {2, 0};
  request.filters = {Gt(0, "id", 6)};
  PlanPtr plan = table->Scan(request, Config(2)).ValueOrDie();
  ASSERT_EQ(plan->name(), "ParquetScanExec");
  PlanPtr decoded = RoundTrip(plan);
  ASSERT_NE(decoded, nullptr);
  // Row groups that cannot hold id > 6 are skipped; rows are not filtered (a FilterExec is).
  const std::vector<std::string> rows = Read(decoded);
  EXPECT_EQ(rows, Read(plan));
  for (const char* row : {"g|7", "h|8", "i|9", "d|10"}) {
    EXPECT_NE(std::find(rows.begin(), rows.end(), row), rows.end()) << row;
  }
  const auto& scan = static_cast<const connector::ParquetScanExec&>(*decoded);
  for (const auto& group : scan.groups()) {
    for (const connector::ParquetFileRange& range : group) EXPECT_EQ(range.planned, nullptr);
  }
  request.filters.clear();
  request.limit = 2;
  PlanPtr original = table->Scan(request, Config(1)).ValueOrDie();
  PlanPtr limited = RoundTrip(original);
  ASSERT_NE(limited, nullptr);
  EXPECT_NE(limited->ToString().find("limit=2"), std::string::npos) << limited->ToString();
  EXPECT_EQ(Read(limited), Read(original));

  // Row groups out of order, a projection out of range: kCorrupt.
  pb::ParquetScanNode m = PayloadOf<pb::ParquetScanNode>(plan);
  ASSERT_GT(m.groups_size(), 0);
  pb::ParquetScanNode bad = m;
  bad.mutable_groups(0)->mutable_ranges(0)->add_row_groups(0);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "row groups are not ascending"));
  bad = m;
  bad.add_projection(7);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "plan node ParquetScanExec: projected column 7"));
  // A scan of local files only carries no FileIO.
  EXPECT_FALSE(m.has_io());
  EXPECT_EQ(scan.io(), nullptr);
}

// A scan with a FileIO (read_parquet of S3 paths) carries its S3 settings, credentials
// included, in the plan bytes only: the decoded scan has the same settings, and neither
// EXPLAIN nor an error shows the secret.
TEST_F(PlanCodecIcebergTest, ParquetScanCarriesItsFileIO) {
  MakeEvents();
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
    if (entry.path().extension() == ".parquet") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  io::S3FileIOOptions s3;
  s3.client.endpoint = "http://127.0.0.1:1";
  s3.client.region = "eu-west-1";
  s3.client.path_style = true;
  s3.client.credentials = {"AKIAEXAMPLEKEY12", "theSecretThatMustNotShow", "aSessionToken"};
  s3.part_size = int64_t{6} << 20;
  io::LocalFileIOOptions local;
  local.path_map.push_back(io::PathMapRule{"s3://mapped/", "/data/"});
  auto files = std::make_shared<io::ResolvingFileIO>(local, s3);
  ASSERT_OK_AND_ASSIGN(auto table, connector::ParquetTable::Make(paths, files));
  ScanRequest request;
  request.projection = {0};
  ASSERT_OK_AND_ASSIGN(PlanPtr plan, table->Scan(request, Config(2)));
  PlanPtr decoded = RoundTrip(plan);
  ASSERT_NE(decoded, nullptr);
  EXPECT_EQ(Read(decoded), Read(plan));
  const auto& scan = static_cast<const connector::ParquetScanExec&>(*decoded);
  const auto* resolving = dynamic_cast<const io::ResolvingFileIO*>(scan.io().get());
  ASSERT_NE(resolving, nullptr);
  ASSERT_TRUE(resolving->s3_options().has_value());
  const io::S3FileIOOptions& got = *resolving->s3_options();
  EXPECT_EQ(got.client.endpoint, s3.client.endpoint);
  EXPECT_EQ(got.client.region, s3.client.region);
  EXPECT_TRUE(got.client.path_style);
  EXPECT_EQ(got.client.credentials.access_key_id, "AKIAEXAMPLEKEY12");
  EXPECT_EQ(got.client.credentials.secret_access_key, "theSecretThatMustNotShow");
  EXPECT_EQ(got.client.credentials.session_token, "aSessionToken");
  EXPECT_EQ(got.part_size, int64_t{6} << 20);
  ASSERT_EQ(resolving->local().options().path_map.size(), 1u);
  EXPECT_EQ(resolving->local().options().path_map[0].to, "/data/");
  EXPECT_THAT(decoded->ToString(),
              ::testing::Not(::testing::HasSubstr("theSecretThatMustNotShow")));
  EXPECT_THAT(resolving->ToString(),
              ::testing::Not(::testing::HasSubstr("theSecretThatMustNotShow")));

  pb::ParquetScanNode m = PayloadOf<pb::ParquetScanNode>(plan);
  ASSERT_TRUE(m.has_io());
  EXPECT_EQ(m.io().kind(), "resolving");
  pb::ParquetScanNode bad = m;
  bad.mutable_io()->set_kind("gcs");
  EXPECT_THAT(
      DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
      IsErrorWith(StatusCode::kCorrupt, "plan node ParquetScanExec: unknown FileIO kind \"gcs\""));
  bad = m;
  bad.mutable_io()->mutable_path_map(0)->set_from("");
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "a path-map rule with an empty prefix"));
}

// Credentials that expire travel with their expiry; those a provider renews also with the
// id the receiver renews them through (here in one process: the provider the plan was made
// with), so the decoded scan's S3 client gets them renewed where the plan was made.
TEST_F(PlanCodecIcebergTest, ParquetScanCarriesTheExpiryAndRenewalOfItsCredentials) {
  MakeEvents();
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
    if (entry.path().extension() == ".parquet") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  const int64_t expires_ms = io::ToEpochMillis(std::chrono::system_clock::now()) + 3600 * 1000;
  io::S3FileIOOptions s3;
  s3.client.endpoint = "http://127.0.0.1:1";
  s3.client.path_style = true;
  s3.client.credentials = {"AKIAEXPIRING0001", "theSecretThatMustNotShow", "token-1"};
  s3.client.credentials_expire_at = io::FromEpochMillis(expires_ms);
  ScanRequest request;
  request.projection = {0};

  // Expiring credentials without a provider: the expiry alone.
  {
    ASSERT_OK_AND_ASSIGN(auto table, connector::ParquetTable::Make(
                                         paths, std::make_shared<io::ResolvingFileIO>(
                                                    io::LocalFileIOOptions{}, std::optional(s3))));
    ASSERT_OK_AND_ASSIGN(PlanPtr plan, table->Scan(request, Config(1)));
    pb::ParquetScanNode m = PayloadOf<pb::ParquetScanNode>(plan);
    EXPECT_EQ(m.io().s3().expires_at_ms(), expires_ms);
    EXPECT_EQ(m.io().s3().credentials_id(), 0u);
    PlanPtr decoded = RoundTrip(plan);
    ASSERT_NE(decoded, nullptr);
    const auto& scan = static_cast<const connector::ParquetScanExec&>(*decoded);
    const auto* resolving = dynamic_cast<const io::ResolvingFileIO*>(scan.io().get());
    ASSERT_NE(resolving, nullptr);
    EXPECT_EQ(resolving->s3_options()->client.credentials_expire_at,
              io::FromEpochMillis(expires_ms));
    EXPECT_EQ(resolving->s3_options()->client.credentials_provider, nullptr);
  }

  // Renewed credentials.
  int renewals = 0;
  auto provider = std::make_shared<io::CredentialsProvider>(
      io::ExpiringCredentials{s3.client.credentials, s3.client.credentials_expire_at},
      "table db.events",
      [&](const io::ExpiringCredentials& held) -> Result<io::ExpiringCredentials> {
        EXPECT_EQ(held.credentials.session_token, "token-1");
        ++renewals;
        return io::ExpiringCredentials{{"AKIAEXPIRING0002", "secret-2", "token-2"},
                                       io::FromEpochMillis(expires_ms + 3600 * 1000)};
      });
  s3.client.credentials_provider = provider;
  ASSERT_OK_AND_ASSIGN(auto table, connector::ParquetTable::Make(
                                       paths, std::make_shared<io::ResolvingFileIO>(
                                                  io::LocalFileIOOptions{}, std::optional(s3))));
  ASSERT_OK_AND_ASSIGN(PlanPtr plan, table->Scan(request, Config(2)));
  pb::ParquetScanNode m = PayloadOf<pb::ParquetScanNode>(plan);
  EXPECT_EQ(m.io().s3().session_token(), "token-1");
  EXPECT_EQ(m.io().s3().expires_at_ms(), expires_ms);
  EXPECT_EQ(m.io().s3().credentials_id(), io::ShareCredentials(provider));
  EXPECT_EQ(m.io().s3().credentials_of(), "table db.events");
  PlanPtr decoded = RoundTrip(plan);  // encoding it again names the same provider
  ASSERT_NE(decoded, nullptr);
  EXPECT_EQ(Read(decoded), Read(plan));
  const auto& scan = static_cast<const connector::ParquetScanExec&>(*decoded);
  const auto* resolving = dynamic_cast<const io::ResolvingFileIO*>(scan.io().get());
  ASSERT_NE(resolving, nullptr);
  const io::S3Options& got = resolving->s3_options()->client;
  EXPECT_EQ(got.credentials.session_token, "token-1");
  EXPECT_EQ(got.credentials_expire_at, io::FromEpochMillis(expires_ms));
  ASSERT_NE(got.credentials_provider, nullptr);
  EXPECT_NE(got.credentials_provider, provider);
  EXPECT_TRUE(got.credentials_provider->refreshes());
  EXPECT_EQ(got.credentials_provider->what(), "table db.events");
  // The receiver holds token-1 and asks for newer ones: the maker's provider renews them.
  ASSERT_OK_AND_ASSIGN(io::ExpiringCredentials renewed,
                       got.credentials_provider->NewerThan(io::FromEpochMillis(expires_ms)));
  EXPECT_EQ(renewed.credentials.session_token, "token-2");
  EXPECT_EQ(renewals, 1);
  EXPECT_EQ(provider->Peek().credentials.session_token, "token-2");
  EXPECT_THAT(decoded->ToString(),
              ::testing::Not(::testing::HasSubstr("theSecretThatMustNotShow")));

  pb::ParquetScanNode bad = m;
  bad.mutable_io()->mutable_s3()->set_expires_at_ms(0);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "renewed S3 credentials without an expiry"));
}

TEST_F(PlanCodecIcebergTest, IcebergExpressionsOfEveryOperationRoundTrip) {
  std::vector<Field> fields{Field("id", Int64(), true, 1), Field("name", String(), true, 2),
                            Field("x", Float64(), true, 3), Field("req", Int32(), false, 4)};
  iceberg::SchemaPtr schema = iceberg::Schema::Make(7, fields).ValueOrDie();
  using iceberg::Expression;
  using iceberg::Operation;
  auto pred = [](Operation op, std::string column, std::vector<Scalar> literals = {}) {
    return Expression::Make(op, std::move(column), std::move(literals));
  };
  std::vector<iceberg::ExpressionPtr> unbound{
      Expression::True(),
      Expression::False(),
      pred(Operation::kIn, "id", {Scalar::I64(3), Scalar::I64(1), Scalar::I64(2)}),
      pred(Operation::kNotIn, "name", {Scalar::Str("a"), Scalar::Str("b")}),
      pred(Operation::kStartsWith, "name", {Scalar::Str("ab")}),
      pred(Operation::kNotStartsWith, "name", {Scalar::Str("ab")}),
      pred(Operation::kIsNull, "name"),
      pred(Operation::kNotNull, "id"),
      pred(Operation::kIsNan, "x"),
      pred(Operation::kNotNan, "x"),
      Expression::And(
          Expression::And(pred(Operation::kLt, "id", {Scalar::I64(10)}),
                          pred(Operation::kLtEq, "req", {Scalar::I32(4)})),
          Expression::Or(pred(Operation::kGt, "x", {Scalar::F64(1.5)}),
                         Expression::Not(pred(Operation::kEq, "name", {Scalar::Str("z")})))),
      Expression::Or(pred(Operation::kGtEq, "id", {Scalar::I64(-1)}),
                     pred(Operation::kNotEq, "id", {Scalar::I64(7)})),
      Expression::Predicate(Operation::kEq,
                            iceberg::Term::Ref("id", iceberg::Transform::Bucket(16)),
                            {Scalar::I32(3)})
          .ValueOrDie(),
      Expression::Predicate(Operation::kEq,
                            iceberg::Term::Ref("name", iceberg::Transform::Truncate(2)),
                            {Scalar::Str("ab")})
          .ValueOrDie(),
  };
  for (const iceberg::ExpressionPtr& e : unbound) {
    SCOPED_TRACE(e->ToString());
    ASSERT_OK_AND_ASSIGN(iceberg::ExpressionPtr bound, iceberg::Bind(e, *schema, true));
    for (const iceberg::ExpressionPtr& form : {e, bound}) {
      pb::IcebergExpression m;
      ASSERT_OK(codec::EncodeIcebergExpression(*form, &m));
      ASSERT_OK_AND_ASSIGN(iceberg::ExpressionPtr decoded,
                           codec::DecodeIcebergExpression(m, *schema));
      // Unbound expressions bind on decode; bound ones bind again by field id.
      EXPECT_TRUE(decoded->Equals(*bound)) << decoded->ToString();
      EXPECT_EQ(decoded->ToString(), bound->ToString());
      pb::IcebergExpression again;
      ASSERT_OK(codec::EncodeIcebergExpression(*decoded, &again));
      if (form == bound) {
        EXPECT_EQ(again.SerializeAsString(), m.SerializeAsString());
      }
    }
  }
  // A long conjunction does not nest one message per operand.
  iceberg::ExpressionPtr chain = pred(Operation::kGt, "id", {Scalar::I64(0)});
  for (int i = 1; i < 500; ++i) {
    chain = Expression::And(chain, pred(Operation::kNotEq, "id", {Scalar::I64(i)}));
  }
  ASSERT_OK_AND_ASSIGN(iceberg::ExpressionPtr bound_chain, iceberg::Bind(chain, *schema, true));
  pb::IcebergExpression m;
  ASSERT_OK(codec::EncodeIcebergExpression(*bound_chain, &m));
  EXPECT_EQ(m.args_size(), 500);
  pb::IcebergExpression parsed;
  ASSERT_TRUE(parsed.ParseFromString(m.SerializeAsString()));
  ASSERT_OK_AND_ASSIGN(iceberg::ExpressionPtr decoded,
                       codec::DecodeIcebergExpression(parsed, *schema));
  EXPECT_TRUE(decoded->Equals(*bound_chain));

  // Errors name what is wrong.
  pb::IcebergExpression bad;
  ASSERT_OK(codec::EncodeIcebergExpression(
      *iceberg::Bind(pred(Operation::kEq, "id", {Scalar::I64(1)}), *schema, true).ValueOrDie(),
      &bad));
  pb::IcebergExpression unknown_id = bad;
  unknown_id.mutable_term()->set_field_id(99);
  EXPECT_THAT(codec::DecodeIcebergExpression(unknown_id, *schema),
              IsErrorWith(StatusCode::kCorrupt, "schema 7 has no field id 99"));
  pb::IcebergExpression renamed = bad;
  renamed.mutable_term()->set_name("other");
  EXPECT_THAT(codec::DecodeIcebergExpression(renamed, *schema),
              IsErrorWith(StatusCode::kCorrupt, "field id 1 is \"id\" in schema 7, not \"other\""));
  pb::IcebergExpression mistyped = bad;
  ASSERT_OK(codec::EncodeScalar(Scalar::Str("1"), mistyped.mutable_literals(0)));
  EXPECT_THAT(codec::DecodeIcebergExpression(mistyped, *schema),
              IsErrorWith(StatusCode::kCorrupt, "has a literal value of type string"));
  pb::IcebergExpression no_literal = bad;
  no_literal.clear_literals();
  EXPECT_THAT(codec::DecodeIcebergExpression(no_literal, *schema), IsError(StatusCode::kCorrupt));
  pb::IcebergExpression transform = bad;
  transform.mutable_term()->set_transform("zorder[3]");
  EXPECT_THAT(codec::DecodeIcebergExpression(transform, *schema),
              IsErrorWith(StatusCode::kCorrupt, "unknown transform \"zorder[3]\""));
  pb::IcebergExpression op = bad;
  op.set_op(static_cast<pb::IcebergExpression::Op>(77));
  EXPECT_THAT(codec::DecodeIcebergExpression(op, *schema),
              IsErrorWith(StatusCode::kCorrupt, "unknown operation 77"));
  pb::IcebergExpression nan;
  ASSERT_OK(codec::EncodeIcebergExpression(
      *iceberg::Bind(pred(Operation::kIsNan, "x"), *schema, true).ValueOrDie(), &nan));
  nan.mutable_term()->set_field_id(1);
  nan.mutable_term()->set_name("id");
  EXPECT_THAT(codec::DecodeIcebergExpression(nan, *schema),
              IsErrorWith(StatusCode::kCorrupt, "NaN test on \"id\""));
  pb::IcebergExpression lonely_and;
  lonely_and.set_op(pb::IcebergExpression::OP_AND);
  *lonely_and.add_args() = bad;
  EXPECT_THAT(codec::DecodeIcebergExpression(lonely_and, *schema),
              IsErrorWith(StatusCode::kCorrupt, "AND with 1 operands"));
}

TEST_F(PlanCodecIcebergTest, MalformedScanPayloadsFailClearly) {
  MakeEvents();
  ScanRequest request;
  request.projection = {0, 1, 2};
  request.filters = {Gt(0, "id", 3)};
  PlanPtr plan = Scan("db.t", request, 2);
  const pb::IcebergScanNode m = PayloadOf<pb::IcebergScanNode>(plan);
  ASSERT_GT(m.files_size(), 0);
  ASSERT_TRUE(m.has_filter());

  pb::IcebergScanNode bad = m;
  bad.mutable_table()->set_metadata_location(dir_ + "/db/t/metadata/missing.metadata.json");
  // A file this process cannot read is an I/O error here, not a corrupt plan.
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kIOError,
                          "plan node IcebergScanExec: cannot read the metadata file " + dir_ +
                              "/db/t/metadata/missing.metadata.json of table db.t: file"));
  bad = m;
  bad.mutable_table()->set_metadata_location(dir_);
  EXPECT_THAT(
      DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
      IsErrorWith(StatusCode::kIOError,
                  " of table db.t: " + std::filesystem::path(dir_).lexically_normal().string() +
                      " is not a regular file"));
  bad = m;
  bad.mutable_table()->set_table_uuid("not-the-table");
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "is not the one the plan pinned for table db.t"));
  bad = m;
  bad.mutable_groups(0)->mutable_tasks(0)->set_data_file(99);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "a task names file 99 of"));
  bad = m;
  bad.mutable_groups(0)->mutable_tasks(0)->set_spec_id(42);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "names partition spec 42, which the table lacks"));
  bad = m;
  ASSERT_TRUE(m.filter().has_term());
  bad.mutable_filter()->mutable_term()->set_field_id(55);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "the scan's filter: Iceberg predicate"));
  bad = m;
  bad.set_schema_id(9);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "the scan reads schema 9"));
  bad = m;
  bad.mutable_snapshot_id()->set_value(12345);
  bad.set_pinned(true);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "table db.t has no snapshot 12345"));
  bad = m;
  bad.add_projection(5);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "projected column 5 of 3"));
  bad = m;
  bad.mutable_limit()->set_value(-2);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "negative limit"));
  bad = m;
  bad.mutable_files(0)->set_file_format("CSV");
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "unknown file format \"CSV\""));
  bad = m;
  bad.mutable_files(0)->set_record_count(-1);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "negative record count"));
  bad = m;
  bad.mutable_table()->mutable_io()->set_kind("s3");
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "unknown FileIO kind \"s3\""));
  bad = m;
  bad.mutable_projected_field_ids()->Clear();
  bad.add_projected_field_ids(1);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "the projected field ids select"));
  bad = m;
  ASSERT_GT(bad.filters(0).args_size(), 0);
  bad.mutable_filters(0)->mutable_args(0)->set_column(17);
  EXPECT_THAT(DecodePlan(WithPayload(plan, bad), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "does not apply to the scan's columns"));

  // Garbage, and every truncation of the payload: an error or a valid plan, never a crash.
  pb::PlanNode envelope = EncodePlan(*plan, session::EnginePlanCodecs()).ValueOrDie();
  envelope.set_payload("\xff\xff\xff");
  EXPECT_THAT(DecodePlan(envelope, session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "is not a valid"));
  const std::string payload = m.SerializeAsString();
  const size_t step = std::max<size_t>(1, payload.size() / 150);
  for (size_t n = 0; n < payload.size(); n += step) {
    envelope.set_payload(payload.substr(0, n));
    Result<PlanPtr> decoded = DecodePlan(envelope, session::EnginePlanCodecs());
    if (!decoded.ok()) {
      EXPECT_FALSE(decoded.status().message().empty());
    }
  }
  // A metadata file of another table under the pinned name.
  const std::string location = m.table().metadata_location();
  Q("CREATE TABLE db.other (id bigint)");
  const std::string other = Load("db.other").metadata_location;
  std::filesystem::copy_file(other, location, std::filesystem::copy_options::overwrite_existing);
  EXPECT_THAT(DecodePlan(EncodePlan(*plan, session::EnginePlanCodecs()).ValueOrDie(),
                         session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "is not the one the plan pinned for table db.t"));
}

TEST_F(PlanCodecIcebergTest, TransformExpressionsRoundTripAndRejectUnknownTransforms) {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field("id", Int64()), Field("ts", Timestamp()), Field("name", String())});
  codec::PhysicalExprDecodeFn decode = session::EnginePlanCodecs().exprs().Find("IcebergTransform");
  ASSERT_NE(decode, nullptr);
  struct Case {
    iceberg::Transform transform;
    int column;
    std::string text;
  };
  for (const Case& c : std::vector<Case>{{iceberg::Transform::Bucket(16), 0, "bucket(16, id)"},
                                         {iceberg::Transform::Day(), 1, "day(ts)"},
                                         {iceberg::Transform::Truncate(3), 2, "truncate(3, name)"},
                                         {iceberg::Transform::Identity(), 2, "name"}}) {
    ASSERT_OK_AND_ASSIGN(expr::PhysicalExprPtr e,
                         connector::IcebergTransformExpr::Make(c.transform, c.column, schema));
    ASSERT_OK_AND_ASSIGN(expr::PhysicalExprPtr decoded, decode(e->source(), schema));
    EXPECT_EQ(decoded->name(), "IcebergTransform");
    EXPECT_EQ(decoded->ToString(), e->ToString());
    EXPECT_EQ(decoded->ToString(), c.text);
    EXPECT_TRUE(decoded->type()->Equals(*e->type()));
  }
  auto call = [](std::string transform, expr::ExprPtr column) {
    return expr::Call("iceberg_transform",
                      {expr::Literal(Scalar::Str(std::move(transform))), column}, Int32());
  };
  EXPECT_THAT(decode(call("zorder", expr::Column(0, "id", Int64())), schema),
              IsErrorWith(StatusCode::kCorrupt, "unknown Iceberg transform \"zorder\""));
  EXPECT_THAT(decode(call("bucket[0]", expr::Column(0, "id", Int64())), schema),
              IsErrorWith(StatusCode::kCorrupt, "unknown Iceberg transform \"bucket[0]\""));
  EXPECT_THAT(decode(call("bucket[4]", expr::Column(5, "id", Int64())), schema),
              IsErrorWith(StatusCode::kCorrupt, "must be an input column"));
  EXPECT_THAT(decode(call("bucket[4]", expr::Column(0, "id", String())), schema),
              IsErrorWith(StatusCode::kCorrupt, "column #0 is int64 here, string in the plan"));
  EXPECT_THAT(decode(call("day", expr::Column(2, "name", String())), schema),
              IsErrorWith(StatusCode::kCorrupt, "transform day cannot apply"));
  EXPECT_THAT(decode(expr::Column(0, "id", Int64()), schema),
              IsErrorWith(StatusCode::kCorrupt, "must be iceberg_transform"));
}

class PlanCodecWriteTest : public PlanCodecIcebergTest {
 protected:
  // The enforced write plan of db.t's rows into `table`, as INSERT plans it.
  PlanPtr PlanWrite(
      const std::string& table, connector::IcebergWriteTargetPtr* target_out,
      connector::IcebergWriteTarget::Mode mode = connector::IcebergWriteTarget::Mode::kAppend) {
    auto id = catalog::TableIdentifier::Parse(table).ValueOrDie();
    connector::IcebergWriteTargetPtr target =
        connector::MakeWriteTarget(table, Load(table), catalog_->TableOps(id), mode).ValueOrDie();
    ScanRequest request;
    request.projection = {0, 1, 2};
    PlanPtr write = connector::PlanIcebergWrite(target, Scan("db.t", request, 3)).ValueOrDie();
    if (target_out != nullptr) *target_out = target;
    return EnforceRequirements(write, Config(3)).ValueOrDie();
  }
};

TEST_F(PlanCodecWriteTest, PartitionedWriteRoundTripsAndCommitsOnce) {
  MakeEvents();
  Q("CREATE TABLE db.w (id bigint, ts timestamp, name text) WITH (partitioning = "
    "'bucket(4, id), day(ts)')");
  connector::IcebergWriteTargetPtr target;
  PlanPtr plan = PlanWrite("db.w", &target);
  // The rows of one partition tuple meet in one writer: Hash over the transforms.
  PlanPtr repartition = Find(plan, "RepartitionExec");
  ASSERT_NE(repartition, nullptr) << plan->ToString();
  const Partitioning& hash = repartition->properties().partitioning;
  ASSERT_EQ(hash.kind(), Partitioning::Kind::kHash);
  ASSERT_EQ(hash.exprs().size(), 2u);
  EXPECT_EQ(hash.exprs()[0]->name(), "IcebergTransform");

  PlanPtr decoded = RoundTrip(plan);
  ASSERT_NE(decoded, nullptr);
  EXPECT_EQ(ExplainText(decoded), ExplainText(plan));
  // Decoded in the process that planned it, the target is the planned one (its catalog
  // connection and write journal).
  const auto& write =
      static_cast<const connector::IcebergWriteExec&>(*Find(decoded, "IcebergWriteExec"));
  EXPECT_EQ(write.target(), target);
  const auto& commit =
      static_cast<const connector::IcebergCommitExec&>(*Find(decoded, "IcebergCommitExec"));
  EXPECT_EQ(commit.target(), target);
  EXPECT_EQ(write.partition_exprs().size(), 2u);
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> count, RunStages(decoded));
  EXPECT_EQ(count, std::vector<std::string>{"10"});
  EXPECT_EQ(Q("SELECT count(*), sum(id), count(name) FROM db.w"),
            std::vector<std::string>{"10|55|9"});
  EXPECT_EQ(Load("db.w").metadata->snapshots.size(), 1u);
  // One file per partition tuple: each tuple's rows met in one writer.
  EXPECT_EQ(Q("SELECT count(*) FROM \"db\".\"w$files\""),
            Q("SELECT count(*) FROM \"db\".\"w$partitions\""));
}

TEST_F(PlanCodecWriteTest, ClusteredWritesAndOtherModesRoundTrip) {
  MakeEvents();
  Q("CREATE TABLE db.c (id bigint, ts timestamp, name text) WITH (partitioning = 'day(ts)', "
    "\"write.fanout.enabled\" = 'false', sorted_by = 'id')");
  connector::IcebergWriteTargetPtr target;
  PlanPtr plan =
      PlanWrite("db.c", &target, connector::IcebergWriteTarget::Mode::kReplacePartitions);
  ASSERT_NE(Find(plan, "SortExec"), nullptr) << plan->ToString();
  EXPECT_NE(plan->ToString().find("(replace partitions)"), std::string::npos);
  PlanPtr decoded = RoundTrip(plan);
  ASSERT_NE(decoded, nullptr);
  EXPECT_EQ(ExplainText(decoded), ExplainText(plan));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> count, RunStages(decoded));
  EXPECT_EQ(count, std::vector<std::string>{"10"});
  EXPECT_EQ(Q("SELECT id FROM db.c WHERE ts < TIMESTAMP '2024-01-02 00:00:00'"),
            (std::vector<std::string>{"1", "10", "2"}));
}

TEST_F(PlanCodecWriteTest, WriteTargetsRebuiltElsewhereWriteButDoNotCommit) {
  MakeEvents();
  Q("CREATE TABLE db.w (id bigint, ts timestamp, name text) WITH (partitioning = "
    "'bucket(4, id), day(ts)')");
  std::string write_bytes;
  std::string commit_bytes;
  std::string write_text;
  std::string operation_id;
  pb::IcebergWriteNode message;
  {
    connector::IcebergWriteTargetPtr target;
    PlanPtr plan = PlanWrite("db.w", &target);
    PlanPtr write = Find(plan, "IcebergWriteExec");
    write_bytes = EncodePlanBytes(*write, session::EnginePlanCodecs()).ValueOrDie();
    commit_bytes = EncodePlanBytes(*plan, session::EnginePlanCodecs()).ValueOrDie();
    write_text = ExplainText(write);
    operation_id = target->operation_id;
    message = PayloadOf<pb::IcebergWriteNode>(write);
    // While the plan lives, a target that differs from it is refused.
    pb::IcebergWriteNode changed = message;
    changed.mutable_target()->set_fanout(false);
    EXPECT_THAT(DecodePlan(WithPayload(write, changed), session::EnginePlanCodecs()),
                IsErrorWith(StatusCode::kCorrupt, "differs from the one planned in this process"));
  }
  // The planning process's plan and target are gone: as in another process.
  ASSERT_OK_AND_ASSIGN(PlanPtr write, DecodePlanBytes(write_bytes, session::EnginePlanCodecs()));
  EXPECT_EQ(ExplainText(write), write_text);
  EXPECT_EQ(EncodePlanBytes(*write, session::EnginePlanCodecs()).ValueOrDie(), write_bytes);
  const auto& node = static_cast<const connector::IcebergWriteExec&>(*write);
  EXPECT_EQ(node.target()->operation_id, operation_id);
  EXPECT_EQ(node.target()->table.metadata_location, Load("db.w").metadata_location);
  EXPECT_THAT(node.target()->ops->Commit({}, {}),
              IsErrorWith(StatusCode::kNotSupported, "only the planning process commits"));
  EXPECT_THAT(DecodePlanBytes(commit_bytes, session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kNotSupported,
                          "plan node IcebergCommitExec: the commit of operation " + operation_id +
                              " to table db.w can only run in the process that planned it"));
  // A schema, spec or properties that the base metadata file does not hold.
  pb::IcebergWriteNode changed = message;
  changed.mutable_target()->set_operation_id("another-operation");
  changed.mutable_target()->set_schema_json("{}");
  EXPECT_THAT(DecodePlan(WithPayload(write, changed), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "the schema of table db.w in"));
  changed = message;
  changed.mutable_target()->set_operation_id("another-operation");
  auto* property = changed.mutable_target()->add_properties();
  property->set_key("zzz");
  property->set_value("1");
  EXPECT_THAT(DecodePlan(WithPayload(write, changed), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "the properties of table db.w in"));
  changed = message;
  changed.mutable_target()->set_operation_id("");
  EXPECT_THAT(DecodePlan(WithPayload(write, changed), session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "without an operation id"));
}

TEST_F(PlanCodecWriteTest, UnknownTransformInAPartitioningIsCorrupt) {
  MakeEvents();
  Q("CREATE TABLE db.w (id bigint, ts timestamp, name text) WITH (partitioning = 'bucket(4, id)')");
  PlanPtr plan = PlanWrite("db.w", nullptr);
  pb::PlanNode envelope = EncodePlan(*plan, session::EnginePlanCodecs()).ValueOrDie();
  // Find the repartition's envelope and rename its transform.
  std::function<pb::PlanNode*(pb::PlanNode*)> find = [&](pb::PlanNode* node) -> pb::PlanNode* {
    if (node->name() == "RepartitionExec") return node;
    for (pb::PlanNode& child : *node->mutable_children()) {
      if (pb::PlanNode* found = find(&child)) return found;
    }
    return nullptr;
  };
  pb::PlanNode* repartition = find(&envelope);
  ASSERT_NE(repartition, nullptr);
  pb::RepartitionNode m;
  ASSERT_TRUE(m.ParseFromString(repartition->payload()));
  ASSERT_EQ(m.partitioning().exprs_size(), 1);
  pb::Expr* literal = m.mutable_partitioning()->mutable_exprs(0)->mutable_source()->mutable_args(0);
  ASSERT_EQ(literal->literal().string_value(), "bucket[4]");
  literal->mutable_literal()->set_string_value("zorder");
  repartition->set_payload(m.SerializeAsString());
  EXPECT_THAT(DecodePlan(envelope, session::EnginePlanCodecs()),
              IsErrorWith(StatusCode::kCorrupt, "unknown Iceberg transform \"zorder\""));
}

TEST_F(PlanCodecWriteTest, SqlWithCodecRoundTripOn) {
  MakeEvents();
  Q("CREATE TABLE db.w (id bigint, ts timestamp, name text) WITH (partitioning = "
    "'bucket(4, id), day(ts)')");
  Q("SET codec_roundtrip = on");
  EXPECT_EQ(Q("INSERT INTO db.w SELECT id, ts, name FROM db.t WHERE id > 2"),
            std::vector<std::string>{});
  EXPECT_EQ(Q("SELECT id, name FROM db.w WHERE id > 5 AND name IN ('g', 'i', 'h')"),
            (std::vector<std::string>{"7|g", "8|h", "9|i"}));
  EXPECT_EQ(Q("SELECT count(*) FROM db.w"), std::vector<std::string>{"8"});
}

// A failed statement deletes the files it wrote also when its stages went through the codec:
// the decoded writers record them in the planned target's journal.
TEST_F(PlanCodecWriteTest, FailedInsertThroughTheCodecLeavesNoFile) {
  Q("CREATE TABLE db.r (id bigint NOT NULL, name text) WITH (partitioning = 'bucket(2, id)')");
  Q("SET codec_roundtrip = on");
  Q("INSERT INTO db.r VALUES (1, 'a'), (2, 'b')");
  auto data_files = [&] {
    int files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
      if (entry.path().extension() == ".parquet") ++files;
    }
    return files;
  };
  const int before = data_files();
  ASSERT_GT(before, 0);
  auto result = session_->Execute(
      "INSERT INTO db.r SELECT CASE WHEN g = 500 THEN NULL ELSE g END, 'x' FROM "
      "generate_series(1, 1000) AS s(g)");
  Status status = result.ok() ? Rows(**result).status() : result.status();
  EXPECT_THAT(status, IsError(StatusCode::kConstraint)) << status.ToString();
  EXPECT_EQ(data_files(), before);
  EXPECT_EQ(Q("SELECT id, name FROM db.r"), (std::vector<std::string>{"1|a", "2|b"}));
  EXPECT_EQ(Load("db.r").metadata->snapshots.size(), 1u);
}

// Encoded scan bytes read the files planned then, whatever was committed since.
TEST_F(PlanCodecIcebergTest, DecodedScanReadsThePlannedSnapshotAfterLaterCommits) {
  MakeEvents();
  ScanRequest request;
  request.projection = {0};
  std::string bytes =
      EncodePlanBytes(*Scan("db.t", request, 2), session::EnginePlanCodecs()).ValueOrDie();
  Q("INSERT INTO db.t VALUES (11, TIMESTAMP '2024-02-01 00:00:00', 'x')");
  ASSERT_OK_AND_ASSIGN(PlanPtr decoded, DecodePlanBytes(bytes, session::EnginePlanCodecs()));
  EXPECT_EQ(Read(decoded),
            (std::vector<std::string>{"1", "10", "2", "3", "4", "5", "6", "7", "8", "9"}));
  EXPECT_EQ(Q("SELECT count(*) FROM db.t"), std::vector<std::string>{"11"});
}

}  // namespace
}  // namespace floe::connector
