// The fixed costs of a Parquet scan: the footer decoded at planning is reused by every
// scan partition (and a file changed since planning is detected), and a scan of no
// columns (count(*)) produces row counts from the footer, after row-group pruning.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/connector/parquet/parquet_scan_exec.h"
#include "floe/connector/parquet/parquet_table.h"
#include "floe/exec/execution_plan.h"
#include "floe/exec/memory_manager.h"
#include "floe/exec/session_config.h"
#include "floe/expr/expr.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/file.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scratch_dir.h"

namespace floe::connector {
namespace {

using exec::CollectAll;
using exec::MemoryManager;
using exec::PlanPtr;
using exec::ScanRequest;
using exec::SessionConfig;
using exec::TaskContext;
using exec::TaskContextPtr;

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

TaskContextPtr MakeContext(SessionConfig config) {
  return std::make_shared<TaskContext>(std::move(config), std::make_shared<MemoryManager>(0),
                                       nullptr, std::filesystem::temp_directory_path().string(),
                                       nullptr);
}

SessionConfig Config(int partitions, int64_t batch_size) {
  SessionConfig config;
  EXPECT_OK(config.Set("target_partitions", std::to_string(partitions)));
  EXPECT_OK(config.Set("batch_size", std::to_string(batch_size)));
  return config;
}

class ParquetScanOverheadTest : public floe::testing::ScratchDirTest {
 protected:
  ParquetScanOverheadTest() : ScratchDirTest("floe_scan_overhead") {}

  // Row groups of (id int64, s string) with ids [g * rows, (g + 1) * rows) in group g;
  // s is NULL for ids divisible by 3.
  std::string Write(const std::string& name, int groups, int rows) {
    auto schema = std::make_shared<const Schema>(
        std::vector<Field>{Field("id", Int64(), false), Field("s", String())});
    std::string path = dir_ + "/" + name;
    auto out = io::CreateLocalFile(path);
    EXPECT_OK(out.status());
    auto writer = parquet::ParquetFileWriter::Open(std::move(*out), schema);
    EXPECT_OK(writer.status());
    for (int g = 0; g < groups; ++g) {
      auto ids = MakeBuilder(Int64());
      auto strings = MakeBuilder(String());
      for (int r = 0; r < rows; ++r) {
        int64_t id = int64_t{g} * rows + r;
        EXPECT_OK(ids->AppendScalar(Scalar::I64(id)));
        EXPECT_OK(id % 3 == 0 ? strings->AppendNull()
                              : strings->AppendScalar(Scalar::Str("s" + std::to_string(id))));
      }
      auto batch = RecordBatch::Make(schema, rows, {*ids->Finish(), *strings->Finish()});
      EXPECT_OK(batch.status());
      EXPECT_OK((*writer)->Write(**batch));
      EXPECT_OK((*writer)->FlushRowGroup());
    }
    EXPECT_OK((*writer)->Close().status());
    return path;
  }
};

struct Totals {
  int64_t rows = 0;
  int64_t id_sum = 0;
  int64_t nulls = 0;
  int64_t max_batch = 0;
};

Result<Totals> Scan(const connector::ParquetTable& table, const ScanRequest& request,
                    const SessionConfig& config) {
  FLOE_ASSIGN_OR_RAISE(PlanPtr scan, table.Scan(request, config));
  FLOE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches, CollectAll(scan, MakeContext(config)));
  Totals out;
  for (const RecordBatchPtr& batch : batches) {
    out.rows += batch->num_rows();
    out.max_batch = std::max(out.max_batch, batch->num_rows());
    for (int c = 0; c < batch->num_columns(); ++c) {
      const ArrayPtr& column = batch->column(c);
      out.nulls += column->null_count();
      if (column->type()->id() != TypeId::kInt64) continue;
      for (int64_t r = 0; r < batch->num_rows(); ++r) out.id_sum += column->Value<int64_t>(r);
    }
  }
  return out;
}

TEST_F(ParquetScanOverheadTest, PartitionsShareThePlannedFooter) {
  Write("a.parquet", 5, 100);
  Write("b.parquet", 2, 100);
  ASSERT_OK_AND_ASSIGN(auto table, connector::ParquetTable::Make({dir_ + "/*.parquet"}));
  ASSERT_EQ(table->files().size(), 2u);
  for (const connector::ParquetTable::File& file : table->files()) {
    ASSERT_NE(file.planned, nullptr);
    EXPECT_EQ(file.planned->reader, file.reader);
    EXPECT_EQ(file.planned->batch_size, parquet::ReaderOptions{}.batch_size);
    ASSERT_OK_AND_ASSIGN(connector::FileIdentity now, connector::FileIdentity::Of(file.path));
    EXPECT_EQ(now, file.planned->identity);
  }
  // Every range of the scan carries its file's planned footer.
  ASSERT_OK_AND_ASSIGN(PlanPtr plan,
                       table->Scan(ScanRequest{{0}, {}, std::nullopt}, Config(3, 8192)));
  const auto& scan = static_cast<const connector::ParquetScanExec&>(*plan);
  int ranges = 0;
  for (const auto& group : scan.groups()) {
    for (const connector::ParquetFileRange& range : group) {
      ++ranges;
      ASSERT_NE(range.planned, nullptr);
      EXPECT_EQ(range.planned->reader->num_row_groups(), range.path == dir_ + "/a.parquet" ? 5 : 2);
    }
  }
  EXPECT_GE(ranges, 3);

  // Values through the shared readers (the planned batch size) and through readers opened
  // again (another batch size): the same rows; ids 0..499 and 0..199.
  const int64_t want_sum = 499 * 500 / 2 + 199 * 200 / 2;
  for (int64_t batch_size : {int64_t{8192}, int64_t{7}, int64_t{100}}) {
    SCOPED_TRACE(batch_size);
    for (int partitions : {1, 2, 3, 8}) {
      SCOPED_TRACE(partitions);
      ASSERT_OK_AND_ASSIGN(Totals t, Scan(*table, ScanRequest{{0, 1}, {}, std::nullopt},
                                          Config(partitions, batch_size)));
      EXPECT_EQ(t.rows, 700);
      EXPECT_EQ(t.id_sum, want_sum);
      EXPECT_EQ(t.nulls, 67 + 167);  // ids divisible by 3 in 0..199 and in 0..499
      EXPECT_LE(t.max_batch, batch_size);
    }
  }
}

TEST_F(ParquetScanOverheadTest, AFileChangedAfterPlanningFailsTheScan) {
  std::string path = Write("a.parquet", 2, 100);
  ASSERT_OK_AND_ASSIGN(auto table, connector::ParquetTable::Make({path}));
  ASSERT_OK_AND_ASSIGN(PlanPtr scan,
                       table->Scan(ScanRequest{{0}, {}, std::nullopt}, Config(1, 8192)));
  ASSERT_OK_AND_ASSIGN(PlanPtr count,
                       table->Scan(ScanRequest{{}, {}, std::nullopt}, Config(1, 8192)));
  ASSERT_OK_AND_ASSIGN(PlanPtr small,
                       table->Scan(ScanRequest{{0}, {}, std::nullopt}, Config(1, 7)));
  // Replaced by a file of another size (written aside, then renamed over it).
  std::filesystem::rename(path, dir_ + "/old.parquet");
  Write("a.parquet", 3, 50);
  for (const PlanPtr& plan : {scan, count, small}) {
    EXPECT_THAT(CollectAll(plan, MakeContext(Config(1, 8192))),
                IsErrorWith(StatusCode::kIOError, "changed after the query was planned"));
  }
  // Deleted.
  std::filesystem::remove(path);
  EXPECT_THAT(CollectAll(scan, MakeContext(Config(1, 8192))),
              IsErrorWith(StatusCode::kIOError, "a.parquet"));
  EXPECT_THAT(connector::FileIdentity::Of(path), IsError(StatusCode::kIOError));
}

TEST_F(ParquetScanOverheadTest, ScanOfNoColumnsCountsRowsFromTheFooter) {
  Write("a.parquet", 4, 100);
  Write("b.parquet", 1, 30);
  ASSERT_OK_AND_ASSIGN(auto table, connector::ParquetTable::Make({dir_ + "/*.parquet"}));
  auto id = expr::Column(0, "id", Int64(), false);
  auto lit = [](int64_t v) { return expr::Literal(Scalar::I64(v)); };
  for (int64_t batch_size : {int64_t{8192}, int64_t{64}, int64_t{1}}) {
    SCOPED_TRACE(batch_size);
    for (int partitions : {1, 2, 5}) {
      SCOPED_TRACE(partitions);
      SessionConfig config = Config(partitions, batch_size);
      ASSERT_OK_AND_ASSIGN(Totals all, Scan(*table, ScanRequest{{}, {}, std::nullopt}, config));
      EXPECT_EQ(all.rows, 430);
      EXPECT_LE(all.max_batch, batch_size);
      // id >= 250 keeps a.parquet's groups 2 and 3 (ids 200..399): the count is of the
      // rows of the row groups the statistics keep; the filter above drops the others.
      ASSERT_OK_AND_ASSIGN(
          Totals pruned,
          Scan(*table, ScanRequest{{}, {expr::Compare("ge", id, lit(250))}, std::nullopt}, config));
      EXPECT_EQ(pruned.rows, 200);
      // Nothing matches: no rows at all.
      ASSERT_OK_AND_ASSIGN(
          Totals none,
          Scan(*table, ScanRequest{{}, {expr::Compare("gt", id, lit(1000))}, std::nullopt},
               config));
      EXPECT_EQ(none.rows, 0);
    }
  }
}

TEST_F(ParquetScanOverheadTest, ScanOfNoColumnsOverAnEmptyFile) {
  Write("empty.parquet", 0, 0);
  ASSERT_OK_AND_ASSIGN(auto table, connector::ParquetTable::Make({dir_ + "/empty.parquet"}));
  ASSERT_OK_AND_ASSIGN(Totals t, Scan(*table, ScanRequest{{}, {}, std::nullopt}, Config(2, 8192)));
  EXPECT_EQ(t.rows, 0);
  ASSERT_OK_AND_ASSIGN(t, Scan(*table, ScanRequest{{0, 1}, {}, std::nullopt}, Config(2, 8192)));
  EXPECT_EQ(t.rows, 0);
}

}  // namespace
}  // namespace floe::connector
