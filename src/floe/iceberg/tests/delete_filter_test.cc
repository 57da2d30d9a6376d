#include "floe/iceberg/delete_filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/format/puffin/deletion_vector.h"
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
  auto deletes =
      PositionDeleteFile("pos-deletes.parquet",
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
  ASSERT_OK_AND_ASSIGN(auto none, DeleteFilter::Make(DataFileAt("s3://bucket/t/data/c.parquet"),
                                                     {deletes}, *cache_));
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

  auto schema = std::make_shared<floe::Schema>(
      std::vector<Field>{Field("name", String(), true, 2), Field("id", Int64(), true, 1),
                         Field("extra", Int64(), true, 3)});
  ASSERT_OK_AND_ASSIGN(auto batch,
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
  puffin::PositionDeleteSet set;
  ASSERT_OK(set.Add(0));
  ASSERT_OK(set.Add(2));
  std::string blob = puffin::SerializeDeletionVector(set);
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
  dv->record_count = 2;
  ASSERT_OK_AND_ASSIGN(auto filter, DeleteFilter::Make(DataFileAt("d.parquet"), {dv}, *cache_));
  auto schema = std::make_shared<floe::Schema>(std::vector<Field>{Field("x", Int64(), true, 1)});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 4, {I64s({1, 2, 3, 4})}));
  std::vector<uint8_t> keep = Keep(4);
  ASSERT_OK(filter->Apply(*batch, 0, keep));
  EXPECT_THAT(keep, ElementsAre(0, 1, 0, 1));

  auto too_long = std::make_shared<DataFile>(*dv);
  too_long->content_size_in_bytes = 4096;
  DeleteFileCache fresh(io_);
  EXPECT_THAT(DeleteFilter::Make(DataFileAt("d.parquet"), {too_long}, fresh),
              IsErrorWith(StatusCode::kCorrupt, "outside"));
  // The manifest's record_count must be the vector's cardinality.
  auto wrong_count = std::make_shared<DataFile>(*dv);
  wrong_count->record_count = 3;
  EXPECT_THAT(DeleteFilter::Make(DataFileAt("d.parquet"), {wrong_count}, fresh),
              IsError(StatusCode::kCorrupt));
}

}  // namespace
}  // namespace floe::iceberg
