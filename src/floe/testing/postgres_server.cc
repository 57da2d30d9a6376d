#include "floe/testing/postgres_server.h"

#include "floe/testing/child_process.h"
#include "floe/testing/shared_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace floe::testing {
namespace {

namespace fs = std::filesystem;

// The directory holding initdb and postgres.
Result<std::string> FindBindir() {
  if (const char* dir = std::getenv("FLOE_POSTGRES_BINDIR"); dir != nullptr && dir[0] != '\0') {
    if (!fs::exists(fs::path(dir) / "postgres")) {
      return Status::NotFound("FLOE_POSTGRES_BINDIR={} holds no postgres binary", dir);
    }
    return std::string(dir);
  }
  std::vector<std::pair<int, std::string>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string version = entry.path().filename().string();
    if (!std::all_of(version.begin(), version.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        version.empty()) {
      continue;
    }
    const fs::path bin = entry.path() / "bin";
    if (fs::exists(bin / "initdb") && fs::exists(bin / "postgres")) {
      found.emplace_back(std::stoi(version), bin.string());
    }
  }
  if (found.empty()) {
    return Status::NotFound(
        "no PostgreSQL server binaries in /usr/lib/postgresql/<version>/bin (install "
        "postgresql-15 with scripts/install-deps, or set FLOE_POSTGRES_BINDIR)");
  }
  std::sort(found.begin(), found.end());
  return found.back().second;
}

Result<RunAs> ServerUser() {
  RunAs who;
  if (geteuid() != 0) return who;
  const passwd* nobody = getpwnam("nobody");
  if (nobody == nullptr) {
    return Status::NotFound("running as root, and there is no user 'nobody' to run PostgreSQL as");
  }
  who.switch_user = true;
  who.uid = nobody->pw_uid;
  who.gid = nobody->pw_gid;
  return who;
}

std::string SocketConninfo(const std::string& dir, int port, const std::string& database) {
  return fmt::format("host='{}' port={} dbname='{}' user={} connect_timeout=10", dir, port,
                     database, PostgresServer::kUser);
}

}  // namespace

Result<std::unique_ptr<PostgresServer>> PostgresServer::Start() {
  FLOE_ASSIGN_OR_RAISE(std::string bindir, FindBindir());
  FLOE_ASSIGN_OR_RAISE(RunAs who, ServerUser());
  std::unique_ptr<PostgresServer> server(new PostgresServer());
  std::string pattern = (fs::temp_directory_path() / "floe-postgres-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::IOError("cannot make a temporary directory: {}", std::strerror(errno));
  }
  server->dir_ = pattern;
  const std::string pwfile = server->dir_ + "/pwfile";
  std::ofstream(pwfile) << kPassword << "\n";
  if (who.switch_user && (chown(server->dir_.c_str(), who.uid, who.gid) != 0 ||
                          chown(pwfile.c_str(), who.uid, who.gid) != 0)) {
    return Status::IOError("cannot give {} to the server's user: {}", server->dir_,
                           std::strerror(errno));
  }
  chmod(pwfile.c_str(), 0600);
  const std::string log = server->dir_ + "/initdb.log";
  FLOE_ASSIGN_OR_RAISE(
      pid_t initdb, Spawn({bindir + "/initdb", "-D", server->dir_ + "/data", "-U", kUser,
                           "--pwfile=" + pwfile, "--auth-host=scram-sha-256", "--auth-local=trust",
                           "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"},
                          log, who));
  int status = 0;
  waitpid(initdb, &status, 0);
  fs::remove(pwfile);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::IOError("initdb failed (status {}):\n{}", status, Tail(ReadFileText(log)));
  }
  FLOE_RETURN_NOT_OK(server->Launch(bindir));
  FLOE_RETURN_NOT_OK(
      server->Sql(fmt::format("CREATE DATABASE {}", kDatabase), "", "postgres").status());
  return server;
}

Status PostgresServer::Launch(const std::string& bindir) {
  FLOE_ASSIGN_OR_RAISE(RunAs who, ServerUser());
  const std::string log = dir_ + "/server.log";
  std::string last;
  for (int attempt = 0; attempt < 5; ++attempt) {
    FLOE_ASSIGN_OR_RAISE(port_, FreePort());
    // Durability is not tested here: no fsync, no full-page writes.
    FLOE_ASSIGN_OR_RAISE(pid_, Spawn({bindir + "/postgres",
                                      "-D",
                                      dir_ + "/data",
                                      "-k",
                                      dir_,
                                      "-h",
                                      "127.0.0.1",
                                      "-p",
                                      std::to_string(port_),
                                      "-c",
                                      "fsync=off",
                                      "-c",
                                      "synchronous_commit=off",
                                      "-c",
                                      "full_page_writes=off",
                                      "-c",
                                      "max_connections=200",
                                      "-c",
                                      "shared_buffers=16MB",
                                      "-c",
                                      "log_min_messages=warning",
                                      "-c",
                                      "log_min_error_statement=panic"},
                                     log, who));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    const std::string conninfo = SocketConninfo(dir_, port_, "postgres");
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      if (PQping(conninfo.c_str()) == PQPING_OK) return Status::OK();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    last = Tail(ReadFileText(log));
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
      return Status::IOError("PostgreSQL did not start within 60 s:\n{}", last);
    }
    // Another process took the port between the probe and the server's bind: again.
    if (last.find("could not bind") == std::string::npos &&
        last.find("already in use") == std::string::npos) {
      break;
    }
  }
  return Status::IOError("PostgreSQL did not start:\n{}", last);
}

PostgresServer::~PostgresServer() {
  // Fast shutdown: sessions are ended, the server exits.
  StopChild(pid_, SIGINT, std::chrono::seconds(30), SIGQUIT);
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

std::string PostgresServer::Uri(const std::string& database, const std::string& extra,
                                bool password) const {
  return fmt::format("postgresql://{}{}@127.0.0.1:{}/{}{}", kUser,
                     password ? std::string(":") + kPassword : "", port_, database, extra);
}

Result<std::vector<std::vector<std::string>>> PostgresServer::Sql(
    const std::string& sql, const std::string& schema, const std::string& database) const {
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(
      PQconnectdb(SocketConninfo(dir_, port_, database).c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return Status::IOError("test server: cannot connect: {}", PQerrorMessage(conn.get()));
  }
  PQsetNoticeProcessor(
      conn.get(), [](void*, const char*) {}, nullptr);
  const std::string text =
      schema.empty() ? sql : fmt::format("SET search_path TO \"{}\"; {}", schema, sql);
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn.get(), text.c_str()), &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    return Status::IOError("test server: {}: {}", sql, PQresultErrorMessage(result.get()));
  }
  std::vector<std::vector<std::string>> rows;
  for (int r = 0; r < PQntuples(result.get()); ++r) {
    std::vector<std::string> row;
    for (int c = 0; c < PQnfields(result.get()); ++c) {
      row.push_back(PQgetisnull(result.get(), r, c) ? "NULL" : PQgetvalue(result.get(), r, c));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// ---------------------------------------------------------------------------------------
// The executable's server

Result<PostgresServer*> SharedPostgresServer() { return SharedServer<PostgresServer>::Get(); }

Result<std::unique_ptr<PostgresSchema>> PostgresSchema::Make() {
  static std::atomic<int> counter{0};
  FLOE_ASSIGN_OR_RAISE(PostgresServer * server, SharedPostgresServer());
  std::string name = fmt::format("test_{}_{}", getpid(), counter++);
  FLOE_RETURN_NOT_OK(server->Sql(fmt::format("CREATE SCHEMA {}", name)).status());
  return std::unique_ptr<PostgresSchema>(new PostgresSchema(server, std::move(name)));
}

PostgresSchema::~PostgresSchema() {
  (void)server_->Sql(fmt::format("DROP SCHEMA {} CASCADE", name_));
}

std::string PostgresSchema::uri() const {
  return server_->Uri(PostgresServer::kDatabase, "?options=-csearch_path%3D" + name_);
}

Result<std::vector<std::vector<std::string>>> PostgresSchema::Sql(const std::string& sql) const {
  return server_->Sql(sql, name_);
}

}  // namespace floe::testing
