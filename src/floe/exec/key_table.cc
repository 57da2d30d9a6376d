#include "floe/exec/key_table.h"

#include "floe/batch/value_key.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "floe/batch/builder.h"
#include "floe/common/logging.h"
#include "floe/type/type_visit.h"

namespace floe::exec {

namespace {

// Byte equality of two keys of `len` bytes, inlined for the short keys that dominate.
inline bool KeyBytesEqual(const uint8_t* a, const uint8_t* b, uint32_t len) {
  if (len <= 16) {
    if (len >= 8) {
      uint64_t a0, b0, a1, b1;
      std::memcpy(&a0, a, 8);
      std::memcpy(&b0, b, 8);
      std::memcpy(&a1, a + len - 8, 8);
      std::memcpy(&b1, b + len - 8, 8);
      return a0 == b0 && a1 == b1;
    }
    for (uint32_t i = 0; i < len; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  return std::memcmp(a, b, len) == 0;
}

}  // namespace

int64_t KeyTable::memory_size() const {
  int64_t arena = 0;
  for (const auto& b : arena_blocks_) arena += b.memory_size();
  return arena +
         static_cast<int64_t>(static_cast<size_t>(slots_.memory_size()) +
                              key_ptr_.capacity() * sizeof(const uint8_t*) +
                              hashes_.capacity() * 8) +
         packed_.memory_size() + packed_nulls_.memory_size() +
         static_cast<int64_t>(scratch_.words.capacity() * 8 + scratch_.hashes.capacity() * 8 +
                              scratch_.null_masks.capacity() * 4) +
         scratch_.keys.memory_size();
}

namespace {

// Width in bytes of a key type that packs into words, or 0: fixed-width values up to 16
// bytes (booleans as one byte).
int PackedWidth(const DataType& type) {
  // Intervals and numerics are keyed by their value (EncodeRowKeys), not by their bytes.
  if (HasValueKey(type)) return 0;
  if (type.id() == TypeId::kFixed || type.id() == TypeId::kUuid) {
    return type.byte_width() > 0 && type.byte_width() <= 16 ? type.byte_width() : 0;
  }
  return VisitPhysicalType(type.id(), []<typename T>(TypeTag<T>) {
    if constexpr (std::is_void_v<T> || std::is_same_v<T, std::string_view>) {
      return 0;
    } else {
      return static_cast<int>(sizeof(T));
    }
  });
}

constexpr uint64_t kPackedMulA = 0x9E3779B97F4A7C15ULL;
constexpr uint64_t kPackedMulB = 0xD6E8FEB86659FD93ULL;

// The slot of a packed key is the top bits of its hash (a multiplicative hash).
template <int W>
inline uint64_t PackedHash(const uint64_t* k) {
  uint64_t h = k[0];
  for (int i = 1; i < W; ++i) {
    h *= kPackedMulA;
    h ^= h >> 32;
    h ^= k[i];
  }
  return h * kPackedMulB;
}

uint64_t PackedHashOf(const uint64_t* k, int words) {
  switch (words) {
    case 1:
      return PackedHash<1>(k);
    case 2:
      return PackedHash<2>(k);
    default:
      return PackedHash<3>(k);
  }
}

template <int W>
inline bool PackedEqual(const uint64_t* a, const uint64_t* b) {
  bool eq = a[0] == b[0];
  for (int i = 1; i < W; ++i) eq &= a[i] == b[i];
  return eq;
}

// Canonical bits of a float key: -0.0 as 0.0 and every NaN as one NaN.
template <typename F, typename U>
inline U CanonicalFloatBits(F v) {
  if (v != v) return std::bit_cast<U>(std::numeric_limits<F>::quiet_NaN());
  if (v == 0) return 0;
  return std::bit_cast<U>(v);
}

}  // namespace

void KeyTable::PackedIndex::Allocate(int64_t capacity) {
  int64_t cap = 16;
  while (cap < capacity) cap *= 2;
  slots.Zero(cap * (words + 1));
  mask = static_cast<uint64_t>(cap - 1);
  shift = 64 - std::countr_zero(static_cast<uint64_t>(cap));
  grow_at = cap - cap / 4;  // a load of at most 3/4
  size = 0;
}

void KeyTable::PackedIndex::Grow() {
  Rehash(slots.empty() ? 16 : static_cast<int64_t>(mask + 1) * 2);
}

void KeyTable::PackedIndex::Rehash(int64_t capacity) {
  PoolBuffer<uint64_t> old = std::move(slots);
  const int64_t old_size = size;
  Allocate(capacity);
  size = old_size;
  const size_t stride = static_cast<size_t>(words + 1);
  for (size_t o = 0; o < static_cast<size_t>(old.size()); o += stride) {
    if (old[static_cast<int64_t>(o) + words] == 0) continue;
    uint64_t s = PackedHashOf(old.data() + o, words) >> shift;
    while (slots[static_cast<int64_t>(s * stride) + words] != 0) s = (s + 1) & mask;
    std::memcpy(slots.data() + s * stride, old.data() + o, stride * 8);
  }
}

namespace {

// Looks up (and with kInsert, inserts) packed key k of hash h; returns its id, or
// kNotFound. `next_id` is the id a new key gets (incremented on insert).
template <int W, bool kInsert>
inline uint32_t PackedProbe(uint64_t* slots, uint64_t mask, int shift, const uint64_t* k,
                            uint64_t h, int64_t* next_id, bool* inserted) {
  uint64_t s = h >> shift;
  while (true) {
    uint64_t* slot = slots + s * (W + 1);
    const uint64_t id1 = slot[W];
    if (id1 == 0) {
      if constexpr (kInsert) {
        for (int i = 0; i < W; ++i) slot[i] = k[i];
        const uint32_t id = static_cast<uint32_t>(*next_id);
        slot[W] = static_cast<uint64_t>(id) + 1;
        ++*next_id;
        *inserted = true;
        return id;
      } else {
        return KeyTable::kNotFound;
      }
    }
    if (PackedEqual<W>(slot, k)) return static_cast<uint32_t>(id1 - 1);
    s = (s + 1) & mask;
  }
}

}  // namespace

bool KeyTable::Packs(const std::vector<TypePtr>& key_types) {
  int bytes = 0;
  for (const TypePtr& t : key_types) {
    const int w = PackedWidth(*t);
    if (w == 0) return false;
    bytes += w;
  }
  return !key_types.empty() && bytes <= 16;
}

KeyTable::KeyTable(const std::vector<TypePtr>& key_types) : key_types_(key_types) {
  if (Packs(key_types)) {
    int offset = 0;
    for (const TypePtr& t : key_types) {
      const int w = PackedWidth(*t);
      packed_columns_.push_back({t->id(), w, offset});
      offset += w;
    }
    packed_words_ = (offset + 7) / 8;
    packed_.words = packed_words_;
    packed_nulls_.words = packed_words_ + 1;
  }
  Clear();
}

void KeyTable::Clear() {
  // A table of up to kKeptSlots slots keeps its memory (a partial aggregation that flushes
  // its groups refills it); a larger one is given back.
  constexpr int64_t kKeptSlots = int64_t{1} << 16;
  num_keys_ = 0;
  if (packed()) {
    const int64_t cap = packed_.slots.empty() ? 0 : static_cast<int64_t>(packed_.mask + 1);
    packed_.Allocate(cap > 256 && cap <= kKeptSlots ? cap : 256);
    packed_nulls_.slots.Reset();
    packed_nulls_.size = 0;
    packed_nulls_.grow_at = 0;
    return;
  }
  const int64_t cap = slots_.size();
  const int64_t keep = cap > 1024 && cap <= kKeptSlots ? cap : 1024;
  slots_.Assign(keep, Slot{0, kNotFound, 0});
  mask_ = static_cast<size_t>(keep - 1);
  arena_block_ = 0;
  arena_used_ = 0;
  key_ptr_.clear();
}

void KeyTable::Reserve(int64_t n) {
  if (packed()) {
    if (packed_.grow_at >= n) return;
    int64_t cap = packed_.mask + 1;
    while (cap - cap / 4 < n) cap *= 2;
    if (packed_.size == 0) {
      packed_.Allocate(cap);
    } else {
      packed_.Rehash(cap);
    }
    return;
  }
  size_t cap = static_cast<size_t>(slots_.size());
  while (static_cast<int64_t>(cap) < (n + 1) * 2) cap *= 2;
  if (cap != static_cast<size_t>(slots_.size())) Rehash(cap);
  key_ptr_.reserve(static_cast<size_t>(n));
}

void KeyTable::Hash(const RowKeys& keys, std::vector<uint64_t>* out) {
  const int64_t n = keys.num_rows();
  std::vector<uint64_t>& hashes_ = *out;
  hashes_.resize(static_cast<size_t>(n));
  const uint8_t* data = keys.data.data();
  for (int64_t r = 0; r < n; ++r) {
    hashes_[r] = HashKeyBytes(data + keys.offsets[r], keys.offsets[r + 1] - keys.offsets[r]);
  }
}

void KeyTable::Insert(const RowKeys& keys, uint32_t* ids, std::vector<int64_t>* new_rows,
                      const uint8_t* skip) {
  FLOE_DCHECK(!packed());
  Hash(keys, &hashes_);
  const int64_t n = keys.num_rows();
  const uint8_t* data = keys.data.data();
  for (int64_t r = 0; r < n; ++r) {
    if (skip != nullptr && skip[r]) {
      ids[r] = kNotFound;
      continue;
    }
    if ((num_keys_ + 1) * 2 > slots_.size()) Grow();
    const uint64_t h = hashes_[r];
    const uint8_t* k = data + keys.offsets[r];
    const uint32_t len = keys.offsets[r + 1] - keys.offsets[r];
    size_t s = h & mask_;
    while (true) {
      Slot& slot = slots_[static_cast<int64_t>(s)];
      if (slot.id == kNotFound) {
        uint32_t id = static_cast<uint32_t>(num_keys_++);
        slot = {h, id, len};
        uint8_t* stored = ArenaAllocate(len);
        if (len > 0) std::memcpy(stored, k, len);
        key_ptr_.push_back(stored);
        if (new_rows != nullptr) new_rows->push_back(r);
        ids[r] = id;
        break;
      }
      if (slot.hash == h && slot.len == len && KeyBytesEqual(key_ptr_[slot.id], k, len)) {
        ids[r] = slot.id;
        break;
      }
      s = (s + 1) & mask_;
    }
  }
}

uint8_t* KeyTable::ArenaAllocate(uint32_t len) {
  while (arena_block_ < arena_blocks_.size() &&
         arena_used_ + len > arena_blocks_[arena_block_].size()) {
    ++arena_block_;
    arena_used_ = 0;
  }
  if (arena_block_ == arena_blocks_.size()) {
    // Blocks of 64 KiB doubling up to 1 MiB (a longer key gets a block of its own size).
    const int64_t size = std::max<int64_t>(
        std::min<int64_t>(int64_t{1} << 20, (int64_t{64} << 10)
                                                << std::min<size_t>(arena_blocks_.size(), 4)),
        len);
    PoolBuffer<uint8_t> block;
    block.Resize(size);
    arena_blocks_.push_back(std::move(block));
    arena_used_ = 0;
  }
  uint8_t* p = arena_blocks_[arena_block_].data() + arena_used_;
  arena_used_ += len;
  return p;
}

void KeyTable::Find(const RowKeys& keys, uint32_t* ids, const uint8_t* skip,
                    std::vector<uint64_t>* scratch) const {
  FLOE_DCHECK(!packed());
  Hash(keys, scratch);
  const std::vector<uint64_t>& hashes_ = *scratch;
  const int64_t n = keys.num_rows();
  const uint8_t* data = keys.data.data();
  for (int64_t r = 0; r < n; ++r) {
    ids[r] = kNotFound;
    if (skip != nullptr && skip[r]) continue;
    const uint64_t h = hashes_[r];
    const uint8_t* k = data + keys.offsets[r];
    const uint32_t len = keys.offsets[r + 1] - keys.offsets[r];
    size_t s = h & mask_;
    while (true) {
      const Slot& slot = slots_[static_cast<int64_t>(s)];
      if (slot.id == kNotFound) break;
      if (slot.hash == h && slot.len == len && KeyBytesEqual(key_ptr_[slot.id], k, len)) {
        ids[r] = slot.id;
        break;
      }
      s = (s + 1) & mask_;
    }
  }
}

void KeyTable::Grow() { Rehash(static_cast<size_t>(slots_.size()) * 2); }

void KeyTable::Rehash(size_t capacity) {
  PoolBuffer<Slot> old = std::move(slots_);
  slots_.Assign(static_cast<int64_t>(capacity), Slot{0, kNotFound, 0});
  mask_ = capacity - 1;
  for (int64_t i = 0; i < old.size(); ++i) {
    const Slot& o = old[i];
    if (o.id == kNotFound) continue;
    size_t s = o.hash & mask_;
    while (slots_[static_cast<int64_t>(s)].id != kNotFound) s = (s + 1) & mask_;
    slots_[static_cast<int64_t>(s)] = o;
  }
}

Status KeyTable::CheckColumns(const std::vector<ArrayPtr>& columns) const {
  if (columns.size() != key_types_.size()) {
    return Status::Invalid("key table of {} key columns given {} columns", key_types_.size(),
                           columns.size());
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    const DataType& t = *columns[c]->type();
    if (t.id() != key_types_[c]->id() || t.byte_width() != key_types_[c]->byte_width() ||
        columns[c]->length() != columns[0]->length()) {
      return Status::Invalid("key column {} is {} of {} rows, the key table expects {}", c,
                             t.ToString(), columns[c]->length(), key_types_[c]->ToString());
    }
  }
  return Status::OK();
}

const uint64_t* KeyTable::Pack(const std::vector<ArrayPtr>& columns, Scratch* scratch,
                               bool* any_null) const {
  const int64_t n = columns[0]->length();
  const int w_count = packed_words_;
  *any_null = false;
  for (const ArrayPtr& c : columns) {
    if (c->null_count() != 0) *any_null = true;
  }
  if (*any_null) {
    scratch->null_masks.assign(static_cast<size_t>(n), 0);
    for (size_t c = 0; c < columns.size(); ++c) {
      const Array& a = *columns[c];
      if (a.null_count() == 0) continue;
      const uint32_t bit = uint32_t{1} << c;
      for (int64_t r = 0; r < n; ++r) {
        if (a.IsNull(r)) scratch->null_masks[r] |= bit;
      }
    }
  }
  // One 8-byte integer column: its values are the packed keys (NULL rows hold
  // arbitrary values, which the NULL path ignores).
  if (columns.size() == 1 && packed_columns_[0].width == 8 &&
      packed_columns_[0].type != TypeId::kFloat64) {
    return columns[0]->values<uint64_t>();
  }
  scratch->words.assign(static_cast<size_t>(n * w_count), 0);
  uint64_t* words = scratch->words.data();
  for (size_t c = 0; c < columns.size(); ++c) {
    const Array& a = *columns[c];
    const PackedColumn& pc = packed_columns_[c];
    auto put = [&](int64_t r, const void* v, size_t width) {
      std::memcpy(reinterpret_cast<uint8_t*>(words + r * w_count) + pc.offset, v, width);
    };
    VisitPhysicalType(pc.type, [&]<typename T>(TypeTag<T>) {
      if constexpr (std::is_same_v<T, bool>) {
        for (int64_t r = 0; r < n; ++r) {
          const uint8_t v = a.BoolValue(r) ? 1 : 0;
          put(r, &v, 1);
        }
      } else if constexpr (std::is_floating_point_v<T>) {
        using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
        const T* v = a.values<T>();
        for (int64_t r = 0; r < n; ++r) {
          const Bits b = CanonicalFloatBits<T, Bits>(v[r]);
          put(r, &b, sizeof(b));
        }
      } else {
        const uint8_t* base = a.buffer(1)->data() + a.offset() * pc.width;
        switch (pc.width) {
          case 1:
            for (int64_t r = 0; r < n; ++r) put(r, base + r, 1);
            break;
          case 2:
            for (int64_t r = 0; r < n; ++r) put(r, base + r * 2, 2);
            break;
          case 4:
            for (int64_t r = 0; r < n; ++r) put(r, base + r * 4, 4);
            break;
          case 8:
            for (int64_t r = 0; r < n; ++r) put(r, base + r * 8, 8);
            break;
          case 16:
            for (int64_t r = 0; r < n; ++r) put(r, base + r * 16, 16);
            break;
          default:
            for (int64_t r = 0; r < n; ++r) {
              put(r, base + r * pc.width, static_cast<size_t>(pc.width));
            }
            break;
        }
      }
    });
  }
  return words;
}

namespace {

// The key of a row with NULLs: its NULL mask, then its words with the NULL columns'
// bytes zeroed.
template <int W>
inline void NullKey(const uint64_t* k, uint32_t mask, const int* offsets, const int* widths,
                    uint64_t* out) {
  out[0] = mask;
  for (int i = 0; i < W; ++i) out[1 + i] = k[i];
  uint8_t* bytes = reinterpret_cast<uint8_t*>(out + 1);
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    const int c = std::countr_zero(m);
    std::memset(bytes + offsets[c], 0, static_cast<size_t>(widths[c]));
  }
}

}  // namespace

template <int W>
void KeyTable::InsertPacked(const uint64_t* keys, int64_t n, const uint32_t* null_masks,
                            uint32_t* ids, std::vector<int64_t>* new_rows, const uint8_t* skip) {
  int offsets[16], widths[16];
  for (size_t c = 0; c < packed_columns_.size(); ++c) {
    offsets[c] = packed_columns_[c].offset;
    widths[c] = packed_columns_[c].width;
  }
  for (int64_t r = 0; r < n; ++r) {
    if (skip != nullptr && skip[r]) {
      ids[r] = kNotFound;
      continue;
    }
    const uint64_t* k = keys + r * W;
    bool inserted = false;
    if (null_masks != nullptr && null_masks[r] != 0) {
      uint64_t nk[W + 1];
      NullKey<W>(k, null_masks[r], offsets, widths, nk);
      if (packed_nulls_.size >= packed_nulls_.grow_at) packed_nulls_.Grow();
      ids[r] = PackedProbe<W + 1, true>(packed_nulls_.slots.data(), packed_nulls_.mask,
                                        packed_nulls_.shift, nk, PackedHash<W + 1>(nk), &num_keys_,
                                        &inserted);
      if (inserted) ++packed_nulls_.size;
    } else {
      if (packed_.size >= packed_.grow_at) packed_.Grow();
      ids[r] = PackedProbe<W, true>(packed_.slots.data(), packed_.mask, packed_.shift, k,
                                    PackedHash<W>(k), &num_keys_, &inserted);
      if (inserted) ++packed_.size;
    }
    if (inserted && new_rows != nullptr) new_rows->push_back(r);
  }
}

template <int W>
void KeyTable::FindPacked(const uint64_t* keys, int64_t n, const uint32_t* null_masks,
                          uint32_t* ids, const uint8_t* skip, Scratch* scratch) const {
  // Hashes first, then probes with the slots of rows a little ahead prefetched.
  scratch->hashes.resize(static_cast<size_t>(n));
  uint64_t* hashes = scratch->hashes.data();
  for (int64_t r = 0; r < n; ++r) hashes[r] = PackedHash<W>(keys + r * W);
  const uint64_t* slots = packed_.slots.data();
  const uint64_t mask = packed_.mask;
  const int shift = packed_.shift;
  constexpr int64_t kAhead = 16;
  const bool prefetch = packed_.slots.memory_size() > (256 << 10);
  int64_t dummy = 0;
  bool inserted = false;
  for (int64_t r = 0; r < n; ++r) {
    if (prefetch && r + kAhead < n) {
      __builtin_prefetch(slots + (hashes[r + kAhead] >> shift) * (W + 1));
    }
    if (skip != nullptr && skip[r]) {
      ids[r] = kNotFound;
      continue;
    }
    if (null_masks != nullptr && null_masks[r] != 0) {
      ids[r] = FindNullKey<W>(keys + r * W, null_masks[r]);
      continue;
    }
    ids[r] = PackedProbe<W, false>(const_cast<uint64_t*>(slots), mask, shift, keys + r * W,
                                   hashes[r], &dummy, &inserted);
  }
}

template <int W>
uint32_t KeyTable::FindNullKey(const uint64_t* k, uint32_t mask) const {
  if (packed_nulls_.size == 0) return kNotFound;
  int offsets[16], widths[16];
  for (size_t c = 0; c < packed_columns_.size(); ++c) {
    offsets[c] = packed_columns_[c].offset;
    widths[c] = packed_columns_[c].width;
  }
  uint64_t nk[W + 1];
  NullKey<W>(k, mask, offsets, widths, nk);
  int64_t dummy = 0;
  bool inserted = false;
  return PackedProbe<W + 1, false>(const_cast<uint64_t*>(packed_nulls_.slots.data()),
                                   packed_nulls_.mask, packed_nulls_.shift, nk,
                                   PackedHash<W + 1>(nk), &dummy, &inserted);
}

Status KeyTable::Insert(const std::vector<ArrayPtr>& columns, uint32_t* ids,
                        std::vector<int64_t>* new_rows, const uint8_t* skip) {
  FLOE_RETURN_NOT_OK(CheckColumns(columns));
  if (!packed()) {
    FLOE_RETURN_NOT_OK(EncodeRowKeys(
        columns, std::vector<SortOptions>(columns.size(), SortOptions{}), &scratch_.keys));
    if (new_rows != nullptr) {
      Insert(scratch_.keys, ids, new_rows, skip);
    } else {
      std::vector<int64_t> ignored;
      Insert(scratch_.keys, ids, &ignored, skip);
    }
    return Status::OK();
  }
  const int64_t n = columns.empty() ? 0 : columns[0]->length();
  bool any_null = false;
  const uint64_t* keys = Pack(columns, &scratch_, &any_null);
  const uint32_t* masks = any_null ? scratch_.null_masks.data() : nullptr;
  if (packed_words_ == 1) {
    InsertPacked<1>(keys, n, masks, ids, new_rows, skip);
  } else {
    InsertPacked<2>(keys, n, masks, ids, new_rows, skip);
  }
  return Status::OK();
}

Status KeyTable::Find(const std::vector<ArrayPtr>& columns, uint32_t* ids, const uint8_t* skip,
                      Scratch* scratch) const {
  FLOE_RETURN_NOT_OK(CheckColumns(columns));
  if (!packed()) {
    FLOE_RETURN_NOT_OK(EncodeRowKeys(
        columns, std::vector<SortOptions>(columns.size(), SortOptions{}), &scratch->keys));
    Find(scratch->keys, ids, skip, &scratch->hashes);
    return Status::OK();
  }
  const int64_t n = columns.empty() ? 0 : columns[0]->length();
  bool any_null = false;
  const uint64_t* keys = Pack(columns, scratch, &any_null);
  const uint32_t* masks = any_null ? scratch->null_masks.data() : nullptr;
  if (packed_words_ == 1) {
    FindPacked<1>(keys, n, masks, ids, skip, scratch);
  } else {
    FindPacked<2>(keys, n, masks, ids, skip, scratch);
  }
  return Status::OK();
}

}  // namespace floe::exec
