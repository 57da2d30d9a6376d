#include "floe/iceberg/spec_text.h"
#include "floe/common/ascii.h"

#include <cctype>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace floe::iceberg {

namespace {

struct Token {
  enum class Kind : uint8_t { kWord, kQuoted, kNumber, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;
  size_t pos = 0;
};

// Splits text into words, "quoted names", numbers and one-character punctuation.
Result<std::vector<Token>> Tokenize(std::string_view text, std::string_view what) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.pos = i;
    if (c == '"') {
      t.kind = Token::Kind::kQuoted;
      ++i;
      while (true) {
        if (i >= text.size()) {
          return Status::Invalid("{}: unterminated quoted name at position {}", what, t.pos + 1);
        }
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            t.text += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        t.text += text[i++];
      }
      if (t.text.empty())
        return Status::Invalid("{}: empty quoted name at position {}", what, t.pos + 1);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      t.kind = Token::Kind::kNumber;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        t.text += text[i++];
      }
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      t.kind = Token::Kind::kWord;
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) ||
                                 text[i] == '_' || text[i] == '$')) {
        t.text += text[i++];
      }
    } else if (std::string_view(",()<>:[].").find(c) != std::string_view::npos) {
      t.kind = Token::Kind::kPunct;
      t.text = std::string(1, c);
      ++i;
    } else {
      return Status::Invalid("{}: unexpected character '{}' at position {}", what, c, i + 1);
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.pos = text.size();
  out.push_back(end);
  return out;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string_view what)
      : tokens_(std::move(tokens)), what_(what) {}

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  bool AtEnd() const { return Peek().kind == Token::Kind::kEnd; }

  bool IsWord(std::string_view lower_word, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == Token::Kind::kWord && AsciiLower(t.text) == lower_word;
  }
  bool IsPunct(char c) const { return Peek().kind == Token::Kind::kPunct && Peek().text[0] == c; }
  bool AcceptWord(std::string_view lower_word) {
    if (!IsWord(lower_word)) return false;
    ++pos_;
    return true;
  }
  bool AcceptPunct(char c) {
    if (!IsPunct(c)) return false;
    ++pos_;
    return true;
  }

  Status Error(std::string_view expected) const {
    const Token& t = Peek();
    std::string found = t.kind == Token::Kind::kEnd ? "the end" : fmt::format("'{}'", t.text);
    return Status::Invalid("{}: expected {} at position {}, found {}", what_, expected, t.pos + 1,
                           found);
  }
  Status ExpectPunct(char c) {
    if (!AcceptPunct(c)) return Error(fmt::format("'{}'", c));
    return Status::OK();
  }
  Status ExpectWord(std::string_view lower_word) {
    if (!AcceptWord(lower_word)) return Error(fmt::format("'{}'", lower_word));
    return Status::OK();
  }

  // A name: a word (kept as written) or a quoted name; `quoted` tells which.
  Result<std::string> Name(bool* quoted = nullptr) {
    const Token& t = Peek();
    if (t.kind != Token::Kind::kWord && t.kind != Token::Kind::kQuoted) return Error("a name");
    if (quoted != nullptr) *quoted = t.kind == Token::Kind::kQuoted;
    ++pos_;
    return t.text;
  }

  Result<int32_t> Number() {
    const Token& t = Peek();
    if (t.kind != Token::Kind::kNumber) return Error("a number");
    if (t.text.size() > 9) {
      return Status::Invalid("{}: number {} at position {} is too large", what_, t.text, t.pos + 1);
    }
    ++pos_;
    return static_cast<int32_t>(std::stoi(t.text));
  }

  std::string_view what() const { return what_; }

 private:
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  std::string what_;
};

// ---------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------

class SchemaParser {
 public:
  explicit SchemaParser(Parser* p) : p_(*p) {}

  Result<std::vector<Field>> Columns() {
    std::vector<Field> fields;
    do {
      FLOE_RETURN_NOT_OK(NamedField(&fields));
    } while (p_.AcceptPunct(','));
    if (!p_.AtEnd()) return p_.Error("',' or the end");
    return fields;
  }

 private:
  // `name [:] type [not null]`, appended to `fields`; names are unique per struct, ignoring
  // case (SQL folds unquoted names, and a case-insensitive lookup must stay unambiguous).
  Status NamedField(std::vector<Field>* fields) {
    size_t at = p_.Peek().pos + 1;
    FLOE_ASSIGN_OR_RAISE(std::string name, p_.Name());
    for (const Field& f : *fields) {
      if (AsciiLower(f.name()) == AsciiLower(name)) {
        return Status::Invalid("{}: column '{}' at position {} is defined twice", p_.what(), name,
                               at);
      }
    }
    p_.AcceptPunct(':');
    FLOE_ASSIGN_OR_RAISE(Field f, FieldOfType(std::move(name)));
    fields->push_back(std::move(f));
    return Status::OK();
  }

  // `type [not null | null]` for a field whose id is taken before its nested types'.
  Result<Field> FieldOfType(std::string name) {
    int32_t id = next_id_++;
    FLOE_ASSIGN_OR_RAISE(TypePtr type, Type());
    FLOE_ASSIGN_OR_RAISE(bool nullable, Nullability());
    return Field(std::move(name), std::move(type), nullable, id);
  }

  Result<bool> Nullability() {
    if (p_.AcceptWord("not")) {
      FLOE_RETURN_NOT_OK(p_.ExpectWord("null"));
      return false;
    }
    p_.AcceptWord("null");
    return true;
  }

  Result<TypePtr> Type() {
    FLOE_ASSIGN_OR_RAISE(TypePtr type, BaseType());
    // Postgres' array suffix: int[] (possibly repeated).
    while (p_.IsPunct('[')) {
      p_.AcceptPunct('[');
      FLOE_RETURN_NOT_OK(p_.ExpectPunct(']'));
      type = List(Field("element", std::move(type), true, next_id_++));
    }
    return type;
  }

  Result<TypePtr> BaseType() {
    const Token& t = p_.Peek();
    if (t.kind != Token::Kind::kWord) return p_.Error("a type name");
    const std::string word = AsciiLower(t.text);
    const size_t at = t.pos + 1;
    p_.AcceptWord(word);
    if (word == "boolean" || word == "bool") return Boolean();
    if (word == "int" || word == "integer" || word == "int4") return Int32();
    if (word == "bigint" || word == "long" || word == "int8") return Int64();
    if (word == "float" || word == "real" || word == "float4") return Float32();
    if (word == "float8") return Float64();
    if (word == "double") {
      p_.AcceptWord("precision");
      return Float64();
    }
    if (word == "decimal" || word == "numeric") {
      FLOE_RETURN_NOT_OK(p_.ExpectPunct('('));
      FLOE_ASSIGN_OR_RAISE(int32_t precision, p_.Number());
      int32_t scale = 0;
      if (p_.AcceptPunct(',')) {
        FLOE_ASSIGN_OR_RAISE(scale, p_.Number());
      }
      FLOE_RETURN_NOT_OK(p_.ExpectPunct(')'));
      if (precision < 1 || precision > 38 || scale > precision) {
        return Status::Invalid(
            "{}: decimal({}, {}) at position {} is out of range (precision 1 "
            "to 38, scale at most the precision)",
            p_.what(), precision, scale, at);
      }
      return Decimal(precision, scale);
    }
    if (word == "date") return Date();
    if (word == "time") {
      FLOE_RETURN_NOT_OK(SkipTimeZoneClause(/*allow_with=*/false));
      return Time();
    }
    if (word == "timestamp") {
      FLOE_ASSIGN_OR_RAISE(bool with_zone, TimeZoneClause());
      return with_zone ? TimestampTz() : Timestamp();
    }
    if (word == "timestamptz") return TimestampTz();
    if (word == "timestamp_ns") return TimestampNs();
    if (word == "timestamptz_ns") return TimestampTzNs();
    if (word == "string" || word == "text" || word == "varchar") {
      if (p_.AcceptPunct('(')) {
        FLOE_RETURN_NOT_OK(p_.Number().status());
        FLOE_RETURN_NOT_OK(p_.ExpectPunct(')'));
      }
      return String();
    }
    if (word == "uuid") return Uuid();
    if (word == "binary" || word == "bytea" || word == "varbinary") return Binary();
    if (word == "fixed") {
      char close = ')';
      if (p_.AcceptPunct('[')) {
        close = ']';
      } else {
        FLOE_RETURN_NOT_OK(p_.ExpectPunct('('));
      }
      FLOE_ASSIGN_OR_RAISE(int32_t width, p_.Number());
      FLOE_RETURN_NOT_OK(p_.ExpectPunct(close));
      if (width < 1)
        return Status::Invalid("{}: fixed width at position {} must be positive", p_.what(), at);
      return Fixed(width);
    }
    if (word == "struct") {
      FLOE_RETURN_NOT_OK(p_.ExpectPunct('<'));
      std::vector<Field> fields;
      do {
        FLOE_RETURN_NOT_OK(NamedField(&fields));
      } while (p_.AcceptPunct(','));
      FLOE_RETURN_NOT_OK(p_.ExpectPunct('>'));
      return Struct(std::move(fields));
    }
    if (word == "list" || word == "array") {
      FLOE_RETURN_NOT_OK(p_.ExpectPunct('<'));
      FLOE_ASSIGN_OR_RAISE(Field element, FieldOfType("element"));
      FLOE_RETURN_NOT_OK(p_.ExpectPunct('>'));
      return List(std::move(element));
    }
    if (word == "map") {
      FLOE_RETURN_NOT_OK(p_.ExpectPunct('<'));
      int32_t key_id = next_id_++;
      int32_t value_id = next_id_++;
      FLOE_ASSIGN_OR_RAISE(TypePtr key_type, Type());
      p_.AcceptWord("not") ? (void)p_.AcceptWord("null") : (void)0;
      FLOE_RETURN_NOT_OK(p_.ExpectPunct(','));
      FLOE_ASSIGN_OR_RAISE(TypePtr value_type, Type());
      FLOE_ASSIGN_OR_RAISE(bool value_nullable, Nullability());
      FLOE_RETURN_NOT_OK(p_.ExpectPunct('>'));
      return Map(Field("key", std::move(key_type), false, key_id),
                 Field("value", std::move(value_type), value_nullable, value_id));
    }
    return Status::Invalid("{}: unknown type '{}' at position {}", p_.what(), t.text, at);
  }

  // After "timestamp": nothing, "with time zone" or "without time zone".
  Result<bool> TimeZoneClause() {
    if (p_.AcceptWord("with")) {
      FLOE_RETURN_NOT_OK(p_.ExpectWord("time"));
      FLOE_RETURN_NOT_OK(p_.ExpectWord("zone"));
      return true;
    }
    if (p_.AcceptWord("without")) {
      FLOE_RETURN_NOT_OK(p_.ExpectWord("time"));
      FLOE_RETURN_NOT_OK(p_.ExpectWord("zone"));
    }
    return false;
  }

  Status SkipTimeZoneClause(bool allow_with) {
    if (p_.IsWord("with") && !allow_with) {
      return Status::NotSupported("{}: time with time zone has no Iceberg type", p_.what());
    }
    return TimeZoneClause().status();
  }

  Parser& p_;
  int32_t next_id_ = 1;
};

// ---------------------------------------------------------------------------------------
// Partition specs and sort orders
// ---------------------------------------------------------------------------------------

struct TermText {
  Transform transform = Transform::Identity();
  const Field* source = nullptr;
  std::string source_name;  // the full dotted name
  std::string alias;
};

Result<const Field*> ResolveColumn(Parser& p, const Schema& schema, std::string* full_name) {
  size_t at = p.Peek().pos + 1;
  bool quoted = false;
  FLOE_ASSIGN_OR_RAISE(std::string name, p.Name(&quoted));
  bool any_quoted = quoted;
  while (p.AcceptPunct('.')) {
    FLOE_ASSIGN_OR_RAISE(std::string part, p.Name(&quoted));
    any_quoted = any_quoted || quoted;
    name += "." + part;
  }
  FLOE_ASSIGN_OR_RAISE(const Field* field,
                       schema.FindFieldByName(name, /*case_sensitive=*/any_quoted));
  if (field == nullptr) {
    return Status::Invalid("{}: column '{}' at position {} is not in the schema", p.what(), name,
                           at);
  }
  *full_name = schema.FindColumnName(field->field_id()).value_or(name);
  return field;
}

Result<TermText> Term(Parser& p, const Schema& schema) {
  TermText term;
  static const char* kUnary[] = {"identity", "year",  "month",  "day",  "hour",
                                 "void",     "years", "months", "days", "hours"};
  std::optional<std::string> func;
  if (p.Peek().kind == Token::Kind::kWord && p.Peek(1).kind == Token::Kind::kPunct &&
      p.Peek(1).text == "(") {
    func = AsciiLower(p.Peek().text);
    p.AcceptWord(*func);
    p.AcceptPunct('(');
  }
  if (!func) {
    FLOE_ASSIGN_OR_RAISE(term.source, ResolveColumn(p, schema, &term.source_name));
  } else if (*func == "bucket" || *func == "truncate") {
    // bucket(N, col) as in Spark and the spec's text form; bucket(col, N) as in Trino.
    int32_t arg = 0;
    if (p.Peek().kind == Token::Kind::kNumber) {
      FLOE_ASSIGN_OR_RAISE(arg, p.Number());
      FLOE_RETURN_NOT_OK(p.ExpectPunct(','));
      FLOE_ASSIGN_OR_RAISE(term.source, ResolveColumn(p, schema, &term.source_name));
    } else {
      FLOE_ASSIGN_OR_RAISE(term.source, ResolveColumn(p, schema, &term.source_name));
      FLOE_RETURN_NOT_OK(p.ExpectPunct(','));
      FLOE_ASSIGN_OR_RAISE(arg, p.Number());
    }
    if (arg <= 0) {
      return Status::Invalid("{}: {}({}) needs a positive argument", p.what(), *func, arg);
    }
    term.transform = *func == "bucket" ? Transform::Bucket(arg) : Transform::Truncate(arg);
    FLOE_RETURN_NOT_OK(p.ExpectPunct(')'));
  } else {
    bool known = false;
    for (const char* name : kUnary) known = known || *func == name;
    if (!known) {
      return Status::Invalid("{}: unknown transform '{}'", p.what(), *func);
    }
    std::string base = *func;
    if (base.back() == 's') base.pop_back();
    FLOE_ASSIGN_OR_RAISE(term.transform, Transform::Parse(base));
    FLOE_ASSIGN_OR_RAISE(term.source, ResolveColumn(p, schema, &term.source_name));
    FLOE_RETURN_NOT_OK(p.ExpectPunct(')'));
  }
  FLOE_RETURN_NOT_OK(term.transform.ResultType(term.source->type())
                         .status()
                         .WithPrefix(fmt::format("{}: {} of column '{}': ", p.what(),
                                                 term.transform.ToString(), term.source_name)));
  return term;
}

std::string DefaultPartitionName(const TermText& t) {
  return DefaultPartitionFieldName(t.transform, t.source_name, PartitionNaming::kNewTable);
}

std::string QuoteIfNeeded(const std::string& name) {
  bool plain =
      !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.');
  }
  if (plain) return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string TermString(const Transform& transform, int32_t source_id, const Schema& schema) {
  std::string column = QuoteIfNeeded(
      schema.FindColumnName(source_id).value_or(fmt::format("<field {}>", source_id)));
  return transform.ToExpressionString(column);
}

}  // namespace

Result<SchemaPtr> ParseSchemaText(std::string_view text) {
  constexpr std::string_view kWhat = "schema";
  FLOE_ASSIGN_OR_RAISE(std::vector<Token> tokens, Tokenize(text, kWhat));
  Parser p(std::move(tokens), kWhat);
  if (p.AtEnd()) return Status::Invalid("schema: no columns");
  SchemaParser parser(&p);
  FLOE_ASSIGN_OR_RAISE(std::vector<Field> fields, parser.Columns());
  Result<SchemaPtr> schema = Schema::Make(0, std::move(fields));
  if (!schema.ok()) return Status::Invalid("schema: {}", schema.status().message());
  return schema;
}

Result<PartitionSpecPtr> ParsePartitionSpecText(std::string_view text, const Schema& schema) {
  constexpr std::string_view kWhat = "partitioning";
  FLOE_ASSIGN_OR_RAISE(std::vector<Token> tokens, Tokenize(text, kWhat));
  Parser p(std::move(tokens), kWhat);
  std::vector<PartitionField> fields;
  int32_t next_id = kPartitionFieldIdStart;
  while (!p.AtEnd()) {
    FLOE_ASSIGN_OR_RAISE(TermText term, Term(p, schema));
    std::string name = DefaultPartitionName(term);
    if (p.AcceptWord("as")) {
      FLOE_ASSIGN_OR_RAISE(name, p.Name());
    }
    fields.push_back({term.source->field_id(), next_id++, std::move(name), term.transform});
    if (p.AtEnd()) break;
    FLOE_RETURN_NOT_OK(p.ExpectPunct(','));
  }
  Result<PartitionSpecPtr> spec = PartitionSpec::Make(schema, 0, std::move(fields));
  if (!spec.ok()) return Status::Invalid("partitioning: {}", spec.status().message());
  return spec;
}

Result<SortOrderPtr> ParseSortOrderText(std::string_view text, const Schema& schema) {
  constexpr std::string_view kWhat = "sort order";
  FLOE_ASSIGN_OR_RAISE(std::vector<Token> tokens, Tokenize(text, kWhat));
  Parser p(std::move(tokens), kWhat);
  if (p.AtEnd()) return SortOrder::Unsorted();
  std::vector<SortField> fields;
  while (!p.AtEnd()) {
    FLOE_ASSIGN_OR_RAISE(TermText term, Term(p, schema));
    SortField f;
    f.source_id = term.source->field_id();
    f.transform = term.transform;
    if (p.AcceptWord("desc")) {
      f.direction = SortDirection::kDesc;
    } else {
      p.AcceptWord("asc");
    }
    f.null_order =
        f.direction == SortDirection::kAsc ? NullOrder::kNullsFirst : NullOrder::kNullsLast;
    if (p.AcceptWord("nulls")) {
      if (p.AcceptWord("first")) {
        f.null_order = NullOrder::kNullsFirst;
      } else if (p.AcceptWord("last")) {
        f.null_order = NullOrder::kNullsLast;
      } else {
        return p.Error("FIRST or LAST");
      }
    }
    fields.push_back(f);
    if (p.AtEnd()) break;
    FLOE_RETURN_NOT_OK(p.ExpectPunct(','));
  }
  Result<SortOrderPtr> order = SortOrder::Make(schema, 1, std::move(fields));
  if (!order.ok()) return Status::Invalid("sort order: {}", order.status().message());
  return order;
}

std::string PartitionSpecText(const PartitionSpec& spec, const Schema& schema) {
  std::string out;
  for (const PartitionField& f : spec.fields()) {
    if (!out.empty()) out += ", ";
    out += TermString(f.transform, f.source_id, schema);
    TermText t;
    t.transform = f.transform;
    t.source_name = schema.FindColumnName(f.source_id).value_or("");
    if (f.name != DefaultPartitionName(t)) out += " AS " + QuoteIfNeeded(f.name);
  }
  return out;
}

std::string SortOrderText(const SortOrder& order, const Schema& schema) {
  std::string out;
  for (const SortField& f : order.fields()) {
    if (!out.empty()) out += ", ";
    out += TermString(f.transform, f.source_id, schema);
    bool desc = f.direction == SortDirection::kDesc;
    out += desc ? " DESC" : " ASC";
    out += f.null_order == NullOrder::kNullsFirst ? " NULLS FIRST" : " NULLS LAST";
  }
  return out;
}

}  // namespace floe::iceberg
