#include "floe/sql/parser.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/testing/matchers.h"

namespace floe::sql {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::testing::ElementsAre;

Statement ParseOne(const std::string& sql) {
  auto result = Parse(sql);
  EXPECT_TRUE(result.ok()) << sql << ": " << result.status().ToString();
  if (!result.ok() || result->size() != 1) {
    ADD_FAILURE() << "expected one statement in " << sql;
    return Statement{};
  }
  return (*result)[0];
}

SelectStmtPtr Query(const std::string& sql) {
  Statement s = ParseOne(sql);
  auto* select = std::get_if<SelectStatement>(&s.body);
  if (select == nullptr) {
    ADD_FAILURE() << "not a SELECT: " << sql;
    return std::make_shared<SelectStmt>();
  }
  return select->query;
}

/// The first select item of "SELECT <expr>".
ParsedExprPtr Expr(const std::string& expr) {
  SelectStmtPtr q = Query("SELECT " + expr);
  if (q->targets.empty()) {
    ADD_FAILURE() << "no select item";
    return std::make_shared<ParsedExpr>();
  }
  return q->targets[0].expr;
}

Status ParseStatus(const std::string& sql) { return Parse(sql).status(); }

void ExpectInteger(const ParsedExprPtr& e, int64_t value) {
  ASSERT_EQ(e->kind, ExprKind::kConstant);
  EXPECT_EQ(e->constant.kind, Constant::Kind::kInteger);
  EXPECT_EQ(e->constant.integer, value);
}

void ExpectColumn(const ParsedExprPtr& e, std::vector<std::string> names) {
  ASSERT_EQ(e->kind, ExprKind::kColumnRef);
  EXPECT_EQ(e->names, names);
}

TEST(ParserConstants, Integers) {
  ExpectInteger(Expr("5"), 5);
  ExpectInteger(Expr("0"), 0);
  ExpectInteger(Expr("-5"), -5);
  ExpectInteger(Expr("- 7"), -7);
  ExpectInteger(Expr("-(3)"), -3);
  ExpectInteger(Expr("- /* c */ 12"), -12);
  ExpectInteger(Expr("- -4"), 4);
  ExpectInteger(Expr("2147483648"), 2147483648LL);
  ExpectInteger(Expr("9223372036854775807"), INT64_MAX);
  ExpectInteger(Expr("-9223372036854775808"), INT64_MIN);
}

TEST(ParserConstants, NumericStringBooleanNull) {
  ParsedExprPtr e = Expr("1.5");
  EXPECT_EQ(e->constant.kind, Constant::Kind::kNumeric);
  EXPECT_EQ(e->constant.text, "1.5");
  EXPECT_EQ(Expr("-2.25")->constant.text, "-2.25");
  EXPECT_EQ(Expr("1e10")->constant.text, "1e10");
  e = Expr("99999999999999999999");
  EXPECT_EQ(e->constant.kind, Constant::Kind::kNumeric);
  EXPECT_EQ(e->constant.text, "99999999999999999999");
  e = Expr("'it''s'");
  EXPECT_EQ(e->constant.kind, Constant::Kind::kString);
  EXPECT_EQ(e->constant.text, "it's");
  EXPECT_EQ(Expr("''")->constant.text, "");
  EXPECT_EQ(Expr("E'a\\nb'")->constant.text, "a\nb");
  EXPECT_EQ(Expr("$$x;y$$")->constant.text, "x;y");
  e = Expr("true");
  EXPECT_EQ(e->constant.kind, Constant::Kind::kBoolean);
  EXPECT_TRUE(e->constant.boolean);
  e = Expr("false");
  EXPECT_EQ(e->constant.kind, Constant::Kind::kBoolean);
  EXPECT_FALSE(e->constant.boolean);
  EXPECT_EQ(Expr("NULL")->constant.kind, Constant::Kind::kNull);
  EXPECT_THAT(ParseStatus("SELECT B'101'"),
              IsErrorWith(StatusCode::kNotSupported, "bit-string literal is not supported"));
}

TEST(ParserTypes, TypedLiteralsAndCasts) {
  ParsedExprPtr e = Expr("DATE '1998-12-01'");
  ASSERT_EQ(e->kind, ExprKind::kCast);
  EXPECT_EQ(e->type.name, "date");
  EXPECT_EQ(e->location, 7);
  EXPECT_EQ(e->args[0]->constant.text, "1998-12-01");

  e = Expr("INTERVAL '3' MONTH");
  ASSERT_EQ(e->kind, ExprKind::kCast);
  EXPECT_EQ(e->type.name, "interval");
  EXPECT_THAT(e->type.modifiers, ElementsAre(2));  // INTERVAL_MASK(MONTH)
  EXPECT_EQ(e->args[0]->constant.text, "3");

  e = Expr("INTERVAL '1 day'");
  EXPECT_EQ(e->type.name, "interval");
  EXPECT_TRUE(e->type.modifiers.empty());
  EXPECT_EQ(e->args[0]->constant.text, "1 day");

  EXPECT_THAT(Expr("INTERVAL '1' DAY TO SECOND")->type.modifiers, ElementsAre(7176));

  e = Expr("CAST(a AS numeric(15, 2))");
  EXPECT_EQ(e->type.name, "numeric");
  EXPECT_THAT(e->type.modifiers, ElementsAre(15, 2));
  ExpectColumn(e->args[0], {"a"});
  EXPECT_EQ(e->location, 7);

  e = Expr("a::text[]");
  EXPECT_EQ(e->type.name, "text");
  EXPECT_EQ(e->type.array_bounds, 1);
  EXPECT_EQ(e->location, 8);  // PostgreSQL places a :: cast at the operator

  EXPECT_EQ(Expr("CAST(a AS double precision)")->type.name, "float8");
  EXPECT_EQ(Expr("a::int")->type.name, "int4");
  EXPECT_EQ(Expr("a::bigint")->type.name, "int8");
  EXPECT_EQ(Expr("a::varchar(3)")->type.name, "varchar");
  EXPECT_EQ(Expr("TIMESTAMP WITH TIME ZONE '2020-01-01'")->type.name, "timestamptz");
  EXPECT_EQ(Expr("a::timestamp")->type.name, "timestamp");
  EXPECT_EQ(Expr("CAST(a AS decimal)")->type.name, "numeric");
  EXPECT_EQ(Expr("a::myschema.mytype")->type.name, "myschema.mytype");
}

TEST(ParserExpressions, Operators) {
  ParsedExprPtr e = Expr("a + 1 * b");
  ASSERT_EQ(e->kind, ExprKind::kBinaryOp);
  EXPECT_EQ(e->op, "+");
  EXPECT_EQ(e->location, 9);
  ExpectColumn(e->args[0], {"a"});
  EXPECT_EQ(e->args[1]->op, "*");

  e = Expr("-a");
  ASSERT_EQ(e->kind, ExprKind::kUnaryOp);
  EXPECT_EQ(e->op, "-");
  ExpectColumn(e->args[0], {"a"});
  EXPECT_EQ(Expr("+a")->op, "+");
  EXPECT_EQ(Expr("~a")->op, "~");
  EXPECT_EQ(Expr("a || b")->op, "||");
  EXPECT_EQ(Expr("a ~ 'x'")->op, "~");
  EXPECT_EQ(Expr("a <> b")->op, "<>");
  EXPECT_EQ(Expr("a != b")->op, "<>");
  EXPECT_EQ(Expr("a OPERATOR(pg_catalog.+) b")->op, "+");

  e = Expr("a IN (1, 2)");
  ASSERT_EQ(e->kind, ExprKind::kInList);
  EXPECT_FALSE(e->negated);
  ASSERT_EQ(e->args.size(), 3u);
  ExpectInteger(e->args[2], 2);
  e = Expr("a NOT IN (3)");
  ASSERT_EQ(e->kind, ExprKind::kInList);
  EXPECT_TRUE(e->negated);

  e = Expr("a LIKE 'x%'");
  ASSERT_EQ(e->kind, ExprKind::kLike);
  EXPECT_FALSE(e->negated);
  EXPECT_FALSE(e->case_insensitive);
  ASSERT_EQ(e->args.size(), 2u);
  e = Expr("a NOT ILIKE 'y'");
  EXPECT_TRUE(e->negated);
  EXPECT_TRUE(e->case_insensitive);
  e = Expr("a LIKE 'x!%' ESCAPE '!'");
  ASSERT_EQ(e->args.size(), 3u);
  EXPECT_EQ(e->args[1]->constant.text, "x!%");
  EXPECT_EQ(e->args[2]->constant.text, "!");
  e = Expr("a NOT LIKE like_escape('x', 'y')");  // a user's call, not ESCAPE syntax
  ASSERT_EQ(e->args.size(), 2u);
  EXPECT_EQ(e->args[1]->kind, ExprKind::kFunction);

  e = Expr("a SIMILAR TO 'x'");
  ASSERT_EQ(e->kind, ExprKind::kSimilar);
  ASSERT_EQ(e->args.size(), 2u);
  e = Expr("a NOT SIMILAR TO 'y' ESCAPE 'z'");
  EXPECT_TRUE(e->negated);
  ASSERT_EQ(e->args.size(), 3u);
  EXPECT_EQ(e->args[2]->constant.text, "z");

  e = Expr("a BETWEEN 1 AND 2");
  ASSERT_EQ(e->kind, ExprKind::kBetween);
  EXPECT_FALSE(e->negated);
  EXPECT_FALSE(e->symmetric);
  ExpectInteger(e->args[1], 1);
  ExpectInteger(e->args[2], 2);
  e = Expr("a NOT BETWEEN SYMMETRIC 1 AND 2");
  EXPECT_TRUE(e->negated);
  EXPECT_TRUE(e->symmetric);
  e = Expr("a BETWEEN SYMMETRIC 1 AND 2");
  EXPECT_FALSE(e->negated);
  EXPECT_TRUE(e->symmetric);

  e = Expr("NULLIF(a, b)");
  ASSERT_EQ(e->kind, ExprKind::kNullIf);
  ASSERT_EQ(e->args.size(), 2u);
  e = Expr("a IS DISTINCT FROM b");
  ASSERT_EQ(e->kind, ExprKind::kIsDistinctFrom);
  EXPECT_FALSE(e->negated);
  EXPECT_TRUE(Expr("a IS NOT DISTINCT FROM b")->negated);

  e = Expr("a = ANY(ARRAY[1, 2])");
  ASSERT_EQ(e->kind, ExprKind::kQuantified);
  EXPECT_EQ(e->op, "=");
  EXPECT_FALSE(e->all);
  EXPECT_EQ(e->subquery, nullptr);
  ASSERT_EQ(e->args[1]->kind, ExprKind::kArray);
  EXPECT_EQ(e->args[1]->args.size(), 2u);
  e = Expr("a < ALL(b)");
  EXPECT_TRUE(e->all);
  EXPECT_EQ(e->op, "<");
}

TEST(ParserExpressions, BooleanLogicAndTests) {
  ParsedExprPtr e = Expr("a AND b AND c");
  ASSERT_EQ(e->kind, ExprKind::kAnd);
  EXPECT_EQ(e->args.size(), 3u);
  EXPECT_EQ(Expr("a OR b")->kind, ExprKind::kOr);
  e = Expr("NOT a");
  ASSERT_EQ(e->kind, ExprKind::kNot);
  ExpectColumn(e->args[0], {"a"});

  e = Expr("a IS NULL");
  ASSERT_EQ(e->kind, ExprKind::kIsNull);
  EXPECT_FALSE(e->negated);
  EXPECT_TRUE(Expr("a IS NOT NULL")->negated);
  EXPECT_TRUE(Expr("a NOTNULL")->negated);

  e = Expr("a IS TRUE");
  ASSERT_EQ(e->kind, ExprKind::kIsBool);
  EXPECT_EQ(e->bool_test, "true");
  EXPECT_FALSE(e->negated);
  e = Expr("a IS NOT FALSE");
  EXPECT_EQ(e->bool_test, "false");
  EXPECT_TRUE(e->negated);
  e = Expr("a IS UNKNOWN");
  EXPECT_EQ(e->bool_test, "unknown");
  EXPECT_FALSE(e->negated);
}

TEST(ParserExpressions, CaseCoalesceGreatest) {
  ParsedExprPtr e = Expr("CASE a WHEN 1 THEN 'x' ELSE 'y' END");
  ASSERT_EQ(e->kind, ExprKind::kCase);
  ASSERT_EQ(e->args.size(), 1u);
  ExpectColumn(e->args[0], {"a"});
  ASSERT_EQ(e->when_then.size(), 1u);
  ExpectInteger(e->when_then[0].first, 1);
  EXPECT_EQ(e->when_then[0].second->constant.text, "x");
  EXPECT_EQ(e->else_expr->constant.text, "y");

  e = Expr("CASE WHEN a THEN 1 WHEN b THEN 2 END");
  ASSERT_EQ(e->args.size(), 1u);
  EXPECT_EQ(e->args[0], nullptr);
  EXPECT_EQ(e->when_then.size(), 2u);
  EXPECT_EQ(e->else_expr, nullptr);

  e = Expr("COALESCE(a, b, 1)");
  ASSERT_EQ(e->kind, ExprKind::kCoalesce);
  EXPECT_EQ(e->args.size(), 3u);
  EXPECT_EQ(Expr("GREATEST(a, b)")->kind, ExprKind::kGreatest);
  EXPECT_EQ(Expr("LEAST(a, b)")->kind, ExprKind::kLeast);
}

TEST(ParserExpressions, Subqueries) {
  ParsedExprPtr e = Expr("EXISTS (SELECT 1)");
  ASSERT_EQ(e->kind, ExprKind::kExists);
  EXPECT_FALSE(e->negated);
  ASSERT_NE(e->subquery, nullptr);
  ExpectInteger(e->subquery->targets[0].expr, 1);
  e = Expr("NOT EXISTS (SELECT 1)");
  ASSERT_EQ(e->kind, ExprKind::kExists);
  EXPECT_TRUE(e->negated);

  e = Expr("a IN (SELECT b FROM t)");
  ASSERT_EQ(e->kind, ExprKind::kInSubquery);
  EXPECT_FALSE(e->negated);
  ExpectColumn(e->args[0], {"a"});
  ExpectColumn(e->subquery->targets[0].expr, {"b"});
  e = Expr("a NOT IN (SELECT b FROM t)");
  ASSERT_EQ(e->kind, ExprKind::kInSubquery);
  EXPECT_TRUE(e->negated);
  EXPECT_EQ(Expr("a = ANY (SELECT b FROM t)")->kind, ExprKind::kInSubquery);

  e = Expr("a > ANY (SELECT 1)");
  ASSERT_EQ(e->kind, ExprKind::kQuantified);
  EXPECT_EQ(e->op, ">");
  EXPECT_FALSE(e->all);
  ASSERT_NE(e->subquery, nullptr);
  e = Expr("a <> ALL (SELECT 1)");
  ASSERT_EQ(e->kind, ExprKind::kQuantified);
  EXPECT_EQ(e->op, "<>");
  EXPECT_TRUE(e->all);

  e = Expr("(SELECT max(x) FROM t)");
  ASSERT_EQ(e->kind, ExprKind::kScalarSubquery);
  EXPECT_EQ(e->subquery->targets[0].expr->names, std::vector<std::string>{"max"});
  // ARRAY(subquery): a kArray with the subquery instead of elements.
  e = Expr("ARRAY(SELECT x FROM t ORDER BY x)");
  ASSERT_EQ(e->kind, ExprKind::kArray);
  EXPECT_TRUE(e->args.empty());
  ASSERT_NE(e->subquery, nullptr);
  EXPECT_EQ(e->subquery->order_by.size(), 1u);
}

TEST(ParserExpressions, FunctionCalls) {
  ParsedExprPtr e = Expr("count(*)");
  ASSERT_EQ(e->kind, ExprKind::kFunction);
  EXPECT_EQ(e->names, std::vector<std::string>{"count"});
  EXPECT_TRUE(e->agg_star);
  EXPECT_TRUE(e->args.empty());

  e = Expr("count(DISTINCT a)");
  EXPECT_TRUE(e->agg_distinct);
  ASSERT_EQ(e->args.size(), 1u);
  EXPECT_THAT(e->arg_names, ElementsAre(""));

  e = Expr("string_agg(a, ',' ORDER BY b DESC NULLS LAST) FILTER (WHERE a > 1)");
  ASSERT_EQ(e->agg_order_by.size(), 1u);
  EXPECT_TRUE(e->agg_order_by[0].descending);
  EXPECT_EQ(e->agg_order_by[0].nulls_first, false);
  ExpectColumn(e->agg_order_by[0].expr, {"b"});
  ASSERT_NE(e->agg_filter, nullptr);
  EXPECT_EQ(e->agg_filter->op, ">");

  e = Expr("f(x => 1, 2)");
  EXPECT_THAT(e->arg_names, ElementsAre("x", ""));
  ExpectInteger(e->args[0], 1);
  ExpectInteger(e->args[1], 2);

  e = Expr("s.f(1)");
  EXPECT_THAT(e->names, ElementsAre("s", "f"));
  e = Expr("pg_catalog.lower('A')");
  EXPECT_THAT(e->names, ElementsAre("lower"));

  e = Expr("extract(year FROM d)");
  EXPECT_THAT(e->names, ElementsAre("extract"));
  ASSERT_EQ(e->args.size(), 2u);
  EXPECT_EQ(e->args[0]->constant.kind, Constant::Kind::kString);
  EXPECT_EQ(e->args[0]->constant.text, "year");
  ExpectColumn(e->args[1], {"d"});

  e = Expr("substring(a FROM 2 FOR 3)");
  EXPECT_THAT(e->names, ElementsAre("substring"));
  EXPECT_EQ(e->args.size(), 3u);
  EXPECT_THAT(Expr("trim(a)")->names, ElementsAre("btrim"));
  e = Expr("position('x' IN a)");
  EXPECT_THAT(e->names, ElementsAre("position"));
  ExpectColumn(e->args[0], {"a"});

  e = Expr("grouping(a, b)");
  EXPECT_THAT(e->names, ElementsAre("grouping"));
  EXPECT_EQ(e->args.size(), 2u);

  e = Expr("percentile_cont(0.5) WITHIN GROUP (ORDER BY a DESC)");
  EXPECT_TRUE(e->agg_within_group);
  EXPECT_EQ(e->args.size(), 1u);
  ASSERT_EQ(e->agg_order_by.size(), 1u);
  EXPECT_TRUE(e->agg_order_by[0].descending);
}

TEST(ParserExpressions, WindowFunctions) {
  SelectStmtPtr q = Query(
      "SELECT row_number() OVER (PARTITION BY a ORDER BY b ROWS BETWEEN 1 PRECEDING AND "
      "UNBOUNDED FOLLOWING), sum(x) OVER w, avg(x) OVER (w ORDER BY c), "
      "sum(x) OVER (ORDER BY c RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING), "
      "sum(x) OVER (GROUPS 3 PRECEDING) FROM t WINDOW w AS (PARTITION BY a)");
  ASSERT_EQ(q->targets.size(), 5u);
  const WindowDef& w0 = *q->targets[0].expr->over;
  ASSERT_EQ(w0.partition_by.size(), 1u);
  ExpectColumn(w0.partition_by[0], {"a"});
  ASSERT_EQ(w0.order_by.size(), 1u);
  EXPECT_TRUE(w0.frame.explicit_frame);
  EXPECT_EQ(w0.frame.mode, WindowFrame::Mode::kRows);
  EXPECT_EQ(w0.frame.start.kind, FrameBound::Kind::kPreceding);
  ExpectInteger(w0.frame.start.offset, 1);
  EXPECT_EQ(w0.frame.end.kind, FrameBound::Kind::kUnboundedFollowing);

  const WindowDef& w1 = *q->targets[1].expr->over;
  EXPECT_EQ(w1.name, "w");  // OVER w names the window
  EXPECT_FALSE(w1.frame.explicit_frame);
  EXPECT_EQ(w1.frame.mode, WindowFrame::Mode::kRange);
  EXPECT_EQ(w1.frame.start.kind, FrameBound::Kind::kUnboundedPreceding);
  EXPECT_EQ(w1.frame.end.kind, FrameBound::Kind::kCurrentRow);

  const WindowDef& w2 = *q->targets[2].expr->over;
  EXPECT_EQ(w2.ref_name, "w");
  EXPECT_EQ(w2.order_by.size(), 1u);

  const WindowDef& w3 = *q->targets[3].expr->over;
  EXPECT_EQ(w3.frame.mode, WindowFrame::Mode::kRange);
  EXPECT_EQ(w3.frame.start.kind, FrameBound::Kind::kCurrentRow);
  EXPECT_EQ(w3.frame.end.kind, FrameBound::Kind::kFollowing);
  ExpectInteger(w3.frame.end.offset, 2);

  const WindowDef& w4 = *q->targets[4].expr->over;
  EXPECT_EQ(w4.frame.mode, WindowFrame::Mode::kGroups);
  EXPECT_EQ(w4.frame.start.kind, FrameBound::Kind::kPreceding);
  EXPECT_EQ(w4.frame.end.kind, FrameBound::Kind::kCurrentRow);

  ASSERT_EQ(q->windows.size(), 1u);
  EXPECT_EQ(q->windows[0].name, "w");
  ASSERT_EQ(q->windows[0].partition_by.size(), 1u);

  EXPECT_THAT(ParseStatus("SELECT sum(x) OVER (ORDER BY a ROWS UNBOUNDED PRECEDING EXCLUDE "
                          "TIES) FROM t"),
              IsErrorWith(StatusCode::kNotSupported, "EXCLUDE clause is not supported"));
}

TEST(ParserExpressions, ValueFunctionsReferencesAndRows) {
  EXPECT_EQ(Expr("CURRENT_DATE")->value_function, "current_date");
  EXPECT_EQ(Expr("CURRENT_DATE")->kind, ExprKind::kCurrentValue);
  EXPECT_EQ(Expr("current_timestamp")->value_function, "current_timestamp");
  EXPECT_EQ(Expr("LOCALTIMESTAMP")->value_function, "localtimestamp");
  EXPECT_EQ(Expr("CURRENT_TIME")->value_function, "current_time");
  EXPECT_EQ(Expr("LOCALTIME")->value_function, "localtime");
  EXPECT_THAT(ParseStatus("SELECT current_timestamp(3)"),
              IsErrorWith(StatusCode::kNotSupported,
                          "a precision on CURRENT_TIMESTAMP is not supported (line 1, column 8)"));

  ExpectColumn(Expr("t.a"), {"t", "a"});
  ExpectColumn(Expr("\"A b\""), {"A b"});
  ExpectColumn(Expr("db.t.a"), {"db", "t", "a"});
  ParsedExprPtr e = Expr("*");
  EXPECT_EQ(e->kind, ExprKind::kStar);
  EXPECT_TRUE(e->names.empty());
  e = Expr("t.*");
  EXPECT_EQ(e->kind, ExprKind::kStar);
  EXPECT_THAT(e->names, ElementsAre("t"));

  e = Expr("$2");
  EXPECT_EQ(e->kind, ExprKind::kParam);
  EXPECT_EQ(e->param_index, 2);

  e = Expr("a[1][2]");
  ASSERT_EQ(e->kind, ExprKind::kSubscript);
  ExpectInteger(e->args[1], 2);
  ASSERT_EQ(e->args[0]->kind, ExprKind::kSubscript);
  ExpectColumn(e->args[0]->args[0], {"a"});
  e = Expr("(a).b");
  ASSERT_EQ(e->kind, ExprKind::kFieldSelect);
  EXPECT_EQ(e->names, std::vector<std::string>{"b"});
  ExpectColumn(e->args[0], {"a"});
  e = Expr("a[1:2]");
  ASSERT_EQ(e->kind, ExprKind::kSubscript);
  EXPECT_TRUE(e->slice);
  ExpectInteger(e->args[1], 1);
  ExpectInteger(e->args[2], 2);
  e = Expr("a[:2]");
  ASSERT_EQ(e->kind, ExprKind::kSubscript);
  EXPECT_TRUE(e->slice);
  EXPECT_EQ(e->args[1], nullptr);
  ExpectInteger(e->args[2], 2);

  e = Expr("ROW(1, 2)");
  ASSERT_EQ(e->kind, ExprKind::kRow);
  EXPECT_EQ(e->args.size(), 2u);
  EXPECT_EQ(Expr("(1, 'a')")->kind, ExprKind::kRow);
  e = Expr("ARRAY[1, 2, 3]");
  ASSERT_EQ(e->kind, ExprKind::kArray);
  EXPECT_EQ(e->args.size(), 3u);
  EXPECT_THAT(
      ParseStatus("SELECT a COLLATE \"C\" FROM t"),
      IsErrorWith(StatusCode::kNotSupported, "COLLATE is not supported (line 1, column 10)"));
}

TEST(ParserSelect, ClausesInOrder) {
  SelectStmtPtr q = Query(
      "SELECT DISTINCT a AS x, b FROM s.t AS u(c1, c2) WHERE a > 1 GROUP BY a, b HAVING "
      "count(*) > 2 ORDER BY 1 DESC NULLS FIRST, b LIMIT 5 OFFSET 2");
  EXPECT_TRUE(q->distinct);
  EXPECT_TRUE(q->distinct_on.empty());
  ASSERT_EQ(q->targets.size(), 2u);
  EXPECT_EQ(q->targets[0].alias, "x");
  EXPECT_EQ(q->targets[0].location, 16);
  EXPECT_EQ(q->targets[1].alias, "");
  ASSERT_EQ(q->from.size(), 1u);
  EXPECT_EQ(q->from[0]->kind, TableRef::Kind::kTable);
  EXPECT_THAT(q->from[0]->names, ElementsAre("s", "t"));
  EXPECT_EQ(q->from[0]->alias, "u");
  EXPECT_THAT(q->from[0]->column_aliases, ElementsAre("c1", "c2"));
  EXPECT_EQ(q->from[0]->location, 31);
  EXPECT_EQ(q->where->op, ">");
  EXPECT_EQ(q->group_by.size(), 2u);
  EXPECT_TRUE(q->grouping_sets.empty());
  EXPECT_EQ(q->having->op, ">");
  ASSERT_EQ(q->order_by.size(), 2u);
  EXPECT_TRUE(q->order_by[0].descending);
  EXPECT_EQ(q->order_by[0].nulls_first, true);
  EXPECT_FALSE(q->order_by[1].descending);
  EXPECT_FALSE(q->order_by[1].nulls_first.has_value());
  ExpectInteger(q->limit, 5);
  ExpectInteger(q->offset, 2);

  q = Query("SELECT DISTINCT ON (a, b) a FROM t");
  EXPECT_TRUE(q->distinct);
  EXPECT_EQ(q->distinct_on.size(), 2u);

  q = Query("SELECT a FROM t LIMIT ALL");
  EXPECT_EQ(q->limit, nullptr);
  q = Query("SELECT a FROM t OFFSET 3 ROWS FETCH FIRST 4 ROWS ONLY");
  ExpectInteger(q->limit, 4);
  ExpectInteger(q->offset, 3);
  q = Query("SELECT a FROM t LIMIT -1");
  ExpectInteger(q->limit, -1);
  EXPECT_THAT(ParseStatus("SELECT a FROM t FETCH FIRST 1 ROW WITH TIES"),
              IsError(StatusCode::kSyntax));  // WITH TIES needs ORDER BY
  EXPECT_THAT(ParseStatus("SELECT a FROM t ORDER BY a FETCH FIRST 1 ROW WITH TIES"),
              IsErrorWith(StatusCode::kNotSupported, "WITH TIES"));
  EXPECT_THAT(ParseStatus("SELECT a INTO x FROM t"),
              IsErrorWith(StatusCode::kNotSupported, "SELECT INTO"));
  EXPECT_THAT(ParseStatus("SELECT a FROM t FOR UPDATE"),
              IsErrorWith(StatusCode::kNotSupported, "FOR UPDATE/SHARE"));
}

TEST(ParserSelect, SetOperationsValuesAndWith) {
  SelectStmtPtr q = Query(
      "WITH x(a) AS MATERIALIZED (SELECT 1), y AS (SELECT 2) SELECT a FROM x UNION ALL "
      "SELECT b FROM y EXCEPT SELECT 3 ORDER BY 1 LIMIT 1");
  ASSERT_NE(q->with, nullptr);
  EXPECT_FALSE(q->with->recursive);
  ASSERT_EQ(q->with->ctes.size(), 2u);
  EXPECT_EQ(q->with->ctes[0].name, "x");
  EXPECT_THAT(q->with->ctes[0].column_names, ElementsAre("a"));
  EXPECT_TRUE(q->with->ctes[0].materialized);
  EXPECT_FALSE(q->with->ctes[1].materialized);
  EXPECT_EQ(q->set_op, SelectStmt::SetOp::kExcept);
  EXPECT_FALSE(q->set_all);
  ASSERT_EQ(q->inputs.size(), 2u);
  EXPECT_EQ(q->inputs[0]->set_op, SelectStmt::SetOp::kUnion);
  EXPECT_TRUE(q->inputs[0]->set_all);
  EXPECT_THAT(q->inputs[0]->inputs[0]->from[0]->names, ElementsAre("x"));
  ExpectInteger(q->inputs[1]->targets[0].expr, 3);
  EXPECT_EQ(q->order_by.size(), 1u);
  ExpectInteger(q->limit, 1);

  EXPECT_EQ(Query("SELECT 1 INTERSECT SELECT 2")->set_op, SelectStmt::SetOp::kIntersect);

  // A chain of one kind of UNION is one list of inputs; a different kind, or an input with
  // its own ORDER BY or LIMIT, starts a new level.
  q = Query("SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4");
  ASSERT_EQ(q->inputs.size(), 4u);
  for (int i = 0; i < 4; ++i)
    ExpectInteger(q->inputs[static_cast<size_t>(i)]->targets[0].expr, i + 1);
  q = Query("SELECT 1 UNION SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4");
  ASSERT_EQ(q->inputs.size(), 3u);
  EXPECT_FALSE(q->inputs[0]->set_all);
  ASSERT_EQ(q->inputs[0]->inputs.size(), 2u);
  q = Query("(SELECT 1 UNION ALL SELECT 2 LIMIT 1) UNION ALL SELECT 3");
  ASSERT_EQ(q->inputs.size(), 2u);
  EXPECT_EQ(q->inputs[0]->inputs.size(), 2u);
  EXPECT_TRUE(Query("WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r")->with->recursive);

  q = Query("VALUES (1, 'a'), (2, 'b')");
  ASSERT_EQ(q->values.size(), 2u);
  ASSERT_EQ(q->values[1].size(), 2u);
  ExpectInteger(q->values[1][0], 2);
  EXPECT_EQ(q->values[1][1]->constant.text, "b");
}

TEST(ParserSelect, FromItemsAndJoins) {
  SelectStmtPtr q = Query(
      "SELECT * FROM a CROSS JOIN b, c LEFT JOIN d USING (x, y) FULL JOIN e ON true, "
      "f NATURAL JOIN g, h RIGHT OUTER JOIN i ON h.k = i.k, j INNER JOIN k ON 1 = 1, "
      "LATERAL (SELECT 1) AS s(v), generate_series(1, 3) AS gs(n), (VALUES (1)) v(z)");
  ASSERT_EQ(q->from.size(), 8u);
  const TableRef& cross = *q->from[0];
  EXPECT_EQ(cross.kind, TableRef::Kind::kJoin);
  EXPECT_EQ(cross.join_kind, JoinKind::kCross);
  EXPECT_THAT(cross.left->names, ElementsAre("a"));
  EXPECT_THAT(cross.right->names, ElementsAre("b"));
  EXPECT_EQ(cross.location, 14);

  const TableRef& full = *q->from[1];
  EXPECT_EQ(full.join_kind, JoinKind::kFull);
  ASSERT_NE(full.on, nullptr);
  EXPECT_EQ(full.left->join_kind, JoinKind::kLeft);
  EXPECT_THAT(full.left->using_columns, ElementsAre("x", "y"));

  EXPECT_EQ(q->from[2]->join_kind, JoinKind::kInner);
  EXPECT_TRUE(q->from[2]->natural);
  EXPECT_EQ(q->from[3]->join_kind, JoinKind::kRight);
  EXPECT_EQ(q->from[3]->on->op, "=");
  EXPECT_EQ(q->from[4]->join_kind, JoinKind::kInner);

  const TableRef& lateral = *q->from[5];
  EXPECT_EQ(lateral.kind, TableRef::Kind::kSubquery);
  EXPECT_TRUE(lateral.lateral);
  EXPECT_EQ(lateral.alias, "s");
  EXPECT_THAT(lateral.column_aliases, ElementsAre("v"));

  const TableRef& fn = *q->from[6];
  EXPECT_EQ(fn.kind, TableRef::Kind::kFunction);
  EXPECT_THAT(fn.function->names, ElementsAre("generate_series"));
  EXPECT_EQ(fn.function->args.size(), 2u);
  EXPECT_EQ(fn.alias, "gs");
  EXPECT_THAT(fn.column_aliases, ElementsAre("n"));

  const TableRef& values = *q->from[7];
  EXPECT_EQ(values.kind, TableRef::Kind::kSubquery);
  EXPECT_EQ(values.subquery->values.size(), 1u);
  EXPECT_EQ(values.alias, "v");

  SelectStmtPtr ordinality =
      Query("SELECT * FROM generate_series(1, 2) WITH ORDINALITY AS g(x, n)");
  const TableRef& series = *ordinality->from[0];
  EXPECT_EQ(series.kind, TableRef::Kind::kFunction);
  EXPECT_TRUE(series.ordinality);
  EXPECT_THAT(series.column_aliases, ElementsAre("x", "n"));
  EXPECT_FALSE(fn.ordinality);
  EXPECT_THAT(ParseStatus("SELECT * FROM t TABLESAMPLE SYSTEM (10)"),
              IsErrorWith(StatusCode::kNotSupported, "TABLESAMPLE is not supported"));
}

TEST(ParserSelect, GroupingSets) {
  SelectStmtPtr q = Query("SELECT a, b, c FROM t GROUP BY ROLLUP (a, (b, c))");
  ASSERT_EQ(q->group_by.size(), 3u);
  ExpectColumn(q->group_by[0], {"a"});
  ExpectColumn(q->group_by[2], {"c"});
  EXPECT_EQ(q->grouping_sets, (std::vector<std::vector<int>>{{0, 1, 2}, {0}, {}}));

  q = Query("SELECT 1 FROM t GROUP BY CUBE (a, b)");
  EXPECT_EQ(q->grouping_sets, (std::vector<std::vector<int>>{{0, 1}, {0}, {1}, {}}));

  q = Query("SELECT 1 FROM t GROUP BY GROUPING SETS ((a, b), (a), ())");
  EXPECT_EQ(q->group_by.size(), 2u);
  EXPECT_EQ(q->grouping_sets, (std::vector<std::vector<int>>{{0, 1}, {0}, {}}));

  // A plain item combines with every set of the others; the same expression is one entry.
  q = Query("SELECT 1 FROM t GROUP BY x, ROLLUP (a), GROUPING SETS (b, x)");
  ASSERT_EQ(q->group_by.size(), 3u);
  ExpectColumn(q->group_by[0], {"x"});
  ExpectColumn(q->group_by[1], {"a"});
  ExpectColumn(q->group_by[2], {"b"});
  EXPECT_EQ(q->grouping_sets,
            (std::vector<std::vector<int>>{{0, 1, 2}, {0, 1, 0}, {0, 2}, {0, 0}}));

  q = Query("SELECT count(*) FROM t GROUP BY ()");
  EXPECT_TRUE(q->group_by.empty());
  EXPECT_EQ(q->grouping_sets, (std::vector<std::vector<int>>{{}}));

  EXPECT_THAT(ParseStatus("SELECT 1 FROM t GROUP BY CUBE (a, b, c, d, e, f, g, h, i, j, k, l, m)"),
              IsErrorWith(StatusCode::kNotSupported, "more than 4096 grouping sets"));
}

TEST(ParserStatements, Copy) {
  Statement s = ParseOne(
      "COPY s.t (a, b) FROM 'f.csv' WITH (FORMAT csv, HEADER, DELIMITER ';', NULL 'x', "
      "FORCE_NOT_NULL (a, b), ON_ERROR ignore)");
  auto& from = std::get<CopyStatement>(s.body);
  EXPECT_TRUE(from.from);
  EXPECT_THAT(from.table, ElementsAre("s", "t"));
  EXPECT_THAT(from.columns, ElementsAre("a", "b"));
  EXPECT_EQ(from.file, "f.csv");
  ASSERT_EQ(from.options.size(), 6u);
  EXPECT_EQ(from.options[0].name, "format");
  EXPECT_EQ(from.options[0].value, "csv");
  EXPECT_EQ(from.options[1].name, "header");
  EXPECT_FALSE(from.options[1].has_value);
  EXPECT_EQ(from.options[2].value, ";");
  EXPECT_EQ(from.options[3].name, "null");
  EXPECT_THAT(from.options[4].columns, ElementsAre("a", "b"));
  EXPECT_EQ(from.options[5].value, "ignore");

  s = ParseOne("COPY (SELECT 1 AS x) TO 'out.parquet' (FORMAT parquet, FORCE_QUOTE *)");
  auto& to = std::get<CopyStatement>(s.body);
  EXPECT_FALSE(to.from);
  EXPECT_TRUE(to.table.empty());
  ASSERT_NE(to.query, nullptr);
  EXPECT_EQ(to.query->targets.size(), 1u);
  EXPECT_TRUE(to.options[1].star);

  // The old syntax spells the options as keywords.
  s = ParseOne("COPY t FROM 'f' CSV HEADER");
  EXPECT_EQ(std::get<CopyStatement>(s.body).options.size(), 2u);
  EXPECT_TRUE(std::get<CopyStatement>(ParseOne("COPY t FROM STDIN").body).file.empty());
  EXPECT_THAT(ParseStatus("COPY t FROM PROGRAM 'cat f'"),
              IsErrorWith(StatusCode::kNotSupported, "COPY FROM PROGRAM is not supported"));
  EXPECT_THAT(ParseStatus("COPY t FROM 'f' WHERE a > 1"),
              IsErrorWith(StatusCode::kNotSupported, "COPY FROM ... WHERE is not supported"));
  EXPECT_THAT(ParseStatus("COPY (INSERT INTO t VALUES (1)) TO 'f'"),
              IsErrorWith(StatusCode::kNotSupported, "COPY of a statement other than a query"));
}

TEST(ParserStatements, InsertDelete) {
  Statement s = ParseOne("INSERT INTO s.t (a, b) SELECT 1, 2");
  auto& ins = std::get<InsertStatement>(s.body);
  EXPECT_THAT(ins.table, ElementsAre("s", "t"));
  EXPECT_THAT(ins.columns, ElementsAre("a", "b"));
  EXPECT_EQ(ins.query->targets.size(), 2u);

  s = ParseOne("INSERT INTO t VALUES (1), (-2)");
  auto& ins2 = std::get<InsertStatement>(s.body);
  EXPECT_TRUE(ins2.columns.empty());
  ASSERT_EQ(ins2.query->values.size(), 2u);
  ExpectInteger(ins2.query->values[1][0], -2);

  EXPECT_THAT(
      ParseStatus("INSERT INTO t VALUES (DEFAULT)"),
      IsErrorWith(StatusCode::kNotSupported, "DEFAULT is not supported (line 1, column 23)"));
  EXPECT_THAT(ParseStatus("INSERT INTO t DEFAULT VALUES"),
              IsErrorWith(StatusCode::kNotSupported, "DEFAULT VALUES"));
  EXPECT_THAT(ParseStatus("INSERT INTO t VALUES (1) RETURNING *"),
              IsErrorWith(StatusCode::kNotSupported, "RETURNING"));
  EXPECT_THAT(ParseStatus("INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING"),
              IsErrorWith(StatusCode::kNotSupported, "ON CONFLICT"));

  s = ParseOne("DELETE FROM t WHERE a = 1");
  auto& del = std::get<DeleteStatement>(s.body);
  EXPECT_THAT(del.table, ElementsAre("t"));
  EXPECT_EQ(del.where->op, "=");
  EXPECT_EQ(std::get<DeleteStatement>(ParseOne("DELETE FROM t").body).where, nullptr);

  s = ParseOne("DELETE FROM t AS x USING u, v WHERE x.a = u.a");
  auto& using_delete = std::get<DeleteStatement>(s.body);
  EXPECT_EQ(using_delete.alias, "x");
  EXPECT_EQ(using_delete.using_items.size(), 2u);
  EXPECT_THAT(ParseStatus("DELETE FROM t RETURNING *"),
              IsErrorWith(StatusCode::kNotSupported, "RETURNING"));
}

TEST(ParserStatements, UpdateAndMerge) {
  Statement s = ParseOne("UPDATE t AS x SET a = 1, (b, c) = (2, DEFAULT) FROM u WHERE x.a = u.a");
  auto& update = std::get<UpdateStatement>(s.body);
  EXPECT_THAT(update.table, ElementsAre("t"));
  EXPECT_EQ(update.alias, "x");
  ASSERT_EQ(update.assignments.size(), 3u);
  EXPECT_EQ(update.assignments[0].column, "a");
  EXPECT_EQ(update.assignments[1].column, "b");
  EXPECT_EQ(update.assignments[1].value->constant.integer, 2);
  EXPECT_EQ(update.assignments[2].column, "c");
  EXPECT_EQ(update.assignments[2].value, nullptr);  // DEFAULT
  EXPECT_EQ(update.from.size(), 1u);
  EXPECT_NE(update.where, nullptr);
  EXPECT_THAT(ParseStatus("UPDATE t SET (a, b) = (1)"), IsError(StatusCode::kBind));
  EXPECT_THAT(ParseStatus("UPDATE t SET a.b = 1"), IsError(StatusCode::kNotSupported));

  s = ParseOne(
      "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED AND s.x > 1 THEN UPDATE SET x = s.x "
      "WHEN MATCHED THEN DELETE WHEN NOT MATCHED AND s.x < 0 THEN DO NOTHING "
      "WHEN NOT MATCHED THEN INSERT (id, x) VALUES (s.id, DEFAULT)");
  auto& merge = std::get<MergeStatement>(s.body);
  EXPECT_THAT(merge.table, ElementsAre("t"));
  ASSERT_EQ(merge.actions.size(), 4u);
  EXPECT_TRUE(merge.actions[0].matched);
  EXPECT_EQ(merge.actions[0].kind, MergeAction::Kind::kUpdate);
  EXPECT_NE(merge.actions[0].condition, nullptr);
  EXPECT_EQ(merge.actions[1].kind, MergeAction::Kind::kDelete);
  EXPECT_FALSE(merge.actions[2].matched);
  EXPECT_EQ(merge.actions[2].kind, MergeAction::Kind::kNothing);
  EXPECT_EQ(merge.actions[3].kind, MergeAction::Kind::kInsert);
  EXPECT_THAT(merge.actions[3].insert_columns, ElementsAre("id", "x"));
  ASSERT_EQ(merge.actions[3].insert_values.size(), 2u);
  EXPECT_EQ(merge.actions[3].insert_values[1], nullptr);  // DEFAULT
}

TEST(ParserStatements, CreateAndDrop) {
  Statement s = ParseOne("CREATE SCHEMA IF NOT EXISTS sales");
  auto& cs = std::get<CreateSchemaStatement>(s.body);
  EXPECT_THAT(cs.name, ElementsAre("sales"));
  EXPECT_TRUE(cs.if_not_exists);

  s = ParseOne(
      "CREATE TABLE IF NOT EXISTS s.t (a int NOT NULL, b varchar(10) DEFAULT 'x', "
      "c numeric(10, 2) NULL, d timestamptz) WITH (partitioning = 'day(d)', "
      "format_version = 2, compression = zstd, neg = -3, ratio = 1.5, flag = true)");
  auto& ct = std::get<CreateTableStatement>(s.body);
  EXPECT_THAT(ct.table, ElementsAre("s", "t"));
  EXPECT_TRUE(ct.if_not_exists);
  ASSERT_EQ(ct.columns.size(), 4u);
  EXPECT_EQ(ct.columns[0].name, "a");
  EXPECT_EQ(ct.columns[0].type.name, "int4");
  EXPECT_TRUE(ct.columns[0].not_null);
  EXPECT_EQ(ct.columns[0].location, 32);
  EXPECT_EQ(ct.columns[1].type.name, "varchar");
  EXPECT_THAT(ct.columns[1].type.modifiers, ElementsAre(10));
  EXPECT_FALSE(ct.columns[1].not_null);
  EXPECT_EQ(ct.columns[1].default_value->constant.text, "x");
  EXPECT_FALSE(ct.columns[2].not_null);
  EXPECT_EQ(ct.columns[3].type.name, "timestamptz");
  ASSERT_EQ(ct.options.size(), 6u);
  std::vector<std::pair<std::string, std::string>> options;
  for (const Option& o : ct.options) options.emplace_back(o.name, o.value);
  EXPECT_THAT(options, ElementsAre(std::pair<std::string, std::string>{"partitioning", "day(d)"},
                                   std::pair<std::string, std::string>{"format_version", "2"},
                                   std::pair<std::string, std::string>{"compression", "zstd"},
                                   std::pair<std::string, std::string>{"neg", "-3"},
                                   std::pair<std::string, std::string>{"ratio", "1.5"},
                                   std::pair<std::string, std::string>{"flag", "true"}));
  EXPECT_EQ(ct.as_query, nullptr);

  EXPECT_THAT(ParseStatus("CREATE TABLE t (a int PRIMARY KEY)"),
              IsErrorWith(StatusCode::kNotSupported,
                          "the column constraint PRIMARY (on column a) is not supported (line 1, "
                          "column 23)"));
  EXPECT_THAT(ParseStatus("CREATE TABLE t (a int, UNIQUE (a))"),
              IsErrorWith(StatusCode::kNotSupported, "table constraints is not supported"));
  EXPECT_TRUE(
      std::get<CreateTableStatement>(ParseOne("CREATE TEMP TABLE t (a int)").body).temporary);
  EXPECT_TRUE(std::get<CreateTableStatement>(
                  ParseOne("CREATE TEMPORARY TABLE t ON COMMIT PRESERVE ROWS AS SELECT 1").body)
                  .temporary);
  EXPECT_FALSE(std::get<CreateTableStatement>(ParseOne("CREATE TABLE t (a int)").body).temporary);
  EXPECT_THAT(ParseStatus("CREATE TEMP TABLE t (a int) ON COMMIT DROP"),
              IsErrorWith(StatusCode::kNotSupported, "ON COMMIT DROP is not supported"));
  EXPECT_THAT(ParseStatus("CREATE TEMP TABLE t ON COMMIT DELETE ROWS AS SELECT 1"),
              IsErrorWith(StatusCode::kNotSupported, "ON COMMIT DELETE ROWS is not supported"));
  EXPECT_THAT(
      ParseStatus("CREATE TABLE t (a int) ON COMMIT PRESERVE ROWS"),
      IsErrorWith(StatusCode::kInvalidArgument, "ON COMMIT can only be used on temporary tables"));

  s = ParseOne("CREATE TABLE t2 WITH (format_version = 1) AS SELECT 1 AS x");
  auto& ctas = std::get<CreateTableStatement>(s.body);
  EXPECT_THAT(ctas.table, ElementsAre("t2"));
  ASSERT_NE(ctas.as_query, nullptr);
  EXPECT_EQ(ctas.as_query->targets[0].alias, "x");
  ASSERT_EQ(ctas.options.size(), 1u);
  EXPECT_EQ(ctas.options[0].value, "1");

  s = ParseOne("DROP TABLE IF EXISTS a, s.b CASCADE");
  auto& drop = std::get<DropStatement>(s.body);
  EXPECT_EQ(drop.object, DropStatement::ObjectKind::kTable);
  EXPECT_EQ(drop.names, (std::vector<std::vector<std::string>>{{"a"}, {"s", "b"}}));
  EXPECT_TRUE(drop.if_exists);
  EXPECT_TRUE(drop.cascade);
  s = ParseOne("DROP SCHEMA s");
  auto& drop_schema = std::get<DropStatement>(s.body);
  EXPECT_EQ(drop_schema.object, DropStatement::ObjectKind::kSchema);
  EXPECT_EQ(drop_schema.names, (std::vector<std::vector<std::string>>{{"s"}}));
  EXPECT_FALSE(drop_schema.if_exists);
  EXPECT_FALSE(drop_schema.cascade);
  EXPECT_THAT(ParseStatus("DROP INDEX i"),
              IsErrorWith(StatusCode::kNotSupported, "DROP of a index is not supported"));
}

TEST(ParserStatements, AlterTable) {
  Statement s = ParseOne(
      "ALTER TABLE IF EXISTS s.t ADD COLUMN IF NOT EXISTS x int NOT NULL, DROP COLUMN IF "
      "EXISTS y, ALTER COLUMN z TYPE bigint, SET (a = 1, b = 'x'), RESET (a), ALTER COLUMN q "
      "SET NOT NULL, ALTER COLUMN q DROP NOT NULL");
  auto& alter = std::get<AlterTableStatement>(s.body);
  EXPECT_THAT(alter.table, ElementsAre("s", "t"));
  EXPECT_TRUE(alter.if_exists);
  ASSERT_EQ(alter.commands.size(), 7u);
  using K = AlterTableCommand::Kind;
  EXPECT_EQ(alter.commands[0].kind, K::kAddColumn);
  EXPECT_EQ(alter.commands[0].column.name, "x");
  EXPECT_EQ(alter.commands[0].column.type.name, "int4");
  EXPECT_TRUE(alter.commands[0].column.not_null);
  EXPECT_TRUE(alter.commands[0].if_exists);
  EXPECT_EQ(alter.commands[1].kind, K::kDropColumn);
  EXPECT_EQ(alter.commands[1].name, "y");
  EXPECT_TRUE(alter.commands[1].if_exists);
  EXPECT_EQ(alter.commands[2].kind, K::kAlterColumnType);
  EXPECT_EQ(alter.commands[2].name, "z");
  EXPECT_EQ(alter.commands[2].column.name, "z");
  EXPECT_EQ(alter.commands[2].column.type.name, "int8");
  EXPECT_EQ(alter.commands[3].kind, K::kSetOptions);
  ASSERT_EQ(alter.commands[3].options.size(), 2u);
  EXPECT_EQ(alter.commands[3].options[0].name, "a");
  EXPECT_EQ(alter.commands[3].options[0].value, "1");
  EXPECT_EQ(alter.commands[3].options[1].value, "x");
  EXPECT_EQ(alter.commands[4].kind, K::kResetOptions);
  ASSERT_EQ(alter.commands[4].options.size(), 1u);
  EXPECT_EQ(alter.commands[4].options[0].name, "a");
  EXPECT_EQ(alter.commands[5].kind, K::kSetNotNull);
  EXPECT_EQ(alter.commands[5].name, "q");
  EXPECT_EQ(alter.commands[6].kind, K::kDropNotNull);

  s = ParseOne("ALTER TABLE t RENAME COLUMN a TO b");
  auto& rename = std::get<AlterTableStatement>(s.body);
  EXPECT_THAT(rename.table, ElementsAre("t"));
  ASSERT_EQ(rename.commands.size(), 1u);
  EXPECT_EQ(rename.commands[0].kind, K::kRenameColumn);
  EXPECT_EQ(rename.commands[0].name, "a");
  EXPECT_EQ(rename.commands[0].new_name, "b");
  s = ParseOne("ALTER TABLE s.t RENAME TO u");
  auto& rename_table = std::get<AlterTableStatement>(s.body);
  EXPECT_THAT(rename_table.table, ElementsAre("s", "t"));
  EXPECT_EQ(rename_table.commands[0].kind, K::kRenameTable);
  EXPECT_THAT(rename_table.commands[0].new_table, ElementsAre("u"));
  EXPECT_THAT(ParseStatus("ALTER TABLE t ADD CONSTRAINT c UNIQUE (a)"),
              IsErrorWith(StatusCode::kNotSupported, "ALTER TABLE ... ADD CONSTRAINT"));
}

TEST(ParserStatements, SetShowExplainCall) {
  auto set = std::get<SetStatement>(ParseOne("SET target_partitions = 4").body);
  EXPECT_EQ(set.name, "target_partitions");
  EXPECT_THAT(set.values, ElementsAre("4"));
  EXPECT_FALSE(set.reset);
  EXPECT_FALSE(set.local);
  set = std::get<SetStatement>(ParseOne("SET LOCAL search_path TO a, 'b'").body);
  EXPECT_EQ(set.name, "search_path");
  EXPECT_THAT(set.values, ElementsAre("a", "b"));
  EXPECT_TRUE(set.local);
  set = std::get<SetStatement>(ParseOne("SET x.y = -1").body);
  EXPECT_EQ(set.name, "x.y");
  EXPECT_THAT(set.values, ElementsAre("-1"));
  set = std::get<SetStatement>(ParseOne("SET enable_x = on").body);
  EXPECT_THAT(set.values, ElementsAre("on"));
  set = std::get<SetStatement>(ParseOne("SET TIME ZONE 'UTC'").body);
  EXPECT_EQ(set.name, "timezone");
  EXPECT_THAT(set.values, ElementsAre("UTC"));
  set = std::get<SetStatement>(ParseOne("SET x TO DEFAULT").body);
  EXPECT_TRUE(set.reset);
  EXPECT_EQ(set.name, "x");
  set = std::get<SetStatement>(ParseOne("RESET batch_size").body);
  EXPECT_TRUE(set.reset);
  EXPECT_EQ(set.name, "batch_size");
  set = std::get<SetStatement>(ParseOne("RESET ALL").body);
  EXPECT_TRUE(set.reset);
  EXPECT_EQ(set.name, "all");

  EXPECT_EQ(std::get<ShowStatement>(ParseOne("SHOW batch_size").body).name, "batch_size");
  EXPECT_EQ(std::get<ShowStatement>(ParseOne("SHOW ALL").body).name, "all");

  Statement s = ParseOne("EXPLAIN SELECT 1");
  auto explain = std::get<std::shared_ptr<ExplainStatement>>(s.body);
  EXPECT_FALSE(explain->analyze);
  EXPECT_FALSE(explain->verbose);
  EXPECT_TRUE(std::holds_alternative<SelectStatement>(explain->statement.body));
  EXPECT_EQ(explain->statement.text, "EXPLAIN SELECT 1");
  explain = std::get<std::shared_ptr<ExplainStatement>>(
      ParseOne("EXPLAIN ANALYZE VERBOSE SELECT 1").body);
  EXPECT_TRUE(explain->analyze);
  EXPECT_TRUE(explain->verbose);
  explain = std::get<std::shared_ptr<ExplainStatement>>(
      ParseOne("EXPLAIN (ANALYZE, VERBOSE false) INSERT INTO t VALUES (1)").body);
  EXPECT_TRUE(explain->analyze);
  EXPECT_FALSE(explain->verbose);
  EXPECT_TRUE(std::holds_alternative<InsertStatement>(explain->statement.body));
  EXPECT_THAT(ParseStatus("EXPLAIN (FORMAT JSON) SELECT 1"),
              IsErrorWith(StatusCode::kNotSupported, "EXPLAIN option format = json"));

  auto call = std::get<CallStatement>(ParseOne("CALL system.expire_snapshots('t', 5)").body);
  ASSERT_EQ(call.call->kind, ExprKind::kFunction);
  EXPECT_THAT(call.call->names, ElementsAre("system", "expire_snapshots"));
  EXPECT_EQ(call.call->args.size(), 2u);
  EXPECT_EQ(call.call->location, 5);
}

TEST(ParserStatements, ShowTablesSchemasDescribe) {
  auto show = std::get<ShowObjectsStatement>(ParseOne("SHOW TABLES").body);
  EXPECT_EQ(show.kind, ShowObjectsStatement::Kind::kTables);
  EXPECT_TRUE(show.name.empty());
  show = std::get<ShowObjectsStatement>(ParseOne("show tables from Sales").body);
  EXPECT_THAT(show.name, ElementsAre("sales"));
  show = std::get<ShowObjectsStatement>(ParseOne("SHOW TABLES IN \"Sales\"").body);
  EXPECT_THAT(show.name, ElementsAre("Sales"));
  show = std::get<ShowObjectsStatement>(ParseOne("  Show Schemas ").body);
  EXPECT_EQ(show.kind, ShowObjectsStatement::Kind::kSchemas);
  show = std::get<ShowObjectsStatement>(ParseOne("DESCRIBE s.\"T\"\"x\"").body);
  EXPECT_EQ(show.kind, ShowObjectsStatement::Kind::kDescribe);
  EXPECT_THAT(show.name, ElementsAre("s", "T\"x"));

  EXPECT_THAT(
      ParseStatus("SHOW TABLES x"),
      IsErrorWith(StatusCode::kSyntax, "syntax error at or near \"x\" (line 1, column 13)"));
  EXPECT_THAT(ParseStatus("DESCRIBE"),
              IsErrorWith(StatusCode::kSyntax, "syntax error at end of input"));
  // Every other SHOW goes to PostgreSQL's grammar.
  EXPECT_EQ(std::get<ShowStatement>(ParseOne("SHOW tables_x").body).name, "tables_x");

  show = std::get<ShowObjectsStatement>(ParseOne("show create table db.T").body);
  EXPECT_EQ(show.kind, ShowObjectsStatement::Kind::kCreateTable);
  EXPECT_THAT(show.name, ElementsAre("db", "t"));
  EXPECT_THAT(ParseStatus("SHOW CREATE VIEW v"),
              IsErrorWith(StatusCode::kSyntax, "syntax error at or near \"VIEW\""));

  auto all = Parse("SHOW TABLES; DESCRIBE t; SELECT 1");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[1].text, "DESCRIBE t");
  EXPECT_EQ((*all)[1].location, 13);
}

TEST(ParserScripts, StatementsTextsAndLocations) {
  auto result = Parse(
      "  -- leading comment\n SELECT 1;;\nSELECT 'a;b' /* ; */ , $$;$$ AS \"x;\" ;\n"
      "SELECT\n  c FROM t -- trailing\n");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->size(), 3u);
  EXPECT_EQ((*result)[0].text, "SELECT 1");
  EXPECT_EQ((*result)[0].location, 22);
  EXPECT_EQ((*result)[1].text, "SELECT 'a;b' /* ; */ , $$;$$ AS \"x;\"");
  EXPECT_EQ((*result)[2].text, "SELECT\n  c FROM t");
  // Locations are relative to each statement's own text.
  auto& q = std::get<SelectStatement>((*result)[2].body).query;
  EXPECT_EQ(q->targets[0].expr->location, 9);
  EXPECT_EQ(q->from[0]->location, 16);
  EXPECT_EQ(std::get<SelectStatement>((*result)[0].body).query->targets[0].expr->location, 7);

  ASSERT_OK_AND_ASSIGN(auto empty, Parse(" ;; -- nothing\n"));
  EXPECT_TRUE(empty.empty());
  ASSERT_OK_AND_ASSIGN(auto nested, Parse("SELECT /* a /* b */ ; */ 1"));
  ASSERT_EQ(nested.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto estring, Parse("SELECT E'\\';'; SELECT 2"));
  ASSERT_EQ(estring.size(), 2u);
  EXPECT_EQ(std::get<SelectStatement>(estring[0].body).query->targets[0].expr->constant.text, "';");
}

TEST(ParserErrors, SyntaxErrorsNameTokenAndPlace) {
  EXPECT_THAT(
      ParseStatus("SELECT a FORM t"),
      IsErrorWith(StatusCode::kSyntax, "syntax error at or near \"t\" (line 1, column 15)"));
  EXPECT_THAT(
      ParseStatus("SELECT 1;\nSELEC 2"),
      IsErrorWith(StatusCode::kSyntax, "syntax error at or near \"SELEC\" (line 2, column 1)"));
  EXPECT_THAT(ParseStatus("SELECT 'éé' FORM t"),
              IsErrorWith(StatusCode::kSyntax, "(line 1, column 18)"));
  EXPECT_THAT(ParseStatus("SELECT (1"),
              IsErrorWith(StatusCode::kSyntax, "syntax error at end of input"));
  EXPECT_THAT(ParseStatus("SELECT 'abc"),
              IsErrorWith(StatusCode::kSyntax,
                          "unterminated quoted string at or near \"'abc\" (line 1, column 8)"));
  EXPECT_THAT(ParseStatus("SELECT 1 /* x"),
              IsErrorWith(StatusCode::kSyntax, "unterminated /* comment"));
  EXPECT_THAT(ParseStatus(std::string("SELECT 1\0", 9)), IsError(StatusCode::kSyntax));
}

TEST(ParserErrors, NotSupportedNamesConstructAndPlace) {
  EXPECT_THAT(ParseStatus("BEGIN"),
              IsErrorWith(StatusCode::kNotSupported, "transactions is not supported"));
  EXPECT_THAT(ParseStatus("CREATE VIEW v AS SELECT 1"),
              IsErrorWith(StatusCode::kNotSupported, "CREATE VIEW is not supported"));
  EXPECT_THAT(ParseStatus("SELECT 1;\n  SELECT a FROM t JOIN u USING (k) AS j"),
              IsErrorWith(StatusCode::kNotSupported,
                          "an alias on a join is not supported (line 2, column 17)"));
}

TEST(ParserErrors, DeepNestingIsRejected) {
  std::string parens = "SELECT " + std::string(5000, '(') + "1" + std::string(5000, ')');
  EXPECT_THAT(ParseStatus(parens),
              IsErrorWith(StatusCode::kNotSupported,
                          "parentheses nested deeper than 1000 levels are not supported (line 1, "
                          "column 1007)"));
  std::string chain = "SELECT 1";
  for (int i = 0; i < 200000; ++i) chain += "+1";
  EXPECT_THAT(ParseStatus(chain),
              IsErrorWith(StatusCode::kNotSupported, "nested deeper than 1000 levels"));
  std::string nots = "SELECT ";
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  nots += "true";
  EXPECT_THAT(ParseStatus(nots),
              IsErrorWith(StatusCode::kNotSupported, "nested deeper than 1000 levels"));
  // Subqueries nested too deeply say so, and where.
  std::string subqueries = "SELECT * FROM ";
  for (int i = 0; i < 1200; ++i) subqueries += "(SELECT * FROM ";
  subqueries += "t";
  for (int i = 0; i < 1200; ++i) subqueries += ") s";
  EXPECT_THAT(ParseStatus(subqueries),
              IsErrorWith(StatusCode::kNotSupported,
                          "queries nested deeper than 1000 levels are not supported (line 1, "
                          "column 15000)"));
  // 500 levels of subqueries are fine.
  subqueries = "SELECT * FROM ";
  for (int i = 0; i < 500; ++i) subqueries += "(SELECT * FROM ";
  subqueries += "t";
  for (int i = 0; i < 500; ++i) subqueries += ") s";
  EXPECT_OK(Parse(subqueries));
  // A UNION ALL of thousands of queries is a flat list, not a nest.
  std::string unions = "SELECT 0";
  for (int i = 1; i < 20000; ++i) unions += " UNION ALL SELECT " + std::to_string(i);
  ASSERT_OK_AND_ASSIGN(auto union_chain, Parse(unions));
  EXPECT_EQ(std::get<SelectStatement>(union_chain[0].body).query->inputs.size(), 20000u);

  // Long flat lists are fine: AND/OR chains, IN lists and VALUES rows do not nest.
  std::string ors = "SELECT 1 FROM t WHERE a = 0";
  for (int i = 1; i < 3000; ++i) ors += " OR a = " + std::to_string(i);
  ASSERT_OK_AND_ASSIGN(auto parsed, Parse(ors));
  EXPECT_EQ(std::get<SelectStatement>(parsed[0].body).query->where->args.size(), 3000u);
  std::string values = "INSERT INTO t VALUES (-1)";
  for (int i = 0; i < 5000; ++i) values += ", (-1)";
  ASSERT_OK_AND_ASSIGN(auto inserted, Parse(values));
  EXPECT_EQ(std::get<InsertStatement>(inserted[0].body).query->values.size(), 5001u);
}

// Text that is not UTF-8 is refused as PostgreSQL refuses it, naming the bytes and the place.
TEST(ParserErrors, InvalidUtf8) {
  EXPECT_THAT(ParseStatus("SELECT \xff\xfe"),
              IsErrorWith(StatusCode::kSyntax,
                          "invalid byte sequence for encoding \"UTF8\": 0xff (line 1, column 8)"));
  EXPECT_THAT(ParseStatus("SELECT 1;\nSELECT 'caf\xc3\xa9', 'a\xe2\x82'"),
              IsErrorWith(StatusCode::kSyntax,
                          "invalid byte sequence for encoding \"UTF8\": 0xe2 0x82 (line 2, "
                          "column 18)"));
  // Overlong forms and surrogates are not UTF-8 either.
  EXPECT_THAT(ParseStatus("SELECT '\xc0\xaf'"),
              IsErrorWith(StatusCode::kSyntax, "invalid byte sequence for encoding \"UTF8\""));
  EXPECT_THAT(ParseStatus("SELECT '\xed\xa0\x80'"),
              IsErrorWith(StatusCode::kSyntax, "invalid byte sequence for encoding \"UTF8\""));
  EXPECT_OK(Parse("SELECT 'caf\xc3\xa9 \xf0\x9f\x98\x80'"));
}

TEST(ParserErrors, MangledInputNeverCrashes) {
  // Fragments of valid SQL recombined and cut at random places (a fixed seed): every
  // result is a value or an error.
  const std::vector<std::string> pieces = {"SELECT ",
                                           "a",
                                           ", ",
                                           "(",
                                           ")",
                                           "'x'",
                                           "$$y$$",
                                           "-",
                                           "1",
                                           " FROM t",
                                           " WHERE ",
                                           "=",
                                           " AND ",
                                           " IN (",
                                           "CASE WHEN ",
                                           " THEN ",
                                           " END",
                                           "/* c */",
                                           "--",
                                           "\n",
                                           ";",
                                           "\"q\"",
                                           "INTERVAL '1' DAY",
                                           "::int",
                                           " OVER (",
                                           " ORDER BY ",
                                           "[",
                                           "]",
                                           "SHOW TABLES",
                                           "E'\\'"};
  uint64_t state = 42;
  auto next = [&state]() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  int ok = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string sql;
    int n = static_cast<int>(next() % 12) + 1;
    for (int k = 0; k < n; ++k) sql += pieces[next() % pieces.size()];
    if (next() % 4 == 0) sql = sql.substr(0, next() % (sql.size() + 1));
    auto result = Parse(sql);
    if (result.ok()) {
      ++ok;
    } else {
      EXPECT_TRUE(result.status().code() == StatusCode::kSyntax ||
                  result.status().code() == StatusCode::kNotSupported)
          << sql << ": " << result.status().ToString();
    }
  }
  EXPECT_GT(ok, 0);
}

TEST(ParserLocation, DescribeLocation) {
  EXPECT_EQ(DescribeLocation("SELECT 1", 7), "line 1, column 8");
  EXPECT_EQ(DescribeLocation("a\nbc", 3), "line 2, column 2");
  EXPECT_EQ(DescribeLocation("é x", 3), "line 1, column 3");
  EXPECT_EQ(DescribeLocation("abc", 3), "end of input");
  EXPECT_EQ(DescribeLocation("abc", -1), "");
}

}  // namespace
TEST(ParserStatements, DropTablePurge) {
  auto drop = std::get<DropStatement>(ParseOne("DROP TABLE IF EXISTS a.b, c PURGE").body);
  EXPECT_TRUE(drop.purge);
  EXPECT_TRUE(drop.if_exists);
  ASSERT_EQ(drop.names.size(), 2u);
  EXPECT_THAT(drop.names[0], ElementsAre("a", "b"));
  drop = std::get<DropStatement>(ParseOne("drop table t").body);
  EXPECT_FALSE(drop.purge);
  // A table named purge is still a table.
  drop = std::get<DropStatement>(ParseOne("DROP TABLE purge").body);
  EXPECT_FALSE(drop.purge);
  EXPECT_THAT(drop.names[0], ElementsAre("purge"));
  // PURGE belongs to DROP TABLE only.
  EXPECT_FALSE(Parse("DROP SCHEMA s PURGE").ok());
}

TEST(ParserStatements, CompositeTypesAndRecords) {
  auto create =
      std::get<CreateTypeStatement>(ParseOne("CREATE TYPE jpop AS (a text, b int[], c jpop)").body);
  EXPECT_THAT(create.name, ElementsAre("jpop"));
  ASSERT_EQ(create.fields.size(), 3u);
  EXPECT_EQ(create.fields[0].name, "a");
  EXPECT_EQ(create.fields[1].type.name, "int4");
  EXPECT_EQ(create.fields[1].type.array_bounds, 1);
  EXPECT_EQ(create.fields[2].type.name, "jpop");

  auto drop = std::get<DropStatement>(ParseOne("DROP TYPE IF EXISTS a, public.b CASCADE").body);
  EXPECT_EQ(drop.object, DropStatement::ObjectKind::kType);
  EXPECT_TRUE(drop.if_exists);
  EXPECT_TRUE(drop.cascade);
  ASSERT_EQ(drop.names.size(), 2u);
  EXPECT_THAT(drop.names[1], ElementsAre("public", "b"));

  // A column definition list types the columns of a function returning records.
  SelectStmtPtr q = Query("SELECT * FROM jsonb_to_record('{}') AS x(a int, b text[])");
  const TableRef& fn = *q->from[0];
  EXPECT_EQ(fn.alias, "x");
  EXPECT_TRUE(fn.column_aliases.empty());
  ASSERT_EQ(fn.column_definitions.size(), 2u);
  EXPECT_EQ(fn.column_definitions[0].name, "a");
  EXPECT_EQ(fn.column_definitions[1].type.name, "text");
  EXPECT_EQ(fn.column_definitions[1].type.array_bounds, 1);

  // (x).* is a star over an expression; t.* inside ROW(...) a qualified star.
  q = Query("SELECT (f(x)).*, ROW(t.*, 1) FROM t");
  const ParsedExpr& fields = *q->targets[0].expr;
  EXPECT_EQ(fields.kind, ExprKind::kStar);
  ASSERT_EQ(fields.args.size(), 1u);
  EXPECT_EQ(fields.args[0]->kind, ExprKind::kFunction);
  const ParsedExpr& row = *q->targets[1].expr;
  EXPECT_EQ(row.kind, ExprKind::kRow);
  ASSERT_EQ(row.args.size(), 2u);
  EXPECT_EQ(row.args[0]->kind, ExprKind::kStar);
  EXPECT_THAT(row.args[0]->names, ElementsAre("t"));
}

}  // namespace floe::sql
