// The Iceberg scan node over tables written with the Iceberg library into a scratch
// warehouse, where SQL cannot reach: the planned groups (each file in exactly one partition,
// regression list 1), partitions read with and without a thread pool and dropped half-way,
// batch sizes, statistics, exact counts from the manifests once the data files are gone
// (12), output orderings and the plans that use them (EXPLAIN of a scan names its snapshot
// id, which a .test file cannot pin for a table it writes), a session of one thread, and
// scans that are cancelled or lose a file (13). The rows these scans give through SQL are
// checked by test/sql/iceberg/scan_*.test.

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/catalog/catalog.h"
#include "floe/common/thread_pool.h"
#include "floe/connector/iceberg/iceberg_table.h"
#include "floe/connector/iceberg/tests/iceberg_session_fixture.h"
#include "floe/iceberg/partitioned_writer.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/session/session.h"
#include "floe/testing/batch_rows.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scratch_dir.h"

namespace floe::connector {
namespace {

using exec::BatchStreamPtr;
using exec::MemoryManager;
using exec::OrderingToString;
using exec::PlanPtr;
using exec::ScanRequest;
using exec::SessionConfig;
using exec::TaskContext;
using exec::TaskContextPtr;

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

using ::floe::testing::BatchRows;

std::vector<std::string> Sorted(std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

class IcebergScanTest : public IcebergSessionTest {
 protected:
  IcebergScanTest() : IcebergSessionTest("floe_exec_iceberg_scan") {}

  // The EXPLAIN line of the Iceberg scan.
  std::string ScanLine(const std::string& query) {
    Result<std::vector<std::string>> lines = Run("EXPLAIN " + query);
    EXPECT_OK(lines.status());
    if (!lines.ok()) return "";
    for (const std::string& line : *lines) {
      if (line.find("IcebergScanExec") != std::string::npos) return line;
    }
    return "";
  }

  std::string Explain(const std::string& query) {
    Result<std::vector<std::string>> lines = Run("EXPLAIN " + query);
    EXPECT_OK(lines.status());
    std::string text;
    if (lines.ok()) {
      for (const std::string& line : *lines) text += line + "\n";
    }
    return text;
  }

  // Writes one data file per entry of `files` (rows of (id, part); part NULL when
  // `parts` is empty) and commits them in one append. `sort_order_id` is recorded on the
  // files when set.
  std::vector<iceberg::DataFile> Append(const std::string& name,
                                        const std::vector<std::vector<int64_t>>& files,
                                        const std::vector<int32_t>& parts = {},
                                        std::optional<int32_t> sort_order_id = std::nullopt) {
    iceberg::Table table = Load(name);
    std::vector<iceberg::DataFile> written;
    for (size_t f = 0; f < files.size(); ++f) {
      iceberg::PartitionedWriterOptions options =
          iceberg::WriterOptionsForTable(*table.metadata, table.io).ValueOrDie();
      options.sort_order_id = sort_order_id;
      options.task_id = static_cast<int64_t>(f);
      auto writer = iceberg::MakePartitionedWriter(options, true).ValueOrDie();
      const SchemaPtr& schema = table.metadata->CurrentSchema()->columns();
      Int64Builder ids(Int64());
      Int32Builder part_values(Int32());
      for (int64_t id : files[f]) {
        EXPECT_OK(ids.Append(id));
        if (parts.empty()) {
          EXPECT_OK(part_values.AppendNull());
        } else {
          EXPECT_OK(part_values.Append(parts[f]));
        }
      }
      RecordBatchPtr batch =
          RecordBatch::Make(schema, static_cast<int64_t>(files[f].size()),
                            {ids.Finish().ValueOrDie(), part_values.Finish().ValueOrDie()})
              .ValueOrDie();
      EXPECT_OK(writer->Write(*batch));
      for (iceberg::DataFile& file : writer->Close().ValueOrDie()) written.push_back(file);
    }
    auto append = iceberg::FastAppend::Make(
        catalog_->TableOps(catalog::TableIdentifier::Parse(name).ValueOrDie()));
    for (const iceberg::DataFile& file : written) {
      append->AppendFile(std::make_shared<const iceberg::DataFile>(file));
    }
    EXPECT_OK(append->Commit().status());
    return written;
  }

  // The scan plan of `name` for all columns, with `config`.
  PlanPtr PlanScan(const std::string& name, const SessionConfig& config,
                   std::vector<int> projection = {0, 1}) {
    auto table = connector::IcebergTable::Make(name, Load(name)).ValueOrDie();
    ScanRequest request;
    request.projection = std::move(projection);
    return table->Scan(request, config).ValueOrDie();
  }

  TaskContextPtr Context(SessionConfig config, ThreadPool* threads) {
    return std::make_shared<TaskContext>(std::move(config), std::make_shared<MemoryManager>(0),
                                         threads, dir_, nullptr);
  }

  // Every batch of one partition.
  Result<std::vector<RecordBatchPtr>> Partition(const PlanPtr& plan, int p,
                                                const TaskContextPtr& ctx) {
    FLOE_ASSIGN_OR_RAISE(BatchStreamPtr stream, plan->Execute(p, ctx));
    std::vector<RecordBatchPtr> batches;
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
      if (!batch) break;
      batches.push_back(std::move(batch));
    }
    return batches;
  }

  std::vector<std::string> PartitionRows(const PlanPtr& plan, int p, const TaskContextPtr& ctx) {
    Result<std::vector<RecordBatchPtr>> batches = Partition(plan, p, ctx);
    EXPECT_OK(batches.status());
    std::vector<std::string> rows;
    if (!batches.ok()) return rows;
    for (const RecordBatchPtr& batch : *batches) {
      for (std::string& row : BatchRows(*batch)) rows.push_back(std::move(row));
    }
    return rows;
  }
};

// Ten files of 1..10 rows: ids f*100 + r.
std::vector<std::vector<int64_t>> TenFiles() {
  std::vector<std::vector<int64_t>> files;
  for (int64_t f = 0; f < 10; ++f) {
    std::vector<int64_t> ids;
    for (int64_t r = 0; r <= f; ++r) ids.push_back(f * 100 + r);
    files.push_back(ids);
  }
  return files;
}

std::vector<std::string> TenFileRows() {
  std::vector<std::string> rows;
  for (int64_t f = 0; f < 10; ++f) {
    for (int64_t r = 0; r <= f; ++r) rows.push_back(std::to_string(f * 100 + r) + "|NULL");
  }
  return Sorted(rows);
}

TEST_F(IcebergScanTest, TenFilesFourTargetPartitionsReadEachFileOnce) {
  ASSERT_OK(Run("CREATE TABLE db.t (id bigint, part integer)").status());
  std::vector<iceberg::DataFile> files = Append("db.t", TenFiles());
  ASSERT_EQ(files.size(), 10u);
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "4"));
  PlanPtr plan = PlanScan("db.t", config);
  ASSERT_EQ(plan->partition_count(), 4);
  const auto& scan = static_cast<const connector::IcebergScanExec&>(*plan);
  std::map<std::string, int> reads;
  for (const iceberg::ScanTaskGroup& group : scan.parts().groups) {
    EXPECT_FALSE(group.tasks.empty());
    for (const iceberg::FileScanTask& task : group.tasks) ++reads[task.data_file->file_path];
  }
  ASSERT_EQ(reads.size(), 10u);
  for (const iceberg::DataFile& file : files) EXPECT_EQ(reads[file.file_path], 1) << file.file_path;
  // The partitions together give every row once, with and without concurrent reads.
  for (const char* concurrency : {"1", "2", "4"}) {
    SCOPED_TRACE(concurrency);
    SessionConfig run = config;
    ASSERT_OK(run.Set("iceberg.read_concurrency", concurrency));
    TaskContextPtr ctx = Context(run, threads_.get());
    std::vector<std::string> all;
    for (int p = 0; p < 4; ++p) {
      std::vector<std::string> rows = PartitionRows(plan, p, ctx);
      EXPECT_FALSE(rows.empty());
      all.insert(all.end(), rows.begin(), rows.end());
    }
    EXPECT_EQ(Sorted(all), TenFileRows());
  }
  // The groups' bytes are the files' bytes (EXPLAIN prints them per group).
  int64_t total_bytes = 0;
  for (const iceberg::ScanTaskGroup& group : scan.parts().groups) total_bytes += group.total_bytes;
  int64_t file_bytes = 0;
  for (const iceberg::DataFile& file : files) file_bytes += file.file_size_in_bytes;
  EXPECT_EQ(total_bytes, file_bytes);
}

TEST_F(IcebergScanTest, NoFilesGiveOneEmptyPartition) {
  ASSERT_OK(Run("CREATE TABLE db.t (id bigint, part integer)").status());
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "4"));
  PlanPtr plan = PlanScan("db.t", config);
  ASSERT_EQ(plan->partition_count(), 1);
  EXPECT_TRUE(PartitionRows(plan, 0, Context(config, threads_.get())).empty());
  // A snapshot whose files are all filtered away plans no files either.
  Append("db.t", {{1, 2}});
  PlanPtr pruned;
  {
    auto table = connector::IcebergTable::Make("db.t", Load("db.t")).ValueOrDie();
    ScanRequest request;
    request.projection = {0};
    request.filters = {expr::Call(
        "gt", {expr::Column(0, "id", Int64()), expr::Literal(Scalar::I64(100))}, Boolean())};
    pruned = table->Scan(request, config).ValueOrDie();
  }
  ASSERT_EQ(pruned->partition_count(), 1);
  EXPECT_TRUE(PartitionRows(pruned, 0, Context(config, threads_.get())).empty());
}

TEST_F(IcebergScanTest, TwoFilesEightTargetPartitionsGiveTwoPartitions) {
  ASSERT_OK(Run("CREATE TABLE db.t (id bigint, part integer)").status());
  Append("db.t", {{1, 2, 3}, {4, 5}});
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "8"));
  PlanPtr plan = PlanScan("db.t", config);
  ASSERT_EQ(plan->partition_count(), 2);
  TaskContextPtr ctx = Context(config, threads_.get());
  std::vector<std::string> all = PartitionRows(plan, 0, ctx);
  std::vector<std::string> second = PartitionRows(plan, 1, ctx);
  EXPECT_EQ(all.size() + second.size(), 5u);
  all.insert(all.end(), second.begin(), second.end());
  EXPECT_EQ(Sorted(all),
            (std::vector<std::string>{"1|NULL", "2|NULL", "3|NULL", "4|NULL", "5|NULL"}));
}

TEST_F(IcebergScanTest, BatchSizeBoundsEveryBatch) {
  ASSERT_OK(Run("CREATE TABLE db.t (id bigint, part integer)").status());
  Append("db.t", TenFiles());
  // batch_size bounds every batch, across file boundaries too.
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "1"));
  ASSERT_OK(config.Set("batch_size", "3"));
  PlanPtr plan = PlanScan("db.t", config);
  ASSERT_EQ(plan->partition_count(), 1);
  ASSERT_OK_AND_ASSIGN(std::vector<RecordBatchPtr> batches,
                       Partition(plan, 0, Context(config, threads_.get())));
  int64_t total = 0;
  for (const RecordBatchPtr& batch : batches) {
    EXPECT_LE(batch->num_rows(), 3);
    EXPECT_GT(batch->num_rows(), 0);
    total += batch->num_rows();
  }
  EXPECT_EQ(total, 55);
  EXPECT_GE(batches.size(), 19u);  // at least ceil(55 / 3)
}

TEST_F(IcebergScanTest, ReadConcurrencyKeepsGroupOrder) {
  ASSERT_OK(Run("CREATE TABLE db.t (id bigint, part integer)").status());
  Append("db.t", TenFiles());
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "1"));
  PlanPtr plan = PlanScan("db.t", config);
  ASSERT_EQ(plan->partition_count(), 1);
  std::vector<std::string> sequential;
  {
    SessionConfig run = config;
    ASSERT_OK(run.Set("iceberg.read_concurrency", "1"));
    sequential = PartitionRows(plan, 0, Context(run, threads_.get()));
  }
  ASSERT_EQ(sequential.size(), 55u);
  for (const char* concurrency : {"2", "3", "8", "64"}) {
    SessionConfig run = config;
    ASSERT_OK(run.Set("iceberg.read_concurrency", concurrency));
    EXPECT_EQ(PartitionRows(plan, 0, Context(run, threads_.get())), sequential) << concurrency;
    // No thread pool: the files are read one after another.
    EXPECT_EQ(PartitionRows(plan, 0, Context(run, nullptr)), sequential) << concurrency;
  }
  // A stream dropped half-way (files still opening on the pool) cleans up.
  for (int i = 0; i < 20; ++i) {
    SessionConfig run = config;
    ASSERT_OK(run.Set("iceberg.read_concurrency", "8"));
    ASSERT_OK(run.Set("batch_size", "1"));
    ASSERT_OK_AND_ASSIGN(BatchStreamPtr stream, plan->Execute(0, Context(run, threads_.get())));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
    ASSERT_NE(batch, nullptr);
    EXPECT_EQ(BatchRows(*batch), std::vector<std::string>{sequential[0]});
  }
}

TEST_F(IcebergScanTest, ConcurrentReadsOnAOneThreadPoolFinish) {
  ASSERT_OK(Run("CREATE TABLE db.t (id bigint, part integer)").status());
  Append("db.t", TenFiles());
  // Every scan partition runs on the pool's only thread and queues its read-ahead behind
  // itself: the partition opens those files on its own thread instead of waiting.
  session::SessionOptions options;
  options.catalog = catalog_;
  options.warehouse = dir_;
  options.threads = 1;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<session::Session> session, session::Session::Make(options));
  ASSERT_OK(session->mutable_config().Set("iceberg.read_concurrency", "8"));
  for (const char* partitions : {"1", "3", "8"}) {
    ASSERT_OK(session->mutable_config().Set("target_partitions", partitions));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<session::QueryResult> result,
                         session->Execute("SELECT id, part FROM db.t"));
    std::vector<std::string> rows;
    while (true) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, result->Next());
      if (!batch) break;
      for (std::string& row : BatchRows(*batch)) rows.push_back(std::move(row));
    }
    EXPECT_EQ(Sorted(rows), TenFileRows()) << partitions;
  }
}

TEST_F(IcebergScanTest, StatisticsFromManifests) {
  ASSERT_OK(Run("CREATE TABLE db.t (id bigint, part integer)").status());
  Append("db.t", {{5, 1, 3}, {10, 7, 2, 4}});
  auto table = connector::IcebergTable::Make("db.t", Load("db.t")).ValueOrDie();
  plan::Statistics stats = table->statistics();
  ASSERT_TRUE(stats.row_count.has_value());
  EXPECT_EQ(*stats.row_count, 7);
  EXPECT_TRUE(stats.exact);
  // The two columns, then the hidden metadata columns _file, _pos and _spec_id (no
  // statistics of their own).
  ASSERT_EQ(stats.columns.size(), 5u);
  EXPECT_FALSE(stats.columns[2].min.has_value());
  ASSERT_TRUE(stats.columns[0].min.has_value());
  ASSERT_TRUE(stats.columns[0].max.has_value());
  EXPECT_EQ(stats.columns[0].min->get<int64_t>(), 1);
  EXPECT_EQ(stats.columns[0].max->get<int64_t>(), 10);
  EXPECT_EQ(stats.columns[0].null_count, 0);
  EXPECT_EQ(stats.columns[0].avg_width, 8);
  EXPECT_EQ(stats.columns[1].null_count, 7);
  EXPECT_FALSE(stats.columns[1].min.has_value());
  EXPECT_EQ(stats.columns[1].avg_width, 4);

  // EXPLAIN shows the planned rows as exact; a residual makes them an estimate.
  EXPECT_NE(ScanLine("SELECT id FROM db.t").find("rows=7 (exact)"), std::string::npos);
  EXPECT_NE(ScanLine("SELECT id FROM db.t WHERE id > 4").find("rows=7 (estimate)"),
            std::string::npos);
  // Metrics prove id >= 1 for every row: no residual is left, the count stays exact.
  EXPECT_NE(ScanLine("SELECT id FROM db.t WHERE id >= 1").find("rows=7 (exact)"),
            std::string::npos);
  // The metrics of a file rule it out: only the other file's 4 rows are planned.
  EXPECT_NE(ScanLine("SELECT id FROM db.t WHERE id > 5").find("rows=4 (estimate)"),
            std::string::npos);
}

expr::ExprPtr PartCompare(const std::string& op, int32_t value) {
  return expr::Call(op, {expr::Column(1, "part", Int32()), expr::Literal(Scalar::I32(value))},
                    Boolean());
}

TEST_F(IcebergScanTest, CountStarFromMetadataReadsNoDataFile) {
  ASSERT_OK(
      Run("CREATE TABLE db.p (id bigint, part integer) WITH (partitioning = 'part')").status());
  std::vector<iceberg::DataFile> files =
      Append("db.p", {{1, 2, 3}, {4, 5, 6, 7}, {8, 9}}, {1, 2, 2});
  ASSERT_OK(session_->mutable_config().Set("target_partitions", "2"));
  auto table = connector::IcebergTable::Make("db.p", Load("db.p")).ValueOrDie();
  // Remove the data files: what still answers read none of them.
  for (const iceberg::DataFile& file : files) {
    ASSERT_TRUE(std::filesystem::remove(file.file_path)) << file.file_path;
  }
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> rows, Run("SELECT count(*) FROM db.p"));
  EXPECT_EQ(rows, std::vector<std::string>{"9"});
  EXPECT_EQ(table->ExactRowCount({}).ValueOrDie(), 9);
  EXPECT_EQ(table->ExactRowCount({PartCompare("eq", 2)}).ValueOrDie(), 6);
  EXPECT_EQ(table->ExactRowCount({PartCompare("ge", 2), PartCompare("lt", 3)}).ValueOrDie(), 6);
  EXPECT_EQ(table->ExactRowCount({PartCompare("eq", 7)}).ValueOrDie(), 0);
  // Not decided by partition values: no exact count.
  EXPECT_EQ(table->ExactRowCount({PartCompare("ne", 2)}).ValueOrDie(), std::nullopt);
  EXPECT_EQ(
      table
          ->ExactRowCount({expr::Call(
              "gt", {expr::Column(0, "id", Int64()), expr::Literal(Scalar::I64(3))}, Boolean())})
          .ValueOrDie(),
      std::nullopt);
  // A scan asked for no column counts from the manifests, in every partition.
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "2"));
  ScanRequest request;
  request.filters = {PartCompare("eq", 2)};
  ASSERT_OK_AND_ASSIGN(PlanPtr plan, table->Scan(request, config));
  ASSERT_EQ(plan->partition_count(), 2);
  EXPECT_EQ(plan->schema()->num_fields(), 0);
  int64_t counted = 0;
  for (int p = 0; p < 2; ++p) {
    ASSERT_OK_AND_ASSIGN(std::vector<RecordBatchPtr> batches,
                         Partition(plan, p, Context(config, threads_.get())));
    for (const RecordBatchPtr& batch : batches) counted += batch->num_rows();
  }
  EXPECT_EQ(counted, 6);
  // A filter on a data column needs the rows: a missing file is an error naming it.
  EXPECT_THAT(Run("SELECT count(*) FROM db.p WHERE id > 3").status(),
              IsErrorWith(StatusCode::kNotFound, "db/p/data/part="));
  EXPECT_THAT(Run("SELECT sum(id) FROM db.p WHERE part = 1").status(),
              IsError(StatusCode::kNotFound));
}

// The filters that partition values do not decide stay above the scan (EXPLAIN of a scan
// names its snapshot id, which a .test cannot pin for a table it writes).
TEST_F(IcebergScanTest, FiltersNotDecidedInEverySpecStayAboveTheScan) {
  ASSERT_OK(
      Run("CREATE TABLE db.p (id bigint, part integer) WITH (partitioning = 'part')").status());
  Append("db.p", {{1, 2, 3}, {4, 5}}, {1, 2});
  // part <> 1 keeps the engine's filter (Iceberg's not-equal is TRUE for NULL).
  EXPECT_NE(Explain("SELECT id FROM db.p WHERE part <> 1").find("FilterExec"), std::string::npos);
  // A data column's filter stays above the scan.
  EXPECT_NE(Explain("SELECT id FROM db.p WHERE id = 1").find("FilterExec"), std::string::npos);
  // After partitioning by id too, part is still in every spec; a filter on id is not.
  ASSERT_OK(Run("ALTER TABLE db.p SET (partitioning = 'part, bucket(4, id)')").status());
  EXPECT_EQ(Explain("SELECT id FROM db.p WHERE part = 2").find("FilterExec"), std::string::npos);
  // Dropping part from the partitioning leaves a spec without it: the filter stays.
  ASSERT_OK(Run("ALTER TABLE db.p SET (partitioning = 'bucket(4, id)')").status());
  EXPECT_NE(Explain("SELECT id FROM db.p WHERE part = 2").find("FilterExec"), std::string::npos);
}

TEST_F(IcebergScanTest, SortedFilesReportTheirOrdering) {
  ASSERT_OK(
      Run("CREATE TABLE db.s (id bigint, part integer) WITH (sorted_by = 'id ASC NULLS LAST')")
          .status());
  const int32_t order_id = Load("db.s").metadata->default_sort_order_id;
  ASSERT_GT(order_id, 0);
  Append("db.s", {{7, 8, 9}, {1, 2, 3}, {4, 5, 6}}, {}, order_id);
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "1"));
  PlanPtr plan = PlanScan("db.s", config);
  ASSERT_EQ(plan->properties().ordering.size(), 1u);
  EXPECT_EQ(OrderingToString(plan->properties().ordering), "id");
  // The group reads the files in key order.
  EXPECT_EQ(PartitionRows(plan, 0, Context(config, threads_.get())),
            (std::vector<std::string>{"1|NULL", "2|NULL", "3|NULL", "4|NULL", "5|NULL", "6|NULL",
                                      "7|NULL", "8|NULL", "9|NULL"}));
  // Without the key among the output columns there is no ordering.
  EXPECT_TRUE(PlanScan("db.s", config, {1})->properties().ordering.empty());
  // ORDER BY the key merges the partitions' sorted streams instead of sorting.
  ASSERT_OK(session_->mutable_config().Set("target_partitions", "2"));
  const std::string text = Explain("SELECT id FROM db.s ORDER BY id");
  EXPECT_EQ(text.find("SortExec"), std::string::npos) << text;
  EXPECT_NE(text.find("ordering=[id]"), std::string::npos) << text;
  // A different direction or null order still sorts.
  EXPECT_NE(Explain("SELECT id FROM db.s ORDER BY id DESC").find("SortExec"), std::string::npos);
  EXPECT_NE(Explain("SELECT id FROM db.s ORDER BY id NULLS FIRST").find("SortExec"),
            std::string::npos);
}

TEST_F(IcebergScanTest, IcebergDefaultNullOrderIsNullsFirst) {
  // sorted_by 'id' is ASC NULLS FIRST (Iceberg's default), which ORDER BY id is not.
  ASSERT_OK(Run("CREATE TABLE db.s (id bigint, part integer) WITH (sorted_by = 'id')").status());
  const int32_t order_id = Load("db.s").metadata->default_sort_order_id;
  Append("db.s", {{4, 5}, {1, 2}}, {}, order_id);
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "1"));
  EXPECT_EQ(OrderingToString(PlanScan("db.s", config)->properties().ordering), "id NULLS FIRST");
  ASSERT_OK(session_->mutable_config().Set("target_partitions", "1"));
  EXPECT_NE(Explain("SELECT id FROM db.s ORDER BY id").find("SortExec"), std::string::npos);
  EXPECT_EQ(Explain("SELECT id FROM db.s ORDER BY id NULLS FIRST").find("SortExec"),
            std::string::npos);
}

TEST_F(IcebergScanTest, OverlappingOrUnsortedFilesReportNoOrdering) {
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "1"));
  ASSERT_OK(Run("CREATE TABLE db.o (id bigint, part integer) WITH (sorted_by = 'id')").status());
  const int32_t order_id = Load("db.o").metadata->default_sort_order_id;
  Append("db.o", {{1, 5}, {3, 8}}, {}, order_id);
  EXPECT_TRUE(PlanScan("db.o", config)->properties().ordering.empty());
  // One file per partition: each partition is sorted on its own.
  SessionConfig two;
  ASSERT_OK(two.Set("target_partitions", "2"));
  PlanPtr plan = PlanScan("db.o", two);
  ASSERT_EQ(plan->partition_count(), 2);
  EXPECT_EQ(OrderingToString(plan->properties().ordering), "id NULLS FIRST");

  // Files without the sort order id.
  ASSERT_OK(Run("CREATE TABLE db.u (id bigint, part integer) WITH (sorted_by = 'id')").status());
  Append("db.u", {{1, 2}, {3, 4}});
  EXPECT_TRUE(PlanScan("db.u", config)->properties().ordering.empty());

  // NULLs in the key: a second file cannot be proven to follow the first.
  ASSERT_OK(Run("CREATE TABLE db.n (id bigint, part integer) WITH (sorted_by = 'part')").status());
  const int32_t n_order = Load("db.n").metadata->default_sort_order_id;
  Append("db.n", {{1}, {2}}, {}, n_order);  // part is NULL in both files
  EXPECT_TRUE(PlanScan("db.n", config)->properties().ordering.empty());
  PlanPtr single = PlanScan("db.n", two);
  EXPECT_EQ(OrderingToString(single->properties().ordering), "part NULLS FIRST");
}

TEST_F(IcebergScanTest, DescendingOrderWithNullsLast) {
  ASSERT_OK(
      Run("CREATE TABLE db.d (id bigint, part integer) WITH (sorted_by = 'id DESC NULLS LAST')")
          .status());
  const int32_t order_id = Load("db.d").metadata->default_sort_order_id;
  Append("db.d", {{3, 2, 1}, {9, 8}}, {}, order_id);
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "1"));
  PlanPtr plan = PlanScan("db.d", config);
  EXPECT_EQ(OrderingToString(plan->properties().ordering), "id DESC NULLS LAST");
  EXPECT_EQ(PartitionRows(plan, 0, Context(config, threads_.get())),
            (std::vector<std::string>{"9|NULL", "8|NULL", "3|NULL", "2|NULL", "1|NULL"}));
  ASSERT_OK(session_->mutable_config().Set("target_partitions", "1"));
  EXPECT_EQ(Explain("SELECT id FROM db.d ORDER BY id DESC NULLS LAST").find("SortExec"),
            std::string::npos);
  // NULLS FIRST is another ordering.
  EXPECT_NE(Explain("SELECT id FROM db.d ORDER BY id DESC NULLS FIRST").find("SortExec"),
            std::string::npos);
}

TEST_F(IcebergScanTest, CancelledOrBrokenScansFailInsteadOfEndingEarly) {
  ASSERT_OK(Run("CREATE TABLE db.t (id bigint, part integer)").status());
  std::vector<iceberg::DataFile> files = Append("db.t", TenFiles());
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "1"));
  ASSERT_OK(config.Set("batch_size", "1"));
  PlanPtr plan = PlanScan("db.t", config);
  for (const char* concurrency : {"1", "4"}) {
    SCOPED_TRACE(concurrency);
    SessionConfig run = config;
    ASSERT_OK(run.Set("iceberg.read_concurrency", concurrency));
    // Cancelled before the stream opens.
    TaskContextPtr cancelled = Context(run, threads_.get());
    cancelled->Cancel();
    EXPECT_THAT(plan->Execute(0, cancelled).status(), IsError(StatusCode::kCancelled));
    // Cancelled while files are open and being opened: the next batch is an error, and
    // so is every one after it.
    TaskContextPtr ctx = Context(run, threads_.get());
    ASSERT_OK_AND_ASSIGN(BatchStreamPtr stream, plan->Execute(0, ctx));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
    ASSERT_NE(batch, nullptr);
    ctx->Cancel();
    EXPECT_THAT(stream->Next().status(), IsError(StatusCode::kCancelled));
    EXPECT_THAT(stream->Next().status(), IsError(StatusCode::kCancelled));
  }
  // A file gone from storage fails the scan naming it, also when it is opened ahead.
  const std::string missing = files[5].file_path;
  ASSERT_TRUE(std::filesystem::remove(missing));
  for (const char* concurrency : {"1", "2", "8"}) {
    SCOPED_TRACE(concurrency);
    SessionConfig run = config;
    ASSERT_OK(run.Set("iceberg.read_concurrency", concurrency));
    EXPECT_THAT(
        Partition(plan, 0, Context(run, threads_.get())).status(),
        IsErrorWith(StatusCode::kNotFound, std::filesystem::path(missing).filename().string()));
  }
  EXPECT_THAT(Run("SELECT id FROM db.t").status(), IsError(StatusCode::kNotFound));
  // A query cancelled through its result stops with an error, not with the rows so far.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<session::QueryResult> result,
                       session_->Execute("SELECT id FROM db.t WHERE part IS NULL"));
  result->Cancel();
  Result<RecordBatchPtr> next = result->Next();
  while (next.ok() && *next != nullptr) next = result->Next();
  EXPECT_FALSE(next.ok());
}

}  // namespace
}  // namespace floe::connector
