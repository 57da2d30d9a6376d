// The JSON parser and serializer (json.h) and the kernels SQL cannot reach yet: the
// set-returning functions (jsonb_each, jsonb_array_elements, ...), whose lists of rows the
// Unnest planning will spread over rows.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/batch/value_format.h"
#include "floe/expr/expr.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/json.h"
#include "floe/expr/physical_expr.h"
#include "floe/testing/matchers.h"

namespace floe::expr {
namespace {

std::string Jsonb(std::string_view text) {
  auto v = ParseJson(text, true);
  if (!v.ok()) return "ERROR: " + v.status().message();
  return JsonbText(*v);
}

TEST(JsonTest, JsonbNormalizes) {
  EXPECT_EQ(Jsonb(R"({"b":[1,2],"a":1,"aa":{},"a":3})"), R"({"a": 3, "b": [1, 2], "aa": {}})");
  EXPECT_EQ(Jsonb("[1e2, 1.50e1, -0, -0.0, 1e-3, 0.000e5, 12.340]"),
            "[100, 15.0, 0, 0.0, 0.001, 0, 12.340]");
  EXPECT_EQ(Jsonb(R"("\u00e9\ud83d\ude00\t")"), "\"\xc3\xa9\xf0\x9f\x98\x80\\t\"");
  EXPECT_EQ(Jsonb(" true "), "true");
}

TEST(JsonTest, Errors) {
  EXPECT_EQ(Jsonb("[1,2"),
            "ERROR: invalid input syntax for type json: The input string ended unexpectedly.");
  EXPECT_EQ(Jsonb("01"), "ERROR: invalid input syntax for type json: Token \"01\" is invalid.");
  EXPECT_EQ(Jsonb(R"({"a" 1})"),
            "ERROR: invalid input syntax for type json: Expected \":\", but found \"1\".");
  EXPECT_EQ(Jsonb(R"("\u0000")"),
            "ERROR: unsupported Unicode escape sequence: \\u0000 cannot be converted to text");
  EXPECT_EQ(Jsonb(R"("\ud83d")"),
            "ERROR: invalid input syntax for type json: Unicode low surrogate must follow a high "
            "surrogate.");
  EXPECT_EQ(Jsonb("1e131072"), "ERROR: value overflows numeric format");
  EXPECT_EQ(Jsonb("0e-20000"), "ERROR: value overflows numeric format");
  // Deep nesting is an error, never a deep recursion.
  EXPECT_EQ(Jsonb(std::string(100000, '[')),
            "ERROR: stack depth limit exceeded: json nested deeper than 1000 levels");
  EXPECT_EQ(Jsonb(std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']')).size(),
            2u * kMaxJsonDepth);
}

TEST(JsonTest, JsonKeepsText) {
  ASSERT_OK_AND_ASSIGN(JsonValue v, ParseJson(R"({"a": [1,  2], "a": 1.50})", false));
  EXPECT_EQ(v.keys.size(), 2u);
  EXPECT_EQ(v.Find("a")->text, "1.50");
  EXPECT_EQ(v.items[0].end - v.items[0].begin, 7u);
}

TEST(JsonTest, Order) {
  auto cmp = [](std::string_view a, std::string_view b) {
    return CompareJsonb(*ParseJson(a, true), *ParseJson(b, true));
  };
  EXPECT_EQ(cmp("1.0", "1"), 0);
  EXPECT_EQ(cmp("[1,2]", "[3]"), 1);
  EXPECT_EQ(cmp("5", "[]"), 1);
  EXPECT_EQ(cmp("5", "[1]"), -1);
  EXPECT_EQ(cmp("-2", "-10"), 1);
  EXPECT_EQ(cmp("0.001", "0.01"), -1);
  EXPECT_EQ(cmp(R"({"a":[1]})", R"({"a":5})"), 1);
  EXPECT_EQ(cmp("null", R"("")"), -1);
}

// fn(jsonb literal) evaluated, as text.
std::string EvalSrf(const std::string& fn, const std::string& json) {
  auto resolved = ResolveScalarFunction(fn, {floe::Jsonb()});
  if (!resolved.ok()) return "ERROR: " + resolved.status().message();
  EXPECT_TRUE(resolved->set_returning);
  ExprPtr call = Call(resolved->name, {Literal(Scalar::Make(floe::Jsonb(), Jsonb(json)))},
                      resolved->return_type);
  auto physical = Compile(call, nullptr);
  if (!physical.ok()) return "ERROR: " + physical.status().message();
  auto schema = std::make_shared<const Schema>(std::vector<Field>{});
  auto batch = RecordBatch::Make(schema, 1, {});
  EvalContext ctx;
  auto out = EvaluateToArray(**physical, **batch, ctx);
  if (!out.ok()) return "ERROR: " + out.status().message();
  EXPECT_TRUE((*out)->type()->Equals(*resolved->return_type));
  return FormatValue(**out, 0);
}

TEST(JsonTest, SetReturningKernels) {
  const std::string obj = R"({"f1":[1,2],"f2":"x","f3":null})";
  EXPECT_EQ(EvalSrf("jsonb_object_keys", obj), "{f1,f2,f3}");
  EXPECT_EQ(EvalSrf("jsonb_each", obj), R"j({"(f1,\"[1, 2]\")","(f2,\"\"\"x\"\"\")","(f3,null)"})j");
  EXPECT_EQ(EvalSrf("jsonb_each_text", obj), R"j({"(f1,\"[1, 2]\")","(f2,x)","(f3,)"})j");
  const std::string arr = R"([1,"a",null,{"b":[2]}])";
  EXPECT_EQ(EvalSrf("jsonb_array_elements", arr), R"({1,"\"a\"","null","{\"b\": [2]}"})");
  EXPECT_EQ(EvalSrf("jsonb_array_elements_text", arr), R"({1,a,NULL,"{\"b\": [2]}"})");
  EXPECT_EQ(EvalSrf("jsonb_array_elements", "5"), "ERROR: cannot extract elements from a scalar");
  EXPECT_EQ(EvalSrf("jsonb_array_elements", "{}"),
            "ERROR: cannot extract elements from an object");
  EXPECT_EQ(EvalSrf("jsonb_each", "[]"), "ERROR: cannot call jsonb_each on a non-object");
  EXPECT_EQ(EvalSrf("jsonb_object_keys", "[]"),
            "ERROR: cannot call jsonb_object_keys on an array");
}

}  // namespace
}  // namespace floe::expr
