#include "floe/iceberg/single_value.h"

#include <cmath>

#include <gtest/gtest.h>

#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

std::string Ser(const Scalar& s) {
  auto r = SerializeValue(s);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() ? *r : "";
}

TEST(SingleValueTest, EncodesEveryPrimitive) {
  EXPECT_EQ(Ser(Scalar::Bool(true)), Bytes({1}));
  EXPECT_EQ(Ser(Scalar::Bool(false)), Bytes({0}));
  EXPECT_EQ(Ser(Scalar::I32(1)), Bytes({1, 0, 0, 0}));
  EXPECT_EQ(Ser(Scalar::I32(-2)), Bytes({0xfe, 0xff, 0xff, 0xff}));
  EXPECT_EQ(Ser(Scalar::I64(258)), Bytes({2, 1, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Ser(Scalar::Make(Float32(), 1.0f)), Bytes({0, 0, 0x80, 0x3f}));
  EXPECT_EQ(Ser(Scalar::F64(1.0)), Bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  EXPECT_EQ(Ser(Scalar::Make(Date(), int32_t{17486})), Bytes({0x4e, 0x44, 0, 0}));
  EXPECT_EQ(Ser(Scalar::Make(TimestampTz(), int64_t{1})), Bytes({1, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Ser(Scalar::Str("iceberg")), "iceberg");
  EXPECT_EQ(Ser(Scalar::Make(Binary(), Bytes({0, 1}))), Bytes({0, 1}));
  EXPECT_EQ(Ser(Scalar::Make(Decimal(9, 2), Int128{1420})), Bytes({0x05, 0x8c}));
  EXPECT_EQ(Ser(Scalar::Make(Decimal(9, 2), Int128{0})), Bytes({0}));
  EXPECT_EQ(Ser(Scalar::Make(Decimal(9, 2), Int128{-1})), Bytes({0xff}));
  EXPECT_EQ(Ser(Scalar::Make(Decimal(9, 2), Int128{127})), Bytes({0x7f}));
  EXPECT_EQ(Ser(Scalar::Make(Decimal(9, 2), Int128{128})), Bytes({0x00, 0x80}));
  EXPECT_EQ(Ser(Scalar::Make(Decimal(9, 2), Int128{-128})), Bytes({0x80}));
  EXPECT_EQ(Ser(Scalar::Make(Decimal(9, 2), Int128{-129})), Bytes({0xff, 0x7f}));
  EXPECT_THAT(SerializeValue(Scalar::Null(Int32())),
              testing::IsError(StatusCode::kInvalidArgument));
}

TEST(SingleValueTest, RoundTrips) {
  std::vector<Scalar> values = {Scalar::Bool(true),
                                Scalar::I32(-7),
                                Scalar::I64(INT64_MIN),
                                Scalar::Make(Float32(), -0.5f),
                                Scalar::F64(1e300),
                                Scalar::Make(Decimal(38, 0), Int128{-1} << 100),
                                Scalar::Make(Decimal(38, 0), (Int128{1} << 120)),
                                Scalar::Make(Time(), int64_t{5}),
                                Scalar::Make(TimestampNs(), int64_t{-5}),
                                Scalar::Str(""),
                                Scalar::Make(Uuid(), std::string(16, '\x7f')),
                                Scalar::Make(Fixed(3), Bytes({1, 2, 3}))};
  for (const Scalar& v : values) {
    std::string bytes = Ser(v);
    ASSERT_OK_AND_ASSIGN(Scalar back, DeserializeValue(v.type(), bytes));
    EXPECT_TRUE(back.type()->Equals(*v.type()));
    EXPECT_EQ(back.value(), v.value()) << v.type()->ToString();
  }
}

TEST(SingleValueTest, PromotedWidthsAndErrors) {
  ASSERT_OK_AND_ASSIGN(Scalar l, DeserializeValue(Int64(), Bytes({0xff, 0xff, 0xff, 0xff})));
  EXPECT_EQ(l.get<int64_t>(), -1);
  ASSERT_OK_AND_ASSIGN(Scalar d, DeserializeValue(Float64(), Bytes({0, 0, 0x80, 0x3f})));
  EXPECT_EQ(d.get<double>(), 1.0);
  EXPECT_THAT(DeserializeValue(Int32(), Bytes({1, 2, 3})),
              testing::IsErrorWith(StatusCode::kInvalidArgument, "has 3 bytes, expected 4"));
  EXPECT_THAT(DeserializeValue(Timestamp(), Bytes({1, 2, 3, 4})),
              testing::IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(DeserializeValue(Boolean(), Bytes({2})),
              testing::IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(DeserializeValue(Boolean(), ""), testing::IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(DeserializeValue(Uuid(), Bytes({1})),
              testing::IsErrorWith(StatusCode::kInvalidArgument, "expected 16"));
  EXPECT_THAT(DeserializeValue(Decimal(9, 2), ""), testing::IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(DeserializeValue(Decimal(9, 2), std::string(17, '\0')),
              testing::IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(DeserializeValue(List(Int32()), "x"), testing::IsError(StatusCode::kInvalidArgument));
  ASSERT_OK_AND_ASSIGN(Scalar dec, DeserializeValue(Decimal(9, 2), Bytes({0xff, 0x7f})));
  EXPECT_EQ(dec.get<Int128>(), Int128{-129});
}

}  // namespace
}  // namespace floe::iceberg
