#include "floe/batch/array.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "floe/batch/utf8.h"
#include "floe/type/type_visit.h"

namespace floe {

int NumBuffers(TypeId id) {
  switch (id) {
    case TypeId::kStruct: return 1;
    case TypeId::kString:
    case TypeId::kBinary: return 3;
    default: return 2;
  }
}

namespace {

Status CheckBufferSize(const DataType& type, const BufferPtr& buf, int64_t needed,
                       const char* what) {
  int64_t have = buf ? buf->size() : 0;
  if (have < needed) {
    return Status::Invalid("{} array: the {} buffer has {} bytes, {} are needed", type.ToString(),
                           what, have, needed);
  }
  return Status::OK();
}

// Checks that the offsets' first and last values lie within [0, limit].
Status CheckOffsetEnds(const DataType& type, const int32_t* offsets, int64_t length,
                       int64_t limit, const char* what) {
  int32_t first = offsets[0];
  int32_t last = offsets[length];
  if (first < 0 || last < first || last > limit) {
    return Status::Invalid("{} array: offsets [{}, {}] do not fit in {} {}", type.ToString(),
                           first, last, limit, what);
  }
  return Status::OK();
}


}  // namespace

Result<ArrayPtr> Array::Make(TypePtr type, int64_t length, std::vector<BufferPtr> buffers,
                             std::vector<ArrayPtr> children, int64_t null_count, int64_t offset) {
  if (!type) return Status::Invalid("array without a type");
  const DataType& t = *type;
  if (length < 0 || offset < 0) {
    return Status::Invalid("{} array: negative length {} or offset {}", t.ToString(), length,
                           offset);
  }
  if (static_cast<int>(buffers.size()) != NumBuffers(t.id())) {
    return Status::Invalid("{} array: expected {} buffers, got {}", t.ToString(),
                           NumBuffers(t.id()), buffers.size());
  }
  const int64_t end = offset + length;
  if (buffers[0]) {
    FLOE_RETURN_NOT_OK(CheckBufferSize(t, buffers[0], bit_util::BytesForBits(end), "validity"));
  }
  size_t expected_children = t.id() == TypeId::kStruct ? t.fields().size()
                             : (t.id() == TypeId::kList || t.id() == TypeId::kMap) ? 1
                                                                                   : 0;
  if (children.size() != expected_children) {
    return Status::Invalid("{} array: expected {} children, got {}", t.ToString(),
                           expected_children, children.size());
  }
  switch (t.id()) {
    case TypeId::kBoolean:
      FLOE_RETURN_NOT_OK(CheckBufferSize(t, buffers[1], bit_util::BytesForBits(end), "values"));
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      FLOE_RETURN_NOT_OK(CheckBufferSize(t, buffers[1], (end + 1) * 4, "offsets"));
      if (!buffers[2]) return Status::Invalid("{} array: missing data buffer", t.ToString());
      FLOE_RETURN_NOT_OK(CheckOffsetEnds(t, buffers[1]->data_as<int32_t>() + offset, length,
                                         buffers[2]->size(), "data bytes"));
      break;
    case TypeId::kList:
    case TypeId::kMap: {
      FLOE_RETURN_NOT_OK(CheckBufferSize(t, buffers[1], (end + 1) * 4, "offsets"));
      if (!children[0]) return Status::Invalid("{} array: missing child", t.ToString());
      TypePtr child_type = t.id() == TypeId::kList ? t.field(0).type() : t.map_entries_type();
      if (!children[0]->type()->Equals(*child_type)) {
        return Status::Invalid("{} array: child has type {}, expected {}", t.ToString(),
                               children[0]->type()->ToString(), child_type->ToString());
      }
      FLOE_RETURN_NOT_OK(CheckOffsetEnds(t, buffers[1]->data_as<int32_t>() + offset, length,
                                         children[0]->length(), "child values"));
      break;
    }
    case TypeId::kStruct:
      for (size_t i = 0; i < children.size(); ++i) {
        if (!children[i]) return Status::Invalid("{} array: missing child {}", t.ToString(), i);
        if (!children[i]->type()->Equals(*t.fields()[i].type())) {
          return Status::Invalid("{} array: child {} has type {}, expected {}", t.ToString(), i,
                                 children[i]->type()->ToString(),
                                 t.fields()[i].type()->ToString());
        }
        if (children[i]->length() < end) {
          return Status::Invalid("{} array: child {} has {} values, {} are needed", t.ToString(),
                                 i, children[i]->length(), end);
        }
      }
      break;
    default:
      FLOE_RETURN_NOT_OK(CheckBufferSize(t, buffers[1], end * t.byte_width(), "values"));
      break;
  }
  if (!buffers[0]) {
    if (null_count > 0) {
      return Status::Invalid("{} array: {} nulls but no validity bitmap", t.ToString(),
                             null_count);
    }
    null_count = 0;
  } else if (null_count < 0) {
    null_count = length - bit_util::CountSetBits(buffers[0]->data(), offset, length);
  }
  auto array = std::shared_ptr<Array>(new Array());
  array->type_ = std::move(type);
  array->length_ = length;
  array->offset_ = offset;
  array->null_count_ = null_count;
  array->buffers_ = std::move(buffers);
  array->children_ = std::move(children);
  return ArrayPtr(std::move(array));
}

Result<ArrayPtr> Array::MakeNull(TypePtr type, int64_t length, MemoryPool* pool) {
  FLOE_ASSIGN_OR_RAISE(BufferPtr validity, Buffer::AllocateZeroed(bit_util::BytesForBits(length), pool));
  std::vector<BufferPtr> buffers(static_cast<size_t>(NumBuffers(type->id())));
  buffers[0] = validity;
  std::vector<ArrayPtr> children;
  switch (type->id()) {
    case TypeId::kStruct: {
      for (const auto& f : type->fields()) {
        FLOE_ASSIGN_OR_RAISE(ArrayPtr child, MakeNull(f.type(), length, pool));
        children.push_back(std::move(child));
      }
      break;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      FLOE_ASSIGN_OR_RAISE(buffers[1], Buffer::AllocateZeroed((length + 1) * 4, pool));
      TypePtr child_type =
          type->id() == TypeId::kList ? type->field(0).type() : type->map_entries_type();
      FLOE_ASSIGN_OR_RAISE(ArrayPtr child, MakeNull(child_type, 0, pool));
      children.push_back(std::move(child));
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      FLOE_ASSIGN_OR_RAISE(buffers[1], Buffer::AllocateZeroed((length + 1) * 4, pool));
      FLOE_ASSIGN_OR_RAISE(buffers[2], Buffer::AllocateZeroed(0, pool));
      break;
    }
    case TypeId::kBoolean: {
      FLOE_ASSIGN_OR_RAISE(buffers[1],
                           Buffer::AllocateZeroed(bit_util::BytesForBits(length), pool));
      break;
    }
    default: {
      FLOE_ASSIGN_OR_RAISE(buffers[1], Buffer::AllocateZeroed(length * type->byte_width(), pool));
      break;
    }
  }
  return Make(std::move(type), length, std::move(buffers), std::move(children), length);
}

Int128 Array::DecimalValue(int64_t i) const {
  Int128 v;
  std::memcpy(&v, buffers_[1]->data() + (offset_ + i) * 16, 16);
  return v;
}

std::string_view Array::BytesValue(int64_t i) const {
  if (type_->is_binary_like()) {
    const int32_t* offs = value_offsets();
    return {buffers_[2]->data_as<char>() + offs[i], static_cast<size_t>(offs[i + 1] - offs[i])};
  }
  int w = type_->byte_width();
  return {buffers_[1]->data_as<char>() + (offset_ + i) * w, static_cast<size_t>(w)};
}

ArrayPtr Array::field(int i) const {
  const ArrayPtr& c = children_[static_cast<size_t>(i)];
  if (offset_ == 0 && c->length() == length_) return c;
  return c->Slice(offset_, length_);
}

ArrayPtr Array::Slice(int64_t offset, int64_t length) const {
  FLOE_CHECK(offset >= 0 && length >= 0 && offset + length <= length_,
             fmt::format("slice [{}, +{}) of an array of length {}", offset, length, length_));
  auto out = std::shared_ptr<Array>(new Array(*this));
  out->offset_ = offset_ + offset;
  out->length_ = length;
  if (null_count_ == 0) {
    out->null_count_ = 0;
  } else if (null_count_ == length_) {
    out->null_count_ = length;
  } else {
    out->null_count_ = length - bit_util::CountSetBits(validity(), out->offset_, length);
  }
  return out;
}

Status Array::ValidateFull() const {
  const DataType& t = *type_;
  if (t.is_binary_like() || t.id() == TypeId::kList || t.id() == TypeId::kMap) {
    const int32_t* offs = value_offsets();
    for (int64_t i = 0; i < length_; ++i) {
      if (offs[i + 1] < offs[i]) {
        return Status::Invalid("{} array: offsets decrease at value {} ({} then {})",
                               t.ToString(), i, offs[i], offs[i + 1]);
      }
    }
  }
  if (t.id() == TypeId::kString) {
    for (int64_t i = 0; i < length_; ++i) {
      if (IsValid(i) && !IsValidUtf8(BytesValue(i))) {
        return Status::Invalid("string array: value {} is not valid UTF-8", i);
      }
    }
  }
  for (const auto& c : children_) FLOE_RETURN_NOT_OK(c->ValidateFull());
  return Status::OK();
}

namespace {

bool ValueEquals(const Array& a, int64_t i, const Array& b, int64_t j) {
  bool an = a.IsNull(i), bn = b.IsNull(j);
  if (an || bn) return an == bn;
  return VisitPhysicalType(a.type_id(), [&]<typename T>(TypeTag<T>) -> bool {
    if constexpr (std::is_same_v<T, bool>) {
      return a.BoolValue(i) == b.BoolValue(j);
    } else if constexpr (std::is_same_v<T, Int128>) {
      return a.DecimalValue(i) == b.DecimalValue(j);
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      return a.BytesValue(i) == b.BytesValue(j);
    } else if constexpr (std::is_floating_point_v<T>) {
      // NaN equals NaN.
      const T x = a.Value<T>(i), y = b.Value<T>(j);
      return x == y || (x != x && y != y);
    } else if constexpr (!std::is_void_v<T>) {
      return a.Value<T>(i) == b.Value<T>(j);
    } else if (a.type_id() == TypeId::kStruct) {
      for (int k = 0; k < a.num_children(); ++k) {
        if (!ValueEquals(*a.child(k), a.offset() + i, *b.child(k), b.offset() + j)) return false;
      }
      return true;
    } else {
      // A list or map: the same number of elements, equal one by one.
      int64_t ab = a.ListBegin(i), ae = a.ListEnd(i), bb = b.ListBegin(j), be = b.ListEnd(j);
      if (ae - ab != be - bb) return false;
      for (int64_t k = 0; k < ae - ab; ++k) {
        if (!ValueEquals(*a.child(0), ab + k, *b.child(0), bb + k)) return false;
      }
      return true;
    }
  });
}

}  // namespace

bool Array::Equals(const Array& other) const {
  if (length_ != other.length_ || null_count_ != other.null_count_ ||
      !type_->Equals(*other.type_)) {
    return false;
  }
  for (int64_t i = 0; i < length_; ++i) {
    if (!ValueEquals(*this, i, other, i)) return false;
  }
  return true;
}

Result<RecordBatchPtr> RecordBatch::Make(SchemaPtr schema, int64_t num_rows,
                                         std::vector<ArrayPtr> columns) {
  if (!schema) return Status::Invalid("record batch without a schema");
  if (static_cast<int>(columns.size()) != schema->num_fields()) {
    return Status::Invalid("record batch: {} columns for a schema of {} fields", columns.size(),
                           schema->num_fields());
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& f = schema->fields()[i];
    if (!columns[i] || columns[i]->length() != num_rows) {
      return Status::Invalid("record batch: column '{}' has {} values, expected {}", f.name(),
                             columns[i] ? columns[i]->length() : -1, num_rows);
    }
    if (!columns[i]->type()->Equals(*f.type())) {
      return Status::Invalid("record batch: column '{}' has type {}, the schema says {}",
                             f.name(), columns[i]->type()->ToString(), f.type()->ToString());
    }
  }
  auto batch = std::shared_ptr<RecordBatch>(new RecordBatch());
  batch->schema_ = std::move(schema);
  batch->num_rows_ = num_rows;
  batch->columns_ = std::move(columns);
  return RecordBatchPtr(std::move(batch));
}

RecordBatchPtr RecordBatch::Slice(int64_t offset, int64_t length) const {
  auto batch = std::shared_ptr<RecordBatch>(new RecordBatch());
  batch->schema_ = schema_;
  batch->num_rows_ = length;
  for (const auto& c : columns_) batch->columns_.push_back(c->Slice(offset, length));
  return batch;
}

bool RecordBatch::Equals(const RecordBatch& other) const {
  if (num_rows_ != other.num_rows_ || !schema_->Equals(*other.schema_)) return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!columns_[i]->Equals(*other.columns_[i])) return false;
  }
  return true;
}

namespace {

// A buffer and the bytes of it some array's values span.
struct Span {
  const Buffer* buffer;
  int64_t bytes;
};

// The spans of the buffers of `array` and its children: the bytes its values
// [begin, begin + n) cover (a slice covers part of each buffer). `begin` counts from the
// array's first value, so a list's child range is measured without slicing the child.
void CollectSpans(const Array& array, int64_t begin, int64_t n, std::vector<Span>* out) {
  auto add = [&](int i, int64_t bytes) {
    if (i < static_cast<int>(array.buffers().size()) && array.buffer(i)) {
      out->push_back({array.buffer(i).get(), bytes});
    }
  };
  add(0, bit_util::BytesForBits(n));
  switch (array.type_id()) {
    case TypeId::kBoolean:
      add(1, bit_util::BytesForBits(n));
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      add(1, (n + 1) * 4);
      if (array.buffer(1)) {
        add(2, array.value_offsets()[begin + n] - array.value_offsets()[begin]);
      }
      break;
    case TypeId::kList:
    case TypeId::kMap:
      add(1, (n + 1) * 4);
      if (array.buffer(1) && array.num_children() > 0 && n > 0) {
        const int64_t first = array.ListBegin(begin);
        CollectSpans(*array.child(0), first, array.ListEnd(begin + n - 1) - first, out);
      }
      break;
    case TypeId::kStruct:
      // A struct's children are not sliced with it: its value i is their value offset() + i.
      for (int f = 0; f < array.num_children(); ++f) {
        CollectSpans(*array.child(f), array.offset() + begin, n, out);
      }
      break;
    default:
      add(1, n * array.type()->byte_width());
      break;
  }
}

// What `spans` hold: a buffer spanned whole counts the memory it holds (its pool block),
// one spanned in part the bytes spanned, so that the slices of one array add up to it. A
// buffer spanned several times (a column repeated) counts once, its largest span.
int64_t SpannedMemory(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.buffer < b.buffer; });
  int64_t total = 0;
  for (size_t i = 0; i < spans.size();) {
    const Buffer* buffer = spans[i].buffer;
    int64_t bytes = 0;
    for (; i < spans.size() && spans[i].buffer == buffer; ++i) {
      bytes = std::max(bytes, spans[i].bytes);
    }
    total += bytes >= buffer->size() ? buffer->memory_size() : bytes;
  }
  return total;
}

}  // namespace

int64_t Array::memory_size() const {
  std::vector<Span> spans;
  CollectSpans(*this, 0, length_, &spans);
  return SpannedMemory(std::move(spans));
}

int64_t RecordBatch::memory_size() const {
  std::vector<Span> spans;
  for (const ArrayPtr& column : columns_) CollectSpans(*column, 0, column->length(), &spans);
  return SpannedMemory(std::move(spans));
}

}  // namespace floe
