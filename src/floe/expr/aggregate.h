#pragma once

// Vectorized aggregate state for hash aggregation. One GroupsAccumulator holds the state
// of one aggregate for every group of one hash table; the caller maps each input row to
// a dense group index and passes the indices with the batch.
//
//   partial phase:  Update(args) ... then State() -> the state columns (state_fields)
//   final phase:    Merge(state columns) ... then Evaluate() -> the result column
//   single phase:   Update(args) ... then Evaluate()
//
// Groups are numbered 0..num_groups-1 in order of first appearance; `total_groups` grows
// monotonically between calls. Every accumulator reports its memory so the aggregation
// can spill or fail with kOutOfMemory.

#include <cstdint>
#include <memory>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"
#include "floe/expr/function_registry.h"

namespace floe::expr {

class GroupsAccumulator {
 public:
  virtual ~GroupsAccumulator() = default;

  /// Folds rows into their groups. `args` are the evaluated arguments (already cast to
  /// ResolvedAggregate::arg_types), `group_ids[i]` the group of row i, `filter` (nullable)
  /// a boolean array: rows where it is not true are skipped (FILTER (WHERE ...)).
  /// An aggregate without arguments (count_star) learns the batch's row count from
  /// `args[0]` when given (any array of the batch's length; only its length is read),
  /// else from `filter`; the caller passes one of them (e.g. the first input column).
  virtual Status Update(const std::vector<ArrayPtr>& args, const uint32_t* group_ids,
                        const Array* filter, int64_t total_groups) = 0;
  /// Folds partial states (columns shaped as state_fields) into their groups.
  virtual Status Merge(const std::vector<ArrayPtr>& states, const uint32_t* group_ids,
                       int64_t total_groups) = 0;
  /// The partial state of every group (one array per state field, num_groups rows), and
  /// resets the accumulator.
  virtual Result<std::vector<ArrayPtr>> State() = 0;
  /// The final value of every group (num_groups rows), and resets the accumulator.
  /// Overflow (sum of int64 past numeric range) is kInvalidArgument.
  virtual Result<ArrayPtr> Evaluate() = 0;
  /// Bytes held.
  virtual int64_t memory_size() const = 0;
};

/// A fresh accumulator for `aggregate`.
Result<std::unique_ptr<GroupsAccumulator>> MakeGroupsAccumulator(
    const ResolvedAggregate& aggregate, MemoryPool* pool);

}  // namespace floe::expr
