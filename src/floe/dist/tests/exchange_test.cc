// The distributed exchange under mpirun: every rank writes the input partitions it owns,
// is told the owners, and reads every output partition in the documented order (input
// partition 0's batches, then 1's, ...), its own pieces locally and the others from their
// owners; broadcasts, empty partitions, errors from the serving rank, two queries side by
// side, a spilling local exchange served remotely, and removal on every rank.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/dist/exchange.h"
#include "floe/dist/protocol.h"
#include "floe/dist/tests/dist_test_env.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scratch_dir.h"

namespace floe::dist {
namespace {

using floe::testing::IsError;
using floe::testing::IsErrorWith;
using testing::kTestTimeout;
using testing::TestComm;

const std::shared_ptr<Communicator>& comm() { return TestComm(); }

SchemaPtr TestSchema() {
  return std::make_shared<Schema>(
      std::vector<Field>{Field("key", Int64(), false), Field("label", String())});
}

// Rows (v, "v<v>"), with a NULL label when v % 7 == 3.
RecordBatchPtr BatchOf(const std::vector<int64_t>& values) {
  Int64Builder keys(Int64());
  BinaryBuilder labels(String());
  for (int64_t v : values) {
    FLOE_CHECK(keys.Append(v).ok(), "append");
    if (v % 7 == 3) {
      FLOE_CHECK(labels.AppendNull().ok(), "append");
    } else {
      FLOE_CHECK(labels.Append("v" + std::to_string(v)).ok(), "append");
    }
  }
  auto k = keys.Finish().ValueOrDie();
  auto l = labels.Finish().ValueOrDie();
  return RecordBatch::Make(TestSchema(), static_cast<int64_t>(values.size()), {k, l}).ValueOrDie();
}

std::string RowText(int64_t v) {
  return std::to_string(v) + "|" + (v % 7 == 3 ? std::string("NULL") : "v" + std::to_string(v));
}

std::vector<std::string> Texts(const std::vector<int64_t>& values) {
  std::vector<std::string> out;
  for (int64_t v : values) out.push_back(RowText(v));
  return out;
}

struct ReadResult {
  std::vector<std::string> rows;
  int batches = 0;
};

Result<ReadResult> ReadAll(exec::ExchangeService& exchange, int stage, int partition) {
  FLOE_ASSIGN_OR_RAISE(auto stream, exchange.Open(stage, partition));
  ReadResult out;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (!batch) break;
    ++out.batches;
    const Array& keys = *batch->column(0);
    const Array& labels = *batch->column(1);
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      out.rows.push_back(
          std::to_string(keys.Value<int64_t>(i)) + "|" +
          (labels.IsNull(i) ? std::string("NULL") : std::string(labels.BytesValue(i))));
    }
  }
  return out;
}

std::vector<int64_t> Range(int64_t from, int64_t count) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < count; ++i) out.push_back(from + i);
  return out;
}

class DistExchangeTest : public floe::testing::ScratchDirTest {
 protected:
  DistExchangeTest() : ScratchDirTest("floe_dist_exchange") {}

  void SetUp() override {
    ScratchDirTest::SetUp();
    ExchangeServerOptions options;
    options.chunk_bytes = 4096;  // many chunks per piece
    options.poll_interval = std::chrono::milliseconds{10};
    ASSERT_OK_AND_ASSIGN(server_, ExchangeServer::Start(comm(), options));
    ASSERT_OK(comm()->Barrier(kTestTimeout));
  }

  void TearDown() override {
    // Once every rank is here no rank reads any more, so the servers may stop.
    EXPECT_OK(comm()->Barrier(kTestTimeout));
    exchanges_.clear();
    if (server_) {
      EXPECT_OK(server_->Stop());
    }
    server_.reset();
    ScratchDirTest::TearDown();
  }

  std::shared_ptr<DistributedExchange> NewExchange(uint64_t query_id, int64_t memory_limit = 0) {
    auto made = MakeDistributedExchange(server_, query_id,
                                        std::make_shared<exec::MemoryManager>(memory_limit), dir_);
    FLOE_CHECK(made.ok(), made.status().ToString());
    (*made)->set_fetch_timeout(kTestTimeout);
    // Kept until every rank has ended the test: other ranks may still read from it.
    exchanges_.push_back(*made);
    return *made;
  }

  // What the scheduler on rank 0 would tell every rank once a stage's tasks finished.
  static void Complete(DistributedExchange& exchange, int stage, std::vector<int> owners) {
    FLOE_CHECK(exchange.SetStageOwners(stage, std::move(owners)).ok(), "owners");
    FLOE_CHECK(exchange.MarkComplete(stage).ok(), "complete");
  }

  int files() const {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) n += e.is_regular_file();
    return n;
  }

  int rank() const { return comm()->rank(); }
  int size() const { return comm()->size(); }

  std::shared_ptr<ExchangeServer> server_;
  std::vector<std::shared_ptr<DistributedExchange>> exchanges_;
};

// Stage 1's rows of (input partition, output partition): none for output partition 2
// or for (1, 0), a large run for (3, 1), a few otherwise.
std::vector<int64_t> Stage1Values(int input, int output) {
  if (output == 2 || (input == 1 && output == 0)) return {};
  if (input == 3 && output == 1) return Range(3100, 5000);
  return Range(input * 1000 + output * 100, (input + 1) * 3);
}

TEST_F(DistExchangeTest, TwoStageShuffleReadsEveryPartitionInOrderOnEveryRank) {
  auto exchange = NewExchange(1);
  const int n = size();
  const SchemaPtr schema = TestSchema();
  ASSERT_OK(exchange->RegisterStage(1, schema, 4, 3));
  ASSERT_OK(exchange->RegisterStage(2, schema, 3, 2));
  std::vector<int> owners1 = {0 % n, 1 % n, 2 % n, 3 % n};

  // Stage 1: each rank runs the tasks of the input partitions it owns.
  for (int input = 0; input < 4; ++input) {
    if (owners1[static_cast<size_t>(input)] != rank()) continue;
    for (int output = 0; output < 3; ++output) {
      std::vector<int64_t> values = Stage1Values(input, output);
      if (values.empty()) continue;
      const size_t half = values.size() / 2;
      ASSERT_OK(
          exchange->Write(1, input, output, BatchOf({values.begin(), values.begin() + half})));
      ASSERT_OK(exchange->Write(1, input, output, BatchOf({values.begin() + half, values.end()})));
    }
    ASSERT_OK(exchange->Finish(1, input));
  }
  std::vector<int> mine;
  for (int input = 0; input < 4; ++input) {
    if (owners1[static_cast<size_t>(input)] == rank()) mine.push_back(input);
  }
  EXPECT_EQ(exchange->LocalInputPartitions(1), mine);
  EXPECT_EQ(exchange->IsComplete(1), n == 1);
  // Each finished piece counts its rows per output partition; the stage's counts are
  // what rank 0 adds up from them and tells every rank.
  std::vector<int64_t> stage_rows(3, 0);
  for (int input = 0; input < 4; ++input) {
    std::vector<int64_t> rows;
    for (int output = 0; output < 3; ++output) {
      rows.push_back(static_cast<int64_t>(Stage1Values(input, output).size()));
      stage_rows[static_cast<size_t>(output)] += rows.back();
    }
    if (owners1[static_cast<size_t>(input)] == rank()) {
      EXPECT_EQ(exchange->PieceRows(1, input), rows) << "input partition " << input;
    } else {
      EXPECT_TRUE(exchange->PieceRows(1, input).empty()) << "input partition " << input;
    }
  }
  EXPECT_EQ(stage_rows, (std::vector<int64_t>{3 + 9 + 12, 3 + 6 + 9 + 5000, 0}));
  EXPECT_EQ(exchange->RowCount(1, 0), std::nullopt);
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  ASSERT_OK(exchange->SetStageRows(1, stage_rows));
  Complete(*exchange, 1, owners1);
  EXPECT_TRUE(exchange->IsComplete(1));
  for (int output = 0; output < 3; ++output) {
    EXPECT_EQ(exchange->RowCount(1, output), stage_rows[static_cast<size_t>(output)]);
  }
  EXPECT_EQ(exchange->RowCount(1, 3), std::nullopt);

  std::vector<std::vector<int64_t>> expected1(3);
  for (int output = 0; output < 3; ++output) {
    for (int input = 0; input < 4; ++input) {
      for (int64_t v : Stage1Values(input, output))
        expected1[static_cast<size_t>(output)].push_back(v);
    }
  }
  for (int output = 0; output < 3; ++output) {
    SCOPED_TRACE("stage 1 partition " + std::to_string(output));
    ASSERT_OK_AND_ASSIGN(ReadResult got, ReadAll(*exchange, 1, output));
    EXPECT_EQ(got.rows, Texts(expected1[static_cast<size_t>(output)]));
  }
  EXPECT_EQ(expected1[2].size(), 0u);
  EXPECT_EQ(expected1[1].size(), 3u + 6 + 9 + 5000);

  // Stage 2: the task of input partition p (stage 1's output partition p) runs on rank
  // p % n, reads it through the exchange and routes rows by key parity.
  std::vector<int> owners2 = {0 % n, 1 % n, 2 % n};
  for (int input = 0; input < 3; ++input) {
    if (owners2[static_cast<size_t>(input)] != rank()) continue;
    ASSERT_OK_AND_ASSIGN(auto stream, exchange->Open(1, input));
    while (true) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
      if (!batch) break;
      std::vector<int64_t> even;
      std::vector<int64_t> odd;
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        const int64_t v = batch->column(0)->Value<int64_t>(i);
        (v % 2 == 0 ? even : odd).push_back(v);
      }
      if (!even.empty()) {
        ASSERT_OK(exchange->Write(2, input, 0, BatchOf(even)));
      }
      if (!odd.empty()) {
        ASSERT_OK(exchange->Write(2, input, 1, BatchOf(odd)));
      }
    }
    ASSERT_OK(exchange->Finish(2, input));
  }
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  Complete(*exchange, 2, owners2);
  for (int output = 0; output < 2; ++output) {
    SCOPED_TRACE("stage 2 partition " + std::to_string(output));
    std::vector<int64_t> expected;
    for (int input = 0; input < 3; ++input) {
      for (int64_t v : expected1[static_cast<size_t>(input)]) {
        if (v % 2 == output) expected.push_back(v);
      }
    }
    ASSERT_OK_AND_ASSIGN(ReadResult got, ReadAll(*exchange, 2, output));
    EXPECT_EQ(got.rows, Texts(expected));
  }
  // With more than one rank, data did travel between ranks.
  ASSERT_OK_AND_ASSIGN(int64_t served,
                       comm()->AllReduceMax(server_->requests_served(), kTestTimeout));
  if (n > 1) {
    EXPECT_GT(served, 0);
  }
  // Every byte one rank served another received.
  ASSERT_OK_AND_ASSIGN(int64_t served_bytes,
                       comm()->AllReduceSum(exchange->bytes_served(), kTestTimeout));
  ASSERT_OK_AND_ASSIGN(int64_t fetched_bytes,
                       comm()->AllReduceSum(exchange->bytes_fetched(), kTestTimeout));
  EXPECT_EQ(served_bytes, fetched_bytes);
  if (n > 1) {
    EXPECT_GT(fetched_bytes, 5000 * 8);  // at least the keys of the large piece
  } else {
    EXPECT_EQ(fetched_bytes, 0);
  }
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  exchange->Remove(1);
  exchange->Remove(2);
}

TEST_F(DistExchangeTest, LargeBatchesArriveInChunksInOrder) {
  auto exchange = NewExchange(2);
  const int owner = size() - 1;
  ASSERT_OK(exchange->RegisterStage(1, TestSchema(), 1, 1));
  if (rank() == owner) {
    ASSERT_OK(exchange->Write(1, 0, 0, BatchOf(Range(0, 20000))));
    ASSERT_OK(exchange->Write(1, 0, 0, BatchOf(Range(20000, 1))));
    ASSERT_OK(exchange->Finish(1, 0));
  }
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  Complete(*exchange, 1, {owner});
  ASSERT_OK_AND_ASSIGN(ReadResult got, ReadAll(*exchange, 1, 0));
  EXPECT_EQ(got.rows, Texts(Range(0, 20001)));
  if (rank() == owner) {
    EXPECT_EQ(got.batches, 2);  // read locally, as written
  } else {
    EXPECT_GT(got.batches, 10);  // 4 KiB chunks: the 20000-row batch is sliced
  }
  // A reader that stops early lets the owner forget the stream; reading again works.
  {
    ASSERT_OK_AND_ASSIGN(auto stream, exchange->Open(1, 0));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, stream->Next());
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(first->column(0)->Value<int64_t>(0), 0);
  }
  ASSERT_OK_AND_ASSIGN(ReadResult again, ReadAll(*exchange, 1, 0));
  EXPECT_EQ(again.rows.size(), 20001u);
}

TEST_F(DistExchangeTest, BroadcastReadBySeveralReadersOnEveryRank) {
  auto exchange = NewExchange(3);
  const int n = size();
  ASSERT_OK(exchange->RegisterStage(4, TestSchema(), 3, 1));
  std::vector<int> owners = {0, 1 % n, 2 % n};
  for (int input = 0; input < 3; ++input) {
    if (owners[static_cast<size_t>(input)] != rank()) continue;
    ASSERT_OK(exchange->Write(4, input, 0, BatchOf(Range(input * 10, 4))));
    ASSERT_OK(exchange->Write(4, input, 0, BatchOf(Range(input * 10 + 4, 300))));
    ASSERT_OK(exchange->Finish(4, input));
  }
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  Complete(*exchange, 4, owners);
  std::vector<int64_t> expected;
  for (int input = 0; input < 3; ++input) {
    for (int64_t v : Range(input * 10, 304)) expected.push_back(v);
  }
  std::vector<Result<ReadResult>> results(4, Status::Internal("not run"));
  std::vector<std::thread> readers;
  for (size_t t = 0; t < results.size(); ++t) {
    readers.emplace_back([&, t] { results[t] = ReadAll(*exchange, 4, 0); });
  }
  for (auto& r : readers) r.join();
  for (auto& r : results) {
    ASSERT_OK(r);
    EXPECT_EQ(r->rows, Texts(expected));
  }
}

TEST_F(DistExchangeTest, EmptyPartitionsAndStagesWithoutInputs) {
  auto exchange = NewExchange(4);
  const int n = size();
  ASSERT_OK(exchange->RegisterStage(1, TestSchema(), 0, 2));
  EXPECT_TRUE(exchange->IsComplete(1));  // no task to wait for
  ASSERT_OK_AND_ASSIGN(ReadResult none, ReadAll(*exchange, 1, 1));
  EXPECT_TRUE(none.rows.empty());
  EXPECT_EQ(none.batches, 0);
  // Every input partition finished without a row, on another rank than the reader's.
  ASSERT_OK(exchange->RegisterStage(2, TestSchema(), n, 2));
  ASSERT_OK(exchange->Finish(2, rank()));
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  std::vector<int> owners;
  for (int i = 0; i < n; ++i) owners.push_back(i);
  Complete(*exchange, 2, owners);
  for (int output = 0; output < 2; ++output) {
    ASSERT_OK_AND_ASSIGN(ReadResult empty, ReadAll(*exchange, 2, output));
    EXPECT_TRUE(empty.rows.empty());
    EXPECT_EQ(empty.batches, 0);
  }
}

TEST_F(DistExchangeTest, ServingErrorsReachTheReader) {
  const int n = size();
  const int owner = (rank() + 1) % n;
  auto exchange = NewExchange(5);
  // A stage only this rank registered: its owner does not know it.
  const int own_stage = 100 + rank();
  ASSERT_OK(exchange->RegisterStage(own_stage, TestSchema(), 1, 1));
  Complete(*exchange, own_stage, {owner});
  // A stage every rank registered but whose owner never ran the task.
  ASSERT_OK(exchange->RegisterStage(9, TestSchema(), 1, 1));
  Complete(*exchange, 9, {owner});
  ASSERT_OK(comm()->Barrier(kTestTimeout));

  ASSERT_OK_AND_ASSIGN(auto stream, exchange->Open(own_stage, 0));
  auto next = stream->Next();
  if (n > 1) {
    EXPECT_THAT(next, IsErrorWith(StatusCode::kInternal,
                                  "exchange stage " + std::to_string(own_stage) +
                                      " of query 5 is unknown on rank " + std::to_string(owner)));
    EXPECT_THAT(next, IsErrorWith(StatusCode::kInternal,
                                  "exchange of query 5 stage " + std::to_string(own_stage) +
                                      " partition 0 -> 0 from rank " + std::to_string(owner) +
                                      ": rank " + std::to_string(owner) + ": "));
  } else {
    // One rank: the stage is this rank's own, its only task never ran.
    EXPECT_THAT(next, IsErrorWith(StatusCode::kInternal,
                                  "exchange stage 100: input partition 0 was not written on "
                                  "rank 0"));
  }
  ASSERT_OK_AND_ASSIGN(auto unwritten, exchange->Open(9, 0));
  EXPECT_THAT(unwritten->Next(), IsErrorWith(StatusCode::kInternal,
                                             "exchange stage 9: input partition 0 was not "
                                             "written on rank " +
                                                 std::to_string(owner)));

  // A query the owner has no exchange for.
  if (n > 1) {
    auto lonely = NewExchange(600 + static_cast<uint64_t>(rank()));
    ASSERT_OK(lonely->RegisterStage(1, TestSchema(), 1, 1));
    Complete(*lonely, 1, {owner});
    ASSERT_OK_AND_ASSIGN(auto s, lonely->Open(1, 0));
    EXPECT_THAT(s->Next(), IsErrorWith(StatusCode::kInternal,
                                       "query " + std::to_string(600 + rank()) +
                                           " has no exchange on rank " + std::to_string(owner)));
  }
  ASSERT_OK(comm()->Barrier(kTestTimeout));
}

TEST_F(DistExchangeTest, MisuseIsAClearError) {
  auto exchange = NewExchange(6);
  EXPECT_THAT(exchange->Open(1, 0),
              IsErrorWith(StatusCode::kInternal, "exchange stage 1 of query 6 is unknown on rank"));
  ASSERT_OK(exchange->RegisterStage(1, TestSchema(), 2, 1));
  EXPECT_THAT(exchange->RegisterStage(1, TestSchema(), 2, 1),
              IsErrorWith(StatusCode::kInvalidArgument, "exchange stage 1 registered twice"));
  EXPECT_FALSE(exchange->IsComplete(1));
  EXPECT_THAT(exchange->Open(1, 0),
              IsErrorWith(StatusCode::kInternal, "exchange stage 1 is read before it completed"));
  EXPECT_THAT(exchange->SetStageOwners(1, {0}),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "exchange stage 1: 1 owners for 2 input partitions"));
  EXPECT_THAT(exchange->SetStageOwners(1, {0, size()}),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "input partition 1 owned by rank " + std::to_string(size())));
  EXPECT_THAT(exchange->SetStageOwners(2, {0}), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(exchange->SetStageRows(1, {1, 2}),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "exchange stage 1: row counts of 2 output partitions for 1"));
  EXPECT_THAT(exchange->SetStageRows(1, {-1}),
              IsErrorWith(StatusCode::kInvalidArgument, "output partition 0 has -1 rows"));
  EXPECT_THAT(exchange->SetStageRows(2, {1}), IsError(StatusCode::kInvalidArgument));
  EXPECT_EQ(exchange->RowCount(1, 0), std::nullopt);  // not complete
  EXPECT_THAT(exchange->MarkComplete(2), IsError(StatusCode::kInvalidArgument));
  ASSERT_OK(exchange->MarkComplete(1));
  EXPECT_THAT(exchange->Open(1, 0),
              IsErrorWith(StatusCode::kInternal, "the rank holding input partition 0 is unknown"));
  EXPECT_THAT(exchange->Open(1, 1), IsErrorWith(StatusCode::kInternal, "out of range"));
  ASSERT_OK(exchange->Finish(1, 0));
  EXPECT_THAT(exchange->Finish(1, 0), IsErrorWith(StatusCode::kInternal, "finished twice"));
  EXPECT_THAT(exchange->Write(1, 0, 0, BatchOf({1})),
              IsErrorWith(StatusCode::kInternal, "written after it finished"));
  EXPECT_THAT(exchange->Write(1, 5, 0, BatchOf({1})),
              IsErrorWith(StatusCode::kInternal, "input partition 5 out of range"));
  EXPECT_THAT(MakeDistributedExchange(server_, 6, nullptr, dir_),
              IsErrorWith(StatusCode::kInvalidArgument, "query 6 already has an exchange"));
}

TEST_F(DistExchangeTest, TwoQueriesWithTheSameStagesNeverMix) {
  auto a = NewExchange(7);
  auto b = NewExchange(8);
  const int owner = size() - 1;
  for (auto* e : {a.get(), b.get()}) ASSERT_OK(e->RegisterStage(1, TestSchema(), 1, 1));
  if (rank() == owner) {
    ASSERT_OK(a->Write(1, 0, 0, BatchOf(Range(1, 3000))));
    ASSERT_OK(b->Write(1, 0, 0, BatchOf(Range(100001, 3000))));
    ASSERT_OK(a->Finish(1, 0));
    ASSERT_OK(b->Finish(1, 0));
  }
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  Complete(*a, 1, {owner});
  Complete(*b, 1, {owner});
  // Both streams open at once, read alternately.
  ASSERT_OK_AND_ASSIGN(auto sa, a->Open(1, 0));
  ASSERT_OK_AND_ASSIGN(auto sb, b->Open(1, 0));
  int64_t next_a = 1;
  int64_t next_b = 100001;
  bool done_a = false;
  bool done_b = false;
  while (!done_a || !done_b) {
    if (!done_a) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, sa->Next());
      done_a = batch == nullptr;
      for (int64_t i = 0; batch && i < batch->num_rows(); ++i) {
        ASSERT_EQ(batch->column(0)->Value<int64_t>(i), next_a++);
      }
    }
    if (!done_b) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, sb->Next());
      done_b = batch == nullptr;
      for (int64_t i = 0; batch && i < batch->num_rows(); ++i) {
        ASSERT_EQ(batch->column(0)->Value<int64_t>(i), next_b++);
      }
    }
  }
  EXPECT_EQ(next_a, 3001);
  EXPECT_EQ(next_b, 103001);
}

TEST_F(DistExchangeTest, SpilledPiecesAreServedRemotelyAndRemovedEverywhere) {
  // A budget of one byte: every batch goes to a spill file.
  auto exchange = NewExchange(9, 1);
  const int n = size();
  const int inputs = 2 * n;
  ASSERT_OK(exchange->RegisterStage(1, TestSchema(), inputs, 2));
  std::vector<int> owners;
  for (int i = 0; i < inputs; ++i) owners.push_back(i % n);
  auto values = [](int input, int output) { return Range(input * 10000 + output * 5000, 700); };
  for (int input = 0; input < inputs; ++input) {
    if (owners[static_cast<size_t>(input)] != rank()) continue;
    for (int output = 0; output < 2; ++output) {
      std::vector<int64_t> v = values(input, output);
      for (size_t at = 0; at < v.size(); at += 250) {
        const size_t end = std::min(v.size(), at + 250);
        ASSERT_OK(exchange->Write(1, input, output, BatchOf({v.begin() + at, v.begin() + end})));
      }
    }
    ASSERT_OK(exchange->Finish(1, input));
  }
  EXPECT_GT(files(), 0);
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  Complete(*exchange, 1, owners);
  for (int output = 0; output < 2; ++output) {
    std::vector<int64_t> expected;
    for (int input = 0; input < inputs; ++input) {
      for (int64_t v : values(input, output)) expected.push_back(v);
    }
    ASSERT_OK_AND_ASSIGN(ReadResult got, ReadAll(*exchange, 1, output));
    EXPECT_EQ(got.rows, Texts(expected));
  }
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  // Rank 0, which knows the owners, removes the stage; every rank's files go.
  if (rank() == 0) {
    exchange->Remove(1);
    EXPECT_EQ(files(), 0);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (files() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(files(), 0);
  EXPECT_TRUE(exchange->LocalInputPartitions(1).empty());
}

TEST_F(DistExchangeTest, CorruptDataOnTheOwnerReachesTheReader) {
  // Spilled pieces whose files the owner then damages: reading them fails on the owner,
  // and the reader gets the owner's kCorrupt naming the file and offset.
  auto exchange = NewExchange(10, 1);
  const int n = size();
  const int owner = n - 1;
  ASSERT_OK(exchange->RegisterStage(1, TestSchema(), 1, 1));
  if (rank() == owner) {
    ASSERT_OK(exchange->Write(1, 0, 0, BatchOf(Range(0, 100))));
    ASSERT_OK(exchange->Finish(1, 0));
    ASSERT_GT(files(), 0);
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      // The first column's type id, after the magic, block length and row count.
      std::FILE* f = std::fopen(e.path().c_str(), "r+b");
      ASSERT_NE(f, nullptr);
      std::fseek(f, 24, SEEK_SET);
      std::fputc(0x7f, f);
      std::fclose(f);
    }
  }
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  Complete(*exchange, 1, {owner});
  ASSERT_OK_AND_ASSIGN(auto stream, exchange->Open(1, 0));
  auto next = stream->Next();
  // The owner's own spill directory (each rank has its own).
  EXPECT_THAT(next, IsErrorWith(StatusCode::kCorrupt, "spill file "));
  if (rank() == owner) {
    EXPECT_THAT(next, IsErrorWith(StatusCode::kCorrupt, "spill file " + dir_ + "/exchange-0-"));
  }
  EXPECT_THAT(next, IsErrorWith(StatusCode::kCorrupt,
                                "column of type id 127 where int64 was expected at offset 24"));
  if (rank() != owner) {
    EXPECT_THAT(next, IsErrorWith(StatusCode::kCorrupt,
                                  "exchange of query 10 stage 1 partition 0 -> 0 from rank " +
                                      std::to_string(owner) + ": rank " + std::to_string(owner) +
                                      ": spill file"));
  }
  // The error ended the stream.
  EXPECT_OK(comm()->Barrier(kTestTimeout));
}

// The serving thread also receives the messages of its forward tag from its forward
// source, in order, for TakeForwarded, while it goes on serving reads: the scheduler's
// messages reach a rank this way, so that one thread per rank polls MPI.
TEST(DistExchangeForwarding, ForwardedMessagesArriveInOrderWhileReadsAreServed) {
  const auto& comm = TestComm();
  const int n = comm->size();
  constexpr int kTag = 60;
  ExchangeServerOptions options;
  options.poll_interval = std::chrono::milliseconds{10};
  options.forward_tags = {kTag};
  options.forward_source = 0;
  ASSERT_OK_AND_ASSIGN(auto server, ExchangeServer::Start(comm, options));
  ASSERT_OK_AND_ASSIGN(auto exchange, MakeDistributedExchange(server, 61, nullptr, ""));
  exchange->set_fetch_timeout(kTestTimeout);
  ASSERT_OK(exchange->RegisterStage(1, TestSchema(), n, 1));
  ASSERT_OK(exchange->Write(1, comm->rank(), 0, BatchOf(Range(comm->rank() * 100, 5))));
  ASSERT_OK(exchange->Finish(1, comm->rank()));
  ASSERT_OK(comm->Barrier(kTestTimeout));
  if (comm->rank() == 0) {
    for (int r = 0; r < n; ++r) {
      for (int i = 0; i < 3; ++i) ASSERT_OK(comm->Send(r, kTag, "m" + std::to_string(i)));
    }
  } else if (comm->rank() == 1) {
    // Not from the forward source: left for a receive of its own.
    ASSERT_OK(comm->Send(0, kTag, "from rank 1"));
  }
  std::vector<int> owners;
  for (int r = 0; r < n; ++r) owners.push_back(r);
  ASSERT_OK(exchange->SetStageOwners(1, owners));
  ASSERT_OK(exchange->MarkComplete(1));
  // A task thread looks for messages between its batches meanwhile (Progress), which lets
  // the serving thread sleep longer: what it sees must still be served and forwarded.
  std::atomic<bool> working{true};
  std::thread task([&] {
    while (working.load()) {
      exchange->Progress();
      std::this_thread::sleep_for(std::chrono::microseconds{50});
    }
  });
  ASSERT_OK_AND_ASSIGN(auto stream, exchange->Open(1, 0));
  int64_t rows = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
    if (!batch) break;
    rows += batch->num_rows();
  }
  EXPECT_EQ(rows, 5 * n);
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(std::optional<Message> m, server->TakeForwarded(kTestTimeout));
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->source, 0);
    EXPECT_EQ(m->tag, kTag);
    EXPECT_EQ(m->view(), "m" + std::to_string(i));
  }
  ASSERT_OK_AND_ASSIGN(std::optional<Message> none,
                       server->TakeForwarded(std::chrono::milliseconds{20}));
  EXPECT_FALSE(none.has_value());
  working = false;
  task.join();
  if (comm->rank() == 0 && n > 1) {
    ASSERT_OK_AND_ASSIGN(Message other, comm->Receive(1, kTag, {kTestTimeout}));
    EXPECT_EQ(other.view(), "from rank 1");
  }
  // CloseForwarded wakes a taker that waits without a limit, and later takes end at once.
  std::thread closer([&server] {
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
    server->CloseForwarded();
  });
  auto closed = server->TakeForwarded(std::chrono::milliseconds{-1});
  closer.join();
  ASSERT_OK(closed);
  EXPECT_FALSE(closed->has_value());
  ASSERT_OK_AND_ASSIGN(none, server->TakeForwarded(std::chrono::minutes{1}));
  EXPECT_FALSE(none.has_value());
  ASSERT_OK(comm->Barrier(kTestTimeout));
  stream.reset();
  exchange.reset();
  EXPECT_OK(server->Stop());
}

TEST(DistExchangeForwarding, BadForwardOptionsAreRefused) {
  const auto& comm = TestComm();
  ExchangeServerOptions options;
  options.forward_tags = {kExchangeRequestTag};
  EXPECT_THAT(ExchangeServer::Start(comm, options),
              IsErrorWith(StatusCode::kInvalidArgument, "cannot forward tag 1000"));
  options.forward_tags = {5};
  options.forward_source = comm->size();
  EXPECT_THAT(ExchangeServer::Start(comm, options),
              IsErrorWith(StatusCode::kInvalidArgument,
                          fmt::format("cannot forward messages of rank {}", comm->size())));
  ASSERT_OK_AND_ASSIGN(auto plain, ExchangeServer::Start(comm, ExchangeServerOptions{}));
  EXPECT_THAT(plain->TakeForwarded(std::chrono::milliseconds{0}),
              IsErrorWith(StatusCode::kInvalidArgument, "forwards no messages"));
  EXPECT_OK(plain->Stop());
}

// Not a benchmark (the machine is shared), but it prints the rate at which every rank
// reads a shuffle of a few tens of megabytes, most of it from the other ranks, with the
// default chunk size.
TEST(DistExchangeRate, EveryRankReadsAShuffle) {
  ExchangeServerOptions options;
  ASSERT_OK_AND_ASSIGN(auto server, ExchangeServer::Start(comm(), options));
  ASSERT_OK_AND_ASSIGN(auto exchange, MakeDistributedExchange(server, 77, nullptr, ""));
  exchange->set_fetch_timeout(kTestTimeout);
  const int n = comm()->size();
  const int outputs = 2;
  ASSERT_OK(exchange->RegisterStage(1, TestSchema(), n, outputs));
  // 8 batches of 64k rows per piece: about 1.3 MiB per batch.
  const int64_t rows_per_batch = 65536;
  for (int output = 0; output < outputs; ++output) {
    for (int b = 0; b < 8; ++b) {
      ASSERT_OK(exchange->Write(1, comm()->rank(), output,
                                BatchOf(Range((output * 8 + b) * rows_per_batch, rows_per_batch))));
    }
  }
  ASSERT_OK(exchange->Finish(1, comm()->rank()));
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  std::vector<int> owners;
  for (int i = 0; i < n; ++i) owners.push_back(i);
  ASSERT_OK(exchange->SetStageOwners(1, owners));
  ASSERT_OK(exchange->MarkComplete(1));
  auto start = std::chrono::steady_clock::now();
  int64_t rows = 0;
  int64_t bytes = 0;
  int64_t sum = 0;
  for (int output = 0; output < outputs; ++output) {
    ASSERT_OK_AND_ASSIGN(auto stream, exchange->Open(1, output));
    while (true) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
      if (!batch) break;
      rows += batch->num_rows();
      bytes += batch->memory_size();
      for (int64_t i = 0; i < batch->num_rows(); ++i) sum += batch->column(0)->Value<int64_t>(i);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int64_t total = int64_t{outputs} * 8 * rows_per_batch;
  EXPECT_EQ(rows, total * n);
  EXPECT_EQ(sum, n * (total * (total - 1) / 2));
  std::printf("[rank %d] read %lld rows (%.1f MiB, %d of %d pieces remote) in %.3f s: %.0f MiB/s\n",
              comm()->rank(), static_cast<long long>(rows), static_cast<double>(bytes) / (1 << 20),
              (n - 1) * outputs, n * outputs, seconds,
              static_cast<double>(bytes) / (1 << 20) / seconds);
  ASSERT_OK(comm()->Barrier(kTestTimeout));
  exchange.reset();
  EXPECT_OK(server->Stop());
}

}  // namespace
}  // namespace floe::dist
