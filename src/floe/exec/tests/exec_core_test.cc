// Streaming nodes and in-process exchanges: exact outputs, partition counts, EXPLAIN
// lines, early stopping, enforcement of required distributions/orderings, and the session
// settings and memory budget they run with.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/exec/coalesce_partitions_exec.h"
#include "floe/exec/empty_exec.h"
#include "floe/exec/enforce.h"
#include "floe/exec/execution_plan.h"
#include "floe/exec/filter_exec.h"
#include "floe/exec/limit_exec.h"
#include "floe/exec/max_one_row_exec.h"
#include "floe/exec/memory_manager.h"
#include "floe/exec/projection_exec.h"
#include "floe/exec/recursive_query_exec.h"
#include "floe/exec/repartition_exec.h"
#include "floe/exec/session_config.h"
#include "floe/exec/sort/sort_exec.h"
#include "floe/exec/sort/sort_preserving_merge_exec.h"
#include "floe/exec/union_exec.h"
#include "floe/exec/values_exec.h"
#include "floe/exec/work_table_scan_exec.h"
#include "floe/expr/expr.h"
#include "floe/testing/batch_rows.h"
#include "floe/testing/matchers.h"

namespace floe::exec {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsOk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAreArray;

// ---------------------------------------------------------------------------------------
// Helpers.

ArrayPtr Int64s(const std::vector<std::optional<int64_t>>& values) {
  auto builder = MakeBuilder(Int64());
  for (const auto& v : values) {
    EXPECT_OK(v ? builder->AppendScalar(Scalar::I64(*v)) : builder->AppendNull());
  }
  return *builder->Finish();
}

ArrayPtr Strings(const std::vector<std::optional<std::string>>& values) {
  auto builder = MakeBuilder(String());
  for (const auto& v : values) {
    EXPECT_OK(v ? builder->AppendScalar(Scalar::Str(*v)) : builder->AppendNull());
  }
  return *builder->Finish();
}

SchemaPtr IntStringSchema() {
  return std::make_shared<const Schema>(
      std::vector<Field>{Field("a", Int64()), Field("b", String())});
}

RecordBatchPtr Batch(const SchemaPtr& schema, std::vector<ArrayPtr> columns) {
  int64_t rows = columns.empty() ? 0 : columns[0]->length();
  return *RecordBatch::Make(schema, rows, std::move(columns));
}

// Every row as "v1|v2|..." (NULL as NULL).
std::vector<std::string> Rows(const std::vector<RecordBatchPtr>& batches) {
  return ::floe::testing::BatchRows(batches);
}

TaskContextPtr MakeContext(SessionConfig config = {}, int64_t memory_limit = 0,
                           std::string spill_directory = "") {
  if (spill_directory.empty()) spill_directory = std::filesystem::temp_directory_path().string();
  return std::make_shared<TaskContext>(std::move(config),
                                       std::make_shared<MemoryManager>(memory_limit), nullptr,
                                       std::move(spill_directory), nullptr);
}

expr::PhysicalExprPtr Col(const SchemaPtr& schema, int i) {
  const Field& f = schema->field(i);
  return *expr::Compile(expr::Column(i, f.name(), f.type(), f.nullable()), schema);
}

expr::PhysicalExprPtr Compiled(const expr::ExprPtr& e, const SchemaPtr& schema) {
  return *expr::Compile(e, schema);
}

expr::ExprPtr ColExpr(const SchemaPtr& schema, int i) {
  const Field& f = schema->field(i);
  return expr::Column(i, f.name(), f.type(), f.nullable());
}

Result<std::vector<RecordBatchPtr>> Partition(const PlanPtr& plan, int p,
                                              const TaskContextPtr& ctx) {
  std::vector<RecordBatchPtr> out;
  FLOE_ASSIGN_OR_RAISE(BatchStreamPtr stream, ExecutePlan(plan, p, ctx));
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (!batch) break;
    out.push_back(std::move(batch));
  }
  return out;
}

// A leaf with given batches per partition and a declared partitioning and ordering, that
// counts the batches pulled from it.
class SourceExec final : public ExecutionPlan {
 public:
  SourceExec(SchemaPtr schema, std::vector<std::vector<RecordBatchPtr>> partitions,
             std::optional<Partitioning> partitioning = std::nullopt, Ordering ordering = {})
      : partitions_(std::move(partitions)) {
    properties_.schema = std::move(schema);
    properties_.partitioning =
        partitioning ? *partitioning : Partitioning::Unknown(static_cast<int>(partitions_.size()));
    properties_.ordering = std::move(ordering);
  }
  std::string_view name() const override { return "SourceExec"; }
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr>) const override {
    return PlanPtr(shared_from_this());
  }
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr&) const override {
    class Counting final : public BatchStream {
     public:
      Counting(const SourceExec* node, int p) : node_(node), p_(p) {}
      const SchemaPtr& schema() const override { return node_->schema(); }
      Result<RecordBatchPtr> Next() override {
        const auto& batches = node_->partitions_[static_cast<size_t>(p_)];
        if (next_ >= batches.size()) return RecordBatchPtr();
        node_->pulled_.fetch_add(1);
        return batches[next_++];
      }

     private:
      const SourceExec* node_;
      int p_;
      size_t next_ = 0;
    };
    return BatchStreamPtr(std::make_unique<Counting>(this, partition));
  }
  std::string ToString() const override { return "SourceExec"; }
  int pulled() const { return pulled_.load(); }

 private:
  std::vector<std::vector<RecordBatchPtr>> partitions_;
  PlanProperties properties_;
  mutable std::atomic<int> pulled_{0};
};

// A pass-through node that declares requirements of each of its children.
class RequireExec final : public ExecutionPlan {
 public:
  static PlanPtr Make(std::vector<PlanPtr> children, std::vector<Distribution> distributions,
                      std::vector<Ordering> orderings) {
    return std::make_shared<RequireExec>(std::move(children), std::move(distributions),
                                         std::move(orderings));
  }
  RequireExec(std::vector<PlanPtr> children, std::vector<Distribution> distributions,
              std::vector<Ordering> orderings)
      : children_(std::move(children)),
        distributions_(std::move(distributions)),
        orderings_(std::move(orderings)) {
    properties_.schema = children_[0]->schema();
    properties_.partitioning = children_[0]->properties().partitioning;
  }
  std::string_view name() const override { return "RequireExec"; }
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return children_; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override {
    return Make(std::move(children), distributions_, orderings_);
  }
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override {
    return ExecutePlan(children_[0], partition, ctx);
  }
  std::vector<Distribution> RequiredInputDistribution() const override { return distributions_; }
  std::vector<Ordering> RequiredInputOrdering() const override { return orderings_; }
  std::string ToString() const override { return "RequireExec"; }

 private:
  std::vector<PlanPtr> children_;
  std::vector<Distribution> distributions_;
  std::vector<Ordering> orderings_;
  PlanProperties properties_;
};

// "Name  [partitions=..]" lines without their details after the colon, for plan shapes.
std::string Shape(const PlanPtr& plan) {
  std::string out;
  std::function<void(const ExecutionPlan&, int)> visit = [&](const ExecutionPlan& node, int depth) {
    out += std::string(static_cast<size_t>(depth) * 2, ' ') + std::string(node.name()) + "(" +
           std::to_string(node.partition_count()) + ")\n";
    for (const PlanPtr& child : node.children()) visit(*child, depth + 1);
  };
  visit(*plan, 0);
  return out;
}

// ---------------------------------------------------------------------------------------
// Settings and memory.

TEST(SessionConfigTest, DefaultsSetGetReset) {
  SessionConfig config;
  EXPECT_EQ(config.batch_size(), 8192);
  EXPECT_GE(config.target_partitions(), 1);
  EXPECT_EQ(config.broadcast_join_threshold(), 16 << 20);
  EXPECT_TRUE(config.prefer_hash_join());
  EXPECT_EQ(config.time_zone(), "UTC");
  EXPECT_GT(config.memory_limit(), 0);

  ASSERT_OK(config.Set("batch_size", "100"));
  EXPECT_EQ(config.batch_size(), 100);
  ASSERT_OK(config.Set("MEMORY_LIMIT", "512MB"));
  EXPECT_EQ(config.memory_limit(), int64_t{512} << 20);
  ASSERT_OK_AND_ASSIGN(std::string text, config.Get("memory_limit"));
  EXPECT_EQ(text, "512MB");
  ASSERT_OK(config.Set("prefer_hash_join", "off"));
  EXPECT_FALSE(config.prefer_hash_join());
  ASSERT_OK_AND_ASSIGN(text, config.Get("prefer_hash_join"));
  EXPECT_EQ(text, "off");
  ASSERT_OK(config.Reset("batch_size"));
  EXPECT_EQ(config.batch_size(), 8192);

  EXPECT_THAT(config.Set("no_such_setting", "1"),
              ::floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "no_such_setting"));
  EXPECT_THAT(config.Set("batch_size", "0"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(config.Set("batch_size", "ten"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(config.Set("prefer_hash_join", "maybe"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(config.Set("memory_limit", "12 parsecs"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(config.Get("nope"), IsError(StatusCode::kInvalidArgument));
  EXPECT_EQ(SessionConfig::Registered().size(), config.values().size());
}

TEST(SessionConfigTest, IcebergScanSettings) {
  SessionConfig config;
  EXPECT_EQ(config.iceberg_read_concurrency(), 2);
  EXPECT_EQ(config.iceberg_read_ahead_bytes(), 64 << 20);
  EXPECT_TRUE(config.iceberg_use_page_index());
  ASSERT_OK(config.Set("iceberg.read_concurrency", "64"));
  ASSERT_OK(config.Set("iceberg.read_ahead_bytes", "0"));
  ASSERT_OK(config.Set("iceberg.use_page_index", "off"));
  EXPECT_EQ(config.iceberg_read_concurrency(), 64);
  EXPECT_EQ(config.iceberg_read_ahead_bytes(), 0);
  EXPECT_FALSE(config.iceberg_use_page_index());
  ASSERT_OK(config.Set("iceberg.read_ahead_bytes", "1MB"));
  EXPECT_EQ(config.iceberg_read_ahead_bytes(), 1 << 20);
  // A rejected value leaves the setting as it was.
  EXPECT_THAT(config.Set("iceberg.read_concurrency", "65"), IsError(StatusCode::kInvalidArgument));
  EXPECT_EQ(config.iceberg_read_concurrency(), 64);
}

TEST(SessionConfigTest, ParseBytes) {
  EXPECT_EQ(*ParseBytes("1000"), 1000);
  EXPECT_EQ(*ParseBytes("2GB"), int64_t{2} << 30);
  EXPECT_EQ(*ParseBytes("64KiB"), 64 << 10);
  EXPECT_EQ(*ParseBytes(" 1.5 mb "), int64_t{3} << 19);
  EXPECT_THAT(ParseBytes("GB"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseBytes("-1"), IsError(StatusCode::kInvalidArgument));
}

TEST(MemoryManagerTest, ReservationsRespectTheLimit) {
  MemoryManager manager(1000);
  MemoryReservation a(&manager, "SortExec");
  MemoryReservation b(&manager, "HashJoinExec");
  EXPECT_TRUE(a.TryResize(600));
  EXPECT_FALSE(b.TryResize(500));
  EXPECT_EQ(b.size(), 0);
  Status st = b.Resize(500);
  EXPECT_THAT(st, IsError(StatusCode::kOutOfMemory));
  // The figures add up past the limit: what it needs and what the others hold.
  EXPECT_EQ(st.message(),
            "memory_limit of 1000 bytes exceeded: HashJoinExec needs 500 bytes while the rest of "
            "the query holds 600 bytes");
  EXPECT_THAT(b.Resize(1500),
              ::floe::testing::IsErrorWith(StatusCode::kOutOfMemory,
                                           "memory_limit of 1000 bytes exceeded: HashJoinExec "
                                           "needs 1.5 KiB, more than the whole limit"));
  EXPECT_TRUE(a.TryResize(100));
  EXPECT_OK(b.Resize(900));
  EXPECT_EQ(manager.reserved(), 1000);
  EXPECT_EQ(manager.peak(), 1000);
  a.Free();
  EXPECT_EQ(manager.reserved(), 900);
  {
    MemoryReservation c(&manager, "c");
    EXPECT_TRUE(c.TryResize(100));
  }
  EXPECT_EQ(manager.reserved(), 900);
  MemoryManager unlimited(0);
  EXPECT_TRUE(unlimited.TryReserve(int64_t{1} << 50));
}

// ---------------------------------------------------------------------------------------
// Plan helpers.

TEST(PlanHelpersTest, PartitioningAndOrdering) {
  SchemaPtr schema = IntStringSchema();
  auto a = Col(schema, 0);
  auto b = Col(schema, 1);
  auto a_again = Col(schema, 0);
  EXPECT_EQ(Partitioning::Single().ToString(), "Single");
  EXPECT_EQ(Partitioning::RoundRobin(4).ToString(), "RoundRobin(4)");
  EXPECT_EQ(Partitioning::Unknown(3).ToString(), "Unknown(3)");
  EXPECT_EQ(Partitioning::Hash({a, b}, 4).ToString(),
            "Hash([" + a->ToString() + ", " + b->ToString() + "], 4)");
  EXPECT_EQ(Distribution::Single().ToString(), "Single");

  EXPECT_TRUE(PartitioningSatisfies(Partitioning::Hash({a}, 4), Distribution::Hash({a_again})));
  EXPECT_FALSE(PartitioningSatisfies(Partitioning::Hash({a}, 4), Distribution::Hash({b})));
  EXPECT_FALSE(PartitioningSatisfies(Partitioning::Hash({a}, 4), Distribution::Hash({a, b})));
  EXPECT_FALSE(PartitioningSatisfies(Partitioning::RoundRobin(4), Distribution::Hash({a})));
  EXPECT_TRUE(PartitioningSatisfies(Partitioning::Unknown(1), Distribution::Hash({a})));
  EXPECT_TRUE(PartitioningSatisfies(Partitioning::Single(), Distribution::Single()));
  EXPECT_TRUE(PartitioningSatisfies(Partitioning::Single(), Distribution::Broadcast()));
  EXPECT_FALSE(PartitioningSatisfies(Partitioning::Unknown(2), Distribution::Single()));
  EXPECT_TRUE(PartitioningSatisfies(Partitioning::Unknown(2), Distribution::Unspecified()));

  Ordering ab = {PhysicalSortExpr{a, false, false}, PhysicalSortExpr{b, true, true}};
  Ordering a_only = {PhysicalSortExpr{a_again, false, false}};
  Ordering a_desc = {PhysicalSortExpr{a, true, true}};
  EXPECT_TRUE(OrderingSatisfies(ab, a_only));
  EXPECT_TRUE(OrderingSatisfies(ab, {}));
  EXPECT_FALSE(OrderingSatisfies(a_only, ab));
  EXPECT_FALSE(OrderingSatisfies(ab, a_desc));
  EXPECT_EQ(OrderingToString(ab), a->ToString() + ", " + b->ToString() + " DESC");
  EXPECT_EQ(PhysicalSortExpr({a, false, true}).ToString(), a->ToString() + " NULLS FIRST");
  EXPECT_EQ(PhysicalSortExpr({a, true, false}).ToString(), a->ToString() + " DESC NULLS LAST");
}

TEST(PlanHelpersTest, GetOrCreateSharedMakesOnce) {
  TaskContextPtr ctx = MakeContext();
  int made = 0;
  int key = 0;
  std::function<Result<std::shared_ptr<const int>>()> make = [&]() {
    ++made;
    return Result<std::shared_ptr<const int>>(std::make_shared<const int>(42));
  };
  ASSERT_OK_AND_ASSIGN(auto first, ctx->GetOrCreateShared<int>(&key, make));
  ASSERT_OK_AND_ASSIGN(auto second, ctx->GetOrCreateShared<int>(&key, make));
  EXPECT_EQ(*first, 42);
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(made, 1);
}

TEST(PlanHelpersTest, ChildContextsShareTheQueryButNotItsSharedState) {
  TaskContextPtr ctx = MakeContext();
  ctx->set_collect_metrics(true);
  TaskContextPtr child = TaskContext::MakeChild(ctx);
  TaskContextPtr grandchild = TaskContext::MakeChild(child);
  EXPECT_EQ(child->memory(), ctx->memory());
  EXPECT_EQ(grandchild->metrics(), ctx->metrics());

  // State shared by node is the child's own: made again, and dropped with it.
  int made = 0;
  int key = 0;
  std::function<Result<std::shared_ptr<const int>>()> make = [&]() {
    return Result<std::shared_ptr<const int>>(std::make_shared<const int>(++made));
  };
  ASSERT_OK_AND_ASSIGN(auto in_query, ctx->GetOrCreateShared<int>(&key, make));
  ASSERT_OK_AND_ASSIGN(auto in_child, child->GetOrCreateShared<int>(&key, make));
  EXPECT_EQ(*in_query, 1);
  EXPECT_EQ(*in_child, 2);

  // Work tables are found from the context they were set on downwards.
  auto table = std::make_shared<WorkTable>();
  child->SetWorkTable(7, table);
  EXPECT_EQ(grandchild->FindWorkTable(7), table);
  EXPECT_EQ(ctx->FindWorkTable(7), nullptr);
  EXPECT_EQ(grandchild->FindWorkTable(8), nullptr);

  // Cancelling the query cancels its children.
  EXPECT_FALSE(grandchild->cancelled());
  ctx->Cancel();
  EXPECT_TRUE(grandchild->cancelled());
  EXPECT_THAT(grandchild->CheckCancelled(), IsError(StatusCode::kCancelled));
}

TEST(PlanHelpersTest, RecursiveQueryIteratesOverItsWorkTable) {
  SchemaPtr schema = std::make_shared<Schema>(std::vector<Field>{Field("n", Int64())});
  RecordBatchPtr rows = Batch(schema, {Int64s({1, 2, 2, std::nullopt})});
  ASSERT_OK_AND_ASSIGN(PlanPtr values, ValuesExec::Make(schema, {rows}));
  ASSERT_OK_AND_ASSIGN(PlanPtr scan, WorkTableScanExec::Make("t", 1, schema));
  EXPECT_EQ(scan->ToString(), "WorkTableScanExec: t (work table 1)");
  EXPECT_THAT(CollectAll(scan, MakeContext()).status(), IsError(StatusCode::kInternal));

  // UNION: the recursive term gives back the rows of the last iteration, which are all seen
  // before, so the recursion ends with the static term's rows, without duplicates.
  ASSERT_OK_AND_ASSIGN(PlanPtr distinct, RecursiveQueryExec::Make("t", 1, true, values, scan));
  EXPECT_EQ(distinct->ToString(), "RecursiveQueryExec: t (work table 1), UNION");
  EXPECT_EQ(distinct->partition_count(), 1);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(distinct, MakeContext()));
  EXPECT_THAT(::floe::testing::BatchRows(batches), ::testing::ElementsAre("1", "2", "NULL"));

  // UNION ALL: the same rows again every iteration, until max_recursive_iterations.
  ASSERT_OK_AND_ASSIGN(PlanPtr all, RecursiveQueryExec::Make("t", 1, false, values, scan));
  SessionConfig config;
  ASSERT_OK(config.Set("max_recursive_iterations", "3"));
  EXPECT_THAT(CollectAll(all, MakeContext(config)).status(),
              ::floe::testing::IsErrorWith(StatusCode::kInvalidArgument,
                                           "recursive query \"t\" did not end after 3 "
                                           "iterations"));
  // The rows held count against the memory limit.
  ASSERT_OK(config.Set("max_recursive_iterations", "0"));
  EXPECT_THAT(CollectAll(all, MakeContext(config, 100)).status(),
              ::floe::testing::IsErrorWith(StatusCode::kOutOfMemory, "recursive query \"t\""));
}

// ---------------------------------------------------------------------------------------
// Streaming nodes.

class StreamingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = IntStringSchema();
    b1_ = Batch(schema_, {Int64s({1, 2, 3}), Strings({"x", std::nullopt, "z"})});
    b2_ = Batch(schema_, {Int64s({4, std::nullopt}), Strings({"u", "v"})});
  }
  SchemaPtr schema_;
  RecordBatchPtr b1_, b2_;
};

TEST_F(StreamingTest, ValuesAndEmpty) {
  ASSERT_OK_AND_ASSIGN(PlanPtr values, ValuesExec::Make(schema_, {b1_, b2_}));
  EXPECT_EQ(values->partition_count(), 1);
  EXPECT_EQ(values->ToString(), "ValuesExec: rows=5");
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(values, MakeContext()));
  EXPECT_THAT(Rows(batches), ElementsAre("1|x", "2|NULL", "3|z", "4|u", "NULL|v"));

  ASSERT_OK_AND_ASSIGN(PlanPtr empty, EmptyExec::Make(schema_, 3));
  EXPECT_EQ(empty->partition_count(), 3);
  ASSERT_OK_AND_ASSIGN(batches, CollectAll(empty, MakeContext()));
  EXPECT_TRUE(batches.empty());

  auto other = std::make_shared<const Schema>(std::vector<Field>{Field("a", Int32())});
  EXPECT_THAT(ValuesExec::Make(other, {b1_}), IsError(StatusCode::kInternal));
}

TEST_F(StreamingTest, ProjectionComputesAndRenames) {
  ASSERT_OK_AND_ASSIGN(PlanPtr values, ValuesExec::Make(schema_, {b1_, b2_}));
  expr::ExprPtr plus =
      expr::Call("add", {ColExpr(schema_, 0), expr::Literal(Scalar::I64(10))}, Int64());
  ASSERT_OK_AND_ASSIGN(
      PlanPtr projection,
      ProjectionExec::Make({Col(schema_, 1), Compiled(plus, schema_)}, {"b", "a10"}, values));
  EXPECT_EQ(projection->schema()->field(0).name(), "b");
  EXPECT_EQ(projection->schema()->field(1).name(), "a10");
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(projection, MakeContext()));
  EXPECT_THAT(Rows(batches), ElementsAre("x|11", "NULL|12", "z|13", "u|14", "v|NULL"));
  EXPECT_EQ(projection->ToString(), "ProjectionExec: " + Col(schema_, 1)->ToString() + ", " +
                                        Compiled(plus, schema_)->ToString() + " AS a10");
  EXPECT_THAT(ProjectionExec::Make({Col(schema_, 0)}, {}, values), IsError(StatusCode::kInternal));
}

TEST_F(StreamingTest, ProjectionKeepsHashPartitioningOfSurvivingColumns) {
  auto a = Col(schema_, 0);
  auto source = std::make_shared<SourceExec>(
      schema_, std::vector<std::vector<RecordBatchPtr>>{{b1_}, {b2_}}, Partitioning::Hash({a}, 2),
      Ordering{PhysicalSortExpr{a, false, false}});
  // b, a: the hash column survives as column 1.
  ASSERT_OK_AND_ASSIGN(PlanPtr swapped, ProjectionExec::Make({Col(schema_, 1), Col(schema_, 0)},
                                                             {"b", "a"}, source));
  const Partitioning& p = swapped->properties().partitioning;
  ASSERT_EQ(p.kind(), Partitioning::Kind::kHash);
  EXPECT_EQ(p.partition_count(), 2);
  ASSERT_EQ(p.exprs().size(), 1u);
  EXPECT_EQ(p.exprs()[0]->source()->column, 1);
  ASSERT_EQ(swapped->properties().ordering.size(), 1u);
  EXPECT_EQ(swapped->properties().ordering[0].expr->source()->column, 1);
  // Only b: the partitioning is lost.
  ASSERT_OK_AND_ASSIGN(PlanPtr only_b, ProjectionExec::Make({Col(schema_, 1)}, {"b"}, source));
  EXPECT_EQ(only_b->properties().partitioning.ToString(), "Unknown(2)");
  EXPECT_TRUE(only_b->properties().ordering.empty());
}

TEST_F(StreamingTest, FilterDropsEmptyBatches) {
  auto source = std::make_shared<SourceExec>(
      schema_, std::vector<std::vector<RecordBatchPtr>>{{b1_, b2_, b1_}});
  expr::ExprPtr predicate = expr::Compare("ge", ColExpr(schema_, 0), expr::Literal(Scalar::I64(3)));
  ASSERT_OK_AND_ASSIGN(PlanPtr filter, FilterExec::Make(Compiled(predicate, schema_), source));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(filter, MakeContext()));
  EXPECT_THAT(Rows(batches), ElementsAre("3|z", "4|u", "3|z"));
  EXPECT_EQ(batches.size(), 3u);

  expr::ExprPtr none = expr::Compare("gt", ColExpr(schema_, 0), expr::Literal(Scalar::I64(100)));
  ASSERT_OK_AND_ASSIGN(PlanPtr filter_none, FilterExec::Make(Compiled(none, schema_), source));
  ASSERT_OK_AND_ASSIGN(batches, CollectAll(filter_none, MakeContext()));
  EXPECT_TRUE(batches.empty());
  EXPECT_EQ(filter_none->ToString(), "FilterExec: " + Compiled(none, schema_)->ToString());
  EXPECT_THAT(FilterExec::Make(Col(schema_, 0), source), IsError(StatusCode::kInternal));
}

TEST_F(StreamingTest, LimitStopsPullingEarly) {
  std::vector<RecordBatchPtr> many(10, b1_);
  auto source =
      std::make_shared<SourceExec>(schema_, std::vector<std::vector<RecordBatchPtr>>{many});
  ASSERT_OK_AND_ASSIGN(PlanPtr limit, LimitExec::Make(source, 2, 4, true));
  EXPECT_EQ(limit->ToString(), "LimitExec: global offset=2 fetch=4");
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(limit, MakeContext()));
  EXPECT_THAT(Rows(batches), ElementsAre("3|z", "1|x", "2|NULL", "3|z"));
  // 2 skipped + 4 fetched rows lie in the first two batches of three rows.
  EXPECT_EQ(source->pulled(), 2);

  auto source2 =
      std::make_shared<SourceExec>(schema_, std::vector<std::vector<RecordBatchPtr>>{many});
  ASSERT_OK_AND_ASSIGN(PlanPtr zero, LimitExec::Make(source2, 0, 0, true));
  ASSERT_OK_AND_ASSIGN(batches, CollectAll(zero, MakeContext()));
  EXPECT_TRUE(batches.empty());
  EXPECT_EQ(source2->pulled(), 0);

  EXPECT_THAT(LimitExec::Make(source, 1, 2, false), IsError(StatusCode::kInternal));
  EXPECT_THAT(LimitExec::Make(source, -1, 2, true), IsError(StatusCode::kInternal));
}

TEST_F(StreamingTest, LocalLimitPerPartition) {
  auto source = std::make_shared<SourceExec>(
      schema_, std::vector<std::vector<RecordBatchPtr>>{{b1_, b1_}, {b2_}, {}});
  ASSERT_OK_AND_ASSIGN(PlanPtr limit, LimitExec::Make(source, 0, 2, false));
  EXPECT_EQ(limit->partition_count(), 3);
  EXPECT_EQ(limit->RequiredInputDistribution()[0].kind(), Distribution::Kind::kUnspecified);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(limit, MakeContext()));
  EXPECT_THAT(Rows(batches), ElementsAre("1|x", "2|NULL", "4|u", "NULL|v"));
  ASSERT_OK_AND_ASSIGN(PlanPtr global, LimitExec::Make(source, 0, std::nullopt, true));
  EXPECT_EQ(global->RequiredInputDistribution()[0].kind(), Distribution::Kind::kSingle);
  EXPECT_EQ(global->ToString(), "LimitExec: global fetch=all");
}

TEST_F(StreamingTest, UnionConcatenatesPartitions) {
  auto nullable = std::make_shared<const Schema>(
      std::vector<Field>{Field("x", Int64(), false), Field("y", String(), false)});
  RecordBatchPtr c = Batch(nullable, {Int64s({7}), Strings({"q"})});
  auto left =
      std::make_shared<SourceExec>(nullable, std::vector<std::vector<RecordBatchPtr>>{{c}, {c}});
  ASSERT_OK_AND_ASSIGN(PlanPtr values, ValuesExec::Make(schema_, {b2_}));
  ASSERT_OK_AND_ASSIGN(PlanPtr u, UnionExec::Make({left, values}));
  EXPECT_EQ(u->partition_count(), 3);
  EXPECT_EQ(u->schema()->field(0).name(), "x");
  EXPECT_TRUE(u->schema()->field(0).nullable());
  ASSERT_OK_AND_ASSIGN(auto p2, Partition(u, 2, MakeContext()));
  EXPECT_THAT(Rows(p2), ElementsAre("4|u", "NULL|v"));
  EXPECT_EQ(p2[0]->schema()->field(0).name(), "x");
  ASSERT_OK_AND_ASSIGN(auto all, CollectAll(u, MakeContext()));
  EXPECT_THAT(Rows(all), ElementsAre("7|q", "7|q", "4|u", "NULL|v"));

  auto ints = std::make_shared<const Schema>(std::vector<Field>{Field("a", Int32())});
  ASSERT_OK_AND_ASSIGN(PlanPtr bad, EmptyExec::Make(ints, 1));
  EXPECT_THAT(UnionExec::Make({values, bad}), IsError(StatusCode::kInternal));
}

TEST_F(StreamingTest, CoalesceReadsEveryPartitionInTurn) {
  auto source = std::make_shared<SourceExec>(
      schema_, std::vector<std::vector<RecordBatchPtr>>{{b1_}, {}, {b2_}});
  ASSERT_OK_AND_ASSIGN(PlanPtr coalesce, CoalescePartitionsExec::Make(source));
  EXPECT_EQ(coalesce->partition_count(), 1);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(coalesce, MakeContext()));
  EXPECT_THAT(Rows(batches), ElementsAre("1|x", "2|NULL", "3|z", "4|u", "NULL|v"));
  EXPECT_EQ(PlanToString(*coalesce),
            "CoalescePartitionsExec  [partitions=1 Single]\n"
            "  SourceExec  [partitions=3 Unknown(3)]\n");
}

TEST_F(StreamingTest, ExecutePlanCountsMetricsAndChecksCancellation) {
  auto source =
      std::make_shared<SourceExec>(schema_, std::vector<std::vector<RecordBatchPtr>>{{b1_, b2_}});
  TaskContextPtr ctx = MakeContext();
  ctx->set_collect_metrics(true);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(source, ctx));
  auto metrics = ctx->metrics()->Of(source.get());
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_EQ(metrics[0].first, 0);
  EXPECT_EQ(metrics[0].second->rows.load(), 5);
  EXPECT_EQ(metrics[0].second->batches.load(), 2);
  EXPECT_GT(metrics[0].second->bytes.load(), 40);

  TaskContextPtr cancelled = MakeContext();
  ASSERT_OK_AND_ASSIGN(BatchStreamPtr stream, ExecutePlan(source, 0, cancelled));
  ASSERT_OK(stream->Next().status());
  cancelled->Cancel();
  EXPECT_THAT(stream->Next(), IsError(StatusCode::kCancelled));
  EXPECT_THAT(ExecutePlan(source, 1, MakeContext()), IsError(StatusCode::kInternal));
}

// ---------------------------------------------------------------------------------------
// Repartition.

TEST_F(StreamingTest, HashRepartitionRoutesEqualKeysTogether) {
  std::vector<std::optional<int64_t>> keys;
  std::vector<std::optional<std::string>> texts;
  for (int i = 0; i < 100; ++i) {
    keys.push_back(i % 10);
    texts.push_back(std::to_string(i));
  }
  RecordBatchPtr big = Batch(schema_, {Int64s(keys), Strings(texts)});
  auto source = std::make_shared<SourceExec>(
      schema_, std::vector<std::vector<RecordBatchPtr>>{{big}, {b1_, b2_}});
  ASSERT_OK_AND_ASSIGN(PlanPtr repartition,
                       RepartitionExec::Make(source, Partitioning::Hash({Col(schema_, 0)}, 3)));
  EXPECT_EQ(repartition->partition_count(), 3);
  EXPECT_EQ(repartition->ToString(),
            "RepartitionExec: Hash([" + Col(schema_, 0)->ToString() + "], 3) from 2 partitions");
  TaskContextPtr ctx = MakeContext();
  std::vector<std::string> all;
  std::map<std::string, int> partition_of_key;
  for (int p = 0; p < 3; ++p) {
    ASSERT_OK_AND_ASSIGN(auto batches, Partition(repartition, p, ctx));
    for (const std::string& row : Rows(batches)) {
      all.push_back(row);
      std::string key = row.substr(0, row.find('|'));
      auto [it, inserted] = partition_of_key.emplace(key, p);
      EXPECT_EQ(it->second, p) << "key " << key << " in two partitions";
    }
  }
  std::vector<std::string> expected = Rows({big, b1_, b2_});
  EXPECT_THAT(all, UnorderedElementsAreArray(expected));
  EXPECT_EQ(source->pulled(), 3);  // every input batch once, although 3 outputs read
}

TEST_F(StreamingTest, RoundRobinRepartitionByBatch) {
  auto source = std::make_shared<SourceExec>(
      schema_, std::vector<std::vector<RecordBatchPtr>>{{b1_, b2_, b1_}});
  ASSERT_OK_AND_ASSIGN(PlanPtr repartition,
                       RepartitionExec::Make(source, Partitioning::RoundRobin(2)));
  TaskContextPtr ctx = MakeContext();
  ASSERT_OK_AND_ASSIGN(auto p0, Partition(repartition, 0, ctx));
  ASSERT_OK_AND_ASSIGN(auto p1, Partition(repartition, 1, ctx));
  EXPECT_EQ(Rows(p0).size() + Rows(p1).size(), 8u);
  EXPECT_THAT(Rows(p1), ElementsAre("4|u", "NULL|v"));
  EXPECT_THAT(RepartitionExec::Make(source, Partitioning::Single()),
              IsError(StatusCode::kInternal));
}

TEST_F(StreamingTest, RepartitionSpillsPastTheBudget) {
  std::vector<RecordBatchPtr> batches;
  for (int b = 0; b < 20; ++b) {
    std::vector<std::optional<int64_t>> keys;
    std::vector<std::optional<std::string>> texts;
    for (int i = 0; i < 50; ++i) {
      keys.push_back(b * 50 + i);
      texts.push_back(std::string(40, static_cast<char>('a' + i % 26)));
    }
    batches.push_back(Batch(schema_, {Int64s(keys), Strings(texts)}));
  }
  auto source =
      std::make_shared<SourceExec>(schema_, std::vector<std::vector<RecordBatchPtr>>{batches});
  ASSERT_OK_AND_ASSIGN(PlanPtr repartition,
                       RepartitionExec::Make(source, Partitioning::Hash({Col(schema_, 0)}, 2)));
  SessionConfig config;
  ASSERT_OK(config.Set("batch_size", "64"));
  std::string dir = ::testing::TempDir() + "/floe_repartition_spill_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  TaskContextPtr ctx = MakeContext(config, 8 << 10, dir);
  int64_t rows = 0;
  int64_t sum = 0;
  for (int p = 0; p < 2; ++p) {
    ASSERT_OK_AND_ASSIGN(auto out, Partition(repartition, p, ctx));
    for (const RecordBatchPtr& batch : out) {
      rows += batch->num_rows();
      for (int64_t r = 0; r < batch->num_rows(); ++r) sum += batch->column(0)->Value<int64_t>(r);
    }
  }
  EXPECT_EQ(rows, 1000);
  EXPECT_EQ(sum, 999 * 1000 / 2);
  EXPECT_LE(ctx->memory()->peak(), 8 << 10);
  EXPECT_FALSE(std::filesystem::is_empty(dir));  // spill files exist while the query runs
  ctx.reset();
  EXPECT_TRUE(std::filesystem::is_empty(dir));  // and are removed with it
  std::filesystem::remove_all(dir);
}

// ---------------------------------------------------------------------------------------
// Enforcement.

class EnforceTest : public StreamingTest {
 protected:
  PlanPtr Source(int partitions, std::optional<Partitioning> partitioning = std::nullopt,
                 Ordering ordering = {}) {
    std::vector<std::vector<RecordBatchPtr>> parts(static_cast<size_t>(partitions));
    parts[0].push_back(b1_);
    return std::make_shared<SourceExec>(schema_, parts, partitioning, ordering);
  }
  SessionConfig Config(int target) {
    SessionConfig config;
    EXPECT_OK(config.Set("target_partitions", std::to_string(target)));
    return config;
  }
};

TEST_F(EnforceTest, SingleInsertsCoalesce) {
  PlanPtr plan = RequireExec::Make({Source(3)}, {Distribution::Single()}, {{}});
  ASSERT_OK_AND_ASSIGN(PlanPtr out, EnforceRequirements(plan, Config(4)));
  EXPECT_EQ(Shape(out), "RequireExec(1)\n  CoalescePartitionsExec(1)\n    SourceExec(3)\n");
  // One partition already: nothing to do.
  PlanPtr one = RequireExec::Make({Source(1)}, {Distribution::Single()}, {{}});
  ASSERT_OK_AND_ASSIGN(out, EnforceRequirements(one, Config(4)));
  EXPECT_EQ(out, one);
}

TEST_F(EnforceTest, HashInsertsRepartitionOnlyWhenNeeded) {
  auto a = Col(schema_, 0);
  PlanPtr plan = RequireExec::Make({Source(2)}, {Distribution::Hash({a})}, {{}});
  ASSERT_OK_AND_ASSIGN(PlanPtr out, EnforceRequirements(plan, Config(4)));
  EXPECT_EQ(Shape(out), "RequireExec(4)\n  RepartitionExec(4)\n    SourceExec(2)\n");
  EXPECT_EQ(out->children()[0]->properties().partitioning.ToString(),
            "Hash([" + a->ToString() + "], 4)");
  // Already hashed on the same expression (compiled separately): kept as is.
  PlanPtr hashed = RequireExec::Make({Source(3, Partitioning::Hash({Col(schema_, 0)}, 3))},
                                     {Distribution::Hash({a})}, {{}});
  ASSERT_OK_AND_ASSIGN(out, EnforceRequirements(hashed, Config(4)));
  EXPECT_EQ(out, hashed);
  // target_partitions = 1: a coalesce instead of a one-way hash.
  ASSERT_OK_AND_ASSIGN(out, EnforceRequirements(plan, Config(1)));
  EXPECT_EQ(Shape(out), "RequireExec(1)\n  CoalescePartitionsExec(1)\n    SourceExec(2)\n");
}

TEST_F(EnforceTest, CoPartitionedChildrenGetEqualCounts) {
  auto a = Col(schema_, 0);
  // Left hashed into 3 (satisfies on its own), right has 1 partition (satisfies too):
  // both are hashed into target_partitions.
  PlanPtr plan = RequireExec::Make({Source(3, Partitioning::Hash({a}, 3)), Source(1)},
                                   {Distribution::Hash({a}), Distribution::Hash({a})}, {{}, {}});
  ASSERT_OK_AND_ASSIGN(PlanPtr out, EnforceRequirements(plan, Config(4)));
  EXPECT_EQ(Shape(out),
            "RequireExec(4)\n  RepartitionExec(4)\n    SourceExec(3)\n  RepartitionExec(4)\n"
            "    SourceExec(1)\n");
}

TEST_F(EnforceTest, OrderingInsertsSortsAndMerges) {
  auto a = Col(schema_, 0);
  Ordering by_a = {PhysicalSortExpr{a, false, false}};
  // Single + ordering over 3 partitions: sort each, then merge.
  PlanPtr plan = RequireExec::Make({Source(3)}, {Distribution::Single()}, {by_a});
  ASSERT_OK_AND_ASSIGN(PlanPtr out, EnforceRequirements(plan, Config(4)));
  EXPECT_EQ(Shape(out),
            "RequireExec(1)\n  SortPreservingMergeExec(1)\n    SortExec(3)\n      SourceExec(3)\n");
  // Ordering only: a sort per partition.
  PlanPtr sorted_only = RequireExec::Make({Source(2)}, {Distribution::Unspecified()}, {by_a});
  ASSERT_OK_AND_ASSIGN(out, EnforceRequirements(sorted_only, Config(4)));
  EXPECT_EQ(Shape(out), "RequireExec(2)\n  SortExec(2)\n    SourceExec(2)\n");
  EXPECT_TRUE(static_cast<const SortExec&>(*out->children()[0]).preserve_partitioning());
  // Already ordered: nothing.
  PlanPtr ordered =
      RequireExec::Make({Source(2, std::nullopt, by_a)}, {Distribution::Unspecified()}, {by_a});
  ASSERT_OK_AND_ASSIGN(out, EnforceRequirements(ordered, Config(4)));
  EXPECT_EQ(out, ordered);
  // Hash + ordering: repartition, then sort each partition.
  PlanPtr both = RequireExec::Make({Source(2)}, {Distribution::Hash({a})}, {by_a});
  ASSERT_OK_AND_ASSIGN(out, EnforceRequirements(both, Config(3)));
  EXPECT_EQ(Shape(out),
            "RequireExec(3)\n  SortExec(3)\n    RepartitionExec(3)\n      SourceExec(2)\n");
}

TEST_F(EnforceTest, RemovesRedundantNodes) {
  auto a = Col(schema_, 0);
  Ordering by_a = {PhysicalSortExpr{a, false, false}};
  PlanPtr hashed = Source(4, Partitioning::Hash({a}, 4), by_a);
  ASSERT_OK_AND_ASSIGN(PlanPtr repartition,
                       RepartitionExec::Make(hashed, Partitioning::Hash({Col(schema_, 0)}, 4)));
  ASSERT_OK_AND_ASSIGN(PlanPtr sort, SortExec::Make(by_a, repartition, std::nullopt, true));
  ASSERT_OK_AND_ASSIGN(PlanPtr out, EnforceRequirements(sort, Config(4)));
  // The repartition goes (its input is hashed alike), then the sort (ordered input).
  EXPECT_EQ(out, hashed);
  PlanPtr one = Source(1);
  ASSERT_OK_AND_ASSIGN(PlanPtr coalesce, CoalescePartitionsExec::Make(one));
  ASSERT_OK_AND_ASSIGN(out, EnforceRequirements(coalesce, Config(4)));
  EXPECT_EQ(out, one);
  // A sort with fetch is a top-K: kept.
  ASSERT_OK_AND_ASSIGN(PlanPtr topk, SortExec::Make(by_a, hashed, int64_t{5}, true));
  ASSERT_OK_AND_ASSIGN(out, EnforceRequirements(topk, Config(4)));
  EXPECT_EQ(out, topk);
}

TEST_F(EnforceTest, GlobalLimitOverPartitionsGetsCoalesce) {
  ASSERT_OK_AND_ASSIGN(PlanPtr limit, LimitExec::Make(Source(3), 0, 2, true));
  ASSERT_OK_AND_ASSIGN(PlanPtr out, EnforceRequirements(limit, Config(4)));
  EXPECT_EQ(Shape(out), "LimitExec(1)\n  CoalescePartitionsExec(1)\n    SourceExec(3)\n");
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(out, MakeContext()));
  EXPECT_THAT(Rows(batches), ElementsAre("1|x", "2|NULL"));
}

}  // namespace
}  // namespace floe::exec
