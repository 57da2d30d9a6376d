// The fast paths of the scalar kernels and of filter predicates give exactly what the
// general row-at-a-time evaluation gives: comparisons of an array with a constant
// (every operator, both operand orders, decimal constants of other scales, NULLs,
// sliced arrays, lengths around the 64-row blocks), decimal arithmetic whose operands
// fit in 64 bits, and FilterPredicate's conjunct-by-conjunct selection (dense and
// sparse rows, gathered evaluation, errors on dropped rows).

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/expr.h"
#include "floe/expr/filter_predicate.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/physical_expr.h"
#include "floe/testing/matchers.h"

namespace floe::expr {
namespace {

using ::floe::testing::IsError;

Scalar Dec(Int128 unscaled, int precision, int scale) {
  return Scalar::Make(Decimal(precision, scale), unscaled);
}

ArrayPtr MakeArray(const TypePtr& type, const std::vector<Scalar>& values) {
  auto builder = MakeBuilder(type);
  for (const Scalar& v : values) EXPECT_OK(builder->AppendScalar(v));
  auto array = builder->Finish();
  EXPECT_OK(array);
  return *array;
}

// A call `name(args)` resolved and typed by the registry, with casts where needed.
ExprPtr MakeCall(const std::string& name, std::vector<ExprPtr> args) {
  std::vector<TypePtr> types;
  for (const ExprPtr& a : args) types.push_back(a->type);
  auto resolved = ResolveScalarFunction(name, types);
  EXPECT_OK(resolved);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!types[i]->Equals(*resolved->arg_types[i])) args[i] = Cast(args[i], resolved->arg_types[i]);
  }
  return Call(resolved->name, std::move(args), resolved->return_type);
}

// Every row's text, or "ERROR: ..." for a failed evaluation.
std::vector<std::string> EvalTexts(const ExprPtr& e, const RecordBatchPtr& batch) {
  auto physical = Compile(e, batch->schema());
  if (!physical.ok()) return {"ERROR: " + physical.status().message()};
  EvalContext ctx;
  auto out = EvaluateToArray(**physical, *batch, ctx);
  if (!out.ok()) return {"ERROR: " + out.status().message()};
  std::vector<std::string> texts;
  for (int64_t i = 0; i < (*out)->length(); ++i) texts.push_back(FormatValue(**out, i));
  return texts;
}

// The same expression evaluated row by row, with each column value as a literal (the
// all-scalar path of every kernel).
std::vector<std::string> RowByRowTexts(const ExprPtr& e, const RecordBatchPtr& batch) {
  std::vector<std::string> texts;
  for (int64_t i = 0; i < batch->num_rows(); ++i) {
    std::vector<ExprPtr> literals;
    for (int c = 0; c < batch->num_columns(); ++c) {
      literals.push_back(Literal(ScalarAt(*batch->column(c), i)));
    }
    ExprPtr row = SubstituteColumns(e, literals);
    auto value = EvaluateConstant(row);
    if (!value.ok()) {
      texts.push_back("ERROR: " + value.status().message());
    } else {
      texts.push_back(FormatScalar(*value));
    }
  }
  return texts;
}

RecordBatchPtr OneColumn(const ArrayPtr& a) {
  auto schema = std::make_shared<const Schema>(std::vector<Field>{Field("c0", a->type())});
  auto batch = RecordBatch::Make(schema, a->length(), {a});
  EXPECT_OK(batch);
  return *batch;
}

// Random values of `type` (about one in seven NULL), drawn from `pick`.
template <typename Pick>
ArrayPtr RandomArray(const TypePtr& type, int64_t n, uint32_t seed, Pick&& pick) {
  std::mt19937 rng(seed);
  std::vector<Scalar> values;
  for (int64_t i = 0; i < n; ++i) {
    values.push_back(rng() % 7 == 0 ? Scalar::Null(type) : pick(rng));
  }
  return MakeArray(type, values);
}

const char* const kOps[] = {"eq", "ne", "lt", "le", "gt", "ge"};

// column op constant and constant op column, over arrays of several lengths (and a
// sliced one), against row-by-row evaluation.
void CheckConstantComparisons(const ArrayPtr& full, const std::vector<Scalar>& constants) {
  for (int64_t n : {0, 1, 7, 63, 64, 65, 130}) {
    if (n > full->length()) continue;
    for (int64_t offset : {int64_t{0}, int64_t{3}}) {
      if (offset + n > full->length()) continue;
      ArrayPtr a = full->Slice(offset, n);
      RecordBatchPtr batch = OneColumn(a);
      ExprPtr col = Column(0, "c0", a->type());
      for (const Scalar& c : constants) {
        for (const char* op : kOps) {
          for (bool constant_first : {false, true}) {
            ExprPtr e =
                constant_first ? MakeCall(op, {Literal(c), col}) : MakeCall(op, {col, Literal(c)});
            EXPECT_EQ(EvalTexts(e, batch), RowByRowTexts(e, batch))
                << e->ToString() << " n=" << n << " offset=" << offset;
          }
        }
      }
    }
  }
}

TEST(ConstantComparisonTest, IntegersAndDates) {
  auto ints = RandomArray(Int32(), 200, 1, [](std::mt19937& r) {
    return Scalar::I32(static_cast<int32_t>(r() % 21) - 10);
  });
  CheckConstantComparisons(ints, {Scalar::I32(0), Scalar::I32(-10), Scalar::I32(10),
                                  Scalar::I32(std::numeric_limits<int32_t>::min())});
  auto bigints = RandomArray(Int64(), 200, 2, [](std::mt19937& r) {
    return Scalar::I64(static_cast<int64_t>(r() % 5) * (int64_t{1} << 40));
  });
  CheckConstantComparisons(bigints, {Scalar::I64(int64_t{2} << 40), Scalar::I64(-1)});
  auto dates = RandomArray(Date(), 200, 3, [](std::mt19937& r) {
    return Scalar::Make(Date(), static_cast<int32_t>(8766 + r() % 2000));
  });
  CheckConstantComparisons(dates, {Scalar::Make(Date(), int32_t{8766 + 1000})});
  auto smallints = RandomArray(Int16(), 100, 4, [](std::mt19937& r) {
    return Scalar::Make(Int16(), static_cast<int32_t>(r() % 5) - 2);
  });
  CheckConstantComparisons(smallints, {Scalar::Make(Int16(), int32_t{1})});
}

TEST(ConstantComparisonTest, FloatsWithNanAndSignedZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto floats = RandomArray(Float64(), 200, 5, [&](std::mt19937& r) {
    switch (r() % 5) {
      case 0:
        return Scalar::F64(nan);
      case 1:
        return Scalar::F64(-0.0);
      case 2:
        return Scalar::F64(0.0);
      default:
        return Scalar::F64(static_cast<double>(r() % 100) / 10 - 5);
    }
  });
  CheckConstantComparisons(
      floats, {Scalar::F64(0.0), Scalar::F64(-0.0), Scalar::F64(nan), Scalar::F64(1.5)});
}

TEST(ConstantComparisonTest, DecimalsAcrossScales) {
  // decimal(15,2) values from -1.00 to 1.00 by 0.01.
  auto decimals = RandomArray(Decimal(15, 2), 200, 6, [](std::mt19937& r) {
    return Dec(static_cast<Int128>(r() % 201) - 100, 15, 2);
  });
  CheckConstantComparisons(
      decimals,
      {Dec(5, 15, 2), Dec(5, 3, 2), Dec(55, 4, 3), Dec(50, 4, 3), Dec(-55, 4, 3), Dec(-50, 4, 3),
       Dec(0, 1, 0), Dec(1, 1, 0), Dec(-1, 1, 0), Dec(12345678, 9, 9), Dec(-1, 38, 38),
       Dec(static_cast<Int128>(1) << 100, 38, 0), Dec(-(static_cast<Int128>(1) << 100), 38, 0)});
  // decimal(38,10) values against constants of scale 0 whose rescaled value overflows.
  const Int128 big = static_cast<Int128>(1) << 120;
  auto wide = RandomArray(Decimal(38, 10), 100, 7, [&](std::mt19937& r) {
    return Dec((r() % 2 ? big : -big) + static_cast<Int128>(r() % 1000), 38, 10);
  });
  CheckConstantComparisons(wide, {Dec(big, 38, 0), Dec(-big, 38, 0), Dec(3, 2, 0)});
}

TEST(ConstantComparisonTest, Strings) {
  const char* const words[] = {"", "a", "ab", "abc", "b", "\xc3\xa9", "MAIL", "SHIP"};
  auto strings =
      RandomArray(String(), 150, 8, [&](std::mt19937& r) { return Scalar::Str(words[r() % 8]); });
  CheckConstantComparisons(
      strings, {Scalar::Str("ab"), Scalar::Str(""), Scalar::Str("\xc3\xa9"), Scalar::Str("SHIP")});
}

TEST(ConstantComparisonTest, AllNullAndNullConstant) {
  auto nulls = MakeArray(Int32(), std::vector<Scalar>(70, Scalar::Null(Int32())));
  CheckConstantComparisons(nulls, {Scalar::I32(1)});
  auto ints = RandomArray(
      Int32(), 70, 9, [](std::mt19937& r) { return Scalar::I32(static_cast<int32_t>(r() % 3)); });
  CheckConstantComparisons(ints, {Scalar::Null(Int32())});
}

// FilterPredicate ----------------------------------------------------------------------

struct FilterCase {
  RecordBatchPtr batch;
  ExprPtr predicate;
};

// The rows where the predicate is TRUE, by plain evaluation.
std::vector<int64_t> ExpectedRows(const ExprPtr& predicate, const RecordBatchPtr& batch) {
  auto physical = Compile(predicate, batch->schema());
  EXPECT_OK(physical);
  EvalContext ctx;
  auto out = EvaluateToArray(**physical, *batch, ctx);
  EXPECT_OK(out);
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < batch->num_rows(); ++i) {
    if ((*out)->IsValid(i) && (*out)->BoolValue(i)) rows.push_back(i);
  }
  return rows;
}

Result<std::vector<int64_t>> SelectedRows(const ExprPtr& predicate, const RecordBatchPtr& batch) {
  FLOE_ASSIGN_OR_RAISE(PhysicalExprPtr physical, Compile(predicate, batch->schema()));
  FLOE_ASSIGN_OR_RAISE(FilterPredicate filter, FilterPredicate::Make(physical));
  EvalContext ctx;
  FLOE_ASSIGN_OR_RAISE(FilterSelection selection, filter.Select(*batch, ctx));
  std::vector<int64_t> rows;
  if (selection.selected == batch->num_rows()) {
    EXPECT_EQ(selection.mask, nullptr);
    for (int64_t i = 0; i < batch->num_rows(); ++i) rows.push_back(i);
    return rows;
  }
  if (selection.selected == 0) {
    EXPECT_EQ(selection.mask, nullptr);
    return rows;
  }
  EXPECT_NE(selection.mask, nullptr);
  EXPECT_EQ(selection.mask->null_count(), 0);
  EXPECT_EQ(selection.mask->length(), batch->num_rows());
  for (int64_t i = 0; i < batch->num_rows(); ++i) {
    if (selection.mask->BoolValue(i)) rows.push_back(i);
  }
  EXPECT_EQ(static_cast<int64_t>(rows.size()), selection.selected);
  // Bits past the last row are clear (a consumer may count whole bytes).
  const int64_t n = batch->num_rows();
  if (n % 8 != 0) {
    const uint8_t last = selection.mask->buffer(1)->data()[(n - 1) / 8];
    EXPECT_EQ(last >> (n % 8), 0);
  }
  return rows;
}

// Columns: d date (days from 8766), q decimal(15,2), k int32 (NULL one in nine), s text.
RecordBatchPtr LineBatch(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Scalar> d, q, k, s;
  const char* const modes[] = {"MAIL", "SHIP", "AIR", "RAIL"};
  for (int64_t i = 0; i < n; ++i) {
    d.push_back(Scalar::Make(Date(), static_cast<int32_t>(8766 + rng() % 2500)));
    q.push_back(rng() % 11 == 0 ? Scalar::Null(Decimal(15, 2))
                                : Dec(static_cast<Int128>(rng() % 5000 + 100), 15, 2));
    k.push_back(rng() % 9 == 0 ? Scalar::Null(Int32())
                               : Scalar::I32(static_cast<int32_t>(rng() % 10)));
    s.push_back(Scalar::Str(modes[rng() % 4]));
  }
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      Field("d", Date()), Field("q", Decimal(15, 2)), Field("k", Int32()), Field("s", String())});
  auto batch = RecordBatch::Make(schema, n,
                                 {MakeArray(Date(), d), MakeArray(Decimal(15, 2), q),
                                  MakeArray(Int32(), k), MakeArray(String(), s)});
  EXPECT_OK(batch);
  return *batch;
}

ExprPtr D() { return Column(0, "d", Date()); }
ExprPtr Q() { return Column(1, "q", Decimal(15, 2)); }
ExprPtr K() { return Column(2, "k", Int32()); }
ExprPtr S() { return Column(3, "s", String()); }
ExprPtr DateLit(int32_t days) { return Literal(Scalar::Make(Date(), days)); }

TEST(FilterPredicateTest, ConjunctionsMatchPlainEvaluation) {
  std::vector<ExprPtr> predicates = {
      // Dense then sparse comparisons (the last ones see few rows).
      And({MakeCall("ge", {D(), DateLit(8766 + 365)}), MakeCall("lt", {D(), DateLit(8766 + 730)}),
           MakeCall("ge", {Q(), Literal(Dec(500, 3, 2))}),
           MakeCall("le", {Q(), Literal(Dec(4000, 4, 2))}),
           MakeCall("lt", {Q(), Literal(Dec(2400, 4, 2))})}),
      And({MakeCall("ge", {D(), DateLit(8766 + 100)}), MakeCall("lt", {D(), DateLit(8766 + 250)}),
           MakeCall("ge", {Q(), Literal(Dec(1000, 4, 2))}),
           MakeCall("ne", {K(), Literal(Scalar::I32(4))}),
           MakeCall("lt", {Q(), Literal(Dec(30005, 5, 3))})}),
      // Generic conjuncts before and after, evaluated dense and gathered.
      And({MakeCall("eq",
                    {MakeCall("modulo", {K(), Literal(Scalar::I32(3))}), Literal(Scalar::I32(0))}),
           MakeCall("lt", {D(), DateLit(8766 + 100)}),
           MakeCall("like", {S(), Literal(Scalar::Str("%AI%"))})}),
      // A single comparison; a constant first; NULLs in the compared column.
      MakeCall("le", {D(), DateLit(8766 + 2400)}),
      MakeCall("gt", {Literal(Scalar::I32(4)), K()}),
      And({MakeCall("ne", {K(), Literal(Scalar::I32(3))}),
           MakeCall("gt", {Q(), Literal(Dec(12345, 5, 3))})}),
      // Nested ANDs; an OR and a NOT as single conjuncts.
      And({And({MakeCall("gt", {K(), Literal(Scalar::I32(1))}),
                MakeCall("lt", {K(), Literal(Scalar::I32(8))})}),
           Or({MakeCall("eq", {S(), Literal(Scalar::Str("MAIL"))}), MakeCall("is_null", {Q()})}),
           Not(MakeCall("eq", {K(), Literal(Scalar::I32(5))}))}),
      // Constant conjuncts: TRUE keeps, FALSE and NULL drop.
      And({Literal(Scalar::Bool(true)), MakeCall("lt", {K(), Literal(Scalar::I32(5))})}),
      And({MakeCall("lt", {K(), Literal(Scalar::I32(5))}), Literal(Scalar::Bool(false))}),
      And({MakeCall("lt", {K(), Literal(Scalar::I32(5))}), Literal(Scalar::Null(Boolean()))}),
      // Nothing or everything selected.
      MakeCall("lt", {D(), DateLit(0)}),
      MakeCall("ge", {D(), DateLit(0)}),
  };
  for (int64_t n : {1, 8, 9, 64, 100, 1000, 4099}) {
    RecordBatchPtr batch = LineBatch(n, static_cast<uint32_t>(n));
    for (const ExprPtr& p : predicates) {
      auto rows = SelectedRows(p, batch);
      ASSERT_OK(rows);
      EXPECT_EQ(*rows, ExpectedRows(p, batch)) << p->ToString() << " n=" << n;
    }
  }
}

TEST(FilterPredicateTest, SlicedColumns) {
  RecordBatchPtr full = LineBatch(500, 11);
  RecordBatchPtr batch = full->Slice(13, 300);
  ExprPtr p = And(
      {MakeCall("ge", {D(), DateLit(8766 + 2000)}), MakeCall("lt", {K(), Literal(Scalar::I32(3))}),
       MakeCall("eq",
                {MakeCall("modulo", {K(), Literal(Scalar::I32(2))}), Literal(Scalar::I32(0))})});
  auto rows = SelectedRows(p, batch);
  ASSERT_OK(rows);
  EXPECT_EQ(*rows, ExpectedRows(p, batch));
}

TEST(FilterPredicateTest, LaterConjunctsSkipDroppedRows) {
  // 1000 rows; k = 0 on every row except the few with d = 9000. The division by k only
  // runs on the rows the date comparison keeps (as PostgreSQL stops AND at FALSE).
  std::vector<Scalar> d, k;
  for (int i = 0; i < 1000; ++i) {
    const bool keep = i % 100 == 7;
    d.push_back(Scalar::Make(Date(), keep ? int32_t{9000} : int32_t{8000}));
    k.push_back(Scalar::I32(keep ? (i % 200 == 7 ? 1 : 20) : 0));
  }
  auto schema =
      std::make_shared<const Schema>(std::vector<Field>{Field("d", Date()), Field("k", Int32())});
  auto batch = RecordBatch::Make(schema, 1000, {MakeArray(Date(), d), MakeArray(Int32(), k)});
  ASSERT_OK(batch);
  ExprPtr kcol = Column(1, "k", Int32());
  ExprPtr p = And({MakeCall("gt", {MakeCall("divide", {Literal(Scalar::I32(10)), kcol}),
                                   Literal(Scalar::I32(1))}),
                   MakeCall("eq", {D(), DateLit(9000)})});
  auto rows = SelectedRows(p, *batch);
  ASSERT_OK(rows);
  EXPECT_EQ(*rows, (std::vector<int64_t>{7, 207, 407, 607, 807}));
  // A selected row that fails still raises the error.
  ExprPtr q = And({MakeCall("gt", {MakeCall("divide", {Literal(Scalar::I32(10)), kcol}),
                                   Literal(Scalar::I32(1))}),
                   MakeCall("eq", {D(), DateLit(8000)})});
  EXPECT_THAT(SelectedRows(q, *batch).status(), IsError(StatusCode::kInvalidArgument));
}

TEST(FilterPredicateTest, RejectsNonBoolean) {
  auto schema = std::make_shared<const Schema>(std::vector<Field>{Field("k", Int32())});
  auto physical = Compile(Column(0, "k", Int32()), schema);
  ASSERT_OK(physical);
  EXPECT_THAT(FilterPredicate::Make(*physical).status(), IsError(StatusCode::kInternal));
}

// Decimal arithmetic ---------------------------------------------------------------------

RecordBatchPtr TwoColumns(const ArrayPtr& a, const ArrayPtr& b) {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field("a", a->type()), Field("b", b->type())});
  auto batch = RecordBatch::Make(schema, a->length(), {a, b});
  EXPECT_OK(batch);
  return *batch;
}

// op(a, b) over rows whose values all fit in 64 bits (the fast path) gives the same
// texts as over the same rows followed by one row that does not (the checked path).
void CheckFastMatchesChecked(const std::string& op, const TypePtr& ta, const TypePtr& tb,
                             const std::vector<Scalar>& a, const std::vector<Scalar>& b,
                             const Scalar& wide_a, const Scalar& wide_b) {
  ExprPtr e = MakeCall(op, {Column(0, "a", ta), Column(1, "b", tb)});
  std::vector<std::string> fast = EvalTexts(e, TwoColumns(MakeArray(ta, a), MakeArray(tb, b)));
  std::vector<Scalar> a2 = a, b2 = b;
  a2.push_back(wide_a);
  b2.push_back(wide_b);
  std::vector<std::string> checked = EvalTexts(e, TwoColumns(MakeArray(ta, a2), MakeArray(tb, b2)));
  ASSERT_EQ(checked.size(), fast.size() + 1) << (checked.empty() ? "" : checked[0]);
  checked.pop_back();
  EXPECT_EQ(fast, checked) << e->ToString();
}

std::vector<Scalar> RandomDecimals(const TypePtr& type, int64_t n, uint32_t seed, Int128 limit) {
  std::mt19937_64 rng(seed);
  std::vector<Scalar> out;
  for (int64_t i = 0; i < n; ++i) {
    if (rng() % 9 == 0) {
      out.push_back(Scalar::Null(type));
      continue;
    }
    const Int128 v = static_cast<Int128>(rng() % static_cast<uint64_t>(limit));
    out.push_back(Scalar::Make(type, rng() % 2 ? v : -v));
  }
  return out;
}

TEST(DecimalArithmeticTest, MultiplyOfOperandsWithin64Bits) {
  const TypePtr t = Decimal(20, 2);
  const Int128 limit = static_cast<Int128>(std::numeric_limits<int64_t>::max());
  for (int64_t n : {1, 64, 130}) {
    CheckFastMatchesChecked("multiply", t, t, RandomDecimals(t, n, 1, limit),
                            RandomDecimals(t, n, 2, limit), Dec(Int128{1} << 70, 20, 2),
                            Dec(3, 20, 2));
  }
  // decimal(31,4) * decimal(16,2), as in sum(price * (1 - discount) * (1 + tax)).
  const TypePtr t31 = Decimal(31, 4), t16 = Decimal(16, 2);
  CheckFastMatchesChecked("multiply", t31, t16, RandomDecimals(t31, 100, 3, Int128{1} << 60),
                          RandomDecimals(t16, 100, 4, 1000000), Dec(Int128{1} << 80, 31, 4),
                          Dec(100, 16, 2));
  // Exact values at the edges of 64 bits.
  const Int128 min64 = std::numeric_limits<int64_t>::min();
  auto batch = TwoColumns(MakeArray(t, {Dec(min64, 20, 2), Dec(12345, 20, 2), Scalar::Null(t)}),
                          MakeArray(t, {Dec(min64, 20, 2), Dec(-200, 20, 2), Dec(1, 20, 2)}));
  EXPECT_EQ(
      EvalTexts(MakeCall("multiply", {Column(0, "a", t), Column(1, "b", t)}), batch),
      (std::vector<std::string>{"8507059173023461586584365185794205.2864", "-246.9000", "NULL"}));
}

TEST(DecimalArithmeticTest, MultiplyOverflowStillDetected) {
  const TypePtr t = Decimal(38, 0);
  auto batch = TwoColumns(MakeArray(t, {Dec(3, 38, 0), Dec(Int128{1} << 66, 38, 0)}),
                          MakeArray(t, {Dec(4, 38, 0), Dec(Int128{1} << 66, 38, 0)}));
  auto texts = EvalTexts(MakeCall("multiply", {Column(0, "a", t), Column(1, "b", t)}), batch);
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_NE(texts[0].find("numeric field overflow"), std::string::npos) << texts[0];
}

TEST(DecimalArithmeticTest, AddSubtractAtTheCap) {
  // decimal(38,2) +- decimal(10,4) -> decimal(38,4): checked unless the values fit.
  const TypePtr ta = Decimal(38, 2), tb = Decimal(10, 4);
  const Int128 limit = static_cast<Int128>(std::numeric_limits<int64_t>::max());
  for (const char* op : {"add", "subtract"}) {
    CheckFastMatchesChecked(op, ta, tb, RandomDecimals(ta, 130, 5, limit),
                            RandomDecimals(tb, 130, 6, 9999999999), Dec(Int128{1} << 90, 38, 2),
                            Dec(1, 10, 4));
  }
  // 10^36 - 0.01 at scale 4 needs 40 digits.
  const Int128 max38 =
      static_cast<Int128>(10'000'000'000'000'000'000ULL) * 10'000'000'000'000'000'000ULL - 1;
  auto batch = TwoColumns(MakeArray(ta, {Dec(max38, 38, 2)}), MakeArray(tb, {Dec(1, 10, 4)}));
  auto texts = EvalTexts(MakeCall("add", {Column(0, "a", ta), Column(1, "b", tb)}), batch);
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_NE(texts[0].find("numeric field overflow"), std::string::npos) << texts[0];
}

}  // namespace
}  // namespace floe::expr
