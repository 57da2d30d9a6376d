#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "floe/catalog/sql_backend.h"
#include "floe/common/result.h"

namespace floe::catalog {

/// How a SQLite catalog database is opened.
struct SqliteOptions {
  /// How long a statement waits for another connection's (or process's) lock before it
  /// fails with kIOError.
  std::chrono::milliseconds busy_timeout{30000};
  /// Idle connections kept open for reuse.
  int max_idle_connections = 4;
};

/// Opens (creating when missing, with its parent directories) the SQLite database at
/// `path` and switches it to WAL journal mode. Connections are pooled; each has the busy
/// timeout set, so that writers in several threads and processes are serialised by the
/// database's locks. kIOError naming the file when it cannot be opened.
///
/// SQLite keeps its file-lock bookkeeping per process: a process must not fork() while it
/// holds connections to a database that the child will open too (close the backend first,
/// or start the child with exec, as mpirun does).
Result<SqlBackendPtr> OpenSqliteBackend(const std::string& path, SqliteOptions options = {});

}  // namespace floe::catalog
