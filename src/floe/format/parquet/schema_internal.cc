#include "floe/format/parquet/schema_internal.h"

#include <limits>
#include <utility>

namespace floe::parquet::internal {
namespace {

// The deepest schema tree accepted; deeper trees are rejected before recursion could
// exhaust the stack.
constexpr int kMaxSchemaDepth = 64;
// Definition and repetition levels are int16 in the decoders.
constexpr int kMaxLevel = std::numeric_limits<int16_t>::max();

struct PNode {
  const SchemaElement* e = nullptr;
  std::vector<PNode> children;
  int leaf = -1;
};

Status Parse(const std::vector<SchemaElement>& elements, size_t* pos, int depth, int* next_leaf,
             PNode* out) {
  if (depth > kMaxSchemaDepth) {
    return Status::Corrupt("Parquet schema is nested deeper than {} levels", kMaxSchemaDepth);
  }
  if (*pos >= elements.size()) {
    return Status::Corrupt("Parquet schema ends early: element {} of {} is missing", *pos,
                           elements.size());
  }
  const SchemaElement& e = elements[*pos];
  out->e = &e;
  ++*pos;
  int32_t n = e.num_children.value_or(0);
  if (!e.type.has_value() || n > 0) {
    if (n < 0 || static_cast<size_t>(n) > elements.size() - *pos) {
      return Status::Corrupt("Parquet schema element '{}' claims {} children, {} elements remain",
                             e.name, n, elements.size() - *pos);
    }
    if (depth > 0 && n == 0) {
      return Status::Corrupt("Parquet schema group '{}' has no children", e.name);
    }
    out->children.resize(static_cast<size_t>(n));
    for (auto& child : out->children) {
      FLOE_RETURN_NOT_OK(Parse(elements, pos, depth + 1, next_leaf, &child));
    }
  } else {
    out->leaf = (*next_leaf)++;
  }
  return Status::OK();
}

bool IsRepeated(const SchemaElement& e) {
  return e.repetition_type == FieldRepetitionType::kRepeated;
}
bool IsOptional(const SchemaElement& e) {
  return e.repetition_type == FieldRepetitionType::kOptional;
}
bool IsList(const SchemaElement& e) {
  if (e.logical_type) return e.logical_type->kind == LogicalType::Kind::kList;
  return e.converted_type == ConvertedType::kList;
}
bool IsMap(const SchemaElement& e) {
  if (e.logical_type) return e.logical_type->kind == LogicalType::Kind::kMap;
  return e.converted_type == ConvertedType::kMap || e.converted_type == ConvertedType::kMapKeyValue;
}
bool IsGroup(const PNode& p) { return p.leaf < 0; }

int PhysicalWidth(Type t, int type_length) {
  switch (t) {
    case Type::kInt32:
    case Type::kFloat:
      return 4;
    case Type::kInt64:
    case Type::kDouble:
      return 8;
    case Type::kInt96:
      return 12;
    case Type::kFixedLenByteArray:
      return type_length;
    default:
      return 0;
  }
}

Result<TypePtr> DecimalType(const SchemaElement& e, int32_t precision, int32_t scale) {
  if (precision > 38) {
    return Status::NotSupported("column '{}': decimal precision {} exceeds 38", e.name, precision);
  }
  auto t = MakeDecimal(precision, scale);
  if (!t.ok()) {
    return Status::Corrupt("column '{}': invalid decimal({}, {})", e.name, precision, scale);
  }
  return *t;
}

class Mapper {
 public:
  explicit Mapper(FileSchema* out) : out_(out) {}

  // Maps node `p` whose parent is defined at `parent_def`; slots are those of the
  // innermost enclosing repeated node (slot_def, slot_rep). `force_required` maps a
  // repeated node as the required element of its list.
  Result<ReadNode> Map(const PNode& p, int parent_def, int slot_def, int slot_rep,
                       bool force_required) {
    const SchemaElement& e = *p.e;
    if (!force_required && IsRepeated(e)) {
      // An unannotated repeated field: a required list of required elements.
      ReadNode list;
      list.kind = ReadNode::Kind::kList;
      list.def_level = static_cast<int16_t>(parent_def);
      list.slot_def = static_cast<int16_t>(slot_def);
      list.slot_rep = static_cast<int16_t>(slot_rep);
      FLOE_RETURN_NOT_OK(SetElementLevels(&list, parent_def + 1, slot_rep + 1));
      FLOE_ASSIGN_OR_RAISE(ReadNode elem,
                           Map(p, list.elem_def, list.elem_def, list.elem_rep, true));
      elem.field = elem.field.WithNullable(false);
      list.first_leaf = elem.first_leaf;
      list.field = Field(e.name, List(elem.field), false, e.field_id.value_or(kNoFieldId));
      list.children.push_back(std::move(elem));
      return list;
    }
    bool optional = !force_required && IsOptional(e);
    int def = parent_def + (optional ? 1 : 0);
    if (def > kMaxLevel) return Status::NotSupported("column '{}' is nested too deeply", e.name);
    int32_t field_id = e.field_id.value_or(kNoFieldId);

    if (!IsGroup(p)) return MapLeaf(p, def, slot_def, slot_rep, optional);

    ReadNode node;
    node.def_level = static_cast<int16_t>(def);
    node.slot_def = static_cast<int16_t>(slot_def);
    node.slot_rep = static_cast<int16_t>(slot_rep);
    if (IsList(e) && !force_required) return MapList(p, def, slot_def, slot_rep, optional);
    if (IsMap(e) && !force_required) return MapMap(p, def, slot_def, slot_rep, optional);

    node.kind = ReadNode::Kind::kStruct;
    std::vector<Field> fields;
    for (const PNode& c : p.children) {
      FLOE_ASSIGN_OR_RAISE(ReadNode child, Map(c, def, slot_def, slot_rep, false));
      fields.push_back(child.field);
      node.children.push_back(std::move(child));
    }
    node.first_leaf = node.children.front().first_leaf;
    node.field = Field(e.name, Struct(std::move(fields)), optional, field_id);
    return node;
  }

 private:
  Status SetElementLevels(ReadNode* n, int elem_def, int elem_rep) {
    if (elem_def > kMaxLevel || elem_rep > kMaxLevel) {
      return Status::NotSupported("column '{}' is nested too deeply", n->field.name());
    }
    n->elem_def = static_cast<int16_t>(elem_def);
    n->elem_rep = static_cast<int16_t>(elem_rep);
    return Status::OK();
  }

  Result<ReadNode> MapList(const PNode& p, int def, int slot_def, int slot_rep, bool optional) {
    const SchemaElement& e = *p.e;
    if (p.children.size() != 1 || !IsRepeated(*p.children[0].e)) {
      return Status::Corrupt("LIST column '{}' must have exactly one repeated child", e.name);
    }
    ReadNode list;
    list.kind = ReadNode::Kind::kList;
    list.def_level = static_cast<int16_t>(def);
    list.slot_def = static_cast<int16_t>(slot_def);
    list.slot_rep = static_cast<int16_t>(slot_rep);
    FLOE_RETURN_NOT_OK(SetElementLevels(&list, def + 1, slot_rep + 1));
    const PNode& r = p.children[0];
    ReadNode elem;
    // LogicalTypes.md, "Lists": the 3-level form, else the backward-compatibility rules
    // for 2-level lists (the repeated node itself is the required element).
    bool two_level = !IsGroup(r) || r.children.size() > 1 ||
                     (r.children.size() == 1 && IsRepeated(*r.children[0].e)) ||
                     r.e->name == "array" || r.e->name == e.name + "_tuple";
    if (two_level) {
      FLOE_ASSIGN_OR_RAISE(elem, Map(r, list.elem_def, list.elem_def, list.elem_rep, true));
      elem.field = elem.field.WithNullable(false);
    } else {
      FLOE_ASSIGN_OR_RAISE(elem,
                           Map(r.children[0], list.elem_def, list.elem_def, list.elem_rep, false));
    }
    list.first_leaf = elem.first_leaf;
    list.field = Field(e.name, List(elem.field), optional, e.field_id.value_or(kNoFieldId));
    list.children.push_back(std::move(elem));
    return list;
  }

  Result<ReadNode> MapMap(const PNode& p, int def, int slot_def, int slot_rep, bool optional) {
    const SchemaElement& e = *p.e;
    if (p.children.size() != 1 || !IsRepeated(*p.children[0].e) || !IsGroup(p.children[0])) {
      return Status::Corrupt("MAP column '{}' must have exactly one repeated group child", e.name);
    }
    const PNode& kv = p.children[0];
    if (kv.children.size() != 2) {
      return Status::NotSupported("MAP column '{}' has {} key/value fields; floe needs 2", e.name,
                                  kv.children.size());
    }
    ReadNode map;
    map.kind = ReadNode::Kind::kMap;
    map.def_level = static_cast<int16_t>(def);
    map.slot_def = static_cast<int16_t>(slot_def);
    map.slot_rep = static_cast<int16_t>(slot_rep);
    FLOE_RETURN_NOT_OK(SetElementLevels(&map, def + 1, slot_rep + 1));
    FLOE_ASSIGN_OR_RAISE(ReadNode key,
                         Map(kv.children[0], map.elem_def, map.elem_def, map.elem_rep, false));
    FLOE_ASSIGN_OR_RAISE(ReadNode value,
                         Map(kv.children[1], map.elem_def, map.elem_def, map.elem_rep, false));
    key.field = key.field.WithNullable(false);
    TypePtr type = floe::Map(key.field, value.field);
    ReadNode entries;
    entries.kind = ReadNode::Kind::kStruct;
    entries.def_level = map.elem_def;
    entries.slot_def = map.elem_def;
    entries.slot_rep = map.elem_rep;
    entries.first_leaf = key.first_leaf;
    entries.field = Field(kv.e->name, type->map_entries_type(), false);
    entries.children.push_back(std::move(key));
    entries.children.push_back(std::move(value));
    map.first_leaf = entries.first_leaf;
    map.field = Field(e.name, std::move(type), optional, e.field_id.value_or(kNoFieldId));
    map.children.push_back(std::move(entries));
    return map;
  }

  Result<ReadNode> MapLeaf(const PNode& p, int def, int slot_def, int slot_rep, bool optional) {
    const SchemaElement& e = *p.e;
    FLOE_ASSIGN_OR_RAISE(auto mapped, MapPrimitiveType(e));
    LeafInfo leaf;
    leaf.column_index = p.leaf;
    leaf.path = path_prefix_.empty() ? e.name : path_prefix_ + "." + e.name;
    leaf.physical = *e.type;
    leaf.type_length = e.type_length.value_or(0);
    leaf.max_def = static_cast<int16_t>(def);
    leaf.max_rep = static_cast<int16_t>(slot_rep);
    leaf.type = mapped.first;
    leaf.conversion = mapped.second;
    leaf.physical_width = PhysicalWidth(leaf.physical, leaf.type_length);
    leaf.out_width = leaf.type->id() == TypeId::kBoolean ? 0
                     : leaf.type->is_binary_like()       ? -1
                                                         : leaf.type->byte_width();
    // Variable-width output is decoded as byte-array views; any other physical type
    // under a variable-width type would be read as the wrong shape.
    if (leaf.out_width < 0 && leaf.physical != Type::kByteArray) {
      return Status::Corrupt("column '{}': type {} on physical type {}", leaf.path,
                             leaf.type->ToString(), static_cast<int>(leaf.physical));
    }
    ReadNode node;
    node.kind = ReadNode::Kind::kLeaf;
    node.def_level = static_cast<int16_t>(def);
    node.slot_def = static_cast<int16_t>(slot_def);
    node.slot_rep = static_cast<int16_t>(slot_rep);
    node.leaf = static_cast<int>(out_->leaves.size());
    node.first_leaf = node.leaf;
    node.field = Field(e.name, leaf.type, optional, e.field_id.value_or(kNoFieldId));
    out_->leaves.push_back(std::move(leaf));
    return node;
  }

 public:
  std::string path_prefix_;

 private:
  FileSchema* out_;
};

// Fills LeafInfo::path with the full dotted path (MapLeaf only knows the leaf name).
void FillPaths(const PNode& p, const std::string& prefix, std::vector<std::string>* paths) {
  std::string path = prefix.empty() ? p.e->name : prefix + "." + p.e->name;
  if (!IsGroup(p)) {
    paths->push_back(path);
    return;
  }
  for (const PNode& c : p.children) FillPaths(c, path, paths);
}

}  // namespace

Result<std::pair<TypePtr, Conversion>> MapPrimitiveType(const SchemaElement& e) {
  using K = LogicalType::Kind;
  using C = Conversion;
  if (!e.type.has_value()) return Status::Corrupt("column '{}' has no physical type", e.name);
  Type t = *e.type;
  int32_t length = e.type_length.value_or(0);
  if (t == Type::kFixedLenByteArray && (length <= 0 || length > (1 << 30))) {
    return Status::Corrupt("FIXED_LEN_BYTE_ARRAY column '{}' has type_length {}", e.name, length);
  }
  auto bad = [&](std::string_view annotation) -> Status {
    return Status::Corrupt("column '{}': {} annotation on physical type {}", e.name, annotation,
                           static_cast<int>(t));
  };
  auto decimal = [&](int32_t precision, int32_t scale) -> Result<std::pair<TypePtr, Conversion>> {
    FLOE_ASSIGN_OR_RAISE(TypePtr type, DecimalType(e, precision, scale));
    switch (t) {
      case Type::kInt32:
        return std::make_pair(type, C::kInt32ToDecimal);
      case Type::kInt64:
        return std::make_pair(type, C::kInt64ToDecimal);
      case Type::kFixedLenByteArray:
      case Type::kByteArray:
        return std::make_pair(type, C::kBytesToDecimal);
      default:
        return bad("DECIMAL");
    }
  };
  auto integer = [&](int bits, bool is_signed) -> Result<std::pair<TypePtr, Conversion>> {
    if (bits == 64) {
      if (t != Type::kInt64) return bad("INTEGER(64)");
      if (is_signed) return std::make_pair(Int64(), C::kNone);
      return std::make_pair(Decimal(20, 0), C::kUInt64ToDecimal);
    }
    if (t != Type::kInt32 || (bits != 8 && bits != 16 && bits != 32)) return bad("INTEGER");
    if (is_signed) {
      if (bits == 8) return std::make_pair(Int8(), C::kInt32ToInt8);
      if (bits == 16) return std::make_pair(Int16(), C::kInt32ToInt16);
      return std::make_pair(Int32(), C::kNone);
    }
    if (bits == 8) return std::make_pair(Int16(), C::kInt32ToInt16);
    if (bits == 16) return std::make_pair(Int32(), C::kNone);
    return std::make_pair(Int64(), C::kUInt32ToInt64);
  };
  auto time = [&](TimeUnit unit) -> Result<std::pair<TypePtr, Conversion>> {
    if (unit == TimeUnit::kMillis) {
      if (t != Type::kInt32) return bad("TIME(MILLIS)");
      return std::make_pair(Time(), C::kInt32MillisToMicros);
    }
    if (t != Type::kInt64) return bad("TIME");
    return std::make_pair(Time(), unit == TimeUnit::kMicros ? C::kNone : C::kInt64NanosToMicros);
  };
  auto timestamp = [&](TimeUnit unit, bool utc) -> Result<std::pair<TypePtr, Conversion>> {
    if (t != Type::kInt64) return bad("TIMESTAMP");
    if (unit == TimeUnit::kNanos)
      return std::make_pair(utc ? TimestampTzNs() : TimestampNs(), C::kNone);
    return std::make_pair(utc ? TimestampTz() : Timestamp(),
                          unit == TimeUnit::kMillis ? C::kInt64MillisToMicros : C::kNone);
  };

  if (e.logical_type.has_value() && e.logical_type->kind != K::kUnrecognized &&
      e.logical_type->kind != K::kNull) {
    const LogicalType& lt = *e.logical_type;
    switch (lt.kind) {
      case K::kString:
      case K::kEnum:
      case K::kJson:
        if (t != Type::kByteArray) return bad("STRING");
        return std::make_pair(String(), C::kNone);
      case K::kBson:
        if (t != Type::kByteArray) return bad("BSON");
        return std::make_pair(Binary(), C::kNone);
      case K::kDecimal:
        return decimal(lt.precision, lt.scale);
      case K::kDate:
        if (t != Type::kInt32) return bad("DATE");
        return std::make_pair(Date(), C::kNone);
      case K::kTime:
        return time(lt.unit);
      case K::kTimestamp:
        return timestamp(lt.unit, lt.is_adjusted_to_utc);
      case K::kInteger:
        return integer(lt.bit_width, lt.is_signed);
      case K::kUuid:
        if (t != Type::kFixedLenByteArray || length != 16) return bad("UUID");
        return std::make_pair(Uuid(), C::kNone);
      case K::kFloat16:
        if (t != Type::kFixedLenByteArray || length != 2) return bad("FLOAT16");
        return std::make_pair(Float32(), C::kFloat16ToFloat32);
      case K::kList:
      case K::kMap:
        return bad("LIST/MAP");
      default:
        break;
    }
  } else if (e.converted_type.has_value()) {
    switch (*e.converted_type) {
      case ConvertedType::kUtf8:
      case ConvertedType::kEnum:
      case ConvertedType::kJson:
        if (t != Type::kByteArray) return bad("UTF8");
        return std::make_pair(String(), C::kNone);
      case ConvertedType::kBson:
        if (t != Type::kByteArray) return bad("BSON");
        return std::make_pair(Binary(), C::kNone);
      case ConvertedType::kDecimal:
        return decimal(e.precision.value_or(0), e.scale.value_or(0));
      case ConvertedType::kDate:
        if (t != Type::kInt32) return bad("DATE");
        return std::make_pair(Date(), C::kNone);
      case ConvertedType::kTimeMillis:
        return time(TimeUnit::kMillis);
      case ConvertedType::kTimeMicros:
        return time(TimeUnit::kMicros);
      // LogicalTypes.md: the legacy TIMESTAMP_* types are adjusted to UTC.
      case ConvertedType::kTimestampMillis:
        return timestamp(TimeUnit::kMillis, true);
      case ConvertedType::kTimestampMicros:
        return timestamp(TimeUnit::kMicros, true);
      case ConvertedType::kInt8:
        return integer(8, true);
      case ConvertedType::kInt16:
        return integer(16, true);
      case ConvertedType::kInt32:
        return integer(32, true);
      case ConvertedType::kInt64:
        return integer(64, true);
      case ConvertedType::kUint8:
        return integer(8, false);
      case ConvertedType::kUint16:
        return integer(16, false);
      case ConvertedType::kUint32:
        return integer(32, false);
      case ConvertedType::kUint64:
        return integer(64, false);
      case ConvertedType::kInterval:
        if (t != Type::kFixedLenByteArray || length != 12) return bad("INTERVAL");
        return std::make_pair(Fixed(12), C::kNone);
      default:
        return bad("MAP/LIST");
    }
  }
  switch (t) {
    case Type::kBoolean:
      return std::make_pair(Boolean(), C::kNone);
    case Type::kInt32:
      return std::make_pair(Int32(), C::kNone);
    case Type::kInt64:
      return std::make_pair(Int64(), C::kNone);
    case Type::kInt96:
      return std::make_pair(TimestampNs(), C::kInt96ToNanos);
    case Type::kFloat:
      return std::make_pair(Float32(), C::kNone);
    case Type::kDouble:
      return std::make_pair(Float64(), C::kNone);
    case Type::kByteArray:
      return std::make_pair(Binary(), C::kNone);
    case Type::kFixedLenByteArray:
      return std::make_pair(Fixed(length), C::kNone);
  }
  return Status::NotSupported("column '{}' has unknown physical type {}", e.name,
                              static_cast<int>(t));
}

Result<FileSchema> MapSchema(const std::vector<SchemaElement>& elements) {
  if (elements.empty()) return Status::Corrupt("Parquet schema is empty");
  PNode root;
  size_t pos = 0;
  int next_leaf = 0;
  if (elements[0].type.has_value()) {
    return Status::Corrupt("Parquet schema root '{}' is not a group", elements[0].name);
  }
  FLOE_RETURN_NOT_OK(Parse(elements, &pos, 0, &next_leaf, &root));
  if (pos != elements.size()) {
    return Status::Corrupt("Parquet schema has {} elements after the tree's end",
                           elements.size() - pos);
  }
  FileSchema out;
  Mapper mapper(&out);
  std::vector<Field> fields;
  for (const PNode& c : root.children) {
    int begin = static_cast<int>(out.leaves.size());
    FLOE_ASSIGN_OR_RAISE(ReadNode node, mapper.Map(c, 0, 0, 0, false));
    fields.push_back(node.field);
    out.top.push_back(std::move(node));
    out.top_leaf_range.emplace_back(begin, static_cast<int>(out.leaves.size()));
  }
  std::vector<std::string> paths;
  for (const PNode& c : root.children) FillPaths(c, "", &paths);
  for (size_t i = 0; i < out.leaves.size() && i < paths.size(); ++i) {
    out.leaves[i].path = std::move(paths[i]);
  }
  out.schema = std::make_shared<Schema>(std::move(fields));
  return out;
}

}  // namespace floe::parquet::internal
