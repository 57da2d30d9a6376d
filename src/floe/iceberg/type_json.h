#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/schema.h"
#include "floe/type/type.h"

namespace floe::iceberg {

/// Iceberg types floe cannot hold as values yet (v3 `unknown`, `variant`, `geometry(...)`,
/// `geography(...)`) are still parsed, so that table metadata that mentions them can be
/// read, printed and written back unchanged. Such a field is given the engine type
/// `binary` and carries its Iceberg type text in the field metadata under this key
/// (e.g. {"iceberg.type", "geometry(srid:4326)"}). Readers must check
/// UnrepresentedIcebergType() and fail with kNotSupported when such a column is read.
inline constexpr std::string_view kIcebergTypeMetadataKey = "iceberg.type";

/// The Iceberg type text of a field whose Iceberg type floe cannot represent (see
/// kIcebergTypeMetadataKey), or nullopt for an ordinary field.
std::optional<std::string> UnrepresentedIcebergType(const Field& field);

/// kNotSupported naming the column and its type when `field` (or any field nested in it)
/// has an unrepresented Iceberg type; OK otherwise. `column_name` is used in the message.
Status CheckRepresentable(const Field& field, std::string_view column_name);

/// The Iceberg type name of a field: its unrepresented type text when it has one,
/// otherwise IcebergTypeName(type) (struct/list/map children spelled the same way).
Result<std::string> IcebergFieldTypeName(const Field& field);

/// Parses an Iceberg type from its JSON form (a primitive name string, or a struct / list /
/// map object) into a floe type. Nested fields carry their ids, names, nullability and
/// docs ("doc" is kept in field metadata under "doc"). `context` is prepended to error
/// messages (e.g. the metadata file name). Struct field defaults are collected into
/// `defaults` when it is non-null.
Result<TypePtr> TypeFromJson(const nlohmann::json& json, std::string_view context,
                             std::map<int32_t, FieldDefaults>* defaults = nullptr);

/// Parses one Iceberg struct field object ({"id", "name", "required", "type", "doc",
/// "initial-default", "write-default"}).
Result<Field> FieldFromJson(const nlohmann::json& json, std::string_view context,
                            std::map<int32_t, FieldDefaults>* defaults = nullptr);

/// Writes a type in Iceberg's JSON form. `defaults` supplies struct fields' defaults.
Result<nlohmann::json> TypeToJson(const DataType& type,
                                  const std::map<int32_t, FieldDefaults>* defaults = nullptr);
/// Writes a type of a field (honours unrepresented Iceberg types).
Result<nlohmann::json> FieldTypeToJson(const Field& field,
                                       const std::map<int32_t, FieldDefaults>* defaults = nullptr);

/// Parses a schema object ({"type": "struct", "schema-id", "identifier-field-ids",
/// "fields"}). A missing "schema-id" (v1) is `default_schema_id`.
Result<SchemaPtr> SchemaFromJson(const nlohmann::json& json, std::string_view context,
                                 int32_t default_schema_id = 0);
/// Writes a schema object including "schema-id" and "identifier-field-ids".
Result<nlohmann::json> SchemaToJson(const Schema& schema);

/// Schema JSON as text, and back (parse errors are kCorrupt naming `context`).
Result<SchemaPtr> SchemaFromJsonString(std::string_view text, std::string_view context = "schema");
Result<std::string> SchemaToJsonString(const Schema& schema);

/// A default value in JSON single-value form for a primitive type (spec appendix D:
/// boolean, numbers, date/time/timestamp strings, hex binary, uuid string, decimal string).
Result<Scalar> DefaultFromJson(const nlohmann::json& json, const TypePtr& type,
                               std::string_view context);
Result<nlohmann::json> DefaultToJson(const Scalar& value);

}  // namespace floe::iceberg
