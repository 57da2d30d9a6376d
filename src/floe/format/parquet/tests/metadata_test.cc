#include "floe/format/parquet/metadata.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "floe/testing/matchers.h"

namespace floe::parquet {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

template <typename T>
std::string Encode(const T& value) {
  std::string out;
  ThriftCompactWriter writer(&out);
  EXPECT_OK(EncodeThrift(value, &writer));
  return out;
}

// Encodes, decodes and compares; also checks that the decoder used every byte and that
// every strict prefix of the encoding fails cleanly.
template <typename T>
void ExpectRoundTrip(const T& value) {
  const std::string bytes = Encode(value);
  T decoded;
  ASSERT_OK_AND_ASSIGN(size_t used, DecodeThrift(Bytes(bytes), &decoded));
  EXPECT_EQ(used, bytes.size());
  EXPECT_TRUE(decoded == value);
  EXPECT_EQ(Encode(decoded), bytes);
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::string prefix = bytes.substr(0, n);
    T partial;
    EXPECT_THAT(DecodeThrift(Bytes(prefix), &partial), IsError(StatusCode::kCorrupt))
        << "prefix of " << n << " bytes";
  }
}

Statistics FullStatistics() {
  Statistics s;
  s.max = std::string("\x10\x00\x00\x00", 4);
  s.min = std::string("\x01\x00\x00\x00", 4);
  s.null_count = 3;
  s.distinct_count = 7;
  s.max_value = "zebra";
  s.min_value = "";
  s.is_max_value_exact = true;
  s.is_min_value_exact = false;
  s.nan_count = 0;
  return s;
}

std::vector<LogicalType> AllLogicalTypes() {
  using Kind = LogicalType::Kind;
  std::vector<LogicalType> out;
  for (Kind kind : {Kind::kString, Kind::kMap, Kind::kList, Kind::kEnum, Kind::kDate, Kind::kNull,
                    Kind::kJson, Kind::kBson, Kind::kUuid, Kind::kFloat16}) {
    LogicalType t;
    t.kind = kind;
    out.push_back(t);
  }
  LogicalType decimal;
  decimal.kind = Kind::kDecimal;
  decimal.scale = 2;
  decimal.precision = 38;
  out.push_back(decimal);
  for (Kind kind : {Kind::kTime, Kind::kTimestamp}) {
    for (TimeUnit unit : {TimeUnit::kMillis, TimeUnit::kMicros, TimeUnit::kNanos}) {
      for (bool utc : {false, true}) {
        LogicalType t;
        t.kind = kind;
        t.unit = unit;
        t.is_adjusted_to_utc = utc;
        out.push_back(t);
      }
    }
  }
  for (int8_t width : {8, 16, 32, 64}) {
    LogicalType t;
    t.kind = Kind::kInteger;
    t.bit_width = width;
    t.is_signed = width != 16;
    out.push_back(t);
  }
  return out;
}

ColumnMetaData FullColumnMetaData() {
  ColumnMetaData m;
  m.type = Type::kByteArray;
  m.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary,
                 static_cast<Encoding>(42)};
  m.path_in_schema = {"a", "b.c", ""};
  m.codec = CompressionCodec::kZstd;
  m.num_values = 1'000'000'000'000;
  m.total_uncompressed_size = 123456;
  m.total_compressed_size = 65432;
  m.key_value_metadata = std::vector<KeyValue>{{"k", "v"}, {"only-key", std::nullopt}};
  m.data_page_offset = 4;
  m.index_page_offset = 5;
  m.dictionary_page_offset = 6;
  m.statistics = FullStatistics();
  m.encoding_stats =
      std::vector<PageEncodingStats>{{PageType::kDictionaryPage, Encoding::kPlain, 1},
                                     {PageType::kDataPage, Encoding::kRleDictionary, 20}};
  m.bloom_filter_offset = 99999;
  m.bloom_filter_length = 1024;
  return m;
}

ColumnChunk FullColumnChunk() {
  ColumnChunk c;
  c.file_path = "other.parquet";
  c.file_offset = 77;
  c.meta_data = FullColumnMetaData();
  c.offset_index_offset = 1000;
  c.offset_index_length = 50;
  c.column_index_offset = 1050;
  c.column_index_length = 60;
  return c;
}

RowGroup FullRowGroup() {
  RowGroup g;
  g.columns = {FullColumnChunk(), ColumnChunk{}};
  g.columns[1].meta_data = ColumnMetaData{};
  g.total_byte_size = 5000;
  g.num_rows = 100;
  g.sorting_columns = std::vector<SortingColumn>{{0, true, false}, {1, false, true}};
  g.file_offset = 4;
  g.total_compressed_size = 4000;
  g.ordinal = 3;
  return g;
}

FileMetaData FullFileMetaData() {
  FileMetaData f;
  f.version = 2;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 2;
  SchemaElement leaf;
  leaf.type = Type::kFixedLenByteArray;
  leaf.type_length = 16;
  leaf.repetition_type = FieldRepetitionType::kOptional;
  leaf.name = "id";
  leaf.converted_type = ConvertedType::kDecimal;
  leaf.scale = 2;
  leaf.precision = 30;
  leaf.field_id = 17;
  leaf.logical_type = LogicalType{};
  leaf.logical_type->kind = LogicalType::Kind::kDecimal;
  leaf.logical_type->scale = 2;
  leaf.logical_type->precision = 30;
  SchemaElement plain;
  plain.name = "plain";
  plain.type = Type::kInt32;
  plain.repetition_type = FieldRepetitionType::kRequired;
  f.schema = {root, leaf, plain};
  f.num_rows = 100;
  f.row_groups = {FullRowGroup()};
  f.key_value_metadata = std::vector<KeyValue>{{"iceberg.schema", "{}"}};
  f.created_by = "floe version 0.1";
  f.column_orders = std::vector<ColumnOrder>{ColumnOrder{}, ColumnOrder{}};
  f.column_orders->at(1).kind = ColumnOrder::Kind::kIeee754TotalOrder;
  return f;
}

PageHeader FullDataPageHeader() {
  PageHeader h;
  h.type = PageType::kDataPage;
  h.uncompressed_page_size = 1000;
  h.compressed_page_size = 500;
  h.crc = -12345;
  h.data_page_header = DataPageHeader{100, Encoding::kRleDictionary, Encoding::kRle,
                                      Encoding::kBitPacked, FullStatistics()};
  return h;
}

TEST(MetadataTest, StatisticsRoundTrip) {
  ExpectRoundTrip(Statistics{});
  ExpectRoundTrip(FullStatistics());
  Statistics s;
  s.null_count = 0;  // present and zero differs from absent
  ExpectRoundTrip(s);
  EXPECT_NE(Encode(s), Encode(Statistics{}));
}

TEST(MetadataTest, LogicalTypesRoundTrip) {
  for (const LogicalType& t : AllLogicalTypes()) {
    SCOPED_TRACE(static_cast<int>(t.kind));
    ExpectRoundTrip(t);
  }
}

TEST(MetadataTest, LogicalTypeExactBytes) {
  LogicalType t;
  t.kind = LogicalType::Kind::kTimestamp;
  t.is_adjusted_to_utc = true;
  t.unit = TimeUnit::kMicros;
  // Field 8 struct {1: true, 2: struct {2: struct {}}}.
  EXPECT_EQ(Encode(t), std::string("\x8c\x11\x1c\x2c\x00\x00\x00\x00", 8));
  LogicalType s;
  EXPECT_EQ(Encode(s), std::string("\x1c\x00\x00", 3));
}

TEST(MetadataTest, UnknownLogicalTypeMemberIsKeptRaw) {
  // Member 16 (VARIANT) holding {1: i8 1}, which this model does not know.
  const std::string bytes("\x0c\x20\x13\x01\x00\x00", 6);
  LogicalType t;
  ASSERT_OK_AND_ASSIGN(size_t used, DecodeThrift(Bytes(bytes), &t));
  EXPECT_EQ(used, bytes.size());
  EXPECT_EQ(t.kind, LogicalType::Kind::kUnrecognized);
  EXPECT_EQ(t.raw_field_id, 16);
  EXPECT_EQ(Encode(t), bytes);
  // A TIME with an unknown unit (member 4) is kept raw too.
  const std::string time("\x7c\x11\x1c\x4c\x00\x00\x00\x00", 8);
  ASSERT_OK(DecodeThrift(Bytes(time), &t));
  EXPECT_EQ(t.kind, LogicalType::Kind::kUnrecognized);
  EXPECT_EQ(t.raw_field_id, 7);
  EXPECT_EQ(Encode(t), time);
  // An empty union is corrupt.
  const std::string empty("\x00", 1);
  EXPECT_THAT(DecodeThrift(Bytes(empty), &t), IsErrorWith(StatusCode::kCorrupt, "no member"));
}

TEST(MetadataTest, SchemaElementRoundTrip) {
  ExpectRoundTrip(FullFileMetaData().schema[1]);
  SchemaElement minimal;
  minimal.name = "x";
  ExpectRoundTrip(minimal);
  // {1: INT64} without the required name.
  const std::string bytes("\x15\x04\x00", 3);
  SchemaElement out;
  EXPECT_THAT(
      DecodeThrift(Bytes(bytes), &out),
      IsErrorWith(StatusCode::kCorrupt, "SchemaElement: required field name (id 4) is missing"));
}

TEST(MetadataTest, ColumnMetaDataRoundTrip) {
  ExpectRoundTrip(FullColumnMetaData());
  ExpectRoundTrip(ColumnMetaData{});
}

TEST(MetadataTest, ColumnChunkRoundTrip) {
  ExpectRoundTrip(FullColumnChunk());
  ExpectRoundTrip(ColumnChunk{});
  ColumnChunk c = FullColumnChunk();
  ASSERT_OK_AND_ASSIGN(const ColumnMetaData* m, c.GetMetaData());
  EXPECT_EQ(m, &*c.meta_data);
  EXPECT_THAT(ColumnChunk{}.GetMetaData(), IsError(StatusCode::kCorrupt));
}

TEST(MetadataTest, EncryptedColumnIsNotSupportedAtUse) {
  ColumnChunk c = FullColumnChunk();
  // ColumnCryptoMetaData {2: EncryptionWithColumnKey {1: ["a"]}}.
  c.crypto_metadata = std::string("\x2c\x19\x18\x01\x61\x00\x00", 7);
  c.encrypted_column_metadata = std::string("\x01\x02\x03", 3);
  ExpectRoundTrip(c);
  EXPECT_THAT(c.GetMetaData(), IsError(StatusCode::kNotSupported));
}

TEST(MetadataTest, RowGroupRoundTrip) {
  ExpectRoundTrip(FullRowGroup());
  RowGroup minimal;
  ExpectRoundTrip(minimal);
}

TEST(MetadataTest, FileMetaDataRoundTrip) {
  ExpectRoundTrip(FullFileMetaData());
  FileMetaData minimal;
  minimal.schema = {SchemaElement{}};
  minimal.schema[0].name = "root";
  ExpectRoundTrip(minimal);
  FileMetaData encrypted = minimal;
  encrypted.encryption_algorithm = std::string("\x1c\x00\x00", 3);
  encrypted.footer_signing_key_metadata = "key";
  ExpectRoundTrip(encrypted);
}

TEST(MetadataTest, ColumnOrderRoundTrip) {
  for (auto kind : {ColumnOrder::Kind::kTypeDefinedOrder, ColumnOrder::Kind::kIeee754TotalOrder,
                    ColumnOrder::Kind::kInt96TimestampOrder}) {
    ColumnOrder o;
    o.kind = kind;
    ExpectRoundTrip(o);
  }
  ColumnOrder unknown;
  const std::string bytes("\x5c\x00\x00", 3);  // member 5, empty struct
  ASSERT_OK(DecodeThrift(Bytes(bytes), &unknown));
  EXPECT_EQ(unknown.kind, ColumnOrder::Kind::kUnrecognized);
  EXPECT_EQ(unknown.raw_field_id, 5);
  EXPECT_EQ(Encode(unknown), bytes);
}

TEST(MetadataTest, PageHeadersRoundTrip) {
  ExpectRoundTrip(FullDataPageHeader());
  PageHeader minimal_data;
  minimal_data.data_page_header = DataPageHeader{};
  ExpectRoundTrip(minimal_data);

  PageHeader dict;
  dict.type = PageType::kDictionaryPage;
  dict.uncompressed_page_size = 10;
  dict.compressed_page_size = 10;
  dict.dictionary_page_header = DictionaryPageHeader{5, Encoding::kPlain, std::nullopt};
  ExpectRoundTrip(dict);
  dict.dictionary_page_header->is_sorted = true;
  ExpectRoundTrip(dict);

  PageHeader v2;
  v2.type = PageType::kDataPageV2;
  v2.uncompressed_page_size = 300;
  v2.compressed_page_size = 200;
  v2.data_page_header_v2 = DataPageHeaderV2{};
  v2.data_page_header_v2->num_values = 10;
  v2.data_page_header_v2->num_nulls = 2;
  v2.data_page_header_v2->num_rows = 10;
  v2.data_page_header_v2->encoding = Encoding::kDeltaBinaryPacked;
  v2.data_page_header_v2->definition_levels_byte_length = 4;
  v2.data_page_header_v2->repetition_levels_byte_length = 0;
  ExpectRoundTrip(v2);
  EXPECT_TRUE(v2.data_page_header_v2->values_compressed());
  v2.data_page_header_v2->is_compressed = false;
  v2.data_page_header_v2->statistics = FullStatistics();
  ExpectRoundTrip(v2);

  PageHeader index;
  index.type = PageType::kIndexPage;
  index.has_index_page_header = true;
  ExpectRoundTrip(index);
}

TEST(MetadataTest, PageHeaderFollowedByPageData) {
  std::string bytes = Encode(FullDataPageHeader());
  const size_t header_size = bytes.size();
  bytes.append(500, 'x');
  PageHeader h;
  ASSERT_OK_AND_ASSIGN(size_t used, DecodeThrift(Bytes(bytes), &h));
  EXPECT_EQ(used, header_size);
  EXPECT_TRUE(h == FullDataPageHeader());
}

TEST(MetadataTest, PageHeaderValidation) {
  PageHeader h = FullDataPageHeader();
  h.data_page_header.reset();
  std::string bytes = Encode(h);
  PageHeader out;
  EXPECT_THAT(DecodeThrift(Bytes(bytes), &out),
              IsErrorWith(StatusCode::kCorrupt, "lacks data_page_header"));
  h = FullDataPageHeader();
  h.compressed_page_size = -1;
  bytes = Encode(h);
  EXPECT_THAT(DecodeThrift(Bytes(bytes), &out),
              IsErrorWith(StatusCode::kCorrupt, "PageHeader: compressed_page_size is negative"));
  h = FullDataPageHeader();
  h.data_page_header->num_values = -5;
  bytes = Encode(h);
  EXPECT_THAT(DecodeThrift(Bytes(bytes), &out),
              IsErrorWith(StatusCode::kCorrupt,
                          "PageHeader.data_page_header: num_values is negative (-5)"));
}

TEST(MetadataTest, PageIndexRoundTrip) {
  ColumnIndex index;
  index.null_pages = {false, true, false};
  index.min_values = {"a", "", "m"};
  index.max_values = {"f", "", "z"};
  index.boundary_order = BoundaryOrder::kAscending;
  ExpectRoundTrip(index);
  index.null_counts = std::vector<int64_t>{0, 10, 2};
  ExpectRoundTrip(index);
  index.null_counts->pop_back();
  const std::string bytes = Encode(index);
  ColumnIndex out;
  EXPECT_THAT(DecodeThrift(Bytes(bytes), &out),
              IsErrorWith(StatusCode::kCorrupt, "list lengths differ"));

  OffsetIndex offsets;
  offsets.page_locations = {{4, 100, 0}, {104, 90, 1000}};
  ExpectRoundTrip(offsets);
  offsets.unencoded_byte_array_data_bytes = std::vector<int64_t>{5, 6};
  ExpectRoundTrip(offsets);
  // Many pages: the long list header form.
  offsets.page_locations.clear();
  for (int i = 0; i < 40; ++i) offsets.page_locations.push_back({i * 100, 100, i * 10});
  offsets.unencoded_byte_array_data_bytes.reset();
  ExpectRoundTrip(offsets);
}

TEST(MetadataTest, UnknownFieldsAreSkipped) {
  // A RowGroup with the known fields plus unknown fields 20 (list<string>) and
  // 21 (struct) and 22 (map), as a newer writer could add.
  std::string bytes;
  ThriftCompactWriter w(&bytes);
  w.BeginStruct();
  w.WriteFieldHeader(ThriftType::kList, 1);
  w.WriteListHeader(ThriftType::kStruct, 0);
  w.WriteFieldHeader(ThriftType::kI64, 2);
  w.WriteI64(10);
  w.WriteFieldHeader(ThriftType::kI64, 3);
  w.WriteI64(2);
  w.WriteFieldHeader(ThriftType::kList, 20);
  w.WriteListHeader(ThriftType::kBinary, 1);
  w.WriteBinary("future");
  w.WriteFieldHeader(ThriftType::kStruct, 21);
  w.BeginStruct();
  w.WriteFieldBool(1, true);
  w.EndStruct();
  w.WriteFieldHeader(ThriftType::kMap, 22);
  w.WriteMapHeader(ThriftType::kI32, ThriftType::kDouble, 1);
  w.WriteI32(1);
  w.WriteDouble(1.0);
  w.WriteFieldHeader(ThriftType::kUuid, 23);
  const uint8_t uuid[16] = {};
  w.WriteUuid(std::span<const uint8_t, 16>(uuid));
  w.WriteFieldHeader(ThriftType::kI16, 7);
  w.WriteI16(4);
  w.EndStruct();
  RowGroup g;
  ASSERT_OK_AND_ASSIGN(size_t used, DecodeThrift(Bytes(bytes), &g));
  EXPECT_EQ(used, bytes.size());
  EXPECT_EQ(g.total_byte_size, 10);
  EXPECT_EQ(g.num_rows, 2);
  EXPECT_EQ(g.ordinal, std::optional<int16_t>(4));
}

TEST(MetadataTest, DecodeValidatesRequiredFieldsAndCounts) {
  FileMetaData f = FullFileMetaData();
  f.row_groups[0].num_rows = -1;
  std::string bytes = Encode(f);
  FileMetaData out;
  EXPECT_THAT(DecodeThrift(Bytes(bytes), &out),
              IsErrorWith(StatusCode::kCorrupt,
                          "FileMetaData.row_groups[0]: num_rows is negative (-1) at byte offset"));

  f = FullFileMetaData();
  f.row_groups[0].columns[0].meta_data->statistics->null_count = -2;
  bytes = Encode(f);
  EXPECT_THAT(
      DecodeThrift(Bytes(bytes), &out),
      IsErrorWith(StatusCode::kCorrupt,
                  "FileMetaData.row_groups[0].columns[0].meta_data.statistics: null_count is "
                  "negative"));

  f = FullFileMetaData();
  f.schema.clear();
  bytes = Encode(f);
  EXPECT_THAT(DecodeThrift(Bytes(bytes), &out),
              IsErrorWith(StatusCode::kCorrupt, "schema has no elements"));

  // A field with the wrong wire type: num_rows (3) as a binary.
  std::string wrong;
  ThriftCompactWriter w(&wrong);
  w.BeginStruct();
  w.WriteFieldHeader(ThriftType::kBinary, 3);
  w.WriteBinary("x");
  w.EndStruct();
  EXPECT_THAT(DecodeThrift(Bytes(wrong), &out),
              IsErrorWith(StatusCode::kCorrupt,
                          "FileMetaData.num_rows: field 3 has type binary, expected i64"));
}

TEST(MetadataTest, HostileListCountInFooter) {
  // FileMetaData whose schema list (field 2) claims 2^31 - 1 structs in a few bytes.
  const std::string bytes("\x15\x02\x19\xfc\xff\xff\xff\xff\x07\x00\x00", 11);
  FileMetaData out;
  EXPECT_THAT(DecodeThrift(Bytes(bytes), &out),
              IsErrorWith(StatusCode::kCorrupt, "FileMetaData.schema: list of 2147483647"));
}

std::string FileBytes(const FileMetaData& metadata) {
  std::string file(kParquetMagic);
  file.append("column data");
  EXPECT_OK(EncodeFooter(metadata, &file));
  return file;
}

TEST(MetadataTest, FooterRoundTrip) {
  const std::string file = FileBytes(FullFileMetaData());
  ASSERT_OK_AND_ASSIGN(FileMetaData decoded, DecodeFooter(Bytes(file), file.size()));
  EXPECT_TRUE(decoded == FullFileMetaData());
  // Only the tail is given.
  const std::string tail = file.substr(10);
  ASSERT_OK_AND_ASSIGN(decoded, DecodeFooter(Bytes(tail), file.size()));
  EXPECT_TRUE(decoded == FullFileMetaData());
  // A tail too short for the footer says how much to read.
  const std::string short_tail = file.substr(file.size() - 20);
  ASSERT_OK_AND_ASSIGN(uint32_t length, ReadFooterLength(Bytes(short_tail), file.size()));
  EXPECT_EQ(length, file.size() - 4 - 11 - 8);
  EXPECT_THAT(
      DecodeFooter(Bytes(short_tail), file.size()),
      IsErrorWith(StatusCode::kInvalidArgument, fmt::format("read the last {} bytes", length + 8)));
}

TEST(MetadataTest, FooterErrors) {
  std::string file = FileBytes(FullFileMetaData());
  // A lying length.
  std::string lying = file;
  lying[lying.size() - 8] = '\xff';
  lying[lying.size() - 7] = '\xff';
  EXPECT_THAT(DecodeFooter(Bytes(lying), lying.size()),
              IsErrorWith(StatusCode::kCorrupt,
                          fmt::format("footer length {} does not fit in a file of {} bytes", 0xffff,
                                      lying.size())));
  // Encrypted footer.
  std::string encrypted = file;
  encrypted.replace(encrypted.size() - 4, 4, "PARE");
  EXPECT_THAT(DecodeFooter(Bytes(encrypted), encrypted.size()), IsError(StatusCode::kNotSupported));
  // No magic.
  std::string garbage = file;
  garbage.back() = 'X';
  EXPECT_THAT(DecodeFooter(Bytes(garbage), garbage.size()),
              IsErrorWith(StatusCode::kCorrupt, "not a Parquet file"));
  // Too small.
  const std::string tiny = "PAR1PAR1";
  EXPECT_THAT(DecodeFooter(Bytes(tiny), tiny.size()), IsError(StatusCode::kCorrupt));
  // A footer that is cut short: the error names the file offset.
  std::string cut = file;
  const uint32_t length = static_cast<uint32_t>(file.size() - 4 - 11 - 8);
  cut.erase(cut.size() - 8 - length / 2, length / 2);
  const uint32_t new_length = length - length / 2;
  for (int i = 0; i < 4; ++i) cut[cut.size() - 8 + i] = static_cast<char>(new_length >> (8 * i));
  EXPECT_THAT(DecodeFooter(Bytes(cut), cut.size()),
              IsErrorWith(StatusCode::kCorrupt, "FileMetaData"));
}

TEST(MetadataTest, FooterTruncatedAtEveryByte) {
  const std::string bytes = Encode(FullFileMetaData());
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::string prefix = bytes.substr(0, n);
    FileMetaData out;
    ASSERT_THAT(DecodeThrift(Bytes(prefix), &out), IsError(StatusCode::kCorrupt)) << n;
  }
}

TEST(MetadataTest, MutatedFootersNeverCrash) {
  // Every byte of a valid footer replaced by a few hostile values: decoding must return,
  // with a value or an error, and never read out of bounds (run under ASan).
  const std::string bytes = Encode(FullFileMetaData());
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int value : {0x00, 0x0f, 0x7f, 0x80, 0xf9, 0xfc, 0xff}) {
      std::string mutated = bytes;
      mutated[i] = static_cast<char>(value);
      FileMetaData out;
      Result<size_t> result = DecodeThrift(Bytes(mutated), &out);
      if (!result.ok()) {
        EXPECT_EQ(result.status().code(), StatusCode::kCorrupt);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Real files.

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

size_t CountLeaves(const std::vector<SchemaElement>& schema) {
  return std::count_if(schema.begin() + 1, schema.end(),
                       [](const SchemaElement& e) { return !e.num_children.has_value(); });
}

// Walks the pages of a column chunk: each header decodes, and the headers and pages add
// up to the chunk's total_compressed_size exactly.
void CheckPages(const std::string& file, const ColumnMetaData& m) {
  int64_t offset = m.dictionary_page_offset.value_or(m.data_page_offset);
  if (m.dictionary_page_offset && *m.dictionary_page_offset == 0) offset = m.data_page_offset;
  const int64_t end = offset + m.total_compressed_size;
  ASSERT_LE(end, static_cast<int64_t>(file.size()));
  int64_t values = 0;
  bool first = true;
  while (offset < end) {
    PageHeader h;
    ASSERT_OK_AND_ASSIGN(size_t used, DecodeThrift(Bytes(file).subspan(offset, end - offset), &h,
                                                   static_cast<uint64_t>(offset)));
    if (first && m.dictionary_page_offset && *m.dictionary_page_offset != 0) {
      EXPECT_EQ(h.type, PageType::kDictionaryPage);
    }
    first = false;
    if (h.data_page_header) values += h.data_page_header->num_values;
    if (h.data_page_header_v2) values += h.data_page_header_v2->num_values;
    const std::string encoded = Encode(h);
    PageHeader again;
    ASSERT_OK(DecodeThrift(Bytes(encoded), &again));
    EXPECT_TRUE(again == h);
    offset += static_cast<int64_t>(used) + h.compressed_page_size;
  }
  EXPECT_EQ(offset, end);
  EXPECT_EQ(values, m.num_values);
}

TEST(MetadataFixtureTest, RealFixtureFootersRoundTrip) {
  const std::filesystem::path root = "../shared/fixtures/iceberg";
  if (!std::filesystem::exists(root)) GTEST_FAIL() << "the fixtures are missing at " << root;
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".parquet") continue;
    SCOPED_TRACE(entry.path().string());
    ++files;
    const std::string file = ReadFile(entry.path());
    ASSERT_OK_AND_ASSIGN(FileMetaData metadata, DecodeFooter(Bytes(file), file.size()));
    // From a short tail, the error names how much to read, and that read suffices.
    const std::string tail = file.substr(file.size() - kFooterTrailerSize);
    ASSERT_OK_AND_ASSIGN(uint32_t length, ReadFooterLength(Bytes(tail), file.size()));
    const std::string footer_tail = file.substr(file.size() - length - kFooterTrailerSize);
    ASSERT_OK_AND_ASSIGN(FileMetaData from_tail, DecodeFooter(Bytes(footer_tail), file.size()));
    EXPECT_TRUE(from_tail == metadata);

    // Consistency with the file's own content.
    int64_t rows = 0;
    for (const RowGroup& group : metadata.row_groups) {
      rows += group.num_rows;
      EXPECT_EQ(group.columns.size(), CountLeaves(metadata.schema));
      for (const ColumnChunk& chunk : group.columns) {
        ASSERT_OK_AND_ASSIGN(const ColumnMetaData* m, chunk.GetMetaData());
        EXPECT_FALSE(m->path_in_schema.empty());
        CheckPages(file, *m);
      }
      if (group.num_rows > 0) {
        for (const ColumnChunk& chunk : group.columns) {
          if (!chunk.offset_index_offset) continue;
          OffsetIndex index;
          ASSERT_OK(DecodeThrift(
              Bytes(file).subspan(*chunk.offset_index_offset, *chunk.offset_index_length), &index));
          EXPECT_FALSE(index.page_locations.empty());
          EXPECT_EQ(Encode(index).size(), static_cast<size_t>(*chunk.offset_index_length));
        }
      }
    }
    EXPECT_EQ(rows, metadata.num_rows);

    // Re-encode, decode again, compare.
    std::string reencoded;
    ASSERT_OK(EncodeFooter(metadata, &reencoded));
    ASSERT_OK_AND_ASSIGN(FileMetaData again, DecodeFooter(Bytes(reencoded), reencoded.size() + 4));
    EXPECT_TRUE(again == metadata);
  }
  EXPECT_GT(files, 0);
}

}  // namespace
}  // namespace floe::parquet
