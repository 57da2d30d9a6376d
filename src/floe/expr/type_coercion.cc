// PostgreSQL's implicit and explicit cast rules and the common type of two operands.

#include <algorithm>

#include "floe/expr/aggregate_internal.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/interval_internal.h"
#include "floe/expr/json_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/numeric_internal.h"

namespace floe::expr {

namespace {

bool IsTimestampId(TypeId id) { return id >= TypeId::kTimestamp && id <= TypeId::kTimestampTzNs; }
bool HasZone(TypeId id) { return id == TypeId::kTimestampTz || id == TypeId::kTimestampTzNs; }
bool IsNanos(TypeId id) { return id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs; }

// Position in PostgreSQL's numeric promotion chain int2 -> int4 -> int8 -> numeric ->
// float4 -> float8 (int8, a tinyint, sits below int2); -1 for other types.
int NumericRank(TypeId id) {
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

bool IsScalarId(TypeId id) {
  return id != TypeId::kStruct && id != TypeId::kList && id != TypeId::kMap;
}

bool IsExactNumber(const DataType& t) {
  return t.extension() == Extension::kNone && (t.is_integer() || t.id() == TypeId::kDecimal);
}

}  // namespace

namespace internal {

int IntegerDigits(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return 3;
    case TypeId::kInt16:
      return 5;
    case TypeId::kInt32:
      return 10;
    case TypeId::kInt64:
      return 19;
    default:
      return 0;
  }
}

TypePtr DecimalForInteger(TypeId id) { return Decimal(IntegerDigits(id), 0); }

}  // namespace internal

namespace {

// Integers and decimals as one decimal wide enough for both (the larger scale and integer
// digits, at most 38 digits).
TypePtr DecimalCommonType(const DataType& a, const DataType& b) {
  auto int_digits = [](const DataType& t) {
    return t.id() == TypeId::kDecimal ? t.precision() - t.scale() : internal::IntegerDigits(t.id());
  };
  const int scale = std::max(a.scale(), b.scale());
  const int digits = std::max(int_digits(a), int_digits(b));
  const int precision = std::max(std::min(38, digits + scale), 1);
  return Decimal(precision, std::min(scale, precision));
}

}  // namespace

namespace internal {

int CastCost(const DataType& from, const DataType& to) {
  if (from.id() == to.id()) {
    if (!from.is_nested()) return 0;
    return from.Equals(to) ? 0 : (CanImplicitCast(from, to) ? 1 : -1);
  }
  return CanImplicitCast(from, to) ? 1 : -1;
}

}  // namespace internal

bool CanImplicitCast(const DataType& from, const DataType& to) {
  const TypeId f = from.id();
  const TypeId t = to.id();
  // character(n) passes as text without its trailing spaces, as PostgreSQL's bpchar.
  if (from.is_bpchar() && t == TypeId::kString && to.extension() == Extension::kNone) return true;
  // Integers and numeric(p, s) pass as numeric, and numeric as the floats, as PostgreSQL's
  // numeric promotion chain has it.
  if (to.is_numeric() && !from.is_numeric()) {
    return from.extension() == Extension::kNone && (from.is_integer() || f == TypeId::kDecimal);
  }
  if (from.is_numeric() && !to.is_numeric()) {
    return to.extension() == Extension::kNone && to.is_floating();
  }
  // json, jsonb and text share their storage but convert only explicitly (the json
  // functions take text arguments themselves: json_functions.cc).
  if (from.extension() != to.extension()) return false;
  if (f == t) {
    switch (f) {
      case TypeId::kList:
        return CanImplicitCast(*from.field(0).type(), *to.field(0).type());
      case TypeId::kMap:
        return CanImplicitCast(*from.field(0).type(), *to.field(0).type()) &&
               CanImplicitCast(*from.field(1).type(), *to.field(1).type());
      case TypeId::kStruct: {
        if (from.num_fields() != to.num_fields()) return false;
        for (int i = 0; i < from.num_fields(); ++i) {
          if (!CanImplicitCast(*from.field(i).type(), *to.field(i).type())) return false;
        }
        return true;
      }
      case TypeId::kFixed:
        return from.byte_width() == to.byte_width();
      default:
        // Same type; decimals of any precision and scale convert implicitly.
        return true;
    }
  }
  const int rf = NumericRank(f);
  const int rt = NumericRank(t);
  if (rf >= 0 && rt >= 0) return rf < rt;
  if (f == TypeId::kDate) return IsTimestampId(t);
  if (IsTimestampId(f) && IsTimestampId(t)) {
    // timestamp -> timestamptz; nanosecond values narrow implicitly to microseconds.
    if (HasZone(f) && !HasZone(t)) return false;
    return !IsNanos(t) || IsNanos(f);
  }
  return false;
}

bool CanExplicitCast(const DataType& from, const DataType& to) {
  if (CanImplicitCast(from, to)) return true;
  if (internal::IsJsonCast(from, to)) return internal::CanExplicitCastJson(from, to);
  if (internal::IsIntervalCast(from, to)) return internal::CanExplicitCastInterval(from, to);
  if (internal::IsNumericCast(from, to)) return internal::CanExplicitCastNumeric(from, to);
  const TypeId f = from.id();
  const TypeId t = to.id();
  // Every scalar type has a text form and text input.
  if (IsScalarId(f) && t == TypeId::kString) return true;
  if (f == TypeId::kString && IsScalarId(t)) return true;
  // Arrays have PostgreSQL's text form and text input.
  if ((f == TypeId::kList && t == TypeId::kString) ||
      (f == TypeId::kString && t == TypeId::kList)) {
    return true;
  }
  if (NumericRank(f) >= 0 && NumericRank(t) >= 0) return true;
  if (f == TypeId::kBoolean && to.is_integer()) return true;
  if (from.is_integer() && t == TypeId::kBoolean) return true;
  const bool f_temporal = f == TypeId::kDate || IsTimestampId(f);
  const bool t_temporal = t == TypeId::kDate || IsTimestampId(t);
  if (f_temporal && t_temporal) return true;
  if (IsTimestampId(f) && t == TypeId::kTime) return true;
  if (f == TypeId::kBinary && (t == TypeId::kFixed || t == TypeId::kUuid)) return true;
  if ((f == TypeId::kFixed || f == TypeId::kUuid) && t == TypeId::kBinary) return true;
  if (f == t && f == TypeId::kList) {
    return CanExplicitCast(*from.field(0).type(), *to.field(0).type());
  }
  // Records have PostgreSQL's text form and text input, and convert field by field.
  if ((f == TypeId::kStruct && t == TypeId::kString) ||
      (f == TypeId::kString && t == TypeId::kStruct)) {
    return true;
  }
  if (f == t && f == TypeId::kStruct) {
    if (from.num_fields() != to.num_fields()) return false;
    for (int i = 0; i < from.num_fields(); ++i) {
      if (!CanExplicitCast(*from.field(i).type(), *to.field(i).type())) return false;
    }
    return true;
  }
  return false;
}

Result<TypePtr> CommonType(const TypePtr& a, const TypePtr& b, std::string_view context) {
  if (!a) return b;
  if (!b) return a;
  const TypeId ia = a->id();
  const TypeId ib = b->id();
  auto mismatch = [&]() {
    return Status::Bind("{} types {} and {} cannot be matched", context, internal::SqlTypeName(a),
                        internal::SqlTypeName(b));
  };
  if (a->Equals(*b)) return a;
  // character(n) and text meet as text (bpchar's implicit cast).
  if (ia == TypeId::kString && ib == TypeId::kString &&
      ((a->is_bpchar() && b->extension() == Extension::kNone) ||
       (b->is_bpchar() && a->extension() == Extension::kNone))) {
    return String();
  }
  // numeric meets integers and numeric(p, s) as numeric, and the floats as double.
  if (a->is_numeric() || b->is_numeric()) {
    const TypePtr& other = a->is_numeric() ? b : a;
    if (other->is_numeric()) return a;
    if (other->extension() == Extension::kNone) {
      if (other->is_floating()) return Float64();
      if (other->is_integer() || other->id() == TypeId::kDecimal) return Numeric();
    }
    return mismatch();
  }
  const int ra = NumericRank(ia);
  const int rb = NumericRank(ib);
  if (ra >= 0 && rb >= 0) {
    if (a->is_floating() || b->is_floating()) {
      return ia == TypeId::kFloat32 && ib == TypeId::kFloat32 ? Float32() : Float64();
    }
    if (ia == TypeId::kDecimal || ib == TypeId::kDecimal) {
      // PostgreSQL's numeric values keep their own scales: where the scales differ
      // (VALUES (1), (2.5), CASE ... THEN 1.50 ELSE 0 END) the values are numerics.
      if (a->scale() != b->scale()) return Numeric();
      return DecimalCommonType(*a, *b);
    }
    return ra >= rb ? a : b;
  }
  const bool ta = ia == TypeId::kDate || IsTimestampId(ia);
  const bool tb = ib == TypeId::kDate || IsTimestampId(ib);
  if (ta && tb) {
    if (ia == TypeId::kDate) return b;
    if (ib == TypeId::kDate) return a;
    const bool zone = HasZone(ia) || HasZone(ib);
    const bool nanos = IsNanos(ia) && IsNanos(ib);
    if (zone) return nanos ? TimestampTzNs() : TimestampTz();
    return nanos ? TimestampNs() : Timestamp();
  }
  if (ia == ib) {
    switch (ia) {
      case TypeId::kList: {
        FLOE_ASSIGN_OR_RAISE(TypePtr element,
                             CommonType(a->field(0).type(), b->field(0).type(), context));
        return List(element, a->field(0).nullable() || b->field(0).nullable());
      }
      case TypeId::kStruct: {
        if (a->num_fields() != b->num_fields()) return mismatch();
        std::vector<Field> fields;
        for (int i = 0; i < a->num_fields(); ++i) {
          auto t = CommonType(a->field(i).type(), b->field(i).type(), context);
          if (!t.ok()) return mismatch();
          fields.emplace_back(a->field(i).name(), *t,
                              a->field(i).nullable() || b->field(i).nullable());
        }
        return Struct(std::move(fields));
      }
      case TypeId::kMap: {
        auto k = CommonType(a->field(0).type(), b->field(0).type(), context);
        auto v = CommonType(a->field(1).type(), b->field(1).type(), context);
        if (!k.ok() || !v.ok()) return mismatch();
        return Map(*k, *v);
      }
      default:
        break;
    }
  }
  return mismatch();
}

Result<TypePtr> ComparisonType(const TypePtr& a, const TypePtr& b, std::string_view context) {
  if (a && b && IsExactNumber(*a) && IsExactNumber(*b) &&
      (a->id() == TypeId::kDecimal || b->id() == TypeId::kDecimal)) {
    return DecimalCommonType(*a, *b);
  }
  return CommonType(a, b, context);
}

}  // namespace floe::expr
