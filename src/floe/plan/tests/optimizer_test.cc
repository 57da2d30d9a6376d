#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/plan/logical_plan.h"
#include "floe/plan/optimizer.h"
#include "floe/plan/optimizer_internal.h"
#include "floe/testing/matchers.h"

namespace floe::plan {
namespace {

using expr::ExprPtr;
using ::floe::testing::IsError;

// A table with a fixed schema, optional statistics and a fixed answer to SupportsFilter.
class TestSource final : public TableSource {
 public:
  TestSource(std::string name, std::vector<Field> fields, std::optional<int64_t> rows,
             FilterPushdown pushdown, std::vector<ColumnStatistics> columns = {})
      : name_(std::move(name)),
        schema_(std::make_shared<Schema>(std::move(fields))),
        rows_(rows),
        pushdown_(pushdown),
        columns_(std::move(columns)) {}

  std::string_view kind() const override { return "test"; }
  std::string display_name() const override { return name_; }
  const SchemaPtr& schema() const override { return schema_; }
  Statistics statistics() const override {
    Statistics s;
    s.row_count = rows_;
    s.exact = rows_.has_value();
    if (rows_) s.total_bytes = *rows_ * 8 * schema_->num_fields();
    s.columns = columns_;
    return s;
  }
  FilterPushdown SupportsFilter(const expr::Expr&) const override { return pushdown_; }
  // With exact filters, half the rows per filter (a stand-in for counting from metadata).
  std::optional<int64_t> CountRowsExactly(const std::vector<ExprPtr>& filters) const override {
    if (!rows_ || pushdown_ != FilterPushdown::kExact) return std::nullopt;
    return *rows_ >> filters.size();
  }

 private:
  std::string name_;
  SchemaPtr schema_;
  std::optional<int64_t> rows_;
  FilterPushdown pushdown_;
  std::vector<ColumnStatistics> columns_;
};

using Pushdown = TableSource::FilterPushdown;

// A scan of all columns of a table of int64 columns named `columns`.
// Column statistics of an integer column with values in [lo, hi].
ColumnStatistics IntRange(int64_t lo, int64_t hi) {
  ColumnStatistics c;
  c.min = Scalar::I64(lo);
  c.max = Scalar::I64(hi);
  return c;
}

LogicalPlanPtr Table(const std::string& name, const std::vector<std::string>& columns,
                     std::optional<int64_t> rows = std::nullopt,
                     Pushdown pushdown = Pushdown::kUnsupported,
                     std::vector<ColumnStatistics> stats = {}) {
  std::vector<Field> fields;
  std::vector<int> projection;
  for (size_t i = 0; i < columns.size(); ++i) {
    fields.emplace_back(columns[i], Int64());
    projection.push_back(static_cast<int>(i));
  }
  auto source =
      std::make_shared<TestSource>(name, std::move(fields), rows, pushdown, std::move(stats));
  return MakeScan(std::move(source), std::move(projection));
}

// Column i of a plan's output.
ExprPtr Col(const LogicalPlanPtr& plan, int i) {
  const Field& f = plan->schema->field(i);
  return expr::Column(i, f.name(), f.type(), f.nullable());
}
ExprPtr I64(int64_t v) { return expr::Literal(Scalar::I64(v)); }
ExprPtr Bool(bool v) { return expr::Literal(Scalar::Bool(v)); }
ExprPtr Eq(ExprPtr a, ExprPtr b) { return expr::Compare("eq", std::move(a), std::move(b)); }
ExprPtr Gt(ExprPtr a, ExprPtr b) { return expr::Compare("gt", std::move(a), std::move(b)); }
ExprPtr Lt(ExprPtr a, ExprPtr b) { return expr::Compare("lt", std::move(a), std::move(b)); }
ExprPtr Ge(ExprPtr a, ExprPtr b) { return expr::Compare("ge", std::move(a), std::move(b)); }
ExprPtr Add(ExprPtr a, ExprPtr b) {
  return expr::Call("add", {std::move(a), std::move(b)}, Int64(), false);
}
ExprPtr Div(ExprPtr a, ExprPtr b) {
  return expr::Call("divide", {std::move(a), std::move(b)}, Int64(), true);
}

LogicalPlanPtr Project(const LogicalPlanPtr& input, const std::vector<int>& columns) {
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (int c : columns) {
    exprs.push_back(Col(input, c));
    names.push_back(input->schema->field(c).name());
  }
  return MakeProjection(input, std::move(exprs), std::move(names));
}

AggregateCall CountStar() {
  AggregateCall call;
  call.function = expr::ResolveAggregate("count", {}, false).ValueOrDie();
  return call;
}

AggregateCall Sum(ExprPtr arg) {
  AggregateCall call;
  call.function = expr::ResolveAggregate("sum", {arg->type}, false).ValueOrDie();
  call.args = {std::move(arg)};
  return call;
}

std::string Show(const Result<LogicalPlanPtr>& plan) {
  if (!plan.ok()) return plan.status().ToString();
  return (*plan)->ToString();
}

// ---------------------------------------------------------------------------------------
// Simplification

TEST(SimplifyTest, FoldsConstantsAndDropsTrueConjuncts) {
  auto t = Table("t", {"a", "b"});
  auto plan = MakeFilter(t, expr::And({Eq(Add(I64(1), I64(1)), I64(2)), Bool(true),
                                       Gt(Col(t, 0), Add(I64(2), I64(3)))}));
  ASSERT_OK_AND_ASSIGN(auto out, internal::SimplifyPlan(plan));
  // eq(2, 2) folds when the comparison kernel is registered; either way the addition folds.
  const std::string text = out->ToString();
  EXPECT_TRUE(text == "Filter: (#0:a > 5)\n  Scan: t projection=[a, b]\n" ||
              text == "Filter: ((2 = 2) AND (#0:a > 5))\n  Scan: t projection=[a, b]\n")
      << text;
}

TEST(SimplifyTest, AlwaysTrueFilterDisappears) {
  auto t = Table("t", {"a"});
  auto plan = MakeFilter(t, expr::Or({Gt(Col(t, 0), I64(1)), Bool(true)}));
  EXPECT_EQ(Show(internal::SimplifyPlan(plan)), "Scan: t projection=[a]\n");
}

TEST(SimplifyTest, NeverTrueFilterEmptiesWhatItFeeds) {
  auto t = Table("t", {"a", "b"});
  auto filter = MakeFilter(t, expr::And({Gt(Col(t, 0), I64(1)), Bool(false)}));
  auto plan = MakeSort(Project(filter, {1}), {SortKey{Col(t, 0), true, false}});
  EXPECT_EQ(Show(internal::SimplifyPlan(plan)), "Values:\n");
  // Comparisons with NULL are NULL: no row passes.
  auto null_cmp = MakeFilter(t, Gt(Col(t, 0), expr::Literal(Scalar::Null(Int64()))));
  EXPECT_EQ(Show(internal::SimplifyPlan(null_cmp)), "Values:\n");
  // An aggregate without GROUP BY still returns its one row.
  auto agg = MakeAggregate(filter, {}, {}, {CountStar()}, {"count"});
  EXPECT_EQ(Show(internal::SimplifyPlan(agg)),
            "Aggregate: groups=[] aggregates=[count_star() AS count]\n  Values:\n");
}

TEST(SimplifyTest, NotNotAndConstantSortKeys) {
  auto t = Table("t", {"a"});
  auto plan = MakeSort(MakeFilter(t, expr::Not(expr::Not(Gt(Col(t, 0), I64(0))))),
                       {SortKey{I64(1), true, false}, SortKey{Col(t, 0), false, true}});
  EXPECT_EQ(Show(internal::SimplifyPlan(plan)),
            "Sort: #0:a DESC NULLS FIRST\n"
            "  Filter: (#0:a > 0)\n"
            "    Scan: t projection=[a]\n");
}

TEST(SimplifyTest, ConstantErrorIsAQueryErrorButNotInsideAnUntakenCaseBranch) {
  auto t = Table("t", {"a"});
  auto bad = MakeProjection(t, {Div(I64(1), I64(0))}, {"x"});
  EXPECT_THAT(internal::SimplifyPlan(bad), IsError(StatusCode::kInvalidArgument));
  auto guarded = expr::Case({Gt(Col(t, 0), I64(0)), Div(I64(1), I64(0))}, I64(7), Int64());
  auto ok = MakeProjection(t, {guarded}, {"x"});
  EXPECT_EQ(Show(internal::SimplifyPlan(ok)),
            "Projection: CASE WHEN (#0:a > 0) THEN (1 / 0) ELSE 7 END AS x\n"
            "  Scan: t projection=[a]\n");
  // A constant true condition selects its branch; false ones disappear.
  auto folded = expr::Case({Bool(false), I64(1), Bool(true), Add(I64(2), I64(2))}, I64(9), Int64());
  ASSERT_OK_AND_ASSIGN(auto e, internal::SimplifyExpr(folded));
  EXPECT_EQ(e->ToString(), "4");
}

// ---------------------------------------------------------------------------------------
// Predicate pushdown

TEST(PredicatePushdownTest, ThroughProjectionIntoScanByPushdownKind) {
  for (Pushdown kind : {Pushdown::kUnsupported, Pushdown::kInexact, Pushdown::kExact}) {
    auto t = Table("t", {"a", "b", "c"}, std::nullopt, kind);
    // SELECT c + 1 AS x, a FROM t, then WHERE x > 10
    auto proj = MakeProjection(t, {Add(Col(t, 2), I64(1)), Col(t, 0)}, {"x", "a"});
    auto plan = MakeFilter(proj, Gt(Col(proj, 0), I64(10)));
    ASSERT_OK_AND_ASSIGN(auto out, internal::PushDownPredicates(plan));
    switch (kind) {
      case Pushdown::kUnsupported:
        EXPECT_EQ(out->ToString(),
                  "Projection: (#2:c + 1) AS x, #0:a\n"
                  "  Filter: ((#2:c + 1) > 10)\n"
                  "    Scan: t projection=[a, b, c]\n");
        break;
      case Pushdown::kInexact:
        EXPECT_EQ(out->ToString(),
                  "Projection: (#2:c + 1) AS x, #0:a\n"
                  "  Filter: ((#2:c + 1) > 10)\n"
                  "    Scan: t projection=[a, b, c] filters=[((#2:c + 1) > 10)]\n");
        break;
      case Pushdown::kExact:
        EXPECT_EQ(out->ToString(),
                  "Projection: (#2:c + 1) AS x, #0:a\n"
                  "  Scan: t projection=[a, b, c] filters=[((#2:c + 1) > 10)]\n");
        break;
    }
  }
}

TEST(PredicatePushdownTest, ScanFiltersAreOverTheSourceSchema) {
  auto base = Table("t", {"a", "b", "c"}, std::nullopt, Pushdown::kExact);
  auto scan = MakeScan(base->source, {2, 0});
  auto plan = MakeFilter(scan, Eq(Col(scan, 0), I64(3)));
  EXPECT_EQ(Show(internal::PushDownPredicates(plan)),
            "Scan: t projection=[c, a] filters=[(#2:c = 3)]\n");
}

TEST(PredicatePushdownTest, CommaJoinBecomesEquiJoin) {
  auto a = Table("a", {"a1", "a2"});
  auto b = Table("b", {"b1", "b2"});
  auto c = Table("c", {"c1"});
  auto ab = MakeJoin(a, b, JoinType::kInner, {}, {}, nullptr);
  auto abc = MakeJoin(ab, c, JoinType::kInner, {}, {}, nullptr);
  // WHERE a1 = b1 AND b2 = c1 AND a2 > 5 AND b2 < 3 AND a2 + b2 > c1
  auto where = expr::And({Eq(Col(abc, 0), Col(abc, 2)), Eq(Col(abc, 3), Col(abc, 4)),
                          Gt(Col(abc, 1), I64(5)), Lt(Col(abc, 3), I64(3)),
                          Gt(Add(Col(abc, 1), Col(abc, 3)), Col(abc, 4))});
  auto plan = MakeFilter(abc, where);
  EXPECT_EQ(Show(internal::PushDownPredicates(plan)),
            "Join(inner): keys=[#3:b2 = #0:c1] filter=((#1:a2 + #3:b2) > #4:c1)\n"
            "  Join(inner): keys=[#0:a1 = #0:b1]\n"
            "    Filter: (#1:a2 > 5)\n"
            "      Scan: a projection=[a1, a2]\n"
            "    Filter: (#1:b2 < 3)\n"
            "      Scan: b projection=[b1, b2]\n"
            "  Scan: c projection=[c1]\n");
}

ExprPtr Le(ExprPtr a, ExprPtr b) { return expr::Compare("le", std::move(a), std::move(b)); }
ExprPtr In(ExprPtr x, std::vector<int64_t> values) {
  std::vector<ExprPtr> args{std::move(x)};
  for (int64_t v : values) args.push_back(I64(v));
  return expr::Call("in_list", std::move(args), Boolean(), true);
}

// TPC-H Q19's shape: every branch of an OR holds the join equality, so it is factored out
// into a join key; each side gets the OR of its branches' own conjuncts, and the scans the
// column ranges and IN lists those imply (a cross join here once ran for minutes).
TEST(PredicatePushdownTest, OrBranchesShareTheJoinKeyAndImplyFiltersOnEachSide) {
  auto l = Table("l", {"partkey", "qty", "mode"}, std::nullopt, Pushdown::kInexact);
  auto p = Table("p", {"partkey", "brand", "size"}, std::nullopt, Pushdown::kInexact);
  auto lp = MakeJoin(l, p, JoinType::kInner, {}, {}, nullptr);
  auto branch = [&](int64_t brand, int64_t qty_lo, int64_t size_hi) {
    return expr::And({Eq(Col(lp, 3), Col(lp, 0)), Eq(Col(lp, 4), I64(brand)),
                      Ge(Col(lp, 1), I64(qty_lo)), Le(Col(lp, 1), I64(qty_lo + 10)),
                      Le(Col(lp, 5), I64(size_hi)), In(Col(lp, 2), {1, 2})});
  };
  auto plan = MakeFilter(lp, expr::Or({branch(12, 1, 5), branch(23, 10, 10), branch(34, 20, 15)}));
  EXPECT_EQ(Show(internal::PushDownPredicates(plan)),
            "Join(inner): keys=[#0:partkey = #0:partkey] filter=(((#4:brand = 12) AND "
            "(#1:qty >= 1) AND (#1:qty <= 11) AND (#5:size <= 5)) OR ((#4:brand = 23) AND "
            "(#1:qty >= 10) AND (#1:qty <= 20) AND (#5:size <= 10)) OR ((#4:brand = 34) AND "
            "(#1:qty >= 20) AND (#1:qty <= 30) AND (#5:size <= 15)))\n"
            "  Filter: (in_list(#2:mode, 1, 2) AND (((#1:qty >= 1) AND (#1:qty <= 11)) OR "
            "((#1:qty >= 10) AND (#1:qty <= 20)) OR ((#1:qty >= 20) AND (#1:qty <= 30))))\n"
            "    Scan: l projection=[partkey, qty, mode] filters=[(#1:qty >= 1), "
            "(#1:qty <= 30), in_list(#2:mode, 1, 2), (((#1:qty >= 1) AND (#1:qty <= 11)) OR "
            "((#1:qty >= 10) AND (#1:qty <= 20)) OR ((#1:qty >= 20) AND (#1:qty <= 30)))]\n"
            "  Filter: (((#1:brand = 12) AND (#2:size <= 5)) OR ((#1:brand = 23) AND "
            "(#2:size <= 10)) OR ((#1:brand = 34) AND (#2:size <= 15)))\n"
            "    Scan: p projection=[partkey, brand, size] filters=[in_list(#1:brand, 12, 23, "
            "34), (#2:size <= 15), (((#1:brand = 12) AND (#2:size <= 5)) OR ((#1:brand = 23) "
            "AND (#2:size <= 10)) OR ((#1:brand = 34) AND (#2:size <= 15)))]\n");
}

// Factoring keeps three-valued logic: a branch left with nothing makes the OR true; what is
// not common to every branch stays inside it; volatile conjuncts are never factored.
TEST(PredicatePushdownTest, FactoringOrBranches) {
  auto t = Table("t", {"a", "b", "c"});
  auto a = Gt(Col(t, 0), I64(1));
  auto b = Gt(Col(t, 1), I64(2));
  auto c = Gt(Col(t, 2), I64(3));
  auto show = [](const std::vector<ExprPtr>& conjuncts) {
    std::string out;
    for (const ExprPtr& e : conjuncts) out += e->ToString() + "; ";
    return out;
  };
  EXPECT_EQ(show(internal::FactorDisjunction(expr::Or({expr::And({a, b}), expr::And({b, a, c})}))),
            "(#0:a > 1); (#1:b > 2); ");
  EXPECT_EQ(show(internal::FactorDisjunction(expr::Or({expr::And({a, b}), expr::And({a, c})}))),
            "(#0:a > 1); ((#1:b > 2) OR (#2:c > 3)); ");
  EXPECT_EQ(show(internal::FactorDisjunction(expr::Or({expr::And({a, b}), c}))),
            "(((#0:a > 1) AND (#1:b > 2)) OR (#2:c > 3)); ");
  auto random = expr::Call("random", {}, Float64(), false);
  auto volatile_term = Lt(random, expr::Literal(Scalar::F64(0.5)));
  EXPECT_EQ(internal::FactorDisjunction(
                expr::Or({expr::And({volatile_term, a}), expr::And({volatile_term, b})}))
                .size(),
            1u);
  // Column restrictions: IN lists merge, ranges widen, a column one branch leaves free
  // gets nothing, and a set beside a range becomes a range.
  EXPECT_EQ(
      show(internal::ImpliedColumnRanges(expr::Or(
          {expr::And({Eq(Col(t, 0), I64(5)), Ge(Col(t, 1), I64(1)), Gt(Col(t, 2), I64(0))}),
           expr::And({In(Col(t, 0), {7, 5}), Gt(Col(t, 1), I64(-3)), Le(Col(t, 1), I64(4))})}))),
      "in_list(#0:a, 5, 7); (#1:b > -3); ");
  EXPECT_EQ(
      show(internal::ImpliedColumnRanges(expr::Or(
          {Eq(Col(t, 0), I64(5)), expr::And({Gt(Col(t, 0), I64(8)), Lt(Col(t, 0), I64(10))})}))),
      "(#0:a >= 5); (#0:a < 10); ");
}

TEST(PredicatePushdownTest, OuterJoinKeepsNullSupplyingSideFiltersAbove) {
  auto a = Table("a", {"a1", "a2"});
  auto b = Table("b", {"b1", "b2"});
  // a LEFT JOIN b ON a1 = b1 AND b2 > 1 AND a2 > 2, then WHERE a2 < 9 AND b2 IS NULL
  auto on = expr::And({Eq(Col(a, 0), expr::Column(2, "b1", Int64())),
                       Gt(expr::Column(3, "b2", Int64()), I64(1)), Gt(Col(a, 1), I64(2))});
  auto join = MakeJoin(a, b, JoinType::kLeft, {}, {}, on);
  auto plan = MakeFilter(join, expr::And({Lt(Col(join, 1), I64(9)), expr::IsNull(Col(join, 3))}));
  EXPECT_EQ(Show(internal::PushDownPredicates(plan)),
            "Filter: is_null(#3:b2)\n"
            "  Join(left): keys=[#0:a1 = #0:b1] filter=(#1:a2 > 2)\n"
            "    Filter: (#1:a2 < 9)\n"
            "      Scan: a projection=[a1, a2]\n"
            "    Filter: (#1:b2 > 1)\n"
            "      Scan: b projection=[b1, b2]\n");
  // WHERE b2 + 1 < 7 rejects the padded rows: the join is an inner join.
  auto inner = MakeFilter(join, Lt(Add(Col(join, 3), I64(1)), I64(7)));
  EXPECT_EQ(Show(internal::PushDownPredicates(inner)),
            "Join(inner): keys=[#0:a1 = #0:b1]\n"
            "  Filter: (#1:a2 > 2)\n"
            "    Scan: a projection=[a1, a2]\n"
            "  Filter: ((#1:b2 > 1) AND ((#1:b2 + 1) < 7))\n"
            "    Scan: b projection=[b1, b2]\n");
  // So does a right join under a filter on its left side.
  auto right = MakeJoin(a, b, JoinType::kRight, {Col(a, 0)}, {Col(b, 0)}, nullptr);
  auto right_plan = MakeFilter(right, Eq(Col(right, 1), I64(5)));
  EXPECT_EQ(Show(internal::PushDownPredicates(right_plan)),
            "Join(inner): keys=[#0:a1 = #0:b1]\n"
            "  Filter: (#1:a2 = 5)\n"
            "    Scan: a projection=[a1, a2]\n"
            "  Scan: b projection=[b1, b2]\n");
}

TEST(PredicatePushdownTest, SemiAntiAndFullJoins) {
  auto a = Table("a", {"a1"});
  auto b = Table("b", {"b1"});
  auto on = expr::And({Eq(Col(a, 0), expr::Column(1, "b1", Int64())), Gt(Col(a, 0), I64(4))});
  auto semi = MakeJoin(a, b, JoinType::kSemi, {}, {}, on);
  EXPECT_EQ(Show(internal::PushDownPredicates(MakeFilter(semi, Lt(Col(semi, 0), I64(9))))),
            "Join(semi): keys=[#0:a1 = #0:b1]\n"
            "  Filter: ((#0:a1 < 9) AND (#0:a1 > 4))\n"
            "    Scan: a projection=[a1]\n"
            "  Scan: b projection=[b1]\n");
  // An anti join keeps its left-only ON conjunct: failing it means "no match", so kept.
  auto anti = MakeJoin(a, b, JoinType::kAnti, {}, {}, on);
  EXPECT_EQ(Show(internal::PushDownPredicates(anti)),
            "Join(anti): keys=[#0:a1 = #0:b1] filter=(#0:a1 > 4)\n"
            "  Scan: a projection=[a1]\n"
            "  Scan: b projection=[b1]\n");
  auto full = MakeJoin(a, b, JoinType::kFull, {}, {}, on);
  EXPECT_EQ(Show(internal::PushDownPredicates(MakeFilter(full, Lt(Col(full, 0), I64(9))))),
            "Filter: (#0:a1 < 9)\n"
            "  Join(full): keys=[#0:a1 = #0:b1] filter=(#0:a1 > 4)\n"
            "    Scan: a projection=[a1]\n"
            "    Scan: b projection=[b1]\n");
}

TEST(PredicatePushdownTest, AggregateWindowLimitUnionAndVolatile) {
  auto t = Table("t", {"g", "v"});
  auto agg = MakeAggregate(t, {Col(t, 0)}, {"g"}, {Sum(Col(t, 1))}, {"s"});
  auto having = MakeFilter(agg, expr::And({Gt(Col(agg, 0), I64(1)), Gt(Col(agg, 1), I64(100))}));
  EXPECT_EQ(Show(internal::PushDownPredicates(having)),
            "Filter: (#1:s > 100)\n"
            "  Aggregate: groups=[#0:g] aggregates=[sum(#1:v) AS s]\n"
            "    Filter: (#0:g > 1)\n"
            "      Scan: t projection=[g, v]\n");

  WindowCall w;
  w.function = "row_number";
  w.partition_by = {Col(t, 0)};
  w.type = Int64();
  auto window = MakeWindow(t, {w}, {"rn"});
  auto wfilter =
      MakeFilter(window, expr::And({Eq(Col(window, 0), I64(3)), Eq(Col(window, 1), I64(4)),
                                    Lt(Col(window, 2), I64(2))}));
  EXPECT_EQ(Show(internal::PushDownPredicates(wfilter)),
            "Filter: ((#1:v = 4) AND (#2:rn < 2))\n"
            "  Window: row_number() OVER (PARTITION BY #0:g RANGE BETWEEN UNBOUNDED PRECEDING "
            "AND CURRENT ROW) AS rn\n"
            "    Filter: (#0:g = 3)\n"
            "      Scan: t projection=[g, v]\n");

  auto limited = MakeFilter(MakeLimit(t, 0, 5), Gt(Col(t, 0), I64(1)));
  EXPECT_EQ(Show(internal::PushDownPredicates(limited)),
            "Filter: (#0:g > 1)\n"
            "  Limit: offset=0 fetch=5\n"
            "    Scan: t projection=[g, v]\n");

  auto u = MakeUnion({t, Table("u", {"x", "y"})}, true);
  EXPECT_EQ(Show(internal::PushDownPredicates(MakeFilter(u, Gt(Col(u, 1), I64(0))))),
            "Union: all\n"
            "  Filter: (#1:v > 0)\n"
            "    Scan: t projection=[g, v]\n"
            "  Filter: (#1:v > 0)\n"
            "    Scan: u projection=[x, y]\n");

  auto random = expr::Call("random", {}, Float64(), false);
  auto vol = expr::Compare("lt", random, expr::Literal(Scalar::F64(0.5)));
  auto proj = Project(t, {0});
  auto volatile_plan = MakeFilter(proj, expr::And({vol, Gt(Col(proj, 0), I64(2))}));
  EXPECT_EQ(Show(internal::PushDownPredicates(volatile_plan)),
            "Filter: (random() < 0.5)\n"
            "  Projection: #0:g\n"
            "    Filter: (#0:g > 2)\n"
            "      Scan: t projection=[g, v]\n");
}

// ---------------------------------------------------------------------------------------
// Common sub-expressions

ExprPtr Mul(ExprPtr a, ExprPtr b) {
  return expr::Call("multiply", {std::move(a), std::move(b)}, Int64(), false);
}

TEST(CommonSubexpressionTest, RepeatedAggregateInputsAreComputedOnceBelowTheAggregate) {
  // sum(a * (1 - b)), sum(a * (1 - b) * (1 + c)), grouped by g: a * (1 - b) is computed once;
  // 1 - b occurs only inside it and 1 + c once, so neither gets a column of its own.
  auto t = Table("t", {"g", "a", "b", "c"});
  auto disc = Mul(Col(t, 1), expr::Call("subtract", {I64(1), Col(t, 2)}, Int64(), false));
  auto charge = Mul(disc, Add(I64(1), Col(t, 3)));
  auto agg = MakeAggregate(t, {Col(t, 0)}, {"g"}, {Sum(disc), Sum(charge), Sum(Col(t, 1))},
                           {"d", "ch", "s"});
  ASSERT_OK_AND_ASSIGN(LogicalPlanPtr got, internal::HoistCommonSubexpressions(agg));
  EXPECT_EQ(got->ToString(),
            "Aggregate: groups=[#0:g] aggregates=[sum(#4:__common_expr_0) AS d, "
            "sum((#4:__common_expr_0 * (1 + #3:c))) AS ch, sum(#1:a) AS s]\n"
            "  Projection: #0:g, #1:a, #2:b, #3:c, (#1:a * (1 - #2:b)) AS __common_expr_0\n"
            "    Scan: t projection=[g, a, b, c]\n");
  EXPECT_TRUE(got->schema->Equals(*agg->schema));
  // The whole optimizer keeps it.
  ASSERT_OK_AND_ASSIGN(LogicalPlanPtr optimized, Optimize(agg));
  EXPECT_EQ(optimized->ToString(), got->ToString());
}

TEST(CommonSubexpressionTest, ConditionalVolatileAndSingleOccurrencesStay) {
  auto t = Table("t", {"g", "a", "b"});
  auto ratio = Div(Col(t, 1), Col(t, 2));
  // a / b once eagerly and once in a CASE branch: the branch may be what keeps b = 0 from
  // being divided by, so nothing moves.
  auto guarded = expr::Case({Gt(Col(t, 2), I64(0)), ratio}, nullptr, Int64());
  auto agg = MakeAggregate(t, {Col(t, 0)}, {"g"}, {Sum(ratio), Sum(guarded)}, {"r", "q"});
  ASSERT_OK_AND_ASSIGN(LogicalPlanPtr got, internal::HoistCommonSubexpressions(agg));
  EXPECT_EQ(got, agg);
  // Two COALESCE arguments after the first: the same.
  auto c1 = expr::Call("coalesce", {Col(t, 1), ratio}, Int64(), true);
  auto c2 = expr::Call("coalesce", {Col(t, 2), ratio}, Int64(), true);
  auto agg2 = MakeAggregate(t, {}, {}, {Sum(c1), Sum(c2)}, {"x", "y"});
  ASSERT_OK_AND_ASSIGN(got, internal::HoistCommonSubexpressions(agg2));
  EXPECT_EQ(got, agg2);
  // random() twice is two values.
  auto random = expr::Call("random", {}, Float64(), false);
  AggregateCall r1;
  r1.function = expr::ResolveAggregate("sum", {Float64()}, false).ValueOrDie();
  r1.args = {random};
  auto agg3 = MakeAggregate(t, {}, {}, {r1, r1}, {"x", "y"});
  ASSERT_OK_AND_ASSIGN(got, internal::HoistCommonSubexpressions(agg3));
  EXPECT_EQ(got, agg3);
  // A key that is also an argument: computed once, the key reads the column too.
  auto key = Add(Col(t, 1), I64(7));
  auto agg4 = MakeAggregate(t, {key}, {"k"}, {Sum(key)}, {"s"});
  ASSERT_OK_AND_ASSIGN(got, internal::HoistCommonSubexpressions(agg4));
  EXPECT_EQ(
      got->ToString(),
      "Aggregate: groups=[#3:__common_expr_0 AS k] aggregates=[sum(#3:__common_expr_0) AS s]\n"
      "  Projection: #0:g, #1:a, #2:b, (#1:a + 7) AS __common_expr_0\n"
      "    Scan: t projection=[g, a, b]\n");
}

// ---------------------------------------------------------------------------------------
// Projection pushdown

TEST(ProjectionPushdownTest, ScansReadOnlyUsedColumns) {
  auto t = Table("t", {"a", "b", "c", "d"});
  auto filter = MakeFilter(t, Gt(Col(t, 1), I64(1)));
  auto plan = MakeProjection(filter, {Add(Col(filter, 3), Col(filter, 0))}, {"x"});
  EXPECT_EQ(Show(internal::PushDownProjections(plan)),
            "Projection: (#2:d + #0:a) AS x\n"
            "  Filter: (#1:b > 1)\n"
            "    Scan: t projection=[a, b, d]\n");
  // count(*) reads one column.
  auto count = MakeAggregate(t, {}, {}, {CountStar()}, {"count"});
  EXPECT_EQ(Show(internal::PushDownProjections(count)),
            "Aggregate: groups=[] aggregates=[count_star() AS count]\n"
            "  Scan: t projection=[a]\n");
}

TEST(MetadataAnswersTest, CountOverExactFiltersComesFromTheSource) {
  auto exact = Table("t", {"a", "b"}, 100, Pushdown::kExact);
  auto count =
      MakeAggregate(MakeFilter(exact, Gt(Col(exact, 0), I64(1))), {}, {}, {CountStar()}, {"count"});
  EXPECT_EQ(Show(Optimize(count).ValueOrDie()), "Values: (50)\n");
  // An inexact filter stays above the scan: the rows must be counted.
  auto inexact = Table("u", {"a", "b"}, 100, Pushdown::kInexact);
  auto counted = MakeAggregate(MakeFilter(inexact, Gt(Col(inexact, 0), I64(1))), {}, {},
                               {CountStar()}, {"count"});
  EXPECT_EQ(Show(Optimize(counted).ValueOrDie()),
            "Aggregate: groups=[] aggregates=[count_star() AS count]\n"
            "  Filter: (#0:a > 1)\n"
            "    Scan: u projection=[a] filters=[(#0:a > 1)]\n");
}

TEST(ProjectionPushdownTest, JoinInputsAreTrimmedAndOutputKept) {
  auto a = Table("a", {"a1", "a2", "a3"});
  auto b = Table("b", {"b1", "b2"});
  auto fa = MakeFilter(a, Gt(Col(a, 2), I64(0)));
  auto join = MakeJoin(fa, b, JoinType::kInner, {Col(a, 0)}, {Col(b, 0)}, nullptr);
  auto plan = MakeProjection(join, {Col(join, 1), Col(join, 4)}, {"a2", "b2"});
  EXPECT_EQ(Show(internal::PushDownProjections(plan)),
            "Projection: #1:a2, #3:b2\n"
            "  Join(inner): keys=[#0:a1 = #0:b1]\n"
            "    Projection: #0:a1, #1:a2\n"
            "      Filter: (#2:a3 > 0)\n"
            "        Scan: a projection=[a1, a2, a3]\n"
            "    Scan: b projection=[b1, b2]\n");
  // The root keeps its schema: nothing to prune.
  EXPECT_EQ(Show(internal::PushDownProjections(join)), join->ToString());
}

TEST(ProjectionPushdownTest, UnusedProjectionExpressionsAndUnionColumns) {
  auto t = Table("t", {"a", "b", "c"});
  auto inner = MakeProjection(t, {Col(t, 0), Add(Col(t, 1), I64(1)), Col(t, 2)}, {"a", "b1", "c"});
  auto u = MakeUnion({inner, Table("u", {"x", "y", "z"})}, true);
  auto plan = MakeProjection(u, {Col(u, 2)}, {"c"});
  EXPECT_EQ(Show(internal::PushDownProjections(plan)),
            "Projection: #0:c\n"
            "  Union: all\n"
            "    Projection: #0:c\n"
            "      Scan: t projection=[c]\n"
            "    Scan: u projection=[z]\n");
}

TEST(ProjectionPushdownTest, ColumnSelectingProjectionsMerge) {
  auto t = Table("t", {"a", "b"});
  auto inner = Project(t, {1, 0});
  auto plan = MakeProjection(inner, {Col(inner, 0)}, {"x"});
  EXPECT_EQ(Show(internal::PushDownProjections(plan)),
            "Projection: #0:b AS x\n"
            "  Scan: t projection=[b]\n");
}

TEST(ProjectionPushdownTest, ZeroColumnInputsStayZeroColumns) {
  // SELECT (SELECT b FROM t): one empty row left-joined with the subquery.
  auto one_row = MakeValues(std::make_shared<Schema>(), {{}});
  auto t = Table("t", {"a", "b"});
  auto join = MakeJoin(one_row, t, JoinType::kLeft, {}, {}, nullptr);
  auto plan = MakeProjection(join, {Col(join, 1)}, {"b"});
  EXPECT_EQ(Show(internal::PushDownProjections(plan)),
            "Projection: #0:b\n"
            "  Join(left): cross\n"
            "    Values: ()\n"
            "    Scan: t projection=[b]\n");
}

// ---------------------------------------------------------------------------------------
// Limit pushdown

TEST(LimitPushdownTest, ThroughProjectionIntoScan) {
  auto t = Table("t", {"a", "b"});
  auto plan = MakeLimit(Project(t, {1}), 2, 10);
  EXPECT_EQ(Show(internal::PushDownLimits(plan)),
            "Projection: #1:b\n"
            "  Limit: offset=2 fetch=10\n"
            "    Scan: t projection=[a, b] limit=12\n");
}

TEST(LimitPushdownTest, SortFilteredScanAndMergedLimits) {
  auto t = Table("t", {"a"});
  auto sorted = MakeLimit(MakeSort(t, {SortKey{Col(t, 0), true, false}}), 0, 3);
  EXPECT_EQ(Show(internal::PushDownLimits(sorted)), sorted->ToString());
  auto filtered = MakeLimit(MakeScan(t->source, {0}, {Gt(Col(t, 0), I64(1))}), 0, 3);
  EXPECT_EQ(Show(internal::PushDownLimits(filtered)), filtered->ToString());
  auto twice = MakeLimit(MakeLimit(MakeFilter(t, Gt(Col(t, 0), I64(0))), 5, 10), 2, 20);
  EXPECT_EQ(Show(internal::PushDownLimits(twice)),
            "Limit: offset=7 fetch=8\n"
            "  Filter: (#0:a > 0)\n"
            "    Scan: t projection=[a]\n");
}

TEST(LimitPushdownTest, UnionAllAndLeftJoin) {
  auto a = Table("a", {"x"});
  auto b = Table("b", {"y"});
  auto plan = MakeLimit(MakeUnion({a, MakeFilter(b, Gt(Col(b, 0), I64(0)))}, true), 1, 4);
  EXPECT_EQ(Show(internal::PushDownLimits(plan)),
            "Limit: offset=1 fetch=4\n"
            "  Union: all\n"
            "    Limit: offset=0 fetch=5\n"
            "      Scan: a projection=[x] limit=5\n"
            "    Limit: offset=0 fetch=5\n"
            "      Filter: (#0:y > 0)\n"
            "        Scan: b projection=[y]\n");
  auto join = MakeJoin(a, b, JoinType::kLeft, {Col(a, 0)}, {Col(b, 0)}, nullptr);
  EXPECT_EQ(Show(internal::PushDownLimits(MakeLimit(join, 0, 7))),
            "Limit: offset=0 fetch=7\n"
            "  Join(left): keys=[#0:x = #0:y]\n"
            "    Limit: offset=0 fetch=7\n"
            "      Scan: a projection=[x] limit=7\n"
            "    Scan: b projection=[y]\n");
  // Distinct unions and inner joins are left alone.
  auto distinct = MakeLimit(MakeUnion({a, b}, false), 0, 4);
  EXPECT_EQ(Show(internal::PushDownLimits(distinct)), distinct->ToString());
}

// ---------------------------------------------------------------------------------------
// Join reordering and statistics

// TPC-H Q3's shape: the chain big - mid - small joins mid with small first (the smallest
// estimated join) and probes big against that, a bushy plan.
TEST(JoinReorderTest, SmallestJoinFirstEvenWhenBushy) {
  auto small = Table("small", {"s"}, 10);
  auto mid = Table("mid", {"m", "ms"}, 100);
  auto big = Table("big", {"b", "bm"}, 1000);
  // small JOIN mid ON s = ms JOIN big ON m = bm
  auto sm = MakeJoin(small, mid, JoinType::kInner, {Col(small, 0)}, {Col(mid, 1)}, nullptr);
  auto smb = MakeJoin(sm, big, JoinType::kInner, {Col(sm, 1)}, {Col(big, 1)}, nullptr);
  EXPECT_EQ(Show(internal::ReorderJoins(smb)),
            "Projection: #4:s, #2:m, #3:ms, #0:b, #1:bm\n"
            "  Join(inner): keys=[#1:bm = #0:m]\n"
            "    Scan: big projection=[b, bm]\n"
            "    Join(inner): keys=[#1:ms = #0:s]\n"
            "      Scan: mid projection=[m, ms]\n"
            "      Scan: small projection=[s]\n");
}

// TPC-H Q5's trap: a small relation joined on a low-cardinality column multiplies rows,
// so the selective foreign-key join must come first even though its relation is larger.
TEST(JoinReorderTest, FewestEstimatedRowsBeforeSmallestRelation) {
  auto fact = Table("fact", {"fk", "lc"}, 1000, Pushdown::kUnsupported,
                    {IntRange(1, 1000), IntRange(0, 4)});
  auto dim = Table("dim", {"k"}, 900, Pushdown::kUnsupported, {IntRange(1, 1000)});
  auto low = Table("low", {"l"}, 100, Pushdown::kUnsupported, {IntRange(0, 4)});
  // fact JOIN low ON lc = l JOIN dim ON fk = k, as written.
  auto fl = MakeJoin(fact, low, JoinType::kInner, {Col(fact, 1)}, {Col(low, 0)}, nullptr);
  auto fld = MakeJoin(fl, dim, JoinType::kInner, {Col(fl, 0)}, {Col(dim, 0)}, nullptr);
  EXPECT_EQ(Show(internal::ReorderJoins(fld)),
            "Projection: #0:fk, #1:lc, #3:l, #2:k\n"
            "  Join(inner): keys=[#1:lc = #0:l]\n"
            "    Join(inner): keys=[#0:fk = #0:k]\n"
            "      Scan: fact projection=[fk, lc]\n"
            "      Scan: dim projection=[k]\n"
            "    Scan: low projection=[l]\n");
}

TEST(JoinReorderTest, AvoidsCrossJoinsAndKeepsOrderWithoutEstimates) {
  // big is connected only to tiny; other is connected only to tiny too.
  auto tiny = Table("tiny", {"t"}, 5);
  auto other = Table("other", {"o"}, 50);
  auto big = Table("big", {"b"}, 1000);
  auto j1 = MakeJoin(tiny, other, JoinType::kInner, {Col(tiny, 0)}, {Col(other, 0)}, nullptr);
  auto j2 = MakeJoin(j1, big, JoinType::kInner, {Col(j1, 0)}, {Col(big, 0)}, nullptr);
  EXPECT_EQ(Show(internal::ReorderJoins(j2)),
            "Projection: #2:t, #1:o, #0:b\n"
            "  Join(inner): keys=[#0:b = #1:t]\n"
            "    Scan: big projection=[b]\n"
            "    Join(inner): keys=[#0:o = #0:t]\n"
            "      Scan: other projection=[o]\n"
            "      Scan: tiny projection=[t]\n");
  auto unknown = Table("unknown", {"u"});
  auto j3 = MakeJoin(j1, unknown, JoinType::kInner, {Col(j1, 0)}, {Col(unknown, 0)}, nullptr);
  EXPECT_EQ(Show(internal::ReorderJoins(j3)), j3->ToString());
}

// TPC-H Q9's shape: small and mid are each joined to big on the same column and not to
// each other; their equality follows (small.p = big.b = mid.m), so they are joined first
// and big probes their join, which takes one key for the class (a second one is implied).
TEST(JoinReorderTest, JoinsRelationsEqualThroughAThird) {
  auto big = Table("big", {"b"}, 1000);
  auto small = Table("small", {"p"}, 10);
  auto mid = Table("mid", {"m"}, 400);
  auto bs = MakeJoin(big, small, JoinType::kInner, {Col(big, 0)}, {Col(small, 0)}, nullptr);
  auto bsm = MakeJoin(bs, mid, JoinType::kInner, {Col(bs, 0)}, {Col(mid, 0)}, nullptr);
  EXPECT_EQ(Show(internal::ReorderJoins(bsm)),
            "Projection: #0:b, #2:p, #1:m\n"
            "  Join(inner): keys=[#0:b = #1:p]\n"
            "    Scan: big projection=[b]\n"
            "    Join(inner): keys=[#0:m = #0:p]\n"
            "      Scan: mid projection=[m]\n"
            "      Scan: small projection=[p]\n");
}

// TPC-H Q10's shape: joining mid with big or with wide is estimated at as many rows, but
// the rows of mid JOIN wide carry wide's 200-byte column (read above the joins), those of
// big JOIN mid two narrow ones. The narrow join comes first (by rows alone the smaller
// inputs, mid and wide, would win the tie), and the wide relation joins last.
TEST(JoinReorderTest, FewestBytesFirstWeighingTheColumnsReadAbove) {
  ColumnStatistics wide_column;
  wide_column.avg_width = 200;
  auto big = Table("big", {"bk", "bv"}, 1000);
  auto mid = Table("mid", {"mk", "mw"}, 100);
  auto wide = Table("wide", {"wk", "ww"}, 100, Pushdown::kUnsupported, {{}, wide_column});
  auto mw = MakeJoin(mid, wide, JoinType::kInner, {Col(mid, 1)}, {Col(wide, 0)}, nullptr);
  auto bmw = MakeJoin(big, mw, JoinType::kInner, {Col(big, 0)}, {Col(mw, 0)}, nullptr);
  // SELECT bv, ww
  auto plan = Project(bmw, {1, 5});
  EXPECT_EQ(Show(internal::ReorderJoins(plan)),
            "Projection: #1:bv, #5:ww\n"
            "  Join(inner): keys=[#3:mw = #0:wk]\n"
            "    Join(inner): keys=[#0:bk = #0:mk]\n"
            "      Scan: big projection=[bk, bv]\n"
            "      Scan: mid projection=[mk, mw]\n"
            "    Scan: wide projection=[wk, ww]\n");
  // Read above: only the narrow columns. Then rows decide, and the smaller inputs join first.
  EXPECT_EQ(Show(internal::ReorderJoins(Project(bmw, {1, 2}))),
            "Projection: #1:bv, #2:mk\n"
            "  Join(inner): keys=[#0:bk = #0:mk]\n"
            "    Scan: big projection=[bk, bv]\n"
            "    Join(inner): keys=[#1:mw = #0:wk]\n"
            "      Scan: mid projection=[mk, mw]\n"
            "      Scan: wide projection=[wk, ww]\n");
}

// TPC-H Q5's shape: the few nations left by the region filter meet both customer and
// supplier (c.cn = s.sn = n.nk). Greedily, n JOIN s is the smallest first join, after which
// customer can only meet the nations through supplier (on nation alone, a join that fans
// out); the order by dynamic programming joins customer with the nations first and
// supplier last, on both its key and the nation.
TEST(JoinReorderTest, DynamicProgrammingBringsAFilterToBothSides) {
  auto n = Table("n", {"nk"}, 5, Pushdown::kUnsupported, {IntRange(0, 4)});
  auto sup =
      Table("s", {"sk", "sn"}, 200, Pushdown::kUnsupported, {IntRange(1, 200), IntRange(0, 24)});
  auto c =
      Table("c", {"ck", "cn"}, 1000, Pushdown::kUnsupported, {IntRange(1, 1000), IntRange(0, 24)});
  auto o = Table("o", {"ok", "ock"}, 10000, Pushdown::kUnsupported,
                 {IntRange(1, 10000), IntRange(1, 1000)});
  auto l = Table("l", {"lok", "lsk"}, 40000, Pushdown::kUnsupported,
                 {IntRange(1, 10000), IntRange(1, 200)});
  // ((((c JOIN o ON ck = ock) JOIN l ON ok = lok) JOIN s ON lsk = sk AND cn = sn)
  //   JOIN n ON sn = nk), as TPC-H writes it.
  auto co = MakeJoin(c, o, JoinType::kInner, {Col(c, 0)}, {Col(o, 1)}, nullptr);
  auto col = MakeJoin(co, l, JoinType::kInner, {Col(co, 2)}, {Col(l, 0)}, nullptr);
  auto cols = MakeJoin(col, sup, JoinType::kInner, {Col(col, 5), Col(col, 1)},
                       {Col(sup, 0), Col(sup, 1)}, nullptr);
  auto all = MakeJoin(cols, n, JoinType::kInner, {Col(cols, 7)}, {Col(n, 0)}, nullptr);
  EXPECT_EQ(Show(internal::ReorderJoins(all)),
            "Projection: #4:ck, #5:cn, #2:ok, #3:ock, #0:lok, #1:lsk, #7:sk, #8:sn, #6:nk\n"
            "  Join(inner): keys=[#1:lsk = #0:sk, #5:cn = #1:sn]\n"
            "    Join(inner): keys=[#0:lok = #0:ok]\n"
            "      Scan: l projection=[lok, lsk]\n"
            "      Join(inner): keys=[#1:ock = #0:ck]\n"
            "        Scan: o projection=[ok, ock]\n"
            "        Join(inner): keys=[#1:cn = #0:nk]\n"
            "          Scan: c projection=[ck, cn]\n"
            "          Scan: n projection=[nk]\n"
            "    Scan: s projection=[sk, sn]\n");
}

// Two columns of one relation equal to the same column of another: both stay keys (the
// first does not imply the second), and no equality is made between a relation's own
// columns. A NULL-safe equality does not join a class.
TEST(JoinReorderTest, DerivedEqualitiesKeepEveryCondition) {
  auto l = Table("l", {"a", "b"}, 1000);
  auto r = Table("r", {"c"}, 100);
  auto t = Table("t", {"d"}, 10);
  // l JOIN r ON a = c AND b = c JOIN t ON c IS NOT DISTINCT FROM d
  auto lr =
      MakeJoin(l, r, JoinType::kInner, {Col(l, 0), Col(l, 1)}, {Col(r, 0), Col(r, 0)}, nullptr);
  auto lrt = MakeJoin(lr, t, JoinType::kInner, {Col(lr, 2)}, {Col(t, 0)}, nullptr, {true});
  EXPECT_EQ(Show(internal::ReorderJoins(lrt)),
            "Join(inner): keys=[#0:a = #0:c, #1:b = #0:c]\n"
            "  Scan: l projection=[a, b]\n"
            "  Join(inner): keys=[#0:c <=> #0:d]\n"
            "    Scan: r projection=[c]\n"
            "    Scan: t projection=[d]\n");
}

// TPC-H Q18's shape: the IN-subquery's semi join on o_orderkey sits above a projection
// over orders JOIN lineitem; it moves to orders, below both.
TEST(SemiJoinPushdownTest, ThroughProjectionIntoTheInnerJoinSideWithItsKeys) {
  auto orders = Table("orders", {"ok", "oc"}, 100);
  auto lineitem = Table("lineitem", {"lk", "q"}, 1000);
  auto big = Table("big", {"k"}, 10);
  auto joined =
      MakeJoin(lineitem, orders, JoinType::kInner, {Col(lineitem, 0)}, {Col(orders, 0)}, nullptr);
  // lineitem(lk, q) ++ orders(ok, oc); project q, ok.
  auto projected = MakeProjection(joined, {Col(joined, 1), Col(joined, 2)}, {"q", "ok"});
  auto semi =
      MakeJoin(projected, big, JoinType::kSemi, {Col(projected, 1)}, {Col(big, 0)}, nullptr);
  EXPECT_EQ(Show(internal::PushDownSemiJoins(semi)),
            "Projection: #1:q, #2:ok\n"
            "  Join(inner): keys=[#0:lk = #0:ok]\n"
            "    Scan: lineitem projection=[lk, q]\n"
            "    Join(semi): keys=[#0:ok = #0:k]\n"
            "      Scan: orders projection=[ok, oc]\n"
            "      Scan: big projection=[k]\n");
  // A key over both sides of the inner join keeps the semi join where it is.
  auto both = MakeJoin(joined, big, JoinType::kSemi,
                       {expr::Call("add", {Col(joined, 1), Col(joined, 2)}, Int64())},
                       {Col(big, 0)}, nullptr);
  EXPECT_EQ(Show(internal::PushDownSemiJoins(both)), both->ToString());
}

// TPC-H Q17's shape: an aggregation grouped by k, joined on k with a few rows of another
// table, aggregates only the input rows whose k the other side holds.
TEST(SemiJoinReductionTest, AggregationInputReducedByTheOtherSidesKeys) {
  ColumnStatistics keys;
  keys.min = Scalar::I64(1);
  keys.max = Scalar::I64(1000);
  keys.distinct_count = 1000;
  auto fact = Table("fact", {"k", "v"}, 100000, Pushdown::kUnsupported, {keys, ColumnStatistics{}});
  auto few = Table("few", {"k"}, 10, Pushdown::kUnsupported, {keys});
  auto agg = MakeAggregate(fact, {Col(fact, 0)}, {"k"}, {Sum(Col(fact, 1))}, {"s"});
  auto projected = MakeProjection(agg, {Col(agg, 1), Col(agg, 0)}, {"s", "gk"});
  const std::string reduced =
      "Join(semi): keys=[#0:k = #0:__reduce0]\n"
      "        Scan: fact projection=[k, v]\n"
      "        Projection: #0:k AS __reduce0\n"
      "          Scan: few projection=[k]\n";
  // Inner join, the aggregation on either side (under a projection).
  auto inner =
      MakeJoin(few, projected, JoinType::kInner, {Col(few, 0)}, {Col(projected, 1)}, nullptr);
  EXPECT_EQ(Show(internal::ReduceAggregatesBySemiJoin(inner)),
            "Join(inner): keys=[#0:k = #1:gk]\n"
            "  Scan: few projection=[k]\n"
            "  Projection: #1:s, #0:k AS gk\n"
            "    Aggregate: groups=[#0:k] aggregates=[sum(#1:v) AS s]\n"
            "      " +
                reduced);
  // A left join whose right side is the aggregation (a decorrelated scalar subquery).
  auto left = MakeJoin(few, agg, JoinType::kLeft, {Col(few, 0)}, {Col(agg, 0)}, nullptr);
  EXPECT_EQ(Show(internal::ReduceAggregatesBySemiJoin(left)),
            "Join(left): keys=[#0:k = #0:k]\n"
            "  Scan: few projection=[k]\n"
            "  Aggregate: groups=[#0:k] aggregates=[sum(#1:v) AS s]\n"
            "    " +
                reduced.substr(0, reduced.find('\n') + 1) +
                "      Scan: fact projection=[k, v]\n"
                "      Projection: #0:k AS __reduce0\n"
                "        Scan: few projection=[k]\n");
  // Not when the aggregation is the left join's preserved side, nor on a non-group column,
  // nor when the other side is not selective, nor when NULL keys match.
  auto preserved = MakeJoin(agg, few, JoinType::kLeft, {Col(agg, 0)}, {Col(few, 0)}, nullptr);
  EXPECT_EQ(Show(internal::ReduceAggregatesBySemiJoin(preserved)), preserved->ToString());
  auto on_sum =
      MakeJoin(few, projected, JoinType::kInner, {Col(few, 0)}, {Col(projected, 0)}, nullptr);
  EXPECT_EQ(Show(internal::ReduceAggregatesBySemiJoin(on_sum)), on_sum->ToString());
  auto many = Table("many", {"k"}, 900, Pushdown::kUnsupported, {keys});
  auto unselective = MakeJoin(many, agg, JoinType::kInner, {Col(many, 0)}, {Col(agg, 0)}, nullptr);
  EXPECT_EQ(Show(internal::ReduceAggregatesBySemiJoin(unselective)), unselective->ToString());
  auto null_matching =
      MakeJoin(few, agg, JoinType::kInner, {Col(few, 0)}, {Col(agg, 0)}, nullptr, {true});
  EXPECT_EQ(Show(internal::ReduceAggregatesBySemiJoin(null_matching)), null_matching->ToString());
}

// ---------------------------------------------------------------------------------------
// Totals from groups

AggregateCall Call1(const std::string& name, ExprPtr arg, bool distinct = false) {
  AggregateCall call;
  call.function = expr::ResolveAggregate(name, {arg->type}, distinct).ValueOrDie();
  call.args = {std::move(arg)};
  return call;
}

// TPC-H Q11's shape: groups of a join kept when their sum passes a fraction of the total
// over the same join.
LogicalPlanPtr GroupsAboveTheirTotal(const LogicalPlanPtr& input, const LogicalPlanPtr& again,
                                     std::vector<AggregateCall> totals) {
  auto groups = MakeAggregate(input, {Col(input, 0)}, {"k"},
                              {Sum(Col(input, 1)), CountStar(), Call1("max", Col(input, 1))},
                              {"s", "n", "hi"});
  std::vector<std::string> names;
  for (size_t i = 0; i < totals.size(); ++i) names.push_back("t" + std::to_string(i));
  auto total = MakeMaxOneRow(MakeAggregate(again, {}, {}, std::move(totals), names));
  return MakeJoin(groups, total, JoinType::kLeft, {}, {}, nullptr);
}

TEST(TotalsFromGroupsTest, ATotalOverTheSameInputReadsTheGroups) {
  auto t = Table("t", {"k", "v"});
  auto input = MakeFilter(t, Gt(Col(t, 1), I64(0)));
  auto again = MakeFilter(t, Gt(Col(t, 1), I64(0)));
  auto plan = GroupsAboveTheirTotal(input, again,
                                    {Sum(Col(again, 1)), CountStar(), Call1("max", Col(again, 1))});
  ASSERT_OK_AND_ASSIGN(auto out, internal::DeriveTotalsFromGroups(plan));
  // The sum of the sums, the sum of the counts (0 over no groups), the max of the maxes;
  // the grouped aggregation is the very node the join reads.
  EXPECT_EQ(
      out->ToString(),
      "Join(left): cross\n"
      "  Aggregate: groups=[#0:k] aggregates=[sum(#1:v) AS s, count_star() AS n, "
      "max(#1:v) AS hi]\n"
      "    Filter: (#1:v > 0)\n"
      "      Scan: t projection=[k, v]\n"
      "  MaxOneRow\n"
      "    Projection: #0:t0, CASE WHEN is_null(#1:t1) THEN 0 ELSE CAST(#1:t1 AS int64) END "
      "AS t1, #2:t2\n"
      "      Aggregate: groups=[] aggregates=[sum(#1:s) AS t0, sum(#2:n) AS t1, max(#3:hi) AS "
      "t2]\n"
      "        Aggregate: groups=[#0:k] aggregates=[sum(#1:v) AS s, count_star() AS n, "
      "max(#1:v) AS hi]\n"
      "          Filter: (#1:v > 0)\n"
      "            Scan: t projection=[k, v]\n");
  EXPECT_EQ(out->children[1]->children[0]->children[0]->children[0], out->children[0]);
}

TEST(TotalsFromGroupsTest, OtherInputsAndCallsThatDoNotCombineStay) {
  auto t = Table("t", {"k", "v"});
  auto input = MakeFilter(t, Gt(Col(t, 1), I64(0)));
  // Another filter: another input.
  auto other = MakeFilter(t, Gt(Col(t, 1), I64(1)));
  auto plan = GroupsAboveTheirTotal(input, other, {Sum(Col(other, 1))});
  EXPECT_EQ(Show(internal::DeriveTotalsFromGroups(plan)), plan->ToString());
  // Another source object of the same name: not the same rows.
  auto u = Table("t", {"k", "v"});
  auto elsewhere = MakeFilter(u, Gt(Col(u, 1), I64(0)));
  plan = GroupsAboveTheirTotal(input, elsewhere, {Sum(Col(elsewhere, 1))});
  EXPECT_EQ(Show(internal::DeriveTotalsFromGroups(plan)), plan->ToString());
  // avg does not combine from per-group values; DISTINCT does not; nor does a call the
  // grouped aggregation does not compute (min).
  auto again = MakeFilter(t, Gt(Col(t, 1), I64(0)));
  for (auto call : {Call1("avg", Col(again, 1)), Call1("sum", Col(again, 1), true),
                    Call1("min", Col(again, 1))}) {
    plan = GroupsAboveTheirTotal(input, again, {Sum(Col(again, 1)), call});
    EXPECT_EQ(Show(internal::DeriveTotalsFromGroups(plan)), plan->ToString());
  }
}

// Two bindings of one WITH item are the same subtree (same source object, equal
// expressions); a volatile expression, another source or another constant makes them differ.
TEST(SameSubtreeTest, EqualBindingsButNotVolatileOnes) {
  auto t = Table("t", {"k", "v"}, 100);
  auto bind = [](const LogicalPlanPtr& scan, ExprPtr predicate) {
    auto filtered = MakeFilter(scan, std::move(predicate));
    return MakeAggregate(filtered, {Col(filtered, 0)}, {"k"}, {Sum(Col(filtered, 1))}, {"s"});
  };
  auto a = bind(t, Gt(Col(t, 1), I64(3)));
  auto b = bind(t, Gt(Col(t, 1), I64(3)));
  EXPECT_TRUE(SameSubtree(*a, *b));
  EXPECT_TRUE(Repeatable(*a));
  EXPECT_FALSE(SameSubtree(*a, *bind(t, Gt(Col(t, 1), I64(4)))));
  auto other = Table("t", {"k", "v"}, 100);  // same name, another source object
  EXPECT_FALSE(SameSubtree(*a, *bind(other, Gt(Col(other, 1), I64(3)))));
  auto random = expr::Call("random", {}, Float64(), false);
  auto v = bind(t, Lt(random, expr::Literal(Scalar::F64(0.5))));
  EXPECT_FALSE(SameSubtree(*v, *v));
  EXPECT_FALSE(Repeatable(*v));
}

TEST(StatisticsTest, ScansFiltersJoinsAndAggregates) {
  ColumnStatistics range;
  range.min = Scalar::I64(0);
  range.max = Scalar::I64(99);
  auto t = Table("t", {"a", "b"}, 1000, Pushdown::kUnsupported, {range, ColumnStatistics{}});
  EXPECT_EQ(EstimateStatistics(*t).row_count, 1000);
  EXPECT_TRUE(EstimateStatistics(*t).exact);
  // a < 25 keeps a quarter of [0, 99]; b = 1 keeps a tenth.
  EXPECT_EQ(EstimateStatistics(*MakeFilter(t, Lt(Col(t, 0), I64(25)))).row_count, 253);
  EXPECT_EQ(EstimateStatistics(*MakeFilter(t, Eq(Col(t, 1), I64(1)))).row_count, 100);
  auto u = Table("u", {"x"}, 50);
  // ndv(a) is at most 100 (its range), ndv(x) unknown: 50 rows.
  auto join = MakeJoin(t, u, JoinType::kInner, {Col(t, 0)}, {Col(u, 0)}, nullptr);
  EXPECT_EQ(EstimateStatistics(*join).row_count, 500);
  auto agg = MakeAggregate(t, {Col(t, 1)}, {"b"}, {CountStar()}, {"count"});
  EXPECT_EQ(EstimateStatistics(*agg).row_count, 100);
  EXPECT_EQ(EstimateStatistics(*MakeAggregate(t, {}, {}, {CountStar()}, {"c"})).row_count, 1);
  EXPECT_EQ(EstimateStatistics(*MakeLimit(t, 10, 5)).row_count, 5);
  EXPECT_FALSE(EstimateStatistics(*Table("n", {"x"})).row_count.has_value());
}

// IN lists and inequalities on a column with a distinct count keep k / distinct and
// 1 - 1 / distinct of the rows (TPC-H Q16's p_size IN (8 sizes of 50)); without one, a
// tenth per listed value and nine tenths.
TEST(StatisticsTest, InListAndInequalityByDistinctCount) {
  ColumnStatistics fifty;
  fifty.distinct_count = 50;
  auto t = Table("t", {"a", "b"}, 1000, Pushdown::kUnsupported, {fifty, ColumnStatistics{}});
  auto in = [&](int column, int values) {
    std::vector<ExprPtr> args = {Col(t, column)};
    for (int v = 0; v < values; ++v) args.push_back(I64(v));
    return expr::Call("in_list", std::move(args), Boolean(), false);
  };
  EXPECT_EQ(EstimateStatistics(*MakeFilter(t, in(0, 8))).row_count, 160);
  EXPECT_EQ(EstimateStatistics(*MakeFilter(t, in(1, 8))).row_count, 800);
  EXPECT_EQ(EstimateStatistics(*MakeFilter(t, in(0, 60))).row_count, 1000);
  EXPECT_EQ(EstimateStatistics(*MakeFilter(t, expr::Compare("ne", Col(t, 0), I64(3)))).row_count,
            980);
  EXPECT_EQ(EstimateStatistics(*MakeFilter(t, expr::Compare("ne", Col(t, 1), I64(3)))).row_count,
            900);
}

// A join on two key columns: each side's distinct keys are the product of its columns'
// distinct counts, at most its rows (TPC-H Q9: lineitem with partsupp on part and
// supplier, the composite key partsupp's primary key).
TEST(StatisticsTest, CompositeJoinKeys) {
  auto fact = Table("fact", {"p", "s"}, 60000, Pushdown::kUnsupported,
                    {IntRange(1, 2000), IntRange(1, 100)});
  auto pk =
      Table("pk", {"p", "s"}, 8000, Pushdown::kUnsupported, {IntRange(1, 2000), IntRange(1, 100)});
  // fact: min(2000 * 100, 60000) = 60000 keys; pk: min(200000, 8000) = 8000.
  auto both = MakeJoin(fact, pk, JoinType::kInner, {Col(fact, 0), Col(fact, 1)},
                       {Col(pk, 0), Col(pk, 1)}, nullptr);
  EXPECT_EQ(EstimateStatistics(*both).row_count, 8000);
  // One of the two keys alone: 60000 * 8000 / 2000.
  auto one = MakeJoin(fact, pk, JoinType::kInner, {Col(fact, 0)}, {Col(pk, 0)}, nullptr);
  EXPECT_EQ(EstimateStatistics(*one).row_count, 240000);
  // Few distinct pairs on both sides: the product decides (10 * 5 = 50 keys).
  auto small =
      Table("small", {"a", "b"}, 1000, Pushdown::kUnsupported, {IntRange(1, 10), IntRange(1, 5)});
  auto pairs = MakeJoin(small, small, JoinType::kInner, {Col(small, 0), Col(small, 1)},
                        {Col(small, 0), Col(small, 1)}, nullptr);
  EXPECT_EQ(EstimateStatistics(*pairs).row_count, 20000);
}

// The bound of a plan's rows takes no guess: filters, aggregations, semi joins and limits
// keep at most their input; joins that pair rows and inexact sources have none.
TEST(StatisticsTest, MaxRowsBoundsWithoutGuesses) {
  auto t = Table("t", {"a", "b"}, 1000);
  EXPECT_EQ(MaxRows(*t), 1000);
  auto filtered = MakeFilter(t, Eq(Col(t, 1), I64(1)));
  EXPECT_EQ(EstimateStatistics(*filtered).row_count, 100);
  EXPECT_EQ(MaxRows(*filtered), 1000);
  EXPECT_EQ(MaxRows(*MakeAggregate(filtered, {Col(t, 1)}, {"b"}, {CountStar()}, {"c"})), 1000);
  EXPECT_EQ(MaxRows(*MakeAggregate(t, {}, {}, {CountStar()}, {"c"})), 1);
  EXPECT_EQ(MaxRows(*MakeLimit(t, 0, 5)), 5);
  auto u = Table("u", {"x"}, 50);
  EXPECT_EQ(MaxRows(*MakeJoin(t, u, JoinType::kSemi, {Col(t, 0)}, {Col(u, 0)}, nullptr)), 1000);
  EXPECT_FALSE(
      MaxRows(*MakeJoin(t, u, JoinType::kInner, {Col(t, 0)}, {Col(u, 0)}, nullptr)).has_value());
  EXPECT_FALSE(MaxRows(*Table("n", {"x"})).has_value());
}

// TPC-H Q10's orders filter: a date range of three months out of seven years keeps the
// part of [min, max] between its bounds, not the product of the two comparisons' guesses.
TEST(StatisticsTest, RangeConjunctsOnOneColumnKeepTheirInterval) {
  ColumnStatistics c;
  c.min = Scalar::I64(0);
  c.max = Scalar::I64(1000);
  auto t = Table("t", {"x", "y"}, 10000, Pushdown::kUnsupported, {c, c});
  auto x = Col(t, 0);
  auto between = MakeFilter(t, expr::And({Ge(x, I64(100)), Lt(x, I64(150))}));
  EXPECT_EQ(EstimateStatistics(*between).row_count, 500);
  // Bounds on different columns multiply; an empty interval keeps the minimum fraction.
  auto two = MakeFilter(t, expr::And({Ge(x, I64(500)), Lt(Col(t, 1), I64(500))}));
  EXPECT_EQ(EstimateStatistics(*two).row_count, 2500);
  auto empty = MakeFilter(t, expr::And({Ge(x, I64(600)), Lt(x, I64(100))}));
  EXPECT_EQ(EstimateStatistics(*empty).row_count, 5);
}

// ---------------------------------------------------------------------------------------
// The whole pipeline

TEST(OptimizeTest, CommaJoinQuery) {
  // SELECT a2, c2 FROM a, b, c WHERE a1 = b1 AND b2 = c1 AND c2 > 3
  auto a = Table("a", {"a1", "a2", "a3"}, 1000, Pushdown::kInexact);
  auto b = Table("b", {"b1", "b2"}, 100);
  auto c = Table("c", {"c1", "c2"}, 10);
  auto ab = MakeJoin(a, b, JoinType::kInner, {}, {}, nullptr);
  auto abc = MakeJoin(ab, c, JoinType::kInner, {}, {}, nullptr);
  auto where =
      MakeFilter(abc, expr::And({Eq(Col(abc, 0), Col(abc, 3)), Eq(Col(abc, 4), Col(abc, 5)),
                                 Gt(Col(abc, 6), I64(3)), Bool(true)}));
  auto plan = MakeProjection(where, {Col(abc, 1), Col(abc, 6)}, {"a2", "c2"});
  ASSERT_OK_AND_ASSIGN(auto out, Optimize(plan));
  EXPECT_EQ(out->ToString(),
            "Projection: #1:a2, #3:c2\n"
            "  Join(inner): keys=[#0:a1 = #0:b1]\n"
            "    Scan: a projection=[a1, a2]\n"
            "    Projection: #0:b1, #3:c2\n"
            "      Join(inner): keys=[#1:b2 = #0:c1]\n"
            "        Scan: b projection=[b1, b2]\n"
            "        Filter: (#1:c2 > 3)\n"
            "          Scan: c projection=[c1, c2]\n");
  EXPECT_TRUE(out->schema->Equals(*plan->schema));
  EXPECT_EQ(DefaultRules().size(), 13u);
}

}  // namespace
}  // namespace floe::plan
