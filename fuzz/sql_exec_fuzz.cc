// libFuzzer target: the input is SQL text, as a user would type it. Up to eight of its
// statements run to their end (every batch pulled) through Session::Execute, against an
// embedded warehouse of small tables of the common types: the `t`/`u` pair of the front-end
// target, and small tables named and shaped like those of PostgreSQL's regression tests
// (int4_tbl, float8_tbl, text_tbl, date_tbl, tenk1, arrtest, ...) with values of our own, so
// statements taken from those tests (fuzz/run.sh makes seeds of them) bind and run. Any error
// Status is fine; a crash, sanitizer report, leak or hang is a bug.
//
// Bounds, so that one input can neither hang nor eat the machine: every statement runs under
// the session settings statement_timeout (500 ms; a statement past it is cancelled between
// batches) and memory_limit (64 MB), a batch_size of at most 8192 rows and at most four
// target partitions; a SET of those is put back after each statement. Each input starts from
// the session's settings as setup left them.
//
// State: every input starts from the same warehouse, so a reproducer replays alone. The
// warehouse is made once, in TMPDIR, and copied aside as a template (its metadata names
// absolute paths, so it is always used at the one path it was made at). An input whose
// statements may have changed the warehouse or the session (any statement but a query, SET,
// SHOW, DESCRIBE and the like) closes the session afterwards; the warehouse is replaced by the
// template and a new session opened. Queries, the common case, cost no reset.
//
// Files outside the warehouse: statements that would write a file the input names are not
// run (COPY ... TO a file, CREATE TABLE ... WITH (location = ...)); everything else (reading
// files with read_csv or COPY FROM included) runs as a user's would. fuzz/run.sh points TMPDIR
// at a directory it removes: libFuzzer usually ends without running exit handlers.

#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "floe/common/ascii.h"
#include "floe/exec/session_config.h"
#include "floe/session/session.h"
#include "floe/sql/ast.h"
#include "floe/sql/parser.h"

namespace {

constexpr int kMaxStatements = 8;
constexpr int64_t kMaxBatchSize = 8192;
constexpr int64_t kMaxTargetPartitions = 4;

struct State {
  std::string root;       // the temporary directory holding everything below
  std::string warehouse;  // the session's warehouse
  std::string pristine;   // the warehouse as setup left it
  std::string spill;      // spill_directory
  std::unique_ptr<floe::session::Session> session;
  floe::exec::SessionConfig settings;  // the settings every input starts from
};

State& TheState() {
  static State state;
  return state;
}

void RemoveRoot() {
  std::error_code ec;
  if (!TheState().root.empty()) std::filesystem::remove_all(TheState().root, ec);
}

[[noreturn]] void Die(std::string_view what, const floe::Status& status) {
  std::fprintf(stderr, "sql_exec_fuzz: %.*s: %s\n", static_cast<int>(what.size()), what.data(),
               status.ToString().c_str());
  std::abort();
}

// Runs one statement to its end; the first error it reports.
floe::Status RunToEnd(floe::session::Session& session, std::string_view sql) {
  auto result = session.Execute(sql);
  if (!result.ok()) return result.status();
  while (true) {
    auto batch = (*result)->Next();
    if (!batch.ok()) return batch.status();
    if (*batch == nullptr) return floe::Status::OK();
  }
}

// The bounds every statement runs under (see the header comment).
void ApplyBounds(floe::exec::SessionConfig& config) {
  auto set = [&](std::string_view name, std::string_view value) {
    floe::Status status = config.Set(name, value);
    if (!status.ok()) Die("setting a bound", status);
  };
  set("memory_limit", "64MB");
  set("statement_timeout", "500");
  set("spill_directory", TheState().spill);
  if (config.batch_size() > kMaxBatchSize) set("batch_size", "8192");
  if (config.target_partitions() > kMaxTargetPartitions) set("target_partitions", "2");
}

void OpenSession() {
  State& state = TheState();
  floe::session::SessionOptions options;
  options.warehouse = state.warehouse;
  options.threads = 1;
  auto session = floe::session::Session::Make(options);
  if (!session.ok()) Die("opening the session", session.status());
  state.session = std::move(*session);
  floe::exec::SessionConfig& config = state.session->mutable_config();
  floe::Status status = config.Set("target_partitions", "2");
  if (status.ok()) status = config.Set("batch_size", "1000");
  if (!status.ok()) Die("setting up the session", status);
  ApplyBounds(config);
  state.settings = config;
}

// The tables every input sees. Those of the first group must exist; the others use types or
// syntax the engine may not have (then they are left out, said once on stderr).
constexpr const char* kRequiredSetup[] = {
    "CREATE TABLE t (a int, b text, c numeric(10, 2), d date, e timestamptz, f boolean, "
    "g double precision, h bigint NOT NULL) WITH (partitioning = 'day(e), bucket(4, h)')",
    "INSERT INTO t VALUES (1, 'x', 1.50, DATE '2024-01-01', TIMESTAMPTZ '2024-01-01 "
    "10:00:00+00', true, 0.5, 10), (NULL, NULL, NULL, NULL, NULL, NULL, NULL, 20), (3, "
    "'z', -2.25, DATE '2023-12-31', TIMESTAMPTZ '2023-12-31 23:00:00+00', false, "
    "'NaN', 30), (-7, '', 99999999.99, DATE '1999-02-28', TIMESTAMPTZ '1970-01-01 "
    "00:00:00+00', true, '-Infinity', 40), (2147483647, 'x', 0, DATE '2024-02-29', NULL, NULL, "
    "'Infinity', -9223372036854775807)",
    "CREATE TABLE u (a int, s text)",
    "INSERT INTO u VALUES (1, 'one'), (NULL, 'z'), (3, NULL), (3, 'three'), (-7, 'x')",
    "CREATE TABLE int2_tbl (f1 smallint)",
    "INSERT INTO int2_tbl VALUES (0), (321), (-321), (32767), (-32767)",
    "CREATE TABLE int4_tbl (f1 int)",
    "INSERT INTO int4_tbl VALUES (0), (54321), (-54321), (2147483647), (-2147483647)",
    "CREATE TABLE int8_tbl (q1 bigint, q2 bigint)",
    "INSERT INTO int8_tbl VALUES (12, 34), (12, 9876543210987654), (9876543210987654, 12), "
    "(9876543210987654, 9876543210987654), (9876543210987654, -9876543210987654)",
    "CREATE TABLE float4_tbl (f1 real)",
    "INSERT INTO float4_tbl VALUES (0.0), (1004.3), (-34.84), (1.2345678e+20), "
    "(1.2345678e-20)",
    "CREATE TABLE float8_tbl (f1 double precision)",
    "INSERT INTO float8_tbl VALUES (0.0), (-34.84), (-1004.3), (-1.2345678901234e+200), "
    "(-1.2345678901234e-200), ('NaN'), ('Infinity')",
    "CREATE TABLE numeric_tbl (n numeric(20, 5))",
    "INSERT INTO numeric_tbl VALUES (0), (1.5), (-123456789012345.12345), (NULL), (0.00001)",
    "CREATE TABLE text_tbl (f1 text)",
    "INSERT INTO text_tbl VALUES ('doh!'), ('hi de ho neighbor'), (NULL), ('')",
    "CREATE TABLE varchar_tbl (f1 varchar(4))",
    "INSERT INTO varchar_tbl VALUES ('a'), ('ab'), ('abcd'), ('abcd    ')",
    "CREATE TABLE char_tbl (f1 char(4))",
    "INSERT INTO char_tbl VALUES ('a'), ('ab'), ('abcd'), ('abcd    ')",
    "CREATE TABLE booltbl1 (f1 bool)",
    "INSERT INTO booltbl1 VALUES (true), (false), (NULL)",
    "CREATE TABLE date_tbl (f1 date)",
    "INSERT INTO date_tbl VALUES ('1957-04-09'), ('2000-02-29'), ('2038-04-08'), "
    "('0001-01-01'), ('4713-11-24 BC'), ('infinity')",
    "CREATE TABLE timestamp_tbl (d1 timestamp)",
    "INSERT INTO timestamp_tbl VALUES ('1997-02-10 17:32:01'), ('2000-02-29 00:00:00.5'), "
    "('infinity'), ('-infinity'), ('epoch')",
    "CREATE TABLE timestamptz_tbl (d1 timestamptz)",
    "INSERT INTO timestamptz_tbl VALUES ('1997-02-10 17:32:01-08'), ('2000-02-29 "
    "00:00:00.5+00'), ('infinity'), ('epoch')",
    "CREATE TABLE tenk1 (unique1 int, unique2 int, two int, four int, ten int, twenty int, "
    "hundred int, thousand int, twothousand int, fivethous int, tenthous int, odd int, even int, "
    "stringu1 text, stringu2 text, string4 text)",
    "INSERT INTO tenk1 SELECT i, (i * 37) % 200, i % 2, i % 4, i % 10, i % 20, i % 100, i, i, i, "
    "i, (i % 100) * 2, (i % 100) * 2 + 1, 'A' || i, 'B' || (i % 7), 'x' || (i % 4) "
    "FROM generate_series(0, 199) AS g(i)",
};

constexpr const char* kOptionalSetup[] = {
    "CREATE TABLE onek AS SELECT * FROM tenk1 WHERE unique1 < 100",
    "CREATE TABLE time_tbl (f1 time)",
    "INSERT INTO time_tbl VALUES ('00:00'), ('01:00'), ('12:00'), ('23:59:59.99'), (NULL)",
    "CREATE TABLE arrtest (a int[], b int[], c text[], e double precision[])",
    "INSERT INTO arrtest VALUES ('{1,2,3,4,5}', '{0,0,1,2}', '{}', NULL), "
    "('{11,12,23}', '{3,4}', '{foobar}', '{3.4,6.7}'), ('{}', NULL, '{foo,bar}', '{NaN}')",
    "CREATE TABLE test_json (json_type text, test_json json)",
    "INSERT INTO test_json VALUES ('scalar', '\"a scalar\"'), ('array', '[\"zero\", 1, "
    "{\"f\": [2, null]}]'), ('object', '{\"field1\": \"val1\", \"field2\": {\"n\": 1.5e3}}')",
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);
  State& state = TheState();
  std::string pattern =
      (std::filesystem::temp_directory_path() / "floe-fuzz-exec-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) std::abort();
  state.root = pattern;
  state.warehouse = pattern + "/warehouse";
  state.pristine = pattern + "/pristine";
  state.spill = pattern + "/spill";
  std::atexit(RemoveRoot);
  std::filesystem::create_directories(state.spill);
  OpenSession();
  for (const char* sql : kRequiredSetup) {
    floe::Status status = RunToEnd(*state.session, sql);
    if (!status.ok()) Die(sql, status);
  }
  for (const char* sql : kOptionalSetup) {
    floe::Status status = RunToEnd(*state.session, sql);
    if (!status.ok()) {
      std::fprintf(stderr, "sql_exec_fuzz: setup left out: %s: %s\n", sql,
                   status.ToString().c_str());
    }
  }
  // Closed, so that the catalog's file is complete before it is copied.
  state.session.reset();
  std::filesystem::copy(state.warehouse, state.pristine,
                        std::filesystem::copy_options::recursive);
  OpenSession();
  return 0;
}

namespace {

// Puts back the warehouse setup made, with a new session.
void ResetWarehouse() {
  State& state = TheState();
  state.session.reset();
  std::error_code ec;
  std::filesystem::remove_all(state.warehouse, ec);
  std::filesystem::copy(state.pristine, state.warehouse,
                        std::filesystem::copy_options::recursive, ec);
  if (ec) Die("restoring the warehouse", floe::Status::IOError("{}", ec.message()));
  OpenSession();
}

struct Verdict {
  bool run = true;        // false: the statement could write a file outside the warehouse
  bool changes = false;   // it may change the warehouse or the session beyond its settings
};

bool NamesLocation(const std::vector<floe::sql::Option>& options) {
  for (const floe::sql::Option& option : options) {
    if (floe::AsciiLower(option.name).find("location") != std::string::npos) return true;
  }
  return false;
}

Verdict Judge(const floe::sql::StatementBody& body) {
  return std::visit(
      [](const auto& s) -> Verdict {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, floe::sql::SelectStatement> ||
                      std::is_same_v<T, floe::sql::SetStatement> ||
                      std::is_same_v<T, floe::sql::ShowStatement> ||
                      std::is_same_v<T, floe::sql::ShowObjectsStatement>) {
          return {};
        } else if constexpr (std::is_same_v<T, std::shared_ptr<floe::sql::ExplainStatement>>) {
          Verdict inner = Judge(s->statement.body);
          if (!s->analyze) inner.changes = false;
          return inner;
        } else if constexpr (std::is_same_v<T, floe::sql::CopyStatement>) {
          if (s.from) return {true, true};
          return {s.file.empty(), false};
        } else if constexpr (std::is_same_v<T, floe::sql::CreateTableStatement>) {
          return {!NamesLocation(s.options), true};
        } else if constexpr (std::is_same_v<T, floe::sql::AlterTableStatement>) {
          for (const floe::sql::AlterTableCommand& command : s.commands) {
            if (NamesLocation(command.options)) return {false, true};
          }
          return {true, true};
        } else {
          return {true, true};
        }
      },
      body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  State& state = TheState();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  bool changed = false;
  int run = 0;
  for (const floe::sql::StatementSpan& span : floe::sql::SplitStatements(text)) {
    if (!span.complete) break;
    if (++run > kMaxStatements) break;
    const std::string_view sql = text.substr(span.begin, span.end - span.begin);
    // Parsed here only to see what the statement would do; Execute parses it again.
    auto parsed = floe::sql::Parse(sql);
    if (!parsed.ok() || parsed->size() != 1) continue;
    const Verdict verdict = Judge(parsed->front().body);
    if (!verdict.run) continue;
    changed = changed || verdict.changes;
    (void)RunToEnd(*state.session, sql);
    ApplyBounds(state.session->mutable_config());
  }
  if (changed) {
    ResetWarehouse();
  } else {
    state.session->mutable_config() = state.settings;
  }
  return 0;
}
