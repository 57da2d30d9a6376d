#pragma once

// The communicator of a floe_dist_test process (made by the test main under mpirun).

#include <memory>

#include "floe/dist/mpi_runtime.h"

namespace floe::dist::testing {

/// This process's communicator; tests run on every rank in the same order.
const std::shared_ptr<Communicator>& TestComm();

/// How long a test waits for another rank before it fails instead of hanging.
inline constexpr std::chrono::milliseconds kTestTimeout{30000};

}  // namespace floe::dist::testing
