// The decoder's fast paths for Iceberg's column-metric maps (an Avro array of
// {int key, long value} or {int key, bytes value} records read as map<int, long> and
// map<int, binary>): exact values, NULL and empty maps, maps longer than a decode
// chunk, values spread over many blocks and split at every batch boundary, and bad
// input inside the fast loops.

#include <gtest/gtest.h>

#include <string>

#include "floe/batch/builder.h"
#include "floe/format/avro/encoding_internal.h"
#include "floe/format/avro/tests/avro_testing.h"
#include "floe/testing/matchers.h"

namespace floe::avro {
namespace {

using floe::testing::IsErrorWith;

constexpr int kRows = 300;

SchemaPtr MetricsSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      Field("id", Int64(), false, 1),
      Field("counts", Map(Field("key", Int32(), false, 3), Field("value", Int64(), false, 4)), true,
            2),
      Field("bounds", Map(Field("key", Int32(), false, 6), Field("value", Binary(), false, 7)),
            true, 5),
      Field("path", String(), false, 8),
      Field("required_counts",
            Map(Field("key", Int32(), false, 10), Field("value", Int64(), false, 11)), false, 9),
  });
}

// Entries of row r: NULL for r % 7 == 3, empty for r % 5 == 0, and up to 150 entries
// (more than one decode chunk) otherwise.
bool IsNullMap(int r) { return r % 7 == 3; }
int MapSize(int r) { return r % 5 == 0 ? 0 : (r * 37) % 151; }
int32_t Key(int r, int k) { return k % 3 == 0 ? INT32_MIN + k : (k % 3 == 1 ? INT32_MAX - r : k); }
int64_t CountValue(int r, int k) {
  return k % 4 == 0 ? INT64_MIN + r : (k % 4 == 1 ? INT64_MAX - k : int64_t{r} * 1000 + k);
}
// Empty, short and longer values, and bytes that are not UTF-8.
std::string BoundValue(int r, int k) {
  std::string v(static_cast<size_t>((r + k) % 19), '\0');
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<char>(0xf0 + (r + k + i) % 16);
  return v;
}

RecordBatchPtr MetricsBatch() {
  SchemaPtr schema = MetricsSchema();
  Int64Builder id(Int64());
  MapBuilder counts(schema->field(1).type());
  MapBuilder bounds(schema->field(2).type());
  BinaryBuilder path(String());
  MapBuilder required(schema->field(4).type());
  for (int r = 0; r < kRows; ++r) {
    EXPECT_OK(id.Append(r));
    if (IsNullMap(r)) {
      EXPECT_OK(counts.AppendNull());
      EXPECT_OK(bounds.AppendNull());
    } else {
      EXPECT_OK(counts.Append());
      EXPECT_OK(bounds.Append());
      for (int k = 0; k < MapSize(r); ++k) {
        EXPECT_OK(static_cast<Int32Builder*>(counts.key_builder())->Append(Key(r, k)));
        EXPECT_OK(static_cast<Int64Builder*>(counts.item_builder())->Append(CountValue(r, k)));
        EXPECT_OK(static_cast<Int32Builder*>(bounds.key_builder())->Append(Key(r, k) ^ 1));
        EXPECT_OK(static_cast<BinaryBuilder*>(bounds.item_builder())->Append(BoundValue(r, k)));
      }
    }
    EXPECT_OK(path.Append(std::string(static_cast<size_t>(r % 50), 'p') + std::to_string(r)));
    EXPECT_OK(required.Append());
    for (int k = 0; k < r % 3; ++k) {
      EXPECT_OK(static_cast<Int32Builder*>(required.key_builder())->Append(k));
      EXPECT_OK(static_cast<Int64Builder*>(required.item_builder())->Append(-k));
    }
  }
  std::vector<ArrayPtr> cols;
  for (ArrayBuilder* b :
       std::initializer_list<ArrayBuilder*>{&id, &counts, &bounds, &path, &required}) {
    auto a = b->Finish();
    EXPECT_TRUE(a.has_value());
    cols.push_back(*a);
  }
  return RecordBatch::Make(schema, kRows, cols).value();
}

std::string WriteMetrics(const std::string& codec, int64_t block_size) {
  SchemaPtr schema = MetricsSchema();
  std::string json = ToAvroSchemaJson(*schema, "metrics").value();
  AvroWriteOptions options;
  options.codec = codec;
  options.block_size_bytes = block_size;
  return testing::WriteBytes(json, {MetricsBatch()}, options).value();
}

TEST(AvroMetricMapsTest, FileSchemaUsesArraysOfKeyValueRecords) {
  std::string bytes = WriteMetrics("null", 1 << 20);
  ASSERT_OK_AND_ASSIGN(auto reader, testing::OpenBytes(bytes));
  // Maps with int keys are Avro arrays of records (Iceberg spec, "Avro"), so the reads
  // below take the fast paths rather than the generic map op.
  const AvroNode& counts = *reader->schema()->fields[1].type;
  ASSERT_EQ(counts.type, AvroType::kUnion);
  EXPECT_EQ(counts.branches[1]->type, AvroType::kArray);
  EXPECT_EQ(counts.branches[1]->logical_type, "map");
  EXPECT_EQ(reader->schema()->fields[4].type->type, AvroType::kArray);
}

TEST(AvroMetricMapsTest, ExactValuesOverBlocksAndBatchBoundaries) {
  RecordBatchPtr expected = MetricsBatch();
  for (const std::string codec : {"null", "deflate"}) {
    // One block, and blocks of a few records each.
    for (int64_t block_size : {int64_t{1} << 20, int64_t{700}}) {
      std::string bytes = WriteMetrics(codec, block_size);
      ASSERT_OK_AND_ASSIGN(auto reader, testing::OpenBytes(bytes));
      for (int64_t batch_size : {1, 3, 64, 299, 8192}) {
        SCOPED_TRACE(codec + " block " + std::to_string(block_size) + " batch " +
                     std::to_string(batch_size));
        ASSERT_OK_AND_ASSIGN(auto batches, reader->ReadAll(MetricsSchema(), batch_size));
        ASSERT_EQ(static_cast<int64_t>(batches.size()), (kRows + batch_size - 1) / batch_size);
        ASSERT_OK_AND_ASSIGN(RecordBatchPtr all,
                             testing::ReadOne(*reader, MetricsSchema(), batch_size));
        ASSERT_TRUE(all->Equals(*expected));
        for (const auto& b : batches) ASSERT_OK(b->column(2)->ValidateFull());
      }
    }
  }
}

TEST(AvroMetricMapsTest, SpotValues) {
  std::string bytes = WriteMetrics("null", 700);
  ASSERT_OK_AND_ASSIGN(auto reader, testing::OpenBytes(bytes));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr all, testing::ReadOne(*reader, MetricsSchema(), 7));
  const Array& counts = *all->column(1);
  const Array& bounds = *all->column(2);
  // A map's child is its struct<key, value> of entries.
  const Array& counts_keys = *counts.child(0)->child(0);
  const Array& counts_values = *counts.child(0)->child(1);
  const Array& bounds_keys = *bounds.child(0)->child(0);
  const Array& bounds_values = *bounds.child(0)->child(1);
  EXPECT_TRUE(counts.IsNull(3));
  EXPECT_TRUE(bounds.IsNull(10));
  EXPECT_FALSE(counts.IsNull(5));
  EXPECT_EQ(counts.ListEnd(5) - counts.ListBegin(5), 0);
  EXPECT_EQ(bounds.ListEnd(5) - bounds.ListBegin(5), 0);
  // Row 4 has (4 * 37) % 151 = 148 entries.
  ASSERT_EQ(counts.ListEnd(4) - counts.ListBegin(4), 148);
  int64_t begin = counts.ListBegin(4);
  EXPECT_EQ(counts_keys.Value<int32_t>(begin + 0), INT32_MIN);
  EXPECT_EQ(counts_keys.Value<int32_t>(begin + 1), INT32_MAX - 4);
  EXPECT_EQ(counts_keys.Value<int32_t>(begin + 146), 146);
  EXPECT_EQ(counts_keys.Value<int32_t>(begin + 147), INT32_MIN + 147);
  EXPECT_EQ(counts_values.Value<int64_t>(begin + 0), INT64_MIN + 4);
  EXPECT_EQ(counts_values.Value<int64_t>(begin + 1), INT64_MAX - 1);
  EXPECT_EQ(counts_values.Value<int64_t>(begin + 146), 4146);
  ASSERT_EQ(bounds.ListEnd(4) - bounds.ListBegin(4), 148);
  begin = bounds.ListBegin(4);
  EXPECT_EQ(bounds_keys.Value<int32_t>(begin + 2), 3);
  EXPECT_EQ(bounds_values.BytesValue(begin + 15), "");  // (4 + 15) % 19 == 0
  EXPECT_EQ(bounds_values.BytesValue(begin + 1), "\xf5\xf6\xf7\xf8\xf9");
  EXPECT_EQ(all->column(3)->BytesValue(299), std::string(49, 'p') + "299");
}

// A file of one record {counts: [{key, value: 5}]} with a hand-encoded key, the value
// a long or bytes (then of length 5, past the block's end).
std::string OneEntryFile(int64_t key, bool truncate, const std::string& value_type = "long") {
  const std::string schema = R"({"type":"record","name":"r","fields":[
    {"name":"counts","field-id":2,"type":{"type":"array","logicalType":"map","items":
      {"type":"record","name":"kv","fields":[{"name":"key","type":"int","field-id":3},
                                              {"name":"value","type":")" +
                             value_type + R"(","field-id":4}]}}}]})";
  std::string record;
  internal::WriteVarLong(&record, 1);
  internal::WriteVarLong(&record, key);
  if (!truncate) {
    internal::WriteVarLong(&record, 5);
    internal::WriteVarLong(&record, 0);
  }
  std::string file("Obj\x01", 4);
  internal::WriteVarLong(&file, 1);
  internal::WriteBytes(&file, "avro.schema");
  internal::WriteBytes(&file, schema);
  internal::WriteVarLong(&file, 0);
  std::string sync(16, 'S');
  file += sync;
  internal::WriteVarLong(&file, 1);
  internal::WriteVarLong(&file, static_cast<int64_t>(record.size()));
  file += record;
  file += sync;
  return file;
}

TEST(AvroMetricMapsTest, BadInputInTheFastLoops) {
  auto target = std::make_shared<Schema>(std::vector<Field>{
      Field("counts", Map(Field("key", Int32(), false, 3), Field("value", Int64(), false, 4)),
            false, 2)});
  ASSERT_OK_AND_ASSIGN(auto ok, testing::ReadBytes(OneEntryFile(-7, false), target));
  EXPECT_EQ(ok->column(0)->child(0)->child(0)->Value<int32_t>(0), -7);
  EXPECT_EQ(ok->column(0)->child(0)->child(1)->Value<int64_t>(0), 5);
  EXPECT_THAT(testing::ReadBytes(OneEntryFile(int64_t{1} << 33, false), target),
              IsErrorWith(StatusCode::kCorrupt, "out of range"));
  EXPECT_THAT(testing::ReadBytes(OneEntryFile(1, true), target),
              IsErrorWith(StatusCode::kCorrupt, "past the end of the block"));
  auto binary_target = std::make_shared<Schema>(std::vector<Field>{
      Field("counts", Map(Field("key", Int32(), false, 3), Field("value", Binary(), false, 4)),
            false, 2)});
  EXPECT_THAT(testing::ReadBytes(OneEntryFile(1, false, "bytes"), binary_target),
              IsErrorWith(StatusCode::kCorrupt, "length 5 of 'counts.value' is out of range"));
  EXPECT_THAT(testing::ReadBytes(OneEntryFile(int64_t{-1} << 40, false, "bytes"), binary_target),
              IsErrorWith(StatusCode::kCorrupt, "out of range"));
}

}  // namespace
}  // namespace floe::avro

namespace floe::avro {
namespace {

// A metric map inside a nullable struct: a NULL struct appends an empty map to the map
// builder itself, so the decoder appends there (no sink) and the values keep their order.
TEST(AvroMetricMapsTest, MapsInsideANullableStruct) {
  auto map_type = Map(Field("key", Int32(), false, 3), Field("value", Int64(), false, 4));
  auto bounds_type = Map(Field("key", Int32(), false, 6), Field("value", String(), false, 7));
  auto struct_type =
      Struct({Field("counts", map_type, true, 2), Field("bounds", bounds_type, false, 5)});
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("s", struct_type, true, 1)});
  StructBuilder sb(struct_type);
  auto* counts = static_cast<MapBuilder*>(sb.field_builder(0));
  auto* bounds = static_cast<MapBuilder*>(sb.field_builder(1));
  for (int r = 0; r < 100; ++r) {
    if (r % 4 == 1) {
      ASSERT_OK(sb.AppendNull());
      continue;
    }
    ASSERT_OK(sb.Append());
    if (r % 4 == 2) {
      ASSERT_OK(counts->AppendNull());
    } else {
      ASSERT_OK(counts->Append());
      for (int k = 0; k < r % 70; ++k) {
        ASSERT_OK(static_cast<Int32Builder*>(counts->key_builder())->Append(k - r));
        ASSERT_OK(static_cast<Int64Builder*>(counts->item_builder())->Append(int64_t{r} << 40));
      }
    }
    ASSERT_OK(bounds->Append());
    for (int k = 0; k < r % 3; ++k) {
      ASSERT_OK(static_cast<Int32Builder*>(bounds->key_builder())->Append(k));
      ASSERT_OK(static_cast<BinaryBuilder*>(bounds->item_builder())->Append(std::to_string(r)));
    }
  }
  ASSERT_OK_AND_ASSIGN(ArrayPtr column, sb.Finish());
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 100, {column}));
  ASSERT_OK_AND_ASSIGN(std::string json, ToAvroSchemaJson(*schema, "r"));
  AvroWriteOptions options;
  options.block_size_bytes = 300;
  ASSERT_OK_AND_ASSIGN(std::string bytes, testing::WriteBytes(json, {batch}, options));
  ASSERT_OK_AND_ASSIGN(auto reader, testing::OpenBytes(bytes));
  for (int64_t batch_size : {1, 9, 100}) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr all, testing::ReadOne(*reader, schema, batch_size));
    EXPECT_TRUE(all->Equals(*batch)) << batch_size;
  }
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr all, testing::ReadOne(*reader, schema, 7));
  const Array& s = *all->column(0);
  EXPECT_TRUE(s.IsNull(5));
  ArrayPtr c = s.field(0);
  EXPECT_TRUE(c->IsNull(6));
  ASSERT_EQ(c->ListEnd(4) - c->ListBegin(4), 4);
  EXPECT_EQ(c->child(0)->child(0)->Value<int32_t>(c->ListBegin(4) + 3), -1);
  EXPECT_EQ(c->child(0)->child(1)->Value<int64_t>(c->ListBegin(4) + 3), int64_t{4} << 40);
  ArrayPtr b = s.field(1);
  ASSERT_EQ(b->ListEnd(98) - b->ListBegin(98), 2);
  EXPECT_EQ(b->child(0)->child(1)->BytesValue(b->ListBegin(98) + 1), "98");
}

}  // namespace
}  // namespace floe::avro

namespace floe::avro {
namespace {

// Deflate blocks that inflate to far more than the reader's first guess (4x the
// compressed size), growing its buffer, then smaller ones reusing it.
TEST(AvroInflateTest, BlocksOfGrowingAndShrinkingSize) {
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{Field("id", Int64(), false, 1), Field("text", String(), false, 2)});
  Int64Builder id(Int64());
  BinaryBuilder text(String());
  std::vector<int> sizes = {0, 10, 5000, 300000, 2000000, 70000, 1, 900000};
  for (size_t r = 0; r < sizes.size(); ++r) {
    ASSERT_OK(id.Append(static_cast<int64_t>(r)));
    std::string value(static_cast<size_t>(sizes[r]), static_cast<char>('a' + r));
    if (!value.empty()) value.back() = '!';
    ASSERT_OK(text.Append(value));
  }
  ASSERT_OK_AND_ASSIGN(ArrayPtr ids, id.Finish());
  ASSERT_OK_AND_ASSIGN(ArrayPtr texts, text.Finish());
  ASSERT_OK_AND_ASSIGN(auto batch,
                       RecordBatch::Make(schema, static_cast<int64_t>(sizes.size()), {ids, texts}));
  ASSERT_OK_AND_ASSIGN(std::string json, ToAvroSchemaJson(*schema, "r"));
  AvroWriteOptions options;
  options.codec = "deflate";
  options.block_size_bytes = 1;  // one record per block
  ASSERT_OK_AND_ASSIGN(std::string bytes, testing::WriteBytes(json, {batch}, options));
  // The whole file is a fraction of the largest value: it compresses over 100 times.
  EXPECT_LT(bytes.size(), size_t{100000});
  ASSERT_OK_AND_ASSIGN(auto reader, testing::OpenBytes(bytes));
  for (int64_t batch_size : {1, 3, 8}) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr all, testing::ReadOne(*reader, schema, batch_size));
    ASSERT_TRUE(all->Equals(*batch)) << batch_size;
    EXPECT_EQ(all->column(1)->BytesValue(4).size(), size_t{2000000});
    EXPECT_EQ(all->column(1)->BytesValue(4).back(), '!');
  }
}

}  // namespace
}  // namespace floe::avro

namespace floe::avro {
namespace {

// Planning reads project the metric maps away: they are skipped by loops of their own.
TEST(AvroMetricMapsTest, SkippedMapsLeaveTheOtherFieldsExact) {
  RecordBatchPtr full = MetricsBatch();
  auto target = std::make_shared<Schema>(
      std::vector<Field>{Field("path", String(), false, 8), Field("id", Int64(), false, 1)});
  ASSERT_OK_AND_ASSIGN(auto expected,
                       RecordBatch::Make(target, kRows, {full->column(3), full->column(0)}));
  for (const std::string codec : {"null", "deflate"}) {
    for (int64_t block_size : {int64_t{1} << 20, int64_t{700}}) {
      std::string bytes = WriteMetrics(codec, block_size);
      ASSERT_OK_AND_ASSIGN(auto reader, testing::OpenBytes(bytes));
      for (int64_t batch_size : {1, 64, 8192}) {
        ASSERT_OK_AND_ASSIGN(RecordBatchPtr all, testing::ReadOne(*reader, target, batch_size));
        EXPECT_TRUE(all->Equals(*expected)) << codec << " " << block_size << " " << batch_size;
      }
    }
  }
}

TEST(AvroMetricMapsTest, BadInputInTheSkipLoops) {
  // Only a field the files lack, so their one map is skipped.
  auto target = std::make_shared<Schema>(std::vector<Field>{Field("other", Int64(), true, 99)});
  ASSERT_OK_AND_ASSIGN(auto ok, testing::ReadBytes(OneEntryFile(-7, false), target));
  EXPECT_EQ(ok->num_rows(), 1);
  EXPECT_TRUE(ok->column(0)->IsNull(0));
  EXPECT_THAT(testing::ReadBytes(OneEntryFile(1, true), target),
              IsErrorWith(StatusCode::kCorrupt, "past the end of the block"));
  EXPECT_THAT(testing::ReadBytes(OneEntryFile(1, true, "bytes"), target),
              IsErrorWith(StatusCode::kCorrupt, "past the end of the block"));
  EXPECT_THAT(testing::ReadBytes(OneEntryFile(1, false, "bytes"), target),
              IsErrorWith(StatusCode::kCorrupt, "length 5 of"));
}

}  // namespace
}  // namespace floe::avro
