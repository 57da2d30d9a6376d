#pragma once

// The SQL catalog's tables in a PostgreSQL database (libpq). Connections are pooled; a
// Transact holds the catalog's write lock (a transaction-level advisory lock) from its first
// statement, so read-modify-writes are serialised across threads and processes the way
// SQLite's BEGIN IMMEDIATE serialises them. A connection lost while a write commits is
// resolved with the transaction's id (pg_xact_status) on a new connection: the write is
// retried only when it certainly did not commit, and kCommitStateUnknown is returned when
// no connection can tell.

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/catalog/sql_backend.h"
#include "floe/common/result.h"

namespace floe::catalog {

/// How a PostgreSQL catalog database is used.
struct PostgresOptions {
  /// How long a Transact waits for the catalog's write lock (held by a writer in another
  /// thread or process) before it fails with kIOError.
  std::chrono::milliseconds lock_timeout{30000};
  /// How long the outcome of a commit whose connection was lost is looked for (through new
  /// connections) before it is kCommitStateUnknown.
  std::chrono::milliseconds resolve_timeout{30000};
  /// How often a statement or transaction runs again on a new connection after its
  /// connection was lost (only when it certainly did not commit).
  int max_reconnects = 3;
  /// Idle connections kept open for reuse.
  int max_idle_connections = 4;
};

/// A PostgreSQL database to connect to, as libpq connection parameters.
struct PostgresConnection {
  /// libpq keywords and values (host, port, dbname, user, password, sslmode, ...), in the
  /// order given.
  std::vector<std::pair<std::string, std::string>> params;

  /// The value of a keyword; empty when absent.
  std::string Get(std::string_view keyword) const;
  /// The connection as a URI without secrets: "postgresql://user@host:port/db?sslmode=...",
  /// every parameter but `password` and `sslpassword`.
  std::string Redacted() const;
};

/// Whether `uri` names a PostgreSQL database: `postgresql://` or `postgres://` (libpq's URI),
/// `postgresql+<driver>://` (SQLAlchemy's, as pyiceberg takes it) or `jdbc:postgresql:`
/// (the JDBC driver's, as Iceberg's JdbcCatalog takes it). Schemes ignore case.
bool IsPostgresUri(std::string_view uri);

/// The connection a PostgreSQL URI names.
///  - `postgresql://[user[:password]@][host][:port][/dbname][?param=value&...]` and its
///    `postgres://` and `postgresql+<driver>://` spellings are parsed by libpq: the query
///    parameters are libpq's (sslmode, sslrootcert, sslcert, sslkey, connect_timeout,
///    options, host=/socket/dir, ...).
///  - `jdbc:postgresql://host[:port][,host2[:port2]]/dbname?user=..&password=..` (and
///    `jdbc:postgresql:dbname`, meaning localhost) takes the JDBC driver's parameter names:
///    user, password, ssl (true: sslmode verify-full unless sslmode is given), sslmode,
///    sslcert, sslkey, sslrootcert, sslpassword, connectTimeout, ApplicationName,
///    currentSchema and options; other names are passed to libpq as they are.
/// Without a password in the URI, libpq takes PGPASSWORD, then ~/.pgpass (PGPASSFILE).
/// kInvalidArgument for a malformed URI; no error shows the password.
Result<PostgresConnection> ParsePostgresUri(std::string_view uri);

/// Connects to the database (once now, to report a wrong address or password early; then on
/// demand, up to the pool's needs). kIOError naming the database (no password) with libpq's
/// reason when the first connection fails.
Result<SqlBackendPtr> OpenPostgresBackend(PostgresConnection connection,
                                          PostgresOptions options = {});
/// ParsePostgresUri, then OpenPostgresBackend.
Result<SqlBackendPtr> OpenPostgresBackend(std::string_view uri, PostgresOptions options = {});

}  // namespace floe::catalog
