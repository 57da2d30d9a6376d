// libFuzzer target: the input is SQL text, as a user would type it. Each statement (at most
// eight) is parsed, bound, optimized and planned into stages (Session::PlanStatement) but
// never run, against an embedded warehouse holding two small tables of the common types.
// Any error Status is fine; a crash, sanitizer report, leak or hang is a bug (the binder's
// unsupported paths once dereferenced what the parse tree did not hold). The warehouse is
// made in TMPDIR (fuzz/run.sh points it at a directory it removes: libFuzzer usually ends
// without running exit handlers).

#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <google/protobuf/stubs/logging.h>

#include "floe/session/session.h"
#include "floe/sql/parser.h"

namespace {

std::unique_ptr<floe::session::Session>& TheSession() {
  static std::unique_ptr<floe::session::Session> session;
  return session;
}

std::string& Warehouse() {
  static std::string dir;
  return dir;
}

void RemoveWarehouse() {
  std::error_code ec;
  if (!Warehouse().empty()) std::filesystem::remove_all(Warehouse(), ec);
}

// Runs a setup statement to its end; any failure stops the fuzzer (the target is broken).
void RunOrDie(floe::session::Session& session, std::string_view sql) {
  auto die = [&](const floe::Status& status) {
    std::fprintf(stderr, "sql_frontend_fuzz: setup failed: %s\n", status.ToString().c_str());
    std::abort();
  };
  auto result = session.Execute(sql);
  if (!result.ok()) die(result.status());
  while (true) {
    auto batch = (*result)->Next();
    if (!batch.ok()) die(batch.status());
    if (*batch == nullptr) break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);
  std::string pattern = (std::filesystem::temp_directory_path() / "floe-fuzz-sql-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) std::abort();
  Warehouse() = pattern;
  std::atexit(RemoveWarehouse);
  floe::session::SessionOptions options;
  options.warehouse = pattern + "/warehouse";
  options.threads = 1;
  auto session = floe::session::Session::Make(options);
  if (!session.ok()) std::abort();
  TheSession() = std::move(*session);
  floe::session::Session& s = *TheSession();
  RunOrDie(s,
           "CREATE TABLE t (a int, b text, c numeric(10, 2), d date, e timestamptz, f boolean, "
           "g double precision, h bigint NOT NULL) WITH (partitioning = 'day(e), bucket(4, h)')");
  RunOrDie(s,
           "INSERT INTO t VALUES (1, 'x', 1.50, DATE '2024-01-01', TIMESTAMPTZ '2024-01-01 "
           "10:00:00+00', true, 0.5, 10), (NULL, NULL, NULL, NULL, NULL, NULL, NULL, 20), (3, "
           "'z', -2.25, DATE '2023-12-31', TIMESTAMPTZ '2023-12-31 23:00:00+00', false, "
           "'NaN', 30)");
  RunOrDie(s, "CREATE TABLE u (a int, s text)");
  RunOrDie(s, "INSERT INTO u VALUES (1, 'one'), (NULL, 'z'), (3, NULL)");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  int planned = 0;
  for (const floe::sql::StatementSpan& span : floe::sql::SplitStatements(text)) {
    if (!span.complete) break;
    if (++planned > 8) break;
    (void)TheSession()->PlanStatement(text.substr(span.begin, span.end - span.begin));
  }
  return 0;
}
