// PostgreSQL's records (composite values) over the engine's structs: the row constructor,
// comparisons of records, IS [NOT] NULL of a record, and the casts text -> record
// (record_in) and record -> record (field by field). A record's text form (record_out) is
// printed by batch/value_format.h.
//
// Comparisons here are those of composite values: two NULL fields are equal and a NULL field
// sorts after every value (PostgreSQL's record_eq and record_cmp, which keep sorting and
// grouping consistent). Two row constructors compare field by field with SQL's NULL
// semantics instead; the binder expands those (plan/bind_row.cc).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/comparison_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"

namespace floe::expr::internal {

namespace {

using Args = std::vector<ColumnarValue>;

bool IsStruct(const TypePtr& t) { return t != nullptr && t->id() == TypeId::kStruct; }

// ---------------------------------------------------------------------------------------
// row(a, b, ...): a struct of the arguments, fields f1, f2, ... as PostgreSQL names the
// columns of an anonymous record. The binder renames them with a cast where a record has
// names of its own (a whole-row reference).

TypePtr RowType(const std::vector<TypePtr>& types) {
  std::vector<Field> fields;
  for (size_t i = 0; i < types.size(); ++i) {
    fields.emplace_back("f" + std::to_string(i + 1), types[i], true);
  }
  return Struct(std::move(fields));
}

Result<ResolvedFunction> ResolveRow(const std::vector<TypePtr>& t, int*) {
  ResolvedFunction fn = Resolution("row", t, RowType(t), /*null_if_any_arg_null=*/false);
  return fn;
}

Result<ColumnarValue> RowKernel(const ResolvedFunction& fn, const Args& args, int64_t n,
                                EvalContext& ctx) {
  std::vector<ArrayPtr> children;
  children.reserve(args.size());
  for (const ColumnarValue& a : args) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr c, a.ToArray(n, ctx.pool));
    children.push_back(std::move(c));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out,
                       Array::Make(fn.return_type, n, {nullptr}, std::move(children), 0));
  return ColumnarValue(std::move(out));
}

// ---------------------------------------------------------------------------------------
// Comparisons of records: eq ... ge and IS [NOT] DISTINCT FROM.

Result<ResolvedFunction> ResolveRecordComparison(std::string_view name,
                                                 const std::vector<TypePtr>& t, int* cost) {
  if (t.size() != 2 || !IsStruct(t[0]) || !IsStruct(t[1])) return NoSuchFunction(name, t);
  TypePtr common = t[0];
  if (!t[0]->Equals(*t[1])) {
    if (t[0]->num_fields() != t[1]->num_fields()) {
      return Status::Bind("cannot compare record types with different numbers of columns");
    }
    Result<TypePtr> c = CommonType(t[0], t[1], "record comparison");
    if (!c.ok()) return Status::Bind("cannot compare dissimilar column types of records");
    common = *c;
  }
  for (const Field& f : common->fields()) {
    if (f.type()->id() == TypeId::kMap || f.type()->is_json()) {
      return Status::Bind("could not identify a comparison function for type {}",
                          SqlTypeName(*f.type()));
    }
  }
  *cost = CastCost(*t[0], *common) + CastCost(*t[1], *common);
  const bool distinct = name == "is_distinct_from" || name == "is_not_distinct_from";
  return Resolution(std::string(name), {common, common}, Boolean(), !distinct);
}

ScalarKernel RecordCompareKernel(std::string op) {
  return [op](const ResolvedFunction&, const Args& args, int64_t n,
              EvalContext& ctx) -> Result<ColumnarValue> {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, args[0].ToArray(n, ctx.pool));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr b, args[1].ToArray(n, ctx.pool));
    FLOE_ASSIGN_OR_RAISE(ElementCompare cmp, MakeElementCompare(*a, *b));
    const bool distinct = op == "is_distinct_from" || op == "is_not_distinct_from";
    BooleanBuilder builder(ctx.pool);
    FLOE_RETURN_NOT_OK(builder.Reserve(n));
    for (int64_t i = 0; i < n; ++i) {
      const bool na = a->IsNull(i), nb = b->IsNull(i);
      if ((na || nb) && !distinct) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      const int c = cmp(i, i);
      bool v = false;
      if (op == "eq" || op == "is_not_distinct_from") v = c == 0;
      if (op == "ne" || op == "is_distinct_from") v = c != 0;
      if (op == "lt") v = c < 0;
      if (op == "le") v = c <= 0;
      if (op == "gt") v = c > 0;
      if (op == "ge") v = c >= 0;
      builder.UnsafeAppend(v);
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
    return ColumnarValue(std::move(out));
  };
}

// ---------------------------------------------------------------------------------------
// record_is_null / record_is_not_null: IS [NOT] NULL of a record. A record IS NULL when it is
// NULL or every field is; IS NOT NULL when it is not NULL and no field is (so a record with
// some NULL fields is neither), as PostgreSQL defines them for row values.

ScalarKernel RecordNullTestKernel(bool is_null) {
  return [is_null](const ResolvedFunction&, const Args& args, int64_t n,
                   EvalContext& ctx) -> Result<ColumnarValue> {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, args[0].ToArray(n, ctx.pool));
    std::vector<ArrayPtr> fields;
    for (int k = 0; k < a->num_children(); ++k) fields.push_back(a->field(k));
    BooleanBuilder builder(ctx.pool);
    FLOE_RETURN_NOT_OK(builder.Reserve(n));
    for (int64_t i = 0; i < n; ++i) {
      bool all_null = true, none_null = true;
      if (a->IsNull(i)) {
        none_null = false;
      } else {
        for (const ArrayPtr& f : fields) {
          if (f->IsNull(i)) {
            none_null = false;
          } else {
            all_null = false;
          }
        }
      }
      builder.UnsafeAppend(is_null ? all_null : none_null);
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
    return ColumnarValue(std::move(out));
  };
}

Result<ResolvedFunction> ResolveRecordNullTest(std::string_view name,
                                               const std::vector<TypePtr>& t, int*) {
  if (t.size() != 1 || !IsStruct(t[0])) return NoSuchFunction(name, t);
  return Resolution(std::string(name), t, Boolean(), /*null_if_any_arg_null=*/false);
}

// ---------------------------------------------------------------------------------------
// record_in: '(a,"b c",,"x""y")'.

bool IsPgSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

Status MalformedRecord(std::string_view text, std::string_view why) {
  return Status::Invalid("malformed record literal: \"{}\" ({})", text, why);
}

// The fields of one record literal: their texts, or nullopt for NULL (an empty, unquoted
// field). Quotes group characters (a doubled quote inside them is one quote) and a
// backslash takes the next character as it is, as PostgreSQL's record_in reads them.
Status SplitRecordText(std::string_view text, int num_fields,
                       std::vector<std::optional<std::string>>* out) {
  out->clear();
  size_t p = 0;
  while (p < text.size() && IsPgSpace(text[p])) ++p;
  if (p >= text.size() || text[p] != '(') return MalformedRecord(text, "missing left parenthesis");
  ++p;
  for (int k = 0; k < num_fields; ++k) {
    if (k > 0) {
      if (p < text.size() && text[p] == ',') {
        ++p;
      } else {
        return MalformedRecord(text, "too few columns");
      }
    }
    if (p < text.size() && (text[p] == ',' || text[p] == ')')) {
      out->emplace_back();
      continue;
    }
    std::string field;
    bool quoted = false;
    while (quoted || p >= text.size() || (text[p] != ',' && text[p] != ')')) {
      if (p >= text.size()) return MalformedRecord(text, "unexpected end of input");
      const char c = text[p++];
      if (c == '\\') {
        if (p >= text.size()) return MalformedRecord(text, "unexpected end of input");
        field.push_back(text[p++]);
      } else if (c == '"') {
        if (!quoted) {
          quoted = true;
        } else if (p < text.size() && text[p] == '"') {
          field.push_back(text[p++]);
        } else {
          quoted = false;
        }
      } else {
        field.push_back(c);
      }
    }
    out->emplace_back(std::move(field));
  }
  if (p >= text.size() || text[p] != ')') return MalformedRecord(text, "too many columns");
  ++p;
  while (p < text.size() && IsPgSpace(text[p])) ++p;
  if (p != text.size()) return MalformedRecord(text, "junk after right parenthesis");
  return Status::OK();
}

// Children of a struct array with the struct's own NULLs made theirs too (a NULL struct's
// fields hold arbitrary values, which a cast must not read).
Result<std::vector<ArrayPtr>> FieldsMaskedByParent(const Array& in, MemoryPool* pool) {
  std::vector<ArrayPtr> fields;
  for (int k = 0; k < in.num_children(); ++k) {
    ArrayPtr f = in.field(k);
    if (in.null_count() > 0 && f->null_count() < f->length()) {
      auto builder = MakeBuilder(f->type(), pool);
      FLOE_RETURN_NOT_OK(builder->Reserve(in.length()));
      for (int64_t i = 0; i < in.length(); ++i) {
        if (in.IsNull(i)) {
          FLOE_RETURN_NOT_OK(builder->AppendNull());
        } else {
          FLOE_RETURN_NOT_OK(builder->AppendArraySlice(*f, i, 1));
        }
      }
      FLOE_ASSIGN_OR_RAISE(f, builder->Finish());
    }
    fields.push_back(std::move(f));
  }
  return fields;
}

}  // namespace

Result<ArrayPtr> ParseRecordTexts(const Array& strings, const TypePtr& to, MemoryPool* pool) {
  const int width = to->num_fields();
  std::vector<std::unique_ptr<BinaryBuilder>> texts;
  for (int k = 0; k < width; ++k) {
    texts.push_back(std::make_unique<BinaryBuilder>(String(), pool));
    FLOE_RETURN_NOT_OK(texts.back()->Reserve(strings.length()));
  }
  std::vector<std::optional<std::string>> fields;
  std::shared_ptr<Buffer> validity;
  if (strings.null_count() > 0) {
    FLOE_ASSIGN_OR_RAISE(validity,
                         Buffer::AllocateZeroed(bit_util::BytesForBits(strings.length()), pool));
  }
  for (int64_t i = 0; i < strings.length(); ++i) {
    if (strings.IsNull(i)) {
      for (auto& t : texts) FLOE_RETURN_NOT_OK(t->AppendNull());
      continue;
    }
    if (validity) bit_util::SetBit(validity->mutable_data(), i);
    FLOE_RETURN_NOT_OK(SplitRecordText(strings.BytesValue(i), width, &fields));
    for (int k = 0; k < width; ++k) {
      const auto& f = fields[static_cast<size_t>(k)];
      FLOE_RETURN_NOT_OK(f ? texts[static_cast<size_t>(k)]->Append(*f)
                           : texts[static_cast<size_t>(k)]->AppendNull());
    }
  }
  std::vector<ArrayPtr> children;
  for (int k = 0; k < width; ++k) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr text, texts[static_cast<size_t>(k)]->Finish());
    FLOE_ASSIGN_OR_RAISE(ArrayPtr value, CastArrayValues(*text, to->field(k).type(), pool));
    children.push_back(std::move(value));
  }
  return Array::Make(to, strings.length(), {validity}, std::move(children), strings.null_count());
}

Result<ArrayPtr> CastRecord(const Array& in, const TypePtr& to, MemoryPool* pool) {
  if (in.num_children() != to->num_fields()) {
    return Status::Invalid("cannot cast a record of {} columns to one of {}", in.num_children(),
                           to->num_fields());
  }
  FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> fields, FieldsMaskedByParent(in, pool));
  std::vector<ArrayPtr> children;
  for (int k = 0; k < to->num_fields(); ++k) {
    FLOE_ASSIGN_OR_RAISE(
        ArrayPtr c, CastArrayValues(*fields[static_cast<size_t>(k)], to->field(k).type(), pool));
    children.push_back(std::move(c));
  }
  std::shared_ptr<Buffer> validity;
  if (in.null_count() > 0) {
    FLOE_ASSIGN_OR_RAISE(validity,
                         Buffer::AllocateZeroed(bit_util::BytesForBits(in.length()), pool));
    bit_util::CopyBitmap(in.validity(), in.offset(), in.length(), validity->mutable_data(), 0);
  }
  return Array::Make(to, in.length(), {validity}, std::move(children), in.null_count());
}

void RegisterRecordFunctions(ScalarFunctionRegistry& r) {
  r.Add({"row", {}, ResolveRow, RowKernel});
  for (const char* op :
       {"eq", "ne", "lt", "le", "gt", "ge", "is_distinct_from", "is_not_distinct_from"}) {
    const std::string name = op;
    r.Add({name, {},
           [name](const std::vector<TypePtr>& t, int* cost) {
             return ResolveRecordComparison(name, t, cost);
           },
           RecordCompareKernel(name)});
  }
  for (const bool is_null : {true, false}) {
    const std::string name = is_null ? "record_is_null" : "record_is_not_null";
    r.Add({name, {},
           [name](const std::vector<TypePtr>& t, int* cost) {
             return ResolveRecordNullTest(name, t, cost);
           },
           RecordNullTestKernel(is_null)});
  }
}

}  // namespace floe::expr::internal
