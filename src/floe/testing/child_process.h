#pragma once

// Child processes of test executables that start servers (PostgreSQL, Iceberg's REST
// catalog server): a free port on 127.0.0.1, starting a program with its output in a log
// file, and the tail of that log for messages.

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "floe/common/result.h"

namespace floe::testing {

/// Who runs a child: the current user, or another one (a server that refuses root).
struct RunAs {
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

/// Starts `argv` (argv[0] found on PATH when it has no '/') with stdout and stderr appended
/// to `log`, as `who`; the child gets `death_signal` when the thread that started it ends
/// (so a server never outlives a test process that died; a JVM takes SIGQUIT for a thread
/// dump, so Java servers ask for SIGKILL).
Result<pid_t> Spawn(const std::vector<std::string>& argv, const std::string& log,
                    const RunAs& who = {}, int death_signal = SIGQUIT);

/// Ends a child: sends `signal`, waits up to `grace` for it to exit, then sends `last` and
/// reaps it.
void StopChild(pid_t pid, int signal, std::chrono::seconds grace, int last = SIGKILL);

/// A port on 127.0.0.1 that nothing listens on now.
Result<int> FreePort();

/// The whole file ("" when it cannot be read).
std::string ReadFileText(const std::string& path);

/// The last `lines` lines of a text, for messages.
std::string Tail(const std::string& text, size_t lines = 12);

}  // namespace floe::testing
