// The catalog interface's free functions: namespace and table names, opening catalogs from
// URIs (and the embedded default), and the TableOperations adapter.

#include "floe/catalog/catalog.h"

#include <unistd.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/catalog/tests/catalog_test_internal.h"
#include "floe/testing/matchers.h"

namespace floe::catalog {
namespace {

using ::floe::catalog::testing::SqlRows;
using ::floe::catalog::testing::TempDir;
using ::floe::catalog::testing::TestSchema;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(NamespaceTest, ToStringJoinsLevelsWithDots) {
  EXPECT_EQ(NamespaceToString({"db"}), "db");
  EXPECT_EQ(NamespaceToString({"a", "b", "c"}), "a.b.c");
  EXPECT_EQ(NamespaceToString({}), "");
}

TEST(NamespaceTest, ParseSplitsAtDots) {
  ASSERT_OK_AND_ASSIGN(Namespace one, ParseNamespace("db"));
  EXPECT_EQ(one, (Namespace{"db"}));
  ASSERT_OK_AND_ASSIGN(Namespace three, ParseNamespace("a.b.c"));
  EXPECT_EQ(three, (Namespace{"a", "b", "c"}));
}

TEST(NamespaceTest, ParseRejectsEmptyLevels) {
  EXPECT_THAT(ParseNamespace(""), IsErrorWith(StatusCode::kInvalidArgument, "empty namespace"));
  EXPECT_THAT(ParseNamespace("a..b"), IsErrorWith(StatusCode::kInvalidArgument, "'a..b'"));
  EXPECT_THAT(ParseNamespace(".a"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseNamespace("a."), IsError(StatusCode::kInvalidArgument));
}

TEST(TableIdentifierTest, ParseSplitsAtTheLastDot) {
  ASSERT_OK_AND_ASSIGN(TableIdentifier id, TableIdentifier::Parse("db.events"));
  EXPECT_EQ(id.ns, (Namespace{"db"}));
  EXPECT_EQ(id.name, "events");
  ASSERT_OK_AND_ASSIGN(TableIdentifier nested, TableIdentifier::Parse("a.b.t"));
  EXPECT_EQ(nested.ns, (Namespace{"a", "b"}));
  EXPECT_EQ(nested.name, "t");
  EXPECT_EQ(nested.ToString(), "a.b.t");
  EXPECT_EQ((TableIdentifier{{"db"}, "events"}).ToString(), "db.events");
}

TEST(TableIdentifierTest, ParseRejectsMissingParts) {
  EXPECT_THAT(TableIdentifier::Parse("events"),
              IsErrorWith(StatusCode::kInvalidArgument, "has no namespace"));
  EXPECT_THAT(TableIdentifier::Parse("db."), IsErrorWith(StatusCode::kInvalidArgument, "ends"));
  EXPECT_THAT(TableIdentifier::Parse(".t"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(TableIdentifier::Parse("a..t"), IsError(StatusCode::kInvalidArgument));
}

TEST(TableIdentifierTest, OrdersByNamespaceThenName) {
  TableIdentifier a{{"a"}, "z"};
  TableIdentifier b{{"b"}, "a"};
  TableIdentifier b2{{"b"}, "b"};
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(b < b2);
  EXPECT_FALSE(b2 < b);
  EXPECT_EQ(b, (TableIdentifier{{"b"}, "a"}));
}

// Each URI form opens the same kind of catalog on the file it names.
TEST(OpenCatalogTest, AbsoluteSqliteUri) {
  TempDir dir;
  const std::string db = dir.path() + "/sub/cat.db";
  // A URI creates the database file it names, but not a missing directory (a mistyped path
  // would otherwise become a new, empty catalog).
  EXPECT_THAT(OpenCatalog("sqlite://" + db, "", "mine"),
              IsErrorWith(StatusCode::kNotFound, "catalog database " + db +
                                                     " cannot be created: directory " + dir.path() +
                                                     "/sub does not exist"));
  std::filesystem::create_directory(dir.path() + "/sub");
  // Opening without creating refuses a missing file.
  EXPECT_THAT(OpenCatalog("sqlite://" + db, "", "mine", /*create=*/false),
              IsErrorWith(StatusCode::kNotFound, "catalog database " + db + " does not exist"));
  EXPECT_FALSE(std::filesystem::exists(db));
  ASSERT_OK_AND_ASSIGN(CatalogPtr catalog, OpenCatalog("sqlite://" + db, "", "mine"));
  EXPECT_EQ(catalog->name(), "mine");
  EXPECT_TRUE(std::filesystem::exists(db));
  // The warehouse defaults to the catalog file's directory.
  auto* sql = dynamic_cast<SqlCatalog*>(catalog.get());
  ASSERT_NE(sql, nullptr);
  EXPECT_EQ(sql->warehouse(), dir.path() + "/sub");
  // The catalog file is in WAL mode and has both catalog tables.
  EXPECT_EQ(SqlRows(db, "PRAGMA journal_mode"), (std::vector<std::vector<std::string>>{{"wal"}}));
  EXPECT_EQ(SqlRows(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
            (std::vector<std::vector<std::string>>{{"iceberg_namespace_properties"},
                                                   {"iceberg_tables"}}));
}

TEST(OpenCatalogTest, FourSlashesAndPlainColonFormsAreAbsoluteToo) {
  TempDir dir;
  ASSERT_OK(OpenCatalog("sqlite:///" + dir.path() + "/four.db"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/four.db"));
  ASSERT_OK(OpenCatalog("sqlite:" + dir.path() + "/colon.db"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/colon.db"));
  ASSERT_OK(OpenCatalog("jdbc:sqlite:" + dir.path() + "/jdbc.db"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/jdbc.db"));
}

// Relative forms resolve against the working directory.
class WorkingDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_ = std::filesystem::current_path();
    std::filesystem::current_path(dir_.path());
  }
  void TearDown() override { std::filesystem::current_path(old_); }

  TempDir dir_;
  std::filesystem::path old_;
};

TEST_F(WorkingDirectoryTest, RelativeSqliteUris) {
  ASSERT_OK_AND_ASSIGN(CatalogPtr a, OpenCatalog("sqlite:rel.db", "wh"));
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/rel.db"));
  // A relative warehouse is made absolute.
  EXPECT_EQ(dynamic_cast<SqlCatalog*>(a.get())->warehouse(), dir_.path() + "/wh");
  std::filesystem::create_directory(dir_.path() + "/nested");
  ASSERT_OK(OpenCatalog("sqlite://nested/rel2.db"));
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/nested/rel2.db"));
}

TEST_F(WorkingDirectoryTest, DefaultCatalogLivesInWarehouse) {
  ASSERT_OK_AND_ASSIGN(CatalogPtr catalog, OpenDefaultCatalog());
  EXPECT_EQ(catalog->name(), "default");
  EXPECT_TRUE(std::filesystem::is_directory(dir_.path() + "/warehouse"));
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/warehouse/catalog.db"));
  EXPECT_EQ(dynamic_cast<SqlCatalog*>(catalog.get())->warehouse(), dir_.path() + "/warehouse");
  ASSERT_OK(catalog->CreateNamespace({"db"}));
  // Opening again finds what the first one wrote.
  ASSERT_OK_AND_ASSIGN(CatalogPtr again, OpenDefaultCatalog());
  ASSERT_OK_AND_ASSIGN(bool exists, again->NamespaceExists({"db"}));
  EXPECT_TRUE(exists);
}

TEST(OpenCatalogTest, FileUriWarehouseIsKeptAsAUri) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(CatalogPtr catalog, OpenCatalog("sqlite:" + dir.path() + "/c.db",
                                                       "file://" + dir.path() + "/wh"));
  ASSERT_OK(catalog->CreateNamespace({"db"}));
  CreateTableRequest request;
  request.schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog->CreateTable({{"db"}, "t"}, request));
  EXPECT_EQ(table.metadata->location, "file://" + dir.path() + "/wh/db/t");
  const std::string prefix = "file://" + dir.path() + "/wh/db/t/metadata/00000-";
  ASSERT_EQ(table.metadata_location.substr(0, prefix.size()), prefix);
  EXPECT_TRUE(
      std::filesystem::exists(table.metadata_location.substr(std::string("file://").size())));
  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, catalog->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata_location, table.metadata_location);
}

TEST(OpenCatalogTest, UnknownSchemeIsNotSupportedNamingIt) {
  EXPECT_THAT(OpenCatalog("mysql://user:hunter2@host/db"),
              IsErrorWith(StatusCode::kNotSupported,
                          "scheme 'mysql' is not supported (in 'mysql://user:***@host/db'; "
                          "supported: sqlite, postgresql, http, https, rest:http(s), hadoop)"));
  auto status = OpenCatalog("mysql://user:hunter2@host/db").status();
  EXPECT_THAT(status.message(), Not(HasSubstr("hunter2")));
  EXPECT_THAT(OpenCatalog("thrift://metastore:9083"),
              IsErrorWith(StatusCode::kNotSupported, "'thrift'"));
  EXPECT_THAT(OpenCatalog("catalog.db"), IsErrorWith(StatusCode::kNotSupported, "no scheme"));
}

// Without a server: what is wrong with the URI or the arguments is said before connecting,
// with no password shown (opening catalogs on a server: postgres_catalog_test.cc).
TEST(OpenCatalogTest, PostgresUrisNeedAWarehouseAndShowNoPassword) {
  for (const char* uri :
       {"postgresql://user:hunter2@host/db", "postgresql+psycopg2://user:hunter2@host/db",
        "jdbc:postgresql://host/db?user=user&password=hunter2"}) {
    SCOPED_TRACE(uri);
    Status status = OpenCatalog(uri).status();
    EXPECT_THAT(status,
                IsErrorWith(StatusCode::kInvalidArgument, "catalog URI 'postgresql://user@host"));
    EXPECT_THAT(status.message(), HasSubstr("a PostgreSQL catalog needs a warehouse"));
    EXPECT_THAT(status.message(), Not(HasSubstr("hunter2")));
  }
  Status malformed = OpenCatalog("postgresql://user:hunter2@host/db?bogus=1", "/w").status();
  EXPECT_THAT(malformed, IsErrorWith(StatusCode::kInvalidArgument, "invalid URI query parameter"));
  EXPECT_THAT(malformed.message(), Not(HasSubstr("hunter2")));
}

TEST(OpenCatalogTest, EmptyAndInMemoryDatabasesAreRejected) {
  EXPECT_THAT(OpenCatalog("sqlite:"), IsErrorWith(StatusCode::kInvalidArgument, "no database"));
  EXPECT_THAT(OpenCatalog("sqlite://"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(OpenCatalog("sqlite::memory:"), IsErrorWith(StatusCode::kNotSupported, "in-memory"));
}

TEST(OpenCatalogTest, UnopenableFileIsIOErrorNamingIt) {
  TempDir dir;
  // A directory where the database file should be.
  std::filesystem::create_directories(dir.path() + "/taken.db");
  EXPECT_THAT(OpenCatalog("sqlite:" + dir.path() + "/taken.db"),
              IsErrorWith(StatusCode::kIOError, dir.path() + "/taken.db"));
}

TEST(TableOpsTest, RefreshLoadsAndCommitCommitsThroughTheCatalog) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(CatalogPtr catalog, OpenCatalog("sqlite:" + dir.path() + "/c.db"));
  ASSERT_OK(catalog->CreateNamespace({"db"}));
  TableIdentifier id{{"db"}, "t"};
  iceberg::TableOperationsPtr ops = catalog->TableOps(id);
  EXPECT_EQ(ops->name(), "db.t");
  EXPECT_EQ(ops->io(), catalog->io());
  EXPECT_THAT(ops->Refresh(), IsErrorWith(StatusCode::kNotFound, "table db.t does not exist"));

  CreateTableRequest request;
  request.schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(iceberg::Table created, catalog->CreateTable(id, request));
  ASSERT_OK_AND_ASSIGN(iceberg::Table refreshed, ops->Refresh());
  EXPECT_EQ(refreshed.metadata_location, created.metadata_location);

  ASSERT_OK_AND_ASSIGN(
      iceberg::Table committed,
      ops->Commit({iceberg::TableRequirement::AssertTableUuid(created.metadata->table_uuid)},
                  {iceberg::update::SetProperties{{{"k", "v"}}}}));
  EXPECT_EQ(committed.metadata->Property("k"), "v");
  ASSERT_OK_AND_ASSIGN(iceberg::Table after, ops->Refresh());
  EXPECT_EQ(after.metadata_location, committed.metadata_location);
  EXPECT_EQ(after.metadata->Property("k"), "v");
  EXPECT_THAT(ops->Commit({iceberg::TableRequirement::AssertTableUuid("not-the-uuid")},
                          {iceberg::update::SetProperties{{{"k", "w"}}}}),
              IsError(StatusCode::kCommitConflict));
}

}  // namespace
}  // namespace floe::catalog
