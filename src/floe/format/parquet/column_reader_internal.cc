#include "floe/format/parquet/column_reader_internal.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include <zlib.h>

#include "floe/batch/utf8.h"

namespace floe::parquet::internal {
namespace {

// A decoder's views of a page or dictionary lie in one buffer, in order, between their
// lengths (PLAIN) or next to each other: when the bytes from the first value to the last
// are all ASCII (lengths under 128 are too), so are the values, and one pass over them
// replaces a check per value.
Status CheckUtf8(const ByteView* views, int64_t n, const char* where) {
  uintptr_t lo = UINTPTR_MAX;
  uintptr_t hi = 0;
  int64_t value_bytes = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (views[i].size == 0) continue;
    const auto begin = reinterpret_cast<uintptr_t>(views[i].data);
    lo = std::min(lo, begin);
    hi = std::max(hi, begin + static_cast<uintptr_t>(views[i].size));
    value_bytes += views[i].size;
  }
  if (value_bytes == 0) return Status::OK();
  // Only over a span of about the values and their lengths, never a wider one.
  if (hi - lo <= static_cast<uintptr_t>(value_bytes + 8 * n + 64) &&
      IsAscii(reinterpret_cast<const uint8_t*>(lo), hi - lo)) {
    return Status::OK();
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!IsValidUtf8(views[i].data, views[i].size)) {
      return Status::Corrupt("{} value {} of a STRING column is not valid UTF-8", where, i);
    }
  }
  return Status::OK();
}

// No page is decompressed to more than this, whatever its header says.
constexpr int64_t kMaxPageSize = int64_t{1} << 30;
// The Julian day of 1970-01-01.
constexpr int64_t kJulianEpochDay = 2440588;
constexpr int64_t kNanosPerDay = int64_t{86400} * 1000 * 1000 * 1000;

Result<compression::CodecKind> CodecOf(CompressionCodec codec) {
  using K = compression::CodecKind;
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return K::kUncompressed;
    case CompressionCodec::kSnappy:
      return K::kSnappy;
    case CompressionCodec::kGzip:
      return K::kGzip;
    case CompressionCodec::kBrotli:
      return K::kBrotli;
    case CompressionCodec::kLz4:
      return K::kLz4Hadoop;
    case CompressionCodec::kZstd:
      return K::kZstd;
    case CompressionCodec::kLz4Raw:
      return K::kLz4Raw;
    default:
      return Status::NotSupported("compression codec {} is not supported", static_cast<int>(codec));
  }
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {
      // Subnormal: normalise.
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400) == 0);
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Checks levels against `max_level` and counts those equal to it.
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

std::span<const uint8_t> Span(const uint8_t* data, int64_t size) {
  return {data, static_cast<size_t>(size)};
}

}  // namespace

bool BigEndianToInt128(const uint8_t* bytes, int64_t size, __int128* out) {
  if (size == 0) {
    *out = 0;
    return true;
  }
  uint8_t sign = (bytes[0] & 0x80) ? 0xff : 0;
  int64_t skip = 0;
  if (size > 16) {
    skip = size - 16;
    for (int64_t i = 0; i < skip; ++i) {
      if (bytes[i] != sign) return false;
    }
    if (((bytes[skip] & 0x80) ? 0xff : 0) != sign) return false;
  }
  unsigned __int128 v = sign ? ~static_cast<unsigned __int128>(0) : 0;
  for (int64_t i = skip; i < size; ++i) v = (v << 8) | bytes[i];
  *out = static_cast<__int128>(v);
  return true;
}

void ConvertFixed(const LeafInfo& leaf, const uint8_t* in, int64_t n, uint8_t* out) {
  if (n == 0) return;
  switch (leaf.conversion) {
    case Conversion::kNone:
      std::memcpy(out, in, static_cast<size_t>(n * leaf.out_width));
      break;
    case Conversion::kInt32ToInt8:
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(Load<int32_t>(in + 4 * i));
      break;
    case Conversion::kInt32ToInt16:
      for (int64_t i = 0; i < n; ++i) {
        Store(out + 2 * i, static_cast<int16_t>(Load<int32_t>(in + 4 * i)));
      }
      break;
    case Conversion::kUInt32ToInt64:
      for (int64_t i = 0; i < n; ++i) {
        Store(out + 8 * i, static_cast<int64_t>(Load<uint32_t>(in + 4 * i)));
      }
      break;
    case Conversion::kUInt64ToDecimal:
      for (int64_t i = 0; i < n; ++i) {
        Store(out + 16 * i, static_cast<__int128>(Load<uint64_t>(in + 8 * i)));
      }
      break;
    case Conversion::kInt32ToDecimal:
      for (int64_t i = 0; i < n; ++i) {
        Store(out + 16 * i, static_cast<__int128>(Load<int32_t>(in + 4 * i)));
      }
      break;
    case Conversion::kInt64ToDecimal:
      for (int64_t i = 0; i < n; ++i) {
        Store(out + 16 * i, static_cast<__int128>(Load<int64_t>(in + 8 * i)));
      }
      break;
    case Conversion::kBytesToDecimal: {
      // Only FIXED_LEN_BYTE_ARRAY reaches here; widths over 16 were checked by the caller.
      const int w = leaf.physical_width;
      for (int64_t i = 0; i < n; ++i) {
        __int128 v = 0;
        BigEndianToInt128(in + w * i, w, &v);
        Store(out + 16 * i, v);
      }
      break;
    }
    case Conversion::kInt32MillisToMicros:
      for (int64_t i = 0; i < n; ++i) {
        Store(out + 8 * i, static_cast<int64_t>(Load<int32_t>(in + 4 * i)) * 1000);
      }
      break;
    case Conversion::kInt64MillisToMicros:
      for (int64_t i = 0; i < n; ++i) {
        Store(out + 8 * i,
              static_cast<int64_t>(static_cast<uint64_t>(Load<int64_t>(in + 8 * i)) * 1000u));
      }
      break;
    case Conversion::kInt64NanosToMicros:
      for (int64_t i = 0; i < n; ++i) Store(out + 8 * i, Load<int64_t>(in + 8 * i) / 1000);
      break;
    case Conversion::kInt96ToNanos:
      // INT96: nanoseconds of the day (8 bytes LE), then the Julian day (4 bytes LE).
      for (int64_t i = 0; i < n; ++i) {
        uint64_t nanos = Load<uint64_t>(in + 12 * i);
        int64_t day = Load<int32_t>(in + 12 * i + 8);
        uint64_t v =
            static_cast<uint64_t>(day - kJulianEpochDay) * static_cast<uint64_t>(kNanosPerDay) +
            nanos;
        Store(out + 8 * i, static_cast<int64_t>(v));
      }
      break;
    case Conversion::kFloat16ToFloat32:
      for (int64_t i = 0; i < n; ++i) Store(out + 4 * i, HalfToFloat(Load<uint16_t>(in + 2 * i)));
      break;
  }
}

Result<std::unique_ptr<ColumnChunkReader>> ColumnChunkReader::Make(
    const LeafInfo& leaf, const ColumnMetaData& meta, BufferPtr chunk, int64_t chunk_offset,
    int64_t num_rows, std::string context) {
  std::unique_ptr<ColumnChunkReader> r(new ColumnChunkReader(leaf));
  FLOE_RETURN_NOT_OK(
      r->Restart(meta, std::move(chunk), chunk_offset, num_rows, std::move(context)));
  return r;
}

Status ColumnChunkReader::Restart(const ColumnMetaData& meta, BufferPtr chunk, int64_t chunk_offset,
                                  int64_t num_rows, std::string context) {
  chunk_ = std::move(chunk);
  chunk_offset_ = chunk_offset;
  num_rows_ = num_rows;
  context_ = std::move(context);
  pos_ = 0;
  page_offset_ = 0;
  page_number_ = -1;
  rows_seen_ = 0;
  first_level_ = true;
  selecting_ = false;
  ranges_.clear();
  range_ = 0;
  pages_.clear();
  next_page_ = 0;
  dictionary_checked_ = false;
  page_first_row_ = 0;
  has_dictionary_ = false;
  dict_size_ = 0;
  dict_max_length_ = 0;
  dict_same_length_ = -1;
  page_levels_ = 0;
  level_pos_ = 0;
  page_all_defined_ = true;
  page_has_def_ = false;
  page_values_ = 0;
  value_pos_ = 0;
  page_values_form_ = ValuesForm::kFinal;
  page_fixed_ = nullptr;
  page_views_ = nullptr;
  dict_decoded_ = 0;
  if (meta.type != leaf_.physical) {
    return Error(Status::Corrupt("chunk has physical type {}, the schema says {}",
                                 static_cast<int>(meta.type), static_cast<int>(leaf_.physical)));
  }
  auto kind = CodecOf(meta.codec);
  if (!kind.ok()) return Error(kind.status());
  if (*kind == compression::CodecKind::kUncompressed) {
    decompressor_.reset();
  } else if (!decompressor_ || codec_kind_ != *kind) {
    decompressor_.reset();
    auto d = compression::Decompressor::Make(*kind);
    if (!d.ok()) return Error(d.status());
    decompressor_ = std::move(*d);
  }
  codec_kind_ = *kind;
  return Status::OK();
}

ByteView* ColumnChunkReader::ReserveViews(int64_t n) {
  // Scratch memory comes from operator new[], aligned for ByteView.
  page_views_ = reinterpret_cast<ByteView*>(
      views_scratch_.Reserve(n * static_cast<int64_t>(sizeof(ByteView))));
  return page_views_;
}

Status ColumnChunkReader::Error(const Status& st) const {
  return st.WithPrefix(
      fmt::format("{}, page {} at byte offset {}: ", context_, page_number_, page_offset_));
}

Status ColumnChunkReader::Decompress(const uint8_t* in, int64_t in_size, int64_t out_size,
                                     uint8_t* out) {
  if (!decompressor_) {
    if (in_size != out_size) {
      return Status::Corrupt("uncompressed page has {} bytes but declares {}", in_size, out_size);
    }
    if (in_size > 0) std::memcpy(out, in, static_cast<size_t>(in_size));
    return Status::OK();
  }
  return decompressor_->Decompress({in, static_cast<size_t>(in_size)},
                                   {out, static_cast<size_t>(out_size)});
}

void ColumnChunkReader::SetStringFilter(std::vector<std::vector<std::string>> sets) {
  string_filter_ = std::move(sets);
}

bool ColumnChunkReader::PassesStringFilter(const uint8_t* data, int64_t size) const {
  for (const std::vector<std::string>& set : string_filter_) {
    bool any = false;
    for (const std::string& s : set) {
      if (static_cast<int64_t>(s.size()) == size &&
          (size == 0 || std::memcmp(s.data(), data, static_cast<size_t>(size)) == 0)) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  return true;
}

void ColumnChunkReader::AppendPass(const ByteView* views, int64_t k, LeafBatch* out) const {
  for (int64_t i = 0; i < k; ++i)
    out->pass.push_back(PassesStringFilter(views[i].data, views[i].size));
}

void ColumnChunkReader::SetRowSelection(std::vector<std::pair<int64_t, int64_t>> ranges,
                                        std::vector<PageLocation> pages) {
  selecting_ = true;
  ranges_ = std::move(ranges);
  pages_ = std::move(pages);
}

Result<std::vector<PageLocation>> ColumnChunkReader::LocateDataPages() const {
  const uint8_t* base = chunk_->data();
  const int64_t chunk_size = chunk_->size();
  std::vector<PageLocation> pages;
  int64_t rows = 0;
  for (int64_t pos = 0; pos < chunk_size && rows < num_rows_;) {
    PageHeader h;
    auto used = DecodeThrift({base + pos, static_cast<size_t>(chunk_size - pos)}, &h,
                             static_cast<uint64_t>(chunk_offset_ + pos));
    if (!used.ok()) {
      return used.status().WithPrefix(
          fmt::format("{}, page header at byte offset {}: ", context_, chunk_offset_ + pos));
    }
    const int64_t body = pos + static_cast<int64_t>(*used);
    const int64_t csize = h.compressed_page_size;
    if (csize < 0 || csize > chunk_size - body) {
      return Status::Corrupt(
          "{}, page at byte offset {} claims {} compressed bytes, but only {} remain in the "
          "column chunk",
          context_, chunk_offset_ + pos, csize, chunk_size - body);
    }
    std::optional<int64_t> page_rows;
    if (h.type == PageType::kDataPage && h.data_page_header) {
      page_rows = h.data_page_header->num_values;  // a flat column: one value per row
    } else if (h.type == PageType::kDataPageV2 && h.data_page_header_v2) {
      page_rows = h.data_page_header_v2->num_rows;
    } else if (h.type == PageType::kDataPage || h.type == PageType::kDataPageV2) {
      return Status::Corrupt("{}, page at byte offset {}: data page without its header", context_,
                             chunk_offset_ + pos);
    }
    if (page_rows) {
      if (*page_rows < 0 || *page_rows > num_rows_ - rows) {
        return Status::Corrupt(
            "{}, page at byte offset {} holds {} rows, more than the {} the row group has left",
            context_, chunk_offset_ + pos, *page_rows, num_rows_ - rows);
      }
      pages.push_back(
          PageLocation{chunk_offset_ + pos, static_cast<int32_t>(body + csize - pos), rows});
      rows += *page_rows;
    }
    pos = body + csize;
  }
  if (rows != num_rows_) {
    return Status::Corrupt("{}: the data pages hold {} rows, the row group {}", context_, rows,
                           num_rows_);
  }
  return pages;
}

Status ColumnChunkReader::SeekSelectedPage(bool* eof) {
  while (next_page_ < pages_.size()) {
    const PageLocation& loc = pages_[next_page_];
    int64_t end =
        next_page_ + 1 < pages_.size() ? pages_[next_page_ + 1].first_row_index : num_rows_;
    while (range_ < ranges_.size() && ranges_[range_].second <= loc.first_row_index) ++range_;
    if (range_ == ranges_.size()) break;
    ++next_page_;
    if (ranges_[range_].first < end) {
      int64_t at = loc.offset - chunk_offset_;
      if (at < 0 || at >= chunk_->size() || loc.first_row_index < 0 ||
          loc.first_row_index > num_rows_) {
        return Error(Status::Corrupt("offset index page at {} (row {}) is outside the chunk",
                                     loc.offset, loc.first_row_index));
      }
      pos_ = at;
      rows_seen_ = loc.first_row_index;
      page_first_row_ = loc.first_row_index;
      return Status::OK();
    }
  }
  *eof = true;
  return Status::OK();
}

Status ColumnChunkReader::NextPage(bool* eof) {
  const uint8_t* base = chunk_->data();
  const int64_t chunk_size = chunk_->size();
  while (true) {
    if (selecting_) {
      // Visit the dictionary page (before the first data page) first, then only the
      // data pages that hold selected rows.
      bool dictionary_first =
          !dictionary_checked_ && !pages_.empty() && pages_[0].offset > chunk_offset_ + pos_;
      dictionary_checked_ = true;
      if (dictionary_first) {
        page_number_ = 0;
      } else {
        bool done = false;
        FLOE_RETURN_NOT_OK(SeekSelectedPage(&done));
        if (done) {
          *eof = true;
          return Status::OK();
        }
        // The offset index lists the data pages; a dictionary page comes before them.
        const bool has_dictionary_page = pages_[0].offset > chunk_offset_;
        page_number_ = static_cast<int64_t>(next_page_) - 1 + (has_dictionary_page ? 1 : 0);
      }
    } else {
      ++page_number_;
    }
    if (pos_ >= chunk_size) {
      *eof = true;
      return Status::OK();
    }
    page_offset_ = chunk_offset_ + pos_;
    PageHeader h;
    auto used = DecodeThrift({base + pos_, static_cast<size_t>(chunk_size - pos_)}, &h,
                             static_cast<uint64_t>(page_offset_));
    if (!used.ok()) return Error(used.status().WithPrefix("page header: "));
    int64_t body = pos_ + static_cast<int64_t>(*used);
    int64_t csize = h.compressed_page_size;
    int64_t usize = h.uncompressed_page_size;
    if (csize < 0 || csize > chunk_size - body) {
      return Error(
          Status::Corrupt("page claims {} compressed bytes, but only {} remain in the column chunk",
                          csize, chunk_size - body));
    }
    if (usize < 0 || usize > kMaxPageSize) {
      return Error(Status::Corrupt("page claims {} uncompressed bytes", usize));
    }
    pos_ = body + csize;
    const uint8_t* data = base + body;
    if (h.crc.has_value() && verify_checksums_) {
      // parquet.thrift: the CRC-32 (java.util.zip.CRC32's) of the page's bytes after its
      // header, as stored (compressed).
      const auto computed = static_cast<uint32_t>(crc32_z(0, data, static_cast<size_t>(csize)));
      if (computed != static_cast<uint32_t>(*h.crc)) {
        return Error(Status::Corrupt(
            "page checksum mismatch: the header says CRC-32 {:08x}, the page's {} bytes give "
            "{:08x}",
            static_cast<uint32_t>(*h.crc), csize, computed));
      }
    }
    switch (h.type) {
      case PageType::kDictionaryPage: {
        if (!h.dictionary_page_header) {
          return Error(Status::Corrupt("dictionary page without its header"));
        }
        if (has_dictionary_) return Error(Status::Corrupt("second dictionary page in the chunk"));
        uint8_t* out = page_buf_.Reserve(usize);
        FLOE_RETURN_NOT_OK(Error(Decompress(data, csize, usize, out)));
        FLOE_RETURN_NOT_OK(Error(ReadDictionary(h, out, usize)));
        continue;
      }
      case PageType::kDataPage:
      case PageType::kDataPageV2:
        FLOE_RETURN_NOT_OK(Error(ReadDataPage(h, data, csize)));
        if (page_levels_ == 0) continue;
        *eof = false;
        return Status::OK();
      default:
        continue;  // Index pages and page types of newer writers carry no values.
    }
  }
}

Status ColumnChunkReader::ReadDictionary(const PageHeader& h, const uint8_t* data, int64_t size) {
  const DictionaryPageHeader& d = *h.dictionary_page_header;
  if (d.encoding != Encoding::kPlain && d.encoding != Encoding::kPlainDictionary) {
    return Status::NotSupported("dictionary page encoding {}", static_cast<int>(d.encoding));
  }
  int64_t n = d.num_values;
  if (n < 0) return Status::Corrupt("dictionary page has {} values", n);
  if (leaf_.physical == Type::kBoolean) {
    return Status::NotSupported("dictionary-encoded BOOLEAN column");
  }
  if (leaf_.physical == Type::kByteArray) {
    if (n > size / 4) {
      return Status::Corrupt("dictionary page claims {} byte arrays in {} bytes", n, size);
    }
    // Views into the page buffer, which the next page overwrites: the bytes are copied
    // into dict_bytes_ below.
    ByteView* views = ReserveViews(n);
    PlainByteArrayDecoder decoder;
    decoder.Init(Span(data, size));
    FLOE_RETURN_NOT_OK(decoder.DecodeViews(views, n));
    if (leaf_.conversion == Conversion::kBytesToDecimal) {
      dict_fixed_.resize(static_cast<size_t>(n) * 16);
      for (int64_t i = 0; i < n; ++i) {
        __int128 v;
        if (!BigEndianToInt128(views[i].data, views[i].size, &v)) {
          return Status::Corrupt("decimal dictionary value {} does not fit in 128 bits", i);
        }
        Store(dict_fixed_.data() + 16 * i, v);
      }
    } else {
      // A STRING dictionary is checked once here; its pages then only gather.
      if (leaf_.type->id() == TypeId::kString) {
        FLOE_RETURN_NOT_OK(CheckUtf8(views, n, "dictionary"));
      }
      // The values' bytes are fewer than the page's (each has a 4-byte length too), and
      // the page holds at most kMaxPageSize bytes: offsets fit in int32.
      int64_t total = 0;
      int64_t longest = 0;
      for (int64_t i = 0; i < n; ++i) {
        total += views[i].size;
        longest = std::max(longest, views[i].size);
      }
      dict_offsets_.resize(static_cast<size_t>(n) + 1);
      dict_bytes_.resize(static_cast<size_t>(total + kGatherSlack));
      int32_t off = 0;
      dict_offsets_[0] = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (views[i].size > 0) {
          std::memcpy(dict_bytes_.data() + off, views[i].data, static_cast<size_t>(views[i].size));
        }
        off += static_cast<int32_t>(views[i].size);
        dict_offsets_[static_cast<size_t>(i) + 1] = off;
      }
      dict_max_length_ = longest;
      dict_same_length_ = n > 0 && total == longest * n ? longest : -1;
      if (!string_filter_.empty()) {
        dict_pass_.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          dict_pass_[static_cast<size_t>(i)] = PassesStringFilter(views[i].data, views[i].size);
        }
      }
    }
    page_views_ = nullptr;
  } else {
    const int w = leaf_.physical_width;
    PlainFixedLenDecoder decoder;
    FLOE_RETURN_NOT_OK(decoder.Init(Span(data, size), w));
    auto values = decoder.Next(n);
    if (!values.ok()) return values.status().WithPrefix("dictionary page: ");
    data = *values;
    if (leaf_.conversion == Conversion::kBytesToDecimal && w > 16) {
      for (int64_t i = 0; i < n; ++i) {
        __int128 v;
        if (!BigEndianToInt128(data + i * w, w, &v)) {
          return Status::Corrupt("decimal dictionary value {} does not fit in 128 bits", i);
        }
      }
    }
    dict_fixed_.resize(static_cast<size_t>(n * leaf_.out_width));
    ConvertFixed(leaf_, data, n, dict_fixed_.data());
  }
  dict_size_ = n;
  has_dictionary_ = true;
  return Status::OK();
}

Status ColumnChunkReader::DecodeLevels(Encoding encoding, int bit_width, const uint8_t* data,
                                       int64_t size, int64_t n, bool v2, std::vector<int16_t>* out,
                                       int64_t* consumed, int16_t all_value, bool* all_equal) {
  if (all_equal) *all_equal = false;
  std::span<const uint8_t> bytes = Span(data, size);
  if (encoding == Encoding::kBitPacked && !v2) {
    int64_t used = BitPackedLevelsSize(n, bit_width);
    if (used > size) return Status::Corrupt("BIT_PACKED levels run past the page");
    *consumed = used;
    out->resize(static_cast<size_t>(n));
    return DecodeBitPackedLevels(bytes.first(static_cast<size_t>(used)), bit_width, out->data(), n);
  }
  if (encoding != Encoding::kRle) {
    return Status::NotSupported("level encoding {}", static_cast<int>(encoding));
  }
  if (v2) {
    *consumed = size;
  } else {
    auto runs = ReadLengthPrefixed(bytes, consumed);
    if (!runs.ok()) return runs.status().WithPrefix("levels: ");
    bytes = *runs;
  }
  RleBitPackedDecoder decoder;
  FLOE_RETURN_NOT_OK(decoder.Init(bytes, bit_width));
  // Pages without nulls are RLE runs of `all_value`: take them without materialising them.
  int64_t done = 0;
  if (all_equal) {
    while (done < n) {
      auto repeated = decoder.ConsumeRepeated(all_value, n - done);
      if (!repeated.ok()) return repeated.status().WithPrefix("levels: ");
      if (*repeated == 0) break;
      done += *repeated;
    }
    if (done == n) {
      *all_equal = true;
      return Status::OK();
    }
  }
  out->resize(static_cast<size_t>(n));
  std::fill(out->begin(), out->begin() + done, all_value);
  Status st = decoder.Decode(out->data() + done, n - done);
  if (!st.ok()) return st.WithPrefix("levels: ");
  return Status::OK();
}

Status ColumnChunkReader::ReadDataPage(const PageHeader& h, const uint8_t* body,
                                       int64_t body_size) {
  const bool v2 = h.type == PageType::kDataPageV2;
  int64_t n;
  Encoding value_encoding;
  if (v2) {
    if (!h.data_page_header_v2) return Status::Corrupt("data page v2 without its header");
    n = h.data_page_header_v2->num_values;
    value_encoding = h.data_page_header_v2->encoding;
  } else {
    if (!h.data_page_header) return Status::Corrupt("data page without its header");
    n = h.data_page_header->num_values;
    value_encoding = h.data_page_header->encoding;
  }
  int64_t usize = h.uncompressed_page_size;
  // Bound the level count before allocating: a flat column has one entry per row, and
  // no page of a nested column holds more entries than 64 per byte (plus slack for
  // pages of RLE-compressed nulls).
  int64_t max_levels =
      leaf_.max_rep == 0 ? num_rows_ - rows_seen_ : std::max<int64_t>(int64_t{1} << 20, usize * 64);
  if (n < 0 || n > max_levels) {
    return Status::Corrupt("data page claims {} values, at most {} possible", n, max_levels);
  }
  const int def_bw = std::bit_width(static_cast<uint32_t>(leaf_.max_def));
  const int rep_bw = std::bit_width(static_cast<uint32_t>(leaf_.max_rep));

  const uint8_t* values;
  int64_t values_size;
  bool def_all_max = false;
  if (v2) {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    int64_t rl = d.repetition_levels_byte_length;
    int64_t dl = d.definition_levels_byte_length;
    if (rl < 0 || dl < 0 || rl + dl > body_size || rl + dl > usize) {
      return Status::Corrupt("v2 level lengths {} + {} exceed the page's {} bytes", rl, dl,
                             std::min(body_size, usize));
    }
    if (leaf_.max_rep > 0) {
      int64_t c;
      FLOE_RETURN_NOT_OK(DecodeLevels(Encoding::kRle, rep_bw, body, rl, n, true, &rep_, &c));
    }
    if (leaf_.max_def > 0) {
      int64_t c;
      FLOE_RETURN_NOT_OK(DecodeLevels(Encoding::kRle, def_bw, body + rl, dl, n, true, &def_, &c,
                                      leaf_.max_def, &def_all_max));
    }
    const uint8_t* vsrc = body + rl + dl;
    int64_t vcsize = body_size - rl - dl;
    int64_t vusize = usize - rl - dl;
    if (d.values_compressed() && decompressor_) {
      uint8_t* out = page_buf_.Reserve(vusize);
      FLOE_RETURN_NOT_OK(Decompress(vsrc, vcsize, vusize, out));
      values = out;
      values_size = vusize;
    } else {
      values = vsrc;
      values_size = vcsize;
    }
  } else {
    uint8_t* out = page_buf_.Reserve(usize);
    FLOE_RETURN_NOT_OK(Decompress(body, body_size, usize, out));
    const uint8_t* p = out;
    int64_t left = usize;
    const DataPageHeader& d = *h.data_page_header;
    if (leaf_.max_rep > 0) {
      int64_t c;
      FLOE_RETURN_NOT_OK(
          DecodeLevels(d.repetition_level_encoding, rep_bw, p, left, n, false, &rep_, &c));
      p += c;
      left -= c;
    }
    if (leaf_.max_def > 0) {
      int64_t c;
      FLOE_RETURN_NOT_OK(DecodeLevels(d.definition_level_encoding, def_bw, p, left, n, false, &def_,
                                      &c, leaf_.max_def, &def_all_max));
      p += c;
      left -= c;
    }
    values = p;
    values_size = left;
  }

  int64_t present = n;
  page_has_def_ = leaf_.max_def > 0 && !def_all_max;
  if (page_has_def_) FLOE_RETURN_NOT_OK(CheckLevels(def_.data(), n, leaf_.max_def, &present));
  if (leaf_.max_rep > 0) {
    int64_t unused;
    FLOE_RETURN_NOT_OK(CheckLevels(rep_.data(), n, leaf_.max_rep, &unused));
    if (first_level_ && n > 0 && rep_[0] != 0) {
      return Status::Corrupt("the column chunk starts with repetition level {}, not 0", rep_[0]);
    }
    for (int64_t i = 0; i < n; ++i) rows_seen_ += rep_[i] == 0;
  } else {
    rows_seen_ += n;
  }
  if (n > 0) first_level_ = false;
  page_all_defined_ = present == n;
  page_levels_ = n;
  level_pos_ = 0;
  page_values_ = present;
  value_pos_ = 0;
  return DecodeValues(value_encoding, values, values_size, present);
}

Status ColumnChunkReader::FinishFixed(const uint8_t* physical, int64_t n) {
  if (leaf_.conversion == Conversion::kNone) {
    page_fixed_ = physical;
    return Status::OK();
  }
  if (leaf_.conversion == Conversion::kBytesToDecimal && leaf_.physical_width > 16) {
    for (int64_t i = 0; i < n; ++i) {
      __int128 v;
      if (!BigEndianToInt128(physical + i * leaf_.physical_width, leaf_.physical_width, &v)) {
        return Status::Corrupt("decimal value {} does not fit in 128 bits", i);
      }
    }
  }
  // Converted batch by batch straight into the output (AppendValues).
  page_fixed_ = physical;
  page_values_form_ = ValuesForm::kPhysical;
  return Status::OK();
}

Status ColumnChunkReader::FinishViews(int64_t n) {
  if (leaf_.type->id() == TypeId::kString) {
    return CheckUtf8(page_views_, n, "page");
  }
  if (leaf_.conversion != Conversion::kBytesToDecimal) return Status::OK();
  uint8_t* out = convert_scratch_.Reserve(n * 16);
  for (int64_t i = 0; i < n; ++i) {
    __int128 v;
    if (!BigEndianToInt128(page_views_[i].data, page_views_[i].size, &v)) {
      return Status::Corrupt("decimal value {} does not fit in 128 bits", i);
    }
    Store(out + 16 * i, v);
  }
  page_fixed_ = out;
  return Status::OK();
}

Status ColumnChunkReader::DecodeValues(Encoding encoding, const uint8_t* data, int64_t size,
                                       int64_t n) {
  const Type t = leaf_.physical;
  const int w = leaf_.physical_width;
  const std::span<const uint8_t> bytes = Span(data, size);
  page_values_form_ = ValuesForm::kFinal;
  switch (encoding) {
    case Encoding::kPlain: {
      if (t == Type::kBoolean) {
        // Booleans stay bit-packed, as floe stores them.
        PlainBooleanDecoder decoder;
        decoder.Init(bytes);
        int64_t bit_offset = 0;
        FLOE_ASSIGN_OR_RAISE(page_fixed_, decoder.NextBits(n, &bit_offset));
        FLOE_DCHECK(bit_offset == 0);
        return Status::OK();
      }
      if (t == Type::kByteArray) {
        if (n > size / 4) {
          return Status::Corrupt("PLAIN byte arrays: {} values in {} bytes", n, size);
        }
        ReserveViews(n);
        PlainByteArrayDecoder decoder;
        decoder.Init(bytes);
        FLOE_RETURN_NOT_OK(decoder.DecodeViews(page_views_, n));
        return FinishViews(n);
      }
      // Fixed width: the values are used where they are in the page.
      PlainFixedLenDecoder decoder;
      FLOE_RETURN_NOT_OK(decoder.Init(bytes, w));
      FLOE_ASSIGN_OR_RAISE(const uint8_t* values, decoder.Next(n));
      return FinishFixed(values, n);
    }
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary: {
      if (!has_dictionary_) return Status::Corrupt("dictionary-encoded page without a dictionary");
      if (n == 0) return Status::OK();
      // The dictionary size is bounded by its page's size (at most 1 GiB).
      Status st = dict_decoder_.Init(bytes, static_cast<int32_t>(dict_size_));
      if (!st.ok()) return st.WithPrefix("dictionary indices: ");
      dict_decoded_ = 0;
      // Indices are decoded and gathered batch by batch straight into the output
      // (AppendValues).
      page_values_form_ = ValuesForm::kDictionaryIndices;
      return Status::OK();
    }
    case Encoding::kRle: {
      if (t != Type::kBoolean) return Status::Corrupt("RLE encoding on a non-boolean column");
      int64_t used = 0;
      auto runs = ReadLengthPrefixed(bytes, &used);
      if (!runs.ok()) return runs.status().WithPrefix("RLE booleans: ");
      RleBitPackedDecoder decoder;
      FLOE_RETURN_NOT_OK(decoder.Init(*runs, 1));
      uint8_t* values = convert_scratch_.Reserve(n);
      FLOE_RETURN_NOT_OK(decoder.Decode(values, n));
      const int64_t bytes_of_bits = bit_util::BytesForBits(n);
      uint8_t* bits = value_scratch_.Reserve(bytes_of_bits);
      // A page of no values reserves nothing (no buffer to clear).
      if (bytes_of_bits > 0) std::memset(bits, 0, static_cast<size_t>(bytes_of_bits));
      for (int64_t i = 0; i < n; ++i) {
        if (values[i]) bit_util::SetBit(bits, i);
      }
      page_fixed_ = bits;
      return Status::OK();
    }
    case Encoding::kDeltaBinaryPacked: {
      if (t == Type::kInt32) return DecodeDelta<int32_t>(bytes, n);
      if (t == Type::kInt64) return DecodeDelta<int64_t>(bytes, n);
      return Status::Corrupt("DELTA_BINARY_PACKED on physical type {}", static_cast<int>(t));
    }
    case Encoding::kDeltaLengthByteArray:
    case Encoding::kDeltaByteArray: {
      if (t != Type::kByteArray && t != Type::kFixedLenByteArray) {
        return Status::Corrupt("byte-array delta encoding on physical type {}",
                               static_cast<int>(t));
      }
      int64_t stated;
      if (encoding == Encoding::kDeltaLengthByteArray) {
        FLOE_RETURN_NOT_OK(delta_length_decoder_.Init(bytes, n));
        stated = delta_length_decoder_.total_values();
      } else {
        FLOE_RETURN_NOT_OK(delta_byte_array_decoder_.Init(bytes, n));
        stated = delta_byte_array_decoder_.total_values();
      }
      if (stated != n) {
        return Status::Corrupt("byte-array delta encoding has {} values, {} expected", stated, n);
      }
      ReserveViews(n);
      if (encoding == Encoding::kDeltaLengthByteArray) {
        FLOE_RETURN_NOT_OK(delta_length_decoder_.DecodeViews(page_views_, n));
      } else {
        FLOE_RETURN_NOT_OK(delta_byte_array_decoder_.DecodeViews(page_views_, n, &rebuilt_));
      }
      if (t == Type::kFixedLenByteArray) {
        uint8_t* out = value_scratch_.Reserve(n * w);
        for (int64_t i = 0; i < n; ++i) {
          if (page_views_[i].size != w) {
            return Status::Corrupt("FIXED_LEN_BYTE_ARRAY value {} has {} bytes, not {}", i,
                                   page_views_[i].size, w);
          }
          std::memcpy(out + i * w, page_views_[i].data, static_cast<size_t>(w));
        }
        return FinishFixed(out, n);
      }
      return FinishViews(n);
    }
    case Encoding::kByteStreamSplit: {
      if (w == 0) {
        return Status::Corrupt("BYTE_STREAM_SPLIT on physical type {}", static_cast<int>(t));
      }
      ByteStreamSplitDecoder decoder;
      FLOE_RETURN_NOT_OK(decoder.Init(bytes, w));
      // Checked before sizing the output by `n`.
      if (n > decoder.total_values()) {
        return Status::Corrupt("BYTE_STREAM_SPLIT: {} values of {} bytes in {} bytes", n, w, size);
      }
      uint8_t* out = value_scratch_.Reserve(n * w);
      FLOE_RETURN_NOT_OK(decoder.Decode(out, n));
      return FinishFixed(out, n);
    }
    default:
      return Status::NotSupported("value encoding {}", static_cast<int>(encoding));
  }
}

template <typename T>
Status ColumnChunkReader::DecodeDelta(std::span<const uint8_t> bytes, int64_t n) {
  DeltaBinaryPackedDecoder<T> decoder;
  FLOE_RETURN_NOT_OK(decoder.Init(bytes));
  if (decoder.total_values() != n) {
    return Status::Corrupt("DELTA_BINARY_PACKED has {} values, {} expected", decoder.total_values(),
                           n);
  }
  uint8_t* out = value_scratch_.Reserve(n * static_cast<int64_t>(sizeof(T)));
  // Scratch memory comes from operator new[], aligned for any T.
  FLOE_RETURN_NOT_OK(decoder.Decode(reinterpret_cast<T*>(out), n));
  return FinishFixed(out, n);
}

Result<const int32_t*> ColumnChunkReader::NextIndices(int64_t k) {
  Status st;
  if (value_pos_ > dict_decoded_) {
    // Values a row selection skipped.
    st = dict_decoder_.rle().Skip(value_pos_ - dict_decoded_);
    dict_decoded_ = value_pos_;
  }
  // Scratch memory comes from operator new[], aligned for int32_t.
  int32_t* indices = reinterpret_cast<int32_t*>(index_scratch_.Reserve(k * 4));
  if (st.ok()) st = dict_decoder_.Decode(indices, k);
  if (!st.ok()) return st.WithPrefix("dictionary indices: ");
  dict_decoded_ += k;
  return indices;
}

Status ColumnChunkReader::AppendDictionaryStrings(const int32_t* indices, int64_t k,
                                                  LeafBatch* out) {
  const int32_t* dict_offsets = dict_offsets_.data();
  const uint8_t* dict_bytes = dict_bytes_.data();
  const int64_t base = out->data.size();
  // At most k * dict_max_length_ bytes; the exact sum only when that bound is too large.
  int64_t bound = k * dict_max_length_;
  if (base + bound > std::numeric_limits<int32_t>::max()) {
    bound = 0;
    for (int64_t i = 0; i < k; ++i) {
      bound += dict_offsets[indices[i] + 1] - dict_offsets[indices[i]];
    }
    if (base + bound > std::numeric_limits<int32_t>::max()) {
      return Status::NotSupported(
          "a batch of column '{}' would hold more than 2^31 bytes; lower batch_size", leaf_.path);
    }
  }
  FLOE_RETURN_NOT_OK(out->data.Reserve(bound + kGatherSlack));
  FLOE_RETURN_NOT_OK(out->offsets.Reserve(k * 4));
  uint8_t* data = out->data.mutable_data();
  int32_t* offsets = reinterpret_cast<int32_t*>(out->offsets.mutable_data() + out->offsets.size());
  int32_t off = static_cast<int32_t>(base);
  if (dict_same_length_ == 1) {
    // Single bytes (flags): entry i is byte i.
    uint8_t* dst = data + base;
    for (int64_t i = 0; i < k; ++i) dst[i] = dict_bytes[indices[i]];
    for (int64_t i = 0; i < k; ++i) offsets[i] = off + static_cast<int32_t>(i + 1);
    off += static_cast<int32_t>(k);
  } else if (dict_same_length_ >= 0 && dict_same_length_ <= kGatherSlack) {
    // Entries of one length: entry i starts at byte i * length, offsets step evenly.
    const int32_t length = static_cast<int32_t>(dict_same_length_);
    uint8_t* dst = data + base;
    for (int64_t i = 0; i < k; ++i) {
      std::memcpy(dst + i * length, dict_bytes + int64_t{indices[i]} * length, kGatherSlack);
    }
    for (int64_t i = 0; i < k; ++i) offsets[i] = off + static_cast<int32_t>((i + 1) * length);
    off += static_cast<int32_t>(k * length);
  } else if (dict_max_length_ <= kGatherSlack) {
    // Whole 16-byte words: both the dictionary and the output have the slack.
    for (int64_t i = 0; i < k; ++i) {
      const int32_t begin = dict_offsets[indices[i]];
      std::memcpy(data + off, dict_bytes + begin, kGatherSlack);
      off += dict_offsets[indices[i] + 1] - begin;
      offsets[i] = off;
    }
  } else {
    for (int64_t i = 0; i < k; ++i) {
      const int32_t begin = dict_offsets[indices[i]];
      const int32_t length = dict_offsets[indices[i] + 1] - begin;
      std::memcpy(data + off, dict_bytes + begin, static_cast<size_t>(length));
      off += length;
      offsets[i] = off;
    }
  }
  out->data.UnsafeAdvance(off - base);
  out->offsets.UnsafeAdvance(k * 4);
  return Status::OK();
}

Status ColumnChunkReader::AppendValues(int64_t k, LeafBatch* out) {
  if (k == 0) return Status::OK();
  if (leaf_.out_width == 0) {
    int64_t bits = out->num_values + k;
    FLOE_RETURN_NOT_OK(out->values.Resize(bit_util::BytesForBits(bits)));
    bit_util::CopyBitmap(page_fixed_, value_pos_, k, out->values.mutable_data(), out->num_values);
  } else if (leaf_.out_width > 0) {
    const int w = leaf_.out_width;
    FLOE_RETURN_NOT_OK(out->values.Reserve(k * w));
    uint8_t* dst = out->values.mutable_data() + out->values.size();
    switch (page_values_form_) {
      case ValuesForm::kFinal:
        std::memcpy(dst, page_fixed_ + value_pos_ * w, static_cast<size_t>(k * w));
        break;
      case ValuesForm::kPhysical:
        ConvertFixed(leaf_, page_fixed_ + value_pos_ * leaf_.physical_width, k, dst);
        break;
      case ValuesForm::kDictionaryIndices: {
        FLOE_ASSIGN_OR_RAISE(const int32_t* indices, NextIndices(k));
        GatherDictionary(dict_fixed_.data(), w, indices, k, dst);
        break;
      }
    }
    out->values.UnsafeAdvance(k * w);
  } else {
    if (out->offsets.size() == 0) FLOE_RETURN_NOT_OK(out->offsets.AppendValue<int32_t>(0));
    if (page_values_form_ == ValuesForm::kDictionaryIndices) {
      FLOE_ASSIGN_OR_RAISE(const int32_t* indices, NextIndices(k));
      FLOE_RETURN_NOT_OK(AppendDictionaryStrings(indices, k, out));
      if (!string_filter_.empty()) {
        const size_t at = out->pass.size();
        out->pass.resize(at + static_cast<size_t>(k));
        uint8_t* pass = out->pass.data() + at;
        const uint8_t* verdict = dict_pass_.data();
        for (int64_t i = 0; i < k; ++i) pass[i] = verdict[indices[i]];
      }
    } else {
      if (!string_filter_.empty()) AppendPass(page_views_ + value_pos_, k, out);
      int64_t total = 0;
      const ByteView* v = page_views_ + value_pos_;
      for (int64_t i = 0; i < k; ++i) total += v[i].size;
      int64_t base = out->data.size();
      if (base + total > std::numeric_limits<int32_t>::max()) {
        return Status::NotSupported(
            "a batch of column '{}' would hold more than 2^31 bytes; lower batch_size", leaf_.path);
      }
      FLOE_RETURN_NOT_OK(out->data.Reserve(total));
      FLOE_RETURN_NOT_OK(out->offsets.Reserve(k * 4));
      int32_t off = static_cast<int32_t>(base);
      for (int64_t i = 0; i < k; ++i) {
        out->data.UnsafeAppend(v[i].data, v[i].size);
        off += static_cast<int32_t>(v[i].size);
        out->offsets.UnsafeAppendValue<int32_t>(off);
      }
    }
  }
  out->num_values += k;
  value_pos_ += k;
  return Status::OK();
}

Result<int64_t> ColumnChunkReader::ReadRecords(int64_t max_records, LeafBatch* out) {
  int64_t got = 0;
  const bool nested = leaf_.max_rep > 0;
  const int16_t max_def = leaf_.max_def;
  while (true) {
    if (level_pos_ == page_levels_) {
      if (!nested && got == max_records) break;
      bool eof = false;
      FLOE_RETURN_NOT_OK(NextPage(&eof));
      if (eof) break;
    }
    if (selecting_) {
      if (got == max_records) break;
      // Skip the rows of this page outside the selected ranges.
      const int64_t row = page_first_row_ + level_pos_;
      while (range_ < ranges_.size() && ranges_[range_].second <= row) ++range_;
      int64_t skip = range_ == ranges_.size()
                         ? page_levels_ - level_pos_
                         : std::min(ranges_[range_].first - row, page_levels_ - level_pos_);
      if (skip > 0) {
        int64_t present = skip;
        if (page_has_def_) {
          present = 0;
          const int16_t* d = def_.data() + level_pos_;
          for (int64_t i = 0; i < skip; ++i) present += d[i] == max_def;
        }
        if (present > page_values_ - value_pos_) {
          return Error(Status::Corrupt("page has fewer values than its levels need"));
        }
        level_pos_ += skip;
        value_pos_ += present;
        continue;
      }
    }
    int64_t take;
    bool done = false;
    if (nested) {
      int64_t i = level_pos_;
      while (i < page_levels_) {
        if (rep_[i] == 0) {
          if (got == max_records) {
            done = true;
            break;
          }
          ++got;
        }
        ++i;
      }
      take = i - level_pos_;
    } else {
      take = std::min(max_records - got, page_levels_ - level_pos_);
      if (selecting_) {
        take = std::min(take, ranges_[range_].second - (page_first_row_ + level_pos_));
      }
      got += take;
      done = got == max_records;
    }
    int64_t present = take;
    if (max_def > 0 && (nested || !page_all_defined_ || out->def_materialized)) {
      if (!out->def_materialized) {
        out->def.assign(static_cast<size_t>(out->num_levels), max_def);
        out->def_materialized = true;
      }
      if (page_has_def_) {
        const int16_t* d = def_.data() + level_pos_;
        out->def.insert(out->def.end(), d, d + take);
        if (!page_all_defined_) {
          present = 0;
          for (int64_t i = 0; i < take; ++i) present += d[i] == max_def;
        }
      } else {
        out->def.insert(out->def.end(), static_cast<size_t>(take), max_def);
      }
    }
    if (nested) {
      out->rep.insert(out->rep.end(), rep_.data() + level_pos_, rep_.data() + level_pos_ + take);
    }
    out->num_levels += take;
    level_pos_ += take;
    if (present > page_values_ - value_pos_) {
      return Error(Status::Corrupt("page has fewer values than its levels need"));
    }
    FLOE_RETURN_NOT_OK(Error(AppendValues(present, out)));
    if (done) break;
  }
  return got;
}

namespace {

// ConvertFixed of the values at `picks` (offsets into `in`, in physical values).
void ConvertFixedPicked(const LeafInfo& leaf, const uint8_t* in, const int32_t* picks, int64_t m,
                        uint8_t* out) {
  const int64_t pw = leaf.physical_width;
  switch (leaf.conversion) {
    case Conversion::kInt32ToDecimal:
      for (int64_t i = 0; i < m; ++i) {
        Store(out + 16 * i, static_cast<__int128>(Load<int32_t>(in + 4 * int64_t{picks[i]})));
      }
      break;
    case Conversion::kInt64ToDecimal:
      for (int64_t i = 0; i < m; ++i) {
        Store(out + 16 * i, static_cast<__int128>(Load<int64_t>(in + 8 * int64_t{picks[i]})));
      }
      break;
    default:
      for (int64_t i = 0; i < m; ++i) {
        ConvertFixed(leaf, in + pw * picks[i], 1, out + int64_t{leaf.out_width} * i);
      }
      break;
  }
}

}  // namespace

Status ColumnChunkReader::AppendPicked(int64_t present, int32_t* picks, int64_t m, LeafBatch* out) {
  if (m > 0) {
    if (leaf_.out_width == 0) {
      FLOE_RETURN_NOT_OK(out->values.Resize(bit_util::BytesForBits(out->num_values + m)));
      uint8_t* bits = out->values.mutable_data();
      for (int64_t i = 0; i < m; ++i) {
        bit_util::SetBitTo(bits, out->num_values + i,
                           bit_util::GetBit(page_fixed_, value_pos_ + picks[i]));
      }
    } else if (page_values_form_ == ValuesForm::kDictionaryIndices) {
      FLOE_ASSIGN_OR_RAISE(const int32_t* indices, NextIndices(present));
      for (int64_t i = 0; i < m; ++i) picks[i] = indices[picks[i]];
      if (leaf_.out_width > 0) {
        const int w = leaf_.out_width;
        FLOE_RETURN_NOT_OK(out->values.Reserve(m * w));
        GatherDictionary(dict_fixed_.data(), w, picks, m,
                         out->values.mutable_data() + out->values.size());
        out->values.UnsafeAdvance(m * w);
      } else {
        if (out->offsets.size() == 0) FLOE_RETURN_NOT_OK(out->offsets.AppendValue<int32_t>(0));
        FLOE_RETURN_NOT_OK(AppendDictionaryStrings(picks, m, out));
        if (!string_filter_.empty()) {
          // The string filters' verdicts, from the dictionary's (as ReadRecords gives them).
          const uint8_t* verdict = dict_pass_.data();
          for (int64_t i = 0; i < m; ++i) out->pass.push_back(verdict[picks[i]]);
        }
      }
    } else if (leaf_.out_width > 0) {
      const int w = leaf_.out_width;
      FLOE_RETURN_NOT_OK(out->values.Reserve(m * w));
      uint8_t* dst = out->values.mutable_data() + out->values.size();
      if (page_values_form_ == ValuesForm::kFinal) {
        // A gather of fixed-width values by offset, as from a dictionary.
        GatherDictionary(page_fixed_ + value_pos_ * w, w, picks, m, dst);
      } else {
        ConvertFixedPicked(leaf_, page_fixed_ + value_pos_ * leaf_.physical_width, picks, m, dst);
      }
      out->values.UnsafeAdvance(m * w);
    } else {
      if (out->offsets.size() == 0) FLOE_RETURN_NOT_OK(out->offsets.AppendValue<int32_t>(0));
      const ByteView* v = page_views_ + value_pos_;
      int64_t total = 0;
      for (int64_t i = 0; i < m; ++i) total += v[picks[i]].size;
      int64_t base = out->data.size();
      if (base + total > std::numeric_limits<int32_t>::max()) {
        return Status::NotSupported(
            "a batch of column '{}' would hold more than 2^31 bytes; lower batch_size", leaf_.path);
      }
      FLOE_RETURN_NOT_OK(out->data.Reserve(total));
      FLOE_RETURN_NOT_OK(out->offsets.Reserve(m * 4));
      int32_t off = static_cast<int32_t>(base);
      for (int64_t i = 0; i < m; ++i) {
        const ByteView& e = v[picks[i]];
        out->data.UnsafeAppend(e.data, e.size);
        off += static_cast<int32_t>(e.size);
        out->offsets.UnsafeAppendValue<int32_t>(off);
        if (!string_filter_.empty()) out->pass.push_back(PassesStringFilter(e.data, e.size));
      }
    }
  }
  // Dictionary indices of values not kept are skipped when the next ones are decoded.
  out->num_values += m;
  value_pos_ += present;
  return Status::OK();
}

Result<int64_t> ColumnChunkReader::ReadSelected(int64_t rows, const int32_t* sel, int64_t count,
                                                LeafBatch* out) {
  FLOE_DCHECK(leaf_.max_rep == 0);
  const int16_t max_def = leaf_.max_def;
  int64_t got = 0;
  int64_t s = 0;  // The next entry of `sel`.
  while (got < rows) {
    if (level_pos_ == page_levels_) {
      bool eof = false;
      FLOE_RETURN_NOT_OK(NextPage(&eof));
      if (eof) break;
    }
    if (selecting_) {
      // Rows of this page outside the page index's ranges are not records of the batch.
      const int64_t row = page_first_row_ + level_pos_;
      while (range_ < ranges_.size() && ranges_[range_].second <= row) ++range_;
      int64_t skip = range_ == ranges_.size()
                         ? page_levels_ - level_pos_
                         : std::min(ranges_[range_].first - row, page_levels_ - level_pos_);
      if (skip > 0) {
        int64_t present = skip;
        if (page_has_def_) {
          present = 0;
          const int16_t* d = def_.data() + level_pos_;
          for (int64_t i = 0; i < skip; ++i) present += d[i] == max_def;
        }
        if (present > page_values_ - value_pos_) {
          return Error(Status::Corrupt("page has fewer values than its levels need"));
        }
        level_pos_ += skip;
        value_pos_ += present;
        continue;
      }
    }
    int64_t take = std::min(rows - got, page_levels_ - level_pos_);
    if (selecting_) {
      take = std::min(take, ranges_[range_].second - (page_first_row_ + level_pos_));
    }
    int64_t s_end = s;
    while (s_end < count && sel[s_end] < got + take) ++s_end;
    const int64_t kept = s_end - s;
    int32_t* picks = reinterpret_cast<int32_t*>(pick_scratch_.Reserve(kept * 4));
    int64_t present = take;
    int64_t m = kept;
    if (page_has_def_ && !page_all_defined_) {
      if (!out->def_materialized) {
        out->def.assign(static_cast<size_t>(out->num_levels), max_def);
        out->def_materialized = true;
      }
      const int16_t* d = def_.data() + level_pos_;
      present = 0;
      m = 0;
      int64_t j = s;
      for (int64_t i = 0; i < take; ++i) {
        const bool defined = d[i] == max_def;
        if (j < s_end && sel[j] - got == i) {
          out->def.push_back(d[i]);
          if (defined) picks[m++] = static_cast<int32_t>(present);
          ++j;
        }
        present += defined;
      }
    } else {
      for (int64_t j = s; j < s_end; ++j) picks[j - s] = static_cast<int32_t>(sel[j] - got);
      if (out->def_materialized)
        out->def.insert(out->def.end(), static_cast<size_t>(kept), max_def);
    }
    if (present > page_values_ - value_pos_) {
      return Error(Status::Corrupt("page has fewer values than its levels need"));
    }
    FLOE_RETURN_NOT_OK(Error(AppendPicked(present, picks, m, out)));
    out->num_levels += kept;
    level_pos_ += take;
    got += take;
    s = s_end;
  }
  return got;
}

}  // namespace floe::parquet::internal
