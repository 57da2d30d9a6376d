#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "floe/common/result.h"

namespace floe {

/// A fixed set of worker threads taking tasks from one FIFO queue. Tasks must not
/// block waiting for other tasks of the same pool (use ParallelFor, which lets the
/// calling thread work too, for fork-join parallelism). The destructor drains the
/// queue and joins the workers.
class ThreadPool {
 public:
  /// A pool of `threads` workers (at least one).
  static Result<std::unique_ptr<ThreadPool>> Make(int threads);
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()); }

  /// Queues `fn` and returns a future of its result.
  template <typename Fn>
  auto Submit(Fn&& fn) -> std::future<std::invoke_result_t<Fn>> {
    using R = std::invoke_result_t<Fn>;
    auto task = std::make_shared<std::packaged_task<R()>>(std::forward<Fn>(fn));
    std::future<R> fut = task->get_future();
    Spawn([task] { (*task)(); });
    return fut;
  }

  /// Queues `fn` with no way to wait for it.
  void Spawn(std::function<void()> fn);

  /// Runs fn(0) .. fn(n-1) on the pool and on the calling thread; returns the first
  /// error (by index) once every call has finished. Safe to call from a worker.
  Status ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn);

  /// The hardware threads this process may run on, at least 1: those of its CPU affinity
  /// mask when it was bound to fewer (taskset, a launcher's binding, a cpuset), else all.
  static int DefaultThreads();

  /// All hardware threads of the host, at least 1, whatever the affinity mask.
  static int HardwareThreads();

 private:
  explicit ThreadPool(int threads);
  void WorkerLoop();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

/// The process-wide pool, sized to the hardware threads.
ThreadPool* DefaultThreadPool();

/// The process-wide pool for blocking reads made ahead of their use (a Parquet reader's
/// next row group), made at first use: its threads wait on storage, not on the processor,
/// so there are at least 4 of them whatever the hardware. Its tasks must never wait for
/// other tasks.
ThreadPool* IoThreadPool();

}  // namespace floe
