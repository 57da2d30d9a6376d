// Schema conversion, level generation and statistics ordering of the Parquet writer.

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

// GCC 12 with -fsanitize=address reports std::variant (Scalar) temporaries in initializer
// lists as maybe-uninitialized; it is a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "floe/format/parquet/tests/writer_test_util.h"
#include "floe/format/parquet/writer_internal.h"

namespace floe::parquet {
namespace {

using internal::ColumnStats;
using internal::SortOrder;
using testing::FromScalars;
using testing::LE32;
using testing::LE64;
using testing::LED;
using testing::LEF;

SchemaElement Leaf(std::string name, Type type, FieldRepetitionType rep,
                   std::optional<int32_t> field_id = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition_type = rep;
  e.field_id = field_id;
  return e;
}

SchemaElement Group(std::string name, int children, std::optional<FieldRepetitionType> rep,
                    std::optional<int32_t> field_id = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.num_children = children;
  e.repetition_type = rep;
  e.field_id = field_id;
  return e;
}

LogicalType Logical(LogicalType::Kind kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}

constexpr auto kReq = FieldRepetitionType::kRequired;
constexpr auto kOpt = FieldRepetitionType::kOptional;
constexpr auto kRepeated = FieldRepetitionType::kRepeated;

TEST(ParquetWriterSchema, PrimitiveTypes) {
  Schema schema({Field("b", Boolean(), false, 1), Field("i8", Int8(), true, 2),
                 Field("i16", Int16(), true, 3), Field("d9", Decimal(9, 2), true, 4),
                 Field("d18", Decimal(18, 3), true, 5), Field("d38", Decimal(38, 10), true, 6),
                 Field("t", Time(), true, 7), Field("ts", Timestamp(), true, 8),
                 Field("tstz", TimestampTz(), true, 9), Field("tsns", TimestampTzNs(), true, 10),
                 Field("s", String(), true, 11), Field("u", Uuid(), true, 12),
                 Field("f", Fixed(3), true), Field("date", Date(), true, 14)});
  ASSERT_OK_AND_ASSIGN(auto ps, internal::ToParquetSchema(schema));
  ASSERT_EQ(ps.elements.size(), 15u);
  EXPECT_EQ(ps.elements[0], Group("schema", 14, std::nullopt));
  EXPECT_EQ(ps.elements[1], Leaf("b", Type::kBoolean, kReq, 1));

  SchemaElement i8 = Leaf("i8", Type::kInt32, kOpt, 2);
  LogicalType int8 = Logical(LogicalType::Kind::kInteger);
  int8.bit_width = 8;
  int8.is_signed = true;
  i8.logical_type = int8;
  i8.converted_type = ConvertedType::kInt8;
  EXPECT_EQ(ps.elements[2], i8);
  EXPECT_EQ(ps.elements[3].converted_type, ConvertedType::kInt16);
  EXPECT_EQ(ps.elements[3].logical_type->bit_width, 16);

  SchemaElement d9 = Leaf("d9", Type::kInt32, kOpt, 4);
  LogicalType dec = Logical(LogicalType::Kind::kDecimal);
  dec.precision = 9;
  dec.scale = 2;
  d9.logical_type = dec;
  d9.converted_type = ConvertedType::kDecimal;
  d9.precision = 9;
  d9.scale = 2;
  EXPECT_EQ(ps.elements[4], d9);
  EXPECT_EQ(ps.elements[5].type, Type::kInt64);
  EXPECT_EQ(ps.elements[6].type, Type::kFixedLenByteArray);
  EXPECT_EQ(ps.elements[6].type_length, 16);

  SchemaElement t = Leaf("t", Type::kInt64, kOpt, 7);
  LogicalType time = Logical(LogicalType::Kind::kTime);
  time.unit = TimeUnit::kMicros;
  time.is_adjusted_to_utc = false;
  t.logical_type = time;
  EXPECT_EQ(ps.elements[7], t);

  LogicalType ts = Logical(LogicalType::Kind::kTimestamp);
  ts.unit = TimeUnit::kMicros;
  EXPECT_EQ(ps.elements[8].logical_type, ts);
  EXPECT_EQ(ps.elements[8].converted_type, std::nullopt);
  ts.is_adjusted_to_utc = true;
  EXPECT_EQ(ps.elements[9].logical_type, ts);
  EXPECT_EQ(ps.elements[9].converted_type, ConvertedType::kTimestampMicros);
  ts.unit = TimeUnit::kNanos;
  EXPECT_EQ(ps.elements[10].logical_type, ts);
  EXPECT_EQ(ps.elements[10].converted_type, std::nullopt);

  SchemaElement s = Leaf("s", Type::kByteArray, kOpt, 11);
  s.logical_type = Logical(LogicalType::Kind::kString);
  s.converted_type = ConvertedType::kUtf8;
  EXPECT_EQ(ps.elements[11], s);
  SchemaElement u = Leaf("u", Type::kFixedLenByteArray, kOpt, 12);
  u.type_length = 16;
  u.logical_type = Logical(LogicalType::Kind::kUuid);
  EXPECT_EQ(ps.elements[12], u);
  SchemaElement f = Leaf("f", Type::kFixedLenByteArray, kOpt);
  f.type_length = 3;
  EXPECT_EQ(ps.elements[13], f);
  EXPECT_EQ(ps.elements[14].converted_type, ConvertedType::kDate);

  ASSERT_EQ(ps.leaves.size(), 14u);
  EXPECT_EQ(ps.leaves[0].max_def, 0);
  EXPECT_EQ(ps.leaves[1].max_def, 1);
}

TEST(ParquetWriterSchema, DecimalWidths) {
  // LogicalTypes.md: the minimal number of bytes for the precision.
  EXPECT_EQ(internal::DecimalFixedWidth(19), 9);
  EXPECT_EQ(internal::DecimalFixedWidth(20), 9);
  EXPECT_EQ(internal::DecimalFixedWidth(21), 9);
  EXPECT_EQ(internal::DecimalFixedWidth(22), 10);
  EXPECT_EQ(internal::DecimalFixedWidth(38), 16);
  EXPECT_EQ(internal::DecimalFixedWidth(2), 1);
  EXPECT_EQ(internal::DecimalFixedWidth(3), 2);
  EXPECT_EQ(internal::DecimalFixedWidth(9), 4);
  EXPECT_EQ(internal::DecimalFixedWidth(18), 8);
}

TEST(ParquetWriterSchema, NestedTypes) {
  Schema schema({Field("l", List(Field("element", Int32(), false, 2)), true, 1),
                 Field("m", Map(Field("key", String(), false, 4), Field("value", Int64(), true, 5)),
                       false, 3),
                 Field("st", Struct({Field("a", Int32(), true, 7)}), true, 6)});
  ASSERT_OK_AND_ASSIGN(auto ps, internal::ToParquetSchema(schema));
  SchemaElement l = Group("l", 1, kOpt, 1);
  l.logical_type = Logical(LogicalType::Kind::kList);
  l.converted_type = ConvertedType::kList;
  SchemaElement m = Group("m", 1, kReq, 3);
  m.logical_type = Logical(LogicalType::Kind::kMap);
  m.converted_type = ConvertedType::kMap;
  std::vector<SchemaElement> expected = {
      Group("schema", 3, std::nullopt),
      l,
      Group("list", 1, kRepeated),
      Leaf("element", Type::kInt32, kReq, 2),
      m,
      Group("key_value", 2, kRepeated),
      Leaf("key", Type::kByteArray, kReq, 4),
      Leaf("value", Type::kInt64, kOpt, 5),
      Group("st", 1, kOpt, 6),
      Leaf("a", Type::kInt32, kOpt, 7),
  };
  expected[6].logical_type = Logical(LogicalType::Kind::kString);
  expected[6].converted_type = ConvertedType::kUtf8;
  EXPECT_EQ(ps.elements, expected);
  ASSERT_EQ(ps.leaves.size(), 4u);
  EXPECT_EQ(ps.leaves[0].path, (std::vector<std::string>{"l", "list", "element"}));
  EXPECT_EQ(ps.leaves[0].max_def, 2);
  EXPECT_EQ(ps.leaves[0].max_rep, 1);
  EXPECT_EQ(ps.leaves[1].max_def, 1);
  EXPECT_EQ(ps.leaves[1].max_rep, 1);
  EXPECT_EQ(ps.leaves[2].max_def, 2);
  EXPECT_EQ(ps.leaves[3].max_def, 2);
  EXPECT_EQ(ps.leaves[3].max_rep, 0);
}

TEST(ParquetWriterSchema, EmptyStructIsNotSupported) {
  Schema schema({Field("s", Struct({}))});
  EXPECT_THAT(internal::ToParquetSchema(schema), floe::testing::IsError(StatusCode::kNotSupported));
}

// list<struct<a: int32, b: list<string>>>, all optional:
//   [ [ {1, ["x", null]}, null, {null, []} ], null, [], [ {2, null} ] ]
TEST(ParquetWriterLevels, NestedListOfStruct) {
  TypePtr inner = List(String());
  TypePtr st = Struct({Field("a", Int32()), Field("b", inner)});
  TypePtr type = List(Field("element", st));
  ListBuilder b(type);
  auto* sb = static_cast<StructBuilder*>(b.value_builder());
  auto* ab = static_cast<NumericBuilder<int32_t>*>(sb->field_builder(0));
  auto* lb = static_cast<ListBuilder*>(sb->field_builder(1));
  auto* strb = static_cast<BinaryBuilder*>(lb->value_builder());
  ASSERT_OK(b.Append());
  ASSERT_OK(sb->Append());
  ASSERT_OK(ab->Append(1));
  ASSERT_OK(lb->Append());
  ASSERT_OK(strb->Append("x"));
  ASSERT_OK(strb->AppendNull());
  ASSERT_OK(sb->AppendNull());
  ASSERT_OK(sb->Append());
  ASSERT_OK(ab->AppendNull());
  ASSERT_OK(lb->Append());
  ASSERT_OK(b.AppendNull());
  ASSERT_OK(b.Append());
  ASSERT_OK(b.Append());
  ASSERT_OK(sb->Append());
  ASSERT_OK(ab->Append(2));
  ASSERT_OK(lb->AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr array, b.Finish());

  Schema schema({Field("c", type)});
  ASSERT_OK_AND_ASSIGN(auto ps, internal::ToParquetSchema(schema));
  ASSERT_EQ(ps.leaves.size(), 2u);
  // c(opt) list(rep) element(opt) a(opt): max_def 4; b(opt) list(rep) element(opt): 6.
  EXPECT_EQ(ps.leaves[0].max_def, 4);
  EXPECT_EQ(ps.leaves[1].max_def, 6);
  EXPECT_EQ(ps.leaves[1].max_rep, 2);
  std::vector<internal::LeafLevels> levels(2);
  ASSERT_OK(internal::GenerateLevels(ps.roots[0], ps.leaves, array, 0, &levels));
  EXPECT_EQ(levels[0].def, (std::vector<int16_t>{4, 2, 3, 0, 1, 4}));
  EXPECT_EQ(levels[0].rep, (std::vector<int16_t>{0, 1, 1, 0, 0, 0}));
  EXPECT_EQ(levels[0].indices.size(), 2u);
  EXPECT_EQ(levels[1].def, (std::vector<int16_t>{6, 5, 2, 4, 0, 1, 3}));
  EXPECT_EQ(levels[1].rep, (std::vector<int16_t>{0, 2, 1, 1, 0, 0, 0}));
  EXPECT_EQ(levels[1].indices, (std::vector<int64_t>{0}));
}

TEST(ParquetWriterLevels, MapAndSlicedStruct) {
  TypePtr mt = Map(String(), Int32());
  MapBuilder mb(mt);
  auto* kb = static_cast<BinaryBuilder*>(mb.key_builder());
  auto* vb = static_cast<NumericBuilder<int32_t>*>(mb.item_builder());
  ASSERT_OK(mb.Append());
  ASSERT_OK(kb->Append("a"));
  ASSERT_OK(vb->Append(1));
  ASSERT_OK(kb->Append("b"));
  ASSERT_OK(vb->AppendNull());
  ASSERT_OK(mb.AppendNull());
  ASSERT_OK(mb.Append());
  ASSERT_OK_AND_ASSIGN(ArrayPtr map, mb.Finish());
  Schema schema({Field("m", mt)});
  ASSERT_OK_AND_ASSIGN(auto ps, internal::ToParquetSchema(schema));
  std::vector<internal::LeafLevels> levels(2);
  ASSERT_OK(internal::GenerateLevels(ps.roots[0], ps.leaves, map, 0, &levels));
  EXPECT_EQ(levels[0].def, (std::vector<int16_t>{2, 2, 0, 1}));
  EXPECT_EQ(levels[0].rep, (std::vector<int16_t>{0, 1, 0, 0}));
  EXPECT_EQ(levels[1].def, (std::vector<int16_t>{3, 2, 0, 1}));

  // A sliced struct: children are read at the struct's offset.
  TypePtr st = Struct({Field("x", Int64(), false)});
  StructBuilder sb(st);
  for (int64_t i = 0; i < 4; ++i) {
    ASSERT_OK(sb.Append());
    ASSERT_OK(static_cast<NumericBuilder<int64_t>*>(sb.field_builder(0))->Append(i * 10));
  }
  ASSERT_OK_AND_ASSIGN(ArrayPtr s, sb.Finish());
  Schema schema2({Field("s", st, false)});
  ASSERT_OK_AND_ASSIGN(auto ps2, internal::ToParquetSchema(schema2));
  std::vector<internal::LeafLevels> levels2(1);
  ASSERT_OK(internal::GenerateLevels(ps2.roots[0], ps2.leaves, s->Slice(2, 2), 0, &levels2));
  ASSERT_EQ(levels2[0].indices.size(), 2u);
  EXPECT_EQ(levels2[0].values->Value<int64_t>(levels2[0].indices[0]), 20);
  EXPECT_EQ(levels2[0].values->Value<int64_t>(levels2[0].indices[1]), 30);
}

TEST(ParquetWriterLevels, NullInRequiredColumnNamesColumnAndRow) {
  TypePtr st = Struct({Field("x", Int32(), false)});
  ASSERT_OK_AND_ASSIGN(
      ArrayPtr xs, FromScalars(Int32(), {Scalar::I32(1), Scalar::Null(Int32()), Scalar::I32(3)}));
  ASSERT_OK_AND_ASSIGN(ArrayPtr s, Array::Make(st, 3, {nullptr}, {xs}));
  Schema schema({Field("s", st, true)});
  ASSERT_OK_AND_ASSIGN(auto ps, internal::ToParquetSchema(schema));
  std::vector<internal::LeafLevels> levels(1);
  EXPECT_THAT(internal::GenerateLevels(ps.roots[0], ps.leaves, s, 100, &levels),
              floe::testing::IsErrorWith(StatusCode::kConstraint, "s.x at row 101"));
}

TEST(ParquetWriterStatistics, SignedIntegersAndBooleans) {
  ColumnStats s(SortOrder::kSigned);
  s.UpdateInt(-5, 3);
  s.UpdateInt(-7, -1);
  auto b = s.Encode(Type::kInt32, false, 64);
  EXPECT_EQ(b.min, LE32(-7));
  EXPECT_EQ(b.max, LE32(3));
  EXPECT_EQ(s.Encode(Type::kInt64, false, 64).min, LE64(-7));
  ColumnStats t(SortOrder::kBoolean);
  t.UpdateBool(true, true);
  EXPECT_EQ(t.Encode(Type::kBoolean, false, 0).min, std::string(1, '\1'));
  t.UpdateBool(false, false);
  EXPECT_EQ(t.Encode(Type::kBoolean, false, 0).min, std::string(1, '\0'));
}

TEST(ParquetWriterStatistics, FloatZeros) {
  ColumnStats s(SortOrder::kFloat);
  s.UpdateDouble(0.0, 0.0);
  auto b = s.Encode(Type::kDouble, false, 0);
  EXPECT_EQ(b.min, LED(-0.0));
  EXPECT_EQ(b.max, LED(0.0));
  ColumnStats f(SortOrder::kFloat);
  f.UpdateDouble(-0.0, 2.5);
  f.UpdateDouble(-1.5, -0.0);
  auto c = f.Encode(Type::kFloat, false, 0);
  EXPECT_EQ(c.min, LEF(-1.5f));
  EXPECT_EQ(c.max, LEF(2.5f));
}

TEST(ParquetWriterStatistics, BytesUnsignedAndDecimalsSigned) {
  EXPECT_LT(internal::CompareBytes(SortOrder::kUnsignedBytes, "z", "\xC3\xA9"), 0);
  EXPECT_LT(internal::CompareBytes(SortOrder::kUnsignedBytes, "ab", "abc"), 0);
  // -1 (0xFF 0xFF) < 1 (0x00 0x01) as decimals, but not as bytes.
  std::string minus_one("\xFF\xFF", 2), one("\x00\x01", 2);
  EXPECT_LT(internal::CompareBytes(SortOrder::kSignedBigEndian, minus_one, one), 0);
  EXPECT_GT(internal::CompareBytes(SortOrder::kUnsignedBytes, minus_one, one), 0);
}

TEST(ParquetWriterStatistics, Truncation) {
  ColumnStats s(SortOrder::kUnsignedBytes);
  s.UpdateBytes(std::string(10, 'a') + "zz", std::string(10, 'b') + "zz");
  auto b = s.Encode(Type::kByteArray, true, 10);
  EXPECT_EQ(b.min, std::string(10, 'a'));
  EXPECT_FALSE(b.min_exact);
  EXPECT_EQ(b.max, std::string(9, 'b') + "c");
  EXPECT_FALSE(b.max_exact);
  // Short values stay exact.
  auto c = s.Encode(Type::kByteArray, true, 64);
  EXPECT_TRUE(c.min_exact);
  EXPECT_TRUE(c.max_exact);
  // A string cut never splits a UTF-8 character; bytes 0xFF cannot be incremented.
  ColumnStats u(SortOrder::kUnsignedBytes);
  u.UpdateBytes("a\xC3\xA9\xC3\xA9", "\xFF\xFF\xFF\xFF");
  auto d = u.Encode(Type::kByteArray, true, 2);
  EXPECT_EQ(d.min, "a");
  EXPECT_EQ(d.max, "\xFF\xFF\xFF\xFF");
  EXPECT_TRUE(d.max_exact);
}

}  // namespace
}  // namespace floe::parquet
