#include "floe/exec/sort/row_keys.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "floe/batch/builder.h"
#include "floe/batch/value_key.h"
#include "floe/common/logging.h"
#include "floe/common/numeric.h"
#include "floe/common/pool_buffer.h"
#include "floe/type/type_visit.h"

namespace floe::exec {

namespace {

constexpr uint8_t kNullFirst = 0x00;
constexpr uint8_t kValid = 0x01;
constexpr uint8_t kNullLast = 0x02;

template <typename U>
inline void StoreBigEndian(U v, uint8_t* out) {
  if constexpr (sizeof(U) == 1) {
    out[0] = static_cast<uint8_t>(v);
  } else if constexpr (sizeof(U) == 2) {
    uint16_t b = __builtin_bswap16(static_cast<uint16_t>(v));
    std::memcpy(out, &b, 2);
  } else if constexpr (sizeof(U) == 4) {
    uint32_t b = __builtin_bswap32(static_cast<uint32_t>(v));
    std::memcpy(out, &b, 4);
  } else {
    uint64_t b = __builtin_bswap64(static_cast<uint64_t>(v));
    std::memcpy(out, &b, 8);
  }
}

constexpr uint64_t kSign64 = uint64_t{1} << 63;

// Order-preserving unsigned images of the value types.
template <typename T>
inline auto OrderedBits(T v) {
  if constexpr (std::is_same_v<T, float>) {
    if (v != v) return static_cast<uint32_t>(0xFFC00000u);  // NaN: above +inf
    if (v == 0) v = 0;                                      // -0.0 -> 0.0
    uint32_t b = std::bit_cast<uint32_t>(v);
    return (b & 0x80000000u) ? static_cast<uint32_t>(~b) : static_cast<uint32_t>(b | 0x80000000u);
  } else if constexpr (std::is_same_v<T, double>) {
    if (v != v) return static_cast<uint64_t>(0xFFF8000000000000ull);
    if (v == 0) v = 0;
    uint64_t b = std::bit_cast<uint64_t>(v);
    return (b & kSign64) ? static_cast<uint64_t>(~b) : static_cast<uint64_t>(b | kSign64);
  } else {
    using U = std::make_unsigned_t<T>;
    return static_cast<U>(static_cast<U>(v) ^ (U{1} << (sizeof(T) * 8 - 1)));
  }
}

inline void InvertBytes(uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(~p[i]);
}

// Ascending encoding of one non-null value of any type (nested included) appended to out.
void AppendValue(const Array& a, int64_t i, std::string* out);

void AppendNullable(const Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) {
    out->push_back(static_cast<char>(kNullLast));
  } else {
    out->push_back(static_cast<char>(kValid));
    AppendValue(a, i, out);
  }
}

template <typename T>
void AppendFixed(T v, std::string* out) {
  auto bits = OrderedBits(v);
  uint8_t buf[sizeof(bits)];
  StoreBigEndian(bits, buf);
  out->append(reinterpret_cast<const char*>(buf), sizeof(bits));
}

void AppendEscaped(std::string_view s, std::string* out) {
  for (char c : s) {
    out->push_back(c);
    if (c == 0) out->push_back(static_cast<char>(0xFF));
  }
  out->push_back(0);
  out->push_back(0);
}

void AppendDecimal(Int128 v, std::string* out) {
  unsigned __int128 u =
      static_cast<unsigned __int128>(v) ^ (static_cast<unsigned __int128>(1) << 127);
  uint8_t buf[16];
  StoreBigEndian(static_cast<uint64_t>(u >> 64), buf);
  StoreBigEndian(static_cast<uint64_t>(u), buf + 8);
  out->append(reinterpret_cast<const char*>(buf), 16);
}

void AppendValue(const Array& a, int64_t i, std::string* out) {
  VisitPhysicalType(a.type_id(), [&]<typename T>(TypeTag<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      out->push_back(a.BoolValue(i) ? 1 : 0);
    } else if constexpr (std::is_same_v<T, Int128>) {
      AppendDecimal(a.DecimalValue(i), out);
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      // Strings and binary are escaped and terminated; fixed and uuid values all have the
      // type's width and go raw.
      std::string_view v = a.BytesValue(i);
      if (a.type()->is_binary_like()) {
        AppendEscaped(v, out);
      } else if (HasValueKey(*a.type())) {
        // Intervals by span, numerics by value (batch/value_key.h).
        uint8_t key[kNumericBytes];
        StoreValueKey(*a.type(), v, key);
        out->append(reinterpret_cast<const char*>(key), v.size());
      } else {
        out->append(v.data(), v.size());
      }
    } else if constexpr (std::is_void_v<T>) {
      if (a.type_id() == TypeId::kStruct) {
        for (int f = 0; f < a.num_children(); ++f) {
          AppendNullable(*a.field(f), i, out);
        }
        return;
      }
      // A list or map: each element behind a 1, then a 0.
      const Array& child = *a.child(0);
      for (int64_t e = a.ListBegin(i); e < a.ListEnd(i); ++e) {
        out->push_back(1);
        AppendNullable(child, e, out);
      }
      out->push_back(0);
    } else {
      AppendFixed(a.Value<T>(i), out);
    }
  });
}

// Column-wise encoders of flat types: add sizes, then write at per-row cursors.
template <typename T>
void WriteFixedColumn(const Array& a, const SortOptions& opt, uint8_t* data,
                      PoolVector<uint32_t>& pos) {
  const int64_t n = a.length();
  const T* values = a.values<T>();
  const uint8_t null_marker = opt.nulls_first ? kNullFirst : kNullLast;
  constexpr size_t w = sizeof(OrderedBits(T{}));
  for (int64_t r = 0; r < n; ++r) {
    uint8_t* p = data + pos[r];
    if (a.IsNull(r)) {
      *p = null_marker;
      pos[r] += 1;
      continue;
    }
    *p = kValid;
    StoreBigEndian(OrderedBits(values[r]), p + 1);
    if (opt.descending) InvertBytes(p + 1, w);
    pos[r] += 1 + w;
  }
}

// The same for booleans (one byte), decimals (16 bytes, sign bit flipped) and fixed-width
// bytes (fixed, uuid: raw).
template <typename T>
void WriteWideColumn(const Array& a, const SortOptions& opt, int64_t n, uint8_t* data,
                     PoolVector<uint32_t>& pos) {
  const uint8_t null_marker = opt.nulls_first ? kNullFirst : kNullLast;
  const int64_t w = std::is_same_v<T, bool> ? 1 : a.type()->byte_width();
  const uint8_t* base = a.buffer(1)->data();
  const bool value_key = HasValueKey(*a.type());
  for (int64_t r = 0; r < n; ++r) {
    uint8_t* p = data + pos[r];
    if (a.IsNull(r)) {
      *p = null_marker;
      pos[r] += 1;
      continue;
    }
    *p = kValid;
    if constexpr (std::is_same_v<T, Int128>) {
      Int128 v;
      std::memcpy(&v, base + (a.offset() + r) * 16, 16);
      unsigned __int128 u =
          static_cast<unsigned __int128>(v) ^ (static_cast<unsigned __int128>(1) << 127);
      StoreBigEndian(static_cast<uint64_t>(u >> 64), p + 1);
      StoreBigEndian(static_cast<uint64_t>(u), p + 9);
    } else if constexpr (std::is_same_v<T, bool>) {
      p[1] = a.BoolValue(r) ? 1 : 0;
    } else if (value_key) {
      StoreValueKey(*a.type(), a.BytesValue(r), p + 1);
    } else {
      std::memcpy(p + 1, base + (a.offset() + r) * w, static_cast<size_t>(w));
    }
    if (opt.descending) InvertBytes(p + 1, static_cast<size_t>(w));
    pos[r] += static_cast<uint32_t>(1 + w);
  }
}

// Strings and binary: each zero byte followed by 0xFF, then the terminator 0 0.
void WriteEscapedColumn(const Array& a, const SortOptions& opt, int64_t n, uint8_t* data,
                        PoolVector<uint32_t>& pos) {
  const uint8_t null_marker = opt.nulls_first ? kNullFirst : kNullLast;
  for (int64_t r = 0; r < n; ++r) {
    uint8_t* p = data + pos[r];
    if (a.IsNull(r)) {
      *p = null_marker;
      pos[r] += 1;
      continue;
    }
    uint8_t* start = p;
    *p++ = kValid;
    std::string_view v = a.BytesValue(r);
    for (char ch : v) {
      *p++ = static_cast<uint8_t>(ch);
      if (ch == 0) *p++ = 0xFF;
    }
    *p++ = 0;
    *p++ = 0;
    if (opt.descending) InvertBytes(start + 1, static_cast<size_t>(p - start - 1));
    pos[r] += static_cast<uint32_t>(p - start);
  }
}

// Adds the encoded size of every row of a column of `w`-byte values.
void AddFixedSizes(const Array& a, uint64_t w, int64_t n, PoolVector<uint64_t>& sizes) {
  if (a.null_count() == 0) {
    for (int64_t r = 0; r < n; ++r) sizes[r] += 1 + w;
  } else {
    for (int64_t r = 0; r < n; ++r) sizes[r] += a.IsNull(r) ? 1 : 1 + w;
  }
}

// Adds the encoded size of every row of a string or binary column (WriteEscapedColumn).
void AddEscapedSizes(const Array& a, int64_t n, PoolVector<uint64_t>& sizes) {
  for (int64_t r = 0; r < n; ++r) {
    if (a.IsNull(r)) {
      sizes[r] += 1;
      continue;
    }
    std::string_view v = a.BytesValue(r);
    uint64_t zeros = 0;
    const char* p = v.data();
    const char* end = p + v.size();
    while ((p = static_cast<const char*>(std::memchr(p, 0, static_cast<size_t>(end - p)))) !=
           nullptr) {
      ++zeros;
      ++p;
    }
    sizes[r] += 1 + v.size() + zeros + 2;
  }
}

// Encodes a nested column value by value into `strs` and adds their sizes.
void EncodeNestedColumn(const Array& a, const SortOptions& opt, int64_t n,
                        std::vector<std::string>& strs, PoolVector<uint64_t>& sizes) {
  strs.resize(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    std::string& s = strs[r];
    if (a.IsNull(r)) {
      s.push_back(static_cast<char>(opt.nulls_first ? kNullFirst : kNullLast));
    } else {
      s.push_back(static_cast<char>(kValid));
      AppendValue(a, r, &s);
      if (opt.descending) {
        InvertBytes(reinterpret_cast<uint8_t*>(s.data()) + 1, s.size() - 1);
      }
    }
    sizes[r] += s.size();
  }
}

inline uint64_t Mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

uint64_t HashKeyBytes(const uint8_t* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0x100000001B3ULL;
    h = (h << 29) | (h >> 35);
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x100000001B3ULL;
  }
  return Mix64(h);
}

uint64_t RowKeys::Prefix(int64_t i) const {
  uint32_t len = offsets[i + 1] - offsets[i];
  uint64_t v = 0;
  if (len >= 8) {
    std::memcpy(&v, data.data() + offsets[i], 8);
  } else {
    std::memcpy(&v, data.data() + offsets[i], len);
  }
  return __builtin_bswap64(v);
}

Status EncodeRowKeys(const std::vector<ArrayPtr>& columns, const std::vector<SortOptions>& options,
                     RowKeys* out) {
  const int64_t n = columns.empty() ? 0 : columns[0]->length();
  PoolVector<uint64_t> sizes(static_cast<size_t>(n), 0);
  // Nested columns are encoded value by value into strings first.
  std::vector<std::vector<std::string>> generic(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    const Array& a = *columns[c];
    VisitPhysicalType(a.type_id(), [&]<typename T>(TypeTag<T>) {
      if constexpr (std::is_void_v<T>) {
        EncodeNestedColumn(a, options[c], n, generic[c], sizes);
      } else if (std::is_same_v<T, std::string_view> && a.type()->is_binary_like()) {
        AddEscapedSizes(a, n, sizes);
      } else {
        // A boolean takes one byte, any other value its type's width.
        const int w = std::is_same_v<T, bool> ? 1 : a.type()->byte_width();
        AddFixedSizes(a, static_cast<uint64_t>(w), n, sizes);
      }
    });
  }
  out->offsets.resize(static_cast<size_t>(n) + 1);
  uint64_t total = 0;
  for (int64_t r = 0; r < n; ++r) {
    out->offsets[r] = static_cast<uint32_t>(total);
    total += sizes[r];
  }
  if (total > UINT32_MAX) {
    return Status::Invalid("sort keys of one batch exceed 4 GiB ({} bytes)", total);
  }
  out->offsets[n] = static_cast<uint32_t>(total);
  out->data.resize(total);
  PoolVector<uint32_t> pos(out->offsets.begin(), out->offsets.end() - 1);
  uint8_t* data = out->data.data();
  for (size_t c = 0; c < columns.size(); ++c) {
    const Array& a = *columns[c];
    const SortOptions& opt = options[c];
    VisitPhysicalType(a.type_id(), [&]<typename T>(TypeTag<T>) {
      if constexpr (std::is_void_v<T>) {
        for (int64_t r = 0; r < n; ++r) {
          const std::string& s = generic[c][r];
          std::memcpy(data + pos[r], s.data(), s.size());
          pos[r] += static_cast<uint32_t>(s.size());
        }
      } else if constexpr (std::is_same_v<T, std::string_view>) {
        if (a.type()->is_binary_like()) {
          WriteEscapedColumn(a, opt, n, data, pos);
        } else {
          WriteWideColumn<T>(a, opt, n, data, pos);
        }
      } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Int128>) {
        WriteWideColumn<T>(a, opt, n, data, pos);
      } else {
        WriteFixedColumn<T>(a, opt, data, pos);
      }
    });
  }
  return Status::OK();
}

std::vector<SortOptions> SortOptionsOf(const Ordering& ordering) {
  std::vector<SortOptions> out;
  out.reserve(ordering.size());
  for (const auto& k : ordering) out.push_back({k.descending, k.nulls_first});
  return out;
}

Result<std::vector<ArrayPtr>> EvaluateExprs(const std::vector<expr::PhysicalExprPtr>& exprs,
                                            const RecordBatch& batch) {
  std::vector<ArrayPtr> out;
  out.reserve(exprs.size());
  expr::EvalContext ctx;
  for (const auto& e : exprs) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, expr::EvaluateToArray(*e, batch, ctx));
    out.push_back(std::move(a));
  }
  return out;
}

Result<std::vector<ArrayPtr>> EvaluateKeys(const Ordering& ordering, const RecordBatch& batch) {
  std::vector<expr::PhysicalExprPtr> exprs;
  for (const auto& k : ordering) exprs.push_back(k.expr);
  return EvaluateExprs(exprs, batch);
}

PoolVector<int64_t> SortIndices(const RowKeys& keys) {
  const int64_t n = keys.num_rows();
  struct Entry {
    uint64_t p0, p1;
    uint32_t len;
    uint32_t row;
  };
  PoolBuffer<Entry> entries;
  entries.Resize(n);
  bool all_short = true;
  const uint8_t* data = keys.data.data();
  for (int64_t r = 0; r < n; ++r) {
    const uint32_t len = keys.offsets[r + 1] - keys.offsets[r];
    uint8_t buf[16] = {0};
    std::memcpy(buf, data + keys.offsets[r], len < 16 ? len : 16);
    uint64_t p0, p1;
    std::memcpy(&p0, buf, 8);
    std::memcpy(&p1, buf + 8, 8);
    entries[r] = {__builtin_bswap64(p0), __builtin_bswap64(p1), len, static_cast<uint32_t>(r)};
    all_short &= len <= 16;
  }
  if (all_short) {
    // Prefix-free keys of at most 16 bytes are equal exactly when their prefixes are.
    std::sort(entries.data(), entries.data() + n, [](const Entry& a, const Entry& b) {
      if (a.p0 != b.p0) return a.p0 < b.p0;
      if (a.p1 != b.p1) return a.p1 < b.p1;
      return a.row < b.row;
    });
  } else {
    std::sort(entries.data(), entries.data() + n, [&keys](const Entry& a, const Entry& b) {
      if (a.p0 != b.p0) return a.p0 < b.p0;
      if (a.p1 != b.p1) return a.p1 < b.p1;
      if (a.len > 16 || b.len > 16) {
        int c = CompareKeys(keys.Key(a.row), keys.Key(b.row));
        if (c != 0) return c < 0;
      }
      return a.row < b.row;
    });
  }
  PoolVector<int64_t> out(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) out[r] = entries[r].row;
  return out;
}

}  // namespace floe::exec
