#include "floe/iceberg/type_json.h"

#include <nlohmann/json.hpp>

namespace floe::iceberg {

std::optional<std::string> UnrepresentedIcebergType(const Field& field) {
  for (const auto& [key, value] : field.metadata()) {
    if (key == kIcebergTypeMetadataKey) return value;
  }
  return std::nullopt;
}

Status CheckRepresentable(const Field& field, std::string_view column_name) {
  if (auto type = UnrepresentedIcebergType(field)) {
    return Status::NotSupported("column '{}' has Iceberg type {}, which floe cannot read yet",
                                column_name, *type);
  }
  if (field.type() == nullptr) return Status::OK();
  for (const Field& child : field.type()->fields()) {
    std::string name = std::string(column_name) + "." + child.name();
    FLOE_RETURN_NOT_OK(CheckRepresentable(child, name));
  }
  return Status::OK();
}

Result<std::string> IcebergFieldTypeName(const Field& field) {
  if (auto type = UnrepresentedIcebergType(field)) return *type;
  return IcebergTypeName(*field.type());
}

}  // namespace floe::iceberg
