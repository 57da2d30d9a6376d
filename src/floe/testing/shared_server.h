#pragma once

// One server of a kind per test executable (a PostgreSQL server, a REST catalog server):
// started on first use by `Server::Start()`, stopped by a gtest Environment at the end of
// the run, also when tests failed. A start that failed returns its error again on every
// call, so the tests that need the server fail, never skip.

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <optional>

#include "floe/common/result.h"

namespace floe::testing {

template <typename Server>
class SharedServer {
 public:
  static Result<Server*> Get() {
    (void)kEnvironment;  // registers the Environment that stops the server
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.server != nullptr) return s.server.get();
    if (s.error.has_value()) return *s.error;
    Result<std::unique_ptr<Server>> started = Server::Start();
    if (!started.ok()) {
      s.error = started.status();
      return started.status();
    }
    s.server = std::move(*started);
    return s.server.get();
  }

 private:
  struct State {
    std::mutex mutex;
    std::unique_ptr<Server> server;
    std::optional<Status> error;
  };
  static State& state() {
    static State s;
    return s;
  }
  class Stop final : public ::testing::Environment {
   public:
    void TearDown() override {
      State& s = state();
      std::lock_guard<std::mutex> lock(s.mutex);
      s.server.reset();
    }
  };
  static inline ::testing::Environment* const kEnvironment =
      ::testing::AddGlobalTestEnvironment(new Stop);
};

}  // namespace floe::testing
