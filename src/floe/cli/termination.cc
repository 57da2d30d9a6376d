#include "floe/cli/termination.h"

#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include "floe/iceberg/in_flight_files.h"

namespace floe::cli {

void HandleTermination(bool under_mpirun) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // SIGTERM keeps its default
  std::thread([set, under_mpirun] {
    int signal = 0;
    if (sigwait(&set, &signal) != 0) return;
    const auto received = std::chrono::steady_clock::now();
    const int deleted = iceberg::InFlightFiles::Process().Terminate();
    std::fprintf(stderr, "floe: terminated by SIGTERM; deleted %d unfinished data file(s)\n",
                 deleted);
    // mpirun sends SIGKILL to every rank as soon as one has exited (or a second after its
    // SIGTERM): a rank that is done waits a while, so the others can finish theirs.
    if (under_mpirun) std::this_thread::sleep_until(received + std::chrono::milliseconds(800));
    _exit(128 + SIGTERM);
  }).detach();
}

}  // namespace floe::cli
