// Avro schema parsing and the Iceberg mapping between floe schemas and Avro schemas.

#include <gtest/gtest.h>

#include "floe/format/avro/schema.h"
#include "floe/testing/matchers.h"

namespace floe::avro {
namespace {

using floe::testing::IsError;

TEST(AvroSchemaTest, ParsesIcebergAttributesAndNamedReferences) {
  const char* json = R"({"type":"record","name":"manifest_entry","namespace":"ns","fields":[
    {"name":"status","type":"int","field-id":0},
    {"name":"f","type":{"type":"fixed","name":"f16","size":16,"logicalType":"uuid"},"field-id":1},
    {"name":"g","type":"f16","field-id":2},
    {"name":"h","type":"ns.f16","field-id":3},
    {"name":"m","type":{"type":"map","values":"long","key-id":5,"value-id":6},"field-id":4},
    {"name":"l","type":["null",{"type":"array","items":"string","element-id":8}],
     "default":null,"field-id":7},
    {"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2},
     "field-id":"9"},
    {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true},
     "field-id":10},
    {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]},"field-id":11}]})";
  ASSERT_OK_AND_ASSIGN(AvroNodePtr node, ParseAvroSchema(json));
  ASSERT_EQ(node->type, AvroType::kRecord);
  EXPECT_EQ(node->name, "ns.manifest_entry");
  ASSERT_EQ(node->fields.size(), 9u);
  EXPECT_EQ(node->fields[0].field_id, 0);
  EXPECT_EQ(node->fields[1].type->name, "ns.f16");
  EXPECT_EQ(node->fields[2].type.get(), node->fields[1].type.get());
  EXPECT_EQ(node->fields[3].type.get(), node->fields[1].type.get());
  EXPECT_EQ(node->fields[4].type->key_id, 5);
  EXPECT_EQ(node->fields[4].type->value_id, 6);
  EXPECT_TRUE(node->fields[5].has_default);
  EXPECT_EQ(node->fields[5].default_json, "null");
  EXPECT_EQ(node->fields[5].type->NonNullBranch()->element_id, 8);
  EXPECT_EQ(node->fields[6].field_id, 9);
  EXPECT_EQ(node->fields[6].type->precision, 9);
  EXPECT_TRUE(node->fields[7].type->adjust_to_utc);

  ASSERT_OK_AND_ASSIGN(Schema schema, AvroToFloeSchema(*node));
  EXPECT_EQ(schema.ToString(),
            Schema({Field("status", Int32(), false, 0), Field("f", Uuid(), false, 1),
                    Field("g", Uuid(), false, 2), Field("h", Uuid(), false, 3),
                    Field("m", Map(Field("key", String(), false, 5),
                                   Field("value", Int64(), false, 6)), false, 4),
                    Field("l", List(Field("element", String(), false, 8)), true, 7),
                    Field("d", Decimal(9, 2), false, 9), Field("ts", TimestampTz(), false, 10),
                    Field("e", String(), false, 11)})
                .ToString());
}

TEST(AvroSchemaTest, RejectsMalformedSchemas) {
  EXPECT_THAT(ParseAvroSchema("{"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseAvroSchema(R"("nope")"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseAvroSchema(R"({"type":"record","name":"a","fields":[
      {"name":"x","type":"int"},{"name":"x","type":"int"}]})"),
              IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseAvroSchema(R"({"type":"record","name":"a","fields":[
      {"name":"x","type":["null","a"]}]})"),
              IsError(StatusCode::kNotSupported));
  EXPECT_THAT(ParseAvroSchema(R"({"type":"fixed","name":"d","size":2,
      "logicalType":"decimal","precision":9,"scale":0})"),
              IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseAvroSchema(R"({"type":"fixed","name":"d","size":-1})"),
              IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseAvroSchema(R"(["int",["long"]])"), IsError(StatusCode::kInvalidArgument));
}

TEST(AvroSchemaTest, DecimalSizes) {
  EXPECT_EQ(DecimalRequiredBytes(1), 1);
  EXPECT_EQ(DecimalRequiredBytes(2), 1);
  EXPECT_EQ(DecimalRequiredBytes(3), 2);
  EXPECT_EQ(DecimalRequiredBytes(9), 4);
  EXPECT_EQ(DecimalRequiredBytes(10), 5);
  EXPECT_EQ(DecimalRequiredBytes(18), 8);
  EXPECT_EQ(DecimalRequiredBytes(38), 16);
}

Schema EveryType() {
  return Schema({
      Field("b", Boolean(), false, 1),
      Field("i", Int32(), true, 2),
      Field("l", Int64(), false, 3),
      Field("f", Float32(), true, 4),
      Field("d", Float64(), true, 5),
      Field("dec", Decimal(9, 2), true, 6),
      Field("dt", Date(), true, 7),
      Field("t", Time(), true, 8),
      Field("ts", Timestamp(), true, 9),
      Field("tstz", TimestampTz(), true, 10),
      Field("tsns", TimestampTzNs(), true, 11),
      Field("s", String(), true, 12),
      Field("u", Uuid(), true, 13),
      Field("fx", Fixed(3), true, 14),
      Field("bin", Binary(), true, 15),
      Field("st", Struct({Field("x", Int32(), false, 102), Field("y", String(), true, 103)}), true,
            16),
      Field("li", List(Field("element", Int64(), true, 104)), true, 17),
      Field("ms", Map(Field("key", String(), false, 105), Field("value", Int32(), true, 106)),
            true, 18),
      Field("mi", Map(Field("key", Int32(), false, 117), Field("value", Binary(), true, 118)),
            false, 19),
      Field("dec2", Decimal(9, 2), true, 20),
  });
}

TEST(AvroSchemaTest, IcebergFormOfEveryType) {
  ASSERT_OK_AND_ASSIGN(std::string json, ToAvroSchemaJson(EveryType(), "table"));
  // Spot checks of the Iceberg Avro appendix's conventions.
  EXPECT_NE(json.find(R"({"name":"i","type":["null","int"],"default":null,"field-id":2})"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"({"name":"b","type":"boolean","field-id":1})"), std::string::npos);
  EXPECT_NE(json.find(R"({"type":"fixed","name":"decimal_9_2","size":4,"logicalType":"decimal",)"
                      R"("precision":9,"scale":2})"),
            std::string::npos);
  EXPECT_NE(json.find(R"("type":["null","decimal_9_2"])"), std::string::npos);
  EXPECT_NE(json.find(R"({"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"})"),
            std::string::npos);
  EXPECT_NE(json.find(R"({"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true})"),
            std::string::npos);
  EXPECT_NE(json.find(R"({"type":"record","name":"r16","fields":)"), std::string::npos);
  EXPECT_NE(json.find(R"("element-id":104)"), std::string::npos);
  EXPECT_NE(json.find(R"({"type":"map","values":["null","int"],"key-id":105,"value-id":106})"),
            std::string::npos);
  EXPECT_NE(json.find(R"({"type":"array","items":{"type":"record","name":"k117_v118","fields":)"
                      R"([{"name":"key","type":"int","field-id":117},)"),
            std::string::npos);
  EXPECT_NE(json.find(R"("logicalType":"map")"), std::string::npos);

  ASSERT_OK_AND_ASSIGN(AvroNodePtr node, ParseAvroSchema(json));
  ASSERT_OK_AND_ASSIGN(Schema back, AvroToFloeSchema(*node));
  EXPECT_TRUE(back.Equals(EveryType())) << back.ToString() << "\n" << EveryType().ToString();
}

TEST(AvroSchemaTest, InvalidNamesAreSanitized) {
  Schema s({Field("a-b", Int32(), false, 1), Field("1x", Int32(), false, 2)});
  ASSERT_OK_AND_ASSIGN(std::string json, ToAvroSchemaJson(s, "t"));
  EXPECT_NE(json.find(R"("name":"a_x2Db")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("name":"_1x")"), std::string::npos) << json;
}

}  // namespace
}  // namespace floe::avro
