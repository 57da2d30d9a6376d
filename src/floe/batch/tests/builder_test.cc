#include "floe/batch/builder.h"

#include <gtest/gtest.h>

#include "floe/testing/matchers.h"

namespace floe {
namespace {

using testing::IsError;
using testing::IsErrorWith;

template <typename B>
B* As(const std::unique_ptr<ArrayBuilder>& b) {
  return static_cast<B*>(b.get());
}

TEST(BuilderTest, Int64WithNullsAndNoBitmapWhenNoNulls) {
  Int64Builder b(Int64());
  ASSERT_OK(b.Append(1));
  ASSERT_OK(b.Append(2));
  ASSERT_OK_AND_ASSIGN(auto plain, b.Finish());
  EXPECT_EQ(plain->length(), 2);
  EXPECT_EQ(plain->buffer(0), nullptr);
  EXPECT_EQ(plain->Value<int64_t>(1), 2);

  // The builder is reusable after Finish; the first null back-fills validity.
  ASSERT_OK(b.Append(10));
  ASSERT_OK(b.AppendNull());
  ASSERT_OK(b.Append(30));
  ASSERT_OK(b.AppendNulls(2));
  EXPECT_EQ(b.length(), 5);
  EXPECT_EQ(b.null_count(), 3);
  ASSERT_OK_AND_ASSIGN(auto arr, b.Finish());
  EXPECT_EQ(arr->null_count(), 3);
  EXPECT_TRUE(arr->IsValid(0));
  EXPECT_TRUE(arr->IsNull(1));
  EXPECT_TRUE(arr->IsValid(2));
  EXPECT_TRUE(arr->IsNull(3));
  EXPECT_EQ(arr->Value<int64_t>(0), 10);
  EXPECT_EQ(arr->Value<int64_t>(2), 30);
  EXPECT_OK(arr->ValidateFull());
  EXPECT_EQ(b.length(), 0);
}

TEST(BuilderTest, BulkAppendValuesWithValidity) {
  Int32Builder b(Date());
  std::vector<int32_t> values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  uint8_t validity[2] = {0b11111011, 0b11};  // value 2 is null
  ASSERT_OK(b.AppendValues(values.data(), 10, validity));
  ASSERT_OK(b.AppendValues(values.data(), 3));
  ASSERT_OK(b.AppendValues(values.data(), 4, validity, 1));  // bit 2 again
  ASSERT_OK_AND_ASSIGN(auto arr, b.Finish());
  EXPECT_EQ(arr->type_id(), TypeId::kDate);
  EXPECT_EQ(arr->length(), 17);
  EXPECT_EQ(arr->null_count(), 2);
  EXPECT_TRUE(arr->IsNull(2));
  EXPECT_TRUE(arr->IsNull(14));
  EXPECT_TRUE(arr->IsValid(15));
  EXPECT_EQ(arr->Value<int32_t>(12), 3);
}

TEST(BuilderTest, EveryPrimitiveTypeThroughMakeBuilder) {
  struct Case {
    TypePtr type;
    Scalar value;
  };
  std::vector<Case> cases = {
      {Boolean(), Scalar::Bool(true)},
      {Int8(), Scalar::Make(Int8(), int32_t{-8})},
      {Int16(), Scalar::Make(Int16(), int32_t{-16})},
      {Int32(), Scalar::I32(32)},
      {Int64(), Scalar::I64(64)},
      {Float32(), Scalar::Make(Float32(), 1.5f)},
      {Float64(), Scalar::F64(2.5)},
      {Decimal(10, 2), Scalar::Make(Decimal(10, 2), Int128{-12345})},
      {Date(), Scalar::Make(Date(), int32_t{20000})},
      {Time(), Scalar::Make(Time(), int64_t{3600000000})},
      {Timestamp(), Scalar::Make(Timestamp(), int64_t{1769860800500000})},
      {TimestampTz(), Scalar::Make(TimestampTz(), int64_t{1769860800500000})},
      {TimestampNs(), Scalar::Make(TimestampNs(), int64_t{1769860800500000001})},
      {TimestampTzNs(), Scalar::Make(TimestampTzNs(), int64_t{-1})},
      {String(), Scalar::Str("héllo")},
      {Binary(), Scalar::Make(Binary(), std::string("\x00\x01", 2))},
      {Fixed(3), Scalar::Make(Fixed(3), std::string("abc"))},
      {Uuid(), Scalar::Make(Uuid(), std::string(16, '\x11'))},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.type->ToString());
    auto b = MakeBuilder(c.type);
    ASSERT_OK(b->AppendScalar(c.value));
    ASSERT_OK(b->AppendScalar(Scalar::Null(c.type)));
    ASSERT_OK(b->AppendEmptyValues(1));
    ASSERT_OK(b->AppendScalar(c.value));
    ASSERT_OK_AND_ASSIGN(auto arr, b->Finish());
    ASSERT_EQ(arr->length(), 4);
    EXPECT_EQ(arr->null_count(), 1);
    EXPECT_TRUE(arr->IsNull(1));
    EXPECT_TRUE(arr->type()->Equals(*c.type));
    EXPECT_OK(arr->ValidateFull());
    // Values 0 and 3 are the scalar; slicing and re-appending round-trips.
    auto b2 = MakeBuilder(c.type);
    ASSERT_OK(b2->AppendArraySlice(*arr, 3, 1));
    ASSERT_OK(b2->AppendArraySlice(*arr, 1, 3));
    ASSERT_OK_AND_ASSIGN(auto arr2, b2->Finish());
    EXPECT_TRUE(arr2->Slice(0, 1)->Equals(*arr->Slice(0, 1)));
    EXPECT_TRUE(arr2->Slice(1, 3)->Equals(*arr->Slice(1, 3)));
  }
}

// AppendIndices (a gather) equals appending the same values one slice at a time, for the
// specialised builders (numeric, decimal, byte arrays) and the generic path (others).
TEST(BuilderTest, AppendIndicesGathersValuesAndNulls) {
  const std::vector<std::pair<TypePtr, Scalar>> cases = {
      {Int32(), Scalar::I32(7)},
      {Int64(), Scalar::I64(-9)},
      {Float64(), Scalar::F64(2.5)},
      {Decimal(20, 2), Scalar::Make(Decimal(20, 2), Int128(12345))},
      {String(), Scalar::Str("hello")},
      {Boolean(), Scalar::Bool(true)},
      {Fixed(2), Scalar::Make(Fixed(2), std::string("ab"))},
  };
  for (const auto& [type, value] : cases) {
    SCOPED_TRACE(type->ToString());
    auto b = MakeBuilder(type);
    ASSERT_OK(b->AppendScalar(value));
    ASSERT_OK(b->AppendNull());
    ASSERT_OK(b->AppendEmptyValues(1));
    ASSERT_OK_AND_ASSIGN(ArrayPtr src, b->Finish());
    const std::vector<int64_t> indices = {2, 0, 1, 0, 2};
    auto gathered = MakeBuilder(type);
    ASSERT_OK(gathered->AppendIndices(*src, indices.data(), 5));
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, gathered->Finish());
    auto expected_builder = MakeBuilder(type);
    for (int64_t i : indices) ASSERT_OK(expected_builder->AppendArraySlice(*src, i, 1));
    ASSERT_OK_AND_ASSIGN(ArrayPtr expected, expected_builder->Finish());
    EXPECT_OK(got->ValidateFull());
    EXPECT_EQ(got->null_count(), 1);
    EXPECT_TRUE(got->IsNull(2));
    EXPECT_TRUE(got->Equals(*expected));
    // From a slice: indices are relative to the slice.
    auto from_slice = MakeBuilder(type);
    const int64_t one = 1;
    ASSERT_OK(from_slice->AppendIndices(*src->Slice(1, 2), &one, 1));
    ASSERT_OK_AND_ASSIGN(ArrayPtr sliced, from_slice->Finish());
    EXPECT_TRUE(sliced->Equals(*src->Slice(2, 1)));
    // An index outside the array is an error, not a read past its end.
    const int64_t bad = 3;
    EXPECT_THAT(MakeBuilder(type)->AppendIndices(*src, &bad, 1),
                IsErrorWith(StatusCode::kInvalidArgument, "index 3 is outside"));
  }
}

TEST(BuilderTest, ScalarOfTheWrongTypeOrNestedIsRejected) {
  auto b = MakeBuilder(Int64());
  EXPECT_THAT(b->AppendScalar(Scalar::Str("x")), IsError(StatusCode::kInvalidArgument));
  auto l = MakeBuilder(List(Int32()));
  EXPECT_THAT(l->AppendScalar(Scalar::I32(1)), IsError(StatusCode::kNotSupported));
}

TEST(BuilderTest, BooleanBitsAndSlices) {
  BooleanBuilder b;
  for (int i = 0; i < 20; ++i) {
    if (i % 7 == 3) {
      ASSERT_OK(b.AppendNull());
    } else {
      ASSERT_OK(b.Append(i % 3 == 0));
    }
  }
  ASSERT_OK_AND_ASSIGN(auto arr, b.Finish());
  EXPECT_EQ(arr->null_count(), 3);
  for (int i = 0; i < 20; ++i) {
    if (i % 7 == 3) {
      EXPECT_TRUE(arr->IsNull(i));
    } else {
      EXPECT_EQ(arr->BoolValue(i), i % 3 == 0) << i;
    }
  }
  ASSERT_OK_AND_ASSIGN(auto cat, Concatenate({arr->Slice(5, 9), arr->Slice(1, 3)}));
  EXPECT_TRUE(cat->Slice(0, 9)->Equals(*arr->Slice(5, 9)));
  EXPECT_TRUE(cat->Slice(9, 3)->Equals(*arr->Slice(1, 3)));
}

TEST(BuilderTest, StringsAndBinaryLimits) {
  BinaryBuilder b(String());
  ASSERT_OK(b.Append("ab"));
  ASSERT_OK(b.AppendNull());
  ASSERT_OK(b.Append(""));
  ASSERT_OK(b.Append("cde"));
  EXPECT_EQ(b.data_length(), 5);
  ASSERT_OK_AND_ASSIGN(auto arr, b.Finish());
  EXPECT_EQ(arr->BytesValue(0), "ab");
  EXPECT_TRUE(arr->IsNull(1));
  EXPECT_EQ(arr->BytesValue(2), "");
  EXPECT_EQ(arr->BytesValue(3), "cde");
  EXPECT_OK(arr->ValidateFull());

  ASSERT_OK_AND_ASSIGN(auto empty, b.Finish());
  EXPECT_EQ(empty->length(), 0);
  EXPECT_OK(empty->ValidateFull());

  // The limit is checked before anything is allocated.
  EXPECT_THAT(b.ReserveData(BinaryBuilder::kMaxDataBytes + 1),
              IsErrorWith(StatusCode::kInvalidArgument, "exceed"));
}

TEST(BuilderTest, FixedWidthChecksTheWidth) {
  FixedSizeBinaryBuilder b(Fixed(4));
  ASSERT_OK(b.Append("abcd"));
  EXPECT_THAT(b.Append("abc"), IsErrorWith(StatusCode::kInvalidArgument, "3 bytes"));
  ASSERT_OK_AND_ASSIGN(auto arr, b.Finish());
  EXPECT_EQ(arr->length(), 1);
  EXPECT_EQ(arr->BytesValue(0), "abcd");
}

// list<struct<a: int32, b: list<string>>>
TypePtr NestedListType() { return List(Struct({Field("a", Int32()), Field("b", List(String()))})); }

ArrayPtr BuildNestedList() {
  auto b = MakeBuilder(NestedListType());
  auto* list = As<ListBuilder>(b);
  auto* st = static_cast<StructBuilder*>(list->value_builder());
  auto* a = static_cast<Int32Builder*>(st->field_builder(0));
  auto* bl = static_cast<ListBuilder*>(st->field_builder(1));
  auto* s = static_cast<BinaryBuilder*>(bl->value_builder());
  // [{a: 1, b: [x, y]}, {a: null, b: null}], null, [], [{a: 3, b: []}, null]
  FLOE_CHECK(list->Append().ok(), "");
  FLOE_CHECK(st->Append().ok(), "");
  FLOE_CHECK(a->Append(1).ok(), "");
  FLOE_CHECK(bl->Append().ok(), "");
  FLOE_CHECK(s->Append("x").ok(), "");
  FLOE_CHECK(s->Append("y").ok(), "");
  FLOE_CHECK(st->Append().ok(), "");
  FLOE_CHECK(a->AppendNull().ok(), "");
  FLOE_CHECK(bl->AppendNull().ok(), "");
  FLOE_CHECK(list->AppendNull().ok(), "");
  FLOE_CHECK(list->Append().ok(), "");
  FLOE_CHECK(list->Append().ok(), "");
  FLOE_CHECK(st->Append().ok(), "");
  FLOE_CHECK(a->Append(3).ok(), "");
  FLOE_CHECK(bl->Append().ok(), "");
  FLOE_CHECK(st->AppendNull().ok(), "");
  return b->Finish().ValueOrDie();
}

TEST(BuilderTest, ListOfStructOfList) {
  ArrayPtr arr = BuildNestedList();
  ASSERT_EQ(arr->length(), 4);
  EXPECT_OK(arr->ValidateFull());
  EXPECT_EQ(arr->null_count(), 1);
  EXPECT_EQ(arr->ListEnd(0) - arr->ListBegin(0), 2);
  EXPECT_TRUE(arr->IsNull(1));
  EXPECT_EQ(arr->ListEnd(2) - arr->ListBegin(2), 0);
  EXPECT_EQ(arr->ListEnd(3) - arr->ListBegin(3), 2);
  const Array& st = *arr->child(0);
  ASSERT_EQ(st.length(), 4);
  EXPECT_EQ(st.null_count(), 1);
  EXPECT_TRUE(st.IsNull(3));
  EXPECT_EQ(st.child(0)->Value<int32_t>(2), 3);
  EXPECT_TRUE(st.child(0)->IsNull(1));
  const Array& inner = *st.child(1);
  EXPECT_EQ(inner.child(0)->BytesValue(inner.ListBegin(0) + 1), "y");
  EXPECT_TRUE(inner.IsNull(1));

  // Slices concatenate back to the original.
  ASSERT_OK_AND_ASSIGN(auto cat,
                       Concatenate({arr->Slice(0, 1), arr->Slice(1, 2), arr->Slice(3, 1)}));
  EXPECT_TRUE(cat->Equals(*arr));
  EXPECT_OK(cat->ValidateFull());
  ASSERT_OK_AND_ASSIGN(auto twice, Concatenate({arr->Slice(2, 2), arr}));
  EXPECT_EQ(twice->length(), 6);
  EXPECT_TRUE(twice->Slice(0, 2)->Equals(*arr->Slice(2, 2)));
  EXPECT_TRUE(twice->Slice(2, 4)->Equals(*arr));
}

TEST(BuilderTest, MapOfStringToListOfInt) {
  auto type = Map(String(), List(Int32()));
  auto b = MakeBuilder(type);
  auto* m = As<MapBuilder>(b);
  auto* keys = static_cast<BinaryBuilder*>(m->key_builder());
  auto* items = static_cast<ListBuilder*>(m->item_builder());
  auto* ints = static_cast<Int32Builder*>(items->value_builder());
  // {a: [1, 2], b: null}, null, {}
  ASSERT_OK(m->Append());
  ASSERT_OK(keys->Append("a"));
  ASSERT_OK(items->Append());
  ASSERT_OK(ints->Append(1));
  ASSERT_OK(ints->Append(2));
  ASSERT_OK(keys->Append("b"));
  ASSERT_OK(items->AppendNull());
  ASSERT_OK(m->AppendNull());
  ASSERT_OK(m->Append());
  ASSERT_OK_AND_ASSIGN(auto arr, m->Finish());
  ASSERT_EQ(arr->length(), 3);
  EXPECT_OK(arr->ValidateFull());
  EXPECT_EQ(arr->ListEnd(0), 2);
  EXPECT_TRUE(arr->IsNull(1));
  EXPECT_EQ(arr->ListBegin(2), arr->ListEnd(2));
  EXPECT_EQ(arr->child(0)->child(0)->BytesValue(1), "b");
  EXPECT_TRUE(arr->child(0)->child(1)->IsNull(1));

  ASSERT_OK_AND_ASSIGN(auto cat, Concatenate({arr->Slice(1, 2), arr->Slice(0, 1)}));
  EXPECT_TRUE(cat->Slice(0, 2)->Equals(*arr->Slice(1, 2)));
  EXPECT_TRUE(cat->Slice(2, 1)->Equals(*arr->Slice(0, 1)));

  // A null key is an error.
  ASSERT_OK(m->Append());
  ASSERT_OK(keys->AppendNull());
  ASSERT_OK(items->AppendNull());
  EXPECT_THAT(m->Finish(), IsErrorWith(StatusCode::kInvalidArgument, "null"));
}

TEST(BuilderTest, StructNullsGiveChildrenEmptyValues) {
  auto type = Struct({Field("i", Int64(), false), Field("s", String())});
  auto b = MakeBuilder(type);
  auto* st = As<StructBuilder>(b);
  ASSERT_OK(st->Append());
  ASSERT_OK(static_cast<Int64Builder*>(st->field_builder(0))->Append(7));
  ASSERT_OK(static_cast<BinaryBuilder*>(st->field_builder(1))->Append("x"));
  ASSERT_OK(st->AppendNull());
  ASSERT_OK_AND_ASSIGN(auto arr, st->Finish());
  EXPECT_EQ(arr->null_count(), 1);
  EXPECT_EQ(arr->child(0)->null_count(), 0);
  EXPECT_EQ(arr->field(0)->Value<int64_t>(0), 7);

  // Misaligned children are reported.
  ASSERT_OK(st->Append());
  EXPECT_THAT(st->Finish(), IsErrorWith(StatusCode::kInvalidArgument, "field 'i'"));
}

TEST(BuilderTest, StructSliceFollowsTheParentOffset) {
  auto type = Struct({Field("a", Int32())});
  auto b = MakeBuilder(type);
  auto* st = As<StructBuilder>(b);
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(st->Append());
    ASSERT_OK(static_cast<Int32Builder*>(st->field_builder(0))->Append(i));
  }
  ASSERT_OK_AND_ASSIGN(auto arr, st->Finish());
  ASSERT_OK_AND_ASSIGN(auto cat, Concatenate({arr->Slice(3, 2)}));
  EXPECT_EQ(cat->child(0)->Value<int32_t>(0), 3);
  EXPECT_EQ(cat->child(0)->Value<int32_t>(1), 4);
}

TEST(BuilderTest, ConcatenateChecksTypes) {
  ASSERT_OK_AND_ASSIGN(auto a, Array::MakeNull(Int32(), 3));
  ASSERT_OK_AND_ASSIGN(auto s, Array::MakeNull(String(), 1));
  EXPECT_THAT(Concatenate({a, s}), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(Concatenate({}), IsError(StatusCode::kInvalidArgument));
  ASSERT_OK_AND_ASSIGN(auto two, Concatenate({a, a->Slice(1, 2)}));
  EXPECT_EQ(two->length(), 5);
  EXPECT_EQ(two->null_count(), 5);
}

TEST(BuilderTest, MemoryComesFromThePool) {
  CountingMemoryPool pool;
  {
    Int64Builder b(Int64(), &pool);
    ASSERT_OK(b.AppendNulls(100));
    EXPECT_GT(pool.bytes_allocated(), 0);
    ASSERT_OK_AND_ASSIGN(auto arr, b.Finish());
  }
  EXPECT_EQ(pool.bytes_allocated(), 0);
}

}  // namespace
}  // namespace floe
