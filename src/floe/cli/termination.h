#pragma once

namespace floe::cli {

/// Makes SIGTERM end the process cleanly: the signal is blocked in every thread (call this
/// first in main, before any thread starts) and taken by a thread of its own, which deletes
/// the data files the process was still writing (iceberg::InFlightFiles), says so on
/// stderr and exits with 143. mpirun sends SIGTERM to every surviving rank when one rank
/// dies, so a job that ends that way leaves none of its unfinished files behind; files
/// already handed to a statement's commit are left to it. `under_mpirun`: the thread waits
/// until 0.8 s after the signal before it exits (mpirun kills every rank once one exits).
void HandleTermination(bool under_mpirun);

}  // namespace floe::cli
