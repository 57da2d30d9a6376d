#pragma once

// Values of the extension types that compare by what they mean rather than by their bytes:
// intervals by their span ('1 mon' = '30 days', common/interval.h) and numerics by their
// value (1.5 = 1.50, common/numeric.h). Sorting, grouping, hashing, DISTINCT and min/max
// use these keys for them; every other fixed-width value is its own key.

#include <cstdint>
#include <string_view>

#include "floe/type/type.h"

namespace floe {

/// Whether values of `type` compare by a key of their own (interval, numeric).
inline bool HasValueKey(const DataType& type) { return type.is_interval() || type.is_numeric(); }

/// The key of one value of such a type (its stored bytes): type.byte_width() bytes whose
/// unsigned byte order is the values' order, the same for equal values.
void StoreValueKey(const DataType& type, std::string_view bytes, uint8_t* out);

/// -1, 0 or 1 as two values of such a type compare.
int CompareByValueKey(const DataType& type, std::string_view a, std::string_view b);

}  // namespace floe
