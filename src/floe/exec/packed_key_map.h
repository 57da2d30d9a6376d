#pragma once

// The grouping map of keys that pack into 64 bits, beside KeyTable (key_table.h), the
// general one it hands its groups to when a batch does not fit. Header-only: its loops are
// the hot path of GROUP BY and inline into the aggregation.

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/pool_buffer.h"
#include "floe/type/type.h"
#include "floe/type/type_visit.h"

namespace floe::exec {

// Group ids of keys that pack into 64 bits: up to 8 bytes of integers, dates, times,
// timestamps, decimals of precision <= 18 and short strings. Each row's key becomes one
// uint64 (column by column, a tight loop per column) and an open-addressing table maps it
// to its group id: no row encoding, no byte comparisons. Equal packed keys are exactly the
// rows GROUP BY puts together (NULLs equal NULLs). A batch holding a longer string than the
// layout allows does not fit; the caller then moves its groups to a KeyTable.
class PackedKeyMap {
 public:
  static constexpr uint32_t kEmpty = UINT32_MAX;

  /// A map for keys of these fields, or null when they do not pack into 64 bits.
  static std::unique_ptr<PackedKeyMap> Make(const std::vector<Field>& fields) {
    if (fields.empty()) return nullptr;
    std::vector<Part> parts;
    const bool single = fields.size() == 1;
    int fixed_bytes = 0;
    int strings = 0;
    for (const Field& f : fields) {
      Part p;
      const TypePtr& t = f.type();
      // Integers, dates, times and timestamps by value, decimals by their unscaled value,
      // strings and binary by their bytes; booleans, floats, fixed, uuid and nested types do
      // not pack.
      const bool packs = VisitPhysicalType(t->id(), [&]<typename T>(TypeTag<T>) {
        if constexpr (std::is_same_v<T, Int128>) {
          p.kind = Part::kDecimal;
          p.width = 8;
          return t->precision() <= 18;
        } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          p.kind = Part::kInt;
          p.width = t->byte_width();
          return true;
        } else if constexpr (std::is_same_v<T, std::string_view>) {
          p.kind = Part::kString;
          return t->is_binary_like();
        } else {
          return false;
        }
      });
      if (!packs) return nullptr;
      if (p.kind == Part::kString) {
        ++strings;
      } else {
        // One key column keeps its NULL group outside the table; several mark NULL in a
        // byte of their own.
        p.null_byte = !single && f.nullable();
        fixed_bytes += p.width + (p.null_byte ? 1 : 0);
      }
      parts.push_back(p);
    }
    if (fixed_bytes > 8) return nullptr;
    if (strings > 0) {
      // A string takes a length byte (0 for NULL, else length + 1) and up to max_len bytes.
      const int per_string = (8 - fixed_bytes) / strings;
      if (per_string < 2) return nullptr;
      for (Part& p : parts) {
        if (p.kind == Part::kString) p.width = per_string - 1;
      }
    }
    int shift = 0;
    for (Part& p : parts) {
      p.shift = shift;
      shift += 8 * (p.kind == Part::kString ? p.width + 1 : p.width + (p.null_byte ? 1 : 0));
    }
    auto map = std::unique_ptr<PackedKeyMap>(new PackedKeyMap());
    map->parts_ = std::move(parts);
    map->single_ = single;
    map->Clear();
    return map;
  }

  int64_t num_groups() const { return num_groups_; }
  int64_t memory_size() const {
    return static_cast<int64_t>(slots_.memory_size() + packed_.capacity() * 8 + nulls_.capacity());
  }

  void Clear() {
    // Tables start small (cache-resident); a table that held a batch's worth of groups is
    // kept (a partial aggregation that emits every batch refills it), a larger one given back.
    if (slots_.empty() || num_slots() > kKeptSlots) {
      SetSlots(kInitialSlots);
    } else {
      slots_.Zero(slots_.size());
    }
    num_groups_ = 0;
    null_group_ = kEmpty;
  }

  /// Packs the keys of the batch's `n` rows; false when a value does not fit the layout.
  bool Pack(const std::vector<ArrayPtr>& keys, int64_t n) {
    packed_.assign(static_cast<size_t>(n), 0);
    has_nulls_ = false;
    uint64_t* out = packed_.data();
    for (size_t k = 0; k < parts_.size(); ++k) {
      const Part& p = parts_[k];
      const Array& a = *keys[k];
      bool ok = true;
      switch (p.kind) {
        case Part::kInt:
          switch (p.width) {
            case 1:
              ok = PackFixed<uint8_t>(p, a, n, out);
              break;
            case 2:
              ok = PackFixed<uint16_t>(p, a, n, out);
              break;
            case 4:
              ok = PackFixed<uint32_t>(p, a, n, out);
              break;
            default:
              ok = PackFixed<uint64_t>(p, a, n, out);
              break;
          }
          break;
        case Part::kDecimal:
          ok = PackDecimal(p, a, n, out);
          break;
        case Part::kString:
          ok = PackString(p, a, n, out);
          break;
      }
      if (!ok) return false;
    }
    return true;
  }

  /// The bytes the table may take on top of memory_size() while inserting up to `n` new
  /// groups: each doubling holds the old and the new slots at once. 0 when it cannot grow.
  int64_t GrowthBytes(int64_t n) const {
    size_t slots = num_slots();
    while ((static_cast<size_t>(num_groups_ + n)) * 2 > slots) slots *= 2;
    if (slots == num_slots()) return 0;
    // The final table, and the one before it while its slots are moved.
    return static_cast<int64_t>((slots + slots / 2) * sizeof(Slot)) - slots_.memory_size();
  }

  /// Sizes the table for `n` groups in all, so that inserting them does not grow it.
  void Reserve(int64_t n) {
    size_t slots = num_slots();
    while (static_cast<size_t>(n) * 2 > slots) slots *= 2;
    if (slots != num_slots()) Rehash(slots);
  }

  /// Assigns ids[i] to every packed row, inserting new groups (their rows are appended to
  /// `new_rows`).
  void Insert(int64_t n, uint32_t* ids, std::vector<int64_t>* new_rows) {
    const uint64_t* keys = packed_.data();
    const uint8_t* nulls = has_nulls_ ? nulls_.data() : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      if (nulls != nullptr && nulls[i]) {
        if (null_group_ == kEmpty) {
          null_group_ = static_cast<uint32_t>(num_groups_++);
          new_rows->push_back(i);
        }
        ids[i] = null_group_;
        continue;
      }
      const uint64_t key = keys[i];
      size_t s = SlotOf(key);
      const size_t mask = num_slots() - 1;
      while (true) {
        Slot& slot = slots_[s];
        if (slot.id_plus_one == 0) {
          const auto id = static_cast<uint32_t>(num_groups_++);
          slot = {key, id + 1};
          ids[i] = id;
          new_rows->push_back(i);
          if (static_cast<size_t>(num_groups_) * 2 > num_slots()) Grow();
          break;
        }
        if (slot.key == key) {
          ids[i] = slot.id_plus_one - 1;
          break;
        }
        s = (s + 1) & mask;
      }
    }
  }

 private:
  struct Part {
    enum Kind { kInt, kDecimal, kString } kind = kInt;
    int width = 0;  // value bytes (for strings: the longest value that fits)
    bool null_byte = false;
    int shift = 0;
  };
  struct Slot {
    uint64_t key;
    uint32_t id_plus_one;  // 0: empty
  };
  static constexpr size_t kInitialSlots = 64;
  static constexpr size_t kKeptSlots = size_t{1} << 17;

  // An empty table of `n` (a power of two) slots.
  void SetSlots(size_t n) {
    slots_.Zero(static_cast<int64_t>(n));
    shift_ = 64 - std::countr_zero(n);
  }

  PackedKeyMap() = default;

  size_t num_slots() const { return static_cast<size_t>(slots_.size()); }

  size_t SlotOf(uint64_t key) const {
    // Fibonacci hashing: the top bits of the product mix every bit of the key.
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }

  void Grow() { Rehash(num_slots() * 2); }

  // Moves the groups into a table of `n` slots (a power of two, more than twice them).
  void Rehash(size_t n) {
    const PoolBuffer<Slot> old = std::move(slots_);
    const Slot* old_slots = old.data();
    const auto old_n = static_cast<size_t>(old.size());
    SetSlots(n);
    const size_t mask = num_slots() - 1;
    for (size_t i = 0; i < old_n; ++i) {
      const Slot& o = old_slots[i];
      if (o.id_plus_one == 0) continue;
      size_t s = SlotOf(o.key);
      while (slots_[s].id_plus_one != 0) s = (s + 1) & mask;
      slots_[s] = o;
    }
  }

  // NULL rows of a single key column go to the NULL group; false for a column of several
  // without a null byte (declared not nullable, yet holding NULLs).
  bool MarkNulls(const Array& a, int64_t n) {
    if (!single_) return false;
    nulls_.assign(static_cast<size_t>(n), 0);
    for (int64_t i = 0; i < n; ++i) nulls_[static_cast<size_t>(i)] = a.IsNull(i) ? 1 : 0;
    has_nulls_ = true;
    return true;
  }

  template <typename U>
  bool PackFixed(const Part& p, const Array& a, int64_t n, uint64_t* out) {
    const U* v = a.values<U>();
    if (a.null_count() == 0) {
      if (p.null_byte) {
        for (int64_t i = 0; i < n; ++i) out[i] |= ((uint64_t{v[i]} << 8) | 1) << p.shift;
      } else {
        for (int64_t i = 0; i < n; ++i) out[i] |= uint64_t{v[i]} << p.shift;
      }
      return true;
    }
    if (!p.null_byte) {
      // NULL rows are marked; their packed value is ignored.
      if (!MarkNulls(a, n)) return false;
      for (int64_t i = 0; i < n; ++i) out[i] |= uint64_t{v[i]} << p.shift;
      return true;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (a.IsValid(i)) out[i] |= ((uint64_t{v[i]} << 8) | 1) << p.shift;
    }
    return true;
  }

  // Decimals of precision <= 18 are int64 values stored in 128 bits (Make gives them no
  // null byte, which would not fit).
  bool PackDecimal(const Part& p, const Array& a, int64_t n, uint64_t* out) {
    const uint8_t* base = a.buffer(1)->data() + a.offset() * 16;
    const bool nulls = a.null_count() > 0;
    if (nulls && !MarkNulls(a, n)) return false;
    for (int64_t i = 0; i < n; ++i) {
      Int128 v;
      std::memcpy(&v, base + i * 16, 16);
      const auto low = static_cast<int64_t>(v);
      if (static_cast<Int128>(low) != v && !(nulls && a.IsNull(i))) return false;
      out[i] |= static_cast<uint64_t>(low) << p.shift;
    }
    return true;
  }

  bool PackString(const Part& p, const Array& a, int64_t n, uint64_t* out) {
    const int32_t* offs = a.value_offsets();
    const uint8_t* data = a.buffer(2) ? a.buffer(2)->data() : nullptr;
    const int64_t data_size = a.buffer(2) ? a.buffer(2)->size() : 0;
    const bool nulls = a.null_count() > 0;
    const auto max_len = static_cast<uint32_t>(p.width);
    for (int64_t i = 0; i < n; ++i) {
      if (nulls && a.IsNull(i)) continue;  // length byte 0
      const int32_t begin = offs[i];
      const auto len = static_cast<uint32_t>(offs[i + 1] - begin);
      if (len > max_len) return false;
      uint64_t v = 0;
      if (begin + 8 <= data_size) {
        std::memcpy(&v, data + begin, 8);
        v &= len == 0 ? 0 : (~uint64_t{0} >> (64 - 8 * len));
      } else if (len > 0) {
        std::memcpy(&v, data + begin, len);
      }
      out[i] |= ((v << 8) | (len + 1)) << p.shift;
    }
    return true;
  }

  std::vector<Part> parts_;
  bool single_ = false;
  // Zeroed slots from the default pool: a large table is a recycled block, resident, that
  // an earlier query freed; fresh mappings would be faulted in (and zeroed by the kernel)
  // on every query, which on a virtual machine costs several times the memset (TPC-H Q18
  // spent a tenth of its CPU there).
  PoolBuffer<Slot> slots_;
  int shift_ = 64;
  int64_t num_groups_ = 0;
  uint32_t null_group_ = kEmpty;
  std::vector<uint64_t> packed_;
  std::vector<uint8_t> nulls_;
  bool has_nulls_ = false;
};

}  // namespace floe::exec
