#include "floe/batch/array.h"
#include "floe/batch/utf8.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "floe/testing/matchers.h"

namespace floe {
namespace {

using testing::IsError;

BufferPtr Bytes(std::string_view s) { return Buffer::CopyOf(s).ValueOrDie(); }

template <typename T>
BufferPtr Values(std::vector<T> v) {
  return Buffer::CopyOf(
             std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)))
      .ValueOrDie();
}

TEST(ArrayTest, Int64WithNullsAndSlices) {
  // Values 10, null, 30, 40: validity bits 1101.
  ASSERT_OK_AND_ASSIGN(auto arr,
                       Array::Make(Int64(), 4, {Bytes("\x0d"), Values<int64_t>({10, 0, 30, 40})}));
  EXPECT_EQ(arr->null_count(), 1);
  EXPECT_TRUE(arr->IsNull(1));
  EXPECT_EQ(arr->Value<int64_t>(3), 40);
  auto s = arr->Slice(1, 2);
  EXPECT_EQ(s->null_count(), 1);
  EXPECT_TRUE(s->IsNull(0));
  EXPECT_EQ(s->Value<int64_t>(1), 30);
  auto t = arr->Slice(2, 2);
  EXPECT_EQ(t->null_count(), 0);
}

TEST(ArrayTest, StringsShareBuffersWhenSliced) {
  ASSERT_OK_AND_ASSIGN(
      auto arr, Array::Make(String(), 3, {nullptr, Values<int32_t>({0, 2, 2, 5}), Bytes("abcde")}));
  EXPECT_EQ(arr->BytesValue(0), "ab");
  EXPECT_EQ(arr->BytesValue(1), "");
  auto s = arr->Slice(2, 1);
  EXPECT_EQ(s->BytesValue(0), "cde");
  EXPECT_EQ(s->buffer(2).get(), arr->buffer(2).get());
  EXPECT_OK(arr->ValidateFull());
}

TEST(ArrayTest, MemorySizeCountsBlocksWholeAndSlicesByWhatTheySpan) {
  // 20000 int64 values: 160000 bytes, which the default pool serves from a 256 KiB block.
  const int64_t n = 20000;
  ASSERT_OK_AND_ASSIGN(auto values, Buffer::CopyOf(std::string(static_cast<size_t>(n) * 8, 'x')));
  EXPECT_EQ(values->memory_size(), DefaultMemoryPool()->BlockBytes(n * 8));
  EXPECT_EQ(values->memory_size(), 256 << 10);
  ASSERT_OK_AND_ASSIGN(auto ints, Array::Make(Int64(), n, {nullptr, values}));
  EXPECT_EQ(ints->memory_size(), 256 << 10);
  // A view of memory counts its size; the slices of an array add up to what they span.
  EXPECT_EQ(Buffer::Slice(values, 8, 80)->memory_size(), 80);
  EXPECT_EQ(ints->Slice(0, 1000)->memory_size(), 8000);
  int64_t slices = 0;
  for (int64_t at = 0; at < n; at += 8192) {
    slices += ints->Slice(at, std::min<int64_t>(8192, n - at))->memory_size();
  }
  EXPECT_EQ(slices, n * 8);
  // A buffer two columns share counts once in a batch.
  auto schema =
      std::make_shared<Schema>(std::vector<Field>{Field("a", Int64()), Field("b", Int64())});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, n, {ints, ints}));
  EXPECT_EQ(batch->memory_size(), 256 << 10);
  EXPECT_EQ(batch->Slice(0, 100)->memory_size(), 800);
  // Strings span their offsets and their values' bytes; a list its offsets and elements.
  ASSERT_OK_AND_ASSIGN(
      auto strings,
      Array::Make(String(), 3, {nullptr, Values<int32_t>({0, 2, 2, 5}), Bytes("abcde")}));
  EXPECT_EQ(strings->Slice(2, 1)->memory_size(), 2 * 4 + 3);
  ASSERT_OK_AND_ASSIGN(auto elems, Array::Make(Int32(), 3, {nullptr, Values<int32_t>({1, 2, 3})}));
  ASSERT_OK_AND_ASSIGN(
      auto list, Array::Make(List(Int32()), 2, {nullptr, Values<int32_t>({0, 1, 3})}, {elems}));
  EXPECT_EQ(list->Slice(1, 1)->memory_size(), 2 * 4 + 2 * 4);
  EXPECT_EQ(list->Slice(1, 0)->memory_size(), 4);
  // Nested: a list of strings and a struct of strings measure their children's range.
  ASSERT_OK_AND_ASSIGN(
      auto string_list,
      Array::Make(List(String()), 2, {nullptr, Values<int32_t>({0, 1, 3})}, {strings}));
  EXPECT_EQ(string_list->Slice(1, 1)->memory_size(), 2 * 4 + 3 * 4 + 3);
  ASSERT_OK_AND_ASSIGN(auto st,
                       Array::Make(Struct({Field("s", String())}), 3, {nullptr}, {strings}));
  EXPECT_EQ(st->Slice(2, 1)->memory_size(), 2 * 4 + 3);
  EXPECT_EQ(st->Slice(1, 2)->Slice(1, 1)->memory_size(), 2 * 4 + 3);
  EXPECT_EQ(st->Slice(0, 2)->memory_size(), 3 * 4 + 2);
}

TEST(ArrayTest, MakeRejectsShortBuffersAndBadOffsets) {
  EXPECT_THAT(Array::Make(Int32(), 3, {nullptr, Values<int32_t>({1, 2})}),
              IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(Array::Make(String(), 1, {nullptr, Values<int32_t>({0, 9}), Bytes("abc")}),
              IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(Array::Make(Int32(), 1, {nullptr, Values<int32_t>({1})}, {}, 1),
              IsError(StatusCode::kInvalidArgument));
}

TEST(ArrayTest, ValidateFullFindsBadUtf8AndDecreasingOffsets) {
  ASSERT_OK_AND_ASSIGN(
      auto bad, Array::Make(String(), 1, {nullptr, Values<int32_t>({0, 2}), Bytes("\xc3\x28")}));
  EXPECT_THAT(bad->ValidateFull(), IsError(StatusCode::kInvalidArgument));
  ASSERT_OK_AND_ASSIGN(
      auto dec, Array::Make(Binary(), 2, {nullptr, Values<int32_t>({0, 3, 1}), Bytes("abc")}));
  EXPECT_THAT(dec->ValidateFull(), IsError(StatusCode::kInvalidArgument));
}

TEST(ArrayTest, StructFieldsFollowTheParentOffset) {
  ASSERT_OK_AND_ASSIGN(auto ints, Array::Make(Int32(), 3, {nullptr, Values<int32_t>({1, 2, 3})}));
  auto type = Struct({Field("a", Int32())});
  ASSERT_OK_AND_ASSIGN(auto st, Array::Make(type, 3, {nullptr}, {ints}));
  auto s = st->Slice(1, 2);
  EXPECT_EQ(s->field(0)->Value<int32_t>(0), 2);
  EXPECT_EQ(s->field(0)->length(), 2);
}

TEST(ArrayTest, ListsAndEquality) {
  ASSERT_OK_AND_ASSIGN(auto elems, Array::Make(Int32(), 3, {nullptr, Values<int32_t>({1, 2, 3})}));
  ASSERT_OK_AND_ASSIGN(
      auto list, Array::Make(List(Int32()), 2, {nullptr, Values<int32_t>({0, 1, 3})}, {elems}));
  EXPECT_EQ(list->ListEnd(1) - list->ListBegin(1), 2);
  ASSERT_OK_AND_ASSIGN(
      auto list2, Array::Make(List(Int32()), 2, {nullptr, Values<int32_t>({0, 1, 3})}, {elems}));
  EXPECT_TRUE(list->Equals(*list2));
  EXPECT_FALSE(list->Equals(*list2->Slice(0, 1)));
  EXPECT_THAT(Array::Make(List(Int32()), 2, {nullptr, Values<int32_t>({0, 1, 4})}, {elems}),
              IsError(StatusCode::kInvalidArgument));
}

TEST(ArrayTest, NullArraysOfEveryShape) {
  for (auto type : {Int64(), Boolean(), String(), Decimal(38, 2), List(String()),
                    Map(String(), Int64()), Struct({Field("x", Date())})}) {
    ASSERT_OK_AND_ASSIGN(auto arr, Array::MakeNull(type, 5));
    EXPECT_EQ(arr->null_count(), 5) << type->ToString();
    EXPECT_TRUE(arr->IsNull(4));
  }
}

TEST(RecordBatchTest, ChecksColumnsAgainstSchema) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("a", Int32())});
  ASSERT_OK_AND_ASSIGN(auto ints, Array::Make(Int32(), 2, {nullptr, Values<int32_t>({1, 2})}));
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 2, {ints}));
  EXPECT_EQ(batch->Slice(1, 1)->column(0)->Value<int32_t>(0), 2);
  EXPECT_THAT(RecordBatch::Make(schema, 3, {ints}), IsError(StatusCode::kInvalidArgument));
}

TEST(BufferTest, BuilderGrowsAndFinishes) {
  BufferBuilder b;
  for (int i = 0; i < 1000; ++i) ASSERT_OK(b.AppendValue<int32_t>(i));
  ASSERT_OK_AND_ASSIGN(auto buf, b.Finish());
  EXPECT_EQ(buf->size(), 4000);
  EXPECT_EQ(buf->data_as<int32_t>()[999], 999);
  EXPECT_EQ(b.size(), 0);
}

TEST(BitUtilTest, CountAndCopyBits) {
  std::vector<uint8_t> bits(20, 0);
  bit_util::SetBitsTo(bits.data(), 3, 100, true);
  EXPECT_EQ(bit_util::CountSetBits(bits.data(), 0, 160), 100);
  EXPECT_EQ(bit_util::CountSetBits(bits.data(), 5, 10), 10);
  std::vector<uint8_t> dst(20, 0);
  bit_util::CopyBitmap(bits.data(), 3, 100, dst.data(), 1);
  EXPECT_EQ(bit_util::CountSetBits(dst.data(), 1, 100), 100);
  EXPECT_FALSE(bit_util::GetBit(dst.data(), 0));
  EXPECT_FALSE(bit_util::GetBit(dst.data(), 101));
}

}  // namespace
}  // namespace floe

namespace floe {
namespace {

TEST(Utf8Test, AcceptsWellFormedAndRejectsTheRest) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii, longer than eight bytes"));
  EXPECT_TRUE(IsValidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("ascii run then \xc3"));  // truncated sequence
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));             // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));         // surrogate U+D800
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));     // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("12345678\x80\x80"));     // continuation without a lead
}

TEST(Utf8Test, IsAsciiFindsAHighByteAnywhere) {
  std::string bytes(100, 'a');
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  EXPECT_TRUE(IsAscii(data, 0));
  EXPECT_TRUE(IsAscii(data, bytes.size()));
  // At every position: in a 32-byte step, or in the tail after the last full one.
  for (size_t at = 0; at < bytes.size(); ++at) {
    bytes[at] = '\x80';
    EXPECT_FALSE(IsAscii(data, bytes.size())) << at;
    EXPECT_TRUE(IsAscii(data, at)) << at;
    bytes[at] = '\x7f';
  }
}

}  // namespace
}  // namespace floe
