#include "floe/iceberg/name_mapping.h"

#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/iceberg/json_internal.h"

namespace floe::iceberg {

using nlohmann::json;

namespace {

Result<std::vector<MappedField>> ParseFields(const json& j, std::string_view context) {
  if (!j.is_array()) {
    return Status::Corrupt("{}: a name mapping must be an array, got {}", context, j.type_name());
  }
  std::vector<MappedField> out;
  size_t i = 0;
  for (const json& e : j) {
    std::string sub = fmt::format("{}[{}]", context, i++);
    if (!e.is_object()) return Status::Corrupt("{}: a mapped field must be an object", sub);
    MappedField f;
    FLOE_ASSIGN_OR_RAISE(auto id, internal::GetOptionalInt(e, "field-id", sub));
    if (id) {
      if (*id <= 0 || *id > INT32_MAX) return Status::Corrupt("{}: field-id out of range", sub);
      f.field_id = static_cast<int32_t>(*id);
    }
    FLOE_ASSIGN_OR_RAISE(const json* names, internal::GetArray(e, "names", sub));
    for (const json& n : *names) {
      if (!n.is_string()) return Status::Corrupt("{}: 'names' must hold strings", sub);
      f.names.push_back(n.get<std::string>());
    }
    if (auto nested = e.find("fields"); nested != e.end() && !nested->is_null()) {
      FLOE_ASSIGN_OR_RAISE(f.fields, ParseFields(*nested, sub + ".fields"));
    }
    out.push_back(std::move(f));
  }
  return out;
}

json FieldsToJson(const std::vector<MappedField>& fields) {
  json out = json::array();
  for (const auto& f : fields) {
    json e = json::object();
    if (f.field_id) e["field-id"] = *f.field_id;
    e["names"] = f.names;
    if (!f.fields.empty()) e["fields"] = FieldsToJson(f.fields);
    out.push_back(std::move(e));
  }
  return out;
}

const MappedField* FindIn(const std::vector<MappedField>& fields, std::string_view name) {
  for (const auto& f : fields) {
    for (const auto& n : f.names) {
      if (n == name) return &f;
    }
  }
  return nullptr;
}

MappedField FromField(const Field& field) {
  MappedField m;
  m.field_id = field.field_id();
  m.names = {field.name()};
  for (const Field& child : field.type()->fields()) m.fields.push_back(FromField(child));
  return m;
}

Field ApplyToField(const Field& field, const MappedField* mapping) {
  const std::vector<MappedField>* children = mapping ? &mapping->fields : nullptr;
  int32_t id = mapping && mapping->field_id ? *mapping->field_id : kNoFieldId;
  const DataType& type = *field.type();
  auto child_mapping = [&](const Field& child,
                           std::string_view fallback_name) -> const MappedField* {
    if (children == nullptr) return nullptr;
    const MappedField* m = FindIn(*children, child.name());
    if (m == nullptr && !fallback_name.empty()) m = FindIn(*children, fallback_name);
    return m;
  };
  Field out = field.WithFieldId(id);
  switch (type.id()) {
    case TypeId::kStruct: {
      std::vector<Field> kids;
      for (const Field& c : type.fields()) kids.push_back(ApplyToField(c, child_mapping(c, "")));
      return out.WithType(Struct(std::move(kids)));
    }
    case TypeId::kList: {
      const Field& e = type.field(0);
      return out.WithType(List(ApplyToField(e, child_mapping(e, "element"))));
    }
    case TypeId::kMap: {
      const Field& k = type.field(0);
      const Field& v = type.field(1);
      return out.WithType(Map(ApplyToField(k, child_mapping(k, "key")),
                              ApplyToField(v, child_mapping(v, "value"))));
    }
    default:
      return out;
  }
}

}  // namespace

Result<NameMapping> NameMapping::FromJson(const json& j, std::string_view context) {
  FLOE_ASSIGN_OR_RAISE(auto fields, ParseFields(j, context));
  return NameMapping(std::move(fields));
}

Result<NameMapping> NameMapping::FromJsonString(std::string_view text, std::string_view context) {
  FLOE_ASSIGN_OR_RAISE(json j, internal::ParseJson(text, context));
  return FromJson(j, context);
}

Result<std::optional<NameMapping>> NameMapping::FromTableProperties(
    const std::map<std::string, std::string>& properties, std::string_view context) {
  auto it = properties.find(std::string(kDefaultNameMappingProperty));
  if (it == properties.end()) return std::optional<NameMapping>();
  std::string sub = fmt::format("{}: property '{}'", context, kDefaultNameMappingProperty);
  FLOE_ASSIGN_OR_RAISE(NameMapping m, FromJsonString(it->second, sub));
  return std::optional<NameMapping>(std::move(m));
}

NameMapping NameMapping::FromSchema(const Schema& schema) {
  std::vector<MappedField> fields;
  for (const Field& f : schema.fields()) fields.push_back(FromField(f));
  return NameMapping(std::move(fields));
}

json NameMapping::ToJson() const { return FieldsToJson(fields_); }

std::string NameMapping::ToJsonString() const { return ToJson().dump(); }

const MappedField* NameMapping::FindEntry(const std::vector<std::string>& name_path) const {
  const std::vector<MappedField>* level = &fields_;
  const MappedField* found = nullptr;
  for (const auto& name : name_path) {
    found = FindIn(*level, name);
    if (found == nullptr) return nullptr;
    level = &found->fields;
  }
  return found;
}

std::optional<int32_t> NameMapping::Find(const std::vector<std::string>& name_path) const {
  const MappedField* f = FindEntry(name_path);
  return f ? f->field_id : std::nullopt;
}

floe::SchemaPtr NameMapping::Apply(const floe::Schema& file_schema) const {
  std::vector<Field> fields;
  for (const Field& f : file_schema.fields()) {
    fields.push_back(ApplyToField(f, FindIn(fields_, f.name())));
  }
  return std::make_shared<floe::Schema>(std::move(fields), file_schema.metadata());
}

}  // namespace floe::iceberg
