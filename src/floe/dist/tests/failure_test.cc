// A rank that fails or dies must end the whole job instead of leaving the other ranks
// waiting. These tests run only when ctest's failure-injection entries set
// FLOE_DIST_TEST_FAIL_RANK or FLOE_DIST_TEST_KILL_RANK; those entries expect the job to
// end (not hang) with a failure.

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

#include "floe/dist/mpi_runtime.h"
#include "floe/dist/tests/dist_test_env.h"
#include "floe/testing/matchers.h"

namespace floe::dist {
namespace {

using testing::TestComm;

int RankFromEnv(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? -1 : std::atoi(v);
}

// The other ranks wait without a time limit for a message the failing rank never sends.
void WaitForever() {
  auto message = TestComm()->Receive(kAnySource, 555);
  ADD_FAILURE() << "a message arrived: " << message.status().ToString();
}

TEST(FailureInjection, ARankThatFailsEndsTheJob) {
  const int failing = RankFromEnv("FLOE_DIST_TEST_FAIL_RANK");
  if (failing < 0) GTEST_SKIP() << "FLOE_DIST_TEST_FAIL_RANK is not set";
  if (TestComm()->rank() == failing) {
    FAIL() << "injected failure on rank " << failing;
  }
  WaitForever();
}

TEST(FailureInjection, ARankThatDiesEndsTheJob) {
  const int dying = RankFromEnv("FLOE_DIST_TEST_KILL_RANK");
  if (dying < 0) GTEST_SKIP() << "FLOE_DIST_TEST_KILL_RANK is not set";
  if (TestComm()->rank() == dying) std::raise(SIGKILL);
  WaitForever();
}

}  // namespace
}  // namespace floe::dist
