// CAST with PostgreSQL's rules: numeric conversions and their rounding, text input and
// output of every type, date/time conversions, and every error text.

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/testing/matchers.h"

namespace floe::expr {
namespace {

using internal::CastValue;

// CAST(value AS to) as PostgreSQL text ("NULL" for NULL, "ERROR: message" on failure).
std::string CastText(const Scalar& value, const TypePtr& to) {
  EvalContext ctx;
  auto out = CastValue(ColumnarValue(value), to, 1, ctx);
  if (!out.ok()) {
    return out.status().code() == StatusCode::kInvalidArgument ? "ERROR: " + out.status().message()
                                                               : out.status().ToString();
  }
  EXPECT_TRUE(out->is_scalar());
  if (!out->scalar().is_null()) {
    EXPECT_TRUE(out->scalar().type()->Equals(*to)) << out->scalar().type()->ToString();
  }
  return FormatScalar(out->scalar());
}

std::string Text(std::string s, const TypePtr& to) {
  return CastText(Scalar::Str(std::move(s)), to);
}

Scalar Dec(Int128 unscaled, int precision, int scale) {
  return Scalar::Make(Decimal(precision, scale), unscaled);
}
Scalar Parsed(std::string text, const TypePtr& type) {
  EvalContext ctx;
  auto v = CastValue(ColumnarValue(Scalar::Str(std::move(text))), type, 1, ctx);
  EXPECT_OK(v);
  return v->scalar();
}

TEST(CastTest, TextToInteger) {
  EXPECT_EQ(Text("  42 ", Int32()), "42");
  EXPECT_EQ(Text("+7", Int16()), "7");
  EXPECT_EQ(Text("-2147483648", Int32()), "-2147483648");
  EXPECT_EQ(Text("-9223372036854775808", Int64()), "-9223372036854775808");
  EXPECT_EQ(Text("2147483648", Int32()),
            "ERROR: value \"2147483648\" is out of range for type integer");
  EXPECT_EQ(Text("32768", Int16()), "ERROR: value \"32768\" is out of range for type smallint");
  EXPECT_EQ(Text("9223372036854775808", Int64()),
            "ERROR: value \"9223372036854775808\" is out of range for type bigint");
  EXPECT_EQ(Text("abc", Int32()), "ERROR: invalid input syntax for type integer: \"abc\"");
  EXPECT_EQ(Text("", Int64()), "ERROR: invalid input syntax for type bigint: \"\"");
  EXPECT_EQ(Text("1.5", Int32()), "ERROR: invalid input syntax for type integer: \"1.5\"");
  EXPECT_EQ(Text("1 2", Int32()), "ERROR: invalid input syntax for type integer: \"1 2\"");
  EXPECT_EQ(Text("-", Int32()), "ERROR: invalid input syntax for type integer: \"-\"");
}

TEST(CastTest, IntegerToInteger) {
  EXPECT_EQ(CastText(Scalar::I64(3000000000), Int32()), "ERROR: integer out of range");
  EXPECT_EQ(CastText(Scalar::I32(40000), Int16()), "ERROR: smallint out of range");
  EXPECT_EQ(CastText(Scalar::I32(-32768), Int16()), "-32768");
  EXPECT_EQ(CastText(Scalar::I32(7), Int64()), "7");
  EXPECT_EQ(CastText(Scalar::Null(Int32()), Int64()), "NULL");
}

TEST(CastTest, FloatAndDecimalToInteger) {
  // float -> int rounds halves to even (rint); numeric -> int rounds them away from zero.
  EXPECT_EQ(CastText(Scalar::F64(2.5), Int32()), "2");
  EXPECT_EQ(CastText(Scalar::F64(3.5), Int32()), "4");
  EXPECT_EQ(CastText(Scalar::F64(-2.5), Int64()), "-2");
  EXPECT_EQ(CastText(Scalar::F64(2.6), Int16()), "3");
  EXPECT_EQ(CastText(Scalar::F64(NAN), Int32()), "ERROR: integer out of range");
  EXPECT_EQ(CastText(Scalar::F64(1e10), Int32()), "ERROR: integer out of range");
  EXPECT_EQ(CastText(Scalar::F64(9.3e18), Int64()), "ERROR: bigint out of range");
  EXPECT_EQ(CastText(Scalar::F64(2147483647.0), Int32()), "2147483647");
  EXPECT_EQ(CastText(Dec(25, 5, 1), Int32()), "3");
  EXPECT_EQ(CastText(Dec(-25, 5, 1), Int32()), "-3");
  EXPECT_EQ(CastText(Dec(24, 5, 1), Int32()), "2");
  EXPECT_EQ(CastText(Dec(Int128{100000} * 100000, 12, 0), Int32()), "ERROR: integer out of range");
}

TEST(CastTest, ToDecimal) {
  EXPECT_EQ(CastText(Scalar::I32(123), Decimal(5, 2)), "123.00");
  EXPECT_EQ(CastText(Scalar::I32(1234), Decimal(5, 2)),
            "ERROR: numeric field overflow: a field with precision 5, scale 2 must round to an "
            "absolute value less than 10^3");
  EXPECT_EQ(CastText(Dec(12345, 6, 4), Decimal(5, 2)), "1.23");
  EXPECT_EQ(CastText(Dec(12350, 6, 4), Decimal(5, 2)), "1.24");
  EXPECT_EQ(CastText(Dec(-12350, 6, 4), Decimal(5, 2)), "-1.24");
  EXPECT_EQ(CastText(Dec(-5, 2, 1), Decimal(3, 0)), "-1");
  EXPECT_EQ(CastText(Dec(9995, 4, 2), Decimal(3, 1)),
            "ERROR: numeric field overflow: a field with precision 3, scale 1 must round to an "
            "absolute value less than 10^2");
  EXPECT_EQ(CastText(Dec(15, 3, 1), Decimal(10, 4)), "1.5000");
  // Floats go through their text with 15 (float4: 6) significant digits, as PostgreSQL.
  EXPECT_EQ(CastText(Scalar::F64(0.1), Decimal(10, 5)), "0.10000");
  EXPECT_EQ(CastText(Scalar::F64(1.0 / 3), Decimal(20, 18)), "0.333333333333333000");
  EXPECT_EQ(CastText(Scalar::Make(Float32(), 0.1f), Decimal(12, 10)), "0.1000000000");
  EXPECT_EQ(CastText(Scalar::F64(2.675), Decimal(5, 2)), "2.68");
  EXPECT_EQ(CastText(Scalar::F64(NAN), Decimal(5, 2)), "ERROR: cannot convert NaN to numeric(5,2)");
  EXPECT_EQ(CastText(Scalar::F64(INFINITY), Decimal(5, 2)).substr(0, 29),
            "ERROR: numeric field overflow");
  EXPECT_EQ(CastText(Scalar::Bool(true), Decimal(3, 1)), "1.0");
}

TEST(CastTest, TextToDecimal) {
  EXPECT_EQ(Text("1.005", Decimal(5, 2)), "1.01");
  EXPECT_EQ(Text(" -0.5e1 ", Decimal(4, 1)), "-5.0");
  EXPECT_EQ(Text(".5", Decimal(2, 1)), "0.5");
  EXPECT_EQ(Text("5.", Decimal(2, 0)), "5");
  EXPECT_EQ(Text("0.000000000000000000000000000000000000000000001", Decimal(10, 2)), "0.00");
  EXPECT_EQ(Text("-0.004", Decimal(10, 2)), "0.00");
  EXPECT_EQ(Text("123456789012345678901234567890.123", Decimal(38, 2)),
            "123456789012345678901234567890.12");
  EXPECT_EQ(Text("12345.6", Decimal(5, 2)).substr(0, 29), "ERROR: numeric field overflow");
  EXPECT_EQ(Text("x", Decimal(5, 2)), "ERROR: invalid input syntax for type numeric: \"x\"");
  EXPECT_EQ(Text("1e", Decimal(5, 2)), "ERROR: invalid input syntax for type numeric: \"1e\"");
  EXPECT_EQ(Text("NaN", Decimal(5, 2)), "ERROR: cannot convert NaN to numeric(5,2)");
}

TEST(CastTest, Floats) {
  EXPECT_EQ(CastText(Dec(125, 10, 2), Float64()), "1.25");
  EXPECT_EQ(CastText(Dec(1, 38, 37), Float64()), "1e-37");
  EXPECT_EQ(CastText(Scalar::I64(9007199254740993), Float64()), "9.007199254740992e+15");
  EXPECT_EQ(CastText(Scalar::F64(1e300), Float32()), "ERROR: value out of range: overflow");
  EXPECT_EQ(CastText(Scalar::F64(1e-300), Float32()), "ERROR: value out of range: underflow");
  EXPECT_EQ(CastText(Scalar::F64(0.5), Float32()), "0.5");
  EXPECT_EQ(Text("NaN", Float64()), "NaN");
  EXPECT_EQ(Text("-Infinity", Float64()), "-Infinity");
  EXPECT_EQ(Text(" inf", Float32()), "Infinity");
  EXPECT_EQ(Text(" 1.5 ", Float64()), "1.5");
  EXPECT_EQ(Text("1e-3", Float64()), "0.001");
  EXPECT_EQ(Text("abc", Float64()),
            "ERROR: invalid input syntax for type double precision: \"abc\"");
  EXPECT_EQ(Text("1.5x", Float32()), "ERROR: invalid input syntax for type real: \"1.5x\"");
  EXPECT_EQ(Text("1e400", Float64()), "ERROR: \"1e400\" is out of range for type double precision");
  EXPECT_EQ(Text("1e39", Float32()), "ERROR: \"1e39\" is out of range for type real");
}

TEST(CastTest, Boolean) {
  EXPECT_EQ(Text("yes", Boolean()), "t");
  EXPECT_EQ(Text(" OFF ", Boolean()), "f");
  EXPECT_EQ(Text("of", Boolean()), "f");
  EXPECT_EQ(Text("TR", Boolean()), "t");
  EXPECT_EQ(Text("1", Boolean()), "t");
  EXPECT_EQ(Text("0", Boolean()), "f");
  EXPECT_EQ(Text("n", Boolean()), "f");
  EXPECT_EQ(Text("o", Boolean()), "ERROR: invalid input syntax for type boolean: \"o\"");
  EXPECT_EQ(Text("maybe", Boolean()), "ERROR: invalid input syntax for type boolean: \"maybe\"");
  EXPECT_EQ(CastText(Scalar::Bool(true), Int32()), "1");
  EXPECT_EQ(CastText(Scalar::I32(5), Boolean()), "t");
  EXPECT_EQ(CastText(Scalar::I32(0), Boolean()), "f");
  // PostgreSQL's boolean-to-text cast spells the words out.
  EXPECT_EQ(CastText(Scalar::Bool(true), String()), "true");
  EXPECT_EQ(CastText(Scalar::Bool(false), String()), "false");
}

TEST(CastTest, ToText) {
  EXPECT_EQ(CastText(Scalar::I32(-42), String()), "-42");
  EXPECT_EQ(CastText(Scalar::F64(0.1), String()), "0.1");
  EXPECT_EQ(CastText(Scalar::F64(1e20), String()), "1e+20");
  EXPECT_EQ(CastText(Dec(150, 5, 2), String()), "1.50");
  EXPECT_EQ(CastText(Parsed("1998-12-01", Date()), String()), "1998-12-01");
  EXPECT_EQ(CastText(Parsed("1998-12-01 10:11:12.5", TimestampTz()), String()),
            "1998-12-01 10:11:12.5+00");
  EXPECT_EQ(CastText(Scalar::Make(Binary(), std::string("AB")), String()), "\\x4142");
  EXPECT_EQ(CastText(Scalar::Null(Int32()), String()), "NULL");
}

TEST(CastTest, Dates) {
  EXPECT_EQ(Text("1998-12-01", Date()), "1998-12-01");
  EXPECT_EQ(Text(" 2020-02-29 ", Date()), "2020-02-29");
  EXPECT_EQ(Text("1998-12-01 10:11:12", Date()), "1998-12-01");
  EXPECT_EQ(Text("0044-03-15 BC", Date()), "0044-03-15 BC");
  EXPECT_EQ(Text("1969-12-31", Date()), "1969-12-31");
  EXPECT_EQ(Text("2021-02-29", Date()),
            "ERROR: date/time field value out of range: \"2021-02-29\"");
  EXPECT_EQ(Text("2021-13-01", Date()),
            "ERROR: date/time field value out of range: \"2021-13-01\"");
  EXPECT_EQ(Text("xyz", Date()), "ERROR: invalid input syntax for type date: \"xyz\"");
  EXPECT_EQ(Text("2021-01", Date()), "ERROR: invalid input syntax for type date: \"2021-01\"");
}

TEST(CastTest, Timestamps) {
  EXPECT_EQ(Text("1998-12-01 10:11:12.123456", Timestamp()), "1998-12-01 10:11:12.123456");
  EXPECT_EQ(Text("1998-12-01T10:11:12", Timestamp()), "1998-12-01 10:11:12");
  EXPECT_EQ(Text("1998-12-01", Timestamp()), "1998-12-01 00:00:00");
  EXPECT_EQ(Text("1998-12-01 10:11", Timestamp()), "1998-12-01 10:11:00");
  EXPECT_EQ(Text("1998-12-01 10:11:12.1234567", Timestamp()), "1998-12-01 10:11:12.123457");
  // A zone is ignored for timestamp and applied for timestamptz (session zone UTC).
  EXPECT_EQ(Text("1998-12-01 10:11:12+02", Timestamp()), "1998-12-01 10:11:12");
  EXPECT_EQ(Text("1998-12-01 10:11:12+02", TimestampTz()), "1998-12-01 08:11:12+00");
  EXPECT_EQ(Text("1998-12-01 10:11:12-05:30", TimestampTz()), "1998-12-01 15:41:12+00");
  EXPECT_EQ(Text("1998-12-01 10:11:12 +0100", TimestampTz()), "1998-12-01 09:11:12+00");
  EXPECT_EQ(Text("1998-12-01T10:11:12Z", TimestampTz()), "1998-12-01 10:11:12+00");
  EXPECT_EQ(Text("1998-12-01 10:11:12 UTC", TimestampTz()), "1998-12-01 10:11:12+00");
  EXPECT_EQ(Text("1998-12-01", TimestampTz()), "1998-12-01 00:00:00+00");
  EXPECT_EQ(Text("1998-12-01 25:00:00", Timestamp()),
            "ERROR: date/time field value out of range: \"1998-12-01 25:00:00\"");
  EXPECT_EQ(Text("1998-12-01 10:11:12 junk", Timestamp()),
            "ERROR: invalid input syntax for type timestamp: \"1998-12-01 10:11:12 junk\"");
  EXPECT_EQ(Text("nope", TimestampTz()),
            "ERROR: invalid input syntax for type timestamp with time zone: \"nope\"");
  EXPECT_EQ(Text("300000-01-01", Timestamp()), "ERROR: timestamp out of range: \"300000-01-01\"");
  EXPECT_EQ(Text("1998-12-01 10:11:12", TimestampNs()), "1998-12-01 10:11:12");
  EXPECT_EQ(Text("epoch", TimestampTz()), "1970-01-01 00:00:00+00");
  EXPECT_EQ(Text(" Epoch ", Date()), "1970-01-01");
}

// PostgreSQL's other input forms (DateStyle ISO, MDY) and special values.
TEST(CastTest, DateTimeInputForms) {
  EXPECT_EQ(Text("Mon Feb 10 17:32:01 1997 PST", TimestampTz()), "1997-02-11 01:32:01+00");
  EXPECT_EQ(Text("Feb 10 5:32PM 1997", Timestamp()), "1997-02-10 17:32:00");
  EXPECT_EQ(Text("02-10-1997 17:32:01 PST", Timestamp()), "1997-02-10 17:32:01");
  EXPECT_EQ(Text("19970210 173201 -0800", TimestampTz()), "1997-02-11 01:32:01+00");
  EXPECT_EQ(Text("1997.041 17:32:01 UTC", Timestamp()), "1997-02-10 17:32:01");
  EXPECT_EQ(Text("J2451187", Date()), "1999-01-08");
  EXPECT_EQ(Text("January 8, 99 BC", Date()), "0099-01-08 BC");
  EXPECT_EQ(Text("2000-03-15 08:14:01 GMT+8", TimestampTz()), "2000-03-15 16:14:01+00");
  EXPECT_EQ(Text("19970210 173201 America/New_York", TimestampTz()), "1997-02-10 22:32:01+00");
  EXPECT_EQ(Text("1997-06-10 17:32:01 America/New_York", TimestampTz()),
            "1997-06-10 21:32:01+00");
  EXPECT_EQ(Text("allballs", Time()), "00:00:00");
  EXPECT_EQ(Text("040506", Time()), "04:05:06");
  EXPECT_EQ(Text("infinity", Timestamp()), "infinity");
  EXPECT_EQ(Text("-infinity", TimestampTz()), "-infinity");
  EXPECT_EQ(Text("-Infinity", Date()), "-infinity");
  EXPECT_EQ(CastText(Parsed("infinity", Date()), Timestamp()), "infinity");
  EXPECT_EQ(CastText(Parsed("-infinity", Timestamp()), Date()), "-infinity");
  EXPECT_EQ(Text("99-01-08", Date()), "ERROR: date/time field value out of range: \"99-01-08\"");
  EXPECT_EQ(Text("2000-01-01 Mars/Olympus", TimestampTz()),
            "ERROR: time zone \"mars/olympus\" not recognized");
  EXPECT_EQ(Text("2000-01-01 ../../etc/passwd", TimestampTz()),
            "ERROR: invalid input syntax for type timestamp with time zone: "
            "\"2000-01-01 ../../etc/passwd\"");
  EXPECT_EQ(Text("infinity 10:00", Timestamp()), "infinity");
  EXPECT_EQ(Text("infinity 2000-01-01", Timestamp()),
            "ERROR: invalid input syntax for type timestamp: \"infinity 2000-01-01\"");
  EXPECT_EQ(Text("13:00 PM", Time()), "ERROR: date/time field value out of range: \"13:00 PM\"");
}

TEST(CastTest, Times) {
  EXPECT_EQ(Text("10:11:12.5", Time()), "10:11:12.5");
  EXPECT_EQ(Text("10:11", Time()), "10:11:00");
  EXPECT_EQ(Text("24:00:00", Time()), "24:00:00");
  EXPECT_EQ(Text("25:00", Time()), "ERROR: date/time field value out of range: \"25:00\"");
  EXPECT_EQ(Text("ten", Time()),
            "ERROR: invalid input syntax for type time: \"ten\"");
  EXPECT_EQ(CastText(Parsed("1998-12-01 10:11:12", Timestamp()), Time()), "10:11:12");
}

TEST(CastTest, BetweenDateAndTimestamps) {
  const Scalar ts = Parsed("1998-12-01 23:59:59.999", Timestamp());
  EXPECT_EQ(CastText(ts, Date()), "1998-12-01");
  EXPECT_EQ(CastText(Parsed("1969-12-31 23:00:00", Timestamp()), Date()), "1969-12-31");
  EXPECT_EQ(CastText(ts, TimestampTz()), "1998-12-01 23:59:59.999+00");
  EXPECT_EQ(CastText(Parsed("1998-12-01 10:00:00+02", TimestampTz()), Timestamp()),
            "1998-12-01 08:00:00");
  const Scalar d = Parsed("1998-12-01", Date());
  EXPECT_EQ(CastText(d, Timestamp()), "1998-12-01 00:00:00");
  EXPECT_EQ(CastText(d, TimestampTz()), "1998-12-01 00:00:00+00");
  EXPECT_EQ(CastText(Scalar::Make(Date(), int32_t{2000000000}), Timestamp()),
            "ERROR: date out of range for timestamp");
  EXPECT_EQ(CastText(ts, TimestampNs()), "1998-12-01 23:59:59.999");
  EXPECT_EQ(CastText(Parsed("1998-12-01 10:00:00.5", TimestampNs()), Timestamp()),
            "1998-12-01 10:00:00.5");
}

TEST(CastTest, UuidAndBytea) {
  EXPECT_EQ(Text("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", Uuid()),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  EXPECT_EQ(Text("{a0eebc999c0b4ef8bb6d6bb9bd380a11}", Uuid()),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  EXPECT_EQ(Text("a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", Uuid()),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  EXPECT_EQ(Text("a0eebc99", Uuid()), "ERROR: invalid input syntax for type uuid: \"a0eebc99\"");
  EXPECT_EQ(Text("\\x4142", Binary()), "\\x4142");
  EXPECT_EQ(Text("abc", Binary()), "\\x616263");
  EXPECT_EQ(Text("a\\\\b\\001", Binary()), "\\x615c6201");
  EXPECT_EQ(Text("\\x414", Binary()), "ERROR: invalid hexadecimal data: odd number of digits");
  EXPECT_EQ(Text("\\xzz", Binary()), "ERROR: invalid hexadecimal digit: \"z\"");
  EXPECT_EQ(Text("a\\b", Binary()), "ERROR: invalid input syntax for type bytea: \"a\\b\"");
}

TEST(CastTest, Lists) {
  ListBuilder builder(List(Int32()));
  auto* values = static_cast<Int32Builder*>(builder.value_builder());
  ASSERT_OK(builder.Append());
  ASSERT_OK(values->Append(1));
  ASSERT_OK(values->AppendNull());
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK(builder.Append());
  ASSERT_OK(values->Append(-3));
  ASSERT_OK_AND_ASSIGN(ArrayPtr lists, builder.Finish());
  EvalContext ctx;
  ASSERT_OK_AND_ASSIGN(ColumnarValue out,
                       CastValue(ColumnarValue(lists->Slice(1, 2)), List(Int64()), 2, ctx));
  ASSERT_OK(out.array()->ValidateFull());
  EXPECT_TRUE(out.array()->type()->Equals(*List(Int64())));
  EXPECT_EQ(FormatValue(*out.array(), 0), "NULL");
  EXPECT_EQ(FormatValue(*out.array(), 1), "{-3}");
  ASSERT_OK_AND_ASSIGN(out, CastValue(ColumnarValue(lists), String(), 3, ctx));
  EXPECT_EQ(FormatValue(*out.array(), 0), "{1,NULL}");
  EXPECT_TRUE(out.array()->IsNull(1));
}

TEST(CastTest, TextToFixed) {
  EXPECT_EQ(Text("\\x0102", Fixed(2)), "\\x0102");
  EXPECT_EQ(Text("\\x01", Fixed(2)), "ERROR: cannot cast a 1-byte value to fixed[2]");
}

TEST(CastTest, Unsupported) {
  EXPECT_EQ(CastText(Parsed("1998-12-01", Date()), Int32()),
            "Not supported: cannot cast type date to integer");
}

TEST(CastTest, ArraysKeepNullsAndReportErrors) {
  Int32Builder ints(Int32());
  ASSERT_OK(ints.Append(1));
  ASSERT_OK(ints.AppendNull());
  ASSERT_OK(ints.Append(-3));
  ASSERT_OK_AND_ASSIGN(ArrayPtr in, ints.Finish());
  EvalContext ctx;
  ASSERT_OK_AND_ASSIGN(ColumnarValue out, CastValue(ColumnarValue(in), String(), 3, ctx));
  ASSERT_FALSE(out.is_scalar());
  ASSERT_EQ(out.array()->length(), 3);
  EXPECT_EQ(FormatValue(*out.array(), 0), "1");
  EXPECT_TRUE(out.array()->IsNull(1));
  EXPECT_EQ(FormatValue(*out.array(), 2), "-3");

  BinaryBuilder texts(String());
  ASSERT_OK(texts.Append("7"));
  ASSERT_OK(texts.AppendNull());
  ASSERT_OK(texts.Append("x"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr bad, texts.Finish());
  EXPECT_THAT(CastValue(ColumnarValue(bad), Int64(), 3, ctx),
              testing::IsErrorWith(StatusCode::kInvalidArgument,
                                   "invalid input syntax for type bigint: \"x\""));
  ASSERT_OK_AND_ASSIGN(ColumnarValue two,
                       CastValue(ColumnarValue(bad->Slice(0, 2)), Int64(), 2, ctx));
  EXPECT_EQ(FormatValue(*two.array(), 0), "7");
  EXPECT_TRUE(two.array()->IsNull(1));
}

}  // namespace
}  // namespace floe::expr
