#pragma once

// The one switch from a TypeId to the physical C++ type its values are stored as (as Arrow's
// VisitTypeInline): every storage-kind dispatch goes through VisitPhysicalType instead of a
// switch of its own, so a new type is added in one place.
//
//   bool              boolean
//   int8_t, int16_t   int8, int16
//   int32_t           int32, date
//   int64_t           int64, time, timestamp, timestamptz, timestamp_ns, timestamptz_ns
//   float, double     float32, float64
//   Int128            decimal (the unscaled value)
//   std::string_view  string, binary, fixed, uuid
//   void              struct, list, map (no single physical value)

#include <cstdint>
#include <string_view>

#include "floe/type/type.h"

namespace floe {

/// A tag naming a physical C++ type, for dispatch by TypeId.
template <typename T>
struct TypeTag {
  using type = T;
};

/// Calls fn(TypeTag<C>{}) with the physical type C of `id` (table above) and returns its
/// result.
template <typename Fn>
decltype(auto) VisitPhysicalType(TypeId id, Fn&& fn) {
  switch (id) {
    case TypeId::kBoolean:
      return fn(TypeTag<bool>{});
    case TypeId::kInt8:
      return fn(TypeTag<int8_t>{});
    case TypeId::kInt16:
      return fn(TypeTag<int16_t>{});
    case TypeId::kInt32:
    case TypeId::kDate:
      return fn(TypeTag<int32_t>{});
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return fn(TypeTag<int64_t>{});
    case TypeId::kFloat32:
      return fn(TypeTag<float>{});
    case TypeId::kFloat64:
      return fn(TypeTag<double>{});
    case TypeId::kDecimal:
      return fn(TypeTag<Int128>{});
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid:
      return fn(TypeTag<std::string_view>{});
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      break;
  }
  return fn(TypeTag<void>{});
}

}  // namespace floe
