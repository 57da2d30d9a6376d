// Reading part of a row group (ReadRequest::row_group_rows): how scan partitions share a
// large row group. The rows read are exactly the slice's, whatever the page boundaries,
// with the pages found through the offset index or, without it, through the page headers;
// with predicates and row filters; and bad slices are errors.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/batch/value_format.h"
#include "floe/format/parquet/reader.h"
#include "floe/format/parquet/tests/reader_file_builder.h"
#include "floe/format/parquet/tests/writer_test_util.h"
#include "floe/testing/matchers.h"

namespace floe::parquet {
namespace {

using floe::testing::IsErrorWith;
using Strings = std::vector<std::string>;
using Rows = std::vector<std::pair<int64_t, int64_t>>;

constexpr int64_t kRows = 5000;

// id (required int64), s (nullable string, 37 distinct values: dictionary pages), v
// (nullable double, PLAIN), in small pages so that every row group holds many.
Result<std::string> WriteFile(int data_page_version, int64_t row_group_max_rows) {
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{Field("id", Int64(), false), Field("s", String()), Field("v", Float64())});
  std::vector<Scalar> ids, strings, doubles;
  for (int64_t i = 0; i < kRows; ++i) {
    ids.push_back(Scalar::I64(i));
    strings.push_back(i % 11 == 0 ? Scalar::Null(String())
                                  : Scalar::Str("s" + std::to_string(i % 37)));
    doubles.push_back(i % 7 == 0 ? Scalar::Null(Float64()) : Scalar::F64(i * 0.5));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr a, testing::FromScalars(Int64(), ids));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr b, testing::FromScalars(String(), strings));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr c, testing::FromScalars(Float64(), doubles));
  FLOE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(schema, kRows, {a, b, c}));
  WriterOptions options;
  options.page_size_bytes = 1024;
  options.data_page_version = data_page_version;
  options.row_group_max_rows = row_group_max_rows;
  options.compression = "snappy";
  FLOE_ASSIGN_OR_RAISE(testing::WrittenFile file, testing::WriteBatches(schema, {batch}, options));
  return std::move(file.bytes);
}

struct Read {
  std::optional<std::vector<int>> row_groups;  // nullopt: the whole file
  Rows rows;
  std::vector<ColumnPredicate> predicates;
  bool filter_rows = false;
  bool use_page_index = true;
  std::vector<int> columns = {0, 1, 2};
  int64_t batch_size = 333;
};

// Rows `rows` of row groups `row_groups`, every column.
Read Part(std::vector<int> row_groups, Rows rows) {
  Read r;
  r.row_groups = std::move(row_groups);
  r.rows = std::move(rows);
  return r;
}

Result<Strings> ReadRows(const std::string& bytes, const Read& r) {
  ReaderOptions options;
  options.batch_size = r.batch_size;
  options.use_page_index = r.use_page_index;
  FLOE_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::Open(testing::FileOf(bytes), options));
  ReadRequest request;
  request.columns = r.columns;
  request.row_groups = r.row_groups;
  request.row_group_rows = r.rows;
  request.predicates = r.predicates;
  request.filter_rows = r.filter_rows;
  FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(request));
  Strings out;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (!batch) break;
    FLOE_RETURN_NOT_OK(testing::AppendRowTexts(*batch, &out));
  }
  return out;
}

// Rows [begin, end) of the whole file, read without slices.
Strings Expected(const Strings& all, int64_t begin, int64_t end) {
  return Strings(all.begin() + begin, all.begin() + end);
}

TEST(ReaderRowRangeTest, SliceReadsExactlyItsRowsWithAndWithoutTheOffsetIndex) {
  for (int version : {1, 2}) {
    ASSERT_OK_AND_ASSIGN(std::string bytes, WriteFile(version, kRows));
    ASSERT_OK_AND_ASSIGN(FileMetaData md, testing::DecodeFileFooter(bytes));
    ASSERT_EQ(md.row_groups.size(), 1u);
    ASSERT_TRUE(md.row_groups[0].columns[0].offset_index_offset.has_value());
    ASSERT_OK_AND_ASSIGN(Strings all, ReadRows(bytes, Read{}));
    ASSERT_EQ(all.size(), static_cast<size_t>(kRows));
    ASSERT_EQ(all[11], "11/NULL/5.5");
    for (bool index : {true, false}) {
      for (auto [begin, end] : Rows{{0, 1},
                                    {0, 2500},
                                    {2500, kRows},
                                    {1, kRows - 1},
                                    {1234, 1235},
                                    {1000, 4321},
                                    {0, kRows},
                                    {4999, 5000}}) {
        for (int64_t batch_size : {1, 333, 8192}) {
          SCOPED_TRACE(::testing::Message() << "v" << version << " index " << index << " rows ["
                                            << begin << ", " << end << ") batch " << batch_size);
          Read r;
          r.row_groups = {0};
          r.rows = {{begin, end}};
          r.use_page_index = index;
          r.batch_size = batch_size;
          ASSERT_OK_AND_ASSIGN(Strings got, ReadRows(bytes, r));
          EXPECT_EQ(got, Expected(all, begin, end));
        }
      }
    }
  }
}

TEST(ReaderRowRangeTest, SlicesOfSeveralRowGroupsAndPartitionsCoverTheFileOnce) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, WriteFile(1, 2000));  // 2000 + 2000 + 1000 rows
  ASSERT_OK_AND_ASSIGN(FileMetaData md, testing::DecodeFileFooter(bytes));
  ASSERT_EQ(md.row_groups.size(), 3u);
  ASSERT_OK_AND_ASSIGN(Strings all, ReadRows(bytes, Read{}));
  // Three partitions' shares, as the planner cuts them: row group 1 is split.
  const Read first = Part({0, 1}, {{0, 2000}, {0, 700}});
  const Read second = Part({1}, {{700, 2000}});
  const Read third = Part({2}, {{0, 1000}});
  Strings got;
  for (const Read& r : {first, second, third}) {
    ASSERT_OK_AND_ASSIGN(Strings part, ReadRows(bytes, r));
    got.insert(got.end(), part.begin(), part.end());
  }
  EXPECT_EQ(got, all);
  // Only one column, and the string column alone (its pages end elsewhere).
  Read strings = Part({1}, {{700, 2000}});
  strings.columns = {1};
  ASSERT_OK_AND_ASSIGN(Strings s, ReadRows(bytes, strings));
  ASSERT_EQ(s.size(), 1300u);
  EXPECT_EQ(s.front(), all[2700].substr(all[2700].find('/') + 1,
                                        all[2700].rfind('/') - all[2700].find('/') - 1));
}

TEST(ReaderRowRangeTest, PredicatesAndRowFiltersApplyWithinTheSlice) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, WriteFile(1, kRows));
  ASSERT_OK_AND_ASSIGN(Strings all, ReadRows(bytes, Read{}));
  for (bool index : {true, false}) {
    SCOPED_TRACE(index);
    // id >= 3000 prunes pages through the column index; the slice ends at 3500.
    Read r = Part({0}, {{1000, 3500}});
    r.predicates = {ColumnPredicate{0, ColumnPredicate::Op::kGe, {Scalar::I64(3000)}}};
    r.use_page_index = index;
    ASSERT_OK_AND_ASSIGN(Strings got, ReadRows(bytes, r));
    // The reader returns a superset of the matches, but only rows of the slice.
    ASSERT_FALSE(got.empty());
    for (const std::string& row : got) {
      const int64_t id = std::stoll(row.substr(0, row.find('/')));
      EXPECT_GE(id, 1000);
      EXPECT_LT(id, 3500);
    }
    EXPECT_EQ(got.back(), all[3499]);
    // Row filters drop the failing rows: exactly the matches of the slice remain.
    r.predicates = {ColumnPredicate{1, ColumnPredicate::Op::kEq, {Scalar::Str("s5")}}};
    r.filter_rows = true;
    ASSERT_OK_AND_ASSIGN(got, ReadRows(bytes, r));
    Strings want;
    for (int64_t i = 1000; i < 3500; ++i) {
      if (i % 37 == 5 && i % 11 != 0) want.push_back(all[static_cast<size_t>(i)]);
    }
    EXPECT_EQ(got, want);
  }
}

TEST(ReaderRowRangeTest, BadSlicesAreErrors) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, WriteFile(1, kRows));
  EXPECT_THAT(ReadRows(bytes, Part({0}, {{10, 10}})),
              IsErrorWith(StatusCode::kInvalidArgument, "rows [10, 10) of row group 0"));
  EXPECT_THAT(ReadRows(bytes, Part({0}, {{0, kRows + 1}})),
              IsErrorWith(StatusCode::kInvalidArgument, "which has 5000 rows"));
  EXPECT_THAT(ReadRows(bytes, Part({0}, {{0, 1}, {1, 2}})),
              IsErrorWith(StatusCode::kInvalidArgument, "2 row ranges for 1 row groups"));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(testing::FileOf(bytes)));
  ReadRequest request;
  request.row_group_rows = {{0, 1}};
  EXPECT_THAT(reader->Read(request),
              IsErrorWith(StatusCode::kInvalidArgument, "row ranges without their row groups"));
}

TEST(ReaderRowRangeTest, NestedColumnsCannotBeSliced) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("l", List(Int64()))});
  ASSERT_OK_AND_ASSIGN(ArrayPtr l, Array::MakeNull(List(Int64()), 1));
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 1, {l}));
  ASSERT_OK_AND_ASSIGN(testing::WrittenFile file, testing::WriteBatches(schema, {batch}));
  Read r = Part({0}, {{0, 1}});
  r.columns = {0};
  EXPECT_THAT(ReadRows(file.bytes, r),
              IsErrorWith(StatusCode::kInvalidArgument, "column 'l' is nested"));
}

// A chunk whose pages do not add up to the row group's rows is corrupt, found while
// locating the slice's pages from their headers.
TEST(ReaderRowRangeTest, PagesThatDoNotAddUpAreCorrupt) {
  using namespace floe::parquet::testing;  // NOLINT(build/namespaces)
  FileBuilder fb({Root(1), Leaf("a", Type::kInt64, FieldRepetitionType::kRequired)});
  ChunkBuilder a(Type::kInt64);
  a.DataV1(4, Encoding::kPlain, "", Plain<int64_t>({1, 2, 3, 4}));
  fb.AddRowGroup(6, {a});  // the footer says 6 rows, the page holds 4
  std::string bytes = fb.Finish();
  Read r = Part({0}, {{1, 3}});
  r.use_page_index = false;
  r.columns = {0};
  EXPECT_THAT(ReadRows(bytes, r),
              IsErrorWith(StatusCode::kCorrupt, "the data pages hold 4 rows, the row group 6"));
}

}  // namespace
}  // namespace floe::parquet
