#pragma once

// Apache Iceberg's REST catalog test server (RESTCatalogServer from the iceberg-open-api
// test fixtures) for a test executable: `java` from PATH runs it with the jars that
// scripts/install-deps copies into .deps/jars/rest-server (relative to the working
// directory, which is the source root under ctest; FLOE_REST_SERVER_JARS overrides it),
// through test/tools/rest_catalog_server/RestCatalogServerLocal.java, which keeps it on
// 127.0.0.1. The catalog behind it is Iceberg's JDBC catalog on a SQLite file, and its
// warehouse a local directory; both live in a fresh temporary directory. Started once per
// test executable on first use, stopped with its directory removed by a gtest Environment
// at the end of the run, also when tests failed; if the test process dies, the JVM gets
// SIGKILL (parent-death signal). Missing jars are a failure naming scripts/install-deps.

#include <sys/types.h>

#include <memory>
#include <string>

#include "floe/common/result.h"

namespace floe::testing {

class RestCatalogServer {
 public:
  /// Starts the server on a free port of 127.0.0.1 and waits until it answers.
  static Result<std::unique_ptr<RestCatalogServer>> Start();
  /// Stops the JVM and removes the directory.
  ~RestCatalogServer();
  RestCatalogServer(const RestCatalogServer&) = delete;
  RestCatalogServer& operator=(const RestCatalogServer&) = delete;

  int port() const { return port_; }
  /// "http://127.0.0.1:<port>".
  std::string uri() const;
  /// The server's warehouse directory: a table db.t lives in <warehouse>/db/t.
  const std::string& warehouse() const { return warehouse_; }
  /// The server's log (its stdout and stderr), for messages.
  std::string Log() const;

 private:
  RestCatalogServer() = default;

  std::string dir_;
  std::string warehouse_;
  int port_ = 0;
  pid_t pid_ = -1;
};

/// The executable's server, started on first use. A failed start is returned again on every
/// call.
Result<RestCatalogServer*> SharedRestCatalogServer();

}  // namespace floe::testing
