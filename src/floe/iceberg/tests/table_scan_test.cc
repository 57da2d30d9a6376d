#include "floe/iceberg/table_scan.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/common/thread_pool.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/table.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::testing::IsError;

using ::testing::ElementsAre;
using ::testing::Pair;

const char* const kFixtures = "../shared/fixtures/iceberg";

FileScanTask TaskOf(std::string path, int64_t bytes) {
  auto file = std::make_shared<DataFile>();
  file->file_path = std::move(path);
  file->file_size_in_bytes = bytes;
  file->record_count = bytes;
  FileScanTask task;
  task.data_file = file;
  task.length = bytes;
  task.estimated_row_count = bytes;
  return task;
}

std::vector<std::string> PathsOf(const ScanTaskGroup& group) {
  std::vector<std::string> out;
  for (const FileScanTask& task : group.tasks) out.push_back(task.data_file->file_path);
  return out;
}

TEST(GroupTasksTest, NoTasksGiveOneEmptyGroup) {
  std::vector<ScanTaskGroup> groups = GroupTasks({}, 8);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_TRUE(groups[0].tasks.empty());
  EXPECT_EQ(groups[0].total_bytes, 0);
  EXPECT_EQ(GroupTasks({}, 0).size(), 1u);
}

TEST(GroupTasksTest, FewerTasksThanGroupsGiveOneGroupPerTask) {
  std::vector<ScanTaskGroup> groups = GroupTasks({TaskOf("a", 10), TaskOf("b", 20)}, 8);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_THAT(PathsOf(groups[0]), ElementsAre("b"));
  EXPECT_THAT(PathsOf(groups[1]), ElementsAre("a"));
}

TEST(GroupTasksTest, LargestFirstIntoTheLightestGroup) {
  std::vector<FileScanTask> tasks = {TaskOf("a", 5), TaskOf("b", 9), TaskOf("c", 4),
                                     TaskOf("d", 7), TaskOf("e", 3), TaskOf("f", 3)};
  std::vector<ScanTaskGroup> groups = GroupTasks(tasks, 3);
  ASSERT_EQ(groups.size(), 3u);
  // 9 -> g0; 7 -> g1; 5 -> g2; 4 -> g2 (5); 3 -> g1 (7); 3 (f) -> g0 (9) vs g1 (10)
  // vs g2 (9): g0 by lowest index.
  EXPECT_THAT(PathsOf(groups[0]), ElementsAre("b", "f"));
  EXPECT_THAT(PathsOf(groups[1]), ElementsAre("d", "e"));
  EXPECT_THAT(PathsOf(groups[2]), ElementsAre("a", "c"));
  EXPECT_EQ(groups[0].total_bytes, 12);
  EXPECT_EQ(groups[1].total_bytes, 10);
  EXPECT_EQ(groups[2].total_bytes, 9);
  EXPECT_EQ(groups[0].estimated_row_count, 12);
}

// (path, part_begin, part_end, parts, estimated rows) of each task.
std::vector<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>> PartsOf(
    const std::vector<FileScanTask>& tasks) {
  std::vector<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>> out;
  for (const FileScanTask& t : tasks) {
    out.emplace_back(t.data_file->file_path, t.part_begin, t.part_end, t.parts,
                     t.estimated_row_count);
  }
  return out;
}

TEST(SplitTasksIntoPartsTest, OneFileIsCutIntoEvenShares) {
  using P = std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>;
  // 200,000 rows into 3 groups: cuts at 66,666 and 133,333.
  std::vector<FileScanTask> parts = SplitTasksIntoParts({TaskOf("a", 200000)}, 3);
  EXPECT_THAT(PartsOf(parts),
              ElementsAre(P{"a", 0, 66666, 200000, 66666}, P{"a", 66666, 133333, 200000, 66667},
                          P{"a", 133333, 200000, 200000, 66667}));
  EXPECT_TRUE(parts[0].is_part());
  EXPECT_TRUE(parts[0].is_whole_file());  // a part of a whole-file range
  EXPECT_EQ(parts[1].weight(), 66667);
  std::vector<ScanTaskGroup> groups = GroupTasks(parts, 3);
  ASSERT_EQ(groups.size(), 3u);
  for (const ScanTaskGroup& group : groups) EXPECT_EQ(group.tasks.size(), 1u);
  // No more shares than 32,768-row ones: 100,000 rows into 8 groups make 3.
  EXPECT_EQ(SplitTasksIntoParts({TaskOf("a", 100000)}, 8).size(), 3u);
  // Too few rows for two shares, or one group: no parts.
  EXPECT_THAT(PartsOf(SplitTasksIntoParts({TaskOf("a", 60000)}, 4)),
              ElementsAre(P{"a", 0, 1, 1, 60000}));
  EXPECT_THAT(PartsOf(SplitTasksIntoParts({TaskOf("a", 200000)}, 1)),
              ElementsAre(P{"a", 0, 1, 1, 200000}));
}

TEST(SplitTasksIntoPartsTest, SharesRunAcrossTasksAndOnlyIdleGroupsCut) {
  using P = std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>;
  // 150,000 rows in two files into 4 groups (37,500 rows each): the first file gives two
  // shares and the start of the third; a cut leaving 10,000 rows (under half of 32,768)
  // is not made.
  std::vector<FileScanTask> parts =
      SplitTasksIntoParts({TaskOf("a", 122880), TaskOf("b", 27120)}, 4);
  EXPECT_THAT(PartsOf(parts),
              ElementsAre(P{"a", 0, 37500, 122880, 37500}, P{"a", 37500, 75000, 122880, 37500},
                          P{"a", 75000, 122880, 122880, 47880}, P{"b", 0, 1, 1, 27120}));
  // As many tasks as groups: none is cut, however uneven.
  EXPECT_THAT(PartsOf(SplitTasksIntoParts({TaskOf("a", 122880), TaskOf("b", 27120)}, 2)),
              ElementsAre(P{"a", 0, 1, 1, 122880}, P{"b", 0, 1, 1, 27120}));
}

TEST(GroupTasksTest, DeterministicWhateverTheInputOrder) {
  std::vector<FileScanTask> tasks;
  for (int i = 0; i < 50; ++i)
    tasks.push_back(TaskOf("f" + std::to_string(i), 100 + (i * 37) % 91));
  std::vector<ScanTaskGroup> first = GroupTasks(tasks, 7);
  std::reverse(tasks.begin(), tasks.end());
  std::vector<ScanTaskGroup> second = GroupTasks(tasks, 7);
  ASSERT_EQ(first.size(), 7u);
  for (size_t g = 0; g < first.size(); ++g) EXPECT_EQ(PathsOf(first[g]), PathsOf(second[g]));
  int64_t total = 0, max = 0, min = INT64_MAX;
  for (const ScanTaskGroup& group : first) {
    total += group.total_bytes;
    max = std::max(max, group.total_bytes);
    min = std::min(min, group.total_bytes);
  }
  EXPECT_EQ(total, [&] {
    int64_t sum = 0;
    for (const FileScanTask& t : tasks) sum += t.length;
    return sum;
  }());
  // Greedy largest-first balances within one task's size.
  EXPECT_LE(max - min, 190);
}

TEST(GroupTasksTest, OneGroupHoldsTasksLargestFirstTiesByPathAndStart) {
  // Paths sharing a long prefix and their first 16 bytes after it, so that ties are broken
  // by the rest; two ranges of one file; sizes that tie.
  const std::string dir = "s3://bucket/warehouse/db/table/data/day=2024-01-01/";
  auto task = [&](const std::string& name, int64_t bytes, int64_t start = 0) {
    FileScanTask t = TaskOf(dir + name, bytes);
    t.start = start;
    return t;
  };
  std::vector<FileScanTask> in_path_order = {
      task("bucket=1/part-00000.parquet", 5),    task("bucket=1/part-00001.parquet", 9),
      task("bucket=1/part-00002.parquet", 5, 0), task("bucket=1/part-00002.parquet", 5, 100),
      task("bucket=10/part-00000.parquet", 9),   task("bucket=2/part-00000.parquet", 1),
      task("bucket=2/part-00000x.parquet", 5)};
  const std::vector<std::string> expected = {
      dir + "bucket=1/part-00001.parquet", dir + "bucket=10/part-00000.parquet",
      dir + "bucket=1/part-00000.parquet", dir + "bucket=1/part-00002.parquet",
      dir + "bucket=1/part-00002.parquet", dir + "bucket=2/part-00000x.parquet",
      dir + "bucket=2/part-00000.parquet"};
  std::vector<FileScanTask> shuffled = in_path_order;
  std::rotate(shuffled.begin(), shuffled.begin() + 3, shuffled.end());
  std::swap(shuffled[0], shuffled[5]);
  for (const std::vector<FileScanTask>& tasks : {in_path_order, shuffled}) {
    std::vector<ScanTaskGroup> groups = GroupTasks(tasks, 1);
    ASSERT_EQ(groups.size(), 1u);
    EXPECT_EQ(PathsOf(groups[0]), expected);
    ASSERT_EQ(groups[0].tasks.size(), 7u);
    EXPECT_EQ(groups[0].tasks[3].start, 0);
    EXPECT_EQ(groups[0].tasks[4].start, 100);
    EXPECT_EQ(groups[0].total_bytes, 39);
  }
}

TEST(SplitRangesTest, WholeFileWithoutUsableOffsets) {
  DataFile file;
  file.file_size_in_bytes = 1000;
  EXPECT_THAT(SplitRanges(file, 100), ElementsAre(Pair(0, 1000)));
  file.split_offsets = {4};
  EXPECT_THAT(SplitRanges(file, 100), ElementsAre(Pair(0, 1000)));
  file.split_offsets = {4, 300, 200};  // not ascending
  EXPECT_THAT(SplitRanges(file, 100), ElementsAre(Pair(0, 1000)));
  file.split_offsets = {4, 300, 1000};  // past the end
  EXPECT_THAT(SplitRanges(file, 100), ElementsAre(Pair(0, 1000)));
}

TEST(SplitRangesTest, CutsAtRowGroupsOnceTheTargetIsReached) {
  DataFile file;
  file.file_size_in_bytes = 1000;
  file.split_offsets = {4, 150, 300, 420, 800};
  EXPECT_THAT(SplitRanges(file, 250), ElementsAre(Pair(0, 300), Pair(300, 500), Pair(800, 200)));
  EXPECT_THAT(SplitRanges(file, 1), ElementsAre(Pair(0, 150), Pair(150, 150), Pair(300, 120),
                                                Pair(420, 380), Pair(800, 200)));
  EXPECT_THAT(SplitRanges(file, 5000), ElementsAre(Pair(0, 1000)));
}

// ---------------------------------------------------------------------------------------
// Planning real tables
// ---------------------------------------------------------------------------------------

struct Opened {
  Table table;
};

Result<Table> OpenFixture(const std::string& group, const std::string& metadata,
                          std::vector<std::string> path_map = {}, std::string base = "") {
  std::string root = std::string(kFixtures) + "/" + group;
  if (base.empty()) base = root;
  FLOE_ASSIGN_OR_RAISE(auto io, io::LocalFileIO::Make(path_map, base));
  return OpenTable(root + "/" + metadata, io);
}

Result<Table> OpenCxx(const std::string& table_dir) {
  std::string tables = std::string(kFixtures) + "/iceberg-cxx/tests/tables/";
  FLOE_ASSIGN_OR_RAISE(
      auto io, io::LocalFileIO::Make({"s3a://warehouse/=" + tables, "s3://warehouse/=" + tables}));
  return OpenTable(tables + table_dir, io);
}

TEST(TableScanFixtureTest, PlansEveryDataFileOnceWithStatistics) {
  ASSERT_OK_AND_ASSIGN(Table table, OpenCxx("partitioned_table"));
  ASSERT_OK_AND_ASSIGN(auto scan, TableScan::Make(table.metadata, table.io, {}));
  ASSERT_OK_AND_ASSIGN(std::vector<FileScanTask> tasks, scan->PlanFiles());
  EXPECT_EQ(tasks.size(), 6u);
  std::set<std::string> paths;
  for (const FileScanTask& task : tasks) {
    paths.insert(task.data_file->file_path);
    EXPECT_TRUE(task.is_whole_file());
    EXPECT_TRUE(task.delete_files.empty());
    EXPECT_EQ(task.residual, nullptr);
  }
  EXPECT_EQ(paths.size(), 6u);
  ScanStatistics stats = scan->Statistics(tasks);
  EXPECT_EQ(stats.row_count, 6);
  EXPECT_TRUE(stats.row_count_exact);
  EXPECT_EQ(stats.file_count, 6);

  EXPECT_TRUE(stats.columns.empty());

  // With column statistics: c1 is 1 or 2, c2 within the six dates, no nulls.
  ScanOptions with_stats;
  with_stats.collect_column_stats = true;
  ASSERT_OK_AND_ASSIGN(auto stats_scan, TableScan::Make(table.metadata, table.io, with_stats));
  ASSERT_OK_AND_ASSIGN(auto stats_tasks, stats_scan->PlanFiles());
  ScanStatistics full = stats_scan->Statistics(stats_tasks);
  ASSERT_EQ(full.columns.size(), 3u);
  const ColumnStatistics& c1 = full.columns.at(1);
  EXPECT_EQ(c1.null_count, 0);
  ASSERT_TRUE(c1.lower_bound.has_value());
  ASSERT_TRUE(c1.upper_bound.has_value());
  EXPECT_EQ(c1.lower_bound->get<int32_t>(), 1);
  EXPECT_EQ(c1.upper_bound->get<int32_t>(), 2);
  const ColumnStatistics& c3 = full.columns.at(3);
  ASSERT_TRUE(c3.lower_bound.has_value());
  EXPECT_EQ(c3.lower_bound->get<double>(), -50.0);
  EXPECT_EQ(c3.upper_bound->get<double>(), 42.0);

  ASSERT_OK_AND_ASSIGN(std::vector<ScanTaskGroup> groups, scan->PlanGroups(4));
  EXPECT_EQ(groups.size(), 4u);
  ASSERT_OK_AND_ASSIGN(groups, scan->PlanGroups(64));
  EXPECT_EQ(groups.size(), 6u);
}

TEST(TableScanFixtureTest, ParallelPlanningEqualsSerialPlanning) {
  ASSERT_OK_AND_ASSIGN(Table table,
                       OpenFixture("duckdb-iceberg-2024",
                                   "data/iceberg/generated_spec2_0_001/pyspark_iceberg_table/"
                                   "metadata/v9.metadata.json"));
  ASSERT_OK_AND_ASSIGN(auto serial, TableScan::Make(table.metadata, table.io, {}));
  ASSERT_OK_AND_ASSIGN(auto pool, ThreadPool::Make(4));
  ScanOptions options;
  options.pool = pool.get();
  ASSERT_OK_AND_ASSIGN(auto parallel, TableScan::Make(table.metadata, table.io, options));
  ASSERT_OK_AND_ASSIGN(auto a, serial->PlanFiles());
  ASSERT_OK_AND_ASSIGN(auto b, parallel->PlanFiles());
  ASSERT_EQ(a.size(), b.size());
  int with_deletes = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].data_file->file_path, b[i].data_file->file_path);
    EXPECT_EQ(a[i].delete_files.size(), b[i].delete_files.size());
    if (!a[i].delete_files.empty()) ++with_deletes;
  }
  // Merge-on-read: position delete files apply, so the row count is only an upper bound.
  EXPECT_GT(with_deletes, 0);
  ScanStatistics stats = serial->Statistics(a);
  EXPECT_FALSE(stats.row_count_exact);
  EXPECT_GT(stats.delete_file_count, 0);
}

TEST(TableScanFixtureTest, SnapshotSelection) {
  ASSERT_OK_AND_ASSIGN(Table table, OpenCxx("dangling_deletes"));
  const TableMetadata& md = *table.metadata;
  ASSERT_GE(md.snapshots.size(), 2u);
  ScanOptions by_id;
  by_id.snapshot.snapshot_id = md.snapshots[1].snapshot_id;
  ASSERT_OK_AND_ASSIGN(auto scan, TableScan::Make(table.metadata, table.io, by_id));
  EXPECT_EQ(scan->snapshot()->snapshot_id, md.snapshots[1].snapshot_id);

  ScanOptions unknown;
  unknown.snapshot.snapshot_id = 42;
  EXPECT_THAT(TableScan::Make(table.metadata, table.io, unknown), IsError(StatusCode::kNotFound));

  ScanOptions both = by_id;
  both.snapshot.ref = "main";
  EXPECT_THAT(TableScan::Make(table.metadata, table.io, both),
              IsError(StatusCode::kInvalidArgument));

  ScanOptions main;
  main.snapshot.ref = "main";
  ASSERT_OK_AND_ASSIGN(scan, TableScan::Make(table.metadata, table.io, main));
  EXPECT_EQ(scan->snapshot()->snapshot_id, *md.current_snapshot_id);

  ScanOptions before;
  before.snapshot.as_of_timestamp_ms = md.snapshots[0].timestamp_ms - 1;
  EXPECT_THAT(TableScan::Make(table.metadata, table.io, before), IsError(StatusCode::kNotFound));
  ScanOptions at;
  at.snapshot.as_of_timestamp_ms = md.snapshots[1].timestamp_ms;
  ASSERT_OK_AND_ASSIGN(scan, TableScan::Make(table.metadata, table.io, at));
  EXPECT_EQ(scan->snapshot()->snapshot_id, md.snapshots[1].snapshot_id);
}

TEST(TableScanFixtureTest, FilterPrunesPartitionsAndKeepsResiduals) {
  // identity(c1), identity(c2) over six files; c1 = 1 keeps the files of that partition
  // and needs no residual, since the partition decides it.
  ASSERT_OK_AND_ASSIGN(Table table, OpenCxx("partitioned_table"));
  ASSERT_OK_AND_ASSIGN(auto all, TableScan::Make(table.metadata, table.io, {}));
  ASSERT_OK_AND_ASSIGN(auto all_tasks, all->PlanFiles());
  std::map<int32_t, int> per_c1;
  for (const FileScanTask& task : all_tasks) {
    ASSERT_FALSE(task.data_file->partition.empty());
    per_c1[task.data_file->partition[0].get<int32_t>()]++;
  }
  ASSERT_FALSE(per_c1.empty());
  auto [value, count] = *per_c1.begin();

  ScanOptions options;
  options.filter = Expression::Make(Operation::kEq, "c1", {Scalar::I32(value)});
  ASSERT_OK_AND_ASSIGN(auto scan, TableScan::Make(table.metadata, table.io, options));
  ASSERT_OK_AND_ASSIGN(auto tasks, scan->PlanFiles());
  EXPECT_EQ(static_cast<int>(tasks.size()), count);
  for (const FileScanTask& task : tasks) {
    EXPECT_EQ(task.data_file->partition[0].get<int32_t>(), value);
    EXPECT_EQ(task.residual, nullptr);
  }

  ScanOptions none;
  none.filter = Expression::Make(Operation::kEq, "c1", {Scalar::I32(-12345)});
  ASSERT_OK_AND_ASSIGN(scan, TableScan::Make(table.metadata, table.io, none));
  ASSERT_OK_AND_ASSIGN(tasks, scan->PlanFiles());
  EXPECT_TRUE(tasks.empty());
  ASSERT_OK_AND_ASSIGN(auto groups, scan->PlanGroups(8));
  EXPECT_EQ(groups.size(), 1u);

  ScanOptions unknown_column;
  unknown_column.filter = Expression::Make(Operation::kEq, "nope", {Scalar::I32(1)});
  EXPECT_THAT(TableScan::Make(table.metadata, table.io, unknown_column),
              IsError(StatusCode::kBind));
}

// Reads every group of a scan and returns the number of rows and the output schema.
Result<std::pair<int64_t, floe::SchemaPtr>> ReadAll(const Table& table, const TableScan& scan) {
  FLOE_ASSIGN_OR_RAISE(auto groups, scan.PlanGroups(3));
  FLOE_ASSIGN_OR_RAISE(auto reader, MakeTaskReader(table, scan));
  int64_t rows = 0;
  for (const ScanTaskGroup& group : groups) {
    FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(group));
    while (true) {
      FLOE_ASSIGN_OR_RAISE(auto batch, stream->Next());
      if (!batch) break;
      if (!batch->schema()->Equals(*reader->output_schema())) {
        return Status::Internal("batch schema {} differs from {}", batch->schema()->ToString(),
                                reader->output_schema()->ToString());
      }
      rows += batch->num_rows();
    }
  }
  return std::make_pair(rows, reader->output_schema());
}

TEST(TableScanFixtureTest, PinnedSnapshotReadsWithItsOwnSchema) {
  // Spark's generated_spec1: column 16 (schema_evol_added_col_1) was added after the
  // first snapshots and later promoted int -> long.
  ASSERT_OK_AND_ASSIGN(Table table,
                       OpenFixture("duckdb-iceberg-2024",
                                   "data/iceberg/generated_spec1_0_001/pyspark_iceberg_table/"
                                   "metadata/v9.metadata.json"));
  const TableMetadata& md = *table.metadata;
  ScanOptions first;
  first.snapshot.snapshot_id = md.snapshots.front().snapshot_id;
  ASSERT_OK_AND_ASSIGN(auto old_scan, TableScan::Make(table.metadata, table.io, first));
  EXPECT_EQ(old_scan->projected_schema()->FindFieldById(16), nullptr);
  ASSERT_OK_AND_ASSIGN(auto old_read, ReadAll(table, *old_scan));
  EXPECT_EQ(old_read.first, 6005);
  EXPECT_EQ(old_read.second->num_fields(), 15);

  ASSERT_OK_AND_ASSIGN(auto current, TableScan::Make(table.metadata, table.io, {}));
  const Field* added = current->projected_schema()->FindFieldById(16);
  ASSERT_NE(added, nullptr);
  EXPECT_EQ(added->type()->id(), TypeId::kInt64);
  ASSERT_OK_AND_ASSIGN(auto current_read, ReadAll(table, *current));
  EXPECT_EQ(current_read.first, 7690);
  EXPECT_EQ(current_read.second->num_fields(), 16);

  // An unpinned scan of an old snapshot's data through the current schema is what a
  // query without time travel does; a pinned scan by ref "main" is the current one.
  ScanOptions by_ref;
  by_ref.snapshot.ref = "main";
  ASSERT_OK_AND_ASSIGN(auto main_scan, TableScan::Make(table.metadata, table.io, by_ref));
  EXPECT_EQ(main_scan->projected_schema()->num_fields(), 16);
}

TEST(TableScanFixtureTest, ProjectionByNameAndId) {
  ASSERT_OK_AND_ASSIGN(Table table, OpenCxx("partitioned_table"));
  ScanOptions by_name;
  by_name.projected_names = {"c3", "c1"};
  ASSERT_OK_AND_ASSIGN(auto scan, TableScan::Make(table.metadata, table.io, by_name));
  ASSERT_OK_AND_ASSIGN(auto read, ReadAll(table, *scan));
  EXPECT_EQ(read.first, 6);
  ASSERT_EQ(read.second->num_fields(), 2);
  EXPECT_EQ(read.second->field(0).field_id(), 1);
  EXPECT_EQ(read.second->field(1).field_id(), 3);

  ScanOptions case_insensitive;
  case_insensitive.projected_names = {"C2"};
  EXPECT_THAT(TableScan::Make(table.metadata, table.io, case_insensitive),
              IsError(StatusCode::kBind));
  case_insensitive.case_sensitive = false;
  ASSERT_OK_AND_ASSIGN(scan, TableScan::Make(table.metadata, table.io, case_insensitive));
  EXPECT_EQ(scan->projected_schema()->fields()[0].field_id(), 2);
}

TEST(TableScanFixtureTest, MissingManifestListIsAnErrorNamingIt) {
  ASSERT_OK_AND_ASSIGN(Table table,
                       OpenFixture("duckdb-iceberg",
                                   "data/persistent/equality_deletes/warehouse/mydb/mytable/"
                                   "metadata/v7.metadata.json"));
  ScanOptions options;
  options.snapshot.snapshot_id = 7342794868382145167;
  ASSERT_OK_AND_ASSIGN(auto scan, TableScan::Make(table.metadata, table.io, options));
  auto tasks = scan->PlanFiles();
  ASSERT_FALSE(tasks.has_value());
  EXPECT_THAT(tasks.error().message(), ::testing::HasSubstr("snap-7342794868382145167"));
  // The other snapshots of the table still plan.
  ASSERT_OK_AND_ASSIGN(auto current, TableScan::Make(table.metadata, table.io, {}));
  EXPECT_OK(current->PlanFiles().status());
}

// Sequence numbers decide which deletes apply: a manifest numbered above its snapshot is
// corrupt, never planned as if it were consistent.
TEST(TableScanFixtureTest, ManifestAboveItsSnapshotsSequenceNumberIsCorrupt) {
  ASSERT_OK_AND_ASSIGN(Table table, OpenCxx("partitioned_table"));
  auto metadata = std::make_shared<TableMetadata>(*table.metadata);
  ASSERT_EQ(metadata->format_version, 2);
  for (Snapshot& snapshot : metadata->snapshots) {
    if (snapshot.snapshot_id == *metadata->current_snapshot_id) --snapshot.sequence_number;
  }
  const Snapshot* current = metadata->CurrentSnapshot();
  ASSERT_OK_AND_ASSIGN(auto scan, TableScan::Make(metadata, table.io, {}));
  EXPECT_THAT(scan->PlanFiles(), ::floe::testing::IsErrorWith(
                                     StatusCode::kCorrupt, fmt::format("of snapshot {}: manifest ",
                                                                       current->snapshot_id)));
  EXPECT_THAT(scan->PlanFiles().status().message(),
              ::testing::HasSubstr(fmt::format("above the snapshot's sequence number {}",
                                               current->sequence_number)));
}

}  // namespace
}  // namespace floe::iceberg
