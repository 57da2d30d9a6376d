// KeyTable's packed keys (fixed-width key columns hashed and compared as 64-bit words)
// against the normalized-byte-key reference: ids, NULL grouping, float canonicalization,
// sliced inputs, growth across batches, Reserve, skip; hash joins over packed and
// unpacked multi-column keys against a nested-loop join; and (disabled by default) a
// measurement of build and probe nanoseconds per row.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <random>

#include "floe/exec/join/hash_join_exec.h"
#include "floe/exec/join/join_filter.h"
#include "floe/exec/join/nested_loop_join_exec.h"
#include "floe/exec/key_table.h"
#include "floe/exec/sort/row_keys.h"
#include "floe/exec/tests/operators_test_support.h"

namespace floe::exec {
namespace {

using plan::JoinType;
using testing::BatchOf;
using testing::Col;
using testing::MakeContext;
using testing::RunRows;
using testing::SchemaOf;
using testing::Source;
using V = std::vector<std::string>;

template <typename Builder, typename T>
ArrayPtr ArrayOf(const TypePtr& type, const std::vector<std::optional<T>>& values) {
  Builder b(type);
  for (const auto& v : values) {
    if (v) {
      FLOE_CHECK(b.Append(*v).ok(), "append");
    } else {
      FLOE_CHECK(b.AppendNull().ok(), "append");
    }
  }
  return b.Finish().ValueOrDie();
}

ArrayPtr I8s(const std::vector<std::optional<int8_t>>& v) {
  return ArrayOf<Int8Builder>(Int8(), v);
}
ArrayPtr I16s(const std::vector<std::optional<int16_t>>& v) {
  return ArrayOf<Int16Builder>(Int16(), v);
}
ArrayPtr I32s(const std::vector<std::optional<int32_t>>& v) {
  return ArrayOf<Int32Builder>(Int32(), v);
}
ArrayPtr Dates(const std::vector<std::optional<int32_t>>& v) {
  return ArrayOf<Int32Builder>(Date(), v);
}
ArrayPtr I64s(const std::vector<std::optional<int64_t>>& v) { return testing::I64s(v); }
ArrayPtr F64s(const std::vector<std::optional<double>>& v) { return testing::F64s(v); }
ArrayPtr F32s(const std::vector<std::optional<float>>& v) {
  return ArrayOf<Float32Builder>(Float32(), v);
}
ArrayPtr Bools(const std::vector<std::optional<bool>>& v) {
  BooleanBuilder b;
  for (const auto& x : v) {
    if (x) {
      FLOE_CHECK(b.Append(*x).ok(), "append");
    } else {
      FLOE_CHECK(b.AppendNull().ok(), "append");
    }
  }
  return b.Finish().ValueOrDie();
}
ArrayPtr Decs(const std::vector<std::optional<Int128>>& v) {
  return ArrayOf<DecimalBuilder>(Decimal(38, 2), v);
}

std::vector<TypePtr> TypesOf(const std::vector<ArrayPtr>& columns) {
  std::vector<TypePtr> types;
  for (const auto& c : columns) types.push_back(c->type());
  return types;
}

// Ids the normalized-byte-key table assigns to the rows of each batch in turn.
std::vector<std::vector<uint32_t>> ReferenceIds(const std::vector<std::vector<ArrayPtr>>& batches) {
  KeyTable table;
  std::vector<std::vector<uint32_t>> out;
  for (const auto& cols : batches) {
    RowKeys keys;
    EXPECT_OK(EncodeRowKeys(cols, std::vector<SortOptions>(cols.size()), &keys));
    std::vector<uint32_t> ids(static_cast<size_t>(keys.num_rows()));
    std::vector<int64_t> new_rows;
    table.Insert(keys, ids.data(), &new_rows);
    out.push_back(ids);
  }
  return out;
}

// Inserts each batch in turn into a column table and checks ids, new rows and Find
// against the reference.
void ExpectSameIdsAsReference(const std::vector<std::vector<ArrayPtr>>& batches, bool expect_packed,
                              int64_t reserve = 0) {
  auto reference = ReferenceIds(batches);
  KeyTable table(TypesOf(batches[0]));
  EXPECT_EQ(table.packed(), expect_packed);
  if (reserve > 0) table.Reserve(reserve);
  uint32_t next_id = 0;
  for (size_t b = 0; b < batches.size(); ++b) {
    const int64_t n = batches[b][0]->length();
    std::vector<uint32_t> ids(static_cast<size_t>(n));
    std::vector<int64_t> new_rows;
    ASSERT_OK(table.Insert(batches[b], ids.data(), &new_rows));
    EXPECT_EQ(ids, reference[b]) << "batch " << b;
    std::vector<int64_t> expected_new;
    for (int64_t r = 0; r < n; ++r) {
      if (ids[r] == next_id) {
        expected_new.push_back(r);
        ++next_id;
      }
    }
    EXPECT_EQ(new_rows, expected_new) << "batch " << b;
  }
  EXPECT_EQ(table.num_keys(), static_cast<int64_t>(next_id));
  KeyTable::Scratch scratch;
  for (size_t b = 0; b < batches.size(); ++b) {
    std::vector<uint32_t> ids(static_cast<size_t>(batches[b][0]->length()));
    ASSERT_OK(table.Find(batches[b], ids.data(), nullptr, &scratch));
    EXPECT_EQ(ids, reference[b]) << "find, batch " << b;
  }
}

TEST(KeyTableTest, PackedLayouts) {
  EXPECT_EQ(KeyTable({Int64()}).packed_words(), 1);
  EXPECT_EQ(KeyTable({Int32(), Int32()}).packed_words(), 1);
  EXPECT_EQ(KeyTable({Int64(), Date(), Int32()}).packed_words(), 2);
  EXPECT_EQ(KeyTable({Decimal(12, 2)}).packed_words(), 2);
  EXPECT_EQ(KeyTable({Float64(), Boolean(), Int8()}).packed_words(), 2);
  // Past 16 bytes, and strings, take normalized byte keys.
  EXPECT_FALSE(KeyTable({Int64(), Int64(), Int8()}).packed());
  EXPECT_FALSE(KeyTable({String()}).packed());
  EXPECT_FALSE(KeyTable({Int64(), String()}).packed());
  EXPECT_FALSE(KeyTable().packed());
}

TEST(KeyTableTest, ExactIdsWithNulls) {
  KeyTable table({Int64()});
  auto keys = I64s({5, std::nullopt, 7, 5, std::nullopt, -1, 7});
  std::vector<uint32_t> ids(7);
  std::vector<int64_t> new_rows;
  ASSERT_OK(table.Insert({keys}, ids.data(), &new_rows));
  // NULL is one group of its own, next to every value (including 0).
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 1, 2, 0, 1, 3, 2}));
  EXPECT_EQ(new_rows, (std::vector<int64_t>{0, 1, 2, 5}));
  std::vector<uint32_t> found(4);
  KeyTable::Scratch scratch;
  const uint8_t skip[] = {0, 0, 1, 0};
  ASSERT_OK(table.Find({I64s({std::nullopt, 0, 5, 7})}, found.data(), skip, &scratch));
  EXPECT_EQ(found, (std::vector<uint32_t>{1, KeyTable::kNotFound, KeyTable::kNotFound, 2}));
  // Skipped rows get no id and insert nothing; new_rows may be null.
  const uint8_t skip2[] = {1, 0};
  std::vector<uint32_t> ids2(2);
  ASSERT_OK(table.Insert({I64s({0, 0})}, ids2.data(), nullptr, skip2));
  EXPECT_EQ(ids2, (std::vector<uint32_t>{KeyTable::kNotFound, 4}));
  EXPECT_EQ(table.num_keys(), 5);
  table.Clear();
  EXPECT_EQ(table.num_keys(), 0);
  ASSERT_OK(table.Insert({I64s({9})}, ids2.data(), nullptr));
  EXPECT_EQ(ids2[0], 0u);
}

TEST(KeyTableTest, MultiColumnNullsAreGroupedPerColumn) {
  // (NULL, 1), (1, NULL), (NULL, NULL), (0, 1), (NULL, 1), (0, 0): zero values and NULLs
  // stay apart, and a NULL in either column is its own key part.
  auto a = I32s({std::nullopt, 1, std::nullopt, 0, std::nullopt, 0});
  auto b = I32s({1, std::nullopt, std::nullopt, 1, 1, 0});
  KeyTable table({Int32(), Int32()});
  std::vector<uint32_t> ids(6);
  ASSERT_OK(table.Insert({a, b}, ids.data(), nullptr));
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 1, 2, 3, 0, 4}));
}

TEST(KeyTableTest, PackedIdsMatchTheReference) {
  std::mt19937_64 rng(7);
  auto maybe_null = [&](int pct) { return static_cast<int>(rng() % 100) < pct; };
  // Several batches, keys repeating across them, NULLs in every column, and more keys
  // than the initial table holds so that it grows between and within batches.
  std::vector<std::vector<ArrayPtr>> single, pair, triple, wide, floats, decs, small;
  for (int b = 0; b < 4; ++b) {
    std::vector<std::optional<int64_t>> i64;
    std::vector<std::optional<int32_t>> i32, d32;
    std::vector<std::optional<int8_t>> i8;
    std::vector<std::optional<int16_t>> i16;
    std::vector<std::optional<double>> f64;
    std::vector<std::optional<float>> f32;
    std::vector<std::optional<bool>> bools;
    std::vector<std::optional<Int128>> dec;
    for (int r = 0; r < 3000; ++r) {
      const int64_t k = static_cast<int64_t>(rng() % 2500) - 1000;
      i64.push_back(maybe_null(3) ? std::nullopt : std::optional<int64_t>(k * 1000003));
      i32.push_back(maybe_null(3) ? std::nullopt : std::optional<int32_t>(k % 7));
      d32.push_back(maybe_null(2) ? std::nullopt : std::optional<int32_t>(k % 5 + 9000));
      i8.push_back(maybe_null(5) ? std::nullopt : std::optional<int8_t>(k % 3));
      i16.push_back(maybe_null(5) ? std::nullopt : std::optional<int16_t>(k % 300));
      static const double kFloats[] = {0.0,
                                       -0.0,
                                       1.5,
                                       -1.5,
                                       std::nan(""),
                                       -std::nan(""),
                                       std::numeric_limits<double>::infinity()};
      f64.push_back(maybe_null(5) ? std::nullopt : std::optional<double>(kFloats[rng() % 7]));
      static const float kFloats32[] = {0.0f, -0.0f, 2.5f, std::nanf(""), -std::nanf("")};
      f32.push_back(maybe_null(5) ? std::nullopt : std::optional<float>(kFloats32[rng() % 5]));
      bools.push_back(maybe_null(5) ? std::nullopt : std::optional<bool>(rng() % 2 == 0));
      dec.push_back(maybe_null(3) ? std::nullopt
                                  : std::optional<Int128>(static_cast<Int128>(k) << 70 | 17));
    }
    single.push_back({I64s(i64)});
    pair.push_back({I32s(i32), I64s(i64)});
    triple.push_back({I64s(i64), Dates(d32), I32s(i32)});
    wide.push_back({I64s(i64), I64s(i64), I8s(i8)});  // 17 bytes: the byte-key path
    floats.push_back({F64s(f64), F32s(f32), Bools(bools)});
    decs.push_back({Decs(dec)});
    small.push_back({I8s(i8), I16s(i16), Bools(bools)});
  }
  ExpectSameIdsAsReference(single, true);
  ExpectSameIdsAsReference(single, true, 100000);
  ExpectSameIdsAsReference(pair, true);
  ExpectSameIdsAsReference(triple, true);
  ExpectSameIdsAsReference(wide, false);
  ExpectSameIdsAsReference(wide, false, 5000);
  ExpectSameIdsAsReference(floats, true);
  ExpectSameIdsAsReference(decs, true);
  ExpectSameIdsAsReference(small, true);
  // Sliced inputs (a non-zero array offset).
  std::vector<std::vector<ArrayPtr>> sliced;
  for (const auto& cols : triple) {
    std::vector<ArrayPtr> s;
    for (const auto& c : cols) s.push_back(c->Slice(123, 2000));
    sliced.push_back(s);
  }
  ExpectSameIdsAsReference(sliced, true);
}

TEST(KeyTableTest, FloatKeysAreCanonical) {
  KeyTable table({Float64()});
  std::vector<uint32_t> ids(5);
  ASSERT_OK(
      table.Insert({F64s({0.0, -0.0, std::nan(""), -std::nan(""), 1.0})}, ids.data(), nullptr));
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 0, 1, 1, 2}));
}

TEST(KeyTableTest, ColumnsMustMatchTheKeyTypes) {
  KeyTable table({Int64()});
  std::vector<uint32_t> ids(1);
  EXPECT_THAT(table.Insert({I32s({1})}, ids.data(), nullptr),
              floe::testing::IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(table.Insert({I64s({1}), I64s({1})}, ids.data(), nullptr),
              floe::testing::IsError(StatusCode::kInvalidArgument));
}

TEST(KeyTableTest, EmptyInput) {
  KeyTable table({Int64()});
  std::vector<int64_t> new_rows;
  ASSERT_OK(table.Insert({I64s({})}, nullptr, &new_rows));
  EXPECT_EQ(table.num_keys(), 0);
  KeyTable::Scratch scratch;
  ASSERT_OK(table.Find({I64s({})}, nullptr, nullptr, &scratch));
}

// Hash joins over two-column keys (packed and unpacked) give the rows of a nested-loop
// join on the same equalities, for every join type, with NULLs, duplicates and misses.
class MultiKeyJoinTest : public ::testing::TestWithParam<bool> {};

TEST_P(MultiKeyJoinTest, MatchesNestedLoop) {
  const bool packed = GetParam();
  auto second = [&](const std::vector<std::optional<int64_t>>& v) -> ArrayPtr {
    if (packed) return I64s(v);
    std::vector<testing::OptStr> s;
    for (const auto& x : v)
      s.push_back(x ? std::optional<std::string>(std::to_string(*x)) : std::nullopt);
    return testing::Strs(s);
  };
  auto ls = SchemaOf({"la", "lb", "lv"}, {I32s({}), second({}), I64s({})});
  auto rs = SchemaOf({"ra", "rb", "rv"}, {I32s({}), second({}), I64s({})});
  std::vector<RecordBatchPtr> lb, rb;
  std::mt19937_64 rng(11);
  for (int b = 0; b < 3; ++b) {
    std::vector<std::optional<int32_t>> la, ra;
    std::vector<std::optional<int64_t>> lbv, rbv, lv, rv;
    for (int r = 0; r < 40; ++r) {
      la.push_back(rng() % 10 == 0 ? std::nullopt : std::optional<int32_t>(rng() % 4));
      lbv.push_back(rng() % 10 == 0 ? std::nullopt : std::optional<int64_t>(rng() % 5));
      lv.push_back(b * 100 + r);
      ra.push_back(rng() % 10 == 0 ? std::nullopt : std::optional<int32_t>(rng() % 4));
      rbv.push_back(rng() % 10 == 0 ? std::nullopt : std::optional<int64_t>(rng() % 6));
      rv.push_back(b * 100 + r);
    }
    lb.push_back(BatchOf(ls, {I32s(la), second(lbv), I64s(lv)}));
    rb.push_back(BatchOf(rs, {I32s(ra), second(rbv), I64s(rv)}));
  }
  auto left = Source(ls, lb);
  auto right = Source(rs, rb);
  auto out_schema = JoinOutputSchema(*ls, *rs, JoinType::kInner);
  auto eq = [&](int l, int r) {
    return expr::Compare("eq",
                         expr::Column(l, out_schema->field(l).name(), out_schema->field(l).type()),
                         expr::Column(r, out_schema->field(r).name(), out_schema->field(r).type()));
  };
  auto on = expr::Compile(expr::And({eq(0, 3), eq(1, 4)}), out_schema).ValueOrDie();
  for (JoinType type : {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull,
                        JoinType::kSemi, JoinType::kAnti}) {
    ASSERT_OK_AND_ASSIGN(auto hash, HashJoinExec::Make(left, right, {Col(ls, 0), Col(ls, 1)},
                                                       {Col(rs, 0), Col(rs, 1)}, type, nullptr,
                                                       {false, false}, JoinMode::kPartitioned));
    ASSERT_OK_AND_ASSIGN(auto nested, NestedLoopJoinExec::Make(left, right, type, on));
    for (int64_t batch_size : {7, 8192}) {
      ASSERT_OK_AND_ASSIGN(auto got, RunRows(hash, MakeContext(batch_size)));
      ASSERT_OK_AND_ASSIGN(auto want, RunRows(nested, MakeContext(batch_size)));
      std::sort(got.begin(), got.end());
      std::sort(want.begin(), want.end());
      EXPECT_EQ(got, want) << plan::JoinTypeName(type) << " batch_size " << batch_size;
      EXPECT_FALSE(want.empty());
    }
  }
  // null_equals_null on the second key: (a, NULL) matches (a, NULL).
  ASSERT_OK_AND_ASSIGN(
      auto nen,
      HashJoinExec::Make(left, right, {Col(ls, 0), Col(ls, 1)}, {Col(rs, 0), Col(rs, 1)},
                         JoinType::kInner, nullptr, {false, true}, JoinMode::kPartitioned));
  ASSERT_OK_AND_ASSIGN(auto got, RunRows(nen, MakeContext()));
  ASSERT_OK_AND_ASSIGN(
      auto plain,
      HashJoinExec::Make(left, right, {Col(ls, 0), Col(ls, 1)}, {Col(rs, 0), Col(rs, 1)},
                         JoinType::kInner, nullptr, {false, false}, JoinMode::kPartitioned));
  ASSERT_OK_AND_ASSIGN(auto want, RunRows(plain, MakeContext()));
  int64_t null_pairs = 0;
  for (const auto& row : got) {
    std::vector<std::string> f;
    for (size_t pos = 0;;) {
      size_t bar = row.find('|', pos);
      f.push_back(row.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos));
      if (bar == std::string::npos) break;
      pos = bar + 1;
    }
    ASSERT_EQ(f.size(), 6u) << row;
    EXPECT_EQ(f[0], f[3]) << row;
    if (f[1] == "NULL") {
      ++null_pairs;
      EXPECT_EQ(f[4], "NULL") << row;
    } else {
      EXPECT_NE(std::find(want.begin(), want.end(), row), want.end()) << row;
    }
  }
  EXPECT_GT(null_pairs, 0);
  EXPECT_EQ(static_cast<int64_t>(got.size()), static_cast<int64_t>(want.size()) + null_pairs);
}

INSTANTIATE_TEST_SUITE_P(PackedAndUnpacked, MultiKeyJoinTest, ::testing::Values(true, false));

double ThreadSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Build and probe cost of an int64-keyed join shaped like TPC-H's lineitem-to-orders
// joins (unique build keys, a fraction of the probe rows matching). Prints nanoseconds
// per row; run with --gtest_also_run_disabled_tests.
TEST(HashJoinPerfTest, DISABLED_BuildAndProbe) {
  for (auto [build_rows, probe_rows, hit_pct] :
       {std::tuple<int64_t, int64_t, int>{200000, 4000000, 15},
        {200000, 4000000, 1},
        {100, 4000000, 50},
        {1500000, 4000000, 100}}) {
    std::mt19937_64 rng(3);
    auto bs = SchemaOf({"k", "v"}, {I64s({}), I64s({})});
    auto ps = SchemaOf({"k", "x", "y"}, {I64s({}), I64s({}), I64s({})});
    std::vector<RecordBatchPtr> build, probe;
    for (int64_t pos = 0; pos < build_rows; pos += 8192) {
      Int64Builder k(Int64()), v(Int64());
      for (int64_t r = pos; r < std::min(build_rows, pos + 8192); ++r) {
        ASSERT_OK(k.Append(r * 4 + 1));
        ASSERT_OK(v.Append(r));
      }
      build.push_back(BatchOf(bs, {k.Finish().ValueOrDie(), v.Finish().ValueOrDie()}));
    }
    for (int64_t pos = 0; pos < probe_rows; pos += 8192) {
      Int64Builder k(Int64()), x(Int64()), y(Int64());
      for (int64_t r = pos; r < std::min(probe_rows, pos + 8192); ++r) {
        const int64_t key = static_cast<int64_t>(rng() % static_cast<uint64_t>(build_rows)) * 4 +
                            (static_cast<int>(rng() % 100) < hit_pct ? 1 : 2);
        ASSERT_OK(k.Append(key));
        ASSERT_OK(x.Append(r));
        ASSERT_OK(y.Append(-r));
      }
      probe.push_back(
          BatchOf(ps, {k.Finish().ValueOrDie(), x.Finish().ValueOrDie(), y.Finish().ValueOrDie()}));
    }
    // Build alone (empty probe side), then build and probe.
    auto run = [&](const std::vector<RecordBatchPtr>& p) {
      auto plan = HashJoinExec::Make(Source(ps, p), Source(bs, build), {Col(ps, 0)}, {Col(bs, 0)},
                                     JoinType::kInner, nullptr, {false}, JoinMode::kPartitioned)
                      .ValueOrDie();
      auto ctx = MakeContext();
      ctx->set_collect_metrics(false);
      auto stream = plan->Execute(0, ctx).ValueOrDie();
      int64_t rows = 0;
      const double start = ThreadSeconds();
      while (true) {
        auto b = stream->Next().ValueOrDie();
        if (b == nullptr) break;
        rows += b->num_rows();
      }
      return std::pair<double, int64_t>(ThreadSeconds() - start, rows);
    };
    const double build_s = run({}).first;
    double best = 1e9;
    int64_t rows = 0;
    for (int i = 0; i < 3; ++i) {
      auto [s, r] = run(probe);
      best = std::min(best, s);
      rows = r;
    }
    std::printf(
        "build %lld rows: %.1f ns/row; probe %lld rows (%d%% hits, %lld out): %.1f ns/row\n",
        static_cast<long long>(build_rows), build_s * 1e9 / static_cast<double>(build_rows),
        static_cast<long long>(probe_rows), hit_pct, static_cast<long long>(rows),
        (best - build_s) * 1e9 / static_cast<double>(probe_rows));
  }
}

// JoinFilter: every inserted hash passes, rows come out in order, skipped rows never do,
// and few absent hashes pass.
TEST(JoinFilterTest, InsertedHashesPassAndFewOthers) {
  std::mt19937_64 rng(5);
  std::vector<uint64_t> in(20000), out(20000);
  for (auto& h : in) h = rng();
  for (auto& h : out) h = rng();
  JoinFilter filter(static_cast<int64_t>(in.size()));
  std::vector<uint8_t> skip(in.size(), 0);
  skip[3] = 1;  // not inserted
  filter.Insert(in.data(), static_cast<int64_t>(in.size()), skip.data());
  std::vector<int64_t> rows(in.size());
  const int64_t n = static_cast<int64_t>(in.size());
  // Row 3 was not inserted and row 5 is skipped on the probe.
  std::vector<uint8_t> probe_skip(in.size(), 0);
  probe_skip[5] = 1;
  const int64_t m = filter.Select(in.data(), n, probe_skip.data(), rows.data());
  std::vector<int64_t> passed(rows.begin(), rows.begin() + m);
  EXPECT_TRUE(std::is_sorted(passed.begin(), passed.end()));
  EXPECT_EQ(std::count(passed.begin(), passed.end(), 5), 0);
  for (int64_t r = 0; r < n; ++r) {
    if (r == 3 || r == 5) continue;
    EXPECT_TRUE(filter.MayContain(in[r])) << r;
    EXPECT_TRUE(std::binary_search(passed.begin(), passed.end(), r)) << r;
  }
  EXPECT_EQ(filter.Select(in.data(), 0, nullptr, rows.data()), 0);
  const int64_t false_positives = filter.Select(out.data(), n, nullptr, rows.data());
  EXPECT_LT(false_positives, n / 50);
}

// Joins whose build side is large enough for the JoinFilter, against a reference
// computed here: unique keys (row == id), unique keys beside NULL keys (a row per id),
// and duplicate keys (rows grouped by id); probe sides where few rows match (the
// filtered rows are gathered), where most do (the filter stops being checked), with NULL
// keys, and with batch sizes that cut one key's rows across output batches.
TEST(HashJoinFilterTest, LargeBuildSidesMatchTheReference) {
  enum class Keys { kUnique, kUniqueWithNulls, kDuplicates };
  for (Keys keys : {Keys::kUnique, Keys::kUniqueWithNulls, Keys::kDuplicates}) {
    for (int hit_pct : {3, 90}) {
      std::mt19937_64 rng(static_cast<uint64_t>(hit_pct) * 7 + static_cast<uint64_t>(keys));
      const int64_t build_rows = 30000;
      auto bs = SchemaOf({"bk", "bv"}, {I64s({}), I64s({})});
      auto ps = SchemaOf({"pk", "pv"}, {I64s({}), I64s({})});
      std::vector<std::optional<int64_t>> bk, bv;
      for (int64_t r = 0; r < build_rows; ++r) {
        std::optional<int64_t> k = r * 4;
        if (keys == Keys::kUniqueWithNulls && r % 97 == 5) k = std::nullopt;
        if (keys == Keys::kDuplicates && r % 3 == 1) k = (r - 1) * 4;
        if (keys == Keys::kDuplicates && r % 101 == 7) k = std::nullopt;
        bk.push_back(k);
        bv.push_back(r);
      }
      std::vector<RecordBatchPtr> build;
      for (int64_t pos = 0; pos < build_rows; pos += 6000) {
        const int64_t end = std::min(build_rows, pos + 6000);
        build.push_back(BatchOf(bs, {I64s({bk.begin() + pos, bk.begin() + end}),
                                     I64s({bv.begin() + pos, bv.begin() + end})}));
      }
      std::vector<std::optional<int64_t>> pk, pv;
      std::vector<RecordBatchPtr> probe;
      for (int b = 0; b < 9; ++b) {
        std::vector<std::optional<int64_t>> k, v;
        for (int r = 0; r < 8000; ++r) {
          const int64_t base = static_cast<int64_t>(rng() % static_cast<uint64_t>(build_rows));
          std::optional<int64_t> key =
              static_cast<int>(rng() % 100) < hit_pct ? base * 4 : base * 4 + 1;
          if (rng() % 50 == 0) key = std::nullopt;
          k.push_back(key);
          v.push_back(b * 10000 + r);
        }
        pk.insert(pk.end(), k.begin(), k.end());
        pv.insert(pv.end(), v.begin(), v.end());
        probe.push_back(BatchOf(ps, {I64s(k), I64s(v)}));
      }
      // The reference: build rows of each key.
      std::map<int64_t, std::vector<int64_t>> rows_of;
      bool build_null = false;
      for (int64_t r = 0; r < build_rows; ++r) {
        if (bk[r]) {
          rows_of[*bk[r]].push_back(r);
        } else {
          build_null = true;
        }
      }
      auto str = [](const std::optional<int64_t>& v) {
        return v ? std::to_string(*v) : std::string("NULL");
      };
      V inner, left, right, full, semi, anti, mark;
      std::vector<bool> build_matched(static_cast<size_t>(build_rows), false);
      for (size_t i = 0; i < pk.size(); ++i) {
        const std::string p = str(pk[i]) + "|" + str(pv[i]);
        auto it = pk[i] ? rows_of.find(*pk[i]) : rows_of.end();
        if (it == rows_of.end()) {
          left.push_back(p + "|NULL|NULL");
          anti.push_back(p);
          mark.push_back(p + (pk[i] && !build_null ? "|f" : "|NULL"));
          continue;
        }
        for (int64_t r : it->second) {
          inner.push_back(p + "|" + str(bk[r]) + "|" + str(bv[r]));
          build_matched[static_cast<size_t>(r)] = true;
        }
        semi.push_back(p);
        mark.push_back(p + "|t");
      }
      V unmatched_probe = left;
      left.insert(left.end(), inner.begin(), inner.end());
      right = inner;
      for (int64_t r = 0; r < build_rows; ++r) {
        if (!build_matched[static_cast<size_t>(r)]) {
          right.push_back("NULL|NULL|" + str(bk[r]) + "|" + str(bv[r]));
        }
      }
      full = right;
      full.insert(full.end(), unmatched_probe.begin(), unmatched_probe.end());
      for (auto [type, want] : std::vector<std::pair<JoinType, V*>>{{JoinType::kInner, &inner},
                                                                    {JoinType::kLeft, &left},
                                                                    {JoinType::kRight, &right},
                                                                    {JoinType::kFull, &full},
                                                                    {JoinType::kSemi, &semi},
                                                                    {JoinType::kAnti, &anti},
                                                                    {JoinType::kMark, &mark}}) {
        ASSERT_OK_AND_ASSIGN(
            auto plan,
            HashJoinExec::Make(Source(ps, probe), Source(bs, build), {Col(ps, 0)}, {Col(bs, 0)},
                               type, nullptr, {false}, JoinMode::kPartitioned));
        // Batches of 7 cut the rows of duplicate keys across output batches.
        for (int64_t batch_size : {int64_t{8192}, int64_t{7}}) {
          if (batch_size == 7 && keys != Keys::kDuplicates) continue;
          ASSERT_OK_AND_ASSIGN(auto got, RunRows(plan, MakeContext(batch_size)));
          V expected = *want;
          std::sort(got.begin(), got.end());
          std::sort(expected.begin(), expected.end());
          ASSERT_EQ(got.size(), expected.size())
              << plan::JoinTypeName(type) << " keys " << static_cast<int>(keys) << " hits "
              << hit_pct << " batch_size " << batch_size;
          EXPECT_TRUE(got == expected)
              << plan::JoinTypeName(type) << " keys " << static_cast<int>(keys) << " hits "
              << hit_pct << " batch_size " << batch_size;
        }
      }
    }
  }
}

}  // namespace
}  // namespace floe::exec
