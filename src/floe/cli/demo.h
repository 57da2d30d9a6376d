#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "floe/common/result.h"

namespace CLI {
class App;
}  // namespace CLI

namespace floe::cli {

/// Options of `floe demo`.
struct DemoOptions {
  /// Where the demo's Parquet files are written (created if missing).
  std::string dir = "warehouse/demo";
  int64_t rows = 2'000'000;
  int files = 4;
  /// Threads for writing and reading; 0 means one per hardware thread.
  int threads = 0;
};

/// Writes `rows` generated events into `files` Parquet files in parallel with floe's
/// writer, reads them back in parallel with floe's reader, checks every row arrived,
/// and prints the schema, a few rows, an aggregate and the timings.
Status RunDemo(const DemoOptions& options);

/// Registers `floe demo` on `app`; the parsed command is stored into `action`.
void AddDemoCommand(CLI::App* app, std::function<Status()>* action);

}  // namespace floe::cli
