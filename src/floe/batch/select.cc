#include "floe/batch/select.h"

#include <cstring>
#include <memory>

#include "floe/batch/builder.h"

namespace floe {

namespace {

// The selected row indices of a boolean mask (NULL counts as false); sets `all` (and
// leaves `indices` unspecified) when every row is selected.
Status MaskToIndices(const Array& mask, std::vector<int64_t>* indices, bool* all) {
  if (mask.type_id() != TypeId::kBoolean) {
    return Status::Invalid("filter mask must be boolean, not {}", mask.type()->ToString());
  }
  const int64_t n = mask.length();
  const uint8_t* values = mask.buffer(1)->data();
  const int64_t off = mask.offset();
  indices->clear();
  *all = false;
  if (mask.null_count() == n) return Status::OK();
  const uint8_t* validity = mask.null_count() > 0 ? mask.validity() : nullptr;
  int64_t set = bit_util::CountSetBits(values, off, n);
  if (validity == nullptr && set == n) {
    *all = true;
    return Status::OK();
  }
  indices->reserve(static_cast<size_t>(set));
  if (validity == nullptr && off % 8 == 0) {
    // Byte at a time: skip zero bytes.
    const uint8_t* bytes = values + off / 8;
    const int64_t full = n / 8;
    for (int64_t b = 0; b < full; ++b) {
      uint8_t byte = bytes[b];
      while (byte != 0) {
        int j = __builtin_ctz(byte);
        indices->push_back(b * 8 + j);
        byte = static_cast<uint8_t>(byte & (byte - 1));
      }
    }
    for (int64_t i = full * 8; i < n; ++i) {
      if (bit_util::GetBit(values, off + i)) indices->push_back(i);
    }
    return Status::OK();
  }
  for (int64_t i = 0; i < n; ++i) {
    if (bit_util::GetBit(values, off + i) &&
        (validity == nullptr || bit_util::GetBit(validity, off + i))) {
      indices->push_back(i);
    }
  }
  if (static_cast<int64_t>(indices->size()) == n) *all = true;
  return Status::OK();
}

// Gathers rows at non-negative `indices` into `builder`, using slices for runs of
// consecutive indices when that is cheaper.
Status AppendGather(ArrayBuilder* builder, const Array& array, const int64_t* indices, int64_t n) {
  if (n == 0) return Status::OK();
  const TypeId id = array.type_id();
  const bool native_gather =
      (array.type()->is_fixed_width() && id != TypeId::kFixed && id != TypeId::kUuid) ||
      array.type()->is_binary_like();
  if (native_gather) return builder->AppendIndices(array, indices, n);
  // Runs of consecutive indices become slices.
  int64_t start = 0;
  while (start < n) {
    int64_t end = start + 1;
    while (end < n && indices[end] == indices[end - 1] + 1) ++end;
    if (indices[start] < 0 || indices[end - 1] >= array.length()) {
      return Status::Invalid("index {} is outside an array of {} values",
                             indices[start] < 0 ? indices[start] : indices[end - 1],
                             array.length());
    }
    FLOE_RETURN_NOT_OK(builder->AppendArraySlice(array, indices[start], end - start));
    start = end;
  }
  return Status::OK();
}

Result<ArrayPtr> TakeBoolean(const Array& array, const int64_t* indices, int64_t n,
                             MemoryPool* pool) {
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> values,
                       Buffer::AllocateZeroed(bit_util::BytesForBits(n), pool));
  std::shared_ptr<Buffer> validity;
  int64_t nulls = 0;
  const uint8_t* src = array.buffer(1)->data();
  uint8_t* dst = values->mutable_data();
  bool need_validity = array.null_count() > 0;
  for (int64_t i = 0; i < n && !need_validity; ++i) need_validity = indices[i] < 0;
  if (need_validity) {
    FLOE_ASSIGN_OR_RAISE(validity, Buffer::AllocateZeroed(bit_util::BytesForBits(n), pool));
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = indices[i];
    if (k < -1 || k >= array.length()) {
      return Status::Invalid("index {} is outside an array of {} values", k, array.length());
    }
    if (k < 0 || array.IsNull(k)) {
      ++nulls;
      continue;
    }
    if (validity) bit_util::SetBit(validity->mutable_data(), i);
    if (bit_util::GetBit(src, array.offset() + k)) bit_util::SetBit(dst, i);
  }
  return Array::Make(array.type(), n, {nulls > 0 ? BufferPtr(validity) : nullptr, values}, {},
                     nulls);
}

Result<ArrayPtr> TakeStruct(const Array& array, const int64_t* indices, int64_t n,
                            MemoryPool* pool) {
  std::shared_ptr<Buffer> validity;
  FLOE_ASSIGN_OR_RAISE(validity, Buffer::AllocateZeroed(bit_util::BytesForBits(n), pool));
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = indices[i];
    if (k < -1 || k >= array.length()) {
      return Status::Invalid("index {} is outside an array of {} values", k, array.length());
    }
    if (k < 0 || array.IsNull(k)) {
      ++nulls;
    } else {
      bit_util::SetBit(validity->mutable_data(), i);
    }
  }
  std::vector<ArrayPtr> children;
  for (int f = 0; f < array.num_children(); ++f) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr child, TakeArray(*array.field(f), indices, n, pool));
    children.push_back(std::move(child));
  }
  return Array::Make(array.type(), n, {nulls > 0 ? BufferPtr(validity) : nullptr},
                     std::move(children), nulls);
}

}  // namespace

Result<ArrayPtr> FilterArray(const Array& array, const Array& mask, MemoryPool* pool) {
  if (mask.length() != array.length()) {
    return Status::Invalid("filter mask has {} values for an array of {}", mask.length(),
                           array.length());
  }
  std::vector<int64_t> indices;
  bool all = false;
  FLOE_RETURN_NOT_OK(MaskToIndices(mask, &indices, &all));
  if (all) return array.Slice(0, array.length());
  return TakeArray(array, indices.data(), static_cast<int64_t>(indices.size()), pool);
}

Result<RecordBatchPtr> FilterBatch(const RecordBatch& batch, const Array& mask, MemoryPool* pool) {
  if (mask.length() != batch.num_rows()) {
    return Status::Invalid("filter mask has {} values for a batch of {} rows", mask.length(),
                           batch.num_rows());
  }
  std::vector<int64_t> indices;
  bool all = false;
  FLOE_RETURN_NOT_OK(MaskToIndices(mask, &indices, &all));
  if (all) return batch.Slice(0, batch.num_rows());
  return TakeBatch(batch, indices.data(), static_cast<int64_t>(indices.size()), pool);
}

Result<ArrayPtr> TakeArray(const Array& array, const int64_t* indices, int64_t n,
                           MemoryPool* pool) {
  if (array.type_id() == TypeId::kBoolean) return TakeBoolean(array, indices, n, pool);
  if (array.type_id() == TypeId::kStruct) return TakeStruct(array, indices, n, pool);
  auto builder = MakeBuilder(array.type(), pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(n));
  // Segments of valid indices are gathered; runs of -1 become NULLs.
  int64_t start = 0;
  while (start < n) {
    int64_t end = start;
    if (indices[start] == -1) {
      while (end < n && indices[end] == -1) ++end;
      FLOE_RETURN_NOT_OK(builder->AppendNulls(end - start));
    } else {
      while (end < n && indices[end] != -1) ++end;
      FLOE_RETURN_NOT_OK(AppendGather(builder.get(), array, indices + start, end - start));
    }
    start = end;
  }
  return builder->Finish();
}

Result<RecordBatchPtr> TakeBatch(const RecordBatch& batch, const int64_t* indices, int64_t n,
                                 MemoryPool* pool) {
  std::vector<ArrayPtr> columns;
  columns.reserve(static_cast<size_t>(batch.num_columns()));
  for (const ArrayPtr& c : batch.columns()) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr taken, TakeArray(*c, indices, n, pool));
    columns.push_back(std::move(taken));
  }
  return RecordBatch::Make(batch.schema(), n, std::move(columns));
}

Result<ArrayPtr> ConcatenateArrays(const std::vector<ArrayPtr>& arrays, MemoryPool* pool) {
  if (arrays.size() == 1) return arrays[0];
  return Concatenate(arrays, pool);
}

Result<RecordBatchPtr> ConcatenateBatches(const SchemaPtr& schema,
                                          const std::vector<RecordBatchPtr>& batches,
                                          MemoryPool* pool) {
  if (batches.size() == 1 && batches[0]->schema()->num_fields() == schema->num_fields()) {
    return RecordBatch::Make(schema, batches[0]->num_rows(), batches[0]->columns());
  }
  int64_t rows = 0;
  for (const RecordBatchPtr& b : batches) {
    if (b->num_columns() != schema->num_fields()) {
      return Status::Invalid("cannot concatenate a batch of {} columns into a schema of {}",
                             b->num_columns(), schema->num_fields());
    }
    rows += b->num_rows();
  }
  std::vector<ArrayPtr> columns;
  for (int c = 0; c < schema->num_fields(); ++c) {
    auto builder = MakeBuilder(schema->field(c).type(), pool);
    FLOE_RETURN_NOT_OK(builder->Reserve(rows));
    for (const RecordBatchPtr& b : batches) {
      const Array& col = *b->column(c);
      FLOE_RETURN_NOT_OK(builder->AppendArraySlice(col, 0, col.length()));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr column, builder->Finish());
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(schema, rows, std::move(columns));
}

}  // namespace floe
