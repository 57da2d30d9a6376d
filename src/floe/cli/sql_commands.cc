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
#include <nlohmann/json.hpp>

#include "floe/batch/value_format.h"
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

/// The answer line to an error: {"error": "..."}.
std::string ErrorLine(std::string_view message) {
  std::string line = "{\"error\":";
  AppendJsonString(message, &line);
  line += '}';
  return line;
}

/// Runs one statement and returns its answer line (without the newline): the whole result is
/// gathered first, so that an error in the middle of the rows still gives one error line.
Result<std::string> AnswerLine(session::Session& session, const std::string& sql) {
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<session::QueryResult> result, session.Execute(sql));
  FormatOptions format;
  format.extra_float_digits = static_cast<int>(session.config().GetInt("extra_float_digits"));
  std::string line = "{\"columns\":[";
  const SchemaPtr& schema = result->schema();
  const int num_columns = schema == nullptr ? 0 : schema->num_fields();
  for (int c = 0; c < num_columns; ++c) {
    if (c > 0) line += ',';
    AppendJsonString(schema->field(c).name(), &line);
  }
  line += "],\"rows\":[";
  bool first_row = true;
  std::string text;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, result->Next());
    if (!batch) break;
    // A statement without columns returns no rows, whatever it streams.
    if (num_columns == 0) continue;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      if (!first_row) line += ',';
      first_row = false;
      line += '[';
      for (int c = 0; c < num_columns; ++c) {
        if (c > 0) line += ',';
        const Array& column = *batch->column(c);
        if (column.IsNull(r)) {
          line += "null";
          continue;
        }
        text.clear();
        AppendValueText(column, r, &text, format);
        AppendJsonString(text, &line);
      }
      line += ']';
    }
  }
  line += "],\"command\":";
  AppendJsonString(result->command_tag(), &line);
  line += '}';
  return line;
}

/// The answer line to one input line.
std::string AnswerInputLine(session::Session& session, std::string_view input, int64_t line_no) {
  const nlohmann::json request =
      nlohmann::json::parse(input.begin(), input.end(), nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded() || !request.is_object()) {
    return ErrorLine(fmt::format("input line {}: not a JSON object", line_no));
  }
  auto sql_member = request.find("sql");
  if (sql_member == request.end() || !sql_member->is_string()) {
    return ErrorLine(fmt::format("input line {}: no string member \"sql\"", line_no));
  }
  std::vector<std::string> statements = SplitScript(sql_member->get_ref<const std::string&>());
  if (statements.size() != 1) {
    return ErrorLine(fmt::format("input line {}: \"sql\" holds {} statements; send one per line",
                                 line_no, statements.size()));
  }
  Result<std::string> answer = AnswerLine(session, statements[0]);
  if (!answer.ok()) return ErrorLine(answer.status().message());
  return std::move(*answer);
}

}  // namespace

Status RunJsonLines(session::Session& session, std::istream& in, std::ostream& out) {
  std::string input;
  int64_t line_no = 0;
  while (std::getline(in, input)) {
    ++line_no;
    if (!input.empty() && input.back() == '\r') input.pop_back();
    out << AnswerInputLine(session, input, line_no) << '\n';
    out.flush();
    if (!out) return Status::IOError("writing to standard output failed");
  }
  if (in.bad()) return Status::IOError("reading standard input failed");
  return Status::OK();
}

Result<int> RunSql(const SqlOptions& options, std::istream& in, std::ostream& out,
                   std::ostream& err) {
  bool parquet = options.format == "parquet";
  if (!parquet && options.format != "table" && options.format != "csv" &&
      options.format != "jsonl") {
    return Status::Invalid("unknown --format '{}' (table, csv, jsonl or parquet)", options.format);
  }
  if (options.jsonl) {
    if (!options.commands.empty() || !options.file.empty() || options.format != "table" ||
        !options.output.empty() || options.timing) {
      return Status::Invalid(
          "--jsonl reads its statements as JSON lines from standard input and answers in JSON "
          "lines; it takes no -c, -f, --format, -o or --timing");
    }
    FLOE_ASSIGN_OR_RAISE(session::SessionOptions session_options,
                         SessionOptionsFor(options.catalog, options.warehouse, options.threads));
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<session::Session> session,
                         session::Session::Make(session_options));
    FLOE_RETURN_NOT_OK(RunJsonLines(*session, in, out));
    return 0;
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
  cmd->add_flag("--jsonl", o->jsonl,
                "Machine interface: read {\"sql\": \"...\"} lines from standard input, run them "
                "in one session and answer each with one JSON line ({\"columns\", \"rows\", "
                "\"command\"} or {\"error\"})");
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
