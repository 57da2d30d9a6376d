// PostgreSQL's json and jsonb functions and operators, and the casts to and from them.
//
// Values are JSON text in string arrays (json as written, jsonb normalized, json.h); a
// function parses the text it needs the structure of. Iceberg has no JSON type, so a
// table's json column reads back as text: text arguments convert implicitly to json and
// jsonb here (a deviation from PostgreSQL, as DuckDB does for VARCHAR), so that
// `payload -> 'user'` works on a string column.

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/json.h"
#include "floe/expr/json_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"

namespace floe::expr::internal {

namespace {

using Args = std::vector<ColumnarValue>;

bool IsJsonb(const TypePtr& t) { return t && t->extension() == Extension::kJsonb; }
bool IsPlainText(const DataType& t) {
  return t.id() == TypeId::kString && t.extension() == Extension::kNone;
}
TypePtr TextArray() { return List(String()); }

// ---------------------------------------------------------------------------------------
// Argument matching: text converts implicitly to json and jsonb (the documented deviation).

bool JsonAccepts(const TypePtr& from, const TypePtr& to, int* cost) {
  if (from == nullptr) {
    ++*cost;
    return true;
  }
  if (from->Equals(*to)) return true;
  if (to->is_json()) {
    if (IsPlainText(*from)) {
      *cost += 2;
      return true;
    }
    return false;
  }
  if (from->is_json()) return false;
  // An untyped literal takes any other parameter type too ('{a,b}' as text[]).
  if (IsUnknownType(from)) {
    ++*cost;
    return true;
  }
  if (to->id() == TypeId::kList && from->id() == TypeId::kList) {
    return JsonAccepts(from->field(0).type(), to->field(0).type(), cost);
  }
  if (CanImplicitCast(*from, *to)) {
    ++*cost;
    return true;
  }
  return false;
}

struct Candidate {
  std::vector<TypePtr> params;
  TypePtr ret;
};

// A resolver over fixed parameter lists (the cheapest wins; the first among equals, so
// jsonb's forms are listed before json's).
ScalarResolver JsonSignatures(std::string name, std::vector<Candidate> candidates,
                              bool set_returning = false) {
  return [name = std::move(name), candidates = std::move(candidates), set_returning](
             const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
    const Candidate* best = nullptr;
    int best_cost = 0;
    for (const Candidate& c : candidates) {
      if (c.params.size() != args.size()) continue;
      int k = 0;
      bool ok = true;
      for (size_t i = 0; i < args.size() && ok; ++i) ok = JsonAccepts(args[i], c.params[i], &k);
      if (ok && (best == nullptr || k < best_cost)) {
        best = &c;
        best_cost = k;
      }
    }
    if (best == nullptr) return NoSuchFunction(name, args);
    *cost += best_cost;
    ResolvedFunction fn = Resolution(name, best->params, best->ret);
    fn.set_returning = set_returning;
    return fn;
  };
}

// PostgreSQL's "VARIADIC text" after a first json/jsonb parameter: (J, text, text, ...).
ScalarResolver JsonVariadicText(std::string name, TypePtr first, TypePtr ret) {
  return [name = std::move(name), first = std::move(first), ret = std::move(ret)](
             const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
    if (args.size() < 2) return NoSuchFunction(name, args);
    std::vector<TypePtr> params(args.size(), String());
    params[0] = first;
    int k = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!JsonAccepts(args[i], params[i], &k)) return NoSuchFunction(name, args);
    }
    *cost += k;
    return Resolution(name, std::move(params), ret);
  };
}

// PostgreSQL's `VARIADIC "any"`: every argument as it is (an untyped NULL as text).
ScalarResolver AnyVariadic(std::string name, TypePtr ret) {
  return [name = std::move(name), ret = std::move(ret)](const std::vector<TypePtr>& args,
                                                        int*) -> Result<ResolvedFunction> {
    std::vector<TypePtr> params;
    for (const TypePtr& t : args) params.push_back(t ? t : String());
    return Resolution(name, std::move(params), ret, /*null_if_any_arg_null=*/false);
  };
}

// ---------------------------------------------------------------------------------------
// Row loops. Arguments become arrays (one row when all are scalars, which gives a scalar).

struct Rows {
  std::vector<ArrayPtr> arrays;
  int64_t count = 0;
  bool scalar = false;
};

// `allow_scalar` false: arrays of n rows even for scalar arguments (for nested results,
// which are returned as arrays).
Result<Rows> ToRows(const Args& args, int64_t n, EvalContext& ctx, bool allow_scalar = true) {
  Rows rows;
  rows.scalar = allow_scalar && AllScalars(args);
  rows.count = rows.scalar ? 1 : n;
  for (const ColumnarValue& a : args) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr arr, a.ToArray(rows.count, ctx.pool));
    rows.arrays.push_back(std::move(arr));
  }
  return rows;
}

Result<ColumnarValue> Finish(ArrayBuilder& builder, const Rows& rows) {
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  if (rows.scalar) return ColumnarValue(ScalarAt(*out, 0));
  return ColumnarValue(std::move(out));
}

bool AnyNull(const Rows& rows, int64_t i, size_t count) {
  for (size_t k = 0; k < count && k < rows.arrays.size(); ++k) {
    if (rows.arrays[k]->IsNull(i)) return true;
  }
  return false;
}

// Per row (NULL when one of the first `strict` arguments is): fn(i, &out, &is_null).
template <typename Fn>
Result<ColumnarValue> StringRows(const ResolvedFunction& f, const Args& args, int64_t n,
                                 EvalContext& ctx, size_t strict, Fn&& fn) {
  FLOE_ASSIGN_OR_RAISE(Rows rows, ToRows(args, n, ctx));
  BinaryBuilder builder(f.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(rows.count));
  std::string out;
  for (int64_t i = 0; i < rows.count; ++i) {
    bool is_null = AnyNull(rows, i, strict);
    if (!is_null) {
      out.clear();
      FLOE_RETURN_NOT_OK(fn(rows, i, &out, &is_null));
    }
    if (is_null) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
    } else {
      FLOE_RETURN_NOT_OK(builder.Append(out));
    }
  }
  return Finish(builder, rows);
}

template <typename Fn>
Result<ColumnarValue> BoolRows(const Args& args, int64_t n, EvalContext& ctx, Fn&& fn) {
  FLOE_ASSIGN_OR_RAISE(Rows rows, ToRows(args, n, ctx));
  BooleanBuilder builder(ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(rows.count));
  for (int64_t i = 0; i < rows.count; ++i) {
    if (AnyNull(rows, i, args.size())) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    bool v = false;
    FLOE_RETURN_NOT_OK(fn(rows, i, &v));
    FLOE_RETURN_NOT_OK(builder.Append(v));
  }
  return Finish(builder, rows);
}

std::string_view Text(const Rows& rows, size_t arg, int64_t i) {
  return rows.arrays[arg]->BytesValue(i);
}
int32_t Int(const Rows& rows, size_t arg, int64_t i) {
  return rows.arrays[arg]->values<int32_t>()[i];
}

// The elements of a text[] argument (nullopt for NULL elements).
std::vector<std::optional<std::string_view>> TextList(const Rows& rows, size_t arg, int64_t i) {
  const Array& lists = *rows.arrays[arg];
  const Array& elements = *lists.child(0);
  std::vector<std::optional<std::string_view>> out;
  for (int64_t j = lists.ListBegin(i); j < lists.ListEnd(i); ++j) {
    if (elements.IsNull(j)) {
      out.emplace_back();
    } else {
      out.emplace_back(elements.BytesValue(j));
    }
  }
  return out;
}

// The value of argument `arg` (json or jsonb by the resolved type) parsed.
Result<JsonValue> Parsed(const ResolvedFunction& f, const Rows& rows, size_t arg, int64_t i) {
  return ParseJson(Text(rows, arg, i), IsJsonb(f.arg_types[arg]));
}

// Whether a JSON string token as written holds the escape \u0000 (not "\\u0000", an
// escaped backslash followed by "u0000").
bool HasNulEscape(std::string_view token) {
  for (size_t i = 0; i + 1 < token.size(); ++i) {
    if (token[i] != '\\') continue;
    if (token[i + 1] == 'u' && token.substr(i + 2, 4) == "0000") return true;
    ++i;  // the escaped character
  }
  return false;
}

}  // namespace

std::string_view SubText(std::string_view source, const JsonValue& v) {
  return source.substr(v.begin, v.end - v.begin);
}

Status AsText(std::string_view source, const JsonValue& v, std::string* out, bool* is_null) {
  if (v.kind == JsonKind::kNull) {
    *is_null = true;
  } else if (v.kind == JsonKind::kString) {
    if (HasNulEscape(SubText(source, v))) {
      return Status::Invalid(
          "unsupported Unicode escape sequence: \\u0000 cannot be converted to text");
    }
    out->append(v.text);
  } else {
    out->append(SubText(source, v));
  }
  return Status::OK();
}

namespace {

// An array index as PostgreSQL reads a path element: a whole integer, or nothing.
std::optional<int64_t> PathIndex(std::string_view s) {
  size_t p = 0;
  while (p < s.size() && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n')) ++p;
  bool negative = false;
  if (p < s.size() && (s[p] == '-' || s[p] == '+')) negative = s[p++] == '-';
  if (p >= s.size()) return std::nullopt;
  int64_t v = 0;
  for (; p < s.size(); ++p) {
    if (s[p] < '0' || s[p] > '9') return std::nullopt;
    v = v * 10 + (s[p] - '0');
    if (v > INT32_MAX) return std::nullopt;
  }
  return negative ? -v : v;
}

// Element `index` of an array (negative from the end), or null.
const JsonValue* Element(const JsonValue& v, int64_t index) {
  if (v.kind != JsonKind::kArray) return nullptr;
  const int64_t size = static_cast<int64_t>(v.items.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return nullptr;
  return &v.items[static_cast<size_t>(index)];
}

// Follows a text[] path (keys of objects, indexes of arrays); null when it leads nowhere
// or passes a NULL element.
const JsonValue* FollowPath(const JsonValue& root,
                            const std::vector<std::optional<std::string_view>>& path) {
  const JsonValue* v = &root;
  for (const auto& step : path) {
    if (!step) return nullptr;
    if (v->kind == JsonKind::kObject) {
      v = v->Find(*step);
    } else if (v->kind == JsonKind::kArray) {
      const std::optional<int64_t> index = PathIndex(*step);
      v = index ? Element(*v, *index) : nullptr;
    } else {
      return nullptr;
    }
    if (v == nullptr) return nullptr;
  }
  return v;
}

// ---------------------------------------------------------------------------------------
// Values of SQL types as JSON (to_json, json_build_*, the aggregates).

void AppendDatetimeJson(const Array& a, int64_t i, std::string* out) {
  std::string text;
  AppendValueText(a, i, &text);
  // ISO 8601 as PostgreSQL's json writes timestamps: a T between date and time, and a
  // zone as +hh:mm.
  const TypeId id = a.type_id();
  if (id != TypeId::kDate && id != TypeId::kTime) {
    const size_t space = text.find(' ');
    if (space != std::string::npos && space + 1 < text.size() && text[space + 1] != 'B') {
      text[space] = 'T';
    }
    if (id == TypeId::kTimestampTz || id == TypeId::kTimestampTzNs) {
      const size_t sign = text.find_last_of("+-");
      if (sign != std::string::npos && sign > 10 && text.size() - sign == 3) text.append(":00");
    }
  }
  AppendJsonString(text, out);
}

Status AppendAsJson(const Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) {
    out->append("null");
    return Status::OK();
  }
  const DataType& t = *a.type();
  if (t.is_json()) {
    out->append(a.BytesValue(i));
    return Status::OK();
  }
  // A number; NaN and the infinities (of floats and numerics) as strings, as PostgreSQL's
  // to_json writes them.
  auto number = [&]() {
    std::string text;
    AppendValueText(a, i, &text);
    if (text == "NaN" || text == "Infinity" || text == "-Infinity") {
      AppendJsonString(text, out);
    } else {
      out->append(text);
    }
    return Status::OK();
  };
  if (t.is_numeric()) return number();
  switch (t.id()) {
    case TypeId::kBoolean:
      out->append(a.BoolValue(i) ? "true" : "false");
      return Status::OK();
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDecimal:
      AppendValueText(a, i, out);
      return Status::OK();
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      return number();
    case TypeId::kString:
      AppendJsonString(a.BytesValue(i), out);
      return Status::OK();
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      AppendDatetimeJson(a, i, out);
      return Status::OK();
    case TypeId::kList: {
      const Array& elements = *a.child(0);
      out->push_back('[');
      for (int64_t j = a.ListBegin(i); j < a.ListEnd(i); ++j) {
        if (j > a.ListBegin(i)) out->push_back(',');
        FLOE_RETURN_NOT_OK(AppendAsJson(elements, j, out));
      }
      out->push_back(']');
      return Status::OK();
    }
    case TypeId::kStruct: {
      out->push_back('{');
      for (int f = 0; f < t.num_fields(); ++f) {
        if (f > 0) out->push_back(',');
        AppendJsonString(t.field(f).name(), out);
        out->push_back(':');
        // A struct's offset applies to its children too.
        FLOE_RETURN_NOT_OK(AppendAsJson(*a.child(f), a.offset() + i, out));
      }
      out->push_back('}');
      return Status::OK();
    }
    default: {
      std::string text;
      AppendValueText(a, i, &text);
      AppendJsonString(text, out);
      return Status::OK();
    }
  }
}

}  // namespace

Status AppendValueAsJson(const Array& array, int64_t i, std::string* out) {
  return AppendAsJson(array, i, out);
}

Status AppendJsonKeyText(const Array& array, int64_t i, std::string* out) {
  const DataType& t = *array.type();
  if (t.is_nested() || t.is_json()) {
    return Status::Invalid("key value must be scalar, not array, composite, or json");
  }
  if (t.id() == TypeId::kBoolean) {
    out->append(array.BoolValue(i) ? "true" : "false");
  } else {
    AppendValueText(array, i, out);
  }
  return Status::OK();
}

namespace {

// JSON text built by the json functions, as jsonb.
Result<std::string> ToJsonbText(std::string_view json) {
  FLOE_ASSIGN_OR_RAISE(JsonValue v, ParseJson(json, /*jsonb=*/true));
  return JsonbText(v);
}

// An object key from a value of any scalar type (json_build_object, json_object_agg).
Status AppendKeyText(const Array& a, int64_t i, int arg_number, std::string* out) {
  if (a.IsNull(i)) return Status::Invalid("argument {}: key must not be null", arg_number);
  return AppendJsonKeyText(a, i, out);
}

// ---------------------------------------------------------------------------------------
// Navigation: -> ->> #> #>> and the extract_path functions.

ScalarKernel GetKernel(bool as_text) {
  return [as_text](const ResolvedFunction& f, const Args& args, int64_t n,
                   EvalContext& ctx) -> Result<ColumnarValue> {
    const bool by_index = f.arg_types[1]->id() == TypeId::kInt32;
    return StringRows(f, args, n, ctx, 2,
                      [&](const Rows& rows, int64_t i, std::string* out, bool* is_null) -> Status {
                        const std::string_view src = Text(rows, 0, i);
                        FLOE_ASSIGN_OR_RAISE(JsonValue v, Parsed(f, rows, 0, i));
                        const JsonValue* found =
                            by_index ? Element(v, Int(rows, 1, i)) : v.Find(Text(rows, 1, i));
                        if (found == nullptr) {
                          *is_null = true;
                        } else if (as_text) {
                          FLOE_RETURN_NOT_OK(AsText(src, *found, out, is_null));
                        } else {
                          out->append(SubText(src, *found));
                        }
                        return Status::OK();
                      });
  };
}

// #> and #>> (path as text[]) and the extract_path functions (path as variadic text).
ScalarKernel PathKernel(bool as_text, bool variadic) {
  return [as_text, variadic](const ResolvedFunction& f, const Args& args, int64_t n,
                             EvalContext& ctx) -> Result<ColumnarValue> {
    return StringRows(f, args, n, ctx, variadic ? 1 : 2,
                      [&](const Rows& rows, int64_t i, std::string* out, bool* is_null) -> Status {
                        std::vector<std::optional<std::string_view>> path;
                        if (variadic) {
                          for (size_t k = 1; k < rows.arrays.size(); ++k) {
                            if (rows.arrays[k]->IsNull(i)) {
                              path.emplace_back();
                            } else {
                              path.emplace_back(Text(rows, k, i));
                            }
                          }
                        } else {
                          path = TextList(rows, 1, i);
                        }
                        const std::string_view src = Text(rows, 0, i);
                        FLOE_ASSIGN_OR_RAISE(JsonValue v, Parsed(f, rows, 0, i));
                        const JsonValue* found = FollowPath(v, path);
                        if (found == nullptr) {
                          *is_null = true;
                        } else if (as_text) {
                          FLOE_RETURN_NOT_OK(AsText(src, *found, out, is_null));
                        } else {
                          out->append(SubText(src, *found));
                        }
                        return Status::OK();
                      });
  };
}

// ---------------------------------------------------------------------------------------
// jsonb's operators: @> <@ ? ?| ?& || - #- and the comparisons.

ScalarKernel ContainsKernel(bool contained) {
  return [contained](const ResolvedFunction& f, const Args& args, int64_t n,
                     EvalContext& ctx) -> Result<ColumnarValue> {
    return BoolRows(args, n, ctx, [&](const Rows& rows, int64_t i, bool* v) -> Status {
      FLOE_ASSIGN_OR_RAISE(JsonValue a, Parsed(f, rows, 0, i));
      FLOE_ASSIGN_OR_RAISE(JsonValue b, Parsed(f, rows, 1, i));
      *v = contained ? JsonbContains(b, a) : JsonbContains(a, b);
      return Status::OK();
    });
  };
}

// Whether `key` is a top-level key of an object, or a string element of an array (or the
// string itself, for a scalar).
bool HasKey(const JsonValue& v, std::string_view key) {
  if (v.kind == JsonKind::kObject) return v.Find(key) != nullptr;
  if (v.kind == JsonKind::kArray) {
    for (const JsonValue& e : v.items) {
      if (e.kind == JsonKind::kString && e.text == key) return true;
    }
    return false;
  }
  return v.kind == JsonKind::kString && v.text == key;
}

enum class ExistsMode { kOne, kAny, kAll };

ScalarKernel ExistsKernel(ExistsMode mode) {
  return [mode](const ResolvedFunction& f, const Args& args, int64_t n,
                EvalContext& ctx) -> Result<ColumnarValue> {
    return BoolRows(args, n, ctx, [&](const Rows& rows, int64_t i, bool* v) -> Status {
      FLOE_ASSIGN_OR_RAISE(JsonValue a, Parsed(f, rows, 0, i));
      if (mode == ExistsMode::kOne) {
        *v = HasKey(a, Text(rows, 1, i));
        return Status::OK();
      }
      *v = mode == ExistsMode::kAll;
      for (const auto& key : TextList(rows, 1, i)) {
        // NULL elements are skipped, as PostgreSQL does.
        if (!key) continue;
        const bool has = HasKey(a, *key);
        if (mode == ExistsMode::kAny && has) {
          *v = true;
          break;
        }
        if (mode == ExistsMode::kAll && !has) {
          *v = false;
          break;
        }
      }
      return Status::OK();
    });
  };
}

// jsonb || jsonb: objects merge (the right side's keys win); otherwise both sides as
// arrays (a non-array as a one-element array) concatenate.
JsonValue Concat(JsonValue a, JsonValue b) {
  if (a.kind == JsonKind::kObject && b.kind == JsonKind::kObject) {
    for (size_t k = 0; k < b.keys.size(); ++k) {
      a.keys.push_back(std::move(b.keys[k]));
      a.items.push_back(std::move(b.items[k]));
    }
    NormalizeJsonbObject(&a);
    return a;
  }
  auto as_items = [](JsonValue v) {
    if (v.kind == JsonKind::kArray) return std::move(v.items);
    std::vector<JsonValue> one;
    one.push_back(std::move(v));
    return one;
  };
  std::vector<JsonValue> items = as_items(std::move(a));
  for (JsonValue& e : as_items(std::move(b))) items.push_back(std::move(e));
  return JsonValue::Array(std::move(items));
}

Result<ColumnarValue> ConcatKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                   EvalContext& ctx) {
  return StringRows(f, args, n, ctx, 2,
                    [&](const Rows& rows, int64_t i, std::string* out, bool*) -> Status {
                      FLOE_ASSIGN_OR_RAISE(JsonValue a, Parsed(f, rows, 0, i));
                      FLOE_ASSIGN_OR_RAISE(JsonValue b, Parsed(f, rows, 1, i));
                      AppendJsonb(Concat(std::move(a), std::move(b)), out);
                      return Status::OK();
                    });
}

// Removes `key` from an object, or the string elements equal to it from an array.
void DeleteKey(JsonValue* v, std::string_view key) {
  for (size_t k = v->items.size(); k-- > 0;) {
    const bool hit = v->kind == JsonKind::kObject
                         ? v->keys[k] == key
                         : v->items[k].kind == JsonKind::kString && v->items[k].text == key;
    if (!hit) continue;
    v->items.erase(v->items.begin() + static_cast<ptrdiff_t>(k));
    if (v->kind == JsonKind::kObject) v->keys.erase(v->keys.begin() + static_cast<ptrdiff_t>(k));
  }
}

// jsonb - text, jsonb - integer, jsonb - text[].
Result<ColumnarValue> DeleteKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                   EvalContext& ctx) {
  const TypeId what = f.arg_types[1]->id();
  return StringRows(f, args, n, ctx, 2,
                    [&](const Rows& rows, int64_t i, std::string* out, bool*) -> Status {
                      FLOE_ASSIGN_OR_RAISE(JsonValue v, Parsed(f, rows, 0, i));
                      if (!v.is_container()) return Status::Invalid("cannot delete from scalar");
                      if (what == TypeId::kInt32) {
                        if (v.kind == JsonKind::kObject) {
                          return Status::Invalid("cannot delete from object using integer index");
                        }
                        int64_t index = Int(rows, 1, i);
                        const int64_t size = static_cast<int64_t>(v.items.size());
                        if (index < 0) index += size;
                        if (index >= 0 && index < size) {
                          v.items.erase(v.items.begin() + static_cast<ptrdiff_t>(index));
                        }
                      } else if (what == TypeId::kList) {
                        for (const auto& key : TextList(rows, 1, i)) {
                          if (key) DeleteKey(&v, *key);
                        }
                      } else {
                        DeleteKey(&v, Text(rows, 1, i));
                      }
                      AppendJsonb(v, out);
                      return Status::OK();
                    });
}

// Where a path step leads inside a container: an object's key or an array's position.
Status PathStepIndex(const JsonValue& v, std::string_view step, size_t position, int64_t* index) {
  const std::optional<int64_t> k = PathIndex(step);
  if (!k) {
    return Status::Invalid("path element at position {} is not an integer: \"{}\"", position, step);
  }
  *index = *k;
  return Status::OK();
}

// #-: removes the value at a path (nothing when the path leads nowhere).
Status DeletePath(JsonValue* v, const std::vector<std::optional<std::string_view>>& path,
                  size_t level) {
  if (level >= path.size() || !v->is_container()) return Status::OK();
  if (!path[level]) {
    return Status::Invalid("path element at position {} is null", level + 1);
  }
  const std::string_view step = *path[level];
  const bool last = level + 1 == path.size();
  if (v->kind == JsonKind::kObject) {
    for (size_t k = 0; k < v->keys.size(); ++k) {
      if (v->keys[k] != step) continue;
      if (last) {
        v->keys.erase(v->keys.begin() + static_cast<ptrdiff_t>(k));
        v->items.erase(v->items.begin() + static_cast<ptrdiff_t>(k));
        return Status::OK();
      }
      return DeletePath(&v->items[k], path, level + 1);
    }
    return Status::OK();
  }
  int64_t index = 0;
  FLOE_RETURN_NOT_OK(PathStepIndex(*v, step, level + 1, &index));
  const int64_t size = static_cast<int64_t>(v->items.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return Status::OK();
  if (last) {
    v->items.erase(v->items.begin() + static_cast<ptrdiff_t>(index));
    return Status::OK();
  }
  return DeletePath(&v->items[static_cast<size_t>(index)], path, level + 1);
}

Result<ColumnarValue> DeletePathKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                       EvalContext& ctx) {
  return StringRows(f, args, n, ctx, 2,
                    [&](const Rows& rows, int64_t i, std::string* out, bool*) -> Status {
                      FLOE_ASSIGN_OR_RAISE(JsonValue v, Parsed(f, rows, 0, i));
                      if (!v.is_container()) {
                        return Status::Invalid("cannot delete path in scalar");
                      }
                      // An empty container is returned as it is, whatever the path holds
                      // (PostgreSQL's jsonb_delete_path looks at no path element then).
                      if (!v.items.empty()) {
                        FLOE_RETURN_NOT_OK(DeletePath(&v, TextList(rows, 1, i), 0));
                      }
                      AppendJsonb(v, out);
                      return Status::OK();
                    });
}

// jsonb_set (insert false) and jsonb_insert (insert true) at a path: PostgreSQL's setPath.
// `create` adds a missing last key (jsonb_set's create_if_missing); `after` inserts after
// the array position instead of before (jsonb_insert's insert_after).
Status SetPath(JsonValue* v, const std::vector<std::optional<std::string_view>>& path, size_t level,
               const JsonValue& value, bool insert, bool create, bool after) {
  if (!path[level]) {
    return Status::Invalid("path element at position {} is null", level + 1);
  }
  const std::string_view step = *path[level];
  const bool last = level + 1 == path.size();
  if (v->kind == JsonKind::kObject) {
    for (size_t k = 0; k < v->keys.size(); ++k) {
      if (v->keys[k] != step) continue;
      if (last) {
        if (insert) return Status::Invalid("cannot replace existing key");
        v->items[k] = value;
        return Status::OK();
      }
      return SetPath(&v->items[k], path, level + 1, value, insert, create, after);
    }
    if (last && (create || insert)) {
      v->keys.emplace_back(step);
      v->items.push_back(value);
      NormalizeJsonbObject(v);
    }
    return Status::OK();
  }
  if (v->kind == JsonKind::kArray) {
    int64_t index = 0;
    FLOE_RETURN_NOT_OK(PathStepIndex(*v, step, level + 1, &index));
    const int64_t size = static_cast<int64_t>(v->items.size());
    if (index < 0) index += size;
    if (last) {
      if (index < 0 || index >= size) {
        // Out of range: prepend or append when creating or inserting.
        if (create || insert) {
          if (index < 0) {
            v->items.insert(v->items.begin(), value);
          } else {
            v->items.push_back(value);
          }
        }
        return Status::OK();
      }
      if (insert) {
        v->items.insert(v->items.begin() + static_cast<ptrdiff_t>(index + (after ? 1 : 0)), value);
      } else {
        v->items[static_cast<size_t>(index)] = value;
      }
      return Status::OK();
    }
    if (index < 0 || index >= size) return Status::OK();
    return SetPath(&v->items[static_cast<size_t>(index)], path, level + 1, value, insert, create,
                   after);
  }
  // A scalar in the middle of the path: nothing to set.
  return Status::OK();
}

ScalarKernel SetKernel(bool insert) {
  return [insert](const ResolvedFunction& f, const Args& args, int64_t n,
                  EvalContext& ctx) -> Result<ColumnarValue> {
    return StringRows(f, args, n, ctx, args.size(),
                      [&](const Rows& rows, int64_t i, std::string* out, bool*) -> Status {
                        FLOE_ASSIGN_OR_RAISE(JsonValue v, Parsed(f, rows, 0, i));
                        FLOE_ASSIGN_OR_RAISE(JsonValue value, Parsed(f, rows, 2, i));
                        const bool flag =
                            rows.arrays.size() > 3 ? rows.arrays[3]->BoolValue(i) : !insert;
                        const auto path = TextList(rows, 1, i);
                        if (!v.is_container()) {
                          return Status::Invalid(insert ? "cannot set path in scalar"
                                                        : "cannot set path in scalar");
                        }
                        if (!path.empty()) {
                          FLOE_RETURN_NOT_OK(SetPath(&v, path, 0, value, insert,
                                                     insert ? false : flag, insert ? flag : false));
                        }
                        AppendJsonb(v, out);
                        return Status::OK();
                      });
  };
}

// ---------------------------------------------------------------------------------------
// Functions over one value.

ScalarKernel TypeofKernel() {
  return [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
    return StringRows(f, args, n, ctx, 1,
                      [&](const Rows& rows, int64_t i, std::string* out, bool*) -> Status {
                        FLOE_ASSIGN_OR_RAISE(JsonValue v, Parsed(f, rows, 0, i));
                        out->append(JsonKindName(v.kind));
                        return Status::OK();
                      });
  };
}

Result<ColumnarValue> ArrayLengthKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                        EvalContext& ctx) {
  const bool jsonb = IsJsonb(f.arg_types[0]);
  FLOE_ASSIGN_OR_RAISE(Rows rows, ToRows(args, n, ctx));
  NumericBuilder<int32_t> builder(Int32(), ctx.pool);
  for (int64_t i = 0; i < rows.count; ++i) {
    if (AnyNull(rows, i, 1)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(JsonValue v, Parsed(f, rows, 0, i));
    if (v.kind != JsonKind::kArray) {
      if (jsonb && v.kind != JsonKind::kObject) {
        return Status::Invalid("cannot get array length of a scalar");
      }
      return Status::Invalid(jsonb ? "cannot get array length of a non-array"
                                   : (v.kind == JsonKind::kObject
                                          ? "cannot get array length of a non-array"
                                          : "cannot get array length of a scalar"));
    }
    FLOE_RETURN_NOT_OK(builder.Append(static_cast<int32_t>(v.items.size())));
  }
  return Finish(builder, rows);
}

// Drops object fields whose value is null, at every depth (array elements stay).
void StripNulls(JsonValue* v) {
  if (v->kind == JsonKind::kObject) {
    for (size_t k = v->items.size(); k-- > 0;) {
      if (v->items[k].kind == JsonKind::kNull) {
        v->items.erase(v->items.begin() + static_cast<ptrdiff_t>(k));
        v->keys.erase(v->keys.begin() + static_cast<ptrdiff_t>(k));
      }
    }
  }
  for (JsonValue& e : v->items) StripNulls(&e);
}

// json's compact text of a value (json_strip_nulls writes no spaces; scalars as written).
void AppendCompactJson(std::string_view src, const JsonValue& v, std::string* out) {
  if (v.kind == JsonKind::kArray || v.kind == JsonKind::kObject) {
    const bool object = v.kind == JsonKind::kObject;
    out->push_back(object ? '{' : '[');
    for (size_t k = 0; k < v.items.size(); ++k) {
      if (k > 0) out->push_back(',');
      if (object) {
        AppendJsonString(v.keys[k], out);
        out->push_back(':');
      }
      AppendCompactJson(src, v.items[k], out);
    }
    out->push_back(object ? '}' : ']');
    return;
  }
  if (v.kind == JsonKind::kString) {
    AppendJsonString(v.text, out);
    return;
  }
  out->append(SubText(src, v));
}

Result<ColumnarValue> StripNullsKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                       EvalContext& ctx) {
  const bool jsonb = IsJsonb(f.arg_types[0]);
  return StringRows(f, args, n, ctx, 1,
                    [&](const Rows& rows, int64_t i, std::string* out, bool*) -> Status {
                      FLOE_ASSIGN_OR_RAISE(JsonValue v, Parsed(f, rows, 0, i));
                      StripNulls(&v);
                      if (jsonb) {
                        AppendJsonb(v, out);
                      } else {
                        AppendCompactJson(Text(rows, 0, i), v, out);
                      }
                      return Status::OK();
                    });
}

Result<ColumnarValue> PrettyKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                   EvalContext& ctx) {
  return StringRows(f, args, n, ctx, 1,
                    [&](const Rows& rows, int64_t i, std::string* out, bool*) -> Status {
                      FLOE_ASSIGN_OR_RAISE(JsonValue v, Parsed(f, rows, 0, i));
                      AppendJsonbPretty(v, out);
                      return Status::OK();
                    });
}

// to_json / to_jsonb.
Result<ColumnarValue> ToJsonKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                   EvalContext& ctx) {
  const bool jsonb = IsJsonb(f.return_type);
  return StringRows(f, args, n, ctx, 1,
                    [&](const Rows& rows, int64_t i, std::string* out, bool*) -> Status {
                      FLOE_RETURN_NOT_OK(AppendAsJson(*rows.arrays[0], i, out));
                      if (jsonb) {
                        FLOE_ASSIGN_OR_RAISE(*out, ToJsonbText(*out));
                      }
                      return Status::OK();
                    });
}

// json_build_object / jsonb_build_object and json_build_array / jsonb_build_array.
ScalarKernel BuildKernel(bool object) {
  return [object](const ResolvedFunction& f, const Args& args, int64_t n,
                  EvalContext& ctx) -> Result<ColumnarValue> {
    if (object && args.size() % 2 != 0) {
      return Status::Invalid("argument list must have even number of elements");
    }
    const bool jsonb = IsJsonb(f.return_type);
    return StringRows(
        f, args, n, ctx, 0, [&](const Rows& rows, int64_t i, std::string* out, bool*) -> Status {
          out->push_back(object ? '{' : '[');
          for (size_t k = 0; k < rows.arrays.size(); ++k) {
            if (object && k % 2 == 0) {
              if (k > 0) out->append(", ");
              std::string key;
              FLOE_RETURN_NOT_OK(AppendKeyText(*rows.arrays[k], i, static_cast<int>(k) + 1, &key));
              AppendJsonString(key, out);
              out->append(" : ");
              continue;
            }
            if (!object && k > 0) out->append(", ");
            FLOE_RETURN_NOT_OK(AppendAsJson(*rows.arrays[k], i, out));
          }
          out->push_back(object ? '}' : ']');
          if (jsonb) {
            FLOE_ASSIGN_OR_RAISE(*out, ToJsonbText(*out));
          }
          return Status::OK();
        });
  };
}

// json_object / jsonb_object over text[] (alternating keys and values) or two text[]s.
Result<ColumnarValue> ObjectKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                   EvalContext& ctx) {
  const bool jsonb = IsJsonb(f.return_type);
  return StringRows(f, args, n, ctx, args.size(),
                    [&](const Rows& rows, int64_t i, std::string* out, bool*) -> Status {
                      std::vector<std::optional<std::string_view>> keys = TextList(rows, 0, i);
                      std::vector<std::optional<std::string_view>> values;
                      if (rows.arrays.size() == 2) {
                        values = TextList(rows, 1, i);
                        if (values.size() != keys.size()) {
                          return Status::Invalid("mismatched array dimensions");
                        }
                      } else {
                        if (keys.size() % 2 != 0) {
                          return Status::Invalid("array must have even number of elements");
                        }
                        std::vector<std::optional<std::string_view>> k2;
                        for (size_t k = 0; k < keys.size(); k += 2) {
                          k2.push_back(keys[k]);
                          values.push_back(keys[k + 1]);
                        }
                        keys = std::move(k2);
                      }
                      out->push_back('{');
                      for (size_t k = 0; k < keys.size(); ++k) {
                        if (!keys[k])
                          return Status::Invalid("null value not allowed for object key");
                        if (k > 0) out->append(", ");
                        AppendJsonString(*keys[k], out);
                        out->append(" : ");
                        if (values[k]) {
                          AppendJsonString(*values[k], out);
                        } else {
                          out->append("null");
                        }
                      }
                      out->push_back('}');
                      if (jsonb) {
                        FLOE_ASSIGN_OR_RAISE(*out, ToJsonbText(*out));
                      }
                      return Status::OK();
                    });
}

// ---------------------------------------------------------------------------------------
// Set-returning functions: per row, the list of the rows they yield (see ResolvedFunction).

enum class SrfKind { kElements, kElementsText, kEach, kEachText, kObjectKeys };

TypePtr SrfType(SrfKind kind, const TypePtr& j) {
  switch (kind) {
    case SrfKind::kElements:
      return List(j);
    case SrfKind::kElementsText:
    case SrfKind::kObjectKeys:
      return List(String());
    case SrfKind::kEach:
      return List(Struct({Field("key", String()), Field("value", j)}));
    case SrfKind::kEachText:
      return List(Struct({Field("key", String()), Field("value", String())}));
  }
  return nullptr;
}

Status SrfRow(SrfKind kind, std::string_view fname, bool jsonb, std::string_view src,
              const JsonValue& v, ListBuilder& builder) {
  const std::string_view type_name = jsonb ? "jsonb" : "json";
  FLOE_RETURN_NOT_OK(builder.Append());
  ArrayBuilder* values = builder.value_builder();
  auto append_text = [](ArrayBuilder* b, std::optional<std::string_view> s) -> Status {
    if (!s) return b->AppendNull();
    return static_cast<BinaryBuilder*>(b)->Append(*s);
  };
  auto text_of = [&](const JsonValue& e,
                     std::string* buf) -> Result<std::optional<std::string_view>> {
    bool is_null = false;
    buf->clear();
    FLOE_RETURN_NOT_OK(AsText(src, e, buf, &is_null));
    if (is_null) return std::optional<std::string_view>();
    return std::optional<std::string_view>(*buf);
  };
  std::string buf;
  switch (kind) {
    case SrfKind::kElements:
    case SrfKind::kElementsText:
      if (v.kind != JsonKind::kArray) {
        return Status::Invalid("cannot extract elements from {}",
                               v.kind == JsonKind::kObject ? "an object" : "a scalar");
      }
      for (const JsonValue& e : v.items) {
        std::optional<std::string_view> text = SubText(src, e);
        if (kind == SrfKind::kElementsText) {
          FLOE_ASSIGN_OR_RAISE(text, text_of(e, &buf));
        }
        FLOE_RETURN_NOT_OK(append_text(values, text));
      }
      return Status::OK();
    case SrfKind::kObjectKeys:
      if (v.kind != JsonKind::kObject) {
        return Status::Invalid("cannot call {} on {}", fname,
                               v.kind == JsonKind::kArray ? "an array" : "a scalar");
      }
      for (const std::string& key : v.keys) FLOE_RETURN_NOT_OK(append_text(values, key));
      return Status::OK();
    case SrfKind::kEach:
    case SrfKind::kEachText: {
      if (v.kind != JsonKind::kObject) {
        return Status::Invalid("cannot call {} on a non-object", fname);
      }
      auto* rows = static_cast<StructBuilder*>(values);
      for (size_t k = 0; k < v.keys.size(); ++k) {
        FLOE_RETURN_NOT_OK(rows->Append());
        FLOE_RETURN_NOT_OK(append_text(rows->field_builder(0), v.keys[k]));
        std::optional<std::string_view> text = SubText(src, v.items[k]);
        if (kind == SrfKind::kEachText) {
          FLOE_ASSIGN_OR_RAISE(text, text_of(v.items[k], &buf));
        }
        FLOE_RETURN_NOT_OK(append_text(rows->field_builder(1), text));
      }
      return Status::OK();
    }
  }
  (void)type_name;
  return Status::OK();
}

ScalarKernel SrfKernel(SrfKind kind) {
  return [kind](const ResolvedFunction& f, const Args& args, int64_t n,
                EvalContext& ctx) -> Result<ColumnarValue> {
    const bool jsonb = IsJsonb(f.arg_types[0]);
    FLOE_ASSIGN_OR_RAISE(Rows rows, ToRows(args, n, ctx, /*allow_scalar=*/false));
    ListBuilder builder(f.return_type, ctx.pool);
    for (int64_t i = 0; i < rows.count; ++i) {
      if (AnyNull(rows, i, 1)) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      FLOE_ASSIGN_OR_RAISE(JsonValue v, Parsed(f, rows, 0, i));
      FLOE_RETURN_NOT_OK(SrfRow(kind, f.name, jsonb, Text(rows, 0, i), v, builder));
    }
    return Finish(builder, rows);
  };
}

// The comparisons of jsonb values (PostgreSQL's jsonb btree order).
ScalarKernel CompareKernel(int (*accept)(int)) {
  return [accept](const ResolvedFunction& f, const Args& args, int64_t n,
                  EvalContext& ctx) -> Result<ColumnarValue> {
    return BoolRows(args, n, ctx, [&](const Rows& rows, int64_t i, bool* v) -> Status {
      FLOE_ASSIGN_OR_RAISE(JsonValue a, Parsed(f, rows, 0, i));
      FLOE_ASSIGN_OR_RAISE(JsonValue b, Parsed(f, rows, 1, i));
      *v = accept(CompareJsonb(a, b)) != 0;
      return Status::OK();
    });
  };
}

// ---------------------------------------------------------------------------------------
// Casts.

Status JsonbScalarCastError(const JsonValue& v, const TypePtr& to) {
  return Status::Invalid("cannot cast jsonb {} to type {}", JsonKindName(v.kind), SqlTypeName(*to));
}

}  // namespace

bool CanExplicitCastJson(const DataType& from, const DataType& to) {
  if (from.id() == TypeId::kString && to.id() == TypeId::kString) return true;
  if (from.extension() != Extension::kJsonb) return false;
  return to.id() == TypeId::kBoolean || to.is_integer() || to.is_floating() ||
         to.id() == TypeId::kDecimal || to.is_numeric();
}

Result<ArrayPtr> CastJson(const Array& in, const TypePtr& to, MemoryPool* pool) {
  const DataType& from = *in.type();
  if (to->id() == TypeId::kString) {
    if (!to->is_json()) {
      // json and jsonb to text: the same text.
      return Array::Make(to, in.length(), in.buffers(), {}, in.null_count(), in.offset());
    }
    const bool jsonb = to->extension() == Extension::kJsonb;
    if (!jsonb && from.is_json()) {
      return Array::Make(to, in.length(), in.buffers(), {}, in.null_count(), in.offset());
    }
    BinaryBuilder builder(to, pool);
    FLOE_RETURN_NOT_OK(builder.Reserve(in.length()));
    for (int64_t i = 0; i < in.length(); ++i) {
      if (in.IsNull(i)) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      const std::string_view text = in.BytesValue(i);
      FLOE_ASSIGN_OR_RAISE(JsonValue v, ParseJson(text, jsonb));
      if (jsonb) {
        FLOE_RETURN_NOT_OK(builder.Append(JsonbText(v)));
      } else {
        FLOE_RETURN_NOT_OK(builder.Append(text));
      }
    }
    return builder.Finish();
  }
  if (from.extension() != Extension::kJsonb || !CanExplicitCastJson(from, *to)) {
    return Status::NotSupported("cannot cast type {} to {}", SqlTypeName(from), SqlTypeName(*to));
  }
  // jsonb to boolean or a number: the scalar's text through the text cast.
  BinaryBuilder texts(String(), pool);
  FLOE_RETURN_NOT_OK(texts.Reserve(in.length()));
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      FLOE_RETURN_NOT_OK(texts.AppendNull());
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(JsonValue v, ParseJson(in.BytesValue(i), true));
    const JsonKind want = to->id() == TypeId::kBoolean ? JsonKind::kBool : JsonKind::kNumber;
    if (v.kind != want) return JsonbScalarCastError(v, to);
    if (want == JsonKind::kBool) {
      FLOE_RETURN_NOT_OK(texts.Append(v.boolean ? "true" : "false"));
      continue;
    }
    if (to->is_integer()) {
      // numeric -> integer rounds half away from zero.
      auto rounded = ParseDecimal(v.text, 38, 0);
      if (!rounded.ok()) return IntOutOfRange(to->id());
      std::string digits;
      AppendInt128Text(*rounded, &digits);
      FLOE_RETURN_NOT_OK(texts.Append(digits));
      continue;
    }
    FLOE_RETURN_NOT_OK(texts.Append(v.text));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr text_array, texts.Finish());
  EvalContext ctx;
  ctx.pool = pool;
  FLOE_ASSIGN_OR_RAISE(ColumnarValue out,
                       CastValue(ColumnarValue(text_array), to, in.length(), ctx));
  return out.array();
}

void RegisterJsonFunctions(ScalarFunctionRegistry& r) {
  const TypePtr jb = Jsonb();
  const TypePtr js = Json();
  const TypePtr t = String();
  const TypePtr i4 = Int32();
  const TypePtr ta = TextArray();
  const TypePtr b = Boolean();

  // -> ->> #> #>> (the binder's names) and PostgreSQL's function names for them.
  r.Add({"json_get",
         {},
         JsonSignatures("json_get", {{{jb, t}, jb}, {{jb, i4}, jb}, {{js, t}, js}, {{js, i4}, js}}),
         GetKernel(false)});
  r.Add(
      {"json_get_text",
       {},
       JsonSignatures("json_get_text", {{{jb, t}, t}, {{jb, i4}, t}, {{js, t}, t}, {{js, i4}, t}}),
       GetKernel(true)});
  r.Add({"json_get_path",
         {},
         JsonSignatures("json_get_path", {{{jb, ta}, jb}, {{js, ta}, js}}),
         PathKernel(false, false)});
  r.Add({"json_get_path_text",
         {},
         JsonSignatures("json_get_path_text", {{{jb, ta}, t}, {{js, ta}, t}}),
         PathKernel(true, false)});
  for (const auto& [prefix, j] :
       {std::pair{std::string("jsonb"), jb}, std::pair{std::string("json"), js}}) {
    r.Add({prefix + "_object_field",
           {},
           JsonSignatures(prefix + "_object_field", {{{j, t}, j}}),
           GetKernel(false)});
    r.Add({prefix + "_object_field_text",
           {},
           JsonSignatures(prefix + "_object_field_text", {{{j, t}, t}}),
           GetKernel(true)});
    r.Add({prefix + "_array_element",
           {},
           JsonSignatures(prefix + "_array_element", {{{j, i4}, j}}),
           GetKernel(false)});
    r.Add({prefix + "_array_element_text",
           {},
           JsonSignatures(prefix + "_array_element_text", {{{j, i4}, t}}),
           GetKernel(true)});
    r.Add({prefix + "_extract_path",
           {},
           JsonVariadicText(prefix + "_extract_path", j, j),
           PathKernel(false, true)});
    r.Add({prefix + "_extract_path_text",
           {},
           JsonVariadicText(prefix + "_extract_path_text", j, t),
           PathKernel(true, true)});
    r.Add({prefix + "_typeof", {}, JsonSignatures(prefix + "_typeof", {{{j}, t}}), TypeofKernel()});
    r.Add({prefix + "_array_length",
           {},
           JsonSignatures(prefix + "_array_length", {{{j}, i4}}),
           ArrayLengthKernel});
    r.Add({prefix + "_strip_nulls",
           {},
           JsonSignatures(prefix + "_strip_nulls", {{{j}, j}}),
           StripNullsKernel});
    // An init-capture: clang 14 (the fuzz build's compiler) cannot capture a structured binding.
    r.Add({"to_" + prefix,
           {},
           [name = "to_" + prefix, json = j](const std::vector<TypePtr>& args,
                                             int*) -> Result<ResolvedFunction> {
             if (args.size() != 1) return NoSuchFunction(name, args);
             return Resolution(name, {args[0] ? args[0] : String()}, json);
           },
           ToJsonKernel});
    r.Add({prefix + "_build_object",
           {},
           AnyVariadic(prefix + "_build_object", j),
           BuildKernel(true)});
    r.Add(
        {prefix + "_build_array", {}, AnyVariadic(prefix + "_build_array", j), BuildKernel(false)});
    r.Add({prefix + "_object",
           {},
           JsonSignatures(prefix + "_object", {{{ta}, j}, {{ta, ta}, j}}),
           ObjectKernel});
    const struct {
      const char* suffix;
      SrfKind kind;
    } srfs[] = {{"_array_elements", SrfKind::kElements},
                {"_array_elements_text", SrfKind::kElementsText},
                {"_each", SrfKind::kEach},
                {"_each_text", SrfKind::kEachText},
                {"_object_keys", SrfKind::kObjectKeys}};
    for (const auto& s : srfs) {
      const std::string name = prefix + s.suffix;
      r.Add({name,
             {},
             JsonSignatures(name, {{{j}, SrfType(s.kind, j)}}, /*set_returning=*/true),
             SrfKernel(s.kind),
             /*set_returning=*/true});
    }
  }
  r.Add({"jsonb_pretty", {}, JsonSignatures("jsonb_pretty", {{{jb}, t}}), PrettyKernel});

  // jsonb's operators and their functions.
  r.Add({"jsonb_contains",
         {},
         JsonSignatures("jsonb_contains", {{{jb, jb}, b}}),
         ContainsKernel(false)});
  r.Add({"jsonb_contained",
         {},
         JsonSignatures("jsonb_contained", {{{jb, jb}, b}}),
         ContainsKernel(true)});
  r.Add({"jsonb_exists",
         {},
         JsonSignatures("jsonb_exists", {{{jb, t}, b}}),
         ExistsKernel(ExistsMode::kOne)});
  r.Add({"jsonb_exists_any",
         {},
         JsonSignatures("jsonb_exists_any", {{{jb, ta}, b}}),
         ExistsKernel(ExistsMode::kAny)});
  r.Add({"jsonb_exists_all",
         {},
         JsonSignatures("jsonb_exists_all", {{{jb, ta}, b}}),
         ExistsKernel(ExistsMode::kAll)});
  r.Add({"jsonb_concat", {}, JsonSignatures("jsonb_concat", {{{jb, jb}, jb}}), ConcatKernel});
  r.Add({"concat_op", {}, JsonSignatures("concat_op", {{{jb, jb}, jb}}), ConcatKernel});
  r.Add({"jsonb_delete",
         {},
         JsonSignatures("jsonb_delete", {{{jb, t}, jb}, {{jb, i4}, jb}, {{jb, ta}, jb}}),
         DeleteKernel});
  r.Add({"subtract",
         {},
         JsonSignatures("subtract", {{{jb, t}, jb}, {{jb, i4}, jb}, {{jb, ta}, jb}}),
         DeleteKernel});
  r.Add({"jsonb_delete_path",
         {},
         JsonSignatures("jsonb_delete_path", {{{jb, ta}, jb}}),
         DeletePathKernel});
  r.Add({"jsonb_set",
         {},
         JsonSignatures("jsonb_set", {{{jb, ta, jb}, jb}, {{jb, ta, jb, b}, jb}}),
         SetKernel(false)});
  r.Add({"jsonb_insert",
         {},
         JsonSignatures("jsonb_insert", {{{jb, ta, jb}, jb}, {{jb, ta, jb, b}, jb}}),
         SetKernel(true)});

  const struct {
    const char* name;
    int (*accept)(int);
  } comparisons[] = {{"eq", [](int c) { return static_cast<int>(c == 0); }},
                     {"ne", [](int c) { return static_cast<int>(c != 0); }},
                     {"lt", [](int c) { return static_cast<int>(c < 0); }},
                     {"le", [](int c) { return static_cast<int>(c <= 0); }},
                     {"gt", [](int c) { return static_cast<int>(c > 0); }},
                     {"ge", [](int c) { return static_cast<int>(c >= 0); }}};
  for (const auto& c : comparisons) {
    r.Add({c.name,
           {},
           [name = std::string(c.name), jb](const std::vector<TypePtr>& args,
                                            int*) -> Result<ResolvedFunction> {
             if (args.size() != 2 || !IsJsonb(args[0]) || !IsJsonb(args[1])) {
               return NoSuchFunction(name, args);
             }
             return Resolution(name, {jb, jb}, Boolean());
           },
           CompareKernel(c.accept)});
  }
}

}  // namespace floe::expr::internal
