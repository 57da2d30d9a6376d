#include "floe/connector/iceberg/declared_types.h"

#include <charconv>
#include <cstdint>
#include <utility>

#include <nlohmann/json.hpp>

#include "floe/type/sql_type_name.h"

namespace floe::connector {

namespace {

constexpr std::string_view kVarcharPrefix = "character varying(";
constexpr std::string_view kCharPrefix = "character(";

// The declaration `name` as a column over `stored`, or nullopt when it is not one floe
// writes or does not fit the stored type.
std::optional<DeclaredColumn> ParseDeclaration(const std::string& name, const DataType& stored) {
  const bool plain_int = stored.id() == TypeId::kInt32 && stored.extension() == Extension::kNone;
  const bool plain_string =
      stored.id() == TypeId::kString && stored.extension() == Extension::kNone;
  DeclaredColumn out;
  out.sql_name = name;
  for (std::string_view prefix : {kVarcharPrefix, kCharPrefix}) {
    if (!std::string_view(name).starts_with(prefix) || !name.ends_with(")")) continue;
    const char* begin = name.data() + prefix.size();
    const char* end = name.data() + name.size() - 1;
    int32_t length = 0;
    auto [ptr, ec] = std::from_chars(begin, end, length);
    if (ec != std::errc() || ptr != end || length < 1 || !plain_string) return std::nullopt;
    out.blank_padded = prefix == kCharPrefix;
    out.type = out.blank_padded ? Bpchar() : String();
    out.max_length = length;
    return out;
  }
  if (name == "interval") {
    // Iceberg has no interval: its 16 bytes (months, days, microseconds) as fixed[16].
    if (stored.id() != TypeId::kFixed || stored.byte_width() != 16 ||
        stored.extension() != Extension::kNone) {
      return std::nullopt;
    }
    out.type = Interval();
    return out;
  }
  out.type = TypeFromSqlName(name);
  if (out.type == nullptr) return std::nullopt;
  switch (out.type->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
      if (!plain_int) return std::nullopt;
      break;
    case TypeId::kString:
      if (out.type->extension() == Extension::kNone || !plain_string) return std::nullopt;
      break;
    default:
      return std::nullopt;
  }
  out.sql_name = SqlTypeName(*out.type);
  return out;
}

// The declarations of `properties` by field id (empty when absent or not a JSON object:
// the stored types apply).
std::map<int32_t, std::string> ReadDeclarations(
    const std::map<std::string, std::string>& properties) {
  std::map<int32_t, std::string> out;
  auto it = properties.find(std::string(kDeclaredTypesProperty));
  if (it == properties.end()) return out;
  nlohmann::json json = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return out;
  for (const auto& [key, value] : json.items()) {
    if (!value.is_string()) continue;
    int32_t id = 0;
    auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
    if (ec != std::errc() || ptr != key.data() + key.size() || id <= 0) continue;
    out.emplace(id, value.get<std::string>());
  }
  return out;
}

std::string WriteDeclarations(const std::map<int32_t, std::string>& declarations) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [id, name] : declarations) json[std::to_string(id)] = name;
  return json.dump();
}

}  // namespace

TypePtr StoredColumnType(const TypePtr& type) {
  switch (type->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
      return Int32();
    case TypeId::kString:
      return type->extension() != Extension::kNone ? String() : type;
    case TypeId::kFixed:
      // Iceberg has no decimal of unbounded scale: numeric is stored as decimal(38, 10),
      // as numeric columns of engines without one are.
      if (type->is_numeric()) return Decimal(38, 10);
      return type->is_interval() ? Fixed(16) : type;
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: {
      std::vector<Field> fields = type->fields();
      for (Field& f : fields) f = f.WithType(StoredColumnType(f.type()));
      if (type->id() == TypeId::kStruct) return Struct(std::move(fields));
      if (type->id() == TypeId::kList) return List(std::move(fields[0]));
      return Map(std::move(fields[0]), std::move(fields[1]));
    }
    default:
      return type;
  }
}

std::optional<std::string> DeclarationOf(const TypePtr& type, std::string_view type_name,
                                         const std::vector<int64_t>& modifiers) {
  const bool one_length = modifiers.size() == 1 && modifiers[0] >= 1 && modifiers[0] <= INT32_MAX;
  if (type->is_bpchar()) {
    return one_length ? std::string(kCharPrefix) + std::to_string(modifiers[0]) + ")"
                      : std::string("bpchar");
  }
  if (type->id() == TypeId::kString && type->extension() == Extension::kNone) {
    if (one_length && type_name == "varchar") {
      return std::string(kVarcharPrefix) + std::to_string(modifiers[0]) + ")";
    }
    return std::nullopt;
  }
  if (type->is_interval()) return std::string("interval");
  const TypeId id = type->id();
  if (id == TypeId::kInt8 || id == TypeId::kInt16 || type->is_json()) return SqlTypeName(*type);
  return std::nullopt;
}

std::optional<std::string> DeclaredTypesValue(
    const std::vector<std::optional<std::string>>& declarations, const iceberg::Schema& schema) {
  std::map<int32_t, std::string> by_id;
  const std::vector<Field>& stored = schema.fields();
  for (size_t i = 0; i < declarations.size() && i < stored.size(); ++i) {
    if (declarations[i].has_value()) by_id.emplace(stored[i].field_id(), *declarations[i]);
  }
  if (by_id.empty()) return std::nullopt;
  return WriteDeclarations(by_id);
}

std::map<std::string, std::string> WithDeclaration(std::map<std::string, std::string> properties,
                                                   int32_t field_id,
                                                   const std::optional<std::string>& declaration) {
  std::map<int32_t, std::string> by_id = ReadDeclarations(properties);
  by_id.erase(field_id);
  if (declaration.has_value()) by_id.emplace(field_id, *declaration);
  if (by_id.empty()) {
    properties.erase(std::string(kDeclaredTypesProperty));
  } else {
    properties[std::string(kDeclaredTypesProperty)] = WriteDeclarations(by_id);
  }
  return properties;
}

std::vector<std::optional<DeclaredColumn>> DeclaredColumns(
    const Schema& columns, const std::map<std::string, std::string>& properties) {
  std::vector<std::optional<DeclaredColumn>> out(static_cast<size_t>(columns.num_fields()));
  const std::map<int32_t, std::string> by_id = ReadDeclarations(properties);
  if (by_id.empty()) return out;
  for (int i = 0; i < columns.num_fields(); ++i) {
    const Field& field = columns.field(i);
    if (!field.has_field_id()) continue;
    auto it = by_id.find(field.field_id());
    if (it != by_id.end())
      out[static_cast<size_t>(i)] = ParseDeclaration(it->second, *field.type());
  }
  return out;
}

SchemaPtr ApplyDeclaredTypes(const SchemaPtr& columns,
                             const std::map<std::string, std::string>& properties) {
  const std::vector<std::optional<DeclaredColumn>> declared = DeclaredColumns(*columns, properties);
  std::vector<Field> fields = columns->fields();
  bool changed = false;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!declared[i].has_value() || declared[i]->type->Equals(*fields[i].type())) continue;
    fields[i] = fields[i].WithType(declared[i]->type);
    changed = true;
  }
  if (!changed) return columns;
  return std::make_shared<const Schema>(std::move(fields), columns->metadata());
}

}  // namespace floe::connector
