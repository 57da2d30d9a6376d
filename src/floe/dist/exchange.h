#pragma once

// The distributed exchange (DESIGN.md section 3): exec::ExchangeService across MPI ranks.
//
// Each rank keeps the output of the shuffle-writer tasks it ran in a local exchange
// (scheduler::MakeLocalExchange: in memory within the query's budget, spilling past it), one
// piece per (stage, input partition). A reader on any rank streams output partition p of
// a stage as input partition 0's batches in the order written, then 1's, and so on: its
// own pieces from the local exchange, the others fetched from their owner rank, one chunk
// (up to `chunk_bytes` of encoded batches) per request with one request ahead, so a
// stream holds at most two chunks at a time (one piece is open at a time). Received
// chunks are not counted in the query's memory budget. protocol.h documents the messages.
//
// Wiring (the integrator's scheduler and CLI):
//   - Process start, on every rank when LaunchedUnderMpi():
//       comm = Communicator::Init();  server = ExchangeServer::Start(comm);
//   - A query: rank 0 picks a query id (unique for the process lifetime, e.g. a counter)
//     and sends it with the stages. Every rank, rank 0 included, makes
//       exchange = MakeDistributedExchange(server, query_id, memory, spill_directory)
//     and hands it to its tasks as the query's ExchangeService, and calls
//     exchange->RegisterStage(...) for every stage it writes or reads (the stage's plan
//     carries the schema and partition counts), before the stage's tasks run.
//   - A task of (stage, input partition i) on rank r writes through exchange->Write /
//     Finish exactly as in one process; the data stays on rank r.
//   - When every task of a stage has finished, rank 0 knows which rank ran each input
//     partition and tells every rank that reads the stage (its control message):
//       exchange->SetStageOwners(stage, rank_of_input_partition);
//       exchange->SetStageRows(stage, rows_of_output_partition);  // optional: RowCount
//       exchange->MarkComplete(stage);
//     Then IsComplete(stage) is true there and Open streams the partitions.
//   - Remove(stage) on any rank that was told the owners (rank 0) frees the stage's data
//     on every owner rank (it sends them a removal); calling it on every rank is also fine.
//   - End of query: destroy the exchange on every rank (frees what is left, files too),
//     but only once no rank reads from it any more (rank 0 knows: after the final stage
//     ended, or after the query failed and every rank's tasks stopped). A rank that drops
//     it early makes the others' fetches fail with "query Q has no exchange on rank R".
//   - Tags 0..kExchangeRequestTag-1 (protocol.h) are free for the scheduler's messages.
//   - Process end: every rank finishes its queries, then Communicator::Barrier() (so no
//     rank still reads from another), then server->Stop(), then comm->Finalize().
// A failed fetch (unknown stage or query on the owner, corrupt data, I/O error) reaches
// the reader's stream as a Status carrying the owner's code and message, prefixed with
// the query, stage, partitions and owner rank.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/dist/mpi_runtime.h"
#include "floe/exec/exchange_service.h"
#include "floe/exec/memory_manager.h"

namespace floe::dist {

class QueryExchange;

struct ExchangeServerOptions {
  /// A reply carries encoded batches up to about this many bytes (at least one batch; a
  /// batch larger than this is sent in row slices that fit).
  int64_t chunk_bytes = int64_t{4} << 20;
  /// How long the serving thread pauses after a failed MPI call.
  std::chrono::milliseconds poll_interval{50};
  /// Messages with these tags from `forward_source` (or any rank) that the serving thread
  /// also receives and keeps, in the order received, for TakeForwarded (none: empty). A
  /// rank's scheduler messages come this way, so that one thread per rank polls MPI: every
  /// polling thread wakes up about every half millisecond while it waits, and each wake-up
  /// takes the core from a task for a moment. Messages of one tag keep their order; a
  /// message's `tag` tells the kinds apart.
  std::vector<int> forward_tags;
  int forward_source = kAnySource;
};

/// Answers other ranks' fetch requests for the queries this rank holds data of, on one
/// serving thread, until Stop. One per process.
class ExchangeServer {
 public:
  /// Starts the serving thread.
  static Result<std::shared_ptr<ExchangeServer>> Start(std::shared_ptr<Communicator> comm,
                                                       ExchangeServerOptions options = {});
  /// Stops the serving thread if Stop was not called.
  ~ExchangeServer();
  ExchangeServer(const ExchangeServer&) = delete;
  ExchangeServer& operator=(const ExchangeServer&) = delete;

  /// Stops serving (at the thread's next poll) and joins the thread. Requests that arrive
  /// later are not answered, so call it only when no rank reads any more (after a
  /// barrier). Returns the first error the serving thread met (a failed MPI call), if any.
  Status Stop();

  const std::shared_ptr<Communicator>& comm() const { return comm_; }
  const ExchangeServerOptions& options() const { return options_; }

  /// Requests served so far (for tests and metrics).
  int64_t requests_served() const;

  /// The next message of ExchangeServerOptions::forward_tags, in the order received: waits
  /// at most `wait` (negative: without a limit) and returns nullopt when none came or
  /// CloseForwarded was called. The error that stopped the serving thread from receiving
  /// (a failed MPI call, a message too large to hold) once the messages before it are
  /// taken; kInvalidArgument without forward tags.
  Result<std::optional<Message>> TakeForwarded(std::chrono::milliseconds wait);
  /// Wakes every TakeForwarded and makes later ones return nullopt at once.
  void CloseForwarded();

 private:
  friend class QueryExchange;
  friend Result<std::shared_ptr<class DistributedExchange>> MakeDistributedExchange(
      std::shared_ptr<ExchangeServer>, uint64_t, std::shared_ptr<exec::MemoryManager>, std::string);
  struct State;
  ExchangeServer(std::shared_ptr<Communicator> comm, ExchangeServerOptions options);
  void Serve();

  std::shared_ptr<Communicator> comm_;
  ExchangeServerOptions options_;
  std::shared_ptr<State> state_;
};

/// One query's exchange on one rank. Thread-safe, like exec::ExchangeService.
class DistributedExchange final : public exec::ExchangeService {
 public:
  ~DistributedExchange() override;

  Status RegisterStage(int stage, SchemaPtr schema, int input_partitions,
                       int output_partitions) override;
  /// Keeps the batch in this rank's local exchange (spilling past the memory budget).
  Status Write(int stage, int input_partition, int output_partition,
               const RecordBatchPtr& batch) override;
  Status Finish(int stage, int input_partition) override;
  /// True after MarkComplete(stage), or once this rank finished every input partition.
  bool IsComplete(int stage) const override;
  /// Streams output partition `output_partition`: input partition 0's batches in order,
  /// then 1's, ...; local pieces are read here, the others fetched from the rank that
  /// SetStageOwners named (or this rank, for partitions it finished itself). kInternal
  /// when the stage is unknown or not complete, or an owner is unknown; fetch errors come
  /// from the stream's Next.
  Result<exec::BatchStreamPtr> Open(int stage, int output_partition) override;
  /// The rows output partition `output_partition` of a complete stage holds on all ranks,
  /// once SetStageRows told them; nullopt before (a hint, see exec::ExchangeService).
  std::optional<int64_t> RowCount(int stage, int output_partition) const override;
  /// Drops this rank's data of the stage and sends a removal to every other owner rank
  /// named by SetStageOwners.
  void Remove(int stage) override;
  /// Looks for requests and forwarded messages for this rank's serving thread (at most
  /// every 250 us per process) and wakes it when one came: while task threads run, the
  /// serving thread then sleeps longer between its own polls.
  void Progress() override;

  /// Records which rank ran (and so holds the output of) each input partition of
  /// `stage`: rank_of_input_partition[i] for input partition i. kInvalidArgument for an
  /// unregistered stage, a wrong count or a rank outside the job.
  Status SetStageOwners(int stage, std::vector<int> rank_of_input_partition);
  /// Marks `stage` as complete on this rank (every task of it finished somewhere).
  /// kInvalidArgument for an unregistered stage.
  Status MarkComplete(int stage);
  /// Records how many rows each output partition of `stage` holds over all ranks (the
  /// sums of every input partition's PieceRows), for RowCount. kInvalidArgument for an
  /// unregistered stage, a wrong count or a negative one.
  Status SetStageRows(int stage, std::vector<int64_t> rows_of_output_partition);
  /// The rows input partition `input_partition` of `stage`, finished on this rank, wrote
  /// to each output partition; empty when this rank did not finish it.
  std::vector<int64_t> PieceRows(int stage, int input_partition) const;
  /// The input partitions of `stage` this rank has finished, ascending.
  std::vector<int> LocalInputPartitions(int stage) const;

  uint64_t query_id() const;

  /// Bytes this rank sent to other ranks' readers of this query (data and error
  /// replies, headers included), and bytes its own readers received from other ranks:
  /// the "bytes exchanged" of EXPLAIN ANALYZE. Local pieces count in neither.
  int64_t bytes_served() const;
  int64_t bytes_fetched() const;

  /// How long a reader waits for each reply before failing with kIOError; negative (the
  /// default) waits without a limit.
  void set_fetch_timeout(std::chrono::milliseconds timeout);

 private:
  friend Result<std::shared_ptr<DistributedExchange>> MakeDistributedExchange(
      std::shared_ptr<ExchangeServer>, uint64_t, std::shared_ptr<exec::MemoryManager>, std::string);
  explicit DistributedExchange(std::shared_ptr<QueryExchange> query);
  std::shared_ptr<QueryExchange> query_;
};

/// The exchange of query `query_id` on this rank, served to the other ranks by `server`
/// while it lives. Local pieces are kept within `memory` and spill to `spill_directory`.
/// kInvalidArgument when an exchange of the same query id is alive in this process.
Result<std::shared_ptr<DistributedExchange>> MakeDistributedExchange(
    std::shared_ptr<ExchangeServer> server, uint64_t query_id,
    std::shared_ptr<exec::MemoryManager> memory, std::string spill_directory);

}  // namespace floe::dist
