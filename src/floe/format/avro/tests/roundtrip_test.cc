// Every type, nested and logical ones included, through write -> read with every codec;
// header metadata and the schema JSON kept byte for byte.

#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/format/avro/tests/avro_testing.h"
#include "floe/testing/matchers.h"

namespace floe::avro {
namespace {

// Appends a deterministic value for row `r` (NULL when nullable and r % 3 == 2).
Status Fill(ArrayBuilder* b, const DataType& t, bool nullable, int r) {
  if (nullable && r % 3 == 2) return b->AppendNull();
  switch (t.id()) {
    case TypeId::kBoolean: return static_cast<BooleanBuilder*>(b)->Append(r % 2 == 0);
    case TypeId::kInt32:
    case TypeId::kDate: return static_cast<Int32Builder*>(b)->Append(-1000 + 7 * r);
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampTzNs:
      return static_cast<Int64Builder*>(b)->Append(int64_t{1} << 40 | r);
    case TypeId::kFloat32: return static_cast<Float32Builder*>(b)->Append(1.5f * r);
    case TypeId::kFloat64: return static_cast<Float64Builder*>(b)->Append(-0.25 * r);
    case TypeId::kDecimal:
      return static_cast<DecimalBuilder*>(b)->Append(r % 2 ? -12345 * r : 999999999);
    case TypeId::kString:
    case TypeId::kBinary:
      return static_cast<BinaryBuilder*>(b)->Append(std::string(static_cast<size_t>(r), 'a' + r));
    case TypeId::kUuid:
    case TypeId::kFixed:
      return static_cast<FixedSizeBinaryBuilder*>(b)->Append(
          std::string(static_cast<size_t>(t.byte_width()), static_cast<char>('0' + r)));
    case TypeId::kStruct: {
      auto* sb = static_cast<StructBuilder*>(b);
      FLOE_RETURN_NOT_OK(sb->Append());
      for (int i = 0; i < t.num_fields(); ++i) {
        FLOE_RETURN_NOT_OK(Fill(sb->field_builder(i), *t.field(i).type(), t.field(i).nullable(),
                                r + i));
      }
      return Status::OK();
    }
    case TypeId::kList: {
      auto* lb = static_cast<ListBuilder*>(b);
      FLOE_RETURN_NOT_OK(lb->Append());
      for (int i = 0; i < r; ++i) {
        FLOE_RETURN_NOT_OK(Fill(lb->value_builder(), *t.field(0).type(), t.field(0).nullable(),
                                i));
      }
      return Status::OK();
    }
    case TypeId::kMap: {
      auto* mb = static_cast<MapBuilder*>(b);
      FLOE_RETURN_NOT_OK(mb->Append());
      for (int i = 0; i < r; ++i) {
        FLOE_RETURN_NOT_OK(Fill(mb->key_builder(), *t.field(0).type(), false, i + 1));
        FLOE_RETURN_NOT_OK(Fill(mb->item_builder(), *t.field(1).type(), t.field(1).nullable(), i));
      }
      return Status::OK();
    }
    default: return Status::NotSupported("no test values for {}", t.ToString());
  }
}

Result<RecordBatchPtr> MakeBatch(SchemaPtr schema, int rows) {
  std::vector<ArrayPtr> columns;
  for (const Field& f : schema->fields()) {
    auto b = MakeBuilder(f.type());
    for (int r = 0; r < rows; ++r) FLOE_RETURN_NOT_OK(Fill(b.get(), *f.type(), f.nullable(), r));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, b->Finish());
    columns.push_back(std::move(a));
  }
  return RecordBatch::Make(schema, rows, std::move(columns));
}

SchemaPtr EveryType() {
  return std::make_shared<Schema>(std::vector<Field>{
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
      Field("st",
            Struct({Field("x", Int32(), false, 102), Field("y", String(), true, 103),
                    Field("z", Struct({Field("q", Decimal(38, 10), true, 107)}), true, 108)}),
            true, 16),
      Field("li", List(Field("element", Int64(), true, 104)), true, 17),
      Field("ms", Map(Field("key", String(), false, 105), Field("value", Int32(), true, 106)),
            true, 18),
      Field("mi",
            Map(Field("key", Int32(), false, 117),
                Field("value", List(Field("element", String(), true, 120)), true, 118)),
            false, 19),
      Field("ll", List(Field("element", List(Float64(), true), true, 121)), true, 22),
  });
}

class AvroRoundTripTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AvroRoundTripTest, EveryTypeSurvivesWriteAndRead) {
  SchemaPtr schema = EveryType();
  ASSERT_OK_AND_ASSIGN(std::string json, ToAvroSchemaJson(*schema, "table"));
  ASSERT_OK_AND_ASSIGN(auto b1, MakeBatch(schema, 7));
  ASSERT_OK_AND_ASSIGN(auto b2, MakeBatch(schema, 5));
  AvroWriteOptions options;
  options.codec = GetParam();
  options.block_size_bytes = 300;  // several blocks
  KeyValueMetadata meta = {{"schema", "{\"x\": 1}"}, {"partition-spec-id", "0"},
                           {"format-version", "2"}, {"content", "data"},
                           {"bin\x01", std::string("\x00\xff", 2)}};
  ASSERT_OK_AND_ASSIGN(std::string bytes, testing::WriteBytes(json, {b1, b2}, options, meta));
  ASSERT_OK_AND_ASSIGN(auto reader, testing::OpenBytes(bytes));
  EXPECT_EQ(reader->schema_json(), json);
  std::string codec = GetParam() == "zstd" ? "zstandard" : GetParam();
  EXPECT_EQ(reader->codec(), codec);
  KeyValueMetadata want = {{"avro.schema", json}, {"avro.codec", codec}};
  want.insert(want.end(), meta.begin(), meta.end());
  EXPECT_EQ(reader->metadata(), want);
  ASSERT_OK_AND_ASSIGN(Schema file_schema, reader->FileSchema());
  EXPECT_TRUE(file_schema.Equals(*schema)) << file_schema.ToString();

  for (int64_t batch_size : {1, 4, 8192}) {
    ASSERT_OK_AND_ASSIGN(auto got, testing::ReadOne(*reader, schema, batch_size));
    ASSERT_EQ(got->num_rows(), 12);
    EXPECT_TRUE(got->Slice(0, 7)->Equals(*b1));
    EXPECT_TRUE(got->Slice(7, 5)->Equals(*b2));
    for (const auto& c : got->columns()) ASSERT_OK(c->ValidateFull());
  }
  ASSERT_OK_AND_ASSIGN(auto got, testing::ReadOne(*reader, schema));
  // Exact values of a few cells.
  EXPECT_EQ(got->column(5)->DecimalValue(1), -12345);
  EXPECT_EQ(got->column(5)->DecimalValue(0), 999999999);
  EXPECT_TRUE(got->column(5)->IsNull(2));
  EXPECT_EQ(got->column(11)->BytesValue(3), "ddd");
  EXPECT_EQ(got->column(2)->Value<int64_t>(4), (int64_t{1} << 40) | 4);
  const Array& mi = *got->column(18);
  EXPECT_EQ(mi.ListEnd(3) - mi.ListBegin(3), 3);
}

INSTANTIATE_TEST_SUITE_P(Codecs, AvroRoundTripTest,
                         ::testing::Values("null", "deflate", "snappy", "zstd"));

TEST(AvroWriterTest, SchemaJsonIsStoredByteForByte) {
  // Whitespace, attribute order, doc and unknown attributes survive untouched.
  const std::string json =
      "{ \"type\" : \"record\", \"name\" : \"manifest_file\",\n  \"doc\": \"d\", \"x-extra\": [1,2],"
      "\"fields\" : [ {\"name\":\"a\", \"field-id\": 500, \"doc\": \"Location\", \"type\": "
      "{\"type\":\"long\", \"logicalType\": \"timestamp-micros\", \"adjust-to-utc\": false, "
      "\"custom\": {\"k\": \"v\"}}},\n {\"name\":\"b\",\"type\":{\"type\":\"array\",\"items\":"
      "\"int\",\"element-id\":7},\"field-id\":6} ] }";
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      Field("a", Timestamp(), false, 500), Field("b", List(Field("element", Int32(), false, 7)),
                                                  false, 6)});
  ASSERT_OK_AND_ASSIGN(auto batch, MakeBatch(schema, 3));
  ASSERT_OK_AND_ASSIGN(std::string bytes, testing::WriteBytes(json, {batch}));
  EXPECT_NE(bytes.find(json), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto reader, testing::OpenBytes(bytes));
  EXPECT_EQ(reader->schema_json(), json);
  ASSERT_OK_AND_ASSIGN(auto got, testing::ReadOne(*reader, schema));
  EXPECT_TRUE(got->Equals(*batch));
}

TEST(AvroWriterTest, ColumnsMatchByFieldIdThenPosition) {
  const std::string json = R"({"type":"record","name":"r","fields":[
    {"name":"a","type":"long","field-id":1},{"name":"b","type":"string","field-id":2}]})";
  // The batch has b before a; ids decide.
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{Field("bb", String(), false, 2), Field("aa", Int64(), false, 1)});
  ASSERT_OK_AND_ASSIGN(auto batch, MakeBatch(schema, 3));
  ASSERT_OK_AND_ASSIGN(std::string bytes, testing::WriteBytes(json, {batch}));
  auto target = std::make_shared<Schema>(
      std::vector<Field>{Field("a", Int64(), false, 1), Field("b", String(), false, 2)});
  ASSERT_OK_AND_ASSIGN(auto got, testing::ReadBytes(bytes, target));
  EXPECT_EQ(got->column(0)->Value<int64_t>(2), (int64_t{1} << 40) | 2);
  EXPECT_EQ(got->column(1)->BytesValue(2), "cc");
}

TEST(AvroWriterTest, RejectsNullsInRequiredFieldsAndReservedKeys) {
  const std::string json = R"({"type":"record","name":"r","fields":[{"name":"a","type":"long"}]})";
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("a", Int64(), true)});
  ASSERT_OK_AND_ASSIGN(auto batch, MakeBatch(schema, 3));
  EXPECT_THAT(testing::WriteBytes(json, {batch}),
              floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "NULL in non-nullable"));
  EXPECT_THAT(testing::WriteBytes(json, {}, {}, {{"avro.codec", "x"}}),
              floe::testing::IsError(StatusCode::kInvalidArgument));
  AvroWriteOptions bad;
  bad.codec = "lzma";
  EXPECT_THAT(testing::WriteBytes(json, {}, bad), floe::testing::IsError(StatusCode::kNotSupported));
}

TEST(AvroWriterTest, AFailedBatchLeavesNothingBehind) {
  const std::string json = R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"}]})";
  auto nullable = std::make_shared<Schema>(std::vector<Field>{Field("a", Int32(), true)});
  ASSERT_OK_AND_ASSIGN(auto with_null, MakeBatch(nullable, 4));  // row 2 is NULL
  ASSERT_OK_AND_ASSIGN(auto good, MakeBatch(nullable, 2));
  auto stream = std::make_unique<io::BufferOutputStream>();
  auto* raw = stream.get();
  AvroWriteOptions options;
  options.block_size_bytes = 1;  // a block per row
  ASSERT_OK_AND_ASSIGN(auto writer, AvroFileWriter::Open(std::move(stream), json, {}, options));
  ASSERT_OK(writer->Write(*good));
  EXPECT_THAT(writer->Write(*with_null),
              floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "row 2: "));
  ASSERT_OK(writer->Write(*good));
  ASSERT_OK(writer->Close());
  EXPECT_EQ(writer->rows_written(), 4);
  auto target = std::make_shared<Schema>(std::vector<Field>{Field("a", Int32(), false)});
  ASSERT_OK_AND_ASSIGN(auto got, testing::ReadBytes(raw->bytes(), target));
  ASSERT_EQ(got->num_rows(), 4);
  EXPECT_EQ(got->column(0)->Value<int32_t>(0), -1000);
  EXPECT_EQ(got->column(0)->Value<int32_t>(1), -993);
  EXPECT_EQ(got->column(0)->Value<int32_t>(2), -1000);
}

}  // namespace
}  // namespace floe::avro
