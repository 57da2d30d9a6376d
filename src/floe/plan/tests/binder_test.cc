#include "floe/plan/binder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/sql/parser.h"
#include "floe/testing/matchers.h"

namespace floe::plan {
namespace {

using ::floe::testing::IsError;

class TestTable : public TableSource {
 public:
  TestTable(std::string name, SchemaPtr schema)
      : name_(std::move(name)), schema_(std::move(schema)) {}
  std::string_view kind() const override { return "test"; }
  std::string display_name() const override { return name_; }
  const SchemaPtr& schema() const override { return schema_; }

 private:
  std::string name_;
  SchemaPtr schema_;
};

class TestResolver : public RelationResolver {
 public:
  void Add(const std::string& name, std::vector<Field> fields) {
    tables_[name] = std::make_shared<TestTable>(name, std::make_shared<Schema>(std::move(fields)));
  }
  Result<TableSourcePtr> ResolveTable(const std::vector<std::string>& name) override {
    ++resolve_calls;
    std::string joined;
    for (const auto& n : name) joined += (joined.empty() ? "" : ".") + n;
    auto it = tables_.find(name.back());
    if (it == tables_.end()) return Status::NotFound("table \"" + joined + "\" does not exist");
    return it->second;
  }
  Result<TableSourcePtr> ResolveTableFunction(const std::string& name,
                                              const std::vector<TableFunctionArg>& args) override {
    if (name != "series") return Status::NotFound("table function " + name + " does not exist");
    std::string shown = "series(";
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].value.is_null() || args[i].value.type()->id() != TypeId::kInt32) {
        return Status::Invalid("series: argument " + std::to_string(i + 1) + " must be an integer");
      }
      shown += (i > 0 ? ", " : "") + std::to_string(args[i].value.get<int32_t>());
    }
    return TableSourcePtr(std::make_shared<TestTable>(
        shown + ")",
        std::make_shared<Schema>(std::vector<Field>{Field("series", Int64(), false)})));
  }
  int resolve_calls = 0;

 private:
  std::map<std::string, TableSourcePtr> tables_;
};

class BinderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    resolver_.Add("t", {Field("a", Int32()), Field("b", String()), Field("c", Decimal(15, 2)),
                        Field("d", Date())});
    resolver_.Add("u", {Field("a", Int32(), false), Field("e", Int64())});
    resolver_.Add("v", {Field("a", Int64()), Field("f", Float64())});
    AddTpch();
    options_.statement_time_micros = 1700000000LL * 1000000LL;  // 2023-11-14 22:13:20 UTC
  }

  void AddTpch() {
    auto money = [] { return Decimal(15, 2); };
    resolver_.Add("lineitem",
                  {Field("l_orderkey", Int64(), false), Field("l_partkey", Int64(), false),
                   Field("l_suppkey", Int64(), false), Field("l_linenumber", Int32(), false),
                   Field("l_quantity", money(), false), Field("l_extendedprice", money(), false),
                   Field("l_discount", money(), false), Field("l_tax", money(), false),
                   Field("l_returnflag", String(), false), Field("l_linestatus", String(), false),
                   Field("l_shipdate", Date(), false), Field("l_commitdate", Date(), false),
                   Field("l_receiptdate", Date(), false), Field("l_shipinstruct", String(), false),
                   Field("l_shipmode", String(), false), Field("l_comment", String(), false)});
    resolver_.Add("orders",
                  {Field("o_orderkey", Int64(), false), Field("o_custkey", Int64(), false),
                   Field("o_orderstatus", String(), false), Field("o_totalprice", money(), false),
                   Field("o_orderdate", Date(), false), Field("o_orderpriority", String(), false),
                   Field("o_clerk", String(), false), Field("o_shippriority", Int32(), false),
                   Field("o_comment", String(), false)});
    resolver_.Add("customer",
                  {Field("c_custkey", Int64(), false), Field("c_name", String(), false),
                   Field("c_address", String(), false), Field("c_nationkey", Int32(), false),
                   Field("c_phone", String(), false), Field("c_acctbal", money(), false),
                   Field("c_mktsegment", String(), false), Field("c_comment", String(), false)});
    resolver_.Add("supplier",
                  {Field("s_suppkey", Int64(), false), Field("s_name", String(), false),
                   Field("s_address", String(), false), Field("s_nationkey", Int32(), false),
                   Field("s_phone", String(), false), Field("s_acctbal", money(), false),
                   Field("s_comment", String(), false)});
    resolver_.Add("nation",
                  {Field("n_nationkey", Int32(), false), Field("n_name", String(), false),
                   Field("n_regionkey", Int32(), false), Field("n_comment", String(), false)});
    resolver_.Add("region", {Field("r_regionkey", Int32(), false), Field("r_name", String(), false),
                             Field("r_comment", String(), false)});
    resolver_.Add("part",
                  {Field("p_partkey", Int64(), false), Field("p_name", String(), false),
                   Field("p_mfgr", String(), false), Field("p_brand", String(), false),
                   Field("p_type", String(), false), Field("p_size", Int32(), false),
                   Field("p_container", String(), false), Field("p_retailprice", money(), false),
                   Field("p_comment", String(), false)});
    resolver_.Add("partsupp",
                  {Field("ps_partkey", Int64(), false), Field("ps_suppkey", Int64(), false),
                   Field("ps_availqty", Int32(), false), Field("ps_supplycost", money(), false),
                   Field("ps_comment", String(), false)});
  }

  Result<LogicalPlanPtr> Bind(const std::string& sql) {
    FLOE_ASSIGN_OR_RAISE(auto statements, sql::Parse(sql));
    if (statements.size() != 1) return Status::Invalid("expected one statement");
    const auto* select = std::get_if<sql::SelectStatement>(&statements[0].body);
    if (select == nullptr) return Status::Invalid("expected a query");
    return BindQuery(*select->query, statements[0].text, resolver_, options_);
  }

  /// The plan's tree, or the error's message.
  std::string Plan(const std::string& sql) {
    auto plan = Bind(sql);
    if (!plan.ok()) return plan.status().ToString();
    return (*plan)->ToString();
  }

  std::string Error(const std::string& sql) {
    auto plan = Bind(sql);
    if (plan.ok()) return "bound:\n" + (*plan)->ToString();
    return plan.status().ToString();
  }

  /// "name: type" per output column, one a line.
  std::string OutputSchema(const std::string& sql) {
    auto plan = Bind(sql);
    if (!plan.ok()) return plan.status().ToString();
    std::string out;
    for (const Field& f : (*plan)->schema->fields()) {
      out += f.name() + ": " + f.type()->ToString() + (f.nullable() ? "" : " not null") + "\n";
    }
    return out;
  }

  TestResolver resolver_;
  BindOptions options_;
};

TEST_F(BinderTest, DistinctOnKeepsFirstRowPerGroup) {
  EXPECT_EQ(Plan("SELECT DISTINCT ON (b) b, a FROM t ORDER BY b, c DESC"),
            R"plan(Projection: #0:b, #1:a
  Sort: #0:b ASC NULLS LAST, #2:__order1 DESC NULLS FIRST
    Projection: #0:b, #1:a, #2:__order1
      Filter: (#3:__row_number = 1)
        Window: row_number() OVER (PARTITION BY #0:b ORDER BY #0:b ASC NULLS LAST, #2:__order1 DESC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS __row_number
          Projection: #1:b, #0:a, #2:c AS __order1
            Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, TablesResolveOncePerStatement) {
  ASSERT_OK_AND_ASSIGN(LogicalPlanPtr plan, Bind("SELECT x.a FROM t x JOIN t y ON x.a = y.a"));
  EXPECT_EQ(resolver_.resolve_calls, 1);
  const LogicalPlan& join = *plan->children[0];
  ASSERT_EQ(join.kind, LogicalKind::kJoin);
  EXPECT_EQ(join.children[0]->source.get(), join.children[1]->source.get());
}

TEST_F(BinderTest, BindConstantExprFromSyntaxTree) {
  sql::ParsedExpr literal;
  literal.kind = sql::ExprKind::kConstant;
  literal.constant.kind = sql::Constant::Kind::kString;
  literal.constant.text = "2020-01-02";
  literal.location = 5;
  sql::ParsedExpr cast;
  cast.kind = sql::ExprKind::kCast;
  cast.type.name = "date";
  cast.args.push_back(std::make_shared<sql::ParsedExpr>(literal));
  ASSERT_OK_AND_ASSIGN(expr::ExprPtr e, BindConstantExpr(cast, "SELECT '2020-01-02'::date", {}));
  EXPECT_EQ(e->ToString(), "DATE '2020-01-02'");

  sql::ParsedExpr column;
  column.kind = sql::ExprKind::kColumnRef;
  column.names = {"x"};
  column.location = 7;
  EXPECT_THAT(BindConstantExpr(column, "SELECT x", {}), IsError(StatusCode::kBind));
}

TEST_F(BinderTest, FilterWithUntypedDateLiteral) {
  EXPECT_EQ(Plan("SELECT a, b FROM t WHERE a > 1 AND d <= '1998-09-02'"),
            R"plan(Projection: #0:a, #1:b
  Filter: ((#0:a > 1) AND (#3:d <= DATE '1998-09-02'))
    Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, DateIntervalComparesAsDate) {
  EXPECT_EQ(Plan("SELECT a FROM t WHERE d < date '1994-01-01' + interval '1' year AND d > date "
                 "'1994-01-01' + interval '1 hour'"),
            R"plan(Projection: #0:a
  Filter: ((#3:d < DATE '1995-01-01') AND (CAST(#3:d AS timestamp) > interval_add(DATE '1994-01-01', 0, 0, 3600000000)))
    Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, GroupByOrdinalHavingOrderByAlias) {
  EXPECT_EQ(Plan("SELECT a + 1 AS x, count(*) FROM t GROUP BY 1 HAVING sum(c) > 10 ORDER BY x DESC "
                 "LIMIT 5"),
            R"plan(Limit: offset=0 fetch=5
  Sort: #0:x DESC NULLS FIRST
    Projection: #0:group1 AS x, #1:count
      Filter: (#2:sum > 10.00)
        Aggregate: groups=[(#0:a + 1) AS group1] aggregates=[count_star() AS count, sum(#2:c) AS sum]
          Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, GroupByOutputAlias) {
  EXPECT_EQ(Plan("SELECT a AS x FROM t GROUP BY x"),
            R"plan(Projection: #0:a AS x
  Aggregate: groups=[#0:a] aggregates=[]
    Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, CommaJoinIsCrossJoin) {
  EXPECT_EQ(Plan("SELECT t.a FROM t, u WHERE t.a = u.a"),
            R"plan(Projection: #0:a
  Filter: (#0:a = #4:a)
    Join(inner): cross
      Scan: t projection=[a, b, c, d]
      Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, JoinUsing) {
  EXPECT_EQ(Plan("SELECT * FROM t JOIN u USING (a)"),
            R"plan(Projection: #0:a, #2:b, #3:c, #4:d, #6:e
  Projection: #0:a, #0:a, #1:b, #2:c, #3:d, #4:a, #5:e
    Join(inner): keys=[#0:a = #0:a]
      Scan: t projection=[a, b, c, d]
      Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, FullJoinUsingCoalesces) {
  EXPECT_EQ(Plan("SELECT * FROM t FULL JOIN u USING (a)"),
            R"plan(Projection: #0:a, #2:b, #3:c, #4:d, #6:e
  Projection: coalesce(#0:a, #4:a) AS a, #0:a, #1:b, #2:c, #3:d, #4:a, #5:e
    Join(full): keys=[#0:a = #0:a]
      Scan: t projection=[a, b, c, d]
      Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, NaturalJoin) {
  EXPECT_EQ(Plan("SELECT a FROM t NATURAL JOIN u"),
            R"plan(Projection: #0:a
  Projection: #0:a, #0:a, #1:b, #2:c, #3:d, #4:a, #5:e
    Join(inner): keys=[#0:a = #0:a]
      Scan: t projection=[a, b, c, d]
      Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, LeftJoinOnKeysAndFilter) {
  EXPECT_EQ(Plan("SELECT x.a, y.e FROM t AS x LEFT JOIN u AS y ON x.a = y.a AND y.e > 5"),
            R"plan(Projection: #0:a, #5:e
  Join(left): keys=[#0:a = #0:a] filter=(#5:e > 5)
    Scan: t projection=[a, b, c, d]
    Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, AggregateDistinctFilterOrderBy) {
  EXPECT_EQ(Plan("SELECT b, count(DISTINCT a), string_agg(b, ',' ORDER BY a DESC) FILTER (WHERE a "
                 "> 0) FROM t GROUP BY b"),
            R"plan(Projection: #0:b, #1:count, #2:string_agg
  Aggregate: groups=[#1:b] aggregates=[count(DISTINCT #0:a) AS count, string_agg(#1:b, ',' ORDER BY #0:a DESC NULLS FIRST) FILTER (WHERE (#0:a > 0)) AS string_agg]
    Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, WindowsPerSpecification) {
  EXPECT_EQ(Plan("SELECT a, row_number() OVER (PARTITION BY b ORDER BY c), sum(c) OVER w FROM t "
                 "WINDOW w AS (PARTITION BY b)"),
            R"plan(Projection: #0:a, #4:row_number, #5:sum
  Window: sum(#2:c) OVER (PARTITION BY #1:b RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS sum
    Window: row_number() OVER (PARTITION BY #1:b ORDER BY #2:c ASC NULLS LAST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS row_number
      Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, WindowRowsFrame) {
  EXPECT_EQ(
      Plan("SELECT a, sum(c) OVER (ORDER BY a ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t"),
      R"plan(Projection: #0:a, #4:sum
  Window: sum(#2:c) OVER (ORDER BY #0:a ASC NULLS LAST ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS sum
    Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, Distinct) {
  EXPECT_EQ(Plan("SELECT DISTINCT a, b FROM t ORDER BY b"),
            R"plan(Sort: #1:b ASC NULLS LAST
  Aggregate: groups=[#0:a, #1:b] aggregates=[]
    Projection: #0:a, #1:b
      Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, OrderByHiddenExpression) {
  EXPECT_EQ(Plan("SELECT a FROM t ORDER BY c + 1, 1 DESC NULLS LAST LIMIT 3 OFFSET 2"),
            R"plan(Projection: #0:a
  Limit: offset=2 fetch=3
    Sort: #1:__order1 ASC NULLS LAST, #0:a DESC NULLS LAST
      Projection: #0:a, (#2:c + 1) AS __order1
        Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, UnionDistinctUnifiesTypes) {
  EXPECT_EQ(Plan("SELECT a FROM t UNION SELECT e FROM u"),
            R"plan(Aggregate: groups=[#0:a] aggregates=[]
  Union: all
    Projection: CAST(#0:a AS int64) AS a
      Scan: t projection=[a, b, c, d]
    Projection: #1:e
      Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, UnionAllUntypedNull) {
  EXPECT_EQ(Plan("SELECT a, b FROM t UNION ALL SELECT 1, NULL ORDER BY 1"),
            R"plan(Sort: #0:a ASC NULLS LAST
  Union: all
    Projection: #0:a, #1:b
      Scan: t projection=[a, b, c, d]
    Projection: 1 AS ?column?, NULL::string AS ?column?
      Values: ()
)plan");
}

TEST_F(BinderTest, Intersect) {
  EXPECT_EQ(Plan("SELECT a FROM t INTERSECT SELECT a FROM u"),
            R"plan(Join(semi): keys=[#0:a <=> #0:a]
  Aggregate: groups=[#0:a] aggregates=[]
    Projection: #0:a
      Scan: t projection=[a, b, c, d]
  Projection: #0:a
    Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, Except) {
  EXPECT_EQ(Plan("SELECT a FROM t EXCEPT SELECT a FROM u"),
            R"plan(Join(anti): keys=[#0:a <=> #0:a]
  Aggregate: groups=[#0:a] aggregates=[]
    Projection: #0:a
      Scan: t projection=[a, b, c, d]
  Projection: #0:a
    Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, Values) {
  EXPECT_EQ(Plan("VALUES (1, 'x'), (2.5, NULL)"),
            R"plan(Values: ('1'::numeric, 'x'), ('2.5'::numeric, NULL::string)
)plan");
}

TEST_F(BinderTest, CteInlinedPerReference) {
  EXPECT_EQ(Plan("WITH w AS (SELECT a, c FROM t WHERE a > 0) SELECT w1.a FROM w w1 JOIN w w2 ON "
                 "w1.a = w2.a"),
            R"plan(Projection: #0:a
  Join(inner): keys=[#0:a = #0:a]
    Projection: #0:a, #2:c
      Filter: (#0:a > 0)
        Scan: t projection=[a, b, c, d]
    Projection: #0:a, #2:c
      Filter: (#0:a > 0)
        Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, RecursiveCteReadsItsWorkTable) {
  // Each reference binds the recursion anew, with a work table of its own.
  EXPECT_EQ(Plan("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
                 "SELECT r1.n FROM r r1 JOIN r r2 ON r1.n = r2.n"),
            R"plan(Projection: #0:n
  Join(inner): keys=[#0:n = #0:n]
    RecursiveQuery: r (work table 1), UNION ALL
      Projection: 1 AS ?column?
        Values: ()
      Projection: (#0:n + 1) AS ?column?
        Filter: (#0:n < 3)
          WorkTableScan: r (work table 1)
    RecursiveQuery: r (work table 2), UNION ALL
      Projection: 1 AS ?column?
        Values: ()
      Projection: (#0:n + 1) AS ?column?
        Filter: (#0:n < 3)
          WorkTableScan: r (work table 2)
)plan");
  // Without a self-reference an item of WITH RECURSIVE is a plain one.
  EXPECT_EQ(Plan("WITH RECURSIVE r AS (SELECT a FROM t UNION SELECT e FROM u) SELECT * FROM r"),
            Plan("WITH r AS (SELECT a FROM t UNION SELECT e FROM u) SELECT * FROM r"));
}

TEST_F(BinderTest, UncorrelatedScalarSubquery) {
  EXPECT_EQ(Plan("SELECT (SELECT max(e) FROM u) AS m, a FROM t"),
            R"plan(Projection: #4:max AS m, #0:a
  Join(left): cross
    Scan: t projection=[a, b, c, d]
    MaxOneRow
      Projection: #0:max
        Aggregate: groups=[] aggregates=[max(#1:e) AS max]
          Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, InAndExistsInSelectListAreMarkJoins) {
  EXPECT_EQ(Plan("SELECT a, a IN (SELECT e FROM u) AS i, EXISTS (SELECT 1 FROM u) FROM t"),
            R"plan(Projection: #0:a, #4:mark AS i, #5:mark AS exists
  Join(mark): cross
    Join(mark): keys=[CAST(#0:a AS int64) = #0:e]
      Scan: t projection=[a, b, c, d]
      Projection: #1:e
        Scan: u projection=[a, e]
    Projection: 1 AS ?column?
      Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, NotInUnderOrIsNotMark) {
  EXPECT_EQ(Plan("SELECT a FROM t WHERE a NOT IN (SELECT a FROM u) OR b = 'x'"),
            R"plan(Projection: #0:a
  Filter: (not(#4:mark) OR (#1:b = 'x'))
    Join(mark): keys=[#0:a = #0:a]
      Scan: t projection=[a, b, c, d]
      Projection: #0:a
        Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, InAndNotExistsConjunctsAreSemiAnti) {
  EXPECT_EQ(Plan("SELECT a FROM t WHERE a IN (SELECT a FROM u) AND NOT EXISTS (SELECT 1 FROM v "
                 "WHERE v.a = t.a)"),
            R"plan(Projection: #0:a
  Join(anti): keys=[CAST(#0:a AS int64) = #0:a]
    Join(semi): keys=[#0:a = #0:a]
      Scan: t projection=[a, b, c, d]
      Projection: #0:a
        Scan: u projection=[a, e]
    Scan: v projection=[a, f]
)plan");
}

TEST_F(BinderTest, CorrelatedCountCoalesces) {
  EXPECT_EQ(Plan("SELECT a, (SELECT count(*) FROM u WHERE u.a = t.a) FROM t"),
            R"plan(Projection: #0:a, coalesce(#4:count, 0) AS count
  Join(left): keys=[#0:a = #1:__key1]
    Scan: t projection=[a, b, c, d]
    Projection: #1:count, #0:a AS __key1
      Aggregate: groups=[#0:a] aggregates=[count_star() AS count]
        Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, CorrelatedScalarAggregate) {
  EXPECT_EQ(Plan("SELECT a FROM t WHERE c > (SELECT avg(e) FROM u WHERE u.a = t.a)"),
            R"plan(Projection: #0:a
  Filter: (CAST(#2:c AS numeric) > #4:avg)
    Join(left): keys=[#0:a = #1:__key1]
      Scan: t projection=[a, b, c, d]
      Projection: #1:avg, #0:a AS __key1
        Aggregate: groups=[#0:a] aggregates=[avg(#1:e) AS avg]
          Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, CorrelatedExistsWithFilter) {
  EXPECT_EQ(Plan("SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a AND u.e > t.c)"),
            R"plan(Projection: #0:a
  Join(semi): keys=[#0:a = #0:a] filter=(CAST(#5:e AS decimal(21,2)) > CAST(#2:c AS decimal(21,2)))
    Scan: t projection=[a, b, c, d]
    Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, CorrelatedIn) {
  EXPECT_EQ(Plan("SELECT a FROM t WHERE a IN (SELECT e FROM u WHERE u.a = t.a)"),
            R"plan(Projection: #0:a
  Join(semi): keys=[CAST(#0:a AS int64) = #2:__in, #0:a = #0:a]
    Scan: t projection=[a, b, c, d]
    Projection: #0:a, #1:e, #1:e AS __in
      Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, CorrelatedExistsInSelectList) {
  EXPECT_EQ(Plan("SELECT a, EXISTS (SELECT 1 FROM u WHERE u.a = t.a) FROM t"),
            R"plan(Projection: #0:a, is_true(#4:mark) AS exists
  Join(mark): keys=[#0:a = #0:a]
    Scan: t projection=[a, b, c, d]
    Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, HavingScalarSubquery) {
  EXPECT_EQ(Plan("SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > (SELECT count(*) FROM u)"),
            R"plan(Projection: #0:a, #1:count
  Filter: (#1:count > #2:count)
    Join(left): cross
      Aggregate: groups=[#0:a] aggregates=[count_star() AS count]
        Scan: t projection=[a, b, c, d]
      MaxOneRow
        Projection: #0:count
          Aggregate: groups=[] aggregates=[count_star() AS count]
            Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, CaseExpressions) {
  EXPECT_EQ(
      Plan("SELECT CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END, CASE WHEN c > 1 THEN c ELSE 0 "
           "END FROM t"),
      R"plan(Projection: CASE WHEN (#0:a = 1) THEN 'one' WHEN (#0:a = 2) THEN 'two' END AS case, CASE WHEN (#2:c > 1.00) THEN CAST(#2:c AS numeric) ELSE '0'::numeric END AS case
  Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, ConditionalFunctionsAndBetween) {
  EXPECT_EQ(
      Plan("SELECT coalesce(a, 0), nullif(b, ''), greatest(a, 2, 3), a BETWEEN 1 AND 3, a NOT "
           "BETWEEN SYMMETRIC 3 AND 1 FROM t"),
      R"plan(Projection: coalesce(#0:a, 0) AS coalesce, nullif(#1:b, '') AS nullif, greatest(#0:a, 2, 3) AS greatest, ((#0:a >= 1) AND (#0:a <= 3)) AS ?column?, not((((#0:a >= 3) AND (#0:a <= 1)) OR ((#0:a >= 1) AND (#0:a <= 3)))) AS ?column?
  Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, Predicates) {
  EXPECT_EQ(
      Plan("SELECT a IS NULL, a IS NOT DISTINCT FROM 2, (a > 1) IS NOT TRUE, b LIKE 'a%' ESCAPE "
           "'!', b NOT ILIKE 'x', a IN (1, 2.5) FROM t"),
      R"plan(Projection: is_null(#0:a) AS ?column?, is_not_distinct_from(#0:a, 2) AS ?column?, is_not_true((#0:a > 1)) AS ?column?, like(#1:b, 'a%', '!') AS ?column?, not(ilike(#1:b, 'x')) AS ?column?, in_list(CAST(#0:a AS decimal(11,1)), 1.0, 2.5) AS ?column?
  Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, CastsAndStatementTime) {
  EXPECT_EQ(
      Plan("SELECT CAST(a AS bigint), b::int, '12'::numeric(5,2), c::numeric, now(), current_date, "
           "d + interval '1 year 2 mons' FROM t"),
      R"plan(Projection: CAST(#0:a AS int64) AS a, CAST(#1:b AS int32) AS b, 12.00 AS numeric, CAST(#2:c AS numeric) AS c, '2023-11-14 22:13:20+00'::timestamptz AS now, DATE '2023-11-14' AS current_date, interval_add(#3:d, 14, 0, 0) AS ?column?
  Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, LiteralsAndFunctions) {
  EXPECT_EQ(
      Plan("SELECT extract(year FROM d), date_part('month', d), -a, 2147483648, 1.50, 'a' || b "
           "FROM t"),
      R"plan(Projection: CAST(extract('year', CAST(#3:d AS timestamp)) AS decimal(38,0)) AS extract, date_part('month', CAST(#3:d AS timestamp)) AS date_part, negate(#0:a) AS ?column?, 2147483648 AS ?column?, 1.50 AS ?column?, ('a' || #1:b) AS ?column?
  Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, TableFunction) {
  EXPECT_EQ(Plan("SELECT * FROM series(1, 3) AS s(n) WHERE n > 1"),
            R"plan(Projection: #0:n
  Filter: (#0:n > 1)
    Scan: series(1, 3) projection=[series]
)plan");
}

TEST_F(BinderTest, SelectWithoutFrom) {
  EXPECT_EQ(Plan("SELECT 1"),
            R"plan(Projection: 1 AS ?column?
  Values: ()
)plan");
}

TEST_F(BinderTest, TpchQ4Exists) {
  EXPECT_EQ(Plan("select o_orderpriority, count(*) as order_count from orders where o_orderdate >= "
                 "date '1993-07-01' and o_orderdate < date '1993-07-01' + interval '3' month and "
                 "exists (select * from lineitem where l_orderkey = o_orderkey and l_commitdate < "
                 "l_receiptdate) group by o_orderpriority order by o_orderpriority"),
            R"plan(Sort: #0:o_orderpriority ASC NULLS LAST
  Projection: #0:o_orderpriority, #1:count AS order_count
    Aggregate: groups=[#5:o_orderpriority] aggregates=[count_star() AS count]
      Filter: ((#4:o_orderdate >= DATE '1993-07-01') AND (#4:o_orderdate < DATE '1993-10-01'))
        Join(semi): keys=[#0:o_orderkey = #0:l_orderkey]
          Scan: orders projection=[o_orderkey, o_custkey, o_orderstatus, o_totalprice, o_orderdate, o_orderpriority, o_clerk, o_shippriority, o_comment]
          Filter: (#11:l_commitdate < #12:l_receiptdate)
            Scan: lineitem projection=[l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment]
)plan");
}

TEST_F(BinderTest, TpchQ17CorrelatedAggregate) {
  EXPECT_EQ(
      Plan("select sum(l_extendedprice) / 7.0 as avg_yearly from lineitem, part where p_partkey = "
           "l_partkey and p_brand = 'Brand#23' and p_container = 'MED BOX' and l_quantity < "
           "(select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)"),
      R"plan(Projection: (CAST(#0:sum AS numeric) / '7.0'::numeric) AS avg_yearly
  Aggregate: groups=[] aggregates=[sum(#5:l_extendedprice) AS sum]
    Filter: ((#16:p_partkey = #1:l_partkey) AND (#19:p_brand = 'Brand#23') AND (#22:p_container = 'MED BOX') AND (CAST(#4:l_quantity AS numeric) < #25:?column?))
      Join(left): keys=[#16:p_partkey = #1:__key1]
        Join(inner): cross
          Scan: lineitem projection=[l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment]
          Scan: part projection=[p_partkey, p_name, p_mfgr, p_brand, p_type, p_size, p_container, p_retailprice, p_comment]
        Projection: ('0.2'::numeric * #1:avg) AS ?column?, #0:l_partkey AS __key1
          Aggregate: groups=[#1:l_partkey] aggregates=[avg(#4:l_quantity) AS avg]
            Scan: lineitem projection=[l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment]
)plan");
}

TEST_F(BinderTest, TpchQ21ExistsNotExists) {
  EXPECT_EQ(
      Plan("select s_name, count(*) as numwait from supplier, lineitem l1, orders, nation where "
           "s_suppkey = l1.l_suppkey and o_orderkey = l1.l_orderkey and o_orderstatus = 'F' and "
           "l1.l_receiptdate > l1.l_commitdate and exists (select * from lineitem l2 where "
           "l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey) and not exists (select "
           "* from lineitem l3 where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> "
           "l1.l_suppkey and l3.l_receiptdate > l3.l_commitdate) and s_nationkey = n_nationkey and "
           "n_name = 'SAUDI ARABIA' group by s_name order by numwait desc, s_name limit 100"),
      R"plan(Limit: offset=0 fetch=100
  Sort: #1:numwait DESC NULLS FIRST, #0:s_name ASC NULLS LAST
    Projection: #0:s_name, #1:count AS numwait
      Aggregate: groups=[#1:s_name] aggregates=[count_star() AS count]
        Filter: ((#0:s_suppkey = #9:l_suppkey) AND (#23:o_orderkey = #7:l_orderkey) AND (#25:o_orderstatus = 'F') AND (#19:l_receiptdate > #18:l_commitdate) AND (#3:s_nationkey = #32:n_nationkey) AND (#33:n_name = 'SAUDI ARABIA'))
          Join(anti): keys=[#7:l_orderkey = #0:l_orderkey] filter=(#38:l_suppkey <> #9:l_suppkey)
            Join(semi): keys=[#7:l_orderkey = #0:l_orderkey] filter=(#38:l_suppkey <> #9:l_suppkey)
              Join(inner): cross
                Join(inner): cross
                  Join(inner): cross
                    Scan: supplier projection=[s_suppkey, s_name, s_address, s_nationkey, s_phone, s_acctbal, s_comment]
                    Scan: lineitem projection=[l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment]
                  Scan: orders projection=[o_orderkey, o_custkey, o_orderstatus, o_totalprice, o_orderdate, o_orderpriority, o_clerk, o_shippriority, o_comment]
                Scan: nation projection=[n_nationkey, n_name, n_regionkey, n_comment]
              Scan: lineitem projection=[l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment]
            Filter: (#12:l_receiptdate > #11:l_commitdate)
              Scan: lineitem projection=[l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment]
)plan");
}

TEST_F(BinderTest, IntervalForms) {
  EXPECT_EQ(
      Plan("SELECT d + interval '1.5 days', d - interval '2' hour, d + interval '3 months ago', d "
           "+ interval '01:30:00' FROM t"),
      R"plan(Projection: interval_add(#3:d, 0, 1, 43200000000) AS ?column?, interval_add(#3:d, 0, 0, -7200000000) AS ?column?, interval_add(#3:d, -3, 0, 0) AS ?column?, interval_add(#3:d, 0, 0, 5400000000) AS ?column?
  Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, Errors) {
  EXPECT_EQ(Error("SELECT x FROM t"), "Bind error: column \"x\" does not exist (line 1, column 8)");
  EXPECT_EQ(Error("SELECT t.x FROM t"),
            "Bind error: column \"t.x\" does not exist (line 1, column 8)");
  EXPECT_EQ(Error("SELECT a FROM t, u"),
            "Bind error: column reference \"a\" is ambiguous (line 1, column 8)");
  EXPECT_EQ(Error("SELECT z.a FROM t"),
            "Bind error: missing FROM-clause entry for table \"z\" (line 1, column 8)");
  EXPECT_EQ(Error("SELECT a, b FROM t GROUP BY a"),
            "Bind error: column \"t.b\" must appear in the GROUP BY clause or be used in an "
            "aggregate function (line 1, column 11)");
  EXPECT_EQ(Error("SELECT a FROM t WHERE sum(a) > 1"),
            "Bind error: aggregate functions are not allowed in WHERE (line 1, column 23)");
  EXPECT_EQ(Error("SELECT a FROM t WHERE row_number() OVER () > 1"),
            "Bind error: window functions are not allowed in WHERE (line 1, column 23)");
  EXPECT_EQ(
      Error("SELECT a FROM t WHERE d = '1998-13-45'"),
      "Invalid argument: date/time field value out of range: \"1998-13-45\" (line 1, column 25)");
  EXPECT_EQ(Error("SELECT d::int FROM t"),
            "Bind error: cannot cast type date to integer (line 1, column 9)");
  EXPECT_EQ(Error("SELECT b + 1 FROM t"),
            "Bind error: operator does not exist: text + integer (line 1, column 10)");
  EXPECT_EQ(Error("SELECT a FROM t LIMIT -1"),
            "Bind error: LIMIT must not be negative (line 1, column 23)");
  EXPECT_EQ(Error("SELECT a FROM t OFFSET -2"),
            "Bind error: OFFSET must not be negative (line 1, column 24)");
  EXPECT_EQ(
      Error("SELECT a, b FROM t UNION SELECT a FROM u"),
      "Bind error: each UNION query must have the same number of columns (line 1, column 33)");
  EXPECT_EQ(Error("SELECT a FROM nope"),
            "Not found: table \"nope\" does not exist (line 1, column 15)");
  EXPECT_EQ(Error("WITH RECURSIVE r(n) AS (SELECT n FROM r) SELECT * FROM r"),
            "Bind error: recursive query \"r\" does not have the form non-recursive-term UNION "
            "[ALL] recursive-term (line 1, column 16)");
  EXPECT_EQ(
      Error("WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n FROM r, r r2) SELECT * FROM r"),
      "Bind error: recursive reference to query \"r\" must not appear more than once (line 1, "
      "column 57)");
  EXPECT_EQ(Error("SELECT * FROM t, LATERAL (SELECT a) s"),
            "Not supported: LATERAL subqueries are not supported (line 1, column 34)");
  EXPECT_EQ(Error("SELECT a FROM t GROUP BY ROLLUP (a)"),
            "Not supported: GROUPING SETS, ROLLUP and CUBE are not supported (line 1, column 8)");
  EXPECT_EQ(
      Error("SELECT interval '1 eon'"),
      "Invalid argument: invalid input syntax for type interval: \"1 eon\" (line 1, column 8)");
  EXPECT_EQ(Error("SELECT a FROM t INTERSECT ALL SELECT a FROM u"),
            "Not supported: INTERSECT ALL is not supported (line 1, column 8)");
  EXPECT_EQ(Error("SELECT a FROM t WHERE a = (SELECT a FROM u WHERE u.e = t.a)"),
            "Not supported: correlated scalar subqueries are supported only as an aggregate "
            "without GROUP BY, HAVING, DISTINCT or LIMIT (line 1, column 27)");
  EXPECT_EQ(Error("SELECT (SELECT a, e FROM u) FROM t"),
            "Bind error: subquery must return only one column (line 1, column 8)");
  EXPECT_EQ(Error("SELECT a FROM t WHERE a IN (SELECT a, e FROM u)"),
            "Bind error: subquery has too many columns (line 1, column 25)");
  EXPECT_EQ(Error("SELECT DISTINCT a FROM t ORDER BY b"),
            "Bind error: for SELECT DISTINCT, ORDER BY expressions must appear in select list "
            "(line 1, column 35)");
  EXPECT_EQ(Error("SELECT a FROM t ORDER BY 5"),
            "Bind error: ORDER BY position 5 is not in select list (line 1, column 26)");
  EXPECT_EQ(Error("SELECT a FROM t GROUP BY 3"),
            "Bind error: GROUP BY position 3 is not in select list (line 1, column 26)");
  EXPECT_EQ(Error("SELECT sum(count(a)) FROM t"),
            "Bind error: aggregate function calls cannot be nested (line 1, column 12)");
  EXPECT_EQ(
      Error("SELECT a FROM t WHERE b"),
      "Bind error: argument of WHERE must be type boolean, not type text (line 1, column 23)");
  EXPECT_EQ(Error("SELECT * FROM t JOIN u USING (z)"),
            "Bind error: column \"z\" specified in USING clause does not exist in left table (line "
            "1, column 15)");
  EXPECT_EQ(Error("SELECT DISTINCT ON (a) b FROM t ORDER BY c"),
            "Bind error: SELECT DISTINCT ON expressions must match initial ORDER BY expressions "
            "(line 1, column 42)");
  EXPECT_EQ(Error("SELECT a FROM t WHERE a = '12x'"),
            "Invalid argument: invalid input syntax for type integer: \"12x\" (line 1, column 25)");
  EXPECT_EQ(Error("SELECT nosuchfunc(a) FROM t"),
            "Not found: function nosuchfunc(integer) does not exist (line 1, column 8)");
  EXPECT_EQ(Error("SELECT 1 FROM t AS x(p, q, r, s, w)"),
            "Bind error: table \"x\" has 4 columns available but 5 columns specified (line 1, "
            "column 15)");
  EXPECT_EQ(Error("SELECT a FROM t WHERE a IN (SELECT e FROM u WHERE e = t.c GROUP BY e)"),
            "Not supported: correlated IN subqueries with aggregation, DISTINCT, LIMIT or "
            "subqueries in the select list are not supported (line 1, column 25)");
  EXPECT_EQ(Error("SELECT avg(b) FROM t"),
            "Bind error: function avg(text) does not exist (line 1, column 8)");
  EXPECT_EQ(Error("SELECT * FROM nope(1)"),
            "Not found: table function nope does not exist (line 1, column 15)");
  EXPECT_EQ(Error("SELECT sum(a) OVER w FROM t"),
            "Bind error: window \"w\" does not exist (line 1, column 20)");
  EXPECT_EQ(Error("SELECT a FROM t JOIN u ON t.a = (SELECT 1)"),
            "Not supported: subqueries in JOIN conditions are not supported (line 1, column 33)");
}

TEST_F(BinderTest, TpchQ1) {
  EXPECT_EQ(
      OutputSchema(
          "select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice) as "
          "sum_base_price, sum(l_extendedprice * (1 - l_discount)) as sum_disc_price, "
          "sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge, avg(l_quantity) as "
          "avg_qty, avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc, count(*) as "
          "count_order from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day "
          "group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus"),
      R"schema(l_returnflag: string not null
l_linestatus: string not null
sum_qty: decimal(38,2)
sum_base_price: decimal(38,2)
sum_disc_price: decimal(38,4)
sum_charge: decimal(38,6)
avg_qty: numeric
avg_price: numeric
avg_disc: numeric
count_order: int64 not null
)schema");
}

TEST_F(BinderTest, TpchQ3) {
  EXPECT_EQ(OutputSchema(
                "select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue, "
                "o_orderdate, o_shippriority from customer, orders, lineitem where c_mktsegment = "
                "'BUILDING' and c_custkey = o_custkey and l_orderkey = o_orderkey and o_orderdate "
                "< date '1995-03-15' and l_shipdate > date '1995-03-15' group by l_orderkey, "
                "o_orderdate, o_shippriority order by revenue desc, o_orderdate limit 10"),
            R"schema(l_orderkey: int64 not null
revenue: decimal(38,4)
o_orderdate: date not null
o_shippriority: int32 not null
)schema");
}

TEST_F(BinderTest, TpchQ5) {
  EXPECT_EQ(OutputSchema(
                "select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue from customer, "
                "orders, lineitem, supplier, nation, region where c_custkey = o_custkey and "
                "l_orderkey = o_orderkey and l_suppkey = s_suppkey and c_nationkey = s_nationkey "
                "and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = 'ASIA' "
                "and o_orderdate >= date '1994-01-01' and o_orderdate < date '1994-01-01' + "
                "interval '1' year group by n_name order by revenue desc"),
            R"schema(n_name: string not null
revenue: decimal(38,4)
)schema");
}

TEST_F(BinderTest, TpchQ6) {
  EXPECT_EQ(
      OutputSchema("select sum(l_extendedprice * l_discount) as revenue from lineitem where "
                   "l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval "
                   "'1' year and l_discount between .06 - 0.01 and .06 + 0.01 and l_quantity < 24"),
      R"schema(revenue: decimal(38,4)
)schema");
}

TEST_F(BinderTest, TpchQ10) {
  EXPECT_EQ(OutputSchema(
                "select c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) as revenue, "
                "c_acctbal, n_name, c_address, c_phone, c_comment from customer, orders, lineitem, "
                "nation where c_custkey = o_custkey and l_orderkey = o_orderkey and o_orderdate >= "
                "date '1993-10-01' and o_orderdate < date '1993-10-01' + interval '3' month and "
                "l_returnflag = 'R' and c_nationkey = n_nationkey group by c_custkey, c_name, "
                "c_acctbal, c_phone, n_name, c_address, c_comment order by revenue desc limit 20"),
            R"schema(c_custkey: int64 not null
c_name: string not null
revenue: decimal(38,4)
c_acctbal: decimal(15,2) not null
n_name: string not null
c_address: string not null
c_phone: string not null
c_comment: string not null
)schema");
}

TEST_F(BinderTest, TpchQ12) {
  EXPECT_EQ(OutputSchema(
                "select l_shipmode, sum(case when o_orderpriority = '1-URGENT' or o_orderpriority "
                "= '2-HIGH' then 1 else 0 end) as high_line_count, sum(case when o_orderpriority "
                "<> '1-URGENT' and o_orderpriority <> '2-HIGH' then 1 else 0 end) as "
                "low_line_count from orders, lineitem where o_orderkey = l_orderkey and l_shipmode "
                "in ('MAIL', 'SHIP') and l_commitdate < l_receiptdate and l_shipdate < "
                "l_commitdate and l_receiptdate >= date '1994-01-01' and l_receiptdate < date "
                "'1994-01-01' + interval '1' year group by l_shipmode order by l_shipmode"),
            R"schema(l_shipmode: string not null
high_line_count: int64
low_line_count: int64
)schema");
}

TEST_F(BinderTest, TpchQ14) {
  EXPECT_EQ(
      OutputSchema("select 100.00 * sum(case when p_type like 'PROMO%' then l_extendedprice * (1 - "
                   "l_discount) else 0 end) / sum(l_extendedprice * (1 - l_discount)) as "
                   "promo_revenue from lineitem, part where l_partkey = p_partkey and l_shipdate "
                   ">= date '1995-09-01' and l_shipdate < date '1995-09-01' + interval '1' month"),
      R"schema(promo_revenue: numeric
)schema");
}

TEST_F(BinderTest, TpchQ18) {
  EXPECT_EQ(OutputSchema(
                "select c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity) "
                "from customer, orders, lineitem where o_orderkey in (select l_orderkey from "
                "lineitem group by l_orderkey having sum(l_quantity) > 300) and c_custkey = "
                "o_custkey and o_orderkey = l_orderkey group by c_name, c_custkey, o_orderkey, "
                "o_orderdate, o_totalprice order by o_totalprice desc, o_orderdate limit 100"),
            R"schema(c_name: string not null
c_custkey: int64 not null
o_orderkey: int64 not null
o_orderdate: date not null
o_totalprice: decimal(15,2) not null
sum: decimal(38,2)
)schema");
}

TEST_F(BinderTest, TpchQ17) {
  EXPECT_EQ(
      OutputSchema(
          "select sum(l_extendedprice) / 7.0 as avg_yearly from lineitem, part where p_partkey = "
          "l_partkey and p_brand = 'Brand#23' and p_container = 'MED BOX' and l_quantity < (select "
          "0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)"),
      R"schema(avg_yearly: numeric
)schema");
}

TEST_F(BinderTest, TpchQ4) {
  EXPECT_EQ(OutputSchema(
                "select o_orderpriority, count(*) as order_count from orders where o_orderdate >= "
                "date '1993-07-01' and o_orderdate < date '1993-07-01' + interval '3' month and "
                "exists (select * from lineitem where l_orderkey = o_orderkey and l_commitdate < "
                "l_receiptdate) group by o_orderpriority order by o_orderpriority"),
            R"schema(o_orderpriority: string not null
order_count: int64 not null
)schema");
}

TEST_F(BinderTest, TpchQ16) {
  EXPECT_EQ(
      OutputSchema(
          "select p_brand, p_type, p_size, count(distinct ps_suppkey) as supplier_cnt from "
          "partsupp, part where p_partkey = ps_partkey and p_brand <> 'Brand#45' and p_type not "
          "like 'MEDIUM POLISHED%' and p_size in (49, 14, 23, 45, 19, 3, 36, 9) and ps_suppkey not "
          "in (select s_suppkey from supplier where s_comment like '%Customer%Complaints%') group "
          "by p_brand, p_type, p_size order by supplier_cnt desc, p_brand, p_type, p_size"),
      R"schema(p_brand: string not null
p_type: string not null
p_size: int32 not null
supplier_cnt: int64 not null
)schema");
}

TEST_F(BinderTest, TpchQ2) {
  EXPECT_EQ(
      OutputSchema(
          "select s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment from "
          "part, supplier, partsupp, nation, region where p_partkey = ps_partkey and s_suppkey = "
          "ps_suppkey and p_size = 15 and p_type like '%BRASS' and s_nationkey = n_nationkey and "
          "n_regionkey = r_regionkey and r_name = 'EUROPE' and ps_supplycost = (select "
          "min(ps_supplycost) from partsupp, supplier, nation, region where p_partkey = ps_partkey "
          "and s_suppkey = ps_suppkey and s_nationkey = n_nationkey and n_regionkey = r_regionkey "
          "and r_name = 'EUROPE') order by s_acctbal desc, n_name, s_name, p_partkey limit 100"),
      R"schema(s_acctbal: decimal(15,2) not null
s_name: string not null
n_name: string not null
p_partkey: int64 not null
p_mfgr: string not null
s_address: string not null
s_phone: string not null
s_comment: string not null
)schema");
}

TEST_F(BinderTest, TpchQ21) {
  EXPECT_EQ(
      OutputSchema(
          "select s_name, count(*) as numwait from supplier, lineitem l1, orders, nation where "
          "s_suppkey = l1.l_suppkey and o_orderkey = l1.l_orderkey and o_orderstatus = 'F' and "
          "l1.l_receiptdate > l1.l_commitdate and exists (select * from lineitem l2 where "
          "l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey) and not exists (select "
          "* from lineitem l3 where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> l1.l_suppkey "
          "and l3.l_receiptdate > l3.l_commitdate) and s_nationkey = n_nationkey and n_name = "
          "'SAUDI ARABIA' group by s_name order by numwait desc, s_name limit 100"),
      R"schema(s_name: string not null
numwait: int64 not null
)schema");
}

TEST_F(BinderTest, TpchQ22) {
  EXPECT_EQ(
      OutputSchema("select cntrycode, count(*) as numcust, sum(c_acctbal) as totacctbal from "
                   "(select substring(c_phone from 1 for 2) as cntrycode, c_acctbal from customer "
                   "where substring(c_phone from 1 for 2) in ('13', '31', '23', '29', '30', '18', "
                   "'17') and c_acctbal > (select avg(c_acctbal) from customer where c_acctbal > "
                   "0.00 and substring(c_phone from 1 for 2) in ('13', '31', '23', '29', '30', "
                   "'18', '17')) and not exists (select * from orders where o_custkey = "
                   "c_custkey)) as custsale group by cntrycode order by cntrycode"),
      R"schema(cntrycode: string not null
numcust: int64 not null
totacctbal: decimal(38,2)
)schema");
}

TEST_F(BinderTest, TpchQ15) {
  EXPECT_EQ(
      OutputSchema("with revenue0 as (select l_suppkey as supplier_no, sum(l_extendedprice * (1 - "
                   "l_discount)) as total_revenue from lineitem where l_shipdate >= date "
                   "'1996-01-01' and l_shipdate < date '1996-01-01' + interval '3' month group by "
                   "l_suppkey) select s_suppkey, s_name, s_address, s_phone, total_revenue from "
                   "supplier, revenue0 where s_suppkey = supplier_no and total_revenue = (select "
                   "max(total_revenue) from revenue0) order by s_suppkey"),
      R"schema(s_suppkey: int64 not null
s_name: string not null
s_address: string not null
s_phone: string not null
total_revenue: decimal(38,4)
)schema");
}

TEST_F(BinderTest, TpchQ20) {
  EXPECT_EQ(OutputSchema(
                "select s_name, s_address from supplier, nation where s_suppkey in (select "
                "ps_suppkey from partsupp where ps_partkey in (select p_partkey from part where "
                "p_name like 'forest%') and ps_availqty > (select 0.5 * sum(l_quantity) from "
                "lineitem where l_partkey = ps_partkey and l_suppkey = ps_suppkey and l_shipdate "
                ">= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year)) and "
                "s_nationkey = n_nationkey and n_name = 'CANADA' order by s_name"),
            R"schema(s_name: string not null
s_address: string not null
)schema");
}

TEST_F(BinderTest, TpchQ11) {
  EXPECT_EQ(
      OutputSchema("select ps_partkey, sum(ps_supplycost * ps_availqty) as value from partsupp, "
                   "supplier, nation where ps_suppkey = s_suppkey and s_nationkey = n_nationkey "
                   "and n_name = 'GERMANY' group by ps_partkey having sum(ps_supplycost * "
                   "ps_availqty) > (select sum(ps_supplycost * ps_availqty) * 0.0001000000 from "
                   "partsupp, supplier, nation where ps_suppkey = s_suppkey and s_nationkey = "
                   "n_nationkey and n_name = 'GERMANY') order by value desc"),
      R"schema(ps_partkey: int64 not null
value: decimal(38,2)
)schema");
}

TEST_F(BinderTest, TpchQ7) {
  EXPECT_EQ(OutputSchema(
                "select supp_nation, cust_nation, l_year, sum(volume) as revenue from (select "
                "n1.n_name as supp_nation, n2.n_name as cust_nation, extract(year from l_shipdate) "
                "as l_year, l_extendedprice * (1 - l_discount) as volume from supplier, lineitem, "
                "orders, customer, nation n1, nation n2 where s_suppkey = l_suppkey and o_orderkey "
                "= l_orderkey and c_custkey = o_custkey and s_nationkey = n1.n_nationkey and "
                "c_nationkey = n2.n_nationkey and ((n1.n_name = 'FRANCE' and n2.n_name = "
                "'GERMANY') or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE')) and l_shipdate "
                "between date '1995-01-01' and date '1996-12-31') as shipping group by "
                "supp_nation, cust_nation, l_year order by supp_nation, cust_nation, l_year"),
            R"schema(supp_nation: string not null
cust_nation: string not null
l_year: decimal(38,0) not null
revenue: decimal(38,4)
)schema");
}

TEST_F(BinderTest, TpchQ8) {
  EXPECT_EQ(
      OutputSchema(
          "select o_year, sum(case when nation = 'BRAZIL' then volume else 0 end) / sum(volume) as "
          "mkt_share from (select extract(year from o_orderdate) as o_year, l_extendedprice * (1 - "
          "l_discount) as volume, n2.n_name as nation from part, supplier, lineitem, orders, "
          "customer, nation n1, nation n2, region where p_partkey = l_partkey and s_suppkey = "
          "l_suppkey and l_orderkey = o_orderkey and o_custkey = c_custkey and c_nationkey = "
          "n1.n_nationkey and n1.n_regionkey = r_regionkey and r_name = 'AMERICA' and s_nationkey "
          "= n2.n_nationkey and o_orderdate between date '1995-01-01' and date '1996-12-31' and "
          "p_type = 'ECONOMY ANODIZED STEEL') as all_nations group by o_year order by o_year"),
      R"schema(o_year: decimal(38,0) not null
mkt_share: numeric
)schema");
}

TEST_F(BinderTest, TpchQ9) {
  EXPECT_EQ(
      OutputSchema("select nation, o_year, sum(amount) as sum_profit from (select n_name as "
                   "nation, extract(year from o_orderdate) as o_year, l_extendedprice * (1 - "
                   "l_discount) - ps_supplycost * l_quantity as amount from part, supplier, "
                   "lineitem, partsupp, orders, nation where s_suppkey = l_suppkey and ps_suppkey "
                   "= l_suppkey and ps_partkey = l_partkey and p_partkey = l_partkey and "
                   "o_orderkey = l_orderkey and s_nationkey = n_nationkey and p_name like "
                   "'%green%') as profit group by nation, o_year order by nation, o_year desc"),
      R"schema(nation: string not null
o_year: decimal(38,0) not null
sum_profit: decimal(38,4)
)schema");
}

TEST_F(BinderTest, TpchQ13) {
  EXPECT_EQ(
      OutputSchema("select c_count, count(*) as custdist from (select c_custkey, count(o_orderkey) "
                   "from customer left outer join orders on c_custkey = o_custkey and o_comment "
                   "not like '%special%requests%' group by c_custkey) as c_orders (c_custkey, "
                   "c_count) group by c_count order by custdist desc, c_count desc"),
      R"schema(c_count: int64 not null
custdist: int64 not null
)schema");
}

TEST_F(BinderTest, TpchQ19) {
  EXPECT_EQ(
      OutputSchema("select sum(l_extendedprice* (1 - l_discount)) as revenue from lineitem, part "
                   "where (p_partkey = l_partkey and p_brand = 'Brand#12' and p_container in ('SM "
                   "CASE', 'SM BOX', 'SM PACK', 'SM PKG') and l_quantity >= 1 and l_quantity <= 1 "
                   "+ 10 and p_size between 1 and 5 and l_shipmode in ('AIR', 'AIR REG') and "
                   "l_shipinstruct = 'DELIVER IN PERSON') or (p_partkey = l_partkey and p_brand = "
                   "'Brand#23' and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK') "
                   "and l_quantity >= 10 and l_quantity <= 10 + 10 and p_size between 1 and 10 and "
                   "l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')"),
      R"schema(revenue: decimal(38,4)
)schema");
}

TEST_F(BinderTest, CorrelatedSubqueryOverGroupedColumn) {
  EXPECT_EQ(Plan("SELECT a, (SELECT count(*) FROM u WHERE u.a = t.a) FROM t GROUP BY a"),
            R"plan(Projection: #0:a, coalesce(#1:count, 0) AS count
  Join(left): keys=[#0:a = #1:__key1]
    Aggregate: groups=[#0:a] aggregates=[]
      Scan: t projection=[a, b, c, d]
    Projection: #1:count, #0:a AS __key1
      Aggregate: groups=[#0:a] aggregates=[count_star() AS count]
        Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, HavingInSubqueryIsMarkJoinAfterAggregate) {
  EXPECT_EQ(Plan("SELECT a FROM t GROUP BY a HAVING a IN (SELECT e FROM u)"),
            R"plan(Projection: #0:a
  Filter: #1:mark
    Join(mark): keys=[CAST(#0:a AS int64) = #0:e]
      Aggregate: groups=[#0:a] aggregates=[]
        Scan: t projection=[a, b, c, d]
      Projection: #1:e
        Scan: u projection=[a, e]
)plan");
}

TEST_F(BinderTest, WindowOverAggregate) {
  EXPECT_EQ(Plan("SELECT a, rank() OVER (ORDER BY sum(c)) FROM t GROUP BY a"),
            R"plan(Projection: #0:a, #2:rank
  Window: rank() OVER (ORDER BY #1:sum ASC NULLS LAST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rank
    Aggregate: groups=[#0:a] aggregates=[sum(#2:c) AS sum]
      Scan: t projection=[a, b, c, d]
)plan");
}

TEST_F(BinderTest, CorrelationTwoLevelsUpIsNotSupported) {
  EXPECT_EQ(Error("SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a AND EXISTS "
                  "(SELECT 1 FROM v WHERE v.a = t.a))"),
            "Not supported: correlated reference to \"t.a\" more than one query level up (line 1, "
            "column 103)");
}

}  // namespace
}  // namespace floe::plan
