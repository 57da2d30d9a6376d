// Hostile input: truncated files, bad magic, lying footers, page headers and levels.
// Every case must end in a clear error (never a crash, hang or huge allocation).

#include <random>
#include <string>
#include <vector>

#include "floe/format/parquet/reader.h"
#include "floe/format/parquet/tests/reader_file_builder.h"
#include "floe/testing/matchers.h"

namespace floe::parquet {
namespace {

using namespace floe::parquet::testing;  // NOLINT(build/namespaces)
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using FR = FieldRepetitionType;

// Opens and reads everything; returns the first error.
Status ReadAll(const std::string& bytes, int64_t batch_size = 3) {
  ReaderOptions options;
  options.batch_size = batch_size;
  FLOE_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::Open(FileOf(bytes), options));
  FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read({}));
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (!batch) return Status::OK();
    for (const ArrayPtr& c : batch->columns()) {
      // The reader does not check that strings are UTF-8 (a consumer's choice); every
      // other invariant must hold.
      Status st = c->ValidateFull();
      if (!st.ok() && st.message().find("UTF-8") == std::string::npos) return st;
    }
  }
}

// A small valid file: a dictionary-encoded string column, a zstd int64 column and a
// list<int32> column.
std::string ValidFile(CompressionCodec codec = CompressionCodec::kZstd) {
  SchemaElement s = Leaf("s", Type::kByteArray);
  s.converted_type = ConvertedType::kUtf8;
  FileBuilder fb({Root(3), s, Leaf("i", Type::kInt64, FR::kRequired),
                  Group("l", FR::kOptional, 1, ConvertedType::kList),
                  Group("list", FR::kRepeated, 1), Leaf("element", Type::kInt32)});
  ChunkBuilder cs(Type::kByteArray, codec);
  cs.Dictionary(2, PlainStrings({"alpha", "beta"}))
      .DataV1(4, Encoding::kRleDictionary, Levels({1, 0, 1, 1}, 1), DictIndices({1, 0, 1}, 2));
  ChunkBuilder ci(Type::kInt64, codec);
  ci.DataV1(4, Encoding::kPlain, "", Plain<int64_t>({1, 2, 3, 4}));
  ChunkBuilder cl(Type::kInt32, codec);
  cl.DataV1(6, Encoding::kPlain, Levels({0, 1, 0, 0, 0, 1}, 1) + Levels({3, 3, 0, 1, 3, 2}, 2),
            Plain<int32_t>({5, 6, 7}));
  fb.AddRowGroup(4, {cs, ci, cl});
  return fb.Finish();
}

TEST(ReaderHostile, ValidFileReads) { EXPECT_OK(ReadAll(ValidFile())); }

TEST(ReaderHostile, TruncatedAtEveryCutPoint) {
  const std::string file = ValidFile();
  for (size_t cut = 0; cut < file.size(); ++cut) {
    Status st = ReadAll(file.substr(0, cut));
    ASSERT_FALSE(st.ok()) << "cut at " << cut;
    EXPECT_TRUE(st.code() == StatusCode::kCorrupt || st.code() == StatusCode::kIOError)
        << st.ToString();
    EXPECT_NE(st.message().find("test.parquet"), std::string::npos) << st.ToString();
  }
}

TEST(ReaderHostile, BadMagic) {
  std::string file = ValidFile();
  std::string head = file;
  head[0] = 'X';
  EXPECT_THAT(ReadAll(head), IsErrorWith(StatusCode::kCorrupt, "bad magic at byte offset 0"));
  std::string tail = file;
  tail.back() = 'X';
  EXPECT_THAT(ReadAll(tail), IsError(StatusCode::kCorrupt));
  EXPECT_THAT(ReadAll("PAR1"), IsErrorWith(StatusCode::kCorrupt, "too small"));
}

TEST(ReaderHostile, FooterLengthLargerThanFile) {
  std::string file = ValidFile();
  size_t at = file.size() - 8;
  for (uint32_t len :
       {0x7fffffffu, static_cast<uint32_t>(file.size()), static_cast<uint32_t>(file.size() - 9)}) {
    std::string bad = file;
    std::memcpy(bad.data() + at, &len, 4);
    EXPECT_THAT(ReadAll(bad), IsError(StatusCode::kCorrupt)) << len;
  }
}

// A file whose only column chunk is the given pages.
std::string OneColumn(SchemaElement leaf, int64_t rows, const ChunkBuilder& chunk) {
  FileBuilder fb({Root(1), std::move(leaf)});
  fb.AddRowGroup(rows, {chunk});
  return fb.Finish();
}

TEST(ReaderHostile, PageHeaderClaimsTwoGigabytes) {
  PageHeader h;
  h.type = PageType::kDataPage;
  h.uncompressed_page_size = 0x7fffffff;
  h.compressed_page_size = 0x7fffffff;
  DataPageHeader d;
  d.num_values = 3;
  h.data_page_header = d;
  ChunkBuilder c(Type::kInt64);
  c.pages.push_back(Page(h, Plain<int64_t>({1, 2, 3})));
  c.num_values = 3;
  EXPECT_THAT(ReadAll(OneColumn(Leaf("v", Type::kInt64, FR::kRequired), 3, c)),
              IsErrorWith(StatusCode::kCorrupt, "compressed bytes, but only"));
  // Sizes that fit the chunk but an uncompressed size that cannot be had.
  h.compressed_page_size = 24;
  ChunkBuilder c2(Type::kInt64, CompressionCodec::kSnappy);
  c2.pages.push_back(Page(h, Plain<int64_t>({1, 2, 3})));
  c2.num_values = 3;
  EXPECT_THAT(ReadAll(OneColumn(Leaf("v", Type::kInt64, FR::kRequired), 3, c2)),
              IsErrorWith(StatusCode::kCorrupt, "uncompressed bytes"));
}

TEST(ReaderHostile, DecompressedSizeLies) {
  for (CompressionCodec codec :
       {CompressionCodec::kSnappy, CompressionCodec::kZstd, CompressionCodec::kGzip,
        CompressionCodec::kLz4Raw, CompressionCodec::kBrotli, CompressionCodec::kUncompressed}) {
    SCOPED_TRACE(static_cast<int>(codec));
    std::string raw = Plain<int64_t>({1, 2, 3});
    std::string body = Compress(codec, raw);
    PageHeader h;
    h.type = PageType::kDataPage;
    h.uncompressed_page_size = static_cast<int32_t>(raw.size()) + 100;
    h.compressed_page_size = static_cast<int32_t>(body.size());
    DataPageHeader d;
    d.num_values = 3;
    h.data_page_header = d;
    ChunkBuilder c(Type::kInt64, codec);
    c.pages.push_back(Page(h, body));
    c.num_values = 3;
    Status st = ReadAll(OneColumn(Leaf("v", Type::kInt64, FR::kRequired), 3, c));
    EXPECT_THAT(st, IsError(StatusCode::kCorrupt));
    EXPECT_NE(st.message().find("column 'v', row group 0, page 0 at byte offset 4"),
              std::string::npos)
        << st.ToString();
  }
}

TEST(ReaderHostile, DictionaryIndexOutOfRange) {
  ChunkBuilder c(Type::kInt64);
  c.Dictionary(2, Plain<int64_t>({10, 20}))
      .DataV1(3, Encoding::kRleDictionary, "", DictIndices({0, 1, 3}, 4));
  EXPECT_THAT(ReadAll(OneColumn(Leaf("v", Type::kInt64, FR::kRequired), 3, c)),
              IsErrorWith(StatusCode::kCorrupt, "dictionary index 3 is out of range"));
  ChunkBuilder no_dict(Type::kInt64);
  no_dict.DataV1(3, Encoding::kRleDictionary, "", DictIndices({0, 1, 1}, 2));
  EXPECT_THAT(ReadAll(OneColumn(Leaf("v", Type::kInt64, FR::kRequired), 3, no_dict)),
              IsErrorWith(StatusCode::kCorrupt, "without a dictionary"));
}

TEST(ReaderHostile, LevelsRunOut) {
  ChunkBuilder c(Type::kInt64);
  // The page claims 20 values but its levels (one RLE run) encode 16.
  c.DataV1(20, Encoding::kPlain, Levels(std::vector<int16_t>(16, 1), 1),
           Plain<int64_t>(std::vector<int64_t>(20, 1)));
  EXPECT_THAT(ReadAll(OneColumn(Leaf("v", Type::kInt64), 20, c)),
              IsErrorWith(StatusCode::kCorrupt, "ran out"));
  // Levels say 3 values are present, the page holds 2.
  ChunkBuilder few(Type::kInt64);
  few.DataV1(3, Encoding::kPlain, Levels({1, 1, 1}, 1), Plain<int64_t>({1, 2}));
  EXPECT_THAT(ReadAll(OneColumn(Leaf("v", Type::kInt64), 3, few)), IsError(StatusCode::kCorrupt));
  // A definition level above the maximum.
  FileBuilder fb({Root(1), Group("g", FR::kOptional, 1), Leaf("v", Type::kInt64)});
  ChunkBuilder high(Type::kInt64);
  high.DataV1(2, Encoding::kPlain, Levels({2, 3}, 2), Plain<int64_t>({1, 2}));
  fb.AddRowGroup(2, {high});
  EXPECT_THAT(ReadAll(fb.Finish()),
              IsErrorWith(StatusCode::kCorrupt, "exceeds the column's maximum"));
  // Fewer rows in the chunk than the row group claims.
  ChunkBuilder short_chunk(Type::kInt64);
  short_chunk.DataV1(2, Encoding::kPlain, "", Plain<int64_t>({1, 2}));
  EXPECT_THAT(ReadAll(OneColumn(Leaf("v", Type::kInt64, FR::kRequired), 3, short_chunk)),
              IsErrorWith(StatusCode::kCorrupt, "rows where 3 were expected"));
}

TEST(ReaderHostile, RecordStartingWithNonZeroRepetition) {
  FileBuilder fb({Root(1), Group("l", FR::kOptional, 1, ConvertedType::kList),
                  Group("list", FR::kRepeated, 1), Leaf("element", Type::kInt32)});
  ChunkBuilder c(Type::kInt32);
  c.DataV1(2, Encoding::kPlain, Levels({1, 0}, 1) + Levels({3, 3}, 2), Plain<int32_t>({1, 2}));
  fb.AddRowGroup(1, {c});
  EXPECT_THAT(ReadAll(fb.Finish()), IsErrorWith(StatusCode::kCorrupt, "starts with repetition"));
}

TEST(ReaderHostile, ChunkOutsideTheFile) {
  FileBuilder fb({Root(1), Leaf("v", Type::kInt64, FR::kRequired)});
  fb.AddRowGroup(1,
                 {ChunkBuilder(Type::kInt64).DataV1(1, Encoding::kPlain, "", Plain<int64_t>({1}))});
  fb.metadata().row_groups[0].columns[0].meta_data->total_compressed_size = int64_t{1} << 40;
  EXPECT_THAT(ReadAll(fb.Finish()), IsErrorWith(StatusCode::kCorrupt, "outside the data area"));
  fb.metadata().row_groups[0].columns[0].meta_data->total_compressed_size = 10;
  fb.metadata().row_groups[0].columns[0].meta_data->data_page_offset = 2;
  EXPECT_THAT(ReadAll(fb.Finish()), IsErrorWith(StatusCode::kCorrupt, "outside the data area"));
}

TEST(ReaderHostile, SchemaLies) {
  FileBuilder fb({Root(5), Leaf("v", Type::kInt64, FR::kRequired)});
  EXPECT_THAT(ReadAll(fb.Finish()), IsErrorWith(StatusCode::kCorrupt, "claims 5 children"));
  FileBuilder fb2({Root(1), Leaf("v", Type::kInt64, FR::kRequired)});
  fb2.AddRowGroup(1, {});
  EXPECT_THAT(ReadAll(fb2.Finish()), IsErrorWith(StatusCode::kCorrupt, "has 0 columns"));
}

// A BSON annotation on fixed-length bytes (found by the fuzzer): the column would be
// read as variable-width values that were never decoded as such.
TEST(ReaderHostile, BsonOnFixedLengthBytes) {
  SchemaElement b = Leaf("b", Type::kFixedLenByteArray, FR::kRequired);
  b.type_length = 4;
  b.converted_type = ConvertedType::kBson;
  FileBuilder fb({Root(1), b});
  ChunkBuilder cb(Type::kFixedLenByteArray);
  cb.DataV1(2, Encoding::kPlain, "", "abcdefgh");
  fb.AddRowGroup(2, {cb});
  EXPECT_THAT(ReadAll(fb.Finish()), IsErrorWith(StatusCode::kCorrupt, "BSON annotation"));
}

// Random byte flips anywhere in the file: an error or a successful read, never a crash.
TEST(ReaderHostile, RandomCorruption) {
  for (CompressionCodec codec : {CompressionCodec::kUncompressed, CompressionCodec::kZstd}) {
    const std::string file = ValidFile(codec);
    std::mt19937 rng(42);
    for (int iter = 0; iter < 3000; ++iter) {
      std::string bad = file;
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        bad[rng() % bad.size()] = static_cast<char>(rng());
      }
      Status st = ReadAll(bad, 1 + static_cast<int64_t>(rng() % 4));
      if (!st.ok()) {
        EXPECT_TRUE(st.code() == StatusCode::kCorrupt || st.code() == StatusCode::kIOError ||
                    st.code() == StatusCode::kNotSupported)
            << st.ToString();
      }
    }
  }
}

}  // namespace
}  // namespace floe::parquet
