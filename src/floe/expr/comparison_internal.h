#pragma once

// Comparison of an array against one constant, prepared once and run as a tight loop.
// Shared by the comparison kernels (comparison.cc) and filter predicates
// (filter_predicate.cc), which also use it to re-test only the rows still selected.

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "floe/batch/array.h"
#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/type/type.h"

namespace floe::expr::internal {

enum class CmpOp { kEq, kNe, kLt, kLe, kGt, kGe };

/// The comparison for an operator name ("eq", "ne", "lt", "le", "gt", "ge").
std::optional<CmpOp> CmpOpFromName(std::string_view name);

/// `value op constant` for the values of one array type. The constant is converted
/// once: a decimal constant of another scale is rescaled exactly to the values' scale
/// (a constant with more fractional digits than the values can hold turns `=` into
/// false, `<` into `<=` of the value below it, and so on), and `constant op value` is
/// turned around. Results on NULL values are unspecified: callers mask them.
class ConstantComparison {
 public:
  /// nullopt when the pair is not supported (nested or boolean values, a NULL constant,
  /// or types of different physical representation).
  static std::optional<ConstantComparison> Make(CmpOp op, const DataType& value_type,
                                                const DataType& constant_type,
                                                const Scalar& constant, bool constant_first);

  /// Bit i of `bits` (from bit 0; whole bytes written) = values[i] op constant, for every
  /// row of `values`, NULL rows included (their bits are unspecified).
  void Compare(const Array& values, uint8_t* bits) const;

  /// Clears each set bit i of `bits` (over values.length() rows) unless values[i] is
  /// valid and values[i] op constant holds. Costs time per set bit, not per row, so it
  /// suits a selection that is already sparse.
  void Refine(const Array& values, uint8_t* bits) const;

 private:
  // A constant outcome on non-NULL values (a rescaled decimal constant outside the
  // values' range, or with digits they cannot hold).
  enum class Outcome { kCompare, kAllTrue, kAllFalse };

  ConstantComparison(CmpOp op, TypeId physical, Scalar constant, Outcome outcome)
      : op_(op), physical_(physical), constant_(std::move(constant)), outcome_(outcome) {}

  CmpOp op_;
  TypeId physical_;  // the values' type id
  Scalar constant_;  // in the values' representation
  Outcome outcome_;
};

/// A three-way comparison (-1, 0, 1) of value i of one array with value j of another.
using ElementCompare = std::function<int(int64_t, int64_t)>;

/// PostgreSQL's btree order between the values of two arrays of one type (decimals of any
/// scale), array elements and record fields included: NULL after every value and equal to
/// NULL, arrays as array_cmp orders them, records field by field (array_functions.cc). The
/// comparison refers to `a` and `b`, which must outlive it. kNotSupported for maps.
Result<ElementCompare> MakeElementCompare(const Array& a, const Array& b);

/// Registers =, <>, <, <=, >, >= and IS [NOT] DISTINCT FROM for `type`, one of the types
/// whose values compare by their value keys (batch/value_key.h: interval, numeric), with
/// arguments any type that passes as it implicitly.
void RegisterValueKeyComparisons(ScalarFunctionRegistry& registry, const TypePtr& type);

/// ANDs the validity of `values` into bits 0..length-1 of `bits` (NULL rows cleared).
void AndValidity(const Array& values, uint8_t* bits);

}  // namespace floe::expr::internal
