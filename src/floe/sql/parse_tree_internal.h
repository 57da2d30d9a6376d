#pragma once

// Private to the parser adapter (parser.cc, parser_expr.cc, parser_stmt.cc): the
// conversion of libpg_query's JSON parse tree into floe's syntax tree.
//
// pg_query's JSON has two quirks the converter works around:
//  - A node is an object with one key naming its type ({"ColumnRef": {...}}); some
//    fields (SelectStmt larg/rarg, WindowDef in "over", IntoClause) hold the bare
//    fields without that wrapper.
//  - Default values are omitted, and the 15-4.0 release also omits negative integers
//    ("ival": {} stands for 0 and for every negative value). Integer literals are
//    therefore re-read from the statement text at the node's location.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/common/result.h"
#include "floe/sql/ast.h"

namespace floe::sql::internal {

using Json = nlohmann::json;

/// Deepest nesting of expressions and queries the converter follows.
constexpr int kMaxDepth = 1000;

/// The member `key` of object `j`, or nullptr.
const Json* Field(const Json& j, std::string_view key);
/// The string member `key`, or "" when absent.
std::string StringField(const Json& j, std::string_view key);
/// The integer member `key`, or `fallback` when absent.
int64_t IntField(const Json& j, std::string_view key, int64_t fallback = 0);
bool BoolField(const Json& j, std::string_view key);
/// The "location" member, -1 when absent.
int LocationOf(const Json& j);
/// The list member `key` (an empty list when absent).
const Json& ListField(const Json& j, std::string_view key);

/// Splits a wrapped node {"Tag": {...}} into its tag and fields; "" for anything else.
std::string_view NodeTag(const Json& node, const Json** fields);

/// The integer whose literal starts at byte `location` of `text` (a '-' sign, possibly
/// separated by blanks, comments and parentheses, then digits); 0 when none.
int64_t ReadIntegerLiteral(std::string_view text, int location);

/// Converts one statement's parse tree. Locations are relative to the statement's text;
/// error messages describe places in the whole input.
class Converter {
 public:
  /// `input` is the whole text given to Parse; the statement is input[offset, ...).
  Converter(std::string_view input, int offset, std::string_view statement)
      : input_(input), offset_(offset), text_(statement) {}

  // parser_stmt.cc
  Result<StatementBody> ConvertStatement(const Json& node);
  /// A SelectStmt node (wrapped or bare).
  Result<SelectStmtPtr> ConvertSelect(const Json& node);
  /// A FROM item (RangeVar, RangeSubselect, RangeFunction, JoinExpr).
  Result<TableRefPtr> ConvertTableRef(const Json& node);
  /// SET items of UPDATE and MERGE (ResTarget nodes; MultiAssignRef rows split per column).
  Result<std::vector<Assignment>> ConvertAssignments(const Json& list);

  // parser_expr.cc
  Result<ParsedExprPtr> ConvertExpr(const Json& node);
  Result<std::vector<ParsedExprPtr>> ConvertExprList(const Json& list);
  Result<TypeName> ConvertTypeName(const Json& fields);
  Result<std::vector<SortItem>> ConvertSortList(const Json& list);
  /// A WindowDef's fields (unwrapped).
  Result<WindowDef> ConvertWindowDef(const Json& fields);
  /// A list of String nodes as strings.
  Result<std::vector<std::string>> ConvertNameList(const Json& list, int location);
  /// A DefElem's argument as text (strings, numbers, type names, keywords).
  Result<std::string> DefElemValueText(const Json& def_fields);

  /// kNotSupported "<what> is not supported (line L, column C)".
  Status NotSupported(std::string_view what, int location) const;
  /// " (line L, column C)" of a statement location, "" when unknown.
  std::string Where(int location) const;

  std::string_view text() const { return text_; }

 private:
  friend class DepthGuard;
  std::string_view input_;
  int offset_;
  std::string_view text_;
  int depth_ = 0;
};

/// Counts one level of recursion; ok() is false past kMaxDepth, with kNotSupported
/// "<what> nested deeper than 1000 levels are not supported (line L, column C)".
class DepthGuard {
 public:
  DepthGuard(Converter* c, int location, std::string_view what = "expressions");
  ~DepthGuard() { --converter_->depth_; }
  const Status& status() const { return status_; }

 private:
  Converter* converter_;
  Status status_;
};

/// The words of a parse-tree name, upper-cased, for messages ("AlterSeq" -> "ALTER SEQUENCE",
/// "ColumnDefault" -> "COLUMN DEFAULT").
std::string SqlWords(std::string_view camel_case);

/// Strips a leading "pg_catalog" part.
std::vector<std::string> StripCatalog(std::vector<std::string> names);

}  // namespace floe::sql::internal
