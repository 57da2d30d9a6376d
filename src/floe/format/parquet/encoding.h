#pragma once

// Parquet value and level encodings (apache/parquet-format Encodings.md): decoders that read
// from a page's bytes with every length bounds-checked, and encoders that append to a byte
// vector. Decoders never allocate by an untrusted count without a caller-given bound, and report
// malformed input as Status::Corrupt naming the encoding and the value index or byte offset.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::parquet {

/// A 12-byte INT96 value (legacy timestamps), as stored: little-endian nanoseconds of the day in
/// the first 8 bytes, the Julian day in the last 4.
struct Int96 {
  uint32_t value[3];
  bool operator==(const Int96&) const = default;
};
static_assert(sizeof(Int96) == 12);

/// A byte string inside a page or dictionary buffer, which owns the bytes.
struct ByteView {
  const uint8_t* data;
  int64_t size;
};

/// A growable byte buffer that byte-array decoders append value bytes to (the data buffer of an
/// Arrow binary array). Decoders call Extend once per batch, not per value.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  /// Grows the buffer by `n` bytes and returns where they start, or nullptr when the memory
  /// cannot be had. The pointer is valid until the next call.
  virtual uint8_t* Extend(int64_t n) = 0;
};

/// A ByteSink over a std::vector.
class VectorByteSink final : public ByteSink {
 public:
  explicit VectorByteSink(std::vector<uint8_t>* data) : data_(data) {}
  uint8_t* Extend(int64_t n) override {
    size_t start = data_->size();
    data_->resize(start + static_cast<size_t>(n));
    return data_->data() + start;
  }

 private:
  std::vector<uint8_t>* data_;
};

/// Where byte-array decoders write n values in Arrow's layout. On entry `offsets[0]` holds the
/// running base offset (the size of the data written so far); the decoder writes
/// `offsets[1..n]`, each the end of a value, and appends the value bytes to `data`. Offsets past
/// INT32_MAX are an InvalidArgument error (use smaller batches).
struct BinaryOutput {
  int32_t* offsets;
  ByteSink* data;
};

/// Reads the 4-byte little-endian length prefix of RLE data in v1 data pages (levels) and of RLE
/// booleans, returning the prefixed bytes and setting `*consumed` to 4 + length. Corrupt when the
/// length runs past `data`.
Result<std::span<const uint8_t>> ReadLengthPrefixed(std::span<const uint8_t> data,
                                                    int64_t* consumed);

// ------------------------------------------------------------------------------------------------
// RLE / bit-packing hybrid.

/// Decodes the RLE / bit-packing hybrid (levels, dictionary indices, RLE booleans) in bulk.
class RleBitPackedDecoder {
 public:
  /// Starts decoding `data` (without length prefix) of values `bit_width` (0..32) bits wide.
  /// Corrupt when the bit width is out of range.
  Status Init(std::span<const uint8_t> data, int bit_width);

  /// Decodes exactly `n` values. Corrupt when the data ends first or a run is malformed (data of
  /// bit width 0 that ends early decodes as zeros: its values carry no bits).
  /// Narrow outputs (int16 levels, uint8 booleans) truncate values wider than the type.
  Status Decode(int32_t* out, int64_t n);
  Status Decode(int16_t* out, int64_t n);
  Status Decode(uint8_t* out, int64_t n);

  /// Decodes exactly `n` dictionary indices and checks each is below `dictionary_size`;
  /// Corrupt names the first out-of-range index and its position.
  Status DecodeIndices(int32_t* out, int64_t n, int32_t dictionary_size);

  /// Consumes and returns how many of the next values (at most `max_count`) are `value` in the
  /// current RLE run; 0 when the next value is in a bit-packed run or differs. Lets a reader take
  /// "all values defined" spans of definition levels without materialising them.
  Result<int64_t> ConsumeRepeated(int32_t value, int64_t max_count);

  /// Skips `n` values. Corrupt when the data ends first.
  Status Skip(int64_t n);

  /// The number of values decoded or skipped so far.
  int64_t position() const { return position_; }

 private:
  template <typename T>
  Status DecodeImpl(T* out, int64_t n);
  Status NextRun();
  Status Exhausted(int64_t wanted) const;

  const uint8_t* begin_ = nullptr;
  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
  int bit_width_ = 0;
  int64_t position_ = 0;
  // The current RLE run.
  int64_t repeat_left_ = 0;
  uint32_t repeat_value_ = 0;
  // The current bit-packed run: values left and where its next group starts; a partly consumed
  // group waits in `group_`.
  int64_t literal_left_ = 0;
  const uint8_t* literal_pos_ = nullptr;
  uint32_t group_[8] = {};
  int group_pos_ = 8;
};

/// Appends `values` (each below 2^bit_width, bit_width 0..32) in the RLE / bit-packing hybrid:
/// runs of 8 or more equal values become RLE runs, the rest bit-packed groups of 8.
void EncodeRleBitPacked(std::span<const int32_t> values, int bit_width, std::vector<uint8_t>* out);
void EncodeRleBitPacked(std::span<const int16_t> values, int bit_width, std::vector<uint8_t>* out);
void EncodeRleBitPacked(std::span<const uint8_t> values, int bit_width, std::vector<uint8_t>* out);

/// As EncodeRleBitPacked, preceded by the 4-byte little-endian length (v1 levels, RLE booleans).
template <typename T>
void EncodeRleBitPackedWithLength(std::span<const T> values, int bit_width,
                                  std::vector<uint8_t>* out) {
  size_t start = out->size();
  out->resize(start + 4);
  EncodeRleBitPacked(values, bit_width, out);
  uint32_t length = static_cast<uint32_t>(out->size() - start - 4);
  for (int i = 0; i < 4; ++i) (*out)[start + i] = static_cast<uint8_t>(length >> (8 * i));
}

// ------------------------------------------------------------------------------------------------
// Dictionary indices (PLAIN_DICTIONARY / RLE_DICTIONARY data pages).

/// Decodes the indices of a dictionary-encoded data page: a bit-width byte, then the hybrid.
class DictionaryIndexDecoder {
 public:
  /// Corrupt when the page is empty or the bit width exceeds 32.
  Status Init(std::span<const uint8_t> data, int32_t dictionary_size);
  /// Decodes exactly `n` indices, each checked against the dictionary size.
  Status Decode(int32_t* out, int64_t n) {
    return decoder_.DecodeIndices(out, n, dictionary_size_);
  }
  RleBitPackedDecoder& rle() { return decoder_; }

 private:
  RleBitPackedDecoder decoder_;
  int32_t dictionary_size_ = 0;
};

/// The bit width dictionary indices below `dictionary_size` need.
int DictionaryIndexBitWidth(int32_t dictionary_size);

/// Gathers `n` dictionary entries of `width` bytes each: entry `indices[i]` of `dictionary` to
/// `out + i * width`. The indices must have been checked against the dictionary size (as
/// DictionaryIndexDecoder::Decode does).
void GatherDictionary(const uint8_t* dictionary, int32_t width, const int32_t* indices, int64_t n,
                      uint8_t* out);
/// As above for byte-array dictionaries: `out[i] = dictionary[indices[i]]`.
void GatherDictionary(const ByteView* dictionary, const int32_t* indices, int64_t n, ByteView* out);

/// Appends a dictionary data page body: the bit-width byte for `dictionary_size`, then `indices`
/// in the hybrid encoding.
void EncodeDictionaryIndices(std::span<const int32_t> indices, int32_t dictionary_size,
                             std::vector<uint8_t>* out);

// ------------------------------------------------------------------------------------------------
// PLAIN.

/// PLAIN for fixed-width types: int32_t, int64_t, float, double, Int96.
template <typename T>
class PlainDecoder {
 public:
  void Init(std::span<const uint8_t> data) {
    data_ = data;
    pos_ = 0;
  }
  /// Copies exactly `n` values. Corrupt when the page holds fewer.
  Status Decode(T* out, int64_t n);
  /// Bytes consumed so far.
  int64_t position() const { return pos_; }

 private:
  std::span<const uint8_t> data_;
  int64_t pos_ = 0;
};

extern template class PlainDecoder<int32_t>;
extern template class PlainDecoder<int64_t>;
extern template class PlainDecoder<float>;
extern template class PlainDecoder<double>;
extern template class PlainDecoder<Int96>;

/// PLAIN BOOLEAN: bit-packed, LSB first. Writes one byte (0 or 1) per value.
class PlainBooleanDecoder {
 public:
  void Init(std::span<const uint8_t> data) {
    data_ = data;
    bit_pos_ = 0;
  }
  Status Decode(uint8_t* out, int64_t n);
  /// Consumes `n` values without copying them: returns the byte holding the first one's bit and
  /// sets `*bit_offset` to its bit within that byte. Corrupt when the page holds fewer.
  Result<const uint8_t*> NextBits(int64_t n, int64_t* bit_offset);

 private:
  std::span<const uint8_t> data_;
  int64_t bit_pos_ = 0;
};

/// PLAIN BYTE_ARRAY: a 4-byte little-endian length before each value.
class PlainByteArrayDecoder {
 public:
  void Init(std::span<const uint8_t> data) {
    data_ = data;
    pos_ = 0;
    index_ = 0;
  }
  /// Decodes exactly `n` values into `out`.
  Status Decode(BinaryOutput out, int64_t n);
  /// Decodes exactly `n` values as views of the page bytes, without copying them.
  Status DecodeViews(ByteView* out, int64_t n);

 private:
  // Reads the 4-byte length of value `index_ + i` at *pos, checks that the value fits in
  // the page, and advances *pos past the length.
  Result<uint32_t> NextLength(int64_t* pos, int64_t i) const;

  std::span<const uint8_t> data_;
  int64_t pos_ = 0;
  int64_t index_ = 0;
};

/// PLAIN FIXED_LEN_BYTE_ARRAY: values back to back, `type_length` bytes each.
class PlainFixedLenDecoder {
 public:
  /// InvalidArgument when type_length is not positive.
  Status Init(std::span<const uint8_t> data, int32_t type_length);
  /// Copies exactly `n` values (n * type_length bytes).
  Status Decode(uint8_t* out, int64_t n);
  /// Consumes exactly `n` values without copying them and returns where they start in the page
  /// (PLAIN fixed-width data is already in its final layout). Corrupt when the page holds fewer.
  /// Serves every fixed-width physical type, with `type_length` its size.
  Result<const uint8_t*> Next(int64_t n);

 private:
  std::span<const uint8_t> data_;
  int64_t pos_ = 0;
  int32_t type_length_ = 0;
};

/// Appends fixed-width values in PLAIN.
template <typename T>
void EncodePlain(std::span<const T> values, std::vector<uint8_t>* out) {
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(values.data());
  out->insert(out->end(), bytes, bytes + values.size_bytes());
}
/// Appends booleans (one byte each, zero or not) bit-packed.
void EncodePlainBoolean(std::span<const uint8_t> values, std::vector<uint8_t>* out);
/// Appends `n` byte arrays given in Arrow layout (value i is data[offsets[i], offsets[i+1])).
void EncodePlainByteArray(const int32_t* offsets, const uint8_t* data, int64_t n,
                          std::vector<uint8_t>* out);
void EncodePlainByteArray(std::span<const std::string_view> values, std::vector<uint8_t>* out);

// ------------------------------------------------------------------------------------------------
// DELTA_BINARY_PACKED.

/// DELTA_BINARY_PACKED for int32_t and int64_t. Arithmetic wraps in two's complement, as the
/// spec requires. Miniblocks of int32_t streams may be up to 64 bits wide: writers that compute
/// the deltas of 32-bit values in 64-bit arithmetic (DuckDB) need 33 bits for a delta such as
/// INT32_MAX - INT32_MIN; it is applied modulo 2^32, which gives the same values.
template <typename T>
class DeltaBinaryPackedDecoder {
 public:
  /// Reads the header. Corrupt when it is truncated or describes an invalid block layout.
  Status Init(std::span<const uint8_t> data);
  /// The value count the header states.
  int64_t total_values() const { return total_values_; }
  /// Values not yet decoded.
  int64_t remaining() const { return total_values_ - decoded_; }
  /// Decodes exactly `n` values. Corrupt when fewer remain or a block is malformed.
  Status Decode(T* out, int64_t n);
  /// After all values are decoded: the encoded size (where following data starts).
  int64_t bytes_consumed() const { return pos_ - begin_; }

 private:
  Status LoadMiniblock();

  const uint8_t* begin_ = nullptr;
  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
  int64_t values_per_miniblock_ = 0;
  int64_t miniblocks_per_block_ = 0;
  int64_t total_values_ = 0;
  int64_t decoded_ = 0;
  uint64_t last_ = 0;
  uint64_t min_delta_ = 0;
  int64_t miniblock_index_ = 0;  // Within the current block; == miniblocks_per_block_ at its end.
  std::vector<uint8_t> bit_widths_;
  std::vector<uint64_t> miniblock_;  // Unpacked deltas of the current miniblock.
  int64_t miniblock_pos_ = 0;
  int64_t miniblock_size_ = 0;
};

extern template class DeltaBinaryPackedDecoder<int32_t>;
extern template class DeltaBinaryPackedDecoder<int64_t>;

/// Appends `values` in DELTA_BINARY_PACKED with the given layout (block_size a multiple of 128,
/// miniblocks dividing it into multiples of 32 values).
void EncodeDeltaBinaryPacked(std::span<const int32_t> values, std::vector<uint8_t>* out,
                             int block_size = 128, int miniblocks = 4);
void EncodeDeltaBinaryPacked(std::span<const int64_t> values, std::vector<uint8_t>* out,
                             int block_size = 128, int miniblocks = 4);

// ------------------------------------------------------------------------------------------------
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.

/// DELTA_LENGTH_BYTE_ARRAY: all lengths delta-packed, then all value bytes.
class DeltaLengthByteArrayDecoder {
 public:
  /// Decodes the lengths. `max_values` bounds the count the header may state (the page header's
  /// value count), so that memory is never sized by the page alone. Corrupt when the lengths are
  /// malformed, negative, or sum to more than the page holds.
  Status Init(std::span<const uint8_t> data, int64_t max_values);
  int64_t total_values() const { return static_cast<int64_t>(lengths_.size()); }
  Status Decode(BinaryOutput out, int64_t n);
  /// Decodes exactly `n` values as views of the page bytes, without copying them.
  Status DecodeViews(ByteView* out, int64_t n);
  /// The decoded lengths of all values.
  const std::vector<int32_t>& lengths() const { return lengths_; }
  /// Total encoded size.
  int64_t bytes_consumed() const { return data_end_; }

 private:
  friend class DeltaByteArrayDecoder;
  std::span<const uint8_t> data_;
  std::vector<int32_t> lengths_;
  int64_t index_ = 0;
  int64_t data_pos_ = 0;  // Byte offset of the next value in data_.
  int64_t data_end_ = 0;
};

/// DELTA_BYTE_ARRAY: prefix lengths (shared with the previous value) delta-packed, then the
/// suffixes as DELTA_LENGTH_BYTE_ARRAY.
class DeltaByteArrayDecoder {
 public:
  /// As DeltaLengthByteArrayDecoder::Init; the prefix and suffix counts must agree.
  Status Init(std::span<const uint8_t> data, int64_t max_values);
  int64_t total_values() const { return static_cast<int64_t>(prefixes_.size()); }
  /// Decodes exactly `n` values. Corrupt when a prefix is longer than the previous value.
  Status Decode(BinaryOutput out, int64_t n);
  /// Decodes exactly `n` FIXED_LEN_BYTE_ARRAY values; Corrupt unless each is `type_length`.
  Status DecodeFixed(uint8_t* out, int64_t n, int32_t type_length);
  /// Decodes exactly `n` values into `*storage` (replaced), viewed by `out`; the views stay valid
  /// until `storage` changes. Corrupt when the values would rebuild to more than 1 GiB.
  Status DecodeViews(ByteView* out, int64_t n, std::vector<uint8_t>* storage);

 private:
  static Status PrefixTooLong(int64_t index, int64_t prefix, int64_t previous);
  // Writes the next `n` values (already bounds-checked, sized to fit) to `dst` from the
  // prefixes and suffixes, optionally viewing each in `views`, and advances past them.
  void Rebuild(uint8_t* dst, int64_t n, ByteView* views);

  std::vector<int32_t> prefixes_;
  DeltaLengthByteArrayDecoder suffixes_;
  std::vector<uint8_t> last_;
  int64_t index_ = 0;
};

/// Appends byte arrays (Arrow layout) in DELTA_LENGTH_BYTE_ARRAY.
void EncodeDeltaLengthByteArray(const int32_t* offsets, const uint8_t* data, int64_t n,
                                std::vector<uint8_t>* out);
/// Appends byte arrays (Arrow layout) in DELTA_BYTE_ARRAY.
void EncodeDeltaByteArray(const int32_t* offsets, const uint8_t* data, int64_t n,
                          std::vector<uint8_t>* out);

// ------------------------------------------------------------------------------------------------
// BYTE_STREAM_SPLIT.

/// BYTE_STREAM_SPLIT for values `width` bytes wide (4: FLOAT/INT32, 8: DOUBLE/INT64, or a
/// FIXED_LEN_BYTE_ARRAY's length).
class ByteStreamSplitDecoder {
 public:
  /// Corrupt unless the page size is a multiple of `width`; the value count is size / width.
  Status Init(std::span<const uint8_t> data, int32_t width);
  int64_t total_values() const { return num_values_; }
  /// Writes exactly `n` values, `width` bytes each, to `out`.
  Status Decode(uint8_t* out, int64_t n);

 private:
  std::span<const uint8_t> data_;
  int32_t width_ = 0;
  int64_t num_values_ = 0;
  int64_t index_ = 0;
};

/// Appends `n` values of `width` bytes each in BYTE_STREAM_SPLIT.
void EncodeByteStreamSplit(const uint8_t* values, int64_t n, int32_t width,
                           std::vector<uint8_t>* out);

// ------------------------------------------------------------------------------------------------
// Levels.

/// Decodes `n` levels of the deprecated BIT_PACKED encoding (packed MSB first, no length prefix)
/// from `data`. Corrupt when `data` holds fewer than n * bit_width bits.
Status DecodeBitPackedLevels(std::span<const uint8_t> data, int bit_width, int16_t* out, int64_t n);

/// The bytes `n` BIT_PACKED levels of `bit_width` bits occupy.
inline int64_t BitPackedLevelsSize(int64_t n, int bit_width) { return (n * bit_width + 7) / 8; }

}  // namespace floe::parquet
