#pragma once

// What EXPLAIN ANALYZE reports: counters per operator, partition and rank.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "floe/io/s3_client.h"

namespace floe::exec {

class ExecutionPlan;

/// Per-operator, per-partition counters for EXPLAIN ANALYZE.
struct OperatorMetrics {
  std::atomic<int64_t> rows{0};
  std::atomic<int64_t> batches{0};
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> elapsed_nanos{0};  // time inside Next(), children included
  std::atomic<int64_t> spilled_bytes{0};
  std::atomic<int64_t> rejected_rows{0};  // rows a scan left out for errors (ignore_errors)
};

class QueryMetrics {
 public:
  /// The counters of `node`'s partition as run on `rank` (0 in one process; under MPI,
  /// rank 0 adds the executors' counters to its own), created on first use. Thread-safe.
  OperatorMetrics& For(const ExecutionPlan* node, int partition, int rank = 0);
  /// Every partition's counters of `node` ({} when it never ran), on any rank.
  std::vector<std::pair<int, const OperatorMetrics*>> Of(const ExecutionPlan* node) const;

  struct Part {
    int partition = 0;
    int rank = 0;
    const OperatorMetrics* metrics = nullptr;
  };
  /// Every (partition, rank) that ran `node`, by partition then rank.
  std::vector<Part> PartsOf(const ExecutionPlan* node) const;

  /// The query ran on `ranks` MPI ranks (1: one process).
  void set_ranks(int ranks) { ranks_ = ranks; }
  int ranks() const { return ranks_; }
  /// Exchange bytes `rank` sent to other ranks' readers and its readers received.
  void SetExchangeBytes(int rank, int64_t served, int64_t fetched);
  struct ExchangeBytes {
    int64_t served = 0;
    int64_t fetched = 0;
  };
  std::map<int, ExchangeBytes> exchange_bytes() const;

  /// The S3 requests a rank's process sent while the query ran (planning included on rank
  /// 0); process-wide counts, so a query running beside others in one process counts theirs
  /// too.
  void SetS3Requests(int rank, const io::S3RequestCounts& counts);
  std::map<int, io::S3RequestCounts> s3_requests() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::tuple<const ExecutionPlan*, int, int>, std::unique_ptr<OperatorMetrics>> metrics_;
  std::map<int, ExchangeBytes> exchange_bytes_;
  std::map<int, io::S3RequestCounts> s3_requests_;
  std::atomic<int> ranks_{1};
};

}  // namespace floe::exec
