#include "floe/exec/scheduler.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

#include "floe/exec/exchange.h"
#include "floe/exec/shuffle_exec.h"

namespace floe::exec {

struct QueryScheduler::State {
  StagePlan plan;
  TaskContextPtr ctx;
  ThreadPool* threads = nullptr;
  int slots = 1;

  std::mutex mutex;
  std::condition_variable cv;
  std::vector<int> remaining_tasks;       // per stage index
  std::vector<bool> started;              // per stage index
  std::vector<bool> complete;             // per stage index
  std::deque<std::pair<int, int>> queue;  // (stage index, partition) ready to run
  int running = 0;
  Status error;
  bool cancelled = false;

  // Final stage streaming (the caller's thread only).
  int final_partition = 0;
  BatchStreamPtr final_stream;
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
      auto [stage, partition] = queue.front();
      queue.pop_front();
      ++running;
      // The task holds no reference: the scheduler's destructor waits until `running` is
      // zero, and the task's last touch of the state is that decrement (under the lock).
      State* self = this;
      threads->Spawn([self, stage, partition] { self->RunTask(stage, partition); });
    }
  }

  void RunTask(int stage, int partition) {
    Status status = RunFragment(plan.stages()[static_cast<size_t>(stage)].plan, partition);
    std::lock_guard<std::mutex> lock(mutex);
    if (!status.ok()) {
      Fail(std::move(status));
    } else if (--remaining_tasks[static_cast<size_t>(stage)] == 0) {
      complete[static_cast<size_t>(stage)] = true;
      StartReadyStages();
    }
    Launch();
    --running;
    cv.notify_all();
  }

  Status RunFragment(const PlanPtr& fragment, int partition) {
    FLOE_RETURN_NOT_OK(ctx->CheckCancelled());
    FLOE_ASSIGN_OR_RAISE(BatchStreamPtr stream, ExecutePlan(fragment, partition, ctx));
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
      if (!batch) return Status::OK();
    }
  }

  // Records the first error and cancels the rest. Requires the lock.
  void Fail(Status status) {
    if (error.ok() && !(cancelled && status.code() == StatusCode::kCancelled)) {
      error = std::move(status);
    }
    ctx->Cancel();
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
                                                              TaskContextPtr ctx) {
  auto state = std::make_shared<State>();
  state->plan = std::move(stages);
  state->ctx = std::move(ctx);
  state->threads = state->ctx->threads() ? state->ctx->threads() : DefaultThreadPool();
  state->slots = std::max(1, state->threads->size());
  const size_t n = state->plan.stages().size();
  state->remaining_tasks.assign(n, 0);
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
  Cancel();
  Wait();
  // The final stage's stream may hold exchange readers; close it before the exchange goes.
  state_->final_stream.reset();
}

const SchemaPtr& QueryScheduler::schema() const {
  return state_->plan.final_stage().plan->schema();
}

const StagePlan& QueryScheduler::stages() const { return state_->plan; }
const TaskContextPtr& QueryScheduler::context() const { return state_->ctx; }

void QueryScheduler::Cancel() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (!state_->final_done || state_->running > 0 || !state_->queue.empty()) {
    state_->cancelled = true;
  }
  state_->ctx->Cancel();
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
  const PlanPtr& root = s.plan.final_stage().plan;
  while (true) {
    if (!s.final_stream) {
      if (s.final_partition >= root->partition_count()) {
        s.final_done = true;
        return RecordBatchPtr();
      }
      Result<BatchStreamPtr> opened = ExecutePlan(root, s.final_partition, s.ctx);
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

}  // namespace floe::exec
