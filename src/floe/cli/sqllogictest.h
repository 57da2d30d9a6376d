#pragma once

// `floe sqllogictest FILE...`: runs sqllogictest files, the format DataFusion and
// DuckDB use for SQL tests.
//
// A file is a sequence of records separated by blank lines. Lines starting with '#' are
// comments (and are not part of any record's SQL). The records:
//
//   statement ok
//   <SQL, one or more lines>
//       The statement must succeed (rows it returns are read and ignored).
//
//   statement tag <TAG>
//   <SQL>
//       The statement must succeed and report the command tag <TAG> ("DELETE 3",
//       "INSERT 0 2"), as PostgreSQL does.
//
//   statement error [substring]
//   <SQL>
//       The statement must fail; when a substring is given (the rest of the line after
//       "error ", trimmed) the error message must contain it.
//
//   query <types> [nosort|rowsort|valuesort]
//   <SQL>
//   ----
//   <expected rows>
//       The query must succeed with one letter of <types> per column:
//         I integer, R floating point / numeric, T text, B boolean, D date / time,
//       and return the expected rows, one row per line, values separated by a single
//       space. Values are written as:
//         NULL         for NULL
//         (empty)      for the empty string
//         true/false   for booleans
//         R columns    the number with at most 12 significant digits ("%.12g"), NaN,
//                      Infinity, -Infinity
//         otherwise    PostgreSQL's text form (batch/value_format.h)
//       The rows end at the first blank line (or the end of the file). nosort (the
//       default) compares rows in order; rowsort sorts the expected and the actual rows
//       (as text) before comparing; valuesort compares the sorted lists of all values.
//       A query with no "----" line expects no rows. An expected result of one line
//       `<REGEX>:pattern` (or `<!REGEX>:pattern`) instead requires that the pattern (ECMAScript
//       syntax; ^ and $ match at line ends) matches (does not match) somewhere in the rows
//       joined by newlines: for EXPLAIN output that holds values a run cannot know, as
//       snapshot ids.
//
//   halt
//       Stops the file here.
//
//   require-env <NAME>
//       The environment variable NAME must be set (not empty): when it is not, the record
//       fails and the file stops there. From then on `${NAME}` in the SQL of every record
//       is replaced by its value (how a file names data a test writes at run time, such as
//       the reference tables; DuckDB's runner has the same record).
//
//   skipif <engine> / onlyif <engine>
//       A line before a record: the record is skipped when <engine> is "floe"
//       (skipif) or is not "floe" (onlyif).
//
// Each file runs in a fresh session::Session on a fresh scratch warehouse (a temporary
// directory, removed afterwards). `__TEST_DIR__` in the SQL of every record is replaced by a
// directory inside it, empty at the start, for the files the test writes and reads (COPY ...
// TO '__TEST_DIR__/x.csv'; DuckDB's runner has the same name). Failures print as "FILE:LINE:
// <what>" with the SQL, the expected and the actual results; the last line is "N passed, M failed"
// (counting records). With --complete, the expected rows of every query that ran are rewritten in
// place from the actual results (statement records, including their error substrings,
// are kept as they are).

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/cli/command.h"
#include "floe/common/result.h"

namespace floe::cli {

/// Options of `floe sqllogictest`.
struct SqllogictestOptions {
  std::vector<std::string> files;
  bool complete = false;
  /// "sql": each file's scratch warehouse has the embedded SQLite catalog; "hadoop": a
  /// Hadoop catalog of the scratch warehouse directory.
  std::string catalog_type = "sql";
  int threads = 0;
  /// Session settings ("name=value") applied to each file's session before it runs
  /// (--set codec_roundtrip=on runs every stage through the plan codec).
  std::vector<std::string> settings;
};

/// One record of a sqllogictest file.
struct SltRecord {
  enum class Kind { kStatementOk, kStatementError, kQuery, kHalt, kRequireEnv };
  Kind kind = Kind::kStatementOk;
  /// 1-based line of the record's first line ("statement ..." / "query ...").
  int line = 0;
  std::string sql;
  /// kRequireEnv: the variable's name.
  std::string variable;
  /// kStatementError: the substring the message must contain ("" = any error).
  std::string error_substring;
  /// kStatementOk written as `statement tag TAG`: the command tag it must report
  /// ("DELETE 3"); "" for `statement ok`.
  std::string expected_tag;
  /// kQuery: the column type letters and the sort mode.
  std::string types;
  std::string sort_mode = "nosort";
  std::vector<std::string> expected;
  /// kQuery: 0-based line index of the "----" line (-1 when absent), and of the line
  /// after the last expected row; the line index where the SQL ends (exclusive).
  int separator_index = -1;
  int results_end_index = -1;
  int sql_end_index = -1;
  /// skipif/onlyif said to skip it.
  bool skip = false;
};

/// Parses a file's text; kInvalidArgument naming the file and line of a malformed
/// record.
Result<std::vector<SltRecord>> ParseSltFile(std::string_view text, std::string_view name);

/// Formats row `row` of `array` as a value of a column of type letter `type` (see the
/// format above).
std::string FormatSltValue(const Array& array, int64_t row, char type, int extra_float_digits = 1);

/// Formats the rows of `batches`: one line per row, values separated by a space.
std::vector<std::string> FormatSltRows(const std::vector<RecordBatchPtr>& batches,
                                       std::string_view types, int extra_float_digits = 1);

/// The type letters for a schema (integers I, floats/decimals R, boolean B,
/// date/time/timestamps D, anything else T).
std::string SltTypesOf(const Schema& schema);

/// Whether the record's expected result is a `<REGEX>:` or `<!REGEX>:` pattern.
bool SltExpectsPattern(const SltRecord& record);
/// Whether `actual` matches the record's expected rows under its sort mode (or pattern).
bool SltResultsMatch(const SltRecord& record, const std::vector<std::string>& actual);

/// Rewrites a file's text with the actual rows of its queries: `actual[i]` holds the
/// rows for records[i] when it is a query that ran (nullptr otherwise); `types[i]` the
/// type letters to write when they must change ("" keeps them).
std::string CompleteSltFile(std::string_view text, const std::vector<SltRecord>& records,
                            const std::vector<const std::vector<std::string>*>& actual,
                            const std::vector<std::string>& types);

/// Runs the files; prints failures and the summary to `out`. Returns the exit code (1 if
/// any record failed or a file could not be read or parsed).
Result<int> RunSqllogictest(const SqllogictestOptions& options, std::ostream& out);

/// Registers `floe sqllogictest` on `app`.
void AddSqllogictestCommand(CLI::App* app, CommandAction* action);

}  // namespace floe::cli
