#include "floe/iceberg/spec_text.h"

#include <gtest/gtest.h>

#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::testing::IsErrorWith;

TEST(ParseSchemaText, PrimitiveAndNestedTypes) {
  ASSERT_OK_AND_ASSIGN(
      SchemaPtr s,
      ParseSchemaText("id bigint not null, ts timestamptz, name string, \"Odd Name\" text, "
                      "price decimal(10, 2), d date, t time, local timestamp without time zone, "
                      "z timestamp with time zone, ns timestamp_ns, u uuid, b bytea, f fixed[4], "
                      "ok boolean, r real, dp double precision, i int, "
                      "point struct<x: double not null, y double>, tags list<string not null>, "
                      "arr int[], attrs map<string, int not null>"));
  ASSERT_EQ(s->num_fields(), 21);
  const auto& f = s->fields();
  EXPECT_EQ(f[0].ToString(), "id: int64 not null (id 1)");
  EXPECT_TRUE(f[1].type()->Equals(*TimestampTz()));
  EXPECT_TRUE(f[2].type()->Equals(*String()));
  EXPECT_EQ(f[3].name(), "Odd Name");
  EXPECT_TRUE(f[4].type()->Equals(*Decimal(10, 2)));
  EXPECT_TRUE(f[7].type()->Equals(*Timestamp()));
  EXPECT_TRUE(f[8].type()->Equals(*TimestampTz()));
  EXPECT_TRUE(f[9].type()->Equals(*TimestampNs()));
  EXPECT_TRUE(f[12].type()->Equals(*Fixed(4)));
  EXPECT_TRUE(f[14].type()->Equals(*Float32()));
  EXPECT_TRUE(f[15].type()->Equals(*Float64()));
  // Nested ids follow their parent in order of appearance.
  EXPECT_EQ(f[17].field_id(), 18);
  EXPECT_EQ(f[17].type()->field(0).field_id(), 19);
  EXPECT_FALSE(f[17].type()->field(0).nullable());
  EXPECT_EQ(f[17].type()->field(1).field_id(), 20);
  EXPECT_EQ(f[18].type()->field(0).field_id(), 22);
  EXPECT_FALSE(f[18].type()->field(0).nullable());
  EXPECT_EQ(f[19].type()->id(), TypeId::kList);
  EXPECT_EQ(f[20].type()->id(), TypeId::kMap);
  EXPECT_FALSE(f[20].type()->field(1).nullable());
  EXPECT_EQ(s->highest_field_id(), f[20].type()->field(1).field_id());
}

TEST(ParseSchemaText, Errors) {
  EXPECT_THAT(ParseSchemaText(""), IsErrorWith(StatusCode::kInvalidArgument, "no columns"));
  EXPECT_THAT(ParseSchemaText("id bigint, x blob"),
              IsErrorWith(StatusCode::kInvalidArgument, "unknown type 'blob' at position 14"));
  EXPECT_THAT(ParseSchemaText("id bigint not"),
              IsErrorWith(StatusCode::kInvalidArgument, "expected 'null' at position 14"));
  EXPECT_THAT(ParseSchemaText("id decimal(40, 2)"),
              IsErrorWith(StatusCode::kInvalidArgument, "out of range"));
  EXPECT_THAT(
      ParseSchemaText("id int, ID bigint"),
      IsErrorWith(StatusCode::kInvalidArgument, "column 'ID' at position 9 is defined twice"));
  EXPECT_THAT(ParseSchemaText("s struct<a int, a int>"),
              IsErrorWith(StatusCode::kInvalidArgument, "column 'a' at position 17"));
  EXPECT_THAT(ParseSchemaText("id int; drop"),
              IsErrorWith(StatusCode::kInvalidArgument, "unexpected character ';' at position 7"));
  EXPECT_THAT(ParseSchemaText("\"id int"),
              IsErrorWith(StatusCode::kInvalidArgument, "unterminated quoted name"));
}

SchemaPtr EventSchema() {
  return ParseSchemaText(
             "id bigint not null, ts timestamptz, name string, loc struct<city: string>, "
             "amount decimal(9, 2)")
      .ValueOrDie();
}

TEST(ParsePartitionSpecText, EveryTransformAndNames) {
  SchemaPtr s = EventSchema();
  ASSERT_OK_AND_ASSIGN(
      PartitionSpecPtr spec,
      ParsePartitionSpecText("day(ts), bucket(16, id), truncate(4, name), loc.city, "
                             "years(ts) AS y, bucket(amount, 8), void(name)",
                             *s));
  ASSERT_EQ(spec->fields().size(), 7u);
  const auto& f = spec->fields();
  EXPECT_EQ(f[0].name, "ts_day");
  EXPECT_EQ(f[0].source_id, 2);
  EXPECT_EQ(f[0].field_id, 1000);
  EXPECT_EQ(f[1].name, "id_bucket");
  EXPECT_EQ(f[1].transform, Transform::Bucket(16));
  EXPECT_EQ(f[2].name, "name_trunc");
  EXPECT_EQ(f[2].transform, Transform::Truncate(4));
  EXPECT_EQ(f[3].name, "loc.city");
  EXPECT_EQ(f[4].name, "y");
  EXPECT_EQ(f[4].transform, Transform::Year());
  EXPECT_EQ(f[5].name, "amount_bucket");
  EXPECT_EQ(f[5].transform, Transform::Bucket(8));
  EXPECT_EQ(f[6].name, "name_null");
  EXPECT_EQ(f[6].field_id, 1006);
  EXPECT_EQ(PartitionSpecText(*spec, *s),
            "day(ts), bucket(16, id), truncate(4, name), loc.city, year(ts) AS y, "
            "bucket(8, amount), void(name)");
  ASSERT_OK_AND_ASSIGN(PartitionSpecPtr again,
                       ParsePartitionSpecText(PartitionSpecText(*spec, *s), *s));
  EXPECT_TRUE(again->Equals(*spec));
  ASSERT_OK_AND_ASSIGN(PartitionSpecPtr none, ParsePartitionSpecText("  ", *s));
  EXPECT_TRUE(none->is_unpartitioned());
  // Names match case-insensitively unless quoted.
  EXPECT_OK(ParsePartitionSpecText("DAY(TS)", *s).status());
  EXPECT_THAT(ParsePartitionSpecText("day(\"TS\")", *s),
              IsErrorWith(StatusCode::kInvalidArgument, "column 'TS' at position 5"));
}

TEST(ParsePartitionSpecText, Errors) {
  SchemaPtr s = EventSchema();
  EXPECT_THAT(ParsePartitionSpecText("day(nope)", *s),
              IsErrorWith(StatusCode::kInvalidArgument, "column 'nope'"));
  EXPECT_THAT(ParsePartitionSpecText("week(ts)", *s),
              IsErrorWith(StatusCode::kInvalidArgument, "unknown transform 'week'"));
  EXPECT_THAT(ParsePartitionSpecText("bucket(0, id)", *s),
              IsErrorWith(StatusCode::kInvalidArgument, "positive"));
  EXPECT_THAT(ParsePartitionSpecText("day(name)", *s),
              IsErrorWith(StatusCode::kInvalidArgument, "day of column 'name'"));
  EXPECT_THAT(ParsePartitionSpecText("id, id", *s),
              IsErrorWith(StatusCode::kInvalidArgument, "partitioning:"));
  EXPECT_THAT(ParsePartitionSpecText("id name", *s),
              IsErrorWith(StatusCode::kInvalidArgument, "expected ','"));
}

TEST(ParseSortOrderText, DirectionsAndNullOrders) {
  SchemaPtr s = EventSchema();
  ASSERT_OK_AND_ASSIGN(SortOrderPtr order,
                       ParseSortOrderText("id DESC, day(ts), name asc nulls last", *s));
  EXPECT_EQ(order->order_id(), 1);
  ASSERT_EQ(order->fields().size(), 3u);
  EXPECT_EQ(order->fields()[0].direction, SortDirection::kDesc);
  EXPECT_EQ(order->fields()[0].null_order, NullOrder::kNullsLast);
  EXPECT_EQ(order->fields()[1].transform, Transform::Day());
  EXPECT_EQ(order->fields()[1].null_order, NullOrder::kNullsFirst);
  EXPECT_EQ(order->fields()[2].null_order, NullOrder::kNullsLast);
  EXPECT_EQ(SortOrderText(*order, *s),
            "id DESC NULLS LAST, day(ts) ASC NULLS FIRST, name ASC NULLS LAST");
  ASSERT_OK_AND_ASSIGN(SortOrderPtr unsorted, ParseSortOrderText("", *s));
  EXPECT_TRUE(unsorted->is_unsorted());
  EXPECT_THAT(ParseSortOrderText("id nulls middle", *s),
              IsErrorWith(StatusCode::kInvalidArgument, "expected FIRST or LAST"));
}

}  // namespace
}  // namespace floe::iceberg
