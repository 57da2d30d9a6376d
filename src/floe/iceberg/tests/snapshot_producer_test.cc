#include "floe/iceberg/snapshot_producer.h"

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/table_scan.h"
#include "floe/iceberg/tests/in_memory_table_ops.h"
#include "floe/iceberg/tests/reader_test_util.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::iceberg::testing::InMemoryTableOps;
using ::floe::iceberg::testing::TempDir;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace fs = std::filesystem;

class SnapshotProducerTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeTable({}); }

  void MakeTable(std::map<std::string, std::string> properties, int format_version = 2) {
    auto schema = Schema::Make(0, {Field("id", Int64(), false, 1), Field("data", String(), true, 2),
                                   Field("part", Int32(), true, 3)});
    ASSERT_OK(schema);
    auto spec = PartitionSpec::Make(**schema, 0, {PartitionField{3, 1000, "part"}});
    ASSERT_OK(spec);
    NewTableOptions options;
    options.schema = *schema;
    options.spec = *spec;
    options.location = dir_.Join("t");
    properties.emplace("commit.retry.min-wait-ms", "1");
    properties.emplace("commit.retry.max-wait-ms", "2");
    options.properties = std::move(properties);
    options.format_version = format_version;
    auto ops = InMemoryTableOps::Create(options);
    ASSERT_OK(ops);
    ops_ = *ops;
  }

  /// A data file in partition `part` with `records` rows and `size` bytes; when given,
  /// the id column's bounds are [lo, hi].
  static DataFilePtr File(const std::string& path, int32_t part, int64_t records, int64_t size,
                          std::optional<std::pair<int64_t, int64_t>> id_bounds = std::nullopt) {
    auto f = std::make_shared<DataFile>();
    f->file_path = path;
    f->partition = {Scalar::I32(part)};
    f->record_count = records;
    f->file_size_in_bytes = size;
    if (id_bounds) {
      f->lower_bounds[1] = *SerializeValue(Scalar::I64(id_bounds->first));
      f->upper_bounds[1] = *SerializeValue(Scalar::I64(id_bounds->second));
      f->value_counts[1] = records;
      f->null_value_counts[1] = 0;
    }
    return f;
  }

  Table Current() {
    Result<Table> table = ops_->Refresh();
    EXPECT_OK(table);
    return table.ok() ? *std::move(table) : Table();
  }
  int64_t CurrentSnapshotId() {
    Result<Table> table = ops_->Refresh();
    EXPECT_OK(table);
    return table.ok() ? table->metadata->current_snapshot_id.value_or(-1) : -1;
  }

  std::vector<ManifestFile> Manifests(const Table& table) {
    auto list = ReadManifestList(*table.io, table.metadata->CurrentSnapshot()->manifest_list);
    EXPECT_OK(list);
    return list.has_value() ? *list : std::vector<ManifestFile>{};
  }

  std::vector<ManifestEntry> Entries(const Table& table, const ManifestFile& m) {
    auto entries = ReadManifest(*table.io, m, *table.metadata->DefaultSpec(),
                                *table.metadata->CurrentSchema(), ManifestReadOptions::All());
    EXPECT_OK(entries);
    return entries.has_value() ? *entries : std::vector<ManifestEntry>{};
  }

  /// The data file paths a scan of the current snapshot plans, sorted.
  std::vector<std::string> ScanPaths(ExpressionPtr filter = nullptr) {
    Table table = Current();
    ScanOptions options;
    options.filter = std::move(filter);
    auto scan = TableScan::Make(table.metadata, table.io, options);
    EXPECT_OK(scan);
    auto tasks = (*scan)->PlanFiles();
    EXPECT_OK(tasks);
    std::vector<std::string> paths;
    for (const auto& t : *tasks) paths.push_back(t.data_file->file_path);
    return paths;
  }

  /// Files in the table's metadata directory with the ".avro" suffix, by name.
  std::set<std::string> AvroFiles() {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_.Join("t") + "/metadata")) {
      if (e.path().extension() == ".avro") names.insert(e.path().filename().string());
    }
    return names;
  }

  /// The avro files the current metadata references (lists and their manifests).
  std::set<std::string> ReferencedAvroFiles() {
    Table table = Current();
    std::set<std::string> names;
    for (const auto& s : table.metadata->snapshots) {
      names.insert(fs::path(s.manifest_list).filename().string());
      auto list = ReadManifestList(*table.io, s.manifest_list);
      EXPECT_OK(list);
      for (const auto& m : *list) names.insert(fs::path(m.manifest_path).filename().string());
    }
    return names;
  }

  Result<Table> Append(std::vector<DataFilePtr> files) {
    auto append = FastAppend::Make(ops_);
    for (auto& f : files) append->AppendFile(f);
    return append->Commit();
  }

  std::string Path(const std::string& name) { return dir_.Join("t") + "/data/" + name; }

  TempDir dir_;
  std::shared_ptr<InMemoryTableOps> ops_;
};

TEST_F(SnapshotProducerTest, FastAppendWritesManifestListAndSummary) {
  auto append = FastAppend::Make(ops_);
  append->AppendFile(File(Path("a.parquet"), 1, 10, 100));
  append->AppendFile(File(Path("b.parquet"), 2, 20, 200));
  ASSERT_OK_AND_ASSIGN(Table t1, append->Commit());
  const Snapshot* s1 = t1.metadata->CurrentSnapshot();
  ASSERT_NE(s1, nullptr);
  EXPECT_EQ(s1->snapshot_id, append->snapshot_id());
  EXPECT_GT(s1->snapshot_id, 0);
  EXPECT_EQ(s1->parent_snapshot_id, std::nullopt);
  EXPECT_EQ(s1->sequence_number, 1);
  EXPECT_EQ(t1.metadata->refs.at("main").snapshot_id, s1->snapshot_id);
  EXPECT_THAT(s1->manifest_list, StartsWith(dir_.Join("t") + "/metadata/snap-" +
                                            std::to_string(s1->snapshot_id) + "-1-"));
  std::map<std::string, std::string> expected = {
      {"operation", "append"},          {"added-data-files", "2"},
      {"added-records", "30"},          {"added-files-size", "300"},
      {"changed-partition-count", "2"}, {"total-records", "30"},
      {"total-files-size", "300"},      {"total-data-files", "2"},
      {"total-delete-files", "0"},      {"total-position-deletes", "0"},
      {"total-equality-deletes", "0"}};
  EXPECT_EQ(s1->summary, expected);

  auto manifests = Manifests(t1);
  ASSERT_EQ(manifests.size(), 1u);
  EXPECT_THAT(manifests[0].manifest_path, StartsWith(dir_.Join("t") + "/metadata/"));
  EXPECT_THAT(manifests[0].manifest_path, ::testing::EndsWith("-m0.avro"));
  EXPECT_EQ(manifests[0].added_files_count, 2);
  EXPECT_EQ(manifests[0].added_rows_count, 30);
  EXPECT_EQ(manifests[0].sequence_number, 1);
  EXPECT_EQ(manifests[0].added_snapshot_id, s1->snapshot_id);

  ASSERT_OK(Append({File(Path("c.parquet"), 1, 5, 50)}));
  Table t2 = Current();
  const Snapshot* s2 = t2.metadata->CurrentSnapshot();
  EXPECT_EQ(s2->parent_snapshot_id, s1->snapshot_id);
  EXPECT_EQ(s2->sequence_number, 2);
  EXPECT_EQ(s2->summary.at("total-records"), "35");
  EXPECT_EQ(s2->summary.at("total-data-files"), "3");
  EXPECT_EQ(s2->summary.at("total-files-size"), "350");
  EXPECT_EQ(s2->summary.at("changed-partition-count"), "1");
  auto m2 = Manifests(t2);
  ASSERT_EQ(m2.size(), 2u);
  EXPECT_EQ(m2[0].added_snapshot_id, s2->snapshot_id);         // new manifest first
  EXPECT_EQ(m2[1].manifest_path, manifests[0].manifest_path);  // carried unchanged
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a.parquet"), Path("b.parquet"), Path("c.parquet")));
  EXPECT_THAT(ScanPaths(Expression::Make(Operation::kEq, "part", {Scalar::I32(1)})),
              ElementsAre(Path("a.parquet"), Path("c.parquet")));
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

TEST_F(SnapshotProducerTest, MergeAppendMergesAtMinCount) {
  MakeTable({{"commit.manifest.min-count-to-merge", "3"}});
  for (int i = 0; i < 2; ++i) {
    auto append = MergeAppend::Make(ops_);
    append->AppendFile(File(Path("f" + std::to_string(i)), i, 1, 10));
    ASSERT_OK(append->Commit());
    EXPECT_EQ(Manifests(Current()).size(), static_cast<size_t>(i + 1));
  }
  auto append = MergeAppend::Make(ops_);
  append->AppendFile(File(Path("f2"), 2, 1, 10));
  ASSERT_OK_AND_ASSIGN(Table t, append->Commit());
  auto manifests = Manifests(t);
  ASSERT_EQ(manifests.size(), 1u);
  EXPECT_EQ(manifests[0].added_files_count, 1);
  EXPECT_EQ(manifests[0].existing_files_count, 2);
  EXPECT_EQ(manifests[0].added_snapshot_id, append->snapshot_id());
  std::map<std::string, ManifestEntryStatus> statuses;
  std::map<std::string, int64_t> seqs;
  for (const auto& e : Entries(t, manifests[0])) {
    statuses[e.data_file->file_path] = e.status;
    seqs[e.data_file->file_path] = e.sequence_number;
  }
  EXPECT_EQ(statuses, (std::map<std::string, ManifestEntryStatus>{
                          {Path("f0"), ManifestEntryStatus::kExisting},
                          {Path("f1"), ManifestEntryStatus::kExisting},
                          {Path("f2"), ManifestEntryStatus::kAdded}}));
  // Merged entries keep their data sequence numbers.
  EXPECT_EQ(seqs,
            (std::map<std::string, int64_t>{{Path("f0"), 1}, {Path("f1"), 2}, {Path("f2"), 3}}));
  EXPECT_EQ(t.metadata->CurrentSnapshot()->summary.at("total-data-files"), "3");
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("f0"), Path("f1"), Path("f2")));
}

TEST_F(SnapshotProducerTest, MergeDisabledKeepsManifests) {
  MakeTable(
      {{"commit.manifest.min-count-to-merge", "2"}, {"commit.manifest-merge.enabled", "false"}});
  for (int i = 0; i < 3; ++i) {
    auto append = MergeAppend::Make(ops_);
    append->AppendFile(File(Path("f" + std::to_string(i)), i, 1, 10));
    ASSERT_OK(append->Commit());
  }
  EXPECT_EQ(Manifests(Current()).size(), 3u);
}

TEST_F(SnapshotProducerTest, OverwriteByFilterRemovesWholePartitions) {
  ASSERT_OK(Append({File(Path("a"), 1, 10, 100), File(Path("b"), 2, 20, 200)}));
  ASSERT_OK(Append({File(Path("c"), 1, 5, 50)}));
  auto overwrite = OverwriteFiles::Make(ops_);
  overwrite->OverwriteByRowFilter(Expression::Make(Operation::kEq, "part", {Scalar::I32(1)}));
  overwrite->AddFile(File(Path("d"), 1, 7, 70));
  ASSERT_OK_AND_ASSIGN(Table t, overwrite->Commit());
  std::map<std::string, std::string> expected = {
      {"operation", "overwrite"},      {"added-data-files", "1"},
      {"deleted-data-files", "2"},     {"added-records", "7"},
      {"deleted-records", "15"},       {"added-files-size", "70"},
      {"removed-files-size", "150"},   {"changed-partition-count", "1"},
      {"total-records", "27"},         {"total-files-size", "270"},
      {"total-data-files", "2"},       {"total-delete-files", "0"},
      {"total-position-deletes", "0"}, {"total-equality-deletes", "0"}};
  EXPECT_EQ(t.metadata->CurrentSnapshot()->summary, expected);
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("b"), Path("d")));
  // Both old manifests were rewritten with a DELETED entry; the new one is first.
  auto manifests = Manifests(t);
  ASSERT_EQ(manifests.size(), 3u);
  EXPECT_EQ(manifests[0].added_files_count, 1);
  EXPECT_EQ(manifests[1].deleted_files_count, 1);
  EXPECT_EQ(manifests[2].deleted_files_count, 1);
  EXPECT_EQ(manifests[2].existing_files_count, 1);
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

TEST_F(SnapshotProducerTest, OverwriteByMetricsAndPartialMatch) {
  ASSERT_OK(Append(
      {File(Path("low"), 1, 10, 100, {{0, 9}}), File(Path("high"), 1, 10, 100, {{10, 19}})}));
  std::set<std::string> before = AvroFiles();
  {
    auto overwrite = OverwriteFiles::Make(ops_);
    overwrite->OverwriteByRowFilter(Expression::Make(Operation::kGt, "id", {Scalar::I64(5)}));
    EXPECT_THAT(overwrite->Commit(),
                IsErrorWith(StatusCode::kInvalidArgument, "needs row-level deletes"));
    EXPECT_EQ(AvroFiles(), before);  // nothing left behind
  }
  auto overwrite = OverwriteFiles::Make(ops_);
  overwrite->OverwriteByRowFilter(Expression::Make(Operation::kGtEq, "id", {Scalar::I64(10)}));
  ASSERT_OK_AND_ASSIGN(Table t, overwrite->Commit());
  EXPECT_EQ(t.metadata->CurrentSnapshot()->summary.at("deleted-data-files"), "1");
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("low")));
}

TEST_F(SnapshotProducerTest, ReplacePartitionsDropsAddedPartitions) {
  ASSERT_OK(Append(
      {File(Path("a"), 1, 10, 100), File(Path("b"), 2, 20, 200), File(Path("c"), 3, 30, 300)}));
  auto replace = ReplacePartitions::Make(ops_);
  replace->AddFile(File(Path("a2"), 1, 1, 10));
  replace->AddFile(File(Path("b2"), 2, 2, 20));
  ASSERT_OK_AND_ASSIGN(Table t, replace->Commit());
  const auto& summary = t.metadata->CurrentSnapshot()->summary;
  EXPECT_EQ(summary.at("operation"), "overwrite");
  EXPECT_EQ(summary.at("replace-partitions"), "true");
  EXPECT_EQ(summary.at("deleted-data-files"), "2");
  EXPECT_EQ(summary.at("added-data-files"), "2");
  EXPECT_EQ(summary.at("changed-partition-count"), "2");
  EXPECT_EQ(summary.at("total-records"), "33");
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a2"), Path("b2"), Path("c")));
}

TEST_F(SnapshotProducerTest, DeleteFilesByPathAndFilter) {
  ASSERT_OK(Append(
      {File(Path("a"), 1, 10, 100), File(Path("b"), 2, 20, 200), File(Path("c"), 3, 30, 300)}));
  auto del = DeleteFiles::Make(ops_);
  del->DeleteFile(Path("a"));
  ASSERT_OK_AND_ASSIGN(Table t, del->Commit());
  std::map<std::string, std::string> expected = {
      {"operation", "delete"},          {"deleted-data-files", "1"},
      {"deleted-records", "10"},        {"removed-files-size", "100"},
      {"changed-partition-count", "1"}, {"total-records", "50"},
      {"total-files-size", "500"},      {"total-data-files", "2"},
      {"total-delete-files", "0"},      {"total-position-deletes", "0"},
      {"total-equality-deletes", "0"}};
  EXPECT_EQ(t.metadata->CurrentSnapshot()->summary, expected);
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("b"), Path("c")));

  auto by_filter = DeleteFiles::Make(ops_);
  by_filter->DeleteFromRowFilter(Expression::Make(Operation::kGtEq, "part", {Scalar::I32(3)}));
  ASSERT_OK(by_filter->Commit());
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("b")));

  auto missing = DeleteFiles::Make(ops_);
  missing->DeleteFile(Path("a"));
  EXPECT_THAT(missing->Commit(), IsErrorWith(StatusCode::kInvalidArgument, Path("a")));
}

TEST_F(SnapshotProducerTest, RewriteFilesReplacesSet) {
  ASSERT_OK(Append({File(Path("a"), 1, 10, 100)}));
  ASSERT_OK(Append({File(Path("b"), 1, 20, 200)}));
  auto rewrite = RewriteFiles::Make(ops_);
  rewrite->DeleteFile(Path("a"));
  rewrite->DeleteFile(Path("b"));
  rewrite->AddFile(File(Path("ab"), 1, 30, 250));
  ASSERT_OK_AND_ASSIGN(Table t, rewrite->Commit());
  const auto& summary = t.metadata->CurrentSnapshot()->summary;
  EXPECT_EQ(summary.at("operation"), "replace");
  EXPECT_EQ(summary.at("deleted-data-files"), "2");
  EXPECT_EQ(summary.at("added-data-files"), "1");
  EXPECT_EQ(summary.at("total-records"), "30");
  EXPECT_EQ(summary.at("total-files-size"), "250");
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("ab")));

  auto gone = RewriteFiles::Make(ops_);
  gone->DeleteFile(Path("a"));
  gone->AddFile(File(Path("a3"), 1, 10, 100));
  EXPECT_THAT(gone->Commit(), IsError(StatusCode::kInvalidArgument));
}

TEST_F(SnapshotProducerTest, ConcurrentAppendsBothLand) {
  ASSERT_OK(Append({File(Path("base"), 1, 1, 10)}));
  ops_->AddBeforeCommitHook(
      [this]() -> Status { return Append({File(Path("other"), 2, 2, 20)}).status(); });
  auto append = FastAppend::Make(ops_);
  append->AppendFile(File(Path("mine"), 3, 3, 30));
  ASSERT_OK_AND_ASSIGN(Table t, append->Commit());
  EXPECT_EQ(ops_->successful_commits(), 3);
  const Snapshot* s = t.metadata->CurrentSnapshot();
  EXPECT_EQ(s->snapshot_id, append->snapshot_id());
  EXPECT_EQ(s->sequence_number, 3);
  // The retry's manifest list is attempt 2; attempt 1's list was deleted.
  EXPECT_THAT(s->manifest_list, HasSubstr("/snap-" + std::to_string(s->snapshot_id) + "-2-"));
  EXPECT_EQ(s->summary.at("total-records"), "6");
  EXPECT_EQ(s->summary.at("total-data-files"), "3");
  auto manifests = Manifests(t);
  ASSERT_EQ(manifests.size(), 3u);
  // The retry reused the manifest of the first attempt (the operation's only one, m0).
  EXPECT_EQ(manifests[0].added_snapshot_id, s->snapshot_id);
  EXPECT_THAT(manifests[0].manifest_path, ::testing::EndsWith("-m0.avro"));
  EXPECT_EQ(manifests[0].sequence_number, 3);
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("base"), Path("mine"), Path("other")));
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

TEST_F(SnapshotProducerTest, OverwriteLosesToConcurrentDeleteOfSameFile) {
  ASSERT_OK(Append({File(Path("a"), 1, 1, 10), File(Path("b"), 1, 1, 10)}));
  ops_->AddBeforeCommitHook([this]() -> Status {
    auto del = DeleteFiles::Make(ops_);
    del->DeleteFile(Path("a"));
    return del->Commit().status();
  });
  auto overwrite = OverwriteFiles::Make(ops_);
  overwrite->DeleteFile(Path("a"));
  overwrite->AddFile(File(Path("a2"), 1, 1, 10));
  EXPECT_THAT(overwrite->Commit(), IsErrorWith(StatusCode::kCommitConflict, Path("a")));
  EXPECT_EQ(ops_->successful_commits(), 2);  // the concurrent delete only
  EXPECT_EQ(ops_->commit_calls(), 3);        // append, overwrite (+ the hook's delete); no retry
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("b")));
}

TEST_F(SnapshotProducerTest, RewriteRetriesWhenConcurrentAppendDoesNotConflict) {
  ASSERT_OK(Append({File(Path("a"), 1, 1, 10)}));
  ops_->AddBeforeCommitHook(
      [this]() -> Status { return Append({File(Path("b"), 1, 1, 10)}).status(); });
  auto rewrite = RewriteFiles::Make(ops_);
  rewrite->DeleteFile(Path("a"));
  rewrite->AddFile(File(Path("a2"), 1, 1, 10));
  ASSERT_OK(rewrite->Commit());
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a2"), Path("b")));
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

TEST_F(SnapshotProducerTest, ValidateNoConflictingDataByFilter) {
  ASSERT_OK(Append({File(Path("a"), 1, 1, 10)}));
  // A concurrent append to another partition does not conflict.
  ops_->AddBeforeCommitHook(
      [this]() -> Status { return Append({File(Path("p2"), 2, 1, 10)}).status(); });
  auto ok = OverwriteFiles::Make(ops_);
  ok->OverwriteByRowFilter(Expression::Make(Operation::kEq, "part", {Scalar::I32(1)}));
  ok->AddFile(File(Path("a2"), 1, 1, 10));
  ok->ValidateNoConflictingData();
  ASSERT_OK(ok->Commit());
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a2"), Path("p2")));

  // One to the overwritten partition does.
  ops_->AddBeforeCommitHook(
      [this]() -> Status { return Append({File(Path("p1"), 1, 1, 10)}).status(); });
  auto bad = OverwriteFiles::Make(ops_);
  bad->OverwriteByRowFilter(Expression::Make(Operation::kEq, "part", {Scalar::I32(1)}));
  bad->AddFile(File(Path("a3"), 1, 1, 10));
  bad->ValidateNoConflictingData();
  EXPECT_THAT(bad->Commit(), IsErrorWith(StatusCode::kCommitConflict, Path("p1")));
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a2"), Path("p1"), Path("p2")));
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

TEST_F(SnapshotProducerTest, ReplacePartitionsConflictsOnConcurrentAddToPartition) {
  ASSERT_OK(Append({File(Path("a"), 1, 1, 10)}));
  ops_->AddBeforeCommitHook(
      [this]() -> Status { return Append({File(Path("c"), 1, 1, 10)}).status(); });
  auto replace = ReplacePartitions::Make(ops_);
  replace->AddFile(File(Path("a2"), 1, 1, 10));
  replace->ValidateNoConflictingData();
  EXPECT_THAT(replace->Commit(), IsErrorWith(StatusCode::kCommitConflict, "part=1"));
}

TEST_F(SnapshotProducerTest, RetriesExhaustedLeavesNothingBehind) {
  ASSERT_OK(Append({File(Path("a"), 1, 1, 10)}));
  std::set<std::string> before = AvroFiles();
  ops_->FailNextCommits(100);
  auto append = FastAppend::Make(ops_);
  CommitRetryOptions retry;
  retry.num_retries = 2;
  retry.min_wait_ms = 1;
  retry.max_wait_ms = 1;
  append->SetRetryOptions(retry);
  append->AppendFile(File(Path("b"), 1, 1, 10));
  EXPECT_THAT(append->Commit(), IsErrorWith(StatusCode::kCommitConflict, "after 3 attempts"));
  EXPECT_EQ(ops_->commit_calls(), 4);  // the first append, then 3 attempts
  EXPECT_EQ(AvroFiles(), before);
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a")));
}

// The commit landed but the catalog could not say so: nothing the new snapshot references
// may be deleted (an earlier attempt's files included, as a later one may carry them).
TEST_F(SnapshotProducerTest, AnUnknownCommitOutcomeDeletesNothing) {
  ASSERT_OK(Append({File(Path("a"), 1, 1, 10)}));
  ops_->FailNextCommits(1);
  ops_->HideNextCommitOutcomes(1);
  auto append = MergeAppend::Make(ops_);
  append->AppendFile(File(Path("b"), 1, 1, 10));
  EXPECT_THAT(append->Commit(), IsErrorWith(StatusCode::kCommitStateUnknown, "was lost"));
  EXPECT_EQ(ops_->successful_commits(), 2);
  // Every file the table references is there, and the scan plans both data files.
  std::set<std::string> referenced = ReferencedAvroFiles();
  std::set<std::string> present = AvroFiles();
  for (const std::string& name : referenced) EXPECT_EQ(present.count(name), 1u) << name;
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a"), Path("b")));
}

TEST_F(SnapshotProducerTest, CommitToBranch) {
  ASSERT_OK(Append({File(Path("a"), 1, 1, 10)}));
  int64_t main_id = CurrentSnapshotId();
  auto append = FastAppend::Make(ops_);
  append->ToBranch("dev");
  append->AppendFile(File(Path("b"), 1, 1, 10));
  ASSERT_OK_AND_ASSIGN(Table t, append->Commit());
  EXPECT_EQ(t.metadata->current_snapshot_id, main_id);
  EXPECT_EQ(t.metadata->refs.at("dev").snapshot_id, append->snapshot_id());
  EXPECT_EQ(t.metadata->SnapshotById(append->snapshot_id())->parent_snapshot_id, main_id);
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a")));
}

TEST_F(SnapshotProducerTest, V1TableAppend) {
  MakeTable({}, /*format_version=*/1);
  ASSERT_OK(Append({File(Path("a"), 1, 1, 10)}));
  ASSERT_OK(Append({File(Path("b"), 2, 1, 10)}));
  Table t = Current();
  EXPECT_EQ(t.metadata->format_version, 1);
  EXPECT_EQ(t.metadata->CurrentSnapshot()->sequence_number, 0);
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a"), Path("b")));
}

TEST_F(SnapshotProducerTest, DeleteFilesInSummariesAndScans) {
  ASSERT_OK(Append({File(Path("a"), 1, 10, 100), File(Path("b"), 2, 10, 100)}));
  auto deletes = std::make_shared<DataFile>(*File(Path("a-deletes"), 1, 3, 30));
  deletes->content = FileContent::kPositionDeletes;
  auto overwrite = OverwriteFiles::Make(ops_);
  overwrite->AddFile(deletes);
  ASSERT_OK_AND_ASSIGN(Table t, overwrite->Commit());
  std::map<std::string, std::string> expected = {{"operation", "overwrite"},
                                                 {"added-delete-files", "1"},
                                                 {"added-position-delete-files", "1"},
                                                 {"added-position-deletes", "3"},
                                                 {"added-files-size", "30"},
                                                 {"changed-partition-count", "1"},
                                                 {"total-records", "20"},
                                                 {"total-files-size", "230"},
                                                 {"total-data-files", "2"},
                                                 {"total-delete-files", "1"},
                                                 {"total-position-deletes", "3"},
                                                 {"total-equality-deletes", "0"}};
  EXPECT_EQ(t.metadata->CurrentSnapshot()->summary, expected);
  auto manifests = Manifests(t);
  ASSERT_EQ(manifests.size(), 2u);
  EXPECT_EQ(manifests[1].content, FileContent::kPositionDeletes);  // data groups come first
  auto scan = TableScan::Make(t.metadata, t.io, ScanOptions{});
  ASSERT_OK(scan);
  ASSERT_OK_AND_ASSIGN(auto tasks, (*scan)->PlanFiles());
  ASSERT_EQ(tasks.size(), 2u);
  ASSERT_EQ(tasks[0].delete_files.size(), 1u);
  EXPECT_EQ(tasks[0].delete_files[0]->file_path, Path("a-deletes"));
  EXPECT_TRUE(tasks[1].delete_files.empty());

  auto del = DeleteFiles::Make(ops_);
  del->DeleteFile(Path("a-deletes"));
  ASSERT_OK_AND_ASSIGN(Table t2, del->Commit());
  const auto& summary = t2.metadata->CurrentSnapshot()->summary;
  EXPECT_EQ(summary.at("removed-delete-files"), "1");
  EXPECT_EQ(summary.at("removed-position-delete-files"), "1");
  EXPECT_EQ(summary.at("removed-position-deletes"), "3");
  EXPECT_EQ(summary.at("total-delete-files"), "0");
  EXPECT_EQ(summary.at("total-position-deletes"), "0");
  EXPECT_EQ(summary.at("total-files-size"), "200");
}

TEST_F(SnapshotProducerTest, AppendRefusesDeleteFilesAndUnknownSpecs) {
  auto deletes = std::make_shared<DataFile>(*File(Path("d"), 1, 3, 30));
  deletes->content = FileContent::kEqualityDeletes;
  auto append = FastAppend::Make(ops_);
  append->AppendFile(deletes);
  EXPECT_THAT(append->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "delete file"));
  auto other_spec = std::make_shared<DataFile>(*File(Path("e"), 1, 3, 30));
  other_spec->spec_id = 7;
  auto append2 = FastAppend::Make(ops_);
  append2->AppendFile(other_spec);
  EXPECT_THAT(append2->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "partition spec 7"));
  EXPECT_TRUE(AvroFiles().empty());
}

TEST_F(SnapshotProducerTest, DeleteByFilterRetriesOverConcurrentAppend) {
  ASSERT_OK(Append({File(Path("a"), 1, 1, 10), File(Path("b"), 2, 1, 10)}));
  ops_->AddBeforeCommitHook(
      [this]() -> Status { return Append({File(Path("c"), 1, 1, 10)}).status(); });
  auto del = DeleteFiles::Make(ops_);
  del->DeleteFromRowFilter(Expression::Make(Operation::kEq, "part", {Scalar::I32(1)}));
  ASSERT_OK_AND_ASSIGN(Table t, del->Commit());
  // The retry applies the filter to the new base: the concurrently added c goes too.
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("b")));
  EXPECT_EQ(t.metadata->CurrentSnapshot()->summary.at("deleted-data-files"), "2");
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

TEST_F(SnapshotProducerTest, RewriteConflictsWithConcurrentDeletesForReplacedFile) {
  ASSERT_OK(Append({File(Path("a"), 1, 10, 100), File(Path("b"), 2, 10, 100)}));
  auto add_deletes = [this](const std::string& name, int32_t part,
                            std::optional<std::string> referenced) {
    return [this, name, part, referenced]() -> Status {
      auto deletes = std::make_shared<DataFile>(*File(Path(name), part, 1, 10));
      deletes->content = FileContent::kPositionDeletes;
      deletes->referenced_data_file = referenced;
      auto row_delta = OverwriteFiles::Make(ops_);
      row_delta->AddFile(deletes);
      return row_delta->Commit().status();
    };
  };
  // Deletes for another partition's file do not conflict.
  ops_->AddBeforeCommitHook(add_deletes("b-deletes", 2, std::nullopt));
  auto ok = RewriteFiles::Make(ops_);
  ok->DeleteFile(Path("a")).AddFile(File(Path("a2"), 1, 10, 90));
  ASSERT_OK(ok->Commit());
  // Deletes referencing the replaced file do.
  ops_->AddBeforeCommitHook(add_deletes("a2-deletes", 1, Path("a2")));
  auto bad = RewriteFiles::Make(ops_);
  bad->DeleteFile(Path("a2")).AddFile(File(Path("a3"), 1, 10, 80));
  EXPECT_THAT(bad->Commit(), IsErrorWith(StatusCode::kCommitConflict, Path("a2-deletes")));
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a2"), Path("b")));
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

// A position delete file of `records` deletes for the data file `data_file` of partition
// `part` (referenced_data_file set, as floe's merge-on-read writer sets it).
DataFilePtr PositionDeletes(const std::string& path, int32_t part, const std::string& data_file,
                            int64_t records) {
  auto f = std::make_shared<DataFile>();
  f->content = FileContent::kPositionDeletes;
  f->file_path = path;
  f->partition = {Scalar::I32(part)};
  f->record_count = records;
  f->file_size_in_bytes = 10;
  f->referenced_data_file = data_file;
  return f;
}

TEST_F(SnapshotProducerTest, RowDeltaAddsDeletesAndRows) {
  ASSERT_OK(Append({File(Path("a"), 1, 10, 100), File(Path("b"), 2, 10, 100)}));
  auto deletes = RowDelta::Make(ops_);
  deletes->AddDeletes(PositionDeletes(Path("a-del"), 1, Path("a"), 3));
  EXPECT_EQ(deletes->operation(), "delete");
  ASSERT_OK_AND_ASSIGN(Table t, deletes->Commit());
  const Snapshot* s = t.metadata->CurrentSnapshot();
  EXPECT_EQ(s->operation(), "delete");
  EXPECT_EQ(s->summary.at("added-position-deletes"), "3");
  EXPECT_EQ(s->summary.at("total-delete-files"), "1");

  auto update = RowDelta::Make(ops_);
  update->AddDeletes(PositionDeletes(Path("b-del"), 2, Path("b"), 1));
  update->AddRows(File(Path("b-new"), 3, 1, 10));
  ASSERT_OK_AND_ASSIGN(t, update->Commit());
  s = t.metadata->CurrentSnapshot();
  EXPECT_EQ(s->operation(), "overwrite");
  EXPECT_EQ(s->summary.at("total-records"), "21");
  EXPECT_EQ(s->summary.at("total-position-deletes"), "4");
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a"), Path("b"), Path("b-new")));
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

TEST_F(SnapshotProducerTest, RowDeltaLosesToAConcurrentRemovalOfItsDataFile) {
  ASSERT_OK(Append({File(Path("a"), 1, 10, 100), File(Path("b"), 1, 10, 100)}));
  const int64_t base = CurrentSnapshotId();
  ops_->AddBeforeCommitHook([this]() -> Status {
    auto del = DeleteFiles::Make(ops_);
    del->DeleteFile(Path("a"));
    return del->Commit().status();
  });
  auto delta = RowDelta::Make(ops_);
  delta->AddDeletes(PositionDeletes(Path("a-del"), 1, Path("a"), 1));
  delta->ValidateFromSnapshot(base).ValidateNoConflictingDeleteFiles();
  EXPECT_THAT(delta->Commit(), IsErrorWith(StatusCode::kCommitConflict, Path("a")));
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("b")));
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

TEST_F(SnapshotProducerTest, RowDeltaLosesToConcurrentDeletesOfTheSameFile) {
  ASSERT_OK(Append({File(Path("a"), 1, 10, 100), File(Path("b"), 2, 10, 100)}));
  const int64_t base = CurrentSnapshotId();
  // Deletes of another file committed concurrently do not conflict.
  ops_->AddBeforeCommitHook([this]() -> Status {
    auto other = RowDelta::Make(ops_);
    other->AddDeletes(PositionDeletes(Path("b-del"), 2, Path("b"), 1));
    return other->Commit().status();
  });
  auto first = RowDelta::Make(ops_);
  first->AddDeletes(PositionDeletes(Path("a-del-1"), 1, Path("a"), 1));
  first->ValidateFromSnapshot(base).ValidateNoConflictingDeleteFiles();
  ASSERT_OK(first->Commit());
  // Deletes of the same data file do: the second statement would delete a row twice (or
  // write an updated row twice).
  const int64_t second_base = CurrentSnapshotId();
  ops_->AddBeforeCommitHook([this]() -> Status {
    auto other = RowDelta::Make(ops_);
    other->AddDeletes(PositionDeletes(Path("a-del-2"), 1, Path("a"), 1));
    return other->Commit().status();
  });
  auto second = RowDelta::Make(ops_);
  second->AddDeletes(PositionDeletes(Path("a-del-3"), 1, Path("a"), 1));
  second->AddRows(File(Path("a-new"), 1, 1, 10));
  second->ValidateFromSnapshot(second_base).ValidateNoConflictingDeleteFiles();
  EXPECT_THAT(second->Commit(), IsErrorWith(StatusCode::kCommitConflict, Path("a-del-2")));
  Table after = Current();
  EXPECT_EQ(after.metadata->CurrentSnapshot()->summary.at("total-delete-files"), "3");
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

TEST_F(SnapshotProducerTest, RowDeltaIsolationLevels) {
  ASSERT_OK(Append({File(Path("a"), 1, 10, 100)}));
  auto append_concurrently = [this](const std::string& name) {
    ops_->AddBeforeCommitHook(
        [this, name]() -> Status { return Append({File(Path(name), 1, 1, 10)}).status(); });
  };
  // Snapshot isolation: a concurrent append does not fail the change.
  int64_t base = CurrentSnapshotId();
  append_concurrently("appended-1");
  auto snapshot_level = RowDelta::Make(ops_);
  snapshot_level->AddDeletes(PositionDeletes(Path("a-del-1"), 1, Path("a"), 1));
  snapshot_level->ValidateFromSnapshot(base).ValidateNoConflictingDeleteFiles();
  ASSERT_OK(snapshot_level->Commit());
  // Serializable: it does.
  base = CurrentSnapshotId();
  append_concurrently("appended-2");
  auto serializable = RowDelta::Make(ops_);
  serializable->AddDeletes(PositionDeletes(Path("a-del-2"), 1, Path("a"), 2));
  serializable->ValidateFromSnapshot(base).ValidateNoConflictingDeleteFiles();
  serializable->ValidateNoConflictingDataFiles();
  EXPECT_THAT(serializable->Commit(), IsErrorWith(StatusCode::kCommitConflict, Path("appended-2")));
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("a"), Path("appended-1"), Path("appended-2")));
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

TEST_F(SnapshotProducerTest, RowDeltaConflictFilterNarrowsSerializable) {
  ASSERT_OK(Append({File(Path("a"), 1, 10, 100)}));
  auto delete_in_part_1 = [this](const std::string& name) {
    auto delta = RowDelta::Make(ops_);
    delta->AddDeletes(PositionDeletes(Path(name), 1, Path("a"), 1));
    delta->ValidateFromSnapshot(CurrentSnapshotId()).ValidateNoConflictingDeleteFiles();
    delta->ValidateNoConflictingDataFiles().ConflictDetectionFilter(
        Expression::Make(Operation::kEq, "part", {Scalar::I32(1)}));
    return delta;
  };
  // An append to another partition does not conflict with a change of part = 1 rows.
  auto first = delete_in_part_1("a-del-1");
  ops_->AddBeforeCommitHook(
      [this]() -> Status { return Append({File(Path("other"), 2, 1, 10)}).status(); });
  ASSERT_OK(first->Commit());
  // An append into part = 1 does.
  auto second = delete_in_part_1("a-del-2");
  ops_->AddBeforeCommitHook(
      [this]() -> Status { return Append({File(Path("same"), 1, 1, 10)}).status(); });
  EXPECT_THAT(second->Commit(), IsErrorWith(StatusCode::kCommitConflict, Path("same")));
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
}

TEST_F(SnapshotProducerTest, ManifestsWithoutLiveFilesAreDroppedNextTime) {
  ASSERT_OK(Append({File(Path("a"), 1, 1, 10)}));
  ASSERT_OK(Append({File(Path("b"), 2, 1, 10)}));
  auto del = DeleteFiles::Make(ops_);
  del->DeleteFile(Path("a"));
  ASSERT_OK_AND_ASSIGN(Table t, del->Commit());
  auto manifests = Manifests(t);
  ASSERT_EQ(manifests.size(), 2u);  // the deleting snapshot keeps its DELETED entry
  EXPECT_EQ(manifests[1].deleted_files_count, 1);
  EXPECT_EQ(manifests[1].added_snapshot_id, del->snapshot_id());
  ASSERT_OK(Append({File(Path("c"), 3, 1, 10)}));
  auto after = Manifests(Current());
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[1].manifest_path, manifests[0].manifest_path);
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("b"), Path("c")));
}

TEST_F(SnapshotProducerTest, CommitsOnceWithCustomSummary) {
  auto append = FastAppend::Make(ops_);
  append->AppendFile(File(Path("a"), 1, 1, 10));
  append->SetSummaryProperty("spark.app.id", "app-1");
  ASSERT_OK_AND_ASSIGN(Table t, append->Commit());
  EXPECT_EQ(t.metadata->CurrentSnapshot()->summary.at("spark.app.id"), "app-1");
  EXPECT_THAT(append->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "already committed"));
  EXPECT_EQ(Current().metadata->snapshots.size(), 1u);
}

TEST_F(SnapshotProducerTest, ReplacePartitionsOfUnpartitionedTableReplacesAll) {
  auto schema = Schema::Make(0, {Field("id", Int64(), false, 1)});
  ASSERT_OK(schema);
  NewTableOptions options;
  options.schema = *schema;
  options.location = dir_.Join("u");
  ASSERT_OK_AND_ASSIGN(auto ops, InMemoryTableOps::Create(options));
  auto file = [&](const std::string& name) {
    auto f = std::make_shared<DataFile>();
    f->file_path = dir_.Join("u/" + name);
    f->record_count = 1;
    f->file_size_in_bytes = 1;
    return f;
  };
  auto append = FastAppend::Make(ops);
  append->AppendFile(file("a")).AppendFile(file("b"));
  ASSERT_OK(append->Commit());
  auto replace = ReplacePartitions::Make(ops);
  replace->AddFile(file("c"));
  ASSERT_OK_AND_ASSIGN(Table t, replace->Commit());
  EXPECT_EQ(t.metadata->CurrentSnapshot()->summary.at("deleted-data-files"), "2");
  EXPECT_EQ(t.metadata->CurrentSnapshot()->summary.at("total-data-files"), "1");
}

TEST_F(SnapshotProducerTest, OverwriteValidatesAddedFilesAgainstFilter) {
  ASSERT_OK(Append({File(Path("a"), 1, 1, 10)}));
  auto filter = Expression::Make(Operation::kEq, "part", {Scalar::I32(1)});
  auto bad = OverwriteFiles::Make(ops_);
  bad->OverwriteByRowFilter(filter).AddFile(File(Path("x"), 2, 1, 10));
  bad->ValidateAddedFilesMatchOverwriteFilter();
  EXPECT_THAT(bad->Commit(), IsErrorWith(StatusCode::kInvalidArgument, Path("x")));
  EXPECT_EQ(AvroFiles(), ReferencedAvroFiles());
  auto ok = OverwriteFiles::Make(ops_);
  ok->OverwriteByRowFilter(filter).AddFile(File(Path("y"), 1, 1, 10));
  ok->ValidateAddedFilesMatchOverwriteFilter();
  ASSERT_OK(ok->Commit());
  EXPECT_THAT(ScanPaths(), ElementsAre(Path("y")));
}

TEST(RunWithRetriesTest, StopsAtTimeoutAndOnNonRetryable) {
  CommitRetryOptions options;
  options.num_retries = 10;
  options.min_wait_ms = 5;
  options.total_timeout_ms = 0;
  int calls = 0;
  auto conflict = [&](int) -> Result<Table> {
    ++calls;
    return Status::CommitConflict("busy");
  };
  EXPECT_THAT(RunWithRetries(options, conflict),
              IsErrorWith(StatusCode::kCommitConflict, "retry timeout"));
  EXPECT_EQ(calls, 1);
  calls = 0;
  options.total_timeout_ms = 1000000;
  options.min_wait_ms = 0;
  EXPECT_THAT(RunWithRetries(options, conflict, [](const Status&) { return false; }),
              IsErrorWith(StatusCode::kCommitConflict, "busy"));
  EXPECT_EQ(calls, 1);
  calls = 0;
  EXPECT_THAT(RunWithRetries(options, conflict),
              IsErrorWith(StatusCode::kCommitConflict, "after 11 attempts"));
  EXPECT_EQ(calls, 11);
  calls = 0;
  auto io_error = [&](int) -> Result<Table> {
    ++calls;
    return Status::IOError("disk");
  };
  EXPECT_THAT(RunWithRetries(options, io_error), IsError(StatusCode::kIOError));
  EXPECT_EQ(calls, 1);
}

TEST_F(SnapshotProducerTest, RetryOptionsFromProperties) {
  ASSERT_OK_AND_ASSIGN(auto o,
                       CommitRetryOptions::FromProperties(
                           {{"commit.retry.num-retries", "7"}, {"commit.retry.min-wait-ms", "5"}}));
  EXPECT_EQ(o.num_retries, 7);
  EXPECT_EQ(o.min_wait_ms, 5);
  EXPECT_EQ(o.max_wait_ms, 60000);
  EXPECT_EQ(o.total_timeout_ms, 1800000);
  EXPECT_THAT(CommitRetryOptions::FromProperties({{"commit.retry.num-retries", "x"}}),
              IsErrorWith(StatusCode::kInvalidArgument, "commit.retry.num-retries"));
  ASSERT_OK_AND_ASSIGN(auto m, ManifestMergeOptions::FromProperties({}));
  EXPECT_TRUE(m.enabled);
  EXPECT_EQ(m.min_count_to_merge, 100);
  EXPECT_EQ(m.target_size_bytes, 8 << 20);
}

}  // namespace
}  // namespace floe::iceberg
