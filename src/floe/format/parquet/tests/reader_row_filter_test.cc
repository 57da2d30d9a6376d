// ReadRequest::filter_rows against a plain read of the same file: the columns the row
// filters read are decoded first and the others only for the rows that pass
// (ColumnChunkReader::ReadSelected), across dictionary and PLAIN pages (a fallback to
// PLAIN mid-chunk), v1 and v2 pages, NULLs, page boundaries inside batches, row groups,
// snappy, string and IN predicates, and rows the page index skips; filtered columns after
// the first decoded for the rows earlier filters passed only.

#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
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
using Op = ColumnPredicate::Op;
using Strings = std::vector<std::string>;

template <typename T>
std::string PlainOf(const std::vector<T>& v) {
  return Plain<T>(v);
}
template <>
std::string PlainOf<std::string>(const std::vector<std::string>& v) {
  std::vector<std::string_view> views(v.begin(), v.end());
  return PlainStrings(views);
}
template <>
std::string PlainOf<uint8_t>(const std::vector<uint8_t>& v) {
  return PlainBools(v);
}

// The pages of one flat column holding `rows` (nullopt is NULL): a page ends at each
// row of `cuts`; the first `dict_pages` pages are dictionary-encoded, the rest PLAIN;
// odd pages are v2 when `v2` is set. Returns the first row of each data page in `starts`.
template <typename T>
ChunkBuilder Column(Type type, const std::vector<std::optional<T>>& rows, bool optional,
                    std::vector<int> cuts, size_t dict_pages, bool v2, CompressionCodec codec,
                    std::vector<int64_t>* starts) {
  ChunkBuilder c(type, codec);
  cuts.push_back(static_cast<int>(rows.size()));
  std::vector<T> dict;
  auto index_of = [&](const T& v) {
    for (size_t i = 0; i < dict.size(); ++i) {
      if (dict[i] == v) return static_cast<int32_t>(i);
    }
    dict.push_back(v);
    return static_cast<int32_t>(dict.size() - 1);
  };
  // Dictionary entries come first, from the rows of the dictionary pages.
  std::vector<std::vector<int32_t>> indices(cuts.size());
  int begin = 0;
  for (size_t p = 0; p < cuts.size() && p < dict_pages; ++p) {
    for (int r = begin; r < cuts[p]; ++r) {
      if (rows[static_cast<size_t>(r)])
        indices[p].push_back(index_of(*rows[static_cast<size_t>(r)]));
    }
    begin = cuts[p];
  }
  if (!dict.empty()) c.Dictionary(static_cast<int32_t>(dict.size()), PlainOf(dict));
  begin = 0;
  for (size_t p = 0; p < cuts.size(); ++p) {
    const int end = cuts[p];
    if (end == begin) continue;
    starts->push_back(begin);
    std::vector<int16_t> def;
    std::vector<T> values;
    int32_t nulls = 0;
    for (int r = begin; r < end; ++r) {
      const auto& v = rows[static_cast<size_t>(r)];
      def.push_back(v ? 1 : 0);
      nulls += v ? 0 : 1;
      if (v) values.push_back(*v);
    }
    const bool dictionary = p < dict_pages && !dict.empty();
    const Encoding enc = dictionary ? Encoding::kRleDictionary : Encoding::kPlain;
    const std::string body =
        dictionary ? DictIndices(indices[p], static_cast<int32_t>(dict.size())) : PlainOf(values);
    const int32_t n = end - begin;
    if (v2 && p % 2 == 1) {
      c.DataV2(n, nulls, n, enc, "", optional ? LevelsV2(def, 1) : "", body);
    } else {
      c.DataV1(n, enc, optional ? Levels(def, 1) : "", body);
    }
    begin = end;
  }
  return c;
}

struct TestFile {
  std::string bytes;
  // Per row group, the rows of every column; the NULL rows of d and s.
  int64_t rows_per_group = 0;
  int groups = 0;
};

constexpr int kColumns = 9;

// Columns: id (int64, row number), k (int32, id % 97), flag (string "A"/"N"/"R"), d
// (decimal(15,2) on INT64, NULL every 7th row), s (string, NULL every 5th, long
// values), b (boolean, NULL every 11th), i8 (int8 on INT32), x (int64 dictionary), f
// (double).
TestFile MakeFile(uint32_t seed, int64_t rows, int groups, bool page_index) {
  std::mt19937 rng(seed);
  SchemaElement d = Leaf("d", Type::kInt64);
  d.converted_type = ConvertedType::kDecimal;
  d.precision = 15;
  d.scale = 2;
  SchemaElement s = Leaf("s", Type::kByteArray);
  s.converted_type = ConvertedType::kUtf8;
  SchemaElement flag = Leaf("flag", Type::kByteArray, FR::kRequired);
  flag.converted_type = ConvertedType::kUtf8;
  SchemaElement i8 = Leaf("i8", Type::kInt32, FR::kRequired);
  i8.converted_type = ConvertedType::kInt8;
  FileBuilder fb({Root(kColumns), Leaf("id", Type::kInt64, FR::kRequired),
                  Leaf("k", Type::kInt32, FR::kRequired), flag, d, s, Leaf("b", Type::kBoolean), i8,
                  Leaf("x", Type::kInt64, FR::kRequired), Leaf("f", Type::kDouble, FR::kRequired)});
  const char* flags[] = {"A", "N", "R"};
  for (int g = 0; g < groups; ++g) {
    std::vector<std::optional<int64_t>> id, dv, x;
    std::vector<std::optional<int32_t>> k, small;
    std::vector<std::optional<std::string>> fl, sv;
    std::vector<std::optional<uint8_t>> b;
    std::vector<std::optional<double>> f;
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t r = g * rows + i;
      id.push_back(r);
      k.push_back(static_cast<int32_t>(r % 97));
      fl.push_back(std::string(flags[rng() % 3]));
      dv.push_back(r % 7 == 3 ? std::nullopt
                              : std::optional<int64_t>(static_cast<int64_t>(rng() % 50)));
      sv.push_back(r % 5 == 1 ? std::nullopt
                              : std::optional<std::string>(
                                    rng() % 2 ? "v" + std::to_string(rng() % 9)
                                              : "a long string value of row " + std::to_string(r)));
      b.push_back(r % 11 == 4 ? std::nullopt : std::optional<uint8_t>(rng() % 2));
      small.push_back(static_cast<int32_t>(rng() % 200) - 100);
      x.push_back(static_cast<int64_t>(rng() % 13) * 1000003);
      f.push_back(static_cast<double>(rng() % 1000) / 8);
    }
    // Page cuts differ from column to column.
    auto cuts = [&](int n) {
      std::set<int> at;
      for (int i = 0; i < n; ++i) at.insert(1 + static_cast<int>(rng() % (rows - 1)));
      return std::vector<int>(at.begin(), at.end());
    };
    std::vector<std::vector<int64_t>> starts(kColumns);
    const auto snappy = CompressionCodec::kSnappy;
    const auto none = CompressionCodec::kUncompressed;
    std::vector<ChunkBuilder> chunks = {
        Column<int64_t>(Type::kInt64, id, false, cuts(5), 0, true, none, &starts[0]),
        Column<int32_t>(Type::kInt32, k, false, cuts(3), 2, false, snappy, &starts[1]),
        Column<std::string>(Type::kByteArray, fl, false, cuts(4), 2, true, snappy, &starts[2]),
        Column<int64_t>(Type::kInt64, dv, true, cuts(6), 3, true, none, &starts[3]),
        Column<std::string>(Type::kByteArray, sv, true, cuts(4), 1, true, snappy, &starts[4]),
        Column<uint8_t>(Type::kBoolean, b, true, cuts(2), 0, true, none, &starts[5]),
        Column<int32_t>(Type::kInt32, small, false, cuts(3), 1, false, none, &starts[6]),
        Column<int64_t>(Type::kInt64, x, false, cuts(2), 9, true, snappy, &starts[7]),
        Column<double>(Type::kDouble, f, false, cuts(1), 0, false, none, &starts[8]),
    };
    fb.AddRowGroup(rows, chunks);
    if (page_index) {
      for (int c = 0; c < kColumns; ++c)
        fb.AddOffsetIndex(c, chunks[static_cast<size_t>(c)], starts[static_cast<size_t>(c)]);
      ColumnIndex ci;
      const std::vector<int64_t>& st = starts[0];
      for (size_t p = 0; p < st.size(); ++p) {
        const int64_t lo = g * rows + st[p];
        const int64_t hi = g * rows + (p + 1 < st.size() ? st[p + 1] : rows) - 1;
        ci.null_pages.push_back(false);
        ci.min_values.push_back(Plain<int64_t>({lo}));
        ci.max_values.push_back(Plain<int64_t>({hi}));
      }
      ci.null_counts = std::vector<int64_t>(st.size(), 0);
      fb.AddColumnIndex(0, ci);
    }
  }
  return TestFile{fb.Finish(), rows, groups};
}

struct Read {
  Strings rows;
  std::vector<int64_t> ids;
};

Result<Read> ReadAll(const std::string& bytes, int64_t batch_size,
                     std::vector<ColumnPredicate> predicates, bool filter_rows,
                     std::optional<std::vector<int>> columns = std::nullopt) {
  ReaderOptions options;
  options.batch_size = batch_size;
  FLOE_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::Open(FileOf(bytes), options));
  ReadRequest request;
  request.columns = std::move(columns);
  request.predicates = std::move(predicates);
  request.filter_rows = filter_rows;
  FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(request));
  Read out;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (!batch) break;
    if (batch->num_rows() > batch_size || batch->num_rows() == 0) {
      return Status::Internal("batch of {} rows", batch->num_rows());
    }
    FLOE_RETURN_NOT_OK(AppendRowTexts(*batch, &out.rows));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      out.ids.push_back(static_cast<int64_t>(std::stoll(FormatValue(*batch->column(0), i))));
    }
  }
  return out;
}

// Checks a filtered read against the plain one: rows in file order, each equal to the
// plain read's row of the same id, and every row in `must` present.
void ExpectFilteredRead(const std::string& bytes, int64_t batch_size,
                        const std::vector<ColumnPredicate>& predicates,
                        const std::function<bool(const std::string&)>& matches,
                        std::optional<std::vector<int>> columns = std::nullopt) {
  SCOPED_TRACE(::testing::Message() << "batch_size " << batch_size);
  auto all = ReadAll(bytes, batch_size, predicates, false, columns);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  auto filtered = ReadAll(bytes, batch_size, predicates, true, columns);
  ASSERT_TRUE(filtered.ok()) << filtered.status().ToString();
  std::map<int64_t, int64_t> position;
  for (size_t i = 0; i < all->ids.size(); ++i) {
    position[all->ids[i]] = static_cast<int64_t>(i);
  }
  int64_t last = -1;
  std::set<int64_t> seen;
  for (size_t j = 0; j < filtered->ids.size(); ++j) {
    auto found = position.find(filtered->ids[j]);
    ASSERT_NE(found, position.end()) << filtered->rows[j];
    const int64_t at = found->second;
    ASSERT_GT(at, last) << filtered->rows[j];
    ASSERT_EQ(filtered->rows[j], all->rows[static_cast<size_t>(at)]);
    last = at;
    seen.insert(filtered->ids[j]);
  }
  int64_t expected = 0;
  for (size_t i = 0; i < all->rows.size(); ++i) {
    if (!matches(all->rows[i])) continue;
    ++expected;
    EXPECT_TRUE(seen.count(all->ids[i])) << "missing " << all->rows[i];
  }
  // Filtered batches where at most three quarters pass (or with a NULL in a filtered
  // column) are exact; the rest come back whole, so the filtered read is never smaller
  // than the matches.
  EXPECT_GE(static_cast<int64_t>(filtered->rows.size()), expected);
}

std::vector<std::string> Fields(const std::string& row) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (true) {
    size_t end = row.find('/', begin);
    out.push_back(row.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return out;
}

TEST(ReaderRowFilter, MatchesThePlainRead) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    for (bool page_index : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "seed " << seed << " page_index " << page_index);
      const TestFile file = MakeFile(seed, 300, 2, page_index);
      for (int64_t batch_size : {1, 7, 64, 1000}) {
        // A selective integer range (about a tenth of the rows).
        ExpectFilteredRead(file.bytes, batch_size, {{1, Op::kLt, {Scalar::I32(10)}}},
                           [](const std::string& r) { return std::stoi(Fields(r)[1]) < 10; });
        // Equality on a string column with dictionary and PLAIN pages (a third).
        ExpectFilteredRead(file.bytes, batch_size, {{2, Op::kEq, {Scalar::Str("R")}}},
                           [](const std::string& r) { return Fields(r)[2] == "R"; });
        // IN on strings (two thirds) and a range on another column.
        ExpectFilteredRead(
            file.bytes, batch_size,
            {{2, Op::kIn, {Scalar::Str("A"), Scalar::Str("N")}}, {1, Op::kGe, {Scalar::I32(40)}}},
            [](const std::string& r) {
              auto f = Fields(r);
              return (f[2] == "A" || f[2] == "N") && std::stoi(f[1]) >= 40;
            });
        // Nothing matches: every batch is skipped.
        ExpectFilteredRead(file.bytes, batch_size, {{2, Op::kEq, {Scalar::Str("Z")}}},
                           [](const std::string&) { return false; });
        // Every row matches.
        ExpectFilteredRead(file.bytes, batch_size, {{1, Op::kGe, {Scalar::I32(0)}}},
                           [](const std::string&) { return true; });
        // A filter on a nullable column: batches with a NULL there come back whole.
        ExpectFilteredRead(file.bytes, batch_size,
                           {{3, Op::kLt, {Scalar::Make(Decimal(15, 2), Int128{500})}}},
                           [](const std::string& r) {
                             auto f = Fields(r);
                             return f[3] != "NULL" && std::stod(f[3]) < 5.0;
                           });
        // An id range the page index narrows, with a string filter.
        ExpectFilteredRead(file.bytes, batch_size,
                           {{0, Op::kGe, {Scalar::I64(250)}},
                            {0, Op::kLt, {Scalar::I64(420)}},
                            {2, Op::kEq, {Scalar::Str("N")}}},
                           [](const std::string& r) {
                             auto f = Fields(r);
                             int64_t id = std::stoll(f[0]);
                             return id >= 250 && id < 420 && f[2] == "N";
                           });
        // A projection in another order, the filtered column not first.
        ExpectFilteredRead(
            file.bytes, batch_size, {{1, Op::kLt, {Scalar::I32(20)}}},
            [](const std::string& r) { return std::stoi(Fields(r)[2]) < 20; },
            std::vector<int>{0, 4, 1, 3, 5, 2});
      }
    }
  }
}

TEST(ReaderRowFilter, ExactOnSelectiveBatchesWithoutNullsInFilteredColumns) {
  const TestFile file = MakeFile(7, 200, 1, false);
  auto filtered = ReadAll(file.bytes, 50, {{2, Op::kEq, {Scalar::Str("R")}}}, true);
  ASSERT_TRUE(filtered.ok()) << filtered.status().ToString();
  auto all = ReadAll(file.bytes, 50, {}, false);
  ASSERT_TRUE(all.ok());
  Strings expected;
  for (const std::string& r : all->rows) {
    if (Fields(r)[2] == "R") expected.push_back(r);
  }
  EXPECT_EQ(filtered->rows, expected);
}

// Checks a filtered read as ExpectFilteredRead does; with batches of 64 rows or more it
// must also be exact: the predicates given here let at most three quarters of any such
// batch through, and a row with a NULL in a filtered column fails.
void ExpectExactRead(const std::string& bytes, int64_t batch_size,
                     const std::vector<ColumnPredicate>& predicates,
                     const std::function<bool(const std::string&)>& matches) {
  ExpectFilteredRead(bytes, batch_size, predicates, matches);
  if (batch_size < 64) return;
  SCOPED_TRACE(::testing::Message() << "batch_size " << batch_size);
  auto filtered = ReadAll(bytes, batch_size, predicates, true);
  ASSERT_TRUE(filtered.ok()) << filtered.status().ToString();
  auto all = ReadAll(bytes, batch_size, {}, false);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  Strings expected;
  for (const std::string& r : all->rows) {
    if (matches(r)) expected.push_back(r);
  }
  EXPECT_EQ(filtered->rows, expected);
}

TEST(ReaderRowFilter, LaterFilteredColumnsDecodeOnlyPassingRows) {
  for (uint32_t seed : {11u, 12u}) {
    for (bool page_index : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "seed " << seed << " page_index " << page_index);
      const TestFile file = MakeFile(seed, 300, 2, page_index);
      for (int64_t batch_size : {1, 5, 64, 1000}) {
        // k (no NULLs) first; d, with NULLs, is then read for the rows k passed only and
        // its NULL rows fail: the read is exact.
        ExpectExactRead(file.bytes, batch_size,
                        {{1, Op::kLt, {Scalar::I32(20)}},
                         {3, Op::kLt, {Scalar::Make(Decimal(15, 2), Int128{25})}}},
                        [](const std::string& r) {
                          auto f = Fields(r);
                          return std::stoi(f[1]) < 20 && f[3] != "NULL" && std::stod(f[3]) < 0.25;
                        });
        // Two filters on the column read second, a string filter on the first.
        ExpectExactRead(file.bytes, batch_size,
                        {{2, Op::kEq, {Scalar::Str("N")}},
                         {1, Op::kGe, {Scalar::I32(5)}},
                         {1, Op::kLt, {Scalar::I32(60)}}},
                        [](const std::string& r) {
                          auto f = Fields(r);
                          const int k = std::stoi(f[1]);
                          return f[2] == "N" && k >= 5 && k < 60;
                        });
        // A string column with NULLs read second (for the rows of a selective first
        // filter): its NULLs fail the IN.
        ExpectExactRead(file.bytes, batch_size,
                        {{1, Op::kLt, {Scalar::I32(50)}},
                         {4, Op::kIn, {Scalar::Str("v1"), Scalar::Str("v2"), Scalar::Str("v3")}}},
                        [](const std::string& r) {
                          auto f = Fields(r);
                          return std::stoi(f[1]) < 50 &&
                                 (f[4] == "v1" || f[4] == "v2" || f[4] == "v3");
                        });
        // Three columns; the filter order adapts to what each lets through (x first
        // later on), with the same rows.
        ExpectExactRead(file.bytes, batch_size,
                        {{1, Op::kLt, {Scalar::I32(80)}},
                         {2, Op::kIn, {Scalar::Str("A"), Scalar::Str("R")}},
                         {7, Op::kEq, {Scalar::I64(3 * 1000003)}}},
                        [](const std::string& r) {
                          auto f = Fields(r);
                          return std::stoi(f[1]) < 80 && (f[2] == "A" || f[2] == "R") &&
                                 std::stoll(f[7]) == 3 * 1000003;
                        });
        // Two string filters on one column read second: the column reader's verdicts hold
        // both (for dictionary and PLAIN pages, from the selected rows' values).
        ExpectExactRead(file.bytes, batch_size,
                        {{1, Op::kLt, {Scalar::I32(30)}},
                         {2, Op::kIn, {Scalar::Str("A"), Scalar::Str("R")}},
                         {2, Op::kEq, {Scalar::Str("R")}}},
                        [](const std::string& r) {
                          auto f = Fields(r);
                          return std::stoi(f[1]) < 30 && f[2] == "R";
                        });
        // The first filter drops every row: the others read nothing.
        ExpectExactRead(file.bytes, batch_size,
                        {{1, Op::kGt, {Scalar::I32(1000)}}, {7, Op::kGe, {Scalar::I64(0)}}},
                        [](const std::string&) { return false; });
      }
    }
  }
}

TEST(ReaderRowFilter, IntegerInLists) {
  const TestFile file = MakeFile(21, 300, 2, false);
  for (int64_t batch_size : {1, 64, 1000}) {
    // A short list with a NULL (which matches nothing) on int32.
    ExpectExactRead(file.bytes, batch_size,
                    {{1,
                      Op::kIn,
                      {Scalar::I32(3), Scalar::Null(Int32()), Scalar::I32(50), Scalar::I32(96),
                       Scalar::I32(3)}}},
                    [](const std::string& r) {
                      const int k = std::stoi(Fields(r)[1]);
                      return k == 3 || k == 50 || k == 96;
                    });
    // int8 with constants outside its range (they match nothing).
    ExpectExactRead(file.bytes, batch_size,
                    {{6,
                      Op::kIn,
                      {Scalar::I32(-100), Scalar::I32(7), Scalar::I32(99), Scalar::I32(300),
                       Scalar::I32(-1000)}}},
                    [](const std::string& r) {
                      const int v = std::stoi(Fields(r)[6]);
                      return v == -100 || v == 7 || v == 99;
                    });
    // A long list (searched) on int64, after a range on another column.
    std::vector<Scalar> list;
    std::set<int64_t> wanted;
    for (int64_t v : {0, 2, 4, 5, 7, 8, 10, 11, 12}) {
      list.push_back(Scalar::I64(v * 1000003));
      wanted.insert(v * 1000003);
    }
    list.push_back(Scalar::I64(-5));
    ExpectFilteredRead(file.bytes, batch_size,
                       {{0, Op::kGe, {Scalar::I64(100)}}, {7, Op::kIn, list}},
                       [&](const std::string& r) {
                         auto f = Fields(r);
                         return std::stoll(f[0]) >= 100 && wanted.count(std::stoll(f[7])) > 0;
                       });
    // A long list whose values span too much for a membership bitmap (searched instead).
    std::vector<Scalar> spread = list;
    std::set<int64_t> spread_wanted = wanted;
    spread.push_back(Scalar::I64(int64_t{1} << 40));
    spread_wanted.insert(int64_t{1} << 40);
    ExpectFilteredRead(file.bytes, batch_size, {{7, Op::kIn, spread}}, [&](const std::string& r) {
      return spread_wanted.count(std::stoll(Fields(r)[7])) > 0;
    });
    // A long list (a membership bitmap from its least value) on int32, negatives included.
    std::vector<Scalar> small;
    std::set<int> small_wanted;
    for (int v : {-7, -3, 0, 3, 9, 17, 33, 50, 64, 96, 97}) {
      small.push_back(Scalar::I32(v));
      small_wanted.insert(v);
    }
    ExpectExactRead(file.bytes, batch_size, {{1, Op::kIn, small}}, [&](const std::string& r) {
      return small_wanted.count(std::stoi(Fields(r)[1])) > 0;
    });
    // Only NULLs in the list: no row.
    ExpectExactRead(file.bytes, batch_size, {{1, Op::kIn, {Scalar::Null(Int32())}}},
                    [](const std::string&) { return false; });
    // A decimal IN over a column with NULLs (which fail).
    ExpectExactRead(
        file.bytes, batch_size,
        {{3,
          Op::kIn,
          {Scalar::Make(Decimal(15, 2), Int128{3}), Scalar::Make(Decimal(15, 2), Int128{17})}}},
        [](const std::string& r) {
          auto f = Fields(r);
          return f[3] == "0.03" || f[3] == "0.17";
        });
  }
}

// A join's keys as a bitmap: the rows of other keys are dropped, on columns of every
// integer width (the int8 column's keys reach past its range).
TEST(ReaderRowFilter, KeyBitmaps) {
  auto bitmap_of = [](const std::set<int64_t>& keys) {
    auto bitmap = std::make_shared<KeyBitmap>(*keys.begin(), *keys.rbegin());
    for (int64_t k : keys) bitmap->Add(k);
    return bitmap;
  };
  for (bool page_index : {false, true}) {
    const TestFile file = MakeFile(23, 300, 2, page_index);
    const std::set<int64_t> ids = {0, 5, 63, 64, 65, 127, 128, 299, 300, 301, 450, 599};
    const std::set<int64_t> ks = {-3, 0, 1, 50, 96, 200};
    const std::set<int64_t> x = {0, 2 * 1000003, 5 * 1000003, 12 * 1000003};
    for (int64_t batch_size : {1, 64, 1000}) {
      ExpectExactRead(file.bytes, batch_size, {{0, Op::kIn, {}, false, bitmap_of(ids)}},
                      [&](const std::string& r) { return ids.count(std::stoll(Fields(r)[0])); });
      ExpectExactRead(file.bytes, batch_size, {{1, Op::kIn, {}, false, bitmap_of(ks)}},
                      [&](const std::string& r) { return ks.count(std::stoll(Fields(r)[1])); });
      ExpectExactRead(file.bytes, batch_size, {{7, Op::kIn, {}, false, bitmap_of(x)}},
                      [&](const std::string& r) { return x.count(std::stoll(Fields(r)[7])); });
      // Keys within the int8 column's range, and keys beyond it on both sides (bits no
      // int8 value meets).
      const std::set<int64_t> small = {-100, -1, 0, 7, 99};
      ExpectExactRead(file.bytes, batch_size, {{6, Op::kIn, {}, false, bitmap_of(small)}},
                      [&](const std::string& r) { return small.count(std::stoll(Fields(r)[6])); });
      const std::set<int64_t> wide = {-1000, -100, 7, 1000};
      ExpectExactRead(file.bytes, batch_size, {{6, Op::kIn, {}, false, bitmap_of(wide)}},
                      [&](const std::string& r) { return wide.count(std::stoll(Fields(r)[6])); });
    }
  }
}

}  // namespace
}  // namespace floe::parquet
