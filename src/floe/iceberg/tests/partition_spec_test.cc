#include "floe/iceberg/partition_spec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/iceberg/table_metadata.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using nlohmann::json;

SchemaPtr TestSchema() {
  return Schema::Make(0, {Field("id", Int64(), false, 1), Field("ts", TimestampTz(), true, 2),
                          Field("name", String(), true, 3), Field("d", Date(), true, 4),
                          Field("s", Struct({Field("x", Int32(), true, 6)}), true, 5)})
      .ValueOrDie();
}

TEST(PartitionSpecTest, MakeAndPartitionType) {
  SchemaPtr schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(PartitionSpecPtr spec,
                       PartitionSpec::Make(*schema, 3,
                                           {{2, 1000, "ts_day", Transform::Day()},
                                            {1, 1001, "id_bucket", Transform::Bucket(16)},
                                            {3, 1002, "name_trunc", Transform::Truncate(4)},
                                            {6, 1003, "x", Transform::Identity()}}));
  EXPECT_EQ(spec->spec_id(), 3);
  EXPECT_EQ(spec->last_assigned_field_id(), 1003);
  EXPECT_FALSE(spec->is_unpartitioned());
  ASSERT_OK_AND_ASSIGN(TypePtr type, spec->PartitionType(*schema));
  ASSERT_EQ(type->num_fields(), 4);
  EXPECT_EQ(type->field(0).type()->id(), TypeId::kDate);
  EXPECT_EQ(type->field(1).type()->id(), TypeId::kInt32);
  EXPECT_EQ(type->field(2).type()->id(), TypeId::kString);
  EXPECT_EQ(type->field(3).type()->id(), TypeId::kInt32);
  EXPECT_EQ(type->field(1).field_id(), 1001);
  EXPECT_TRUE(type->field(0).nullable());
  EXPECT_EQ(spec->ToString(),
            "[\n  1000: ts_day: day(2)\n  1001: id_bucket: bucket[16](1)\n"
            "  1002: name_trunc: truncate[4](3)\n  1003: x: identity(6)\n]");
  // JSON round trip.
  json j = PartitionSpecToJson(*spec);
  ASSERT_OK_AND_ASSIGN(PartitionSpecPtr back, PartitionSpecFromJson(j, *schema, "spec"));
  EXPECT_TRUE(back->Equals(*spec));
  EXPECT_TRUE(back->CompatibleWith(*spec));
}

TEST(PartitionSpecTest, Validation) {
  SchemaPtr schema = TestSchema();
  EXPECT_THAT(PartitionSpec::Make(*schema, 0, {{3, 1000, "h", Transform::Hour()}}),
              IsErrorWith(StatusCode::kInvalidArgument, "hour cannot apply"));
  EXPECT_THAT(PartitionSpec::Make(*schema, 0, {{5, 1000, "s", Transform::Identity()}}),
              IsErrorWith(StatusCode::kInvalidArgument, "not a primitive"));
  EXPECT_THAT(
      PartitionSpec::Make(
          *schema, 0, {{1, 1000, "a", Transform::Identity()}, {2, 1001, "a", Transform::Day()}}),
      IsErrorWith(StatusCode::kInvalidArgument, "'a' is used twice"));
  EXPECT_THAT(
      PartitionSpec::Make(
          *schema, 0, {{1, 1000, "a", Transform::Identity()}, {2, 1000, "b", Transform::Day()}}),
      IsErrorWith(StatusCode::kInvalidArgument, "field id 1000 is used twice"));
  EXPECT_THAT(PartitionSpec::Make(*schema, 0, {{99, 1000, "gone", Transform::Identity()}}),
              IsErrorWith(StatusCode::kInvalidArgument, "source field 99"));
  ASSERT_OK_AND_ASSIGN(PartitionSpecPtr spec,
                       PartitionSpec::Make(*schema, 0, {{99, 1000, "gone", Transform::Void()}},
                                           /*allow_missing_sources=*/true));
  EXPECT_TRUE(spec->is_unpartitioned());
  EXPECT_THAT(spec->PartitionType(*schema), IsError(StatusCode::kInvalidArgument));
  EXPECT_TRUE(PartitionSpec::Unpartitioned()->is_unpartitioned());
  EXPECT_EQ(PartitionSpec::Unpartitioned()->last_assigned_field_id(), 999);
  EXPECT_EQ(PartitionSpec::Unpartitioned()->ToString(), "[]");
}

TEST(PartitionSpecTest, V1FieldsAssignIds) {
  SchemaPtr schema = TestSchema();
  json fields = json::parse(R"([{"name": "d_year", "transform": "year", "source-id": 4},
                                {"name": "id", "transform": "identity", "source-id": 1}])");
  ASSERT_OK_AND_ASSIGN(PartitionSpecPtr spec,
                       PartitionSpecFromFieldsJson(fields, *schema, 0, "v1"));
  EXPECT_EQ(spec->fields()[0].field_id, 1000);
  EXPECT_EQ(spec->fields()[1].field_id, 1001);
  EXPECT_THAT(PartitionSpecFromJson(json::parse(R"({"spec-id": 1, "fields": [{"name": "x",
                  "transform": "identity", "source-id": 1}]})"),
                                    *schema, "ctx"),
              IsErrorWith(StatusCode::kCorrupt, "'field-id'"));
}

TEST(SortOrderTest, MakeSatisfiesAndJson) {
  SchemaPtr schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(
      SortOrderPtr by_ts_id,
      SortOrder::Make(*schema, 1,
                      {{2, Transform::Identity(), SortDirection::kAsc, NullOrder::kNullsFirst},
                       {1, Transform::Identity(), SortDirection::kDesc, NullOrder::kNullsLast}}));
  ASSERT_OK_AND_ASSIGN(
      SortOrderPtr by_day,
      SortOrder::Make(*schema, 2,
                      {{2, Transform::Day(), SortDirection::kAsc, NullOrder::kNullsFirst}}));
  EXPECT_TRUE(by_ts_id->Satisfies(*by_day));
  EXPECT_FALSE(by_day->Satisfies(*by_ts_id));
  EXPECT_TRUE(by_day->Satisfies(*SortOrder::Unsorted()));
  EXPECT_EQ(by_ts_id->ToString(),
            "[\n  identity(2) asc nulls-first\n  identity(1) desc nulls-last\n]");
  json j = SortOrderToJson(*by_ts_id);
  EXPECT_EQ(j["fields"][1]["direction"], "desc");
  EXPECT_EQ(j["fields"][1]["null-order"], "nulls-last");
  ASSERT_OK_AND_ASSIGN(SortOrderPtr back, SortOrderFromJson(j, *schema, "o"));
  EXPECT_TRUE(back->Equals(*by_ts_id));
  EXPECT_THAT(
      SortOrder::Make(*schema, 0,
                      {{2, Transform::Identity(), SortDirection::kAsc, NullOrder::kNullsFirst}}),
      IsErrorWith(StatusCode::kInvalidArgument, "reserved"));
  j["fields"][0]["direction"] = "up";
  EXPECT_THAT(SortOrderFromJson(j, *schema, "o"), IsErrorWith(StatusCode::kCorrupt, "'up'"));
}

}  // namespace
}  // namespace floe::iceberg
