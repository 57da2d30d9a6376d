// The main of floe_dist_test, which runs under mpirun: every rank runs every test in the
// same order. A failure on any rank ends the whole job (MPI_Abort) so that no rank waits
// forever for a rank that gave up, and a watchdog aborts a job that runs too long.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "floe/dist/tests/dist_test_env.h"

namespace floe::dist::testing {

namespace {
std::shared_ptr<Communicator> g_comm;

// Prints failures with the rank (the ranks other than 0 print nothing else), then ends
// the job: the other ranks may be waiting for this one.
class AbortOnFailure : public ::testing::EmptyTestEventListener {
 public:
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed() || g_comm->rank() == 0) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", g_comm->rank(),
                 result.file_name() ? result.file_name() : "?", result.line_number(),
                 result.message());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (!info.result()->Failed()) return;
    std::fprintf(stderr, "[rank %d] %s.%s failed: aborting every rank\n", g_comm->rank(),
                 info.test_suite_name(), info.name());
    std::fflush(stderr);
    std::fflush(stdout);
    g_comm->Abort(1);
  }
};
}  // namespace

const std::shared_ptr<Communicator>& TestComm() { return g_comm; }

}  // namespace floe::dist::testing

int main(int argc, char** argv) {
  using floe::dist::testing::g_comm;
  ::testing::InitGoogleTest(&argc, argv);
  if (!floe::dist::LaunchedUnderMpi()) {
    std::fprintf(stderr, "floe_dist_test runs under mpirun (mpirun -np 3 %s)\n", argv[0]);
    return 2;
  }
  floe::dist::CommunicatorOptions options;
  // Messages past 16 MiB go through the blocked datatype path that messages past 2 GiB
  // need, so the tests exercise it without allocating gigabytes.
  options.block_bytes = 16 << 20;
  auto comm = floe::dist::Communicator::Init(options);
  if (!comm.ok()) {
    std::fprintf(stderr, "floe_dist_test: %s\n", comm.status().ToString().c_str());
    return 2;
  }
  g_comm = *comm;

  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (g_comm->rank() != 0) delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new floe::dist::testing::AbortOnFailure);

  int limit_seconds = 100;
  if (const char* s = std::getenv("FLOE_DIST_TEST_TIMEOUT_SECONDS")) limit_seconds = std::atoi(s);
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mutex);
    if (!cv.wait_for(lock, std::chrono::seconds(limit_seconds), [&] { return done; })) {
      std::fprintf(stderr, "[rank %d] floe_dist_test did not end within %d s: aborting\n",
                   g_comm->rank(), limit_seconds);
      std::fflush(stderr);
      g_comm->Abort(3);
    }
  });

  int rc = RUN_ALL_TESTS();
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
  floe::Status st = g_comm->Barrier(floe::dist::testing::kTestTimeout);
  if (!st.ok()) {
    std::fprintf(stderr, "[rank %d] final barrier: %s\n", g_comm->rank(), st.ToString().c_str());
    g_comm->Abort(4);
  }
  st = g_comm->Finalize();
  g_comm.reset();
  return st.ok() ? rc : 5;
}
