#pragma once

// `floe sql`: runs the statements of -c, -f or standard input and prints their results.
// What it shares with `floe shell` and `floe sqllogictest` is in statement_runner.h.

#include <iosfwd>
#include <string>
#include <vector>

#include "floe/cli/command.h"
#include "floe/common/result.h"

namespace floe::cli {

/// Options of `floe sql`.
struct SqlOptions {
  /// -c statements, run in order (each may hold several statements).
  std::vector<std::string> commands;
  /// -f script, run after the -c statements.
  std::string file;
  /// "table", "csv", "jsonl" or "parquet".
  std::string format = "table";
  /// --format parquet: the file that receives the result.
  std::string output;
  /// --catalog NAME|URI (catalog::ResolveCatalog); empty: the configuration's default
  /// catalog, else the embedded catalog in `warehouse`.
  std::string catalog;
  /// --warehouse DIR of the embedded catalog (or of a catalog URI); empty: ./warehouse.
  std::string warehouse;
  int threads = 0;
  /// --timing: after each statement, "Time: N.NNN ms" on the error stream (the statement's
  /// wall time from parsing to its last row written), so that results stay clean.
  bool timing = false;
};

/// Runs `floe sql`: statements from -c, -f, or (when neither is given) `in`. Results go
/// to `out`; the first failing statement's error goes to `err` as "ERROR: ..." and
/// stops the run. Returns the exit code (0, or 1 after a failed statement); a Status
/// error for bad options or a session that cannot start.
Result<int> RunSql(const SqlOptions& options, std::istream& in, std::ostream& out,
                   std::ostream& err);

/// Registers `floe sql` on `app`.
void AddSqlCommand(CLI::App* app, CommandAction* action);

}  // namespace floe::cli
