// The Iceberg metadata tables over fixture tables written by Iceberg Java (equality
// deletes, identity partitions), Trino (partition evolution) and Spark (unpartitioned
// lineitem), and over a table without snapshots: exact rows, projections, NULLs, errors.

#include "floe/connector/iceberg/iceberg_metadata_tables.h"

#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/batch/value_format.h"
#include "floe/exec/values_exec.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"

namespace floe::connector {
namespace {

using exec::PlanPtr;
using exec::ScanRequest;
using exec::SessionConfig;
using exec::ValuesExec;

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kFixtures[] = "../shared/fixtures/iceberg/";

// Opens a fixture table whose paths are relative to its group directory (or to `base`
// under it).
Result<iceberg::Table> OpenDuckdbFixture(const std::string& metadata,
                                         const std::string& base = "") {
  const std::string root = std::string(kFixtures) + "duckdb-iceberg";
  FLOE_ASSIGN_OR_RAISE(auto io, io::LocalFileIO::Make({}, base.empty() ? root : root + "/" + base));
  return iceberg::OpenTable(root + "/" + metadata, io);
}

Result<iceberg::Table> OpenCxxFixture(const std::string& table_dir) {
  const std::string tables = std::string(kFixtures) + "iceberg-cxx/tests/tables/";
  FLOE_ASSIGN_OR_RAISE(
      auto io, io::LocalFileIO::Make({"s3a://warehouse/=" + tables, "s3://warehouse/=" + tables}));
  return iceberg::OpenTable(tables + table_dir, io);
}

constexpr char kPartitioned[] =
    "data/persistent/equality_deletes/warehouse/mydb/mytable_partitioned/metadata/"
    "v6.metadata.json";

// Column `name` of a batch as text rows (NULL for nulls).
std::vector<std::string> Column(const RecordBatch& batch, const std::string& name) {
  std::vector<std::string> out;
  int c = batch.schema()->GetFieldIndex(name);
  if (c < 0) return {"<no column " + name + ">"};
  for (int64_t r = 0; r < batch.num_rows(); ++r) out.push_back(FormatValue(*batch.column(c), r));
  return out;
}

std::vector<int> AllColumns(const connector::IcebergMetadataTable& table) {
  std::vector<int> all;
  for (int i = 0; i < table.schema()->num_fields(); ++i) all.push_back(i);
  return all;
}

std::vector<std::string> FieldNames(const Schema& schema) {
  std::vector<std::string> names;
  for (const Field& f : schema.fields()) names.push_back(f.name());
  return names;
}

class MetadataTablesFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kFixtures))
      GTEST_FAIL() << "the fixtures are missing at " << kFixtures;
  }

  Result<std::shared_ptr<connector::IcebergMetadataTable>> Partitioned(
      connector::MetadataTableKind kind, std::optional<int64_t> snapshot_id = std::nullopt) {
    FLOE_ASSIGN_OR_RAISE(iceberg::Table table, OpenDuckdbFixture(kPartitioned));
    return connector::IcebergMetadataTable::Make("mydb.t$x", kind, std::move(table), snapshot_id);
  }
};

TEST(MetadataTableNamesTest, ParsesKnownKindsAndListsThemOtherwise) {
  ASSERT_OK_AND_ASSIGN(connector::MetadataTableKind kind,
                       connector::ParseMetadataTableKind("snapshots", "t$snapshots"));
  EXPECT_EQ(kind, connector::MetadataTableKind::kSnapshots);
  for (const char* name :
       {"snapshots", "history", "manifests", "files", "partitions", "refs", "properties"}) {
    ASSERT_OK_AND_ASSIGN(kind, connector::ParseMetadataTableKind(name, "t"));
    EXPECT_EQ(connector::MetadataTableKindName(kind), name);
  }
  EXPECT_THAT(connector::ParseMetadataTableKind("snapshot", "db.t$snapshot"),
              IsErrorWith(StatusCode::kNotFound,
                          "metadata table \"db.t$snapshot\" does not exist (\"snapshot\" is not "
                          "one of $snapshots, $history, $manifests, $files, $partitions, $refs, "
                          "$properties)"));
  // Names are matched exactly (the SQL parser has folded unquoted names already).
  EXPECT_THAT(connector::ParseMetadataTableKind("Files", "t$Files"),
              IsError(StatusCode::kNotFound));
}

TEST(MetadataTableNamesTest, SplitsAtTheLastDollar) {
  auto split = connector::SplitMetadataTableName("t$snapshots");
  ASSERT_TRUE(split);
  EXPECT_EQ(split->first, "t");
  EXPECT_EQ(split->second, "snapshots");
  split = connector::SplitMetadataTableName("a$b$files");
  ASSERT_TRUE(split);
  EXPECT_EQ(split->first, "a$b");
  EXPECT_EQ(split->second, "files");
  EXPECT_FALSE(connector::SplitMetadataTableName("t"));
  EXPECT_FALSE(connector::SplitMetadataTableName("$files"));
  EXPECT_FALSE(connector::SplitMetadataTableName("t$"));
  EXPECT_FALSE(connector::SplitMetadataTableName(""));
}

TEST_F(MetadataTablesFixtureTest, SnapshotsInCommitOrder) {
  ASSERT_OK_AND_ASSIGN(auto table, Partitioned(connector::MetadataTableKind::kSnapshots));
  EXPECT_THAT(FieldNames(*table->schema()), ElementsAre("committed_at", "snapshot_id", "parent_id",
                                                        "operation", "manifest_list", "summary"));
  EXPECT_EQ(table->schema()->field(0).type()->id(), TypeId::kTimestampTz);
  EXPECT_EQ(table->schema()->field(5).type()->id(), TypeId::kMap);
  plan::Statistics stats = table->statistics();
  EXPECT_EQ(stats.row_count, 5);
  EXPECT_TRUE(stats.exact);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, table->Read(AllColumns(*table)));
  ASSERT_EQ(batch->num_rows(), 5);
  EXPECT_THAT(Column(*batch, "snapshot_id"),
              ElementsAre("6447922032991303611", "4416477559988274704", "6022113614852838397",
                          "883882341917253211", "3138177759849079112"));
  EXPECT_THAT(Column(*batch, "parent_id"),
              ElementsAre("NULL", "6447922032991303611", "4416477559988274704",
                          "6022113614852838397", "883882341917253211"));
  EXPECT_THAT(Column(*batch, "operation"),
              ElementsAre("append", "delete", "delete", "append", "delete"));
  EXPECT_THAT(Column(*batch, "committed_at")[0], "2025-10-16 03:25:53.811+00");
  EXPECT_THAT(Column(*batch, "manifest_list")[4],
              HasSubstr("metadata/snap-3138177759849079112-1-ff275eec-b23b-435f-a6a5-"
                        "1ab7ce1c8749.avro"));
  EXPECT_THAT(Column(*batch, "summary")[3], HasSubstr("added-data-files=>2"));
  // As in Spark's snapshots table, the operation is its own column, not a summary entry.
  EXPECT_THAT(Column(*batch, "summary")[3], Not(HasSubstr("operation")));
}

TEST_F(MetadataTablesFixtureTest, ReadHonoursTheProjection) {
  ASSERT_OK_AND_ASSIGN(auto table, Partitioned(connector::MetadataTableKind::kSnapshots));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, table->Read({1}));
  ASSERT_EQ(batch->num_columns(), 1);
  EXPECT_EQ(batch->schema()->field(0).name(), "snapshot_id");
  EXPECT_EQ(batch->num_rows(), 5);
  // Reordered and repeated.
  ASSERT_OK_AND_ASSIGN(batch, table->Read({3, 1, 3}));
  EXPECT_THAT(FieldNames(*batch->schema()), ElementsAre("operation", "snapshot_id", "operation"));
  EXPECT_THAT(Column(*batch, "operation")[1], "delete");
  // No columns still counts the rows.
  ASSERT_OK_AND_ASSIGN(batch, table->Read({}));
  EXPECT_EQ(batch->num_columns(), 0);
  EXPECT_EQ(batch->num_rows(), 5);
  EXPECT_THAT(table->Read({6}), IsError(StatusCode::kInternal));
}

TEST_F(MetadataTablesFixtureTest, ScanIsOneValuesPartitionWithTheLimit) {
  ASSERT_OK_AND_ASSIGN(auto table, Partitioned(connector::MetadataTableKind::kSnapshots));
  ScanRequest request;
  request.projection = {1};
  request.limit = 2;
  ASSERT_OK_AND_ASSIGN(PlanPtr plan, table->Scan(request, SessionConfig()));
  EXPECT_EQ(plan->name(), ValuesExec::kName);
  EXPECT_EQ(plan->schema()->num_fields(), 1);
  const auto& values = static_cast<const ValuesExec&>(*plan);
  ASSERT_EQ(values.batches().size(), 1u);
  EXPECT_THAT(Column(*values.batches()[0], "snapshot_id"),
              ElementsAre("6447922032991303611", "4416477559988274704"));
  request.limit = 0;
  ASSERT_OK_AND_ASSIGN(plan, table->Scan(request, SessionConfig()));
  EXPECT_TRUE(static_cast<const ValuesExec&>(*plan).batches().empty());
  // batch_size 2: 5 rows in batches of 2, 2 and 1.
  SessionConfig small;
  ASSERT_OK(small.Set("batch_size", "2"));
  request.limit.reset();
  ASSERT_OK_AND_ASSIGN(plan, table->Scan(request, small));
  const auto& sliced = static_cast<const ValuesExec&>(*plan);
  ASSERT_EQ(sliced.batches().size(), 3u);
  EXPECT_EQ(sliced.batches()[0]->num_rows(), 2);
  EXPECT_EQ(sliced.batches()[2]->num_rows(), 1);
  EXPECT_THAT(Column(*sliced.batches()[2], "snapshot_id"), ElementsAre("3138177759849079112"));
}

TEST_F(MetadataTablesFixtureTest, HistoryMarksCurrentAncestors) {
  ASSERT_OK_AND_ASSIGN(auto table, Partitioned(connector::MetadataTableKind::kHistory));
  EXPECT_THAT(FieldNames(*table->schema()),
              ElementsAre("made_current_at", "snapshot_id", "parent_id", "is_current_ancestor"));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, table->Read(AllColumns(*table)));
  EXPECT_THAT(Column(*batch, "made_current_at"),
              ElementsAre("2025-10-16 03:25:53.811+00", "2025-10-16 03:25:53.998+00",
                          "2025-10-16 03:25:54.134+00", "2025-10-16 03:25:54.287+00",
                          "2025-10-16 03:25:54.43+00"));
  EXPECT_THAT(Column(*batch, "is_current_ancestor"), ElementsAre("t", "t", "t", "t", "t"));
  EXPECT_THAT(Column(*batch, "parent_id")[0], "NULL");
}

TEST_F(MetadataTablesFixtureTest, RefsAndProperties) {
  ASSERT_OK_AND_ASSIGN(auto refs, Partitioned(connector::MetadataTableKind::kRefs));
  EXPECT_THAT(FieldNames(*refs->schema()),
              ElementsAre("name", "type", "snapshot_id", "max_reference_age_in_ms",
                          "min_snapshots_to_keep", "max_snapshot_age_in_ms"));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, refs->Read(AllColumns(*refs)));
  ASSERT_EQ(batch->num_rows(), 1);
  EXPECT_THAT(Column(*batch, "name"), ElementsAre("main"));
  EXPECT_THAT(Column(*batch, "type"), ElementsAre("BRANCH"));
  EXPECT_THAT(Column(*batch, "snapshot_id"), ElementsAre("3138177759849079112"));
  EXPECT_THAT(Column(*batch, "min_snapshots_to_keep"), ElementsAre("NULL"));

  ASSERT_OK_AND_ASSIGN(auto properties, Partitioned(connector::MetadataTableKind::kProperties));
  ASSERT_OK_AND_ASSIGN(batch, properties->Read({0, 1}));
  EXPECT_THAT(Column(*batch, "key"), ElementsAre("write.parquet.compression-codec"));
  EXPECT_THAT(Column(*batch, "value"), ElementsAre("zstd"));
}

TEST_F(MetadataTablesFixtureTest, FilesOfTheCurrentAndOfAnOlderSnapshot) {
  ASSERT_OK_AND_ASSIGN(auto table, Partitioned(connector::MetadataTableKind::kFiles));
  EXPECT_THAT(FieldNames(*table->schema()),
              ElementsAre("content", "file_path", "file_format", "spec_id", "partition",
                          "record_count", "file_size_in_bytes", "column_sizes", "value_counts",
                          "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds",
                          "key_metadata", "split_offsets", "equality_ids", "sort_order_id",
                          "first_row_id", "referenced_data_file", "content_offset",
                          "content_size_in_bytes", "readable_metrics"));
  EXPECT_EQ(table->schema()->field(21).type()->ToString(),
            "struct<bir: struct<column_size: int64, value_count: int64, null_value_count: int64, "
            "nan_value_count: int64, lower_bound: date, upper_bound: date>, id: "
            "struct<column_size: int64, value_count: int64, null_value_count: int64, "
            "nan_value_count: int64, lower_bound: int32, upper_bound: int32>, name: "
            "struct<column_size: int64, value_count: int64, null_value_count: int64, "
            "nan_value_count: int64, lower_bound: string, upper_bound: string>>");
  EXPECT_FALSE(table->statistics().row_count.has_value());
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, table->Read(AllColumns(*table)));
  // 6 data files and 3 equality delete files.
  ASSERT_EQ(batch->num_rows(), 9);
  std::vector<std::string> content = Column(*batch, "content");
  EXPECT_EQ(std::count(content.begin(), content.end(), "0"), 6);
  EXPECT_EQ(std::count(content.begin(), content.end(), "2"), 3);
  EXPECT_THAT(Column(*batch, "file_format"), ::testing::Each("PARQUET"));
  int64_t data_rows = 0;
  std::vector<std::string> records = Column(*batch, "record_count");
  for (size_t r = 0; r < records.size(); ++r) {
    if (content[r] == "0") data_rows += std::stoll(records[r]);
  }
  EXPECT_EQ(data_rows, 6);
  std::vector<std::string> equality_ids = Column(*batch, "equality_ids");
  std::vector<std::string> value_counts = Column(*batch, "value_counts");
  for (size_t r = 0; r < content.size(); ++r) {
    if (content[r] == "0") {
      EXPECT_EQ(equality_ids[r], "NULL") << r;
      EXPECT_THAT(value_counts[r], HasSubstr("1=>1")) << r;
      EXPECT_THAT(Column(*batch, "readable_metrics")[r], HasSubstr(",1,0,,")) << r;
    } else {
      EXPECT_NE(equality_ids[r], "NULL") << r;
    }
  }
  // The first snapshot had the 4 data files only.
  ASSERT_OK_AND_ASSIGN(auto first,
                       Partitioned(connector::MetadataTableKind::kFiles, 6447922032991303611));
  ASSERT_OK_AND_ASSIGN(batch, first->Read({0, 5}));
  EXPECT_THAT(Column(*batch, "content"), ElementsAre("0", "0", "0", "0"));
  EXPECT_THAT(Column(*batch, "record_count"), ElementsAre("1", "1", "1", "1"));
  EXPECT_THAT(Partitioned(connector::MetadataTableKind::kFiles, 42),
              IsErrorWith(StatusCode::kNotFound, "table mydb.t$x has no snapshot 42"));
}

TEST_F(MetadataTablesFixtureTest, PartitionsAggregateDataAndDeleteFiles) {
  ASSERT_OK_AND_ASSIGN(auto table, Partitioned(connector::MetadataTableKind::kPartitions));
  EXPECT_THAT(
      FieldNames(*table->schema()),
      ElementsAre("partition", "spec_id", "record_count", "file_count",
                  "total_data_file_size_in_bytes", "position_delete_record_count",
                  "position_delete_file_count", "equality_delete_record_count",
                  "equality_delete_file_count", "last_updated_at", "last_updated_snapshot_id"));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, table->Read(AllColumns(*table)));
  std::vector<std::string> partitions = Column(*batch, "partition");
  std::vector<std::string> records = Column(*batch, "record_count");
  std::vector<std::string> eq_files = Column(*batch, "equality_delete_file_count");
  std::vector<std::string> updated = Column(*batch, "last_updated_snapshot_id");
  std::map<std::string, std::string> summary;
  for (size_t r = 0; r < partitions.size(); ++r) {
    summary[partitions[r]] = records[r] + " " + eq_files[r] + " " + updated[r];
  }
  // Names a-d came with the first snapshot, e and f with the fourth; the equality deletes
  // of snapshots 2, 3 and 5 hit b, c and f (as `floe iceberg plan` shows).
  EXPECT_THAT(summary, ElementsAre(::testing::Pair("(a)", "1 0 6447922032991303611"),
                                   ::testing::Pair("(b)", "1 1 4416477559988274704"),
                                   ::testing::Pair("(c)", "1 1 6022113614852838397"),
                                   ::testing::Pair("(d)", "1 0 6447922032991303611"),
                                   ::testing::Pair("(e)", "1 0 883882341917253211"),
                                   ::testing::Pair("(f)", "1 1 3138177759849079112")));
}

TEST_F(MetadataTablesFixtureTest, ManifestsCountDataAndDeleteFiles) {
  ASSERT_OK_AND_ASSIGN(auto table, Partitioned(connector::MetadataTableKind::kManifests));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, table->Read(AllColumns(*table)));
  std::vector<std::string> content = Column(*batch, "content");
  std::vector<std::string> added_data = Column(*batch, "added_data_files_count");
  std::vector<std::string> added_deletes = Column(*batch, "added_delete_files_count");
  int data_files = 0;
  int delete_files = 0;
  for (size_t r = 0; r < content.size(); ++r) {
    data_files +=
        std::stoi(added_data[r]) + std::stoi(Column(*batch, "existing_data_files_count")[r]);
    delete_files +=
        std::stoi(added_deletes[r]) + std::stoi(Column(*batch, "existing_delete_files_count")[r]);
  }
  EXPECT_EQ(data_files, 6);
  EXPECT_EQ(delete_files, 3);
  EXPECT_THAT(Column(*batch, "partition_spec_id"), ::testing::Each("0"));
  // Partition summaries name the identity values as text.
  EXPECT_THAT(Column(*batch, "partition_summaries")[0], HasSubstr("(f,"));
}

TEST_F(MetadataTablesFixtureTest, PartitionEvolutionUnitesTheSpecsFields) {
  ASSERT_OK_AND_ASSIGN(iceberg::Table opened, OpenCxxFixture("partition_evolution"));
  ASSERT_OK_AND_ASSIGN(auto table, connector::IcebergMetadataTable::Make(
                                       "t$files", connector::MetadataTableKind::kFiles, opened));
  const Field& partition = table->schema()->field(4);
  EXPECT_EQ(partition.name(), "partition");
  EXPECT_EQ(partition.type()->ToString(), "struct<c1: int32, c2: date, c3: float64>");
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, table->Read({3, 4, 5}));
  std::vector<std::string> specs = Column(*batch, "spec_id");
  std::vector<std::string> partitions = Column(*batch, "partition");
  ASSERT_EQ(batch->num_rows(), 7);
  for (size_t r = 0; r < specs.size(); ++r) {
    // Spec 0 fills c1 and c2; spec 1 only c3.
    if (specs[r] == "0") {
      EXPECT_THAT(partitions[r], ::testing::EndsWith(",)")) << r;
    } else {
      EXPECT_THAT(partitions[r], ::testing::StartsWith("(,,")) << r;
    }
  }
  ASSERT_OK_AND_ASSIGN(auto parts,
                       connector::IcebergMetadataTable::Make(
                           "t$partitions", connector::MetadataTableKind::kPartitions, opened));
  ASSERT_OK_AND_ASSIGN(batch, parts->Read({1, 2, 3}));
  EXPECT_EQ(batch->num_rows(), 7);
}

TEST_F(MetadataTablesFixtureTest, UnpartitionedTablesHaveNoPartitionColumn) {
  ASSERT_OK_AND_ASSIGN(iceberg::Table opened,
                       OpenDuckdbFixture("data/persistent/iceberg/lineitem_iceberg/metadata/"
                                         "v2.metadata.json",
                                         "data/persistent/iceberg"));
  ASSERT_OK_AND_ASSIGN(auto files, connector::IcebergMetadataTable::Make(
                                       "t$files", connector::MetadataTableKind::kFiles, opened));
  EXPECT_EQ(files->schema()->GetFieldIndex("partition"), -1);
  ASSERT_OK_AND_ASSIGN(auto parts,
                       connector::IcebergMetadataTable::Make(
                           "t$partitions", connector::MetadataTableKind::kPartitions, opened));
  EXPECT_THAT(FieldNames(*parts->schema()),
              ElementsAre("record_count", "file_count", "total_data_file_size_in_bytes",
                          "position_delete_record_count", "position_delete_file_count",
                          "equality_delete_record_count", "equality_delete_file_count",
                          "last_updated_at", "last_updated_snapshot_id"));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, parts->Read(AllColumns(*parts)));
  EXPECT_THAT(Column(*batch, "record_count"), ElementsAre("51793"));
  EXPECT_THAT(Column(*batch, "file_count"), ElementsAre("1"));
  EXPECT_THAT(Column(*batch, "total_data_file_size_in_bytes"), ElementsAre("1225526"));
  EXPECT_THAT(Column(*batch, "position_delete_file_count"), ElementsAre("0"));
  EXPECT_THAT(Column(*batch, "last_updated_snapshot_id"), ElementsAre("2354745328521181395"));
  ASSERT_OK_AND_ASSIGN(batch, files->Read({1, 4}));
  EXPECT_THAT(Column(*batch, "file_path"),
              ElementsAre("lineitem_iceberg/data/"
                          "00000-5-dad9988f-2a3b-464c-adb6-6034de93da19-00001.parquet"));
  EXPECT_THAT(Column(*batch, "record_count"), ElementsAre("51793"));
}

TEST_F(MetadataTablesFixtureTest, TableWithoutSnapshots) {
  ASSERT_OK_AND_ASSIGN(
      iceberg::Table opened,
      OpenDuckdbFixture("data/persistent/timestamptz_ns/metadata/v1.metadata.json"));
  for (connector::MetadataTableKind kind :
       {connector::MetadataTableKind::kSnapshots, connector::MetadataTableKind::kHistory,
        connector::MetadataTableKind::kManifests, connector::MetadataTableKind::kFiles,
        connector::MetadataTableKind::kPartitions, connector::MetadataTableKind::kRefs,
        connector::MetadataTableKind::kProperties}) {
    ASSERT_OK_AND_ASSIGN(auto table, connector::IcebergMetadataTable::Make("t", kind, opened));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, table->Read(AllColumns(*table)));
    EXPECT_EQ(batch->num_rows(), 0) << connector::MetadataTableKindName(kind);
    EXPECT_EQ(batch->num_columns(), table->schema()->num_fields());
  }
}

}  // namespace
}  // namespace floe::connector
