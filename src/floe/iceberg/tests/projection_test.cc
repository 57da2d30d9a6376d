#include "floe/iceberg/projection.h"

#include <limits>

#include <gtest/gtest.h>

#include "floe/common/calendar.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using Op = Operation;

constexpr int64_t kDayMicros = int64_t{86400} * 1000000;

struct Fixture {
  SchemaPtr schema;
  PartitionSpecPtr spec;
  TypePtr partition_type;
};

Fixture Make(std::vector<PartitionField> fields) {
  Fixture f;
  auto s = Schema::Make(1, {Field("id", Int32(), false, 1), Field("name", String(), true, 2),
                            Field("ts", TimestampTz(), true, 3), Field("d", Date(), true, 4),
                            Field("price", Decimal(9, 2), true, 5), Field("x", Float64(), true, 6),
                            Field("big", Int64(), true, 8), Field("bin", Binary(), true, 9)});
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  f.schema = *s;
  auto spec = PartitionSpec::Make(*f.schema, 1, std::move(fields));
  EXPECT_TRUE(spec.has_value()) << spec.error().ToString();
  f.spec = *spec;
  auto type = f.spec->PartitionType(*f.schema);
  EXPECT_TRUE(type.has_value()) << type.error().ToString();
  f.partition_type = *type;
  return f;
}

Fixture Standard() {
  return Make({{1, 1000, "id_bucket", Transform::Bucket(16)},
               {8, 1001, "big_trunc", Transform::Truncate(10)},
               {2, 1002, "name_trunc", Transform::Truncate(3)},
               {3, 1003, "ts_day", Transform::Day()},
               {4, 1004, "d_month", Transform::Month()},
               {5, 1005, "price", Transform::Identity()},
               {9, 1006, "bin_trunc", Transform::Truncate(2)}});
}

std::string Project(const Fixture& f, const ExpressionPtr& unbound, bool strict) {
  auto bound = Bind(unbound, *f.schema, true);
  EXPECT_TRUE(bound.has_value()) << bound.error().ToString();
  if (!bound.has_value()) return "<bind error>";
  auto r = strict ? ProjectStrict(*bound, *f.spec, *f.schema, f.partition_type)
                  : ProjectInclusive(*bound, *f.spec, *f.schema, f.partition_type);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() ? (*r)->ToString() : "<error>";
}

std::string Incl(const Fixture& f, Op op, const std::string& col, std::vector<Scalar> lits = {}) {
  return Project(f, Expression::Make(op, col, std::move(lits)), false);
}
std::string Strict(const Fixture& f, Op op, const std::string& col, std::vector<Scalar> lits = {}) {
  return Project(f, Expression::Make(op, col, std::move(lits)), true);
}

int32_t Bucket16(int32_t v) {
  auto r = Transform::Bucket(16).Apply(Scalar::I32(v));
  EXPECT_TRUE(r.has_value());
  return r.has_value() ? r->get<int32_t>() : -1;
}

TEST(ProjectionTest, Bucket) {
  Fixture f = Standard();
  const int32_t b5 = Bucket16(5), b1 = Bucket16(1);
  int32_t v2 = 2;
  while (Bucket16(v2) == b1) ++v2;
  const int32_t b2 = Bucket16(v2);
  EXPECT_EQ(Incl(f, Op::kEq, "id", {Scalar::I32(5)}), fmt::format("id_bucket = {}", b5));
  EXPECT_EQ(Incl(f, Op::kIn, "id", {Scalar::I32(1), Scalar::I32(v2)}),
            fmt::format("id_bucket in ({}, {})", std::min(b1, b2), std::max(b1, b2)));
  for (Op op : {Op::kLt, Op::kLtEq, Op::kGt, Op::kGtEq, Op::kNotEq}) {
    EXPECT_EQ(Incl(f, op, "id", {Scalar::I32(5)}), "true");
  }
  EXPECT_EQ(Incl(f, Op::kNotIn, "id", {Scalar::I32(1), Scalar::I32(2)}), "true");
  // Literals in one bucket collapse to one value.
  EXPECT_EQ(Incl(f, Op::kIn, "id", {Scalar::I32(1), Scalar::I32(2)}),
            Bucket16(1) == Bucket16(2)
                ? fmt::format("id_bucket = {}", b1)
                : fmt::format("id_bucket in ({}, {})", std::min(b1, Bucket16(2)),
                              std::max(b1, Bucket16(2))));
  EXPECT_EQ(Strict(f, Op::kNotEq, "id", {Scalar::I32(5)}), fmt::format("id_bucket != {}", b5));
  EXPECT_EQ(Strict(f, Op::kNotIn, "id", {Scalar::I32(1), Scalar::I32(v2)}),
            fmt::format("id_bucket not in ({}, {})", std::min(b1, b2), std::max(b1, b2)));
  for (Op op : {Op::kLt, Op::kLtEq, Op::kGt, Op::kGtEq, Op::kEq}) {
    EXPECT_EQ(Strict(f, op, "id", {Scalar::I32(5)}), "false");
  }
  // A transform term projects onto the matching partition field exactly.
  ASSERT_OK_AND_ASSIGN(
      auto t,
      Expression::Predicate(Op::kEq, Term::Ref("id", Transform::Bucket(16)), {Scalar::I32(3)}));
  EXPECT_EQ(Project(f, t, false), "id_bucket = 3");
  EXPECT_EQ(Project(f, t, true), "id_bucket = 3");
  ASSERT_OK_AND_ASSIGN(
      auto other,
      Expression::Predicate(Op::kEq, Term::Ref("id", Transform::Bucket(8)), {Scalar::I32(3)}));
  EXPECT_EQ(Project(f, other, false), "true");
  EXPECT_EQ(Project(f, other, true), "false");
}

TEST(ProjectionTest, TruncateIntegers) {
  Fixture f = Standard();
  EXPECT_EQ(Incl(f, Op::kLt, "big", {Scalar::I64(100)}),
            "big_trunc <= 90 or big_trunc >= 9223372036854775799");
  EXPECT_EQ(Incl(f, Op::kLt, "big", {Scalar::I64(101)}),
            "big_trunc <= 100 or big_trunc >= 9223372036854775799");
  EXPECT_EQ(Incl(f, Op::kLtEq, "big", {Scalar::I64(100)}),
            "big_trunc <= 100 or big_trunc >= 9223372036854775799");
  EXPECT_EQ(Incl(f, Op::kGt, "big", {Scalar::I64(99)}), "big_trunc >= 100");
  EXPECT_EQ(Incl(f, Op::kGt, "big", {Scalar::I64(100)}), "big_trunc >= 100");
  EXPECT_EQ(Incl(f, Op::kGtEq, "big", {Scalar::I64(105)}), "big_trunc >= 100");
  EXPECT_EQ(Incl(f, Op::kEq, "big", {Scalar::I64(-1)}), "big_trunc = -10");
  EXPECT_EQ(Incl(f, Op::kIn, "big", {Scalar::I64(101), Scalar::I64(109), Scalar::I64(5)}),
            "big_trunc in (0, 100)");
  EXPECT_EQ(Incl(f, Op::kNotEq, "big", {Scalar::I64(5)}), "true");
  EXPECT_EQ(Incl(f, Op::kIsNull, "big"), "big_trunc is null");
  EXPECT_EQ(Incl(f, Op::kNotNull, "big"), "big_trunc is not null");

  EXPECT_EQ(Strict(f, Op::kLt, "big", {Scalar::I64(100)}), "big_trunc < 100");
  EXPECT_EQ(Strict(f, Op::kLtEq, "big", {Scalar::I64(100)}), "big_trunc < 100");
  EXPECT_EQ(Strict(f, Op::kLtEq, "big", {Scalar::I64(109)}), "big_trunc < 110");
  EXPECT_EQ(Strict(f, Op::kGt, "big", {Scalar::I64(100)}),
            "big_trunc > 100 and big_trunc < 9223372036854775799");
  EXPECT_EQ(Strict(f, Op::kGtEq, "big", {Scalar::I64(100)}),
            "big_trunc > 90 and big_trunc < 9223372036854775799");
  EXPECT_EQ(Strict(f, Op::kNotEq, "big", {Scalar::I64(105)}),
            "big_trunc != 100 and big_trunc < 9223372036854775799");
  EXPECT_EQ(Strict(f, Op::kEq, "big", {Scalar::I64(105)}), "false");
  EXPECT_EQ(Strict(f, Op::kIsNull, "big"), "big_trunc is null");
}

// Iceberg's truncate wraps as Java's arithmetic does for the values just above the type's
// minimum: their partition value is the type's maximum plus one less the minimum's
// remainder (9223372036854775806 for W = 10). Pruning keeps those partitions for the
// predicates their values satisfy; a literal that wraps itself is not projected.
TEST(ProjectionTest, TruncateIntegersNearTheMinimumWrap) {
  Fixture f = Standard();
  const int64_t min = std::numeric_limits<int64_t>::min();
  ASSERT_OK_AND_ASSIGN(Scalar wrapped, Transform::Truncate(10).Apply(Scalar::I64(min)));
  EXPECT_EQ(wrapped.get<int64_t>(), 9223372036854775806);
  // big < 0 must keep the partition of big = min.
  ASSERT_OK_AND_ASSIGN(auto lt,
                       Bind(Expression::Make(Op::kLt, "big", {Scalar::I64(0)}), *f.schema, true));
  ASSERT_OK_AND_ASSIGN(auto projected, ProjectInclusive(lt, *f.spec, *f.schema, f.partition_type));
  EXPECT_EQ(projected->ToString(), "big_trunc <= -10 or big_trunc >= 9223372036854775799");
  // Literals whose truncation wraps prune nothing (inclusive) and prove nothing (strict).
  EXPECT_EQ(Incl(f, Op::kGt, "big", {Scalar::I64(min + 1)}), "true");
  EXPECT_EQ(Incl(f, Op::kEq, "big", {Scalar::I64(min + 3)}), "true");
  EXPECT_EQ(Strict(f, Op::kLt, "big", {Scalar::I64(min + 3)}), "false");
  // A width that divides 2^64 never wraps: nothing is added.
  Fixture pow2 = Make({{8, 1000, "b16", Transform::Truncate(16)}});
  EXPECT_EQ(Incl(pow2, Op::kLt, "big", {Scalar::I64(100)}), "b16 <= 96");
  // int columns wrap near their own minimum.
  Fixture i = Make({{1, 1000, "id10", Transform::Truncate(10)}});
  EXPECT_EQ(Incl(i, Op::kLt, "id", {Scalar::I32(100)}), "id10 <= 90 or id10 >= 2147483639");
}

// hour() of a timestamp wraps its int past about year 246,000, as Java's cast does: the
// latest timestamps land at the bottom of the int range. Projections keep those partitions.
TEST(ProjectionTest, HourOfFarTimestampsWraps) {
  Fixture f = Make({{3, 1000, "ts_hour", Transform::Hour()}});
  const int64_t y250000 = DaysFromCivil(250000, 1, 1) * kDayMicros;
  ASSERT_OK_AND_ASSIGN(Scalar wrapped,
                       Transform::Hour().Apply(Scalar::Make(TimestampTz(), y250000)));
  EXPECT_LT(wrapped.get<int32_t>(), -1732919508 + 1);
  const Scalar y2021 = Scalar::Make(TimestampTz(), DaysFromCivil(2021, 1, 1) * kDayMicros);
  EXPECT_EQ(Incl(f, Op::kGt, "ts", {y2021}), "ts_hour >= 447072 or ts_hour <= -1732919508");
  EXPECT_EQ(Incl(f, Op::kLt, "ts", {y2021}), "ts_hour <= 447071 or ts_hour >= 1732919507");
  EXPECT_EQ(Strict(f, Op::kLt, "ts", {y2021}),
            "ts_hour < 447072 and ts_hour > -1732919508 and ts_hour < 1732919507");
  // A literal whose hour does not fit an int is not projected.
  EXPECT_EQ(Incl(f, Op::kGt, "ts", {Scalar::Make(TimestampTz(), y250000)}), "true");
}

TEST(ProjectionTest, TruncateStringsAndBinary) {
  Fixture f = Standard();
  EXPECT_EQ(Incl(f, Op::kLt, "name", {Scalar::Str("abcd")}), "name_trunc <= 'abc'");
  EXPECT_EQ(Incl(f, Op::kGt, "name", {Scalar::Str("abcd")}), "name_trunc >= 'abc'");
  EXPECT_EQ(Incl(f, Op::kEq, "name", {Scalar::Str("abcd")}), "name_trunc = 'abc'");
  EXPECT_EQ(Incl(f, Op::kStartsWith, "name", {Scalar::Str("ab")}), "name_trunc starts with 'ab'");
  EXPECT_EQ(Incl(f, Op::kStartsWith, "name", {Scalar::Str("abc")}), "name_trunc = 'abc'");
  EXPECT_EQ(Incl(f, Op::kStartsWith, "name", {Scalar::Str("abcd")}), "name_trunc = 'abc'");
  // Code points: two 2-byte characters are shorter than width 3.
  EXPECT_EQ(Incl(f, Op::kStartsWith, "name", {Scalar::Str("\xc3\xa9\xc3\xa9")}),
            "name_trunc starts with '\xc3\xa9\xc3\xa9'");
  EXPECT_EQ(Incl(f, Op::kNotStartsWith, "name", {Scalar::Str("ab")}),
            "name_trunc not starts with 'ab'");
  EXPECT_EQ(Incl(f, Op::kNotStartsWith, "name", {Scalar::Str("abc")}), "name_trunc != 'abc'");
  EXPECT_EQ(Incl(f, Op::kNotStartsWith, "name", {Scalar::Str("abcd")}), "true");

  EXPECT_EQ(Strict(f, Op::kLt, "name", {Scalar::Str("abcd")}), "name_trunc < 'abc'");
  EXPECT_EQ(Strict(f, Op::kLtEq, "name", {Scalar::Str("abcd")}), "name_trunc < 'abc'");
  EXPECT_EQ(Strict(f, Op::kGt, "name", {Scalar::Str("abcd")}), "name_trunc > 'abc'");
  EXPECT_EQ(Strict(f, Op::kNotEq, "name", {Scalar::Str("abcd")}), "name_trunc != 'abc'");
  EXPECT_EQ(Strict(f, Op::kStartsWith, "name", {Scalar::Str("abc")}),
            "name_trunc starts with 'abc'");
  EXPECT_EQ(Strict(f, Op::kStartsWith, "name", {Scalar::Str("abcd")}), "false");
  EXPECT_EQ(Strict(f, Op::kNotStartsWith, "name", {Scalar::Str("abcd")}),
            "name_trunc not starts with 'abc'");
  EXPECT_EQ(Strict(f, Op::kEq, "name", {Scalar::Str("abcd")}), "false");

  EXPECT_EQ(Incl(f, Op::kEq, "bin", {Scalar::Make(Binary(), "abc")}), "bin_trunc = '\\x6162'");
  EXPECT_EQ(Incl(f, Op::kLt, "bin", {Scalar::Make(Binary(), "abc")}), "bin_trunc <= '\\x6162'");
}

TEST(ProjectionTest, TemporalWithPreEpochAdjustment) {
  Fixture f = Standard();
  const int64_t day = 17486 * kDayMicros;  // 2017-11-16T00:00:00Z
  auto ts = [](int64_t v) { return Scalar::Make(TimestampTz(), v); };
  EXPECT_EQ(Incl(f, Op::kLt, "ts", {ts(day)}), "ts_day <= '2017-11-15'");
  EXPECT_EQ(Incl(f, Op::kLtEq, "ts", {ts(day)}), "ts_day <= '2017-11-16'");
  EXPECT_EQ(Incl(f, Op::kGt, "ts", {ts(day - 1)}), "ts_day >= '2017-11-16'");
  EXPECT_EQ(Incl(f, Op::kGtEq, "ts", {ts(day + 5)}), "ts_day >= '2017-11-16'");
  EXPECT_EQ(Incl(f, Op::kEq, "ts", {ts(day + 5)}), "ts_day = '2017-11-16'");
  // Before the epoch the projection also admits the value one above (older writers).
  EXPECT_EQ(Incl(f, Op::kLt, "ts", {ts(-kDayMicros)}), "ts_day <= '1969-12-31'");
  EXPECT_EQ(Incl(f, Op::kEq, "ts", {ts(-kDayMicros + 10)}),
            "ts_day in ('1969-12-31', '1970-01-01')");
  EXPECT_EQ(Incl(f, Op::kGtEq, "ts", {ts(-kDayMicros + 10)}), "ts_day >= '1969-12-31'");

  EXPECT_EQ(Strict(f, Op::kLt, "ts", {ts(day)}), "ts_day < '2017-11-16'");
  EXPECT_EQ(Strict(f, Op::kLtEq, "ts", {ts(day - 1)}), "ts_day < '2017-11-16'");
  EXPECT_EQ(Strict(f, Op::kGt, "ts", {ts(day)}), "ts_day > '2017-11-16'");
  EXPECT_EQ(Strict(f, Op::kGtEq, "ts", {ts(day)}), "ts_day > '2017-11-15'");
  EXPECT_EQ(Strict(f, Op::kNotEq, "ts", {ts(day)}), "ts_day != '2017-11-16'");
  EXPECT_EQ(Strict(f, Op::kEq, "ts", {ts(day)}), "false");
  EXPECT_EQ(Strict(f, Op::kLt, "ts", {ts(-kDayMicros)}), "false");

  auto date = [](int32_t v) { return Scalar::Make(Date(), v); };
  EXPECT_EQ(Incl(f, Op::kGtEq, "d", {date(17486)}), "d_month >= 574");
  EXPECT_EQ(Incl(f, Op::kLt, "d", {date(17471)}), "d_month <= 573");   // 2017-11-01
  EXPECT_EQ(Strict(f, Op::kGt, "d", {date(17500)}), "d_month > 574");  // 2017-11-30
  EXPECT_EQ(Strict(f, Op::kGtEq, "d", {date(17471)}), "d_month > 573");
}

TEST(ProjectionTest, IdentityVoidAndStructure) {
  Fixture f = Standard();
  EXPECT_EQ(Incl(f, Op::kEq, "price", {Scalar::Str("14.2")}), "price = 14.20");
  EXPECT_EQ(Strict(f, Op::kNotIn, "price", {Scalar::I32(1), Scalar::I32(2)}),
            "price not in (1.00, 2.00)");
  EXPECT_EQ(Incl(f, Op::kGt, "x", {Scalar::F64(1)}), "true");
  EXPECT_EQ(Strict(f, Op::kGt, "x", {Scalar::F64(1)}), "false");
  EXPECT_EQ(
      Project(f, Expression::Not(Expression::Make(Op::kNotEq, "id", {Scalar::I32(5)})), false),
      fmt::format("id_bucket = {}", Bucket16(5)));
  EXPECT_EQ(Project(f,
                    Expression::Or(Expression::Make(Op::kLt, "big", {Scalar::I64(100)}),
                                   Expression::Make(Op::kGt, "x", {Scalar::F64(1)})),
                    false),
            "true");
  EXPECT_EQ(Project(f,
                    Expression::And(Expression::Make(Op::kLt, "big", {Scalar::I64(100)}),
                                    Expression::Make(Op::kGt, "x", {Scalar::F64(1)})),
                    false),
            "big_trunc <= 90 or big_trunc >= 9223372036854775799");
  EXPECT_EQ(Project(f,
                    Expression::Or(Expression::Make(Op::kLt, "big", {Scalar::I64(100)}),
                                   Expression::Make(Op::kGt, "x", {Scalar::F64(1)})),
                    true),
            "big_trunc < 100");

  Fixture v = Make({{8, 1000, "big_void", Transform::Void()}});
  EXPECT_EQ(Incl(v, Op::kEq, "big", {Scalar::I64(5)}), "true");
  EXPECT_EQ(Incl(v, Op::kIsNull, "big"), "true");
  EXPECT_EQ(Strict(v, Op::kEq, "big", {Scalar::I64(5)}), "false");
  EXPECT_EQ(Strict(v, Op::kNotNull, "big"), "false");

  // Two fields on one source: inclusive ANDs, strict ORs.
  Fixture two =
      Make({{8, 1000, "b10", Transform::Truncate(10)}, {8, 1001, "b", Transform::Identity()}});
  EXPECT_EQ(Incl(two, Op::kLt, "big", {Scalar::I64(100)}),
            "(b10 <= 90 or b10 >= 9223372036854775799) and b < 100");
  EXPECT_EQ(Strict(two, Op::kLt, "big", {Scalar::I64(100)}), "b10 < 100 or b < 100");
}

}  // namespace
}  // namespace floe::iceberg
