#pragma once

// A test-only builder of Parquet files from hand-made pages: footers through the
// metadata encoder, page bodies through the encoding encoders. It writes exactly what
// it is told, so tests can also build files that lie.

#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/format/compression/codec.h"
#include "floe/format/parquet/encoding.h"
#include "floe/format/parquet/metadata.h"
#include "floe/io/file.h"
#include "floe/testing/batch_rows.h"

namespace floe::parquet::testing {

inline std::string Bytes(const std::vector<uint8_t>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size());
}

template <typename T>
std::string Plain(const std::vector<T>& values) {
  std::vector<uint8_t> out;
  EncodePlain<T>(std::span<const T>(values), &out);
  return Bytes(out);
}

inline std::string PlainStrings(const std::vector<std::string_view>& values) {
  std::vector<uint8_t> out;
  EncodePlainByteArray(std::span<const std::string_view>(values), &out);
  return Bytes(out);
}

inline std::string PlainBools(const std::vector<uint8_t>& values) {
  std::vector<uint8_t> out;
  EncodePlainBoolean(values, &out);
  return Bytes(out);
}

/// v1 levels: 4-byte length, then the RLE / bit-packed hybrid.
inline std::string Levels(const std::vector<int16_t>& levels, int bit_width) {
  std::vector<uint8_t> out;
  EncodeRleBitPackedWithLength<int16_t>(levels, bit_width, &out);
  return Bytes(out);
}
/// v2 levels: no length prefix.
inline std::string LevelsV2(const std::vector<int16_t>& levels, int bit_width) {
  std::vector<uint8_t> out;
  EncodeRleBitPacked(std::span<const int16_t>(levels), bit_width, &out);
  return Bytes(out);
}

inline std::string DictIndices(const std::vector<int32_t>& idx, int32_t dict_size) {
  std::vector<uint8_t> out;
  EncodeDictionaryIndices(idx, dict_size, &out);
  return Bytes(out);
}

inline std::string Compress(CompressionCodec codec, const std::string& raw) {
  using K = compression::CodecKind;
  K kind = K::kUncompressed;
  switch (codec) {
    case CompressionCodec::kSnappy:
      kind = K::kSnappy;
      break;
    case CompressionCodec::kGzip:
      kind = K::kGzip;
      break;
    case CompressionCodec::kZstd:
      kind = K::kZstd;
      break;
    case CompressionCodec::kLz4Raw:
      kind = K::kLz4Raw;
      break;
    case CompressionCodec::kLz4:
      kind = K::kLz4Hadoop;
      break;
    case CompressionCodec::kBrotli:
      kind = K::kBrotli;
      break;
    default:
      return raw;
  }
  auto out =
      compression::Compress(kind, {reinterpret_cast<const uint8_t*>(raw.data()), raw.size()});
  return Bytes(out.ValueOrDie());
}

/// A page: header + body.
inline std::string Page(const PageHeader& h, const std::string& body) {
  std::string out;
  ThriftCompactWriter w(&out);
  Status st = EncodeThrift(h, &w);
  FLOE_CHECK(st.ok(), st.ToString());
  return out + body;
}

inline SchemaElement Root(int num_children) {
  SchemaElement e;
  e.name = "schema";
  e.num_children = num_children;
  return e;
}

inline SchemaElement Group(std::string name, FieldRepetitionType rep, int num_children,
                           std::optional<ConvertedType> converted = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = rep;
  e.num_children = num_children;
  e.converted_type = converted;
  return e;
}

inline SchemaElement Leaf(std::string name, Type type,
                          FieldRepetitionType rep = FieldRepetitionType::kOptional) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition_type = rep;
  return e;
}

/// The pages of one column chunk.
struct ChunkBuilder {
  Type type = Type::kInt32;
  CompressionCodec codec = CompressionCodec::kUncompressed;
  std::vector<std::string> pages;
  bool has_dictionary = false;
  int64_t num_values = 0;
  int64_t uncompressed = 0;
  std::optional<Statistics> statistics;

  ChunkBuilder(Type t, CompressionCodec c = CompressionCodec::kUncompressed) : type(t), codec(c) {}

  ChunkBuilder& Dictionary(int32_t n, const std::string& plain) {
    PageHeader h;
    h.type = PageType::kDictionaryPage;
    std::string body = Compress(codec, plain);
    h.uncompressed_page_size = static_cast<int32_t>(plain.size());
    h.compressed_page_size = static_cast<int32_t>(body.size());
    DictionaryPageHeader d;
    d.num_values = n;
    d.encoding = Encoding::kPlain;
    h.dictionary_page_header = d;
    pages.push_back(Page(h, body));
    uncompressed += static_cast<int64_t>(plain.size());
    has_dictionary = true;
    return *this;
  }

  /// A v1 data page; `levels` is the encoded rep levels followed by the def levels.
  ChunkBuilder& DataV1(int32_t num_values_in_page, Encoding encoding, const std::string& levels,
                       const std::string& values) {
    PageHeader h;
    h.type = PageType::kDataPage;
    std::string raw = levels + values;
    std::string body = Compress(codec, raw);
    h.uncompressed_page_size = static_cast<int32_t>(raw.size());
    h.compressed_page_size = static_cast<int32_t>(body.size());
    DataPageHeader d;
    d.num_values = num_values_in_page;
    d.encoding = encoding;
    h.data_page_header = d;
    pages.push_back(Page(h, body));
    num_values += num_values_in_page;
    uncompressed += static_cast<int64_t>(raw.size());
    return *this;
  }

  ChunkBuilder& DataV2(int32_t num_values_in_page, int32_t num_nulls, int32_t num_rows,
                       Encoding encoding, const std::string& rep, const std::string& def,
                       const std::string& values, bool compressed = true) {
    PageHeader h;
    h.type = PageType::kDataPageV2;
    std::string v = compressed ? Compress(codec, values) : values;
    h.uncompressed_page_size = static_cast<int32_t>(rep.size() + def.size() + values.size());
    h.compressed_page_size = static_cast<int32_t>(rep.size() + def.size() + v.size());
    DataPageHeaderV2 d;
    d.num_values = num_values_in_page;
    d.num_nulls = num_nulls;
    d.num_rows = num_rows;
    d.encoding = encoding;
    d.repetition_levels_byte_length = static_cast<int32_t>(rep.size());
    d.definition_levels_byte_length = static_cast<int32_t>(def.size());
    if (!compressed) d.is_compressed = false;
    h.data_page_header_v2 = d;
    pages.push_back(Page(h, rep + def + v));
    num_values += num_values_in_page;
    uncompressed += h.uncompressed_page_size;
    return *this;
  }
};

/// Assembles a file: magic, row groups of chunks, footer.
class FileBuilder {
 public:
  explicit FileBuilder(std::vector<SchemaElement> schema) { md_.schema = std::move(schema); }

  FileBuilder& AddRowGroup(int64_t num_rows, const std::vector<ChunkBuilder>& chunks) {
    RowGroup rg;
    rg.num_rows = num_rows;
    for (const ChunkBuilder& c : chunks) {
      ColumnChunk cc;
      ColumnMetaData m;
      m.type = c.type;
      m.codec = c.codec;
      m.path_in_schema = {"c"};
      m.num_values = c.num_values;
      int64_t start = static_cast<int64_t>(data_.size());
      if (c.has_dictionary) {
        m.dictionary_page_offset = start;
        m.data_page_offset = start + static_cast<int64_t>(c.pages[0].size());
      } else {
        m.data_page_offset = start;
      }
      for (const std::string& p : c.pages) data_ += p;
      m.total_compressed_size = static_cast<int64_t>(data_.size()) - start;
      m.total_uncompressed_size = c.uncompressed;
      m.statistics = c.statistics;
      cc.file_offset = start;
      cc.meta_data = m;
      rg.columns.push_back(std::move(cc));
    }
    md_.num_rows += num_rows;
    md_.row_groups.push_back(std::move(rg));
    return *this;
  }

  FileMetaData& metadata() { return md_; }

  /// Appends bytes after the row groups (a page index) and returns their file offset.
  int64_t AppendRaw(const std::string& bytes) {
    int64_t at = static_cast<int64_t>(data_.size());
    data_ += bytes;
    return at;
  }

  /// Writes an offset index for chunk `column` of the last row group, given the first
  /// row of each of its data pages (the pages after a dictionary page, in order).
  void AddOffsetIndex(int column, const ChunkBuilder& chunk, const std::vector<int64_t>& rows) {
    ColumnChunk& cc = md_.row_groups.back().columns[static_cast<size_t>(column)];
    OffsetIndex oi;
    int64_t at = cc.meta_data->dictionary_page_offset.value_or(cc.meta_data->data_page_offset);
    size_t first = chunk.has_dictionary ? 1 : 0;
    if (first) at += static_cast<int64_t>(chunk.pages[0].size());
    for (size_t i = first; i < chunk.pages.size(); ++i) {
      PageLocation loc;
      loc.offset = at;
      loc.compressed_page_size = static_cast<int32_t>(chunk.pages[i].size());
      loc.first_row_index = rows[i - first];
      oi.page_locations.push_back(loc);
      at += static_cast<int64_t>(chunk.pages[i].size());
    }
    std::string bytes;
    ThriftCompactWriter w(&bytes);
    FLOE_CHECK(EncodeThrift(oi, &w).ok(), "encode");
    cc.offset_index_offset = AppendRaw(bytes);
    cc.offset_index_length = static_cast<int32_t>(bytes.size());
  }

  void AddColumnIndex(int column, const ColumnIndex& ci) {
    ColumnChunk& cc = md_.row_groups.back().columns[static_cast<size_t>(column)];
    std::string bytes;
    ThriftCompactWriter w(&bytes);
    FLOE_CHECK(EncodeThrift(ci, &w).ok(), "encode");
    cc.column_index_offset = AppendRaw(bytes);
    cc.column_index_length = static_cast<int32_t>(bytes.size());
  }

  std::string Finish() const {
    std::string out = data_;
    Status st = EncodeFooter(md_, &out);
    FLOE_CHECK(st.ok(), st.ToString());
    return out;
  }

 private:
  FileMetaData md_;
  std::string data_ = "PAR1";
};

/// Checks every column of `batch` (ValidateFull) and appends its rows as text, one string
/// per row, the values (FormatValue) joined by '/'.
inline Status AppendRowTexts(const RecordBatch& batch, std::vector<std::string>* out) {
  for (int c = 0; c < batch.num_columns(); ++c) {
    FLOE_RETURN_NOT_OK(batch.column(c)->ValidateFull());
  }
  floe::testing::AppendBatchRows(batch, out, "/");
  return Status::OK();
}

inline std::shared_ptr<io::RandomAccessFile> FileOf(const std::string& bytes) {
  return std::shared_ptr<io::RandomAccessFile>(
      io::MakeBufferFile(Buffer::CopyOf(std::string_view(bytes)).ValueOrDie(), "test.parquet"));
}

}  // namespace floe::parquet::testing
