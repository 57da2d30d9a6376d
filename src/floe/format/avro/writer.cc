#include "floe/format/avro/writer.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cstring>
#include <random>

#include "floe/format/avro/encoding_internal.h"
#include "floe/format/avro/reader_internal.h"

namespace floe::avro {

using internal::WriteBytes;
using internal::WriteVarLong;

namespace {

enum class WCode : uint8_t {
  kNull,
  kBool,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kEnum,
  kFixed,
  kDecimalFixed,
  kDecimalBytes,
  kUnion,
  kRecord,
  kList,
  kMapFromMap,
  kMapToArray,
};

struct WOp {
  WCode code = WCode::kNull;
  int size = 0;
  // kUnion: the branch for NULL (-1 if none) and for values; children[0] encodes values.
  int null_branch = -1;
  int value_branch = -1;
  // kRecord: for each Avro field, the struct child it reads (-1: write NULL).
  std::vector<int> sources;
  std::vector<WOp> children;
  std::vector<std::string> symbols;
  std::string name;
};

Status Mismatch(const std::string& name, const AvroNode& node, const DataType& type) {
  return Status::Invalid("Avro write: field '{}' of type {} cannot be written as Avro {}", name,
                         type.ToString(), AvroTypeName(node.type));
}

Result<std::vector<int>> MatchFields(const AvroNode& rec, const std::vector<Field>& fields,
                                     const std::string& path) {
  std::vector<int> sources;
  for (size_t i = 0; i < rec.fields.size(); ++i) {
    const AvroField& af = rec.fields[i];
    int src = -1;
    if (af.field_id != kNoFieldId) {
      for (size_t k = 0; k < fields.size(); ++k) {
        if (fields[k].field_id() == af.field_id) {
          src = static_cast<int>(k);
          break;
        }
      }
    }
    if (src < 0 && i < fields.size() &&
        (af.field_id == kNoFieldId || !fields[i].has_field_id())) {
      src = static_cast<int>(i);
    }
    if (src < 0 && rec.fields[i].type->NullBranch() < 0) {
      return Status::Invalid("Avro write: no column for required Avro field '{}{}'", path,
                             af.name);
    }
    sources.push_back(src);
  }
  return sources;
}

Result<WOp> CompileWrite(const AvroNode& node, const DataType& type, const std::string& name);

Result<WOp> CompileRecordWrite(const AvroNode& node, const std::vector<Field>& fields,
                               const std::string& name) {
  WOp op;
  op.code = WCode::kRecord;
  op.name = name;
  std::string prefix = name.empty() ? "" : name + ".";
  FLOE_ASSIGN_OR_RAISE(op.sources, MatchFields(node, fields, prefix));
  for (size_t i = 0; i < node.fields.size(); ++i) {
    int src = op.sources[i];
    const AvroField& af = node.fields[i];
    if (src < 0) {
      WOp null_op;
      null_op.code = WCode::kUnion;
      null_op.null_branch = af.type->NullBranch();
      op.children.push_back(std::move(null_op));
      continue;
    }
    const Field& f = fields[static_cast<size_t>(src)];
    FLOE_ASSIGN_OR_RAISE(WOp child, CompileWrite(*af.type, *f.type(), prefix + f.name()));
    op.children.push_back(std::move(child));
  }
  return op;
}

Result<WOp> CompileWrite(const AvroNode& node, const DataType& type, const std::string& name) {
  WOp op;
  op.name = name;
  TypeId t = type.id();
  auto fail = [&]() { return Mismatch(name, node, type); };
  switch (node.type) {
    case AvroType::kUnion: {
      op.code = WCode::kUnion;
      op.null_branch = node.NullBranch();
      for (size_t b = 0; b < node.branches.size(); ++b) {
        if (static_cast<int>(b) == op.null_branch) continue;
        auto child = CompileWrite(*node.branches[b], type, name);
        if (child.has_value()) {
          op.value_branch = static_cast<int>(b);
          op.children.push_back(std::move(*child));
          return op;
        }
      }
      return fail();
    }
    case AvroType::kNull: return fail();
    case AvroType::kBoolean:
      if (t != TypeId::kBoolean) return fail();
      op.code = WCode::kBool;
      return op;
    case AvroType::kInt:
      if (t != TypeId::kInt8 && t != TypeId::kInt16 && t != TypeId::kInt32 && t != TypeId::kDate) {
        return fail();
      }
      op.code = WCode::kInt;
      return op;
    case AvroType::kLong:
      if (!(type.is_integer() || t == TypeId::kDate || t == TypeId::kTime || type.is_timestamp())) {
        return fail();
      }
      op.code = WCode::kLong;
      return op;
    case AvroType::kFloat:
      if (t != TypeId::kFloat32) return fail();
      op.code = WCode::kFloat;
      return op;
    case AvroType::kDouble:
      if (!type.is_floating()) return fail();
      op.code = WCode::kDouble;
      return op;
    case AvroType::kString:
    case AvroType::kBytes:
      if (node.logical_type == "decimal" && node.type == AvroType::kBytes) {
        if (t != TypeId::kDecimal) return fail();
        op.code = WCode::kDecimalBytes;
        return op;
      }
      if (!type.is_binary_like() && t != TypeId::kFixed && t != TypeId::kUuid) return fail();
      op.code = WCode::kBytes;
      return op;
    case AvroType::kEnum:
      if (t != TypeId::kString) return fail();
      op.code = WCode::kEnum;
      op.symbols = node.symbols;
      return op;
    case AvroType::kFixed:
      op.size = node.fixed_size;
      if (t == TypeId::kDecimal) {
        if (node.fixed_size < 1 || node.fixed_size > 16) return fail();
        op.code = WCode::kDecimalFixed;
        return op;
      }
      if ((t != TypeId::kFixed && t != TypeId::kUuid) || type.byte_width() != node.fixed_size) {
        return fail();
      }
      op.code = WCode::kFixed;
      return op;
    case AvroType::kRecord:
      if (t != TypeId::kStruct) return fail();
      return CompileRecordWrite(node, type.fields(), name);
    case AvroType::kArray: {
      if (t == TypeId::kList) {
        op.code = WCode::kList;
        FLOE_ASSIGN_OR_RAISE(WOp e, CompileWrite(*node.items, *type.field(0).type(),
                                                 name + ".element"));
        op.children.push_back(std::move(e));
        return op;
      }
      if (t == TypeId::kMap && node.items->type == AvroType::kRecord &&
          node.items->fields.size() == 2) {
        op.code = WCode::kMapToArray;
        FLOE_ASSIGN_OR_RAISE(WOp k, CompileWrite(*node.items->fields[0].type,
                                                 *type.field(0).type(), name + ".key"));
        FLOE_ASSIGN_OR_RAISE(WOp v, CompileWrite(*node.items->fields[1].type,
                                                 *type.field(1).type(), name + ".value"));
        op.children.push_back(std::move(k));
        op.children.push_back(std::move(v));
        return op;
      }
      return fail();
    }
    case AvroType::kMap: {
      if (t != TypeId::kMap || !type.field(0).type()->is_binary_like()) return fail();
      op.code = WCode::kMapFromMap;
      FLOE_ASSIGN_OR_RAISE(WOp v, CompileWrite(*node.items, *type.field(1).type(),
                                               name + ".value"));
      op.children.push_back(std::move(v));
      return op;
    }
  }
  return fail();
}

int64_t IntegerValue(const Array& a, int64_t i) {
  switch (a.type()->byte_width()) {
    case 1: return a.Value<int8_t>(i);
    case 2: return a.Value<int16_t>(i);
    case 4: return a.Value<int32_t>(i);
    default: return a.Value<int64_t>(i);
  }
}

void WriteBigEndian(std::string* out, Int128 v, int size) {
  unsigned __int128 u = static_cast<unsigned __int128>(v);
  for (int b = size - 1; b >= 0; --b) {
    out->push_back(static_cast<char>(static_cast<uint8_t>(u >> (8 * b))));
  }
}

bool FitsBytes(Int128 v, int n) {
  if (n >= 16) return true;
  Int128 lim = static_cast<Int128>(1) << (8 * n - 1);
  return v >= -lim && v < lim;
}

// Encodes value i of `a` (an index into a's logical values).
Status Encode(const WOp& op, const Array& a, int64_t i, std::string* out) {
  switch (op.code) {
    case WCode::kUnion:
      if (op.value_branch < 0 || a.IsNull(i)) {
        if (op.null_branch < 0) {
          return Status::Invalid("Avro write: NULL in non-nullable field '{}'", op.name);
        }
        WriteVarLong(out, op.null_branch);
        return Status::OK();
      }
      WriteVarLong(out, op.value_branch);
      return Encode(op.children[0], a, i, out);
    case WCode::kNull: return Status::OK();
    default: break;
  }
  if (a.IsNull(i)) {
    return Status::Invalid("Avro write: NULL in non-nullable field '{}'", op.name);
  }
  switch (op.code) {
    case WCode::kBool: out->push_back(a.BoolValue(i) ? 1 : 0); return Status::OK();
    case WCode::kInt:
    case WCode::kLong: WriteVarLong(out, IntegerValue(a, i)); return Status::OK();
    case WCode::kFloat: {
      float f = a.Value<float>(i);
      out->append(reinterpret_cast<const char*>(&f), 4);
      return Status::OK();
    }
    case WCode::kDouble: {
      double d = a.type_id() == TypeId::kFloat32 ? a.Value<float>(i) : a.Value<double>(i);
      out->append(reinterpret_cast<const char*>(&d), 8);
      return Status::OK();
    }
    case WCode::kBytes: WriteBytes(out, a.BytesValue(i)); return Status::OK();
    case WCode::kFixed: out->append(a.BytesValue(i)); return Status::OK();
    case WCode::kEnum: {
      std::string_view s = a.BytesValue(i);
      for (size_t k = 0; k < op.symbols.size(); ++k) {
        if (op.symbols[k] == s) {
          WriteVarLong(out, static_cast<int64_t>(k));
          return Status::OK();
        }
      }
      return Status::Invalid("Avro write: '{}' is not a symbol of enum field '{}'", s, op.name);
    }
    case WCode::kDecimalFixed: {
      Int128 v = a.DecimalValue(i);
      if (!FitsBytes(v, op.size)) {
        return Status::Invalid("Avro write: decimal in '{}' does not fit {} bytes", op.name,
                               op.size);
      }
      WriteBigEndian(out, v, op.size);
      return Status::OK();
    }
    case WCode::kDecimalBytes: {
      Int128 v = a.DecimalValue(i);
      int n = 1;
      while (!FitsBytes(v, n)) ++n;
      WriteVarLong(out, n);
      WriteBigEndian(out, v, n);
      return Status::OK();
    }
    case WCode::kRecord: {
      for (size_t k = 0; k < op.children.size(); ++k) {
        int src = op.sources[k];
        if (src < 0) {
          WriteVarLong(out, op.children[k].null_branch);
          continue;
        }
        const Array& child = *a.child(src);
        FLOE_RETURN_NOT_OK(Encode(op.children[k], child, a.offset() + i - child.offset(), out));
      }
      return Status::OK();
    }
    case WCode::kList: {
      int64_t b = a.ListBegin(i), e = a.ListEnd(i);
      if (e > b) {
        WriteVarLong(out, e - b);
        for (int64_t j = b; j < e; ++j) {
          FLOE_RETURN_NOT_OK(Encode(op.children[0], *a.child(0), j, out));
        }
      }
      WriteVarLong(out, 0);
      return Status::OK();
    }
    case WCode::kMapFromMap:
    case WCode::kMapToArray: {
      int64_t b = a.ListBegin(i), e = a.ListEnd(i);
      const Array& entries = *a.child(0);
      const Array& keys = *entries.child(0);
      const Array& values = *entries.child(1);
      int64_t ko = entries.offset() - keys.offset();
      int64_t vo = entries.offset() - values.offset();
      if (e > b) {
        WriteVarLong(out, e - b);
        for (int64_t j = b; j < e; ++j) {
          if (op.code == WCode::kMapFromMap) {
            WriteBytes(out, keys.BytesValue(j + ko));
            FLOE_RETURN_NOT_OK(Encode(op.children[0], values, j + vo, out));
          } else {
            FLOE_RETURN_NOT_OK(Encode(op.children[0], keys, j + ko, out));
            FLOE_RETURN_NOT_OK(Encode(op.children[1], values, j + vo, out));
          }
        }
      }
      WriteVarLong(out, 0);
      return Status::OK();
    }
    default: return Status::Internal("Avro write: unexpected op");
  }
}

}  // namespace

Result<std::unique_ptr<AvroFileWriter>> AvroFileWriter::Open(
    std::unique_ptr<io::OutputStream> out, std::string schema_json, KeyValueMetadata user_metadata,
    AvroWriteOptions options) {
  std::unique_ptr<AvroFileWriter> w(new AvroFileWriter());
  FLOE_ASSIGN_OR_RAISE(w->schema_, ParseAvroSchema(schema_json));
  if (w->schema_->type != AvroType::kRecord) {
    return Status::Invalid("Avro write: the schema must be a record, not {}",
                           AvroTypeName(w->schema_->type));
  }
  if (options.codec == "zstd") options.codec = "zstandard";
  FLOE_ASSIGN_OR_RAISE(w->codec_, internal::CodecFromName(options.codec));
  if (w->codec_) {
    FLOE_ASSIGN_OR_RAISE(w->compressor_, compression::Compressor::Make(*w->codec_, options.level));
  }
  if (options.block_size_bytes <= 0) {
    return Status::Invalid("Avro write: block_size_bytes must be positive");
  }
  for (const auto& [k, v] : user_metadata) {
    if (k.rfind("avro.", 0) == 0) {
      return Status::Invalid("Avro write: user metadata may not set reserved key '{}'", k);
    }
  }
  if (options.sync_marker) {
    w->sync_ = *options.sync_marker;
  } else {
    std::random_device rd;
    for (auto& b : w->sync_) b = static_cast<uint8_t>(rd());
  }
  std::string header("Obj\x01", 4);
  WriteVarLong(&header, static_cast<int64_t>(2 + user_metadata.size()));
  WriteBytes(&header, "avro.schema");
  WriteBytes(&header, schema_json);
  WriteBytes(&header, "avro.codec");
  WriteBytes(&header, options.codec);
  for (const auto& [k, v] : user_metadata) {
    WriteBytes(&header, k);
    WriteBytes(&header, v);
  }
  WriteVarLong(&header, 0);
  header.append(reinterpret_cast<const char*>(w->sync_.data()), 16);
  FLOE_RETURN_NOT_OK(out->Write(header));
  w->out_ = std::move(out);
  w->options_ = std::move(options);
  return w;
}

Status AvroFileWriter::Write(const RecordBatch& batch) {
  if (closed_) return Status::Invalid("Avro write: the writer is closed");
  FLOE_ASSIGN_OR_RAISE(WOp plan, CompileRecordWrite(*schema_, batch.schema()->fields(), ""));
  // Encode the whole batch first so that a failing row leaves nothing of it behind.
  std::string pending;
  std::vector<size_t> row_ends;
  row_ends.reserve(static_cast<size_t>(batch.num_rows()));
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    for (size_t k = 0; k < plan.children.size(); ++k) {
      int src = plan.sources[k];
      if (src < 0) {
        WriteVarLong(&pending, plan.children[k].null_branch);
        continue;
      }
      Status s = Encode(plan.children[k], *batch.column(src), r, &pending);
      if (!s.ok()) return s.WithPrefix(fmt::format("row {}: ", r));
    }
    row_ends.push_back(pending.size());
  }
  size_t start = 0;
  for (size_t end : row_ends) {
    block_.append(pending, start, end - start);
    start = end;
    ++block_rows_;
    if (static_cast<int64_t>(block_.size()) >= options_.block_size_bytes) {
      FLOE_RETURN_NOT_OK(FlushBlock());
    }
  }
  rows_written_ += batch.num_rows();
  return Status::OK();
}

Status AvroFileWriter::FlushBlock() {
  if (block_rows_ == 0) return Status::OK();
  std::string head;
  WriteVarLong(&head, block_rows_);
  std::vector<uint8_t> compressed;
  std::string_view payload = block_;
  if (compressor_) {
    std::span<const uint8_t> in(reinterpret_cast<const uint8_t*>(block_.data()), block_.size());
    FLOE_RETURN_NOT_OK(compressor_->Compress(in, &compressed));
    if (*codec_ == compression::CodecKind::kSnappy) {
      uint32_t crc = static_cast<uint32_t>(crc32(0, in.data(), static_cast<uInt>(in.size())));
      for (int s = 24; s >= 0; s -= 8) compressed.push_back(static_cast<uint8_t>(crc >> s));
    }
    payload = std::string_view(reinterpret_cast<const char*>(compressed.data()),
                               compressed.size());
  }
  WriteVarLong(&head, static_cast<int64_t>(payload.size()));
  FLOE_RETURN_NOT_OK(out_->Write(head));
  FLOE_RETURN_NOT_OK(out_->Write(payload));
  FLOE_RETURN_NOT_OK(out_->Write(sync_.data(), 16));
  block_.clear();
  block_rows_ = 0;
  return Status::OK();
}

Status AvroFileWriter::Close() {
  if (closed_) return Status::OK();
  FLOE_RETURN_NOT_OK(FlushBlock());
  closed_ = true;
  return out_->Close();
}

}  // namespace floe::avro
