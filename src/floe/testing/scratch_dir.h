#pragma once

// A gtest fixture base that gives each test its own empty scratch directory (`dir_`),
// named for the test and the process, removed after the test.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>

namespace floe::testing {

class ScratchDirTest : public ::testing::Test {
 protected:
  /// `prefix` tells the test binaries' directories apart ("floe_exec_parquet").
  explicit ScratchDirTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    // A parameterized test's name holds '/' ("Case/0"): one directory level, not two, so
    // that TearDown removes everything SetUp made.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = ::testing::TempDir() + "/" + prefix_ + "_" + std::to_string(getpid()) + "_" + name;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;

 private:
  std::string prefix_;
};

}  // namespace floe::testing
