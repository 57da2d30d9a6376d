// Runtime: the in-process exchange, shuffle writer/reader, the stage planner and the
// scheduler, over small test-local operators.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/exec/coalesce_partitions_exec.h"
#include "floe/exec/exchange_service.h"
#include "floe/exec/execution_plan.h"
#include "floe/exec/recursive_query_exec.h"
#include "floe/exec/sort/sort_preserving_merge_exec.h"
#include "floe/exec/work_table_scan_exec.h"
#include "floe/expr/physical_expr.h"
#include "floe/scheduler/local_exchange.h"
#include "floe/scheduler/scheduler.h"
#include "floe/scheduler/shuffle_exec.h"
#include "floe/scheduler/stage_planner.h"
#include "floe/testing/matchers.h"

namespace floe::exec {
namespace {

SchemaPtr IntSchema() { return std::make_shared<const Schema>(std::vector<Field>{{"a", Int64()}}); }

RecordBatchPtr IntBatch(const std::vector<int64_t>& values) {
  NumericBuilder<int64_t> builder(Int64());
  for (int64_t v : values) EXPECT_OK(builder.Append(v));
  ArrayPtr column = builder.Finish().ValueOrDie();
  return RecordBatch::Make(IntSchema(), static_cast<int64_t>(values.size()), {column}).ValueOrDie();
}

std::vector<int64_t> Values(const std::vector<RecordBatchPtr>& batches) {
  std::vector<int64_t> out;
  for (const auto& batch : batches) {
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      out.push_back(batch->column(0)->Value<int64_t>(i));
    }
  }
  return out;
}

// A scan of batches held in memory, one list per partition. A partition listed in
// `fail_partition` fails after its first batch with kInvalidArgument.
class TestSourceExec final : public ExecutionPlan {
 public:
  TestSourceExec(std::vector<std::vector<RecordBatchPtr>> partitions, int fail_partition = -1,
                 std::atomic<int>* opened = nullptr)
      : partitions_(std::move(partitions)), fail_partition_(fail_partition), opened_(opened) {
    properties_.schema = IntSchema();
    properties_.partitioning = Partitioning::Unknown(static_cast<int>(partitions_.size()));
  }
  std::string_view name() const override { return "TestSourceExec"; }
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr>) const override {
    return shared_from_this();
  }
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr&) const override {
    if (opened_) opened_->fetch_add(1);
    std::vector<RecordBatchPtr> batches = partitions_[static_cast<size_t>(partition)];
    if (partition != fail_partition_) return MakeVectorStream(IntSchema(), batches);
    class Failing final : public BatchStream {
     public:
      explicit Failing(std::vector<RecordBatchPtr> batches) : batches_(std::move(batches)) {}
      const SchemaPtr& schema() const override { return schema_; }
      Result<RecordBatchPtr> Next() override {
        if (served_) return Status::Invalid("test source: partition broke after one batch");
        served_ = true;
        return batches_.empty() ? IntBatch({}) : batches_[0];
      }

     private:
      SchemaPtr schema_ = IntSchema();
      std::vector<RecordBatchPtr> batches_;
      bool served_ = false;
    };
    return BatchStreamPtr(std::make_unique<Failing>(std::move(batches)));
  }
  std::string ToString() const override {
    return "TestSourceExec: " + std::to_string(partitions_.size()) + " partitions";
  }

 private:
  std::vector<std::vector<RecordBatchPtr>> partitions_;
  int fail_partition_;
  std::atomic<int>* opened_;
  PlanProperties properties_;
};

// Sums column a of every partition into one row per partition (a stand-in for an
// aggregation above an exchange).
class TestSumExec final : public ExecutionPlan {
 public:
  explicit TestSumExec(PlanPtr input) : input_(std::move(input)) {
    properties_.schema = IntSchema();
    properties_.partitioning = Partitioning::Unknown(input_->partition_count());
  }
  std::string_view name() const override { return "TestSumExec"; }
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override {
    return PlanPtr(std::make_shared<TestSumExec>(children[0]));
  }
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override {
    FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(input_, partition, ctx));
    int64_t sum = 0;
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input->Next());
      if (!batch) break;
      for (int64_t v : Values({batch})) sum += v;
    }
    return MakeVectorStream(IntSchema(), {IntBatch({sum})});
  }
  std::string ToString() const override { return "TestSumExec"; }

 private:
  PlanPtr input_;
  PlanProperties properties_;
};

// A round-robin exchange node with the name the stage planner cuts at; executing it
// in-process is not needed here.
class TestRepartitionExec final : public ExecutionPlan {
 public:
  TestRepartitionExec(PlanPtr input, int n) : input_(std::move(input)) {
    properties_.schema = input_->schema();
    properties_.partitioning = Partitioning::RoundRobin(n);
  }
  std::string_view name() const override { return "RepartitionExec"; }
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {input_}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override {
    return PlanPtr(std::make_shared<TestRepartitionExec>(
        children[0], properties_.partitioning.partition_count()));
  }
  Result<BatchStreamPtr> Execute(int, const TaskContextPtr&) const override {
    return Status::Internal("TestRepartitionExec runs only as a stage boundary");
  }
  std::string ToString() const override { return "RepartitionExec: RoundRobin"; }

 private:
  PlanPtr input_;
  PlanProperties properties_;
};

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() /
        ("floe-runtime-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    pool_ = ThreadPool::Make(3).ValueOrDie();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  TaskContextPtr MakeContext(int64_t memory_limit = 0, int64_t batch_size = 8192) {
    SessionConfig config;
    EXPECT_OK(config.Set("batch_size", std::to_string(batch_size)));
    auto memory = std::make_shared<MemoryManager>(memory_limit);
    return std::make_shared<TaskContext>(config, memory, pool_.get(), dir_.string(),
                                         scheduler::MakeLocalExchange(memory, dir_.string()));
  }

  int FilesInDir() const {
    int n = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir_)) ++n;
    return n;
  }

  // Runs every stage and returns the final stage's rows.
  Result<std::vector<int64_t>> RunStages(const PlanPtr& plan, const TaskContextPtr& ctx) {
    FLOE_ASSIGN_OR_RAISE(scheduler::StagePlan stages, scheduler::PlanStages(plan));
    FLOE_ASSIGN_OR_RAISE(auto scheduler, scheduler::QueryScheduler::Start(std::move(stages), ctx));
    std::vector<RecordBatchPtr> batches;
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, scheduler->Next());
      if (!batch) break;
      batches.push_back(batch);
    }
    return Values(batches);
  }

  // Three partitions holding 1..30 in batches of five.
  static PlanPtr Source(int fail_partition = -1) {
    std::vector<std::vector<RecordBatchPtr>> partitions(3);
    for (int p = 0; p < 3; ++p) {
      for (int b = 0; b < 2; ++b) {
        std::vector<int64_t> values;
        for (int i = 0; i < 5; ++i) values.push_back(p * 10 + b * 5 + i + 1);
        partitions[static_cast<size_t>(p)].push_back(IntBatch(values));
      }
    }
    return std::make_shared<TestSourceExec>(std::move(partitions), fail_partition);
  }

  std::filesystem::path dir_;
  std::unique_ptr<ThreadPool> pool_;
};

TEST_F(RuntimeTest, ExchangeStreamsInputPartitionsInOrder) {
  auto ctx = MakeContext();
  auto exchange = ctx->exchange();
  ASSERT_OK(exchange->RegisterStage(7, IntSchema(), 2, 2));
  EXPECT_THAT(exchange->RegisterStage(7, IntSchema(), 2, 2),
              testing::IsError(StatusCode::kInvalidArgument));
  ASSERT_OK(exchange->Write(7, 1, 0, IntBatch({10, 11})));
  ASSERT_OK(exchange->Write(7, 0, 0, IntBatch({1})));
  ASSERT_OK(exchange->Write(7, 0, 1, IntBatch({2})));
  ASSERT_OK(exchange->Finish(7, 1));
  EXPECT_FALSE(exchange->IsComplete(7));
  EXPECT_THAT(exchange->Open(7, 0),
              testing::IsErrorWith(StatusCode::kInternal, "read before it completed"));
  // Rows are counted for readers once the stage is complete only.
  EXPECT_EQ(exchange->RowCount(7, 0), std::nullopt);
  ASSERT_OK(exchange->Write(7, 0, 0, IntBatch({3})));
  ASSERT_OK(exchange->Finish(7, 0));
  EXPECT_TRUE(exchange->IsComplete(7));
  EXPECT_EQ(exchange->RowCount(7, 0), 4);
  EXPECT_EQ(exchange->RowCount(7, 1), 1);
  EXPECT_EQ(exchange->RowCount(7, 2), std::nullopt);
  EXPECT_EQ(exchange->RowCount(8, 0), std::nullopt);
  ASSERT_OK_AND_ASSIGN(auto stream, exchange->Open(7, 0));
  std::vector<RecordBatchPtr> batches;
  while (auto batch = stream->Next().ValueOrDie()) batches.push_back(batch);
  EXPECT_EQ(Values(batches), (std::vector<int64_t>{1, 3, 10, 11}));
  ASSERT_OK_AND_ASSIGN(stream, exchange->Open(7, 1));
  batches.clear();
  while (auto batch = stream->Next().ValueOrDie()) batches.push_back(batch);
  EXPECT_EQ(Values(batches), (std::vector<int64_t>{2}));
  EXPECT_THAT(exchange->Open(8, 0), testing::IsErrorWith(StatusCode::kInternal, "unknown"));
}

TEST_F(RuntimeTest, ExchangeSpillsPastTheBudgetAndGivesIdenticalRows) {
  // A budget of 1 byte holds no batch: every batch goes to disk; the exchange's half of
  // 200 bytes holds one batch of five int64 values (a 64-byte pool block) at a time.
  std::vector<int64_t> expected;
  for (int i = 1; i <= 30; ++i) expected.push_back(i);
  for (int64_t budget : {int64_t{0}, int64_t{1}, int64_t{200}}) {
    auto ctx = MakeContext(budget);
    PlanPtr plan = CoalescePartitionsExec::Make(Source()).ValueOrDie();
    ASSERT_OK_AND_ASSIGN(std::vector<int64_t> rows, RunStages(plan, ctx));
    EXPECT_EQ(rows, expected) << "budget " << budget;
    if (budget == 1) {
      EXPECT_EQ(FilesInDir(), 3);  // one file per input partition's output
      EXPECT_EQ(ctx->memory()->reserved(), 0);
    }
    if (budget == 0) {
      EXPECT_EQ(FilesInDir(), 0);
    }
    ctx.reset();
    EXPECT_EQ(FilesInDir(), 0) << "budget " << budget;
  }
}

// The batches waiting in an exchange hold at most half of the budget: the operators that
// read them find the other half free.
TEST_F(RuntimeTest, ExchangeBuffersHoldAtMostHalfTheBudget) {
  auto ctx = MakeContext(1000);
  auto exchange = ctx->exchange();
  ASSERT_OK(exchange->RegisterStage(3, IntSchema(), 2, 1));
  for (int b = 0; b < 40; ++b) {
    std::vector<int64_t> values;
    for (int i = 0; i < 5; ++i) values.push_back(b * 5 + i);
    // Two writers, as two tasks of the stage would be.
    ASSERT_OK(exchange->Write(3, b % 2, 0, IntBatch(values)));
    EXPECT_LE(ctx->memory()->reserved(), 500) << "batch " << b;
  }
  EXPECT_GT(ctx->memory()->reserved(), 0);
  EXPECT_GT(FilesInDir(), 0);
  MemoryReservation reader(ctx->memory(), "reader");
  EXPECT_TRUE(reader.TryResize(500));
  ASSERT_OK(exchange->Finish(3, 0));
  ASSERT_OK(exchange->Finish(3, 1));
  // Spilled batches count as the ones held in memory.
  EXPECT_EQ(exchange->RowCount(3, 0), 200);
  ASSERT_OK_AND_ASSIGN(auto stream, exchange->Open(3, 0));
  std::vector<RecordBatchPtr> batches;
  while (auto batch = stream->Next().ValueOrDie()) batches.push_back(batch);
  std::vector<int64_t> rows = Values(batches);
  std::sort(rows.begin(), rows.end());
  std::vector<int64_t> want(200);
  for (int i = 0; i < 200; ++i) want[static_cast<size_t>(i)] = i;
  EXPECT_EQ(rows, want);
  stream.reset();
  exchange->Remove(3);
  EXPECT_EQ(ctx->memory()->reserved(), 500);  // the reader's only
  EXPECT_EQ(FilesInDir(), 0);
}

TEST_F(RuntimeTest, StagesOfACoalesce) {
  PlanPtr plan = std::make_shared<TestSumExec>(CoalescePartitionsExec::Make(Source()).ValueOrDie());
  ASSERT_OK_AND_ASSIGN(scheduler::StagePlan stages, scheduler::PlanStages(plan));
  EXPECT_EQ(stages.ToString(),
            "Stage 1, 3 tasks, inputs: none\n"
            "  ShuffleWriterExec: stage=1, output=Single  [partitions=3 Unknown(3)]\n"
            "    TestSourceExec: 3 partitions  [partitions=3 Unknown(3)]\n"
            "Stage 2 (final), 1 task, inputs: 1\n"
            "  TestSumExec  [partitions=1 Unknown(1)]\n"
            "    ShuffleReaderExec: stage=1  [partitions=1 Single]\n");
  auto ctx = MakeContext();
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> rows, RunStages(plan, ctx));
  EXPECT_EQ(rows, (std::vector<int64_t>{465}));
}

TEST_F(RuntimeTest, StagesOfARepartitionChain) {
  // source(3) -> repartition(2) -> sum per partition -> coalesce -> sum.
  PlanPtr repartitioned = std::make_shared<TestRepartitionExec>(Source(), 2);
  PlanPtr partial = std::make_shared<TestSumExec>(repartitioned);
  PlanPtr plan = std::make_shared<TestSumExec>(CoalescePartitionsExec::Make(partial).ValueOrDie());
  ASSERT_OK_AND_ASSIGN(scheduler::StagePlan stages, scheduler::PlanStages(plan));
  EXPECT_EQ(stages.ToString(),
            "Stage 1, 3 tasks, inputs: none\n"
            "  ShuffleWriterExec: stage=1, output=RoundRobin(2)  [partitions=3 Unknown(3)]\n"
            "    TestSourceExec: 3 partitions  [partitions=3 Unknown(3)]\n"
            "Stage 2, 2 tasks, inputs: 1\n"
            "  ShuffleWriterExec: stage=2, output=Single  [partitions=2 Unknown(2)]\n"
            "    TestSumExec  [partitions=2 Unknown(2)]\n"
            "      ShuffleReaderExec: stage=1  [partitions=2 RoundRobin(2)]\n"
            "Stage 3 (final), 1 task, inputs: 2\n"
            "  TestSumExec  [partitions=1 Unknown(1)]\n"
            "    ShuffleReaderExec: stage=2  [partitions=1 Single]\n");
  for (int64_t batch_size : {1, 7, 8192}) {
    auto ctx = MakeContext(0, batch_size);
    ASSERT_OK_AND_ASSIGN(std::vector<int64_t> rows, RunStages(plan, ctx));
    EXPECT_EQ(rows, (std::vector<int64_t>{465})) << batch_size;
  }
  // The round robin hands whole batches out in turn starting at the input partition:
  // the partial sums are exact.
  auto ctx = MakeContext();
  PlanPtr two = CoalescePartitionsExec::Make(partial).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> sums, RunStages(two, ctx));
  // Partition 0 gets batch 0 of inputs 0 and 2 and batch 1 of input 1; partition 1 the
  // others.
  EXPECT_EQ(sums, (std::vector<int64_t>{15 + 115 + 90, 40 + 65 + 140}));
}

TEST_F(RuntimeTest, AMergeReadsEachInputPartitionInOrder) {
  PhysicalSortExpr key;
  key.expr = expr::Compile(expr::Column(0, "a", Int64()), IntSchema()).ValueOrDie();
  // Partitions of 3 sorted runs interleaved: 1,4,7,... / 2,5,8,... / 3,6,9,...
  std::vector<std::vector<RecordBatchPtr>> partitions(3);
  for (int p = 0; p < 3; ++p) {
    std::vector<int64_t> values;
    for (int i = 0; i < 10; ++i) values.push_back(i * 3 + p + 1);
    partitions[static_cast<size_t>(p)] = {IntBatch(values)};
  }
  PlanPtr source = std::make_shared<TestSourceExec>(partitions);
  PlanPtr plan = SortPreservingMergeExec::Make({key}, source, std::nullopt).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(scheduler::StagePlan stages, scheduler::PlanStages(plan));
  EXPECT_EQ(stages.ToString(),
            "Stage 1, 3 tasks, inputs: none\n"
            "  ShuffleWriterExec: stage=1, output=KeepPartitions(3)  [partitions=3 Unknown(3)]\n"
            "    TestSourceExec: 3 partitions  [partitions=3 Unknown(3)]\n"
            "Stage 2 (final), 1 task, inputs: 1\n"
            "  SortPreservingMergeExec: a  [partitions=1 Single]\n"
            "    ShuffleReaderExec: stage=1  [partitions=3 Unknown(3)]\n");
  std::vector<int64_t> expected;
  for (int i = 1; i <= 30; ++i) expected.push_back(i);
  for (int64_t batch_size : {1, 4, 8192}) {
    auto ctx = MakeContext(0, batch_size);
    ASSERT_OK_AND_ASSIGN(std::vector<int64_t> rows, RunStages(plan, ctx));
    EXPECT_EQ(rows, expected) << batch_size;
  }
  // Over one partition the merge needs no exchange.
  PlanPtr one = SortPreservingMergeExec::Make(
                    {key},
                    std::make_shared<TestSourceExec>(
                        std::vector<std::vector<RecordBatchPtr>>{{IntBatch({1, 2})}}),
                    std::nullopt)
                    .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(stages, scheduler::PlanStages(one));
  EXPECT_EQ(stages.stages().size(), 1u);
}

TEST_F(RuntimeTest, AFailedTaskFailsTheQueryAndCleansUp) {
  for (int budget : {0, 100}) {
    auto ctx = MakeContext(budget);
    PlanPtr plan = std::make_shared<TestSumExec>(
        CoalescePartitionsExec::Make(Source(/*fail_partition=*/1)).ValueOrDie());
    EXPECT_THAT(RunStages(plan, ctx),
                testing::IsErrorWith(StatusCode::kInvalidArgument, "partition broke"));
    EXPECT_TRUE(ctx->cancelled());
    ctx.reset();
    EXPECT_EQ(FilesInDir(), 0);
  }
}

TEST_F(RuntimeTest, DroppingARunningQueryCancelsIt) {
  auto ctx = MakeContext();
  PlanPtr plan = CoalescePartitionsExec::Make(Source()).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(scheduler::StagePlan stages, scheduler::PlanStages(plan));
  ASSERT_OK_AND_ASSIGN(auto scheduler, scheduler::QueryScheduler::Start(std::move(stages), ctx));
  scheduler->Cancel();
  EXPECT_THAT(scheduler->Next(), testing::IsError(StatusCode::kCancelled));
  scheduler.reset();
}

TEST_F(RuntimeTest, ARecursiveQueryRunsInOneTaskAndStopsWhenCancelled) {
  // A recursive term that reads the work table back: with UNION every row is seen before
  // after the first run, so the recursion ends; with UNION ALL it never does.
  PlanPtr source = Source();
  ASSERT_OK_AND_ASSIGN(PlanPtr scan, WorkTableScanExec::Make("t", 1, source->schema()));
  ASSERT_OK_AND_ASSIGN(PlanPtr coalesced, CoalescePartitionsExec::Make(source));
  ASSERT_OK_AND_ASSIGN(PlanPtr distinct, RecursiveQueryExec::Make("t", 1, true, coalesced, scan));
  // No stage is cut inside the recursion: the exchange under it runs within its task.
  ASSERT_OK_AND_ASSIGN(scheduler::StagePlan stages, scheduler::PlanStages(distinct));
  EXPECT_EQ(stages.stages().size(), 1u);
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> rows, RunStages(distinct, MakeContext()));
  std::sort(rows.begin(), rows.end());
  ASSERT_EQ(rows.size(), 30u);
  EXPECT_EQ(rows.back(), 30);

  ASSERT_OK_AND_ASSIGN(PlanPtr endless, RecursiveQueryExec::Make("t", 1, false, coalesced, scan));
  ASSERT_OK_AND_ASSIGN(stages, scheduler::PlanStages(endless));
  ASSERT_OK_AND_ASSIGN(auto scheduler,
                       scheduler::QueryScheduler::Start(std::move(stages), MakeContext()));
  std::thread canceller([&scheduler] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    scheduler->Cancel();
  });
  int64_t batches = 0;
  Status status;
  while (true) {
    Result<RecordBatchPtr> batch = scheduler->Next();
    if (!batch.ok()) {
      status = batch.status();
      break;
    }
    if (!*batch) break;
    ++batches;
  }
  canceller.join();
  EXPECT_THAT(status, testing::IsError(StatusCode::kCancelled));
  EXPECT_GT(batches, 30);
}

TEST_F(RuntimeTest, ASingleStageRunsInTheCallersThread) {
  auto ctx = MakeContext();
  ASSERT_OK_AND_ASSIGN(scheduler::StagePlan stages, scheduler::PlanStages(Source()));
  ASSERT_EQ(stages.stages().size(), 1u);
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> rows, RunStages(Source(), ctx));
  ASSERT_EQ(rows.size(), 30u);
  EXPECT_EQ(rows.front(), 1);
  EXPECT_EQ(rows.back(), 30);
}

TEST_F(RuntimeTest, ShuffleWriterRejectsWhatItCannotProduce) {
  EXPECT_THAT(scheduler::ShuffleWriterExec::Make(Source(), 1, Partitioning::Unknown(2)),
              testing::IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(scheduler::ShuffleWriterExec::Make(Source(), 1, Partitioning::Hash({}, 2)),
              testing::IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(scheduler::ShuffleWriterExec::Make(Source(), 1, Partitioning::Unknown(3)),
              testing::IsOk());
}

}  // namespace
}  // namespace floe::exec
