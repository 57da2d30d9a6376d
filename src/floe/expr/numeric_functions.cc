// PostgreSQL's numeric without a precision as values (common/numeric.h, Extension::kNumeric):
// its arithmetic (+ - * / %, unary minus) at PostgreSQL's result scales, its comparisons by
// value, abs, sign, round, trunc, ceil and floor, and the casts between numeric and text,
// integers, floats and numeric(p, s). Integers and numeric(p, s) pass as numeric
// implicitly, so 7 / 2.0 and avg(integer) take numeric division's scale.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/numeric.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/comparison_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/numeric_internal.h"
#include "floe/expr/signature_internal.h"
#include "floe/type/sql_type_name.h"

namespace floe::expr::internal {

namespace {

using Args = std::vector<ColumnarValue>;

NumericValue Load(std::string_view bytes) { return NumericFromBytes(bytes); }

// A resolver of one signature over numerics: `arity` numeric parameters (and an int4 one
// after them with `digits`) to a numeric.
ScalarResolver Signature(std::string name, int arity, bool digits = false) {
  return [name = std::move(name), arity, digits](const std::vector<TypePtr>& args,
                                                 int* cost) -> Result<ResolvedFunction> {
    std::vector<TypePtr> params(static_cast<size_t>(arity), Numeric());
    if (digits) params.push_back(Int32());
    if (!AcceptsAll(args, params, cost)) return NoSuchFunction(name, args);
    return Resolution(name, std::move(params), Numeric());
  };
}

using BinaryOp = Result<NumericValue> (*)(const NumericValue&, const NumericValue&);

ScalarKernel BinaryKernel(BinaryOp op) {
  return [op](const ResolvedFunction& f, const Args& args, int64_t n,
              EvalContext& ctx) -> Result<ColumnarValue> {
    return Map2Fallible<std::string, std::string_view, std::string_view>(
        args[0], args[1], n, f.return_type, ctx,
        [op](std::string_view a, std::string_view b, std::string* out) -> Status {
          FLOE_ASSIGN_OR_RAISE(NumericValue r, op(Load(a), Load(b)));
          *out = NumericBytes(r);
          return Status::OK();
        });
  };
}

template <typename Op>
ScalarKernel UnaryKernel(Op op) {
  return [op](const ResolvedFunction& f, const Args& args, int64_t n,
              EvalContext& ctx) -> Result<ColumnarValue> {
    return Map1Fallible<std::string, std::string_view>(
        args[0], n, f.return_type, ctx, [op](std::string_view a, std::string* out) -> Status {
          FLOE_ASSIGN_OR_RAISE(NumericValue r, op(Load(a)));
          *out = NumericBytes(r);
          return Status::OK();
        });
  };
}

// round(numeric, int4) and trunc(numeric, int4).
ScalarKernel DigitsKernel(Result<NumericValue> (*op)(const NumericValue&, int)) {
  return [op](const ResolvedFunction& f, const Args& args, int64_t n,
              EvalContext& ctx) -> Result<ColumnarValue> {
    return Map2Fallible<std::string, std::string_view, int32_t>(
        args[0], args[1], n, f.return_type, ctx,
        [op](std::string_view a, int32_t digits, std::string* out) -> Status {
          FLOE_ASSIGN_OR_RAISE(NumericValue r, op(Load(a), digits));
          *out = NumericBytes(r);
          return Status::OK();
        });
  };
}

Result<NumericValue> Abs(const NumericValue& v) { return AbsNumeric(v); }
Result<NumericValue> Sign(const NumericValue& v) { return SignNumeric(v); }
Result<NumericValue> Round0(const NumericValue& v) { return RoundNumeric(v, 0); }
Result<NumericValue> Trunc0(const NumericValue& v) { return TruncNumeric(v, 0); }

std::string_view IntegerName(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return "tinyint";
    case TypeId::kInt16:
      return "smallint";
    case TypeId::kInt32:
      return "integer";
    default:
      return "bigint";
  }
}

template <typename T>
Result<ColumnarValue> ToInteger(const ColumnarValue& value, int64_t n, const TypePtr& to,
                                EvalContext& ctx) {
  const Status range = IntOutOfRange(to->id());
  const std::string_view name = IntegerName(to->id());
  return Map1Fallible<T, std::string_view>(
      value, n, to, ctx, [&](std::string_view bytes, T* out) -> Status {
        FLOE_ASSIGN_OR_RAISE(int64_t v, NumericToInt64(Load(bytes), std::numeric_limits<T>::min(),
                                                       std::numeric_limits<T>::max(), name, range));
        *out = static_cast<T>(v);
        return Status::OK();
      });
}

template <typename T>
Result<ColumnarValue> FromInteger(const ColumnarValue& value, int64_t n, const TypePtr& to,
                                  EvalContext& ctx) {
  return Map1<std::string, T>(value, n, to, ctx, [](T v) {
    return NumericBytes(NumericValue::Finite(static_cast<__int128>(v), 0));
  });
}

}  // namespace

// --- casts --------------------------------------------------------------------------------

bool CanExplicitCastNumeric(const DataType& from, const DataType& to) {
  const DataType& other = from.is_numeric() ? to : from;
  if (other.is_numeric()) return true;
  if (other.extension() != Extension::kNone) return false;
  return other.is_integer() || other.is_floating() || other.id() == TypeId::kDecimal ||
         other.id() == TypeId::kString;
}

Result<ArrayPtr> CastNumeric(const Array& in, const TypePtr& to, MemoryPool* pool) {
  const DataType& from = *in.type();
  if (!CanExplicitCastNumeric(from, *to)) {
    return Status::NotSupported("cannot cast type {} to {}", SqlTypeName(from), SqlTypeName(*to));
  }
  if (from.is_numeric() && to->is_numeric()) return in.Slice(0, in.length());
  EvalContext ctx;
  ctx.pool = pool;
  const ColumnarValue value{in.Slice(0, in.length())};
  const int64_t n = in.length();
  Result<ColumnarValue> out = Status::Internal("numeric cast");
  if (to->is_numeric()) {
    switch (from.id()) {
      case TypeId::kString:
        out = Map1Fallible<std::string, std::string_view>(
            value, n, to, ctx, [](std::string_view text, std::string* r) -> Status {
              FLOE_ASSIGN_OR_RAISE(NumericValue v, ParseNumeric(text));
              *r = NumericBytes(v);
              return Status::OK();
            });
        break;
      case TypeId::kInt8:
        out = FromInteger<int8_t>(value, n, to, ctx);
        break;
      case TypeId::kInt16:
        out = FromInteger<int16_t>(value, n, to, ctx);
        break;
      case TypeId::kInt32:
        out = FromInteger<int32_t>(value, n, to, ctx);
        break;
      case TypeId::kInt64:
        out = FromInteger<int64_t>(value, n, to, ctx);
        break;
      case TypeId::kDecimal: {
        const int scale = from.scale();
        out = Map1<std::string, Int128>(value, n, to, ctx, [scale](Int128 v) {
          return NumericBytes(NumericValue::Finite(v, scale));
        });
        break;
      }
      case TypeId::kFloat32:
      case TypeId::kFloat64: {
        // PostgreSQL's float4_numeric / float8_numeric: the value's 6 or 15 significant
        // digits.
        auto convert = [](int digits) {
          return [digits](double v, std::string* r) -> Status {
            FLOE_ASSIGN_OR_RAISE(NumericValue x, NumericFromDouble(v, digits));
            *r = NumericBytes(x);
            return Status::OK();
          };
        };
        out = from.id() == TypeId::kFloat32
                  ? Map1Fallible<std::string, float>(value, n, to, ctx, convert(6))
                  : Map1Fallible<std::string, double>(value, n, to, ctx, convert(15));
        break;
      }
      default:
        break;
    }
  } else {
    switch (to->id()) {
      case TypeId::kString:
        out = Map1<std::string, std::string_view>(
            value, n, to, ctx, [](std::string_view bytes) { return NumericText(Load(bytes)); });
        break;
      case TypeId::kInt8:
        out = ToInteger<int8_t>(value, n, to, ctx);
        break;
      case TypeId::kInt16:
        out = ToInteger<int16_t>(value, n, to, ctx);
        break;
      case TypeId::kInt32:
        out = ToInteger<int32_t>(value, n, to, ctx);
        break;
      case TypeId::kInt64:
        out = ToInteger<int64_t>(value, n, to, ctx);
        break;
      case TypeId::kFloat32:
        out = Map1<float, std::string_view>(value, n, to, ctx, [](std::string_view bytes) {
          return static_cast<float>(NumericToDouble(Load(bytes)));
        });
        break;
      case TypeId::kFloat64:
        out = Map1<double, std::string_view>(
            value, n, to, ctx, [](std::string_view bytes) { return NumericToDouble(Load(bytes)); });
        break;
      case TypeId::kDecimal: {
        const int precision = to->precision(), scale = to->scale();
        out = Map1Fallible<Int128, std::string_view>(
            value, n, to, ctx, [precision, scale](std::string_view bytes, Int128* r) -> Status {
              FLOE_ASSIGN_OR_RAISE(*r, NumericToDecimal(Load(bytes), precision, scale));
              return Status::OK();
            });
        break;
      }
      default:
        break;
    }
  }
  FLOE_ASSIGN_OR_RAISE(ColumnarValue result, std::move(out));
  return result.ToArray(n, pool);
}

// --- registration -------------------------------------------------------------------------

void RegisterNumericFunctions(ScalarFunctionRegistry& r) {
  r.Add({"add", {}, Signature("add", 2), BinaryKernel(AddNumerics)});
  r.Add({"subtract", {}, Signature("subtract", 2), BinaryKernel(SubtractNumerics)});
  r.Add({"multiply", {}, Signature("multiply", 2), BinaryKernel(MultiplyNumerics)});
  r.Add({"divide", {}, Signature("divide", 2), BinaryKernel(DivideNumerics)});
  r.Add({"modulo", {"mod"}, Signature("modulo", 2), BinaryKernel(ModNumerics)});
  r.Add({"negate", {}, Signature("negate", 1), UnaryKernel(NegateNumeric)});
  r.Add({"abs", {}, Signature("abs", 1), UnaryKernel(Abs)});
  r.Add({"sign", {}, Signature("sign", 1), UnaryKernel(Sign)});
  r.Add({"ceil", {"ceiling"}, Signature("ceil", 1), UnaryKernel(CeilNumeric)});
  r.Add({"floor", {}, Signature("floor", 1), UnaryKernel(FloorNumeric)});
  r.Add({"round", {}, Signature("round", 1), UnaryKernel(Round0)});
  r.Add({"trunc", {}, Signature("trunc", 1), UnaryKernel(Trunc0)});
  r.Add({"round", {}, Signature("round", 1, true), DigitsKernel(RoundNumeric)});
  r.Add({"trunc", {}, Signature("trunc", 1, true), DigitsKernel(TruncNumeric)});
  RegisterValueKeyComparisons(r, Numeric());
}

}  // namespace floe::expr::internal
