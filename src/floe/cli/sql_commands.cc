#include "floe/cli/sql_commands.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "floe/catalog/catalog_config.h"
#include "floe/cli/iceberg_write_commands.h"
#include "floe/cli/row_output.h"
#include "floe/cli/shell.h"
#include "floe/cli/sqllogictest.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/file.h"
#include "floe/session/session.h"

namespace floe::cli {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

std::string Trim(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && IsBlank(s[b])) ++b;
  while (e > b && IsBlank(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

bool IsIdentChar(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

/// Scans `text` from `*pos` to the next ';' outside literals and comments. Returns true
/// and leaves *pos at the ';' when found; false (with *pos at the end) otherwise.
/// `*content` becomes true when anything but blanks and comments was seen.
bool ScanToSemicolon(std::string_view text, size_t* pos, bool* content) {
  size_t i = *pos;
  const size_t n = text.size();
  auto at = [&](size_t k) { return k < n ? text[k] : '\0'; };
  while (i < n) {
    char c = text[i];
    if (c == ';') {
      *pos = i;
      return true;
    }
    if (IsBlank(c)) {
      ++i;
    } else if (c == '-' && at(i + 1) == '-') {
      while (i < n && text[i] != '\n') ++i;
    } else if (c == '/' && at(i + 1) == '*') {
      int depth = 0;
      while (i < n) {
        if (text[i] == '/' && at(i + 1) == '*') {
          ++depth;
          i += 2;
        } else if (text[i] == '*' && at(i + 1) == '/') {
          i += 2;
          if (--depth == 0) break;
        } else {
          ++i;
        }
      }
    } else if (c == '\'' || c == '"') {
      *content = true;
      bool backslash = c == '\'' && i > 0 && (text[i - 1] == 'e' || text[i - 1] == 'E') &&
                       (i < 2 || !IsIdentChar(static_cast<unsigned char>(text[i - 2])));
      ++i;
      while (i < n) {
        if (backslash && text[i] == '\\') {
          i += 2;
        } else if (text[i] == c) {
          if (at(i + 1) == c) {
            i += 2;
          } else {
            ++i;
            break;
          }
        } else {
          ++i;
        }
      }
    } else if (c == '$' && (i == 0 || !IsIdentChar(static_cast<unsigned char>(text[i - 1])))) {
      *content = true;
      size_t tag_end = i + 1;
      while (tag_end < n &&
             (std::isalpha(static_cast<unsigned char>(text[tag_end])) || text[tag_end] == '_' ||
              static_cast<unsigned char>(text[tag_end]) >= 0x80)) {
        ++tag_end;
      }
      if (tag_end < n && text[tag_end] == '$') {
        std::string_view tag = text.substr(i, tag_end - i + 1);
        size_t close = text.find(tag, tag_end + 1);
        i = close == std::string_view::npos ? n : close + tag.size();
      } else {
        ++i;
      }
    } else {
      *content = true;
      ++i;
    }
  }
  *pos = n;
  return false;
}

/// Shows "rows: N  elapsed: T s" on stderr while a statement runs longer than a second
/// (only when stderr is a terminal), and clears it at the end; cancels the statement
/// when `interrupt` becomes true.
class ProgressLine {
 public:
  ProgressLine(session::QueryResult* result, bool show, const std::atomic<bool>* interrupt)
      : result_(result), show_(show && isatty(STDERR_FILENO)), interrupt_(interrupt) {
    if (!show_ && interrupt_ == nullptr) return;
    thread_ = std::thread([this] { Run(); });
  }
  ~ProgressLine() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Run() {
    auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    bool shown = false;
    bool cancelled = false;
    while (!done_) {
      if (interrupt_ != nullptr && !cancelled && interrupt_->load()) {
        result_->Cancel();
        cancelled = true;
      }
      auto elapsed = std::chrono::steady_clock::now() - start;
      if (show_ && elapsed >= std::chrono::seconds(1)) {
        std::fprintf(stderr, "\rrows: %lld  elapsed: %.1f s\033[K",
                     static_cast<long long>(result_->rows_produced()),
                     std::chrono::duration<double>(elapsed).count());
        std::fflush(stderr);
        shown = true;
      }
      cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return done_; });
    }
    if (shown) {
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
    }
  }

  session::QueryResult* result_;
  bool show_;
  const std::atomic<bool>* interrupt_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
};

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot open '{}'", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IOError("reading '{}' failed", path);
  return ss.str();
}

/// Writes a statement's rows to a Parquet file with floe's writer.
Status WriteParquet(session::QueryResult& result, const std::string& path) {
  FLOE_ASSIGN_OR_RAISE(auto out, io::CreateLocalFile(path));
  FLOE_ASSIGN_OR_RAISE(auto writer,
                       parquet::ParquetFileWriter::Open(std::move(out), result.schema(), {}));
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, result.Next());
    if (!batch) break;
    FLOE_RETURN_NOT_OK(writer->Write(*batch));
  }
  return writer->Close().status();
}

}  // namespace

void StatementSplitter::Append(std::string_view text) { buffer_.append(text); }

std::vector<std::string> StatementSplitter::TakeComplete() {
  std::vector<std::string> out;
  size_t start = 0;
  size_t pos = 0;
  bool content = false;
  while (ScanToSemicolon(buffer_, &pos, &content)) {
    if (content) out.push_back(Trim(std::string_view(buffer_).substr(start, pos - start)));
    start = pos + 1;
    pos = start;
    content = false;
  }
  buffer_.erase(0, start);
  return out;
}

bool StatementSplitter::HasPending() const {
  size_t pos = 0;
  bool content = false;
  ScanToSemicolon(buffer_, &pos, &content);
  return content;
}

std::string StatementSplitter::TakeRest() {
  std::string rest = HasPending() ? Trim(buffer_) : std::string();
  buffer_.clear();
  return rest;
}

std::vector<std::string> SplitScript(std::string_view script) {
  StatementSplitter splitter;
  splitter.Append(script);
  std::vector<std::string> statements = splitter.TakeComplete();
  std::string rest = splitter.TakeRest();
  if (!rest.empty()) statements.push_back(std::move(rest));
  return statements;
}

std::string FormatTiming(std::chrono::steady_clock::time_point start) {
  const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
  return fmt::format("Time: {:.3f} ms\n", ms.count());
}

Status RunAndPrint(session::Session& session, const std::string& sql, const OutputOptions& options,
                   std::ostream* out) {
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<session::QueryResult> result, session.Execute(sql));
  ProgressLine progress(result.get(), options.progress, options.interrupt);
  const SchemaPtr& schema = result->schema();
  if (schema == nullptr || schema->num_fields() == 0) {
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, result->Next());
      if (!batch) break;
    }
    if (options.format == "table" && options.command_tags) {
      *out << result->command_tag() << '\n';
      out->flush();
    }
    return Status::OK();
  }
  FLOE_ASSIGN_OR_RAISE(auto printer, RowPrinter::Make(options.format, schema, out));
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, result->Next());
    if (!batch) break;
    FLOE_RETURN_NOT_OK(printer->Write(*batch));
  }
  FLOE_RETURN_NOT_OK(printer->Finish());
  if (options.format == "table") {
    *out << '\n';  // psql separates results by an empty line
    out->flush();
  }
  return Status::OK();
}

namespace {
std::shared_ptr<scheduler::QueryCluster>& ProcessCluster() {
  static std::shared_ptr<scheduler::QueryCluster> cluster;
  return cluster;
}
}  // namespace

void SetQueryCluster(std::shared_ptr<scheduler::QueryCluster> cluster) {
  ProcessCluster() = std::move(cluster);
}

const std::shared_ptr<scheduler::QueryCluster>& QueryClusterOfProcess() { return ProcessCluster(); }

Result<session::SessionOptions> SessionOptionsFor(const std::string& catalog,
                                                  const std::string& warehouse, int threads) {
  session::SessionOptions options;
  options.cluster = QueryClusterOfProcess();
  options.warehouse = warehouse.empty() ? "warehouse" : warehouse;
  options.threads = threads;
  FLOE_ASSIGN_OR_RAISE(std::optional<catalog::CatalogPtr> resolved,
                       catalog::ResolveCatalog(catalog, warehouse));
  if (resolved.has_value()) options.catalog = std::move(*resolved);
  return options;
}

Result<int> RunSql(const SqlOptions& options, std::istream& in, std::ostream& out,
                   std::ostream& err) {
  bool parquet = options.format == "parquet";
  if (!parquet && options.format != "table" && options.format != "csv" &&
      options.format != "jsonl") {
    return Status::Invalid("unknown --format '{}' (table, csv, jsonl or parquet)", options.format);
  }
  if (parquet && options.output.empty()) {
    return Status::Invalid("--format parquet needs -o FILE");
  }
  if (!parquet && !options.output.empty()) {
    return Status::Invalid("-o FILE is only for --format parquet");
  }
  std::vector<std::string> statements;
  for (const std::string& command : options.commands) {
    for (std::string& s : SplitScript(command)) statements.push_back(std::move(s));
  }
  if (!options.file.empty()) {
    FLOE_ASSIGN_OR_RAISE(std::string script, ReadFile(options.file));
    for (std::string& s : SplitScript(script)) statements.push_back(std::move(s));
  }
  if (options.commands.empty() && options.file.empty()) {
    std::ostringstream ss;
    ss << in.rdbuf();
    for (std::string& s : SplitScript(ss.str())) statements.push_back(std::move(s));
  }

  FLOE_ASSIGN_OR_RAISE(session::SessionOptions session_options,
                       SessionOptionsFor(options.catalog, options.warehouse, options.threads));
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<session::Session> session,
                       session::Session::Make(session_options));

  OutputOptions output;
  output.format = parquet ? "table" : options.format;
  bool parquet_written = false;
  for (const std::string& sql : statements) {
    const auto start = std::chrono::steady_clock::now();
    Status st;
    if (parquet) {
      auto result = session->Execute(sql);
      if (!result.ok()) {
        st = result.status();
      } else if ((*result)->schema() != nullptr && (*result)->schema()->num_fields() > 0) {
        if (parquet_written) {
          st = Status::Invalid("--format parquet writes one result; '{}' returns rows too", sql);
        } else {
          st = WriteParquet(**result, options.output);
          if (!st.ok()) {
            std::error_code ec;
            std::filesystem::remove(options.output, ec);
            st = st.WithPrefix(fmt::format("writing '{}': ", options.output));
          }
          parquet_written = true;
        }
      } else {
        while (st.ok()) {
          auto batch = (*result)->Next();
          if (!batch.ok()) st = batch.status();
          if (!batch.ok() || *batch == nullptr) break;
        }
      }
    } else {
      st = RunAndPrint(*session, sql, output, &out);
    }
    if (!st.ok()) {
      out.flush();
      err << "ERROR: " << st.message() << std::endl;
      return 1;
    }
    if (options.timing) {
      out.flush();
      err << FormatTiming(start) << std::flush;
    }
  }
  out.flush();
  return 0;
}

void AddSqlCommands(CLI::App* app, CommandAction* action) {
  {
    auto o = std::make_shared<SqlOptions>();
    CLI::App* cmd = app->add_subcommand(
        "sql", "Run SQL statements from -c, -f or standard input and print their results");
    cmd->add_option("-c,--command", o->commands, "SQL to run (repeatable; run in order)");
    cmd->add_option("-f,--file", o->file, "SQL script to run");
    cmd->add_option("--format", o->format, "Output format")
        ->check(CLI::IsMember({"table", "csv", "jsonl", "parquet"}));
    cmd->add_option("-o,--output", o->output, "Parquet file for --format parquet");
    cmd->add_option("--catalog", o->catalog, kCatalogOptionHelp);
    cmd->add_option("--warehouse", o->warehouse,
                    "Warehouse directory of the embedded catalog (default ./warehouse), or of a "
                    "catalog URI");
    cmd->add_option("--threads", o->threads, "Worker threads (0 = hardware threads)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--timing", o->timing,
                  "Print each statement's time (\"Time: N.NNN ms\") on standard error");
    cmd->callback([o, action] {
      *action = [o]() -> Status {
        FLOE_ASSIGN_OR_RAISE(int code, RunSql(*o, std::cin, std::cout, std::cerr));
        if (code != 0) {
          std::cout.flush();
          std::exit(code);
        }
        return Status::OK();
      };
    });
  }
  {
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
  {
    auto o = std::make_shared<SqllogictestOptions>();
    CLI::App* cmd = app->add_subcommand(
        "sqllogictest", "Run sqllogictest files (each on a fresh scratch warehouse)");
    cmd->add_option("FILE", o->files, "Test files")->required();
    cmd->add_flag("--complete", o->complete,
                  "Rewrite the expected results of the files from the actual results");
    cmd->add_option("--catalog-type", o->catalog_type,
                    "The kind of catalog each file's fresh scratch warehouse gets: sql (SQLite, "
                    "the default) or hadoop (directories). A configured --catalog is not taken: "
                    "every file needs an empty catalog of its own")
        ->check(CLI::IsMember({"sql", "hadoop"}));
    cmd->add_option("--threads", o->threads, "Worker threads (0 = hardware threads)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--set", o->settings,
                    "NAME=VALUE: a session setting applied before each file runs (repeatable; "
                    "--set codec_roundtrip=on sends every stage through the plan codec)")
        ->allow_extra_args(false);
    cmd->callback([o, action] {
      *action = [o]() -> Status {
        FLOE_ASSIGN_OR_RAISE(int code, RunSqllogictest(*o, std::cout));
        if (code != 0) {
          std::cout.flush();
          std::exit(code);
        }
        return Status::OK();
      };
    });
  }
}

}  // namespace floe::cli
