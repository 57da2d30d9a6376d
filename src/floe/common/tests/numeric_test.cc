// PostgreSQL's numeric: input and output, the result scales of its arithmetic (answers as
// PostgreSQL 15 gives them), the special values, the sort key and the storage bytes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "floe/common/numeric.h"

namespace floe {
namespace {

NumericValue N(std::string_view text) {
  Result<NumericValue> v = ParseNumeric(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().ToString();
  return v.ok() ? *v : NumericValue::NaN();
}

std::string T(const Result<NumericValue>& v) {
  return v.ok() ? NumericText(*v) : "error: " + v.status().message();
}

TEST(NumericTest, InputAndOutputAsPostgreSql) {
  const std::pair<const char*, const char*> cases[] = {
      {"12.50", "12.50"},
      {" -0.0 ", "0.0"},
      {"1.5e3", "1500"},
      {"1e-3", "0.001"},
      {".5", "0.5"},
      {"5.", "5"},
      {"nan", "NaN"},
      {"-inf", "-Infinity"},
      {"+Infinity", "Infinity"},
      {"0001.0100", "1.0100"},
      {"-12345678901234567890.123456789", "-12345678901234567890.123456789"},
      {"0", "0"},
      {"1.5E+2", "150"},
      {"0.000", "0.000"},
  };
  for (const auto& [in, out] : cases) EXPECT_EQ(T(ParseNumeric(in)), out) << in;
  for (const char* bad : {"", ".", "abc", "1e", "1.2.3", "- 1", "1e+", "infinit", "1 2"}) {
    Result<NumericValue> v = ParseNumeric(bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_EQ(v.status().message(),
              std::string("invalid input syntax for type numeric: \"") + bad + "\"");
  }
  // Beyond 38 significant digits or scale 1000: refused, never rounded.
  EXPECT_EQ(ParseNumeric("123456789012345678901234567890123456789").status().code(),
            StatusCode::kNotSupported);
  EXPECT_EQ(ParseNumeric("1e-1001").status().code(), StatusCode::kNotSupported);
  EXPECT_EQ(ParseNumeric("1e99999999999").status().code(), StatusCode::kNotSupported);
  EXPECT_EQ(T(ParseNumeric("1e-1000")).size(), 1002u);
}

TEST(NumericTest, DivisionScaleAsPostgreSql) {
  const std::tuple<const char*, const char*, const char*> cases[] = {
      {"38", "3", "12.6666666666666667"},
      {"10", "3.0", "3.3333333333333333"},
      {"1", "3", "0.33333333333333333333"},
      {"1", "2", "0.50000000000000000000"},
      {"1000000", "3", "333333.333333333333"},
      {"2", "3", "0.66666666666666666667"},
      {"7.5", "2.5", "3.0000000000000000"},
      {"1e-5", "3", "0.000003333333333333333333"},
      {"123456789012345678", "7", "17636684144620811"},
      {"0.000001", "1000000", "0.00000000000100000000000000000000"},
      {"7", "2", "3.5000000000000000"},
      {"300000", "2", "150000.000000000000"},
      {"-2", "3", "-0.66666666666666666667"},
      {"0", "5", "0.00000000000000000000"},
  };
  for (const auto& [a, b, out] : cases) {
    EXPECT_EQ(T(DivideNumerics(N(a), N(b))), out) << a << " / " << b;
  }
  EXPECT_EQ(T(DivideNumerics(N("1"), N("0"))), "error: division by zero");
  EXPECT_EQ(T(DivideNumerics(N("Infinity"), N("0"))), "error: division by zero");
  EXPECT_EQ(T(DivideNumerics(N("NaN"), N("0"))), "NaN");
  EXPECT_EQ(T(DivideNumerics(N("5"), N("Infinity"))), "0");
  EXPECT_EQ(T(DivideNumerics(N("-Infinity"), N("2"))), "-Infinity");
  EXPECT_EQ(T(DivideNumerics(N("Infinity"), N("-Infinity"))), "NaN");
  // A quotient that needs the 256-bit path: 38 digits over 38 digits at scale 20.
  EXPECT_EQ(T(DivideNumerics(N("99999999999999999999999999999999999998"),
                             N("99999999999999999999999999999999999999"))),
            "1.00000000000000000000");
  EXPECT_EQ(T(DivideNumerics(N("12345678901234567890123456789"), N("98765432109876543210.123"))),
            "124999998.86093750");
  EXPECT_EQ(DivideNumerics(N("99999999999999999999999999999999999998"), N("0.003")).status().code(),
            StatusCode::kNotSupported);
}

TEST(NumericTest, ArithmeticAsPostgreSql) {
  EXPECT_EQ(T(MultiplyNumerics(N("1.5"), N("2.25"))), "3.375");
  EXPECT_EQ(T(AddNumerics(N("1.5"), N("2.250"))), "3.750");
  EXPECT_EQ(T(SubtractNumerics(N("1.5"), N("1.5"))), "0.0");
  EXPECT_EQ(T(ModNumerics(N("10"), N("3.5"))), "3.0");
  EXPECT_EQ(T(ModNumerics(N("-7"), N("3"))), "-1");
  EXPECT_EQ(T(ModNumerics(N("Infinity"), N("2"))), "NaN");
  EXPECT_EQ(T(ModNumerics(N("5"), N("Infinity"))), "5");
  EXPECT_EQ(T(ModNumerics(N("5"), N("0"))), "error: division by zero");
  EXPECT_EQ(T(MultiplyNumerics(N("Infinity"), N("0"))), "NaN");
  EXPECT_EQ(T(MultiplyNumerics(N("-Infinity"), N("-2"))), "Infinity");
  EXPECT_EQ(T(AddNumerics(N("Infinity"), N("-Infinity"))), "NaN");
  EXPECT_EQ(T(SubtractNumerics(N("Infinity"), N("-Infinity"))), "Infinity");
  EXPECT_EQ(T(AddNumerics(N("NaN"), N("1"))), "NaN");
  EXPECT_EQ(MultiplyNumerics(N("1e20"), N("1e20")).status().code(), StatusCode::kNotSupported);
  // Sums past int128's range and quotients of operands scaled past 256 bits are refused,
  // never wrapped.
  const NumericValue big = N("99999999999999999999999999999999999999");
  EXPECT_EQ(AddNumerics(big, big).status().code(), StatusCode::kNotSupported);
  EXPECT_EQ(SubtractNumerics(N("-99999999999999999999999999999999999999"), big).status().code(),
            StatusCode::kNotSupported);
  EXPECT_EQ(DivideNumericsAtScale(big, N("1"), 40).status().code(), StatusCode::kNotSupported);
  EXPECT_EQ(
      DivideNumericsAtScale(big, N("0.00000000000000000000000000000000000001"), 20).status().code(),
      StatusCode::kNotSupported);
  EXPECT_EQ(T(DivideNumericsAtScale(N("1"), big, 0)), "0");
  EXPECT_EQ(T(DivideNumericsAtScale(N("1"), N("9999999999999999999999999999999999999.9"), 2)),
            "0.00");
  EXPECT_EQ(T(DivideNumericsAtScale(N("1e-900"), N("3"), 901)), "0." + std::string(900, '0') + "3");
  EXPECT_EQ(T(RoundNumeric(N("2.5"), 0)), "3");
  EXPECT_EQ(T(RoundNumeric(N("-2.5"), 0)), "-3");
  EXPECT_EQ(T(RoundNumeric(N("-0.4"), 0)), "0");
  EXPECT_EQ(T(RoundNumeric(N("1234.5678"), -2)), "1200");
  EXPECT_EQ(T(RoundNumeric(N("1.5"), -1)), "0");
  EXPECT_EQ(T(RoundNumeric(N("1.5"), 3)), "1.500");
  EXPECT_EQ(T(TruncNumeric(N("-1.99"), 1)), "-1.9");
  EXPECT_EQ(T(CeilNumeric(N("-1.5"))), "-1");
  EXPECT_EQ(T(FloorNumeric(N("-1.5"))), "-2");
  EXPECT_EQ(T(CeilNumeric(N("1.2"))), "2");
  EXPECT_EQ(T(CeilNumeric(N("3.000"))), "3");
  EXPECT_EQ(T(SignNumeric(N("-3.5"))), "-1");
  EXPECT_EQ(T(AbsNumeric(N("-1.50"))), "1.50");
  EXPECT_EQ(T(AbsNumeric(N("-Infinity"))), "Infinity");
}

TEST(NumericTest, ConversionsAsPostgreSql) {
  EXPECT_EQ(T(NumericFromDouble(0.1)), "0.1");
  EXPECT_EQ(T(NumericFromDouble(1e20)), "100000000000000000000");
  EXPECT_EQ(T(NumericFromDouble(1.0 / 3)), "0.333333333333333");
  EXPECT_EQ(T(NumericFromDouble(-0.0)), "0");
  EXPECT_EQ(NumericToDouble(N("12.6666666666666667")), 12.6666666666666667);
  const Status range = Status::Invalid("integer out of range");
  EXPECT_EQ(*NumericToInt64(N("2.5"), INT32_MIN, INT32_MAX, "integer", range), 3);
  EXPECT_EQ(*NumericToInt64(N("-2.5"), INT32_MIN, INT32_MAX, "integer", range), -3);
  EXPECT_EQ(
      NumericToInt64(N("2147483647.5"), INT32_MIN, INT32_MAX, "integer", range).status().message(),
      "integer out of range");
  EXPECT_EQ(NumericToInt64(N("NaN"), INT32_MIN, INT32_MAX, "integer", range).status().message(),
            "cannot convert NaN to integer");
  EXPECT_EQ(*NumericToDecimal(N("1.005"), 5, 2), 101);
  EXPECT_EQ(*NumericToDecimal(N("-1.005"), 5, 2), -101);
  EXPECT_EQ(NumericToDecimal(N("999.995"), 5, 2).status().message(),
            "numeric field overflow: a field with precision 5, scale 2 must round to an "
            "absolute value less than 10^3");
}

TEST(NumericTest, OrderAndKeys) {
  // In order; equal neighbours marked by the same group number.
  const std::vector<std::pair<const char*, int>> sorted = {
      {"-Infinity", 0}, {"-1e30", 1},  {"-12.5", 2}, {"-12.50", 2},
      {"-1", 3},        {"-0.001", 4}, {"0", 5},     {"0.00", 5},
      {"1e-30", 6},     {"0.5", 7},    {"1", 8},     {"1.000", 8},
      {"9.99", 9},      {"10", 10},    {"12.5", 11}, {"99999999999999999999999999999999999999", 12},
      {"Infinity", 13}, {"NaN", 14},   {"nan", 14},
  };
  for (size_t i = 0; i < sorted.size(); ++i) {
    for (size_t j = 0; j < sorted.size(); ++j) {
      const NumericValue a = N(sorted[i].first), b = N(sorted[j].first);
      const int want = sorted[i].second < sorted[j].second   ? -1
                       : sorted[i].second > sorted[j].second ? 1
                                                             : 0;
      EXPECT_EQ(CompareNumerics(a, b), want) << sorted[i].first << " vs " << sorted[j].first;
      uint8_t ka[kNumericBytes], kb[kNumericBytes];
      StoreNumericKey(a, ka);
      StoreNumericKey(b, kb);
      const int c = std::memcmp(ka, kb, kNumericBytes);
      EXPECT_EQ(c < 0 ? -1 : (c > 0 ? 1 : 0), want) << sorted[i].first << " vs " << sorted[j].first;
    }
  }
}

TEST(NumericTest, StorageBytesRoundTrip) {
  for (const char* text : {"0", "-1.50", "NaN", "Infinity", "-Infinity",
                           "-99999999999999999999999999999999999999", "1e-1000"}) {
    const NumericValue v = N(text);
    const std::string bytes = NumericBytes(v);
    ASSERT_EQ(bytes.size(), static_cast<size_t>(kNumericBytes));
    EXPECT_EQ(NumericText(NumericFromBytes(bytes)), NumericText(v)) << text;
  }
}

}  // namespace
}  // namespace floe

namespace floe {
namespace {

// Random values of every size and scale through every operation: results that exist are
// exact (a + b - b = a, a * b / b = a), the text form reads back, the key orders as the
// comparison does, and nothing leaves the 38-digit range silently.
TEST(NumericTest, RandomValuesKeepTheirInvariants) {
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  auto random_value = [&]() {
    const uint64_t kind = next() % 40;
    if (kind == 0) return NumericValue::NaN();
    if (kind == 1) return NumericValue::Infinity(next() % 2 == 0);
    const int digits = static_cast<int>(next() % 39);
    __int128 m = 0;
    for (int i = 0; i < digits; ++i) m = m * 10 + static_cast<int>(next() % 10);
    const int scale =
        next() % 4 == 0 ? static_cast<int>(next() % 60) : static_cast<int>(next() % 8);
    return NumericValue::Finite(next() % 2 == 0 ? -m : m, scale);
  };
  auto same = [](const NumericValue& a, const NumericValue& b) {
    return CompareNumerics(a, b) == 0;
  };
  for (int iteration = 0; iteration < 20000; ++iteration) {
    const NumericValue a = random_value();
    const NumericValue b = random_value();
    Result<NumericValue> back = ParseNumeric(NumericText(a));
    ASSERT_TRUE(back.ok()) << NumericText(a);
    EXPECT_EQ(NumericBytes(*back), NumericBytes(a)) << NumericText(a);
    uint8_t ka[kNumericBytes], kb[kNumericBytes];
    StoreNumericKey(a, ka);
    StoreNumericKey(b, kb);
    const int c = std::memcmp(ka, kb, kNumericBytes);
    EXPECT_EQ(c < 0 ? -1 : (c > 0 ? 1 : 0), CompareNumerics(a, b))
        << NumericText(a) << " vs " << NumericText(b);
    if (!a.is_finite() || !b.is_finite()) continue;
    if (Result<NumericValue> sum = AddNumerics(a, b); sum.ok()) {
      Result<NumericValue> difference = SubtractNumerics(*sum, b);
      if (difference.ok()) {
        EXPECT_TRUE(same(*difference, a)) << NumericText(a);
      }
    }
    if (Result<NumericValue> product = MultiplyNumerics(a, b); product.ok() && b.unscaled != 0) {
      Result<NumericValue> quotient = DivideNumericsAtScale(*product, b, a.scale);
      ASSERT_TRUE(quotient.ok()) << NumericText(*product) << " / " << NumericText(b);
      EXPECT_TRUE(same(*quotient, a)) << NumericText(a) << " * " << NumericText(b);
    }
    if (b.unscaled != 0) {
      (void)DivideNumerics(a, b);
      (void)ModNumerics(a, b);
    }
    (void)RoundNumeric(a, static_cast<int>(next() % 80) - 40);
    if (a.unscaled >= 0) (void)SqrtNumeric(a, static_cast<int>(next() % 40));
  }
}

}  // namespace
}  // namespace floe
