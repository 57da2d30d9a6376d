#include "floe/cli/sqllogictest.h"

#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <regex>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "floe/batch/value_format.h"
#include "floe/catalog/catalog.h"
#include "floe/catalog/rest/rest_catalog.h"
#include "floe/catalog/rest/rest_server.h"
#include "floe/cli/statement_runner.h"
#include "floe/session/session.h"

namespace floe::cli {

namespace {

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

std::string TrimRight(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

bool IsBlankLine(const std::string& line) { return Trim(line).empty(); }

std::vector<std::string> Tokens(const std::string& line) {
  std::istringstream ss(line);
  std::vector<std::string> out;
  std::string w;
  while (ss >> w) out.push_back(w);
  return out;
}

bool IsNumeric(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal:
      return true;
    default:
      return false;
  }
}

std::vector<std::string> Flatten(const std::vector<std::string>& rows) {
  std::vector<std::string> values;
  for (const std::string& row : rows) {
    for (std::string& v : Tokens(row)) values.push_back(std::move(v));
  }
  std::sort(values.begin(), values.end());
  return values;
}

std::vector<std::string> Normalized(const std::vector<std::string>& rows, bool sort) {
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (const std::string& r : rows) out.push_back(TrimRight(r));
  if (sort) std::sort(out.begin(), out.end());
  return out;
}

void PrintIndented(std::ostream& out, std::string_view text) {
  for (const std::string& line : SplitLines(text)) out << "    " << line << '\n';
}

void PrintRows(std::ostream& out, const std::vector<std::string>& rows) {
  if (rows.empty()) out << "    (no rows)\n";
  for (const std::string& r : rows) out << "    " << r << '\n';
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot open '{}'", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A scratch warehouse directory, removed when this goes out of scope.
class ScratchDir {
 public:
  static Result<std::unique_ptr<ScratchDir>> Make() {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string pattern = (base / "floe-slt-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return Status::IOError("cannot create a scratch directory in '{}'", base.string());
    }
    return std::unique_ptr<ScratchDir>(new ScratchDir(pattern));
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

/// Runs a statement to its end; returns its batches.
// A statement's result read to its end: its schema and rows, and its command tag.
struct Outcome {
  SchemaPtr first;
  std::vector<RecordBatchPtr> second;
  std::string tag;
};

Result<Outcome> RunToEnd(session::Session& session, const std::string& sql) {
  FLOE_ASSIGN_OR_RAISE(auto result, session.Execute(sql));
  std::vector<RecordBatchPtr> batches;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, result->Next());
    if (!batch) break;
    batches.push_back(std::move(batch));
  }
  return Outcome{result->schema(), std::move(batches), result->command_tag()};
}

}  // namespace

Result<std::vector<SltRecord>> ParseSltFile(std::string_view text, std::string_view name) {
  std::vector<std::string> lines = SplitLines(text);
  std::vector<SltRecord> records;
  auto error = [&](size_t i, const std::string& what) {
    return Status::Invalid("{}:{}: {}", name, i + 1, what);
  };
  bool skip_next = false;
  size_t i = 0;
  auto read_sql = [&](SltRecord* r, bool stop_at_separator) {
    std::string sql;
    while (i < lines.size() && !IsBlankLine(lines[i])) {
      if (stop_at_separator && Trim(lines[i]) == "----") break;
      if (lines[i][0] != '#') {
        if (!sql.empty()) sql += '\n';
        sql += lines[i];
      }
      ++i;
    }
    r->sql = std::move(sql);
    r->sql_end_index = static_cast<int>(i);
  };
  while (i < lines.size()) {
    const std::string& line = lines[i];
    if (IsBlankLine(line) || Trim(line)[0] == '#') {
      ++i;
      continue;
    }
    std::vector<std::string> tokens = Tokens(line);
    const std::string& head = tokens[0];
    if (head == "skipif" || head == "onlyif") {
      if (tokens.size() < 2) return error(i, head + " needs an engine name");
      bool is_floe = tokens[1] == "floe";
      skip_next = head == "skipif" ? is_floe : !is_floe;
      ++i;
      continue;
    }
    SltRecord r;
    r.line = static_cast<int>(i + 1);
    r.skip = skip_next;
    skip_next = false;
    if (head == "halt") {
      r.kind = SltRecord::Kind::kHalt;
      records.push_back(std::move(r));
      ++i;
      continue;
    }
    if (head == "require-env") {
      if (tokens.size() != 2) return error(i, "require-env needs one variable name");
      r.kind = SltRecord::Kind::kRequireEnv;
      r.variable = tokens[1];
      records.push_back(std::move(r));
      ++i;
      continue;
    }
    if (head == "statement") {
      if (tokens.size() < 2 || (tokens[1] != "ok" && tokens[1] != "error" && tokens[1] != "tag")) {
        return error(i,
                     "expected 'statement ok', 'statement tag TAG' or 'statement error "
                     "[substring]'");
      }
      if (tokens[1] == "tag") {
        if (tokens.size() < 3) return error(i, "'statement tag' needs the expected tag");
        r.kind = SltRecord::Kind::kStatementOk;
        size_t at = line.find("tag");
        r.expected_tag = Trim(std::string_view(line).substr(at + 3));
      } else if (tokens[1] == "ok") {
        if (tokens.size() > 2) return error(i, "unexpected text after 'statement ok'");
        r.kind = SltRecord::Kind::kStatementOk;
      } else {
        r.kind = SltRecord::Kind::kStatementError;
        size_t at = line.find("error");
        r.error_substring = Trim(std::string_view(line).substr(at + 5));
      }
      ++i;
      read_sql(&r, /*stop_at_separator=*/false);
      if (r.sql.empty()) return error(r.line - 1, "a statement record without SQL");
      records.push_back(std::move(r));
      continue;
    }
    if (head == "query") {
      r.kind = SltRecord::Kind::kQuery;
      if (tokens.size() < 2) return error(i, "'query' needs its column types (e.g. query IT)");
      r.types = tokens[1];
      for (char c : r.types) {
        if (std::string_view("IRTBD").find(c) == std::string_view::npos) {
          return error(i, fmt::format("unknown column type '{}' (I, R, T, B or D)", c));
        }
      }
      if (tokens.size() > 2) {
        r.sort_mode = tokens[2];
        if (r.sort_mode != "nosort" && r.sort_mode != "rowsort" && r.sort_mode != "valuesort") {
          return error(i, "unknown sort mode '" + r.sort_mode + "' (nosort, rowsort, valuesort)");
        }
      }
      ++i;
      read_sql(&r, /*stop_at_separator=*/true);
      if (r.sql.empty()) return error(r.line - 1, "a query record without SQL");
      if (i < lines.size() && Trim(lines[i]) == "----") {
        r.separator_index = static_cast<int>(i);
        ++i;
        while (i < lines.size() && !IsBlankLine(lines[i])) r.expected.push_back(lines[i++]);
        r.results_end_index = static_cast<int>(i);
      }
      records.push_back(std::move(r));
      continue;
    }
    return error(
        i, "unknown record '" + head + "' (statement, query, halt, require-env, skipif, onlyif)");
  }
  return records;
}

std::string FormatSltValue(const Array& array, int64_t row, char type, int extra_float_digits) {
  if (array.IsNull(row)) return "NULL";
  TypeId id = array.type()->id();
  FormatOptions options;
  options.extra_float_digits = extra_float_digits;
  std::string text = FormatValue(array, row, options);
  if (id == TypeId::kBoolean) return text == "t" ? "true" : "false";
  if (type == 'R' && (IsNumeric(id) || array.type()->is_numeric())) {
    if (text == "NaN" || text == "Infinity" || text == "-Infinity") return text;
    double v = std::strtod(text.c_str(), nullptr);
    return fmt::format("{:.12g}", v);
  }
  if (text.empty()) return "(empty)";
  return text;
}

std::vector<std::string> FormatSltRows(const std::vector<RecordBatchPtr>& batches,
                                       std::string_view types, int extra_float_digits) {
  std::vector<std::string> rows;
  for (const RecordBatchPtr& batch : batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string line;
      for (int c = 0; c < batch->num_columns(); ++c) {
        if (c > 0) line += ' ';
        char type = static_cast<size_t>(c) < types.size() ? types[static_cast<size_t>(c)] : 'T';
        line += FormatSltValue(*batch->column(c), r, type, extra_float_digits);
      }
      rows.push_back(std::move(line));
    }
  }
  return rows;
}

std::string SltTypesOf(const Schema& schema) {
  std::string types;
  for (const Field& f : schema.fields()) {
    if (f.type()->is_numeric()) {
      types += 'R';
      continue;
    }
    switch (f.type()->id()) {
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64:
        types += 'I';
        break;
      case TypeId::kFloat32:
      case TypeId::kFloat64:
      case TypeId::kDecimal:
        types += 'R';
        break;
      case TypeId::kBoolean:
        types += 'B';
        break;
      case TypeId::kDate:
      case TypeId::kTime:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs:
        types += 'D';
        break;
      default:
        types += 'T';
    }
  }
  return types;
}

bool SltExpectsPattern(const SltRecord& record) {
  return record.expected.size() == 1 && (record.expected[0].starts_with("<REGEX>:") ||
                                         record.expected[0].starts_with("<!REGEX>:"));
}

bool SltResultsMatch(const SltRecord& record, const std::vector<std::string>& actual) {
  if (SltExpectsPattern(record)) {
    const std::string& line = record.expected[0];
    const bool match = line.starts_with("<REGEX>:");
    {
      std::string text;
      for (const std::string& row : actual) text += (text.empty() ? "" : "\n") + row;
      const std::regex pattern(line.substr(line.find(':') + 1),
                               std::regex::ECMAScript | std::regex::multiline);
      return std::regex_search(text, pattern) == match;
    }
  }
  if (record.sort_mode == "valuesort") return Flatten(record.expected) == Flatten(actual);
  bool sort = record.sort_mode == "rowsort";
  return Normalized(record.expected, sort) == Normalized(actual, sort);
}

std::string CompleteSltFile(std::string_view text, const std::vector<SltRecord>& records,
                            const std::vector<const std::vector<std::string>*>& actual,
                            const std::vector<std::string>& types) {
  std::vector<std::string> lines = SplitLines(text);
  // Replacements by line index: [begin, end) -> new lines.
  struct Edit {
    size_t begin;
    size_t end;
    std::vector<std::string> lines;
  };
  std::vector<Edit> edits;
  for (size_t k = 0; k < records.size(); ++k) {
    const SltRecord& r = records[k];
    if (r.kind != SltRecord::Kind::kQuery || actual[k] == nullptr) continue;
    if (!types[k].empty()) {
      std::vector<std::string> tokens = Tokens(lines[static_cast<size_t>(r.line - 1)]);
      std::string header = "query " + types[k];
      for (size_t t = 2; t < tokens.size(); ++t) header += " " + tokens[t];
      edits.push_back({static_cast<size_t>(r.line - 1), static_cast<size_t>(r.line), {header}});
    }
    std::vector<std::string> rows = *actual[k];
    if (r.sort_mode == "rowsort") std::sort(rows.begin(), rows.end());
    if (r.sort_mode == "valuesort") {
      std::vector<std::string> values = Flatten(rows);
      rows = values;
    }
    if (r.separator_index >= 0) {
      edits.push_back({static_cast<size_t>(r.separator_index + 1),
                       static_cast<size_t>(r.results_end_index), rows});
    } else if (!rows.empty()) {
      rows.insert(rows.begin(), "----");
      edits.push_back(
          {static_cast<size_t>(r.sql_end_index), static_cast<size_t>(r.sql_end_index), rows});
    }
  }
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::vector<std::string> out;
  size_t next = 0;
  for (const Edit& e : edits) {
    while (next < e.begin) out.push_back(lines[next++]);
    for (const std::string& l : e.lines) out.push_back(l);
    next = e.end;
  }
  while (next < lines.size()) out.push_back(lines[next++]);
  std::string result;
  for (size_t i = 0; i < out.size(); ++i) {
    if (i > 0) result += '\n';
    result += out[i];
  }
  return result;
}

Result<int> RunSqllogictest(const SqllogictestOptions& options, std::ostream& out) {
  int64_t passed = 0;
  int64_t failed = 0;
  for (const std::string& file : options.files) {
    auto text = ReadFile(file);
    if (!text.ok()) {
      out << file << ": " << text.status().message() << '\n';
      ++failed;
      continue;
    }
    auto records = ParseSltFile(*text, file);
    if (!records.ok()) {
      out << records.status().message() << '\n';
      ++failed;
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(auto scratch, ScratchDir::Make());
    session::SessionOptions session_options;
    session_options.warehouse = scratch->path() + "/warehouse";
    session_options.threads = options.threads;
    session_options.cluster = QueryClusterOfProcess();
    // With `rest`, the file's SQL catalog is served by floe's REST server in this process
    // (with OAuth2) and the session reaches it through the REST client, so every statement
    // goes over the REST protocol; the server outlives the session (declared first), so
    // that the client's connections are closed before it stops.
    std::unique_ptr<catalog::RestCatalogServer> rest_server;
    Result<std::unique_ptr<session::Session>> session =
        Status::Invalid("unknown catalog type '{}' (sql, hadoop or rest)", options.catalog_type);
    if (options.catalog_type == "rest") {
      session = [&]() -> Result<std::unique_ptr<session::Session>> {
        std::filesystem::create_directories(session_options.warehouse);
        FLOE_ASSIGN_OR_RAISE(
            catalog::CatalogPtr served,
            catalog::OpenCatalog("sqlite:" + session_options.warehouse + "/catalog.db",
                                 session_options.warehouse, "default"));
        catalog::RestServerOptions server_options;
        server_options.clients = {{"sqllogictest", "sqllogictest-secret"}};
        FLOE_ASSIGN_OR_RAISE(
            rest_server, catalog::RestCatalogServer::Start(std::move(served), server_options, {}));
        catalog::RestCatalogOptions client;
        client.name = "default";
        client.uri = rest_server->uri();
        client.properties = {{"credential", "sqllogictest:sqllogictest-secret"}};
        FLOE_ASSIGN_OR_RAISE(auto rest, catalog::RestCatalog::Make(std::move(client)));
        session_options.catalog = std::move(rest);
        return session::Session::Make(session_options);
      }();
    } else if (options.catalog_type == "hadoop") {
      Result<catalog::CatalogPtr> catalog =
          catalog::OpenCatalog("hadoop:" + session_options.warehouse);
      if (catalog.ok()) {
        session_options.catalog = std::move(*catalog);
        session = session::Session::Make(session_options);
      } else {
        session = catalog.status();
      }
    } else if (options.catalog_type == "sql") {
      session = session::Session::Make(session_options);
    }
    if (!session.ok()) {
      out << file << ": cannot start a session: " << session.status().message() << '\n';
      ++failed;
      continue;
    }
    Status settings_applied = Status::OK();
    for (const std::string& setting : options.settings) {
      size_t eq = setting.find('=');
      settings_applied =
          eq == std::string::npos
              ? Status::Invalid("setting \"{}\" is not name=value", setting)
              : (*session)->mutable_config().Set(setting.substr(0, eq), setting.substr(eq + 1));
      if (!settings_applied.ok()) break;
    }
    if (!settings_applied.ok()) {
      out << file << ": " << settings_applied.message() << '\n';
      ++failed;
      continue;
    }
    std::vector<std::vector<std::string>> actual_rows(records->size());
    std::vector<const std::vector<std::string>*> actual(records->size(), nullptr);
    std::vector<std::string> new_types(records->size());
    auto fail = [&](const SltRecord& r, const std::string& what) {
      ++failed;
      out << file << ':' << r.line << ": " << what << '\n';
      out << "  SQL:\n";
      PrintIndented(out, r.sql);
    };
    std::vector<std::pair<std::string, std::string>> variables;  // ${NAME} -> value
    // __TEST_DIR__: a directory of the file's own for the files it writes and reads.
    const std::string test_dir = scratch->path() + "/files";
    std::filesystem::create_directories(test_dir);
    variables.emplace_back("__TEST_DIR__", test_dir);
    for (size_t k = 0; k < records->size(); ++k) {
      const SltRecord& r = (*records)[k];
      if (r.kind == SltRecord::Kind::kHalt && !r.skip) break;
      if (r.skip || r.kind == SltRecord::Kind::kHalt) continue;
      if (r.kind == SltRecord::Kind::kRequireEnv) {
        const char* value = std::getenv(r.variable.c_str());
        if (value == nullptr || *value == '\0') {
          ++failed;
          out << file << ':' << r.line << ": the environment variable " << r.variable
              << " is not set (the file needs it)\n";
          break;
        }
        variables.emplace_back("${" + r.variable + "}", value);
        ++passed;
        continue;
      }
      std::string sql = r.sql;
      for (const auto& [name, value] : variables) {
        for (size_t at = sql.find(name); at != std::string::npos;
             at = sql.find(name, at + value.size())) {
          sql.replace(at, name.size(), value);
        }
      }
      auto result = RunToEnd(**session, sql);
      if (r.kind == SltRecord::Kind::kStatementOk) {
        if (result.ok() && !r.expected_tag.empty() && result->tag != r.expected_tag) {
          fail(r, "the statement's tag is '" + result->tag + "', not '" + r.expected_tag + "'");
        } else if (result.ok()) {
          ++passed;
        } else {
          fail(r, "statement failed: " + result.status().message());
        }
        continue;
      }
      if (r.kind == SltRecord::Kind::kStatementError) {
        if (result.ok()) {
          fail(r, "statement succeeded but an error was expected" +
                      (r.error_substring.empty() ? "" : " ('" + r.error_substring + "')"));
        } else if (!r.error_substring.empty() &&
                   result.status().message().find(r.error_substring) == std::string::npos) {
          fail(r, "the error does not contain '" + r.error_substring +
                      "': " + result.status().message());
        } else {
          ++passed;
        }
        continue;
      }
      // A query.
      if (!result.ok()) {
        fail(r, "query failed: " + result.status().message());
        continue;
      }
      const SchemaPtr& schema = result->first;
      int columns = schema != nullptr ? schema->num_fields() : 0;
      std::string types = r.types;
      if (static_cast<int>(types.size()) != columns) {
        if (options.complete && schema != nullptr) {
          types = SltTypesOf(*schema);
          new_types[k] = types;
        } else {
          fail(r, fmt::format("query declares {} column(s) ({}) but returned {}", types.size(),
                              types, columns));
          continue;
        }
      }
      actual_rows[k] =
          FormatSltRows(result->second, types,
                        static_cast<int>((*session)->config().GetInt("extra_float_digits")));
      // Results that name the file's directory (EXPLAIN's scans) name it as the file does.
      constexpr std::string_view kTestDir = "__TEST_DIR__";
      for (std::string& value : actual_rows[k]) {
        for (size_t at = value.find(test_dir); at != std::string::npos;
             at = value.find(test_dir, at + kTestDir.size())) {
          value.replace(at, test_dir.size(), kTestDir);
        }
      }
      // A pattern stays as written, also under --complete.
      const bool pattern = SltExpectsPattern(r);
      if (!pattern) actual[k] = &actual_rows[k];
      const bool matches = new_types[k].empty() && SltResultsMatch(r, actual_rows[k]);
      if (matches || (options.complete && !pattern)) {
        ++passed;
        continue;
      }
      fail(r, pattern ? "the result does not match the pattern" : "query result mismatch");
      out << (pattern ? "  pattern:\n" : "  expected:\n");
      PrintRows(out, r.expected);
      out << "  actual:\n";
      PrintRows(out, actual_rows[k]);
    }
    if (options.complete) {
      std::string completed = CompleteSltFile(*text, *records, actual, new_types);
      if (completed != *text) {
        std::ofstream f(file, std::ios::binary | std::ios::trunc);
        f << completed;
        if (!f) return Status::IOError("cannot rewrite '{}'", file);
      }
    }
  }
  out << passed << " passed, " << failed << " failed" << std::endl;
  return failed > 0 ? 1 : 0;
}

void AddSqllogictestCommand(CLI::App* app, CommandAction* action) {
  auto o = std::make_shared<SqllogictestOptions>();
  CLI::App* cmd = app->add_subcommand("sqllogictest",
                                      "Run sqllogictest files (each on a fresh scratch warehouse)");
  cmd->add_option("FILE", o->files, "Test files")->required();
  cmd->add_flag("--complete", o->complete,
                "Rewrite the expected results of the files from the actual results");
  cmd->add_option("--catalog-type", o->catalog_type,
                  "The kind of catalog each file's fresh scratch warehouse gets: sql (SQLite, "
                  "the default), hadoop (directories) or rest (the SQLite catalog served by "
                  "floe's REST server in this process, reached over HTTP). A configured "
                  "--catalog is not taken: every file needs an empty catalog of its own")
      ->check(CLI::IsMember({"sql", "hadoop", "rest"}));
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

}  // namespace floe::cli
