#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/buffer.h"
#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe {

/// Builds an Array of one type by appending values. A builder for every type comes
/// from MakeBuilder; the typed subclasses below add non-virtual Append* methods for
/// their values. Finish() hands the result over and leaves the builder empty, ready
/// to build the next array of the same type.
///
/// Validity is tracked lazily: until the first null, no bit is written, and an array
/// without nulls is finished without a validity bitmap.
class ArrayBuilder {
 public:
  ArrayBuilder(TypePtr type, MemoryPool* pool);
  virtual ~ArrayBuilder() = default;
  ArrayBuilder(const ArrayBuilder&) = delete;
  ArrayBuilder& operator=(const ArrayBuilder&) = delete;

  const TypePtr& type() const { return type_; }
  MemoryPool* pool() const { return pool_; }
  /// Values appended since construction or the last Finish().
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }

  /// Ensures room for `additional` more values without reallocation (for
  /// variable-width types, only their offsets; see the typed ReserveData).
  virtual Status Reserve(int64_t additional);
  /// Appends one NULL.
  Status AppendNull() { return AppendNulls(1); }
  /// Appends `n` NULLs. For structs, the children get empty (non-null) values.
  virtual Status AppendNulls(int64_t n) = 0;
  /// Appends `n` non-null default values (0, false, "", empty list, a struct of
  /// empty values).
  virtual Status AppendEmptyValues(int64_t n) = 0;
  /// Appends values [offset, offset + length) of `array`, which must have this
  /// builder's type (kInvalidArgument otherwise), copying values and validity in bulk.
  virtual Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) = 0;
  /// Appends the values of `array` at `indices[0..n)` (each in [0, array.length()), in
  /// any order, repeats allowed): a gather. kInvalidArgument for another type or an index
  /// out of range. Fixed-width, boolean and byte-array builders gather in one pass; the
  /// others append one-value slices.
  virtual Status AppendIndices(const Array& array, const int64_t* indices, int64_t n);
  /// Appends a scalar of this builder's type (NULL scalars append a null).
  /// kNotSupported for nested types, kInvalidArgument for a scalar of another type.
  virtual Status AppendScalar(const Scalar& scalar);
  /// The array built so far; the builder is empty afterwards.
  virtual Result<ArrayPtr> Finish() = 0;

 protected:
  /// Makes room in the validity bitmap for `additional` more values.
  Status ReserveValidity(int64_t additional);
  /// Appends `n` valid slots (the bitmap must have room).
  void UnsafeAppendValid(int64_t n = 1) {
    if (validity_written_) bit_util::SetBitsTo(validity_.mutable_data(), length_, n, true);
    length_ += n;
  }
  void UnsafeAppendValidBit() {
    if (validity_written_) bit_util::SetBit(validity_.mutable_data(), length_);
    ++length_;
  }
  /// Appends `n` null slots (the bitmap must have room).
  void UnsafeAppendNullBits(int64_t n);
  /// Appends the validity of `array`'s values [offset, offset + length).
  void UnsafeAppendValidityOf(const Array& array, int64_t offset, int64_t length);
  /// Appends the validity of `array`'s values at `indices[0..n)`.
  void UnsafeAppendValidityAt(const Array& array, const int64_t* indices, int64_t n);
  /// kInvalidArgument unless `array` has this builder's type and every index is in it.
  Status CheckIndices(const Array& array, const int64_t* indices, int64_t n) const;
  /// Appends validity bits [offset, offset + length) of `bits` (1 = valid).
  void UnsafeAppendBitmap(const uint8_t* bits, int64_t offset, int64_t length);
  /// The validity bitmap for the values so far (null when none is null); resets the
  /// length and null count.
  Result<BufferPtr> FinishValidity();
  /// kInvalidArgument unless `array` has this builder's type and the range is in it.
  Status CheckSlice(const Array& array, int64_t offset, int64_t length) const;

  TypePtr type_;
  MemoryPool* pool_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;

 private:
  // Zero-filled bitmap bytes covering at least every reserved value; bits are
  // written only once validity_written_ (the first null) is set.
  BufferBuilder validity_;
  bool validity_written_ = false;
};

/// Builds fixed-width numeric arrays: T is int8_t, int16_t, int32_t (int32, date),
/// int64_t (int64, time, timestamps) float or double.
template <typename T>
class NumericBuilder final : public ArrayBuilder {
 public:
  NumericBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool())
      : ArrayBuilder(std::move(type), pool), values_(pool) {}

  Status Reserve(int64_t additional) override {
    FLOE_RETURN_NOT_OK(ReserveValidity(additional));
    return values_.Reserve(additional * static_cast<int64_t>(sizeof(T)));
  }
  Status Append(T value) {
    FLOE_RETURN_NOT_OK(NumericBuilder::Reserve(1));
    UnsafeAppend(value);
    return Status::OK();
  }
  /// Appends without checking capacity (after Reserve).
  void UnsafeAppend(T value) {
    values_.UnsafeAppendValue(value);
    UnsafeAppendValidBit();
  }
  /// Appends `n` values; when `validity` is given, value i is null unless bit
  /// validity_offset + i is set.
  Status AppendValues(const T* values, int64_t n, const uint8_t* validity = nullptr,
                      int64_t validity_offset = 0);
  Status AppendNulls(int64_t n) override;
  Status AppendEmptyValues(int64_t n) override;
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  Status AppendIndices(const Array& array, const int64_t* indices, int64_t n) override;
  Status AppendScalar(const Scalar& scalar) override;
  Result<ArrayPtr> Finish() override;

 private:
  BufferBuilder values_;
};

using Int8Builder = NumericBuilder<int8_t>;
using Int16Builder = NumericBuilder<int16_t>;
/// int32 and date.
using Int32Builder = NumericBuilder<int32_t>;
/// int64, time and the timestamp types.
using Int64Builder = NumericBuilder<int64_t>;
using Float32Builder = NumericBuilder<float>;
using Float64Builder = NumericBuilder<double>;

/// Builds boolean arrays (bit-packed values).
class BooleanBuilder final : public ArrayBuilder {
 public:
  explicit BooleanBuilder(MemoryPool* pool = DefaultMemoryPool());

  Status Reserve(int64_t additional) override;
  Status Append(bool value) {
    FLOE_RETURN_NOT_OK(BooleanBuilder::Reserve(1));
    UnsafeAppend(value);
    return Status::OK();
  }
  void UnsafeAppend(bool value) {
    if (value) bit_util::SetBit(values_.mutable_data(), length_);
    UnsafeAppendValidBit();
  }
  Status AppendNulls(int64_t n) override;
  Status AppendEmptyValues(int64_t n) override;
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  Status AppendIndices(const Array& array, const int64_t* indices, int64_t n) override;
  Status AppendScalar(const Scalar& scalar) override;
  Result<ArrayPtr> Finish() override;

 private:
  // Zero-filled like the validity bitmap, so only true bits need writing.
  BufferBuilder values_;
};

/// Builds decimal arrays of 16-byte unscaled values. Values are not checked
/// against the precision.
class DecimalBuilder final : public ArrayBuilder {
 public:
  DecimalBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool())
      : ArrayBuilder(std::move(type), pool), values_(pool) {}

  Status Reserve(int64_t additional) override {
    FLOE_RETURN_NOT_OK(ReserveValidity(additional));
    return values_.Reserve(additional * 16);
  }
  Status Append(Int128 unscaled) {
    FLOE_RETURN_NOT_OK(DecimalBuilder::Reserve(1));
    UnsafeAppend(unscaled);
    return Status::OK();
  }
  void UnsafeAppend(Int128 unscaled) {
    values_.UnsafeAppendValue(unscaled);
    UnsafeAppendValidBit();
  }
  Status AppendNulls(int64_t n) override;
  Status AppendEmptyValues(int64_t n) override;
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  Status AppendIndices(const Array& array, const int64_t* indices, int64_t n) override;
  Status AppendScalar(const Scalar& scalar) override;
  Result<ArrayPtr> Finish() override;

 private:
  BufferBuilder values_;
};

/// Builds string and binary arrays (int32 offsets). Appending past 2^31 - 1 bytes
/// of data fails with kInvalidArgument. String values are not checked for UTF-8
/// (Array::ValidateFull does that).
class BinaryBuilder final : public ArrayBuilder {
 public:
  static constexpr int64_t kMaxDataBytes = INT32_MAX;

  BinaryBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool());

  /// Reserves room for `additional` more values' offsets.
  Status Reserve(int64_t additional) override;
  /// Reserves room for `bytes` more bytes of value data.
  Status ReserveData(int64_t bytes);
  Status Append(std::string_view value) {
    FLOE_RETURN_NOT_OK(BinaryBuilder::Reserve(1));
    FLOE_RETURN_NOT_OK(ReserveData(static_cast<int64_t>(value.size())));
    UnsafeAppend(value);
    return Status::OK();
  }
  /// Appends without checking capacity (after Reserve and ReserveData).
  void UnsafeAppend(std::string_view value) {
    data_.UnsafeAppend(value.data(), static_cast<int64_t>(value.size()));
    offsets_.UnsafeAppendValue(static_cast<int32_t>(data_.size()));
    UnsafeAppendValidBit();
  }
  /// Bytes of value data appended so far.
  int64_t data_length() const { return data_.size(); }

  Status AppendNulls(int64_t n) override;
  Status AppendEmptyValues(int64_t n) override;
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  Status AppendIndices(const Array& array, const int64_t* indices, int64_t n) override;
  Status AppendScalar(const Scalar& scalar) override;
  Result<ArrayPtr> Finish() override;

 private:
  // offsets_ always holds length_ + 1 entries, starting with 0.
  BufferBuilder offsets_;
  BufferBuilder data_;
};

/// Builds fixed[n] and uuid arrays. Appending a value of another width fails with
/// kInvalidArgument.
class FixedSizeBinaryBuilder final : public ArrayBuilder {
 public:
  FixedSizeBinaryBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool())
      : ArrayBuilder(std::move(type), pool), width_(type_->byte_width()), values_(pool) {}

  int byte_width() const { return width_; }
  Status Reserve(int64_t additional) override {
    FLOE_RETURN_NOT_OK(ReserveValidity(additional));
    return values_.Reserve(additional * width_);
  }
  Status Append(std::string_view value);
  /// Appends `byte_width()` bytes without checking capacity (after Reserve).
  void UnsafeAppend(const void* bytes) {
    values_.UnsafeAppend(bytes, width_);
    UnsafeAppendValidBit();
  }
  Status AppendNulls(int64_t n) override;
  Status AppendEmptyValues(int64_t n) override;
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  Status AppendIndices(const Array& array, const int64_t* indices, int64_t n) override;
  Status AppendScalar(const Scalar& scalar) override;
  Result<ArrayPtr> Finish() override;

 private:
  int width_;
  BufferBuilder values_;
};

/// Builds struct arrays. To append a struct value: Append(), then append exactly one
/// value to every field builder. AppendNull appends empty values to the fields.
class StructBuilder final : public ArrayBuilder {
 public:
  StructBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool());

  ArrayBuilder* field_builder(int i) const { return children_[static_cast<size_t>(i)].get(); }
  int num_fields() const { return static_cast<int>(children_.size()); }

  Status Reserve(int64_t additional) override;
  /// Appends one non-null struct slot; the caller appends the field values.
  Status Append() {
    FLOE_RETURN_NOT_OK(ReserveValidity(1));
    UnsafeAppendValidBit();
    return Status::OK();
  }
  Status AppendNulls(int64_t n) override;
  Status AppendEmptyValues(int64_t n) override;
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  /// kInvalidArgument when a field builder's length differs from the struct's.
  Result<ArrayPtr> Finish() override;

 private:
  std::vector<std::unique_ptr<ArrayBuilder>> children_;
};

/// Builds list arrays. To append a list: Append(), then append its elements to
/// value_builder(). Fails with kInvalidArgument past 2^31 - 1 elements.
class ListBuilder final : public ArrayBuilder {
 public:
  ListBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool());

  ArrayBuilder* value_builder() const { return values_.get(); }

  Status Reserve(int64_t additional) override;
  /// Starts a non-null list; elements appended to value_builder() until the next
  /// Append*/Finish belong to it.
  Status Append();
  Status AppendNulls(int64_t n) override;
  Status AppendEmptyValues(int64_t n) override;
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  Result<ArrayPtr> Finish() override;

 private:
  // Start offsets of the values so far; Finish appends the end offset.
  BufferBuilder offsets_;
  std::unique_ptr<ArrayBuilder> values_;
};

/// Builds map arrays. To append a map: Append(), then append its entries' keys to
/// key_builder() and values to item_builder(), as many to each. Keys are never
/// null: Finish (and AppendArraySlice) fail with kInvalidArgument on a null key.
class MapBuilder final : public ArrayBuilder {
 public:
  MapBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool());

  ArrayBuilder* key_builder() const { return keys_.get(); }
  ArrayBuilder* item_builder() const { return items_.get(); }

  Status Reserve(int64_t additional) override;
  /// Starts a non-null map.
  Status Append();
  Status AppendNulls(int64_t n) override;
  Status AppendEmptyValues(int64_t n) override;
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  Result<ArrayPtr> Finish() override;

 private:
  BufferBuilder offsets_;
  std::unique_ptr<ArrayBuilder> keys_;
  std::unique_ptr<ArrayBuilder> items_;
};

/// A builder for any type, nested ones included (their child builders too). Cast
/// to the typed builder for the type's id: NumericBuilder<T> for integers, floats,
/// date, time and timestamps; BooleanBuilder; DecimalBuilder; BinaryBuilder for
/// string and binary; FixedSizeBinaryBuilder for fixed and uuid; StructBuilder,
/// ListBuilder, MapBuilder.
std::unique_ptr<ArrayBuilder> MakeBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool());

/// One array holding the values of `arrays` in order; they must all have the same
/// type. kInvalidArgument for an empty list or differing types.
Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays,
                             MemoryPool* pool = DefaultMemoryPool());

}  // namespace floe
