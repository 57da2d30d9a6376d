// Spill directories: removed when their query ends, and, when their process was killed
// and could not remove them, by the next process that makes one in the same base.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "floe/exec/spill.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scratch_dir.h"

namespace floe::exec {
namespace {

class SpillDirectoryTest : public testing::ScratchDirTest {
 protected:
  SpillDirectoryTest() : ScratchDirTest("floe_exec_spill_directory") {}
};

TEST_F(SpillDirectoryTest, IsRemovedWithEverythingInItWhenItGoes) {
  std::string path;
  {
    ASSERT_OK_AND_ASSIGN(auto directory, SpillDirectory::Make(dir_, "q1"));
    path = directory->path();
    EXPECT_EQ(path, dir_ + "/floe-spill-" + std::to_string(::getpid()) + "-q1");
    ASSERT_OK_AND_ASSIGN(auto writer, SpillWriter::Make(NewSpillPath(path, "sort"), nullptr));
    ASSERT_OK(writer->Finish().status());
    EXPECT_TRUE(std::filesystem::is_directory(path));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

// A child process that makes a spill directory in `base` and then either dies by SIGKILL,
// as a rank that mpirun ends does (`die`), or stays alive until its stdin pipe closes.
// Returns the child's pid; the directory exists when it returns.
pid_t Child(const std::string& base, bool die, int* keep_alive_fd) {
  int ready[2];
  int hold[2];
  if (::pipe(ready) != 0 || ::pipe(hold) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    auto directory = SpillDirectory::Make(base, die ? "killed" : "alive");
    if (!directory.ok()) _exit(3);
    char c = 'r';
    if (::write(ready[1], &c, 1) != 1) _exit(4);
    if (die) ::raise(SIGKILL);
    ::close(hold[1]);
    while (::read(hold[0], &c, 1) > 0) {
    }
    _exit(0);  // without removing the directory
  }
  ::close(ready[1]);
  ::close(hold[0]);
  char c;
  EXPECT_EQ(::read(ready[0], &c, 1), 1);
  ::close(ready[0]);
  *keep_alive_fd = hold[1];
  return pid;
}

TEST_F(SpillDirectoryTest, TheNextProcessRemovesWhatAKilledOneLeft) {
  // The live one first: a process's first directory in a base sweeps it.
  int alive_hold = -1;
  int killed_hold = -1;
  pid_t alive = Child(dir_, /*die=*/false, &alive_hold);
  ASSERT_GT(alive, 0);
  pid_t killed = Child(dir_, /*die=*/true, &killed_hold);
  ASSERT_GT(killed, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(killed, &status, 0), killed);
  ASSERT_TRUE(WIFSIGNALED(status));
  ::close(killed_hold);
  const std::string left = dir_ + "/floe-spill-" + std::to_string(killed) + "-killed";
  const std::string live = dir_ + "/floe-spill-" + std::to_string(alive) + "-alive";
  // A directory of the same name pattern that is not floe's (no lock file) stays too.
  const std::string foreign = dir_ + "/floe-spill-1-foreign";
  std::filesystem::create_directories(foreign);
  ASSERT_TRUE(std::filesystem::is_directory(left));
  ASSERT_TRUE(std::filesystem::is_directory(live));

  {
    ASSERT_OK_AND_ASSIGN(auto directory, SpillDirectory::Make(dir_, "next"));
    EXPECT_FALSE(std::filesystem::exists(left));
    EXPECT_TRUE(std::filesystem::is_directory(live));
    EXPECT_TRUE(std::filesystem::is_directory(foreign));
  }
  ::close(alive_hold);
  ASSERT_EQ(::waitpid(alive, &status, 0), alive);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace floe::exec
