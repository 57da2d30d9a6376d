// The final steps of PostgreSQL's ordered-set aggregates. The binder plans
// `percentile_cont(f) WITHIN GROUP (ORDER BY x [DESC])` as array_agg(x ORDER BY x) (so
// partial and final aggregation, spilling and the codec are the ordinary array_agg's) and
// one of these scalar functions over that ascending list, `descending` as written:
//   percentile_cont_of(fraction float8 | float8[], list<float8>, descending) -> float8 | float8[]
//   percentile_disc_of(fraction float8 | float8[], list<T>, descending) -> T | T[]
//   mode_of(list<T>, descending) -> T
// NULL values are left out (they sort together at one end of the list); no values give
// NULL, as the aggregates do.

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"
#include "floe/type/type_visit.h"

namespace floe::expr::internal {

namespace {

using Args = std::vector<ColumnarValue>;

Status CheckFraction(double f) {
  if (std::isnan(f) || f < 0 || f > 1) {
    return Status::Invalid("percentile value {} is not between 0 and 1", f);
  }
  return Status::OK();
}

// The element of a sorted list of `n` values at fraction `f`: the first whose position
// reaches the fraction (percentile_disc).
int64_t DiscreteIndex(double f, int64_t n) {
  const auto k = static_cast<int64_t>(std::ceil(f * static_cast<double>(n)));
  return k < 1 ? 0 : std::min(k, n) - 1;
}

// Interpolated between the two values around position f * (n - 1) (percentile_cont).
double ContinuousValue(const double* sorted, int64_t n, double f) {
  const double pos = f * static_cast<double>(n - 1);
  const auto lo = static_cast<int64_t>(std::floor(pos));
  const auto hi = static_cast<int64_t>(std::ceil(pos));
  if (lo == hi) return sorted[lo];
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// Resolves (fraction, list) with the fraction as float8 or float8[]; the result is the
// element type (`continuous`: float8), or a list of it for a list of fractions.
ScalarResolver PercentileResolver(std::string name, bool continuous) {
  return [name, continuous](const std::vector<TypePtr>& args,
                            int* cost) -> Result<ResolvedFunction> {
    if (args.size() != 3 || args[1] == nullptr || args[1]->id() != TypeId::kList ||
        args[2] == nullptr || args[2]->id() != TypeId::kBoolean) {
      return NoSuchFunction(name, args);
    }
    const TypePtr element = continuous ? Float64() : args[1]->field(0).type();
    const TypePtr list = List(element);
    int c = 0;
    if (continuous && !Accepts(args[1], list, &c)) return NoSuchFunction(name, args);
    const bool many = args[0] != nullptr && args[0]->id() == TypeId::kList;
    const TypePtr fraction = many ? List(Float64()) : Float64();
    if (!Accepts(args[0], fraction, &c)) return NoSuchFunction(name, args);
    *cost += c;
    return Resolution(name, {fraction, list, Boolean()}, many ? List(element) : element);
  };
}

// One result per fraction of `fractions` (a scalar fraction is one) for row i.
template <typename Append>
Status ForEachFraction(const Array& fractions, int64_t i, bool many, ArrayBuilder* builder,
                       Append&& append) {
  if (!many) return append(fractions.Value<double>(i), builder);
  auto* list = static_cast<ListBuilder*>(builder);
  FLOE_RETURN_NOT_OK(list->Append());
  const Array& values = *fractions.child(0);
  for (int64_t j = fractions.ListBegin(i); j < fractions.ListEnd(i); ++j) {
    if (values.IsNull(j)) {
      FLOE_RETURN_NOT_OK(list->value_builder()->AppendNull());
      continue;
    }
    FLOE_RETURN_NOT_OK(append(values.Value<double>(j), list->value_builder()));
  }
  return Status::OK();
}

ScalarKernel PercentileKernel(bool continuous) {
  return [continuous](const ResolvedFunction& f, const Args& args, int64_t n,
                      EvalContext& ctx) -> Result<ColumnarValue> {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr fractions, args[0].ToArray(n, ctx.pool));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr lists, args[1].ToArray(n, ctx.pool));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr descending, args[2].ToArray(n, ctx.pool));
    const bool many = fractions->type_id() == TypeId::kList;
    auto builder = MakeBuilder(f.return_type, ctx.pool);
    FLOE_RETURN_NOT_OK(builder->Reserve(n));
    const Array& values = *lists->child(0);
    std::vector<int64_t> present;  // the positions of the row's non-NULL values, in order
    std::vector<double> sorted;
    for (int64_t i = 0; i < n; ++i) {
      present.clear();
      if (!lists->IsNull(i)) {
        for (int64_t j = lists->ListBegin(i); j < lists->ListEnd(i); ++j) {
          if (!values.IsNull(j)) present.push_back(j);
        }
      }
      const auto count = static_cast<int64_t>(present.size());
      if (fractions->IsNull(i) || count == 0) {
        FLOE_RETURN_NOT_OK(builder->AppendNull());
        continue;
      }
      // In descending order the k-th value is the (count - 1 - k)-th ascending one.
      const bool desc = !descending->IsNull(i) && descending->BoolValue(i);
      if (desc) std::reverse(present.begin(), present.end());
      if (continuous) {
        sorted.clear();
        for (int64_t j : present) sorted.push_back(values.Value<double>(j));
      }
      FLOE_RETURN_NOT_OK(ForEachFraction(
          *fractions, i, many, builder.get(), [&](double fraction, ArrayBuilder* out) -> Status {
            FLOE_RETURN_NOT_OK(CheckFraction(fraction));
            if (continuous) {
              return static_cast<NumericBuilder<double>*>(out)->Append(
                  ContinuousValue(sorted.data(), count, fraction));
            }
            return out->AppendArraySlice(values, present[static_cast<size_t>(
                                                     DiscreteIndex(fraction, count))],
                                         1);
          }));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder->Finish());
    return ColumnarValue(std::move(out));
  };
}

// The most frequent value of a sorted list (equal values are neighbours), the first in
// the list's order among equally frequent ones.
Result<ColumnarValue> ModeKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                 EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(ArrayPtr lists, args[0].ToArray(n, ctx.pool));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr descending, args[1].ToArray(n, ctx.pool));
  const Array& values = *lists->child(0);
  auto builder = MakeBuilder(f.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(n));
  return VisitPhysicalType(values.type_id(), [&]<typename T>(TypeTag<T>) -> Result<ColumnarValue> {
    if constexpr (std::is_void_v<T>) {
      return Status::NotSupported("mode() of {} values", SqlTypeName(*values.type()));
    } else {
      auto at = [&](int64_t j) -> T {
        if constexpr (std::is_same_v<T, bool>) {
          return values.BoolValue(j);
        } else if constexpr (std::is_same_v<T, std::string_view>) {
          return values.BytesValue(j);
        } else if constexpr (std::is_same_v<T, Int128>) {
          return values.DecimalValue(j);
        } else {
          return values.Value<T>(j);
        }
      };
      for (int64_t i = 0; i < n; ++i) {
        const int64_t begin = lists->IsNull(i) ? 0 : lists->ListBegin(i);
        const int64_t end = lists->IsNull(i) ? 0 : lists->ListEnd(i);
        if (begin == end) {
          FLOE_RETURN_NOT_OK(builder->AppendNull());
          continue;
        }
        // Among equally frequent values the first in the ordering: the last run ascending
        // when the ordering is descending.
        const bool desc = !descending->IsNull(i) && descending->BoolValue(i);
        int64_t best = -1, best_count = 0;
        for (int64_t run = begin; run < end;) {
          if (values.IsNull(run)) {
            ++run;
            continue;
          }
          int64_t next = run + 1;
          while (next < end && !values.IsNull(next) && at(next) == at(run)) ++next;
          if (next - run > best_count || (desc && next - run == best_count)) {
            best = run;
            best_count = next - run;
          }
          run = next;
        }
        if (best < 0) {
          FLOE_RETURN_NOT_OK(builder->AppendNull());
        } else {
          FLOE_RETURN_NOT_OK(builder->AppendArraySlice(values, best, 1));
        }
      }
      FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder->Finish());
      return ColumnarValue(std::move(out));
    }
  });
}

Result<ResolvedFunction> ResolveMode(const std::vector<TypePtr>& args, int* cost) {
  if (args.size() != 2 || args[0] == nullptr || args[0]->id() != TypeId::kList ||
      args[1] == nullptr || args[1]->id() != TypeId::kBoolean) {
    return NoSuchFunction("mode_of", args);
  }
  return Resolution("mode_of", args, args[0]->field(0).type());
}

}  // namespace

void RegisterOrderedSetFunctions(ScalarFunctionRegistry& r) {
  r.Add({"percentile_cont_of", {}, PercentileResolver("percentile_cont_of", true),
         PercentileKernel(true)});
  r.Add({"percentile_disc_of", {}, PercentileResolver("percentile_disc_of", false),
         PercentileKernel(false)});
  r.Add({"mode_of", {}, ResolveMode, ModeKernel});
}

}  // namespace floe::expr::internal
