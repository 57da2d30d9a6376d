#include "floe/dist/protocol.h"

#include <algorithm>
#include <cstring>

namespace floe::dist {

namespace {

template <typename T>
void Put(std::string* out, size_t at, T v) {
  std::memcpy(out->data() + at, &v, sizeof(T));
}

template <typename T>
T Get(std::string_view in, size_t at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof(T));
  return v;
}

}  // namespace

int ExchangeReplyTagCount(int max_tag) {
  return std::min(1 << 20, max_tag - kExchangeReplyTagFirst + 1);
}

std::string EncodeRequest(const ExchangeRequest& request) {
  std::string out(kExchangeRequestSize, '\0');
  Put<uint8_t>(&out, 0, static_cast<uint8_t>(request.kind));
  Put<int32_t>(&out, 4, request.reply_tag);
  Put<uint64_t>(&out, 8, request.query_id);
  Put<uint64_t>(&out, 16, request.stream_id);
  Put<int32_t>(&out, 24, request.stage);
  Put<int32_t>(&out, 28, request.input_partition);
  Put<int32_t>(&out, 32, request.output_partition);
  return out;
}

Result<ExchangeRequest> DecodeRequest(std::string_view bytes, int source) {
  if (bytes.size() != kExchangeRequestSize) {
    return Status::Corrupt("exchange request of {} bytes from rank {} (expected {})", bytes.size(),
                           source, kExchangeRequestSize);
  }
  const uint8_t kind = Get<uint8_t>(bytes, 0);
  if (kind < static_cast<uint8_t>(RequestKind::kOpen) ||
      kind > static_cast<uint8_t>(RequestKind::kRemove)) {
    return Status::Corrupt("exchange request of unknown kind {} from rank {}", kind, source);
  }
  ExchangeRequest request;
  request.kind = static_cast<RequestKind>(kind);
  request.reply_tag = Get<int32_t>(bytes, 4);
  request.query_id = Get<uint64_t>(bytes, 8);
  request.stream_id = Get<uint64_t>(bytes, 16);
  request.stage = Get<int32_t>(bytes, 24);
  request.input_partition = Get<int32_t>(bytes, 28);
  request.output_partition = Get<int32_t>(bytes, 32);
  return request;
}

std::string DataReplyHeader(bool last) {
  std::string out(kExchangeReplyHeaderSize, '\0');
  out[1] = last ? 1 : 0;
  return out;
}

std::string ErrorReply(const Status& status) {
  std::string out(kExchangeReplyHeaderSize, '\0');
  out[0] = 1;
  out[1] = 1;
  out[2] = static_cast<char>(status.code());
  out += status.message();
  return out;
}

Result<ReplyHeader> DecodeReplyHeader(std::string_view bytes, int source) {
  if (bytes.size() < kExchangeReplyHeaderSize) {
    return Status::Corrupt("exchange reply of {} bytes from rank {}", bytes.size(), source);
  }
  const uint8_t kind = static_cast<uint8_t>(bytes[0]);
  const uint8_t last = static_cast<uint8_t>(bytes[1]);
  const uint8_t code = static_cast<uint8_t>(bytes[2]);
  if (kind > 1 || last > 1) {
    return Status::Corrupt("exchange reply with a bad header from rank {}", source);
  }
  ReplyHeader header;
  header.last = last == 1;
  if (kind == 1) {
    if (code == 0 || code > static_cast<uint8_t>(kLastStatusCode)) {
      return Status::Corrupt("exchange error reply with status code {} from rank {}", code, source);
    }
    header.error =
        Status(static_cast<StatusCode>(code), std::string(bytes.substr(kExchangeReplyHeaderSize)));
  }
  return header;
}

}  // namespace floe::dist
