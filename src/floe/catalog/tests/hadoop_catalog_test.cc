// The Hadoop catalog's own behaviour (what it shares with the SQL catalog is in
// catalog_behaviour_test.cc): the directory layout and version hint, readers stepping past
// a stale or missing hint, what is not supported (namespace properties, rename, other
// locations), dropping as removing the directory, warehouses written by Spark, and
// OpenCatalog's hadoop: URIs.

#include "floe/catalog/hadoop_catalog.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/catalog/tests/catalog_test_internal.h"
#include "floe/iceberg/table_location.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"

namespace floe::catalog {
namespace {

using ::floe::catalog::testing::FileNames;
using ::floe::catalog::testing::ReadHookFileIO;
using ::floe::catalog::testing::TempDir;
using ::floe::catalog::testing::TestSchema;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

class HadoopCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    warehouse_ = dir_.path() + "/wh";
    HadoopCatalogOptions options;
    options.name = "files";
    options.warehouse = warehouse_;
    ASSERT_OK_AND_ASSIGN(catalog_, HadoopCatalog::Make(options));
  }

  Result<iceberg::Table> Create(const TableIdentifier& id, const std::string& location = "") {
    CreateTableRequest request;
    request.schema = TestSchema();
    request.location = location;
    return catalog_->CreateTable(id, request);
  }

  Result<iceberg::Table> SetProperty(const std::string& key, const std::string& value) {
    return catalog_->CommitTable({{"db"}, "t"}, {},
                                 {iceberg::update::SetProperties{{{key, value}}}});
  }

  TempDir dir_;
  std::string warehouse_;
  std::shared_ptr<HadoopCatalog> catalog_;
};

TEST_F(HadoopCatalogTest, LayoutIsDirectoriesVersionFilesAndAHint) {
  EXPECT_TRUE(std::filesystem::is_directory(warehouse_));
  ASSERT_OK(catalog_->CreateNamespace({"db", "inner"}));
  EXPECT_TRUE(std::filesystem::is_directory(warehouse_ + "/db/inner"));
  EXPECT_THAT(catalog_->CreateNamespace({"db"}),
              IsErrorWith(StatusCode::kConstraint, "namespace db already exists"));
  ASSERT_OK_AND_ASSIGN(iceberg::Table v1, Create({{"db"}, "t"}));
  const std::string metadata_dir = warehouse_ + "/db/t/metadata";
  EXPECT_EQ(v1.metadata_location, metadata_dir + "/v1.metadata.json");
  EXPECT_EQ(v1.metadata->location, warehouse_ + "/db/t");
  EXPECT_THAT(FileNames(metadata_dir), ElementsAre("v1.metadata.json", "version-hint.text"));
  EXPECT_EQ(ReadText(metadata_dir + "/version-hint.text"), "1");
  ASSERT_OK_AND_ASSIGN(iceberg::Table v2, SetProperty("k", "v"));
  EXPECT_EQ(v2.metadata_location, metadata_dir + "/v2.metadata.json");
  EXPECT_EQ(ReadText(metadata_dir + "/version-hint.text"), "2");
  EXPECT_EQ(catalog_->TableLocation({{"db"}, "t"}), warehouse_ + "/db/t");
  EXPECT_EQ(catalog_->ToString(), "HadoopCatalog(name=files, warehouse=" + warehouse_ + ")");
}

TEST_F(HadoopCatalogTest, ReadersStepPastAStaleOrMissingHint) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}));
  ASSERT_OK(SetProperty("a", "1"));
  ASSERT_OK_AND_ASSIGN(iceberg::Table v3, SetProperty("b", "2"));
  const std::string hint = warehouse_ + "/db/t/metadata/version-hint.text";
  // A committer that wrote its file but not yet the hint.
  WriteText(hint, "1");
  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata_location, v3.metadata_location);
  // A commit from a stale hint still builds on the newest version.
  ASSERT_OK_AND_ASSIGN(iceberg::Table v4, SetProperty("c", "3"));
  EXPECT_THAT(v4.metadata_location, HasSubstr("/v4.metadata.json"));
  EXPECT_EQ(v4.metadata->Property("b"), "2");
  // No hint, or one that is not a number: the highest version.
  std::filesystem::remove(hint);
  ASSERT_OK_AND_ASSIGN(loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata_location, v4.metadata_location);
  WriteText(hint, "garbage");
  ASSERT_OK_AND_ASSIGN(loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata_location, v4.metadata_location);
  // A hint naming a version whose file is gone.
  WriteText(hint, "9");
  ASSERT_OK_AND_ASSIGN(loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata_location, v4.metadata_location);
}

TEST_F(HadoopCatalogTest, ReadersFindEveryNameFormOfTheNextVersion) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table v2, SetProperty("k", "v"));
  // Another writer's gzip-compressed v3 (named as the Java library names it) whose hint
  // is not written yet.
  const std::string v3 = warehouse_ + "/db/t/metadata/v3.gz.metadata.json";
  ASSERT_OK(iceberg::WriteTableMetadata(*v2.metadata, v3));
  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata_location, v3);
  ASSERT_OK_AND_ASSIGN(iceberg::Table v4, SetProperty("k", "w"));
  EXPECT_EQ(v4.metadata_location, warehouse_ + "/db/t/metadata/v4.metadata.json");
  ASSERT_EQ(v4.metadata->metadata_log.size(), 2u);
  EXPECT_EQ(v4.metadata->metadata_log[1].metadata_file, v3);
}

TEST_F(HadoopCatalogTest, NamespacesHaveNoProperties) {
  EXPECT_THAT(catalog_->CreateNamespace({"db"}, {{"owner", "ana"}}),
              IsErrorWith(StatusCode::kNotSupported, "keeps no namespace properties"));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/db"));
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(auto properties, catalog_->LoadNamespaceProperties({"db"}));
  EXPECT_EQ(properties, (std::map<std::string, std::string>{{"location", warehouse_ + "/db"}}));
  EXPECT_THAT(catalog_->UpdateNamespaceProperties({"db"}, {}, {{"a", "1"}}),
              IsErrorWith(StatusCode::kNotSupported, "namespace db"));
  EXPECT_THAT(catalog_->UpdateNamespaceProperties({"db"}, {"a"}, {}),
              IsError(StatusCode::kNotSupported));
  ASSERT_OK(catalog_->UpdateNamespaceProperties({"db"}, {}, {}));
}

TEST_F(HadoopCatalogTest, RenameIsNotSupported) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}));
  EXPECT_THAT(catalog_->RenameTable({{"db"}, "t"}, {{"db"}, "u"}),
              IsErrorWith(StatusCode::kNotSupported,
                          "cannot rename table db.t to db.u: hadoop catalog files does not "
                          "support renaming tables"));
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->TableExists({{"db"}, "t"}));
  EXPECT_TRUE(exists);
}

TEST_F(HadoopCatalogTest, ATableLivesAtItsPath) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  EXPECT_THAT(Create({{"db"}, "t"}, dir_.path() + "/elsewhere"),
              IsErrorWith(StatusCode::kInvalidArgument, "it cannot be created at"));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/db/t"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/elsewhere"));
  // Its own path, as a path with a trailing '/' or as a file: URI, is fine.
  ASSERT_OK(Create({{"db"}, "t"}, warehouse_ + "/db/t/"));
  ASSERT_OK(Create({{"db"}, "u"}, "file://" + warehouse_ + "/db/u"));
  EXPECT_THAT(catalog_->CommitTable({{"db"}, "t"}, {},
                                    {iceberg::update::SetLocation{dir_.path() + "/moved"}}),
              IsErrorWith(StatusCode::kInvalidArgument, "cannot move"));
  EXPECT_THAT(FileNames(warehouse_ + "/db/t/metadata"),
              ElementsAre("v1.metadata.json", "version-hint.text"));
}

TEST_F(HadoopCatalogTest, NamesThatAreNotDirectoryNamesAreRejected) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  EXPECT_THAT(Create({{"db"}, "a/b"}), IsErrorWith(StatusCode::kInvalidArgument, "'/'"));
  EXPECT_THAT(Create({{"db"}, ".hidden"}), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(Create({{"db"}, ".."}), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(catalog_->CreateNamespace({"a/b"}), IsErrorWith(StatusCode::kInvalidArgument, "'/'"));
  EXPECT_THAT(catalog_->CreateNamespace({".."}), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(FileNames(warehouse_), ElementsAre("db"));
}

TEST_F(HadoopCatalogTest, ATablesDirectoriesAreNotNamespaces) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}));
  std::filesystem::create_directories(warehouse_ + "/db/t/data/part=1");
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->NamespaceExists({"db", "t", "metadata"}));
  EXPECT_FALSE(exists);
  ASSERT_OK_AND_ASSIGN(exists, catalog_->NamespaceExists({"db", "t", "data"}));
  EXPECT_FALSE(exists);
  EXPECT_THAT(catalog_->ListNamespaces({"db", "t"}),
              IsErrorWith(StatusCode::kNotFound, "namespace db.t does not exist"));
  EXPECT_THAT(
      catalog_->CreateNamespace({"db", "t", "x"}),
      IsErrorWith(StatusCode::kConstraint, "cannot create namespace db.t.x: db.t is a table"));
  EXPECT_THAT(catalog_->CreateNamespace({"db", "t"}),
              IsErrorWith(StatusCode::kConstraint, "db.t is a table"));
  EXPECT_THAT(Create({{"db", "t"}, "x"}),
              IsErrorWith(StatusCode::kNotFound, "namespace db.t does not exist"));
  // A namespace's name is not free for a table.
  ASSERT_OK(catalog_->CreateNamespace({"db", "ns"}));
  EXPECT_THAT(Create({{"db"}, "ns"}),
              IsErrorWith(StatusCode::kConstraint, "namespace db.ns has that name"));
  ASSERT_OK_AND_ASSIGN(iceberg::Table t, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_THAT(catalog_->RegisterTable({{"db"}, "ns"}, t.metadata_location),
              IsErrorWith(StatusCode::kConstraint, "namespace db.ns has that name"));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/db/ns/metadata"));
  // Hidden directories and directories whose name holds a '.' are not listed.
  std::filesystem::create_directories(warehouse_ + "/db/.hidden");
  std::filesystem::create_directories(warehouse_ + "/db/a.b");
  ASSERT_OK_AND_ASSIGN(auto children, catalog_->ListNamespaces({"db"}));
  EXPECT_EQ(children, (std::vector<Namespace>{{"db", "ns"}}));
}

TEST_F(HadoopCatalogTest, DropNamespaceRefusesStrayFiles) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  WriteText(warehouse_ + "/db/notes.txt", "x");
  EXPECT_THAT(catalog_->DropNamespace({"db"}),
              IsErrorWith(StatusCode::kConstraint, "holds file notes.txt"));
  std::filesystem::remove(warehouse_ + "/db/notes.txt");
  ASSERT_OK(catalog_->DropNamespace({"db"}));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/db"));
}

TEST_F(HadoopCatalogTest, DropRemovesTheTableDirectory) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}));
  std::filesystem::create_directories(warehouse_ + "/db/t/data");
  WriteText(warehouse_ + "/db/t/data/a.parquet", "x");
  ASSERT_OK(catalog_->DropTable({{"db"}, "t"}));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/db/t"));
  // Nothing is left behind in the namespace, not even the renamed directory.
  EXPECT_TRUE(FileNames(warehouse_ + "/db").empty());
  ASSERT_OK(catalog_->DropNamespace({"db"}));
}

TEST_F(HadoopCatalogTest, RegisterCopiesTheMetadataFileAsVersionOne) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, Create({{"db"}, "t"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table registered,
                       catalog_->RegisterTable({{"db"}, "copy"}, table.metadata_location));
  EXPECT_EQ(registered.metadata_location, warehouse_ + "/db/copy/metadata/v1.metadata.json");
  EXPECT_EQ(ReadText(registered.metadata_location), ReadText(table.metadata_location));
  EXPECT_EQ(ReadText(warehouse_ + "/db/copy/metadata/version-hint.text"), "1");
  // The copy keeps the original's location (as the reference implementation does).
  EXPECT_EQ(registered.metadata->location, warehouse_ + "/db/t");
}

TEST_F(HadoopCatalogTest, CommitToATableDroppedMeanwhileIsNotFoundAndCreatesNothing) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}));
  auto hook_io = std::make_shared<ReadHookFileIO>();
  HadoopCatalogOptions options;
  options.warehouse = warehouse_;
  ASSERT_OK_AND_ASSIGN(auto hooked, HadoopCatalog::Make(options, hook_io));
  // Dropped after the commit found its base, before it read it.
  hook_io->before_metadata_read = [&] { ASSERT_OK(catalog_->DropTable({{"db"}, "t"})); };
  EXPECT_THAT(
      hooked->CommitTable({{"db"}, "t"}, {}, {iceberg::update::SetProperties{{{"k", "v"}}}}),
      IsErrorWith(StatusCode::kNotFound, "table db.t was dropped during the commit"));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/db/t"));
}

// Commits one property `<who>-<i>` per commit, retrying lost races; false on any other error.
bool CommitMany(Catalog& catalog, const std::string& who, int n) {
  for (int i = 0; i < n; ++i) {
    while (true) {
      auto result = catalog.CommitTable(
          {{"db"}, "t"}, {},
          {iceberg::update::SetProperties{{{fmt::format("{}-{}", who, i), "1"}}}});
      if (result.ok()) break;
      if (result.status().code() != StatusCode::kCommitConflict) {
        ADD_FAILURE() << result.status().ToString();
        return false;
      }
    }
  }
  return true;
}

// The body of one committer process: this test binary, started again by the test below with
// the FLOE_HADOOP_CHILD_* variables set (and skipped otherwise).
TEST(HadoopCatalogChildProcess, CommitMany) {
  const char* warehouse = getenv("FLOE_HADOOP_CHILD_WAREHOUSE");
  const char* who = getenv("FLOE_HADOOP_CHILD_WHO");
  if (warehouse == nullptr || who == nullptr) {
    GTEST_SKIP() << "runs only as a child of ConcurrentProcessesCommitEachChangeExactlyOnce";
  }
  HadoopCatalogOptions options;
  options.warehouse = warehouse;
  ASSERT_OK_AND_ASSIGN(auto catalog, HadoopCatalog::Make(options));
  EXPECT_TRUE(CommitMany(*catalog, who, 8));
}

TEST_F(HadoopCatalogTest, ConcurrentProcessesCommitEachChangeExactlyOnce) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  CreateTableRequest request;
  request.schema = TestSchema();
  request.properties = {{"write.metadata.previous-versions-max", "1000"}};
  ASSERT_OK(catalog_->CreateTable({{"db"}, "t"}, request));
  constexpr int kWriters = 4;
  constexpr int kCommits = 8;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const std::string who = fmt::format("w{}", w);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      setenv("FLOE_HADOOP_CHILD_WAREHOUSE", warehouse_.c_str(), 1);
      setenv("FLOE_HADOOP_CHILD_WHO", who.c_str(), 1);
      int devnull = open("/dev/null", O_WRONLY);
      if (devnull >= 0) dup2(devnull, STDOUT_FILENO);
      execl(self.c_str(), self.c_str(), "--gtest_filter=HadoopCatalogChildProcess.CommitMany",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog_->LoadTable({{"db"}, "t"}));
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kCommits; ++i) {
      EXPECT_EQ(table.metadata->Property(fmt::format("w{}-{}", w, i)), "1") << w << " " << i;
    }
  }
  const int total = kWriters * kCommits;
  EXPECT_EQ(table.metadata_location,
            fmt::format("{}/db/t/metadata/v{}.metadata.json", warehouse_, total + 1));
  ASSERT_EQ(table.metadata->metadata_log.size(), static_cast<size_t>(total));
  std::set<std::string> logged;
  for (const auto& entry : table.metadata->metadata_log) logged.insert(entry.metadata_file);
  EXPECT_EQ(logged.size(), static_cast<size_t>(total));
  // Every version once, the hint, and nothing else (no temporary file left behind).
  EXPECT_EQ(FileNames(warehouse_ + "/db/t/metadata").size(), static_cast<size_t>(total + 2));
}

// A warehouse written by Spark's Hadoop catalog (Iceberg 1.8.1): listed and loaded as is.
TEST(HadoopCatalogFixtureTest, SparkWarehouse) {
  const std::string warehouse =
      "../shared/fixtures/iceberg/duckdb-iceberg/data/persistent/equality_deletes/warehouse";
  if (!std::filesystem::exists(warehouse)) GTEST_FAIL() << "the fixtures are missing";
  HadoopCatalogOptions options;
  options.warehouse = warehouse;
  ASSERT_OK_AND_ASSIGN(auto catalog, HadoopCatalog::Make(options));
  ASSERT_OK_AND_ASSIGN(auto namespaces, catalog->ListNamespaces());
  EXPECT_EQ(namespaces, (std::vector<Namespace>{{"mydb"}}));
  ASSERT_OK_AND_ASSIGN(auto tables, catalog->ListTables({"mydb"}));
  EXPECT_EQ(tables, (std::vector<TableIdentifier>{{{"mydb"}, "mytable"},
                                                  {{"mydb"}, "mytable_partitioned"}}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog->LoadTable({{"mydb"}, "mytable"}));
  EXPECT_THAT(table.metadata_location, HasSubstr("/mydb/mytable/metadata/v7.metadata.json"));
  EXPECT_EQ(table.metadata->snapshots.size(), 6u);
  ASSERT_OK_AND_ASSIGN(table, catalog->LoadTable({{"mydb"}, "mytable_partitioned"}));
  EXPECT_THAT(table.metadata_location, HasSubstr("/v6.metadata.json"));
}

// A table whose metadata files are named "NNNNN-<uuid>.metadata.json" (Iceberg 1.8.1 with a
// version hint holding the name): read, but not committed to.
TEST(HadoopCatalogFixtureTest, MetadataFilesWithOtherNames) {
  const std::string warehouse = "../shared/fixtures/iceberg/duckdb-iceberg/data";
  if (!std::filesystem::exists(warehouse + "/persistent/uuid")) {
    GTEST_FAIL() << "the fixtures are missing";
  }
  HadoopCatalogOptions options;
  options.warehouse = warehouse;
  ASSERT_OK_AND_ASSIGN(auto catalog, HadoopCatalog::Make(options));
  ASSERT_OK_AND_ASSIGN(bool exists, catalog->TableExists({{"persistent"}, "uuid"}));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog->LoadTable({{"persistent"}, "uuid"}));
  EXPECT_THAT(table.metadata_location,
              HasSubstr("/uuid/metadata/00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json"));
  EXPECT_THAT(catalog->CommitTable({{"persistent"}, "uuid"}, {},
                                   {iceberg::update::SetProperties{{{"k", "v"}}}}),
              IsErrorWith(StatusCode::kNotSupported, "not named v<N>.metadata.json"));
  // A copy of it can be dropped.
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/db/u/metadata");
  std::filesystem::copy(warehouse + "/persistent/uuid/metadata", dir.path() + "/db/u/metadata");
  options.warehouse = dir.path();
  ASSERT_OK_AND_ASSIGN(catalog, HadoopCatalog::Make(options));
  ASSERT_OK(catalog->DropTable({{"db"}, "u"}));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/db/u"));
}

TEST(HadoopCatalogMakeTest, Options) {
  TempDir dir;
  HadoopCatalogOptions options;
  EXPECT_THAT(HadoopCatalog::Make(options),
              IsErrorWith(StatusCode::kInvalidArgument, "no warehouse directory"));
  for (const char* s3 : {"s3://bucket/wh", "s3a://bucket/wh", "s3n://bucket/wh"}) {
    options.warehouse = s3;
    EXPECT_THAT(HadoopCatalog::Make(options),
                IsErrorWith(StatusCode::kNotSupported, "S3, which has no atomic rename"));
  }
  options.warehouse = "gs://bucket/wh";
  EXPECT_THAT(HadoopCatalog::Make(options),
              IsErrorWith(StatusCode::kNotSupported, "not on the local file system"));
  options.warehouse = "file://" + dir.path() + "/uri/";
  ASSERT_OK_AND_ASSIGN(auto catalog, HadoopCatalog::Make(options));
  EXPECT_EQ(catalog->warehouse(), dir.path() + "/uri");
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() + "/uri"));
  WriteText(dir.path() + "/file", "x");
  options.warehouse = dir.path() + "/file";
  EXPECT_THAT(HadoopCatalog::Make(options),
              IsErrorWith(StatusCode::kIOError, dir.path() + "/file"));
  options.warehouse = dir.path();
  options.name = "";
  EXPECT_THAT(HadoopCatalog::Make(options), IsError(StatusCode::kInvalidArgument));
}

TEST(OpenCatalogTest, HadoopUris) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(CatalogPtr catalog, OpenCatalog("hadoop:" + dir.path() + "/wh", "", "fs"));
  EXPECT_EQ(catalog->name(), "fs");
  EXPECT_EQ(catalog->ToString(), "HadoopCatalog(name=fs, warehouse=" + dir.path() + "/wh)");
  ASSERT_OK(catalog->CreateNamespace({"db"}));
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() + "/wh/db"));
  ASSERT_OK_AND_ASSIGN(catalog, OpenCatalog("hadoop:", dir.path() + "/wh"));
  ASSERT_OK_AND_ASSIGN(bool exists, catalog->NamespaceExists({"db"}));
  EXPECT_TRUE(exists);
  EXPECT_THAT(OpenCatalog("hadoop:"), IsErrorWith(StatusCode::kInvalidArgument, "no warehouse"));
  EXPECT_THAT(OpenCatalog("hadoop:" + dir.path() + "/a", dir.path() + "/b"),
              IsErrorWith(StatusCode::kInvalidArgument, "was given too"));
}

}  // namespace
}  // namespace floe::catalog
