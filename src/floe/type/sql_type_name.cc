#include "floe/type/sql_type_name.h"

#include <array>

namespace floe {
namespace {

struct SqlName {
  TypeId id;
  std::string_view name;
  /// Makes the type; nullptr for numeric, whose type needs its modifiers.
  TypePtr (*make)();
};

// The first name of each type is the one PostgreSQL prints.
constexpr std::array kSqlNames = {
    SqlName{TypeId::kBoolean, "boolean", &Boolean},
    SqlName{TypeId::kBoolean, "bool", &Boolean},
    SqlName{TypeId::kInt8, "tinyint", &Int8},
    SqlName{TypeId::kInt16, "smallint", &Int16},
    SqlName{TypeId::kInt16, "int2", &Int16},
    SqlName{TypeId::kInt32, "integer", &Int32},
    SqlName{TypeId::kInt32, "int", &Int32},
    SqlName{TypeId::kInt32, "int4", &Int32},
    SqlName{TypeId::kInt64, "bigint", &Int64},
    SqlName{TypeId::kInt64, "int8", &Int64},
    SqlName{TypeId::kFloat32, "real", &Float32},
    SqlName{TypeId::kFloat32, "float4", &Float32},
    SqlName{TypeId::kFloat64, "double precision", &Float64},
    SqlName{TypeId::kFloat64, "float8", &Float64},
    SqlName{TypeId::kDecimal, "numeric", nullptr},
    SqlName{TypeId::kDecimal, "decimal", nullptr},
    SqlName{TypeId::kDate, "date", &Date},
    SqlName{TypeId::kTime, "time without time zone", &Time},
    SqlName{TypeId::kTime, "time", &Time},
    SqlName{TypeId::kTimestamp, "timestamp without time zone", &Timestamp},
    SqlName{TypeId::kTimestamp, "timestamp", &Timestamp},
    SqlName{TypeId::kTimestampTz, "timestamp with time zone", &TimestampTz},
    SqlName{TypeId::kTimestampTz, "timestamptz", &TimestampTz},
    SqlName{TypeId::kString, "text", &String},
    SqlName{TypeId::kString, "varchar", &String},
    SqlName{TypeId::kString, "bpchar", &Bpchar},
    SqlName{TypeId::kString, "char", &Bpchar},
    SqlName{TypeId::kString, "character", &Bpchar},
    SqlName{TypeId::kString, "name", &String},
    SqlName{TypeId::kString, "string", &String},
    SqlName{TypeId::kBinary, "bytea", &Binary},
    SqlName{TypeId::kString, "json", &Json},
    SqlName{TypeId::kString, "jsonb", &Jsonb},
    SqlName{TypeId::kUuid, "uuid", &Uuid},
};

}  // namespace

std::string_view SqlTypeName(TypeId id) {
  // Nanosecond timestamps and fixed-width binary have no PostgreSQL type of their own.
  if (id == TypeId::kTimestampNs) id = TypeId::kTimestamp;
  if (id == TypeId::kTimestampTzNs) id = TypeId::kTimestampTz;
  if (id == TypeId::kFixed) id = TypeId::kBinary;
  for (const SqlName& n : kSqlNames) {
    if (n.id == id) return n.name;
  }
  return {};
}

std::string SqlTypeName(const DataType& type) {
  // PostgreSQL names bpchar "character" in messages (format_type without a typmod).
  if (type.is_bpchar()) return "character";
  if (type.extension() != Extension::kNone) return std::string(ExtensionName(type.extension()));
  // PostgreSQL's arrays have one type whatever their dimensions: integer[].
  if (type.id() == TypeId::kList) {
    const DataType* element = type.field(0).type().get();
    while (element->id() == TypeId::kList) element = element->field(0).type().get();
    return SqlTypeName(*element) + "[]";
  }
  const std::string_view name = SqlTypeName(type.id());
  return name.empty() ? type.ToString() : std::string(name);
}

TypePtr TypeFromSqlName(std::string_view name) {
  for (const SqlName& n : kSqlNames) {
    if (n.name == name) return n.make != nullptr ? n.make() : nullptr;
  }
  return nullptr;
}

}  // namespace floe
