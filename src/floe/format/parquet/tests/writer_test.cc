// The Parquet writer end to end: files written to memory, their footers and page indexes
// decoded with the metadata decoder, and their rows read back with floe's reader.

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <tuple>

#include <gtest/gtest.h>

// GCC 12 with -fsanitize=address reports std::variant (Scalar) temporaries in initializer
// lists as maybe-uninitialized; it is a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <fmt/format.h>
#include <zlib.h>

#include "floe/format/parquet/tests/writer_test_util.h"
#include "floe/format/parquet/writer_internal.h"

namespace floe::parquet {
namespace {

using floe::testing::IsError;
using floe::testing::IsErrorWith;
using testing::DecodeAt;
using testing::DecodeFileFooter;
using testing::FromScalars;
using testing::LE32;
using testing::LE64;
using testing::LED;
using testing::ReadBack;
using testing::WriteBatches;

Int128 Pow10(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// A deterministic value of `type` for row i (primitive types only).
Scalar ValueFor(const TypePtr& type, int64_t i) {
  auto i32 = static_cast<int32_t>(i);
  switch (type->id()) {
    case TypeId::kBoolean:
      return Scalar::Make(type, i % 3 == 0);
    case TypeId::kInt8:
      return Scalar::Make(type, int32_t{static_cast<int8_t>(i % 200 - 100)});
    case TypeId::kInt16:
      return Scalar::Make(type, int32_t{static_cast<int16_t>(i * 7 - 1000)});
    case TypeId::kInt32:
      return Scalar::Make(type, i32 * 1000 - 5);
    case TypeId::kInt64:
      return Scalar::Make(type, int64_t{i * 1000000000000LL - 7});
    case TypeId::kFloat32:
      return Scalar::Make(type, static_cast<float>(i) * 0.5f - 10.0f);
    case TypeId::kFloat64:
      return Scalar::Make(type, static_cast<double>(i) * 0.25 - 3.0);
    case TypeId::kDecimal: {
      Int128 v = static_cast<Int128>(i * 12345 - 100000);
      if (type->precision() > 18)
        v = v * Pow10(type->precision() - 8) + 17;
      else if (type->precision() > 9)
        v = v * 1000000 + 3;
      return Scalar::Make(type, v);
    }
    case TypeId::kDate:
      return Scalar::Make(type, i32 - 100);
    case TypeId::kTime:
      return Scalar::Make(type, int64_t{(i % 86400) * 1000000 + 123});
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return Scalar::Make(type, int64_t{1700000000000000LL + i * 3600000001LL});
    case TypeId::kString:
      return Scalar::Make(type, "s" + std::to_string(i % 50) + "\xC3\xA9");
    case TypeId::kBinary:
      return Scalar::Make(type, std::string("b\0", 2) + std::to_string(i));
    case TypeId::kFixed: {
      std::string s(static_cast<size_t>(type->byte_width()), '\0');
      for (size_t k = 0; k < s.size(); ++k) s[k] = static_cast<char>(i * 31 + k);
      return Scalar::Make(type, s);
    }
    case TypeId::kUuid: {
      std::string s(16, '\0');
      for (size_t k = 0; k < 16; ++k) s[k] = static_cast<char>((i % 13) * 17 + k);
      return Scalar::Make(type, s);
    }
    default:
      return Scalar::Null(type);
  }
}

bool IsNullRow(bool nullable, int64_t i) { return nullable && i % 7 == 3; }

Result<ArrayPtr> PrimitiveColumn(const TypePtr& type, bool nullable, int64_t n) {
  std::vector<Scalar> values;
  for (int64_t i = 0; i < n; ++i) {
    values.push_back(IsNullRow(nullable, i) ? Scalar::Null(type) : ValueFor(type, i));
  }
  return FromScalars(type, values);
}

// list<int32>: row i has i % 4 elements; element nulls and list nulls when nullable.
Result<ArrayPtr> ListColumn(const TypePtr& type, bool nullable, int64_t n) {
  ListBuilder b(type);
  auto* vb = static_cast<NumericBuilder<int32_t>*>(b.value_builder());
  for (int64_t i = 0; i < n; ++i) {
    if (IsNullRow(nullable, i)) {
      FLOE_RETURN_NOT_OK(b.AppendNull());
      continue;
    }
    FLOE_RETURN_NOT_OK(b.Append());
    for (int64_t k = 0; k < i % 4; ++k) {
      if (nullable && k == 2) {
        FLOE_RETURN_NOT_OK(vb->AppendNull());
      } else {
        FLOE_RETURN_NOT_OK(vb->Append(static_cast<int32_t>(i * 10 + k)));
      }
    }
  }
  return b.Finish();
}

// map<string, float64>: row i has i % 3 entries.
Result<ArrayPtr> MapColumn(const TypePtr& type, bool nullable, int64_t n) {
  MapBuilder b(type);
  auto* kb = static_cast<BinaryBuilder*>(b.key_builder());
  auto* vb = static_cast<NumericBuilder<double>*>(b.item_builder());
  for (int64_t i = 0; i < n; ++i) {
    if (IsNullRow(nullable, i)) {
      FLOE_RETURN_NOT_OK(b.AppendNull());
      continue;
    }
    FLOE_RETURN_NOT_OK(b.Append());
    for (int64_t k = 0; k < i % 3; ++k) {
      FLOE_RETURN_NOT_OK(kb->Append("k" + std::to_string(k)));
      if (nullable && k == 1) {
        FLOE_RETURN_NOT_OK(vb->AppendNull());
      } else {
        FLOE_RETURN_NOT_OK(vb->Append(static_cast<double>(i) + 0.5 * static_cast<double>(k)));
      }
    }
  }
  return b.Finish();
}

// struct<a: int64, b: list<string>>.
Result<ArrayPtr> StructColumn(const TypePtr& type, bool nullable, int64_t n) {
  StructBuilder b(type);
  auto* ab = static_cast<NumericBuilder<int64_t>*>(b.field_builder(0));
  auto* lb = static_cast<ListBuilder*>(b.field_builder(1));
  auto* sb = static_cast<BinaryBuilder*>(lb->value_builder());
  for (int64_t i = 0; i < n; ++i) {
    if (IsNullRow(nullable, i)) {
      FLOE_RETURN_NOT_OK(b.AppendNull());
      continue;
    }
    FLOE_RETURN_NOT_OK(b.Append());
    if (nullable && i % 5 == 1) {
      FLOE_RETURN_NOT_OK(ab->AppendNull());
    } else {
      FLOE_RETURN_NOT_OK(ab->Append(-i));
    }
    FLOE_RETURN_NOT_OK(lb->Append());
    for (int64_t k = 0; k < i % 3; ++k) FLOE_RETURN_NOT_OK(sb->Append(std::to_string(i + k)));
  }
  return b.Finish();
}

std::vector<TypePtr> PrimitiveTypes() {
  return {Boolean(), Int8(),        Int16(),        Int32(),         Int64(),         Float32(),
          Float64(), Decimal(9, 2), Decimal(18, 3), Decimal(38, 10), Decimal(20, 0),  Date(),
          Time(),    Timestamp(),   TimestampTz(),  TimestampNs(),   TimestampTzNs(), String(),
          Binary(),  Fixed(5),      Uuid()};
}

struct AllTypes {
  SchemaPtr schema;
  RecordBatchPtr batch;
};

Result<AllTypes> MakeAllTypes(bool nullable, int64_t n) {
  std::vector<Field> fields;
  std::vector<ArrayPtr> columns;
  int32_t id = 1;
  for (const TypePtr& t : PrimitiveTypes()) {
    fields.emplace_back("c" + std::to_string(id), t, nullable, id);
    FLOE_ASSIGN_OR_RAISE(auto a, PrimitiveColumn(t, nullable, n));
    columns.push_back(std::move(a));
    ++id;
  }
  TypePtr list = List(Field("element", Int32(), nullable, 100));
  TypePtr map = Map(Field("key", String(), false, 101), Field("value", Float64(), nullable, 102));
  TypePtr st = Struct({Field("a", Int64(), nullable, 103),
                       Field("b", List(Field("element", String(), false, 105)), false, 104)});
  fields.emplace_back("list", list, nullable, 200);
  fields.emplace_back("map", map, nullable, 201);
  fields.emplace_back("struct", st, nullable, 202);
  FLOE_ASSIGN_OR_RAISE(auto l, ListColumn(list, nullable, n));
  FLOE_ASSIGN_OR_RAISE(auto m, MapColumn(map, nullable, n));
  FLOE_ASSIGN_OR_RAISE(auto s, StructColumn(st, nullable, n));
  columns.push_back(l);
  columns.push_back(m);
  columns.push_back(s);
  AllTypes out;
  out.schema = std::make_shared<Schema>(std::move(fields));
  FLOE_ASSIGN_OR_RAISE(out.batch, RecordBatch::Make(out.schema, n, std::move(columns)));
  return out;
}

void ExpectRoundTrip(const std::string& bytes, const RecordBatch& expected) {
  // FLOE_PARQUET_WRITER_DUMP=<dir> keeps the files for checking with other readers.
  if (const char* dir = std::getenv("FLOE_PARQUET_WRITER_DUMP")) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(dir) + "/" + info->test_suite_name() + "." + info->name();
    std::replace(name.begin() + static_cast<std::ptrdiff_t>(std::strlen(dir)) + 1, name.end(), '/',
                 '_');
    auto out = io::CreateLocalFile(name + ".parquet");
    if (out.ok()) {
      (void)(*out)->Write(bytes);
      (void)(*out)->Close();
    }
  }
  SchemaPtr schema;
  ASSERT_OK_AND_ASSIGN(auto columns, ReadBack(bytes, &schema));
  ASSERT_EQ(columns.size(), static_cast<size_t>(expected.num_columns()));
  for (int c = 0; c < expected.num_columns(); ++c) {
    EXPECT_TRUE(columns[static_cast<size_t>(c)]->Equals(*expected.column(c)))
        << "column " << expected.schema()->field(c).ToString() << " read back as "
        << schema->field(c).ToString();
  }
}

CompressionCodec ParseCodecForTest(const std::string& name) {
  if (name == "zstd") return CompressionCodec::kZstd;
  if (name == "snappy") return CompressionCodec::kSnappy;
  if (name == "gzip") return CompressionCodec::kGzip;
  if (name == "lz4_raw") return CompressionCodec::kLz4Raw;
  return CompressionCodec::kUncompressed;
}

using Combination = std::tuple<std::string, bool, int>;  // codec, nullable, page version

class ParquetWriterAllTypes : public ::testing::TestWithParam<Combination> {};

TEST_P(ParquetWriterAllTypes, RoundTripsWithRowGroupsAndPages) {
  auto [codec, nullable, version] = GetParam();
  constexpr int64_t kRows = 300;
  ASSERT_OK_AND_ASSIGN(AllTypes data, MakeAllTypes(nullable, kRows));
  WriterOptions options;
  options.compression = codec;
  options.data_page_version = version;
  options.row_group_max_rows = 128;
  options.page_size_bytes = 256;
  ASSERT_OK_AND_ASSIGN(
      auto file,
      WriteBatches(data.schema, {data.batch->Slice(0, 100), data.batch->Slice(100, 200)}, options));
  ASSERT_OK_AND_ASSIGN(FileMetaData md, DecodeFileFooter(file.bytes));
  EXPECT_EQ(md, *file.metadata);
  EXPECT_EQ(md.num_rows, kRows);
  ASSERT_EQ(md.row_groups.size(), 3u);
  EXPECT_EQ(md.row_groups[0].num_rows, 128);
  EXPECT_EQ(md.row_groups[1].num_rows, 128);
  EXPECT_EQ(md.row_groups[2].num_rows, 44);
  for (const RowGroup& rg : md.row_groups) {
    for (const ColumnChunk& chunk : rg.columns) {
      ASSERT_TRUE(chunk.meta_data);
      EXPECT_EQ(chunk.meta_data->codec, ParseCodecForTest(codec));
      // Every chunk has an offset index whose pages tile the chunk's data pages.
      ASSERT_TRUE(chunk.offset_index_offset);
      ASSERT_OK_AND_ASSIGN(auto oi, DecodeAt<OffsetIndex>(file.bytes, *chunk.offset_index_offset,
                                                          *chunk.offset_index_length));
      ASSERT_FALSE(oi.page_locations.empty());
      EXPECT_EQ(oi.page_locations[0].offset, chunk.meta_data->data_page_offset);
      EXPECT_EQ(oi.page_locations[0].first_row_index, 0);
      int64_t end = chunk.meta_data->data_page_offset;
      for (const auto& loc : oi.page_locations) {
        EXPECT_EQ(loc.offset, end);
        end += loc.compressed_page_size;
      }
      int64_t start =
          chunk.meta_data->dictionary_page_offset.value_or(chunk.meta_data->data_page_offset);
      EXPECT_EQ(end - start, chunk.meta_data->total_compressed_size);
    }
  }
  ExpectRoundTrip(file.bytes, *data.batch);
}

INSTANTIATE_TEST_SUITE_P(Codecs, ParquetWriterAllTypes,
                         ::testing::Combine(::testing::Values("zstd", "snappy", "gzip", "lz4_raw",
                                                              "uncompressed"),
                                            ::testing::Bool(), ::testing::Values(1, 2)),
                         [](const ::testing::TestParamInfo<Combination>& info) {
                           return std::get<0>(info.param) +
                                  (std::get<1>(info.param) ? "_nullable" : "_required") + "_v" +
                                  std::to_string(std::get<2>(info.param));
                         });

TEST(ParquetWriter, StatisticsAndFooterFields) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      Field("i", Int64(), true, 1), Field("s", String(), true, 2), Field("d", Float64(), true, 3),
      Field("dec", Decimal(38, 2), true, 4), Field("dec9", Decimal(9, 0), false, 5),
      Field("b", Boolean(), false, 6), Field("bin", Binary(), false, 7)});
  ASSERT_OK_AND_ASSIGN(auto i, FromScalars(Int64(), {Scalar::I64(5), Scalar::I64(-3),
                                                     Scalar::Null(Int64()), Scalar::I64(10)}));
  ASSERT_OK_AND_ASSIGN(auto s, FromScalars(String(), {Scalar::Str("b"), Scalar::Str("\xC3\xA9"),
                                                      Scalar::Null(String()), Scalar::Str("a")}));
  double nan = std::numeric_limits<double>::quiet_NaN();
  ASSERT_OK_AND_ASSIGN(auto d, FromScalars(Float64(), {Scalar::F64(nan), Scalar::F64(-0.0),
                                                       Scalar::F64(2.5), Scalar::Null(Float64())}));
  TypePtr dec = Decimal(38, 2);
  ASSERT_OK_AND_ASSIGN(
      auto dc, FromScalars(dec, {Scalar::Make(dec, Int128{-1}), Scalar::Make(dec, Int128{1}),
                                 Scalar::Make(dec, Int128{-300}), Scalar::Null(dec)}));
  TypePtr dec9 = Decimal(9, 0);
  ASSERT_OK_AND_ASSIGN(
      auto d9,
      FromScalars(dec9, {Scalar::Make(dec9, Int128{-999999999}), Scalar::Make(dec9, Int128{7}),
                         Scalar::Make(dec9, Int128{0}), Scalar::Make(dec9, Int128{999999999})}));
  ASSERT_OK_AND_ASSIGN(auto b, FromScalars(Boolean(), {Scalar::Bool(true), Scalar::Bool(true),
                                                       Scalar::Bool(true), Scalar::Bool(true)}));
  ASSERT_OK_AND_ASSIGN(auto bin,
                       FromScalars(Binary(), {Scalar::Make(Binary(), std::string("\x80", 1)),
                                              Scalar::Make(Binary(), std::string("\x7F", 1)),
                                              Scalar::Make(Binary(), std::string()),
                                              Scalar::Make(Binary(), std::string("\xFF", 1))}));
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 4, {i, s, d, dc, d9, b, bin}));
  WriterOptions options;
  options.key_value_metadata = {{"iceberg.schema", "{}"}, {"k", ""}};
  ASSERT_OK_AND_ASSIGN(auto file, WriteBatches(schema, {batch}, options));
  ASSERT_OK_AND_ASSIGN(FileMetaData md, DecodeFileFooter(file.bytes));

  ASSERT_TRUE(md.created_by);
  EXPECT_EQ(*md.created_by, WriterCreatedBy());
  EXPECT_EQ(md.created_by->rfind("floe version 0.1.0 (build ", 0), 0u) << *md.created_by;
  EXPECT_EQ(file.metadata->key_value_metadata,
            (std::vector<KeyValue>{{"iceberg.schema", "{}"}, {"k", ""}}));
  EXPECT_EQ(md.key_value_metadata, (std::vector<KeyValue>{{"iceberg.schema", "{}"}, {"k", ""}}));
  ASSERT_TRUE(md.column_orders);
  EXPECT_EQ(md.column_orders->size(), 7u);
  for (const auto& o : *md.column_orders) {
    EXPECT_EQ(o.kind, ColumnOrder::Kind::kTypeDefinedOrder);
  }
  ASSERT_EQ(md.row_groups.size(), 1u);
  auto stats = [&](int c) {
    return *md.row_groups[0].columns[static_cast<size_t>(c)].meta_data->statistics;
  };

  Statistics si;
  si.null_count = 1;
  si.min = si.min_value = LE64(-3);
  si.max = si.max_value = LE64(10);
  si.is_min_value_exact = si.is_max_value_exact = true;
  EXPECT_EQ(stats(0), si);

  // Strings compare as unsigned bytes: "é" (0xC3 0xA9) sorts after "b".
  Statistics ss;
  ss.null_count = 1;
  ss.min_value = "a";
  ss.max_value = "\xC3\xA9";
  ss.is_min_value_exact = ss.is_max_value_exact = true;
  EXPECT_EQ(stats(1), ss);

  // NaN is left out; the zero min is written as -0.0.
  Statistics sd;
  sd.null_count = 1;
  sd.min = sd.min_value = LED(-0.0);
  sd.max = sd.max_value = LED(2.5);
  sd.is_min_value_exact = sd.is_max_value_exact = true;
  EXPECT_EQ(stats(2), sd);

  // decimal(38, 2) is FIXED_LEN_BYTE_ARRAY(16), compared as signed big-endian numbers.
  std::string minus300(16, '\xFF');
  minus300[14] = '\xFE';
  minus300[15] = '\xD4';
  std::string one(16, '\0');
  one[15] = '\1';
  Statistics sdec;
  sdec.null_count = 1;
  sdec.min_value = minus300;
  sdec.max_value = one;
  sdec.is_min_value_exact = sdec.is_max_value_exact = true;
  EXPECT_EQ(stats(3), sdec);

  EXPECT_EQ(stats(4).min_value, LE32(-999999999));
  EXPECT_EQ(stats(4).max_value, LE32(999999999));
  EXPECT_EQ(stats(4).null_count, 0);
  EXPECT_EQ(stats(5).min_value, std::string(1, '\1'));
  EXPECT_EQ(stats(5).min, std::nullopt);
  EXPECT_EQ(stats(6).min_value, "");
  EXPECT_EQ(stats(6).max_value, "\xFF");
  for (int c = 0; c < 7; ++c) EXPECT_EQ(stats(c).distinct_count, std::nullopt);

  // The page index of the single page repeats the bounds.
  const ColumnChunk& chunk = md.row_groups[0].columns[1];
  ASSERT_TRUE(chunk.column_index_offset);
  ASSERT_OK_AND_ASSIGN(auto ci, DecodeAt<ColumnIndex>(file.bytes, *chunk.column_index_offset,
                                                      *chunk.column_index_length));
  ColumnIndex expected;
  expected.null_pages = {false};
  expected.min_values = {"a"};
  expected.max_values = {"\xC3\xA9"};
  expected.boundary_order = BoundaryOrder::kAscending;
  expected.null_counts = std::vector<int64_t>{1};
  EXPECT_EQ(ci, expected);
  ExpectRoundTrip(file.bytes, *batch);
}

TEST(ParquetWriter, PageIndexOfManyPages) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("x", Int32(), false, 1)});
  std::vector<Scalar> values;
  for (int32_t v = 0; v < 1000; ++v) values.push_back(Scalar::I32(v));
  ASSERT_OK_AND_ASSIGN(auto x, FromScalars(Int32(), values));
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 1000, {x}));
  WriterOptions options;
  options.enable_dictionary = false;
  options.page_size_bytes = 400;  // 100 INT32 values
  ASSERT_OK_AND_ASSIGN(auto file, WriteBatches(schema, {batch}, options));
  ASSERT_OK_AND_ASSIGN(FileMetaData md, DecodeFileFooter(file.bytes));
  const ColumnChunk& chunk = md.row_groups[0].columns[0];
  EXPECT_EQ(chunk.meta_data->encodings, std::vector<Encoding>{Encoding::kPlain});
  EXPECT_EQ(chunk.meta_data->dictionary_page_offset, std::nullopt);
  ASSERT_OK_AND_ASSIGN(auto oi, DecodeAt<OffsetIndex>(file.bytes, *chunk.offset_index_offset,
                                                      *chunk.offset_index_length));
  ASSERT_OK_AND_ASSIGN(auto ci, DecodeAt<ColumnIndex>(file.bytes, *chunk.column_index_offset,
                                                      *chunk.column_index_length));
  ASSERT_EQ(oi.page_locations.size(), 10u);
  ASSERT_EQ(ci.min_values.size(), 10u);
  // Page headers are read back at the offset index's locations.
  for (int p = 0; p < 10; ++p) {
    const auto& loc = oi.page_locations[static_cast<size_t>(p)];
    EXPECT_EQ(loc.first_row_index, p * 100);
    EXPECT_EQ(ci.min_values[static_cast<size_t>(p)], LE32(p * 100));
    EXPECT_EQ(ci.max_values[static_cast<size_t>(p)], LE32(p * 100 + 99));
    PageHeader h;
    ASSERT_OK(DecodeThrift(testing::Span(file.bytes, static_cast<size_t>(loc.offset)), &h));
    EXPECT_EQ(h.type, PageType::kDataPage);
    ASSERT_TRUE(h.data_page_header);
    EXPECT_EQ(h.data_page_header->num_values, 100);
  }
  EXPECT_EQ(ci.null_pages, std::vector<bool>(10, false));
  EXPECT_EQ(ci.boundary_order, BoundaryOrder::kAscending);
  EXPECT_EQ(ci.null_counts, std::vector<int64_t>(10, 0));
  // Column indexes come before offset indexes, both after the row groups.
  EXPECT_LT(*chunk.column_index_offset, *chunk.offset_index_offset);
  EXPECT_GT(*chunk.column_index_offset,
            chunk.meta_data->data_page_offset + chunk.meta_data->total_compressed_size - 1);
  ExpectRoundTrip(file.bytes, *batch);
}

TEST(ParquetWriter, NestedPagesStartAtRecordBoundaries) {
  TypePtr type = List(Int64());
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("l", type, true, 1)});
  ListBuilder b(type);
  auto* vb = static_cast<NumericBuilder<int64_t>*>(b.value_builder());
  for (int64_t i = 0; i < 2000; ++i) {
    ASSERT_OK(b.Append());
    for (int64_t k = 0; k < i % 7; ++k) ASSERT_OK(vb->Append(i * 100 + k));
  }
  ASSERT_OK_AND_ASSIGN(auto l, b.Finish());
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 2000, {l}));
  WriterOptions options;
  options.enable_dictionary = false;
  options.page_size_bytes = 1000;
  options.compression = "uncompressed";
  ASSERT_OK_AND_ASSIGN(auto file, WriteBatches(schema, {batch}, options));
  ASSERT_OK_AND_ASSIGN(FileMetaData md, DecodeFileFooter(file.bytes));
  const ColumnChunk& chunk = md.row_groups[0].columns[0];
  ASSERT_OK_AND_ASSIGN(auto oi, DecodeAt<OffsetIndex>(file.bytes, *chunk.offset_index_offset,
                                                      *chunk.offset_index_length));
  ASSERT_GT(oi.page_locations.size(), 5u);
  // Each page starts with a new record: its first repetition level is 0. The v1 page body
  // begins with the 4-byte length of the repetition levels, then their RLE/bit-packed runs;
  // the first run's first value must be 0.
  int64_t total_values = 0;
  for (size_t p = 0; p < oi.page_locations.size(); ++p) {
    const auto& loc = oi.page_locations[p];
    PageHeader h;
    ASSERT_OK_AND_ASSIGN(
        size_t used, DecodeThrift(testing::Span(file.bytes, static_cast<size_t>(loc.offset)), &h));
    total_values += h.data_page_header->num_values;
    const auto* body = reinterpret_cast<const uint8_t*>(file.bytes.data()) + loc.offset + used;
    uint8_t run_header = body[4];
    if (run_header & 1) {
      EXPECT_EQ(body[5] & 1, 0) << "page " << p;  // bit-packed: first value's low bit
    } else {
      EXPECT_EQ(body[5], 0) << "page " << p;  // RLE run of the value 0
    }
    if (p > 0) {
      EXPECT_GT(loc.first_row_index, oi.page_locations[p - 1].first_row_index);
    }
  }
  EXPECT_EQ(total_values, chunk.meta_data->num_values);
  ExpectRoundTrip(file.bytes, *batch);
}

TEST(ParquetWriter, DictionaryFallsBackToPlain) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("s", String(), false, 1)});
  std::vector<Scalar> values;
  for (int i = 0; i < 2000; ++i) values.push_back(Scalar::Str(fmt::format("value-{:08d}", i)));
  ASSERT_OK_AND_ASSIGN(auto s, FromScalars(String(), values));
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 2000, {s}));
  WriterOptions options;
  options.dictionary_page_size_limit = 4000;
  options.page_size_bytes = 2000;
  ASSERT_OK_AND_ASSIGN(auto file, WriteBatches(schema, {batch}, options));
  ASSERT_OK_AND_ASSIGN(FileMetaData md, DecodeFileFooter(file.bytes));
  const ColumnMetaData& cm = *md.row_groups[0].columns[0].meta_data;
  ASSERT_TRUE(cm.dictionary_page_offset);
  EXPECT_EQ(*cm.dictionary_page_offset, 4);
  EXPECT_EQ(cm.encodings, (std::vector<Encoding>{Encoding::kPlain, Encoding::kRleDictionary}));
  ASSERT_TRUE(cm.encoding_stats);
  ASSERT_EQ(cm.encoding_stats->size(), 3u);
  EXPECT_EQ((*cm.encoding_stats)[0].page_type, PageType::kDictionaryPage);
  EXPECT_EQ((*cm.encoding_stats)[1].encoding, Encoding::kRleDictionary);
  EXPECT_EQ((*cm.encoding_stats)[2].encoding, Encoding::kPlain);
  EXPECT_GT((*cm.encoding_stats)[2].count, 1);
  // The dictionary page comes first and holds the values seen before the fallback.
  PageHeader h;
  ASSERT_OK(DecodeThrift(testing::Span(file.bytes, 4), &h));
  EXPECT_EQ(h.type, PageType::kDictionaryPage);
  EXPECT_GT(h.dictionary_page_header->num_values, 4000 / 18);
  EXPECT_LT(h.dictionary_page_header->num_values, 2000);
  ExpectRoundTrip(file.bytes, *batch);

  // Repeated values stay dictionary-encoded in one small dictionary. (This second file's
  // column writer starts with the buffers the first one grew and gave back to the
  // thread's cache: nothing of the first dictionary may show.)
  std::vector<Scalar> few;
  for (int i = 0; i < 2000; ++i) few.push_back(Scalar::Str(i % 3 == 0 ? "x" : "yy"));
  ASSERT_OK_AND_ASSIGN(auto f, FromScalars(String(), few));
  ASSERT_OK_AND_ASSIGN(auto batch2, RecordBatch::Make(schema, 2000, {f}));
  ASSERT_OK_AND_ASSIGN(auto file2, WriteBatches(schema, {batch2}));
  ASSERT_OK_AND_ASSIGN(FileMetaData md2, DecodeFileFooter(file2.bytes));
  ASSERT_OK(DecodeThrift(testing::Span(file2.bytes, 4), &h));
  EXPECT_EQ(h.dictionary_page_header->num_values, 2);
  EXPECT_EQ(md2.row_groups[0].columns[0].meta_data->encodings,
            (std::vector<Encoding>{Encoding::kPlain, Encoding::kRleDictionary}));
  ExpectRoundTrip(file2.bytes, *batch2);
}

TEST(ParquetWriter, EmptyFileHasSchemaOnly) {
  ASSERT_OK_AND_ASSIGN(AllTypes data, MakeAllTypes(true, 0));
  ASSERT_OK_AND_ASSIGN(auto file, WriteBatches(data.schema, {}));
  ASSERT_OK_AND_ASSIGN(FileMetaData md, DecodeFileFooter(file.bytes));
  EXPECT_EQ(md.num_rows, 0);
  EXPECT_TRUE(md.row_groups.empty());
  ASSERT_OK_AND_ASSIGN(auto ps, internal::ToParquetSchema(*data.schema));
  EXPECT_EQ(md.schema, ps.elements);
  EXPECT_EQ(file.bytes.substr(0, 4), "PAR1");
  // An empty batch writes nothing either.
  ASSERT_OK_AND_ASSIGN(auto file2, WriteBatches(data.schema, {data.batch}));
  EXPECT_EQ(file2.bytes, file.bytes);
  ExpectRoundTrip(file.bytes, *data.batch);
}

TEST(ParquetWriter, AllNullColumn) {
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{Field("x", Int64(), true, 1), Field("s", String(), true, 2)});
  ASSERT_OK_AND_ASSIGN(auto x, Array::MakeNull(Int64(), 100));
  ASSERT_OK_AND_ASSIGN(auto s, Array::MakeNull(String(), 100));
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 100, {x, s}));
  WriterOptions options;
  options.page_size_bytes = 8;  // several pages of levels
  ASSERT_OK_AND_ASSIGN(auto file, WriteBatches(schema, {batch}, options));
  ASSERT_OK_AND_ASSIGN(FileMetaData md, DecodeFileFooter(file.bytes));
  for (const ColumnChunk& chunk : md.row_groups[0].columns) {
    Statistics expected;
    expected.null_count = 100;
    EXPECT_EQ(chunk.meta_data->statistics, expected);
    EXPECT_EQ(chunk.meta_data->dictionary_page_offset, std::nullopt);
    ASSERT_OK_AND_ASSIGN(auto ci, DecodeAt<ColumnIndex>(file.bytes, *chunk.column_index_offset,
                                                        *chunk.column_index_length));
    EXPECT_EQ(ci.null_pages, std::vector<bool>(ci.null_pages.size(), true));
    EXPECT_EQ(ci.min_values, std::vector<std::string>(ci.null_pages.size()));
    int64_t nulls = 0;
    for (int64_t n : *ci.null_counts) nulls += n;
    EXPECT_EQ(nulls, 100);
  }
  ExpectRoundTrip(file.bytes, *batch);
}

TEST(ParquetWriter, NullInRequiredColumnIsRejectedAndNothingIsWritten) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      Field("a", Int32(), true, 1), Field("l", List(Field("element", Int32(), false)), true, 2)});
  ASSERT_OK_AND_ASSIGN(auto a, FromScalars(Int32(), {Scalar::I32(1), Scalar::I32(2)}));
  ListBuilder lb(schema->field(1).type());
  auto* vb = static_cast<NumericBuilder<int32_t>*>(lb.value_builder());
  ASSERT_OK(lb.Append());
  ASSERT_OK(vb->Append(1));
  ASSERT_OK(lb.Append());
  ASSERT_OK(vb->Append(2));
  ASSERT_OK(vb->AppendNull());
  ASSERT_OK_AND_ASSIGN(auto l, lb.Finish());
  ASSERT_OK_AND_ASSIGN(auto bad, RecordBatch::Make(schema, 2, {a, l}));

  auto stream = std::make_unique<io::BufferOutputStream>();
  io::BufferOutputStream* raw = stream.get();
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetFileWriter::Open(std::move(stream), schema));
  ASSERT_OK_AND_ASSIGN(auto good, RecordBatch::Make(schema, 1, {a->Slice(0, 1), l->Slice(0, 1)}));
  ASSERT_OK(writer->Write(*good));
  EXPECT_THAT(writer->Write(*bad), IsErrorWith(StatusCode::kConstraint, "l.list.element at row 2"));
  // The writer is still usable, and the file holds the good rows only.
  ASSERT_OK(writer->Write(*good));
  EXPECT_EQ(writer->num_rows(), 2);
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(auto columns, ReadBack(raw->bytes(), nullptr));
  EXPECT_EQ(columns[0]->length(), 2);
  EXPECT_EQ(columns[1]->length(), 2);

  // A null top-level value in a required column.
  auto req = std::make_shared<Schema>(std::vector<Field>{Field("r", String(), false, 1)});
  ASSERT_OK_AND_ASSIGN(auto r, FromScalars(String(), {Scalar::Str("x"), Scalar::Null(String())}));
  ASSERT_OK_AND_ASSIGN(auto rb, RecordBatch::Make(req, 2, {r}));
  EXPECT_THAT(WriteBatches(req, {rb}), IsErrorWith(StatusCode::kConstraint, "column r at row 1"));
}

TEST(ParquetWriter, DecimalOutsideItsPrecisionIsRejected) {
  for (int precision : {5, 15, 20}) {
    TypePtr t = Decimal(precision, 0);
    auto schema = std::make_shared<Schema>(std::vector<Field>{Field("d", t, true, 1)});
    Int128 too_big = 1;
    for (int i = 0; i < precision; ++i) too_big *= 10;
    ASSERT_OK_AND_ASSIGN(auto d, FromScalars(t, {Scalar::Make(t, too_big - 1), Scalar::Null(t),
                                                 Scalar::Make(t, -too_big)}));
    ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 3, {d}));
    EXPECT_THAT(WriteBatches(schema, {batch}),
                IsErrorWith(StatusCode::kInvalidArgument, "column d: decimal value at row 2"));
    ASSERT_OK_AND_ASSIGN(auto ok, WriteBatches(schema, {batch->Slice(0, 2)}));
    ExpectRoundTrip(ok.bytes, *batch->Slice(0, 2));
  }
}

TEST(ParquetWriter, VeryLongStrings) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("s", String(), true, 1)});
  std::string big_a(1 << 20, 'a'), big_c(1 << 20, 'c');
  big_a.back() = 'z';
  ASSERT_OK_AND_ASSIGN(
      auto s, FromScalars(String(), {Scalar::Str(big_c), Scalar::Str("b"), Scalar::Null(String()),
                                     Scalar::Str(big_a), Scalar::Str(big_c)}));
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 5, {s}));
  ASSERT_OK_AND_ASSIGN(auto file, WriteBatches(schema, {batch}));
  ASSERT_OK_AND_ASSIGN(FileMetaData md, DecodeFileFooter(file.bytes));
  const Statistics& st = *md.row_groups[0].columns[0].meta_data->statistics;
  EXPECT_EQ(st.min_value, std::string(64, 'a'));
  EXPECT_EQ(st.is_min_value_exact, false);
  EXPECT_EQ(st.max_value, std::string(63, 'c') + "d");
  EXPECT_EQ(st.is_max_value_exact, false);
  EXPECT_EQ(st.null_count, 1);
  // The 1 MiB page size puts each large value on its own page.
  const ColumnChunk& chunk = md.row_groups[0].columns[0];
  ASSERT_OK_AND_ASSIGN(auto oi, DecodeAt<OffsetIndex>(file.bytes, *chunk.offset_index_offset,
                                                      *chunk.offset_index_length));
  EXPECT_GE(oi.page_locations.size(), 2u);
  ExpectRoundTrip(file.bytes, *batch);
}

TEST(ParquetWriter, DeterministicOutputAndEstimates) {
  ASSERT_OK_AND_ASSIGN(AllTypes data, MakeAllTypes(true, 500));
  ASSERT_OK_AND_ASSIGN(auto f1, WriteBatches(data.schema, {data.batch}));
  ASSERT_OK_AND_ASSIGN(auto f2, WriteBatches(data.schema, {data.batch}));
  EXPECT_EQ(f1.bytes, f2.bytes);

  auto stream = std::make_unique<io::BufferOutputStream>();
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetFileWriter::Open(std::move(stream), data.schema));
  EXPECT_EQ(writer->EstimatedFileSize(), 4);
  ASSERT_OK(writer->Write(*data.batch));
  int64_t before = writer->EstimatedFileSize();
  EXPECT_GT(before, 1000);
  ASSERT_OK(writer->FlushRowGroup());
  EXPECT_GE(writer->EstimatedFileSize(), before / 2);
  ASSERT_OK(writer->Write(*data.batch));
  EXPECT_EQ(writer->num_rows(), 1000);
  ASSERT_OK_AND_ASSIGN(auto md, writer->Close());
  EXPECT_EQ(md->row_groups.size(), 2u);
  EXPECT_THAT(writer->Write(*data.batch), IsError(StatusCode::kInvalidArgument));
}

TEST(ParquetWriter, RowGroupSizeInBytes) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("x", Int64(), false, 1)});
  std::vector<Scalar> values;
  for (int64_t v = 0; v < 100000; ++v) values.push_back(Scalar::I64(v * 7919));
  ASSERT_OK_AND_ASSIGN(auto x, FromScalars(Int64(), values));
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 100000, {x}));
  WriterOptions options;
  options.enable_dictionary = false;
  options.compression = "uncompressed";
  options.row_group_size_bytes = 200000;  // 25000 INT64 values
  ASSERT_OK_AND_ASSIGN(auto file, WriteBatches(schema, {batch}, options));
  ASSERT_OK_AND_ASSIGN(FileMetaData md, DecodeFileFooter(file.bytes));
  ASSERT_EQ(md.row_groups.size(), 4u);
  for (const auto& rg : md.row_groups) EXPECT_EQ(rg.num_rows, 25000);
  ExpectRoundTrip(file.bytes, *batch);
}

TEST(ParquetWriter, RejectsBadOptionsAndSchemas) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("x", Int64())});
  WriterOptions options;
  options.compression = "lzo";
  EXPECT_THAT(ParquetFileWriter::Open(std::make_unique<io::BufferOutputStream>(), schema, options),
              IsErrorWith(StatusCode::kInvalidArgument, "lzo"));
  options = {};
  options.data_page_version = 3;
  EXPECT_THAT(ParquetFileWriter::Open(std::make_unique<io::BufferOutputStream>(), schema, options),
              IsError(StatusCode::kInvalidArgument));
  auto empty_struct = std::make_shared<Schema>(std::vector<Field>{Field("s", Struct({}))});
  EXPECT_THAT(ParquetFileWriter::Open(std::make_unique<io::BufferOutputStream>(), empty_struct),
              IsError(StatusCode::kNotSupported));
  auto other = std::make_shared<Schema>(std::vector<Field>{Field("y", Int64())});
  ASSERT_OK_AND_ASSIGN(auto writer,
                       ParquetFileWriter::Open(std::make_unique<io::BufferOutputStream>(), schema));
  ASSERT_OK_AND_ASSIGN(auto y, FromScalars(Int64(), {Scalar::I64(1)}));
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(other, 1, {y}));
  EXPECT_THAT(writer->Write(*batch), IsError(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace floe::parquet

namespace floe::parquet {
namespace {

// The reader rejects STRING values that are not UTF-8, whether they come from the
// dictionary or from PLAIN pages; the same bytes in a BINARY column read back as they are.
TEST(ReaderUtf8Test, StringColumnsMustHoldUtf8) {
  const std::vector<std::string> values = {"ok", "caf\xc3\xa9", "bad \xff\xfe", "\xed\xa0\x80"};
  for (bool dictionary : {true, false}) {
    for (const auto& type : {String(), Binary()}) {
      auto schema = std::make_shared<Schema>(std::vector<Field>{Field("s", type)});
      std::vector<Scalar> scalars;
      for (const auto& v : values) scalars.push_back(Scalar::Make(type, v));
      ASSERT_OK_AND_ASSIGN(auto array, testing::FromScalars(type, scalars));
      ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 4, {array}));
      WriterOptions options;
      options.enable_dictionary = dictionary;
      ASSERT_OK_AND_ASSIGN(auto file, testing::WriteBatches(schema, {batch}, options));
      SchemaPtr read_schema;
      auto read = testing::ReadBack(file.bytes, &read_schema);
      if (type->id() == TypeId::kString) {
        EXPECT_THAT(read, ::floe::testing::IsErrorWith(StatusCode::kCorrupt, "not valid UTF-8"))
            << (dictionary ? "dictionary" : "plain");
      } else {
        ASSERT_OK(read);
        EXPECT_EQ((*read)[0]->BytesValue(2), values[2]);
      }
    }
  }
}

}  // namespace
}  // namespace floe::parquet

namespace floe::parquet {
namespace {

// The page headers of column 0 of row group 0, with the offset and size of each page's body.
struct PageAt {
  PageHeader header;
  int64_t start = 0;  // of the header
  int64_t body = 0;
};

std::vector<PageAt> PagesOfFirstChunk(const std::string& bytes, const FileMetaData& md) {
  const ColumnMetaData& c = *md.row_groups[0].columns[0].meta_data;
  int64_t pos = c.dictionary_page_offset.value_or(c.data_page_offset);
  const int64_t end = pos + c.total_compressed_size;
  std::vector<PageAt> pages;
  while (pos < end) {
    PageAt p;
    p.start = pos;
    auto used = DecodeThrift(testing::Span(bytes, static_cast<size_t>(pos)), &p.header,
                             static_cast<uint64_t>(pos));
    EXPECT_TRUE(used.ok()) << used.status().ToString();
    if (!used.ok()) break;
    p.body = pos + static_cast<int64_t>(*used);
    pos = p.body + p.header.compressed_page_size;
    pages.push_back(p);
  }
  return pages;
}

// Every page carries the CRC-32 of its stored bytes (parquet.thrift PageHeader.crc); a page
// whose bytes were damaged is an error naming file, column, row group and page, unless
// verification is turned off.
TEST(ParquetWriterChecksums, EveryPageCarriesItsCrcAndDamageIsAnError) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("v", Int64(), true, 1)});
  std::vector<Scalar> values;
  for (int64_t i = 0; i < 20000; ++i) values.push_back(Scalar::I64(i * 7919 % 100003));
  ASSERT_OK_AND_ASSIGN(auto v, FromScalars(Int64(), values));
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 20000, {v}));
  for (int version : {1, 2}) {
    for (bool dictionary : {true, false}) {
      SCOPED_TRACE(fmt::format("data page v{}, dictionary {}", version, dictionary));
      WriterOptions options;
      options.page_size_bytes = 16 << 10;
      options.data_page_version = version;
      options.enable_dictionary = dictionary;
      ASSERT_OK_AND_ASSIGN(auto file, WriteBatches(schema, {batch}, options));
      std::vector<PageAt> pages = PagesOfFirstChunk(file.bytes, *file.metadata);
      ASSERT_GE(pages.size(), 3u);
      for (const PageAt& p : pages) {
        ASSERT_TRUE(p.header.crc.has_value());
        EXPECT_EQ(static_cast<uint32_t>(*p.header.crc),
                  crc32_z(0, reinterpret_cast<const uint8_t*>(file.bytes.data()) + p.body,
                          static_cast<size_t>(p.header.compressed_page_size)));
      }
      // 50 bytes flipped inside the second page's compressed body.
      const PageAt& victim = pages[1];
      ASSERT_GT(victim.header.compressed_page_size, 60);
      std::string damaged = file.bytes;
      for (int64_t i = 0; i < 50; ++i) damaged[static_cast<size_t>(victim.body + 5 + i)] ^= 0x5a;
      SchemaPtr read_schema;
      Result<std::vector<ArrayPtr>> read = ReadBack(damaged, &read_schema);
      EXPECT_THAT(read, IsErrorWith(StatusCode::kCorrupt,
                                    fmt::format("'mem.parquet', column 'v', row group 0, page 1 "
                                                "at byte offset {}: page checksum mismatch",
                                                victim.start)));
      // Turned off, the damage goes unnoticed by the checksum (the decoder may notice).
      ASSERT_OK_AND_ASSIGN(auto buffer, Buffer::CopyOf(std::string_view(damaged)));
      ReaderOptions off;
      off.verify_page_checksums = false;
      ASSERT_OK_AND_ASSIGN(auto reader,
                           ParquetFileReader::Open(io::MakeBufferFile(buffer, "mem.parquet"), off));
      ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ReadRequest{}));
      Status unverified = Status::OK();
      while (unverified.ok()) {
        Result<RecordBatchPtr> next = stream->Next();
        if (!next.ok()) {
          unverified = next.status();
        } else if (*next == nullptr) {
          break;
        }
      }
      EXPECT_EQ(unverified.message().find("checksum"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace floe::parquet
