#pragma once

// `floe sql`, `floe shell` and `floe sqllogictest`: the user's side of the SQL engine.
// The engine is reached only through session::Session (session/session.h).

#include <atomic>
#include <chrono>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "floe/cli/parquet_commands.h"
#include "floe/common/result.h"
#include "floe/session/session.h"

namespace floe::cli {

/// Cuts SQL text into statements at ';' outside string literals ('...', E'...',
/// $tag$...$tag$), quoted identifiers and comments (-- and nested /* */). Text is fed
/// piece by piece (the shell feeds lines), so a statement may span many pieces.
class StatementSplitter {
 public:
  /// Appends text to the pending buffer.
  void Append(std::string_view text);
  /// Removes the complete statements (ended by ';') from the buffer and returns them
  /// without the ';' and without surrounding blanks; statements of only blanks and
  /// comments are dropped.
  std::vector<std::string> TakeComplete();
  /// Whether the buffer holds more than blanks and comments.
  bool HasPending() const;
  /// Returns the rest of the buffer as a statement ("" when it is only blanks and
  /// comments) and clears it.
  std::string TakeRest();

 private:
  std::string buffer_;
};

/// Every statement of a script, the last one with or without a ';'.
std::vector<std::string> SplitScript(std::string_view script);

/// How a statement's result is printed.
struct OutputOptions {
  /// "table", "csv" or "jsonl".
  std::string format = "table";
  /// Print the command tag of statements that return no rows ("SET", "CREATE TABLE");
  /// table format only.
  bool command_tags = true;
  /// Show "rows: N  elapsed: T s" on stderr for statements running over a second, when
  /// stderr is a terminal.
  bool progress = true;
  /// When set: polled while the statement runs; once true, the statement is cancelled
  /// (the shell sets it on Ctrl-C).
  const std::atomic<bool>* interrupt = nullptr;
};

/// Runs one statement on `session` and prints its rows (or its command tag) to `out`.
/// Returns the statement's error without printing it.
Status RunAndPrint(session::Session& session, const std::string& sql, const OutputOptions& options,
                   std::ostream* out);

/// The time since `start` as psql's \timing prints it: "Time: N.NNN ms\n".
std::string FormatTiming(std::chrono::steady_clock::time_point start);

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

/// The processes this floe runs its queries on (set under mpirun: rank 0 drives the
/// others); nullptr: this process alone. Sessions of `floe sql`, `floe shell` and
/// `floe sqllogictest` take it.
void SetQueryCluster(std::shared_ptr<scheduler::QueryCluster> cluster);
const std::shared_ptr<scheduler::QueryCluster>& QueryClusterOfProcess();

/// The session options of `floe sql` and `floe shell`: the catalog that --catalog and
/// --warehouse select (catalog::ResolveCatalog), or none, for the embedded catalog in
/// `warehouse` (./warehouse when empty), opened by the session when a statement first needs it.
Result<session::SessionOptions> SessionOptionsFor(const std::string& catalog,
                                                  const std::string& warehouse, int threads);

/// Runs `floe sql`: statements from -c, -f, or (when neither is given) `in`. Results go
/// to `out`; the first failing statement's error goes to `err` as "ERROR: ..." and
/// stops the run. Returns the exit code (0, or 1 after a failed statement); a Status
/// error for bad options or a session that cannot start.
Result<int> RunSql(const SqlOptions& options, std::istream& in, std::ostream& out,
                   std::ostream& err);

/// Registers `floe sql`, `floe shell` and `floe sqllogictest` on `app`.
void AddSqlCommands(CLI::App* app, CommandAction* action);

}  // namespace floe::cli
