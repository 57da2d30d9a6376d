#pragma once

// Helpers shared by the catalog tests: a temporary directory, a small schema, plain SQL
// over the catalog file, a fresh catalog database on SQLite or PostgreSQL, listing a table's
// metadata directory, and a FileIO that lets a test act between a commit's read of its base
// and its write.

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/catalog/postgres_backend.h"
#include "floe/catalog/sql_backend.h"
#include "floe/catalog/sqlite_backend.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/table_location.h"
#include "floe/io/file_io.h"
#include "floe/testing/postgres_server.h"
#include "floe/type/type.h"

namespace floe::catalog::testing {

using ::floe::testing::PostgresSchema;

/// A fresh directory, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "floe-catalog-XXXXXX").string();
    char* made = mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline iceberg::SchemaPtr TestSchema() {
  auto schema = iceberg::Schema::Make(
      0, {Field("id", Int64(), /*nullable=*/false, 1), Field("data", String(), true, 2)});
  EXPECT_TRUE(schema.ok());
  return *schema;
}

/// Runs `sql` on the database file with the sqlite3 C API; NULL reads as "NULL".
inline std::vector<std::vector<std::string>> SqlRows(const std::string& db_path,
                                                     const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  sqlite3_busy_timeout(db, 30000);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
      const auto* text = sqlite3_column_text(stmt, c);
      row.push_back(text == nullptr ? "NULL" : reinterpret_cast<const char*>(text));
    }
    rows.push_back(std::move(row));
  }
  EXPECT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

/// A fresh database for one test of the SQL catalog: a SQLite file in a directory of the
/// test, or ("postgres") a schema of its own on the test executable's PostgreSQL server.
class TestDatabase {
 public:
  /// `backend` is "sqlite" or "postgres"; `dir` holds the SQLite file.
  static Result<std::unique_ptr<TestDatabase>> Make(const std::string& backend,
                                                    const std::string& dir) {
    std::unique_ptr<TestDatabase> db(new TestDatabase());
    if (backend == "postgres") {
      FLOE_ASSIGN_OR_RAISE(db->schema_, PostgresSchema::Make());
    } else if (backend == "sqlite") {
      db->file_ = dir + "/catalog.db";
    } else {
      return Status::Invalid("no test database of kind {}", backend);
    }
    return db;
  }

  bool postgres() const { return schema_ != nullptr; }
  /// The SQLite file (empty on PostgreSQL).
  const std::string& file() const { return file_; }
  /// What OpenCatalog and OpenUri take: "sqlite:<file>" or a postgresql:// URI.
  std::string uri() const { return postgres() ? schema_->uri() : "sqlite:" + file_; }
  /// A new backend over the database.
  Result<SqlBackendPtr> Open() const { return OpenUri(uri()); }
  /// The backend of a uri() (in a child process, say).
  static Result<SqlBackendPtr> OpenUri(const std::string& uri) {
    if (IsPostgresUri(uri)) return OpenPostgresBackend(uri);
    return OpenSqliteBackend(uri.substr(std::string("sqlite:").size()));
  }

  /// Runs `sql` with the database's own client library (sqlite3, libpq), not floe's
  /// backend; the rows as text, NULL as "NULL".
  std::vector<std::vector<std::string>> Rows(const std::string& sql) const;

 private:
  TestDatabase() = default;
  std::string file_;
  std::unique_ptr<PostgresSchema> schema_;
};

/// The names of the files in a directory, sorted (empty when it does not exist).
inline std::vector<std::string> FileNames(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline std::vector<std::vector<std::string>> TestDatabase::Rows(const std::string& sql) const {
  if (!postgres()) return SqlRows(file_, sql);
  auto rows = schema_->Sql(sql);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() ? *rows : std::vector<std::vector<std::string>>{};
}

// A LocalFileIO that runs a callback (once) when a metadata file is opened for reading:
// the moment a commit reads its base, before which a concurrent writer wins.
class ReadHookFileIO final : public io::FileIO {
 public:
  std::function<void()> before_metadata_read;

  Result<std::unique_ptr<io::RandomAccessFile>> NewInputFile(
      const std::string& path) const override {
    if (before_metadata_read && iceberg::IsMetadataFileName(path)) {
      auto hook = std::move(before_metadata_read);
      const_cast<ReadHookFileIO*>(this)->before_metadata_read = nullptr;
      hook();
    }
    return local_.NewInputFile(path);
  }
  Result<std::unique_ptr<io::OutputStream>> NewOutputFile(const std::string& path,
                                                          io::CreateMode mode) const override {
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
  std::string ToString() const override { return "ReadHookFileIO"; }

 private:
  io::LocalFileIO local_;
};

}  // namespace floe::catalog::testing
