#include "floe/batch/value_format.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/batch/pretty_print.h"
#include "floe/testing/matchers.h"

namespace floe {
namespace {

// A one-value array of `type` holding `value` (a NULL for a null scalar).
ArrayPtr One(const Scalar& value) {
  auto b = MakeBuilder(value.type());
  FLOE_CHECK(b->AppendScalar(value).ok(), "append");
  return b->Finish().ValueOrDie();
}

std::string Text(const Scalar& value) {
  std::string a = FormatValue(*One(value), 0);
  EXPECT_EQ(a, FormatScalar(value)) << "the scalar formatter disagrees";
  return a;
}

std::string Json(const Scalar& value) {
  std::string a;
  AppendJsonValue(*One(value), 0, &a);
  std::string s;
  AppendJsonScalar(value, &s);
  EXPECT_EQ(a, s) << "the scalar JSON formatter disagrees";
  return a;
}

Scalar Ts(TypePtr type, int64_t v) { return Scalar::Make(std::move(type), v); }

TEST(ValueFormatTest, IntegersBooleansStrings) {
  EXPECT_EQ(Text(Scalar::Make(Int8(), int32_t{-128})), "-128");
  EXPECT_EQ(Text(Scalar::Make(Int16(), int32_t{32767})), "32767");
  EXPECT_EQ(Text(Scalar::I32(-7)), "-7");
  EXPECT_EQ(Text(Scalar::I64(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(Text(Scalar::Bool(true)), "t");
  EXPECT_EQ(Text(Scalar::Bool(false)), "f");
  EXPECT_EQ(Text(Scalar::Str("a b")), "a b");
  EXPECT_EQ(Text(Scalar::Null(Int32())), "NULL");
  EXPECT_EQ(FormatValue(*One(Scalar::Null(Int32())), 0, {.null_text = ""}), "");
}

TEST(ValueFormatTest, FloatsLikePostgres) {
  EXPECT_EQ(Text(Scalar::F64(0.1)), "0.1");
  EXPECT_EQ(Text(Scalar::F64(1e20)), "1e+20");
  EXPECT_EQ(Text(Scalar::F64(1e15)), "1e+15");
  EXPECT_EQ(Text(Scalar::F64(1e14)), "100000000000000");
  EXPECT_EQ(Text(Scalar::F64(123456789012345.0)), "123456789012345");
  EXPECT_EQ(Text(Scalar::F64(1.5e-5)), "1.5e-05");
  EXPECT_EQ(Text(Scalar::F64(0.0001)), "0.0001");
  EXPECT_EQ(Text(Scalar::F64(-2.5)), "-2.5");
  EXPECT_EQ(Text(Scalar::F64(1.0 / 3)), "0.3333333333333333");
  EXPECT_EQ(Text(Scalar::F64(0.0)), "0");
  EXPECT_EQ(Text(Scalar::F64(-0.0)), "-0");
  EXPECT_EQ(Text(Scalar::F64(1e300)), "1e+300");
  EXPECT_EQ(Text(Scalar::F64(std::nan(""))), "NaN");
  EXPECT_EQ(Text(Scalar::F64(INFINITY)), "Infinity");
  EXPECT_EQ(Text(Scalar::F64(-INFINITY)), "-Infinity");
  EXPECT_EQ(Text(Scalar::Make(Float32(), 0.1f)), "0.1");
  EXPECT_EQ(Text(Scalar::Make(Float32(), 123456.0f)), "123456");
  EXPECT_EQ(Text(Scalar::Make(Float32(), 1234567.0f)), "1.234567e+06");
  EXPECT_EQ(Text(Scalar::Make(Float32(), 1e6f)), "1e+06");
}

TEST(ValueFormatTest, DecimalsKeepTheirScale) {
  EXPECT_EQ(Text(Scalar::Make(Decimal(5, 2), Int128{-5})), "-0.05");
  EXPECT_EQ(Text(Scalar::Make(Decimal(5, 2), Int128{12340})), "123.40");
  EXPECT_EQ(Text(Scalar::Make(Decimal(5, 2), Int128{0})), "0.00");
  EXPECT_EQ(Text(Scalar::Make(Decimal(5, 0), Int128{-42})), "-42");
  Int128 big = 1;
  for (int i = 0; i < 38; ++i) big *= 10;
  big -= 1;  // 38 nines
  EXPECT_EQ(Text(Scalar::Make(Decimal(38, 10), -big)), "-9999999999999999999999999999.9999999999");
}

TEST(ValueFormatTest, DatesTimesTimestamps) {
  EXPECT_EQ(Text(Scalar::Make(Date(), int32_t{20484})), "2026-01-31");
  EXPECT_EQ(Text(Scalar::Make(Date(), int32_t{-1})), "1969-12-31");
  EXPECT_EQ(Text(Scalar::Make(Date(), int32_t{-719162})), "0001-01-01");
  EXPECT_EQ(Text(Scalar::Make(Date(), int32_t{-719163})), "0001-12-31 BC");
  EXPECT_EQ(Text(Scalar::Make(Date(), int32_t{-719528})), "0001-01-01 BC");
  EXPECT_EQ(Text(Scalar::Make(Date(), int32_t{2932897})), "10000-01-01");
  EXPECT_EQ(Text(Ts(Time(), 43200500000)), "12:00:00.5");
  EXPECT_EQ(Text(Ts(Time(), 0)), "00:00:00");
  EXPECT_EQ(Text(Ts(Time(), 86399999999)), "23:59:59.999999");
  EXPECT_EQ(Text(Ts(Timestamp(), 1769860800500000)), "2026-01-31 12:00:00.5");
  EXPECT_EQ(Text(Ts(TimestampTz(), 1769860800500000)), "2026-01-31 12:00:00.5+00");
  EXPECT_EQ(Text(Ts(Timestamp(), -1)), "1969-12-31 23:59:59.999999");
  EXPECT_EQ(Text(Ts(TimestampNs(), 1769860800000000001)), "2026-01-31 12:00:00.000000001");
  EXPECT_EQ(Text(Ts(TimestampTzNs(), 1769860800120000000)), "2026-01-31 12:00:00.12+00");
  // 0044-03-15 BC 12:00 UTC is year -43 in the proleptic Gregorian calendar.
  const int64_t days = -719528 - (43 * 365 + 10) + 31 + 28 + 14;  // 11 leap years in -43..-1
  EXPECT_EQ(Text(Ts(TimestampTz(), (days * 86400 + 43200) * 1000000)), "0044-03-15 12:00:00+00 BC");
}

// The ends of the int64 range (a corrupt or hostile file can hold any value) print
// without overflow; the expected dates were computed independently (400-year cycles).
TEST(ValueFormatTest, TimesAndTimestampsAtTheEndsOfTheRange) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  // The extremes are PostgreSQL's 'infinity' and '-infinity'; one step inside is a date.
  EXPECT_EQ(Text(Ts(Timestamp(), kMax)), "infinity");
  EXPECT_EQ(Text(Ts(Timestamp(), kMin)), "-infinity");
  EXPECT_EQ(Text(Ts(TimestampTz(), kMin)), "-infinity");
  EXPECT_EQ(Text(Ts(TimestampNs(), kMax)), "infinity");
  EXPECT_EQ(Text(Ts(Timestamp(), kMax - 1)), "294247-01-10 04:00:54.775806");
  EXPECT_EQ(Text(Ts(Timestamp(), kMin + 1)), "290309-12-21 19:59:05.224193 BC");
  EXPECT_EQ(Text(Ts(TimestampTz(), kMin + 1)), "290309-12-21 19:59:05.224193+00 BC");
  EXPECT_EQ(Text(Ts(TimestampNs(), kMax - 1)), "2262-04-11 23:47:16.854775806");
  EXPECT_EQ(Text(Ts(TimestampNs(), kMin + 1)), "1677-09-21 00:12:43.145224193");
  EXPECT_EQ(Text(Scalar::Make(Date(), std::numeric_limits<int32_t>::max())), "infinity");
  EXPECT_EQ(Text(Scalar::Make(Date(), std::numeric_limits<int32_t>::min())), "-infinity");
  EXPECT_EQ(Text(Ts(Time(), kMax)), "2562047788:00:54.775807");
  EXPECT_EQ(Text(Ts(Time(), kMin)), "-2562047788:00:54.775808");
  EXPECT_EQ(Text(Ts(Time(), -1)), "-00:00:00.000001");
  EXPECT_EQ(Text(Ts(Time(), int64_t{86400} * 1000000)), "24:00:00");
}

TEST(ValueFormatTest, BytesAndUuids) {
  EXPECT_EQ(Text(Scalar::Make(Binary(), std::string("\x0a\x0b"))), "\\x0a0b");
  EXPECT_EQ(Text(Scalar::Make(Binary(), std::string())), "\\x");
  EXPECT_EQ(Text(Scalar::Make(Fixed(2), std::string("\xff\x00", 2))), "\\xff00");
  std::string uuid("\x12\x3e\x45\x67\xe8\x9b\x12\xd3\xa4\x56\x42\x66\x14\x17\x40\x00", 16);
  EXPECT_EQ(Text(Scalar::Make(Uuid(), uuid)), "123e4567-e89b-12d3-a456-426614174000");
}

TEST(ValueFormatTest, JsonForms) {
  EXPECT_EQ(Json(Scalar::Bool(true)), "true");
  EXPECT_EQ(Json(Scalar::I64(-3)), "-3");
  EXPECT_EQ(Json(Scalar::F64(1e20)), "1e+20");
  EXPECT_EQ(Json(Scalar::F64(std::nan(""))), "\"NaN\"");
  EXPECT_EQ(Json(Scalar::F64(-INFINITY)), "\"-Infinity\"");
  EXPECT_EQ(Json(Scalar::Make(Decimal(5, 2), Int128{12340})), "123.40");
  EXPECT_EQ(Json(Scalar::Str("a\"b\\c\n\x01")), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(Json(Scalar::Make(Binary(), std::string("\x0a"))), "\"\\\\x0a\"");
  EXPECT_EQ(Json(Scalar::Make(Date(), int32_t{-1})), "\"1969-12-31\"");
  EXPECT_EQ(Json(Ts(TimestampTz(), 1769860800500000)), "\"2026-01-31 12:00:00.5+00\"");
  EXPECT_EQ(Json(Scalar::Null(String())), "null");
}

// list<struct<a: int32, b: list<string>>> with
// [{a: 1, b: [x, "y z"]}, {a: null, b: null}], null, [], [{a: 3, b: []}, null]
ArrayPtr NestedList() {
  auto b = MakeBuilder(List(Struct({Field("a", Int32()), Field("b", List(String()))})));
  auto* list = static_cast<ListBuilder*>(b.get());
  auto* st = static_cast<StructBuilder*>(list->value_builder());
  auto* a = static_cast<Int32Builder*>(st->field_builder(0));
  auto* bl = static_cast<ListBuilder*>(st->field_builder(1));
  auto* s = static_cast<BinaryBuilder*>(bl->value_builder());
  auto ok = [&](Status x) { FLOE_CHECK(x.ok(), x.ToString()); };
  ok(list->Append());
  ok(st->Append());
  ok(a->Append(1));
  ok(bl->Append());
  ok(s->Append("x"));
  ok(s->Append("y z"));
  ok(st->Append());
  ok(a->AppendNull());
  ok(bl->AppendNull());
  ok(list->AppendNull());
  ok(list->Append());
  ok(list->Append());
  ok(st->Append());
  ok(a->Append(3));
  ok(bl->Append());
  ok(st->AppendNull());
  return b->Finish().ValueOrDie();
}

TEST(ValueFormatTest, NestedTextForms) {
  ArrayPtr arr = NestedList();
  EXPECT_EQ(FormatValue(*arr, 0), R"J({"(1,\"{x,\"\"y z\"\"}\")","(,)"})J");
  EXPECT_EQ(FormatValue(*arr, 1), "NULL");
  EXPECT_EQ(FormatValue(*arr, 2), "{}");
  EXPECT_EQ(FormatValue(*arr, 3), R"J({"(3,{})",NULL})J");
  // The struct child alone, as row text.
  const Array& st = *arr->child(0);
  EXPECT_EQ(FormatValue(st, 0), R"J((1,"{x,""y z""}"))J");
  EXPECT_EQ(FormatValue(*arr->Slice(3, 1), 0), R"J({"(3,{})",NULL})J");

  auto lb = MakeBuilder(List(String()));
  auto* l = static_cast<ListBuilder*>(lb.get());
  auto* s = static_cast<BinaryBuilder*>(l->value_builder());
  ASSERT_OK(l->Append());
  for (const char* v : {"a", "", "null", "b,c", "q\"\\", "{}"}) ASSERT_OK(s->Append(v));
  ASSERT_OK(s->AppendNull());
  ASSERT_OK_AND_ASSIGN(auto strs, l->Finish());
  EXPECT_EQ(FormatValue(*strs, 0), R"J({a,"","null","b,c","q\"\\","{}",NULL})J");

  auto ll = MakeBuilder(List(List(Int64())));
  auto* outer = static_cast<ListBuilder*>(ll.get());
  auto* inner = static_cast<ListBuilder*>(outer->value_builder());
  auto* ints = static_cast<Int64Builder*>(inner->value_builder());
  ASSERT_OK(outer->Append());
  ASSERT_OK(inner->Append());
  ASSERT_OK(ints->Append(1));
  ASSERT_OK(ints->Append(2));
  ASSERT_OK(inner->Append());
  ASSERT_OK(ints->AppendNull());
  ASSERT_OK_AND_ASSIGN(auto nested, outer->Finish());
  EXPECT_EQ(FormatValue(*nested, 0), "{{1,2},{NULL}}");
}

ArrayPtr StringMap() {
  auto b = MakeBuilder(Map(String(), List(Int32())));
  auto* m = static_cast<MapBuilder*>(b.get());
  auto* k = static_cast<BinaryBuilder*>(m->key_builder());
  auto* v = static_cast<ListBuilder*>(m->item_builder());
  auto* ints = static_cast<Int32Builder*>(v->value_builder());
  auto ok = [&](Status x) { FLOE_CHECK(x.ok(), x.ToString()); };
  ok(m->Append());
  ok(k->Append("a"));
  ok(v->Append());
  ok(ints->Append(1));
  ok(ints->Append(2));
  ok(k->Append("b=c"));
  ok(v->AppendNull());
  ok(m->AppendNull());
  return b->Finish().ValueOrDie();
}

TEST(ValueFormatTest, MapsAsHstoreLikeText) {
  ArrayPtr arr = StringMap();
  EXPECT_EQ(FormatValue(*arr, 0), R"J({a=>"{1,2}","b=c"=>NULL})J");
  EXPECT_EQ(FormatValue(*arr, 1), "NULL");
}

TEST(ValueFormatTest, NestedJson) {
  ArrayPtr arr = NestedList();
  std::string out;
  AppendJsonValue(*arr, 0, &out);
  EXPECT_EQ(out, R"J([{"a":1,"b":["x","y z"]},{"a":null,"b":null}])J");
  out.clear();
  AppendJsonValue(*arr, 3, &out);
  EXPECT_EQ(out, R"J([{"a":3,"b":[]},null])J");
  out.clear();
  AppendJsonValue(*StringMap(), 0, &out);
  EXPECT_EQ(out, R"J({"a":[1,2],"b=c":null})J");

  auto b = MakeBuilder(Map(Int32(), Boolean()));
  auto* m = static_cast<MapBuilder*>(b.get());
  ASSERT_OK(m->Append());
  ASSERT_OK(static_cast<Int32Builder*>(m->key_builder())->Append(7));
  ASSERT_OK(static_cast<BooleanBuilder*>(m->item_builder())->Append(false));
  ASSERT_OK_AND_ASSIGN(auto im, m->Finish());
  out.clear();
  AppendJsonValue(*im, 0, &out);
  EXPECT_EQ(out, R"J([{"key":7,"value":false}])J");
}

RecordBatchPtr SmallBatch() {
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{Field("id", Int64()), Field("name", String()), Field("ok", Boolean()),
                         Field("price", Decimal(6, 2))});
  Int64Builder id(Int64());
  BinaryBuilder name(String());
  BooleanBuilder ok;
  DecimalBuilder price(Decimal(6, 2));
  auto check = [](Status s) { FLOE_CHECK(s.ok(), s.ToString()); };
  check(id.Append(1));
  check(name.Append("abc"));
  check(ok.Append(true));
  check(price.Append(1999));
  check(id.Append(22));
  check(name.Append("a \"q\", b"));
  check(ok.AppendNull());
  check(price.Append(-5));
  check(id.AppendNull());
  check(name.Append(""));
  check(ok.Append(false));
  check(price.AppendNull());
  return RecordBatch::Make(schema, 3,
                           {id.Finish().ValueOrDie(), name.Finish().ValueOrDie(),
                            ok.Finish().ValueOrDie(), price.Finish().ValueOrDie()})
      .ValueOrDie();
}

TEST(PrettyPrintTest, AlignedTable) {
  EXPECT_EQ(PrettyPrint(*SmallBatch()),
            "  id  |   name   |  ok  | price \n"
            "------+----------+------+-------\n"
            "    1 | abc      | t    | 19.99\n"
            "   22 | a \"q\", b | NULL | -0.05\n"
            " NULL |          | f    |  NULL\n"
            "(3 rows)\n");
}

TEST(PrettyPrintTest, StreamsBatchesAndCountsRows) {
  auto batch = SmallBatch();
  std::ostringstream out;
  TableOptions options;
  options.null_text = "";
  TableWriter writer(batch->schema(), &out, options);
  ASSERT_OK(writer.Write(*batch->Slice(0, 1)));
  ASSERT_OK(writer.Write(*batch->Slice(2, 1)));
  ASSERT_OK(writer.Finish());
  EXPECT_EQ(out.str(),
            " id | name | ok | price \n"
            "----+------+----+-------\n"
            "  1 | abc  | t  | 19.99\n"
            "    |      | f  |      \n"
            "(2 rows)\n");

  std::ostringstream empty;
  TableWriter none(batch->schema(), &empty);
  ASSERT_OK(none.Finish());
  EXPECT_EQ(empty.str(),
            " id | name | ok | price \n"
            "----+------+----+-------\n"
            "(0 rows)\n");
}

TEST(PrettyPrintTest, Csv) {
  EXPECT_EQ(FormatCsv(*SmallBatch()),
            "id,name,ok,price\n"
            "1,abc,t,19.99\n"
            "22,\"a \"\"q\"\", b\",,-0.05\n"
            ",\"\",f,\n");
  std::ostringstream out;
  CsvOptions options;
  options.header = false;
  options.delimiter = ';';
  CsvWriter writer(SmallBatch()->schema(), &out, options);
  ASSERT_OK(writer.Write(*SmallBatch()->Slice(0, 1)));
  ASSERT_OK(writer.Finish());
  EXPECT_EQ(out.str(), "1;abc;t;19.99\n");
}

}  // namespace
}  // namespace floe
