// Aggregate resolution: argument types -> the types to cast to, PostgreSQL's result type
// and the partial state's columns. The accumulators behind these names are in
// aggregate.cc.
//
// Result types follow PostgreSQL except where floe has no unbounded numeric:
//   count(x), count(*)         int64
//   sum(int2/int4)             int64;  sum(int8) -> decimal(38,0);  sum(decimal(p,s)) ->
//                              decimal(38,s);  sum(real) -> real;  sum(double) -> double
//   avg(integers)              decimal(38,6) (PostgreSQL's numeric shows more digits)
//   avg(decimal(p,s))          decimal(38, max(s,6));  avg(real/double) -> double
//   min/max                    the argument's type (every orderable scalar type)
//   bool_and/bool_or/every     boolean
//   string_agg(text, text)     text;  string_agg(bytea, bytea) -> bytea
//   stddev*/var*               double (PostgreSQL gives numeric for exact inputs)

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "floe/expr/aggregate_internal.h"
#include "floe/expr/function_registry.h"

namespace floe::expr {

namespace internal {

std::string SqlTypeName(const TypePtr& type) {
  return type ? floe::SqlTypeName(*type) : "unknown";
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

Status NoSuchAggregate(std::string_view name, const std::vector<TypePtr>& arg_types) {
  return Status::Bind("function {} does not exist", SignatureText(name, arg_types));
}

std::string_view CanonicalAggregateName(std::string_view name) {
  if (name == "every") return "bool_and";
  if (name == "stddev") return "stddev_samp";
  if (name == "variance") return "var_samp";
  return name;
}

constexpr std::string_view kAggregateNames[] = {
    "count",      "count_star", "sum",      "avg",        "min",    "max",
    "bool_and",   "bool_or",    "every",    "string_agg", "stddev", "stddev_samp",
    "stddev_pop", "variance",   "var_samp", "var_pop"};

bool IsNumeric(const TypePtr& t) {
  return t && (t->is_integer() || t->is_floating() || t->id() == TypeId::kDecimal);
}

// The state columns of the non-distinct form of an aggregate.
std::vector<Field> StateFields(const ResolvedAggregate& agg) {
  const std::string& n = agg.name;
  if (n == "count" || n == "count_star") return {Field("count", Int64(), false)};
  if (n == "sum") {
    const TypePtr& in = agg.arg_types[0];
    if (in->is_integer() && in->id() != TypeId::kInt64) return {Field("sum", Int64())};
    return {Field("sum", agg.return_type)};
  }
  if (n == "avg") {
    const TypePtr& in = agg.arg_types[0];
    TypePtr sum_type = in->is_floating()              ? Float64()
                       : in->id() == TypeId::kDecimal ? Decimal(38, in->scale())
                                                      : Decimal(38, 0);
    return {Field("sum", sum_type), Field("count", Int64(), false)};
  }
  if (n == "min" || n == "max") return {Field(n, agg.return_type)};
  if (n == "bool_and" || n == "bool_or") return {Field(n, Boolean())};
  if (n == "string_agg") {
    // The concatenation so far and the delimiter that precedes it when it is appended to
    // another partial result.
    return {Field("string_agg", agg.return_type), Field("delimiter", agg.return_type)};
  }
  // stddev / variance: Welford's running count, mean and sum of squared deviations.
  return {Field("count", Int64(), false), Field("mean", Float64()), Field("m2", Float64())};
}

}  // namespace

bool IsAggregateFunction(std::string_view name) {
  return std::find(std::begin(kAggregateNames), std::end(kAggregateNames), name) !=
         std::end(kAggregateNames);
}

Result<ResolvedAggregate> ResolveAggregate(std::string_view name,
                                           const std::vector<TypePtr>& arg_types, bool distinct) {
  ResolvedAggregate agg;
  std::string_view canonical = CanonicalAggregateName(name);
  if (canonical == "count" && arg_types.empty()) canonical = "count_star";
  agg.name = std::string(canonical);
  agg.distinct = distinct;
  const size_t n = arg_types.size();
  if (!IsAggregateFunction(name)) return NoSuchAggregate(name, arg_types);
  for (const TypePtr& t : arg_types) {
    if (!t) return NoSuchAggregate(name, arg_types);
  }

  if (canonical == "count_star") {
    if (n != 0) return NoSuchAggregate(name, arg_types);
    if (distinct) return Status::Bind("count(DISTINCT *) is not valid");
    agg.return_type = Int64();
  } else if (canonical == "count") {
    if (n != 1) return NoSuchAggregate(name, arg_types);
    agg.arg_types = arg_types;
    agg.return_type = Int64();
  } else if (canonical == "sum") {
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
        agg.return_type = Float64();
        break;
    }
  } else if (canonical == "avg") {
    if (n != 1 || !IsNumeric(arg_types[0])) return NoSuchAggregate(name, arg_types);
    const TypePtr& in = arg_types[0];
    if (in->is_floating()) {
      agg.arg_types = {in};
      agg.return_type = Float64();
    } else if (in->id() == TypeId::kDecimal) {
      agg.arg_types = {in};
      agg.return_type = Decimal(38, std::max(in->scale(), internal::kAvgMinScale));
    } else {
      agg.arg_types = {in};
      agg.return_type = Decimal(38, internal::kAvgMinScale);
    }
  } else if (canonical == "min" || canonical == "max") {
    if (n != 1 || !internal::IsOrderableScalar(arg_types[0])) {
      return NoSuchAggregate(name, arg_types);
    }
    agg.arg_types = arg_types;
    agg.return_type = arg_types[0];
  } else if (canonical == "bool_and" || canonical == "bool_or") {
    if (n != 1 || arg_types[0]->id() != TypeId::kBoolean) {
      return NoSuchAggregate(name, arg_types);
    }
    agg.arg_types = arg_types;
    agg.return_type = Boolean();
  } else if (canonical == "string_agg") {
    if (n != 2) return NoSuchAggregate(name, arg_types);
    TypeId a = arg_types[0]->id();
    TypeId b = arg_types[1]->id();
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
  } else {
    // stddev_samp, stddev_pop, var_samp, var_pop.
    if (n != 1 || !IsNumeric(arg_types[0])) return NoSuchAggregate(name, arg_types);
    agg.arg_types = {Float64()};
    agg.return_type = Float64();
  }

  if (distinct) {
    // The distinct values of every argument, aligned (one list per argument).
    for (size_t i = 0; i < agg.arg_types.size(); ++i) {
      agg.state_fields.emplace_back("distinct_" + std::to_string(i), List(agg.arg_types[i], true));
    }
  } else {
    agg.state_fields = StateFields(agg);
  }
  return agg;
}

}  // namespace floe::expr
