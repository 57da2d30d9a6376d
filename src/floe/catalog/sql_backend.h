#pragma once

// The narrow seam between the SQL catalog and a database: connections, prepared statements
// with text parameters, transactions and changed-row counts. SqlCatalog speaks only this
// interface; SQLite (sqlite_backend.h) and PostgreSQL (postgres_backend.h) implement it, and
// every statement SqlCatalog sends is valid in both.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::catalog {

/// A statement parameter or a column value: text, or nullopt for SQL NULL.
using SqlValue = std::optional<std::string>;
/// One result row, columns in select-list order.
using SqlRow = std::vector<SqlValue>;

/// One connection in use by one caller. Statements are written with `?` placeholders (a
/// backend whose database numbers its parameters rewrites them). Every call names its
/// purpose ("list tables", "swap metadata pointer") for error messages.
///
/// Errors: a unique or primary key violation is kConstraint; a write whose commit may or may
/// not have happened (the connection was lost and no new one could tell) is
/// kCommitStateUnknown; every other database error is kIOError naming the database and the
/// purpose, and means that what failed did not commit.
class SqlSession {
 public:
  virtual ~SqlSession() = default;

  /// Runs a statement that only reads and returns all its rows. A backend may run it again
  /// on a new connection after the connection was lost.
  virtual Result<std::vector<SqlRow>> Query(std::string_view purpose, const std::string& sql,
                                            const std::vector<SqlValue>& params = {}) = 0;
  /// Runs a statement that changes rows (INSERT, UPDATE, DELETE, DDL) and returns how many
  /// rows it changed.
  virtual Result<int64_t> Execute(std::string_view purpose, const std::string& sql,
                                  const std::vector<SqlValue>& params = {}) = 0;
};

/// A database the SQL catalog keeps its tables in. Implementations are thread-safe; each
/// call runs on a connection no other caller uses at the same time.
class SqlBackend {
 public:
  virtual ~SqlBackend() = default;

  /// Runs `fn` on a connection in autocommit mode: each statement commits on its own.
  virtual Status Run(const std::function<Status(SqlSession&)>& fn) const = 0;

  /// Runs `fn` inside one read-write transaction that holds the database's write lock from
  /// its first statement (SQLite: BEGIN IMMEDIATE; PostgreSQL: a transaction-level advisory
  /// lock), so that a read-modify-write cannot interleave with another writer in any
  /// process. Commits when `fn` returns OK and rolls back otherwise (returning `fn`'s
  /// error). Waits for other writers up to the backend's busy timeout. `fn` may run more
  /// than once: after a lost connection, when its transaction certainly did not commit, a
  /// backend runs it again on a new connection, so it must not have effects outside the
  /// session that a second run would repeat.
  virtual Status Transact(std::string_view purpose,
                          const std::function<Status(SqlSession&)>& fn) const = 0;

  /// What the backend is connected to, for messages ("SQLite catalog /w/catalog.db",
  /// "PostgreSQL catalog postgresql://floe@db:5432/lake"), secrets redacted.
  virtual std::string ToString() const = 0;
};

using SqlBackendPtr = std::shared_ptr<const SqlBackend>;

}  // namespace floe::catalog
