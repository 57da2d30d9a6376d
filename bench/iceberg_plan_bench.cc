// Planning-side metadata reads: a synthetic table of 1,000 manifests holding 100,000 data
// files (day(ts), bucket(16, id), metrics for 10 columns; see iceberg_synthetic_table.h)
// is written once to a temporary directory; each iteration reads the manifest list and
// every manifest on one thread, with and without the column metrics. Reports files/s.
//
// usage: floe_iceberg_plan_bench [--benchmark_filter=...]
//   FLOE_PLAN_BENCH_DIR=DIR keeps the table in DIR (written when missing) instead of a
//   temporary directory removed at exit.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "floe/iceberg/manifest_io.h"
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

BENCHMARK(BM_PlanManifestsWithStats)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_PlanManifestsWithoutStats)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
}  // namespace floe::bench

BENCHMARK_MAIN();
