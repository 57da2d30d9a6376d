#include "floe/common/memory_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "floe/testing/matchers.h"

namespace floe {
namespace {

using testing::IsError;

TEST(MemoryPoolTest, CountsBytesAndPeak) {
  CountingMemoryPool pool;
  ASSERT_OK_AND_ASSIGN(uint8_t * a, pool.Allocate(100));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % MemoryPool::kAlignment, 0u);
  ASSERT_OK_AND_ASSIGN(uint8_t * b, pool.Allocate(1000));
  // Each allocation counts the block it takes: 128 and 1024 bytes (multiples of 64).
  EXPECT_EQ(pool.BlockBytes(100), 128);
  EXPECT_EQ(pool.BlockBytes(1000), 1024);
  EXPECT_EQ(pool.bytes_allocated(), 128 + 1024);
  a[99] = 7;
  // From kSlabBlockMinSize (4 KiB) on, a request takes a power-of-two block: 8 KiB.
  ASSERT_OK_AND_ASSIGN(a, pool.Reallocate(a, 100, 5000));
  EXPECT_EQ(a[99], 7);
  EXPECT_EQ(pool.BlockBytes(5000), 8192);
  EXPECT_EQ(pool.bytes_allocated(), 8192 + 1024);
  // Growing within the block's size takes nothing more.
  ASSERT_OK_AND_ASSIGN(uint8_t * same, pool.Reallocate(a, 5000, 8000));
  EXPECT_EQ(same, a);
  EXPECT_EQ(pool.bytes_allocated(), 8192 + 1024);
  pool.Free(a, 8000);
  pool.Free(b, 1000);
  EXPECT_EQ(pool.bytes_allocated(), 0);
  // A reallocation that moves holds both blocks for a moment.
  EXPECT_EQ(pool.max_memory(), 128 + 8192 + 1024);
}

TEST(MemoryPoolTest, SmallBlocksOfTheirOwnPagesAreCarvedFromSlabs) {
  CountingMemoryPool pool;
  constexpr int64_t kKiB = 1024;
  // Below 4 KiB a block comes from malloc; from 4 KiB on, from the current slab, one after
  // another whatever their class.
  ASSERT_OK_AND_ASSIGN(uint8_t * tiny, pool.Allocate(4 * kKiB - 1));
  EXPECT_EQ(pool.slab_bytes(), 0);
  ASSERT_OK_AND_ASSIGN(uint8_t * four, pool.Allocate(4 * kKiB));
  EXPECT_EQ(pool.slab_bytes(), CountingMemoryPool::kSlabSize);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(four) % CountingMemoryPool::kSlabSize, 0u);
  ASSERT_OK_AND_ASSIGN(uint8_t * eight, pool.Allocate(5 * kKiB));
  EXPECT_EQ(eight, four + 4 * kKiB);
  ASSERT_OK_AND_ASSIGN(uint8_t * large, pool.Allocate(CountingMemoryPool::kRecycleMinSize));
  EXPECT_EQ(large, eight + 8 * kKiB);
  four[4 * kKiB - 1] = 1;
  eight[5 * kKiB - 1] = 2;
  EXPECT_EQ(pool.bytes_allocated(), 4 * kKiB + 8 * kKiB + 64 * kKiB + 4 * kKiB);
  // A freed small slab block is kept in its class and handed out again.
  pool.Free(eight, 5 * kKiB);
  EXPECT_EQ(pool.recycled_bytes(), 8 * kKiB);
  ASSERT_OK_AND_ASSIGN(uint8_t * again, pool.Allocate(6 * kKiB));
  EXPECT_EQ(again, eight);
  EXPECT_EQ(pool.recycled_bytes(), 0);
  pool.Free(again, 6 * kKiB);
  pool.Free(four, 4 * kKiB);
  pool.Free(large, CountingMemoryPool::kRecycleMinSize);
  pool.Free(tiny, 4 * kKiB - 1);
  EXPECT_EQ(pool.recycled_bytes(), 4 * kKiB + 8 * kKiB + 64 * kKiB);
  EXPECT_EQ(pool.bytes_allocated(), 0);
  EXPECT_EQ(pool.slab_bytes(), CountingMemoryPool::kSlabSize);
}

TEST(MemoryPoolTest, SmallBlocksPastTheSlabCapComeFromMallocAndGoBack) {
  CountingMemoryPool pool;
  // A limit of 16 MiB allows two slabs (a quarter): 512 blocks of 8 KiB fill them.
  pool.AddRetentionLimit(4 * 2 * CountingMemoryPool::kSlabSize);
  constexpr int64_t kBlock = 8 << 10;
  const int64_t in_slabs = 2 * CountingMemoryPool::kSlabSize / kBlock;
  std::vector<uint8_t*> blocks;
  for (int64_t i = 0; i < in_slabs + 3; ++i) {
    ASSERT_OK_AND_ASSIGN(uint8_t * p, pool.Allocate(kBlock));
    p[kBlock - 1] = 1;
    blocks.push_back(p);
  }
  EXPECT_EQ(pool.slab_bytes(), 2 * CountingMemoryPool::kSlabSize);
  EXPECT_EQ(pool.bytes_allocated(), (in_slabs + 3) * kBlock);
  // The three past the slabs go back to malloc when freed; the slabs' blocks stay.
  for (uint8_t* p : blocks) pool.Free(p, kBlock);
  EXPECT_EQ(pool.recycled_bytes(), 2 * CountingMemoryPool::kSlabSize);
  EXPECT_EQ(pool.bytes_allocated(), 0);
  pool.RemoveRetentionLimit(4 * 2 * CountingMemoryPool::kSlabSize);
}

TEST(MemoryPoolTest, LargeRequestsCountTheirPowerOfTwoBlock) {
  CountingMemoryPool pool;
  const int64_t min = CountingMemoryPool::kRecycleMinSize;
  EXPECT_EQ(pool.BlockBytes(min), min);
  EXPECT_EQ(pool.BlockBytes(min + 1), 2 * min);
  EXPECT_EQ(pool.BlockBytes(3 * min), 4 * min);
  EXPECT_EQ(pool.BlockBytes(0), 0);
  ASSERT_OK_AND_ASSIGN(uint8_t * a, pool.Allocate(3 * min));
  EXPECT_EQ(pool.bytes_allocated(), 4 * min);
  pool.Free(a, 3 * min);
  EXPECT_EQ(pool.bytes_allocated(), 0);
}

TEST(MemoryPoolTest, LimitIsEnforced) {
  CountingMemoryPool pool(1024);
  ASSERT_OK_AND_ASSIGN(uint8_t * a, pool.Allocate(1000));
  EXPECT_THAT(pool.Allocate(100), IsError(StatusCode::kOutOfMemory));
  EXPECT_THAT(pool.Reallocate(a, 1000, 2000), IsError(StatusCode::kOutOfMemory));
  EXPECT_EQ(pool.bytes_allocated(), 1024);
  pool.Free(a, 1000);
  EXPECT_EQ(pool.bytes_allocated(), 0);
}

TEST(MemoryPoolTest, ZeroAndNegativeSizes) {
  CountingMemoryPool pool;
  ASSERT_OK_AND_ASSIGN(uint8_t * z, pool.Allocate(0));
  EXPECT_NE(z, nullptr);
  pool.Free(z, 0);
  EXPECT_THAT(pool.Allocate(-1), IsError(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace floe

namespace floe {
namespace {

TEST(MemoryPoolTest, LargeBlocksAreRecycledBySizeClass) {
  CountingMemoryPool pool;
  const int64_t big = 3 * CountingMemoryPool::kRecycleMinSize;
  ASSERT_OK_AND_ASSIGN(uint8_t * a, pool.Allocate(big));
  a[big - 1] = 1;
  pool.Free(a, big);
  EXPECT_EQ(pool.bytes_allocated(), 0);
  EXPECT_EQ(pool.recycled_bytes(), 4 * CountingMemoryPool::kRecycleMinSize);
  // A request in the same power-of-two class gets the same block back.
  ASSERT_OK_AND_ASSIGN(uint8_t * b, pool.Allocate(big + 100));
  EXPECT_EQ(a, b);
  EXPECT_EQ(pool.recycled_bytes(), 0);
  EXPECT_EQ(pool.bytes_allocated(), 4 * CountingMemoryPool::kRecycleMinSize);
  // Growing within the class keeps the block; growing past it moves.
  ASSERT_OK_AND_ASSIGN(uint8_t * c,
                       pool.Reallocate(b, big + 100, 4 * CountingMemoryPool::kRecycleMinSize));
  EXPECT_EQ(c, b);
  pool.Free(c, 4 * CountingMemoryPool::kRecycleMinSize);
  // Small blocks are not kept.
  ASSERT_OK_AND_ASSIGN(uint8_t * s, pool.Allocate(100));
  pool.Free(s, 100);
  EXPECT_EQ(pool.recycled_bytes(), 4 * CountingMemoryPool::kRecycleMinSize);
}

TEST(MemoryPoolTest, LargerRecycledBlocksAreSplitForSmallerRequests) {
  CountingMemoryPool pool;
  constexpr int64_t kKiB = 1024;
  constexpr int64_t kMiB = 1024 * kKiB;
  // A block of two huge pages, mapped on its own, kept when freed.
  ASSERT_OK_AND_ASSIGN(uint8_t * four, pool.Allocate(4 * kMiB));
  four[4 * kMiB - 1] = 1;
  pool.Free(four, 4 * kMiB);
  EXPECT_EQ(pool.recycled_bytes(), 4 * kMiB);
  // A 2 MiB request takes its first half, a 1 MiB one the first half of the rest, and a
  // 64 KiB one the start of what is left; the other halves stay kept.
  ASSERT_OK_AND_ASSIGN(uint8_t * two, pool.Allocate(2 * kMiB));
  EXPECT_EQ(two, four);
  EXPECT_EQ(pool.recycled_bytes(), 2 * kMiB);
  ASSERT_OK_AND_ASSIGN(uint8_t * one, pool.Allocate(kMiB));
  EXPECT_EQ(one, four + 2 * kMiB);
  ASSERT_OK_AND_ASSIGN(uint8_t * small, pool.Allocate(CountingMemoryPool::kRecycleMinSize));
  EXPECT_EQ(small, four + 3 * kMiB);
  EXPECT_EQ(pool.recycled_bytes(), kMiB - CountingMemoryPool::kRecycleMinSize);
  EXPECT_EQ(pool.slab_bytes(), 0);
  two[0] = 2;
  one[kMiB - 1] = 3;
  small[0] = 4;
  // A block mapped on its own is not cut below kRecycleMinSize (a smaller block outside
  // the slabs is malloc's): a 4 KiB request is carved from a slab instead.
  ASSERT_OK_AND_ASSIGN(uint8_t * page, pool.Allocate(4 * kKiB));
  EXPECT_EQ(pool.slab_bytes(), CountingMemoryPool::kSlabSize);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(page) % CountingMemoryPool::kSlabSize, 0u);
  pool.Free(page, 4 * kKiB);
  pool.Free(small, CountingMemoryPool::kRecycleMinSize);
  pool.Free(one, kMiB);
  pool.Free(two, 2 * kMiB);
  EXPECT_EQ(pool.bytes_allocated(), 0);
  EXPECT_EQ(pool.recycled_bytes(), 4 * kMiB + 4 * kKiB);
  // Trimming gives the pieces of the mapped block back one by one (a wrong unmap would
  // fail here or at the pool's end under AddressSanitizer).
  pool.AddRetentionLimit(4 * kMiB);
  EXPECT_LE(pool.recycled_bytes(), kMiB);
  pool.RemoveRetentionLimit(4 * kMiB);

  // A slab's block splits down to any class.
  CountingMemoryPool slabs;
  ASSERT_OK_AND_ASSIGN(uint8_t * half_mib, slabs.Allocate(512 * kKiB));
  EXPECT_EQ(slabs.slab_bytes(), CountingMemoryPool::kSlabSize);
  slabs.Free(half_mib, 512 * kKiB);
  ASSERT_OK_AND_ASSIGN(uint8_t * eight, slabs.Allocate(8 * kKiB));
  EXPECT_EQ(eight, half_mib);
  ASSERT_OK_AND_ASSIGN(uint8_t * next, slabs.Allocate(8 * kKiB));
  EXPECT_EQ(next, half_mib + 8 * kKiB);
  EXPECT_EQ(slabs.recycled_bytes(), 512 * kKiB - 16 * kKiB);
  slabs.Free(eight, 8 * kKiB);
  slabs.Free(next, 8 * kKiB);
  EXPECT_EQ(slabs.recycled_bytes(), 512 * kKiB);
}

TEST(MemoryPoolTest, MidSizeBlocksAreCarvedFromHugePageSlabs) {
  CountingMemoryPool pool;
  const int64_t capacity = 2 * CountingMemoryPool::kRecycleMinSize;  // 128 KiB
  const int64_t per_slab = CountingMemoryPool::kSlabSize / capacity;
  std::vector<uint8_t*> blocks;
  for (int64_t i = 0; i < per_slab; ++i) {
    ASSERT_OK_AND_ASSIGN(uint8_t * p, pool.Allocate(capacity - 100));
    p[0] = 1;
    p[capacity - 101] = 2;
    blocks.push_back(p);
  }
  // One slab holds them all, one after another from its 2 MiB-aligned start. Every size
  // class carves from the current slab.
  EXPECT_EQ(pool.slab_bytes(), CountingMemoryPool::kSlabSize);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(blocks[0]) % CountingMemoryPool::kSlabSize, 0u);
  for (size_t i = 1; i < blocks.size(); ++i) EXPECT_EQ(blocks[i], blocks[i - 1] + capacity);
  // The next block needs a second slab; a block of another class follows it there.
  constexpr int64_t kKiB = 1024;
  ASSERT_OK_AND_ASSIGN(uint8_t * extra, pool.Allocate(capacity));
  EXPECT_EQ(pool.slab_bytes(), 2 * CountingMemoryPool::kSlabSize);
  ASSERT_OK_AND_ASSIGN(uint8_t * other, pool.Allocate(CountingMemoryPool::kRecycleMinSize));
  EXPECT_EQ(pool.slab_bytes(), 2 * CountingMemoryPool::kSlabSize);
  EXPECT_EQ(other, extra + capacity);
  // 1,856 KiB are left there: a 1 MiB block fits, a second does not. It takes a third slab,
  // and the second's last 832 KiB go to the recycle lists (512, 256 and 64 KiB), where a
  // request of their sizes finds them.
  ASSERT_OK_AND_ASSIGN(uint8_t * mib, pool.Allocate(1024 * kKiB));
  EXPECT_EQ(mib, other + CountingMemoryPool::kRecycleMinSize);
  EXPECT_EQ(pool.recycled_bytes(), 0);
  ASSERT_OK_AND_ASSIGN(uint8_t * mib2, pool.Allocate(1024 * kKiB));
  EXPECT_EQ(pool.slab_bytes(), 3 * CountingMemoryPool::kSlabSize);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(mib2) % CountingMemoryPool::kSlabSize, 0u);
  EXPECT_EQ(pool.recycled_bytes(), 832 * kKiB);
  ASSERT_OK_AND_ASSIGN(uint8_t * piece, pool.Allocate(256 * kKiB));
  EXPECT_EQ(piece, mib + 1024 * kKiB + 512 * kKiB);
  EXPECT_EQ(pool.recycled_bytes(), 576 * kKiB);
  pool.Free(piece, 256 * kKiB);
  pool.Free(mib, 1024 * kKiB);
  pool.Free(mib2, 1024 * kKiB);
  const int64_t kept = pool.recycled_bytes();
  // Freed slab blocks are handed out again (last freed first) and no slab is added.
  pool.Free(blocks[3], capacity - 100);
  EXPECT_EQ(pool.recycled_bytes(), kept + capacity);
  ASSERT_OK_AND_ASSIGN(uint8_t * again, pool.Allocate(capacity - 100));
  EXPECT_EQ(again, blocks[3]);
  EXPECT_EQ(pool.slab_bytes(), 3 * CountingMemoryPool::kSlabSize);
  blocks[3] = again;
  for (uint8_t* p : blocks) pool.Free(p, capacity - 100);
  pool.Free(extra, capacity);
  pool.Free(other, CountingMemoryPool::kRecycleMinSize);
  EXPECT_EQ(pool.bytes_allocated(), 0);
  // A block of a huge page or more is not carved.
  ASSERT_OK_AND_ASSIGN(uint8_t * huge, pool.Allocate(CountingMemoryPool::kSlabSize));
  EXPECT_EQ(pool.slab_bytes(), 3 * CountingMemoryPool::kSlabSize);
  pool.Free(huge, CountingMemoryPool::kSlabSize);
}

TEST(MemoryPoolTest, RetentionLimitBoundsWhatIsKept) {
  CountingMemoryPool pool;
  const int64_t huge = 4 * CountingMemoryPool::kSlabSize;  // 8 MiB, mapped on its own
  ASSERT_OK_AND_ASSIGN(uint8_t * a, pool.Allocate(huge));
  ASSERT_OK_AND_ASSIGN(uint8_t * b, pool.Allocate(huge));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % CountingMemoryPool::kSlabSize, 0u);
  a[huge - 1] = 1;
  b[0] = 1;
  pool.Free(a, huge);
  EXPECT_EQ(pool.recycled_bytes(), huge);
  // A limit of 16 MiB keeps at most a quarter, 4 MiB: the kept 8 MiB block goes back at
  // once, and so does the next one freed.
  pool.AddRetentionLimit(2 * huge);
  EXPECT_EQ(pool.recycled_bytes(), 0);
  pool.Free(b, huge);
  EXPECT_EQ(pool.recycled_bytes(), 0);
  // Slabs stop at a quarter of the limit (two 2 MiB slabs); blocks past them come from the
  // heap and are not kept.
  const int64_t block = CountingMemoryPool::kRecycleMinSize;
  const int64_t per_slab = CountingMemoryPool::kSlabSize / block;
  std::vector<uint8_t*> blocks;
  for (int64_t i = 0; i < 3 * per_slab; ++i) {
    ASSERT_OK_AND_ASSIGN(uint8_t * p, pool.Allocate(block));
    p[block - 1] = 1;
    blocks.push_back(p);
  }
  EXPECT_EQ(pool.slab_bytes(), 2 * CountingMemoryPool::kSlabSize);
  for (uint8_t* p : blocks) pool.Free(p, block);
  EXPECT_EQ(pool.recycled_bytes(), 2 * CountingMemoryPool::kSlabSize);
  // The smallest limit in force applies; removing the last one restores the defaults.
  pool.AddRetentionLimit(64 * huge);
  pool.RemoveRetentionLimit(2 * huge);
  ASSERT_OK_AND_ASSIGN(uint8_t * c, pool.Allocate(huge));
  pool.Free(c, huge);
  EXPECT_EQ(pool.recycled_bytes(), 2 * CountingMemoryPool::kSlabSize + huge);
  pool.RemoveRetentionLimit(64 * huge);
  EXPECT_EQ(pool.bytes_allocated(), 0);
}

}  // namespace
}  // namespace floe
