// The exchange's messages (dist/protocol.h): requests and reply headers round-trip, and
// malformed ones are kCorrupt naming the sender.

#include <gtest/gtest.h>

#include <string>

#include "floe/dist/protocol.h"
#include "floe/testing/matchers.h"

namespace floe::dist {
namespace {

using floe::testing::IsErrorWith;

TEST(ExchangeProtocol, RequestsRoundTrip) {
  ExchangeRequest request;
  request.kind = RequestKind::kNext;
  request.reply_tag = 1234567;
  request.query_id = 0x0102030405060708ULL;
  request.stream_id = 99;
  request.stage = 7;
  request.input_partition = -1;
  request.output_partition = 65536;
  std::string bytes = EncodeRequest(request);
  ASSERT_EQ(bytes.size(), kExchangeRequestSize);
  ASSERT_OK_AND_ASSIGN(ExchangeRequest back, DecodeRequest(bytes, 3));
  EXPECT_EQ(back.kind, RequestKind::kNext);
  EXPECT_EQ(back.reply_tag, 1234567);
  EXPECT_EQ(back.query_id, 0x0102030405060708ULL);
  EXPECT_EQ(back.stream_id, 99u);
  EXPECT_EQ(back.stage, 7);
  EXPECT_EQ(back.input_partition, -1);
  EXPECT_EQ(back.output_partition, 65536);
  // The layout is fixed: the kind is byte 0 and the query id starts at byte 8.
  EXPECT_EQ(bytes[0], 2);
  EXPECT_EQ(bytes[8], 8);
}

TEST(ExchangeProtocol, MalformedRequestsNameTheSender) {
  EXPECT_THAT(
      DecodeRequest("short", 2),
      IsErrorWith(StatusCode::kCorrupt, "exchange request of 5 bytes from rank 2 (expected 40)"));
  std::string bytes = EncodeRequest(ExchangeRequest{});
  bytes[0] = 9;
  EXPECT_THAT(DecodeRequest(bytes, 1),
              IsErrorWith(StatusCode::kCorrupt, "exchange request of unknown kind 9 from rank 1"));
}

TEST(ExchangeProtocol, ReplyHeaders) {
  ASSERT_OK_AND_ASSIGN(ReplyHeader data, DecodeReplyHeader(DataReplyHeader(false), 1));
  EXPECT_FALSE(data.last);
  EXPECT_TRUE(data.error.ok());
  ASSERT_OK_AND_ASSIGN(ReplyHeader last, DecodeReplyHeader(DataReplyHeader(true) + "batches", 1));
  EXPECT_TRUE(last.last);
  ASSERT_OK_AND_ASSIGN(ReplyHeader error,
                       DecodeReplyHeader(ErrorReply(Status::Corrupt("spill file x: bad")), 1));
  EXPECT_TRUE(error.last);
  EXPECT_EQ(error.error, Status::Corrupt("spill file x: bad"));
  // The last code crosses too.
  ASSERT_OK_AND_ASSIGN(
      ReplyHeader unknown,
      DecodeReplyHeader(ErrorReply(Status::CommitStateUnknown("commit to db.t")), 1));
  EXPECT_EQ(unknown.error, Status::CommitStateUnknown("commit to db.t"));
  EXPECT_THAT(DecodeReplyHeader("abc", 4),
              IsErrorWith(StatusCode::kCorrupt, "exchange reply of 3 bytes from rank 4"));
  std::string bad = ErrorReply(Status::IOError("x"));
  bad[2] = 0;  // an error reply without an error code
  EXPECT_THAT(
      DecodeReplyHeader(bad, 4),
      IsErrorWith(StatusCode::kCorrupt, "exchange error reply with status code 0 from rank 4"));
  bad = DataReplyHeader(false);
  bad[1] = 5;
  EXPECT_THAT(DecodeReplyHeader(bad, 4),
              IsErrorWith(StatusCode::kCorrupt, "exchange reply with a bad header from rank 4"));
  EXPECT_EQ(ExchangeReplyTagCount(32767), 32767 - kExchangeReplyTagFirst + 1);
  EXPECT_EQ(ExchangeReplyTagCount(INT32_MAX), 1 << 20);
}

}  // namespace
}  // namespace floe::dist
