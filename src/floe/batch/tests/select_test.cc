#include "floe/batch/select.h"

#include <gtest/gtest.h>

#include <random>

#include "floe/batch/builder.h"
#include "floe/batch/chunked_batch.h"
#include "floe/testing/matchers.h"

namespace floe {
namespace {

using testing::IsError;
using testing::IsErrorWith;

// Appends `n` random values (a NULL with probability null_rate) of the builder's type.
Status AppendRandom(ArrayBuilder* b, std::mt19937_64& rng, int64_t n, double null_rate) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int64_t i = 0; i < n; ++i) {
    if (unit(rng) < null_rate) {
      FLOE_RETURN_NOT_OK(b->AppendNull());
      continue;
    }
    const uint64_t r = rng();
    switch (b->type()->id()) {
      case TypeId::kBoolean:
        FLOE_RETURN_NOT_OK(static_cast<BooleanBuilder*>(b)->Append((r & 1) != 0));
        break;
      case TypeId::kInt8:
        FLOE_RETURN_NOT_OK(static_cast<Int8Builder*>(b)->Append(static_cast<int8_t>(r)));
        break;
      case TypeId::kInt16:
        FLOE_RETURN_NOT_OK(static_cast<Int16Builder*>(b)->Append(static_cast<int16_t>(r)));
        break;
      case TypeId::kInt32:
      case TypeId::kDate:
        FLOE_RETURN_NOT_OK(static_cast<Int32Builder*>(b)->Append(static_cast<int32_t>(r)));
        break;
      case TypeId::kInt64:
        FLOE_RETURN_NOT_OK(static_cast<Int64Builder*>(b)->Append(static_cast<int64_t>(r)));
        break;
      case TypeId::kFloat64:
        FLOE_RETURN_NOT_OK(static_cast<Float64Builder*>(b)->Append(static_cast<double>(r % 1000)));
        break;
      case TypeId::kDecimal:
        FLOE_RETURN_NOT_OK(static_cast<DecimalBuilder*>(b)->Append(
            (static_cast<Int128>(static_cast<int64_t>(r)) << 40) + static_cast<Int128>(r >> 7)));
        break;
      case TypeId::kString:
      case TypeId::kBinary: {
        std::string s(r % 13, 'a');
        for (size_t k = 0; k < s.size(); ++k) s[k] = static_cast<char>('a' + (r >> k) % 26);
        FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(b)->Append(s));
        break;
      }
      case TypeId::kFixed:
      case TypeId::kUuid: {
        auto* fb = static_cast<FixedSizeBinaryBuilder*>(b);
        std::string s(static_cast<size_t>(fb->byte_width()), 'x');
        for (size_t k = 0; k < s.size(); ++k) s[k] = static_cast<char>(r >> (k % 8 * 8));
        FLOE_RETURN_NOT_OK(fb->Append(s));
        break;
      }
      case TypeId::kStruct: {
        auto* sb = static_cast<StructBuilder*>(b);
        FLOE_RETURN_NOT_OK(sb->Append());
        for (int f = 0; f < sb->num_fields(); ++f) {
          FLOE_RETURN_NOT_OK(AppendRandom(sb->field_builder(f), rng, 1, null_rate));
        }
        break;
      }
      case TypeId::kList: {
        auto* lb = static_cast<ListBuilder*>(b);
        FLOE_RETURN_NOT_OK(lb->Append());
        FLOE_RETURN_NOT_OK(
            AppendRandom(lb->value_builder(), rng, static_cast<int64_t>(r % 4), null_rate));
        break;
      }
      default:
        return Status::NotSupported("random {}", b->type()->ToString());
    }
  }
  return Status::OK();
}

ArrayPtr RandomArray(const TypePtr& type, int64_t n, double null_rate, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto b = MakeBuilder(type);
  EXPECT_OK(AppendRandom(b.get(), rng, n, null_rate));
  auto out = b->Finish();
  EXPECT_TRUE(out.has_value());
  return *out;
}

// The rows at `indices` one at a time (the reference for TakeArray).
ArrayPtr ReferenceTake(const Array& array, const std::vector<int64_t>& indices) {
  auto b = MakeBuilder(array.type());
  for (int64_t k : indices) {
    EXPECT_OK(k < 0 ? b->AppendNull() : b->AppendArraySlice(array, k, 1));
  }
  auto out = b->Finish();
  EXPECT_TRUE(out.has_value());
  return *out;
}

std::vector<TypePtr> AllTypes() {
  return {Boolean(),
          Int8(),
          Int16(),
          Int32(),
          Date(),
          Int64(),
          Float64(),
          Decimal(15, 2),
          String(),
          Binary(),
          Fixed(3),
          Uuid(),
          Struct({Field("a", Int32()), Field("b", String())}),
          List(Int32())};
}

// Arrays of every type, whole and sliced at an offset that is not a multiple of 8.
std::vector<ArrayPtr> Inputs(int64_t n, double null_rate, uint64_t seed) {
  std::vector<ArrayPtr> out;
  for (const TypePtr& type : AllTypes()) {
    ArrayPtr whole = RandomArray(type, n + 5, null_rate, seed++);
    out.push_back(whole->Slice(0, n));
    out.push_back(whole->Slice(5, n));
  }
  return out;
}

// `fresh`: the result was built anew, so it has a validity bitmap only when it has NULLs.
void ExpectSameArray(const Array& got, const Array& want, bool fresh = true) {
  EXPECT_OK(got.ValidateFull());
  EXPECT_TRUE(got.Equals(want)) << got.type()->ToString() << " length " << want.length();
  EXPECT_EQ(got.null_count(), want.null_count()) << got.type()->ToString();
  if (fresh && got.null_count() == 0) {
    EXPECT_EQ(got.buffer(0), nullptr);
  }
}

TEST(SelectTest, TakeMatchesRowByRowForEveryType) {
  std::mt19937_64 rng(7);
  for (int64_t n : {0, 1, 7, 63, 64, 65, 130, 1000}) {
    for (double null_rate : {0.0, 0.3, 1.0}) {
      for (const ArrayPtr& input : Inputs(n, null_rate, 100 + static_cast<uint64_t>(n))) {
        for (bool with_null_index : {false, true}) {
          std::vector<int64_t> indices;
          const int64_t count = n == 0 ? (with_null_index ? 3 : 0) : n + 17;
          for (int64_t i = 0; i < count; ++i) {
            const bool null_index = with_null_index && (n == 0 || rng() % 5 == 0);
            indices.push_back(null_index ? -1 : static_cast<int64_t>(rng() % n));
          }
          ASSERT_OK_AND_ASSIGN(ArrayPtr got, TakeArray(*input, indices.data(),
                                                       static_cast<int64_t>(indices.size())));
          ExpectSameArray(*got, *ReferenceTake(*input, indices));
        }
      }
    }
  }
}

TEST(SelectTest, TakeRejectsIndicesOutOfRange) {
  ArrayPtr a = RandomArray(Int64(), 10, 0.0, 1);
  std::vector<int64_t> high = {0, 10};
  std::vector<int64_t> low = {-2, 3};
  EXPECT_THAT(TakeArray(*a, high.data(), 2), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(TakeArray(*a, low.data(), 2), IsError(StatusCode::kInvalidArgument));
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("x", Int64())});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, RecordBatch::Make(schema, 10, {a}));
  EXPECT_THAT(TakeBatch(*batch, high.data(), 2), IsError(StatusCode::kInvalidArgument));
}

// A boolean mask with the given pattern; NULL where null_every divides i.
ArrayPtr Mask(int64_t n, const std::function<bool(int64_t)>& keep, int64_t null_every = 0,
              int64_t offset = 0) {
  BooleanBuilder b;
  for (int64_t i = 0; i < n + offset; ++i) {
    const int64_t row = i - offset;
    if (null_every > 0 && row >= 0 && row % null_every == 0) {
      EXPECT_OK(b.AppendNull());
    } else {
      EXPECT_OK(b.Append(row >= 0 && keep(row)));
    }
  }
  auto out = b.Finish();
  EXPECT_TRUE(out.has_value());
  return (*out)->Slice(offset, n);
}

TEST(SelectTest, FilterMatchesRowByRowForEveryType) {
  std::mt19937_64 rng(11);
  for (int64_t n : {0, 1, 63, 64, 65, 200, 3000}) {
    std::vector<uint64_t> bits(static_cast<size_t>(n));
    for (auto& b : bits) b = rng();
    std::vector<std::function<bool(int64_t)>> patterns = {
        [](int64_t) { return true; },
        [](int64_t) { return false; },
        [&](int64_t i) { return bits[static_cast<size_t>(i)] % 2 == 0; },   // ~50%
        [&](int64_t i) { return bits[static_cast<size_t>(i)] % 10 == 0; },  // sparse
        [&](int64_t i) { return bits[static_cast<size_t>(i)] % 10 != 0; },  // dense
        [](int64_t i) { return (i / 64) % 2 == 0; },                        // whole words
        // Long runs (copied a run at a time): one row in 50 dropped, one in ~100.
        [](int64_t i) { return i % 50 != 7; },
        [&](int64_t i) { return bits[static_cast<size_t>(i)] % 100 != 0; },
    };
    for (const ArrayPtr& input : Inputs(n, 0.2, 300 + static_cast<uint64_t>(n))) {
      for (const auto& keep : patterns) {
        for (int64_t null_every : {0, 3}) {
          for (int64_t offset : {0, 3}) {
            ArrayPtr mask = Mask(n, keep, null_every, offset);
            std::vector<int64_t> selected;
            for (int64_t i = 0; i < n; ++i) {
              if (mask->IsValid(i) && mask->BoolValue(i)) selected.push_back(i);
            }
            ASSERT_OK_AND_ASSIGN(ArrayPtr got, FilterArray(*input, *mask));
            ExpectSameArray(*got, *ReferenceTake(*input, selected),
                            static_cast<int64_t>(selected.size()) < n);
          }
        }
      }
    }
  }
}

TEST(SelectTest, FilterBatchAllTrueSharesColumnsAndAllFalseIsEmpty) {
  ArrayPtr a = RandomArray(Int64(), 100, 0.1, 3);
  ArrayPtr s = RandomArray(String(), 100, 0.1, 4);
  auto schema =
      std::make_shared<Schema>(std::vector<Field>{Field("a", Int64()), Field("s", String())});
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, RecordBatch::Make(schema, 100, {a, s}));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr all,
                       FilterBatch(*batch, *Mask(100, [](int64_t) { return true; })));
  EXPECT_EQ(all->column(0), a);
  EXPECT_EQ(all->column(1), s);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr none,
                       FilterBatch(*batch, *Mask(100, [](int64_t) { return false; })));
  EXPECT_EQ(none->num_rows(), 0);
  EXPECT_OK(none->column(1)->ValidateFull());
  // A mask that is entirely NULL selects nothing.
  ASSERT_OK_AND_ASSIGN(ArrayPtr nulls, Array::MakeNull(Boolean(), 100));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr none2, FilterBatch(*batch, *nulls));
  EXPECT_EQ(none2->num_rows(), 0);
  // Every third row, exact values.
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr third,
                       FilterBatch(*batch, *Mask(100, [](int64_t i) { return i % 3 == 0; })));
  ASSERT_EQ(third->num_rows(), 34);
  for (int64_t i = 0; i < 34; ++i) {
    EXPECT_EQ(third->column(0)->IsNull(i), a->IsNull(3 * i));
    if (a->IsValid(3 * i)) {
      EXPECT_EQ(third->column(0)->Value<int64_t>(i), a->Value<int64_t>(3 * i));
    }
    EXPECT_EQ(third->column(1)->IsNull(i), s->IsNull(3 * i));
    if (s->IsValid(3 * i)) {
      EXPECT_EQ(third->column(1)->BytesValue(i), s->BytesValue(3 * i));
    }
  }
  EXPECT_THAT(FilterBatch(*batch, *a), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(FilterBatch(*batch, *Mask(99, [](int64_t) { return true; })),
              IsError(StatusCode::kInvalidArgument));
}

// A filter that keeps most rows copies long runs of rows at once; a batch of every type,
// sliced at an odd offset, gives the rows one at a time would.
TEST(SelectTest, FilterBatchKeepingLongRunsMatchesRowByRow) {
  const int64_t n = 5000;
  std::vector<ArrayPtr> columns;
  std::vector<Field> fields;
  for (const ArrayPtr& input : Inputs(n, 0.15, 4000)) {
    fields.emplace_back("c" + std::to_string(fields.size()), input->type());
    columns.push_back(input);
  }
  // And a column that is NULL throughout (no validity bitmap).
  ASSERT_OK_AND_ASSIGN(ArrayPtr nulls, Array::MakeNull(Int64(), n));
  fields.emplace_back("nulls", Int64());
  columns.push_back(nulls);
  auto schema = std::make_shared<Schema>(std::move(fields));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, RecordBatch::Make(schema, n, columns));
  std::mt19937_64 rng(5);
  std::vector<bool> keep(static_cast<size_t>(n));
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = rng() % 60 != 0 && (i < 700 || i > 900);
  // The mask is NULL (not kept) at every 97th row.
  ArrayPtr mask = Mask(
      n, [&](int64_t i) { return keep[static_cast<size_t>(i)]; }, 97, 3);
  std::vector<int64_t> selected;
  for (int64_t i = 0; i < n; ++i) {
    if (keep[static_cast<size_t>(i)] && i % 97 != 0) selected.push_back(i);
  }
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr got, FilterBatch(*batch, *mask));
  ASSERT_EQ(got->num_rows(), static_cast<int64_t>(selected.size()));
  for (int c = 0; c < batch->num_columns(); ++c) {
    ExpectSameArray(*got->column(c), *ReferenceTake(*columns[static_cast<size_t>(c)], selected));
  }
}

TEST(SelectTest, FilterOfAHugeBatchUsesItsOwnScratch) {
  const int64_t n = 300000;
  ArrayPtr a = RandomArray(Int64(), n, 0.1, 21);
  ArrayPtr mask = Mask(
      n, [](int64_t i) { return i % 3 != 1; }, 0, 5);
  std::vector<int64_t> selected;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 3 != 1) selected.push_back(i);
  }
  ASSERT_OK_AND_ASSIGN(ArrayPtr got, FilterArray(*a, *mask));
  ExpectSameArray(*got, *ReferenceTake(*a, selected));
  // A small filter afterwards still works with the per-thread scratch.
  ASSERT_OK_AND_ASSIGN(ArrayPtr small,
                       FilterArray(*a->Slice(0, 10), *Mask(10, [](int64_t i) { return i < 2; })));
  ExpectSameArray(*small, *ReferenceTake(*a, {0, 1}));
}

TEST(SelectTest, ConcatenateMatchesRowByRowForEveryType) {
  for (const TypePtr& type : AllTypes()) {
    std::vector<ArrayPtr> parts;
    std::vector<int64_t> sizes = {0, 5, 64, 1, 70, 0, 13};
    uint64_t seed = 900;
    for (int64_t size : sizes) {
      const double null_rate = seed % 3 == 0 ? 0.0 : (seed % 3 == 1 ? 0.4 : 1.0);
      ArrayPtr whole = RandomArray(type, size + 3, null_rate, seed++);
      parts.push_back(whole->Slice(3, size));
    }
    auto want = MakeBuilder(type);
    for (const ArrayPtr& p : parts) ASSERT_OK(want->AppendArraySlice(*p, 0, p->length()));
    ASSERT_OK_AND_ASSIGN(ArrayPtr want_array, want->Finish());
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, ConcatenateArrays(parts));
    ExpectSameArray(*got, *want_array);

    auto schema = std::make_shared<Schema>(std::vector<Field>{Field("x", type)});
    std::vector<RecordBatchPtr> batches;
    for (const ArrayPtr& p : parts) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr b, RecordBatch::Make(schema, p->length(), {p}));
      batches.push_back(b);
    }
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr all, ConcatenateBatches(schema, batches));
    ExpectSameArray(*all->column(0), *want_array);
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr empty, ConcatenateBatches(schema, {}));
    EXPECT_EQ(empty->num_rows(), 0);
  }
  EXPECT_THAT(ConcatenateArrays({RandomArray(Int64(), 3, 0, 1), RandomArray(Int32(), 3, 0, 1)}),
              IsError(StatusCode::kInvalidArgument));
}

// A pool that counts the reallocations asked of it.
class ReallocationCountingPool final : public MemoryPool {
 public:
  Result<uint8_t*> Allocate(int64_t size) override { return pool_.Allocate(size); }
  Result<uint8_t*> Reallocate(uint8_t* ptr, int64_t old_size, int64_t new_size) override {
    ++reallocations;
    return pool_.Reallocate(ptr, old_size, new_size);
  }
  void Free(uint8_t* ptr, int64_t size) override { pool_.Free(ptr, size); }
  int64_t BlockBytes(int64_t size) const override { return pool_.BlockBytes(size); }
  int64_t bytes_allocated() const override { return pool_.bytes_allocated(); }
  int64_t max_memory() const override { return pool_.max_memory(); }
  int reallocations = 0;

 private:
  CountingMemoryPool pool_;
};

// A string column's batch reserves the value bytes the last full batch took: a batch like
// the last fills its buffers without growing them; longer and shorter values, NULLs and
// a last partial batch give the same rows as appended.
TEST(SelectTest, AccumulatedStringBatchesReserveTheLastBatchsBytes) {
  ReallocationCountingPool pool;
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("s", String())});
  auto batch_of = [&](int64_t n, size_t width, bool nulls) {
    auto b = MakeBuilder(String());
    auto* strings = static_cast<BinaryBuilder*>(b.get());
    for (int64_t i = 0; i < n; ++i) {
      if (nulls && i % 7 == 0) {
        EXPECT_OK(strings->AppendNull());
      } else {
        EXPECT_OK(strings->Append(std::string(width, static_cast<char>('a' + i % 26))));
      }
    }
    return RecordBatch::Make(schema, n, {b->Finish().ValueOrDie()}).ValueOrDie();
  };
  constexpr int64_t kBatch = 1000;
  BatchAccumulator acc(schema, kBatch, &pool);
  std::vector<RecordBatchPtr> out;
  // Rows come ten at a time, as an exchange routes them.
  RecordBatchPtr first = batch_of(kBatch, 20, false);
  for (int64_t at = 0; at < kBatch; at += 10) ASSERT_OK(acc.AppendSlice(*first, at, 10, &out));
  ASSERT_EQ(out.size(), 1u);
  const int grown = pool.reallocations;
  EXPECT_GT(grown, 0);  // the first batch's values doubled their way up
  for (int64_t at = 0; at < kBatch; at += 10) ASSERT_OK(acc.AppendSlice(*first, at, 10, &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(pool.reallocations, grown);  // the second did not grow
  ExpectSameArray(*out[0]->column(0), *first->column(0));
  ExpectSameArray(*out[1]->column(0), *first->column(0));
  // Longer values grow past the reservation, shorter ones fit; rows are as appended.
  std::vector<RecordBatchPtr> in = {batch_of(kBatch, 45, true), batch_of(kBatch, 3, true),
                                    batch_of(300, 10, true)};
  for (const RecordBatchPtr& b : in) ASSERT_OK(acc.AppendSlice(*b, 0, b->num_rows(), &out));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr rest, acc.Flush());
  ASSERT_NE(rest, nullptr);
  out.push_back(rest);
  ASSERT_EQ(out.size(), 5u);
  for (size_t i = 0; i < in.size(); ++i) {
    ExpectSameArray(*out[i + 2]->column(0), *in[i]->column(0));
  }
}

TEST(SelectTest, BuilderAppendIndicesMatchesRowByRow) {
  std::mt19937_64 rng(5);
  for (int64_t n : {1, 9, 64, 150}) {
    for (const ArrayPtr& input : Inputs(n, 0.3, 700 + static_cast<uint64_t>(n))) {
      // Two gathers into one builder, the second starting at an odd bit position.
      auto b = MakeBuilder(input->type());
      ASSERT_OK(b->AppendNull());
      std::vector<int64_t> all = {-1};
      for (int round = 0; round < 2; ++round) {
        std::vector<int64_t> indices;
        for (int64_t i = 0; i < n + 70; ++i) indices.push_back(static_cast<int64_t>(rng() % n));
        ASSERT_OK(b->AppendIndices(*input, indices.data(), static_cast<int64_t>(indices.size())));
        all.insert(all.end(), indices.begin(), indices.end());
      }
      ASSERT_OK_AND_ASSIGN(ArrayPtr got, b->Finish());
      ArrayPtr want = ReferenceTake(*input, all);
      EXPECT_OK(got->ValidateFull());
      EXPECT_TRUE(got->Equals(*want)) << input->type()->ToString();
      std::vector<int64_t> bad = {0, n};
      EXPECT_THAT(b->AppendIndices(*input, bad.data(), 2), IsError(StatusCode::kInvalidArgument));
    }
  }
}

// Rows of several batches of every type (batches of 1 to 70 rows, some empty, sliced, with
// and without NULLs) taken in random order with NULL rows: the same as taking from their
// concatenation. Lists are concatenated by Make; the rest are gathered from the batches.
TEST(ChunkedBatchTest, TakeMatchesTheConcatenationForEveryType) {
  std::mt19937_64 rng(11);
  std::vector<Field> fields;
  for (const TypePtr& type : AllTypes()) {
    fields.push_back(Field("c" + std::to_string(fields.size()), type));
  }
  for (bool with_list : {false, true}) {
    std::vector<Field> used = fields;
    if (!with_list) used.pop_back();  // the list column
    auto schema = std::make_shared<Schema>(used);
    std::vector<RecordBatchPtr> batches;
    uint64_t seed = 300;
    for (int64_t size : {5, 64, 1, 0, 70, 1, 1, 13, 33}) {
      std::vector<ArrayPtr> columns;
      for (const Field& f : used) {
        const double null_rate = seed % 3 == 0 ? 0.0 : (seed % 3 == 1 ? 0.4 : 1.0);
        ArrayPtr whole = RandomArray(f.type(), size + 3, null_rate, seed++);
        columns.push_back(whole->Slice(3, size));
      }
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr b, RecordBatch::Make(schema, size, columns));
      batches.push_back(b);
    }
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr all, ConcatenateBatches(schema, batches));
    ASSERT_OK_AND_ASSIGN(ChunkedBatch chunked, ChunkedBatch::Make(schema, batches));
    EXPECT_EQ(chunked.num_rows(), all->num_rows());
    EXPECT_EQ(chunked.batches().size(), with_list ? 1u : 8u);  // the empty batch is dropped
    for (bool with_null_rows : {false, true}) {
      std::vector<int64_t> indices;
      for (int64_t i = 0; i < 500; ++i) {
        const bool null_row = with_null_rows && rng() % 4 == 0;
        indices.push_back(null_row ? -1 : static_cast<int64_t>(rng() % all->num_rows()));
      }
      for (int64_t r = 0; r < all->num_rows(); ++r) indices.push_back(r);  // every row in order
      const auto n = static_cast<int64_t>(indices.size());
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr got, chunked.Take(indices.data(), n));
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr want, TakeBatch(*all, indices.data(), n));
      ASSERT_EQ(got->num_rows(), n);
      for (int c = 0; c < schema->num_fields(); ++c) {
        SCOPED_TRACE(schema->field(c).type()->ToString());
        ExpectSameArray(*got->column(c), *want->column(c));
      }
    }
  }
}

TEST(ChunkedBatchTest, IndicesOutOfRangeAndMismatchedBatchesAreErrors) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("x", Int64())});
  std::vector<RecordBatchPtr> batches;
  for (uint64_t seed : {1, 2}) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr b,
                         RecordBatch::Make(schema, 10, {RandomArray(Int64(), 10, 0.0, seed)}));
    batches.push_back(b);
  }
  ASSERT_OK_AND_ASSIGN(ChunkedBatch chunked, ChunkedBatch::Make(schema, batches));
  for (int64_t bad : {int64_t{20}, int64_t{-2}}) {
    EXPECT_THAT(chunked.Take(&bad, 1),
                IsErrorWith(StatusCode::kInvalidArgument, "out of range for 20 rows"));
  }
  // No rows: only rows of NULLs can be taken.
  ASSERT_OK_AND_ASSIGN(ChunkedBatch empty, ChunkedBatch::Make(schema, {}));
  EXPECT_EQ(empty.num_rows(), 0);
  const int64_t null_rows[] = {-1, -1};
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr nulls, empty.Take(null_rows, 2));
  EXPECT_EQ(nulls->num_rows(), 2);
  EXPECT_EQ(nulls->column(0)->null_count(), 2);
  const int64_t zero = 0;
  EXPECT_THAT(empty.Take(&zero, 1), IsError(StatusCode::kInvalidArgument));
  auto two = std::make_shared<Schema>(std::vector<Field>{Field("x", Int64()), Field("y", Int64())});
  EXPECT_THAT(ChunkedBatch::Make(two, batches),
              IsErrorWith(StatusCode::kInvalidArgument, "a batch of 1 columns in rows of 2"));
}

}  // namespace
}  // namespace floe
