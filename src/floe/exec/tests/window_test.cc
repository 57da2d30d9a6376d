// WindowExec: ranking, distribution, offset and value functions, and aggregates over
// ROWS, RANGE and GROUPS frames, with window partitions spanning input batches.

#include "floe/exec/tests/operators_test_support.h"
#include "floe/exec/window/window_exec.h"
#include "floe/expr/function_registry.h"

namespace floe::exec {
namespace {

using plan::WindowFrame;
using plan::WindowFrameBound;
using testing::BatchOf;
using testing::Col;
using testing::I64s;
using testing::Key;
using testing::MakeContext;
using testing::RunRows;
using testing::SchemaOf;
using testing::Source;
using testing::Strs;
using V = std::vector<std::string>;
using K = WindowFrameBound::Kind;

class WindowTest : public ::testing::Test {
 protected:
  SchemaPtr schema_ = SchemaOf({"p", "o", "v"}, {Strs({}), I64s({}), I64s({})});

  PlanPtr Input() {
    return Source(
        schema_,
        {BatchOf(schema_, {Strs({"a", "a", "a"}), I64s({1, 2, 2}), I64s({10, 20, 30})}),
         BatchOf(schema_, {Strs({"a", "b", "b"}), I64s({4, 1, 3}), I64s({40, 5, std::nullopt})})});
  }
  expr::PhysicalExprPtr Lit(int64_t v) {
    return expr::Compile(expr::Literal(Scalar::I64(v)), schema_).ValueOrDie();
  }
  WindowExprSpec W(const std::string& fn, std::vector<expr::PhysicalExprPtr> args, TypePtr type,
                   WindowFrame frame = {}, bool aggregate = false, bool ordered = true) {
    WindowExprSpec spec;
    spec.call.function = fn;
    spec.call.is_aggregate = aggregate;
    if (!aggregate) spec.call.window_op = expr::FindWindowOp(fn).value();
    if (aggregate) {
      std::vector<TypePtr> types;
      for (const auto& a : args) types.push_back(a->type());
      spec.call.aggregate = expr::ResolveAggregate(fn, types, false).ValueOrDie();
      type = spec.call.aggregate.return_type;
    }
    spec.call.frame = frame;
    spec.call.type = type;
    spec.args = std::move(args);
    spec.partition_by = {Col(schema_, 0)};
    if (ordered) spec.order_by = {Key(schema_, 1)};
    spec.name = fn;
    return spec;
  }
  // The window columns only (the input columns are checked once).
  V Run(std::vector<WindowExprSpec> windows, int64_t batch_size = 4) {
    auto plan = WindowExec::Make(std::move(windows), Input());
    EXPECT_OK(plan);
    auto batches = CollectAll(*plan, MakeContext(batch_size));
    EXPECT_OK(batches);
    if (!batches.ok()) return {};
    EXPECT_LE(testing::MaxBatchRows(*batches), batch_size);
    V out;
    for (const auto& row : testing::Rows(*batches)) {
      size_t cut = 0;
      for (int i = 0; i < 3; ++i) cut = row.find('|', cut) + 1;
      out.push_back(row.substr(cut));
    }
    return out;
  }
};

TEST_F(WindowTest, RankingAndDistribution) {
  auto plan = WindowExec::Make({W("row_number", {}, Int64())}, Input());
  ASSERT_OK(plan);
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(*plan, MakeContext()));
  EXPECT_EQ(rows, (V{"a|1|10|1", "a|2|20|2", "a|2|30|3", "a|4|40|4", "b|1|5|1", "b|3|NULL|2"}));
  EXPECT_EQ(
      Run({W("rank", {}, Int64()), W("dense_rank", {}, Int64()), W("percent_rank", {}, Float64()),
           W("cume_dist", {}, Float64()), W("ntile", {Lit(3)}, Int32())}),
      (V{"1|1|0|0.25|1", "2|2|0.3333333333333333|0.75|1", "2|2|0.3333333333333333|0.75|2",
         "4|3|1|1|3", "1|1|0|0.5|1", "2|2|1|1|2"}));
}

TEST_F(WindowTest, OffsetAndValueFunctions) {
  EXPECT_EQ(Run({W("lag", {Col(schema_, 2)}, Int64()),
                 W("lead", {Col(schema_, 2), Lit(2), Lit(-1)}, Int64()),
                 W("first_value", {Col(schema_, 2)}, Int64()),
                 W("last_value", {Col(schema_, 2)}, Int64()),
                 W("nth_value", {Col(schema_, 2), Lit(2)}, Int64())}),
            (V{"NULL|30|10|10|NULL", "10|40|10|30|20", "20|-1|10|30|20", "30|-1|10|40|20",
               "NULL|-1|5|5|NULL", "5|-1|5|NULL|NULL"}));
  WindowFrame whole{
      WindowFrame::Mode::kRows, {K::kUnboundedPreceding, 0}, {K::kUnboundedFollowing, 0}};
  EXPECT_EQ(Run({W("last_value", {Col(schema_, 2)}, Int64(), whole)}),
            (V{"40", "40", "40", "40", "NULL", "NULL"}));
}

TEST_F(WindowTest, AggregatesOverFrames) {
  WindowFrame sliding{WindowFrame::Mode::kRows, {K::kPreceding, 1}, {K::kFollowing, 1}};
  WindowFrame running_rows{
      WindowFrame::Mode::kRows, {K::kUnboundedPreceding, 0}, {K::kCurrentRow, 0}};
  WindowFrame groups{WindowFrame::Mode::kGroups, {K::kPreceding, 1}, {K::kCurrentRow, 0}};
  WindowFrame ahead{WindowFrame::Mode::kRows, {K::kFollowing, 1}, {K::kFollowing, 2}};
  EXPECT_EQ(Run({W("sum", {Col(schema_, 2)}, nullptr, {}, true),
                 W("sum", {Col(schema_, 2)}, nullptr, sliding, true),
                 W("count", {Col(schema_, 2)}, nullptr, running_rows, true),
                 W("max", {Col(schema_, 2)}, nullptr, groups, true),
                 W("count_star", {}, nullptr, ahead, true)}),
            (V{"10|30|1|10|2", "60|60|2|30|2", "60|90|3|30|1", "100|70|4|40|0", "5|5|1|5|1",
               "5|5|1|5|0"}));
  WindowFrame range{WindowFrame::Mode::kRange, {K::kPreceding, 1}, {K::kFollowing, 1}};
  EXPECT_EQ(Run({W("sum", {Col(schema_, 2)}, nullptr, range, true)}),
            (V{"60", "60", "60", "40", "5", "NULL"}));
  // Without ORDER BY every row is a peer: the frame is the whole partition.
  EXPECT_EQ(Run({W("sum", {Col(schema_, 2)}, nullptr, {}, true, false),
                 W("min", {Col(schema_, 2)}, nullptr, {}, true, false)}),
            (V{"100|10", "100|10", "100|10", "100|10", "5|5", "5|5"}));
}

TEST_F(WindowTest, RequiresPartitionThenOrder) {
  ASSERT_OK_AND_ASSIGN(auto plan, WindowExec::Make({W("row_number", {}, Int64())}, Input()));
  auto ordering = plan->RequiredInputOrdering()[0];
  EXPECT_EQ(OrderingToString(ordering), "p, o");
  EXPECT_EQ(plan->RequiredInputDistribution()[0].kind(), Distribution::Kind::kHash);
  EXPECT_EQ(plan->schema()->num_fields(), 4);
}

}  // namespace
}  // namespace floe::exec
