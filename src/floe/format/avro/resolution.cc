// Resolution plan compilation: the decode operations that read values of a file's (the
// writer's) schema into a target schema (Avro specification, "Schema Resolution"), record
// fields matched by field id, or by name where the target field has none.

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "floe/format/avro/reader_internal.h"

namespace floe::avro::internal {

namespace {

bool MinSizeIsZero(const AvroNode& n, int depth = 0) {
  if (depth > 64) return false;
  switch (n.type) {
    case AvroType::kNull:
      return true;
    case AvroType::kFixed:
      return n.fixed_size == 0;
    case AvroType::kRecord:
      for (const AvroField& f : n.fields) {
        if (!MinSizeIsZero(*f.type, depth + 1)) return false;
      }
      return true;
    default:
      return false;
  }
}

Op SkipOp(const AvroNode& n) {
  Op op;
  switch (n.type) {
    case AvroType::kNull:
      op.code = OpCode::kSkipNull;
      break;
    case AvroType::kBoolean:
      op.code = OpCode::kSkipBool;
      break;
    case AvroType::kInt:
    case AvroType::kLong:
    case AvroType::kEnum:
      op.code = OpCode::kSkipVarint;
      break;
    case AvroType::kFloat:
      op.code = OpCode::kSkipFixed;
      op.size = 4;
      break;
    case AvroType::kDouble:
      op.code = OpCode::kSkipFixed;
      op.size = 8;
      break;
    case AvroType::kFixed:
      op.code = OpCode::kSkipFixed;
      op.size = n.fixed_size;
      break;
    case AvroType::kBytes:
    case AvroType::kString:
      op.code = OpCode::kSkipBytes;
      break;
    case AvroType::kRecord: {
      op.code = OpCode::kRecord;
      bool all_varints = !n.fields.empty();
      for (const AvroField& f : n.fields) {
        op.children.push_back(SkipOp(*f.type));
        all_varints = all_varints && op.children.back().code == OpCode::kSkipVarint;
      }
      // A record of ints and longs (Iceberg's metrics map entries) skips in one loop.
      if (all_varints) {
        op.code = OpCode::kSkipVarints;
        op.size = static_cast<int32_t>(op.children.size());
        op.children.clear();
      }
      break;
    }
    case AvroType::kArray:
      op.code = OpCode::kSkipArray;
      op.children.push_back(SkipOp(*n.items));
      op.items_may_be_empty = MinSizeIsZero(*n.items);
      break;
    case AvroType::kMap:
      op.code = OpCode::kSkipMap;
      op.children.push_back(SkipOp(*n.items));
      break;
    case AvroType::kUnion:
      op.code = OpCode::kSkipUnion;
      for (const AvroNodePtr& b : n.branches) op.children.push_back(SkipOp(*b));
      break;
  }
  return op;
}

bool IsMapArray(const AvroNode& n) {
  return n.type == AvroType::kArray && n.items->type == AvroType::kRecord &&
         n.items->fields.size() == 2 && n.logical_type == "map";
}

Status Incompatible(const std::string& name, const AvroNode& file, const DataType& target) {
  return Status::Invalid(
      "Avro field '{}': file type {}{} cannot be read as {}", name, AvroTypeName(file.type),
      file.logical_type.empty() ? "" : " (" + file.logical_type + ")", target.ToString());
}

}  // namespace

Result<Op> Compile(const AvroNode& file, const Field& target, ArrayBuilder* builder,
                   const std::string& path) {
  Op op;
  op.builder = builder;
  op.name = path;
  op.nullable = target.nullable();
  const DataType& t = *target.type();
  if (file.type == AvroType::kUnion) {
    op.code = OpCode::kUnion;
    bool any = false;
    Status first_error;
    for (const AvroNodePtr& b : file.branches) {
      if (b->type == AvroType::kNull) {
        Op null_op;
        null_op.code = OpCode::kAppendNull;
        null_op.builder = builder;
        null_op.name = path;
        null_op.nullable = target.nullable();
        op.children.push_back(std::move(null_op));
        continue;
      }
      auto branch = Compile(*b, target, builder, path);
      if (branch.has_value()) {
        any = true;
        op.children.push_back(std::move(*branch));
      } else {
        if (first_error.ok()) first_error = branch.error();
        Op err;
        err.code = OpCode::kError;
        err.name = path;
        err.message = branch.error().message();
        op.children.push_back(std::move(err));
      }
    }
    if (!any && !first_error.ok()) return first_error;
    return op;
  }
  AvroType ft = file.type;
  auto fail = [&]() { return Incompatible(path, file, t); };
  switch (t.id()) {
    case TypeId::kBoolean:
      if (ft != AvroType::kBoolean) return fail();
      op.code = OpCode::kBool;
      return op;
    case TypeId::kInt32:
    case TypeId::kDate:
      if (ft != AvroType::kInt) return fail();
      op.code = OpCode::kIntToI32;
      return op;
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (ft == AvroType::kLong) {
        op.code = OpCode::kLongToI64;
      } else if (ft == AvroType::kInt && t.id() == TypeId::kInt64) {
        op.code = OpCode::kIntToI64;
      } else {
        return fail();
      }
      return op;
    case TypeId::kFloat32:
      if (ft == AvroType::kFloat)
        op.code = OpCode::kFloatToF32;
      else if (ft == AvroType::kInt || ft == AvroType::kLong)
        op.code = OpCode::kLongToF32;
      else
        return fail();
      return op;
    case TypeId::kFloat64:
      if (ft == AvroType::kDouble)
        op.code = OpCode::kDoubleToF64;
      else if (ft == AvroType::kFloat)
        op.code = OpCode::kFloatToF64;
      else if (ft == AvroType::kInt || ft == AvroType::kLong)
        op.code = OpCode::kLongToF64;
      else
        return fail();
      return op;
    case TypeId::kString:
      if (ft == AvroType::kString || ft == AvroType::kBytes) {
        op.code = OpCode::kBytes;
      } else if (ft == AvroType::kEnum) {
        op.code = OpCode::kEnum;
        op.symbols = file.symbols;
      } else {
        return fail();
      }
      return op;
    case TypeId::kBinary:
      if (ft == AvroType::kString || ft == AvroType::kBytes) {
        op.code = OpCode::kBytes;
      } else if (ft == AvroType::kFixed) {
        op.code = OpCode::kFixedToBinary;
        op.size = file.fixed_size;
      } else {
        return fail();
      }
      return op;
    case TypeId::kFixed:
    case TypeId::kUuid:
      if (ft != AvroType::kFixed || file.fixed_size != t.byte_width()) return fail();
      op.code = OpCode::kFixed;
      op.size = file.fixed_size;
      return op;
    case TypeId::kDecimal:
      if (file.logical_type != "decimal" || file.scale != t.scale() ||
          file.precision > t.precision()) {
        return fail();
      }
      if (ft == AvroType::kFixed) {
        if (file.fixed_size > 16 || file.fixed_size < 1) return fail();
        op.code = OpCode::kDecimalFixed;
        op.size = file.fixed_size;
      } else if (ft == AvroType::kBytes) {
        op.code = OpCode::kDecimalBytes;
      } else {
        return fail();
      }
      return op;
    case TypeId::kStruct: {
      if (ft != AvroType::kRecord) return fail();
      auto* sb = static_cast<StructBuilder*>(builder);
      std::vector<ArrayBuilder*> children;
      for (int i = 0; i < sb->num_fields(); ++i) children.push_back(sb->field_builder(i));
      FLOE_ASSIGN_OR_RAISE(op, CompileRecord(file, t.fields(), children, path));
      op.code = OpCode::kStruct;
      op.builder = builder;
      op.nullable = target.nullable();
      return op;
    }
    case TypeId::kList: {
      if (ft != AvroType::kArray || IsMapArray(file)) return fail();
      auto* lb = static_cast<ListBuilder*>(builder);
      op.code = OpCode::kList;
      op.items_may_be_empty = MinSizeIsZero(*file.items);
      FLOE_ASSIGN_OR_RAISE(
          Op elem, Compile(*file.items, t.field(0), lb->value_builder(), path + ".element"));
      op.children.push_back(std::move(elem));
      return op;
    }
    case TypeId::kMap: {
      auto* mb = static_cast<MapBuilder*>(builder);
      if (ft == AvroType::kMap) {
        op.code = OpCode::kMapFromMap;
        Field key_target = t.field(0);
        AvroNode string_node;
        string_node.type = AvroType::kString;
        FLOE_ASSIGN_OR_RAISE(Op key,
                             Compile(string_node, key_target, mb->key_builder(), path + ".key"));
        FLOE_ASSIGN_OR_RAISE(Op value,
                             Compile(*file.items, t.field(1), mb->item_builder(), path + ".value"));
        op.children.push_back(std::move(key));
        op.children.push_back(std::move(value));
        return op;
      }
      if (!IsMapArray(file) && !(ft == AvroType::kArray && file.items->type == AvroType::kRecord &&
                                 file.items->fields.size() == 2)) {
        return fail();
      }
      op.code = OpCode::kMapFromArray;
      const AvroNode& rec = *file.items;
      FLOE_ASSIGN_OR_RAISE(
          Op key, Compile(*rec.fields[0].type, t.field(0), mb->key_builder(), path + ".key"));
      FLOE_ASSIGN_OR_RAISE(
          Op value, Compile(*rec.fields[1].type, t.field(1), mb->item_builder(), path + ".value"));
      // Iceberg's column-metric maps get loops of their own.
      if (key.code == OpCode::kIntToI32 && value.code == OpCode::kLongToI64) {
        op.code = OpCode::kMapIntLong;
      } else if (key.code == OpCode::kIntToI32 && value.code == OpCode::kBytes) {
        op.code = OpCode::kMapIntBinary;
      }
      op.children.push_back(std::move(key));
      op.children.push_back(std::move(value));
      return op;
    }
    case TypeId::kInt8:
    case TypeId::kInt16:
      return fail();
  }
  return fail();
}

Result<Op> CompileRecord(const AvroNode& file, const std::vector<Field>& targets,
                         const std::vector<ArrayBuilder*>& builders, const std::string& path) {
  if (file.type != AvroType::kRecord) {
    return Status::Invalid("Avro {}: file schema is a {}, not a record",
                           path.empty() ? "file" : "field '" + path + "'", AvroTypeName(file.type));
  }
  Op op;
  op.code = OpCode::kRecord;
  op.name = path;
  std::vector<int> file_to_target(file.fields.size(), -1);
  for (size_t ti = 0; ti < targets.size(); ++ti) {
    const Field& tf = targets[ti];
    int found = -1;
    for (size_t fi = 0; fi < file.fields.size(); ++fi) {
      const AvroField& ff = file.fields[fi];
      bool match = tf.has_field_id() ? ff.field_id == tf.field_id() : ff.name == tf.name();
      if (match && file_to_target[fi] < 0) {
        found = static_cast<int>(fi);
        break;
      }
    }
    std::string child_path = path.empty() ? tf.name() : path + "." + tf.name();
    if (found < 0) {
      if (!tf.nullable()) {
        return Status::Invalid("Avro file has no field for required target field '{}'{}",
                               child_path,
                               tf.has_field_id() ? fmt::format(" (id {})", tf.field_id()) : "");
      }
      op.missing.push_back(builders[ti]);
      continue;
    }
    file_to_target[static_cast<size_t>(found)] = static_cast<int>(ti);
  }
  for (size_t fi = 0; fi < file.fields.size(); ++fi) {
    const AvroField& ff = file.fields[fi];
    int ti = file_to_target[fi];
    if (ti < 0) {
      op.children.push_back(SkipOp(*ff.type));
      continue;
    }
    const Field& tf = targets[static_cast<size_t>(ti)];
    std::string child_path = path.empty() ? tf.name() : path + "." + tf.name();
    FLOE_ASSIGN_OR_RAISE(Op child,
                         Compile(*ff.type, tf, builders[static_cast<size_t>(ti)], child_path));
    op.children.push_back(std::move(child));
  }
  return op;
}

bool MinSizeIsZeroForTest(const AvroNode& node) { return MinSizeIsZero(node); }

}  // namespace floe::avro::internal
