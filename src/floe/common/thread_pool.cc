#include "floe/common/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>

namespace floe {

Result<std::unique_ptr<ThreadPool>> ThreadPool::Make(int threads) {
  if (threads < 1) return Status::Invalid("a thread pool needs at least 1 thread, got {}", threads);
  return std::unique_ptr<ThreadPool>(new ThreadPool(threads));
}

ThreadPool::ThreadPool(int threads) {
  workers_.reserve(threads);
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::Spawn(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

Status ThreadPool::ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn) {
  if (n <= 0) return Status::OK();
  // Work is claimed through a shared counter; the caller claims too, so the loop
  // finishes even when every worker is busy (or the caller is itself a worker).
  struct Shared {
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<Status> statuses;
  };
  auto shared = std::make_shared<Shared>();
  shared->statuses.resize(static_cast<size_t>(n));
  auto run = [shared, n, &fn] {
    for (int64_t i; (i = shared->next.fetch_add(1)) < n;) {
      shared->statuses[static_cast<size_t>(i)] = fn(i);
      if (shared->done.fetch_add(1) + 1 == n) {
        std::lock_guard<std::mutex> lock(shared->mutex);
        shared->cv.notify_all();
      }
    }
  };
  int64_t helpers = std::min<int64_t>(n - 1, size());
  for (int64_t i = 0; i < helpers; ++i) Spawn(run);
  run();
  {
    std::unique_lock<std::mutex> lock(shared->mutex);
    shared->cv.wait(lock, [&] { return shared->done.load() == n; });
  }
  for (auto& st : shared->statuses) {
    if (!st.ok()) return st;
  }
  return Status::OK();
}

int ThreadPool::HardwareThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

int ThreadPool::DefaultThreads() {
  const int hardware = HardwareThreads();
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    const int allowed = CPU_COUNT(&mask);
    if (allowed > 0 && allowed < hardware) return allowed;
  }
  return hardware;
}

ThreadPool* DefaultThreadPool() {
  static std::unique_ptr<ThreadPool> pool =
      ThreadPool::Make(ThreadPool::DefaultThreads()).ValueOrDie();
  return pool.get();
}

ThreadPool* IoThreadPool() {
  static std::unique_ptr<ThreadPool> pool =
      ThreadPool::Make(std::max(4, ThreadPool::DefaultThreads())).ValueOrDie();
  return pool.get();
}

}  // namespace floe
