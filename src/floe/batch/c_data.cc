#include "floe/batch/c_data.h"

#include <charconv>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace floe {

namespace {

// Export -----------------------------------------------------------------------------

// What an exported ArrowSchema owns: its strings and its children's structures.
struct ExportedSchema {
  std::string format;
  std::string name;
  std::string metadata;
  bool has_metadata = false;
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_ptrs;
};

void ReleaseExportedSchema(ArrowSchema* schema) {
  auto* p = static_cast<ExportedSchema*>(schema->private_data);
  for (ArrowSchema* c : p->child_ptrs) {
    if (c->release != nullptr) c->release(c);
  }
  delete p;
  schema->release = nullptr;
}

void AppendInt32(int32_t v, std::string* out) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(v));
}

// The specification's binary encoding: int32 count, then length-prefixed keys and
// values, in native byte order.
std::string EncodeMetadata(const KeyValueMetadata& metadata) {
  std::string out;
  AppendInt32(static_cast<int32_t>(metadata.size()), &out);
  for (const auto& [k, v] : metadata) {
    AppendInt32(static_cast<int32_t>(k.size()), &out);
    out += k;
    AppendInt32(static_cast<int32_t>(v.size()), &out);
    out += v;
  }
  return out;
}

std::string FormatOf(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return "b";
    case TypeId::kInt8:
      return "c";
    case TypeId::kInt16:
      return "s";
    case TypeId::kInt32:
      return "i";
    case TypeId::kInt64:
      return "l";
    case TypeId::kFloat32:
      return "f";
    case TypeId::kFloat64:
      return "g";
    case TypeId::kDecimal:
      return fmt::format("d:{},{}", type.precision(), type.scale());
    case TypeId::kDate:
      return "tdD";
    case TypeId::kTime:
      return "ttu";
    case TypeId::kTimestamp:
      return "tsu:";
    case TypeId::kTimestampTz:
      return "tsu:UTC";
    case TypeId::kTimestampNs:
      return "tsn:";
    case TypeId::kTimestampTzNs:
      return "tsn:UTC";
    case TypeId::kString:
      return "u";
    case TypeId::kBinary:
      return "z";
    case TypeId::kFixed:
    case TypeId::kUuid:
      return fmt::format("w:{}", type.byte_width());
    case TypeId::kStruct:
      return "+s";
    case TypeId::kList:
      return "+l";
    case TypeId::kMap:
      return "+m";
  }
  return "";
}

void ExportFieldInto(const std::string& name, const DataType& type, bool nullable, int32_t field_id,
                     const KeyValueMetadata& field_metadata, ArrowSchema* out) {
  auto* p = new ExportedSchema();
  p->format = FormatOf(type);
  p->name = name;
  KeyValueMetadata metadata;
  for (const auto& kv : field_metadata) {
    if (field_id != kNoFieldId && kv.first == kParquetFieldIdKey) continue;
    metadata.push_back(kv);
  }
  if (field_id != kNoFieldId) metadata.emplace_back(kParquetFieldIdKey, std::to_string(field_id));
  if (type.id() == TypeId::kUuid) {
    metadata.emplace_back(kArrowExtensionName, kArrowUuidExtension);
    metadata.emplace_back(kArrowExtensionMetadata, "");
  }
  if (!metadata.empty()) {
    p->metadata = EncodeMetadata(metadata);
    p->has_metadata = true;
  }
  // Children: the struct's fields, the list's element, or the map's entries struct.
  std::vector<Field> children;
  if (type.id() == TypeId::kMap) {
    children.emplace_back("entries", type.map_entries_type(), false);
  } else {
    children = type.fields();
  }
  p->children.resize(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    const Field& f = children[i];
    ExportFieldInto(f.name(), *f.type(), f.nullable(), f.field_id(), f.metadata(), &p->children[i]);
    p->child_ptrs.push_back(&p->children[i]);
  }
  out->format = p->format.c_str();
  out->name = p->name.c_str();
  out->metadata = p->has_metadata ? p->metadata.data() : nullptr;
  out->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  out->n_children = static_cast<int64_t>(p->child_ptrs.size());
  out->children = p->child_ptrs.empty() ? nullptr : p->child_ptrs.data();
  out->dictionary = nullptr;
  out->release = &ReleaseExportedSchema;
  out->private_data = p;
}

// What an exported ArrowArray owns: a reference to the array (and so its buffers),
// the buffer pointer list and the children's structures.
struct ExportedArray {
  ArrayPtr array;
  std::vector<const void*> buffers;
  std::vector<ArrowArray> children;
  std::vector<ArrowArray*> child_ptrs;
};

void ReleaseExportedArray(ArrowArray* array) {
  auto* p = static_cast<ExportedArray*>(array->private_data);
  for (ArrowArray* c : p->child_ptrs) {
    if (c->release != nullptr) c->release(c);
  }
  delete p;
  array->release = nullptr;
}

void ExportArrayInto(const ArrayPtr& array, ArrowArray* out) {
  auto* p = new ExportedArray();
  p->array = array;
  for (const BufferPtr& b : array->buffers()) p->buffers.push_back(b ? b->data() : nullptr);
  // A validity bitmap may be omitted when nothing is null.
  if (array->null_count() == 0) p->buffers[0] = nullptr;
  p->children.resize(array->children().size());
  for (size_t i = 0; i < p->children.size(); ++i) {
    ExportArrayInto(array->children()[i], &p->children[i]);
    p->child_ptrs.push_back(&p->children[i]);
  }
  out->length = array->length();
  out->null_count = array->null_count();
  out->offset = array->offset();
  out->n_buffers = static_cast<int64_t>(p->buffers.size());
  out->n_children = static_cast<int64_t>(p->child_ptrs.size());
  out->buffers = p->buffers.data();
  out->children = p->child_ptrs.empty() ? nullptr : p->child_ptrs.data();
  out->dictionary = nullptr;
  out->release = &ReleaseExportedArray;
  out->private_data = p;
}

// Import -----------------------------------------------------------------------------

// Releases a base structure the importer took ownership of, whatever happens.
template <typename T>
class ReleaseGuard {
 public:
  explicit ReleaseGuard(T* s) : s_(s) {}
  ~ReleaseGuard() {
    if (s_ != nullptr && s_->release != nullptr) s_->release(s_);
  }
  ReleaseGuard(const ReleaseGuard&) = delete;
  ReleaseGuard& operator=(const ReleaseGuard&) = delete;

 private:
  T* s_;
};

int32_t ReadInt32(const char* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

Result<KeyValueMetadata> DecodeMetadata(const char* data) {
  KeyValueMetadata out;
  if (data == nullptr) return out;
  const int32_t n = ReadInt32(data);
  if (n < 0) return Status::Invalid("Arrow schema metadata with {} entries", n);
  const char* p = data + 4;
  for (int32_t i = 0; i < n; ++i) {
    std::string kv[2];
    for (auto& s : kv) {
      const int32_t len = ReadInt32(p);
      if (len < 0) return Status::Invalid("Arrow schema metadata with a length of {}", len);
      s.assign(p + 4, static_cast<size_t>(len));
      p += 4 + len;
    }
    out.emplace_back(std::move(kv[0]), std::move(kv[1]));
  }
  return out;
}

Result<int> ParseInt(std::string_view s, std::string_view what) {
  int v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
    return Status::Invalid("Arrow schema: bad {} '{}'", what, s);
  }
  return v;
}

Status CheckChildren(const ArrowSchema& s, int64_t expected, std::string_view format) {
  if (s.n_children != expected) {
    return Status::Invalid("Arrow format '{}' needs {} children, the schema has {}", format,
                           expected, s.n_children);
  }
  return Status::OK();
}

Result<Field> ParseField(const ArrowSchema& s) {
  if (s.format == nullptr) return Status::Invalid("Arrow schema without a format");
  const std::string_view format = s.format;
  if (s.dictionary != nullptr) {
    return Status::NotSupported("dictionary-encoded Arrow arrays (index format '{}')", format);
  }
  if (s.n_children < 0 || (s.n_children > 0 && s.children == nullptr)) {
    return Status::Invalid("Arrow format '{}': {} children but no child list", format,
                           s.n_children);
  }
  FLOE_ASSIGN_OR_RAISE(KeyValueMetadata raw, DecodeMetadata(s.metadata));
  KeyValueMetadata metadata;
  int32_t field_id = kNoFieldId;
  std::string extension;
  for (auto& kv : raw) {
    if (kv.first == kParquetFieldIdKey) {
      FLOE_ASSIGN_OR_RAISE(field_id, ParseInt(kv.second, "field id"));
    } else {
      if (kv.first == kArrowExtensionName) extension = kv.second;
      metadata.push_back(std::move(kv));
    }
  }

  std::vector<Field> children;
  for (int64_t i = 0; i < s.n_children; ++i) {
    if (s.children[i] == nullptr) return Status::Invalid("Arrow schema: child {} is null", i);
    FLOE_ASSIGN_OR_RAISE(Field child, ParseField(*s.children[i]));
    children.push_back(std::move(child));
  }

  TypePtr type;
  auto leaf = [&](TypePtr t) -> Status {
    FLOE_RETURN_NOT_OK(CheckChildren(s, 0, format));
    type = std::move(t);
    return Status::OK();
  };
  if (format.size() == 1) {
    switch (format[0]) {
      case 'b':
        FLOE_RETURN_NOT_OK(leaf(Boolean()));
        break;
      case 'c':
        FLOE_RETURN_NOT_OK(leaf(Int8()));
        break;
      case 's':
        FLOE_RETURN_NOT_OK(leaf(Int16()));
        break;
      case 'i':
        FLOE_RETURN_NOT_OK(leaf(Int32()));
        break;
      case 'l':
        FLOE_RETURN_NOT_OK(leaf(Int64()));
        break;
      case 'f':
        FLOE_RETURN_NOT_OK(leaf(Float32()));
        break;
      case 'g':
        FLOE_RETURN_NOT_OK(leaf(Float64()));
        break;
      case 'u':
        FLOE_RETURN_NOT_OK(leaf(String()));
        break;
      case 'z':
        FLOE_RETURN_NOT_OK(leaf(Binary()));
        break;
      default:
        break;
    }
  } else if (format == "tdD") {
    FLOE_RETURN_NOT_OK(leaf(Date()));
  } else if (format == "ttu") {
    FLOE_RETURN_NOT_OK(leaf(Time()));
  } else if (format.starts_with("tsu:") || format.starts_with("tsn:")) {
    const bool zoned = format.size() > 4;
    const bool nanos = format[2] == 'n';
    FLOE_RETURN_NOT_OK(leaf(nanos ? (zoned ? TimestampTzNs() : TimestampNs())
                                  : (zoned ? TimestampTz() : Timestamp())));
  } else if (format.starts_with("d:")) {
    std::string_view rest = format.substr(2);
    std::vector<std::string_view> parts;
    for (size_t pos; (pos = rest.find(',')) != std::string_view::npos;) {
      parts.push_back(rest.substr(0, pos));
      rest.remove_prefix(pos + 1);
    }
    parts.push_back(rest);
    if (parts.size() < 2 || parts.size() > 3) {
      return Status::Invalid("Arrow format '{}' is not a decimal format", format);
    }
    if (parts.size() == 3 && parts[2] != "128") {
      return Status::NotSupported("Arrow format '{}' is not supported (only 128-bit decimals)",
                                  format);
    }
    FLOE_ASSIGN_OR_RAISE(int precision, ParseInt(parts[0], "decimal precision"));
    FLOE_ASSIGN_OR_RAISE(int scale, ParseInt(parts[1], "decimal scale"));
    FLOE_ASSIGN_OR_RAISE(TypePtr t, MakeDecimal(precision, scale));
    FLOE_RETURN_NOT_OK(leaf(std::move(t)));
  } else if (format.starts_with("w:")) {
    FLOE_ASSIGN_OR_RAISE(int width, ParseInt(format.substr(2), "fixed width"));
    if (width == 16 && extension == kArrowUuidExtension) {
      FLOE_RETURN_NOT_OK(leaf(Uuid()));
      // The extension keys describe the type; they are not field metadata.
      std::erase_if(metadata, [](const auto& kv) {
        return kv.first == kArrowExtensionName || kv.first == kArrowExtensionMetadata;
      });
    } else {
      FLOE_ASSIGN_OR_RAISE(TypePtr t, MakeFixed(width));
      FLOE_RETURN_NOT_OK(leaf(std::move(t)));
    }
  } else if (format == "+s") {
    type = Struct(std::move(children));
  } else if (format == "+l") {
    FLOE_RETURN_NOT_OK(CheckChildren(s, 1, format));
    type = List(std::move(children[0]));
  } else if (format == "+m") {
    FLOE_RETURN_NOT_OK(CheckChildren(s, 1, format));
    const DataType& entries = *children[0].type();
    if (entries.id() != TypeId::kStruct || entries.num_fields() != 2) {
      return Status::Invalid("Arrow map: the entries child is {}, expected a struct of 2 fields",
                             entries.ToString());
    }
    type = Map(entries.field(0), entries.field(1));
  }
  if (!type) return Status::NotSupported("Arrow format '{}' is not supported", format);
  return Field(s.name != nullptr ? s.name : "", std::move(type),
               (s.flags & ARROW_FLAG_NULLABLE) != 0, field_id, std::move(metadata));
}

// Holds an imported ArrowArray; releasing it when the last view is gone.
struct ImportedArray {
  ArrowArray array{};
  ~ImportedArray() {
    if (array.release != nullptr) array.release(&array);
  }
};

// Backs buffers the producer left null because they are empty.
alignas(64) const uint8_t kZeros[64] = {};

BufferPtr WrapBuffer(const void* data, int64_t size, const std::shared_ptr<const void>& owner) {
  if (data == nullptr) return Buffer::Wrap(kZeros, 0, nullptr);
  return Buffer::Wrap(static_cast<const uint8_t*>(data), size, owner);
}

Result<BufferPtr> WrapOffsets(const ArrowArray& a, const DataType& type, int64_t end,
                              const std::shared_ptr<const void>& owner) {
  if (a.buffers[1] == nullptr) {
    if (end != 0) return Status::Invalid("{} array: missing offsets buffer", type.ToString());
    return Buffer::Wrap(kZeros, 4, nullptr);
  }
  return Buffer::Wrap(static_cast<const uint8_t*>(a.buffers[1]), (end + 1) * 4, owner);
}

Result<ArrayPtr> ImportData(const ArrowArray& a, const TypePtr& type,
                            const std::shared_ptr<const void>& owner) {
  const DataType& t = *type;
  if (a.length < 0 || a.offset < 0) {
    return Status::Invalid("{} array: negative length {} or offset {}", t.ToString(), a.length,
                           a.offset);
  }
  if (a.dictionary != nullptr) {
    return Status::NotSupported("dictionary-encoded Arrow arrays ({})", t.ToString());
  }
  if (a.n_buffers != NumBuffers(t.id()) || (a.n_buffers > 0 && a.buffers == nullptr)) {
    return Status::Invalid("{} array: expected {} buffers, the Arrow array has {}", t.ToString(),
                           NumBuffers(t.id()), a.n_buffers);
  }
  const int64_t expected_children = t.id() == TypeId::kStruct ? t.num_fields()
                                    : (t.id() == TypeId::kList || t.id() == TypeId::kMap) ? 1
                                                                                          : 0;
  if (a.n_children != expected_children || (a.n_children > 0 && a.children == nullptr)) {
    return Status::Invalid("{} array: expected {} children, the Arrow array has {}", t.ToString(),
                           expected_children, a.n_children);
  }
  const int64_t end = a.offset + a.length;
  std::vector<BufferPtr> buffers(static_cast<size_t>(a.n_buffers));
  int64_t null_count = a.null_count;
  if (a.buffers[0] != nullptr && null_count != 0) {
    buffers[0] =
        Buffer::Wrap(static_cast<const uint8_t*>(a.buffers[0]), bit_util::BytesForBits(end), owner);
  } else if (a.buffers[0] == nullptr && null_count < 0) {
    null_count = 0;
  }
  std::vector<ArrayPtr> children;
  switch (t.id()) {
    case TypeId::kBoolean:
      buffers[1] = WrapBuffer(a.buffers[1], bit_util::BytesForBits(end), owner);
      break;
    case TypeId::kString:
    case TypeId::kBinary: {
      FLOE_ASSIGN_OR_RAISE(buffers[1], WrapOffsets(a, t, end, owner));
      const int32_t data_size = buffers[1]->data_as<int32_t>()[end];
      buffers[2] = WrapBuffer(a.buffers[2], data_size, owner);
      break;
    }
    case TypeId::kStruct:
      for (int i = 0; i < t.num_fields(); ++i) {
        if (a.children[i] == nullptr) return Status::Invalid("Arrow array: child {} is null", i);
        FLOE_ASSIGN_OR_RAISE(ArrayPtr c, ImportData(*a.children[i], t.field(i).type(), owner));
        children.push_back(std::move(c));
      }
      break;
    case TypeId::kList:
    case TypeId::kMap: {
      FLOE_ASSIGN_OR_RAISE(buffers[1], WrapOffsets(a, t, end, owner));
      if (a.children[0] == nullptr) return Status::Invalid("Arrow array: child 0 is null");
      TypePtr child_type = t.id() == TypeId::kList ? t.field(0).type() : t.map_entries_type();
      FLOE_ASSIGN_OR_RAISE(ArrayPtr c, ImportData(*a.children[0], child_type, owner));
      children.push_back(std::move(c));
      break;
    }
    default:
      buffers[1] = WrapBuffer(a.buffers[1], end * t.byte_width(), owner);
      break;
  }
  return Array::Make(type, a.length, std::move(buffers), std::move(children), null_count, a.offset);
}

}  // namespace

Status ExportType(const DataType& type, ArrowSchema* out) {
  ExportFieldInto("", type, true, kNoFieldId, {}, out);
  return Status::OK();
}

Status ExportField(const Field& field, ArrowSchema* out) {
  if (!field.type()) return Status::Invalid("field '{}' has no type", field.name());
  ExportFieldInto(field.name(), *field.type(), field.nullable(), field.field_id(), field.metadata(),
                  out);
  return Status::OK();
}

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  ExportFieldInto("", *Struct(schema.fields()), false, kNoFieldId, schema.metadata(), out);
  return Status::OK();
}

Status ExportArray(const ArrayPtr& array, ArrowArray* out, ArrowSchema* out_schema) {
  if (!array) return Status::Invalid("exporting a null array");
  if (out_schema != nullptr) FLOE_RETURN_NOT_OK(ExportType(*array->type(), out_schema));
  ExportArrayInto(array, out);
  return Status::OK();
}

Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out, ArrowSchema* out_schema) {
  FLOE_ASSIGN_OR_RAISE(ArrayPtr st, Array::Make(Struct(batch.schema()->fields()), batch.num_rows(),
                                                {nullptr}, batch.columns()));
  if (out_schema != nullptr) FLOE_RETURN_NOT_OK(ExportSchema(*batch.schema(), out_schema));
  ExportArrayInto(st, out);
  return Status::OK();
}

Result<Field> ImportField(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) {
    return Status::Invalid("importing a released Arrow schema");
  }
  ReleaseGuard<ArrowSchema> guard(schema);
  return ParseField(*schema);
}

Result<TypePtr> ImportType(ArrowSchema* schema) {
  FLOE_ASSIGN_OR_RAISE(Field f, ImportField(schema));
  return f.type();
}

Result<SchemaPtr> ImportSchema(ArrowSchema* schema) {
  FLOE_ASSIGN_OR_RAISE(Field f, ImportField(schema));
  if (f.type()->id() != TypeId::kStruct) {
    return Status::Invalid("an Arrow schema must be a struct, got {}", f.type()->ToString());
  }
  return std::make_shared<const Schema>(f.type()->fields(), f.metadata());
}

Result<ArrayPtr> ImportArray(ArrowArray* array, const TypePtr& type) {
  if (array == nullptr || array->release == nullptr) {
    return Status::Invalid("importing a released Arrow array");
  }
  // Move the structure (the specification allows a bitwise move) so that buffers
  // can keep it alive.
  auto owner = std::make_shared<ImportedArray>();
  owner->array = *array;
  array->release = nullptr;
  return ImportData(owner->array, type, owner);
}

Result<ArrayPtr> ImportArray(ArrowArray* array, ArrowSchema* schema) {
  ReleaseGuard<ArrowArray> guard(array);
  FLOE_ASSIGN_OR_RAISE(TypePtr type, ImportType(schema));
  return ImportArray(array, type);
}

Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, const SchemaPtr& schema) {
  FLOE_ASSIGN_OR_RAISE(ArrayPtr st, ImportArray(array, Struct(schema->fields())));
  if (st->null_count() != 0) {
    return Status::Invalid("an Arrow record batch has {} null rows", st->null_count());
  }
  std::vector<ArrayPtr> columns;
  for (int i = 0; i < st->num_children(); ++i) columns.push_back(st->field(i));
  return RecordBatch::Make(schema, st->length(), std::move(columns));
}

Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema) {
  ReleaseGuard<ArrowArray> guard(array);
  FLOE_ASSIGN_OR_RAISE(SchemaPtr s, ImportSchema(schema));
  return ImportRecordBatch(array, s);
}

}  // namespace floe
