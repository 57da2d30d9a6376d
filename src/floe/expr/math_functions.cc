// Math functions with PostgreSQL's signatures, rounding rules and errors: abs, round, floor,
// ceil, trunc, power, sqrt, cbrt, ln, log, log10, exp, sign, pi, random, degrees,
// radians, trigonometry, gcd, lcm. (mod is the arithmetic "modulo".)

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "floe/expr/cast_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"

namespace floe::expr::internal {

namespace {

Int128 Abs128(Int128 v) { return v < 0 ? -v : v; }

// The integer type an integer argument is passed as (PostgreSQL has no 1-byte integer).
TypePtr IntParam(const TypePtr& t) { return t->id() == TypeId::kInt8 ? Int16() : t; }

// floor(x / 10^k) and ceil, for k in 0..38.
Int128 FloorDivPow10(Int128 v, int k) {
  if (k == 0) return v;
  if (k > 38) return v < 0 ? -1 : 0;
  const Int128 p = Pow10(k);
  Int128 q = v / p;
  if (v % p != 0 && v < 0) --q;
  return q;
}
Int128 CeilDivPow10(Int128 v, int k) { return -FloorDivPow10(-v, k); }
Int128 RoundDivPow10(Int128 v, int k) {
  if (k == 0) return v;
  if (k > 38) return 0;
  const Int128 p = Pow10(k);
  Int128 q = v / p;
  if (Abs128(v % p) * 2 >= p) q += v < 0 ? -1 : 1;
  return q;
}
Int128 TruncDivPow10(Int128 v, int k) {
  if (k == 0) return v;
  if (k > 38) return 0;
  return v / Pow10(k);
}

// ---------------------------------------------------------------------------------------
// Resolvers.

// f(float8) -> float8.
ScalarResolver Float8Unary(std::string name) {
  return [name](const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
    if (AcceptsAll(args, {Float64()}, cost)) return Resolution(name, {Float64()}, Float64());
    return NoSuchFunction(name, args);
  };
}

// f(float8, float8) -> float8.
ScalarResolver Float8Binary(std::string name) {
  return [name](const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
    if (AcceptsAll(args, {Float64(), Float64()}, cost)) {
      return Resolution(name, {Float64(), Float64()}, Float64());
    }
    return NoSuchFunction(name, args);
  };
}

// f(numeric) -> decimal(p - s + 1, 0) for a decimal argument, else f(float8) -> float8
// (integers pick float8, PostgreSQL's preferred numeric type).
ScalarResolver RoundingUnary(std::string name) {
  return [name](const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
    if (args.size() == 1 && args[0] && args[0]->id() == TypeId::kDecimal) {
      const int p = std::min(38, args[0]->precision() - args[0]->scale() + 1);
      return Resolution(name, {args[0]}, Decimal(p, 0));
    }
    if (AcceptsAll(args, {Float64()}, cost)) return Resolution(name, {Float64()}, Float64());
    return NoSuchFunction(name, args);
  };
}

// round(x) / trunc(x); round(numeric, int4) and trunc(numeric, int4) are numeric's
// (numeric_functions.cc).
ScalarResolver RoundingWithDigits(std::string name) {
  auto unary = RoundingUnary(name);
  return [name, unary](const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
    if (args.size() == 1) return unary(args, cost);
    return NoSuchFunction(name, args);
  };
}

// abs / sign: every numeric type keeps its type (sign(numeric) -> numeric(1, 0)).
ScalarResolver SameNumeric(std::string name) {
  return [name](const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
    if (args.size() == 1 && args[0]) {
      const TypePtr& t = args[0];
      if (t->is_integer()) {
        if (name == "sign") {
          ++*cost;
          return Resolution(name, {Float64()}, Float64());
        }
        TypePtr p = IntParam(t);
        if (!p->Equals(*t)) ++*cost;
        return Resolution(name, {p}, p);
      }
      if (t->is_floating()) return Resolution(name, {t}, t);
      if (t->id() == TypeId::kDecimal) {
        return Resolution(name, {t}, name == "sign" ? Decimal(1, 0) : t);
      }
    }
    if (AcceptsAll(args, {Float64()}, cost)) return Resolution(name, {Float64()}, Float64());
    return NoSuchFunction(name, args);
  };
}

// gcd / lcm over integers: int4 unless an argument is int8.
ScalarResolver IntegerPair(std::string name) {
  return [name](const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
    if (args.size() == 2) {
      const bool wide = args[0]->id() == TypeId::kInt64 || args[1]->id() == TypeId::kInt64;
      const TypePtr t = wide ? Int64() : Int32();
      if (AcceptsAll(args, {t, t}, cost)) return Resolution(name, {t, t}, t);
    }
    return NoSuchFunction(name, args);
  };
}

// ---------------------------------------------------------------------------------------
// Kernels.

Status Overflow() { return Status::Invalid("value out of range: overflow"); }

// The constants the degree functions scale by (PostgreSQL's init_degree_constants).
struct DegreeScale {
  double sin_30, one_minus_cos_60, asin_0_5, acos_0_5, atan_1_0, tan_45, cot_45;
};

constexpr double kRadiansPerDegree = std::numbers::pi / 180.0;

// sin(x) for x in [0, 30] degrees, exactly 0.5 at 30.
double SinTo30(double x, const DegreeScale& k) {
  return std::sin(x * kRadiansPerDegree) / k.sin_30 / 2.0;
}
// cos(x) for x in [0, 60] degrees, exactly 0.5 at 60.
double CosTo60(double x, const DegreeScale& k) {
  return 1.0 - ((1.0 - std::cos(x * kRadiansPerDegree)) / k.one_minus_cos_60) / 2.0;
}

const DegreeScale& DegreeConstants();

// sin and cos of x in [0, 90] degrees.
double SindQ1(double x) {
  const DegreeScale& k = DegreeConstants();
  return x <= 30.0 ? SinTo30(x, k) : CosTo60(90.0 - x, k);
}
double CosdQ1(double x) {
  const DegreeScale& k = DegreeConstants();
  return x <= 60.0 ? CosTo60(x, k) : SinTo30(90.0 - x, k);
}

const DegreeScale& DegreeConstants() {
  static const DegreeScale k = [] {
    DegreeScale c{};
    c.sin_30 = std::sin(30.0 * kRadiansPerDegree);
    c.one_minus_cos_60 = 1.0 - std::cos(60.0 * kRadiansPerDegree);
    c.asin_0_5 = std::asin(0.5);
    c.acos_0_5 = std::acos(0.5);
    c.atan_1_0 = std::atan(1.0);
    // tan and cot of 45 as the functions compute them (SindQ1(45) and CosdQ1(45) both take
    // the cosine branch), so that they give exactly 1 there.
    const double q45 =
        1.0 - ((1.0 - std::cos(45.0 * kRadiansPerDegree)) / c.one_minus_cos_60) / 2.0;
    c.tan_45 = q45 / q45;
    c.cot_45 = c.tan_45;
    return c;
  }();
  return k;
}

// asin and acos in degrees of x in [0, 1], exact at 0.5 (30 and 60 degrees).
double AsindQ1(double x) {
  const DegreeScale& k = DegreeConstants();
  if (x <= 0.5) return std::asin(x) / k.asin_0_5 * 30.0;
  return 90.0 - std::acos(x) / k.acos_0_5 * 60.0;
}
double AcosdQ1(double x) {
  const DegreeScale& k = DegreeConstants();
  if (x <= 0.5) return 90.0 - std::asin(x) / k.asin_0_5 * 30.0;
  return std::acos(x) / k.acos_0_5 * 60.0;
}

// Reduces an angle to [0, 90] degrees for tan and cot (odd, period 180); returns the sign.
double ReduceToFirstQuadrant(double* x) {
  double sign = 1;
  *x = std::fmod(*x, 360.0);
  if (*x < 0) {
    *x = -*x;
    sign = -sign;
  }
  if (*x > 180) {
    *x = 360 - *x;
    sign = -sign;
  }
  if (*x > 90) {
    *x = 180 - *x;
    sign = -sign;
  }
  return sign;
}
Status Underflow() { return Status::Invalid("value out of range: underflow"); }

// Applies a float8 function that can fail.
template <typename Fn>
ScalarKernel Float8Kernel(Fn fn) {
  return [fn](const ResolvedFunction& f, const std::vector<ColumnarValue>& args, int64_t n,
              EvalContext& ctx) -> Result<ColumnarValue> {
    return Map1Fallible<double, double>(args[0], n, f.return_type, ctx, fn);
  };
}

template <typename Fn>
ScalarKernel Float8Kernel2(Fn fn) {
  return [fn](const ResolvedFunction& f, const std::vector<ColumnarValue>& args, int64_t n,
              EvalContext& ctx) -> Result<ColumnarValue> {
    return Map2Fallible<double, double, double>(args[0], args[1], n, f.return_type, ctx, fn);
  };
}

Result<ColumnarValue> AbsKernel(const ResolvedFunction& f, const std::vector<ColumnarValue>& args,
                                int64_t n, EvalContext& ctx) {
  const TypePtr& t = f.arg_types[0];
  auto int_abs = [&](auto tag) -> Result<ColumnarValue> {
    using T = typename decltype(tag)::type;
    const TypeId id = t->id();
    return Map1Fallible<T, T>(args[0], n, f.return_type, ctx, [id](T v, T* out) -> Status {
      if (v == std::numeric_limits<T>::min()) return IntOutOfRange(id);
      *out = static_cast<T>(v < 0 ? -v : v);
      return Status::OK();
    });
  };
  switch (t->id()) {
    case TypeId::kInt16:
      return int_abs(TypeTag<int16_t>{});
    case TypeId::kInt32:
      return int_abs(TypeTag<int32_t>{});
    case TypeId::kInt64:
      return int_abs(TypeTag<int64_t>{});
    case TypeId::kFloat32:
      return Map1<float, float>(args[0], n, f.return_type, ctx,
                                [](float v) { return std::fabs(v); });
    case TypeId::kFloat64:
      return Map1<double, double>(args[0], n, f.return_type, ctx,
                                  [](double v) { return std::fabs(v); });
    case TypeId::kDecimal:
      return Map1<Int128, Int128>(args[0], n, f.return_type, ctx,
                                  [](Int128 v) { return Abs128(v); });
    default:
      return Status::Internal("abs of {}", t->ToString());
  }
}

Result<ColumnarValue> SignKernel(const ResolvedFunction& f, const std::vector<ColumnarValue>& args,
                                 int64_t n, EvalContext& ctx) {
  const TypePtr& t = f.arg_types[0];
  switch (t->id()) {
    case TypeId::kFloat32:
      return Map1<float, float>(args[0], n, f.return_type, ctx, [](float v) -> float {
        return v > 0 ? 1.0f : v < 0 ? -1.0f : v == 0 ? 0.0f : v;
      });
    case TypeId::kFloat64:
      return Map1<double, double>(args[0], n, f.return_type, ctx, [](double v) -> double {
        return v > 0 ? 1.0 : v < 0 ? -1.0 : v == 0 ? 0.0 : v;
      });
    case TypeId::kDecimal:
      return Map1<Int128, Int128>(args[0], n, f.return_type, ctx, [](Int128 v) -> Int128 {
        return v > 0 ? 1 : v < 0 ? -1 : 0;
      });
    default:
      return Status::Internal("sign of {}", t->ToString());
  }
}

enum class Rounding { kRound, kFloor, kCeil, kTrunc };

ScalarKernel RoundingKernel(Rounding mode) {
  return [mode](const ResolvedFunction& f, const std::vector<ColumnarValue>& args, int64_t n,
                EvalContext& ctx) -> Result<ColumnarValue> {
    const TypePtr& t = f.arg_types[0];
    if (t->id() == TypeId::kFloat64) {
      return Map1<double, double>(args[0], n, f.return_type, ctx, [mode](double v) {
        switch (mode) {
          case Rounding::kRound:
            return std::nearbyint(v);  // rint: halves to even, as PostgreSQL's float8 round
          case Rounding::kFloor:
            return std::floor(v);
          case Rounding::kCeil:
            return std::ceil(v);
          default:
            return std::trunc(v);
        }
      });
    }
    const int s = t->scale();
    auto scale_down = [mode](Int128 v, int k) {
      switch (mode) {
        case Rounding::kRound:
          return RoundDivPow10(v, k);
        case Rounding::kFloor:
          return FloorDivPow10(v, k);
        case Rounding::kCeil:
          return CeilDivPow10(v, k);
        default:
          return TruncDivPow10(v, k);
      }
    };
    if (args.size() == 1) {
      return Map1<Int128, Int128>(args[0], n, f.return_type, ctx,
                                  [s, scale_down](Int128 v) { return scale_down(v, s); });
    }
    return Status::Internal("{} with digits of {}", f.name, t->ToString());
  };
}

ScalarKernel GcdKernel(bool lcm) {
  return [lcm](const ResolvedFunction& f, const std::vector<ColumnarValue>& args, int64_t n,
               EvalContext& ctx) -> Result<ColumnarValue> {
    auto run = [&](auto tag) -> Result<ColumnarValue> {
      using T = typename decltype(tag)::type;
      const TypeId id = f.return_type->id();
      return Map2Fallible<T, T, T>(args[0], args[1], n, f.return_type, ctx,
                                   [lcm, id](T a, T b, T* out) -> Status {
                                     // In the unsigned domain so that |INT_MIN| is representable.
                                     using U = std::make_unsigned_t<T>;
                                     U x = a < 0 ? U(0) - U(a) : U(a);
                                     U y = b < 0 ? U(0) - U(b) : U(b);
                                     const U ox = x, oy = y;
                                     while (y != 0) {
                                       const U r = x % y;
                                       x = y;
                                       y = r;
                                     }
                                     U result = x;
                                     if (lcm) {
                                       if (ox == 0 || oy == 0) {
                                         *out = 0;
                                         return Status::OK();
                                       }
                                       U l;
                                       if (__builtin_mul_overflow(ox / x, oy, &l))
                                         return IntOutOfRange(id);
                                       result = l;
                                     }
                                     if (result > static_cast<U>(std::numeric_limits<T>::max()))
                                       return IntOutOfRange(id);
                                     *out = static_cast<T>(result);
                                     return Status::OK();
                                   });
    };
    if (f.return_type->id() == TypeId::kInt64) return run(TypeTag<int64_t>{});
    if (f.return_type->id() == TypeId::kInt32) return run(TypeTag<int32_t>{});
    return Status::Internal("gcd of {}", f.return_type->ToString());
  };
}

Status CheckResult(double in, double out) {
  if (std::isinf(out) && !std::isinf(in)) return Overflow();
  return Status::OK();
}

ScalarResolver NoArgs(std::string name, bool is_volatile) {
  return [name, is_volatile](const std::vector<TypePtr>& args, int*) -> Result<ResolvedFunction> {
    if (!args.empty()) return NoSuchFunction(name, args);
    return Resolution(name, {}, Float64(), true, is_volatile);
  };
}

void AddFloat8(ScalarFunctionRegistry& r, std::string name, std::vector<std::string> aliases,
               ScalarKernel kernel, bool binary = false) {
  r.Add({name, std::move(aliases), binary ? Float8Binary(name) : Float8Unary(name),
         std::move(kernel)});
}

}  // namespace

void RegisterMathFunctions(ScalarFunctionRegistry& r) {
  r.Add({"abs", {}, SameNumeric("abs"), AbsKernel});
  r.Add({"sign", {}, SameNumeric("sign"), SignKernel});
  r.Add({"round", {}, RoundingWithDigits("round"), RoundingKernel(Rounding::kRound)});
  r.Add({"trunc", {}, RoundingWithDigits("trunc"), RoundingKernel(Rounding::kTrunc)});
  r.Add({"floor", {}, RoundingUnary("floor"), RoundingKernel(Rounding::kFloor)});
  r.Add({"ceil", {"ceiling"}, RoundingUnary("ceil"), RoundingKernel(Rounding::kCeil)});
  r.Add({"gcd", {}, IntegerPair("gcd"), GcdKernel(false)});
  r.Add({"lcm", {}, IntegerPair("lcm"), GcdKernel(true)});

  AddFloat8(r, "sqrt", {"dsqrt"}, Float8Kernel([](double x, double* out) -> Status {
              if (x < 0) return Status::Invalid("cannot take square root of a negative number");
              *out = std::sqrt(x);
              return Status::OK();
            }));
  AddFloat8(r, "cbrt", {"dcbrt"}, Float8Kernel([](double x, double* out) -> Status {
              // The C library's, as PostgreSQL's cbrt is (glibc's may be 1 ulp off an exact
              // cube: cbrt(27) is 3.0000000000000004 in both).
              *out = std::cbrt(x);
              return Status::OK();
            }));
  auto log_of = [](double (*fn)(double)) {
    return Float8Kernel([fn](double x, double* out) -> Status {
      if (x == 0) return Status::Invalid("cannot take logarithm of zero");
      if (x < 0) return Status::Invalid("cannot take logarithm of a negative number");
      *out = fn(x);
      return Status::OK();
    });
  };
  AddFloat8(r, "ln", {}, log_of([](double x) { return std::log(x); }));
  AddFloat8(r, "log10", {}, log_of([](double x) { return std::log10(x); }));
  // log(x) is base 10; log(b, x) is base b.
  r.Add({"log",
         {},
         [](const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
           if (AcceptsAll(args, {Float64()}, cost)) {
             return Resolution("log", {Float64()}, Float64());
           }
           if (AcceptsAll(args, {Float64(), Float64()}, cost)) {
             return Resolution("log", {Float64(), Float64()}, Float64());
           }
           return NoSuchFunction("log", args);
         },
         [log10 = log_of([](double x) { return std::log10(x); })](
             const ResolvedFunction& f, const std::vector<ColumnarValue>& args, int64_t n,
             EvalContext& ctx) -> Result<ColumnarValue> {
           if (args.size() == 1) return log10(f, args, n, ctx);
           return Map2Fallible<double, double, double>(
               args[0], args[1], n, f.return_type, ctx,
               [](double b, double x, double* out) -> Status {
                 if (b == 0 || x == 0) return Status::Invalid("cannot take logarithm of zero");
                 if (b < 0 || x < 0) {
                   return Status::Invalid("cannot take logarithm of a negative number");
                 }
                 if (b == 1) return Status::Invalid("division by zero");
                 *out = std::log(x) / std::log(b);
                 return Status::OK();
               });
         }});
  AddFloat8(r, "exp", {"dexp"}, Float8Kernel([](double x, double* out) -> Status {
              *out = std::exp(x);
              FLOE_RETURN_NOT_OK(CheckResult(x, *out));
              if (*out == 0 && !std::isinf(x)) return Underflow();
              return Status::OK();
            }));
  AddFloat8(r, "power", {"pow", "dpow"},
            Float8Kernel2([](double x, double y, double* out) -> Status {
              if (x == 0 && y < 0) {
                return Status::Invalid("zero raised to a negative power is undefined");
              }
              if (x < 0 && std::isfinite(y) && std::floor(y) != y) {
                return Status::Invalid(
                    "a negative number raised to a non-integer power yields a complex result");
              }
              *out = std::pow(x, y);
              if (std::isinf(*out) && std::isfinite(x) && std::isfinite(y)) return Overflow();
              if (*out == 0 && x != 0 && std::isfinite(x) && std::isfinite(y)) return Underflow();
              return Status::OK();
            }),
            true);
  AddFloat8(r, "degrees", {}, Float8Kernel([](double x, double* out) -> Status {
              *out = x * (180.0 / std::numbers::pi);
              return Status::OK();
            }));
  AddFloat8(r, "radians", {}, Float8Kernel([](double x, double* out) -> Status {
              *out = x * (std::numbers::pi / 180.0);
              return Status::OK();
            }));
  auto degree_trig = [](double (*fn)(double)) {
    return Float8Kernel([fn](double x, double* out) -> Status {
      if (std::isnan(x)) {
        *out = x;
        return Status::OK();
      }
      if (std::isinf(x)) return Status::Invalid("input is out of range");
      *out = fn(x);  // tand(90) and cotd(0) are infinite, as in PostgreSQL
      return Status::OK();
    });
  };
  auto trig = [](double (*fn)(double), bool unit_domain) {
    return Float8Kernel([fn, unit_domain](double x, double* out) -> Status {
      if ((unit_domain && (x < -1 || x > 1)) || (!unit_domain && std::isinf(x))) {
        return Status::Invalid("input is out of range");
      }
      *out = fn(x);
      return Status::OK();
    });
  };
  AddFloat8(r, "sin", {}, trig([](double x) { return std::sin(x); }, false));
  AddFloat8(r, "cos", {}, trig([](double x) { return std::cos(x); }, false));
  AddFloat8(r, "tan", {}, trig([](double x) { return std::tan(x); }, false));
  AddFloat8(r, "cot", {}, trig([](double x) { return 1.0 / std::tan(x); }, false));
  AddFloat8(r, "asin", {}, trig([](double x) { return std::asin(x); }, true));
  AddFloat8(r, "acos", {}, trig([](double x) { return std::acos(x); }, true));
  AddFloat8(r, "atan", {}, Float8Kernel([](double x, double* out) -> Status {
              *out = std::atan(x);
              return Status::OK();
            }));
  AddFloat8(r, "atan2", {}, Float8Kernel2([](double y, double x, double* out) -> Status {
              *out = std::atan2(y, x);
              return Status::OK();
            }),
            true);
  // Trigonometry in degrees, as PostgreSQL's dsind ... datan2d: the argument is reduced to
  // the first quadrant and each function is scaled by its value at 30, 45 or 60 degrees, so
  // that those angles give exact results (sind(30) = 0.5, tand(45) = 1).
  AddFloat8(r, "sind", {}, degree_trig([](double x) {
              double sign = 1;
              x = std::fmod(x, 360.0);
              if (x < 0) {
                x = -x;
                sign = -sign;
              }
              if (x > 180) {
                x = 360 - x;
                sign = -sign;
              }
              if (x > 90) x = 180 - x;
              return sign * SindQ1(x);
            }));
  AddFloat8(r, "cosd", {}, degree_trig([](double x) {
              double sign = 1;
              x = std::fabs(std::fmod(x, 360.0));
              if (x > 180) x = 360 - x;
              if (x > 90) {
                x = 180 - x;
                sign = -sign;
              }
              return sign * CosdQ1(x);
            }));
  AddFloat8(r, "tand", {}, degree_trig([](double x) {
              double sign = ReduceToFirstQuadrant(&x);
              const double result = sign * (SindQ1(x) / CosdQ1(x) / DegreeConstants().tan_45);
              return result == 0 ? 0.0 : result;  // never minus zero
            }));
  AddFloat8(r, "cotd", {}, degree_trig([](double x) {
              double sign = ReduceToFirstQuadrant(&x);
              const double result = sign * (CosdQ1(x) / SindQ1(x) / DegreeConstants().cot_45);
              return result == 0 ? 0.0 : result;
            }));
  AddFloat8(r, "asind", {}, Float8Kernel([](double x, double* out) -> Status {
              if (std::isnan(x)) {
                *out = x;
                return Status::OK();
              }
              if (x < -1 || x > 1) return Status::Invalid("input is out of range");
              *out = x >= 0 ? AsindQ1(x) : -AsindQ1(-x);
              return Status::OK();
            }));
  AddFloat8(r, "acosd", {}, Float8Kernel([](double x, double* out) -> Status {
              if (std::isnan(x)) {
                *out = x;
                return Status::OK();
              }
              if (x < -1 || x > 1) return Status::Invalid("input is out of range");
              *out = x >= 0 ? AcosdQ1(x) : 90.0 + AsindQ1(-x);
              return Status::OK();
            }));
  AddFloat8(r, "atand", {}, Float8Kernel([](double x, double* out) -> Status {
              *out = std::isnan(x) ? x : std::atan(x) / DegreeConstants().atan_1_0 * 45.0;
              return Status::OK();
            }));
  AddFloat8(r, "atan2d", {}, Float8Kernel2([](double y, double x, double* out) -> Status {
              *out = std::isnan(y) || std::isnan(x)
                         ? std::nan("")
                         : std::atan2(y, x) / DegreeConstants().atan_1_0 * 45.0;
              return Status::OK();
            }),
            true);
  // The hyperbolic functions, as PostgreSQL's dsinh ... datanh: sinh and cosh overflow to
  // infinity (no error), acosh needs x >= 1, atanh |x| <= 1 (±1 giving ±infinity).
  AddFloat8(r, "sinh", {}, Float8Kernel([](double x, double* out) -> Status {
              *out = std::sinh(x);
              return Status::OK();
            }));
  AddFloat8(r, "cosh", {}, Float8Kernel([](double x, double* out) -> Status {
              *out = std::cosh(x);
              return Status::OK();
            }));
  AddFloat8(r, "tanh", {}, Float8Kernel([](double x, double* out) -> Status {
              *out = std::tanh(x);
              return Status::OK();
            }));
  AddFloat8(r, "asinh", {}, Float8Kernel([](double x, double* out) -> Status {
              *out = std::asinh(x);
              return Status::OK();
            }));
  AddFloat8(r, "acosh", {}, Float8Kernel([](double x, double* out) -> Status {
              if (x < 1) return Status::Invalid("input is out of range");
              *out = std::acosh(x);
              return Status::OK();
            }));
  AddFloat8(r, "atanh", {}, Float8Kernel([](double x, double* out) -> Status {
              if (x < -1 || x > 1) return Status::Invalid("input is out of range");
              *out = x == 1    ? std::numeric_limits<double>::infinity()
                     : x == -1 ? -std::numeric_limits<double>::infinity()
                               : std::atanh(x);
              return Status::OK();
            }));

  r.Add({"pi",
         {},
         NoArgs("pi", false),
         [](const ResolvedFunction&, const std::vector<ColumnarValue>&, int64_t, EvalContext&)
             -> Result<ColumnarValue> { return ColumnarValue(Scalar::F64(std::numbers::pi)); }});
  r.Add({"random",
         {},
         NoArgs("random", true),
         [](const ResolvedFunction&, const std::vector<ColumnarValue>&, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           thread_local std::mt19937_64 engine{std::random_device{}()};
           std::uniform_real_distribution<double> dist(0.0, 1.0);
           Float64Builder builder(Float64(), ctx.pool);
           FLOE_RETURN_NOT_OK(builder.Reserve(n));
           for (int64_t i = 0; i < n; ++i) builder.UnsafeAppend(dist(engine));
           FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
           return ColumnarValue(std::move(out));
         }});
}

}  // namespace floe::expr::internal
