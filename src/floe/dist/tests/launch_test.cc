// Without mpirun, floe does not touch MPI: LaunchedUnderMpi() reads the environment only,
// and Communicator::Init refuses before calling any MPI function.

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "floe/dist/mpi_runtime.h"
#include "floe/testing/matchers.h"

namespace floe::dist {
namespace {

class SavedEnv {
 public:
  explicit SavedEnv(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) value_ = v;
  }
  ~SavedEnv() {
    if (value_) {
      ::setenv(name_, value_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> value_;
};

TEST(MpiLaunch, NotUnderMpirunWithoutTheLaunchersVariables) {
  SavedEnv size("OMPI_COMM_WORLD_SIZE");
  SavedEnv rank("PMIX_RANK");
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
