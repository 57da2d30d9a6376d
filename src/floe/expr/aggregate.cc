// GroupsAccumulators: the per-group state of every aggregate, vectorized over group ids.
// Each Update/Merge is one tight loop over the argument's value buffer (a lambda inlined
// into ForEachSelected); nothing is virtual per row. Sums of exact numbers accumulate in
// Int128 and report PostgreSQL's overflow errors; DISTINCT wraps any aggregate with a
// per-group set of the distinct argument tuples.

#include "floe/expr/aggregate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/batch/select.h"
#include "floe/batch/value_key.h"
#include "floe/common/memory_pool.h"
#include "floe/common/numeric.h"
#include "floe/expr/aggregate_internal.h"
#include "floe/expr/comparison_internal.h"
#include "floe/expr/json_internal.h"
#include "floe/type/type_visit.h"

namespace floe::expr {

namespace {

// ---------------------------------------------------------------------------------------
// Helpers shared by the accumulators.

template <typename T>
inline T Load(const uint8_t* base, int64_t i) {
  T v;
  std::memcpy(&v, base + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

// The values buffer of a fixed-width array, positioned at its offset.
inline const uint8_t* ValuesBase(const Array& a) {
  return a.buffer(1)->data() + a.offset() * a.type()->byte_width();
}

inline bool FilterPasses(const Array* filter, int64_t i) {
  return filter == nullptr || (filter->IsValid(i) && filter->BoolValue(i));
}

// Calls f(i) for every row i < n that passes the filter and (when `values` is given) is
// not NULL in `values`. The common cases (no nulls, no filter) are branch-free loops.
template <typename F>
inline void ForEachSelected(const Array* values, const Array* filter, int64_t n, F&& f) {
  const bool check_nulls = values != nullptr && values->null_count() > 0;
  if (!check_nulls && filter == nullptr) {
    for (int64_t i = 0; i < n; ++i) f(i);
  } else if (filter == nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      if (values->IsValid(i)) f(i);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if ((!check_nulls || values->IsValid(i)) && FilterPasses(filter, i)) f(i);
    }
  }
}

constexpr Int128 Pow10(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// Largest unscaled value of a decimal(38, s).
constexpr Int128 kMaxDecimal38 = Pow10(38) - 1;

Status NumericOverflow(std::string_view function) {
  return Status::Invalid("numeric field overflow in {}: the result does not fit numeric(38)",
                         function);
}

Status CheckDecimal38(const PoolVector<Int128>& values, const PoolVector<uint8_t>& valid,
                      std::string_view function) {
  for (size_t g = 0; g < values.size(); ++g) {
    if (valid[g] && (values[g] > kMaxDecimal38 || values[g] < -kMaxDecimal38)) {
      return NumericOverflow(function);
    }
  }
  return Status::OK();
}

// A validity bitmap from one byte per value (null when every value is valid).
Result<BufferPtr> ValidityOf(const PoolVector<uint8_t>* valid, int64_t n, int64_t* null_count,
                             MemoryPool* pool) {
  *null_count = 0;
  if (valid == nullptr) return BufferPtr();
  for (int64_t i = 0; i < n; ++i) *null_count += (*valid)[static_cast<size_t>(i)] == 0;
  if (*null_count == 0) return BufferPtr();
  FLOE_ASSIGN_OR_RAISE(auto bits, Buffer::AllocateZeroed(bit_util::BytesForBits(n), pool));
  for (int64_t i = 0; i < n; ++i) {
    if ((*valid)[static_cast<size_t>(i)]) bit_util::SetBit(bits->mutable_data(), i);
  }
  return BufferPtr(std::move(bits));
}

template <typename T>
Result<ArrayPtr> FixedArray(const TypePtr& type, const PoolVector<T>& values,
                            const PoolVector<uint8_t>* valid, MemoryPool* pool) {
  const auto n = static_cast<int64_t>(values.size());
  int64_t null_count = 0;
  FLOE_ASSIGN_OR_RAISE(BufferPtr validity, ValidityOf(valid, n, &null_count, pool));
  FLOE_ASSIGN_OR_RAISE(auto data,
                       Buffer::AllocateZeroed(n * static_cast<int64_t>(sizeof(T)), pool));
  if (n > 0) std::memcpy(data->mutable_data(), values.data(), values.size() * sizeof(T));
  return Array::Make(type, n, {std::move(validity), BufferPtr(std::move(data))}, {}, null_count);
}

Result<ArrayPtr> BoolArray(const PoolVector<uint8_t>& values, const PoolVector<uint8_t>* valid,
                           MemoryPool* pool) {
  const auto n = static_cast<int64_t>(values.size());
  int64_t null_count = 0;
  FLOE_ASSIGN_OR_RAISE(BufferPtr validity, ValidityOf(valid, n, &null_count, pool));
  FLOE_ASSIGN_OR_RAISE(auto bits, Buffer::AllocateZeroed(bit_util::BytesForBits(n), pool));
  for (int64_t i = 0; i < n; ++i) {
    if (values[static_cast<size_t>(i)]) bit_util::SetBit(bits->mutable_data(), i);
  }
  return Array::Make(Boolean(), n, {std::move(validity), BufferPtr(std::move(bits))}, {},
                     null_count);
}

Result<ArrayPtr> BytesArray(const TypePtr& type, const std::vector<std::string>& values,
                            const PoolVector<uint8_t>& valid, MemoryPool* pool) {
  auto builder = MakeBuilder(type, pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(static_cast<int64_t>(values.size())));
  if (type->is_binary_like()) {
    auto* b = static_cast<BinaryBuilder*>(builder.get());
    int64_t bytes = 0;
    for (const auto& s : values) bytes += static_cast<int64_t>(s.size());
    FLOE_RETURN_NOT_OK(b->ReserveData(bytes));
    for (size_t i = 0; i < values.size(); ++i) {
      if (valid[i]) {
        b->UnsafeAppend(values[i]);
      } else {
        FLOE_RETURN_NOT_OK(b->AppendNull());
      }
    }
  } else {
    auto* b = static_cast<FixedSizeBinaryBuilder*>(builder.get());
    for (size_t i = 0; i < values.size(); ++i) {
      if (valid[i]) {
        FLOE_RETURN_NOT_OK(b->Append(values[i]));
      } else {
        FLOE_RETURN_NOT_OK(b->AppendNull());
      }
    }
  }
  return builder->Finish();
}

// Empties a container and gives its memory back (assigning {} keeps the capacity).
template <typename T>
void Free(T& container) {
  T().swap(container);
}

// Empties a vector; a small one keeps its memory, so that an aggregation that emits its
// groups every batch does not allocate (and fault in) its state again each time.
template <typename T, typename A>
void Free(std::vector<T, A>& v) {
  if (v.capacity() * sizeof(T) <= (size_t{64} << 10)) {
    v.clear();
  } else {
    std::vector<T, A>().swap(v);
  }
}

template <typename T, typename A>
int64_t VectorBytes(const std::vector<T, A>& v) {
  return static_cast<int64_t>(v.capacity() * sizeof(T));
}

// Rows in the batch of an Update: the first argument's length, else the filter's.
Result<int64_t> BatchRows(const std::vector<ArrayPtr>& args, const Array* filter,
                          std::string_view function) {
  if (!args.empty()) return args[0]->length();
  if (filter != nullptr) return filter->length();
  return Status::Internal(
      "{}: Update needs the batch's row count (pass one array of the batch's length)", function);
}

Status CheckArgs(const std::vector<ArrayPtr>& args, size_t expected, std::string_view function) {
  if (args.size() < expected) {
    return Status::Internal("{} expects {} argument arrays, got {}", function, expected,
                            args.size());
  }
  return Status::OK();
}

// Per-group exact sums of int64 or Int128 values (decimals of any precision, bigints)
// that add in int64 while no sum can overflow it. Each batch's largest |value| and whether
// every value fits in 64 bits are found (with few groups, in the pass that adds into local
// partial sums; otherwise in a read-only pass first); the largest |value| times the row
// count bounds what the batch can add to any one group. While the running bound stays
// below 2^62 the batch is added to `narrow_` as 64-bit integers, exactly; a batch that
// would pass it first folds the narrow sums into the Int128 `wide_` sums, and a batch
// whose own values are too large is added to `wide_` directly.
class ExactSums {
 public:
  void Resize(int64_t groups) {
    narrow_.resize(static_cast<size_t>(groups), 0);
    if (!wide_.empty()) wide_.resize(static_cast<size_t>(groups), 0);
  }

  /// Adds the selected values (T = int64_t or Int128; rows passing `filter` and not NULL)
  /// into their groups. Per selected row i of group g, sets seen[g] (when given) and adds
  /// to counts[g] (when given) the int64 at row i of `count_values`, or 1 without them.
  /// False on a 128-bit overflow.
  template <typename T>
  bool Add(const Array& values, const uint32_t* group_ids, const Array* filter, uint8_t* seen,
           int64_t* counts, const uint8_t* count_values) {
    const uint8_t* base = ValuesBase(values);
    const int64_t n = values.length();
    Fit fit;
    if (narrow_.size() <= kLaneGroups) {
      fit = AddFew<T>(values, base, group_ids, filter, seen, counts, count_values);
    } else {
      // First a pass that only reads: the bound of the batch's values. Kept apart from the
      // adds, whose stores would otherwise make the compiler keep `bits` and `misfit` in
      // memory (they could alias the sums).
      uint64_t bits = 0;
      uint64_t misfit = 0;
      ForEachSelected(&values, filter, n, [&](int64_t i) { Low<T>(base, i, &bits, &misfit); });
      fit = Reserve(bits, misfit, n);
      if (fit == Fit::kNarrow) {
        uint64_t* sums = narrow_.data();
        ForEachSelected(&values, filter, n, [&](int64_t i) {
          const uint32_t g = group_ids[i];
          sums[g] += Low<T>(base, i);
          if (seen != nullptr) seen[g] = 1;
          if (counts != nullptr) counts[g] += CountOf(count_values, i);
        });
      }
    }
    if (fit == Fit::kNarrow) return true;
    if (fit == Fit::kOverflow) return false;
    // Values too large to add in 64 bits: the batch goes to the Int128 sums.
    if (!Fold()) return false;
    Int128* wide = wide_.data();
    bool overflow = false;
    ForEachSelected(&values, filter, n, [&](int64_t i) {
      const uint32_t g = group_ids == nullptr ? 0 : group_ids[i];
      overflow |= __builtin_add_overflow(wide[g], static_cast<Int128>(Load<T>(base, i)), &wide[g]);
      if (seen != nullptr) seen[g] = 1;
      if (counts != nullptr) counts[g] += CountOf(count_values, i);
    });
    return !overflow;
  }

  /// The total of every group (false on a 128-bit overflow).
  bool Totals(PoolVector<Int128>* out) {
    if (wide_.empty()) {
      out->resize(narrow_.size());
      for (size_t g = 0; g < narrow_.size(); ++g) (*out)[g] = static_cast<int64_t>(narrow_[g]);
      return true;
    }
    if (!Fold()) return false;
    *out = wide_;
    return true;
  }
  void Clear() {
    Free(narrow_);
    Free(wide_);
    bound_ = 0;
  }
  int64_t memory_size() const { return VectorBytes(narrow_) + VectorBytes(wide_); }

 private:
  static constexpr uint64_t kLimit = uint64_t{1} << 62;
  // Groups up to this many add through kLanes separate partial sums.
  static constexpr size_t kLaneGroups = 8;
  static constexpr size_t kLanes = 4;

  // Where a batch's values go: added in 64 bits, to be added to the Int128 sums, or nowhere
  // (folding the 64-bit sums into the Int128 ones overflowed).
  enum class Fit { kNarrow, kWide, kOverflow };

  // Value i as a 64-bit integer (the low word of an Int128), tracking in `bits` a bound of
  // its size and in `misfit` whether it does not fit in 64 bits. |v| <= (v ^ sign) + 1,
  // and the OR of the (v ^ sign) is at least each of them.
  template <typename T>
  static uint64_t Low(const uint8_t* base, int64_t i, uint64_t* bits, uint64_t* misfit) {
    int64_t lo;
    if constexpr (std::is_same_v<T, Int128>) {
      lo = Load<int64_t>(base, 2 * i);  // little-endian: the low word first
      const int64_t hi = Load<int64_t>(base, 2 * i + 1);
      *misfit |= static_cast<uint64_t>(hi ^ (lo >> 63));
    } else {
      lo = static_cast<int64_t>(Load<T>(base, i));
    }
    *bits |= static_cast<uint64_t>(lo ^ (lo >> 63));
    return static_cast<uint64_t>(lo);
  }
  // Value i's low 64 bits, for a batch whose values were found to fit in them.
  template <typename T>
  static uint64_t Low(const uint8_t* base, int64_t i) {
    if constexpr (std::is_same_v<T, Int128>) {
      return static_cast<uint64_t>(Load<int64_t>(base, 2 * i));
    } else {
      return static_cast<uint64_t>(static_cast<int64_t>(Load<T>(base, i)));
    }
  }
  static int64_t CountOf(const uint8_t* count_values, int64_t i) {
    return count_values == nullptr ? int64_t{1} : Load<int64_t>(count_values, i);
  }

  // Whether a batch of n values whose bound is `bits` (every value fitting 64 bits when
  // `misfit` is 0) can be added to the 64-bit sums; if so, makes room for it, folding the
  // sums into the wide ones first when they could overflow.
  Fit Reserve(uint64_t bits, uint64_t misfit, int64_t n) {
    uint64_t batch_bound = 0;
    const bool small = misfit == 0 && bits < kLimit &&
                       !__builtin_mul_overflow(bits + 1, static_cast<uint64_t>(n), &batch_bound) &&
                       batch_bound <= kLimit;
    if (!small) return Fit::kWide;
    if (bound_ + batch_bound > kLimit && !Fold()) return Fit::kOverflow;
    bound_ += batch_bound;
    return Fit::kNarrow;
  }

  // Add for at most kLaneGroups groups (no group_ids: one group), in one pass that adds into
  // local partial sums while it finds the batch's bound; they are kept only when the bound
  // lets them into the 64-bit sums (otherwise nothing was added). A batch's rows
  // mostly fall in one group (TPC-H Q1 has four), and adding each into the same word would
  // make every add wait for the store of the last one: row i adds into lane i % kLanes.
  template <typename T>
  Fit AddFew(const Array& values, const uint8_t* base, const uint32_t* group_ids,
             const Array* filter, uint8_t* seen, int64_t* counts, const uint8_t* count_values) {
    const int64_t n = values.length();
    uint64_t lane_sums[kLanes][kLaneGroups] = {};
    int64_t lane_counts[kLanes][kLaneGroups] = {};
    uint8_t hit[kLaneGroups] = {};
    uint64_t bits = 0;
    uint64_t misfit = 0;
    // The loop is compiled per way of counting (none, one per row, count_values), so that
    // a sum without counts does no counting work per row.
    auto add = [&](auto group_of, auto count_mode) {
      constexpr int kMode = decltype(count_mode)::value;
      ForEachSelected(&values, filter, n, [&](int64_t i) {
        const uint32_t g = group_of(i);
        const auto lane = static_cast<size_t>(i) & (kLanes - 1);
        lane_sums[lane][g] += Low<T>(base, i, &bits, &misfit);
        if constexpr (kMode == 1) {
          ++lane_counts[lane][g];
        } else if constexpr (kMode == 2) {
          lane_counts[lane][g] += Load<int64_t>(count_values, i);
        }
        hit[g] = 1;
      });
    };
    auto add_counting = [&](auto group_of) {
      if (counts == nullptr) {
        add(group_of, std::integral_constant<int, 0>{});
      } else if (count_values == nullptr) {
        add(group_of, std::integral_constant<int, 1>{});
      } else {
        add(group_of, std::integral_constant<int, 2>{});
      }
    };
    if (group_ids == nullptr) {
      add_counting([](int64_t) { return 0u; });
    } else {
      add_counting([group_ids](int64_t i) { return group_ids[i]; });
    }
    const Fit fit = Reserve(bits, misfit, n);
    if (fit != Fit::kNarrow) return fit;
    uint64_t* sums = narrow_.data();
    for (size_t g = 0; g < narrow_.size(); ++g) {
      for (size_t lane = 0; lane < kLanes; ++lane) {
        sums[g] += lane_sums[lane][g];
        if (counts != nullptr) counts[g] += lane_counts[lane][g];
      }
      if (seen != nullptr && hit[g] != 0) seen[g] = 1;
    }
    return Fit::kNarrow;
  }

  // Adds the narrow sums into the wide ones and empties them; false on overflow.
  bool Fold() {
    bound_ = 0;
    if (wide_.empty()) {
      wide_.resize(narrow_.size());
      for (size_t g = 0; g < narrow_.size(); ++g) wide_[g] = static_cast<int64_t>(narrow_[g]);
    } else {
      bool overflow = false;
      for (size_t g = 0; g < narrow_.size(); ++g) {
        overflow |=
            __builtin_add_overflow(wide_[g], Int128{static_cast<int64_t>(narrow_[g])}, &wide_[g]);
      }
      if (overflow) return false;
    }
    std::fill(narrow_.begin(), narrow_.end(), 0);
    return true;
  }

  PoolVector<uint64_t> narrow_;  // two's complement int64 sums (wrapping adds)
  PoolVector<Int128> wide_;
  uint64_t bound_ = 0;  // no |narrow_[g]| exceeds it
};

// ---------------------------------------------------------------------------------------
// count(x), count(*)

class CountAccumulator final : public GroupsAccumulator {
 public:
  explicit CountAccumulator(bool star, MemoryPool* pool) : star_(star), pool_(pool) {}

  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    counts_.resize(static_cast<size_t>(total_groups), 0);
    FLOE_ASSIGN_OR_RAISE(int64_t n, BatchRows(args, filter, "count"));
    int64_t* counts = counts_.data();
    ForEachSelected(star_ ? nullptr : args[0].get(), filter, n,
                    [&](int64_t i) { ++counts[group_ids[i]]; });
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(states, 1, "count"));
    counts_.resize(static_cast<size_t>(total_groups), 0);
    const Array& s = *states[0];
    const uint8_t* base = ValuesBase(s);
    int64_t* counts = counts_.data();
    ForEachSelected(&s, nullptr, s.length(),
                    [&](int64_t i) { counts[group_ids[i]] += Load<int64_t>(base, i); });
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State() override {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, Evaluate());
    return std::vector<ArrayPtr>{std::move(a)};
  }

  Result<ArrayPtr> Evaluate() override {
    auto out = FixedArray<int64_t>(Int64(), counts_, nullptr, pool_);
    Free(counts_);
    return out;
  }

  int64_t memory_size() const override { return VectorBytes(counts_); }

 private:
  bool star_;
  MemoryPool* pool_;
  PoolVector<int64_t> counts_;
};

// ---------------------------------------------------------------------------------------
// sum

// InT: the argument's values; AccT: the running sum (int64 for small integers, Int128 for
// int64 and decimals, float for real, double for double precision). Int128 sums are kept
// in ExactSums (int64 while they cannot overflow).
template <typename InT, typename AccT>
class SumAccumulator final : public GroupsAccumulator {
 public:
  SumAccumulator(TypePtr out_type, MemoryPool* pool)
      : out_type_(std::move(out_type)), pool_(pool) {}

  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(args, 1, "sum"));
    Resize(total_groups);
    return Add<InT>(*args[0], group_ids, filter);
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(states, 1, "sum"));
    Resize(total_groups);
    return Add<AccT>(*states[0], group_ids, nullptr);
  }

  Result<std::vector<ArrayPtr>> State() override {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, Evaluate());
    return std::vector<ArrayPtr>{std::move(a)};
  }

  Result<ArrayPtr> Evaluate() override {
    Status status;
    if constexpr (kExact) {
      if (!exact_.Totals(&sums_)) status = NumericOverflow("sum");
      if (status.ok()) status = CheckDecimal38(sums_, seen_, "sum");
      exact_.Clear();
    }
    Result<ArrayPtr> out =
        status.ok() ? FixedArray<AccT>(out_type_, sums_, &seen_, pool_) : Result<ArrayPtr>(status);
    Free(sums_);
    Free(seen_);
    return out;
  }

  int64_t memory_size() const override {
    return VectorBytes(sums_) + VectorBytes(seen_) + exact_.memory_size();
  }

 private:
  static constexpr bool kExact = std::is_same_v<AccT, Int128>;

  void Resize(int64_t total_groups) {
    if constexpr (kExact) {
      exact_.Resize(total_groups);
    } else {
      sums_.resize(static_cast<size_t>(total_groups), AccT{0});
    }
    seen_.resize(static_cast<size_t>(total_groups), 0);
  }

  template <typename T>
  Status Add(const Array& values, const uint32_t* group_ids, const Array* filter) {
    const uint8_t* base = ValuesBase(values);
    uint8_t* seen = seen_.data();
    bool overflow = false;
    if constexpr (kExact) {
      if (!exact_.Add<T>(values, group_ids, filter, seen, nullptr, nullptr)) {
        return NumericOverflow("sum");
      }
      return Status::OK();
    } else {
      AccT* sums = sums_.data();
      ForEachSelected(&values, filter, values.length(), [&](int64_t i) {
        const uint32_t g = group_ids[i];
        const auto v = static_cast<AccT>(Load<T>(base, i));
        if constexpr (std::is_floating_point_v<AccT>) {
          sums[g] += v;
        } else {
          overflow |= __builtin_add_overflow(sums[g], v, &sums[g]);
        }
        seen[g] = 1;
      });
      if (overflow) return Status::Invalid("bigint out of range in sum");
      return Status::OK();
    }
  }

  TypePtr out_type_;
  MemoryPool* pool_;
  PoolVector<AccT> sums_;  // all sums but the exact ones; their totals in Evaluate
  ExactSums exact_;
  PoolVector<uint8_t> seen_;
};

// ---------------------------------------------------------------------------------------
// avg

// SumT is double (float inputs) or Int128 (integers and decimals, unscaled at the
// input's scale).
template <typename InT, typename SumT>
class AvgAccumulator final : public GroupsAccumulator {
 public:
  AvgAccumulator(TypePtr sum_type, TypePtr out_type, MemoryPool* pool)
      : sum_type_(std::move(sum_type)), out_type_(std::move(out_type)), pool_(pool) {}

  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(args, 1, "avg"));
    Resize(total_groups);
    const Array& values = *args[0];
    return Add<InT>(values, group_ids, filter, nullptr);
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(states, 2, "avg"));
    Resize(total_groups);
    const uint8_t* counts = ValuesBase(*states[1]);
    return Add<SumT>(*states[0], group_ids, nullptr, counts);
  }

  Result<std::vector<ArrayPtr>> State() override {
    FLOE_RETURN_NOT_OK(TakeSums());
    PoolVector<uint8_t> valid(counts_.size());
    for (size_t g = 0; g < counts_.size(); ++g) valid[g] = counts_[g] > 0;
    if constexpr (kExact) FLOE_RETURN_NOT_OK(CheckDecimal38(sums_, valid, "avg"));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr sums, FixedArray<SumT>(sum_type_, sums_, &valid, pool_));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr counts, FixedArray<int64_t>(Int64(), counts_, nullptr, pool_));
    Reset();
    return std::vector<ArrayPtr>{std::move(sums), std::move(counts)};
  }

  Result<ArrayPtr> Evaluate() override {
    FLOE_RETURN_NOT_OK(TakeSums());
    const size_t n = counts_.size();
    if constexpr (std::is_floating_point_v<SumT>) {
      PoolVector<uint8_t> valid(n);
      PoolVector<SumT> out(n, SumT{0});
      for (size_t g = 0; g < n; ++g) {
        valid[g] = counts_[g] > 0;
        if (valid[g]) out[g] = sums_[g] / static_cast<double>(counts_[g]);
      }
      Reset();
      return FixedArray<SumT>(out_type_, out, &valid, pool_);
    } else {
      // Exact sums: PostgreSQL's numeric division of the sum by the count (its scale).
      FixedSizeBinaryBuilder builder(out_type_, pool_);
      FLOE_RETURN_NOT_OK(builder.Reserve(static_cast<int64_t>(n)));
      for (size_t g = 0; g < n; ++g) {
        if (counts_[g] == 0) {
          FLOE_RETURN_NOT_OK(builder.AppendNull());
          continue;
        }
        if (sums_[g] > kMaxDecimal38 || sums_[g] < -kMaxDecimal38) return NumericOverflow("avg");
        FLOE_ASSIGN_OR_RAISE(NumericValue avg,
                             DivideNumerics(NumericValue::Finite(sums_[g], sum_type_->scale()),
                                            NumericValue::Finite(counts_[g], 0)));
        FLOE_RETURN_NOT_OK(builder.Append(NumericBytes(avg)));
      }
      Reset();
      return builder.Finish();
    }
  }

  int64_t memory_size() const override {
    return VectorBytes(sums_) + VectorBytes(counts_) + exact_.memory_size();
  }

 private:
  static constexpr bool kExact = !std::is_floating_point_v<SumT>;

  void Resize(int64_t total_groups) {
    if constexpr (kExact) {
      exact_.Resize(total_groups);
    } else {
      sums_.resize(static_cast<size_t>(total_groups), SumT{0});
    }
    counts_.resize(static_cast<size_t>(total_groups), 0);
  }
  void Reset() {
    Free(sums_);
    Free(counts_);
    exact_.Clear();
  }
  // Moves the exact sums' totals into sums_.
  Status TakeSums() {
    if constexpr (kExact) {
      if (!exact_.Totals(&sums_)) {
        Reset();
        return NumericOverflow("avg");
      }
    }
    return Status::OK();
  }

  // Adds the selected values (T) into their groups' sums and, into their counts, 1 per row
  // or (when given) the int64 at the row of `count_values`.
  template <typename T>
  Status Add(const Array& values, const uint32_t* group_ids, const Array* filter,
             const uint8_t* count_values) {
    auto count = [count_values](int64_t i) {
      return count_values == nullptr ? int64_t{1} : Load<int64_t>(count_values, i);
    };
    const uint8_t* base = ValuesBase(values);
    int64_t* counts = counts_.data();
    bool overflow = false;
    if constexpr (kExact) {
      if (!exact_.Add<T>(values, group_ids, filter, nullptr, counts, count_values)) {
        overflow = true;
      }
    } else {
      SumT* sums = sums_.data();
      ForEachSelected(&values, filter, values.length(), [&](int64_t i) {
        const uint32_t g = group_ids[i];
        sums[g] += static_cast<SumT>(Load<T>(base, i));
        counts[g] += count(i);
      });
    }
    if (overflow) return NumericOverflow("avg");
    return Status::OK();
  }

  TypePtr sum_type_;
  TypePtr out_type_;
  MemoryPool* pool_;
  PoolVector<SumT> sums_;  // the double sums; the exact ones' totals in State/Evaluate
  ExactSums exact_;
  PoolVector<int64_t> counts_;
};

// ---------------------------------------------------------------------------------------
// sum and avg of numerics (each value with its own scale): the sum keeps the larger scale,
// as PostgreSQL's numeric addition; avg divides it by the count at numeric division's scale.

// A numeric array of one value per group; NULL for a group without values (count 0).
Result<ArrayPtr> NumericArray(const std::vector<NumericValue>& values,
                              const PoolVector<int64_t>& counts, MemoryPool* pool) {
  FixedSizeBinaryBuilder builder(Numeric(), pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(static_cast<int64_t>(values.size())));
  for (size_t g = 0; g < values.size(); ++g) {
    if (counts[g] == 0) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
    } else {
      FLOE_RETURN_NOT_OK(builder.Append(NumericBytes(values[g])));
    }
  }
  return builder.Finish();
}

class NumericSumAccumulator final : public GroupsAccumulator {
 public:
  NumericSumAccumulator(bool average, MemoryPool* pool) : average_(average), pool_(pool) {}

  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(args, 1, Name()));
    return Add(*args[0], group_ids, filter, nullptr, total_groups);
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(states, average_ ? 2 : 1, Name()));
    return Add(*states[0], group_ids, nullptr, average_ ? states[1].get() : nullptr, total_groups);
  }

  Result<std::vector<ArrayPtr>> State() override {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr sums, Values(false));
    std::vector<ArrayPtr> out{std::move(sums)};
    if (average_) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr counts, FixedArray<int64_t>(Int64(), counts_, nullptr, pool_));
      out.push_back(std::move(counts));
    }
    Reset();
    return out;
  }

  Result<ArrayPtr> Evaluate() override {
    Result<ArrayPtr> out = Values(average_);
    Reset();
    return out;
  }

  int64_t memory_size() const override {
    return static_cast<int64_t>(sums_.capacity() * sizeof(NumericValue)) + VectorBytes(counts_);
  }

 private:
  const char* Name() const { return average_ ? "avg" : "sum"; }

  Status Add(const Array& values, const uint32_t* group_ids, const Array* filter,
             const Array* counts, int64_t total_groups) {
    sums_.resize(static_cast<size_t>(total_groups), NumericValue::Finite(0, 0));
    counts_.resize(static_cast<size_t>(total_groups), 0);
    const uint8_t* count_base = counts != nullptr ? ValuesBase(*counts) : nullptr;
    Status status;
    ForEachSelected(&values, filter, values.length(), [&](int64_t i) {
      if (!status.ok()) return;
      const uint32_t g = group_ids[i];
      Result<NumericValue> sum = AddNumerics(sums_[g], NumericFromBytes(values.BytesValue(i)));
      if (!sum.ok()) {
        status = sum.status();
        return;
      }
      sums_[g] = *sum;
      counts_[g] += count_base != nullptr ? Load<int64_t>(count_base, i) : 1;
    });
    return status;
  }

  // The sums (or averages) of the groups; NULL for a group without values.
  Result<ArrayPtr> Values(bool average) {
    if (average) {
      for (size_t g = 0; g < sums_.size(); ++g) {
        if (counts_[g] == 0) continue;
        FLOE_ASSIGN_OR_RAISE(sums_[g],
                             DivideNumerics(sums_[g], NumericValue::Finite(counts_[g], 0)));
      }
    }
    return NumericArray(sums_, counts_, pool_);
  }

  void Reset() {
    std::vector<NumericValue>().swap(sums_);
    Free(counts_);
  }

  bool average_;
  MemoryPool* pool_;
  std::vector<NumericValue> sums_;
  PoolVector<int64_t> counts_;
};

// ---------------------------------------------------------------------------------------
// stddev and variance of exact numbers (as numerics): the count, sum and sum of squares are
// exact, and the result is PostgreSQL's (NumericVariance).

class NumericVarianceAccumulator final : public GroupsAccumulator {
 public:
  NumericVarianceAccumulator(bool sample, bool root, MemoryPool* pool)
      : sample_(sample), root_(root), pool_(pool) {}

  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(args, 1, "variance"));
    Resize(total_groups);
    const Array& values = *args[0];
    Status status;
    ForEachSelected(&values, filter, values.length(), [&](int64_t i) {
      if (status.ok()) status = Add(group_ids[i], NumericFromBytes(values.BytesValue(i)));
    });
    return status;
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(states, 3, "variance"));
    Resize(total_groups);
    const Array& c = *states[0];
    const Array& sum = *states[1];
    const Array& squares = *states[2];
    for (int64_t i = 0; i < c.length(); ++i) {
      if (c.Value<int64_t>(i) == 0 || sum.IsNull(i) || squares.IsNull(i)) continue;
      const uint32_t g = group_ids[i];
      FLOE_ASSIGN_OR_RAISE(sums_[g], AddNumerics(sums_[g], NumericFromBytes(sum.BytesValue(i))));
      FLOE_ASSIGN_OR_RAISE(squares_[g],
                           AddNumerics(squares_[g], NumericFromBytes(squares.BytesValue(i))));
      counts_[g] += c.Value<int64_t>(i);
    }
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State() override {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr counts, FixedArray<int64_t>(Int64(), counts_, nullptr, pool_));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr sums, NumericArray(sums_, counts_, pool_));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr squares, NumericArray(squares_, counts_, pool_));
    Reset();
    return std::vector<ArrayPtr>{std::move(counts), std::move(sums), std::move(squares)};
  }

  Result<ArrayPtr> Evaluate() override {
    FixedSizeBinaryBuilder builder(Numeric(), pool_);
    FLOE_RETURN_NOT_OK(builder.Reserve(static_cast<int64_t>(counts_.size())));
    for (size_t g = 0; g < counts_.size(); ++g) {
      if (counts_[g] <= (sample_ ? 1 : 0)) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      FLOE_ASSIGN_OR_RAISE(NumericValue v,
                           NumericVariance(counts_[g], sums_[g], squares_[g], sample_, root_));
      FLOE_RETURN_NOT_OK(builder.Append(NumericBytes(v)));
    }
    Reset();
    return builder.Finish();
  }

  int64_t memory_size() const override {
    return static_cast<int64_t>((sums_.capacity() + squares_.capacity()) * sizeof(NumericValue)) +
           VectorBytes(counts_);
  }

 private:
  Status Add(uint32_t g, const NumericValue& x) {
    FLOE_ASSIGN_OR_RAISE(NumericValue square, MultiplyNumerics(x, x));
    FLOE_ASSIGN_OR_RAISE(sums_[g], AddNumerics(sums_[g], x));
    FLOE_ASSIGN_OR_RAISE(squares_[g], AddNumerics(squares_[g], square));
    ++counts_[g];
    return Status::OK();
  }

  void Resize(int64_t total_groups) {
    const auto n = static_cast<size_t>(total_groups);
    counts_.resize(n, 0);
    sums_.resize(n, NumericValue::Finite(0, 0));
    squares_.resize(n, NumericValue::Finite(0, 0));
  }
  void Reset() {
    Free(counts_);
    std::vector<NumericValue>().swap(sums_);
    std::vector<NumericValue>().swap(squares_);
  }

  bool sample_;
  bool root_;
  MemoryPool* pool_;
  PoolVector<int64_t> counts_;
  std::vector<NumericValue> sums_;
  std::vector<NumericValue> squares_;
};

// ---------------------------------------------------------------------------------------
// min / max

// Total order of floats as PostgreSQL sorts them: NaN above every number, -0 == 0.
template <typename T>
inline bool Less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// What every min/max accumulator shares: input rows and partial states fold alike
// (Derived::Fold), and the partial state is the result itself.
template <typename Derived, bool kMin>
class MinMaxBase : public GroupsAccumulator {
 public:
  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(args, 1, kMin ? "min" : "max"));
    return static_cast<Derived*>(this)->Fold(*args[0], group_ids, filter, total_groups);
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(states, 1, kMin ? "min" : "max"));
    return static_cast<Derived*>(this)->Fold(*states[0], group_ids, nullptr, total_groups);
  }

  Result<std::vector<ArrayPtr>> State() override {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, Evaluate());
    return std::vector<ArrayPtr>{std::move(a)};
  }
};

// Fixed-width values (integers, floats, decimals, dates, times, timestamps) and booleans
// (T = bool, read from the bitmap).
template <typename T, bool kMin>
class MinMaxAccumulator final : public MinMaxBase<MinMaxAccumulator<T, kMin>, kMin> {
 public:
  MinMaxAccumulator(TypePtr type, MemoryPool* pool) : type_(std::move(type)), pool_(pool) {}

  Result<ArrayPtr> Evaluate() override {
    Result<ArrayPtr> out = [&]() -> Result<ArrayPtr> {
      if constexpr (std::is_same_v<T, bool>) {
        return BoolArray(values_, &seen_, pool_);
      } else {
        return FixedArray<T>(type_, values_, &seen_, pool_);
      }
    }();
    Free(values_);
    Free(seen_);
    return out;
  }

  int64_t memory_size() const override { return VectorBytes(values_) + VectorBytes(seen_); }

 private:
  using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

  friend MinMaxBase<MinMaxAccumulator, kMin>;

  Status Fold(const Array& values, const uint32_t* group_ids, const Array* filter,
              int64_t total_groups) {
    values_.resize(static_cast<size_t>(total_groups), Stored{});
    seen_.resize(static_cast<size_t>(total_groups), 0);
    Stored* out = values_.data();
    uint8_t* seen = seen_.data();
    if constexpr (std::is_same_v<T, bool>) {
      ForEachSelected(&values, filter, values.length(), [&](int64_t i) {
        const uint32_t g = group_ids[i];
        const uint8_t v = values.BoolValue(i) ? 1 : 0;
        if (!seen[g] || (kMin ? v < out[g] : v > out[g])) out[g] = v;
        seen[g] = 1;
      });
    } else {
      const uint8_t* base = ValuesBase(values);
      ForEachSelected(&values, filter, values.length(), [&](int64_t i) {
        const uint32_t g = group_ids[i];
        const T v = Load<T>(base, i);
        if (!seen[g] || (kMin ? Less(v, out[g]) : Less(out[g], v))) out[g] = v;
        seen[g] = 1;
      });
    }
    return Status::OK();
  }

  TypePtr type_;
  MemoryPool* pool_;
  PoolVector<Stored> values_;
  PoolVector<uint8_t> seen_;
};

// Strings, binary, fixed and uuid: byte-wise order (the C collation).
template <bool kMin>
class MinMaxBytesAccumulator final : public MinMaxBase<MinMaxBytesAccumulator<kMin>, kMin> {
 public:
  MinMaxBytesAccumulator(TypePtr type, MemoryPool* pool) : type_(std::move(type)), pool_(pool) {}

  Result<ArrayPtr> Evaluate() override {
    auto out = BytesArray(type_, values_, seen_, pool_);
    Free(values_);
    Free(seen_);
    bytes_ = 0;
    return out;
  }

  int64_t memory_size() const override {
    return VectorBytes(values_) + VectorBytes(seen_) + bytes_;
  }

 private:
  friend MinMaxBase<MinMaxBytesAccumulator, kMin>;

  Status Fold(const Array& values, const uint32_t* group_ids, const Array* filter,
              int64_t total_groups) {
    values_.resize(static_cast<size_t>(total_groups));
    seen_.resize(static_cast<size_t>(total_groups), 0);
    ForEachSelected(&values, filter, values.length(), [&](int64_t i) {
      const uint32_t g = group_ids[i];
      const std::string_view v = values.BytesValue(i);
      std::string& cur = values_[g];
      if (!seen_[g] || (kMin ? Less(v, cur) : Less(cur, v))) {
        bytes_ += static_cast<int64_t>(v.size()) - static_cast<int64_t>(cur.size());
        cur.assign(v);
      }
      seen_[g] = 1;
    });
    return Status::OK();
  }

  // Bytes in their order; intervals by span (a month is 30 days) and numerics by value,
  // as they compare.
  bool Less(std::string_view a, std::string_view b) const {
    if (value_key_) return CompareByValueKey(*type_, a, b) < 0;
    return a < b;
  }

  TypePtr type_;
  MemoryPool* pool_;
  bool value_key_ = HasValueKey(*type_);
  std::vector<std::string> values_;
  PoolVector<uint8_t> seen_;
  int64_t bytes_ = 0;
};

// Arrays: PostgreSQL's array order (MakeElementCompare: element by element, NULL elements
// last, a shorter prefix first). Each group keeps its extreme as a one-row copy.
template <bool kMin>
class MinMaxListAccumulator final : public MinMaxBase<MinMaxListAccumulator<kMin>, kMin> {
 public:
  MinMaxListAccumulator(TypePtr type, MemoryPool* pool) : type_(std::move(type)), pool_(pool) {}

  Result<ArrayPtr> Evaluate() override {
    std::unique_ptr<ArrayBuilder> nulls = MakeBuilder(type_, pool_);
    FLOE_RETURN_NOT_OK(nulls->AppendNull());
    FLOE_ASSIGN_OR_RAISE(ArrayPtr null_row, nulls->Finish());
    std::vector<ArrayPtr> rows;
    rows.reserve(best_.size());
    for (ArrayPtr& row : best_) rows.push_back(row != nullptr ? std::move(row) : null_row);
    best_.clear();
    bytes_ = 0;
    if (rows.empty()) return MakeBuilder(type_, pool_)->Finish();
    return ConcatenateArrays(rows, pool_);
  }

  int64_t memory_size() const override {
    return static_cast<int64_t>(best_.capacity() * sizeof(ArrayPtr)) + bytes_;
  }

 private:
  friend MinMaxBase<MinMaxListAccumulator, kMin>;

  Status Fold(const Array& values, const uint32_t* group_ids, const Array* filter,
              int64_t total_groups) {
    best_.resize(static_cast<size_t>(total_groups));
    // The batch's extreme row per group first, then one comparison with the group's kept one.
    FLOE_ASSIGN_OR_RAISE(internal::ElementCompare within,
                         internal::MakeElementCompare(values, values));
    std::vector<std::pair<uint32_t, int64_t>> picks;
    pick_.resize(static_cast<size_t>(total_groups), -1);
    ForEachSelected(&values, filter, values.length(), [&](int64_t i) {
      const uint32_t g = group_ids[i];
      int64_t& p = pick_[g];
      if (p < 0) {
        p = i;
        picks.emplace_back(g, 0);
      } else if (kMin ? within(i, p) < 0 : within(i, p) > 0) {
        p = i;
      }
    });
    for (auto& [g, row] : picks) {
      row = pick_[g];
      pick_[g] = -1;
      if (best_[g] != nullptr) {
        FLOE_ASSIGN_OR_RAISE(internal::ElementCompare against,
                             internal::MakeElementCompare(values, *best_[g]));
        const int c = against(row, 0);
        if (kMin ? c >= 0 : c <= 0) continue;
        bytes_ -= RowBytes(*best_[g]);
      }
      FLOE_ASSIGN_OR_RAISE(best_[g], TakeArray(values, &row, 1, pool_));
      bytes_ += RowBytes(*best_[g]);
    }
    return Status::OK();
  }

  static int64_t RowBytes(const Array& a) {
    int64_t n = 0;
    for (const BufferPtr& b : a.buffers()) n += b != nullptr ? b->size() : 0;
    for (const ArrayPtr& c : a.children()) n += c != nullptr ? RowBytes(*c) : 0;
    return n;
  }

  TypePtr type_;
  MemoryPool* pool_;
  std::vector<ArrayPtr> best_;
  std::vector<int64_t> pick_;
  int64_t bytes_ = 0;
};

// ---------------------------------------------------------------------------------------
// bool_and / bool_or

template <bool kAnd>
class BoolAccumulator final : public GroupsAccumulator {
 public:
  explicit BoolAccumulator(MemoryPool* pool) : pool_(pool) {}

  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(args, 1, kAnd ? "bool_and" : "bool_or"));
    Fold(*args[0], group_ids, filter, total_groups);
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(states, 1, kAnd ? "bool_and" : "bool_or"));
    Fold(*states[0], group_ids, nullptr, total_groups);
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State() override {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, Evaluate());
    return std::vector<ArrayPtr>{std::move(a)};
  }

  Result<ArrayPtr> Evaluate() override {
    auto out = BoolArray(values_, &seen_, pool_);
    Free(values_);
    Free(seen_);
    return out;
  }

  int64_t memory_size() const override { return VectorBytes(values_) + VectorBytes(seen_); }

 private:
  void Fold(const Array& values, const uint32_t* group_ids, const Array* filter,
            int64_t total_groups) {
    values_.resize(static_cast<size_t>(total_groups), kAnd ? 1 : 0);
    seen_.resize(static_cast<size_t>(total_groups), 0);
    uint8_t* out = values_.data();
    uint8_t* seen = seen_.data();
    ForEachSelected(&values, filter, values.length(), [&](int64_t i) {
      const uint32_t g = group_ids[i];
      const uint8_t v = values.BoolValue(i) ? 1 : 0;
      out[g] = kAnd ? (out[g] & v) : (out[g] | v);
      seen[g] = 1;
    });
  }

  MemoryPool* pool_;
  PoolVector<uint8_t> values_;
  PoolVector<uint8_t> seen_;
};

// ---------------------------------------------------------------------------------------
// string_agg(value, delimiter): v1 || d2 || v2 || d3 || v3 ... (each row's delimiter
// precedes its value). The partial state keeps the delimiter of its first row so that
// merging two partials joins them with it.

class StringAggAccumulator final : public GroupsAccumulator {
 public:
  StringAggAccumulator(TypePtr type, MemoryPool* pool) : type_(std::move(type)), pool_(pool) {}

  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(args, 2, "string_agg"));
    Fold(*args[0], *args[1], group_ids, filter, total_groups);
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(states, 2, "string_agg"));
    Fold(*states[0], *states[1], group_ids, nullptr, total_groups);
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State() override {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr values, BytesArray(type_, values_, seen_, pool_));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr delimiters, BytesArray(type_, first_delimiters_, seen_, pool_));
    Reset();
    return std::vector<ArrayPtr>{std::move(values), std::move(delimiters)};
  }

  Result<ArrayPtr> Evaluate() override {
    auto out = BytesArray(type_, values_, seen_, pool_);
    Reset();
    return out;
  }

  int64_t memory_size() const override {
    return VectorBytes(values_) + VectorBytes(first_delimiters_) + VectorBytes(seen_) + bytes_;
  }

 private:
  void Fold(const Array& values, const Array& delimiters, const uint32_t* group_ids,
            const Array* filter, int64_t total_groups) {
    values_.resize(static_cast<size_t>(total_groups));
    first_delimiters_.resize(static_cast<size_t>(total_groups));
    seen_.resize(static_cast<size_t>(total_groups), 0);
    ForEachSelected(&values, filter, values.length(), [&](int64_t i) {
      const uint32_t g = group_ids[i];
      // A NULL delimiter joins without a separator (PostgreSQL).
      const std::string_view d =
          delimiters.IsNull(i) ? std::string_view() : delimiters.BytesValue(i);
      const std::string_view v = values.BytesValue(i);
      std::string& cur = values_[g];
      const auto before = static_cast<int64_t>(cur.size() + first_delimiters_[g].size());
      if (!seen_[g]) {
        first_delimiters_[g].assign(d);
        cur.assign(v);
        seen_[g] = 1;
      } else {
        cur.append(d);
        cur.append(v);
      }
      bytes_ += static_cast<int64_t>(cur.size() + first_delimiters_[g].size()) - before;
    });
  }

  void Reset() {
    Free(values_);
    Free(first_delimiters_);
    Free(seen_);
    bytes_ = 0;
  }

  TypePtr type_;
  MemoryPool* pool_;
  std::vector<std::string> values_;
  std::vector<std::string> first_delimiters_;
  PoolVector<uint8_t> seen_;
  int64_t bytes_ = 0;
};

// ---------------------------------------------------------------------------------------
// array_agg(value): every row's value, NULLs included, in the order the rows arrive (an
// ORDER BY inside the call has the planner feed them sorted). The values are kept in one
// column and each group lists its rows in it; the partial state is the list itself. Arrays
// as values make one dimension more, as in PostgreSQL, which refuses NULL and empty ones and
// arrays of different dimensions.

class ArrayAggAccumulator final : public GroupsAccumulator {
 public:
  ArrayAggAccumulator(TypePtr list_type, MemoryPool* pool)
      : list_type_(std::move(list_type)), pool_(pool) {
    Reset();
  }

  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(args, 1, "array_agg"));
    rows_.resize(static_cast<size_t>(total_groups));
    const Array& values = *args[0];
    const bool arrays = values.type_id() == TypeId::kList;
    for (int64_t i = 0; i < values.length(); ++i) {
      if (!FilterPasses(filter, i)) continue;
      if (arrays) FLOE_RETURN_NOT_OK(CheckSubArray(values, i, group_ids[i]));
      FLOE_RETURN_NOT_OK(Add(values, i, group_ids[i]));
    }
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(states, 1, "array_agg"));
    rows_.resize(static_cast<size_t>(total_groups));
    const Array& lists = *states[0];
    const Array& elements = *lists.child(0);
    const bool arrays = elements.type_id() == TypeId::kList;
    for (int64_t i = 0; i < lists.length(); ++i) {
      if (lists.IsNull(i)) continue;
      for (int64_t j = lists.ListBegin(i); j < lists.ListEnd(i); ++j) {
        if (arrays) FLOE_RETURN_NOT_OK(CheckSubArray(elements, j, group_ids[i]));
        FLOE_RETURN_NOT_OK(Add(elements, j, group_ids[i]));
      }
    }
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State() override {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr lists, Lists());
    return std::vector<ArrayPtr>{std::move(lists)};
  }

  Result<ArrayPtr> Evaluate() override { return Lists(); }

  int64_t memory_size() const override { return bytes_; }

 private:
  Status Add(const Array& values, int64_t i, uint32_t g) {
    rows_[g].push_back(values_->length());
    FLOE_RETURN_NOT_OK(values_->AppendArraySlice(values, i, 1));
    // The value's own bytes, roughly, and its row number.
    bytes_ += 8 + (values.length() > 0 ? values.memory_size() / values.length() : 0);
    return Status::OK();
  }

  // PostgreSQL's rules for accumulating arrays: none NULL or empty, all of one shape.
  Status CheckSubArray(const Array& values, int64_t i, uint32_t g) {
    if (values.IsNull(i)) return Status::Invalid("cannot accumulate null arrays");
    const int64_t len = values.ListEnd(i) - values.ListBegin(i);
    if (len == 0) return Status::Invalid("cannot accumulate empty arrays");
    lengths_.resize(rows_.size(), -1);
    int64_t& expected = lengths_[g];
    if (expected >= 0 && expected != len) {
      return Status::Invalid("cannot accumulate arrays of different dimensionality");
    }
    expected = len;
    return Status::OK();
  }

  Result<ArrayPtr> Lists() {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr values, values_->Finish());
    ListBuilder out(list_type_, pool_);
    FLOE_RETURN_NOT_OK(out.Reserve(static_cast<int64_t>(rows_.size())));
    for (const std::vector<int64_t>& rows : rows_) {
      if (rows.empty()) {
        FLOE_RETURN_NOT_OK(out.AppendNull());
        continue;
      }
      FLOE_RETURN_NOT_OK(out.Append());
      FLOE_RETURN_NOT_OK(out.value_builder()->AppendIndices(*values, rows.data(),
                                                            static_cast<int64_t>(rows.size())));
    }
    Reset();
    return out.Finish();
  }

  void Reset() {
    values_ = MakeBuilder(list_type_->field(0).type(), pool_);
    rows_.clear();
    rows_.shrink_to_fit();
    lengths_.clear();
    bytes_ = 0;
  }

  TypePtr list_type_;
  MemoryPool* pool_;
  std::unique_ptr<ArrayBuilder> values_;
  std::vector<std::vector<int64_t>> rows_;
  std::vector<int64_t> lengths_;
  int64_t bytes_ = 0;
};

// ---------------------------------------------------------------------------------------
// var_samp / var_pop / stddev_samp / stddev_pop: Welford's running mean and sum of
// squared deviations; partial states merge with Chan et al.'s formula.

enum class VarianceKind { kVarSamp, kVarPop, kStddevSamp, kStddevPop };

class VarianceAccumulator final : public GroupsAccumulator {
 public:
  VarianceAccumulator(VarianceKind kind, MemoryPool* pool) : kind_(kind), pool_(pool) {}

  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(args, 1, "variance"));
    Resize(total_groups);
    const Array& values = *args[0];
    const uint8_t* base = ValuesBase(values);
    int64_t* counts = counts_.data();
    double* means = means_.data();
    double* m2s = m2s_.data();
    ForEachSelected(&values, filter, values.length(), [&](int64_t i) {
      const uint32_t g = group_ids[i];
      const double x = Load<double>(base, i);
      const int64_t n = ++counts[g];
      const double delta = x - means[g];
      means[g] += delta / static_cast<double>(n);
      m2s[g] += delta * (x - means[g]);
    });
    return Status::OK();
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(states, 3, "variance"));
    Resize(total_groups);
    const Array& c = *states[0];
    const Array& m = *states[1];
    const Array& q = *states[2];
    for (int64_t i = 0; i < c.length(); ++i) {
      const int64_t nb = c.Value<int64_t>(i);
      if (nb == 0 || m.IsNull(i) || q.IsNull(i)) continue;
      const uint32_t g = group_ids[i];
      const double mb = m.Value<double>(i);
      const double qb = q.Value<double>(i);
      const int64_t na = counts_[g];
      const int64_t n = na + nb;
      const double delta = mb - means_[g];
      means_[g] += delta * static_cast<double>(nb) / static_cast<double>(n);
      m2s_[g] += qb + delta * delta * static_cast<double>(na) * static_cast<double>(nb) /
                          static_cast<double>(n);
      counts_[g] = n;
    }
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State() override {
    PoolVector<uint8_t> valid(counts_.size());
    for (size_t g = 0; g < counts_.size(); ++g) valid[g] = counts_[g] > 0;
    FLOE_ASSIGN_OR_RAISE(ArrayPtr counts, FixedArray<int64_t>(Int64(), counts_, nullptr, pool_));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr means, FixedArray<double>(Float64(), means_, &valid, pool_));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr m2s, FixedArray<double>(Float64(), m2s_, &valid, pool_));
    Reset();
    return std::vector<ArrayPtr>{std::move(counts), std::move(means), std::move(m2s)};
  }

  Result<ArrayPtr> Evaluate() override {
    const size_t n = counts_.size();
    PoolVector<double> out(n, 0.0);
    PoolVector<uint8_t> valid(n, 0);
    const bool sample = kind_ == VarianceKind::kVarSamp || kind_ == VarianceKind::kStddevSamp;
    const bool root = kind_ == VarianceKind::kStddevSamp || kind_ == VarianceKind::kStddevPop;
    for (size_t g = 0; g < n; ++g) {
      const int64_t c = counts_[g];
      const int64_t denominator = sample ? c - 1 : c;
      if (denominator <= 0) continue;
      double v = m2s_[g] / static_cast<double>(denominator);
      if (v < 0) v = 0;  // rounding
      out[g] = root ? std::sqrt(v) : v;
      valid[g] = 1;
    }
    Reset();
    return FixedArray<double>(Float64(), out, &valid, pool_);
  }

  int64_t memory_size() const override {
    return VectorBytes(counts_) + VectorBytes(means_) + VectorBytes(m2s_);
  }

 private:
  void Resize(int64_t total_groups) {
    counts_.resize(static_cast<size_t>(total_groups), 0);
    means_.resize(static_cast<size_t>(total_groups), 0.0);
    m2s_.resize(static_cast<size_t>(total_groups), 0.0);
  }
  void Reset() {
    Free(counts_);
    Free(means_);
    m2s_ = {};
  }

  VarianceKind kind_;
  MemoryPool* pool_;
  PoolVector<int64_t> counts_;
  PoolVector<double> means_;
  PoolVector<double> m2s_;
};

// ---------------------------------------------------------------------------------------
// DISTINCT: a set of (group, argument tuple) keys; the distinct tuples are kept in
// builders (one per argument) with their group, and fed to the plain aggregate at the
// end. The partial state is one list per argument (aligned) of the group's distinct
// tuples; merging unions them.

// Appends a byte encoding of value i that is equal exactly for values DISTINCT treats as
// equal (-0.0 and 0.0 are equal, all NaNs are equal).
void AppendKey(const Array& a, int64_t i, std::string* key) {
  if (a.IsNull(i)) {
    key->push_back('\0');
    return;
  }
  key->push_back('\1');
  if (HasValueKey(*a.type())) {
    // By value: '1 mon' and '30 days', 1.5 and 1.50 are one distinct value, as PostgreSQL
    // counts them.
    uint8_t k[kNumericBytes];
    const std::string_view v = a.BytesValue(i);
    StoreValueKey(*a.type(), v, k);
    key->append(reinterpret_cast<const char*>(k), v.size());
    return;
  }
  VisitPhysicalType(a.type_id(), [&]<typename T>(TypeTag<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      key->push_back(a.BoolValue(i) ? '\1' : '\0');
    } else if constexpr (std::is_floating_point_v<T>) {
      // -0 and 0 are one value, and so are all NaNs.
      T v = a.Value<T>(i);
      if (v == 0) v = 0;
      if (std::isnan(v)) v = std::numeric_limits<T>::quiet_NaN();
      key->append(reinterpret_cast<const char*>(&v), sizeof(v));
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      // Strings and binary with their length; fixed-width bytes as they are.
      const std::string_view v = a.BytesValue(i);
      if (a.type()->is_binary_like()) {
        const auto len = static_cast<uint32_t>(v.size());
        key->append(reinterpret_cast<const char*>(&len), sizeof(len));
      }
      key->append(v);
    } else if constexpr (std::is_same_v<T, Int128>) {
      const Int128 v = a.DecimalValue(i);
      key->append(reinterpret_cast<const char*>(&v), sizeof(v));
    } else if constexpr (!std::is_void_v<T>) {
      const T v = a.Value<T>(i);
      key->append(reinterpret_cast<const char*>(&v), sizeof(v));
    }
  });
}

class DistinctAccumulator final : public GroupsAccumulator {
 public:
  DistinctAccumulator(ResolvedAggregate aggregate, std::unique_ptr<GroupsAccumulator> inner,
                      MemoryPool* pool)
      : aggregate_(std::move(aggregate)), inner_(std::move(inner)), pool_(pool) {
    Reset();
  }

  Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids, const Array* filter,
                int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(args, aggregate_.arg_types.size(), aggregate_.name));
    num_groups_ = std::max(num_groups_, total_groups);
    std::vector<const Array*> columns;
    for (const auto& a : args) columns.push_back(a.get());
    Status status;
    // Rows whose first argument is NULL are ignored, as the plain aggregates ignore them.
    ForEachSelected(args[0].get(), filter, args[0]->length(), [&](int64_t i) {
      if (status.ok()) status = Insert(columns, i, group_ids[i]);
    });
    return status;
  }

  Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
               int64_t total_groups) override {
    FLOE_RETURN_NOT_OK(CheckArgs(states, aggregate_.arg_types.size(), aggregate_.name));
    num_groups_ = std::max(num_groups_, total_groups);
    std::vector<const Array*> elements;
    for (const auto& s : states) elements.push_back(s->child(0).get());
    const Array& lists = *states[0];
    for (int64_t r = 0; r < lists.length(); ++r) {
      if (lists.IsNull(r)) continue;
      for (int64_t j = lists.ListBegin(r); j < lists.ListEnd(r); ++j) {
        FLOE_RETURN_NOT_OK(Insert(elements, j, group_ids[r]));
      }
    }
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> State() override {
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> values, FinishValues());
    // Order the distinct tuples by group (a counting sort keeps first-seen order within
    // each group) and cut them into one list per group.
    const auto groups = static_cast<size_t>(num_groups_);
    FLOE_ASSIGN_OR_RAISE(auto offsets_buffer, Buffer::AllocateZeroed((num_groups_ + 1) * 4, pool_));
    auto* offsets = reinterpret_cast<int32_t*>(offsets_buffer->mutable_data());
    std::vector<int64_t> starts(groups + 1, 0);
    for (uint32_t g : value_groups_) ++starts[g + 1];
    for (size_t g = 0; g < groups; ++g) starts[g + 1] += starts[g];
    for (size_t g = 0; g <= groups; ++g) offsets[g] = static_cast<int32_t>(starts[g]);
    std::vector<int64_t> order(value_groups_.size());
    for (size_t v = 0; v < value_groups_.size(); ++v) {
      order[static_cast<size_t>(starts[value_groups_[v]]++)] = static_cast<int64_t>(v);
    }
    std::vector<ArrayPtr> out;
    BufferPtr shared_offsets(std::move(offsets_buffer));
    for (size_t k = 0; k < values.size(); ++k) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr sorted, TakeArray(*values[k], order.data(),
                                                      static_cast<int64_t>(order.size()), pool_));
      FLOE_ASSIGN_OR_RAISE(ArrayPtr list,
                           Array::Make(aggregate_.state_fields[k].type(), num_groups_,
                                       {BufferPtr(), shared_offsets}, {std::move(sorted)}, 0));
      out.push_back(std::move(list));
    }
    Reset();
    return out;
  }

  Result<ArrayPtr> Evaluate() override {
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> values, FinishValues());
    std::vector<uint32_t> groups = std::move(value_groups_);
    const int64_t num_groups = num_groups_;
    Reset();
    FLOE_RETURN_NOT_OK(inner_->Update(values, groups.data(), nullptr, num_groups));
    return inner_->Evaluate();
  }

  int64_t memory_size() const override {
    int64_t builders = 0;
    for (const auto& b : builders_) {
      const int width = b->type()->byte_width();
      builders += b->length() * (width > 0 ? width : 1);
    }
    return key_bytes_ + builders + VectorBytes(value_groups_) + inner_->memory_size();
  }

 private:
  Status Insert(const std::vector<const Array*>& columns, int64_t i, uint32_t group) {
    key_.assign(reinterpret_cast<const char*>(&group), sizeof(group));
    for (const Array* c : columns) AppendKey(*c, i, &key_);
    if (!keys_.insert(key_).second) return Status::OK();
    // Roughly what a node of the set costs besides the key's bytes.
    key_bytes_ += static_cast<int64_t>(key_.size()) + 48;
    for (size_t k = 0; k < columns.size(); ++k) {
      FLOE_RETURN_NOT_OK(builders_[k]->AppendArraySlice(*columns[k], i, 1));
      if (columns[k]->type()->is_binary_like()) {
        key_bytes_ +=
            static_cast<int64_t>(columns[k]->IsNull(i) ? 0 : columns[k]->BytesValue(i).size());
      }
    }
    value_groups_.push_back(group);
    return Status::OK();
  }

  Result<std::vector<ArrayPtr>> FinishValues() {
    std::vector<ArrayPtr> values;
    for (auto& b : builders_) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr a, b->Finish());
      values.push_back(std::move(a));
    }
    return values;
  }

  void Reset() {
    builders_.clear();
    for (const TypePtr& t : aggregate_.arg_types) builders_.push_back(MakeBuilder(t, pool_));
    Free(keys_);
    Free(value_groups_);
    key_bytes_ = 0;
    num_groups_ = 0;
  }

  ResolvedAggregate aggregate_;
  std::unique_ptr<GroupsAccumulator> inner_;
  MemoryPool* pool_;
  std::vector<std::unique_ptr<ArrayBuilder>> builders_;
  std::unordered_set<std::string> keys_;
  std::vector<uint32_t> value_groups_;
  std::string key_;
  int64_t key_bytes_ = 0;
  int64_t num_groups_ = 0;
};

// ---------------------------------------------------------------------------------------
// Construction

Status Unsupported(const ResolvedAggregate& aggregate) {
  return Status::NotSupported("no accumulator for {}",
                              internal::SignatureText(aggregate.name, aggregate.arg_types));
}

template <bool kMin>
Result<std::unique_ptr<GroupsAccumulator>> MakeMinMax(const ResolvedAggregate& aggregate,
                                                      MemoryPool* pool) {
  const TypePtr& t = aggregate.arg_types[0];
  if (t->id() == TypeId::kList) return std::make_unique<MinMaxListAccumulator<kMin>>(t, pool);
  return VisitPhysicalType(
      t->id(), [&]<typename T>(TypeTag<T>) -> Result<std::unique_ptr<GroupsAccumulator>> {
        if constexpr (std::is_void_v<T>) {
          return Unsupported(aggregate);
        } else if constexpr (std::is_same_v<T, std::string_view>) {
          return std::make_unique<MinMaxBytesAccumulator<kMin>>(t, pool);
        } else {
          return std::make_unique<MinMaxAccumulator<T, kMin>>(t, pool);
        }
      });
}

Result<std::unique_ptr<GroupsAccumulator>> MakeSum(const ResolvedAggregate& aggregate,
                                                   MemoryPool* pool) {
  const TypePtr& out = aggregate.return_type;
  if (aggregate.arg_types[0]->is_numeric())
    return std::make_unique<NumericSumAccumulator>(false, pool);
  std::unique_ptr<GroupsAccumulator> acc;
  switch (aggregate.arg_types[0]->id()) {
    case TypeId::kInt8:
      acc = std::make_unique<SumAccumulator<int8_t, int64_t>>(out, pool);
      break;
    case TypeId::kInt16:
      acc = std::make_unique<SumAccumulator<int16_t, int64_t>>(out, pool);
      break;
    case TypeId::kInt32:
      acc = std::make_unique<SumAccumulator<int32_t, int64_t>>(out, pool);
      break;
    case TypeId::kInt64:
      acc = std::make_unique<SumAccumulator<int64_t, Int128>>(out, pool);
      break;
    case TypeId::kDecimal:
      acc = std::make_unique<SumAccumulator<Int128, Int128>>(out, pool);
      break;
    case TypeId::kFloat32:
      acc = std::make_unique<SumAccumulator<float, float>>(out, pool);
      break;
    case TypeId::kFloat64:
      acc = std::make_unique<SumAccumulator<double, double>>(out, pool);
      break;
    default:
      return Unsupported(aggregate);
  }
  return acc;
}

Result<std::unique_ptr<GroupsAccumulator>> MakeAvg(const ResolvedAggregate& aggregate,
                                                   MemoryPool* pool) {
  const TypePtr& out = aggregate.return_type;
  const TypePtr& in = aggregate.arg_types[0];
  if (in->is_numeric()) return std::make_unique<NumericSumAccumulator>(true, pool);
  const TypePtr exact_sum = Decimal(38, in->id() == TypeId::kDecimal ? in->scale() : 0);
  std::unique_ptr<GroupsAccumulator> acc;
  switch (in->id()) {
    case TypeId::kInt8:
      acc = std::make_unique<AvgAccumulator<int8_t, Int128>>(exact_sum, out, pool);
      break;
    case TypeId::kInt16:
      acc = std::make_unique<AvgAccumulator<int16_t, Int128>>(exact_sum, out, pool);
      break;
    case TypeId::kInt32:
      acc = std::make_unique<AvgAccumulator<int32_t, Int128>>(exact_sum, out, pool);
      break;
    case TypeId::kInt64:
      acc = std::make_unique<AvgAccumulator<int64_t, Int128>>(exact_sum, out, pool);
      break;
    case TypeId::kDecimal:
      acc = std::make_unique<AvgAccumulator<Int128, Int128>>(exact_sum, out, pool);
      break;
    case TypeId::kFloat32:
      acc = std::make_unique<AvgAccumulator<float, double>>(Float64(), out, pool);
      break;
    case TypeId::kFloat64:
      acc = std::make_unique<AvgAccumulator<double, double>>(Float64(), out, pool);
      break;
    default:
      return Unsupported(aggregate);
  }
  return acc;
}

Result<std::unique_ptr<GroupsAccumulator>> MakePlain(const ResolvedAggregate& aggregate,
                                                     MemoryPool* pool) {
  const std::optional<internal::AggregateOp> op = internal::FindAggregateOp(aggregate.name);
  if (!op) return Unsupported(aggregate);
  if (*op == internal::AggregateOp::kCountStar) {
    return std::make_unique<CountAccumulator>(true, pool);
  }
  if (aggregate.arg_types.empty() || !aggregate.arg_types[0]) return Unsupported(aggregate);
  switch (*op) {
    case internal::AggregateOp::kCountStar:
    case internal::AggregateOp::kCount:
      return std::make_unique<CountAccumulator>(false, pool);
    case internal::AggregateOp::kSum:
      return MakeSum(aggregate, pool);
    case internal::AggregateOp::kAvg:
      return MakeAvg(aggregate, pool);
    case internal::AggregateOp::kMin:
      return MakeMinMax<true>(aggregate, pool);
    case internal::AggregateOp::kMax:
      return MakeMinMax<false>(aggregate, pool);
    case internal::AggregateOp::kBoolAnd:
      return std::make_unique<BoolAccumulator<true>>(pool);
    case internal::AggregateOp::kBoolOr:
      return std::make_unique<BoolAccumulator<false>>(pool);
    case internal::AggregateOp::kStringAgg:
      if (aggregate.arg_types.size() != 2) return Unsupported(aggregate);
      return std::make_unique<StringAggAccumulator>(aggregate.return_type, pool);
    case internal::AggregateOp::kJsonAgg:
    case internal::AggregateOp::kJsonbAgg:
    case internal::AggregateOp::kJsonObjectAgg:
    case internal::AggregateOp::kJsonbObjectAgg:
      return internal::MakeJsonAggAccumulator(
          *op == internal::AggregateOp::kJsonObjectAgg ||
              *op == internal::AggregateOp::kJsonbObjectAgg,
          aggregate.return_type->extension() == Extension::kJsonb, aggregate.return_type, pool);
    case internal::AggregateOp::kArrayAgg:
      return std::make_unique<ArrayAggAccumulator>(aggregate.return_type, pool);
    case internal::AggregateOp::kVarSamp:
    case internal::AggregateOp::kVarPop:
    case internal::AggregateOp::kStddevSamp:
    case internal::AggregateOp::kStddevPop:
      break;
  }
  if (aggregate.return_type->is_numeric()) {
    const bool sample =
        *op == internal::AggregateOp::kVarSamp || *op == internal::AggregateOp::kStddevSamp;
    const bool root =
        *op == internal::AggregateOp::kStddevSamp || *op == internal::AggregateOp::kStddevPop;
    return std::make_unique<NumericVarianceAccumulator>(sample, root, pool);
  }
  if (aggregate.arg_types[0]->id() != TypeId::kFloat64) return Unsupported(aggregate);
  switch (*op) {
    case internal::AggregateOp::kVarSamp:
      return std::make_unique<VarianceAccumulator>(VarianceKind::kVarSamp, pool);
    case internal::AggregateOp::kVarPop:
      return std::make_unique<VarianceAccumulator>(VarianceKind::kVarPop, pool);
    case internal::AggregateOp::kStddevSamp:
      return std::make_unique<VarianceAccumulator>(VarianceKind::kStddevSamp, pool);
    default:
      return std::make_unique<VarianceAccumulator>(VarianceKind::kStddevPop, pool);
  }
}

}  // namespace

Result<std::unique_ptr<GroupsAccumulator>> MakeGroupsAccumulator(const ResolvedAggregate& aggregate,
                                                                 MemoryPool* pool) {
  if (pool == nullptr) pool = DefaultMemoryPool();
  if (!aggregate.distinct) return MakePlain(aggregate, pool);
  if (aggregate.arg_types.empty()) return Unsupported(aggregate);
  for (const TypePtr& t : aggregate.arg_types) {
    // The distinct-set key encodes scalar values only.
    if (!t || t->is_nested()) {
      return Status::NotSupported("{}(DISTINCT ...) over {} is not supported", aggregate.name,
                                  t ? t->ToString() : "an untyped value");
    }
  }
  ResolvedAggregate plain = aggregate;
  plain.distinct = false;
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<GroupsAccumulator> inner, MakePlain(plain, pool));
  return std::unique_ptr<GroupsAccumulator>(
      std::make_unique<DistinctAccumulator>(aggregate, std::move(inner), pool));
}

}  // namespace floe::expr
