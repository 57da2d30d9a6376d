#pragma once

// `floe sql`: runs the statements of -c, -f or standard input and prints their results.
// What it shares with `floe shell` and `floe sqllogictest` is in statement_runner.h.

#include <iosfwd>
#include <string>
#include <vector>

#include "floe/cli/command.h"
#include "floe/common/result.h"
#include "floe/session/session.h"

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
  /// --jsonl: the machine interface. Standard input holds one JSON object per line,
  /// {"sql": "..."}, each statement run in one session that lives until end of input (so
  /// temporary tables and SET settings persist); each line gets exactly one JSON line on the
  /// output (RunJsonLines).
  bool jsonl = false;
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

/// Runs `floe sql --jsonl` on `session`: reads `in` line by line and answers each line with
/// one JSON line on `out`, flushed at once:
///   {"columns": ["a", ...], "rows": [["1", null, ...], ...], "command": "SELECT 2"}
/// for a statement that succeeded: every value in its PostgreSQL text form (as the CSV output
/// prints it) in a JSON string, SQL NULL as null; a statement that returns no rows (DDL, SET,
/// INSERT) has empty columns and rows, and its command tag. A failed statement, and a line that
/// is not a JSON object with a string "sql" member holding exactly one statement, is answered
/// {"error": "..."} (the message the CLI prints after "ERROR: ") and the session goes on. Returns
/// at end of input; kIOError when the output fails.
Status RunJsonLines(session::Session& session, std::istream& in, std::ostream& out);

/// Registers `floe sql` on `app`.
void AddSqlCommand(CLI::App* app, CommandAction* action);

}  // namespace floe::cli
