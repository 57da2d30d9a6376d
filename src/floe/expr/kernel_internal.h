#pragma once

// Elementwise loop templates shared by the scalar kernels of the expr module. A kernel
// names the physical C types of its inputs and output and supplies a per-value function;
// the templates handle arrays and scalars in any combination, NULL propagation (the
// result is NULL where any input is NULL), and writing the output.
//
// Physical C types (the `In` and `Out` parameters):
//   bool                  boolean
//   int8_t .. int64_t     integers; int32_t also date, int64_t also time and timestamps
//   float, double         float32, float64
//   Int128                decimal (the unscaled value)
//   std::string_view      string, binary, fixed, uuid (input, and output of views into
//                         an input that stays alive during the call)
//   std::string           string, binary, fixed, uuid (output only)
//
// Three flavours of per-value function, for 1..4 inputs:
//   MapN:          Out fn(In...)                               never fails
//   MapNFallible:  Status fn(In..., Out* out)                  e.g. overflow: the function
//                                                              builds the error naming the
//                                                              value; called for non-NULL
//                                                              rows only
//   MapNNullable:  Status fn(In..., Out* out, bool* is_null)   may also yield NULL for a
//                                                              non-NULL input
// Every flavour returns a scalar when all inputs are scalars, else an array of num_rows.
// The pure flavour may call fn on the (arbitrary but readable) values under NULL slots of
// fixed-width inputs; it must therefore not have side effects or undefined behaviour
// (use the fallible flavour for integer arithmetic that can overflow).

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/builder.h"
#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/expr/physical_expr.h"
#include "floe/type/type_visit.h"

namespace floe::expr::internal {

// Type-level helpers ------------------------------------------------------------------

// TypeTag and VisitPhysicalType: type/type_visit.h.

/// The value of a non-NULL scalar as physical type T (int8/int16 are stored as int32).
template <typename T>
T ScalarValueAs(const Scalar& s) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return std::string_view(s.get<std::string>());
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t>) {
    return static_cast<T>(s.get<int32_t>());
  } else {
    return s.get<T>();
  }
}

/// A scalar of `type` holding `v`.
template <typename T>
Scalar MakeScalarOf(const TypePtr& type, const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return Scalar::Make(type, std::string(v));
  } else if constexpr (std::is_same_v<T, std::string>) {
    return Scalar::Make(type, v);
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t>) {
    return Scalar::Make(type, static_cast<int32_t>(v));
  } else {
    return Scalar::Make(type, v);
  }
}

// Readers ------------------------------------------------------------------------------

/// Value i of an array as physical type T (no NULL check).
template <typename T>
class ArrayReader {
 public:
  ArrayReader() = default;
  explicit ArrayReader(const Array& a) : array_(&a) {
    if constexpr (std::is_same_v<T, bool>) {
      bits_ = a.buffer(1)->data();
      bit_offset_ = a.offset();
    } else if constexpr (std::is_same_v<T, Int128>) {
      bytes_ = a.buffer(1)->data() + a.offset() * 16;
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      if (a.type()->is_binary_like()) {
        offsets_ = a.value_offsets();
        data_ = a.buffer(2) ? a.buffer(2)->data_as<char>() : nullptr;
      } else {
        width_ = a.type()->byte_width();
        data_ = a.buffer(1)->data_as<char>() + a.offset() * width_;
      }
    } else {
      values_ = a.values<T>();
    }
  }
  T operator[](int64_t i) const {
    if constexpr (std::is_same_v<T, bool>) {
      return bit_util::GetBit(bits_, bit_offset_ + i);
    } else if constexpr (std::is_same_v<T, Int128>) {
      Int128 v;
      std::memcpy(&v, bytes_ + i * 16, 16);
      return v;
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      if (offsets_ != nullptr) {
        return {data_ + offsets_[i], static_cast<size_t>(offsets_[i + 1] - offsets_[i])};
      }
      return {data_ + i * width_, static_cast<size_t>(width_)};
    } else {
      return values_[i];
    }
  }
  const Array& array() const { return *array_; }

 private:
  const Array* array_ = nullptr;
  const T* values_ = nullptr;
  const uint8_t* bits_ = nullptr;
  int64_t bit_offset_ = 0;
  const uint8_t* bytes_ = nullptr;
  const int32_t* offsets_ = nullptr;
  const char* data_ = nullptr;
  int64_t width_ = 0;
};

/// The same value for every row.
template <typename T>
class ScalarReader {
 public:
  explicit ScalarReader(T v) : value_(v) {}
  T operator[](int64_t) const { return value_; }

 private:
  T value_;
};

/// Value i of an array or scalar (a branch per access; for loops that are not hot).
template <typename T>
class ValueReader {
 public:
  explicit ValueReader(const ColumnarValue& v) {
    if (v.is_scalar()) {
      is_scalar_ = true;
      scalar_null_ = v.scalar().is_null();
      if (!scalar_null_) scalar_value_ = ScalarValueAs<T>(v.scalar());
    } else {
      array_ = ArrayReader<T>(*v.array());
    }
  }
  bool IsNull(int64_t i) const { return is_scalar_ ? scalar_null_ : array_.array().IsNull(i); }
  T operator[](int64_t i) const { return is_scalar_ ? scalar_value_ : array_[i]; }

 private:
  bool is_scalar_ = false;
  bool scalar_null_ = false;
  T scalar_value_{};
  ArrayReader<T> array_;
};

// Bit packing ---------------------------------------------------------------------------

/// Writes pred(i) for i in [0, n) to bits 0..n-1 of `bits`, overwriting every byte they
/// touch (bits past n in the last byte become 0). pred must be cheap and side-effect
/// free: it is called for rows 64 at a time into bytes, which the compiler can
/// vectorize, and eight bytes of 0/1 are packed into one with a multiplication.
template <typename Pred>
inline void PackBits(int64_t n, uint8_t* bits, Pred&& pred) {
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    alignas(8) uint8_t tmp[64];
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
    for (int j = 0; j < 64; ++j) tmp[j] = static_cast<uint8_t>(pred(i + j));
    for (int k = 0; k < 8; ++k) {
      uint64_t w;
      std::memcpy(&w, tmp + 8 * k, 8);
      // Byte j (0 or 1) lands on bit 56 + j; the other partial products stay below bit
      // 56 at distinct positions or overflow past bit 63, so nothing carries.
      bits[(i >> 3) + k] = static_cast<uint8_t>((w * 0x0102040810204080ULL) >> 56);
    }
  }
  for (; i < n; i += 8) {
    uint8_t byte = 0;
    const int m = static_cast<int>(std::min<int64_t>(8, n - i));
    for (int j = 0; j < m; ++j) byte |= static_cast<uint8_t>(static_cast<bool>(pred(i + j)) << j);
    bits[i >> 3] = byte;
  }
}

// Validity ----------------------------------------------------------------------------

/// The combined validity of several arguments over num_rows rows.
struct CombinedValidity {
  bool all_null = false;  // some scalar argument is NULL, or an array is all NULL
  BufferPtr bitmap;       // bit i (from 0) set when every argument is valid; null = all valid
  int64_t null_count = 0;
  bool IsValid(int64_t i) const { return bitmap == nullptr || bit_util::GetBit(bitmap->data(), i); }
};

/// ANDs the validity of the arguments (arrays of num_rows values, or scalars).
inline Result<CombinedValidity> CombineValidity(const ColumnarValue* const* args, size_t n_args,
                                                int64_t num_rows, MemoryPool* pool) {
  CombinedValidity out;
  std::vector<const Array*> with_nulls;
  for (size_t k = 0; k < n_args; ++k) {
    const ColumnarValue& v = *args[k];
    if (v.is_scalar()) {
      if (v.scalar().is_null()) out.all_null = true;
      continue;
    }
    const Array& a = *v.array();
    if (a.null_count() == 0) continue;
    if (a.null_count() == a.length() || a.validity() == nullptr) {
      out.all_null = true;
      continue;
    }
    with_nulls.push_back(&a);
  }
  if (out.all_null) {
    out.null_count = num_rows;
    return out;
  }
  if (with_nulls.empty()) return out;
  if (with_nulls.size() == 1 && with_nulls[0]->offset() == 0) {
    out.bitmap = with_nulls[0]->buffer(0);
    out.null_count = with_nulls[0]->null_count();
    return out;
  }
  const int64_t bytes = bit_util::BytesForBits(num_rows);
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> bitmap, Buffer::AllocateZeroed(bytes, pool));
  uint8_t* dst = bitmap->mutable_data();
  bit_util::CopyBitmap(with_nulls[0]->validity(), with_nulls[0]->offset(), num_rows, dst, 0);
  if (with_nulls.size() > 1) {
    std::vector<uint8_t> tmp(static_cast<size_t>(bytes));
    for (size_t k = 1; k < with_nulls.size(); ++k) {
      const Array& a = *with_nulls[k];
      const uint8_t* src = a.validity();
      if (a.offset() % 8 == 0) {
        src += a.offset() / 8;
      } else {
        bit_util::CopyBitmap(a.validity(), a.offset(), num_rows, tmp.data(), 0);
        src = tmp.data();
      }
      for (int64_t b = 0; b < bytes; ++b) dst[b] &= src[b];
    }
  }
  out.null_count = num_rows - bit_util::CountSetBits(dst, 0, num_rows);
  out.bitmap = std::move(bitmap);
  return out;
}

/// A NULL result of `type`: a scalar when `as_scalar`, else an all-NULL array.
inline Result<ColumnarValue> NullResult(const TypePtr& type, bool as_scalar, int64_t num_rows,
                                        MemoryPool* pool) {
  if (as_scalar) return ColumnarValue(Scalar::Null(type));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr a, Array::MakeNull(type, num_rows, pool));
  return ColumnarValue(std::move(a));
}

// Output -------------------------------------------------------------------------------

/// Collects num_rows output values of physical type Out into an array of `type`.
/// Fixed-width outputs are written in place (any order); string outputs go through a
/// builder and must be set in ascending row order, each row exactly once.
template <typename Out>
class OutputWriter {
 public:
  static constexpr bool kUsesBuilder =
      std::is_same_v<Out, std::string> || std::is_same_v<Out, std::string_view>;

  OutputWriter(TypePtr type, MemoryPool* pool) : type_(std::move(type)), pool_(pool) {}

  Status Init(int64_t num_rows) {
    num_rows_ = num_rows;
    if constexpr (kUsesBuilder) {
      builder_ = MakeBuilder(type_, pool_);
      FLOE_RETURN_NOT_OK(builder_->Reserve(num_rows));
    } else if constexpr (std::is_same_v<Out, bool>) {
      FLOE_ASSIGN_OR_RAISE(values_,
                           Buffer::AllocateZeroed(bit_util::BytesForBits(num_rows), pool_));
    } else {
      // Not zero-filled: every row is written, by Set or by SetNull.
      const int64_t bytes = num_rows * static_cast<int64_t>(sizeof(Out));
      fixed_ = std::make_unique<BufferBuilder>(pool_);
      FLOE_RETURN_NOT_OK(fixed_->Reserve(bytes));
      fixed_->UnsafeAdvance(bytes);
    }
    return Status::OK();
  }

  /// The raw output values (fixed-width, non-boolean outputs only); every row must be
  /// written through raw(), Set or SetNull before Finish.
  Out* raw() { return fixed_->template mutable_data_as<Out>(); }
  /// The output bitmap (boolean outputs only), zero-initialized.
  uint8_t* bits() { return values_->mutable_data(); }

  Status Set(int64_t i, const Out& v) {
    if constexpr (kUsesBuilder) {
      if (type_->is_binary_like()) return static_cast<BinaryBuilder*>(builder_.get())->Append(v);
      return static_cast<FixedSizeBinaryBuilder*>(builder_.get())->Append(v);
    } else if constexpr (std::is_same_v<Out, bool>) {
      if (v) bit_util::SetBit(values_->mutable_data(), i);
      return Status::OK();
    } else {
      raw()[i] = v;
      return Status::OK();
    }
  }
  /// Marks row i NULL (builder outputs append the NULL; others record it in `validity`,
  /// a writable bitmap the caller owns, and hold a zero value under it).
  Status SetNull(int64_t i) {
    if constexpr (kUsesBuilder) {
      return builder_->AppendNull();
    } else if constexpr (std::is_same_v<Out, bool>) {
      (void)i;
      return Status::OK();
    } else {
      raw()[i] = Out{};
      return Status::OK();
    }
  }

  /// The array, with `validity` (bit i set = valid; null = all valid) for fixed-width
  /// outputs. Builder outputs track their own validity.
  Result<ArrayPtr> Finish(BufferPtr validity, int64_t null_count) {
    if constexpr (kUsesBuilder) {
      (void)validity;
      (void)null_count;
      return builder_->Finish();
    } else {
      if (null_count == 0) validity = nullptr;
      BufferPtr values = values_;
      if constexpr (!std::is_same_v<Out, bool>) {
        FLOE_ASSIGN_OR_RAISE(values, fixed_->Finish());
      }
      return Array::Make(type_, num_rows_, {std::move(validity), std::move(values)}, {},
                         null_count);
    }
  }

 private:
  TypePtr type_;
  MemoryPool* pool_;
  int64_t num_rows_ = 0;
  std::unique_ptr<ArrayBuilder> builder_;
  std::shared_ptr<Buffer> values_;        // boolean outputs
  std::unique_ptr<BufferBuilder> fixed_;  // other fixed-width outputs
};

// The elementwise driver ----------------------------------------------------------------

enum class MapMode { kPure, kFallible, kNullable };

namespace detail {

template <typename Tuple, size_t K, size_t N, typename Fn, typename... Readers>
Status DispatchReaders(const std::array<const ColumnarValue*, N>& args, Fn& body,
                       Readers&... readers) {
  if constexpr (K == N) {
    return body(readers...);
  } else {
    using T = std::tuple_element_t<K, Tuple>;
    if (args[K]->is_scalar()) {
      // NULL scalars never reach here (the result is all NULL); a default stands in.
      ScalarReader<T> r(args[K]->scalar().is_null() ? T{} : ScalarValueAs<T>(args[K]->scalar()));
      return DispatchReaders<Tuple, K + 1, N>(args, body, readers..., r);
    } else {
      ArrayReader<T> r(*args[K]->array());
      return DispatchReaders<Tuple, K + 1, N>(args, body, readers..., r);
    }
  }
}

template <MapMode kMode, typename Out, typename... Ins, typename Fn, size_t N = sizeof...(Ins)>
Result<ColumnarValue> MapImpl(const std::array<const ColumnarValue*, N>& args, int64_t num_rows,
                              const TypePtr& out_type, EvalContext& ctx, Fn& fn) {
  bool all_scalar = true;
  for (const ColumnarValue* a : args) all_scalar &= a->is_scalar();
  FLOE_ASSIGN_OR_RAISE(CombinedValidity validity,
                       all_scalar ? Result<CombinedValidity>(CombinedValidity{})
                                  : CombineValidity(args.data(), N, num_rows, ctx.pool));
  bool any_null_scalar = false;
  for (const ColumnarValue* a : args) any_null_scalar |= a->is_scalar() && a->scalar().is_null();
  if (any_null_scalar || validity.all_null) {
    return NullResult(out_type, all_scalar, num_rows, ctx.pool);
  }

  if (all_scalar) {
    auto call = [&]<size_t... I>(std::index_sequence<I...>)->Result<ColumnarValue> {
      std::tuple<Ins...> values{ScalarValueAs<Ins>(args[I]->scalar())...};
      Out out{};
      if constexpr (kMode == MapMode::kPure) {
        out = fn(std::get<I>(values)...);
      } else if constexpr (kMode == MapMode::kFallible) {
        FLOE_RETURN_NOT_OK(fn(std::get<I>(values)..., &out));
      } else {
        bool is_null = false;
        FLOE_RETURN_NOT_OK(fn(std::get<I>(values)..., &out, &is_null));
        if (is_null) return ColumnarValue(Scalar::Null(out_type));
      }
      return ColumnarValue(MakeScalarOf<Out>(out_type, out));
    };
    return call(std::index_sequence_for<Ins...>{});
  }

  OutputWriter<Out> writer(out_type, ctx.pool);
  FLOE_RETURN_NOT_OK(writer.Init(num_rows));
  const bool has_nulls = validity.bitmap != nullptr;
  const uint8_t* valid_bits = has_nulls ? validity.bitmap->data() : nullptr;
  // Nullable mode writes its own validity (a copy of the combined one).
  std::shared_ptr<Buffer> own_validity;
  int64_t extra_nulls = 0;
  if constexpr (kMode == MapMode::kNullable && !OutputWriter<Out>::kUsesBuilder) {
    FLOE_ASSIGN_OR_RAISE(own_validity,
                         Buffer::AllocateZeroed(bit_util::BytesForBits(num_rows), ctx.pool));
    if (has_nulls) {
      std::memcpy(own_validity->mutable_data(), valid_bits,
                  static_cast<size_t>(bit_util::BytesForBits(num_rows)));
    } else {
      bit_util::SetBitsTo(own_validity->mutable_data(), 0, num_rows, true);
    }
  }

  auto body = [&](const auto&... readers) -> Status {
    if constexpr (kMode == MapMode::kPure && !OutputWriter<Out>::kUsesBuilder) {
      if constexpr (std::is_same_v<Out, bool>) {
        PackBits(num_rows, writer.bits(),
                 [&](int64_t i) { return static_cast<bool>(fn(readers[i]...)); });
      } else {
        Out* out = writer.raw();
        for (int64_t i = 0; i < num_rows; ++i) out[i] = fn(readers[i]...);
      }
      return Status::OK();
    } else {
      for (int64_t i = 0; i < num_rows; ++i) {
        if (has_nulls && !bit_util::GetBit(valid_bits, i)) {
          FLOE_RETURN_NOT_OK(writer.SetNull(i));
          continue;
        }
        if constexpr (kMode == MapMode::kPure) {
          FLOE_RETURN_NOT_OK(writer.Set(i, fn(readers[i]...)));
        } else if constexpr (kMode == MapMode::kFallible) {
          if constexpr (std::is_same_v<Out, bool> || OutputWriter<Out>::kUsesBuilder) {
            Out v{};
            FLOE_RETURN_NOT_OK(fn(readers[i]..., &v));
            FLOE_RETURN_NOT_OK(writer.Set(i, v));
          } else {
            FLOE_RETURN_NOT_OK(fn(readers[i]..., writer.raw() + i));
          }
        } else {
          Out v{};
          bool is_null = false;
          FLOE_RETURN_NOT_OK(fn(readers[i]..., &v, &is_null));
          if (is_null) {
            if constexpr (!OutputWriter<Out>::kUsesBuilder) {
              bit_util::ClearBit(own_validity->mutable_data(), i);
              ++extra_nulls;
            }
            FLOE_RETURN_NOT_OK(writer.SetNull(i));
          } else {
            FLOE_RETURN_NOT_OK(writer.Set(i, v));
          }
        }
      }
      return Status::OK();
    }
  };
  FLOE_RETURN_NOT_OK((DispatchReaders<std::tuple<Ins...>, 0, N>(args, body)));
  ArrayPtr result;
  if constexpr (kMode == MapMode::kNullable && !OutputWriter<Out>::kUsesBuilder) {
    FLOE_ASSIGN_OR_RAISE(result, writer.Finish(own_validity, validity.null_count + extra_nulls));
  } else {
    FLOE_ASSIGN_OR_RAISE(result, writer.Finish(validity.bitmap, validity.null_count));
  }
  return ColumnarValue(std::move(result));
}

}  // namespace detail

/// out[i] = fn(a[i]) with NULL propagation.
template <typename Out, typename In, typename Fn>
Result<ColumnarValue> Map1(const ColumnarValue& a, int64_t num_rows, const TypePtr& out_type,
                           EvalContext& ctx, Fn&& fn) {
  return detail::MapImpl<MapMode::kPure, Out, In>({&a}, num_rows, out_type, ctx, fn);
}
template <typename Out, typename In, typename Fn>
Result<ColumnarValue> Map1Fallible(const ColumnarValue& a, int64_t num_rows,
                                   const TypePtr& out_type, EvalContext& ctx, Fn&& fn) {
  return detail::MapImpl<MapMode::kFallible, Out, In>({&a}, num_rows, out_type, ctx, fn);
}
template <typename Out, typename In, typename Fn>
Result<ColumnarValue> Map1Nullable(const ColumnarValue& a, int64_t num_rows,
                                   const TypePtr& out_type, EvalContext& ctx, Fn&& fn) {
  return detail::MapImpl<MapMode::kNullable, Out, In>({&a}, num_rows, out_type, ctx, fn);
}

/// out[i] = fn(a[i], b[i]) with NULL propagation.
template <typename Out, typename In1, typename In2, typename Fn>
Result<ColumnarValue> Map2(const ColumnarValue& a, const ColumnarValue& b, int64_t num_rows,
                           const TypePtr& out_type, EvalContext& ctx, Fn&& fn) {
  return detail::MapImpl<MapMode::kPure, Out, In1, In2>({&a, &b}, num_rows, out_type, ctx, fn);
}
template <typename Out, typename In1, typename In2, typename Fn>
Result<ColumnarValue> Map2Fallible(const ColumnarValue& a, const ColumnarValue& b, int64_t num_rows,
                                   const TypePtr& out_type, EvalContext& ctx, Fn&& fn) {
  return detail::MapImpl<MapMode::kFallible, Out, In1, In2>({&a, &b}, num_rows, out_type, ctx, fn);
}
template <typename Out, typename In1, typename In2, typename Fn>
Result<ColumnarValue> Map2Nullable(const ColumnarValue& a, const ColumnarValue& b, int64_t num_rows,
                                   const TypePtr& out_type, EvalContext& ctx, Fn&& fn) {
  return detail::MapImpl<MapMode::kNullable, Out, In1, In2>({&a, &b}, num_rows, out_type, ctx, fn);
}

/// out[i] = fn(a[i], b[i], c[i]) with NULL propagation.
template <typename Out, typename In1, typename In2, typename In3, typename Fn>
Result<ColumnarValue> Map3(const ColumnarValue& a, const ColumnarValue& b, const ColumnarValue& c,
                           int64_t num_rows, const TypePtr& out_type, EvalContext& ctx, Fn&& fn) {
  return detail::MapImpl<MapMode::kPure, Out, In1, In2, In3>({&a, &b, &c}, num_rows, out_type, ctx,
                                                             fn);
}
template <typename Out, typename In1, typename In2, typename In3, typename Fn>
Result<ColumnarValue> Map3Fallible(const ColumnarValue& a, const ColumnarValue& b,
                                   const ColumnarValue& c, int64_t num_rows,
                                   const TypePtr& out_type, EvalContext& ctx, Fn&& fn) {
  return detail::MapImpl<MapMode::kFallible, Out, In1, In2, In3>({&a, &b, &c}, num_rows, out_type,
                                                                 ctx, fn);
}
template <typename Out, typename In1, typename In2, typename In3, typename Fn>
Result<ColumnarValue> Map3Nullable(const ColumnarValue& a, const ColumnarValue& b,
                                   const ColumnarValue& c, int64_t num_rows,
                                   const TypePtr& out_type, EvalContext& ctx, Fn&& fn) {
  return detail::MapImpl<MapMode::kNullable, Out, In1, In2, In3>({&a, &b, &c}, num_rows, out_type,
                                                                 ctx, fn);
}

/// out[i] = fn(a[i], b[i], c[i], d[i]) with NULL propagation.
template <typename Out, typename In1, typename In2, typename In3, typename In4, typename Fn>
Result<ColumnarValue> Map4Fallible(const ColumnarValue& a, const ColumnarValue& b,
                                   const ColumnarValue& c, const ColumnarValue& d, int64_t num_rows,
                                   const TypePtr& out_type, EvalContext& ctx, Fn&& fn) {
  return detail::MapImpl<MapMode::kFallible, Out, In1, In2, In3, In4>({&a, &b, &c, &d}, num_rows,
                                                                      out_type, ctx, fn);
}
template <typename Out, typename In1, typename In2, typename In3, typename In4, typename Fn>
Result<ColumnarValue> Map4Nullable(const ColumnarValue& a, const ColumnarValue& b,
                                   const ColumnarValue& c, const ColumnarValue& d, int64_t num_rows,
                                   const TypePtr& out_type, EvalContext& ctx, Fn&& fn) {
  return detail::MapImpl<MapMode::kNullable, Out, In1, In2, In3, In4>({&a, &b, &c, &d}, num_rows,
                                                                      out_type, ctx, fn);
}

/// True when every argument is a scalar (the result may then be a scalar too).
inline bool AllScalars(const std::vector<ColumnarValue>& args) {
  for (const ColumnarValue& a : args) {
    if (!a.is_scalar()) return false;
  }
  return true;
}

}  // namespace floe::expr::internal

// Resolution helpers (type_coercion.cc) -------------------------------------------------

namespace floe::expr::internal {

/// Decimal digits an integer type needs (3, 5, 10, 19); 0 for other types.
int IntegerDigits(TypeId id);
/// decimal(IntegerDigits(id), 0).
TypePtr DecimalForInteger(TypeId id);
/// What passing a `from` value where `to` is expected costs a resolver: 0 when no cast
/// is needed (decimals of any precision count as one type), 1 for an implicit cast, -1
/// when there is none.
int CastCost(const DataType& from, const DataType& to);

}  // namespace floe::expr::internal
