// The text of Iceberg values: one parser behind both the JSON single-value form (field
// defaults) and string literals bound in expressions. Every input here goes through both
// paths and must give the same answer.
#include "floe/iceberg/value_text.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/batch/value_format.h"
#include "floe/common/calendar.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/type_json.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using nlohmann::json;

// The value of `text` as `type` through the JSON default form and through an expression
// literal; nullopt when that path refuses it.
std::optional<Scalar> ViaJson(const std::string& text, const TypePtr& type) {
  Result<Scalar> r = DefaultFromJson(json(text), type, "default");
  if (!r) return std::nullopt;
  return *r;
}

std::optional<Scalar> ViaLiteral(const std::string& text, const TypePtr& type) {
  bool above = false;
  Result<std::optional<Scalar>> r = ConvertLiteral(Scalar::Str(text), type, &above);
  if (!r || !r->has_value()) return std::nullopt;
  return **r;
}

void ExpectBothAccept(const std::string& text, const TypePtr& type, int64_t expected) {
  SCOPED_TRACE(text + " as " + type->ToString());
  for (const auto& v : {ViaJson(text, type), ViaLiteral(text, type)}) {
    ASSERT_TRUE(v.has_value());
    if (type->id() == TypeId::kDate) {
      EXPECT_EQ(v->get<int32_t>(), expected);
    } else {
      EXPECT_EQ(v->get<int64_t>(), expected);
    }
  }
}

void ExpectBothRefuse(const std::string& text, const TypePtr& type) {
  SCOPED_TRACE(text + " as " + type->ToString());
  EXPECT_FALSE(ViaJson(text, type).has_value());
  EXPECT_FALSE(ViaLiteral(text, type).has_value());
}

TEST(ValueTextTest, DatesBothPaths) {
  ExpectBothAccept("2017-11-16", Date(), 17486);
  ExpectBothAccept("1969-12-31", Date(), -1);
  ExpectBothAccept("0000-01-01", Date(), DaysFromCivil(0, 1, 1));
  // Negative and five-digit years carry their sign (java.time's ISO year).
  ExpectBothAccept("-0001-12-31", Date(), DaysFromCivil(-1, 12, 31));
  ExpectBothAccept("+10000-01-01", Date(), DaysFromCivil(10000, 1, 1));
  ExpectBothRefuse("10000-01-01", Date());
  ExpectBothRefuse("2024-02-30", Date());
  ExpectBothRefuse("2024-2-3", Date());
  ExpectBothRefuse("2024-01-01T00:00:00", Date());
  ExpectBothRefuse("+999999999-01-01", Date());  // past int32 days
}

TEST(ValueTextTest, TimesBothPaths) {
  ExpectBothAccept("22:31:08.123456", Time(), ((22 * 60 + 31) * 60 + 8) * 1000000LL + 123456);
  ExpectBothAccept("22:31", Time(), (22 * 60 + 31) * 60 * 1000000LL);
  ExpectBothAccept("00:00:00.000000999", Time(), 0);  // past the microsecond: dropped
  // No leap second: the JSON path used to take 60, the literal path did not.
  ExpectBothRefuse("23:59:60", Time());
  ExpectBothRefuse("24:00:00", Time());
  ExpectBothRefuse("12:00:00.", Time());
  ExpectBothRefuse("12:00:00.0000000001", Time());
}

TEST(ValueTextTest, TimestampsBothPaths) {
  const int64_t base = int64_t{17486} * 86400000000 + int64_t{81068} * 1000000;
  ExpectBothAccept("2017-11-16T22:31:08", Timestamp(), base);
  ExpectBothAccept("2017-11-16 22:31:08.000001", Timestamp(), base + 1);
  ExpectBothAccept("2017-11-16T14:31:08-08:00", TimestampTz(), base);
  ExpectBothAccept("2017-11-16T23:31:08+01", TimestampTz(), base);
  ExpectBothAccept("2017-11-16T22:31:08Z", TimestampTz(), base);
  ExpectBothAccept("2017-11-16T22:31:08", TimestampTz(), base);  // no offset: UTC
  ExpectBothAccept("1970-01-01T00:00:00.000000001", TimestampNs(), 1);
  ExpectBothAccept("-0001-01-01T00:00:00", Timestamp(),
                   DaysFromCivil(-1, 1, 1) * int64_t{86400000000});
  // A zone offset on a type without one, a leap second, a date alone, an offset past 18 h.
  ExpectBothRefuse("2017-11-16T22:31:08Z", Timestamp());
  ExpectBothRefuse("2016-12-31T23:59:60+00:00", TimestampTz());
  ExpectBothRefuse("2017-11-16", Timestamp());
  ExpectBothRefuse("2017-11-16T22:31:08+19:00", TimestampTz());
}

TEST(ValueTextTest, NanosecondRangeIsChecked) {
  // Nanoseconds reach 1677..2262: the JSON path refuses, the literal folds out of range.
  EXPECT_FALSE(ViaJson("2500-01-01T00:00:00", TimestampNs()).has_value());
  bool above = false;
  ASSERT_OK_AND_ASSIGN(auto v,
                       ConvertLiteral(Scalar::Str("2500-01-01T00:00:00"), TimestampNs(), &above));
  EXPECT_FALSE(v.has_value());
  EXPECT_TRUE(above);
  // Microseconds reach about 292,000 years; past that, refused by both paths.
  EXPECT_TRUE(ViaJson("+100000-01-01T00:00:00", Timestamp()).has_value());
  ExpectBothRefuse("+999999999-01-01T00:00:00", Timestamp());
}

TEST(ValueTextTest, PrintedFormReadsBack) {
  for (int64_t days : {int64_t{-1}, int64_t{0}, DaysFromCivil(-1, 12, 31), DaysFromCivil(0, 6, 1),
                       DaysFromCivil(10000, 1, 1), DaysFromCivil(-20000, 2, 29)}) {
    std::string text;
    AppendIsoDateText(days, &text);
    SCOPED_TRACE(text);
    EXPECT_EQ(ParseIsoDate(text), std::optional<int32_t>(static_cast<int32_t>(days)));
    ASSERT_OK_AND_ASSIGN(json back,
                         DefaultToJson(Scalar::Make(Date(), static_cast<int32_t>(days))));
    EXPECT_EQ(back, text);
  }
  std::string text;
  AppendIsoDateText(DaysFromCivil(-1, 12, 31), &text);
  EXPECT_EQ(text, "-0001-12-31");
  text.clear();
  AppendIsoTimestampText(-1, /*nanos=*/false, /*with_zone=*/true, &text);
  EXPECT_EQ(text, "1969-12-31T23:59:59.999999+00:00");
  const std::optional<IsoTimestamp> ts = ParseIsoTimestamp(text);
  ASSERT_TRUE(ts.has_value());
  EXPECT_EQ(IsoTimestampUnits(*ts, /*nanos=*/false), std::optional<int64_t>(-1));
}

TEST(ValueTextTest, UuidAndHex) {
  const std::optional<std::string> u = ParseUuidText("F79C3E09-677c-4bbd-a479-3f349cb785e7");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->size(), 16u);
  EXPECT_EQ(static_cast<uint8_t>((*u)[0]), 0xF7);
  EXPECT_FALSE(ParseUuidText("f79c3e09677c-4bbd-a479-3f349cb785e7-").has_value());
  EXPECT_FALSE(ParseUuidText("f79c3e09-677c-4bbd-a479-3f349cb785eg").has_value());
  EXPECT_EQ(ParseHexText("00ff10"), std::optional<std::string>(std::string("\x00\xff\x10", 3)));
  EXPECT_FALSE(ParseHexText("abc").has_value());
  EXPECT_FALSE(ParseHexText("zz").has_value());
}

}  // namespace
}  // namespace floe::iceberg
