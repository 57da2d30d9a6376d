#include "floe/iceberg/partitioned_writer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/in_flight_files.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/table_update.h"
#include "floe/iceberg/tests/reader_test_util.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::iceberg::testing::I32s;
using ::floe::iceberg::testing::I64s;
using ::floe::iceberg::testing::Strs;
using ::floe::iceberg::testing::TempDir;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::floe::testing::IsOk;

constexpr int64_t kTs = 1704164645000000LL;  // 2024-01-02 03:04:05 UTC
constexpr int64_t kDayMicros = 86400000000LL;

ArrayPtr Tstz(const std::vector<std::optional<int64_t>>& values) {
  Int64Builder b(TimestampTz());
  for (const auto& v : values) EXPECT_OK(v ? b.Append(*v) : b.AppendNull());
  return *b.Finish();
}

// All files under `dir`, recursively, relative to it.
std::vector<std::string> FilesUnder(const std::string& dir) {
  std::vector<std::string> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(std::filesystem::relative(e.path(), dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

int64_t TotalRecords(const std::vector<DataFile>& files) {
  int64_t n = 0;
  for (const auto& f : files) n += f.record_count;
  return n;
}

// id long not null, ts timestamptz, name string, s struct<x int>.
SchemaPtr TableSchema() {
  auto s = Schema::Make(0, {Field("id", Int64(), false, 1), Field("ts", TimestampTz(), true, 2),
                            Field("name", String(), true, 3),
                            Field("s", Struct({Field("x", Int32(), true, 5)}), true, 4)});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

ArrayPtr StructOfX(const SchemaPtr& schema, const std::vector<std::optional<int32_t>>& xs,
                   const std::vector<bool>& struct_null = {}) {
  StructBuilder b(schema->columns()->field(3).type());
  auto* x = static_cast<Int32Builder*>(b.field_builder(0));
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!struct_null.empty() && struct_null[i]) {
      EXPECT_OK(b.AppendNull());
      continue;
    }
    EXPECT_OK(b.Append());
    EXPECT_OK(xs[i] ? x->Append(*xs[i]) : x->AppendNull());
  }
  return *b.Finish();
}

RecordBatchPtr Batch(const SchemaPtr& schema, std::vector<std::optional<int64_t>> ids,
                     std::vector<std::optional<int64_t>> ts,
                     std::vector<std::optional<std::string>> names) {
  std::vector<std::optional<int32_t>> xs(ids.size(), 1);
  auto b = RecordBatch::Make(schema->columns(), static_cast<int64_t>(ids.size()),
                             {I64s(ids), Tstz(ts), Strs(names), StructOfX(schema, xs)});
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

class PartitionedWriterTest : public ::testing::Test {
 protected:
  PartitionedWriterOptions Options(PartitionSpecPtr spec,
                                   std::map<std::string, std::string> props = {}) {
    PartitionedWriterOptions o;
    o.io = io_;
    o.schema = schema_;
    o.spec = std::move(spec);
    o.properties = *WriterProperties::Make(props, dir_.path());
    o.writer_id = 7;
    o.task_id = 42;
    o.operation_id = "op";
    return o;
  }
  PartitionSpecPtr DaySpec() {
    return *PartitionSpec::Make(*schema_, 1, {PartitionField{2, 1000, "ts_day", Transform::Day()}});
  }
  std::string data_dir() const { return dir_.path() + "/data"; }

  TempDir dir_;
  std::shared_ptr<io::FileIO> io_ = std::make_shared<io::LocalFileIO>();
  SchemaPtr schema_ = TableSchema();
};

// ---------------------------------------------------------------------------------------
// Partition tuples, paths and names
// ---------------------------------------------------------------------------------------

TEST(PartitionPathTest, Escaping) {
  EXPECT_EQ(EscapePartitionPathPart("abc-XYZ_0.9*"), "abc-XYZ_0.9*");
  EXPECT_EQ(EscapePartitionPathPart("a b/c=d%"), "a+b%2Fc%3Dd%25");
  EXPECT_EQ(EscapePartitionPathPart("\xC3\xA9"), "%C3%A9");
}

TEST_F(PartitionedWriterTest, TuplesAndPathsForEveryTransform) {
  ASSERT_OK_AND_ASSIGN(
      auto spec, PartitionSpec::Make(*schema_, 5,
                                     {PartitionField{1, 1000, "id", Transform::Identity()},
                                      PartitionField{1, 1001, "id_bucket", Transform::Bucket(16)},
                                      PartitionField{3, 1002, "name_trunc", Transform::Truncate(3)},
                                      PartitionField{2, 1003, "ts_year", Transform::Year()},
                                      PartitionField{2, 1004, "ts_month", Transform::Month()},
                                      PartitionField{2, 1005, "ts_day", Transform::Day()},
                                      PartitionField{2, 1006, "ts_hour", Transform::Hour()},
                                      PartitionField{3, 1007, "name_null", Transform::Void()},
                                      PartitionField{5, 1008, "s_x", Transform::Identity()},
                                      PartitionField{3, 1009, "name", Transform::Identity()}}));
  ASSERT_OK_AND_ASSIGN(auto projector, PartitionProjector::Make(schema_, spec));
  // Row 0: known values; row 1: NULL sources, and the struct itself NULL.
  auto batch = *RecordBatch::Make(
      schema_->columns(), 2,
      {I64s({34, 35}), Tstz({kTs, std::nullopt}), Strs({"abcdef g/h", std::nullopt}),
       StructOfX(schema_, {7, 8}, {false, true})});
  ASSERT_OK_AND_ASSIGN(std::vector<ArrayPtr> columns, projector->Project(*batch));
  ASSERT_EQ(columns.size(), 10u);

  PartitionValues t0 = PartitionProjector::TupleAt(columns, 0);
  ASSERT_EQ(t0.size(), 10u);
  EXPECT_EQ(t0[0].get<int64_t>(), 34);
  EXPECT_EQ(t0[1].get<int32_t>(), 3);  // spec: bucket of long 34 hashes to 2017239379
  EXPECT_EQ(t0[2].get<std::string>(), "abc");
  EXPECT_EQ(t0[3].get<int32_t>(), 54);
  EXPECT_EQ(t0[4].get<int32_t>(), 54 * 12);
  EXPECT_EQ(t0[5].get<int32_t>(), 19724);
  EXPECT_EQ(t0[5].type()->id(), TypeId::kDate);
  EXPECT_EQ(t0[6].get<int32_t>(), 19724 * 24 + 3);
  EXPECT_TRUE(t0[7].is_null());
  EXPECT_EQ(t0[8].get<int32_t>(), 7);
  EXPECT_EQ(PartitionPath(*spec, t0),
            "id=34/id_bucket=3/name_trunc=abc/ts_year=2024/ts_month=2024-01/ts_day=2024-01-02/"
            "ts_hour=2024-01-02-03/name_null=null/s_x=7/name=abcdef+g%2Fh");

  PartitionValues t1 = PartitionProjector::TupleAt(columns, 1);
  EXPECT_EQ(t1[0].get<int64_t>(), 35);
  EXPECT_EQ(t1[1].get<int32_t>(), 5);  // murmur3 of long 35 is 3214265173
  for (int k = 2; k < 10; ++k) EXPECT_TRUE(t1[static_cast<size_t>(k)].is_null()) << k;
  EXPECT_EQ(PartitionPath(*spec, t1),
            "id=35/id_bucket=5/name_trunc=null/ts_year=null/ts_month=null/ts_day=null/"
            "ts_hour=null/name_null=null/s_x=null/name=null");
  // The tuple types are the partition type's.
  ASSERT_OK_AND_ASSIGN(TypePtr ptype, spec->PartitionType(*schema_));
  EXPECT_TRUE(projector->partition_type()->Equals(*ptype));
  for (int k = 0; k < 10; ++k) {
    EXPECT_TRUE(t0[static_cast<size_t>(k)].type()->Equals(*ptype->field(k).type())) << k;
  }
}

TEST_F(PartitionedWriterTest, ProjectorRejectsSourcesItCannotReach) {
  auto s = *Schema::Make(0, {Field("l", List(Field("element", Int32(), true, 2)), true, 1),
                             Field("a", Int32(), true, 3)});
  ASSERT_OK_AND_ASSIGN(
      auto spec, PartitionSpec::Make(*s, 0, {PartitionField{3, 1000, "a", Transform::Identity()}}));
  auto other = *Schema::Make(0, {Field("l", List(Field("element", Int32(), true, 3)), true, 1)});
  EXPECT_THAT(PartitionProjector::Make(other, spec),
              IsErrorWith(StatusCode::kInvalidArgument, "inside a list or map"));
  auto gone = *Schema::Make(0, {Field("b", Int32(), true, 9)});
  EXPECT_THAT(PartitionProjector::Make(gone, spec),
              IsErrorWith(StatusCode::kInvalidArgument, "not in the schema"));
}

TEST(OutputFileFactoryTest, NamesAreUniqueAndPadded) {
  OutputFileFactory f("s3://b/t/data", 7, 42, "0f1e2d3c-0000-4000-8000-000000000001");
  EXPECT_EQ(f.NewDataFilePath(""),
            "s3://b/t/data/00007-42-0f1e2d3c-0000-4000-8000-000000000001-00001.parquet");
  EXPECT_EQ(f.NewDataFilePath("ts_day=2024-01-02"),
            "s3://b/t/data/ts_day=2024-01-02/"
            "00007-42-0f1e2d3c-0000-4000-8000-000000000001-00002.parquet");
  OutputFileFactory g("/d", 8, 42, "");
  std::string p = g.NewDataFilePath("");
  EXPECT_TRUE(std::regex_match(
      p, std::regex("/d/00008-42-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                    "[0-9a-f]{12}-00001\\.parquet")))
      << p;
  OutputFileFactory h("/d", 8, 42, "");
  EXPECT_NE(h.operation_id(), g.operation_id());
}

// ---------------------------------------------------------------------------------------
// Writers
// ---------------------------------------------------------------------------------------

TEST_F(PartitionedWriterTest, FanoutSplitsAnyOrderByPartition) {
  ASSERT_OK_AND_ASSIGN(auto writer, MakeFanoutWriter(Options(DaySpec())));
  const int64_t d0 = kTs, d1 = kTs + kDayMicros, d2 = kTs + 2 * kDayMicros;
  ASSERT_OK(writer->Write(
      *Batch(schema_, {1, 2, 3, 4, 5}, {d0, d1, d0, std::nullopt, d2}, {"a", "b", "c", "d", "e"})));
  ASSERT_OK(writer->Write(*Batch(schema_, {6, 7}, {d1, d0}, {"f", "g"})));
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  ASSERT_EQ(files.size(), 4u);
  std::map<std::string, const DataFile*> by_dir;
  for (const DataFile& f : files) {
    std::string rel = f.file_path.substr(data_dir().size() + 1);
    by_dir[rel.substr(0, rel.find('/'))] = &f;
    EXPECT_TRUE(std::regex_match(rel.substr(rel.find('/') + 1),
                                 std::regex("00007-42-op-0000[1-4]\\.parquet")))
        << rel;
    EXPECT_EQ(f.spec_id, 1);
    ASSERT_EQ(f.partition.size(), 1u);
  }
  ASSERT_EQ(by_dir.size(), 4u);
  EXPECT_EQ(by_dir["ts_day=2024-01-02"]->record_count, 3);
  EXPECT_EQ(by_dir["ts_day=2024-01-02"]->partition[0].get<int32_t>(), 19724);
  EXPECT_EQ(by_dir["ts_day=2024-01-03"]->record_count, 2);
  EXPECT_EQ(by_dir["ts_day=2024-01-04"]->record_count, 1);
  EXPECT_EQ(by_dir["ts_day=null"]->record_count, 1);
  EXPECT_TRUE(by_dir["ts_day=null"]->partition[0].is_null());
  // The rows of a partition are the input's rows, in input order.
  auto reader = *parquet::ParquetFileReader::OpenPath(by_dir["ts_day=2024-01-02"]->file_path);
  auto stream = *reader->Read({});
  auto batch = *stream->Next();
  EXPECT_TRUE(batch->column(0)->Equals(*I64s({1, 3, 7})));
  EXPECT_TRUE(batch->column(2)->Equals(*Strs({"a", "c", "g"})));
  EXPECT_EQ(by_dir["ts_day=2024-01-02"]->lower_bounds.at(1), std::string("\x01\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(by_dir["ts_day=2024-01-02"]->upper_bounds.at(1), std::string("\x07\0\0\0\0\0\0\0", 8));
}

TEST_F(PartitionedWriterTest, FanoutMemoryBudgetClosesTheLargestFile) {
  // Partition A gets 20000 rows of 100-byte strings per batch, B gets 10 short rows; a budget
  // between the two closes A's file after each batch and keeps B's open.
  auto big_batch = [&]() {
    std::vector<std::optional<int64_t>> ids, ts;
    std::vector<std::optional<std::string>> names;
    for (int i = 0; i < 20000; ++i) {
      ids.push_back(i);
      ts.push_back(kTs);
      names.push_back(std::string(100, static_cast<char>('a' + i % 26)) + std::to_string(i));
    }
    for (int i = 0; i < 10; ++i) {
      ids.push_back(100000 + i);
      ts.push_back(kTs + kDayMicros);
      names.push_back("b");
    }
    return Batch(schema_, ids, ts, names);
  };
  PartitionedWriterOptions o =
      Options(DaySpec(), {{"write.parquet.compression-codec", "uncompressed"}});
  o.fanout_memory_budget_bytes = 256 << 10;
  ASSERT_OK_AND_ASSIGN(auto writer, MakeFanoutWriter(o));
  ASSERT_OK(writer->Write(*big_batch()));
  // A's file was closed by the budget: it is complete on disk already.
  EXPECT_EQ(FilesUnder(data_dir() + "/ts_day=2024-01-02").size(), 1u);
  ASSERT_OK(writer->Write(*big_batch()));
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  std::map<std::string, std::vector<int64_t>> counts;
  for (const DataFile& f : files) {
    std::string rel = f.file_path.substr(data_dir().size() + 1);
    counts[rel.substr(0, rel.find('/'))].push_back(f.record_count);
  }
  EXPECT_EQ(counts["ts_day=2024-01-02"], (std::vector<int64_t>{20000, 20000}));
  EXPECT_EQ(counts["ts_day=2024-01-03"], (std::vector<int64_t>{20}));

  // Without the pressure each partition keeps one file.
  o.fanout_memory_budget_bytes = 1LL << 30;
  o.operation_id = "op2";
  ASSERT_OK_AND_ASSIGN(writer, MakeFanoutWriter(o));
  ASSERT_OK(writer->Write(*big_batch()));
  ASSERT_OK(writer->Write(*big_batch()));
  ASSERT_OK_AND_ASSIGN(files, writer->Close());
  EXPECT_EQ(files.size(), 2u);
  EXPECT_EQ(TotalRecords(files), 40020);
}

TEST_F(PartitionedWriterTest, FanoutBudgetCountsWhatOpenFilesHold) {
  // Many partitions of a few hundred distinct rows each: every open file holds encoders and
  // a dictionary of its values, far more than its rows' encoded size. The budget counts
  // that memory, so files are closed to stay within it (files were once judged by their
  // estimated size alone, and thousands of small open files overran the budget manyfold).
  constexpr int kDays = 200;
  constexpr int kRowsPerDay = 300;
  auto batch = [&](int round) {
    std::vector<std::optional<int64_t>> ids, ts;
    std::vector<std::optional<std::string>> names;
    for (int d = 0; d < kDays; ++d) {
      for (int i = 0; i < kRowsPerDay; ++i) {
        const int64_t id = (static_cast<int64_t>(round) * kDays + d) * kRowsPerDay + i;
        ids.push_back(id);
        ts.push_back(kTs + d * kDayMicros);
        names.push_back("name-" + std::to_string(id));
      }
    }
    return Batch(schema_, ids, ts, names);
  };
  constexpr int64_t kBudget = 4 << 20;
  PartitionedWriterOptions o = Options(DaySpec());
  o.fanout_memory_budget_bytes = kBudget;
  o.fanout_flush_rows = 1;  // rows reach their files at once
  ASSERT_OK_AND_ASSIGN(auto writer, MakeFanoutWriter(o));
  int64_t highest = 0;
  for (int round = 0; round < 4; ++round) {
    ASSERT_OK(writer->Write(*batch(round)));
    EXPECT_LE(writer->MemoryBytes(), kBudget) << "after round " << round;
    highest = std::max(highest, writer->MemoryBytes());
  }
  EXPECT_GT(highest, kBudget / 2);  // the open files' memory is counted
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  EXPECT_EQ(writer->MemoryBytes(), 0);
  EXPECT_EQ(TotalRecords(files), int64_t{4} * kDays * kRowsPerDay);
  // The budget closed files along the way: more files than partitions.
  EXPECT_GT(files.size(), static_cast<size_t>(kDays));

  // With room for every file, each partition keeps one, and Close finishes them one at
  // a time.
  o.fanout_memory_budget_bytes = 1LL << 30;
  o.operation_id = "op2";
  ASSERT_OK_AND_ASSIGN(writer, MakeFanoutWriter(o));
  for (int round = 0; round < 4; ++round) ASSERT_OK(writer->Write(*batch(round)));
  EXPECT_GT(writer->MemoryBytes(), kBudget);
  ASSERT_OK_AND_ASSIGN(files, writer->Close());
  EXPECT_EQ(files.size(), static_cast<size_t>(kDays));
  EXPECT_EQ(TotalRecords(files), int64_t{4} * kDays * kRowsPerDay);
}

TEST_F(PartitionedWriterTest, InFlightFilesAreDeletedOnTerminationUnlessSealed) {
  InFlightFiles files;  // the process's own set is left alone: Terminate cannot be undone
  auto touch = [&](const std::string& path) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    ASSERT_OK(io_->NewOutputFile(path).status());
  };
  const std::string a = dir_.path() + "/a.parquet", b = dir_.path() + "/b.parquet";
  const std::string c = dir_.path() + "/c.parquet";
  const int first = 1, second = 2;
  for (const std::string& path : {a, b}) {
    ASSERT_OK(files.Add(&first, io_, path));
    touch(path);
  }
  ASSERT_OK(files.Add(&second, io_, c));
  touch(c);
  files.Seal(&second);  // its commit may reference it now
  EXPECT_EQ(files.size(), 2u);
  // Files another process wrote for an operation whose commit has not begun, found by the
  // operation id in their names at any depth; another operation's stay.
  const std::string theirs = data_dir() + "/x=1/y=2/00003-0-opA-00001.parquet";
  const std::string sealed = data_dir() + "/x=1/00003-0-opB-00001.parquet";
  const std::string other = data_dir() + "/x=1/00003-0-opC-00001.parquet";
  for (const std::string& path : {theirs, sealed, other}) touch(path);
  OutputFileFactory factory(data_dir(), 3, 0, "opA");
  const std::string named = factory.NewDataFilePath("x=1");
  EXPECT_TRUE(OutputFileFactory::NamedFor(std::filesystem::path(named).filename().string(), "opA"));
  EXPECT_FALSE(OutputFileFactory::NamedFor(std::filesystem::path(named).filename().string(), "op"));
  files.AddOperation("opA", io_, data_dir());
  files.AddOperation("opB", io_, data_dir());
  files.SealOperation("opB");

  EXPECT_EQ(files.Terminate(), 3);
  for (const std::string& path : {a, b, theirs}) EXPECT_FALSE(*io_->Exists(path)) << path;
  for (const std::string& path : {c, sealed, other}) EXPECT_TRUE(*io_->Exists(path)) << path;
  EXPECT_THAT(files.Add(&first, io_, dir_.path() + "/d.parquet"),
              IsErrorWith(StatusCode::kCancelled, "terminating"));
}

// Creations that overlap without pause (each holds its shared lock until its file exists)
// do not keep Terminate waiting: once it begins, new ones are refused, and it runs as soon
// as the ones under way are done.
TEST_F(PartitionedWriterTest, TerminateIsNotHeldOffByAStreamOfFileCreations) {
  InFlightFiles files;
  const int owner = 1;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> created{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int64_t i = 0; !stop.load(); ++i) {
        const std::string path = fmt::format("{}/w{}-{}.parquet", dir_.path(), t, i);
        Result<std::shared_lock<std::shared_mutex>> creating = files.Add(&owner, io_, path);
        if (!creating.ok()) continue;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // "creating the file"
        created.fetch_add(1);
        files.Forget(path);
      }
    });
  }
  while (created.load() < 20) std::this_thread::yield();
  // Terminate on its own thread, so that a regression fails here instead of hanging.
  std::atomic<bool> terminated{false};
  std::atomic<int64_t> created_by_then{0};
  std::thread terminator([&] {
    files.Terminate();
    created_by_then.store(created.load());
    terminated.store(true);
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!terminated.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(terminated.load()) << "Terminate waited 5 s behind new file creations";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stop.store(true);
  for (std::thread& w : writers) w.join();
  terminator.join();
  EXPECT_EQ(created.load(), created_by_then.load()) << "a file was created after Terminate";
}

// Once Terminate has begun, a writer refused a new file aborts and may delete its other
// files itself before Terminate gets to them: those count as deleted (each once), while a
// file handed to its caller does not.
TEST_F(PartitionedWriterTest, FilesTheirWritersDeleteDuringTerminationAreCounted) {
  InFlightFiles files;
  const int owner = 1;
  const std::string creating_path = dir_.path() + "/creating.parquet";
  const std::string deleted = dir_.path() + "/deleted.parquet";
  const std::string handed_on = dir_.path() + "/handed_on.parquet";
  ASSERT_OK(files.Add(&owner, io_, deleted));
  ASSERT_OK(files.Add(&owner, io_, handed_on));
  // A creation under way holds Terminate off until its file exists.
  ASSERT_OK_AND_ASSIGN(std::shared_lock<std::shared_mutex> creating,
                       files.Add(&owner, io_, creating_path));
  std::atomic<int> result{-1};
  std::thread terminator([&] { result.store(files.Terminate()); });
  // Terminate has begun once new files are refused.
  while (files.Add(&owner, io_, dir_.path() + "/probe.parquet").ok()) {
    files.Forget(dir_.path() + "/probe.parquet");
    std::this_thread::yield();
  }
  files.Deleted(deleted);
  files.Deleted(deleted);  // a second report of the same file is not counted again
  files.Forget(handed_on);
  creating.unlock();
  terminator.join();
  // `creating` deleted by Terminate, `deleted` by its writer.
  EXPECT_EQ(result.load(), 2);
}

TEST_F(PartitionedWriterTest, WritersKeepTheirFilesInFlightUntilHandedOn) {
  InFlightFiles& files = InFlightFiles::Process();
  const size_t before = files.size();
  auto batch = [&] {
    return Batch(schema_, {1, 2, 3}, {kTs, kTs + kDayMicros, kTs}, {"a", "b", "c"});
  };
  // Without an owner the files are the caller's once Close returns them.
  PartitionedWriterOptions o = Options(DaySpec());
  o.fanout_flush_rows = 1;
  ASSERT_OK_AND_ASSIGN(auto writer, MakeFanoutWriter(o));
  ASSERT_OK(writer->Write(*batch()));
  EXPECT_EQ(files.size(), before + 2);  // two open files, one per day
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> written, writer->Close());
  EXPECT_EQ(written.size(), 2u);
  EXPECT_EQ(files.size(), before);
  // A statement's stay until it seals them before its commit.
  const int statement = 0;
  o.in_flight_owner = &statement;
  o.operation_id = "op2";
  ASSERT_OK_AND_ASSIGN(writer, MakeFanoutWriter(o));
  ASSERT_OK(writer->Write(*batch()));
  ASSERT_OK(writer->Close().status());
  EXPECT_EQ(files.size(), before + 2);
  files.Seal(&statement);
  EXPECT_EQ(files.size(), before);
  // An aborted writer's files are deleted, and forgotten.
  o.operation_id = "op3";
  ASSERT_OK_AND_ASSIGN(writer, MakeFanoutWriter(o));
  ASSERT_OK(writer->Write(*batch()));
  EXPECT_EQ(files.size(), before + 2);
  ASSERT_OK(writer->Abort());
  EXPECT_EQ(files.size(), before);
}

TEST_F(PartitionedWriterTest, ClusteredAcceptsAnyKeyOrderAndRejectsReappearingPartitions) {
  const int64_t d0 = kTs, d1 = kTs + kDayMicros, d2 = kTs + 2 * kDayMicros;
  ASSERT_OK_AND_ASSIGN(auto writer, MakeClusteredWriter(Options(DaySpec())));
  // Descending days, a partition spanning two batches, NULLs as a cluster of their own.
  ASSERT_OK(writer->Write(*Batch(schema_, {1, 2, 3}, {d2, d2, d1}, {"a", "b", "c"})));
  ASSERT_OK(writer->Write(*Batch(schema_, {4, 5, 6}, {d1, std::nullopt, d0}, {"d", "e", "f"})));
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  ASSERT_EQ(files.size(), 4u);
  std::vector<std::pair<std::string, int64_t>> got;
  for (const DataFile& f : files) {
    std::string rel = f.file_path.substr(data_dir().size() + 1);
    got.emplace_back(rel.substr(0, rel.find('/')), f.record_count);
  }
  EXPECT_EQ(got, (std::vector<std::pair<std::string, int64_t>>{{"ts_day=2024-01-04", 2},
                                                               {"ts_day=2024-01-03", 2},
                                                               {"ts_day=null", 1},
                                                               {"ts_day=2024-01-02", 1}}));

  PartitionedWriterOptions o = Options(DaySpec());
  o.operation_id = "op2";
  ASSERT_OK_AND_ASSIGN(writer, MakeClusteredWriter(o));
  ASSERT_OK(writer->Write(*Batch(schema_, {1, 2}, {d0, d1}, {"a", "b"})));
  EXPECT_THAT(writer->Write(*Batch(schema_, {3}, {d0}, {"c"})),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "partition ts_day=2024-01-02 seen again after it was closed: input is "
                          "not clustered by partition"));
  // Nothing of the failed write is left, and the writer stays failed.
  for (const std::string& f : FilesUnder(data_dir())) {
    EXPECT_EQ(f.find("op2"), std::string::npos) << f;
  }
  EXPECT_THAT(writer->Close(), IsError(StatusCode::kInvalidArgument));
}

TEST_F(PartitionedWriterTest, RollsAtTheTargetFileSize) {
  std::vector<std::optional<int64_t>> ids, ts;
  std::vector<std::optional<std::string>> names;
  for (int i = 0; i < 5000; ++i) {
    ids.push_back(i);
    ts.push_back(kTs);
    names.push_back("n" + std::to_string(i));
  }
  // A 1-byte target closes a file after every slice: 1024-row probes, then the rest.
  ASSERT_OK_AND_ASSIGN(auto writer, MakeUnpartitionedWriter(
                                        Options(nullptr, {{"write.target-file-size-bytes", "1"}})));
  ASSERT_OK(writer->Write(*Batch(schema_, ids, ts, names)));
  ASSERT_OK(writer->Write(*Batch(schema_, {1, 2}, {kTs, kTs}, {"x", "y"})));
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  std::vector<int64_t> counts;
  for (const DataFile& f : files) {
    counts.push_back(f.record_count);
    EXPECT_EQ(f.file_path.rfind(data_dir() + "/00007-42-op-", 0), 0u) << f.file_path;
    EXPECT_TRUE(f.partition.empty());
  }
  EXPECT_EQ(counts, (std::vector<int64_t>{1024, 1024, 1024, 1024, 904, 2}));
  EXPECT_EQ(FilesUnder(data_dir()).size(), 6u);

  // A moderate target gives files near it, and every row lands once.
  PartitionedWriterOptions o =
      Options(DaySpec(), {{"write.target-file-size-bytes", "50000"},
                          {"write.parquet.compression-codec", "uncompressed"}});
  o.operation_id = "op2";
  ASSERT_OK_AND_ASSIGN(writer, MakeFanoutWriter(o));
  for (int k = 0; k < 4; ++k) ASSERT_OK(writer->Write(*Batch(schema_, ids, ts, names)));
  ASSERT_OK_AND_ASSIGN(files, writer->Close());
  EXPECT_GT(files.size(), 4u);
  EXPECT_EQ(TotalRecords(files), 20000);
  for (size_t i = 0; i < files.size(); ++i) {
    // Slices are sized to reach the target, so a file overshoots by little.
    EXPECT_LT(files[i].file_size_in_bytes, 62500) << files[i].file_path;
    if (i + 1 < files.size()) {
      EXPECT_GE(files[i].file_size_in_bytes, 40000) << files[i].file_path;
    }
  }
}

TEST_F(PartitionedWriterTest, RequiredViolationsAbortEveryFile) {
  for (bool fanout : {true, false}) {
    PartitionedWriterOptions o = Options(DaySpec());
    o.operation_id = fanout ? "fan" : "clu";
    o.fanout_flush_rows = 1;  // rows reach their files at once, so there is something to abort
    auto writer = fanout ? MakeFanoutWriter(o) : MakeClusteredWriter(o);
    ASSERT_OK(writer);
    ASSERT_OK((*writer)->Write(*Batch(schema_, {1, 2}, {kTs, kTs + kDayMicros}, {"a", "b"})));
    EXPECT_FALSE(FilesUnder(data_dir()).empty());
    EXPECT_THAT((*writer)->Write(*Batch(schema_, {3, std::nullopt}, {kTs, kTs}, {"c", "d"})),
                IsErrorWith(StatusCode::kConstraint, "NULL value in required column 'id'"));
    EXPECT_EQ(FilesUnder(data_dir()), std::vector<std::string>{}) << fanout;
  }
  // Unpartitioned, on the first batch.
  ASSERT_OK_AND_ASSIGN(auto writer, MakeUnpartitionedWriter(Options(nullptr)));
  EXPECT_THAT(writer->Write(*Batch(schema_, {std::nullopt}, {kTs}, {"c"})),
              IsError(StatusCode::kConstraint));
  EXPECT_EQ(FilesUnder(data_dir()), std::vector<std::string>{});
}

TEST_F(PartitionedWriterTest, AbortDeletesClosedAndOpenFiles) {
  PartitionedWriterOptions o = Options(DaySpec(), {{"write.target-file-size-bytes", "1"}});
  o.fanout_flush_rows = 1;  // rows reach their files at once, so there is something to abort
  ASSERT_OK_AND_ASSIGN(auto writer, MakeFanoutWriter(o));
  std::vector<std::optional<int64_t>> ids, ts;
  std::vector<std::optional<std::string>> names;
  for (int i = 0; i < 1500; ++i) {
    ids.push_back(i);
    ts.push_back(i % 2 == 0 ? kTs : kTs + kDayMicros);
    names.push_back("x");
  }
  ASSERT_OK(writer->Write(*Batch(schema_, ids, ts, names)));
  EXPECT_EQ(FilesUnder(data_dir()).size(), 2u);
  ASSERT_OK(writer->Abort());
  EXPECT_EQ(FilesUnder(data_dir()), std::vector<std::string>{});
  ASSERT_OK(writer->Abort());
  EXPECT_THAT(writer->Write(*Batch(schema_, {1}, {kTs}, {"x"})),
              IsError(StatusCode::kInvalidArgument));

  // A writer dropped without Close leaves nothing behind either.
  o.operation_id = "op2";
  o.properties.target_file_size_bytes = 512LL << 20;
  {
    ASSERT_OK_AND_ASSIGN(auto dropped, MakeFanoutWriter(o));
    ASSERT_OK(dropped->Write(*Batch(schema_, {1}, {kTs}, {"x"})));
    EXPECT_EQ(FilesUnder(data_dir()).size(), 1u);
  }
  EXPECT_EQ(FilesUnder(data_dir()), std::vector<std::string>{});
}

TEST_F(PartitionedWriterTest, NestedSourcePartitionsAndFilesRoundTripThroughManifests) {
  ASSERT_OK_AND_ASSIGN(
      auto spec,
      PartitionSpec::Make(*schema_, 2,
                          {PartitionField{5, 1000, "s_x", Transform::Identity()},
                           PartitionField{3, 1001, "name_trunc", Transform::Truncate(1)}}));
  ASSERT_OK_AND_ASSIGN(auto writer, MakeFanoutWriter(Options(spec)));
  auto batch = *RecordBatch::Make(
      schema_->columns(), 4,
      {I64s({1, 2, 3, 4}), Tstz({kTs, kTs, kTs, kTs}), Strs({"ab", "ac", "b", "ad"}),
       StructOfX(schema_, {1, 1, 2, 9}, {false, false, false, true})});
  ASSERT_OK(writer->Write(*batch));
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  ASSERT_EQ(files.size(), 3u);
  std::map<std::string, int64_t> counts;
  for (const DataFile& f : files) {
    std::string rel = f.file_path.substr(data_dir().size() + 1);
    counts[rel.substr(0, rel.rfind('/'))] = f.record_count;
  }
  EXPECT_EQ(counts, (std::map<std::string, int64_t>{{"s_x=1/name_trunc=a", 2},
                                                    {"s_x=2/name_trunc=b", 1},
                                                    {"s_x=null/name_trunc=a", 1}}));

  ASSERT_OK_AND_ASSIGN(TypePtr ptype, spec->PartitionType(*schema_));
  std::vector<DataFilePtr> ptrs;
  for (const DataFile& f : files) ptrs.push_back(std::make_shared<const DataFile>(f));
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeDataFiles(ptrs, ptype));
  ASSERT_OK_AND_ASSIGN(auto decoded, DecodeDataFiles(bytes, ptype, 2));
  ASSERT_EQ(decoded.size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const DataFile& a = files[i];
    const DataFile& b = *decoded[i];
    EXPECT_EQ(b.file_path, a.file_path);
    EXPECT_EQ(b.spec_id, 2);
    ASSERT_EQ(b.partition.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      EXPECT_EQ(b.partition[k].is_null(), a.partition[k].is_null());
      if (!a.partition[k].is_null()) {
        EXPECT_EQ(b.partition[k].value(), a.partition[k].value());
      }
    }
    EXPECT_EQ(b.record_count, a.record_count);
    EXPECT_EQ(b.file_size_in_bytes, a.file_size_in_bytes);
    EXPECT_EQ(b.column_sizes, a.column_sizes);
    EXPECT_EQ(b.value_counts, a.value_counts);
    EXPECT_EQ(b.null_value_counts, a.null_value_counts);
    EXPECT_EQ(b.nan_value_counts, a.nan_value_counts);
    EXPECT_EQ(b.lower_bounds, a.lower_bounds);
    EXPECT_EQ(b.upper_bounds, a.upper_bounds);
    EXPECT_EQ(b.split_offsets, a.split_offsets);
  }
}

TEST_F(PartitionedWriterTest, ParallelWritersNeverCollide) {
  PartitionedWriterOptions a = Options(DaySpec());
  PartitionedWriterOptions b = Options(DaySpec());
  b.writer_id = 8;
  ASSERT_OK_AND_ASSIGN(auto wa, MakeFanoutWriter(a));
  ASSERT_OK_AND_ASSIGN(auto wb, MakeFanoutWriter(b));
  ASSERT_OK(wa->Write(*Batch(schema_, {1}, {kTs}, {"x"})));
  ASSERT_OK(wb->Write(*Batch(schema_, {2}, {kTs}, {"y"})));
  ASSERT_OK_AND_ASSIGN(auto fa, wa->Close());
  ASSERT_OK_AND_ASSIGN(auto fb, wb->Close());
  ASSERT_EQ(fa.size(), 1u);
  ASSERT_EQ(fb.size(), 1u);
  EXPECT_EQ(fa[0].file_path, data_dir() + "/ts_day=2024-01-02/00007-42-op-00001.parquet");
  EXPECT_EQ(fb[0].file_path, data_dir() + "/ts_day=2024-01-02/00008-42-op-00001.parquet");
  EXPECT_EQ(FilesUnder(data_dir()).size(), 2u);
}

TEST_F(PartitionedWriterTest, OptionsFromTableMetadata) {
  NewTableOptions t;
  t.schema = schema_;
  t.spec = DaySpec();
  t.location = dir_.path() + "/tbl";
  t.properties = {{"write.data.path", dir_.path() + "/elsewhere"},
                  {"write.metadata.metrics.default", "counts"}};
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr metadata, NewTableMetadata(t, 1700000000000));
  ASSERT_OK_AND_ASSIGN(
      PartitionedWriterOptions o,
      WriterOptionsForTable(*metadata, io_, {{"write.target-file-size-bytes", "1234"}}));
  EXPECT_EQ(o.properties.data_location, dir_.path() + "/elsewhere");
  EXPECT_EQ(o.properties.target_file_size_bytes, 1234);
  EXPECT_EQ(o.spec->fields().size(), 1u);
  o.operation_id = "op";
  ASSERT_OK_AND_ASSIGN(auto writer, MakePartitionedWriter(o, /*fanout=*/false));
  ASSERT_OK(writer->Write(*Batch(schema_, {1}, {kTs}, {"x"})));
  ASSERT_OK_AND_ASSIGN(auto files, writer->Close());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].file_path,
            dir_.path() + "/elsewhere/ts_day=2024-01-02/00000-0-op-00001.parquet");
  EXPECT_TRUE(files[0].lower_bounds.empty());  // counts only
  EXPECT_EQ(files[0].value_counts.at(1), 1);

  // A spec of void fields still writes a tuple of NULLs; no spec writes none.
  ASSERT_OK_AND_ASSIGN(
      auto void_spec,
      PartitionSpec::Make(*schema_, 3, {PartitionField{2, 1000, "ts_null", Transform::Void()}}));
  o.spec = void_spec;
  o.operation_id = "op2";
  ASSERT_OK_AND_ASSIGN(writer, MakePartitionedWriter(o, /*fanout=*/true));
  ASSERT_OK(writer->Write(*Batch(schema_, {1}, {kTs}, {"x"})));
  ASSERT_OK_AND_ASSIGN(files, writer->Close());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].spec_id, 3);
  ASSERT_EQ(files[0].partition.size(), 1u);
  EXPECT_TRUE(files[0].partition[0].is_null());
  EXPECT_NE(files[0].file_path.find("/ts_null=null/"), std::string::npos);
  EXPECT_THAT(MakeUnpartitionedWriter(o), IsError(StatusCode::kInvalidArgument));
  o.spec = nullptr;
  o.operation_id = "op3";
  ASSERT_OK_AND_ASSIGN(writer, MakePartitionedWriter(o, /*fanout=*/true));
  ASSERT_OK(writer->Write(*Batch(schema_, {1}, {kTs}, {"x"})));
  ASSERT_OK_AND_ASSIGN(files, writer->Close());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(files[0].partition.empty());
  EXPECT_EQ(files[0].file_path, dir_.path() + "/elsewhere/00000-0-op3-00001.parquet");
}

}  // namespace
}  // namespace floe::iceberg
