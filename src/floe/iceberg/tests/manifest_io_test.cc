#include "floe/iceberg/manifest_io.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "floe/format/avro/reader.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

const std::string kFixtures = "../shared/fixtures/iceberg/";

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool HaveFixtures() { return fs::exists(kFixtures + "INDEX.md"); }

#define REQUIRE_FIXTURES() \
  if (!HaveFixtures()) GTEST_FAIL() << "the fixtures are missing at " << kFixtures

TableMetadataPtr LoadMetadata(const std::string& path) {
  auto md = TableMetadataFromBytes(ReadBytes(path), path);
  EXPECT_TRUE(md.ok()) << md.status().ToString();
  return md.ok() ? *md : nullptr;
}

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("floe-manifest-test-" + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// Bit-exact scalar equality (NaN equals NaN of the same bits).
bool SameScalar(const Scalar& a, const Scalar& b) {
  if (!a.type()->Equals(*b.type())) return false;
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null();
  if (const float* x = std::get_if<float>(&a.value())) {
    float y = b.get<float>();
    return std::memcmp(x, &y, sizeof y) == 0;
  }
  if (const double* x = std::get_if<double>(&a.value())) {
    double y = b.get<double>();
    return std::memcmp(x, &y, sizeof y) == 0;
  }
  return a.value() == b.value();
}

void ExpectSameDataFile(const DataFile& a, const DataFile& b) {
  EXPECT_EQ(a.content, b.content);
  EXPECT_EQ(a.file_path, b.file_path);
  EXPECT_EQ(a.file_format, b.file_format);
  EXPECT_EQ(a.spec_id, b.spec_id);
  ASSERT_EQ(a.partition.size(), b.partition.size());
  for (size_t i = 0; i < a.partition.size(); ++i) {
    EXPECT_TRUE(SameScalar(a.partition[i], b.partition[i]))
        << a.file_path << " partition field " << i << ": " << a.partition[i].type()->ToString()
        << " vs " << b.partition[i].type()->ToString();
  }
  EXPECT_EQ(a.record_count, b.record_count);
  EXPECT_EQ(a.file_size_in_bytes, b.file_size_in_bytes);
  EXPECT_EQ(a.column_sizes, b.column_sizes);
  EXPECT_EQ(a.value_counts, b.value_counts);
  EXPECT_EQ(a.null_value_counts, b.null_value_counts);
  EXPECT_EQ(a.nan_value_counts, b.nan_value_counts);
  EXPECT_EQ(a.lower_bounds, b.lower_bounds);
  EXPECT_EQ(a.upper_bounds, b.upper_bounds);
  EXPECT_EQ(a.empty_metric_maps, b.empty_metric_maps);
  EXPECT_EQ(a.key_metadata, b.key_metadata);
  EXPECT_EQ(a.split_offsets, b.split_offsets);
  EXPECT_EQ(a.equality_ids, b.equality_ids);
  EXPECT_EQ(a.sort_order_id, b.sort_order_id);
  EXPECT_EQ(a.first_row_id, b.first_row_id);
  EXPECT_EQ(a.referenced_data_file, b.referenced_data_file);
  EXPECT_EQ(a.content_offset, b.content_offset);
  EXPECT_EQ(a.content_size_in_bytes, b.content_size_in_bytes);
}

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out += kDigits[(static_cast<unsigned char>(c) >> 4) & 15];
    out += kDigits[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Fixtures written by Trino, Spark and hand-edited metadata
// ---------------------------------------------------------------------------------------

TEST(ManifestFixtureTest, TrinoBucketPartitioning) {
  REQUIRE_FIXTURES();
  io::LocalFileIO fio({{{"s3a://warehouse/", kFixtures + "iceberg-cxx/tests/tables/"}}, "", {}});
  const std::string table = kFixtures + "iceberg-cxx/tests/tables/bucket_partitioning/";
  auto md =
      LoadMetadata(table + "metadata/00002-53948f10-cced-409f-8dd9-6dea096895e8.metadata.json");
  ASSERT_NE(md, nullptr);
  const Snapshot* snap = md->SnapshotById(8499397478161915471);
  ASSERT_NE(snap, nullptr);
  ASSERT_OK_AND_ASSIGN(auto list, ReadManifestList(fio, snap->manifest_list));
  ASSERT_EQ(list.size(), 1u);
  const ManifestFile& m = list[0];
  EXPECT_EQ(
      m.manifest_path,
      "s3a://warehouse/bucket_partitioning/metadata/0ffce867-cc54-49f8-ac74-c89fc147015d-m0.avro");
  EXPECT_EQ(m.manifest_length, 9779);
  EXPECT_EQ(m.partition_spec_id, 0);
  EXPECT_EQ(m.content, FileContent::kData);
  EXPECT_EQ(m.sequence_number, 2);
  EXPECT_EQ(m.min_sequence_number, 2);
  EXPECT_EQ(m.added_snapshot_id, 8499397478161915471);
  EXPECT_EQ(m.added_files_count, 1);
  EXPECT_EQ(m.existing_files_count, 0);
  EXPECT_EQ(m.deleted_files_count, 0);
  EXPECT_EQ(m.added_rows_count, 1);
  EXPECT_EQ(m.first_row_id, std::nullopt);
  const int32_t kBuckets[10] = {0, 0, 3, 2, 2, 99, 75, 13, 5, 724};
  ASSERT_EQ(m.partitions.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_FALSE(m.partitions[i].contains_null);
    EXPECT_EQ(m.partitions[i].contains_nan, false);
    ASSERT_OK_AND_ASSIGN(std::string b, SerializeValue(Scalar::I32(kBuckets[i])));
    EXPECT_EQ(m.partitions[i].lower_bound, b) << i;
    EXPECT_EQ(m.partitions[i].upper_bound, b) << i;
  }

  const PartitionSpecPtr spec = md->SpecById(0);
  ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(fio, m, *spec, *md->CurrentSchema()));
  ASSERT_EQ(entries.size(), 1u);
  const ManifestEntry& e = entries[0];
  EXPECT_EQ(e.status, ManifestEntryStatus::kAdded);
  EXPECT_EQ(e.snapshot_id, 8499397478161915471);
  // Null in the file: inherited from the list entry.
  EXPECT_EQ(e.sequence_number, 2);
  EXPECT_EQ(e.file_sequence_number, 2);
  const DataFile& f = *e.data_file;
  EXPECT_EQ(f.content, FileContent::kData);
  EXPECT_EQ(f.file_format, FileFormat::kParquet);
  EXPECT_EQ(f.spec_id, 0);
  EXPECT_EQ(f.record_count, 1);
  EXPECT_EQ(f.file_size_in_bytes, 1704);
  ASSERT_EQ(f.partition.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    ASSERT_FALSE(f.partition[i].is_null());
    EXPECT_EQ(f.partition[i].type()->id(), TypeId::kInt32);
    EXPECT_EQ(f.partition[i].get<int32_t>(), kBuckets[i]) << i;
  }
  EXPECT_EQ(f.column_sizes.size(), 10u);
  EXPECT_EQ(f.column_sizes.at(1), 36);
  EXPECT_EQ(f.column_sizes.at(10), 50);
  EXPECT_EQ(f.value_counts.at(7), 1);
  EXPECT_EQ(f.null_value_counts.at(3), 0);
  EXPECT_TRUE(f.nan_value_counts.empty());
  EXPECT_EQ(Hex(f.lower_bounds.at(9)), "12151fd2758611e98f9e2a86e4085a59");
  EXPECT_EQ(Hex(f.upper_bounds.at(3)), "012c");
  EXPECT_EQ(f.upper_bounds.at(8), "some-string");
  EXPECT_EQ(f.split_offsets, std::vector<int64_t>{4});
  EXPECT_EQ(f.sort_order_id, 0);
  EXPECT_EQ(f.key_metadata, std::nullopt);
  EXPECT_TRUE(f.equality_ids.empty());

  // Without stats, and restricted to two columns.
  ASSERT_OK_AND_ASSIGN(auto bare, ReadManifest(fio, m, *spec, *md->CurrentSchema(),
                                               ManifestReadOptions::Live(false)));
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_TRUE(bare[0].data_file->column_sizes.empty());
  EXPECT_TRUE(bare[0].data_file->lower_bounds.empty());
  EXPECT_EQ(bare[0].data_file->partition.size(), 10u);
  EXPECT_EQ(bare[0].data_file->split_offsets, std::vector<int64_t>{4});
  ManifestReadOptions some;
  some.stats_column_ids = {2, 9};
  ASSERT_OK_AND_ASSIGN(auto part, ReadManifest(fio, m, *spec, *md->CurrentSchema(), some));
  EXPECT_EQ(part[0].data_file->column_sizes, (std::map<int32_t, int64_t>{{2, 40}, {9, 48}}));
  EXPECT_EQ(part[0].data_file->lower_bounds.size(), 2u);

  // The header, and the partition type taken from it.
  ASSERT_OK_AND_ASSIGN(ManifestHeader h, ReadManifestHeader(fio, m.manifest_path));
  EXPECT_EQ(h.format_version, 2);
  EXPECT_EQ(h.partition_spec_id, 0);
  EXPECT_EQ(h.content, FileContent::kData);
  ASSERT_OK_AND_ASSIGN(auto self, ReadManifestSelfDescribed(fio, m));
  ASSERT_EQ(self.size(), 1u);
  ExpectSameDataFile(*self[0].data_file, f);
}

struct SnapshotCounts {
  int64_t data_files = 0;
  int64_t delete_files = 0;
  int64_t added_data_files = 0;
};

SnapshotCounts CountSnapshot(const io::FileIO& fio, const TableMetadata& md, const Snapshot& snap) {
  SnapshotCounts c;
  auto list = ReadManifestList(fio, snap.manifest_list);
  EXPECT_TRUE(list.ok()) << list.status().ToString();
  if (!list.ok()) return c;
  for (const ManifestFile& m : *list) {
    const PartitionSpecPtr spec = md.SpecById(m.partition_spec_id);
    EXPECT_NE(spec, nullptr);
    if (!spec) continue;
    auto entries =
        ReadManifest(fio, m, *spec, *md.CurrentSchema(), ManifestReadOptions::Live(false));
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    if (!entries.ok()) continue;
    for (const ManifestEntry& e : *entries) {
      EXPECT_NE(e.status, ManifestEntryStatus::kDeleted);
      // Every entry is consistent with its manifest's content.
      EXPECT_EQ(e.data_file->content == FileContent::kData, m.content == FileContent::kData);
      if (m.content == FileContent::kData) {
        ++c.data_files;
        if (e.status == ManifestEntryStatus::kAdded && e.snapshot_id == snap.snapshot_id) {
          ++c.added_data_files;
        }
      } else {
        ++c.delete_files;
      }
      // A file is never newer than the snapshot that lists it.
      EXPECT_LE(e.sequence_number, snap.sequence_number);
      EXPECT_LE(e.sequence_number, e.file_sequence_number);
    }
  }
  return c;
}

int64_t SummaryInt(const Snapshot& s, const std::string& key) {
  auto it = s.summary.find(key);
  return it == s.summary.end() ? 0 : std::stoll(it->second);
}

void CheckSummaries(const std::string& group, const std::string& metadata, int expect_version) {
  io::LocalFileIO fio({{}, kFixtures + group, {}});
  auto md = LoadMetadata(kFixtures + group + "/" + metadata);
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->format_version, expect_version);
  ASSERT_EQ(md->snapshots.size(), 7u);
  for (const Snapshot& s : md->snapshots) {
    SCOPED_TRACE(s.snapshot_id);
    SnapshotCounts c = CountSnapshot(fio, *md, s);
    EXPECT_EQ(c.data_files, SummaryInt(s, "total-data-files"));
    EXPECT_EQ(c.delete_files, SummaryInt(s, "total-delete-files"));
    EXPECT_EQ(c.added_data_files, SummaryInt(s, "added-data-files"));
  }
}

TEST(ManifestFixtureTest, SparkV1ListsMatchSummaries) {
  REQUIRE_FIXTURES();
  CheckSummaries(
      "duckdb-iceberg-2024",
      "data/iceberg/generated_spec1_0_001/pyspark_iceberg_table/metadata/v9.metadata.json", 1);
}

TEST(ManifestFixtureTest, SparkV2ListsWithDeletesMatchSummaries) {
  REQUIRE_FIXTURES();
  CheckSummaries(
      "duckdb-iceberg-2024",
      "data/iceberg/generated_spec2_0_001/pyspark_iceberg_table/metadata/v9.metadata.json", 2);
}

TEST(ManifestFixtureTest, SparkV1ListReadsWithoutContentOrSequenceNumbers) {
  REQUIRE_FIXTURES();
  io::LocalFileIO fio({{}, kFixtures + "duckdb-iceberg-2024", {}});
  const std::string dir = "data/iceberg/generated_spec1_0_001/pyspark_iceberg_table/metadata/";
  ASSERT_OK_AND_ASSIGN(
      auto list,
      ReadManifestList(
          fio, dir + "snap-6238750566879819059-1-d76c5203-4f0a-46ef-a293-268e0afec64b.avro"));
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].manifest_path, dir + "d76c5203-4f0a-46ef-a293-268e0afec64b-m2.avro");
  EXPECT_EQ(list[0].manifest_length, 7082);
  EXPECT_EQ(list[0].content, FileContent::kData);
  EXPECT_EQ(list[0].sequence_number, 0);
  EXPECT_EQ(list[0].min_sequence_number, 0);
  // Spark names it added_data_files_count; field id 504 finds it.
  EXPECT_EQ(list[0].added_files_count, 1);
  EXPECT_EQ(list[0].added_rows_count, 7690);
  EXPECT_EQ(list[1].deleted_files_count, 1);
  EXPECT_EQ(list[1].deleted_rows_count, 1685);
  EXPECT_EQ(list[2].deleted_rows_count, 6005);
  EXPECT_TRUE(list[0].partitions.empty());

  // DELETED entries are skipped by default and returned on request.
  auto unpartitioned = Struct({});
  ASSERT_OK_AND_ASSIGN(auto live, ReadManifest(fio, list[2], unpartitioned));
  EXPECT_TRUE(live.empty());
  ASSERT_OK_AND_ASSIGN(auto all,
                       ReadManifest(fio, list[2], unpartitioned, ManifestReadOptions::All()));
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].status, ManifestEntryStatus::kDeleted);
  EXPECT_EQ(all[0].snapshot_id, 6238750566879819059);
  EXPECT_EQ(all[0].sequence_number, 0);
  EXPECT_EQ(all[0].file_sequence_number, 0);
  EXPECT_EQ(all[0].data_file->record_count, 6005);
  EXPECT_EQ(all[0].data_file->file_size_in_bytes, 340114);
  EXPECT_EQ(all[0].data_file->null_value_counts.at(1), 3077);
  EXPECT_EQ(all[0].data_file->nan_value_counts, (std::map<int32_t, int64_t>{{4, 0}, {5, 0}}));
  EXPECT_EQ(Hex(all[0].data_file->upper_bounds.at(6)), "53f048");
}

TEST(ManifestFixtureTest, SparkV2SequenceNumbersAreInherited) {
  REQUIRE_FIXTURES();
  io::LocalFileIO fio({{}, kFixtures + "duckdb-iceberg-2024", {}});
  auto md = LoadMetadata(kFixtures +
                         "duckdb-iceberg-2024/data/iceberg/generated_spec2_0_001/"
                         "pyspark_iceberg_table/metadata/v9.metadata.json");
  ASSERT_NE(md, nullptr);
  // Snapshot 4 (sequence number 4) added one data file and one position delete file.
  const Snapshot* snap = md->SnapshotById(6585012225877417653);
  ASSERT_NE(snap, nullptr);
  ASSERT_EQ(snap->sequence_number, 4);
  ASSERT_OK_AND_ASSIGN(auto list, ReadManifestList(fio, snap->manifest_list));
  int added = 0;
  for (const ManifestFile& m : list) {
    if (m.added_snapshot_id != snap->snapshot_id) continue;
    EXPECT_EQ(m.sequence_number, 4);
    // The file's own entries hold null sequence numbers...
    ASSERT_OK_AND_ASSIGN(auto file, fio.NewInputFile(m.manifest_path));
    ASSERT_OK_AND_ASSIGN(auto avro, avro::AvroFileReader::Open(std::move(file)));
    auto target = std::make_shared<floe::Schema>(std::vector<Field>{
        Field("status", Int32(), true, 0), Field("sequence_number", Int64(), true, 3)});
    ASSERT_OK_AND_ASSIGN(auto batches, avro->ReadAll(target));
    for (const auto& b : batches) {
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        if (b->column(0)->Value<int32_t>(i) == 1) {
          EXPECT_TRUE(b->column(1)->IsNull(i));
        }
      }
    }
    // ...which read as the manifest's.
    ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(fio, m, Struct({})));
    for (const ManifestEntry& e : entries) {
      if (e.status != ManifestEntryStatus::kAdded) continue;
      ++added;
      EXPECT_EQ(e.sequence_number, 4);
      EXPECT_EQ(e.file_sequence_number, 4);
      EXPECT_EQ(e.snapshot_id, snap->snapshot_id);
      if (m.content != FileContent::kData) {
        EXPECT_EQ(e.data_file->content, FileContent::kPositionDeletes);
        EXPECT_EQ(e.data_file->record_count, 7690);
      }
    }
  }
  EXPECT_EQ(added, 2);
  // An older data file carried into a later manifest keeps its own sequence number.
  const Snapshot* last = md->CurrentSnapshot();
  ASSERT_NE(last, nullptr);
  ASSERT_OK_AND_ASSIGN(auto last_list, ReadManifestList(fio, last->manifest_list));
  std::set<int64_t> seqs;
  for (const ManifestFile& m : last_list) {
    ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(fio, m, Struct({})));
    for (const ManifestEntry& e : entries) seqs.insert(e.sequence_number);
  }
  EXPECT_EQ(seqs, (std::set<int64_t>{1, 2, 3, 4, 5, 7}));
}

TEST(ManifestFixtureTest, V1SnapshotWithManifestsArray) {
  REQUIRE_FIXTURES();
  io::LocalFileIO fio({{}, kFixtures + "duckdb-iceberg", {}});
  auto md = LoadMetadata(kFixtures +
                         "duckdb-iceberg/data/persistent/iceberg_v1_deprecated/default/legacy_v1/"
                         "metadata/v2.metadata.json");
  ASSERT_NE(md, nullptr);
  const Snapshot* snap = md->CurrentSnapshot();
  ASSERT_NE(snap, nullptr);
  ASSERT_TRUE(snap->manifest_list.empty());
  ASSERT_EQ(snap->manifests.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto list, ManifestFilesFromPaths(fio, snap->manifests, snap->snapshot_id));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].manifest_path, snap->manifests[0]);
  EXPECT_EQ(
      list[0].manifest_length,
      static_cast<int64_t>(fs::file_size(kFixtures + "duckdb-iceberg/" + snap->manifests[0])));
  EXPECT_EQ(list[0].partition_spec_id, 0);
  EXPECT_EQ(list[0].added_snapshot_id, snap->snapshot_id);
  EXPECT_EQ(list[0].sequence_number, 0);
  EXPECT_EQ(list[0].added_files_count, std::nullopt);

  ASSERT_OK_AND_ASSIGN(auto entries,
                       ReadManifest(fio, list[0], *md->SpecById(0), *md->CurrentSchema()));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].data_file->partition[0].get<std::string>(), "alpha");
  EXPECT_EQ(entries[0].data_file->partition[0].type()->id(), TypeId::kString);
  EXPECT_EQ(entries[0].data_file->record_count, 2);
  EXPECT_EQ(entries[1].data_file->partition[0].get<std::string>(), "beta");
  EXPECT_EQ(entries[1].data_file->record_count, 1);
  EXPECT_EQ(entries[0].sequence_number, 0);
  EXPECT_EQ(entries[0].snapshot_id, snap->snapshot_id);
  EXPECT_EQ(SummaryInt(*snap, "total-data-files"), 2);
}

TEST(ManifestFixtureTest, TrinoV3DeletionVectorsAndRowIds) {
  REQUIRE_FIXTURES();
  io::LocalFileIO fio({{{"s3a://warehouse/", kFixtures + "iceberg-cxx/tests/tables/"}}, "", {}});
  const std::string dir = kFixtures + "iceberg-cxx/tests/tables/deletion_vectors/metadata/";
  auto md = LoadMetadata(dir + "00004-ae0294d0-1de5-4fab-97f1-cd80e0078fa4.metadata.json");
  ASSERT_NE(md, nullptr);
  ASSERT_EQ(md->format_version, 3);
  const Snapshot* snap = md->CurrentSnapshot();
  ASSERT_NE(snap, nullptr);
  ASSERT_OK_AND_ASSIGN(auto list, ReadManifestList(fio, snap->manifest_list));
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0].first_row_id, 8);
  EXPECT_EQ(list[1].first_row_id, 0);
  EXPECT_EQ(list[2].first_row_id, std::nullopt);
  EXPECT_EQ(list[2].content, FileContent::kPositionDeletes);

  // Data files: null first_row_id in the file, inherited from the list entry.
  ASSERT_OK_AND_ASSIGN(auto data, ReadManifest(fio, list[0], Struct({})));
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(data[0].data_file->first_row_id, 8);
  EXPECT_EQ(data[0].data_file->record_count, 8);
  ASSERT_OK_AND_ASSIGN(auto data0, ReadManifest(fio, list[1], Struct({})));
  ASSERT_EQ(data0.size(), 1u);
  EXPECT_EQ(data0[0].data_file->first_row_id, 0);

  // Deletion vectors.
  ASSERT_OK_AND_ASSIGN(auto dvs, ReadManifest(fio, list[2], Struct({})));
  ASSERT_EQ(dvs.size(), 2u);
  for (const ManifestEntry& e : dvs) {
    EXPECT_TRUE(e.data_file->is_deletion_vector());
    EXPECT_EQ(e.data_file->first_row_id, std::nullopt);
    EXPECT_EQ(e.sequence_number, 5);
    EXPECT_TRUE(e.data_file->referenced_data_file.has_value());
  }
  EXPECT_EQ(dvs[0].data_file->content_offset, 4);
  EXPECT_EQ(dvs[0].data_file->content_size_in_bytes, 44);
  EXPECT_EQ(dvs[0].data_file->record_count, 2);
  EXPECT_EQ(dvs[1].data_file->content_offset, 48);
  EXPECT_EQ(dvs[1].data_file->content_size_in_bytes, 52);
  EXPECT_EQ(dvs[1].data_file->record_count, 6);
  EXPECT_EQ(*dvs[1].data_file->referenced_data_file,
            "s3a://warehouse/deletion_vectors/data/"
            "20260504_111440_00009_8gkte-580c7fe8-68ec-4a8b-8bce-a37f4af02113.parquet");
  // The replaced DV, as a DELETED entry with explicit sequence numbers.
  ASSERT_OK_AND_ASSIGN(auto removed,
                       ReadManifest(fio, list[3], Struct({}), ManifestReadOptions::All()));
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].status, ManifestEntryStatus::kDeleted);
  EXPECT_EQ(removed[0].sequence_number, 3);
  EXPECT_EQ(removed[0].data_file->content_offset, 4);
  EXPECT_EQ(removed[0].data_file->content_size_in_bytes, 46);
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

TEST(ManifestErrors, MissingFilesAreNamed) {
  TempDir dir;
  io::LocalFileIO fio;
  const std::string missing = dir.File("nope.avro");
  auto list = ReadManifestList(fio, missing);
  ASSERT_FALSE(list.ok());
  EXPECT_THAT(list.status().message(), ::testing::HasSubstr("nope.avro"));
  ManifestFile m;
  m.manifest_path = missing;
  auto entries = ReadManifest(fio, m, Struct({}));
  ASSERT_FALSE(entries.ok());
  EXPECT_THAT(entries.status().message(), ::testing::HasSubstr("nope.avro"));
  EXPECT_FALSE(ManifestFilesFromPaths(fio, {missing}, 1).ok());
}

TEST(ManifestErrorsFixtureTest, CorruptAndTruncatedFilesAreNamed) {
  REQUIRE_FIXTURES();
  TempDir dir;
  io::LocalFileIO fio;
  const std::string garbage = dir.File("garbage.avro");
  std::ofstream(garbage, std::ios::binary) << "this is not an avro file at all";
  EXPECT_THAT(ReadManifestList(fio, garbage), IsErrorWith(StatusCode::kCorrupt, "garbage.avro"));
  ManifestFile m;
  m.manifest_path = garbage;
  EXPECT_THAT(ReadManifest(fio, m, Struct({})), IsErrorWith(StatusCode::kCorrupt, "garbage.avro"));

  std::string bytes = ReadBytes(kFixtures +
                                "iceberg-cxx/tests/tables/bucket_partitioning/metadata/"
                                "0ffce867-cc54-49f8-ac74-c89fc147015d-m0.avro");
  ASSERT_GT(bytes.size(), 1000u);
  for (size_t cut : {size_t{10}, bytes.size() / 2, bytes.size() - 20}) {
    const std::string truncated = dir.File("truncated-" + std::to_string(cut) + ".avro");
    std::ofstream(truncated, std::ios::binary) << bytes.substr(0, cut);
    m.manifest_path = truncated;
    auto r = ReadManifest(fio, m, Struct({}));
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_THAT(r.status().message(), ::testing::HasSubstr(truncated)) << cut;
  }
  // A manifest read as a manifest list has no manifest_path.
  m.manifest_path = kFixtures +
                    "iceberg-cxx/tests/tables/bucket_partitioning/metadata/"
                    "0ffce867-cc54-49f8-ac74-c89fc147015d-m0.avro";
  auto as_list = ReadManifestList(fio, m.manifest_path);
  ASSERT_FALSE(as_list.ok());
  EXPECT_THAT(as_list.status().message(), ::testing::HasSubstr("manifest_path"));
}

TEST(ManifestErrorsFixtureTest, RandomByteFlipsNeverCrash) {
  REQUIRE_FIXTURES();
  TempDir dir;
  io::LocalFileIO fio;
  const std::string table = kFixtures + "iceberg-cxx/tests/tables/bucket_partitioning/metadata/";
  const std::string manifest = ReadBytes(table + "0ffce867-cc54-49f8-ac74-c89fc147015d-m0.avro");
  const std::string list =
      ReadBytes(table + "snap-8499397478161915471-1-0ffce867-cc54-49f8-ac74-c89fc147015d.avro");
  ASSERT_FALSE(manifest.empty());
  ASSERT_FALSE(list.empty());
  std::mt19937 rng(7);
  TypePtr ptype = Struct({});
  int failures = 0;
  for (int round = 0; round < 300; ++round) {
    const bool is_list = round % 2 == 1;
    std::string bytes = is_list ? list : manifest;
    for (int k = 0; k < 1 + round % 4; ++k) {
      bytes[rng() % bytes.size()] = static_cast<char>(rng());
    }
    const std::string path = dir.File("mutated.avro");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    if (is_list) {
      auto r = ReadManifestList(fio, path);
      if (!r.ok()) {
        ++failures;
        EXPECT_THAT(r.status().message(), ::testing::HasSubstr("mutated.avro"));
      }
    } else {
      ManifestFile m;
      m.manifest_path = path;
      auto r = ReadManifest(fio, m, ptype, ManifestReadOptions::All());
      if (!r.ok()) {
        ++failures;
        EXPECT_THAT(r.status().message(), ::testing::HasSubstr("mutated.avro"));
      }
    }
  }
  // Most mutations hit the compressed blocks or the header and are caught.
  EXPECT_GT(failures, 100);
}

// ---------------------------------------------------------------------------------------
// Write -> read round trips
// ---------------------------------------------------------------------------------------

SchemaPtr AllTypesSchema() {
  auto s =
      Schema::Make(7, {Field("b", Boolean(), true, 1), Field("i", Int32(), true, 2),
                       Field("l", Int64(), true, 3), Field("f", Float32(), true, 4),
                       Field("d", Float64(), true, 5), Field("dec", Decimal(9, 2), true, 6),
                       Field("bigdec", Decimal(38, 10), true, 7), Field("dt", Date(), true, 8),
                       Field("t", Time(), true, 9), Field("ts", Timestamp(), true, 10),
                       Field("tstz", TimestampTz(), true, 11), Field("s", String(), true, 12),
                       Field("u", Uuid(), true, 13), Field("fx", Fixed(4), true, 14),
                       Field("bin", Binary(), true, 15), Field("tsns", TimestampNs(), true, 16)});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

PartitionSpecPtr AllTransformsSpec(const Schema& schema) {
  std::vector<PartitionField> fields;
  int32_t id = 1000;
  for (int32_t source = 1; source <= 16; ++source) {
    fields.push_back({source, id++, "p" + std::to_string(source), Transform::Identity()});
  }
  fields.push_back({2, id++, "i_bucket", Transform::Bucket(16)});
  fields.push_back({12, id++, "s_bucket", Transform::Bucket(8)});
  fields.push_back({12, id++, "s_trunc", Transform::Truncate(4)});
  fields.push_back({6, id++, "dec_trunc", Transform::Truncate(10)});
  fields.push_back({10, id++, "ts_year", Transform::Year()});
  fields.push_back({11, id++, "tstz_month", Transform::Month()});
  fields.push_back({8, id++, "dt_day", Transform::Day()});
  fields.push_back({10, id++, "ts_hour", Transform::Hour()});
  fields.push_back({3, id++, "l_void", Transform::Void()});
  auto spec = PartitionSpec::Make(schema, 3, std::move(fields));
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return *spec;
}

// One row of source values, in schema order.
std::vector<Scalar> SourceRow(int which) {
  const bool lo = which == 0;
  std::string uuid(16, '\0');
  uuid[0] = lo ? '\x01' : '\xf0';
  uuid[15] = '\x07';
  return {Scalar::Make(Boolean(), !lo),
          Scalar::Make(Int32(), lo ? int32_t{-7} : int32_t{123456}),
          Scalar::Make(Int64(), lo ? int64_t{-1} : int64_t{1} << 40),
          Scalar::Make(Float32(), lo ? -1.5f : 2.5f),
          Scalar::Make(Float64(), lo ? -0.0 : 1e300),
          Scalar::Make(Decimal(9, 2), static_cast<Int128>(lo ? -12345 : 99999)),
          Scalar::Make(Decimal(38, 10),
                       lo ? -(static_cast<Int128>(1) << 100) : static_cast<Int128>(1) << 100),
          Scalar::Make(Date(), lo ? int32_t{-400} : int32_t{20000}),
          Scalar::Make(Time(), lo ? int64_t{0} : int64_t{86399999999}),
          Scalar::Make(Timestamp(), lo ? int64_t{-1000000} : int64_t{1767225600123456}),
          Scalar::Make(TimestampTz(), lo ? int64_t{1000} : int64_t{1767225600123456}),
          Scalar::Make(String(), std::string(lo ? "apple" : "zebra\xc3\xa9s")),
          Scalar::Make(Uuid(), uuid),
          Scalar::Make(Fixed(4), std::string(lo ? "\x00\x01\x02\x03" : "\xff\xfe\xfd\xfc", 4)),
          Scalar::Make(Binary(), std::string(lo ? "" : "\x00zz", lo ? 0 : 3)),
          Scalar::Make(TimestampNs(), lo ? int64_t{-5} : int64_t{1767225600123456789})};
}

// Row 2: NULL everywhere but the floats, which are NaN.
std::vector<Scalar> NullRow(const Schema& schema) {
  std::vector<Scalar> row;
  for (const Field& f : schema.fields()) row.push_back(Scalar::Null(f.type()));
  row[3] = Scalar::Make(Float32(), std::numeric_limits<float>::quiet_NaN());
  row[4] = Scalar::Make(Float64(), std::numeric_limits<double>::quiet_NaN());
  return row;
}

PartitionValues PartitionOf(const PartitionSpec& spec, const Schema& schema,
                            const std::vector<Scalar>& row) {
  PartitionValues out;
  for (const PartitionField& pf : spec.fields()) {
    int index = schema.columns()->GetFieldIndexById(pf.source_id);
    auto v = pf.transform.Apply(row[static_cast<size_t>(index)]);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    out.push_back(*v);
  }
  return out;
}

DataFile MakeFile(int n, PartitionValues partition, int32_t spec_id, int version) {
  DataFile f;
  f.file_path = "s3://bucket/warehouse/db/t/data/file-" + std::to_string(n) + ".parquet";
  f.file_format = n == 2 ? FileFormat::kAvro : FileFormat::kParquet;
  f.spec_id = spec_id;
  f.partition = std::move(partition);
  f.record_count = 1000 + n;
  f.file_size_in_bytes = 123456 + n;
  for (int32_t c = 1; c <= 5; ++c) {
    f.column_sizes[c] = 100 * c + n;
    f.value_counts[c] = 1000 + n;
    f.null_value_counts[c] = c + n;
    f.lower_bounds[c] = std::string("lo\x00", 3) + std::to_string(c);
    f.upper_bounds[c] = std::string("\xff\xfe", 2) + std::to_string(c * 7);
  }
  f.nan_value_counts[4] = n;
  if (n == 1) f.key_metadata = std::string("\x00key\x01", 5);
  f.split_offsets = {4, 1000 + n, 5000};
  f.sort_order_id = n == 0 ? std::optional<int32_t>(1) : std::nullopt;
  if (version >= 3 && n == 1) f.first_row_id = 77;
  return f;
}

class ManifestRoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(ManifestRoundTrip, DataManifestAndList) {
  const int version = GetParam();
  TempDir dir;
  io::LocalFileIO fio;
  SchemaPtr schema = AllTypesSchema();
  PartitionSpecPtr spec = AllTransformsSpec(*schema);
  ASSERT_OK_AND_ASSIGN(TypePtr ptype, spec->PartitionType(*schema));
  std::vector<DataFile> files = {
      MakeFile(0, PartitionOf(*spec, *schema, SourceRow(0)), 3, version),
      MakeFile(1, PartitionOf(*spec, *schema, SourceRow(1)), 3, version),
      MakeFile(2, PartitionOf(*spec, *schema, NullRow(*schema)), 3, version)};

  ManifestWriterOptions wo;
  wo.format_version = version;
  wo.snapshot_id = 42;
  wo.codec = version == 2 ? "zstd" : "deflate";
  const std::string path = dir.File("m0.avro");
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Make(fio, path, *schema, *spec, wo));
  ASSERT_OK(writer->Add(files[0]));
  ManifestEntry existing;
  existing.status = ManifestEntryStatus::kExisting;
  existing.snapshot_id = 7;
  existing.sequence_number = version == 1 ? 0 : 3;
  existing.file_sequence_number = version == 1 ? 0 : 4;
  existing.data_file = std::make_shared<DataFile>(files[1]);
  ASSERT_OK(writer->Existing(existing));
  ManifestEntry deleted = existing;
  deleted.data_file = std::make_shared<DataFile>(files[2]);
  ASSERT_OK(writer->Delete(deleted));
  EXPECT_EQ(writer->entry_count(), 3);
  ASSERT_OK_AND_ASSIGN(ManifestFile mf, writer->Close());
  EXPECT_EQ(mf.manifest_path, path);
  EXPECT_EQ(mf.manifest_length, static_cast<int64_t>(fs::file_size(path)));
  EXPECT_EQ(mf.partition_spec_id, 3);
  EXPECT_EQ(mf.content, FileContent::kData);
  EXPECT_EQ(mf.sequence_number, kUnassignedSequenceNumber);
  // The EXISTING entry's explicit sequence number; the DELETED one does not count.
  EXPECT_EQ(mf.min_sequence_number, version == 1 ? 0 : 3);
  EXPECT_EQ(mf.added_snapshot_id, 42);
  EXPECT_EQ(mf.added_files_count, 1);
  EXPECT_EQ(mf.existing_files_count, 1);
  EXPECT_EQ(mf.deleted_files_count, 1);
  EXPECT_EQ(mf.added_rows_count, 1000);
  EXPECT_EQ(mf.existing_rows_count, 1001);
  EXPECT_EQ(mf.deleted_rows_count, 1002);

  // Partition summaries: exact bounds in single-value form, nulls and NaNs flagged.
  ASSERT_EQ(mf.partitions.size(), spec->fields().size());
  const auto& p0 = files[0].partition;
  const auto& p1 = files[1].partition;
  for (size_t i = 0; i < spec->fields().size(); ++i) {
    SCOPED_TRACE(spec->fields()[i].name);
    const PartitionFieldSummary& s = mf.partitions[i];
    const bool is_float = i == 3 || i == 4;
    const bool is_void = spec->fields()[i].transform.kind() == TransformKind::kVoid;
    EXPECT_EQ(s.contains_null, !is_float);
    EXPECT_EQ(s.contains_nan, is_float);
    if (is_void) {
      EXPECT_EQ(s.lower_bound, std::nullopt);
      EXPECT_EQ(s.upper_bound, std::nullopt);
      continue;
    }
    // Row 0 holds the smaller source values; for buckets order the two hashes.
    Scalar lo = p0[i], hi = p1[i];
    if (spec->fields()[i].transform.kind() == TransformKind::kBucket &&
        lo.get<int32_t>() > hi.get<int32_t>()) {
      std::swap(lo, hi);
    }
    ASSERT_OK_AND_ASSIGN(std::string lo_bytes, SerializeValue(lo));
    ASSERT_OK_AND_ASSIGN(std::string hi_bytes, SerializeValue(hi));
    EXPECT_EQ(s.lower_bound, lo_bytes);
    EXPECT_EQ(s.upper_bound, hi_bytes);
  }
  // -0.0 is the lower bound of the double field and must be written as -0.0.
  EXPECT_EQ(Hex(*mf.partitions[4].lower_bound), "0000000000000080");

  // The list.
  ManifestListWriterOptions lo;
  lo.format_version = version;
  lo.snapshot_id = 42;
  lo.parent_snapshot_id = 7;
  lo.sequence_number = 9;
  if (version >= 3) lo.first_row_id = 500;
  const std::string list_path = dir.File("snap-42.avro");
  ASSERT_OK_AND_ASSIGN(auto lw, ManifestListWriter::Make(fio, list_path, lo));
  ASSERT_OK(lw->Add(mf));
  ASSERT_OK(lw->Close());
  if (version >= 3) {
    EXPECT_EQ(lw->next_row_id(), 500 + 1000 + 1001);
  } else {
    EXPECT_EQ(lw->next_row_id(), std::nullopt);
  }
  ASSERT_OK_AND_ASSIGN(auto list, ReadManifestList(fio, list_path));
  ASSERT_EQ(list.size(), 1u);
  const ManifestFile& m = list[0];
  EXPECT_EQ(m.manifest_path, path);
  EXPECT_EQ(m.manifest_length, mf.manifest_length);
  EXPECT_EQ(m.partition_spec_id, 3);
  EXPECT_EQ(m.sequence_number, version == 1 ? 0 : 9);
  EXPECT_EQ(m.min_sequence_number, version == 1 ? 0 : 3);
  EXPECT_EQ(m.added_snapshot_id, 42);
  EXPECT_EQ(m.added_files_count, 1);
  EXPECT_EQ(m.existing_files_count, 1);
  EXPECT_EQ(m.deleted_files_count, 1);
  EXPECT_EQ(m.added_rows_count, 1000);
  EXPECT_EQ(m.existing_rows_count, 1001);
  EXPECT_EQ(m.deleted_rows_count, 1002);
  EXPECT_EQ(m.first_row_id, version >= 3 ? std::optional<int64_t>(500) : std::nullopt);
  ASSERT_EQ(m.partitions.size(), mf.partitions.size());
  for (size_t i = 0; i < m.partitions.size(); ++i) {
    EXPECT_EQ(m.partitions[i].contains_null, mf.partitions[i].contains_null);
    EXPECT_EQ(m.partitions[i].contains_nan, mf.partitions[i].contains_nan);
    EXPECT_EQ(m.partitions[i].lower_bound, mf.partitions[i].lower_bound);
    EXPECT_EQ(m.partitions[i].upper_bound, mf.partitions[i].upper_bound);
  }

  // The header.
  ASSERT_OK_AND_ASSIGN(ManifestHeader h, ReadManifestHeader(fio, path));
  EXPECT_EQ(h.format_version, version);
  EXPECT_EQ(h.partition_spec_id, 3);
  EXPECT_EQ(h.schema_id, 7);
  EXPECT_EQ(h.content, FileContent::kData);
  ASSERT_OK_AND_ASSIGN(auto header_parts, PartitionSpecFromHeader(h, path));
  EXPECT_TRUE(header_parts.first->Equals(*schema));
  EXPECT_TRUE(header_parts.second->Equals(*spec));

  // The entries, with inheritance from the list entry.
  ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(fio, m, ptype, ManifestReadOptions::All()));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].status, ManifestEntryStatus::kAdded);
  EXPECT_EQ(entries[0].snapshot_id, 42);
  EXPECT_EQ(entries[0].sequence_number, version == 1 ? 0 : 9);
  EXPECT_EQ(entries[0].file_sequence_number, version == 1 ? 0 : 9);
  EXPECT_EQ(entries[1].status, ManifestEntryStatus::kExisting);
  EXPECT_EQ(entries[1].snapshot_id, 7);
  EXPECT_EQ(entries[1].sequence_number, version == 1 ? 0 : 3);
  EXPECT_EQ(entries[1].file_sequence_number, version == 1 ? 0 : 4);
  EXPECT_EQ(entries[2].status, ManifestEntryStatus::kDeleted);
  EXPECT_EQ(entries[2].snapshot_id, 42);
  for (size_t i = 0; i < 3; ++i) {
    DataFile expected = files[i];
    if (version >= 3 && i == 0) expected.first_row_id = 500;  // inherited
    if (version >= 3 && i == 2) expected.first_row_id = 500 + 1000;
    ExpectSameDataFile(*entries[i].data_file, expected);
  }
  // Types of a few partition values as the spec's result types say.
  EXPECT_EQ(entries[0].data_file->partition[22].type()->id(), TypeId::kDate);   // day
  EXPECT_EQ(entries[0].data_file->partition[16].type()->id(), TypeId::kInt32);  // bucket
  EXPECT_EQ(entries[0].data_file->partition[5].type()->id(), TypeId::kDecimal);

  // Status filters.
  ManifestReadOptions added_only;
  added_only.include_existing = false;
  ASSERT_OK_AND_ASSIGN(auto added, ReadManifest(fio, m, ptype, added_only));
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].data_file->file_path, files[0].file_path);
  ASSERT_OK_AND_ASSIGN(auto live, ReadManifest(fio, m, *spec, *schema));
  EXPECT_EQ(live.size(), 2u);
}

TEST_P(ManifestRoundTrip, DeleteManifests) {
  const int version = GetParam();
  if (version == 1) {
    TempDir dir;
    io::LocalFileIO fio;
    ManifestWriterOptions wo;
    wo.format_version = 1;
    wo.snapshot_id = 1;
    wo.content = FileContent::kPositionDeletes;
    EXPECT_THAT(ManifestWriter::Make(fio, dir.File("d.avro"), *AllTypesSchema(),
                                     *PartitionSpec::Unpartitioned(), wo),
                IsError(StatusCode::kInvalidArgument));
    return;
  }
  TempDir dir;
  io::LocalFileIO fio;
  SchemaPtr schema = AllTypesSchema();
  auto spec = *PartitionSpec::Make(*schema, 1, {{12, 1000, "s", Transform::Identity()}});
  ASSERT_OK_AND_ASSIGN(TypePtr ptype, spec->PartitionType(*schema));
  DataFile pos;
  pos.content = FileContent::kPositionDeletes;
  pos.file_path = "s3://b/t/data/pos.parquet";
  pos.partition = {Scalar::Str("x")};
  pos.record_count = 5;
  pos.file_size_in_bytes = 99;
  pos.referenced_data_file = "s3://b/t/data/f1.parquet";
  DataFile eq = pos;
  eq.content = FileContent::kEqualityDeletes;
  eq.file_path = "s3://b/t/data/eq.parquet";
  eq.referenced_data_file.reset();
  eq.equality_ids = {1, 12};
  eq.partition = {Scalar::Null(String())};
  DataFile dv = pos;
  dv.file_format = FileFormat::kPuffin;
  dv.file_path = "s3://b/t/data/dv.puffin";
  if (version >= 3) {
    dv.content_offset = 4;
    dv.content_size_in_bytes = 40;
  }

  ManifestWriterOptions wo;
  wo.format_version = version;
  wo.content = FileContent::kPositionDeletes;
  wo.codec = "snappy";
  const std::string path = dir.File("deletes.avro");
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Make(fio, path, *schema, *spec, wo));
  ASSERT_OK(writer->Add(pos));
  ASSERT_OK(writer->Add(eq, /*data_sequence_number=*/2));
  ASSERT_OK(writer->Add(dv));
  DataFile data;
  data.file_path = "s3://b/t/data/data.parquet";
  data.partition = {Scalar::Str("x")};
  EXPECT_THAT(writer->Add(data), IsError(StatusCode::kInvalidArgument));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf, writer->Close());
  EXPECT_EQ(mf.content, FileContent::kPositionDeletes);
  EXPECT_EQ(mf.added_snapshot_id, kUnassignedSnapshotId);
  EXPECT_EQ(mf.min_sequence_number, 2);
  ASSERT_EQ(mf.partitions.size(), 1u);
  EXPECT_TRUE(mf.partitions[0].contains_null);
  EXPECT_EQ(mf.partitions[0].lower_bound, "x");

  ManifestListWriterOptions lo;
  lo.format_version = version;
  lo.snapshot_id = 11;
  lo.sequence_number = 6;
  if (version >= 3) lo.first_row_id = 0;
  const std::string list_path = dir.File("list.avro");
  ASSERT_OK_AND_ASSIGN(auto lw, ManifestListWriter::Make(fio, list_path, lo));
  ASSERT_OK(lw->Add(mf));
  ASSERT_OK(lw->Close());
  if (version >= 3) {
    EXPECT_EQ(lw->next_row_id(), 0);  // delete manifests take no row ids
  }
  ASSERT_OK_AND_ASSIGN(auto list, ReadManifestList(fio, list_path));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].content, FileContent::kPositionDeletes);
  EXPECT_EQ(list[0].first_row_id, std::nullopt);
  EXPECT_EQ(list[0].added_snapshot_id, 11);
  ASSERT_OK_AND_ASSIGN(ManifestHeader h, ReadManifestHeader(fio, path));
  EXPECT_EQ(h.content, FileContent::kPositionDeletes);

  ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(fio, list[0], ptype));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].sequence_number, 6);
  EXPECT_EQ(entries[0].snapshot_id, 11);  // null in the file: inherited
  EXPECT_EQ(entries[1].sequence_number, 2);
  EXPECT_EQ(entries[1].file_sequence_number, 6);
  for (auto* f : {&pos, &eq, &dv}) f->spec_id = 1;
  ExpectSameDataFile(*entries[0].data_file, pos);
  ExpectSameDataFile(*entries[1].data_file, eq);
  ExpectSameDataFile(*entries[2].data_file, dv);
  EXPECT_TRUE(entries[2].data_file->is_deletion_vector());

  // Partition fields are read by id: one the file lacks reads as NULL, order follows the
  // requested type.
  TypePtr wider = Struct({Field("later", Int64(), true, 1999), ptype->field(0)});
  ASSERT_OK_AND_ASSIGN(auto widened, ReadManifest(fio, list[0], wider));
  ASSERT_EQ(widened.size(), 3u);
  ASSERT_EQ(widened[0].data_file->partition.size(), 2u);
  EXPECT_TRUE(widened[0].data_file->partition[0].is_null());
  EXPECT_EQ(widened[0].data_file->partition[0].type()->id(), TypeId::kInt64);
  EXPECT_EQ(widened[0].data_file->partition[1].get<std::string>(), "x");
  EXPECT_TRUE(widened[1].data_file->partition[1].is_null());
}

INSTANTIATE_TEST_SUITE_P(Versions, ManifestRoundTrip, ::testing::Values(1, 2, 3));

TEST(ManifestWriterTest, RejectsBadInput) {
  TempDir dir;
  io::LocalFileIO fio;
  SchemaPtr schema = AllTypesSchema();
  auto spec = *PartitionSpec::Make(*schema, 0, {{2, 1000, "i", Transform::Identity()}});
  ManifestWriterOptions wo;
  wo.format_version = 4;
  EXPECT_THAT(ManifestWriter::Make(fio, dir.File("a.avro"), *schema, *spec, wo),
              IsError(StatusCode::kInvalidArgument));
  wo.format_version = 1;
  EXPECT_THAT(ManifestWriter::Make(fio, dir.File("a.avro"), *schema, *spec, wo),
              IsErrorWith(StatusCode::kInvalidArgument, "snapshot id"));
  wo.format_version = 2;
  wo.codec = "lzo";
  EXPECT_FALSE(ManifestWriter::Make(fio, dir.File("a.avro"), *schema, *spec, wo).ok());
  wo.codec = "null";
  ASSERT_OK_AND_ASSIGN(auto w, ManifestWriter::Make(fio, dir.File("a.avro"), *schema, *spec, wo));
  DataFile f;
  f.file_path = "x.parquet";
  // Wrong arity and wrong type of partition values.
  EXPECT_THAT(w->Add(f), IsErrorWith(StatusCode::kInvalidArgument, "partition values"));
  f.partition = {Scalar::Str("not an int")};
  EXPECT_THAT(w->Add(f), IsErrorWith(StatusCode::kInvalidArgument, "x.parquet"));
  // EXISTING entries need their sequence numbers in v2.
  ManifestEntry e;
  e.status = ManifestEntryStatus::kExisting;
  e.sequence_number = kUnassignedSequenceNumber;
  f.partition = {Scalar::I32(1)};
  e.data_file = std::make_shared<DataFile>(f);
  EXPECT_THAT(w->Write(e), IsError(StatusCode::kInvalidArgument));
  // Rejected entries leave nothing behind: the writer goes on.
  ASSERT_OK(w->Add(f));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf, w->Close());
  EXPECT_EQ(mf.added_files_count, 1);
  EXPECT_EQ(mf.existing_files_count, 0);
  mf.sequence_number = 1;
  ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(fio, mf, *spec, *schema));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].data_file->partition[0].get<int32_t>(), 1);
  EXPECT_THAT(w->Close(), IsError(StatusCode::kInvalidArgument));
}

TEST(ManifestWriterTest, FirstRowIdsAssignedAcrossManifests) {
  TempDir dir;
  io::LocalFileIO fio;
  SchemaPtr schema = AllTypesSchema();
  auto spec = PartitionSpec::Unpartitioned();
  std::vector<ManifestFile> manifests;
  for (int m = 0; m < 2; ++m) {
    ManifestWriterOptions wo;
    wo.format_version = 3;
    wo.snapshot_id = 5;
    ASSERT_OK_AND_ASSIGN(
        auto w, ManifestWriter::Make(fio, dir.File("m" + std::to_string(m)), *schema, *spec, wo));
    for (int i = 0; i < 3; ++i) {
      DataFile f;
      f.file_path = "f" + std::to_string(m) + std::to_string(i);
      f.record_count = 10 * (i + 1);
      // One file already has a row id (it keeps it and takes none from the range).
      if (m == 1 && i == 1) f.first_row_id = 9000;
      ASSERT_OK(w->Add(f));
    }
    ASSERT_OK_AND_ASSIGN(ManifestFile mf, w->Close());
    manifests.push_back(mf);
  }
  ManifestListWriterOptions lo;
  lo.format_version = 3;
  lo.snapshot_id = 5;
  lo.sequence_number = 1;
  lo.first_row_id = 100;
  ASSERT_OK_AND_ASSIGN(auto lw, ManifestListWriter::Make(fio, dir.File("list"), lo));
  for (const auto& m : manifests) ASSERT_OK(lw->Add(m));
  ASSERT_OK(lw->Close());
  EXPECT_EQ(lw->next_row_id(), 100 + 60 + 60);
  ASSERT_OK_AND_ASSIGN(auto list, ReadManifestList(fio, dir.File("list")));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].first_row_id, 100);
  EXPECT_EQ(list[1].first_row_id, 160);
  ASSERT_OK_AND_ASSIGN(auto e0, ReadManifest(fio, list[0], Struct({})));
  ASSERT_OK_AND_ASSIGN(auto e1, ReadManifest(fio, list[1], Struct({})));
  EXPECT_EQ(e0[0].data_file->first_row_id, 100);
  EXPECT_EQ(e0[1].data_file->first_row_id, 110);
  EXPECT_EQ(e0[2].data_file->first_row_id, 130);
  EXPECT_EQ(e1[0].data_file->first_row_id, 160);
  EXPECT_EQ(e1[1].data_file->first_row_id, 9000);
  EXPECT_EQ(e1[2].data_file->first_row_id, 170);
}

TEST(DataFileBytes, RoundTripEveryPartitionType) {
  SchemaPtr schema = AllTypesSchema();
  PartitionSpecPtr spec = AllTransformsSpec(*schema);
  ASSERT_OK_AND_ASSIGN(TypePtr ptype, spec->PartitionType(*schema));
  std::vector<DataFilePtr> files;
  for (int i = 0; i < 3; ++i) {
    auto row = i < 2 ? SourceRow(i) : NullRow(*schema);
    auto f = std::make_shared<DataFile>(MakeFile(i, PartitionOf(*spec, *schema, row), 3, 3));
    if (i == 1) {
      // An empty map is kept apart from an absent one (Spark writes empty nan_value_counts).
      f->nan_value_counts.clear();
      f->lower_bounds.clear();
      f->empty_metric_maps = 1 << 3;
    }
    files.push_back(f);
  }
  auto del = std::make_shared<DataFile>(*files[0]);
  del->content = FileContent::kEqualityDeletes;
  del->equality_ids = {2, 3};
  del->referenced_data_file = "s3://x/y.parquet";
  del->content_offset = 17;
  del->content_size_in_bytes = 23;
  files.push_back(del);
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeDataFiles(files, ptype));
  ASSERT_OK_AND_ASSIGN(auto back, DecodeDataFiles(bytes, ptype, 3));
  ASSERT_EQ(back.size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) ExpectSameDataFile(*back[i], *files[i]);
  // An empty list round-trips; garbage does not decode.
  ASSERT_OK_AND_ASSIGN(std::string empty, EncodeDataFiles({}, ptype));
  ASSERT_OK_AND_ASSIGN(auto none, DecodeDataFiles(empty, ptype, 3));
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(DecodeDataFiles(bytes.substr(0, bytes.size() / 2), ptype, 3).ok());
  EXPECT_FALSE(DecodeDataFiles("garbage", ptype, 3).ok());
}

TEST(FileFormats, Names) {
  EXPECT_EQ(FileFormatName(FileFormat::kParquet), "PARQUET");
  EXPECT_EQ(*ParseFileFormat("parquet"), FileFormat::kParquet);
  EXPECT_EQ(*ParseFileFormat("Puffin"), FileFormat::kPuffin);
  EXPECT_EQ(*ParseFileFormat("ORC"), FileFormat::kOrc);
  EXPECT_THAT(ParseFileFormat("csv"), IsError(StatusCode::kNotSupported));
}

}  // namespace
}  // namespace floe::iceberg
