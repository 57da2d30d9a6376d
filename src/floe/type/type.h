#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/common/result.h"

namespace floe {

/// A 128-bit decimal's unscaled value (two's complement).
using Int128 = __int128;

/// The engine's data types. Each has one physical layout (the Arrow memory layout):
///   kBoolean                          validity + bit-packed values
///   kInt8..kInt64, kFloat32/64        validity + values
///   kDecimal                          validity + 16-byte little-endian two's complement
///   kDate                             validity + int32 days since 1970-01-01
///   kTime                             validity + int64 microseconds since midnight
///   kTimestamp, kTimestampTz          validity + int64 microseconds since the epoch
///   kTimestampNs, kTimestampTzNs      validity + int64 nanoseconds since the epoch
///   kString, kBinary                  validity + int32 offsets + data
///   kFixed(n), kUuid (n = 16)         validity + n bytes per value
///   kStruct                           validity, one child per field
///   kList                             validity + int32 offsets, child 0 = elements
///   kMap                              validity + int32 offsets, child 0 = struct<key, value>
enum class TypeId : uint8_t {
  kBoolean,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat32,
  kFloat64,
  kDecimal,
  kDate,
  kTime,
  kTimestamp,
  kTimestampTz,
  kTimestampNs,
  kTimestampTzNs,
  kString,
  kBinary,
  kFixed,
  kUuid,
  kStruct,
  kList,
  kMap,
};

/// A logical type over a storage type, as Arrow's extension types: the values have the
/// storage type's layout and every storage-kind switch treats them as that type, while SQL
/// (function and operator resolution, casts, printing of the type's name) tells them apart.
/// Formats without the logical type (Iceberg) store the storage type.
///   kJson, kJsonb                     over kString: JSON text (jsonb's text is normalized)
///   kBpchar                           over kString: PostgreSQL's character(n), values
///                                     blank-padded to n; compared, and converted to text,
///                                     without their trailing spaces
///   kInterval                         over kFixed(16): PostgreSQL's interval, three fields
///                                     kept apart (int32 months, int32 days, int64
///                                     microseconds, little-endian; common/interval.h)
///   kNumeric                          over kFixed(18): PostgreSQL's numeric without a
///                                     precision, each value with its own scale (int128
///                                     unscaled value and int16 scale, little-endian; NaN
///                                     and the infinities as negative scales;
///                                     common/numeric.h). numeric(p, s) is kDecimal.
enum class Extension : uint8_t {
  kNone,
  kJson,
  kJsonb,
  kInterval,
  kBpchar,
  kNumeric,
};

/// The lower-case name of an extension ("json", "jsonb"; "" for kNone).
std::string_view ExtensionName(Extension extension);

class DataType;
using TypePtr = std::shared_ptr<const DataType>;

/// Field ids are absent (kNoFieldId) unless the schema came from a format that has them.
inline constexpr int32_t kNoFieldId = -1;

/// Ordered string pairs attached to a field or schema.
using KeyValueMetadata = std::vector<std::pair<std::string, std::string>>;

/// A named, typed, nullable-or-not slot in a struct or schema, with an optional
/// Iceberg/Parquet field id and free-form metadata.
class Field {
 public:
  Field() = default;
  Field(std::string name, TypePtr type, bool nullable = true, int32_t field_id = kNoFieldId,
        KeyValueMetadata metadata = {})
      : name_(std::move(name)),
        type_(std::move(type)),
        nullable_(nullable),
        field_id_(field_id),
        metadata_(std::move(metadata)) {}

  const std::string& name() const { return name_; }
  const TypePtr& type() const { return type_; }
  bool nullable() const { return nullable_; }
  int32_t field_id() const { return field_id_; }
  bool has_field_id() const { return field_id_ != kNoFieldId; }
  const KeyValueMetadata& metadata() const { return metadata_; }

  Field WithName(std::string name) const;
  Field WithType(TypePtr type) const;
  Field WithNullable(bool nullable) const;
  Field WithFieldId(int32_t field_id) const;

  /// "name: type" with " not null" and " (id N)" when they apply.
  std::string ToString() const;
  /// Names, types, nullability, field ids and metadata all equal.
  bool Equals(const Field& other) const;

 private:
  std::string name_;
  TypePtr type_;
  bool nullable_ = true;
  int32_t field_id_ = kNoFieldId;
  KeyValueMetadata metadata_;
};

/// An immutable data type. Create with the factory functions below.
class DataType {
 public:
  TypeId id() const { return id_; }
  /// The logical type over the storage type id(); kNone for plain types.
  Extension extension() const { return extension_; }
  bool is_json() const { return extension_ == Extension::kJson || extension_ == Extension::kJsonb; }
  bool is_interval() const { return extension_ == Extension::kInterval; }
  bool is_bpchar() const { return extension_ == Extension::kBpchar; }
  bool is_numeric() const { return extension_ == Extension::kNumeric; }

  /// Decimal precision (1..38) and scale (0..precision); 0 for other types.
  int precision() const { return precision_; }
  int scale() const { return scale_; }
  /// Bytes per value for fixed-width types (kFixed's n, 16 for kUuid and kDecimal,
  /// 8 for int64-backed types, ...); 0 for boolean (bit-packed) and variable width.
  int byte_width() const { return byte_width_; }

  /// Struct fields; for kList the single element field; for kMap the key and value.
  const std::vector<Field>& fields() const { return fields_; }
  const Field& field(int i) const { return fields_[static_cast<size_t>(i)]; }
  int num_fields() const { return static_cast<int>(fields_.size()); }

  bool is_nested() const {
    return id_ == TypeId::kStruct || id_ == TypeId::kList || id_ == TypeId::kMap;
  }
  /// Types whose values live in one fixed-width values buffer (not boolean).
  bool is_fixed_width() const { return byte_width_ > 0; }
  /// kString and kBinary: offsets + data.
  bool is_binary_like() const { return id_ == TypeId::kString || id_ == TypeId::kBinary; }
  bool is_integer() const { return id_ >= TypeId::kInt8 && id_ <= TypeId::kInt64; }
  bool is_floating() const { return id_ == TypeId::kFloat32 || id_ == TypeId::kFloat64; }
  bool is_timestamp() const { return id_ >= TypeId::kTimestamp && id_ <= TypeId::kTimestampTzNs; }

  /// SQL-ish spelling: "int64", "decimal(18,2)", "timestamptz", "fixed[16]",
  /// "struct<a: int32, b: string>", "list<int32>", "map<string, int64>".
  std::string ToString() const;
  /// Structural equality; extension, nested field names, nullability and ids included.
  bool Equals(const DataType& other) const;

  /// For kMap: the struct<key, value> type of its entries child.
  TypePtr map_entries_type() const;

 private:
  friend TypePtr MakeDataType(TypeId, int, int, int, std::vector<Field>, Extension);
  DataType(TypeId id, int precision, int scale, int byte_width, std::vector<Field> fields,
           Extension extension)
      : id_(id),
        extension_(extension),
        precision_(precision),
        scale_(scale),
        byte_width_(byte_width),
        fields_(std::move(fields)) {}

  TypeId id_;
  Extension extension_;
  int precision_;
  int scale_;
  int byte_width_;
  std::vector<Field> fields_;
};

/// The lower-case name of a type id ("int64", "timestamptz_ns", ...).
std::string_view TypeIdName(TypeId id);

TypePtr Boolean();
TypePtr Int8();
TypePtr Int16();
TypePtr Int32();
TypePtr Int64();
TypePtr Float32();
TypePtr Float64();
/// decimal(precision, scale); aborts on out-of-range arguments (see MakeDecimal).
TypePtr Decimal(int precision, int scale);
/// decimal(precision, scale) or kInvalidArgument unless 1 <= precision <= 38 and
/// 0 <= scale <= precision.
Result<TypePtr> MakeDecimal(int precision, int scale);
TypePtr Date();
TypePtr Time();
TypePtr Timestamp();
TypePtr TimestampTz();
TypePtr TimestampNs();
TypePtr TimestampTzNs();
TypePtr String();
/// PostgreSQL's json (text kept as written) and jsonb (text normalized), over kString.
TypePtr Json();
TypePtr Jsonb();
TypePtr Interval();
/// PostgreSQL's numeric without a precision: each value has its own scale.
TypePtr Numeric();
/// PostgreSQL's character(n) (bpchar) over kString; n is not part of the type (as a typmod
/// is not part of PostgreSQL's): values carry their padding.
TypePtr Bpchar();
TypePtr Binary();
/// fixed[width]; aborts unless width > 0 (see MakeFixed).
TypePtr Fixed(int width);
Result<TypePtr> MakeFixed(int width);
TypePtr Uuid();
TypePtr Struct(std::vector<Field> fields);
/// list<element>; the element field is conventionally named "element".
TypePtr List(Field element);
TypePtr List(TypePtr element_type, bool element_nullable = true);
/// map<key, value>; keys are never null. Fields are conventionally "key" and "value".
TypePtr Map(Field key, Field value);
TypePtr Map(TypePtr key_type, TypePtr value_type, bool value_nullable = true);

/// Whether values of type `a` are values of type `b` as they are: the same types at every
/// depth, with nested field names, nullability, field ids and extensions aside (a query's struct
/// column and a table's, whose nested fields carry Iceberg ids).
bool SameShape(const DataType& a, const DataType& b);

/// An ordered set of fields: the columns of a record batch or table.
class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<Field> fields, KeyValueMetadata metadata = {})
      : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

  const std::vector<Field>& fields() const { return fields_; }
  const Field& field(int i) const { return fields_[static_cast<size_t>(i)]; }
  int num_fields() const { return static_cast<int>(fields_.size()); }
  const KeyValueMetadata& metadata() const { return metadata_; }

  /// Index of the first field named `name`, or -1.
  int GetFieldIndex(std::string_view name) const;
  /// Index of the top-level field with this field id, or -1.
  int GetFieldIndexById(int32_t field_id) const;

  std::string ToString() const;
  bool Equals(const Schema& other) const;

 private:
  std::vector<Field> fields_;
  KeyValueMetadata metadata_;
};

using SchemaPtr = std::shared_ptr<const Schema>;

}  // namespace floe
