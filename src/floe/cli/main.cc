// The floe command line: `floe parquet ...` and `floe iceberg ...` tools, `floe catalog
// serve`, `floe sql`, `floe shell`, `floe sqllogictest`, `floe --version`, `floe --help`.
// CLI11 reports parse errors by exception; they are caught here, in the adapter, and
// nowhere else.

#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "floe/cli/catalog_commands.h"
#include "floe/cli/demo.h"
#include "floe/cli/iceberg_commands.h"
#include "floe/cli/parquet_commands.h"
#include "floe/cli/shell.h"
#include "floe/cli/sql_commands.h"
#include "floe/cli/sqllogictest.h"
#include "floe/cli/statement_runner.h"
#include "floe/cli/termination.h"
#include "floe/common/status.h"
#include "floe/dist/cluster.h"
#include "floe/session/plan_codecs.h"

#ifndef FLOE_VERSION
#define FLOE_VERSION "dev"
#endif

namespace {

/// Prints a failed command's status as one line on stderr.
void PrintError(const floe::Status& status) {
  std::string line = status.ToString();
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::fprintf(stderr, "floe: %s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  // First, while this is the only thread: every later thread inherits the blocked SIGTERM.
  floe::cli::HandleTermination(floe::dist::LaunchedUnderMpi());
  CLI::App app{"floe: a SQL engine for Apache Iceberg tables", "floe"};
  app.set_version_flag("--version", std::string("floe ") + FLOE_VERSION);
  app.require_subcommand(1);
  floe::cli::CommandAction action;
  floe::cli::AddParquetCommands(&app, &action);
  floe::cli::AddIcebergCommands(&app, &action);
  floe::cli::AddDemoCommand(&app, &action);
  floe::cli::AddCatalogCommands(&app, &action);
  floe::cli::AddSqlCommand(&app, &action);
  floe::cli::AddShellCommand(&app, &action);
  floe::cli::AddSqllogictestCommand(&app, &action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (!action) {
    std::fprintf(stderr, "floe: no command given; see floe --help\n");
    return 2;
  }
  auto run = [&action]() -> int {
    floe::Status status = action();
    // A statement that a termination signal failed ends with the signal thread's exit (its
    // files deleted, the signal named, 128 + the signal), not with its own error.
    floe::cli::AwaitTermination();
    if (!status.ok()) {
      PrintError(status);
      return 1;
    }
    return 0;
  };
  // Under mpirun every rank parses the same command line; rank 0 runs the command over
  // all ranks and the others execute its tasks. Without mpirun MPI is never initialised.
  if (floe::dist::LaunchedUnderMpi()) {
    // A command's --threads is this rank's task slots (ranks may be given different ones).
    int threads = 0;
    for (const CLI::App* command : app.get_subcommands()) {
      const CLI::Option* option = command->get_option_no_throw("--threads");
      if (option != nullptr && option->count() > 0) threads = option->as<int>();
    }
    return floe::dist::RunUnderMpi(threads, floe::session::EnginePlanCodecs(),
                                   [&run](const std::shared_ptr<floe::scheduler::QueryCluster>& c) {
                                     floe::cli::SetQueryCluster(c);
                                     int code = run();
                                     floe::cli::SetQueryCluster(nullptr);
                                     return code;
                                   });
  }
  return run();
}
