#pragma once

// Dynamic join filters: what a broadcast hash join's build side holds of one join key,
// published on the query's TaskContext once its table is built, for the scans below the
// join's probe side to skip the rows (and row groups, pages) whose key cannot match. The
// build side is complete before the probe side's scans open (the join builds first, then
// opens its probe input), and a scan that finds no filter reads everything: the filter only
// ever drops rows the join would drop.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/scalar.h"
#include "floe/common/key_bitmap.h"
#include "floe/common/result.h"

namespace floe::exec {

/// A dynamic filter over one column of integer type (int8..int64, date, time, timestamp).
struct DynamicFilter {
  /// At most this many distinct keys are listed; more give bounds only. A Parquet scan
  /// drops the rows of other keys (a membership bitmap or a binary search per row) and
  /// prunes row groups and pages by a binary search of the list per statistics range.
  static constexpr int64_t kMaxValues = 65536;
  /// Iceberg scans take lists up to this long (their residuals test IN value by value),
  /// bounds for longer ones.
  static constexpr int64_t kMaxIcebergValues = 1024;
  /// Keys too many to list whose range spans at most this many values are published as a
  /// bitmap (at most 8 MiB): a Parquet scan drops the rows of other keys with one bit test
  /// per row (TPC-H Q3 at scale factor 1: 144,580 order keys of 6 million).
  static constexpr int64_t kMaxBitmapSpan = int64_t{1} << 26;
  /// Listed keys get a bitmap too when it takes at most this many 64-bit words per key.
  static constexpr uint64_t kMaxBitmapWordsPerListedKey = 4;

  TypePtr type;
  /// Every distinct non-NULL key, ascending, when there are at most kMaxValues and they
  /// are not more than kMaxIcebergValues with a bitmap; else empty with `listed` false.
  bool listed = false;
  std::vector<Scalar> values;
  /// The least and greatest non-NULL key; unset when there is none (no row can match).
  std::optional<Scalar> min, max;
  /// Every non-NULL key as a bitmap, when they span at most kMaxBitmapSpan values and are
  /// not listed, or are listed and dense enough (kMaxBitmapWordsPerListedKey). Scans that
  /// can test it prefer it to the list.
  std::shared_ptr<const KeyBitmap> bitmap;

  /// The filter of the keys in `keys` (rows whose `skip` byte is set, if given, left out).
  /// kNotSupported for a type other than the integer-like ones above.
  /// `max_distinct`, when given, bounds the number of distinct keys (a join table's key
  /// count): above kMaxValues no list is attempted.
  static Result<DynamicFilter> Of(const Array& keys,
                                  std::optional<int64_t> max_distinct = std::nullopt);
  /// Whether `type` can carry a dynamic filter.
  static bool Supports(const DataType& type);
  /// "IN (3 values)", "bitmap", "range" or "none", for EXPLAIN ANALYZE-like messages.
  std::string ToString() const;
};

/// Where a hash join publishes a dynamic filter: filter `id` (unique within the query's
/// plan) over the build rows' key `key` (an index into the join's keys).
struct DynamicFilterTarget {
  int id = 0;
  int key = 0;
};

/// Where a scan reads one: filter `id` over the scan's output column `column`.
struct DynamicFilterUse {
  int id = 0;
  int column = 0;
};

/// " dynamic_filters=[#1 on k, ...]" for a scan's EXPLAIN line (columns named by
/// `output`); empty without uses.
std::string DynamicFilterUsesToString(const std::vector<DynamicFilterUse>& uses,
                                      const Schema& output);

}  // namespace floe::exec
