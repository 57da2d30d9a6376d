#include "floe/format/parquet/column_writer_internal.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>

#include <zlib.h>

#include "floe/format/parquet/encoding.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/writer_internal.h"

namespace floe::parquet {

using internal::CapacityBytes;
using internal::ChunkIndex;
using internal::ColumnStats;
using internal::LeafColumn;
using internal::LeafKind;
using internal::LeafLevels;
using internal::SortOrder;
using internal::WriteContext;

namespace {

int BitWidth(int64_t max_value) {
  return max_value <= 0 ? 0 : 64 - std::countl_zero(static_cast<uint64_t>(max_value));
}

inline uint64_t MixHash(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

inline uint64_t HashBytes(const uint8_t* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xC2B2AE3D27D4EB4FULL);
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    h = (h ^ (v * 0x87C37B91114253D5ULL)) * 0x4CF5AD432745937FULL;
    h = std::rotl(h, 31);
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  if (n > 0) std::memcpy(&tail, p, n);
  h ^= tail * 0x52DCE729ULL;
  return MixHash(h);
}

// A dictionary's storage: the values in PLAIN encoding (the dictionary page body), where
// each starts, their hashes and the hash table's slots.
struct DictionaryBuffers {
  std::vector<uint8_t> plain;
  std::vector<int64_t> starts;
  std::vector<uint64_t> hashes;
  std::vector<int32_t> slots;

  size_t Capacity() const {
    return CapacityBytes(plain) + CapacityBytes(starts) + CapacityBytes(hashes) +
           CapacityBytes(slots);
  }
};

// A column chunk's dictionary: an open-addressing hash table over the values, which are kept
// in PLAIN encoding (the dictionary page body) as they are inserted.
class DictionaryBuilder {
 public:
  // `width` > 0: fixed-width values of that many bytes (4 and 8 compare as integers);
  // width 0: byte arrays (PLAIN with a 4-byte length prefix).
  // Its values and table live in `buffers`, which must outlive it.
  DictionaryBuilder(int width, DictionaryBuffers* buffers) : width_(width), b_(buffers) { Clear(); }

  int32_t size() const { return static_cast<int32_t>(b_->starts.size()); }
  const std::vector<uint8_t>& plain() const { return b_->plain; }
  int64_t plain_size() const { return static_cast<int64_t>(b_->plain.size()); }

  void Clear() {
    b_->plain.clear();
    b_->starts.clear();
    b_->hashes.clear();
    Rehash(1024);
  }

  // Index of `value` (width_ bytes, or any length for byte arrays), inserting it if new.
  int32_t Insert(const uint8_t* value, size_t length) {
    uint64_t h = width_ == 8 || width_ == 4 ? MixHash(LoadKey(value)) : HashBytes(value, length);
    size_t mask = b_->slots.size() - 1;
    size_t pos = static_cast<size_t>(h) & mask;
    while (true) {
      int32_t s = b_->slots[pos];
      if (s < 0) break;
      if (b_->hashes[static_cast<size_t>(s)] == h && Matches(s, value, length)) return s;
      pos = (pos + 1) & mask;
    }
    int32_t index = size();
    b_->slots[pos] = index;
    b_->hashes.push_back(h);
    if (width_ == 0) {
      auto len = static_cast<uint32_t>(length);
      const auto* lp = reinterpret_cast<const uint8_t*>(&len);
      b_->plain.insert(b_->plain.end(), lp, lp + 4);
    }
    b_->starts.push_back(static_cast<int64_t>(b_->plain.size()));
    b_->plain.insert(b_->plain.end(), value, value + length);
    if (b_->starts.size() * 2 > b_->slots.size()) Rehash(b_->slots.size() * 2);
    return index;
  }

 private:
  uint64_t LoadKey(const uint8_t* value) const {
    uint64_t k = 0;
    std::memcpy(&k, value, static_cast<size_t>(width_));
    return k;
  }

  bool Matches(int32_t s, const uint8_t* value, size_t length) const {
    auto i = static_cast<size_t>(s);
    int64_t start = b_->starts[i];
    int64_t end = i + 1 < b_->starts.size() ? b_->starts[i + 1] - (width_ == 0 ? 4 : 0)
                                            : static_cast<int64_t>(b_->plain.size());
    if (static_cast<size_t>(end - start) != length) return false;
    return std::memcmp(b_->plain.data() + start, value, length) == 0;
  }

  void Rehash(size_t capacity) {
    b_->slots.assign(capacity, -1);
    size_t mask = capacity - 1;
    for (size_t i = 0; i < b_->hashes.size(); ++i) {
      size_t pos = static_cast<size_t>(b_->hashes[i]) & mask;
      while (b_->slots[pos] >= 0) pos = (pos + 1) & mask;
      b_->slots[pos] = static_cast<int32_t>(i);
    }
  }

  int width_;
  DictionaryBuffers* b_;
};

// A data page as the page index and the column metadata need it.
struct PageInfo {
  int64_t offset = 0;  // from the start of the chunk's data pages
  int32_t size = 0;    // header + compressed body
  int64_t first_row = 0;
  int64_t null_count = 0;
  int64_t num_values = 0;  // entries, nulls included
  bool has_min_max = false;
  ColumnStats stats;
};

// PageHeader.crc: the CRC-32 (java.util.zip.CRC32's, as parquet.thrift says) of the page's
// bytes after its header, as stored; written for every page, as parquet-mr does.
int32_t PageCrc(const std::vector<uint8_t>& body) {
  return static_cast<int32_t>(crc32_z(0, body.data(), body.size()));
}

Status AppendHeader(const PageHeader& header, std::string* out) {
  ThriftCompactWriter w(out);
  return EncodeThrift(header, &w);
}

// Page sizes are int32 in the format: a larger page (one record with over 2 GiB of
// values) cannot be written.
Result<int32_t> Checked32(size_t n, const char* what, const std::string& column) {
  if (n > static_cast<size_t>(INT32_MAX)) {
    return Status::NotSupported("column {}: a {} of {} bytes exceeds Parquet's 2 GiB limit", column,
                                what, n);
  }
  return static_cast<int32_t>(n);
}

// The growable buffers of a column writer, emptied with their capacity kept. A file's column
// writers take them from their thread's cache and give them back when the file is done, so
// the next file's writers start with buffers of the size the last ones grew to (a task that
// writes thousands of small files, one per partition, otherwise grows every buffer from
// nothing for each file: malloc and first-touch page faults were a fifth of its time).
struct RecycledBuffers {
  std::vector<int16_t> page_def, page_rep;
  std::vector<int32_t> page_indices;
  std::vector<uint8_t> page_values, page_bools, pages_bytes;
  std::vector<int64_t> gather;
  std::vector<char> decimal_bytes;
  std::vector<uint8_t> levels, values;
  DictionaryBuffers dict;

  size_t Capacity() const {
    return CapacityBytes(page_def) + CapacityBytes(page_rep) + CapacityBytes(page_indices) +
           CapacityBytes(page_values) + CapacityBytes(page_bools) + CapacityBytes(pages_bytes) +
           CapacityBytes(gather) + CapacityBytes(decimal_bytes) + CapacityBytes(levels) +
           CapacityBytes(values) + dict.Capacity();
  }
  // Empties every buffer, keeping its capacity.
  void Clear() {
    page_def.clear();
    page_rep.clear();
    page_indices.clear();
    page_values.clear();
    page_bools.clear();
    pages_bytes.clear();
    gather.clear();
    decimal_bytes.clear();
    levels.clear();
    values.clear();
    dict.plain.clear();
    dict.starts.clear();
    dict.hashes.clear();
    dict.slots.clear();
  }
};

// A thread's cache of buffers, bounded in bytes and in sets.
class BufferCache {
 public:
  static BufferCache& OfThisThread() {
    thread_local BufferCache cache;
    return cache;
  }
  std::unique_ptr<RecycledBuffers> Take() {
    if (free_.empty()) return std::make_unique<RecycledBuffers>();
    std::unique_ptr<RecycledBuffers> b = std::move(free_.back());
    free_.pop_back();
    bytes_ -= b->Capacity();
    return b;
  }
  void Give(std::unique_ptr<RecycledBuffers> b) {
    const size_t bytes = b->Capacity();
    if (free_.size() >= kMaxSets || bytes_ + bytes > kMaxBytes) return;  // freed
    bytes_ += bytes;
    free_.push_back(std::move(b));
  }

 private:
  static constexpr size_t kMaxSets = 256;
  static constexpr size_t kMaxBytes = size_t{32} << 20;
  std::vector<std::unique_ptr<RecycledBuffers>> free_;
  size_t bytes_ = 0;
};

class ColumnWriterImpl final : public internal::ColumnWriter {
 public:
  ColumnWriterImpl(const LeafColumn& desc, WriteContext* ctx)
      : desc_(desc),
        ctx_(ctx),
        options_(*ctx->options),
        dict_(DictWidth(desc), &buf_.dict),
        use_dict_(options_.enable_dictionary && desc.kind != LeafKind::kBoolean),
        page_stats_(desc.sort_order),
        chunk_stats_(desc.sort_order) {
    if (std::unique_ptr<RecycledBuffers> b = BufferCache::OfThisThread().Take()) {
      buf_ = std::move(*b);
    }
    dict_.Clear();  // its table over the recycled slots
  }

  ~ColumnWriterImpl() override {
    buf_.Clear();
    BufferCache::OfThisThread().Give(std::make_unique<RecycledBuffers>(std::move(buf_)));
  }
  ColumnWriterImpl(const ColumnWriterImpl&) = delete;
  ColumnWriterImpl& operator=(const ColumnWriterImpl&) = delete;

  void BeginBatch() override { value_cursor_ = 0; }

  Status Append(const LeafLevels& levels, int64_t begin, int64_t end) override {
    while (begin < end) {
      int64_t cut = NextCut(levels, begin, end);
      AppendRange(levels, begin, cut);
      begin = cut;
      if (use_dict_ &&
          (dict_.plain_size() > options_.dictionary_page_size_limit || DictionaryDoesNotPay())) {
        // Encodings.md: once the dictionary is too large the chunk continues in PLAIN; the
        // pages written so far keep their dictionary encoding.
        FLOE_RETURN_NOT_OK(CutPage());
        use_dict_ = false;
      } else if (PageEstimate() >= options_.page_size_bytes) {
        FLOE_RETURN_NOT_OK(CutPage());
      }
    }
    return Status::OK();
  }

  // Probed once per chunk, after the first kDictionaryProbeValues values: when nearly every
  // value is distinct, a dictionary only adds a hash insert per value and a page of its own,
  // so the chunk continues in PLAIN (as other writers decide after their first page).
  bool DictionaryDoesNotPay() {
    if (dict_probed_ || !page_dict_mode_ ||
        static_cast<int64_t>(buf_.page_indices.size()) < kDictionaryProbeValues) {
      return false;
    }
    dict_probed_ = true;
    return dict_.size() * 4 > static_cast<int64_t>(buf_.page_indices.size()) * 3;
  }

  int64_t EstimatedSize() const override {
    return static_cast<int64_t>(buf_.pages_bytes.size()) + PageEstimate() +
           (dict_.size() > 0 ? dict_.plain_size() : 0);
  }

  int64_t num_rows() const { return chunk_rows_; }

  int64_t MemoryBytes() const override {
    return static_cast<int64_t>(buf_.Capacity() + CapacityBytes(pages_));
  }

  Status Flush(io::OutputStream* out, ColumnChunk* chunk, ChunkIndex* index) override {
    FLOE_RETURN_NOT_OK(CutPage());
    ColumnMetaData md;
    md.type = desc_.physical_type;
    md.path_in_schema = desc_.path;
    md.codec = ctx_->codec;
    md.num_values = chunk_values_;
    int64_t start = out->position();
    int64_t uncompressed = 0, compressed = 0;
    std::vector<PageEncodingStats> enc_stats;
    bool dict_page = dict_pages_ > 0;
    if (dict_page) {
      FLOE_RETURN_NOT_OK(ctx_->Compress(dict_.plain(), &ctx_->scratch));
      PageHeader h;
      h.type = PageType::kDictionaryPage;
      FLOE_ASSIGN_OR_RAISE(h.uncompressed_page_size,
                           Checked32(dict_.plain().size(), "dictionary page", desc_.dotted_path));
      FLOE_ASSIGN_OR_RAISE(h.compressed_page_size,
                           Checked32(ctx_->scratch.size(), "dictionary page", desc_.dotted_path));
      DictionaryPageHeader dh;
      dh.num_values = dict_.size();
      dh.encoding = Encoding::kPlain;
      h.dictionary_page_header = dh;
      h.crc = PageCrc(ctx_->scratch);
      std::string header;
      FLOE_RETURN_NOT_OK(AppendHeader(h, &header));
      FLOE_RETURN_NOT_OK(out->Write(header));
      FLOE_RETURN_NOT_OK(
          out->Write(ctx_->scratch.data(), static_cast<int64_t>(ctx_->scratch.size())));
      uncompressed += static_cast<int64_t>(header.size() + dict_.plain().size());
      compressed += static_cast<int64_t>(header.size() + ctx_->scratch.size());
      md.dictionary_page_offset = start;
      enc_stats.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
    }
    int64_t data_start = out->position();
    md.data_page_offset = data_start;
    FLOE_RETURN_NOT_OK(
        out->Write(buf_.pages_bytes.data(), static_cast<int64_t>(buf_.pages_bytes.size())));
    uncompressed += pages_uncompressed_;
    compressed += static_cast<int64_t>(buf_.pages_bytes.size());
    md.total_uncompressed_size = uncompressed;
    md.total_compressed_size = compressed;

    std::vector<Encoding> encodings;
    if (dict_page || plain_pages_ > 0) encodings.push_back(Encoding::kPlain);
    if (desc_.max_def > 0 || desc_.max_rep > 0) encodings.push_back(Encoding::kRle);
    if (dict_pages_ > 0) encodings.push_back(Encoding::kRleDictionary);
    if (encodings.empty()) encodings.push_back(Encoding::kPlain);
    md.encodings = std::move(encodings);
    PageType data_type =
        options_.data_page_version == 2 ? PageType::kDataPageV2 : PageType::kDataPage;
    if (dict_data_pages_ > 0) {
      enc_stats.push_back({data_type, Encoding::kRleDictionary, dict_data_pages_});
    }
    if (plain_pages_ > 0) enc_stats.push_back({data_type, Encoding::kPlain, plain_pages_});
    md.encoding_stats = std::move(enc_stats);

    if (options_.write_statistics) md.statistics = MakeStatistics(chunk_stats_);

    chunk->file_offset = start;
    chunk->meta_data = std::move(md);

    // The page index (PageIndex.md).
    index->offset_index.page_locations.clear();
    ColumnIndex ci;
    bool ci_valid = true;
    for (const PageInfo& p : pages_) {
      index->offset_index.page_locations.push_back({data_start + p.offset, p.size, p.first_row});
      bool null_page = p.null_count == p.num_values;
      if (!null_page && !p.has_min_max) ci_valid = false;  // only NaN values: no bounds
      ci.null_pages.push_back(null_page);
      if (null_page) {
        ci.min_values.emplace_back();
        ci.max_values.emplace_back();
      } else if (p.has_min_max) {
        auto b =
            p.stats.Encode(desc_.physical_type, IsString(), options_.statistics_truncate_length);
        ci.min_values.push_back(std::move(b.min));
        ci.max_values.push_back(std::move(b.max));
      } else {
        ci.min_values.emplace_back();
        ci.max_values.emplace_back();
      }
    }
    if (ci_valid) {
      ci.null_counts = std::vector<int64_t>();
      for (const PageInfo& p : pages_) ci.null_counts->push_back(p.null_count);
      ci.boundary_order = BoundaryOrderOf(ci);
      index->column_index = std::move(ci);
    } else {
      index->column_index.reset();
    }
    ResetChunk();
    return Status::OK();
  }

 private:
  static int DictWidth(const LeafColumn& d) {
    switch (d.kind) {
      case LeafKind::kInt8:
      case LeafKind::kInt16:
      case LeafKind::kInt32:
      case LeafKind::kDecimalInt32:
      case LeafKind::kFloat:
        return 4;
      case LeafKind::kInt64:
      case LeafKind::kDecimalInt64:
      case LeafKind::kDouble:
        return 8;
      case LeafKind::kDecimalFixed:
      case LeafKind::kFixed:
        return d.type_length;
      default:
        return 0;
    }
  }

  bool IsString() const { return desc_.kind == LeafKind::kByteArray; }

  void ResetChunk() {
    buf_.pages_bytes.clear();
    pages_.clear();
    pages_uncompressed_ = 0;
    dict_.Clear();
    use_dict_ = options_.enable_dictionary && desc_.kind != LeafKind::kBoolean;
    dict_probed_ = false;
    dict_pages_ = 0;
    dict_data_pages_ = 0;
    plain_pages_ = 0;
    chunk_values_ = 0;
    chunk_rows_ = 0;
    chunk_stats_.Reset();
  }

  BoundaryOrder BoundaryOrderOf(const ColumnIndex& ci) const {
    bool asc = true, desc = true;
    int prev = -1;
    for (size_t i = 0; i < ci.null_pages.size(); ++i) {
      if (ci.null_pages[i]) continue;
      if (prev >= 0) {
        auto p = static_cast<size_t>(prev);
        int cmin = chunk_stats_.CompareEncoded(ci.min_values[p], ci.min_values[i]);
        int cmax = chunk_stats_.CompareEncoded(ci.max_values[p], ci.max_values[i]);
        if (cmin > 0 || cmax > 0) asc = false;
        if (cmin < 0 || cmax < 0) desc = false;
      }
      prev = static_cast<int>(i);
    }
    if (asc) return BoundaryOrder::kAscending;
    if (desc) return BoundaryOrder::kDescending;
    return BoundaryOrder::kUnordered;
  }

  Statistics MakeStatistics(const ColumnStats& s) const {
    Statistics st;
    st.null_count = s.null_count();
    if (s.has_min_max()) {
      auto b = s.Encode(desc_.physical_type, IsString(), options_.statistics_truncate_length);
      // The deprecated min/max use signed comparison; they are written for the numeric
      // physical types only, where every floe type's order is signed.
      Type t = desc_.physical_type;
      if (t == Type::kInt32 || t == Type::kInt64 || t == Type::kFloat || t == Type::kDouble) {
        st.min = b.min;
        st.max = b.max;
      }
      st.min_value = std::move(b.min);
      st.max_value = std::move(b.max);
      st.is_min_value_exact = b.min_exact;
      st.is_max_value_exact = b.max_exact;
    }
    return st;
  }

  // Bytes of the open page, before compression.
  int64_t PageEstimate() const {
    int64_t levels = (static_cast<int64_t>(buf_.page_def.size()) * BitWidth(desc_.max_def) +
                      static_cast<int64_t>(buf_.page_rep.size()) * BitWidth(desc_.max_rep)) /
                     8;
    int64_t values =
        page_dict_mode_
            ? static_cast<int64_t>(buf_.page_indices.size()) *
                  std::max(1, BitWidth(dict_.size() - 1)) / 8
            : static_cast<int64_t>(buf_.page_values.size() + buf_.page_bools.size() / 8);
    return levels + values;
  }

  // The end of the next run of entries to append: whole records, about as many bytes as the
  // open page has room for.
  int64_t NextCut(const LeafLevels& l, int64_t begin, int64_t end) const {
    // Until the dictionary has been probed, steps stop at the probe point so that a column
    // of distinct values does not build a large dictionary first.
    const int64_t kMaxStep =
        use_dict_ && !dict_probed_
            ? std::max<int64_t>(
                  kDictionaryProbeValues - static_cast<int64_t>(buf_.page_indices.size()), 1)
            : 64 * 1024;
    int64_t room = std::max<int64_t>(options_.page_size_bytes - PageEstimate(), 1);
    int64_t cut;
    if (desc_.kind == LeafKind::kByteArray) {
      // Walk the value lengths until the page would be full.
      int64_t bytes = 0;
      cut = begin;
      int64_t v = value_cursor_;
      const Array& a = *l.values;
      const int32_t* offs = a.value_offsets();
      while (cut < end && cut - begin < kMaxStep && bytes < room) {
        bool is_value = desc_.max_def == 0 || l.def[static_cast<size_t>(cut)] == desc_.max_def;
        if (is_value) {
          int64_t e = l.contiguous ? l.first + cut : l.indices[static_cast<size_t>(v++)];
          bytes += 4 + offs[e + 1] - offs[e];
        }
        ++cut;
      }
    } else {
      int64_t width = std::max(1, DictWidth(desc_));
      cut = begin + std::clamp<int64_t>(room / width, 1, kMaxStep);
      cut = std::min(cut, end);
    }
    if (desc_.max_rep > 0) {
      while (cut < end && l.rep[static_cast<size_t>(cut)] != 0) ++cut;
    }
    return cut;
  }

  void AppendRange(const LeafLevels& l, int64_t begin, int64_t end) {
    int64_t n = end - begin;
    int64_t num_values = n;
    if (desc_.max_def > 0) {
      const int16_t* d = l.def.data() + begin;
      buf_.page_def.insert(buf_.page_def.end(), d, d + n);
      num_values = 0;
      for (int64_t i = 0; i < n; ++i) num_values += d[i] == desc_.max_def;
    }
    int64_t rows = n;
    if (desc_.max_rep > 0) {
      const int16_t* r = l.rep.data() + begin;
      buf_.page_rep.insert(buf_.page_rep.end(), r, r + n);
      rows = 0;
      for (int64_t i = 0; i < n; ++i) rows += r[i] == 0;
    }
    page_entries_ += n;
    page_rows_ += rows;
    page_stats_.AddNulls(n - num_values);
    if (num_values == 0) return;

    // Which elements of the leaf array are the values.
    const int64_t* idx = nullptr;
    int64_t first = 0;
    if (!l.contiguous) {
      idx = l.indices.data() + value_cursor_;
      value_cursor_ += num_values;
    } else if (num_values == n) {
      first = l.first + begin;
    } else {
      buf_.gather.clear();
      const int16_t* d = l.def.data() + begin;
      for (int64_t i = 0; i < n; ++i) {
        if (d[i] == desc_.max_def) buf_.gather.push_back(l.first + begin + i);
      }
      idx = buf_.gather.data();
    }
    if (idx) {
      EncodeValues(*l.values, num_values, [idx](int64_t m) { return idx[m]; });
    } else {
      EncodeValues(*l.values, num_values, [first](int64_t m) { return first + m; });
    }
  }

  template <typename Elem>
  void EncodeValues(const Array& a, int64_t n, Elem elem) {
    switch (desc_.kind) {
      case LeafKind::kBoolean: {
        bool lo = true, hi = false;
        for (int64_t m = 0; m < n; ++m) {
          bool v = a.BoolValue(elem(m));
          buf_.page_bools.push_back(v ? 1 : 0);
          lo = lo && v;
          hi = hi || v;
        }
        page_stats_.UpdateBool(lo, hi);
        return;
      }
      case LeafKind::kInt8: {
        const int8_t* v = a.values<int8_t>();
        return EncodeInts<int32_t>(n, [&](int64_t m) { return int32_t{v[elem(m)]}; });
      }
      case LeafKind::kInt16: {
        const int16_t* v = a.values<int16_t>();
        return EncodeInts<int32_t>(n, [&](int64_t m) { return int32_t{v[elem(m)]}; });
      }
      case LeafKind::kInt32: {
        const int32_t* v = a.values<int32_t>();
        return EncodeInts<int32_t>(n, [&](int64_t m) { return v[elem(m)]; });
      }
      case LeafKind::kInt64: {
        const int64_t* v = a.values<int64_t>();
        return EncodeInts<int64_t>(n, [&](int64_t m) { return v[elem(m)]; });
      }
      case LeafKind::kDecimalInt32:
      case LeafKind::kDecimalInt64: {
        const uint8_t* base = a.buffer(1)->data() + a.offset() * 16;
        auto low64 = [&](int64_t m) {
          int64_t v;
          std::memcpy(&v, base + elem(m) * 16, 8);  // little-endian: the low half first
          return v;
        };
        if (desc_.kind == LeafKind::kDecimalInt32) {
          return EncodeInts<int32_t>(n, [&](int64_t m) { return static_cast<int32_t>(low64(m)); });
        }
        return EncodeInts<int64_t>(n, low64);
      }
      case LeafKind::kFloat: {
        const float* v = a.values<float>();
        return EncodeFloats<float>(n, [&](int64_t m) { return v[elem(m)]; });
      }
      case LeafKind::kDouble: {
        const double* v = a.values<double>();
        return EncodeFloats<double>(n, [&](int64_t m) { return v[elem(m)]; });
      }
      case LeafKind::kByteArray: {
        const int32_t* offs = a.value_offsets();
        const char* data = a.buffer(2)->data_as<char>();
        return EncodeBytes(n, true, [&](int64_t m) {
          int64_t e = elem(m);
          return std::string_view(data + offs[e], static_cast<size_t>(offs[e + 1] - offs[e]));
        });
      }
      case LeafKind::kFixed: {
        auto w = static_cast<size_t>(desc_.type_length);
        const char* data = a.buffer(1)->data_as<char>() + a.offset() * static_cast<int64_t>(w);
        return EncodeBytes(n, false, [&](int64_t m) {
          return std::string_view(data + elem(m) * static_cast<int64_t>(w), w);
        });
      }
      case LeafKind::kDecimalFixed: {
        // Big-endian two's complement in the column's width: the low `w` bytes of the
        // little-endian Int128, reversed. The value fits, so the dropped bytes are sign bytes.
        auto w = static_cast<size_t>(desc_.type_length);
        const uint8_t* base = a.buffer(1)->data() + a.offset() * 16;
        buf_.decimal_bytes.resize(static_cast<size_t>(n) * w);
        for (int64_t m = 0; m < n; ++m) {
          const uint8_t* src = base + elem(m) * 16;
          char* dst = buf_.decimal_bytes.data() + static_cast<size_t>(m) * w;
          for (size_t k = 0; k < w; ++k) dst[k] = static_cast<char>(src[w - 1 - k]);
        }
        const char* data = buf_.decimal_bytes.data();
        return EncodeBytes(n, false, [&](int64_t m) {
          return std::string_view(data + static_cast<size_t>(m) * w, w);
        });
      }
    }
  }

  template <typename T, typename Get>
  void EncodeInts(int64_t n, Get get) {
    T lo = get(0), hi = lo;
    if (use_dict_) {
      StartDictValues();
      for (int64_t m = 0; m < n; ++m) {
        T v = get(m);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        buf_.page_indices.push_back(dict_.Insert(reinterpret_cast<const uint8_t*>(&v), sizeof(T)));
      }
    } else {
      StartPlainValues();
      size_t start = buf_.page_values.size();
      buf_.page_values.resize(start + static_cast<size_t>(n) * sizeof(T));
      uint8_t* out = buf_.page_values.data() + start;
      for (int64_t m = 0; m < n; ++m) {
        T v = get(m);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        std::memcpy(out + m * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
      }
    }
    page_stats_.UpdateInt(lo, hi);
  }

  template <typename T, typename Get>
  void EncodeFloats(int64_t n, Get get) {
    // NaN never enters min/max (parquet.thrift ColumnOrder); -0.0 and +0.0 compare equal here
    // and are normalised when encoded.
    T lo = std::numeric_limits<T>::infinity(), hi = -lo;
    bool any = false;
    if (use_dict_)
      StartDictValues();
    else
      StartPlainValues();
    size_t start = buf_.page_values.size();
    if (!use_dict_) buf_.page_values.resize(start + static_cast<size_t>(n) * sizeof(T));
    for (int64_t m = 0; m < n; ++m) {
      T v = get(m);
      if (!std::isnan(v)) {
        any = true;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      if (use_dict_) {
        buf_.page_indices.push_back(dict_.Insert(reinterpret_cast<const uint8_t*>(&v), sizeof(T)));
      } else {
        std::memcpy(buf_.page_values.data() + start + static_cast<size_t>(m) * sizeof(T), &v,
                    sizeof(T));
      }
    }
    if (any) page_stats_.UpdateDouble(lo, hi);
  }

  template <typename Get>
  void EncodeBytes(int64_t n, bool length_prefix, Get get) {
    std::string_view lo = get(0), hi = lo;
    SortOrder order = desc_.sort_order;
    if (use_dict_) {
      StartDictValues();
      for (int64_t m = 0; m < n; ++m) {
        std::string_view v = get(m);
        if (internal::CompareBytes(order, v, lo) < 0) lo = v;
        if (internal::CompareBytes(order, v, hi) > 0) hi = v;
        buf_.page_indices.push_back(
            dict_.Insert(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
      }
    } else {
      StartPlainValues();
      for (int64_t m = 0; m < n; ++m) {
        std::string_view v = get(m);
        if (internal::CompareBytes(order, v, lo) < 0) lo = v;
        if (internal::CompareBytes(order, v, hi) > 0) hi = v;
        if (length_prefix) {
          auto len = static_cast<uint32_t>(v.size());
          const auto* lp = reinterpret_cast<const uint8_t*>(&len);
          buf_.page_values.insert(buf_.page_values.end(), lp, lp + 4);
        }
        buf_.page_values.insert(buf_.page_values.end(), v.begin(), v.end());
      }
    }
    page_stats_.UpdateBytes(lo, hi);
  }

  // A page holds values of one encoding. The first values decide it.
  void StartDictValues() { page_dict_mode_ = true; }
  void StartPlainValues() { page_dict_mode_ = false; }

  // Encodes and compresses the open page into buf_.pages_bytes.
  Status CutPage() {
    if (page_entries_ == 0) return Status::OK();
    const bool v2 = options_.data_page_version == 2;
    // A dictionary page exists only once a value went into the dictionary; a page of nulls
    // alone is PLAIN with no values.
    bool dict_encoded = page_dict_mode_ && !buf_.page_indices.empty();
    buf_.levels.clear();
    int32_t rep_len = 0, def_len = 0;
    if (desc_.max_rep > 0) {
      size_t s = buf_.levels.size();
      if (v2) {
        EncodeRleBitPacked(std::span<const int16_t>(buf_.page_rep), BitWidth(desc_.max_rep),
                           &buf_.levels);
      } else {
        EncodeRleBitPackedWithLength(std::span<const int16_t>(buf_.page_rep),
                                     BitWidth(desc_.max_rep), &buf_.levels);
      }
      rep_len = static_cast<int32_t>(buf_.levels.size() - s);
    }
    if (desc_.max_def > 0) {
      size_t s = buf_.levels.size();
      if (v2) {
        EncodeRleBitPacked(std::span<const int16_t>(buf_.page_def), BitWidth(desc_.max_def),
                           &buf_.levels);
      } else {
        EncodeRleBitPackedWithLength(std::span<const int16_t>(buf_.page_def),
                                     BitWidth(desc_.max_def), &buf_.levels);
      }
      def_len = static_cast<int32_t>(buf_.levels.size() - s);
    }
    buf_.values.clear();
    if (dict_encoded) {
      EncodeDictionaryIndices(buf_.page_indices, dict_.size(), &buf_.values);
    } else if (desc_.kind == LeafKind::kBoolean) {
      EncodePlainBoolean(buf_.page_bools, &buf_.values);
    } else {
      buf_.values.swap(buf_.page_values);
    }

    PageHeader h;
    std::vector<uint8_t>& body = ctx_->scratch;
    int64_t num_nulls = page_stats_.null_count();
    if (!v2) {
      buf_.levels.insert(buf_.levels.end(), buf_.values.begin(), buf_.values.end());
      FLOE_RETURN_NOT_OK(ctx_->Compress(buf_.levels, &body));
      h.type = PageType::kDataPage;
      FLOE_ASSIGN_OR_RAISE(h.uncompressed_page_size,
                           Checked32(buf_.levels.size(), "data page", desc_.dotted_path));
      DataPageHeader dh;
      dh.num_values = static_cast<int32_t>(page_entries_);
      dh.encoding = dict_encoded ? Encoding::kRleDictionary : Encoding::kPlain;
      dh.definition_level_encoding = Encoding::kRle;
      dh.repetition_level_encoding = Encoding::kRle;
      h.data_page_header = dh;
    } else {
      // DataPageHeaderV2: levels stay uncompressed in front of the compressed values.
      std::vector<uint8_t> compressed_values;
      FLOE_RETURN_NOT_OK(ctx_->Compress(buf_.values, &compressed_values));
      body = buf_.levels;
      body.insert(body.end(), compressed_values.begin(), compressed_values.end());
      h.type = PageType::kDataPageV2;
      FLOE_ASSIGN_OR_RAISE(
          h.uncompressed_page_size,
          Checked32(buf_.levels.size() + buf_.values.size(), "data page", desc_.dotted_path));
      DataPageHeaderV2 dh;
      dh.num_values = static_cast<int32_t>(page_entries_);
      dh.num_nulls = static_cast<int32_t>(num_nulls);
      dh.num_rows = static_cast<int32_t>(page_rows_);
      dh.encoding = dict_encoded ? Encoding::kRleDictionary : Encoding::kPlain;
      dh.definition_levels_byte_length = def_len;
      dh.repetition_levels_byte_length = rep_len;
      if (ctx_->codec == CompressionCodec::kUncompressed) dh.is_compressed = false;
      h.data_page_header_v2 = dh;
    }
    FLOE_ASSIGN_OR_RAISE(h.compressed_page_size,
                         Checked32(body.size(), "data page", desc_.dotted_path));
    h.crc = PageCrc(body);
    std::string header;
    FLOE_RETURN_NOT_OK(AppendHeader(h, &header));

    PageInfo info;
    info.offset = static_cast<int64_t>(buf_.pages_bytes.size());
    FLOE_ASSIGN_OR_RAISE(info.size,
                         Checked32(header.size() + body.size(), "data page", desc_.dotted_path));
    info.first_row = chunk_rows_;
    info.null_count = num_nulls;
    info.num_values = page_entries_;
    info.has_min_max = page_stats_.has_min_max();
    info.stats = page_stats_;
    pages_.push_back(std::move(info));

    buf_.pages_bytes.insert(buf_.pages_bytes.end(), header.begin(), header.end());
    buf_.pages_bytes.insert(buf_.pages_bytes.end(), body.begin(), body.end());
    pages_uncompressed_ += static_cast<int64_t>(header.size()) + h.uncompressed_page_size;
    if (dict_encoded) {
      ++dict_data_pages_;
      dict_pages_ = 1;
    } else {
      ++plain_pages_;
    }
    chunk_values_ += page_entries_;
    chunk_rows_ += page_rows_;
    chunk_stats_.Merge(page_stats_);

    page_stats_.Reset();
    buf_.page_def.clear();
    buf_.page_rep.clear();
    buf_.page_indices.clear();
    buf_.page_values.clear();
    buf_.page_bools.clear();
    page_entries_ = 0;
    page_rows_ = 0;
    page_dict_mode_ = false;
    return Status::OK();
  }

  const LeafColumn& desc_;
  WriteContext* ctx_;
  const WriterOptions& options_;
  // The growable buffers (the open page's levels, indices and values; the chunk's pages; the
  // dictionary; scratch), recycled through the thread's BufferCache. Before dict_, which
  // keeps its storage here.
  RecycledBuffers buf_;
  DictionaryBuilder dict_;
  bool use_dict_;
  bool dict_probed_ = false;
  static constexpr int64_t kDictionaryProbeValues = 4096;
  int64_t value_cursor_ = 0;

  // The open page.
  int64_t page_entries_ = 0;
  int64_t page_rows_ = 0;
  bool page_dict_mode_ = false;
  ColumnStats page_stats_;

  // The chunk: data pages with headers, compressed (in buf_.pages_bytes).
  int64_t pages_uncompressed_ = 0;
  std::vector<PageInfo> pages_;
  int32_t dict_pages_ = 0;
  int32_t dict_data_pages_ = 0;
  int32_t plain_pages_ = 0;
  int64_t chunk_values_ = 0;
  int64_t chunk_rows_ = 0;
  ColumnStats chunk_stats_;
};

}  // namespace

namespace internal {

std::unique_ptr<ColumnWriter> ColumnWriter::Make(const LeafColumn& desc, WriteContext* ctx) {
  return std::make_unique<ColumnWriterImpl>(desc, ctx);
}

}  // namespace internal

}  // namespace floe::parquet
