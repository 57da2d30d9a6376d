// Without mpirun, floe does not touch MPI: LaunchedUnderMpi() reads the environment only,
// and Communicator::Init refuses before calling any MPI function.

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "floe/dist/mpi_runtime.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scoped_env.h"

namespace floe::dist {
namespace {

using ::floe::testing::ScopedEnv;

TEST(MpiLaunch, NotUnderMpirunWithoutTheLaunchersVariables) {
  ScopedEnv size("OMPI_COMM_WORLD_SIZE", std::nullopt);
  ScopedEnv rank("PMIX_RANK", std::nullopt);
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  ::unsetenv("PMIX_RANK");
  EXPECT_FALSE(LaunchedUnderMpi());
  EXPECT_THAT(Communicator::Init(),
              floe::testing::IsErrorWith(StatusCode::kInvalidArgument,
                                         "this process was not launched by mpirun"));
  ::setenv("PMIX_RANK", "0", 1);
  EXPECT_TRUE(LaunchedUnderMpi());
  ::unsetenv("PMIX_RANK");
  ::setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  EXPECT_TRUE(LaunchedUnderMpi());
}

}  // namespace
}  // namespace floe::dist
