// The MPI runtime under mpirun: ranks, tagged byte messages (exact bytes, any source or
// tag, large messages through the blocked datatype, the size cap, timeouts), collectives.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "floe/dist/mpi_runtime.h"
#include "floe/dist/tests/dist_test_env.h"
#include "floe/testing/matchers.h"

namespace floe::dist {
namespace {

using floe::testing::IsErrorWith;
using testing::kTestTimeout;
using testing::TestComm;

ReceiveOptions Within(std::chrono::milliseconds timeout = kTestTimeout) {
  ReceiveOptions options;
  options.timeout = timeout;
  return options;
}

TEST(MpiRuntime, RanksMatchTheLauncher) {
  const auto& comm = TestComm();
  EXPECT_TRUE(LaunchedUnderMpi());
  ASSERT_NE(std::getenv("OMPI_COMM_WORLD_SIZE"), nullptr);
  EXPECT_EQ(comm->size(), std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE")));
  EXPECT_EQ(comm->rank(), std::atoi(std::getenv("OMPI_COMM_WORLD_RANK")));
  EXPECT_GE(comm->max_tag(), 32767);
  // MPI is initialised once per process.
  EXPECT_THAT(Communicator::Init(), IsErrorWith(StatusCode::kInvalidArgument,
                                                "MPI was already initialised by this process"));
}

TEST(MpiRuntime, RingOfMessagesKeepsExactBytes) {
  const auto& comm = TestComm();
  const int n = comm->size();
  const int next = (comm->rank() + 1) % n;
  const int prev = (comm->rank() + n - 1) % n;
  // Binary content with NULs and high bytes, then an empty message on another tag.
  std::string bytes = "from " + std::to_string(comm->rank()) + std::string("\0\xff\x80", 3);
  ASSERT_OK(comm->Send(next, 7, bytes));
  ASSERT_OK(comm->Send(next, 8, ""));
  ASSERT_OK_AND_ASSIGN(Message got, comm->Receive(prev, 7, Within()));
  EXPECT_EQ(got.source, prev);
  EXPECT_EQ(got.tag, 7);
  EXPECT_EQ(got.view(), "from " + std::to_string(prev) + std::string("\0\xff\x80", 3));
  ASSERT_OK_AND_ASSIGN(Message empty, comm->Receive(prev, 8, Within()));
  EXPECT_EQ(empty.view(), "");
  EXPECT_EQ(empty.tag, 8);
  ASSERT_OK(comm->Barrier(kTestTimeout));
}

TEST(MpiRuntime, AnySourceAndAnyTag) {
  const auto& comm = TestComm();
  if (comm->rank() != 0) {
    ASSERT_OK(comm->Send(0, 10 + comm->rank(), "r" + std::to_string(comm->rank())));
  } else {
    std::set<std::tuple<int, int, std::string>> got;
    for (int i = 1; i < comm->size(); ++i) {
      ASSERT_OK_AND_ASSIGN(Message m, comm->Receive(kAnySource, kAnyTag, Within()));
      got.emplace(m.source, m.tag, std::string(m.view()));
    }
    std::set<std::tuple<int, int, std::string>> expected;
    for (int i = 1; i < comm->size(); ++i) expected.emplace(i, 10 + i, "r" + std::to_string(i));
    EXPECT_EQ(got, expected);
  }
  ASSERT_OK(comm->Barrier(kTestTimeout));
}

// Bytes that differ per seed and per 4 KiB block, so a lost, repeated or misplaced block
// is seen.
std::string Pattern(int64_t n, int seed) {
  std::string block(4096, '\0');
  uint32_t x = 2463534242u + static_cast<uint32_t>(seed);
  for (auto& c : block) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  std::string s(static_cast<size_t>(n), '\0');
  for (int64_t at = 0, i = 0; at < n; at += 4096, ++i) {
    const size_t len = static_cast<size_t>(std::min<int64_t>(4096, n - at));
    std::memcpy(s.data() + at, block.data(), len);
    if (len >= 8) std::memcpy(s.data() + at, &i, 8);
  }
  return s;
}

TEST(MpiRuntime, LargeMessagesTravelInBlocks) {
  const auto& comm = TestComm();
  if (comm->size() < 2) GTEST_SKIP() << "needs two ranks";
  // 64 MiB and a bit: four 16 MiB blocks of the blocked datatype and a remainder.
  const int64_t n = (int64_t{64} << 20) + 12345;
  if (comm->rank() == 0) {
    std::string bytes = Pattern(n, 1);
    std::string expected_back = Pattern(n, 2);
    ASSERT_OK(comm->Barrier(kTestTimeout));
    auto start = std::chrono::steady_clock::now();
    ASSERT_OK(comm->Send(1, 30, bytes));
    ASSERT_OK_AND_ASSIGN(Message back, comm->Receive(1, 31, Within()));
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    std::printf("[rank 0] %lld bytes there and back in %lld ms\n", static_cast<long long>(n),
                static_cast<long long>(ms));
    ASSERT_EQ(back.bytes->size(), n);
    EXPECT_TRUE(back.view() == expected_back);
  } else {
    std::string expected = Pattern(n, 1);
    std::string reply = Pattern(n, 2);
    ASSERT_OK(comm->Barrier(kTestTimeout));
    if (comm->rank() == 1) {
      ASSERT_OK_AND_ASSIGN(Message m, comm->Receive(0, 30, Within()));
      EXPECT_EQ(m.source, 0);
      ASSERT_EQ(m.bytes->size(), n);
      EXPECT_TRUE(m.view() == expected);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(m.bytes->data()) % 64, 0u);
      ASSERT_OK(comm->Send(0, 31, reply));
    }
  }
  ASSERT_OK(comm->Barrier(kTestTimeout));
}

TEST(MpiRuntime, StartSendReturnsAtOnceAndCompletesWhenReceived) {
  const auto& comm = TestComm();
  if (comm->size() < 2) GTEST_SKIP() << "needs two ranks";
  // Large enough not to be sent eagerly: it completes only once rank 1 receives it.
  const int64_t n = 1 << 20;
  if (comm->rank() == 0) {
    ASSERT_OK_AND_ASSIGN(BufferPtr bytes, Buffer::CopyOf(Pattern(n, 3)));
    ASSERT_OK_AND_ASSIGN(auto pending, comm->StartSend(1, 40, std::move(bytes)));
    EXPECT_EQ(pending->dest(), 1);
    EXPECT_EQ(pending->tag(), 40);
    ASSERT_OK_AND_ASSIGN(bool done, pending->Test());
    EXPECT_FALSE(done);  // rank 1 waits for the barrier before it receives
    ASSERT_OK(comm->Barrier(kTestTimeout));
    const auto deadline = std::chrono::steady_clock::now() + kTestTimeout;
    while (!done && std::chrono::steady_clock::now() < deadline) {
      ASSERT_OK_AND_ASSIGN(done, pending->Test());
    }
    EXPECT_TRUE(done);
  } else {
    ASSERT_OK(comm->Barrier(kTestTimeout));
    if (comm->rank() == 1) {
      ASSERT_OK_AND_ASSIGN(Message m, comm->Receive(0, 40, Within()));
      EXPECT_TRUE(m.view() == Pattern(n, 3));
    }
  }
  ASSERT_OK_AND_ASSIGN(BufferPtr x, Buffer::CopyOf(std::string_view("x")));
  EXPECT_THAT(comm->StartSend(comm->size(), 40, x),
              IsErrorWith(StatusCode::kInvalidArgument, "is not in the job's"));
  EXPECT_THAT(comm->StartSend(0, 40, nullptr),
              IsErrorWith(StatusCode::kInvalidArgument, "without bytes"));
  ASSERT_OK(comm->Barrier(kTestTimeout));
}

// One receive over several filters takes the message of whichever matches and says which,
// with each filter's own size cap.
TEST(MpiRuntime, ReceiveAnyTakesWhatOneOfItsFiltersMatches) {
  const auto& comm = TestComm();
  if (comm->size() < 2) {
    // Only the bad filters below: the messages need two ranks.
  } else if (comm->rank() == 0) {
    ASSERT_OK(comm->Send(1, 50, std::string(2000, 'x')));
    ASSERT_OK(comm->Send(1, 51, "b"));
  } else if (comm->rank() == 1) {
    int matched = -2;
    const std::vector<MessageFilter> b{{0, 52, -1}, {0, 51, -1}};
    ASSERT_OK_AND_ASSIGN(std::optional<Message> got,
                         comm->TryReceiveAny(b, kTestTimeout, nullptr, &matched));
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->view(), "b");
    EXPECT_EQ(got->tag, 51);
    EXPECT_EQ(matched, 1);
    // The first filter's cap refuses the large message (and consumes it); the index says
    // whose message it was.
    const std::vector<MessageFilter> capped{{0, 50, 1000}, {kAnySource, 51, -1}};
    EXPECT_THAT(
        comm->TryReceiveAny(capped, kTestTimeout, nullptr, &matched),
        IsErrorWith(StatusCode::kInvalidArgument,
                    "message of 2000 bytes from rank 0 (tag 50) exceeds the limit of 1000"));
    EXPECT_EQ(matched, 0);
    ASSERT_OK_AND_ASSIGN(
        got, comm->TryReceiveAny(capped, std::chrono::milliseconds{10}, nullptr, &matched));
    EXPECT_FALSE(got.has_value());
    EXPECT_EQ(matched, -1);
  }
  EXPECT_THAT(comm->TryReceiveAny({}, std::chrono::milliseconds{0}),
              IsErrorWith(StatusCode::kInvalidArgument, "without any message filter"));
  const std::vector<MessageFilter> bad{{0, 5, -1}, {0, -3, -1}};
  EXPECT_THAT(comm->TryReceiveAny(bad, std::chrono::milliseconds{0}),
              IsErrorWith(StatusCode::kInvalidArgument, "-3"));
  ASSERT_OK(comm->Barrier(kTestTimeout));
}

TEST(MpiRuntime, MessageOverTheCapIsRefusedAndConsumed) {
  const auto& comm = TestComm();
  if (comm->size() < 2) GTEST_SKIP() << "needs two ranks";
  if (comm->rank() == 0) {
    ASSERT_OK(comm->Send(1, 20, std::string(2000, 'x')));
    ASSERT_OK(comm->Send(1, 20, "small"));
  } else if (comm->rank() == 1) {
    ReceiveOptions capped = Within();
    capped.max_bytes = 1000;
    EXPECT_THAT(comm->Receive(0, 20, capped),
                IsErrorWith(StatusCode::kInvalidArgument,
                            "message of 2000 bytes from rank 0 (tag 20) exceeds the limit of 1000 "
                            "bytes"));
    // The refused message left the queue: the next one is received.
    ASSERT_OK_AND_ASSIGN(Message m, comm->Receive(0, 20, capped));
    EXPECT_EQ(m.view(), "small");
  }
  ASSERT_OK(comm->Barrier(kTestTimeout));
}

TEST(MpiRuntime, ReceiveTimesOutAndBadArgumentsAreErrors) {
  const auto& comm = TestComm();
  auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(
      comm->Receive(kAnySource, 999, Within(std::chrono::milliseconds{30})),
      IsErrorWith(StatusCode::kIOError, "no message from any rank with tag 999 within 30 ms"));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds{30});
  auto nothing = comm->TryReceive(0, 998);
  ASSERT_OK(nothing);
  EXPECT_FALSE(nothing->has_value());
  // A stop flag ends a long wait at once: a thread told to end does not sit out its wait.
  std::atomic<bool> stop{false};
  // The clock starts before the stopper's sleep does, so the wait is at least its 20 ms.
  start = std::chrono::steady_clock::now();
  std::thread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
    stop = true;
  });
  auto stopped = comm->TryReceive(kAnySource, 997, std::chrono::minutes{1}, -1, &stop);
  const auto waited = std::chrono::steady_clock::now() - start;
  stopper.join();
  ASSERT_OK(stopped);
  EXPECT_FALSE(stopped->has_value());
  EXPECT_GE(waited, std::chrono::milliseconds{20});
  EXPECT_LT(waited, std::chrono::seconds{10});
  EXPECT_THAT(comm->Send(comm->size(), 1, "x"),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "Send: rank " + std::to_string(comm->size()) + " is not in the job's " +
                              std::to_string(comm->size()) + " ranks"));
  EXPECT_THAT(comm->Send(0, -5, "x"),
              IsErrorWith(StatusCode::kInvalidArgument, "Send: tag -5 is outside 0.."));
  EXPECT_THAT(comm->Receive(-7, 1), IsErrorWith(StatusCode::kInvalidArgument, "rank -7"));
  ASSERT_OK(comm->Barrier(kTestTimeout));
}

TEST(MpiRuntime, AllGatherGivesEveryRanksValueByRank) {
  const auto& comm = TestComm();
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> values,
                       comm->AllGather(int64_t{comm->rank()} * 1000000007 - 5, kTestTimeout));
  std::vector<int64_t> want;
  for (int r = 0; r < comm->size(); ++r) want.push_back(int64_t{r} * 1000000007 - 5);
  EXPECT_EQ(values, want);
}

TEST(MpiRuntime, AllReduceMaxAndSum) {
  const auto& comm = TestComm();
  ASSERT_OK_AND_ASSIGN(int64_t max, comm->AllReduceMax(comm->rank() * 10 + 3, kTestTimeout));
  EXPECT_EQ(max, (comm->size() - 1) * 10 + 3);
  ASSERT_OK_AND_ASSIGN(int64_t sum, comm->AllReduceSum(comm->rank() + 1, kTestTimeout));
  EXPECT_EQ(sum, int64_t{comm->size()} * (comm->size() + 1) / 2);
}

}  // namespace
}  // namespace floe::dist
