#include "floe/format/puffin/deletion_vector.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace floe::puffin {

namespace {

// Roaring format constants (RoaringFormatSpec, "Standard 32-bit Roaring Bitmap").
constexpr uint32_t kSerialCookieNoRun = 12346;
constexpr uint32_t kSerialCookie = 12347;
constexpr uint32_t kNoOffsetThreshold = 4;
constexpr int32_t kMaxArrayCardinality = 4096;
constexpr size_t kBitmapWords = 1024;
constexpr uint8_t kDvMagic[4] = {0xD1, 0xD3, 0x39, 0x64};

struct Run {
  uint16_t start;
  uint16_t length_minus_one;
  uint32_t end() const { return uint32_t{start} + length_minus_one + 1; }  // exclusive
};

enum class Kind : uint8_t { kArray = 0, kBitmap = 1, kRun = 2 };

// A set of 16-bit values: the low halves of one 65536-value chunk.
struct Container {
  uint16_t key = 0;
  Kind kind = Kind::kArray;
  int32_t cardinality = 0;
  std::vector<uint16_t> array;
  std::vector<uint64_t> words;
  std::vector<Run> runs;

  bool Contains(uint16_t v) const {
    switch (kind) {
      case Kind::kArray:
        return std::binary_search(array.begin(), array.end(), v);
      case Kind::kBitmap:
        return (words[v >> 6] >> (v & 63)) & 1;
      case Kind::kRun: {
        auto it = std::upper_bound(runs.begin(), runs.end(), v,
                                   [](uint16_t x, const Run& r) { return x < r.start; });
        if (it == runs.begin()) return false;
        --it;
        return v < it->end();
      }
    }
    return false;
  }

  void ToBitmap() {
    if (kind == Kind::kBitmap) return;
    std::vector<uint64_t> w(kBitmapWords, 0);
    if (kind == Kind::kArray) {
      for (uint16_t v : array) w[v >> 6] |= uint64_t{1} << (v & 63);
    } else {
      for (const Run& r : runs) {
        for (uint32_t v = r.start; v < r.end(); ++v) w[v >> 6] |= uint64_t{1} << (v & 63);
      }
    }
    words = std::move(w);
    array.clear();
    array.shrink_to_fit();
    runs.clear();
    runs.shrink_to_fit();
    kind = Kind::kBitmap;
  }

  void ToArray() {
    std::vector<uint16_t> a;
    a.reserve(static_cast<size_t>(cardinality));
    ForEachRange([&](uint32_t lo, uint32_t hi) {
      for (uint32_t v = lo; v < hi; ++v) a.push_back(static_cast<uint16_t>(v));
    });
    array = std::move(a);
    words.clear();
    words.shrink_to_fit();
    runs.clear();
    runs.shrink_to_fit();
    kind = Kind::kArray;
  }

  bool Add(uint16_t v) {
    if (Contains(v)) return false;
    if (kind == Kind::kRun) {
      if (cardinality < kMaxArrayCardinality) {
        ToArray();
      } else {
        ToBitmap();
      }
    }
    if (kind == Kind::kArray) {
      array.insert(std::lower_bound(array.begin(), array.end(), v), v);
      ++cardinality;
      if (cardinality > kMaxArrayCardinality) ToBitmap();
      return true;
    }
    words[v >> 6] |= uint64_t{1} << (v & 63);
    ++cardinality;
    return true;
  }

  // Adds [lo, hi) with hi <= 65536; returns how many values were new.
  int32_t AddRange(uint32_t lo, uint32_t hi) {
    if (cardinality == 0) {
      kind = Kind::kRun;
      runs = {Run{static_cast<uint16_t>(lo), static_cast<uint16_t>(hi - lo - 1)}};
      cardinality = static_cast<int32_t>(hi - lo);
      return cardinality;
    }
    ToBitmap();
    int32_t before = cardinality;
    for (uint32_t v = lo; v < hi; ++v) words[v >> 6] |= uint64_t{1} << (v & 63);
    cardinality = 0;
    for (uint64_t w : words) cardinality += std::popcount(w);
    return cardinality - before;
  }

  // Calls fn(lo, hi) for ascending ranges [lo, hi) of values.
  template <typename Fn>
  void ForEachRange(Fn&& fn) const {
    switch (kind) {
      case Kind::kArray: {
        size_t i = 0;
        while (i < array.size()) {
          size_t j = i + 1;
          while (j < array.size() && array[j] == array[j - 1] + 1) ++j;
          fn(uint32_t{array[i]}, uint32_t{array[j - 1]} + 1);
          i = j;
        }
        break;
      }
      case Kind::kBitmap:
        for (size_t i = 0; i < kBitmapWords; ++i) {
          uint64_t w = words[i];
          while (w != 0) {
            int s = std::countr_zero(w);
            uint64_t shifted = w >> s;
            int len = ~shifted == 0 ? 64 - s : std::countr_zero(~shifted);
            uint32_t lo = static_cast<uint32_t>(i * 64 + s);
            fn(lo, lo + static_cast<uint32_t>(len));
            w = s + len >= 64 ? 0 : w & ~(((uint64_t{1} << len) - 1) << s);
          }
        }
        break;
      case Kind::kRun:
        for (const Run& r : runs) fn(uint32_t{r.start}, r.end());
        break;
    }
  }

  int32_t CountRuns() const {
    int32_t n = 0;
    uint32_t last_end = UINT32_MAX;
    ForEachRange([&](uint32_t lo, uint32_t hi) {
      // Bitmap ranges are split at word boundaries; merge adjacent ones.
      if (lo != last_end) ++n;
      last_end = hi;
    });
    return n;
  }

  // The kind to serialize as: runs when smallest, otherwise as the cardinality dictates.
  Kind SerializedKind(int32_t* nruns) const {
    *nruns = CountRuns();
    int64_t natural = cardinality <= kMaxArrayCardinality ? 2 * int64_t{cardinality} : 8192;
    if (2 + 4 * int64_t{*nruns} < natural) return Kind::kRun;
    return cardinality <= kMaxArrayCardinality ? Kind::kArray : Kind::kBitmap;
  }

  bool operator==(const Container& other) const {
    if (key != other.key || cardinality != other.cardinality) return false;
    std::vector<std::pair<uint32_t, uint32_t>> a, b;
    ForEachRange([&](uint32_t lo, uint32_t hi) {
      if (!a.empty() && a.back().second == lo) {
        a.back().second = hi;
      } else {
        a.emplace_back(lo, hi);
      }
    });
    other.ForEachRange([&](uint32_t lo, uint32_t hi) {
      if (!b.empty() && b.back().second == lo) {
        b.back().second = hi;
      } else {
        b.emplace_back(lo, hi);
      }
    });
    return a == b;
  }
};

struct Bucket {
  uint32_t key = 0;
  std::vector<Container> containers;  // sorted by key, none empty
};

void PutLE16(std::string* out, uint16_t v) {
  char b[2] = {static_cast<char>(v), static_cast<char>(v >> 8)};
  out->append(b, 2);
}
void PutLE32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void PutLE64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void PutBE32(std::string* out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// Bounds-checked little-endian reads over a byte span; errors name the file and offset.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> data, std::string_view where, int64_t base)
      : data_(data), where_(where), base_(base) {}

  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  int64_t offset() const { return base_ + static_cast<int64_t>(pos_); }

  Status Need(size_t n, std::string_view what) const {
    if (n > remaining()) {
      return Error("{} needs {} bytes but only {} remain", what, n, remaining());
    }
    return Status::OK();
  }
  template <typename... Args>
  Status Error(fmt::format_string<Args...> format, Args&&... args) const {
    return Status::Corrupt("deletion vector in '{}' at offset {}: {}", where_, offset(),
                           fmt::format(format, std::forward<Args>(args)...));
  }

  uint16_t U16() {
    uint16_t v = static_cast<uint16_t>(data_[pos_] | (data_[pos_ + 1] << 8));
    pos_ += 2;
    return v;
  }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | data_[pos_ + static_cast<size_t>(i)];
    pos_ += 4;
    return v;
  }
  uint64_t U64() {
    uint64_t lo = U32();
    uint64_t hi = U32();
    return lo | (hi << 32);
  }
  const uint8_t* Take(size_t n) {
    const uint8_t* p = data_.data() + pos_;
    pos_ += n;
    return p;
  }

 private:
  std::span<const uint8_t> data_;
  std::string_view where_;
  int64_t base_;
  size_t pos_ = 0;
};

Status ParseContainer(Cursor& in, bool is_run, int32_t cardinality, Container* c) {
  c->cardinality = cardinality;
  if (is_run) {
    FLOE_RETURN_NOT_OK(in.Need(2, "run container"));
    uint16_t nruns = in.U16();
    if (nruns == 0) return in.Error("run container of key {} has no runs", c->key);
    FLOE_RETURN_NOT_OK(in.Need(4 * size_t{nruns}, "run container"));
    c->kind = Kind::kRun;
    c->runs.resize(nruns);
    int64_t total = 0;
    uint32_t prev_end = 0;
    for (uint16_t i = 0; i < nruns; ++i) {
      Run r{in.U16(), in.U16()};
      if (r.end() > 65536) {
        return in.Error("run {} of container {} ({}+{}) passes 65535", i, c->key, r.start,
                        r.length_minus_one);
      }
      if (i > 0 && r.start < prev_end) {
        return in.Error("run {} of container {} starts at {}, inside or before the previous run", i,
                        c->key, r.start);
      }
      prev_end = r.end();
      total += r.length_minus_one + 1;
      c->runs[i] = r;
    }
    if (total != cardinality) {
      return in.Error("run container of key {} holds {} values but its header says {}", c->key,
                      total, cardinality);
    }
    return Status::OK();
  }
  if (cardinality <= kMaxArrayCardinality) {
    FLOE_RETURN_NOT_OK(in.Need(2 * static_cast<size_t>(cardinality), "array container"));
    c->kind = Kind::kArray;
    c->array.resize(static_cast<size_t>(cardinality));
    for (int32_t i = 0; i < cardinality; ++i) {
      uint16_t v = in.U16();
      if (i > 0 && v <= c->array[static_cast<size_t>(i) - 1]) {
        return in.Error("array container of key {} is not strictly increasing at value {}", c->key,
                        i);
      }
      c->array[static_cast<size_t>(i)] = v;
    }
    return Status::OK();
  }
  FLOE_RETURN_NOT_OK(in.Need(8 * kBitmapWords, "bitmap container"));
  c->kind = Kind::kBitmap;
  c->words.resize(kBitmapWords);
  int64_t count = 0;
  for (size_t i = 0; i < kBitmapWords; ++i) {
    c->words[i] = in.U64();
    count += std::popcount(c->words[i]);
  }
  if (count != cardinality) {
    return in.Error("bitmap container of key {} has {} bits set but its header says {}", c->key,
                    count, cardinality);
  }
  return Status::OK();
}

// Parses one 32-bit Roaring bitmap (RoaringFormatSpec "General layout").
Status ParseBitmap32(Cursor& in, std::vector<Container>* out) {
  size_t start = in.pos();
  FLOE_RETURN_NOT_OK(in.Need(4, "Roaring cookie"));
  uint32_t cookie = in.U32();
  uint32_t size = 0;
  bool has_run = false;
  std::vector<uint8_t> run_flags;
  if ((cookie & 0xFFFF) == kSerialCookie) {
    has_run = true;
    size = (cookie >> 16) + 1;
    size_t flag_bytes = (size + 7) / 8;
    FLOE_RETURN_NOT_OK(in.Need(flag_bytes, "run-container flags"));
    const uint8_t* p = in.Take(flag_bytes);
    run_flags.assign(p, p + flag_bytes);
  } else if (cookie == kSerialCookieNoRun) {
    FLOE_RETURN_NOT_OK(in.Need(4, "container count"));
    size = in.U32();
    if (size > 65536) return in.Error("{} containers, more than 65536", size);
  } else {
    return in.Error("bad Roaring cookie {:#x}", cookie);
  }
  bool has_offsets = !has_run || size >= kNoOffsetThreshold;
  // Each container takes at least 4 header bytes and 2 data bytes: check before allocating.
  FLOE_RETURN_NOT_OK(in.Need(size_t{size} * (has_offsets ? 10 : 6), "container headers"));
  std::vector<std::pair<uint16_t, int32_t>> headers(size);
  for (uint32_t i = 0; i < size; ++i) {
    uint16_t key = in.U16();
    int32_t cardinality = int32_t{in.U16()} + 1;
    if (i > 0 && key <= headers[i - 1].first) {
      return in.Error("container keys not increasing: {} after {}", key, headers[i - 1].first);
    }
    headers[i] = {key, cardinality};
  }
  std::vector<uint32_t> offsets;
  if (has_offsets) {
    offsets.resize(size);
    for (uint32_t i = 0; i < size; ++i) offsets[i] = in.U32();
  }
  out->reserve(size);
  for (uint32_t i = 0; i < size; ++i) {
    if (has_offsets && offsets[i] != in.pos() - start) {
      return in.Error("container {} is recorded at bitmap offset {} but starts at {}", i,
                      offsets[i], in.pos() - start);
    }
    Container c;
    c.key = headers[i].first;
    bool is_run = has_run && ((run_flags[i / 8] >> (i % 8)) & 1);
    FLOE_RETURN_NOT_OK(ParseContainer(in, is_run, headers[i].second, &c));
    out->push_back(std::move(c));
  }
  return Status::OK();
}

void SerializeBitmap32(const std::vector<Container>& containers, std::string* out) {
  uint32_t size = static_cast<uint32_t>(containers.size());
  std::vector<Kind> kinds(size);
  std::vector<int32_t> nruns(size);
  bool has_run = false;
  for (uint32_t i = 0; i < size; ++i) {
    kinds[i] = containers[i].SerializedKind(&nruns[i]);
    has_run |= kinds[i] == Kind::kRun;
  }
  uint32_t header;
  if (has_run) {
    PutLE32(out, kSerialCookie | ((size - 1) << 16));
    std::string flags((size + 7) / 8, '\0');
    for (uint32_t i = 0; i < size; ++i) {
      if (kinds[i] == Kind::kRun) flags[i / 8] = static_cast<char>(flags[i / 8] | (1 << (i % 8)));
    }
    out->append(flags);
    header = 4 + static_cast<uint32_t>(flags.size()) + 4 * size +
             (size >= kNoOffsetThreshold ? 4 * size : 0);
  } else {
    PutLE32(out, kSerialCookieNoRun);
    PutLE32(out, size);
    header = 8 + 8 * size;
  }
  for (const Container& c : containers) {
    PutLE16(out, c.key);
    PutLE16(out, static_cast<uint16_t>(c.cardinality - 1));
  }
  if (!has_run || size >= kNoOffsetThreshold) {
    uint32_t offset = header;
    for (uint32_t i = 0; i < size; ++i) {
      PutLE32(out, offset);
      offset += kinds[i] == Kind::kRun     ? 2 + 4 * static_cast<uint32_t>(nruns[i])
                : kinds[i] == Kind::kArray ? 2 * static_cast<uint32_t>(containers[i].cardinality)
                                           : 8192;
    }
  }
  for (uint32_t i = 0; i < size; ++i) {
    const Container& c = containers[i];
    switch (kinds[i]) {
      case Kind::kRun: {
        PutLE16(out, static_cast<uint16_t>(nruns[i]));
        uint32_t run_lo = 0, run_hi = 0;
        bool open = false;
        c.ForEachRange([&](uint32_t lo, uint32_t hi) {
          if (open && lo == run_hi) {
            run_hi = hi;
            return;
          }
          if (open) {
            PutLE16(out, static_cast<uint16_t>(run_lo));
            PutLE16(out, static_cast<uint16_t>(run_hi - run_lo - 1));
          }
          run_lo = lo;
          run_hi = hi;
          open = true;
        });
        PutLE16(out, static_cast<uint16_t>(run_lo));
        PutLE16(out, static_cast<uint16_t>(run_hi - run_lo - 1));
        break;
      }
      case Kind::kArray:
        c.ForEachRange([&](uint32_t lo, uint32_t hi) {
          for (uint32_t v = lo; v < hi; ++v) PutLE16(out, static_cast<uint16_t>(v));
        });
        break;
      case Kind::kBitmap: {
        Container copy = c;
        copy.ToBitmap();
        for (uint64_t w : copy.words) PutLE64(out, w);
        break;
      }
    }
  }
}

void ClearBits(uint8_t* bits, int64_t lo, int64_t hi) {
  while (lo < hi && (lo & 7) != 0) {
    bits[lo >> 3] = static_cast<uint8_t>(bits[lo >> 3] & ~(1u << (lo & 7)));
    ++lo;
  }
  if (hi - lo >= 8) {
    int64_t whole = (hi - lo) >> 3;
    std::memset(bits + (lo >> 3), 0, static_cast<size_t>(whole));
    lo += whole << 3;
  }
  while (lo < hi) {
    bits[lo >> 3] = static_cast<uint8_t>(bits[lo >> 3] & ~(1u << (lo & 7)));
    ++lo;
  }
}

}  // namespace

struct PositionDeleteSet::Impl {
  std::vector<Bucket> buckets;  // sorted by key, none empty
  int64_t cardinality = 0;

  Container* FindOrAdd(uint32_t high, uint16_t key) {
    auto b = std::lower_bound(buckets.begin(), buckets.end(), high,
                              [](const Bucket& x, uint32_t k) { return x.key < k; });
    if (b == buckets.end() || b->key != high) b = buckets.insert(b, Bucket{high, {}});
    auto c = std::lower_bound(b->containers.begin(), b->containers.end(), key,
                              [](const Container& x, uint16_t k) { return x.key < k; });
    if (c == b->containers.end() || c->key != key) {
      Container fresh;
      fresh.key = key;
      c = b->containers.insert(c, std::move(fresh));
    }
    return &*c;
  }

  const Container* Find(uint32_t high, uint16_t key) const {
    auto b = std::lower_bound(buckets.begin(), buckets.end(), high,
                              [](const Bucket& x, uint32_t k) { return x.key < k; });
    if (b == buckets.end() || b->key != high) return nullptr;
    auto c = std::lower_bound(b->containers.begin(), b->containers.end(), key,
                              [](const Container& x, uint16_t k) { return x.key < k; });
    if (c == b->containers.end() || c->key != key) return nullptr;
    return &*c;
  }
};

PositionDeleteSet::PositionDeleteSet() : impl_(std::make_unique<Impl>()) {}
PositionDeleteSet::~PositionDeleteSet() = default;
PositionDeleteSet::PositionDeleteSet(const PositionDeleteSet& other)
    : impl_(std::make_unique<Impl>(*other.impl_)) {}
PositionDeleteSet& PositionDeleteSet::operator=(const PositionDeleteSet& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
PositionDeleteSet::PositionDeleteSet(PositionDeleteSet&& other) noexcept
    : impl_(std::exchange(other.impl_, std::make_unique<Impl>())) {}
PositionDeleteSet& PositionDeleteSet::operator=(PositionDeleteSet&& other) noexcept {
  std::swap(impl_, other.impl_);
  return *this;
}

Status PositionDeleteSet::Add(int64_t position) {
  if (position < 0) return Status::Invalid("deleted row position {} is negative", position);
  uint64_t p = static_cast<uint64_t>(position);
  Container* c = impl_->FindOrAdd(static_cast<uint32_t>(p >> 32), static_cast<uint16_t>(p >> 16));
  if (c->Add(static_cast<uint16_t>(p))) ++impl_->cardinality;
  return Status::OK();
}

Status PositionDeleteSet::AddRange(int64_t begin, int64_t end) {
  if (begin < 0 || end < begin) {
    return Status::Invalid("invalid range of deleted row positions [{}, {})", begin, end);
  }
  while (begin < end) {
    uint64_t p = static_cast<uint64_t>(begin);
    int64_t chunk_end = std::min<int64_t>(end, static_cast<int64_t>((p | 0xFFFF) + 1));
    Container* c = impl_->FindOrAdd(static_cast<uint32_t>(p >> 32), static_cast<uint16_t>(p >> 16));
    impl_->cardinality +=
        c->AddRange(static_cast<uint32_t>(p & 0xFFFF),
                    static_cast<uint32_t>(p & 0xFFFF) + static_cast<uint32_t>(chunk_end - begin));
    begin = chunk_end;
  }
  return Status::OK();
}

void PositionDeleteSet::Merge(const PositionDeleteSet& other) {
  other.VisitRanges(
      0, INT64_MAX,
      [](void* self, int64_t lo, int64_t hi) {
        Status st = static_cast<PositionDeleteSet*>(self)->AddRange(lo, hi);
        FLOE_CHECK(st.ok(), st.ToString());
      },
      this);
}

bool PositionDeleteSet::Contains(int64_t position) const {
  if (position < 0) return false;
  uint64_t p = static_cast<uint64_t>(position);
  const Container* c = impl_->Find(static_cast<uint32_t>(p >> 32), static_cast<uint16_t>(p >> 16));
  return c != nullptr && c->Contains(static_cast<uint16_t>(p));
}

int64_t PositionDeleteSet::Cardinality() const { return impl_->cardinality; }

std::optional<int64_t> PositionDeleteSet::Max() const {
  if (impl_->buckets.empty()) return std::nullopt;
  const Bucket& b = impl_->buckets.back();
  const Container& c = b.containers.back();
  uint32_t last = 0;
  c.ForEachRange([&](uint32_t, uint32_t hi) { last = hi - 1; });
  return static_cast<int64_t>((uint64_t{b.key} << 32) | (uint64_t{c.key} << 16) | last);
}

void PositionDeleteSet::VisitRanges(int64_t begin, int64_t end, void (*fn)(void*, int64_t, int64_t),
                                    void* ctx) const {
  begin = std::max<int64_t>(begin, 0);
  if (end <= begin) return;
  for (const Bucket& b : impl_->buckets) {
    int64_t bucket_base = static_cast<int64_t>(uint64_t{b.key} << 32);
    if (bucket_base >= end) break;
    if (bucket_base + (int64_t{1} << 32) <= begin) continue;
    for (const Container& c : b.containers) {
      int64_t base = bucket_base + (int64_t{c.key} << 16);
      if (base >= end) break;
      if (base + 65536 <= begin) continue;
      c.ForEachRange([&](uint32_t lo, uint32_t hi) {
        int64_t a = std::max(base + lo, begin);
        int64_t z = std::min(base + hi, end);
        if (a < z) fn(ctx, a, z);
      });
    }
  }
}

int64_t PositionDeleteSet::CountInRange(int64_t begin, int64_t end) const {
  int64_t count = 0;
  VisitRanges(
      begin, end, [](void* n, int64_t lo, int64_t hi) { *static_cast<int64_t*>(n) += hi - lo; },
      &count);
  return count;
}

std::vector<int64_t> PositionDeleteSet::ToVector() const {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(impl_->cardinality));
  ForEach([&](int64_t p) { out.push_back(p); });
  return out;
}

void PositionDeleteSet::FillLiveBitmap(int64_t begin, int64_t end, uint8_t* bits) const {
  if (end <= begin) return;
  int64_t n = end - begin;
  size_t bytes = static_cast<size_t>((n + 7) / 8);
  std::memset(bits, 0xFF, bytes);
  if (n % 8 != 0) bits[bytes - 1] = static_cast<uint8_t>((1u << (n % 8)) - 1);
  struct Ctx {
    uint8_t* bits;
    int64_t begin;
  } ctx{bits, begin};
  VisitRanges(
      begin, end,
      [](void* p, int64_t lo, int64_t hi) {
        auto* c = static_cast<Ctx*>(p);
        ClearBits(c->bits, lo - c->begin, hi - c->begin);
      },
      &ctx);
}

std::string PositionDeleteSet::SerializeRoaring() const {
  std::string out;
  PutLE64(&out, impl_->buckets.size());
  for (const Bucket& b : impl_->buckets) {
    PutLE32(&out, b.key);
    SerializeBitmap32(b.containers, &out);
  }
  return out;
}

Result<PositionDeleteSet> PositionDeleteSet::DeserializeRoaring(std::span<const uint8_t> bytes,
                                                                std::string_view where,
                                                                int64_t base_offset) {
  Cursor in(bytes, where, base_offset);
  FLOE_RETURN_NOT_OK(in.Need(8, "bitmap count"));
  uint64_t count = in.U64();
  // A bucket takes at least 12 bytes (key, cookie, container count).
  if (count > in.remaining() / 12) {
    return in.Error("{} bitmaps cannot fit in the {} remaining bytes", count, in.remaining());
  }
  PositionDeleteSet result;
  Impl& impl = *result.impl_;
  uint32_t prev_key = 0;
  for (uint64_t i = 0; i < count; ++i) {
    FLOE_RETURN_NOT_OK(in.Need(4, "bitmap key"));
    uint32_t key = in.U32();
    if (key > 0x7FFFFFFF) {
      return in.Error("bitmap key {:#x} makes positions negative (the top bit must be 0)", key);
    }
    if (i > 0 && key <= prev_key) {
      return in.Error("bitmap keys not increasing: {} after {}", key, prev_key);
    }
    prev_key = key;
    Bucket bucket{key, {}};
    FLOE_RETURN_NOT_OK(ParseBitmap32(in, &bucket.containers));
    if (bucket.containers.empty()) continue;
    for (const Container& c : bucket.containers) impl.cardinality += c.cardinality;
    impl.buckets.push_back(std::move(bucket));
  }
  if (in.remaining() != 0) {
    return in.Error("{} bytes follow the bitmap", in.remaining());
  }
  return result;
}

bool PositionDeleteSet::operator==(const PositionDeleteSet& other) const {
  if (impl_->cardinality != other.impl_->cardinality) return false;
  if (impl_->buckets.size() != other.impl_->buckets.size()) return false;
  for (size_t i = 0; i < impl_->buckets.size(); ++i) {
    const Bucket& a = impl_->buckets[i];
    const Bucket& b = other.impl_->buckets[i];
    if (a.key != b.key || a.containers != b.containers) return false;
  }
  return true;
}

std::array<int64_t, 3> PositionDeleteSet::ContainerCounts() const {
  std::array<int64_t, 3> counts{0, 0, 0};
  for (const Bucket& b : impl_->buckets) {
    for (const Container& c : b.containers) {
      int32_t nruns;
      ++counts[static_cast<size_t>(c.SerializedKind(&nruns))];
    }
  }
  return counts;
}

std::string SerializeDeletionVector(const PositionDeleteSet& positions) {
  std::string bitmap = positions.SerializeRoaring();
  std::string out;
  out.reserve(bitmap.size() + 12);
  PutBE32(&out, static_cast<uint32_t>(bitmap.size() + 4));
  out.append(reinterpret_cast<const char*>(kDvMagic), 4);
  out.append(bitmap);
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(out.data() + 4),
              static_cast<uInt>(bitmap.size() + 4));
  PutBE32(&out, static_cast<uint32_t>(crc));
  return out;
}

Result<PositionDeleteSet> DeserializeDeletionVector(std::span<const uint8_t> blob,
                                                    std::string_view where, int64_t base_offset,
                                                    std::optional<int64_t> expected_cardinality) {
  auto corrupt = [&](int64_t at, std::string message) {
    return Status::Corrupt("deletion vector in '{}' at offset {}: {}", where, base_offset + at,
                           message);
  };
  if (blob.size() < 12) {
    return corrupt(
        0, fmt::format("blob has {} bytes, fewer than the 12 of an empty vector", blob.size()));
  }
  auto be32 = [&](size_t at) {
    return (uint32_t{blob[at]} << 24) | (uint32_t{blob[at + 1]} << 16) |
           (uint32_t{blob[at + 2]} << 8) | uint32_t{blob[at + 3]};
  };
  uint32_t length = be32(0);
  if (length != blob.size() - 8) {
    return corrupt(0, fmt::format("length field says {} bytes of magic and bitmap, the blob of {} "
                                  "bytes holds {}",
                                  length, blob.size(), blob.size() - 8));
  }
  if (std::memcmp(blob.data() + 4, kDvMagic, 4) != 0) {
    return corrupt(4, fmt::format("bad magic {:02x} {:02x} {:02x} {:02x}, expected d1 d3 39 64",
                                  blob[4], blob[5], blob[6], blob[7]));
  }
  uint32_t stored_crc = be32(blob.size() - 4);
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, blob.data() + 4, static_cast<uInt>(length));
  if (static_cast<uint32_t>(crc) != stored_crc) {
    return corrupt(static_cast<int64_t>(blob.size()) - 4,
                   fmt::format("CRC-32 mismatch: stored {:08x}, computed {:08x}", stored_crc,
                               static_cast<uint32_t>(crc)));
  }
  FLOE_ASSIGN_OR_RAISE(
      PositionDeleteSet set,
      PositionDeleteSet::DeserializeRoaring(blob.subspan(8, length - 4), where, base_offset + 8));
  if (expected_cardinality && set.Cardinality() != *expected_cardinality) {
    return corrupt(0, fmt::format("holds {} positions but its metadata says {}", set.Cardinality(),
                                  *expected_cardinality));
  }
  return set;
}

Result<PositionDeleteSet> ReadDeletionVector(const io::RandomAccessFile& file, int64_t offset,
                                             int64_t length,
                                             std::optional<int64_t> expected_cardinality) {
  if (offset < 0 || length < 0 || offset > file.size() || length > file.size() - offset) {
    return Status::Corrupt(
        "deletion vector in '{}' at offset {} with {} bytes lies outside the "
        "file of {} bytes",
        file.path(), offset, length, file.size());
  }
  FLOE_ASSIGN_OR_RAISE(BufferPtr bytes, file.ReadAt(offset, length));
  return DeserializeDeletionVector(bytes->span(), file.path(), offset, expected_cardinality);
}

}  // namespace floe::puffin
