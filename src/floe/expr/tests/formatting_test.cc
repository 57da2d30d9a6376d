// The template engine behind to_char, to_timestamp, to_date and to_number (formatting.h):
// how a template splits into patterns and literal text, and the engine's answers for the
// cases that decide its shape (exact values checked against PostgreSQL 15; the SQL tests in
// test/sql/expr/to_*.test cover the functions end to end).

#include "floe/expr/formatting.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/batch/value_format.h"
#include "floe/common/calendar.h"
#include "floe/testing/matchers.h"

namespace floe::expr {
namespace {

using ::floe::testing::IsErrorWith;
using Kind = DateTimeTemplate::NodeKind;

// The nodes of a date/time template, one word each: a pattern as its spelling with its
// modifiers ("FM" prefix, "TM" prefix, "+TH"/"+th" suffix), literal text as 'x', a separator
// as <x>, a blank as _.
std::vector<std::string> Shape(std::string_view text) {
  std::vector<std::string> out;
  const DateTimeTemplate t = DateTimeTemplate::Parse(text);
  for (const DateTimeTemplate::Node& n : t.nodes()) {
    switch (n.kind) {
      case Kind::kPattern: {
        std::string s = std::string(n.fill_mode ? "FM" : "") + (n.translate ? "TM" : "") +
                        std::string(n.keyword->text);
        if (n.ordinal == DateTimeTemplate::Ordinal::kUpper) s += "+TH";
        if (n.ordinal == DateTimeTemplate::Ordinal::kLower) s += "+th";
        out.push_back(s);
        break;
      }
      case Kind::kLiteral:
        out.push_back("'" + n.text + "'");
        break;
      case Kind::kSeparator:
        out.push_back("<" + n.text + ">");
        break;
      case Kind::kSpace:
        out.push_back("_");
        break;
    }
  }
  return out;
}

using Words = std::vector<std::string>;

TEST(DateTimeTemplateTest, LongestPatternWins) {
  EXPECT_EQ(Shape("YYYYMMDD"), (Words{"YYYY", "MM", "DD"}));
  EXPECT_EQ(Shape("DDDD"), (Words{"DDD", "D"}));
  EXPECT_EQ(Shape("SSSSSS"), (Words{"SSSSS", "'S'"}));
  EXPECT_EQ(Shape("HH24HH12HH"), (Words{"HH24", "HH12", "HH"}));
  EXPECT_EQ(Shape("Y,YYY Y,YY"), (Words{"Y,YYY", "_", "Y", "<,>", "YY"}));
  EXPECT_EQ(Shape("IYYYIDDDIDI"), (Words{"IYYY", "IDDD", "ID", "I"}));
  EXPECT_EQ(Shape("TZHTZMTZ"), (Words{"TZH", "TZM", "TZ"}));
  EXPECT_EQ(Shape("A.M.AM"), (Words{"A.M.", "AM"}));
}

TEST(DateTimeTemplateTest, CaseSelectsTheSpelling) {
  EXPECT_EQ(Shape("Month month MONTH Mon"),
            (Words{"Month", "_", "month", "_", "MONTH", "_", "Mon"}));
  // Only the names have a capitalized spelling; other mixes are literal text.
  EXPECT_EQ(Shape("Mm"), (Words{"'M'", "'m'"}));
  EXPECT_EQ(Shape("Am"), (Words{"'A'", "'m'"}));
  EXPECT_EQ(Shape("Dd"), (Words{"D", "d"}));
  EXPECT_EQ(Shape("Mi"), (Words{"'M'", "i"}));
}

TEST(DateTimeTemplateTest, Modifiers) {
  EXPECT_EQ(Shape("FMDDth"), (Words{"FMDD+th"}));
  EXPECT_EQ(Shape("fmMonth TMDay DDTH"), (Words{"FMMonth", "_", "TMDay", "_", "DD+TH"}));
  // One prefix and one suffix per pattern; SP is read and does nothing.
  EXPECT_EQ(Shape("FMTMMonth"), (Words{"'T'", "MM", "'o'", "'n'", "'t'", "'h'"}));
  EXPECT_EQ(Shape("DDSPth"), (Words{"DD", "'t'", "'h'"}));
  EXPECT_EQ(Shape("DDthTH"), (Words{"DD+th", "'T'", "'H'"}));
  // A prefix before no pattern is dropped.
  EXPECT_EQ(Shape("FMx FM"), (Words{"'x'", "_"}));
  EXPECT_EQ(Shape("Fm"), (Words{"'F'", "'m'"}));
}

TEST(DateTimeTemplateTest, LiteralText) {
  // Double-quoted characters are literal, punctuation outside quotes separates, blanks are blanks.
  EXPECT_EQ(Shape("\"YY\"-YY :"), (Words{"'Y'", "'Y'", "<->", "YY", "_", "<:>"}));
  // Inside quotes a backslash takes the next character; outside only before a quote.
  EXPECT_EQ(Shape("\"a\\\"b\\\\\""), (Words{"'a'", "'\"'", "'b'", "'\\'"}));
  EXPECT_EQ(Shape("\\\"\\x"), (Words{"<\">", "<\\>", "'x'"}));
  // An unterminated quote runs to the end; a backslash ending it is itself.
  EXPECT_EQ(Shape("\"ab\\"), (Words{"'a'", "'b'", "'\\'"}));
  // Multi-byte characters are one literal each.
  EXPECT_EQ(Shape("é€"), (Words{"'é'", "'€'"}));
}

std::string FormatTimestamp(std::string_view format, int64_t micros, bool with_zone = false) {
  return DateTimeTemplate::Parse(format).Format(micros, with_zone);
}

constexpr int64_t k20240305 = DaysFromCivil(2024, 3, 5) * kMicrosPerDay;

TEST(DateTimeTemplateTest, Format) {
  const int64_t t = k20240305 + (13LL * 3600 + 4 * 60 + 5) * 1000000 + 123456;
  EXPECT_EQ(FormatTimestamp("YYYY-MM-DD HH24:MI:SS.US", t), "2024-03-05 13:04:05.123456");
  EXPECT_EQ(FormatTimestamp("Day, FMDDth \"of\" FMMonth YYYY, HH:MI a.m.", t),
            "Tuesday  , 5th of March 2024, 01:04 p.m.");
  EXPECT_EQ(FormatTimestamp("IYYY-IW-ID IDDD J Q RM CC", t), "2024-10-2 065 2460375 1 III  21");
  EXPECT_EQ(FormatTimestamp("TZ|OF", t), "|+00");
  EXPECT_EQ(FormatTimestamp("TZ|tz|OF", t, true), "UTC|utc|+00");
  // 1 BC: year 1 with BC, century -1.
  const int64_t bc = DaysFromCivil(0, 12, 31) * kMicrosPerDay;  // 0001-12-31 BC
  EXPECT_EQ(FormatTimestamp("YYYY-MM-DD BC CC Y,YYY", bc), "0001-12-31 BC -01 0,001");
}

Result<std::string> ToTimestampText(std::string_view input, std::string_view format) {
  FLOE_ASSIGN_OR_RAISE(int64_t micros, DateTimeTemplate::Parse(format).ToTimestamp(input));
  std::string out;
  AppendTimestampText(micros, false, true, &out);
  return out;
}

TEST(DateTimeTemplateTest, ToTimestamp) {
  EXPECT_EQ(*ToTimestampText("05 Dec 2000", "DD Mon YYYY"), "2000-12-05 00:00:00+00");
  // Fixed width before another number field, all digits before a separator.
  EXPECT_EQ(*ToTimestampText("20240305", "YYYYMMDD"), "2024-03-05 00:00:00+00");
  EXPECT_EQ(*ToTimestampText("20000-1116", "YYYY-MMDD"), "20000-11-16 00:00:00+00");
  EXPECT_EQ(*ToTimestampText("  2000    JUN", "YYYY MON"), "2000-06-01 00:00:00+00");
  EXPECT_EQ(*ToTimestampText("2000 -10", "YYYY TZH"), "2000-01-01 10:00:00+00");
  EXPECT_EQ(*ToTimestampText("2000 -10", "YYYY  TZH"), "1999-12-31 14:00:00+00");
  EXPECT_EQ(*ToTimestampText("2005527", "IYYYIWID"), "2006-01-01 00:00:00+00");
  EXPECT_EQ(*ToTimestampText("", ""), "0001-01-01 00:00:00+00 BC");
  EXPECT_THAT(ToTimestampText("2024-1", "YYYY-MMDD"),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "source string too short for \"MM\" formatting field"));
  EXPECT_THAT(ToTimestampText("2024-aa", "YYYY-MM"),
              IsErrorWith(StatusCode::kInvalidArgument, "invalid value \"aa\" for \"MM\""));
  EXPECT_THAT(ToTimestampText("2005-02-30", "YYYY-MM-DD"),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "date/time field value out of range: \"2005-02-30\""));
  EXPECT_THAT(ToTimestampText("2024 2", "IYYY MM"),
              IsErrorWith(StatusCode::kInvalidArgument, "invalid combination of date conventions"));
}

TEST(DateTimeTemplateTest, ToDate) {
  const DateTimeTemplate t = DateTimeTemplate::Parse("YYYY-MM-DD");
  EXPECT_THAT(t.ToDate("2024-03-05"), ::floe::testing::IsOkAndHolds(19787));
  EXPECT_THAT(t.ToDate("5874898-01-01"),
              IsErrorWith(StatusCode::kInvalidArgument, "date out of range: \"5874898-01-01\""));
}

TEST(NumberTemplateTest, ParseErrors) {
  auto error = [](std::string_view text) {
    Result<NumberTemplate> t = NumberTemplate::Parse(text);
    return t.ok() ? std::string("ok") : t.status().message();
  };
  EXPECT_EQ(error("9G999D99S"), "ok");
  EXPECT_EQ(error("99.9.9"), "multiple decimal points");
  EXPECT_EQ(error("9V9.9"), "cannot use \"V\" and decimal point together");
  EXPECT_EQ(error("S9S"), "cannot use \"S\" twice");
  EXPECT_EQ(error("PR9"), "\"9\" must be ahead of \"PR\"");
  EXPECT_EQ(error("S9PR"), "cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together");
  EXPECT_EQ(error("9EEEE9"), "\"EEEE\" must be the last pattern used");
  EXPECT_EQ(error("9EEEEEEEE"), "cannot use \"EEEE\" twice");
  EXPECT_EQ(error("FM9EEEE").substr(0, 41), "\"EEEE\" is incompatible with other formats");
}

std::string FormatNumber(std::string_view format, Int128 unscaled, int scale) {
  Result<NumberTemplate> t = NumberTemplate::Parse(format);
  if (!t.ok()) return "ERROR: " + t.status().message();
  Result<std::string> s = t->FormatDecimal(unscaled, scale);
  return s.ok() ? "[" + *s + "]" : "ERROR: " + s.status().message();
}

TEST(NumberTemplateTest, Format) {
  EXPECT_EQ(FormatNumber("999", 125, 0), "[ 125]");
  EXPECT_EQ(FormatNumber("999", -125, 0), "[-125]");
  EXPECT_EQ(FormatNumber("0999", -12, 0), "[-0012]");
  EXPECT_EQ(FormatNumber("9.99", 5, 1), "[  .50]");
  EXPECT_EQ(FormatNumber("FM9.99", 5, 1), "[.5]");
  EXPECT_EQ(FormatNumber("999", 12345, 0), "[ ###]");
  EXPECT_EQ(FormatNumber("999D99S", -1258, 1), "[125.80-]");
  EXPECT_EQ(FormatNumber("9999PR", -12, 0), "[  <12>]");
  EXPECT_EQ(FormatNumber("9,999", 1234, 0), "[ 1,234]");
  EXPECT_EQ(FormatNumber("99V9", 12, 0), "[ 120]");
  EXPECT_EQ(FormatNumber("9.99EEEE", 12345, 0), "[ 1.23e+04]");
  EXPECT_EQ(FormatNumber("FMRN", 1994, 0), "[MCMXCIV]");
  EXPECT_EQ(FormatNumber("99th", 12, 0), "[ 12th]");
  // A digit position past the number's text ends the output.
  EXPECT_EQ(FormatNumber("9Dxyz", 5, 0), "[ 5]");
}

TEST(NumberTemplateTest, FormatOtherTypes) {
  ASSERT_OK_AND_ASSIGN(NumberTemplate t, NumberTemplate::Parse("9999.999"));
  EXPECT_THAT(t.FormatInteger(-12, true), ::floe::testing::IsOkAndHolds("  -12.000"));
  EXPECT_THAT(t.FormatFloat(1.0 / 3, false), ::floe::testing::IsOkAndHolds("     .333"));
  EXPECT_THAT(t.FormatFloat(1.0 / 0.0, false), ::floe::testing::IsOkAndHolds(" ####.###"));
}

std::string ToNumberText(std::string_view input, std::string_view format) {
  Result<NumberTemplate> t = NumberTemplate::Parse(format);
  if (!t.ok()) return "ERROR: " + t.status().message();
  Result<NumberTemplate::Number> n = t->ToNumber(input);
  if (!n.ok()) return "ERROR: " + n.status().message();
  std::string out;
  AppendDecimalText(n->unscaled, n->scale, &out);
  return out;
}

TEST(NumberTemplateTest, ToNumber) {
  EXPECT_EQ(ToNumberText("12,454.8-", "99G999D9S"), "-12454.8");
  EXPECT_EQ(ToNumberText("<12.5>", "99.9PR"), "-12.5");
  EXPECT_EQ(ToNumberText("12.34567", "99.99"), "12.34");
  EXPECT_EQ(ToNumberText("5", "9V9"), "0.5");
  EXPECT_EQ(ToNumberText("abc", "999"), "ERROR: invalid input syntax for type numeric: \" \"");
  EXPECT_EQ(ToNumberText("1.5", "9.9EEEE"), "ERROR: \"EEEE\" not supported for input");
}

}  // namespace
}  // namespace floe::expr
