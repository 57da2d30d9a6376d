// PostgreSQL's data type formatting functions over columns: to_char (timestamps, dates and
// numbers), to_timestamp(text, text), to_date and to_number. A template (formatting.h) is
// parsed once per batch, and again only where a row's template differs from the last row's.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/numeric.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/formatting.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"

namespace floe::expr {

namespace internal {

namespace {

using Args = std::vector<ColumnarValue>;

// floe's numeric without a declared scale (numeric, as a type name, binds so too).
constexpr int kToNumberScale = 10;

// The last template parsed, kept while the rows repeat its text.
template <typename Template>
class TemplateCache {
 public:
  template <typename ParseFn>
  const Result<Template>& Get(std::string_view text, ParseFn&& parse) {
    if (!cached_ || text != text_) {
      text_ = std::string(text);
      cached_.emplace(parse(text));
    }
    return *cached_;
  }

 private:
  std::string text_;
  std::optional<Result<Template>> cached_;
};

Result<DateTimeTemplate> ParseDateTime(std::string_view text) {
  return DateTimeTemplate::Parse(text);
}

Result<ColumnarValue> DateTimeToCharKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                           EvalContext& ctx) {
  const bool with_zone = f.arg_types[0]->id() == TypeId::kTimestampTz;
  TemplateCache<DateTimeTemplate> cache;
  return Map2Nullable<std::string, int64_t, std::string_view>(
      args[0], args[1], n, f.return_type, ctx,
      [&](int64_t ts, std::string_view format, std::string* out, bool* is_null) -> Status {
        // An empty template and an infinite timestamp give NULL, as in PostgreSQL.
        *is_null = format.empty() || ts == kTimestampInfinity || ts == kTimestampMinusInfinity;
        if (*is_null) return Status::OK();
        FLOE_ASSIGN_OR_RAISE(const DateTimeTemplate& t, cache.Get(format, ParseDateTime));
        *out = t.Format(ts, with_zone);
        return Status::OK();
      });
}

// to_char over one number type: `format_one` renders a value with a parsed template.
template <typename In, typename FormatOne>
Result<ColumnarValue> NumberToChar(const ResolvedFunction& f, const Args& args, int64_t n,
                                   EvalContext& ctx, FormatOne format_one) {
  TemplateCache<NumberTemplate> cache;
  return Map2Nullable<std::string, In, std::string_view>(
      args[0], args[1], n, f.return_type, ctx,
      [&](In value, std::string_view format, std::string* out, bool* is_null) -> Status {
        // An empty template gives an empty text (the date/time to_char gives NULL).
        *is_null = false;
        if (format.empty()) {
          out->clear();
          return Status::OK();
        }
        FLOE_ASSIGN_OR_RAISE(const NumberTemplate& t, cache.Get(format, NumberTemplate::Parse));
        FLOE_ASSIGN_OR_RAISE(*out, format_one(t, value));
        return Status::OK();
      });
}

Result<ColumnarValue> NumberToCharKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                         EvalContext& ctx) {
  if (f.arg_types[0]->is_numeric()) {
    return NumberToChar<std::string_view>(
        f, args, n, ctx,
        [](const NumberTemplate& t, std::string_view bytes) -> Result<std::string> {
          NumericValue v = NumericFromBytes(bytes);
          if (!v.is_finite()) return t.FormatFloat(NumericToDouble(v), false);
          // Beyond 38 decimals no template has digits left to show.
          if (v.scale > 38) {
            FLOE_ASSIGN_OR_RAISE(v, RoundNumeric(v, 38));
          }
          return t.FormatDecimal(v.unscaled, v.scale);
        });
  }
  switch (f.arg_types[0]->id()) {
    case TypeId::kInt32:
      return NumberToChar<int32_t>(f, args, n, ctx, [](const NumberTemplate& t, int32_t v) {
        return t.FormatInteger(v, true);
      });
    case TypeId::kInt64:
      return NumberToChar<int64_t>(f, args, n, ctx, [](const NumberTemplate& t, int64_t v) {
        return t.FormatInteger(v, false);
      });
    case TypeId::kFloat32:
      return NumberToChar<float>(
          f, args, n, ctx, [](const NumberTemplate& t, float v) { return t.FormatFloat(v, true); });
    case TypeId::kFloat64:
      return NumberToChar<double>(f, args, n, ctx, [](const NumberTemplate& t, double v) {
        return t.FormatFloat(v, false);
      });
    case TypeId::kDecimal: {
      const int scale = f.arg_types[0]->scale();
      return NumberToChar<Int128>(f, args, n, ctx, [scale](const NumberTemplate& t, Int128 v) {
        return t.FormatDecimal(v, scale);
      });
    }
    default:
      return Status::Internal("to_char over {}", SqlTypeName(*f.arg_types[0]));
  }
}

Result<ColumnarValue> ToCharKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                   EvalContext& ctx) {
  switch (f.arg_types[0]->id()) {
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return DateTimeToCharKernel(f, args, n, ctx);
    default:
      return NumberToCharKernel(f, args, n, ctx);
  }
}

// The parameter type to_char takes a value of type `t` as (PostgreSQL's to_char signatures:
// int4, int8, float4, float8, numeric, timestamp, timestamptz), or null.
TypePtr ToCharParam(const TypePtr& t) {
  if (t->is_numeric()) return t;
  switch (t->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
      return Int32();
    case TypeId::kInt64:
      return Int64();
    case TypeId::kFloat32:
      return Float32();
    case TypeId::kFloat64:
      return Float64();
    case TypeId::kDecimal:
      return t;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
      return Timestamp();
    case TypeId::kTimestampTz:
    case TypeId::kTimestampTzNs:
    case TypeId::kDate:
      // A date is formatted as the timestamptz it casts to, as PostgreSQL prefers.
      return TimestampTz();
    default:
      return nullptr;
  }
}

Result<ResolvedFunction> ResolveToChar(const std::vector<TypePtr>& args, int* cost) {
  if (args.size() == 2) {
    TypePtr param = ToCharParam(args[0]);
    int c = 0;
    if (param != nullptr && Accepts(args[1], String(), &c)) {
      if (!param->Equals(*args[0])) ++c;
      *cost += c;
      return Resolution("to_char", {param, String()}, String());
    }
  }
  return NoSuchFunction("to_char", args);
}

Result<ColumnarValue> ToTimestampKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                        EvalContext& ctx) {
  TemplateCache<DateTimeTemplate> cache;
  return Map2Fallible<int64_t, std::string_view, std::string_view>(
      args[0], args[1], n, f.return_type, ctx,
      [&](std::string_view text, std::string_view format, int64_t* out) -> Status {
        FLOE_ASSIGN_OR_RAISE(const DateTimeTemplate& t, cache.Get(format, ParseDateTime));
        FLOE_ASSIGN_OR_RAISE(*out, t.ToTimestamp(text));
        return Status::OK();
      });
}

Result<ColumnarValue> ToDateKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                   EvalContext& ctx) {
  TemplateCache<DateTimeTemplate> cache;
  return Map2Fallible<int32_t, std::string_view, std::string_view>(
      args[0], args[1], n, f.return_type, ctx,
      [&](std::string_view text, std::string_view format, int32_t* out) -> Status {
        FLOE_ASSIGN_OR_RAISE(const DateTimeTemplate& t, cache.Get(format, ParseDateTime));
        FLOE_ASSIGN_OR_RAISE(*out, t.ToDate(text));
        return Status::OK();
      });
}

Result<ColumnarValue> ToNumberKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                     EvalContext& ctx) {
  const int precision = f.return_type->precision();
  const int scale = f.return_type->scale();
  TemplateCache<NumberTemplate> cache;
  return Map2Nullable<Int128, std::string_view, std::string_view>(
      args[0], args[1], n, f.return_type, ctx,
      [&](std::string_view text, std::string_view format, Int128* out, bool* is_null) -> Status {
        // An empty template gives NULL, as in PostgreSQL.
        *is_null = format.empty();
        if (*is_null) return Status::OK();
        FLOE_ASSIGN_OR_RAISE(const NumberTemplate& t, cache.Get(format, NumberTemplate::Parse));
        FLOE_ASSIGN_OR_RAISE(NumberTemplate::Number v, t.ToNumber(text));
        FLOE_ASSIGN_OR_RAISE(*out, RescaleDecimal(v.unscaled, v.scale, precision, scale));
        return Status::OK();
      });
}

}  // namespace

void RegisterFormattingFunctions(ScalarFunctionRegistry& r) {
  r.Add({"to_char", {}, ResolveToChar, ToCharKernel});
  r.Add({"to_timestamp",
         {},
         Signatures("to_timestamp", {{String(), String()}}, TimestampTz()),
         ToTimestampKernel});
  r.Add({"to_date", {}, Signatures("to_date", {{String(), String()}}, Date()), ToDateKernel});
  r.Add({"to_number",
         {},
         Signatures("to_number", {{String(), String()}}, Decimal(38, kToNumberScale)),
         ToNumberKernel});
}

}  // namespace internal

int ToNumberResultScale(std::string_view format) {
  Result<NumberTemplate> t = NumberTemplate::Parse(format);
  if (!t.ok() || format.empty()) return -1;
  const int scale = t->fraction_digits();
  return scale <= internal::kToNumberScale ? scale : -1;
}

}  // namespace floe::expr
