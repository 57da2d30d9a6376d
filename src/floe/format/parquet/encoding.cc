#include "floe/format/parquet/encoding.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <type_traits>

#include "floe/format/parquet/bit_util_internal.h"

namespace floe::parquet {

using internal::AppendUleb;
using internal::ReadUleb;

namespace {

constexpr int64_t kMaxOffset = std::numeric_limits<int32_t>::max();

Status OffsetOverflow(std::string_view encoding, int64_t index) {
  return Status::Invalid(
      "{}: byte-array data of a batch exceeds 2 GiB at value {}; decode smaller batches", encoding,
      index);
}

}  // namespace

Result<std::span<const uint8_t>> ReadLengthPrefixed(std::span<const uint8_t> data,
                                                    int64_t* consumed) {
  if (data.size() < 4) {
    return Status::Corrupt("RLE length prefix truncated: {} bytes, need 4", data.size());
  }
  uint32_t length;
  std::memcpy(&length, data.data(), 4);
  if (length > data.size() - 4) {
    return Status::Corrupt("RLE length prefix says {} bytes but only {} follow", length,
                           data.size() - 4);
  }
  *consumed = 4 + static_cast<int64_t>(length);
  return data.subspan(4, length);
}

// ------------------------------------------------------------------------------------------------
// RLE / bit-packing hybrid decoding.

Status RleBitPackedDecoder::Init(std::span<const uint8_t> data, int bit_width) {
  if (bit_width < 0 || bit_width > 32) {
    return Status::Corrupt("RLE: bit width {} is outside [0, 32]", bit_width);
  }
  begin_ = pos_ = data.data();
  end_ = data.data() + data.size();
  bit_width_ = bit_width;
  position_ = 0;
  repeat_left_ = 0;
  literal_left_ = 0;
  group_pos_ = 8;
  return Status::OK();
}

Status RleBitPackedDecoder::Exhausted(int64_t wanted) const {
  return Status::Corrupt("RLE: data ran out after {} values ({} bytes), {} more values needed",
                         position_, end_ - begin_, wanted);
}

Status RleBitPackedDecoder::NextRun() {
  const uint8_t* start = pos_;
  uint64_t header;
  if (!ReadUleb(&pos_, end_, 5, &header) || header > std::numeric_limits<uint32_t>::max()) {
    return Status::Corrupt("RLE: malformed run header at byte {} (value {})", start - begin_,
                           position_);
  }
  if (header & 1) {
    int64_t count = static_cast<int64_t>(header >> 1) * 8;
    int64_t bytes = static_cast<int64_t>(header >> 1) * bit_width_;
    int64_t avail = end_ - pos_;
    if (bytes > avail) {
      // A truncated last run: keep the whole values it holds; readers stop at the value count.
      count = avail * 8 / bit_width_;
      bytes = avail;
    }
    literal_left_ = count;
    literal_pos_ = pos_;
    pos_ += bytes;
    group_pos_ = 8;
  } else {
    int value_bytes = (bit_width_ + 7) / 8;
    if (end_ - pos_ < value_bytes) {
      return Status::Corrupt("RLE: run value truncated at byte {} (value {})", pos_ - begin_,
                             position_);
    }
    uint32_t value = 0;
    std::memcpy(&value, pos_, value_bytes);
    pos_ += value_bytes;
    if (bit_width_ < 32 && (value >> bit_width_) != 0) {
      return Status::Corrupt("RLE: run value {} at byte {} does not fit bit width {}", value,
                             start - begin_, bit_width_);
    }
    repeat_value_ = value;
    repeat_left_ = static_cast<int64_t>(header >> 1);
  }
  return Status::OK();
}

template <typename T>
Status RleBitPackedDecoder::DecodeImpl(T* out, int64_t n) {
  while (n > 0) {
    if (repeat_left_ > 0) {
      int64_t k = std::min(n, repeat_left_);
      std::fill(out, out + k, static_cast<T>(repeat_value_));
      out += k;
      n -= k;
      repeat_left_ -= k;
      position_ += k;
    } else if (literal_left_ > 0) {
      if (group_pos_ < 8) {
        int64_t k = std::min({n, literal_left_, static_cast<int64_t>(8 - group_pos_)});
        for (int64_t i = 0; i < k; ++i) out[i] = static_cast<T>(group_[group_pos_ + i]);
        group_pos_ += static_cast<int>(k);
        out += k;
        n -= k;
        literal_left_ -= k;
        position_ += k;
        continue;
      }
      int64_t groups = std::min(n, literal_left_) / 8;
      if (groups == 0) {
        internal::Unpack32(literal_pos_, end_ - literal_pos_, bit_width_, group_, 1);
        literal_pos_ += bit_width_;
        group_pos_ = 0;
        continue;
      }
      if constexpr (sizeof(T) == 4) {
        internal::Unpack32(literal_pos_, end_ - literal_pos_, bit_width_,
                           reinterpret_cast<uint32_t*>(out), groups);
      } else {
        uint32_t scratch[512];
        for (int64_t done = 0; done < groups;) {
          int64_t g = std::min<int64_t>(groups - done, 64);
          const uint8_t* src = literal_pos_ + done * bit_width_;
          internal::Unpack32(src, end_ - src, bit_width_, scratch, g);
          for (int64_t i = 0; i < g * 8; ++i) out[done * 8 + i] = static_cast<T>(scratch[i]);
          done += g;
        }
      }
      literal_pos_ += groups * bit_width_;
      out += groups * 8;
      n -= groups * 8;
      literal_left_ -= groups * 8;
      position_ += groups * 8;
    } else {
      if (pos_ == end_) {
        // Values of bit width 0 are all zero whether or not runs say so; some writers leave
        // the runs out.
        if (bit_width_ != 0) return Exhausted(n);
        std::fill(out, out + n, T{0});
        position_ += n;
        return Status::OK();
      }
      FLOE_RETURN_NOT_OK(NextRun());
    }
  }
  return Status::OK();
}

Status RleBitPackedDecoder::Decode(int32_t* out, int64_t n) { return DecodeImpl(out, n); }
Status RleBitPackedDecoder::Decode(int16_t* out, int64_t n) { return DecodeImpl(out, n); }
Status RleBitPackedDecoder::Decode(uint8_t* out, int64_t n) { return DecodeImpl(out, n); }

Status RleBitPackedDecoder::DecodeIndices(int32_t* out, int64_t n, int32_t dictionary_size) {
  FLOE_RETURN_NOT_OK(DecodeImpl(out, n));
  // Signed compares vectorise with SSE2 (an unsigned max needs SSE4.1).
  int32_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad |= (out[i] < 0) | (out[i] >= dictionary_size);
  if (bad != 0) {
    for (int64_t i = 0; i < n; ++i) {
      if (static_cast<uint32_t>(out[i]) >= static_cast<uint32_t>(dictionary_size)) {
        return Status::Corrupt(
            "dictionary index {} is out of range for a dictionary of {} values, at value {}",
            static_cast<uint32_t>(out[i]), dictionary_size, position_ - n + i);
      }
    }
  }
  return Status::OK();
}

Result<int64_t> RleBitPackedDecoder::ConsumeRepeated(int32_t value, int64_t max_count) {
  while (repeat_left_ == 0 && literal_left_ == 0) {
    if (pos_ == end_) return 0;
    FLOE_RETURN_NOT_OK(NextRun());
  }
  if (repeat_left_ == 0 || repeat_value_ != static_cast<uint32_t>(value)) return 0;
  int64_t k = std::min(repeat_left_, max_count);
  repeat_left_ -= k;
  position_ += k;
  return k;
}

Status RleBitPackedDecoder::Skip(int64_t n) {
  int32_t scratch[1024];
  while (n > 0) {
    if (repeat_left_ > 0) {
      int64_t k = std::min(n, repeat_left_);
      repeat_left_ -= k;
      position_ += k;
      n -= k;
      continue;
    }
    int64_t k = std::min<int64_t>(n, 1024);
    FLOE_RETURN_NOT_OK(DecodeImpl(scratch, k));
    n -= k;
  }
  return Status::OK();
}

// ------------------------------------------------------------------------------------------------
// RLE / bit-packing hybrid encoding.

namespace {

template <typename T>
void EncodeRleImpl(std::span<const T> values, int bit_width, std::vector<uint8_t>* out) {
  const size_t n = values.size();
  const int value_bytes = (bit_width + 7) / 8;
  size_t literal_start = 0;
  auto flush_literal = [&](size_t end) {
    size_t count = end - literal_start;
    if (count == 0) return;
    size_t groups = (count + 7) / 8;
    AppendUleb((static_cast<uint64_t>(groups) << 1) | 1, out);
    size_t start = out->size();
    internal::PackBits(values.data() + literal_start, static_cast<int64_t>(count), bit_width, out);
    // Pad the last group with zero values.
    out->resize(start + groups * bit_width, 0);
    literal_start = end;
  };
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && values[j] == values[i]) ++j;
    size_t run = j - i;
    if (run >= 8) {
      // A bit-packed run holds whole groups of 8: let the pending literal take values of this run
      // until it is aligned.
      size_t misaligned = (i - literal_start) % 8;
      if (misaligned != 0) {
        size_t take = 8 - misaligned;
        i += take;
        run -= take;
        if (run < 8) {
          i = j;
          continue;
        }
      }
      flush_literal(i);
      AppendUleb(static_cast<uint64_t>(run) << 1, out);
      uint32_t v = static_cast<uint32_t>(values[i]);
      for (int b = 0; b < value_bytes; ++b) out->push_back(static_cast<uint8_t>(v >> (8 * b)));
      i = j;
      literal_start = i;
    } else {
      i = j;
    }
  }
  flush_literal(n);
}

}  // namespace

void EncodeRleBitPacked(std::span<const int32_t> values, int bit_width, std::vector<uint8_t>* out) {
  EncodeRleImpl(values, bit_width, out);
}
void EncodeRleBitPacked(std::span<const int16_t> values, int bit_width, std::vector<uint8_t>* out) {
  EncodeRleImpl(values, bit_width, out);
}
void EncodeRleBitPacked(std::span<const uint8_t> values, int bit_width, std::vector<uint8_t>* out) {
  EncodeRleImpl(values, bit_width, out);
}

// ------------------------------------------------------------------------------------------------
// Dictionary indices.

Status DictionaryIndexDecoder::Init(std::span<const uint8_t> data, int32_t dictionary_size) {
  if (dictionary_size < 0) {
    return Status::Invalid("dictionary size {} is negative", dictionary_size);
  }
  if (data.empty()) {
    return Status::Corrupt("dictionary-encoded page is empty: no bit width byte");
  }
  if (data[0] > 32) {
    return Status::Corrupt("dictionary-encoded page: index bit width {} exceeds 32", data[0]);
  }
  dictionary_size_ = dictionary_size;
  return decoder_.Init(data.subspan(1), data[0]);
}

int DictionaryIndexBitWidth(int32_t dictionary_size) {
  return dictionary_size <= 1 ? 0 : internal::BitWidth(static_cast<uint64_t>(dictionary_size - 1));
}

namespace {
template <int W>
void GatherFixed(const uint8_t* dictionary, const int32_t* indices, int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out + i * W, dictionary + static_cast<int64_t>(indices[i]) * W, W);
  }
}
}  // namespace

void GatherDictionary(const uint8_t* dictionary, int32_t width, const int32_t* indices, int64_t n,
                      uint8_t* out) {
  // Fixed sizes let the compiler turn each copy into one load and store.
  switch (width) {
    case 1:
      return GatherFixed<1>(dictionary, indices, n, out);
    case 2:
      return GatherFixed<2>(dictionary, indices, n, out);
    case 4:
      return GatherFixed<4>(dictionary, indices, n, out);
    case 8:
      return GatherFixed<8>(dictionary, indices, n, out);
    case 12:
      return GatherFixed<12>(dictionary, indices, n, out);
    case 16:
      return GatherFixed<16>(dictionary, indices, n, out);
    default:
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(out + i * width, dictionary + static_cast<int64_t>(indices[i]) * width,
                    static_cast<size_t>(width));
      }
  }
}

void GatherDictionary(const ByteView* dictionary, const int32_t* indices, int64_t n,
                      ByteView* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = dictionary[indices[i]];
}

void EncodeDictionaryIndices(std::span<const int32_t> indices, int32_t dictionary_size,
                             std::vector<uint8_t>* out) {
  int width = DictionaryIndexBitWidth(dictionary_size);
  out->push_back(static_cast<uint8_t>(width));
  EncodeRleBitPacked(indices, width, out);
}

// ------------------------------------------------------------------------------------------------
// PLAIN.

template <typename T>
Status PlainDecoder<T>::Decode(T* out, int64_t n) {
  int64_t left = static_cast<int64_t>(data_.size()) - pos_;
  if (n < 0 || n > left / static_cast<int64_t>(sizeof(T))) {
    return Status::Corrupt(
        "PLAIN: {} values of {} bytes requested at byte {} but only {} bytes "
        "remain",
        n, sizeof(T), pos_, left);
  }
  if (n > 0) std::memcpy(out, data_.data() + pos_, n * sizeof(T));
  pos_ += n * static_cast<int64_t>(sizeof(T));
  return Status::OK();
}

template class PlainDecoder<int32_t>;
template class PlainDecoder<int64_t>;
template class PlainDecoder<float>;
template class PlainDecoder<double>;
template class PlainDecoder<Int96>;

Status PlainBooleanDecoder::Decode(uint8_t* out, int64_t n) {
  int64_t left = static_cast<int64_t>(data_.size()) * 8 - bit_pos_;
  if (n < 0 || n > left) {
    return Status::Corrupt("PLAIN BOOLEAN: {} values requested at bit {} but only {} bits remain",
                           n, bit_pos_, left);
  }
  const uint8_t* bytes = data_.data();
  int64_t i = 0;
  for (; i < n && (bit_pos_ & 7) != 0; ++i, ++bit_pos_) {
    out[i] = (bytes[bit_pos_ >> 3] >> (bit_pos_ & 7)) & 1;
  }
  for (; i + 8 <= n; i += 8, bit_pos_ += 8) {
    uint8_t b = bytes[bit_pos_ >> 3];
    for (int k = 0; k < 8; ++k) out[i + k] = (b >> k) & 1;
  }
  for (; i < n; ++i, ++bit_pos_) out[i] = (bytes[bit_pos_ >> 3] >> (bit_pos_ & 7)) & 1;
  return Status::OK();
}

Result<const uint8_t*> PlainBooleanDecoder::NextBits(int64_t n, int64_t* bit_offset) {
  int64_t left = static_cast<int64_t>(data_.size()) * 8 - bit_pos_;
  if (n < 0 || n > left) {
    return Status::Corrupt("PLAIN BOOLEAN: {} values requested at bit {} but only {} bits remain",
                           n, bit_pos_, left);
  }
  const uint8_t* first = data_.data() + (bit_pos_ >> 3);
  *bit_offset = bit_pos_ & 7;
  bit_pos_ += n;
  return first;
}

Result<uint32_t> PlainByteArrayDecoder::NextLength(int64_t* pos, int64_t i) const {
  const int64_t size = static_cast<int64_t>(data_.size());
  if (size - *pos < 4) {
    return Status::Corrupt("PLAIN BYTE_ARRAY: length of value {} truncated at byte {} of {}",
                           index_ + i, *pos, size);
  }
  uint32_t length;
  std::memcpy(&length, data_.data() + *pos, 4);
  *pos += 4;
  if (length > static_cast<uint64_t>(size - *pos)) {
    return Status::Corrupt(
        "PLAIN BYTE_ARRAY: value {} of {} bytes at byte {} runs past the page end ({} bytes)",
        index_ + i, length, *pos - 4, size);
  }
  return length;
}

Status PlainByteArrayDecoder::Decode(BinaryOutput out, int64_t n) {
  const uint8_t* data = data_.data();
  int64_t pos = pos_;
  int64_t offset = out.offsets[0];
  for (int64_t i = 0; i < n; ++i) {
    FLOE_ASSIGN_OR_RAISE(uint32_t length, NextLength(&pos, i));
    pos += length;
    offset += length;
    if (offset > kMaxOffset) return OffsetOverflow("PLAIN BYTE_ARRAY", index_ + i);
    out.offsets[i + 1] = static_cast<int32_t>(offset);
  }
  int64_t total = offset - out.offsets[0];
  uint8_t* dst = total > 0 ? out.data->Extend(total) : nullptr;
  if (total > 0 && dst == nullptr) {
    return Status::OutOfMemory("PLAIN BYTE_ARRAY: cannot grow the output by {} bytes", total);
  }
  // Second pass: copy the bytes, located by the offsets just written.
  int64_t src = pos_;
  for (int64_t i = 0; i < n; ++i) {
    int64_t length = static_cast<int64_t>(out.offsets[i + 1]) - out.offsets[i];
    if (length > 0) std::memcpy(dst, data + src + 4, length);
    dst += length;
    src += 4 + length;
  }
  pos_ = pos;
  index_ += n;
  return Status::OK();
}

Status PlainByteArrayDecoder::DecodeViews(ByteView* out, int64_t n) {
  const uint8_t* data = data_.data();
  int64_t pos = pos_;
  for (int64_t i = 0; i < n; ++i) {
    FLOE_ASSIGN_OR_RAISE(uint32_t length, NextLength(&pos, i));
    out[i] = ByteView{data + pos, static_cast<int64_t>(length)};
    pos += length;
  }
  pos_ = pos;
  index_ += n;
  return Status::OK();
}

Status PlainFixedLenDecoder::Init(std::span<const uint8_t> data, int32_t type_length) {
  if (type_length <= 0) {
    return Status::Invalid("FIXED_LEN_BYTE_ARRAY type length {} is not positive", type_length);
  }
  data_ = data;
  pos_ = 0;
  type_length_ = type_length;
  return Status::OK();
}

Result<const uint8_t*> PlainFixedLenDecoder::Next(int64_t n) {
  int64_t left = static_cast<int64_t>(data_.size()) - pos_;
  if (n < 0 || n > left / type_length_) {
    return Status::Corrupt(
        "PLAIN: {} values of {} bytes requested at byte {} but only {} bytes remain", n,
        type_length_, pos_, left);
  }
  const uint8_t* first = data_.data() + pos_;
  pos_ += n * type_length_;
  return first;
}

Status PlainFixedLenDecoder::Decode(uint8_t* out, int64_t n) {
  FLOE_ASSIGN_OR_RAISE(const uint8_t* values, Next(n));
  if (n > 0) std::memcpy(out, values, n * type_length_);
  return Status::OK();
}

void EncodePlainBoolean(std::span<const uint8_t> values, std::vector<uint8_t>* out) {
  size_t start = out->size();
  out->resize(start + (values.size() + 7) / 8, 0);
  uint8_t* dst = out->data() + start;
  for (size_t i = 0; i < values.size(); ++i) {
    dst[i >> 3] |= static_cast<uint8_t>((values[i] != 0) << (i & 7));
  }
}

void EncodePlainByteArray(const int32_t* offsets, const uint8_t* data, int64_t n,
                          std::vector<uint8_t>* out) {
  size_t start = out->size();
  out->resize(start + 4 * n + (offsets[n] - offsets[0]));
  uint8_t* dst = out->data() + start;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t length = static_cast<uint32_t>(offsets[i + 1] - offsets[i]);
    std::memcpy(dst, &length, 4);
    if (length > 0) std::memcpy(dst + 4, data + offsets[i], length);
    dst += 4 + length;
  }
}

void EncodePlainByteArray(std::span<const std::string_view> values, std::vector<uint8_t>* out) {
  for (std::string_view v : values) {
    uint32_t length = static_cast<uint32_t>(v.size());
    const uint8_t* l = reinterpret_cast<const uint8_t*>(&length);
    out->insert(out->end(), l, l + 4);
    out->insert(out->end(), v.begin(), v.end());
  }
}

// ------------------------------------------------------------------------------------------------
// DELTA_BINARY_PACKED.

namespace {
constexpr uint64_t kMaxDeltaBlockSize = 1 << 20;
constexpr uint64_t kMaxDeltaMiniblockSize = 1 << 16;
}  // namespace

template <typename T>
Status DeltaBinaryPackedDecoder<T>::Init(std::span<const uint8_t> data) {
  begin_ = pos_ = data.data();
  end_ = data.data() + data.size();
  uint64_t block_size, miniblocks, total, first;
  if (!ReadUleb(&pos_, end_, 10, &block_size) || !ReadUleb(&pos_, end_, 10, &miniblocks) ||
      !ReadUleb(&pos_, end_, 10, &total) || !ReadUleb(&pos_, end_, 10, &first)) {
    return Status::Corrupt("DELTA_BINARY_PACKED: header truncated or malformed at byte {} of {}",
                           pos_ - begin_, data.size());
  }
  // The spec asks for multiples of 128 and 32; multiples of 8 are accepted (its own examples use
  // blocks of 8).
  if (block_size == 0 || block_size % 8 != 0 || block_size > kMaxDeltaBlockSize ||
      miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 8 != 0 ||
      block_size / miniblocks > kMaxDeltaMiniblockSize) {
    return Status::Corrupt("DELTA_BINARY_PACKED: invalid block size {} with {} miniblocks",
                           block_size, miniblocks);
  }
  if (total > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return Status::Corrupt("DELTA_BINARY_PACKED: value count {} exceeds 2^31 - 1", total);
  }
  values_per_miniblock_ = static_cast<int64_t>(block_size / miniblocks);
  miniblocks_per_block_ = static_cast<int64_t>(miniblocks);
  total_values_ = static_cast<int64_t>(total);
  decoded_ = 0;
  last_ = static_cast<uint64_t>(internal::ZigZagDecode(first));
  miniblock_index_ = miniblocks_per_block_;
  bit_widths_.assign(miniblocks_per_block_, 0);
  miniblock_pos_ = miniblock_size_ = 0;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::LoadMiniblock() {
  if (miniblock_index_ == miniblocks_per_block_) {
    const uint8_t* start = pos_;
    uint64_t min_delta;
    if (!ReadUleb(&pos_, end_, 10, &min_delta)) {
      return Status::Corrupt("DELTA_BINARY_PACKED: block header truncated at byte {} (value {})",
                             start - begin_, decoded_);
    }
    min_delta_ = static_cast<uint64_t>(internal::ZigZagDecode(min_delta));
    if (end_ - pos_ < miniblocks_per_block_) {
      return Status::Corrupt("DELTA_BINARY_PACKED: miniblock bit widths truncated at byte {}",
                             pos_ - begin_);
    }
    std::memcpy(bit_widths_.data(), pos_, miniblocks_per_block_);
    pos_ += miniblocks_per_block_;
    miniblock_index_ = 0;
  }
  int width = bit_widths_[miniblock_index_];
  // Up to 64 bits for int32_t too: the deltas apply modulo 2^32 (see the class comment).
  if (width > 64) {
    return Status::Corrupt("DELTA_BINARY_PACKED: miniblock bit width {} exceeds 64 at value {}",
                           width, decoded_);
  }
  int64_t needed = std::min(values_per_miniblock_, total_values_ - decoded_);
  int64_t full_bytes = values_per_miniblock_ * width / 8;
  int64_t needed_bytes = (needed * width + 7) / 8;
  int64_t avail = end_ - pos_;
  if (avail < needed_bytes) {
    return Status::Corrupt("DELTA_BINARY_PACKED: miniblock at byte {} needs {} bytes, {} remain",
                           pos_ - begin_, needed_bytes, avail);
  }
  if (miniblock_.size() < static_cast<size_t>(values_per_miniblock_)) {
    miniblock_.resize(values_per_miniblock_);
  }
  internal::Unpack64(pos_, avail, width, miniblock_.data(), (needed + 7) / 8);
  // The last miniblock is padded to full size; tolerate writers that omit the padding.
  pos_ += std::min(full_bytes, avail);
  ++miniblock_index_;
  miniblock_pos_ = 0;
  miniblock_size_ = needed;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::Decode(T* out, int64_t n) {
  using U = std::make_unsigned_t<T>;
  if (n < 0 || n > remaining()) {
    return Status::Corrupt(
        "DELTA_BINARY_PACKED: {} values requested at value {} but the page "
        "holds {}",
        n, decoded_, total_values_);
  }
  int64_t i = 0;
  if (decoded_ == 0 && n > 0) {
    out[0] = static_cast<T>(static_cast<U>(last_));
    i = 1;
    decoded_ = 1;
  }
  U last = static_cast<U>(last_);
  while (i < n) {
    if (miniblock_pos_ == miniblock_size_) {
      last_ = last;
      FLOE_RETURN_NOT_OK(LoadMiniblock());
    }
    int64_t k = std::min(n - i, miniblock_size_ - miniblock_pos_);
    const U min_delta = static_cast<U>(min_delta_);
    const uint64_t* deltas = miniblock_.data() + miniblock_pos_;
    for (int64_t j = 0; j < k; ++j) {
      last += min_delta + static_cast<U>(deltas[j]);
      out[i + j] = static_cast<T>(last);
    }
    i += k;
    miniblock_pos_ += k;
    decoded_ += k;
  }
  last_ = last;
  return Status::OK();
}

template class DeltaBinaryPackedDecoder<int32_t>;
template class DeltaBinaryPackedDecoder<int64_t>;

namespace {

template <typename T>
void EncodeDeltaImpl(std::span<const T> values, std::vector<uint8_t>* out, int block_size,
                     int miniblocks) {
  using U = std::make_unsigned_t<T>;
  const int64_t n = static_cast<int64_t>(values.size());
  const int64_t per_miniblock = block_size / miniblocks;
  AppendUleb(block_size, out);
  AppendUleb(miniblocks, out);
  AppendUleb(n, out);
  AppendUleb(internal::ZigZagEncode(n > 0 ? static_cast<int64_t>(values[0]) : 0), out);
  std::vector<T> deltas(block_size);
  std::vector<U> relative(block_size);
  for (int64_t i = 1; i < n; i += block_size) {
    int64_t count = std::min<int64_t>(block_size, n - i);
    T min_delta = std::numeric_limits<T>::max();
    for (int64_t j = 0; j < count; ++j) {
      // Wrapping subtraction, done unsigned.
      deltas[j] = static_cast<T>(static_cast<U>(values[i + j]) - static_cast<U>(values[i + j - 1]));
      min_delta = std::min(min_delta, deltas[j]);
    }
    for (int64_t j = 0; j < count; ++j) {
      relative[j] = static_cast<U>(deltas[j]) - static_cast<U>(min_delta);
    }
    std::fill(relative.begin() + count, relative.end(), 0);
    AppendUleb(internal::ZigZagEncode(min_delta), out);
    size_t widths_at = out->size();
    out->resize(widths_at + miniblocks, 0);
    for (int m = 0; m < miniblocks && m * per_miniblock < count; ++m) {
      U bits = 0;
      for (int64_t j = m * per_miniblock; j < (m + 1) * per_miniblock; ++j) bits |= relative[j];
      int width = internal::BitWidth(bits);
      (*out)[widths_at + m] = static_cast<uint8_t>(width);
      internal::PackBits(relative.data() + m * per_miniblock, per_miniblock, width, out);
    }
  }
}

}  // namespace

void EncodeDeltaBinaryPacked(std::span<const int32_t> values, std::vector<uint8_t>* out,
                             int block_size, int miniblocks) {
  EncodeDeltaImpl(values, out, block_size, miniblocks);
}
void EncodeDeltaBinaryPacked(std::span<const int64_t> values, std::vector<uint8_t>* out,
                             int block_size, int miniblocks) {
  EncodeDeltaImpl(values, out, block_size, miniblocks);
}

// ------------------------------------------------------------------------------------------------
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.

namespace {

// Decodes a whole DELTA_BINARY_PACKED run of non-negative lengths, bounded by `max_values`.
Status DecodeLengths(std::span<const uint8_t> data, int64_t max_values, std::string_view what,
                     std::vector<int32_t>* lengths, int64_t* consumed) {
  DeltaBinaryPackedDecoder<int32_t> decoder;
  FLOE_RETURN_NOT_OK(decoder.Init(data).WithPrefix(std::string(what) + ": "));
  if (decoder.total_values() > max_values) {
    return Status::Corrupt("{}: header states {} values but the page holds at most {}", what,
                           decoder.total_values(), max_values);
  }
  lengths->resize(decoder.total_values());
  FLOE_RETURN_NOT_OK(
      decoder.Decode(lengths->data(), decoder.total_values()).WithPrefix(std::string(what) + ": "));
  for (size_t i = 0; i < lengths->size(); ++i) {
    if ((*lengths)[i] < 0) {
      return Status::Corrupt("{}: negative length {} of value {}", what, (*lengths)[i], i);
    }
  }
  *consumed = decoder.bytes_consumed();
  return Status::OK();
}

}  // namespace

Status DeltaLengthByteArrayDecoder::Init(std::span<const uint8_t> data, int64_t max_values) {
  int64_t consumed = 0;
  FLOE_RETURN_NOT_OK(
      DecodeLengths(data, max_values, "DELTA_LENGTH_BYTE_ARRAY lengths", &lengths_, &consumed));
  int64_t sum = 0;
  for (int32_t length : lengths_) sum += length;
  int64_t avail = static_cast<int64_t>(data.size()) - consumed;
  if (sum > avail) {
    return Status::Corrupt(
        "DELTA_LENGTH_BYTE_ARRAY: lengths sum to {} bytes but {} follow at "
        "byte {}",
        sum, avail, consumed);
  }
  data_ = data;
  index_ = 0;
  data_pos_ = consumed;
  data_end_ = consumed + sum;
  return Status::OK();
}

Status DeltaLengthByteArrayDecoder::Decode(BinaryOutput out, int64_t n) {
  if (n < 0 || n > total_values() - index_) {
    return Status::Corrupt(
        "DELTA_LENGTH_BYTE_ARRAY: {} values requested at value {} but the "
        "page holds {}",
        n, index_, total_values());
  }
  int64_t offset = out.offsets[0];
  for (int64_t i = 0; i < n; ++i) {
    offset += lengths_[index_ + i];
    if (offset > kMaxOffset) return OffsetOverflow("DELTA_LENGTH_BYTE_ARRAY", index_ + i);
    out.offsets[i + 1] = static_cast<int32_t>(offset);
  }
  int64_t total = offset - out.offsets[0];
  if (total > 0) {
    uint8_t* dst = out.data->Extend(total);
    if (dst == nullptr) {
      return Status::OutOfMemory("DELTA_LENGTH_BYTE_ARRAY: cannot grow the output by {} bytes",
                                 total);
    }
    std::memcpy(dst, data_.data() + data_pos_, total);
  }
  data_pos_ += total;
  index_ += n;
  return Status::OK();
}

Status DeltaLengthByteArrayDecoder::DecodeViews(ByteView* out, int64_t n) {
  if (n < 0 || n > total_values() - index_) {
    return Status::Corrupt(
        "DELTA_LENGTH_BYTE_ARRAY: {} values requested at value {} but the page holds {}", n, index_,
        total_values());
  }
  // Init checked that the lengths sum to at most the bytes present.
  const uint8_t* p = data_.data() + data_pos_;
  for (int64_t i = 0; i < n; ++i) {
    int32_t length = lengths_[index_ + i];
    out[i] = ByteView{p, length};
    p += length;
  }
  data_pos_ = p - data_.data();
  index_ += n;
  return Status::OK();
}

Status DeltaByteArrayDecoder::Init(std::span<const uint8_t> data, int64_t max_values) {
  int64_t consumed = 0;
  FLOE_RETURN_NOT_OK(
      DecodeLengths(data, max_values, "DELTA_BYTE_ARRAY prefix lengths", &prefixes_, &consumed));
  FLOE_RETURN_NOT_OK(
      suffixes_.Init(data.subspan(consumed), max_values).WithPrefix("DELTA_BYTE_ARRAY suffixes: "));
  if (suffixes_.total_values() != total_values()) {
    return Status::Corrupt("DELTA_BYTE_ARRAY: {} prefix lengths but {} suffixes", total_values(),
                           suffixes_.total_values());
  }
  last_.clear();
  index_ = 0;
  return Status::OK();
}

Status DeltaByteArrayDecoder::PrefixTooLong(int64_t index, int64_t prefix, int64_t previous) {
  return Status::Corrupt(
      "DELTA_BYTE_ARRAY: prefix length {} of value {} exceeds the previous value's length {}",
      prefix, index, previous);
}

void DeltaByteArrayDecoder::Rebuild(uint8_t* dst, int64_t n, ByteView* views) {
  const int32_t* suffix_lengths = suffixes_.lengths_.data();
  const uint8_t* prev = last_.data();
  int64_t prev_length = static_cast<int64_t>(last_.size());
  const uint8_t* suffix = suffixes_.data_.data() + suffixes_.data_pos_;
  for (int64_t i = 0; i < n; ++i) {
    int64_t prefix = prefixes_[index_ + i];
    int64_t suffix_length = suffix_lengths[index_ + i];
    if (prefix > 0) std::memcpy(dst, prev, prefix);
    if (suffix_length > 0) std::memcpy(dst + prefix, suffix, suffix_length);
    suffix += suffix_length;
    prev = dst;
    prev_length = prefix + suffix_length;
    if (views != nullptr) views[i] = ByteView{dst, prev_length};
    dst += prev_length;
  }
  if (n > 0) last_.assign(prev, prev + prev_length);
  suffixes_.data_pos_ = suffix - suffixes_.data_.data();
  suffixes_.index_ += n;
  index_ += n;
}

Status DeltaByteArrayDecoder::Decode(BinaryOutput out, int64_t n) {
  if (n < 0 || n > total_values() - index_) {
    return Status::Corrupt(
        "DELTA_BYTE_ARRAY: {} values requested at value {} but the page holds "
        "{}",
        n, index_, total_values());
  }
  const int32_t* suffix_lengths = suffixes_.lengths_.data();
  int64_t offset = out.offsets[0];
  // Prefixes are checked while sizing, so that lying ones cannot make the output huge.
  int64_t length = static_cast<int64_t>(last_.size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t prefix = prefixes_[index_ + i];
    if (prefix > length) return PrefixTooLong(index_ + i, prefix, length);
    length = prefix + suffix_lengths[index_ + i];
    offset += length;
    if (offset > kMaxOffset) return OffsetOverflow("DELTA_BYTE_ARRAY", index_ + i);
    out.offsets[i + 1] = static_cast<int32_t>(offset);
  }
  int64_t total = offset - out.offsets[0];
  uint8_t* dst = total > 0 ? out.data->Extend(total) : nullptr;
  if (total > 0 && dst == nullptr) {
    return Status::OutOfMemory("DELTA_BYTE_ARRAY: cannot grow the output by {} bytes", total);
  }
  Rebuild(dst, n, nullptr);
  return Status::OK();
}

Status DeltaByteArrayDecoder::DecodeFixed(uint8_t* out, int64_t n, int32_t type_length) {
  if (n < 0 || n > total_values() - index_) {
    return Status::Corrupt(
        "DELTA_BYTE_ARRAY: {} values requested at value {} but the page holds "
        "{}",
        n, index_, total_values());
  }
  const int32_t* suffix_lengths = suffixes_.lengths_.data();
  const uint8_t* suffix = suffixes_.data_.data() + suffixes_.data_pos_;
  const uint8_t* prev = last_.data();
  int64_t prev_length = static_cast<int64_t>(last_.size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t prefix = prefixes_[index_ + i];
    int64_t suffix_length = suffix_lengths[index_ + i];
    if (prefix > prev_length || prefix + suffix_length != type_length) {
      return Status::Corrupt(
          "DELTA_BYTE_ARRAY: value {} has prefix {} and suffix {} (previous "
          "value {} bytes, type length {})",
          index_ + i, prefix, suffix_length, prev_length, type_length);
    }
    uint8_t* dst = out + i * type_length;
    if (prefix > 0) std::memmove(dst, prev, prefix);
    if (suffix_length > 0) std::memcpy(dst + prefix, suffix, suffix_length);
    suffix += suffix_length;
    prev = dst;
    prev_length = type_length;
  }
  if (n > 0) last_.assign(prev, prev + prev_length);
  suffixes_.data_pos_ = suffix - suffixes_.data_.data();
  suffixes_.index_ += n;
  index_ += n;
  return Status::OK();
}

Status DeltaByteArrayDecoder::DecodeViews(ByteView* out, int64_t n, std::vector<uint8_t>* storage) {
  if (n < 0 || n > total_values() - index_) {
    return Status::Corrupt(
        "DELTA_BYTE_ARRAY: {} values requested at value {} but the page holds {}", n, index_,
        total_values());
  }
  // Sizes first, so that lying prefixes cannot make the rebuilt values huge.
  constexpr int64_t kMaxRebuilt = int64_t{1} << 30;
  const int32_t* suffix_lengths = suffixes_.lengths_.data();
  int64_t total = 0;
  int64_t length = static_cast<int64_t>(last_.size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t prefix = prefixes_[index_ + i];
    if (prefix > length) return PrefixTooLong(index_ + i, prefix, length);
    length = prefix + suffix_lengths[index_ + i];
    total += length;
    if (total > kMaxRebuilt) {
      return Status::Corrupt("DELTA_BYTE_ARRAY: values rebuild to more than {} bytes at value {}",
                             kMaxRebuilt, index_ + i);
    }
  }
  storage->resize(static_cast<size_t>(total));
  uint8_t* dst = storage->data();
  Rebuild(dst, n, out);
  return Status::OK();
}

void EncodeDeltaLengthByteArray(const int32_t* offsets, const uint8_t* data, int64_t n,
                                std::vector<uint8_t>* out) {
  std::vector<int32_t> lengths(n);
  for (int64_t i = 0; i < n; ++i) lengths[i] = offsets[i + 1] - offsets[i];
  EncodeDeltaBinaryPacked(lengths, out);
  out->insert(out->end(), data + offsets[0], data + offsets[n]);
}

void EncodeDeltaByteArray(const int32_t* offsets, const uint8_t* data, int64_t n,
                          std::vector<uint8_t>* out) {
  std::vector<int32_t> prefixes(n);
  std::vector<int32_t> suffix_lengths(n);
  std::vector<uint8_t> suffixes;
  for (int64_t i = 0; i < n; ++i) {
    int32_t length = offsets[i + 1] - offsets[i];
    int32_t prefix = 0;
    if (i > 0) {
      int32_t prev_length = offsets[i] - offsets[i - 1];
      int32_t limit = std::min(length, prev_length);
      const uint8_t* a = data + offsets[i - 1];
      const uint8_t* b = data + offsets[i];
      while (prefix < limit && a[prefix] == b[prefix]) ++prefix;
    }
    prefixes[i] = prefix;
    suffix_lengths[i] = length - prefix;
    suffixes.insert(suffixes.end(), data + offsets[i] + prefix, data + offsets[i + 1]);
  }
  EncodeDeltaBinaryPacked(prefixes, out);
  EncodeDeltaBinaryPacked(suffix_lengths, out);
  out->insert(out->end(), suffixes.begin(), suffixes.end());
}

// ------------------------------------------------------------------------------------------------
// BYTE_STREAM_SPLIT.

Status ByteStreamSplitDecoder::Init(std::span<const uint8_t> data, int32_t width) {
  if (width <= 0) return Status::Invalid("BYTE_STREAM_SPLIT: width {} is not positive", width);
  if (data.size() % width != 0) {
    return Status::Corrupt(
        "BYTE_STREAM_SPLIT: page of {} bytes is not a multiple of the value "
        "width {}",
        data.size(), width);
  }
  data_ = data;
  width_ = width;
  num_values_ = static_cast<int64_t>(data.size()) / width;
  index_ = 0;
  return Status::OK();
}

namespace {
template <int W>
void GatherStreams(const uint8_t* src, int64_t stride, int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < W; ++k) out[i * W + k] = src[k * stride + i];
  }
}
}  // namespace

Status ByteStreamSplitDecoder::Decode(uint8_t* out, int64_t n) {
  if (n < 0 || n > num_values_ - index_) {
    return Status::Corrupt(
        "BYTE_STREAM_SPLIT: {} values requested at value {} but the page holds "
        "{}",
        n, index_, num_values_);
  }
  const uint8_t* src = data_.data() + index_;
  switch (width_) {
    case 4:
      GatherStreams<4>(src, num_values_, n, out);
      break;
    case 8:
      GatherStreams<8>(src, num_values_, n, out);
      break;
    default:
      for (int64_t i = 0; i < n; ++i) {
        for (int32_t k = 0; k < width_; ++k) out[i * width_ + k] = src[k * num_values_ + i];
      }
  }
  index_ += n;
  return Status::OK();
}

void EncodeByteStreamSplit(const uint8_t* values, int64_t n, int32_t width,
                           std::vector<uint8_t>* out) {
  size_t start = out->size();
  out->resize(start + n * width);
  uint8_t* dst = out->data() + start;
  for (int32_t k = 0; k < width; ++k) {
    for (int64_t i = 0; i < n; ++i) dst[k * n + i] = values[i * width + k];
  }
}

// ------------------------------------------------------------------------------------------------
// Levels.

Status DecodeBitPackedLevels(std::span<const uint8_t> data, int bit_width, int16_t* out,
                             int64_t n) {
  if (bit_width < 0 || bit_width > 16) {
    return Status::Corrupt("BIT_PACKED levels: bit width {} is outside [0, 16]", bit_width);
  }
  const int64_t size = static_cast<int64_t>(data.size());
  if (n < 0 || (bit_width > 0 && n > size * 8 / bit_width)) {
    return Status::Corrupt("BIT_PACKED levels: {} levels of {} bits need more than the {} bytes", n,
                           bit_width, size);
  }
  const uint8_t* bytes = data.data();
  int64_t bit = 0;
  for (int64_t i = 0; i < n; ++i) {
    int v = 0;
    for (int b = 0; b < bit_width; ++b, ++bit) {
      v = (v << 1) | ((bytes[bit >> 3] >> (7 - (bit & 7))) & 1);
    }
    out[i] = static_cast<int16_t>(v);
  }
  return Status::OK();
}

}  // namespace floe::parquet
