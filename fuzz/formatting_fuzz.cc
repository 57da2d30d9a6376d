// libFuzzer target: the template engine of to_char, to_timestamp, to_date and to_number
// (expr/formatting.h). The input is a template, a NUL byte, then the text to read with it
// (without a NUL, the whole input is both). The template formats a few fixed values (dates
// and times from the range's ends to today's, integers, decimals and floats) and reads the
// text as a timestamp, a date and a number. Errors are fine; a crash, sanitizer report or
// hang is a bug.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "floe/expr/formatting.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const size_t nul = bytes.find('\0');
  const std::string_view format = bytes.substr(0, nul);
  const std::string_view input = nul == std::string_view::npos ? bytes : bytes.substr(nul + 1);

  const floe::expr::DateTimeTemplate dt = floe::expr::DateTimeTemplate::Parse(format);
  // 4714-11-24 BC, 1 BC, the epoch, 2024-03-05 13:04:05.123456, the last microsecond.
  constexpr int64_t kInstants[] = {-210866803200000000LL, -62162035200000000LL, 0,
                                   1709643845123456LL, std::numeric_limits<int64_t>::max() - 1};
  for (int64_t t : kInstants) {
    (void)dt.Format(t, false);
    (void)dt.Format(t, true);
  }
  (void)dt.ToTimestamp(input);
  (void)dt.ToDate(input);

  auto number = floe::expr::NumberTemplate::Parse(format);
  if (number.ok()) {
    for (int64_t v : {int64_t{0}, int64_t{-12}, int64_t{1994}, std::numeric_limits<int64_t>::min(),
                      std::numeric_limits<int64_t>::max()}) {
      (void)number->FormatInteger(v, false);
      (void)number->FormatInteger(static_cast<int32_t>(v), true);
    }
    const floe::Int128 big = static_cast<floe::Int128>(std::numeric_limits<int64_t>::max()) *
                             std::numeric_limits<int64_t>::max();
    (void)number->FormatDecimal(-12345, 3);
    (void)number->FormatDecimal(big, 38);
    (void)number->FormatDecimal(-big, 0);
    for (double v : {0.5, -1.0 / 3, 1e300, -0.0, std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
      (void)number->FormatFloat(v, false);
      (void)number->FormatFloat(static_cast<float>(v), true);
    }
    (void)number->ToNumber(input);
  }
  return 0;
}
