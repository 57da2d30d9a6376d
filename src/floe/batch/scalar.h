#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "floe/batch/array.h"
#include "floe/type/type.h"

namespace floe {

/// One typed value, or a typed NULL. The representation follows the array layout:
///   boolean -> bool; int8/16/32, date -> int32_t; int64, time, timestamps -> int64_t;
///   float32 -> float; float64 -> double; decimal -> Int128 (unscaled);
///   string, binary, fixed, uuid -> std::string (raw bytes).
/// Nested types are not scalars.
class Scalar {
 public:
  using Storage =
      std::variant<std::monostate, bool, int32_t, int64_t, float, double, Int128, std::string>;

  /// A NULL of `type`.
  static Scalar Null(TypePtr type) { return Scalar(std::move(type), std::monostate{}); }
  static Scalar Make(TypePtr type, Storage value) {
    return Scalar(std::move(type), std::move(value));
  }

  static Scalar Bool(bool v) { return Scalar(Boolean(), v); }
  static Scalar I32(int32_t v) { return Scalar(Int32(), v); }
  static Scalar I64(int64_t v) { return Scalar(Int64(), v); }
  static Scalar F64(double v) { return Scalar(Float64(), v); }
  static Scalar Str(std::string v) { return Scalar(String(), std::move(v)); }

  const TypePtr& type() const { return type_; }
  bool is_null() const { return std::holds_alternative<std::monostate>(value_); }
  const Storage& value() const { return value_; }
  template <typename T>
  const T& get() const {
    return std::get<T>(value_);
  }

 private:
  Scalar(TypePtr type, Storage value) : type_(std::move(type)), value_(std::move(value)) {}

  TypePtr type_;
  Storage value_;
};

/// The Scalar::Storage alternative that holds values of physical type T (type_visit.h):
/// int8 and int16 widen to int32_t, byte views become std::string.
template <typename T>
using ScalarStorageOf =
    std::conditional_t<std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t>, int32_t,
                       std::conditional_t<std::is_same_v<T, std::string_view>, std::string, T>>;

/// Value `i` of `array` as a Scalar of the array's type; a NULL when the slot is NULL or the
/// type is nested (nested values are not scalars).
Scalar ScalarAt(const Array& array, int64_t i);
/// The same, stamped with `type`, which must have the array's physical type (e.g. a date
/// stored in an int32 array).
Scalar ScalarAt(const Array& array, int64_t i, const TypePtr& type);

}  // namespace floe
