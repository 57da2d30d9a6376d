#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/buffer.h"
#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe {

class Array;
using ArrayPtr = std::shared_ptr<const Array>;

/// An immutable column of values in the Arrow memory layout (see TypeId for the
/// buffers of each type). Buffer 0 is the validity bitmap, or null when no value is
/// null. `offset` is in values and applies to this array's own buffers; for structs
/// it applies to the children too (child values are at offset + i), exactly as in
/// the Arrow C Data Interface. Slicing shares buffers.
class Array {
 public:
  /// Builds an array after checking that the buffers are large enough for
  /// offset + length values and that the children match the type. `null_count` < 0
  /// means "count it from the validity bitmap".
  static Result<ArrayPtr> Make(TypePtr type, int64_t length, std::vector<BufferPtr> buffers,
                               std::vector<ArrayPtr> children = {}, int64_t null_count = -1,
                               int64_t offset = 0);

  /// An array of `length` nulls of any type.
  static Result<ArrayPtr> MakeNull(TypePtr type, int64_t length,
                                   MemoryPool* pool = DefaultMemoryPool());

  const TypePtr& type() const { return type_; }
  TypeId type_id() const { return type_->id(); }
  int64_t length() const { return length_; }
  int64_t offset() const { return offset_; }
  int64_t null_count() const { return null_count_; }
  const std::vector<BufferPtr>& buffers() const { return buffers_; }
  const BufferPtr& buffer(int i) const { return buffers_[static_cast<size_t>(i)]; }
  const std::vector<ArrayPtr>& children() const { return children_; }
  /// The memory this array and its children hold: a buffer whose values it spans whole
  /// counts its Buffer::memory_size() (once, however many of them share it); a slice
  /// counts the bytes its values span, so that the slices of one array add up to it.
  int64_t memory_size() const;
  const ArrayPtr& child(int i) const { return children_[static_cast<size_t>(i)]; }
  int num_children() const { return static_cast<int>(children_.size()); }

  /// The validity bitmap (index with offset() + i), or nullptr when nothing is null.
  const uint8_t* validity() const { return buffers_[0] ? buffers_[0]->data() : nullptr; }
  bool IsNull(int64_t i) const {
    return null_count_ != 0 &&
           (null_count_ == length_ || !bit_util::GetBit(validity(), offset_ + i));
  }
  bool IsValid(int64_t i) const { return !IsNull(i); }

  /// Fixed-width values starting at this array's offset: values<int64_t>()[i].
  template <typename T>
  const T* values() const {
    return buffers_[1]->data_as<T>() + offset_;
  }
  template <typename T>
  T Value(int64_t i) const {
    return values<T>()[i];
  }
  bool BoolValue(int64_t i) const { return bit_util::GetBit(buffers_[1]->data(), offset_ + i); }
  Int128 DecimalValue(int64_t i) const;
  /// The bytes of value i for string, binary, fixed and uuid arrays.
  std::string_view BytesValue(int64_t i) const;

  /// For string, binary, list and map: the int32 offsets starting at offset().
  const int32_t* value_offsets() const { return buffers_[1]->data_as<int32_t>() + offset_; }
  /// For list and map: the element range [begin, end) of value i in child(0).
  int64_t ListBegin(int64_t i) const { return value_offsets()[i]; }
  int64_t ListEnd(int64_t i) const { return value_offsets()[i + 1]; }

  /// For structs: field i with this array's offset and length applied (a slice of
  /// the child when they differ).
  ArrayPtr field(int i) const;

  /// The values [offset, offset + length) sharing this array's buffers.
  ArrayPtr Slice(int64_t offset, int64_t length) const;

  /// Checks every invariant, including that offsets are monotonic and in range and
  /// that string values are valid UTF-8. Cost is linear in the data.
  Status ValidateFull() const;

  /// Same type, length, nulls and values (buffers need not be identical).
  bool Equals(const Array& other) const;

 private:
  Array() = default;

  TypePtr type_;
  int64_t length_ = 0;
  int64_t offset_ = 0;
  int64_t null_count_ = 0;
  std::vector<BufferPtr> buffers_;
  std::vector<ArrayPtr> children_;
};

/// Number of buffers (validity included) an array of this type has.
int NumBuffers(TypeId id);

/// A set of equal-length columns with a schema.
class RecordBatch {
 public:
  /// Checks that the columns match the schema's types and have num_rows values.
  static Result<std::shared_ptr<const RecordBatch>> Make(SchemaPtr schema, int64_t num_rows,
                                                         std::vector<ArrayPtr> columns);

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const ArrayPtr& column(int i) const { return columns_[static_cast<size_t>(i)]; }
  const std::vector<ArrayPtr>& columns() const { return columns_; }

  std::shared_ptr<const RecordBatch> Slice(int64_t offset, int64_t length) const;
  bool Equals(const RecordBatch& other) const;
  /// The memory its columns hold (Array::memory_size; a buffer shared by columns counted
  /// once): what memory reservations count for a batch.
  int64_t memory_size() const;

 private:
  RecordBatch() = default;

  SchemaPtr schema_;
  int64_t num_rows_ = 0;
  std::vector<ArrayPtr> columns_;
};

using RecordBatchPtr = std::shared_ptr<const RecordBatch>;

/// A pull stream of record batches sharing one schema. Next() returns nullptr at
/// the end of the stream.
class RecordBatchReader {
 public:
  virtual ~RecordBatchReader() = default;
  virtual const SchemaPtr& schema() const = 0;
  virtual Result<RecordBatchPtr> Next() = 0;
};

}  // namespace floe
