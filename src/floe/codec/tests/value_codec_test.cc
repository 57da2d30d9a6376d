// The value codecs: every type, scalar and expression form round-trips exactly, and
// malformed messages are kCorrupt errors naming what is wrong.

#include "floe/codec/value_codec.h"

#include <gtest/gtest.h>

#include <limits>

#include "floe/codec/plan_codec.h"
#include "floe/testing/matchers.h"

namespace floe::codec {
namespace {

using ::floe::testing::IsError;

std::vector<TypePtr> AllTypes() {
  return {Boolean(),
          Int8(),
          Int16(),
          Int32(),
          Int64(),
          Float32(),
          Float64(),
          Decimal(38, 10),
          Decimal(1, 0),
          Date(),
          Time(),
          Timestamp(),
          TimestampTz(),
          TimestampNs(),
          TimestampTzNs(),
          String(),
          Json(),
          Jsonb(),
          Binary(),
          Fixed(3),
          Uuid(),
          Struct({Field("a", Int32(), false, 7), Field("b", List(String()), true)}),
          Map(String(), Decimal(9, 2), false)};
}

TEST(ValueCodecTest, EveryTypeRoundTrips) {
  for (const TypePtr& type : AllTypes()) {
    proto::DataType message;
    EncodeType(*type, &message);
    ASSERT_OK_AND_ASSIGN(TypePtr back, DecodeType(message));
    EXPECT_TRUE(back->Equals(*type)) << type->ToString() << " came back as " << back->ToString();
  }
}

TEST(ValueCodecTest, SchemaKeepsNamesNullabilityIdsAndMetadata) {
  Schema schema({Field("x", Int64(), false, 1, {{"k", "v"}}), Field("y", String())},
                {{"schema-key", "schema-value"}});
  proto::Schema message;
  EncodeSchema(schema, &message);
  ASSERT_OK_AND_ASSIGN(SchemaPtr back, DecodeSchema(message));
  EXPECT_TRUE(back->Equals(schema)) << back->ToString();
}

TEST(ValueCodecTest, ScalarsRoundTripIncludingExtremesAndNulls) {
  std::vector<Scalar> scalars = {
      Scalar::Bool(true),
      Scalar::Make(Int8(), int32_t{-128}),
      Scalar::I32(std::numeric_limits<int32_t>::min()),
      Scalar::I64(std::numeric_limits<int64_t>::max()),
      Scalar::Make(Float32(), 1.5f),
      Scalar::F64(-0.0),
      Scalar::F64(std::numeric_limits<double>::quiet_NaN()),
      Scalar::Make(Decimal(38, 2), Int128{-1} << 100),
      Scalar::Make(Date(), int32_t{-719162}),
      Scalar::Make(TimestampTz(), int64_t{1700000000000000}),
      Scalar::Str(std::string("a\0b", 3)),
      Scalar::Make(Fixed(2), std::string("xy")),
      Scalar::Null(String()),
      Scalar::Null(Decimal(10, 3)),
  };
  for (const Scalar& s : scalars) {
    proto::Scalar message;
    ASSERT_OK(EncodeScalar(s, &message));
    ASSERT_OK_AND_ASSIGN(Scalar back, DecodeScalar(message));
    ASSERT_TRUE(back.type()->Equals(*s.type()));
    ASSERT_EQ(back.value().index(), s.value().index());
    if (std::holds_alternative<double>(s.value()) && std::isnan(s.get<double>())) {
      EXPECT_TRUE(std::isnan(back.get<double>()));
    } else if (std::holds_alternative<double>(s.value())) {
      EXPECT_EQ(std::signbit(back.get<double>()), std::signbit(s.get<double>()));
    } else {
      EXPECT_TRUE(back.value() == s.value()) << s.type()->ToString();
    }
  }
}

TEST(ValueCodecTest, NestedScalarsAreNullsOnly) {
  // NULL::int[] is a literal; a nested value has no scalar form.
  proto::Scalar message;
  ASSERT_OK(EncodeScalar(Scalar::Null(List(Int32())), &message));
  ASSERT_OK_AND_ASSIGN(Scalar back, DecodeScalar(message));
  EXPECT_TRUE(back.is_null());
  EXPECT_TRUE(back.type()->Equals(*List(Int32())));
  proto::Scalar other;
  EXPECT_THAT(EncodeScalar(Scalar::Make(List(Int32()), int32_t{1}), &other),
              IsError(StatusCode::kNotSupported));
}

TEST(ValueCodecTest, ScalarWithTheWrongStorageIsCorrupt) {
  proto::Scalar message;
  EncodeType(*Date(), message.mutable_type());
  message.set_int64_value(3);
  Result<Scalar> back = DecodeScalar(message);
  ASSERT_THAT(back.status(), IsError(StatusCode::kCorrupt));
  EXPECT_EQ(back.status().message(), "scalar of type date holds the wrong kind of value");

  message.set_int128_value("short");
  EncodeType(*Decimal(10, 2), message.mutable_type());
  EXPECT_EQ(DecodeScalar(message).status().message(), "decimal scalar of 5 bytes (16 expected)");
}

TEST(ValueCodecTest, BadTypesAreCorrupt) {
  proto::DataType message;
  message.set_id("int99");
  EXPECT_EQ(DecodeType(message).status().message(), "unknown data type \"int99\"");
  message.set_id("decimal");
  message.set_precision(40);
  EXPECT_THAT(DecodeType(message).status(), IsError(StatusCode::kCorrupt));
  message.Clear();
  message.set_id("list");
  EXPECT_EQ(DecodeType(message).status().message(), "data type list with 0 fields");
  message.Clear();
  message.set_id("fixed");
  EXPECT_THAT(DecodeType(message).status(), IsError(StatusCode::kCorrupt));
  message.Clear();
  message.set_id("int32");
  message.set_extension("jsonb");
  EXPECT_EQ(DecodeType(message).status().message(), "extension \"jsonb\" over data type int32");
  message.set_id("string");
  message.set_extension("xml");
  EXPECT_EQ(DecodeType(message).status().message(), "unknown extension type \"xml\"");
}

TEST(ValueCodecTest, DeeplyNestedTypeIsRefused) {
  proto::DataType root;
  proto::DataType* at = &root;
  for (int i = 0; i < 100; ++i) {
    at->set_id("list");
    proto::Field* element = at->add_fields();
    element->set_name("element");
    at = element->mutable_type();
  }
  at->set_id("int32");
  EXPECT_EQ(DecodeType(root).status().message(), "data type nested deeper than 64");
}

TEST(ValueCodecTest, ExpressionsRoundTripAndCompile) {
  SchemaPtr schema =
      std::make_shared<Schema>(std::vector<Field>{Field("a", Int32()), Field("s", String())});
  expr::ExprPtr a = expr::Column(0, "a", Int32());
  expr::ExprPtr s = expr::Column(1, "s", String());
  expr::ExprPtr e = expr::Case(
      {expr::Compare("gt", a, expr::Literal(Scalar::I32(3))), expr::Call("upper", {s}, String())},
      expr::Cast(a, String()), String());
  proto::Expr message;
  ASSERT_OK(EncodeExpr(*e, &message));
  ASSERT_OK_AND_ASSIGN(expr::ExprPtr back, DecodeExpr(message));
  EXPECT_TRUE(back->Equals(*e)) << back->ToString();
  EXPECT_EQ(back->ToString(), e->ToString());

  ASSERT_OK_AND_ASSIGN(expr::PhysicalExprPtr physical, expr::Compile(e, schema));
  proto::PhysicalExpr pmessage;
  ASSERT_OK(EncodePhysicalExpr(*physical, &pmessage));
  PhysicalExprCodecs codecs;
  DecodeContext context{&codecs};
  PlanDecoder decoder("TestExec", "", context);
  ASSERT_OK_AND_ASSIGN(expr::PhysicalExprPtr decoded, decoder.Expr(pmessage, schema));
  EXPECT_EQ(decoded->ToString(), physical->ToString());
  EXPECT_EQ(decoded->name(), "Case");
}

TEST(ValueCodecTest, MalformedExpressionsAreCorrupt) {
  SchemaPtr schema = std::make_shared<Schema>(std::vector<Field>{Field("a", Int32())});
  PhysicalExprCodecs codecs;
  DecodeContext context{&codecs};
  PlanDecoder decoder("FilterExec", "", context);

  proto::PhysicalExpr message;
  message.set_name("Telepathy");
  ASSERT_OK(EncodeExpr(*expr::Column(0, "a", Int32()), message.mutable_source()));
  EXPECT_EQ(decoder.Expr(message, schema).status().message(),
            "plan node FilterExec: unknown physical expression type \"Telepathy\"");

  // A column past the end of the input schema.
  message.set_name("Column");
  message.mutable_source()->set_column(5);
  Result<expr::PhysicalExprPtr> r = decoder.Expr(message, schema);
  ASSERT_THAT(r.status(), IsError(StatusCode::kCorrupt));
  EXPECT_NE(r.status().message().find("does not compile against its input"), std::string::npos)
      << r.status().message();

  // An unknown function.
  message.Clear();
  message.set_name("Call");
  ASSERT_OK(EncodeExpr(*expr::Call("no_such_function", {}, Int32()), message.mutable_source()));
  EXPECT_THAT(decoder.Expr(message, schema).status(), IsError(StatusCode::kCorrupt));

  // A literal whose value type differs from the expression's.
  proto::Expr literal;
  ASSERT_OK(EncodeExpr(*expr::Literal(Scalar::I32(1)), &literal));
  EncodeType(*Int64(), literal.mutable_type());
  EXPECT_EQ(DecodeExpr(literal).status().message(),
            "literal of type int32 in an expression of type int64");

  proto::Expr cast;
  ASSERT_OK(EncodeExpr(*expr::Cast(expr::Column(0, "a", Int32()), Int64()), &cast));
  cast.clear_args();
  EXPECT_EQ(DecodeExpr(cast).status().message(), "cast with 0 arguments");
}

}  // namespace
}  // namespace floe::codec
