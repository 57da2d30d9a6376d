// Tests of the expression core: bound expressions, resolution and coercion, physical
// evaluation (CASE laziness), arithmetic, comparison and boolean kernels, hashing, and
// the row selection kernels of batch/select.h.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/batch/select.h"
#include "floe/batch/value_format.h"
#include "floe/expr/expr.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/hash.h"
#include "floe/expr/physical_expr.h"
#include "floe/testing/matchers.h"

namespace floe::expr {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::floe::testing::IsOk;

template <typename T>
ArrayPtr MakeNumeric(TypePtr type, const std::vector<std::optional<T>>& values) {
  NumericBuilder<T> b(std::move(type));
  for (const auto& v : values) {
    Status st = v ? b.Append(*v) : b.AppendNull();
    FLOE_CHECK(st.ok(), st.ToString());
  }
  return b.Finish().ValueOrDie();
}

ArrayPtr I16s(const std::vector<std::optional<int16_t>>& v) { return MakeNumeric(Int16(), v); }
ArrayPtr I32s(const std::vector<std::optional<int32_t>>& v) { return MakeNumeric(Int32(), v); }
ArrayPtr I64s(const std::vector<std::optional<int64_t>>& v) { return MakeNumeric(Int64(), v); }
[[maybe_unused]] ArrayPtr F32s(const std::vector<std::optional<float>>& v) {
  return MakeNumeric(Float32(), v);
}
ArrayPtr F64s(const std::vector<std::optional<double>>& v) { return MakeNumeric(Float64(), v); }
ArrayPtr Dates(const std::vector<std::optional<int32_t>>& v) { return MakeNumeric(Date(), v); }
ArrayPtr Timestamps(const std::vector<std::optional<int64_t>>& v) {
  return MakeNumeric(Timestamp(), v);
}

ArrayPtr Bools(const std::vector<std::optional<bool>>& values) {
  BooleanBuilder b;
  for (const auto& v : values) FLOE_CHECK((v ? b.Append(*v) : b.AppendNull()).ok());
  return b.Finish().ValueOrDie();
}

ArrayPtr Strs(const std::vector<std::optional<std::string>>& values, TypePtr type = String()) {
  BinaryBuilder b(std::move(type));
  for (const auto& v : values) FLOE_CHECK((v ? b.Append(*v) : b.AppendNull()).ok());
  return b.Finish().ValueOrDie();
}

ArrayPtr Decs(int p, int s, const std::vector<std::optional<int64_t>>& values) {
  DecimalBuilder b(Decimal(p, s));
  for (const auto& v : values) {
    FLOE_CHECK((v ? b.Append(static_cast<Int128>(*v)) : b.AppendNull()).ok());
  }
  return b.Finish().ValueOrDie();
}

Int128 Pow10ForTest(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

/// "1,NULL,3": the PostgreSQL text of every value.
std::string Text(const Array& a) {
  std::string out;
  for (int64_t i = 0; i < a.length(); ++i) {
    if (i > 0) out += ",";
    out += FormatValue(a, i);
  }
  return out;
}

RecordBatchPtr MakeBatch(std::vector<std::pair<std::string, ArrayPtr>> columns) {
  std::vector<Field> fields;
  std::vector<ArrayPtr> arrays;
  int64_t rows = columns.empty() ? 1 : columns[0].second->length();
  for (auto& [name, a] : columns) {
    fields.emplace_back(name, a->type());
    arrays.push_back(a);
  }
  return RecordBatch::Make(std::make_shared<Schema>(fields), rows, arrays).ValueOrDie();
}

ExprPtr Col(const RecordBatch& batch, int i) {
  return Column(i, batch.schema()->field(i).name(), batch.column(i)->type());
}

/// A call resolved like the binder does: arguments cast to the resolved types.
Result<ExprPtr> Bind(const std::string& name, std::vector<ExprPtr> args) {
  std::vector<TypePtr> types;
  for (const auto& a : args) types.push_back(a->type);
  FLOE_ASSIGN_OR_RAISE(ResolvedFunction fn, ResolveScalarFunction(name, types));
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i]->type->Equals(*fn.arg_types[i])) args[i] = Cast(args[i], fn.arg_types[i]);
  }
  return Call(fn.name, std::move(args), fn.return_type);
}

Result<ArrayPtr> Eval(const ExprPtr& e, const RecordBatch& batch) {
  FLOE_ASSIGN_OR_RAISE(PhysicalExprPtr p, Compile(e, batch.schema()));
  EvalContext ctx;
  return EvaluateToArray(*p, batch, ctx);
}

/// Evaluates name(columns...) over a batch of the given columns and returns its text.
Result<std::string> EvalCall(const std::string& name, std::vector<ArrayPtr> columns) {
  std::vector<std::pair<std::string, ArrayPtr>> named;
  for (size_t i = 0; i < columns.size(); ++i)
    named.emplace_back("c" + std::to_string(i), columns[i]);
  RecordBatchPtr batch = MakeBatch(named);
  std::vector<ExprPtr> args;
  for (int i = 0; i < batch->num_columns(); ++i) args.push_back(Col(*batch, i));
  FLOE_ASSIGN_OR_RAISE(ExprPtr call, Bind(name, std::move(args)));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, Eval(call, *batch));
  return Text(*out);
}

/// The type name(args) resolves to.
std::string ReturnType(const std::string& name, std::vector<TypePtr> types) {
  auto r = ResolveScalarFunction(name, types);
  return r.ok() ? r->return_type->ToString() : r.status().ToString();
}

#define EXPECT_CALL_TEXT(expected, ...)             \
  do {                                              \
    auto _r = EvalCall(__VA_ARGS__);                \
    ASSERT_TRUE(_r.ok()) << _r.status().ToString(); \
    EXPECT_EQ(*_r, expected);                       \
  } while (false)

// Arithmetic ------------------------------------------------------------------------------

TEST(ArithmeticTest, Integers) {
  EXPECT_CALL_TEXT("5,NULL,-1", "add", {I32s({2, std::nullopt, -4}), I32s({3, 1, 3})});
  EXPECT_CALL_TEXT("-1,NULL,-7", "subtract", {I32s({2, std::nullopt, -4}), I32s({3, 1, 3})});
  EXPECT_CALL_TEXT("6,NULL,-12", "multiply", {I32s({2, std::nullopt, -4}), I32s({3, 1, 3})});
  EXPECT_CALL_TEXT("2,-2,-2,2", "divide", {I32s({7, -7, 7, -7}), I32s({3, 3, -3, -3})});
  EXPECT_CALL_TEXT("1,-1,1,-1", "modulo", {I32s({7, -7, 7, -7}), I32s({3, 3, -3, -3})});
  EXPECT_CALL_TEXT("-3,NULL", "negate", {I32s({3, std::nullopt})});
  // Mixed widths widen: smallint + bigint is bigint.
  EXPECT_EQ(ReturnType("add", {Int16(), Int64()}), "int64");
  EXPECT_EQ(ReturnType("add", {Int16(), Int16()}), "int16");
  EXPECT_CALL_TEXT("9000000000", "add", {I16s({1}), I64s({8999999999})});
}

TEST(ArithmeticTest, IntegerErrors) {
  EXPECT_THAT(EvalCall("add", {I32s({INT32_MAX}), I32s({1})}),
              IsErrorWith(StatusCode::kInvalidArgument, "integer out of range"));
  EXPECT_THAT(EvalCall("multiply", {I64s({INT64_MAX}), I64s({2})}),
              IsErrorWith(StatusCode::kInvalidArgument, "bigint out of range"));
  EXPECT_THAT(EvalCall("subtract", {I16s({-32768}), I16s({1})}),
              IsErrorWith(StatusCode::kInvalidArgument, "smallint out of range"));
  EXPECT_THAT(EvalCall("divide", {I32s({INT32_MIN}), I32s({-1})}),
              IsErrorWith(StatusCode::kInvalidArgument, "integer out of range"));
  EXPECT_THAT(EvalCall("negate", {I32s({INT32_MIN})}),
              IsErrorWith(StatusCode::kInvalidArgument, "integer out of range"));
  EXPECT_THAT(EvalCall("divide", {I32s({1}), I32s({0})}),
              IsErrorWith(StatusCode::kInvalidArgument, "division by zero"));
  EXPECT_THAT(EvalCall("modulo", {I64s({1}), I64s({0})}),
              IsErrorWith(StatusCode::kInvalidArgument, "division by zero"));
  // A NULL row is not evaluated: no division by zero there.
  EXPECT_CALL_TEXT("NULL,2", "divide", {I32s({std::nullopt, 4}), I32s({0, 2})});
  EXPECT_CALL_TEXT("0", "modulo", {I32s({INT32_MIN}), I32s({-1})});
}

TEST(ArithmeticTest, Floats) {
  EXPECT_CALL_TEXT("3.5,NULL", "add", {F64s({1.5, std::nullopt}), F64s({2, 1})});
  EXPECT_CALL_TEXT("0.5", "divide", {F64s({1}), F64s({2})});
  EXPECT_THAT(EvalCall("divide", {F64s({1}), F64s({0})}),
              IsErrorWith(StatusCode::kInvalidArgument, "division by zero"));
  EXPECT_EQ(ReturnType("add", {Int32(), Float32()}), "float64");
  EXPECT_EQ(ReturnType("add", {Float32(), Float32()}), "float32");
  EXPECT_EQ(ReturnType("multiply", {Decimal(10, 2), Float64()}), "float64");
  EXPECT_CALL_TEXT("2.5", "add", {I32s({1}), F64s({1.5})});
}

TEST(ArithmeticTest, Decimals) {
  // 1.50 + 2.255 = 3.755 at scale 3.
  EXPECT_EQ(ReturnType("add", {Decimal(10, 2), Decimal(10, 3)}), "decimal(12,3)");
  EXPECT_CALL_TEXT("3.755,NULL", "add", {Decs(10, 2, {150, std::nullopt}), Decs(10, 3, {2255, 1})});
  EXPECT_CALL_TEXT("-0.755", "subtract", {Decs(10, 2, {150}), Decs(10, 3, {2255})});
  // Integer with decimal: 1 - 0.05.
  EXPECT_EQ(ReturnType("subtract", {Int32(), Decimal(15, 2)}), "decimal(16,2)");
  EXPECT_CALL_TEXT("0.95", "subtract", {I32s({1}), Decs(15, 2, {5})});
  // l_extendedprice * (1 - l_discount).
  EXPECT_EQ(ReturnType("multiply", {Decimal(15, 2), Decimal(16, 2)}), "decimal(31,4)");
  EXPECT_CALL_TEXT("950.0000,-1.0000", "multiply",
                   {Decs(15, 2, {100000, -100}), Decs(16, 2, {95, 100})});
  // Division is numeric division: at least 16 significant digits (PostgreSQL's
  // select_div_scale), rounded half away from zero.
  EXPECT_EQ(ReturnType("divide", {Decimal(10, 2), Decimal(10, 2)}), "numeric");
  EXPECT_CALL_TEXT(
      "0.33333333333333333333,0.66666666666666666667,-0.66666666666666666667,"
      "2.0000000000000000",
      "divide", {Decs(10, 2, {100, 200, -200, 400}), Decs(10, 2, {300, 300, 300, 200})});
  EXPECT_THAT(EvalCall("divide", {Decs(10, 2, {100}), Decs(10, 2, {0})}),
              IsErrorWith(StatusCode::kInvalidArgument, "division by zero"));
  // Modulo takes the dividend's sign: -7.5 % 2 = -1.5.
  EXPECT_CALL_TEXT("-1.5", "modulo", {Decs(5, 1, {-75}), I32s({2})});
  EXPECT_CALL_TEXT("-1.25", "negate", {Decs(5, 2, {125})});
  // 38-digit overflow.
  DecimalBuilder big(Decimal(38, 0));
  ASSERT_OK(big.Append(Pow10ForTest(37) * 9));
  ArrayPtr nines = big.Finish().ValueOrDie();
  EXPECT_THAT(EvalCall("add", {nines, nines}),
              IsErrorWith(StatusCode::kInvalidArgument, "numeric field overflow"));
  EXPECT_THAT(EvalCall("multiply", {nines, nines}),
              IsErrorWith(StatusCode::kInvalidArgument, "numeric field overflow"));
}

TEST(ArithmeticTest, Dates) {
  // 1998-12-01 is day 10561.
  EXPECT_CALL_TEXT("1998-12-31,NULL", "add", {Dates({10561, std::nullopt}), I32s({30, 1})});
  EXPECT_CALL_TEXT("1998-12-31", "add", {I32s({30}), Dates({10561})});
  EXPECT_CALL_TEXT("1998-11-01", "subtract", {Dates({10561}), I32s({30})});
  EXPECT_CALL_TEXT("30", "subtract", {Dates({10591}), Dates({10561})});
  EXPECT_EQ(ReturnType("subtract", {Date(), Date()}), "int32");
  // interval_add: 2024-01-31 + 1 month = 2024-02-29 (clamped), then + 1 day, + 1 hour.
  const int64_t day = 86400000000LL;
  const int32_t jan31 = 19753;  // 2024-01-31
  EXPECT_CALL_TEXT("2024-02-29 00:00:00", "interval_add",
                   {Dates({jan31}), I32s({1}), I32s({0}), I64s({0})});
  EXPECT_CALL_TEXT("2024-03-01 01:00:00", "interval_add",
                   {Timestamps({jan31 * day}), I32s({1}), I32s({1}), I64s({3600000000LL})});
  EXPECT_CALL_TEXT("2023-12-31 00:00:00", "interval_add",
                   {Timestamps({jan31 * day}), I32s({-1}), I32s({0}), I64s({0})});
}

TEST(ArithmeticTest, ResolutionErrors) {
  EXPECT_THAT(ResolveScalarFunction("add", {String(), Int32()}),
              IsErrorWith(StatusCode::kBind, "operator does not exist: text + integer"));
  EXPECT_THAT(ResolveScalarFunction("negate", {String()}),
              IsErrorWith(StatusCode::kBind, "operator does not exist: - text"));
  EXPECT_THAT(
      ResolveScalarFunction("no_such_function", {Int32(), String()}),
      IsErrorWith(StatusCode::kBind, "function no_such_function(integer, text) does not exist"));
  EXPECT_THAT(ResolveScalarFunction("modulo", {Float64(), Float64()}),
              IsErrorWith(StatusCode::kBind,
                          "operator does not exist: double precision % double precision"));
}

TEST(ArithmeticTest, ModAliasAndScalars) {
  ASSERT_OK_AND_ASSIGN(ResolvedFunction fn, ResolveScalarFunction("mod", {Int32(), Int64()}));
  EXPECT_EQ(fn.name, "modulo");
  EXPECT_EQ(fn.return_type->ToString(), "int64");
  EXPECT_CALL_TEXT("-1", "mod", {I32s({-7}), I64s({3})});
  // Scalar-only arguments give a scalar.
  ASSERT_OK_AND_ASSIGN(ExprPtr e, Bind("add", {Literal(Scalar::Make(Decimal(5, 2), Int128{150})),
                                               Literal(Scalar::I32(2))}));
  EXPECT_EQ(e->type->ToString(), "decimal(13,2)");
  ASSERT_OK_AND_ASSIGN(Scalar s, EvaluateConstant(e));
  EXPECT_TRUE(s.get<Int128>() == 350);
  // A scalar repeated into an array.
  ColumnarValue v(Scalar::Make(Decimal(5, 2), Int128{-5}));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, v.ToArray(3));
  EXPECT_EQ(Text(*a), "-0.05,-0.05,-0.05");
  ASSERT_OK_AND_ASSIGN(ArrayPtr b, ColumnarValue(Scalar::Bool(true)).ToArray(2));
  EXPECT_EQ(Text(*b), "t,t");
}

TEST(BooleanTest, FloatsAndStringsInConditionals) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_CALL_TEXT("NaN,2", "greatest", {F64s({nan, 1}), F64s({1, 2})});
  EXPECT_CALL_TEXT("1,1", "least", {F64s({nan, 1}), F64s({1, 2})});
  EXPECT_CALL_TEXT("t,NULL,f", "in_list",
                   {F64s({nan, std::nullopt, 1}), F64s({nan, 1, 2}), F64s({0, 0, 3})});
  EXPECT_CALL_TEXT("b,NULL", "nullif", {Strs({"b", "a"}), Strs({"a", "a"})});
  EXPECT_CALL_TEXT("z,b", "greatest", {Strs({"z", "a"}), Strs({"b", "b"})});
}

// Comparison -----------------------------------------------------------------------------

TEST(ComparisonTest, Integers) {
  EXPECT_CALL_TEXT("f,NULL,t", "eq", {I32s({1, std::nullopt, 3}), I32s({2, 2, 3})});
  EXPECT_CALL_TEXT("t,NULL,f", "ne", {I32s({1, std::nullopt, 3}), I32s({2, 2, 3})});
  EXPECT_CALL_TEXT("t,f,f", "lt", {I32s({1, 2, 3}), I32s({2, 2, 2})});
  EXPECT_CALL_TEXT("t,t,f", "le", {I32s({1, 2, 3}), I32s({2, 2, 2})});
  EXPECT_CALL_TEXT("f,f,t", "gt", {I32s({1, 2, 3}), I32s({2, 2, 2})});
  EXPECT_CALL_TEXT("f,t,t", "ge", {I32s({1, 2, 3}), I32s({2, 2, 2})});
  // Mixed widths are widened: smallint vs bigint.
  EXPECT_CALL_TEXT("t", "lt", {I16s({5}), I64s({5000000000})});
}

TEST(ComparisonTest, FloatsFollowPostgres) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_CALL_TEXT("t,f,t", "eq", {F64s({nan, nan, -0.0}), F64s({nan, 1, 0.0})});
  EXPECT_CALL_TEXT("t,f,f", "gt", {F64s({nan, 1, nan}), F64s({inf, nan, nan})});
  EXPECT_CALL_TEXT("f,t", "lt", {F64s({nan, inf}), F64s({inf, nan})});
}

TEST(ComparisonTest, DecimalsStringsDates) {
  // 1.50 vs 1.500 and 1.5 vs 1.499 across scales, no cast.
  EXPECT_CALL_TEXT("t,f", "eq", {Decs(10, 2, {150, 150}), Decs(10, 3, {1500, 1499})});
  EXPECT_CALL_TEXT("f,t", "lt", {Decs(10, 3, {1500, 1499}), Decs(10, 2, {150, 150})});
  // Integer against decimal: 2 > 1.99.
  EXPECT_CALL_TEXT("t", "gt", {I32s({2}), Decs(5, 2, {199})});
  // Strings compare by bytes.
  EXPECT_CALL_TEXT("t,t,f,NULL", "lt",
                   {Strs({"a", "ab", "b", std::nullopt}), Strs({"b", "b", "B", "x"})});
  EXPECT_CALL_TEXT("t", "eq", {Strs({"é"}), Strs({"é"})});
  // Date vs timestamp compares as timestamps: 1998-12-01 < 1998-12-01 00:00:01.
  EXPECT_CALL_TEXT("t,f", "lt",
                   {Dates({10561, 10561}), Timestamps({10561LL * 86400000000LL + 1000000, 0})});
  EXPECT_CALL_TEXT("f,t", "lt", {Bools({true, false}), Bools({false, true})});
  EXPECT_THAT(ResolveScalarFunction("eq", {String(), Int32()}),
              IsErrorWith(StatusCode::kBind, "operator does not exist: text = integer"));
}

TEST(ComparisonTest, ArrayAgainstScalar) {
  // l_shipdate <= DATE '1998-09-02' with a literal on the right.
  RecordBatchPtr batch = MakeBatch({{"l_shipdate", Dates({10470, 10471, 10472, std::nullopt})}});
  ASSERT_OK_AND_ASSIGN(ExprPtr e,
                       Bind("le", {Col(*batch, 0), Literal(Scalar::Make(Date(), 10471))}));
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Eval(e, *batch));
  EXPECT_EQ(Text(*out), "t,t,f,NULL");
  ASSERT_OK_AND_ASSIGN(PhysicalExprPtr p, Compile(e, batch->schema()));
  EXPECT_EQ(p->ToString(), "l_shipdate <= DATE '1998-09-02'");
  // Scalar on both sides gives a scalar.
  ASSERT_OK_AND_ASSIGN(
      Scalar s, EvaluateConstant(Compare("lt", Literal(Scalar::I32(1)), Literal(Scalar::I32(2)))));
  EXPECT_TRUE(s.get<bool>());
}

TEST(ComparisonTest, IsDistinctFrom) {
  EXPECT_CALL_TEXT("f,t,t,f", "is_distinct_from",
                   {I32s({1, 1, std::nullopt, std::nullopt}), I32s({1, 2, 1, std::nullopt})});
  EXPECT_CALL_TEXT("t,f,f,t", "is_not_distinct_from",
                   {I32s({1, 1, std::nullopt, std::nullopt}), I32s({1, 2, 1, std::nullopt})});
  EXPECT_CALL_TEXT("f,t", "is_distinct_from", {Decs(5, 1, {15, 15}), Decs(5, 2, {150, 151})});
}

// Boolean functions ------------------------------------------------------------------------

TEST(BooleanTest, ThreeValuedAndOrNot) {
  auto a = Bools({true, true, true, false, false, false, std::nullopt, std::nullopt, std::nullopt});
  auto b = Bools({true, false, std::nullopt, true, false, std::nullopt, true, false, std::nullopt});
  EXPECT_CALL_TEXT("t,f,NULL,f,f,f,NULL,f,NULL", "and", {a, b});
  EXPECT_CALL_TEXT("t,t,t,t,f,NULL,t,NULL,NULL", "or", {a, b});
  EXPECT_CALL_TEXT("f,f,f,t,t,t,NULL,NULL,NULL", "not", {a});
  // N-ary.
  EXPECT_CALL_TEXT(
      "f,NULL", "and",
      {Bools({true, true}), Bools({std::nullopt, std::nullopt}), Bools({false, true})});
  EXPECT_THAT(
      ResolveScalarFunction("and", {Boolean(), Int32()}),
      IsErrorWith(StatusCode::kBind, "argument of AND must be type boolean, not type integer"));
}

TEST(BooleanTest, IsPredicates) {
  auto a = Bools({true, false, std::nullopt});
  EXPECT_CALL_TEXT("f,f,t", "is_null", {a});
  EXPECT_CALL_TEXT("t,t,f", "is_not_null", {a});
  EXPECT_CALL_TEXT("t,f,f", "is_true", {a});
  EXPECT_CALL_TEXT("f,t,f", "is_false", {a});
  EXPECT_CALL_TEXT("f,t,t", "is_not_true", {a});
  EXPECT_CALL_TEXT("t,f,t", "is_not_false", {a});
  EXPECT_CALL_TEXT("f,t", "is_null", {Strs({"x", std::nullopt})});
}

TEST(BooleanTest, InList) {
  RecordBatchPtr batch = MakeBatch({{"x", I32s({1, 2, 3, std::nullopt})}});
  auto in = [&](std::vector<ExprPtr> list) -> std::string {
    list.insert(list.begin(), Col(*batch, 0));
    auto e = Bind("in_list", list);
    if (!e.ok()) return e.status().ToString();
    auto out = Eval(*e, *batch);
    return out.ok() ? Text(**out) : out.status().ToString();
  };
  auto lit = [](int v) { return Literal(Scalar::I32(v)); };
  ExprPtr null_lit = Literal(Scalar::Null(Int32()));
  EXPECT_EQ(in({lit(1), lit(3)}), "t,f,t,NULL");
  // No match with a NULL in the list is NULL.
  EXPECT_EQ(in({lit(1), null_lit}), "t,NULL,NULL,NULL");
  // A list of columns, row by row.
  EXPECT_EQ(in({Col(*batch, 0)}), "t,t,t,NULL");
  // Integer value against bigint list elements.
  EXPECT_EQ(in({Literal(Scalar::I64(2))}), "f,t,f,NULL");
  EXPECT_CALL_TEXT("t,f", "in_list", {Strs({"b", "z"}), Strs({"a", "a"}), Strs({"b", "b"})});
}

TEST(BooleanTest, Like) {
  auto s = Strs({"forest green", "green", "PROMO BRUSHED", "abc", "a_c", "100%", std::nullopt});
  auto like = [&](const std::string& pattern, const std::string& fn = "like",
                  std::optional<std::string> escape = std::nullopt) -> std::string {
    std::vector<ArrayPtr> cols{s, Strs(std::vector<std::optional<std::string>>(7, pattern))};
    if (escape) cols.push_back(Strs(std::vector<std::optional<std::string>>(7, *escape)));
    auto r = EvalCall(fn, cols);
    return r.ok() ? *r : r.status().ToString();
  };
  EXPECT_EQ(like("%green%"), "t,t,f,f,f,f,NULL");
  EXPECT_EQ(like("PROMO%"), "f,f,t,f,f,f,NULL");
  EXPECT_EQ(like("%green"), "t,t,f,f,f,f,NULL");
  EXPECT_EQ(like("a_c"), "f,f,f,t,t,f,NULL");
  EXPECT_EQ(like("a\\_c"), "f,f,f,f,t,f,NULL");
  EXPECT_EQ(like("100\\%"), "f,f,f,f,f,t,NULL");
  EXPECT_EQ(like("a#_c", "like", "#"), "f,f,f,f,t,f,NULL");
  EXPECT_EQ(like("%r%e%n"), "t,t,f,f,f,f,NULL");
  EXPECT_EQ(like("_%"), "t,t,t,t,t,t,NULL");
  EXPECT_EQ(like("promo%", "ilike"), "f,f,t,f,f,f,NULL");
  EXPECT_EQ(like("ab\\"), "Invalid argument: LIKE pattern must not end with escape character");
  // The pattern as a literal (compiled once) and a multi-byte character for '_'.
  RecordBatchPtr batch = MakeBatch({{"s", Strs({"héllo", "hello", "hllo"})}});
  ASSERT_OK_AND_ASSIGN(ExprPtr e, Bind("like", {Col(*batch, 0), Literal(Scalar::Str("h_llo"))}));
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Eval(e, *batch));
  EXPECT_EQ(Text(*out), "t,t,f");
}

TEST(BooleanTest, CoalesceNullIfGreatestLeast) {
  EXPECT_CALL_TEXT("1,2,NULL", "coalesce",
                   {I32s({1, std::nullopt, std::nullopt}), I32s({5, 2, std::nullopt})});
  EXPECT_CALL_TEXT("a,b", "coalesce", {Strs({"a", std::nullopt}), Strs({"x", "b"})});
  EXPECT_CALL_TEXT("NULL,2,NULL", "nullif", {I32s({1, 2, std::nullopt}), I32s({1, 3, 1})});
  EXPECT_CALL_TEXT("5,2,NULL", "greatest",
                   {I32s({1, std::nullopt, std::nullopt}), I32s({5, 2, std::nullopt})});
  EXPECT_CALL_TEXT("1,2,NULL", "least",
                   {I32s({1, std::nullopt, std::nullopt}), I32s({5, 2, std::nullopt})});
  // Greatest over int and decimal is a decimal.
  EXPECT_CALL_TEXT("2.50", "greatest", {I32s({2}), Decs(5, 2, {250})});
  EXPECT_THAT(ResolveScalarFunction("coalesce", {Int32(), String()}),
              IsErrorWith(StatusCode::kBind, "COALESCE types integer and text cannot be matched"));
}

// Bound expressions ------------------------------------------------------------------------

TEST(ExprTest, FactoriesToStringEquals) {
  ExprPtr a = Column(0, "a", Int32());
  ExprPtr b = Column(2, "b", String(), false);
  ExprPtr lit = Literal(Scalar::I32(5));
  ExprPtr call = Call("add", {a, lit}, Int32());
  EXPECT_EQ(a->ToString(), "#0:a");
  EXPECT_EQ(Literal(Scalar::Str("it's"))->ToString(), "'it''s'");
  EXPECT_EQ(Literal(Scalar::Null(Int64()))->ToString(), "NULL::int64");
  EXPECT_EQ(Literal(Scalar::Bool(true))->ToString(), "true");
  EXPECT_EQ(call->ToString(), "(#0:a + 5)");
  EXPECT_EQ(Call("upper", {b}, String())->ToString(), "upper(#2:b)");
  EXPECT_EQ(Cast(a, Int64())->ToString(), "CAST(#0:a AS int64)");
  ExprPtr c = Case({Compare("eq", a, lit), lit}, Literal(Scalar::I32(0)), Int32());
  EXPECT_EQ(c->ToString(), "CASE WHEN (#0:a = 5) THEN 5 ELSE 0 END");
  EXPECT_TRUE(c->nullable == false);
  EXPECT_TRUE(Case({Compare("eq", a, lit), lit}, nullptr, Int32())->nullable);
  EXPECT_FALSE(IsNull(a)->nullable);

  EXPECT_TRUE(
      call->Equals(*Call("add", {Column(0, "a", Int32()), Literal(Scalar::I32(5))}, Int32())));
  EXPECT_EQ(call->Hash(),
            Call("add", {Column(0, "a", Int32()), Literal(Scalar::I32(5))}, Int32())->Hash());
  EXPECT_FALSE(call->Equals(*Call("add", {a, Literal(Scalar::I32(6))}, Int32())));
  EXPECT_FALSE(call->Equals(*Call("add", {a, Literal(Scalar::I64(5))}, Int32())));
  EXPECT_FALSE(a->Equals(*Column(1, "a", Int32())));
}

TEST(ExprTest, Conjunctions) {
  ExprPtr a = Column(0, "a", Boolean());
  ExprPtr b = Column(1, "b", Boolean());
  ExprPtr c = Column(2, "c", Boolean());
  ExprPtr nested = And({And({a, b}), Or({c, a})});
  std::vector<ExprPtr> parts = SplitConjunction(nested);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0]->ToString(), "#0:a");
  EXPECT_EQ(parts[1]->ToString(), "#1:b");
  EXPECT_EQ(parts[2]->ToString(), "(#2:c OR #0:a)");
  EXPECT_EQ(SplitConjunction(a).size(), 1u);
  EXPECT_EQ(JoinConjunction({}), nullptr);
  EXPECT_EQ(JoinConjunction({a}), a);
  EXPECT_EQ(JoinConjunction({a, b, c})->ToString(), "(#0:a AND #1:b AND #2:c)");
}

TEST(ExprTest, ColumnRewrites) {
  ExprPtr e =
      Call("add", {Column(3, "x", Int32()), Call("negate", {Column(1, "y", Int32())}, Int32())},
           Int32());
  EXPECT_EQ(ReferencedColumns(*e), (std::vector<int>{1, 3}));
  ExprPtr remapped = RemapColumns(e, {-1, 0, -1, 1});
  EXPECT_EQ(remapped->ToString(), "(#1:x + negate(#0:y))");
  ExprPtr inlined =
      SubstituteColumns(e, {nullptr, Literal(Scalar::I32(7)), nullptr, Column(0, "z", Int32())});
  EXPECT_EQ(inlined->ToString(), "(#0:z + negate(7))");
  EXPECT_FALSE(IsConstant(*e));
  EXPECT_TRUE(IsConstant(*Call("negate", {Literal(Scalar::I32(7))}, Int32())));
  EXPECT_TRUE(IsVolatile(*Call("add", {Call("random", {}, Float64()), e}, Float64())));
  EXPECT_FALSE(IsVolatile(*e));
}

// Coercion ---------------------------------------------------------------------------------

TEST(CoercionTest, ImplicitAndExplicit) {
  EXPECT_TRUE(CanImplicitCast(*Int16(), *Int32()));
  EXPECT_TRUE(CanImplicitCast(*Int32(), *Decimal(10, 0)));
  EXPECT_TRUE(CanImplicitCast(*Decimal(10, 2), *Float64()));
  EXPECT_TRUE(CanImplicitCast(*Decimal(10, 2), *Decimal(5, 1)));
  EXPECT_TRUE(CanImplicitCast(*Date(), *Timestamp()));
  EXPECT_TRUE(CanImplicitCast(*Timestamp(), *TimestampTz()));
  EXPECT_FALSE(CanImplicitCast(*Int64(), *Int32()));
  EXPECT_FALSE(CanImplicitCast(*Float64(), *Decimal(10, 2)));
  EXPECT_FALSE(CanImplicitCast(*String(), *Int32()));
  EXPECT_FALSE(CanImplicitCast(*Timestamp(), *Date()));
  EXPECT_TRUE(CanImplicitCast(*List(Int32()), *List(Int64())));
  EXPECT_TRUE(CanExplicitCast(*Int64(), *Int32()));
  EXPECT_TRUE(CanExplicitCast(*String(), *Date()));
  EXPECT_TRUE(CanExplicitCast(*Timestamp(), *Date()));
  EXPECT_TRUE(CanExplicitCast(*Int32(), *Boolean()));
  EXPECT_FALSE(CanExplicitCast(*Date(), *Int32()));
}

TEST(CoercionTest, CommonType) {
  auto common = [](TypePtr a, TypePtr b) {
    auto r = CommonType(a, b, "CASE");
    return r.ok() ? (*r)->ToString() : r.status().ToString();
  };
  EXPECT_EQ(common(Int16(), Int64()), "int64");
  // Values of different scales keep their own, as numerics; compared, they meet as a decimal.
  EXPECT_EQ(common(Int32(), Decimal(5, 2)), "numeric");
  EXPECT_EQ(common(Decimal(10, 2), Decimal(8, 4)), "numeric");
  EXPECT_EQ(common(Int32(), Decimal(5, 0)), "decimal(10,0)");
  EXPECT_EQ(common(Decimal(10, 2), Decimal(12, 2)), "decimal(12,2)");
  EXPECT_EQ(common(Numeric(), Int64()), "numeric");
  EXPECT_EQ(common(Numeric(), Float32()), "float64");
  EXPECT_EQ((*ComparisonType(Int32(), Decimal(5, 2), "="))->ToString(), "decimal(12,2)");
  EXPECT_EQ((*ComparisonType(Decimal(10, 2), Decimal(8, 4), "="))->ToString(), "decimal(12,4)");
  EXPECT_EQ((*ComparisonType(Numeric(), Decimal(8, 4), "="))->ToString(), "numeric");
  EXPECT_EQ(common(Int32(), Float32()), "float64");
  EXPECT_EQ(common(Float32(), Float32()), "float32");
  EXPECT_EQ(common(Date(), Timestamp()), "timestamp");
  EXPECT_EQ(common(Timestamp(), TimestampTz()), "timestamptz");
  EXPECT_EQ(common(String(), String()), "string");
  EXPECT_EQ(common(List(Int32()), List(Int64())), "list<int64>");
  EXPECT_EQ(common(Int32(), String()), "Bind error: CASE types integer and text cannot be matched");
}

// Physical expressions ---------------------------------------------------------------------

TEST(PhysicalExprTest, CompileErrorsAndToString) {
  RecordBatchPtr batch = MakeBatch({{"l_quantity", I32s({10, 30})}, {"l_tax", F64s({1, 2})}});
  EXPECT_THAT(Compile(Column(5, "x", Int32()), batch->schema()), IsError(StatusCode::kInternal));
  EXPECT_THAT(Compile(Column(0, "x", Int64()), batch->schema()), IsError(StatusCode::kInternal));
  ASSERT_OK_AND_ASSIGN(ExprPtr lt, Bind("lt", {Col(*batch, 0), Literal(Scalar::I32(24))}));
  ASSERT_OK_AND_ASSIGN(ExprPtr both, Bind("and", {lt, IsNull(Col(*batch, 1))}));
  ASSERT_OK_AND_ASSIGN(PhysicalExprPtr p, Compile(both, batch->schema()));
  EXPECT_EQ(p->ToString(), "(l_quantity < 24) AND (l_tax IS NULL)");
  EXPECT_EQ(p->name(), "Call");
  EXPECT_EQ(p->children().size(), 2u);
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Eval(both, *batch));
  EXPECT_EQ(Text(*out), "f,f");
  // A literal materializes to the batch length.
  ASSERT_OK_AND_ASSIGN(ArrayPtr lit, Eval(Literal(Scalar::Str("x")), *batch));
  EXPECT_EQ(Text(*lit), "x,x");
  ASSERT_OK_AND_ASSIGN(ArrayPtr nul, Eval(Literal(Scalar::Null(Int32())), *batch));
  EXPECT_EQ(Text(*nul), "NULL,NULL");
}

TEST(PhysicalExprTest, CaseIsLazy) {
  // CASE WHEN x = 0 THEN 0 ELSE 100 / x END never divides by zero.
  RecordBatchPtr batch = MakeBatch({{"x", I32s({0, 5, std::nullopt, -4, 0})}});
  ExprPtr x = Col(*batch, 0);
  ExprPtr zero = Literal(Scalar::I32(0));
  ASSERT_OK_AND_ASSIGN(ExprPtr is_zero, Bind("eq", {x, zero}));
  ASSERT_OK_AND_ASSIGN(ExprPtr div, Bind("divide", {Literal(Scalar::I32(100)), x}));
  ExprPtr c = Case({is_zero, zero}, div, Int32());
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Eval(c, *batch));
  EXPECT_EQ(Text(*out), "0,20,NULL,-25,0");
  // Without the guard the division fails.
  EXPECT_THAT(Eval(div, *batch), IsErrorWith(StatusCode::kInvalidArgument, "division by zero"));
  // Several WHENs; each decides only rows not yet decided; no ELSE gives NULL.
  ASSERT_OK_AND_ASSIGN(ExprPtr neg, Bind("lt", {x, zero}));
  ASSERT_OK_AND_ASSIGN(ExprPtr div2, Bind("divide", {Literal(Scalar::I32(10)), x}));
  ExprPtr c2 = Case({is_zero, Literal(Scalar::Str("zero")), neg, Literal(Scalar::Str("neg"))},
                    nullptr, String());
  ASSERT_OK_AND_ASSIGN(ArrayPtr out2, Eval(c2, *batch));
  EXPECT_EQ(Text(*out2), "zero,NULL,NULL,neg,zero");
  // A later WHEN that would fail on an earlier-decided row is not evaluated there.
  ASSERT_OK_AND_ASSIGN(ExprPtr gt, Bind("gt", {div2, zero}));
  ExprPtr c3 = Case({is_zero, Literal(Scalar::I32(1)), gt, Literal(Scalar::I32(2))},
                    Literal(Scalar::I32(3)), Int32());
  ASSERT_OK_AND_ASSIGN(ArrayPtr out3, Eval(c3, *batch));
  EXPECT_EQ(Text(*out3), "1,2,3,3,1");
  // Every row takes the first branch.
  ExprPtr c4 = Case({Literal(Scalar::Bool(true)), x}, div, Int32());
  ASSERT_OK_AND_ASSIGN(ArrayPtr out4, Eval(c4, *batch));
  EXPECT_EQ(Text(*out4), "0,5,NULL,-4,0");
  ASSERT_OK_AND_ASSIGN(PhysicalExprPtr p, Compile(c, batch->schema()));
  EXPECT_EQ(p->ToString(), "CASE WHEN x = 0 THEN 0 ELSE 100 / x END");
}

TEST(PhysicalExprTest, EvaluateConstant) {
  ASSERT_OK_AND_ASSIGN(ExprPtr e,
                       Bind("multiply", {Literal(Scalar::I32(6)), Literal(Scalar::I32(7))}));
  ASSERT_OK_AND_ASSIGN(Scalar s, EvaluateConstant(e));
  EXPECT_EQ(s.get<int32_t>(), 42);
  ASSERT_OK_AND_ASSIGN(ExprPtr bad,
                       Bind("divide", {Literal(Scalar::I32(1)), Literal(Scalar::I32(0))}));
  EXPECT_THAT(EvaluateConstant(bad), IsErrorWith(StatusCode::kInvalidArgument, "division by zero"));
  ASSERT_OK_AND_ASSIGN(ExprPtr n,
                       Bind("add", {Literal(Scalar::I32(1)), Literal(Scalar::Null(Int32()))}));
  ASSERT_OK_AND_ASSIGN(Scalar ns, EvaluateConstant(n));
  EXPECT_TRUE(ns.is_null());
}

TEST(PhysicalExprTest, UncoercedArgumentsAreCast) {
  // eq(int32, int64) built without casts still compares as bigint.
  RecordBatchPtr batch = MakeBatch({{"a", I32s({1, 2})}, {"b", I64s({1, 5000000000})}});
  ExprPtr e = Compare("eq", Col(*batch, 0), Col(*batch, 1));
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, Eval(e, *batch));
  EXPECT_EQ(Text(*out), "t,f");
  // A decimal result type chosen by the caller is honoured.
  ExprPtr sum = Call("add",
                     {Literal(Scalar::Make(Decimal(5, 2), Int128{150})),
                      Literal(Scalar::Make(Decimal(5, 2), Int128{25}))},
                     Decimal(10, 3));
  ASSERT_OK_AND_ASSIGN(Scalar s, EvaluateConstant(sum));
  EXPECT_EQ(s.type()->ToString(), "decimal(10,3)");
  EXPECT_TRUE(s.get<Int128>() == 1750);
}

// Hashing ----------------------------------------------------------------------------------

TEST(HashTest, EqualValuesHashEqually) {
  std::vector<uint64_t> h;
  ASSERT_OK(HashRows({I64s({1, 2, 1, std::nullopt, std::nullopt})}, &h));
  ASSERT_EQ(h.size(), 5u);
  EXPECT_EQ(h[0], h[2]);
  EXPECT_NE(h[0], h[1]);
  EXPECT_EQ(h[3], h[4]);
  ASSERT_OK(HashRows({F64s({0.0, -0.0, std::nan(""), -std::nan("")})}, &h));
  EXPECT_EQ(h[0], h[1]);
  EXPECT_EQ(h[2], h[3]);
  ASSERT_OK(HashRows({Strs({"abc", "abd", "abc", ""}), I32s({1, 1, 1, 1})}, &h));
  EXPECT_EQ(h[0], h[2]);
  EXPECT_NE(h[0], h[1]);
  // Column order matters.
  std::vector<uint64_t> h2;
  ASSERT_OK(HashRows({I32s({1}), I32s({2})}, &h));
  ASSERT_OK(HashRows({I32s({2}), I32s({1})}, &h2));
  EXPECT_NE(h[0], h2[0]);
  // A slice hashes like the values it holds.
  ArrayPtr decs = Decs(20, 2, {5, 7, 5});
  ASSERT_OK(HashRows({decs->Slice(1, 2)}, &h));
  ASSERT_OK(HashRows({Decs(20, 2, {7, 5})}, &h2));
  EXPECT_EQ(h, h2);
  // Partitions spread: 1000 consecutive keys over 8 partitions, none empty or over 2x.
  std::vector<std::optional<int64_t>> keys;
  for (int i = 0; i < 1000; ++i) keys.push_back(i);
  ASSERT_OK(HashRows({I64s(keys)}, &h));
  std::vector<int> counts(8);
  for (uint64_t v : h) counts[v % 8]++;
  for (int c : counts) {
    EXPECT_GT(c, 60);
    EXPECT_LT(c, 250);
  }
}

// x op ANY|ALL (list) in PostgreSQL's three-valued logic.
TEST(QuantifiedTest, AnyAndAllOverLists) {
  // Rows: [1, 2], [], NULL, [1, NULL], [3], [NULL], [2, 2].
  ListBuilder lb(List(Int32()));
  auto* values = static_cast<Int32Builder*>(lb.value_builder());
  auto list = [&](std::vector<std::optional<int32_t>> elements) {
    ASSERT_OK(lb.Append());
    for (const auto& e : elements) ASSERT_OK(e ? values->Append(*e) : values->AppendNull());
  };
  list({1, 2});
  list({});
  ASSERT_OK(lb.AppendNulls(1));
  list({1, std::nullopt});
  list({3});
  list({std::nullopt});
  list({2, 2});
  ASSERT_OK_AND_ASSIGN(ArrayPtr lists, lb.Finish());
  ArrayPtr twos = I32s({2, 2, 2, 2, 2, 2, 2});
  ArrayPtr nulls = I32s({std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                         std::nullopt, std::nullopt});
  EXPECT_CALL_TEXT("t,f,NULL,NULL,f,NULL,t", "any_eq", {twos, lists});
  EXPECT_CALL_TEXT("f,t,NULL,f,f,NULL,t", "all_eq", {twos, lists});
  EXPECT_CALL_TEXT("t,f,NULL,t,t,NULL,f", "any_ne", {twos, lists});
  EXPECT_CALL_TEXT("f,t,NULL,NULL,t,NULL,f", "all_ne", {twos, lists});
  EXPECT_CALL_TEXT("f,f,NULL,NULL,t,NULL,f", "any_lt", {twos, lists});
  EXPECT_CALL_TEXT("f,t,NULL,f,t,NULL,f", "all_lt", {twos, lists});
  EXPECT_CALL_TEXT("t,t,NULL,NULL,f,NULL,t", "all_ge", {twos, lists});
  // An empty list decides even for a NULL operand; otherwise a NULL operand gives NULL.
  EXPECT_CALL_TEXT("NULL,f,NULL,NULL,NULL,NULL,NULL", "any_eq", {nulls, lists});
  EXPECT_CALL_TEXT("NULL,t,NULL,NULL,NULL,NULL,NULL", "all_eq", {nulls, lists});
  // The elements must have the operand's type (the binder casts); a non-list is refused.
  EXPECT_THAT(ResolveScalarFunction("any_eq", {Int64(), List(Int32())}),
              IsError(StatusCode::kBind));
  EXPECT_THAT(ResolveScalarFunction("any_eq", {Int32(), Int32()}), IsError(StatusCode::kBind));
}

TEST(HashTest, NestedTypes) {
  ListBuilder lb(List(Int32()));
  auto* values = static_cast<Int32Builder*>(lb.value_builder());
  ASSERT_OK(lb.Append());
  ASSERT_OK(values->Append(1));
  ASSERT_OK(values->Append(2));
  ASSERT_OK(lb.Append());
  ASSERT_OK(values->Append(1));
  ASSERT_OK(lb.Append());
  ASSERT_OK(values->Append(1));
  ASSERT_OK(values->Append(2));
  ASSERT_OK(lb.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr lists, lb.Finish());
  std::vector<uint64_t> h;
  ASSERT_OK(HashRows({lists}, &h));
  EXPECT_EQ(h[0], h[2]);
  EXPECT_NE(h[0], h[1]);
  ASSERT_OK(HashRows({lists->Slice(2, 2)}, &h));
  std::vector<uint64_t> full;
  ASSERT_OK(HashRows({lists}, &full));
  EXPECT_EQ(h[0], full[2]);
  EXPECT_EQ(h[1], full[3]);
}

// Row selection ----------------------------------------------------------------------------

TEST(SelectTest, FilterTakeConcatenate) {
  ArrayPtr ints = I32s({1, 2, std::nullopt, 4, 5});
  ArrayPtr strs = Strs({"a", "b", "c", std::nullopt, "e"});
  ArrayPtr mask = Bools({true, false, true, std::nullopt, true});
  ASSERT_OK_AND_ASSIGN(ArrayPtr f, FilterArray(*ints, *mask));
  EXPECT_EQ(Text(*f), "1,NULL,5");
  ASSERT_OK_AND_ASSIGN(ArrayPtr fs, FilterArray(*strs, *mask));
  EXPECT_EQ(Text(*fs), "a,c,e");
  ASSERT_OK_AND_ASSIGN(ArrayPtr fb, FilterArray(*mask, *mask));
  EXPECT_EQ(Text(*fb), "t,t,t");
  // A sliced mask and array.
  ASSERT_OK_AND_ASSIGN(ArrayPtr fsl, FilterArray(*ints->Slice(1, 3), *mask->Slice(2, 3)));
  EXPECT_EQ(Text(*fsl), "2,4");
  const int64_t idx[] = {4, -1, 0, 0, 2};
  ASSERT_OK_AND_ASSIGN(ArrayPtr t, TakeArray(*strs, idx, 5));
  EXPECT_EQ(Text(*t), "e,NULL,a,a,c");
  ASSERT_OK_AND_ASSIGN(ArrayPtr tb, TakeArray(*mask, idx, 5));
  EXPECT_EQ(Text(*tb), "t,NULL,t,t,t");
  ASSERT_OK_AND_ASSIGN(ArrayPtr td, TakeArray(*Decs(10, 2, {1, 2, 3, 4, 5}), idx, 5));
  EXPECT_EQ(Text(*td), "0.05,NULL,0.01,0.01,0.03");
  const int64_t bad[] = {7};
  EXPECT_THAT(TakeArray(*ints, bad, 1), IsError(StatusCode::kInvalidArgument));
  ASSERT_OK_AND_ASSIGN(ArrayPtr c, ConcatenateArrays({ints, ints->Slice(3, 2)}));
  EXPECT_EQ(Text(*c), "1,2,NULL,4,5,4,5");

  RecordBatchPtr batch = MakeBatch({{"i", ints}, {"s", strs}});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr fbatch, FilterBatch(*batch, *mask));
  EXPECT_EQ(fbatch->num_rows(), 3);
  EXPECT_EQ(Text(*fbatch->column(1)), "a,c,e");
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr tbatch, TakeBatch(*batch, idx, 5));
  EXPECT_EQ(Text(*tbatch->column(0)), "5,NULL,1,1,NULL");
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr cat, ConcatenateBatches(batch->schema(), {batch, fbatch}));
  EXPECT_EQ(cat->num_rows(), 8);
  EXPECT_EQ(Text(*cat->column(1)), "a,b,c,NULL,e,a,c,e");
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr none, ConcatenateBatches(batch->schema(), {}));
  EXPECT_EQ(none->num_rows(), 0);
  // All rows pass: the same values.
  ASSERT_OK_AND_ASSIGN(ArrayPtr all, FilterArray(*ints, *Bools({true, true, true, true, true})));
  EXPECT_TRUE(all->Equals(*ints));
}

TEST(SelectTest, NestedTypes) {
  StructBuilder sb(Struct({Field("a", Int32()), Field("b", String())}));
  auto* a = static_cast<Int32Builder*>(sb.field_builder(0));
  auto* b = static_cast<BinaryBuilder*>(sb.field_builder(1));
  for (int i = 0; i < 4; ++i) {
    if (i == 2) {
      ASSERT_OK(sb.AppendNull());
      continue;
    }
    ASSERT_OK(sb.Append());
    ASSERT_OK(a->Append(i));
    ASSERT_OK(b->Append(std::string(1, static_cast<char>('w' + i))));
  }
  ASSERT_OK_AND_ASSIGN(ArrayPtr structs, sb.Finish());
  const int64_t idx[] = {3, 2, -1, 0};
  ASSERT_OK_AND_ASSIGN(ArrayPtr t, TakeArray(*structs, idx, 4));
  EXPECT_EQ(Text(*t), "(3,z),NULL,NULL,(0,w)");
  ASSERT_OK_AND_ASSIGN(ArrayPtr f, FilterArray(*structs->Slice(1, 3), *Bools({true, false, true})));
  EXPECT_EQ(Text(*f), "(1,x),(3,z)");

  ListBuilder lb(List(String()));
  auto* v = static_cast<BinaryBuilder*>(lb.value_builder());
  ASSERT_OK(lb.Append());
  ASSERT_OK(v->Append("p"));
  ASSERT_OK(lb.AppendNull());
  ASSERT_OK(lb.Append());
  ASSERT_OK(v->Append("q"));
  ASSERT_OK(v->Append("r"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr lists, lb.Finish());
  const int64_t lidx[] = {2, -1, 0, 1, 2};
  ASSERT_OK_AND_ASSIGN(ArrayPtr tl, TakeArray(*lists, lidx, 5));
  EXPECT_EQ(Text(*tl), "{q,r},NULL,{p},NULL,{q,r}");
  ASSERT_OK_AND_ASSIGN(ArrayPtr cl, ConcatenateArrays({lists, tl}));
  EXPECT_EQ(cl->length(), 8);
  EXPECT_EQ(Text(*cl), "{p},NULL,{q,r},{q,r},NULL,{p},NULL,{q,r}");
}

}  // namespace
}  // namespace floe::expr
