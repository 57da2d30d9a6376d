#include "floe/batch/value_key.h"

#include <cstring>

#include "floe/common/interval.h"
#include "floe/common/numeric.h"

namespace floe {

void StoreValueKey(const DataType& type, std::string_view bytes, uint8_t* out) {
  if (type.is_numeric()) {
    StoreNumericKey(NumericFromBytes(bytes), out);
    return;
  }
  // An interval: its span in microseconds (a month is 30 days), 16 bytes big-endian with
  // the sign bit flipped.
  const unsigned __int128 u =
      static_cast<unsigned __int128>(IntervalSpan(IntervalFromBytes(bytes))) ^
      (static_cast<unsigned __int128>(1) << 127);
  for (int i = 0; i < 16; ++i) out[i] = static_cast<uint8_t>(u >> (8 * (15 - i)));
}

int CompareByValueKey(const DataType& type, std::string_view a, std::string_view b) {
  if (type.is_numeric()) return CompareNumerics(NumericFromBytes(a), NumericFromBytes(b));
  return CompareIntervals(IntervalFromBytes(a), IntervalFromBytes(b));
}

}  // namespace floe
