// HashAggregateExec: single, partial + final, empty inputs, NULL and float keys, FILTER,
// and spilling past the memory limit.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "floe/exec/aggregate/aggregate_exec.h"
#include "floe/exec/aggregate/distinct_estimate.h"
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

// Arrays of other key types for the packed group keys.
template <typename B, typename T>
ArrayPtr Typed(TypePtr type, const std::vector<std::optional<T>>& values) {
  B b(std::move(type));
  for (const auto& v : values) {
    if (v) {
      FLOE_CHECK(b.Append(*v).ok(), "append");
    } else {
      FLOE_CHECK(b.AppendNull().ok(), "append");
    }
  }
  return b.Finish().ValueOrDie();
}

// Runs count(*) and sum(v) grouped by every column but the last, single-phase and
// partial + final over two partitions, and checks both against `want` (in order of first
// appearance for the single phase).
void ExpectGroups(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                  const std::vector<std::string>& want) {
  const int v = schema->num_fields() - 1;
  std::vector<expr::PhysicalExprPtr> keys;
  std::vector<std::string> names;
  for (int k = 0; k < v; ++k) {
    keys.push_back(Col(schema, k));
    names.push_back(schema->field(k).name());
  }
  std::vector<AggregateExprSpec> aggs = {Agg("count_star", {}, "n"),
                                         Agg("sum", {Col(schema, v)}, "s")};
  ASSERT_OK_AND_ASSIGN(auto single, HashAggregateExec::Make(AggregateMode::kSingle, keys, names,
                                                            aggs, Source(schema, batches)));
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(single, MakeContext()));
  EXPECT_EQ(rows, want);

  std::vector<std::vector<RecordBatchPtr>> parts(2);
  for (size_t b = 0; b < batches.size(); ++b) parts[b % 2].push_back(batches[b]);
  ASSERT_OK_AND_ASSIGN(auto partial,
                       HashAggregateExec::Make(AggregateMode::kPartial, keys, names, aggs,
                                               testing::PartitionedSource(schema, parts)));
  ASSERT_OK_AND_ASSIGN(auto merged, CoalescePartitionsExec::Make(partial));
  std::vector<expr::PhysicalExprPtr> final_keys;
  for (int k = 0; k < v; ++k) final_keys.push_back(Col(merged->schema(), k));
  ASSERT_OK_AND_ASSIGN(auto final_agg, HashAggregateExec::Make(AggregateMode::kFinal, final_keys,
                                                               names, aggs, merged));
  ASSERT_OK_AND_ASSIGN(auto final_rows, RunRows(final_agg, MakeContext()));
  std::vector<std::string> sorted_want = want;
  std::sort(final_rows.begin(), final_rows.end());
  std::sort(sorted_want.begin(), sorted_want.end());
  EXPECT_EQ(final_rows, sorted_want);
}

TEST(AggregatePackedKeys, ShortStringsWithNulls) {
  // Two string keys of up to three bytes pack into 64 bits; "" and NULL are different.
  auto schema = SchemaOf({"a", "b", "v"}, {Strs({}), Strs({}), I64s({})});
  std::vector<RecordBatchPtr> batches = {
      BatchOf(schema, {Strs({"A", "A", "", std::nullopt, "N", "A"}),
                       Strs({"F", "F", "F", "F", std::nullopt, "O"}), I64s({1, 2, 3, 4, 5, 6})}),
      BatchOf(schema, {Strs({std::nullopt, "", "abc", "A"}), Strs({"F", "", "xyz", "F"}),
                       I64s({10, 20, 30, std::nullopt})})};
  ExpectGroups(
      schema, batches,
      {"A|F|3|3", "|F|1|3", "NULL|F|2|14", "N|NULL|1|5", "A|O|1|6", "||1|20", "abc|xyz|1|30"});
}

TEST(AggregatePackedKeys, LongerStringMovesTheGroupsToTheKeyTable) {
  // The first batches pack; a later value longer than the packed layout holds moves the
  // groups seen so far (ids kept) to the general table.
  auto schema = SchemaOf({"a", "b", "v"}, {Strs({}), Strs({}), I64s({})});
  std::vector<RecordBatchPtr> batches = {
      BatchOf(schema, {Strs({"x", "y", std::nullopt, "x"}), Strs({"1", "2", "3", "1"}),
                       I64s({1, 2, 3, 4})}),
      BatchOf(schema, {Strs({"y", "a much longer key", "x", std::nullopt}),
                       Strs({"2", "1", "1", "3"}), I64s({10, 20, 30, 40})}),
      BatchOf(schema, {Strs({"x", "a much longer key"}), Strs({"1", "1"}), I64s({100, 200})})};
  ExpectGroups(schema, batches,
               {"x|1|4|135", "y|2|2|12", "NULL|3|2|43", "a much longer key|1|2|220"});
}

TEST(AggregatePackedKeys, SingleIntegerKeyWithNullGroupAcrossGrowth) {
  // 5000 distinct int64 keys (negative ones too) grow the table many times; NULL keys form
  // one group of their own, also next to the key 0.
  auto schema = SchemaOf({"k", "v"}, {I64s({}), I64s({})});
  std::vector<RecordBatchPtr> batches;
  std::map<int64_t, int64_t> counts;
  for (int b = 0; b < 4; ++b) {
    std::vector<testing::OptI64> k, v;
    for (int r = 0; r < 3000; ++r) {
      if (r % 100 == 7) {
        k.push_back(std::nullopt);
      } else {
        const int64_t key = ((b * 3000 + r) * 37) % 5000 - 2500;
        k.push_back(key);
        ++counts[key];
      }
      v.push_back(1);
    }
    batches.push_back(BatchOf(schema, {I64s(k), I64s(v)}));
  }
  auto sum_of = [&](const std::vector<std::string>& rows) {
    std::map<std::string, std::string> m;
    for (const auto& row : rows) m[row.substr(0, row.find('|'))] = row.substr(row.find('|'));
    return m;
  };
  std::vector<AggregateExprSpec> aggs = {Agg("count_star", {}, "n")};
  ASSERT_OK_AND_ASSIGN(
      auto single, HashAggregateExec::Make(AggregateMode::kSingle, {Col(schema, 0)}, {"k"}, aggs,
                                           Source(schema, batches)));
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(single, MakeContext(1000)));
  ASSERT_EQ(rows.size(), counts.size() + 1);
  auto got = sum_of(rows);
  EXPECT_EQ(got["NULL"], "|120");
  for (const auto& [key, n] : counts) EXPECT_EQ(got[std::to_string(key)], "|" + std::to_string(n));
}

TEST(AggregatePackedKeys, NarrowIntegersDatesAndDecimals) {
  // int8 and int16 keys with NULL bytes next to a date; a decimal(18, 2) key alone.
  std::vector<ArrayPtr> cols = {
      Typed<Int8Builder, int8_t>(Int8(), {-1, 1, -1, std::nullopt, 0, -1}),
      Typed<Int16Builder, int16_t>(Int16(), {-300, 300, -300, 0, std::nullopt, -300}),
      Typed<Int32Builder, int32_t>(Date(), {-1, -1, -1, 0, 0, 0}), I64s({1, 2, 3, 4, 5, 6})};
  auto schema = SchemaOf({"a", "b", "d", "v"}, cols);
  ExpectGroups(schema, {BatchOf(schema, cols)},
               {"-1|-300|1969-12-31|2|4", "1|300|1969-12-31|1|2", "NULL|0|1970-01-01|1|4",
                "0|NULL|1970-01-01|1|5", "-1|-300|1970-01-01|1|6"});

  std::vector<ArrayPtr> dec = {Typed<DecimalBuilder, Int128>(
                                   Decimal(18, 2), {Int128{-5}, Int128{5}, std::nullopt, Int128{-5},
                                                    Int128{999999999999999999LL}, std::nullopt}),
                               I64s({1, 2, 3, 4, 5, 6})};
  auto dschema = SchemaOf({"d", "v"}, dec);
  ExpectGroups(dschema, {BatchOf(dschema, dec)},
               {"-0.05|2|5", "0.05|1|2", "NULL|2|9", "9999999999999999.99|1|5"});
}

TEST(AggregatePackedKeys, LargeTableAndRepeatedPartialEmits) {
  // 300000 distinct keys need a table of megabytes (mapped with huge pages requested); a
  // partial aggregation that emits every batch reuses its emptied table and accumulators.
  auto schema = SchemaOf({"k", "v"}, {I64s({}), I64s({})});
  std::vector<RecordBatchPtr> batches;
  for (int b = 0; b < 60; ++b) {
    std::vector<testing::OptI64> k, v;
    for (int r = 0; r < 10000; ++r) {
      k.push_back((static_cast<int64_t>(b) * 10000 + r) % 300000);
      v.push_back(r % 3);
    }
    batches.push_back(BatchOf(schema, {I64s(k), I64s(v)}));
  }
  std::vector<AggregateExprSpec> aggs = {Agg("count_star", {}, "n"),
                                         Agg("sum", {Col(schema, 1)}, "s")};
  ASSERT_OK_AND_ASSIGN(
      auto partial, HashAggregateExec::Make(AggregateMode::kPartial, {Col(schema, 0)}, {"k"}, aggs,
                                            Source(schema, batches)));
  ASSERT_OK_AND_ASSIGN(auto final_agg,
                       HashAggregateExec::Make(AggregateMode::kFinal, {Col(partial->schema(), 0)},
                                               {"k"}, aggs, partial));
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(final_agg, MakeContext()));
  ASSERT_EQ(rows.size(), 300000u);
  std::sort(rows.begin(), rows.end());
  // Key k appears twice (b * 10000 + r = k and k + 300000), with r = k % 10000 both times.
  for (const std::string& row : rows) {
    const int64_t k = std::stoll(row.substr(0, row.find('|')));
    ASSERT_EQ(row, std::to_string(k) + "|2|" + std::to_string(2 * ((k % 10000) % 3))) << row;
  }
}

// The distinct keys of a whole input from its first rows: all of its rows when the sample's
// keys are all distinct; about the true count when keys recur evenly (here 750,000 keys
// ten times each over 7.5M rows, of which the first 256k rows hold about 222k keys, or
// 100 keys each 1,000 times); the sample's count when it is the whole input; nothing
// from nothing.
TEST(AggregatePresize, EstimateDistinctKeysFromTheFirstRows) {
  EXPECT_EQ(EstimateDistinctKeys(75000, 75000, 600000), 600000);
  const double p = 262144.0 / 7500000.0;
  const auto seen = static_cast<int64_t>(750000 * (1 - std::pow(1 - p, 10.0)));
  const int64_t d = EstimateDistinctKeys(262144, seen, 7500000);
  EXPECT_NEAR(static_cast<double>(d), 750000.0, 7500.0);
  EXPECT_EQ(EstimateDistinctKeys(262144, 100, 100000000), 100);
  EXPECT_EQ(EstimateDistinctKeys(1000, 600, 1000), 600);
  EXPECT_EQ(EstimateDistinctKeys(0, 0, 1000), 0);
  EXPECT_EQ(EstimateDistinctKeys(10, 0, 1000), 0);
}

// A final or single aggregation over an input of known rows (here VALUES; in a query a
// complete exchange) whose first rows are nearly all new groups sizes its table and key
// builders for the whole input at once: the same groups as growing them, for packed
// integer keys and for string keys of the general table, when the input's later rows
// repeat earlier keys (the estimate overshoots), and when the budget cannot hold the
// larger table (no presizing: the table grows and spills as before).
TEST(AggregatePresize, KnownInputRowsSizeTheTableOnceWithTheSameGroups) {
  auto schema = SchemaOf({"k", "s", "v"}, {I64s({}), Strs({}), I64s({})});
  // 400,000 rows: the first 200,000 with distinct keys, the rest repeating them when
  // `repeat`, else distinct too.
  auto input = [&](bool repeat) {
    std::vector<RecordBatchPtr> batches;
    for (int64_t start = 0; start < 400000; start += 8192) {
      std::vector<testing::OptI64> k, v;
      std::vector<testing::OptStr> str;
      for (int64_t i = start; i < std::min<int64_t>(400000, start + 8192); ++i) {
        const int64_t key = repeat && i >= 200000 ? i - 200000 : i;
        k.push_back(key == 0 ? std::nullopt : testing::OptI64(key));  // a NULL group
        str.push_back("key number " + std::to_string(key));
        v.push_back(1);
      }
      batches.push_back(BatchOf(schema, {I64s(k), Strs(str), I64s(v)}));
    }
    return Source(schema, std::move(batches));
  };
  std::vector<AggregateExprSpec> aggs = {Agg("sum", {Col(schema, 2)}, "n")};
  for (bool repeat : {false, true}) {
    for (int key : {0, 1}) {
      SCOPED_TRACE(std::string(repeat ? "repeated keys" : "distinct keys") +
                   (key == 0 ? ", integer key" : ", string key"));
      PlanPtr source = input(repeat);
      EXPECT_EQ(source->KnownRows(0, MakeContext()), 400000);
      ASSERT_OK_AND_ASSIGN(
          auto single,
          HashAggregateExec::Make(AggregateMode::kSingle, {Col(schema, key)}, {"g"}, aggs, source));
      const size_t groups = repeat ? 200000u : 400000u;
      const std::string count = repeat ? "2" : "1";
      for (int64_t limit : {int64_t{0}, int64_t{24} << 20}) {
        testing::TempDir dir;
        ASSERT_OK_AND_ASSIGN(auto rows, RunRows(single, MakeContext(8192, limit, dir.path())));
        ASSERT_EQ(rows.size(), groups) << "limit " << limit;
        for (const std::string& row : rows) {
          ASSERT_EQ(row.substr(row.rfind('|') + 1), count) << row;
        }
        std::set<std::string> distinct(rows.begin(), rows.end());
        EXPECT_EQ(distinct.size(), groups);
      }
    }
  }
}

TEST(AggregateKeyTable, SixteenByteKeysInTwoWordsWithNulls) {
  // int64 + date + int32 keys (16 bytes, the KeyTable's two-word packing): keys that differ
  // only in the second word, NULLs in either part, and enough keys to grow the table.
  std::vector<testing::OptI64> k, v;
  std::vector<std::optional<int32_t>> d, p;
  std::map<std::string, std::pair<int64_t, int64_t>> want_map;
  for (int r = 0; r < 3000; ++r) {
    const int64_t key = r % 700;
    const std::optional<int32_t> date =
        r % 97 == 0 ? std::nullopt : std::optional<int32_t>(static_cast<int32_t>(r % 3));
    const std::optional<int32_t> prio =
        r % 89 == 0 ? std::nullopt : std::optional<int32_t>(static_cast<int32_t>(r % 2));
    const testing::OptI64 k1 = r % 101 == 0 ? std::nullopt : testing::OptI64(key);
    k.push_back(k1);
    d.push_back(date);
    p.push_back(prio);
    v.push_back(r);
  }
  std::vector<ArrayPtr> cols = {I64s(k), Typed<Int32Builder, int32_t>(Date(), d),
                                Typed<Int32Builder, int32_t>(Int32(), p), I64s(v)};
  auto schema = SchemaOf({"k", "d", "p", "v"}, cols);
  auto all = BatchOf(schema, cols);
  // The expected groups in order of first appearance, from a row-by-row map.
  std::vector<std::string> order;
  auto text = [](const auto& o, bool date) -> std::string {
    if (!o) return "NULL";
    if (date) return *o == 0 ? "1970-01-01" : *o == 1 ? "1970-01-02" : "1970-01-03";
    return std::to_string(*o);
  };
  for (size_t r = 0; r < k.size(); ++r) {
    const std::string key = text(k[r], false) + "|" + text(d[r], true) + "|" + text(p[r], false);
    auto [it, inserted] = want_map.try_emplace(key, 0, 0);
    if (inserted) order.push_back(key);
    it->second.first += 1;
    it->second.second += *v[r];
  }
  std::vector<std::string> want;
  for (const auto& key : order) {
    want.push_back(key + "|" + std::to_string(want_map[key].first) + "|" +
                   std::to_string(want_map[key].second));
  }
  std::vector<RecordBatchPtr> batches = {all->Slice(0, 1000), all->Slice(1000, 1000),
                                         all->Slice(2000, 1000)};
  ExpectGroups(schema, batches, want);
}

TEST(AggregatePartial, PassThroughStatesMatchHashedStates) {
  // All keys distinct: after kPassthroughMinRows rows the partial phase stops hashing and
  // emits every row as a group of its own. count, sum, avg and min with NULL values and a
  // FILTER still give the exact final results.
  auto schema = SchemaOf({"k", "v"}, {I64s({}), I64s({})});
  std::vector<RecordBatchPtr> batches;
  const int64_t rows = 300000;
  for (int64_t begin = 0; begin < rows; begin += 7000) {
    std::vector<testing::OptI64> k, v;
    for (int64_t row = begin; row < std::min(rows, begin + 7000); ++row) {
      k.push_back(row % 100 == 3 ? testing::OptI64() : testing::OptI64((row * 7) % rows));
      v.push_back(row % 10 == 4 ? testing::OptI64() : testing::OptI64(row % 1000));
    }
    batches.push_back(BatchOf(schema, {I64s(k), I64s(v)}));
  }
  auto filter =
      expr::Compile(
          expr::Compare("gt", expr::Column(1, "v", Int64()), expr::Literal(Scalar::I64(1))), schema)
          .ValueOrDie();
  std::vector<AggregateExprSpec> aggs = {
      Agg("count_star", {}, "n"), Agg("count", {Col(schema, 1)}, "c"),
      Agg("sum", {Col(schema, 1)}, "s", filter), Agg("avg", {Col(schema, 1)}, "a"),
      Agg("min", {Col(schema, 1)}, "m")};
  std::vector<std::string> want;
  {
    ASSERT_OK_AND_ASSIGN(
        auto single, HashAggregateExec::Make(AggregateMode::kSingle, {Col(schema, 0)}, {"k"}, aggs,
                                             Source(schema, batches)));
    ASSERT_OK_AND_ASSIGN(want, RunRows(single, MakeContext()));
  }
  ASSERT_EQ(want.size(), static_cast<size_t>(rows - rows / 100 + 1));
  ASSERT_OK_AND_ASSIGN(
      auto partial, HashAggregateExec::Make(AggregateMode::kPartial, {Col(schema, 0)}, {"k"}, aggs,
                                            Source(schema, batches)));
  ASSERT_OK_AND_ASSIGN(auto partial_out, CollectAll(partial, MakeContext()));
  int64_t partial_rows = 0;
  for (const auto& b : partial_out) partial_rows += b->num_rows();
  EXPECT_GT(partial_rows, rows * 9 / 10);  // nearly every row passed through
  ASSERT_OK_AND_ASSIGN(auto final_agg,
                       HashAggregateExec::Make(AggregateMode::kFinal, {Col(partial->schema(), 0)},
                                               {"k"}, aggs, partial));
  ASSERT_OK_AND_ASSIGN(auto got, RunRows(final_agg, MakeContext()));
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

TEST(AggregatePartial, FlushesATableOfManyGroupsAndStillMerges) {
  // Clustered keys (each 4 times in a row) reduce 4x per flush, so the partial phase keeps
  // hashing but flushes its table whenever it holds kPartialFlushGroups groups.
  auto schema = SchemaOf({"k", "v"}, {I64s({}), I64s({})});
  std::vector<RecordBatchPtr> batches;
  for (int64_t begin = 0; begin < 400000; begin += 8192) {
    std::vector<testing::OptI64> k, v;
    for (int64_t row = begin; row < std::min<int64_t>(400000, begin + 8192); ++row) {
      k.push_back(row / 4);
      v.push_back(row % 4);
    }
    batches.push_back(BatchOf(schema, {I64s(k), I64s(v)}));
  }
  std::vector<AggregateExprSpec> aggs = {Agg("count_star", {}, "n"),
                                         Agg("sum", {Col(schema, 1)}, "s")};
  ASSERT_OK_AND_ASSIGN(
      auto partial, HashAggregateExec::Make(AggregateMode::kPartial, {Col(schema, 0)}, {"k"}, aggs,
                                            Source(schema, batches)));
  ASSERT_OK_AND_ASSIGN(auto partial_out, CollectAll(partial, MakeContext()));
  EXPECT_GT(partial_out.size(), 3u);
  ASSERT_OK_AND_ASSIGN(auto final_agg,
                       HashAggregateExec::Make(AggregateMode::kFinal, {Col(partial->schema(), 0)},
                                               {"k"}, aggs, partial));
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(final_agg, MakeContext()));
  ASSERT_EQ(rows.size(), 100000u);
  for (const std::string& row : rows) ASSERT_EQ(row.substr(row.find('|')), "|4|6") << row;
}

// Batches of (k, v) rows made by row(b, r) for batch b and row r, and the rows that
// SELECT k, count(*), sum(v) GROUP BY k must give ("k|count|sum", sorted).
struct CountSumInput {
  SchemaPtr schema = SchemaOf({"k", "v"}, {I64s({}), I64s({})});
  std::vector<RecordBatchPtr> batches;
  std::vector<std::string> want;
};

CountSumInput MakeCountSumInput(int num_batches, int rows_per_batch,
                                const std::function<std::pair<int64_t, int64_t>(int, int)>& row) {
  CountSumInput input;
  std::map<int64_t, std::pair<int64_t, int64_t>> expected;  // key -> (count, sum)
  for (int b = 0; b < num_batches; ++b) {
    std::vector<testing::OptI64> k, v;
    for (int r = 0; r < rows_per_batch; ++r) {
      auto [key, value] = row(b, r);
      k.push_back(key);
      v.push_back(value);
      expected[key].first += 1;
      expected[key].second += value;
    }
    input.batches.push_back(BatchOf(input.schema, {I64s(k), I64s(v)}));
  }
  for (auto& [k, cs] : expected) {
    input.want.push_back(std::to_string(k) + "|" + std::to_string(cs.first) + "|" +
                         std::to_string(cs.second));
  }
  std::sort(input.want.begin(), input.want.end());
  return input;
}

Result<PlanPtr> CountSumByKey(const CountSumInput& input) {
  return HashAggregateExec::Make(
      AggregateMode::kSingle, {Col(input.schema, 0)}, {"k"},
      {Agg("count_star", {}, "n"), Agg("sum", {Col(input.schema, 1)}, "s")},
      Source(input.schema, input.batches));
}

TEST(AggregateSpill, FinishesPastTheMemoryLimitBySpillingSortedState) {
  CountSumInput input = MakeCountSumInput(30, 2000, [](int b, int r) {
    return std::pair<int64_t, int64_t>((static_cast<int64_t>(b) * 7919 + r * 104729) % 20000, r);
  });
  ASSERT_OK_AND_ASSIGN(auto agg, CountSumByKey(input));
  auto dir =
      std::filesystem::temp_directory_path() / ("floe-agg-spill-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto ctx = MakeContext(4096, 512 << 10, dir.string());
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(agg, ctx));
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, input.want);
  int64_t spilled = 0;
  for (auto& [p, m] : ctx->metrics()->Of(agg.get())) spilled += m->spilled_bytes.load();
  EXPECT_GT(spilled, 0);
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

// The spilled-run files an aggregation holds when its first output batch is ready (the
// final merge reads them all at once) and its rows (sorted), under a budget of `limit`
// bytes with batches of 64 rows.
struct SpillOutcome {
  int64_t files = 0;
  std::vector<std::string> rows;
};

SpillOutcome RunSpilling(const CountSumInput& input, int64_t limit, const std::string& name) {
  SpillOutcome out;
  auto agg = CountSumByKey(input).ValueOrDie();
  auto dir = std::filesystem::temp_directory_path() /
             ("floe-agg-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto ctx = MakeContext(64, limit, dir.string());
  {
    BatchStreamPtr stream = ExecutePlan(agg, 0, ctx).ValueOrDie();
    std::vector<RecordBatchPtr> batches;
    RecordBatchPtr first = stream->Next().ValueOrDie();
    EXPECT_NE(first, nullptr);
    out.files = std::distance(std::filesystem::directory_iterator(dir),
                              std::filesystem::directory_iterator());
    batches.push_back(first);
    while (RecordBatchPtr b = stream->Next().ValueOrDie()) batches.push_back(std::move(b));
    out.rows = testing::Rows(batches);
    std::sort(out.rows.begin(), out.rows.end());
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
  return out;
}

// An aggregation whose every batch spills (a budget smaller than one batch's groups)
// makes 300 runs. A merge reads as many runs at once as the budget has room for, at least
// two and at most sixteen: with a budget that has no room for a merge cursor, runs are
// merged two at a time as they come and the final merge reads two (it read fifteen when
// merges took sixteen whatever the budget). Larger budgets spill fewer, larger runs and
// merge more at a time. The result is exact either way.
TEST(AggregateSpill, ManySpilledRunsAreMergedAsTheBudgetTakes) {
  CountSumInput input = MakeCountSumInput(300, 64, [](int b, int r) {
    return std::pair<int64_t, int64_t>((static_cast<int64_t>(b) * 131 + r * 7) % 5000, b);
  });
  SpillOutcome tiny = RunSpilling(input, 1024, "tiny");
  EXPECT_EQ(tiny.files, 2);
  EXPECT_EQ(tiny.rows, input.want);
  CountSumInput wide = MakeCountSumInput(40, 4000, [](int b, int r) {
    return std::pair<int64_t, int64_t>((static_cast<int64_t>(b) * 4000 + r * 7) % 150000, b);
  });
  for (int64_t limit : {64 << 10, 128 << 10, 512 << 10}) {
    SCOPED_TRACE(limit);
    SpillOutcome o = RunSpilling(wide, limit, "budget");
    EXPECT_GE(o.files, 2);
    EXPECT_LE(o.files, 16);
    EXPECT_EQ(o.rows, wide.want);
  }
}

}  // namespace
}  // namespace floe::exec
