#include "floe/type/sql_type_name.h"

namespace floe {

std::string SqlTypeName(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt8:
      return "tinyint";
    case TypeId::kInt16:
      return "smallint";
    case TypeId::kInt32:
      return "integer";
    case TypeId::kInt64:
      return "bigint";
    case TypeId::kFloat32:
      return "real";
    case TypeId::kFloat64:
      return "double precision";
    case TypeId::kDecimal:
      return "numeric";
    case TypeId::kDate:
      return "date";
    case TypeId::kTime:
      return "time without time zone";
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
      return "timestamp without time zone";
    case TypeId::kTimestampTz:
    case TypeId::kTimestampTzNs:
      return "timestamp with time zone";
    case TypeId::kString:
      return "text";
    case TypeId::kBinary:
    case TypeId::kFixed:
      return "bytea";
    case TypeId::kUuid:
      return "uuid";
    default:
      return type.ToString();
  }
}

}  // namespace floe
