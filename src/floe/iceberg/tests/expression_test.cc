#include "floe/iceberg/expression.h"

#include <gtest/gtest.h>

#include "floe/batch/utf8.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using Op = Operation;

SchemaPtr TestSchema() {
  auto s = Schema::Make(
      1,
      {Field("id", Int32(), /*nullable=*/false, 1), Field("name", String(), true, 2),
       Field("ts", TimestampTz(), true, 3), Field("d", Date(), true, 4),
       Field("price", Decimal(9, 2), true, 5), Field("x", Float64(), true, 6),
       Field("u", Uuid(), true, 7), Field("big", Int64(), true, 8),
       Field("loc", Struct({Field("lat", Float64(), true, 10), Field("lon", Float64(), true, 11)}),
             true, 9),
       Field("tags", List(Field("element", String(), true, 13)), true, 12),
       Field("local", Timestamp(), true, 14)});
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return *s;
}

ExpressionPtr BindOk(const ExpressionPtr& e, bool case_sensitive = true) {
  auto r = Bind(e, *TestSchema(), case_sensitive);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() ? *r : Expression::False();
}

TEST(ExpressionTest, ToStringForms) {
  auto e = Expression::And(Expression::Make(Op::kGt, "id", {Scalar::I32(5)}),
                           Expression::Make(Op::kStartsWith, "name", {Scalar::Str("a")}));
  EXPECT_EQ(e->ToString(), "id > 5 and name starts with 'a'");
  auto o = Expression::Or(Expression::Make(Op::kIsNull, "name"),
                          Expression::Make(Op::kIn, "id", {Scalar::I32(1), Scalar::I32(2)}));
  EXPECT_EQ(Expression::And(o, Expression::Make(Op::kNotNan, "x"))->ToString(),
            "(name is null or id in (1, 2)) and x is not nan");
  EXPECT_EQ(Expression::Not(Expression::Make(Op::kEq, "name", {Scalar::Str("it's")}))->ToString(),
            "not (name = 'it''s')");
  ASSERT_OK_AND_ASSIGN(
      auto bucket,
      Expression::Predicate(Op::kEq, Term::Ref("id", Transform::Bucket(16)), {Scalar::I32(3)}));
  EXPECT_EQ(bucket->ToString(), "bucket(16, id) = 3");
  EXPECT_EQ(Expression::True()->ToString(), "true");
  EXPECT_THAT(Expression::Predicate(Op::kIsNull, Term::Ref("id"), {Scalar::I32(1)}),
              testing::IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(Expression::Predicate(Op::kLt, Term::Ref("id"), {}),
              testing::IsError(StatusCode::kInvalidArgument));
}

TEST(ExpressionTest, Simplification) {
  auto p = Expression::Make(Op::kEq, "id", {Scalar::I32(1)});
  EXPECT_TRUE(IsAlwaysFalse(*Expression::And(p, Expression::False())));
  EXPECT_TRUE(Expression::And(Expression::True(), p)->Equals(*p));
  EXPECT_TRUE(IsAlwaysTrue(*Expression::Or(p, Expression::True())));
  EXPECT_TRUE(Expression::Or(Expression::False(), p)->Equals(*p));
  EXPECT_TRUE(Expression::Not(Expression::Not(p))->Equals(*p));
  EXPECT_TRUE(IsAlwaysFalse(*Expression::Not(Expression::True())));
  EXPECT_FALSE(p->Equals(*Expression::Make(Op::kEq, "id", {Scalar::I32(2)})));
  EXPECT_FALSE(p->Equals(*Expression::Make(Op::kNotEq, "id", {Scalar::I32(1)})));
  EXPECT_TRUE(p->Equals(*Expression::Make(Op::kEq, "id", {Scalar::I32(1)})));
}

TEST(ExpressionTest, RewriteNotPushesDown) {
  auto e = Expression::Not(Expression::And(Expression::Make(Op::kLt, "id", {Scalar::I32(5)}),
                                           Expression::Make(Op::kIsNull, "name")));
  ExpressionPtr r = RewriteNot(e);
  EXPECT_EQ(r->ToString(), "id >= 5 or name is not null");
  auto n = RewriteNot(
      Expression::Not(Expression::Make(Op::kIn, "id", {Scalar::I32(1), Scalar::I32(2)})));
  EXPECT_EQ(n->ToString(), "id not in (1, 2)");
  auto plain = Expression::And(Expression::Make(Op::kLt, "id", {Scalar::I32(5)}),
                               Expression::Make(Op::kIsNull, "name"));
  EXPECT_EQ(RewriteNot(plain), plain);
  auto s =
      RewriteNot(Expression::Not(Expression::Make(Op::kStartsWith, "name", {Scalar::Str("a")})));
  EXPECT_EQ(s->ToString(), "name not starts with 'a'");
}

TEST(BindTest, ResolvesColumnsAndConvertsLiterals) {
  ExpressionPtr b = BindOk(Expression::Make(Op::kGt, "id", {Scalar::I64(5)}));
  ASSERT_EQ(b->op(), Op::kGt);
  EXPECT_EQ(b->term().field_id, 1);
  EXPECT_EQ(b->literal().type()->id(), TypeId::kInt32);
  EXPECT_EQ(b->literal().get<int32_t>(), 5);
  EXPECT_TRUE(b->bound());

  b = BindOk(Expression::Make(Op::kEq, "LOC.LAT", {Scalar::I32(1)}), /*case_sensitive=*/false);
  EXPECT_EQ(b->term().field_id, 10);
  EXPECT_EQ(b->term().name, "loc.lat");
  EXPECT_EQ(b->literal().get<double>(), 1.0);

  EXPECT_THAT(Bind(Expression::Make(Op::kEq, "LOC.LAT", {Scalar::I32(1)}), *TestSchema(), true),
              testing::IsErrorWith(StatusCode::kBind, "LOC.LAT"));
  EXPECT_THAT(Bind(Expression::Make(Op::kEq, "nope", {Scalar::I32(1)}), *TestSchema(), true),
              testing::IsErrorWith(StatusCode::kBind, "'nope'"));
  EXPECT_THAT(Bind(Expression::Make(Op::kIsNull, "loc"), *TestSchema(), true),
              testing::IsErrorWith(StatusCode::kBind, "nested"));
  EXPECT_THAT(Bind(Expression::Make(Op::kIsNan, "id"), *TestSchema(), true),
              testing::IsErrorWith(StatusCode::kBind, "IS NAN"));
  EXPECT_THAT(
      Bind(Expression::Make(Op::kStartsWith, "id", {Scalar::Str("1")}), *TestSchema(), true),
      testing::IsError(StatusCode::kBind));
  EXPECT_THAT(Bind(Expression::Make(Op::kEq, "id", {Scalar::Null(Int32())}), *TestSchema(), true),
              testing::IsErrorWith(StatusCode::kBind, "IS NULL"));
  EXPECT_THAT(Bind(Expression::Make(Op::kLt, "x", {Scalar::F64(NAN)}), *TestSchema(), true),
              testing::IsErrorWith(StatusCode::kBind, "IS NAN"));
  EXPECT_THAT(Bind(Expression::Make(Op::kEq, "id", {Scalar::Str("abc")}), *TestSchema(), true),
              testing::IsErrorWith(StatusCode::kBind, "column 'id'"));
  EXPECT_THAT(
      Bind(Expression::Make(Op::kEq, "d", {Scalar::Str("2024-02-30")}), *TestSchema(), true),
      testing::IsError(StatusCode::kBind));
}

TEST(BindTest, OutOfRangeLiteralsFold) {
  const Scalar huge = Scalar::I64(int64_t{INT32_MAX} + 1);
  const Scalar tiny = Scalar::I64(int64_t{INT32_MIN} - 1);
  EXPECT_TRUE(IsAlwaysTrue(*BindOk(Expression::Make(Op::kLt, "id", {huge}))));
  EXPECT_TRUE(IsAlwaysTrue(*BindOk(Expression::Make(Op::kLtEq, "id", {huge}))));
  EXPECT_TRUE(IsAlwaysFalse(*BindOk(Expression::Make(Op::kGt, "id", {huge}))));
  EXPECT_TRUE(IsAlwaysFalse(*BindOk(Expression::Make(Op::kEq, "id", {huge}))));
  EXPECT_TRUE(IsAlwaysTrue(*BindOk(Expression::Make(Op::kNotEq, "id", {huge}))));
  EXPECT_TRUE(IsAlwaysFalse(*BindOk(Expression::Make(Op::kLt, "id", {tiny}))));
  EXPECT_TRUE(IsAlwaysTrue(*BindOk(Expression::Make(Op::kGtEq, "id", {tiny}))));
  EXPECT_TRUE(IsAlwaysFalse(*BindOk(Expression::Make(Op::kIn, "id", {huge, tiny}))));
  EXPECT_TRUE(IsAlwaysTrue(*BindOk(Expression::Make(Op::kNotIn, "id", {huge}))));
  ExpressionPtr in = BindOk(Expression::Make(Op::kIn, "id", {huge, Scalar::I32(3)}));
  EXPECT_EQ(in->ToString(), "id = 3");
  in = BindOk(Expression::Make(Op::kIn, "id", {Scalar::I32(3), Scalar::I64(1), Scalar::I32(3)}));
  EXPECT_EQ(in->ToString(), "id in (1, 3)");
  // Decimal precision: 9 digits with scale 2 holds at most 9999999.99.
  EXPECT_TRUE(IsAlwaysTrue(*BindOk(Expression::Make(Op::kLt, "price", {Scalar::I64(10000000)}))));
  ExpressionPtr price = BindOk(Expression::Make(Op::kLt, "price", {Scalar::I64(100)}));
  EXPECT_EQ(price->literal().get<Int128>(), Int128{10000});
  // Nullability decides null tests.
  EXPECT_TRUE(IsAlwaysFalse(*BindOk(Expression::Make(Op::kIsNull, "id"))));
  EXPECT_TRUE(IsAlwaysTrue(*BindOk(Expression::Make(Op::kNotNull, "id"))));
  EXPECT_EQ(BindOk(Expression::Make(Op::kIsNull, "name"))->op(), Op::kIsNull);
}

TEST(BindTest, StringLiteralsToTypedValues) {
  ExpressionPtr d = BindOk(Expression::Make(Op::kEq, "d", {Scalar::Str("2017-11-16")}));
  EXPECT_EQ(d->literal().get<int32_t>(), 17486);
  d = BindOk(Expression::Make(Op::kEq, "d", {Scalar::Str("1969-12-31")}));
  EXPECT_EQ(d->literal().get<int32_t>(), -1);
  ExpressionPtr ts =
      BindOk(Expression::Make(Op::kGtEq, "ts", {Scalar::Str("2017-11-16T14:31:08-08:00")}));
  EXPECT_EQ(ts->literal().get<int64_t>(), int64_t{17486} * 86400000000 + int64_t{81068} * 1000000);
  ts = BindOk(Expression::Make(Op::kGtEq, "ts", {Scalar::Str("2017-11-16 22:31:08.000001")}));
  EXPECT_EQ(ts->literal().get<int64_t>(),
            int64_t{17486} * 86400000000 + int64_t{81068} * 1000000 + 1);
  EXPECT_THAT(Bind(Expression::Make(Op::kEq, "local", {Scalar::Str("2017-11-16T14:31:08Z")}),
                   *TestSchema(), true),
              testing::IsErrorWith(StatusCode::kBind, "zone"));
  ExpressionPtr u =
      BindOk(Expression::Make(Op::kEq, "u", {Scalar::Str("f79c3e09-677c-4bbd-a479-3f349cb785e7")}));
  EXPECT_EQ(u->literal().get<std::string>().size(), 16u);
  EXPECT_EQ(static_cast<uint8_t>(u->literal().get<std::string>()[0]), 0xF7);
  EXPECT_EQ(LiteralToString(u->literal()), "'f79c3e09-677c-4bbd-a479-3f349cb785e7'");
  ExpressionPtr p = BindOk(Expression::Make(Op::kEq, "price", {Scalar::Str("14.2")}));
  EXPECT_EQ(p->literal().get<Int128>(), Int128{1420});
  EXPECT_THAT(
      Bind(Expression::Make(Op::kEq, "price", {Scalar::Str("14.201")}), *TestSchema(), true),
      testing::IsError(StatusCode::kBind));
}

TEST(BindTest, TransformTermsAndReferencedIds) {
  ASSERT_OK_AND_ASSIGN(
      auto e,
      Expression::Predicate(Op::kEq, Term::Ref("id", Transform::Bucket(16)), {Scalar::I64(3)}));
  ExpressionPtr b = BindOk(e);
  EXPECT_EQ(b->term().field_id, 1);
  EXPECT_EQ(b->literal().type()->id(), TypeId::kInt32);
  EXPECT_EQ(b->ToString(), "bucket(16, id) = 3");
  ASSERT_OK_AND_ASSIGN(auto bad, Expression::Predicate(Op::kEq, Term::Ref("name", Transform::Day()),
                                                       {Scalar::I32(3)}));
  EXPECT_THAT(Bind(bad, *TestSchema(), true), testing::IsErrorWith(StatusCode::kBind, "day"));
  ExpressionPtr both = BindOk(Expression::And(Expression::Make(Op::kEq, "big", {Scalar::I32(1)}),
                                              Expression::Make(Op::kNotNull, "name")));
  EXPECT_EQ(ReferencedFieldIds(*both), (std::vector<int32_t>{2, 8}));
}

TEST(LiteralTest, CompareValues) {
  EXPECT_LT(CompareValues(Scalar::Str("a"), Scalar::Str("b")), 0);
  EXPECT_LT(CompareValues(Scalar::Str("a"), Scalar::Str("ab")), 0);
  // Bytes compare unsigned: U+00E9 (0xc3 0xa9) sorts after 'z'.
  EXPECT_GT(CompareValues(Scalar::Str("\xc3\xa9"), Scalar::Str("z")), 0);
  EXPECT_GT(CompareValues(Scalar::F64(NAN), Scalar::F64(INFINITY)), 0);
  EXPECT_EQ(CompareValues(Scalar::F64(-0.0), Scalar::F64(0.0)), 0);
  EXPECT_LT(CompareValues(Scalar::Make(Decimal(9, 2), Int128{-5}),
                          Scalar::Make(Decimal(9, 2), Int128{3})),
            0);
  EXPECT_EQ(CountCodePoints("\xc3\xa9t\xc3\xa9"), 3);
}

}  // namespace
}  // namespace floe::iceberg
