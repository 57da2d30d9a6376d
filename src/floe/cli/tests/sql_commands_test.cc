#include "floe/cli/sql_commands.h"
#include "floe/cli/statement_runner.h"

#include <string>
#include <vector>

#include <unistd.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/cli/shell.h"
#include "floe/session/session.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scoped_env.h"

namespace floe::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(SplitScript, CutsAtSemicolonsOutsideLiteralsAndComments) {
  EXPECT_THAT(SplitScript("SELECT 1; SELECT 2;"), ElementsAre("SELECT 1", "SELECT 2"));
  EXPECT_THAT(SplitScript("  SELECT 1 ;\n\n SELECT 2  \n"), ElementsAre("SELECT 1", "SELECT 2"));
  EXPECT_THAT(SplitScript("SELECT 'a;b', \"c;d\" FROM t; SELECT 2"),
              ElementsAre("SELECT 'a;b', \"c;d\" FROM t", "SELECT 2"));
  EXPECT_THAT(SplitScript("SELECT 'it''s;'; SELECT E'\\';'; SELECT 3"),
              ElementsAre("SELECT 'it''s;'", "SELECT E'\\';'", "SELECT 3"));
  EXPECT_THAT(SplitScript("SELECT $$a;b$$, $tag$ ; $$ ; $tag$; SELECT $1"),
              ElementsAre("SELECT $$a;b$$, $tag$ ; $$ ; $tag$", "SELECT $1"));
  // A statement runs from its first token to its last: comments around it are not part of it.
  EXPECT_THAT(SplitScript("SELECT 1 -- one; two\n; SELECT /* a /* b; */ ; */ 2"),
              ElementsAre("SELECT 1", "SELECT /* a /* b; */ ; */ 2"));
  EXPECT_THAT(SplitScript("SELECT 'a;b'; -- c;d\nSELECT \"x;\" /* ; /* ; */ */ ;; SELECT $$;$$  "),
              ElementsAre("SELECT 'a;b'", "SELECT \"x;\"", "SELECT $$;$$"));
  // An unterminated literal or comment makes the rest one statement (the parser reports it).
  EXPECT_THAT(SplitScript("SELECT 1; SELECT 'abc; SELECT 2"),
              ElementsAre("SELECT 1", "SELECT 'abc; SELECT 2"));
  EXPECT_THAT(SplitScript("SELECT 1; SELECT /* x; SELECT 2"),
              ElementsAre("SELECT 1", "SELECT /* x; SELECT 2"));
  // Empty statements and statements of only comments are dropped.
  EXPECT_THAT(SplitScript(";; -- nothing\n; /* x */ ;"), IsEmpty());
  EXPECT_THAT(SplitScript(""), IsEmpty());
  // "e'" only starts an escape string as a word of its own.
  EXPECT_THAT(SplitScript("SELECT name'\\'; SELECT 2"), ElementsAre("SELECT name'\\'", "SELECT 2"));
}

TEST(StatementSplitter, StatementsSpanLines) {
  StatementSplitter splitter;
  splitter.Append("SELECT\n");
  EXPECT_THAT(splitter.TakeComplete(), IsEmpty());
  EXPECT_TRUE(splitter.HasPending());
  splitter.Append("  'a;\n");  // inside a string: no end yet
  EXPECT_THAT(splitter.TakeComplete(), IsEmpty());
  splitter.Append("b'; SELECT 2; SELECT\n");
  EXPECT_THAT(splitter.TakeComplete(), ElementsAre("SELECT\n  'a;\nb'", "SELECT 2"));
  EXPECT_TRUE(splitter.HasPending());
  EXPECT_EQ(splitter.TakeRest(), "SELECT");
  EXPECT_FALSE(splitter.HasPending());
  splitter.Append("-- only a comment\n");
  EXPECT_FALSE(splitter.HasPending());
  EXPECT_EQ(splitter.TakeRest(), "");
}

std::string ScratchWarehouse() {
  return (std::filesystem::temp_directory_path() / ("floe-cli-test-" + std::to_string(getpid())) /
          "warehouse")
      .string();
}

TEST(RunSql, PrintsEveryResultInOrderAndStopsAtTheFirstError) {
  SqlOptions options;
  options.warehouse = ScratchWarehouse();
  options.threads = 2;
  options.commands = {"SELECT 1 AS x, 'a' AS y", "SET batch_size = 10; SELECT 2 AS z"};
  std::istringstream in;
  std::ostringstream out, err;
  ASSERT_OK_AND_ASSIGN(int code, RunSql(options, in, out, err));
  EXPECT_EQ(code, 0);
  EXPECT_EQ(out.str(), " x | y \n---+---\n 1 | a\n(1 row)\n\nSET\n z \n---\n 2\n(1 row)\n\n");
  EXPECT_EQ(err.str(), "");

  options.commands = {"SELECT 1 AS x", "SELEC 2", "SELECT 3 AS never"};
  options.format = "csv";
  out.str("");
  ASSERT_OK_AND_ASSIGN(code, RunSql(options, in, out, err));
  EXPECT_EQ(code, 1);
  EXPECT_EQ(out.str(), "x\n1\n");
  EXPECT_EQ(err.str(), "ERROR: syntax error at or near \"SELEC\" (line 1, column 1)\n");

  // Statements from the input stream when neither -c nor -f is given; jsonl rows.
  options.commands.clear();
  options.format = "jsonl";
  std::istringstream script("VALUES (1, 'a'), (2, NULL);\n-- done\n");
  out.str("");
  ASSERT_OK_AND_ASSIGN(code, RunSql(options, script, out, err));
  EXPECT_EQ(code, 0);
  EXPECT_EQ(out.str(), "{\"column1\":1,\"column2\":\"a\"}\n{\"column1\":2,\"column2\":null}\n");

  // --timing: one line per statement on the error stream; the results are unchanged.
  options.format = "csv";
  options.timing = true;
  options.commands = {"SELECT 1 AS x; SELECT 2 AS y"};
  out.str("");
  err.str("");
  ASSERT_OK_AND_ASSIGN(code, RunSql(options, in, out, err));
  EXPECT_EQ(code, 0);
  EXPECT_EQ(out.str(), "x\n1\ny\n2\n");
  EXPECT_THAT(err.str(),
              ::testing::MatchesRegex("Time: [0-9]+\\.[0-9]{3} ms\nTime: [0-9]+\\.[0-9]{3} ms\n"));
  options.timing = false;
  options.commands.clear();

  options.format = "parquet";
  EXPECT_THAT(RunSql(options, in, out, err),
              ::floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "needs -o FILE"));
  std::filesystem::remove_all(std::filesystem::path(options.warehouse).parent_path());
}

TEST(RunSql, JsonLinesRunEveryLineInOneSession) {
  SqlOptions options;
  options.warehouse = ScratchWarehouse();
  options.threads = 2;
  options.jsonl = true;
  // A temporary table and a setting outlive their statement; an error line, a line that is
  // no request and a line of two statements are answered and the session goes on.
  std::istringstream in(R"j({"sql": "CREATE TEMP TABLE t (a int, b text)"}
{"sql": "INSERT INTO t VALUES (1, 'x'), (2, NULL)"}
{"sql": "SELECT a, b, a * 10 AS h FROM t ORDER BY a;"}
{"sql": "SELECT nope FROM t"}
not json
{"query": "SELECT 1"})j"
                        "\r\n"
                        R"j({"sql": "SELECT 1; SELECT 2"}
{"sql": "SET extra_float_digits = 0"}
{"sql": "SELECT 0.1::float8 + 0.2 AS f, '\"q\"\n' AS s"}
)j");
  std::ostringstream out, err;
  ASSERT_OK_AND_ASSIGN(int code, RunSql(options, in, out, err));
  EXPECT_EQ(code, 0);
  EXPECT_EQ(out.str(), R"j({"columns":[],"rows":[],"command":"CREATE TABLE"}
{"columns":[],"rows":[],"command":"INSERT 0 2"}
{"columns":["a","b","h"],"rows":[["1","x","10"],["2",null,"20"]],)j"
                       R"j("command":"SELECT 2"}
{"error":"column \"nope\" does not exist (line 1, column 8)"}
{"error":"input line 5: not a JSON object"}
{"error":"input line 6: no string member \"sql\""}
{"error":"input line 7: \"sql\" holds 2 statements; send one per line"}
{"columns":[],"rows":[],"command":"SET"}
{"columns":["f","s"],"rows":[["0.3","\"q\"\n"]],"command":"SELECT 1"}
)j");
  EXPECT_EQ(err.str(), "");

  options.commands = {"SELECT 1"};
  EXPECT_THAT(RunSql(options, in, out, err),
              ::floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "takes no -c"));
  std::filesystem::remove_all(std::filesystem::path(options.warehouse).parent_path());
}

using ::floe::testing::ScopedEnv;

TEST(RunSql, CatalogOptionTakesAConfiguredNameOrAUri) {
  const std::filesystem::path dir = std::filesystem::path(ScratchWarehouse()).parent_path();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "home");
  // A configured catalog is opened, never created.
  std::filesystem::create_directories(dir / "files");
  const std::string config = (dir / "floe.yaml").string();
  std::ofstream(config) << "catalog:\n  files:\n    type: hadoop\n    warehouse: "
                        << (dir / "files").string() << "\ndefault-catalog: files\n";
  ScopedEnv home("HOME", (dir / "home").string());
  ScopedEnv floe_config("FLOE_CONFIG", config);

  SqlOptions options;
  options.catalog = "files";
  options.commands = {"CREATE SCHEMA db", "CREATE TABLE db.t (id int NOT NULL)"};
  std::istringstream in;
  std::ostringstream out, err;
  ASSERT_OK_AND_ASSIGN(int code, RunSql(options, in, out, err));
  EXPECT_EQ(code, 0) << err.str();
  EXPECT_TRUE(std::filesystem::exists(dir / "files/db/t/metadata/v1.metadata.json"));

  // Without --catalog: the configuration's default-catalog.
  options.catalog = "";
  options.commands = {"SHOW TABLES FROM db"};
  out.str("");
  ASSERT_OK_AND_ASSIGN(code, RunSql(options, in, out, err));
  EXPECT_EQ(
      out.str(),
      " schema_name | table_name \n-------------+------------\n db          | t\n(1 row)\n\n");
  // A URI.
  options.catalog = "hadoop:" + (dir / "files").string();
  out.str("");
  ASSERT_OK_AND_ASSIGN(code, RunSql(options, in, out, err));
  EXPECT_EQ(
      out.str(),
      " schema_name | table_name \n-------------+------------\n db          | t\n(1 row)\n\n");

  options.catalog = "nope";
  EXPECT_THAT(
      RunSql(options, in, out, err),
      ::floe::testing::IsErrorWith(StatusCode::kNotFound, "catalog 'nope' is not configured in " +
                                                              config + " (configured: files)"));
  EXPECT_THAT(
      SessionOptionsFor("files", (dir / "w").string(), 1),
      ::floe::testing::IsErrorWith(StatusCode::kInvalidArgument, "--warehouse cannot be combined"));
  // An explicit --warehouse without --catalog is the embedded catalog there.
  ASSERT_OK_AND_ASSIGN(session::SessionOptions embedded,
                       SessionOptionsFor("", (dir / "w").string(), 1));
  EXPECT_EQ(embedded.catalog, nullptr);
  EXPECT_EQ(embedded.warehouse, (dir / "w").string());
  std::filesystem::remove_all(dir);
}

TEST(Shell, StatementsOverLinesMetaCommandsAndErrors) {
  session::SessionOptions session_options;
  session_options.warehouse = ScratchWarehouse();
  session_options.threads = 2;
  ASSERT_OK_AND_ASSIGN(auto session, session::Session::Make(session_options));
  std::istringstream in(
      "SELECT 1\n  + 2 AS s;\n\\bogus\nSELEC 1; SELECT 'x' AS t;\n\\?\nSELECT 98\n\\q\nSELECT "
      "99;\n");
  std::ostringstream out, err;
  ASSERT_OK(RunShellOnStreams(*session, in, out, err));
  EXPECT_THAT(out.str(), ::testing::StartsWith(" s \n---\n 3\n(1 row)\n\n t \n---\n x\n(1 row)\n\n"
                                               "Statements end with ';'"));
  // \q stopped the shell; the pending statement did not run.
  EXPECT_EQ(out.str().find("98"), std::string::npos);
  EXPECT_EQ(out.str().find("99"), std::string::npos);
  EXPECT_EQ(err.str(),
            "invalid command \\bogus. Try \\? for help.\n"
            "ERROR: syntax error at or near \"SELEC\" (line 1, column 1)\n");
  std::filesystem::remove_all(std::filesystem::path(session_options.warehouse).parent_path());
}

}  // namespace
}  // namespace floe::cli
