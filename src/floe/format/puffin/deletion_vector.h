#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "floe/common/result.h"
#include "floe/io/file.h"

namespace floe::puffin {

/// A set of deleted row positions (non-negative 64-bit) of one data file, stored as a 64-bit
/// Roaring bitmap: positions are split into a 32-bit high key and a 32-bit bitmap of low
/// halves, itself split into 16-bit containers (sorted arrays, 65536-bit bitmaps or runs).
/// This is the in-memory form of an Iceberg deletion vector (Puffin "deletion-vector-v1").
class PositionDeleteSet {
 public:
  PositionDeleteSet();
  ~PositionDeleteSet();
  PositionDeleteSet(const PositionDeleteSet&);
  PositionDeleteSet& operator=(const PositionDeleteSet&);
  PositionDeleteSet(PositionDeleteSet&&) noexcept;
  PositionDeleteSet& operator=(PositionDeleteSet&&) noexcept;

  /// Adds a position; InvalidArgument when it is negative.
  Status Add(int64_t position);
  /// Adds every position in [begin, end); InvalidArgument when begin is negative or end < begin.
  Status AddRange(int64_t begin, int64_t end);
  /// Adds every position of `other`.
  void Merge(const PositionDeleteSet& other);

  bool Contains(int64_t position) const;
  /// The number of positions in the set.
  int64_t Cardinality() const;
  bool empty() const { return Cardinality() == 0; }
  /// The largest position, if any.
  std::optional<int64_t> Max() const;
  /// The number of positions in [begin, end).
  int64_t CountInRange(int64_t begin, int64_t end) const;

  /// Calls `fn(position)` for every position in ascending order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    ForEachInRange(0, INT64_MAX, fn);
  }
  /// Calls `fn(position)` for every position in [begin, end) in ascending order.
  template <typename Fn>
  void ForEachInRange(int64_t begin, int64_t end, Fn&& fn) const {
    VisitRanges(
        begin, end,
        [](void* f, int64_t lo, int64_t hi) {
          for (int64_t pos = lo; pos < hi; ++pos)
            (*static_cast<std::remove_reference_t<Fn>*>(f))(pos);
        },
        &fn);
  }
  /// All positions in ascending order.
  std::vector<int64_t> ToVector() const;

  /// Writes a selection bitmap for rows [begin, end) in the Arrow layout (bit i is bit i % 8 of
  /// byte i / 8): 1 for a live row, 0 for a deleted one. `bits` must hold (end - begin + 7) / 8
  /// bytes; bits past end - begin in the last byte are set to 0.
  void FillLiveBitmap(int64_t begin, int64_t end, uint8_t* bits) const;

  /// The portable 64-bit Roaring serialization (bucket count, then key and 32-bit Roaring bitmap
  /// per bucket), choosing for each container the smallest of array, bitmap and run encodings.
  std::string SerializeRoaring() const;
  /// Parses the portable 64-bit Roaring serialization occupying all of `bytes`. Corrupt (naming
  /// `where` and the byte offset, counted from `base_offset`) for malformed input.
  static Result<PositionDeleteSet> DeserializeRoaring(std::span<const uint8_t> bytes,
                                                      std::string_view where,
                                                      int64_t base_offset = 0);

  bool operator==(const PositionDeleteSet& other) const;

  /// The containers by kind, for tests and statistics: {array, bitmap, run}.
  std::array<int64_t, 3> ContainerCounts() const;

  struct Impl;

 private:
  // Calls fn(ctx, lo, hi) for maximal-or-smaller ranges [lo, hi) of positions inside
  // [begin, end), in ascending order.
  void VisitRanges(int64_t begin, int64_t end, void (*fn)(void*, int64_t, int64_t),
                   void* ctx) const;
  std::unique_ptr<Impl> impl_;
};

/// The Puffin blob type of deletion vectors.
inline constexpr std::string_view kDeletionVectorBlobType = "deletion-vector-v1";

/// The "deletion-vector-v1" blob: 4-byte big-endian length of magic plus bitmap, the magic
/// D1 D3 39 64, the portable 64-bit Roaring bitmap, and a big-endian CRC-32 of magic and bitmap.
std::string SerializeDeletionVector(const PositionDeleteSet& positions);

/// Parses a whole "deletion-vector-v1" blob. `where` names the file and `base_offset` is the
/// blob's offset in it, so that errors say "deletion vector in 'f' at offset N: ...". Corrupt for
/// a bad length, magic, CRC or bitmap; when `expected_cardinality` is given (the manifest's
/// record_count or the blob's "cardinality" property) a different count is Corrupt too.
Result<PositionDeleteSet> DeserializeDeletionVector(
    std::span<const uint8_t> blob, std::string_view where, int64_t base_offset = 0,
    std::optional<int64_t> expected_cardinality = std::nullopt);

/// Reads the deletion vector at [offset, offset + length) of `file` (a delete file's
/// content_offset and content_size_in_bytes) without reading the Puffin footer.
Result<PositionDeleteSet> ReadDeletionVector(
    const io::RandomAccessFile& file, int64_t offset, int64_t length,
    std::optional<int64_t> expected_cardinality = std::nullopt);

}  // namespace floe::puffin
