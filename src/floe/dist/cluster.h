#pragma once

// floe's processes under mpirun (DESIGN.md section 3): rank 0 runs the command, parses,
// binds and plans every statement (Iceberg files are planned there, once) and schedules
// its tasks; every rank, rank 0 included, executes tasks. A query's non-final stages go to
// every rank as bytes through the plan codec when it begins; tasks are then handed out
// one at a time to the rank with the most free slots, so a slow rank gets fewer; stage
// outputs stay where their tasks ran and move between ranks through the distributed
// exchange (exchange.h); the final stage runs on rank 0, which prints its rows, and an
// Iceberg commit (always in the final stage) therefore runs there, exactly once.
//
// Control messages (codec/plan.proto ControlMessage) travel from rank 0 to each executor
// on kControlTag, in order (MPI keeps the order of one sender's messages on one tag, so a
// stage's owners always arrive before a task that reads the stage); completions
// (TaskDone) come back on kTaskDoneTag, and EXPLAIN ANALYZE's counters of each rank
// (QueryMetricsReport, on request once every task has ended) on kMetricsTag. A failed
// task fails the statement on rank 0 with the rank's message ("rank 2: ..."); the other
// ranks' tasks of it are cancelled.
//
// Only rank 0 talks to the catalog. S3 credentials that the catalog vends for a limited
// time reach the executors with the stages (the plan codec carries them, their expiry and
// the id rank 0 shares them by), and an executor renews them by asking rank 0: when its
// S3 client finds them due (io::CredentialsProvider, the same rule as on rank 0), it sends
// a CredentialsRequest on kCredentialsTag and waits for rank 0's CredentialsReply on
// kCredentialsReplyTag; rank 0 answers from the receiving thread of task completions with
// the provider the plan was made with, which renews them at the catalog once for every
// rank. Asking, rather than rank 0 pushing renewed credentials down the control tag, needs
// no timer on rank 0 and no record of which executor got which credentials, renews only
// credentials some rank still uses, and cannot race an expiry with a queue of control
// messages: an executor that needs credentials has them when its request returns.

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "floe/common/result.h"
#include "floe/common/thread_pool.h"
#include "floe/dist/exchange.h"
#include "floe/dist/mpi_runtime.h"
#include "floe/exec/plan_codec.h"
#include "floe/io/credentials_provider.h"
#include "floe/scheduler/query_cluster.h"

namespace floe::dist {

inline constexpr int kControlTag = 1;
inline constexpr int kTaskDoneTag = 2;
inline constexpr int kMetricsTag = 3;           // QueryMetricsReport, executor -> rank 0
inline constexpr int kSealTag = 4;              // SealDone, executor -> rank 0
inline constexpr int kCredentialsTag = 5;       // CredentialsRequest, executor -> rank 0
inline constexpr int kCredentialsReplyTag = 6;  // CredentialsReply, rank 0 -> executor

/// Rank 0's side: a QueryCluster for the session (exec/query_cluster.h).
class MpiCluster final : public scheduler::QueryCluster {
 public:
  /// Starts the thread that receives task completions. `threads` runs rank 0's own tasks;
  /// rank r runs up to `slots[r]` tasks at once (one entry per rank). Stages travel
  /// encoded with `codecs` (which outlives the cluster).
  static Result<std::shared_ptr<MpiCluster>> Start(std::shared_ptr<Communicator> comm,
                                                   std::shared_ptr<ExchangeServer> server,
                                                   ThreadPool* threads, std::vector<int> slots,
                                                   const exec::PlanCodecRegistry* codecs);
  ~MpiCluster() override;

  Result<Query> Begin(const scheduler::StagePlan& stages, const exec::SessionConfig& config,
                      std::shared_ptr<exec::MemoryManager> memory,
                      const std::string& spill_directory, bool collect_metrics) override;
  int slots() const override;

  /// Tells every executor rank to stop (after its running tasks) and stops receiving.
  Status Shutdown();

  struct State;

 private:
  explicit MpiCluster(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

/// The loop of every rank but 0: runs the queries' tasks rank 0 sends, on `threads`, until
/// rank 0 sends Shutdown. Stages are decoded with `codecs`.
Status RunExecutor(const std::shared_ptr<Communicator>& comm,
                   const std::shared_ptr<ExchangeServer>& server, ThreadPool* threads,
                   const exec::PlanCodecRegistry& codecs);

/// An executor's io::CredentialsFetcher: asks rank 0 for credentials newer than those it
/// holds, one request of this process at a time, and waits at most `timeout` for the
/// answer. Rank 0's error (a refused renewal, a plan that has ended) comes back with its
/// code and message; kIOError naming the credentials when rank 0 does not answer in time.
/// RunExecutor installs it for its process.
io::CredentialsFetcher CredentialsFromRank0(
    std::shared_ptr<Communicator> comm,
    std::chrono::milliseconds timeout = std::chrono::minutes(2));

/// Rank 0's side: answers one CredentialsRequest (`request`, received on kCredentialsTag)
/// with the shared provider's newer credentials (io::RenewSharedCredentials) or its error.
/// An error only when the request does not parse or the reply cannot be sent.
Status AnswerCredentialsRequest(Communicator& comm, const Message& request);

/// The whole process under mpirun: initialises MPI and the exchange server; rank 0 runs
/// `rank0_main` with the cluster (its return value is the exit code) and then stops the
/// executors; every other rank runs RunExecutor. Finalizes MPI at the end. `threads`: this
/// rank's task slots (0: the CPUs mpirun bound the rank to, or when it did not bind them,
/// the hardware threads divided among the ranks on this host); ranks may differ, and
/// rank 0 places tasks by each rank's free slots. Every rank codes stages with `codecs`.
int RunUnderMpi(
    int threads, const exec::PlanCodecRegistry& codecs,
    const std::function<int(const std::shared_ptr<scheduler::QueryCluster>&)>& rank0_main);

}  // namespace floe::dist
