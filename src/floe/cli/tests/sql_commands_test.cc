#include "floe/cli/sql_commands.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
  EXPECT_THAT(SplitScript("SELECT 1 -- one; two\n; SELECT /* a /* b; */ ; */ 2"),
              ElementsAre("SELECT 1 -- one; two", "SELECT /* a /* b; */ ; */ 2"));
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

}  // namespace
}  // namespace floe::cli
