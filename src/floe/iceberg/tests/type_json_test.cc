#include "floe/iceberg/type_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using nlohmann::json;

TEST(TypeJsonTest, EveryPrimitive) {
  const std::vector<std::pair<std::string, TypePtr>> cases = {{"boolean", Boolean()},
                                                              {"int", Int32()},
                                                              {"long", Int64()},
                                                              {"float", Float32()},
                                                              {"double", Float64()},
                                                              {"decimal(38,10)", Decimal(38, 10)},
                                                              {"date", Date()},
                                                              {"time", Time()},
                                                              {"timestamp", Timestamp()},
                                                              {"timestamptz", TimestampTz()},
                                                              {"timestamp_ns", TimestampNs()},
                                                              {"timestamptz_ns", TimestampTzNs()},
                                                              {"string", String()},
                                                              {"uuid", Uuid()},
                                                              {"fixed[11]", Fixed(11)},
                                                              {"binary", Binary()}};
  for (const auto& [name, type] : cases) {
    ASSERT_OK_AND_ASSIGN(TypePtr parsed, TypeFromJson(json(name), "t"));
    EXPECT_TRUE(parsed->Equals(*type)) << name;
    ASSERT_OK_AND_ASSIGN(json back, TypeToJson(*parsed));
    EXPECT_EQ(back, json(name));
  }
  ASSERT_OK_AND_ASSIGN(TypePtr spaced, TypeFromJson(json("decimal(16, 2)"), "t"));
  EXPECT_TRUE(spaced->Equals(*Decimal(16, 2)));
  EXPECT_THAT(TypeFromJson(json("decimal(40,2)"), "t"), IsError(StatusCode::kCorrupt));
  EXPECT_THAT(TypeFromJson(json("fixed[0]"), "t"), IsError(StatusCode::kCorrupt));
  EXPECT_THAT(TypeFromJson(json("varchar"), "ctx"), IsErrorWith(StatusCode::kNotSupported, "ctx"));
}

TEST(TypeJsonTest, NestedRoundTrip) {
  const char* text = R"({"type": "struct", "schema-id": 4, "identifier-field-ids": [1],
    "fields": [
      {"id": 1, "name": "id", "required": true, "type": "long", "doc": "the key"},
      {"id": 2, "name": "m", "required": false, "type": {"type": "map", "key-id": 3,
        "key": "string", "value-id": 4, "value-required": true,
        "value": {"type": "list", "element-id": 5, "element-required": false,
                  "element": {"type": "struct", "fields": [
                     {"id": 6, "name": "x", "required": false, "type": "timestamptz_ns"}]}}}}]})";
  ASSERT_OK_AND_ASSIGN(SchemaPtr s, SchemaFromJsonString(text, "s.json"));
  EXPECT_EQ(s->schema_id(), 4);
  EXPECT_EQ(s->identifier_field_ids(), std::vector<int32_t>{1});
  EXPECT_EQ(s->FindColumnName(6), "m.value.element.x");
  EXPECT_FALSE(s->FindFieldById(4)->nullable());
  EXPECT_TRUE(s->FindFieldById(5)->nullable());
  EXPECT_FALSE(s->FindFieldById(3)->nullable());
  EXPECT_EQ(s->FindFieldById(6)->type()->id(), TypeId::kTimestampTzNs);
  ASSERT_OK_AND_ASSIGN(std::string out, SchemaToJsonString(*s));
  EXPECT_EQ(json::parse(out), json::parse(text));
  ASSERT_OK_AND_ASSIGN(SchemaPtr again, SchemaFromJsonString(out));
  EXPECT_TRUE(s->Equals(*again));
}

TEST(TypeJsonTest, V3TypesWithoutFloeValues) {
  const char* text = R"J({"type": "struct", "schema-id": 0, "fields": [
      {"id": 1, "name": "u", "required": false, "type": "unknown"},
      {"id": 2, "name": "v", "required": false, "type": "variant"},
      {"id": 3, "name": "g", "required": false, "type": "geometry(srid:4326)"},
      {"id": 4, "name": "h", "required": false, "type": "geography"},
      {"id": 5, "name": "l", "required": false, "type": {"type": "list", "element-id": 6,
        "element-required": false, "element": "variant"}}]})J";
  ASSERT_OK_AND_ASSIGN(SchemaPtr s, SchemaFromJsonString(text, "s.json"));
  EXPECT_EQ(UnrepresentedIcebergType(s->fields()[0]), "unknown");
  EXPECT_EQ(UnrepresentedIcebergType(s->fields()[2]), "geometry(srid:4326)");
  EXPECT_EQ(UnrepresentedIcebergType(*s->FindFieldById(6)), "variant");
  EXPECT_EQ(s->ToString(),
            "table {\n  1: u: optional unknown\n  2: v: optional variant\n"
            "  3: g: optional geometry(srid:4326)\n  4: h: optional geography\n"
            "  5: l: optional list<variant>\n}");
  EXPECT_THAT(CheckRepresentable(s->fields()[1], "v"),
              IsErrorWith(StatusCode::kNotSupported, "column 'v' has Iceberg type variant"));
  EXPECT_THAT(CheckRepresentable(s->fields()[4], "l"),
              IsErrorWith(StatusCode::kNotSupported, "'l.element'"));
  ASSERT_OK_AND_ASSIGN(std::string out, SchemaToJsonString(*s));
  EXPECT_EQ(json::parse(out), json::parse(text));
  EXPECT_THAT(TypeFromJson(json("variant"), "t"), IsError(StatusCode::kNotSupported));
}

TEST(TypeJsonTest, BadSchemas) {
  EXPECT_THAT(SchemaFromJsonString(R"({"type": "struct", "fields": [{"id": 1, "name": "a",
      "type": "int"}]})",
                                   "s.json"),
              IsErrorWith(StatusCode::kCorrupt, "missing required field 'required'"));
  EXPECT_THAT(SchemaFromJsonString(R"({"type": "struct", "fields": [{"id": 1, "name": "a",
      "required": "yes", "type": "int"}]})",
                                   "s.json"),
              IsErrorWith(StatusCode::kCorrupt, "'required' must be a boolean"));
  EXPECT_THAT(SchemaFromJsonString(R"({"type": "struct", "fields": [
      {"id": 1, "name": "a", "required": true, "type": "int"},
      {"id": 1, "name": "b", "required": true, "type": "int"}]})",
                                   "s.json"),
              IsErrorWith(StatusCode::kCorrupt, "s.json"));
  EXPECT_THAT(SchemaFromJsonString(R"({"type": "struct", "fields": [{"id": 1, "name": "a",
      "required": true, "type": "int", "initial-default": "x"}]})",
                                   "s.json"),
              IsErrorWith(StatusCode::kCorrupt, "initial-default"));
  EXPECT_THAT(SchemaFromJsonString("{\"type\": \"struct\", \"fields\": [", "s.json"),
              IsErrorWith(StatusCode::kCorrupt, "s.json: invalid JSON"));
  // A type nested 100 lists deep, built as a JSON value (no parser depth limit applies).
  json type = "int";
  for (int i = 0; i < 100; ++i) {
    type = json{
        {"type", "list"}, {"element-id", i + 2}, {"element-required", false}, {"element", type}};
  }
  json schema{
      {"type", "struct"},
      {"fields", json::array({{{"id", 1}, {"name", "l"}, {"required", false}, {"type", type}}})}};
  EXPECT_THAT(SchemaFromJson(schema, "deep"), IsErrorWith(StatusCode::kCorrupt, "nested deeper"));
  std::string deep(1000, '[');
  EXPECT_THAT(SchemaFromJsonString(deep, "deep.json"), IsError(StatusCode::kCorrupt));
}

TEST(TypeJsonTest, DefaultValueForms) {
  ASSERT_OK_AND_ASSIGN(
      Scalar ts, DefaultFromJson(json("2017-11-16T22:31:08.000001+01:00"), TimestampTz(), "d"));
  EXPECT_EQ(ts.get<int64_t>(), 1510867868000001);  // 2017-11-16T21:31:08.000001Z
  ASSERT_OK_AND_ASSIGN(Scalar ns,
                       DefaultFromJson(json("1970-01-01T00:00:00.000000001"), TimestampNs(), "d"));
  EXPECT_EQ(ns.get<int64_t>(), 1);
  // Nanoseconds reach only 1677..2262; outside, a clear error (found by fuzzing: the
  // scaling used to overflow). Microseconds reach every four-digit year.
  EXPECT_THAT(DefaultFromJson(json("1000-06-01T00:00:00"), TimestampNs(), "d"),
              IsError(StatusCode::kCorrupt));
  EXPECT_THAT(DefaultFromJson(json("2500-01-01T00:00:00+00:00"), TimestampTzNs(), "d"),
              IsError(StatusCode::kCorrupt));
  ASSERT_OK_AND_ASSIGN(Scalar far, DefaultFromJson(json("3000-01-01T00:00:00.5"), Timestamp(), "d"));
  EXPECT_EQ(far.get<int64_t>(), 32503680000500000);
  ASSERT_OK_AND_ASSIGN(Scalar early, DefaultFromJson(json("1969-12-31T23:59:59.999999"), Timestamp(), "d"));
  EXPECT_EQ(early.get<int64_t>(), -1);
  ASSERT_OK_AND_ASSIGN(Scalar d, DefaultFromJson(json("-1.50"), Decimal(5, 2), "d"));
  EXPECT_TRUE(d.get<Int128>() == Int128{-150});
  EXPECT_THAT(DefaultFromJson(json("1.5"), Decimal(5, 2), "d"), IsError(StatusCode::kCorrupt));
  EXPECT_THAT(DefaultFromJson(json(3000000000LL), Int32(), "d"), IsError(StatusCode::kCorrupt));
  ASSERT_OK_AND_ASSIGN(Scalar date, DefaultFromJson(json("1969-12-31"), Date(), "d"));
  EXPECT_EQ(date.get<int32_t>(), -1);
  ASSERT_OK_AND_ASSIGN(json back, DefaultToJson(date));
  EXPECT_EQ(back, "1969-12-31");
  ASSERT_OK_AND_ASSIGN(back, DefaultToJson(ns));
  EXPECT_EQ(back, "1970-01-01T00:00:00.000000001");
}

}  // namespace
}  // namespace floe::iceberg
