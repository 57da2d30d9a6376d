#pragma once

// Maps a Parquet schema (the flattened SchemaElement list of a footer) to a floe schema,
// and describes for each leaf column how its values are converted and where its levels
// put it in the nested output.

#include <cstdint>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/format/parquet/metadata.h"
#include "floe/type/type.h"

namespace floe::parquet::internal {

/// How a leaf's physical values become floe values.
enum class Conversion : uint8_t {
  kNone,                 // same bytes (or the same bits for booleans)
  kInt32ToInt8,          // INTEGER(8, signed)
  kInt32ToInt16,         // INTEGER(16, signed), INTEGER(8, unsigned)
  kUInt32ToInt64,        // INTEGER(32, unsigned): zero-extended
  kUInt64ToDecimal,      // INTEGER(64, unsigned) -> decimal(20, 0)
  kInt32ToDecimal,       // DECIMAL on INT32: sign-extended to 128 bits
  kInt64ToDecimal,       // DECIMAL on INT64
  kBytesToDecimal,       // DECIMAL on FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY: big-endian
  kInt32MillisToMicros,  // TIME(MILLIS) on INT32 -> int64 microseconds
  kInt64MillisToMicros,  // TIMESTAMP(MILLIS)
  kInt64NanosToMicros,   // TIME(NANOS): floe has no nanosecond time; truncates
  kInt96ToNanos,         // legacy INT96 timestamps -> timestamp_ns
  kFloat16ToFloat32,     // FLOAT16 on FIXED_LEN_BYTE_ARRAY(2)
};

/// One leaf (primitive) column of the file.
struct LeafInfo {
  /// Index among the file's leaves (= index of the ColumnChunk in a row group).
  int column_index = 0;
  /// Dotted path of the leaf, for messages.
  std::string path;
  Type physical = Type::kBoolean;
  /// FIXED_LEN_BYTE_ARRAY width (0 otherwise).
  int type_length = 0;
  int16_t max_def = 0;
  int16_t max_rep = 0;
  /// The floe type of the values and the conversion that produces them.
  TypePtr type;
  Conversion conversion = Conversion::kNone;
  /// Bytes per physical value for fixed-width physical types (0 for BOOLEAN and BYTE_ARRAY).
  int physical_width = 0;
  /// Bytes per floe value (0 for boolean; -1 for string/binary).
  int out_width = 0;
};

/// One node of the output tree: how a floe array is assembled from the levels of the
/// leaves below it.
struct ReadNode {
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  Field field;
  /// Definition level from which this node's value is not null.
  int16_t def_level = 0;
  /// A level entry is a slot of this node when def >= slot_def and rep <= slot_rep
  /// (the levels of the innermost enclosing repeated node; 0 at the top).
  int16_t slot_def = 0;
  int16_t slot_rep = 0;
  /// Lists and maps: the definition level from which an element exists and the
  /// repetition level of the repeated node.
  int16_t elem_def = 0;
  int16_t elem_rep = 0;
  /// Leaves: index into FileSchema::leaves.
  int leaf = -1;
  /// The first leaf below this node (its levels give this node's structure).
  int first_leaf = -1;
  /// Struct fields; for a list the element; for a map the struct<key, value> entries.
  std::vector<ReadNode> children;
};

/// The mapped schema of a file.
struct FileSchema {
  SchemaPtr schema;
  std::vector<LeafInfo> leaves;
  /// One node per top-level field.
  std::vector<ReadNode> top;
  /// For each top-level field, its leaves [begin, end).
  std::vector<std::pair<int, int>> top_leaf_range;
};

/// Maps the schema. Corrupt for a malformed tree (child counts that do not fit, a
/// primitive without type, ...); NotSupported for types floe cannot represent.
Result<FileSchema> MapSchema(const std::vector<SchemaElement>& elements);

/// The floe type of a primitive schema element and its conversion (exposed for tests).
Result<std::pair<TypePtr, Conversion>> MapPrimitiveType(const SchemaElement& element);

}  // namespace floe::parquet::internal
