#pragma once

// Running SQL statements for the user, shared by `floe sql`, `floe shell` and
// `floe sqllogictest`: splitting input into statements, the session a command opens, and
// running a statement with its result printed. The engine is reached only through
// session::Session (session/session.h).

#include <atomic>
#include <chrono>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/session/session.h"

namespace floe::cli {

/// Cuts SQL text into statements by sql::SplitStatements (';' outside literals, quoted
/// names and comments). Text is fed piece by piece (the shell feeds lines), so a statement
/// may span many pieces.
class StatementSplitter {
 public:
  /// Appends text to the pending buffer.
  void Append(std::string_view text);
  /// Removes the complete statements (ended by ';') from the buffer and returns them
  /// from their first token to the end of their last (no ';', no surrounding blanks or
  /// comments); statements of only blanks and comments are dropped.
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

}  // namespace floe::cli
