// COPY through a session: PostgreSQL's command tags (COPY n) for COPY FROM and COPY TO in
// every format, a failed COPY TO leaves no file, rows read_csv leaves out for errors are
// counted by EXPLAIN ANALYZE, and COPY FROM commits once. The statements' results are
// covered by test/sql/files/copy.test.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "floe/session/session.h"
#include "floe/session/tests/query_rows.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scratch_dir.h"

namespace floe::session {
namespace {

using ::floe::testing::IsErrorWith;

class CopyTest : public testing::ScratchDirTest {
 protected:
  CopyTest() : ScratchDirTest("floe_session_copy") {}

  void SetUp() override {
    ScratchDirTest::SetUp();
    SessionOptions options;
    options.warehouse = dir_ + "/warehouse";
    options.threads = 2;
    ASSERT_OK_AND_ASSIGN(session_, Session::Make(options));
  }

  // Runs `sql` to its end and returns its command tag.
  std::string Tag(const std::string& sql) {
    Result<std::unique_ptr<QueryResult>> result = session_->Execute(sql);
    EXPECT_TRUE(result.ok()) << sql << ": " << result.status().ToString();
    if (!result.ok()) return "";
    EXPECT_OK(Rows(**result).status());
    return (*result)->command_tag();
  }

  std::string Text(const std::string& sql) {
    Result<std::unique_ptr<QueryResult>> result = session_->Execute(sql);
    EXPECT_TRUE(result.ok()) << sql << ": " << result.status().ToString();
    if (!result.ok()) return "";
    Result<std::vector<std::string>> rows = Rows(**result);
    EXPECT_TRUE(rows.ok());
    std::string text;
    for (const std::string& row : *rows) text += row + "\n";
    return text;
  }

  std::unique_ptr<Session> session_;
};

TEST_F(CopyTest, CommandTags) {
  const std::string csv = dir_ + "/t.csv";
  const std::string jsonl = dir_ + "/t.jsonl";
  const std::string parquet = dir_ + "/t.parquet";
  EXPECT_EQ(Tag("COPY (SELECT g AS a, 'x' || g AS b FROM generate_series(1, 42) t(g)) TO '" + csv +
                "' (HEADER)"),
            "COPY 42");
  EXPECT_EQ(Tag("CREATE TABLE t (a int, b text)"), "CREATE TABLE");
  EXPECT_EQ(Tag("COPY t FROM '" + csv + "' (FORMAT csv, HEADER true)"), "COPY 42");
  EXPECT_EQ(Tag("COPY t TO '" + jsonl + "'"), "COPY 42");
  EXPECT_EQ(Tag("COPY (SELECT * FROM t WHERE a <= 10) TO '" + parquet + "' (FORMAT parquet)"),
            "COPY 10");
  EXPECT_EQ(Tag("COPY t FROM '" + jsonl + "' (FORMAT json)"), "COPY 42");
  EXPECT_EQ(Tag("COPY t (a) FROM '" + parquet + "' (FORMAT parquet)"), "COPY 10");
  EXPECT_EQ(Text("SELECT count(*), count(b) FROM t"), "94|84\n");
  // One snapshot per COPY FROM.
  EXPECT_EQ(Text("SELECT count(*) FROM \"t$snapshots\""), "3\n");
  // An empty file copies nothing and commits nothing.
  const std::string empty = dir_ + "/empty.csv";
  std::ofstream(empty).close();
  EXPECT_EQ(Tag("COPY t FROM '" + empty + "'"), "COPY 0");
  EXPECT_EQ(Text("SELECT count(*) FROM \"t$snapshots\""), "3\n");
}

TEST_F(CopyTest, AFailedCopyToLeavesNoFile) {
  const std::string out = dir_ + "/out.csv";
  EXPECT_THAT(session_->Execute("COPY (SELECT 1 / (3 - g) FROM generate_series(1, 5) t(g)) TO '" +
                                out + "'"),
              IsErrorWith(StatusCode::kInvalidArgument, "division by zero"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(CopyTest, RejectedRowsAreCountedByExplainAnalyze) {
  const std::string csv = dir_ + "/bad.csv";
  std::ofstream(csv) << "a,b\n1,2\nx,3\n4\n5,6\n";
  const std::string text =
      Text("EXPLAIN ANALYZE SELECT * FROM read_csv('" + csv +
           "', columns => 'a int, b int', header => true, ignore_errors => true)");
  EXPECT_NE(text.find("TextScanExec"), std::string::npos) << text;
  EXPECT_NE(text.find("rows=2 batches=1"), std::string::npos) << text;
  EXPECT_NE(text.find("rejected=2"), std::string::npos) << text;
}

}  // namespace
}  // namespace floe::session
