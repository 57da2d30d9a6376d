#pragma once

// Parts of the Parquet writer that are tested on their own: the floe schema -> Parquet schema
// conversion, repetition/definition level generation from nested arrays, and column statistics
// with the sort orders of parquet.thrift (ColumnOrder / TypeDefinedOrder). Private to
// floe/format/parquet.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/format/parquet/metadata.h"
#include "floe/type/type.h"

namespace floe::parquet::internal {

/// How a leaf's floe values become Parquet physical values.
enum class LeafKind : uint8_t {
  kBoolean,
  kInt8,          // INT32, sign-extended
  kInt16,         // INT32, sign-extended
  kInt32,         // INT32 (int32, date)
  kInt64,         // INT64 (int64, time, timestamps)
  kFloat,         // FLOAT
  kDouble,        // DOUBLE
  kDecimalInt32,  // INT32 from Int128 (precision <= 9)
  kDecimalInt64,  // INT64 from Int128 (precision <= 18)
  kDecimalFixed,  // FIXED_LEN_BYTE_ARRAY, big-endian two's complement, minimal width
  kByteArray,     // BYTE_ARRAY (string, binary)
  kFixed,         // FIXED_LEN_BYTE_ARRAY (fixed, uuid)
};

/// The order min/max statistics of a column use (parquet.thrift, "Sort order").
enum class SortOrder : uint8_t {
  kBoolean,          // false < true
  kSigned,           // INT32 / INT64 as signed integers
  kFloat,            // FLOAT / DOUBLE, NaN excluded, -0.0 == +0.0
  kUnsignedBytes,    // BYTE_ARRAY / FLBA compared bytewise as unsigned
  kSignedBigEndian,  // FLBA decimals: big-endian two's complement
};

/// One primitive column of the Parquet schema.
struct LeafColumn {
  std::vector<std::string> path;  // path_in_schema
  std::string dotted_path;        // for messages
  Type physical_type = Type::kInt32;
  int32_t type_length = 0;  // FLBA width
  int32_t precision = 0;    // decimals
  LeafKind kind = LeafKind::kInt32;
  SortOrder sort_order = SortOrder::kSigned;
  int16_t max_def = 0;
  int16_t max_rep = 0;
};

/// A node of the write tree that mirrors the floe type of a top-level column.
struct WriteNode {
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  std::string name;
  /// The node may be null (OPTIONAL): a null adds nothing to the definition level.
  bool optional = true;
  /// The definition level reached when this node is present (not null).
  int16_t def_level = 0;
  /// For lists and maps: the repetition level of their repeated group.
  int16_t rep_level = 0;
  /// Leaves under this node: [first_leaf, end_leaf) in LeafColumn order.
  int first_leaf = 0;
  int end_leaf = 0;
  /// Struct fields; for lists the element; for maps the key and the value.
  std::vector<WriteNode> children;
};

/// The Parquet schema of a floe schema: SchemaElements (root first, depth-first), the leaf
/// columns in order, and one write tree per top-level field.
struct ParquetSchema {
  std::vector<SchemaElement> elements;
  std::vector<LeafColumn> leaves;
  std::vector<WriteNode> roots;
};

/// Converts `schema`. NotSupported for a type Parquet cannot hold (an empty struct).
Result<ParquetSchema> ToParquetSchema(const Schema& schema);

/// The levels and values of one leaf for a run of rows.
struct LeafLevels {
  /// One entry per level slot; empty when max_def == 0 (resp. max_rep == 0).
  std::vector<int16_t> def;
  std::vector<int16_t> rep;
  int64_t num_entries = 0;
  /// The leaf array the values come from.
  ArrayPtr values;
  /// When true, entry k is element `first + k` of `values`, a value when def[k] == max_def
  /// (rows map 1:1 to entries). Otherwise `indices` lists the elements that are values, in order.
  bool contiguous = true;
  int64_t first = 0;
  std::vector<int64_t> indices;

  void Clear();
};

/// Generates levels for the top-level column `array` (rows [0, array.length())) into
/// `out[root.first_leaf .. root.end_leaf)`. A null in a required position is a Constraint
/// error naming the column and the row (`row_base` + row index).
Status GenerateLevels(const WriteNode& root, const std::vector<LeafColumn>& leaves,
                      const ArrayPtr& array, int64_t row_base, std::vector<LeafLevels>* out);

/// Checks that every decimal value of a leaf fits the column's precision (|v| < 10^p), so that
/// no value is silently cut to the column's physical width. InvalidArgument names the column
/// and, for flat columns, the row (`row_base` + index).
Status ValidateDecimals(const LeafColumn& leaf, const LeafLevels& levels, int64_t row_base);

/// Min/max/null-count of a set of values in one sort order. Byte values are kept untruncated;
/// truncation happens when the bounds are encoded.
class ColumnStats {
 public:
  explicit ColumnStats(SortOrder order = SortOrder::kSigned) : order_(order) {}

  void AddNulls(int64_t n) { null_count_ += n; }
  void UpdateInt(int64_t min, int64_t max);
  /// NaN must already be excluded.
  void UpdateDouble(double min, double max);
  void UpdateBool(bool min, bool max) { UpdateInt(min ? 1 : 0, max ? 1 : 0); }
  void UpdateBytes(std::string_view min, std::string_view max);
  void Merge(const ColumnStats& other);
  void Reset() { *this = ColumnStats(order_); }

  SortOrder order() const { return order_; }
  bool has_min_max() const { return has_min_max_; }
  int64_t null_count() const { return null_count_; }

  /// Compares two encoded bounds in this order (-1, 0, 1), for the boundary order.
  int CompareEncoded(std::string_view a, std::string_view b) const;

  /// The PLAIN-encoded bounds (no length prefix) for `physical_type`; byte values longer than
  /// `truncate_length` (when > 0) are cut: the min to a prefix, the max to a prefix whose last
  /// byte is incremented (kept exact when that is impossible). For strings the cut falls on a
  /// UTF-8 character boundary. Floats follow parquet.thrift: a zero min is written as -0.0, a
  /// zero max as +0.0.
  struct Bounds {
    std::string min, max;
    bool min_exact = true, max_exact = true;
  };
  Bounds Encode(Type physical_type, bool is_string, int32_t truncate_length) const;

 private:
  SortOrder order_;
  bool has_min_max_ = false;
  int64_t null_count_ = 0;
  int64_t imin_ = 0, imax_ = 0;
  double dmin_ = 0, dmax_ = 0;
  std::string smin_, smax_;
};

/// -1, 0 or 1: `a` against `b` in `order`, for byte orders.
int CompareBytes(SortOrder order, std::string_view a, std::string_view b);

/// The minimal FIXED_LEN_BYTE_ARRAY width for a decimal of `precision` digits.
int32_t DecimalFixedWidth(int precision);

}  // namespace floe::parquet::internal
