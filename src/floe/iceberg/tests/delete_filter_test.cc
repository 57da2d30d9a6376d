#include "floe/iceberg/delete_filter.h"

#include <zlib.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/tests/reader_test_util.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::testing::ElementsAre;
using ::testing::Pair;
using namespace ::floe::iceberg::testing;  // NOLINT

std::vector<uint8_t> Keep(size_t n) { return std::vector<uint8_t>(n, 1); }

TEST(PositionDeleteIndex, MergesPositionsIntoRanges) {
  auto index = PositionDeleteIndex::FromPositions({7, 3, 4, 5, 3, 10});
  EXPECT_THAT(index.ranges(), ElementsAre(Pair(3, 6), Pair(7, 8), Pair(10, 11)));
  EXPECT_EQ(index.cardinality(), 5);
  EXPECT_TRUE(index.Contains(4));
  EXPECT_FALSE(index.Contains(6));
  EXPECT_FALSE(index.Contains(2));
  EXPECT_TRUE(index.Contains(10));
  EXPECT_FALSE(index.Contains(11));

  std::vector<uint8_t> keep = Keep(6);  // positions 4..9
  index.MarkDeleted(4, keep);
  EXPECT_THAT(keep, ElementsAre(0, 0, 1, 0, 1, 1));

  index.Merge(PositionDeleteIndex::FromRanges({{6, 7}, {11, 20}, {30, 30}}));
  EXPECT_THAT(index.ranges(), ElementsAre(Pair(3, 8), Pair(10, 20)));
}

// Serialises positions as a Puffin deletion-vector-v1 blob: 64-bit portable Roaring with
// one 32-bit bitmap per high key, array containers only, or a run container when `runs`.
std::string EncodeDeletionVector(const std::map<uint32_t, std::map<uint16_t, std::vector<uint16_t>>>&
                                     values) {
  std::string body = "\xD1\xD3\x39\x64";
  auto le = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) body.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  };
  le(values.size(), 8);
  for (const auto& [high, containers] : values) {
    le(high, 4);
    le(12346, 4);  // no run containers
    le(containers.size(), 4);
    for (const auto& [key, lows] : containers) {
      le(key, 2);
      le(lows.size() - 1, 2);
    }
    for (size_t i = 0; i < containers.size(); ++i) le(0, 4);  // offsets (unused by readers)
    for (const auto& [key, lows] : containers) {
      for (uint16_t low : lows) le(low, 2);
    }
  }
  std::string blob;
  auto be32 = [&](uint32_t v) {
    for (int i = 3; i >= 0; --i) blob.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  };
  be32(static_cast<uint32_t>(body.size()));
  blob += body;
  be32(static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
  return blob;
}

TEST(DeletionVector, DecodesArrayContainersAcrossHighKeys) {
  std::string blob = EncodeDeletionVector({{0, {{0, {1, 5}}, {1, {4464}}}}, {1, {{0, {3}}}}});
  ASSERT_OK_AND_ASSIGN(auto index, DecodeDeletionVector(blob, "test"));
  EXPECT_THAT(index.ranges(), ElementsAre(Pair(1, 2), Pair(5, 6), Pair(70000, 70001),
                                          Pair((int64_t{1} << 32) + 3, (int64_t{1} << 32) + 4)));
}

TEST(DeletionVector, DecodesRunAndBitmapContainers) {
  // Built by hand: one bitmap (key 0) with a run container [10, 13] and a bitmap container
  // (key 1) holding 5000 values 0..4999 with cookie 12347 (runs present, 2 containers).
  std::string body = "\xD1\xD3\x39\x64";
  auto le = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) body.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  };
  le(1, 8);
  le(0, 4);
  le(12347 | (1u << 16), 4);  // 2 containers
  body.push_back('\x01');     // container 0 is a run container
  le(0, 2);
  le(3, 2);  // cardinality 4
  le(1, 2);
  le(4999, 2);  // cardinality 5000
  le(1, 2);     // one run
  le(10, 2);
  le(3, 2);  // 10..13
  std::string bitmap(8192, '\0');
  for (int v = 0; v < 5000; ++v) bitmap[static_cast<size_t>(v / 8)] |= static_cast<char>(1 << (v % 8));
  body += bitmap;
  std::string blob;
  auto be32 = [&](uint32_t v) {
    for (int i = 3; i >= 0; --i) blob.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  };
  be32(static_cast<uint32_t>(body.size()));
  blob += body;
  be32(static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
  ASSERT_OK_AND_ASSIGN(auto index, DecodeDeletionVector(blob, "test"));
  EXPECT_THAT(index.ranges(), ElementsAre(Pair(10, 14), Pair(65536, 65536 + 5000)));
}

TEST(DeletionVector, CorruptBlobsAreErrors) {
  std::string blob = EncodeDeletionVector({{0, {{0, {1, 5}}}}});
  std::string bad_crc = blob;
  bad_crc.back() ^= 1;
  EXPECT_THAT(DecodeDeletionVector(bad_crc, "dv.puffin"),
              IsErrorWith(StatusCode::kCorrupt, "CRC-32"));
  std::string bad_magic = blob;
  bad_magic[5] = 0;
  EXPECT_THAT(DecodeDeletionVector(bad_magic, "dv.puffin"),
              IsErrorWith(StatusCode::kCorrupt, "magic"));
  EXPECT_THAT(DecodeDeletionVector(blob.substr(0, blob.size() - 2), "dv.puffin"),
              IsError(StatusCode::kCorrupt));
  EXPECT_THAT(DecodeDeletionVector("", "dv.puffin"), IsError(StatusCode::kCorrupt));
}

class DeleteFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io::LocalFileIOOptions options;
    options.base_dir = dir_.path();
    io_ = std::make_shared<io::LocalFileIO>(options);
    cache_ = std::make_shared<DeleteFileCache>(io_);
  }

  DataFilePtr PositionDeleteFile(const std::string& name,
                                 const std::vector<std::optional<std::string>>& paths,
                                 const std::vector<std::optional<int64_t>>& positions) {
    WriteParquet(dir_.Join(name),
                 {Field("file_path", String(), false, kDeleteFilePathFieldId),
                  Field("pos", Int64(), false, kDeletePosFieldId)},
                 {Strs(paths), I64s(positions)});
    auto file = std::make_shared<DataFile>();
    file->content = FileContent::kPositionDeletes;
    file->file_path = name;
    file->record_count = static_cast<int64_t>(paths.size());
    return file;
  }

  DataFile DataFileAt(const std::string& path) {
    DataFile file;
    file.file_path = path;
    return file;
  }

  TempDir dir_;
  std::shared_ptr<io::LocalFileIO> io_;
  std::shared_ptr<DeleteFileCache> cache_;
};

TEST_F(DeleteFilterTest, PositionDeletesMatchThePathAsWrittenAndIgnoreOtherFiles) {
  auto deletes = PositionDeleteFile(
      "pos-deletes.parquet",
      {"s3://bucket/t/data/a.parquet", "s3://bucket/t/data/b.parquet",
       "s3://bucket/t/data/a.parquet", "s3://bucket/t/data/a.parquet"},
      {3, 1, 0, 3});
  DataFile a = DataFileAt("s3://bucket/t/data/a.parquet");
  ASSERT_OK_AND_ASSIGN(auto filter, DeleteFilter::Make(a, {deletes}, *cache_));
  EXPECT_TRUE(filter->has_position_deletes());
  EXPECT_FALSE(filter->has_equality_deletes());
  auto schema = std::make_shared<floe::Schema>(std::vector<Field>{Field("x", Int64(), true, 1)});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 3, {I64s({10, 11, 12})}));
  std::vector<uint8_t> keep = Keep(3);
  ASSERT_OK(filter->Apply(*batch, 2, keep));  // positions 2, 3, 4
  EXPECT_THAT(keep, ElementsAre(1, 0, 1));
  keep = Keep(3);
  ASSERT_OK(filter->Apply(*batch, 0, keep));  // positions 0, 1, 2: 1 is b's
  EXPECT_THAT(keep, ElementsAre(0, 1, 1));

  // A data file the delete file never names: nothing applies.
  ASSERT_OK_AND_ASSIGN(auto none,
                       DeleteFilter::Make(DataFileAt("s3://bucket/t/data/c.parquet"), {deletes},
                                          *cache_));
  EXPECT_TRUE(none->empty());
}

TEST_F(DeleteFilterTest, PositionDeleteFileWithNullsIsCorrupt) {
  WriteParquet(dir_.Join("bad.parquet"),
               {Field("file_path", String(), true, kDeleteFilePathFieldId),
                Field("pos", Int64(), true, kDeletePosFieldId)},
               {Strs({"a", std::nullopt}), I64s({1, 2})});
  auto deletes = std::make_shared<DataFile>();
  deletes->content = FileContent::kPositionDeletes;
  deletes->file_path = "bad.parquet";
  EXPECT_THAT(DeleteFilter::Make(DataFileAt("a"), {deletes}, *cache_),
              IsErrorWith(StatusCode::kCorrupt, "bad.parquet"));
}

TEST_F(DeleteFilterTest, MissingDeleteFileIsAnError) {
  auto file = std::make_shared<DataFile>();
  file->content = FileContent::kPositionDeletes;
  file->file_path = "nope.parquet";
  EXPECT_THAT(DeleteFilter::Make(DataFileAt("a"), {file}, *cache_), IsError(StatusCode::kNotFound));
}

TEST_F(DeleteFilterTest, EqualityDeletesAreNullSafeIgnoreExtraColumnsAndPromotedTypes) {
  // The delete file was written when id was an int; the table now reads it as a long. It
  // also carries a column (id 3) that is not part of the key.
  WriteParquet(dir_.Join("eq.parquet"),
               {Field("id", Int32(), true, 1), Field("name", String(), true, 2),
                Field("extra", Int64(), true, 3)},
               {I32s({1, 3, 2}), Strs({"a", std::nullopt, "x"}), I64s({100, 200, 300})});
  auto eq = std::make_shared<DataFile>();
  eq->content = FileContent::kEqualityDeletes;
  eq->file_path = "eq.parquet";
  eq->equality_ids = {1, 2};
  ASSERT_OK_AND_ASSIGN(auto filter, DeleteFilter::Make(DataFileAt("d.parquet"), {eq}, *cache_));
  EXPECT_THAT(filter->EqualityFieldIds(), ElementsAre(1, 2));

  auto schema = std::make_shared<floe::Schema>(std::vector<Field>{
      Field("name", String(), true, 2), Field("id", Int64(), true, 1),
      Field("extra", Int64(), true, 3)});
  ASSERT_OK_AND_ASSIGN(
      auto batch,
      RecordBatch::Make(schema, 5,
                        {Strs({"a", std::nullopt, "b", std::nullopt, "x"}),
                         I64s({1, 1, 2, 3, 2}), I64s({0, 0, 0, 0, 0})}));
  std::vector<uint8_t> keep = Keep(5);
  ASSERT_OK(filter->Apply(*batch, 0, keep));
  // (1,a) deleted; (1,NULL) kept; (2,b) kept; (3,NULL) deleted (NULL equals NULL);
  // (2,x) deleted.
  EXPECT_THAT(keep, ElementsAre(0, 1, 1, 0, 0));

  // A batch without the key columns cannot be filtered.
  auto narrow = std::make_shared<floe::Schema>(std::vector<Field>{Field("x", Int64(), true, 3)});
  ASSERT_OK_AND_ASSIGN(auto narrow_batch, RecordBatch::Make(narrow, 1, {I64s({1})}));
  keep = Keep(1);
  EXPECT_THAT(filter->Apply(*narrow_batch, 0, keep), IsError(StatusCode::kInvalidArgument));
}

TEST_F(DeleteFilterTest, EqualityDeleteFileWithoutTheKeyColumnIsCorrupt) {
  WriteParquet(dir_.Join("eq2.parquet"), {Field("id", Int32(), true, 1)}, {I32s({1})});
  auto eq = std::make_shared<DataFile>();
  eq->content = FileContent::kEqualityDeletes;
  eq->file_path = "eq2.parquet";
  eq->equality_ids = {1, 7};
  EXPECT_THAT(DeleteFilter::Make(DataFileAt("d.parquet"), {eq}, *cache_),
              IsErrorWith(StatusCode::kCorrupt, "field id 7"));
}

TEST_F(DeleteFilterTest, DeletionVectorFromAPuffinFile) {
  // A Puffin file: magic, one blob, then (unused here) a footer; the blob is located by
  // content_offset and content_size_in_bytes as the manifest records them.
  std::string blob = EncodeDeletionVector({{0, {{0, {0, 2}}}}});
  std::string puffin = "PFA1" + blob + "PFA1";
  {
    auto out = io::CreateLocalFile(dir_.Join("dv.puffin"));
    ASSERT_OK(out);
    ASSERT_OK((*out)->Write(puffin.data(), static_cast<int64_t>(puffin.size())));
    ASSERT_OK((*out)->Close());
  }
  auto dv = std::make_shared<DataFile>();
  dv->content = FileContent::kPositionDeletes;
  dv->file_format = FileFormat::kPuffin;
  dv->file_path = "dv.puffin";
  dv->referenced_data_file = "d.parquet";
  dv->content_offset = 4;
  dv->content_size_in_bytes = static_cast<int64_t>(blob.size());
  ASSERT_OK_AND_ASSIGN(auto filter, DeleteFilter::Make(DataFileAt("d.parquet"), {dv}, *cache_));
  auto schema = std::make_shared<floe::Schema>(std::vector<Field>{Field("x", Int64(), true, 1)});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 4, {I64s({1, 2, 3, 4})}));
  std::vector<uint8_t> keep = Keep(4);
  ASSERT_OK(filter->Apply(*batch, 0, keep));
  EXPECT_THAT(keep, ElementsAre(0, 1, 0, 1));

  dv = std::make_shared<DataFile>(*dv);
  std::const_pointer_cast<DataFile>(dv)->content_size_in_bytes = 4096;
  DeleteFileCache fresh(io_);
  EXPECT_THAT(DeleteFilter::Make(DataFileAt("d.parquet"), {dv}, fresh),
              IsErrorWith(StatusCode::kCorrupt, "outside"));
}

}  // namespace
}  // namespace floe::iceberg
