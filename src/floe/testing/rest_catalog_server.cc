#include "floe/testing/rest_catalog_server.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "floe/testing/child_process.h"
#include "floe/testing/shared_server.h"

namespace floe::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLauncher = "test/tools/rest_catalog_server/RestCatalogServerLocal.java";

Result<std::string> JarDirectory() {
  const char* env = std::getenv("FLOE_REST_SERVER_JARS");
  const std::string dir = env != nullptr && env[0] != '\0' ? env : ".deps/jars/rest-server";
  std::error_code ec;
  bool has_fixture = false;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().find("iceberg-open-api") != std::string::npos) {
      has_fixture = true;
    }
  }
  if (!has_fixture) {
    return Status::NotFound(
        "Iceberg's REST catalog test server is not installed: {} holds no iceberg-open-api "
        "jar (run scripts/install-deps)",
        fs::absolute(dir).string());
  }
  return fs::absolute(dir).string();
}

}  // namespace

std::string RestCatalogServer::uri() const { return fmt::format("http://127.0.0.1:{}", port_); }

std::string RestCatalogServer::Log() const { return ReadFileText(dir_ + "/server.log"); }

Result<std::unique_ptr<RestCatalogServer>> RestCatalogServer::Start() {
  FLOE_ASSIGN_OR_RAISE(std::string jars, JarDirectory());
  if (!fs::exists(kLauncher)) {
    return Status::NotFound("{} not found (tests run from the source root)", kLauncher);
  }
  std::unique_ptr<RestCatalogServer> server(new RestCatalogServer());
  std::string pattern = (fs::temp_directory_path() / "floe-rest-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::IOError("cannot make a temporary directory: {}", std::strerror(errno));
  }
  server->dir_ = pattern;
  server->warehouse_ = server->dir_ + "/warehouse";
  fs::create_directories(server->warehouse_);
  const std::string log = server->dir_ + "/server.log";
  std::string last;
  for (int attempt = 0; attempt < 3; ++attempt) {
    FLOE_ASSIGN_OR_RAISE(server->port_, FreePort());
    // RESTCatalogServer reads its configuration from CATALOG_* variables (CATALOG_REST_PORT
    // is rest.port, CATALOG_URI the JDBC catalog's uri, a double underscore a '-').
    setenv("CATALOG_REST_PORT", std::to_string(server->port_).c_str(), 1);
    setenv("CATALOG_WAREHOUSE", server->warehouse_.c_str(), 1);
    setenv("CATALOG_URI", ("jdbc:sqlite:" + server->dir_ + "/catalog.db").c_str(), 1);
    setenv("CATALOG_JDBC_SCHEMA__VERSION", "V1", 1);
    Result<pid_t> spawned = Spawn({"java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp",
                                   jars + "/*", fs::absolute(kLauncher).string()},
                                  log, RunAs{}, SIGKILL);
    // The child has its copy; the test process keeps none.
    for (const char* name : {"CATALOG_REST_PORT", "CATALOG_WAREHOUSE", "CATALOG_URI",
                             "CATALOG_JDBC_SCHEMA__VERSION"}) {
      unsetenv(name);
    }
    FLOE_ASSIGN_OR_RAISE(server->pid_, std::move(spawned));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(server->pid_, &status, WNOHANG) == server->pid_) {
        server->pid_ = -1;
        break;
      }
      const std::string text = ReadFileText(log);
      if (text.find("\nready\n") != std::string::npos || text.rfind("ready\n", 0) == 0) {
        return server;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    last = Tail(ReadFileText(log), 20);
    if (server->pid_ > 0) {
      kill(server->pid_, SIGKILL);
      waitpid(server->pid_, nullptr, 0);
      server->pid_ = -1;
      return Status::IOError("Iceberg's REST catalog server did not start within 90 s:\n{}", last);
    }
    // Another process took the port between the probe and the server's bind: again.
    if (last.find("BindException") == std::string::npos) break;
  }
  return Status::IOError("Iceberg's REST catalog server did not start:\n{}", last);
}

RestCatalogServer::~RestCatalogServer() {
  StopChild(pid_, SIGTERM, std::chrono::seconds(10), SIGKILL);
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

Result<RestCatalogServer*> SharedRestCatalogServer() {
  return SharedServer<RestCatalogServer>::Get();
}

}  // namespace floe::testing
