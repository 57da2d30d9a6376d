#include "floe/format/parquet/decode_internal.h"

#include <algorithm>
#include <limits>

namespace floe::parquet::internal {

bool ReadUleb128(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  const uint8_t* q = *p;
  for (int shift = 0; shift < 70; shift += 7) {
    if (q >= end) return false;
    uint8_t b = *q++;
    if (shift == 63 && b > 1) return false;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *p = q;
      *out = v;
      return true;
    }
  }
  return false;
}

namespace {

inline uint64_t LoadLe64(const uint8_t* data, int64_t size, int64_t byte) {
  uint64_t w = 0;
  if (byte + 8 <= size) {
    std::memcpy(&w, data + byte, 8);
  } else if (byte < size) {
    std::memcpy(&w, data + byte, static_cast<size_t>(size - byte));
  }
  return w;
}

}  // namespace

void UnpackBits(const uint8_t* data, int64_t size, int bit_width, int64_t first, int64_t n,
                uint64_t* out) {
  if (bit_width == 0) {
    std::fill(out, out + n, 0);
    return;
  }
  const uint64_t mask = bit_width == 64 ? ~0ULL : ((1ULL << bit_width) - 1);
  int64_t bit = first * bit_width;
  if (bit_width <= 56) {
    for (int64_t i = 0; i < n; ++i, bit += bit_width) {
      uint64_t w = LoadLe64(data, size, bit >> 3);
      out[i] = (w >> (bit & 7)) & mask;
    }
  } else {
    for (int64_t i = 0; i < n; ++i, bit += bit_width) {
      int64_t byte = bit >> 3;
      int shift = static_cast<int>(bit & 7);
      uint64_t lo = LoadLe64(data, size, byte);
      uint64_t v = lo >> shift;
      if (shift + bit_width > 64) {
        uint64_t hi = byte + 8 < size ? data[byte + 8] : 0;
        v |= hi << (64 - shift);
      }
      out[i] = v & mask;
    }
  }
}

Status RleDecoder::NextRun() {
  uint64_t header;
  if (!ReadUleb128(&p_, end_, &header)) {
    return Status::Corrupt("RLE/bit-packed data ends inside a run header");
  }
  if (header & 1) {
    uint64_t groups = header >> 1;
    int64_t avail = end_ - p_;
    int64_t bytes = 0;
    uint64_t values;
    if (bit_width_ == 0) {
      values = std::min<uint64_t>(groups, 1ULL << 37) * 8;
    } else {
      // The last bit-packed run may be cut short by writers; take the values present.
      uint64_t full = groups > static_cast<uint64_t>(avail) ? ~0ULL : groups * bit_width_;
      bytes = static_cast<int64_t>(std::min<uint64_t>(full, static_cast<uint64_t>(avail)));
      values = std::min<uint64_t>(std::min<uint64_t>(groups, 1ULL << 37) * 8,
                                  static_cast<uint64_t>(bytes) * 8 / bit_width_);
      if (values == 0 && groups > 0) {
        return Status::Corrupt("RLE/bit-packed data ends inside a bit-packed run");
      }
    }
    packed_left_ = static_cast<int64_t>(values);
    packed_data_ = p_;
    packed_size_ = bytes;
    packed_index_ = 0;
    p_ += bytes;
  } else {
    int nbytes = (bit_width_ + 7) / 8;
    if (end_ - p_ < nbytes) return Status::Corrupt("RLE/bit-packed data ends inside an RLE run");
    uint64_t v = 0;
    for (int i = 0; i < nbytes; ++i) v |= static_cast<uint64_t>(p_[i]) << (8 * i);
    p_ += nbytes;
    if (bit_width_ < 64 && (v >> bit_width_) != 0) {
      return Status::Corrupt("RLE run value {} does not fit in {} bits", v, bit_width_);
    }
    rle_value_ = v;
    rle_left_ = static_cast<int64_t>(std::min<uint64_t>(header >> 1, 1ULL << 40));
  }
  return Status::OK();
}

template <typename T>
Status RleDecoder::Get(T* out, int64_t n) {
  while (n > 0) {
    if (rle_left_ > 0) {
      int64_t take = std::min(rle_left_, n);
      std::fill(out, out + take, static_cast<T>(rle_value_));
      out += take;
      n -= take;
      rle_left_ -= take;
    } else if (packed_left_ > 0) {
      int64_t take = std::min<int64_t>({packed_left_, n, 64});
      UnpackBits(packed_data_, packed_size_, bit_width_, packed_index_, take, unpacked_);
      for (int64_t i = 0; i < take; ++i) out[i] = static_cast<T>(unpacked_[i]);
      out += take;
      n -= take;
      packed_left_ -= take;
      packed_index_ += take;
    } else {
      if (p_ >= end_) {
        if (bit_width_ == 0) {
          std::fill(out, out + n, T{0});
          return Status::OK();
        }
        return Status::Corrupt("RLE/bit-packed data ran out with {} values still expected", n);
      }
      FLOE_RETURN_NOT_OK(NextRun());
    }
  }
  return Status::OK();
}

Result<bool> RleDecoder::TryGetRepeated(int64_t n, uint64_t* value) {
  if (rle_left_ == 0 && packed_left_ == 0 && p_ < end_) FLOE_RETURN_NOT_OK(NextRun());
  if (rle_left_ < n) return false;
  rle_left_ -= n;
  *value = rle_value_;
  return true;
}

template Status RleDecoder::Get<int16_t>(int16_t*, int64_t);
template Status RleDecoder::Get<uint32_t>(uint32_t*, int64_t);
template Status RleDecoder::Get<uint8_t>(uint8_t*, int64_t);

Status DecodeBitPackedLevels(const uint8_t* data, int64_t size, int bit_width, int64_t n,
                             int16_t* out) {
  if (n * bit_width > size * 8) {
    return Status::Corrupt("BIT_PACKED levels need {} bits, the page has {}", n * bit_width,
                           size * 8);
  }
  int64_t bit = 0;
  for (int64_t i = 0; i < n; ++i) {
    int v = 0;
    for (int b = 0; b < bit_width; ++b, ++bit) {
      v = (v << 1) | ((data[bit >> 3] >> (7 - (bit & 7))) & 1);
    }
    out[i] = static_cast<int16_t>(v);
  }
  return Status::OK();
}

template <typename T>
Status DecodeDeltaBinaryPacked(const uint8_t* data, int64_t size, int64_t max_values,
                               std::vector<T>* out, int64_t* consumed) {
  using U = std::make_unsigned_t<T>;
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  uint64_t block_size, miniblocks, total, first_zz;
  if (!ReadUleb128(&p, end, &block_size) || !ReadUleb128(&p, end, &miniblocks) ||
      !ReadUleb128(&p, end, &total) || !ReadUleb128(&p, end, &first_zz)) {
    return Status::Corrupt("DELTA_BINARY_PACKED header is truncated");
  }
  if (block_size == 0 || block_size % 128 != 0 || block_size > (1 << 20) || miniblocks == 0 ||
      block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0) {
    return Status::Corrupt("DELTA_BINARY_PACKED header has block size {} with {} miniblocks",
                           block_size, miniblocks);
  }
  if (total > static_cast<uint64_t>(max_values)) {
    return Status::Corrupt("DELTA_BINARY_PACKED claims {} values where at most {} fit", total,
                           max_values);
  }
  out->resize(total);
  if (total == 0) {
    *consumed = p - data;
    return Status::OK();
  }
  const int64_t per_mb = static_cast<int64_t>(block_size / miniblocks);
  U prev = static_cast<U>((first_zz >> 1) ^ (~(first_zz & 1) + 1));
  T* o = out->data();
  o[0] = static_cast<T>(prev);
  int64_t i = 1;
  uint64_t deltas[64];
  const int64_t n_total = static_cast<int64_t>(total);
  while (i < n_total) {
    uint64_t min_zz;
    if (!ReadUleb128(&p, end, &min_zz)) {
      return Status::Corrupt("DELTA_BINARY_PACKED block header is truncated");
    }
    U min_delta = static_cast<U>((min_zz >> 1) ^ (~(min_zz & 1) + 1));
    if (static_cast<uint64_t>(end - p) < miniblocks) {
      return Status::Corrupt("DELTA_BINARY_PACKED bit widths are truncated");
    }
    const uint8_t* widths = p;
    p += miniblocks;
    for (uint64_t m = 0; m < miniblocks && i < n_total; ++m) {
      int bw = widths[m];
      if (bw > static_cast<int>(sizeof(T) * 8)) {
        return Status::Corrupt("DELTA_BINARY_PACKED miniblock bit width {} exceeds {}", bw,
                               sizeof(T) * 8);
      }
      int64_t n = std::min(per_mb, n_total - i);
      int64_t need = (n * bw + 7) / 8;
      int64_t full = per_mb * bw / 8;
      if (end - p < need) return Status::Corrupt("DELTA_BINARY_PACKED miniblock is truncated");
      int64_t avail = std::min<int64_t>(full, end - p);
      for (int64_t j = 0; j < n; j += 64) {
        int64_t k = std::min<int64_t>(64, n - j);
        UnpackBits(p, avail, bw, j, k, deltas);
        for (int64_t q = 0; q < k; ++q) {
          prev = static_cast<U>(prev + min_delta + static_cast<U>(deltas[q]));
          o[i + j + q] = static_cast<T>(prev);
        }
      }
      i += n;
      p += avail;
    }
  }
  *consumed = p - data;
  return Status::OK();
}

template Status DecodeDeltaBinaryPacked<int32_t>(const uint8_t*, int64_t, int64_t,
                                                 std::vector<int32_t>*, int64_t*);
template Status DecodeDeltaBinaryPacked<int64_t>(const uint8_t*, int64_t, int64_t,
                                                 std::vector<int64_t>*, int64_t*);

Status DecodeByteStreamSplit(const uint8_t* data, int64_t size, int width, int64_t n,
                             uint8_t* out) {
  if (width <= 0 || size % width != 0) {
    return Status::Corrupt("BYTE_STREAM_SPLIT data of {} bytes is not a multiple of {}", size,
                           width);
  }
  int64_t stride = size / width;
  if (stride < n) {
    return Status::Corrupt("BYTE_STREAM_SPLIT data holds {} values, {} expected", stride, n);
  }
  for (int k = 0; k < width; ++k) {
    const uint8_t* s = data + k * stride;
    for (int64_t i = 0; i < n; ++i) out[i * width + k] = s[i];
  }
  return Status::OK();
}

Status DecodePlainByteArrays(const uint8_t* data, int64_t size, int64_t n, ByteView* out) {
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  for (int64_t i = 0; i < n; ++i) {
    if (end - p < 4) {
      return Status::Corrupt("PLAIN byte array {} of {} is truncated at value byte {}", i, n,
                             p - data);
    }
    uint32_t len;
    std::memcpy(&len, p, 4);
    p += 4;
    if (static_cast<uint64_t>(end - p) < len) {
      return Status::Corrupt("PLAIN byte array {} claims {} bytes, {} remain", i, len, end - p);
    }
    out[i] = ByteView{p, static_cast<int64_t>(len)};
    p += len;
  }
  return Status::OK();
}

Status DecodeDeltaLengthByteArrays(const uint8_t* data, int64_t size, int64_t n, ByteView* out) {
  std::vector<int32_t> lengths;
  int64_t used = 0;
  FLOE_RETURN_NOT_OK(DecodeDeltaBinaryPacked<int32_t>(data, size, n, &lengths, &used));
  if (static_cast<int64_t>(lengths.size()) != n) {
    return Status::Corrupt("DELTA_LENGTH_BYTE_ARRAY has {} lengths, {} values expected",
                           lengths.size(), n);
  }
  const uint8_t* p = data + used;
  int64_t left = size - used;
  for (int64_t i = 0; i < n; ++i) {
    int32_t len = lengths[static_cast<size_t>(i)];
    if (len < 0 || len > left) {
      return Status::Corrupt("DELTA_LENGTH_BYTE_ARRAY value {} claims {} bytes, {} remain", i, len,
                             left);
    }
    out[i] = ByteView{p, len};
    p += len;
    left -= len;
  }
  return Status::OK();
}

Status DecodeDeltaByteArrays(const uint8_t* data, int64_t size, int64_t n,
                             std::vector<uint8_t>* storage, ByteView* out) {
  std::vector<int32_t> prefixes;
  int64_t used = 0;
  FLOE_RETURN_NOT_OK(DecodeDeltaBinaryPacked<int32_t>(data, size, n, &prefixes, &used));
  if (static_cast<int64_t>(prefixes.size()) != n) {
    return Status::Corrupt("DELTA_BYTE_ARRAY has {} prefix lengths, {} values expected",
                           prefixes.size(), n);
  }
  std::vector<ByteView> suffixes(static_cast<size_t>(n));
  FLOE_RETURN_NOT_OK(DecodeDeltaLengthByteArrays(data + used, size - used, n, suffixes.data()));
  // Sizes first, so that a lying prefix cannot make the rebuilt values huge.
  constexpr int64_t kMaxRebuilt = int64_t{1} << 30;
  int64_t total = 0;
  int64_t prev_len = 0;
  for (int64_t i = 0; i < n; ++i) {
    int32_t prefix = prefixes[static_cast<size_t>(i)];
    if (prefix < 0 || prefix > prev_len) {
      return Status::Corrupt("DELTA_BYTE_ARRAY value {} has prefix length {}, previous is {}", i,
                             prefix, prev_len);
    }
    prev_len = prefix + suffixes[static_cast<size_t>(i)].size;
    total += prev_len;
    if (total > kMaxRebuilt) {
      return Status::Corrupt("DELTA_BYTE_ARRAY values rebuild to more than {} bytes", kMaxRebuilt);
    }
  }
  storage->resize(static_cast<size_t>(total));
  uint8_t* w = storage->data();
  const uint8_t* prev = w;
  for (int64_t i = 0; i < n; ++i) {
    int32_t prefix = prefixes[static_cast<size_t>(i)];
    const ByteView& s = suffixes[static_cast<size_t>(i)];
    if (prefix > 0) std::memmove(w, prev, static_cast<size_t>(prefix));
    if (s.size > 0) std::memcpy(w + prefix, s.data, static_cast<size_t>(s.size));
    out[i] = ByteView{w, prefix + s.size};
    prev = w;
    w += prefix + s.size;
  }
  return Status::OK();
}

Status CheckLevels(const int16_t* levels, int64_t n, int16_t max_level, int64_t* num_max) {
  int64_t count = 0;
  int16_t seen_max = 0;
  for (int64_t i = 0; i < n; ++i) {
    count += levels[i] == max_level;
    seen_max = std::max(seen_max, levels[i]);
  }
  if (seen_max > max_level) {
    return Status::Corrupt("level {} exceeds the column's maximum {}", seen_max, max_level);
  }
  *num_max = count;
  return Status::OK();
}

}  // namespace floe::parquet::internal
