// The parser adapter: splits the input into statements, recognizes floe's own SHOW
// TABLES / SHOW SCHEMAS / DESCRIBE, hands every other statement to libpg_query and
// converts its JSON parse tree (parser_stmt.cc, parser_expr.cc).

#include "floe/sql/parser.h"

#include <pg_query.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/batch/utf8.h"
#include "floe/common/ascii.h"
#include "floe/sql/parse_tree_internal.h"

namespace floe::sql {

namespace internal {

const Json* Field(const Json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string StringField(const Json& j, std::string_view key) {
  const Json* v = Field(j, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

int64_t IntField(const Json& j, std::string_view key, int64_t fallback) {
  const Json* v = Field(j, key);
  return v != nullptr && v->is_number_integer() ? v->get<int64_t>() : fallback;
}

bool BoolField(const Json& j, std::string_view key) {
  const Json* v = Field(j, key);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

int LocationOf(const Json& j) { return static_cast<int>(IntField(j, "location", -1)); }

const Json& ListField(const Json& j, std::string_view key) {
  static const Json kEmpty = Json::array();
  const Json* v = Field(j, key);
  return v != nullptr && v->is_array() ? *v : kEmpty;
}

std::string_view NodeTag(const Json& node, const Json** fields) {
  *fields = nullptr;
  if (!node.is_object() || node.size() != 1) return {};
  auto it = node.begin();
  const std::string& key = it.key();
  if (key.empty() || !std::isupper(static_cast<unsigned char>(key[0])) || !it->is_object()) {
    return {};
  }
  *fields = &*it;
  return key;
}

std::vector<std::string> StripCatalog(std::vector<std::string> names) {
  if (names.size() > 1 && names[0] == "pg_catalog") names.erase(names.begin());
  return names;
}

namespace {

bool IsIdentStart(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool IsIdentChar(unsigned char c) { return IsIdentStart(c) || std::isdigit(c) || c == '$'; }
bool IsOperatorChar(char c) {
  return std::string_view("+-*/<>=~!@#%^&|`?").find(c) != std::string_view::npos;
}

/// A token of the light-weight scanner that splits statements and recognizes floe's own
/// statements; libpg_query does the real parsing.
struct Token {
  enum class Kind { kEnd, kWord, kQuotedIdent, kString, kNumber, kOperator, kPunct, kParam };
  Kind kind = Kind::kEnd;
  size_t begin = 0;
  size_t end = 0;
  /// Set when a string, quoted identifier or comment runs to the end of the input.
  bool unterminated = false;
};

class Scanner {
 public:
  /// `backslash_quotes`: backslashes escape in '...' literals too (standard_conforming_strings
  /// off), not only in E'...'.
  explicit Scanner(std::string_view text, size_t pos = 0, bool backslash_quotes = false)
      : text_(text), pos_(pos), backslash_quotes_(backslash_quotes) {}

  /// Skips blanks and comments; returns false on an unterminated block comment.
  bool SkipBlanks() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '-' && Peek(1) == '-') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && Peek(1) == '*') {
        int depth = 0;
        while (pos_ < text_.size()) {
          if (text_[pos_] == '/' && Peek(1) == '*') {
            ++depth;
            pos_ += 2;
          } else if (text_[pos_] == '*' && Peek(1) == '/') {
            pos_ += 2;
            if (--depth == 0) break;
          } else {
            ++pos_;
          }
        }
        if (depth > 0) return false;
      } else {
        break;
      }
    }
    return true;
  }

  Token Next() {
    Token t;
    if (!SkipBlanks()) {
      t.kind = Token::Kind::kPunct;
      t.begin = pos_;
      t.end = pos_;
      t.unterminated = true;
      return t;
    }
    t.begin = pos_;
    if (pos_ >= text_.size()) {
      t.end = pos_;
      return t;
    }
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '\'') {
      t.kind = Token::Kind::kString;
      t.unterminated = !SkipQuoted('\'', backslash_quotes_);
    } else if (c == '"') {
      t.kind = Token::Kind::kQuotedIdent;
      t.unterminated = !SkipQuoted('"', false);
    } else if ((c == 'e' || c == 'E') && Peek(1) == '\'') {
      t.kind = Token::Kind::kString;
      ++pos_;
      t.unterminated = !SkipQuoted('\'', /*backslash=*/true);
    } else if (IsIdentStart(c)) {
      t.kind = Token::Kind::kWord;
      while (pos_ < text_.size() && IsIdentChar(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    } else if (c == '$') {
      size_t tag_end = pos_ + 1;
      while (tag_end < text_.size() && IsIdentStart(static_cast<unsigned char>(text_[tag_end])) &&
             text_[tag_end] != '$') {
        ++tag_end;
      }
      if (tag_end < text_.size() && text_[tag_end] == '$') {
        t.kind = Token::Kind::kString;
        std::string_view tag = text_.substr(pos_, tag_end - pos_ + 1);
        size_t close = text_.find(tag, tag_end + 1);
        if (close == std::string_view::npos) {
          t.unterminated = true;
          pos_ = text_.size();
        } else {
          pos_ = close + tag.size();
        }
      } else {
        t.kind = Token::Kind::kParam;
        ++pos_;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      }
    } else if (std::isdigit(c) || (c == '.' && std::isdigit(static_cast<unsigned char>(Peek(1))))) {
      t.kind = Token::Kind::kNumber;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
              ((text_[pos_] == '+' || text_[pos_] == '-') &&
               (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
        ++pos_;
      }
    } else if (IsOperatorChar(static_cast<char>(c))) {
      t.kind = Token::Kind::kOperator;
      while (pos_ < text_.size() && IsOperatorChar(text_[pos_])) {
        // A comment start ends the operator.
        if ((text_[pos_] == '-' && Peek(1) == '-') || (text_[pos_] == '/' && Peek(1) == '*')) {
          if (pos_ == t.begin) ++pos_;
          break;
        }
        ++pos_;
      }
    } else {
      t.kind = Token::Kind::kPunct;
      ++pos_;
    }
    t.end = pos_;
    return t;
  }

  size_t pos() const { return pos_; }

 private:
  char Peek(size_t ahead) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  /// pos_ is at the opening quote; moves past the closing one. False if there is none.
  bool SkipQuoted(char quote, bool backslash) {
    ++pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (backslash && c == '\\') {
        pos_ += 2;
      } else if (c == quote) {
        if (Peek(1) == quote) {
          pos_ += 2;
        } else {
          ++pos_;
          return true;
        }
      } else {
        ++pos_;
      }
    }
    pos_ = text_.size();
    return false;
  }

  std::string_view text_;
  size_t pos_;
  bool backslash_quotes_;
};

using Piece = StatementSpan;

std::vector<StatementSpan> SplitPieces(std::string_view text, const ParseOptions& options) {
  std::vector<StatementSpan> pieces;
  Scanner scanner(text, 0, !options.standard_conforming_strings);
  bool open = false;
  StatementSpan current;
  while (true) {
    Token t = scanner.Next();
    if (t.unterminated) {
      // The rest of the input is one statement (libpg_query reports what is open).
      if (!open) current.begin = t.begin;
      current.end = text.size();
      current.complete = false;
      pieces.push_back(current);
      return pieces;
    }
    if (t.kind == Token::Kind::kEnd) break;
    bool semicolon = t.kind == Token::Kind::kPunct && text[t.begin] == ';';
    if (semicolon) {
      if (open) {
        current.terminated = true;
        current.next = t.end;
        pieces.push_back(current);
        current = StatementSpan();
      }
      open = false;
      continue;
    }
    if (!open) {
      open = true;
      current.begin = t.begin;
    }
    current.end = t.end;
  }
  if (open) pieces.push_back(current);
  return pieces;
}

/// Reads an identifier (folded to lower case unless quoted) at the scanner's position.
bool ReadName(std::string_view text, const Token& t, std::string* out) {
  if (t.kind == Token::Kind::kWord) {
    out->clear();
    for (size_t i = t.begin; i < t.end; ++i) {
      out->push_back(AsciiToLower(text[i]));
    }
    return true;
  }
  if (t.kind == Token::Kind::kQuotedIdent && t.end - t.begin >= 2) {
    out->clear();
    for (size_t i = t.begin + 1; i + 1 < t.end; ++i) {
      out->push_back(text[i]);
      if (text[i] == '"') ++i;  // "" stands for one quote
    }
    return true;
  }
  return false;
}

}  // namespace

int64_t ReadIntegerLiteral(std::string_view text, int location) {
  if (location < 0 || static_cast<size_t>(location) >= text.size()) return 0;
  Scanner scanner(text, static_cast<size_t>(location));
  bool negative = false;
  while (true) {
    Token t = scanner.Next();
    if (t.kind == Token::Kind::kOperator && t.end - t.begin == 1 && text[t.begin] == '-') {
      negative = !negative;
    } else if (t.kind == Token::Kind::kPunct && text[t.begin] == '(') {
      continue;
    } else if (t.kind == Token::Kind::kNumber) {
      uint64_t value = 0;
      for (size_t i = t.begin; i < t.end && std::isdigit(static_cast<unsigned char>(text[i]));
           ++i) {
        value = value * 10 + static_cast<uint64_t>(text[i] - '0');
      }
      return negative ? static_cast<int64_t>(0 - value) : static_cast<int64_t>(value);
    } else {
      return 0;
    }
  }
}

Status Converter::NotSupported(std::string_view what, int location) const {
  return Status::NotSupported("{} is not supported{}", what, Where(location));
}

std::string SqlWords(std::string_view camel_case) {
  std::string words;
  std::string word;
  auto flush = [&] {
    if (word.empty()) return;
    if (word == "SEQ") word = "SEQUENCE";
    if (word == "FDW") word = "FOREIGN DATA WRAPPER";
    if (word == "EXPR") word = "EXPRESSION";
    if (!words.empty()) words.push_back(' ');
    words += word;
    word.clear();
  };
  for (char c : camel_case) {
    if (std::isupper(static_cast<unsigned char>(c)) || c == '_') flush();
    if (c != '_') word.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  flush();
  return words;
}

std::string Converter::Where(int location) const {
  if (location < 0) return "";
  return " (" + DescribeLocation(input_, offset_ + location) + ")";
}

namespace {

/// Rejects input whose parse tree would nest deeper than kMaxDepth (libpg_query and the
/// conversion recurse on it): too many parentheses, or too long a chain of operators at one
/// level (a + b + c + ... nests one level per operator).
Status CheckNesting(std::string_view input, const Piece& piece, const ParseOptions& options) {
  std::string_view text = input.substr(0, piece.end);
  Scanner scanner(text, piece.begin, !options.standard_conforming_strings);
  std::vector<int> operators = {0};
  auto too_deep = [&](size_t at, std::string_view what = "expressions") {
    return Status::NotSupported("{} nested deeper than {} levels are not supported ({})", what,
                                kMaxDepth, DescribeLocation(input, static_cast<int>(at)));
  };
  // What a parenthesis opens, by the word after it.
  auto opened = [&](Scanner after) -> std::string_view {
    Token t = after.Next();
    if (t.kind != Token::Kind::kWord) return "parentheses";
    std::string_view w = text.substr(t.begin, t.end - t.begin);
    return EqualsIgnoreAsciiCase(w, "select") || EqualsIgnoreAsciiCase(w, "values") ||
                   EqualsIgnoreAsciiCase(w, "with")
               ? "queries"
               : "parentheses";
  };
  while (true) {
    Token t = scanner.Next();
    if (t.kind == Token::Kind::kEnd || t.unterminated) break;
    if (t.kind == Token::Kind::kPunct) {
      char c = text[t.begin];
      if (c == '(' || c == '[') {
        operators.push_back(0);
        if (static_cast<int>(operators.size()) > kMaxDepth) {
          return too_deep(t.begin, c == '(' ? opened(scanner) : "subscripts");
        }
      } else if ((c == ')' || c == ']') && operators.size() > 1) {
        operators.pop_back();
      } else if (c == ',') {
        operators.back() = 0;
      }
    } else if (t.kind == Token::Kind::kWord) {
      std::string_view w = text.substr(t.begin, t.end - t.begin);
      // UNION chains are flattened by the conversion; INTERSECT and EXCEPT nest.
      if (EqualsIgnoreAsciiCase(w, "intersect") || EqualsIgnoreAsciiCase(w, "except")) {
        if (++operators.back() > kMaxDepth) return too_deep(t.begin);
      } else if (EqualsIgnoreAsciiCase(w, "and") || EqualsIgnoreAsciiCase(w, "or") ||
                 EqualsIgnoreAsciiCase(w, "when") || EqualsIgnoreAsciiCase(w, "then") ||
                 EqualsIgnoreAsciiCase(w, "else") || EqualsIgnoreAsciiCase(w, "select") ||
                 EqualsIgnoreAsciiCase(w, "where") || EqualsIgnoreAsciiCase(w, "having") ||
                 EqualsIgnoreAsciiCase(w, "on") || EqualsIgnoreAsciiCase(w, "by")) {
        // These end an operand: the operators before and after are not nested in each other.
        if (!EqualsIgnoreAsciiCase(w, "select")) operators.back() = 0;
      }
    } else if (t.kind == Token::Kind::kOperator) {
      if (++operators.back() > kMaxDepth) return too_deep(t.begin);
    }
  }
  return Status::OK();
}

/// SHOW TABLES [FROM|IN schema], SHOW SCHEMAS, DESCRIBE table, SHOW CREATE TABLE table:
/// nullopt when the text is none of these.
Result<std::optional<ShowObjectsStatement>> ParseShowObjects(std::string_view input,
                                                             const Piece& piece) {
  std::string_view text = input.substr(0, piece.end);
  Scanner scanner(text, piece.begin);
  auto word = [&](const Token& t, std::string_view w) {
    return t.kind == Token::Kind::kWord &&
           EqualsIgnoreAsciiCase(text.substr(t.begin, t.end - t.begin), w);
  };
  auto syntax_error = [&](const Token& t) {
    if (t.kind == Token::Kind::kEnd) {
      return Status::Syntax("syntax error at end of input ({})",
                            DescribeLocation(input, static_cast<int>(input.size())));
    }
    return Status::Syntax("syntax error at or near \"{}\" ({})",
                          text.substr(t.begin, t.end - t.begin),
                          DescribeLocation(input, static_cast<int>(t.begin)));
  };
  // name ('.' name)* then the end.
  auto qualified_name = [&](std::vector<std::string>* out) -> Status {
    while (true) {
      Token t = scanner.Next();
      std::string part;
      if (!ReadName(text, t, &part)) return syntax_error(t);
      out->push_back(std::move(part));
      Token sep = scanner.Next();
      if (sep.kind == Token::Kind::kEnd) return Status::OK();
      if (!(sep.kind == Token::Kind::kPunct && text[sep.begin] == '.')) return syntax_error(sep);
    }
  };
  Token first = scanner.Next();
  ShowObjectsStatement show;
  if (word(first, "describe")) {
    show.kind = ShowObjectsStatement::Kind::kDescribe;
    FLOE_RETURN_NOT_OK(qualified_name(&show.name));
    return show;
  }
  if (!word(first, "show")) return std::nullopt;
  Token second = scanner.Next();
  if (word(second, "schemas")) {
    show.kind = ShowObjectsStatement::Kind::kSchemas;
    Token end = scanner.Next();
    if (end.kind != Token::Kind::kEnd) return syntax_error(end);
    return show;
  }
  if (word(second, "create")) {
    Token third = scanner.Next();
    if (!word(third, "table")) return syntax_error(third);
    show.kind = ShowObjectsStatement::Kind::kCreateTable;
    FLOE_RETURN_NOT_OK(qualified_name(&show.name));
    return show;
  }
  if (!word(second, "tables")) return std::nullopt;
  show.kind = ShowObjectsStatement::Kind::kTables;
  Token next = scanner.Next();
  if (next.kind == Token::Kind::kEnd) return show;
  if (!word(next, "from") && !word(next, "in")) return syntax_error(next);
  FLOE_RETURN_NOT_OK(qualified_name(&show.name));
  return show;
}

/// DROP TABLE ... PURGE (floe's, as in Spark and Trino; PostgreSQL has no PURGE): the byte
/// range of the trailing PURGE word in the piece, or nullopt.
std::optional<std::pair<size_t, size_t>> FindDropPurge(std::string_view input, const Piece& piece) {
  std::string_view text = input.substr(0, piece.end);
  Scanner scanner(text, piece.begin);
  auto word = [&](const Token& t, std::string_view w) {
    return t.kind == Token::Kind::kWord &&
           EqualsIgnoreAsciiCase(text.substr(t.begin, t.end - t.begin), w);
  };
  if (!word(scanner.Next(), "drop") || !word(scanner.Next(), "table")) return std::nullopt;
  Token before{};
  Token last{};
  for (Token t = scanner.Next(); t.kind != Token::Kind::kEnd; t = scanner.Next()) {
    before = last;
    last = t;
  }
  // PURGE after a table name (or CASCADE / RESTRICT); "DROP TABLE purge" names a table.
  if (!word(last, "purge")) return std::nullopt;
  if (before.kind != Token::Kind::kWord && before.kind != Token::Kind::kQuotedIdent) {
    return std::nullopt;
  }
  if (word(before, "table") || word(before, "exists")) return std::nullopt;
  return std::make_pair(last.begin - piece.begin, last.end - piece.begin);
}

/// The byte offset of the `chars`-th character (0-based) of `text`.
size_t CharToByteOffset(std::string_view text, int chars) {
  size_t pos = 0;
  int seen = 0;
  while (pos < text.size()) {
    if ((static_cast<unsigned char>(text[pos]) & 0xC0) != 0x80) {
      if (seen == chars) return pos;
      ++seen;
    }
    ++pos;
  }
  return text.size();
}

// libpg_query's scanner settings (thread-local in it, as PostgreSQL's GUCs are per backend).
extern "C" {
extern __thread bool standard_conforming_strings;
extern __thread bool escape_string_warning;
}

Result<Statement> ParsePiece(std::string_view input, const Piece& piece,
                             const ParseOptions& options) {
  std::string_view piece_text = input.substr(piece.begin, piece.end - piece.begin);
  Statement statement;
  statement.text = std::string(piece_text);
  statement.location = static_cast<int>(piece.begin);

  FLOE_ASSIGN_OR_RAISE(auto show, ParseShowObjects(input, piece));
  if (show.has_value()) {
    statement.body = std::move(*show);
    return statement;
  }
  FLOE_RETURN_NOT_OK(CheckNesting(input, piece, options));

  // libpg_query sees PURGE blanked out (positions stay the same).
  std::string pg_text = statement.text;
  const auto purge = FindDropPurge(input, piece);
  if (purge.has_value()) {
    std::fill(pg_text.begin() + static_cast<std::ptrdiff_t>(purge->first),
              pg_text.begin() + static_cast<std::ptrdiff_t>(purge->second), ' ');
  }
  standard_conforming_strings = options.standard_conforming_strings;
  escape_string_warning = false;  // its warnings have nowhere to go
  PgQueryParseResult result = pg_query_parse(pg_text.c_str());
  standard_conforming_strings = true;
  std::unique_ptr<PgQueryParseResult, void (*)(PgQueryParseResult*)> guard(
      &result, [](PgQueryParseResult* r) { pg_query_free_parse_result(*r); });
  if (result.error != nullptr) {
    std::string message = result.error->message != nullptr ? result.error->message : "error";
    int cursor = result.error->cursorpos;
    if (cursor <= 0) return Status::Syntax("{}", message);
    size_t at = piece.begin + CharToByteOffset(piece_text, cursor - 1);
    return Status::Syntax("{} ({})", message, DescribeLocation(input, static_cast<int>(at)));
  }
  Json tree = Json::parse(result.parse_tree != nullptr ? result.parse_tree : "", nullptr,
                          /*allow_exceptions=*/false);
  if (tree.is_discarded()) return Status::Internal("libpg_query returned malformed JSON");
  const Json& stmts = ListField(tree, "stmts");
  Converter converter(input, static_cast<int>(piece.begin), piece_text);
  if (stmts.size() != 1) {
    return converter.NotSupported("a statement that libpg_query splits differently", 0);
  }
  const Json* raw = Field(stmts[0], "stmt");
  if (raw == nullptr) return converter.NotSupported("an empty statement", 0);
  FLOE_ASSIGN_OR_RAISE(statement.body, converter.ConvertStatement(*raw));
  if (purge.has_value()) {
    auto* drop = std::get_if<DropStatement>(&statement.body);
    if (drop == nullptr) return converter.NotSupported("PURGE here", 0);
    drop->purge = true;
  }
  return statement;
}

}  // namespace
}  // namespace internal

std::string DescribeLocation(std::string_view text, int offset) {
  if (offset < 0) return "";
  if (static_cast<size_t>(offset) >= text.size()) return "end of input";
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < static_cast<size_t>(offset); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  int column = 1;
  for (size_t i = line_start; i < static_cast<size_t>(offset); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

Result<std::vector<Statement>> Parse(std::string_view text, const ParseOptions& options) {
  if (text.size() > static_cast<size_t>(INT32_MAX / 2)) {
    return Status::Invalid("SQL text of {} bytes is too long", text.size());
  }
  if (text.find('\0') != std::string_view::npos) {
    return Status::Syntax("SQL text contains a NUL byte ({})",
                          DescribeLocation(text, static_cast<int>(text.find('\0'))));
  }
  if (const size_t bad = InvalidUtf8Offset(text); bad != std::string_view::npos) {
    // As PostgreSQL says it: the bytes of the sequence that is not UTF-8 (the lead byte and
    // the continuation bytes it announces, as far as they are there).
    const auto lead = static_cast<unsigned char>(text[bad]);
    const size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    std::string bytes;
    for (size_t i = bad; i < std::min(text.size(), bad + length); ++i) {
      if (i > bad && (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) break;
      bytes +=
          fmt::format("{}0x{:02x}", bytes.empty() ? "" : " ", static_cast<unsigned char>(text[i]));
    }
    return Status::Syntax("invalid byte sequence for encoding \"UTF8\": {} ({})", bytes,
                          DescribeLocation(text, static_cast<int>(bad)));
  }
  std::vector<Statement> statements;
  for (const internal::Piece& piece : internal::SplitPieces(text, options)) {
    FLOE_ASSIGN_OR_RAISE(Statement s, internal::ParsePiece(text, piece, options));
    statements.push_back(std::move(s));
  }
  return statements;
}

std::vector<StatementSpan> SplitStatements(std::string_view text, const ParseOptions& options) {
  return internal::SplitPieces(text, options);
}

}  // namespace floe::sql
