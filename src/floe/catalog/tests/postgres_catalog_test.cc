// The SQL catalog on PostgreSQL beyond what every test of sql_catalog_test.cc and
// catalog_behaviour_test.cc checks on both databases: catalogs opened from URIs and
// configuration files, appends whose commit loses its connection (committed once, and an
// unknown outcome deleting no file), 8 processes appending 25 times each through one
// catalog (200 snapshots in one line, every row once), and writers killed with SIGKILL in
// the middle of their appends leaving a readable table.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/catalog/catalog.h"
#include "floe/catalog/catalog_config.h"
#include "floe/catalog/postgres_backend.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/catalog/tests/catalog_test_internal.h"
#include "floe/catalog/tests/tcp_proxy.h"
#include "floe/iceberg/partitioned_writer.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/spec_text.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_scan.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"
#include "floe/testing/postgres_server.h"
#include "floe/testing/scoped_env.h"

namespace floe::catalog {
namespace {

namespace fs = std::filesystem;

using ::floe::catalog::testing::TcpProxy;
using ::floe::catalog::testing::TempDir;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::floe::testing::PostgresSchema;
using ::floe::testing::PostgresServer;
using ::floe::testing::ScopedEnv;
using ::testing::HasSubstr;
using ::testing::Not;

const TableIdentifier kTable{{"db"}, "events"};

// The table the appends go to: (id bigint not null, worker int not null), bucketed by id,
// with retries enough for many racing writers.
Status CreateEventsTable(Catalog& catalog) {
  FLOE_RETURN_NOT_OK(catalog.CreateNamespace({"db"}));
  FLOE_ASSIGN_OR_RAISE(auto schema,
                       iceberg::Schema::Make(0, {Field("id", Int64(), /*nullable=*/false, 1),
                                                 Field("worker", Int32(), /*nullable=*/false, 2)}));
  CreateTableRequest request;
  request.schema = schema;
  FLOE_ASSIGN_OR_RAISE(request.spec, iceberg::ParsePartitionSpecText("bucket(4, id)", *schema));
  request.properties = {{"commit.retry.num-retries", "500"},
                        {"commit.retry.min-wait-ms", "2"},
                        {"commit.retry.max-wait-ms", "50"},
                        {"write.metadata.previous-versions-max", "1000"}};
  return catalog.CreateTable(kTable, request).status();
}

// Writes rows first_id .. first_id + count - 1 of `worker` into data files and commits them
// as one append; returns the committed table.
Result<iceberg::Table> AppendRows(Catalog& catalog, int64_t first_id, int count, int32_t worker) {
  FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog.LoadTable(kTable));
  auto ids = MakeBuilder(Int64());
  auto workers = MakeBuilder(Int32());
  for (int i = 0; i < count; ++i) {
    FLOE_RETURN_NOT_OK(ids->AppendScalar(Scalar::I64(first_id + i)));
    FLOE_RETURN_NOT_OK(workers->AppendScalar(Scalar::I32(worker)));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr id_array, ids->Finish());
  FLOE_ASSIGN_OR_RAISE(ArrayPtr worker_array, workers->Finish());
  FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                       RecordBatch::Make(table.metadata->CurrentSchema()->columns(), count,
                                         {std::move(id_array), std::move(worker_array)}));
  FLOE_ASSIGN_OR_RAISE(auto options, iceberg::WriterOptionsForTable(*table.metadata, table.io));
  FLOE_ASSIGN_OR_RAISE(auto writer, iceberg::MakePartitionedWriter(options, /*fanout=*/true));
  FLOE_RETURN_NOT_OK(writer->Write(*batch));
  FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::DataFile> files, writer->Close());
  auto append = iceberg::MergeAppend::Make(catalog.TableOps(kTable));
  for (iceberg::DataFile& file : files) {
    append->AppendFile(std::make_shared<const iceberg::DataFile>(std::move(file)));
  }
  return append->Commit();
}

// Every row of the table's current snapshot: id -> worker, and how many rows there were.
struct ReadBack {
  std::map<int64_t, int32_t> workers;
  int64_t rows = 0;
};

Result<ReadBack> ReadAll(const iceberg::Table& table) {
  ReadBack out;
  FLOE_ASSIGN_OR_RAISE(auto scan, iceberg::TableScan::Make(table.metadata, table.io, {}));
  FLOE_ASSIGN_OR_RAISE(auto reader, iceberg::MakeTaskReader(table, *scan));
  FLOE_ASSIGN_OR_RAISE(auto tasks, scan->PlanFiles());
  for (const auto& task : tasks) {
    FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(task));
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
      if (batch == nullptr) break;
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        out.workers[batch->column(0)->Value<int64_t>(r)] = batch->column(1)->Value<int32_t>(r);
        ++out.rows;
      }
    }
  }
  return out;
}

// The snapshots of a table form one line from the current one down to the first, with
// sequence numbers n, n-1, ..., 1; returns n. Every snapshot added `rows_per_append`.
void ExpectOneLineOfAncestry(const iceberg::TableMetadata& metadata, int64_t rows_per_append,
                             int64_t* length) {
  *length = 0;
  std::map<int64_t, const iceberg::Snapshot*> by_id;
  for (const auto& snapshot : metadata.snapshots) by_id[snapshot.snapshot_id] = &snapshot;
  const iceberg::Snapshot* current = metadata.CurrentSnapshot();
  ASSERT_NE(current, nullptr);
  int64_t expected_sequence = static_cast<int64_t>(metadata.snapshots.size());
  std::set<int64_t> seen;
  for (const iceberg::Snapshot* s = current; s != nullptr;) {
    ASSERT_TRUE(seen.insert(s->snapshot_id).second) << "a cycle at " << s->snapshot_id;
    EXPECT_EQ(s->sequence_number, expected_sequence) << "snapshot " << s->snapshot_id;
    EXPECT_EQ(s->summary.at("added-records"), std::to_string(rows_per_append));
    --expected_sequence;
    if (!s->parent_snapshot_id.has_value()) break;
    auto parent = by_id.find(*s->parent_snapshot_id);
    ASSERT_NE(parent, by_id.end()) << "the parent of " << s->snapshot_id << " is missing";
    s = parent->second;
  }
  EXPECT_EQ(seen.size(), metadata.snapshots.size()) << "snapshots off the main line";
  *length = static_cast<int64_t>(seen.size());
}

class PostgresCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(schema_, PostgresSchema::Make());
    warehouse_ = dir_.path() + "/wh";
  }

  TempDir dir_;
  std::unique_ptr<PostgresSchema> schema_;
  std::string warehouse_;
};

// ---------------------------------------------------------------------------------------
// Opening
// ---------------------------------------------------------------------------------------

TEST_F(PostgresCatalogTest, OpensFromEachUriForm) {
  PostgresServer& server = schema_->server();
  const std::string search_path = "options=-csearch_path%3D" + schema_->name();
  ASSERT_OK_AND_ASSIGN(CatalogPtr made, OpenCatalog(schema_->uri(), warehouse_, "lake"));
  ASSERT_OK(made->CreateNamespace({"db"}));
  EXPECT_THAT(made->ToString(), HasSubstr("uri=postgresql://floe@127.0.0.1:"));
  EXPECT_THAT(made->ToString(), HasSubstr("warehouse=" + warehouse_));
  EXPECT_THAT(made->ToString(), Not(HasSubstr(PostgresServer::kPassword)));
  for (const std::string& uri :
       {fmt::format("postgresql+psycopg2://floe:{}@127.0.0.1:{}/{}?{}", PostgresServer::kPassword,
                    server.port(), PostgresServer::kDatabase, search_path),
        fmt::format("jdbc:postgresql://127.0.0.1:{}/{}?user=floe&password={}&currentSchema={}",
                    server.port(), PostgresServer::kDatabase, PostgresServer::kPassword,
                    schema_->name())}) {
    SCOPED_TRACE(uri);
    ASSERT_OK_AND_ASSIGN(CatalogPtr catalog, OpenCatalog(uri, warehouse_, "lake"));
    ASSERT_OK_AND_ASSIGN(auto namespaces, catalog->ListNamespaces());
    EXPECT_EQ(namespaces, (std::vector<Namespace>{{"db"}}));
    EXPECT_THAT(catalog->ToString(), Not(HasSubstr(PostgresServer::kPassword)));
  }
  // A relative warehouse is made absolute; none at all is an error.
  EXPECT_THAT(OpenCatalog(schema_->uri(), "", "lake"),
              IsErrorWith(StatusCode::kInvalidArgument, "a PostgreSQL catalog needs a warehouse"));
  EXPECT_THAT(OpenCatalog(schema_->uri(), "").status().message(),
              Not(HasSubstr(PostgresServer::kPassword)));
}

TEST_F(PostgresCatalogTest, OpensFromAConfigurationFile) {
  PostgresServer& server = schema_->server();
  ScopedEnv home("HOME", dir_.path());
  const std::string config = dir_.path() + "/floe.yaml";
  // The password from PGPASSWORD, none in the file; the type inferred from the uri.
  std::ofstream(config) << fmt::format(
      "catalog:\n"
      "  shared:\n"
      "    uri: postgresql://floe@127.0.0.1:{}/{}?options=-csearch_path%3D{}\n"
      "    warehouse: {}\n"
      "  java:\n"
      "    type: sql\n"
      "    uri: jdbc:postgresql://127.0.0.1:{}/{}?user=floe&currentSchema={}\n"
      "    warehouse: {}\n"
      "  nowhere:\n"
      "    type: sql\n"
      "    uri: postgresql://floe:hunter2@127.0.0.1:{}/{}\n",
      server.port(), PostgresServer::kDatabase, schema_->name(), warehouse_, server.port(),
      PostgresServer::kDatabase, schema_->name(), warehouse_, server.port(),
      PostgresServer::kDatabase);
  ScopedEnv file("FLOE_CONFIG", config);
  ScopedEnv password("PGPASSWORD", PostgresServer::kPassword);
  ASSERT_OK_AND_ASSIGN(std::optional<CatalogPtr> shared, ResolveCatalog("shared"));
  ASSERT_TRUE(shared.has_value());
  ASSERT_OK((*shared)->CreateNamespace({"db"}));
  EXPECT_EQ((*shared)->name(), "shared");
  ASSERT_OK_AND_ASSIGN(std::optional<CatalogPtr> java, ResolveCatalog("java"));
  ASSERT_TRUE(java.has_value());
  // Another catalog name in the same tables: its own namespaces.
  ASSERT_OK_AND_ASSIGN(auto namespaces, (*java)->ListNamespaces());
  EXPECT_TRUE(namespaces.empty());
  EXPECT_EQ(
      schema_->Sql("SELECT catalog_name, namespace FROM iceberg_namespace_properties").ValueOrDie(),
      (std::vector<std::vector<std::string>>{{"shared", "db"}}));
  Result<std::optional<CatalogPtr>> nowhere = ResolveCatalog("nowhere");
  EXPECT_THAT(nowhere, IsErrorWith(StatusCode::kInvalidArgument,
                                   "catalog.nowhere.warehouse is missing (a PostgreSQL catalog"));
  EXPECT_THAT(nowhere.status().message(), Not(HasSubstr("hunter2")));
}

// ---------------------------------------------------------------------------------------
// Lost connections during commits
// ---------------------------------------------------------------------------------------

class PostgresLostCommitTest : public PostgresCatalogTest {
 protected:
  void SetUp() override {
    PostgresCatalogTest::SetUp();
    ASSERT_OK_AND_ASSIGN(proxy_, TcpProxy::Start(schema_->server().port()));
    std::string uri = schema_->uri();
    const std::string from = fmt::format(":{}/", schema_->server().port());
    uri.replace(uri.find(from), from.size(), fmt::format(":{}/", proxy_->port()));
    PostgresOptions options;
    options.resolve_timeout = std::chrono::milliseconds(300);
    ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, OpenPostgresBackend(uri, options));
    SqlCatalogOptions catalog_options;
    catalog_options.warehouse = warehouse_;
    ASSERT_OK_AND_ASSIGN(
        catalog_,
        SqlCatalog::Make(std::move(backend), std::make_shared<io::LocalFileIO>(), catalog_options));
    ASSERT_OK(CreateEventsTable(*catalog_));
  }

  std::unique_ptr<TcpProxy> proxy_;
  std::shared_ptr<SqlCatalog> catalog_;
};

TEST_F(PostgresLostCommitTest, AnAppendLostAtItsCommitLandsOnce) {
  proxy_->CutAtNextCommit(TcpProxy::CommitCut::kAfterCommit);
  ASSERT_OK(AppendRows(*catalog_, 0, 10, 1));
  proxy_->CutAtNextCommit(TcpProxy::CommitCut::kBeforeCommit);
  ASSERT_OK(AppendRows(*catalog_, 10, 10, 2));
  EXPECT_EQ(proxy_->commit_cuts(), 2);
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog_->LoadTable(kTable));
  int64_t length = 0;
  ASSERT_NO_FATAL_FAILURE(ExpectOneLineOfAncestry(*table.metadata, 10, &length));
  EXPECT_EQ(length, 2);
  ASSERT_OK_AND_ASSIGN(ReadBack rows, ReadAll(table));
  EXPECT_EQ(rows.rows, 20);
  EXPECT_EQ(rows.workers.size(), 20u);
}

// No connection can tell whether the swap committed: the append fails with
// kCommitStateUnknown and deletes nothing it wrote, so that the table, which did move to the
// new metadata, reads whole.
TEST_F(PostgresLostCommitTest, AnUnknownOutcomeDeletesNothing) {
  ASSERT_OK(AppendRows(*catalog_, 0, 10, 1));
  ASSERT_OK_AND_ASSIGN(iceberg::Table before, catalog_->LoadTable(kTable));
  std::set<std::string> files_before;
  for (const auto& entry : fs::recursive_directory_iterator(warehouse_)) {
    if (entry.is_regular_file()) files_before.insert(entry.path().string());
  }
  proxy_->SetRefusing(true);
  proxy_->CutAtNextCommit(TcpProxy::CommitCut::kAfterCommit);
  Result<iceberg::Table> unknown = AppendRows(*catalog_, 10, 10, 2);
  EXPECT_THAT(unknown, IsErrorWith(StatusCode::kCommitStateUnknown, "commit to table db.events"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("kept"));
  proxy_->SetRefusing(false);
  // It did commit, and every file its metadata names is there.
  ASSERT_OK_AND_ASSIGN(iceberg::Table after, catalog_->LoadTable(kTable));
  EXPECT_NE(after.metadata_location, before.metadata_location);
  EXPECT_TRUE(fs::exists(after.metadata_location));
  int64_t length = 0;
  ASSERT_NO_FATAL_FAILURE(ExpectOneLineOfAncestry(*after.metadata, 10, &length));
  EXPECT_EQ(length, 2);
  ASSERT_OK_AND_ASSIGN(ReadBack rows, ReadAll(after));
  EXPECT_EQ(rows.rows, 20);
  // Nothing was deleted.
  for (const std::string& file : files_before) EXPECT_TRUE(fs::exists(file)) << file;
}

// ---------------------------------------------------------------------------------------
// Many processes
// ---------------------------------------------------------------------------------------

// The body of one appending process: this test binary started again by the tests below with
// FLOE_PG_CHILD_* set (and skipped otherwise). It opens the catalog from its URI and appends
// FLOE_PG_CHILD_APPENDS times FLOE_PG_CHILD_ROWS rows: ids from (worker * appends + k) * rows.
TEST(PostgresAppendChild, Append) {
  const char* uri = getenv("FLOE_PG_CHILD_URI");
  const char* warehouse = getenv("FLOE_PG_CHILD_WAREHOUSE");
  const char* worker = getenv("FLOE_PG_CHILD_WORKER");
  const char* appends = getenv("FLOE_PG_CHILD_APPENDS");
  const char* rows = getenv("FLOE_PG_CHILD_ROWS");
  if (uri == nullptr || warehouse == nullptr || worker == nullptr || appends == nullptr ||
      rows == nullptr) {
    GTEST_SKIP() << "runs only as a child of the PostgresCatalogTest process tests";
  }
  ASSERT_OK_AND_ASSIGN(CatalogPtr catalog, OpenCatalog(uri, warehouse));
  const int w = std::atoi(worker);
  const int n = std::atoi(appends);
  const int r = std::atoi(rows);
  for (int k = 0; k < n; ++k) {
    ASSERT_OK(AppendRows(*catalog, (static_cast<int64_t>(w) * n + k) * r, r, w));
  }
}

// Starts this binary as an appending child.
pid_t StartAppender(const std::string& uri, const std::string& warehouse, int worker, int appends,
                    int rows) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string w = std::to_string(worker);
  const std::string a = std::to_string(appends);
  const std::string r = std::to_string(rows);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    // A child outlives no test process that died.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    setenv("FLOE_PG_CHILD_URI", uri.c_str(), 1);
    setenv("FLOE_PG_CHILD_WAREHOUSE", warehouse.c_str(), 1);
    setenv("FLOE_PG_CHILD_WORKER", w.c_str(), 1);
    setenv("FLOE_PG_CHILD_APPENDS", a.c_str(), 1);
    setenv("FLOE_PG_CHILD_ROWS", r.c_str(), 1);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, STDOUT_FILENO);
    execl(self.c_str(), self.c_str(), "--gtest_filter=PostgresAppendChild.Append",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

TEST_F(PostgresCatalogTest, EightProcessesAppendingTwentyFiveTimesEachLoseNothing) {
  constexpr int kWorkers = 8;
  constexpr int kAppends = 25;
  constexpr int kRows = 10;
  ASSERT_OK_AND_ASSIGN(CatalogPtr catalog, OpenCatalog(schema_->uri(), warehouse_));
  ASSERT_OK(CreateEventsTable(*catalog));
  std::vector<pid_t> children;
  for (int w = 0; w < kWorkers; ++w) {
    pid_t pid = StartAppender(schema_->uri(), warehouse_, w, kAppends, kRows);
    ASSERT_GT(pid, 0);
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog->LoadTable(kTable));
  int64_t length = 0;
  ASSERT_NO_FATAL_FAILURE(ExpectOneLineOfAncestry(*table.metadata, kRows, &length));
  EXPECT_EQ(length, kWorkers * kAppends);
  EXPECT_EQ(table.metadata->CurrentSnapshot()->summary.at("total-records"),
            std::to_string(kWorkers * kAppends * kRows));
  ASSERT_OK_AND_ASSIGN(ReadBack rows, ReadAll(table));
  EXPECT_EQ(rows.rows, kWorkers * kAppends * kRows);
  ASSERT_EQ(rows.workers.size(), static_cast<size_t>(kWorkers * kAppends * kRows));
  for (const auto& [id, worker] : rows.workers) {
    EXPECT_EQ(worker, id / (kAppends * kRows)) << "id " << id;
  }
  EXPECT_EQ(rows.workers.begin()->first, 0);
  EXPECT_EQ(rows.workers.rbegin()->first, kWorkers * kAppends * kRows - 1);
}

TEST_F(PostgresCatalogTest, WritersKilledMidAppendLeaveAReadableTable) {
  constexpr int kKills = 6;
  constexpr int kRows = 10;
  constexpr int kAppends = 100000;  // more than a child gets to before it is killed
  ASSERT_OK_AND_ASSIGN(CatalogPtr catalog, OpenCatalog(schema_->uri(), warehouse_));
  ASSERT_OK(CreateEventsTable(*catalog));
  int64_t snapshots = 0;
  for (int k = 0; k < kKills; ++k) {
    SCOPED_TRACE(fmt::format("kill {}", k + 1));
    pid_t pid = StartAppender(schema_->uri(), warehouse_, k, kAppends, kRows);
    ASSERT_GT(pid, 0);
    // From start-up to many appends in: the kills land in every phase of an append.
    std::this_thread::sleep_for(std::chrono::milliseconds(120 + 67 * k));
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status)) << "the child ended before it was killed: " << status;
    ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog->LoadTable(kTable));
    if (table.metadata->CurrentSnapshot() == nullptr) continue;
    int64_t length = 0;
    ASSERT_NO_FATAL_FAILURE(ExpectOneLineOfAncestry(*table.metadata, kRows, &length));
    EXPECT_GE(length, snapshots);
    snapshots = length;
    ASSERT_OK_AND_ASSIGN(ReadBack rows, ReadAll(table));
    EXPECT_EQ(rows.rows, length * kRows);
    EXPECT_EQ(static_cast<int64_t>(rows.workers.size()), rows.rows) << "an id read twice";
    EXPECT_EQ(table.metadata->CurrentSnapshot()->summary.at("total-records"),
              std::to_string(rows.rows));
  }
  EXPECT_GT(snapshots, 0) << "no child committed before it was killed";
  // The killed writers hold nothing: an append goes through at once.
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(iceberg::Table last, AppendRows(*catalog, -kRows, kRows, -1));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  int64_t length = 0;
  ASSERT_NO_FATAL_FAILURE(ExpectOneLineOfAncestry(*last.metadata, kRows, &length));
  EXPECT_EQ(length, snapshots + 1);
}

}  // namespace
}  // namespace floe::catalog
