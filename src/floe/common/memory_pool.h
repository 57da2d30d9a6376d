#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

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

  /// The memory an allocation of `size` bytes takes from this pool: at least `size`, more
  /// when the pool serves requests from blocks of fixed size classes.
  virtual int64_t BlockBytes(int64_t size) const { return size; }

  /// Bytes currently allocated from this pool (each allocation's BlockBytes).
  virtual int64_t bytes_allocated() const = 0;
  /// The most bytes ever allocated at once.
  virtual int64_t max_memory() const = 0;
};

/// A pool over the system allocator with an optional limit in bytes (0 = no limit).
///
/// Blocks of kRecycleMinSize bytes or more are recycled: a freed large block is kept
/// (up to kRecycleMaxBytes in all) and handed out again for a request of the same
/// power-of-two size class, or cut in halves for a smaller one when its class has none
/// (a slab's block down to any class, one mapped on its own down to kRecycleMinSize). Readers allocate and drop buffers of the same few sizes
/// batch after batch; without recycling, each such buffer would be fresh memory from
/// the kernel, paying a page fault per 4 KiB. Kept blocks do not count as allocated.
///
/// Blocks from kSlabBlockMinSize up to a huge page (2 MiB) are carved from 2 MiB slabs
/// backed by transparent huge pages (up to kSlabMaxBytes of slabs), so that first touching
/// them costs one fault per 2 MiB rather than one per 4 KiB: a query in a fresh process
/// touches most of its memory for the first time, and faults are dear on virtual machines.
/// (From malloc, a batch's buffers of a few KiB come from each worker thread's arena,
/// grown 4 KiB at a time: TPC-H Q13 faulted 7,000 pages there.) Slab blocks always return
/// to their size class (slabs live as long as the pool); blocks of 2 MiB and more are whole
/// huge pages of their own, and blocks below 2 MiB asked for once the slabs are at their
/// cap are mapped on their own (from kRecycleMinSize) or taken from malloc (below it):
/// either is given back when it is not kept, so that what the pool does not keep leaves
/// the process.
///
/// What the pool keeps is bounded by its retention limits: while a statement runs under a
/// memory_limit of L (see PoolRetentionLimit), recycled blocks and slabs are kept to L/4
/// each, so that the process's resident memory follows the limit rather than the pool's
/// defaults.
class CountingMemoryPool final : public MemoryPool {
 public:
  static constexpr int64_t kRecycleMinSize = 64 << 10;
  /// Requests from this size take a power-of-two block carved from a slab (while the slabs
  /// last); smaller ones come from malloc.
  static constexpr int64_t kSlabBlockMinSize = 4 << 10;
  /// 1 GiB: TPC-H at scale factor 10 frees and asks again for hundreds of MiB of large
  /// blocks (hash tables, exchange buffers) query after query, and with 256 MiB kept each
  /// run faulted fresh huge pages again; with 1 GiB a session's repeated Q12 and Q09 take
  /// 0.88 and 0.83 of the time. Under a memory_limit L, a quarter of L bounds it
  /// (AddRetentionLimit).
  static constexpr int64_t kRecycleMaxBytes = int64_t{1} << 30;
  static constexpr int64_t kSlabSize = 2 << 20;
  /// The most slab memory a pool takes (defined in memory_pool.cc): slabs stay resident
  /// for the pool's life, and a huge page is resident whole even when only part of it was
  /// touched, so this bounds what slabs add to the process's resident memory.
  static const int64_t kSlabMaxBytes;

  explicit CountingMemoryPool(int64_t limit = 0) : limit_(limit) {}
  ~CountingMemoryPool() override;

  Result<uint8_t*> Allocate(int64_t size) override;
  Result<uint8_t*> Reallocate(uint8_t* ptr, int64_t old_size, int64_t new_size) override;
  void Free(uint8_t* ptr, int64_t size) override;
  /// Requests of kSlabBlockMinSize or more take a power-of-two block; smaller ones are
  /// rounded up to kAlignment.
  int64_t BlockBytes(int64_t size) const override;

  int64_t bytes_allocated() const override { return bytes_.load(std::memory_order_relaxed); }
  int64_t max_memory() const override { return max_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_; }
  /// Bytes held in freed blocks (slab blocks, and large blocks of their own), ready for
  /// reuse.
  int64_t recycled_bytes() const;
  /// Bytes of huge-page slabs taken from the system so far.
  int64_t slab_bytes() const;

  /// Adds a retention limit of `bytes` (> 0): until it is removed, the pool keeps at most
  /// bytes/4 in recycled blocks (blocks beyond that go back to the system at once) and takes
  /// no slab past bytes/4. The smallest limit in force applies.
  void AddRetentionLimit(int64_t bytes);
  /// Removes one limit that AddRetentionLimit added.
  void RemoveRetentionLimit(int64_t bytes);
  /// The most bytes of recycled blocks kept under the limits in force.
  int64_t retention_cap() const;

 private:
  Status Reserve(int64_t delta);
  uint8_t* AllocateBlock(int64_t size);
  // A recycled block of a larger size class cut down to `size_class` (the rest of it kept
  // in halves), or nullptr when none can be. recycle_mutex_ held.
  uint8_t* SplitRecycled(size_t size_class);
  void FreeBlock(uint8_t* ptr, int64_t size);

  const int64_t limit_;
  std::atomic<int64_t> bytes_{0};
  std::atomic<int64_t> max_{0};

  // A block of `capacity` (a power of two below kSlabSize) carved from the current slab, or
  // nullptr past kSlabMaxBytes or when the system refuses. Called with recycle_mutex_ held.
  uint8_t* CarveFromSlab(int64_t capacity);
  bool InSlab(const uint8_t* ptr) const;
  // The most bytes of recycled blocks and of slabs kept under the limits in force. Called
  // with recycle_mutex_ held.
  int64_t RecycleCap() const;
  int64_t SlabCap() const;
  // Gives recycled blocks outside slabs back to the system until RecycleCap() holds. Called
  // with recycle_mutex_ held.
  void TrimRecycled();

  // Freed slab blocks and large blocks by size class (log2 of the block's capacity).
  mutable std::mutex recycle_mutex_;
  std::vector<std::vector<uint8_t*>> recycled_;
  int64_t recycled_bytes_ = 0;

  // Slabs (2 MiB aligned, kept until the pool goes), and the next free byte of the current
  // slab and the bytes left there. Every size class carves from the current slab, so that a
  // query touching a few blocks of each class does not fault a huge page per class.
  std::vector<uint8_t*> slabs_;
  uint8_t* slab_next_ = nullptr;
  int64_t slab_left_ = 0;
  // The retention limits in force (unordered; a statement adds one and removes it).
  std::vector<int64_t> retention_limits_;
};

/// While alive, bounds what DefaultMemoryPool() keeps for reuse by `limit` bytes (a
/// statement's memory_limit; 0 bounds nothing). See CountingMemoryPool::AddRetentionLimit.
/// The process's malloc heap follows the same cap: the free memory it keeps at its top
/// before giving it back to the system (the vectors operators grow outside the pool).
class PoolRetentionLimit {
 public:
  explicit PoolRetentionLimit(int64_t limit);
  ~PoolRetentionLimit();
  PoolRetentionLimit(const PoolRetentionLimit&) = delete;
  PoolRetentionLimit& operator=(const PoolRetentionLimit&) = delete;

 private:
  const int64_t limit_;
};

/// The process-wide pool used when a caller names none.
MemoryPool* DefaultMemoryPool();

/// A standard allocator over DefaultMemoryPool(), for containers that grow large (per-group
/// aggregation state): their big blocks come back from the pool's recycling, on huge
/// pages, where std::allocator would map fresh pages from the kernel for every growth and
/// give them back on every free, paying a page fault per 4 KiB each time.
template <typename T>
class PoolAllocator {
 public:
  using value_type = T;

  PoolAllocator() noexcept = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>& /*other*/) noexcept {}  // NOLINT: implicit by design

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(INT64_MAX) / sizeof(T)) throw std::bad_array_new_length();
    Result<uint8_t*> p = DefaultMemoryPool()->Allocate(static_cast<int64_t>(n * sizeof(T)));
    if (!p.ok()) throw std::bad_alloc();
    return reinterpret_cast<T*>(*p);
  }
  void deallocate(T* p, size_t n) noexcept {
    DefaultMemoryPool()->Free(reinterpret_cast<uint8_t*>(p), static_cast<int64_t>(n * sizeof(T)));
  }

  template <typename U>
  bool operator==(const PoolAllocator<U>& /*other*/) const noexcept {
    return true;
  }
};

/// A vector whose memory comes from DefaultMemoryPool() (see PoolAllocator).
template <typename T>
using PoolVector = std::vector<T, PoolAllocator<T>>;

}  // namespace floe
