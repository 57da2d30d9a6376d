// Real Iceberg manifests and manifest lists written by Trino (deflate) and pyiceberg
// (null codec), read with their own schema and with an Iceberg-style target by field id.

#include <gtest/gtest.h>

#include <filesystem>

#include "floe/format/avro/tests/avro_testing.h"
#include "floe/testing/matchers.h"

namespace floe::avro {
namespace {

const std::string kBucket =
    "../shared/fixtures/iceberg/iceberg-cxx/tests/tables/bucket_partitioning/metadata/";
const std::string kManifest = kBucket + "0ffce867-cc54-49f8-ac74-c89fc147015d-m0.avro";
const std::string kList =
    kBucket + "snap-8499397478161915471-1-0ffce867-cc54-49f8-ac74-c89fc147015d.avro";
const std::string kPyiceberg =
    "../shared/fixtures/iceberg/duckdb-iceberg/data/persistent/partition_timestamptz/default.db/"
    "partition_timestamptz/metadata/cf619707-d8b6-44d1-b057-0af5e41c05bb-m0.avro";

Result<std::unique_ptr<AvroFileReader>> OpenPath(const std::string& path) {
  FLOE_ASSIGN_OR_RAISE(auto file, io::OpenLocalFile(path));
  return AvroFileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file)));
}

void FailWithoutFixtures() {
  if (!std::filesystem::exists(kManifest)) GTEST_FAIL() << "the fixtures are missing";
}

TEST(AvroFixtureTest, TrinoManifestWithDeflate) {
  FailWithoutFixtures();
  ASSERT_OK_AND_ASSIGN(auto reader, OpenPath(kManifest));
  EXPECT_EQ(reader->codec(), "deflate");
  std::vector<std::string> keys;
  for (const auto& [k, v] : reader->metadata()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"schema", "avro.schema", "avro.codec", "format-version",
                                            "partition-spec-id", "iceberg.schema", "partition-spec",
                                            "content"}));
  EXPECT_EQ(*reader->metadata_value("format-version"), "2");
  EXPECT_EQ(*reader->metadata_value("content"), "data");
  // The whole file with its own schema.
  ASSERT_OK_AND_ASSIGN(Schema own, reader->FileSchema());
  ASSERT_OK_AND_ASSIGN(auto all, testing::ReadOne(*reader, std::make_shared<Schema>(own)));
  ASSERT_EQ(all->num_rows(), 1);

  // An Iceberg-style projection by field id (names differ on purpose).
  auto target = std::make_shared<Schema>(std::vector<Field>{
      Field("st", Int32(), false, 0),
      Field("snap", Int64(), true, 1),
      Field("df",
            Struct({Field("path", String(), false, 100), Field("rows", Int64(), false, 103),
                    Field("size", Int64(), false, 104),
                    Field("sizes",
                          Map(Field("k", Int32(), false, 117), Field("v", Int64(), false, 118)),
                          true, 108),
                    Field("not_in_file", Int64(), true, 9999)}),
            false, 2),
  });
  ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadOne(*reader, target));
  ASSERT_EQ(batch->num_rows(), 1);
  EXPECT_EQ(batch->column(0)->Value<int32_t>(0), 1);
  EXPECT_EQ(batch->column(1)->Value<int64_t>(0), 8499397478161915471);
  const Array& df = *batch->column(2);
  EXPECT_EQ(df.child(0)->BytesValue(0),
            "s3a://warehouse/bucket_partitioning/data/col_int_bucket=0/col_long_bucket=0/"
            "col_decimal_bucket=3/col_date_bucket=2/col_time_bucket=2/col_timestamp_bucket=99/"
            "col_timestamptz_bucket=75/col_string_bucket=13/col_uuid_bucket=5/"
            "col_varbinary_bucket=724/"
            "20250307_163052_00008_sdejt-d3a59669-ce58-4006-b445-2f83ff3e0398.parquet");
  EXPECT_EQ(df.child(1)->Value<int64_t>(0), 1);
  EXPECT_EQ(df.child(2)->Value<int64_t>(0), 1704);
  const Array& sizes = *df.child(3);
  ASSERT_EQ(sizes.ListEnd(0), 10);
  EXPECT_EQ(sizes.child(0)->child(0)->Value<int32_t>(0), 1);
  EXPECT_EQ(sizes.child(0)->child(1)->Value<int64_t>(0), 36);
  EXPECT_EQ(sizes.child(0)->child(0)->Value<int32_t>(9), 10);
  EXPECT_EQ(sizes.child(0)->child(1)->Value<int64_t>(9), 50);
  EXPECT_TRUE(df.child(4)->IsNull(0));
}

TEST(AvroFixtureTest, TrinoManifestList) {
  FailWithoutFixtures();
  ASSERT_OK_AND_ASSIGN(auto reader, OpenPath(kList));
  EXPECT_EQ(*reader->metadata_value("snapshot-id"), "8499397478161915471");
  auto target = std::make_shared<Schema>(std::vector<Field>{
      Field("manifest_path", String(), false, 500), Field("manifest_length", Int64(), false, 501),
      Field("sequence_number", Int64(), true, 515), Field("added_files_count", Int32(), true, 504),
      Field("partitions",
            List(Field("element",
                       Struct({Field("contains_null", Boolean(), false, 509),
                               Field("lower_bound", Binary(), true, 510)}),
                       false, 508)),
            true, 507)});
  ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadOne(*reader, target));
  ASSERT_EQ(batch->num_rows(), 1);
  EXPECT_EQ(
      batch->column(0)->BytesValue(0),
      "s3a://warehouse/bucket_partitioning/metadata/0ffce867-cc54-49f8-ac74-c89fc147015d-m0.avro");
  EXPECT_EQ(batch->column(1)->Value<int64_t>(0), 9779);
  EXPECT_EQ(batch->column(2)->Value<int64_t>(0), 2);
  EXPECT_EQ(batch->column(3)->Value<int32_t>(0), 1);
  EXPECT_EQ(batch->column(4)->ListEnd(0), 10);
}

TEST(AvroFixtureTest, PyicebergManifestWithNullCodec) {
  if (!std::filesystem::exists(kPyiceberg)) GTEST_FAIL() << "the fixtures are missing";
  ASSERT_OK_AND_ASSIGN(auto reader, OpenPath(kPyiceberg));
  EXPECT_EQ(reader->codec(), "null");
  auto target = std::make_shared<Schema>(
      std::vector<Field>{Field("snapshot_id", Int64(), true, 1),
                         Field("data_file",
                               Struct({Field("file_path", String(), false, 100),
                                       Field("file_size_in_bytes", Int64(), false, 104)}),
                               false, 2)});
  ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadOne(*reader, target));
  ASSERT_EQ(batch->num_rows(), 2);
  EXPECT_EQ(batch->column(0)->Value<int64_t>(0), 1930660809162697972);
  const Array& df = *batch->column(1);
  EXPECT_EQ(df.child(0)->BytesValue(0),
            "data/persistent/partition_timestamptz/default.db/partition_timestamptz/data/"
            "partition_col=2023-05-15T14%3A30%3A45%2B00%3A00/"
            "00000-0-cf619707-d8b6-44d1-b057-0af5e41c05bb.parquet");
  EXPECT_EQ(df.child(1)->Value<int64_t>(0), 1337);
}

// Every Avro file among the fixtures reads completely with its own schema; the totals
// are those avsc reports for the same files (222 files, 376 records, 17 files empty).
TEST(AvroFixtureTest, EveryFixtureReadsWithItsOwnSchema) {
  const std::string root = "../shared/fixtures/iceberg";
  if (!std::filesystem::exists(root)) GTEST_FAIL() << "the fixtures are missing";
  int files = 0;
  int64_t records = 0;
  int empty = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".avro") continue;
    SCOPED_TRACE(e.path().string());
    ASSERT_OK_AND_ASSIGN(auto reader, OpenPath(e.path().string()));
    ASSERT_OK_AND_ASSIGN(Schema own, reader->FileSchema());
    ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadOne(*reader, std::make_shared<Schema>(own)));
    records += batch->num_rows();
    empty += batch->num_rows() == 0;
    ++files;
  }
  EXPECT_EQ(files, 222);
  EXPECT_EQ(records, 376);
  EXPECT_EQ(empty, 17);
}

}  // namespace
}  // namespace floe::avro
