// The floe schema -> Parquet schema conversion and level generation of the writer.

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "floe/format/parquet/writer_internal.h"

namespace floe::parquet::internal {

namespace {

LogicalType MakeLogical(LogicalType::Kind kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}

LogicalType TimeLogical(LogicalType::Kind kind, bool utc, TimeUnit unit) {
  LogicalType t = MakeLogical(kind);
  t.is_adjusted_to_utc = utc;
  t.unit = unit;
  return t;
}

// Fills the primitive parts of `e` and `leaf` for `type` (LogicalTypes.md). ConvertedType is
// set where it means the same thing: TIME_MICROS and TIMESTAMP_MICROS describe UTC-adjusted
// values only, so local times and timestamps carry the LogicalType alone.
Status SetPrimitive(const DataType& type, SchemaElement* e, LeafColumn* leaf) {
  leaf->sort_order = SortOrder::kSigned;
  if (type.extension() == Extension::kInterval) {
    return Status::NotSupported("type interval cannot be written to Parquet");
  }
  if (type.extension() == Extension::kNumeric) {
    return Status::NotSupported(
        "type numeric without a precision cannot be written to Parquet (cast to numeric(p, s))");
  }
  switch (type.id()) {
    case TypeId::kBoolean:
      e->type = Type::kBoolean;
      leaf->kind = LeafKind::kBoolean;
      leaf->sort_order = SortOrder::kBoolean;
      break;
    case TypeId::kInt8:
    case TypeId::kInt16: {
      bool i8 = type.id() == TypeId::kInt8;
      e->type = Type::kInt32;
      LogicalType t = MakeLogical(LogicalType::Kind::kInteger);
      t.bit_width = i8 ? 8 : 16;
      t.is_signed = true;
      e->logical_type = t;
      e->converted_type = i8 ? ConvertedType::kInt8 : ConvertedType::kInt16;
      leaf->kind = i8 ? LeafKind::kInt8 : LeafKind::kInt16;
      break;
    }
    case TypeId::kInt32:
      e->type = Type::kInt32;
      leaf->kind = LeafKind::kInt32;
      break;
    case TypeId::kInt64:
      e->type = Type::kInt64;
      leaf->kind = LeafKind::kInt64;
      break;
    case TypeId::kFloat32:
      e->type = Type::kFloat;
      leaf->kind = LeafKind::kFloat;
      leaf->sort_order = SortOrder::kFloat;
      break;
    case TypeId::kFloat64:
      e->type = Type::kDouble;
      leaf->kind = LeafKind::kDouble;
      leaf->sort_order = SortOrder::kFloat;
      break;
    case TypeId::kDecimal: {
      LogicalType t = MakeLogical(LogicalType::Kind::kDecimal);
      t.precision = type.precision();
      t.scale = type.scale();
      e->logical_type = t;
      e->converted_type = ConvertedType::kDecimal;
      e->precision = type.precision();
      e->scale = type.scale();
      leaf->precision = type.precision();
      if (type.precision() <= 9) {
        e->type = Type::kInt32;
        leaf->kind = LeafKind::kDecimalInt32;
      } else if (type.precision() <= 18) {
        e->type = Type::kInt64;
        leaf->kind = LeafKind::kDecimalInt64;
      } else {
        e->type = Type::kFixedLenByteArray;
        e->type_length = DecimalFixedWidth(type.precision());
        leaf->kind = LeafKind::kDecimalFixed;
        leaf->sort_order = SortOrder::kSignedBigEndian;
      }
      break;
    }
    case TypeId::kDate:
      e->type = Type::kInt32;
      e->logical_type = MakeLogical(LogicalType::Kind::kDate);
      e->converted_type = ConvertedType::kDate;
      leaf->kind = LeafKind::kInt32;
      break;
    case TypeId::kTime:
      e->type = Type::kInt64;
      e->logical_type = TimeLogical(LogicalType::Kind::kTime, false, TimeUnit::kMicros);
      leaf->kind = LeafKind::kInt64;
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      bool utc = type.id() == TypeId::kTimestampTz || type.id() == TypeId::kTimestampTzNs;
      bool nanos = type.id() == TypeId::kTimestampNs || type.id() == TypeId::kTimestampTzNs;
      e->type = Type::kInt64;
      e->logical_type = TimeLogical(LogicalType::Kind::kTimestamp, utc,
                                    nanos ? TimeUnit::kNanos : TimeUnit::kMicros);
      if (utc && !nanos) e->converted_type = ConvertedType::kTimestampMicros;
      leaf->kind = LeafKind::kInt64;
      break;
    }
    case TypeId::kString:
      e->type = Type::kByteArray;
      e->logical_type = MakeLogical(LogicalType::Kind::kString);
      e->converted_type = ConvertedType::kUtf8;
      leaf->kind = LeafKind::kByteArray;
      leaf->sort_order = SortOrder::kUnsignedBytes;
      break;
    case TypeId::kBinary:
      e->type = Type::kByteArray;
      leaf->kind = LeafKind::kByteArray;
      leaf->sort_order = SortOrder::kUnsignedBytes;
      break;
    case TypeId::kFixed:
    case TypeId::kUuid:
      e->type = Type::kFixedLenByteArray;
      e->type_length = type.byte_width();
      if (type.id() == TypeId::kUuid) e->logical_type = MakeLogical(LogicalType::Kind::kUuid);
      leaf->kind = LeafKind::kFixed;
      leaf->sort_order = SortOrder::kUnsignedBytes;
      break;
    default:
      return Status::Internal("not a primitive type: {}", type.ToString());
  }
  leaf->physical_type = *e->type;
  leaf->type_length = e->type_length.value_or(0);
  return Status::OK();
}

std::string JoinPath(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) {
    if (!out.empty()) out += '.';
    out += p;
  }
  return out;
}

class SchemaBuilder {
 public:
  explicit SchemaBuilder(ParquetSchema* out) : out_(out) {}

  // Adds the subtree of a field: `name` with `type`, `optional` or required, `field_id`.
  // `def` and `rep` are the levels of the parent when present.
  Status Add(const std::string& name, const TypePtr& type, bool optional, int32_t field_id,
             int16_t def, int16_t rep, std::vector<std::string> path, WriteNode* node) {
    path.push_back(name);
    node->name = name;
    node->optional = optional;
    node->def_level = static_cast<int16_t>(def + (optional ? 1 : 0));
    node->first_leaf = static_cast<int>(out_->leaves.size());

    SchemaElement e;
    e.name = name;
    e.repetition_type = optional ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired;
    if (field_id != kNoFieldId) e.field_id = field_id;

    switch (type->id()) {
      case TypeId::kStruct: {
        if (type->num_fields() == 0) {
          return Status::NotSupported("column {}: Parquet cannot hold an empty struct",
                                      JoinPath(path));
        }
        node->kind = WriteNode::Kind::kStruct;
        e.num_children = type->num_fields();
        out_->elements.push_back(std::move(e));
        node->children.resize(static_cast<size_t>(type->num_fields()));
        for (int i = 0; i < type->num_fields(); ++i) {
          const Field& f = type->field(i);
          FLOE_RETURN_NOT_OK(Add(f.name(), f.type(), f.nullable(), f.field_id(), node->def_level,
                                 rep, path, &node->children[static_cast<size_t>(i)]));
        }
        break;
      }
      case TypeId::kList:
      case TypeId::kMap: {
        bool is_list = type->id() == TypeId::kList;
        node->kind = is_list ? WriteNode::Kind::kList : WriteNode::Kind::kMap;
        node->rep_level = static_cast<int16_t>(rep + 1);
        e.num_children = 1;
        e.logical_type = MakeLogical(is_list ? LogicalType::Kind::kList : LogicalType::Kind::kMap);
        e.converted_type = is_list ? ConvertedType::kList : ConvertedType::kMap;
        out_->elements.push_back(std::move(e));
        // LogicalTypes.md: the 3-level list `repeated group list { element }` and the map
        // `repeated group key_value { required key; value }`.
        SchemaElement repeated;
        repeated.name = is_list ? "list" : "key_value";
        repeated.repetition_type = FieldRepetitionType::kRepeated;
        repeated.num_children = is_list ? 1 : 2;
        out_->elements.push_back(std::move(repeated));
        path.push_back(is_list ? "list" : "key_value");
        int16_t inner_def = static_cast<int16_t>(node->def_level + 1);
        if (is_list) {
          const Field& f = type->field(0);
          node->children.resize(1);
          FLOE_RETURN_NOT_OK(Add(f.name().empty() ? "element" : f.name(), f.type(), f.nullable(),
                                 f.field_id(), inner_def, node->rep_level, path,
                                 &node->children[0]));
        } else {
          const Field& k = type->field(0);
          const Field& v = type->field(1);
          node->children.resize(2);
          // Map keys are never null, whatever the key field says.
          FLOE_RETURN_NOT_OK(Add(k.name().empty() ? "key" : k.name(), k.type(), false, k.field_id(),
                                 inner_def, node->rep_level, path, &node->children[0]));
          FLOE_RETURN_NOT_OK(Add(v.name().empty() ? "value" : v.name(), v.type(), v.nullable(),
                                 v.field_id(), inner_def, node->rep_level, path,
                                 &node->children[1]));
        }
        break;
      }
      default: {
        node->kind = WriteNode::Kind::kLeaf;
        LeafColumn leaf;
        FLOE_RETURN_NOT_OK(SetPrimitive(*type, &e, &leaf));
        leaf.path = path;
        leaf.dotted_path = JoinPath(path);
        leaf.max_def = node->def_level;
        leaf.max_rep = rep;
        out_->elements.push_back(std::move(e));
        out_->leaves.push_back(std::move(leaf));
        break;
      }
    }
    node->end_leaf = static_cast<int>(out_->leaves.size());
    return Status::OK();
  }

 private:
  ParquetSchema* out_;
};

}  // namespace

int32_t DecimalFixedWidth(int precision) {
  // The smallest n with 2^(8n - 1) > 10^precision - 1, i.e. floor(log10(2^(8n-1))) >= precision.
  for (int32_t n = 1; n <= 16; ++n) {
    double digits = (8.0 * n - 1) * 0.30102999566398120;  // log10(2)
    if (static_cast<int>(digits) >= precision) return n;
  }
  return 16;
}

Result<ParquetSchema> ToParquetSchema(const Schema& schema) {
  ParquetSchema out;
  SchemaElement root;
  root.name = "schema";
  root.num_children = schema.num_fields();
  out.elements.push_back(std::move(root));
  out.roots.resize(static_cast<size_t>(schema.num_fields()));
  SchemaBuilder builder(&out);
  for (int i = 0; i < schema.num_fields(); ++i) {
    const Field& f = schema.field(i);
    FLOE_RETURN_NOT_OK(builder.Add(f.name(), f.type(), f.nullable(), f.field_id(), 0, 0, {},
                                   &out.roots[static_cast<size_t>(i)]));
  }
  return out;
}

void LeafLevels::Clear() {
  def.clear();
  rep.clear();
  num_entries = 0;
  values.reset();
  contiguous = true;
  first = 0;
  indices.clear();
}

namespace {

// Depth-first level generation for nested columns (Dremel): each call handles element `i` of
// `array` at `node`, whose parent is present at definition level `parent_def`; `rep` is the
// repetition level of the first entry this element produces.
class LevelGenerator {
 public:
  LevelGenerator(const std::vector<LeafColumn>& leaves, std::vector<LeafLevels>* out)
      : leaves_(leaves), out_(*out) {}

  Status Visit(const WriteNode& node, const Array& array, int64_t i, int16_t parent_def,
               int16_t rep, int64_t row) {
    if (array.IsNull(i)) {
      if (!node.optional) return NullError(node, row);
      EmitEmpty(node, parent_def, rep);
      return Status::OK();
    }
    switch (node.kind) {
      case WriteNode::Kind::kLeaf: {
        LeafLevels& l = out_[static_cast<size_t>(node.first_leaf)];
        const LeafColumn& c = leaves_[static_cast<size_t>(node.first_leaf)];
        if (c.max_def > 0) l.def.push_back(node.def_level);
        if (c.max_rep > 0) l.rep.push_back(rep);
        l.indices.push_back(i);
        ++l.num_entries;
        return Status::OK();
      }
      case WriteNode::Kind::kStruct: {
        // Struct children are indexed by the struct's offset + i (Array's struct convention).
        int64_t j = array.offset() + i;
        for (size_t k = 0; k < node.children.size(); ++k) {
          FLOE_RETURN_NOT_OK(Visit(node.children[k], *array.child(static_cast<int>(k)), j,
                                   node.def_level, rep, row));
        }
        return Status::OK();
      }
      case WriteNode::Kind::kList:
      case WriteNode::Kind::kMap: {
        int64_t begin = array.ListBegin(i), end = array.ListEnd(i);
        if (begin == end) {
          EmitEmpty(node, node.def_level, rep);
          return Status::OK();
        }
        int16_t inner_def = static_cast<int16_t>(node.def_level + 1);
        const Array& child = *array.child(0);
        for (int64_t j = begin; j < end; ++j) {
          int16_t r = j == begin ? rep : node.rep_level;
          if (node.kind == WriteNode::Kind::kList) {
            FLOE_RETURN_NOT_OK(Visit(node.children[0], child, j, inner_def, r, row));
          } else {
            // The entries struct is never null; its key and value are at its offset + j.
            int64_t e = child.offset() + j;
            FLOE_RETURN_NOT_OK(Visit(node.children[0], *child.child(0), e, inner_def, r, row));
            FLOE_RETURN_NOT_OK(Visit(node.children[1], *child.child(1), e, inner_def, r, row));
          }
        }
        return Status::OK();
      }
    }
    return Status::OK();
  }

 private:
  void EmitEmpty(const WriteNode& node, int16_t def, int16_t rep) {
    for (int k = node.first_leaf; k < node.end_leaf; ++k) {
      LeafLevels& l = out_[static_cast<size_t>(k)];
      const LeafColumn& c = leaves_[static_cast<size_t>(k)];
      if (c.max_def > 0) l.def.push_back(def);
      if (c.max_rep > 0) l.rep.push_back(rep);
      ++l.num_entries;
    }
  }

  Status NullError(const WriteNode& node, int64_t row) const {
    return Status::Constraint("null value in required column {} at row {}",
                              leaves_[static_cast<size_t>(node.first_leaf)].dotted_path, row);
  }

  const std::vector<LeafColumn>& leaves_;
  std::vector<LeafLevels>& out_;
};

}  // namespace

Status GenerateLevels(const WriteNode& root, const std::vector<LeafColumn>& leaves,
                      const ArrayPtr& array, int64_t row_base, std::vector<LeafLevels>* out) {
  const int64_t n = array->length();
  if (root.kind == WriteNode::Kind::kLeaf) {
    // Flat column: entries are rows, definition levels are the validity bits.
    LeafLevels& l = (*out)[static_cast<size_t>(root.first_leaf)];
    l.Clear();
    l.values = array;
    l.contiguous = true;
    l.first = 0;
    l.num_entries = n;
    if (!root.optional) {
      if (array->null_count() > 0) {
        for (int64_t i = 0; i < n; ++i) {
          if (array->IsNull(i)) {
            return Status::Constraint("null value in required column {} at row {}",
                                      leaves[static_cast<size_t>(root.first_leaf)].dotted_path,
                                      row_base + i);
          }
        }
      }
      return Status::OK();
    }
    l.def.resize(static_cast<size_t>(n));
    if (array->null_count() == 0) {
      std::fill(l.def.begin(), l.def.end(), int16_t{1});
    } else if (array->null_count() == n) {
      std::fill(l.def.begin(), l.def.end(), int16_t{0});
    } else {
      const uint8_t* bits = array->validity();
      int64_t off = array->offset();
      for (int64_t i = 0; i < n; ++i) {
        l.def[static_cast<size_t>(i)] = static_cast<int16_t>(bit_util::GetBit(bits, off + i));
      }
    }
    return Status::OK();
  }
  for (int k = root.first_leaf; k < root.end_leaf; ++k) {
    LeafLevels& l = (*out)[static_cast<size_t>(k)];
    l.Clear();
    l.contiguous = false;
  }
  // Remember each leaf's array: walk the tree once to find it.
  struct Finder {
    static void Find(const WriteNode& node, const ArrayPtr& array, std::vector<LeafLevels>* out) {
      switch (node.kind) {
        case WriteNode::Kind::kLeaf:
          (*out)[static_cast<size_t>(node.first_leaf)].values = array;
          break;
        case WriteNode::Kind::kStruct:
          for (size_t k = 0; k < node.children.size(); ++k) {
            Find(node.children[k], array->child(static_cast<int>(k)), out);
          }
          break;
        case WriteNode::Kind::kList:
          Find(node.children[0], array->child(0), out);
          break;
        case WriteNode::Kind::kMap:
          Find(node.children[0], array->child(0)->child(0), out);
          Find(node.children[1], array->child(0)->child(1), out);
          break;
      }
    }
  };
  Finder::Find(root, array, out);
  LevelGenerator gen(leaves, out);
  for (int64_t i = 0; i < n; ++i) {
    FLOE_RETURN_NOT_OK(gen.Visit(root, *array, i, 0, 0, row_base + i));
  }
  return Status::OK();
}

Status ValidateDecimals(const LeafColumn& leaf, const LeafLevels& levels, int64_t row_base) {
  Int128 limit = 1;
  for (int i = 0; i < leaf.precision; ++i) limit *= 10;
  const Array& a = *levels.values;
  const uint8_t* base = a.buffer(1)->data() + a.offset() * 16;
  auto check = [&](int64_t element, int64_t position, bool is_row) -> Status {
    Int128 v;
    std::memcpy(&v, base + element * 16, 16);
    if (v < limit && v > -limit) return Status::OK();
    return Status::Invalid("column {}: decimal value at {} {} has more than {} digits",
                           leaf.dotted_path, is_row ? "row" : "value", position, leaf.precision);
  };
  if (levels.contiguous) {
    for (int64_t k = 0; k < levels.num_entries; ++k) {
      if (leaf.max_def > 0 && levels.def[static_cast<size_t>(k)] != leaf.max_def) continue;
      FLOE_RETURN_NOT_OK(check(levels.first + k, row_base + k, true));
    }
  } else {
    for (size_t k = 0; k < levels.indices.size(); ++k) {
      FLOE_RETURN_NOT_OK(check(levels.indices[k], static_cast<int64_t>(k), false));
    }
  }
  return Status::OK();
}

}  // namespace floe::parquet::internal
