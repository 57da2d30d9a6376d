#pragma once

// An S3 for tests: test/tools/moto_s3.py (moto's server on 127.0.0.1, authenticating, with
// an IAM user, a role it may assume and a bucket) started as a child process and stopped when this object goes
// away (its standard input is closed; after 10 s it is killed). Tests run from the source
// root, where .deps/py holds moto (scripts/install-deps).

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/common/result.h"

extern char** environ;

namespace floe::testing {

class MotoS3 {
 public:
  std::string endpoint;
  std::string access_key_id;
  std::string secret_access_key;
  std::string bucket;
  std::string region;
  /// A role the user may assume, with every right on S3 (for STS).
  std::string role_arn;

  /// Starts the server and waits until it is ready (its JSON line).
  static Result<std::unique_ptr<MotoS3>> Start() {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) return Status::IOError("moto: pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    const char* python = ".deps/py/bin/python";
    char* argv[] = {const_cast<char*>(python), const_cast<char*>("test/tools/moto_s3.py"), nullptr};
    auto server = std::unique_ptr<MotoS3>(new MotoS3());
    const int spawned = posix_spawn(&server->pid_, python, &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    server->stdin_ = in[1];
    if (spawned != 0) {
      close(out[0]);
      server->pid_ = -1;
      return Status::IOError("moto: cannot start {} (run scripts/install-deps)", python);
    }
    // The first line is the JSON description.
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
    close(out[0]);
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("endpoint")) {
      return Status::IOError("moto: the server did not start (it said '{}')", line);
    }
    server->endpoint = j["endpoint"];
    server->access_key_id = j["access_key_id"];
    server->secret_access_key = j["secret_access_key"];
    server->bucket = j["bucket"];
    server->region = j["region"];
    server->role_arn = j["role_arn"];
    return server;
  }

  /// One server for the whole test process, started on first use and stopped at exit;
  /// nullptr (after a failed gtest assertion naming why) when it cannot start.
  static MotoS3* ForProcess() {
    static std::unique_ptr<MotoS3> server = [] {
      Result<std::unique_ptr<MotoS3>> started = Start();
      if (!started.ok()) {
        ADD_FAILURE() << started.status().ToString();
        return std::unique_ptr<MotoS3>();
      }
      return std::move(*started);
    }();
    return server.get();
  }

  ~MotoS3() {
    if (stdin_ >= 0) close(stdin_);
    if (pid_ <= 0) return;
    for (int i = 0; i < 100; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }

 private:
  MotoS3() = default;
  pid_t pid_ = -1;
  int stdin_ = -1;
};

}  // namespace floe::testing
