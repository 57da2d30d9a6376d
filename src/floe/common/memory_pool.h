#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "floe/common/result.h"

namespace floe {

/// Allocates the memory of buffers and counts the bytes it has handed out, so that
/// memory limits and spilling can be built on it. Allocations are 64-byte aligned
/// (as the Arrow format recommends). Thread-safe.
class MemoryPool {
 public:
  static constexpr size_t kAlignment = 64;

  virtual ~MemoryPool() = default;

  /// Allocates `size` bytes. kOutOfMemory past the pool's limit or when the system
  /// refuses.
  virtual Result<uint8_t*> Allocate(int64_t size) = 0;
  /// Grows or shrinks an allocation, keeping the first min(old, new) bytes.
  virtual Result<uint8_t*> Reallocate(uint8_t* ptr, int64_t old_size, int64_t new_size) = 0;
  virtual void Free(uint8_t* ptr, int64_t size) = 0;

  /// Bytes currently allocated from this pool.
  virtual int64_t bytes_allocated() const = 0;
  /// The most bytes ever allocated at once.
  virtual int64_t max_memory() const = 0;
};

/// A pool over the system allocator with an optional limit in bytes (0 = no limit).
class CountingMemoryPool final : public MemoryPool {
 public:
  explicit CountingMemoryPool(int64_t limit = 0) : limit_(limit) {}

  Result<uint8_t*> Allocate(int64_t size) override;
  Result<uint8_t*> Reallocate(uint8_t* ptr, int64_t old_size, int64_t new_size) override;
  void Free(uint8_t* ptr, int64_t size) override;

  int64_t bytes_allocated() const override { return bytes_.load(std::memory_order_relaxed); }
  int64_t max_memory() const override { return max_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_; }

 private:
  Status Reserve(int64_t delta);

  const int64_t limit_;
  std::atomic<int64_t> bytes_{0};
  std::atomic<int64_t> max_{0};
};

/// The process-wide pool used when a caller names none.
MemoryPool* DefaultMemoryPool();

}  // namespace floe
