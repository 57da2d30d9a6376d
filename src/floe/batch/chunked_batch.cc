#include "floe/batch/chunked_batch.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <utility>

#include "floe/batch/gather_internal.h"
#include "floe/batch/select.h"

namespace floe {

namespace {

// Whether values of `type` are gathered from several batches (lists and maps are not).
bool Gatherable(const DataType& type) {
  switch (type.id()) {
    case TypeId::kList:
    case TypeId::kMap:
      return false;
    case TypeId::kStruct:
      for (const Field& f : type.fields()) {
        if (!Gatherable(*f.type())) return false;
      }
      return true;
    default:
      return type.id() == TypeId::kBoolean || type.id() == TypeId::kString ||
             type.id() == TypeId::kBinary || type.byte_width() > 0;
  }
}

// Where each taken row is: batch[i] and row[i] within it (row -1: a row of NULLs, batch 0).
struct Located {
  const uint32_t* batch;
  const int64_t* row;
  int64_t n;
  bool null_rows;  // some row[i] is -1
};

Status Allocate(BufferBuilder* out, int64_t bytes) {
  FLOE_RETURN_NOT_OK(out->Reserve(bytes));
  out->UnsafeAdvance(bytes);
  return Status::OK();
}

// The validity of the taken values (null when all are valid) and their NULL count.
Status GatherValidity(const std::vector<const Array*>& parts, const Located& at, MemoryPool* pool,
                      BufferPtr* validity, int64_t* nulls) {
  *nulls = 0;
  bool any = at.null_rows;
  for (const Array* p : parts) any = any || p->null_count() > 0;
  if (!any) return Status::OK();
  // Per batch: its validity bits and their offset, or null with the one answer for all of
  // its values (offset 1: all valid, 0: all NULL).
  std::vector<std::pair<const uint8_t*, int64_t>> bits_of(parts.size());
  for (size_t b = 0; b < parts.size(); ++b) {
    const Array& a = *parts[b];
    if (a.null_count() == 0) {
      bits_of[b] = {nullptr, 1};
    } else if (a.null_count() == a.length() || a.validity() == nullptr) {
      bits_of[b] = {nullptr, 0};
    } else {
      bits_of[b] = {a.validity(), a.offset()};
    }
  }
  BufferBuilder bits(pool);
  FLOE_RETURN_NOT_OK(Allocate(&bits, bit_util::BytesForBits(at.n)));
  const int64_t valid =
      internal::WriteBits(at.n, bits.mutable_data(), 0, [&](int64_t i) -> uint64_t {
        const int64_t r = at.row[i];
        if (r < 0) return 0u;
        const auto [validity, offset] = bits_of[at.batch[i]];
        if (validity == nullptr) return static_cast<uint64_t>(offset);
        return internal::BitAt(validity, offset + r);
      });
  *nulls = at.n - valid;
  if (*nulls == 0) return Status::OK();
  FLOE_ASSIGN_OR_RAISE(*validity, bits.Finish());
  return Status::OK();
}

// Copies fixed-width values of `W` bytes (of `width` bytes when W is 0): value i from
// bases[batch[i]] at row[i] (zeros for a row of NULLs).
template <int W>
void GatherFixed(const std::vector<const uint8_t*>& bases, const Located& at, uint8_t* dst,
                 int width = W) {
  const auto w = static_cast<size_t>(W > 0 ? W : width);
  for (int64_t i = 0; i < at.n; ++i) {
    const int64_t r = at.row[i];
    uint8_t* to = dst + static_cast<size_t>(i) * w;
    if (r < 0) {
      std::memset(to, 0, w);
    } else {
      std::memcpy(to, bases[at.batch[i]] + static_cast<size_t>(r) * w, w);
    }
  }
}

void GatherFixedWidth(const std::vector<const uint8_t*>& bases, int width, const Located& at,
                      uint8_t* dst) {
  switch (width) {
    case 1:
      return GatherFixed<1>(bases, at, dst);
    case 2:
      return GatherFixed<2>(bases, at, dst);
    case 4:
      return GatherFixed<4>(bases, at, dst);
    case 8:
      return GatherFixed<8>(bases, at, dst);
    case 16:
      return GatherFixed<16>(bases, at, dst);
    default:
      return GatherFixed<0>(bases, at, dst, width);
  }
}

Result<ArrayPtr> GatherColumn(const TypePtr& type, const std::vector<const Array*>& parts,
                              const Located& at, MemoryPool* pool) {
  BufferPtr validity;
  int64_t nulls = 0;
  FLOE_RETURN_NOT_OK(GatherValidity(parts, at, pool, &validity, &nulls));
  const int64_t n = at.n;
  switch (type->id()) {
    case TypeId::kBoolean: {
      BufferBuilder values(pool);
      FLOE_RETURN_NOT_OK(Allocate(&values, bit_util::BytesForBits(n)));
      internal::WriteBits(n, values.mutable_data(), 0, [&](int64_t i) -> uint64_t {
        const int64_t r = at.row[i];
        if (r < 0) return 0u;
        const Array& a = *parts[at.batch[i]];
        return internal::BitAt(a.buffer(1)->data(), a.offset() + r);
      });
      FLOE_ASSIGN_OR_RAISE(BufferPtr out, values.Finish());
      return Array::Make(type, n, {std::move(validity), std::move(out)}, {}, nulls);
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      std::vector<const int32_t*> offsets(parts.size());
      std::vector<const uint8_t*> data(parts.size());
      for (size_t b = 0; b < parts.size(); ++b) {
        offsets[b] = parts[b]->value_offsets();
        data[b] = parts[b]->buffer(2)->data();
      }
      int64_t bytes = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = at.row[i];
        if (r < 0) continue;
        const int32_t* o = offsets[at.batch[i]];
        bytes += o[r + 1] - o[r];
      }
      if (bytes > std::numeric_limits<int32_t>::max()) {
        return Status::Invalid("{} take: {} bytes of data exceed the int32 offset limit",
                               type->ToString(), bytes);
      }
      BufferBuilder out_offsets(pool);
      BufferBuilder out_data(pool);
      FLOE_RETURN_NOT_OK(Allocate(&out_offsets, (n + 1) * 4));
      FLOE_RETURN_NOT_OK(Allocate(&out_data, bytes));
      auto* oo = reinterpret_cast<int32_t*>(out_offsets.mutable_data());
      uint8_t* od = out_data.mutable_data();
      int32_t pos = 0;
      oo[0] = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = at.row[i];
        if (r >= 0) {
          const int32_t* o = offsets[at.batch[i]];
          const int32_t len = o[r + 1] - o[r];
          std::memcpy(od + pos, data[at.batch[i]] + o[r], static_cast<size_t>(len));
          pos += len;
        }
        oo[i + 1] = pos;
      }
      FLOE_ASSIGN_OR_RAISE(BufferPtr offsets_buffer, out_offsets.Finish());
      FLOE_ASSIGN_OR_RAISE(BufferPtr data_buffer, out_data.Finish());
      return Array::Make(type, n,
                         {std::move(validity), std::move(offsets_buffer), std::move(data_buffer)},
                         {}, nulls);
    }
    case TypeId::kStruct: {
      std::vector<ArrayPtr> children;
      std::vector<ArrayPtr> held(parts.size());
      std::vector<const Array*> child_parts(parts.size());
      for (int f = 0; f < static_cast<int>(type->fields().size()); ++f) {
        for (size_t b = 0; b < parts.size(); ++b) {
          held[b] = parts[b]->field(f);
          child_parts[b] = held[b].get();
        }
        FLOE_ASSIGN_OR_RAISE(
            ArrayPtr child,
            GatherColumn(type->fields()[static_cast<size_t>(f)].type(), child_parts, at, pool));
        children.push_back(std::move(child));
      }
      return Array::Make(type, n, {std::move(validity)}, std::move(children), nulls);
    }
    default:
      break;
  }
  const int width = type->byte_width();
  if (width <= 0) return Status::NotSupported("take of {} values", type->ToString());
  std::vector<const uint8_t*> bases(parts.size());
  for (size_t b = 0; b < parts.size(); ++b) {
    bases[b] = parts[b]->buffer(1)->data() + parts[b]->offset() * width;
  }
  BufferBuilder values(pool);
  FLOE_RETURN_NOT_OK(Allocate(&values, n * width));
  GatherFixedWidth(bases, width, at, values.mutable_data());
  FLOE_ASSIGN_OR_RAISE(BufferPtr out, values.Finish());
  return Array::Make(type, n, {std::move(validity), std::move(out)}, {}, nulls);
}

}  // namespace

Result<ChunkedBatch> ChunkedBatch::Make(SchemaPtr schema, std::vector<RecordBatchPtr> batches,
                                        MemoryPool* pool) {
  ChunkedBatch out;
  out.schema_ = std::move(schema);
  for (RecordBatchPtr& b : batches) {
    if (b->num_columns() != out.schema_->num_fields()) {
      return Status::Invalid("a batch of {} columns in rows of {}", b->num_columns(),
                             out.schema_->num_fields());
    }
    if (b->num_rows() > 0) out.batches_.push_back(std::move(b));
  }
  bool gatherable = true;
  for (const Field& f : out.schema_->fields()) gatherable = gatherable && Gatherable(*f.type());
  if (!gatherable && out.batches_.size() > 1) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr one, ConcatenateBatches(out.schema_, out.batches_, pool));
    out.batches_ = {std::move(one)};
  }
  if (out.batches_.size() > std::numeric_limits<uint32_t>::max()) {
    return Status::NotSupported("rows in more than 2^32 - 1 batches");
  }
  out.starts_.push_back(0);
  for (const RecordBatchPtr& b : out.batches_) {
    out.starts_.push_back(out.starts_.back() + b->num_rows());
  }
  if (out.batches_.size() > 1) {
    // 2^shift rows at most the average batch's: about one entry per batch, however small
    // some batches are (BatchOf walks past the batches that start inside an entry's rows).
    const int64_t rows = out.starts_.back();
    const int64_t average = rows / static_cast<int64_t>(out.batches_.size());
    out.shift_ = std::bit_width(static_cast<uint64_t>(average)) - 1;
    const int64_t buckets = ((rows - 1) >> out.shift_) + 1;
    out.directory_.resize(static_cast<size_t>(buckets));
    uint32_t c = 0;
    for (int64_t k = 0; k < buckets; ++k) {
      const int64_t r = k << out.shift_;
      while (out.starts_[c + 1] <= r) ++c;
      out.directory_[static_cast<size_t>(k)] = c;
    }
  }
  return out;
}

Result<RecordBatchPtr> ChunkedBatch::Take(const int64_t* indices, int64_t n,
                                          MemoryPool* pool) const {
  // One batch: TakeBatch checks the indices itself.
  if (batches_.size() == 1) return TakeBatch(*batches_[0], indices, n, pool);
  const int64_t rows = num_rows();
  for (int64_t i = 0; i < n; ++i) {
    if (indices[i] < -1 || indices[i] >= rows) {
      return Status::Invalid("take index {} out of range for {} rows", indices[i], rows);
    }
  }
  if (batches_.empty()) {
    // Only rows of NULLs can be taken from no rows.
    std::vector<ArrayPtr> columns;
    for (const Field& f : schema_->fields()) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr nulls, Array::MakeNull(f.type(), n));
      columns.push_back(std::move(nulls));
    }
    return RecordBatch::Make(schema_, n, std::move(columns));
  }
  std::vector<uint32_t> batch(static_cast<size_t>(n));
  std::vector<int64_t> row(static_cast<size_t>(n));
  bool null_rows = false;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = indices[i];
    if (r < 0) {
      batch[static_cast<size_t>(i)] = 0;
      row[static_cast<size_t>(i)] = -1;
      null_rows = true;
      continue;
    }
    const uint32_t c = BatchOf(r);
    batch[static_cast<size_t>(i)] = c;
    row[static_cast<size_t>(i)] = r - starts_[c];
  }
  const Located at{batch.data(), row.data(), n, null_rows};
  std::vector<ArrayPtr> columns;
  columns.reserve(static_cast<size_t>(schema_->num_fields()));
  std::vector<const Array*> parts(batches_.size());
  for (int c = 0; c < schema_->num_fields(); ++c) {
    for (size_t b = 0; b < batches_.size(); ++b) parts[b] = batches_[b]->column(c).get();
    FLOE_ASSIGN_OR_RAISE(ArrayPtr column, GatherColumn(schema_->field(c).type(), parts, at, pool));
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(schema_, n, std::move(columns));
}

}  // namespace floe
