#pragma once

namespace floe::cli {

/// Makes SIGTERM, SIGINT (Ctrl-C) and SIGHUP (a closed terminal) end the process cleanly:
/// the signals are blocked in every thread (call this first in main, before any thread
/// starts) and taken by a thread of its own, which deletes the data files the process was
/// still writing (iceberg::InFlightFiles) and the spill directories of its queries
/// (exec::RemoveSpillDirectories), says so on stderr and exits with 128 + the signal's
/// number. mpirun sends SIGTERM to every surviving rank when one rank dies, so a job that
/// ends that way leaves none of its unfinished files behind; files already handed to a
/// statement's commit are left to it. A signal the process was started with ignored (nohup,
/// a background job of a non-interactive shell) stays ignored. `under_mpirun`: the thread
/// waits until 0.8 s after the signal before it exits (mpirun kills every rank once one
/// exits).
void HandleTermination(bool under_mpirun);

/// When a termination signal has been taken, waits for the signal thread to end the process
/// and never returns; returns at once otherwise. A command calls it before it reports its
/// result: the signal makes the statement under way fail ("the process is terminating"),
/// and the process must not end on that error before the signal thread has deleted its
/// files, said so and exited with 128 + the signal.
void AwaitTermination();

/// While set, SIGINT calls `handler` (on the signal thread) instead of ending the process:
/// an interactive shell cancels its running statement. nullptr restores the default.
void SetInterruptHandler(void (*handler)());

}  // namespace floe::cli
