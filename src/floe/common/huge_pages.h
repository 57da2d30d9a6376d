#pragma once

// Memory mapped straight from the kernel in whole transparent huge pages: first touching it
// costs one page fault per 2 MiB instead of 512 (faults are dear on virtual machines), and
// unmapping it gives it back to the system at once, where memory freed into malloc's heap
// would stay resident.

#include <cstdint>

namespace floe {

/// Transparent huge page size on x86-64 and most aarch64 kernels.
inline constexpr int64_t kHugePageSize = int64_t{2} << 20;

/// Maps `bytes` (> 0, rounded up to whole huge pages) of zero-filled memory aligned to a
/// huge page and asks for huge pages there; nullptr when the kernel refuses.
uint8_t* MapHugePages(int64_t bytes);

/// Unmaps what MapHugePages(bytes) returned.
void UnmapHugePages(uint8_t* block, int64_t bytes);

}  // namespace floe
