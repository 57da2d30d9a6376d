#include "floe/type/type.h"

namespace floe {

TypePtr MakeDataType(TypeId id, int precision, int scale, int byte_width, std::vector<Field> fields,
                     Extension extension) {
  return TypePtr(new DataType(id, precision, scale, byte_width, std::move(fields), extension));
}

std::string_view ExtensionName(Extension extension) {
  switch (extension) {
    case Extension::kNone:
      return "";
    case Extension::kJson:
      return "json";
    case Extension::kJsonb:
      return "jsonb";
    case Extension::kInterval:
      return "interval";
    case Extension::kBpchar:
      return "bpchar";
    case Extension::kNumeric:
      return "numeric";
  }
  return "";
}

std::string_view TypeIdName(TypeId id) {
  switch (id) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt8:
      return "int8";
    case TypeId::kInt16:
      return "int16";
    case TypeId::kInt32:
      return "int32";
    case TypeId::kInt64:
      return "int64";
    case TypeId::kFloat32:
      return "float32";
    case TypeId::kFloat64:
      return "float64";
    case TypeId::kDecimal:
      return "decimal";
    case TypeId::kDate:
      return "date";
    case TypeId::kTime:
      return "time";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampTz:
      return "timestamptz";
    case TypeId::kTimestampNs:
      return "timestamp_ns";
    case TypeId::kTimestampTzNs:
      return "timestamptz_ns";
    case TypeId::kString:
      return "string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kFixed:
      return "fixed";
    case TypeId::kUuid:
      return "uuid";
    case TypeId::kStruct:
      return "struct";
    case TypeId::kList:
      return "list";
    case TypeId::kMap:
      return "map";
  }
  return "unknown";
}

Field Field::WithName(std::string name) const {
  Field f = *this;
  f.name_ = std::move(name);
  return f;
}
Field Field::WithType(TypePtr type) const {
  Field f = *this;
  f.type_ = std::move(type);
  return f;
}
Field Field::WithNullable(bool nullable) const {
  Field f = *this;
  f.nullable_ = nullable;
  return f;
}
Field Field::WithFieldId(int32_t field_id) const {
  Field f = *this;
  f.field_id_ = field_id;
  return f;
}

std::string Field::ToString() const {
  std::string out = name_ + ": " + (type_ ? type_->ToString() : "<null type>");
  if (!nullable_) out += " not null";
  if (has_field_id()) out += fmt::format(" (id {})", field_id_);
  return out;
}

bool Field::Equals(const Field& other) const {
  if (name_ != other.name_ || nullable_ != other.nullable_ || field_id_ != other.field_id_ ||
      metadata_ != other.metadata_) {
    return false;
  }
  if (!type_ || !other.type_) return type_ == other.type_;
  return type_->Equals(*other.type_);
}

std::string DataType::ToString() const {
  if (extension_ != Extension::kNone) return std::string(ExtensionName(extension_));
  switch (id_) {
    case TypeId::kDecimal:
      return fmt::format("decimal({},{})", precision_, scale_);
    case TypeId::kFixed:
      return fmt::format("fixed[{}]", byte_width_);
    case TypeId::kList:
      return "list<" + fields_[0].type()->ToString() + ">";
    case TypeId::kMap:
      return "map<" + fields_[0].type()->ToString() + ", " + fields_[1].type()->ToString() + ">";
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) out += ", ";
        out += fields_[i].name() + ": " + fields_[i].type()->ToString();
      }
      return out + ">";
    }
    default:
      return std::string(TypeIdName(id_));
  }
}

bool DataType::Equals(const DataType& other) const {
  if (this == &other) return true;
  if (id_ != other.id_ || extension_ != other.extension_ || precision_ != other.precision_ ||
      scale_ != other.scale_ || byte_width_ != other.byte_width_ ||
      fields_.size() != other.fields_.size()) {
    return false;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i])) return false;
  }
  return true;
}

bool SameShape(const DataType& a, const DataType& b) {
  if (a.id() != b.id() || a.precision() != b.precision() || a.scale() != b.scale() ||
      a.byte_width() != b.byte_width() || a.num_fields() != b.num_fields()) {
    return false;
  }
  for (int i = 0; i < a.num_fields(); ++i) {
    if (!SameShape(*a.field(i).type(), *b.field(i).type())) return false;
  }
  return true;
}

TypePtr DataType::map_entries_type() const {
  FLOE_CHECK(id_ == TypeId::kMap, ToString());
  return Struct({fields_[0], fields_[1]});
}

namespace {
TypePtr Simple(TypeId id, int width) { return MakeDataType(id, 0, 0, width, {}, Extension::kNone); }
}  // namespace

#define FLOE_SIMPLE_TYPE(Fn, Id, Width)            \
  TypePtr Fn() {                                   \
    static const TypePtr type = Simple(Id, Width); \
    return type;                                   \
  }
FLOE_SIMPLE_TYPE(Boolean, TypeId::kBoolean, 0)
FLOE_SIMPLE_TYPE(Int8, TypeId::kInt8, 1)
FLOE_SIMPLE_TYPE(Int16, TypeId::kInt16, 2)
FLOE_SIMPLE_TYPE(Int32, TypeId::kInt32, 4)
FLOE_SIMPLE_TYPE(Int64, TypeId::kInt64, 8)
FLOE_SIMPLE_TYPE(Float32, TypeId::kFloat32, 4)
FLOE_SIMPLE_TYPE(Float64, TypeId::kFloat64, 8)
FLOE_SIMPLE_TYPE(Date, TypeId::kDate, 4)
FLOE_SIMPLE_TYPE(Time, TypeId::kTime, 8)
FLOE_SIMPLE_TYPE(Timestamp, TypeId::kTimestamp, 8)
FLOE_SIMPLE_TYPE(TimestampTz, TypeId::kTimestampTz, 8)
FLOE_SIMPLE_TYPE(TimestampNs, TypeId::kTimestampNs, 8)
FLOE_SIMPLE_TYPE(TimestampTzNs, TypeId::kTimestampTzNs, 8)
FLOE_SIMPLE_TYPE(String, TypeId::kString, 0)
FLOE_SIMPLE_TYPE(Binary, TypeId::kBinary, 0)
FLOE_SIMPLE_TYPE(Uuid, TypeId::kUuid, 16)
#undef FLOE_SIMPLE_TYPE

TypePtr Json() {
  static const TypePtr type = MakeDataType(TypeId::kString, 0, 0, 0, {}, Extension::kJson);
  return type;
}

TypePtr Jsonb() {
  static const TypePtr type = MakeDataType(TypeId::kString, 0, 0, 0, {}, Extension::kJsonb);
  return type;
}

TypePtr Bpchar() {
  static const TypePtr type = MakeDataType(TypeId::kString, 0, 0, 0, {}, Extension::kBpchar);
  return type;
}

TypePtr Interval() {
  static const TypePtr type = MakeDataType(TypeId::kFixed, 0, 0, 16, {}, Extension::kInterval);
  return type;
}

TypePtr Numeric() {
  static const TypePtr type = MakeDataType(TypeId::kFixed, 0, 0, 18, {}, Extension::kNumeric);
  return type;
}

Result<TypePtr> MakeDecimal(int precision, int scale) {
  if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
    return Status::Invalid(
        "decimal({},{}) is out of range: precision must be 1..38 and scale "
        "0..precision",
        precision, scale);
  }
  return MakeDataType(TypeId::kDecimal, precision, scale, 16, {}, Extension::kNone);
}

TypePtr Decimal(int precision, int scale) { return MakeDecimal(precision, scale).ValueOrDie(); }

Result<TypePtr> MakeFixed(int width) {
  if (width <= 0) return Status::Invalid("fixed[{}] needs a positive width", width);
  return MakeDataType(TypeId::kFixed, 0, 0, width, {}, Extension::kNone);
}

TypePtr Fixed(int width) { return MakeFixed(width).ValueOrDie(); }

TypePtr Struct(std::vector<Field> fields) {
  return MakeDataType(TypeId::kStruct, 0, 0, 0, std::move(fields), Extension::kNone);
}

TypePtr List(Field element) {
  return MakeDataType(TypeId::kList, 0, 0, 0, {std::move(element)}, Extension::kNone);
}

TypePtr List(TypePtr element_type, bool element_nullable) {
  return List(Field("element", std::move(element_type), element_nullable));
}

TypePtr Map(Field key, Field value) {
  return MakeDataType(TypeId::kMap, 0, 0, 0, {key.WithNullable(false), std::move(value)},
                      Extension::kNone);
}

TypePtr Map(TypePtr key_type, TypePtr value_type, bool value_nullable) {
  return Map(Field("key", std::move(key_type), false),
             Field("value", std::move(value_type), value_nullable));
}

int Schema::GetFieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name() == name) return static_cast<int>(i);
  }
  return -1;
}

int Schema::GetFieldIndexById(int32_t field_id) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].field_id() == field_id) return static_cast<int>(i);
  }
  return -1;
}

std::string Schema::ToString() const {
  std::string out;
  for (const auto& f : fields_) {
    out += f.ToString();
    out += '\n';
  }
  return out;
}

bool Schema::Equals(const Schema& other) const {
  if (fields_.size() != other.fields_.size() || metadata_ != other.metadata_) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i])) return false;
  }
  return true;
}

}  // namespace floe
