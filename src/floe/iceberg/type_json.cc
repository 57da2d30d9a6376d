#include "floe/iceberg/type_json.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/batch/value_format.h"
#include "floe/common/base64.h"
#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/value_text.h"

namespace floe::iceberg {

using nlohmann::json;

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

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool ParseInt(std::string_view s, int64_t* out) {
  s = Trim(s);
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// A primitive type name, or nullopt when the name is not a primitive floe holds.
Result<TypePtr> PrimitiveFromName(std::string_view name, std::string_view context) {
  static const std::pair<std::string_view, TypePtr (*)()> kSimple[] = {
      {"boolean", &Boolean},
      {"int", &Int32},
      {"long", &Int64},
      {"float", &Float32},
      {"double", &Float64},
      {"date", &Date},
      {"time", &Time},
      {"timestamp", &Timestamp},
      {"timestamptz", &TimestampTz},
      {"timestamp_ns", &TimestampNs},
      {"timestamptz_ns", &TimestampTzNs},
      {"string", &String},
      {"uuid", &Uuid},
      {"binary", &Binary},
  };
  for (const auto& [n, make] : kSimple) {
    if (name == n) return make();
  }
  if (StartsWith(name, "decimal(") && name.back() == ')') {
    std::string_view inner = name.substr(8, name.size() - 9);
    size_t comma = inner.find(',');
    int64_t p = 0;
    int64_t s = 0;
    if (comma != std::string_view::npos && ParseInt(inner.substr(0, comma), &p) &&
        ParseInt(inner.substr(comma + 1), &s) && p >= 1 && p <= 38 && s >= 0 && s <= p) {
      return MakeDecimal(static_cast<int>(p), static_cast<int>(s));
    }
    return Status::Corrupt("{}: invalid decimal type '{}'", context, name);
  }
  if (StartsWith(name, "fixed[") && name.back() == ']') {
    int64_t w = 0;
    if (ParseInt(name.substr(6, name.size() - 7), &w) && w > 0 && w <= (1 << 30)) {
      return MakeFixed(static_cast<int>(w));
    }
    return Status::Corrupt("{}: invalid fixed type '{}'", context, name);
  }
  return TypePtr(nullptr);
}

// v3 types floe parses but cannot hold: they become binary fields tagged with their text.
bool IsUnrepresentedTypeName(std::string_view name) {
  return name == "unknown" || name == "variant" || name == "geometry" || name == "geography" ||
         StartsWith(name, "geometry(") || StartsWith(name, "geography(");
}

// A type together with the Iceberg text of an unrepresented type (empty when representable).
struct ParsedType {
  TypePtr type;
  std::string unrepresented;
};

Result<ParsedType> ParseType(const json& j, std::string_view context,
                             std::map<int32_t, FieldDefaults>* defaults);

Result<Field> MakeField(std::string name, const ParsedType& parsed, bool required, int32_t id,
                        std::string doc) {
  KeyValueMetadata metadata;
  if (!parsed.unrepresented.empty()) {
    metadata.emplace_back(std::string(kIcebergTypeMetadataKey), parsed.unrepresented);
  }
  if (!doc.empty()) metadata.emplace_back("doc", std::move(doc));
  return Field(std::move(name), parsed.type, !required, id, std::move(metadata));
}

// Types nest at most this deep; deeper input (from a JSON value not read through ParseJson's
// own depth limit) is rejected before the recursion can exhaust the stack.
constexpr int kMaxTypeDepth = 64;
thread_local int type_depth = 0;

struct DepthGuard {
  DepthGuard() { ++type_depth; }
  ~DepthGuard() { --type_depth; }
};

Result<ParsedType> ParseType(const json& j, std::string_view context,
                             std::map<int32_t, FieldDefaults>* defaults) {
  DepthGuard guard;
  if (type_depth > kMaxTypeDepth) {
    return Status::Corrupt("{}: types nested deeper than {} levels", context, kMaxTypeDepth);
  }
  if (j.is_string()) {
    const std::string& name = j.get_ref<const std::string&>();
    FLOE_ASSIGN_OR_RAISE(TypePtr t, PrimitiveFromName(name, context));
    if (t) return ParsedType{t, ""};
    if (IsUnrepresentedTypeName(name)) return ParsedType{Binary(), name};
    return Status::NotSupported("{}: unknown Iceberg type '{}'", context, name);
  }
  if (!j.is_object()) {
    return Status::Corrupt("{}: a type must be a string or an object, got {}", context,
                           j.type_name());
  }
  FLOE_ASSIGN_OR_RAISE(std::string kind, internal::GetString(j, "type", context));
  if (kind == "struct") {
    FLOE_ASSIGN_OR_RAISE(const json* fields, internal::GetArray(j, "fields", context));
    std::vector<Field> out;
    out.reserve(fields->size());
    for (const json& f : *fields) {
      FLOE_ASSIGN_OR_RAISE(Field field, FieldFromJson(f, context, defaults));
      out.push_back(std::move(field));
    }
    return ParsedType{Struct(std::move(out)), ""};
  }
  if (kind == "list") {
    FLOE_ASSIGN_OR_RAISE(int64_t id, internal::GetInt(j, "element-id", context));
    FLOE_ASSIGN_OR_RAISE(bool required, internal::GetBool(j, "element-required", context));
    auto it = j.find("element");
    if (it == j.end()) return Status::Corrupt("{}: list type lacks 'element'", context);
    std::string sub = fmt::format("{}: list element {}", context, id);
    FLOE_ASSIGN_OR_RAISE(ParsedType element, ParseType(*it, sub, defaults));
    FLOE_ASSIGN_OR_RAISE(Field ef,
                         MakeField("element", element, required, static_cast<int32_t>(id), ""));
    return ParsedType{List(std::move(ef)), ""};
  }
  if (kind == "map") {
    FLOE_ASSIGN_OR_RAISE(int64_t key_id, internal::GetInt(j, "key-id", context));
    FLOE_ASSIGN_OR_RAISE(int64_t value_id, internal::GetInt(j, "value-id", context));
    FLOE_ASSIGN_OR_RAISE(bool value_required, internal::GetBool(j, "value-required", context));
    auto k = j.find("key");
    auto v = j.find("value");
    if (k == j.end() || v == j.end()) {
      return Status::Corrupt("{}: map type lacks 'key' or 'value'", context);
    }
    FLOE_ASSIGN_OR_RAISE(ParsedType key,
                         ParseType(*k, fmt::format("{}: map key {}", context, key_id), defaults));
    FLOE_ASSIGN_OR_RAISE(
        ParsedType value,
        ParseType(*v, fmt::format("{}: map value {}", context, value_id), defaults));
    FLOE_ASSIGN_OR_RAISE(Field kf, MakeField("key", key, true, static_cast<int32_t>(key_id), ""));
    FLOE_ASSIGN_OR_RAISE(
        Field vf, MakeField("value", value, value_required, static_cast<int32_t>(value_id), ""));
    return ParsedType{Map(std::move(kf), std::move(vf)), ""};
  }
  return Status::NotSupported("{}: unknown Iceberg nested type '{}'", context, kind);
}

// ---- default values (JSON single-value form, spec appendix D) ----

bool ParseDecimal(std::string_view s, int scale, int precision, Int128* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  size_t dot = s.find('.');
  std::string_view int_part = s.substr(0, dot);
  std::string_view frac_part = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if (int_part.empty() && frac_part.empty()) return false;
  if (static_cast<int>(frac_part.size()) != scale && !(frac_part.empty() && scale == 0)) {
    return false;
  }
  Int128 v = 0;
  int digits = 0;
  for (std::string_view part : {int_part, frac_part}) {
    for (char c : part) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
      if (v != 0 && ++digits > precision) return false;
    }
  }
  *out = negative ? -v : v;
  return true;
}

}  // namespace

Result<Scalar> DefaultFromJson(const json& j, const TypePtr& type, std::string_view context) {
  auto bad = [&]() {
    return Status::Corrupt("{}: default value {} is not a valid {}", context, j.dump(),
                           type->ToString());
  };
  if (j.is_null()) return Scalar::Null(type);
  switch (type->id()) {
    case TypeId::kBoolean:
      if (!j.is_boolean()) return bad();
      return Scalar::Make(type, j.get<bool>());
    case TypeId::kInt32: {
      if (!j.is_number_integer()) return bad();
      if (j.is_number_unsigned() &&
          j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
        return bad();
      }
      int64_t v = j.get<int64_t>();
      if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
        return bad();
      }
      return Scalar::Make(type, static_cast<int32_t>(v));
    }
    case TypeId::kInt64:
      if (!j.is_number_integer() ||
          (j.is_number_unsigned() &&
           j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))) {
        return bad();
      }
      return Scalar::Make(type, j.get<int64_t>());
    case TypeId::kFloat32:
      if (!j.is_number()) return bad();
      return Scalar::Make(type, static_cast<float>(j.get<double>()));
    case TypeId::kFloat64:
      if (!j.is_number()) return bad();
      return Scalar::Make(type, j.get<double>());
    default:
      break;
  }
  if (!j.is_string()) return bad();
  const std::string& s = j.get_ref<const std::string&>();
  switch (type->id()) {
    case TypeId::kDecimal: {
      Int128 v = 0;
      if (!ParseDecimal(s, type->scale(), type->precision(), &v)) return bad();
      return Scalar::Make(type, v);
    }
    case TypeId::kDate: {
      const std::optional<int32_t> days = ParseIsoDate(s);
      if (!days) return bad();
      return Scalar::Make(type, *days);
    }
    case TypeId::kTime: {
      const std::optional<int64_t> micros = ParseIsoTime(s);
      if (!micros) return bad();
      return Scalar::Make(type, *micros);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      const bool zoned = type->id() == TypeId::kTimestampTz || type->id() == TypeId::kTimestampTzNs;
      const bool nanos = type->id() == TypeId::kTimestampNs || type->id() == TypeId::kTimestampTzNs;
      const std::optional<IsoTimestamp> ts = ParseIsoTimestamp(s);
      if (!ts || (ts->has_offset && !zoned)) return bad();
      const std::optional<int64_t> v = IsoTimestampUnits(*ts, nanos);
      if (!v) return bad();
      return Scalar::Make(type, *v);
    }
    case TypeId::kString:
      return Scalar::Make(type, s);
    case TypeId::kUuid: {
      std::optional<std::string> bytes = ParseUuidText(s);
      if (!bytes) return bad();
      return Scalar::Make(type, std::move(*bytes));
    }
    case TypeId::kFixed:
    case TypeId::kBinary: {
      std::optional<std::string> bytes = ParseHexText(s);
      if (!bytes) return bad();
      if (type->id() == TypeId::kFixed && static_cast<int>(bytes->size()) != type->byte_width()) {
        return bad();
      }
      return Scalar::Make(type, std::move(*bytes));
    }
    default:
      return bad();
  }
}

Result<json> DefaultToJson(const Scalar& value) {
  if (value.is_null()) return json(nullptr);
  const DataType& type = *value.type();
  std::string text;
  switch (type.id()) {
    case TypeId::kBoolean:
      return json(value.get<bool>());
    case TypeId::kInt32:
      return json(value.get<int32_t>());
    case TypeId::kInt64:
      return json(value.get<int64_t>());
    case TypeId::kFloat32:
      return json(static_cast<double>(value.get<float>()));
    case TypeId::kFloat64:
      return json(value.get<double>());
    case TypeId::kDecimal:
      AppendDecimalText(value.get<Int128>(), type.scale(), &text);
      return json(text);
    case TypeId::kDate:
      AppendIsoDateText(value.get<int32_t>(), &text);
      return json(text);
    case TypeId::kTime:
      AppendTimeText(value.get<int64_t>(), &text);
      return json(text);
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      const bool zoned = type.id() == TypeId::kTimestampTz || type.id() == TypeId::kTimestampTzNs;
      const bool nanos = type.id() == TypeId::kTimestampNs || type.id() == TypeId::kTimestampTzNs;
      AppendIsoTimestampText(value.get<int64_t>(), nanos, zoned, &text);
      return json(text);
    }
    case TypeId::kString:
      return json(value.get<std::string>());
    case TypeId::kUuid:
      AppendUuidText(value.get<std::string>(), &text);
      return json(text);
    case TypeId::kFixed:
    case TypeId::kBinary:
      return json(HexEncode(value.get<std::string>()));
    default:
      return Status::NotSupported("no JSON default form for type {}", type.ToString());
  }
}

Result<Field> FieldFromJson(const json& j, std::string_view context,
                            std::map<int32_t, FieldDefaults>* defaults) {
  if (!j.is_object()) {
    return Status::Corrupt("{}: a struct field must be an object, got {}", context, j.type_name());
  }
  FLOE_ASSIGN_OR_RAISE(int64_t id, internal::GetInt(j, "id", context));
  FLOE_ASSIGN_OR_RAISE(std::string name, internal::GetString(j, "name", context));
  std::string sub = fmt::format("{}: field '{}' (id {})", context, name, id);
  if (id <= 0 || id > std::numeric_limits<int32_t>::max()) {
    return Status::Corrupt("{}: field id out of range", sub);
  }
  FLOE_ASSIGN_OR_RAISE(bool required, internal::GetBool(j, "required", sub));
  auto t = j.find("type");
  if (t == j.end()) return Status::Corrupt("{}: missing 'type'", sub);
  FLOE_ASSIGN_OR_RAISE(ParsedType parsed, ParseType(*t, sub, defaults));
  std::string doc;
  if (auto d = j.find("doc"); d != j.end() && d->is_string()) doc = d->get<std::string>();
  FLOE_ASSIGN_OR_RAISE(Field field, MakeField(std::move(name), parsed, required,
                                              static_cast<int32_t>(id), std::move(doc)));
  // Defaults of primitive fields become scalars; a struct's default ({} or an object of
  // its fields) is expressed by its fields' own defaults and not kept here.
  if (defaults != nullptr && !parsed.type->is_nested() && parsed.unrepresented.empty()) {
    FieldDefaults fd;
    if (auto d = j.find("initial-default"); d != j.end()) {
      FLOE_ASSIGN_OR_RAISE(fd.initial_default,
                           DefaultFromJson(*d, parsed.type, sub + " initial-default"));
    }
    if (auto d = j.find("write-default"); d != j.end()) {
      FLOE_ASSIGN_OR_RAISE(fd.write_default,
                           DefaultFromJson(*d, parsed.type, sub + " write-default"));
    }
    if (fd.initial_default || fd.write_default) defaults->emplace(field.field_id(), std::move(fd));
  }
  return field;
}

Result<TypePtr> TypeFromJson(const json& j, std::string_view context,
                             std::map<int32_t, FieldDefaults>* defaults) {
  FLOE_ASSIGN_OR_RAISE(ParsedType parsed, ParseType(j, context, defaults));
  if (!parsed.unrepresented.empty()) {
    return Status::NotSupported("{}: Iceberg type {} has no floe type", context,
                                parsed.unrepresented);
  }
  return parsed.type;
}

namespace {

Result<json> FieldToJson(const Field& f, const std::map<int32_t, FieldDefaults>* defaults) {
  json out = json::object();
  out["id"] = f.field_id();
  out["name"] = f.name();
  out["required"] = !f.nullable();
  FLOE_ASSIGN_OR_RAISE(out["type"], FieldTypeToJson(f, defaults));
  for (const auto& [k, v] : f.metadata()) {
    if (k == "doc") out["doc"] = v;
  }
  if (defaults != nullptr) {
    if (auto it = defaults->find(f.field_id()); it != defaults->end()) {
      if (it->second.initial_default) {
        FLOE_ASSIGN_OR_RAISE(out["initial-default"], DefaultToJson(*it->second.initial_default));
      }
      if (it->second.write_default) {
        FLOE_ASSIGN_OR_RAISE(out["write-default"], DefaultToJson(*it->second.write_default));
      }
    }
  }
  return out;
}

}  // namespace

Result<json> FieldTypeToJson(const Field& field, const std::map<int32_t, FieldDefaults>* defaults) {
  if (auto unrepresented = UnrepresentedIcebergType(field)) return json(*unrepresented);
  return TypeToJson(*field.type(), defaults);
}

Result<json> TypeToJson(const DataType& type, const std::map<int32_t, FieldDefaults>* defaults) {
  switch (type.id()) {
    case TypeId::kStruct: {
      json fields = json::array();
      for (const Field& f : type.fields()) {
        FLOE_ASSIGN_OR_RAISE(json fj, FieldToJson(f, defaults));
        fields.push_back(std::move(fj));
      }
      return json{{"type", "struct"}, {"fields", std::move(fields)}};
    }
    case TypeId::kList: {
      const Field& e = type.field(0);
      FLOE_ASSIGN_OR_RAISE(json element, FieldTypeToJson(e, defaults));
      return json{{"type", "list"},
                  {"element-id", e.field_id()},
                  {"element", std::move(element)},
                  {"element-required", !e.nullable()}};
    }
    case TypeId::kMap: {
      const Field& k = type.field(0);
      const Field& v = type.field(1);
      FLOE_ASSIGN_OR_RAISE(json key, FieldTypeToJson(k, defaults));
      FLOE_ASSIGN_OR_RAISE(json value, FieldTypeToJson(v, defaults));
      return json{{"type", "map"},
                  {"key-id", k.field_id()},
                  {"key", std::move(key)},
                  {"value-id", v.field_id()},
                  {"value", std::move(value)},
                  {"value-required", !v.nullable()}};
    }
    default: {
      FLOE_ASSIGN_OR_RAISE(std::string name, IcebergTypeName(type));
      return json(name);
    }
  }
}

Result<SchemaPtr> SchemaFromJson(const json& j, std::string_view context,
                                 int32_t default_schema_id) {
  if (!j.is_object()) {
    return Status::Corrupt("{}: a schema must be an object, got {}", context, j.type_name());
  }
  int32_t schema_id = default_schema_id;
  if (j.contains("schema-id")) {
    FLOE_ASSIGN_OR_RAISE(int64_t id, internal::GetInt(j, "schema-id", context));
    schema_id = static_cast<int32_t>(id);
  }
  std::string sub = fmt::format("{}: schema {}", context, schema_id);
  if (auto t = j.find("type"); t != j.end() && (!t->is_string() || *t != "struct")) {
    return Status::Corrupt("{}: 'type' must be \"struct\"", sub);
  }
  FLOE_ASSIGN_OR_RAISE(const json* fields, internal::GetArray(j, "fields", sub));
  std::map<int32_t, FieldDefaults> defaults;
  std::vector<Field> out;
  for (const json& f : *fields) {
    FLOE_ASSIGN_OR_RAISE(Field field, FieldFromJson(f, sub, &defaults));
    out.push_back(std::move(field));
  }
  std::vector<int32_t> identifiers;
  if (auto ids = j.find("identifier-field-ids"); ids != j.end() && !ids->is_null()) {
    if (!ids->is_array())
      return Status::Corrupt("{}: 'identifier-field-ids' must be an array", sub);
    for (const json& id : *ids) {
      if (!id.is_number_integer()) {
        return Status::Corrupt("{}: 'identifier-field-ids' must hold integers", sub);
      }
      identifiers.push_back(id.get<int32_t>());
    }
  }
  auto schema =
      Schema::Make(schema_id, std::move(out), std::move(identifiers), std::move(defaults));
  if (!schema.ok()) return Status::Corrupt("{}: {}", context, schema.error().message());
  return *schema;
}

Result<json> SchemaToJson(const Schema& schema) {
  json fields = json::array();
  for (const Field& f : schema.fields()) {
    FLOE_ASSIGN_OR_RAISE(json fj, FieldToJson(f, &schema.defaults()));
    fields.push_back(std::move(fj));
  }
  json out = json::object();
  out["type"] = "struct";
  out["schema-id"] = schema.schema_id();
  if (!schema.identifier_field_ids().empty()) {
    out["identifier-field-ids"] = schema.identifier_field_ids();
  }
  out["fields"] = std::move(fields);
  return out;
}

Result<SchemaPtr> SchemaFromJsonString(std::string_view text, std::string_view context) {
  FLOE_ASSIGN_OR_RAISE(json j, internal::ParseJson(text, context));
  return SchemaFromJson(j, context);
}

Result<std::string> SchemaToJsonString(const Schema& schema) {
  FLOE_ASSIGN_OR_RAISE(json j, SchemaToJson(schema));
  return j.dump();
}

}  // namespace floe::iceberg
