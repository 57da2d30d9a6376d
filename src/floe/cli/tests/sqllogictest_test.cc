#include "floe/cli/sqllogictest.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/testing/matchers.h"

namespace floe::cli {
namespace {

using ::floe::testing::IsErrorWith;
using ::testing::ElementsAre;

constexpr const char* kFile =
    "# header comment\n"
    "statement ok\n"
    "CREATE TABLE t (a int)\n"
    "\n"
    "statement error does not exist\n"
    "SELECT * FROM nope\n"
    "\n"
    "statement error\n"
    "SELEC 1\n"
    "\n"
    "query IT rowsort\n"
    "SELECT a,\n"
    "  b FROM t\n"
    "----\n"
    "1 x\n"
    "2 (empty)\n"
    "\n"
    "skipif floe\n"
    "query I\n"
    "SELECT 1\n"
    "\n"
    "query R valuesort\n"
    "SELECT 1.5\n"
    "----\n"
    "1.5\n"
    "\n"
    "query B\n"
    "SELECT 1 WHERE false\n"
    "\n"
    "halt\n"
    "\n"
    "query I\n"
    "SELECT 2\n";

TEST(SltParse, Records) {
  ASSERT_OK_AND_ASSIGN(auto records, ParseSltFile(kFile, "f.test"));
  ASSERT_EQ(records.size(), 9u);
  EXPECT_EQ(records[0].kind, SltRecord::Kind::kStatementOk);
  EXPECT_EQ(records[0].line, 2);
  EXPECT_EQ(records[0].sql, "CREATE TABLE t (a int)");
  EXPECT_EQ(records[1].kind, SltRecord::Kind::kStatementError);
  EXPECT_EQ(records[1].error_substring, "does not exist");
  EXPECT_EQ(records[2].error_substring, "");
  EXPECT_EQ(records[3].kind, SltRecord::Kind::kQuery);
  EXPECT_EQ(records[3].line, 11);
  EXPECT_EQ(records[3].types, "IT");
  EXPECT_EQ(records[3].sort_mode, "rowsort");
  EXPECT_EQ(records[3].sql, "SELECT a,\n  b FROM t");
  EXPECT_THAT(records[3].expected, ElementsAre("1 x", "2 (empty)"));
  EXPECT_EQ(records[3].separator_index, 13);
  EXPECT_EQ(records[3].results_end_index, 16);
  EXPECT_TRUE(records[4].skip);
  EXPECT_FALSE(records[3].skip);
  EXPECT_EQ(records[5].sort_mode, "valuesort");
  EXPECT_EQ(records[6].separator_index, -1);
  EXPECT_TRUE(records[6].expected.empty());
  EXPECT_EQ(records[6].sql_end_index, 28);
  EXPECT_EQ(records[7].kind, SltRecord::Kind::kHalt);
}

TEST(SltParse, MalformedRecordsNameFileAndLine) {
  EXPECT_THAT(ParseSltFile("statement maybe\nSELECT 1\n", "a.test"),
              IsErrorWith(StatusCode::kInvalidArgument, "a.test:1: expected 'statement ok'"));
  EXPECT_THAT(ParseSltFile("\nquery IX\nSELECT 1\n", "b.test"),
              IsErrorWith(StatusCode::kInvalidArgument, "b.test:2: unknown column type 'X'"));
  EXPECT_THAT(ParseSltFile("query I sometimes\nSELECT 1\n", "c.test"),
              IsErrorWith(StatusCode::kInvalidArgument, "unknown sort mode 'sometimes'"));
  EXPECT_THAT(ParseSltFile("select 1\n", "d.test"),
              IsErrorWith(StatusCode::kInvalidArgument, "d.test:1: unknown record 'select'"));
  EXPECT_THAT(
      ParseSltFile("statement ok\n\n", "e.test"),
      IsErrorWith(StatusCode::kInvalidArgument, "e.test:1: a statement record without SQL"));
  EXPECT_THAT(ParseSltFile("require-env\n", "f.test"),
              IsErrorWith(StatusCode::kInvalidArgument, "f.test:1: require-env needs one"));
}

TEST(SltFormat, ValuesByColumnType) {
  Int64Builder ints(Int64());
  ASSERT_OK(ints.Append(42));
  ASSERT_OK(ints.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr int_array, ints.Finish());
  EXPECT_EQ(FormatSltValue(*int_array, 0, 'I'), "42");
  EXPECT_EQ(FormatSltValue(*int_array, 1, 'I'), "NULL");
  EXPECT_EQ(FormatSltValue(*int_array, 0, 'R'), "42");

  Float64Builder doubles(Float64());
  ASSERT_OK(doubles.Append(0.1 + 0.2));
  ASSERT_OK(doubles.Append(1.0 / 3.0));
  ASSERT_OK(doubles.Append(1e20));
  ASSERT_OK(doubles.Append(-2.5));
  ASSERT_OK_AND_ASSIGN(ArrayPtr double_array, doubles.Finish());
  EXPECT_EQ(FormatSltValue(*double_array, 0, 'R'), "0.3");
  EXPECT_EQ(FormatSltValue(*double_array, 1, 'R'), "0.333333333333");
  EXPECT_EQ(FormatSltValue(*double_array, 2, 'R'), "1e+20");
  EXPECT_EQ(FormatSltValue(*double_array, 3, 'R'), "-2.5");

  BooleanBuilder bools;
  ASSERT_OK(bools.Append(true));
  ASSERT_OK(bools.Append(false));
  ASSERT_OK_AND_ASSIGN(ArrayPtr bool_array, bools.Finish());
  EXPECT_EQ(FormatSltValue(*bool_array, 0, 'B'), "true");
  EXPECT_EQ(FormatSltValue(*bool_array, 1, 'T'), "false");

  BinaryBuilder strings(String());
  ASSERT_OK(strings.Append("a b"));
  ASSERT_OK(strings.Append(""));
  ASSERT_OK_AND_ASSIGN(ArrayPtr string_array, strings.Finish());
  EXPECT_EQ(FormatSltValue(*string_array, 0, 'T'), "a b");
  EXPECT_EQ(FormatSltValue(*string_array, 1, 'T'), "(empty)");

  auto schema =
      std::make_shared<Schema>(std::vector<Field>{Field("i", Int64()), Field("s", String())});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 2, {int_array, string_array}));
  EXPECT_THAT(FormatSltRows({batch}, "IT"), ElementsAre("42 a b", "NULL (empty)"));
  EXPECT_EQ(SltTypesOf(*schema), "IT");
}

TEST(SltCompare, SortModes) {
  SltRecord r;
  r.kind = SltRecord::Kind::kQuery;
  r.expected = {"1 b", "2 a "};
  EXPECT_TRUE(SltResultsMatch(r, {"1 b", "2 a"}));
  EXPECT_FALSE(SltResultsMatch(r, {"2 a", "1 b"}));
  r.sort_mode = "rowsort";
  EXPECT_TRUE(SltResultsMatch(r, {"2 a", "1 b"}));
  EXPECT_FALSE(SltResultsMatch(r, {"2 a", "1 c"}));
  r.sort_mode = "valuesort";
  EXPECT_TRUE(SltResultsMatch(r, {"a 2", "b 1"}));
  EXPECT_FALSE(SltResultsMatch(r, {"a 2", "b 1", "3"}));
}

TEST(SltCompare, Patterns) {
  SltRecord r;
  r.kind = SltRecord::Kind::kQuery;
  r.expected = {"<REGEX>:^Scan: snapshot=\\d+ rows=2$"};
  EXPECT_TRUE(SltExpectsPattern(r));
  EXPECT_TRUE(SltResultsMatch(r, {"Plan:", "Scan: snapshot=123 rows=2", "Stages:"}));
  EXPECT_FALSE(SltResultsMatch(r, {"Scan: snapshot=none rows=2"}));
  EXPECT_FALSE(SltResultsMatch(r, {"Scan: snapshot=1 rows=2 more"}));
  r.expected = {"<!REGEX>:in part"};
  EXPECT_TRUE(SltResultsMatch(r, {"groups=[1 files 10 bytes]"}));
  EXPECT_FALSE(SltResultsMatch(r, {"groups=[1 files (1 in part) 10 bytes]"}));
  // Two expected lines are rows, not a pattern.
  r.expected = {"<REGEX>:a", "b"};
  EXPECT_FALSE(SltExpectsPattern(r));
  EXPECT_FALSE(SltResultsMatch(r, {"a", "b"}));
}

TEST(SltComplete, RewritesExpectedRows) {
  std::string text =
      "query I\n"
      "SELECT 1\n"
      "----\n"
      "7\n"
      "8\n"
      "\n"
      "statement error boom\n"
      "SELECT x\n"
      "\n"
      "query IT rowsort\n"
      "SELECT 2, 'b'\n"
      "\n"
      "query T\n"
      "SELECT 3\n";
  ASSERT_OK_AND_ASSIGN(auto records, ParseSltFile(text, "x.test"));
  ASSERT_EQ(records.size(), 4u);
  std::vector<std::string> first = {"1"};
  std::vector<std::string> third = {"3 c", "2 b"};
  std::vector<std::string> fourth = {"3"};
  std::string completed =
      CompleteSltFile(text, records, {&first, nullptr, &third, &fourth}, {"", "", "", "I"});
  EXPECT_EQ(completed,
            "query I\n"
            "SELECT 1\n"
            "----\n"
            "1\n"
            "\n"
            "statement error boom\n"
            "SELECT x\n"
            "\n"
            "query IT rowsort\n"
            "SELECT 2, 'b'\n"
            "----\n"
            "2 b\n"
            "3 c\n"
            "\n"
            "query I\n"
            "SELECT 3\n"
            "----\n"
            "3\n");
}

// --catalog-type hadoop: each file runs on a fresh Hadoop catalog (tables are directories
// with vN.metadata.json, renames are refused); the default is the embedded SQLite catalog.
TEST(RunSqllogictest, CatalogTypeChoosesTheScratchCatalog) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("floe-slt-catalog-type-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "rename.test").string();
  std::ofstream(file) << "statement ok\n"
                         "CREATE SCHEMA db\n"
                         "\n"
                         "statement ok\n"
                         "CREATE TABLE db.t (id int NOT NULL)\n"
                         "\n"
                         "statement ok\n"
                         "INSERT INTO db.t VALUES (1), (2)\n"
                         "\n"
                         "query I rowsort\n"
                         "SELECT id FROM db.t\n"
                         "----\n"
                         "1\n"
                         "2\n"
                         "\n"
                         "statement error does not support renaming tables\n"
                         "ALTER TABLE db.t RENAME TO u\n";
  SqllogictestOptions options;
  options.files = {file};
  options.threads = 2;
  options.catalog_type = "hadoop";
  std::ostringstream out;
  ASSERT_OK_AND_ASSIGN(int code, RunSqllogictest(options, out));
  EXPECT_EQ(code, 0) << out.str();
  options.catalog_type = "sql";
  out.str("");
  ASSERT_OK_AND_ASSIGN(code, RunSqllogictest(options, out));
  EXPECT_EQ(code, 1);
  EXPECT_THAT(out.str(), ::testing::HasSubstr("rename.test:16: statement succeeded but an error "
                                              "was expected"));
  // Through floe's REST server the SQL catalog renames as it does in process.
  options.catalog_type = "rest";
  out.str("");
  ASSERT_OK_AND_ASSIGN(code, RunSqllogictest(options, out));
  EXPECT_EQ(code, 1);
  EXPECT_THAT(out.str(), ::testing::HasSubstr("rename.test:16: statement succeeded but an error "
                                              "was expected"));
  options.catalog_type = "glue";
  out.str("");
  ASSERT_OK_AND_ASSIGN(code, RunSqllogictest(options, out));
  EXPECT_EQ(code, 1);
  EXPECT_THAT(out.str(), ::testing::HasSubstr("unknown catalog type 'glue' (sql, hadoop or rest)"));
  std::filesystem::remove_all(dir);
}

// require-env: the variable must be set, else the file fails there; ${NAME} in later SQL is
// its value.
TEST(RunSqllogictest, RequireEnvSubstitutesAndFailsWhenUnset) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("floe-slt-require-env-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "env.test").string();
  std::ofstream(file) << "query T\n"
                         "SELECT '${FLOE_SLT_TEST_VALUE}'\n"
                         "----\n"
                         "${FLOE_SLT_TEST_VALUE}\n"
                         "\n"
                         "require-env FLOE_SLT_TEST_VALUE\n"
                         "\n"
                         "query TT\n"
                         "SELECT '${FLOE_SLT_TEST_VALUE}', '${FLOE_SLT_TEST_VALUE}x'\n"
                         "----\n"
                         "a/b a/bx\n";
  SqllogictestOptions options;
  options.files = {file};
  ::setenv("FLOE_SLT_TEST_VALUE", "a/b", 1);
  std::ostringstream out;
  ASSERT_OK_AND_ASSIGN(int code, RunSqllogictest(options, out));
  EXPECT_EQ(code, 0) << out.str();
  EXPECT_THAT(out.str(), ::testing::HasSubstr("3 passed, 0 failed"));
  ::unsetenv("FLOE_SLT_TEST_VALUE");
  out.str("");
  ASSERT_OK_AND_ASSIGN(code, RunSqllogictest(options, out));
  EXPECT_EQ(code, 1);
  EXPECT_THAT(out.str(), ::testing::HasSubstr("env.test:6: the environment variable "
                                              "FLOE_SLT_TEST_VALUE is not set"));
  EXPECT_THAT(out.str(), ::testing::HasSubstr("1 passed, 1 failed"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace floe::cli
