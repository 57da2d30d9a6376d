#include "floe/iceberg/schema.h"

#include <gtest/gtest.h>

#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

std::vector<Field> NestedFields() {
  return {
      Field("id", Int64(), false, 1),
      Field("location",
            Struct({Field("lat", Float64(), true, 3), Field("Lon", Float64(), true, 4)}), false, 2),
      Field("tags", List(Field("element", String(), true, 6)), true, 5),
      Field("props", Map(Field("key", String(), false, 8), Field("value", Int32(), true, 9)), true,
            7),
  };
}

TEST(SchemaTest, IndexesEveryDepth) {
  ASSERT_OK_AND_ASSIGN(SchemaPtr s, Schema::Make(3, NestedFields(), {1}));
  EXPECT_EQ(s->schema_id(), 3);
  EXPECT_EQ(s->num_fields(), 4);
  EXPECT_EQ(s->highest_field_id(), 9);
  EXPECT_EQ(s->FindFieldById(4)->name(), "Lon");
  EXPECT_EQ(s->FindFieldById(10), nullptr);
  EXPECT_EQ(s->FindColumnName(4), "location.Lon");
  EXPECT_EQ(s->FindColumnName(6), "tags.element");
  EXPECT_EQ(s->FindColumnName(9), "props.value");
  EXPECT_EQ(s->FindParentId(3), 2);
  EXPECT_EQ(s->FindParentId(1), std::nullopt);
  EXPECT_EQ(s->FindParentId(8), 7);
  ASSERT_OK_AND_ASSIGN(const Field* f, s->FindFieldByName("location.Lon", true));
  EXPECT_EQ(f->field_id(), 4);
  ASSERT_OK_AND_ASSIGN(f, s->FindFieldByName("location.lon", true));
  EXPECT_EQ(f, nullptr);
  ASSERT_OK_AND_ASSIGN(f, s->FindFieldByName("LOCATION.LON", false));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->field_id(), 4);
  ASSERT_OK_AND_ASSIGN(f, s->FindFieldByName("props.key", false));
  EXPECT_EQ(f->field_id(), 8);
}

TEST(SchemaTest, AmbiguousCaseInsensitiveName) {
  ASSERT_OK_AND_ASSIGN(SchemaPtr s, Schema::Make(0, {Field("user_id", Int32(), true, 1),
                                                     Field("uSeR_Id", Int32(), true, 2)}));
  EXPECT_THAT(s->FindFieldByName("USER_ID", false),
              IsErrorWith(StatusCode::kBind, "'user_id' and 'uSeR_Id'"));
  ASSERT_OK_AND_ASSIGN(const Field* f, s->FindFieldByName("uSeR_Id", false));
  EXPECT_EQ(f->field_id(), 2);
}

TEST(SchemaTest, Validation) {
  EXPECT_THAT(Schema::Make(0, {Field("a", Int32(), true, 1), Field("b", Int32(), true, 1)}),
              IsErrorWith(StatusCode::kInvalidArgument, "field id 1 is used by both 'a' and 'b'"));
  EXPECT_THAT(Schema::Make(0, {Field("a", Int32(), true)}),
              IsErrorWith(StatusCode::kInvalidArgument, "'a' has no positive field id"));
  EXPECT_THAT(Schema::Make(0, NestedFields(), {6}),
              IsErrorWith(StatusCode::kInvalidArgument, "must be required"));
  EXPECT_THAT(Schema::Make(0, NestedFields(), {8}),
              IsErrorWith(StatusCode::kInvalidArgument, "nested in a list or map"));
  EXPECT_THAT(Schema::Make(0, NestedFields(), {2}),
              IsErrorWith(StatusCode::kInvalidArgument, "not a primitive"));
  EXPECT_THAT(Schema::Make(0, NestedFields(), {42}),
              IsErrorWith(StatusCode::kInvalidArgument, "42 does not exist"));
  std::map<int32_t, FieldDefaults> defaults;
  defaults[1].initial_default = Scalar::I32(5);  // field 1 is long
  EXPECT_THAT(Schema::Make(0, NestedFields(), {}, defaults),
              IsErrorWith(StatusCode::kInvalidArgument, "default of field 'id'"));
  defaults.clear();
  defaults[1].initial_default = Scalar::I64(5);
  ASSERT_OK_AND_ASSIGN(SchemaPtr s, Schema::Make(0, NestedFields(), {}, defaults));
  EXPECT_EQ(s->FindDefaults(1)->initial_default->get<int64_t>(), 5);
  EXPECT_EQ(s->FindDefaults(3), nullptr);
}

TEST(SchemaTest, SelectKeepsAncestors) {
  ASSERT_OK_AND_ASSIGN(SchemaPtr s, Schema::Make(1, NestedFields(), {1}));
  ASSERT_OK_AND_ASSIGN(SchemaPtr sel, s->Select({4, 5}));
  ASSERT_EQ(sel->num_fields(), 2);
  EXPECT_EQ(sel->fields()[0].name(), "location");
  ASSERT_EQ(sel->fields()[0].type()->num_fields(), 1);
  EXPECT_EQ(sel->fields()[0].type()->field(0).name(), "Lon");
  EXPECT_EQ(sel->fields()[1].type()->id(), TypeId::kList);
  EXPECT_TRUE(sel->identifier_field_ids().empty());
  ASSERT_OK_AND_ASSIGN(sel, s->Select({1, 9}));
  EXPECT_EQ(sel->identifier_field_ids(), std::vector<int32_t>{1});
  EXPECT_EQ(sel->fields()[1].type()->id(), TypeId::kMap);
  EXPECT_THAT(s->Select({77}), IsError(StatusCode::kInvalidArgument));
}

TEST(SchemaTest, ToStringAndEquals) {
  ASSERT_OK_AND_ASSIGN(SchemaPtr s, Schema::Make(0, {Field("id", Int64(), false, 1),
                                                     Field("d", Decimal(9, 2), true, 2)}));
  EXPECT_EQ(s->ToString(), "table {\n  1: id: required long\n  2: d: optional decimal(9,2)\n}");
  ASSERT_OK_AND_ASSIGN(SchemaPtr n, Schema::Make(0, NestedFields()));
  EXPECT_EQ(n->ToString(),
            "table {\n  1: id: required long\n"
            "  2: location: required struct<3: lat: optional double, 4: Lon: optional double>\n"
            "  5: tags: optional list<string>\n  7: props: optional map<string, int>\n}");
  ASSERT_OK_AND_ASSIGN(SchemaPtr s2, Schema::Make(0, {Field("id", Int64(), false, 1),
                                                      Field("d", Decimal(9, 2), true, 2)}));
  EXPECT_TRUE(s->Equals(*s2));
  ASSERT_OK_AND_ASSIGN(SchemaPtr s3, Schema::Make(1, {Field("id", Int64(), false, 1),
                                                      Field("d", Decimal(9, 2), true, 2)}));
  EXPECT_FALSE(s->Equals(*s3));
}

TEST(SchemaTest, TypeNamesAndPromotion) {
  EXPECT_EQ(*IcebergTypeName(*TimestampNs()), "timestamp_ns");
  EXPECT_EQ(*IcebergTypeName(*TimestampTzNs()), "timestamptz_ns");
  EXPECT_EQ(*IcebergTypeName(*Fixed(16)), "fixed[16]");
  EXPECT_EQ(*IcebergTypeName(*Uuid()), "uuid");
  EXPECT_THAT(IcebergTypeName(*Int16()), IsError(StatusCode::kNotSupported));
  EXPECT_TRUE(IsPromotionAllowed(*Int32(), *Int64()));
  EXPECT_FALSE(IsPromotionAllowed(*Int64(), *Int32()));
  EXPECT_TRUE(IsPromotionAllowed(*Float32(), *Float64()));
  EXPECT_TRUE(IsPromotionAllowed(*Decimal(9, 2), *Decimal(18, 2)));
  EXPECT_FALSE(IsPromotionAllowed(*Decimal(9, 2), *Decimal(18, 3)));
  EXPECT_FALSE(IsPromotionAllowed(*Decimal(18, 2), *Decimal(9, 2)));
  EXPECT_FALSE(IsPromotionAllowed(*Date(), *Timestamp()));
  EXPECT_TRUE(IsPromotionAllowed(*Date(), *Timestamp(), true));
  EXPECT_FALSE(IsPromotionAllowed(*Date(), *TimestampTz(), true));
  EXPECT_TRUE(IsPromotionAllowed(*String(), *String()));
}

}  // namespace
}  // namespace floe::iceberg
