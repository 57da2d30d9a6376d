#pragma once

// What a running task needs (TaskContext): settings, memory, threads, spill space,
// metrics, the exchange, cancellation, and state shared by the tasks of one query; and the
// child contexts a node runs a subtree in once per iteration (recursive queries).

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"
#include "floe/common/thread_pool.h"
#include "floe/exec/dynamic_filter.h"
#include "floe/exec/memory_manager.h"
#include "floe/exec/metrics.h"
#include "floe/exec/session_config.h"

namespace floe::exec {

class ExchangeService;  // exchange_service.h: where stage outputs live

/// The rows one iteration of a recursive query produced: what its WorkTableScanExec reads
/// during the next iteration (recursive_query_exec.h).
struct WorkTable {
  std::vector<RecordBatchPtr> batches;
};

/// What a running task needs: settings, memory, threads, spill space, metrics, the
/// exchange, and state shared by the tasks of one query (a broadcast hash table).
class TaskContext {
 public:
  TaskContext(SessionConfig config, std::shared_ptr<MemoryManager> memory, ThreadPool* threads,
              std::string spill_directory, std::shared_ptr<ExchangeService> exchange);

  const SessionConfig& config() const { return config_; }
  MemoryPool* pool() const { return DefaultMemoryPool(); }
  MemoryManager* memory() const { return memory_.get(); }
  ThreadPool* threads() const { return threads_; }
  /// A directory for this query's spill files (removed when the query ends).
  const std::string& spill_directory() const { return spill_directory_; }
  const std::shared_ptr<ExchangeService>& exchange() const { return exchange_; }

  /// A context for one run of a subtree that a node executes more than once, as a recursive
  /// query runs its recursive term once per iteration. It has the parent's settings, memory,
  /// threads, spill space, exchange and metrics and is cancelled with it, but its state
  /// shared by tasks (GetOrCreateShared) is its own: what the subtree reads changes from one
  /// run to the next, so a broadcast join's table or a repartition's buffers built in one run
  /// must not serve the next (and are freed with the child).
  static std::shared_ptr<TaskContext> MakeChild(const std::shared_ptr<TaskContext>& parent);

  /// Makes `table` the work table `id` of this context (and of its children).
  void SetWorkTable(int id, std::shared_ptr<const WorkTable> table);
  /// The work table `id` of this context or of its nearest ancestor that has it; null when
  /// none has.
  std::shared_ptr<const WorkTable> FindWorkTable(int id) const;

  QueryMetrics* metrics() {
    if (parent_) return parent_->metrics();
    return collect_metrics_ ? &metrics_ : nullptr;
  }
  void set_collect_metrics(bool on) { collect_metrics_ = on; }

  /// Asks the query's other processes to seal their data files of the query (see
  /// iceberg::InFlightFiles) and waits until they have; a commit calls it, then seals this
  /// process's own, before it begins. Set by whoever places the query's tasks on processes.
  Status SealRemoteWrites() const { return seal_remote_writes_ ? seal_remote_writes_() : Status(); }
  void set_seal_remote_writes(std::function<Status()> seal) {
    seal_remote_writes_ = std::move(seal);
  }

  bool cancelled() const {
    return cancelled_.load(std::memory_order_relaxed) || (parent_ && parent_->cancelled());
  }
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  /// kCancelled when the query was cancelled, or when it has run longer than the
  /// statement_timeout setting (counted from this context's creation, as PostgreSQL counts
  /// from the statement's start); call between batches.
  Status CheckCancelled() const;

  /// Makes `filter` the dynamic filter `id` of this context (dynamic_filter.h); the first
  /// publication of an id stands.
  void PublishDynamicFilter(int id, std::shared_ptr<const DynamicFilter> filter);
  /// The dynamic filter `id` of this context, or null when none was published (yet).
  std::shared_ptr<const DynamicFilter> FindDynamicFilter(int id) const;

  /// The value for `key`, made by `make` exactly once per query; concurrent callers wait
  /// for the first one (a broadcast join's hash table is built once, shared by every
  /// probe partition). An error is returned to every caller.
  template <typename T>
  Result<std::shared_ptr<const T>> GetOrCreateShared(
      const void* key, const std::function<Result<std::shared_ptr<const T>>()>& make) {
    std::shared_future<Result<std::shared_ptr<const void>>> future;
    std::shared_ptr<std::promise<Result<std::shared_ptr<const void>>>> promise;
    {
      std::lock_guard<std::mutex> lock(shared_mutex_);
      auto it = shared_.find(key);
      if (it == shared_.end()) {
        promise = std::make_shared<std::promise<Result<std::shared_ptr<const void>>>>();
        future = promise->get_future().share();
        shared_.emplace(key, future);
      } else {
        future = it->second;
      }
    }
    if (promise) {
      Result<std::shared_ptr<const T>> made = make();
      if (made.ok()) {
        promise->set_value(std::shared_ptr<const void>(*made));
      } else {
        promise->set_value(made.status());
      }
    }
    const Result<std::shared_ptr<const void>>& value = future.get();
    if (!value.ok()) return value.status();
    return std::static_pointer_cast<const T>(*value);
  }

 private:
  SessionConfig config_;
  std::shared_ptr<MemoryManager> memory_;
  ThreadPool* threads_;
  std::string spill_directory_;
  std::shared_ptr<ExchangeService> exchange_;
  QueryMetrics metrics_;
  mutable std::mutex dynamic_filters_mutex_;
  std::map<int, std::shared_ptr<const DynamicFilter>> dynamic_filters_;
  std::function<Status()> seal_remote_writes_;
  bool collect_metrics_ = false;
  std::atomic<bool> cancelled_{false};
  // When statement_timeout runs out; max(): no limit.
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  std::mutex shared_mutex_;
  std::map<const void*, std::shared_future<Result<std::shared_ptr<const void>>>> shared_;
  std::shared_ptr<TaskContext> parent_;  // for a child context (MakeChild)
  std::map<int, std::shared_ptr<const WorkTable>> work_tables_;
};

}  // namespace floe::exec
