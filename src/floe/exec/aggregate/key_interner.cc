#include "floe/exec/aggregate/key_interner.h"

#include <cstring>
#include <string_view>
#include <utility>

#include "floe/batch/builder.h"
#include "floe/exec/key_table.h"
#include "floe/exec/sort/row_keys.h"

namespace floe::exec {

namespace {
constexpr size_t kInitialSlots = 64;
}  // namespace

std::unique_ptr<KeyInterner> KeyInterner::Make(const std::vector<TypePtr>& key_types,
                                               MemoryPool* pool) {
  std::vector<TypePtr> mapped;
  std::vector<int> columns;
  for (size_t k = 0; k < key_types.size(); ++k) {
    if (key_types[k]->is_binary_like()) {
      columns.push_back(static_cast<int>(k));
      mapped.push_back(Int16());
    } else {
      mapped.push_back(key_types[k]);
    }
  }
  if (columns.empty() || KeyTable::Packs(key_types) || !KeyTable::Packs(mapped)) return nullptr;
  return std::unique_ptr<KeyInterner>(new KeyInterner(std::move(mapped), std::move(columns), pool));
}

KeyInterner::KeyInterner(std::vector<TypePtr> mapped, std::vector<int> columns, MemoryPool* pool)
    : mapped_types_(std::move(mapped)),
      columns_(std::move(columns)),
      dictionaries_(columns_.size()),
      pool_(pool) {
  for (Dictionary& d : dictionaries_) {
    d.slots.assign(kInitialSlots, 0);
    d.starts.push_back(0);
  }
}

int32_t KeyInterner::Dictionary::Intern(std::string_view v, uint64_t hash) {
  const size_t mask = slots.size() - 1;
  for (size_t s = hash & mask;; s = (s + 1) & mask) {
    const int32_t slot = slots[s];
    if (slot == 0) break;
    const auto id = static_cast<size_t>(slot - 1);
    if (hashes[id] == hash && starts[id + 1] - starts[id] == v.size() &&
        std::memcmp(bytes.data() + starts[id], v.data(), v.size()) == 0) {
      return slot - 1;
    }
  }
  const auto id = static_cast<int64_t>(hashes.size());
  if (id >= kMaxIds) return -1;
  hashes.push_back(hash);
  bytes.append(v);
  starts.push_back(static_cast<uint32_t>(bytes.size()));
  // At most half full: double, and place the new value in the grown table.
  if (2 * hashes.size() > slots.size()) {
    Grow();
  } else {
    for (size_t s = hash & mask;; s = (s + 1) & mask) {
      if (slots[s] == 0) {
        slots[s] = static_cast<int32_t>(id + 1);
        break;
      }
    }
  }
  return static_cast<int32_t>(id);
}

void KeyInterner::Dictionary::Grow() {
  slots.assign(slots.size() * 2, 0);
  const size_t mask = slots.size() - 1;
  for (size_t id = 0; id < hashes.size(); ++id) {
    for (size_t s = hashes[id] & mask;; s = (s + 1) & mask) {
      if (slots[s] == 0) {
        slots[s] = static_cast<int32_t>(id + 1);
        break;
      }
    }
  }
}

Result<bool> KeyInterner::Map(const std::vector<ArrayPtr>& keys, std::vector<ArrayPtr>* out) {
  if (done_) return false;
  const int64_t n = keys.empty() ? 0 : keys[0]->length();
  rows_ += n;
  std::vector<ArrayPtr> mapped = keys;
  for (size_t c = 0; c < columns_.size(); ++c) {
    const Array& a = *keys[static_cast<size_t>(columns_[c])];
    Dictionary& d = dictionaries_[c];
    ids_.assign(static_cast<size_t>(n), 0);
    const bool all_null = a.null_count() == n;
    const bool some_null = a.null_count() != 0;
    const int32_t* offsets = a.value_offsets();
    const uint8_t* data = all_null ? nullptr : a.buffer(2)->data();
    for (int64_t i = 0; i < n && !all_null; ++i) {
      if (some_null && a.IsNull(i)) continue;
      const uint8_t* v = data + offsets[i];
      const auto len = static_cast<size_t>(offsets[i + 1] - offsets[i]);
      const int32_t id =
          d.Intern(std::string_view(reinterpret_cast<const char*>(v), len), HashKeyBytes(v, len));
      if (id < 0) {
        done_ = true;
        return false;
      }
      ids_[static_cast<size_t>(i)] = static_cast<int16_t>(id);
    }
    const auto distinct = static_cast<int64_t>(d.hashes.size());
    if (rows_ >= kProbationRows && distinct * kRowsPerId > rows_) {
      done_ = true;
      return false;
    }
    Int16Builder builder(Int16(), pool_);
    if (all_null) {
      FLOE_RETURN_NOT_OK(builder.AppendNulls(n));
    } else {
      FLOE_RETURN_NOT_OK(
          builder.AppendValues(ids_.data(), n, some_null ? a.validity() : nullptr, a.offset()));
    }
    FLOE_ASSIGN_OR_RAISE(mapped[static_cast<size_t>(columns_[c])], builder.Finish());
  }
  *out = std::move(mapped);
  return true;
}

int64_t KeyInterner::memory_size() const {
  int64_t total = static_cast<int64_t>(ids_.capacity() * sizeof(int16_t));
  for (const Dictionary& d : dictionaries_) {
    total += static_cast<int64_t>(d.slots.capacity() * sizeof(int32_t) +
                                  d.hashes.capacity() * sizeof(uint64_t) +
                                  d.starts.capacity() * sizeof(uint32_t) + d.bytes.capacity());
  }
  return total;
}

}  // namespace floe::exec
