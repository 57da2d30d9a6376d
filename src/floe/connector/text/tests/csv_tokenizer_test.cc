// The CSV tokenizer: RFC 4180 quoting (doubled quotes, delimiters and line breaks inside
// quotes, CRLF), PostgreSQL's reading of quotes inside fields, NULL versus the empty string,
// other escape characters, records split across the bytes given (kNeedMore), unterminated
// quotes; and CsvRecordStarts, which must find the same record starts the tokenizer does
// however the bytes are fed.

#include "floe/connector/text/csv_tokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "floe/testing/matchers.h"

namespace floe::connector {
namespace {

using ::floe::testing::IsError;
using Row = std::vector<std::optional<std::string>>;

// Every record of `text` (all bytes given at once).
Result<std::vector<Row>> Tokenize(std::string_view text, CsvDialect dialect = {}) {
  CsvTokenizer t(std::move(dialect));
  std::vector<Row> rows;
  while (!text.empty()) {
    size_t consumed = 0;
    FLOE_ASSIGN_OR_RAISE(CsvTokenizer::Step step, t.Next(text, true, &consumed));
    if (step != CsvTokenizer::Step::kRecord) return Status::Internal("kNeedMore at the end");
    Row row;
    for (int i = 0; i < t.num_fields(); ++i) {
      if (t.is_null(i)) {
        row.emplace_back(std::nullopt);
      } else {
        row.emplace_back(std::string(t.field(i)));
      }
    }
    rows.push_back(std::move(row));
    text.remove_prefix(consumed);
  }
  return rows;
}

Row R(std::vector<std::optional<std::string>> fields) { return fields; }

TEST(CsvTokenizerTest, PlainFieldsAndLineEnds) {
  ASSERT_OK_AND_ASSIGN(auto rows, Tokenize("a,b,c\n1,2,3\r\nx,,z"));
  EXPECT_EQ(rows, (std::vector<Row>{R({"a", "b", "c"}), R({"1", "2", "3"}),
                                    R({"x", std::nullopt, "z"})}));
}

TEST(CsvTokenizerTest, QuotedFields) {
  ASSERT_OK_AND_ASSIGN(auto rows,
                       Tokenize("\"a,b\",\"say \"\"hi\"\"\",\"line\nbreak\",\"crlf\r\nkept\"\n"));
  EXPECT_EQ(rows, (std::vector<Row>{R({"a,b", "say \"hi\"", "line\nbreak", "crlf\r\nkept"})}));
}

TEST(CsvTokenizerTest, QuotedEmptyIsNotNull) {
  ASSERT_OK_AND_ASSIGN(auto rows, Tokenize("\"\",,\"\"\"\"\n"));
  EXPECT_EQ(rows, (std::vector<Row>{R({"", std::nullopt, "\""})}));
}

TEST(CsvTokenizerTest, QuotesInsideAFieldAsPostgresReadsThem) {
  // A quote opens a quoted section anywhere; the field is never NULL then.
  ASSERT_OK_AND_ASSIGN(auto rows, Tokenize("ab\"c,d\"e,f\n\"x\"y\n"));
  EXPECT_EQ(rows, (std::vector<Row>{R({"abc,de", "f"}), R({"xy"})}));
}

TEST(CsvTokenizerTest, LoneCarriageReturnIsData) {
  ASSERT_OK_AND_ASSIGN(auto rows, Tokenize("a\rb,c\n"));
  EXPECT_EQ(rows, (std::vector<Row>{R({"a\rb", "c"})}));
}

TEST(CsvTokenizerTest, NullText) {
  CsvDialect d;
  d.null_text = "NA";
  ASSERT_OK_AND_ASSIGN(auto rows, Tokenize("NA,\"NA\",,x\n", d));
  EXPECT_EQ(rows, (std::vector<Row>{R({std::nullopt, "NA", "", "x"})}));
}

TEST(CsvTokenizerTest, BackslashEscape) {
  CsvDialect d;
  d.escape = '\\';
  ASSERT_OK_AND_ASSIGN(auto rows, Tokenize("\"a\\\"b\",\"c\\\\d\",\"e\\nf\",g\\h\n", d));
  EXPECT_EQ(rows, (std::vector<Row>{R({"a\"b", "c\\d", "e\\nf", "g\\h"})}));
}

TEST(CsvTokenizerTest, OtherDelimiterAndNoQuoting) {
  CsvDialect d;
  d.delimiter = '\t';
  d.quote = '\0';
  d.escape = '\0';
  ASSERT_OK_AND_ASSIGN(auto rows, Tokenize("\"a\tb\"\n", d));
  EXPECT_EQ(rows, (std::vector<Row>{R({"\"a", "b\""})}));
}

TEST(CsvTokenizerTest, EmptyLinesAndLineCounts) {
  CsvTokenizer t(CsvDialect{});
  size_t consumed = 0;
  ASSERT_OK_AND_ASSIGN(auto step, t.Next("\n", true, &consumed));
  EXPECT_EQ(step, CsvTokenizer::Step::kRecord);
  EXPECT_TRUE(t.empty_line());
  EXPECT_EQ(consumed, 1u);
  ASSERT_OK_AND_ASSIGN(step, t.Next("\"a\nb\nc\",d\r\n", true, &consumed));
  EXPECT_FALSE(t.empty_line());
  EXPECT_EQ(t.newlines(), 3);
  EXPECT_EQ(consumed, 11u);
}

TEST(CsvTokenizerTest, NeedsMoreWhereTheRecordMayContinue) {
  CsvTokenizer t(CsvDialect{});
  size_t consumed = 0;
  // No line end yet; an open quote; a quote that may be doubled; a CR that may start CRLF.
  for (std::string_view partial : {"a,b", "\"a\nb", "\"a\"", "a\r"}) {
    ASSERT_OK_AND_ASSIGN(auto step, t.Next(partial, false, &consumed));
    EXPECT_EQ(step, CsvTokenizer::Step::kNeedMore) << partial;
  }
  ASSERT_OK_AND_ASSIGN(auto step, t.Next("a,b", true, &consumed));
  EXPECT_EQ(step, CsvTokenizer::Step::kRecord);
  EXPECT_EQ(t.num_fields(), 2);
}

TEST(CsvTokenizerTest, UnterminatedQuote) {
  CsvTokenizer t(CsvDialect{});
  size_t consumed = 0;
  EXPECT_THAT(t.Next("a,\"b\nc", true, &consumed), IsError(StatusCode::kInvalidArgument));
}

// Where records start in `text`, by the tokenizer.
std::vector<int64_t> TokenizerStarts(std::string_view text, const CsvDialect& dialect) {
  CsvTokenizer t(dialect);
  std::vector<int64_t> starts;
  int64_t at = 0;
  while (static_cast<size_t>(at) < text.size()) {
    size_t consumed = 0;
    auto step = t.Next(text.substr(static_cast<size_t>(at)), true, &consumed);
    if (!step.ok()) break;
    at += static_cast<int64_t>(consumed);
    starts.push_back(at);
  }
  return starts;
}

TEST(CsvRecordStartsTest, AgreesWithTheTokenizerFedInAnyPieces) {
  const std::string text =
      "id,note\n1,\"two\nlines\"\n2,\"a \"\"quoted\"\" word\"\n3,plain\r\n4,\"x\ny\nz\"\n5,end";
  for (char escape : {'"', '\\'}) {
    CsvDialect d;
    d.escape = escape;
    const std::vector<int64_t> expected = TokenizerStarts(text, d);
    for (size_t piece : {1, 2, 3, 7, 1000}) {
      CsvRecordStarts starts(d);
      for (int64_t offset = 1; offset < static_cast<int64_t>(text.size()); ++offset) {
        starts.Want(offset);
      }
      for (size_t at = 0; at < text.size(); at += piece) {
        starts.Feed(std::string_view(text).substr(at, piece));
      }
      for (const CsvRecordStarts::Start& s : starts.found()) {
        EXPECT_NE(std::find(expected.begin(), expected.end(), s.offset), expected.end())
            << "piece " << piece << ": " << s.offset << " is no record start";
        // The line a start is on: one after the line breaks before it.
        const int64_t lines = std::count(text.begin(), text.begin() + s.offset, '\n');
        EXPECT_EQ(s.line, lines + 1);
      }
      // Every offset but those past the last record start has its start.
      const int64_t last = expected.back() == static_cast<int64_t>(text.size())
                               ? expected[expected.size() - 2]
                               : expected.back();
      EXPECT_EQ(static_cast<int64_t>(starts.found().size()), last) << "piece " << piece;
    }
  }
}

TEST(CsvRecordStartsTest, WithoutQuotesEveryLineBreakEndsARecord) {
  CsvDialect d;
  d.quote = '\0';
  CsvRecordStarts starts(d);
  starts.Want(1);
  starts.Want(4);
  starts.Feed("{\"a\": \"\\\"\"}\n{}\n{}\n");
  ASSERT_EQ(starts.found().size(), 2u);
  EXPECT_EQ(starts.found()[0].offset, 12);
  EXPECT_EQ(starts.found()[0].line, 2);
  EXPECT_EQ(starts.found()[1].offset, 12);
}

}  // namespace
}  // namespace floe::connector
