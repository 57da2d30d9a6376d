#pragma once

// Runs a query's stages (stage_planner.h). A stage becomes runnable when every stage it
// reads has completed; its tasks (stage, partition) are handed out on demand to the
// executor slots, the threads of TaskContext::threads(): at most one task per thread,
// each running its stage's fragment for one partition to the end on that thread. The
// final stage is not scheduled: the caller pulls its partitions, in order, through
// Next(), in the caller's thread, so rows reach the client as soon as they exist.
//
// A failed task fails the query with that task's error (the first error wins); the
// other tasks are cancelled through TaskContext::Cancel and no new ones start.

#include <functional>
#include <memory>
#include <vector>

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"
#include "floe/scheduler/stage_planner.h"

namespace floe::scheduler {

/// Where a query's tasks run; the scheduler decides which task runs when. The default
/// runs them on the context's thread pool; under MPI, dist's runner places them on ranks.
class TaskRunner {
 public:
  virtual ~TaskRunner() = default;
  /// Tasks that may run at once.
  virtual int slots() const = 0;
  /// Starts task `partition` of `stage`. `done(status, location)` is called exactly once,
  /// from another thread (never from inside Run: the scheduler holds its lock there), when
  /// the task has ended; `location` says where its output lives (an MPI rank; 0 in one
  /// process).
  virtual void Run(const Stage& stage, int partition, const exec::TaskContextPtr& ctx,
                   std::function<void(Status, int)> done) = 0;
  /// Every task of `stage` succeeded; `locations[i]` is where partition i's output lives.
  /// Called before any task of a stage that reads it starts; an error fails the query.
  virtual Status StageComplete(const Stage& stage, const std::vector<int>& locations) = 0;
  /// The query failed or was cancelled: running tasks should stop (each still reports
  /// through its `done`).
  virtual void Cancel() = 0;
  /// The query is over and no task runs: `succeeded` when it ran to its end without an
  /// error (a write's commit, in the final stage, then happened) or its commit ended with
  /// kCommitStateUnknown (the commit may have happened: its files must stay). Called once.
  virtual void End(bool succeeded) {}
  /// After every task has ended, adds what the other processes counted for the query
  /// (EXPLAIN ANALYZE) to `metrics`, which holds this process's counters: each operator's
  /// counters per partition and rank, and the exchange bytes per rank. `stages` are this
  /// process's stages of the query. One process has nothing to add.
  virtual Status CollectMetrics(const StagePlan& stages, exec::QueryMetrics* metrics) {
    return Status::OK();
  }
  /// Before a commit: the other processes seal their data files of the query
  /// (iceberg::InFlightFiles) and confirm. One process has no others.
  virtual Status SealWrites() { return Status::OK(); }
};

/// Runs partition `partition` of a stage's plan to its end on this thread (a stage's
/// ShuffleWriterExec root writes its rows to the exchange and returns none).
Status RunStageTask(const exec::PlanPtr& plan, int partition, const exec::TaskContextPtr& ctx);

/// Runs tasks on the context's thread pool, one per thread.
std::shared_ptr<TaskRunner> MakeLocalTaskRunner(ThreadPool* threads);

class QueryScheduler {
 public:
  /// Registers every non-final stage with ctx->exchange() and starts the stages that
  /// read nothing, their tasks placed by `runner` (nullptr: the context's thread pool).
  /// kInternal when the context has no exchange but the plan needs one.
  static Result<std::unique_ptr<QueryScheduler>> Start(StagePlan stages, exec::TaskContextPtr ctx,
                                                       std::shared_ptr<TaskRunner> runner = {});
  /// Cancels whatever still runs and waits for the running tasks to return.
  ~QueryScheduler();

  QueryScheduler(const QueryScheduler&) = delete;
  QueryScheduler& operator=(const QueryScheduler&) = delete;

  const SchemaPtr& schema() const;
  /// The next batch of the final stage (partition 0 to the end, then partition 1, ...),
  /// or nullptr at the end. Waits for the final stage's inputs first. The first error of
  /// any task is returned here, and every later call returns it again.
  Result<RecordBatchPtr> Next();
  /// Stops the query: running tasks are cancelled, nothing new starts, Next() returns
  /// kCancelled.
  void Cancel();
  /// Waits until no task runs any more (after the end, an error or Cancel).
  void Wait();

  const StagePlan& stages() const;
  const exec::TaskContextPtr& context() const;
  /// Once every task has ended: the context's metrics with every process's counters
  /// (TaskRunner::CollectMetrics). kInternal when the query does not collect metrics.
  Result<const exec::QueryMetrics*> CollectMetrics();

  struct State;

 private:
  explicit QueryScheduler(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

}  // namespace floe::scheduler
