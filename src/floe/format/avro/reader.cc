#include "floe/format/avro/reader.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <optional>

#include "floe/batch/builder.h"
#include "floe/format/avro/encoding_internal.h"
#include "floe/format/avro/reader_internal.h"
#include "floe/format/compression/codec.h"

namespace floe::avro {

using internal::ReadVarLong;

namespace {

constexpr char kMagic[4] = {'O', 'b', 'j', 1};

// A bounded cursor over the header bytes.
struct HeaderCursor {
  const uint8_t* p;
  const uint8_t* begin;
  const uint8_t* end;
  const std::string& path;

  int64_t offset() const { return p - begin; }
  Status Corrupt(std::string_view what) const {
    return Status::Corrupt("Avro file {}: {} at byte offset {}", path, what, offset());
  }
  Result<int64_t> Long(std::string_view what) {
    int64_t v;
    if (!ReadVarLong(p, end, &v)) return Corrupt(fmt::format("truncated or overlong {}", what));
    return v;
  }
  Result<std::string_view> Bytes(std::string_view what) {
    FLOE_ASSIGN_OR_RAISE(int64_t n, Long(what));
    if (n < 0 || n > end - p) {
      return Corrupt(fmt::format("{} length {} exceeds the {} bytes left", what, n, end - p));
    }
    std::string_view s(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    p += n;
    return s;
  }
};

}  // namespace

const std::string* AvroFileReader::metadata_value(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return &v;
  }
  return nullptr;
}

Result<std::unique_ptr<AvroFileReader>> AvroFileReader::Open(
    std::shared_ptr<io::RandomAccessFile> file) {
  std::unique_ptr<AvroFileReader> r(new AvroFileReader());
  r->file_ = std::move(file);
  const std::string& path = r->file_->path();
  int64_t size = r->file_->size();
  if (size < 4 + 1 + 16) {
    return Status::Corrupt("Avro file {}: {} bytes is too short for a container header", path,
                           size);
  }
  FLOE_ASSIGN_OR_RAISE(r->bytes_, r->file_->ReadAt(0, size));
  const uint8_t* data = r->bytes_->data();
  if (std::memcmp(data, kMagic, 4) != 0) {
    return Status::Corrupt("Avro file {}: bad magic (not an Avro object container file)", path);
  }
  HeaderCursor c{data + 4, data, data + size, path};
  while (true) {
    FLOE_ASSIGN_OR_RAISE(int64_t count, c.Long("metadata block count"));
    if (count == 0) break;
    if (count < 0) {
      if (count == INT64_MIN) return c.Corrupt("metadata block count out of range");
      count = -count;
      FLOE_ASSIGN_OR_RAISE(int64_t block_bytes, c.Long("metadata block size"));
      if (block_bytes < 0 || block_bytes > c.end - c.p) {
        return c.Corrupt(fmt::format("metadata block size {} is out of range", block_bytes));
      }
    }
    // Each entry takes at least two bytes (two empty lengths).
    if (count > (c.end - c.p) / 2) {
      return c.Corrupt(fmt::format("metadata block count {} exceeds the file size", count));
    }
    for (int64_t i = 0; i < count; ++i) {
      FLOE_ASSIGN_OR_RAISE(std::string_view key, c.Bytes("metadata key"));
      FLOE_ASSIGN_OR_RAISE(std::string_view value, c.Bytes("metadata value"));
      r->metadata_.emplace_back(std::string(key), std::string(value));
    }
  }
  if (c.end - c.p < 16) return c.Corrupt("truncated sync marker");
  std::memcpy(r->sync_.data(), c.p, 16);
  c.p += 16;
  r->data_start_ = c.offset();

  const std::string* schema = r->metadata_value("avro.schema");
  if (schema == nullptr) {
    return Status::Corrupt("Avro file {}: header has no avro.schema", path);
  }
  r->schema_json_ = *schema;
  auto parsed = ParseAvroSchema(r->schema_json_);
  if (!parsed.has_value()) {
    return Status::Corrupt("Avro file {}: bad writer schema: {}", path, parsed.error().message());
  }
  r->schema_ = std::move(*parsed);
  if (const std::string* codec = r->metadata_value("avro.codec"); codec && !codec->empty()) {
    r->codec_ = *codec;
  }
  auto codec = internal::CodecFromName(r->codec_);
  if (!codec.has_value()) return codec.error().WithPrefix(fmt::format("Avro file {}: ", path));
  return r;
}

Result<Schema> AvroFileReader::FileSchema() const { return AvroToFloeSchema(*schema_); }

namespace internal {

Result<std::optional<compression::CodecKind>> CodecFromName(std::string_view name) {
  if (name == "null") return std::optional<compression::CodecKind>();
  if (name == "deflate") return std::optional(compression::CodecKind::kDeflate);
  if (name == "snappy") return std::optional(compression::CodecKind::kSnappy);
  if (name == "zstandard" || name == "zstd") return std::optional(compression::CodecKind::kZstd);
  return Status::NotSupported("Avro codec '{}' is not supported", name);
}

// ---------------------------------------------------------------------------------
// Resolution plan compilation.

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

// ---------------------------------------------------------------------------------
// The decoder.

void ResetReservations(const Op& op) {
  op.data_reserved_to = -1;
  for (const Op& c : op.children) ResetReservations(c);
}

bool Decoder::AppendBinary(const Op& op, const uint8_t* p, int64_t n) {
  auto* b = static_cast<BinaryBuilder*>(op.builder);
  const int64_t length = b->data_length();
  if (length + n > op.data_reserved_to) [[unlikely]] {
    // The first reservation after Finish also writes the builder's leading offset, so
    // data_reserved_to is -1 until then and even an empty value takes this branch.
    int64_t step = std::max(n, std::min<int64_t>(end_ - p, kDataReserveStep));
    Status s = b->ReserveData(step);
    if (!s.ok()) return AppendFailed(s);
    op.data_reserved_to = length + step;
  }
  b->UnsafeAppend(std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(n)));
  return true;
}

IntMapSink::IntMapSink(MapBuilder* target, bool binary_values, MemoryPool* pool)
    : target_(target),
      binary_values_(binary_values),
      offsets_(pool),
      valid_(pool),
      keys_(pool),
      values_(pool),
      data_(pool),
      bitmap_(pool) {}

Status IntMapSink::Flush() {
  if (length_ == 0) return Status::OK();
  const DataType& type = *target_->type();
  auto wrap = [](const BufferBuilder& b) { return Buffer::Wrap(b.data(), b.size(), nullptr); };
  // The leading offsets are written here rather than at each reset, so an empty sink
  // holds nothing.
  std::memset(offsets_.mutable_data(), 0, 4);
  // Buffers of empty columns still need memory to point at.
  for (BufferBuilder* b : {&keys_, &values_, &data_}) FLOE_RETURN_NOT_OK(b->Reserve(8));
  if (binary_values_ && values_.size() == 0) values_.UnsafeAdvance(4);
  FLOE_ASSIGN_OR_RAISE(ArrayPtr keys,
                       Array::Make(type.field(0).type(), count_, {nullptr, wrap(keys_)}));
  ArrayPtr values;
  if (binary_values_) {
    std::memset(values_.mutable_data(), 0, 4);
    FLOE_ASSIGN_OR_RAISE(
        values, Array::Make(type.field(1).type(), count_, {nullptr, wrap(values_), wrap(data_)}));
  } else {
    FLOE_ASSIGN_OR_RAISE(values,
                         Array::Make(type.field(1).type(), count_, {nullptr, wrap(values_)}));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr entries, Array::Make(type.map_entries_type(), count_, {nullptr},
                                                     {std::move(keys), std::move(values)}));
  BufferPtr validity;
  if (null_count_ > 0) {
    bitmap_.Reset();
    FLOE_RETURN_NOT_OK(bitmap_.Resize(bit_util::BytesForBits(length_)));
    const uint8_t* v = valid_.data();
    for (int64_t i = 0; i < length_; ++i) {
      if (v[i]) bit_util::SetBit(bitmap_.mutable_data(), i);
    }
    validity = wrap(bitmap_);
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr maps,
                       Array::Make(target_->type(), length_, {std::move(validity), wrap(offsets_)},
                                   {std::move(entries)}, null_count_));
  FLOE_RETURN_NOT_OK(target_->AppendArraySlice(*maps, 0, length_));
  length_ = null_count_ = count_ = 0;
  offsets_.Reset();
  valid_.Reset();
  keys_.Reset();
  values_.Reset();
  data_.Reset();
  return Status::OK();
}

bool Decoder::SinkEndMap(const Op& op, IntMapSink& sink, bool valid) {
  if (sink.count_ > INT32_MAX) [[unlikely]] {
    return Fail(fmt::format("'{}' has more than {} map entries in one batch", op.name, INT32_MAX));
  }
  // offsets_ holds a slot for the leading offset (written by Flush) before the ends.
  Status s = sink.offsets_.Reserve(sink.offsets_.size() == 0 ? 8 : 4);
  if (s.ok()) s = sink.valid_.Reserve(1);
  if (!s.ok()) return AppendFailed(s);
  if (sink.offsets_.size() == 0) sink.offsets_.UnsafeAdvance(4);
  sink.offsets_.UnsafeAppendValue(static_cast<int32_t>(sink.count_));
  sink.valid_.UnsafeAppendValue(static_cast<uint8_t>(valid));
  ++sink.length_;
  if (!valid) ++sink.null_count_;
  return true;
}

bool Decoder::SinkMapIntLong(const Op& op, const uint8_t*& p) {
  IntMapSink& sink = *op.sink;
  const uint8_t* q = p;
  const uint8_t* const end = end_;
  while (true) {
    int64_t n;
    if (!ReadCount(q, &n, false, op)) return false;
    if (n == 0) break;
    Status s = sink.keys_.Reserve(n * 4);
    if (s.ok()) s = sink.values_.Reserve(n * 8);
    if (!s.ok()) return AppendFailed(s);
    int32_t* keys = reinterpret_cast<int32_t*>(sink.keys_.mutable_data() + sink.keys_.size());
    int64_t* values = reinterpret_cast<int64_t*>(sink.values_.mutable_data() + sink.values_.size());
    for (int64_t i = 0; i < n; ++i) {
      int64_t k, v;
      if (!ReadVarLong(q, end, &k) || !ReadVarLong(q, end, &v)) return Truncated(op);
      if (k < INT32_MIN || k > INT32_MAX) [[unlikely]] {
        return Fail(fmt::format("int value {} of '{}' out of range", k, op.children[0].name));
      }
      keys[i] = static_cast<int32_t>(k);
      values[i] = v;
    }
    sink.keys_.UnsafeAdvance(n * 4);
    sink.values_.UnsafeAdvance(n * 8);
    sink.count_ += n;
  }
  p = q;
  return SinkEndMap(op, sink, true);
}

bool Decoder::SinkMapIntBinary(const Op& op, const uint8_t*& p) {
  IntMapSink& sink = *op.sink;
  const uint8_t* q = p;
  const uint8_t* const end = end_;
  while (true) {
    int64_t n;
    if (!ReadCount(q, &n, false, op)) return false;
    if (n == 0) break;
    // values_ holds a slot for the leading offset (written by Flush) before the ends.
    Status s = sink.keys_.Reserve(n * 4);
    if (s.ok()) s = sink.values_.Reserve(n * 4 + 4);
    if (!s.ok()) return AppendFailed(s);
    if (sink.values_.size() == 0) sink.values_.UnsafeAdvance(4);
    int32_t* keys = reinterpret_cast<int32_t*>(sink.keys_.mutable_data() + sink.keys_.size());
    int32_t* ends = reinterpret_cast<int32_t*>(sink.values_.mutable_data() + sink.values_.size());
    BufferBuilder& data = sink.data_;
    for (int64_t i = 0; i < n; ++i) {
      int64_t k, len;
      if (!ReadVarLong(q, end, &k) || !ReadVarLong(q, end, &len)) return Truncated(op);
      if (k < INT32_MIN || k > INT32_MAX) [[unlikely]] {
        return Fail(fmt::format("int value {} of '{}' out of range", k, op.children[0].name));
      }
      if (len < 0 || len > end - q) [[unlikely]] {
        return Fail(fmt::format("length {} of '{}' is out of range", len, op.children[1].name));
      }
      if (data.size() + len > BinaryBuilder::kMaxDataBytes) [[unlikely]] {
        return Fail(fmt::format("'{}' has more than {} bytes of values in one batch",
                                op.children[1].name, BinaryBuilder::kMaxDataBytes));
      }
      // 16 bytes of slack let short values (most bounds are 1 to 16 bytes) move in one
      // fixed-size copy when the input has as much left.
      s = data.Reserve(len + 16);
      if (!s.ok()) return AppendFailed(s);
      uint8_t* dst = data.mutable_data() + data.size();
      if (len <= 16 && end - q >= 16) {
        std::memcpy(dst, q, 16);
      } else {
        std::memcpy(dst, q, static_cast<size_t>(len));
      }
      data.UnsafeAdvance(len);
      q += len;
      keys[i] = static_cast<int32_t>(k);
      ends[i] = static_cast<int32_t>(data.size());
    }
    sink.keys_.UnsafeAdvance(n * 4);
    sink.values_.UnsafeAdvance(n * 4);
    sink.count_ += n;
  }
  p = q;
  return SinkEndMap(op, sink, true);
}

bool Decoder::DecodeMapIntLong(const Op& op, const uint8_t*& p) {
  Status s = static_cast<MapBuilder*>(op.builder)->Append();
  if (!s.ok()) return AppendFailed(s);
  const Op& key = op.children[0];
  auto* kb = static_cast<Int32Builder*>(key.builder);
  auto* vb = static_cast<Int64Builder*>(op.children[1].builder);
  // Entries are decoded into local arrays and appended a chunk at a time: writing
  // through the builders value by value costs more than the decoding itself.
  constexpr int64_t kChunk = 64;
  int32_t keys[kChunk];
  int64_t values[kChunk];
  const uint8_t* q = p;
  while (true) {
    int64_t n;
    if (!ReadCount(q, &n, false, op)) return false;
    if (n == 0) break;
    while (n > 0) {
      int64_t m = std::min(n, kChunk);
      for (int64_t i = 0; i < m; ++i) {
        int64_t k, v;
        if (!ReadVarLong(q, end_, &k) || !ReadVarLong(q, end_, &v)) return Truncated(op);
        if (k < INT32_MIN || k > INT32_MAX) [[unlikely]] {
          return Fail(fmt::format("int value {} of '{}' out of range", k, key.name));
        }
        keys[i] = static_cast<int32_t>(k);
        values[i] = v;
      }
      s = kb->AppendValues(keys, m);
      if (s.ok()) s = vb->AppendValues(values, m);
      if (!s.ok()) return AppendFailed(s);
      n -= m;
    }
  }
  p = q;
  return true;
}

bool Decoder::DecodeMapIntBinary(const Op& op, const uint8_t*& p) {
  Status s = static_cast<MapBuilder*>(op.builder)->Append();
  if (!s.ok()) return AppendFailed(s);
  const Op& key = op.children[0];
  const Op& value = op.children[1];
  auto* kb = static_cast<Int32Builder*>(key.builder);
  auto* vb = static_cast<BinaryBuilder*>(value.builder);
  constexpr int64_t kChunk = 64;
  int32_t keys[kChunk];
  const uint8_t* q = p;
  while (true) {
    int64_t n;
    if (!ReadCount(q, &n, false, op)) return false;
    if (n == 0) break;
    s = vb->Reserve(n);
    if (!s.ok()) return AppendFailed(s);
    while (n > 0) {
      int64_t m = std::min(n, kChunk);
      for (int64_t i = 0; i < m; ++i) {
        int64_t k, len;
        if (!ReadVarLong(q, end_, &k) || !ReadVarLong(q, end_, &len)) return Truncated(op);
        if (k < INT32_MIN || k > INT32_MAX) [[unlikely]] {
          return Fail(fmt::format("int value {} of '{}' out of range", k, key.name));
        }
        if (len < 0 || len > end_ - q) [[unlikely]] {
          return Fail(fmt::format("length {} of '{}' is out of range", len, value.name));
        }
        keys[i] = static_cast<int32_t>(k);
        if (!AppendBinary(value, q, len)) return false;
        q += len;
      }
      s = kb->AppendValues(keys, m);
      if (!s.ok()) return AppendFailed(s);
      n -= m;
    }
  }
  p = q;
  return true;
}

bool Decoder::Fail(std::string message) {
  if (error_.ok()) error_ = Status::Corrupt("{}", message);
  return false;
}

bool Decoder::Truncated(const Op& op) {
  return Fail(fmt::format("value of '{}' runs past the end of the block", op.name));
}

bool Decoder::AppendFailed(const Status& s) {
  if (error_.ok()) error_ = s;
  return false;
}

bool Decoder::ReadCount(const uint8_t*& p, int64_t* count, bool items_may_be_empty, const Op& op) {
  int64_t n;
  if (!ReadVarLong(p, end_, &n)) return Truncated(op);
  if (n < 0) {
    if (n == INT64_MIN) return Fail(fmt::format("block count of '{}' out of range", op.name));
    n = -n;
    int64_t bytes;
    if (!ReadVarLong(p, end_, &bytes)) return Truncated(op);
    if (bytes < 0 || bytes > end_ - p) {
      return Fail(fmt::format("block byte size {} of '{}' exceeds the {} bytes left", bytes,
                              op.name, end_ - p));
    }
  }
  // Every item takes at least one byte unless its type encodes in zero bytes.
  int64_t limit = items_may_be_empty ? (int64_t{1} << 16) : (end_ - p);
  if (n > limit) {
    return Fail(
        fmt::format("block count {} of '{}' exceeds the {} bytes left", n, op.name, end_ - p));
  }
  *count = n;
  return true;
}

bool Decoder::Skip(const Op& op, const uint8_t*& p) {
  switch (op.code) {
    case OpCode::kSkipNull:
      return true;
    case OpCode::kSkipBool:
      if (p >= end_) return Truncated(op);
      ++p;
      return true;
    case OpCode::kSkipVarint: {
      int64_t v;
      if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      return true;
    }
    case OpCode::kSkipVarints: {
      int64_t v;
      for (int32_t i = 0; i < op.size; ++i) {
        if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      }
      return true;
    }
    case OpCode::kSkipFixed:
      if (end_ - p < op.size) return Truncated(op);
      p += op.size;
      return true;
    case OpCode::kSkipBytes: {
      int64_t n;
      if (!ReadVarLong(p, end_, &n)) return Truncated(op);
      if (n < 0 || n > end_ - p) {
        return Fail(fmt::format("length {} of '{}' is out of range", n, op.name));
      }
      p += n;
      return true;
    }
    case OpCode::kRecord:
      for (const Op& c : op.children) {
        if (!Skip(c, p)) return false;
      }
      return true;
    case OpCode::kSkipArray:
    case OpCode::kSkipMap:
      while (true) {
        int64_t n;
        if (!ReadCount(p, &n, op.items_may_be_empty, op)) return false;
        if (n == 0) return true;
        const Op& item = op.children[0];
        if (op.code == OpCode::kSkipArray && item.code == OpCode::kSkipVarints) {
          // Skipped count maps (records of an int and a long): only varints.
          int64_t v;
          for (int64_t i = 0, total = n * item.size; i < total; ++i) {
            if (!ReadVarLong(p, end_, &v)) return Truncated(item);
          }
          continue;
        }
        if (op.code == OpCode::kSkipArray && item.code == OpCode::kRecord &&
            item.children.size() == 2 && item.children[0].code == OpCode::kSkipVarint &&
            item.children[1].code == OpCode::kSkipBytes) {
          // Skipped bound maps (records of an int and bytes).
          for (int64_t i = 0; i < n; ++i) {
            int64_t key, len;
            if (!ReadVarLong(p, end_, &key) || !ReadVarLong(p, end_, &len)) {
              return Truncated(item);
            }
            if (len < 0 || len > end_ - p) {
              return Fail(fmt::format("length {} of '{}' is out of range", len, op.name));
            }
            p += len;
          }
          continue;
        }
        for (int64_t i = 0; i < n; ++i) {
          if (op.code == OpCode::kSkipMap) {
            int64_t len;
            if (!ReadVarLong(p, end_, &len)) return Truncated(op);
            if (len < 0 || len > end_ - p) {
              return Fail(fmt::format("map key length {} of '{}' is out of range", len, op.name));
            }
            p += len;
          }
          if (!Skip(op.children[0], p)) return false;
        }
      }
    case OpCode::kSkipUnion: {
      int64_t b;
      if (!ReadVarLong(p, end_, &b)) return Truncated(op);
      if (b < 0 || b >= static_cast<int64_t>(op.children.size())) {
        return Fail(fmt::format("union branch {} of '{}' out of range", b, op.name));
      }
      return Skip(op.children[static_cast<size_t>(b)], p);
    }
    default:
      return Decode(op, p);
  }
}

bool Decoder::Decode(const Op& op, const uint8_t*& p) {
  switch (op.code) {
    case OpCode::kIntToI32: {
      int64_t v;
      if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      if (v < INT32_MIN || v > INT32_MAX) {
        return Fail(fmt::format("int value {} of '{}' out of range", v, op.name));
      }
      static_cast<Int32Builder*>(op.builder)->UnsafeAppend(static_cast<int32_t>(v));
      return true;
    }
    case OpCode::kIntToI64:
    case OpCode::kLongToI64: {
      int64_t v;
      if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      static_cast<Int64Builder*>(op.builder)->UnsafeAppend(v);
      return true;
    }
    case OpCode::kLongToF32: {
      int64_t v;
      if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      static_cast<Float32Builder*>(op.builder)->UnsafeAppend(static_cast<float>(v));
      return true;
    }
    case OpCode::kLongToF64: {
      int64_t v;
      if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      static_cast<Float64Builder*>(op.builder)->UnsafeAppend(static_cast<double>(v));
      return true;
    }
    case OpCode::kFloatToF32:
    case OpCode::kFloatToF64: {
      if (end_ - p < 4) return Truncated(op);
      float f;
      std::memcpy(&f, p, 4);
      p += 4;
      if (op.code == OpCode::kFloatToF32) {
        static_cast<Float32Builder*>(op.builder)->UnsafeAppend(f);
      } else {
        static_cast<Float64Builder*>(op.builder)->UnsafeAppend(static_cast<double>(f));
      }
      return true;
    }
    case OpCode::kDoubleToF64: {
      if (end_ - p < 8) return Truncated(op);
      double d;
      std::memcpy(&d, p, 8);
      p += 8;
      static_cast<Float64Builder*>(op.builder)->UnsafeAppend(d);
      return true;
    }
    case OpCode::kBool: {
      if (p >= end_) return Truncated(op);
      uint8_t b = *p++;
      if (b > 1) return Fail(fmt::format("boolean byte {} of '{}' is not 0 or 1", b, op.name));
      static_cast<BooleanBuilder*>(op.builder)->UnsafeAppend(b == 1);
      return true;
    }
    case OpCode::kBytes: {
      int64_t n;
      if (!ReadVarLong(p, end_, &n)) return Truncated(op);
      if (n < 0 || n > end_ - p) {
        return Fail(fmt::format("length {} of '{}' is out of range", n, op.name));
      }
      if (!AppendBinary(op, p, n)) return false;
      p += n;
      return true;
    }
    case OpCode::kEnum: {
      int64_t i;
      if (!ReadVarLong(p, end_, &i)) return Truncated(op);
      if (i < 0 || i >= static_cast<int64_t>(op.symbols.size())) {
        return Fail(fmt::format("enum index {} of '{}' out of range", i, op.name));
      }
      const std::string& sym = op.symbols[static_cast<size_t>(i)];
      const uint8_t* q = reinterpret_cast<const uint8_t*>(sym.data());
      return AppendBinary(op, q, static_cast<int64_t>(sym.size()));
    }
    case OpCode::kFixed: {
      if (end_ - p < op.size) return Truncated(op);
      static_cast<FixedSizeBinaryBuilder*>(op.builder)->UnsafeAppend(p);
      p += op.size;
      return true;
    }
    case OpCode::kFixedToBinary: {
      if (end_ - p < op.size) return Truncated(op);
      if (!AppendBinary(op, p, op.size)) return false;
      p += op.size;
      return true;
    }
    case OpCode::kDecimalFixed:
    case OpCode::kDecimalBytes: {
      int64_t n = op.size;
      if (op.code == OpCode::kDecimalBytes) {
        if (!ReadVarLong(p, end_, &n)) return Truncated(op);
        if (n < 0 || n > end_ - p) {
          return Fail(fmt::format("length {} of '{}' is out of range", n, op.name));
        }
        if (n > 16) return Fail(fmt::format("decimal of {} bytes in '{}' exceeds 16", n, op.name));
      }
      if (end_ - p < n) return Truncated(op);
      // Big-endian two's complement, sign-extended.
      unsigned __int128 u = (n > 0 && (p[0] & 0x80)) ? ~static_cast<unsigned __int128>(0) : 0;
      for (int64_t i = 0; i < n; ++i) u = (u << 8) | p[i];
      p += n;
      static_cast<DecimalBuilder*>(op.builder)->UnsafeAppend(static_cast<Int128>(u));
      return true;
    }
    case OpCode::kAppendNull: {
      if (!op.nullable) {
        return Fail(fmt::format("null value for required field '{}'", op.name));
      }
      Status s = op.builder->AppendNull();
      return s.ok() || AppendFailed(s);
    }
    case OpCode::kError:
      return Fail(op.message);
    case OpCode::kUnion: {
      int64_t b;
      if (!ReadVarLong(p, end_, &b)) return Truncated(op);
      if (b < 0 || b >= static_cast<int64_t>(op.children.size())) {
        return Fail(fmt::format("union branch {} of '{}' out of range", b, op.name));
      }
      const Op& branch = op.children[static_cast<size_t>(b)];
      // Optional longs and ints (Iceberg's sequence numbers, snapshot and sort order ids)
      // are decoded here rather than through another dispatch.
      if (branch.code == OpCode::kLongToI64) {
        int64_t v;
        if (!ReadVarLong(p, end_, &v)) return Truncated(branch);
        static_cast<Int64Builder*>(branch.builder)->UnsafeAppend(v);
        return true;
      }
      return Decode(branch, p);
    }
    case OpCode::kStruct: {
      Status s = static_cast<StructBuilder*>(op.builder)->Append();
      if (!s.ok()) return AppendFailed(s);
      [[fallthrough]];
    }
    case OpCode::kRecord: {
      for (const Op& c : op.children) {
        if (c.builder == nullptr) {
          if (!Skip(c, p)) return false;
        } else if (!Decode(c, p)) {
          return false;
        }
      }
      for (ArrayBuilder* m : op.missing) {
        Status s = m->AppendNull();
        if (!s.ok()) return AppendFailed(s);
      }
      return true;
    }
    case OpCode::kList: {
      Status s = static_cast<ListBuilder*>(op.builder)->Append();
      if (!s.ok()) return AppendFailed(s);
      const Op& elem = op.children[0];
      while (true) {
        int64_t n;
        if (!ReadCount(p, &n, op.items_may_be_empty, op)) return false;
        if (n == 0) return true;
        s = elem.builder->Reserve(n);
        if (!s.ok()) return AppendFailed(s);
        for (int64_t i = 0; i < n; ++i) {
          if (!Decode(elem, p)) return false;
        }
      }
    }
    case OpCode::kMapIntLong:
      return op.sink != nullptr ? SinkMapIntLong(op, p) : DecodeMapIntLong(op, p);
    case OpCode::kMapIntBinary:
      return op.sink != nullptr ? SinkMapIntBinary(op, p) : DecodeMapIntBinary(op, p);
    case OpCode::kIntMapNull:
      if (!op.nullable) return Fail(fmt::format("null value for required field '{}'", op.name));
      return SinkEndMap(op, *op.sink, false);
    case OpCode::kMapFromMap:
    case OpCode::kMapFromArray: {
      Status s = static_cast<MapBuilder*>(op.builder)->Append();
      if (!s.ok()) return AppendFailed(s);
      const Op& key = op.children[0];
      const Op& value = op.children[1];
      while (true) {
        int64_t n;
        if (!ReadCount(p, &n, false, op)) return false;
        if (n == 0) return true;
        s = key.builder->Reserve(n);
        if (s.ok()) s = value.builder->Reserve(n);
        if (!s.ok()) return AppendFailed(s);
        for (int64_t i = 0; i < n; ++i) {
          if (!Decode(key, p) || !Decode(value, p)) return false;
        }
      }
    }
    default:
      return Skip(op, p);
  }
}

}  // namespace internal

// ---------------------------------------------------------------------------------
// The batch stream.

namespace {

// Inflates the raw deflate data (RFC 1951) of Avro's "deflate" codec with one z_stream
// reset per block, into one buffer reused from block to block: its first size is a guess
// from the compressed size, and it keeps the largest size a block needed, so blocks of a
// similar size inflate in a single call without zero-filling or copying the output.
class Inflater {
 public:
  Inflater() = default;
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  ~Inflater() {
    if (initialized_) inflateEnd(&stream_);
  }

  // Inflates `in`, at most `max_output` bytes; the output is [data(), data() + size).
  Status Inflate(std::span<const uint8_t> in, int64_t max_output) {
    if (!initialized_) {
      std::memset(&stream_, 0, sizeof(stream_));
      if (inflateInit2(&stream_, -15) != Z_OK) return Status::Internal("inflateInit2 failed");
      initialized_ = true;
    } else if (inflateReset(&stream_) != Z_OK) {
      return Status::Internal("inflateReset failed");
    }
    if (in.size() > std::numeric_limits<uInt>::max()) {
      return Status::Corrupt("{} compressed bytes exceed zlib's input limit", in.size());
    }
    if (capacity_ == 0) {
      FLOE_RETURN_NOT_OK(
          Grow(std::min<int64_t>(static_cast<int64_t>(in.size()) * 4 + 4096, max_output), 0));
    }
    stream_.next_in = const_cast<Bytef*>(in.data());
    stream_.avail_in = static_cast<uInt>(in.size());
    int64_t produced = 0;
    while (true) {
      int64_t room = std::min<int64_t>(std::min(capacity_, max_output) - produced,
                                       std::numeric_limits<uInt>::max());
      // zlib rejects a null output pointer; with no room left, a probe byte tells
      // whether more output is coming.
      uint8_t probe;
      stream_.next_out = room > 0 ? buffer_.get() + produced : &probe;
      stream_.avail_out = room > 0 ? static_cast<uInt>(room) : 1;
      int rc = inflate(&stream_, Z_FINISH);
      if (room > 0) {
        produced += room - stream_.avail_out;
      } else if (stream_.avail_out == 0) {
        return Status::Corrupt("{} compressed bytes inflate to more than {} bytes", in.size(),
                               max_output);
      }
      if (rc == Z_STREAM_END) break;
      if (rc != Z_BUF_ERROR && rc != Z_OK) {
        return Status::Corrupt(
            "malformed deflate data at input byte {} (after {} bytes of "
            "output): {}",
            in.size() - stream_.avail_in, produced,
            stream_.msg ? stream_.msg : "error " + std::to_string(rc));
      }
      if (stream_.avail_out > 0) {
        // inflate stops when the input or the output room runs out: here, the input.
        return Status::Corrupt(
            "truncated deflate data: {} compressed bytes end after {} "
            "bytes of output",
            in.size(), produced);
      }
      if (capacity_ < max_output) {
        FLOE_RETURN_NOT_OK(Grow(std::min(capacity_ * 2, max_output), produced));
      }
    }
    size_ = produced;
    return Status::OK();
  }

  const uint8_t* data() const { return buffer_.get(); }
  int64_t size() const { return size_; }

 private:
  // Grows the buffer to `capacity` bytes, keeping its first `keep`.
  Status Grow(int64_t capacity, int64_t keep) {
    std::unique_ptr<uint8_t[]> bigger(new (std::nothrow) uint8_t[static_cast<size_t>(capacity)]);
    if (bigger == nullptr) {
      return Status::OutOfMemory("cannot allocate {} bytes for an inflated block", capacity);
    }
    if (keep > 0) std::memcpy(bigger.get(), buffer_.get(), static_cast<size_t>(keep));
    buffer_ = std::move(bigger);
    capacity_ = capacity;
    return Status::OK();
  }

  z_stream stream_;
  bool initialized_ = false;
  std::unique_ptr<uint8_t[]> buffer_;
  int64_t capacity_ = 0;
  int64_t size_ = 0;
};

class AvroBatchReader final : public RecordBatchReader {
 public:
  AvroBatchReader(std::shared_ptr<io::RandomAccessFile> file, BufferPtr bytes, int64_t start,
                  std::array<uint8_t, 16> sync, std::optional<compression::CodecKind> codec,
                  SchemaPtr target, int64_t batch_size, bool record_may_be_empty)
      : file_(std::move(file)),
        bytes_(std::move(bytes)),
        pos_(start),
        sync_(sync),
        codec_(codec),
        schema_(std::move(target)),
        batch_size_(batch_size),
        record_may_be_empty_(record_may_be_empty) {}

  Status Init(const AvroNode& file_schema) {
    std::vector<ArrayBuilder*> raw;
    for (const Field& f : schema_->fields()) {
      builders_.push_back(MakeBuilder(f.type()));
      raw.push_back(builders_.back().get());
    }
    FLOE_ASSIGN_OR_RAISE(plan_, internal::CompileRecord(file_schema, schema_->fields(), raw, ""));
    CollectBuilders(plan_);
    AttachSinks();
    if (codec_ && *codec_ != compression::CodecKind::kDeflate) {
      FLOE_ASSIGN_OR_RAISE(decompressor_, compression::Decompressor::Make(*codec_));
    }
    return Status::OK();
  }

  const SchemaPtr& schema() const override { return schema_; }

  // Gives each int-keyed metric map op a sink of its own where that keeps the values in
  // order: nothing but the op and NULLs of its own union may append to the map builder,
  // and no enclosing struct may be appended as NULL (which appends to its fields).
  void AttachSinks() {
    std::vector<const ArrayBuilder*> nulled;
    std::vector<std::pair<const ArrayBuilder*, int>> appenders;
    CountAppenders(plan_, &nulled, &appenders);
    auto count_of = [&](const ArrayBuilder* b) {
      for (const auto& [builder, n] : appenders) {
        if (builder == b) return n;
      }
      return 0;
    };
    std::vector<internal::Op*> fast;
    FindSinkable(plan_, false, nulled, &fast);
    for (internal::Op* op : fast) {
      if (count_of(op->builder) != 1) continue;
      sinks_.push_back(std::make_unique<internal::IntMapSink>(
          static_cast<MapBuilder*>(op->builder), op->code == internal::OpCode::kMapIntBinary,
          op->builder->pool()));
      op->sink = sinks_.back().get();
      RouteNulls(plan_, op->builder, op->sink);
    }
  }

  // Builders that kAppendNull ops target, and how many other ops target each builder.
  static void CountAppenders(const internal::Op& op, std::vector<const ArrayBuilder*>* nulled,
                             std::vector<std::pair<const ArrayBuilder*, int>>* appenders) {
    if (op.builder != nullptr) {
      if (op.code == internal::OpCode::kAppendNull) {
        nulled->push_back(op.builder);
      } else if (op.code != internal::OpCode::kUnion) {
        auto it = std::find_if(appenders->begin(), appenders->end(),
                               [&](const auto& e) { return e.first == op.builder; });
        if (it == appenders->end()) {
          appenders->emplace_back(op.builder, 1);
        } else {
          ++it->second;
        }
      }
    }
    for (const ArrayBuilder* m : op.missing) nulled->push_back(m);
    for (const internal::Op& c : op.children) CountAppenders(c, nulled, appenders);
  }

  static void FindSinkable(internal::Op& op, bool nulled_ancestor,
                           const std::vector<const ArrayBuilder*>& nulled,
                           std::vector<internal::Op*>* out) {
    if (op.code == internal::OpCode::kMapIntLong || op.code == internal::OpCode::kMapIntBinary) {
      if (!nulled_ancestor) out->push_back(&op);
      return;
    }
    if (op.code == internal::OpCode::kStruct &&
        std::find(nulled.begin(), nulled.end(), op.builder) != nulled.end()) {
      nulled_ancestor = true;
    }
    for (internal::Op& c : op.children) FindSinkable(c, nulled_ancestor, nulled, out);
  }

  static void RouteNulls(internal::Op& op, const ArrayBuilder* builder,
                         internal::IntMapSink* sink) {
    if (op.code == internal::OpCode::kAppendNull && op.builder == builder) {
      op.code = internal::OpCode::kIntMapNull;
      op.sink = sink;
    }
    for (internal::Op& c : op.children) RouteNulls(c, builder, sink);
  }

  // Every builder the plan appends to (each once), for capacity hints.
  void CollectBuilders(const internal::Op& op) {
    if (op.builder != nullptr &&
        std::find(nested_.begin(), nested_.end(), op.builder) == nested_.end()) {
      nested_.push_back(op.builder);
    }
    for (const internal::Op& c : op.children) CollectBuilders(c);
  }

  Result<RecordBatchPtr> Next() override {
    if (!failed_.ok()) return failed_;
    auto result = NextImpl();
    if (!result.has_value()) failed_ = result.error();
    return result;
  }

 private:
  Status Corrupt(std::string_view what, int64_t offset) const {
    return Status::Corrupt("Avro file {}: {} at byte offset {}", file_->path(), what, offset);
  }

  // Reads the next block header and payload; false at the end of the file.
  Result<bool> NextBlock() {
    const uint8_t* base = bytes_->data();
    int64_t size = bytes_->size();
    if (pos_ >= size) return false;
    const uint8_t* p = base + pos_;
    const uint8_t* end = base + size;
    block_offset_ = pos_;
    int64_t count, bytes;
    if (!internal::ReadVarLong(p, end, &count)) return Corrupt("truncated block count", pos_);
    if (!internal::ReadVarLong(p, end, &bytes)) return Corrupt("truncated block size", pos_);
    if (count < 0) return Corrupt(fmt::format("negative block count {}", count), pos_);
    if (bytes < 0 || bytes > end - p - 16) {
      return Corrupt(
          fmt::format("block size {} exceeds the {} bytes left in the file", bytes, end - p), pos_);
    }
    const uint8_t* data = p;
    p += bytes;
    if (std::memcmp(p, sync_.data(), 16) != 0) {
      return Corrupt("sync marker mismatch", p - base);
    }
    pos_ = p + 16 - base;
    if (!codec_) {
      block_begin_ = data;
      block_end_ = data + bytes;
    } else if (*codec_ == compression::CodecKind::kDeflate) {
      int64_t max_out = std::min<int64_t>(bytes * 1100 + (1 << 20), int64_t{1} << 31);
      Status s =
          inflater_.Inflate(std::span<const uint8_t>(data, static_cast<size_t>(bytes)), max_out);
      if (!s.ok()) {
        return Corrupt(fmt::format("cannot decompress block: {}", s.message()), block_offset_);
      }
      block_begin_ = inflater_.data();
      block_end_ = inflater_.data() + inflater_.size();
    } else {
      scratch_.clear();
      std::span<const uint8_t> in(data, static_cast<size_t>(bytes));
      if (*codec_ == compression::CodecKind::kSnappy) {
        if (bytes < 4) return Corrupt("snappy block shorter than its CRC", block_offset_);
        in = in.first(in.size() - 4);
      }
      // Bounded by the data's own size: no codec here expands more than ~1000 times.
      int64_t max_out = std::min<int64_t>(bytes * 1100 + (1 << 20), int64_t{1} << 31);
      Status s = decompressor_->DecompressBounded(in, max_out, &scratch_);
      if (!s.ok()) {
        return Corrupt(fmt::format("cannot decompress block: {}", s.message()), block_offset_);
      }
      if (*codec_ == compression::CodecKind::kSnappy) {
        const uint8_t* c = data + bytes - 4;
        uint32_t want = (uint32_t{c[0]} << 24) | (uint32_t{c[1]} << 16) | (uint32_t{c[2]} << 8) |
                        uint32_t{c[3]};
        uint32_t got =
            static_cast<uint32_t>(crc32(0, scratch_.data(), static_cast<uInt>(scratch_.size())));
        if (want != got) {
          return Corrupt(
              fmt::format("snappy block CRC32 {:08x} does not match the data's {:08x}", want, got),
              block_offset_);
        }
      }
      block_begin_ = scratch_.data();
      block_end_ = scratch_.data() + scratch_.size();
    }
    int64_t limit = record_may_be_empty_ ? (int64_t{1} << 24) : (block_end_ - block_begin_);
    if (count > limit) {
      return Corrupt(fmt::format("block count {} exceeds the block's {} bytes", count,
                                 block_end_ - block_begin_),
                     block_offset_);
    }
    remaining_ = count;
    cursor_ = block_begin_;
    return true;
  }

  Result<RecordBatchPtr> NextImpl() {
    int64_t rows = 0;
    while (rows < batch_size_) {
      if (remaining_ == 0) {
        if (cursor_ != block_end_) {
          return Corrupt(
              fmt::format("{} bytes left over after the block's records", block_end_ - cursor_),
              block_offset_);
        }
        FLOE_ASSIGN_OR_RAISE(bool more, NextBlock());
        if (!more) break;
        continue;
      }
      int64_t n = std::min(remaining_, batch_size_ - rows);
      for (auto& b : builders_) FLOE_RETURN_NOT_OK(b->Reserve(n));
      internal::Decoder dec(block_end_);
      const uint8_t* p = cursor_;
      for (int64_t i = 0; i < n; ++i) {
        if (!dec.Decode(plan_, p)) {
          return Corrupt(fmt::format("record {} of block: {}", i, dec.error().message()),
                         block_offset_);
        }
      }
      cursor_ = p;
      remaining_ -= n;
      rows += n;
    }
    if (rows == 0) return RecordBatchPtr();
    // The next batch will likely need as much room as this one: note each nested
    // builder's size and reserve it again after Finish, so builders do not regrow from
    // empty batch after batch.
    std::vector<std::pair<int64_t, int64_t>> sizes;
    sizes.reserve(nested_.size());
    for (ArrayBuilder* b : nested_) {
      int64_t data =
          b->type()->is_binary_like() ? static_cast<BinaryBuilder*>(b)->data_length() : 0;
      sizes.emplace_back(b->length(), data);
    }
    for (auto& sink : sinks_) FLOE_RETURN_NOT_OK(sink->Flush());
    std::vector<ArrayPtr> columns;
    for (auto& b : builders_) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr a, b->Finish());
      columns.push_back(std::move(a));
    }
    internal::ResetReservations(plan_);
    for (size_t i = 0; i < nested_.size(); ++i) {
      FLOE_RETURN_NOT_OK(nested_[i]->Reserve(sizes[i].first));
      if (sizes[i].second > 0) {
        // With room for one reservation step more, the decoder's step-wise reservations
        // (see AppendBinary) do not double the buffer near the end of a similar batch.
        FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(nested_[i])
                               ->ReserveData(sizes[i].second + internal::kDataReserveStep));
      }
    }
    return RecordBatch::Make(schema_, rows, std::move(columns));
  }

  std::shared_ptr<io::RandomAccessFile> file_;
  BufferPtr bytes_;
  int64_t pos_;
  std::array<uint8_t, 16> sync_;
  std::optional<compression::CodecKind> codec_;
  SchemaPtr schema_;
  int64_t batch_size_;
  bool record_may_be_empty_;
  std::vector<std::unique_ptr<ArrayBuilder>> builders_;
  std::vector<ArrayBuilder*> nested_;
  internal::Op plan_;
  std::vector<std::unique_ptr<internal::IntMapSink>> sinks_;
  std::unique_ptr<compression::Decompressor> decompressor_;
  std::vector<uint8_t> scratch_;
  Inflater inflater_;
  int64_t block_offset_ = 0;
  const uint8_t* block_begin_ = nullptr;
  const uint8_t* block_end_ = nullptr;
  const uint8_t* cursor_ = nullptr;
  int64_t remaining_ = 0;
  Status failed_;
};

}  // namespace

Result<std::unique_ptr<RecordBatchReader>> AvroFileReader::Read(SchemaPtr target,
                                                                int64_t batch_size) const {
  if (batch_size <= 0) return Status::Invalid("Avro read: batch_size must be positive");
  FLOE_ASSIGN_OR_RAISE(auto codec, internal::CodecFromName(codec_));
  auto reader =
      std::make_unique<AvroBatchReader>(file_, bytes_, data_start_, sync_, codec, std::move(target),
                                        batch_size, internal::MinSizeIsZeroForTest(*schema_));
  Status s = reader->Init(*schema_);
  if (!s.ok()) return s.WithPrefix(fmt::format("Avro file {}: ", file_->path()));
  return std::unique_ptr<RecordBatchReader>(std::move(reader));
}

Result<std::vector<RecordBatchPtr>> AvroFileReader::ReadAll(SchemaPtr target,
                                                            int64_t batch_size) const {
  FLOE_ASSIGN_OR_RAISE(auto reader, Read(std::move(target), batch_size));
  std::vector<RecordBatchPtr> out;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->Next());
    if (!b) break;
    out.push_back(std::move(b));
  }
  return out;
}

namespace internal {
bool MinSizeIsZeroForTest(const AvroNode& node) { return MinSizeIsZero(node); }
}  // namespace internal

}  // namespace floe::avro
