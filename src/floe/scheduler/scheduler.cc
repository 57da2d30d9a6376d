#include "floe/scheduler/scheduler.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

#include "floe/exec/exchange_service.h"
#include "floe/scheduler/shuffle_exec.h"

namespace floe::scheduler {

namespace {

class LocalTaskRunner final : public TaskRunner {
 public:
  explicit LocalTaskRunner(ThreadPool* threads) : threads_(threads) {}
  int slots() const override { return std::max(1, threads_->size()); }
  void Run(const Stage& stage, int partition, const exec::TaskContextPtr& ctx,
           std::function<void(Status, int)> done) override {
    threads_->Spawn([plan = stage.plan, partition, ctx = exec::TaskContextPtr(ctx),
                     done = std::move(done)]() mutable {
      Status status = RunStageTask(plan, partition, ctx);
      // The pool may keep this closure after it returns: it must hold nothing of the
      // query (the query's end frees the exchange and its spill files).
      plan.reset();
      ctx.reset();
      done(std::move(status), 0);
    });
  }
  Status StageComplete(const Stage&, const std::vector<int>&) override { return Status::OK(); }
  void Cancel() override {}

 private:
  ThreadPool* threads_;
};

}  // namespace

Status RunStageTask(const exec::PlanPtr& plan, int partition, const exec::TaskContextPtr& ctx) {
  FLOE_RETURN_NOT_OK(ctx->CheckCancelled());
  FLOE_ASSIGN_OR_RAISE(exec::BatchStreamPtr stream, exec::ExecutePlan(plan, partition, ctx));
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (!batch) return Status::OK();
  }
}

std::shared_ptr<TaskRunner> MakeLocalTaskRunner(ThreadPool* threads) {
  return std::make_shared<LocalTaskRunner>(threads);
}

struct QueryScheduler::State {
  StagePlan plan;
  exec::TaskContextPtr ctx;
  std::shared_ptr<TaskRunner> runner;
  int slots = 1;

  std::mutex mutex;
  std::condition_variable cv;
  std::vector<int> remaining_tasks;         // per stage index
  std::vector<std::vector<int>> locations;  // per stage index: where each task's output is
  std::vector<bool> started;                // per stage index
  std::vector<bool> complete;               // per stage index
  std::deque<std::pair<int, int>> queue;    // (stage index, partition) ready to run
  int running = 0;
  Status error;
  bool cancelled = false;

  // Final stage streaming (the caller's thread only).
  int final_partition = 0;
  exec::BatchStreamPtr final_stream;
  bool final_done = false;
  Status final_error;

  // Queues the tasks of every stage whose inputs are complete. Requires the lock.
  void StartReadyStages() {
    const auto& stages = plan.stages();
    for (size_t s = 0; s + 1 < stages.size(); ++s) {
      if (started[s]) continue;
      bool ready = true;
      for (int input : stages[s].inputs) ready = ready && complete[static_cast<size_t>(input - 1)];
      if (!ready) continue;
      started[s] = true;
      const int tasks = stages[s].partition_count();
      remaining_tasks[s] = tasks;
      locations[s].assign(static_cast<size_t>(tasks), 0);
      if (tasks == 0) {
        complete[s] = true;
        StartReadyStages();
        return;
      }
      for (int p = 0; p < tasks; ++p) queue.emplace_back(static_cast<int>(s), p);
    }
  }

  // Hands queued tasks to free slots. Requires the lock.
  void Launch() {
    while (running < slots && !queue.empty() && error.ok() && !cancelled) {
      const int stage = queue.front().first;
      const int partition = queue.front().second;
      queue.pop_front();
      ++running;
      // The task holds no reference: the scheduler's destructor waits until `running` is
      // zero, and the task touches the state only inside TaskDone, under the lock, where
      // it decrements `running`.
      State* self = this;
      runner->Run(plan.stages()[static_cast<size_t>(stage)], partition, ctx,
                  [self, stage, partition](Status status, int location) {
                    self->TaskDone(stage, partition, std::move(status), location);
                  });
    }
  }

  void TaskDone(int stage, int partition, Status status, int location) {
    std::lock_guard<std::mutex> lock(mutex);
    // The slot is free before the next tasks are handed out (with one slot, none would
    // start otherwise).
    --running;
    const auto s = static_cast<size_t>(stage);
    if (status.ok()) {
      locations[s][static_cast<size_t>(partition)] = location;
      if (--remaining_tasks[s] == 0) {
        Status told = runner->StageComplete(plan.stages()[s], locations[s]);
        if (told.ok()) {
          complete[s] = true;
          StartReadyStages();
        } else {
          Fail(std::move(told));
        }
      }
    } else {
      Fail(std::move(status));
    }
    Launch();
    cv.notify_all();
  }

  // Records the first error and cancels the rest. Requires the lock.
  void Fail(Status status) {
    if (error.ok() && !(cancelled && status.code() == StatusCode::kCancelled)) {
      error = std::move(status);
    }
    ctx->Cancel();
    runner->Cancel();
    queue.clear();
  }

  bool FinalInputsComplete() const {
    for (int input : plan.final_stage().inputs) {
      if (!complete[static_cast<size_t>(input - 1)]) return false;
    }
    return true;
  }
};

Result<std::unique_ptr<QueryScheduler>> QueryScheduler::Start(StagePlan stages,
                                                              exec::TaskContextPtr ctx,
                                                              std::shared_ptr<TaskRunner> runner) {
  auto state = std::make_shared<State>();
  state->plan = std::move(stages);
  state->ctx = std::move(ctx);
  state->runner = runner ? std::move(runner)
                         : MakeLocalTaskRunner(state->ctx->threads() ? state->ctx->threads()
                                                                     : DefaultThreadPool());
  state->slots = std::max(1, state->runner->slots());
  const size_t n = state->plan.stages().size();
  state->remaining_tasks.assign(n, 0);
  state->locations.assign(n, {});
  state->started.assign(n, false);
  state->complete.assign(n, false);
  if (n > 1 && !state->ctx->exchange()) {
    return Status::Internal("the query has {} stages but no exchange", n);
  }
  for (size_t s = 0; s + 1 < n; ++s) {
    const Stage& stage = state->plan.stages()[s];
    const auto* writer = dynamic_cast<const ShuffleWriterExec*>(stage.plan.get());
    if (writer == nullptr) {
      return Status::Internal("stage {} is not rooted at a ShuffleWriterExec", stage.id);
    }
    FLOE_RETURN_NOT_OK(state->ctx->exchange()->RegisterStage(
        stage.id, stage.plan->schema(), stage.partition_count(),
        writer->output_partitioning().partition_count()));
  }
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->StartReadyStages();
    state->Launch();
  }
  return std::unique_ptr<QueryScheduler>(new QueryScheduler(std::move(state)));
}

QueryScheduler::~QueryScheduler() {
  // A commit whose outcome is unknown may have made the query's files part of a table:
  // the other processes must keep them as after a success.
  const bool succeeded = (state_->final_done && state_->final_error.ok()) ||
                         state_->final_error.code() == StatusCode::kCommitStateUnknown;
  Cancel();
  Wait();
  state_->runner->End(succeeded);
  // The final stage's stream may hold exchange readers; close it before the exchange goes.
  state_->final_stream.reset();
}

const SchemaPtr& QueryScheduler::schema() const {
  return state_->plan.final_stage().plan->schema();
}

const StagePlan& QueryScheduler::stages() const { return state_->plan; }
const exec::TaskContextPtr& QueryScheduler::context() const { return state_->ctx; }

Result<const exec::QueryMetrics*> QueryScheduler::CollectMetrics() {
  exec::QueryMetrics* metrics = state_->ctx->metrics();
  if (metrics == nullptr) return Status::Internal("the query does not collect metrics");
  Wait();
  FLOE_RETURN_NOT_OK(state_->runner->CollectMetrics(state_->plan, metrics));
  return metrics;
}

void QueryScheduler::Cancel() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (!state_->final_done || state_->running > 0 || !state_->queue.empty()) {
    state_->cancelled = true;
  }
  state_->ctx->Cancel();
  state_->runner->Cancel();
  state_->queue.clear();
  state_->cv.notify_all();
}

void QueryScheduler::Wait() {
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->cv.wait(lock, [this] { return state_->running == 0; });
}

Result<RecordBatchPtr> QueryScheduler::Next() {
  State& s = *state_;
  if (!s.final_error.ok()) return s.final_error;
  if (s.final_done) return RecordBatchPtr();
  {
    std::unique_lock<std::mutex> lock(s.mutex);
    s.cv.wait(lock, [&s] { return !s.error.ok() || s.cancelled || s.FinalInputsComplete(); });
    if (!s.error.ok()) {
      s.final_error = s.error;
    } else if (s.cancelled) {
      s.final_error = Status::Cancelled("the query was cancelled");
    }
  }
  if (!s.final_error.ok()) {
    Wait();
    return s.final_error;
  }
  const exec::PlanPtr& root = s.plan.final_stage().plan;
  while (true) {
    if (!s.final_stream) {
      if (s.final_partition >= root->partition_count()) {
        s.final_done = true;
        return RecordBatchPtr();
      }
      Result<exec::BatchStreamPtr> opened = exec::ExecutePlan(root, s.final_partition, s.ctx);
      if (!opened.ok()) {
        s.final_error = opened.status();
        break;
      }
      s.final_stream = std::move(*opened);
    }
    Result<RecordBatchPtr> batch = s.final_stream->Next();
    if (!batch.ok()) {
      s.final_error = batch.status();
      break;
    }
    if (*batch) return *batch;
    s.final_stream.reset();
    ++s.final_partition;
  }
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.Fail(s.final_error);
  }
  return s.final_error;
}

}  // namespace floe::scheduler
