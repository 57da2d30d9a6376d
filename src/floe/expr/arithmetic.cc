// Arithmetic operators: add, subtract, multiply, divide, modulo, negate over integers,
// floats and decimals, date +- integer, date - date, interval_add, and the bitwise
// operators over integers.
//
// Semantics follow PostgreSQL: integer overflow is an error ("integer out of range"),
// integer division truncates toward zero and the remainder takes the dividend's sign,
// division by zero is an error for every numeric type (floats included, but NaN / 0 is NaN),
// and float results that overflow to infinity or underflow to zero are errors.
//
// Decimal result types (p = precision, s = scale):
//   add, subtract   scale max(s1, s2), precision max(p1 - s1, p2 - s2) + scale + 1
//   multiply        scale s1 + s2, precision p1 + p2
//   modulo          scale max(s1, s2), precision max(p1 - s1, p2 - s2) + scale
// Division with a decimal operand is numeric division (numeric_functions.cc): its scale
// depends on the values (PostgreSQL's select_div_scale), so its result is numeric.
// Precisions are capped at 38; a value that no longer fits is "numeric field overflow".

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "floe/expr/cast_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/interval_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/type/sql_type_name.h"

namespace floe::expr::internal {

namespace {

template <typename T>
Status IntOutOfRange() {
  return Status::Invalid("{} out of range",
                         SqlTypeName(std::is_same_v<T, int16_t>   ? TypeId::kInt16
                                     : std::is_same_v<T, int32_t> ? TypeId::kInt32
                                                                  : TypeId::kInt64));
}

Status DivisionByZero() { return Status::Invalid("division by zero"); }

Status NumericOverflow() {
  return Status::Invalid("numeric field overflow: the result does not fit in 38 digits");
}

Int128 Abs128(Int128 v) { return v < 0 ? -v : v; }

// a / b rounded half away from zero (b != 0).
Int128 RoundDiv(Int128 a, Int128 b) {
  Int128 q = a / b;
  Int128 r = a % b;
  if (r != 0) {
    const Int128 ar = Abs128(r);
    const Int128 ab = Abs128(b);
    if (ar >= ab - ar) q += ((a < 0) != (b < 0)) ? -1 : 1;
  }
  return q;
}

constexpr Int128 kPow10To38 =
    static_cast<Int128>(10'000'000'000'000'000'000ULL) * 10'000'000'000'000'000'000ULL;

bool FitsDecimal38(Int128 v) { return v < kPow10To38 && v > -kPow10To38; }

// True when every value of a decimal operand of `type` fits in 64 bits: by its precision
// (at most 18 digits), or by a look at the values (those under NULL slots included, so
// the answer errs on the side of "no").
bool FitsInt64(const ColumnarValue& v, const DataType& type) {
  if (type.precision() <= 18) return true;
  if (v.is_scalar()) {
    if (v.scalar().is_null()) return true;
    const Int128 x = v.scalar().get<Int128>();
    return x == static_cast<int64_t>(x);
  }
  const Array& a = *v.array();
  const uint8_t* p = a.buffer(1)->data() + a.offset() * 16;
  const int64_t n = a.length();
  // A value fits when its high word is 0 with the low word's top bit clear, or all ones
  // with it set: exactly when hi + (lo >> 63) wraps to 0. Blocks of 8 vectorize.
  auto word = [p](int64_t i, int half) {
    uint64_t w;
    std::memcpy(&w, p + i * 16 + half * 8, 8);
    return w;
  };
  uint64_t acc = 0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) acc |= word(i + j, 1) + (word(i + j, 0) >> 63);
  }
  for (; i < n; ++i) acc |= word(i, 1) + (word(i, 0) >> 63);
  return acc == 0;
}

// Numeric type ranks (int8 < int16 < int32 < int64 < decimal < float32 < float64).
int Rank(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return 0;
    case TypeId::kInt16:
      return 1;
    case TypeId::kInt32:
      return 2;
    case TypeId::kInt64:
      return 3;
    case TypeId::kDecimal:
      return 4;
    case TypeId::kFloat32:
      return 5;
    case TypeId::kFloat64:
      return 6;
    default:
      return -1;
  }
}

TypePtr AsDecimal(const TypePtr& t) {
  return t->id() == TypeId::kDecimal ? t : DecimalForInteger(t->id());
}

int IntDigits(const DataType& t) { return t.precision() - t.scale(); }

TypePtr DecimalResult(std::string_view op, const DataType& a, const DataType& b) {
  const int s1 = a.scale(), s2 = b.scale();
  if (op == "add" || op == "subtract") {
    const int s = std::max(s1, s2);
    return Decimal(std::min(38, std::max(IntDigits(a), IntDigits(b)) + s + 1), s);
  }
  if (op == "multiply") {
    const int s = std::min(38, s1 + s2);
    return Decimal(std::min(38, std::max(a.precision() + b.precision(), s)), s);
  }
  // modulo
  const int s = std::max(s1, s2);
  return Decimal(std::max(1, std::min(38, std::max(IntDigits(a), IntDigits(b)) + s)), s);
}

int ChangeCost(const TypePtr& from, const TypePtr& to) { return from->id() == to->id() ? 0 : 1; }

Result<ResolvedFunction> ResolveBinary(std::string_view op, const std::vector<TypePtr>& t,
                                       int* cost) {
  if (t.size() != 2) return Status::Bind("{} takes two arguments", op);
  const TypePtr& a = t[0];
  const TypePtr& b = t[1];
  ResolvedFunction fn;
  fn.name = std::string(op);
  const TypeId ia = a->id(), ib = b->id();
  // numeric with a float is double precision arithmetic (numeric's own operators are in
  // numeric_functions.cc).
  if ((a->is_numeric() && b->is_floating()) || (a->is_floating() && b->is_numeric())) {
    if (op == "modulo") return Status::Bind("no modulo for floating point");
    fn.arg_types = {Float64(), Float64()};
    fn.return_type = Float64();
    *cost = ChangeCost(a, Float64()) + ChangeCost(b, Float64());
    return fn;
  }
  const int ra = Rank(ia), rb = Rank(ib);
  if (ra >= 0 && rb >= 0) {
    TypePtr arg_a, arg_b;
    if (a->is_floating() || b->is_floating()) {
      if (op == "modulo") return Status::Bind("no modulo for floating point");
      const TypePtr f = ia == TypeId::kFloat32 && ib == TypeId::kFloat32 ? Float32() : Float64();
      arg_a = arg_b = fn.return_type = f;
    } else if (op == "divide" && (ia == TypeId::kDecimal || ib == TypeId::kDecimal)) {
      // Division with a decimal is numeric division, whose scale depends on the values.
      return Status::Bind("no arithmetic");
    } else if (ia == TypeId::kDecimal || ib == TypeId::kDecimal) {
      arg_a = AsDecimal(a);
      arg_b = AsDecimal(b);
      fn.return_type = DecimalResult(op, *arg_a, *arg_b);
    } else {
      TypePtr wider = ra >= rb ? a : b;
      if (wider->id() == TypeId::kInt8) wider = Int16();
      arg_a = arg_b = fn.return_type = wider;
    }
    *cost = ChangeCost(a, arg_a) + ChangeCost(b, arg_b);
    fn.arg_types = {arg_a, arg_b};
    return fn;
  }
  const bool a_int = a->is_integer() && ia != TypeId::kInt64;
  const bool b_int = b->is_integer() && ib != TypeId::kInt64;
  if (op == "add" && ia == TypeId::kDate && b_int) {
    fn.arg_types = {a, Int32()};
    fn.return_type = Date();
    *cost = ChangeCost(b, Int32());
    return fn;
  }
  if (op == "add" && a_int && ib == TypeId::kDate) {
    fn.arg_types = {Int32(), b};
    fn.return_type = Date();
    *cost = ChangeCost(a, Int32());
    return fn;
  }
  if (op == "subtract" && ia == TypeId::kDate && b_int) {
    fn.arg_types = {a, Int32()};
    fn.return_type = Date();
    *cost = ChangeCost(b, Int32());
    return fn;
  }
  if (op == "subtract" && ia == TypeId::kDate && ib == TypeId::kDate) {
    fn.arg_types = {a, b};
    fn.return_type = Int32();
    *cost = 0;
    return fn;
  }
  return Status::Bind("no arithmetic");
}

Result<ResolvedFunction> ResolveNegate(const std::vector<TypePtr>& t, int* cost) {
  if (t.size() != 1 || Rank(t[0]->id()) < 0) return Status::Bind("no negate");
  ResolvedFunction fn;
  fn.name = "negate";
  TypePtr arg = t[0]->id() == TypeId::kInt8 ? Int16() : t[0];
  *cost = ChangeCost(t[0], arg);
  fn.arg_types = {arg};
  fn.return_type = arg;
  return fn;
}

// Integer kernels ------------------------------------------------------------------------

template <typename T>
Result<ColumnarValue> IntegerBinary(std::string_view op, const ColumnarValue& a,
                                    const ColumnarValue& b, int64_t n, const TypePtr& type,
                                    EvalContext& ctx) {
  if (op == "add") {
    return Map2Fallible<T, T, T>(a, b, n, type, ctx, [](T x, T y, T* out) -> Status {
      if (__builtin_add_overflow(x, y, out)) [[unlikely]]
        return IntOutOfRange<T>();
      return Status::OK();
    });
  }
  if (op == "subtract") {
    return Map2Fallible<T, T, T>(a, b, n, type, ctx, [](T x, T y, T* out) -> Status {
      if (__builtin_sub_overflow(x, y, out)) [[unlikely]]
        return IntOutOfRange<T>();
      return Status::OK();
    });
  }
  if (op == "multiply") {
    return Map2Fallible<T, T, T>(a, b, n, type, ctx, [](T x, T y, T* out) -> Status {
      if (__builtin_mul_overflow(x, y, out)) [[unlikely]]
        return IntOutOfRange<T>();
      return Status::OK();
    });
  }
  if (op == "divide") {
    return Map2Fallible<T, T, T>(a, b, n, type, ctx, [](T x, T y, T* out) -> Status {
      if (y == 0) [[unlikely]]
        return DivisionByZero();
      if (y == -1) {
        if (x == std::numeric_limits<T>::min()) [[unlikely]]
          return IntOutOfRange<T>();
        *out = static_cast<T>(-x);
        return Status::OK();
      }
      *out = static_cast<T>(x / y);
      return Status::OK();
    });
  }
  // modulo
  return Map2Fallible<T, T, T>(a, b, n, type, ctx, [](T x, T y, T* out) -> Status {
    if (y == 0) [[unlikely]]
      return DivisionByZero();
    *out = y == -1 ? T{0} : static_cast<T>(x % y);
    return Status::OK();
  });
}

// PostgreSQL's float arithmetic (float.h's float8_pl, _mi, _mul, _div and their float4
// twins): a finite result of finite operands that becomes infinite is "value out of range:
// overflow", a product or quotient of non-zero operands that becomes zero "... underflow";
// infinities and NaN in, infinities and NaN out; x / 0 is an error unless x is NaN.
Status FloatOverflow() { return Status::Invalid("value out of range: overflow"); }
Status FloatUnderflow() { return Status::Invalid("value out of range: underflow"); }

template <typename T>
Result<ColumnarValue> FloatBinary(std::string_view op, const ColumnarValue& a,
                                  const ColumnarValue& b, int64_t n, const TypePtr& type,
                                  EvalContext& ctx) {
  if (op == "add" || op == "subtract") {
    const bool add = op == "add";
    return Map2Fallible<T, T, T>(a, b, n, type, ctx, [add](T x, T y, T* out) -> Status {
      *out = add ? x + y : x - y;
      if (std::isinf(*out) && !std::isinf(x) && !std::isinf(y)) [[unlikely]]
        return FloatOverflow();
      return Status::OK();
    });
  }
  if (op == "multiply") {
    return Map2Fallible<T, T, T>(a, b, n, type, ctx, [](T x, T y, T* out) -> Status {
      *out = x * y;
      if (std::isinf(*out) && !std::isinf(x) && !std::isinf(y)) [[unlikely]]
        return FloatOverflow();
      if (*out == 0 && x != 0 && y != 0) [[unlikely]]
        return FloatUnderflow();
      return Status::OK();
    });
  }
  if (op == "divide") {
    return Map2Fallible<T, T, T>(a, b, n, type, ctx, [](T x, T y, T* out) -> Status {
      if (y == 0 && !std::isnan(x)) [[unlikely]]
        return DivisionByZero();
      *out = x / y;
      if (std::isinf(*out) && !std::isinf(x)) [[unlikely]]
        return FloatOverflow();
      if (*out == 0 && x != 0 && !std::isinf(y)) [[unlikely]]
        return FloatUnderflow();
      return Status::OK();
    });
  }
  return Status::Internal("no float kernel for {}", op);
}

// Decimal kernels ------------------------------------------------------------------------

Result<ColumnarValue> DecimalBinary(std::string_view op, const ColumnarValue& a,
                                    const ColumnarValue& b, int64_t n, const DataType& ta,
                                    const DataType& tb, const TypePtr& type, EvalContext& ctx) {
  const int s1 = ta.scale(), s2 = tb.scale(), s = type->scale();
  if (op == "add" || op == "subtract") {
    const bool sub = op == "subtract";
    const Int128 fa = Pow10(s - s1), fb = Pow10(s - s2);
    // Without the 38-digit cap the result cannot overflow.
    const bool check = type->precision() >= 38;
    if (s1 == s2 && !check) {
      if (sub) {
        return Map2<Int128, Int128, Int128>(a, b, n, type, ctx,
                                            [](Int128 x, Int128 y) { return x - y; });
      }
      return Map2<Int128, Int128, Int128>(a, b, n, type, ctx,
                                          [](Int128 x, Int128 y) { return x + y; });
    }
    if (!check && type->precision() <= 18) {
      // Every operand and result fits in 64 bits.
      const int64_t fa64 = static_cast<int64_t>(fa), fb64 = static_cast<int64_t>(fb);
      if (sub) {
        return Map2<Int128, Int128, Int128>(a, b, n, type, ctx, [=](Int128 x, Int128 y) {
          return static_cast<Int128>(static_cast<int64_t>(x) * fa64 -
                                     static_cast<int64_t>(y) * fb64);
        });
      }
      return Map2<Int128, Int128, Int128>(a, b, n, type, ctx, [=](Int128 x, Int128 y) {
        return static_cast<Int128>(static_cast<int64_t>(x) * fa64 + static_cast<int64_t>(y) * fb64);
      });
    }
    if (!check) {
      if (sub) {
        return Map2<Int128, Int128, Int128>(a, b, n, type, ctx,
                                            [=](Int128 x, Int128 y) { return x * fa - y * fb; });
      }
      return Map2<Int128, Int128, Int128>(a, b, n, type, ctx,
                                          [=](Int128 x, Int128 y) { return x * fa + y * fb; });
    }
    if (s - s1 <= 18 && s - s2 <= 18 && FitsInt64(a, ta) && FitsInt64(b, tb)) {
      // |x * fa|, |y * fb| < 2^63 * 10^18 < 2^123, so the result stays below 2^124 <
      // 10^38: no overflow and no 38-digit excess.
      const int64_t fa64 = static_cast<int64_t>(fa), fb64 = static_cast<int64_t>(fb);
      if (sub) {
        return Map2<Int128, Int128, Int128>(a, b, n, type, ctx, [=](Int128 x, Int128 y) {
          return static_cast<Int128>(static_cast<int64_t>(x)) * fa64 -
                 static_cast<Int128>(static_cast<int64_t>(y)) * fb64;
        });
      }
      return Map2<Int128, Int128, Int128>(a, b, n, type, ctx, [=](Int128 x, Int128 y) {
        return static_cast<Int128>(static_cast<int64_t>(x)) * fa64 +
               static_cast<Int128>(static_cast<int64_t>(y)) * fb64;
      });
    }
    return Map2Fallible<Int128, Int128, Int128>(
        a, b, n, type, ctx, [=](Int128 x, Int128 y, Int128* out) -> Status {
          Int128 xs, ys;
          if (__builtin_mul_overflow(x, fa, &xs) || __builtin_mul_overflow(y, fb, &ys) ||
              (sub ? __builtin_sub_overflow(xs, ys, out) : __builtin_add_overflow(xs, ys, out)))
              [[unlikely]] {
            return NumericOverflow();
          }
          if (check && !FitsDecimal38(*out)) [[unlikely]]
            return NumericOverflow();
          return Status::OK();
        });
  }
  if (op == "multiply") {
    const int excess = s1 + s2 - s;
    const bool check = ta.precision() + tb.precision() > 38 || excess > 0;
    if (!check) {
      if (ta.precision() <= 18 && tb.precision() <= 18) {
        // Both fit in 64 bits: one widening 64x64 -> 128-bit multiply.
        return Map2<Int128, Int128, Int128>(a, b, n, type, ctx, [](Int128 x, Int128 y) {
          return static_cast<Int128>(static_cast<int64_t>(x)) * static_cast<int64_t>(y);
        });
      }
      return Map2<Int128, Int128, Int128>(a, b, n, type, ctx,
                                          [](Int128 x, Int128 y) { return x * y; });
    }
    if (excess == 0 && FitsInt64(a, ta) && FitsInt64(b, tb)) {
      // |x|, |y| <= 2^63, so |x * y| <= 2^126 < 10^38: the 64 x 64 -> 128-bit product
      // neither overflows nor exceeds 38 digits.
      return Map2<Int128, Int128, Int128>(a, b, n, type, ctx, [](Int128 x, Int128 y) {
        return static_cast<Int128>(static_cast<int64_t>(x)) * static_cast<int64_t>(y);
      });
    }
    const Int128 div = Pow10(excess);
    return Map2Fallible<Int128, Int128, Int128>(a, b, n, type, ctx,
                                                [=](Int128 x, Int128 y, Int128* out) -> Status {
                                                  Int128 p;
                                                  if (__builtin_mul_overflow(x, y, &p)) [[unlikely]]
                                                    return NumericOverflow();
                                                  if (excess > 0) p = RoundDiv(p, div);
                                                  if (!FitsDecimal38(p)) [[unlikely]]
                                                    return NumericOverflow();
                                                  *out = p;
                                                  return Status::OK();
                                                });
  }
  // modulo: both at the result scale, remainder with the dividend's sign.
  const Int128 fa = Pow10(s - s1), fb = Pow10(s - s2);
  return Map2Fallible<Int128, Int128, Int128>(
      a, b, n, type, ctx, [=](Int128 x, Int128 y, Int128* out) -> Status {
        if (y == 0) [[unlikely]]
          return DivisionByZero();
        Int128 xs, ys;
        if (__builtin_mul_overflow(x, fa, &xs) || __builtin_mul_overflow(y, fb, &ys)) [[unlikely]] {
          return NumericOverflow();
        }
        *out = xs % ys;
        return Status::OK();
      });
}

// Dates ----------------------------------------------------------------------------------

Status DateOutOfRange() { return Status::Invalid("date out of range"); }
Status TimestampOutOfRange() { return Status::Invalid("timestamp out of range"); }

Result<ColumnarValue> DateArithmetic(std::string_view op, const ResolvedFunction& fn,
                                     const std::vector<ColumnarValue>& args, int64_t n,
                                     EvalContext& ctx) {
  const bool date_first = fn.arg_types[0]->id() == TypeId::kDate;
  if (fn.return_type->id() == TypeId::kInt32) {
    return Map2Fallible<int32_t, int32_t, int32_t>(
        args[0], args[1], n, fn.return_type, ctx, [](int32_t x, int32_t y, int32_t* out) {
          if (x == kDateInfinity || x == kDateMinusInfinity || y == kDateInfinity ||
              y == kDateMinusInfinity) [[unlikely]] {
            return Status::Invalid("cannot subtract infinite dates");
          }
          if (__builtin_sub_overflow(x, y, out)) [[unlikely]]
            return IntOutOfRange<int32_t>();
          return Status::OK();
        });
  }
  const bool sub = op == "subtract";
  const ColumnarValue& date = date_first ? args[0] : args[1];
  const ColumnarValue& days = date_first ? args[1] : args[0];
  return Map2Fallible<int32_t, int32_t, int32_t>(
      date, days, n, fn.return_type, ctx, [sub](int32_t d, int32_t k, int32_t* out) -> Status {
        if (d == kDateInfinity || d == kDateMinusInfinity) [[unlikely]] {
          *out = d;  // infinity plus days is infinity
          return Status::OK();
        }
        const int64_t result = sub ? int64_t{d} - k : int64_t{d} + k;
        if (!IsValidDate(result)) [[unlikely]] {
          return DateOutOfRange();
        }
        *out = static_cast<int32_t>(result);
        return Status::OK();
      });
}

Result<ResolvedFunction> ResolveIntervalAdd(const std::vector<TypePtr>& t, int* cost) {
  if (t.size() != 4) return Status::Bind("interval_add takes four arguments");
  const TypeId id = t[0]->id();
  ResolvedFunction fn;
  fn.name = "interval_add";
  if (id == TypeId::kDate) {
    fn.return_type = Timestamp();
  } else if (t[0]->is_timestamp()) {
    fn.return_type = t[0];
  } else {
    return Status::Bind("interval_add needs a date or timestamp");
  }
  if (!t[1]->is_integer() || !t[2]->is_integer() || !t[3]->is_integer()) {
    return Status::Bind("interval_add needs integer interval parts");
  }
  fn.arg_types = {t[0], Int32(), Int32(), Int64()};
  *cost = ChangeCost(t[1], Int32()) + ChangeCost(t[2], Int32()) + ChangeCost(t[3], Int64());
  return fn;
}

Result<ColumnarValue> IntervalAddKernel(const ResolvedFunction& fn,
                                        const std::vector<ColumnarValue>& args, int64_t n,
                                        EvalContext& ctx) {
  const TypeId id = fn.arg_types[0]->id();
  if (id == TypeId::kDate) {
    return Map4Fallible<int64_t, int32_t, int32_t, int32_t, int64_t>(
        args[0], args[1], args[2], args[3], n, fn.return_type, ctx,
        [](int32_t d, int32_t months, int32_t days, int64_t micros, int64_t* out) {
          return AddIntervalToDate(d, months, days, micros, out);
        });
  }
  const bool nanos = id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs;
  const int64_t per_day = nanos ? kMicrosPerDay * 1000 : kMicrosPerDay;
  const int64_t per_micro = nanos ? 1000 : 1;
  return Map4Fallible<int64_t, int64_t, int32_t, int32_t, int64_t>(
      args[0], args[1], args[2], args[3], n, fn.return_type, ctx,
      [=](int64_t ts, int32_t months, int32_t days, int64_t micros, int64_t* out) {
        return AddIntervalOrError(ts, per_day, months, days, micros, per_micro, out);
      });
}

// Dispatch -------------------------------------------------------------------------------

Result<ColumnarValue> BinaryKernel(std::string_view op, const ResolvedFunction& fn,
                                   const std::vector<ColumnarValue>& args, int64_t n,
                                   EvalContext& ctx) {
  if (args.size() != 2) return Status::Internal("{} needs two arguments", op);
  const TypePtr& type = fn.return_type;
  const TypeId a_id = fn.arg_types[0]->id();
  const TypeId b_id = fn.arg_types[1]->id();
  if (a_id == TypeId::kDate || b_id == TypeId::kDate) return DateArithmetic(op, fn, args, n, ctx);
  switch (type->id()) {
    case TypeId::kInt16:
      return IntegerBinary<int16_t>(op, args[0], args[1], n, type, ctx);
    case TypeId::kInt32:
      return IntegerBinary<int32_t>(op, args[0], args[1], n, type, ctx);
    case TypeId::kInt64:
      return IntegerBinary<int64_t>(op, args[0], args[1], n, type, ctx);
    case TypeId::kFloat32:
      return FloatBinary<float>(op, args[0], args[1], n, type, ctx);
    case TypeId::kFloat64:
      return FloatBinary<double>(op, args[0], args[1], n, type, ctx);
    case TypeId::kDecimal:
      return DecimalBinary(op, args[0], args[1], n, *fn.arg_types[0], *fn.arg_types[1], type, ctx);
    default:
      return Status::Internal("no {} kernel for {}", op, type->ToString());
  }
}

Result<ColumnarValue> NegateKernel(const ResolvedFunction& fn,
                                   const std::vector<ColumnarValue>& args, int64_t n,
                                   EvalContext& ctx) {
  const TypePtr& type = fn.return_type;
  auto negate_int = [&]<typename T>(TypeTag<T>) {
    return Map1Fallible<T, T>(args[0], n, type, ctx, [](T x, T* out) -> Status {
      if (x == std::numeric_limits<T>::min()) [[unlikely]]
        return IntOutOfRange<T>();
      *out = static_cast<T>(-x);
      return Status::OK();
    });
  };
  switch (type->id()) {
    case TypeId::kInt16:
      return negate_int(TypeTag<int16_t>{});
    case TypeId::kInt32:
      return negate_int(TypeTag<int32_t>{});
    case TypeId::kInt64:
      return negate_int(TypeTag<int64_t>{});
    case TypeId::kFloat32:
      return Map1<float, float>(args[0], n, type, ctx, [](float x) { return -x; });
    case TypeId::kFloat64:
      return Map1<double, double>(args[0], n, type, ctx, [](double x) { return -x; });
    case TypeId::kDecimal:
      return Map1<Int128, Int128>(args[0], n, type, ctx, [](Int128 x) { return -x; });
    default:
      return Status::Internal("no negate kernel for {}", type->ToString());
  }
}

// Bitwise operators -----------------------------------------------------------------------
// PostgreSQL's int2/int4/int8 &, |, # (xor), ~ and the shifts: the operands of &, | and #
// meet at the wider integer type, a shift keeps its left operand's type and takes an int4
// count. The count is taken modulo the (promoted) type's width, as PostgreSQL's int4shl
// compiled for the machines it runs on does (the C standard leaves larger counts
// undefined); >> is arithmetic (the sign is kept).

Result<ResolvedFunction> ResolveBitwise(std::string_view op, const std::vector<TypePtr>& t,
                                        int* cost) {
  const bool unary = op == "bitwise_not";
  const bool shift = op == "bitwise_shift_left" || op == "bitwise_shift_right";
  if (t.size() != (unary ? 1u : 2u))
    return Status::Bind("{} takes {} arguments", op, unary ? 1 : 2);
  for (const TypePtr& type : t) {
    if (!type->is_integer()) return Status::Bind("no {} for {}", op, type->ToString());
  }
  ResolvedFunction fn;
  fn.name = std::string(op);
  TypePtr left = t[0]->id() == TypeId::kInt8 ? Int16() : t[0];
  if (unary) {
    fn.arg_types = {left};
  } else if (shift) {
    if (t[1]->id() == TypeId::kInt64) return Status::Bind("no {} by a bigint count", op);
    fn.arg_types = {left, Int32()};
  } else {
    TypePtr wider = Rank(t[0]->id()) >= Rank(t[1]->id()) ? t[0] : t[1];
    if (wider->id() == TypeId::kInt8) wider = Int16();
    left = wider;
    fn.arg_types = {wider, wider};
  }
  fn.return_type = left;
  *cost = 0;
  for (size_t i = 0; i < t.size(); ++i) *cost += ChangeCost(t[i], fn.arg_types[i]);
  return fn;
}

template <typename T>
Result<ColumnarValue> BitwiseOf(std::string_view op, const std::vector<ColumnarValue>& args,
                                int64_t n, const TypePtr& type, EvalContext& ctx) {
  // A smallint is shifted as the int it is promoted to in C, then cut back to 16 bits.
  using P = std::conditional_t<(sizeof(T) < 4), int32_t, T>;
  using U = std::make_unsigned_t<P>;
  constexpr uint32_t kBits = sizeof(P) * 8;
  if (op == "bitwise_not") {
    return Map1<T, T>(args[0], n, type, ctx, [](T x) { return static_cast<T>(~x); });
  }
  if (op == "bitwise_and") {
    return Map2<T, T, T>(args[0], args[1], n, type, ctx,
                         [](T x, T y) { return static_cast<T>(x & y); });
  }
  if (op == "bitwise_or") {
    return Map2<T, T, T>(args[0], args[1], n, type, ctx,
                         [](T x, T y) { return static_cast<T>(x | y); });
  }
  if (op == "bitwise_xor") {
    return Map2<T, T, T>(args[0], args[1], n, type, ctx,
                         [](T x, T y) { return static_cast<T>(x ^ y); });
  }
  if (op == "bitwise_shift_left") {
    return Map2<T, T, int32_t>(args[0], args[1], n, type, ctx, [](T x, int32_t count) {
      return static_cast<T>(static_cast<U>(static_cast<P>(x))
                            << (static_cast<uint32_t>(count) % kBits));
    });
  }
  return Map2<T, T, int32_t>(args[0], args[1], n, type, ctx, [](T x, int32_t count) {
    return static_cast<T>(static_cast<P>(x) >> (static_cast<uint32_t>(count) % kBits));
  });
}

Result<ColumnarValue> BitwiseKernel(std::string_view op, const ResolvedFunction& fn,
                                    const std::vector<ColumnarValue>& args, int64_t n,
                                    EvalContext& ctx) {
  switch (fn.return_type->id()) {
    case TypeId::kInt16:
      return BitwiseOf<int16_t>(op, args, n, fn.return_type, ctx);
    case TypeId::kInt32:
      return BitwiseOf<int32_t>(op, args, n, fn.return_type, ctx);
    case TypeId::kInt64:
      return BitwiseOf<int64_t>(op, args, n, fn.return_type, ctx);
    default:
      return Status::Internal("no {} kernel for {}", op, fn.return_type->ToString());
  }
}

}  // namespace

// PostgreSQL's timestamp + interval (floe::AddInterval) with its range error: past int64,
// or (microseconds) before 4714-11-24 BC.
Status AddIntervalToDate(int32_t d, int32_t months, int32_t days, int64_t micros, int64_t* out) {
  if (d == kDateInfinity || d == kDateMinusInfinity) [[unlikely]] {
    *out = d == kDateInfinity ? kTimestampInfinity : kTimestampMinusInfinity;
    return Status::OK();
  }
  if (d < kMinTimestampDays || d >= kEndTimestampDays) return TimestampOutOfRange();
  return AddIntervalOrError(int64_t{d} * kMicrosPerDay, kMicrosPerDay, months, days, micros, 1,
                            out);
}

Status AddIntervalOrError(int64_t value, int64_t unit_per_day, int32_t months, int32_t days,
                          int64_t micros, int64_t unit_per_micro, int64_t* out) {
  if (value == kTimestampInfinity || value == kTimestampMinusInfinity) [[unlikely]] {
    *out = value;  // infinity plus an interval is infinity
    return Status::OK();
  }
  int64_t units = 0;
  if (__builtin_mul_overflow(micros, unit_per_micro, &units) ||
      !floe::AddInterval(value, unit_per_day, months, days, units, out) ||
      (unit_per_micro == 1 && *out < kMinTimestampDays * kMicrosPerDay)) {
    return TimestampOutOfRange();
  }
  return Status::OK();
}

void RegisterArithmeticFunctions(ScalarFunctionRegistry& registry) {
  for (const char* op : {"add", "subtract", "multiply", "divide", "modulo"}) {
    const std::string name = op;
    registry.Add(ScalarFunctionDef{
        name, name == "modulo" ? std::vector<std::string>{"mod"} : std::vector<std::string>{},
        [name](const std::vector<TypePtr>& t, int* cost) { return ResolveBinary(name, t, cost); },
        [name](const ResolvedFunction& fn, const std::vector<ColumnarValue>& args, int64_t n,
               EvalContext& ctx) { return BinaryKernel(name, fn, args, n, ctx); }});
  }
  registry.Add(ScalarFunctionDef{"negate", {}, ResolveNegate, NegateKernel});
  for (const char* op : {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
                         "bitwise_shift_left", "bitwise_shift_right"}) {
    const std::string name = op;
    registry.Add(ScalarFunctionDef{
        name,
        {},
        [name](const std::vector<TypePtr>& t, int* cost) { return ResolveBitwise(name, t, cost); },
        [name](const ResolvedFunction& fn, const std::vector<ColumnarValue>& args, int64_t n,
               EvalContext& ctx) { return BitwiseKernel(name, fn, args, n, ctx); }});
  }
  registry.Add(ScalarFunctionDef{"interval_add", {}, ResolveIntervalAdd, IntervalAddKernel});
}

}  // namespace floe::expr::internal
