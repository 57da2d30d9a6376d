#pragma once

// The seam between a session and the processes that run its queries' tasks: one process
// alone (no cluster) or, under MPI, every rank (dist/ implements it).

#include <memory>
#include <string>

#include "floe/common/result.h"
#include "floe/exec/exchange_service.h"
#include "floe/exec/memory_manager.h"
#include "floe/exec/session_config.h"
#include "floe/scheduler/scheduler.h"
#include "floe/scheduler/stage_planner.h"

namespace floe::scheduler {

/// Processes that run a query's tasks together with this one (DESIGN.md section 3: a
/// single process is a cluster of one). Implemented by dist/ for MPI.
class QueryCluster {
 public:
  virtual ~QueryCluster() = default;
  struct Query {
    /// This process's exchange of the query (stage outputs live where their tasks ran).
    std::shared_ptr<exec::ExchangeService> exchange;
    /// Places the query's tasks on the processes; ending the query (the runner's
    /// destruction) releases what the other processes hold of it.
    std::shared_ptr<TaskRunner> runner;
  };
  /// Sends `stages` (through the plan codec) and `config` to every process and returns
  /// this process's side of the query. `memory` and `spill_directory` are this process's.
  /// `collect_metrics`: every process counts what its operators do (EXPLAIN ANALYZE), for
  /// TaskRunner::CollectMetrics.
  virtual Result<Query> Begin(const StagePlan& stages, const exec::SessionConfig& config,
                              std::shared_ptr<exec::MemoryManager> memory,
                              const std::string& spill_directory, bool collect_metrics) = 0;
  /// The tasks every process together runs at once: a session's default
  /// target_partitions, so that one stage's tasks keep every process busy.
  virtual int slots() const = 0;
};

}  // namespace floe::scheduler
