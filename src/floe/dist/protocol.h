#pragma once

// The exchange's wire protocol between ranks (all on the floe communicator, a duplicate
// of MPI_COMM_WORLD; integers little-endian).
//
// Tags:
//   0..kExchangeRequestTag-1   free for the scheduler's control messages (stage bytes,
//                              task assignments, completions); the exchange never uses them.
//   kExchangeRequestTag        reader -> owner: every exchange request (below). Each
//                              rank's ExchangeServer thread is the only receiver of it.
//   kExchangeReplyTagFirst + (stream id mod reply tag count)
//                              owner -> reader: the replies of one stream. A reader waits
//                              for them from the owner rank on this tag, so concurrent
//                              streams of one process never take each other's replies.
//
// Request (kExchangeRequestSize bytes):
//   u8 kind (RequestKind), 3 zero bytes, i32 reply tag, u64 query id, u64 stream id,
//   i32 stage, i32 input partition, i32 output partition, 4 zero bytes.
//   kOpen  opens (stage, input partition, output partition) of the query on the owner and
//          replies with its first chunk; kNext replies with the next chunk of an open
//          stream; kClose drops an open stream (no reply); kRemove drops the owner's data
//          of the stage (no reply).
//
// Reply: u8 status (0 data, 1 error), u8 last (1 when the stream has no more batches; the
//   owner has then forgotten it), u8 status code (errors), 5 zero bytes, then for data:
//   encoded batches (exec::AppendEncodedBatch, consecutive, up to the owner's chunk size
//   or one batch), for errors: the message text. An error ends the stream.
//
// The query id keeps two queries apart: the owner looks the request's query up among the
// queries it holds data of, and stream ids are unique per reader process.

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/common/result.h"

namespace floe::dist {

inline constexpr int kExchangeRequestTag = 1000;
inline constexpr int kExchangeReplyTagFirst = 1001;
/// How many reply tags exist given MPI's largest tag (at least 32767 by the standard).
int ExchangeReplyTagCount(int max_tag);

enum class RequestKind : uint8_t { kOpen = 1, kNext = 2, kClose = 3, kRemove = 4 };

struct ExchangeRequest {
  RequestKind kind = RequestKind::kOpen;
  int32_t reply_tag = 0;
  uint64_t query_id = 0;
  uint64_t stream_id = 0;
  int32_t stage = 0;
  int32_t input_partition = 0;
  int32_t output_partition = 0;
};

inline constexpr size_t kExchangeRequestSize = 40;
inline constexpr size_t kExchangeReplyHeaderSize = 8;

std::string EncodeRequest(const ExchangeRequest& request);
/// kCorrupt naming the sender when `bytes` is not a request.
Result<ExchangeRequest> DecodeRequest(std::string_view bytes, int source);

/// A data reply's header; the encoded batches are appended after it.
std::string DataReplyHeader(bool last);
/// An error reply carrying `status` (not OK).
std::string ErrorReply(const Status& status);

struct ReplyHeader {
  bool last = false;
  /// The error an error reply carries; OK for data.
  Status error;
};
/// kCorrupt naming the sender when the header does not parse.
Result<ReplyHeader> DecodeReplyHeader(std::string_view bytes, int source);

}  // namespace floe::dist
