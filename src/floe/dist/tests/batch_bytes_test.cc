// Record batches as bytes (exec/spill.h): every engine type round-trips exactly, with
// NULLs, sliced arrays, empty and zero-column batches; damaged bytes are kCorrupt naming
// where and the byte offset, never a crash or a huge allocation.

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/exec/spill.h"
#include "floe/testing/batch_rows.h"
#include "floe/testing/matchers.h"

namespace floe::exec {
namespace {

using floe::testing::IsError;
using floe::testing::IsErrorWith;
using floe::testing::IsOk;

void Check(const Status& st) { FLOE_CHECK(st.ok(), st.ToString()); }

// Five values of `type`, value 1 and 3 NULL (nested values have NULLs inside too).
ArrayPtr FiveValues(const TypePtr& type);

void AppendValue(ArrayBuilder* b, const TypePtr& type, int i) {
  switch (type->id()) {
    case TypeId::kBoolean:
      Check(static_cast<BooleanBuilder*>(b)->Append(i % 2 == 0));
      break;
    case TypeId::kInt8:
      Check(static_cast<Int8Builder*>(b)->Append(static_cast<int8_t>(-100 + i)));
      break;
    case TypeId::kInt16:
      Check(static_cast<Int16Builder*>(b)->Append(static_cast<int16_t>(-30000 + i)));
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
      Check(static_cast<Int32Builder*>(b)->Append(-2000000000 + i));
      break;
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      Check(static_cast<Int64Builder*>(b)->Append(INT64_MIN + 7 * i));
      break;
    case TypeId::kFloat32:
      Check(static_cast<Float32Builder*>(b)->Append(1.5f * static_cast<float>(i) - 0.25f));
      break;
    case TypeId::kFloat64:
      Check(static_cast<Float64Builder*>(b)->Append(-1e300 * i + 0.125));
      break;
    case TypeId::kDecimal:
      Check(static_cast<DecimalBuilder*>(b)->Append(
          (static_cast<Int128>(-123456789012345678) * 1000000000000 - i)));
      break;
    case TypeId::kString:
      Check(static_cast<BinaryBuilder*>(b)->Append(std::string(static_cast<size_t>(i), 'x') + "é" +
                                                   std::to_string(i)));
      break;
    case TypeId::kBinary:
      Check(static_cast<BinaryBuilder*>(b)->Append(std::string("\0\xff", 2) +
                                                   std::string(static_cast<size_t>(i), 'b')));
      break;
    case TypeId::kFixed:
    case TypeId::kUuid: {
      std::string v(static_cast<size_t>(type->byte_width()), static_cast<char>('a' + i));
      v[0] = '\0';
      Check(static_cast<FixedSizeBinaryBuilder*>(b)->Append(v));
      break;
    }
    case TypeId::kStruct: {
      auto* sb = static_cast<StructBuilder*>(b);
      Check(sb->Append());
      for (int f = 0; f < sb->num_fields(); ++f) {
        if ((i + f) % 3 == 0) {
          Check(sb->field_builder(f)->AppendNull());
        } else {
          AppendValue(sb->field_builder(f), type->field(f).type(), i + f);
        }
      }
      break;
    }
    case TypeId::kList: {
      auto* lb = static_cast<ListBuilder*>(b);
      Check(lb->Append());
      for (int k = 0; k < i % 4; ++k) {
        if (k == 1) {
          Check(lb->value_builder()->AppendNull());
        } else {
          AppendValue(lb->value_builder(), type->field(0).type(), i + k);
        }
      }
      break;
    }
    case TypeId::kMap: {
      auto* mb = static_cast<MapBuilder*>(b);
      Check(mb->Append());
      for (int k = 0; k < i % 3; ++k) {
        AppendValue(mb->key_builder(), type->field(0).type(), i * 10 + k);
        if (k == 1) {
          Check(mb->item_builder()->AppendNull());
        } else {
          AppendValue(mb->item_builder(), type->field(1).type(), i + k);
        }
      }
      break;
    }
  }
}

ArrayPtr FiveValues(const TypePtr& type) {
  auto b = MakeBuilder(type);
  for (int i = 0; i < 5; ++i) {
    if (i == 1 || i == 3) {
      Check(b->AppendNull());
    } else {
      AppendValue(b.get(), type, i);
    }
  }
  return b->Finish().ValueOrDie();
}

std::vector<TypePtr> EveryType() {
  return {Boolean(),
          Int8(),
          Int16(),
          Int32(),
          Int64(),
          Float32(),
          Float64(),
          Decimal(38, 4),
          Decimal(9, 2),
          Date(),
          Time(),
          Timestamp(),
          TimestampTz(),
          TimestampNs(),
          TimestampTzNs(),
          String(),
          Binary(),
          Fixed(3),
          Uuid(),
          Struct({Field("a", Int64()), Field("b", String()), Field("c", List(Int32()))}),
          List(String()),
          List(List(Int64())),
          Map(String(), Float64()),
          Map(Int32(), Struct({Field("x", Boolean()), Field("y", Binary())})),
          Struct({})};
}

SchemaPtr SchemaFor(const std::vector<TypePtr>& types) {
  std::vector<Field> fields;
  for (size_t i = 0; i < types.size(); ++i) {
    fields.emplace_back("c" + std::to_string(i), types[i], true);
  }
  return std::make_shared<Schema>(std::move(fields));
}

RecordBatchPtr EveryTypeBatch() {
  auto types = EveryType();
  std::vector<ArrayPtr> columns;
  for (const auto& t : types) columns.push_back(FiveValues(t));
  return RecordBatch::Make(SchemaFor(types), 5, std::move(columns)).ValueOrDie();
}

std::vector<std::string> Rows(const RecordBatch& batch) {
  return ::floe::testing::BatchRows(batch);
}

std::string Encode(const RecordBatch& batch) {
  std::string out;
  Check(AppendEncodedBatch(batch, &out));
  // The size is known before encoding, and encoding into a buffer builder whose memory
  // holds old bytes writes the same bytes: padding and bitmap tails are written, not
  // left as the memory was.
  Result<int64_t> size = EncodedBatchSize(batch);
  Check(size.status());
  EXPECT_EQ(*size, static_cast<int64_t>(out.size()));
  BufferBuilder builder;
  const std::string old(out.size() + 64, '\xAB');
  Check(builder.Append(old.data(), static_cast<int64_t>(old.size())));
  builder.Reset();
  Check(AppendEncodedBatch(batch, &builder));
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(builder.data()),
                             static_cast<size_t>(builder.size())),
            out);
  return out;
}

// Asserts that `batch` survives encode -> decode with equal values and valid arrays.
void ExpectRoundTrip(const RecordBatchPtr& batch) {
  std::string bytes = Encode(*batch);
  EXPECT_EQ(bytes.size() % 8, 0u);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr back, DecodeBatch(bytes, batch->schema(), "test bytes"));
  ASSERT_EQ(back->num_rows(), batch->num_rows());
  ASSERT_EQ(back->num_columns(), batch->num_columns());
  EXPECT_TRUE(back->schema()->Equals(*batch->schema()));
  for (int c = 0; c < batch->num_columns(); ++c) {
    EXPECT_TRUE(back->column(c)->Equals(*batch->column(c)))
        << "column " << c << " " << batch->column(c)->type()->ToString();
    EXPECT_OK(back->column(c)->ValidateFull());
    EXPECT_EQ(back->column(c)->offset(), 0);
    EXPECT_EQ(back->column(c)->null_count(), batch->column(c)->null_count());
  }
  EXPECT_EQ(Rows(*back), Rows(*batch));
  // Re-encoding the decoded batch gives the same bytes.
  EXPECT_EQ(Encode(*back), bytes);
}

TEST(BatchBytes, EveryTypeRoundTripsWithNulls) {
  RecordBatchPtr batch = EveryTypeBatch();
  ExpectRoundTrip(batch);
  // The values themselves, for a few columns, so that a codec dropping data cannot pass
  // by comparing two equally wrong renderings.
  std::string bytes = Encode(*batch);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr back, DecodeBatch(bytes, batch->schema(), "test bytes"));
  EXPECT_EQ(back->column(4)->Value<int64_t>(0), INT64_MIN);
  EXPECT_EQ(back->column(4)->Value<int64_t>(4), INT64_MIN + 28);
  EXPECT_TRUE(back->column(4)->IsNull(1));
  EXPECT_EQ(back->column(7)->DecimalValue(2),
            static_cast<Int128>(-123456789012345678) * 1000000000000 - 2);
  EXPECT_EQ(back->column(15)->BytesValue(2), "xxé2");
  EXPECT_EQ(back->column(16)->BytesValue(0), std::string("\0\xff", 2));
  EXPECT_EQ(FormatValue(*back->column(20), 4), FormatValue(*batch->column(20), 4));
  EXPECT_EQ(back->column(0)->null_count(), 2);
}

TEST(BatchBytes, SlicedArraysRoundTripOnlyTheirValues) {
  RecordBatchPtr batch = EveryTypeBatch();
  for (int64_t offset = 0; offset <= 5; ++offset) {
    for (int64_t length = 0; offset + length <= 5; ++length) {
      SCOPED_TRACE("slice " + std::to_string(offset) + "+" + std::to_string(length));
      RecordBatchPtr slice = batch->Slice(offset, length);
      ExpectRoundTrip(slice);
    }
  }
  // A slice is smaller than the whole.
  EXPECT_LT(Encode(*batch->Slice(4, 1)).size(), Encode(*batch).size());
}

TEST(BatchBytes, AllNullColumnsOfEveryType) {
  auto types = EveryType();
  std::vector<ArrayPtr> columns;
  for (const auto& t : types) columns.push_back(Array::MakeNull(t, 9).ValueOrDie());
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(SchemaFor(types), 9, std::move(columns)));
  ExpectRoundTrip(batch);
  ExpectRoundTrip(batch->Slice(3, 4));
  std::string bytes = Encode(*batch);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr back, DecodeBatch(bytes, batch->schema(), "test bytes"));
  for (int c = 0; c < back->num_columns(); ++c) EXPECT_EQ(back->column(c)->null_count(), 9);
}

TEST(BatchBytes, EmptyAndZeroColumnBatches) {
  RecordBatchPtr empty = EveryTypeBatch()->Slice(2, 0);
  ExpectRoundTrip(empty);
  auto no_columns = std::make_shared<Schema>();
  ASSERT_OK_AND_ASSIGN(auto counted, RecordBatch::Make(no_columns, 7, {}));
  std::string bytes = Encode(*counted);
  EXPECT_EQ(bytes.size(), 16u);  // length and row count
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr back, DecodeBatch(bytes, no_columns, "test bytes"));
  EXPECT_EQ(back->num_rows(), 7);
  EXPECT_EQ(back->num_columns(), 0);
  ASSERT_OK_AND_ASSIGN(auto none, RecordBatch::Make(no_columns, 0, {}));
  ASSERT_OK_AND_ASSIGN(back, DecodeBatch(Encode(*none), no_columns, "test bytes"));
  EXPECT_EQ(back->num_rows(), 0);
}

TEST(BatchBytes, ConsecutiveBatchesDecodeInOrder) {
  RecordBatchPtr batch = EveryTypeBatch();
  std::string bytes;
  ASSERT_OK(AppendEncodedBatch(*batch->Slice(0, 2), &bytes));
  ASSERT_OK(AppendEncodedBatch(*batch->Slice(2, 0), &bytes));
  ASSERT_OK(AppendEncodedBatch(*batch->Slice(2, 3), &bytes));
  ASSERT_OK_AND_ASSIGN(auto batches, DecodeBatches(bytes, batch->schema(), "test bytes"));
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0]->num_rows(), 2);
  EXPECT_EQ(batches[1]->num_rows(), 0);
  EXPECT_EQ(batches[2]->num_rows(), 3);
  EXPECT_EQ(Rows(*batches[0]), Rows(*batch->Slice(0, 2)));
  EXPECT_EQ(Rows(*batches[2]), Rows(*batch->Slice(2, 3)));
  // The zero-copy decoder gives the same batches.
  ASSERT_OK_AND_ASSIGN(BufferPtr buffer, Buffer::CopyOf(bytes));
  ASSERT_OK_AND_ASSIGN(auto shared, DecodeBatches(buffer, batch->schema(), "test bytes"));
  ASSERT_EQ(shared.size(), 3u);
  EXPECT_TRUE(shared[2]->Equals(*batches[2]));
  // So does an unaligned view of the same bytes (copied first).
  ASSERT_OK_AND_ASSIGN(BufferPtr padded, Buffer::CopyOf("x" + bytes));
  ASSERT_OK_AND_ASSIGN(auto unaligned, DecodeBatches(Buffer::Slice(padded, 1, padded->size() - 1),
                                                     batch->schema(), "test bytes"));
  ASSERT_EQ(unaligned.size(), 3u);
  EXPECT_TRUE(unaligned[0]->Equals(*batches[0]));
  // Nothing decodes to no batches; DecodeBatch wants exactly one.
  ASSERT_OK_AND_ASSIGN(auto zero, DecodeBatches(std::string_view(), batch->schema(), "test"));
  EXPECT_TRUE(zero.empty());
  EXPECT_THAT(DecodeBatch(bytes, batch->schema(), "three batches"),
              IsErrorWith(StatusCode::kCorrupt, "three batches: trailing bytes after the batch"));
  EXPECT_THAT(DecodeBatch("", batch->schema(), "nothing"),
              IsErrorWith(StatusCode::kCorrupt, "nothing: no batch at offset 0"));
}

TEST(BatchBytes, EveryTruncationIsCorrupt) {
  RecordBatchPtr batch = EveryTypeBatch();
  std::string bytes = Encode(*batch);
  for (size_t n = 1; n < bytes.size(); ++n) {
    auto decoded = DecodeBatches(std::string_view(bytes).substr(0, n), batch->schema(), "cut");
    ASSERT_THAT(decoded, IsError(StatusCode::kCorrupt)) << "prefix of " << n << " bytes";
    EXPECT_NE(decoded.status().message().find("cut: "), std::string::npos);
  }
}

TEST(BatchBytes, DamagedBytesNeverCrash) {
  RecordBatchPtr batch = EveryTypeBatch();
  const std::string bytes = Encode(*batch);
  int errors = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char x : {0x01, 0x80, 0xff}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ x);
      auto decoded = DecodeBatch(damaged, batch->schema(), "damaged");
      if (!decoded.ok()) {
        ++errors;
        EXPECT_EQ(decoded.status().code(), StatusCode::kCorrupt) << decoded.status().ToString();
      } else {
        for (const auto& c : decoded.value()->columns()) {
          // Values may differ (a flipped data byte), structure may not.
          EXPECT_EQ(c->length(), 5);
        }
      }
    }
  }
  EXPECT_GT(errors, 0);
}

void PutU64(std::string* bytes, size_t at, uint64_t v) { std::memcpy(bytes->data() + at, &v, 8); }

TEST(BatchBytes, LengthFieldsAreCheckedBeforeUse) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("f", Fixed(1 << 20))});
  FixedSizeBinaryBuilder b(Fixed(1 << 20));
  ASSERT_OK(b.Append(std::string(1 << 20, 'v')));
  ASSERT_OK_AND_ASSIGN(auto array, b.Finish());
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 1, {array}));
  std::string bytes = Encode(*batch);
  // Layout: [0] block length, [8] rows, [16] type id, [17] length, [25] nulls, [40] the
  // values' byte length.
  {
    std::string bad = bytes;
    PutU64(&bad, 8, uint64_t{1} << 62);
    EXPECT_THAT(DecodeBatch(bad, schema, "rows"),
                IsErrorWith(StatusCode::kCorrupt,
                            "rows: bad row count 4611686018427387904 at "
                            "offset 8"));
  }
  {
    // A length of 2^39 values of 2^20 bytes would overflow 64 bits when multiplied.
    std::string bad = bytes;
    PutU64(&bad, 8, uint64_t{1} << 39);
    PutU64(&bad, 17, uint64_t{1} << 39);
    EXPECT_THAT(DecodeBatch(bad, schema, "values"),
                IsErrorWith(StatusCode::kCorrupt, "past the end of the batch at offset 16"));
  }
  {
    std::string bad = bytes;
    PutU64(&bad, 40, uint64_t{1} << 60);
    EXPECT_THAT(DecodeBatch(bad, schema, "buffer"),
                IsErrorWith(StatusCode::kCorrupt,
                            "buffer: values buffer of 1152921504606846976 bytes where 1048576 "
                            "were expected at offset 40"));
  }
  {
    std::string bad = bytes;
    PutU64(&bad, 0, uint64_t{1} << 50);
    EXPECT_THAT(DecodeBatch(bad, schema, "block"),
                IsErrorWith(StatusCode::kCorrupt,
                            "block: batch of 1125899906842624 bytes at "
                            "offset 0 where 1048616 bytes remain"));
  }
  {
    std::string bad = bytes;
    PutU64(&bad, 25, 1);  // one null, but no bitmap follows
    EXPECT_THAT(DecodeBatch(bad, schema, "nulls"), IsError(StatusCode::kCorrupt));
  }
}

TEST(BatchBytes, SchemaMismatchNamesTheColumnType) {
  RecordBatchPtr batch = EveryTypeBatch();
  std::string bytes = Encode(*batch);
  auto other = std::make_shared<Schema>(std::vector<Field>{Field("x", Int64())});
  EXPECT_THAT(DecodeBatch(bytes, other, "stage 3 from rank 2"),
              IsErrorWith(StatusCode::kCorrupt,
                          "stage 3 from rank 2: column of type id 0 where int64 was expected at "
                          "offset 16"));
  // Fewer columns than written: trailing bytes.
  auto fewer = std::make_shared<Schema>(std::vector<Field>{batch->schema()->field(0)});
  EXPECT_THAT(DecodeBatch(bytes, fewer, "short schema"),
              IsErrorWith(StatusCode::kCorrupt, "short schema: trailing bytes in batch"));
}

TEST(BatchBytes, InconsistentNullCountIsCorrupt) {
  Int64Builder b(Int64());
  ASSERT_OK(b.Append(1));
  ASSERT_OK(b.AppendNull());
  ASSERT_OK_AND_ASSIGN(auto array, b.Finish());
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("i", Int64())});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 2, {array}));
  std::string bytes = Encode(*batch);
  PutU64(&bytes, 25, 2);  // says two nulls; the bitmap has one
  EXPECT_THAT(DecodeBatch(bytes, schema, "nulls"),
              IsErrorWith(StatusCode::kCorrupt,
                          "nulls: validity bitmap disagrees with the null count 2 at offset 40"));
}

}  // namespace
}  // namespace floe::exec
