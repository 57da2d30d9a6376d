#include "floe/batch/select.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <utility>

#include "floe/batch/builder.h"
#include "floe/batch/gather_internal.h"

namespace floe {

namespace {

using internal::BitAt;
using internal::WriteBits;

// Sets `bytes` bytes of uninitialized memory aside in `out`, to be written by the caller
// before Finish().
Status AllocateUninitialized(BufferBuilder* out, int64_t bytes) {
  FLOE_RETURN_NOT_OK(out->Reserve(bytes));
  out->UnsafeAdvance(bytes);
  return Status::OK();
}

// `len` (<= 64) bits of `bits` from bit `offset` on, as the low bits of a word.
inline uint64_t LoadBits(const uint8_t* bits, int64_t offset, int64_t len) {
  const uint8_t* p = bits + (offset >> 3);
  const int shift = static_cast<int>(offset & 7);
  const int64_t bytes = std::min<int64_t>(bit_util::BytesForBits(len + shift), 8);
  uint64_t word = 0;
  std::memcpy(&word, p, static_cast<size_t>(bytes));
  word >>= shift;
  if (shift != 0 && len + shift > 64) word |= static_cast<uint64_t>(p[8]) << (64 - shift);
  if (len < 64) word &= (uint64_t{1} << len) - 1;
  return word;
}

// The selected row indices of a boolean mask (NULL counts as false) in
// (*indices)[0..count); returns the count. `indices` is scratch space, sized to at least
// the mask's length.
Result<int64_t> MaskToIndices(const Array& mask, std::vector<int64_t>* indices) {
  if (mask.type_id() != TypeId::kBoolean) {
    return Status::Invalid("filter mask must be boolean, not {}", mask.type()->ToString());
  }
  const int64_t n = mask.length();
  const internal::ValidityKind validity_kind = internal::ClassifyValidity(mask);
  if (n == 0 || validity_kind == internal::ValidityKind::kAllNull) return 0;
  const uint8_t* values = mask.buffer(1)->data();
  const uint8_t* validity =
      validity_kind == internal::ValidityKind::kBitmap ? mask.validity() : nullptr;
  const int64_t off = mask.offset();
  if (static_cast<int64_t>(indices->size()) < n) indices->resize(static_cast<size_t>(n));
  int64_t* dst = indices->data();
  int64_t k = 0;
  for (int64_t base = 0; base < n; base += 64) {
    const int64_t len = std::min<int64_t>(64, n - base);
    uint64_t word = LoadBits(values, off + base, len);
    if (validity != nullptr) word &= LoadBits(validity, off + base, len);
    if (word == 0) continue;
    if (word == ~uint64_t{0}) {
      for (int64_t j = 0; j < 64; ++j) dst[k + j] = base + j;
      k += 64;
    } else if (std::popcount(word) > 16) {
      // Dense: write every position and advance past the selected ones (no branches).
      for (int64_t j = 0; j < len; ++j) {
        dst[k] = base + j;
        k += static_cast<int64_t>((word >> j) & 1);
      }
    } else {
      while (word != 0) {
        dst[k++] = base + std::countr_zero(word);
        word &= word - 1;
      }
    }
  }
  return k;
}

// kInvalidArgument unless every index is in [-1, length); sets *has_null when one is -1.
Status CheckTakeIndices(const int64_t* indices, int64_t n, int64_t length, bool* has_null) {
  int64_t lo = 0;
  int64_t hi = -1;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, indices[i]);
    hi = std::max(hi, indices[i]);
  }
  if (lo < -1 || hi >= length) {
    const int64_t bad = lo < -1 ? lo : hi;
    return Status::Invalid("index {} is outside an array of {} values", bad, length);
  }
  *has_null = lo == -1;
  return Status::OK();
}

// The validity of the taken values and its null count; no buffer when nothing is null.
template <bool kNullIndex>
Status TakeValidity(const Array& array, const int64_t* indices, int64_t n, MemoryPool* pool,
                    BufferPtr* validity, int64_t* nulls) {
  *nulls = 0;
  if (!kNullIndex && array.null_count() == 0) return Status::OK();
  BufferBuilder bits(pool);
  FLOE_RETURN_NOT_OK(AllocateUninitialized(&bits, bit_util::BytesForBits(n)));
  const int64_t valid =
      internal::GatherValidity<kNullIndex>(array, indices, n, bits.mutable_data(), 0);
  *nulls = n - valid;
  if (*nulls == 0) return Status::OK();
  FLOE_ASSIGN_OR_RAISE(*validity, bits.Finish());
  return Status::OK();
}

// List and map values: runs of consecutive indices become slices, runs of -1 NULLs.
Result<ArrayPtr> TakeWithBuilder(const Array& array, const int64_t* indices, int64_t n,
                                 MemoryPool* pool) {
  auto builder = MakeBuilder(array.type(), pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(n));
  int64_t start = 0;
  while (start < n) {
    int64_t end = start + 1;
    if (indices[start] < 0) {
      while (end < n && indices[end] < 0) ++end;
      FLOE_RETURN_NOT_OK(builder->AppendNulls(end - start));
    } else {
      while (end < n && indices[end] == indices[end - 1] + 1) ++end;
      FLOE_RETURN_NOT_OK(builder->AppendArraySlice(array, indices[start], end - start));
    }
    start = end;
  }
  return builder->Finish();
}

// An array of `type` holding n values in one values buffer of `bytes`, which
// fill(uint8_t* values) writes (booleans, fixed-width values).
template <typename Fill>
Result<ArrayPtr> MakeValuesArray(const TypePtr& type, int64_t n, int64_t bytes, BufferPtr validity,
                                 int64_t nulls, MemoryPool* pool, Fill&& fill) {
  BufferBuilder values(pool);
  FLOE_RETURN_NOT_OK(AllocateUninitialized(&values, bytes));
  fill(values.mutable_data());
  FLOE_ASSIGN_OR_RAISE(BufferPtr out, values.Finish());
  return Array::Make(type, n, {std::move(validity), std::move(out)}, {}, nulls);
}

// A string or binary array of `type` holding n values and `bytes` of data, which
// fill(int32_t* offsets, uint8_t* data) writes (offsets[0] is 0 already); kInvalid naming
// the `operation` past the int32 offsets.
template <typename Fill>
Result<ArrayPtr> MakeBinaryArray(const TypePtr& type, const char* operation, int64_t n,
                                 int64_t bytes, BufferPtr validity, int64_t nulls, MemoryPool* pool,
                                 Fill&& fill) {
  if (bytes > INT32_MAX) {
    return Status::Invalid("{} {}: {} bytes of data exceed the int32 offset limit",
                           type->ToString(), operation, bytes);
  }
  BufferBuilder offsets(pool);
  BufferBuilder data(pool);
  FLOE_RETURN_NOT_OK(AllocateUninitialized(&offsets, (n + 1) * 4));
  FLOE_RETURN_NOT_OK(AllocateUninitialized(&data, bytes));
  int32_t* out_offs = offsets.mutable_data_as<int32_t>();
  out_offs[0] = 0;
  fill(out_offs, data.mutable_data());
  FLOE_ASSIGN_OR_RAISE(BufferPtr offsets_buffer, offsets.Finish());
  FLOE_ASSIGN_OR_RAISE(BufferPtr data_buffer, data.Finish());
  return Array::Make(
      type, n, {std::move(validity), std::move(offsets_buffer), std::move(data_buffer)}, {}, nulls);
}

// TakeArray for indices already checked (each in [0, length), or -1 when kNullIndex).
template <bool kNullIndex>
Result<ArrayPtr> TakeChecked(const Array& array, const int64_t* indices, int64_t n,
                             MemoryPool* pool) {
  const TypeId id = array.type_id();
  if (id == TypeId::kList || id == TypeId::kMap) {
    return TakeWithBuilder(array, indices, n, pool);
  }
  BufferPtr validity;
  int64_t nulls = 0;
  FLOE_RETURN_NOT_OK(TakeValidity<kNullIndex>(array, indices, n, pool, &validity, &nulls));
  switch (id) {
    case TypeId::kBoolean: {
      const uint8_t* src = array.buffer(1)->data();
      const int64_t off = array.offset();
      return MakeValuesArray(array.type(), n, bit_util::BytesForBits(n), std::move(validity), nulls,
                             pool, [&](uint8_t* dst) {
                               WriteBits(n, dst, 0, [&](int64_t i) -> uint64_t {
                                 const int64_t k = indices[i];
                                 if constexpr (kNullIndex) {
                                   if (k < 0) return 0u;
                                 }
                                 return BitAt(src, off + k);
                               });
                             });
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      const int32_t* offs = array.value_offsets();
      return MakeBinaryArray(
          array.type(), "take", n, internal::GatherBinaryBytes<kNullIndex>(offs, indices, n),
          std::move(validity), nulls, pool, [&](int32_t* out_offs, uint8_t* dst) {
            internal::GatherBinary<kNullIndex>(offs, array.buffer(2)->data(), indices, n,
                                               out_offs + 1, dst, 0);
          });
    }
    case TypeId::kStruct: {
      std::vector<ArrayPtr> children;
      children.reserve(static_cast<size_t>(array.num_children()));
      for (int f = 0; f < array.num_children(); ++f) {
        FLOE_ASSIGN_OR_RAISE(ArrayPtr child,
                             TakeChecked<kNullIndex>(*array.field(f), indices, n, pool));
        children.push_back(std::move(child));
      }
      return Array::Make(array.type(), n, {std::move(validity)}, std::move(children), nulls);
    }
    default:
      break;
  }
  const int width = array.type()->byte_width();
  if (width <= 0) {
    return Status::NotSupported("take of {} values", array.type()->ToString());
  }
  return MakeValuesArray(
      array.type(), n, n * width, std::move(validity), nulls, pool, [&](uint8_t* dst) {
        internal::GatherFixedWidth<kNullIndex>(array.buffer(1)->data() + array.offset() * width,
                                               width, indices, n, dst);
      });
}

// A selection as runs of consecutive rows: run r is rows [start, start + length) of
// runs[2r] = start, runs[2r + 1] = length.
using RowRuns = std::vector<int64_t>;

// Average run length from which copying a run at a time beats copying row by row.
constexpr int64_t kMinRunLength = 16;

// The rows a boolean mask selects (NULL counts as false) as runs into *runs, when they
// average at least kMinRunLength rows; otherwise false (and *runs unspecified). Sets
// *count to the number of rows selected either way.
Result<bool> MaskToRuns(const Array& mask, RowRuns* runs, int64_t* count) {
  if (mask.type_id() != TypeId::kBoolean) {
    return Status::Invalid("filter mask must be boolean, not {}", mask.type()->ToString());
  }
  *count = 0;
  runs->clear();
  const int64_t n = mask.length();
  const internal::ValidityKind validity_kind = internal::ClassifyValidity(mask);
  if (n == 0 || validity_kind == internal::ValidityKind::kAllNull) return false;
  const uint8_t* values = mask.buffer(1)->data();
  const uint8_t* validity =
      validity_kind == internal::ValidityKind::kBitmap ? mask.validity() : nullptr;
  const int64_t off = mask.offset();
  auto word_at = [&](int64_t base, int64_t len) {
    uint64_t word = LoadBits(values, off + base, len);
    if (validity != nullptr) word &= LoadBits(validity, off + base, len);
    return word;
  };
  int64_t selected = 0;
  for (int64_t base = 0; base < n; base += 64) {
    selected += std::popcount(word_at(base, std::min<int64_t>(64, n - base)));
  }
  *count = selected;
  const int64_t max_runs = selected / kMinRunLength;
  if (max_runs == 0) return false;
  int64_t start = -1;  // of the open run
  for (int64_t base = 0; base < n; base += 64) {
    const int len = static_cast<int>(std::min<int64_t>(64, n - base));
    const uint64_t word = word_at(base, len);
    int pos = 0;
    while (pos < len) {
      const uint64_t rest = word >> pos;
      if (start >= 0) {
        pos += std::countr_one(rest);
        if (pos >= len) break;
        runs->push_back(start);
        runs->push_back(base + pos - start);
        start = -1;
        if (static_cast<int64_t>(runs->size()) > 2 * max_runs) return false;
      } else {
        if (rest == 0) break;
        pos += std::countr_zero(rest);
        start = base + pos;
      }
    }
  }
  if (start >= 0) {
    runs->push_back(start);
    runs->push_back(n - start);
  }
  return static_cast<int64_t>(runs->size()) <= 2 * max_runs;
}

// The rows of `array` in `runs` (n in all): fixed-width values, string bytes and validity
// are copied a run at a time (a filter that keeps most rows makes long runs).
Result<ArrayPtr> TakeRuns(const Array& array, const RowRuns& runs, int64_t n, MemoryPool* pool) {
  const TypeId id = array.type_id();
  if (id == TypeId::kList || id == TypeId::kMap) {
    std::vector<int64_t> indices;
    indices.reserve(static_cast<size_t>(n));
    for (size_t r = 0; r < runs.size(); r += 2) {
      for (int64_t i = 0; i < runs[r + 1]; ++i) indices.push_back(runs[r] + i);
    }
    return TakeChecked<false>(array, indices.data(), n, pool);
  }
  BufferPtr validity;
  int64_t nulls = 0;
  if (array.null_count() > 0) {
    BufferBuilder bits(pool);
    FLOE_RETURN_NOT_OK(AllocateUninitialized(&bits, bit_util::BytesForBits(n)));
    uint8_t* dst = bits.mutable_data();
    if (internal::ClassifyValidity(array) == internal::ValidityKind::kAllNull) {
      std::memset(dst, 0, static_cast<size_t>(bit_util::BytesForBits(n)));
      nulls = n;
    } else {
      int64_t pos = 0;
      for (size_t r = 0; r < runs.size(); r += 2) {
        internal::CopyBits(array.validity(), array.offset() + runs[r], runs[r + 1], dst, pos);
        pos += runs[r + 1];
      }
      nulls = n - bit_util::CountSetBits(dst, 0, n);
    }
    if (nulls > 0) {
      FLOE_ASSIGN_OR_RAISE(validity, bits.Finish());
    }
  }
  if (id == TypeId::kBoolean) {
    return MakeValuesArray(array.type(), n, bit_util::BytesForBits(n), std::move(validity), nulls,
                           pool, [&](uint8_t* dst) {
                             int64_t pos = 0;
                             for (size_t r = 0; r < runs.size(); r += 2) {
                               internal::CopyBits(array.buffer(1)->data(), array.offset() + runs[r],
                                                  runs[r + 1], dst, pos);
                               pos += runs[r + 1];
                             }
                           });
  }
  if (id == TypeId::kString || id == TypeId::kBinary) {
    const int32_t* offs = array.value_offsets();
    int64_t bytes = 0;
    for (size_t r = 0; r < runs.size(); r += 2) {
      bytes += offs[runs[r] + runs[r + 1]] - offs[runs[r]];
    }
    const uint8_t* src = array.buffer(2)->data();
    return MakeBinaryArray(array.type(), "take", n, bytes, std::move(validity), nulls, pool,
                           [&](int32_t* out_offs, uint8_t* dst) {
                             int64_t row = 0;
                             int64_t pos = 0;
                             for (size_t r = 0; r < runs.size(); r += 2) {
                               const int64_t start = runs[r];
                               const int64_t len = runs[r + 1];
                               const int32_t delta = static_cast<int32_t>(pos - offs[start]);
                               for (int64_t j = 1; j <= len; ++j)
                                 out_offs[row + j] = offs[start + j] + delta;
                               const int64_t size = offs[start + len] - offs[start];
                               if (size > 0)
                                 std::memcpy(dst + pos, src + offs[start],
                                             static_cast<size_t>(size));
                               row += len;
                               pos += size;
                             }
                           });
  }
  if (id == TypeId::kStruct) {
    std::vector<ArrayPtr> children;
    children.reserve(static_cast<size_t>(array.num_children()));
    for (int f = 0; f < array.num_children(); ++f) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr child, TakeRuns(*array.field(f), runs, n, pool));
      children.push_back(std::move(child));
    }
    return Array::Make(array.type(), n, {std::move(validity)}, std::move(children), nulls);
  }
  const int width = array.type()->byte_width();
  if (width <= 0) {
    return Status::NotSupported("take of {} values", array.type()->ToString());
  }
  const uint8_t* src = array.buffer(1)->data() + array.offset() * width;
  return MakeValuesArray(array.type(), n, n * width, std::move(validity), nulls, pool,
                         [&](uint8_t* dst) {
                           for (size_t r = 0; r < runs.size(); r += 2) {
                             const auto size = static_cast<size_t>(runs[r + 1] * width);
                             std::memcpy(dst, src + runs[r] * width, size);
                             dst += size;
                           }
                         });
}

Result<ArrayPtr> TakeChecked(const Array& array, const int64_t* indices, int64_t n, bool has_null,
                             MemoryPool* pool) {
  return has_null ? TakeChecked<true>(array, indices, n, pool)
                  : TakeChecked<false>(array, indices, n, pool);
}

Result<RecordBatchPtr> TakeBatchChecked(const RecordBatch& batch, const int64_t* indices, int64_t n,
                                        bool has_null, MemoryPool* pool) {
  std::vector<ArrayPtr> columns;
  columns.reserve(static_cast<size_t>(batch.num_columns()));
  for (const ArrayPtr& c : batch.columns()) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr taken, TakeChecked(*c, indices, n, has_null, pool));
    columns.push_back(std::move(taken));
  }
  return RecordBatch::Make(batch.schema(), n, std::move(columns));
}

// Scratch space for the indices of a mask of `rows` rows, kept per thread so that
// filtering batch after batch does not allocate (and fault in) a fresh index vector each
// time. Masks of more than kMaxKeptRows rows use `local` instead, so that one huge batch
// does not pin its index memory in every thread for good.
std::vector<int64_t>* FilterScratch(int64_t rows, std::vector<int64_t>* local) {
  constexpr int64_t kMaxKeptRows = int64_t{1} << 17;
  if (rows > kMaxKeptRows) return local;
  thread_local std::vector<int64_t> scratch;
  return &scratch;
}

// ConcatenateArrays for arrays of `type` (checked here), in one allocation per buffer.
Result<ArrayPtr> ConcatenateTyped(const TypePtr& type, const std::vector<ArrayPtr>& arrays,
                                  MemoryPool* pool) {
  int64_t total = 0;
  int64_t nulls = 0;
  for (const ArrayPtr& a : arrays) {
    if (a->type() != type && !a->type()->Equals(*type)) {
      return Status::Invalid("cannot concatenate a {} array with {} arrays", a->type()->ToString(),
                             type->ToString());
    }
    total += a->length();
    nulls += a->null_count();
  }
  const TypeId id = type->id();
  if (id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kMap) {
    if (arrays.empty()) return MakeBuilder(type, pool)->Finish();
    return Concatenate(arrays, pool);
  }
  BufferPtr validity;
  if (nulls > 0) {
    BufferBuilder bits(pool);
    FLOE_RETURN_NOT_OK(AllocateUninitialized(&bits, bit_util::BytesForBits(total)));
    int64_t pos = 0;
    for (const ArrayPtr& a : arrays) {
      switch (internal::ClassifyValidity(*a)) {
        case internal::ValidityKind::kAllValid:
          WriteBits(a->length(), bits.mutable_data(), pos, [](int64_t) -> uint64_t { return 1; });
          break;
        case internal::ValidityKind::kAllNull:
          WriteBits(a->length(), bits.mutable_data(), pos, [](int64_t) -> uint64_t { return 0; });
          break;
        case internal::ValidityKind::kBitmap:
          internal::CopyBits(a->validity(), a->offset(), a->length(), bits.mutable_data(), pos);
          break;
      }
      pos += a->length();
    }
    FLOE_ASSIGN_OR_RAISE(validity, bits.Finish());
  }
  if (id == TypeId::kBoolean) {
    return MakeValuesArray(type, total, bit_util::BytesForBits(total), std::move(validity), nulls,
                           pool, [&](uint8_t* dst) {
                             int64_t pos = 0;
                             for (const ArrayPtr& a : arrays) {
                               internal::CopyBits(a->buffer(1)->data(), a->offset(), a->length(),
                                                  dst, pos);
                               pos += a->length();
                             }
                           });
  }
  if (id == TypeId::kString || id == TypeId::kBinary) {
    int64_t bytes = 0;
    for (const ArrayPtr& a : arrays) {
      const int32_t* offs = a->value_offsets();
      bytes += offs[a->length()] - offs[0];
    }
    return MakeBinaryArray(type, "concatenation", total, bytes, std::move(validity), nulls, pool,
                           [&](int32_t* out_offs, uint8_t* dst) {
                             int64_t row = 0;
                             int64_t base = 0;
                             for (const ArrayPtr& a : arrays) {
                               const int32_t* offs = a->value_offsets();
                               const int64_t len = a->length();
                               const int64_t delta = base - offs[0];
                               for (int64_t i = 1; i <= len; ++i) {
                                 out_offs[row + i] = static_cast<int32_t>(offs[i] + delta);
                               }
                               const int64_t size = offs[len] - offs[0];
                               if (size > 0)
                                 std::memcpy(dst + base, a->buffer(2)->data() + offs[0], size);
                               row += len;
                               base += size;
                             }
                           });
  }
  const int width = type->byte_width();
  if (width <= 0) return Status::NotSupported("concatenation of {} values", type->ToString());
  return MakeValuesArray(type, total, total * width, std::move(validity), nulls, pool,
                         [&](uint8_t* dst) {
                           int64_t pos = 0;
                           for (const ArrayPtr& a : arrays) {
                             const int64_t size = a->length() * width;
                             if (size > 0) {
                               std::memcpy(dst + pos, a->buffer(1)->data() + a->offset() * width,
                                           static_cast<size_t>(size));
                             }
                             pos += size;
                           }
                         });
}

}  // namespace

Result<ArrayPtr> FilterArray(const Array& array, const Array& mask, MemoryPool* pool) {
  if (mask.length() != array.length()) {
    return Status::Invalid("filter mask has {} values for an array of {}", mask.length(),
                           array.length());
  }
  RowRuns runs;
  int64_t count = 0;
  FLOE_ASSIGN_OR_RAISE(const bool by_runs, MaskToRuns(mask, &runs, &count));
  if (count == array.length()) return array.Slice(0, array.length());
  if (by_runs) return TakeRuns(array, runs, count, pool);
  std::vector<int64_t> local;
  std::vector<int64_t>* indices = FilterScratch(mask.length(), &local);
  FLOE_ASSIGN_OR_RAISE(count, MaskToIndices(mask, indices));
  return TakeChecked<false>(array, indices->data(), count, pool);
}

Result<RecordBatchPtr> FilterBatch(const RecordBatch& batch, const Array& mask, MemoryPool* pool) {
  if (mask.length() != batch.num_rows()) {
    return Status::Invalid("filter mask has {} values for a batch of {} rows", mask.length(),
                           batch.num_rows());
  }
  RowRuns runs;
  int64_t count = 0;
  FLOE_ASSIGN_OR_RAISE(const bool by_runs, MaskToRuns(mask, &runs, &count));
  if (count == batch.num_rows()) {
    return RecordBatch::Make(batch.schema(), batch.num_rows(), batch.columns());
  }
  if (!by_runs) {
    std::vector<int64_t> local;
    std::vector<int64_t>* indices = FilterScratch(mask.length(), &local);
    FLOE_ASSIGN_OR_RAISE(count, MaskToIndices(mask, indices));
    return TakeBatchChecked(batch, indices->data(), count, /*has_null=*/false, pool);
  }
  std::vector<ArrayPtr> columns;
  columns.reserve(static_cast<size_t>(batch.num_columns()));
  for (const ArrayPtr& c : batch.columns()) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr taken, TakeRuns(*c, runs, count, pool));
    columns.push_back(std::move(taken));
  }
  return RecordBatch::Make(batch.schema(), count, std::move(columns));
}

Result<ArrayPtr> TakeArray(const Array& array, const int64_t* indices, int64_t n,
                           MemoryPool* pool) {
  bool has_null = false;
  FLOE_RETURN_NOT_OK(CheckTakeIndices(indices, n, array.length(), &has_null));
  return TakeChecked(array, indices, n, has_null, pool);
}

Result<RecordBatchPtr> TakeBatch(const RecordBatch& batch, const int64_t* indices, int64_t n,
                                 MemoryPool* pool) {
  bool has_null = false;
  FLOE_RETURN_NOT_OK(CheckTakeIndices(indices, n, batch.num_rows(), &has_null));
  return TakeBatchChecked(batch, indices, n, has_null, pool);
}

Result<ArrayPtr> ConcatenateArrays(const std::vector<ArrayPtr>& arrays, MemoryPool* pool) {
  if (arrays.empty()) return Status::Invalid("Concatenate needs at least one array");
  if (arrays.size() == 1) return arrays[0];
  return ConcatenateTyped(arrays[0]->type(), arrays, pool);
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
  columns.reserve(static_cast<size_t>(schema->num_fields()));
  std::vector<ArrayPtr> parts(batches.size());
  for (int c = 0; c < schema->num_fields(); ++c) {
    for (size_t b = 0; b < batches.size(); ++b) parts[b] = batches[b]->column(c);
    FLOE_ASSIGN_OR_RAISE(ArrayPtr column, ConcatenateTyped(schema->field(c).type(), parts, pool));
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(schema, rows, std::move(columns));
}

BatchAccumulator::BatchAccumulator(SchemaPtr schema, int64_t batch_size, MemoryPool* pool)
    : schema_(std::move(schema)), batch_size_(std::max<int64_t>(batch_size, 1)), pool_(pool) {
  builders_.reserve(static_cast<size_t>(schema_->num_fields()));
  for (const Field& f : schema_->fields()) builders_.push_back(MakeBuilder(f.type(), pool_));
  data_bytes_.assign(builders_.size(), 0);
}

BatchAccumulator::~BatchAccumulator() = default;
BatchAccumulator::BatchAccumulator(BatchAccumulator&&) noexcept = default;
BatchAccumulator& BatchAccumulator::operator=(BatchAccumulator&&) noexcept = default;

Status BatchAccumulator::Start() {
  // Room for a whole batch up front: fixed-width columns never grow, so each buffer is
  // allocated once and handed over by Finish without a copy. A string column's values take
  // what the last full batch's took: batches of one stream are alike, and the column's
  // buffer would otherwise double its way there (a copy each time) for every batch.
  for (size_t c = 0; c < builders_.size(); ++c) {
    FLOE_RETURN_NOT_OK(builders_[c]->Reserve(batch_size_));
    if (data_bytes_[c] > 0) {
      FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(builders_[c].get())
                             ->ReserveData(std::min(data_bytes_[c], BinaryBuilder::kMaxDataBytes)));
    }
  }
  reserved_ = true;
  return Status::OK();
}

Status BatchAccumulator::Append(const RecordBatch& batch, const int64_t* indices, int64_t n,
                                std::vector<RecordBatchPtr>* out) {
  if (batch.num_columns() != static_cast<int>(builders_.size())) {
    return Status::Invalid("cannot accumulate a batch of {} columns into a schema of {}",
                           batch.num_columns(), builders_.size());
  }
  while (n > 0) {
    if (!reserved_) FLOE_RETURN_NOT_OK(Start());
    const int64_t take = std::min(n, batch_size_ - rows_);
    for (size_t c = 0; c < builders_.size(); ++c) {
      FLOE_RETURN_NOT_OK(
          builders_[c]->AppendIndices(*batch.column(static_cast<int>(c)), indices, take));
    }
    rows_ += take;
    indices += take;
    n -= take;
    if (rows_ == batch_size_) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr full, Flush());
      out->push_back(std::move(full));
    }
  }
  return Status::OK();
}

Status BatchAccumulator::AppendSlice(const RecordBatch& batch, int64_t offset, int64_t length,
                                     std::vector<RecordBatchPtr>* out) {
  if (batch.num_columns() != static_cast<int>(builders_.size())) {
    return Status::Invalid("cannot accumulate a batch of {} columns into a schema of {}",
                           batch.num_columns(), builders_.size());
  }
  while (length > 0) {
    if (!reserved_) FLOE_RETURN_NOT_OK(Start());
    const int64_t take = std::min(length, batch_size_ - rows_);
    for (size_t c = 0; c < builders_.size(); ++c) {
      FLOE_RETURN_NOT_OK(
          builders_[c]->AppendArraySlice(*batch.column(static_cast<int>(c)), offset, take));
    }
    rows_ += take;
    offset += take;
    length -= take;
    if (rows_ == batch_size_) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr full, Flush());
      out->push_back(std::move(full));
    }
  }
  return Status::OK();
}

Result<RecordBatchPtr> BatchAccumulator::Flush() {
  if (rows_ == 0) return RecordBatchPtr();
  std::vector<ArrayPtr> columns;
  columns.reserve(builders_.size());
  for (size_t c = 0; c < builders_.size(); ++c) {
    ArrayBuilder& b = *builders_[c];
    if (rows_ == batch_size_ && b.type()->is_binary_like()) {
      data_bytes_[c] = static_cast<BinaryBuilder&>(b).data_length();
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr column, b.Finish());
    columns.push_back(std::move(column));
  }
  const int64_t rows = rows_;
  rows_ = 0;
  reserved_ = false;
  return RecordBatch::Make(schema_, rows, std::move(columns));
}

}  // namespace floe
