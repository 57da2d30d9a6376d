// Reads hand-built files: every physical type, the logical-type mapping, every encoding,
// data page v1 and v2, every codec, nested levels, projection and pruning.

#include <cstring>
#include <string>
#include <vector>

#include "floe/batch/value_format.h"
#include "floe/format/parquet/reader.h"
#include "floe/format/parquet/tests/reader_file_builder.h"
#include "floe/testing/matchers.h"

namespace floe::parquet {
namespace {

using namespace floe::parquet::testing;  // NOLINT(build/namespaces)
using FR = FieldRepetitionType;

// All values of column `col`, formatted, across batches of `batch_size` rows.
Result<std::vector<std::string>> ReadColumn(const std::string& bytes, int col = 0,
                                            int64_t batch_size = 8192) {
  ReaderOptions options;
  options.batch_size = batch_size;
  FLOE_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::Open(FileOf(bytes), options));
  ReadRequest request;
  request.columns = std::vector<int>{col};
  FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(request));
  std::vector<std::string> out;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (!batch) break;
    if (batch->num_rows() > batch_size) return Status::Internal("batch too large");
    FLOE_RETURN_NOT_OK(batch->column(0)->ValidateFull());
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      out.push_back(FormatValue(*batch->column(0), i));
    }
  }
  return out;
}

using Strings = std::vector<std::string>;

std::string Int96Of(int32_t julian_day, int64_t nanos) {
  std::string out(12, '\0');
  std::memcpy(out.data(), &nanos, 8);
  std::memcpy(out.data() + 8, &julian_day, 4);
  return out;
}

TEST(ReaderValues, EveryPhysicalTypeRequiredPlain) {
  SchemaElement flba = Leaf("flba", Type::kFixedLenByteArray, FR::kRequired);
  flba.type_length = 3;
  FileBuilder fb(
      {Root(8), Leaf("b", Type::kBoolean, FR::kRequired), Leaf("i32", Type::kInt32, FR::kRequired),
       Leaf("i64", Type::kInt64, FR::kRequired), Leaf("i96", Type::kInt96, FR::kRequired),
       Leaf("f", Type::kFloat, FR::kRequired), Leaf("d", Type::kDouble, FR::kRequired),
       Leaf("ba", Type::kByteArray, FR::kRequired), flba});
  std::vector<ChunkBuilder> chunks;
  chunks.push_back(
      ChunkBuilder(Type::kBoolean).DataV1(3, Encoding::kPlain, "", PlainBools({1, 0, 1})));
  chunks.push_back(
      ChunkBuilder(Type::kInt32).DataV1(3, Encoding::kPlain, "", Plain<int32_t>({1, -2, 3})));
  chunks.push_back(
      ChunkBuilder(Type::kInt64)
          .DataV1(3, Encoding::kPlain, "", Plain<int64_t>({10, -20, int64_t{1} << 40})));
  chunks.push_back(ChunkBuilder(Type::kInt96)
                       .DataV1(3, Encoding::kPlain, "",
                               Int96Of(2440588, 0) + Int96Of(2440589, 1000) + Int96Of(2440587, 1)));
  chunks.push_back(
      ChunkBuilder(Type::kFloat).DataV1(3, Encoding::kPlain, "", Plain<float>({1.5f, -2.25f, 0})));
  chunks.push_back(
      ChunkBuilder(Type::kDouble).DataV1(3, Encoding::kPlain, "", Plain<double>({0.5, -1e10, 3})));
  chunks.push_back(ChunkBuilder(Type::kByteArray)
                       .DataV1(3, Encoding::kPlain, "", PlainStrings({"a", "", "xyz"})));
  chunks.push_back(
      ChunkBuilder(Type::kFixedLenByteArray).DataV1(3, Encoding::kPlain, "", "abcdefghi"));
  fb.AddRowGroup(3, chunks);
  std::string file = fb.Finish();

  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(FileOf(file)));
  EXPECT_EQ(reader->schema()->ToString(),
            Schema({Field("b", Boolean(), false), Field("i32", Int32(), false),
                    Field("i64", Int64(), false), Field("i96", TimestampNs(), false),
                    Field("f", Float32(), false), Field("d", Float64(), false),
                    Field("ba", Binary(), false), Field("flba", Fixed(3), false)})
                .ToString());
  EXPECT_THAT(ReadColumn(file, 0), ::testing::Optional(Strings{"t", "f", "t"}));
  EXPECT_THAT(ReadColumn(file, 1), ::testing::Optional(Strings{"1", "-2", "3"}));
  EXPECT_THAT(ReadColumn(file, 2), ::testing::Optional(Strings{"10", "-20", "1099511627776"}));
  // INT96: Julian day 2440588 is 1970-01-01; the first 8 bytes are nanoseconds of the day.
  ASSERT_OK_AND_ASSIGN(auto i96, ReadColumn(file, 3));
  EXPECT_EQ(i96, (Strings{"1970-01-01 00:00:00", "1970-01-02 00:00:00.000001",
                          "1969-12-31 00:00:00.000000001"}));
  EXPECT_THAT(ReadColumn(file, 4), ::testing::Optional(Strings{"1.5", "-2.25", "0"}));
  EXPECT_THAT(ReadColumn(file, 5), ::testing::Optional(Strings{"0.5", "-10000000000", "3"}));
  EXPECT_THAT(ReadColumn(file, 6), ::testing::Optional(Strings{"\\x61", "\\x", "\\x78797a"}));
  EXPECT_THAT(ReadColumn(file, 7),
              ::testing::Optional(Strings{"\\x616263", "\\x646566", "\\x676869"}));
}

TEST(ReaderValues, OptionalColumnsWithNulls) {
  FileBuilder fb({Root(4), Leaf("b", Type::kBoolean), Leaf("i64", Type::kInt64),
                  Leaf("s", Type::kByteArray), Leaf("d", Type::kDouble)});
  std::string defs = Levels({1, 0, 0, 1, 1}, 1);
  std::vector<ChunkBuilder> chunks;
  chunks.push_back(
      ChunkBuilder(Type::kBoolean).DataV1(5, Encoding::kPlain, defs, PlainBools({1, 0, 1})));
  chunks.push_back(
      ChunkBuilder(Type::kInt64).DataV1(5, Encoding::kPlain, defs, Plain<int64_t>({7, 8, 9})));
  chunks.push_back(ChunkBuilder(Type::kByteArray)
                       .DataV1(5, Encoding::kPlain, defs, PlainStrings({"x", "yy", ""})));
  chunks.push_back(
      ChunkBuilder(Type::kDouble).DataV1(5, Encoding::kPlain, Levels({0, 0, 0, 0, 0}, 1), ""));
  fb.AddRowGroup(5, chunks);
  std::string file = fb.Finish();
  EXPECT_THAT(ReadColumn(file, 0), ::testing::Optional(Strings{"t", "NULL", "NULL", "f", "t"}));
  EXPECT_THAT(ReadColumn(file, 1), ::testing::Optional(Strings{"7", "NULL", "NULL", "8", "9"}));
  EXPECT_THAT(ReadColumn(file, 2, 2),
              ::testing::Optional(Strings{"\\x78", "NULL", "NULL", "\\x7979", "\\x"}));
  EXPECT_THAT(ReadColumn(file, 3), ::testing::Optional(Strings(5, "NULL")));
}

// One required leaf of `physical` annotated by `logical`, with PLAIN `values`.
std::string AnnotatedFile(Type physical, std::optional<LogicalType> logical,
                          std::optional<ConvertedType> converted, int32_t n,
                          const std::string& values, int32_t type_length = 0, int32_t precision = 0,
                          int32_t scale = 0) {
  SchemaElement e = Leaf("v", physical, FR::kRequired);
  e.logical_type = logical;
  e.converted_type = converted;
  if (type_length) e.type_length = type_length;
  if (precision) {
    e.precision = precision;
    e.scale = scale;
  }
  FileBuilder fb({Root(1), e});
  fb.AddRowGroup(n, {ChunkBuilder(physical).DataV1(n, Encoding::kPlain, "", values)});
  return fb.Finish();
}

LogicalType Lt(LogicalType::Kind kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}
LogicalType IntLt(int bits, bool is_signed) {
  LogicalType t = Lt(LogicalType::Kind::kInteger);
  t.bit_width = static_cast<int8_t>(bits);
  t.is_signed = is_signed;
  return t;
}
LogicalType TimeLt(LogicalType::Kind kind, TimeUnit unit, bool utc) {
  LogicalType t = Lt(kind);
  t.unit = unit;
  t.is_adjusted_to_utc = utc;
  return t;
}
LogicalType DecLt(int precision, int scale) {
  LogicalType t = Lt(LogicalType::Kind::kDecimal);
  t.precision = precision;
  t.scale = scale;
  return t;
}

std::string TypeOf(const std::string& file) {
  auto reader = ParquetFileReader::Open(FileOf(file));
  if (!reader.ok()) return reader.status().ToString();
  return (*reader)->schema()->field(0).type()->ToString();
}

TEST(ReaderValues, IntegerAnnotations) {
  std::string v32 = Plain<int32_t>({-1, 127, 200});
  auto i8 =
      AnnotatedFile(Type::kInt32, IntLt(8, true), std::nullopt, 3, Plain<int32_t>({-1, 127, -128}));
  EXPECT_EQ(TypeOf(i8), "int8");
  EXPECT_THAT(ReadColumn(i8), ::testing::Optional(Strings{"-1", "127", "-128"}));
  auto i16 = AnnotatedFile(Type::kInt32, std::nullopt, ConvertedType::kInt16, 3,
                           Plain<int32_t>({-1, 300, -32768}));
  EXPECT_EQ(TypeOf(i16), "int16");
  EXPECT_THAT(ReadColumn(i16), ::testing::Optional(Strings{"-1", "300", "-32768"}));
  auto u8 =
      AnnotatedFile(Type::kInt32, IntLt(8, false), std::nullopt, 3, Plain<int32_t>({0, 255, 200}));
  EXPECT_EQ(TypeOf(u8), "int16");
  EXPECT_THAT(ReadColumn(u8), ::testing::Optional(Strings{"0", "255", "200"}));
  auto u16 =
      AnnotatedFile(Type::kInt32, IntLt(16, false), std::nullopt, 1, Plain<int32_t>({65535}));
  EXPECT_EQ(TypeOf(u16), "int32");
  EXPECT_THAT(ReadColumn(u16), ::testing::Optional(Strings{"65535"}));
  // Unsigned 32-bit values are stored as the bits of an INT32; they widen to int64.
  auto u32 =
      AnnotatedFile(Type::kInt32, IntLt(32, false), std::nullopt, 2, Plain<int32_t>({-1, 5}));
  EXPECT_EQ(TypeOf(u32), "int64");
  EXPECT_THAT(ReadColumn(u32), ::testing::Optional(Strings{"4294967295", "5"}));
  // Unsigned 64-bit values become decimal(20, 0), which holds all of them.
  auto u64 =
      AnnotatedFile(Type::kInt64, std::nullopt, ConvertedType::kUint64, 2, Plain<int64_t>({-1, 7}));
  EXPECT_EQ(TypeOf(u64), "decimal(20,0)");
  EXPECT_THAT(ReadColumn(u64), ::testing::Optional(Strings{"18446744073709551615", "7"}));
}

TEST(ReaderValues, DecimalsOnEveryPhysicalType) {
  auto d32 = AnnotatedFile(Type::kInt32, DecLt(9, 2), std::nullopt, 2, Plain<int32_t>({-12345, 5}));
  EXPECT_EQ(TypeOf(d32), "decimal(9,2)");
  EXPECT_THAT(ReadColumn(d32), ::testing::Optional(Strings{"-123.45", "0.05"}));
  auto d64 = AnnotatedFile(Type::kInt64, std::nullopt, ConvertedType::kDecimal, 1,
                           Plain<int64_t>({-123456789012345678}), 0, 18, 3);
  EXPECT_EQ(TypeOf(d64), "decimal(18,3)");
  EXPECT_THAT(ReadColumn(d64), ::testing::Optional(Strings{"-123456789012345.678"}));
  // Big-endian two's complement: 0xff85 = -123; 0x0100 = 256.
  auto flba = AnnotatedFile(Type::kFixedLenByteArray, DecLt(4, 1), std::nullopt, 2,
                            std::string("\xff\x85\x01\x00", 4), 2);
  EXPECT_EQ(TypeOf(flba), "decimal(4,1)");
  EXPECT_THAT(ReadColumn(flba), ::testing::Optional(Strings{"-12.3", "25.6"}));
  // A 16-byte FLBA with the largest 38-digit value.
  std::string big(16, '\0');
  unsigned __int128 max38 = 1;
  for (int i = 0; i < 38; ++i) max38 *= 10;
  max38 -= 1;
  for (int i = 0; i < 16; ++i) big[15 - i] = static_cast<char>(max38 >> (8 * i));
  auto d38 = AnnotatedFile(Type::kFixedLenByteArray, DecLt(38, 0), std::nullopt, 1, big, 16);
  EXPECT_THAT(ReadColumn(d38), ::testing::Optional(Strings{std::string(38, '9')}));
  auto ba = AnnotatedFile(
      Type::kByteArray, DecLt(10, 2), std::nullopt, 3,
      PlainStrings({std::string_view("\x80", 1), "", std::string_view("\x00\xff", 2)}));
  EXPECT_EQ(TypeOf(ba), "decimal(10,2)");
  EXPECT_THAT(ReadColumn(ba), ::testing::Optional(Strings{"-1.28", "0.00", "2.55"}));
  EXPECT_EQ(TypeOf(AnnotatedFile(Type::kFixedLenByteArray, DecLt(40, 0), std::nullopt, 0, "", 17)),
            "Not supported: 'test.parquet': column 'v': decimal precision 40 exceeds 38");
}

TEST(ReaderValues, TemporalAnnotations) {
  using K = LogicalType::Kind;
  auto date =
      AnnotatedFile(Type::kInt32, Lt(K::kDate), std::nullopt, 2, Plain<int32_t>({0, 19000}));
  EXPECT_EQ(TypeOf(date), "date");
  EXPECT_THAT(ReadColumn(date), ::testing::Optional(Strings{"1970-01-01", "2022-01-08"}));
  auto tmillis = AnnotatedFile(Type::kInt32, TimeLt(K::kTime, TimeUnit::kMillis, true),
                               std::nullopt, 1, Plain<int32_t>({3723004}));
  EXPECT_EQ(TypeOf(tmillis), "time");
  EXPECT_THAT(ReadColumn(tmillis), ::testing::Optional(Strings{"01:02:03.004"}));
  auto tmicros = AnnotatedFile(Type::kInt64, std::nullopt, ConvertedType::kTimeMicros, 1,
                               Plain<int64_t>({1000001}));
  EXPECT_THAT(ReadColumn(tmicros), ::testing::Optional(Strings{"00:00:01.000001"}));
  // TIME(NANOS) truncates to microseconds.
  auto tnanos = AnnotatedFile(Type::kInt64, TimeLt(K::kTime, TimeUnit::kNanos, false), std::nullopt,
                              1, Plain<int64_t>({1000001999}));
  EXPECT_EQ(TypeOf(tnanos), "time");
  EXPECT_THAT(ReadColumn(tnanos), ::testing::Optional(Strings{"00:00:01.000001"}));

  auto ts_ms = AnnotatedFile(Type::kInt64, TimeLt(K::kTimestamp, TimeUnit::kMillis, false),
                             std::nullopt, 1, Plain<int64_t>({1500}));
  EXPECT_EQ(TypeOf(ts_ms), "timestamp");
  EXPECT_THAT(ReadColumn(ts_ms), ::testing::Optional(Strings{"1970-01-01 00:00:01.5"}));
  auto ts_us = AnnotatedFile(Type::kInt64, TimeLt(K::kTimestamp, TimeUnit::kMicros, true),
                             std::nullopt, 1, Plain<int64_t>({-1}));
  EXPECT_EQ(TypeOf(ts_us), "timestamptz");
  auto ts_ns = AnnotatedFile(Type::kInt64, TimeLt(K::kTimestamp, TimeUnit::kNanos, false),
                             std::nullopt, 1, Plain<int64_t>({1}));
  EXPECT_EQ(TypeOf(ts_ns), "timestamp_ns");
  EXPECT_THAT(ReadColumn(ts_ns), ::testing::Optional(Strings{"1970-01-01 00:00:00.000000001"}));
  auto ts_nstz = AnnotatedFile(Type::kInt64, TimeLt(K::kTimestamp, TimeUnit::kNanos, true),
                               std::nullopt, 1, Plain<int64_t>({1}));
  EXPECT_EQ(TypeOf(ts_nstz), "timestamptz_ns");
  // Legacy TIMESTAMP_MILLIS is adjusted to UTC.
  auto legacy = AnnotatedFile(Type::kInt64, std::nullopt, ConvertedType::kTimestampMillis, 1,
                              Plain<int64_t>({86400000}));
  EXPECT_EQ(TypeOf(legacy), "timestamptz");
}

TEST(ReaderValues, StringLikeAnnotations) {
  using K = LogicalType::Kind;
  for (auto kind : {K::kString, K::kJson, K::kEnum}) {
    auto f =
        AnnotatedFile(Type::kByteArray, Lt(kind), std::nullopt, 2, PlainStrings({"héllo", ""}));
    EXPECT_EQ(TypeOf(f), "string");
    EXPECT_THAT(ReadColumn(f), ::testing::Optional(Strings{"héllo", ""}));
  }
  auto utf8 =
      AnnotatedFile(Type::kByteArray, std::nullopt, ConvertedType::kUtf8, 1, PlainStrings({"x"}));
  EXPECT_EQ(TypeOf(utf8), "string");
  std::string uuid_bytes;
  for (int i = 0; i < 16; ++i) uuid_bytes.push_back(static_cast<char>(i));
  auto uuid =
      AnnotatedFile(Type::kFixedLenByteArray, Lt(K::kUuid), std::nullopt, 1, uuid_bytes, 16);
  EXPECT_EQ(TypeOf(uuid), "uuid");
  EXPECT_THAT(ReadColumn(uuid),
              ::testing::Optional(Strings{"00010203-0405-0607-0809-0a0b0c0d0e0f"}));
  // FLOAT16: 0x3c00 = 1.0, 0xc000 = -2.0, 0x0001 = 2^-24.
  auto f16 = AnnotatedFile(Type::kFixedLenByteArray, Lt(K::kFloat16), std::nullopt, 3,
                           std::string("\x00\x3c\x00\xc0\x01\x00", 6), 2);
  EXPECT_EQ(TypeOf(f16), "float32");
  EXPECT_THAT(ReadColumn(f16), ::testing::Optional(Strings{"1", "-2", "5.9604645e-08"}));
}

// STRING values are checked for UTF-8 however they are laid out: all-ASCII pages in one
// pass (a length of 128 or more has a byte of 0x80 or above, so the page is checked value
// by value), others value by value; the error names the value.
TEST(ReaderValues, StringValuesAreCheckedForUtf8) {
  auto plain = [](const std::vector<std::string>& values) {
    std::vector<std::string_view> views(values.begin(), values.end());
    return AnnotatedFile(Type::kByteArray, Lt(LogicalType::Kind::kString), std::nullopt,
                         static_cast<int32_t>(values.size()), PlainStrings(views));
  };
  const std::string long_ascii(200, 'a');
  for (const std::vector<std::string>& valid :
       std::vector<std::vector<std::string>>{{"plain", "", "ascii values"},
                                             {"short", long_ascii, "x"},
                                             {"caf\xc3\xa9", long_ascii, "\xe2\x82\xac"}}) {
    EXPECT_THAT(ReadColumn(plain(valid)), ::testing::Optional(valid));
  }
  // Invalid bytes in a value, at a value's start, across two values, after a long one.
  for (const std::vector<std::string>& invalid :
       std::vector<std::vector<std::string>>{{"ok", "ok", "trunc\xc3"},
                                             {"ok", "ok", "\x80starts with a continuation"},
                                             {"ok", "ok", "split \xe2\x82", "\xac rest"},
                                             {long_ascii, "ok", "\xff"}}) {
    Result<std::vector<std::string>> read = ReadColumn(plain(invalid));
    ASSERT_FALSE(read.ok());
    EXPECT_THAT(read.status().message(),
                ::testing::HasSubstr("page value 2 of a STRING column is not valid UTF-8"));
  }
  // A dictionary page is checked once, the same way.
  FileBuilder fb({Root(1), [] {
                    SchemaElement e = Leaf("s", Type::kByteArray, FR::kRequired);
                    e.logical_type = Lt(LogicalType::Kind::kString);
                    return e;
                  }()});
  ChunkBuilder strs(Type::kByteArray);
  strs.Dictionary(2, PlainStrings({"fine", "bad \xc3("}))
      .DataV1(2, Encoding::kRleDictionary, "", DictIndices({0, 1}, 2));
  fb.AddRowGroup(2, {strs});
  Result<std::vector<std::string>> read = ReadColumn(fb.Finish());
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(),
              ::testing::HasSubstr("dictionary value 1 of a STRING column is not valid UTF-8"));
}

TEST(ReaderValues, DictionaryPages) {
  FileBuilder fb({Root(2), Leaf("i", Type::kInt64), Leaf("s", Type::kByteArray)});
  ChunkBuilder ints(Type::kInt64, CompressionCodec::kSnappy);
  ints.Dictionary(3, Plain<int64_t>({100, 200, 300}))
      .DataV1(4, Encoding::kRleDictionary, Levels({1, 1, 0, 1}, 1), DictIndices({2, 0, 2}, 3))
      .DataV1(2, Encoding::kPlainDictionary, Levels({1, 1}, 1), DictIndices({1, 1}, 3));
  ChunkBuilder strs(Type::kByteArray, CompressionCodec::kSnappy);
  strs.Dictionary(2, PlainStrings({"foo", "barbaz"}))
      .DataV1(6, Encoding::kRleDictionary, Levels({1, 1, 1, 1, 1, 0}, 1),
              DictIndices({0, 1, 1, 0, 0}, 2));
  fb.AddRowGroup(6, {ints, strs});
  std::string file = fb.Finish();
  EXPECT_THAT(ReadColumn(file, 0, 4),
              ::testing::Optional(Strings{"300", "100", "NULL", "300", "200", "200"}));
  EXPECT_THAT(ReadColumn(file, 1, 5),
              ::testing::Optional(Strings{"\\x666f6f", "\\x62617262617a", "\\x62617262617a",
                                          "\\x666f6f", "\\x666f6f", "NULL"}));
}

TEST(ReaderValues, DeltaAndByteStreamSplitEncodings) {
  std::vector<int32_t> i32;
  std::vector<int64_t> i64;
  for (int i = 0; i < 300; ++i) {
    i32.push_back(i * i - 1000);
    i64.push_back((int64_t{1} << 50) - int64_t{i} * 123456789);
  }
  i64[7] = std::numeric_limits<int64_t>::min();
  i64[8] = std::numeric_limits<int64_t>::max();
  std::vector<uint8_t> dbp32, dbp64;
  EncodeDeltaBinaryPacked(i32, &dbp32);
  EncodeDeltaBinaryPacked(i64, &dbp64);
  std::vector<std::string> strs = {"apple", "applesauce", "apply", "", "banana", "band"};
  std::vector<int32_t> offsets = {0};
  std::string data;
  for (auto& s : strs) {
    data += s;
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  std::vector<uint8_t> dlba, dba;
  EncodeDeltaLengthByteArray(offsets.data(), reinterpret_cast<const uint8_t*>(data.data()), 6,
                             &dlba);
  EncodeDeltaByteArray(offsets.data(), reinterpret_cast<const uint8_t*>(data.data()), 6, &dba);
  std::vector<double> dbl = {1.25, -3.5, 1e300};
  std::vector<uint8_t> bss;
  EncodeByteStreamSplit(reinterpret_cast<const uint8_t*>(dbl.data()), 3, 8, &bss);

  SchemaElement s1 = Leaf("dlba", Type::kByteArray, FR::kRequired);
  s1.converted_type = ConvertedType::kUtf8;
  SchemaElement s2 = Leaf("dba", Type::kByteArray, FR::kRequired);
  s2.converted_type = ConvertedType::kUtf8;
  FileBuilder fb({Root(5), Leaf("i32", Type::kInt32, FR::kRequired),
                  Leaf("i64", Type::kInt64, FR::kRequired), s1, s2,
                  Leaf("d", Type::kDouble, FR::kRequired)});
  fb.AddRowGroup(
      300,
      {ChunkBuilder(Type::kInt32).DataV1(300, Encoding::kDeltaBinaryPacked, "", Bytes(dbp32)),
       ChunkBuilder(Type::kInt64).DataV1(300, Encoding::kDeltaBinaryPacked, "", Bytes(dbp64))});
  // The other columns live in their own file (different row counts).
  std::string ints = [&] {
    FileBuilder f({Root(2), Leaf("i32", Type::kInt32, FR::kRequired),
                   Leaf("i64", Type::kInt64, FR::kRequired)});
    f.AddRowGroup(
        300,
        {ChunkBuilder(Type::kInt32).DataV1(300, Encoding::kDeltaBinaryPacked, "", Bytes(dbp32)),
         ChunkBuilder(Type::kInt64).DataV1(300, Encoding::kDeltaBinaryPacked, "", Bytes(dbp64))});
    return f.Finish();
  }();
  ASSERT_OK_AND_ASSIGN(auto got32, ReadColumn(ints, 0, 100));
  ASSERT_OK_AND_ASSIGN(auto got64, ReadColumn(ints, 1, 128));
  ASSERT_EQ(got32.size(), 300u);
  ASSERT_EQ(got64.size(), 300u);
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(got32[i], std::to_string(i32[i]));
    EXPECT_EQ(got64[i], std::to_string(i64[i]));
  }
  FileBuilder f2({Root(3), s1, s2, Leaf("d", Type::kDouble, FR::kRequired)});
  f2.AddRowGroup(
      6,
      {ChunkBuilder(Type::kByteArray).DataV1(6, Encoding::kDeltaLengthByteArray, "", Bytes(dlba)),
       ChunkBuilder(Type::kByteArray).DataV1(6, Encoding::kDeltaByteArray, "", Bytes(dba)),
       ChunkBuilder(Type::kDouble).DataV1(3, Encoding::kByteStreamSplit, "", Bytes(bss))});
  f2.metadata().row_groups[0].columns[2].meta_data->num_values = 3;
  std::string f2_bytes = f2.Finish();
  Strings expected(strs.begin(), strs.end());
  EXPECT_THAT(ReadColumn(f2_bytes, 0), ::testing::Optional(expected));
  EXPECT_THAT(ReadColumn(f2_bytes, 1, 4), ::testing::Optional(expected));
}

TEST(ReaderValues, ByteStreamSplitAndRleBooleans) {
  std::vector<double> dbl = {1.25, -3.5, 1e300, 0};
  std::vector<uint8_t> bss;
  EncodeByteStreamSplit(reinterpret_cast<const uint8_t*>(dbl.data()), 4, 8, &bss);
  std::vector<uint8_t> bools = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0};
  std::vector<uint8_t> rle;
  EncodeRleBitPackedWithLength<uint8_t>(bools, 1, &rle);
  FileBuilder fb({Root(2), Leaf("d", Type::kDouble), Leaf("b", Type::kBoolean, FR::kRequired)});
  ChunkBuilder d(Type::kDouble, CompressionCodec::kZstd);
  d.DataV2(12, 8, 12, Encoding::kByteStreamSplit, "",
           LevelsV2({1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0}, 1), Bytes(bss));
  ChunkBuilder b(Type::kBoolean, CompressionCodec::kZstd);
  b.DataV2(12, 0, 12, Encoding::kRle, "", "", Bytes(rle), false);
  fb.AddRowGroup(12, {d, b});
  std::string file = fb.Finish();
  EXPECT_THAT(ReadColumn(file, 0, 5),
              ::testing::Optional(Strings{"1.25", "NULL", "NULL", "-3.5", "NULL", "NULL", "1e+300",
                                          "NULL", "NULL", "0", "NULL", "NULL"}));
  EXPECT_THAT(ReadColumn(file, 1), ::testing::Optional(Strings{"t", "t", "t", "t", "t", "t", "t",
                                                               "t", "t", "f", "t", "f"}));
}

TEST(ReaderValues, EveryCodecPageV1AndV2) {
  for (CompressionCodec codec :
       {CompressionCodec::kUncompressed, CompressionCodec::kSnappy, CompressionCodec::kGzip,
        CompressionCodec::kZstd, CompressionCodec::kLz4Raw, CompressionCodec::kLz4,
        CompressionCodec::kBrotli}) {
    SCOPED_TRACE(static_cast<int>(codec));
    std::vector<int64_t> a, b;
    for (int i = 0; i < 1000; ++i) a.push_back(i);
    for (int i = 1000; i < 2500; ++i) b.push_back(i);
    FileBuilder fb({Root(1), Leaf("v", Type::kInt64)});
    ChunkBuilder c(Type::kInt64, codec);
    c.DataV1(1000, Encoding::kPlain, Levels(std::vector<int16_t>(1000, 1), 1), Plain(a));
    c.DataV2(1500, 0, 1500, Encoding::kPlain, "", LevelsV2(std::vector<int16_t>(1500, 1), 1),
             Plain(b));
    fb.AddRowGroup(2500, {c});
    std::string file = fb.Finish();
    // Batches of 333 rows span the page boundary.
    ASSERT_OK_AND_ASSIGN(auto got, ReadColumn(file, 0, 333));
    ASSERT_EQ(got.size(), 2500u);
    for (int i = 0; i < 2500; ++i) ASSERT_EQ(got[i], std::to_string(i));
  }
}

// A list<int32> column in the 3-level form and the legacy 2-level forms, all with the
// same levels: rows [1, 2], [], NULL, [3].
TEST(ReaderValues, ListsInEveryForm) {
  std::vector<int16_t> rep = {0, 1, 0, 0, 0};
  std::vector<int16_t> def3 = {3, 3, 1, 0, 3};  // optional list, optional element
  std::vector<int16_t> def2 = {2, 2, 1, 0, 2};  // optional list, required element
  auto make = [&](std::vector<SchemaElement> schema, const std::vector<int16_t>& def, int def_bw) {
    FileBuilder fb(std::move(schema));
    ChunkBuilder c(Type::kInt32);
    c.DataV1(5, Encoding::kPlain, Levels(rep, 1) + Levels(def, def_bw), Plain<int32_t>({1, 2, 3}));
    fb.AddRowGroup(4, {c});
    return fb.Finish();
  };
  Strings expected = {"{1,2}", "{}", "NULL", "{3}"};
  // 3-level.
  auto three = make({Root(1), Group("l", FR::kOptional, 1, ConvertedType::kList),
                     Group("list", FR::kRepeated, 1), Leaf("element", Type::kInt32)},
                    def3, 2);
  EXPECT_EQ(TypeOf(three), "list<int32>");
  EXPECT_THAT(ReadColumn(three, 0, 3), ::testing::Optional(expected));
  // Rule 1: a repeated primitive is the required element.
  auto prim = make({Root(1), Group("l", FR::kOptional, 1, ConvertedType::kList),
                    Leaf("item", Type::kInt32, FR::kRepeated)},
                   def2, 2);
  EXPECT_THAT(ReadColumn(prim), ::testing::Optional(expected));
  // Rule "array": a one-field repeated group named array is the element (a struct).
  auto array = make({Root(1), Group("l", FR::kOptional, 1, ConvertedType::kList),
                     Group("array", FR::kRepeated, 1), Leaf("x", Type::kInt32, FR::kRequired)},
                    def2, 2);
  EXPECT_EQ(TypeOf(array), "list<struct<x: int32>>");
  EXPECT_THAT(ReadColumn(array), ::testing::Optional(Strings{"{(1),(2)}", "{}", "NULL", "{(3)}"}));
  // "<name>_tuple".
  auto tuple = make({Root(1), Group("l", FR::kOptional, 1, ConvertedType::kList),
                     Group("l_tuple", FR::kRepeated, 1), Leaf("x", Type::kInt32, FR::kRequired)},
                    def2, 2);
  EXPECT_EQ(TypeOf(tuple), "list<struct<x: int32>>");
  // An unannotated repeated field: a required list of required elements.
  {
    FileBuilder fb({Root(1), Leaf("r", Type::kInt32, FR::kRepeated)});
    ChunkBuilder c(Type::kInt32);
    c.DataV1(4, Encoding::kPlain, Levels({0, 1, 0, 0}, 1) + Levels({1, 1, 0, 1}, 1),
             Plain<int32_t>({1, 2, 3}));
    fb.AddRowGroup(3, {c});
    std::string f = fb.Finish();
    EXPECT_EQ(TypeOf(f), "list<int32>");
    EXPECT_THAT(ReadColumn(f, 0, 2), ::testing::Optional(Strings{"{1,2}", "{}", "{3}"}));
  }
}

// map<string, int32> and a struct with a nested optional struct, across batches.
TEST(ReaderValues, MapsAndStructs) {
  SchemaElement key = Leaf("key", Type::kByteArray, FR::kRequired);
  key.converted_type = ConvertedType::kUtf8;
  FileBuilder fb({Root(2), Group("m", FR::kOptional, 1, ConvertedType::kMap),
                  Group("key_value", FR::kRepeated, 2), key, Leaf("value", Type::kInt32),
                  Group("s", FR::kOptional, 2), Leaf("a", Type::kInt32, FR::kRequired),
                  Group("t", FR::kOptional, 1), Leaf("b", Type::kInt32)});
  // Rows: {a=>1, b=>NULL}, NULL, {}, {c=>3}.
  ChunkBuilder keys(Type::kByteArray);
  keys.DataV1(5, Encoding::kPlain, Levels({0, 1, 0, 0, 0}, 1) + Levels({2, 2, 0, 1, 2}, 2),
              PlainStrings({"a", "b", "c"}));
  ChunkBuilder values(Type::kInt32);
  values.DataV1(5, Encoding::kPlain, Levels({0, 1, 0, 0, 0}, 1) + Levels({3, 2, 0, 1, 3}, 2),
                Plain<int32_t>({1, 3}));
  // s rows: (1,(5)), NULL, (2,NULL), (3,(NULL)).
  ChunkBuilder a(Type::kInt32);
  a.DataV1(4, Encoding::kPlain, Levels({1, 0, 1, 1}, 1), Plain<int32_t>({1, 2, 3}));
  ChunkBuilder b(Type::kInt32);
  b.DataV1(4, Encoding::kPlain, Levels({3, 0, 1, 2}, 2), Plain<int32_t>({5}));
  fb.AddRowGroup(4, {keys, values, a, b});
  std::string file = fb.Finish();
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(FileOf(file)));
  EXPECT_EQ(reader->schema()->field(0).type()->ToString(), "map<string, int32>");
  EXPECT_THAT(ReadColumn(file, 0, 3),
              ::testing::Optional(Strings{"{a=>1,b=>NULL}", "NULL", "{}", "{c=>3}"}));
  EXPECT_THAT(ReadColumn(file, 1, 3),
              ::testing::Optional(Strings{"(1,\"(5)\")", "NULL", "(2,)", "(3,\"()\")"}));
}

TEST(ReaderValues, ProjectionByNameAndFieldIdAndPruning) {
  SchemaElement a = Leaf("a", Type::kInt64, FR::kRequired);
  a.field_id = 7;
  SchemaElement b = Leaf("b", Type::kByteArray);
  b.field_id = 9;
  b.converted_type = ConvertedType::kUtf8;
  FileBuilder fb({Root(2), a, b});
  for (int g = 0; g < 3; ++g) {
    ChunkBuilder ca(Type::kInt64);
    ca.DataV1(2, Encoding::kPlain, "", Plain<int64_t>({g * 10, g * 10 + 5}));
    Statistics st;
    st.min_value = Plain<int64_t>({g * 10});
    st.max_value = Plain<int64_t>({g * 10 + 5});
    st.null_count = 0;
    ca.statistics = st;
    ChunkBuilder cb(Type::kByteArray);
    cb.DataV1(2, Encoding::kPlain, Levels({1, g == 1 ? int16_t{0} : int16_t{1}}, 1),
              g == 1 ? PlainStrings({"m"}) : PlainStrings({"k", "z"}));
    Statistics sb;
    sb.min_value = g == 1 ? "m" : "k";
    sb.max_value = g == 1 ? "m" : "z";
    sb.null_count = g == 1 ? 1 : 0;
    cb.statistics = sb;
    fb.AddRowGroup(2, {ca, cb});
  }
  std::string file = fb.Finish();
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(FileOf(file)));
  EXPECT_EQ(reader->num_rows(), 6);
  EXPECT_EQ(reader->schema()->field(0).field_id(), 7);
  EXPECT_THAT(reader->ColumnsByFieldId({9, 7}), ::testing::Optional(std::vector<int>{1, 0}));
  EXPECT_THAT(reader->ColumnsByFieldId({8}), ::floe::testing::IsError(StatusCode::kNotFound));
  EXPECT_THAT(reader->ColumnsByName({"b"}), ::testing::Optional(std::vector<int>{1}));

  using Op = ColumnPredicate::Op;
  auto prune = [&](int col, Op op, std::vector<Scalar> values) {
    return reader->PruneRowGroups({ColumnPredicate{col, op, std::move(values)}});
  };
  using V = std::vector<int>;
  EXPECT_THAT(prune(0, Op::kEq, {Scalar::I64(15)}), ::testing::Optional(V{1}));
  EXPECT_THAT(prune(0, Op::kEq, {Scalar::I64(16)}), ::testing::Optional(V{}));
  EXPECT_THAT(prune(0, Op::kLt, {Scalar::I64(10)}), ::testing::Optional(V{0}));
  EXPECT_THAT(prune(0, Op::kLe, {Scalar::I64(10)}), ::testing::Optional(V{0, 1}));
  EXPECT_THAT(prune(0, Op::kGt, {Scalar::I64(15)}), ::testing::Optional(V{2}));
  EXPECT_THAT(prune(0, Op::kGe, {Scalar::I64(15)}), ::testing::Optional(V{1, 2}));
  EXPECT_THAT(prune(0, Op::kIn, {Scalar::I64(3), Scalar::I64(25)}), ::testing::Optional(V{0, 2}));
  // A sorted list (a join's keys) is searched: the first value not below a row group's
  // minimum decides.
  auto prune_sorted = [&](std::vector<int64_t> values) {
    std::vector<Scalar> scalars;
    for (int64_t v : values) scalars.push_back(Scalar::I64(v));
    return reader->PruneRowGroups(
        {ColumnPredicate{0, Op::kIn, std::move(scalars), /*sorted=*/true}});
  };
  EXPECT_THAT(prune_sorted({3, 25}), ::testing::Optional(V{0, 2}));
  EXPECT_THAT(prune_sorted({-5, 6, 7, 9, 16, 19, 26}), ::testing::Optional(V{}));
  EXPECT_THAT(prune_sorted({-5, 5, 26}), ::testing::Optional(V{0}));
  EXPECT_THAT(prune_sorted({10}), ::testing::Optional(V{1}));
  EXPECT_THAT(prune_sorted({9, 15, 20}), ::testing::Optional(V{1, 2}));
  EXPECT_THAT(prune_sorted({}), ::testing::Optional(V{}));
  // A bitmap of keys (a join's keys too many to list): a row group is kept when a key lies
  // between its minimum and maximum.
  auto prune_bitmap = [&](std::vector<int64_t> keys) {
    auto bitmap = std::make_shared<KeyBitmap>(*std::min_element(keys.begin(), keys.end()),
                                              *std::max_element(keys.begin(), keys.end()));
    for (int64_t k : keys) bitmap->Add(k);
    return reader->PruneRowGroups({ColumnPredicate{0, Op::kIn, {}, false, std::move(bitmap)}});
  };
  EXPECT_THAT(prune_bitmap({3, 25}), ::testing::Optional(V{0, 2}));
  EXPECT_THAT(prune_bitmap({-5, 6, 7, 9, 16, 19, 26}), ::testing::Optional(V{}));
  EXPECT_THAT(prune_bitmap({-5, 5, 26}), ::testing::Optional(V{0}));
  EXPECT_THAT(prune_bitmap({10}), ::testing::Optional(V{1}));
  EXPECT_THAT(prune_bitmap({9, 15, 20}), ::testing::Optional(V{1, 2}));
  EXPECT_THAT(prune_bitmap({-200, 200}), ::testing::Optional(V{}));
  EXPECT_THAT(prune(1, Op::kIsNull, {}), ::testing::Optional(V{1}));
  EXPECT_THAT(prune(1, Op::kEq, {Scalar::Str("m")}), ::testing::Optional(V{0, 1, 2}));
  EXPECT_THAT(prune(1, Op::kGt, {Scalar::Str("m")}), ::testing::Optional(V{0, 2}));
  EXPECT_THAT(prune(1, Op::kLt, {Scalar::Str("b")}), ::testing::Optional(V{}));
  EXPECT_THAT(reader->PruneRowGroups({ColumnPredicate{0, Op::kGe, {Scalar::I64(10)}},
                                      ColumnPredicate{1, Op::kIsNull, {}}}),
              ::testing::Optional(V{1}));

  // Read applies the pruning and the projection.
  ReadRequest request;
  request.columns = std::vector<int>{1};
  request.predicates = {ColumnPredicate{0, Op::kGe, {Scalar::I64(10)}}};
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(request));
  std::vector<std::string> got;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, stream->Next());
    if (!batch) break;
    ASSERT_EQ(batch->num_columns(), 1);
    for (int64_t i = 0; i < batch->num_rows(); ++i)
      got.push_back(FormatValue(*batch->column(0), i));
  }
  EXPECT_EQ(got, (Strings{"m", "NULL", "k", "z"}));
}

// The page index narrows the rows read: column a has pages of 4 rows, column b (with a
// dictionary) pages of 6 rows; a predicate on a selects a's page [4, 8).
TEST(ReaderValues, PageIndexSkipsPages) {
  SchemaElement sb = Leaf("b", Type::kByteArray);
  sb.converted_type = ConvertedType::kUtf8;
  FileBuilder fb({Root(2), Leaf("a", Type::kInt64, FR::kRequired), sb});
  ChunkBuilder a(Type::kInt64);
  ColumnIndex ci;
  for (int p = 0; p < 3; ++p) {
    std::vector<int64_t> v;
    for (int i = 0; i < 4; ++i) v.push_back(p * 4 + i);
    a.DataV1(4, Encoding::kPlain, "", Plain(v));
    ci.null_pages.push_back(false);
    ci.min_values.push_back(Plain<int64_t>({p * 4}));
    ci.max_values.push_back(Plain<int64_t>({p * 4 + 3}));
  }
  ci.null_counts = std::vector<int64_t>{0, 0, 0};
  ChunkBuilder b(Type::kByteArray);
  b.Dictionary(
      12, PlainStrings({"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11"}));
  b.DataV1(6, Encoding::kRleDictionary, Levels({1, 1, 1, 1, 1, 0}, 1),
           DictIndices({0, 1, 2, 3, 4}, 12));
  b.DataV1(6, Encoding::kRleDictionary, Levels({1, 1, 1, 1, 1, 1}, 1),
           DictIndices({6, 7, 8, 9, 10, 11}, 12));
  fb.AddRowGroup(12, {a, b});
  fb.AddOffsetIndex(0, a, {0, 4, 8});
  fb.AddColumnIndex(0, ci);
  fb.AddOffsetIndex(1, b, {0, 6});
  std::string file = fb.Finish();

  // Counts the reads, so that the page index is seen to cost one request per row group
  // (the region holding its column and offset indexes), not two per column.
  struct CountingFile final : io::RandomAccessFile {
    explicit CountingFile(std::shared_ptr<io::RandomAccessFile> f) : base(std::move(f)) {}
    int64_t size() const override { return base->size(); }
    const std::string& path() const override { return base->path(); }
    Result<BufferPtr> ReadAt(int64_t offset, int64_t length) const override {
      ++reads;
      return base->ReadAt(offset, length);
    }
    std::shared_ptr<io::RandomAccessFile> base;
    mutable int reads = 0;
  };
  int reads = 0;
  auto read = [&](std::vector<ColumnPredicate> predicates, bool use_page_index) {
    ReaderOptions options;
    options.batch_size = 3;
    options.use_page_index = use_page_index;
    auto counting = std::make_shared<CountingFile>(FileOf(file));
    auto reader = ParquetFileReader::Open(counting, options).ValueOrDie();
    ReadRequest request;
    request.predicates = std::move(predicates);
    auto stream = reader->Read(request).ValueOrDie();
    Strings rows;
    while (true) {
      RecordBatchPtr batch = stream->Next().ValueOrDie();
      if (!batch) break;
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        rows.push_back(FormatValue(*batch->column(0), i) + "/" + FormatValue(*batch->column(1), i));
      }
    }
    reads = counting->reads;
    return rows;
  };
  using Op = ColumnPredicate::Op;
  EXPECT_EQ(read({{0, Op::kEq, {Scalar::I64(5)}}}, true),
            (Strings{"4/s4", "5/NULL", "6/s6", "7/s7"}));
  EXPECT_EQ(read({{0, Op::kGe, {Scalar::I64(7)}}}, true),
            (Strings{"4/s4", "5/NULL", "6/s6", "7/s7", "8/s8", "9/s9", "10/s10", "11/s11"}));
  EXPECT_EQ(read({{0, Op::kIn, {Scalar::I64(1), Scalar::I64(10)}}}, true),
            (Strings{"0/s0", "1/s1", "2/s2", "3/s3", "8/s8", "9/s9", "10/s10", "11/s11"}));
  EXPECT_EQ(read({{0, Op::kGt, {Scalar::I64(11)}}}, true), Strings{});
  EXPECT_EQ(read({{0, Op::kEq, {Scalar::I64(5)}}}, false).size(), 12u);
  const int without_index = reads;
  read({{0, Op::kEq, {Scalar::I64(5)}}}, true);
  EXPECT_EQ(reads, without_index + 1);
}

}  // namespace
}  // namespace floe::parquet
