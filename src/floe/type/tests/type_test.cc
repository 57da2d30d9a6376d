#include "floe/type/type.h"

#include <gtest/gtest.h>

#include "floe/testing/matchers.h"
#include "floe/type/sql_type_name.h"

namespace floe {
namespace {

using testing::IsError;

TEST(TypeTest, ToStringSpellsEveryType) {
  EXPECT_EQ(Int64()->ToString(), "int64");
  EXPECT_EQ(Decimal(18, 2)->ToString(), "decimal(18,2)");
  EXPECT_EQ(Fixed(11)->ToString(), "fixed[11]");
  EXPECT_EQ(TimestampTzNs()->ToString(), "timestamptz_ns");
  EXPECT_EQ(List(Int32())->ToString(), "list<int32>");
  EXPECT_EQ(Map(String(), Int64())->ToString(), "map<string, int64>");
  EXPECT_EQ(Struct({Field("a", Int32()), Field("b", String())})->ToString(),
            "struct<a: int32, b: string>");
}

TEST(TypeTest, SqlTypeNamesArePostgresNames) {
  EXPECT_EQ(SqlTypeName(*Int8()), "tinyint");
  EXPECT_EQ(SqlTypeName(*Int16()), "smallint");
  EXPECT_EQ(SqlTypeName(*Int32()), "integer");
  EXPECT_EQ(SqlTypeName(*Float64()), "double precision");
  EXPECT_EQ(SqlTypeName(*Decimal(18, 2)), "numeric");
  EXPECT_EQ(SqlTypeName(*TimestampTzNs()), "timestamp with time zone");
  EXPECT_EQ(SqlTypeName(*Time()), "time without time zone");
  EXPECT_EQ(SqlTypeName(*String()), "text");
  EXPECT_EQ(SqlTypeName(*Fixed(11)), "bytea");
  EXPECT_EQ(SqlTypeName(*Uuid()), "uuid");
  // PostgreSQL's arrays have one name whatever their dimensions.
  EXPECT_EQ(SqlTypeName(*List(Int32())), "integer[]");
  EXPECT_EQ(SqlTypeName(*List(List(String()))), "text[]");
  EXPECT_EQ(SqlTypeName(*Json()), "json");
  EXPECT_EQ(SqlTypeName(*Jsonb()), "jsonb");
}

TEST(TypeTest, ExtensionsKeepTheirStorageButAreTypesOfTheirOwn) {
  EXPECT_EQ(Jsonb()->id(), TypeId::kString);
  EXPECT_TRUE(Jsonb()->is_binary_like());
  EXPECT_EQ(Jsonb()->ToString(), "jsonb");
  EXPECT_FALSE(Jsonb()->Equals(*String()));
  EXPECT_FALSE(Jsonb()->Equals(*Json()));
  EXPECT_TRUE(Jsonb()->Equals(*Jsonb()));
  EXPECT_TRUE(SameShape(*Jsonb(), *String()));
  EXPECT_EQ(TypeFromSqlName("jsonb"), Jsonb());
  EXPECT_EQ(String()->extension(), Extension::kNone);
}

TEST(TypeTest, WidthsFollowTheLayout) {
  EXPECT_EQ(Boolean()->byte_width(), 0);
  EXPECT_EQ(Date()->byte_width(), 4);
  EXPECT_EQ(Time()->byte_width(), 8);
  EXPECT_EQ(Decimal(9, 2)->byte_width(), 16);
  EXPECT_EQ(Uuid()->byte_width(), 16);
  EXPECT_EQ(String()->byte_width(), 0);
}

TEST(TypeTest, DecimalAndFixedRangesAreChecked) {
  EXPECT_THAT(MakeDecimal(39, 2), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(MakeDecimal(5, 6), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(MakeFixed(0), IsError(StatusCode::kInvalidArgument));
  EXPECT_TRUE(MakeDecimal(38, 38).ok());
}

TEST(TypeTest, EqualityIncludesNestedFieldsAndIds) {
  auto a = Struct({Field("x", Int32(), false, 1)});
  auto b = Struct({Field("x", Int32(), false, 1)});
  auto c = Struct({Field("x", Int32(), false, 2)});
  EXPECT_TRUE(a->Equals(*b));
  EXPECT_FALSE(a->Equals(*c));
  EXPECT_FALSE(Decimal(10, 2)->Equals(*Decimal(10, 3)));
  EXPECT_FALSE(Map(String(), Int64())->field(0).nullable());
}

TEST(SchemaTest, LooksUpByNameAndId) {
  Schema s({Field("id", Int64(), false, 1), Field("name", String(), true, 2)});
  EXPECT_EQ(s.GetFieldIndex("name"), 1);
  EXPECT_EQ(s.GetFieldIndex("nope"), -1);
  EXPECT_EQ(s.GetFieldIndexById(1), 0);
  EXPECT_EQ(s.ToString(), "id: int64 not null (id 1)\nname: string (id 2)\n");
}

}  // namespace
}  // namespace floe
