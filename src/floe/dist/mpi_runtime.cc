#include "floe/dist/mpi_runtime.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <thread>

namespace floe::dist {

namespace {

using Clock = std::chrono::steady_clock;

// An MPI source or tag of a filter.
int MpiSource(const MessageFilter& f) { return f.source == kAnySource ? MPI_ANY_SOURCE : f.source; }
int MpiTag(const MessageFilter& f) { return f.tag == kAnyTag ? MPI_ANY_TAG : f.tag; }

std::string MpiErrorText(int error) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(error, text, &length) != MPI_SUCCESS) {
    return "MPI error " + std::to_string(error);
  }
  return std::string(text, static_cast<size_t>(length));
}

Status MpiError(int error, std::string_view what) {
  return Status::IOError("{} failed: {}", what, MpiErrorText(error));
}

std::string_view ThreadLevelName(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    default:
      return "an unknown thread level";
  }
}

// A datatype of `n` bytes: blocks of `block` bytes, then the rest. Its type signature is
// n x MPI_BYTE, so it matches any receive of n bytes however that is expressed.
Result<MPI_Datatype> BytesType(int64_t n, int64_t block) {
  const int64_t blocks = n / block;
  const int64_t rest = n % block;
  if (blocks > INT_MAX) {
    return Status::Invalid("message of {} bytes is too large for blocks of {} bytes", n, block);
  }
  MPI_Datatype block_type;
  int err = MPI_Type_contiguous(static_cast<int>(block), MPI_BYTE, &block_type);
  if (err != MPI_SUCCESS) return MpiError(err, "MPI_Type_contiguous");
  int lengths[2] = {static_cast<int>(blocks), static_cast<int>(rest)};
  MPI_Aint displacements[2] = {0, static_cast<MPI_Aint>(blocks * block)};
  MPI_Datatype types[2] = {block_type, MPI_BYTE};
  MPI_Datatype type;
  err = MPI_Type_create_struct(rest > 0 ? 2 : 1, lengths, displacements, types, &type);
  MPI_Type_free(&block_type);
  if (err != MPI_SUCCESS) return MpiError(err, "MPI_Type_create_struct");
  err = MPI_Type_commit(&type);
  if (err != MPI_SUCCESS) {
    MPI_Type_free(&type);
    return MpiError(err, "MPI_Type_commit");
  }
  return type;
}

// Polls `request` until it completes or `deadline` passes (kIOError naming `what`).
Status WaitFor(MPI_Request* request, std::optional<Clock::time_point> deadline,
               std::string_view what, std::chrono::milliseconds timeout) {
  Backoff backoff;
  while (true) {
    int done = 0;
    int err = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) return MpiError(err, what);
    if (done) return Status::OK();
    if (deadline && Clock::now() >= *deadline) {
      return Status::IOError("{} did not complete within {} ms", what, timeout.count());
    }
    backoff.Wait();
  }
}

std::optional<Clock::time_point> DeadlineOf(std::chrono::milliseconds timeout) {
  if (timeout.count() < 0) return std::nullopt;
  return Clock::now() + timeout;
}

// Runs the nonblocking collective that `start(send, receive, request)` begins, sending one
// value and receiving `receive_count`, and waits for it (kIOError naming `what` after
// `timeout`). The values are on the heap: after a timeout the operation is still pending
// and keeps using them, so they are then left allocated.
template <typename Start>
Result<std::vector<int64_t>> RunCollective(int64_t value, size_t receive_count, Start start,
                                           std::string_view call, std::string_view what,
                                           std::chrono::milliseconds timeout) {
  auto values = std::make_unique<int64_t[]>(receive_count + 1);
  int64_t* send = &values[receive_count];
  *send = value;
  MPI_Request request;
  int err = start(send, values.get(), &request);
  if (err != MPI_SUCCESS) return MpiError(err, call);
  Status st = WaitFor(&request, DeadlineOf(timeout), what, timeout);
  if (!st.ok()) {
    values.release();
    return st;
  }
  return std::vector<int64_t>(values.get(), send);
}

std::atomic<bool> g_initialised{false};

}  // namespace

bool LaunchedUnderMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

struct Communicator::State {
  MPI_Comm comm = MPI_COMM_NULL;
  std::atomic<bool> finalized{false};
};

Communicator::Communicator(std::unique_ptr<State> state, CommunicatorOptions options)
    : state_(std::move(state)), options_(options) {}

Result<std::shared_ptr<Communicator>> Communicator::Init(CommunicatorOptions options) {
  if (!LaunchedUnderMpi()) {
    return Status::Invalid(
        "this process was not launched by mpirun (OMPI_COMM_WORLD_SIZE and PMIX_RANK are "
        "unset): MPI is not initialised");
  }
  if (options.block_bytes < 1 || options.block_bytes > INT_MAX || options.max_message_bytes < 0) {
    return Status::Invalid("bad communicator options: block_bytes {} (1..{}), max_message_bytes {}",
                           options.block_bytes, INT_MAX, options.max_message_bytes);
  }
  if (g_initialised.exchange(true)) {
    return Status::Invalid("MPI was already initialised by this process");
  }
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return Status::Invalid("MPI was already initialised by this process");
  int provided = MPI_THREAD_SINGLE;
  int err = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  if (err != MPI_SUCCESS) return MpiError(err, "MPI_Init_thread");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (provided < MPI_THREAD_MULTIPLE) {
    MPI_Finalize();
    return Status::NotSupported(
        "MPI provides thread level {}, floe needs MPI_THREAD_MULTIPLE (serving threads and "
        "task threads call MPI at the same time)",
        ThreadLevelName(provided));
  }
  auto state = std::make_unique<State>();
  err = MPI_Comm_dup(MPI_COMM_WORLD, &state->comm);
  if (err != MPI_SUCCESS) {
    Status st = MpiError(err, "MPI_Comm_dup");
    MPI_Finalize();
    return st;
  }
  MPI_Comm_set_errhandler(state->comm, MPI_ERRORS_RETURN);
  std::shared_ptr<Communicator> comm(new Communicator(std::move(state), options));
  MPI_Comm_rank(comm->state_->comm, &comm->rank_);
  MPI_Comm_size(comm->state_->comm, &comm->size_);
  int* tag_ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  if (flag && tag_ub != nullptr) comm->max_tag_ = *tag_ub;
  return comm;
}

Communicator::~Communicator() {
  Status st = Finalize();
  (void)st;
}

Status Communicator::CheckUsable(const char* what) const {
  if (state_->finalized.load()) return Status::Invalid("{} after MPI was finalized", what);
  return Status::OK();
}

Status Communicator::CheckRank(int rank, bool allow_any, const char* what) const {
  if ((allow_any && rank == kAnySource) || (rank >= 0 && rank < size_)) return Status::OK();
  return Status::Invalid("{}: rank {} is not in the job's {} ranks", what, rank, size_);
}

Status Communicator::CheckTag(int tag, bool allow_any, const char* what) const {
  if ((allow_any && tag == kAnyTag) || (tag >= 0 && tag <= max_tag_)) return Status::OK();
  return Status::Invalid("{}: tag {} is outside 0..{}", what, tag, max_tag_);
}

Status Communicator::CheckFilters(std::span<const MessageFilter> filters, const char* what) const {
  for (const MessageFilter& f : filters) {
    FLOE_RETURN_NOT_OK(CheckRank(f.source, true, what));
    FLOE_RETURN_NOT_OK(CheckTag(f.tag, true, what));
  }
  return Status::OK();
}

void Backoff::Wait() {
  const std::chrono::microseconds sleep = Next();
  if (sleep.count() == 0) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(sleep);
  }
}

std::chrono::microseconds Backoff::Next() {
  if (spins_ < kYields) {
    ++spins_;
    return std::chrono::microseconds{0};
  }
  const std::chrono::microseconds sleep = sleep_;
  sleep_ = std::min(sleep_ * 2, kMaxSleep);
  return sleep;
}

Status Communicator::PostSend(int dest, int tag, std::string_view bytes, void* request) {
  FLOE_RETURN_NOT_OK(CheckUsable("Send"));
  FLOE_RETURN_NOT_OK(CheckRank(dest, false, "Send"));
  FLOE_RETURN_NOT_OK(CheckTag(tag, false, "Send"));
  const int64_t n = static_cast<int64_t>(bytes.size());
  MPI_Datatype type = MPI_BYTE;
  int count = static_cast<int>(n);
  bool derived = false;
  if (n > options_.block_bytes) {
    FLOE_ASSIGN_OR_RAISE(type, BytesType(n, options_.block_bytes));
    count = 1;
    derived = true;
  }
  int err = MPI_Isend(bytes.data(), count, type, dest, tag, state_->comm,
                      static_cast<MPI_Request*>(request));
  // A datatype may be freed once the operations using it are posted.
  if (derived) MPI_Type_free(&type);
  if (err != MPI_SUCCESS) {
    return MpiError(err, fmt::format("MPI send of {} bytes to rank {} (tag {})", n, dest, tag));
  }
  return Status::OK();
}

Status Communicator::Send(int dest, int tag, std::string_view bytes) {
  MPI_Request request;
  FLOE_RETURN_NOT_OK(PostSend(dest, tag, bytes, &request));
  // Polled without sleeping: once the receiver has matched a large message, the transfer
  // moves only while both sides call into MPI (shared-memory copies go fragment by
  // fragment), so a sleeping sender would stretch it many times over. Yielding leaves
  // the core to runnable threads meanwhile.
  while (true) {
    int done = 0;
    int err = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) {
      return MpiError(
          err, fmt::format("MPI send of {} bytes to rank {} (tag {})", bytes.size(), dest, tag));
    }
    if (done) return Status::OK();
    std::this_thread::yield();
  }
}

struct PendingSend::Impl {
  MPI_Request request = MPI_REQUEST_NULL;
  BufferPtr bytes;
  int dest = 0;
  int tag = 0;
  bool done = false;
};

PendingSend::PendingSend(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PendingSend::~PendingSend() {
  if (impl_->done || impl_->request == MPI_REQUEST_NULL) return;
  // Not received: cancelled if MPI can; otherwise its bytes are left allocated, since MPI
  // may still read them.
  MPI_Cancel(&impl_->request);
  const auto deadline = Clock::now() + std::chrono::milliseconds{100};
  while (Clock::now() < deadline) {
    int done = 0;
    if (MPI_Test(&impl_->request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
    if (done) return;
    std::this_thread::yield();
  }
  MPI_Request_free(&impl_->request);
  // Leaked on purpose: MPI may still read the bytes.
  (void)new BufferPtr(std::move(impl_->bytes));
}

int PendingSend::dest() const { return impl_->dest; }
int PendingSend::tag() const { return impl_->tag; }

Result<bool> PendingSend::Test() {
  if (impl_->done) return true;
  int done = 0;
  int err = MPI_Test(&impl_->request, &done, MPI_STATUS_IGNORE);
  if (err != MPI_SUCCESS) {
    impl_->done = true;
    return MpiError(err, fmt::format("MPI send of {} bytes to rank {} (tag {})",
                                     impl_->bytes->size(), impl_->dest, impl_->tag));
  }
  impl_->done = done != 0;
  return impl_->done;
}

Result<std::unique_ptr<PendingSend>> Communicator::StartSend(int dest, int tag, BufferPtr bytes) {
  auto impl = std::make_unique<PendingSend::Impl>();
  if (!bytes) return Status::Invalid("StartSend to rank {} (tag {}) without bytes", dest, tag);
  impl->bytes = std::move(bytes);
  impl->dest = dest;
  impl->tag = tag;
  FLOE_RETURN_NOT_OK(PostSend(dest, tag, impl->bytes->view(), &impl->request));
  return std::unique_ptr<PendingSend>(new PendingSend(std::move(impl)));
}

Result<std::optional<Message>> Communicator::TryReceive(int source, int tag,
                                                        std::chrono::milliseconds wait,
                                                        int64_t max_bytes,
                                                        const std::atomic<bool>* stop) {
  const MessageFilter filter{source, tag, max_bytes};
  return TryReceiveAny({&filter, 1}, wait, stop);
}

Result<std::optional<Message>> Communicator::TryReceiveAny(std::span<const MessageFilter> filters,
                                                           std::chrono::milliseconds wait,
                                                           const std::atomic<bool>* stop,
                                                           int* matched) {
  if (matched != nullptr) *matched = -1;
  FLOE_RETURN_NOT_OK(CheckUsable("Receive"));
  if (filters.empty()) return Status::Invalid("a receive without any message filter");
  FLOE_RETURN_NOT_OK(CheckFilters(filters, "Receive"));
  const std::optional<Clock::time_point> deadline = DeadlineOf(wait);
  Backoff backoff;
  MPI_Message handle;
  MPI_Status status;
  int which = -1;  // the filter whose message was matched
  while (true) {
    for (size_t i = 0; i < filters.size() && which < 0; ++i) {
      const MessageFilter& f = filters[i];
      int found = 0;
      int err = MPI_Improbe(MpiSource(f), MpiTag(f), state_->comm, &found, &handle, &status);
      if (err != MPI_SUCCESS) return MpiError(err, "MPI_Improbe");
      if (found) which = static_cast<int>(i);
    }
    if (which >= 0) break;
    if (deadline && Clock::now() >= *deadline) return std::optional<Message>();
    if (stop != nullptr && stop->load()) return std::optional<Message>();
    backoff.Wait();
  }
  if (matched != nullptr) *matched = which;
  const int64_t max_bytes = filters[static_cast<size_t>(which)].max_bytes;
  const int64_t limit = max_bytes >= 0 ? max_bytes : options_.max_message_bytes;
  MPI_Count count = 0;
  int err = MPI_Get_elements_x(&status, MPI_BYTE, &count);
  if (err != MPI_SUCCESS) return MpiError(err, "MPI_Get_elements_x");
  if (count < 0 || count > limit) {
    // The matched message must be received to leave the queue: into nothing, which MPI
    // reports as a truncation.
    MPI_Mrecv(nullptr, 0, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
    return Status::Invalid(
        "message of {} bytes from rank {} (tag {}) exceeds the limit of {} bytes",
        static_cast<int64_t>(count), status.MPI_SOURCE, status.MPI_TAG, limit);
  }
  const int64_t n = static_cast<int64_t>(count);
  BufferBuilder builder;
  Status reserved = builder.Reserve(n);
  if (!reserved.ok()) {
    MPI_Mrecv(nullptr, 0, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
    return reserved;
  }
  MPI_Datatype type = MPI_BYTE;
  int type_count = static_cast<int>(n);
  bool derived = false;
  if (n > options_.block_bytes) {
    auto made = BytesType(n, options_.block_bytes);
    if (!made.ok()) {
      MPI_Mrecv(nullptr, 0, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
      return made.status();
    }
    type = *made;
    type_count = 1;
    derived = true;
  }
  err = MPI_Mrecv(builder.mutable_data(), type_count, type, &handle, MPI_STATUS_IGNORE);
  if (derived) MPI_Type_free(&type);
  if (err != MPI_SUCCESS) {
    return MpiError(err, fmt::format("MPI receive of {} bytes from rank {} (tag {})", n,
                                     status.MPI_SOURCE, status.MPI_TAG));
  }
  builder.UnsafeAdvance(n);
  Message message;
  message.source = status.MPI_SOURCE;
  message.tag = status.MPI_TAG;
  FLOE_ASSIGN_OR_RAISE(message.bytes, builder.Finish());
  return std::optional<Message>(std::move(message));
}

Result<bool> Communicator::Probe(std::span<const MessageFilter> filters) {
  FLOE_RETURN_NOT_OK(CheckUsable("Probe"));
  FLOE_RETURN_NOT_OK(CheckFilters(filters, "Probe"));
  for (const MessageFilter& f : filters) {
    int found = 0;
    int err = MPI_Iprobe(MpiSource(f), MpiTag(f), state_->comm, &found, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) return MpiError(err, "MPI_Iprobe");
    if (found) return true;
  }
  return false;
}

Result<Message> Communicator::Receive(int source, int tag, const ReceiveOptions& options) {
  FLOE_ASSIGN_OR_RAISE(std::optional<Message> message,
                       TryReceive(source, tag, options.timeout, options.max_bytes));
  if (!message) {
    return Status::IOError("no message from {} with {} within {} ms",
                           source == kAnySource ? "any rank" : "rank " + std::to_string(source),
                           tag == kAnyTag ? "any tag" : "tag " + std::to_string(tag),
                           options.timeout.count());
  }
  return std::move(*message);
}

Status Communicator::Barrier(std::chrono::milliseconds timeout) {
  FLOE_RETURN_NOT_OK(CheckUsable("Barrier"));
  MPI_Request request;
  int err = MPI_Ibarrier(state_->comm, &request);
  if (err != MPI_SUCCESS) return MpiError(err, "MPI_Ibarrier");
  return WaitFor(&request, DeadlineOf(timeout), "MPI barrier", timeout);
}

Result<int64_t> Communicator::AllReduceMax(int64_t value, std::chrono::milliseconds timeout) {
  return AllReduce(value, false, timeout);
}

Result<int64_t> Communicator::AllReduceSum(int64_t value, std::chrono::milliseconds timeout) {
  return AllReduce(value, true, timeout);
}

Result<int64_t> Communicator::AllReduce(int64_t value, bool sum,
                                        std::chrono::milliseconds timeout) {
  FLOE_RETURN_NOT_OK(CheckUsable("AllReduce"));
  MPI_Comm comm = state_->comm;
  auto start = [&](int64_t* send, int64_t* receive, MPI_Request* request) {
    return MPI_Iallreduce(send, receive, 1, MPI_INT64_T, sum ? MPI_SUM : MPI_MAX, comm, request);
  };
  FLOE_ASSIGN_OR_RAISE(std::vector<int64_t> result,
                       RunCollective(value, 1, start, "MPI_Iallreduce", "MPI all-reduce", timeout));
  return result[0];
}

Result<std::vector<int64_t>> Communicator::AllGather(int64_t value,
                                                     std::chrono::milliseconds timeout) {
  FLOE_RETURN_NOT_OK(CheckUsable("AllGather"));
  MPI_Comm comm = state_->comm;
  auto start = [&](int64_t* send, int64_t* receive, MPI_Request* request) {
    return MPI_Iallgather(send, 1, MPI_INT64_T, receive, 1, MPI_INT64_T, comm, request);
  };
  return RunCollective(value, static_cast<size_t>(size()), start, "MPI_Iallgather",
                       "MPI all-gather", timeout);
}

Status Communicator::Finalize() {
  if (state_->finalized.exchange(true)) return Status::OK();
  MPI_Comm_free(&state_->comm);
  int err = MPI_Finalize();
  if (err != MPI_SUCCESS) return MpiError(err, "MPI_Finalize");
  return Status::OK();
}

void Communicator::Abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();
}

}  // namespace floe::dist
