#include "floe/dist/cluster.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "floe/codec/plan.pb.h"
#include "floe/codec/plan_codec.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/spill.h"
#include "floe/iceberg/in_flight_files.h"
#include "floe/io/s3_client.h"
#include "floe/scheduler/scheduler.h"
#include "floe/scheduler/shuffle_exec.h"

namespace floe::dist {

namespace pb = codec::proto;

namespace {

Status SendMessage(Communicator& comm, int rank, int tag,
                   const google::protobuf::MessageLite& message) {
  std::string bytes;
  if (!message.SerializeToString(&bytes)) {
    return Status::Internal("cannot serialize a {} message", message.GetTypeName());
  }
  return comm.Send(rank, tag, bytes);
}

Status StatusFromWire(int32_t code, const std::string& message) {
  if (code == 0) return Status::OK();
  if (code < 0 || code > static_cast<int32_t>(kLastStatusCode)) {
    return Status::Internal("{}", message);
  }
  return Status(static_cast<StatusCode>(code), message);
}

// Registers a stage's output with an exchange, as the scheduler does on rank 0.
Status RegisterStage(exec::ExchangeService& exchange, int stage_id, const exec::PlanPtr& plan) {
  const auto* writer = dynamic_cast<const scheduler::ShuffleWriterExec*>(plan.get());
  if (writer == nullptr) {
    return Status::Corrupt("stage {} is not rooted at a ShuffleWriterExec", stage_id);
  }
  return exchange.RegisterStage(stage_id, plan->schema(), plan->partition_count(),
                                writer->output_partitioning().partition_count());
}

// A stage's operators in pre-order from its root: OperatorCounters.node indexes this.
void PreOrder(const exec::ExecutionPlan& node, std::vector<const exec::ExecutionPlan*>* out) {
  out->push_back(&node);
  for (const exec::PlanPtr& child : node.children()) PreOrder(*child, out);
}

// A test hook: FLOE_TEST_PAUSE_AFTER_PLANNING=PATH makes rank 0, once it has planned a
// statement and before any task of it runs, create PATH.planned and wait until PATH.resume
// exists (at most a minute), so a test can commit to a table between planning and
// execution. Every later statement finds PATH.resume and goes on.
void PauseAfterPlanningForTests() {
  const char* path = std::getenv("FLOE_TEST_PAUSE_AFTER_PLANNING");
  if (path == nullptr || *path == '\0') return;
  const std::string base = path;
  std::error_code ec;
  if (std::filesystem::exists(base + ".resume", ec)) return;
  if (FILE* marker = std::fopen((base + ".planned").c_str(), "w")) std::fclose(marker);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!std::filesystem::exists(base + ".resume", ec) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// The CPUs this rank may use: those of its affinity mask when the launcher bound it
// (mpirun binds each rank to a core by default with up to two ranks), else the hardware
// threads of this host shared by the ranks on it.
int TaskSlotsOfThisRank() {
  const int hardware = ThreadPool::HardwareThreads();
  const int allowed = ThreadPool::DefaultThreads();
  if (allowed < hardware) return allowed;
  int local_ranks = 1;
  if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) {
    local_ranks = std::max(1, std::atoi(local));
  }
  return std::max(1, hardware / local_ranks);
}

class MpiQueryRunner;

}  // namespace

struct MpiCluster::State {
  const exec::PlanCodecRegistry* codecs = nullptr;
  std::shared_ptr<Communicator> comm;
  std::shared_ptr<ExchangeServer> server;
  ThreadPool* threads = nullptr;
  std::vector<int> slots;  // per rank: the tasks it runs at once
  int total_slots = 1;

  std::mutex mutex;
  std::map<uint64_t, std::weak_ptr<MpiQueryRunner>> queries;
  uint64_t next_query = 1;
  std::atomic<bool> stop{false};
  std::thread receiver;

  void Receive();
};

namespace {

// Places one query's tasks on the ranks (scheduler::TaskRunner).
class MpiQueryRunner final : public scheduler::TaskRunner {
 public:
  MpiQueryRunner(std::shared_ptr<MpiCluster::State> cluster, uint64_t query_id,
                 std::shared_ptr<DistributedExchange> exchange)
      : cluster_(std::move(cluster)),
        query_id_(query_id),
        exchange_(std::move(exchange)),
        running_(static_cast<size_t>(cluster_->comm->size()), 0),
        assigned_(running_.size(), 0) {}

  ~MpiQueryRunner() override {
    End(false);
    std::lock_guard<std::mutex> lock(cluster_->mutex);
    cluster_->queries.erase(query_id_);
  }

  // Every task has ended (the scheduler waits for them): the executors drop the query,
  // and the files its write tasks wrote unless it succeeded.
  void End(bool succeeded) override {
    if (ended_.exchange(true)) return;
    pb::ControlMessage m;
    m.mutable_end()->set_query_id(query_id_);
    m.mutable_end()->set_succeeded(succeeded);
    for (int r = 1; r < cluster_->comm->size(); ++r) {
      (void)SendMessage(*cluster_->comm, r, kControlTag, m);
    }
  }

  int slots() const override { return cluster_->total_slots; }

  void Run(const scheduler::Stage& stage, int partition, const exec::TaskContextPtr& ctx,
           std::function<void(Status, int)> done) override {
    std::unique_lock<std::mutex> lock(mutex_);
    // On demand: the rank with the most free slots (its slots less its running tasks;
    // ranks may have different numbers of slots) gets it; among those, the one given the
    // fewest tasks of the query so far, so that short tasks, which end before the next is
    // placed, still spread over the ranks.
    const std::vector<int>& slots = cluster_->slots;
    auto busier = [&](size_t a, size_t b) {  // whether rank a is a worse choice than b
      return std::pair(running_[a] - slots[a], assigned_[a]) >
             std::pair(running_[b] - slots[b], assigned_[b]);
    };
    size_t rank = 0;
    for (size_t r = 1; r < running_.size(); ++r) {
      if (busier(rank, r)) rank = r;
    }
    ++running_[rank];
    ++assigned_[rank];
    if (rank == 0) {
      lock.unlock();
      ThreadPool* threads = ctx->threads() ? ctx->threads() : cluster_->threads;
      threads->Spawn([this, plan = stage.plan, stage_id = stage.id, partition,
                      ctx = exec::TaskContextPtr(ctx), done = std::move(done)]() mutable {
        Status status = scheduler::RunStageTask(plan, partition, ctx);
        plan.reset();  // nothing of the query stays in the pool's closure
        ctx.reset();
        std::vector<int64_t> rows;
        if (status.ok()) rows = exchange_->PieceRows(stage_id, partition);
        {
          std::lock_guard<std::mutex> guard(mutex_);
          --running_[0];
          AddRowsLocked(stage_id, rows.data(), rows.size());
        }
        done(std::move(status), 0);
      });
      return;
    }
    pending_[{stage.id, partition}] = Pending{static_cast<int>(rank), std::move(done)};
    lock.unlock();
    pb::ControlMessage m;
    pb::TaskAssignment* task = m.mutable_task();
    task->set_query_id(query_id_);
    task->set_stage_id(stage.id);
    task->set_partition(partition);
    Status sent = SendMessage(*cluster_->comm, static_cast<int>(rank), kControlTag, m);
    if (!sent.ok()) {
      // Reported from another thread: the scheduler holds its lock while it calls Run.
      cluster_->threads->Spawn([this, stage_id = stage.id, partition, rank, sent] {
        Complete(static_cast<int>(rank), stage_id, partition,
                 sent.WithPrefix(fmt::format("sending a task to rank {}: ", rank)));
      });
    }
  }

  Status StageComplete(const scheduler::Stage& stage, const std::vector<int>& locations) override {
    std::vector<int64_t> rows;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = stage_rows_.find(stage.id);
      if (it != stage_rows_.end()) rows = std::move(it->second);
    }
    FLOE_RETURN_NOT_OK(exchange_->SetStageOwners(stage.id, locations));
    // The counts are a hint for sizing readers: counts that do not fit the stage are dropped.
    if (!rows.empty() && !exchange_->SetStageRows(stage.id, rows).ok()) rows.clear();
    FLOE_RETURN_NOT_OK(exchange_->MarkComplete(stage.id));
    pb::ControlMessage m;
    pb::StageOwners* owners = m.mutable_owners();
    owners->set_query_id(query_id_);
    owners->set_stage_id(stage.id);
    for (int r : locations) owners->add_ranks(r);
    for (int64_t n : rows) owners->add_output_rows(n);
    for (int r = 1; r < cluster_->comm->size(); ++r) {
      FLOE_RETURN_NOT_OK(SendMessage(*cluster_->comm, r, kControlTag, m));
    }
    return Status::OK();
  }

  // Sends `m` to every executor (in order after what each was sent before).
  Status TellExecutors(const pb::ControlMessage& m) const {
    for (int r = 1; r < cluster_->comm->size(); ++r) {
      FLOE_RETURN_NOT_OK(SendMessage(*cluster_->comm, r, kControlTag, m));
    }
    return Status::OK();
  }

  // Sends `m` to every executor and passes each one's reply (a `Reply` of this query, on
  // `tag`) to `handle(rank, reply)`; `what` names the reply in errors.
  template <typename Reply, typename Handle>
  Status AskExecutors(const pb::ControlMessage& m, int tag, std::string_view what,
                      Handle handle) const {
    FLOE_RETURN_NOT_OK(TellExecutors(m));
    for (int r = 1; r < cluster_->comm->size(); ++r) {
      FLOE_ASSIGN_OR_RAISE(Message message,
                           cluster_->comm->Receive(r, tag, {std::chrono::minutes(1)}));
      Reply reply;
      if (!reply.ParseFromArray(message.view().data(), static_cast<int>(message.view().size())) ||
          reply.query_id() != query_id_) {
        return Status::Corrupt("rank {} sent {} that does not parse", r, what);
      }
      FLOE_RETURN_NOT_OK(handle(r, reply));
    }
    return Status::OK();
  }

  // Before the commit: every executor seals its files of the query, and says so.
  Status SealWrites() override {
    pb::ControlMessage m;
    m.mutable_seal()->set_query_id(query_id_);
    return AskExecutors<pb::SealDone>(m, kSealTag, "a seal confirmation",
                                      [](int, const pb::SealDone&) { return Status::OK(); });
  }

  // Asks every executor for its counters of the query and adds them, by rank, to rank 0's.
  Status CollectMetrics(const scheduler::StagePlan& stages, exec::QueryMetrics* metrics) override {
    metrics->set_ranks(cluster_->comm->size());
    metrics->SetExchangeBytes(0, exchange_->bytes_served(), exchange_->bytes_fetched());
    std::map<int, std::vector<const exec::ExecutionPlan*>> nodes;
    for (const scheduler::Stage& stage : stages.stages()) PreOrder(*stage.plan, &nodes[stage.id]);
    pb::ControlMessage m;
    m.mutable_metrics()->set_query_id(query_id_);
    return AskExecutors<pb::QueryMetricsReport>(
        m, kMetricsTag, "a metrics report", [&](int r, const pb::QueryMetricsReport& report) {
          FLOE_RETURN_NOT_OK(StatusFromWire(report.status_code(), report.message())
                                 .WithPrefix(fmt::format("rank {}: ", r)));
          metrics->SetExchangeBytes(r, report.exchange_bytes_served(),
                                    report.exchange_bytes_fetched());
          const pb::S3Requests& s3 = report.s3_requests();
          io::S3RequestCounts counts;
          counts.get = s3.get();
          counts.head = s3.head();
          counts.put = s3.put();
          counts.list = s3.list();
          counts.remove = s3.remove();
          counts.other = s3.other();
          counts.bytes_read = s3.bytes_read();
          counts.bytes_written = s3.bytes_written();
          counts.retries = s3.retries();
          counts.failed = s3.failed();
          metrics->SetS3Requests(r, counts);
          for (const pb::OperatorCounters& c : report.operators()) {
            auto stage = nodes.find(c.stage_id());
            if (stage == nodes.end() || c.node() < 0 ||
                static_cast<size_t>(c.node()) >= stage->second.size()) {
              return Status::Corrupt(
                  "rank {} reports metrics of stage {} node {}, which it did not run", r,
                  c.stage_id(), c.node());
            }
            exec::OperatorMetrics& into =
                metrics->For(stage->second[static_cast<size_t>(c.node())], c.partition(), r);
            into.rows += c.rows();
            into.batches += c.batches();
            into.bytes += c.bytes();
            into.elapsed_nanos += c.elapsed_nanos();
            into.spilled_bytes += c.spilled_bytes();
            into.rejected_rows += c.rejected_rows();
          }
          return Status::OK();
        });
  }

  void Cancel() override {
    if (cancelled_.exchange(true)) return;
    pb::ControlMessage m;
    m.mutable_cancel()->set_query_id(query_id_);
    for (int r = 1; r < cluster_->comm->size(); ++r) {
      (void)SendMessage(*cluster_->comm, r, kControlTag, m);
    }
  }

  // A task of this query ended on `rank` (the receiver thread, or a failed send).
  // `rows` (`num_rows` of them) are the rows the task wrote to each output partition.
  void Complete(int rank, int stage_id, int partition, Status status, const int64_t* rows = nullptr,
                size_t num_rows = 0) {
    std::function<void(Status, int)> done;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = pending_.find({stage_id, partition});
      if (it == pending_.end() || it->second.rank != rank) return;  // not ours: ignore
      done = std::move(it->second.done);
      pending_.erase(it);
      --running_[static_cast<size_t>(rank)];
      AddRowsLocked(stage_id, rows, num_rows);
    }
    done(std::move(status), rank);
  }

 private:
  struct Pending {
    int rank = 0;
    std::function<void(Status, int)> done;
  };

  // Adds one task's rows per output partition to its stage's sums; a task without counts
  // (or with a different number of them) makes the stage's counts unknown. mutex_ held.
  void AddRowsLocked(int stage_id, const int64_t* rows, size_t num_rows) {
    auto [it, first] = stage_rows_.try_emplace(stage_id);
    std::vector<int64_t>& sums = it->second;
    if (!first && sums.empty()) return;  // already unknown
    if (first) {
      sums.assign(rows, rows + num_rows);
    } else if (sums.size() != num_rows) {
      sums.clear();
    } else {
      for (size_t o = 0; o < num_rows; ++o) sums[o] += rows[o];
    }
  }

  std::shared_ptr<MpiCluster::State> cluster_;
  uint64_t query_id_;
  std::shared_ptr<DistributedExchange> exchange_;
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> ended_{false};
  std::mutex mutex_;
  std::vector<int> running_;       // per rank
  std::vector<int64_t> assigned_;  // per rank: tasks given so far
  std::map<std::pair<int, int>, Pending> pending_;
  std::map<int, std::vector<int64_t>> stage_rows_;  // by stage: rows per output partition
};

}  // namespace

void MpiCluster::State::Receive() {
  while (!stop.load()) {
    // The exchange server's thread receives them (RunUnderMpi): one thread per rank polls.
    Result<std::optional<Message>> received = server->TakeForwarded(std::chrono::milliseconds(-1));
    if (!received.ok()) {
      std::fprintf(stderr, "floe: rank 0 stops receiving task completions: %s\n",
                   received.status().ToString().c_str());
      return;
    }
    if (!*received) continue;
    const Message& message = **received;
    if (message.tag == kCredentialsTag) {
      // Renewing may call the catalog, and completions wait meanwhile: that is rare (once
      // per lifetime of a table's credentials) and bounded by the HTTP client's timeouts.
      Status answered = AnswerCredentialsRequest(*comm, message);
      if (!answered.ok()) {
        std::fprintf(stderr, "floe: rank 0 cannot answer rank %d's request for credentials: %s\n",
                     message.source, answered.ToString().c_str());
      }
      continue;
    }
    pb::TaskDone done;
    if (!done.ParseFromArray(message.view().data(), static_cast<int>(message.view().size()))) {
      std::fprintf(stderr, "floe: a corrupt task completion from rank %d was ignored\n",
                   message.source);
      continue;
    }
    std::shared_ptr<MpiQueryRunner> runner;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = queries.find(done.query_id());
      if (it != queries.end()) runner = it->second.lock();
    }
    if (!runner) continue;  // the query has ended
    Status status = StatusFromWire(done.status_code(), done.message());
    if (!status.ok()) status = status.WithPrefix(fmt::format("rank {}: ", message.source));
    runner->Complete(message.source, done.stage_id(), done.partition(), std::move(status),
                     done.output_rows().data(), static_cast<size_t>(done.output_rows_size()));
  }
}

Result<std::shared_ptr<MpiCluster>> MpiCluster::Start(std::shared_ptr<Communicator> comm,
                                                      std::shared_ptr<ExchangeServer> server,
                                                      ThreadPool* threads, std::vector<int> slots,
                                                      const exec::PlanCodecRegistry* codecs) {
  if (comm->rank() != 0) return Status::Internal("the cluster is driven from rank 0");
  if (slots.size() != static_cast<size_t>(comm->size())) {
    return Status::Internal("task slots of {} ranks for a job of {}", slots.size(), comm->size());
  }
  auto state = std::make_shared<State>();
  state->codecs = codecs;
  state->comm = std::move(comm);
  state->server = std::move(server);
  state->threads = threads;
  state->total_slots = 0;
  for (int& s : slots) {
    s = std::max(1, s);
    state->total_slots += s;
  }
  state->slots = std::move(slots);
  state->receiver = std::thread([raw = state.get()] { raw->Receive(); });
  return std::shared_ptr<MpiCluster>(new MpiCluster(std::move(state)));
}

MpiCluster::~MpiCluster() { (void)Shutdown(); }

int MpiCluster::slots() const { return state_->total_slots; }

Status MpiCluster::Shutdown() {
  if (state_->stop.exchange(true)) return Status::OK();
  state_->server->CloseForwarded();
  Status status;
  pb::ControlMessage m;
  m.mutable_shutdown();
  for (int r = 1; r < state_->comm->size(); ++r) {
    Status sent = SendMessage(*state_->comm, r, kControlTag, m);
    if (status.ok() && !sent.ok()) status = sent;
  }
  if (state_->receiver.joinable()) state_->receiver.join();
  return status;
}

Result<scheduler::QueryCluster::Query> MpiCluster::Begin(
    const scheduler::StagePlan& stages, const exec::SessionConfig& config,
    std::shared_ptr<exec::MemoryManager> memory, const std::string& spill_directory,
    bool collect_metrics) {
  PauseAfterPlanningForTests();
  uint64_t query_id;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    query_id = state_->next_query++;
  }
  pb::ControlMessage m;
  pb::QueryBegin* begin = m.mutable_begin();
  begin->set_query_id(query_id);
  begin->set_collect_metrics(collect_metrics);
  for (const exec::SettingInfo& info : exec::SessionConfig::Registered()) {
    FLOE_ASSIGN_OR_RAISE(std::string value, config.Get(info.name));
    pb::KeyValue* kv = begin->add_settings();
    kv->set_key(info.name);
    kv->set_value(std::move(value));
  }
  const auto& all = stages.stages();
  for (size_t s = 0; s + 1 < all.size(); ++s) {
    pb::StagePlan* stage = begin->add_stages();
    stage->set_stage_id(all[s].id);
    FLOE_ASSIGN_OR_RAISE(*stage->mutable_plan(), exec::EncodePlan(*all[s].plan, *state_->codecs));
  }
  FLOE_ASSIGN_OR_RAISE(
      std::shared_ptr<DistributedExchange> exchange,
      MakeDistributedExchange(state_->server, query_id, std::move(memory), spill_directory));
  auto runner = std::make_shared<MpiQueryRunner>(state_, query_id, exchange);
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->queries[query_id] = runner;
  }
  for (int r = 1; r < state_->comm->size(); ++r) {
    FLOE_RETURN_NOT_OK(SendMessage(*state_->comm, r, kControlTag, m));
  }
  return Query{std::move(exchange), std::move(runner)};
}

namespace {

// One query on an executor rank.
struct ExecutorQuery {
  uint64_t id = 0;
  std::unique_ptr<exec::SpillDirectory> directory;
  std::shared_ptr<DistributedExchange> exchange;
  exec::TaskContextPtr ctx;
  std::map<int, exec::PlanPtr> stages;
  Status error;  // the query could not be set up here; every task reports it
  io::S3RequestCounts s3_at_begin = io::ProcessS3RequestCounts();

  ~ExecutorQuery() {
    ctx.reset();
    exchange.reset();
    directory.reset();
  }
};

std::shared_ptr<ExecutorQuery> BeginOnExecutor(const pb::QueryBegin& begin,
                                               const std::shared_ptr<ExchangeServer>& server,
                                               ThreadPool* threads,
                                               const exec::PlanCodecRegistry& codecs) {
  auto q = std::make_shared<ExecutorQuery>();
  q->id = begin.query_id();
  auto setup = [&]() -> Status {
    exec::SessionConfig config;
    for (const pb::KeyValue& kv : begin.settings()) {
      FLOE_RETURN_NOT_OK(config.Set(kv.key(), kv.value()));
    }
    FLOE_ASSIGN_OR_RAISE(q->directory, exec::SpillDirectory::Make(config.spill_directory(),
                                                                  "mpi-" + std::to_string(q->id)));
    const std::string& dir = q->directory->path();
    auto memory = std::make_shared<exec::MemoryManager>(config.memory_limit());
    FLOE_ASSIGN_OR_RAISE(q->exchange, MakeDistributedExchange(server, q->id, memory, dir));
    q->ctx = std::make_shared<exec::TaskContext>(config, memory, threads, dir, q->exchange);
    q->ctx->set_collect_metrics(begin.collect_metrics());
    for (const pb::StagePlan& stage : begin.stages()) {
      FLOE_ASSIGN_OR_RAISE(exec::PlanPtr plan, exec::DecodePlan(stage.plan(), codecs));
      FLOE_RETURN_NOT_OK(RegisterStage(*q->exchange, stage.stage_id(), plan));
      q->stages[stage.stage_id()] = std::move(plan);
    }
    return Status::OK();
  };
  q->error = setup();
  return q;
}

// What this rank counted of a query, for rank 0's EXPLAIN ANALYZE.
pb::QueryMetricsReport MetricsReport(uint64_t query_id, const ExecutorQuery* q) {
  pb::QueryMetricsReport report;
  report.set_query_id(query_id);
  Status usable = q == nullptr ? Status::Internal("query {} is unknown here", query_id) : q->error;
  if (usable.ok() && q->ctx->metrics() == nullptr) {
    usable = Status::Internal("query {} does not collect metrics", query_id);
  }
  if (!usable.ok()) {
    report.set_status_code(static_cast<int32_t>(usable.code()));
    report.set_message(usable.message());
    return report;
  }
  report.set_exchange_bytes_served(q->exchange->bytes_served());
  report.set_exchange_bytes_fetched(q->exchange->bytes_fetched());
  const io::S3RequestCounts s3 = io::ProcessS3RequestCounts() - q->s3_at_begin;
  pb::S3Requests* m = report.mutable_s3_requests();
  m->set_get(s3.get);
  m->set_head(s3.head);
  m->set_put(s3.put);
  m->set_list(s3.list);
  m->set_remove(s3.remove);
  m->set_other(s3.other);
  m->set_bytes_read(s3.bytes_read);
  m->set_bytes_written(s3.bytes_written);
  m->set_retries(s3.retries);
  m->set_failed(s3.failed);
  for (const auto& [stage_id, plan] : q->stages) {
    std::vector<const exec::ExecutionPlan*> nodes;
    PreOrder(*plan, &nodes);
    for (size_t n = 0; n < nodes.size(); ++n) {
      for (const auto& [partition, m] : q->ctx->metrics()->Of(nodes[n])) {
        pb::OperatorCounters* c = report.add_operators();
        c->set_stage_id(stage_id);
        c->set_node(static_cast<int32_t>(n));
        c->set_partition(partition);
        c->set_rows(m->rows.load());
        c->set_batches(m->batches.load());
        c->set_bytes(m->bytes.load());
        c->set_elapsed_nanos(m->elapsed_nanos.load());
        c->set_spilled_bytes(m->spilled_bytes.load());
        c->set_rejected_rows(m->rejected_rows.load());
      }
    }
  }
  return report;
}

}  // namespace

namespace {

// FLOE_TEST_KILL_RANK: when `stage` writes table files, this process kills itself a
// moment after the task begins (its files part-written, other ranks mid-task).
void DieDuringAWrite(const ExecutorQuery& q, int stage) {
  auto it = q.stages.find(stage);
  if (it == q.stages.end()) return;
  bool writes = false;
  std::vector<const exec::ExecutionPlan*> pending{it->second.get()};
  while (!pending.empty() && !writes) {
    const exec::ExecutionPlan* node = pending.back();
    pending.pop_back();
    // Plan node names are stable (the codec's); this hook knows the table writer by its own.
    writes = node->name() == "IcebergWriteExec";
    for (const exec::PlanPtr& child : node->children()) pending.push_back(child.get());
  }
  if (!writes) return;
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::raise(SIGKILL);
  }).detach();
}

}  // namespace

io::CredentialsFetcher CredentialsFromRank0(std::shared_ptr<Communicator> comm,
                                            std::chrono::milliseconds timeout) {
  struct Asker {
    std::mutex mutex;
    uint64_t serial = 0;
  };
  auto asker = std::make_shared<Asker>();
  return [comm = std::move(comm), timeout, asker](
             uint64_t id, const std::string& what,
             const io::ExpiringCredentials& held) -> Result<io::ExpiringCredentials> {
    // One request at a time: the replies come on one tag, and renewals are rare.
    std::lock_guard<std::mutex> lock(asker->mutex);
    pb::CredentialsRequest request;
    request.set_serial(++asker->serial);
    request.set_credentials_id(id);
    request.set_credentials_of(what);
    if (held.expires_at) request.set_held_expires_at_ms(io::ToEpochMillis(*held.expires_at));
    FLOE_RETURN_NOT_OK(SendMessage(*comm, 0, kCredentialsTag, request)
                           .WithPrefix(what + ": asking rank 0 for renewed S3 credentials: "));
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      Result<Message> message = left.count() > 0
                                    ? comm->Receive(0, kCredentialsReplyTag, {left})
                                    : Result<Message>(Status::IOError("no answer in time"));
      if (!message.ok()) {
        return Status::IOError(
            "{}: rank 0 did not answer a request for renewed S3 credentials "
            "within {} s ({})",
            what, timeout.count() / 1000, message.status().message());
      }
      pb::CredentialsReply reply;
      if (!codec::ParseMessage(message->view(), &reply)) {
        return Status::Corrupt("{}: rank 0's answer with renewed S3 credentials does not parse",
                               what);
      }
      if (reply.serial() != request.serial()) continue;  // to an earlier request that gave up
      FLOE_RETURN_NOT_OK(StatusFromWire(reply.status_code(), reply.message()));
      io::ExpiringCredentials fresh;
      fresh.credentials = {reply.access_key_id(), reply.secret_access_key(), reply.session_token()};
      if (reply.expires_at_ms() > 0) fresh.expires_at = io::FromEpochMillis(reply.expires_at_ms());
      return fresh;
    }
  };
}

Status AnswerCredentialsRequest(Communicator& comm, const Message& message) {
  pb::CredentialsRequest request;
  if (!codec::ParseMessage(message.view(), &request)) {
    return Status::Corrupt("a request for S3 credentials of {} bytes from rank {} does not parse",
                           message.view().size(), message.source);
  }
  io::ExpiringCredentials held;
  if (request.held_expires_at_ms() > 0) {
    held.expires_at = io::FromEpochMillis(request.held_expires_at_ms());
  }
  Result<io::ExpiringCredentials> fresh =
      io::RenewSharedCredentials(request.credentials_id(), request.credentials_of(), held);
  pb::CredentialsReply reply;
  reply.set_serial(request.serial());
  if (!fresh.ok()) {
    reply.set_status_code(static_cast<int32_t>(fresh.status().code()));
    reply.set_message(fresh.status().message());
  } else {
    reply.set_access_key_id(fresh->credentials.access_key_id);
    reply.set_secret_access_key(fresh->credentials.secret_access_key);
    reply.set_session_token(fresh->credentials.session_token);
    if (fresh->expires_at) reply.set_expires_at_ms(io::ToEpochMillis(*fresh->expires_at));
  }
  return SendMessage(comm, message.source, kCredentialsReplyTag, reply);
}

Status RunExecutor(const std::shared_ptr<Communicator>& comm,
                   const std::shared_ptr<ExchangeServer>& server, ThreadPool* threads,
                   const exec::PlanCodecRegistry& codecs) {
  // Credentials that stages carry are renewed by asking rank 0 (cluster.h), while this
  // rank runs tasks.
  io::SetCredentialsFetcher(CredentialsFromRank0(comm));
  struct FetcherReset {
    ~FetcherReset() { io::SetCredentialsFetcher(nullptr); }
  } fetcher_reset;
  // A test hook: FLOE_TEST_FAIL_RANK=N makes every task on rank N fail, so tests can prove
  // that a rank's failure fails the statement, commits nothing and hangs no rank.
  const char* fail_rank = std::getenv("FLOE_TEST_FAIL_RANK");
  const bool fail_here = fail_rank != nullptr && std::atoi(fail_rank) == comm->rank();
  // And FLOE_TEST_KILL_RANK=N: rank N dies (SIGKILL) while it runs its first task of a
  // stage that writes table files, so tests can prove that a rank dying mid-write ends the
  // job on every rank and commits nothing.
  const char* kill_rank = std::getenv("FLOE_TEST_KILL_RANK");
  const bool kill_here = kill_rank != nullptr && std::atoi(kill_rank) == comm->rank();
  std::map<uint64_t, std::shared_ptr<ExecutorQuery>> queries;
  auto running = std::make_shared<std::atomic<int>>(0);
  while (true) {
    // The exchange server's thread receives them (RunUnderMpi): one thread per rank polls.
    FLOE_ASSIGN_OR_RAISE(std::optional<Message> message,
                         server->TakeForwarded(std::chrono::milliseconds(-1)));
    if (!message) {
      return Status::Internal("rank {}: the control messages ended before a shutdown",
                              comm->rank());
    }
    pb::ControlMessage m;
    if (!codec::ParseMessage(message->view(), &m)) {
      return Status::Corrupt("rank {}: a control message of {} bytes does not parse", comm->rank(),
                             message->view().size());
    }
    switch (m.kind_case()) {
      case pb::ControlMessage::kBegin:
        queries[m.begin().query_id()] = BeginOnExecutor(m.begin(), server, threads, codecs);
        break;
      case pb::ControlMessage::kTask: {
        const pb::TaskAssignment& task = m.task();
        auto it = queries.find(task.query_id());
        std::shared_ptr<ExecutorQuery> q = it == queries.end() ? nullptr : it->second;
        running->fetch_add(1);
        threads->Spawn([comm, q, task, running, fail_here, kill_here]() mutable {
          Status status;
          if (kill_here && q != nullptr) DieDuringAWrite(*q, task.stage_id());
          if (fail_here) {
            status = Status::Internal(
                "injected failure (FLOE_TEST_FAIL_RANK) in stage {} "
                "partition {}",
                task.stage_id(), task.partition());
          } else if (q == nullptr) {
            status = Status::Internal("query {} is unknown here", task.query_id());
          } else if (!q->error.ok()) {
            status = q->error;
          } else if (auto stage = q->stages.find(task.stage_id()); stage == q->stages.end()) {
            status = Status::Corrupt("stage {} of query {} is unknown here", task.stage_id(),
                                     task.query_id());
          } else {
            status = scheduler::RunStageTask(stage->second, task.partition(), q->ctx);
          }
          pb::TaskDone done;
          if (status.ok() && q != nullptr) {
            for (int64_t n : q->exchange->PieceRows(task.stage_id(), task.partition())) {
              done.add_output_rows(n);
            }
          }
          q.reset();  // the query may end while this closure is still kept
          done.set_query_id(task.query_id());
          done.set_stage_id(task.stage_id());
          done.set_partition(task.partition());
          done.set_status_code(static_cast<int32_t>(status.code()));
          done.set_message(status.message());
          Status sent = SendMessage(*comm, 0, kTaskDoneTag, done);
          if (!sent.ok()) {
            std::fprintf(stderr, "floe: rank %d cannot report a task: %s\n", comm->rank(),
                         sent.ToString().c_str());
          }
          running->fetch_sub(1);
        });
        break;
      }
      case pb::ControlMessage::kOwners: {
        auto it = queries.find(m.owners().query_id());
        if (it == queries.end() || !it->second->error.ok()) break;
        std::vector<int> ranks(m.owners().ranks().begin(), m.owners().ranks().end());
        Status told = it->second->exchange->SetStageOwners(m.owners().stage_id(), ranks);
        if (told.ok() && m.owners().output_rows_size() > 0) {
          // Row counts only size readers: counts that do not fit the stage are left out.
          (void)it->second->exchange->SetStageRows(
              m.owners().stage_id(), std::vector<int64_t>(m.owners().output_rows().begin(),
                                                          m.owners().output_rows().end()));
        }
        if (told.ok()) told = it->second->exchange->MarkComplete(m.owners().stage_id());
        if (!told.ok()) it->second->error = told;
        break;
      }
      case pb::ControlMessage::kCancel: {
        auto it = queries.find(m.cancel().query_id());
        if (it != queries.end() && it->second->ctx) it->second->ctx->Cancel();
        break;
      }
      case pb::ControlMessage::kSeal: {
        // Every write task of the query has ended (the commit reads their outputs).
        auto it = queries.find(m.seal().query_id());
        if (it != queries.end() && it->second->ctx) {
          iceberg::InFlightFiles::Process().Seal(it->second->ctx.get());
        }
        pb::SealDone done;
        done.set_query_id(m.seal().query_id());
        FLOE_RETURN_NOT_OK(SendMessage(*comm, 0, kSealTag, done));
        break;
      }
      case pb::ControlMessage::kMetrics: {
        // Every task of the query has ended (rank 0 waited for their completions).
        auto it = queries.find(m.metrics().query_id());
        pb::QueryMetricsReport report =
            MetricsReport(m.metrics().query_id(), it == queries.end() ? nullptr : it->second.get());
        FLOE_RETURN_NOT_OK(SendMessage(*comm, 0, kMetricsTag, report));
        break;
      }
      case pb::ControlMessage::kEnd: {
        // Every task of the query has ended (rank 0 waited for their completions).
        auto it = queries.find(m.end().query_id());
        if (it == queries.end()) break;
        if (!m.end().succeeded() && it->second->error.ok()) {
          for (const auto& [id, plan] : it->second->stages) {
            Status deleted = exec::DeleteUncommittedWrites(plan, it->second->ctx);
            if (!deleted.ok()) {
              std::fprintf(stderr, "floe: rank %d: %s\n", comm->rank(), deleted.ToString().c_str());
            }
          }
        }
        // Deleted or committed: nothing of the query is in flight any more.
        if (it->second->ctx) iceberg::InFlightFiles::Process().Seal(it->second->ctx.get());
        queries.erase(it);
        break;
      }
      case pb::ControlMessage::kShutdown:
        queries.clear();
        while (running->load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return Status::OK();
      default:
        return Status::Corrupt("rank {}: an empty control message", comm->rank());
    }
  }
}

int RunUnderMpi(
    int threads, const exec::PlanCodecRegistry& codecs,
    const std::function<int(const std::shared_ptr<scheduler::QueryCluster>&)>& rank0_main) {
  Result<std::shared_ptr<Communicator>> comm = Communicator::Init();
  if (!comm.ok()) {
    std::fprintf(stderr, "floe: %s\n", comm.status().ToString().c_str());
    return 1;
  }
  if (threads <= 0) threads = TaskSlotsOfThisRank();
  int code = 0;
  {
    Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Make(threads);
    // The serving thread also receives the scheduler's messages: task completions on rank
    // 0, control messages from rank 0 elsewhere.
    ExchangeServerOptions options;
    const bool scheduler = (*comm)->rank() == 0;
    options.forward_tags =
        scheduler ? std::vector<int>{kTaskDoneTag, kCredentialsTag} : std::vector<int>{kControlTag};
    options.forward_source = scheduler ? kAnySource : 0;
    Result<std::shared_ptr<ExchangeServer>> server =
        pool.ok() ? ExchangeServer::Start(*comm, options) : pool.status();
    if (!server.ok()) {
      std::fprintf(stderr, "floe: rank %d: %s\n", (*comm)->rank(),
                   server.status().ToString().c_str());
      (*comm)->Abort(1);
    }
    // Every rank's task slots, for rank 0's placement (hosts may differ in cores).
    Result<std::vector<int64_t>> slots = (*comm)->AllGather(threads);
    if (!slots.ok()) {
      std::fprintf(stderr, "floe: rank %d: %s\n", (*comm)->rank(),
                   slots.status().ToString().c_str());
      (*comm)->Abort(1);
    }
    if ((*comm)->rank() == 0) {
      Result<std::shared_ptr<MpiCluster>> cluster = MpiCluster::Start(
          *comm, *server, pool->get(), std::vector<int>(slots->begin(), slots->end()), &codecs);
      if (!cluster.ok()) {
        std::fprintf(stderr, "floe: %s\n", cluster.status().ToString().c_str());
        (*comm)->Abort(1);
      }
      code = rank0_main(*cluster);
      Status stopped = (*cluster)->Shutdown();
      if (!stopped.ok()) {
        std::fprintf(stderr, "floe: %s\n", stopped.ToString().c_str());
        code = code == 0 ? 1 : code;
      }
    } else {
      Status status = RunExecutor(*comm, *server, pool->get(), codecs);
      if (!status.ok()) {
        std::fprintf(stderr, "floe: rank %d: %s\n", (*comm)->rank(), status.ToString().c_str());
        (*comm)->Abort(1);
      }
    }
    // No rank reads from another any more once every rank is here.
    (void)(*comm)->Barrier();
    (void)(*server)->Stop();
  }
  (void)(*comm)->Finalize();
  return code;
}

}  // namespace floe::dist
