// read_parquet's table and scan node over files written here: globs and lists of paths,
// statistics and projections, row groups pruned by filters (NaN and NULL groups included),
// limits and counting scans, and the errors of missing, foreign and mismatched files. Its
// results through SQL are checked by test/sql/parquet/read_parquet.test.

#include "floe/connector/parquet/parquet_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "floe/connector/parquet/parquet_scan_exec.h"
#include "floe/exec/execution_plan.h"
#include "floe/exec/memory_manager.h"
#include "floe/exec/session_config.h"
#include "floe/exec/tests/operators_test_support.h"
#include "floe/expr/expr.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/file.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scratch_dir.h"

namespace floe::connector {
namespace {

using exec::CollectAll;
using exec::PlanPtr;
using exec::ScanRequest;
using exec::SessionConfig;
using exec::TaskContextPtr;
using exec::testing::BatchOf;
using exec::testing::F64s;
using exec::testing::I64s;
using exec::testing::Rows;
using exec::testing::Strs;
using ::floe::testing::IsError;

TaskContextPtr Context(SessionConfig config = {}) {
  return std::make_shared<exec::TaskContext>(
      std::move(config), std::make_shared<exec::MemoryManager>(0), nullptr,
      std::filesystem::temp_directory_path().string(), nullptr);
}

expr::ExprPtr ColExpr(const SchemaPtr& schema, int i) {
  const Field& f = schema->field(i);
  return expr::Column(i, f.name(), f.type(), f.nullable());
}

std::vector<plan::TableFunctionArg> Args(std::vector<Scalar> values) {
  std::vector<plan::TableFunctionArg> args;
  for (Scalar& v : values) args.push_back(plan::TableFunctionArg{"", std::move(v)});
  return args;
}

class ParquetTest : public floe::testing::ScratchDirTest {
 protected:
  ParquetTest() : ScratchDirTest("floe_exec_parquet") {}

  // Writes row groups of (id int64, v float64, s string): group g has ids
  // [g * rows, (g + 1) * rows), v = id / 2 (NaN where `nan_group` == g), s = "s<id>" with
  // NULL for odd ids in group `null_group`.
  std::string Write(const std::string& name, int groups, int rows, int nan_group = -1,
                    int null_group = -1, int64_t first_id = 0) {
    auto schema = std::make_shared<const Schema>(std::vector<Field>{
        Field("id", Int64(), false), Field("v", Float64()), Field("s", String())});
    std::string path = dir_ + "/" + name;
    auto out = io::CreateLocalFile(path);
    EXPECT_OK(out.status());
    auto writer = parquet::ParquetFileWriter::Open(std::move(*out), schema);
    EXPECT_OK(writer.status());
    for (int g = 0; g < groups; ++g) {
      std::vector<std::optional<int64_t>> ids;
      std::vector<std::optional<double>> vs;
      std::vector<std::optional<std::string>> ss;
      for (int r = 0; r < rows; ++r) {
        int64_t id = first_id + int64_t{g} * rows + r;
        ids.push_back(id);
        vs.push_back(g == nan_group && r % 2 == 0 ? std::nan("") : static_cast<double>(id) / 2);
        if (g == null_group && id % 2 == 1) {
          ss.push_back(std::nullopt);
        } else {
          ss.push_back("s" + std::to_string(id));
        }
      }
      RecordBatchPtr batch = BatchOf(schema, {I64s(ids), F64s(vs), Strs(ss)});
      EXPECT_OK((*writer)->Write(*batch));
      EXPECT_OK((*writer)->FlushRowGroup());
    }
    EXPECT_OK((*writer)->Close().status());
    return path;
  }

  std::shared_ptr<const ParquetTable> Open(std::vector<std::string> paths) {
    auto table = ParquetTable::Make(std::move(paths));
    EXPECT_OK(table.status());
    return table.ok() ? *table : nullptr;
  }

  static int64_t RowGroupsIn(const PlanPtr& scan) {
    int64_t n = 0;
    for (const auto& group : static_cast<const ParquetScanExec&>(*scan).groups()) {
      for (const auto& range : group) n += static_cast<int64_t>(range.row_groups.size());
    }
    return n;
  }
};

// Rewrites the footer of the file at `path` with distinct_count set in each column
// chunk's statistics: `counts[c][g]` for column c in row group g (nullopt: unset).
void SetDistinctCounts(const std::string& path,
                       const std::vector<std::vector<std::optional<int64_t>>>& counts) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  ASSERT_OK_AND_ASSIGN(parquet::FileMetaData meta,
                       parquet::DecodeFooter({data, bytes.size()}, bytes.size()));
  ASSERT_OK_AND_ASSIGN(uint32_t footer,
                       parquet::ReadFooterLength({data, bytes.size()}, bytes.size()));
  for (size_t g = 0; g < meta.row_groups.size(); ++g) {
    for (size_t c = 0; c < counts.size(); ++c) {
      auto& chunk = meta.row_groups[g].columns[c];
      ASSERT_TRUE(chunk.meta_data && chunk.meta_data->statistics);
      chunk.meta_data->statistics->distinct_count = counts[c][g];
    }
  }
  std::string out = bytes.substr(0, bytes.size() - footer - parquet::kFooterTrailerSize);
  ASSERT_OK(parquet::EncodeFooter(meta, &out));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << out;
}

// Distinct counts reach the table's statistics only for a column every row group counts,
// and whose largest count is at most a tenth of the smallest row group (the same few
// values in every group): an equality or IN on it then keeps 1 / distinct each.
TEST_F(ParquetTest, SaturatedDistinctCountsOnly) {
  const std::string path = Write("d.parquet", 2, 100);
  SetDistinctCounts(path, {{10, 8}, {11, std::nullopt}, {40, 100}});
  auto table = Open({path});
  ASSERT_NE(table, nullptr);
  plan::Statistics stats = table->statistics();
  ASSERT_EQ(stats.columns.size(), 3u);
  EXPECT_EQ(stats.columns[0].distinct_count, 10);
  EXPECT_EQ(stats.columns[1].distinct_count, std::nullopt);  // a row group does not count
  EXPECT_EQ(stats.columns[2].distinct_count, std::nullopt);  // 40 > 100 / 10
  SetDistinctCounts(path, {{std::nullopt, std::nullopt}, {10, 10}, {10, 11}});
  table = Open({path});
  ASSERT_NE(table, nullptr);
  stats = table->statistics();
  EXPECT_EQ(stats.columns[0].distinct_count, std::nullopt);
  EXPECT_EQ(stats.columns[1].distinct_count, 10);
  EXPECT_EQ(stats.columns[2].distinct_count, std::nullopt);  // 11 > 100 / 10
}

TEST_F(ParquetTest, ReadsGlobsWithStatisticsAndProjection) {
  Write("b.parquet", 2, 100, -1, -1, 200);
  Write("a.parquet", 2, 100, -1, 1, 0);
  auto table = Open({dir_ + "/*.parquet"});
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->kind(), "parquet");
  EXPECT_EQ(table->display_name(), "read_parquet(2 files)");
  ASSERT_EQ(table->files().size(), 2u);
  EXPECT_EQ(table->files()[0].path, dir_ + "/a.parquet");
  EXPECT_EQ(table->schema()->ToString(),
            Schema({Field("id", Int64(), false), Field("v", Float64()), Field("s", String())})
                .ToString());
  plan::Statistics stats = table->statistics();
  EXPECT_EQ(*stats.row_count, 400);
  EXPECT_TRUE(stats.exact);
  ASSERT_EQ(stats.columns.size(), 3u);
  EXPECT_EQ(FormatScalar(*stats.columns[0].min), "0");
  EXPECT_EQ(FormatScalar(*stats.columns[0].max), "399");
  EXPECT_EQ(*stats.columns[0].null_count, 0);
  EXPECT_EQ(*stats.columns[2].null_count, 50);
  EXPECT_EQ(FormatScalar(*stats.columns[1].max), "199.5");

  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "3"));
  ASSERT_OK(config.Set("batch_size", "64"));
  ASSERT_OK_AND_ASSIGN(PlanPtr scan, table->Scan(ScanRequest{{2, 0}, {}, std::nullopt}, config));
  EXPECT_EQ(scan->partition_count(), 3);
  EXPECT_EQ(RowGroupsIn(scan), 4);
  EXPECT_EQ(scan->schema()->field(0).name(), "s");
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(scan, Context(config)));
  int64_t rows = 0, sum = 0, nulls = 0;
  for (const auto& b : batches) {
    EXPECT_LE(b->num_rows(), 64);
    rows += b->num_rows();
    nulls += b->column(0)->null_count();
    for (int64_t r = 0; r < b->num_rows(); ++r) sum += b->column(1)->Value<int64_t>(r);
  }
  EXPECT_EQ(rows, 400);
  EXPECT_EQ(sum, 399 * 400 / 2);
  EXPECT_EQ(nulls, 50);

  // A list of a path and a glob; the same file twice is read once.
  auto two = Open({dir_ + "/a.parquet", dir_ + "/[ab].parquet"});
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->files().size(), 2u);
  ASSERT_OK_AND_ASSIGN(plan::TableSourcePtr single,
                       MakeReadParquet(Args({Scalar::Str(dir_ + "/a.parquet")})));
  EXPECT_EQ(single->display_name(), "read_parquet('" + dir_ + "/a.parquet')");
}

// Two read_parquet bindings of the same files are the same source (plans over them may
// share one evaluation); other files, or the same path rewritten since, are not.
TEST_F(ParquetTest, SameSourceIsTheSameFilesAsTheirFootersSay) {
  const std::string a = Write("a.parquet", 2, 100);
  const std::string b = Write("b.parquet", 2, 100);
  auto first = Open({a, b});
  auto again = Open({dir_ + "/*.parquet"});
  ASSERT_NE(first, nullptr);
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(first->SameSource(*first));
  EXPECT_TRUE(first->SameSource(*again));
  EXPECT_TRUE(again->SameSource(*first));
  auto only_a = Open({a});
  ASSERT_NE(only_a, nullptr);
  EXPECT_FALSE(first->SameSource(*only_a));
  EXPECT_FALSE(only_a->SameSource(*first));
  Write("a.parquet", 3, 100);  // rewritten: its row groups differ
  auto rewritten = Open({a});
  ASSERT_NE(rewritten, nullptr);
  EXPECT_FALSE(only_a->SameSource(*rewritten));
}

TEST_F(ParquetTest, Errors) {
  Write("a.parquet", 1, 10);
  EXPECT_THAT(
      ParquetTable::Make({dir_ + "/*.csv"}),
      ::floe::testing::IsErrorWith(StatusCode::kNotFound, "no files match \"" + dir_ + "/*.csv\""));
  EXPECT_THAT(ParquetTable::Make({dir_ + "/missing.parquet"}), IsError(StatusCode::kNotFound));
  EXPECT_THAT(MakeReadParquet({}), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(MakeReadParquet(Args({Scalar::I64(3)})),
              ::floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "argument 1"));
  EXPECT_THAT(MakeReadParquet({plan::TableFunctionArg{"compression", Scalar::Str("x")}}),
              ::floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "compression"));
  // A file with other columns.
  auto schema = std::make_shared<const Schema>(std::vector<Field>{Field("id", Int32())});
  auto out = io::CreateLocalFile(dir_ + "/b.parquet");
  ASSERT_OK(out.status());
  ASSERT_OK_AND_ASSIGN(auto writer, parquet::ParquetFileWriter::Open(std::move(*out), schema));
  ASSERT_OK(writer->Close().status());
  EXPECT_THAT(ParquetTable::Make({dir_ + "/*.parquet"}),
              ::floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "b.parquet"));
  std::ofstream(dir_ + "/c.txt") << "not parquet at all, long enough to have a footer";
  EXPECT_THAT(ParquetTable::Make({dir_ + "/c.txt"}), IsError(StatusCode::kCorrupt));
}

TEST_F(ParquetTest, PrunesRowGroupsWithFilters) {
  Write("a.parquet", 4, 100, /*nan_group=*/1, /*null_group=*/2);
  auto table = Open({dir_ + "/a.parquet"});
  ASSERT_NE(table, nullptr);
  SchemaPtr schema = table->schema();
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "2"));
  auto lit = [](int64_t v) { return expr::Literal(Scalar::I64(v)); };
  auto flit = [](double v) { return expr::Literal(Scalar::F64(v)); };
  auto scan_with = [&](std::vector<expr::ExprPtr> filters) -> std::pair<int64_t, int64_t> {
    auto scan = table->Scan(ScanRequest{{0}, filters, std::nullopt}, config);
    EXPECT_OK(scan.status());
    if (!scan.ok()) return {-1, -1};
    auto batches = CollectAll(*scan, Context(config));
    EXPECT_OK(batches.status());
    int64_t rows = 0;
    for (const auto& b : *batches) rows += b->num_rows();
    return {RowGroupsIn(*scan), rows};
  };
  auto id = ColExpr(schema, 0);
  auto v = ColExpr(schema, 1);
  auto s = ColExpr(schema, 2);

  EXPECT_EQ(table->SupportsFilter(*expr::Compare("gt", id, lit(5))),
            plan::TableSource::FilterPushdown::kInexact);
  EXPECT_EQ(table->SupportsFilter(*expr::Compare("ne", id, lit(5))),
            plan::TableSource::FilterPushdown::kUnsupported);

  // id >= 250: groups 2 and 3; the page index may narrow rows further (a superset).
  auto [groups, rows] = scan_with({expr::Compare("ge", id, lit(250))});
  EXPECT_EQ(groups, 2);
  EXPECT_GE(rows, 150);
  EXPECT_LE(rows, 200);
  // 120 > id (the constant on the left): groups 0 and 1.
  std::tie(groups, rows) = scan_with({expr::Compare("gt", lit(120), id)});
  EXPECT_EQ(groups, 2);
  // Conjunction: id < 120 AND id >= 100: group 1 only.
  std::tie(groups, rows) =
      scan_with({expr::Compare("lt", id, lit(120)), expr::Compare("ge", id, lit(100))});
  EXPECT_EQ(groups, 1);
  // id IN (5, 399): groups 0 and 3.
  std::tie(groups, rows) = scan_with({expr::Call(
      "in_list", {id, lit(5), lit(399), expr::Literal(Scalar::Null(Int64()))}, Boolean())});
  EXPECT_EQ(groups, 2);
  // s IS NULL: only group 2 has NULLs.
  std::tie(groups, rows) = scan_with({expr::IsNull(s)});
  EXPECT_EQ(groups, 1);
  // id = 1000: nothing, one empty partition.
  auto empty =
      table->Scan(ScanRequest{{0}, {expr::Compare("eq", id, lit(1000))}, std::nullopt}, config);
  ASSERT_OK(empty.status());
  EXPECT_EQ((*empty)->partition_count(), 1);
  EXPECT_EQ(RowGroupsIn(*empty), 0);
  // v > 1000: group 1 holds NaNs, which are greater than every number: never pruned.
  std::tie(groups, rows) = scan_with({expr::Compare("gt", v, flit(1000))});
  EXPECT_EQ(groups, 4);
  // v < 10: groups whose min is at least 10 go (group 1's NaNs are not < 10).
  std::tie(groups, rows) = scan_with({expr::Compare("lt", v, flit(10))});
  EXPECT_EQ(groups, 1);
  // A comparison with NULL prunes nothing (the filter above drops the rows).
  std::tie(groups, rows) =
      scan_with({expr::Compare("eq", id, expr::Literal(Scalar::Null(Int64())))});
  EXPECT_EQ(groups, 4);
}

TEST_F(ParquetTest, ScanExecLimitAndCountOnly) {
  std::string path = Write("a.parquet", 3, 100);
  auto table = Open({path});
  ASSERT_NE(table, nullptr);
  std::vector<std::vector<ParquetFileRange>> groups = {{ParquetFileRange{path, {0, 2}, 0}}};
  ASSERT_OK_AND_ASSIGN(PlanPtr scan,
                       ParquetScanExec::Make(table->schema(), groups, {0}, {}, int64_t{150}));
  SessionConfig config;
  ASSERT_OK(config.Set("batch_size", "40"));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(scan, Context(config)));
  std::vector<std::string> rows = Rows(batches);
  ASSERT_EQ(rows.size(), 150u);
  EXPECT_EQ(rows[0], "0");
  EXPECT_EQ(rows[99], "99");
  EXPECT_EQ(rows[100], "200");
  EXPECT_EQ(rows[149], "249");
  EXPECT_EQ(scan->ToString(),
            "ParquetScanExec: file_ranges=1 row_groups=2 projection=[id] limit=150");

  ASSERT_OK_AND_ASSIGN(PlanPtr count,
                       ParquetScanExec::Make(table->schema(), groups, {}, {}, std::nullopt));
  ASSERT_OK_AND_ASSIGN(batches, CollectAll(count, Context(config)));
  int64_t n = 0;
  for (const auto& b : batches) {
    EXPECT_EQ(b->num_columns(), 0);
    n += b->num_rows();
  }
  EXPECT_EQ(n, 200);
  EXPECT_THAT(ParquetScanExec::Make(table->schema(), groups, {7}, {}, std::nullopt),
              IsError(StatusCode::kInternal));
}

}  // namespace
}  // namespace floe::connector
