// Schema resolution: fields matched by id at every level, missing optional fields read
// as NULL, unknown fields skipped, promotions, union branches.

#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/format/avro/encoding_internal.h"
#include "floe/format/avro/tests/avro_testing.h"
#include "floe/testing/matchers.h"

namespace floe::avro {
namespace {

using floe::testing::IsErrorWith;
using internal::WriteBytes;
using internal::WriteVarLong;

// A file whose records are given as raw encoded bytes.
std::string MakeFile(const std::string& schema, const std::vector<std::string>& records) {
  std::string out("Obj\x01", 4);
  WriteVarLong(&out, 1);
  WriteBytes(&out, "avro.schema");
  WriteBytes(&out, schema);
  WriteVarLong(&out, 0);
  std::string sync = "0123456789abcdef";
  out += sync;
  std::string block;
  for (const auto& r : records) block += r;
  WriteVarLong(&out, static_cast<int64_t>(records.size()));
  WriteVarLong(&out, static_cast<int64_t>(block.size()));
  out += block + sync;
  return out;
}

const char* kWriter = R"({"type":"record","name":"r","fields":[
  {"name":"a","type":"int","field-id":1},
  {"name":"gone","type":{"type":"record","name":"g","fields":[
     {"name":"x","type":{"type":"array","items":{"type":"map","values":"string"}}},
     {"name":"y","type":["null","double","string"]},
     {"name":"z","type":{"type":"fixed","name":"f3","size":3}}]},"field-id":9},
  {"name":"s","type":{"type":"record","name":"s","fields":[
     {"name":"p","type":"float","field-id":21},
     {"name":"unknown","type":"string","field-id":22},
     {"name":"q","type":["null","long"],"field-id":23}]},"field-id":2},
  {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"]},"field-id":3},
  {"name":"l","type":{"type":"array","items":{"type":"record","name":"el","fields":[
     {"name":"k","type":"int","field-id":31},{"name":"drop","type":"bytes","field-id":32}]},
     "element-id":30},"field-id":4}]})";

std::string Record(int a, float p, std::optional<int64_t> q, int e, std::vector<int> ks) {
  std::string r;
  WriteVarLong(&r, a);
  // gone: x = [{"m": "v"}], y = branch 2 "str", z = "abc"
  WriteVarLong(&r, 1);
  WriteVarLong(&r, 1);
  WriteBytes(&r, "m");
  WriteBytes(&r, "v");
  WriteVarLong(&r, 0);
  WriteVarLong(&r, 0);
  WriteVarLong(&r, 2);
  WriteBytes(&r, "str");
  r += "abc";
  // s
  r.append(reinterpret_cast<const char*>(&p), 4);
  WriteBytes(&r, "skip me");
  if (q) {
    WriteVarLong(&r, 1);
    WriteVarLong(&r, *q);
  } else {
    WriteVarLong(&r, 0);
  }
  WriteVarLong(&r, e);
  if (!ks.empty()) {
    WriteVarLong(&r, static_cast<int64_t>(ks.size()));
    for (int k : ks) {
      WriteVarLong(&r, k);
      WriteBytes(&r, "xx");
    }
  }
  WriteVarLong(&r, 0);
  return r;
}

TEST(AvroResolutionTest, ReorderSkipPromoteAndFillMissing) {
  std::string file = MakeFile(kWriter, {Record(5, 1.5f, 77, 1, {1, 2}), Record(-3, -2.0f, {}, 0, {})});
  // Target: reordered, renamed (ids decide), promoted, with missing optional fields at the
  // top level and inside the struct and the list's element record.
  auto target = std::make_shared<Schema>(std::vector<Field>{
      Field("new_col", String(), true, 100),
      Field("list", List(Field("element", Struct({Field("added", Int32(), true, 33),
                                                   Field("key", Int64(), false, 31)}),
                               false, 30)),
            false, 4),
      Field("sss", Struct({Field("qq", Int64(), true, 23), Field("pp", Float64(), false, 21),
                           Field("nn", Boolean(), true, 24)}),
            false, 2),
      Field("aa", Float64(), false, 1),
      Field("ee", String(), false, 3),
  });
  ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadBytes(file, target));
  ASSERT_EQ(batch->num_rows(), 2);
  EXPECT_EQ(batch->column(0)->null_count(), 2);
  const Array& list = *batch->column(1);
  ASSERT_EQ(list.ListEnd(0), 2);
  ASSERT_EQ(list.ListEnd(1), 2);
  const Array& el = *list.child(0);
  EXPECT_TRUE(el.child(0)->IsNull(0));
  EXPECT_EQ(el.child(1)->Value<int64_t>(0), 1);
  EXPECT_EQ(el.child(1)->Value<int64_t>(1), 2);
  const Array& s = *batch->column(2);
  EXPECT_EQ(s.child(0)->Value<int64_t>(0), 77);
  EXPECT_TRUE(s.child(0)->IsNull(1));
  EXPECT_EQ(s.child(1)->Value<double>(0), 1.5);
  EXPECT_EQ(s.child(1)->Value<double>(1), -2.0);
  EXPECT_EQ(s.child(2)->null_count(), 2);
  EXPECT_EQ(batch->column(3)->Value<double>(0), 5.0);
  EXPECT_EQ(batch->column(3)->Value<double>(1), -3.0);
  EXPECT_EQ(batch->column(4)->BytesValue(0), "Y");
  EXPECT_EQ(batch->column(4)->BytesValue(1), "X");
  for (const auto& c : batch->columns()) ASSERT_OK(c->ValidateFull());
}

TEST(AvroResolutionTest, NameFallbackOnlyWithoutIds) {
  std::string file = MakeFile(kWriter, {Record(5, 1.5f, 77, 1, {})});
  auto by_name = std::make_shared<Schema>(std::vector<Field>{Field("a", Int64(), false)});
  ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadBytes(file, by_name));
  EXPECT_EQ(batch->column(0)->Value<int64_t>(0), 5);
  // With an id that the file lacks, the name "a" must not match.
  auto by_id = std::make_shared<Schema>(std::vector<Field>{Field("a", Int64(), true, 77)});
  ASSERT_OK_AND_ASSIGN(batch, testing::ReadBytes(file, by_id));
  EXPECT_TRUE(batch->column(0)->IsNull(0));
}

TEST(AvroResolutionTest, RequiredMissingAndIncompatibleAreErrors) {
  std::string file = MakeFile(kWriter, {Record(5, 1.5f, 77, 1, {})});
  auto missing = std::make_shared<Schema>(std::vector<Field>{
      Field("s", Struct({Field("must", Int32(), false, 29)}), false, 2)});
  EXPECT_THAT(testing::ReadBytes(file, missing),
              IsErrorWith(StatusCode::kInvalidArgument, "required target field 's.must' (id 29)"));
  auto narrowing = std::make_shared<Schema>(std::vector<Field>{
      Field("s", Struct({Field("p", Int32(), false, 21)}), false, 2)});
  EXPECT_THAT(testing::ReadBytes(file, narrowing),
              IsErrorWith(StatusCode::kInvalidArgument, "'s.p': file type float cannot be read"));
  // A union whose null branch occurs, read into a required target: Corrupt at read time.
  auto required = std::make_shared<Schema>(std::vector<Field>{
      Field("s", Struct({Field("q", Int64(), false, 23)}), false, 2)});
  std::string with_null = MakeFile(kWriter, {Record(5, 1.5f, {}, 1, {})});
  EXPECT_THAT(testing::ReadBytes(with_null, required),
              IsErrorWith(StatusCode::kCorrupt, "null value for required field 's.q'"));
}

TEST(AvroResolutionTest, UnionBranchesResolveToTheTarget) {
  const char* schema = R"({"type":"record","name":"r","fields":[
    {"name":"u","type":["int","null","long","string"]}]})";
  std::vector<std::string> records;
  for (int b = 0; b < 3; ++b) {
    std::string r;
    WriteVarLong(&r, b);
    if (b != 1) WriteVarLong(&r, 40 + b);
    records.push_back(r);
  }
  std::string file = MakeFile(schema, records);
  auto target = std::make_shared<Schema>(std::vector<Field>{Field("u", Int64(), true)});
  ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadBytes(file, target));
  EXPECT_EQ(batch->column(0)->Value<int64_t>(0), 40);
  EXPECT_TRUE(batch->column(0)->IsNull(1));
  EXPECT_EQ(batch->column(0)->Value<int64_t>(2), 42);
  // The string branch cannot become int64: an error only when it occurs.
  std::string r;
  WriteVarLong(&r, 3);
  WriteBytes(&r, "x");
  EXPECT_THAT(testing::ReadBytes(MakeFile(schema, {r}), target),
              IsErrorWith(StatusCode::kCorrupt, "cannot be read as int64"));
}

TEST(AvroResolutionTest, MapsByKeyAndValueIds) {
  const char* schema = R"({"type":"record","name":"r","fields":[
    {"name":"m","type":{"type":"array","logicalType":"map","items":{"type":"record",
      "name":"k1_v2","fields":[{"name":"key","type":"int","field-id":1},
      {"name":"value","type":"int","field-id":2}]}},"field-id":3},
    {"name":"sm","type":{"type":"map","values":"float","key-id":4,"value-id":5},"field-id":6}]})";
  std::string r;
  WriteVarLong(&r, 1);
  WriteVarLong(&r, 7);
  WriteVarLong(&r, 8);
  WriteVarLong(&r, 0);
  WriteVarLong(&r, 1);
  WriteBytes(&r, "key");
  float f = 2.5f;
  r.append(reinterpret_cast<const char*>(&f), 4);
  WriteVarLong(&r, 0);
  auto target = std::make_shared<Schema>(std::vector<Field>{
      Field("sm", Map(Field("key", String(), false, 4), Field("value", Float64(), false, 5)),
            false, 6),
      Field("m", Map(Field("key", Int64(), false, 1), Field("value", Float32(), false, 2)), false,
            3)});
  ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadBytes(MakeFile(schema, {r}), target));
  const Array& sm = *batch->column(0);
  EXPECT_EQ(sm.child(0)->child(0)->BytesValue(0), "key");
  EXPECT_EQ(sm.child(0)->child(1)->Value<double>(0), 2.5);
  const Array& m = *batch->column(1);
  EXPECT_EQ(m.child(0)->child(0)->Value<int64_t>(0), 7);
  EXPECT_EQ(m.child(0)->child(1)->Value<float>(0), 8.0f);
}

}  // namespace
}  // namespace floe::avro
