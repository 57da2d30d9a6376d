#include "floe/common/memory_pool.h"

#include <cstdlib>
#include <cstring>

namespace floe {

namespace {
// A zero-size allocation returns this address so that callers never see nullptr.
alignas(MemoryPool::kAlignment) uint8_t zero_size_area[1];

int64_t RoundUp(int64_t size) {
  return (size + MemoryPool::kAlignment - 1) & ~static_cast<int64_t>(MemoryPool::kAlignment - 1);
}
}  // namespace

Status CountingMemoryPool::Reserve(int64_t delta) {
  int64_t now = bytes_.fetch_add(delta, std::memory_order_relaxed) + delta;
  if (limit_ > 0 && delta > 0 && now > limit_) {
    bytes_.fetch_sub(delta, std::memory_order_relaxed);
    return Status::OutOfMemory("allocating {} bytes would exceed the memory limit of {} bytes "
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
  void* p = std::aligned_alloc(kAlignment, RoundUp(size));
  if (p == nullptr) {
    bytes_.fetch_sub(size, std::memory_order_relaxed);
    return Status::OutOfMemory("the system refused an allocation of {} bytes", size);
  }
  return static_cast<uint8_t*>(p);
}

Result<uint8_t*> CountingMemoryPool::Reallocate(uint8_t* ptr, int64_t old_size,
                                                int64_t new_size) {
  if (new_size < 0) return Status::Invalid("negative allocation size {}", new_size);
  if (old_size == 0) return Allocate(new_size);
  if (new_size == 0) {
    Free(ptr, old_size);
    return zero_size_area;
  }
  if (RoundUp(old_size) == RoundUp(new_size)) {
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
  std::free(ptr);
  bytes_.fetch_sub(size, std::memory_order_relaxed);
}

MemoryPool* DefaultMemoryPool() {
  static CountingMemoryPool pool;
  return &pool;
}

}  // namespace floe
