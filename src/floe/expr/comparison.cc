// Comparison operators eq, ne, lt, le, gt, ge and IS [NOT] DISTINCT FROM over every
// non-nested type, and x op ANY|ALL over a list (any_eq, ..., all_ge). Floats follow PostgreSQL:
// NaN equals NaN and sorts above every other value, -0.0 equals 0.0. Strings and binary compare by
// bytes. Decimals of different scales compare by value without a cast.

#include <algorithm>
#include <cmath>
#include <cstring>

#include "floe/batch/value_key.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/comparison_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"
#include "floe/type/sql_type_name.h"

namespace floe::expr::internal {

namespace {

template <typename T>
int Compare3(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return std::isnan(b) ? 0 : 1;
    if (std::isnan(b)) return -1;
  }
  return (a > b) - (a < b);
}

template <CmpOp kOp, typename T>
bool Apply(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const int c = Compare3(a, b);
    if constexpr (kOp == CmpOp::kEq) return c == 0;
    if constexpr (kOp == CmpOp::kNe) return c != 0;
    if constexpr (kOp == CmpOp::kLt) return c < 0;
    if constexpr (kOp == CmpOp::kLe) return c <= 0;
    if constexpr (kOp == CmpOp::kGt) return c > 0;
    if constexpr (kOp == CmpOp::kGe) return c >= 0;
  } else {
    if constexpr (kOp == CmpOp::kEq) return a == b;
    if constexpr (kOp == CmpOp::kNe) return a != b;
    if constexpr (kOp == CmpOp::kLt) return a < b;
    if constexpr (kOp == CmpOp::kLe) return a <= b;
    if constexpr (kOp == CmpOp::kGt) return a > b;
    if constexpr (kOp == CmpOp::kGe) return a >= b;
  }
  return false;
}

// Compares decimals at different scales: a * 10^(s - sa) against b * 10^(s - sb). A
// product that overflows is larger in magnitude than any value of the other side.
int CompareScaled(Int128 a, Int128 fa, Int128 b, Int128 fb) {
  Int128 x, y;
  const bool ox = __builtin_mul_overflow(a, fa, &x);
  const bool oy = __builtin_mul_overflow(b, fb, &y);
  if (ox || oy) {
    if (ox && !oy) return a < 0 ? -1 : 1;
    if (oy && !ox) return b < 0 ? 1 : -1;
    // Both overflow: only possible with equal factors when both exceed the range; compare
    // the unscaled values.
    return (a > b) - (a < b);
  }
  return (x > y) - (x < y);
}

template <CmpOp kOp>
bool FromCmp(int c) {
  if constexpr (kOp == CmpOp::kEq) return c == 0;
  if constexpr (kOp == CmpOp::kNe) return c != 0;
  if constexpr (kOp == CmpOp::kLt) return c < 0;
  if constexpr (kOp == CmpOp::kLe) return c <= 0;
  if constexpr (kOp == CmpOp::kGt) return c > 0;
  if constexpr (kOp == CmpOp::kGe) return c >= 0;
  return false;
}

// Calls fn.template operator()<kOp>() for the runtime operator `op`.
template <typename Fn>
void DispatchOp(CmpOp op, Fn&& fn) {
  switch (op) {
    case CmpOp::kEq:
      return fn.template operator()<CmpOp::kEq>();
    case CmpOp::kNe:
      return fn.template operator()<CmpOp::kNe>();
    case CmpOp::kLt:
      return fn.template operator()<CmpOp::kLt>();
    case CmpOp::kLe:
      return fn.template operator()<CmpOp::kLe>();
    case CmpOp::kGt:
      return fn.template operator()<CmpOp::kGt>();
    case CmpOp::kGe:
      return fn.template operator()<CmpOp::kGe>();
  }
}

// `constant op value` as `value Flip(op) constant`.
CmpOp Flip(CmpOp op) {
  switch (op) {
    case CmpOp::kLt:
      return CmpOp::kGt;
    case CmpOp::kLe:
      return CmpOp::kGe;
    case CmpOp::kGt:
      return CmpOp::kLt;
    case CmpOp::kGe:
      return CmpOp::kLe;
    default:
      return op;
  }
}

// Up to eight bytes of a bitmap as one little-endian word (bytes past `bytes` read 0).
uint64_t LoadWord(const uint8_t* bits, int64_t bytes) {
  uint64_t w = 0;
  std::memcpy(&w, bits, static_cast<size_t>(std::min<int64_t>(8, bytes)));
  return w;
}
void StoreWord(uint8_t* bits, int64_t bytes, uint64_t w) {
  std::memcpy(bits, &w, static_cast<size_t>(std::min<int64_t>(8, bytes)));
}

// Clears each set bit i of `bits` (n rows) for which keep(i) is false.
template <typename Keep>
void RefineBits(int64_t n, uint8_t* bits, Keep&& keep) {
  const int64_t bytes = bit_util::BytesForBits(n);
  for (int64_t b = 0; b < bytes; b += 8) {
    uint64_t word = LoadWord(bits + b, bytes - b);
    if (word == 0) continue;
    uint64_t out = word;
    const int64_t base = b * 8;
    while (word != 0) {
      const int j = __builtin_ctzll(word);
      word &= word - 1;
      const int64_t i = base + j;
      if (i < n && !keep(i)) out &= ~(uint64_t{1} << j);
    }
    StoreWord(bits + b, bytes - b, out);
  }
}

}  // namespace

std::optional<CmpOp> CmpOpFromName(std::string_view name) {
  if (name == "eq") return CmpOp::kEq;
  if (name == "ne") return CmpOp::kNe;
  if (name == "lt") return CmpOp::kLt;
  if (name == "le") return CmpOp::kLe;
  if (name == "gt") return CmpOp::kGt;
  if (name == "ge") return CmpOp::kGe;
  return std::nullopt;
}

std::optional<ConstantComparison> ConstantComparison::Make(CmpOp op, const DataType& value_type,
                                                           const DataType& constant_type,
                                                           const Scalar& constant,
                                                           bool constant_first) {
  const TypeId id = value_type.id();
  // Intervals compare by span and character(n) without its padding, not by their bytes.
  if (constant.is_null() || value_type.is_nested() || id == TypeId::kBoolean ||
      constant_type.id() != id || value_type.extension() != constant_type.extension() ||
      HasValueKey(value_type) || value_type.is_bpchar()) {
    return std::nullopt;
  }
  const bool supported =
      VisitPhysicalType(id, []<typename T>(TypeTag<T>) { return !std::is_same_v<T, void>; });
  if (!supported) return std::nullopt;
  if (constant_first) op = Flip(op);
  if (id != TypeId::kDecimal) {
    return ConstantComparison(op, id, constant, Outcome::kCompare);
  }
  // value * 10^-sv op c * 10^-sc, in the values' scale sv.
  Int128 c = constant.get<Int128>();
  const int sv = value_type.scale(), sc = constant_type.scale();
  Outcome outcome = Outcome::kCompare;
  if (sc < sv) {
    Int128 scaled;
    if (__builtin_mul_overflow(c, Pow10(sv - sc), &scaled)) {
      // The constant lies beyond every 128-bit value: above them all when positive.
      const bool above = c > 0;
      switch (op) {
        case CmpOp::kEq:
          outcome = Outcome::kAllFalse;
          break;
        case CmpOp::kNe:
          outcome = Outcome::kAllTrue;
          break;
        case CmpOp::kLt:
        case CmpOp::kLe:
          outcome = above ? Outcome::kAllTrue : Outcome::kAllFalse;
          break;
        case CmpOp::kGt:
        case CmpOp::kGe:
          outcome = above ? Outcome::kAllFalse : Outcome::kAllTrue;
          break;
      }
    } else {
      c = scaled;
    }
  } else if (sc > sv) {
    // c = q * 10^d + r with 0 <= r < 10^d; a value v (at scale sv) compares with c as
    // v * 10^d does, so when r != 0: v < c <=> v <= q, v > c <=> v > q, v = c never.
    const Int128 p = Pow10(sc - sv);
    Int128 q = c / p;
    const Int128 r = c % p;
    if (r < 0) q -= 1;
    if (r != 0) {
      switch (op) {
        case CmpOp::kEq:
          outcome = Outcome::kAllFalse;
          break;
        case CmpOp::kNe:
          outcome = Outcome::kAllTrue;
          break;
        case CmpOp::kLt:
        case CmpOp::kLe:
          op = CmpOp::kLe;
          break;
        case CmpOp::kGt:
        case CmpOp::kGe:
          op = CmpOp::kGt;
          break;
      }
    }
    c = q;
  }
  return ConstantComparison(op, id, Scalar::Make(constant.type(), c), outcome);
}

void ConstantComparison::Compare(const Array& values, uint8_t* bits) const {
  const int64_t n = values.length();
  if (outcome_ != Outcome::kCompare) {
    std::memset(bits, outcome_ == Outcome::kAllTrue ? 0xFF : 0,
                static_cast<size_t>(bit_util::BytesForBits(n)));
    return;
  }
  VisitPhysicalType(physical_, [&]<typename T>(TypeTag<T>) {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      // Values and constant by value in the predicate, so the loop vectorizes.
      const T* v = values.values<T>();
      const T c = ScalarValueAs<T>(constant_);
      DispatchOp(op_, [&]<CmpOp kOp>() {
        PackBits(n, bits, [v, c](int64_t i) { return Apply<kOp, T>(v[i], c); });
      });
    } else if constexpr (std::is_same_v<T, Int128>) {
      // Compared as (high signed, low unsigned) word pairs, without branches.
      const uint8_t* v = values.buffer(1)->data() + values.offset() * 16;
      const Int128 c = ScalarValueAs<T>(constant_);
      DispatchOp(op_, [&]<CmpOp kOp>() {
        PackBits(n, bits, [v, c](int64_t i) {
          Int128 x;
          std::memcpy(&x, v + i * 16, 16);
          return Apply<kOp, Int128>(x, c);
        });
      });
    } else if constexpr (!std::is_same_v<T, void> && !std::is_same_v<T, bool>) {
      const T c = ScalarValueAs<T>(constant_);
      const ArrayReader<T> r(values);
      DispatchOp(op_, [&]<CmpOp kOp>() {
        PackBits(n, bits, [&](int64_t i) { return Apply<kOp, T>(r[i], c); });
      });
    }
  });
}

void ConstantComparison::Refine(const Array& values, uint8_t* bits) const {
  const int64_t n = values.length();
  if (values.null_count() == n && n > 0) {
    std::memset(bits, 0, static_cast<size_t>(bit_util::BytesForBits(n)));
    return;
  }
  if (outcome_ == Outcome::kAllFalse) {
    std::memset(bits, 0, static_cast<size_t>(bit_util::BytesForBits(n)));
    return;
  }
  const uint8_t* valid = values.null_count() > 0 ? values.validity() : nullptr;
  const int64_t offset = values.offset();
  if (outcome_ == Outcome::kAllTrue) {
    if (valid != nullptr) {
      RefineBits(n, bits, [&](int64_t i) { return bit_util::GetBit(valid, offset + i); });
    }
    return;
  }
  VisitPhysicalType(physical_, [&]<typename T>(TypeTag<T>) {
    if constexpr (!std::is_same_v<T, void> && !std::is_same_v<T, bool>) {
      const T c = ScalarValueAs<T>(constant_);
      const ArrayReader<T> r(values);
      DispatchOp(op_, [&]<CmpOp kOp>() {
        if (valid == nullptr) {
          RefineBits(n, bits, [&](int64_t i) { return Apply<kOp, T>(r[i], c); });
        } else {
          RefineBits(n, bits, [&](int64_t i) {
            return bit_util::GetBit(valid, offset + i) && Apply<kOp, T>(r[i], c);
          });
        }
      });
    }
  });
}

void AndValidity(const Array& values, uint8_t* bits) {
  const int64_t n = values.length();
  if (values.null_count() == 0) return;
  const int64_t bytes = bit_util::BytesForBits(n);
  if (values.validity() == nullptr) {
    std::memset(bits, 0, static_cast<size_t>(bytes));
    return;
  }
  const uint8_t* src = values.validity();
  std::vector<uint8_t> tmp;
  if (values.offset() % 8 == 0) {
    src += values.offset() / 8;
  } else {
    tmp.assign(static_cast<size_t>(bytes), 0);
    bit_util::CopyBitmap(values.validity(), values.offset(), n, tmp.data(), 0);
    src = tmp.data();
  }
  for (int64_t b = 0; b < bytes; ++b) bits[b] &= src[b];
}

namespace {

template <CmpOp kOp>
Result<ColumnarValue> CompareKernel(const ResolvedFunction& fn,
                                    const std::vector<ColumnarValue>& args, int64_t n,
                                    EvalContext& ctx) {
  const DataType& ta = *fn.arg_types[0];
  const DataType& tb = *fn.arg_types[1];
  const TypePtr& out = fn.return_type;
  if (args[0].is_scalar() != args[1].is_scalar()) {
    // An array against a constant: one tight loop writing the result bits.
    const bool constant_first = args[0].is_scalar();
    const ColumnarValue& values = constant_first ? args[1] : args[0];
    const ColumnarValue& constant = constant_first ? args[0] : args[1];
    std::optional<ConstantComparison> cmp = ConstantComparison::Make(
        kOp, constant_first ? tb : ta, constant_first ? ta : tb, constant.scalar(), constant_first);
    if (cmp) {
      const ColumnarValue* arg_ptrs[] = {&values};
      FLOE_ASSIGN_OR_RAISE(CombinedValidity validity, CombineValidity(arg_ptrs, 1, n, ctx.pool));
      if (validity.all_null) return NullResult(out, false, n, ctx.pool);
      FLOE_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> bits,
                           Buffer::AllocateZeroed(bit_util::BytesForBits(n), ctx.pool));
      cmp->Compare(*values.array(), bits->mutable_data());
      FLOE_ASSIGN_OR_RAISE(
          ArrayPtr result,
          Array::Make(out, n,
                      {validity.null_count > 0 ? validity.bitmap : nullptr, std::move(bits)}, {},
                      validity.null_count));
      return ColumnarValue(std::move(result));
    }
  }
  if (ta.id() == TypeId::kDecimal && ta.scale() != tb.scale()) {
    const int s = std::max(ta.scale(), tb.scale());
    const Int128 fa = Pow10(s - ta.scale()), fb = Pow10(s - tb.scale());
    return Map2<bool, Int128, Int128>(args[0], args[1], n, out, ctx, [=](Int128 a, Int128 b) {
      return FromCmp<kOp>(CompareScaled(a, fa, b, fb));
    });
  }
  return VisitPhysicalType(ta.id(), [&]<typename T>(TypeTag<T>) -> Result<ColumnarValue> {
    if constexpr (std::is_same_v<T, void>) {
      return Status::NotSupported("comparison of {} values", ta.ToString());
    } else {
      return Map2<bool, T, T>(args[0], args[1], n, out, ctx,
                              [](T a, T b) { return Apply<kOp, T>(a, b); });
    }
  });
}

// IS [NOT] DISTINCT FROM: NULL-safe equality, never NULL.
template <bool kDistinct>
Result<ColumnarValue> DistinctKernel(const ResolvedFunction& fn,
                                     const std::vector<ColumnarValue>& args, int64_t n,
                                     EvalContext& ctx) {
  const DataType& ta = *fn.arg_types[0];
  const DataType& tb = *fn.arg_types[1];
  const int s = std::max(ta.scale(), tb.scale());
  const Int128 fa = ta.id() == TypeId::kDecimal ? Pow10(s - ta.scale()) : 1;
  const Int128 fb = tb.id() == TypeId::kDecimal ? Pow10(s - tb.scale()) : 1;
  const bool scalar = args[0].is_scalar() && args[1].is_scalar();
  const int64_t rows = scalar ? 1 : n;
  return VisitPhysicalType(ta.id(), [&]<typename T>(TypeTag<T>) -> Result<ColumnarValue> {
    if constexpr (std::is_same_v<T, void>) {
      return Status::NotSupported("IS DISTINCT FROM of {} values", ta.ToString());
    } else {
      ValueReader<T> a(args[0]), b(args[1]);
      FLOE_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> bits,
                           Buffer::AllocateZeroed(bit_util::BytesForBits(rows), ctx.pool));
      for (int64_t i = 0; i < rows; ++i) {
        const bool na = a.IsNull(i), nb = b.IsNull(i);
        bool distinct;
        if (na || nb) {
          distinct = na != nb;
        } else if constexpr (std::is_same_v<T, Int128>) {
          distinct = CompareScaled(a[i], fa, b[i], fb) != 0;
        } else {
          distinct = Compare3<T>(a[i], b[i]) != 0;
        }
        if (distinct == kDistinct) bit_util::SetBit(bits->mutable_data(), i);
      }
      if (scalar) return ColumnarValue(Scalar::Bool(bit_util::GetBit(bits->data(), 0)));
      FLOE_ASSIGN_OR_RAISE(ArrayPtr out, Array::Make(Boolean(), n, {nullptr, bits}, {}, 0));
      return ColumnarValue(std::move(out));
    }
  });
}

// x op ANY|ALL (list): per row, the OR (ANY) or the AND (ALL) of `x op e` over the list's
// elements in three-valued logic, as PostgreSQL defines it for arrays. An empty list gives
// false (ANY) or true (ALL) whatever x is; a NULL list gives NULL.
template <CmpOp kOp, bool kAll>
Result<ColumnarValue> QuantifiedKernel(const ResolvedFunction& fn,
                                       const std::vector<ColumnarValue>& args, int64_t n,
                                       EvalContext& ctx) {
  const DataType& ta = *fn.arg_types[0];
  if (args[1].is_scalar()) {
    if (args[1].scalar().is_null()) {
      return NullResult(fn.return_type, args[0].is_scalar(), n, ctx.pool);
    }
    return Status::NotSupported("{} over a constant list", fn.name);
  }
  const Array& lists = *args[1].array();
  return VisitPhysicalType(ta.id(), [&]<typename T>(TypeTag<T>) -> Result<ColumnarValue> {
    if constexpr (std::is_same_v<T, void>) {
      return Status::NotSupported("ANY/ALL over {} values", ta.ToString());
    } else {
      ValueReader<T> value(args[0]);
      ValueReader<T> elements{ColumnarValue(lists.child(0))};
      const int64_t bytes = bit_util::BytesForBits(n);
      FLOE_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> bits, Buffer::AllocateZeroed(bytes, ctx.pool));
      FLOE_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> valid, Buffer::AllocateZeroed(bytes, ctx.pool));
      int64_t null_count = 0;
      auto set = [&](int64_t i, bool v) {
        bit_util::SetBit(valid->mutable_data(), i);
        if (v) bit_util::SetBit(bits->mutable_data(), i);
      };
      for (int64_t i = 0; i < n; ++i) {
        if (lists.IsNull(i)) {
          ++null_count;
          continue;
        }
        const int64_t begin = lists.ListBegin(i), end = lists.ListEnd(i);
        if (begin == end) {
          set(i, kAll);
          continue;
        }
        if (value.IsNull(i)) {
          ++null_count;
          continue;
        }
        const T v = value[i];
        bool saw_null = false, decided = false;
        for (int64_t j = begin; j < end; ++j) {
          if (elements.IsNull(j)) {
            saw_null = true;
          } else if (Apply<kOp, T>(v, elements[j]) != kAll) {
            // ANY: one true decides; ALL: one false does.
            set(i, !kAll);
            decided = true;
            break;
          }
        }
        if (decided) continue;
        if (saw_null) {
          ++null_count;
        } else {
          set(i, kAll);
        }
      }
      FLOE_ASSIGN_OR_RAISE(
          ArrayPtr out,
          Array::Make(fn.return_type, n, {null_count > 0 ? std::move(valid) : nullptr, bits}, {},
                      null_count));
      return ColumnarValue(std::move(out));
    }
  });
}

// any_<op> / all_<op>(x T, list<T>): the binder brings x and the elements to one type.
Result<ResolvedFunction> ResolveQuantified(std::string_view name, const std::vector<TypePtr>& t,
                                           int* cost) {
  if (t.size() != 2) return Status::Bind("{} takes two arguments", name);
  if (t[1]->id() != TypeId::kList) {
    return Status::Bind("op ANY/ALL (array) requires array on right side");
  }
  const TypePtr& element = t[1]->field(0).type();
  if (t[0]->is_nested() || !t[0]->Equals(*element) || HasValueKey(*element)) {
    return Status::Bind("{} compares {} values with elements of {}", name, SqlTypeName(*t[0]),
                        SqlTypeName(*t[1]));
  }
  ResolvedFunction fn;
  fn.name = std::string(name);
  fn.arg_types = t;
  fn.return_type = Boolean();
  fn.null_if_any_arg_null = false;
  *cost = 0;
  return fn;
}

template <CmpOp kOp>
void AddQuantified(ScalarFunctionRegistry& registry, const std::string& op) {
  for (const bool all : {false, true}) {
    const std::string n = (all ? "all_" : "any_") + op;
    registry.Add(ScalarFunctionDef{
        n,
        {},
        [n](const std::vector<TypePtr>& t, int* cost) { return ResolveQuantified(n, t, cost); },
        all ? ScalarKernel(QuantifiedKernel<kOp, true>)
            : ScalarKernel(QuantifiedKernel<kOp, false>)});
  }
}

Result<ResolvedFunction> ResolveComparison(std::string_view name, const std::vector<TypePtr>& t,
                                           int* cost) {
  if (t.size() != 2) return Status::Bind("{} takes two arguments", name);
  if (t[0]->is_nested() || t[1]->is_nested()) {
    return Status::Bind("comparison of nested types is not supported");
  }
  // jsonb compares by its own order (json_functions.cc); json has no comparison.
  if (t[0]->is_json() || t[1]->is_json()) return Status::Bind("no common type");
  // Intervals compare by span (interval_functions.cc), not by their bytes.
  if (t[0]->is_interval() || t[1]->is_interval()) return Status::Bind("no common type");
  ResolvedFunction fn;
  fn.name = std::string(name);
  fn.return_type = Boolean();
  const auto exact = [](const DataType& x) {
    return x.extension() == Extension::kNone && (x.is_integer() || x.id() == TypeId::kDecimal);
  };
  if (t[0]->id() == TypeId::kDecimal && t[1]->id() == TypeId::kDecimal) {
    // Decimals compare across scales without a cast.
    fn.arg_types = t;
    *cost = 0;
  } else if (exact(*t[0]) && exact(*t[1]) &&
             (t[0]->id() == TypeId::kDecimal || t[1]->id() == TypeId::kDecimal)) {
    // An integer and a decimal compare as decimals (the integer at scale 0).
    const TypePtr a = t[0]->is_integer() ? DecimalForInteger(t[0]->id()) : t[0];
    const TypePtr b = t[1]->is_integer() ? DecimalForInteger(t[1]->id()) : t[1];
    fn.arg_types = {a, b};
    *cost = CastCost(*t[0], *a) + CastCost(*t[1], *b);
  } else {
    // A mismatch is reported by the registry as "operator does not exist: text = integer".
    Result<TypePtr> common_or = CommonType(t[0], t[1], "comparison");
    if (!common_or.ok()) return Status::Bind("no common type");
    TypePtr common = *common_or;
    // Numerics compare by value (numeric_functions.cc), not by their bytes.
    if (common->is_numeric()) return Status::Bind("no common type");
    // character(n) compares without its trailing spaces: as text (the cast drops them).
    if (common->is_bpchar()) common = String();
    fn.arg_types = {common, common};
    *cost = CastCost(*t[0], *common) + CastCost(*t[1], *common);
  }
  if (name == "is_distinct_from" || name == "is_not_distinct_from") {
    fn.null_if_any_arg_null = false;
  }
  return fn;
}

template <CmpOp kOp>
void AddComparison(ScalarFunctionRegistry& registry, const char* name) {
  const std::string n = name;
  registry.Add(ScalarFunctionDef{
      n,
      {},
      [n](const std::vector<TypePtr>& t, int* cost) { return ResolveComparison(n, t, cost); },
      CompareKernel<kOp>});
}

}  // namespace

namespace {

// A comparison of two values of a value-key type, by CompareByValueKey.
template <typename Pred>
ScalarKernel ValueKeyCompareKernel(Pred pred) {
  return [pred](const ResolvedFunction& f, const std::vector<ColumnarValue>& args, int64_t n,
                EvalContext& ctx) -> Result<ColumnarValue> {
    const TypePtr type = f.arg_types[0];
    return Map2<bool, std::string_view, std::string_view>(
        args[0], args[1], n, f.return_type, ctx,
        [pred, &type](std::string_view a, std::string_view b) {
          return pred(CompareByValueKey(*type, a, b));
        });
  };
}

// IS [NOT] DISTINCT FROM of a value-key type: NULLs equal each other and differ from every
// value.
ScalarKernel ValueKeyDistinctKernel(bool distinct) {
  return [distinct](const ResolvedFunction& f, const std::vector<ColumnarValue>& args, int64_t n,
                    EvalContext& ctx) -> Result<ColumnarValue> {
    const DataType& type = *f.arg_types[0];
    ValueReader<std::string_view> a(args[0]);
    ValueReader<std::string_view> b(args[1]);
    const bool scalar = AllScalars(args);
    const int64_t rows = scalar ? 1 : n;
    BooleanBuilder builder(ctx.pool);
    FLOE_RETURN_NOT_OK(builder.Reserve(rows));
    for (int64_t i = 0; i < rows; ++i) {
      const bool na = a.IsNull(i), nb = b.IsNull(i);
      const bool equal = na || nb ? na && nb : CompareByValueKey(type, a[i], b[i]) == 0;
      builder.UnsafeAppend(distinct ? !equal : equal);
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
    if (scalar) return ColumnarValue(ScalarAt(*out, 0));
    return ColumnarValue(std::move(out));
  };
}

}  // namespace

void RegisterValueKeyComparisons(ScalarFunctionRegistry& registry, const TypePtr& type) {
  auto resolver = [type](std::string name, bool distinct) -> ScalarResolver {
    return [type, name, distinct](const std::vector<TypePtr>& args,
                                  int* cost) -> Result<ResolvedFunction> {
      if (!AcceptsAll(args, {type, type}, cost)) return NoSuchFunction(name, args);
      return Resolution(name, {type, type}, Boolean(), /*null_if_any_arg_null=*/!distinct);
    };
  };
  registry.Add(
      {"eq", {}, resolver("eq", false), ValueKeyCompareKernel([](int c) { return c == 0; })});
  registry.Add(
      {"ne", {}, resolver("ne", false), ValueKeyCompareKernel([](int c) { return c != 0; })});
  registry.Add(
      {"lt", {}, resolver("lt", false), ValueKeyCompareKernel([](int c) { return c < 0; })});
  registry.Add(
      {"le", {}, resolver("le", false), ValueKeyCompareKernel([](int c) { return c <= 0; })});
  registry.Add(
      {"gt", {}, resolver("gt", false), ValueKeyCompareKernel([](int c) { return c > 0; })});
  registry.Add(
      {"ge", {}, resolver("ge", false), ValueKeyCompareKernel([](int c) { return c >= 0; })});
  registry.Add(
      {"is_distinct_from", {}, resolver("is_distinct_from", true), ValueKeyDistinctKernel(true)});
  registry.Add({"is_not_distinct_from",
                {},
                resolver("is_not_distinct_from", true),
                ValueKeyDistinctKernel(false)});
}

void RegisterComparisonFunctions(ScalarFunctionRegistry& registry) {
  // PostgreSQL's booleq and boolne, the functions behind = and <> on booleans.
  registry.Add({"booleq",
                {},
                Signatures("booleq", {{Boolean(), Boolean()}}, Boolean()),
                CompareKernel<CmpOp::kEq>});
  registry.Add({"boolne",
                {},
                Signatures("boolne", {{Boolean(), Boolean()}}, Boolean()),
                CompareKernel<CmpOp::kNe>});
  AddComparison<CmpOp::kEq>(registry, "eq");
  AddComparison<CmpOp::kNe>(registry, "ne");
  AddComparison<CmpOp::kLt>(registry, "lt");
  AddComparison<CmpOp::kLe>(registry, "le");
  AddComparison<CmpOp::kGt>(registry, "gt");
  AddComparison<CmpOp::kGe>(registry, "ge");
  AddQuantified<CmpOp::kEq>(registry, "eq");
  AddQuantified<CmpOp::kNe>(registry, "ne");
  AddQuantified<CmpOp::kLt>(registry, "lt");
  AddQuantified<CmpOp::kLe>(registry, "le");
  AddQuantified<CmpOp::kGt>(registry, "gt");
  AddQuantified<CmpOp::kGe>(registry, "ge");
  for (const char* name : {"is_distinct_from", "is_not_distinct_from"}) {
    const std::string n = name;
    registry.Add(ScalarFunctionDef{
        n,
        {},
        [n](const std::vector<TypePtr>& t, int* cost) { return ResolveComparison(n, t, cost); },
        n == "is_distinct_from" ? ScalarKernel(DistinctKernel<true>)
                                : ScalarKernel(DistinctKernel<false>)});
  }
}

}  // namespace floe::expr::internal
