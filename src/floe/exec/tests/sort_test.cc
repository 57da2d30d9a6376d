// SortExec, SortPreservingMergeExec, normalized sort keys and spill files.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "floe/batch/select.h"
#include "floe/exec/sort/row_keys.h"
#include "floe/exec/sort/sort_exec.h"
#include "floe/exec/sort/sort_preserving_merge_exec.h"
#include "floe/exec/spill.h"
#include "floe/exec/tests/operators_test_support.h"

namespace floe::exec {
namespace {

using floe::testing::IsError;
using floe::testing::IsOk;
using testing::BatchOf;
using testing::Col;
using testing::F64s;
using testing::I64s;
using testing::Key;
using testing::MakeContext;
using testing::Rows;
using testing::RunRows;
using testing::SchemaOf;
using testing::Source;
using testing::SpilledBytes;
using testing::Strs;
using testing::TempDir;

std::vector<int64_t> SortedOrder(const std::vector<ArrayPtr>& cols,
                                 const std::vector<SortOptions>& options) {
  RowKeys keys;
  EXPECT_OK(EncodeRowKeys(cols, options, &keys));
  PoolVector<int64_t> order = SortIndices(keys);
  return std::vector<int64_t>(order.begin(), order.end());
}

TEST(SortKey, IntegersWithNullsAndDirections) {
  auto a = I64s({3, std::nullopt, -1, 7, 3, INT64_MIN, INT64_MAX});
  EXPECT_EQ(SortedOrder({a}, {{false, false}}), (std::vector<int64_t>{5, 2, 0, 4, 3, 6, 1}));
  EXPECT_EQ(SortedOrder({a}, {{false, true}}), (std::vector<int64_t>{1, 5, 2, 0, 4, 3, 6}));
  EXPECT_EQ(SortedOrder({a}, {{true, false}}), (std::vector<int64_t>{6, 3, 0, 4, 2, 5, 1}));
  EXPECT_EQ(SortedOrder({a}, {{true, true}}), (std::vector<int64_t>{1, 6, 3, 0, 4, 2, 5}));
}

TEST(SortKey, FloatsNaNGreatestAndNegativeZero) {
  auto a = F64s({NAN, 1.5, -0.0, -INFINITY, 0.0, INFINITY, -2.0, std::nullopt});
  // -0.0 and 0.0 are equal: they keep their input order.
  EXPECT_EQ(SortedOrder({a}, {{false, false}}), (std::vector<int64_t>{3, 6, 2, 4, 1, 5, 0, 7}));
  EXPECT_EQ(SortedOrder({a}, {{true, true}}), (std::vector<int64_t>{7, 0, 5, 1, 2, 4, 6, 3}));
  RowKeys keys;
  ASSERT_OK(EncodeRowKeys({a}, {{}}, &keys));
  EXPECT_EQ(keys.Key(2), keys.Key(4));
}

TEST(SortKey, StringsByBytesWithEmbeddedZeros) {
  auto s = Strs({"b", "a", std::string("a\0", 2), "", "ab", std::nullopt, "\xc3\xa9"});
  EXPECT_EQ(SortedOrder({s}, {{false, false}}), (std::vector<int64_t>{3, 1, 2, 4, 0, 6, 5}));
  EXPECT_EQ(SortedOrder({s}, {{true, false}}), (std::vector<int64_t>{6, 0, 4, 2, 1, 3, 5}));
}

TEST(SortKey, MultipleKeysAndOtherTypes) {
  auto s = Strs({"x", "x", "y", "x"});
  auto i = I64s({2, 1, 0, 2});
  EXPECT_EQ(SortedOrder({s, i}, {{false, false}, {true, false}}),
            (std::vector<int64_t>{0, 3, 1, 2}));

  DecimalBuilder dec(Decimal(20, 2));
  for (Int128 v : {Int128(5), -(Int128(1) << 80), Int128(0), Int128(1) << 90}) {
    ASSERT_OK(dec.Append(v));
  }
  ASSERT_OK_AND_ASSIGN(auto d, dec.Finish());
  EXPECT_EQ(SortedOrder({d}, {{}}), (std::vector<int64_t>{1, 2, 0, 3}));

  Int32Builder dates(Date());
  for (int32_t v : {19000, -5, 0}) ASSERT_OK(dates.Append(v));
  ASSERT_OK_AND_ASSIGN(auto dt, dates.Finish());
  EXPECT_EQ(SortedOrder({dt}, {{}}), (std::vector<int64_t>{1, 2, 0}));

  BooleanBuilder bools;
  ASSERT_OK(bools.Append(true));
  ASSERT_OK(bools.Append(false));
  ASSERT_OK(bools.AppendNull());
  ASSERT_OK_AND_ASSIGN(auto b, bools.Finish());
  EXPECT_EQ(SortedOrder({b}, {{}}), (std::vector<int64_t>{1, 0, 2}));

  FixedSizeBinaryBuilder uuids(Uuid());
  ASSERT_OK(uuids.Append(std::string(15, '\x01') + "\xff"));
  ASSERT_OK(uuids.Append(std::string(16, '\x00')));
  ASSERT_OK_AND_ASSIGN(auto u, uuids.Finish());
  EXPECT_EQ(SortedOrder({u}, {{}}), (std::vector<int64_t>{1, 0}));

  // Lists compare element by element; a prefix sorts first.
  ListBuilder lists(List(Int64()));
  auto* values = static_cast<Int64Builder*>(lists.value_builder());
  ASSERT_OK(lists.Append());
  ASSERT_OK(values->Append(1));
  ASSERT_OK(values->Append(2));
  ASSERT_OK(lists.Append());
  ASSERT_OK(values->Append(1));
  ASSERT_OK(lists.Append());
  ASSERT_OK(values->Append(0));
  ASSERT_OK(values->Append(9));
  ASSERT_OK_AND_ASSIGN(auto l, lists.Finish());
  EXPECT_EQ(SortedOrder({l}, {{}}), (std::vector<int64_t>{2, 1, 0}));
}

TEST(SortExec, SortsByTwoKeysInBatchSizeBatches) {
  auto schema = SchemaOf({"s", "i"}, {Strs({}), I64s({})});
  auto b1 = BatchOf(schema, {Strs({"b", "a", std::nullopt}), I64s({1, 2, 3})});
  auto b2 = BatchOf(schema, {Strs({"a", "b"}), I64s({5, std::nullopt})});
  ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make({Key(schema, 0), Key(schema, 1, true, true)},
                                                 Source(schema, {b1, b2}), std::nullopt, false));
  auto ctx = MakeContext(2);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(sort, ctx));
  EXPECT_EQ(Rows(batches), (std::vector<std::string>{"a|5", "a|2", "b|NULL", "b|1", "NULL|3"}));
  EXPECT_EQ(testing::MaxBatchRows(batches), 2);
  EXPECT_EQ(sort->ToString(), "SortExec: s, i DESC");
}

TEST(SortExec, EmptyInput) {
  auto schema = SchemaOf({"i"}, {I64s({})});
  ASSERT_OK_AND_ASSIGN(auto sort,
                       SortExec::Make({Key(schema, 0)}, Source(schema, {}), std::nullopt, false));
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(sort, MakeContext()));
  EXPECT_TRUE(rows.empty());
}

// 20 batches of 1000 rows (k, s) with many equal keys, and the rows in the order a stable
// sort by k gives.
struct SpillInput {
  SchemaPtr schema = SchemaOf({"k", "s"}, {I64s({}), Strs({})});
  std::vector<RecordBatchPtr> batches;
  std::vector<std::string> sorted_rows;

  SpillInput() {
    std::mt19937_64 rng(42);
    std::vector<std::pair<int64_t, std::string>> expected;
    for (int b = 0; b < 20; ++b) {
      std::vector<testing::OptI64> k;
      std::vector<testing::OptStr> s;
      for (int r = 0; r < 1000; ++r) {
        int64_t v = static_cast<int64_t>(rng() % 5000);
        std::string str = "row" + std::to_string(b * 1000 + r);
        k.push_back(v);
        s.push_back(str);
        expected.emplace_back(v, str);
      }
      batches.push_back(BatchOf(schema, {I64s(k), Strs(s)}));
    }
    std::stable_sort(expected.begin(), expected.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [k, s] : expected) sorted_rows.push_back(std::to_string(k) + "|" + s);
  }

  // Sorts the input by k under `memory_limit`; checks the rows (equal keys keep input
  // order within a run and the merges keep run order, so the whole sort is stable), that
  // the spill files are gone and nothing stays reserved; returns the bytes spilled.
  int64_t SortUnder(int64_t memory_limit) const {
    TempDir dir;
    auto sort = SortExec::Make({Key(schema, 0)}, Source(schema, batches), std::nullopt, false);
    EXPECT_OK(sort.status());
    if (!sort.ok()) return 0;
    auto ctx = MakeContext(1000, memory_limit, dir.path());
    auto out = CollectAll(*sort, ctx);
    EXPECT_OK(out.status());
    if (!out.ok()) return 0;
    EXPECT_EQ(Rows(*out), sorted_rows);
    EXPECT_EQ(dir.files(), 0);  // spill files are removed when the stream ends
    EXPECT_EQ(ctx->memory()->reserved(), 0);
    return SpilledBytes(ctx, *sort);
  }
};

TEST(SortExec, SpillsRunsAndMergesThemPastTheMemoryLimit) {
  SpillInput input;
  // A few runs, merged in one pass: what is spilled is about the input's encoded size.
  const int64_t one_pass = input.SortUnder(1 << 20);
  EXPECT_GT(one_pass, 0);
  // Ten runs whose cursors the budget cannot hold at once: neighbouring runs are merged
  // on disk first, so the rows are written more than once.
  const int64_t passes = input.SortUnder(200 << 10);
  EXPECT_GT(passes, 2 * one_pass);
}

TEST(SortExec, TopKKeepsTheFirstRowsInOrder) {
  auto schema = SchemaOf({"k", "tag"}, {I64s({}), Strs({})});
  std::vector<RecordBatchPtr> batches;
  for (int b = 0; b < 10; ++b) {
    std::vector<testing::OptI64> k;
    std::vector<testing::OptStr> t;
    for (int r = 0; r < 100; ++r) {
      k.push_back((b * 37 + r * 11) % 50);
      t.push_back(std::to_string(b) + "." + std::to_string(r));
    }
    batches.push_back(BatchOf(schema, {I64s(k), Strs(t)}));
  }
  ASSERT_OK_AND_ASSIGN(auto top,
                       SortExec::Make({Key(schema, 0, true)}, Source(schema, batches), 4, false));
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(top, MakeContext(3)));
  // Key 49 appears 20 times; the first four in input order win.
  EXPECT_EQ(rows, (std::vector<std::string>{"49|0.9", "49|0.59", "49|1.42", "49|1.92"}));
  EXPECT_EQ(top->ToString(), "SortExec: k DESC NULLS LAST fetch=4");

  ASSERT_OK_AND_ASSIGN(auto zero,
                       SortExec::Make({Key(schema, 0)}, Source(schema, batches), 0, false));
  ASSERT_OK_AND_ASSIGN(rows, RunRows(zero, MakeContext()));
  EXPECT_TRUE(rows.empty());
}

TEST(SortExec, PreservePartitioningSortsEachPartition) {
  auto schema = SchemaOf({"k"}, {I64s({})});
  auto input = testing::PartitionedSource(
      schema, {{BatchOf(schema, {I64s({3, 1, 2})})}, {BatchOf(schema, {I64s({9, 7})})}});
  ASSERT_OK_AND_ASSIGN(auto sort, SortExec::Make({Key(schema, 0)}, input, std::nullopt, true));
  EXPECT_EQ(sort->partition_count(), 2);
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(sort, MakeContext()));
  EXPECT_EQ(rows, (std::vector<std::string>{"1", "2", "3", "7", "9"}));
}

TEST(SortPreservingMergeExec, MergesSortedPartitionsWithFetch) {
  auto schema = SchemaOf({"k", "p"}, {I64s({}), Strs({})});
  auto input = testing::PartitionedSource(
      schema, {{BatchOf(schema, {I64s({1, 4, 4}), Strs({"a", "a", "a"})}),
                BatchOf(schema, {I64s({8}), Strs({"a"})})},
               {},
               {BatchOf(schema, {I64s({2, 4, 9}), Strs({"c", "c", "c"})})},
               {BatchOf(schema, {I64s({0, 5}), Strs({"d", "d"})})}});
  ASSERT_OK_AND_ASSIGN(auto merge,
                       SortPreservingMergeExec::Make({Key(schema, 0)}, input, std::nullopt));
  EXPECT_EQ(merge->partition_count(), 1);
  auto ctx = MakeContext(3);
  ASSERT_OK_AND_ASSIGN(auto batches, CollectAll(merge, ctx));
  EXPECT_EQ(Rows(batches), (std::vector<std::string>{"0|d", "1|a", "2|c", "4|a", "4|a", "4|c",
                                                     "5|d", "8|a", "9|c"}));
  EXPECT_EQ(testing::MaxBatchRows(batches), 3);
  ASSERT_OK_AND_ASSIGN(auto limited, SortPreservingMergeExec::Make({Key(schema, 0)}, input, 4));
  ASSERT_OK_AND_ASSIGN(auto rows, RunRows(limited, MakeContext()));
  EXPECT_EQ(rows, (std::vector<std::string>{"0|d", "1|a", "2|c", "4|a"}));
}

TEST(Spill, RoundTripsEveryKindOfColumn) {
  TempDir dir;
  ListBuilder lists(List(Int64()));
  auto* values = static_cast<Int64Builder*>(lists.value_builder());
  ASSERT_OK(lists.Append());
  ASSERT_OK(values->Append(1));
  ASSERT_OK(values->AppendNull());
  ASSERT_OK(lists.AppendNull());
  ASSERT_OK(lists.Append());
  ASSERT_OK_AND_ASSIGN(auto l, lists.Finish());
  BooleanBuilder bools;
  ASSERT_OK(bools.Append(true));
  ASSERT_OK(bools.AppendNull());
  ASSERT_OK(bools.Append(false));
  ASSERT_OK_AND_ASSIGN(auto b, bools.Finish());
  auto s = Strs({"x", std::nullopt, "yz"});
  auto i = I64s({std::nullopt, std::nullopt, std::nullopt});
  auto schema = SchemaOf({"l", "b", "s", "i"}, {l, b, s, i});
  auto batch = BatchOf(schema, {l, b, s, i});
  std::string path = NewSpillPath(dir.path(), "test");
  ASSERT_OK_AND_ASSIGN(auto writer, SpillWriter::Make(path, schema));
  ASSERT_OK(writer->Write(*batch));
  ASSERT_OK(writer->Write(*batch->Slice(1, 2)));
  ASSERT_OK_AND_ASSIGN(int64_t bytes, writer->Finish());
  EXPECT_EQ(bytes, static_cast<int64_t>(std::filesystem::file_size(path)));
  ASSERT_OK_AND_ASSIGN(auto reader, OpenSpillFile(path, schema));
  ASSERT_OK_AND_ASSIGN(auto r1, reader->Next());
  ASSERT_OK_AND_ASSIGN(auto r2, reader->Next());
  ASSERT_OK_AND_ASSIGN(auto r3, reader->Next());
  ASSERT_NE(r1, nullptr);
  ASSERT_NE(r2, nullptr);
  EXPECT_EQ(r3, nullptr);
  EXPECT_EQ(Rows({r1}),
            (std::vector<std::string>{"{1,NULL}|t|x|NULL", "NULL|NULL|NULL|NULL", "{}|f|yz|NULL"}));
  EXPECT_EQ(Rows({r2}), (std::vector<std::string>{"NULL|NULL|NULL|NULL", "{}|f|yz|NULL"}));
  for (const auto& c : r1->columns()) EXPECT_OK(c->ValidateFull());

  // A damaged file is kCorrupt naming the file and the offset.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8 + 8 + 8);  // magic, block length, row count: the first column's type id
    f.put('\x7f');
  }
  ASSERT_OK_AND_ASSIGN(auto bad, OpenSpillFile(path, schema));
  auto next = bad->Next();
  EXPECT_THAT(next, floe::testing::IsErrorWith(StatusCode::kCorrupt, path));
  EXPECT_THAT(next, floe::testing::IsErrorWith(StatusCode::kCorrupt, "offset 24"));
  // Truncation too.
  std::filesystem::resize_file(path, 30);
  ASSERT_OK_AND_ASSIGN(auto cut, OpenSpillFile(path, schema));
  EXPECT_THAT(cut->Next(), IsError(StatusCode::kCorrupt));
}

}  // namespace
}  // namespace floe::exec
