// The type sniffer: which types a CSV value can be read as, a column's type from its values
// (NULLs aside), header detection as DuckDB decides it, column names (from the header,
// deduplicated, or column<i>), and the JSON sniffer's types per key.

#include "floe/connector/text/text_sniffer.h"

#include <gtest/gtest.h>

#include "floe/expr/json.h"
#include "floe/testing/matchers.h"

namespace floe::connector {
namespace {

std::string TypeOfValues(std::vector<std::string> values) {
  SniffMask mask = kAllSniffed;
  for (const std::string& v : values) mask &= SniffValue(v);
  return SniffedTypeOf(mask)->ToString();
}

TEST(TextSnifferTest, ValueTypes) {
  EXPECT_EQ(TypeOfValues({"true", "F", "yes", "No"}), Boolean()->ToString());
  EXPECT_EQ(TypeOfValues({"1", "-20", " 3 ", "9223372036854775807"}), Int64()->ToString());
  EXPECT_EQ(TypeOfValues({"9223372036854775808"}), Float64()->ToString());
  EXPECT_EQ(TypeOfValues({"1", "2.5", "-1e3", ".5", "NaN", "-Infinity"}), Float64()->ToString());
  EXPECT_EQ(TypeOfValues({"10:00", "23:59:59.123"}), Time()->ToString());
  EXPECT_EQ(TypeOfValues({"2024-02-29", "1999-12-31"}), Date()->ToString());
  EXPECT_EQ(TypeOfValues({"2024-01-02 10:00:00", "2024-01-02T10:00:00.5", "2024-01-03"}),
            Timestamp()->ToString());
  EXPECT_EQ(TypeOfValues({"2024-01-02 10:00:00+02", "2024-01-02 10:00:00Z", "2024-01-02"}),
            TimestampTz()->ToString());
}

TEST(TextSnifferTest, WhatStaysText) {
  // Leading zeros and '+' keep codes as text; 0/1 are integers, not booleans.
  EXPECT_EQ(TypeOfValues({"007"}), String()->ToString());
  EXPECT_EQ(TypeOfValues({"+5"}), String()->ToString());
  EXPECT_EQ(TypeOfValues({"0", "1"}), Int64()->ToString());
  EXPECT_EQ(TypeOfValues({"2024-02-30"}), String()->ToString());
  EXPECT_EQ(TypeOfValues({"24:00"}), String()->ToString());
  EXPECT_EQ(TypeOfValues({"1", "x"}), String()->ToString());
  EXPECT_EQ(TypeOfValues({"true", "1"}), String()->ToString());
  EXPECT_EQ(TypeOfValues({"10:00", "2024-01-01"}), String()->ToString());
  EXPECT_EQ(TypeOfValues({}), String()->ToString());
}

std::optional<std::string> S(const char* s) { return std::string(s); }

TEST(TextSnifferTest, HeaderWhenAFirstValueLacksItsColumnsType) {
  CsvSniffResult r = SniffCsv({{S("id"), S("name")}, {S("1"), S("x")}, {S("2"), S("y")}},
                              std::nullopt, false);
  EXPECT_TRUE(r.header);
  EXPECT_EQ(r.names, (std::vector<std::string>{"id", "name"}));
  EXPECT_EQ(r.types[0]->id(), TypeId::kInt64);
  EXPECT_EQ(r.types[1]->id(), TypeId::kString);
}

TEST(TextSnifferTest, NoHeaderWhenTheFirstRowFitsTheTypes) {
  CsvSniffResult r = SniffCsv({{S("1"), S("2")}, {S("3"), S("4")}}, std::nullopt, false);
  EXPECT_FALSE(r.header);
  EXPECT_EQ(r.names, (std::vector<std::string>{"column0", "column1"}));
  EXPECT_EQ(r.types[1]->id(), TypeId::kInt64);
}

TEST(TextSnifferTest, AllTextColumnsHaveAHeaderWhenTheFirstValuesAreTextOnly) {
  EXPECT_TRUE(SniffCsv({{S("a"), S("b")}, {S("c"), S("d")}}, std::nullopt, false).header);
  EXPECT_TRUE(SniffCsv({{S("x"), S("y")}}, std::nullopt, false).header);
  EXPECT_FALSE(SniffCsv({{S("1"), S("2")}}, std::nullopt, false).header);
}

TEST(TextSnifferTest, HeaderGivenAndNames) {
  CsvSniffResult r = SniffCsv({{S("a"), S("a"), std::nullopt}, {S("1"), S("2"), S("3")}}, true,
                              false);
  EXPECT_EQ(r.names, (std::vector<std::string>{"a", "a_1", "column2"}));
  r = SniffCsv({{S("a"), S("1")}, {S("b"), S("2")}}, false, false);
  EXPECT_EQ(r.names, (std::vector<std::string>{"column0", "column1"}));
  EXPECT_EQ(r.types[1]->id(), TypeId::kInt64);
  r = SniffCsv({{S("a"), S("1")}, {S("b"), S("2")}}, false, /*all_text=*/true);
  EXPECT_EQ(r.types[1]->id(), TypeId::kString);
}

TEST(TextSnifferTest, NullsDoNotDecide) {
  CsvSniffResult r =
      SniffCsv({{S("n"), S("m")}, {std::nullopt, S("1")}, {S("2.5"), std::nullopt}}, true, false);
  EXPECT_EQ(r.types[0]->id(), TypeId::kFloat64);
  EXPECT_EQ(r.types[1]->id(), TypeId::kInt64);
  r = SniffCsv({{S("n")}, {std::nullopt}}, true, false);
  EXPECT_EQ(r.types[0]->id(), TypeId::kString);
}

TEST(TextSnifferTest, Json) {
  JsonSniffer sniffer;
  for (const char* text : {
           R"({"a": 1, "b": "x", "c": true, "d": 1.5, "e": null, "f": {"x": 1}, "g": [1],
               "h": "2024-01-02", "i": "2024-01-02 10:00:00", "m": 1})",
           R"({"a": 2, "d": 3, "m": "one", "n": 12345678901234567890})",
       }) {
    ASSERT_OK_AND_ASSIGN(expr::JsonValue v, expr::ParseJson(text, false));
    sniffer.Add(v);
  }
  EXPECT_EQ(sniffer.names(), (std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g", "h",
                                                       "i", "m", "n"}));
  std::vector<std::string> types;
  for (const TypePtr& t : sniffer.types()) types.push_back(t->ToString());
  EXPECT_EQ(types, (std::vector<std::string>{
                       Int64()->ToString(), String()->ToString(), Boolean()->ToString(),
                       Float64()->ToString(), Json()->ToString(), Json()->ToString(),
                       Json()->ToString(), Date()->ToString(), Timestamp()->ToString(),
                       Json()->ToString(), Float64()->ToString()}));
}

TEST(TextSnifferTest, DeduplicateNames) {
  EXPECT_EQ(DeduplicateNames({"a", "a", "a_1", "b"}),
            (std::vector<std::string>{"a", "a_1", "a_1_1", "b"}));
}

}  // namespace
}  // namespace floe::connector
