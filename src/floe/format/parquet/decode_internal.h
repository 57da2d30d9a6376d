#pragma once

// Reader-side decoding kernels (apache/parquet-format Encodings.md), tuned to decode a
// whole page straight into the reader's buffers. Every function treats its input as
// hostile: counts and lengths are checked against the bytes present, and failures are
// Corrupt statuses that the caller prefixes with the file, column and page.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "floe/common/result.h"

namespace floe::parquet::internal {

/// A growable byte area whose contents are not initialised on growth; reused from page
/// to page so that steady-state decoding does not allocate.
class Scratch {
 public:
  /// Ensures capacity for `size` bytes (contents are kept only when `keep` is true) and
  /// returns the data pointer.
  uint8_t* Reserve(int64_t size, bool keep = false) {
    if (size > capacity_) {
      int64_t cap = std::max<int64_t>(size, capacity_ + capacity_ / 2);
      std::unique_ptr<uint8_t[]> fresh(new uint8_t[static_cast<size_t>(cap) + kPadding]);
      if (keep && capacity_ > 0)
        std::memcpy(fresh.get(), data_.get(), static_cast<size_t>(capacity_));
      data_ = std::move(fresh);
      capacity_ = cap;
    }
    return data_.get();
  }
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  int64_t capacity() const { return capacity_; }
  template <typename T>
  T* as() {
    return reinterpret_cast<T*>(data_.get());
  }

 private:
  // Slack past the end so that word-at-a-time loops may over-read safely.
  static constexpr int64_t kPadding = 16;
  std::unique_ptr<uint8_t[]> data_;
  int64_t capacity_ = 0;
};

/// A byte string inside a page or dictionary buffer.
struct ByteView {
  const uint8_t* data;
  int64_t size;
};

/// Reads an unsigned LEB128 varint of at most 10 bytes; false when truncated or too long.
bool ReadUleb128(const uint8_t** p, const uint8_t* end, uint64_t* out);

/// Unpacks `n` values of `bit_width` (0..64) bits, LSB first, starting at value index
/// `first` of `data` (which holds `size` bytes). The caller checks that the bits exist.
void UnpackBits(const uint8_t* data, int64_t size, int bit_width, int64_t first, int64_t n,
                uint64_t* out);

/// Decoder of the RLE / bit-packing hybrid (Encodings.md, "Run Length Encoding /
/// Bit-Packing Hybrid") without the length prefix.
class RleDecoder {
 public:
  RleDecoder() = default;
  RleDecoder(const uint8_t* data, int64_t size, int bit_width)
      : p_(data), end_(data + size), bit_width_(bit_width) {}

  /// Decodes exactly `n` values into `out`. Corrupt when the runs end first.
  template <typename T>
  Status Get(T* out, int64_t n);

  /// When the next `n` values are all one RLE run's value, consumes them, stores the
  /// value in `*value` and returns true; otherwise consumes nothing (beyond reading the
  /// next run header) and returns false. Lets level decoding skip pages without nulls.
  Result<bool> TryGetRepeated(int64_t n, uint64_t* value);

 private:
  Status NextRun();

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  int bit_width_ = 0;
  int64_t rle_left_ = 0;
  uint64_t rle_value_ = 0;
  int64_t packed_left_ = 0;
  const uint8_t* packed_data_ = nullptr;
  int64_t packed_size_ = 0;
  int64_t packed_index_ = 0;
  uint64_t unpacked_[64];
};

/// Decodes the deprecated BIT_PACKED level encoding (MSB first) of `n` levels.
Status DecodeBitPackedLevels(const uint8_t* data, int64_t size, int bit_width, int64_t n,
                             int16_t* out);

/// Decodes a DELTA_BINARY_PACKED stream of at most `max_values` values into `*out`
/// (resized); `*consumed` receives the bytes the stream used.
template <typename T>
Status DecodeDeltaBinaryPacked(const uint8_t* data, int64_t size, int64_t max_values,
                               std::vector<T>* out, int64_t* consumed);

/// Decodes BYTE_STREAM_SPLIT data of `width`-byte values: `n` values (the data may hold
/// more) into `out` (n * width bytes).
Status DecodeByteStreamSplit(const uint8_t* data, int64_t size, int width, int64_t n, uint8_t* out);

/// Decodes `n` PLAIN byte arrays into views of `data`.
Status DecodePlainByteArrays(const uint8_t* data, int64_t size, int64_t n, ByteView* out);

/// Decodes DELTA_LENGTH_BYTE_ARRAY: `n` views into `data`.
Status DecodeDeltaLengthByteArrays(const uint8_t* data, int64_t size, int64_t n, ByteView* out);

/// Decodes DELTA_BYTE_ARRAY: `n` values rebuilt into `*storage`, viewed by `out`.
Status DecodeDeltaByteArrays(const uint8_t* data, int64_t size, int64_t n,
                             std::vector<uint8_t>* storage, ByteView* out);

/// Checks levels against `max_level` and counts those equal to it.
Status CheckLevels(const int16_t* levels, int64_t n, int16_t max_level, int64_t* num_max);

}  // namespace floe::parquet::internal
