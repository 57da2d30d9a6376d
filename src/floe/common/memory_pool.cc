#include "floe/common/memory_pool.h"

#include <malloc.h>
#include <sys/mman.h>

#include <bit>
#include <cstdlib>
#include <cstring>

namespace floe {

namespace {
// Transparent huge page size on x86-64 and most aarch64 kernels.
constexpr int64_t kHugePageSize = int64_t{2} << 20;
// A zero-size allocation returns this address so that callers never see nullptr.
alignas(MemoryPool::kAlignment) uint8_t zero_size_area[1];

int64_t RoundUp(int64_t size) {
  return (size + MemoryPool::kAlignment - 1) & ~static_cast<int64_t>(MemoryPool::kAlignment - 1);
}
// The capacity of the block that serves a request of `size` bytes.
int64_t BlockCapacity(int64_t size) {
  if (size >= CountingMemoryPool::kRecycleMinSize) {
    return static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(size)));
  }
  return RoundUp(size);
}

}  // namespace

CountingMemoryPool::~CountingMemoryPool() {
  for (auto& blocks : recycled_) {
    for (uint8_t* p : blocks) std::free(p);
  }
}

int64_t CountingMemoryPool::recycled_bytes() const {
  std::lock_guard<std::mutex> lock(recycle_mutex_);
  return recycled_bytes_;
}

uint8_t* CountingMemoryPool::AllocateBlock(int64_t size) {
  int64_t capacity = BlockCapacity(size);
  if (size >= kRecycleMinSize) {
    size_t size_class = static_cast<size_t>(std::countr_zero(static_cast<uint64_t>(capacity)));
    std::lock_guard<std::mutex> lock(recycle_mutex_);
    if (size_class < recycled_.size() && !recycled_[size_class].empty()) {
      uint8_t* p = recycled_[size_class].back();
      recycled_[size_class].pop_back();
      recycled_bytes_ -= capacity;
      return p;
    }
  }
  if (capacity >= kHugePageSize) {
    // Whole 2 MiB pages (capacity is a power of two here): one fault per 2 MiB instead of
    // 512 when the block is first written, where faults are dear (virtual machines).
    void* p = std::aligned_alloc(kHugePageSize, static_cast<size_t>(capacity));
    if (p != nullptr) ::madvise(p, static_cast<size_t>(capacity), MADV_HUGEPAGE);
    return static_cast<uint8_t*>(p);
  }
  return static_cast<uint8_t*>(std::aligned_alloc(kAlignment, static_cast<size_t>(capacity)));
}

void CountingMemoryPool::FreeBlock(uint8_t* ptr, int64_t size) {
  if (size >= kRecycleMinSize) {
    int64_t capacity = BlockCapacity(size);
    size_t size_class = static_cast<size_t>(std::countr_zero(static_cast<uint64_t>(capacity)));
    std::lock_guard<std::mutex> lock(recycle_mutex_);
    if (recycled_bytes_ + capacity <= kRecycleMaxBytes) {
      if (recycled_.size() <= size_class) recycled_.resize(size_class + 1);
      recycled_[size_class].push_back(ptr);
      recycled_bytes_ += capacity;
      return;
    }
  }
  std::free(ptr);
}

Status CountingMemoryPool::Reserve(int64_t delta) {
  int64_t now = bytes_.fetch_add(delta, std::memory_order_relaxed) + delta;
  if (limit_ > 0 && delta > 0 && now > limit_) {
    bytes_.fetch_sub(delta, std::memory_order_relaxed);
    return Status::OutOfMemory(
        "allocating {} bytes would exceed the memory limit of {} bytes "
        "({} in use)",
        delta, limit_, now - delta);
  }
  int64_t prev = max_.load(std::memory_order_relaxed);
  while (now > prev && !max_.compare_exchange_weak(prev, now, std::memory_order_relaxed)) {
  }
  return Status::OK();
}

Result<uint8_t*> CountingMemoryPool::Allocate(int64_t size) {
  if (size < 0) return Status::Invalid("negative allocation size {}", size);
  if (size == 0) return zero_size_area;
  FLOE_RETURN_NOT_OK(Reserve(size));
  uint8_t* p = AllocateBlock(size);
  if (p == nullptr) {
    bytes_.fetch_sub(size, std::memory_order_relaxed);
    return Status::OutOfMemory("the system refused an allocation of {} bytes", size);
  }
  return p;
}

Result<uint8_t*> CountingMemoryPool::Reallocate(uint8_t* ptr, int64_t old_size, int64_t new_size) {
  if (new_size < 0) return Status::Invalid("negative allocation size {}", new_size);
  if (old_size == 0) return Allocate(new_size);
  if (new_size == 0) {
    Free(ptr, old_size);
    return zero_size_area;
  }
  if (BlockCapacity(old_size) == BlockCapacity(new_size)) {
    FLOE_RETURN_NOT_OK(Reserve(new_size - old_size));
    return ptr;
  }
  FLOE_ASSIGN_OR_RAISE(uint8_t * fresh, Allocate(new_size));
  std::memcpy(fresh, ptr, static_cast<size_t>(std::min(old_size, new_size)));
  Free(ptr, old_size);
  return fresh;
}

void CountingMemoryPool::Free(uint8_t* ptr, int64_t size) {
  if (ptr == zero_size_area || size == 0) return;
  FreeBlock(ptr, size);
  bytes_.fetch_sub(size, std::memory_order_relaxed);
}

MemoryPool* DefaultMemoryPool() {
  static CountingMemoryPool* pool = [] {
    // Batches are allocated and dropped at a high rate. glibc's defaults give the top
    // of the heap back to the kernel whenever 128 KiB are free there, so the next
    // batch's buffers fault their pages in again (measured: a 10M-row int32 scan spent
    // more time in page faults than in decoding). Keep freed memory in the process.
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    return new CountingMemoryPool();
  }();
  return pool;
}

}  // namespace floe
