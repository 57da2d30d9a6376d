// Hash routing of the exchanges (ShuffleWriterExec, RepartitionExec): every row lands in
// partition HashRows(keys) % n, exactly once, in batches of at most batch_size rows.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "floe/exec/exchange_service.h"
#include "floe/exec/repartition_exec.h"
#include "floe/expr/hash.h"
#include "floe/scheduler/local_exchange.h"
#include "floe/scheduler/shuffle_exec.h"
#include "operators_test_support.h"

namespace floe::exec {
namespace {

using namespace floe::exec::testing;

// `rows` rows: a key with NULLs, a string with NULLs and a float, in batches of `chunk`.
std::vector<RecordBatchPtr> Input(const SchemaPtr& schema, int64_t rows, int64_t chunk) {
  std::vector<RecordBatchPtr> batches;
  for (int64_t start = 0; start < rows; start += chunk) {
    std::vector<OptI64> keys;
    std::vector<OptStr> strs;
    std::vector<std::optional<double>> values;
    for (int64_t r = start; r < std::min(rows, start + chunk); ++r) {
      keys.push_back(r % 11 == 0 ? std::nullopt : OptI64(r * 7919 % 1000));
      strs.push_back(r % 5 == 0 ? std::nullopt : OptStr("s" + std::to_string(r)));
      values.push_back(static_cast<double>(r));
    }
    batches.push_back(BatchOf(schema, {I64s(keys), Strs(strs), F64s(values)}));
  }
  return batches;
}

SchemaPtr TestSchema() { return SchemaOf({"k", "s", "v"}, {I64s({1}), Strs({"a"}), F64s({1.0})}); }

// The expected partition of every row, by its row number (column v).
std::map<int64_t, int> ExpectedPartitions(const std::vector<RecordBatchPtr>& input, int n) {
  std::map<int64_t, int> out;
  for (const RecordBatchPtr& b : input) {
    std::vector<uint64_t> hashes;
    EXPECT_OK(expr::HashRows({b->column(0)}, &hashes));
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      out[static_cast<int64_t>(b->column(2)->Value<double>(r))] =
          static_cast<int>(hashes[static_cast<size_t>(r)] % static_cast<uint64_t>(n));
    }
  }
  return out;
}

// Checks that partition `p`'s batches hold exactly the rows expected there, each as in
// the input, in input order, in batches of at most `max_rows` rows (an input batch that
// goes whole to one partition may pass through as it is).
void CheckPartition(const std::vector<RecordBatchPtr>& got, int p,
                    const std::map<int64_t, int>& expected, const std::vector<std::string>& all,
                    int64_t max_rows) {
  std::vector<std::string> want;
  for (const auto& [row, partition] : expected) {
    if (partition == p) want.push_back(all[static_cast<size_t>(row)]);
  }
  EXPECT_EQ(Rows(got), want) << "partition " << p;
  EXPECT_LE(MaxBatchRows(got), max_rows);
  for (const RecordBatchPtr& b : got) {
    for (const ArrayPtr& c : b->columns()) EXPECT_OK(c->ValidateFull());
  }
}

class ExchangeRoutingTest : public ::testing::TestWithParam<std::tuple<int, int64_t, int64_t>> {};

TEST_P(ExchangeRoutingTest, ShuffleWriterRoutesEveryRowToItsHashPartition) {
  const auto [n, batch_size, chunk] = GetParam();
  SchemaPtr schema = TestSchema();
  std::vector<RecordBatchPtr> input = Input(schema, 1000, chunk);
  const std::vector<std::string> all = Rows(input);
  ASSERT_OK_AND_ASSIGN(PlanPtr writer,
                       scheduler::ShuffleWriterExec::Make(Source(schema, input), 1,
                                                          Partitioning::Hash({Col(schema, 0)}, n)));
  SessionConfig config;
  ASSERT_OK(config.Set("batch_size", std::to_string(batch_size)));
  auto memory = std::make_shared<MemoryManager>(0);
  auto exchange = scheduler::MakeLocalExchange(memory, "");
  auto ctx = std::make_shared<TaskContext>(config, memory, nullptr, "", exchange);
  ASSERT_OK(exchange->RegisterStage(1, schema, 1, n));
  ASSERT_OK_AND_ASSIGN(BatchStreamPtr done, writer->Execute(0, ctx));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr none, done->Next());
  EXPECT_EQ(none, nullptr);
  const std::map<int64_t, int> expected = ExpectedPartitions(input, n);
  for (int p = 0; p < n; ++p) {
    ASSERT_OK_AND_ASSIGN(BatchStreamPtr stream, exchange->Open(1, p));
    std::vector<RecordBatchPtr> got;
    while (true) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr b, stream->Next());
      if (!b) break;
      got.push_back(b);
    }
    CheckPartition(got, p, expected, all, std::max(batch_size, chunk));
  }
}

TEST_P(ExchangeRoutingTest, RepartitionRoutesEveryRowToItsHashPartition) {
  const auto [n, batch_size, chunk] = GetParam();
  SchemaPtr schema = TestSchema();
  std::vector<RecordBatchPtr> input = Input(schema, 1000, chunk);
  const std::vector<std::string> all = Rows(input);
  ASSERT_OK_AND_ASSIGN(
      PlanPtr repartition,
      RepartitionExec::Make(Source(schema, input), Partitioning::Hash({Col(schema, 0)}, n)));
  TaskContextPtr ctx = MakeContext(batch_size);
  const std::map<int64_t, int> expected = ExpectedPartitions(input, n);
  for (int p = 0; p < n; ++p) {
    ASSERT_OK_AND_ASSIGN(BatchStreamPtr stream, repartition->Execute(p, ctx));
    std::vector<RecordBatchPtr> got;
    while (true) {
      ASSERT_OK_AND_ASSIGN(RecordBatchPtr b, stream->Next());
      if (!b) break;
      got.push_back(b);
    }
    CheckPartition(got, p, expected, all, std::max(batch_size, chunk));
  }
}

// Partition counts (a power of two and not), batch sizes, input batch sizes: smaller,
// equal and larger than the output batches.
INSTANTIATE_TEST_SUITE_P(Shapes, ExchangeRoutingTest,
                         ::testing::Values(std::make_tuple(1, 64, 100), std::make_tuple(2, 64, 37),
                                           std::make_tuple(3, 100, 100),
                                           std::make_tuple(4, 1000, 250),
                                           std::make_tuple(7, 10, 1000)));

TEST(PartitionRowsTest, GroupsRowsByHashModuloN) {
  ArrayPtr keys = I64s({5, std::nullopt, 17, 5, 99, -3, 0, 42, 1000000007});
  std::vector<uint64_t> hashes;
  ASSERT_OK(expr::HashRows({keys}, &hashes));
  for (int n : {1, 2, 3, 5, 8}) {
    expr::PartitionedRows routed;
    ASSERT_OK(expr::PartitionRows({keys}, n, &routed));
    ASSERT_EQ(routed.starts.size(), static_cast<size_t>(n) + 1);
    EXPECT_EQ(routed.starts.back(), 9);
    for (int p = 0; p < n; ++p) {
      std::vector<int64_t> want;
      for (int64_t r = 0; r < 9; ++r) {
        if (hashes[static_cast<size_t>(r)] % static_cast<uint64_t>(n) == static_cast<uint64_t>(p)) {
          want.push_back(r);
        }
      }
      std::vector<int64_t> got(routed.rows.begin() + routed.starts[static_cast<size_t>(p)],
                               routed.rows.begin() + routed.starts[static_cast<size_t>(p) + 1]);
      EXPECT_EQ(got, want) << "n=" << n << " p=" << p;
    }
  }
  expr::PartitionedRows routed;
  EXPECT_THAT(expr::PartitionRows({keys}, 0, &routed),
              floe::testing::IsError(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace floe::exec
