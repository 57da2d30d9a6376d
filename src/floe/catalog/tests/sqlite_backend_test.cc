// The SQLite backend on its own: parameters and NULLs, changed-row counts, transactions
// that commit or roll back, constraint violations, and lock waits that give up with an
// error naming the file and the purpose.

#include "floe/catalog/sqlite_backend.h"

#include <sqlite3.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/catalog/tests/catalog_test_internal.h"
#include "floe/testing/matchers.h"

namespace floe::catalog {
namespace {

using ::floe::catalog::testing::SqlRows;
using ::floe::catalog::testing::TempDir;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using Rows = std::vector<std::vector<std::string>>;

class SqliteBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.path() + "/b.db";
    ASSERT_OK_AND_ASSIGN(backend_, OpenSqliteBackend(db_));
    ASSERT_OK(backend_->Run([](SqlSession& s) {
      return s.Execute("create", "CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)").status();
    }));
  }

  TempDir dir_;
  std::string db_;
  SqlBackendPtr backend_;
};

TEST_F(SqliteBackendTest, ParametersNullsAndChangedRows) {
  ASSERT_OK(backend_->Run([](SqlSession& s) -> Status {
    FLOE_ASSIGN_OR_RAISE(int64_t n, s.Execute("insert", "INSERT INTO kv VALUES (?, ?), (?, ?)",
                                              {"a", "1", "b", std::nullopt}));
    EXPECT_EQ(n, 2);
    FLOE_ASSIGN_OR_RAISE(n, s.Execute("update", "UPDATE kv SET v = ? WHERE k = ?", {"x", "zz"}));
    EXPECT_EQ(n, 0);
    // Text with quotes and an embedded NUL goes through unchanged.
    std::string odd("it's\0odd", 8);
    FLOE_ASSIGN_OR_RAISE(n, s.Execute("insert", "INSERT INTO kv VALUES (?, ?)", {"c", odd}));
    EXPECT_EQ(n, 1);
    FLOE_ASSIGN_OR_RAISE(auto rows, s.Query("select", "SELECT k, v FROM kv ORDER BY k"));
    EXPECT_EQ(rows, (std::vector<SqlRow>{{"a", "1"}, {"b", std::nullopt}, {"c", odd}}));
    return Status::OK();
  }));
  EXPECT_EQ(SqlRows(db_, "PRAGMA journal_mode"), (Rows{{"wal"}}));
}

TEST_F(SqliteBackendTest, ErrorsNameTheFileAndThePurpose) {
  Status status = backend_->Run([](SqlSession& s) {
    return s.Execute("insert twice", "INSERT INTO kv VALUES ('a', '1'), ('a', '2')").status();
  });
  EXPECT_THAT(status, IsErrorWith(StatusCode::kConstraint, db_ + ": insert twice failed"));
  status = backend_->Run([](SqlSession& s) { return s.Query("read a typo", "SELEC 1").status(); });
  EXPECT_THAT(status, IsErrorWith(StatusCode::kIOError, db_ + ": read a typo failed"));
  status = backend_->Run(
      [](SqlSession& s) { return s.Query("count parameters", "SELECT ?", {}).status(); });
  EXPECT_THAT(status, IsErrorWith(StatusCode::kInternal, "1 parameters, 0 given"));
}

TEST_F(SqliteBackendTest, TransactionsCommitOrRollBack) {
  ASSERT_OK(backend_->Transact("commit both", [](SqlSession& s) -> Status {
    FLOE_RETURN_NOT_OK(s.Execute("insert", "INSERT INTO kv VALUES ('a', '1')").status());
    return s.Execute("insert", "INSERT INTO kv VALUES ('b', '2')").status();
  }));
  Status failed = backend_->Transact("roll back", [](SqlSession& s) -> Status {
    FLOE_RETURN_NOT_OK(s.Execute("insert", "INSERT INTO kv VALUES ('c', '3')").status());
    return Status::Invalid("changed my mind");
  });
  EXPECT_THAT(failed, IsErrorWith(StatusCode::kInvalidArgument, "changed my mind"));
  EXPECT_EQ(SqlRows(db_, "SELECT k FROM kv ORDER BY k"), (Rows{{"a"}, {"b"}}));
  // The connection went back to the pool outside any transaction.
  ASSERT_OK(backend_->Transact("again", [](SqlSession& s) {
    return s.Execute("insert", "INSERT INTO kv VALUES ('d', '4')").status();
  }));
  EXPECT_EQ(SqlRows(db_, "SELECT k FROM kv ORDER BY k"), (Rows{{"a"}, {"b"}, {"d"}}));
}

TEST_F(SqliteBackendTest, WaitsForTheWriteLockThenGivesUp) {
  SqliteOptions options;
  options.busy_timeout = std::chrono::milliseconds(200);
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr impatient, OpenSqliteBackend(db_, options));
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto start = std::chrono::steady_clock::now();
  Status status = impatient->Transact("take the lock", [](SqlSession& s) {
    return s.Execute("insert", "INSERT INTO kv VALUES ('x', 'y')").status();
  });
  auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_THAT(status, IsErrorWith(StatusCode::kIOError, db_ + ": take the lock failed"));
  EXPECT_GE(waited, std::chrono::milliseconds(150));
  // Readers are not blocked by the waiting writer, and do not see its uncommitted row.
  ASSERT_EQ(sqlite3_exec(holder, "INSERT INTO kv VALUES ('h', '1')", nullptr, nullptr, nullptr),
            SQLITE_OK);
  ASSERT_OK(impatient->Run([](SqlSession& s) -> Status {
    FLOE_ASSIGN_OR_RAISE(auto rows, s.Query("read", "SELECT k FROM kv"));
    EXPECT_TRUE(rows.empty());
    return Status::OK();
  }));
  ASSERT_EQ(sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(holder);
  ASSERT_OK(impatient->Transact("take the lock", [](SqlSession& s) {
    return s.Execute("insert", "INSERT INTO kv VALUES ('x', 'y')").status();
  }));
}

TEST(SqliteBackendOpenTest, BadPaths) {
  EXPECT_THAT(OpenSqliteBackend(""), IsError(StatusCode::kInvalidArgument));
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/dir.db");
  EXPECT_THAT(OpenSqliteBackend(dir.path() + "/dir.db"),
              IsErrorWith(StatusCode::kIOError, dir.path() + "/dir.db"));
}

}  // namespace
}  // namespace floe::catalog
