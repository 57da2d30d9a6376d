#include "floe/format/parquet/thrift_compact.h"

#include <bit>
#include <cstring>
#include <limits>

namespace floe::parquet {

namespace {

// Compact-protocol type codes (spec, "Struct encoding" and "List and Set").
constexpr uint8_t kCodeBoolTrue = 1;
constexpr uint8_t kCodeBoolFalse = 2;

// The wire code of every type but bool is its enumerator value plus one.
uint8_t WireCode(ThriftType type) { return static_cast<uint8_t>(type) + 1; }

// The type of a field-header code, or kStop for an unknown code.
ThriftType FieldTypeOfCode(uint8_t code) {
  if (code == kCodeBoolTrue || code == kCodeBoolFalse) return ThriftType::kBool;
  if (code >= 3 && code <= 13) return static_cast<ThriftType>(code - 1);
  return ThriftType::kStop;
}

// The fewest bytes one encoded value of `type` occupies.
size_t MinEncodedSize(ThriftType type) {
  switch (type) {
    case ThriftType::kDouble:
      return 8;
    case ThriftType::kUuid:
      return 16;
    default:
      return 1;
  }
}

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

}  // namespace

std::string_view ThriftTypeName(ThriftType type) {
  switch (type) {
    case ThriftType::kStop:
      return "stop";
    case ThriftType::kBool:
      return "bool";
    case ThriftType::kI8:
      return "i8";
    case ThriftType::kI16:
      return "i16";
    case ThriftType::kI32:
      return "i32";
    case ThriftType::kI64:
      return "i64";
    case ThriftType::kDouble:
      return "double";
    case ThriftType::kBinary:
      return "binary";
    case ThriftType::kList:
      return "list";
    case ThriftType::kSet:
      return "set";
    case ThriftType::kMap:
      return "map";
    case ThriftType::kStruct:
      return "struct";
    case ThriftType::kUuid:
      return "uuid";
  }
  return "invalid";
}

// ---------------------------------------------------------------------------------------
// ThriftCompactReader

Status ThriftCompactReader::CorruptAt(std::string_view what, size_t position) const {
  std::string path;
  const int n = std::min(path_size_, kMaxPath);
  for (int i = 0; i < n; ++i) {
    if (i > 0) path += '.';
    path += path_[i].name;
    if (path_[i].index >= 0) fmt::format_to(std::back_inserter(path), "[{}]", path_[i].index);
  }
  if (path.empty()) {
    return Status::Corrupt("thrift: {} at byte offset {}", what, base_offset_ + position);
  }
  return Status::Corrupt("thrift: {}: {} at byte offset {}", path, what, base_offset_ + position);
}

Result<uint8_t> ThriftCompactReader::ReadByte(const char* what) {
  if (pos_ >= data_.size()) {
    return CorruptAt(fmt::format("input ends while reading {}", what), pos_);
  }
  return data_[pos_++];
}

Result<uint64_t> ThriftCompactReader::ReadVarintSlow() {
  const size_t start = pos_;
  uint64_t value = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= data_.size()) return CorruptAt("input ends inside a varint", start);
    const uint8_t b = data_[pos_++];
    // The tenth byte holds bit 63 only.
    if (i == 9 && b > 1) return CorruptAt("varint overflows 64 bits", start);
    value |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) return value;
  }
  return CorruptAt("varint longer than 10 bytes", start);
}

Result<bool> ThriftCompactReader::ReadBool() {
  if (pending_bool_ >= 0) {
    const bool value = pending_bool_ == 1;
    pending_bool_ = -1;
    return value;
  }
  const size_t start = pos_;
  FLOE_ASSIGN_OR_RAISE(uint8_t b, ReadByte("a bool"));
  if (b == 1) return true;
  if (b == 0 || b == 2) return false;
  return CorruptAt(fmt::format("bool element byte {} is not 0, 1 or 2", b), start);
}

Result<int8_t> ThriftCompactReader::ReadI8() {
  FLOE_ASSIGN_OR_RAISE(uint8_t b, ReadByte("an i8"));
  return static_cast<int8_t>(b);
}

Result<double> ThriftCompactReader::ReadDouble() {
  if (remaining() < 8) return CorruptAt("input ends inside a double", pos_);
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
  pos_ += 8;
  return std::bit_cast<double>(bits);
}

Result<std::span<const uint8_t, 16>> ThriftCompactReader::ReadUuid() {
  if (remaining() < 16) return CorruptAt("input ends inside a uuid", pos_);
  std::span<const uint8_t, 16> value(data_.data() + pos_, 16);
  pos_ += 16;
  return value;
}

Status ThriftCompactReader::TooDeep() const {
  return Corrupt(fmt::format("nesting deeper than {} levels", kThriftMaxDepth));
}

Status ThriftCompactReader::InputEnds(const char* what, size_t position) const {
  return CorruptAt(fmt::format("input ends while reading {}", what), position);
}

Status ThriftCompactReader::BadBinaryLength(uint64_t length, size_t position) const {
  if (length > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return CorruptAt(fmt::format("binary length {} exceeds 2^31 - 1", length), position);
  }
  return CorruptAt(
      fmt::format("binary length {} exceeds the {} bytes remaining", length, remaining()),
      position);
}

Result<ThriftFieldHeader> ThriftCompactReader::ReadFieldHeaderSlow() {
  const size_t start = pos_;
  FLOE_ASSIGN_OR_RAISE(uint8_t b, ReadByte("a field header"));
  if (b == 0) return ThriftFieldHeader{};
  const uint8_t code = b & 0x0f;
  const ThriftType type = FieldTypeOfCode(code);
  if (type == ThriftType::kStop) {
    return CorruptAt(fmt::format("unknown field type code {}", code), start);
  }
  const uint8_t delta = b >> 4;
  int16_t id;
  if (delta != 0) {
    id = static_cast<int16_t>(last_field_id_[depth_] + delta);
  } else {
    FLOE_ASSIGN_OR_RAISE(id, ReadI16());
  }
  last_field_id_[depth_] = id;
  if (type == ThriftType::kBool) pending_bool_ = code == kCodeBoolTrue ? 1 : 0;
  return ThriftFieldHeader{type, id};
}

Result<ThriftType> ThriftCompactReader::ElementType(uint8_t code, size_t code_position) {
  const ThriftType type = FieldTypeOfCode(code);
  if (type == ThriftType::kStop) {
    return CorruptAt(fmt::format("unknown element type code {}", code), code_position);
  }
  return type;
}

Status ThriftCompactReader::CheckCount(uint64_t count, size_t min_bytes_each, const char* what,
                                       size_t at) {
  if (count > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return CorruptAt(fmt::format("{} size {} exceeds 2^31 - 1", what, count), at);
  }
  if (count * min_bytes_each > remaining()) {
    return CorruptAt(fmt::format("{} of {} elements cannot fit in the {} bytes remaining", what,
                                 count, remaining()),
                     at);
  }
  return Status::OK();
}

Result<ThriftListHeader> ThriftCompactReader::ReadListHeader() {
  const size_t start = pos_;
  FLOE_ASSIGN_OR_RAISE(uint8_t b, ReadByte("a list header"));
  FLOE_ASSIGN_OR_RAISE(ThriftType element_type, ElementType(b & 0x0f, start));
  uint64_t size = b >> 4;
  if (size == 15) {
    FLOE_ASSIGN_OR_RAISE(size, ReadVarint());
  }
  FLOE_RETURN_NOT_OK(CheckCount(size, MinEncodedSize(element_type), "list", start));
  return ThriftListHeader{element_type, static_cast<uint32_t>(size)};
}

Result<ThriftMapHeader> ThriftCompactReader::ReadMapHeader() {
  const size_t start = pos_;
  FLOE_ASSIGN_OR_RAISE(uint64_t size, ReadVarint());
  if (size == 0) return ThriftMapHeader{};
  const size_t types_at = pos_;
  FLOE_ASSIGN_OR_RAISE(uint8_t b, ReadByte("a map header"));
  FLOE_ASSIGN_OR_RAISE(ThriftType key_type, ElementType(b >> 4, types_at));
  FLOE_ASSIGN_OR_RAISE(ThriftType value_type, ElementType(b & 0x0f, types_at));
  FLOE_RETURN_NOT_OK(
      CheckCount(size, MinEncodedSize(key_type) + MinEncodedSize(value_type), "map", start));
  return ThriftMapHeader{key_type, value_type, static_cast<uint32_t>(size)};
}

Status ThriftCompactReader::Skip(ThriftType type) { return SkipDepth(type, 0); }

Status ThriftCompactReader::SkipDepth(ThriftType type, int depth) {
  // `depth` counts the containers entered by this skip; structs also count in depth_.
  if (depth_ + depth >= kThriftMaxDepth) {
    return Corrupt(fmt::format("nesting deeper than {} levels", kThriftMaxDepth));
  }
  switch (type) {
    case ThriftType::kBool:
      return ReadBool().status();
    case ThriftType::kI8:
      return ReadI8().status();
    case ThriftType::kI16:
    case ThriftType::kI32:
    case ThriftType::kI64:
      return ReadVarint().status();
    case ThriftType::kDouble:
      return ReadDouble().status();
    case ThriftType::kBinary:
      return ReadBinary().status();
    case ThriftType::kUuid:
      return ReadUuid().status();
    case ThriftType::kStruct: {
      FLOE_RETURN_NOT_OK(BeginStruct());
      while (true) {
        FLOE_ASSIGN_OR_RAISE(ThriftFieldHeader field, ReadFieldHeader());
        if (field.type == ThriftType::kStop) break;
        FLOE_RETURN_NOT_OK(SkipDepth(field.type, depth));
      }
      EndStruct();
      return Status::OK();
    }
    case ThriftType::kList:
    case ThriftType::kSet: {
      FLOE_ASSIGN_OR_RAISE(ThriftListHeader header, ReadListHeader());
      for (uint32_t i = 0; i < header.size; ++i) {
        FLOE_RETURN_NOT_OK(SkipDepth(header.element_type, depth + 1));
      }
      return Status::OK();
    }
    case ThriftType::kMap: {
      FLOE_ASSIGN_OR_RAISE(ThriftMapHeader header, ReadMapHeader());
      for (uint32_t i = 0; i < header.size; ++i) {
        FLOE_RETURN_NOT_OK(SkipDepth(header.key_type, depth + 1));
        FLOE_RETURN_NOT_OK(SkipDepth(header.value_type, depth + 1));
      }
      return Status::OK();
    }
    case ThriftType::kStop:
      break;
  }
  return Corrupt("cannot skip a value of type stop");
}

// ---------------------------------------------------------------------------------------
// ThriftCompactWriter

void ThriftCompactWriter::Fail(std::string message) {
  if (status_.ok()) status_ = Status::Invalid("thrift writer: {}", message);
}

void ThriftCompactWriter::BeginStruct() {
  if (depth_ >= kThriftMaxDepth) {
    Fail(fmt::format("nesting deeper than {} levels", kThriftMaxDepth));
    ++depth_;
    return;
  }
  ++depth_;
  last_field_id_[depth_] = 0;
}

void ThriftCompactWriter::EndStruct() {
  Byte(0);
  FLOE_DCHECK(depth_ > 0, "EndStruct without BeginStruct");
  --depth_;
}

void ThriftCompactWriter::WriteFieldHeader(ThriftType type, int16_t id) {
  FLOE_DCHECK(type != ThriftType::kBool && type != ThriftType::kStop, "use WriteFieldBool");
  const uint8_t code = type == ThriftType::kBool ? kCodeBoolTrue : WireCode(type);
  if (depth_ > kThriftMaxDepth || depth_ <= 0) {
    Fail("field header outside a struct or too deep");
    return;
  }
  const int delta = static_cast<int>(id) - last_field_id_[depth_];
  if (delta > 0 && delta <= 15) {
    Byte(static_cast<uint8_t>(delta << 4) | code);
  } else {
    Byte(code);
    WriteI16(id);
  }
  last_field_id_[depth_] = id;
}

void ThriftCompactWriter::WriteFieldBool(int16_t id, bool value) {
  if (depth_ > kThriftMaxDepth || depth_ <= 0) {
    Fail("field header outside a struct or too deep");
    return;
  }
  const uint8_t code = value ? kCodeBoolTrue : kCodeBoolFalse;
  const int delta = static_cast<int>(id) - last_field_id_[depth_];
  if (delta > 0 && delta <= 15) {
    Byte(static_cast<uint8_t>(delta << 4) | code);
  } else {
    Byte(code);
    WriteI16(id);
  }
  last_field_id_[depth_] = id;
}

void ThriftCompactWriter::WriteVarint(uint64_t value) {
  while (value >= 0x80) {
    Byte(static_cast<uint8_t>(value) | 0x80);
    value >>= 7;
  }
  Byte(static_cast<uint8_t>(value));
}

void ThriftCompactWriter::WriteBool(bool value) { Byte(value ? kCodeBoolTrue : kCodeBoolFalse); }
void ThriftCompactWriter::WriteI8(int8_t value) { Byte(static_cast<uint8_t>(value)); }
void ThriftCompactWriter::WriteI16(int16_t value) { WriteVarint(ZigZag(value) & 0xffff); }
void ThriftCompactWriter::WriteI32(int32_t value) { WriteVarint(ZigZag(value) & 0xffffffff); }
void ThriftCompactWriter::WriteI64(int64_t value) { WriteVarint(ZigZag(value)); }

void ThriftCompactWriter::WriteDouble(double value) {
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) Byte(static_cast<uint8_t>(bits >> (8 * i)));
}

void ThriftCompactWriter::WriteBinary(std::string_view value) {
  if (value.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    Fail(fmt::format("binary of {} bytes exceeds 2^31 - 1", value.size()));
    return;
  }
  WriteVarint(value.size());
  out_->append(value);
}

void ThriftCompactWriter::WriteUuid(std::span<const uint8_t, 16> value) {
  out_->append(reinterpret_cast<const char*>(value.data()), value.size());
}

void ThriftCompactWriter::CollectionHeader(ThriftType element_type, size_t size) {
  if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    Fail(fmt::format("collection of {} elements exceeds 2^31 - 1", size));
    return;
  }
  const uint8_t code = element_type == ThriftType::kBool ? kCodeBoolTrue : WireCode(element_type);
  if (size < 15) {
    Byte(static_cast<uint8_t>(size << 4) | code);
  } else {
    Byte(0xf0 | code);
    WriteVarint(size);
  }
}

void ThriftCompactWriter::WriteListHeader(ThriftType element_type, size_t size) {
  CollectionHeader(element_type, size);
}

void ThriftCompactWriter::WriteSetHeader(ThriftType element_type, size_t size) {
  CollectionHeader(element_type, size);
}

void ThriftCompactWriter::WriteMapHeader(ThriftType key_type, ThriftType value_type, size_t size) {
  if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    Fail(fmt::format("map of {} entries exceeds 2^31 - 1", size));
    return;
  }
  WriteVarint(size);
  if (size == 0) return;
  auto code = [](ThriftType t) { return t == ThriftType::kBool ? kCodeBoolTrue : WireCode(t); };
  Byte(static_cast<uint8_t>(code(key_type) << 4) | code(value_type));
}

}  // namespace floe::parquet
