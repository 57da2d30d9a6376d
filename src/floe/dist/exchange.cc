#include "floe/dist/exchange.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "floe/dist/protocol.h"
#include "floe/exec/spill.h"
#include "floe/scheduler/local_exchange.h"

namespace floe::dist {

namespace {

// Requests are a fixed size; anything much larger is not a request.
constexpr int64_t kMaxRequestBytes = 4096;

// A reply made as a string (errors), as a buffer that keeps the string.
BufferPtr ReplyBuffer(std::string bytes) {
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  return Buffer::Wrap(reinterpret_cast<const uint8_t*>(owner->data()),
                      static_cast<int64_t>(owner->size()), owner);
}

}  // namespace

struct ExchangeServer::State {
  std::mutex mutex;
  // The forwarded messages not taken yet (under `mutex`); `forwarded_error` follows them.
  std::deque<Message> forwarded;
  Status forwarded_error;
  bool forwarded_closed = false;
  std::condition_variable forwarded_ready;
  // What the serving thread probes for: requests, then the forwarded tags.
  std::vector<MessageFilter> filters;
  // Waking the serving thread from its wait: a task thread saw a message (Nudge), or Stop.
  std::mutex wait_mutex;
  std::condition_variable wait_ready;
  bool wake = false;  // under wait_mutex
  // When a task thread last looked for messages (steady clock, nanoseconds).
  std::atomic<int64_t> last_nudge{0};
  std::map<uint64_t, std::weak_ptr<QueryExchange>> queries;
  std::thread thread;
  std::atomic<bool> stop{false};
  bool joined = false;
  Status error;
  std::atomic<int64_t> served{0};
  std::atomic<uint64_t> next_stream{0};

  static int64_t Now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  // A task thread between batches: at most every kNudgeInterval (one thread at a time),
  // looks for a message the serving thread should take and wakes it when there is one.
  void Nudge(Communicator& comm) {
    const int64_t now = Now();
    int64_t last = last_nudge.load(std::memory_order_relaxed);
    if (now - last < kNudgeInterval.count()) return;
    if (!last_nudge.compare_exchange_strong(last, now, std::memory_order_relaxed)) return;
    Result<bool> pending = comm.Probe(std::span(filters.data(), filters.size()));
    // A failed probe is the serving thread's to meet: its own receive fails the same way.
    if (pending.ok() && *pending) Wake();
  }

  // Keeps a forwarded message for TakeForwarded.
  void Forward(Message message) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      forwarded.push_back(std::move(message));
    }
    forwarded_ready.notify_all();
  }

  // Passes `st` to the taker of forwarded messages, after those already kept.
  void FailForwarded(const Status& st) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (forwarded_error.ok()) forwarded_error = st;
    }
    forwarded_ready.notify_all();
  }

  void Wake() {
    {
      std::lock_guard<std::mutex> lock(wait_mutex);
      wake = true;
    }
    wait_ready.notify_one();
  }

  // The serving thread found nothing in its last poll: waits as the communicator's polls
  // do (`backoff`), but at most 0.1 ms while replies are on their way (they complete only
  // while this rank calls MPI), and kNudgedSleep while task threads look for messages
  // (they wake it when one comes), so that it seldom takes the core from a running task.
  void WaitForWork(Backoff& backoff, bool sending) {
    std::chrono::nanoseconds sleep = backoff.Next();
    if (sleep.count() == 0) {
      std::this_thread::yield();
      return;
    }
    if (sending) {
      sleep = std::min<std::chrono::nanoseconds>(sleep, std::chrono::microseconds{100});
    } else if (Now() - last_nudge.load(std::memory_order_relaxed) < kNudgedRecently.count()) {
      sleep = kNudgedSleep;
    }
    std::unique_lock<std::mutex> lock(wait_mutex);
    wait_ready.wait_for(lock, sleep, [this] { return wake || stop.load(); });
    wake = false;
  }

  static constexpr std::chrono::nanoseconds kNudgeInterval = std::chrono::microseconds{250};
  static constexpr std::chrono::nanoseconds kNudgedRecently = std::chrono::milliseconds{1};
  static constexpr std::chrono::nanoseconds kNudgedSleep = std::chrono::milliseconds{2};

  void RecordError(const Status& st) {
    std::lock_guard<std::mutex> lock(mutex);
    if (error.ok()) error = st;
  }
  std::shared_ptr<QueryExchange> Find(uint64_t query_id) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = queries.find(query_id);
    return it == queries.end() ? nullptr : it->second.lock();
  }
};

// One query's exchange state on this rank: the stages, this rank's pieces in the local
// exchange, and the streams the serving thread has open for other ranks.
class QueryExchange : public std::enable_shared_from_this<QueryExchange> {
 public:
  QueryExchange(std::shared_ptr<Communicator> comm, std::shared_ptr<ExchangeServer::State> server,
                ExchangeServerOptions options, uint64_t query_id,
                std::shared_ptr<exec::ExchangeService> local)
      : comm_(std::move(comm)),
        server_(std::move(server)),
        options_(options),
        query_id_(query_id),
        local_(std::move(local)) {}

  uint64_t query_id() const { return query_id_; }
  int rank() const { return comm_->rank(); }
  const std::shared_ptr<Communicator>& comm() const { return comm_; }
  std::chrono::milliseconds fetch_timeout() const {
    return std::chrono::milliseconds{fetch_timeout_ms_.load()};
  }
  void set_fetch_timeout(std::chrono::milliseconds t) { fetch_timeout_ms_ = t.count(); }
  uint64_t NewStreamId() { return server_->next_stream.fetch_add(1); }
  void Nudge() { server_->Nudge(*comm_); }

  // Bytes of replies this rank served to other ranks' readers, and received by its own.
  std::atomic<int64_t> bytes_served{0};
  std::atomic<int64_t> bytes_fetched{0};

  // Drops the server's registry entry for this query (when it is this query's).
  void Unregister() {
    std::lock_guard<std::mutex> lock(server_->mutex);
    auto it = server_->queries.find(query_id_);
    if (it == server_->queries.end()) return;
    auto current = it->second.lock();
    if (!current || current.get() == this) server_->queries.erase(it);
  }

  Status RegisterStage(int stage, SchemaPtr schema, int input_partitions, int output_partitions) {
    if (input_partitions < 0 || output_partitions < 1 || !schema) {
      return Status::Invalid("exchange stage {}: bad partition counts {} -> {}", stage,
                             input_partitions, output_partitions);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    StageInfo info;
    info.schema = std::move(schema);
    info.inputs = input_partitions;
    info.outputs = output_partitions;
    if (!stages_.emplace(stage, std::move(info)).second) {
      return Status::Invalid("exchange stage {} registered twice", stage);
    }
    return Status::OK();
  }

  // The local exchange's stage that holds (stage, input partition), made on first use.
  Result<int> LocalId(int stage, int input_partition, bool finishing) {
    std::lock_guard<std::mutex> lock(mutex_);
    FLOE_ASSIGN_OR_RAISE(StageInfo * info, GetStage(stage));
    if (input_partition < 0 || input_partition >= info->inputs) {
      return Status::Internal("exchange stage {}: input partition {} out of range ({})", stage,
                              input_partition, info->inputs);
    }
    auto it = info->pieces.find(input_partition);
    if (it == info->pieces.end()) {
      const int id = next_local_id_++;
      FLOE_RETURN_NOT_OK(local_->RegisterStage(id, info->schema, 1, info->outputs));
      it = info->pieces.emplace(input_partition, Piece{id, false}).first;
    }
    if (it->second.finished) {
      return Status::Internal("exchange stage {}: input partition {} {} after it finished", stage,
                              input_partition, finishing ? "finished twice" : "written");
    }
    if (finishing) {
      it->second.finished = true;
      ++info->finished;
    }
    return it->second.local_id;
  }

  Status Write(int stage, int input_partition, int output_partition, const RecordBatchPtr& batch) {
    FLOE_ASSIGN_OR_RAISE(int id, LocalId(stage, input_partition, false));
    return local_->Write(id, 0, output_partition, batch);
  }

  Status Finish(int stage, int input_partition) {
    FLOE_ASSIGN_OR_RAISE(int id, LocalId(stage, input_partition, true));
    return local_->Finish(id, 0);
  }

  bool IsComplete(int stage) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = stages_.find(stage);
    return it != stages_.end() && IsCompleteLocked(it->second);
  }

  Status SetStageOwners(int stage, std::vector<int> owners) {
    std::lock_guard<std::mutex> lock(mutex_);
    FLOE_ASSIGN_OR_RAISE(StageInfo * info, RegisteredLocked(stage, "owners set"));
    if (static_cast<int>(owners.size()) != info->inputs) {
      return Status::Invalid("exchange stage {}: {} owners for {} input partitions", stage,
                             owners.size(), info->inputs);
    }
    for (size_t i = 0; i < owners.size(); ++i) {
      if (owners[i] < 0 || owners[i] >= comm_->size()) {
        return Status::Invalid(
            "exchange stage {}: input partition {} owned by rank {}, not in "
            "the job's {} ranks",
            stage, i, owners[i], comm_->size());
      }
    }
    info->owners = std::move(owners);
    return Status::OK();
  }

  Status MarkComplete(int stage) {
    std::lock_guard<std::mutex> lock(mutex_);
    FLOE_ASSIGN_OR_RAISE(StageInfo * info, RegisteredLocked(stage, "marked complete"));
    info->marked_complete = true;
    return Status::OK();
  }

  Status SetStageRows(int stage, std::vector<int64_t> rows) {
    std::lock_guard<std::mutex> lock(mutex_);
    FLOE_ASSIGN_OR_RAISE(StageInfo * info, RegisteredLocked(stage, "rows set"));
    if (static_cast<int>(rows.size()) != info->outputs) {
      return Status::Invalid("exchange stage {}: row counts of {} output partitions for {}", stage,
                             rows.size(), info->outputs);
    }
    for (size_t o = 0; o < rows.size(); ++o) {
      if (rows[o] < 0) {
        return Status::Invalid("exchange stage {}: output partition {} has {} rows", stage, o,
                               rows[o]);
      }
    }
    info->rows = std::move(rows);
    return Status::OK();
  }

  std::optional<int64_t> RowCount(int stage, int output_partition) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = stages_.find(stage);
    if (it == stages_.end() || !IsCompleteLocked(it->second) || output_partition < 0 ||
        static_cast<size_t>(output_partition) >= it->second.rows.size()) {
      return std::nullopt;
    }
    return it->second.rows[static_cast<size_t>(output_partition)];
  }

  std::vector<int64_t> PieceRows(int stage, int input_partition) const {
    int id = 0;
    int outputs = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = stages_.find(stage);
      if (it == stages_.end()) return {};
      auto piece = it->second.pieces.find(input_partition);
      if (piece == it->second.pieces.end() || !piece->second.finished) return {};
      id = piece->second.local_id;
      outputs = it->second.outputs;
    }
    std::vector<int64_t> rows(static_cast<size_t>(outputs));
    for (int o = 0; o < outputs; ++o) {
      std::optional<int64_t> n = local_->RowCount(id, o);
      if (!n) return {};
      rows[static_cast<size_t>(o)] = *n;
    }
    return rows;
  }

  std::vector<int> LocalInputPartitions(int stage) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<int> out;
    auto it = stages_.find(stage);
    if (it == stages_.end()) return out;
    for (const auto& [partition, piece] : it->second.pieces) {
      if (piece.finished) out.push_back(partition);
    }
    return out;
  }

  // What a reader needs to stream output partition `output_partition`.
  struct ReadPlan {
    SchemaPtr schema;
    std::vector<int> owners;
  };
  Result<ReadPlan> PlanRead(int stage, int output_partition) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = stages_.find(stage);
    if (it == stages_.end()) {
      return Status::Internal("exchange stage {} of query {} is unknown on rank {}", stage,
                              query_id_, rank());
    }
    const StageInfo& info = it->second;
    if (!IsCompleteLocked(info)) {
      return Status::Internal("exchange stage {} is read before it completed", stage);
    }
    if (output_partition < 0 || output_partition >= info.outputs) {
      return Status::Internal("exchange stage {}: output partition {} out of range ({})", stage,
                              output_partition, info.outputs);
    }
    ReadPlan plan;
    plan.schema = info.schema;
    plan.owners = info.owners;
    if (plan.owners.empty()) {
      // No owners were given: every input partition must have been finished here.
      for (int i = 0; i < info.inputs; ++i) {
        auto piece = info.pieces.find(i);
        if (piece == info.pieces.end() || !piece->second.finished) {
          return Status::Internal(
              "exchange stage {}: the rank holding input partition {} is unknown on rank {} "
              "(SetStageOwners was not called)",
              stage, i, rank());
        }
        plan.owners.push_back(rank());
      }
    }
    return plan;
  }

  // This rank's piece (stage, input partition) for one output partition.
  Result<exec::BatchStreamPtr> OpenLocalPiece(int stage, int input_partition,
                                              int output_partition) {
    int id;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = stages_.find(stage);
      if (it == stages_.end()) {
        return Status::Internal("exchange stage {} of query {} is unknown on rank {}", stage,
                                query_id_, rank());
      }
      const StageInfo& info = it->second;
      if (input_partition < 0 || input_partition >= info.inputs || output_partition < 0 ||
          output_partition >= info.outputs) {
        return Status::Internal(
            "exchange stage {}: partition {} -> {} out of range ({} -> {}) on rank {}", stage,
            input_partition, output_partition, info.inputs, info.outputs, rank());
      }
      auto piece = info.pieces.find(input_partition);
      if (piece == info.pieces.end() || !piece->second.finished) {
        return Status::Internal("exchange stage {}: input partition {} was not {} on rank {}",
                                stage, input_partition,
                                piece == info.pieces.end() ? "written" : "finished", rank());
      }
      id = piece->second.local_id;
    }
    return local_->Open(id, output_partition);
  }

  // Drops this rank's data of `stage` and the streams served from it; returns the other
  // ranks that own pieces of it.
  std::set<int> RemoveLocal(int stage) {
    std::vector<int> ids;
    std::set<int> others;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = stages_.find(stage);
      if (it == stages_.end()) return others;
      for (const auto& [partition, piece] : it->second.pieces) ids.push_back(piece.local_id);
      for (int owner : it->second.owners) {
        if (owner != rank()) others.insert(owner);
      }
      stages_.erase(it);
    }
    {
      std::lock_guard<std::mutex> lock(served_mutex_);
      for (auto it = served_.begin(); it != served_.end();) {
        it = it->second.stage == stage ? served_.erase(it) : std::next(it);
      }
    }
    for (int id : ids) local_->Remove(id);
    return others;
  }

  // The serving side of kOpen / kNext: the reply to send.
  BufferPtr ServeChunk(int source, const ExchangeRequest& request) {
    const std::pair<int, uint64_t> key{source, request.stream_id};
    std::lock_guard<std::mutex> lock(served_mutex_);
    if (request.kind == RequestKind::kOpen) {
      auto stream =
          OpenLocalPiece(request.stage, request.input_partition, request.output_partition);
      if (!stream.ok()) return ReplyBuffer(ErrorReply(stream.status()));
      Served served;
      served.stream = std::move(*stream);
      served.stage = request.stage;
      served_[key] = std::move(served);
    }
    auto it = served_.find(key);
    if (it == served_.end()) {
      return ReplyBuffer(
          ErrorReply(Status::Internal("exchange stream {} of rank {} is not open on rank {}",
                                      request.stream_id, source, rank())));
    }
    // Built in pool memory: a rank serves chunks of the same few sizes over and over, and
    // the pool hands its recycled blocks back (fresh memory would fault in page by page).
    BufferBuilder out;
    const std::string header = DataReplyHeader(false);
    Status st = out.Append(header.data(), static_cast<int64_t>(header.size()));
    if (st.ok()) st = FillChunk(&it->second, &out);
    Result<BufferPtr> reply = st.ok() ? out.Finish() : Result<BufferPtr>(st);
    if (!reply.ok()) {
      served_.erase(it);
      return ReplyBuffer(ErrorReply(reply.status()));
    }
    if ((*reply)->data()[1] != 0) served_.erase(it);
    bytes_served.fetch_add((*reply)->size());
    return std::move(*reply);
  }

  void CloseServed(int source, uint64_t stream_id) {
    std::lock_guard<std::mutex> lock(served_mutex_);
    served_.erase({source, stream_id});
  }

 private:
  struct Piece {
    int local_id;
    bool finished;
  };
  struct StageInfo {
    SchemaPtr schema;
    int inputs = 0;
    int outputs = 0;
    std::map<int, Piece> pieces;  // by input partition, for the pieces written here
    int finished = 0;
    std::vector<int> owners;  // rank per input partition, when told
    bool marked_complete = false;
    std::vector<int64_t> rows;  // rows per output partition, when told
  };
  struct Served {
    exec::BatchStreamPtr stream;
    int stage = 0;
    RecordBatchPtr pending;  // the rest of a batch split across chunks
    double pending_bytes_per_row = 0;
  };

  static bool IsCompleteLocked(const StageInfo& info) {
    return info.marked_complete || info.finished == info.inputs;
  }

  Result<StageInfo*> GetStage(int stage) {
    auto it = stages_.find(stage);
    if (it == stages_.end()) {
      return Status::Internal("exchange stage {} of query {} is unknown on rank {}", stage,
                              query_id_, rank());
    }
    return &it->second;
  }

  // Appends encoded batches of `served` to `out` up to the chunk size (at least one batch
  // unless the stream ended); sets the header's last flag at the end of the stream.
  Status FillChunk(Served* served, BufferBuilder* out) {
    const int64_t limit = options_.chunk_bytes;
    bool any = false;
    while (true) {
      RecordBatchPtr batch;
      double bytes_per_row;
      int64_t encoded = -1;  // the encoded size of `batch` when known
      if (served->pending) {
        batch = std::move(served->pending);
        bytes_per_row = served->pending_bytes_per_row;
      } else {
        FLOE_ASSIGN_OR_RAISE(batch, served->stream->Next());
        if (!batch) {
          out->mutable_data()[1] = 1;
          return Status::OK();
        }
        FLOE_ASSIGN_OR_RAISE(encoded, exec::EncodedBatchSize(*batch));
        bytes_per_row = batch->num_rows() > 0
                            ? static_cast<double>(encoded) / static_cast<double>(batch->num_rows())
                            : 0;
      }
      const double estimate = bytes_per_row * static_cast<double>(batch->num_rows());
      if (any && static_cast<double>(out->size()) + estimate > static_cast<double>(limit)) {
        served->pending = std::move(batch);
        served->pending_bytes_per_row = bytes_per_row;
        return Status::OK();
      }
      if (estimate > static_cast<double>(limit) && batch->num_rows() > 1) {
        const int64_t rows =
            std::clamp<int64_t>(static_cast<int64_t>(static_cast<double>(limit) / bytes_per_row), 1,
                                batch->num_rows() - 1);
        served->pending = batch->Slice(rows, batch->num_rows() - rows);
        served->pending_bytes_per_row = bytes_per_row;
        batch = batch->Slice(0, rows);
        encoded = -1;
      }
      FLOE_RETURN_NOT_OK(exec::AppendEncodedBatch(*batch, out, encoded));
      any = true;
      if (static_cast<int64_t>(out->size()) >= limit) return Status::OK();
    }
  }

  std::shared_ptr<Communicator> comm_;
  std::shared_ptr<ExchangeServer::State> server_;
  ExchangeServerOptions options_;
  uint64_t query_id_;
  std::shared_ptr<exec::ExchangeService> local_;
  std::atomic<int64_t> fetch_timeout_ms_{-1};

  mutable std::mutex mutex_;
  std::map<int, StageInfo> stages_;

  // The stage `what` (done to it) needs registered; kInvalidArgument naming it otherwise.
  Result<StageInfo*> RegisteredLocked(int stage, std::string_view what) {
    auto it = stages_.find(stage);
    if (it == stages_.end()) {
      return Status::Invalid("exchange stage {} of query {}: {} before it was registered", stage,
                             query_id_, what);
    }
    return &it->second;
  }
  int next_local_id_ = 0;

  // Taken by the serving thread while it reads a chunk (never with mutex_ held first).
  std::mutex served_mutex_;
  std::map<std::pair<int, uint64_t>, Served> served_;
};

namespace {

// One input partition's batches fetched from its owner, a chunk per request.
class RemotePiece {
 public:
  RemotePiece(std::shared_ptr<QueryExchange> query, SchemaPtr schema, int owner, int stage,
              int input_partition, int output_partition)
      : query_(std::move(query)), schema_(std::move(schema)), owner_(owner) {
    request_.query_id = query_->query_id();
    request_.stream_id = query_->NewStreamId();
    request_.reply_tag =
        kExchangeReplyTagFirst +
        static_cast<int>(request_.stream_id %
                         static_cast<uint64_t>(ExchangeReplyTagCount(query_->comm()->max_tag())));
    request_.stage = stage;
    request_.input_partition = input_partition;
    request_.output_partition = output_partition;
    where_ = fmt::format("exchange of query {} stage {} partition {} -> {} from rank {}",
                         request_.query_id, stage, input_partition, output_partition, owner);
  }

  ~RemotePiece() {
    if (outstanding_) {
      // The owner answers every request; its reply is taken (and dropped) so that it
      // does not stay queued, and it may end the stream.
      Status st = ReceiveReply(/*keep=*/false);
      (void)st;
    }
    if (opened_ && !done_) {
      // Nothing is outstanding now: the owner only has to forget the stream.
      ExchangeRequest close = request_;
      close.kind = RequestKind::kClose;
      Status st = query_->comm()->Send(owner_, kExchangeRequestTag, EncodeRequest(close));
      (void)st;
    }
  }

  Result<RecordBatchPtr> Next() {
    while (batches_.empty()) {
      if (done_) return RecordBatchPtr();
      if (!outstanding_) FLOE_RETURN_NOT_OK(Request());
      FLOE_RETURN_NOT_OK(ReceiveReply(/*keep=*/true));
      // One chunk ahead: the owner reads and encodes the next chunk while this one is
      // consumed.
      if (!done_) FLOE_RETURN_NOT_OK(Request());
    }
    RecordBatchPtr batch = std::move(batches_.front());
    batches_.pop_front();
    return batch;
  }

 private:
  Status Request() {
    request_.kind = opened_ ? RequestKind::kNext : RequestKind::kOpen;
    Status sent = query_->comm()->Send(owner_, kExchangeRequestTag, EncodeRequest(request_));
    if (!sent.ok()) {
      done_ = true;
      return sent.WithPrefix(where_ + ": ");
    }
    opened_ = true;
    outstanding_ = true;
    return Status::OK();
  }

  // Receives the reply to the outstanding request; its batches are queued when `keep`.
  Status ReceiveReply(bool keep) {
    ReceiveOptions options;
    options.timeout = query_->fetch_timeout();
    auto reply = query_->comm()->Receive(owner_, request_.reply_tag, options);
    outstanding_ = false;
    if (!reply.ok()) {
      done_ = true;
      return reply.status().WithPrefix(where_ + ": ");
    }
    auto header = DecodeReplyHeader(reply->view(), owner_);
    if (!header.ok()) {
      done_ = true;
      return header.status().WithPrefix(where_ + ": ");
    }
    if (!header->error.ok()) {
      done_ = true;
      return header->error.WithPrefix(where_ + ": rank " + std::to_string(owner_) + ": ");
    }
    done_ = header->last;
    query_->bytes_fetched.fetch_add(reply->bytes->size());
    if (!keep) return Status::OK();
    const BufferPtr& bytes = reply->bytes;
    auto batches = exec::DecodeBatches(
        Buffer::Slice(bytes, static_cast<int64_t>(kExchangeReplyHeaderSize),
                      bytes->size() - static_cast<int64_t>(kExchangeReplyHeaderSize)),
        schema_, where_);
    if (!batches.ok()) {
      done_ = true;
      return batches.status();
    }
    for (auto& b : *batches) {
      if (b->num_rows() > 0) batches_.push_back(std::move(b));
    }
    return Status::OK();
  }

  std::shared_ptr<QueryExchange> query_;
  SchemaPtr schema_;
  int owner_;
  ExchangeRequest request_;
  std::string where_;
  bool opened_ = false;
  bool outstanding_ = false;  // a request whose reply has not been received
  bool done_ = false;         // the owner sent the stream's last chunk (or failed)
  std::deque<RecordBatchPtr> batches_;
};

// Output partition p of a stage: the pieces of input partitions 0, 1, ... in order, one
// open at a time.
class DistributedStream final : public exec::BatchStream {
 public:
  DistributedStream(std::shared_ptr<QueryExchange> query, int stage, int output_partition,
                    SchemaPtr schema, std::vector<int> owners)
      : query_(std::move(query)),
        stage_(stage),
        output_partition_(output_partition),
        schema_(std::move(schema)),
        owners_(std::move(owners)) {}

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (local_) {
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, local_->Next());
        if (batch) return batch;
        local_.reset();
      } else if (remote_) {
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, remote_->Next());
        if (batch) return batch;
        remote_.reset();
      }
      if (next_input_ >= static_cast<int>(owners_.size())) return RecordBatchPtr();
      const int input = next_input_++;
      const int owner = owners_[static_cast<size_t>(input)];
      if (owner == query_->rank()) {
        FLOE_ASSIGN_OR_RAISE(local_, query_->OpenLocalPiece(stage_, input, output_partition_));
      } else {
        remote_ =
            std::make_unique<RemotePiece>(query_, schema_, owner, stage_, input, output_partition_);
      }
    }
  }

 private:
  std::shared_ptr<QueryExchange> query_;
  int stage_;
  int output_partition_;
  SchemaPtr schema_;
  std::vector<int> owners_;
  int next_input_ = 0;
  exec::BatchStreamPtr local_;
  std::unique_ptr<RemotePiece> remote_;
};

}  // namespace

// ExchangeServer

ExchangeServer::ExchangeServer(std::shared_ptr<Communicator> comm, ExchangeServerOptions options)
    : comm_(std::move(comm)), options_(options), state_(std::make_shared<State>()) {}

Result<std::shared_ptr<ExchangeServer>> ExchangeServer::Start(std::shared_ptr<Communicator> comm,
                                                              ExchangeServerOptions options) {
  if (!comm) return Status::Invalid("exchange server without a communicator");
  if (options.chunk_bytes < 1 || options.poll_interval.count() < 1) {
    return Status::Invalid("bad exchange server options: chunk_bytes {}, poll_interval {} ms",
                           options.chunk_bytes, options.poll_interval.count());
  }
  if (comm->max_tag() < kExchangeReplyTagFirst + 1) {
    return Status::NotSupported("MPI allows tags up to {} only, the exchange needs more than {}",
                                comm->max_tag(), kExchangeReplyTagFirst);
  }
  for (int tag : options.forward_tags) {
    if (tag < 0 || tag >= kExchangeRequestTag) {
      return Status::Invalid("the exchange server cannot forward tag {}: tags 0..{} are free", tag,
                             kExchangeRequestTag - 1);
    }
  }
  if (options.forward_source != kAnySource &&
      (options.forward_source < 0 || options.forward_source >= comm->size())) {
    return Status::Invalid("the exchange server cannot forward messages of rank {} of {}",
                           options.forward_source, comm->size());
  }
  std::shared_ptr<ExchangeServer> server(new ExchangeServer(std::move(comm), options));
  server->state_->filters = {MessageFilter{kAnySource, kExchangeRequestTag, kMaxRequestBytes}};
  for (int tag : options.forward_tags) {
    server->state_->filters.push_back(MessageFilter{options.forward_source, tag, -1});
  }
  server->state_->thread = std::thread([s = server.get()] { s->Serve(); });
  return server;
}

ExchangeServer::~ExchangeServer() {
  Status st = Stop();
  (void)st;
}

Status ExchangeServer::Stop() {
  state_->stop = true;
  state_->Wake();
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->joined) return state_->error;
    state_->joined = true;
  }
  if (state_->thread.joinable()) state_->thread.join();
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->error;
}

int64_t ExchangeServer::requests_served() const { return state_->served.load(); }

Result<std::optional<Message>> ExchangeServer::TakeForwarded(std::chrono::milliseconds wait) {
  if (options_.forward_tags.empty()) {
    return Status::Invalid("this exchange server forwards no messages");
  }
  std::unique_lock<std::mutex> lock(state_->mutex);
  auto ready = [&] {
    return !state_->forwarded.empty() || !state_->forwarded_error.ok() || state_->forwarded_closed;
  };
  if (wait.count() < 0) {
    state_->forwarded_ready.wait(lock, ready);
  } else if (!state_->forwarded_ready.wait_for(lock, wait, ready)) {
    return std::optional<Message>();
  }
  if (state_->forwarded_closed) return std::optional<Message>();
  if (state_->forwarded.empty()) return state_->forwarded_error;
  Message message = std::move(state_->forwarded.front());
  state_->forwarded.pop_front();
  return std::optional<Message>(std::move(message));
}

void ExchangeServer::CloseForwarded() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->forwarded_closed = true;
  }
  state_->forwarded_ready.notify_all();
}

void ExchangeServer::Serve() {
  const int reply_tags = ExchangeReplyTagCount(comm_->max_tag());
  // Replies are sent without waiting for their readers: a reader that asked one chunk
  // ahead may be waiting for another stream's reply, so waiting for it here could block
  // every reader of this rank. Each stream has at most one reply on its way.
  std::list<std::unique_ptr<PendingSend>> sending;
  const std::span<const MessageFilter> filters(state_->filters.data(), state_->filters.size());
  const bool forwarding = state_->filters.size() > 1;
  Backoff backoff;  // restarted by every message
  while (!state_->stop.load()) {
    for (auto it = sending.begin(); it != sending.end();) {
      auto done = (*it)->Test();
      if (!done.ok()) state_->RecordError(done.status());
      it = (!done.ok() || *done) ? sending.erase(it) : std::next(it);
    }
    int matched = -1;
    auto received =
        comm_->TryReceiveAny(filters, std::chrono::milliseconds{0}, &state_->stop, &matched);
    if (received.ok() && !*received) {
      state_->WaitForWork(backoff, !sending.empty());
      continue;
    }
    backoff = Backoff();
    if (matched >= 1) {
      // The scheduler's message (or the failure to receive it, which its taker must see).
      if (received.ok()) {
        state_->Forward(std::move(**received));
      } else {
        state_->FailForwarded(received.status());
      }
      continue;
    }
    if (!received.ok()) {
      // An oversized request was consumed; any other failure (MPI failed, or was finalized
      // too early) is recorded, passed to the forwarded messages' taker, and retried later.
      const Status& st = received.status();
      if (matched != 0 || st.code() != StatusCode::kInvalidArgument) {
        state_->RecordError(st);
        if (forwarding) state_->FailForwarded(st);
        std::this_thread::sleep_for(options_.poll_interval);
      }
      continue;
    }
    const Message& message = **received;
    auto request = DecodeRequest(message.view(), message.source);
    if (!request.ok()) continue;  // no reply tag to answer on
    state_->served.fetch_add(1);
    std::shared_ptr<QueryExchange> query = state_->Find(request->query_id);
    switch (request->kind) {
      case RequestKind::kOpen:
      case RequestKind::kNext: {
        if (request->reply_tag < kExchangeReplyTagFirst ||
            request->reply_tag >= kExchangeReplyTagFirst + reply_tags) {
          continue;
        }
        BufferPtr reply =
            query ? query->ServeChunk(message.source, *request)
                  : ReplyBuffer(ErrorReply(Status::Internal(
                        "query {} has no exchange on rank {} (it ended or never ran here)",
                        request->query_id, comm_->rank())));
        auto started = comm_->StartSend(message.source, request->reply_tag, std::move(reply));
        if (started.ok()) {
          sending.push_back(std::move(*started));
        } else {
          state_->RecordError(started.status());
        }
        break;
      }
      case RequestKind::kClose:
        if (query) query->CloseServed(message.source, request->stream_id);
        break;
      case RequestKind::kRemove:
        if (query) query->RemoveLocal(request->stage);
        break;
    }
  }
}

// DistributedExchange

DistributedExchange::DistributedExchange(std::shared_ptr<QueryExchange> query)
    : query_(std::move(query)) {}

DistributedExchange::~DistributedExchange() {
  // Streams still open keep the query's data alive until they end; the server no longer
  // finds the query, and the id may be used again.
  query_->Unregister();
}

void DistributedExchange::Progress() { query_->Nudge(); }

Status DistributedExchange::RegisterStage(int stage, SchemaPtr schema, int input_partitions,
                                          int output_partitions) {
  return query_->RegisterStage(stage, std::move(schema), input_partitions, output_partitions);
}

Status DistributedExchange::Write(int stage, int input_partition, int output_partition,
                                  const RecordBatchPtr& batch) {
  return query_->Write(stage, input_partition, output_partition, batch);
}

Status DistributedExchange::Finish(int stage, int input_partition) {
  return query_->Finish(stage, input_partition);
}

bool DistributedExchange::IsComplete(int stage) const { return query_->IsComplete(stage); }

Result<exec::BatchStreamPtr> DistributedExchange::Open(int stage, int output_partition) {
  FLOE_ASSIGN_OR_RAISE(auto plan, query_->PlanRead(stage, output_partition));
  return exec::BatchStreamPtr(std::make_unique<DistributedStream>(
      query_, stage, output_partition, std::move(plan.schema), std::move(plan.owners)));
}

void DistributedExchange::Remove(int stage) {
  const std::set<int> others = query_->RemoveLocal(stage);
  ExchangeRequest request;
  request.kind = RequestKind::kRemove;
  request.query_id = query_->query_id();
  request.stage = stage;
  const std::string bytes = EncodeRequest(request);
  for (int rank : others) {
    Status st = query_->comm()->Send(rank, kExchangeRequestTag, bytes);
    (void)st;
  }
}

Status DistributedExchange::SetStageOwners(int stage, std::vector<int> rank_of_input_partition) {
  return query_->SetStageOwners(stage, std::move(rank_of_input_partition));
}

Status DistributedExchange::MarkComplete(int stage) { return query_->MarkComplete(stage); }

Status DistributedExchange::SetStageRows(int stage, std::vector<int64_t> rows_of_output_partition) {
  return query_->SetStageRows(stage, std::move(rows_of_output_partition));
}

std::optional<int64_t> DistributedExchange::RowCount(int stage, int output_partition) const {
  return query_->RowCount(stage, output_partition);
}

std::vector<int64_t> DistributedExchange::PieceRows(int stage, int input_partition) const {
  return query_->PieceRows(stage, input_partition);
}

std::vector<int> DistributedExchange::LocalInputPartitions(int stage) const {
  return query_->LocalInputPartitions(stage);
}

uint64_t DistributedExchange::query_id() const { return query_->query_id(); }

int64_t DistributedExchange::bytes_served() const { return query_->bytes_served.load(); }

int64_t DistributedExchange::bytes_fetched() const { return query_->bytes_fetched.load(); }

void DistributedExchange::set_fetch_timeout(std::chrono::milliseconds timeout) {
  query_->set_fetch_timeout(timeout);
}

Result<std::shared_ptr<DistributedExchange>> MakeDistributedExchange(
    std::shared_ptr<ExchangeServer> server, uint64_t query_id,
    std::shared_ptr<exec::MemoryManager> memory, std::string spill_directory) {
  if (!server) return Status::Invalid("distributed exchange without an exchange server");
  if (!memory) memory = std::make_shared<exec::MemoryManager>(0);
  auto query = std::make_shared<QueryExchange>(
      server->comm_, server->state_, server->options_, query_id,
      scheduler::MakeLocalExchange(std::move(memory), std::move(spill_directory)));
  {
    std::lock_guard<std::mutex> lock(server->state_->mutex);
    auto it = server->state_->queries.find(query_id);
    if (it != server->state_->queries.end() && !it->second.expired()) {
      return Status::Invalid("query {} already has an exchange on rank {}", query_id,
                             server->comm_->rank());
    }
    server->state_->queries[query_id] = query;
  }
  return std::shared_ptr<DistributedExchange>(new DistributedExchange(std::move(query)));
}

}  // namespace floe::dist
