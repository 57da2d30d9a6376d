#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::avro {

/// The Avro schema types (Avro specification, "Schema Declaration").
enum class AvroType : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

/// The lower-case Avro name of a type ("long", "record", ...).
std::string_view AvroTypeName(AvroType type);

struct AvroNode;
using AvroNodePtr = std::shared_ptr<const AvroNode>;

/// One field of a record, with the Iceberg attributes floe uses.
struct AvroField {
  std::string name;
  AvroNodePtr type;
  /// The "field-id" attribute, or kNoFieldId.
  int32_t field_id = kNoFieldId;
  /// Whether the field declares a "default" (its value is kept as JSON text).
  bool has_default = false;
  std::string default_json;
};

/// A parsed Avro schema node. Named types that are referenced more than once share
/// one node. Attributes other than those below are not kept here: the writer keeps the
/// schema JSON text verbatim instead.
struct AvroNode {
  AvroType type = AvroType::kNull;
  /// Full name of a record, enum or fixed ("namespace.name" when namespaced).
  std::string name;
  /// The "logicalType" attribute, or empty.
  std::string logical_type;
  /// Decimal precision and scale (logicalType "decimal").
  int precision = 0;
  int scale = 0;
  /// Bytes per value of a fixed.
  int fixed_size = 0;
  /// The "adjust-to-utc" attribute of timestamps (Iceberg); absent reads as false.
  bool adjust_to_utc = false;
  /// Record fields.
  std::vector<AvroField> fields;
  /// Enum symbols.
  std::vector<std::string> symbols;
  /// Array items or map values.
  AvroNodePtr items;
  /// Union branches.
  std::vector<AvroNodePtr> branches;
  /// Iceberg ids on arrays ("element-id") and maps ("key-id", "value-id").
  int32_t element_id = kNoFieldId;
  int32_t key_id = kNoFieldId;
  int32_t value_id = kNoFieldId;

  /// For a union: the index of its "null" branch, or -1.
  int NullBranch() const;
  /// For a two-branch union with one "null": the other branch; else null.
  const AvroNode* NonNullBranch() const;
};

/// Parses Avro schema JSON. Named types may be referenced by full or short name after
/// their definition; recursive types are NotSupported. kInvalidArgument names what
/// is malformed (bad JSON, unknown type, duplicate name, bad decimal, ...).
Result<AvroNodePtr> ParseAvroSchema(std::string_view json);

/// The floe type of an Avro node, following the Iceberg Avro mapping: records are
/// structs, arrays are lists, arrays of key/value records with logicalType "map" and
/// Avro maps are maps, ["null", T] unions are nullable T, enums are strings, logical
/// types map to date/time/timestamp(tz)[_ns]/decimal/uuid. Other unions are
/// NotSupported. `nullable` receives whether the node is a union with "null".
Result<TypePtr> AvroToFloeType(const AvroNode& node, bool* nullable);

/// The floe schema of a top-level record schema (its fields, ids and nullability).
Result<Schema> AvroToFloeSchema(const AvroNode& record);

/// Avro schema JSON for a floe schema per the Iceberg spec's Avro appendix: optional
/// fields are ["null", T] with "default": null; "field-id", "element-id", "key-id",
/// "value-id" carry the ids; structs are records named "r<field id>"; maps with
/// non-string keys are arrays of "k<key id>_v<value id>" records with logicalType
/// "map"; decimals are fixed of the minimum size; uuid is fixed[16]; timestamps
/// carry "adjust-to-utc". Field names that are not valid Avro names are sanitized
/// (an invalid character c becomes "_x" and its hex code). kInvalidArgument for a
/// type Avro cannot hold.
Result<std::string> ToAvroSchemaJson(const Schema& schema, std::string_view record_name);

/// Bytes needed to hold any unscaled decimal of `precision` digits in two's complement.
int DecimalRequiredBytes(int precision);

}  // namespace floe::avro
