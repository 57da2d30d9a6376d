#include "floe/iceberg/evaluator.h"

#include <cmath>

#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/iceberg/projection.h"
#include "floe/iceberg/single_value.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using Op = Operation;

SchemaPtr TestSchema() {
  auto s = Schema::Make(1, {Field("id", Int32(), false, 1), Field("name", String(), true, 2),
                            Field("x", Float64(), true, 3), Field("big", Int64(), true, 4),
                            Field("s", Struct({Field("a", Int32(), true, 6)}), true, 5),
                            Field("l", List(Field("element", Int32(), true, 8)), true, 7)});
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return *s;
}

ExpressionPtr B(const ExpressionPtr& e) {
  auto r = Bind(e, *TestSchema(), true);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() ? *r : Expression::False();
}

ExpressionPtr P(Op op, const std::string& col, std::vector<Scalar> lits = {}) {
  return B(Expression::Make(op, col, std::move(lits)));
}

std::string Ser(const Scalar& s) {
  auto r = SerializeValue(s);
  EXPECT_TRUE(r.has_value());
  return r.has_value() ? *r : std::string();
}

// ---------------------------------------------------------------------------------------
// Metrics

DataFile IntFile() {
  // id in [10, 20], 100 rows; name in ["abc", "abd"] with 10 nulls; x all NaN or null;
  // big: no metrics at all.
  DataFile f;
  f.file_path = "f.parquet";
  f.record_count = 100;
  f.value_counts = {{1, 100}, {2, 100}, {3, 100}, {6, 100}, {8, 300}};
  f.null_value_counts = {{1, 0}, {2, 10}, {3, 40}, {6, 0}, {8, 0}};
  f.nan_value_counts = {{3, 60}};
  f.lower_bounds = {{1, Ser(Scalar::I32(10))},
                    {2, Ser(Scalar::Str("abc"))},
                    {6, Ser(Scalar::I32(1))},
                    {8, Ser(Scalar::I32(1))}};
  f.upper_bounds = {{1, Ser(Scalar::I32(20))},
                    {2, Ser(Scalar::Str("abd"))},
                    {6, Ser(Scalar::I32(1))},
                    {8, Ser(Scalar::I32(5))}};
  return f;
}

bool May(const ExpressionPtr& e, const DataFile& f) {
  auto r = InclusiveMetricsMayMatch(*e, *TestSchema(), f);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() && *r;
}

bool All(const ExpressionPtr& e, const DataFile& f) {
  auto r = StrictMetricsAllMatch(*e, *TestSchema(), f);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() && *r;
}

TEST(InclusiveMetricsTest, Comparisons) {
  DataFile f = IntFile();
  EXPECT_FALSE(May(P(Op::kLt, "id", {Scalar::I32(10)}), f));
  EXPECT_TRUE(May(P(Op::kLt, "id", {Scalar::I32(11)}), f));
  EXPECT_FALSE(May(P(Op::kLtEq, "id", {Scalar::I32(9)}), f));
  EXPECT_TRUE(May(P(Op::kLtEq, "id", {Scalar::I32(10)}), f));
  EXPECT_FALSE(May(P(Op::kGt, "id", {Scalar::I32(20)}), f));
  EXPECT_TRUE(May(P(Op::kGt, "id", {Scalar::I32(19)}), f));
  EXPECT_FALSE(May(P(Op::kGtEq, "id", {Scalar::I32(21)}), f));
  EXPECT_TRUE(May(P(Op::kGtEq, "id", {Scalar::I32(20)}), f));
  EXPECT_FALSE(May(P(Op::kEq, "id", {Scalar::I32(21)}), f));
  EXPECT_FALSE(May(P(Op::kEq, "id", {Scalar::I32(9)}), f));
  EXPECT_TRUE(May(P(Op::kEq, "id", {Scalar::I32(15)}), f));
  EXPECT_TRUE(May(P(Op::kNotEq, "id", {Scalar::I32(15)}), f));
  EXPECT_FALSE(May(P(Op::kIn, "id", {Scalar::I32(1), Scalar::I32(30)}), f));
  EXPECT_TRUE(May(P(Op::kIn, "id", {Scalar::I32(1), Scalar::I32(20)}), f));
  EXPECT_FALSE(May(P(Op::kIsNull, "s.a"), f));  // null count 0
  EXPECT_TRUE(May(P(Op::kIsNull, "name"), f));
  EXPECT_TRUE(May(P(Op::kNotNull, "name"), f));
  // No metrics for big: anything may match.
  EXPECT_TRUE(May(P(Op::kEq, "big", {Scalar::I64(-5)}), f));
  // Nested in a struct: usable.
  EXPECT_FALSE(May(P(Op::kGt, "s.a", {Scalar::I32(1)}), f));
  // Inside a list: unusable.
  EXPECT_TRUE(May(P(Op::kGt, "l.element", {Scalar::I32(100)}), f));
  // Three-valued structure.
  EXPECT_TRUE(May(B(Expression::Or(Expression::Make(Op::kLt, "id", {Scalar::I32(5)}),
                                   Expression::Make(Op::kEq, "id", {Scalar::I32(15)}))),
                  f));
  EXPECT_FALSE(May(B(Expression::Not(Expression::Make(Op::kGtEq, "id", {Scalar::I32(5)}))), f));
  DataFile empty = f;
  empty.record_count = 0;
  EXPECT_FALSE(May(P(Op::kEq, "id", {Scalar::I32(15)}), empty));
}

TEST(InclusiveMetricsTest, NullsNaNsAndStrings) {
  DataFile f = IntFile();
  // x: 40 nulls and 60 NaNs, no bounds.
  EXPECT_FALSE(May(P(Op::kLt, "x", {Scalar::F64(1)}), f));
  EXPECT_FALSE(May(P(Op::kEq, "x", {Scalar::F64(1)}), f));
  EXPECT_TRUE(May(P(Op::kIsNan, "x"), f));
  EXPECT_TRUE(May(P(Op::kNotNan, "x"), f));  // the nulls are not NaN
  DataFile all_nan = f;
  all_nan.null_value_counts[3] = 0;
  all_nan.nan_value_counts[3] = 100;
  EXPECT_FALSE(May(P(Op::kNotNan, "x"), all_nan));
  DataFile no_nan = f;
  no_nan.nan_value_counts[3] = 0;
  EXPECT_FALSE(May(P(Op::kIsNan, "x"), no_nan));
  // A NaN bound is ignored, not trusted.
  DataFile nan_bound = no_nan;
  nan_bound.null_value_counts[3] = 0;
  nan_bound.lower_bounds[3] = Ser(Scalar::F64(NAN));
  nan_bound.upper_bounds[3] = Ser(Scalar::F64(2.0));
  EXPECT_TRUE(May(P(Op::kLt, "x", {Scalar::F64(-100)}), nan_bound));
  EXPECT_FALSE(May(P(Op::kGt, "x", {Scalar::F64(2)}), nan_bound));
  // All nulls.
  DataFile nulls = f;
  nulls.null_value_counts[2] = 100;
  EXPECT_FALSE(May(P(Op::kNotNull, "name"), nulls));
  EXPECT_FALSE(May(P(Op::kStartsWith, "name", {Scalar::Str("a")}), nulls));
  // Starts with against ["abc", "abd"].
  EXPECT_TRUE(May(P(Op::kStartsWith, "name", {Scalar::Str("ab")}), f));
  EXPECT_TRUE(May(P(Op::kStartsWith, "name", {Scalar::Str("abd")}), f));
  EXPECT_FALSE(May(P(Op::kStartsWith, "name", {Scalar::Str("abe")}), f));
  EXPECT_FALSE(May(P(Op::kStartsWith, "name", {Scalar::Str("aa")}), f));
  EXPECT_TRUE(May(P(Op::kStartsWith, "name", {Scalar::Str("abcz")}), f));
  // Not starts with: nulls may match.
  EXPECT_TRUE(May(P(Op::kNotStartsWith, "name", {Scalar::Str("ab")}), f));
  DataFile no_null = f;
  no_null.null_value_counts[2] = 0;
  EXPECT_FALSE(May(P(Op::kNotStartsWith, "name", {Scalar::Str("ab")}), no_null));
  EXPECT_TRUE(May(P(Op::kNotStartsWith, "name", {Scalar::Str("abc")}), no_null));
  // A truncated upper bound ("ab" + 1 = "ac") still brackets "abzzz".
  DataFile truncated = no_null;
  truncated.upper_bounds[2] = "ac";
  EXPECT_TRUE(May(P(Op::kEq, "name", {Scalar::Str("abzzz")}), truncated));
  EXPECT_FALSE(May(P(Op::kEq, "name", {Scalar::Str("ad")}), truncated));
  // A corrupt bound is an error naming the file.
  DataFile corrupt = f;
  corrupt.lower_bounds[1] = "xy";
  EXPECT_THAT(InclusiveMetricsMayMatch(*P(Op::kEq, "id", {Scalar::I32(1)}), *TestSchema(), corrupt),
              testing::IsErrorWith(StatusCode::kCorrupt, "f.parquet"));
}

TEST(StrictMetricsTest, AllRowsMatch) {
  DataFile f = IntFile();
  EXPECT_TRUE(All(P(Op::kLt, "id", {Scalar::I32(21)}), f));
  EXPECT_FALSE(All(P(Op::kLt, "id", {Scalar::I32(20)}), f));
  EXPECT_TRUE(All(P(Op::kLtEq, "id", {Scalar::I32(20)}), f));
  EXPECT_TRUE(All(P(Op::kGt, "id", {Scalar::I32(9)}), f));
  EXPECT_FALSE(All(P(Op::kGt, "id", {Scalar::I32(10)}), f));
  EXPECT_TRUE(All(P(Op::kGtEq, "id", {Scalar::I32(10)}), f));
  EXPECT_TRUE(All(P(Op::kNotEq, "id", {Scalar::I32(25)}), f));
  EXPECT_FALSE(All(P(Op::kNotEq, "id", {Scalar::I32(15)}), f));
  EXPECT_TRUE(All(P(Op::kNotIn, "id", {Scalar::I32(5), Scalar::I32(25)}), f));
  EXPECT_FALSE(All(P(Op::kNotIn, "id", {Scalar::I32(5), Scalar::I32(15)}), f));
  EXPECT_TRUE(All(P(Op::kEq, "s.a", {Scalar::I32(1)}), f));
  EXPECT_TRUE(All(P(Op::kIn, "s.a", {Scalar::I32(1), Scalar::I32(2)}), f));
  EXPECT_FALSE(All(P(Op::kEq, "id", {Scalar::I32(15)}), f));
  // name has nulls: no comparison holds for every row.
  EXPECT_FALSE(All(P(Op::kGtEq, "name", {Scalar::Str("a")}), f));
  EXPECT_FALSE(All(P(Op::kNotNull, "name"), f));
  EXPECT_TRUE(All(P(Op::kNotNull, "s.a"), f));
  DataFile no_null = f;
  no_null.null_value_counts[2] = 0;
  EXPECT_TRUE(All(P(Op::kGtEq, "name", {Scalar::Str("a")}), no_null));
  EXPECT_TRUE(All(P(Op::kStartsWith, "name", {Scalar::Str("ab")}), no_null));
  EXPECT_FALSE(All(P(Op::kStartsWith, "name", {Scalar::Str("abc")}), no_null));
  EXPECT_TRUE(All(P(Op::kNotStartsWith, "name", {Scalar::Str("b")}), no_null));
  // x has NaNs: comparisons cannot hold for all rows; missing metrics prove nothing.
  EXPECT_FALSE(All(P(Op::kLt, "x", {Scalar::F64(1e300)}), f));
  EXPECT_FALSE(All(P(Op::kLt, "big", {Scalar::I64(100)}), f));
  EXPECT_FALSE(All(P(Op::kLt, "l.element", {Scalar::I32(100)}), f));
  DataFile all_null = f;
  all_null.null_value_counts[2] = 100;
  EXPECT_TRUE(All(P(Op::kIsNull, "name"), all_null));
  EXPECT_TRUE(All(B(Expression::And(Expression::Make(Op::kGt, "id", {Scalar::I32(0)}),
                                    Expression::Make(Op::kLt, "id", {Scalar::I32(100)}))),
                  f));
  DataFile empty = f;
  empty.record_count = 0;
  EXPECT_TRUE(All(P(Op::kEq, "id", {Scalar::I32(15)}), empty));
}

// ---------------------------------------------------------------------------------------
// Partitions, manifests, residuals

struct Spec {
  PartitionSpecPtr spec;
  TypePtr type;
};

Spec MakeSpec() {
  auto spec = PartitionSpec::Make(
      *TestSchema(), 1,
      {{4, 1000, "big_trunc", Transform::Truncate(10)}, {2, 1001, "name", Transform::Identity()}});
  EXPECT_TRUE(spec.has_value()) << spec.error().ToString();
  auto type = (*spec)->PartitionType(*TestSchema());
  EXPECT_TRUE(type.has_value());
  return {*spec, *type};
}

ExpressionPtr Inclusive(const ExpressionPtr& bound, const Spec& s) {
  auto r = ProjectInclusive(bound, *s.spec, *TestSchema(), s.type);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return *r;
}

TEST(PartitionEvaluatorTest, ExactOnTuples) {
  Spec s = MakeSpec();
  ExpressionPtr e = Inclusive(P(Op::kLt, "big", {Scalar::I64(100)}), s);
  // The second half keeps the partition truncate wraps the bigint minimum into.
  ASSERT_EQ(e->ToString(), "big_trunc <= 90 or big_trunc >= 9223372036854775799");
  auto eval = [&](const ExpressionPtr& expr, PartitionValues v) {
    auto r = EvaluatePartition(*expr, v);
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    return r.has_value() && *r;
  };
  EXPECT_TRUE(eval(e, {Scalar::I64(90), Scalar::Str("a")}));
  EXPECT_FALSE(eval(e, {Scalar::I64(100), Scalar::Str("a")}));
  EXPECT_FALSE(eval(e, {Scalar::Null(Int64()), Scalar::Str("a")}));
  ExpressionPtr n = Inclusive(P(Op::kIsNull, "name"), s);
  EXPECT_TRUE(eval(n, {Scalar::I64(0), Scalar::Null(String())}));
  EXPECT_FALSE(eval(n, {Scalar::I64(0), Scalar::Str("x")}));
  ExpressionPtr sw = Inclusive(P(Op::kStartsWith, "name", {Scalar::Str("ab")}), s);
  EXPECT_TRUE(eval(sw, {Scalar::I64(0), Scalar::Str("abc")}));
  EXPECT_FALSE(eval(sw, {Scalar::I64(0), Scalar::Str("b")}));
  EXPECT_THAT(EvaluatePartition(*e, {}), testing::IsError(StatusCode::kInvalidArgument));
}

ManifestFile Summaries(bool name_null, std::optional<int64_t> lo, std::optional<int64_t> hi) {
  ManifestFile m;
  m.manifest_path = "m.avro";
  PartitionFieldSummary big;
  if (lo) big.lower_bound = Ser(Scalar::I64(*lo));
  if (hi) big.upper_bound = Ser(Scalar::I64(*hi));
  PartitionFieldSummary name;
  name.contains_null = name_null;
  name.lower_bound = "b";
  name.upper_bound = "d";
  m.partitions = {big, name};
  return m;
}

TEST(ManifestEvaluatorTest, Summaries) {
  Spec s = MakeSpec();
  auto may = [&](const ExpressionPtr& bound, const ManifestFile& m) {
    auto ev = ManifestEvaluator::Make(Inclusive(bound, s), s.type);
    EXPECT_TRUE(ev.has_value()) << ev.error().ToString();
    auto r = (*ev)->MayMatch(m);
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    return r.has_value() && *r;
  };
  ManifestFile m = Summaries(false, 100, 200);
  EXPECT_FALSE(may(P(Op::kLt, "big", {Scalar::I64(100)}), m));
  EXPECT_TRUE(may(P(Op::kLt, "big", {Scalar::I64(101)}), m));
  EXPECT_FALSE(may(P(Op::kGt, "big", {Scalar::I64(210)}), m));
  EXPECT_FALSE(may(P(Op::kGt, "big", {Scalar::I64(209)}), m));  // partition 200 ends at 209
  EXPECT_TRUE(may(P(Op::kGt, "big", {Scalar::I64(208)}), m));
  EXPECT_FALSE(may(P(Op::kEq, "big", {Scalar::I64(5)}), m));
  EXPECT_FALSE(may(P(Op::kIsNull, "name"), m));
  EXPECT_TRUE(may(P(Op::kIsNull, "name"), Summaries(true, 100, 200)));
  EXPECT_TRUE(may(P(Op::kNotNull, "name"), m));
  EXPECT_FALSE(may(P(Op::kEq, "name", {Scalar::Str("a")}), m));
  EXPECT_TRUE(may(P(Op::kEq, "name", {Scalar::Str("c")}), m));
  EXPECT_FALSE(may(P(Op::kIn, "name", {Scalar::Str("a"), Scalar::Str("e")}), m));
  EXPECT_FALSE(may(P(Op::kStartsWith, "name", {Scalar::Str("e")}), m));
  EXPECT_TRUE(may(P(Op::kStartsWith, "name", {Scalar::Str("c")}), m));
  // No bounds and only nulls: nothing compares true.
  ManifestFile nulls = Summaries(false, std::nullopt, std::nullopt);
  nulls.partitions[0].contains_null = true;
  EXPECT_FALSE(may(P(Op::kEq, "big", {Scalar::I64(5)}), nulls));
  EXPECT_FALSE(may(P(Op::kNotNull, "big"), nulls));
  EXPECT_TRUE(may(P(Op::kIsNull, "big"), nulls));
  // Unpartitioned columns and no summaries may match.
  EXPECT_TRUE(may(P(Op::kEq, "id", {Scalar::I32(5)}), m));
  ManifestFile bare;
  EXPECT_TRUE(may(P(Op::kEq, "big", {Scalar::I64(5)}), bare));
  ManifestFile bad = m;
  bad.partitions[0].lower_bound = "x";
  auto ev = ManifestEvaluator::Make(Inclusive(P(Op::kEq, "big", {Scalar::I64(5)}), s), s.type);
  ASSERT_TRUE(ev.has_value());
  EXPECT_THAT((*ev)->MayMatch(bad), testing::IsErrorWith(StatusCode::kCorrupt, "m.avro"));
}

TEST(ResidualEvaluatorTest, PartitionDecidesPredicates) {
  Spec s = MakeSpec();
  ExpressionPtr filter =
      B(Expression::And(Expression::Make(Op::kLt, "big", {Scalar::I64(105)}),
                        Expression::And(Expression::Make(Op::kEq, "name", {Scalar::Str("a")}),
                                        Expression::Make(Op::kGt, "id", {Scalar::I32(3)}))));
  ASSERT_OK_AND_ASSIGN(auto ev, ResidualEvaluator::Make(filter, s.spec, TestSchema()));
  auto residual = [&](PartitionValues v) {
    auto r = ev->ResidualFor(v);
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    return r.has_value() ? (*r)->ToString() : "<error>";
  };
  // big_trunc 90: every big < 100 < 105; name = 'a' exactly: only id > 3 is left.
  EXPECT_EQ(residual({Scalar::I64(90), Scalar::Str("a")}), "id > 3");
  // big_trunc 100: rows 100..109 straddle 105.
  EXPECT_EQ(residual({Scalar::I64(100), Scalar::Str("a")}), "big < 105 and id > 3");
  EXPECT_EQ(residual({Scalar::I64(110), Scalar::Str("a")}), "false");
  EXPECT_EQ(residual({Scalar::I64(90), Scalar::Str("b")}), "false");
  EXPECT_EQ(residual({Scalar::Null(Int64()), Scalar::Str("a")}), "false");
  ASSERT_OK_AND_ASSIGN(
      auto unpartitioned,
      ResidualEvaluator::Make(filter, PartitionSpec::Unpartitioned(), TestSchema()));
  ASSERT_OK_AND_ASSIGN(auto all, unpartitioned->ResidualFor({}));
  EXPECT_TRUE(all->Equals(*filter));
}

// ---------------------------------------------------------------------------------------
// Rows

RecordBatchPtr Rows() {
  Int32Builder id(Int32());
  BinaryBuilder name(String());
  Float64Builder x(Float64());
  Int64Builder big(Int64());
  StructBuilder st(Struct({Field("a", Int32(), true, 6)}));
  auto* a = static_cast<Int32Builder*>(st.field_builder(0));
  // Row 0: 1, "abc", 1.5, 10, {a: 1}
  // Row 1: 2, NULL, NaN, NULL, NULL
  // Row 2: 3, "b", NULL, 30, {a: NULL}
  // Row 3: 4, "abx", -1, 40, {a: 4}
  EXPECT_OK(id.Append(1));
  EXPECT_OK(id.Append(2));
  EXPECT_OK(id.Append(3));
  EXPECT_OK(id.Append(4));
  EXPECT_OK(name.Append("abc"));
  EXPECT_OK(name.AppendNull());
  EXPECT_OK(name.Append("b"));
  EXPECT_OK(name.Append("abx"));
  EXPECT_OK(x.Append(1.5));
  EXPECT_OK(x.Append(NAN));
  EXPECT_OK(x.AppendNull());
  EXPECT_OK(x.Append(-1));
  EXPECT_OK(big.Append(10));
  EXPECT_OK(big.AppendNull());
  EXPECT_OK(big.Append(30));
  EXPECT_OK(big.Append(40));
  EXPECT_OK(st.Append());
  EXPECT_OK(a->Append(1));
  EXPECT_OK(st.AppendNull());
  EXPECT_OK(st.Append());
  EXPECT_OK(a->AppendNull());
  EXPECT_OK(st.Append());
  EXPECT_OK(a->Append(4));
  std::vector<ArrayPtr> cols = {*id.Finish(), *name.Finish(), *x.Finish(), *big.Finish(),
                                *st.Finish()};
  auto schema = std::make_shared<floe::Schema>(
      std::vector<Field>{Field("id", Int32(), false, 1), Field("name", String(), true, 2),
                         Field("x", Float64(), true, 3), Field("big", Int64(), true, 4),
                         Field("s", Struct({Field("a", Int32(), true, 6)}), true, 5)});
  auto batch = RecordBatch::Make(schema, 4, cols);
  EXPECT_TRUE(batch.has_value()) << batch.error().ToString();
  return *batch;
}

// "t", "f" or "n" per row.
std::string Eval(const ExpressionPtr& e) {
  auto r = EvaluateRows(*e, *Rows());
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  if (!r.has_value()) return "<error>";
  std::string out;
  for (int64_t i = 0; i < (*r)->length(); ++i) {
    out.push_back((*r)->IsNull(i) ? 'n' : ((*r)->BoolValue(i) ? 't' : 'f'));
  }
  return out;
}

TEST(EvaluateRowsTest, PredicatesAndThreeValuedLogic) {
  EXPECT_EQ(Eval(P(Op::kGt, "id", {Scalar::I32(2)})), "fftt");
  EXPECT_EQ(Eval(P(Op::kIn, "id", {Scalar::I32(1), Scalar::I32(4)})), "tfft");
  EXPECT_EQ(Eval(P(Op::kNotIn, "id", {Scalar::I32(1), Scalar::I32(4)})), "fttf");
  // Long lists (searched), unordered.
  std::vector<Scalar> ids, names;
  for (int v : {90, 4, -7, 55, 12, 1, 80, 33, 21, 66}) ids.push_back(Scalar::I32(v));
  for (const char* v : {"zz", "q", "b", "a", "bb", "c", "d", "e", "f", "g"}) {
    names.push_back(Scalar::Str(v));
  }
  EXPECT_EQ(Eval(P(Op::kIn, "id", ids)), "tfft");
  EXPECT_EQ(Eval(P(Op::kNotIn, "id", ids)), "fttf");
  EXPECT_EQ(Eval(P(Op::kIn, "name", names)), "fntf");
  EXPECT_EQ(Eval(P(Op::kEq, "name", {Scalar::Str("b")})),
            "fnt"
            "f");
  EXPECT_EQ(Eval(P(Op::kStartsWith, "name", {Scalar::Str("ab")})), "tnft");
  EXPECT_EQ(Eval(P(Op::kNotStartsWith, "name", {Scalar::Str("ab")})), "fntf");
  EXPECT_EQ(Eval(P(Op::kIsNull, "name")), "ftff");
  EXPECT_EQ(Eval(P(Op::kNotNull, "name")), "tftt");
  EXPECT_EQ(Eval(P(Op::kIsNan, "x")), "ftff");
  EXPECT_EQ(Eval(P(Op::kNotNan, "x")), "tftt");
  // NaN compares false except for !=.
  EXPECT_EQ(Eval(P(Op::kLt, "x", {Scalar::F64(2)})), "tfnt");
  EXPECT_EQ(Eval(P(Op::kNotEq, "x", {Scalar::F64(2)})), "ttnt");
  // A field inside a struct; a NULL struct reads as NULL.
  EXPECT_EQ(Eval(P(Op::kEq, "s.a", {Scalar::I32(1)})), "tnnf");
  EXPECT_EQ(Eval(P(Op::kIsNull, "s.a")), "fttf");
  // AND / OR / NOT with NULL.
  auto name_b = Expression::Make(Op::kEq, "name", {Scalar::Str("b")});  // f n t f
  auto big_lt = Expression::Make(Op::kLt, "big", {Scalar::I64(35)});    // t n t f
  EXPECT_EQ(Eval(B(Expression::And(name_b, big_lt))), "fntf");
  EXPECT_EQ(Eval(B(Expression::Or(name_b, big_lt))), "tntf");
  EXPECT_EQ(Eval(B(Expression::Not(name_b))), "tnft");
  auto id_gt = Expression::Make(Op::kGt, "id", {Scalar::I32(1)});  // f t t t
  EXPECT_EQ(Eval(B(Expression::Or(name_b, id_gt))), "fttt");
  EXPECT_EQ(Eval(B(Expression::And(Expression::Make(Op::kIsNull, "name"), id_gt))), "ftff");
  EXPECT_EQ(Eval(Expression::True()), "tttt");
  // Transform terms apply the transform to the column.
  ASSERT_OK_AND_ASSIGN(
      auto trunc,
      Expression::Predicate(Op::kEq, Term::Ref("big", Transform::Truncate(20)), {Scalar::I64(20)}));
  EXPECT_EQ(Eval(B(trunc)), "fntf");
  // Unknown field id.
  Term missing;
  missing.name = "gone";
  missing.field_id = 99;
  missing.source_type = Int32();
  EXPECT_THAT(EvaluateRows(*Expression::MakeBound(Op::kIsNull, missing), *Rows()),
              testing::IsErrorWith(StatusCode::kNotFound, "99"));
  // A column whose type differs from the predicate's is an error, not a misread.
  Term wrong;
  wrong.name = "big";
  wrong.field_id = 4;
  wrong.source_type = Int32();
  EXPECT_THAT(EvaluateRows(*Expression::MakeBound(Op::kEq, wrong, {Scalar::I32(1)}), *Rows()),
              testing::IsErrorWith(StatusCode::kInvalidArgument, "field 4"));
}

}  // namespace
}  // namespace floe::iceberg
