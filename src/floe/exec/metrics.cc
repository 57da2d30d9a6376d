#include "floe/exec/metrics.h"

#include <utility>

namespace floe::exec {

OperatorMetrics& QueryMetrics::For(const ExecutionPlan* node, int partition, int rank) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<OperatorMetrics>& slot = metrics_[{node, partition, rank}];
  if (!slot) slot = std::make_unique<OperatorMetrics>();
  return *slot;
}

std::vector<QueryMetrics::Part> QueryMetrics::PartsOf(const ExecutionPlan* node) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Part> out;
  constexpr int kLowest = std::numeric_limits<int>::min();
  for (auto it = metrics_.lower_bound({node, kLowest, kLowest});
       it != metrics_.end() && std::get<0>(it->first) == node; ++it) {
    out.push_back({std::get<1>(it->first), std::get<2>(it->first), it->second.get()});
  }
  return out;
}

std::vector<std::pair<int, const OperatorMetrics*>> QueryMetrics::Of(
    const ExecutionPlan* node) const {
  std::vector<std::pair<int, const OperatorMetrics*>> out;
  for (const Part& part : PartsOf(node)) out.emplace_back(part.partition, part.metrics);
  return out;
}

void QueryMetrics::SetExchangeBytes(int rank, int64_t served, int64_t fetched) {
  std::lock_guard<std::mutex> lock(mutex_);
  exchange_bytes_[rank] = {served, fetched};
}

std::map<int, QueryMetrics::ExchangeBytes> QueryMetrics::exchange_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return exchange_bytes_;
}

void QueryMetrics::SetS3Requests(int rank, const io::S3RequestCounts& counts) {
  std::lock_guard<std::mutex> lock(mutex_);
  s3_requests_[rank] = counts;
}

std::map<int, io::S3RequestCounts> QueryMetrics::s3_requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return s3_requests_;
}

}  // namespace floe::exec
