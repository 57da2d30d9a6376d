#include "floe/exec/aggregate/distinct_estimate.h"

#include <algorithm>
#include <cmath>

namespace floe::exec {

int64_t EstimateDistinctKeys(int64_t sample_rows, int64_t sample_distinct, int64_t total_rows) {
  if (sample_rows <= 0 || sample_distinct <= 0 || total_rows <= sample_rows) {
    return std::max<int64_t>(sample_distinct, 0);
  }
  const double n = static_cast<double>(total_rows);
  const double g = static_cast<double>(std::min(sample_distinct, sample_rows));
  const double miss = 1.0 - static_cast<double>(sample_rows) / n;  // a row outside the sample
  // The keys a sample is expected to hold when the input has d keys; increasing in d.
  auto expected = [&](double d) { return d * (1.0 - std::pow(miss, n / d)); };
  if (expected(n) <= g) return total_rows;
  double lo = g;
  double hi = n;
  for (int i = 0; i < 64 && hi - lo > 0.5; ++i) {
    const double mid = (lo + hi) / 2;
    (expected(mid) < g ? lo : hi) = mid;
  }
  return std::clamp<int64_t>(std::llround((lo + hi) / 2), sample_distinct, total_rows);
}

}  // namespace floe::exec
