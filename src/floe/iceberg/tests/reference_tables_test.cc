// The reference tables: Iceberg tables Spark and pyiceberg write at test time
// (test/interop/reference/make_tables.py, into the directory FLOE_REFERENCE_TABLES names,
// with expected.json holding what the reference read). Read here through the library
// itself, below SQL: every Parquet, Avro and Puffin file they hold decodes; every snapshot's
// metadata, manifests and planned scan agree with what the reference recorded; deletion
// vectors and equality deletes carry what their manifests say.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/common/thread_pool.h"
#include "floe/format/avro/reader.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/format/puffin/puffin.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/table.h"
#include "floe/io/file.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The directory make_tables.py wrote (ctest's `reference_tables` fixture sets it).
fs::path Root() {
  const char* root = std::getenv("FLOE_REFERENCE_TABLES");
  return root == nullptr ? fs::path() : fs::path(root);
}

class ReferenceTablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = Root();
    ASSERT_FALSE(root_.empty()) << "FLOE_REFERENCE_TABLES is not set: run through ctest, which "
                                   "writes the tables first (test/interop/reference)";
    std::ifstream in(root_ / "expected.json");
    ASSERT_TRUE(in) << "no expected.json in " << root_;
    std::stringstream text;
    text << in.rdbuf();
    expected_ = json::parse(text.str());
    ASSERT_GE(expected_.size(), 20u);
    io_ = std::make_shared<io::LocalFileIO>();
  }

  // The table an entry of expected.json names.
  Table Open(const json& entry) {
    const std::string path = (root_ / entry["metadata"].get<std::string>()).string();
    Result<Table> table = OpenTable(path, io_);
    EXPECT_OK(table);
    return table.ok() ? *table : Table{};
  }

  const json& Entry(const std::string& group, const std::string& name) {
    for (const json& e : expected_) {
      if (e["group"] == group && e["table"] == name) return e;
    }
    ADD_FAILURE() << "no table " << group << "/" << name << " in expected.json";
    return expected_[0];
  }

  // Every file under the root with the extension.
  std::vector<fs::path> Files(const std::string& extension) const {
    std::vector<fs::path> out;
    for (const auto& e : fs::recursive_directory_iterator(root_)) {
      if (e.is_regular_file() && e.path().extension() == extension) out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // The live entries of a snapshot's manifests (data and delete files).
  std::vector<ManifestEntry> LiveEntries(const Table& table, const Snapshot& snapshot) {
    std::vector<ManifestEntry> out;
    Result<std::vector<ManifestFile>> manifests = ReadManifestList(*io_, snapshot.manifest_list);
    EXPECT_OK(manifests);
    if (!manifests.ok()) return out;
    for (const ManifestFile& m : *manifests) {
      Result<std::vector<ManifestEntry>> entries =
          ReadManifestSelfDescribed(*io_, m, ManifestReadOptions::Live());
      EXPECT_OK(entries);
      if (!entries.ok()) continue;
      if (m.added_files_count && m.existing_files_count) {
        EXPECT_EQ(static_cast<int64_t>(entries->size()),
                  *m.added_files_count + *m.existing_files_count)
            << m.manifest_path;
      }
      out.insert(out.end(), entries->begin(), entries->end());
    }
    (void)table;
    return out;
  }

  fs::path root_;
  json expected_;
  std::shared_ptr<io::LocalFileIO> io_;
};

// Every Parquet file (data, position and equality deletes) reads whole, in batches of any
// size, with as many rows as its footer says.
TEST_F(ReferenceTablesTest, EveryParquetFileReads) {
  const std::vector<fs::path> files = Files(".parquet");
  EXPECT_GE(files.size(), 150u);
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    for (int64_t batch_size : {int64_t{8192}, int64_t{7}}) {
      parquet::ReaderOptions options;
      options.batch_size = batch_size;
      ASSERT_OK_AND_ASSIGN(auto reader,
                           parquet::ParquetFileReader::OpenPath(path.string(), options));
      int64_t footer_rows = 0;
      for (const parquet::RowGroup& rg : reader->metadata().row_groups) {
        footer_rows += rg.num_rows;
      }
      ASSERT_OK_AND_ASSIGN(auto stream, reader->Read({}));
      int64_t rows = 0;
      while (true) {
        ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
        if (!batch) break;
        EXPECT_LE(batch->num_rows(), batch_size);
        for (const ArrayPtr& column : batch->columns()) ASSERT_OK(column->ValidateFull());
        rows += batch->num_rows();
      }
      EXPECT_EQ(rows, footer_rows);
      EXPECT_GT(rows, 0);
    }
  }
}

// Every Avro file (manifest lists and manifests, Java's deflate and pyiceberg's null
// codec) reads whole with the schema it carries.
TEST_F(ReferenceTablesTest, EveryAvroFileReadsWithItsOwnSchema) {
  const std::vector<fs::path> files = Files(".avro");
  EXPECT_GE(files.size(), 150u);
  std::set<std::string> codecs;
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<io::RandomAccessFile> file,
                         io::OpenLocalFile(path.string()));
    ASSERT_OK_AND_ASSIGN(auto reader, avro::AvroFileReader::Open(file));
    codecs.insert(reader->codec());
    ASSERT_OK_AND_ASSIGN(floe::Schema own, reader->FileSchema());
    ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(std::make_shared<floe::Schema>(own)));
    int64_t rows = 0;
    while (true) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
      if (!batch) break;
      for (const ArrayPtr& column : batch->columns()) ASSERT_OK(column->ValidateFull());
      rows += batch->num_rows();
    }
  }
  EXPECT_THAT(codecs, ::testing::IsSupersetOf({"deflate", "null"}));
}

// Each snapshot's metadata holds what the reference recorded, and its live data files'
// record counts add up to the summary's total-records.
TEST_F(ReferenceTablesTest, SnapshotsAndManifestsAgreeWithTheReference) {
  int snapshots = 0;
  for (const json& entry : expected_) {
    SCOPED_TRACE(entry["metadata"].get<std::string>());
    Table table = Open(entry);
    ASSERT_NE(table.metadata, nullptr);
    EXPECT_EQ(table.metadata->format_version, entry["format_version"].get<int>());
    ASSERT_TRUE(table.metadata->current_snapshot_id.has_value());
    EXPECT_EQ(*table.metadata->current_snapshot_id, entry["current_snapshot_id"].get<int64_t>());
    for (const json& s : entry["snapshots"]) {
      const Snapshot* snapshot = table.metadata->SnapshotById(s["snapshot_id"].get<int64_t>());
      ASSERT_NE(snapshot, nullptr) << s.dump();
      if (table.metadata->format_version >= 2) {
        EXPECT_EQ(snapshot->sequence_number, s["sequence_number"].get<int64_t>());
      }
      EXPECT_EQ(snapshot->operation(), s["operation"].get<std::string>());
      int64_t records = 0;
      for (const ManifestEntry& e : LiveEntries(table, *snapshot)) {
        if (e.data_file->content == FileContent::kData) records += e.data_file->record_count;
      }
      if (s["summary_total_records"].is_number()) {
        EXPECT_EQ(records, s["summary_total_records"].get<int64_t>()) << s.dump();
      }
      ++snapshots;
    }
  }
  EXPECT_GE(snapshots, 60);
}

// Every snapshot, planned and read through the library (deletes of every kind applied,
// old specs and schemas, name mapping), gives the rows the reference read there; grouped
// into parallel partitions it gives the same.
TEST_F(ReferenceTablesTest, EverySnapshotScansToTheReferenceRows) {
  for (const json& entry : expected_) {
    SCOPED_TRACE(entry["metadata"].get<std::string>());
    Table table = Open(entry);
    ASSERT_NE(table.metadata, nullptr);
    for (const json& s : entry["snapshots"]) {
      SCOPED_TRACE(s.dump());
      ScanOptions options;
      options.snapshot.snapshot_id = s["snapshot_id"].get<int64_t>();
      ASSERT_OK_AND_ASSIGN(auto scan, TableScan::Make(table.metadata, table.io, options));
      ASSERT_OK_AND_ASSIGN(auto reader, MakeTaskReader(table, *scan));
      ASSERT_OK_AND_ASSIGN(std::vector<ScanTaskGroup> groups, scan->PlanGroups(3));
      int64_t rows = 0;
      for (const ScanTaskGroup& group : groups) {
        ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(group));
        while (true) {
          ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
          if (!batch) break;
          rows += batch->num_rows();
        }
      }
      EXPECT_EQ(rows, s["expected_live_rows"].get<int64_t>());
    }
  }
}

// Planning with a thread pool gives the serial plan: the same tasks with the same deletes.
TEST_F(ReferenceTablesTest, ParallelPlanningEqualsSerialPlanning) {
  ASSERT_OK_AND_ASSIGN(auto pool, ThreadPool::Make(4));
  int with_deletes = 0;
  for (const json& entry : expected_) {
    SCOPED_TRACE(entry["metadata"].get<std::string>());
    Table table = Open(entry);
    ASSERT_NE(table.metadata, nullptr);
    for (const json& s : entry["snapshots"]) {
      ScanOptions options;
      options.snapshot.snapshot_id = s["snapshot_id"].get<int64_t>();
      ASSERT_OK_AND_ASSIGN(auto serial, TableScan::Make(table.metadata, table.io, options));
      options.pool = pool.get();
      ASSERT_OK_AND_ASSIGN(auto parallel, TableScan::Make(table.metadata, table.io, options));
      ASSERT_OK_AND_ASSIGN(auto a, serial->PlanFiles());
      ASSERT_OK_AND_ASSIGN(auto b, parallel->PlanFiles());
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].data_file->file_path, b[i].data_file->file_path);
        EXPECT_EQ(a[i].start, b[i].start);
        ASSERT_EQ(a[i].delete_files.size(), b[i].delete_files.size());
        for (size_t k = 0; k < a[i].delete_files.size(); ++k) {
          EXPECT_EQ(a[i].delete_files[k]->file_path, b[i].delete_files[k]->file_path);
        }
        with_deletes += !a[i].delete_files.empty();
      }
      // With deletes the planned row count is only an upper bound.
      ScanStatistics stats = serial->Statistics(a);
      if (stats.delete_file_count > 0) {
        EXPECT_FALSE(stats.row_count_exact);
      }
    }
  }
  EXPECT_GT(with_deletes, 0);
}

// A filter on a column under a transform plans only the files whose partition may hold
// it (the transform of the literal is Spark's), and those files hold the row.
TEST_F(ReferenceTablesTest, FiltersPruneToThePartitionsSparkWroteTheRowsInto) {
  struct Case {
    std::string table;
    ExpressionPtr filter;
    int64_t rows;
  };
  const std::vector<Case> cases = {
      {"transform_bucket", Expression::Make(Operation::kEq, "i", {Scalar::I32(122)}), 1},
      {"transform_bucket", Expression::Make(Operation::kEq, "l", {Scalar::I64(1000018)}), 1},
      {"transform_bucket", Expression::Make(Operation::kEq, "s", {Scalar::Str("str1-6")}), 1},
      {"transform_truncate", Expression::Make(Operation::kLt, "i", {Scalar::I32(0)}), 3},
      {"transform_truncate", Expression::Make(Operation::kStartsWith, "s", {Scalar::Str("str3")}),
       2},
      {"transform_day_identity", Expression::Make(Operation::kEq, "s", {Scalar::Str("str1-6")}), 1},
      {"eq_deletes_partitioned", Expression::Make(Operation::kEq, "cat", {Scalar::Str("a")}), 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.table + ": " + c.filter->ToString());
    Table table = Open(Entry("spark", c.table));
    ASSERT_NE(table.metadata, nullptr);
    ASSERT_OK_AND_ASSIGN(auto all, TableScan::Make(table.metadata, table.io, {}));
    ASSERT_OK_AND_ASSIGN(auto all_tasks, all->PlanFiles());
    ScanOptions options;
    options.filter = c.filter;
    ASSERT_OK_AND_ASSIGN(auto scan, TableScan::Make(table.metadata, table.io, options));
    ASSERT_OK_AND_ASSIGN(auto tasks, scan->PlanFiles());
    EXPECT_LT(tasks.size(), all_tasks.size());
    EXPECT_FALSE(tasks.empty());
    // The rows of the planned files that pass the filter (the residual is applied).
    ASSERT_OK_AND_ASSIGN(auto reader, MakeTaskReader(table, *scan));
    int64_t rows = 0;
    for (const FileScanTask& task : tasks) {
      ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(task));
      while (true) {
        ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
        if (!batch) break;
        rows += batch->num_rows();
      }
    }
    EXPECT_EQ(rows, c.rows);
  }
}

// Snapshots chosen by id, ref (a tag and a branch), and time; a pinned snapshot reads
// with its own schema (the evolved table's first snapshot had `name` and `gone`).
TEST_F(ReferenceTablesTest, SnapshotSelectionAndPinnedSchemas) {
  Table travel = Open(Entry("spark", "travel"));
  ASSERT_NE(travel.metadata, nullptr);
  const TableMetadata& md = *travel.metadata;
  ASSERT_EQ(md.snapshots.size(), 6u);
  ScanOptions tag;
  tag.snapshot.ref = "three_appends";
  ASSERT_OK_AND_ASSIGN(auto scan, TableScan::Make(travel.metadata, travel.io, tag));
  EXPECT_EQ(scan->snapshot()->snapshot_id, md.snapshots[3].snapshot_id);
  ScanOptions at;
  at.snapshot.as_of_timestamp_ms = md.snapshots[1].timestamp_ms;
  ASSERT_OK_AND_ASSIGN(scan, TableScan::Make(travel.metadata, travel.io, at));
  EXPECT_EQ(scan->snapshot()->snapshot_id, md.snapshots[1].snapshot_id);
  ScanOptions before;
  before.snapshot.as_of_timestamp_ms = md.snapshots[0].timestamp_ms - 1;
  EXPECT_THAT(TableScan::Make(travel.metadata, travel.io, before),
              testing::IsError(StatusCode::kNotFound));
  ScanOptions unknown;
  unknown.snapshot.ref = "nope";
  EXPECT_THAT(TableScan::Make(travel.metadata, travel.io, unknown),
              testing::IsError(StatusCode::kNotFound));

  Table maint = Open(Entry("spark", "maint"));
  ASSERT_NE(maint.metadata, nullptr);
  ScanOptions branch;
  branch.snapshot.ref = "audit";
  ASSERT_OK_AND_ASSIGN(scan, TableScan::Make(maint.metadata, maint.io, branch));
  EXPECT_NE(scan->snapshot()->snapshot_id, *maint.metadata->current_snapshot_id);

  Table evolve = Open(Entry("spark", "evolve"));
  ASSERT_NE(evolve.metadata, nullptr);
  ScanOptions first;
  first.snapshot.snapshot_id = evolve.metadata->snapshots.front().snapshot_id;
  ASSERT_OK_AND_ASSIGN(scan, TableScan::Make(evolve.metadata, evolve.io, first));
  std::vector<std::string> names;
  for (const Field& f : scan->projected_schema()->fields()) names.push_back(f.name());
  EXPECT_THAT(names, ::testing::ElementsAre("id", "name", "f", "price", "gone", "tmp"));
  ASSERT_OK_AND_ASSIGN(scan, TableScan::Make(evolve.metadata, evolve.io, {}));
  names.clear();
  for (const Field& f : scan->projected_schema()->fields()) names.push_back(f.name());
  EXPECT_THAT(names, ::testing::ElementsAre("added", "id", "label", "f", "price", "tmp"));
}

// A nested field projected alone keeps its ancestors and reads Spark's values, NULL where
// any level above it is NULL.
TEST_F(ReferenceTablesTest, NestedFieldProjection) {
  Table table = Open(Entry("spark", "types"));
  ASSERT_NE(table.metadata, nullptr);
  ScanOptions options;
  options.projected_names = {"id", "st.inner.x"};
  ASSERT_OK_AND_ASSIGN(auto scan, TableScan::Make(table.metadata, table.io, options));
  const SchemaPtr& schema = scan->projected_schema();
  ASSERT_EQ(schema->num_fields(), 2);
  EXPECT_EQ(schema->fields()[1].name(), "st");
  ASSERT_OK_AND_ASSIGN(auto reader, MakeTaskReader(table, *scan));
  ASSERT_OK_AND_ASSIGN(std::vector<ScanTaskGroup> groups, scan->PlanGroups(1));
  std::map<int32_t, std::string> x_by_id;
  for (const ScanTaskGroup& group : groups) {
    ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(group));
    while (true) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
      if (!batch) break;
      const Array& st = *batch->column(1);
      ASSERT_EQ(st.num_children(), 1);  // only `inner`, itself only `x`
      const Array& inner = *st.child(0);
      ASSERT_EQ(inner.num_children(), 1);
      const Array& x = *inner.child(0);
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        const bool null = st.IsNull(i) || inner.IsNull(i) || x.IsNull(i);
        x_by_id[batch->column(0)->Value<int32_t>(i)] =
            null ? "NULL" : std::to_string(x.Value<double>(i));
      }
    }
  }
  EXPECT_THAT(x_by_id,
              ::testing::ElementsAre(::testing::Pair(1, "1.500000"), ::testing::Pair(2, "NULL"),
                                     ::testing::Pair(3, "NULL")));
}

// The v3 table's deletion vectors: each blob its manifest entry points at (by offset and
// size) is a vector of the recorded cardinality over rows of the data file it references,
// which the Puffin footer names too.
TEST_F(ReferenceTablesTest, DeletionVectorsAreWhatTheirManifestsSay) {
  const json& entry = Entry("spark", "mor_v3_dv");
  Table table = Open(entry);
  ASSERT_NE(table.metadata, nullptr);
  EXPECT_EQ(table.metadata->format_version, 3);
  std::vector<ManifestEntry> entries = LiveEntries(table, *table.metadata->CurrentSnapshot());
  std::map<std::string, int64_t> data_rows;
  for (const ManifestEntry& e : entries) {
    if (e.data_file->content == FileContent::kData) {
      data_rows[e.data_file->file_path] = e.data_file->record_count;
    }
  }
  int vectors = 0;
  for (const ManifestEntry& e : entries) {
    const DataFile& dv = *e.data_file;
    if (dv.content == FileContent::kData) continue;
    SCOPED_TRACE(dv.file_path);
    ASSERT_TRUE(dv.is_deletion_vector());
    ASSERT_TRUE(dv.referenced_data_file && dv.content_offset && dv.content_size_in_bytes);
    ASSERT_TRUE(data_rows.count(*dv.referenced_data_file)) << *dv.referenced_data_file;
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<io::RandomAccessFile> file,
                         io_->NewInputFile(dv.file_path));
    ASSERT_OK_AND_ASSIGN(auto puffin, puffin::PuffinReader::Open(file));
    const puffin::BlobMetadata* blob = nullptr;
    for (const puffin::BlobMetadata& b : puffin->metadata().blobs) {
      if (b.offset == *dv.content_offset) blob = &b;
    }
    ASSERT_NE(blob, nullptr);
    EXPECT_EQ(blob->type, puffin::kDeletionVectorBlobType);
    EXPECT_EQ(blob->length, *dv.content_size_in_bytes);
    EXPECT_EQ(blob->properties.at("referenced-data-file"), *dv.referenced_data_file);
    EXPECT_EQ(std::stoll(blob->properties.at("cardinality")), dv.record_count);
    ASSERT_OK_AND_ASSIGN(auto vector,
                         puffin::ReadDeletionVector(*file, *dv.content_offset,
                                                    *dv.content_size_in_bytes, dv.record_count));
    EXPECT_EQ(vector.Cardinality(), dv.record_count);
    ASSERT_TRUE(vector.Max().has_value());
    EXPECT_LT(*vector.Max(), data_rows[*dv.referenced_data_file]);
    // The same bytes read through the footer decode to the same set.
    ASSERT_OK_AND_ASSIGN(BufferPtr bytes, puffin->ReadBlob(*blob));
    ASSERT_OK_AND_ASSIGN(
        auto again, puffin::DeserializeDeletionVector(bytes->span(), file->path(), blob->offset,
                                                      dv.record_count));
    EXPECT_TRUE(again == vector);
    ++vectors;
  }
  EXPECT_GE(vectors, 10);
}

// Every Puffin file opens and every blob in it reads (decompressed when its footer says
// so): deletion vectors, and the table statistics compute_table_stats wrote (a theta
// sketch per column with its distinct-value estimate), which the metadata lists.
TEST_F(ReferenceTablesTest, EveryPuffinFileReads) {
  std::vector<fs::path> files = Files(".puffin");
  const std::vector<fs::path> stats = Files(".stats");
  EXPECT_GE(files.size(), 3u);  // the v3 table's merge-on-read changes wrote them
  ASSERT_EQ(stats.size(), 1u);
  files.insert(files.end(), stats.begin(), stats.end());
  int sketches = 0;
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<io::RandomAccessFile> file,
                         io::OpenLocalFile(path.string()));
    ASSERT_OK_AND_ASSIGN(auto puffin, puffin::PuffinReader::Open(file));
    EXPECT_FALSE(puffin->metadata().blobs.empty());
    for (const puffin::BlobMetadata& blob : puffin->metadata().blobs) {
      ASSERT_OK_AND_ASSIGN(BufferPtr bytes, puffin->ReadBlob(blob));
      if (blob.type == "apache-datasketches-theta-v1") {
        EXPECT_EQ(blob.fields.size(), 1u);
        EXPECT_GT(std::stoll(blob.properties.at("ndv")), 0);
        EXPECT_GT(bytes->size(), 0);
        ++sketches;
      } else {
        EXPECT_EQ(blob.type, puffin::kDeletionVectorBlobType);
      }
    }
  }
  EXPECT_EQ(sketches, 5);  // one per column of db.stats
  Table table = Open(Entry("spark", "stats"));
  ASSERT_NE(table.metadata, nullptr);
  ASSERT_EQ(table.metadata->statistics.size(), 1u);
  EXPECT_EQ(fs::path(table.metadata->statistics[0].statistics_path).filename(),
            stats[0].filename());
}

// Equality deletes committed through the Java API: their keys (field ids) and, in the
// partitioned table, the partition they are scoped to, as committed.
TEST_F(ReferenceTablesTest, EqualityDeletesCarryTheirKeysAndPartition) {
  auto deletes_of = [&](const std::string& name) {
    Table table = Open(Entry("spark", name));
    std::vector<DataFilePtr> out;
    if (table.metadata == nullptr) return out;
    for (const ManifestEntry& e : LiveEntries(table, *table.metadata->CurrentSnapshot())) {
      if (e.data_file->content == FileContent::kEqualityDeletes) out.push_back(e.data_file);
    }
    std::sort(out.begin(), out.end(), [](const DataFilePtr& a, const DataFilePtr& b) {
      return a->file_path < b->file_path;
    });
    return out;
  };
  std::vector<DataFilePtr> plain = deletes_of("eq_deletes");
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_THAT(plain[0]->equality_ids, ::testing::ElementsAre(1));
  EXPECT_THAT(plain[1]->equality_ids, ::testing::ElementsAre(1, 2));
  EXPECT_EQ(plain[0]->record_count, 3);
  std::vector<DataFilePtr> scoped = deletes_of("eq_deletes_partitioned");
  ASSERT_EQ(scoped.size(), 1u);
  EXPECT_THAT(scoped[0]->equality_ids, ::testing::ElementsAre(1));
  ASSERT_EQ(scoped[0]->partition.size(), 1u);
  EXPECT_EQ(scoped[0]->partition[0].get<std::string>(), "a");
}

}  // namespace
}  // namespace floe::iceberg
