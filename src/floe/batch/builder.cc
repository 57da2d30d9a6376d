#include "floe/batch/builder.h"

#include <algorithm>
#include <cstring>

#include "floe/batch/gather_internal.h"
#include "floe/type/type_visit.h"

namespace floe {

namespace {

constexpr int64_t kMaxOffset = INT32_MAX;

Status CheckScalarType(const DataType& type, const Scalar& scalar) {
  if (!scalar.type() || scalar.type()->id() != type.id()) {
    return Status::Invalid("cannot append a {} scalar to a {} builder",
                           scalar.type() ? scalar.type()->ToString() : "untyped", type.ToString());
  }
  return Status::OK();
}

// The element count an offsets-based builder may not exceed.
Status CheckOffsetLimit(const DataType& type, int64_t end, const char* what) {
  if (end > kMaxOffset) {
    return Status::Invalid("{} builder: {} {} exceed the int32 offset limit of {}", type.ToString(),
                           end, what, kMaxOffset);
  }
  return Status::OK();
}

// Appends offsets[1..n] of a slice, rebased so that the slice's first offset maps to
// `base`.
void AppendRebasedOffsets(BufferBuilder* out, const int32_t* offsets, int64_t n, int64_t base) {
  int32_t* dst = reinterpret_cast<int32_t*>(out->mutable_data() + out->size());
  const int64_t delta = base - offsets[0];
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<int32_t>(offsets[i + 1] + delta);
  out->UnsafeAdvance(n * 4);
}

}  // namespace

// ArrayBuilder -----------------------------------------------------------------------

ArrayBuilder::ArrayBuilder(TypePtr type, MemoryPool* pool)
    : type_(std::move(type)), pool_(pool), validity_(pool) {}

Status ArrayBuilder::Reserve(int64_t additional) { return ReserveValidity(additional); }

Status ArrayBuilder::ReserveValidity(int64_t additional) {
  const int64_t needed = bit_util::BytesForBits(length_ + additional);
  if (needed <= validity_.size()) return Status::OK();
  return validity_.Resize(std::max(needed, validity_.size() * 2));
}

void ArrayBuilder::UnsafeAppendNullBits(int64_t n) {
  if (!validity_written_) {
    bit_util::SetBitsTo(validity_.mutable_data(), 0, length_, true);
    validity_written_ = true;
  }
  // Bits past length_ are zero already.
  length_ += n;
  null_count_ += n;
}

void ArrayBuilder::UnsafeAppendValidityOf(const Array& array, int64_t offset, int64_t length) {
  if (array.null_count() == 0) {
    UnsafeAppendValid(length);
  } else if (array.null_count() == array.length()) {
    // All-null arrays need no meaningful bits; zeros are right.
    UnsafeAppendNullBits(length);
  } else {
    UnsafeAppendBitmap(array.validity(), array.offset() + offset, length);
  }
}

void ArrayBuilder::UnsafeAppendValidityAt(const Array& array, const int64_t* indices, int64_t n) {
  if (array.null_count() == 0) {
    UnsafeAppendValid(n);
    return;
  }
  if (!validity_written_) {
    bit_util::SetBitsTo(validity_.mutable_data(), 0, length_, true);
    validity_written_ = true;
  }
  // Bits past length_ are zero, so the gather may write whole bytes from there on.
  const int64_t valid =
      internal::GatherValidity<false>(array, indices, n, validity_.mutable_data(), length_);
  length_ += n;
  null_count_ += n - valid;
}

Status ArrayBuilder::CheckIndices(const Array& array, const int64_t* indices, int64_t n) const {
  FLOE_RETURN_NOT_OK(CheckSlice(array, 0, array.length()));
  // One branch-free pass (min and max), then the error path finds the culprit.
  int64_t lo = 0;
  int64_t hi = -1;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, indices[i]);
    hi = std::max(hi, indices[i]);
  }
  if (lo < 0 || hi >= array.length()) {
    return Status::Invalid("index {} is outside an array of {} values", lo < 0 ? lo : hi,
                           array.length());
  }
  return Status::OK();
}

Status ArrayBuilder::AppendIndices(const Array& array, const int64_t* indices, int64_t n) {
  FLOE_RETURN_NOT_OK(CheckIndices(array, indices, n));
  for (int64_t i = 0; i < n; ++i) FLOE_RETURN_NOT_OK(AppendArraySlice(array, indices[i], 1));
  return Status::OK();
}

void ArrayBuilder::UnsafeAppendBitmap(const uint8_t* bits, int64_t offset, int64_t length) {
  const int64_t nulls = length - bit_util::CountSetBits(bits, offset, length);
  if (nulls == 0) {
    UnsafeAppendValid(length);
    return;
  }
  if (!validity_written_) {
    bit_util::SetBitsTo(validity_.mutable_data(), 0, length_, true);
    validity_written_ = true;
  }
  bit_util::CopyBitmap(bits, offset, length, validity_.mutable_data(), length_);
  length_ += length;
  null_count_ += nulls;
}

Result<BufferPtr> ArrayBuilder::FinishValidity() {
  BufferPtr out;
  if (null_count_ > 0) {
    FLOE_RETURN_NOT_OK(validity_.Resize(bit_util::BytesForBits(length_)));
    FLOE_ASSIGN_OR_RAISE(out, validity_.Finish());
  } else {
    // Keep the allocation; Resize zero-fills it again as it grows.
    validity_.Reset();
  }
  length_ = 0;
  null_count_ = 0;
  validity_written_ = false;
  return out;
}

Status ArrayBuilder::CheckSlice(const Array& array, int64_t offset, int64_t length) const {
  if (!array.type()->Equals(*type_)) {
    return Status::Invalid("cannot append a {} array to a {} builder", array.type()->ToString(),
                           type_->ToString());
  }
  if (offset < 0 || length < 0 || offset + length > array.length()) {
    return Status::Invalid("slice [{}, +{}) is outside an array of length {}", offset, length,
                           array.length());
  }
  return Status::OK();
}

Status ArrayBuilder::AppendScalar(const Scalar& scalar) {
  return Status::NotSupported("{} builder: appending scalars is not supported", type_->ToString());
}

// NumericBuilder ---------------------------------------------------------------------

template <typename T>
Status NumericBuilder<T>::AppendValues(const T* values, int64_t n, const uint8_t* validity,
                                       int64_t validity_offset) {
  FLOE_RETURN_NOT_OK(NumericBuilder::Reserve(n));
  values_.UnsafeAppend(values, n * static_cast<int64_t>(sizeof(T)));
  if (validity == nullptr) {
    UnsafeAppendValid(n);
    return Status::OK();
  }
  UnsafeAppendBitmap(validity, validity_offset, n);
  return Status::OK();
}

template <typename T>
Status NumericBuilder<T>::AppendNulls(int64_t n) {
  FLOE_RETURN_NOT_OK(NumericBuilder::Reserve(n));
  std::memset(values_.mutable_data() + values_.size(), 0, static_cast<size_t>(n) * sizeof(T));
  values_.UnsafeAdvance(n * static_cast<int64_t>(sizeof(T)));
  UnsafeAppendNullBits(n);
  return Status::OK();
}

template <typename T>
Status NumericBuilder<T>::AppendEmptyValues(int64_t n) {
  FLOE_RETURN_NOT_OK(NumericBuilder::Reserve(n));
  std::memset(values_.mutable_data() + values_.size(), 0, static_cast<size_t>(n) * sizeof(T));
  values_.UnsafeAdvance(n * static_cast<int64_t>(sizeof(T)));
  UnsafeAppendValid(n);
  return Status::OK();
}

template <typename T>
Status NumericBuilder<T>::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  FLOE_RETURN_NOT_OK(CheckSlice(array, offset, length));
  FLOE_RETURN_NOT_OK(NumericBuilder::Reserve(length));
  values_.UnsafeAppend(array.values<T>() + offset, length * static_cast<int64_t>(sizeof(T)));
  UnsafeAppendValidityOf(array, offset, length);
  return Status::OK();
}

template <typename T>
Status NumericBuilder<T>::AppendIndices(const Array& array, const int64_t* indices, int64_t n) {
  FLOE_RETURN_NOT_OK(CheckIndices(array, indices, n));
  FLOE_RETURN_NOT_OK(NumericBuilder::Reserve(n));
  internal::GatherFixed<sizeof(T), false>(reinterpret_cast<const uint8_t*>(array.values<T>()),
                                          indices, n, values_.mutable_data() + values_.size());
  values_.UnsafeAdvance(n * static_cast<int64_t>(sizeof(T)));
  UnsafeAppendValidityAt(array, indices, n);
  return Status::OK();
}

template <typename T>
Status NumericBuilder<T>::AppendScalar(const Scalar& scalar) {
  FLOE_RETURN_NOT_OK(CheckScalarType(*type_, scalar));
  if (scalar.is_null()) return AppendNull();
  if constexpr (std::is_integral_v<T>) {
    if constexpr (sizeof(T) <= 4) {
      if (const auto* v = std::get_if<int32_t>(&scalar.value())) return Append(static_cast<T>(*v));
    } else {
      if (const auto* v = std::get_if<int64_t>(&scalar.value())) return Append(*v);
    }
  } else {
    if (const auto* v = std::get_if<T>(&scalar.value())) return Append(*v);
  }
  return Status::Invalid("{} scalar holds the wrong representation", type_->ToString());
}

template <typename T>
Result<ArrayPtr> NumericBuilder<T>::Finish() {
  const int64_t length = length_;
  FLOE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  FLOE_ASSIGN_OR_RAISE(BufferPtr values, values_.Finish());
  return Array::Make(type_, length, {std::move(validity), std::move(values)});
}

template class NumericBuilder<int8_t>;
template class NumericBuilder<int16_t>;
template class NumericBuilder<int32_t>;
template class NumericBuilder<int64_t>;
template class NumericBuilder<float>;
template class NumericBuilder<double>;

// BooleanBuilder ---------------------------------------------------------------------

BooleanBuilder::BooleanBuilder(MemoryPool* pool) : ArrayBuilder(Boolean(), pool), values_(pool) {}

Status BooleanBuilder::Reserve(int64_t additional) {
  FLOE_RETURN_NOT_OK(ReserveValidity(additional));
  const int64_t needed = bit_util::BytesForBits(length_ + additional);
  if (needed <= values_.size()) return Status::OK();
  return values_.Resize(std::max(needed, values_.size() * 2));
}

Status BooleanBuilder::AppendNulls(int64_t n) {
  FLOE_RETURN_NOT_OK(BooleanBuilder::Reserve(n));
  UnsafeAppendNullBits(n);
  return Status::OK();
}

Status BooleanBuilder::AppendEmptyValues(int64_t n) {
  FLOE_RETURN_NOT_OK(BooleanBuilder::Reserve(n));
  UnsafeAppendValid(n);
  return Status::OK();
}

Status BooleanBuilder::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  FLOE_RETURN_NOT_OK(CheckSlice(array, offset, length));
  FLOE_RETURN_NOT_OK(BooleanBuilder::Reserve(length));
  bit_util::CopyBitmap(array.buffer(1)->data(), array.offset() + offset, length,
                       values_.mutable_data(), length_);
  UnsafeAppendValidityOf(array, offset, length);
  return Status::OK();
}

Status BooleanBuilder::AppendIndices(const Array& array, const int64_t* indices, int64_t n) {
  FLOE_RETURN_NOT_OK(CheckIndices(array, indices, n));
  FLOE_RETURN_NOT_OK(BooleanBuilder::Reserve(n));
  const uint8_t* src = array.buffer(1)->data();
  const int64_t off = array.offset();
  // Value bits past length_ are zero, like the validity bits.
  internal::WriteBits(n, values_.mutable_data(), length_, [&](int64_t i) -> uint64_t {
    return internal::BitAt(src, off + indices[i]);
  });
  UnsafeAppendValidityAt(array, indices, n);
  return Status::OK();
}

Status BooleanBuilder::AppendScalar(const Scalar& scalar) {
  FLOE_RETURN_NOT_OK(CheckScalarType(*type_, scalar));
  if (scalar.is_null()) return AppendNull();
  if (const auto* v = std::get_if<bool>(&scalar.value())) return Append(*v);
  return Status::Invalid("boolean scalar holds the wrong representation");
}

Result<ArrayPtr> BooleanBuilder::Finish() {
  const int64_t length = length_;
  FLOE_RETURN_NOT_OK(values_.Resize(bit_util::BytesForBits(length)));
  FLOE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  FLOE_ASSIGN_OR_RAISE(BufferPtr values, values_.Finish());
  return Array::Make(type_, length, {std::move(validity), std::move(values)});
}

// DecimalBuilder ---------------------------------------------------------------------

Status DecimalBuilder::AppendNulls(int64_t n) {
  FLOE_RETURN_NOT_OK(DecimalBuilder::Reserve(n));
  std::memset(values_.mutable_data() + values_.size(), 0, static_cast<size_t>(n) * 16);
  values_.UnsafeAdvance(n * 16);
  UnsafeAppendNullBits(n);
  return Status::OK();
}

Status DecimalBuilder::AppendEmptyValues(int64_t n) {
  FLOE_RETURN_NOT_OK(DecimalBuilder::Reserve(n));
  std::memset(values_.mutable_data() + values_.size(), 0, static_cast<size_t>(n) * 16);
  values_.UnsafeAdvance(n * 16);
  UnsafeAppendValid(n);
  return Status::OK();
}

Status DecimalBuilder::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  FLOE_RETURN_NOT_OK(CheckSlice(array, offset, length));
  FLOE_RETURN_NOT_OK(DecimalBuilder::Reserve(length));
  values_.UnsafeAppend(array.buffer(1)->data() + (array.offset() + offset) * 16, length * 16);
  UnsafeAppendValidityOf(array, offset, length);
  return Status::OK();
}

Status DecimalBuilder::AppendIndices(const Array& array, const int64_t* indices, int64_t n) {
  FLOE_RETURN_NOT_OK(CheckIndices(array, indices, n));
  FLOE_RETURN_NOT_OK(DecimalBuilder::Reserve(n));
  internal::GatherFixed<16, false>(array.buffer(1)->data() + array.offset() * 16, indices, n,
                                   values_.mutable_data() + values_.size());
  values_.UnsafeAdvance(n * 16);
  UnsafeAppendValidityAt(array, indices, n);
  return Status::OK();
}

Status DecimalBuilder::AppendScalar(const Scalar& scalar) {
  FLOE_RETURN_NOT_OK(CheckScalarType(*type_, scalar));
  if (scalar.is_null()) return AppendNull();
  if (const auto* v = std::get_if<Int128>(&scalar.value())) return Append(*v);
  return Status::Invalid("decimal scalar holds the wrong representation");
}

Result<ArrayPtr> DecimalBuilder::Finish() {
  const int64_t length = length_;
  FLOE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  FLOE_ASSIGN_OR_RAISE(BufferPtr values, values_.Finish());
  return Array::Make(type_, length, {std::move(validity), std::move(values)});
}

// BinaryBuilder ----------------------------------------------------------------------

BinaryBuilder::BinaryBuilder(TypePtr type, MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool), offsets_(pool), data_(pool) {}

Status BinaryBuilder::Reserve(int64_t additional) {
  FLOE_RETURN_NOT_OK(ReserveValidity(additional));
  // The leading 0 is written lazily, so reserve room for it too until it is.
  return offsets_.Reserve((additional + (offsets_.size() == 0 ? 1 : 0)) * 4);
}

Status BinaryBuilder::ReserveData(int64_t bytes) {
  if (data_.size() + bytes > kMaxDataBytes) {
    return Status::Invalid("{} builder: {} bytes of data exceed the limit of {} bytes",
                           type_->ToString(), data_.size() + bytes, kMaxDataBytes);
  }
  if (offsets_.size() == 0) {
    FLOE_RETURN_NOT_OK(offsets_.Reserve(4));
    offsets_.UnsafeAppendValue<int32_t>(0);
  }
  return data_.Reserve(bytes);
}

Status BinaryBuilder::AppendNulls(int64_t n) {
  FLOE_RETURN_NOT_OK(BinaryBuilder::Reserve(n));
  FLOE_RETURN_NOT_OK(ReserveData(0));
  const auto end = static_cast<int32_t>(data_.size());
  for (int64_t i = 0; i < n; ++i) offsets_.UnsafeAppendValue(end);
  UnsafeAppendNullBits(n);
  return Status::OK();
}

Status BinaryBuilder::AppendEmptyValues(int64_t n) {
  FLOE_RETURN_NOT_OK(BinaryBuilder::Reserve(n));
  FLOE_RETURN_NOT_OK(ReserveData(0));
  const auto end = static_cast<int32_t>(data_.size());
  for (int64_t i = 0; i < n; ++i) offsets_.UnsafeAppendValue(end);
  UnsafeAppendValid(n);
  return Status::OK();
}

Status BinaryBuilder::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  FLOE_RETURN_NOT_OK(CheckSlice(array, offset, length));
  const int32_t* offs = array.value_offsets() + offset;
  const int64_t bytes = offs[length] - offs[0];
  FLOE_RETURN_NOT_OK(BinaryBuilder::Reserve(length));
  FLOE_RETURN_NOT_OK(ReserveData(bytes));
  const int64_t base = data_.size();
  data_.UnsafeAppend(array.buffer(2)->data() + offs[0], bytes);
  AppendRebasedOffsets(&offsets_, offs, length, base);
  UnsafeAppendValidityOf(array, offset, length);
  return Status::OK();
}

Status BinaryBuilder::AppendIndices(const Array& array, const int64_t* indices, int64_t n) {
  FLOE_RETURN_NOT_OK(CheckIndices(array, indices, n));
  const int32_t* offs = array.value_offsets();
  const uint8_t* data = array.buffer(2)->data();
  const int64_t bytes = internal::GatherBinaryBytes<false>(offs, indices, n);
  FLOE_RETURN_NOT_OK(BinaryBuilder::Reserve(n));
  FLOE_RETURN_NOT_OK(ReserveData(bytes));
  internal::GatherBinary<false>(
      offs, data, indices, n, reinterpret_cast<int32_t*>(offsets_.mutable_data() + offsets_.size()),
      data_.mutable_data(), data_.size());
  offsets_.UnsafeAdvance(n * 4);
  data_.UnsafeAdvance(bytes);
  UnsafeAppendValidityAt(array, indices, n);
  return Status::OK();
}

Status BinaryBuilder::AppendScalar(const Scalar& scalar) {
  FLOE_RETURN_NOT_OK(CheckScalarType(*type_, scalar));
  if (scalar.is_null()) return AppendNull();
  if (const auto* v = std::get_if<std::string>(&scalar.value())) return Append(*v);
  return Status::Invalid("{} scalar holds the wrong representation", type_->ToString());
}

Result<ArrayPtr> BinaryBuilder::Finish() {
  const int64_t length = length_;
  FLOE_RETURN_NOT_OK(ReserveData(0));  // writes the leading 0 of an empty array
  FLOE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  FLOE_ASSIGN_OR_RAISE(BufferPtr offsets, offsets_.Finish());
  FLOE_ASSIGN_OR_RAISE(BufferPtr data, data_.Finish());
  return Array::Make(type_, length, {std::move(validity), std::move(offsets), std::move(data)});
}

// FixedSizeBinaryBuilder -------------------------------------------------------------

Status FixedSizeBinaryBuilder::Append(std::string_view value) {
  if (static_cast<int64_t>(value.size()) != width_) {
    return Status::Invalid("{} builder: a value of {} bytes, expected {}", type_->ToString(),
                           value.size(), width_);
  }
  FLOE_RETURN_NOT_OK(FixedSizeBinaryBuilder::Reserve(1));
  UnsafeAppend(value.data());
  return Status::OK();
}

Status FixedSizeBinaryBuilder::AppendNulls(int64_t n) {
  FLOE_RETURN_NOT_OK(FixedSizeBinaryBuilder::Reserve(n));
  std::memset(values_.mutable_data() + values_.size(), 0, static_cast<size_t>(n * width_));
  values_.UnsafeAdvance(n * width_);
  UnsafeAppendNullBits(n);
  return Status::OK();
}

Status FixedSizeBinaryBuilder::AppendEmptyValues(int64_t n) {
  FLOE_RETURN_NOT_OK(FixedSizeBinaryBuilder::Reserve(n));
  std::memset(values_.mutable_data() + values_.size(), 0, static_cast<size_t>(n * width_));
  values_.UnsafeAdvance(n * width_);
  UnsafeAppendValid(n);
  return Status::OK();
}

Status FixedSizeBinaryBuilder::AppendArraySlice(const Array& array, int64_t offset,
                                                int64_t length) {
  FLOE_RETURN_NOT_OK(CheckSlice(array, offset, length));
  FLOE_RETURN_NOT_OK(FixedSizeBinaryBuilder::Reserve(length));
  values_.UnsafeAppend(array.buffer(1)->data() + (array.offset() + offset) * width_,
                       length * width_);
  UnsafeAppendValidityOf(array, offset, length);
  return Status::OK();
}

Status FixedSizeBinaryBuilder::AppendIndices(const Array& array, const int64_t* indices,
                                             int64_t n) {
  FLOE_RETURN_NOT_OK(CheckIndices(array, indices, n));
  FLOE_RETURN_NOT_OK(FixedSizeBinaryBuilder::Reserve(n));
  internal::GatherFixedWidth<false>(array.buffer(1)->data() + array.offset() * width_, width_,
                                    indices, n, values_.mutable_data() + values_.size());
  values_.UnsafeAdvance(n * width_);
  UnsafeAppendValidityAt(array, indices, n);
  return Status::OK();
}

Status FixedSizeBinaryBuilder::AppendScalar(const Scalar& scalar) {
  FLOE_RETURN_NOT_OK(CheckScalarType(*type_, scalar));
  if (scalar.is_null()) return AppendNull();
  if (const auto* v = std::get_if<std::string>(&scalar.value())) return Append(*v);
  return Status::Invalid("{} scalar holds the wrong representation", type_->ToString());
}

Result<ArrayPtr> FixedSizeBinaryBuilder::Finish() {
  const int64_t length = length_;
  FLOE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  FLOE_ASSIGN_OR_RAISE(BufferPtr values, values_.Finish());
  return Array::Make(type_, length, {std::move(validity), std::move(values)});
}

// StructBuilder ----------------------------------------------------------------------

StructBuilder::StructBuilder(TypePtr type, MemoryPool* pool) : ArrayBuilder(std::move(type), pool) {
  for (const Field& f : type_->fields()) children_.push_back(MakeBuilder(f.type(), pool));
}

Status StructBuilder::Reserve(int64_t additional) {
  FLOE_RETURN_NOT_OK(ReserveValidity(additional));
  for (auto& c : children_) FLOE_RETURN_NOT_OK(c->Reserve(additional));
  return Status::OK();
}

Status StructBuilder::AppendNulls(int64_t n) {
  FLOE_RETURN_NOT_OK(ReserveValidity(n));
  for (auto& c : children_) FLOE_RETURN_NOT_OK(c->AppendEmptyValues(n));
  UnsafeAppendNullBits(n);
  return Status::OK();
}

Status StructBuilder::AppendEmptyValues(int64_t n) {
  FLOE_RETURN_NOT_OK(ReserveValidity(n));
  for (auto& c : children_) FLOE_RETURN_NOT_OK(c->AppendEmptyValues(n));
  UnsafeAppendValid(n);
  return Status::OK();
}

Status StructBuilder::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  FLOE_RETURN_NOT_OK(CheckSlice(array, offset, length));
  FLOE_RETURN_NOT_OK(ReserveValidity(length));
  for (size_t k = 0; k < children_.size(); ++k) {
    // A struct's offset applies to its children.
    FLOE_RETURN_NOT_OK(
        children_[k]->AppendArraySlice(*array.children()[k], array.offset() + offset, length));
  }
  UnsafeAppendValidityOf(array, offset, length);
  return Status::OK();
}

Result<ArrayPtr> StructBuilder::Finish() {
  const int64_t length = length_;
  std::vector<ArrayPtr> children;
  for (size_t k = 0; k < children_.size(); ++k) {
    if (children_[k]->length() != length) {
      return Status::Invalid("{} builder: field '{}' has {} values, the struct has {}",
                             type_->ToString(), type_->fields()[k].name(), children_[k]->length(),
                             length);
    }
  }
  for (auto& c : children_) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr child, c->Finish());
    children.push_back(std::move(child));
  }
  FLOE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  return Array::Make(type_, length, {std::move(validity)}, std::move(children));
}

// ListBuilder ------------------------------------------------------------------------

ListBuilder::ListBuilder(TypePtr type, MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool),
      offsets_(pool),
      values_(MakeBuilder(type_->field(0).type(), pool)) {}

Status ListBuilder::Reserve(int64_t additional) {
  FLOE_RETURN_NOT_OK(ReserveValidity(additional));
  return offsets_.Reserve((additional + 1) * 4);
}

Status ListBuilder::Append() {
  FLOE_RETURN_NOT_OK(ListBuilder::Reserve(1));
  FLOE_RETURN_NOT_OK(CheckOffsetLimit(*type_, values_->length(), "elements"));
  offsets_.UnsafeAppendValue(static_cast<int32_t>(values_->length()));
  UnsafeAppendValidBit();
  return Status::OK();
}

Status ListBuilder::AppendNulls(int64_t n) {
  FLOE_RETURN_NOT_OK(ListBuilder::Reserve(n));
  FLOE_RETURN_NOT_OK(CheckOffsetLimit(*type_, values_->length(), "elements"));
  const auto end = static_cast<int32_t>(values_->length());
  for (int64_t i = 0; i < n; ++i) offsets_.UnsafeAppendValue(end);
  UnsafeAppendNullBits(n);
  return Status::OK();
}

Status ListBuilder::AppendEmptyValues(int64_t n) {
  FLOE_RETURN_NOT_OK(ListBuilder::Reserve(n));
  FLOE_RETURN_NOT_OK(CheckOffsetLimit(*type_, values_->length(), "elements"));
  const auto end = static_cast<int32_t>(values_->length());
  for (int64_t i = 0; i < n; ++i) offsets_.UnsafeAppendValue(end);
  UnsafeAppendValid(n);
  return Status::OK();
}

Status ListBuilder::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  FLOE_RETURN_NOT_OK(CheckSlice(array, offset, length));
  const int32_t* offs = array.value_offsets() + offset;
  const int64_t count = offs[length] - offs[0];
  FLOE_RETURN_NOT_OK(CheckOffsetLimit(*type_, values_->length() + count, "elements"));
  FLOE_RETURN_NOT_OK(ListBuilder::Reserve(length));
  // Starts of the slice's lists: the first offsets, rebased; the end offset is
  // implied by the next start or by Finish.
  const int64_t base = values_->length();
  int32_t* dst = reinterpret_cast<int32_t*>(offsets_.mutable_data() + offsets_.size());
  for (int64_t i = 0; i < length; ++i) dst[i] = static_cast<int32_t>(offs[i] - offs[0] + base);
  offsets_.UnsafeAdvance(length * 4);
  FLOE_RETURN_NOT_OK(values_->AppendArraySlice(*array.child(0), offs[0], count));
  UnsafeAppendValidityOf(array, offset, length);
  return Status::OK();
}

Result<ArrayPtr> ListBuilder::Finish() {
  const int64_t length = length_;
  FLOE_RETURN_NOT_OK(offsets_.Reserve(4));
  FLOE_RETURN_NOT_OK(CheckOffsetLimit(*type_, values_->length(), "elements"));
  offsets_.UnsafeAppendValue(static_cast<int32_t>(values_->length()));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr values, values_->Finish());
  FLOE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  FLOE_ASSIGN_OR_RAISE(BufferPtr offsets, offsets_.Finish());
  return Array::Make(type_, length, {std::move(validity), std::move(offsets)}, {std::move(values)});
}

// MapBuilder -------------------------------------------------------------------------

MapBuilder::MapBuilder(TypePtr type, MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool),
      offsets_(pool),
      keys_(MakeBuilder(type_->field(0).type(), pool)),
      items_(MakeBuilder(type_->field(1).type(), pool)) {}

Status MapBuilder::Reserve(int64_t additional) {
  FLOE_RETURN_NOT_OK(ReserveValidity(additional));
  return offsets_.Reserve((additional + 1) * 4);
}

Status MapBuilder::Append() {
  FLOE_RETURN_NOT_OK(MapBuilder::Reserve(1));
  FLOE_RETURN_NOT_OK(CheckOffsetLimit(*type_, keys_->length(), "entries"));
  offsets_.UnsafeAppendValue(static_cast<int32_t>(keys_->length()));
  UnsafeAppendValidBit();
  return Status::OK();
}

Status MapBuilder::AppendNulls(int64_t n) {
  FLOE_RETURN_NOT_OK(MapBuilder::Reserve(n));
  FLOE_RETURN_NOT_OK(CheckOffsetLimit(*type_, keys_->length(), "entries"));
  const auto end = static_cast<int32_t>(keys_->length());
  for (int64_t i = 0; i < n; ++i) offsets_.UnsafeAppendValue(end);
  UnsafeAppendNullBits(n);
  return Status::OK();
}

Status MapBuilder::AppendEmptyValues(int64_t n) {
  FLOE_RETURN_NOT_OK(MapBuilder::Reserve(n));
  FLOE_RETURN_NOT_OK(CheckOffsetLimit(*type_, keys_->length(), "entries"));
  const auto end = static_cast<int32_t>(keys_->length());
  for (int64_t i = 0; i < n; ++i) offsets_.UnsafeAppendValue(end);
  UnsafeAppendValid(n);
  return Status::OK();
}

Status MapBuilder::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  FLOE_RETURN_NOT_OK(CheckSlice(array, offset, length));
  const int32_t* offs = array.value_offsets() + offset;
  const int64_t count = offs[length] - offs[0];
  FLOE_RETURN_NOT_OK(CheckOffsetLimit(*type_, keys_->length() + count, "entries"));
  const Array& entries = *array.child(0);
  ArrayPtr keys = entries.field(0);
  if (keys->null_count() > 0 &&
      bit_util::CountSetBits(keys->validity(), keys->offset() + offs[0], count) != count) {
    return Status::Invalid("{} array: a map key is null", type_->ToString());
  }
  FLOE_RETURN_NOT_OK(MapBuilder::Reserve(length));
  const int64_t base = keys_->length();
  int32_t* dst = reinterpret_cast<int32_t*>(offsets_.mutable_data() + offsets_.size());
  for (int64_t i = 0; i < length; ++i) dst[i] = static_cast<int32_t>(offs[i] - offs[0] + base);
  offsets_.UnsafeAdvance(length * 4);
  FLOE_RETURN_NOT_OK(keys_->AppendArraySlice(*keys, offs[0], count));
  FLOE_RETURN_NOT_OK(items_->AppendArraySlice(*entries.field(1), offs[0], count));
  UnsafeAppendValidityOf(array, offset, length);
  return Status::OK();
}

Result<ArrayPtr> MapBuilder::Finish() {
  const int64_t length = length_;
  if (keys_->length() != items_->length()) {
    return Status::Invalid("{} builder: {} keys but {} values", type_->ToString(), keys_->length(),
                           items_->length());
  }
  if (keys_->null_count() > 0) {
    return Status::Invalid("{} builder: {} map keys are null; keys are never null",
                           type_->ToString(), keys_->null_count());
  }
  const int64_t count = keys_->length();
  FLOE_RETURN_NOT_OK(offsets_.Reserve(4));
  FLOE_RETURN_NOT_OK(CheckOffsetLimit(*type_, count, "entries"));
  offsets_.UnsafeAppendValue(static_cast<int32_t>(count));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr keys, keys_->Finish());
  FLOE_ASSIGN_OR_RAISE(ArrayPtr items, items_->Finish());
  FLOE_ASSIGN_OR_RAISE(ArrayPtr entries, Array::Make(type_->map_entries_type(), count, {nullptr},
                                                     {std::move(keys), std::move(items)}));
  FLOE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  FLOE_ASSIGN_OR_RAISE(BufferPtr offsets, offsets_.Finish());
  return Array::Make(type_, length, {std::move(validity), std::move(offsets)},
                     {std::move(entries)});
}

// Factories --------------------------------------------------------------------------

std::unique_ptr<ArrayBuilder> MakeBuilder(TypePtr type, MemoryPool* pool) {
  const TypeId id = type->id();
  return VisitPhysicalType(id, [&]<typename T>(TypeTag<T>) -> std::unique_ptr<ArrayBuilder> {
    if constexpr (std::is_same_v<T, bool>) {
      return std::make_unique<BooleanBuilder>(pool);
    } else if constexpr (std::is_same_v<T, Int128>) {
      return std::make_unique<DecimalBuilder>(std::move(type), pool);
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      if (type->is_binary_like()) return std::make_unique<BinaryBuilder>(std::move(type), pool);
      return std::make_unique<FixedSizeBinaryBuilder>(std::move(type), pool);
    } else if constexpr (!std::is_void_v<T>) {
      return std::make_unique<NumericBuilder<T>>(std::move(type), pool);
    } else {
      if (id == TypeId::kStruct) return std::make_unique<StructBuilder>(std::move(type), pool);
      if (id == TypeId::kList) return std::make_unique<ListBuilder>(std::move(type), pool);
      FLOE_CHECK(id == TypeId::kMap, "unknown type id");
      return std::make_unique<MapBuilder>(std::move(type), pool);
    }
  });
}

Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays, MemoryPool* pool) {
  if (arrays.empty()) return Status::Invalid("Concatenate needs at least one array");
  int64_t total = 0;
  for (const auto& a : arrays) total += a->length();
  auto builder = MakeBuilder(arrays[0]->type(), pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(total));
  for (const auto& a : arrays) {
    FLOE_RETURN_NOT_OK(builder->AppendArraySlice(*a, 0, a->length()));
  }
  return builder->Finish();
}

}  // namespace floe
