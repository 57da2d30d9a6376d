#pragma once

// How many distinct keys a whole input holds, estimated from its first rows.

#include <cstdint>

namespace floe::exec {

/// The distinct keys of an input of `total_rows` rows whose first `sample_rows` rows held
/// `sample_distinct` distinct keys, under the model that each of D keys recurs
/// total_rows / D times spread evenly over the input: the D for which a sample of that
/// share of the rows is expected to hold `sample_distinct` keys,
/// D * (1 - (1 - sample_rows / total_rows) ^ (total_rows / D)), between sample_distinct and
/// total_rows. A sample whose keys are all distinct gives total_rows; one whose keys recur
/// a few times each gives about sample_distinct when the sample is most of the input, and
/// proportionally more for a smaller share. An input whose later rows hold fewer new keys
/// than its first (sorted, or a prefix of distinct keys) is overestimated, up to
/// total_rows.
int64_t EstimateDistinctKeys(int64_t sample_rows, int64_t sample_distinct, int64_t total_rows);

}  // namespace floe::exec
