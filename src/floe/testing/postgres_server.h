#pragma once

// A PostgreSQL server of a test executable's own: initdb into a fresh temporary directory,
// the server on 127.0.0.1 and a free port (and a unix socket in that directory), password
// authentication over TCP, trust on the socket. As root (which initdb refuses) the server runs
// as the user `nobody`. It is started once per test executable, on first use, and stopped
// with its directory removed by a gtest Environment at the end of the run, also when tests
// failed; if the test process dies, the server gets SIGQUIT (parent-death signal).
//
// The binaries are found in $FLOE_POSTGRES_BINDIR, else in the newest
// /usr/lib/postgresql/<version>/bin (postgresql-15, installed by scripts/install-deps). A
// missing server is a failure, never a skip.

#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

#include "floe/common/result.h"

namespace floe::testing {

class PostgresServer {
 public:
  /// The superuser the tests connect as, and its password (TCP only).
  static constexpr const char* kUser = "floe";
  static constexpr const char* kPassword = "pg-test-pw-7c1e";
  /// The database made at start for the tests (each test takes a schema of its own).
  static constexpr const char* kDatabase = "floe_test";

  /// initdb, start, wait until it accepts connections, create kDatabase.
  static Result<std::unique_ptr<PostgresServer>> Start();
  /// Stops the server (fast shutdown) and removes its directory.
  ~PostgresServer();

  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  int port() const { return port_; }
  const std::string& directory() const { return dir_; }

  /// `postgresql://floe:<password>@127.0.0.1:<port>/<database>`, with `extra` appended
  /// (query parameters, "?..."), the password left out when `password` is false.
  std::string Uri(const std::string& database = kDatabase, const std::string& extra = "",
                  bool password = true) const;

  /// Runs `sql` (one or more statements) as the superuser over the unix socket, in
  /// `schema` when given (search_path); the last statement's rows as text ("NULL" for
  /// NULL). kIOError with the server's message.
  Result<std::vector<std::vector<std::string>>> Sql(const std::string& sql,
                                                    const std::string& schema = "",
                                                    const std::string& database = kDatabase) const;

 private:
  PostgresServer() = default;
  Status Launch(const std::string& bindir);

  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

/// The executable's server, started on first use. Errors (no binaries, initdb failed) are
/// returned again on every call.
Result<PostgresServer*> SharedPostgresServer();

/// A fresh schema in the shared server's database for one test, dropped with everything in
/// it when destroyed. Catalogs reach it through `uri()`, which sets search_path to it.
class PostgresSchema {
 public:
  static Result<std::unique_ptr<PostgresSchema>> Make();
  ~PostgresSchema();

  const std::string& name() const { return name_; }
  /// The URI of the schema (password included).
  std::string uri() const;
  /// PostgresServer::Sql in this schema.
  Result<std::vector<std::vector<std::string>>> Sql(const std::string& sql) const;
  PostgresServer& server() const { return *server_; }

 private:
  PostgresSchema(PostgresServer* server, std::string name)
      : server_(server), name_(std::move(name)) {}

  PostgresServer* server_;
  std::string name_;
};

}  // namespace floe::testing
