// The SQL catalog on SQLite and on PostgreSQL (every test runs on both): the stored rows
// (checked with plain SQL through the database's own client, column for column as the
// Iceberg JDBC catalog and pyiceberg lay them out), every Catalog method and its errors, the
// commit protocol (requirements, compare-and-set, metadata-file cleanup), purge, and the
// compare-and-set serialising committers in several threads and processes.

#include "floe/catalog/sql_catalog.h"
#include "floe/catalog/purge.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/catalog/sqlite_backend.h"
#include "floe/catalog/tests/catalog_test_internal.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/table_location.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"

namespace floe::catalog {
namespace {

using ::floe::catalog::testing::FileNames;
using ::floe::catalog::testing::TempDir;
using ::floe::catalog::testing::TestDatabase;
using ::floe::catalog::testing::TestSchema;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::SizeIs;
using Rows = std::vector<std::vector<std::string>>;
using Req = iceberg::TableRequirement;

// A LocalFileIO that runs a callback (once) just before it creates a metadata file: the
// moment between a commit's load and its compare-and-set, where a concurrent writer wins.
class HookFileIO final : public io::FileIO {
 public:
  std::function<void()> before_metadata_write;

  Result<std::unique_ptr<io::RandomAccessFile>> NewInputFile(
      const std::string& path) const override {
    return local_.NewInputFile(path);
  }
  Result<std::unique_ptr<io::OutputStream>> NewOutputFile(const std::string& path,
                                                          io::CreateMode mode) const override {
    if (before_metadata_write && iceberg::IsMetadataFileName(path)) {
      auto hook = std::move(before_metadata_write);
      const_cast<HookFileIO*>(this)->before_metadata_write = nullptr;
      hook();
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
  std::string ToString() const override { return "HookFileIO"; }

 private:
  io::LocalFileIO local_;
};

// The parameter names the database: "sqlite" or "postgres".
class SqlCatalogTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(db_, TestDatabase::Make(GetParam(), dir_.path()));
    warehouse_ = dir_.path() + "/wh";
    ASSERT_OK_AND_ASSIGN(catalog_, Open());
  }

  bool postgres() const { return db_->postgres(); }

  Result<std::shared_ptr<SqlCatalog>> Open(std::shared_ptr<const io::FileIO> io = nullptr,
                                           const std::string& name = "test") {
    FLOE_ASSIGN_OR_RAISE(SqlBackendPtr backend, db_->Open());
    SqlCatalogOptions options;
    options.name = name;
    options.uri = db_->uri();
    options.warehouse = warehouse_ + "/";
    if (io == nullptr) io = std::make_shared<io::LocalFileIO>();
    return SqlCatalog::Make(std::move(backend), std::move(io), options);
  }

  Result<iceberg::Table> Create(const TableIdentifier& id,
                                std::map<std::string, std::string> properties = {}) {
    CreateTableRequest request;
    request.schema = TestSchema();
    request.properties = std::move(properties);
    return catalog_->CreateTable(id, request);
  }

  std::string MetadataDir(const std::string& table) const {
    return warehouse_ + "/db/" + table + "/metadata";
  }

  Rows SqlRows(const std::string& sql) const { return db_->Rows(sql); }

  Rows TableRows() const {
    return SqlRows(
        "SELECT catalog_name, table_namespace, table_name, metadata_location, "
        "previous_metadata_location, iceberg_type FROM iceberg_tables "
        "ORDER BY catalog_name, table_namespace, table_name");
  }

  Rows PropertyRows() const {
    return SqlRows(
        "SELECT catalog_name, namespace, property_key, property_value "
        "FROM iceberg_namespace_properties ORDER BY catalog_name, namespace, property_key");
  }

  TempDir dir_;
  std::unique_ptr<TestDatabase> db_;
  std::string warehouse_;
  std::shared_ptr<SqlCatalog> catalog_;
};

INSTANTIATE_TEST_SUITE_P(Databases, SqlCatalogTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

// ---------------------------------------------------------------------------------------
// The stored layout
// ---------------------------------------------------------------------------------------

TEST_P(SqlCatalogTest, TablesHaveTheJdbcCatalogColumns) {
  if (!postgres()) {
    // cid, name, type, notnull, default, pk (position in the primary key).
    EXPECT_EQ(SqlRows("PRAGMA table_info(iceberg_tables)"),
              (Rows{{"0", "catalog_name", "VARCHAR(255)", "1", "NULL", "1"},
                    {"1", "table_namespace", "VARCHAR(255)", "1", "NULL", "2"},
                    {"2", "table_name", "VARCHAR(255)", "1", "NULL", "3"},
                    {"3", "metadata_location", "VARCHAR(1000)", "0", "NULL", "0"},
                    {"4", "previous_metadata_location", "VARCHAR(1000)", "0", "NULL", "0"},
                    {"5", "iceberg_type", "VARCHAR(5)", "0", "NULL", "0"}}));
    EXPECT_EQ(SqlRows("PRAGMA table_info(iceberg_namespace_properties)"),
              (Rows{{"0", "catalog_name", "VARCHAR(255)", "1", "NULL", "1"},
                    {"1", "namespace", "VARCHAR(255)", "1", "NULL", "2"},
                    {"2", "property_key", "VARCHAR(255)", "1", "NULL", "3"},
                    {"3", "property_value", "VARCHAR(1000)", "0", "NULL", "0"}}));
    return;
  }
  // position, name, type, nullable, position in the primary key.
  auto columns = [](const std::string& table) {
    return "SELECT c.ordinal_position, c.column_name, c.data_type, c.character_maximum_length, "
           "c.is_nullable, coalesce(k.ordinal_position::text, '0') "
           "FROM information_schema.columns c LEFT JOIN ("
           "  information_schema.key_column_usage k JOIN information_schema.table_constraints t "
           "  ON t.constraint_name = k.constraint_name AND t.table_schema = k.table_schema "
           "  AND t.constraint_type = 'PRIMARY KEY') "
           "ON k.table_schema = c.table_schema AND k.table_name = c.table_name "
           "AND k.column_name = c.column_name "
           "WHERE c.table_schema = current_schema() AND c.table_name = '" +
           table + "' ORDER BY c.ordinal_position";
  };
  EXPECT_EQ(SqlRows(columns("iceberg_tables")),
            (Rows{{"1", "catalog_name", "character varying", "255", "NO", "1"},
                  {"2", "table_namespace", "character varying", "255", "NO", "2"},
                  {"3", "table_name", "character varying", "255", "NO", "3"},
                  {"4", "metadata_location", "character varying", "1000", "YES", "0"},
                  {"5", "previous_metadata_location", "character varying", "1000", "YES", "0"},
                  {"6", "iceberg_type", "character varying", "5", "YES", "0"}}));
  EXPECT_EQ(SqlRows(columns("iceberg_namespace_properties")),
            (Rows{{"1", "catalog_name", "character varying", "255", "NO", "1"},
                  {"2", "namespace", "character varying", "255", "NO", "2"},
                  {"3", "property_key", "character varying", "255", "NO", "3"},
                  {"4", "property_value", "character varying", "1000", "YES", "0"}}));
}

// A database whose catalog tables a JDBC catalog made with its default schema version (V0).
class SqlCatalogSchemaTest : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Databases, SqlCatalogSchemaTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

TEST_P(SqlCatalogSchemaTest, WorksWithAV0TableAndLeavesItV0) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, TestDatabase::Make(GetParam(), dir.path()));
  // The layout a JDBC catalog creates with its default schema version (V0), with a
  // namespace, one of its rows and a NULL property value (which the JDBC catalog allows).
  const std::string v0_tables =
      "CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace "
      "VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, metadata_location "
      "VARCHAR(1000), previous_metadata_location VARCHAR(1000), PRIMARY KEY (catalog_name, "
      "table_namespace, table_name))";
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, db->Open());
  ASSERT_OK(backend->Run([&](SqlSession& session) -> Status {
    for (const std::string& statement :
         {v0_tables,
          std::string("CREATE TABLE iceberg_namespace_properties (catalog_name VARCHAR(255) "
                      "NOT NULL, namespace VARCHAR(255) NOT NULL, property_key VARCHAR(255), "
                      "property_value VARCHAR(1000), PRIMARY KEY (catalog_name, namespace, "
                      "property_key))"),
          std::string("INSERT INTO iceberg_namespace_properties VALUES "
                      "('c', 'db', 'exists', 'true'), ('c', 'db', 'comment', NULL)"),
          std::string("INSERT INTO iceberg_tables VALUES ('c', 'db', 'old', '/x.json', NULL)")}) {
      FLOE_RETURN_NOT_OK(session.Execute("make V0 tables", statement).status());
    }
    return Status::OK();
  }));
  // The layout of iceberg_tables as the database keeps it.
  auto layout = [&] {
    return db->postgres() ? db->Rows(
                                "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) "
                                "FROM information_schema.columns WHERE table_schema = "
                                "current_schema() AND table_name = 'iceberg_tables'")
                          : db->Rows("SELECT sql FROM sqlite_master WHERE name = 'iceberg_tables'");
  };
  const Rows v0_layout = db->postgres()
                             ? Rows{{"catalog_name,table_namespace,table_name,metadata_location,"
                                     "previous_metadata_location"}}
                             : Rows{{v0_tables}};
  EXPECT_EQ(layout(), v0_layout);
  SqlCatalogOptions options;
  options.name = "c";
  options.warehouse = dir.path();
  ASSERT_OK_AND_ASSIGN(auto catalog,
                       SqlCatalog::Make(backend, std::make_shared<io::LocalFileIO>(), options));
  // Every row is a table.
  ASSERT_OK_AND_ASSIGN(auto tables, catalog->ListTables({"db"}));
  EXPECT_EQ(tables, (std::vector<TableIdentifier>{{{"db"}, "old"}}));
  ASSERT_OK_AND_ASSIGN(bool exists, catalog->TableExists({{"db"}, "old"}));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(auto properties, catalog->LoadNamespaceProperties({"db"}));
  EXPECT_EQ(properties, (std::map<std::string, std::string>{{"comment", ""}}));
  // A table created here gets a row without iceberg_type, and is found again.
  CreateTableRequest request;
  request.schema = TestSchema();
  ASSERT_OK(catalog->CreateTable({{"db"}, "fresh"}, request).status());
  ASSERT_OK_AND_ASSIGN(tables, catalog->ListTables({"db"}));
  EXPECT_EQ(tables, (std::vector<TableIdentifier>{{{"db"}, "fresh"}, {{"db"}, "old"}}));
  ASSERT_OK(catalog->LoadTable({{"db"}, "fresh"}).status());
  ASSERT_OK(
      catalog->CommitTable({{"db"}, "fresh"}, {}, {iceberg::update::SetProperties{{{"k", "v"}}}}));
  // The layout is left as it was: still V0.
  EXPECT_EQ(layout(), v0_layout);
  ASSERT_OK(SqlCatalog::Make(backend, std::make_shared<io::LocalFileIO>(), options));
  EXPECT_EQ(layout(), v0_layout);
}

TEST_P(SqlCatalogTest, MakeValidatesOptions) {
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, db_->Open());
  SqlCatalogOptions options;
  options.name = "x";
  EXPECT_THAT(SqlCatalog::Make(backend, std::make_shared<io::LocalFileIO>(), options),
              IsErrorWith(StatusCode::kInvalidArgument, "no warehouse"));
  options.warehouse = "/w";
  options.name = "";
  EXPECT_THAT(SqlCatalog::Make(backend, std::make_shared<io::LocalFileIO>(), options),
              IsErrorWith(StatusCode::kInvalidArgument, "name is empty"));
}

TEST_P(SqlCatalogTest, ToStringRedactsSecrets) {
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, db_->Open());
  SqlCatalogOptions options;
  options.name = "prod";
  options.uri = "postgresql://admin:hunter2@db.example.com/cat?password=s3cret";
  options.warehouse = "s3://bucket/wh";
  ASSERT_OK_AND_ASSIGN(auto catalog,
                       SqlCatalog::Make(backend, std::make_shared<io::LocalFileIO>(), options));
  std::string text = catalog->ToString();
  EXPECT_THAT(text, HasSubstr("name=prod"));
  EXPECT_THAT(text, HasSubstr("admin:***@db.example.com"));
  EXPECT_THAT(text, HasSubstr("warehouse=s3://bucket/wh"));
  EXPECT_THAT(text, Not(HasSubstr("hunter2")));
  EXPECT_THAT(text, Not(HasSubstr("s3cret")));
  // The database the backend is connected to, without its password.
  if (postgres()) {
    EXPECT_THAT(text, HasSubstr("database=PostgreSQL catalog postgresql://floe@127.0.0.1:"));
    EXPECT_THAT(text, Not(HasSubstr(::floe::testing::PostgresServer::kPassword)));
  } else {
    EXPECT_THAT(text, HasSubstr(db_->file()));
  }
}

// ---------------------------------------------------------------------------------------
// Namespaces
// ---------------------------------------------------------------------------------------

TEST_P(SqlCatalogTest, CreateNamespaceWritesPropertiesAndTheExistsMarker) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}, {{"owner", "ana"}, {"comment", "x"}}));
  EXPECT_EQ(PropertyRows(), (Rows{{"test", "db", "comment", "x"},
                                  {"test", "db", "exists", "true"},
                                  {"test", "db", "owner", "ana"}}));
  ASSERT_OK_AND_ASSIGN(auto properties, catalog_->LoadNamespaceProperties({"db"}));
  EXPECT_EQ(properties, (std::map<std::string, std::string>{{"comment", "x"}, {"owner", "ana"}}));
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->NamespaceExists({"db"}));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, catalog_->NamespaceExists({"other"}));
  EXPECT_FALSE(exists);
}

TEST_P(SqlCatalogTest, CreateNamespaceErrors) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  EXPECT_THAT(catalog_->CreateNamespace({"db"}),
              IsErrorWith(StatusCode::kConstraint, "namespace db already exists"));
  EXPECT_THAT(catalog_->CreateNamespace({}), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(catalog_->CreateNamespace({"a", ""}), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(catalog_->CreateNamespace({"a.b"}), IsErrorWith(StatusCode::kInvalidArgument, "'.'"));
  EXPECT_THAT(catalog_->CreateNamespace({"x"}, {{"exists", "false"}}),
              IsErrorWith(StatusCode::kInvalidArgument, "reserved"));
  EXPECT_EQ(PropertyRows(), (Rows{{"test", "db", "exists", "true"}}));
}

TEST_P(SqlCatalogTest, NamespacesAreSeparatePerCatalogName) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(auto other, Open(nullptr, "other"));
  ASSERT_OK_AND_ASSIGN(bool exists, other->NamespaceExists({"db"}));
  EXPECT_FALSE(exists);
  ASSERT_OK(other->CreateNamespace({"db"}));
  EXPECT_EQ(PropertyRows(),
            (Rows{{"other", "db", "exists", "true"}, {"test", "db", "exists", "true"}}));
}

TEST_P(SqlCatalogTest, ListNamespacesReturnsDirectChildrenSorted) {
  ASSERT_OK(catalog_->CreateNamespace({"b"}));
  ASSERT_OK(catalog_->CreateNamespace({"a"}));
  ASSERT_OK(catalog_->CreateNamespace({"a", "y"}));
  ASSERT_OK(catalog_->CreateNamespace({"a", "x", "deep"}));
  ASSERT_OK(catalog_->CreateNamespace({"ab"}));
  // LIKE's wildcards and SQLite's case-insensitive LIKE must not leak other namespaces in.
  ASSERT_OK(catalog_->CreateNamespace({"A", "z"}));
  ASSERT_OK(catalog_->CreateNamespace({"a_"}));
  ASSERT_OK(catalog_->CreateNamespace({"a_", "q"}));
  ASSERT_OK_AND_ASSIGN(auto top, catalog_->ListNamespaces());
  EXPECT_EQ(top, (std::vector<Namespace>{{"A"}, {"a"}, {"a_"}, {"ab"}, {"b"}}));
  ASSERT_OK_AND_ASSIGN(auto under_a, catalog_->ListNamespaces({"a"}));
  // a.x exists only through a.x.deep and is listed as a child.
  EXPECT_EQ(under_a, (std::vector<Namespace>{{"a", "x"}, {"a", "y"}}));
  ASSERT_OK_AND_ASSIGN(auto under_ax, catalog_->ListNamespaces({"a", "x"}));
  EXPECT_EQ(under_ax, (std::vector<Namespace>{{"a", "x", "deep"}}));
  ASSERT_OK_AND_ASSIGN(auto under_b, catalog_->ListNamespaces({"b"}));
  EXPECT_TRUE(under_b.empty());
  EXPECT_THAT(catalog_->ListNamespaces({"nope"}),
              IsErrorWith(StatusCode::kNotFound, "namespace nope does not exist"));
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->NamespaceExists({"a", "x"}));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, catalog_->NamespaceExists({"a", "xx"}));
  EXPECT_FALSE(exists);
}

TEST_P(SqlCatalogTest, NamespaceOfATableExists) {
  // A row written by another tool without any namespace property row.
  SqlRows("INSERT INTO iceberg_tables VALUES ('test', 'p.q', 't', '/m.json', NULL, NULL)");
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->NamespaceExists({"p", "q"}));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, catalog_->NamespaceExists({"p"}));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(auto top, catalog_->ListNamespaces());
  EXPECT_EQ(top, (std::vector<Namespace>{{"p"}}));
  ASSERT_OK_AND_ASSIGN(auto properties, catalog_->LoadNamespaceProperties({"p", "q"}));
  EXPECT_TRUE(properties.empty());
}

TEST_P(SqlCatalogTest, UpdateNamespaceProperties) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}, {{"a", "1"}, {"b", "2"}}));
  ASSERT_OK(
      catalog_->UpdateNamespaceProperties({"db"}, {"a", "missing"}, {{"b", "3"}, {"c", "4"}}));
  ASSERT_OK_AND_ASSIGN(auto properties, catalog_->LoadNamespaceProperties({"db"}));
  EXPECT_EQ(properties, (std::map<std::string, std::string>{{"b", "3"}, {"c", "4"}}));
  EXPECT_EQ(
      PropertyRows(),
      (Rows{{"test", "db", "b", "3"}, {"test", "db", "c", "4"}, {"test", "db", "exists", "true"}}));
  EXPECT_THAT(catalog_->UpdateNamespaceProperties({"db"}, {"b"}, {{"b", "5"}}),
              IsErrorWith(StatusCode::kInvalidArgument, "'b' is both updated and removed"));
  EXPECT_THAT(catalog_->UpdateNamespaceProperties({"db"}, {"exists"}, {}),
              IsErrorWith(StatusCode::kInvalidArgument, "reserved"));
  EXPECT_THAT(catalog_->UpdateNamespaceProperties({"nope"}, {}, {{"x", "y"}}),
              IsErrorWith(StatusCode::kNotFound, "namespace nope does not exist"));
  EXPECT_THAT(catalog_->LoadNamespaceProperties({"nope"}),
              IsErrorWith(StatusCode::kNotFound, "namespace nope does not exist"));
}

TEST_P(SqlCatalogTest, DropNamespace) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}, {{"a", "1"}}));
  ASSERT_OK(catalog_->CreateNamespace({"db", "child"}));
  ASSERT_OK(catalog_->CreateNamespace({"dbx"}));
  EXPECT_THAT(catalog_->DropNamespace({"db"}),
              IsErrorWith(StatusCode::kConstraint,
                          "namespace db is not empty: it holds namespace "
                          "db.child"));
  ASSERT_OK(catalog_->DropNamespace({"db", "child"}));
  ASSERT_OK(catalog_->DropNamespace({"db"}));
  EXPECT_EQ(PropertyRows(), (Rows{{"test", "dbx", "exists", "true"}}));
  EXPECT_THAT(catalog_->DropNamespace({"db"}),
              IsErrorWith(StatusCode::kNotFound, "namespace db does not exist"));
}

// ---------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------

TEST_P(SqlCatalogTest, CreateTableWritesMetadataAndRow) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, Create({{"db"}, "t"}));
  const std::string dir = MetadataDir("t");
  EXPECT_THAT(table.metadata_location,
              MatchesRegex(dir + "/00000-[0-9a-f-]{36}\\.metadata\\.json"));
  EXPECT_EQ(table.metadata->location, warehouse_ + "/db/t");
  EXPECT_EQ(table.io, catalog_->io());
  EXPECT_THAT(FileNames(dir), ElementsAre(table.metadata_location.substr(dir.size() + 1)));
  EXPECT_EQ(TableRows(), (Rows{{"test", "db", "t", table.metadata_location, "NULL", "TABLE"}}));

  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata_location, table.metadata_location);
  EXPECT_TRUE(loaded.metadata->Equals(*table.metadata));
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->TableExists({{"db"}, "t"}));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, catalog_->TableExists({{"db"}, "u"}));
  EXPECT_FALSE(exists);
}

TEST_P(SqlCatalogTest, CreateTableErrors) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, Create({{"db"}, "t"}));
  EXPECT_THAT(Create({{"db"}, "t"}),
              IsErrorWith(StatusCode::kConstraint, "table db.t already exists"));
  EXPECT_THAT(FileNames(MetadataDir("t")), SizeIs(1));
  EXPECT_THAT(Create({{"nope"}, "t"}),
              IsErrorWith(StatusCode::kNotFound, "namespace nope does not exist"));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/nope"));
  CreateTableRequest no_schema;
  EXPECT_THAT(catalog_->CreateTable({{"db"}, "u"}, no_schema),
              IsErrorWith(StatusCode::kInvalidArgument, "no schema"));
  EXPECT_THAT(Create({{"db"}, ""}), IsError(StatusCode::kInvalidArgument));
}

// A table or namespace name becomes a directory of the default location, so a name that is
// not one path segment would put files outside the warehouse (or split into directories).
TEST_P(SqlCatalogTest, NamesThatAreNotOnePathSegmentAreRefused) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  const std::string victim = dir_.path() + "/victim";
  for (const std::string& name :
       std::vector<std::string>{"../../victim", "..", ".", "a/b", "/abs", std::string("a\0b", 3),
                                "tab\there", std::string(256, 'x')}) {
    SCOPED_TRACE(name);
    EXPECT_THAT(Create({{"db"}, name}), IsErrorWith(StatusCode::kInvalidArgument, "table name"));
    EXPECT_THAT(catalog_->CreateNamespace({name}),
                IsErrorWith(StatusCode::kInvalidArgument, "namespace level"));
    EXPECT_THAT(catalog_->RenameTable({{"db"}, "t"}, {{"db"}, name}),
                IsErrorWith(StatusCode::kInvalidArgument, "table name"));
  }
  EXPECT_THAT(Create({{"db"}, "../../victim"}),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "table name '../../victim' contains a '/', which would split it"));
  EXPECT_THAT(Create({{"db"}, ".."}),
              IsErrorWith(StatusCode::kInvalidArgument, "table name '..' is not allowed"));
  EXPECT_THAT(catalog_->CreateNamespace({"a\nb"}),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "namespace level 'a\\x0ab' contains a control character"));
  EXPECT_FALSE(std::filesystem::exists(victim));
  EXPECT_EQ(TableRows(), Rows{});
  EXPECT_EQ(PropertyRows(), (Rows{{"test", "db", "exists", "true"}}));
  // A namespace with such a level that another writer stored has no default location.
  SqlRows("INSERT INTO iceberg_namespace_properties VALUES ('test', 'up/x', 'exists', 'true')");
  EXPECT_THAT(Create({{"up/x"}, "t"}),
              IsErrorWith(StatusCode::kInvalidArgument, "namespace level 'up/x' contains a '/'"));
  // Names that are one segment, dots, spaces and non-ASCII included, work.
  for (const std::string& name :
       std::vector<std::string>{"...", ".hidden", "a b", "caf\xc3\xa9", std::string(255, 'y')}) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(iceberg::Table table, Create({{"db"}, name}));
    EXPECT_EQ(table.metadata->location, warehouse_ + "/db/" + name);
  }
}

TEST_P(SqlCatalogTest, CreateTableLocations) {
  ASSERT_OK(catalog_->CreateNamespace({"a", "b"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table nested, Create({{"a", "b"}, "t"}));
  EXPECT_EQ(nested.metadata->location, warehouse_ + "/a/b/t");

  const std::string elsewhere = dir_.path() + "/elsewhere";
  ASSERT_OK(catalog_->CreateNamespace({"loc"}, {{"location", elsewhere + "/"}}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table located, Create({{"loc"}, "t"}));
  EXPECT_EQ(located.metadata->location, elsewhere + "/t");
  EXPECT_THAT(FileNames(elsewhere + "/t/metadata"), SizeIs(1));

  CreateTableRequest request;
  request.schema = TestSchema();
  request.location = dir_.path() + "/explicit/";
  ASSERT_OK_AND_ASSIGN(iceberg::Table explicit_table,
                       catalog_->CreateTable({{"loc"}, "u"}, request));
  EXPECT_EQ(explicit_table.metadata->location, dir_.path() + "/explicit");
  EXPECT_THAT(explicit_table.metadata_location,
              HasSubstr(dir_.path() + "/explicit/metadata/00000-"));
}

TEST_P(SqlCatalogTest, GzipMetadataWhenAsked) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table,
                       Create({{"db"}, "t"}, {{"write.metadata.compression-codec", "gzip"}}));
  EXPECT_THAT(table.metadata_location, HasSubstr(".gz.metadata.json"));
  std::ifstream in(table.metadata_location, std::ios::binary);
  char magic[2] = {0, 0};
  in.read(magic, 2);
  EXPECT_EQ(static_cast<unsigned char>(magic[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(magic[1]), 0x8b);
  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_TRUE(loaded.metadata->Equals(*table.metadata));
}

TEST_P(SqlCatalogTest, LoadTableErrors) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  EXPECT_THAT(catalog_->LoadTable({{"db"}, "nope"}),
              IsErrorWith(StatusCode::kNotFound, "table db.nope does not exist"));
  // A row pointing at a missing file: the error names the file.
  SqlRows("INSERT INTO iceberg_tables VALUES ('test', 'db', 'gone', '" + dir_.path() +
          "/gone.metadata.json', NULL, 'TABLE')");
  EXPECT_THAT(catalog_->LoadTable({{"db"}, "gone"}),
              IsErrorWith(StatusCode::kNotFound, dir_.path() + "/gone.metadata.json"));
}

TEST_P(SqlCatalogTest, ListTablesSortedSkippingViewsAndOtherCatalogs) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "zeta"}));
  ASSERT_OK(Create({{"db"}, "alpha"}));
  SqlRows("INSERT INTO iceberg_tables VALUES ('test', 'db', 'untyped', '/m.json', NULL, NULL)");
  SqlRows("INSERT INTO iceberg_tables VALUES ('test', 'db', 'v', '/v.json', NULL, 'VIEW')");
  SqlRows("INSERT INTO iceberg_tables VALUES ('else', 'db', 'x', '/x.json', NULL, 'TABLE')");
  ASSERT_OK_AND_ASSIGN(auto tables, catalog_->ListTables({"db"}));
  EXPECT_EQ(tables, (std::vector<TableIdentifier>{
                        {{"db"}, "alpha"}, {{"db"}, "untyped"}, {{"db"}, "zeta"}}));
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->TableExists({{"db"}, "v"}));
  EXPECT_FALSE(exists);
  EXPECT_THAT(catalog_->LoadTable({{"db"}, "v"}), IsError(StatusCode::kNotFound));
  EXPECT_THAT(catalog_->DropTable({{"db"}, "v"}), IsError(StatusCode::kNotFound));
  EXPECT_THAT(catalog_->ListTables({"nope"}),
              IsErrorWith(StatusCode::kNotFound, "namespace nope does not exist"));
  // A view's name is taken.
  EXPECT_THAT(Create({{"db"}, "v"}), IsError(StatusCode::kConstraint));
}

TEST_P(SqlCatalogTest, DropNamespaceWithTablesIsRefused) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}));
  EXPECT_THAT(catalog_->DropNamespace({"db"}),
              IsErrorWith(StatusCode::kConstraint, "namespace db is not empty: it holds 1 table"));
  ASSERT_OK(catalog_->DropTable({{"db"}, "t"}));
  ASSERT_OK(catalog_->DropNamespace({"db"}));
}

TEST_P(SqlCatalogTest, RegisterTable) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, Create({{"db"}, "t"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table registered,
                       catalog_->RegisterTable({{"db"}, "copy"}, table.metadata_location));
  EXPECT_EQ(registered.metadata_location, table.metadata_location);
  EXPECT_TRUE(registered.metadata->Equals(*table.metadata));
  EXPECT_EQ(TableRows(), (Rows{{"test", "db", "copy", table.metadata_location, "NULL", "TABLE"},
                               {"test", "db", "t", table.metadata_location, "NULL", "TABLE"}}));
  EXPECT_THAT(FileNames(MetadataDir("t")), SizeIs(1));
  EXPECT_THAT(catalog_->RegisterTable({{"db"}, "copy"}, table.metadata_location),
              IsErrorWith(StatusCode::kConstraint, "table db.copy already exists"));
  EXPECT_THAT(catalog_->RegisterTable({{"nope"}, "x"}, table.metadata_location),
              IsErrorWith(StatusCode::kNotFound, "namespace nope does not exist"));
  EXPECT_THAT(catalog_->RegisterTable({{"db"}, "x"}, dir_.path() + "/missing.metadata.json"),
              IsErrorWith(StatusCode::kNotFound, "missing.metadata.json"));
  EXPECT_THAT(TableRows(), SizeIs(2));
}

TEST_P(SqlCatalogTest, RenameTable) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(catalog_->CreateNamespace({"other"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, Create({{"db"}, "t"}));
  ASSERT_OK(Create({{"db"}, "taken"}));
  ASSERT_OK(catalog_->RenameTable({{"db"}, "t"}, {{"other"}, "moved"}));
  EXPECT_EQ(SqlRows("SELECT table_namespace, table_name, metadata_location FROM "
                    "iceberg_tables WHERE table_name = 'moved'"),
            (Rows{{"other", "moved", table.metadata_location}}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table moved, catalog_->LoadTable({{"other"}, "moved"}));
  EXPECT_EQ(moved.metadata_location, table.metadata_location);
  EXPECT_THAT(catalog_->LoadTable({{"db"}, "t"}), IsError(StatusCode::kNotFound));

  EXPECT_THAT(catalog_->RenameTable({{"db"}, "t"}, {{"db"}, "x"}),
              IsErrorWith(StatusCode::kNotFound, "table db.t does not exist"));
  EXPECT_THAT(catalog_->RenameTable({{"other"}, "moved"}, {{"nope"}, "x"}),
              IsErrorWith(StatusCode::kNotFound, "namespace nope does not exist"));
  EXPECT_THAT(catalog_->RenameTable({{"other"}, "moved"}, {{"db"}, "taken"}),
              IsErrorWith(StatusCode::kConstraint, "table db.taken already exists"));
  ASSERT_OK(catalog_->RenameTable({{"other"}, "moved"}, {{"other"}, "moved"}));
  EXPECT_THAT(TableRows(), SizeIs(2));
}

TEST_P(SqlCatalogTest, DropTableKeepsFilesWithoutPurge) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, Create({{"db"}, "t"}));
  ASSERT_OK(catalog_->DropTable({{"db"}, "t"}));
  EXPECT_TRUE(TableRows().empty());
  EXPECT_TRUE(std::filesystem::exists(table.metadata_location));
  EXPECT_THAT(catalog_->DropTable({{"db"}, "t"}),
              IsErrorWith(StatusCode::kNotFound, "table db.t does not exist"));
  EXPECT_THAT(catalog_->DropTable({{"db"}, "t"}, /*purge=*/true),
              IsErrorWith(StatusCode::kNotFound, "table db.t does not exist"));
}

// ---------------------------------------------------------------------------------------
// Commits
// ---------------------------------------------------------------------------------------

TEST_P(SqlCatalogTest, CommitSwapsThePointerAndLogsThePrevious) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table v0, Create({{"db"}, "t"}));
  ASSERT_OK_AND_ASSIGN(
      iceberg::Table v1,
      catalog_->CommitTable({{"db"}, "t"}, {Req::AssertTableUuid(v0.metadata->table_uuid)},
                            {iceberg::update::SetProperties{{{"k", "v"}}}}));
  EXPECT_THAT(v1.metadata_location,
              MatchesRegex(MetadataDir("t") + "/00001-[0-9a-f-]{36}\\.metadata\\.json"));
  EXPECT_EQ(v1.metadata->Property("k"), "v");
  ASSERT_EQ(v1.metadata->metadata_log.size(), 1u);
  EXPECT_EQ(v1.metadata->metadata_log[0].metadata_file, v0.metadata_location);
  EXPECT_EQ(v1.metadata->metadata_log[0].timestamp_ms, v0.metadata->last_updated_ms);
  EXPECT_EQ(TableRows(),
            (Rows{{"test", "db", "t", v1.metadata_location, v0.metadata_location, "TABLE"}}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata_location, v1.metadata_location);
  EXPECT_TRUE(loaded.metadata->Equals(*v1.metadata));
  EXPECT_THAT(FileNames(MetadataDir("t")), SizeIs(2));

  // A commit with nothing to change writes nothing.
  ASSERT_OK_AND_ASSIGN(iceberg::Table same, catalog_->CommitTable({{"db"}, "t"}, {}, {}));
  EXPECT_EQ(same.metadata_location, v1.metadata_location);
  EXPECT_THAT(FileNames(MetadataDir("t")), SizeIs(2));
}

TEST_P(SqlCatalogTest, CommitAddSnapshotRoundTrip) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table v0, Create({{"db"}, "t"}));
  iceberg::Snapshot snapshot;
  snapshot.snapshot_id = 4242;
  snapshot.sequence_number = 1;
  snapshot.timestamp_ms = v0.metadata->last_updated_ms + 1;
  snapshot.manifest_list = warehouse_ + "/db/t/metadata/snap-4242-1-x.avro";
  snapshot.summary = {{"operation", "append"}};
  snapshot.schema_id = 0;
  iceberg::SnapshotRef ref;
  ref.snapshot_id = 4242;
  ASSERT_OK_AND_ASSIGN(
      iceberg::Table v1,
      catalog_->CommitTable(
          {{"db"}, "t"}, {Req::AssertRefSnapshotId("main", std::nullopt)},
          {iceberg::update::AddSnapshot{snapshot}, iceberg::update::SetSnapshotRef{"main", ref}}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, catalog_->LoadTable({{"db"}, "t"}));
  ASSERT_NE(loaded.metadata->CurrentSnapshot(), nullptr);
  EXPECT_EQ(*loaded.metadata->CurrentSnapshot(), snapshot);
  EXPECT_EQ(loaded.metadata->last_sequence_number, 1);
  ASSERT_EQ(loaded.metadata->snapshot_log.size(), 1u);
  EXPECT_EQ(loaded.metadata->snapshot_log[0].snapshot_id, 4242);
  EXPECT_EQ(loaded.metadata->refs.at("main").snapshot_id, 4242);

  // The same commit from the same base again: main has moved, so its requirement fails.
  snapshot.snapshot_id = 4343;
  snapshot.sequence_number = 2;
  ref.snapshot_id = 4343;
  EXPECT_THAT(catalog_->CommitTable({{"db"}, "t"}, {Req::AssertRefSnapshotId("main", std::nullopt)},
                                    {iceberg::update::AddSnapshot{snapshot},
                                     iceberg::update::SetSnapshotRef{"main", ref}}),
              IsError(StatusCode::kCommitConflict));
  EXPECT_THAT(FileNames(MetadataDir("t")), SizeIs(2));
  ASSERT_OK_AND_ASSIGN(iceberg::Table after, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(after.metadata_location, v1.metadata_location);
}

TEST_P(SqlCatalogTest, EachFailedRequirementIsAConflictAndWritesNothing) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table v0, Create({{"db"}, "t"}));
  const std::vector<Req> failing = {
      Req::AssertCreate(),
      Req::AssertTableUuid("00000000-0000-4000-8000-000000000000"),
      Req::AssertRefSnapshotId("main", 12),
      Req::AssertLastAssignedFieldId(v0.metadata->last_column_id + 1),
      Req::AssertCurrentSchemaId(v0.metadata->current_schema_id + 1),
      Req::AssertLastAssignedPartitionId(v0.metadata->last_partition_id + 1),
      Req::AssertDefaultSpecId(v0.metadata->default_spec_id + 1),
      Req::AssertDefaultSortOrderId(v0.metadata->default_sort_order_id + 1),
  };
  for (const Req& requirement : failing) {
    SCOPED_TRACE(std::string(requirement.type_name()));
    EXPECT_THAT(catalog_->CommitTable({{"db"}, "t"}, {requirement},
                                      {iceberg::update::SetProperties{{{"k", "v"}}}}),
                IsErrorWith(StatusCode::kCommitConflict, "db.t"));
    EXPECT_THAT(FileNames(MetadataDir("t")), SizeIs(1));
  }
  EXPECT_EQ(TableRows(), (Rows{{"test", "db", "t", v0.metadata_location, "NULL", "TABLE"}}));
}

TEST_P(SqlCatalogTest, MetadataThatWouldNotReadBackIsNotWritten) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table v0, Create({{"db"}, "t"}));
  // The spec requires a snapshot summary's `operation`; readers reject a snapshot without it.
  iceberg::Snapshot snapshot;
  snapshot.snapshot_id = 9;
  snapshot.sequence_number = 1;
  snapshot.timestamp_ms = v0.metadata->last_updated_ms + 1;
  snapshot.manifest_list = warehouse_ + "/db/t/metadata/snap-9.avro";
  EXPECT_THAT(catalog_->CommitTable({{"db"}, "t"}, {}, {iceberg::update::AddSnapshot{snapshot}}),
              IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(FileNames(MetadataDir("t")), SizeIs(1));
  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata_location, v0.metadata_location);
}

TEST_P(SqlCatalogTest, CommitToAMissingTableIsNotFoundAndWritesNothing) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  EXPECT_THAT(
      catalog_->CommitTable({{"db"}, "t"}, {}, {iceberg::update::SetProperties{{{"k", "v"}}}}),
      IsErrorWith(StatusCode::kNotFound, "table db.t does not exist"));
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/db/t"));
  // Dropped tables too.
  ASSERT_OK(Create({{"db"}, "d"}));
  ASSERT_OK(catalog_->DropTable({{"db"}, "d"}));
  EXPECT_THAT(
      catalog_->CommitTable({{"db"}, "d"}, {}, {iceberg::update::SetProperties{{{"k", "v"}}}}),
      IsErrorWith(StatusCode::kNotFound, "table db.d does not exist"));
  EXPECT_THAT(FileNames(MetadataDir("d")), SizeIs(1));
}

TEST_P(SqlCatalogTest, CommitWithAssertCreateBuildsTheTable) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  iceberg::NewTableOptions options;
  options.schema = TestSchema();
  options.location = warehouse_ + "/db/fresh";
  options.properties = {{"p", "1"}};
  ASSERT_OK_AND_ASSIGN(iceberg::TableMetadataPtr wanted,
                       iceberg::NewTableMetadata(options, 1700000000000));
  ASSERT_OK_AND_ASSIGN(iceberg::Table created,
                       catalog_->CommitTable({{"db"}, "fresh"}, {Req::AssertCreate()},
                                             iceberg::CreateTableUpdates(*wanted)));
  EXPECT_THAT(created.metadata_location,
              MatchesRegex(MetadataDir("fresh") + "/00000-[0-9a-f-]{36}\\.metadata\\.json"));
  EXPECT_EQ(created.metadata->table_uuid, wanted->table_uuid);
  EXPECT_EQ(created.metadata->location, warehouse_ + "/db/fresh");
  EXPECT_EQ(created.metadata->Property("p"), "1");
  EXPECT_EQ(TableRows(),
            (Rows{{"test", "db", "fresh", created.metadata_location, "NULL", "TABLE"}}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, catalog_->LoadTable({{"db"}, "fresh"}));
  EXPECT_TRUE(loaded.metadata->Equals(*created.metadata));

  // Again: the table exists now.
  EXPECT_THAT(catalog_->CommitTable({{"db"}, "fresh"}, {Req::AssertCreate()},
                                    iceberg::CreateTableUpdates(*wanted)),
              IsError(StatusCode::kCommitConflict));
  EXPECT_THAT(FileNames(MetadataDir("fresh")), SizeIs(1));
  // In a namespace that does not exist.
  EXPECT_THAT(catalog_->CommitTable({{"nope"}, "fresh"}, {Req::AssertCreate()},
                                    iceberg::CreateTableUpdates(*wanted)),
              IsErrorWith(StatusCode::kNotFound, "namespace nope does not exist"));
}

// A writer that commits between this commit's load and its swap wins; the loser's metadata
// file is removed and it gets kCommitConflict.
TEST_P(SqlCatalogTest, LostCompareAndSetIsAConflictAndRemovesTheFile) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table v0, Create({{"db"}, "t"}));
  auto hook_io = std::make_shared<HookFileIO>();
  ASSERT_OK_AND_ASSIGN(auto hooked, Open(hook_io));
  std::string winner;
  hook_io->before_metadata_write = [&] {
    auto result = catalog_->CommitTable({{"db"}, "t"}, {},
                                        {iceberg::update::SetProperties{{{"winner", "yes"}}}});
    ASSERT_OK(result);
    winner = result->metadata_location;
  };
  EXPECT_THAT(
      hooked->CommitTable({{"db"}, "t"}, {}, {iceberg::update::SetProperties{{{"loser", "yes"}}}}),
      IsErrorWith(StatusCode::kCommitConflict, "concurrent commit"));
  ASSERT_FALSE(winner.empty());
  // Only the creation and the winner's files remain.
  const std::string dir = MetadataDir("t");
  std::vector<std::string> expected = {v0.metadata_location.substr(dir.size() + 1),
                                       winner.substr(dir.size() + 1)};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(FileNames(dir), expected);
  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata_location, winner);
  EXPECT_EQ(loaded.metadata->Property("loser", "absent"), "absent");
  // Retrying now succeeds on top of the winner.
  ASSERT_OK_AND_ASSIGN(
      iceberg::Table retried,
      hooked->CommitTable({{"db"}, "t"}, {}, {iceberg::update::SetProperties{{{"loser", "yes"}}}}));
  EXPECT_EQ(retried.metadata->Property("winner"), "yes");
  EXPECT_EQ(retried.metadata->Property("loser"), "yes");
}

TEST_P(SqlCatalogTest, TableDroppedDuringCommitIsNotFound) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}));
  auto hook_io = std::make_shared<HookFileIO>();
  ASSERT_OK_AND_ASSIGN(auto hooked, Open(hook_io));
  hook_io->before_metadata_write = [&] { ASSERT_OK(catalog_->DropTable({{"db"}, "t"})); };
  EXPECT_THAT(
      hooked->CommitTable({{"db"}, "t"}, {}, {iceberg::update::SetProperties{{{"k", "v"}}}}),
      IsErrorWith(StatusCode::kNotFound, "table db.t was dropped during the commit"));
  EXPECT_THAT(FileNames(MetadataDir("t")), SizeIs(1));
}

TEST_P(SqlCatalogTest, DeleteAfterCommitKeepsOnlyTheLoggedVersions) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}, {{"write.metadata.delete-after-commit.enabled", "true"},
                                   {"write.metadata.previous-versions-max", "2"}}));
  iceberg::Table last;
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK_AND_ASSIGN(
        last, catalog_->CommitTable({{"db"}, "t"}, {},
                                    {iceberg::update::SetProperties{{{"i", std::to_string(i)}}}}));
  }
  ASSERT_EQ(last.metadata->metadata_log.size(), 2u);
  const std::string dir = MetadataDir("t");
  std::vector<std::string> expected = {
      last.metadata->metadata_log[0].metadata_file.substr(dir.size() + 1),
      last.metadata->metadata_log[1].metadata_file.substr(dir.size() + 1),
      last.metadata_location.substr(dir.size() + 1)};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(FileNames(dir), expected);
  EXPECT_THAT(expected[0], HasSubstr("00003-"));
  EXPECT_THAT(expected[2], HasSubstr("00005-"));
}

TEST_P(SqlCatalogTest, WithoutDeleteAfterCommitOldVersionsStay) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}, {{"write.metadata.previous-versions-max", "1"}}));
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(catalog_->CommitTable({{"db"}, "t"}, {},
                                    {iceberg::update::SetProperties{{{"i", std::to_string(i)}}}}));
  }
  EXPECT_THAT(FileNames(MetadataDir("t")), SizeIs(4));
}

// ---------------------------------------------------------------------------------------
// Purge
// ---------------------------------------------------------------------------------------

void WriteFile(const std::string& path, const std::string& bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// The files of a table with one snapshot: a data file and a delete file in a data and a
// delete manifest, a manifest list, a statistics file and two metadata files.
struct TableFiles {
  std::string data_file;
  std::string delete_file;
  std::string data_manifest;
  std::string delete_manifest;
  std::string manifest_list;
  std::string stats_file;
  std::vector<std::string> metadata_files;

  std::vector<std::string> All() const {
    std::vector<std::string> all = {data_file,       delete_file,   data_manifest,
                                    delete_manifest, manifest_list, stats_file};
    all.insert(all.end(), metadata_files.begin(), metadata_files.end());
    std::sort(all.begin(), all.end());
    return all;
  }
};

void WriteSnapshotFiles(Catalog& catalog, const TableIdentifier& id, TableFiles* out) {
  ASSERT_OK_AND_ASSIGN(iceberg::Table v0, catalog.LoadTable(id));
  const std::string table_dir = v0.metadata->location;
  io::LocalFileIO io;
  out->data_file = table_dir + "/data/a.parquet";
  out->delete_file = table_dir + "/data/a-deletes.parquet";
  WriteFile(out->data_file, "not really parquet");
  WriteFile(out->delete_file, "not really parquet either");
  iceberg::DataFile data;
  data.file_path = out->data_file;
  data.record_count = 3;
  data.file_size_in_bytes = 18;
  iceberg::DataFile deletes;
  deletes.content = iceberg::FileContent::kPositionDeletes;
  deletes.file_path = out->delete_file;
  deletes.record_count = 1;
  deletes.file_size_in_bytes = 25;
  const auto& schema = *v0.metadata->CurrentSchema();
  const auto& spec = *v0.metadata->DefaultSpec();

  iceberg::ManifestWriterOptions data_options;
  data_options.snapshot_id = 1;
  out->data_manifest = table_dir + "/metadata/m-data.avro";
  ASSERT_OK_AND_ASSIGN(auto data_writer, iceberg::ManifestWriter::Make(io, out->data_manifest,
                                                                       schema, spec, data_options));
  ASSERT_OK(data_writer->Add(data));
  ASSERT_OK_AND_ASSIGN(iceberg::ManifestFile data_manifest, data_writer->Close());
  iceberg::ManifestWriterOptions delete_options = data_options;
  delete_options.content = iceberg::FileContent::kPositionDeletes;
  out->delete_manifest = table_dir + "/metadata/m-deletes.avro";
  ASSERT_OK_AND_ASSIGN(
      auto delete_writer,
      iceberg::ManifestWriter::Make(io, out->delete_manifest, schema, spec, delete_options));
  ASSERT_OK(delete_writer->Add(deletes));
  ASSERT_OK_AND_ASSIGN(iceberg::ManifestFile delete_manifest, delete_writer->Close());
  iceberg::ManifestListWriterOptions list_options;
  list_options.snapshot_id = 1;
  list_options.sequence_number = 1;
  out->manifest_list = table_dir + "/metadata/snap-1.avro";
  ASSERT_OK_AND_ASSIGN(auto list_writer,
                       iceberg::ManifestListWriter::Make(io, out->manifest_list, list_options));
  ASSERT_OK(list_writer->Add(data_manifest));
  ASSERT_OK(list_writer->Add(delete_manifest));
  ASSERT_OK(list_writer->Close());

  iceberg::Snapshot snapshot;
  snapshot.snapshot_id = 1;
  snapshot.sequence_number = 1;
  snapshot.timestamp_ms = v0.metadata->last_updated_ms + 1;
  snapshot.manifest_list = out->manifest_list;
  snapshot.summary = {{"operation", "append"}};
  iceberg::SnapshotRef ref;
  ref.snapshot_id = 1;
  out->stats_file = table_dir + "/metadata/stats-1.puffin";
  WriteFile(out->stats_file, "PFA1");
  iceberg::StatisticsFile stats;
  stats.snapshot_id = 1;
  stats.statistics_path = out->stats_file;
  stats.file_size_in_bytes = 4;
  ASSERT_OK_AND_ASSIGN(iceberg::Table v1,
                       catalog.CommitTable(id, {},
                                           {iceberg::update::AddSnapshot{snapshot},
                                            iceberg::update::SetSnapshotRef{"main", ref},
                                            iceberg::update::SetStatistics{stats}}));
  out->metadata_files = {v0.metadata_location, v1.metadata_location};
}

TEST_P(SqlCatalogTest, PurgeDeletesEveryReachableFile) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}));
  TableFiles files;
  ASSERT_NO_FATAL_FAILURE(WriteSnapshotFiles(*catalog_, {{"db"}, "t"}, &files));
  // A file the metadata does not reach stays.
  const std::string orphan = warehouse_ + "/db/t/data/orphan.parquet";
  WriteFile(orphan, "x");

  ASSERT_OK_AND_ASSIGN(iceberg::Table current, catalog_->LoadTable({{"db"}, "t"}));
  ASSERT_OK_AND_ASSIGN(auto reachable, ReachableFiles(*catalog_->io(), *current.metadata,
                                                      current.metadata_location));
  EXPECT_EQ(reachable, files.All());

  ASSERT_OK(catalog_->DropTable({{"db"}, "t"}, /*purge=*/true));
  EXPECT_TRUE(TableRows().empty());
  for (const std::string& file : files.All()) {
    EXPECT_FALSE(std::filesystem::exists(file)) << file;
  }
  EXPECT_TRUE(std::filesystem::exists(orphan));
}

TEST_P(SqlCatalogTest, PurgeReportsAFileItCouldNotDeleteAndDeletesTheRest) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}));
  TableFiles files;
  ASSERT_NO_FATAL_FAILURE(WriteSnapshotFiles(*catalog_, {{"db"}, "t"}, &files));
  // A directory where the data file should be cannot be deleted as a file.
  std::filesystem::remove(files.data_file);
  std::filesystem::create_directories(files.data_file + "/inside");
  EXPECT_THAT(catalog_->DropTable({{"db"}, "t"}, /*purge=*/true),
              IsErrorWith(StatusCode::kIOError, files.data_file));
  EXPECT_TRUE(TableRows().empty());
  for (const std::string& file : files.All()) {
    if (file != files.data_file) {
      EXPECT_FALSE(std::filesystem::exists(file)) << file;
    }
  }
}

TEST_P(SqlCatalogTest, PurgeWithACorruptManifestDropsButKeepsTheFiles) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}));
  TableFiles files;
  ASSERT_NO_FATAL_FAILURE(WriteSnapshotFiles(*catalog_, {{"db"}, "t"}, &files));
  WriteFile(files.delete_manifest, "Obj\x01 garbage");
  Status status = catalog_->DropTable({{"db"}, "t"}, /*purge=*/true);
  EXPECT_THAT(status, IsErrorWith(StatusCode::kCorrupt, files.delete_manifest));
  EXPECT_THAT(status.message(), HasSubstr("table db.t was dropped, but purging its files failed"));
  EXPECT_TRUE(TableRows().empty());
  // Nothing was deleted: the metadata still leads to every file.
  for (const std::string& file : files.All()) {
    EXPECT_TRUE(std::filesystem::exists(file)) << file;
  }
}

TEST_P(SqlCatalogTest, PurgeWithUnreadableMetadataDropsNothing) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, Create({{"db"}, "t"}));
  WriteFile(table.metadata_location, "{ not json");
  EXPECT_THAT(catalog_->DropTable({{"db"}, "t"}, /*purge=*/true),
              IsErrorWith(StatusCode::kCorrupt, table.metadata_location));
  EXPECT_THAT(TableRows(), SizeIs(1));
  // Without purge it goes.
  ASSERT_OK(catalog_->DropTable({{"db"}, "t"}));
}

TEST_P(SqlCatalogTest, PurgeOfAMissingManifestListDeletesTheRest) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table v0, Create({{"db"}, "t"}));
  iceberg::Snapshot snapshot;
  snapshot.snapshot_id = 7;
  snapshot.sequence_number = 1;
  snapshot.timestamp_ms = v0.metadata->last_updated_ms + 1;
  snapshot.manifest_list = warehouse_ + "/db/t/metadata/snap-never-written.avro";
  snapshot.summary = {{"operation", "append"}};
  iceberg::SnapshotRef ref;
  ref.snapshot_id = 7;
  ASSERT_OK_AND_ASSIGN(iceberg::Table v1,
                       catalog_->CommitTable({{"db"}, "t"}, {},
                                             {iceberg::update::AddSnapshot{snapshot},
                                              iceberg::update::SetSnapshotRef{"main", ref}}));
  ASSERT_OK(catalog_->DropTable({{"db"}, "t"}, /*purge=*/true));
  EXPECT_FALSE(std::filesystem::exists(v0.metadata_location));
  EXPECT_FALSE(std::filesystem::exists(v1.metadata_location));
}

// ---------------------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------------------

// Commits one new property `<who>-<i>` per commit, retrying lost swaps; returns how many
// conflicts it saw, or -1 on any other error.
int CommitMany(Catalog& catalog, const TableIdentifier& id, const std::string& who, int n) {
  int conflicts = 0;
  for (int i = 0; i < n; ++i) {
    while (true) {
      auto result = catalog.CommitTable(
          id, {}, {iceberg::update::SetProperties{{{fmt::format("{}-{}", who, i), "1"}}}});
      if (result.ok()) break;
      if (result.status().code() != StatusCode::kCommitConflict) {
        ADD_FAILURE() << result.status().ToString();
        return -1;
      }
      ++conflicts;
    }
  }
  return conflicts;
}

// Every commit landed exactly once: each key is present, the version count and the metadata
// log match the number of commits, and no loser's file was left behind.
void ExpectAllCommitsLanded(Catalog& catalog, const TableIdentifier& id,
                            const std::string& metadata_dir, int writers, int commits) {
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, catalog.LoadTable(id));
  for (int w = 0; w < writers; ++w) {
    for (int i = 0; i < commits; ++i) {
      EXPECT_EQ(table.metadata->Property(fmt::format("w{}-{}", w, i)), "1") << w << " " << i;
    }
  }
  const int total = writers * commits;
  EXPECT_EQ(iceberg::MetadataFileVersion(
                std::filesystem::path(table.metadata_location).filename().string()),
            total);
  ASSERT_EQ(table.metadata->metadata_log.size(), static_cast<size_t>(total));
  std::set<std::string> logged;
  for (const auto& entry : table.metadata->metadata_log) logged.insert(entry.metadata_file);
  EXPECT_EQ(logged.size(), static_cast<size_t>(total));
  EXPECT_THAT(FileNames(metadata_dir), SizeIs(total + 1));
}

TEST_P(SqlCatalogTest, ConcurrentThreadsCommitEachChangeExactlyOnce) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}, {{"write.metadata.previous-versions-max", "1000"}}));
  constexpr int kWriters = 4;
  constexpr int kCommits = 10;
  // Half the threads share this catalog, half open their own.
  std::vector<std::thread> threads;
  std::atomic<int> conflicts{0};
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      std::shared_ptr<SqlCatalog> own;
      if (w % 2 == 1) {
        auto opened = Open();
        ASSERT_OK(opened);
        own = *opened;
      }
      Catalog& catalog = own != nullptr ? *own : *catalog_;
      int seen = CommitMany(catalog, {{"db"}, "t"}, fmt::format("w{}", w), kCommits);
      EXPECT_GE(seen, 0);
      conflicts += std::max(seen, 0);
    });
  }
  for (auto& thread : threads) thread.join();
  ExpectAllCommitsLanded(*catalog_, {{"db"}, "t"}, MetadataDir("t"), kWriters, kCommits);
}

// The body of one committer process: this test binary, started again by the test below with
// the FLOE_CATALOG_CHILD_* variables set (and skipped otherwise). A fresh process, as mpirun
// starts them: nothing of the parent's state (SQLite's lock bookkeeping, random generators)
// is inherited.
TEST(SqlCatalogChildProcess, CommitMany) {
  const char* db = getenv("FLOE_CATALOG_CHILD_URI");
  const char* warehouse = getenv("FLOE_CATALOG_CHILD_WAREHOUSE");
  const char* who = getenv("FLOE_CATALOG_CHILD_WHO");
  const char* commits = getenv("FLOE_CATALOG_CHILD_COMMITS");
  if (db == nullptr || warehouse == nullptr || who == nullptr || commits == nullptr) {
    GTEST_SKIP() << "runs only as a child of ConcurrentProcessesCommitEachChangeExactlyOnce";
  }
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, TestDatabase::OpenUri(db));
  SqlCatalogOptions options;
  options.name = "test";
  options.warehouse = warehouse;
  ASSERT_OK_AND_ASSIGN(auto catalog,
                       SqlCatalog::Make(backend, std::make_shared<io::LocalFileIO>(), options));
  EXPECT_GE(CommitMany(*catalog, {{"db"}, "t"}, who, std::atoi(commits)), 0);
}

TEST_P(SqlCatalogTest, ConcurrentProcessesCommitEachChangeExactlyOnce) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  ASSERT_OK(Create({{"db"}, "t"}, {{"write.metadata.previous-versions-max", "1000"}}));
  constexpr int kWriters = 4;
  constexpr int kCommits = 8;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string uri = db_->uri();
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const std::string who = fmt::format("w{}", w);
    const std::string commits = std::to_string(kCommits);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      setenv("FLOE_CATALOG_CHILD_URI", uri.c_str(), 1);
      setenv("FLOE_CATALOG_CHILD_WAREHOUSE", warehouse_.c_str(), 1);
      setenv("FLOE_CATALOG_CHILD_WHO", who.c_str(), 1);
      setenv("FLOE_CATALOG_CHILD_COMMITS", commits.c_str(), 1);
      int devnull = open("/dev/null", O_WRONLY);
      if (devnull >= 0) dup2(devnull, STDOUT_FILENO);
      execl(self.c_str(), self.c_str(), "--gtest_filter=SqlCatalogChildProcess.CommitMany",
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
  ExpectAllCommitsLanded(*catalog_, {{"db"}, "t"}, MetadataDir("t"), kWriters, kCommits);
}

TEST_P(SqlCatalogTest, ConcurrentCreatesMakeExactlyOneTable) {
  ASSERT_OK(catalog_->CreateNamespace({"db"}));
  constexpr int kThreads = 4;
  std::atomic<int> created{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      auto result = Create({{"db"}, "t"});
      if (result.ok()) {
        ++created;
      } else if (result.status().code() == StatusCode::kConstraint) {
        ++refused;
      } else {
        ADD_FAILURE() << result.status().ToString();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(refused.load(), kThreads - 1);
  EXPECT_THAT(FileNames(MetadataDir("t")), SizeIs(1));
  EXPECT_THAT(TableRows(), SizeIs(1));
}

}  // namespace
}  // namespace floe::catalog

namespace floe::catalog {
namespace {

// Real tables written by Spark and the Iceberg Java API: registered (never purged: the
// fixtures are shared) and walked for the files a purge would delete.
class SqlCatalogFixtureTest : public ::testing::Test {
 protected:
  static constexpr const char* kGroup = "../shared/fixtures/iceberg/duckdb-iceberg";

  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, OpenSqliteBackend(dir_.path() + "/c.db"));
    io::LocalFileIOOptions io_options;
    io_options.base_dir = kGroup;
    SqlCatalogOptions options;
    options.name = "fixtures";
    options.warehouse = dir_.path();
    ASSERT_OK_AND_ASSIGN(
        catalog_,
        SqlCatalog::Make(backend, std::make_shared<io::LocalFileIO>(io_options), options));
    ASSERT_OK(catalog_->CreateNamespace({"db"}));
  }

  TempDir dir_;
  std::shared_ptr<SqlCatalog> catalog_;
};

TEST_F(SqlCatalogFixtureTest, V1TableWithManifestsInTheMetadata) {
  const std::string t = "data/persistent/iceberg_v1_deprecated/default/legacy_v1";
  ASSERT_OK_AND_ASSIGN(
      iceberg::Table table,
      catalog_->RegisterTable({{"db"}, "legacy"}, t + "/metadata/v2.metadata.json"));
  EXPECT_EQ(table.metadata->format_version, 1);
  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, catalog_->LoadTable({{"db"}, "legacy"}));
  EXPECT_TRUE(loaded.metadata->Equals(*table.metadata));
  ASSERT_OK_AND_ASSIGN(auto files,
                       ReachableFiles(*catalog_->io(), *loaded.metadata, loaded.metadata_location));
  EXPECT_EQ(files, (std::vector<std::string>{
                       t + "/data/category=alpha/"
                           "00000-3-f0ac2992-4f01-4ee2-b833-f46763b728bd-0-00001.parquet",
                       t + "/data/category=beta/"
                           "00000-3-f0ac2992-4f01-4ee2-b833-f46763b728bd-0-00002.parquet",
                       t + "/metadata/d65f86b0-b799-467f-b1f4-9c697e4c4fc7-m0.avro",
                       t + "/metadata/v1.metadata.json", t + "/metadata/v2.metadata.json"}));
  ASSERT_OK(catalog_->DropTable({{"db"}, "legacy"}));
  EXPECT_TRUE(
      std::filesystem::exists(std::string(kGroup) + "/" + t + "/metadata/v2.metadata.json"));
}

TEST_F(SqlCatalogFixtureTest, V2TableWithEqualityDeletesAndAMissingManifestList) {
  const std::string t = "data/persistent/equality_deletes/warehouse/mydb/mytable";
  ASSERT_OK_AND_ASSIGN(iceberg::Table table,
                       catalog_->RegisterTable({{"db"}, "eq"}, t + "/metadata/v7.metadata.json"));
  ASSERT_OK_AND_ASSIGN(auto files,
                       ReachableFiles(*catalog_->io(), *table.metadata, table.metadata_location));
  // Every file on disk except the version hint and two manifest lists no snapshot names; plus
  // the list a snapshot names that was never copied (listed, though it cannot be read).
  std::vector<std::string> expected;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::string(kGroup) + "/" + t)) {
    if (!entry.is_regular_file()) continue;
    std::string name = entry.path().filename().string();
    if (name == "version-hint.text" ||
        name == "snap-7342794868382145167-3-34f7dec7-90c5-4cd5-b158-5782b73fc010.avro" ||
        name == "snap-1584331123492059582-3-91bf4420-2bae-484f-b724-8184d56d3029.avro") {
      continue;
    }
    expected.push_back(t + entry.path().string().substr(std::string(kGroup).size() + 1 + t.size()));
  }
  expected.push_back(
      t + "/metadata/snap-7342794868382145167-1-34f7dec7-90c5-4cd5-b158-5782b73fc010.avro");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(files, expected);
  EXPECT_THAT(files, SizeIs(25));
}

}  // namespace
}  // namespace floe::catalog
