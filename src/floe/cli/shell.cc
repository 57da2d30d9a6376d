#include "floe/cli/shell.h"

#include <unistd.h>

#include <atomic>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <editline/readline.h>

#include <CLI/CLI.hpp>

#include "floe/cli/catalog_options.h"
#include "floe/cli/statement_runner.h"
#include "floe/cli/termination.h"
#include "floe/session/session.h"

namespace floe::cli {

namespace {

constexpr const char* kHelp =
    "Statements end with ';' and may span several lines.\n"
    "  \\q          quit\n"
    "  \\dt [SCHEMA] list tables (SHOW TABLES)\n"
    "  \\d [TABLE]  describe a table (DESCRIBE TABLE), or list tables\n"
    "  \\timing     toggle the time taken by each statement\n"
    "  \\?          this help\n";

/// Set by SIGINT (Ctrl-C) in an interactive shell: cancels the running statement.
std::atomic<bool> g_interrupted{false};

void OnInterrupt() { g_interrupted.store(true); }

std::vector<std::string> Words(const std::string& line) {
  std::istringstream ss(line);
  std::vector<std::string> words;
  std::string w;
  while (ss >> w) words.push_back(w);
  return words;
}

/// The shell's state: the pending statement text, \timing, and the streams.
class Shell {
 public:
  Shell(session::Session& session, std::ostream& out, std::ostream& err,
        const std::atomic<bool>* interrupt = nullptr)
      : session_(session), out_(out), err_(err), interrupt_(interrupt) {}

  /// Handles one input line (without its newline); false after \q.
  bool HandleLine(const std::string& line) {
    // As in psql, a line starting with a backslash is a meta-command even while a
    // statement is pending (the statement stays pending).
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '\\') return MetaCommand(line.substr(first));
    splitter_.Append(line);
    splitter_.Append("\n");
    for (const std::string& sql : splitter_.TakeComplete()) Run(sql);
    return true;
  }

  /// At the end of input: runs a last statement that lacks its ';'.
  void Finish() {
    std::string rest = splitter_.TakeRest();
    if (!rest.empty()) Run(rest);
  }

  bool continuation() const { return splitter_.HasPending(); }

 private:
  bool MetaCommand(const std::string& line) {
    std::vector<std::string> words = Words(line);
    const std::string& cmd = words[0];
    if (cmd == "\\q") return false;
    if (cmd == "\\?") {
      out_ << kHelp;
    } else if (cmd == "\\timing") {
      if (words.size() > 1) {
        timing_ = words[1] == "on";
      } else {
        timing_ = !timing_;
      }
      out_ << (timing_ ? "Timing is on.\n" : "Timing is off.\n");
    } else if (cmd == "\\dt") {
      Run(words.size() > 1 ? "SHOW TABLES FROM " + words[1] : "SHOW TABLES");
    } else if (cmd == "\\d") {
      Run(words.size() > 1 ? "DESCRIBE " + words[1] : "SHOW TABLES");
    } else {
      err_ << "invalid command " << cmd << ". Try \\? for help." << std::endl;
    }
    out_.flush();
    return true;
  }

  void Run(const std::string& sql) {
    auto start = std::chrono::steady_clock::now();
    OutputOptions options;
    options.interrupt = interrupt_;
    g_interrupted.store(false);
    Status st = RunAndPrint(session_, sql, options, &out_);
    const std::string timing = FormatTiming(start);
    if (!st.ok()) {
      out_.flush();
      err_ << "ERROR: " << st.message() << std::endl;
    }
    if (timing_) out_ << timing;
    out_.flush();
  }

  session::Session& session_;
  std::ostream& out_;
  std::ostream& err_;
  const std::atomic<bool>* interrupt_;
  StatementSplitter splitter_;
  bool timing_ = false;
};

std::string HistoryPath() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return "";
  return std::string(home) + "/.floe_history";
}

}  // namespace

Status RunShellOnStreams(session::Session& session, std::istream& in, std::ostream& out,
                         std::ostream& err) {
  Shell shell(session, out, err);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!shell.HandleLine(line)) return Status::OK();
  }
  shell.Finish();
  return Status::OK();
}

Status RunShell(const ShellOptions& options) {
  FLOE_ASSIGN_OR_RAISE(session::SessionOptions session_options,
                       SessionOptionsFor(options.catalog, options.warehouse, options.threads));
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<session::Session> session,
                       session::Session::Make(session_options));
  if (!isatty(STDIN_FILENO)) return RunShellOnStreams(*session, std::cin, std::cout, std::cerr);

  std::cout << "floe shell; statements end with ';', \\? for help, \\q to quit." << std::endl;
  std::string history = HistoryPath();
  using_history();
  if (!history.empty()) read_history(history.c_str());
  // Ctrl-C cancels the running statement instead of ending the shell.
  SetInterruptHandler(OnInterrupt);
  Shell shell(*session, std::cout, std::cerr, &g_interrupted);
  while (true) {
    char* raw = readline(shell.continuation() ? "   -> " : "floe> ");
    if (raw == nullptr) {
      std::cout << std::endl;
      shell.Finish();
      break;
    }
    std::string line(raw);
    std::free(raw);
    if (line.find_first_not_of(" \t") != std::string::npos) add_history(line.c_str());
    if (!shell.HandleLine(line)) break;
  }
  if (!history.empty()) write_history(history.c_str());
  return Status::OK();
}

void AddShellCommand(CLI::App* app, CommandAction* action) {
  auto o = std::make_shared<ShellOptions>();
  CLI::App* cmd = app->add_subcommand("shell", "Interactive SQL shell");
  cmd->add_option("--catalog", o->catalog, kCatalogOptionHelp);
  cmd->add_option("--warehouse", o->warehouse,
                  "Warehouse directory of the embedded catalog (default ./warehouse), or of a "
                  "catalog URI");
  cmd->add_option("--threads", o->threads, "Worker threads (0 = hardware threads)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([o, action] { *action = [o] { return RunShell(*o); }; });
}

}  // namespace floe::cli
