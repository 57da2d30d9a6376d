// generate_series as a table function and a scan node: integer series split into
// partitions, counting scans, batches and limits, timestamps with month steps (month ends
// clamp), interval steps, and the argument errors. Its results through SQL are checked by
// test/sql/builtin/generate_series.test.

#include "floe/connector/builtin/generate_series.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "floe/exec/execution_plan.h"
#include "floe/exec/memory_manager.h"
#include "floe/exec/session_config.h"
#include "floe/exec/tests/operators_test_support.h"
#include "floe/testing/matchers.h"

namespace floe::connector {
namespace {

using exec::CollectAll;
using exec::PlanPtr;
using exec::ScanRequest;
using exec::SessionConfig;
using exec::TaskContextPtr;
using exec::testing::Rows;
using ::floe::testing::IsError;
using ::testing::ElementsAre;

TaskContextPtr Context(SessionConfig config = {}) {
  return std::make_shared<exec::TaskContext>(
      std::move(config), std::make_shared<exec::MemoryManager>(0), nullptr,
      std::filesystem::temp_directory_path().string(), nullptr);
}

// Every batch of one partition.
Result<std::vector<RecordBatchPtr>> Partition(const PlanPtr& plan, int p,
                                              const TaskContextPtr& ctx) {
  std::vector<RecordBatchPtr> out;
  FLOE_ASSIGN_OR_RAISE(exec::BatchStreamPtr stream, exec::ExecutePlan(plan, p, ctx));
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (!batch) break;
    out.push_back(std::move(batch));
  }
  return out;
}

std::vector<plan::TableFunctionArg> Args(std::vector<Scalar> values) {
  std::vector<plan::TableFunctionArg> args;
  for (Scalar& v : values) args.push_back(plan::TableFunctionArg{"", std::move(v)});
  return args;
}

TEST(GenerateSeriesTest, IntegersSplitIntoPartitions) {
  ASSERT_OK_AND_ASSIGN(PlanPtr exec, GenerateSeriesExec::Make(1, 10, 3, 2));
  EXPECT_EQ(exec->ToString(), "GenerateSeriesExec: start=1 stop=10 step=3");
  EXPECT_EQ(exec->schema()->field(0).name(), "generate_series");
  TaskContextPtr ctx = Context();
  ASSERT_OK_AND_ASSIGN(auto p0, Partition(exec, 0, ctx));
  ASSERT_OK_AND_ASSIGN(auto p1, Partition(exec, 1, ctx));
  EXPECT_THAT(Rows(p0), ElementsAre("1", "4"));
  EXPECT_THAT(Rows(p1), ElementsAre("7", "10"));

  ASSERT_OK_AND_ASSIGN(PlanPtr down, GenerateSeriesExec::Make(5, -5, -4, 1));
  ASSERT_OK_AND_ASSIGN(auto rows, CollectAll(down, ctx));
  EXPECT_THAT(Rows(rows), ElementsAre("5", "1", "-3"));
  ASSERT_OK_AND_ASSIGN(PlanPtr none, GenerateSeriesExec::Make(5, 1, 1, 1));
  ASSERT_OK_AND_ASSIGN(rows, CollectAll(none, ctx));
  EXPECT_TRUE(rows.empty());
  int64_t max = std::numeric_limits<int64_t>::max();
  ASSERT_OK_AND_ASSIGN(PlanPtr edge, GenerateSeriesExec::Make(max - 2, max, 1, 1));
  ASSERT_OK_AND_ASSIGN(rows, CollectAll(edge, ctx));
  EXPECT_EQ(Rows(rows).size(), 3u);
  EXPECT_THAT(GenerateSeriesExec::Make(1, 2, 0, 1), IsError(StatusCode::kInvalidArgument));
}

TEST(GenerateSeriesTest, TableFunctionScansInBatches) {
  ASSERT_OK_AND_ASSIGN(plan::TableSourcePtr source,
                       MakeGenerateSeries(Args({Scalar::I32(1), Scalar::I64(20000)})));
  EXPECT_EQ(source->kind(), "generate_series");
  EXPECT_EQ(source->display_name(), "generate_series(1, 20000, 1)");
  EXPECT_EQ(*source->statistics().row_count, 20000);
  auto table = std::static_pointer_cast<const GenerateSeriesTable>(source);
  SessionConfig config;
  ASSERT_OK(config.Set("target_partitions", "4"));
  ASSERT_OK(config.Set("batch_size", "4096"));
  ASSERT_OK_AND_ASSIGN(PlanPtr scan, table->Scan(ScanRequest{{0}, {}, std::nullopt}, config));
  EXPECT_EQ(scan->partition_count(), 4);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(scan, Context(config)));
  int64_t rows = 0, sum = 0;
  for (const auto& b : batches) {
    EXPECT_LE(b->num_rows(), 4096);
    rows += b->num_rows();
    for (int64_t r = 0; r < b->num_rows(); ++r) sum += b->column(0)->Value<int64_t>(r);
  }
  EXPECT_EQ(rows, 20000);
  EXPECT_EQ(sum, int64_t{20000} * 20001 / 2);

  ASSERT_OK_AND_ASSIGN(PlanPtr limited, table->Scan(ScanRequest{{0}, {}, 3}, config));
  ASSERT_OK_AND_ASSIGN(batches, CollectAll(limited, Context(config)));
  EXPECT_THAT(Rows(batches), ElementsAre("1", "2", "3"));
  ASSERT_OK_AND_ASSIGN(PlanPtr counted, table->Scan(ScanRequest{{}, {}, std::nullopt}, config));
  EXPECT_EQ(counted->schema()->num_fields(), 0);
  ASSERT_OK_AND_ASSIGN(batches, CollectAll(counted, Context(config)));
  rows = 0;
  for (const auto& b : batches) rows += b->num_rows();
  EXPECT_EQ(rows, 20000);

  ASSERT_OK_AND_ASSIGN(source, MakeGenerateSeries(Args({Scalar::I64(1), Scalar::Null(Int64())})));
  EXPECT_EQ(*source->statistics().row_count, 0);
  EXPECT_THAT(MakeGenerateSeries(Args({Scalar::I64(1)})),
              ::floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "2 or 3 arguments"));
  EXPECT_THAT(MakeGenerateSeries(Args({Scalar::I64(1), Scalar::Str("x")})),
              ::floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "argument 2 (stop)"));
  EXPECT_THAT(MakeGenerateSeries(Args({Scalar::I64(1), Scalar::I64(5), Scalar::I64(0)})),
              ::floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "cannot equal zero"));
}

TEST(GenerateSeriesTest, TimestampsWithMonthSteps) {
  // 2024-01-31 00:00:00 UTC: a month later is 2024-02-29 (clamped), then 2024-03-29.
  const int64_t jan31 = int64_t{19753} * 86400 * 1000000;
  const int64_t apr30 = int64_t{19843} * 86400 * 1000000;
  ASSERT_OK_AND_ASSIGN(
      plan::TableSourcePtr source,
      MakeGenerateSeries(Args({Scalar::Make(Timestamp(), jan31), Scalar::Make(Timestamp(), apr30),
                               Scalar::Str("1 month")})));
  auto table = std::static_pointer_cast<const GenerateSeriesTable>(source);
  ASSERT_OK_AND_ASSIGN(PlanPtr scan,
                       table->Scan(ScanRequest{{0}, {}, std::nullopt}, SessionConfig()));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(scan, Context()));
  EXPECT_THAT(Rows(batches), ElementsAre("2024-01-31 00:00:00", "2024-02-29 00:00:00",
                                         "2024-03-29 00:00:00", "2024-04-29 00:00:00"));
  ASSERT_OK_AND_ASSIGN(IntervalStep step, ParseIntervalStep("1 day 2 hours -30 minutes"));
  EXPECT_EQ(step.months, 0);
  EXPECT_EQ(step.days, 1);
  EXPECT_EQ(step.micros, int64_t{90} * 60 * 1000000);
  EXPECT_THAT(ParseIntervalStep("3 fortnights"), IsError(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace floe::connector
