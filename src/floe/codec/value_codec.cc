#include "floe/codec/value_codec.h"

#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>

#include "floe/type/type_visit.h"

namespace floe::codec {

namespace {

// Nesting deeper than these is refused, so that a hostile message does not recurse without
// bound. No data type the engine builds comes near 64 levels; the SQL front end accepts
// expressions 1,000 levels deep (and casts and calls add a level here and there).
constexpr int kMaxTypeDepth = 64;
constexpr int kMaxExpressionDepth = 2048;

Result<TypeId> TypeIdFromName(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(TypeId::kMap); ++i) {
    auto id = static_cast<TypeId>(i);
    if (TypeIdName(id) == name) return id;
  }
  return Status::Corrupt("unknown data type \"{}\"", name);
}

// The Scalar::Storage alternative index a type's values use (scalar.h).
Result<size_t> StorageIndexOf(const DataType& type) {
  std::optional<size_t> index = VisitPhysicalType(type.id(), []<typename T>(TypeTag<T>) {
    if constexpr (std::is_void_v<T>) {
      return std::optional<size_t>();
    } else {
      return std::optional<size_t>(Scalar::Storage(ScalarStorageOf<T>{}).index());
    }
  });
  if (index) return *index;
  return Status::NotSupported("a {} value has no scalar form", type.ToString());
}

void EncodeMetadata(const KeyValueMetadata& metadata,
                    google::protobuf::RepeatedPtrField<proto::KeyValue>* out) {
  for (const auto& [key, value] : metadata) {
    proto::KeyValue* kv = out->Add();
    kv->set_key(key);
    kv->set_value(value);
  }
}

KeyValueMetadata DecodeMetadata(const google::protobuf::RepeatedPtrField<proto::KeyValue>& in) {
  KeyValueMetadata out;
  out.reserve(static_cast<size_t>(in.size()));
  for (const proto::KeyValue& kv : in) out.emplace_back(kv.key(), kv.value());
  return out;
}

Result<TypePtr> DecodeTypeAt(const proto::DataType& message, int depth);

Result<Field> DecodeFieldAt(const proto::Field& message, int depth) {
  if (!message.has_type()) return Status::Corrupt("field \"{}\" has no type", message.name());
  FLOE_ASSIGN_OR_RAISE(TypePtr type, DecodeTypeAt(message.type(), depth + 1));
  if (message.field_id() < kNoFieldId) {
    return Status::Corrupt("field \"{}\" has field id {}", message.name(), message.field_id());
  }
  return Field(message.name(), std::move(type), message.nullable(), message.field_id(),
               DecodeMetadata(message.metadata()));
}

Result<TypePtr> DecodeTypeAt(const proto::DataType& message, int depth) {
  if (depth > kMaxTypeDepth) {
    return Status::Corrupt("data type nested deeper than {}", kMaxTypeDepth);
  }
  if (!message.extension().empty()) {
    // An extension is known by its name; its storage type is fixed by that name.
    TypePtr type;
    for (TypePtr known : {Json(), Jsonb(), Interval(), Bpchar(), Numeric()}) {
      if (message.extension() == ExtensionName(known->extension())) type = std::move(known);
    }
    if (type == nullptr) {
      return Status::Corrupt("unknown extension type \"{}\"", message.extension());
    }
    if (message.id() != TypeIdName(type->id()) || message.fields_size() != 0) {
      return Status::Corrupt("extension \"{}\" over data type {}", message.extension(),
                             message.id());
    }
    return type;
  }
  FLOE_ASSIGN_OR_RAISE(TypeId id, TypeIdFromName(message.id()));
  const int want_fields = id == TypeId::kList ? 1 : id == TypeId::kMap ? 2 : 0;
  if (id != TypeId::kStruct && message.fields_size() != want_fields) {
    return Status::Corrupt("data type {} with {} fields", message.id(), message.fields_size());
  }
  std::vector<Field> fields;
  fields.reserve(static_cast<size_t>(message.fields_size()));
  for (const proto::Field& f : message.fields()) {
    FLOE_ASSIGN_OR_RAISE(Field field, DecodeFieldAt(f, depth));
    fields.push_back(std::move(field));
  }
  switch (id) {
    case TypeId::kBoolean:
      return Boolean();
    case TypeId::kInt8:
      return Int8();
    case TypeId::kInt16:
      return Int16();
    case TypeId::kInt32:
      return Int32();
    case TypeId::kInt64:
      return Int64();
    case TypeId::kFloat32:
      return Float32();
    case TypeId::kFloat64:
      return Float64();
    case TypeId::kDecimal: {
      Result<TypePtr> decimal = MakeDecimal(message.precision(), message.scale());
      if (!decimal.ok()) return Status::Corrupt("{}", decimal.status().message());
      return decimal;
    }
    case TypeId::kDate:
      return Date();
    case TypeId::kTime:
      return Time();
    case TypeId::kTimestamp:
      return Timestamp();
    case TypeId::kTimestampTz:
      return TimestampTz();
    case TypeId::kTimestampNs:
      return TimestampNs();
    case TypeId::kTimestampTzNs:
      return TimestampTzNs();
    case TypeId::kString:
      return String();
    case TypeId::kBinary:
      return Binary();
    case TypeId::kFixed: {
      Result<TypePtr> fixed = MakeFixed(message.width());
      if (!fixed.ok()) return Status::Corrupt("{}", fixed.status().message());
      return fixed;
    }
    case TypeId::kUuid:
      return Uuid();
    case TypeId::kStruct:
      return Struct(std::move(fields));
    case TypeId::kList:
      return List(std::move(fields[0]));
    case TypeId::kMap:
      return Map(std::move(fields[0]), std::move(fields[1]));
  }
  return Status::Corrupt("unknown data type \"{}\"", message.id());
}

Result<expr::ExprPtr> DecodeExprAt(const proto::Expr& message, int depth) {
  if (depth > kMaxExpressionDepth) {
    return Status::Corrupt("expression nested deeper than {}", kMaxExpressionDepth);
  }
  if (!message.has_type()) return Status::Corrupt("expression without a type");
  FLOE_ASSIGN_OR_RAISE(TypePtr type, DecodeTypeAt(message.type(), 0));
  std::vector<expr::ExprPtr> args;
  args.reserve(static_cast<size_t>(message.args_size()));
  for (const proto::Expr& arg : message.args()) {
    FLOE_ASSIGN_OR_RAISE(expr::ExprPtr e, DecodeExprAt(arg, depth + 1));
    args.push_back(std::move(e));
  }
  auto e = std::make_shared<expr::Expr>();
  e->type = std::move(type);
  e->nullable = message.nullable();
  e->name = message.name();
  switch (message.kind()) {
    case proto::Expr::COLUMN:
      if (message.column() < 0 || !args.empty()) {
        return Status::Corrupt("column reference #{} with {} arguments", message.column(),
                               args.size());
      }
      e->kind = expr::ExprKind::kColumn;
      e->column = message.column();
      break;
    case proto::Expr::LITERAL: {
      if (!message.has_literal() || !args.empty()) {
        return Status::Corrupt("literal without a value or with arguments");
      }
      FLOE_ASSIGN_OR_RAISE(Scalar literal, DecodeScalar(message.literal()));
      if (literal.type() == nullptr || !literal.type()->Equals(*e->type)) {
        return Status::Corrupt("literal of type {} in an expression of type {}",
                               literal.type() ? literal.type()->ToString() : "null",
                               e->type->ToString());
      }
      e->kind = expr::ExprKind::kLiteral;
      e->literal = std::move(literal);
      break;
    }
    case proto::Expr::CALL:
      if (message.name().empty()) return Status::Corrupt("function call without a name");
      e->kind = expr::ExprKind::kCall;
      break;
    case proto::Expr::CAST:
      if (args.size() != 1) return Status::Corrupt("cast with {} arguments", args.size());
      e->kind = expr::ExprKind::kCast;
      break;
    case proto::Expr::CASE: {
      const size_t pairs = message.case_has_else() ? args.size() - 1 : args.size();
      if (args.empty() || (message.case_has_else() && args.size() < 3) || pairs % 2 != 0) {
        return Status::Corrupt("CASE with {} arguments", args.size());
      }
      e->kind = expr::ExprKind::kCase;
      e->case_has_else = message.case_has_else();
      break;
    }
    default:
      return Status::Corrupt("unknown expression kind {}", static_cast<int>(message.kind()));
  }
  e->args = std::move(args);
  return expr::ExprPtr(std::move(e));
}

}  // namespace

void EncodeType(const DataType& type, proto::DataType* out) {
  out->set_id(std::string(TypeIdName(type.id())));
  if (type.id() == TypeId::kDecimal) {
    out->set_precision(type.precision());
    out->set_scale(type.scale());
  }
  if (type.id() == TypeId::kFixed) out->set_width(type.byte_width());
  if (type.extension() != Extension::kNone) {
    out->set_extension(std::string(ExtensionName(type.extension())));
  }
  // A map's entries are its key and value fields (type.h).
  for (const Field& f : type.fields()) EncodeField(f, out->add_fields());
}

Result<TypePtr> DecodeType(const proto::DataType& message) { return DecodeTypeAt(message, 0); }

void EncodeField(const Field& field, proto::Field* out) {
  out->set_name(field.name());
  EncodeType(*field.type(), out->mutable_type());
  out->set_nullable(field.nullable());
  out->set_field_id(field.field_id());
  EncodeMetadata(field.metadata(), out->mutable_metadata());
}

Result<Field> DecodeField(const proto::Field& message) { return DecodeFieldAt(message, 0); }

void EncodeSchema(const Schema& schema, proto::Schema* out) {
  for (const Field& f : schema.fields()) EncodeField(f, out->add_fields());
  EncodeMetadata(schema.metadata(), out->mutable_metadata());
}

Result<SchemaPtr> DecodeSchema(const proto::Schema& message) {
  std::vector<Field> fields;
  fields.reserve(static_cast<size_t>(message.fields_size()));
  for (const proto::Field& f : message.fields()) {
    FLOE_ASSIGN_OR_RAISE(Field field, DecodeField(f));
    fields.push_back(std::move(field));
  }
  return std::make_shared<const Schema>(std::move(fields), DecodeMetadata(message.metadata()));
}

Status EncodeScalar(const Scalar& scalar, proto::Scalar* out) {
  if (scalar.type() == nullptr) return Status::NotSupported("a scalar without a type");
  // A NULL of any type has a scalar form (NULL::int[]); other nested values have none.
  if (!scalar.is_null()) FLOE_RETURN_NOT_OK(StorageIndexOf(*scalar.type()).status());
  EncodeType(*scalar.type(), out->mutable_type());
  std::visit(
      [out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          out->set_null(true);
        } else if constexpr (std::is_same_v<T, bool>) {
          out->set_bool_value(v);
        } else if constexpr (std::is_same_v<T, int32_t>) {
          out->set_int32_value(v);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          out->set_int64_value(v);
        } else if constexpr (std::is_same_v<T, float>) {
          out->set_float_value(v);
        } else if constexpr (std::is_same_v<T, double>) {
          out->set_double_value(v);
        } else if constexpr (std::is_same_v<T, Int128>) {
          std::string bytes(sizeof(Int128), '\0');
          std::memcpy(bytes.data(), &v, sizeof(Int128));
          out->set_int128_value(std::move(bytes));
        } else {
          out->set_string_value(v);
        }
      },
      scalar.value());
  return Status::OK();
}

Result<Scalar> DecodeScalar(const proto::Scalar& message) {
  if (!message.has_type()) return Status::Corrupt("scalar without a type");
  FLOE_ASSIGN_OR_RAISE(TypePtr type, DecodeType(message.type()));
  if (message.value_case() == proto::Scalar::kNull) return Scalar::Null(std::move(type));
  Result<size_t> index = StorageIndexOf(*type);
  if (!index.ok()) return Status::Corrupt("{}", index.status().message());
  Scalar::Storage value;
  switch (message.value_case()) {
    case proto::Scalar::kNull:
      return Scalar::Null(std::move(type));
    case proto::Scalar::kBoolValue:
      value = message.bool_value();
      break;
    case proto::Scalar::kInt32Value:
      value = message.int32_value();
      break;
    case proto::Scalar::kInt64Value:
      value = message.int64_value();
      break;
    case proto::Scalar::kFloatValue:
      value = message.float_value();
      break;
    case proto::Scalar::kDoubleValue:
      value = message.double_value();
      break;
    case proto::Scalar::kInt128Value: {
      if (message.int128_value().size() != sizeof(Int128)) {
        return Status::Corrupt("decimal scalar of {} bytes (16 expected)",
                               message.int128_value().size());
      }
      Int128 v;
      std::memcpy(&v, message.int128_value().data(), sizeof(Int128));
      value = v;
      break;
    }
    case proto::Scalar::kStringValue:
      value = message.string_value();
      break;
    case proto::Scalar::VALUE_NOT_SET:
      return Status::Corrupt("scalar without a value");
  }
  if (value.index() != *index) {
    return Status::Corrupt("scalar of type {} holds the wrong kind of value", type->ToString());
  }
  if (type->id() == TypeId::kFixed || type->id() == TypeId::kUuid) {
    const auto& bytes = std::get<std::string>(value);
    if (static_cast<int>(bytes.size()) != type->byte_width()) {
      return Status::Corrupt("{} scalar of {} bytes", type->ToString(), bytes.size());
    }
  }
  return Scalar::Make(std::move(type), std::move(value));
}

Status EncodeExpr(const expr::Expr& e, proto::Expr* out) {
  switch (e.kind) {
    case expr::ExprKind::kColumn:
      out->set_kind(proto::Expr::COLUMN);
      break;
    case expr::ExprKind::kLiteral:
      out->set_kind(proto::Expr::LITERAL);
      break;
    case expr::ExprKind::kCall:
      out->set_kind(proto::Expr::CALL);
      break;
    case expr::ExprKind::kCast:
      out->set_kind(proto::Expr::CAST);
      break;
    case expr::ExprKind::kCase:
      out->set_kind(proto::Expr::CASE);
      break;
  }
  if (e.type == nullptr) return Status::Internal("expression {} has no type", e.ToString());
  EncodeType(*e.type, out->mutable_type());
  out->set_nullable(e.nullable);
  out->set_column(e.column);
  out->set_name(e.name);
  if (e.kind == expr::ExprKind::kLiteral) {
    FLOE_RETURN_NOT_OK(EncodeScalar(e.literal, out->mutable_literal()));
  }
  for (const expr::ExprPtr& arg : e.args) FLOE_RETURN_NOT_OK(EncodeExpr(*arg, out->add_args()));
  out->set_case_has_else(e.case_has_else);
  return Status::OK();
}

Result<expr::ExprPtr> DecodeExpr(const proto::Expr& message) { return DecodeExprAt(message, 0); }

}  // namespace floe::codec
