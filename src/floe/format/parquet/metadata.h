#pragma once

// The Parquet footer, page-header and page-index model: C++ mirrors of the structs in
// apache/parquet-format src/main/thrift/parquet.thrift (field ids as there), with
// compact-protocol decoding and encoding.
//
// Conventions:
// - An optional Thrift field is a std::optional, so that "absent" and "zero" differ.
// - Enum fields keep values this code does not know (a newer writer's encoding or
//   codec): they are stored as-is, and the code that uses them decides.
// - Fields this model does not mirror are skipped when decoding and so are not
//   re-encoded (e.g. SizeStatistics, GeospatialStatistics, bloom filter headers).
// - Union members this model does not know are kept as raw compact bytes, so they
//   re-encode unchanged.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/format/parquet/thrift_compact.h"

namespace floe::parquet {

/// Physical types (parquet.thrift `Type`).
enum class Type : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

/// Deprecated type annotations, superseded by LogicalType (parquet.thrift `ConvertedType`).
enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

/// Repetition of a schema node (parquet.thrift `FieldRepetitionType`).
enum class FieldRepetitionType : int32_t {
  kRequired = 0,
  kOptional = 1,
  kRepeated = 2,
};

/// Value and level encodings (parquet.thrift `Encoding`; 1 was never used).
enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

/// Page compression (parquet.thrift `CompressionCodec`).
enum class CompressionCodec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,
  kZstd = 6,
  kLz4Raw = 7,
};

/// parquet.thrift `PageType`.
enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

/// Ordering of ColumnIndex bounds (parquet.thrift `BoundaryOrder`).
enum class BoundaryOrder : int32_t {
  kUnordered = 0,
  kAscending = 1,
  kDescending = 2,
};

/// Unit of TIME and TIMESTAMP logical types (parquet.thrift union `TimeUnit`).
enum class TimeUnit : uint8_t { kMillis, kMicros, kNanos };

/// The logical type annotation of a schema node (parquet.thrift union `LogicalType`).
struct LogicalType {
  enum class Kind : uint8_t {
    kString,     // 1: STRING
    kMap,        // 2: MAP
    kList,       // 3: LIST
    kEnum,       // 4: ENUM
    kDecimal,    // 5: DECIMAL {scale, precision}
    kDate,       // 6: DATE
    kTime,       // 7: TIME {is_adjusted_to_utc, unit}
    kTimestamp,  // 8: TIMESTAMP {is_adjusted_to_utc, unit}
    kInteger,    // 10: INTEGER {bit_width, is_signed}
    kNull,       // 11: UNKNOWN (NullType: only nulls stored)
    kJson,       // 12: JSON
    kBson,       // 13: BSON
    kUuid,       // 14: UUID
    kFloat16,    // 15: FLOAT16
    // A member this model does not know (VARIANT, GEOMETRY, ..., or TIME/TIMESTAMP with
    // a unit it does not know): `raw_field_id` and `raw_value` keep it.
    kUnrecognized,
  };
  Kind kind = Kind::kString;
  int32_t scale = 0;                  // kDecimal
  int32_t precision = 0;              // kDecimal
  bool is_adjusted_to_utc = false;    // kTime, kTimestamp
  TimeUnit unit = TimeUnit::kMillis;  // kTime, kTimestamp
  int8_t bit_width = 0;               // kInteger
  bool is_signed = false;             // kInteger
  int16_t raw_field_id = 0;           // kUnrecognized: the union member's field id
  std::string raw_value;              // kUnrecognized: the member's struct, compact-encoded

  bool operator==(const LogicalType&) const = default;
};

/// One node of the flattened schema tree (parquet.thrift `SchemaElement`).
struct SchemaElement {
  std::optional<Type> type;                            // 1; absent for groups
  std::optional<int32_t> type_length;                  // 2
  std::optional<FieldRepetitionType> repetition_type;  // 3; absent for the root
  std::string name;                                    // 4, required
  std::optional<int32_t> num_children;                 // 5; set for groups
  std::optional<ConvertedType> converted_type;         // 6
  std::optional<int32_t> scale;                        // 7
  std::optional<int32_t> precision;                    // 8
  std::optional<int32_t> field_id;                     // 9: the Iceberg field id
  std::optional<LogicalType> logical_type;             // 10

  bool operator==(const SchemaElement&) const = default;
};

/// Column chunk or page statistics (parquet.thrift `Statistics`). Values are PLAIN
/// encoded without a length prefix.
struct Statistics {
  std::optional<std::string> max;          // 1, deprecated: signed order
  std::optional<std::string> min;          // 2, deprecated
  std::optional<int64_t> null_count;       // 3
  std::optional<int64_t> distinct_count;   // 4
  std::optional<std::string> max_value;    // 5
  std::optional<std::string> min_value;    // 6
  std::optional<bool> is_max_value_exact;  // 7
  std::optional<bool> is_min_value_exact;  // 8
  std::optional<int64_t> nan_count;        // 9

  bool operator==(const Statistics&) const = default;
};

/// How many pages of a type use an encoding (parquet.thrift `PageEncodingStats`).
struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;  // 1
  Encoding encoding = Encoding::kPlain;      // 2
  int32_t count = 0;                         // 3

  bool operator==(const PageEncodingStats&) const = default;
};

/// parquet.thrift `KeyValue`.
struct KeyValue {
  std::string key;                   // 1, required
  std::optional<std::string> value;  // 2

  bool operator==(const KeyValue&) const = default;
};

/// Sort order of a leaf column within a row group (parquet.thrift `SortingColumn`).
struct SortingColumn {
  int32_t column_idx = 0;    // 1
  bool descending = false;   // 2
  bool nulls_first = false;  // 3

  bool operator==(const SortingColumn&) const = default;
};

/// parquet.thrift `ColumnMetaData`.
struct ColumnMetaData {
  Type type = Type::kBoolean;                                    // 1
  std::vector<Encoding> encodings;                               // 2
  std::vector<std::string> path_in_schema;                       // 3
  CompressionCodec codec = CompressionCodec::kUncompressed;      // 4
  int64_t num_values = 0;                                        // 5
  int64_t total_uncompressed_size = 0;                           // 6
  int64_t total_compressed_size = 0;                             // 7
  std::optional<std::vector<KeyValue>> key_value_metadata;       // 8
  int64_t data_page_offset = 0;                                  // 9
  std::optional<int64_t> index_page_offset;                      // 10
  std::optional<int64_t> dictionary_page_offset;                 // 11
  std::optional<Statistics> statistics;                          // 12
  std::optional<std::vector<PageEncodingStats>> encoding_stats;  // 13
  std::optional<int64_t> bloom_filter_offset;                    // 14
  std::optional<int32_t> bloom_filter_length;                    // 15

  bool operator==(const ColumnMetaData&) const = default;
};

/// One column of one row group (parquet.thrift `ColumnChunk`).
struct ColumnChunk {
  std::optional<std::string> file_path;        // 1
  int64_t file_offset = 0;                     // 2 (deprecated; 0 when absent)
  std::optional<ColumnMetaData> meta_data;     // 3
  std::optional<int64_t> offset_index_offset;  // 4
  std::optional<int32_t> offset_index_length;  // 5
  std::optional<int64_t> column_index_offset;  // 6
  std::optional<int32_t> column_index_length;  // 7
  /// 8: the ColumnCryptoMetaData union, compact-encoded; set for encrypted columns.
  std::optional<std::string> crypto_metadata;
  std::optional<std::string> encrypted_column_metadata;  // 9

  /// The chunk's metadata. NotSupported for an encrypted column, Corrupt when the
  /// metadata is absent.
  Result<const ColumnMetaData*> GetMetaData() const;

  bool operator==(const ColumnChunk&) const = default;
};

/// parquet.thrift `RowGroup`.
struct RowGroup {
  std::vector<ColumnChunk> columns;                           // 1
  int64_t total_byte_size = 0;                                // 2
  int64_t num_rows = 0;                                       // 3
  std::optional<std::vector<SortingColumn>> sorting_columns;  // 4
  std::optional<int64_t> file_offset;                         // 5
  std::optional<int64_t> total_compressed_size;               // 6
  std::optional<int16_t> ordinal;                             // 7

  bool operator==(const RowGroup&) const = default;
};

/// The order of a column's min/max statistics (parquet.thrift union `ColumnOrder`).
struct ColumnOrder {
  enum class Kind : uint8_t {
    kTypeDefinedOrder,     // 1: TYPE_ORDER
    kIeee754TotalOrder,    // 2: IEEE_754_TOTAL_ORDER
    kInt96TimestampOrder,  // 3: INT96_TIMESTAMP_ORDER
    kUnrecognized,         // another member, kept raw; its statistics must be ignored
  };
  Kind kind = Kind::kTypeDefinedOrder;
  int16_t raw_field_id = 0;  // kUnrecognized
  std::string raw_value;     // kUnrecognized: the member's struct, compact-encoded

  bool operator==(const ColumnOrder&) const = default;
};

/// The file footer (parquet.thrift `FileMetaData`).
struct FileMetaData {
  int32_t version = 1;                                      // 1
  std::vector<SchemaElement> schema;                        // 2; schema[0] is the root
  int64_t num_rows = 0;                                     // 3
  std::vector<RowGroup> row_groups;                         // 4
  std::optional<std::vector<KeyValue>> key_value_metadata;  // 5
  std::optional<std::string> created_by;                    // 6
  std::optional<std::vector<ColumnOrder>> column_orders;    // 7
  /// 8: the EncryptionAlgorithm union, compact-encoded (plaintext-footer encryption).
  std::optional<std::string> encryption_algorithm;
  std::optional<std::string> footer_signing_key_metadata;  // 9

  bool operator==(const FileMetaData&) const = default;
};

/// parquet.thrift `DataPageHeader` (v1 data page).
struct DataPageHeader {
  int32_t num_values = 0;                               // 1, including nulls
  Encoding encoding = Encoding::kPlain;                 // 2
  Encoding definition_level_encoding = Encoding::kRle;  // 3
  Encoding repetition_level_encoding = Encoding::kRle;  // 4
  std::optional<Statistics> statistics;                 // 5

  bool operator==(const DataPageHeader&) const = default;
};

/// parquet.thrift `DictionaryPageHeader`.
struct DictionaryPageHeader {
  int32_t num_values = 0;                // 1
  Encoding encoding = Encoding::kPlain;  // 2
  std::optional<bool> is_sorted;         // 3

  bool operator==(const DictionaryPageHeader&) const = default;
};

/// parquet.thrift `DataPageHeaderV2`. Levels are never compressed.
struct DataPageHeaderV2 {
  int32_t num_values = 0;                     // 1
  int32_t num_nulls = 0;                      // 2
  int32_t num_rows = 0;                       // 3
  Encoding encoding = Encoding::kPlain;       // 4
  int32_t definition_levels_byte_length = 0;  // 5
  int32_t repetition_levels_byte_length = 0;  // 6
  std::optional<bool> is_compressed;          // 7; absent means compressed
  std::optional<Statistics> statistics;       // 8

  /// Whether the values section is compressed (the field's default is true).
  bool values_compressed() const { return is_compressed.value_or(true); }

  bool operator==(const DataPageHeaderV2&) const = default;
};

/// parquet.thrift `PageHeader`. Decoding checks that the header matching `type` is
/// present (for the data, dictionary and v2 page types) and that sizes are not negative.
struct PageHeader {
  PageType type = PageType::kDataPage;             // 1
  int32_t uncompressed_page_size = 0;              // 2
  int32_t compressed_page_size = 0;                // 3
  std::optional<int32_t> crc;                      // 4
  std::optional<DataPageHeader> data_page_header;  // 5
  /// 6: IndexPageHeader has no fields; only its presence is kept.
  bool has_index_page_header = false;
  std::optional<DictionaryPageHeader> dictionary_page_header;  // 7
  std::optional<DataPageHeaderV2> data_page_header_v2;         // 8

  bool operator==(const PageHeader&) const = default;
};

/// parquet.thrift `ColumnIndex`: per-page bounds of one column chunk. Decoding checks
/// that null_pages, min_values, max_values and null_counts (when present) have equal
/// lengths.
struct ColumnIndex {
  std::vector<bool> null_pages;                              // 1
  std::vector<std::string> min_values;                       // 2
  std::vector<std::string> max_values;                       // 3
  BoundaryOrder boundary_order = BoundaryOrder::kUnordered;  // 4
  std::optional<std::vector<int64_t>> null_counts;           // 5

  bool operator==(const ColumnIndex&) const = default;
};

/// parquet.thrift `PageLocation`.
struct PageLocation {
  int64_t offset = 0;                // 1
  int32_t compressed_page_size = 0;  // 2, including the page header
  int64_t first_row_index = 0;       // 3

  bool operator==(const PageLocation&) const = default;
};

/// parquet.thrift `OffsetIndex`: where each data page of a column chunk starts.
struct OffsetIndex {
  std::vector<PageLocation> page_locations;                             // 1
  std::optional<std::vector<int64_t>> unencoded_byte_array_data_bytes;  // 2

  bool operator==(const OffsetIndex&) const = default;
};

/// Applies `X(Type)` to every struct that has a DecodeThrift/EncodeThrift overload.
#define FLOE_PARQUET_THRIFT_STRUCTS(X) \
  X(FileMetaData)                      \
  X(SchemaElement)                     \
  X(LogicalType)                       \
  X(RowGroup)                          \
  X(ColumnChunk)                       \
  X(ColumnMetaData)                    \
  X(Statistics)                        \
  X(PageEncodingStats)                 \
  X(KeyValue)                          \
  X(SortingColumn)                     \
  X(ColumnOrder)                       \
  X(PageHeader)                        \
  X(DataPageHeader)                    \
  X(DictionaryPageHeader)              \
  X(DataPageHeaderV2)                  \
  X(ColumnIndex)                       \
  X(OffsetIndex)                       \
  X(PageLocation)

/// Decodes one compact-encoded struct from the start of `data` into `*out` (which is
/// overwritten) and returns the bytes it used, so a page header can be read from a
/// buffer that holds the page after it. Errors are Corrupt, naming the field path and
/// the byte offset (counted from `base_offset`, e.g. the file offset of `data`).
/// Decoded strings are copies: `*out` does not refer to `data`.
///
/// Appends the compact encoding of `value` to the writer's output with EncodeThrift.
/// It fails (Invalid) only for values Thrift cannot represent (a string or list longer
/// than 2^31 - 1). A kUnrecognized union member with an empty `raw_value` is written as
/// an empty struct.
#define FLOE_PARQUET_DECLARE_THRIFT(T)                                                          \
  Result<size_t> DecodeThrift(std::span<const uint8_t> data, T* out, uint64_t base_offset = 0); \
  Status EncodeThrift(const T& value, ThriftCompactWriter* out);
FLOE_PARQUET_THRIFT_STRUCTS(FLOE_PARQUET_DECLARE_THRIFT)
#undef FLOE_PARQUET_DECLARE_THRIFT

/// The magic at both ends of a Parquet file, and the magic of an encrypted footer.
inline constexpr std::string_view kParquetMagic = "PAR1";
inline constexpr std::string_view kParquetEncryptedMagic = "PARE";
/// The trailer after the footer: 4-byte little-endian footer length, then the magic.
inline constexpr size_t kFooterTrailerSize = 8;
/// A read of this many bytes from the end of a file holds the footer of most files.
inline constexpr size_t kDefaultFooterReadSize = 64 * 1024;

/// Validates the trailer at the end of `tail` (the last tail.size() bytes of a file
/// of `file_size` bytes, at least kFooterTrailerSize) and returns the footer length.
/// Corrupt for a missing magic or a length that does not fit the file (the message
/// names both); NotSupported for an encrypted footer ("PARE").
Result<uint32_t> ReadFooterLength(std::span<const uint8_t> tail, uint64_t file_size);

/// Decodes the footer of a file of `file_size` bytes from its last tail.size() bytes.
/// When `tail` is too short to hold the footer, fails with Invalid, naming the number
/// of trailing bytes to read (footer length + kFooterTrailerSize). Error offsets are
/// file offsets.
Result<FileMetaData> DecodeFooter(std::span<const uint8_t> tail, uint64_t file_size);

/// Appends `metadata`, its length and the magic: everything a writer puts after the
/// last column chunk.
Status EncodeFooter(const FileMetaData& metadata, std::string* out);

}  // namespace floe::parquet
