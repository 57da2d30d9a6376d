// PostgreSQL's functions between JSON and records: json(b)_populate_record(base, json),
// json(b)_populate_recordset (one record per element of an array of objects),
// json(b)_to_record and json(b)_to_recordset (their record type comes from a column
// definition list; the binder passes it as a NULL first argument, so that they share the
// populate functions' kernels), row_to_json(record [, pretty]) and array_to_json(array
// [, pretty]).
//
// A field takes the value of the object's key of its name, converted as PostgreSQL's
// populate_record_field does, or else the base record's field (NULL without one):
//   JSON null                  NULL
//   json, jsonb fields         the value's JSON text (json's as written, jsonb's normalized)
//   array fields               a JSON array element by element, of the dimensions the first
//                              elements show (sub-arrays must match); a string as array text
//   record fields              an object key by key, over the base's field; a string as
//                              record text
//   other types                a string's contents, other values their JSON text, through
//                              the type's text input
// Each value becomes the text the field type's input takes, and each field is converted by
// one cast over all rows (array and record texts are quoted as array_out and record_out
// quote, so that they read back exactly).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/json.h"
#include "floe/expr/json_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"
#include "floe/type/list_type.h"

namespace floe::expr::internal {

namespace {

using Args = std::vector<ColumnarValue>;

bool IsStruct(const TypePtr& t) { return t != nullptr && t->id() == TypeId::kStruct; }

std::string_view KindArticle(JsonKind kind) {
  if (kind == JsonKind::kArray) return "an array";
  return kind == JsonKind::kObject ? "an object" : "a scalar";
}

// A record value a nested record is populated over: row `index` of the struct array `array`,
// or none.
struct BaseRef {
  const Array* array = nullptr;
  int64_t index = 0;
  bool present() const { return array != nullptr && !array->IsNull(index); }
};

// Where a value sits, for the hints of errors: the key and the element indexes below it.
struct ValuePath {
  std::string key;
  std::vector<size_t> elements;

  std::string Describe() const {
    if (elements.empty()) return "see the value of key \"" + key + "\"";
    std::string at;
    for (size_t e : elements) at += "[" + std::to_string(e) + "]";
    return "see the array element " + at + " of key \"" + key + "\"";
  }
};

// JSON values to the text input of SQL types, as populate_record_field converts them.
class TextConverter {
 public:
  explicit TextConverter(std::string_view source) : source_(source) {}

  // The text of `v` for a value of `type` (nullopt for NULL).
  Result<std::optional<std::string>> Convert(const JsonValue& v, const TypePtr& type,
                                             const BaseRef& base, ValuePath& path) const {
    if (v.kind == JsonKind::kNull) return std::optional<std::string>();
    std::string out;
    bool is_null = false;
    if (type->is_json()) {
      out.append(SubText(source_, v));
    } else if (type->id() == TypeId::kList) {
      if (v.kind == JsonKind::kArray) {
        FLOE_RETURN_NOT_OK(ArrayText(v, type, path, &out));
      } else if (v.kind == JsonKind::kString) {
        FLOE_RETURN_NOT_OK(AsText(source_, v, &out, &is_null));
      } else {
        return Status::Invalid("expected JSON array ({})", path.Describe());
      }
    } else if (type->id() == TypeId::kStruct) {
      if (v.kind == JsonKind::kObject) {
        FLOE_RETURN_NOT_OK(RecordText(v, type, base, &out));
      } else if (v.kind == JsonKind::kString) {
        FLOE_RETURN_NOT_OK(AsText(source_, v, &out, &is_null));
      } else {
        return Status::Invalid("cannot call populate_composite on {}", KindArticle(v.kind));
      }
    } else {
      FLOE_RETURN_NOT_OK(AsText(source_, v, &out, &is_null));
    }
    if (is_null) return std::optional<std::string>();
    return std::optional<std::string>(std::move(out));
  }

  // The record text of an object for the struct `type`: each field from the key of its
  // name, or else from `base`.
  Status RecordText(const JsonValue& object, const TypePtr& type, const BaseRef& base,
                    std::string* out) const {
    out->push_back('(');
    for (int k = 0; k < type->num_fields(); ++k) {
      if (k > 0) out->push_back(',');
      const Field& field = type->field(k);
      ArrayPtr base_field = base.present() ? base.array->field(k) : nullptr;
      if (const JsonValue* value = object.Find(field.name())) {
        ValuePath path{field.name(), {}};
        BaseRef nested;
        if (base_field != nullptr && field.type()->id() == TypeId::kStruct) {
          nested = BaseRef{base_field.get(), base.index};
        }
        FLOE_ASSIGN_OR_RAISE(std::optional<std::string> text,
                             Convert(*value, field.type(), nested, path));
        if (text) AppendRecordFieldText(*text, out);
      } else if (base_field != nullptr && !base_field->IsNull(base.index)) {
        AppendRecordFieldText(FormatValue(*base_field, base.index), out);
      }
    }
    out->push_back(')');
    return Status::OK();
  }

 private:
  // The array text of a JSON array for the list type `type`. Its dimensions are those of its
  // first elements (as PostgreSQL's arrays take their value's dimensions); deeper values are
  // elements, passed to the element type's input as their text.
  Status ArrayText(const JsonValue& v, const TypePtr& type, ValuePath& path,
                   std::string* out) const {
    std::vector<size_t> dims;
    for (const JsonValue* x = &v; x->kind == JsonKind::kArray;) {
      dims.push_back(x->items.size());
      if (x->items.empty()) break;
      x = &x->items[0];
    }
    size_t leaves = 0;
    FLOE_RETURN_NOT_OK(CheckShape(v, dims, 0, path, &leaves));
    if (leaves == 0) {
      out->append("{}");
      return Status::OK();
    }
    const int depth = ListDepth(*type);
    if (static_cast<int>(dims.size()) != depth) {
      return Status::NotSupported(
          "a {}-dimensional JSON array for a value of type {} ({}): floe's arrays have the "
          "dimensions of their type",
          dims.size(), SqlTypeName(*type), path.Describe());
    }
    return AppendArray(v, ListLeafType(type), 1, depth, path, out);
  }

  // Every element above the innermost dimension must be an array of the length the first
  // one at its depth has.
  Status CheckShape(const JsonValue& v, const std::vector<size_t>& dims, size_t depth,
                    ValuePath& path, size_t* leaves) const {
    if (v.items.size() != dims[depth]) {
      return Status::Invalid(
          "malformed JSON array: multidimensional arrays must have sub-arrays with matching "
          "dimensions");
    }
    if (depth + 1 == dims.size()) {
      *leaves += v.items.size();
      return Status::OK();
    }
    for (size_t e = 0; e < v.items.size(); ++e) {
      path.elements.push_back(e);
      if (v.items[e].kind != JsonKind::kArray) {
        return Status::Invalid("expected JSON array ({})", path.Describe());
      }
      FLOE_RETURN_NOT_OK(CheckShape(v.items[e], dims, depth + 1, path, leaves));
      path.elements.pop_back();
    }
    return Status::OK();
  }

  Status AppendArray(const JsonValue& v, const TypePtr& leaf, int depth, int dims,
                     ValuePath& path, std::string* out) const {
    out->push_back('{');
    for (size_t e = 0; e < v.items.size(); ++e) {
      if (e > 0) out->push_back(',');
      path.elements.push_back(e);
      if (depth < dims) {
        FLOE_RETURN_NOT_OK(AppendArray(v.items[e], leaf, depth + 1, dims, path, out));
      } else {
        FLOE_ASSIGN_OR_RAISE(std::optional<std::string> text,
                             Convert(v.items[e], leaf, BaseRef{}, path));
        if (text) {
          AppendArrayElementText(*text, out);
        } else {
          out->append("NULL");
        }
      }
      path.elements.pop_back();
    }
    out->push_back('}');
    return Status::OK();
  }

  std::string_view source_;
};

// Collects the records of a populate call field by field: per row, each field either from
// JSON (as text, converted at the end) or from the base record.
class RecordAssembler {
 public:
  // `base`: the base records (a struct array of the record type, or null for none).
  RecordAssembler(TypePtr type, const Array* base, MemoryPool* pool)
      : type_(std::move(type)), base_(base), pool_(pool) {
    for (int k = 0; k < type_->num_fields(); ++k) {
      texts_.push_back(std::make_unique<BinaryBuilder>(String(), pool_));
      from_base_.emplace_back();
      base_fields_.push_back(base_ != nullptr ? base_->field(k) : nullptr);
    }
  }

  // One record from the object `object` (of JSON text `source`) over base row `base_row`.
  Status AddObject(const JsonValue& object, std::string_view source, int64_t base_row) {
    TextConverter converter(source);
    const BaseRef base_ref{base_, base_row};
    for (int k = 0; k < type_->num_fields(); ++k) {
      const Field& field = type_->field(k);
      const JsonValue* value = object.Find(field.name());
      if (value == nullptr) {
        FLOE_RETURN_NOT_OK(AddFromBase(k, base_row));
        continue;
      }
      ValuePath path{field.name(), {}};
      BaseRef nested;
      if (base_ref.present() && field.type()->id() == TypeId::kStruct) {
        nested = BaseRef{base_fields_[static_cast<size_t>(k)].get(), base_row};
      }
      FLOE_ASSIGN_OR_RAISE(std::optional<std::string> text,
                           converter.Convert(*value, field.type(), nested, path));
      auto& builder = *texts_[static_cast<size_t>(k)];
      FLOE_RETURN_NOT_OK(text ? builder.Append(*text) : builder.AppendNull());
      from_base_[static_cast<size_t>(k)].push_back(-1);
    }
    valid_.push_back(true);
    return Status::OK();
  }

  // The base record itself (NULL JSON): NULL when the base is.
  Status AddBase(int64_t base_row) {
    for (int k = 0; k < type_->num_fields(); ++k) FLOE_RETURN_NOT_OK(AddFromBase(k, base_row));
    valid_.push_back(base_ != nullptr && !base_->IsNull(base_row));
    return Status::OK();
  }

  Result<ArrayPtr> Finish() {
    const int64_t n = static_cast<int64_t>(valid_.size());
    std::vector<ArrayPtr> children;
    for (int k = 0; k < type_->num_fields(); ++k) {
      const TypePtr& field_type = type_->field(k).type();
      FLOE_ASSIGN_OR_RAISE(ArrayPtr text, texts_[static_cast<size_t>(k)]->Finish());
      FLOE_ASSIGN_OR_RAISE(ArrayPtr converted, CastArrayValues(*text, field_type, pool_));
      const std::vector<int64_t>& rows = from_base_[static_cast<size_t>(k)];
      bool any_base = false;
      for (int64_t r : rows) any_base = any_base || r >= 0;
      if (!any_base) {
        children.push_back(std::move(converted));
        continue;
      }
      const ArrayPtr& base_field = base_fields_[static_cast<size_t>(k)];
      auto builder = MakeBuilder(field_type, pool_);
      FLOE_RETURN_NOT_OK(builder->Reserve(n));
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = rows[static_cast<size_t>(i)];
        FLOE_RETURN_NOT_OK(r >= 0 ? builder->AppendArraySlice(*base_field, r, 1)
                                  : builder->AppendArraySlice(*converted, i, 1));
      }
      FLOE_ASSIGN_OR_RAISE(ArrayPtr merged, builder->Finish());
      children.push_back(std::move(merged));
    }
    std::shared_ptr<Buffer> validity;
    int64_t nulls = 0;
    for (bool v : valid_) nulls += v ? 0 : 1;
    if (nulls > 0) {
      FLOE_ASSIGN_OR_RAISE(validity, Buffer::AllocateZeroed(bit_util::BytesForBits(n), pool_));
      for (int64_t i = 0; i < n; ++i) {
        if (valid_[static_cast<size_t>(i)]) bit_util::SetBit(validity->mutable_data(), i);
      }
    }
    return Array::Make(type_, n, {validity}, std::move(children), nulls);
  }

 private:
  Status AddFromBase(int k, int64_t base_row) {
    const bool has = base_ != nullptr && !base_->IsNull(base_row);
    // The text slot stays NULL; the value comes from the base row, or is NULL.
    FLOE_RETURN_NOT_OK(texts_[static_cast<size_t>(k)]->AppendNull());
    from_base_[static_cast<size_t>(k)].push_back(has ? base_row : -1);
    return Status::OK();
  }

  TypePtr type_;
  const Array* base_;
  MemoryPool* pool_;
  std::vector<std::unique_ptr<BinaryBuilder>> texts_;
  std::vector<std::vector<int64_t>> from_base_;  // per field and row: the base row, or -1
  std::vector<bool> valid_;
  std::vector<ArrayPtr> base_fields_;
};

enum class PopulateKind { kRecord, kRecordset };

// json(b)_populate_record(set)(base, json [, use_json_as_text]) and json(b)_to_record(set)
// (witness, json): the first argument's struct type is the record type.
ScalarResolver PopulateResolver(std::string name, bool jsonb, PopulateKind kind,
                                bool base_given) {
  return [=](const std::vector<TypePtr>& t, int* cost) -> Result<ResolvedFunction> {
    const TypePtr j = jsonb ? Jsonb() : Json();
    if (!base_given && t.size() == 1) {
      return Status::Invalid(
          "could not determine row type for result of {}: call it in FROM with a column "
          "definition list, as in {}(...) AS x(a int, b text)",
          name, name);
    }
    const bool flag = !jsonb && base_given && t.size() == 3;
    if (t.size() != 2 && !flag) return NoSuchFunction(name, t);
    if (!IsStruct(t[0])) return NoSuchFunction(name, t);
    if (!t[1]->Equals(*j) &&
        !(t[1]->id() == TypeId::kString && t[1]->extension() == Extension::kNone)) {
      return NoSuchFunction(name, t);
    }
    if (flag && t[2]->id() != TypeId::kBoolean) return NoSuchFunction(name, t);
    if (t[0]->num_fields() == 0) {
      return Status::Invalid(
          "could not determine row type for result of {}: give a non-NULL record argument, or "
          "call it in FROM with a column definition list",
          name);
    }
    *cost += t[1]->Equals(*j) ? 0 : 2;
    std::vector<TypePtr> params{t[0], j};
    if (flag) params.push_back(Boolean());
    ResolvedFunction fn =
        Resolution(name, std::move(params), kind == PopulateKind::kRecord ? t[0] : List(t[0]),
                   /*null_if_any_arg_null=*/false);
    fn.set_returning = kind == PopulateKind::kRecordset;
    return fn;
  };
}

ScalarKernel PopulateKernel(PopulateKind kind) {
  return [kind](const ResolvedFunction& f, const Args& args, int64_t n,
                EvalContext& ctx) -> Result<ColumnarValue> {
    const bool jsonb = f.arg_types[1]->extension() == Extension::kJsonb;
    const TypePtr& type = f.arg_types[0];
    FLOE_ASSIGN_OR_RAISE(ArrayPtr base, args[0].ToArray(n, ctx.pool));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr json, args[1].ToArray(n, ctx.pool));
    RecordAssembler records(type, base.get(), ctx.pool);
    std::vector<int32_t> offsets{0};
    for (int64_t i = 0; i < n; ++i) {
      if (json->IsNull(i)) {
        if (kind == PopulateKind::kRecord) {
          FLOE_RETURN_NOT_OK(records.AddBase(i));
        } else {
          offsets.push_back(offsets.back());
        }
        continue;
      }
      const std::string_view text = json->BytesValue(i);
      FLOE_ASSIGN_OR_RAISE(JsonValue v, ParseJson(text, jsonb));
      if (kind == PopulateKind::kRecord) {
        if (v.kind != JsonKind::kObject) {
          return Status::Invalid("cannot call populate_composite on {}", KindArticle(v.kind));
        }
        FLOE_RETURN_NOT_OK(records.AddObject(v, text, i));
        continue;
      }
      if (v.kind != JsonKind::kArray) {
        return Status::Invalid("cannot call {} on a non-array", f.name);
      }
      for (const JsonValue& e : v.items) {
        if (e.kind != JsonKind::kObject) {
          return Status::Invalid("argument of {} must be an array of objects", f.name);
        }
        FLOE_RETURN_NOT_OK(records.AddObject(e, text, i));
      }
      if (offsets.back() + static_cast<int64_t>(v.items.size()) > INT32_MAX) {
        return Status::Invalid("{}: too many records in one batch", f.name);
      }
      offsets.push_back(offsets.back() + static_cast<int32_t>(v.items.size()));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, records.Finish());
    if (kind == PopulateKind::kRecord) return ColumnarValue(std::move(out));
    // A NULL argument yields no records: an empty list, which the unnest reads as no rows.
    ListBuilder lists(f.return_type, ctx.pool);
    FLOE_RETURN_NOT_OK(lists.Reserve(n));
    for (int64_t i = 0; i < n; ++i) {
      FLOE_RETURN_NOT_OK(lists.Append());
      const int32_t b = offsets[static_cast<size_t>(i)];
      const int32_t e = offsets[static_cast<size_t>(i + 1)];
      if (e > b) FLOE_RETURN_NOT_OK(lists.value_builder()->AppendArraySlice(*out, b, e - b));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr result, lists.Finish());
    return ColumnarValue(std::move(result));
  };
}

// row_to_json(record [, pretty]): the record as an object; with `pretty` a line break
// before every field after the first.
Result<ResolvedFunction> ResolveRowToJson(const std::vector<TypePtr>& t, int* cost) {
  if ((t.size() != 1 && t.size() != 2) || !IsStruct(t[0]) ||
      (t.size() == 2 && t[1]->id() != TypeId::kBoolean)) {
    return NoSuchFunction("row_to_json", t);
  }
  return Resolution("row_to_json", t, Json());
}

Result<ColumnarValue> RowToJsonKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                      EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(ArrayPtr rows, args[0].ToArray(n, ctx.pool));
  ArrayPtr pretty;
  if (args.size() == 2) {
    FLOE_ASSIGN_OR_RAISE(pretty, args[1].ToArray(n, ctx.pool));
  }
  std::vector<ArrayPtr> fields;
  for (int k = 0; k < rows->num_children(); ++k) fields.push_back(rows->field(k));
  const DataType& type = *rows->type();
  BinaryBuilder builder(f.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(n));
  std::string text;
  for (int64_t i = 0; i < n; ++i) {
    if (rows->IsNull(i) || (pretty && pretty->IsNull(i))) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    const bool line_feeds = pretty && pretty->BoolValue(i);
    text.assign("{");
    for (size_t k = 0; k < fields.size(); ++k) {
      if (k > 0) text.append(line_feeds ? ",\n " : ",");
      AppendJsonString(type.field(static_cast<int>(k)).name(), &text);
      text.push_back(':');
      FLOE_RETURN_NOT_OK(AppendValueAsJson(*fields[k], i, &text));
    }
    text.push_back('}');
    FLOE_RETURN_NOT_OK(builder.Append(text));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  return ColumnarValue(std::move(out));
}

// array_to_json(array [, pretty]): the array as JSON (nested arrays for its dimensions);
// with `pretty` a line break before every top-level element after the first.
Result<ResolvedFunction> ResolveArrayToJson(const std::vector<TypePtr>& t, int*) {
  if ((t.size() != 1 && t.size() != 2) || t[0]->id() != TypeId::kList ||
      (t.size() == 2 && t[1]->id() != TypeId::kBoolean)) {
    return NoSuchFunction("array_to_json", t);
  }
  return Resolution("array_to_json", t, Json());
}

Result<ColumnarValue> ArrayToJsonKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                        EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(ArrayPtr lists, args[0].ToArray(n, ctx.pool));
  ArrayPtr pretty;
  if (args.size() == 2) {
    FLOE_ASSIGN_OR_RAISE(pretty, args[1].ToArray(n, ctx.pool));
  }
  const Array& elements = *lists->child(0);
  BinaryBuilder builder(f.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(n));
  std::string text;
  for (int64_t i = 0; i < n; ++i) {
    if (lists->IsNull(i) || (pretty && pretty->IsNull(i))) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    const bool line_feeds = pretty && pretty->BoolValue(i);
    text.assign("[");
    for (int64_t j = lists->ListBegin(i); j < lists->ListEnd(i); ++j) {
      if (j > lists->ListBegin(i)) text.append(line_feeds ? ",\n " : ",");
      FLOE_RETURN_NOT_OK(AppendValueAsJson(elements, j, &text));
    }
    text.push_back(']');
    FLOE_RETURN_NOT_OK(builder.Append(text));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  return ColumnarValue(std::move(out));
}

}  // namespace

void RegisterJsonRecordFunctions(ScalarFunctionRegistry& r) {
  for (const bool jsonb : {true, false}) {
    const std::string prefix = jsonb ? "jsonb" : "json";
    for (const bool base_given : {true, false}) {
      const std::string stem = prefix + (base_given ? "_populate_record" : "_to_record");
      r.Add({stem, {}, PopulateResolver(stem, jsonb, PopulateKind::kRecord, base_given),
             PopulateKernel(PopulateKind::kRecord)});
      r.Add({stem + "set", {},
             PopulateResolver(stem + "set", jsonb, PopulateKind::kRecordset, base_given),
             PopulateKernel(PopulateKind::kRecordset), /*set_returning=*/true});
    }
  }
  r.Add({"row_to_json", {}, ResolveRowToJson, RowToJsonKernel});
  r.Add({"array_to_json", {}, ResolveArrayToJson, ArrayToJsonKernel});
}

}  // namespace floe::expr::internal

namespace floe::expr {

bool IsRecordReturningFunction(std::string_view name) {
  return name == "json_populate_record" || name == "jsonb_populate_record" ||
         name == "json_to_record" || name == "jsonb_to_record";
}

}  // namespace floe::expr
