// SQL conjuncts -> Iceberg filters: what converts, polarity under NOT, casts, LIKE prefixes
// after ESCAPE, IN lists with NULLs, and NaN-sensitive comparisons on floating columns.

#include "floe/connector/iceberg/iceberg_filter.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "floe/expr/expr.h"

namespace floe::connector {
namespace {

class IcebergFilterTest : public ::testing::Test {
 protected:
  IcebergFilterTest()
      : schema_(std::make_shared<const Schema>(
            std::vector<Field>{Field("id", Int32(), true, 1), Field("name", String(), true, 2),
                               Field("f", Float64(), true, 3), Field("big", Int64(), true, 4),
                               Field("price", Decimal(9, 2), true, 5)})) {}

  expr::ExprPtr Col(int i) const {
    const Field& f = schema_->field(i);
    return expr::Column(i, f.name(), f.type());
  }
  static expr::ExprPtr I32(int32_t v) { return expr::Literal(Scalar::I32(v)); }
  static expr::ExprPtr Str(std::string v) { return expr::Literal(Scalar::Str(std::move(v))); }
  static expr::ExprPtr Like(expr::ExprPtr value, std::string pattern,
                            std::optional<std::string> escape = std::nullopt) {
    std::vector<expr::ExprPtr> args = {std::move(value), Str(std::move(pattern))};
    if (escape) args.push_back(Str(*escape));
    return expr::Call("like", std::move(args), Boolean());
  }
  // A predicate nothing converts: length(name) = 1.
  expr::ExprPtr Opaque() const {
    return expr::Compare("eq", expr::Call("length", {Col(1)}, Int32()), I32(1));
  }

  // The converted text, or "(none)".
  std::string Convert(const expr::ExprPtr& e) const {
    auto out = connector::ToIcebergFilter(*e, *schema_);
    return out ? (*out)->ToString() : "(none)";
  }

  SchemaPtr schema_;
};

TEST_F(IcebergFilterTest, ComparisonsEitherWayRound) {
  EXPECT_EQ(Convert(expr::Compare("eq", Col(0), I32(5))), "id = 5");
  EXPECT_EQ(Convert(expr::Compare("lt", I32(5), Col(0))), "id > 5");
  EXPECT_EQ(Convert(expr::Compare("ge", Col(0), I32(5))), "id >= 5");
  EXPECT_EQ(Convert(expr::Compare("ne", Col(1), Str("a"))), "name != 'a'");
  // A column against a column, or a NULL constant, does not convert.
  EXPECT_EQ(Convert(expr::Compare("eq", Col(0), Col(0))), "(none)");
  EXPECT_EQ(Convert(expr::Compare("eq", Col(0), expr::Literal(Scalar::Null(Int32())))), "(none)");
}

TEST_F(IcebergFilterTest, PolarityUnderNot) {
  auto a = expr::Compare("eq", Col(0), I32(1));
  // a AND u pushes a; NOT (a AND u) pushes nothing (never NOT a).
  EXPECT_EQ(Convert(expr::And({a, Opaque()})), "id = 1");
  EXPECT_EQ(Convert(expr::Not(expr::And({a, Opaque()}))), "(none)");
  // NOT (NOT (a AND u)) is a AND u again.
  EXPECT_EQ(Convert(expr::Not(expr::Not(expr::And({a, Opaque()})))), "id = 1");
  // a OR u cannot be pushed; NOT (a OR u) = NOT a AND NOT u pushes NOT a.
  EXPECT_EQ(Convert(expr::Or({a, Opaque()})), "(none)");
  EXPECT_EQ(Convert(expr::Not(expr::Or({a, Opaque()}))), "id != 1");
  auto b = expr::Compare("lt", Col(3), expr::Literal(Scalar::I64(7)));
  EXPECT_EQ(Convert(expr::Not(expr::And({a, b}))), "id != 1 or big >= 7");
  EXPECT_EQ(Convert(expr::Not(expr::IsNull(Col(1)))), "name is not null");
}

TEST_F(IcebergFilterTest, CastsKeptUnlessTheyPreserveOrder) {
  // CAST(f AS int) = 2 rounds: 1.5 matches, so it must not become f = 2.
  EXPECT_EQ(Convert(expr::Compare("eq", expr::Cast(Col(2), Int32()), I32(2))), "(none)");
  // Widening an int keeps every comparison.
  EXPECT_EQ(Convert(expr::Compare("lt", expr::Cast(Col(0), Int64()),
                                  expr::Literal(Scalar::I64(10000000000LL)))),
            "id < 10000000000");
  // A decimal that only gains precision keeps its values; one that changes scale does not.
  EXPECT_EQ(Convert(expr::Compare("eq", expr::Cast(Col(4), Decimal(12, 2)),
                                  expr::Literal(Scalar::Make(Decimal(12, 2), Int128(125))))),
            "price = 1.25");
  EXPECT_EQ(Convert(expr::Compare("eq", expr::Cast(Col(4), Decimal(12, 3)),
                                  expr::Literal(Scalar::Make(Decimal(12, 3), Int128(1250))))),
            "(none)");
}

TEST_F(IcebergFilterTest, LikePrefixesAfterEscapes) {
  EXPECT_EQ(Convert(Like(Col(1), "abc%")), "name starts with 'abc'");
  EXPECT_EQ(Convert(Like(Col(1), "abc%%")), "name starts with 'abc'");
  // With the default escape, 'abc\%' is the literal abc%.
  EXPECT_EQ(Convert(Like(Col(1), "abc\\%")), "name = 'abc%'");
  EXPECT_EQ(Convert(Like(Col(1), "ab#%cd%", "#")), "name starts with 'ab%cd'");
  EXPECT_EQ(Convert(Like(Col(1), "a_c%")), "(none)");
  EXPECT_EQ(Convert(Like(Col(1), "%abc")), "(none)");
  EXPECT_EQ(Convert(Like(Col(1), "ab%c")), "(none)");
  EXPECT_EQ(Convert(expr::Not(Like(Col(1), "abc%"))), "name not starts with 'abc'");
  // An escape at the end is an error at run time: nothing is pushed.
  EXPECT_EQ(Convert(Like(Col(1), "abc\\")), "(none)");
}

TEST_F(IcebergFilterTest, InListsAndNulls) {
  auto null_i32 = expr::Literal(Scalar::Null(Int32()));
  auto in = [&](std::vector<expr::ExprPtr> values) {
    values.insert(values.begin(), Col(0));
    return expr::Call("in_list", std::move(values), Boolean());
  };
  EXPECT_EQ(Convert(in({I32(1), I32(2)})), "id in (1, 2)");
  EXPECT_EQ(Convert(in({I32(1), null_i32})), "id in (1)");
  EXPECT_EQ(Convert(expr::Not(in({I32(1), I32(2)}))), "id not in (1, 2)");
  // x NOT IN (1, NULL) is never TRUE: left to the engine.
  EXPECT_EQ(Convert(expr::Not(in({I32(1), null_i32}))), "(none)");
  EXPECT_EQ(Convert(in({null_i32})), "false");
}

TEST_F(IcebergFilterTest, FloatingColumnsAndNaN) {
  auto f = [&](std::string op, double v) {
    return expr::Compare(std::move(op), Col(2), expr::Literal(Scalar::F64(v)));
  };
  EXPECT_EQ(Convert(f("lt", 1.5)), "f < 1.5");
  EXPECT_EQ(Convert(f("eq", 1.5)), "f = 1.5");
  // NaN sorts above every number: > and >= (and NOT <) may hold for rows metrics miss.
  EXPECT_EQ(Convert(f("gt", 1.5)), "(none)");
  EXPECT_EQ(Convert(expr::Not(f("lt", 1.5))), "(none)");
  EXPECT_EQ(Convert(f("eq", std::nan(""))), "(none)");
}

}  // namespace
}  // namespace floe::connector
