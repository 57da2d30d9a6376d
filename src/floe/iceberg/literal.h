#pragma once

// The literals of Iceberg expressions: conversion to a field's type (strings to temporal
// values, uuids and decimals; out-of-range numbers), comparison and SQL text.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::iceberg {

/// Converts a literal to `type`. Out-of-range numeric conversions return nullopt and set
/// `*above_max` (true when the value is above the type's maximum, false when below its
/// minimum). kInvalidArgument when the conversion is not defined or a string does not
/// parse.
Result<std::optional<Scalar>> ConvertLiteral(const Scalar& literal, const TypePtr& type,
                                             bool* above_max);

/// Three-way comparison of two non-null values of the same type (by type id; decimals
/// of equal scale): integers and temporal values numerically, floats by their IEEE
/// total order with -0 == 0 (NaN sorts above everything), strings and binary by unsigned
/// bytes (code point order for UTF-8).
int CompareValues(const Scalar& a, const Scalar& b);

/// The SQL text of a literal: 'abc' quoted, numbers and booleans plain, temporal values
/// as quoted text.
std::string LiteralToString(const Scalar& literal);

}  // namespace floe::iceberg
