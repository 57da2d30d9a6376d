#include "floe/iceberg/name_mapping.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::testing::IsErrorWith;
using nlohmann::json;

const char* kMapping = R"([
  {"field-id": 1, "names": ["id", "record_id"]},
  {"field-id": 2, "names": ["data"]},
  {"names": ["legacy"]},
  {"field-id": 3, "names": ["location"], "fields": [
     {"field-id": 4, "names": ["latitude", "lat"]},
     {"field-id": 5, "names": ["longitude", "long"]}]},
  {"field-id": 6, "names": ["points"], "fields": [
     {"field-id": 7, "names": ["element"], "fields": [
        {"field-id": 8, "names": ["x"]}]}]},
  {"field-id": 9, "names": ["m"], "fields": [
     {"field-id": 10, "names": ["key"]}, {"field-id": 11, "names": ["value"]}]}])";

TEST(NameMappingTest, ParseFindWrite) {
  ASSERT_OK_AND_ASSIGN(NameMapping m, NameMapping::FromJsonString(kMapping, "mapping"));
  EXPECT_EQ(m.fields().size(), 6u);
  EXPECT_EQ(m.Find({"record_id"}), 1);
  EXPECT_EQ(m.Find({"id"}), 1);
  EXPECT_EQ(m.Find({"legacy"}), std::nullopt);
  EXPECT_NE(m.FindEntry({"legacy"}), nullptr);
  EXPECT_EQ(m.Find({"location", "lat"}), 4);
  EXPECT_EQ(m.Find({"points", "element", "x"}), 8);
  EXPECT_EQ(m.Find({"m", "value"}), 11);
  EXPECT_EQ(m.Find({"location", "x"}), std::nullopt);
  EXPECT_EQ(m.ToJson(), json::parse(kMapping));
  ASSERT_OK_AND_ASSIGN(NameMapping again, NameMapping::FromJsonString(m.ToJsonString(), "m"));
  EXPECT_EQ(again, m);
}

TEST(NameMappingTest, Apply) {
  ASSERT_OK_AND_ASSIGN(NameMapping m, NameMapping::FromJsonString(kMapping, "mapping"));
  floe::Schema file({
      Field("record_id", Int64()),
      Field("legacy", String()),
      Field("location", Struct({Field("lat", Float64()), Field("alt", Float64())})),
      Field("points", List(Field("item", Struct({Field("x", Int32())})))),
      Field("m", Map(String(), Int32())),
      Field("other", Int32()),
  });
  floe::SchemaPtr out = m.Apply(file);
  EXPECT_EQ(out->field(0).field_id(), 1);
  EXPECT_EQ(out->field(1).field_id(), kNoFieldId);
  EXPECT_EQ(out->field(2).field_id(), 3);
  EXPECT_EQ(out->field(2).type()->field(0).field_id(), 4);
  EXPECT_EQ(out->field(2).type()->field(1).field_id(), kNoFieldId);
  // The list element is called "item" in the file and maps through "element".
  EXPECT_EQ(out->field(3).type()->field(0).field_id(), 7);
  EXPECT_EQ(out->field(3).type()->field(0).type()->field(0).field_id(), 8);
  EXPECT_EQ(out->field(4).type()->field(0).field_id(), 10);
  EXPECT_EQ(out->field(4).type()->field(1).field_id(), 11);
  EXPECT_EQ(out->field(5).field_id(), kNoFieldId);
  EXPECT_EQ(out->field(0).name(), "record_id");
}

TEST(NameMappingTest, FromSchemaAndErrors) {
  SchemaPtr schema =
      Schema::Make(0, {Field("a", Int32(), true, 1),
                       Field("l", List(Field("element", Int64(), true, 3)), true, 2)})
          .ValueOrDie();
  NameMapping m = NameMapping::FromSchema(*schema);
  EXPECT_EQ(m.ToJson(), json::parse(R"([{"field-id": 1, "names": ["a"]},
      {"field-id": 2, "names": ["l"], "fields": [{"field-id": 3, "names": ["element"]}]}])"));
  EXPECT_THAT(NameMapping::FromJsonString(R"({"names": ["a"]})", "p"),
              IsErrorWith(StatusCode::kCorrupt, "p: a name mapping must be an array"));
  EXPECT_THAT(NameMapping::FromJsonString(R"([{"field-id": 1}])", "p"),
              IsErrorWith(StatusCode::kCorrupt, "p[0]: missing required field 'names'"));
  EXPECT_THAT(NameMapping::FromJsonString(R"([{"field-id": "x", "names": []}])", "p"),
              IsErrorWith(StatusCode::kCorrupt, "'field-id' must be an integer"));
  std::map<std::string, std::string> props = {{"schema.name-mapping.default", "[{"}};
  EXPECT_THAT(NameMapping::FromTableProperties(props, "t.json"),
              IsErrorWith(StatusCode::kCorrupt, "t.json: property 'schema.name-mapping.default'"));
  ASSERT_OK_AND_ASSIGN(auto none, NameMapping::FromTableProperties({}, "t.json"));
  EXPECT_FALSE(none.has_value());
}

}  // namespace
}  // namespace floe::iceberg
