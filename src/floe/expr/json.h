#pragma once

// PostgreSQL's json and jsonb values: one parser and one serializer for the engine. json
// values are kept as the text the user wrote (validated); jsonb values as PostgreSQL's
// normalized text (", " and ": " separators, object keys ordered by length then bytes, the
// last of duplicate keys kept, numbers as PostgreSQL prints numerics). Both are strings in
// batches (Extension::kJson / kJsonb over kString); the functions parse them into a
// JsonValue tree when they need the structure.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/value_format.h"
#include "floe/common/result.h"

namespace floe::expr {

/// The kinds of JSON value, in jsonb's sort order (null < string < number < boolean <
/// array < object).
enum class JsonKind : uint8_t { kNull, kString, kNumber, kBool, kArray, kObject };

/// jsonb_typeof's name of a kind: "null", "string", "number", "boolean", "array", "object".
std::string_view JsonKindName(JsonKind kind);

/// Nesting deeper than this is an error ("stack depth limit exceeded"), so that no input
/// can drive the recursive walks over a value past a bounded stack.
inline constexpr int kMaxJsonDepth = 1000;

/// One parsed JSON value.
struct JsonValue {
  JsonKind kind = JsonKind::kNull;
  bool boolean = false;
  /// kString: the string (escapes resolved); kNumber: the number's text (as written for
  /// json, PostgreSQL's numeric form for jsonb).
  std::string text;
  /// kArray: the elements; kObject: the values, in the order of `keys`.
  std::vector<JsonValue> items;
  std::vector<std::string> keys;
  /// The value's bytes [begin, end) in the parsed text (json's as-written sub-values).
  size_t begin = 0;
  size_t end = 0;

  static JsonValue Null() { return JsonValue{}; }
  static JsonValue Bool(bool b);
  static JsonValue String(std::string s);
  /// `number` must already be a valid JSON number in PostgreSQL's numeric form.
  static JsonValue Number(std::string number);
  static JsonValue Array(std::vector<JsonValue> items = {});
  static JsonValue Object() {
    JsonValue v;
    v.kind = JsonKind::kObject;
    return v;
  }

  bool is_container() const { return kind == JsonKind::kArray || kind == JsonKind::kObject; }
  /// The value of `key` in an object (the last one when json text repeats a key), or null.
  const JsonValue* Find(std::string_view key) const;
};

/// Parses JSON text. As jsonb (`jsonb` true) numbers are normalized, object keys sorted
/// with the last of duplicates kept, and \u0000 refused; as json the structure keeps the
/// text's order and duplicates. Errors (kInvalidArgument): "invalid input syntax for type
/// json" (with what is wrong and where), "unsupported Unicode escape sequence", "value
/// overflows numeric format", "stack depth limit exceeded".
Result<JsonValue> ParseJson(std::string_view text, bool jsonb);

/// Sorts an object's keys into jsonb's order (length, then bytes), keeping the last value
/// of duplicate keys; other kinds are left as they are. Not recursive.
void NormalizeJsonbObject(JsonValue* value);

/// Appends jsonb's text of `value` (`{"a": 1, "b": [1, 2]}`).
void AppendJsonb(const JsonValue& value, std::string* out);
std::string JsonbText(const JsonValue& value);
/// Appends jsonb_pretty's text of `value` (four spaces per level).
void AppendJsonbPretty(const JsonValue& value, std::string* out);
// JSON string literals are written by batch/value_format.h AppendJsonString (PostgreSQL's
// escaping: ", \, \b, \f, \n, \r, \t and \u00XX for other control characters).

/// A JSON number's text (already valid JSON) in PostgreSQL's numeric form: "1e2" ->
/// "100", "1.50e1" -> "15.0", "-0" -> "0". kInvalidArgument "value overflows numeric
/// format" past numeric's range.
Result<std::string> NormalizeJsonNumber(std::string_view number);
/// Compares two numbers in numeric form by value (-1, 0, 1).
int CompareJsonNumbers(std::string_view a, std::string_view b);

/// jsonb's total order (PostgreSQL's btree order over jsonb): -1, 0 or 1.
int CompareJsonb(const JsonValue& a, const JsonValue& b);
/// jsonb's equality (numbers by value).
bool JsonbEquals(const JsonValue& a, const JsonValue& b);
/// PostgreSQL's jsonb containment `a @> b`. `top` marks raw (top-level) scalars, which
/// PostgreSQL keeps as one-element arrays: an array contains a raw scalar it has.
bool JsonbContains(const JsonValue& a, const JsonValue& b, bool top = true);

}  // namespace floe::expr
