#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/expr/aggregate.h"
#include "floe/expr/function_registry.h"
#include "floe/testing/matchers.h"

namespace floe::expr {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::testing::ElementsAre;

ArrayPtr MakeArray(const TypePtr& type, const std::vector<Scalar>& values) {
  auto builder = MakeBuilder(type);
  for (const Scalar& v : values) {
    FLOE_CHECK(builder->AppendScalar(v).ok(), "append");
  }
  return builder->Finish().ValueOrDie();
}

template <typename T>
ArrayPtr Ints(const TypePtr& type, const std::vector<std::optional<T>>& values) {
  std::vector<Scalar> scalars;
  for (const auto& v : values) {
    if (!v) {
      scalars.push_back(Scalar::Null(type));
    } else if constexpr (sizeof(T) <= 4) {
      scalars.push_back(Scalar::Make(type, static_cast<int32_t>(*v)));
    } else {
      scalars.push_back(Scalar::Make(type, static_cast<int64_t>(*v)));
    }
  }
  return MakeArray(type, scalars);
}

ArrayPtr I32(const std::vector<std::optional<int32_t>>& v) { return Ints<int32_t>(Int32(), v); }
ArrayPtr I64(const std::vector<std::optional<int64_t>>& v) { return Ints<int64_t>(Int64(), v); }

ArrayPtr F64(const std::vector<std::optional<double>>& values) {
  std::vector<Scalar> scalars;
  for (const auto& v : values) scalars.push_back(v ? Scalar::F64(*v) : Scalar::Null(Float64()));
  return MakeArray(Float64(), scalars);
}

ArrayPtr Str(const std::vector<std::optional<std::string>>& values) {
  std::vector<Scalar> scalars;
  for (const auto& v : values) scalars.push_back(v ? Scalar::Str(*v) : Scalar::Null(String()));
  return MakeArray(String(), scalars);
}

ArrayPtr Bools(const std::vector<std::optional<bool>>& values) {
  std::vector<Scalar> scalars;
  for (const auto& v : values) scalars.push_back(v ? Scalar::Bool(*v) : Scalar::Null(Boolean()));
  return MakeArray(Boolean(), scalars);
}

ArrayPtr Dec(int precision, int scale, const std::vector<std::optional<Int128>>& values) {
  TypePtr type = Decimal(precision, scale);
  std::vector<Scalar> scalars;
  for (const auto& v : values) {
    scalars.push_back(v ? Scalar::Make(type, *v) : Scalar::Null(type));
  }
  return MakeArray(type, scalars);
}

std::vector<std::string> Texts(const Array& array) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < array.length(); ++i) out.push_back(FormatValue(array, i));
  return out;
}

ResolvedAggregate Resolve(const std::string& name, const std::vector<TypePtr>& types,
                          bool distinct = false) {
  return ResolveAggregate(name, types, distinct).ValueOrDie();
}

// Runs one aggregate in a single phase over `args` with `groups` and returns the texts.
Result<std::vector<std::string>> RunSingle(const ResolvedAggregate& agg,
                                           const std::vector<ArrayPtr>& args,
                                           const std::vector<uint32_t>& groups,
                                           int64_t total_groups, const Array* filter = nullptr) {
  FLOE_ASSIGN_OR_RAISE(auto acc, MakeGroupsAccumulator(agg, DefaultMemoryPool()));
  FLOE_RETURN_NOT_OK(acc->Update(args, groups.data(), filter, total_groups));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, acc->Evaluate());
  if (!out->type()->Equals(*agg.return_type)) {
    return Status::Internal("result type {} is not {}", out->type()->ToString(),
                            agg.return_type->ToString());
  }
  return Texts(*out);
}

// Splits the rows in two halves, aggregates each half partially (with its own group
// numbering: groups appear in reverse in the second half), merges the states in a final
// accumulator and evaluates.
Result<std::vector<std::string>> RunTwoPhase(const ResolvedAggregate& agg,
                                             const std::vector<ArrayPtr>& args,
                                             const std::vector<uint32_t>& groups,
                                             int64_t total_groups) {
  const int64_t n = static_cast<int64_t>(groups.size());
  const int64_t half = n / 2;
  FLOE_ASSIGN_OR_RAISE(auto final_acc, MakeGroupsAccumulator(agg, DefaultMemoryPool()));
  for (int part = 0; part < 2; ++part) {
    const int64_t begin = part == 0 ? 0 : half;
    const int64_t end = part == 0 ? half : n;
    std::vector<ArrayPtr> sliced;
    for (const auto& a : args) sliced.push_back(a->Slice(begin, end - begin));
    // Partial group p of part 1 is global group total_groups - 1 - p.
    std::vector<uint32_t> local;
    for (int64_t i = begin; i < end; ++i) {
      const uint32_t g = groups[static_cast<size_t>(i)];
      local.push_back(part == 0 ? g : static_cast<uint32_t>(total_groups - 1 - g));
    }
    FLOE_ASSIGN_OR_RAISE(auto partial, MakeGroupsAccumulator(agg, DefaultMemoryPool()));
    FLOE_RETURN_NOT_OK(partial->Update(sliced, local.data(), nullptr, total_groups));
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> state, partial->State());
    if (state.size() != agg.state_fields.size()) return Status::Internal("state width");
    for (size_t k = 0; k < state.size(); ++k) {
      if (!state[k]->type()->Equals(*agg.state_fields[k].type())) {
        return Status::Internal("state field {} has type {}, declared {}", k,
                                state[k]->type()->ToString(),
                                agg.state_fields[k].type()->ToString());
      }
      if (state[k]->length() != total_groups) return Status::Internal("state length");
    }
    std::vector<uint32_t> merge_groups;
    for (int64_t p = 0; p < total_groups; ++p) {
      merge_groups.push_back(part == 0 ? static_cast<uint32_t>(p)
                                       : static_cast<uint32_t>(total_groups - 1 - p));
    }
    FLOE_RETURN_NOT_OK(final_acc->Merge(state, merge_groups.data(), total_groups));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, final_acc->Evaluate());
  return Texts(*out);
}

TEST(AggregateResolveTest, ResultTypes) {
  EXPECT_EQ(Resolve("count", {String()}).return_type->ToString(), "int64");
  EXPECT_EQ(Resolve("count", {}).name, "count_star");
  EXPECT_EQ(Resolve("count_star", {}).return_type->ToString(), "int64");
  EXPECT_EQ(Resolve("sum", {Int16()}).return_type->ToString(), "int64");
  EXPECT_EQ(Resolve("sum", {Int32()}).return_type->ToString(), "int64");
  EXPECT_EQ(Resolve("sum", {Int64()}).return_type->ToString(), "decimal(38,0)");
  EXPECT_EQ(Resolve("sum", {Decimal(12, 2)}).return_type->ToString(), "decimal(38,2)");
  EXPECT_EQ(Resolve("sum", {Float32()}).return_type->ToString(), "float32");
  EXPECT_EQ(Resolve("sum", {Float64()}).return_type->ToString(), "float64");
  EXPECT_EQ(Resolve("avg", {Int32()}).return_type->ToString(), "numeric");
  EXPECT_EQ(Resolve("avg", {Decimal(12, 2)}).return_type->ToString(), "numeric");
  EXPECT_EQ(Resolve("avg", {Decimal(20, 8)}).return_type->ToString(), "numeric");
  EXPECT_EQ(Resolve("avg", {Float32()}).return_type->ToString(), "float64");
  EXPECT_EQ(Resolve("min", {Date()}).return_type->ToString(), "date");
  EXPECT_EQ(Resolve("max", {Uuid()}).return_type->ToString(), "uuid");
  EXPECT_EQ(Resolve("every", {Boolean()}).name, "bool_and");
  EXPECT_EQ(Resolve("string_agg", {String(), String()}).return_type->ToString(), "string");
  EXPECT_EQ(Resolve("stddev", {Int32()}).name, "stddev_samp");
  // Of exact numbers, numeric (computed exactly, as PostgreSQL's); of floats, double.
  EXPECT_EQ(Resolve("stddev", {Int32()}).arg_types[0]->ToString(), "numeric");
  EXPECT_EQ(Resolve("stddev", {Int32()}).return_type->ToString(), "numeric");
  EXPECT_EQ(Resolve("stddev", {Float32()}).return_type->ToString(), "float64");
  EXPECT_EQ(Resolve("variance", {Float64()}).name, "var_samp");
  EXPECT_TRUE(IsAggregateFunction("sum"));
  EXPECT_TRUE(IsAggregateFunction("every"));
  EXPECT_FALSE(IsAggregateFunction("row_number"));
  EXPECT_FALSE(IsAggregateFunction("lower"));
}

TEST(AggregateResolveTest, StateFields) {
  auto avg = Resolve("avg", {Int32()});
  ASSERT_EQ(avg.state_fields.size(), 2u);
  EXPECT_EQ(avg.state_fields[0].ToString(), "sum: decimal(38,0)");
  EXPECT_EQ(avg.state_fields[1].ToString(), "count: int64 not null");
  auto distinct = Resolve("count", {Int32()}, true);
  ASSERT_EQ(distinct.state_fields.size(), 1u);
  EXPECT_EQ(distinct.state_fields[0].type()->ToString(), "list<int32>");
  EXPECT_EQ(Resolve("string_agg", {String(), String()}).state_fields.size(), 2u);
}

TEST(AggregateResolveTest, Errors) {
  EXPECT_THAT(ResolveAggregate("sum", {String()}, false),
              IsErrorWith(StatusCode::kBind, "function sum(text) does not exist"));
  EXPECT_THAT(ResolveAggregate("avg", {Int32(), Int32()}, false),
              IsErrorWith(StatusCode::kBind, "function avg(integer, integer) does not exist"));
  EXPECT_THAT(ResolveAggregate("bool_and", {Int32()}, false), IsError(StatusCode::kBind));
  EXPECT_THAT(ResolveAggregate("string_agg", {String(), Int32()}, false),
              IsError(StatusCode::kBind));
  // min and max take arrays of orderable values, not maps or records.
  EXPECT_THAT(ResolveAggregate("min", {Map(String(), Int32())}, false), IsError(StatusCode::kBind));
  EXPECT_THAT(ResolveAggregate("max", {Struct({Field("a", Int32())})}, false),
              IsError(StatusCode::kBind));
  EXPECT_THAT(ResolveAggregate("max", {List(Map(String(), Int32()))}, false),
              IsError(StatusCode::kBind));
  ASSERT_OK_AND_ASSIGN(ResolvedAggregate min_list, ResolveAggregate("min", {List(Int32())}, false));
  EXPECT_TRUE(min_list.return_type->Equals(*List(Int32())));
  EXPECT_THAT(ResolveAggregate("nosuch", {Int32()}, false), IsError(StatusCode::kBind));
}

TEST(WindowResolveTest, Functions) {
  EXPECT_TRUE(IsWindowFunction("row_number"));
  EXPECT_FALSE(IsWindowFunction("sum"));
  ASSERT_OK_AND_ASSIGN(auto rn, ResolveWindowFunction("row_number", {}));
  EXPECT_EQ(rn.return_type->ToString(), "int64");
  ASSERT_OK_AND_ASSIGN(auto pr, ResolveWindowFunction("percent_rank", {}));
  EXPECT_EQ(pr.return_type->ToString(), "float64");
  ASSERT_OK_AND_ASSIGN(auto nt, ResolveWindowFunction("ntile", {Int32()}));
  EXPECT_EQ(nt.return_type->ToString(), "int32");
  ASSERT_OK_AND_ASSIGN(auto lag, ResolveWindowFunction("lag", {String(), Int32(), String()}));
  EXPECT_EQ(lag.return_type->ToString(), "string");
  ASSERT_EQ(lag.arg_types.size(), 3u);
  EXPECT_EQ(lag.arg_types[1]->ToString(), "int64");
  ASSERT_OK_AND_ASSIGN(auto nth, ResolveWindowFunction("nth_value", {Date(), Int64()}));
  EXPECT_EQ(nth.return_type->ToString(), "date");
  EXPECT_THAT(ResolveWindowFunction("rank", {Int32()}),
              IsErrorWith(StatusCode::kBind, "function rank(integer) does not exist"));
  EXPECT_THAT(ResolveWindowFunction("lag", {Int32(), String()}), IsError(StatusCode::kBind));
  EXPECT_THAT(ResolveWindowFunction("ntile", {}), IsError(StatusCode::kBind));
}

TEST(AggregateTest, CountWithNullsFilterAndEmptyGroups) {
  auto values = I32({1, std::nullopt, 3, 4, std::nullopt});
  std::vector<uint32_t> groups = {0, 0, 1, 1, 0};
  ASSERT_OK_AND_ASSIGN(auto count, RunSingle(Resolve("count", {Int32()}), {values}, groups, 3));
  EXPECT_THAT(count, ElementsAre("1", "2", "0"));
  ASSERT_OK_AND_ASSIGN(auto star, RunSingle(Resolve("count", {}), {values}, groups, 3));
  EXPECT_THAT(star, ElementsAre("3", "2", "0"));
  auto filter = Bools({true, true, false, std::nullopt, true});
  ASSERT_OK_AND_ASSIGN(auto filtered, RunSingle(Resolve("count", {}), {}, groups, 3, filter.get()));
  EXPECT_THAT(filtered, ElementsAre("3", "0", "0"));
  // Without arguments and filter the row count is unknown.
  ASSERT_OK_AND_ASSIGN(auto acc, MakeGroupsAccumulator(Resolve("count", {}), nullptr));
  EXPECT_THAT(acc->Update({}, groups.data(), nullptr, 3), IsError(StatusCode::kInternal));
}

TEST(AggregateTest, SumIntegers) {
  auto values = I32({1, std::nullopt, 2147483647, 2147483647, 5});
  std::vector<uint32_t> groups = {0, 1, 0, 0, 2};
  ASSERT_OK_AND_ASSIGN(auto out, RunSingle(Resolve("sum", {Int32()}), {values}, groups, 4));
  EXPECT_THAT(out, ElementsAre("4294967295", "NULL", "5", "NULL"));
  auto big = I64({INT64_MAX, INT64_MAX, -5});
  ASSERT_OK_AND_ASSIGN(auto sum64, RunSingle(Resolve("sum", {Int64()}), {big}, {0, 0, 0}, 1));
  EXPECT_THAT(sum64, ElementsAre("18446744073709551609"));
}

TEST(AggregateTest, SumMergeOverflowsBigint) {
  auto agg = Resolve("sum", {Int32()});
  ASSERT_OK_AND_ASSIGN(auto acc, MakeGroupsAccumulator(agg, nullptr));
  auto states = I64({INT64_MAX, 1});
  std::vector<uint32_t> groups = {0, 0};
  EXPECT_THAT(acc->Merge({states}, groups.data(), 1),
              IsErrorWith(StatusCode::kInvalidArgument, "bigint out of range"));
}

TEST(AggregateTest, SumDecimalAndOverflow) {
  auto values = Dec(12, 2, {Int128(150), Int128(-25), std::nullopt, Int128(1)});
  ASSERT_OK_AND_ASSIGN(auto out,
                       RunSingle(Resolve("sum", {Decimal(12, 2)}), {values}, {0, 0, 1, 1}, 2));
  EXPECT_THAT(out, ElementsAre("1.25", "0.01"));
  const Int128 nine_e37 = Int128(9000000000000000000LL) * Int128(1000000000000000000LL) * 10;
  auto huge = Dec(38, 0, {nine_e37, nine_e37});
  EXPECT_THAT(RunSingle(Resolve("sum", {Decimal(38, 0)}), {huge}, {0, 0}, 1),
              IsErrorWith(StatusCode::kInvalidArgument, "numeric field overflow"));
}

TEST(AggregateTest, SumFloats) {
  auto values = F64({0.5, 0.25, std::nullopt});
  ASSERT_OK_AND_ASSIGN(auto out, RunSingle(Resolve("sum", {Float64()}), {values}, {0, 0, 1}, 2));
  EXPECT_THAT(out, ElementsAre("0.75", "NULL"));
}

TEST(AggregateTest, CountSumAvgOverFewAndManyGroups) {
  // count, sum and avg over 1000 rows into 1 to 100 groups give the exact per-group
  // results, with NULLs and a FILTER (NULL filter values drop the row).
  for (int64_t total : {1, 3, 32, 33, 100}) {
    std::vector<std::optional<int64_t>> values;
    std::vector<std::optional<bool>> keep;
    std::vector<uint32_t> groups;
    std::vector<int64_t> counts(static_cast<size_t>(total)), sums(static_cast<size_t>(total));
    std::vector<int64_t> stars(static_cast<size_t>(total));
    for (int64_t i = 0; i < 1001; ++i) {
      const auto g = static_cast<uint32_t>((i * 7 + i / 3) % total);
      groups.push_back(g);
      const bool null = i % 11 == 3;
      const bool pass = i % 5 != 1;
      const int64_t v = (i * 7919) % 2001 - 1000;
      values.push_back(null ? std::nullopt : std::optional<int64_t>(v));
      keep.push_back(i % 13 == 4 ? std::nullopt : std::optional<bool>(pass));
      if (i % 13 == 4 || !pass) continue;
      ++stars[g];
      if (null) continue;
      ++counts[g];
      sums[g] += v;
    }
    auto array = I64(values);
    auto filter = Bools(keep);
    ASSERT_OK_AND_ASSIGN(
        auto count, RunSingle(Resolve("count", {Int64()}), {array}, groups, total, filter.get()));
    ASSERT_OK_AND_ASSIGN(auto star,
                         RunSingle(Resolve("count", {}), {array}, groups, total, filter.get()));
    ASSERT_OK_AND_ASSIGN(
        auto sum, RunSingle(Resolve("sum", {Int64()}), {array}, groups, total, filter.get()));
    ASSERT_OK_AND_ASSIGN(auto avg_state, MakeGroupsAccumulator(Resolve("avg", {Int64()}), nullptr));
    ASSERT_OK(avg_state->Update({array}, groups.data(), filter.get(), total));
    ASSERT_OK_AND_ASSIGN(auto state, avg_state->State());
    for (int64_t g = 0; g < total; ++g) {
      const auto gi = static_cast<size_t>(g);
      EXPECT_EQ(count[gi], std::to_string(counts[gi])) << total << " groups, group " << g;
      EXPECT_EQ(star[gi], std::to_string(stars[gi])) << total << " groups, group " << g;
      EXPECT_EQ(sum[gi], counts[gi] == 0 ? "NULL" : std::to_string(sums[gi])) << g;
      EXPECT_EQ(FormatValue(*state[1], g), std::to_string(counts[gi])) << g;
      if (counts[gi] > 0) {
        EXPECT_EQ(FormatValue(*state[0], g), std::to_string(sums[gi])) << g;
      }
    }
  }
}

TEST(AggregateTest, SumBackWithinRangeIsNoOverflow) {
  // Two +9e37 rows would pass 128 bits together, but the running sum in row order never
  // does: the result is 0, not an error.
  const Int128 nine_e37 = Int128(9000000000000000000LL) * Int128(1000000000000000000LL) * 10;
  auto values = Dec(38, 0, {nine_e37, -nine_e37, Int128(0), Int128(0), nine_e37, -nine_e37});
  std::vector<uint32_t> groups(6, 0);
  ASSERT_OK_AND_ASSIGN(auto sum, RunSingle(Resolve("sum", {Decimal(38, 0)}), {values}, groups, 1));
  EXPECT_THAT(sum, ElementsAre("0"));
  ASSERT_OK_AND_ASSIGN(auto avg, RunSingle(Resolve("avg", {Decimal(38, 0)}), {values}, groups, 1));
  EXPECT_THAT(avg, ElementsAre("0.00000000000000000000"));
}

TEST(AggregateTest, Avg) {
  auto values = I32({1, 2, 1, 2, 2, -1, -2, -2, std::nullopt});
  std::vector<uint32_t> groups = {0, 0, 1, 1, 1, 2, 2, 2, 3};
  ASSERT_OK_AND_ASSIGN(auto out, RunSingle(Resolve("avg", {Int32()}), {values}, groups, 4));
  // PostgreSQL's numeric division scale: at least 16 significant digits.
  EXPECT_THAT(
      out, ElementsAre("1.5000000000000000", "1.6666666666666667", "-1.6666666666666667", "NULL"));
  auto dec = Dec(10, 2, {Int128(100), Int128(201)});
  ASSERT_OK_AND_ASSIGN(auto avg_dec, RunSingle(Resolve("avg", {Decimal(10, 2)}), {dec}, {0, 0}, 1));
  EXPECT_THAT(avg_dec, ElementsAre("1.5050000000000000"));
  auto f = F64({1.0, 2.0});
  ASSERT_OK_AND_ASSIGN(auto avg_f, RunSingle(Resolve("avg", {Float64()}), {f}, {0, 0}, 1));
  EXPECT_THAT(avg_f, ElementsAre("1.5"));
}

TEST(AggregateTest, MinMax) {
  std::vector<uint32_t> groups = {0, 1, 0, 1, 2};
  auto ints = I32({5, std::nullopt, -3, 7, std::nullopt});
  ASSERT_OK_AND_ASSIGN(auto mn, RunSingle(Resolve("min", {Int32()}), {ints}, groups, 3));
  EXPECT_THAT(mn, ElementsAre("-3", "7", "NULL"));
  ASSERT_OK_AND_ASSIGN(auto mx, RunSingle(Resolve("max", {Int32()}), {ints}, groups, 3));
  EXPECT_THAT(mx, ElementsAre("5", "7", "NULL"));

  // NaN sorts above every number.
  auto floats = F64({1.5, std::nan(""), -2.0, 3.0, 0.0});
  ASSERT_OK_AND_ASSIGN(auto fmax, RunSingle(Resolve("max", {Float64()}), {floats}, groups, 3));
  EXPECT_THAT(fmax, ElementsAre("1.5", "NaN", "0"));
  ASSERT_OK_AND_ASSIGN(auto fmin, RunSingle(Resolve("min", {Float64()}), {floats}, groups, 3));
  EXPECT_THAT(fmin, ElementsAre("-2", "3", "0"));

  auto strings = Str({"pear", "b", "apple", std::nullopt, "zz"});
  ASSERT_OK_AND_ASSIGN(auto smin, RunSingle(Resolve("min", {String()}), {strings}, groups, 3));
  EXPECT_THAT(smin, ElementsAre("apple", "b", "zz"));
  ASSERT_OK_AND_ASSIGN(auto smax, RunSingle(Resolve("max", {String()}), {strings}, groups, 3));
  EXPECT_THAT(smax, ElementsAre("pear", "b", "zz"));

  auto bools = Bools({true, false, false, true, std::nullopt});
  ASSERT_OK_AND_ASSIGN(auto bmin, RunSingle(Resolve("min", {Boolean()}), {bools}, groups, 3));
  EXPECT_THAT(bmin, ElementsAre("f", "f", "NULL"));

  auto dates =
      MakeArray(Date(), {Scalar::Make(Date(), int32_t{20000}), Scalar::Make(Date(), int32_t{0})});
  ASSERT_OK_AND_ASSIGN(auto dmax, RunSingle(Resolve("max", {Date()}), {dates}, {0, 0}, 1));
  EXPECT_THAT(dmax, ElementsAre("2024-10-04"));

  auto decs = Dec(10, 2, {Int128(-500), Int128(12)});
  ASSERT_OK_AND_ASSIGN(auto decmin, RunSingle(Resolve("min", {Decimal(10, 2)}), {decs}, {0, 0}, 1));
  EXPECT_THAT(decmin, ElementsAre("-5.00"));

  auto uuids = MakeArray(Uuid(), {Scalar::Make(Uuid(), std::string(16, '\x02')),
                                  Scalar::Make(Uuid(), std::string(16, '\xf0'))});
  ASSERT_OK_AND_ASSIGN(auto umax, RunSingle(Resolve("max", {Uuid()}), {uuids}, {0, 0}, 1));
  EXPECT_THAT(umax, ElementsAre("f0f0f0f0-f0f0-f0f0-f0f0-f0f0f0f0f0f0"));
}

TEST(AggregateTest, BoolAndOr) {
  auto values = Bools({true, std::nullopt, false, true, true, std::nullopt});
  std::vector<uint32_t> groups = {0, 0, 1, 1, 2, 3};
  ASSERT_OK_AND_ASSIGN(auto band, RunSingle(Resolve("bool_and", {Boolean()}), {values}, groups, 4));
  EXPECT_THAT(band, ElementsAre("t", "f", "t", "NULL"));
  ASSERT_OK_AND_ASSIGN(auto bor, RunSingle(Resolve("bool_or", {Boolean()}), {values}, groups, 4));
  EXPECT_THAT(bor, ElementsAre("t", "t", "t", "NULL"));
}

TEST(AggregateTest, StringAgg) {
  auto values = Str({"a", "b", std::nullopt, "c", "d", "e"});
  auto delims = Str({",", ";", ",", std::nullopt, "-", "-"});
  std::vector<uint32_t> groups = {0, 0, 0, 0, 1, 1};
  auto agg = Resolve("string_agg", {String(), String()});
  ASSERT_OK_AND_ASSIGN(auto out, RunSingle(agg, {values, delims}, groups, 3));
  EXPECT_THAT(out, ElementsAre("a;bc", "d-e", "NULL"));
}

TEST(AggregateTest, VarianceAndStddev) {
  auto values = F64({1, 2, 3, 4, 10, std::nullopt});
  std::vector<uint32_t> groups = {0, 0, 0, 0, 1, 1};
  ASSERT_OK_AND_ASSIGN(auto var_samp,
                       RunSingle(Resolve("var_samp", {Float64()}), {values}, groups, 3));
  EXPECT_THAT(var_samp, ElementsAre("1.6666666666666667", "NULL", "NULL"));
  ASSERT_OK_AND_ASSIGN(auto var_pop,
                       RunSingle(Resolve("var_pop", {Float64()}), {values}, groups, 3));
  EXPECT_THAT(var_pop, ElementsAre("1.25", "0", "NULL"));
  ASSERT_OK_AND_ASSIGN(auto sd, RunSingle(Resolve("stddev_pop", {Float64()}), {values}, groups, 3));
  EXPECT_THAT(sd, ElementsAre("1.118033988749895", "0", "NULL"));
}

TEST(AggregateTest, Distinct) {
  auto values = I32({1, 1, 2, std::nullopt, 3, 3, 3});
  std::vector<uint32_t> groups = {0, 0, 0, 0, 1, 1, 2};
  ASSERT_OK_AND_ASSIGN(auto count,
                       RunSingle(Resolve("count", {Int32()}, true), {values}, groups, 4));
  EXPECT_THAT(count, ElementsAre("2", "1", "1", "0"));
  ASSERT_OK_AND_ASSIGN(auto sum, RunSingle(Resolve("sum", {Int32()}, true), {values}, groups, 4));
  EXPECT_THAT(sum, ElementsAre("3", "3", "3", "NULL"));
  // -0.0 and 0.0 are one value, as are all NaNs.
  auto floats = F64({0.0, -0.0, std::nan(""), std::nan("")});
  ASSERT_OK_AND_ASSIGN(auto fcount,
                       RunSingle(Resolve("count", {Float64()}, true), {floats}, {0, 0, 0, 0}, 1));
  EXPECT_THAT(fcount, ElementsAre("2"));
  auto words = Str({"x", "y", "x", "z", "y"});
  auto commas = Str({",", ",", ",", ",", ","});
  ASSERT_OK_AND_ASSIGN(auto agg, RunSingle(Resolve("string_agg", {String(), String()}, true),
                                           {words, commas}, {0, 0, 0, 0, 0}, 1));
  EXPECT_THAT(agg, ElementsAre("x,y,z"));
  EXPECT_THAT(MakeGroupsAccumulator(Resolve("count", {List(Int32())}, true), nullptr),
              IsError(StatusCode::kNotSupported));
}

// partial -> merge -> final equals the single phase for every aggregate.
TEST(AggregateTest, TwoPhaseEqualsSinglePhase) {
  auto ints = I32({4, 1, std::nullopt, 7, 1, 9, 2, std::nullopt, 4, 4, 6});
  auto floats = F64({1.5, 2.5, 3.0, std::nullopt, -1.0, 8.0, 0.25, 2.0, 1.0, 1.0, 3.5});
  auto strings = Str({"k", "a", "q", std::nullopt, "b", "z", "c", "m", "n", "a", "x"});
  auto delims = Str({",", "|", ",", ",", "|", ",", ",", "|", ",", ",", ";"});
  auto bools =
      Bools({true, false, std::nullopt, true, true, true, false, true, std::nullopt, true, false});
  auto decs = Dec(9, 3,
                  {Int128(1), Int128(-2000), Int128(333), std::nullopt, Int128(5), Int128(6),
                   Int128(7), Int128(8), Int128(9), Int128(10), Int128(11)});
  std::vector<uint32_t> groups = {0, 1, 2, 0, 1, 2, 0, 1, 0, 3, 1};
  struct Case {
    std::string name;
    std::vector<ArrayPtr> args;
    bool distinct;
  };
  std::vector<Case> cases = {
      {"count", {}, false},          {"count", {ints}, false},
      {"sum", {ints}, false},        {"sum", {floats}, false},
      {"sum", {decs}, false},        {"avg", {ints}, false},
      {"avg", {decs}, false},        {"avg", {floats}, false},
      {"min", {strings}, false},     {"max", {ints}, false},
      {"min", {decs}, false},        {"bool_and", {bools}, false},
      {"bool_or", {bools}, false},   {"string_agg", {strings, delims}, false},
      {"var_samp", {floats}, false}, {"stddev_pop", {floats}, false},
      {"count", {ints}, true},       {"sum", {ints}, true},
      {"avg", {decs}, true},         {"string_agg", {strings, delims}, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + (c.distinct ? " distinct" : ""));
    std::vector<TypePtr> types;
    for (const auto& a : c.args) types.push_back(a->type());
    auto agg = Resolve(c.name, types, c.distinct);
    std::vector<ArrayPtr> args = c.args;
    if (args.empty()) args.push_back(ints);  // count(*) reads the row count from it
    ASSERT_OK_AND_ASSIGN(auto single, RunSingle(agg, args, groups, 5));
    ASSERT_OK_AND_ASSIGN(auto two_phase, RunTwoPhase(agg, args, groups, 5));
    if (c.name == "string_agg") {
      // Two partials concatenate in partial order, so only the pieces are comparable.
      ASSERT_EQ(single.size(), two_phase.size());
      for (size_t g = 0; g < single.size(); ++g) {
        EXPECT_EQ(single[g].size(), two_phase[g].size()) << g;
      }
    } else if (c.name == "var_samp" || c.name == "stddev_pop") {
      ASSERT_EQ(single.size(), two_phase.size());
      for (size_t g = 0; g < single.size(); ++g) {
        if (single[g] == "NULL") {
          EXPECT_EQ(two_phase[g], "NULL");
        } else {
          EXPECT_NEAR(std::stod(single[g]), std::stod(two_phase[g]), 1e-12);
        }
      }
    } else {
      EXPECT_EQ(single, two_phase);
    }
  }
}

TEST(AggregateTest, StringAggMergeJoinsPartialsWithTheirFirstDelimiter) {
  auto agg = Resolve("string_agg", {String(), String()});
  ASSERT_OK_AND_ASSIGN(auto final_acc, MakeGroupsAccumulator(agg, nullptr));
  std::vector<uint32_t> g = {0};
  ASSERT_OK(final_acc->Merge({Str({"a,b"}), Str({"#"})}, g.data(), 1));
  ASSERT_OK(final_acc->Merge({Str({"c;d"}), Str({"|"})}, g.data(), 1));
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, final_acc->Evaluate());
  EXPECT_THAT(Texts(*out), ElementsAre("a,b|c;d"));
}

TEST(AggregateTest, StateResetsAndMemoryIsReported) {
  auto agg = Resolve("max", {String()});
  ASSERT_OK_AND_ASSIGN(auto acc, MakeGroupsAccumulator(agg, nullptr));
  std::vector<uint32_t> groups = {0, 1};
  ASSERT_OK(acc->Update({Str({std::string(1000, 'x'), "y"})}, groups.data(), nullptr, 2));
  EXPECT_GE(acc->memory_size(), 1000);
  ASSERT_OK_AND_ASSIGN(auto state, acc->State());
  EXPECT_EQ(state[0]->length(), 2);
  // The values are given back; only the small per-group vectors keep their capacity.
  EXPECT_LT(acc->memory_size(), 100);
  ASSERT_OK_AND_ASSIGN(ArrayPtr empty, acc->Evaluate());
  EXPECT_EQ(empty->length(), 0);
}

std::string Int128Text(Int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  auto u = static_cast<unsigned __int128>(negative ? -(v + 1) : v) + (negative ? 1 : 0);
  std::string out;
  while (u != 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return negative ? "-" + out : out;
}

TEST(AggregateTest, ExactSumsInInt64BlocksMatchInt128Reference) {
  // Batches of values of every size: small ones (the int64 path, folded into 128 bits
  // every few batches), values near the int64 limits (too large for the int64 bound: the
  // 128-bit path), values past 64 bits, NULLs, and groups that never see a value. Sums and
  // averages over many batches must equal an Int128 reference, for the accumulators fed
  // directly and for their states merged into another accumulator. Five groups take the
  // few-groups path (partial sums in lanes), twenty the general one.
  const Int128 two_64 = Int128{1} << 64;
  uint64_t seed = 12345;
  auto next = [&seed]() {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 11;
  };
  for (const auto& [total, wide_type] :
       std::vector<std::pair<int64_t, bool>>{{5, false}, {5, true}, {20, false}, {20, true}}) {
    // The last group gets no values, the one before it only NULLs.
    const auto null_group = static_cast<uint32_t>(total - 2);
    SCOPED_TRACE(fmt::format("{} groups, decimal({})", total, wide_type ? 38 : 18));
    const TypePtr type = wide_type ? Decimal(38, 0) : Decimal(18, 0);
    auto sum_acc = MakeGroupsAccumulator(Resolve("sum", {type}), nullptr).ValueOrDie();
    auto avg_acc = MakeGroupsAccumulator(Resolve("avg", {type}), nullptr).ValueOrDie();
    std::vector<Int128> sums(total, 0);
    std::vector<int64_t> counts(total, 0);
    for (int batch = 0; batch < 300; ++batch) {
      const int kind = batch % 10;
      std::vector<std::optional<Int128>> values;
      std::vector<uint32_t> groups;
      for (int r = 0; r < 1000; ++r) {
        const auto g = static_cast<uint32_t>(next() % static_cast<uint64_t>(total - 1));
        groups.push_back(g);
        if (g == null_group || r % 17 == 5) {
          values.push_back(std::nullopt);
          continue;
        }
        Int128 v;
        if (kind == 7) {
          // Within decimal(18): near +-(10^18 - 1), of one sign per batch.
          v = Int128{999999999999999999LL} - static_cast<Int128>(next() % 1000);
          if (batch % 20 == 7) v = -v;
        } else if (kind == 9 && wide_type) {
          v = two_64 * 3 + static_cast<Int128>(next() % 1000) - 500;  // past 64 bits
        } else {
          // Up to 2^50 (2^51 with more groups) in size, mostly positive: group sums pass
          // 2^63 over the batches.
          v = static_cast<Int128>(next() % (uint64_t{1} << (total > 5 ? 51 : 50))) -
              (r % 8 == 0 ? (int64_t{1} << 49) : 0);
        }
        values.push_back(v);
        sums[g] += v;
        ++counts[g];
      }
      auto array = Dec(wide_type ? 38 : 18, 0, values);
      ASSERT_OK(sum_acc->Update({array}, groups.data(), nullptr, total));
      ASSERT_OK(avg_acc->Update({array}, groups.data(), nullptr, total));
    }
    // The sums left 64 bits behind (either sign), so the 128-bit fold was exercised.
    ASSERT_GT(sums[0] < 0 ? -sums[0] : sums[0], Int128{INT64_MAX});
    ASSERT_OK_AND_ASSIGN(auto sum_state, sum_acc->State());
    ASSERT_OK_AND_ASSIGN(auto avg_state, avg_acc->State());
    for (int64_t g = 0; g < total; ++g) {
      const auto gi = static_cast<size_t>(g);
      const std::string want = counts[gi] == 0 ? "NULL" : Int128Text(sums[gi]);
      EXPECT_EQ(FormatValue(*sum_state[0], g), want) << wide_type << " group " << g;
      EXPECT_EQ(FormatValue(*avg_state[0], g), want) << wide_type << " group " << g;
      EXPECT_EQ(FormatValue(*avg_state[1], g), std::to_string(counts[gi])) << g;
    }
    // The states merged twice (into the same groups) give twice the sums.
    auto sum_final = MakeGroupsAccumulator(Resolve("sum", {type}), nullptr).ValueOrDie();
    auto avg_final = MakeGroupsAccumulator(Resolve("avg", {type}), nullptr).ValueOrDie();
    std::vector<uint32_t> ids(static_cast<size_t>(total));
    std::iota(ids.begin(), ids.end(), 0u);
    for (int twice = 0; twice < 2; ++twice) {
      ASSERT_OK(sum_final->Merge(sum_state, ids.data(), total));
      ASSERT_OK(avg_final->Merge(avg_state, ids.data(), total));
    }
    ASSERT_OK_AND_ASSIGN(auto sum_out, sum_final->Evaluate());
    ASSERT_OK_AND_ASSIGN(auto avg_out, avg_final->Evaluate());
    for (int64_t g = 0; g < total; ++g) {
      const auto gi = static_cast<size_t>(g);
      EXPECT_EQ(FormatValue(*sum_out, g), counts[gi] == 0 ? "NULL" : Int128Text(2 * sums[gi]));
      if (counts[gi] == 0) {
        EXPECT_EQ(FormatValue(*avg_out, g), "NULL");
      } else {
        const std::string avg = FormatValue(*avg_out, g);
        // The integer part of the mean (the sums are far from a rounding boundary), or the
        // mean rounded half away from zero where numeric division's scale leaves no decimals
        // (a mean of 19 digits).
        const Int128 q = sums[gi] / counts[gi];
        const Int128 r = sums[gi] % counts[gi];
        const bool no_decimals = avg.find('.') == std::string::npos;
        const Int128 rounded = 2 * (r < 0 ? -r : r) >= counts[gi] ? q + (sums[gi] < 0 ? -1 : 1) : q;
        EXPECT_EQ(avg.substr(0, avg.find('.')), Int128Text(no_decimals ? rounded : q)) << g;
      }
    }
  }
}

TEST(AggregateTest, ExactSumsOfBigintsNearTheLimitsAndOneGroup) {
  // sum(bigint) of INT64_MAX / INT64_MIN rows takes the 128-bit path; small bigints the
  // int64 one; one group (no group ids but zeros) a plain reduction; NULLs are skipped.
  auto big = I64({INT64_MAX, std::nullopt, INT64_MAX, INT64_MIN, INT64_MIN, INT64_MIN, 7});
  ASSERT_OK_AND_ASSIGN(auto one,
                       RunSingle(Resolve("sum", {Int64()}), {big}, std::vector<uint32_t>(7, 0), 1));
  EXPECT_THAT(one, ElementsAre(Int128Text(Int128{INT64_MAX} * 2 + Int128{INT64_MIN} * 3 + 7)));
  ASSERT_OK_AND_ASSIGN(auto two,
                       RunSingle(Resolve("sum", {Int64()}), {big}, {0, 1, 0, 1, 1, 1, 0}, 3));
  EXPECT_THAT(two, ElementsAre(Int128Text(Int128{INT64_MAX} * 2 + 7),
                               Int128Text(Int128{INT64_MIN} * 3), "NULL"));
  auto small = I64({-3, 4, std::nullopt, 5});
  ASSERT_OK_AND_ASSIGN(auto filtered, RunSingle(Resolve("avg", {Int64()}), {small}, {0, 0, 0, 0}, 1,
                                                Bools({true, true, true, false}).get()));
  EXPECT_THAT(filtered, ElementsAre("0.50000000000000000000"));
  ASSERT_OK_AND_ASSIGN(auto none,
                       RunSingle(Resolve("sum", {Int64()}), {I64({std::nullopt})}, {0}, 1));
  EXPECT_THAT(none, ElementsAre("NULL"));
}

}  // namespace
}  // namespace floe::expr
