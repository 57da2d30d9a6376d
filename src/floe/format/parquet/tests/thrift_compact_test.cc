#include "floe/format/parquet/thrift_compact.h"

#include <cstdint>
#include <string>
#include <vector>

#include "floe/testing/matchers.h"

namespace floe::parquet {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string Hex(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("{:02x}", c);
  return out;
}

std::string FromBytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

TEST(ThriftCompactTest, VarintFromSpecExample) {
  std::string out;
  ThriftCompactWriter w(&out);
  w.WriteVarint(50399);
  EXPECT_EQ(Hex(out), "df8903");
  ThriftCompactReader r(Bytes(out));
  ASSERT_OK_AND_ASSIGN(uint64_t v, r.ReadVarint());
  EXPECT_EQ(v, 50399u);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftCompactTest, ZigZagIntegers) {
  struct Case {
    int64_t value;
    const char* hex;
  };
  for (const Case& c : {Case{0, "00"}, Case{-1, "01"}, Case{1, "02"}, Case{-2, "03"},
                        Case{-64, "7f"}, Case{64, "8001"}, Case{-65, "8101"},
                        Case{2147483647, "feffffff0f"}, Case{-2147483648LL, "ffffffff0f"}}) {
    std::string out;
    ThriftCompactWriter w(&out);
    w.WriteI32(static_cast<int32_t>(c.value));
    EXPECT_EQ(Hex(out), c.hex) << c.value;
    ThriftCompactReader r(Bytes(out));
    ASSERT_OK_AND_ASSIGN(int32_t v, r.ReadI32());
    EXPECT_EQ(v, c.value);
  }
  std::string out;
  ThriftCompactWriter w(&out);
  w.WriteI64(INT64_MIN);
  w.WriteI64(INT64_MAX);
  w.WriteI16(-32768);
  EXPECT_EQ(Hex(out),
            "ffffffffffffffffff01"
            "feffffffffffffffff01"
            "ffff03");
  ThriftCompactReader r(Bytes(out));
  ASSERT_OK_AND_ASSIGN(int64_t a, r.ReadI64());
  ASSERT_OK_AND_ASSIGN(int64_t b, r.ReadI64());
  ASSERT_OK_AND_ASSIGN(int16_t c, r.ReadI16());
  EXPECT_EQ(a, INT64_MIN);
  EXPECT_EQ(b, INT64_MAX);
  EXPECT_EQ(c, -32768);
}

TEST(ThriftCompactTest, OutOfRangeIntegersAreCorrupt) {
  // 2^32 as a varint does not fit an i32; 2^16 does not fit an i16.
  std::string big = FromBytes({0x80, 0x80, 0x80, 0x80, 0x10});
  ThriftCompactReader r(Bytes(big));
  EXPECT_THAT(r.ReadI32(), IsErrorWith(StatusCode::kCorrupt, "i32 out of range"));
  std::string mid = FromBytes({0x80, 0x80, 0x04});
  ThriftCompactReader r2(Bytes(mid));
  EXPECT_THAT(r2.ReadI16(), IsErrorWith(StatusCode::kCorrupt, "i16 out of range"));
}

TEST(ThriftCompactTest, VarintLongerThanTenBytesIsCorrupt) {
  std::string eleven(10, static_cast<char>(0x80));
  eleven.push_back(0x01);
  ThriftCompactReader r(Bytes(eleven));
  EXPECT_THAT(r.ReadVarint(), IsErrorWith(StatusCode::kCorrupt, "byte offset 0"));
  // Ten bytes whose last one has bits beyond 2^63.
  std::string overflow(9, static_cast<char>(0xff));
  overflow.push_back(0x02);
  ThriftCompactReader r2(Bytes(overflow));
  EXPECT_THAT(r2.ReadVarint(), IsErrorWith(StatusCode::kCorrupt, "overflows 64 bits"));
}

TEST(ThriftCompactTest, FieldHeadersShortAndLongForm) {
  std::string out;
  ThriftCompactWriter w(&out);
  w.BeginStruct();
  w.WriteFieldHeader(ThriftType::kI32, 1);  // delta 1: 0x15
  w.WriteI32(3);
  w.WriteFieldHeader(ThriftType::kBinary, 16);  // delta 15: 0xf8
  w.WriteBinary("ab");
  w.WriteFieldHeader(ThriftType::kI64, 40);  // delta 24: long form 0x06, zigzag(40) = 80
  w.WriteI64(-1);
  w.WriteFieldHeader(ThriftType::kI8, 2);  // smaller id: long form 0x03, zigzag(2) = 4
  w.WriteI8(-2);
  w.WriteFieldBool(3, true);   // 0x11
  w.WriteFieldBool(4, false);  // 0x12
  w.WriteFieldHeader(ThriftType::kDouble, 5);
  w.WriteDouble(1.5);
  w.EndStruct();
  EXPECT_EQ(Hex(out),
            "1506"
            "f8026162"
            "065001"
            "0304fe"
            "11"
            "12"
            "17000000000000f83f"
            "00");

  ThriftCompactReader r(Bytes(out));
  ASSERT_OK(r.BeginStruct());
  ASSERT_OK_AND_ASSIGN(ThriftFieldHeader f, r.ReadFieldHeader());
  EXPECT_EQ(f.type, ThriftType::kI32);
  EXPECT_EQ(f.id, 1);
  EXPECT_EQ(r.ReadI32().value(), 3);
  ASSERT_OK_AND_ASSIGN(f, r.ReadFieldHeader());
  EXPECT_EQ(f.id, 16);
  EXPECT_EQ(r.ReadBinary().value(), "ab");
  ASSERT_OK_AND_ASSIGN(f, r.ReadFieldHeader());
  EXPECT_EQ(f.type, ThriftType::kI64);
  EXPECT_EQ(f.id, 40);
  EXPECT_EQ(r.ReadI64().value(), -1);
  ASSERT_OK_AND_ASSIGN(f, r.ReadFieldHeader());
  EXPECT_EQ(f.id, 2);
  EXPECT_EQ(r.ReadI8().value(), -2);
  ASSERT_OK_AND_ASSIGN(f, r.ReadFieldHeader());
  EXPECT_EQ(f.type, ThriftType::kBool);
  EXPECT_EQ(f.id, 3);
  EXPECT_EQ(r.ReadBool().value(), true);
  ASSERT_OK_AND_ASSIGN(f, r.ReadFieldHeader());
  EXPECT_EQ(f.id, 4);
  EXPECT_EQ(r.ReadBool().value(), false);
  ASSERT_OK_AND_ASSIGN(f, r.ReadFieldHeader());
  EXPECT_EQ(f.type, ThriftType::kDouble);
  EXPECT_EQ(r.ReadDouble().value(), 1.5);
  ASSERT_OK_AND_ASSIGN(f, r.ReadFieldHeader());
  EXPECT_EQ(f.type, ThriftType::kStop);
  r.EndStruct();
  EXPECT_EQ(r.position(), out.size());
}

TEST(ThriftCompactTest, ListHeadersShortAndLongForm) {
  std::string out;
  ThriftCompactWriter w(&out);
  w.WriteListHeader(ThriftType::kI32, 3);  // 0x35
  for (int i = 0; i < 3; ++i) w.WriteI32(i);
  w.WriteListHeader(ThriftType::kI8, 14);  // 0xe3
  for (int i = 0; i < 14; ++i) w.WriteI8(static_cast<int8_t>(i));
  w.WriteListHeader(ThriftType::kI8, 15);  // 0xf3 0x0f
  for (int i = 0; i < 15; ++i) w.WriteI8(static_cast<int8_t>(i));
  w.WriteSetHeader(ThriftType::kBinary, 300);  // 0xf8 0xac 0x02
  for (int i = 0; i < 300; ++i) w.WriteBinary("");
  w.WriteListHeader(ThriftType::kBool, 2);  // 0x21, then 1 and 2
  w.WriteBool(true);
  w.WriteBool(false);
  EXPECT_EQ(Hex(out.substr(0, 4)), "35000204");
  EXPECT_EQ(static_cast<uint8_t>(out[4]), 0xe3);
  EXPECT_EQ(Hex(out.substr(19, 2)), "f30f");
  EXPECT_EQ(Hex(out.substr(36, 3)), "f8ac02");
  EXPECT_EQ(Hex(out.substr(339)), "210102");

  ThriftCompactReader r(Bytes(out));
  ASSERT_OK_AND_ASSIGN(ThriftListHeader h, r.ReadListHeader());
  EXPECT_EQ(h.element_type, ThriftType::kI32);
  EXPECT_EQ(h.size, 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r.ReadI32().value(), i);
  ASSERT_OK_AND_ASSIGN(h, r.ReadListHeader());
  EXPECT_EQ(h.size, 14u);
  ASSERT_OK(r.Skip(ThriftType::kI8));
  ASSERT_OK(r.Skip(ThriftType::kI8));
  for (int i = 2; i < 14; ++i) EXPECT_EQ(r.ReadI8().value(), i);
  ASSERT_OK(r.Skip(ThriftType::kList));
  ASSERT_OK_AND_ASSIGN(h, r.ReadListHeader());
  EXPECT_EQ(h.element_type, ThriftType::kBinary);
  EXPECT_EQ(h.size, 300u);
  for (int i = 0; i < 300; ++i) ASSERT_OK(r.ReadBinary());
  ASSERT_OK_AND_ASSIGN(h, r.ReadListHeader());
  EXPECT_EQ(h.element_type, ThriftType::kBool);
  EXPECT_EQ(r.ReadBool().value(), true);
  EXPECT_EQ(r.ReadBool().value(), false);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftCompactTest, BoolElementsAsTheSpecWritesThem) {
  // The spec's element type 2 with 0 for false is read as well as the libraries' 1/2.
  std::string in = FromBytes({0x32, 0x01, 0x00, 0x02});
  ThriftCompactReader r(Bytes(in));
  ASSERT_OK_AND_ASSIGN(ThriftListHeader h, r.ReadListHeader());
  EXPECT_EQ(h.element_type, ThriftType::kBool);
  EXPECT_EQ(r.ReadBool().value(), true);
  EXPECT_EQ(r.ReadBool().value(), false);
  EXPECT_EQ(r.ReadBool().value(), false);
  std::string bad = FromBytes({0x07});
  ThriftCompactReader r2(Bytes(bad));
  EXPECT_THAT(r2.ReadBool(), IsError(StatusCode::kCorrupt));
}

TEST(ThriftCompactTest, Maps) {
  std::string out;
  ThriftCompactWriter w(&out);
  w.WriteMapHeader(ThriftType::kBinary, ThriftType::kI32, 0);
  w.WriteMapHeader(ThriftType::kBinary, ThriftType::kI32, 2);
  w.WriteBinary("a");
  w.WriteI32(1);
  w.WriteBinary("b");
  w.WriteI32(-1);
  EXPECT_EQ(Hex(out),
            "00"
            "0285"
            "016102"
            "016201");
  ThriftCompactReader r(Bytes(out));
  ASSERT_OK_AND_ASSIGN(ThriftMapHeader h, r.ReadMapHeader());
  EXPECT_EQ(h.size, 0u);
  ASSERT_OK_AND_ASSIGN(h, r.ReadMapHeader());
  EXPECT_EQ(h.size, 2u);
  EXPECT_EQ(h.key_type, ThriftType::kBinary);
  EXPECT_EQ(h.value_type, ThriftType::kI32);
  EXPECT_EQ(r.ReadBinary().value(), "a");
  EXPECT_EQ(r.ReadI32().value(), 1);
  ThriftCompactReader skip(Bytes(out));
  ASSERT_OK(skip.Skip(ThriftType::kMap));
  ASSERT_OK(skip.Skip(ThriftType::kMap));
  EXPECT_EQ(skip.remaining(), 0u);
}

// A struct holding one field of every type, then a known i32 field 100.
std::string EveryTypeStruct() {
  std::string out;
  ThriftCompactWriter w(&out);
  w.BeginStruct();
  w.WriteFieldBool(1, true);
  w.WriteFieldBool(2, false);
  w.WriteFieldHeader(ThriftType::kI8, 3);
  w.WriteI8(7);
  w.WriteFieldHeader(ThriftType::kI16, 4);
  w.WriteI16(-300);
  w.WriteFieldHeader(ThriftType::kI32, 5);
  w.WriteI32(123456);
  w.WriteFieldHeader(ThriftType::kI64, 6);
  w.WriteI64(-1234567890123);
  w.WriteFieldHeader(ThriftType::kDouble, 7);
  w.WriteDouble(-0.25);
  w.WriteFieldHeader(ThriftType::kBinary, 8);
  w.WriteBinary("hello");
  w.WriteFieldHeader(ThriftType::kList, 9);
  w.WriteListHeader(ThriftType::kList, 2);
  w.WriteListHeader(ThriftType::kI64, 1);
  w.WriteI64(5);
  w.WriteListHeader(ThriftType::kBool, 1);
  w.WriteBool(true);
  w.WriteFieldHeader(ThriftType::kSet, 10);
  w.WriteSetHeader(ThriftType::kDouble, 1);
  w.WriteDouble(2.0);
  w.WriteFieldHeader(ThriftType::kMap, 11);
  w.WriteMapHeader(ThriftType::kI32, ThriftType::kStruct, 1);
  w.WriteI32(1);
  w.BeginStruct();
  w.WriteFieldBool(1, false);
  w.EndStruct();
  w.WriteFieldHeader(ThriftType::kStruct, 12);
  w.BeginStruct();
  w.WriteFieldHeader(ThriftType::kStruct, 1);
  w.BeginStruct();
  w.WriteFieldHeader(ThriftType::kBinary, 300);
  w.WriteBinary("deep");
  w.EndStruct();
  w.EndStruct();
  w.WriteFieldHeader(ThriftType::kUuid, 13);
  const uint8_t uuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  w.WriteUuid(std::span<const uint8_t, 16>(uuid));
  w.WriteFieldHeader(ThriftType::kI32, 100);
  w.WriteI32(42);
  w.EndStruct();
  EXPECT_OK(w.status());
  return out;
}

TEST(ThriftCompactTest, SkipsUnknownFieldsOfEveryType) {
  const std::string in = EveryTypeStruct();
  ThriftCompactReader r(Bytes(in));
  ASSERT_OK(r.BeginStruct());
  int skipped = 0;
  int32_t known = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(ThriftFieldHeader f, r.ReadFieldHeader());
    if (f.type == ThriftType::kStop) break;
    if (f.id == 100) {
      ASSERT_OK_AND_ASSIGN(known, r.ReadI32());
    } else {
      ASSERT_OK(r.Skip(f.type));
      ++skipped;
    }
  }
  r.EndStruct();
  EXPECT_EQ(skipped, 13);
  EXPECT_EQ(known, 42);
  EXPECT_EQ(r.remaining(), 0u);
  // The struct can also be skipped whole.
  ThriftCompactReader whole(Bytes(in));
  ASSERT_OK(whole.Skip(ThriftType::kStruct));
  EXPECT_EQ(whole.remaining(), 0u);
}

TEST(ThriftCompactTest, TruncationAtEveryByteIsAnError) {
  const std::string in = EveryTypeStruct();
  for (size_t n = 0; n < in.size(); ++n) {
    const std::string prefix = in.substr(0, n);
    ThriftCompactReader r(Bytes(prefix));
    EXPECT_THAT(r.Skip(ThriftType::kStruct), IsError(StatusCode::kCorrupt)) << n;
  }
}

TEST(ThriftCompactTest, HugeListCountFailsWithoutAllocating) {
  // A list header claiming 2^31 - 1 i64 elements, followed by a few bytes.
  std::string in = FromBytes({0xf6, 0xff, 0xff, 0xff, 0xff, 0x07, 0, 0, 0, 0});
  ThriftCompactReader r(Bytes(in));
  EXPECT_THAT(r.ReadListHeader(), IsErrorWith(StatusCode::kCorrupt, "cannot fit"));
  // 2^31 exceeds the protocol's limit.
  std::string over = FromBytes({0xf6, 0x80, 0x80, 0x80, 0x80, 0x08, 0, 0, 0, 0});
  ThriftCompactReader r2(Bytes(over));
  EXPECT_THAT(r2.ReadListHeader(), IsErrorWith(StatusCode::kCorrupt, "exceeds 2^31 - 1"));
  // A map claiming many entries.
  std::string map = FromBytes({0xff, 0xff, 0xff, 0xff, 0x07, 0x88, 0, 0});
  ThriftCompactReader r3(Bytes(map));
  EXPECT_THAT(r3.ReadMapHeader(), IsErrorWith(StatusCode::kCorrupt, "cannot fit"));
  // A binary longer than the input.
  std::string bin = FromBytes({0x0a, 'a', 'b'});
  ThriftCompactReader r4(Bytes(bin));
  EXPECT_THAT(r4.ReadBinary(), IsErrorWith(StatusCode::kCorrupt, "binary length 10"));
}

TEST(ThriftCompactTest, DeepNestingFails) {
  // 100 nested structs, each field 1 holding the next.
  std::string in;
  for (int i = 0; i < 100; ++i) in.push_back(0x1c);
  in.append(100, '\0');
  ThriftCompactReader r(Bytes(in));
  EXPECT_THAT(r.Skip(ThriftType::kStruct), IsErrorWith(StatusCode::kCorrupt, "nesting deeper"));
  // 100 nested lists.
  std::string lists(100, static_cast<char>(0x19));
  lists.push_back(0x00);
  ThriftCompactReader r2(Bytes(lists));
  EXPECT_THAT(r2.Skip(ThriftType::kList), IsErrorWith(StatusCode::kCorrupt, "nesting deeper"));
  // Nesting within the limit is accepted.
  std::string ok;
  for (int i = 0; i < 60; ++i) ok.push_back(0x1c);
  ok.append(61, '\0');
  ThriftCompactReader r3(Bytes(ok));
  EXPECT_OK(r3.Skip(ThriftType::kStruct));
}

TEST(ThriftCompactTest, UnknownTypeCodesAreCorrupt) {
  std::string in = FromBytes({0x1e});
  ThriftCompactReader r(Bytes(in));
  ASSERT_OK(r.BeginStruct());
  EXPECT_THAT(r.ReadFieldHeader(), IsErrorWith(StatusCode::kCorrupt, "unknown field type code 14"));
  std::string list = FromBytes({0x1f, 0x00});
  ThriftCompactReader r2(Bytes(list));
  EXPECT_THAT(r2.ReadListHeader(), IsErrorWith(StatusCode::kCorrupt, "element type code 15"));
}

TEST(ThriftCompactTest, ErrorsNameFieldPathAndOffset) {
  std::string in = FromBytes({0x15});
  ThriftCompactReader r(Bytes(in), 1000);
  r.PushField("FileMetaData");
  r.PushField("row_groups");
  r.SetFieldIndex(3);
  r.PushField("num_rows");
  ASSERT_OK(r.BeginStruct());
  ASSERT_OK(r.ReadFieldHeader());
  EXPECT_THAT(r.ReadI32(),
              IsErrorWith(StatusCode::kCorrupt,
                          "FileMetaData.row_groups[3].num_rows: input ends inside a varint at "
                          "byte offset 1001"));
}

}  // namespace
}  // namespace floe::parquet
