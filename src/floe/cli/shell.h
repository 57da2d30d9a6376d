#pragma once

#include <iosfwd>
#include <string>

#include "floe/cli/command.h"
#include "floe/common/result.h"

namespace floe::session {
class Session;
}  // namespace floe::session

namespace floe::cli {

/// Options of `floe shell`.
struct ShellOptions {
  /// --catalog NAME|URI; empty: the configuration's default catalog, else the embedded one.
  std::string catalog;
  /// --warehouse DIR of the embedded catalog (or of a catalog URI); empty: ./warehouse.
  std::string warehouse;
  int threads = 0;
};

/// The interactive shell: reads statements (ending at ';', possibly over several lines)
/// with libedit when standard input is a terminal (prompts "floe> " and "   -> ",
/// history in ~/.floe_history), or plain lines otherwise (no prompts), and prints each
/// result as a table. Meta-commands at the start of a statement: \q quits, \dt lists
/// tables, \d TABLE describes one, \timing toggles "Time: ... ms" after each statement,
/// \? prints help. A failed statement prints "ERROR: ..." on stderr and the shell goes
/// on. Returns when input ends or after \q.
Status RunShell(const ShellOptions& options);

/// The shell's loop over already-opened streams (no libedit, no prompts): what RunShell
/// does for non-terminal input. Exposed for tests.
Status RunShellOnStreams(session::Session& session, std::istream& in, std::ostream& out,
                         std::ostream& err);

/// Registers `floe shell` on `app`.
void AddShellCommand(CLI::App* app, CommandAction* action);

}  // namespace floe::cli
