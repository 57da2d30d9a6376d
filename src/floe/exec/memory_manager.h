#pragma once

// The query's memory budget (the memory_limit setting). Operators that hold data across
// batches (sort, aggregation, join build sides, exchange buffers) take a reservation and
// grow it before they hold more; when growing fails they spill to disk, or, when they
// cannot spill, fail with kOutOfMemory naming themselves. Streaming operators hold at
// most a few batches and do not reserve. While a budget with a limit lives, the process's
// memory pool keeps no more for reuse than the limit allows (PoolRetentionLimit), so that
// the process's resident memory follows the limit too.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "floe/common/memory_pool.h"
#include "floe/common/result.h"

namespace floe::exec {

class MemoryManager {
 public:
  /// `limit` in bytes; 0 means no limit.
  explicit MemoryManager(int64_t limit) : limit_(limit), retention_(limit) {}

  /// Reserves `bytes` when the total stays within the limit; false otherwise.
  bool TryReserve(int64_t bytes);
  void Release(int64_t bytes);

  int64_t limit() const { return limit_; }
  int64_t reserved() const { return reserved_.load(std::memory_order_relaxed); }
  /// What is left to reserve now (INT64_MAX without a limit); other consumers may take it
  /// before a reservation does.
  int64_t available() const {
    return limit_ > 0 ? std::max<int64_t>(0, limit_ - reserved()) : INT64_MAX;
  }
  /// The most ever reserved at once.
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  const int64_t limit_;
  std::atomic<int64_t> reserved_{0};
  std::atomic<int64_t> peak_{0};
  PoolRetentionLimit retention_;
};

/// One consumer's share of the budget; released when destroyed.
class MemoryReservation {
 public:
  MemoryReservation(MemoryManager* manager, std::string consumer)
      : manager_(manager), consumer_(std::move(consumer)) {}
  ~MemoryReservation() { Free(); }
  MemoryReservation(const MemoryReservation&) = delete;
  MemoryReservation& operator=(const MemoryReservation&) = delete;

  int64_t size() const { return size_; }
  const std::string& consumer() const { return consumer_; }

  /// Grows or shrinks to `bytes`; false (and unchanged) when growing would pass the limit.
  bool TryResize(int64_t bytes);
  /// TryResize, or OutOfMemory(bytes, consumer()).
  Status Resize(int64_t bytes);
  /// kOutOfMemory for growing to `bytes` having failed, in figures that add up past the
  /// limit: "memory_limit of 64.0 MiB exceeded: <what> needs 40.0 MiB while the rest of the
  /// query holds 30.0 MiB" (or "..., more than the whole limit").
  Status OutOfMemory(int64_t bytes, std::string_view what) const;
  /// Releases everything.
  void Free();

 private:
  MemoryManager* manager_;
  std::string consumer_;
  int64_t size_ = 0;
};

}  // namespace floe::exec
