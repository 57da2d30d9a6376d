#include "floe/common/calendar.h"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

namespace floe {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CalendarTest, FloorDivAndFloorModRoundTowardNegativeInfinity) {
  EXPECT_EQ(FloorDiv(7, 2), 3);
  EXPECT_EQ(FloorDiv(-7, 2), -4);
  EXPECT_EQ(FloorDiv(-8, 2), -4);
  EXPECT_EQ(FloorDiv(7, -2), -4);
  EXPECT_EQ(FloorMod(7, 2), 1);
  EXPECT_EQ(FloorMod(-7, 2), 1);
  EXPECT_EQ(FloorMod(-8, 2), 0);
  EXPECT_EQ(FloorMod(7, -2), -1);
  EXPECT_EQ(FloorMod(-1, kMicrosPerDay), kMicrosPerDay - 1);
}

// The ends of int64 (a fuzzer found FloorDiv(a, b) * b overflowing at INT64_MIN).
TEST(CalendarTest, FloorModDoesNotOverflowAtTheEndsOfInt64) {
  EXPECT_EQ(FloorDiv(kMin, 1000000), -9223372036855);
  EXPECT_EQ(FloorMod(kMin, 1000000), 224192);
  EXPECT_EQ(FloorDiv(kMax, 1000000), 9223372036854);
  EXPECT_EQ(FloorMod(kMax, 1000000), 775807);
  EXPECT_EQ(FloorMod(kMin, kMicrosPerDay) +
                FloorDiv(kMin, kMicrosPerDay) * static_cast<__int128>(kMicrosPerDay),
            static_cast<__int128>(kMin));
}

TEST(CalendarTest, CivilDatesRoundTrip) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2026, 1, 31), 20484);
  EXPECT_EQ(DaysFromCivil(1, 1, 1), -719162);
  EXPECT_EQ(DaysFromCivil(0, 12, 31), -719163);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1) - DaysFromCivil(2000, 2, 28), 2);  // 2000 is leap
  EXPECT_EQ(DaysFromCivil(1900, 3, 1) - DaysFromCivil(1900, 2, 28), 1);  // 1900 is not
  // Every day of 1200 years around the epoch and around year 0 goes there and back.
  for (int64_t start : {DaysFromCivil(1600, 1, 1), DaysFromCivil(-600, 1, 1)}) {
    for (int64_t days = start; days < start + 1200 * 366; ++days) {
      const CivilDate date = CivilFromDays(days);
      ASSERT_GE(date.month, 1);
      ASSERT_LE(date.month, 12);
      ASSERT_GE(date.day, 1);
      ASSERT_LE(date.day, DaysInMonth(date.year, date.month));
      ASSERT_EQ(DaysFromCivil(date.year, date.month, date.day), days);
    }
  }
  const CivilDate far = CivilFromDays(FloorDiv(FloorDiv(kMin, 1000000), 86400));
  EXPECT_EQ(far.year, -290308);
  EXPECT_EQ(far.month, 12);
  EXPECT_EQ(far.day, 21);
}

TEST(CalendarTest, DaysInMonth) {
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_EQ(DaysInMonth(2023, 2), 28);
  EXPECT_EQ(DaysInMonth(2000, 2), 29);
  EXPECT_EQ(DaysInMonth(2100, 2), 28);
  EXPECT_EQ(DaysInMonth(-4, 2), 29);
  EXPECT_EQ(DaysInMonth(2023, 4), 30);
  EXPECT_EQ(DaysInMonth(2023, 12), 31);
}

}  // namespace
}  // namespace floe
