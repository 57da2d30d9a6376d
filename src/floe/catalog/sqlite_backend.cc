#include "floe/catalog/sqlite_backend.h"

#include <sqlite3.h>

#include <chrono>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace floe::catalog {
namespace {

// Closes a connection when its owner lets go of it.
struct ConnectionCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Connection = std::unique_ptr<sqlite3, ConnectionCloser>;

struct StatementFinalizer {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

class SqliteBackend;

class SqliteSession final : public SqlSession {
 public:
  SqliteSession(const SqliteBackend& backend, sqlite3* db) : backend_(backend), db_(db) {}

  Result<std::vector<SqlRow>> Query(std::string_view purpose, const std::string& sql,
                                    const std::vector<SqlValue>& params) override;
  Result<int64_t> Execute(std::string_view purpose, const std::string& sql,
                          const std::vector<SqlValue>& params) override;

 private:
  Result<Statement> Prepare(std::string_view purpose, const std::string& sql,
                            const std::vector<SqlValue>& params);
  Status Error(std::string_view purpose, int rc) const;

  const SqliteBackend& backend_;
  sqlite3* db_;
};

class SqliteBackend final : public SqlBackend {
 public:
  SqliteBackend(std::string path, SqliteOptions options)
      : path_(std::move(path)), options_(options) {}

  const std::string& path() const { return path_; }

  // Takes an idle connection or opens a new one.
  Result<Connection> Acquire() const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        Connection db = std::move(idle_.back());
        idle_.pop_back();
        return db;
      }
    }
    return OpenConnection();
  }

  // Returns a connection to the pool (or closes it when the pool is full). A connection
  // still inside a transaction (after a failed rollback) is never reused.
  void Release(Connection db) const {
    if (db == nullptr || sqlite3_get_autocommit(db.get()) == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (static_cast<int>(idle_.size()) < options_.max_idle_connections) {
      idle_.push_back(std::move(db));
    }
  }

  Status Run(const std::function<Status(SqlSession&)>& fn) const override {
    FLOE_ASSIGN_OR_RAISE(Connection db, Acquire());
    SqliteSession session(*this, db.get());
    Status status = fn(session);
    Release(std::move(db));
    return status;
  }

  Status Transact(std::string_view purpose,
                  const std::function<Status(SqlSession&)>& fn) const override {
    FLOE_ASSIGN_OR_RAISE(Connection db, Acquire());
    SqliteSession session(*this, db.get());
    // BEGIN IMMEDIATE takes the write lock now (waiting through the busy handler), so the
    // reads inside the transaction see the state the writes will apply to. A deferred
    // transaction that reads first and writes later fails with SQLITE_BUSY_SNAPSHOT in WAL
    // mode instead of waiting.
    Status status = session.Execute(purpose, "BEGIN IMMEDIATE", {}).status();
    if (!status.ok()) {
      Release(std::move(db));
      return status;
    }
    status = fn(session);
    if (status.ok()) {
      status = session.Execute(purpose, "COMMIT", {}).status();
    }
    if (!status.ok() && sqlite3_get_autocommit(db.get()) == 0) {
      // The rollback's own error is secondary to the one that caused it.
      (void)session.Execute(purpose, "ROLLBACK", {});
    }
    Release(std::move(db));
    return status;
  }

  std::string ToString() const override { return fmt::format("SQLite catalog {}", path_); }

  Status Initialize() {
    FLOE_ASSIGN_OR_RAISE(Connection db, Acquire());
    SqliteSession session(*this, db.get());
    // WAL lets readers run while one writer commits; the mode is stored in the file, so
    // this is a no-op for a database already in WAL mode.
    // Connections opening a new file at the same moment race for the mode switch, which the
    // busy timeout does not cover ("database is locked"): retry for a while.
    Result<std::vector<SqlRow>> switched = std::vector<SqlRow>{};
    for (int attempt = 0;; ++attempt) {
      switched = session.Query("switch to WAL journal mode", "PRAGMA journal_mode=WAL", {});
      if (switched.ok() || attempt >= 200 ||
          switched.status().message().find("locked") == std::string::npos) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10 + attempt % 10));
    }
    FLOE_ASSIGN_OR_RAISE(std::vector<SqlRow> rows, std::move(switched));
    if (rows.empty() || rows[0].empty() || !rows[0][0].has_value() || *rows[0][0] != "wal") {
      return Status::IOError(
          "catalog file {}: cannot switch to WAL journal mode (mode is {})", path_,
          rows.empty() || rows[0].empty() || !rows[0][0] ? "unknown" : *rows[0][0]);
    }
    Release(std::move(db));
    return Status::OK();
  }

 private:
  Result<Connection> OpenConnection() const {
    sqlite3* raw = nullptr;
    int rc =
        sqlite3_open_v2(path_.c_str(), &raw,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    Connection db(raw);
    if (rc != SQLITE_OK) {
      return Status::IOError("cannot open catalog file {}: {}", path_,
                             raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
    }
    sqlite3_extended_result_codes(db.get(), 1);
    sqlite3_busy_timeout(db.get(), static_cast<int>(options_.busy_timeout.count()));
    return db;
  }

  std::string path_;
  SqliteOptions options_;
  mutable std::mutex mutex_;
  mutable std::vector<Connection> idle_;
};

Status SqliteSession::Error(std::string_view purpose, int rc) const {
  std::string message =
      fmt::format("catalog file {}: {} failed: {}", backend_.path(), purpose, sqlite3_errmsg(db_));
  if ((rc & 0xff) == SQLITE_CONSTRAINT) return Status::Constraint(std::move(message));
  return Status::IOError(std::move(message));
}

Result<Statement> SqliteSession::Prepare(std::string_view purpose, const std::string& sql,
                                         const std::vector<SqlValue>& params) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr);
  Statement stmt(raw);
  if (rc != SQLITE_OK) return Error(purpose, rc);
  if (stmt == nullptr) {
    return Status::Internal("catalog file {}: {}: empty statement", backend_.path(), purpose);
  }
  if (sqlite3_bind_parameter_count(stmt.get()) != static_cast<int>(params.size())) {
    return Status::Internal("catalog file {}: {}: the statement has {} parameters, {} given",
                            backend_.path(), purpose, sqlite3_bind_parameter_count(stmt.get()),
                            params.size());
  }
  for (size_t i = 0; i < params.size(); ++i) {
    int index = static_cast<int>(i) + 1;
    rc = params[i].has_value()
             ? sqlite3_bind_text64(stmt.get(), index, params[i]->data(), params[i]->size(),
                                   SQLITE_TRANSIENT, SQLITE_UTF8)
             : sqlite3_bind_null(stmt.get(), index);
    if (rc != SQLITE_OK) return Error(purpose, rc);
  }
  return stmt;
}

Result<std::vector<SqlRow>> SqliteSession::Query(std::string_view purpose, const std::string& sql,
                                                 const std::vector<SqlValue>& params) {
  FLOE_ASSIGN_OR_RAISE(Statement stmt, Prepare(purpose, sql, params));
  std::vector<SqlRow> rows;
  const int columns = sqlite3_column_count(stmt.get());
  while (true) {
    int rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return Error(purpose, rc);
    SqlRow row;
    row.reserve(columns);
    for (int c = 0; c < columns; ++c) {
      if (sqlite3_column_type(stmt.get(), c) == SQLITE_NULL) {
        row.emplace_back(std::nullopt);
        continue;
      }
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt.get(), c));
      int size = sqlite3_column_bytes(stmt.get(), c);
      row.emplace_back(std::string(text != nullptr ? text : "", static_cast<size_t>(size)));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<int64_t> SqliteSession::Execute(std::string_view purpose, const std::string& sql,
                                       const std::vector<SqlValue>& params) {
  FLOE_ASSIGN_OR_RAISE(Statement stmt, Prepare(purpose, sql, params));
  while (true) {
    int rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return Error(purpose, rc);
  }
  return static_cast<int64_t>(sqlite3_changes(db_));
}

}  // namespace

Result<SqlBackendPtr> OpenSqliteBackend(const std::string& path, SqliteOptions options) {
  if (path.empty()) return Status::Invalid("SQLite catalog: no database file given");
  auto backend = std::make_shared<SqliteBackend>(path, options);
  FLOE_RETURN_NOT_OK(backend->Initialize());
  return SqlBackendPtr(std::move(backend));
}

}  // namespace floe::catalog
