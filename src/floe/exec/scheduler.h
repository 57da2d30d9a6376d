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

#include <memory>

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"
#include "floe/exec/stage_planner.h"

namespace floe::exec {

class QueryScheduler {
 public:
  /// Registers every non-final stage with ctx->exchange() and starts the stages that
  /// read nothing. kInternal when the context has no exchange but the plan needs one.
  static Result<std::unique_ptr<QueryScheduler>> Start(StagePlan stages, TaskContextPtr ctx);
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
  const TaskContextPtr& context() const;

  struct State;

 private:
  explicit QueryScheduler(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

}  // namespace floe::exec
