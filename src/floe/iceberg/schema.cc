#include "floe/iceberg/schema.h"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "floe/iceberg/type_json.h"

namespace floe::iceberg {

namespace {

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool IsPrimitive(const DataType& type) { return !type.is_nested(); }

std::string JoinName(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

bool ScalarEquals(const Scalar& a, const Scalar& b) {
  if ((a.type() == nullptr) != (b.type() == nullptr)) return false;
  if (a.type() != nullptr && !a.type()->Equals(*b.type())) return false;
  return a.value() == b.value();
}

bool OptionalScalarEquals(const std::optional<Scalar>& a, const std::optional<Scalar>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a.has_value() || ScalarEquals(*a, *b);
}

// Prunes `field` to the selected ids; nullopt when nothing under it is selected.
std::optional<Field> PruneField(const Field& field, const std::set<int32_t>& selected) {
  if (selected.count(field.field_id()) > 0) return field;
  const DataType& type = *field.type();
  switch (type.id()) {
    case TypeId::kStruct: {
      std::vector<Field> kept;
      for (const Field& child : type.fields()) {
        if (auto pruned = PruneField(child, selected)) kept.push_back(std::move(*pruned));
      }
      if (kept.empty()) return std::nullopt;
      return field.WithType(Struct(std::move(kept)));
    }
    case TypeId::kList: {
      auto element = PruneField(type.field(0), selected);
      if (!element) return std::nullopt;
      return field.WithType(List(std::move(*element)));
    }
    case TypeId::kMap: {
      auto key = PruneField(type.field(0), selected);
      auto value = PruneField(type.field(1), selected);
      if (!key && !value) return std::nullopt;
      // A map needs both children: an unselected key or value is kept whole.
      return field.WithType(
          Map(key ? std::move(*key) : type.field(0), value ? std::move(*value) : type.field(1)));
    }
    default:
      return std::nullopt;
  }
}

void AppendFieldText(const Field& field, std::string* out);

std::string TypeText(const Field& field) {
  if (auto unrepresented = UnrepresentedIcebergType(field)) return *unrepresented;
  const DataType& type = *field.type();
  switch (type.id()) {
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (int i = 0; i < type.num_fields(); ++i) {
        if (i > 0) out += ", ";
        AppendFieldText(type.field(i), &out);
      }
      out += ">";
      return out;
    }
    case TypeId::kList:
      return "list<" + TypeText(type.field(0)) + ">";
    case TypeId::kMap:
      return "map<" + TypeText(type.field(0)) + ", " + TypeText(type.field(1)) + ">";
    default: {
      auto name = IcebergTypeName(type);
      return name.ok() ? *name : type.ToString();
    }
  }
}

void AppendFieldText(const Field& field, std::string* out) {
  fmt::format_to(std::back_inserter(*out), "{}: {}: {} {}", field.field_id(), field.name(),
                 field.nullable() ? "optional" : "required", TypeText(field));
}

}  // namespace

Result<std::shared_ptr<const Schema>> Schema::Make(int32_t schema_id, std::vector<Field> fields,
                                                   std::vector<int32_t> identifier_field_ids,
                                                   std::map<int32_t, FieldDefaults> defaults) {
  std::shared_ptr<Schema> schema(new Schema());
  schema->schema_id_ = schema_id;
  schema->columns_ = std::make_shared<floe::Schema>(std::move(fields));
  schema->identifier_field_ids_ = std::move(identifier_field_ids);
  schema->defaults_ = std::move(defaults);

  // Index every field by id (the fields live in columns_, which never moves again).
  struct Pending {
    const Field* field;
    int32_t parent_id;
    std::string full_name;
  };
  std::vector<Pending> stack;
  const auto& top = schema->columns_->fields();
  for (auto it = top.rbegin(); it != top.rend(); ++it) stack.push_back({&*it, 0, it->name()});
  while (!stack.empty()) {
    Pending p = std::move(stack.back());
    stack.pop_back();
    const Field& f = *p.field;
    if (f.type() == nullptr) {
      return Status::Invalid("schema {}: field '{}' has no type", schema_id, p.full_name);
    }
    if (f.field_id() <= 0) {
      return Status::Invalid("schema {}: field '{}' has no positive field id (got {})", schema_id,
                             p.full_name, f.field_id());
    }
    auto [pos, inserted] =
        schema->by_id_.emplace(f.field_id(), Entry{&f, p.parent_id, p.full_name});
    if (!inserted) {
      return Status::Invalid("schema {}: field id {} is used by both '{}' and '{}'", schema_id,
                             f.field_id(), pos->second.full_name, p.full_name);
    }
    schema->highest_field_id_ = std::max(schema->highest_field_id_, f.field_id());
    const auto& children = f.type()->fields();
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      stack.push_back({&*it, f.field_id(), JoinName(p.full_name, it->name())});
    }
  }

  for (int32_t id : schema->identifier_field_ids_) {
    auto it = schema->by_id_.find(id);
    if (it == schema->by_id_.end()) {
      return Status::Invalid("schema {}: identifier field id {} does not exist", schema_id, id);
    }
    const Field& f = *it->second.field;
    const std::string& name = it->second.full_name;
    if (!IsPrimitive(*f.type())) {
      return Status::Invalid("schema {}: identifier field '{}' (id {}) is not a primitive type",
                             schema_id, name, id);
    }
    if (f.nullable()) {
      return Status::Invalid("schema {}: identifier field '{}' (id {}) must be required", schema_id,
                             name, id);
    }
    if (f.type()->is_floating()) {
      return Status::Invalid("schema {}: identifier field '{}' (id {}) cannot be float or double",
                             schema_id, name, id);
    }
    for (int32_t parent = it->second.parent_id; parent != 0;) {
      const Entry& pe = schema->by_id_.at(parent);
      if (pe.field->type()->id() != TypeId::kStruct) {
        return Status::Invalid(
            "schema {}: identifier field '{}' (id {}) is nested in a list or map", schema_id, name,
            id);
      }
      if (pe.field->nullable()) {
        return Status::Invalid(
            "schema {}: identifier field '{}' (id {}) is nested in optional struct '{}'", schema_id,
            name, id, pe.full_name);
      }
      parent = pe.parent_id;
    }
  }

  for (const auto& [id, d] : schema->defaults_) {
    auto it = schema->by_id_.find(id);
    if (it == schema->by_id_.end()) {
      return Status::Invalid("schema {}: a default is given for field id {}, which does not exist",
                             schema_id, id);
    }
    const Field& f = *it->second.field;
    if (!IsPrimitive(*f.type())) {
      return Status::Invalid(
          "schema {}: field '{}' (id {}) is not primitive; its default must be "
          "given through its fields",
          schema_id, it->second.full_name, id);
    }
    for (const auto* value : {&d.initial_default, &d.write_default}) {
      if (!value->has_value()) continue;
      if ((*value)->type() == nullptr || !(*value)->type()->Equals(*f.type())) {
        return Status::Invalid("schema {}: default of field '{}' (id {}) has type {}, expected {}",
                               schema_id, it->second.full_name, id,
                               (*value)->type() ? (*value)->type()->ToString() : "none",
                               f.type()->ToString());
      }
    }
  }
  return std::shared_ptr<const Schema>(std::move(schema));
}

const FieldDefaults* Schema::FindDefaults(int32_t field_id) const {
  auto it = defaults_.find(field_id);
  return it == defaults_.end() ? nullptr : &it->second;
}

const Field* Schema::FindFieldById(int32_t field_id) const {
  auto it = by_id_.find(field_id);
  return it == by_id_.end() ? nullptr : it->second.field;
}

std::optional<std::string> Schema::FindColumnName(int32_t field_id) const {
  auto it = by_id_.find(field_id);
  if (it == by_id_.end()) return std::nullopt;
  return it->second.full_name;
}

Result<const Field*> Schema::FindFieldByName(std::string_view dotted_name,
                                             bool case_sensitive) const {
  if (case_sensitive) {
    for (const auto& [id, entry] : by_id_) {
      if (entry.full_name == dotted_name) return entry.field;
    }
    return static_cast<const Field*>(nullptr);
  }
  const std::string wanted = AsciiLower(dotted_name);
  const Entry* found = nullptr;
  for (const auto& [id, entry] : by_id_) {
    if (entry.full_name.size() != wanted.size()) continue;
    if (AsciiLower(entry.full_name) != wanted) continue;
    if (entry.full_name == dotted_name) return entry.field;  // an exact match always wins
    if (found != nullptr) {
      return Status::Bind("column name '{}' is ambiguous: it matches both '{}' and '{}'",
                          dotted_name, found->full_name, entry.full_name);
    }
    found = &entry;
  }
  return found ? found->field : nullptr;
}

std::optional<int32_t> Schema::FindParentId(int32_t field_id) const {
  auto it = by_id_.find(field_id);
  if (it == by_id_.end() || it->second.parent_id == 0) return std::nullopt;
  return it->second.parent_id;
}

Result<std::shared_ptr<const Schema>> Schema::Select(const std::vector<int32_t>& field_ids) const {
  std::set<int32_t> selected;
  for (int32_t id : field_ids) {
    if (by_id_.count(id) == 0) {
      return Status::Invalid("cannot select field id {}: schema {} has no such field", id,
                             schema_id_);
    }
    selected.insert(id);
  }
  std::vector<Field> kept;
  for (const Field& f : fields()) {
    if (auto pruned = PruneField(f, selected)) kept.push_back(std::move(*pruned));
  }
  // Keep the identifier fields and defaults of fields that survived.
  std::set<int32_t> kept_ids;
  std::vector<const Field*> stack;
  for (const Field& f : kept) stack.push_back(&f);
  while (!stack.empty()) {
    const Field* f = stack.back();
    stack.pop_back();
    kept_ids.insert(f->field_id());
    for (const Field& c : f->type()->fields()) stack.push_back(&c);
  }
  std::vector<int32_t> identifiers;
  for (int32_t id : identifier_field_ids_) {
    if (kept_ids.count(id) > 0) identifiers.push_back(id);
  }
  std::map<int32_t, FieldDefaults> defaults;
  for (const auto& [id, d] : defaults_) {
    if (kept_ids.count(id) > 0) defaults.emplace(id, d);
  }
  return Make(schema_id_, std::move(kept), std::move(identifiers), std::move(defaults));
}

bool Schema::Equals(const Schema& other) const {
  if (schema_id_ != other.schema_id_) return false;
  if (identifier_field_ids_ != other.identifier_field_ids_) return false;
  if (!columns_->Equals(*other.columns_)) return false;
  if (defaults_.size() != other.defaults_.size()) return false;
  for (const auto& [id, d] : defaults_) {
    auto it = other.defaults_.find(id);
    if (it == other.defaults_.end()) return false;
    if (!OptionalScalarEquals(d.initial_default, it->second.initial_default)) return false;
    if (!OptionalScalarEquals(d.write_default, it->second.write_default)) return false;
  }
  return true;
}

std::string Schema::ToString() const {
  std::string out = "table {\n";
  for (const Field& f : fields()) {
    out += "  ";
    AppendFieldText(f, &out);
    out += "\n";
  }
  out += "}";
  return out;
}

Result<std::string> IcebergTypeName(const DataType& type) {
  if (type.is_interval()) {
    return Status::NotSupported(
        "type interval cannot be stored in an Iceberg table (Iceberg has no interval type)");
  }
  if (type.is_numeric()) {
    return Status::NotSupported(
        "type numeric without a precision cannot be stored in an Iceberg table (use "
        "numeric(p, s))");
  }
  switch (type.id()) {
    case TypeId::kBoolean:
      return std::string("boolean");
    case TypeId::kInt32:
      return std::string("int");
    case TypeId::kInt64:
      return std::string("long");
    case TypeId::kFloat32:
      return std::string("float");
    case TypeId::kFloat64:
      return std::string("double");
    case TypeId::kDecimal:
      return fmt::format("decimal({},{})", type.precision(), type.scale());
    case TypeId::kDate:
      return std::string("date");
    case TypeId::kTime:
      return std::string("time");
    case TypeId::kTimestamp:
      return std::string("timestamp");
    case TypeId::kTimestampTz:
      return std::string("timestamptz");
    case TypeId::kTimestampNs:
      return std::string("timestamp_ns");
    case TypeId::kTimestampTzNs:
      return std::string("timestamptz_ns");
    case TypeId::kString:
      return std::string("string");
    case TypeId::kBinary:
      return std::string("binary");
    case TypeId::kFixed:
      return fmt::format("fixed[{}]", type.byte_width());
    case TypeId::kUuid:
      return std::string("uuid");
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (int i = 0; i < type.num_fields(); ++i) {
        const Field& f = type.field(i);
        FLOE_ASSIGN_OR_RAISE(std::string child, IcebergFieldTypeName(f));
        if (i > 0) out += ", ";
        fmt::format_to(std::back_inserter(out), "{}: {}: {} {}", f.field_id(), f.name(),
                       f.nullable() ? "optional" : "required", child);
      }
      out += ">";
      return out;
    }
    case TypeId::kList: {
      FLOE_ASSIGN_OR_RAISE(std::string element, IcebergFieldTypeName(type.field(0)));
      return "list<" + element + ">";
    }
    case TypeId::kMap: {
      FLOE_ASSIGN_OR_RAISE(std::string key, IcebergFieldTypeName(type.field(0)));
      FLOE_ASSIGN_OR_RAISE(std::string value, IcebergFieldTypeName(type.field(1)));
      return "map<" + key + ", " + value + ">";
    }
    case TypeId::kInt8:
    case TypeId::kInt16:
      break;
  }
  return Status::NotSupported("Iceberg has no type for {}", type.ToString());
}

bool IsPromotionAllowed(const DataType& from, const DataType& to, bool allow_v3) {
  if (from.Equals(to)) return true;
  switch (from.id()) {
    case TypeId::kInt32:
      return to.id() == TypeId::kInt64;
    case TypeId::kFloat32:
      return to.id() == TypeId::kFloat64;
    case TypeId::kDecimal:
      return to.id() == TypeId::kDecimal && to.scale() == from.scale() &&
             to.precision() >= from.precision();
    case TypeId::kDate:
      return allow_v3 && (to.id() == TypeId::kTimestamp || to.id() == TypeId::kTimestampNs);
    default:
      return false;
  }
}

std::vector<Field> FreshFieldIds::Fields(const std::vector<Field>& fields) {
  std::vector<int32_t> ids;
  for (const Field& f : fields) ids.push_back(Assign(f.field_id()));
  std::vector<Field> out;
  for (size_t i = 0; i < fields.size(); ++i) {
    out.push_back(fields[i].WithFieldId(ids[i]).WithType(Type(fields[i].type())));
  }
  return out;
}

TypePtr FreshFieldIds::Type(const TypePtr& type) {
  switch (type->id()) {
    case TypeId::kStruct:
      return Struct(Fields(type->fields()));
    case TypeId::kList: {
      const Field& element = type->field(0);
      const int32_t id = Assign(element.field_id());
      return List(element.WithFieldId(id).WithType(Type(element.type())));
    }
    case TypeId::kMap: {
      const Field& key = type->field(0);
      const Field& value = type->field(1);
      const int32_t key_id = Assign(key.field_id());
      const int32_t value_id = Assign(value.field_id());
      TypePtr key_type = Type(key.type());
      TypePtr value_type = Type(value.type());
      return Map(key.WithFieldId(key_id).WithType(std::move(key_type)),
                 value.WithFieldId(value_id).WithType(std::move(value_type)));
    }
    default:
      return type;
  }
}

int32_t FreshFieldIds::Assign(int32_t old_id) {
  const int32_t id = next_++;
  if (old_id != kNoFieldId) mapping_[old_id] = id;
  return id;
}

}  // namespace floe::iceberg
