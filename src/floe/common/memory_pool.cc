#include "floe/common/memory_pool.h"

#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>

#include "floe/common/huge_pages.h"

namespace floe {

namespace {
// A zero-size allocation returns this address so that callers never see nullptr.
alignas(MemoryPool::kAlignment) uint8_t zero_size_area[1];

int64_t RoundUp(int64_t size) {
  return (size + MemoryPool::kAlignment - 1) & ~static_cast<int64_t>(MemoryPool::kAlignment - 1);
}
// The capacity of the block that serves a request of `size` bytes.
int64_t BlockCapacity(int64_t size) {
  if (size >= CountingMemoryPool::kSlabBlockMinSize) {
    return static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(size)));
  }
  return RoundUp(size);
}

}  // namespace

// 128 MiB of slabs serve the batches in flight of a query on a few threads (TPC-H Q10 on
// two threads: 9.5k -> 3.0k page faults and -20% wall time in a fresh process against
// 32 MiB of slabs). A slab is resident whole once touched and stays for the pool's life;
// under a memory limit the retention limits keep slabs to a quarter of the limit.
const int64_t CountingMemoryPool::kSlabMaxBytes = int64_t{128} << 20;

namespace {
// A block of `capacity` (a power of two from kRecycleMinSize up to a huge page) mapped on its
// own, for when the slabs are at their cap: from malloc's heap, such blocks would stay
// resident there once freed, scattered among smaller allocations (a 64 MiB-limited
// aggregation peaked at 190-220 MiB resident that way, against 95 MiB).
uint8_t* MapPages(int64_t capacity) {
  void* map = ::mmap(nullptr, static_cast<size_t>(capacity), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return map == MAP_FAILED ? nullptr : static_cast<uint8_t*>(map);
}

// Gives a block that the pool does not keep (not a slab's) back to the system.
void ReleaseBlock(uint8_t* block, int64_t capacity) {
  if (capacity >= kHugePageSize) {
    UnmapHugePages(block, capacity);
  } else if (capacity >= CountingMemoryPool::kRecycleMinSize) {
    ::munmap(block, static_cast<size_t>(capacity));
  } else {
    std::free(block);
  }
}
}  // namespace

CountingMemoryPool::~CountingMemoryPool() {
  for (size_t size_class = 0; size_class < recycled_.size(); ++size_class) {
    for (uint8_t* p : recycled_[size_class]) {
      if (!InSlab(p)) ReleaseBlock(p, int64_t{1} << size_class);
    }
  }
  for (uint8_t* slab : slabs_) UnmapHugePages(slab, kSlabSize);
}

namespace {
// Under a memory_limit L the pool keeps at most L / kRetentionDivisor of recycled blocks
// and as much of slabs: what it keeps is resident on top of what the operators hold (up
// to L). With L/2, TPC-H sf10 under 1GB peaked at 1.43-1.63 GB resident (Q18, Q21); with
// L/4 at 1.28-1.40 GB, in the same time.
constexpr int64_t kRetentionDivisor = 4;

// `cap`, lowered to the share kRetentionDivisor of the smallest retention limit in force.
int64_t CapUnderLimits(int64_t cap, const std::vector<int64_t>& limits) {
  for (int64_t limit : limits) cap = std::min(cap, limit / kRetentionDivisor);
  return cap;
}
}  // namespace

int64_t CountingMemoryPool::RecycleCap() const {
  return CapUnderLimits(kRecycleMaxBytes, retention_limits_);
}

int64_t CountingMemoryPool::SlabCap() const {
  return CapUnderLimits(kSlabMaxBytes, retention_limits_);
}

void CountingMemoryPool::TrimRecycled() {
  const int64_t cap = RecycleCap();
  // The largest blocks go first: fewer of them bring the pool under its cap.
  for (size_t size_class = recycled_.size(); size_class-- > 0 && recycled_bytes_ > cap;) {
    auto& blocks = recycled_[size_class];
    const int64_t capacity = int64_t{1} << size_class;
    for (size_t i = blocks.size(); i-- > 0 && recycled_bytes_ > cap;) {
      if (InSlab(blocks[i])) continue;
      ReleaseBlock(blocks[i], capacity);
      blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
      recycled_bytes_ -= capacity;
    }
  }
}

int64_t CountingMemoryPool::retention_cap() const {
  std::lock_guard<std::mutex> lock(recycle_mutex_);
  return RecycleCap();
}

void CountingMemoryPool::AddRetentionLimit(int64_t bytes) {
  if (bytes <= 0) return;
  std::lock_guard<std::mutex> lock(recycle_mutex_);
  retention_limits_.push_back(bytes);
  TrimRecycled();
}

void CountingMemoryPool::RemoveRetentionLimit(int64_t bytes) {
  if (bytes <= 0) return;
  std::lock_guard<std::mutex> lock(recycle_mutex_);
  auto it = std::find(retention_limits_.begin(), retention_limits_.end(), bytes);
  if (it != retention_limits_.end()) retention_limits_.erase(it);
}

int64_t CountingMemoryPool::slab_bytes() const {
  std::lock_guard<std::mutex> lock(recycle_mutex_);
  return static_cast<int64_t>(slabs_.size()) * kSlabSize;
}

bool CountingMemoryPool::InSlab(const uint8_t* ptr) const {
  // Slabs are aligned to their size, so a block's slab starts at its address rounded down.
  const auto base = reinterpret_cast<uintptr_t>(ptr) & ~static_cast<uintptr_t>(kSlabSize - 1);
  return std::binary_search(slabs_.begin(), slabs_.end(), reinterpret_cast<uint8_t*>(base));
}

uint8_t* CountingMemoryPool::CarveFromSlab(int64_t capacity) {
  if (slab_left_ < capacity) {
    if (static_cast<int64_t>(slabs_.size() + 1) * kSlabSize > SlabCap()) return nullptr;
    uint8_t* bytes = MapHugePages(kSlabSize);
    if (bytes == nullptr) return nullptr;
    // The rest of the current slab (a multiple of kSlabBlockMinSize: every block carved is
    // a power of two from it) goes to the recycle lists, largest blocks first.
    while (slab_left_ >= kSlabBlockMinSize) {
      const auto piece = static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(slab_left_)));
      const auto piece_class = static_cast<size_t>(std::countr_zero(static_cast<uint64_t>(piece)));
      if (recycled_.size() <= piece_class) recycled_.resize(piece_class + 1);
      recycled_[piece_class].push_back(slab_next_);
      recycled_bytes_ += piece;
      slab_next_ += piece;
      slab_left_ -= piece;
    }
    slabs_.insert(std::upper_bound(slabs_.begin(), slabs_.end(), bytes), bytes);
    slab_next_ = bytes;
    slab_left_ = kSlabSize;
  }
  uint8_t* block = slab_next_;
  slab_next_ += capacity;
  slab_left_ -= capacity;
  return block;
}

int64_t CountingMemoryPool::recycled_bytes() const {
  std::lock_guard<std::mutex> lock(recycle_mutex_);
  return recycled_bytes_;
}

uint8_t* CountingMemoryPool::SplitRecycled(size_t size_class) {
  // A slab's block splits down to any size class (its halves are in the slab); a block
  // mapped on its own only down to kRecycleMinSize: a smaller block outside the slabs is
  // malloc's when it is given back.
  const size_t min_mapped_class =
      static_cast<size_t>(std::countr_zero(static_cast<uint64_t>(kRecycleMinSize)));
  const bool slab_only = size_class < min_mapped_class;
  // Slab blocks are smaller than a slab; a class holding blocks mapped on their own is
  // looked at only in its last few, so that a request does not walk long lists.
  const size_t end =
      slab_only ? std::min(recycled_.size(),
                           static_cast<size_t>(std::countr_zero(static_cast<uint64_t>(kSlabSize))))
                : recycled_.size();
  constexpr size_t kLookedAt = 8;
  for (size_t larger = size_class + 1; larger < end; ++larger) {
    std::vector<uint8_t*>& blocks = recycled_[larger];
    for (size_t i = blocks.size(); i-- > 0 && blocks.size() - i <= kLookedAt;) {
      uint8_t* p = blocks[i];
      if (slab_only && !InSlab(p)) continue;
      blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
      // The first piece of its size serves; the halves after it are kept, one per class.
      for (size_t k = larger; k-- > size_class;) {
        recycled_[k].push_back(p + (int64_t{1} << k));
      }
      recycled_bytes_ -= int64_t{1} << size_class;
      return p;
    }
  }
  return nullptr;
}

uint8_t* CountingMemoryPool::AllocateBlock(int64_t size) {
  int64_t capacity = BlockCapacity(size);
  if (size >= kSlabBlockMinSize) {
    size_t size_class = static_cast<size_t>(std::countr_zero(static_cast<uint64_t>(capacity)));
    std::lock_guard<std::mutex> lock(recycle_mutex_);
    if (size_class < recycled_.size() && !recycled_[size_class].empty()) {
      uint8_t* p = recycled_[size_class].back();
      recycled_[size_class].pop_back();
      recycled_bytes_ -= capacity;
      return p;
    }
    if (uint8_t* p = SplitRecycled(size_class)) return p;
    if (capacity < kSlabSize) {
      if (uint8_t* p = CarveFromSlab(capacity)) return p;
    }
  }
  if (capacity >= kHugePageSize) {
    // Whole 2 MiB pages (capacity is a power of two here): one fault per 2 MiB instead of
    // 512 when the block is first written, where faults are dear (virtual machines). Mapped
    // on its own rather than taken from malloc's heap, so that a block the pool does not
    // keep is unmapped when freed instead of staying resident in the heap.
    return MapHugePages(capacity);
  }
  if (size >= kRecycleMinSize) return MapPages(capacity);  // the slabs are at their cap
  return static_cast<uint8_t*>(std::aligned_alloc(kAlignment, static_cast<size_t>(capacity)));
}

void CountingMemoryPool::FreeBlock(uint8_t* ptr, int64_t size) {
  if (size >= kSlabBlockMinSize) {
    int64_t capacity = BlockCapacity(size);
    size_t size_class = static_cast<size_t>(std::countr_zero(static_cast<uint64_t>(capacity)));
    {
      std::lock_guard<std::mutex> lock(recycle_mutex_);
      // A slab's block cannot go back to the system on its own: it always stays. A block
      // below kRecycleMinSize outside the slabs is malloc's: it goes back there.
      if (InSlab(ptr) ||
          (capacity >= kRecycleMinSize && recycled_bytes_ + capacity <= RecycleCap())) {
        if (recycled_.size() <= size_class) recycled_.resize(size_class + 1);
        recycled_[size_class].push_back(ptr);
        recycled_bytes_ += capacity;
        return;
      }
    }
    ReleaseBlock(ptr, capacity);
    return;
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

int64_t CountingMemoryPool::BlockBytes(int64_t size) const {
  return size <= 0 ? 0 : BlockCapacity(size);
}

Result<uint8_t*> CountingMemoryPool::Allocate(int64_t size) {
  if (size < 0) return Status::Invalid("negative allocation size {}", size);
  if (size == 0) return zero_size_area;
  FLOE_RETURN_NOT_OK(Reserve(BlockBytes(size)));
  uint8_t* p = AllocateBlock(size);
  if (p == nullptr) {
    bytes_.fetch_sub(BlockBytes(size), std::memory_order_relaxed);
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
  if (BlockCapacity(old_size) == BlockCapacity(new_size)) return ptr;
  FLOE_ASSIGN_OR_RAISE(uint8_t * fresh, Allocate(new_size));
  std::memcpy(fresh, ptr, static_cast<size_t>(std::min(old_size, new_size)));
  Free(ptr, old_size);
  return fresh;
}

void CountingMemoryPool::Free(uint8_t* ptr, int64_t size) {
  if (ptr == zero_size_area || size == 0) return;
  FreeBlock(ptr, size);
  bytes_.fetch_sub(BlockBytes(size), std::memory_order_relaxed);
}

namespace {
// Batches are allocated and dropped at a high rate. glibc's defaults give the top of the
// heap back to the kernel whenever 128 KiB are free there, so the next batch's buffers
// fault their pages in again (measured: a 10M-row int32 scan spent more time in page
// faults than in decoding). Free memory stays at the heap's top up to the pool's retention
// cap (1 GiB without a limit, at most a quarter of the memory_limit with one: a 64
// MiB-limited sort peaked at 140-330 MiB resident with 256 MiB kept, 150-175 MiB with 32).
// Allocations from 32 MiB are mapped on their own. Mapping from a lower size under a limit was
// tried: the vectors a sort grows outside the pool then fault afresh on every growth (+60% time),
// and resident memory did not drop further.
void SetHeapRetention(int64_t cap) {
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(cap));
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

CountingMemoryPool* DefaultCountingPool() {
  static CountingMemoryPool* pool = [] {
    auto* p = new CountingMemoryPool();
    SetHeapRetention(p->retention_cap());
    return p;
  }();
  return pool;
}

// Serialises changes of the heap's settings with the limits they follow.
std::mutex heap_retention_mutex;
}  // namespace

MemoryPool* DefaultMemoryPool() { return DefaultCountingPool(); }

PoolRetentionLimit::PoolRetentionLimit(int64_t limit) : limit_(limit) {
  if (limit_ <= 0) return;
  std::lock_guard<std::mutex> lock(heap_retention_mutex);
  CountingMemoryPool* pool = DefaultCountingPool();
  pool->AddRetentionLimit(limit_);
  SetHeapRetention(pool->retention_cap());
}

PoolRetentionLimit::~PoolRetentionLimit() {
  if (limit_ <= 0) return;
  std::lock_guard<std::mutex> lock(heap_retention_mutex);
  CountingMemoryPool* pool = DefaultCountingPool();
  pool->RemoveRetentionLimit(limit_);
  SetHeapRetention(pool->retention_cap());
}

}  // namespace floe
