#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/sql/ast.h"

namespace floe::sql {

struct ParseOptions {
  /// PostgreSQL's standard_conforming_strings: when false, backslashes are escapes in '...'
  /// literals too (as in E'...': 'a\'b' is a'b).
  bool standard_conforming_strings = true;
};

/// Parses `text`: zero or more statements separated by ';', in PostgreSQL's dialect
/// (libpg_query), plus floe's SHOW TABLES / SHOW SCHEMAS / DESCRIBE t. Locations in the
/// returned nodes are byte offsets into each Statement's own `text`.
/// Errors: kSyntax naming the token and its place ("syntax error at or near \"FORM\"
/// (line 1, column 10)"); kNotSupported naming a construct floe does not handle
/// ("ARRAY(subquery) is not supported (line 1, column 8)").
Result<std::vector<Statement>> Parse(std::string_view text, const ParseOptions& options = {});

/// One statement of a script: `text.substr(begin, end - begin)` runs from its first token to
/// the end of its last one.
struct StatementSpan {
  size_t begin = 0;
  size_t end = 0;
  /// Whether a ';' ends it; `next` is then the position just after that ';'.
  bool terminated = false;
  size_t next = 0;
  /// False when a string, quoted name or comment opened in it runs to the end of the text
  /// (the statement is then the rest of the text).
  bool complete = true;
};

/// The statements of a script, split at each ';' outside string and dollar-quoted literals,
/// quoted names and comments by the scanner Parse uses (the one splitter: the shell, scripts
/// and Parse all go through it). Statements of only blanks and comments are left out.
std::vector<StatementSpan> SplitStatements(std::string_view text, const ParseOptions& options = {});

/// "line L, column C" (1-based, columns in characters) of byte `offset` in `text`;
/// "end of input" when offset >= text.size(); "" when offset < 0.
std::string DescribeLocation(std::string_view text, int offset);

}  // namespace floe::sql
