#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/sql/ast.h"

namespace floe::sql {

/// Parses `text`: zero or more statements separated by ';', in PostgreSQL's dialect
/// (libpg_query), plus floe's SHOW TABLES / SHOW SCHEMAS / DESCRIBE t. Locations in the
/// returned nodes are byte offsets into each Statement's own `text`.
/// Errors: kSyntax naming the token and its place ("syntax error at or near \"FORM\"
/// (line 1, column 10)"); kNotSupported naming a construct floe does not handle
/// ("WITH RECURSIVE is not supported (line 1, column 1)").
Result<std::vector<Statement>> Parse(std::string_view text);

/// "line L, column C" (1-based, columns in characters) of byte `offset` in `text`;
/// "end of input" when offset >= text.size(); "" when offset < 0.
std::string DescribeLocation(std::string_view text, int offset);

}  // namespace floe::sql
