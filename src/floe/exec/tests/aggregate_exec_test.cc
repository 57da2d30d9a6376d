// HashAggregateExec: single, partial + final, empty inputs, NULL and float keys, FILTER,
// and spilling past the memory limit.

#include <filesystem>
#include <map>

#include "floe/exec/aggregate_exec.h"
#include "floe/exec/coalesce_partitions_exec.h"
#include "floe/exec/tests/operators_test_support.h"
#include "floe/expr/function_registry.h"

namespace floe::exec {
namespace {

using testing::BatchOf;
using testing::Col;
using testing::F64s;
using testing::I64s;
using testing::MakeContext;
using testing::RunRows;
using testing::SchemaOf;
using testing::Source;
using testing::Strs;

AggregateExprSpec Agg(const std::string& fn, std::vector<expr::PhysicalExprPtr> args,
                      const std::string& name, expr::PhysicalExprPtr filter = nullptr) {
  std::vector<TypePtr> types;
  for (const auto& a : args) types.push_back(a->type());
  AggregateExprSpec spec;
  spec.function = expr::ResolveAggregate(fn, types, false).ValueOrDie();
  spec.args = std::move(args);
  spec.filter = std::move(filter);
  spec.name = name;
  return spec;
}

class AggregateTest : public ::testing::Test {
 protected:
  SchemaPtr schema_ = SchemaOf({"g", "x"}, {Strs({}), I64s({})});
  std::vector<RecordBatchPtr> Batches() {
    return {BatchOf(schema_, {Strs({"a", "b", std::nullopt, "a"}), I64s({1, 2, 3, std::nullopt})}),
            BatchOf(schema_, {Strs({"b", std::nullopt, "c"}), I64s({10, 20, 30})})};
  }
  std::vector<AggregateExprSpec> Aggs() {
    return {Agg("count_star", {}, "count(*)"), Agg("count", {Col(schema_, 1)}, "count(x)"),
            Agg("sum", {Col(schema_, 1)}, "sum(x)"), Agg("min", {Col(schema_, 1)}, "min(x)"),
            Agg("max", {Col(schema_, 1)}, "max(x)")};
  }
};

TEST_F(AggregateTest, SingleGroupsByFirstAppearanceWithNullGroup) {
  ASSERT_OK_AND_ASSIGN(
      auto agg, HashAggregateExec::Make(AggregateMode::kSingle, {Col(schema_, 0)}, {"g"}, Aggs(),
                                        Source(schema_, Batches())));
  EXPECT_EQ(agg->schema()->num_fields(), 6);
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(agg, MakeContext()));
  EXPECT_EQ(rows, (std::vector<std::string>{"a|2|1|1|1|1", "b|2|2|12|2|10", "NULL|2|2|23|3|20",
                                            "c|1|1|30|30|30"}));
  EXPECT_EQ(agg->ToString(),
            "HashAggregateExec: mode=Single, gby=[g], aggr=[count(*), count(x), sum(x), min(x), "
            "max(x)]");
}

TEST_F(AggregateTest, PartialThenFinal) {
  auto input = testing::PartitionedSource(schema_, {{Batches()[0]}, {Batches()[1]}});
  ASSERT_OK_AND_ASSIGN(
      auto partial,
      HashAggregateExec::Make(AggregateMode::kPartial, {Col(schema_, 0)}, {"g"}, Aggs(), input));
  EXPECT_EQ(partial->schema()->field(1).name(), "count(*)[count]");
  EXPECT_EQ(partial->partition_count(), 2);
  ASSERT_OK_AND_ASSIGN(auto merged, CoalescePartitionsExec::Make(partial));
  ASSERT_OK_AND_ASSIGN(auto final_agg,
                       HashAggregateExec::Make(AggregateMode::kFinal, {Col(merged->schema(), 0)},
                                               {"g"}, Aggs(), merged));
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(final_agg, MakeContext()));
  EXPECT_EQ(rows, (std::vector<std::string>{"a|2|1|1|1|1", "b|2|2|12|2|10", "NULL|2|2|23|3|20",
                                            "c|1|1|30|30|30"}));
}

TEST_F(AggregateTest, EmptyInputs) {
  ASSERT_OK_AND_ASSIGN(auto no_groups, HashAggregateExec::Make(AggregateMode::kSingle, {}, {},
                                                               Aggs(), Source(schema_, {})));
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(no_groups, MakeContext()));
  EXPECT_EQ(rows, (std::vector<std::string>{"0|0|NULL|NULL|NULL"}));

  // Partial + final without groups: still exactly one row.
  ASSERT_OK_AND_ASSIGN(auto partial, HashAggregateExec::Make(AggregateMode::kPartial, {}, {},
                                                             Aggs(), Source(schema_, {})));
  ASSERT_OK_AND_ASSIGN(auto final_agg,
                       HashAggregateExec::Make(AggregateMode::kFinal, {}, {}, Aggs(), partial));
  ASSERT_OK_AND_ASSIGN(rows, RunRows(final_agg, MakeContext()));
  EXPECT_EQ(rows, (std::vector<std::string>{"0|0|NULL|NULL|NULL"}));

  ASSERT_OK_AND_ASSIGN(auto grouped,
                       HashAggregateExec::Make(AggregateMode::kSingle, {Col(schema_, 0)}, {"g"},
                                               Aggs(), Source(schema_, {})));
  ASSERT_OK_AND_ASSIGN(rows, RunRows(grouped, MakeContext()));
  EXPECT_TRUE(rows.empty());

  ASSERT_OK_AND_ASSIGN(auto all, HashAggregateExec::Make(AggregateMode::kSingle, {}, {}, Aggs(),
                                                         Source(schema_, Batches())));
  ASSERT_OK_AND_ASSIGN(rows, RunRows(all, MakeContext()));
  EXPECT_EQ(rows, (std::vector<std::string>{"7|6|66|1|30"}));
}

TEST_F(AggregateTest, FilterClauseAndFloatKeys) {
  auto schema = SchemaOf({"f", "x"}, {F64s({}), I64s({})});
  auto batch =
      BatchOf(schema, {F64s({0.0, -0.0, NAN, 1.5, NAN, std::nullopt}), I64s({1, 2, 3, 4, 5, 6})});
  auto filter =
      expr::Compile(
          expr::Compare("gt", expr::Column(1, "x", Int64()), expr::Literal(Scalar::I64(1))), schema)
          .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto agg,
                       HashAggregateExec::Make(
                           AggregateMode::kSingle, {Col(schema, 0)}, {"f"},
                           {Agg("count_star", {}, "n"), Agg("sum", {Col(schema, 1)}, "s", filter)},
                           Source(schema, {batch})));
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(agg, MakeContext()));
  EXPECT_EQ(rows, (std::vector<std::string>{"0|2|2", "NaN|2|8", "1.5|1|4", "NULL|1|6"}));
}

TEST(AggregatePartial, EmitsEarlyWithoutChangingTheFinalResult) {
  // 200000 rows over 100000 keys: the partial phase stops building one big table (it
  // barely reduces) and emits every batch's groups; the final phase still merges them.
  auto schema = SchemaOf({"k", "v"}, {I64s({}), I64s({})});
  std::vector<RecordBatchPtr> batches;
  for (int b = 0; b < 25; ++b) {
    std::vector<testing::OptI64> k, v;
    for (int r = 0; r < 8000; ++r) {
      const int64_t row = static_cast<int64_t>(b) * 8000 + r;
      k.push_back((row * 7) % 100000);
      v.push_back(1);
    }
    batches.push_back(BatchOf(schema, {I64s(k), I64s(v)}));
  }
  std::vector<AggregateExprSpec> aggs = {Agg("sum", {Col(schema, 1)}, "s")};
  ASSERT_OK_AND_ASSIGN(
      auto partial, HashAggregateExec::Make(AggregateMode::kPartial, {Col(schema, 0)}, {"k"}, aggs,
                                            Source(schema, batches)));
  auto ctx = MakeContext();
  ASSERT_OK_AND_ASSIGN(auto partial_out, CollectAll(partial, ctx));
  int64_t partial_rows = 0;
  for (const auto& b : partial_out) partial_rows += b->num_rows();
  EXPECT_GT(partial_rows, 100000);  // some keys were emitted more than once
  ASSERT_OK_AND_ASSIGN(auto final_agg,
                       HashAggregateExec::Make(AggregateMode::kFinal, {Col(partial->schema(), 0)},
                                               {"k"}, aggs, partial));
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(final_agg, MakeContext()));
  ASSERT_EQ(rows.size(), 100000u);
  for (const auto& row : rows) ASSERT_EQ(row.substr(row.find('|')), "|2") << row;
}

TEST(AggregateSpill, FinishesPastTheMemoryLimitBySpillingSortedState) {
  auto schema = SchemaOf({"k", "v"}, {I64s({}), I64s({})});
  std::vector<RecordBatchPtr> batches;
  std::map<int64_t, std::pair<int64_t, int64_t>> expected;  // key -> (count, sum)
  for (int b = 0; b < 30; ++b) {
    std::vector<testing::OptI64> k, v;
    for (int r = 0; r < 2000; ++r) {
      int64_t key = (static_cast<int64_t>(b) * 7919 + r * 104729) % 20000;
      k.push_back(key);
      v.push_back(r);
      expected[key].first += 1;
      expected[key].second += r;
    }
    batches.push_back(BatchOf(schema, {I64s(k), I64s(v)}));
  }
  ASSERT_OK_AND_ASSIGN(
      auto agg,
      HashAggregateExec::Make(AggregateMode::kSingle, {Col(schema, 0)}, {"k"},
                              {Agg("count_star", {}, "n"), Agg("sum", {Col(schema, 1)}, "s")},
                              Source(schema, batches)));
  auto dir =
      std::filesystem::temp_directory_path() / ("floe-agg-spill-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto ctx = MakeContext(4096, 512 << 10, dir.string());
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(agg, ctx));
  std::vector<std::string> want;
  for (auto& [k, cs] : expected) {
    want.push_back(std::to_string(k) + "|" + std::to_string(cs.first) + "|" +
                   std::to_string(cs.second));
  }
  std::sort(rows.begin(), rows.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(rows, want);
  int64_t spilled = 0;
  for (auto& [p, m] : ctx->metrics()->Of(agg.get())) spilled += m->spilled_bytes.load();
  EXPECT_GT(spilled, 0);
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace floe::exec
