// The Iceberg write side end to end through the SQL catalog on SQLite: a table written
// through every kind of schema and partition evolution with every snapshot read back with its
// own schema, and conflicting partition overwrites from several threads, each with its own
// catalog connection, where every operation either commits or fails cleanly.

#include <algorithm>
#include <barrier>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/catalog/catalog.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/catalog/sqlite_backend.h"
#include "floe/catalog/tests/catalog_test_internal.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/metadata_update.h"
#include "floe/iceberg/partitioned_writer.h"
#include "floe/iceberg/schema_update.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/spec_text.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_location.h"
#include "floe/iceberg/table_scan.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"

namespace floe::catalog {
namespace {

using ::floe::catalog::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace fs = std::filesystem;

using TextRow = std::vector<std::string>;

/// What a scan read: the output columns as "name:type" and the rows as text, sorted by the
/// first column (an integer id).
struct ScanResult {
  std::vector<std::string> columns;
  std::vector<TextRow> rows;
  int32_t schema_id = -1;
  std::vector<iceberg::FileScanTask> tasks;
};

Result<ScanResult> ReadTable(const iceberg::Table& table, iceberg::ScanOptions options) {
  FLOE_ASSIGN_OR_RAISE(auto scan, iceberg::TableScan::Make(table.metadata, table.io, options));
  FLOE_ASSIGN_OR_RAISE(auto reader, iceberg::MakeTaskReader(table, *scan));
  ScanResult result;
  result.schema_id = scan->schema()->schema_id();
  for (const Field& f : reader->output_schema()->fields()) {
    result.columns.push_back(f.name() + ":" + f.type()->ToString());
  }
  FLOE_ASSIGN_OR_RAISE(result.tasks, scan->PlanFiles());
  for (const auto& task : result.tasks) {
    FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(task));
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
      if (batch == nullptr) break;
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        TextRow row;
        for (const auto& column : batch->columns()) row.push_back(FormatValue(*column, i));
        result.rows.push_back(std::move(row));
      }
    }
  }
  std::sort(result.rows.begin(), result.rows.end(),
            [](const TextRow& a, const TextRow& b) { return std::stoll(a[0]) < std::stoll(b[0]); });
  return result;
}

/// Writes `batch` into data files for the table as it is now (its current schema and
/// default spec) with the fanout writer.
Result<std::vector<iceberg::DataFilePtr>> WriteFiles(const iceberg::Table& table,
                                                     const RecordBatch& batch) {
  FLOE_ASSIGN_OR_RAISE(auto options, iceberg::WriterOptionsForTable(*table.metadata, table.io));
  FLOE_ASSIGN_OR_RAISE(auto writer, iceberg::MakePartitionedWriter(options, /*fanout=*/true));
  FLOE_RETURN_NOT_OK(writer->Write(batch));
  FLOE_ASSIGN_OR_RAISE(auto files, writer->Close());
  std::vector<iceberg::DataFilePtr> out;
  for (auto& f : files) out.push_back(std::make_shared<iceberg::DataFile>(std::move(f)));
  return out;
}

/// Every regular file under `dir`, as absolute paths, sorted.
std::set<std::string> FilesUnder(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.insert(e.path().string());
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// 1. Schema and partition evolution, every snapshot read back
// ---------------------------------------------------------------------------------------

constexpr int64_t kDay1 = 1704164645000000LL;  // 2024-01-02 03:04:05 UTC
constexpr int64_t kDay2 = 1704276000000000LL;  // 2024-01-03 10:00:00 UTC

/// A row of the evolving table, with every column it ever had: `extra_double` is field 4
/// (added, later dropped), `extra_string` field 5 (re-added under the name "extra").
struct EvolRow {
  int64_t id;
  std::optional<std::string> name;
  std::optional<int64_t> ts;
  std::optional<double> extra_double;
  std::optional<std::string> extra_string;
};

std::string TsText(const std::optional<int64_t>& ts) {
  if (!ts) return "NULL";
  if (*ts == kDay1) return "2024-01-02 03:04:05+00";
  if (*ts == kDay2) return "2024-01-03 10:00:00+00";
  ADD_FAILURE() << "unexpected timestamp " << *ts;
  return "?";
}

/// The text a column (by field id) of `row` reads as.
std::string ExpectedText(const EvolRow& row, int32_t field_id) {
  switch (field_id) {
    case 1:
      return std::to_string(row.id);
    case 2:
      return row.name.value_or("NULL");
    case 3:
      return TsText(row.ts);
    case 4:
      return row.extra_double ? fmt::format("{}", *row.extra_double) : "NULL";
    case 5:
      return row.extra_string.value_or("NULL");
  }
  ADD_FAILURE() << "unexpected field id " << field_id;
  return "?";
}

/// A batch of `rows` with the columns of `schema` (matched by field id).
Result<RecordBatchPtr> EvolBatch(const iceberg::Schema& schema, const std::vector<EvolRow>& rows) {
  std::vector<ArrayPtr> columns;
  for (const Field& field : schema.fields()) {
    auto builder = MakeBuilder(field.type());
    for (const EvolRow& r : rows) {
      std::optional<Scalar> value;
      switch (field.field_id()) {
        case 1:
          value = field.type()->id() == TypeId::kInt32 ? Scalar::I32(static_cast<int32_t>(r.id))
                                                       : Scalar::I64(r.id);
          break;
        case 2:
          if (r.name) value = Scalar::Str(*r.name);
          break;
        case 3:
          if (r.ts) value = Scalar::Make(TimestampTz(), *r.ts);
          break;
        case 4:
          if (r.extra_double) value = Scalar::F64(*r.extra_double);
          break;
        case 5:
          if (r.extra_string) value = Scalar::Str(*r.extra_string);
          break;
        default:
          return Status::Invalid("unexpected field {}", field.ToString());
      }
      FLOE_RETURN_NOT_OK(value ? builder->AppendScalar(*value) : builder->AppendNull());
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr array, builder->Finish());
    columns.push_back(std::move(array));
  }
  return RecordBatch::Make(schema.columns(), static_cast<int64_t>(rows.size()), std::move(columns));
}

/// One appended snapshot and what reading it must give.
struct Step {
  int64_t snapshot_id;
  std::vector<std::string> columns;
  std::vector<TextRow> rows;
  int32_t schema_id;
  int64_t file_count;
};

class WritePathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.path() + "/catalog.db";
    warehouse_ = dir_.path() + "/wh";
    ASSERT_OK_AND_ASSIGN(catalog_, OpenCatalog("sqlite://" + db_, warehouse_));
    ASSERT_OK(catalog_->CreateNamespace({"db"}));
  }

  /// Test 2's body: conflicting overwrites of partitions by ReplacePartitions, or by
  /// OverwriteFiles with a row filter on the partition column when `by_filter`.
  void ConcurrentOverwrites(bool by_filter);

  TempDir dir_;
  std::string db_;
  std::string warehouse_;
  CatalogPtr catalog_;
};

TEST_F(WritePathTest, EvolvedTableReadsEverySnapshotWithItsOwnSchema) {
  const TableIdentifier id{{"db"}, "t"};
  ASSERT_OK_AND_ASSIGN(auto schema,
                       iceberg::ParseSchemaText("id int not null, name string, ts timestamptz"));
  ASSERT_OK_AND_ASSIGN(auto spec, iceberg::ParsePartitionSpecText("day(ts)", *schema));
  CreateTableRequest request;
  request.schema = schema;
  request.spec = spec;
  ASSERT_OK(catalog_->CreateTable(id, request));
  iceberg::TableOperationsPtr ops = catalog_->TableOps(id);

  std::vector<EvolRow> all;
  std::vector<Step> steps;
  // Appends `rows` with the table's current schema and spec, and records what every later
  // read of the new snapshot must give: the rows so far, read with the current schema.
  auto append = [&](std::vector<EvolRow> rows) {
    ASSERT_OK_AND_ASSIGN(iceberg::Table table, ops->Refresh());
    const iceberg::Schema& current = *table.metadata->CurrentSchema();
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, EvolBatch(current, rows));
    ASSERT_OK_AND_ASSIGN(auto files, WriteFiles(table, *batch));
    auto producer = iceberg::FastAppend::Make(ops);
    for (const auto& f : files) producer->AppendFile(f);
    ASSERT_OK_AND_ASSIGN(iceberg::Table committed, producer->Commit());
    ASSERT_EQ(committed.metadata->current_snapshot_id, producer->snapshot_id());

    all.insert(all.end(), rows.begin(), rows.end());
    std::sort(all.begin(), all.end(),
              [](const EvolRow& a, const EvolRow& b) { return a.id < b.id; });
    Step step;
    step.snapshot_id = producer->snapshot_id();
    step.schema_id = current.schema_id();
    step.file_count =
        static_cast<int64_t>(files.size()) + (steps.empty() ? 0 : steps.back().file_count);
    for (const Field& f : current.fields()) {
      step.columns.push_back(f.name() + ":" + f.type()->ToString());
    }
    for (const EvolRow& r : all) {
      TextRow row;
      for (const Field& f : current.fields()) row.push_back(ExpectedText(r, f.field_id()));
      step.rows.push_back(std::move(row));
    }
    steps.push_back(std::move(step));
  };

  // 1. The original schema; a NULL timestamp goes to the NULL day partition.
  append({{1, "a", kDay1, {}, {}},
          {2, "b", kDay2, {}, {}},
          {3, {}, kDay1, {}, {}},
          {4, "d", {}, {}, {}}});
  ASSERT_FALSE(HasFailure());

  // 2. A new optional column.
  ASSERT_OK(iceberg::UpdateSchema::Make(ops)->AddColumn("extra", Float64()).Commit());
  append({{5, "e", kDay1, 1.5, {}}, {6, {}, kDay2, {}, {}}, {7, "g", kDay2, -0.25, {}}});
  ASSERT_FALSE(HasFailure());

  // 3. A rename.
  ASSERT_OK(iceberg::UpdateSchema::Make(ops)->RenameColumn("name", "label").Commit());
  append({{8, "h", kDay1, 2.75, {}}, {9, "i", {}, {}, {}}});
  ASSERT_FALSE(HasFailure());

  // 4. Drop `extra` and add a new column under the same name, in two commits: its values
  // are new ones (field 5), never the dropped field 4's.
  ASSERT_OK(iceberg::UpdateSchema::Make(ops)->DeleteColumn("extra").Commit());
  ASSERT_OK(iceberg::UpdateSchema::Make(ops)->AddColumn("extra", String()).Commit());
  append({{10, "j", kDay1, {}, "x"}, {11, {}, kDay2, {}, {}}});
  ASSERT_FALSE(HasFailure());

  // 5. int -> long, and an id only a long holds.
  ASSERT_OK(iceberg::UpdateSchema::Make(ops)->UpdateColumn("id", Int64()).Commit());
  append({{5000000000LL, "k", kDay1, {}, "y"}, {12, "l", kDay2, {}, "z"}});
  ASSERT_FALSE(HasFailure());

  // 6. Partition evolution: bucket(4, id) replaces day(ts). Iceberg's spec gives
  // murmur3(34) = 2017239379, so id 34 lands in bucket 2017239379 % 4 = 3.
  ASSERT_OK(iceberg::UpdatePartitionSpec::Make(ops)
                ->AddField("id", iceberg::Transform::Bucket(4))
                .RemoveField("ts_day")
                .Commit());
  append({{34, "m", kDay1, {}, "w"}});
  ASSERT_FALSE(HasFailure());

  // Every snapshot is on the table, with the schema it was written with.
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog_->LoadTable(id));
  const iceberg::TableMetadata& md = *table.metadata;
  ASSERT_EQ(md.snapshots.size(), 6u);
  std::vector<int32_t> schema_ids;
  for (const Step& s : steps) schema_ids.push_back(s.schema_id);
  EXPECT_THAT(schema_ids, ElementsAre(0, 1, 2, 4, 5, 5));
  std::vector<int32_t> current_ids;
  for (const Field& f : md.CurrentSchema()->fields()) current_ids.push_back(f.field_id());
  EXPECT_THAT(current_ids, ElementsAre(1, 2, 3, 5));
  EXPECT_EQ(md.default_spec_id, 1);
  // Files so far: 3 (two days and NULL), then 2, 2, 2, 2 (two partitions each) and 1.
  std::vector<int64_t> file_counts;
  for (const Step& s : steps) file_counts.push_back(s.file_count);
  EXPECT_THAT(file_counts, ElementsAre(3, 5, 7, 9, 11, 12));

  // The schemas the steps recorded.
  EXPECT_THAT(steps[0].columns, ElementsAre("id:int32", "name:string", "ts:timestamptz"));
  EXPECT_THAT(steps[2].columns,
              ElementsAre("id:int32", "label:string", "ts:timestamptz", "extra:float64"));
  EXPECT_THAT(steps[5].columns,
              ElementsAre("id:int64", "label:string", "ts:timestamptz", "extra:string"));

  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE(fmt::format("snapshot {} (step {})", steps[i].snapshot_id, i + 1));
    const iceberg::Snapshot* snap = md.SnapshotById(steps[i].snapshot_id);
    ASSERT_NE(snap, nullptr);
    EXPECT_EQ(snap->schema_id, steps[i].schema_id);
    EXPECT_EQ(snap->operation(), "append");
    iceberg::ScanOptions options;
    options.snapshot.snapshot_id = steps[i].snapshot_id;
    ASSERT_OK_AND_ASSIGN(ScanResult read, ReadTable(table, options));
    EXPECT_EQ(read.schema_id, steps[i].schema_id);
    EXPECT_EQ(read.columns, steps[i].columns);
    EXPECT_EQ(static_cast<int64_t>(read.tasks.size()), steps[i].file_count);
    EXPECT_EQ(read.rows, steps[i].rows);
  }

  // Spelled out: the snapshot before the drop still reads the old `extra` (field 4) ...
  {
    iceberg::ScanOptions options;
    options.snapshot.snapshot_id = steps[2].snapshot_id;
    ASSERT_OK_AND_ASSIGN(ScanResult read, ReadTable(table, options));
    EXPECT_THAT(read.rows, ElementsAre(ElementsAre("1", "a", "2024-01-02 03:04:05+00", "NULL"),
                                       ElementsAre("2", "b", "2024-01-03 10:00:00+00", "NULL"),
                                       ElementsAre("3", "NULL", "2024-01-02 03:04:05+00", "NULL"),
                                       ElementsAre("4", "d", "NULL", "NULL"),
                                       ElementsAre("5", "e", "2024-01-02 03:04:05+00", "1.5"),
                                       ElementsAre("6", "NULL", "2024-01-03 10:00:00+00", "NULL"),
                                       ElementsAre("7", "g", "2024-01-03 10:00:00+00", "-0.25"),
                                       ElementsAre("8", "h", "2024-01-02 03:04:05+00", "2.75"),
                                       ElementsAre("9", "i", "NULL", "NULL")));
  }
  // ... and the current snapshot with the current schema reads NULL for it on every row
  // written before the new `extra` existed, and the renamed column's values as `label`.
  {
    ASSERT_OK_AND_ASSIGN(ScanResult read, ReadTable(table, {}));
    EXPECT_EQ(read.schema_id, 5);
    EXPECT_THAT(read.columns,
                ElementsAre("id:int64", "label:string", "ts:timestamptz", "extra:string"));
    EXPECT_THAT(read.rows,
                ElementsAre(ElementsAre("1", "a", "2024-01-02 03:04:05+00", "NULL"),
                            ElementsAre("2", "b", "2024-01-03 10:00:00+00", "NULL"),
                            ElementsAre("3", "NULL", "2024-01-02 03:04:05+00", "NULL"),
                            ElementsAre("4", "d", "NULL", "NULL"),
                            ElementsAre("5", "e", "2024-01-02 03:04:05+00", "NULL"),
                            ElementsAre("6", "NULL", "2024-01-03 10:00:00+00", "NULL"),
                            ElementsAre("7", "g", "2024-01-03 10:00:00+00", "NULL"),
                            ElementsAre("8", "h", "2024-01-02 03:04:05+00", "NULL"),
                            ElementsAre("9", "i", "NULL", "NULL"),
                            ElementsAre("10", "j", "2024-01-02 03:04:05+00", "x"),
                            ElementsAre("11", "NULL", "2024-01-03 10:00:00+00", "NULL"),
                            ElementsAre("12", "l", "2024-01-03 10:00:00+00", "z"),
                            ElementsAre("34", "m", "2024-01-02 03:04:05+00", "w"),
                            ElementsAre("5000000000", "k", "2024-01-02 03:04:05+00", "y")));
    // Files keep the spec they were written with; the last one has the bucket tuple.
    std::map<int32_t, int> files_per_spec;
    for (const auto& t : read.tasks) {
      ++files_per_spec[t.data_file->spec_id];
      if (t.data_file->spec_id == 1) {
        ASSERT_EQ(t.data_file->partition.size(), 1u);
        EXPECT_EQ(FormatScalar(t.data_file->partition[0]), "3");
        EXPECT_EQ(t.data_file->record_count, 1);
      }
    }
    EXPECT_EQ(files_per_spec, (std::map<int32_t, int>{{0, 11}, {1, 1}}));
  }
  // A projection by name resolves against the current schema (renamed and re-added
  // columns); the output keeps the schema's column order.
  {
    iceberg::ScanOptions options;
    options.projected_names = {"id", "extra", "label"};
    ASSERT_OK_AND_ASSIGN(ScanResult read, ReadTable(table, options));
    EXPECT_THAT(read.columns, ElementsAre("id:int64", "label:string", "extra:string"));
    ASSERT_EQ(read.rows.size(), 14u);
    EXPECT_THAT(read.rows[6], ElementsAre("7", "g", "NULL"));
    EXPECT_THAT(read.rows[9], ElementsAre("10", "j", "x"));
  }
  // The old snapshot pinned with a projection of the dropped column's name reads field 4.
  {
    iceberg::ScanOptions options;
    options.snapshot.snapshot_id = steps[1].snapshot_id;
    options.projected_names = {"id", "extra"};
    ASSERT_OK_AND_ASSIGN(ScanResult read, ReadTable(table, options));
    EXPECT_THAT(read.columns, ElementsAre("id:int32", "extra:float64"));
    ASSERT_EQ(read.rows.size(), 7u);
    EXPECT_THAT(read.rows[4], ElementsAre("5", "1.5"));
    EXPECT_THAT(read.rows[6], ElementsAre("7", "-0.25"));
  }
}

// ---------------------------------------------------------------------------------------
// 2. Conflicting partition overwrites from several catalog connections
// ---------------------------------------------------------------------------------------

/// A LocalFileIO that records the .avro files it creates and runs a callback (once per
/// arming) just before it creates a metadata file: the moment between a commit's validation
/// and its compare-and-set.
class RecordingFileIO final : public io::FileIO {
 public:
  /// Sets the callback and forgets the files recorded so far.
  void Arm(std::function<void()> hook) {
    std::lock_guard lock(mu_);
    hook_ = std::move(hook);
    created_avro_.clear();
  }
  /// Runs the callback now if it has not run since Arm.
  void FireIfArmed() const {
    std::function<void()> hook;
    {
      std::lock_guard lock(mu_);
      hook = std::move(hook_);
      hook_ = nullptr;
    }
    if (hook) hook();
  }
  std::vector<std::string> created_avro() const {
    std::lock_guard lock(mu_);
    return created_avro_;
  }

  Result<std::unique_ptr<io::RandomAccessFile>> NewInputFile(
      const std::string& path) const override {
    return local_.NewInputFile(path);
  }
  Result<std::unique_ptr<io::OutputStream>> NewOutputFile(const std::string& path,
                                                          io::CreateMode mode) const override {
    if (iceberg::IsMetadataFileName(fs::path(path).filename().string())) {
      FireIfArmed();
    } else if (path.ends_with(".avro")) {
      std::lock_guard lock(mu_);
      created_avro_.push_back(path);
    }
    return local_.NewOutputFile(path, mode);
  }
  Result<bool> Exists(const std::string& path) const override { return local_.Exists(path); }
  Status Delete(const std::string& path) const override { return local_.Delete(path); }
  Result<std::vector<io::FileInfo>> ListDirectory(const std::string& path) const override {
    return local_.ListDirectory(path);
  }
  Result<std::string> ResolvePath(const std::string& path) const override {
    return local_.ResolvePath(path);
  }
  std::string ToString() const override { return "RecordingFileIO"; }

 private:
  io::LocalFileIO local_;
  mutable std::mutex mu_;
  mutable std::function<void()> hook_;
  mutable std::vector<std::string> created_avro_;
};

constexpr int kThreads = 4;
constexpr int kRounds = 5;
constexpr int kPartitions = 3;

/// One ReplacePartitions operation of one thread in one round.
struct OverwriteOp {
  int thread = 0;
  int round = 0;
  /// The partitions (values of p) it writes, and its rows as text (p, id, tag).
  std::set<int> partitions;
  std::vector<TextRow> rows;
  /// The snapshot it validated from.
  std::optional<int64_t> base_snapshot_id;
  std::vector<std::string> data_files;
  /// The manifests and manifest lists its commit wrote (kept or not).
  std::vector<std::string> written_avro;
  Status status;
  int64_t snapshot_id = 0;
};

Result<RecordBatchPtr> OverwriteBatch(const iceberg::Schema& schema,
                                      const std::vector<TextRow>& rows) {
  Int32Builder p(Int32());
  Int64Builder ids(Int64());
  BinaryBuilder tags(String());
  for (const TextRow& r : rows) {
    FLOE_RETURN_NOT_OK(p.Append(std::stoi(r[0])));
    FLOE_RETURN_NOT_OK(ids.Append(std::stoll(r[1])));
    FLOE_RETURN_NOT_OK(tags.Append(r[2]));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr pa, p.Finish());
  FLOE_ASSIGN_OR_RAISE(ArrayPtr ia, ids.Finish());
  FLOE_ASSIGN_OR_RAISE(ArrayPtr ta, tags.Finish());
  return RecordBatch::Make(schema.columns(), static_cast<int64_t>(rows.size()), {pa, ia, ta});
}

/// Rows of op (round, thread) in partition p: three per partition, ids unique per op.
std::vector<TextRow> OpRows(int round, int thread, const std::set<int>& partitions) {
  std::vector<TextRow> rows;
  for (int p : partitions) {
    for (int j = 0; j < 3; ++j) {
      rows.push_back({std::to_string(p), std::to_string(round * 10000 + thread * 100 + p * 10 + j),
                      fmt::format("r{}t{}", round, thread)});
    }
  }
  return rows;
}

void WritePathTest::ConcurrentOverwrites(bool by_filter) {
  const TableIdentifier id{{"db"}, "o"};
  ASSERT_OK_AND_ASSIGN(auto schema,
                       iceberg::ParseSchemaText("p int not null, id bigint not null, tag string"));
  ASSERT_OK_AND_ASSIGN(auto spec, iceberg::ParsePartitionSpecText("p", *schema));
  CreateTableRequest request;
  request.schema = schema;
  request.spec = spec;
  // Each round has at most kThreads - 1 concurrent commits, so retries are never used up.
  request.properties = {{"commit.retry.num-retries", "10"},
                        {"commit.retry.min-wait-ms", "1"},
                        {"commit.retry.max-wait-ms", "5"}};
  ASSERT_OK(catalog_->CreateTable(id, request));

  // The seed: every partition has rows.
  std::vector<TextRow> seed_rows;
  for (int p = 0; p < kPartitions; ++p) {
    for (int j = 0; j < 2; ++j) {
      seed_rows.push_back({std::to_string(p), std::to_string(900000 + p * 10 + j), "seed"});
    }
  }
  std::set<std::string> seed_files;
  {
    iceberg::TableOperationsPtr ops = catalog_->TableOps(id);
    ASSERT_OK_AND_ASSIGN(iceberg::Table table, ops->Refresh());
    ASSERT_OK_AND_ASSIGN(auto batch, OverwriteBatch(*table.metadata->CurrentSchema(), seed_rows));
    ASSERT_OK_AND_ASSIGN(auto files, WriteFiles(table, *batch));
    ASSERT_EQ(files.size(), static_cast<size_t>(kPartitions));
    auto append = iceberg::FastAppend::Make(ops);
    for (const auto& f : files) {
      append->AppendFile(f);
      seed_files.insert(f->file_path);
    }
    ASSERT_OK(append->Commit());
  }

  // Round r: every thread loads the table and writes its files; once all have, each commits
  // its overwrite validated from the snapshot it loaded. The commits meet once more
  // just before their first metadata file is written, so every first attempt has written its
  // manifests and manifest list before any compare-and-set: one wins, the others retry and
  // either commit (disjoint partitions) or conflict and must delete what they wrote. With 4
  // threads over 3 partitions, every round has overlapping operations.
  std::vector<OverwriteOp> ops_done(kThreads * kRounds);
  std::barrier sync(kThreads);
  std::barrier at_swap(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto io = std::make_shared<RecordingFileIO>();
      // Each thread has its own catalog and connection on the same catalog file.
      auto opened = [&]() -> Result<std::shared_ptr<SqlCatalog>> {
        FLOE_ASSIGN_OR_RAISE(SqlBackendPtr backend, OpenSqliteBackend(db_));
        SqlCatalogOptions options;
        options.uri = "sqlite:" + db_;
        options.warehouse = warehouse_;
        return SqlCatalog::Make(std::move(backend), io, options);
      }();
      for (int r = 0; r < kRounds; ++r) {
        OverwriteOp& op = ops_done[static_cast<size_t>(r * kThreads + t)];
        op.thread = t;
        op.round = r;
        const int first = (t + r) % kPartitions;
        op.partitions.insert(first);
        if ((t + r) % 2 == 0) op.partitions.insert((first + 1) % kPartitions);
        op.rows = OpRows(r, t, op.partitions);

        sync.arrive_and_wait();  // the previous round is committed
        std::unique_ptr<iceberg::SnapshotProducer> producer;
        auto prepare = [&]() -> Status {
          FLOE_RETURN_NOT_OK(opened.status());
          iceberg::TableOperationsPtr ops = (*opened)->TableOps(id);
          FLOE_ASSIGN_OR_RAISE(iceberg::Table table, ops->Refresh());
          op.base_snapshot_id = table.metadata->current_snapshot_id;
          FLOE_ASSIGN_OR_RAISE(auto batch,
                               OverwriteBatch(*table.metadata->CurrentSchema(), op.rows));
          FLOE_ASSIGN_OR_RAISE(auto files, WriteFiles(table, *batch));
          for (const auto& f : files) op.data_files.push_back(f->file_path);
          if (by_filter) {
            std::vector<Scalar> values;
            for (int p : op.partitions) values.push_back(Scalar::I32(p));
            auto overwrite = iceberg::OverwriteFiles::Make(ops);
            overwrite->OverwriteByRowFilter(
                iceberg::Expression::Make(iceberg::Operation::kIn, "p", std::move(values)));
            for (const auto& f : files) overwrite->AddFile(f);
            overwrite->ValidateFromSnapshot(*op.base_snapshot_id)
                .ValidateNoConflictingData()
                .ValidateAddedFilesMatchOverwriteFilter();
            producer = std::move(overwrite);
          } else {
            auto replace = iceberg::ReplacePartitions::Make(ops);
            for (const auto& f : files) replace->AddFile(f);
            replace->ValidateFromSnapshot(*op.base_snapshot_id).ValidateNoConflictingData();
            producer = std::move(replace);
          }
          return Status::OK();
        };
        op.status = prepare();
        sync.arrive_and_wait();  // every thread has loaded the same snapshot
        io->Arm([&] { at_swap.arrive_and_wait(); });
        if (op.status.ok()) {
          auto committed = producer->Commit();
          op.status = committed.status();
          op.snapshot_id = producer->snapshot_id();
        }
        // An operation that failed before writing a metadata file still meets the others.
        io->FireIfArmed();
        op.written_avro = io->created_avro();
      }
    });
  }
  for (auto& thread : threads) thread.join();

  // Every operation committed or failed with a validation conflict; nothing else.
  int committed_count = 0;
  for (const OverwriteOp& op : ops_done) {
    SCOPED_TRACE(fmt::format("round {} thread {}", op.round, op.thread));
    if (op.status.ok()) {
      ++committed_count;
      continue;
    }
    EXPECT_EQ(op.status.code(), StatusCode::kCommitConflict) << op.status.ToString();
    EXPECT_THAT(op.status.message(), HasSubstr("found conflicting data file"));
  }

  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog_->LoadTable(id));
  const iceberg::TableMetadata& md = *table.metadata;
  // One snapshot for the seed and one per committed operation, in one line of history.
  ASSERT_EQ(md.snapshots.size(), static_cast<size_t>(1 + committed_count));
  ASSERT_TRUE(md.current_snapshot_id.has_value());
  EXPECT_EQ(md.Ancestors(*md.current_snapshot_id).size(), md.snapshots.size());

  // Per round: at least one commit and one conflict; committed operations touch disjoint
  // partitions; every failed operation overlaps an operation of its round committed after
  // its base snapshot.
  for (int r = 0; r < kRounds; ++r) {
    SCOPED_TRACE(fmt::format("round {}", r));
    std::vector<const OverwriteOp*> committed;
    std::vector<const OverwriteOp*> failed;
    for (int t = 0; t < kThreads; ++t) {
      const OverwriteOp& op = ops_done[static_cast<size_t>(r * kThreads + t)];
      (op.status.ok() ? committed : failed).push_back(&op);
    }
    EXPECT_GE(committed.size(), 1u);
    EXPECT_GE(failed.size(), 1u);
    std::set<int> taken;
    for (const OverwriteOp* op : committed) {
      const iceberg::Snapshot* snap = md.SnapshotById(op->snapshot_id);
      ASSERT_NE(snap, nullptr);
      EXPECT_EQ(snap->operation(), "overwrite");
      EXPECT_EQ(snap->summary.count("replace-partitions"), by_filter ? 0u : 1u);
      for (int p : op->partitions) EXPECT_TRUE(taken.insert(p).second) << "partition " << p;
    }
    for (const OverwriteOp* op : failed) {
      bool overlaps = false;
      for (const OverwriteOp* c : committed) {
        for (int p : op->partitions) overlaps |= c->partitions.count(p) > 0;
      }
      EXPECT_TRUE(overlaps) << "thread " << op->thread;
      EXPECT_EQ(md.SnapshotById(op->snapshot_id), nullptr);
      // Its first attempt wrote a manifest list, a manifest of its files and a copy of every
      // manifest of its base snapshot with live files in its partitions (those marked
      // DELETED); a retry that lost the swap again wrote another list (and copies). All of
      // them are gone.
      ASSERT_TRUE(op->base_snapshot_id.has_value());
      size_t rewritten = 0;
      const iceberg::Snapshot* base = md.SnapshotById(*op->base_snapshot_id);
      ASSERT_NE(base, nullptr);
      ASSERT_OK_AND_ASSIGN(auto manifests,
                           iceberg::ReadManifestList(*table.io, base->manifest_list));
      for (const auto& m : manifests) {
        ASSERT_OK_AND_ASSIGN(
            auto entries,
            iceberg::ReadManifest(*table.io, m, *md.SpecById(m.partition_spec_id),
                                  *md.CurrentSchema(), iceberg::ManifestReadOptions::Live()));
        bool touched = false;
        for (const auto& e : entries) {
          touched |= op->partitions.count(e.data_file->partition[0].get<int32_t>()) > 0;
        }
        rewritten += touched ? 1 : 0;
      }
      EXPECT_GE(rewritten, 1u);
      size_t lists = 0;
      for (const std::string& path : op->written_avro) {
        lists += fs::path(path).filename().string().starts_with("snap-") ? 1 : 0;
      }
      EXPECT_GE(lists, 1u) << "thread " << op->thread;
      EXPECT_GE(op->written_avro.size(), 2 + rewritten) << "thread " << op->thread;
      for (const std::string& path : op->written_avro) {
        EXPECT_FALSE(fs::exists(path)) << path;
      }
    }
  }

  // The live rows: per partition, those of the last committed overwrite of it (by sequence
  // number), else the seed's.
  std::map<int, std::vector<TextRow>> expected_by_partition;
  for (const TextRow& r : seed_rows) expected_by_partition[std::stoi(r[0])].push_back(r);
  std::vector<const OverwriteOp*> committed_ops;
  for (const OverwriteOp& op : ops_done) {
    if (op.status.ok()) committed_ops.push_back(&op);
  }
  std::sort(committed_ops.begin(), committed_ops.end(),
            [&](const OverwriteOp* a, const OverwriteOp* b) {
              return md.SnapshotById(a->snapshot_id)->sequence_number <
                     md.SnapshotById(b->snapshot_id)->sequence_number;
            });
  for (const OverwriteOp* op : committed_ops) {
    for (int p : op->partitions) expected_by_partition[p].clear();
    for (const TextRow& r : op->rows) expected_by_partition[std::stoi(r[0])].push_back(r);
  }
  std::vector<TextRow> expected;
  for (const auto& [p, rows] : expected_by_partition) {
    expected.insert(expected.end(), rows.begin(), rows.end());
  }
  ASSERT_OK_AND_ASSIGN(ScanResult read, ReadTable(table, {}));
  // ReadTable sorts by the first column (p); make the order total with the id.
  auto by_p_then_id = [](const TextRow& a, const TextRow& b) {
    return std::make_pair(std::stoi(a[0]), std::stoll(a[1])) <
           std::make_pair(std::stoi(b[0]), std::stoll(b[1]));
  };
  std::sort(expected.begin(), expected.end(), by_p_then_id);
  std::sort(read.rows.begin(), read.rows.end(), by_p_then_id);
  EXPECT_EQ(read.rows, expected);

  // Metadata: every .avro file is a snapshot's manifest list or a manifest one lists (the
  // failed operations left none behind), and one metadata file per commit plus the create.
  const std::string metadata_dir = warehouse_ + "/db/o/metadata";
  std::set<std::string> referenced_avro;
  for (const iceberg::Snapshot& s : md.snapshots) {
    referenced_avro.insert(fs::path(s.manifest_list).filename().string());
    ASSERT_OK_AND_ASSIGN(auto manifests, iceberg::ReadManifestList(*table.io, s.manifest_list));
    for (const auto& m : manifests) {
      referenced_avro.insert(fs::path(m.manifest_path).filename().string());
    }
  }
  std::set<std::string> avro_on_disk;
  int metadata_json = 0;
  for (const std::string& path : FilesUnder(metadata_dir)) {
    const std::string name = fs::path(path).filename().string();
    if (name.ends_with(".avro")) avro_on_disk.insert(name);
    if (name.ends_with(".metadata.json")) ++metadata_json;
  }
  EXPECT_EQ(avro_on_disk, referenced_avro);
  EXPECT_EQ(metadata_json, 2 + committed_count);

  // Data: the failed operations' files are the caller's to delete; afterwards the data
  // directory holds exactly the files some snapshot references (the seed's and the committed
  // operations'), and the current snapshot's files are exactly the live ones.
  std::set<std::string> expected_data = seed_files;
  for (const OverwriteOp& op : ops_done) {
    if (op.status.ok()) {
      expected_data.insert(op.data_files.begin(), op.data_files.end());
    } else {
      for (const std::string& f : op.data_files) ASSERT_OK(table.io->Delete(f));
    }
  }
  std::set<std::string> referenced_data;
  for (const iceberg::Snapshot& s : md.snapshots) {
    ASSERT_OK_AND_ASSIGN(auto manifests, iceberg::ReadManifestList(*table.io, s.manifest_list));
    for (const auto& m : manifests) {
      ASSERT_OK_AND_ASSIGN(
          auto entries,
          iceberg::ReadManifest(*table.io, m, *md.SpecById(m.partition_spec_id),
                                *md.CurrentSchema(), iceberg::ManifestReadOptions::All()));
      for (const auto& e : entries) referenced_data.insert(e.data_file->file_path);
    }
  }
  EXPECT_EQ(referenced_data, expected_data);
  EXPECT_EQ(FilesUnder(warehouse_ + "/db/o/data"), expected_data);

  std::set<std::string> live;
  for (const auto& t : read.tasks) live.insert(t.data_file->file_path);
  std::set<std::string> expected_live;
  std::map<int, const OverwriteOp*> last_writer;
  for (const OverwriteOp* op : committed_ops) {
    for (int p : op->partitions) last_writer[p] = op;
  }
  for (const std::string& f : seed_files) {
    bool replaced = false;
    for (const auto& [p, op] : last_writer) {
      replaced |= f.find(fmt::format("/p={}/", p)) != std::string::npos;
    }
    if (!replaced) expected_live.insert(f);
  }
  for (const auto& [p, op] : last_writer) {
    for (const std::string& f : op->data_files) {
      if (f.find(fmt::format("/p={}/", p)) != std::string::npos) expected_live.insert(f);
    }
  }
  EXPECT_EQ(live, expected_live);
}

TEST_F(WritePathTest, ConcurrentReplacePartitionsCommitOrConflictCleanly) {
  ConcurrentOverwrites(/*by_filter=*/false);
}

TEST_F(WritePathTest, ConcurrentOverwritesByFilterCommitOrConflictCleanly) {
  ConcurrentOverwrites(/*by_filter=*/true);
}

}  // namespace
}  // namespace floe::catalog
