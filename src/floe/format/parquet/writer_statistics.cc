// Column statistics of the writer: min/max in the sort orders of parquet.thrift (ColumnOrder).

#include <bit>
#include <cmath>
#include <cstring>

#include "floe/format/parquet/writer_internal.h"

namespace floe::parquet::internal {

int CompareBytes(SortOrder order, std::string_view a, std::string_view b) {
  if (order == SortOrder::kSignedBigEndian && !a.empty() && !b.empty()) {
    // Big-endian two's complement: the first byte carries the sign. Decimal values of one
    // column all have the column's width, so the rest compares bytewise.
    auto sa = static_cast<int8_t>(a[0]), sb = static_cast<int8_t>(b[0]);
    if (sa != sb) return sa < sb ? -1 : 1;
    a.remove_prefix(1);
    b.remove_prefix(1);
  }
  // std::char_traits<char>::compare orders as unsigned char.
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

void ColumnStats::UpdateInt(int64_t min, int64_t max) {
  if (!has_min_max_) {
    imin_ = min;
    imax_ = max;
    has_min_max_ = true;
    return;
  }
  if (min < imin_) imin_ = min;
  if (max > imax_) imax_ = max;
}

void ColumnStats::UpdateDouble(double min, double max) {
  if (!has_min_max_) {
    dmin_ = min;
    dmax_ = max;
    has_min_max_ = true;
    return;
  }
  if (min < dmin_) dmin_ = min;
  if (max > dmax_) dmax_ = max;
}

void ColumnStats::UpdateBytes(std::string_view min, std::string_view max) {
  if (!has_min_max_) {
    smin_.assign(min);
    smax_.assign(max);
    has_min_max_ = true;
    return;
  }
  if (CompareBytes(order_, min, smin_) < 0) smin_.assign(min);
  if (CompareBytes(order_, max, smax_) > 0) smax_.assign(max);
}

void ColumnStats::Merge(const ColumnStats& other) {
  null_count_ += other.null_count_;
  if (!other.has_min_max_) return;
  switch (order_) {
    case SortOrder::kBoolean:
    case SortOrder::kSigned:
      UpdateInt(other.imin_, other.imax_);
      break;
    case SortOrder::kFloat:
      UpdateDouble(other.dmin_, other.dmax_);
      break;
    case SortOrder::kUnsignedBytes:
    case SortOrder::kSignedBigEndian:
      UpdateBytes(other.smin_, other.smax_);
      break;
  }
}

int ColumnStats::CompareEncoded(std::string_view a, std::string_view b) const {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  switch (order_) {
    case SortOrder::kBoolean:
      return cmp(a.empty() ? 0 : a[0], b.empty() ? 0 : b[0]);
    case SortOrder::kSigned:
      if (a.size() == 4 && b.size() == 4) {
        int32_t x, y;
        std::memcpy(&x, a.data(), 4);
        std::memcpy(&y, b.data(), 4);
        return cmp(x, y);
      } else {
        int64_t x = 0, y = 0;
        std::memcpy(&x, a.data(), std::min<size_t>(8, a.size()));
        std::memcpy(&y, b.data(), std::min<size_t>(8, b.size()));
        return cmp(x, y);
      }
    case SortOrder::kFloat:
      if (a.size() == 4 && b.size() == 4) {
        float x, y;
        std::memcpy(&x, a.data(), 4);
        std::memcpy(&y, b.data(), 4);
        return cmp(x, y);
      } else {
        double x = 0, y = 0;
        std::memcpy(&x, a.data(), std::min<size_t>(8, a.size()));
        std::memcpy(&y, b.data(), std::min<size_t>(8, b.size()));
        return cmp(x, y);
      }
    case SortOrder::kUnsignedBytes:
    case SortOrder::kSignedBigEndian:
      return CompareBytes(order_, a, b);
  }
  return 0;
}

namespace {

template <typename T>
std::string LittleEndian(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));
  return s;
}

// The length of the longest prefix of `s` no longer than `n` that ends on a UTF-8 character
// boundary.
size_t Utf8Prefix(std::string_view s, size_t n) {
  if (n >= s.size()) return s.size();
  while (n > 0 && (static_cast<uint8_t>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

// A value >= every value that starts with the first `n` bytes of `s`: a prefix of at most `n`
// bytes whose last byte is incremented. For strings only ASCII bytes below 0x7F are
// incremented, so the result stays valid UTF-8. nullopt when no byte can be incremented.
std::optional<std::string> TruncateMax(std::string_view s, size_t n, bool is_string) {
  size_t len = is_string ? Utf8Prefix(s, n) : std::min(n, s.size());
  for (size_t i = len; i-- > 0;) {
    auto b = static_cast<uint8_t>(s[i]);
    if (is_string ? b < 0x7F : b < 0xFF) {
      std::string out(s.substr(0, i + 1));
      out[i] = static_cast<char>(b + 1);
      return out;
    }
  }
  return std::nullopt;
}

}  // namespace

ColumnStats::Bounds ColumnStats::Encode(Type physical_type, bool is_string,
                                        int32_t truncate_length) const {
  Bounds b;
  switch (physical_type) {
    case Type::kBoolean:
      b.min = std::string(1, static_cast<char>(imin_ != 0));
      b.max = std::string(1, static_cast<char>(imax_ != 0));
      break;
    case Type::kInt32:
      b.min = LittleEndian(static_cast<int32_t>(imin_));
      b.max = LittleEndian(static_cast<int32_t>(imax_));
      break;
    case Type::kInt64:
      b.min = LittleEndian(imin_);
      b.max = LittleEndian(imax_);
      break;
    case Type::kFloat:
    case Type::kDouble: {
      // parquet.thrift: a zero min is written as -0.0 and a zero max as +0.0, so that readers
      // that order -0.0 before +0.0 never skip a zero of the other sign.
      double lo = dmin_ == 0.0 ? -0.0 : dmin_;
      double hi = dmax_ == 0.0 ? 0.0 : dmax_;
      if (physical_type == Type::kFloat) {
        b.min = LittleEndian(static_cast<float>(lo));
        b.max = LittleEndian(static_cast<float>(hi));
      } else {
        b.min = LittleEndian(lo);
        b.max = LittleEndian(hi);
      }
      break;
    }
    default: {
      b.min = smin_;
      b.max = smax_;
      size_t limit = truncate_length > 0 ? static_cast<size_t>(truncate_length) : 0;
      // Decimals are never truncated: a prefix of a number is a different number.
      if (limit > 0 && order_ == SortOrder::kUnsignedBytes) {
        if (b.min.size() > limit) {
          b.min.resize(is_string ? Utf8Prefix(b.min, limit) : limit);
          b.min_exact = false;
        }
        if (b.max.size() > limit) {
          if (auto m = TruncateMax(b.max, limit, is_string)) {
            b.max = std::move(*m);
            b.max_exact = false;
          }
        }
      }
      break;
    }
  }
  return b;
}

}  // namespace floe::parquet::internal
