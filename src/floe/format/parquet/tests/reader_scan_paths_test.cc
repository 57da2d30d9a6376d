// The reader's fast paths: dictionary indices decoded batch by batch and gathered
// straight into the batch (fixed-width and string dictionaries, short and long
// entries), readers reused from row group to row group (dictionary, codec and encoding
// changes between chunks), and the errors those paths still report.

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
using floe::testing::IsError;
using floe::testing::IsErrorWith;
using Strings = std::vector<std::string>;

// Every row of the file, columns joined by '/', across batches of `batch_size` rows.
Result<Strings> ReadRows(const std::string& bytes, int64_t batch_size,
                         std::vector<ColumnPredicate> predicates = {}, bool filter_rows = false,
                         std::vector<int64_t>* batch_rows = nullptr) {
  ReaderOptions options;
  options.batch_size = batch_size;
  FLOE_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::Open(FileOf(bytes), options));
  ReadRequest request;
  request.predicates = std::move(predicates);
  request.filter_rows = filter_rows;
  FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(request));
  Strings out;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (!batch) break;
    if (batch->num_rows() > batch_size || batch->num_rows() == 0) {
      return Status::Internal("batch of {} rows", batch->num_rows());
    }
    if (batch_rows != nullptr) batch_rows->push_back(batch->num_rows());
    FLOE_RETURN_NOT_OK(AppendRowTexts(*batch, &out));
  }
  return out;
}

SchemaElement StringLeaf(std::string name, FR rep = FR::kOptional) {
  SchemaElement e = Leaf(std::move(name), Type::kByteArray, rep);
  e.converted_type = ConvertedType::kUtf8;
  return e;
}

SchemaElement DecimalLeaf(std::string name, Type type) {
  SchemaElement e = Leaf(std::move(name), type);
  e.converted_type = ConvertedType::kDecimal;
  e.precision = 15;
  e.scale = 2;
  return e;
}

TEST(ReaderScanPaths, StringDictionaryShortLongAndEmptyEntries) {
  const std::string long_a(40, 'a');
  const std::string long_b = "0123456789abcdefX";  // 17 bytes: just past one word
  // Short entries only (copied as whole words) and a dictionary with long entries.
  FileBuilder fb({Root(2), StringLeaf("short"), StringLeaf("long")});
  ChunkBuilder shorts(Type::kByteArray, CompressionCodec::kSnappy);
  shorts.Dictionary(4, PlainStrings({"A", "", "0123456789abcdef", "NO"}))
      .DataV1(7, Encoding::kRleDictionary, Levels({1, 1, 0, 1, 1, 1, 1}, 1),
              DictIndices({2, 0, 1, 3, 3, 2}, 4));
  ChunkBuilder longs(Type::kByteArray);
  longs.Dictionary(3, PlainStrings({long_a, "x", long_b}))
      .DataV1(7, Encoding::kPlainDictionary, Levels({1, 1, 1, 1, 0, 1, 1}, 1),
              DictIndices({0, 1, 2, 2, 1, 0}, 3));
  fb.AddRowGroup(7, {shorts, longs});
  std::string file = fb.Finish();
  Strings expected = {
      "0123456789abcdef/" + long_a, "A/x", "NULL/" + long_b, "/" + long_b, "NO/NULL", "NO/x",
      "0123456789abcdef/" + long_a};
  for (int64_t batch : {1, 2, 3, 7, 100}) {
    EXPECT_THAT(ReadRows(file, batch), ::testing::Optional(expected)) << "batch " << batch;
  }
}

TEST(ReaderScanPaths, StringDictionaryEntriesOfOneLength) {
  // Entries of one byte, of 16 bytes (one whole word), of three bytes, and all empty.
  const std::string w16 = "0123456789abcdef";
  const std::string w16b = "fedcba9876543210";
  FileBuilder fb(
      {Root(4), StringLeaf("one"), StringLeaf("word"), StringLeaf("three"), StringLeaf("empty")});
  ChunkBuilder one(Type::kByteArray), word(Type::kByteArray), three(Type::kByteArray),
      empty(Type::kByteArray);
  one.Dictionary(3, PlainStrings({"A", "N", "R"}))
      .DataV1(6, Encoding::kRleDictionary, Levels({1, 1, 1, 0, 1, 1}, 1),
              DictIndices({2, 0, 1, 2, 2}, 3));
  word.Dictionary(2, PlainStrings({w16, w16b}))
      .DataV1(6, Encoding::kRleDictionary, Levels({1, 1, 1, 1, 1, 0}, 1),
              DictIndices({1, 0, 0, 1, 1}, 2));
  three.Dictionary(2, PlainStrings({"abc", "xyz"}))
      .DataV1(6, Encoding::kRleDictionary, Levels({1, 1, 1, 1, 1, 1}, 1),
              DictIndices({1, 0, 1, 1, 0, 0}, 2));
  empty.Dictionary(1, PlainStrings({""}))
      .DataV1(6, Encoding::kRleDictionary, Levels({1, 0, 1, 1, 1, 1}, 1),
              DictIndices({0, 0, 0, 0, 0}, 1));
  fb.AddRowGroup(6, {one, word, three, empty});
  std::string file = fb.Finish();
  Strings expected = {"R/" + w16b + "/xyz/",    "A/" + w16 + "/abc/NULL", "N/" + w16 + "/xyz/",
                      "NULL/" + w16b + "/xyz/", "R/" + w16b + "/abc/",    "R/NULL/abc/"};
  for (int64_t batch : {1, 2, 4, 6, 100}) {
    EXPECT_THAT(ReadRows(file, batch), ::testing::Optional(expected)) << "batch " << batch;
  }
}

TEST(ReaderScanPaths, ManyPagesAndRowGroupsReuseReaders) {
  // Row group 0: dictionary pages (two pages of one dictionary), snappy.
  // Row group 1: PLAIN pages, uncompressed, no dictionary.
  // Row group 2: a different dictionary again, gzip.
  FileBuilder fb({Root(3), StringLeaf("s"), DecimalLeaf("d", Type::kInt64),
                  Leaf("i", Type::kInt32, FR::kRequired)});
  std::vector<int32_t> idx0, idx1;
  std::vector<int16_t> def0, def1;
  Strings expected;
  const Strings dict0 = {"R", "A", "N"};
  const std::vector<int64_t> dict_d0 = {100, -250, 4999};
  std::vector<int32_t> ints0;
  for (int i = 0; i < 1000; ++i) {
    (i < 600 ? idx0 : idx1).push_back(i % 3);
    (i < 600 ? def0 : def1).push_back(1);
    ints0.push_back(i * 7);
    static const char* kDec[] = {"1.00", "-2.50", "49.99"};
    expected.push_back(dict0[i % 3] + "/" + kDec[(i + 1) % 3] + "/" + std::to_string(i * 7));
  }
  std::vector<int32_t> didx0, didx1;
  for (int i = 0; i < 1000; ++i) (i < 600 ? didx0 : didx1).push_back((i + 1) % 3);
  ChunkBuilder s0(Type::kByteArray, CompressionCodec::kSnappy);
  s0.Dictionary(3, PlainStrings({"R", "A", "N"}))
      .DataV1(600, Encoding::kRleDictionary, Levels(def0, 1), DictIndices(idx0, 3))
      .DataV1(400, Encoding::kRleDictionary, Levels(def1, 1), DictIndices(idx1, 3));
  ChunkBuilder d0(Type::kInt64, CompressionCodec::kSnappy);
  d0.Dictionary(3, Plain<int64_t>(dict_d0))
      .DataV1(600, Encoding::kRleDictionary, Levels(def0, 1), DictIndices(didx0, 3))
      .DataV1(400, Encoding::kRleDictionary, Levels(def1, 1), DictIndices(didx1, 3));
  ChunkBuilder i0(Type::kInt32, CompressionCodec::kSnappy);
  i0.DataV1(1000, Encoding::kPlain, "", Plain<int32_t>(ints0));
  fb.AddRowGroup(1000, {s0, d0, i0});

  ChunkBuilder s1(Type::kByteArray);
  s1.DataV1(3, Encoding::kPlain, Levels({1, 0, 1}, 1), PlainStrings({"plain", "z"}));
  ChunkBuilder d1(Type::kInt64);
  d1.DataV1(3, Encoding::kPlain, Levels({0, 1, 1}, 1), Plain<int64_t>({7, -8}));
  ChunkBuilder i1(Type::kInt32);
  i1.DataV1(3, Encoding::kPlain, "", Plain<int32_t>({1, 2, 3}));
  fb.AddRowGroup(3, {s1, d1, i1});
  expected.insert(expected.end(), {"plain/NULL/1", "NULL/0.07/2", "z/-0.08/3"});

  ChunkBuilder s2(Type::kByteArray, CompressionCodec::kGzip);
  s2.Dictionary(2, PlainStrings({"a much longer dictionary entry", "Q"}))
      .DataV1(4, Encoding::kRleDictionary, Levels({1, 1, 1, 1}, 1), DictIndices({1, 0, 1, 1}, 2));
  ChunkBuilder d2(Type::kInt64, CompressionCodec::kGzip);
  d2.Dictionary(1, Plain<int64_t>({12345}))
      .DataV1(4, Encoding::kRleDictionary, Levels({1, 1, 0, 1}, 1), DictIndices({0, 0, 0}, 1));
  ChunkBuilder i2(Type::kInt32, CompressionCodec::kGzip);
  i2.DataV1(4, Encoding::kPlain, "", Plain<int32_t>({-1, -2, -3, -4}));
  fb.AddRowGroup(4, {s2, d2, i2});
  expected.insert(expected.end(), {"Q/123.45/-1", "a much longer dictionary entry/123.45/-2",
                                   "Q/NULL/-3", "Q/123.45/-4"});
  std::string file = fb.Finish();
  for (int64_t batch : {1, 7, 599, 600, 601, 8192}) {
    EXPECT_THAT(ReadRows(file, batch), ::testing::Optional(expected)) << "batch " << batch;
  }
}

TEST(ReaderScanPaths, EmptyDictionaryPageAndAllNullPage) {
  FileBuilder fb({Root(1), StringLeaf("s")});
  ChunkBuilder s(Type::kByteArray);
  s.Dictionary(0, "").DataV1(3, Encoding::kRleDictionary, Levels({0, 0, 0}, 1), "");
  fb.AddRowGroup(3, {s});
  EXPECT_THAT(ReadRows(fb.Finish(), 2), ::testing::Optional(Strings{"NULL", "NULL", "NULL"}));
}

TEST(ReaderScanPaths, DictionaryErrorsSurfaceWhenTheRowsAreRead) {
  // Index 3 of a 2-entry string dictionary, in the second batch.
  FileBuilder fb({Root(1), StringLeaf("s", FR::kRequired)});
  ChunkBuilder s(Type::kByteArray);
  s.Dictionary(2, PlainStrings({"a", "b"}))
      .DataV1(4, Encoding::kRleDictionary, "", DictIndices({0, 1, 0, 3}, 4));
  fb.AddRowGroup(4, {s});
  EXPECT_THAT(ReadRows(fb.Finish(), 2),
              IsErrorWith(StatusCode::kCorrupt, "dictionary index 3 is out of range"));
  // Indices that end early.
  FileBuilder fb2({Root(1), StringLeaf("s", FR::kRequired)});
  ChunkBuilder t(Type::kByteArray);
  t.Dictionary(2, PlainStrings({"a", "b"}))
      .DataV1(20, Encoding::kRleDictionary, "", DictIndices({0, 1, 0}, 2));
  fb2.AddRowGroup(20, {t});
  EXPECT_THAT(ReadRows(fb2.Finish(), 8), IsError(StatusCode::kCorrupt));
}

TEST(ReaderScanPaths, PageIndexSkipsValuesOfADictionaryPage) {
  // One dictionary page of 12 rows on column b; column a's page index selects rows 4..7,
  // so the indices of rows 0..3 are skipped before decoding.
  FileBuilder fb({Root(2), Leaf("a", Type::kInt64, FR::kRequired), StringLeaf("b")});
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
  b.Dictionary(3, PlainStrings({"x", "yy", "a value longer than sixteen bytes"}));
  b.DataV1(12, Encoding::kRleDictionary, Levels({1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1}, 1),
           DictIndices({0, 1, 2, 0, 1, 2, 0, 1, 2, 0}, 3));
  fb.AddRowGroup(12, {a, b});
  fb.AddOffsetIndex(0, a, {0, 4, 8});
  fb.AddColumnIndex(0, ci);
  fb.AddOffsetIndex(1, b, {0});
  using Op = ColumnPredicate::Op;
  EXPECT_THAT(
      ReadRows(fb.Finish(), 3, {{0, Op::kEq, {Scalar::I64(5)}}}),
      ::testing::Optional(Strings{"4/x", "5/yy", "6/NULL", "7/a value longer than sixteen bytes"}));
}

// 32 rows in one page per column: a = row (int32), d = row as decimal(15,2) units (NULL
// at row 28), s = "v<row>",
// b = row % 3 == 0, i8 = row - 16 (int8).
std::string RowFilterFile() {
  SchemaElement i8 = Leaf("i8", Type::kInt32, FR::kRequired);
  i8.converted_type = ConvertedType::kInt8;
  FileBuilder fb({Root(5), Leaf("a", Type::kInt32, FR::kRequired), DecimalLeaf("d", Type::kInt64),
                  StringLeaf("s", FR::kRequired), Leaf("b", Type::kBoolean, FR::kRequired), i8});
  std::vector<int32_t> a, small;
  std::vector<int64_t> d;
  std::vector<int16_t> def;
  std::vector<std::string> s;
  std::vector<uint8_t> b;
  for (int i = 0; i < 32; ++i) {
    a.push_back(i);
    small.push_back(i - 16);
    def.push_back(i == 28 ? 0 : 1);
    if (i != 28) d.push_back(i * 100);
    s.push_back("v" + std::to_string(i));
    b.push_back(i % 3 == 0);
  }
  std::vector<std::string_view> views(s.begin(), s.end());
  ChunkBuilder ca(Type::kInt32), cd(Type::kInt64), cs(Type::kByteArray), cb(Type::kBoolean),
      c8(Type::kInt32);
  ca.DataV1(32, Encoding::kPlain, "", Plain<int32_t>(a));
  cd.DataV1(32, Encoding::kPlain, Levels(def, 1), Plain<int64_t>(d));
  cs.DataV1(32, Encoding::kPlain, "", PlainStrings(views));
  cb.DataV1(32, Encoding::kPlain, "", PlainBools(b));
  c8.DataV1(32, Encoding::kPlain, "", Plain<int32_t>(small));
  fb.AddRowGroup(32, {ca, cd, cs, cb, c8});
  return fb.Finish();
}

std::string RowOf(int i) {
  std::string d = i == 28 ? "NULL" : std::to_string(i) + ".00";
  return std::to_string(i) + "/" + d + "/v" + std::to_string(i) + "/" + (i % 3 == 0 ? "t" : "f") +
         "/" + std::to_string(i - 16);
}

Strings RowsOf(std::vector<int> rows) {
  Strings out;
  for (int i : rows) out.push_back(RowOf(i));
  return out;
}

TEST(ReaderScanPaths, RowFilterDropsRowsOfSelectiveBatches) {
  using Op = ColumnPredicate::Op;
  const std::string file = RowFilterFile();
  const std::vector<int> all = [] {
    std::vector<int> v;
    for (int i = 0; i < 32; ++i) v.push_back(i);
    return v;
  }();
  // Batches of 8: [0, 8), [16, 24) and [24, 32) have no match and are skipped; [8, 16)
  // keeps its 2 matches.
  std::vector<ColumnPredicate> range = {{0, Op::kGe, {Scalar::I32(10)}},
                                        {0, Op::kLt, {Scalar::I32(12)}}};
  std::vector<int64_t> sizes;
  EXPECT_THAT(ReadRows(file, 8, range, true, &sizes), ::testing::Optional(RowsOf({10, 11})));
  EXPECT_EQ(sizes, (std::vector<int64_t>{2}));
  // Without filter_rows every row comes back.
  EXPECT_THAT(ReadRows(file, 8, range, false), ::testing::Optional(RowsOf(all)));
  // A NULL in the filtered column fails the comparison: batch [24, 32), with the NULL at
  // row 28, has no match.
  Scalar two = Scalar::Make(Decimal(15, 2), Int128{200});
  EXPECT_THAT(ReadRows(file, 8, {{1, Op::kLe, {two}}}, true),
              ::testing::Optional(RowsOf({0, 1, 2})));
  // More than three quarters passing: the batch is returned whole ([0, 8)); a batch with
  // a NULL is always compacted to its matches.
  Scalar six = Scalar::Make(Decimal(15, 2), Int128{600});
  EXPECT_THAT(ReadRows(file, 8, {{1, Op::kLe, {six}}}, true),
              ::testing::Optional(RowsOf({0, 1, 2, 3, 4, 5, 6, 7})));
  Scalar thirty = Scalar::Make(Decimal(15, 2), Int128{3000});
  EXPECT_THAT(ReadRows(file, 8, {{1, Op::kGe, {thirty}}}, true),
              ::testing::Optional(RowsOf({30, 31})));
  // Equality on a decimal, a batch of 32 with a NULL.
  EXPECT_THAT(ReadRows(file, 32, {{1, Op::kEq, {two}}}, true), ::testing::Optional(RowsOf({2})));
  // Batches of 4 rows: one match in [0, 4); [28, 32) has the NULL.
  EXPECT_THAT(ReadRows(file, 4, {{1, Op::kEq, {two}}}, true), ::testing::Optional(RowsOf({2})));
  // Int8 column: a constant in range, and constants beyond int8 in both directions.
  sizes.clear();
  EXPECT_THAT(ReadRows(file, 16, {{4, Op::kGt, {Scalar::I32(14)}}}, true, &sizes),
              ::testing::Optional(RowsOf({31})));
  EXPECT_EQ(sizes, (std::vector<int64_t>{1}));
  EXPECT_THAT(ReadRows(file, 8, {{4, Op::kLt, {Scalar::I32(1000)}}}, true),
              ::testing::Optional(RowsOf(all)));
  EXPECT_THAT(ReadRows(file, 8, {{4, Op::kGe, {Scalar::I32(1000)}}}, true),
              ::testing::Optional(RowsOf({})));
  // Strings compare for equality; IN on integers too.
  EXPECT_THAT(ReadRows(file, 8, {{2, Op::kEq, {Scalar::Str("v3")}}}, true),
              ::testing::Optional(RowsOf({3})));
  EXPECT_THAT(ReadRows(file, 8, {{2, Op::kIn, {Scalar::Str("v30"), Scalar::Str("v1")}}}, true),
              ::testing::Optional(RowsOf({1, 30})));
  EXPECT_THAT(ReadRows(file, 8, {{0, Op::kIn, {Scalar::I32(3)}}}, true),
              ::testing::Optional(RowsOf({3})));
  EXPECT_THAT(
      ReadRows(file, 8, {{0, Op::kIn, {Scalar::I32(30), Scalar::I32(3), Scalar::I32(99)}}}, true),
      ::testing::Optional(RowsOf({3, 30})));
  // Every column type read for the passing rows only: strings, booleans, int8, decimals
  // (with the NULL at row 28).
  EXPECT_THAT(ReadRows(file, 16, {{0, Op::kEq, {Scalar::I32(9)}}}, true),
              ::testing::Optional(RowsOf({9})));
  EXPECT_THAT(
      ReadRows(file, 16, {{0, Op::kGe, {Scalar::I32(27)}}, {0, Op::kLt, {Scalar::I32(30)}}}, true),
      ::testing::Optional(RowsOf({27, 28, 29})));
}

}  // namespace
}  // namespace floe::parquet
