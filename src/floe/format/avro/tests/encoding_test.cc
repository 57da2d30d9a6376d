// The Avro binary encoding, byte for byte (Avro specification, "Binary Encoding").

#include <gtest/gtest.h>

#include <vector>

#include "floe/batch/builder.h"
#include "floe/format/avro/encoding_internal.h"
#include "floe/format/avro/tests/avro_testing.h"
#include "floe/testing/matchers.h"

namespace floe::avro {
namespace {

using internal::ReadVarLong;
using internal::WriteVarLong;

std::string Hex(std::string_view s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("{:02x}", c);
  return out;
}

TEST(AvroEncodingTest, ZigZagVarintsMatchTheSpecTable) {
  // The specification's examples: 0 -> 00, -1 -> 01, 1 -> 02, -2 -> 03, 2 -> 04,
  // -64 -> 7f, 64 -> 80 01.
  const std::pair<int64_t, std::string> cases[] = {{0, "00"},
                                                   {-1, "01"},
                                                   {1, "02"},
                                                   {-2, "03"},
                                                   {2, "04"},
                                                   {-64, "7f"},
                                                   {64, "8001"},
                                                   {INT64_MAX, "feffffffffffffffff01"},
                                                   {INT64_MIN, "ffffffffffffffffff01"}};
  for (const auto& [v, hex] : cases) {
    std::string out;
    WriteVarLong(&out, v);
    EXPECT_EQ(Hex(out), hex) << v;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(out.data());
    int64_t back;
    ASSERT_TRUE(ReadVarLong(p, p + out.size(), &back));
    EXPECT_EQ(back, v);
    // The slow (near-the-end) path too: exactly the varint's bytes, no padding.
    std::string padded = out + std::string(12, '\0');
    p = reinterpret_cast<const uint8_t*>(padded.data());
    ASSERT_TRUE(ReadVarLong(p, p + padded.size(), &back));
    EXPECT_EQ(back, v);
    EXPECT_EQ(p - reinterpret_cast<const uint8_t*>(padded.data()),
              static_cast<int64_t>(out.size()));
  }
}

// Every varint length from 1 to 10 bytes, at the edges of each length, through the
// branch-free path (8 readable bytes), the byte loop for 9 and 10 bytes, and the
// near-the-end path; also non-minimal encodings, which the spec does not forbid.
TEST(AvroEncodingTest, VarintsOfEveryLength) {
  std::vector<int64_t> values = {INT64_MIN, INT64_MAX};
  for (int bits = 0; bits < 63; ++bits) {
    int64_t edge = int64_t{1} << bits;
    for (int64_t v : {edge - 1, edge, edge + 1, -edge, -edge - 1, -edge + 1}) values.push_back(v);
  }
  for (int64_t v : values) {
    std::string out;
    WriteVarLong(&out, v);
    for (size_t padding : {size_t{0}, size_t{3}, size_t{16}}) {
      std::string bytes = out + std::string(padding, '\xff');
      const uint8_t* begin = reinterpret_cast<const uint8_t*>(bytes.data());
      const uint8_t* p = begin;
      int64_t back = 0;
      ASSERT_TRUE(ReadVarLong(p, begin + bytes.size(), &back)) << v << " " << padding;
      EXPECT_EQ(back, v) << padding;
      EXPECT_EQ(p - begin, static_cast<int64_t>(out.size())) << v << " " << padding;
    }
  }
  for (int length = 2; length <= 10; ++length) {
    // 3 (zigzag -2) written in `length` bytes, then bytes that must not be read.
    std::string bytes(static_cast<size_t>(length), '\x80');
    bytes[0] = '\x83';
    bytes[static_cast<size_t>(length - 1)] = '\0';
    bytes += std::string(12, '\xff');
    const uint8_t* begin = reinterpret_cast<const uint8_t*>(bytes.data());
    const uint8_t* p = begin;
    int64_t back = 0;
    ASSERT_TRUE(ReadVarLong(p, begin + bytes.size(), &back)) << length;
    EXPECT_EQ(back, -2) << length;
    EXPECT_EQ(p - begin, length);
  }
}

TEST(AvroEncodingTest, OverlongAndTruncatedVarintsAreRejected) {
  std::string overlong(11, '\x80');
  overlong.push_back('\x01');
  const uint8_t* p = reinterpret_cast<const uint8_t*>(overlong.data());
  int64_t v;
  EXPECT_FALSE(ReadVarLong(p, p + overlong.size(), &v));
  std::string truncated("\x80\x80", 2);
  p = reinterpret_cast<const uint8_t*>(truncated.data());
  EXPECT_FALSE(ReadVarLong(p, p + truncated.size(), &v));
}

// A record {long, string, union[null,int], array<int>} written by floe must be the
// exact bytes the specification prescribes.
TEST(AvroEncodingTest, RecordBytesFollowTheSpec) {
  const std::string schema = R"({"type":"record","name":"r","fields":[
    {"name":"a","type":"long","field-id":1},
    {"name":"s","type":"string","field-id":2},
    {"name":"u","type":["null","int"],"default":null,"field-id":3},
    {"name":"l","type":{"type":"array","items":"int","element-id":5},"field-id":4}]})";
  auto fs = std::make_shared<Schema>(std::vector<Field>{
      Field("a", Int64(), false, 1), Field("s", String(), false, 2), Field("u", Int32(), true, 3),
      Field("l", List(Field("element", Int32(), false, 5)), false, 4)});
  Int64Builder a(Int64());
  BinaryBuilder s(String());
  Int32Builder u(Int32());
  ListBuilder l(fs->field(3).type());
  ASSERT_OK(a.Append(-2));
  ASSERT_OK(s.Append("foo"));
  ASSERT_OK(u.AppendNull());
  ASSERT_OK(l.Append());
  auto* e = static_cast<Int32Builder*>(l.value_builder());
  ASSERT_OK(e->Append(1));
  ASSERT_OK(e->Append(-1));
  ASSERT_OK_AND_ASSIGN(auto ca, a.Finish());
  ASSERT_OK_AND_ASSIGN(auto cs, s.Finish());
  ASSERT_OK_AND_ASSIGN(auto cu, u.Finish());
  ASSERT_OK_AND_ASSIGN(auto cl, l.Finish());
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(fs, 1, {ca, cs, cu, cl}));
  AvroWriteOptions options;
  options.sync_marker = std::array<uint8_t, 16>{};
  ASSERT_OK_AND_ASSIGN(std::string bytes, testing::WriteBytes(schema, {batch}, options));
  // Block: count 1 (02), size 10 (14), then 03 | 06 "foo" | 00 | 04 02 01 00, sync.
  std::string tail = Hex(bytes.substr(bytes.size() - 16 - 12, 12));
  EXPECT_EQ(tail,
            "021403"
            "06666f6f"
            "00"
            "04020100");
  EXPECT_EQ(Hex(bytes.substr(0, 4)), "4f626a01");
}

// Blocks with negative counts carry a byte size (Avro "Arrays" and "Maps"); both
// forms must decode, and a byte size past the data is Corrupt.
TEST(AvroEncodingTest, NegativeBlockCountsWithByteSizes) {
  const std::string schema =
      R"({"type":"record","name":"r","fields":[{"name":"l","type":{"type":"array","items":"int"}},
        {"name":"m","type":{"type":"map","values":"long"}}]})";
  std::string header("Obj\x01", 4);
  internal::WriteVarLong(&header, 1);
  internal::WriteBytes(&header, "avro.schema");
  internal::WriteBytes(&header, schema);
  internal::WriteVarLong(&header, 0);
  std::string sync(16, '\x42');
  header += sync;
  // l = [7, 8] as one block of count -2 with byte size 2, then [9] as count 1; m = {"k": 3}
  // as count -1, size 3.
  std::string rec;
  internal::WriteVarLong(&rec, -2);
  internal::WriteVarLong(&rec, 2);
  internal::WriteVarLong(&rec, 7);
  internal::WriteVarLong(&rec, 8);
  internal::WriteVarLong(&rec, 1);
  internal::WriteVarLong(&rec, 9);
  internal::WriteVarLong(&rec, 0);
  internal::WriteVarLong(&rec, -1);
  internal::WriteVarLong(&rec, 3);
  internal::WriteBytes(&rec, "k");
  internal::WriteVarLong(&rec, 3);
  internal::WriteVarLong(&rec, 0);
  std::string file = header;
  internal::WriteVarLong(&file, 1);
  internal::WriteVarLong(&file, static_cast<int64_t>(rec.size()));
  file += rec + sync;

  auto target = std::make_shared<Schema>(std::vector<Field>{
      Field("l", List(Int32(), false), true), Field("m", Map(String(), Int64(), false), true)});
  ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadBytes(file, target));
  ASSERT_EQ(batch->num_rows(), 1);
  const Array& l = *batch->column(0);
  ASSERT_EQ(l.ListEnd(0) - l.ListBegin(0), 3);
  EXPECT_EQ(l.child(0)->Value<int32_t>(0), 7);
  EXPECT_EQ(l.child(0)->Value<int32_t>(1), 8);
  EXPECT_EQ(l.child(0)->Value<int32_t>(2), 9);
  const Array& m = *batch->column(1);
  ASSERT_EQ(m.ListEnd(0), 1);
  EXPECT_EQ(m.child(0)->child(0)->BytesValue(0), "k");
  EXPECT_EQ(m.child(0)->child(1)->Value<int64_t>(0), 3);

  // The same with a byte size that points past the block: Corrupt.
  std::string bad = rec;
  bad[1] = 0x7e;  // byte size 63
  std::string bad_file = header;
  internal::WriteVarLong(&bad_file, 1);
  internal::WriteVarLong(&bad_file, static_cast<int64_t>(bad.size()));
  bad_file += bad + sync;
  EXPECT_THAT(testing::ReadBytes(bad_file, target),
              floe::testing::IsErrorWith(StatusCode::kCorrupt, "block byte size 63"));
}

}  // namespace
}  // namespace floe::avro
