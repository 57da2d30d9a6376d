// String, date/time and math functions: resolution (PostgreSQL's argument and result types)
// and evaluation through Compile/Evaluate, with exact values, NULLs, edge cases and every
// error text.

#include <climits>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/expr.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/physical_expr.h"
#include "floe/testing/matchers.h"

namespace floe::expr {
namespace {

using internal::CastValue;

// A literal argument, or a column given by its rows.
using Arg = std::variant<Scalar, std::vector<Scalar>>;

std::string ErrorText(const Status& st) {
  if (st.code() == StatusCode::kInvalidArgument) return "ERROR: " + st.message();
  return st.ToString();
}

// Evaluates name(args) over `rows` rows and returns each row's PostgreSQL text ("NULL" for
// NULL), or one "ERROR: message" entry when resolution or evaluation fails.
std::vector<std::string> EvalRows(const std::string& name, const std::vector<Arg>& args,
                                  int64_t rows) {
  std::vector<TypePtr> types;
  std::vector<Field> fields;
  std::vector<ArrayPtr> columns;
  for (const Arg& a : args) {
    if (const auto* s = std::get_if<Scalar>(&a)) {
      types.push_back(s->type());
    } else {
      const auto& values = std::get<std::vector<Scalar>>(a);
      auto builder = MakeBuilder(values[0].type());
      for (const Scalar& v : values) EXPECT_OK(builder->AppendScalar(v));
      auto array = builder->Finish();
      EXPECT_OK(array);
      types.push_back(values[0].type());
      fields.emplace_back("c" + std::to_string(columns.size()), values[0].type());
      columns.push_back(*array);
    }
  }
  auto resolved = ResolveScalarFunction(name, types);
  if (!resolved.ok()) return {ErrorText(resolved.status())};
  std::vector<ExprPtr> arg_exprs;
  int column = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    ExprPtr e;
    if (const auto* s = std::get_if<Scalar>(&args[i])) {
      e = Literal(*s);
    } else {
      e = Column(column, "c" + std::to_string(column), types[i]);
      ++column;
    }
    if (!types[i]->Equals(*resolved->arg_types[i])) e = Cast(e, resolved->arg_types[i]);
    arg_exprs.push_back(e);
  }
  ExprPtr call = Call(resolved->name, arg_exprs, resolved->return_type);
  auto schema = std::make_shared<const Schema>(fields);
  auto batch = RecordBatch::Make(schema, rows, columns);
  if (!batch.ok()) return {ErrorText(batch.status())};
  auto physical = Compile(call, schema);
  if (!physical.ok()) return {ErrorText(physical.status())};
  EvalContext ctx;
  auto out = EvaluateToArray(**physical, **batch, ctx);
  if (!out.ok()) return {ErrorText(out.status())};
  EXPECT_TRUE((*out)->type()->Equals(*resolved->return_type))
      << (*out)->type()->ToString() << " vs " << resolved->return_type->ToString();
  std::vector<std::string> texts;
  for (int64_t i = 0; i < (*out)->length(); ++i) texts.push_back(FormatValue(**out, i));
  return texts;
}

// name(literals) as text.
std::string Eval(const std::string& name, const std::vector<Scalar>& args) {
  std::vector<Arg> a(args.begin(), args.end());
  std::vector<std::string> rows = EvalRows(name, a, 1);
  return rows.empty() ? "<no rows>" : rows[0];
}

// The resolved signature: "name(arg types) -> return type".
std::string Signature(const std::string& name, const std::vector<TypePtr>& types) {
  auto r = ResolveScalarFunction(name, types);
  if (!r.ok()) return ErrorText(r.status());
  std::string s = r->name + "(";
  for (size_t i = 0; i < r->arg_types.size(); ++i) {
    if (i > 0) s += ", ";
    s += r->arg_types[i]->ToString();
  }
  return s + ") -> " + r->return_type->ToString();
}

Scalar S(std::string v) { return Scalar::Str(std::move(v)); }
Scalar I(int32_t v) { return Scalar::I32(v); }
Scalar L(int64_t v) { return Scalar::I64(v); }
Scalar F(double v) { return Scalar::F64(v); }
Scalar Dec(Int128 unscaled, int precision, int scale) {
  return Scalar::Make(Decimal(precision, scale), unscaled);
}
Scalar Null(TypePtr t) { return Scalar::Null(std::move(t)); }

// A value of `type` from its text form (through the cast).
Scalar Parse(std::string_view text, TypePtr type) {
  EvalContext ctx;
  auto v = CastValue(ColumnarValue(S(std::string(text))), type, 1, ctx);
  EXPECT_OK(v);
  return v->scalar();
}
Scalar Ts(std::string_view text) { return Parse(text, Timestamp()); }
Scalar Tstz(std::string_view text) { return Parse(text, TimestampTz()); }
Scalar Day(std::string_view text) { return Parse(text, Date()); }

using Rows = std::vector<std::string>;

// ---------------------------------------------------------------------------------------
// Strings.

TEST(StringFunctionsTest, Lengths) {
  EXPECT_EQ(Eval("length", {S("héllo")}), "5");
  EXPECT_EQ(Eval("char_length", {S("")}), "0");
  EXPECT_EQ(Eval("character_length", {S("abc")}), "3");
  EXPECT_EQ(Eval("octet_length", {S("héllo")}), "6");
  EXPECT_EQ(Eval("length", {Null(String())}), "NULL");
  EXPECT_EQ(Signature("char_length", {String()}), "length(string) -> int32");
  EXPECT_EQ(Eval("length", {I(5)}), "Bind error: function length(integer) does not exist");
  EXPECT_EQ(EvalRows("length", {std::vector<Scalar>{S("ab"), Null(String()), S("ü")}}, 3),
            (Rows{"2", "NULL", "1"}));
}

TEST(StringFunctionsTest, Case) {
  EXPECT_EQ(Eval("lower", {S("HeLLo ÀÉ")}), "hello àé");
  EXPECT_EQ(Eval("upper", {S("héllo wörld")}), "HÉLLO WÖRLD");
  EXPECT_EQ(Eval("upper", {Null(String())}), "NULL");
  EXPECT_EQ(Eval("initcap", {S("hi THOMAS, o'neil")}), "Hi Thomas, O'Neil");
}

TEST(StringFunctionsTest, Substr) {
  EXPECT_EQ(Eval("substr", {S("Thomas"), I(2), I(3)}), "hom");
  EXPECT_EQ(Eval("substring", {S("Thomas"), I(3)}), "omas");
  EXPECT_EQ(Eval("substr", {S("Thomas"), I(0), I(3)}), "Th");
  EXPECT_EQ(Eval("substr", {S("Thomas"), I(-1), I(5)}), "Tho");
  EXPECT_EQ(Eval("substr", {S("Thomas"), I(-5), I(3)}), "");
  EXPECT_EQ(Eval("substr", {S("Thomas"), I(10)}), "");
  EXPECT_EQ(Eval("substr", {S("Thomas"), I(5), I(100)}), "as");
  EXPECT_EQ(Eval("substr", {S("héllo"), I(2), I(2)}), "él");
  EXPECT_EQ(Eval("substr", {S("Thomas"), I(2), I(-1)}),
            "ERROR: negative substring length not allowed");
  EXPECT_EQ(Eval("substr", {S("Thomas"), Null(Int32()), I(1)}), "NULL");
  // int2 arguments cast implicitly; the resolution names the canonical function.
  EXPECT_EQ(Signature("substring", {String(), Int16(), Int16()}),
            "substr(string, int32, int32) -> string");
  EXPECT_EQ(EvalRows("substr", {std::vector<Scalar>{S("abc"), S("xyz"), Null(String())}, I(2)}, 3),
            (Rows{"bc", "yz", "NULL"}));
}

TEST(StringFunctionsTest, PositionReplaceTrim) {
  EXPECT_EQ(Eval("strpos", {S("high"), S("ig")}), "2");
  EXPECT_EQ(Eval("position", {S("héllo"), S("l")}), "3");
  EXPECT_EQ(Eval("strpos", {S("abc"), S("z")}), "0");
  EXPECT_EQ(Eval("strpos", {S("abc"), S("")}), "1");
  EXPECT_EQ(Eval("replace", {S("abcabc"), S("b"), S("XX")}), "aXXcaXXc");
  EXPECT_EQ(Eval("replace", {S("abc"), S(""), S("x")}), "abc");
  EXPECT_EQ(Eval("replace", {S("abc"), Null(String()), S("x")}), "NULL");
  EXPECT_EQ(Eval("btrim", {S("xyxabcyx"), S("xy")}), "abc");
  EXPECT_EQ(Eval("trim", {S("  abc  ")}), "abc");
  EXPECT_EQ(Eval("ltrim", {S("  abc ")}), "abc ");
  EXPECT_EQ(Eval("rtrim", {S(" abc  ")}), " abc");
  EXPECT_EQ(Eval("rtrim", {S("abcéé"), S("é")}), "abc");
  EXPECT_EQ(Eval("ltrim", {S("xxx"), S("x")}), "");
}

TEST(StringFunctionsTest, Concat) {
  EXPECT_EQ(Eval("concat", {S("a"), Null(String()), S("b")}), "ab");
  EXPECT_EQ(Eval("concat", {S("a"), I(1), F(2.5)}), "a12.5");
  EXPECT_EQ(Eval("concat", {Null(String())}), "");
  EXPECT_EQ(Eval("concat_ws", {S(","), S("a"), Null(String()), S("b")}), "a,b");
  EXPECT_EQ(Eval("concat_ws", {Null(String()), S("a")}), "NULL");
  EXPECT_EQ(Eval("concat_op", {S("ab"), S("cd")}), "abcd");
  EXPECT_EQ(Eval("concat_op", {S("ab"), Null(String())}), "NULL");
  EXPECT_EQ(Eval("concat_op", {I(1), I(2)}),
            "Bind error: operator does not exist: integer || integer");
  EXPECT_EQ(EvalRows("concat", {std::vector<Scalar>{S("x"), Null(String())}, S("!")}, 2),
            (Rows{"x!", "!"}));
}

TEST(StringFunctionsTest, SplitLeftRightRepeatPad) {
  EXPECT_EQ(Eval("starts_with", {S("alphabet"), S("alph")}), "t");
  EXPECT_EQ(Eval("starts_with", {S("alphabet"), S("b")}), "f");
  EXPECT_EQ(Eval("split_part", {S("a,b,c"), S(","), I(2)}), "b");
  EXPECT_EQ(Eval("split_part", {S("a,b,c"), S(","), I(-1)}), "c");
  EXPECT_EQ(Eval("split_part", {S("a,b,c"), S(","), I(-3)}), "a");
  EXPECT_EQ(Eval("split_part", {S("a,b,c"), S(","), I(4)}), "");
  EXPECT_EQ(Eval("split_part", {S("a,,c"), S(",,"), I(2)}), "c");
  EXPECT_EQ(Eval("split_part", {S("a,b,c"), S(","), I(0)}),
            "ERROR: field position must not be zero");
  EXPECT_EQ(Eval("left", {S("abcde"), I(2)}), "ab");
  EXPECT_EQ(Eval("left", {S("abcde"), I(-2)}), "abc");
  EXPECT_EQ(Eval("left", {S("abcde"), I(-9)}), "");
  EXPECT_EQ(Eval("right", {S("abcde"), I(2)}), "de");
  EXPECT_EQ(Eval("right", {S("abcde"), I(-2)}), "cde");
  EXPECT_EQ(Eval("right", {S("héllo"), I(4)}), "éllo");
  EXPECT_EQ(Eval("repeat", {S("ab"), I(3)}), "ababab");
  EXPECT_EQ(Eval("repeat", {S("ab"), I(-1)}), "");
  EXPECT_EQ(Eval("repeat", {S("ab"), I(INT_MAX)}), "ERROR: requested length too large");
  EXPECT_EQ(Eval("reverse", {S("héllo")}), "olléh");
  EXPECT_EQ(Eval("lpad", {S("hi"), I(5), S("xy")}), "xyxhi");
  EXPECT_EQ(Eval("rpad", {S("hi"), I(5), S("xy")}), "hixyx");
  EXPECT_EQ(Eval("lpad", {S("hello"), I(2)}), "he");
  EXPECT_EQ(Eval("lpad", {S("hi"), I(5)}), "   hi");
  EXPECT_EQ(Eval("rpad", {S("hi"), I(5), S("")}), "hi");
  EXPECT_EQ(Eval("lpad", {S("hi"), I(-1)}), "");
}

TEST(StringFunctionsTest, MiscCharacters) {
  EXPECT_EQ(Eval("md5", {S("abc")}), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Eval("md5", {S("")}), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Eval("ascii", {S("A")}), "65");
  EXPECT_EQ(Eval("ascii", {S("é")}), "233");
  EXPECT_EQ(Eval("chr", {I(233)}), "é");
  EXPECT_EQ(Eval("chr", {I(0)}), "ERROR: null character not permitted");
  EXPECT_EQ(Eval("translate", {S("12345"), S("143"), S("ax")}), "a2x5");
  EXPECT_EQ(Eval("translate", {S("héllo"), S("él"), S("EL")}), "hELLo");
  EXPECT_EQ(Eval("to_hex", {I(255)}), "ff");
  EXPECT_EQ(Eval("to_hex", {I(-1)}), "ffffffff");
  EXPECT_EQ(Eval("to_hex", {L(-1)}), "ffffffffffffffff");
  EXPECT_EQ(Eval("bit_length", {S("é")}), "16");
}

TEST(StringFunctionsTest, RegularExpressions) {
  EXPECT_EQ(Eval("regexp_like", {S("abc123"), S("\\d+")}), "t");
  EXPECT_EQ(Eval("regexp_like", {S("ABC"), S("b"), S("i")}), "t");
  EXPECT_EQ(Eval("regex_match", {S("abc"), S("^A")}), "f");
  EXPECT_EQ(Eval("regex_imatch", {S("abc"), S("^A")}), "t");
  EXPECT_EQ(Eval("regex_imatch", {S("abc"), S("^B")}), "f");
  EXPECT_EQ(Eval("regex_match", {Null(String()), S("a")}), "NULL");
  // regexp_match: the first match's groups, NULL without one.
  EXPECT_EQ(Eval("regexp_match", {S("foobarbequebaz"), S("(bar)(beque)")}), "{bar,beque}");
  EXPECT_EQ(Eval("regexp_match", {S("foobar"), S("o+")}), "{oo}");
  EXPECT_EQ(Eval("regexp_match", {S("ab"), S("(a)(x)?")}), "{a,NULL}");
  EXPECT_EQ(Eval("regexp_match", {S("abc"), S("x")}), "NULL");
  // regexp_matches is set-returning: per row the list of its rows (one per match with 'g').
  EXPECT_EQ(Eval("regexp_matches", {S("foobarbequebaz"), S("(bar)(beque)")}), "{{bar,beque}}");
  EXPECT_EQ(Eval("regexp_matches", {S("abcabc"), S("(b)(c)"), S("g")}), "{{b,c},{b,c}}");
  EXPECT_EQ(Eval("regexp_matches", {S("abc"), S(""), S("g")}), R"({{""},{""},{""},{""}})");
  EXPECT_EQ(Eval("regexp_matches", {S("abc"), S("x")}), "{}");
  EXPECT_EQ(Eval("regexp_matches", {Null(String()), S("x")}), "NULL");
  EXPECT_EQ(Signature("regexp_matches", {String(), String()}),
            "regexp_matches(string, string) -> list<list<string>>");
  EXPECT_EQ(Eval("regexp_replace", {S("Thomas"), S(".[mN]a."), S("M")}), "ThM");
  EXPECT_EQ(Eval("regexp_replace", {S("foobarbaz"), S("b.."), S("X"), S("g")}), "fooXX");
  EXPECT_EQ(Eval("regexp_replace", {S("foobarbaz"), S("b.."), S("X")}), "fooXbaz");
  EXPECT_EQ(Eval("regexp_replace", {S("abc"), S("b"), S("[\\&]")}), "a[b]c");
  EXPECT_EQ(Eval("regexp_replace", {S("John Smith"), S("(\\w+) (\\w+)"), S("\\2, \\1")}),
            "Smith, John");
  EXPECT_EQ(Eval("regexp_replace", {S("abc"), S("x*"), S("-"), S("g")}), "-a-b-c-");
  EXPECT_EQ(Eval("regexp_replace", {S("ABC"), S("b"), S("x"), S("gi")}), "AxC");
  EXPECT_EQ(Eval("regexp_like", {S("a"), S("(")}).substr(0, 37),
            "ERROR: invalid regular expression \"(\"");
  EXPECT_EQ(Eval("regexp_like", {S("a"), S("a"), S("z")}),
            "ERROR: invalid regular expression option: \"z\"");
  EXPECT_EQ(
      EvalRows("regex_match",
               {std::vector<Scalar>{S("a1"), S("bb"), Null(String()), S("c3")}, S("[0-9]")}, 4),
      (Rows{"t", "f", "NULL", "t"}));
}

// ---------------------------------------------------------------------------------------
// Math.

TEST(MathFunctionsTest, Abs) {
  EXPECT_EQ(Eval("abs", {I(-5)}), "5");
  EXPECT_EQ(Signature("abs", {Int32()}), "abs(int32) -> int32");
  EXPECT_EQ(Signature("abs", {Decimal(5, 2)}), "abs(decimal(5,2)) -> decimal(5,2)");
  EXPECT_EQ(Eval("abs", {I(INT_MIN)}), "ERROR: integer out of range");
  EXPECT_EQ(Eval("abs", {L(INT64_MIN)}), "ERROR: bigint out of range");
  EXPECT_EQ(Eval("abs", {Scalar::Make(Int16(), int32_t{-32768})}), "ERROR: smallint out of range");
  EXPECT_EQ(Eval("abs", {F(-1.5)}), "1.5");
  EXPECT_EQ(Eval("abs", {Dec(-150, 5, 2)}), "1.50");
  EXPECT_EQ(Eval("abs", {Null(Int64())}), "NULL");
  EXPECT_EQ(EvalRows("abs", {std::vector<Scalar>{I(-1), Null(Int32()), I(2)}}, 3),
            (Rows{"1", "NULL", "2"}));
}

TEST(MathFunctionsTest, Rounding) {
  // float8 rounds halves to even (rint); numeric rounds them away from zero.
  EXPECT_EQ(Eval("round", {F(2.5)}), "2");
  EXPECT_EQ(Eval("round", {F(3.5)}), "4");
  EXPECT_EQ(Eval("round", {F(-2.5)}), "-2");
  EXPECT_EQ(Signature("round", {Int32()}), "round(float64) -> float64");
  EXPECT_EQ(Signature("round", {Decimal(5, 1)}), "round(decimal(5,1)) -> decimal(5,0)");
  EXPECT_EQ(Eval("round", {Dec(25, 5, 1)}), "3");
  EXPECT_EQ(Eval("round", {Dec(-25, 5, 1)}), "-3");
  // round(numeric, digits) is numeric's: the result has `digits` decimals (PostgreSQL's).
  EXPECT_EQ(Signature("round", {Decimal(6, 3), Int32()}), "round(numeric, int32) -> numeric");
  EXPECT_EQ(Eval("round", {Dec(1235, 6, 3), I(2)}), "1.24");
  EXPECT_EQ(Eval("round", {Dec(-1235, 6, 3), I(2)}), "-1.24");
  EXPECT_EQ(Eval("round", {Dec(123456, 6, 3), I(-1)}), "120");
  EXPECT_EQ(Eval("round", {Dec(999, 3, 1), I(-2)}), "100");
  EXPECT_EQ(Eval("round", {I(5), I(1)}), "5.0");
  EXPECT_EQ(Signature("round", {Int32(), Int32()}), "round(numeric, int32) -> numeric");
  EXPECT_EQ(Eval("round", {F(1.5), I(1)}),
            "Bind error: function round(double precision, integer) does not exist");
  EXPECT_EQ(Eval("floor", {F(-1.5)}), "-2");
  EXPECT_EQ(Eval("ceil", {F(-1.5)}), "-1");
  EXPECT_EQ(Eval("ceiling", {F(1.2)}), "2");
  EXPECT_EQ(Eval("floor", {Dec(-125, 4, 2)}), "-2");
  EXPECT_EQ(Eval("ceil", {Dec(125, 4, 2)}), "2");
  EXPECT_EQ(Eval("ceil", {Dec(-125, 4, 2)}), "-1");
  EXPECT_EQ(Eval("trunc", {F(-1.7)}), "-1");
  EXPECT_EQ(Eval("trunc", {Dec(1239, 5, 3), I(2)}), "1.23");
  EXPECT_EQ(Eval("trunc", {Dec(-1239, 5, 3)}), "-1");
  EXPECT_EQ(Eval("round", {Null(Float64())}), "NULL");
}

TEST(MathFunctionsTest, PowersAndLogarithms) {
  EXPECT_EQ(Eval("power", {I(2), I(10)}), "1024");
  EXPECT_EQ(Eval("pow", {F(2), F(-1)}), "0.5");
  EXPECT_EQ(Eval("power", {F(0), F(-1)}), "ERROR: zero raised to a negative power is undefined");
  EXPECT_EQ(Eval("power", {F(-8), F(0.5)}),
            "ERROR: a negative number raised to a non-integer power yields a complex result");
  EXPECT_EQ(Eval("power", {F(10), F(400)}), "ERROR: value out of range: overflow");
  EXPECT_EQ(Eval("sqrt", {I(16)}), "4");
  EXPECT_EQ(Eval("sqrt", {F(-1)}), "ERROR: cannot take square root of a negative number");
  // The C library's cube root, as PostgreSQL's (glibc's is 1 ulp above 3 for 27).
  EXPECT_EQ(Eval("cbrt", {F(27)}), "3.0000000000000004");
  EXPECT_EQ(Eval("cbrt", {F(64)}), "4");
  EXPECT_EQ(Eval("cbrt", {F(-8)}), "-2");
  EXPECT_EQ(Eval("ln", {F(0)}), "ERROR: cannot take logarithm of zero");
  EXPECT_EQ(Eval("ln", {F(-1)}), "ERROR: cannot take logarithm of a negative number");
  EXPECT_EQ(Eval("ln", {F(1)}), "0");
  EXPECT_EQ(Eval("log", {F(100)}), "2");
  EXPECT_EQ(Eval("log10", {F(1000)}), "3");
  EXPECT_EQ(Eval("log", {F(2), F(8)}), "3");
  EXPECT_EQ(Eval("log", {F(0), F(8)}), "ERROR: cannot take logarithm of zero");
  EXPECT_EQ(Eval("exp", {F(0)}), "1");
  EXPECT_EQ(Eval("exp", {F(1000)}), "ERROR: value out of range: overflow");
  EXPECT_EQ(Eval("exp", {F(-1000)}), "ERROR: value out of range: underflow");
  EXPECT_EQ(Eval("sqrt", {Null(Float64())}), "NULL");
}

TEST(MathFunctionsTest, ModSignAndConstants) {
  EXPECT_EQ(Eval("mod", {I(7), I(3)}), "1");
  EXPECT_EQ(Eval("mod", {I(-7), I(3)}), "-1");
  EXPECT_EQ(Eval("mod", {I(7), I(0)}), "ERROR: division by zero");
  EXPECT_EQ(Eval("mod", {I(INT_MIN), I(-1)}), "0");
  EXPECT_EQ(Eval("mod", {Dec(75, 3, 1), I(2)}), "1.5");
  EXPECT_EQ(Eval("mod", {Dec(75, 3, 1), Dec(0, 3, 1)}), "ERROR: division by zero");
  EXPECT_EQ(Eval("sign", {F(-3)}), "-1");
  EXPECT_EQ(Eval("sign", {I(0)}), "0");
  EXPECT_EQ(Eval("sign", {Dec(-25, 3, 1)}), "-1");
  EXPECT_EQ(Eval("pi", {}), "3.141592653589793");
  EXPECT_EQ(Eval("degrees", {F(3.141592653589793)}), "180");
  EXPECT_EQ(Eval("radians", {F(180)}), "3.141592653589793");
  EXPECT_EQ(Eval("sin", {F(0)}), "0");
  EXPECT_EQ(Eval("cos", {F(0)}), "1");
  EXPECT_EQ(Eval("asin", {F(2)}), "ERROR: input is out of range");
  EXPECT_EQ(Eval("atan2", {F(1), F(1)}), "0.7853981633974483");
  EXPECT_EQ(Eval("gcd", {I(12), I(18)}), "6");
  EXPECT_EQ(Eval("gcd", {I(-12), I(0)}), "12");
  EXPECT_EQ(Eval("gcd", {I(INT_MIN), I(0)}), "ERROR: integer out of range");
  EXPECT_EQ(Eval("lcm", {I(4), I(6)}), "12");
  EXPECT_EQ(Eval("lcm", {I(INT_MAX), I(INT_MAX - 1)}), "ERROR: integer out of range");
}

TEST(MathFunctionsTest, RandomIsVolatileAndInRange) {
  auto r = ResolveScalarFunction("random", {});
  ASSERT_OK(r);
  EXPECT_TRUE(r->volatile_function);
  std::vector<std::string> rows = EvalRows("random", {}, 100);
  ASSERT_EQ(rows.size(), 100u);
  for (const std::string& v : rows) {
    const double d = std::stod(v);
    EXPECT_GE(d, 0.0);
    EXPECT_LT(d, 1.0);
  }
  EXPECT_NE(rows[0], rows[1]);
}

// ---------------------------------------------------------------------------------------
// Dates and times.

TEST(DatetimeFunctionsTest, DateTrunc) {
  const Scalar ts = Ts("2024-05-17 10:11:12.123456");
  EXPECT_EQ(Eval("date_trunc", {S("month"), ts}), "2024-05-01 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {S("week"), ts}), "2024-05-13 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {S("quarter"), ts}), "2024-04-01 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {S("YEAR"), ts}), "2024-01-01 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {S("decade"), ts}), "2020-01-01 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {S("century"), ts}), "2001-01-01 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {S("century"), Ts("2000-12-31 00:00:00")}), "1901-01-01 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {S("millennium"), ts}), "2001-01-01 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {S("day"), ts}), "2024-05-17 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {S("hour"), ts}), "2024-05-17 10:00:00");
  EXPECT_EQ(Eval("date_trunc", {S("minute"), ts}), "2024-05-17 10:11:00");
  EXPECT_EQ(Eval("date_trunc", {S("second"), ts}), "2024-05-17 10:11:12");
  EXPECT_EQ(Eval("date_trunc", {S("milliseconds"), ts}), "2024-05-17 10:11:12.123");
  EXPECT_EQ(Eval("date_trunc", {S("microseconds"), ts}), "2024-05-17 10:11:12.123456");
  EXPECT_EQ(Eval("date_trunc", {S("day"), Ts("1969-12-31 23:00:00")}), "1969-12-31 00:00:00");
  EXPECT_EQ(Eval("date_trunc", {S("hour"), Tstz("2024-05-17 10:11:12+02")}),
            "2024-05-17 08:00:00+00");
  // A date is passed as timestamptz, as PostgreSQL prefers.
  EXPECT_EQ(Signature("date_trunc", {String(), Date()}),
            "date_trunc(string, timestamptz) -> timestamptz");
  EXPECT_EQ(Eval("date_trunc", {S("month"), Day("2024-05-17")}), "2024-05-01 00:00:00+00");
  EXPECT_EQ(Eval("date_trunc", {S("fortnight"), ts}),
            "ERROR: unit \"fortnight\" not recognized for type timestamp without time zone");
  EXPECT_EQ(Eval("date_trunc", {S("dow"), ts}),
            "ERROR: unit \"dow\" not recognized for type timestamp without time zone");
  EXPECT_EQ(Eval("date_trunc", {Null(String()), ts}), "NULL");
  EXPECT_EQ(Eval("date_trunc", {S("day"), Null(Timestamp())}), "NULL");
  EXPECT_EQ(
      EvalRows("date_trunc", {std::vector<Scalar>{S("year"), S("month"), Null(String())}, ts}, 3),
      (Rows{"2024-01-01 00:00:00", "2024-05-01 00:00:00", "NULL"}));
}

TEST(DatetimeFunctionsTest, DatePart) {
  const Scalar ts = Ts("2024-05-17 10:11:12.5");
  EXPECT_EQ(Signature("date_part", {String(), Date()}), "date_part(string, timestamp) -> float64");
  EXPECT_EQ(Eval("date_part", {S("year"), ts}), "2024");
  EXPECT_EQ(Eval("date_part", {S("quarter"), ts}), "2");
  EXPECT_EQ(Eval("date_part", {S("month"), ts}), "5");
  EXPECT_EQ(Eval("date_part", {S("day"), ts}), "17");
  EXPECT_EQ(Eval("date_part", {S("hour"), ts}), "10");
  EXPECT_EQ(Eval("date_part", {S("minute"), ts}), "11");
  EXPECT_EQ(Eval("date_part", {S("second"), ts}), "12.5");
  EXPECT_EQ(Eval("date_part", {S("milliseconds"), ts}), "12500");
  EXPECT_EQ(Eval("date_part", {S("microseconds"), ts}), "12500000");
  EXPECT_EQ(Eval("date_part", {S("dow"), ts}), "5");
  EXPECT_EQ(Eval("date_part", {S("isodow"), ts}), "5");
  EXPECT_EQ(Eval("date_part", {S("dow"), Day("2024-05-19")}), "0");
  EXPECT_EQ(Eval("date_part", {S("isodow"), Day("2024-05-19")}), "7");
  EXPECT_EQ(Eval("date_part", {S("doy"), ts}), "138");
  EXPECT_EQ(Eval("date_part", {S("week"), ts}), "20");
  EXPECT_EQ(Eval("date_part", {S("week"), Day("2021-01-01")}), "53");
  EXPECT_EQ(Eval("date_part", {S("isoyear"), Day("2021-01-01")}), "2020");
  EXPECT_EQ(Eval("date_part", {S("decade"), ts}), "202");
  EXPECT_EQ(Eval("date_part", {S("century"), Day("2000-06-01")}), "20");
  EXPECT_EQ(Eval("date_part", {S("century"), Day("2001-01-01")}), "21");
  EXPECT_EQ(Eval("date_part", {S("millennium"), Day("2000-06-01")}), "2");
  EXPECT_EQ(Eval("date_part", {S("epoch"), Ts("1970-01-02 00:00:01.5")}), "86401.5");
  EXPECT_EQ(Eval("date_part", {S("epoch"), Ts("1969-12-31 23:59:59")}), "-1");
  EXPECT_EQ(Eval("date_part", {S("julian"), Day("1970-01-01")}), "2440588");
  EXPECT_EQ(Eval("date_part", {S("year"), Day("0044-03-15 BC")}), "-44");
  EXPECT_EQ(Eval("date_part", {S("timezone"), Tstz("2024-05-17 10:00:00+02")}), "0");
  EXPECT_EQ(Eval("date_part", {S("hour"), Tstz("2024-05-17 10:00:00+02")}), "8");
  EXPECT_EQ(Eval("date_part", {S("hour"), Parse("10:11:12", Time())}), "10");
  EXPECT_EQ(Eval("date_part", {S("epoch"), Parse("01:00:00.25", Time())}), "3600.25");
  EXPECT_EQ(Eval("date_part", {S("year"), Parse("10:11:12", Time())}),
            "ERROR: unit \"year\" not supported for type time without time zone");
  EXPECT_EQ(Eval("date_part", {S("eon"), ts}),
            "ERROR: unit \"eon\" not recognized for type timestamp without time zone");
  EXPECT_EQ(Eval("date_part", {S("timezone"), ts}),
            "ERROR: unit \"timezone\" not supported for type timestamp without time zone");
  EXPECT_EQ(Eval("date_part", {S("year"), Null(Timestamp())}), "NULL");
}

TEST(DatetimeFunctionsTest, Extract) {
  const Scalar ts = Ts("2024-05-17 10:11:12.5");
  EXPECT_EQ(Signature("extract", {String(), TimestampTz()}),
            "extract(string, timestamptz) -> decimal(38,6)");
  EXPECT_EQ(Eval("extract", {S("year"), ts}), "2024.000000");
  EXPECT_EQ(Eval("extract", {S("second"), ts}), "12.500000");
  EXPECT_EQ(Eval("extract", {S("epoch"), Ts("2001-02-16 20:38:40.123456")}), "982355920.123456");
  EXPECT_EQ(Eval("extract", {S("julian"), Ts("1970-01-01 12:00:00")}), "2440588.500000");
  EXPECT_EQ(Eval("extract", {S("day"), Day("2024-02-29")}), "29.000000");
}

TEST(DatetimeFunctionsTest, ToChar) {
  const Scalar ts = Ts("2024-05-07 14:05:09.123456");
  EXPECT_EQ(Eval("to_char", {ts, S("YYYY-MM-DD HH24:MI:SS.US")}), "2024-05-07 14:05:09.123456");
  EXPECT_EQ(Eval("to_char", {ts, S("HH12:MI PM, Dy Mon DD YY")}), "02:05 PM, Tue May 07 24");
  EXPECT_EQ(Eval("to_char", {ts, S("Day|FMDay|MONTH|FMmonth|")}),
            "Tuesday  |Tuesday|MAY      |may|");
  EXPECT_EQ(Eval("to_char", {ts, S("FMDDth \"of\" FMMonth, Q, DDD, IW, ID, D, MS")}),
            "7th of May, 2, 128, 19, 2, 3, 123");
  EXPECT_EQ(Eval("to_char", {Day("2024-05-07"), S("YYYY/MM/DD TZ")}), "2024/05/07 UTC");
  EXPECT_EQ(Eval("to_char", {Day("0044-03-15 BC"), S("YYYY BC")}), "0044 BC");
  EXPECT_EQ(Eval("to_char", {Null(Timestamp()), S("YYYY")}), "NULL");
  EXPECT_EQ(Eval("to_char", {I(5), S("999")}), "   5");
  EXPECT_EQ(Eval("to_char", {ts, S("")}), "NULL");
}

TEST(DatetimeFunctionsTest, ExtractResultScale) {
  EXPECT_EQ(ExtractResultScale("YEAR"), 0);
  EXPECT_EQ(ExtractResultScale("microseconds"), 0);
  EXPECT_EQ(ExtractResultScale("dow"), 0);
  EXPECT_EQ(ExtractResultScale("milliseconds"), 3);
  EXPECT_EQ(ExtractResultScale("second"), 6);
  EXPECT_EQ(ExtractResultScale("epoch"), 6);
  EXPECT_EQ(ExtractResultScale("fortnight"), -1);
}

TEST(DatetimeFunctionsTest, MakeDateAndToTimestamp) {
  EXPECT_EQ(Eval("make_date", {I(2024), I(2), I(29)}), "2024-02-29");
  EXPECT_EQ(Eval("make_date", {I(2023), I(2), I(29)}),
            "ERROR: date field value out of range: 2023-02-29");
  EXPECT_EQ(Eval("make_date", {I(2023), I(13), I(1)}),
            "ERROR: date field value out of range: 2023-13-01");
  EXPECT_EQ(Eval("make_date", {I(0), I(1), I(1)}), "ERROR: date field value out of range: 0-01-01");
  EXPECT_EQ(Eval("make_date", {I(-44), I(3), I(15)}), "0044-03-15 BC");
  EXPECT_EQ(Eval("make_date", {I(2024), Null(Int32()), I(1)}), "NULL");
  EXPECT_EQ(Eval("make_timestamp", {I(2024), I(2), I(29), I(23), I(59), F(59.5)}),
            "2024-02-29 23:59:59.5");
  EXPECT_EQ(Eval("make_timestamp", {I(2023), I(2), I(29), I(0), I(0), F(0)}),
            "ERROR: date field value out of range: 2023-02-29");
  EXPECT_EQ(Eval("make_timestamp", {I(2024), I(1), I(1), I(25), I(0), F(0)}),
            "ERROR: time field value out of range: 25:00:00");
  EXPECT_EQ(Eval("make_timestamp", {I(2024), I(1), I(1), I(0), Null(Int32()), F(0)}), "NULL");
  EXPECT_EQ(Eval("to_timestamp", {F(86400.5)}), "1970-01-02 00:00:00.5+00");
  EXPECT_EQ(Eval("to_timestamp", {I(0)}), "1970-01-01 00:00:00+00");
}

}  // namespace
}  // namespace floe::expr
