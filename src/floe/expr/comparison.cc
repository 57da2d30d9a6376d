// Comparison operators eq, ne, lt, le, gt, ge and IS [NOT] DISTINCT FROM over every
// non-nested type. Floats follow PostgreSQL: NaN equals NaN and sorts above every other
// value, -0.0 equals 0.0. Strings and binary compare by bytes. Decimals of different
// scales compare by value without a cast.

#include <cmath>

#include "floe/expr/cast_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"

namespace floe::expr::internal {

namespace {

enum class CmpOp { kEq, kNe, kLt, kLe, kGt, kGe };

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

template <CmpOp kOp>
Result<ColumnarValue> CompareKernel(const ResolvedFunction& fn,
                                    const std::vector<ColumnarValue>& args, int64_t n,
                                    EvalContext& ctx) {
  const DataType& ta = *fn.arg_types[0];
  const DataType& tb = *fn.arg_types[1];
  const TypePtr& out = fn.return_type;
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

Result<ResolvedFunction> ResolveComparison(std::string_view name, const std::vector<TypePtr>& t,
                                           int* cost) {
  if (t.size() != 2) return Status::Bind("{} takes two arguments", name);
  if (t[0]->is_nested() || t[1]->is_nested()) {
    return Status::Bind("comparison of nested types is not supported");
  }
  ResolvedFunction fn;
  fn.name = std::string(name);
  fn.return_type = Boolean();
  if (t[0]->id() == TypeId::kDecimal && t[1]->id() == TypeId::kDecimal) {
    // Decimals compare across scales without a cast.
    fn.arg_types = t;
    *cost = 0;
  } else {
    // A mismatch is reported by the registry as "operator does not exist: text = integer".
    Result<TypePtr> common_or = CommonType(t[0], t[1], "comparison");
    if (!common_or.ok()) return Status::Bind("no common type");
    TypePtr common = *common_or;
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

void RegisterComparisonFunctions(ScalarFunctionRegistry& registry) {
  AddComparison<CmpOp::kEq>(registry, "eq");
  AddComparison<CmpOp::kNe>(registry, "ne");
  AddComparison<CmpOp::kLt>(registry, "lt");
  AddComparison<CmpOp::kLe>(registry, "le");
  AddComparison<CmpOp::kGt>(registry, "gt");
  AddComparison<CmpOp::kGe>(registry, "ge");
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
