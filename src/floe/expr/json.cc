// The JSON parser and serializer behind json and jsonb (RFC 8259 as PostgreSQL reads it).

#include "floe/expr/json.h"

#include <algorithm>
#include <utility>

namespace floe::expr {

namespace {

// PostgreSQL's numeric limits: digits before the decimal point and display scale.
constexpr int64_t kMaxNumericIntegerDigits = 131072;
constexpr int64_t kMaxNumericScale = 16383;

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsDelimiter(char c) {
  return IsJsonSpace(c) || c == ',' || c == ':' || c == '[' || c == ']' || c == '{' ||
         c == '}' || c == '"';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// jsonb's key order: shorter keys first, then bytewise.
bool KeyLess(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

class Parser {
 public:
  Parser(std::string_view text, bool jsonb) : s_(text), jsonb_(jsonb) {}

  Result<JsonValue> Parse() {
    SkipSpace();
    JsonValue v;
    FLOE_RETURN_NOT_OK(ParseValue(&v, 0));
    SkipSpace();
    if (pos_ < s_.size()) {
      return Syntax("Expected end of input, but found \"" + std::string(Token()) + "\".");
    }
    return v;
  }

 private:
  Status Syntax(const std::string& detail) const {
    return Status::Invalid("invalid input syntax for type json: {}", detail);
  }
  Status Ended() const { return Syntax("The input string ended unexpectedly."); }

  void SkipSpace() {
    while (pos_ < s_.size() && IsJsonSpace(s_[pos_])) ++pos_;
  }

  // The token at pos_ as PostgreSQL's lexer shows it in messages.
  std::string_view Token() const {
    if (pos_ >= s_.size()) return {};
    const char c = s_[pos_];
    if (IsDelimiter(c) && !IsJsonSpace(c)) return s_.substr(pos_, 1);
    size_t e = pos_;
    while (e < s_.size() && !IsDelimiter(s_[e])) ++e;
    return s_.substr(pos_, std::max<size_t>(e - pos_, 1));
  }

  Status ParseValue(JsonValue* v, int depth) {
    if (pos_ >= s_.size()) return Ended();
    v->begin = pos_;
    const char c = s_[pos_];
    Status st;
    if (c == '{' || c == '[') {
      if (depth >= kMaxJsonDepth) {
        return Status::Invalid("stack depth limit exceeded: json nested deeper than {} levels",
                               kMaxJsonDepth);
      }
      st = c == '{' ? ParseObject(v, depth + 1) : ParseArray(v, depth + 1);
    } else if (c == '"') {
      v->kind = JsonKind::kString;
      st = ParseString(&v->text);
    } else if (c == '-' || IsDigit(c)) {
      v->kind = JsonKind::kNumber;
      st = ParseNumber(&v->text);
    } else {
      const std::string_view token = Token();
      if (token == "true" || token == "false") {
        v->kind = JsonKind::kBool;
        v->boolean = token == "true";
      } else if (token == "null") {
        v->kind = JsonKind::kNull;
      } else if (IsDelimiter(c)) {
        return Syntax("Expected JSON value, but found \"" + std::string(token) + "\".");
      } else {
        return Syntax("Token \"" + std::string(token) + "\" is invalid.");
      }
      pos_ += token.size();
    }
    FLOE_RETURN_NOT_OK(st);
    v->end = pos_;
    return Status::OK();
  }

  Status ParseArray(JsonValue* v, int depth) {
    v->kind = JsonKind::kArray;
    ++pos_;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return Status::OK();
    }
    while (true) {
      SkipSpace();
      JsonValue item;
      FLOE_RETURN_NOT_OK(ParseValue(&item, depth));
      v->items.push_back(std::move(item));
      SkipSpace();
      if (pos_ >= s_.size()) return Ended();
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == ']') {
        ++pos_;
        return Status::OK();
      }
      return Syntax("Expected \",\" or \"]\", but found \"" + std::string(Token()) + "\".");
    }
  }

  Status ParseObject(JsonValue* v, int depth) {
    v->kind = JsonKind::kObject;
    ++pos_;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return Status::OK();
    }
    bool first = true;
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size()) return Ended();
      if (s_[pos_] != '"') {
        return Syntax((first ? "Expected string or \"}\", but found \"" : "Expected string, but found \"") +
                      std::string(Token()) + "\".");
      }
      first = false;
      std::string key;
      FLOE_RETURN_NOT_OK(ParseString(&key));
      SkipSpace();
      if (pos_ >= s_.size()) return Ended();
      if (s_[pos_] != ':') {
        return Syntax("Expected \":\", but found \"" + std::string(Token()) + "\".");
      }
      ++pos_;
      SkipSpace();
      JsonValue item;
      FLOE_RETURN_NOT_OK(ParseValue(&item, depth));
      v->keys.push_back(std::move(key));
      v->items.push_back(std::move(item));
      SkipSpace();
      if (pos_ >= s_.size()) return Ended();
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == '}') {
        ++pos_;
        if (jsonb_) NormalizeJsonbObject(v);
        return Status::OK();
      }
      return Syntax("Expected \",\" or \"}\", but found \"" + std::string(Token()) + "\".");
    }
  }

  Status ParseString(std::string* out) {
    ++pos_;  // the opening quote
    while (true) {
      if (pos_ >= s_.size()) return Ended();
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return Status::OK();
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return Syntax(fmt::format("Character with value 0x{:02x} must be escaped.",
                                  static_cast<unsigned char>(c)));
      }
      if (c != '\\') {
        out->push_back(c);
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= s_.size()) return Ended();
      const char e = s_[pos_ + 1];
      pos_ += 2;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          FLOE_ASSIGN_OR_RAISE(uint32_t cp, ReadHex4());
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (pos_ + 1 < s_.size() && s_[pos_] == '\\' && s_[pos_ + 1] == 'u') {
              pos_ += 2;
              FLOE_ASSIGN_OR_RAISE(uint32_t low, ReadHex4());
              if (low >= 0xD800 && low <= 0xDBFF) {
                return Syntax("Unicode high surrogate must not follow a high surrogate.");
              }
              if (low < 0xDC00 || low > 0xDFFF) {
                return Syntax("Unicode low surrogate must follow a high surrogate.");
              }
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else {
              return Syntax("Unicode low surrogate must follow a high surrogate.");
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Syntax("Unicode low surrogate must follow a high surrogate.");
          }
          if (cp == 0) {
            // json keeps the text as written; only a conversion to text refuses \u0000.
            if (jsonb_) {
              return Status::Invalid(
                  "unsupported Unicode escape sequence: \\u0000 cannot be converted to text");
            }
            out->append("\\u0000");
            break;
          }
          AppendUtf8(cp, out);
          break;
        }
        default: {
          size_t n = 1;
          // A multi-byte character after the backslash is shown whole.
          while (pos_ - 1 + n < s_.size() && (static_cast<unsigned char>(s_[pos_ - 1 + n]) & 0xC0) == 0x80) ++n;
          return Syntax("Escape sequence \"\\" + std::string(s_.substr(pos_ - 1, n)) +
                        "\" is invalid.");
        }
      }
    }
  }

  Result<uint32_t> ReadHex4() {
    uint32_t cp = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = pos_ < s_.size() ? HexValue(s_[pos_]) : -1;
      if (h < 0) return Syntax("\"\\u\" must be followed by four hexadecimal digits.");
      cp = cp * 16 + static_cast<uint32_t>(h);
      ++pos_;
    }
    return cp;
  }

  Status ParseNumber(std::string* out) {
    const size_t start = pos_;
    auto invalid = [&]() {
      pos_ = start;
      return Syntax("Token \"" + std::string(Token()) + "\" is invalid.");
    };
    size_t p = pos_;
    if (s_[p] == '-') ++p;
    if (p >= s_.size() || !IsDigit(s_[p])) return invalid();
    if (s_[p] == '0') {
      ++p;
    } else {
      while (p < s_.size() && IsDigit(s_[p])) ++p;
    }
    if (p < s_.size() && s_[p] == '.') {
      ++p;
      if (p >= s_.size() || !IsDigit(s_[p])) return invalid();
      while (p < s_.size() && IsDigit(s_[p])) ++p;
    }
    if (p < s_.size() && (s_[p] == 'e' || s_[p] == 'E')) {
      ++p;
      if (p < s_.size() && (s_[p] == '+' || s_[p] == '-')) ++p;
      if (p >= s_.size() || !IsDigit(s_[p])) return invalid();
      while (p < s_.size() && IsDigit(s_[p])) ++p;
    }
    if (p < s_.size() && !IsDelimiter(s_[p])) return invalid();
    pos_ = p;
    const std::string_view number = s_.substr(start, p - start);
    if (jsonb_) {
      FLOE_ASSIGN_OR_RAISE(*out, NormalizeJsonNumber(number));
    } else {
      *out = std::string(number);
    }
    return Status::OK();
  }

  std::string_view s_;
  bool jsonb_;
  size_t pos_ = 0;
};

void AppendJsonbImpl(const JsonValue& v, std::string* out) {
  switch (v.kind) {
    case JsonKind::kNull:
      out->append("null");
      return;
    case JsonKind::kBool:
      out->append(v.boolean ? "true" : "false");
      return;
    case JsonKind::kNumber:
      out->append(v.text);
      return;
    case JsonKind::kString:
      AppendJsonString(v.text, out);
      return;
    case JsonKind::kArray:
      out->push_back('[');
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out->append(", ");
        AppendJsonbImpl(v.items[i], out);
      }
      out->push_back(']');
      return;
    case JsonKind::kObject:
      out->push_back('{');
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out->append(", ");
        AppendJsonString(v.keys[i], out);
        out->append(": ");
        AppendJsonbImpl(v.items[i], out);
      }
      out->push_back('}');
      return;
  }
}

void AppendPrettyImpl(const JsonValue& v, int level, std::string* out) {
  auto indent = [&](int n) { out->append(static_cast<size_t>(4 * n), ' '); };
  if (!v.is_container()) {
    AppendJsonbImpl(v, out);
    return;
  }
  const bool object = v.kind == JsonKind::kObject;
  out->push_back(object ? '{' : '[');
  for (size_t i = 0; i < v.items.size(); ++i) {
    out->append(i > 0 ? ",\n" : "\n");
    indent(level + 1);
    if (object) {
      AppendJsonString(v.keys[i], out);
      out->append(": ");
    }
    AppendPrettyImpl(v.items[i], level + 1, out);
  }
  out->push_back('\n');
  indent(level);
  out->push_back(object ? '}' : ']');
}

// A numeric-form number split into sign, digits without leading zeros and the count of
// digits before the point (may be <= 0 or beyond the digits).
struct Decimal10 {
  bool negative = false;
  std::string digits;  // no leading or trailing zeros; empty for zero
  int64_t point = 0;   // value = 0.digits * 10^point
};

Decimal10 SplitNumber(std::string_view s) {
  Decimal10 d;
  size_t p = 0;
  if (p < s.size() && s[p] == '-') {
    d.negative = true;
    ++p;
  }
  int64_t int_digits = 0;
  bool seen_point = false;
  for (; p < s.size(); ++p) {
    const char c = s[p];
    if (c == '.') {
      seen_point = true;
      continue;
    }
    if (!IsDigit(c)) break;
    if (d.digits.empty() && c == '0') {
      if (seen_point) --int_digits;
      continue;
    }
    d.digits.push_back(c);
    if (!seen_point) ++int_digits;
  }
  while (!d.digits.empty() && d.digits.back() == '0') d.digits.pop_back();
  d.point = int_digits;
  if (d.digits.empty()) d.negative = false;
  return d;
}

}  // namespace

std::string_view JsonKindName(JsonKind kind) {
  switch (kind) {
    case JsonKind::kNull:
      return "null";
    case JsonKind::kString:
      return "string";
    case JsonKind::kNumber:
      return "number";
    case JsonKind::kBool:
      return "boolean";
    case JsonKind::kArray:
      return "array";
    case JsonKind::kObject:
      return "object";
  }
  return "null";
}

JsonValue JsonValue::Bool(bool b) {
  JsonValue v;
  v.kind = JsonKind::kBool;
  v.boolean = b;
  return v;
}

JsonValue JsonValue::String(std::string s) {
  JsonValue v;
  v.kind = JsonKind::kString;
  v.text = std::move(s);
  return v;
}

JsonValue JsonValue::Number(std::string number) {
  JsonValue v;
  v.kind = JsonKind::kNumber;
  v.text = std::move(number);
  return v;
}

JsonValue JsonValue::Array(std::vector<JsonValue> items) {
  JsonValue v;
  v.kind = JsonKind::kArray;
  v.items = std::move(items);
  return v;
}

const JsonValue* JsonValue::Find(std::string_view key) const {
  if (kind != JsonKind::kObject) return nullptr;
  for (size_t i = keys.size(); i-- > 0;) {
    if (keys[i] == key) return &items[i];
  }
  return nullptr;
}

Result<JsonValue> ParseJson(std::string_view text, bool jsonb) {
  return Parser(text, jsonb).Parse();
}

void NormalizeJsonbObject(JsonValue* value) {
  if (value->kind != JsonKind::kObject || value->keys.empty()) return;
  const size_t n = value->keys.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  // Stable, so that among duplicates the last written stays last.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return KeyLess(value->keys[a], value->keys[b]);
  });
  std::vector<std::string> keys;
  std::vector<JsonValue> items;
  keys.reserve(n);
  items.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    const size_t i = order[k];
    if (!keys.empty() && keys.back() == value->keys[i]) {
      items.back() = std::move(value->items[i]);
      continue;
    }
    keys.push_back(std::move(value->keys[i]));
    items.push_back(std::move(value->items[i]));
  }
  value->keys = std::move(keys);
  value->items = std::move(items);
}

void AppendJsonb(const JsonValue& value, std::string* out) { AppendJsonbImpl(value, out); }

std::string JsonbText(const JsonValue& value) {
  std::string out;
  AppendJsonbImpl(value, &out);
  return out;
}

void AppendJsonbPretty(const JsonValue& value, std::string* out) {
  AppendPrettyImpl(value, 0, out);
}

Result<std::string> NormalizeJsonNumber(std::string_view number) {
  // Split into sign, mantissa digits, fraction length and exponent.
  size_t p = 0;
  bool negative = false;
  if (p < number.size() && number[p] == '-') {
    negative = true;
    ++p;
  }
  std::string digits;  // the mantissa's digits, integer then fraction part
  int64_t frac_len = 0;
  bool seen_point = false;
  for (; p < number.size(); ++p) {
    const char c = number[p];
    if (c == '.') {
      seen_point = true;
    } else if (IsDigit(c)) {
      digits.push_back(c);
      if (seen_point) ++frac_len;
    } else {
      break;
    }
  }
  int64_t exponent = 0;
  if (p < number.size() && (number[p] == 'e' || number[p] == 'E')) {
    ++p;
    bool exp_negative = false;
    if (p < number.size() && (number[p] == '+' || number[p] == '-')) {
      exp_negative = number[p] == '-';
      ++p;
    }
    for (; p < number.size() && IsDigit(number[p]); ++p) {
      if (exponent < 100000000) exponent = exponent * 10 + (number[p] - '0');
    }
    if (exp_negative) exponent = -exponent;
  }
  const auto overflow = []() { return Status::Invalid("value overflows numeric format"); };
  // value = digits * 10^(exponent - frac_len); its display scale is what the text shows.
  const int64_t scale = std::max<int64_t>(0, frac_len - exponent);
  if (scale > kMaxNumericScale) return overflow();
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    std::string out = "0";
    if (scale > 0) {
      out.push_back('.');
      out.append(static_cast<size_t>(scale), '0');
    }
    return out;
  }
  digits.erase(0, first);
  // Digits before the point in the plain form.
  const int64_t int_digits = static_cast<int64_t>(digits.size()) - frac_len + exponent;
  if (int_digits > kMaxNumericIntegerDigits) return overflow();
  std::string out;
  if (negative) out.push_back('-');
  if (int_digits <= 0) {
    out.push_back('0');
  } else if (int_digits >= static_cast<int64_t>(digits.size())) {
    out.append(digits);
    out.append(static_cast<size_t>(int_digits - static_cast<int64_t>(digits.size())), '0');
  } else {
    out.append(digits, 0, static_cast<size_t>(int_digits));
  }
  if (scale > 0) {
    out.push_back('.');
    std::string frac;
    if (int_digits < 0) frac.append(static_cast<size_t>(-int_digits), '0');
    if (int_digits < static_cast<int64_t>(digits.size())) {
      frac.append(digits, static_cast<size_t>(std::max<int64_t>(int_digits, 0)));
    }
    if (static_cast<int64_t>(frac.size()) < scale) {
      frac.append(static_cast<size_t>(scale - static_cast<int64_t>(frac.size())), '0');
    }
    out.append(frac, 0, static_cast<size_t>(scale));
  }
  return out;
}

int CompareJsonNumbers(std::string_view a, std::string_view b) {
  const Decimal10 x = SplitNumber(a);
  const Decimal10 y = SplitNumber(b);
  const int sx = x.digits.empty() ? 0 : (x.negative ? -1 : 1);
  const int sy = y.digits.empty() ? 0 : (y.negative ? -1 : 1);
  if (sx != sy) return sx < sy ? -1 : 1;
  if (sx == 0) return 0;
  int magnitude;
  if (x.point != y.point) {
    magnitude = x.point < y.point ? -1 : 1;
  } else {
    const int c = x.digits.compare(y.digits);
    magnitude = c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return sx < 0 ? -magnitude : magnitude;
}

static int CompareJsonbImpl(const JsonValue& a, const JsonValue& b) {
  if (a.kind != b.kind) return a.kind < b.kind ? -1 : 1;
  switch (a.kind) {
    case JsonKind::kNull:
      return 0;
    case JsonKind::kBool:
      return a.boolean == b.boolean ? 0 : (a.boolean ? 1 : -1);
    case JsonKind::kNumber:
      return CompareJsonNumbers(a.text, b.text);
    case JsonKind::kString: {
      const int c = a.text.compare(b.text);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case JsonKind::kArray:
    case JsonKind::kObject: {
      if (a.items.size() != b.items.size()) return a.items.size() < b.items.size() ? -1 : 1;
      for (size_t i = 0; i < a.items.size(); ++i) {
        if (a.kind == JsonKind::kObject) {
          const int k = a.keys[i].compare(b.keys[i]);
          if (k != 0) return k < 0 ? -1 : 1;
        }
        const int c = CompareJsonbImpl(a.items[i], b.items[i]);
        if (c != 0) return c;
      }
      return 0;
    }
  }
  return 0;
}

int CompareJsonb(const JsonValue& a, const JsonValue& b) {
  // PostgreSQL keeps a top-level scalar as a one-element array marked raw, and compares it
  // with an array by the marker (scalars first) unless the element counts differ: so a
  // scalar sorts before every array but the empty one.
  const bool a_scalar = !a.is_container();
  const bool b_scalar = !b.is_container();
  if (a_scalar && b.kind == JsonKind::kArray) return b.items.empty() ? 1 : -1;
  if (b_scalar && a.kind == JsonKind::kArray) return a.items.empty() ? -1 : 1;
  return CompareJsonbImpl(a, b);
}

bool JsonbEquals(const JsonValue& a, const JsonValue& b) { return CompareJsonbImpl(a, b) == 0; }

bool JsonbContains(const JsonValue& a, const JsonValue& b, bool top) {
  if (a.kind == JsonKind::kObject) {
    if (b.kind != JsonKind::kObject) return false;
    for (size_t i = 0; i < b.keys.size(); ++i) {
      const JsonValue* v = a.Find(b.keys[i]);
      if (v == nullptr) return false;
      const JsonValue& w = b.items[i];
      if (!w.is_container()) {
        if (!JsonbEquals(*v, w)) return false;
      } else if (v->kind != w.kind || !JsonbContains(*v, w, false)) {
        return false;
      }
    }
    return true;
  }
  if (a.kind == JsonKind::kArray) {
    // An array contains a raw scalar it has as an element.
    if (top && !b.is_container()) {
      for (const JsonValue& x : a.items) {
        if (!x.is_container() && JsonbEquals(x, b)) return true;
      }
      return false;
    }
    if (b.kind != JsonKind::kArray) return false;
    for (const JsonValue& w : b.items) {
      bool found = false;
      for (const JsonValue& x : a.items) {
        if (!w.is_container()) {
          if (!x.is_container() && JsonbEquals(x, w)) found = true;
        } else if (x.kind == w.kind && JsonbContains(x, w, false)) {
          found = true;
        }
        if (found) break;
      }
      if (!found) return false;
    }
    return true;
  }
  // A raw scalar contains only an equal raw scalar.
  return top && !b.is_container() && JsonbEquals(a, b);
}

}  // namespace floe::expr
