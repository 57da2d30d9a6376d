// Scan planning over a synthetic table of 1,000 manifests holding 100,000 data files
// (day(ts), bucket(16, id), metrics for 10 columns; see iceberg_synthetic_table.h),
// written once to a temporary directory. On one thread:
//   BM_PlanManifests*   read the manifest list and every manifest, with/without metrics;
//   BM_TableScanFull    TableScan::PlanFiles with no filter (100k tasks);
//   BM_TableScanPruned  TableScan::PlanFiles with ts in 10 of the 1,000 days (1% of the
//                       partitions: manifest-list pruning by summaries, then entries).
// Reports files/s (files planned or read per second).
//
// usage: floe_iceberg_plan_bench [--benchmark_filter=...]
//   FLOE_PLAN_BENCH_DIR=DIR keeps the table in DIR (written when missing) instead of a
//   temporary directory removed at exit.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "floe/iceberg/expression.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/table_scan.h"
#include "iceberg_synthetic_table.h"

namespace floe::bench {
namespace {

namespace fs = std::filesystem;

struct Table {
  std::string dir;
  bool remove = false;
  io::LocalFileIO io;
  SyntheticTable table;
  TypePtr partition_type;

  ~Table() {
    if (remove) fs::remove_all(dir);
  }
};

Table* GetTable() {
  static Table* table = [] {
    auto* t = new Table();
    if (const char* d = std::getenv("FLOE_PLAN_BENCH_DIR")) {
      t->dir = d;
    } else {
      t->dir = (fs::temp_directory_path() /
                ("floe-plan-bench-" + std::to_string(std::random_device()())))
                   .string();
      t->remove = true;
    }
    SyntheticTableOptions o;
    o.location = t->dir;
    auto written = WriteSyntheticTable(t->io, o);
    if (!written.ok()) {
      std::fprintf(stderr, "writing the synthetic table failed: %s\n",
                   written.status().ToString().c_str());
      std::exit(1);
    }
    t->table = std::move(*written);
    auto type =
        t->table.metadata->DefaultSpec()->PartitionType(*t->table.metadata->CurrentSchema());
    if (!type.ok()) std::exit(1);
    t->partition_type = *type;
    std::atexit([] { delete GetTable(); });
    return t;
  }();
  return table;
}

void Plan(benchmark::State& state, bool with_stats) {
  Table* t = GetTable();
  int64_t files = 0;
  for (auto _ : state) {
    auto list = iceberg::ReadManifestList(t->io, t->table.manifest_list_path);
    if (!list.ok()) {
      state.SkipWithError(list.status().ToString().c_str());
      return;
    }
    int64_t n = 0;
    for (const iceberg::ManifestFile& m : *list) {
      auto entries = iceberg::ReadManifest(t->io, m, t->partition_type,
                                           iceberg::ManifestReadOptions::Live(with_stats));
      if (!entries.ok()) {
        state.SkipWithError(entries.status().ToString().c_str());
        return;
      }
      n += static_cast<int64_t>(entries->size());
      benchmark::DoNotOptimize(entries->data());
    }
    if (n != t->table.data_files) {
      state.SkipWithError("read a different number of files than were written");
      return;
    }
    files += n;
  }
  state.counters["files"] = static_cast<double>(t->table.data_files);
  state.counters["files/s"] =
      benchmark::Counter(static_cast<double>(files), benchmark::Counter::kIsRate);
}

void BM_PlanManifestsWithStats(benchmark::State& state) { Plan(state, true); }
void BM_PlanManifestsWithoutStats(benchmark::State& state) { Plan(state, false); }

// The synthetic table's manifest i holds day 20000 + i.
constexpr int64_t kFirstDay = 20000;
constexpr int64_t kMicrosPerDay = 86400LL * 1000 * 1000;

void TableScanPlan(benchmark::State& state, bool pruned) {
  Table* t = GetTable();
  iceberg::ScanOptions options;
  int64_t expected = t->table.data_files;
  if (pruned) {
    auto ts = [](int64_t day) { return Scalar::Make(TimestampTz(), day * kMicrosPerDay); };
    options.filter = iceberg::Expression::And(
        iceberg::Expression::Make(iceberg::Operation::kGtEq, "ts", {ts(kFirstDay + 500)}),
        iceberg::Expression::Make(iceberg::Operation::kLt, "ts", {ts(kFirstDay + 510)}));
    expected = t->table.data_files / 100;
  }
  auto io = std::make_shared<io::LocalFileIO>();
  int64_t files = 0;
  for (auto _ : state) {
    auto scan = iceberg::TableScan::Make(t->table.metadata, io, options);
    if (!scan.ok()) {
      state.SkipWithError(scan.status().ToString().c_str());
      return;
    }
    auto tasks = (*scan)->PlanFiles();
    if (!tasks.ok()) {
      state.SkipWithError(tasks.status().ToString().c_str());
      return;
    }
    if (static_cast<int64_t>(tasks->size()) != expected) {
      state.SkipWithError("planned a different number of files than expected");
      return;
    }
    files += static_cast<int64_t>(tasks->size());
    benchmark::DoNotOptimize(tasks->data());
  }
  state.counters["tasks"] = static_cast<double>(expected);
  state.counters["files/s"] =
      benchmark::Counter(static_cast<double>(files), benchmark::Counter::kIsRate);
}

void BM_TableScanFull(benchmark::State& state) { TableScanPlan(state, false); }
void BM_TableScanPruned(benchmark::State& state) { TableScanPlan(state, true); }

BENCHMARK(BM_TableScanFull)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_TableScanPruned)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_PlanManifestsWithStats)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_PlanManifestsWithoutStats)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace floe::bench

BENCHMARK_MAIN();
