#include "floe/cli/termination.h"

#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include "floe/iceberg/in_flight_files.h"

namespace floe::cli {

void HandleTermination() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // SIGTERM keeps its default
  std::thread([set] {
    int signal = 0;
    if (sigwait(&set, &signal) != 0) return;
    iceberg::InFlightFiles& files = iceberg::InFlightFiles::Process();
    const int deleted = files.Terminate();
    // A file whose creation was under way a moment ago exists only now.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    files.Terminate();
    std::fprintf(stderr, "floe: terminated by SIGTERM; deleted %d unfinished data file(s)\n",
                 deleted);
    _exit(128 + SIGTERM);
  }).detach();
}

}  // namespace floe::cli
