#pragma once

// The process's MPI runtime: whether it was started by mpirun, and a communicator that
// sends and receives tagged byte messages between ranks (DESIGN.md section 3). This is
// the only place floe calls MPI besides the rest of src/floe/dist; a floe process that
// was not started by mpirun never calls any MPI function (check LaunchedUnderMpi()
// before Communicator::Init, which refuses otherwise).
//
// Waiting is done by polling (MPI_Improbe / MPI_Test with a short back-off sleep), not by
// blocking MPI calls: OpenMPI's blocking calls spin a core while they wait, which would
// take a core from the query's workers for every idle serving thread.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/buffer.h"
#include "floe/common/result.h"

namespace floe::dist {

/// True when this process was started by OpenMPI's mpirun (or another PMIx launcher such
/// as Slurm's srun): the launcher sets OMPI_COMM_WORLD_SIZE or PMIX_RANK. Reads the
/// environment only; calls no MPI function.
bool LaunchedUnderMpi();

/// Receive from any rank / with any tag.
inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;

/// A received message. `bytes` is 64-byte aligned.
struct Message {
  int source = -1;
  int tag = -1;
  BufferPtr bytes;

  std::string_view view() const { return bytes->view(); }
};

struct CommunicatorOptions {
  /// A message larger than this is refused by Receive (kInvalidArgument naming its size,
  /// sender and tag; the message is consumed, not allocated).
  int64_t max_message_bytes = int64_t{4} << 30;
  /// Messages larger than this travel as one MPI message of a derived datatype made of
  /// blocks of this many bytes (MPI counts are ints, so a plain MPI_BYTE message holds at
  /// most INT_MAX bytes). Every rank must use the same value. Tests lower it to exercise
  /// the path without allocating gigabytes.
  int64_t block_bytes = INT32_MAX;
};

/// Which messages a receive takes: from `source` (or kAnySource) with `tag` (or kAnyTag),
/// of at most `max_bytes` (-1: the communicator's max_message_bytes).
struct MessageFilter {
  int source = kAnySource;
  int tag = kAnyTag;
  int64_t max_bytes = -1;
};

/// Waits between polls: a few yields first (a reply often arrives within microseconds),
/// then sleeps that double from 5 us up to half a millisecond.
class Backoff {
 public:
  /// Yields or sleeps, as Next says.
  void Wait();
  /// How long the next wait sleeps; zero: yield instead.
  std::chrono::microseconds Next();

 private:
  static constexpr int kYields = 16;
  static constexpr std::chrono::microseconds kMaxSleep{500};
  int spins_ = 0;
  std::chrono::microseconds sleep_{5};
};

/// Per-call receive limits.
struct ReceiveOptions {
  /// How long to wait; negative waits without a limit. On timeout Receive is kIOError
  /// ("no message from rank 2 with tag 7 within 100 ms").
  std::chrono::milliseconds timeout{-1};
  /// Overrides CommunicatorOptions::max_message_bytes when >= 0.
  int64_t max_bytes = -1;
};

/// A send in progress (Communicator::StartSend); it owns the bytes until MPI is done.
class PendingSend {
 public:
  /// When the send has not completed, cancels it (a message never received must not
  /// keep its bytes alive forever); if MPI cannot cancel it, its bytes are left allocated.
  ~PendingSend();
  PendingSend(const PendingSend&) = delete;
  PendingSend& operator=(const PendingSend&) = delete;

  /// True once the bytes were sent (for a large message: the receiver took them); moves
  /// the transfer along. kIOError when MPI fails.
  Result<bool> Test();
  int dest() const;
  int tag() const;

 private:
  friend class Communicator;
  struct Impl;
  explicit PendingSend(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The floe communicator: a duplicate of MPI_COMM_WORLD, so floe's messages never match
/// anyone else's, with errors returned (MPI_ERRORS_RETURN) and turned into Status with
/// MPI_Error_string's text. Thread-safe: MPI runs at MPI_THREAD_MULTIPLE and receives use
/// matched probes (MPI_Improbe + MPI_Mrecv), so two threads never take each other's
/// message. One per process, made once by Init.
class Communicator {
 public:
  /// Initialises MPI (MPI_Init_thread requiring MPI_THREAD_MULTIPLE). kInvalidArgument
  /// when the process was not launched under mpirun or MPI was initialised before;
  /// kNotSupported naming the level MPI provided when it is below MPI_THREAD_MULTIPLE
  /// (MPI is finalized again then); kIOError when MPI fails.
  static Result<std::shared_ptr<Communicator>> Init(CommunicatorOptions options = {});

  /// Finalizes MPI when Finalize was not called.
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// The largest tag MPI allows (MPI_TAG_UB; at least 32767).
  int max_tag() const { return max_tag_; }
  const CommunicatorOptions& options() const { return options_; }

  /// Sends `bytes` to rank `dest` with `tag` (0 <= tag <= max_tag()); returns once the
  /// bytes may be reused (for large messages: once the receiver has matched it). Any
  /// size up to 2^63 bytes (see block_bytes). kInvalidArgument for a bad rank or tag,
  /// kIOError when MPI fails.
  Status Send(int dest, int tag, std::string_view bytes);

  /// Starts sending `bytes` and returns at once; poll the result's Test() until it is
  /// true. For a sender that must not wait for one receiver while others need it (the
  /// exchange's serving thread). The send keeps `bytes` alive until it is done. Errors as
  /// Send.
  Result<std::unique_ptr<PendingSend>> StartSend(int dest, int tag, BufferPtr bytes);

  /// Receives the next message from `source` (or kAnySource) with `tag` (or kAnyTag).
  /// Messages from one sender with one tag arrive in the order sent.
  Result<Message> Receive(int source, int tag, const ReceiveOptions& options = {});

  /// As Receive, but waits at most `wait` and returns nullopt when nothing arrived, or
  /// as soon as `*stop` is true (checked between polls; for threads that wait for
  /// messages until they are told to end, so that telling them takes effect at once).
  Result<std::optional<Message>> TryReceive(int source, int tag,
                                            std::chrono::milliseconds wait = {},
                                            int64_t max_bytes = -1,
                                            const std::atomic<bool>* stop = nullptr);
  /// As TryReceive, for the first message that any of `filters` matches (tried in their
  /// order at each poll), so that one thread can wait for messages of several kinds.
  /// `*matched` (when given) is set to the index of the filter whose message was taken,
  /// also when taking it failed (too large for that filter's max_bytes, say), and to -1
  /// when nothing was taken.
  Result<std::optional<Message>> TryReceiveAny(std::span<const MessageFilter> filters,
                                               std::chrono::milliseconds wait = {},
                                               const std::atomic<bool>* stop = nullptr,
                                               int* matched = nullptr);

  /// Whether a message that one of `filters` matches has arrived (MPI_Iprobe; it stays
  /// for a receive to take). Errors as Receive.
  Result<bool> Probe(std::span<const MessageFilter> filters);

  /// Waits until every rank has called Barrier. kIOError after `timeout` (when >= 0).
  Status Barrier(std::chrono::milliseconds timeout = std::chrono::milliseconds{-1});

  /// The largest `value` any rank passed; a collective call (every rank must make it).
  Result<int64_t> AllReduceMax(int64_t value,
                               std::chrono::milliseconds timeout = std::chrono::milliseconds{-1});
  /// The sum of every rank's `value`; a collective call.
  Result<int64_t> AllReduceSum(int64_t value,
                               std::chrono::milliseconds timeout = std::chrono::milliseconds{-1});

  /// Every rank's `value`, by rank; a collective call.
  Result<std::vector<int64_t>> AllGather(
      int64_t value, std::chrono::milliseconds timeout = std::chrono::milliseconds{-1});

  /// Finalizes MPI; later calls fail with kInvalidArgument. Every rank must call it (it
  /// is collective); a second call does nothing.
  Status Finalize();

  /// Ends every rank of the job with exit code `code` (MPI_Abort). For failures that
  /// would otherwise leave other ranks waiting forever.
  [[noreturn]] void Abort(int code);

 private:
  struct State;
  explicit Communicator(std::unique_ptr<State> state, CommunicatorOptions options);
  Status CheckUsable(const char* what) const;
  Result<int64_t> AllReduce(int64_t value, bool sum, std::chrono::milliseconds timeout);
  // Posts a nonblocking send into `request` (an MPI_Request*).
  Status PostSend(int dest, int tag, std::string_view bytes, void* request);
  Status CheckRank(int rank, bool allow_any, const char* what) const;
  Status CheckTag(int tag, bool allow_any, const char* what) const;
  Status CheckFilters(std::span<const MessageFilter> filters, const char* what) const;

  std::unique_ptr<State> state_;
  CommunicatorOptions options_;
  int rank_ = 0;
  int size_ = 1;
  int max_tag_ = 32767;
};

}  // namespace floe::dist
