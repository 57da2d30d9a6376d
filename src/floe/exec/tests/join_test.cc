// HashJoinExec and NestedLoopJoinExec: every join type with NULL and duplicate keys,
// empty sides, mark semantics, null_equals_null, join filters, batch sizes, broadcast
// sharing and the build-side memory limit.

#include <algorithm>
#include <set>
#include <thread>

#include "floe/exec/join/hash_join_exec.h"
#include "floe/exec/join/nested_loop_join_exec.h"
#include "floe/exec/tests/operators_test_support.h"

namespace floe::exec {
namespace {

using plan::JoinType;
using testing::BatchOf;
using testing::Col;
using testing::I64s;
using testing::MakeContext;
using testing::OptI64;
using testing::OptStr;
using testing::PartitionedSource;
using testing::RunRows;
using testing::SchemaOf;
using testing::Source;
using testing::SpilledBytes;
using testing::Strs;
using testing::TempDir;
using V = std::vector<std::string>;

// Runs every partition of `plan` on its own thread at once; each partition's rows, after
// checking that every partition succeeded.
std::vector<V> RunPartitionsConcurrently(const PlanPtr& plan, const TaskContextPtr& ctx) {
  const auto n = static_cast<size_t>(plan->partition_count());
  std::vector<std::vector<RecordBatchPtr>> out(n);
  std::vector<Status> status(n);
  std::vector<std::thread> threads;
  for (size_t p = 0; p < n; ++p) {
    threads.emplace_back([&, p] {
      auto stream = ExecutePlan(plan, static_cast<int>(p), ctx);
      if (!stream.ok()) {
        status[p] = stream.status();
        return;
      }
      while (true) {
        auto b = (*stream)->Next();
        if (!b.ok()) {
          status[p] = b.status();
          return;
        }
        if (*b == nullptr) return;
        out[p].push_back(*b);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<V> rows(n);
  for (size_t p = 0; p < n; ++p) {
    EXPECT_OK(status[p]);
    rows[p] = testing::Rows(out[p]);
  }
  return rows;
}

class JoinTest : public ::testing::Test {
 protected:
  SchemaPtr left_schema_ = SchemaOf({"lk", "lv"}, {I64s({}), Strs({})});
  SchemaPtr right_schema_ = SchemaOf({"rk", "rv"}, {I64s({}), Strs({})});

  PlanPtr Left() {
    return Source(left_schema_,
                  {BatchOf(left_schema_, {I64s({1, 2, 2}), Strs({"l1", "l2", "l2b"})}),
                   BatchOf(left_schema_, {I64s({std::nullopt, 4}), Strs({"lnull", "l4"})})});
  }
  PlanPtr Right(bool with_null = true) {
    if (!with_null) {
      return Source(right_schema_,
                    {BatchOf(right_schema_, {I64s({2, 3, 1}), Strs({"r2", "r3", "r1"})})});
    }
    return Source(right_schema_,
                  {BatchOf(right_schema_, {I64s({2, 2, 3}), Strs({"r2", "r2b", "r3"})}),
                   BatchOf(right_schema_, {I64s({std::nullopt, 1}), Strs({"rnull", "r1"})})});
  }
  PlanPtr EmptyLeft() { return Source(left_schema_, {}); }
  PlanPtr EmptyRight() { return Source(right_schema_, {}); }

  Result<PlanPtr> Hash(PlanPtr left, PlanPtr right, JoinType type,
                       expr::PhysicalExprPtr filter = nullptr, bool nes = false,
                       JoinMode mode = JoinMode::kPartitioned) {
    return HashJoinExec::Make(left, right, {Col(left->schema(), 0)}, {Col(right->schema(), 0)},
                              type, std::move(filter), {nes}, mode);
  }
  V Run(const Result<PlanPtr>& plan, int64_t batch_size = 8192) {
    EXPECT_OK(plan);
    if (!plan.ok()) return {};
    auto rows = RunRows(*plan, MakeContext(batch_size));
    EXPECT_OK(rows);
    return rows.ok() ? *rows : V{};
  }
  // rv <> 'r2', over left ++ right.
  expr::PhysicalExprPtr NotR2() {
    auto schema = JoinOutputSchema(*left_schema_, *right_schema_, JoinType::kInner);
    return expr::Compile(expr::Compare("ne", expr::Column(3, "rv", String()),
                                       expr::Literal(Scalar::Str("r2"))),
                         schema)
        .ValueOrDie();
  }
};

TEST_F(JoinTest, Inner) {
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kInner)),
            (V{"1|l1|1|r1", "2|l2|2|r2", "2|l2|2|r2b", "2|l2b|2|r2", "2|l2b|2|r2b"}));
  // Output batches hold at most batch_size rows; same rows.
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kInner), 2),
            (V{"1|l1|1|r1", "2|l2|2|r2", "2|l2|2|r2b", "2|l2b|2|r2", "2|l2b|2|r2b"}));
  ASSERT_OK_AND_ASSIGN(auto plan, Hash(Left(), Right(), JoinType::kInner));
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(plan, MakeContext(2)));
  EXPECT_LE(testing::MaxBatchRows(batches), 2);
  EXPECT_EQ(plan->ToString(), "HashJoinExec: mode=Partitioned, type=inner, on=[(lk, rk)]");
}

// Probe rows that match twice beside probe rows that match nothing span a consecutive
// range of row numbers without being consecutive themselves: the rows must still be
// gathered, not sliced (a regression: 3 was paired with 5's match).
TEST_F(JoinTest, DuplicateMatchesBesideMisses) {
  PlanPtr left =
      Source(left_schema_,
             {BatchOf(left_schema_, {I64s({1, 3, 5, 7, 9}), Strs({"a", "b", "c", "d", "e"})})});
  PlanPtr right =
      Source(right_schema_,
             {BatchOf(right_schema_, {I64s({1, 5, 7, 7}), Strs({"r1", "r5", "r7", "r7b"})})});
  EXPECT_EQ(Run(Hash(left, right, JoinType::kInner)),
            (V{"1|a|1|r1", "5|c|5|r5", "7|d|7|r7", "7|d|7|r7b"}));
  EXPECT_EQ(Run(Hash(left, right, JoinType::kLeft)),
            (V{"1|a|1|r1", "5|c|5|r5", "7|d|7|r7", "7|d|7|r7b", "3|b|NULL|NULL", "9|e|NULL|NULL"}));
}

TEST_F(JoinTest, OuterJoins) {
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kLeft)),
            (V{"1|l1|1|r1", "2|l2|2|r2", "2|l2|2|r2b", "2|l2b|2|r2", "2|l2b|2|r2b",
               "NULL|lnull|NULL|NULL", "4|l4|NULL|NULL"}));
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kRight)),
            (V{"1|l1|1|r1", "2|l2|2|r2", "2|l2|2|r2b", "2|l2b|2|r2", "2|l2b|2|r2b",
               "NULL|NULL|3|r3", "NULL|NULL|NULL|rnull"}));
  EXPECT_EQ(
      Run(Hash(Left(), Right(), JoinType::kFull), 3),
      (V{"1|l1|1|r1", "2|l2|2|r2", "2|l2|2|r2b", "2|l2b|2|r2", "2|l2b|2|r2b",
         "NULL|lnull|NULL|NULL", "4|l4|NULL|NULL", "NULL|NULL|3|r3", "NULL|NULL|NULL|rnull"}));
  ASSERT_OK_AND_ASSIGN(auto full, Hash(Left(), Right(), JoinType::kFull));
  EXPECT_TRUE(full->schema()->field(0).nullable());
  EXPECT_TRUE(full->schema()->field(3).nullable());
}

TEST_F(JoinTest, SemiAntiMark) {
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kSemi)), (V{"1|l1", "2|l2", "2|l2b"}));
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kAnti)), (V{"NULL|lnull", "4|l4"}));
  // The build side holds a NULL key: no match is unknown (x IN (..., NULL)).
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kMark, nullptr, false, JoinMode::kBroadcast)),
            (V{"1|l1|t", "2|l2|t", "2|l2b|t", "NULL|lnull|NULL", "4|l4|NULL"}));
  // Without NULL build keys: a NULL probe key is unknown, a missing key is false.
  EXPECT_EQ(Run(Hash(Left(), Right(false), JoinType::kMark, nullptr, false, JoinMode::kBroadcast)),
            (V{"1|l1|t", "2|l2|t", "2|l2b|t", "NULL|lnull|NULL", "4|l4|f"}));
  // An empty build side: NULL IN (empty) is false.
  EXPECT_EQ(Run(Hash(Left(), EmptyRight(), JoinType::kMark, nullptr, false, JoinMode::kBroadcast)),
            (V{"1|l1|f", "2|l2|f", "2|l2b|f", "NULL|lnull|f", "4|l4|f"}));
  ASSERT_OK_AND_ASSIGN(auto mark, Hash(Left(), Right(), JoinType::kMark));
  EXPECT_EQ(mark->schema()->field(2).name(), "mark");
}

// The null-aware anti join keeps exactly the rows whose mark is false: none when the build
// side holds a NULL key, no NULL probe key unless the build side is empty.
TEST_F(JoinTest, NullAwareAnti) {
  auto naaj = [&](PlanPtr right) {
    return Run(Hash(Left(), std::move(right), JoinType::kNullAwareAnti, nullptr, false,
                    JoinMode::kBroadcast));
  };
  EXPECT_EQ(naaj(Right()), V{});
  EXPECT_EQ(naaj(Right(false)), (V{"4|l4"}));
  EXPECT_EQ(naaj(EmptyRight()), (V{"1|l1", "2|l2", "2|l2b", "NULL|lnull", "4|l4"}));
  // Needs the whole build side.
  EXPECT_THAT(Hash(Left(), Right(), JoinType::kNullAwareAnti),
              floe::testing::IsErrorWith(StatusCode::kInternal, "must be broadcast"));
}

// Right semi / anti: the build (right) rows with / without a matching probe row, in build
// order, emitted after the probe side; every row map (identity, unique, groups), NULL keys,
// filters, null_equals_null, empty sides, small batches.
TEST_F(JoinTest, RightSemiAnti) {
  for (int64_t batch_size : {8192, 2}) {
    // Duplicate build keys (row groups) and a NULL build key, which matches nothing.
    EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kRightSemi), batch_size),
              (V{"2|r2", "2|r2b", "1|r1"}));
    EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kRightAnti), batch_size),
              (V{"3|r3", "NULL|rnull"}));
    // Unique keys, row == key id.
    EXPECT_EQ(Run(Hash(Left(), Right(false), JoinType::kRightSemi), batch_size),
              (V{"2|r2", "1|r1"}));
    EXPECT_EQ(Run(Hash(Left(), Right(false), JoinType::kRightAnti), batch_size), (V{"3|r3"}));
  }
  // Unique keys beside a NULL key (rows[id]).
  auto unique_with_null = Source(
      right_schema_, {BatchOf(right_schema_, {I64s({std::nullopt, 4, 3}), Strs({"n", "a", "b"})})});
  EXPECT_EQ(Run(Hash(Left(), unique_with_null, JoinType::kRightSemi)), (V{"4|a"}));
  EXPECT_EQ(Run(Hash(Left(), unique_with_null, JoinType::kRightAnti)), (V{"NULL|n", "3|b"}));
  // A filter decides per pair: r2 fails rv <> 'r2' with every probe row.
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kRightSemi, NotR2())), (V{"2|r2b", "1|r1"}));
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kRightAnti, NotR2())),
            (V{"2|r2", "3|r3", "NULL|rnull"}));
  // NULL matches NULL.
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kRightSemi, nullptr, true)),
            (V{"2|r2", "2|r2b", "NULL|rnull", "1|r1"}));
  // Empty sides.
  EXPECT_EQ(Run(Hash(EmptyLeft(), Right(), JoinType::kRightSemi)), V{});
  EXPECT_EQ(Run(Hash(EmptyLeft(), Right(), JoinType::kRightAnti)),
            (V{"2|r2", "2|r2b", "3|r3", "NULL|rnull", "1|r1"}));
  EXPECT_EQ(Run(Hash(Left(), EmptyRight(), JoinType::kRightAnti)), V{});
  ASSERT_OK_AND_ASSIGN(auto plan, Hash(Left(), Right(), JoinType::kRightAnti));
  EXPECT_EQ(plan->schema()->num_fields(), 2);
  EXPECT_EQ(plan->schema()->field(0).name(), "rk");
  EXPECT_EQ(plan->ToString(), "HashJoinExec: mode=Partitioned, type=right anti, on=[(lk, rk)]");
}

// Broadcast right semi / anti: each probe partition emits its own verdicts, the build rows
// its probe rows matched (left unmatched) with their build positions, for the planner's
// merge; right and full joins are never broadcast.
TEST_F(JoinTest, BroadcastRightSemiAntiEmitEachTasksVerdicts) {
  // Partition 0 matches r2, r2b and r1; partition 1 (NULL, 4) matches nothing.
  auto two_partitions = [&] {
    return PartitionedSource(
        left_schema_, {{BatchOf(left_schema_, {I64s({1, 2}), Strs({"l1", "l2"})})},
                       {BatchOf(left_schema_, {I64s({std::nullopt, 4}), Strs({"lnull", "l4"})})}});
  };
  for (int64_t batch_size : {8192, 2}) {
    EXPECT_EQ(Run(Hash(two_partitions(), Right(), JoinType::kRightSemi, nullptr, false,
                       JoinMode::kBroadcast),
                  batch_size),
              (V{"2|r2|0", "2|r2b|1", "1|r1|4"}));
    EXPECT_EQ(
        Run(Hash(two_partitions(), Right(), JoinType::kRightAnti, nullptr, false,
                 JoinMode::kBroadcast),
            batch_size),
        (V{"3|r3|2", "NULL|rnull|3", "2|r2|0", "2|r2b|1", "3|r3|2", "NULL|rnull|3", "1|r1|4"}));
  }
  EXPECT_EQ(Run(Hash(two_partitions(), EmptyRight(), JoinType::kRightAnti, nullptr, false,
                     JoinMode::kBroadcast)),
            V{});
  ASSERT_OK_AND_ASSIGN(auto plan, Hash(two_partitions(), Right(), JoinType::kRightSemi, nullptr,
                                       false, JoinMode::kBroadcast));
  EXPECT_EQ(plan->partition_count(), 2);
  ASSERT_EQ(plan->schema()->num_fields(), 3);
  EXPECT_EQ(plan->schema()->field(2).name(), HashJoinExec::kBuildRowColumn);
  EXPECT_EQ(plan->schema()->field(2).type()->id(), TypeId::kInt64);
  EXPECT_THAT(Hash(Left(), Right(), JoinType::kRight, nullptr, false, JoinMode::kBroadcast),
              floe::testing::IsError(StatusCode::kInternal));
  EXPECT_THAT(Hash(Left(), Right(), JoinType::kFull, nullptr, false, JoinMode::kBroadcast),
              floe::testing::IsError(StatusCode::kInternal));
}

TEST_F(JoinTest, NullEqualsNullAndFilters) {
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kInner, nullptr, true)),
            (V{"1|l1|1|r1", "2|l2|2|r2", "2|l2|2|r2b", "2|l2b|2|r2", "2|l2b|2|r2b",
               "NULL|lnull|NULL|rnull"}));
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kInner, NotR2())),
            (V{"1|l1|1|r1", "2|l2|2|r2b", "2|l2b|2|r2b"}));
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kRight, NotR2())),
            (V{"1|l1|1|r1", "2|l2|2|r2b", "2|l2b|2|r2b", "NULL|NULL|2|r2", "NULL|NULL|3|r3",
               "NULL|NULL|NULL|rnull"}));
  // A filter that rejects every candidate of a key leaves the probe row unmatched.
  auto schema = JoinOutputSchema(*left_schema_, *right_schema_, JoinType::kInner);
  auto only_r1 = expr::Compile(expr::Compare("eq", expr::Column(3, "rv", String()),
                                             expr::Literal(Scalar::Str("r1"))),
                               schema)
                     .ValueOrDie();
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kSemi, only_r1)), (V{"1|l1"}));
  EXPECT_EQ(Run(Hash(Left(), Right(), JoinType::kAnti, only_r1)),
            (V{"2|l2", "2|l2b", "NULL|lnull", "4|l4"}));
}

TEST_F(JoinTest, EmptySides) {
  EXPECT_EQ(Run(Hash(EmptyLeft(), Right(), JoinType::kLeft)), V{});
  EXPECT_EQ(Run(Hash(EmptyLeft(), Right(), JoinType::kRight)),
            (V{"NULL|NULL|2|r2", "NULL|NULL|2|r2b", "NULL|NULL|3|r3", "NULL|NULL|NULL|rnull",
               "NULL|NULL|1|r1"}));
  EXPECT_EQ(Run(Hash(Left(), EmptyRight(), JoinType::kInner)), V{});
  EXPECT_EQ(Run(Hash(Left(), EmptyRight(), JoinType::kAnti)),
            (V{"1|l1", "2|l2", "2|l2b", "NULL|lnull", "4|l4"}));
  EXPECT_EQ(Run(Hash(Left(), EmptyRight(), JoinType::kFull)),
            (V{"1|l1|NULL|NULL", "2|l2|NULL|NULL", "2|l2b|NULL|NULL", "NULL|lnull|NULL|NULL",
               "4|l4|NULL|NULL"}));
}

TEST_F(JoinTest, PartitionedAndBroadcastOverSeveralPartitions) {
  // Partition 0 holds key 1 on both sides, partition 1 key 2.
  auto left = testing::PartitionedSource(
      left_schema_, {{BatchOf(left_schema_, {I64s({1, 1}), Strs({"a", "b"})})},
                     {BatchOf(left_schema_, {I64s({2, 5}), Strs({"c", "d"})})}});
  auto right = testing::PartitionedSource(
      right_schema_, {{BatchOf(right_schema_, {I64s({1}), Strs({"x"})})},
                      {BatchOf(right_schema_, {I64s({2, 6}), Strs({"y", "z"})})}});
  EXPECT_EQ(Run(Hash(left, right, JoinType::kFull)),
            (V{"1|a|1|x", "1|b|1|x", "2|c|2|y", "5|d|NULL|NULL", "NULL|NULL|6|z"}));
  // Broadcast: every probe partition sees the whole build side, built once.
  auto all_right =
      Source(right_schema_, {BatchOf(right_schema_, {I64s({1, 2}), Strs({"x", "y"})})});
  ASSERT_OK_AND_ASSIGN(
      auto bc, Hash(left, all_right, JoinType::kLeft, nullptr, false, JoinMode::kBroadcast));
  EXPECT_EQ(bc->partition_count(), 2);
  auto ctx = MakeContext();
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(bc, ctx));
  EXPECT_EQ(rows, (V{"1|a|1|x", "1|b|1|x", "2|c|2|y", "5|d|NULL|NULL"}));
  EXPECT_THAT(Hash(left, all_right, JoinType::kFull, nullptr, false, JoinMode::kBroadcast),
              floe::testing::IsError(StatusCode::kInternal));
}

TEST_F(JoinTest, BuildSideOverTheMemoryLimit) {
  // A mark join's broadcast table is built whole (its answer depends on every build key):
  // past the budget it fails; so does a spilled join whose one bucket does not fit.
  for (JoinType type : {JoinType::kMark, JoinType::kNullAwareAnti, JoinType::kInner}) {
    SCOPED_TRACE(plan::JoinTypeName(type));
    ASSERT_OK_AND_ASSIGN(auto plan,
                         Hash(Left(), Right(), type, nullptr, false, JoinMode::kBroadcast));
    SessionConfig config;
    TempDir dir;
    auto ctx = std::make_shared<TaskContext>(config, std::make_shared<MemoryManager>(64), nullptr,
                                             dir.path(), nullptr);
    EXPECT_THAT(CollectAll(plan, ctx),
                floe::testing::IsErrorWith(StatusCode::kOutOfMemory,
                                           "memory_limit of 64 bytes exceeded: the hash join "
                                           "build side of HashJoinExec"));
    // The query's end removes the spilled build side.
    ctx.reset();
    EXPECT_EQ(dir.files(), 0);
  }
}

// A broadcast build side past the budget goes to bucket files once; every task (here two
// probe partitions at once on their own threads) spills its probe rows and joins bucket by
// bucket: the same rows as in memory for inner, left, semi and anti joins, NULL keys,
// duplicate keys and a filter included; no file is left behind.
TEST_F(JoinTest, BroadcastBuildSideSpillsPastTheMemoryLimit) {
  auto batches_of = [](const SchemaPtr& schema, int64_t from, int64_t n, int64_t modulus,
                       int64_t offset, const char* tag) {
    std::vector<RecordBatchPtr> batches;
    for (int64_t start = from; start < from + n; start += 1000) {
      std::vector<OptI64> keys;
      std::vector<OptStr> values;
      for (int64_t i = start; i < std::min(from + n, start + 1000); ++i) {
        keys.push_back(i % 97 == 0 ? std::nullopt : OptI64(offset + i % modulus));
        values.push_back(tag + std::to_string(i));
      }
      batches.push_back(BatchOf(schema, {I64s(keys), Strs(values)}));
    }
    return batches;
  };
  // Keys 0..2999 on the left in two partitions, 1000..6999 on the right, each twice.
  std::vector<std::vector<RecordBatchPtr>> parts{
      batches_of(left_schema_, 0, 3000, 3000, 0, "l"),
      batches_of(left_schema_, 3000, 3000, 3000, 0, "l")};
  std::vector<RecordBatchPtr> all_left = parts[0];
  all_left.insert(all_left.end(), parts[1].begin(), parts[1].end());
  auto left = PartitionedSource(left_schema_, parts);
  auto right = Source(right_schema_, batches_of(right_schema_, 0, 12000, 6000, 1000, "r"));
  auto pairs = JoinOutputSchema(*left_schema_, *right_schema_, JoinType::kInner);
  auto lv_before_rv = expr::Compile(expr::Compare("lt", expr::Column(1, "lv", String()),
                                                  expr::Column(3, "rv", String())),
                                    pairs)
                          .ValueOrDie();
  for (JoinType type : {JoinType::kInner, JoinType::kLeft, JoinType::kSemi, JoinType::kAnti}) {
    for (bool with_filter : {false, true}) {
      SCOPED_TRACE(std::string(plan::JoinTypeName(type)) + (with_filter ? " with filter" : ""));
      expr::PhysicalExprPtr filter = with_filter ? lv_before_rv : nullptr;
      auto expected = Run(Hash(Source(left_schema_, all_left), right, type, filter));
      std::sort(expected.begin(), expected.end());
      ASSERT_FALSE(expected.empty());
      TempDir dir;
      ASSERT_OK_AND_ASSIGN(auto plan, Hash(left, right, type, filter, false, JoinMode::kBroadcast));
      // The build side takes about 450 KiB in memory, a bucket's table about 35 KiB.
      auto ctx = MakeContext(1000, 160 << 10, dir.path());
      V rows;
      for (const V& part : RunPartitionsConcurrently(plan, ctx)) {
        // Each task joined its own probe rows.
        EXPECT_FALSE(part.empty());
        rows.insert(rows.end(), part.begin(), part.end());
      }
      std::sort(rows.begin(), rows.end());
      EXPECT_EQ(rows, expected);
      EXPECT_GT(SpilledBytes(ctx, plan), 0);
      plan.reset();
      ctx.reset();
      EXPECT_EQ(dir.files(), 0);
    }
  }
}

// A partitioned build side past the budget spills both sides to bucket files and joins
// them bucket by bucket: the same rows as in memory, for every join type, NULL keys,
// duplicate keys and a filter included; no file is left behind.
TEST_F(JoinTest, PartitionedBuildSideSpillsPastTheMemoryLimit) {
  auto make_side = [](const SchemaPtr& schema, int64_t n, int64_t modulus, int64_t offset,
                      const char* tag) {
    std::vector<RecordBatchPtr> batches;
    for (int64_t start = 0; start < n; start += 1000) {
      std::vector<OptI64> keys;
      std::vector<OptStr> values;
      for (int64_t i = start; i < std::min(n, start + 1000); ++i) {
        keys.push_back(i % 97 == 0 ? std::nullopt : OptI64(offset + i % modulus));
        values.push_back(tag + std::to_string(i));
      }
      batches.push_back(BatchOf(schema, {I64s(keys), Strs(values)}));
    }
    return Source(schema, std::move(batches));
  };
  // Keys 0..2999 on the left, 1000..6999 on the right, each twice, every 97th NULL.
  auto left = make_side(left_schema_, 6000, 3000, 0, "l");
  auto right = make_side(right_schema_, 12000, 6000, 1000, "r");
  // lv < rv, over left ++ right: decides per pair.
  auto pairs = JoinOutputSchema(*left_schema_, *right_schema_, JoinType::kInner);
  auto lv_before_rv = expr::Compile(expr::Compare("lt", expr::Column(1, "lv", String()),
                                                  expr::Column(3, "rv", String())),
                                    pairs)
                          .ValueOrDie();
  for (JoinType type :
       {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull, JoinType::kSemi,
        JoinType::kAnti, JoinType::kRightSemi, JoinType::kRightAnti}) {
    for (bool with_filter : {false, true}) {
      SCOPED_TRACE(std::string(plan::JoinTypeName(type)) + (with_filter ? " with filter" : ""));
      expr::PhysicalExprPtr filter = with_filter ? lv_before_rv : nullptr;
      auto expected = Run(Hash(left, right, type, filter));
      std::sort(expected.begin(), expected.end());
      TempDir dir;
      ASSERT_OK_AND_ASSIGN(auto plan, Hash(left, right, type, filter));
      auto ctx = MakeContext(1000, 64 << 10, dir.path());
      ASSERT_OK_AND_ASSIGN(auto rows, RunRows(plan, ctx));
      std::sort(rows.begin(), rows.end());
      EXPECT_EQ(rows, expected);
      EXPECT_GT(SpilledBytes(ctx, plan), 0);
      EXPECT_EQ(dir.files(), 0);
    }
  }
}

// A large broadcast build side is built in shards by the join's tasks together (here four
// probe partitions run at once on their own threads): the same rows as the partitioned
// join for every broadcast join type, NULL keys, duplicate keys and a filter included.
TEST_F(JoinTest, BroadcastBuildSideBuiltInShardsByTheTasks) {
  auto batches_of = [](const SchemaPtr& schema, int64_t from, int64_t n, int64_t modulus,
                       const char* tag) {
    std::vector<RecordBatchPtr> batches;
    for (int64_t start = from; start < from + n; start += 1000) {
      std::vector<OptI64> keys;
      std::vector<OptStr> values;
      for (int64_t i = start; i < std::min(from + n, start + 1000); ++i) {
        keys.push_back(i % 97 == 0 ? std::nullopt : OptI64((i * 7919) % modulus));
        values.push_back(tag + std::to_string(i % 1000));
      }
      batches.push_back(BatchOf(schema, {I64s(keys), Strs(values)}));
    }
    return batches;
  };
  // 300,000 build rows over 200,000 keys (duplicates), 4 x 20,000 probe rows over 400,000.
  std::vector<std::vector<RecordBatchPtr>> parts;
  for (int p = 0; p < 4; ++p)
    parts.push_back(batches_of(left_schema_, p * 20000, 20000, 400000, "l"));
  std::vector<RecordBatchPtr> all_left;
  for (const auto& p : parts) all_left.insert(all_left.end(), p.begin(), p.end());
  auto left = testing::PartitionedSource(left_schema_, parts);
  auto right = Source(right_schema_, batches_of(right_schema_, 0, 300000, 200000, "r"));
  auto pairs = JoinOutputSchema(*left_schema_, *right_schema_, JoinType::kInner);
  auto lv_before_rv = expr::Compile(expr::Compare("lt", expr::Column(1, "lv", String()),
                                                  expr::Column(3, "rv", String())),
                                    pairs)
                          .ValueOrDie();
  // Runs every partition of `plan` on its own thread at once; all their rows, sorted.
  auto run_concurrently = [](const PlanPtr& plan) {
    auto ctx = MakeContext();
    // The build side is large enough to be built in shards, and is: 8 for 4 probe tasks.
    EXPECT_EQ(HashJoinExec::BroadcastBuildShards(ctx->config(), plan->partition_count()), 8);
    V rows;
    for (const V& part : RunPartitionsConcurrently(plan, ctx)) {
      rows.insert(rows.end(), part.begin(), part.end());
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  auto one_left = Source(left_schema_, all_left);
  for (bool with_filter : {false, true}) {
    expr::PhysicalExprPtr filter = with_filter ? lv_before_rv : nullptr;
    for (JoinType type : {JoinType::kInner, JoinType::kLeft, JoinType::kSemi, JoinType::kAnti}) {
      SCOPED_TRACE(std::string(plan::JoinTypeName(type)) + (with_filter ? " with filter" : ""));
      auto expected = Run(Hash(one_left, right, type, filter));
      std::sort(expected.begin(), expected.end());
      ASSERT_OK_AND_ASSIGN(auto plan, Hash(left, right, type, filter, false, JoinMode::kBroadcast));
      auto rows = run_concurrently(plan);
      ASSERT_FALSE(expected.empty());
      EXPECT_EQ(rows, expected);
    }
    if (with_filter) continue;
    // Mark: true where the semi join keeps the row; else NULL (the build side has a NULL
    // key).
    auto semi = Run(Hash(one_left, right, JoinType::kSemi));
    std::set<std::string> matched(semi.begin(), semi.end());
    std::vector<std::string> expected;
    for (const std::string& row : Run(Hash(one_left, EmptyRight(), JoinType::kLeft))) {
      const std::string l = row.substr(0, row.size() - std::string("|NULL|NULL").size());
      expected.push_back(l + (matched.count(l) ? "|t" : "|NULL"));
    }
    std::sort(expected.begin(), expected.end());
    ASSERT_OK_AND_ASSIGN(auto mark,
                         Hash(left, right, JoinType::kMark, nullptr, false, JoinMode::kBroadcast));
    EXPECT_EQ(run_concurrently(mark), expected);
  }
}

// The keys a broadcast join publishes: every distinct non-NULL key while there are at
// most DynamicFilter::kMaxValues, else a bitmap of them when their range is small enough,
// else only their range; none at all for no key.
TEST(DynamicFilterTest, ListedKeysBitmapRangeAndNone) {
  ASSERT_OK_AND_ASSIGN(DynamicFilter few, DynamicFilter::Of(*I64s({7, std::nullopt, 3, 7, 3, 9})));
  EXPECT_TRUE(few.listed);
  ASSERT_EQ(few.values.size(), 3u);
  EXPECT_EQ(few.values[0].get<int64_t>(), 3);
  EXPECT_EQ(few.values[2].get<int64_t>(), 9);
  EXPECT_EQ(few.min->get<int64_t>(), 3);
  EXPECT_EQ(few.max->get<int64_t>(), 9);
  EXPECT_EQ(few.ToString(), "IN (3 values)");
  // A dense list has a bitmap too (which scans prefer); a sparse one has none.
  ASSERT_NE(few.bitmap, nullptr);
  EXPECT_TRUE(few.bitmap->Contains(7));
  EXPECT_FALSE(few.bitmap->Contains(8));
  ASSERT_OK_AND_ASSIGN(DynamicFilter sparse_list, DynamicFilter::Of(*I64s({0, 1 << 20})));
  EXPECT_TRUE(sparse_list.listed);
  EXPECT_EQ(sparse_list.bitmap, nullptr);
  // Many repeats of few keys stay listed; more distinct keys than the cap give a range.
  std::vector<OptI64> repeated, many;
  for (int64_t i = 0; i < 10000; ++i) repeated.push_back(i % 10);
  const int64_t over = DynamicFilter::kMaxValues + 5000;
  for (int64_t i = 0; i < over; ++i) many.push_back(over - i);
  ASSERT_OK_AND_ASSIGN(DynamicFilter rep, DynamicFilter::Of(*I64s(repeated)));
  EXPECT_TRUE(rep.listed);
  EXPECT_EQ(rep.values.size(), 10u);
  // A dense list of more keys than Iceberg's pruning takes: the bitmap alone; a sparse one
  // of as many keys stays a list.
  std::vector<OptI64> dense_keys, sparse_keys;
  for (int64_t i = 0; i <= DynamicFilter::kMaxIcebergValues; ++i) {
    dense_keys.push_back(3 * i);
    sparse_keys.push_back(1000 * i);
  }
  ASSERT_OK_AND_ASSIGN(DynamicFilter dense, DynamicFilter::Of(*I64s(dense_keys)));
  EXPECT_FALSE(dense.listed);
  EXPECT_TRUE(dense.values.empty());
  ASSERT_NE(dense.bitmap, nullptr);
  EXPECT_TRUE(dense.bitmap->Contains(3 * DynamicFilter::kMaxIcebergValues));
  EXPECT_FALSE(dense.bitmap->Contains(4));
  EXPECT_EQ(dense.ToString(), "bitmap");
  dense_keys.pop_back();
  ASSERT_OK_AND_ASSIGN(DynamicFilter short_dense, DynamicFilter::Of(*I64s(dense_keys)));
  EXPECT_TRUE(short_dense.listed);
  EXPECT_NE(short_dense.bitmap, nullptr);
  ASSERT_OK_AND_ASSIGN(DynamicFilter sparse_long, DynamicFilter::Of(*I64s(sparse_keys)));
  EXPECT_TRUE(sparse_long.listed);
  EXPECT_EQ(sparse_long.values.size(), sparse_keys.size());
  EXPECT_EQ(sparse_long.bitmap, nullptr);
  ASSERT_OK_AND_ASSIGN(DynamicFilter bitmap, DynamicFilter::Of(*I64s(many)));
  EXPECT_FALSE(bitmap.listed);
  EXPECT_TRUE(bitmap.values.empty());
  EXPECT_EQ(bitmap.min->get<int64_t>(), 1);
  EXPECT_EQ(bitmap.max->get<int64_t>(), over);
  // Too many to list, within kMaxBitmapSpan: a bitmap of the keys.
  ASSERT_NE(bitmap.bitmap, nullptr);
  EXPECT_EQ(bitmap.ToString(), "bitmap");
  EXPECT_EQ(bitmap.bitmap->lo, 1);
  EXPECT_EQ(bitmap.bitmap->hi(), over);
  EXPECT_TRUE(bitmap.bitmap->Contains(1));
  EXPECT_TRUE(bitmap.bitmap->Contains(over));
  EXPECT_FALSE(bitmap.bitmap->Contains(0));
  EXPECT_FALSE(bitmap.bitmap->Contains(over + 1));
  EXPECT_FALSE(bitmap.bitmap->Contains(INT64_MIN));
  // Every other key, with NULLs, negative: only the keys are in; AnyIn finds them in ranges.
  std::vector<OptI64> sparse;
  for (int64_t i = 0; i < over; ++i) sparse.push_back(i % 5 == 0 ? std::nullopt : OptI64(-2 * i));
  ASSERT_OK_AND_ASSIGN(DynamicFilter evens, DynamicFilter::Of(*I64s(sparse), over));
  ASSERT_NE(evens.bitmap, nullptr);
  EXPECT_EQ(evens.bitmap->lo, -2 * (over - 2));  // row over - 1 is NULL
  EXPECT_EQ(evens.bitmap->hi(), -2);
  EXPECT_TRUE(evens.bitmap->Contains(-2));
  EXPECT_FALSE(evens.bitmap->Contains(-3));
  EXPECT_FALSE(evens.bitmap->Contains(-10));  // row 5: NULL
  EXPECT_FALSE(evens.bitmap->Contains(0));    // row 0: NULL
  EXPECT_TRUE(evens.bitmap->AnyIn(-12, -12));
  EXPECT_FALSE(evens.bitmap->AnyIn(-11, -11));
  EXPECT_FALSE(evens.bitmap->AnyIn(-10, -9));
  EXPECT_TRUE(evens.bitmap->AnyIn(-1000, 1000));
  EXPECT_FALSE(evens.bitmap->AnyIn(-1, 1000));
  EXPECT_FALSE(evens.bitmap->AnyIn(INT64_MIN, -2 * over));
  EXPECT_TRUE(evens.bitmap->AnyIn(INT64_MIN, INT64_MAX));
  // Keys spanning more than kMaxBitmapSpan values: their range only.
  std::vector<OptI64> spread;
  for (int64_t i = 0; i < over; ++i) spread.push_back(i * 1024);
  ASSERT_OK_AND_ASSIGN(DynamicFilter range, DynamicFilter::Of(*I64s(spread)));
  EXPECT_FALSE(range.listed);
  EXPECT_EQ(range.bitmap, nullptr);
  EXPECT_EQ(range.ToString(), "range");
  EXPECT_EQ(range.max->get<int64_t>(), (over - 1) * 1024);
  // A join table's key count over the cap: no list is attempted.
  ASSERT_OK_AND_ASSIGN(DynamicFilter capped,
                       DynamicFilter::Of(*I64s(repeated), DynamicFilter::kMaxValues + 1));
  EXPECT_FALSE(capped.listed);
  EXPECT_EQ(capped.max->get<int64_t>(), 9);
  ASSERT_OK_AND_ASSIGN(DynamicFilter none, DynamicFilter::Of(*I64s({std::nullopt})));
  EXPECT_FALSE(none.min.has_value());
  EXPECT_EQ(none.ToString(), "none");
  EXPECT_THAT(DynamicFilter::Of(*Strs({"a"})), floe::testing::IsError(StatusCode::kNotSupported));
}

TEST_F(JoinTest, NestedLoop) {
  auto schema = JoinOutputSchema(*left_schema_, *right_schema_, JoinType::kInner);
  // lk < rk
  auto less = expr::Compile(expr::Compare("lt", expr::Column(0, "lk", Int64()),
                                          expr::Column(2, "rk", Int64())),
                            schema)
                  .ValueOrDie();
  auto left = Source(left_schema_,
                     {BatchOf(left_schema_, {I64s({1, std::nullopt, 3}), Strs({"a", "b", "c"})})});
  auto right = Source(right_schema_, {BatchOf(right_schema_, {I64s({2, 3}), Strs({"x", "y"})})});
  auto run = [&](JoinType type, expr::PhysicalExprPtr filter, int64_t batch_size = 8192) {
    auto plan = NestedLoopJoinExec::Make(left, right, type, std::move(filter));
    EXPECT_OK(plan);
    auto rows = RunRows(*plan, MakeContext(batch_size));
    EXPECT_OK(rows);
    return *rows;
  };
  EXPECT_EQ(run(JoinType::kInner, nullptr, 4),
            (V{"1|a|2|x", "1|a|3|y", "NULL|b|2|x", "NULL|b|3|y", "3|c|2|x", "3|c|3|y"}));
  EXPECT_EQ(run(JoinType::kInner, less), (V{"1|a|2|x", "1|a|3|y"}));
  EXPECT_EQ(run(JoinType::kLeft, less, 1),
            (V{"1|a|2|x", "1|a|3|y", "NULL|b|NULL|NULL", "3|c|NULL|NULL"}));
  EXPECT_EQ(run(JoinType::kRight, less), (V{"1|a|2|x", "1|a|3|y"}));
  EXPECT_EQ(run(JoinType::kSemi, less), (V{"1|a"}));
  EXPECT_EQ(run(JoinType::kAnti, less), (V{"NULL|b", "3|c"}));
  // NULL < x is unknown: the mark is NULL, not false.
  EXPECT_EQ(run(JoinType::kMark, less), (V{"1|a|t", "NULL|b|NULL", "3|c|f"}));
  auto gt = expr::Compile(
                expr::Compare("gt", expr::Column(0, "lk", Int64()), expr::Column(2, "rk", Int64())),
                schema)
                .ValueOrDie();
  EXPECT_EQ(run(JoinType::kFull, gt),
            (V{"3|c|2|x", "1|a|NULL|NULL", "NULL|b|NULL|NULL", "NULL|NULL|3|y"}));
}

}  // namespace
}  // namespace floe::exec
