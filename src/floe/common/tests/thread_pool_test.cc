#include "floe/common/thread_pool.h"

#include <sched.h>

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "floe/testing/matchers.h"

namespace floe {
namespace {

using testing::IsError;

TEST(ThreadPoolTest, SubmitReturnsResults) {
  ASSERT_OK_AND_ASSIGN(auto pool, ThreadPool::Make(2));
  std::vector<std::future<int>> futures;
  for (int i = 0; i < 100; ++i) futures.push_back(pool->Submit([i] { return i * i; }));
  int64_t sum = 0;
  for (auto& f : futures) sum += f.get();
  EXPECT_EQ(sum, 328350);
}

TEST(ThreadPoolTest, ParallelForVisitsEveryIndexOnce) {
  ASSERT_OK_AND_ASSIGN(auto pool, ThreadPool::Make(3));
  std::vector<std::atomic<int>> hits(1000);
  ASSERT_OK(pool->ParallelFor(1000, [&](int64_t i) {
    hits[i].fetch_add(1);
    return Status::OK();
  }));
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(ThreadPoolTest, ParallelForReturnsFirstErrorByIndex) {
  ASSERT_OK_AND_ASSIGN(auto pool, ThreadPool::Make(2));
  Status st = pool->ParallelFor(50, [](int64_t i) {
    if (i == 17 || i == 30) return Status::IOError("task {}", i);
    return Status::OK();
  });
  EXPECT_EQ(st.message(), "task 17");
}

TEST(ThreadPoolTest, NestedParallelForOnOneThreadDoesNotDeadlock) {
  ASSERT_OK_AND_ASSIGN(auto pool, ThreadPool::Make(1));
  std::atomic<int> count{0};
  ASSERT_OK(pool->ParallelFor(4, [&](int64_t) {
    return pool->ParallelFor(4, [&](int64_t) {
      count.fetch_add(1);
      return Status::OK();
    });
  }));
  EXPECT_EQ(count.load(), 16);
}

TEST(ThreadPoolTest, RejectsZeroThreads) {
  EXPECT_THAT(ThreadPool::Make(0), IsError(StatusCode::kInvalidArgument));
}

TEST(ThreadPoolTest, DefaultThreadsFollowTheAffinityMask) {
  const int hardware = ThreadPool::HardwareThreads();
  ASSERT_GE(hardware, 1);
  EXPECT_LE(ThreadPool::DefaultThreads(), hardware);
  // A thread bound to one CPU (as taskset or a launcher binds a process) gets one.
  int bound = 0;
  int after = 0;
  std::thread thread([&] {
    cpu_set_t mask;
    ASSERT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &mask)) ++first;
    ASSERT_LT(first, CPU_SETSIZE);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
    bound = ThreadPool::DefaultThreads();
    ASSERT_EQ(sched_setaffinity(0, sizeof(mask), &mask), 0);
    after = ThreadPool::DefaultThreads();
  });
  thread.join();
  EXPECT_EQ(bound, 1);
  EXPECT_EQ(after, ThreadPool::DefaultThreads());
}

}  // namespace
}  // namespace floe
