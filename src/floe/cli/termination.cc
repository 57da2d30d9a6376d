#include "floe/cli/termination.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include "floe/exec/spill.h"
#include "floe/iceberg/in_flight_files.h"

namespace floe::cli {
namespace {

std::atomic<void (*)()> g_interrupt_handler{nullptr};
// Set by the signal thread before it deletes anything: from then on the process ends only
// through that thread's _exit.
std::atomic<bool> g_terminating{false};

const char* SignalName(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

}  // namespace

void SetInterruptHandler(void (*handler)()) { g_interrupt_handler.store(handler); }

void AwaitTermination() {
  if (!g_terminating.load()) return;
  while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
}

void HandleTermination(bool under_mpirun) {
  sigset_t set;
  sigemptyset(&set);
  for (int signal : {SIGTERM, SIGINT, SIGHUP}) {
    struct sigaction current = {};
    if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    sigaddset(&set, signal);
  }
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // the signals keep their default
  std::thread([set, under_mpirun] {
    int signal = 0;
    while (true) {
      if (sigwait(&set, &signal) != 0) return;
      void (*interrupt)() = g_interrupt_handler.load();
      if (signal == SIGINT && interrupt != nullptr) {
        interrupt();
        continue;
      }
      break;
    }
    const auto received = std::chrono::steady_clock::now();
    g_terminating.store(true);
    const int deleted = iceberg::InFlightFiles::Process().Terminate();
    exec::RemoveSpillDirectories();
    std::fprintf(stderr, "floe: terminated by %s; deleted %d unfinished data file(s)\n",
                 SignalName(signal), deleted);
    // mpirun sends SIGKILL to every rank as soon as one has exited (or a second after its
    // SIGTERM): a rank that is done waits a while, so the others can finish theirs.
    if (under_mpirun) std::this_thread::sleep_until(received + std::chrono::milliseconds(800));
    _exit(128 + signal);
  }).detach();
}

}  // namespace floe::cli
