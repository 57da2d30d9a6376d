// Partitioned writing into Iceberg data files, in process (no CLI, no commit): rows of the
// append benchmark's shape (bigint, double, 100k-distinct varchar, date, decimal(18,2),
// boolean, timestamptz over 365 days) in 8192-row batches, written into a temporary
// directory by
//   BM_Unpartitioned   the rolling unpartitioned writer;
//   BM_FanoutDay       the fanout writer on day(ts) (365 open files);
//   BM_ClusteredDay    the clustered writer on day(ts), input pre-sorted by day.
// Reports rows/s. usage: floe_iceberg_write_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <numeric>

#include "floe/batch/builder.h"
#include "floe/iceberg/partitioned_writer.h"
#include "floe/iceberg/spec_text.h"
#include "floe/io/file_io.h"

namespace floe::bench {
namespace {

namespace fs = std::filesystem;
using iceberg::PartitionSpecPtr;

constexpr int64_t kBatchRows = 8192;
constexpr int64_t kRows = 1 << 21;
constexpr int64_t kDayMicros = 86400LL * 1000000;
constexpr int64_t kStart2025Micros = 1735689600LL * 1000000;

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

iceberg::SchemaPtr BenchSchema() {
  return iceberg::ParseSchemaText(
             "c_bigint bigint, c_double double, c_varchar string, c_date date, "
             "c_decimal decimal(18, 2), c_boolean boolean, ts timestamptz")
      .ValueOrDie();
}

// `rows` rows; with `by_day` the timestamps ascend through the year (clustered input).
std::vector<RecordBatchPtr> MakeBatches(const iceberg::Schema& schema, int64_t rows, bool by_day) {
  std::vector<RecordBatchPtr> out;
  for (int64_t start = 0; start < rows; start += kBatchRows) {
    int64_t n = std::min(kBatchRows, rows - start);
    NumericBuilder<int64_t> c_bigint(Int64());
    NumericBuilder<double> c_double(Float64());
    BinaryBuilder c_varchar(String());
    NumericBuilder<int32_t> c_date(Date());
    DecimalBuilder c_decimal(Decimal(18, 2));
    BooleanBuilder c_boolean;
    NumericBuilder<int64_t> ts(TimestampTz());
    for (int64_t r = start; r < start + n; ++r) {
      uint64_t i = static_cast<uint64_t>(r);
      (void)c_bigint.Append(static_cast<int64_t>(Mix(i) % 1000000000000ULL));
      (void)c_double.Append(static_cast<double>(Mix(i + 1) % 100000000) / 1000.0);
      (void)c_varchar.Append("str_" + std::to_string(Mix(i + 2) % 100000));
      (void)c_date.Append(static_cast<int32_t>(10957 + Mix(i + 3) % 10000));
      (void)c_decimal.Append(Int128(static_cast<int64_t>(Mix(i + 5) % 10000000000ULL)));
      (void)c_boolean.Append(Mix(i + 6) % 2 == 0);
      int64_t offset = by_day ? r * (365 * kDayMicros / rows)
                              : static_cast<int64_t>(Mix(i + 4) % (365 * kDayMicros));
      (void)ts.Append(kStart2025Micros + offset);
    }
    std::vector<ArrayPtr> columns = {
        c_bigint.Finish().ValueOrDie(),  c_double.Finish().ValueOrDie(),
        c_varchar.Finish().ValueOrDie(), c_date.Finish().ValueOrDie(),
        c_decimal.Finish().ValueOrDie(), c_boolean.Finish().ValueOrDie(),
        ts.Finish().ValueOrDie()};
    out.push_back(RecordBatch::Make(schema.columns(), n, std::move(columns)).ValueOrDie());
  }
  return out;
}

void RunWriter(benchmark::State& state, const std::string& partitioning, bool fanout,
               bool clustered_input) {
  iceberg::SchemaPtr schema = BenchSchema();
  PartitionSpecPtr spec = iceberg::ParsePartitionSpecText(partitioning, *schema).ValueOrDie();
  std::vector<RecordBatchPtr> batches = MakeBatches(*schema, kRows, clustered_input);
  fs::path dir = fs::temp_directory_path() / ("floe-write-bench-" + std::to_string(getpid()));
  auto io = std::make_shared<io::LocalFileIO>();
  int64_t files = 0;
  for (auto _ : state) {
    fs::remove_all(dir);
    iceberg::PartitionedWriterOptions options;
    options.io = io;
    options.schema = schema;
    options.spec = spec;
    options.properties = iceberg::WriterProperties::Make({}, dir.string()).ValueOrDie();
    auto writer = iceberg::MakePartitionedWriter(options, fanout).ValueOrDie();
    for (const RecordBatchPtr& b : batches) FLOE_CHECK(writer->Write(*b).ok(), "write failed");
    auto written = writer->Close().ValueOrDie();
    files = static_cast<int64_t>(written.size());
  }
  fs::remove_all(dir);
  state.SetItemsProcessed(state.iterations() * kRows);
  state.counters["files"] = static_cast<double>(files);
}

void BM_Unpartitioned(benchmark::State& state) { RunWriter(state, "", true, false); }
void BM_FanoutDay(benchmark::State& state) { RunWriter(state, "day(ts)", true, false); }
void BM_ClusteredDay(benchmark::State& state) { RunWriter(state, "day(ts)", false, true); }

BENCHMARK(BM_Unpartitioned)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_FanoutDay)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_ClusteredDay)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace
}  // namespace floe::bench

BENCHMARK_MAIN();
