// PostgreSQL's interval input and output (answers as PostgreSQL 15 gives them), the
// arithmetic's spilling of fractions, justify_* and age.

#include <gtest/gtest.h>

#include "floe/common/calendar.h"
#include "floe/common/interval.h"

namespace floe {
namespace {

TEST(IntervalTest, InputAndOutputAsPostgreSql) {
  const std::pair<const char*, const char*> cases[] = {
      {"01:00", "01:00:00"},
      {"+02:00", "02:00:00"},
      {"-08:00", "-08:00:00"},
      {"-05", "-00:00:05"},
      {"-1 +02:03", "-1 days +02:03:00"},
      {"-1 days +02:03", "-1 days +02:03:00"},
      {"10 years -11 month -12 days +13:14", "9 years 1 mon -12 days +13:14:00"},
      {"@ 1 minute", "00:01:00"},
      {"@ 5 hour", "05:00:00"},
      {"@ 10 day", "10 days"},
      {"@ 34 year", "34 years"},
      {"@ 3 months", "3 mons"},
      {"@ 14 seconds ago", "-00:00:14"},
      {"1 day 2 hours 3 minutes 4 seconds", "1 day 02:03:04"},
      {"6 years", "6 years"},
      {"5 months", "5 mons"},
      {"5 months 12 hours", "5 mons 12:00:00"},
      {"1.5 weeks", "10 days 12:00:00"},
      {"1.5 years", "1 year 6 mons"},
      {"1.7 months", "1 mon 21 days"},
      {"-1.5 days", "-1 days -12:00:00"},
      {"P1Y2M3DT4H5M6.5S", "1 year 2 mons 3 days 04:05:06.5"},
      {"P0001-02-03T04:05:06", "1 year 2 mons 3 days 04:05:06"},
      {"PT1H", "01:00:00"},
      {"1-2", "1 year 2 mons"},
      {"-1-2", "-1 years -2 mons"},
      {"3 4:05:06", "3 days 04:05:06"},
      {"0", "00:00:00"},
      {"00:00:00.000001", "00:00:00.000001"},
      {"1 day -02:00", "1 day -02:00:00"},
      {"-1 mons +1 day -01:00", "-1 mons +1 day -01:00:00"},
      {"100:00:00", "100:00:00"},
      {"1 millennium 2 centuries 3 decades", "1230 years"},
      {"2 microseconds 3 milliseconds", "00:00:00.003002"},
      {"1day", "1 day"},
      {"5h", "05:00:00"},
      {"0.1 months", "3 days"},
      {"-0.5 years", "-6 mons"},
      {"1 week ago", "-7 days"},
      {"1.5", "00:00:01.5"},
      {"123456789 hours", "123456789:00:00"},
      {"00:00:60", "00:01:00"},
      {"2147483647 days", "2147483647 days"},
      {"178000000 years", "178000000 years"}};
  for (const auto& [input, expected] : cases) {
    Result<IntervalValue> v = ParseIntervalText(input);
    ASSERT_TRUE(v.ok()) << input << ": " << v.status().ToString();
    EXPECT_EQ(IntervalText(*v), expected) << input;
  }
}

TEST(IntervalTest, BadInputNamesTheText) {
  const std::pair<const char*, const char*> cases[] = {
      {"1 mon 1 mon", "invalid input syntax for type interval: \"1 mon 1 mon\""},
      {"1 hour 01:00", "invalid input syntax for type interval: \"1 hour 01:00\""},
      {"ago", "invalid input syntax for type interval: \"ago\""},
      {"00:60:00", "interval field value out of range: \"00:60:00\""},
      {"2147483648 days", "interval field value out of range: \"2147483648 days\""},
      {"badly formatted interval", "invalid input syntax for type interval: \"badly formatted interval\""},
      {"@ 30 eons ago", "invalid input syntax for type interval: \"@ 30 eons ago\""},
      {" ", "invalid input syntax for type interval: \" \""}};
  for (const auto& [input, message] : cases) {
    Result<IntervalValue> v = ParseIntervalText(input);
    ASSERT_FALSE(v.ok()) << input;
    EXPECT_EQ(v.status().message(), message) << input;
  }
}

IntervalValue Parse(const char* text) { return ParseIntervalText(text).ValueOrDie(); }
std::string Text(const Result<IntervalValue>& v) {
  return v.ok() ? IntervalText(*v) : v.status().message();
}

TEST(IntervalTest, TypmodFieldsDecideBareNumbersAndDropSmallerFields) {
  EXPECT_EQ(IntervalText(ParseIntervalText("1", kIntervalMaskDay).ValueOrDie()), "1 day");
  EXPECT_EQ(IntervalText(ParseIntervalText("1", kIntervalMaskYear).ValueOrDie()), "1 year");
  EXPECT_EQ(IntervalText(ParseIntervalText("1 day 02:03:04", kIntervalMaskDay).ValueOrDie()),
            "1 day");
  EXPECT_EQ(IntervalText(ParseIntervalText("1:2", kIntervalMaskMinute | kIntervalMaskSecond)
                             .ValueOrDie()),
            "00:01:02");
}

TEST(IntervalTest, ArithmeticAsPostgreSql) {
  // Answers as PostgreSQL 15 gives them.
  EXPECT_EQ(Text(MultiplyInterval(Parse("1 day 2 hours"), 1.5)), "1 day 15:00:00");
  EXPECT_EQ(Text(MultiplyInterval(Parse("1 mon"), 0.1)), "3 days");
  EXPECT_EQ(Text(DivideInterval(Parse("1 mon"), 3)), "10 days");
  EXPECT_EQ(Text(DivideInterval(Parse("1 year"), 7)), "1 mon 21 days 10:17:08.5344");
  EXPECT_EQ(Text(MultiplyInterval(Parse("-1 mon 3 days"), -2.5)), "2 mons 8 days -12:00:00");
  EXPECT_EQ(Text(DivideInterval(Parse("1 day"), 0)), "division by zero");
  EXPECT_EQ(Text(MultiplyInterval(Parse("2147483647 days"), 2)), "interval out of range");
  EXPECT_EQ(Text(AddIntervals(Parse("2147483647 days"), Parse("1 day"))),
            "interval out of range");
  EXPECT_EQ(Text(NegateInterval(Parse("-1 mons +1 day -01:00"))), "1 mon -1 days +01:00:00");
  EXPECT_EQ(Text(JustifyHours(Parse("50 hours -3 days"))), "-22:00:00");
  EXPECT_EQ(Text(JustifyDays(Parse("65 days"))), "2 mons 5 days");
  EXPECT_EQ(Text(JustifyInterval(Parse("1 mon -1 hour"))), "29 days 23:00:00");
  EXPECT_EQ(CompareIntervals(Parse("1 mon"), Parse("30 days")), 0);
  EXPECT_EQ(CompareIntervals(Parse("1 day"), Parse("24 hours")), 0);
  EXPECT_LT(CompareIntervals(Parse("1 mon"), Parse("31 days")), 0);
}

int64_t At(int y, int m, int d, int64_t micros_of_day = 0) {
  return DaysFromCivil(y, m, d) * kMicrosPerDay + micros_of_day;
}

TEST(IntervalTest, TimestampDifferenceAndAge) {
  EXPECT_EQ(Text(TimestampDifference(At(2001, 1, 1, 10 * kMicrosPerHour),
                                     At(2000, 12, 30, 12 * kMicrosPerHour + 30 * kMicrosPerMinute))),
            "1 day 21:30:00");
  EXPECT_EQ(Text(TimestampAge(At(2001, 4, 10), At(1957, 6, 13))), "43 years 9 mons 27 days");
  EXPECT_EQ(Text(TimestampAge(At(1957, 6, 13), At(2001, 4, 10, 12 * kMicrosPerHour))),
            "-43 years -9 mons -27 days -12:00:00");
}

TEST(IntervalTest, BytesRoundTrip) {
  const IntervalValue v = Parse("-1 mons +1 day -01:00");
  EXPECT_EQ(IntervalFromBytes(IntervalBytes(v)), v);
}

}  // namespace
}  // namespace floe
