#include "floe/batch/scalar.h"

#include "floe/type/type_visit.h"

namespace floe {

Scalar ScalarAt(const Array& array, int64_t i) { return ScalarAt(array, i, array.type()); }

Scalar ScalarAt(const Array& array, int64_t i, const TypePtr& type) {
  if (array.IsNull(i)) return Scalar::Null(type);
  return VisitPhysicalType(type->id(), [&]<typename T>(TypeTag<T>) {
    if constexpr (std::is_void_v<T>) {
      return Scalar::Null(type);
    } else if constexpr (std::is_same_v<T, bool>) {
      return Scalar::Make(type, array.BoolValue(i));
    } else if constexpr (std::is_same_v<T, Int128>) {
      return Scalar::Make(type, array.DecimalValue(i));
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      return Scalar::Make(type, std::string(array.BytesValue(i)));
    } else {
      return Scalar::Make(type, static_cast<ScalarStorageOf<T>>(array.Value<T>(i)));
    }
  });
}

}  // namespace floe
