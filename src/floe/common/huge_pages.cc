#include "floe/common/huge_pages.h"

#include <sys/mman.h>

#include <cstddef>

namespace floe {

namespace {
size_t WholePages(int64_t bytes) {
  return static_cast<size_t>((bytes + kHugePageSize - 1) & ~(kHugePageSize - 1));
}
}  // namespace

uint8_t* MapHugePages(int64_t bytes) {
  const size_t size = WholePages(bytes);
  // Map a huge page more than needed, then unmap the unaligned head and the tail.
  const size_t span = size + static_cast<size_t>(kHugePageSize);
  void* map = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(map);
  const uintptr_t begin = (start + kHugePageSize - 1) & ~static_cast<uintptr_t>(kHugePageSize - 1);
  const uintptr_t end = begin + size;
  if (begin > start) ::munmap(map, begin - start);
  if (start + span > end) ::munmap(reinterpret_cast<void*>(end), start + span - end);
  auto* block = reinterpret_cast<uint8_t*>(begin);
  ::madvise(block, size, MADV_HUGEPAGE);
  return block;
}

void UnmapHugePages(uint8_t* block, int64_t bytes) { ::munmap(block, WholePages(bytes)); }

}  // namespace floe
