// Row hashing: a full-avalanche 64-bit hash per value, combined across columns.

#include "floe/expr/hash.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "floe/batch/value_key.h"
#include "floe/common/numeric.h"
#include "floe/type/type_visit.h"

namespace floe::expr {

namespace {

constexpr uint64_t kNullHash = 0x5bd1e9955bd1e995ULL;
constexpr uint64_t kMul1 = 0x9e3779b97f4a7c15ULL;
constexpr uint64_t kMul2 = 0xc2b2ae3d27d4eb4fULL;
constexpr uint64_t kMul3 = 0x165667b19e3779f9ULL;

inline uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// The 64-bit finalizer of MurmurHash3 (every input bit affects every output bit).
inline uint64_t Mix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

inline uint64_t HashInt(uint64_t v) { return Mix64(v + kMul1); }

inline uint64_t HashBytes(const uint8_t* p, size_t n) {
  uint64_t h = kMul3 ^ (static_cast<uint64_t>(n) * kMul1);
  while (n >= 16) {
    uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    h = Rotl(h ^ (a * kMul2), 29) * kMul1;
    h = Rotl(h ^ (b * kMul2), 31) * kMul3;
    p += 16;
    n -= 16;
  }
  if (n >= 8) {
    uint64_t a;
    std::memcpy(&a, p, 8);
    h = Rotl(h ^ (a * kMul2), 29) * kMul1;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t a = 0;
    std::memcpy(&a, p, n);
    h = Rotl(h ^ (a * kMul2), 31) * kMul3;
  }
  return Mix64(h);
}

inline uint64_t HashDouble(double d) {
  if (d == 0.0) d = 0.0;  // -0.0 hashes as 0.0
  if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  return HashInt(bits);
}

// Combines a column's value hash into a row's running hash.
inline uint64_t Combine(uint64_t h, uint64_t v) { return Mix64((h * kMul2) ^ v); }

// Writes (first) or combines (!first) the hash of every value of `a` into out[0..n).
Status HashColumn(const Array& a, bool first, uint64_t* out);

template <typename F>
void Apply(const Array& a, bool first, uint64_t* out, F&& value_hash) {
  const int64_t n = a.length();
  if (a.null_count() == 0) {
    if (first) {
      for (int64_t i = 0; i < n; ++i) out[i] = value_hash(i);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = Combine(out[i], value_hash(i));
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t v = a.IsNull(i) ? kNullHash : value_hash(i);
    out[i] = first ? v : Combine(out[i], v);
  }
}

Status HashColumn(const Array& a, bool first, uint64_t* out) {
  return VisitPhysicalType(a.type_id(), [&]<typename T>(TypeTag<T>) -> Status {
    if constexpr (std::is_same_v<T, bool>) {
      Apply(a, first, out, [&](int64_t i) { return HashInt(a.BoolValue(i) ? 1 : 0); });
    } else if constexpr (std::is_same_v<T, Int128>) {
      const uint8_t* base = a.buffer(1)->data() + a.offset() * 16;
      Apply(a, first, out, [&](int64_t i) {
        uint64_t lo, hi;
        std::memcpy(&lo, base + i * 16, 8);
        std::memcpy(&hi, base + i * 16 + 8, 8);
        return Mix64(HashInt(lo) ^ (hi * kMul3));
      });
    } else if constexpr (std::is_integral_v<T>) {
      const T* v = a.values<T>();
      Apply(a, first, out, [&](int64_t i) { return HashInt(static_cast<uint64_t>(v[i])); });
    } else if constexpr (std::is_floating_point_v<T>) {
      const T* v = a.values<T>();
      Apply(a, first, out, [&](int64_t i) { return HashDouble(static_cast<double>(v[i])); });
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      if (a.type()->is_binary_like()) {
        const int32_t* offs = a.value_offsets();
        const uint8_t* data = a.buffer(2) ? a.buffer(2)->data() : nullptr;
        Apply(a, first, out, [&](int64_t i) {
          return HashBytes(data + offs[i], static_cast<size_t>(offs[i + 1] - offs[i]));
        });
      } else if (HasValueKey(*a.type())) {
        // By value, as they compare: '1 mon' and '30 days', 1.5 and 1.50 hash alike.
        Apply(a, first, out, [&](int64_t i) {
          uint8_t key[kNumericBytes];
          const std::string_view v = a.BytesValue(i);
          StoreValueKey(*a.type(), v, key);
          return HashBytes(key, v.size());
        });
      } else {
        // Fixed and uuid: the type's width per value.
        const int w = a.type()->byte_width();
        const uint8_t* data = a.buffer(1)->data() + a.offset() * w;
        Apply(a, first, out,
              [&](int64_t i) { return HashBytes(data + i * w, static_cast<size_t>(w)); });
      }
    } else if (a.type_id() == TypeId::kStruct) {
      const int64_t n = a.length();
      std::vector<uint64_t> fields(static_cast<size_t>(n), kMul1);
      for (int f = 0; f < a.num_children(); ++f) {
        FLOE_RETURN_NOT_OK(HashColumn(*a.field(f), false, fields.data()));
      }
      Apply(a, first, out, [&](int64_t i) { return fields[static_cast<size_t>(i)]; });
    } else if (a.type_id() == TypeId::kList || a.type_id() == TypeId::kMap) {
      // Element hashes of the referenced child range, folded per row.
      const int64_t n = a.length();
      const int64_t begin = n > 0 ? a.ListBegin(0) : 0;
      const int64_t end = n > 0 ? a.ListEnd(n - 1) : 0;
      ArrayPtr child = a.child(0)->Slice(begin, end - begin);
      std::vector<uint64_t> elements(static_cast<size_t>(end - begin));
      if (end > begin) FLOE_RETURN_NOT_OK(HashColumn(*child, true, elements.data()));
      Apply(a, first, out, [&](int64_t i) {
        uint64_t h = HashInt(static_cast<uint64_t>(a.ListEnd(i) - a.ListBegin(i)));
        for (int64_t k = a.ListBegin(i); k < a.ListEnd(i); ++k) {
          h = Combine(h, elements[static_cast<size_t>(k - begin)]);
        }
        return h;
      });
    } else {
      return Status::NotSupported("hashing of {} values", a.type()->ToString());
    }
    return Status::OK();
  });
}

}  // namespace

Status HashRows(const std::vector<ArrayPtr>& columns, uint64_t* out) {
  if (columns.empty()) {
    return Status::Invalid("HashRows needs at least one column");
  }
  const int64_t n = columns[0]->length();
  for (const ArrayPtr& c : columns) {
    if (c->length() != n) {
      return Status::Invalid("HashRows: columns of {} and {} rows", n, c->length());
    }
  }
  // The first column's hashes overwrite `out`; the others mix into them.
  bool first = true;
  for (const ArrayPtr& c : columns) {
    FLOE_RETURN_NOT_OK(HashColumn(*c, first, out));
    first = false;
  }
  return Status::OK();
}

Status HashRows(const std::vector<ArrayPtr>& columns, std::vector<uint64_t>* out) {
  if (columns.empty()) {
    return Status::Invalid("HashRows needs at least one column");
  }
  out->resize(static_cast<size_t>(columns[0]->length()));
  return HashRows(columns, out->data());
}

Status PartitionRows(const std::vector<ArrayPtr>& columns, int n, PartitionedRows* out) {
  if (n < 1) return Status::Invalid("PartitionRows: {} partitions", n);
  FLOE_RETURN_NOT_OK(HashRows(columns, &out->hashes));
  const auto rows = static_cast<int64_t>(out->hashes.size());
  const uint64_t* hashes = out->hashes.data();
  out->partitions.resize(static_cast<size_t>(rows));
  uint32_t* partitions = out->partitions.data();
  const auto un = static_cast<uint64_t>(n);
  // The same value as hashes[r] % n, without a division when n is a power of two.
  if ((un & (un - 1)) == 0) {
    for (int64_t r = 0; r < rows; ++r) partitions[r] = static_cast<uint32_t>(hashes[r] & (un - 1));
  } else {
    for (int64_t r = 0; r < rows; ++r) partitions[r] = static_cast<uint32_t>(hashes[r] % un);
  }
  out->starts.assign(static_cast<size_t>(n) + 1, 0);
  int64_t* starts = out->starts.data();
  for (int64_t r = 0; r < rows; ++r) ++starts[partitions[r] + 1];
  for (int p = 0; p < n; ++p) starts[p + 1] += starts[p];
  out->rows.resize(static_cast<size_t>(rows));
  int64_t* grouped = out->rows.data();
  if (n == 1) {
    for (int64_t r = 0; r < rows; ++r) grouped[r] = r;
    return Status::OK();
  }
  // A counting sort: each partition's next free slot, advanced as rows are placed.
  std::vector<int64_t> next(starts, starts + n);
  for (int64_t r = 0; r < rows; ++r) grouped[next[partitions[r]]++] = r;
  return Status::OK();
}

}  // namespace floe::expr
