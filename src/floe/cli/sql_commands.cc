#include "floe/cli/sql_commands.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "floe/catalog/catalog_config.h"
#include "floe/cli/catalog_options.h"
#include "floe/cli/statement_runner.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/file.h"
#include "floe/session/session.h"

namespace floe::cli {

namespace {

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

void AddSqlCommand(CLI::App* app, CommandAction* action) {
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

}  // namespace floe::cli
