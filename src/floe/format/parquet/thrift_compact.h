#pragma once

// floe's own codec for the Thrift compact protocol (apache/thrift
// doc/specs/thrift-compact-protocol.md), used for Parquet footers, page headers and
// page indexes. The reader is zero-copy and treats its input as hostile: every length
// and element count is checked against the bytes that remain before anything is
// allocated, nesting is bounded, and every failure is a Status::Corrupt that names the
// field path being read and the byte offset.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "floe/common/logging.h"
#include "floe/common/result.h"

namespace floe::parquet {

/// The value types of the Thrift type system, independent of their wire codes.
enum class ThriftType : uint8_t {
  kStop = 0,
  kBool,
  kI8,
  kI16,
  kI32,
  kI64,
  kDouble,
  kBinary,
  kList,
  kSet,
  kMap,
  kStruct,
  kUuid,
};

/// A lower-case name of `type` ("i32", "binary", ...), for messages.
std::string_view ThriftTypeName(ThriftType type);

/// A struct field header: the field's type and id. `type == kStop` ends the struct.
struct ThriftFieldHeader {
  ThriftType type = ThriftType::kStop;
  int16_t id = 0;
};

/// The header of a list or set: element type and element count.
struct ThriftListHeader {
  ThriftType element_type = ThriftType::kStop;
  uint32_t size = 0;
};

/// The header of a map: key and value types and entry count (types are kStop when
/// the map is empty).
struct ThriftMapHeader {
  ThriftType key_type = ThriftType::kStop;
  ThriftType value_type = ThriftType::kStop;
  uint32_t size = 0;
};

/// The deepest nesting of structs and containers that the reader and writer accept.
inline constexpr int kThriftMaxDepth = 64;

/// Reads compact-protocol values from a byte span it does not own. Binary values are
/// returned as views into that span, so the span must outlive them.
///
/// Struct reading: BeginStruct(), then ReadFieldHeader() until it returns kStop, reading
/// or Skip()ping each field's value, then EndStruct(). A bool field's value travels in
/// its header; the following ReadBool() returns it without reading a byte.
///
/// Errors are Status::Corrupt with the field path (see PushField) and the byte offset,
/// counted from `base_offset` (e.g. the file offset of the span's first byte).
class ThriftCompactReader {
 public:
  explicit ThriftCompactReader(std::span<const uint8_t> data, uint64_t base_offset = 0)
      : data_(data), base_offset_(base_offset) {}

  /// Bytes consumed so far.
  size_t position() const { return pos_; }
  /// Bytes not yet consumed.
  size_t remaining() const { return data_.size() - pos_; }
  /// The input span.
  std::span<const uint8_t> data() const { return data_; }

  /// Enters a struct: starts a new field-id context. Fails past kThriftMaxDepth.
  Status BeginStruct() {
    if (depth_ >= kThriftMaxDepth) [[unlikely]]
      return TooDeep();
    ++depth_;
    last_field_id_[depth_] = 0;
    return Status::OK();
  }
  /// Leaves the struct entered by the matching BeginStruct().
  void EndStruct() {
    FLOE_DCHECK(depth_ > 0, "EndStruct without BeginStruct");
    pending_bool_ = -1;
    --depth_;
  }
  /// Reads the next field header of the current struct (type kStop at its end).
  /// Fails on an unknown type code or a truncated header.
  Result<ThriftFieldHeader> ReadFieldHeader() {
    FLOE_DCHECK(depth_ > 0, "ReadFieldHeader outside a struct");
    pending_bool_ = -1;
    if (pos_ >= data_.size()) [[unlikely]]
      return InputEnds("a field header", pos_);
    const uint8_t b = data_[pos_];
    if (b == 0) {
      ++pos_;
      return ThriftFieldHeader{};
    }
    const uint8_t code = b & 0x0f;
    const uint8_t delta = b >> 4;
    // Short form with a known type code: the common case, no varint.
    if (delta != 0 && code != 0 && code <= 13) [[likely]] {
      ++pos_;
      const ThriftType type = code <= 2 ? ThriftType::kBool : static_cast<ThriftType>(code - 1);
      const auto id = static_cast<int16_t>(last_field_id_[depth_] + delta);
      last_field_id_[depth_] = id;
      if (code <= 2) pending_bool_ = code == 1 ? 1 : 0;
      return ThriftFieldHeader{type, id};
    }
    return ReadFieldHeaderSlow();
  }

  /// Reads a bool: the value carried by the preceding bool field header, or else one
  /// element byte (1 is true; 0 and 2 are false, as written by the Java and C++ libraries).
  Result<bool> ReadBool();
  Result<int8_t> ReadI8();
  /// Zigzag varints; fail when the value does not fit the type.
  Result<int16_t> ReadI16() {
    const size_t start = pos_;
    FLOE_ASSIGN_OR_RAISE(uint64_t raw, ReadVarint());
    if (raw > 0xffff) [[unlikely]]
      return CorruptAt("i16 out of range", start);
    return static_cast<int16_t>(UnZigZag(raw));
  }
  Result<int32_t> ReadI32() {
    const size_t start = pos_;
    FLOE_ASSIGN_OR_RAISE(uint64_t raw, ReadVarint());
    if (raw > 0xffffffffu) [[unlikely]]
      return CorruptAt("i32 out of range", start);
    return static_cast<int32_t>(UnZigZag(raw));
  }
  Result<int64_t> ReadI64() {
    FLOE_ASSIGN_OR_RAISE(uint64_t raw, ReadVarint());
    return UnZigZag(raw);
  }
  /// Eight little-endian bytes.
  Result<double> ReadDouble();
  /// A length-prefixed byte string, as a view into the input.
  Result<std::string_view> ReadBinary() {
    const size_t start = pos_;
    FLOE_ASSIGN_OR_RAISE(uint64_t length, ReadVarint());
    if (length > remaining()) [[unlikely]]
      return BadBinaryLength(length, start);
    std::string_view value(reinterpret_cast<const char*>(data_.data() + pos_), length);
    pos_ += length;
    return value;
  }
  /// Sixteen raw bytes.
  Result<std::span<const uint8_t, 16>> ReadUuid();
  /// An unsigned LEB128 varint of at most 10 bytes.
  Result<uint64_t> ReadVarint() {
    // With ten bytes left no byte needs a bounds check; the slow path handles the end
    // of the input and the errors.
    if (data_.size() - pos_ >= 10) [[likely]] {
      const uint8_t* p = data_.data() + pos_;
      uint64_t value = 0;
      for (int i = 0; i < 9; ++i) {
        value |= static_cast<uint64_t>(p[i] & 0x7f) << (7 * i);
        if (p[i] < 0x80) {
          pos_ += static_cast<size_t>(i) + 1;
          return value;
        }
      }
    }
    return ReadVarintSlow();
  }

  /// Reads a list or set header. Fails when the count could not fit in the remaining
  /// bytes (each element takes at least one byte), before the caller allocates.
  Result<ThriftListHeader> ReadListHeader();
  /// Reads a map header, with the same bound on the entry count.
  Result<ThriftMapHeader> ReadMapHeader();

  /// Skips one value of `type`, recursively (unknown fields from newer writers).
  Status Skip(ThriftType type);

  /// Names the field being read, for error messages ("row_groups", "num_rows"). The
  /// name must be a string literal or otherwise outlive the reader. Fields nest; a
  /// PopField() must follow each PushField(). Costs no allocation.
  void PushField(const char* name) {
    if (path_size_ < kMaxPath) path_[path_size_] = PathEntry{name, -1};
    ++path_size_;
  }
  /// Sets the list index of the innermost named field ("row_groups[3]").
  void SetFieldIndex(int64_t index) {
    if (path_size_ > 0 && path_size_ <= kMaxPath) path_[path_size_ - 1].index = index;
  }
  void PopField() { --path_size_; }

  /// A Corrupt status "<path>: <what> at byte offset <n>" for the current position.
  Status Corrupt(std::string_view what) const { return CorruptAt(what, pos_); }
  /// The same for byte `position` of the input.
  Status CorruptAt(std::string_view what, size_t position) const;

 private:
  struct PathEntry {
    const char* name;
    int64_t index;
  };
  static constexpr int kMaxPath = 2 * kThriftMaxDepth + 8;

  static int64_t UnZigZag(uint64_t v) {
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  // Out-of-line parts of the inline readers: multi-byte varints, long-form field
  // headers and the errors.
  Result<uint64_t> ReadVarintSlow();
  Result<ThriftFieldHeader> ReadFieldHeaderSlow();
  Status TooDeep() const;
  Status InputEnds(const char* what, size_t position) const;
  Status BadBinaryLength(uint64_t length, size_t position) const;
  Result<uint8_t> ReadByte(const char* what);
  Result<ThriftType> ElementType(uint8_t code, size_t code_position);
  Result<uint32_t> ReadSize(const char* what);
  Status CheckCount(uint64_t count, size_t min_bytes_each, const char* what, size_t at);
  Status SkipDepth(ThriftType type, int depth);

  std::span<const uint8_t> data_;
  uint64_t base_offset_;
  size_t pos_ = 0;
  int depth_ = 0;
  // 1 or 0 while a bool field's value is pending, -1 otherwise.
  int8_t pending_bool_ = -1;
  std::array<int16_t, kThriftMaxDepth + 1> last_field_id_{};
  std::array<PathEntry, kMaxPath> path_{};
  int path_size_ = 0;
};

/// Appends compact-protocol values to a std::string. Writing cannot fail except for
/// values the protocol cannot represent (a binary or list longer than 2^31 - 1, nesting
/// past kThriftMaxDepth); such an error is kept and reported by status().
class ThriftCompactWriter {
 public:
  /// Appends to `*out`, which must outlive the writer.
  explicit ThriftCompactWriter(std::string* out) : out_(out) {}

  /// OK, or the first error met while writing.
  const Status& status() const { return status_; }
  /// Bytes in the output string.
  size_t size() const { return out_->size(); }

  /// Starts a struct: a new field-id context.
  void BeginStruct();
  /// Writes the stop field and leaves the struct.
  void EndStruct();
  /// Writes a field header in short form when the id delta is 1..15, else long form.
  /// For bool fields use WriteFieldBool, which carries the value in the header.
  void WriteFieldHeader(ThriftType type, int16_t id);
  /// Writes a complete bool field (header only).
  void WriteFieldBool(int16_t id, bool value);

  /// A bool list/set/map element: one byte, 1 for true and 2 for false (what the Java
  /// and C++ Thrift libraries write, and what every reader of their files accepts).
  void WriteBool(bool value);
  void WriteI8(int8_t value);
  void WriteI16(int16_t value);
  void WriteI32(int32_t value);
  void WriteI64(int64_t value);
  void WriteDouble(double value);
  void WriteBinary(std::string_view value);
  void WriteUuid(std::span<const uint8_t, 16> value);
  void WriteVarint(uint64_t value);
  /// Appends bytes already in compact encoding (a value captured by a reader).
  void WriteRaw(std::string_view bytes) { out_->append(bytes); }

  /// A list or set header; the short form for sizes 0..14. A bool element type is
  /// written as code 1, as the Java and C++ libraries do.
  void WriteListHeader(ThriftType element_type, size_t size);
  void WriteSetHeader(ThriftType element_type, size_t size);
  void WriteMapHeader(ThriftType key_type, ThriftType value_type, size_t size);

 private:
  void Fail(std::string message);
  void Byte(uint8_t b) { out_->push_back(static_cast<char>(b)); }
  void CollectionHeader(ThriftType element_type, size_t size);

  std::string* out_;
  Status status_;
  int depth_ = 0;
  std::array<int16_t, kThriftMaxDepth + 1> last_field_id_{};
};

}  // namespace floe::parquet
