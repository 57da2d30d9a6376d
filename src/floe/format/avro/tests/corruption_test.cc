// Hostile input: truncation at every byte, random byte flips, lying counts and sizes,
// bad sync markers and CRCs. Every case is an error or a clean read, never a crash.

#include <gtest/gtest.h>

#include <random>

#include "floe/batch/builder.h"
#include "floe/format/avro/encoding_internal.h"
#include "floe/format/avro/tests/avro_testing.h"
#include "floe/testing/matchers.h"

namespace floe::avro {
namespace {

using floe::testing::IsError;
using floe::testing::IsErrorWith;

const char* kSchema = R"({"type":"record","name":"r","fields":[
  {"name":"id","type":"long","field-id":1},
  {"name":"name","type":["null","string"],"default":null,"field-id":2},
  {"name":"tags","type":{"type":"array","items":"string","element-id":4},"field-id":3},
  {"name":"m","type":{"type":"map","values":"int","key-id":6,"value-id":7},"field-id":5}]})";

Result<std::string> SmallFile(const std::string& codec) {
  FLOE_ASSIGN_OR_RAISE(auto node, ParseAvroSchema(kSchema));
  FLOE_ASSIGN_OR_RAISE(Schema s, AvroToFloeSchema(*node));
  auto schema = std::make_shared<Schema>(s);
  std::vector<ArrayPtr> cols;
  Int64Builder id(Int64());
  BinaryBuilder name(String());
  ListBuilder tags(schema->field(2).type());
  MapBuilder m(schema->field(3).type());
  for (int r = 0; r < 6; ++r) {
    FLOE_RETURN_NOT_OK(id.Append(r * 1000));
    FLOE_RETURN_NOT_OK(r % 2 ? name.AppendNull() : name.Append("name" + std::to_string(r)));
    FLOE_RETURN_NOT_OK(tags.Append());
    for (int k = 0; k < r % 3; ++k) {
      FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(tags.value_builder())->Append("t"));
    }
    FLOE_RETURN_NOT_OK(m.Append());
    FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(m.key_builder())->Append("k"));
    FLOE_RETURN_NOT_OK(static_cast<Int32Builder*>(m.item_builder())->Append(r));
  }
  for (ArrayBuilder* b : std::initializer_list<ArrayBuilder*>{&id, &name, &tags, &m}) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, b->Finish());
    cols.push_back(a);
  }
  FLOE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(schema, 6, cols));
  AvroWriteOptions options;
  options.codec = codec;
  options.block_size_bytes = 40;
  return testing::WriteBytes(kSchema, {batch}, options);
}

// Opens and reads everything; returns the status.
Status ReadEverything(const std::string& bytes) {
  FLOE_ASSIGN_OR_RAISE(auto reader, testing::OpenBytes(bytes, "bad.avro"));
  FLOE_ASSIGN_OR_RAISE(Schema s, reader->FileSchema());
  return reader->ReadAll(std::make_shared<Schema>(s), 4).status();
}

class AvroCorruptionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AvroCorruptionTest, TruncationAtEveryByteIsAnError) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, SmallFile(GetParam()));
  ASSERT_OK(ReadEverything(bytes));
  for (size_t n = 0; n < bytes.size(); ++n) {
    Status s = ReadEverything(bytes.substr(0, n));
    // Cutting exactly at a block boundary leaves a valid, shorter file.
    if (s.ok()) continue;
    EXPECT_EQ(s.code(), StatusCode::kCorrupt) << n << ": " << s.ToString();
    EXPECT_NE(s.message().find("bad.avro"), std::string::npos) << s.ToString();
  }
}

TEST_P(AvroCorruptionTest, RandomByteFlipsNeverCrash) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, SmallFile(GetParam()));
  std::mt19937 rng(42);
  int errors = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string copy = bytes;
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      copy[rng() % copy.size()] = static_cast<char>(rng());
    }
    if (!ReadEverything(copy).ok()) ++errors;
  }
  EXPECT_GT(errors, 0);
}

INSTANTIATE_TEST_SUITE_P(Codecs, AvroCorruptionTest,
                         ::testing::Values("null", "deflate", "snappy", "zstd"));

std::string Header(const std::string& schema, const std::string& sync) {
  std::string out("Obj\x01", 4);
  internal::WriteVarLong(&out, 1);
  internal::WriteBytes(&out, "avro.schema");
  internal::WriteBytes(&out, schema);
  internal::WriteVarLong(&out, 0);
  return out + sync;
}

TEST(AvroCorruptionTest, LyingCountsAndSizesNameTheOffset) {
  const std::string sync(16, 'S');
  const std::string schema = R"({"type":"record","name":"r","fields":[{"name":"a","type":"long"}]})";
  auto target = std::make_shared<Schema>(std::vector<Field>{Field("a", Int64(), false)});
  std::string h = Header(schema, sync);
  const size_t block_at = h.size();
  auto block = [&](int64_t count, int64_t size, const std::string& data) {
    std::string out = h;
    internal::WriteVarLong(&out, count);
    internal::WriteVarLong(&out, size);
    return out + data + sync;
  };
  std::string ok = block(2, 2, std::string("\x02\x04", 2));
  ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadBytes(ok, target));
  EXPECT_EQ(batch->column(0)->Value<int64_t>(1), 2);

  std::string at = fmt::format("at byte offset {}", block_at);
  EXPECT_THAT(testing::ReadBytes(block(-1, 2, std::string("\x02\x04", 2)), target),
              IsErrorWith(StatusCode::kCorrupt, "negative block count -1"));
  EXPECT_THAT(testing::ReadBytes(block(-1, 2, std::string("\x02\x04", 2)), target),
              IsErrorWith(StatusCode::kCorrupt, at));
  EXPECT_THAT(testing::ReadBytes(block(INT64_MAX, 2, std::string("\x02\x04", 2)), target),
              IsErrorWith(StatusCode::kCorrupt, "block count 9223372036854775807 exceeds"));
  EXPECT_THAT(testing::ReadBytes(block(3, 2, std::string("\x02\x04", 2)), target),
              IsErrorWith(StatusCode::kCorrupt, "block count 3 exceeds the block's 2 bytes"));
  EXPECT_THAT(testing::ReadBytes(block(3, 3, std::string("\x02\x04\x80", 3)), target),
              IsErrorWith(StatusCode::kCorrupt, "value of 'a' runs past the end of the block"));
  EXPECT_THAT(testing::ReadBytes(block(1, 2, std::string("\x02\x04", 2)), target),
              IsErrorWith(StatusCode::kCorrupt, "1 bytes left over"));
  EXPECT_THAT(testing::ReadBytes(block(2, 1000, std::string("\x02\x04", 2)), target),
              IsErrorWith(StatusCode::kCorrupt, "block size 1000 exceeds"));
  EXPECT_THAT(testing::ReadBytes(block(2, -5, std::string("\x02\x04", 2)), target),
              IsError(StatusCode::kCorrupt));
  std::string bad_sync = ok;
  bad_sync[bad_sync.size() - 1] = 'X';
  EXPECT_THAT(testing::ReadBytes(bad_sync, target),
              IsErrorWith(StatusCode::kCorrupt, "sync marker mismatch"));
  // A header whose metadata count is huge.
  std::string huge("Obj\x01", 4);
  internal::WriteVarLong(&huge, int64_t{1} << 60);
  huge += std::string(40, '\0');
  EXPECT_THAT(testing::ReadBytes(huge, target),
              IsErrorWith(StatusCode::kCorrupt, "metadata block count"));
  EXPECT_THAT(testing::ReadBytes("Obj\x02" + std::string(40, '\0'), target),
              IsErrorWith(StatusCode::kCorrupt, "bad magic"));
}

TEST(AvroCorruptionTest, HugeArrayCountIsCorruptNotAnAllocation) {
  const std::string sync(16, 'S');
  const std::string schema = R"({"type":"record","name":"r","fields":[
      {"name":"a","type":{"type":"array","items":"long"}}]})";
  std::string rec;
  internal::WriteVarLong(&rec, int64_t{1} << 50);
  rec += std::string(8, '\x02');
  std::string file = Header(schema, sync);
  internal::WriteVarLong(&file, 1);
  internal::WriteVarLong(&file, static_cast<int64_t>(rec.size()));
  file += rec + sync;
  auto target =
      std::make_shared<Schema>(std::vector<Field>{Field("a", List(Int64(), false), false)});
  EXPECT_THAT(testing::ReadBytes(file, target),
              IsErrorWith(StatusCode::kCorrupt, "block count 1125899906842624 of 'a' exceeds"));
}

TEST(AvroCorruptionTest, SnappyCrcIsChecked) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, SmallFile("snappy"));
  ASSERT_OK_AND_ASSIGN(auto reader, testing::OpenBytes(bytes));
  // The first block's CRC sits just before its sync marker.
  size_t sync_at = bytes.find(std::string(reinterpret_cast<const char*>(reader->sync_marker().data()), 16),
                              bytes.size() > 0 ? 30 : 0);
  // Skip the header's own copy of the marker.
  sync_at = bytes.find(std::string(reinterpret_cast<const char*>(reader->sync_marker().data()), 16),
                       sync_at + 16);
  ASSERT_NE(sync_at, std::string::npos);
  bytes[sync_at - 1] ^= 0x01;
  EXPECT_THAT(ReadEverything(bytes), IsErrorWith(StatusCode::kCorrupt, "CRC32"));
}

}  // namespace
}  // namespace floe::avro
