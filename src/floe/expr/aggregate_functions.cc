// Aggregate resolution: argument types -> the types to cast to, PostgreSQL's result type
// and the partial state's columns. The accumulators behind these names are in
// aggregate.cc.
//
// Result types follow PostgreSQL's:
//   count(x), count(*)         int64
//   sum(int2/int4)             int64;  sum(int8) -> decimal(38,0);  sum(decimal(p,s)) ->
//                              decimal(38,s);  sum(numeric) -> numeric;  sum(real) -> real;
//                              sum(double) -> double
//   avg(integers, decimals,    numeric (the scale of PostgreSQL's numeric division:
//       numeric)               avg(integer) of 38 / 3 is 12.6666666666666667);
//                              avg(real/double) -> double
//   min/max                    the argument's type (every orderable scalar type)
//   bool_and/bool_or/every     boolean
//   string_agg(text, text)     text;  string_agg(bytea, bytea) -> bytea
//   array_agg(T)               T[] (a list; over arrays one dimension more; records too)
//   stddev*/var*               numeric for integers, decimals and numerics (exact, at
//                              numeric division's scale), double for floats
//   json_agg, json_object_agg  json; jsonb_agg, jsonb_object_agg -> jsonb (any values)

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/expr/aggregate_internal.h"
#include "floe/expr/function_registry.h"

namespace floe::expr {

namespace internal {

std::string SqlTypeName(const TypePtr& type) {
  return type && !IsUnknownType(type) ? floe::SqlTypeName(*type) : "unknown";
}

std::string SignatureText(std::string_view name, const std::vector<TypePtr>& arg_types) {
  std::string out(name);
  out += '(';
  for (size_t i = 0; i < arg_types.size(); ++i) {
    if (i > 0) out += ", ";
    out += SqlTypeName(arg_types[i]);
  }
  out += ')';
  return out;
}

bool IsOrderableScalar(const TypePtr& type) { return type != nullptr && !type->is_nested(); }

}  // namespace internal

namespace {

using internal::SignatureText;

// An array of orderable scalars (or of such arrays), which min and max take.
bool IsOrderableArray(const DataType& type) {
  if (type.id() != TypeId::kList) return false;
  const TypePtr& element = type.field(0).type();
  return internal::IsOrderableScalar(element) || IsOrderableArray(*element);
}

Status NoSuchAggregate(std::string_view name, const std::vector<TypePtr>& arg_types) {
  return Status::Bind("function {} does not exist", SignatureText(name, arg_types));
}

using internal::AggregateOp;

// Every aggregate function, once: its names (the first of each op is the canonical one, which
// ResolvedAggregate::name carries and the plan codec sends) and whether empty input gives 0.
struct AggregateName {
  std::string_view name;
  AggregateOp op;
  bool never_null = false;
};

constexpr AggregateName kAggregates[] = {
    {"count_star", AggregateOp::kCountStar, true},
    {"count", AggregateOp::kCount, true},
    {"sum", AggregateOp::kSum},
    {"avg", AggregateOp::kAvg},
    {"min", AggregateOp::kMin},
    {"max", AggregateOp::kMax},
    {"bool_and", AggregateOp::kBoolAnd},
    {"every", AggregateOp::kBoolAnd},
    {"bool_or", AggregateOp::kBoolOr},
    {"string_agg", AggregateOp::kStringAgg},
    {"array_agg", AggregateOp::kArrayAgg},
    {"var_samp", AggregateOp::kVarSamp},
    {"variance", AggregateOp::kVarSamp},
    {"var_pop", AggregateOp::kVarPop},
    {"stddev_samp", AggregateOp::kStddevSamp},
    {"stddev", AggregateOp::kStddevSamp},
    {"stddev_pop", AggregateOp::kStddevPop},
    {"json_agg", AggregateOp::kJsonAgg},
    {"jsonb_agg", AggregateOp::kJsonbAgg},
    {"json_object_agg", AggregateOp::kJsonObjectAgg},
    {"jsonb_object_agg", AggregateOp::kJsonbObjectAgg},
};

const AggregateName& Canonical(AggregateOp op) {
  for (const AggregateName& a : kAggregates) {
    if (a.op == op) return a;
  }
  return kAggregates[0];  // unreachable: every op has a name
}

bool IsNumeric(const TypePtr& t) {
  return t &&
         (t->is_integer() || t->is_floating() || t->id() == TypeId::kDecimal || t->is_numeric());
}

// The state columns of the non-distinct form of an aggregate.
std::vector<Field> StateFields(AggregateOp op, const ResolvedAggregate& agg) {
  switch (op) {
    case AggregateOp::kCountStar:
    case AggregateOp::kCount:
      return {Field("count", Int64(), false)};
    case AggregateOp::kSum: {
      const TypePtr& in = agg.arg_types[0];
      if (in->is_integer() && in->id() != TypeId::kInt64) return {Field("sum", Int64())};
      return {Field("sum", agg.return_type)};
    }
    case AggregateOp::kAvg: {
      const TypePtr& in = agg.arg_types[0];
      if (in->is_numeric()) return {Field("sum", Numeric()), Field("count", Int64(), false)};
      TypePtr sum_type = in->is_floating()              ? Float64()
                         : in->id() == TypeId::kDecimal ? Decimal(38, in->scale())
                                                        : Decimal(38, 0);
      return {Field("sum", sum_type), Field("count", Int64(), false)};
    }
    case AggregateOp::kMin:
    case AggregateOp::kMax:
      return {Field(agg.name, agg.return_type)};
    case AggregateOp::kBoolAnd:
    case AggregateOp::kBoolOr:
      return {Field(agg.name, Boolean())};
    case AggregateOp::kStringAgg:
      // The concatenation so far and the delimiter that precedes it when it is appended to
      // another partial result.
      return {Field("string_agg", agg.return_type), Field("delimiter", agg.return_type)};
    case AggregateOp::kJsonAgg:
    case AggregateOp::kJsonbAgg:
    case AggregateOp::kJsonObjectAgg:
    case AggregateOp::kJsonbObjectAgg:
      // The JSON text of the items so far, without brackets (json_aggregate.cc).
      return {Field("items", String())};
    case AggregateOp::kArrayAgg:
      // The values so far, in order.
      return {Field("array_agg", agg.return_type)};
    case AggregateOp::kVarSamp:
    case AggregateOp::kVarPop:
    case AggregateOp::kStddevSamp:
    case AggregateOp::kStddevPop:
      break;
  }
  // stddev / variance of exact numbers: the count, sum and sum of squares, as numerics.
  if (agg.return_type->is_numeric()) {
    return {Field("count", Int64(), false), Field("sum", Numeric()),
            Field("sum_squares", Numeric())};
  }
  // Of floats: Welford's running count, mean and sum of squared deviations.
  return {Field("count", Int64(), false), Field("mean", Float64()), Field("m2", Float64())};
}

}  // namespace

namespace internal {

std::optional<AggregateOp> FindAggregateOp(std::string_view name) {
  for (const AggregateName& a : kAggregates) {
    if (a.name == name) return a.op;
  }
  return std::nullopt;
}

}  // namespace internal

bool IsAggregateFunction(std::string_view name) {
  return internal::FindAggregateOp(name).has_value();
}

bool AggregateNeverNull(std::string_view name) {
  std::optional<AggregateOp> op = internal::FindAggregateOp(name);
  return op.has_value() && Canonical(*op).never_null;
}

bool IsCountStar(std::string_view name) {
  return internal::FindAggregateOp(name) == AggregateOp::kCountStar;
}

Result<ResolvedAggregate> ResolveAggregate(std::string_view name,
                                           const std::vector<TypePtr>& arg_types, bool distinct) {
  std::optional<AggregateOp> found = internal::FindAggregateOp(name);
  if (!found) return NoSuchAggregate(name, arg_types);
  for (const TypePtr& t : arg_types) {
    if (!t) return NoSuchAggregate(name, arg_types);
  }
  const size_t n = arg_types.size();
  AggregateOp op = *found;
  if (op == AggregateOp::kCount && n == 0) op = AggregateOp::kCountStar;
  ResolvedAggregate agg;
  agg.name = std::string(Canonical(op).name);
  agg.never_null = Canonical(op).never_null;
  agg.distinct = distinct;

  switch (op) {
    case AggregateOp::kCountStar:
      if (n != 0) return NoSuchAggregate(name, arg_types);
      if (distinct) return Status::Bind("count(DISTINCT *) is not valid");
      agg.return_type = Int64();
      break;
    case AggregateOp::kCount:
      if (n != 1) return NoSuchAggregate(name, arg_types);
      agg.arg_types = arg_types;
      agg.return_type = Int64();
      break;
    case AggregateOp::kSum: {
      if (n != 1 || !IsNumeric(arg_types[0])) return NoSuchAggregate(name, arg_types);
      const TypePtr& in = arg_types[0];
      agg.arg_types = {in};
      switch (in->id()) {
        case TypeId::kInt8:
        case TypeId::kInt16:
        case TypeId::kInt32:
          agg.return_type = Int64();
          break;
        case TypeId::kInt64:
          agg.return_type = Decimal(38, 0);
          break;
        case TypeId::kDecimal:
          agg.return_type = Decimal(38, in->scale());
          break;
        case TypeId::kFloat32:
          agg.return_type = Float32();
          break;
        default:
          agg.return_type = in->is_numeric() ? Numeric() : Float64();
          break;
      }
      break;
    }
    case AggregateOp::kAvg: {
      if (n != 1 || !IsNumeric(arg_types[0])) return NoSuchAggregate(name, arg_types);
      const TypePtr& in = arg_types[0];
      agg.arg_types = {in};
      agg.return_type = in->is_floating() ? Float64() : Numeric();
      break;
    }
    case AggregateOp::kMin:
    case AggregateOp::kMax:
      // Scalars, and arrays in PostgreSQL's array order (not maps or records).
      if (n != 1 ||
          (!internal::IsOrderableScalar(arg_types[0]) && !IsOrderableArray(*arg_types[0]))) {
        return NoSuchAggregate(name, arg_types);
      }
      agg.arg_types = arg_types;
      agg.return_type = arg_types[0];
      break;
    case AggregateOp::kBoolAnd:
    case AggregateOp::kBoolOr:
      if (n != 1 || arg_types[0]->id() != TypeId::kBoolean) {
        return NoSuchAggregate(name, arg_types);
      }
      agg.arg_types = arg_types;
      agg.return_type = Boolean();
      break;
    case AggregateOp::kStringAgg: {
      if (n != 2) return NoSuchAggregate(name, arg_types);
      const TypeId a = arg_types[0]->id();
      const TypeId b = arg_types[1]->id();
      if (a == TypeId::kString && b == TypeId::kString) {
        agg.arg_types = {String(), String()};
        agg.return_type = String();
      } else if ((a == TypeId::kBinary || a == TypeId::kFixed) &&
                 (b == TypeId::kBinary || b == TypeId::kFixed)) {
        agg.arg_types = {Binary(), Binary()};
        agg.return_type = Binary();
      } else {
        return NoSuchAggregate(name, arg_types);
      }
      break;
    }
    case AggregateOp::kArrayAgg:
      if (n != 1 || arg_types[0]->id() == TypeId::kMap) {
        return NoSuchAggregate(name, arg_types);
      }
      agg.arg_types = arg_types;
      agg.return_type = List(arg_types[0]);
      break;
    case AggregateOp::kVarSamp:
    case AggregateOp::kVarPop:
    case AggregateOp::kStddevSamp:
    case AggregateOp::kStddevPop:
      if (n != 1 || !IsNumeric(arg_types[0])) return NoSuchAggregate(name, arg_types);
      // Exact numbers give PostgreSQL's numeric (computed exactly), floats a double.
      agg.arg_types = {arg_types[0]->is_floating() ? Float64() : Numeric()};
      agg.return_type = agg.arg_types[0];
      break;
    case AggregateOp::kJsonAgg:
    case AggregateOp::kJsonbAgg:
    case AggregateOp::kJsonObjectAgg:
    case AggregateOp::kJsonbObjectAgg: {
      // Values of any type (json_functions.cc writes them as JSON).
      const bool object = op == AggregateOp::kJsonObjectAgg || op == AggregateOp::kJsonbObjectAgg;
      if (n != (object ? 2u : 1u)) return NoSuchAggregate(name, arg_types);
      agg.arg_types = arg_types;
      agg.return_type =
          op == AggregateOp::kJsonAgg || op == AggregateOp::kJsonObjectAgg ? Json() : Jsonb();
      break;
    }
  }

  if (distinct) {
    // The distinct values of every argument, aligned (one list per argument).
    for (size_t i = 0; i < agg.arg_types.size(); ++i) {
      agg.state_fields.emplace_back("distinct_" + std::to_string(i), List(agg.arg_types[i], true));
    }
  } else {
    agg.state_fields = StateFields(op, agg);
  }
  return agg;
}

}  // namespace floe::expr
