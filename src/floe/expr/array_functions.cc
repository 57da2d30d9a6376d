// PostgreSQL's arrays over the engine's lists: the text input of array literals, the ARRAY[...]
// constructor, subscripts and slices, comparisons, ||, @>, <@, && and the array functions.
//
// A PostgreSQL array of n dimensions is a list nested n deep (int[] of two dimensions is
// list<list<int32>>), always with lower bounds 1. Where PostgreSQL looks at an array's
// elements in storage order (comparisons, cardinality, array_to_string, @>) these functions
// walk the innermost elements of a value, which lie in one contiguous range of the innermost
// child array.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/batch/value_key.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/comparison_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"
#include "floe/type/list_type.h"

namespace floe::expr::internal {

namespace {

using Args = std::vector<ColumnarValue>;

// ---------------------------------------------------------------------------------------
// Shapes.

// The innermost elements of value i of a list array: leaf values [*begin, *end) and the
// length of each dimension (the first sub-list's at each level).
struct Flat {
  const Array* leaf = nullptr;
  int64_t begin = 0;
  int64_t end = 0;
  std::vector<int64_t> dims;
};

Flat Flatten(const Array& list, int64_t i) {
  Flat f;
  const Array* a = &list;
  int64_t b = i, e = i + 1;
  while (a->type_id() == TypeId::kList) {
    const int64_t nb = e > b ? a->ListBegin(b) : 0;
    const int64_t ne = e > b ? a->ListEnd(e - 1) : 0;
    f.dims.push_back(e > b ? a->ListEnd(b) - a->ListBegin(b) : 0);
    b = nb;
    e = ne;
    a = a->child(0).get();
  }
  f.leaf = a;
  f.begin = b;
  f.end = e;
  // The first dimension is the number of sub-lists of this value itself.
  if (!f.dims.empty()) f.dims[0] = list.ListEnd(i) - list.ListBegin(i);
  return f;
}

// PostgreSQL's dimensions of a flattened value: none when it has no elements.
int Ndims(const Flat& f) { return f.end > f.begin ? static_cast<int>(f.dims.size()) : 0; }

int CompareFlat(const Flat& x, const Flat& y, const ElementCompare& cmp);

}  // namespace

Result<ElementCompare> MakeElementCompare(const Array& a, const Array& b) {
  if (a.type_id() == TypeId::kStruct || a.type_id() == TypeId::kList) {
    if (b.type_id() != a.type_id() || b.num_children() != a.num_children()) {
      return Status::NotSupported("comparison of {} with {}", SqlTypeName(*a.type()),
                                  SqlTypeName(*b.type()));
    }
  }
  if (a.type_id() == TypeId::kStruct) {
    // PostgreSQL's record order: field by field, a NULL field after every value.
    std::vector<ArrayPtr> fields_a, fields_b;
    std::vector<ElementCompare> fields;
    for (int k = 0; k < a.num_children(); ++k) {
      fields_a.push_back(a.field(k));
      fields_b.push_back(b.field(k));
      FLOE_ASSIGN_OR_RAISE(ElementCompare c,
                           MakeElementCompare(*fields_a.back(), *fields_b.back()));
      fields.push_back(std::move(c));
    }
    return ElementCompare([&a, &b, fields_a, fields_b, fields](int64_t i, int64_t j) -> int {
      const bool na = a.IsNull(i), nb = b.IsNull(j);
      if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
      for (const ElementCompare& c : fields) {
        if (const int r = c(i, j); r != 0) return r;
      }
      return 0;
    });
  }
  if (a.type_id() == TypeId::kList) {
    // PostgreSQL's array order (array_cmp) over the innermost elements.
    const Array* leaf_a = &a;
    const Array* leaf_b = &b;
    while (leaf_a->type_id() == TypeId::kList && leaf_b->type_id() == TypeId::kList) {
      leaf_a = leaf_a->child(0).get();
      leaf_b = leaf_b->child(0).get();
    }
    FLOE_ASSIGN_OR_RAISE(ElementCompare leaves, MakeElementCompare(*leaf_a, *leaf_b));
    return ElementCompare([&a, &b, leaves](int64_t i, int64_t j) -> int {
      const bool na = a.IsNull(i), nb = b.IsNull(j);
      if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
      return CompareFlat(Flatten(a, i), Flatten(b, j), leaves);
    });
  }
  if (HasValueKey(*a.type()) && HasValueKey(*b.type())) {
    // Intervals by span and numerics by value, not by their bytes.
    return ElementCompare([&a, &b](int64_t i, int64_t j) -> int {
      const bool na = a.IsNull(i), nb = b.IsNull(j);
      if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
      return CompareByValueKey(*a.type(), a.BytesValue(i), b.BytesValue(j));
    });
  }
  return VisitPhysicalType(a.type_id(), [&]<typename T>(TypeTag<T>) -> Result<ElementCompare> {
    if constexpr (std::is_same_v<T, void>) {
      return Status::NotSupported("comparison of arrays of {}", SqlTypeName(*a.type()));
    } else {
      ArrayReader<T> ra(a), rb(b);
      const bool decimal = a.type_id() == TypeId::kDecimal;
      const Int128 fa =
          decimal ? Pow10(std::max(a.type()->scale(), b.type()->scale()) - a.type()->scale()) : 1;
      const Int128 fb =
          decimal ? Pow10(std::max(a.type()->scale(), b.type()->scale()) - b.type()->scale()) : 1;
      return ElementCompare([&a, &b, ra, rb, fa, fb](int64_t i, int64_t j) -> int {
        (void)fa;  // only decimals use the scale factors (clang warns of the unused captures)
        (void)fb;
        const bool na = a.IsNull(i), nb = b.IsNull(j);
        if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
        const T x = ra[i], y = rb[j];
        if constexpr (std::is_floating_point_v<T>) {
          if (x != x) return y != y ? 0 : 1;
          if (y != y) return -1;
          return (x > y) - (x < y);
        } else if constexpr (std::is_same_v<T, Int128>) {
          const Int128 sx = x * fa, sy = y * fb;
          return (sx > sy) - (sx < sy);
        } else if constexpr (std::is_same_v<T, std::string_view>) {
          const int c = x.compare(y);
          return (c > 0) - (c < 0);
        } else {
          return (x > y) - (x < y);
        }
      });
    }
  });
}

namespace {

// PostgreSQL's array_cmp: the elements in storage order, then the element count, the number
// of dimensions and each dimension's length.
int CompareFlat(const Flat& x, const Flat& y, const ElementCompare& cmp) {
  const int64_t nx = x.end - x.begin, ny = y.end - y.begin;
  for (int64_t k = 0; k < std::min(nx, ny); ++k) {
    const int c = cmp(x.begin + k, y.begin + k);
    if (c != 0) return c;
  }
  if (nx != ny) return nx < ny ? -1 : 1;
  const int dx = Ndims(x), dy = Ndims(y);
  if (dx != dy) return dx < dy ? -1 : 1;
  for (int k = 0; k < dx; ++k) {
    if (x.dims[static_cast<size_t>(k)] != y.dims[static_cast<size_t>(k)]) {
      return x.dims[static_cast<size_t>(k)] < y.dims[static_cast<size_t>(k)] ? -1 : 1;
    }
  }
  return 0;
}

Result<std::vector<ArrayPtr>> ToArrays(const Args& args, int64_t n, MemoryPool* pool) {
  std::vector<ArrayPtr> out;
  out.reserve(args.size());
  for (const ColumnarValue& v : args) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, v.ToArray(n, pool));
    out.push_back(std::move(a));
  }
  return out;
}

// Value i of an integer array as int64 (the resolvers make subscripts and dimensions int64).
int64_t IntAt(const Array& a, int64_t i) { return a.Value<int64_t>(i); }

// ---------------------------------------------------------------------------------------
// Array literals: PostgreSQL's array_in.

Status Malformed(std::string_view text) {
  return Status::Invalid("malformed array literal: \"{}\"", text);
}

bool IsArraySpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

class ArrayTextParser {
 public:
  ArrayTextParser(std::string_view text, int depth) : text_(text), depth_(depth) {}

  // Parses the literal into `builder`, a builder of list^depth<string>.
  Status Parse(ArrayBuilder* builder) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '[') {
      return Status::NotSupported(
          "array literals with explicit bounds are not supported (floe's arrays start at 1): "
          "\"{}\"",
          text_);
    }
    if (pos_ >= text_.size() || text_[pos_] != '{') return Malformed(text_);
    lengths_.assign(static_cast<size_t>(depth_), -1);
    FLOE_RETURN_NOT_OK(ParseList(0, static_cast<ListBuilder*>(builder)));
    SkipSpace();
    if (pos_ != text_.size()) return Malformed(text_);
    return Status::OK();
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && IsArraySpace(text_[pos_])) ++pos_;
  }

  Status ParseList(int level, ListBuilder* builder) {
    ++pos_;  // '{'
    FLOE_RETURN_NOT_OK(builder->Append());
    ArrayBuilder* values = builder->value_builder();
    SkipSpace();
    int64_t count = 0;
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
    } else {
      while (true) {
        SkipSpace();
        if (pos_ >= text_.size()) return Malformed(text_);
        if (level + 1 < depth_) {
          if (text_[pos_] != '{') return Malformed(text_);
          FLOE_RETURN_NOT_OK(ParseList(level + 1, static_cast<ListBuilder*>(values)));
        } else {
          FLOE_RETURN_NOT_OK(ParseElement(static_cast<BinaryBuilder*>(values)));
        }
        ++count;
        SkipSpace();
        if (pos_ >= text_.size()) return Malformed(text_);
        if (text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (text_[pos_] == '}') {
          ++pos_;
          break;
        }
        return Malformed(text_);
      }
    }
    // Sub-arrays of one level all have the same length (PostgreSQL's arrays are
    // rectangular); an empty sub-array is malformed as in PostgreSQL.
    if (level > 0) {
      int64_t& expected = lengths_[static_cast<size_t>(level)];
      if (count == 0 || (expected >= 0 && expected != count)) return Malformed(text_);
      expected = count;
    }
    return Status::OK();
  }

  Status ParseElement(BinaryBuilder* values) {
    std::string value;
    bool quoted = false;
    bool escaped = false;
    if (text_[pos_] == '{') return Malformed(text_);
    if (text_[pos_] == '"') {
      quoted = true;
      ++pos_;
      while (true) {
        if (pos_ >= text_.size()) return Malformed(text_);
        const char c = text_[pos_++];
        if (c == '"') break;
        if (c == '\\') {
          if (pos_ >= text_.size()) return Malformed(text_);
          value.push_back(text_[pos_++]);
        } else {
          value.push_back(c);
        }
      }
    } else {
      // Unquoted: up to ',' or '}', with backslash escapes; trailing white space that was
      // not escaped is dropped.
      size_t keep = 0;
      while (pos_ < text_.size()) {
        const char c = text_[pos_];
        if (c == ',' || c == '}') break;
        if (c == '{' || c == '"') return Malformed(text_);
        ++pos_;
        if (c == '\\') {
          if (pos_ >= text_.size()) return Malformed(text_);
          value.push_back(text_[pos_++]);
          escaped = true;
          keep = value.size();
        } else {
          value.push_back(c);
          if (!IsArraySpace(c)) keep = value.size();
        }
      }
      value.resize(keep);
      if (value.empty() && !escaped) return Malformed(text_);
    }
    if (!quoted && !escaped && value.size() == 4 && (value[0] | 0x20) == 'n' &&
        (value[1] | 0x20) == 'u' && (value[2] | 0x20) == 'l' && (value[3] | 0x20) == 'l') {
      return values->AppendNull();
    }
    return values->Append(value);
  }

  std::string_view text_;
  int depth_;
  size_t pos_ = 0;
  std::vector<int64_t> lengths_;
};

// ---------------------------------------------------------------------------------------
// Resolution helpers.

Status NotAnArray(std::string_view name, const std::vector<TypePtr>& t) {
  return NoSuchFunction(name, t);
}

ResolvedFunction Resolved(std::string name, std::vector<TypePtr> params, TypePtr ret,
                          bool strict = true) {
  return Resolution(std::move(name), std::move(params), std::move(ret), strict);
}

// The array and element types an array and an element are brought to (PostgreSQL's
// anycompatiblearray and anycompatible): the common type of the element and the array's
// elements.
Result<TypePtr> CommonElement(std::string_view name, const TypePtr& list, const TypePtr& element,
                              const std::vector<TypePtr>& t) {
  const TypePtr& e = list->field(0).type();
  if (e->Equals(*element)) return e;
  Result<TypePtr> common = CommonType(e, element, name);
  if (!common.ok()) return NoSuchFunction(name, t);
  return *common;
}

// ---------------------------------------------------------------------------------------
// Kernels.

// ARRAY[a, b, ...]: one list per row. Arrays as elements make a dimension more; they must
// all have the same dimensions ("multidimensional arrays must have array expressions with
// matching dimensions"); when all are empty the result is empty.
Result<ColumnarValue> MakeArrayKernel(const ResolvedFunction& fn, const Args& args, int64_t n,
                                      EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
  const bool nested = fn.return_type->field(0).type()->id() == TypeId::kList;
  ListBuilder builder(fn.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    FLOE_RETURN_NOT_OK(builder.Append());
    if (nested) {
      bool any = false;
      std::vector<int64_t> dims;
      bool first = true;
      for (const ArrayPtr& a : in) {
        if (a->IsNull(i)) {
          return Status::Invalid(
              "multidimensional arrays must have array expressions with matching dimensions");
        }
        Flat f = Flatten(*a, i);
        if (f.end > f.begin) any = true;
        if (first) {
          dims = f.dims;
          first = false;
        } else if (dims != f.dims) {
          return Status::Invalid(
              "multidimensional arrays must have array expressions with matching dimensions");
        }
      }
      if (!any) continue;
      for (const ArrayPtr& a : in) {
        FLOE_RETURN_NOT_OK(builder.value_builder()->AppendArraySlice(*a, i, 1));
      }
      continue;
    }
    for (const ArrayPtr& a : in) {
      FLOE_RETURN_NOT_OK(builder.value_builder()->AppendArraySlice(*a, i, 1));
    }
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  return ColumnarValue(std::move(out));
}

// a[i1]...[ik] with k the array's dimensions: the element, NULL out of range.
Result<ColumnarValue> ElementKernel(const ResolvedFunction& fn, const Args& args, int64_t n,
                                    EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
  auto builder = MakeBuilder(fn.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    const Array* a = in[0].get();
    int64_t row = i;
    bool null = a->IsNull(row);
    for (size_t k = 1; k < in.size() && !null; ++k) {
      if (in[k]->IsNull(i)) {
        null = true;
        break;
      }
      const int64_t index = IntAt(*in[k], i);
      const int64_t len = a->ListEnd(row) - a->ListBegin(row);
      if (index < 1 || index > len) {
        null = true;
        break;
      }
      row = a->ListBegin(row) + index - 1;
      a = a->child(0).get();
      null = a->IsNull(row);
    }
    if (null) {
      FLOE_RETURN_NOT_OK(builder->AppendNull());
    } else {
      FLOE_RETURN_NOT_OK(builder->AppendArraySlice(*a, row, 1));
    }
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder->Finish());
  return ColumnarValue(std::move(out));
}

// Appends the slice [lower, upper] (1-based, clamped) of value `row` of `list`, slicing the
// sub-lists by the next bounds (none left: whole). False when the slice is empty.
Status AppendSlice(const Array& list, int64_t row, const std::vector<int64_t>& bounds, size_t level,
                   ArrayBuilder* out, bool* empty) {
  const int64_t begin = list.ListBegin(row);
  const int64_t len = list.ListEnd(row) - begin;
  int64_t lo = 1, hi = len;
  if (2 * level < bounds.size()) {
    lo = std::max<int64_t>(bounds[2 * level], 1);
    hi = std::min<int64_t>(bounds[2 * level + 1], len);
  }
  if (lo > hi) {
    *empty = true;
    return Status::OK();
  }
  auto* builder = static_cast<ListBuilder*>(out);
  FLOE_RETURN_NOT_OK(builder->Append());
  const Array& child = *list.child(0);
  if (child.type_id() != TypeId::kList || 2 * (level + 1) >= bounds.size()) {
    return builder->value_builder()->AppendArraySlice(child, begin + lo - 1, hi - lo + 1);
  }
  for (int64_t k = lo; k <= hi; ++k) {
    if (child.IsNull(begin + k - 1)) {
      FLOE_RETURN_NOT_OK(builder->value_builder()->AppendNull());
      continue;
    }
    FLOE_RETURN_NOT_OK(
        AppendSlice(child, begin + k - 1, bounds, level + 1, builder->value_builder(), empty));
    if (*empty) return Status::OK();
  }
  return Status::OK();
}

// a[l1:u1]...[lk:uk]: the sub-array, of the same dimensions; empty when a range is.
Result<ColumnarValue> SliceKernel(const ResolvedFunction& fn, const Args& args, int64_t n,
                                  EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
  ListBuilder builder(fn.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(n));
  std::vector<int64_t> bounds(in.size() - 1);
  for (int64_t i = 0; i < n; ++i) {
    bool null = in[0]->IsNull(i);
    for (size_t k = 1; k < in.size() && !null; ++k) {
      null = in[k]->IsNull(i);
      if (!null) bounds[k - 1] = IntAt(*in[k], i);
    }
    if (null) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    // Build into a scratch builder: an empty range anywhere makes the whole slice empty.
    ListBuilder one(fn.return_type, ctx.pool);
    bool empty = false;
    FLOE_RETURN_NOT_OK(AppendSlice(*in[0], i, bounds, 0, &one, &empty));
    if (empty) {
      FLOE_RETURN_NOT_OK(builder.AppendEmptyValues(1));
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr sliced, one.Finish());
    FLOE_RETURN_NOT_OK(builder.AppendArraySlice(*sliced, 0, 1));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  return ColumnarValue(std::move(out));
}

// A kernel computing one int32 (or NULL) per non-NULL array from its flattened value and
// the other arguments (as int64 arrays).
using FlatIntFn = std::function<bool(const Flat&, const std::vector<ArrayPtr>&, int64_t, int32_t*)>;

ScalarKernel FlatIntKernel(FlatIntFn fn) {
  return [fn](const ResolvedFunction&, const Args& args, int64_t n,
              EvalContext& ctx) -> Result<ColumnarValue> {
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
    Int32Builder builder(Int32(), ctx.pool);
    FLOE_RETURN_NOT_OK(builder.Reserve(n));
    for (int64_t i = 0; i < n; ++i) {
      bool null = false;
      for (const ArrayPtr& a : in) null = null || a->IsNull(i);
      int32_t v = 0;
      if (!null) null = !fn(Flatten(*in[0], i), in, i, &v);
      if (null) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
      } else {
        builder.UnsafeAppend(v);
      }
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
    return ColumnarValue(std::move(out));
  };
}

// array_dims: "[1:3][1:2]", NULL for an empty array.
Result<ColumnarValue> DimsKernel(const ResolvedFunction& fn, const Args& args, int64_t n,
                                 EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(ArrayPtr a, args[0].ToArray(n, ctx.pool));
  BinaryBuilder builder(fn.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(n));
  std::string text;
  for (int64_t i = 0; i < n; ++i) {
    if (a->IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    Flat f = Flatten(*a, i);
    if (Ndims(f) == 0) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    text.clear();
    for (int64_t d : f.dims) text += "[1:" + std::to_string(d) + "]";
    FLOE_RETURN_NOT_OK(builder.Append(text));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  return ColumnarValue(std::move(out));
}

// Appends the innermost elements of value i of `list` as they are (for one-dimensional
// concatenation) or its sub-lists (for the outer dimension).
Status AppendElements(const Array& list, int64_t i, ArrayBuilder* values) {
  const int64_t b = list.ListBegin(i), e = list.ListEnd(i);
  if (e > b) return values->AppendArraySlice(*list.child(0), b, e - b);
  return Status::OK();
}

// The dimensions of a value (empty when it has no elements).
std::vector<int64_t> DimsOf(const Array& list, int64_t i) {
  Flat f = Flatten(list, i);
  if (Ndims(f) == 0) return {};
  return f.dims;
}

// array_cat / || over two arrays: PostgreSQL's rules. Either may be NULL (the other is the
// result); arrays of equal dimensions concatenate along the first (their other dimensions
// must match); an array of one dimension less is appended (or prepended) as one element.
Result<ColumnarValue> CatKernel(const ResolvedFunction& fn, const Args& args, int64_t n,
                                EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
  const int da = ListDepth(*in[0]->type()), db = ListDepth(*in[1]->type());
  ListBuilder builder(fn.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(n));
  const int d = ListDepth(*fn.return_type);
  for (int64_t i = 0; i < n; ++i) {
    const bool na = in[0]->IsNull(i), nb = in[1]->IsNull(i);
    if (na && nb) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    std::vector<int64_t> dims_a = na ? std::vector<int64_t>{} : DimsOf(*in[0], i);
    std::vector<int64_t> dims_b = nb ? std::vector<int64_t>{} : DimsOf(*in[1], i);
    if (!dims_a.empty() && !dims_b.empty()) {
      bool ok;
      if (da == db) {
        ok = std::equal(dims_a.begin() + 1, dims_a.end(), dims_b.begin() + 1, dims_b.end());
      } else if (da > db) {
        ok = std::equal(dims_a.begin() + 1, dims_a.end(), dims_b.begin(), dims_b.end());
      } else {
        ok = std::equal(dims_b.begin() + 1, dims_b.end(), dims_a.begin(), dims_a.end());
      }
      if (!ok) return Status::Invalid("cannot concatenate incompatible arrays");
    }
    FLOE_RETURN_NOT_OK(builder.Append());
    ArrayBuilder* values = builder.value_builder();
    for (int side = 0; side < 2; ++side) {
      const Array& a = *in[static_cast<size_t>(side)];
      if (a.IsNull(i) || (side == 0 ? dims_a : dims_b).empty()) continue;
      const int depth = side == 0 ? da : db;
      if (depth == d) {
        FLOE_RETURN_NOT_OK(AppendElements(a, i, values));
      } else {
        FLOE_RETURN_NOT_OK(values->AppendArraySlice(a, i, 1));
      }
    }
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  return ColumnarValue(std::move(out));
}

// array_append(a, e) / array_prepend(e, a): a NULL array counts as empty; only arrays of
// one dimension.
ScalarKernel AppendKernel(bool prepend) {
  return [prepend](const ResolvedFunction& fn, const Args& args, int64_t n,
                   EvalContext& ctx) -> Result<ColumnarValue> {
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
    const Array& list = *in[prepend ? 1 : 0];
    const Array& element = *in[prepend ? 0 : 1];
    ListBuilder builder(fn.return_type, ctx.pool);
    FLOE_RETURN_NOT_OK(builder.Reserve(n));
    for (int64_t i = 0; i < n; ++i) {
      FLOE_RETURN_NOT_OK(builder.Append());
      ArrayBuilder* values = builder.value_builder();
      if (prepend) FLOE_RETURN_NOT_OK(values->AppendArraySlice(element, i, 1));
      if (!list.IsNull(i)) FLOE_RETURN_NOT_OK(AppendElements(list, i, values));
      if (!prepend) FLOE_RETURN_NOT_OK(values->AppendArraySlice(element, i, 1));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
    return ColumnarValue(std::move(out));
  };
}

// Element equality for the search functions: IS NOT DISTINCT FROM.
Result<ElementCompare> SearchCompare(const Array& elements, const Array& needle) {
  return MakeElementCompare(elements, needle);
}

Status OneDimensional(const Array& list, std::string_view what) {
  if (ListDepth(*list.type()) > 1) {
    return Status::NotSupported("{} multidimensional arrays is not supported", what);
  }
  return Status::OK();
}

// array_position(a, e [, start]) and array_positions(a, e).
ScalarKernel PositionKernel(bool all) {
  return [all](const ResolvedFunction& fn, const Args& args, int64_t n,
               EvalContext& ctx) -> Result<ColumnarValue> {
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
    const Array& list = *in[0];
    FLOE_RETURN_NOT_OK(OneDimensional(list, "searching for elements in"));
    const Array& elements = *list.child(0);
    FLOE_ASSIGN_OR_RAISE(ElementCompare cmp, SearchCompare(elements, *in[1]));
    auto builder = MakeBuilder(fn.return_type, ctx.pool);
    FLOE_RETURN_NOT_OK(builder->Reserve(n));
    for (int64_t i = 0; i < n; ++i) {
      if (list.IsNull(i) || (in.size() > 2 && in[2]->IsNull(i))) {
        if (in.size() > 2 && in[2]->IsNull(i) && !list.IsNull(i)) {
          return Status::Invalid("initial position must not be null");
        }
        FLOE_RETURN_NOT_OK(builder->AppendNull());
        continue;
      }
      const int64_t b = list.ListBegin(i), e = list.ListEnd(i);
      int64_t start = in.size() > 2 ? std::max<int64_t>(IntAt(*in[2], i), 1) : 1;
      if (all) {
        auto* lb = static_cast<ListBuilder*>(builder.get());
        FLOE_RETURN_NOT_OK(lb->Append());
        auto* ib = static_cast<Int32Builder*>(lb->value_builder());
        for (int64_t j = b; j < e; ++j) {
          if (cmp(j, i) == 0) FLOE_RETURN_NOT_OK(ib->Append(static_cast<int32_t>(j - b + 1)));
        }
        continue;
      }
      int64_t found = -1;
      for (int64_t j = b + start - 1; j < e; ++j) {
        if (cmp(j, i) == 0) {
          found = j - b + 1;
          break;
        }
      }
      auto* ib = static_cast<Int32Builder*>(builder.get());
      if (found < 0) {
        FLOE_RETURN_NOT_OK(ib->AppendNull());
      } else {
        FLOE_RETURN_NOT_OK(ib->Append(static_cast<int32_t>(found)));
      }
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder->Finish());
    return ColumnarValue(std::move(out));
  };
}

// array_remove(a, e) and array_replace(a, e, r): elements not distinct from e go (or become
// r).
ScalarKernel RemoveKernel(bool replace) {
  return [replace](const ResolvedFunction& fn, const Args& args, int64_t n,
                   EvalContext& ctx) -> Result<ColumnarValue> {
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
    const Array& list = *in[0];
    if (!replace) FLOE_RETURN_NOT_OK(OneDimensional(list, "removing elements from"));
    const Array& elements = *list.child(0);
    if (elements.type_id() == TypeId::kList) {
      return Status::NotSupported("replacing elements in multidimensional arrays is not supported");
    }
    FLOE_ASSIGN_OR_RAISE(ElementCompare cmp, SearchCompare(elements, *in[1]));
    ListBuilder builder(fn.return_type, ctx.pool);
    FLOE_RETURN_NOT_OK(builder.Reserve(n));
    for (int64_t i = 0; i < n; ++i) {
      if (list.IsNull(i)) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      FLOE_RETURN_NOT_OK(builder.Append());
      ArrayBuilder* values = builder.value_builder();
      for (int64_t j = list.ListBegin(i); j < list.ListEnd(i); ++j) {
        if (cmp(j, i) != 0) {
          FLOE_RETURN_NOT_OK(values->AppendArraySlice(elements, j, 1));
        } else if (replace) {
          FLOE_RETURN_NOT_OK(values->AppendArraySlice(*in[2], i, 1));
        }
      }
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
    return ColumnarValue(std::move(out));
  };
}

// array_to_string(a, delimiter [, null_string]): the innermost elements' text forms; NULL
// elements are skipped unless a null string is given.
Result<ColumnarValue> ToStringKernel(const ResolvedFunction& fn, const Args& args, int64_t n,
                                     EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
  BinaryBuilder builder(fn.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(n));
  std::string text;
  for (int64_t i = 0; i < n; ++i) {
    if (in[0]->IsNull(i) || in[1]->IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    const std::string_view delimiter = in[1]->BytesValue(i);
    const bool with_null = in.size() > 2 && !in[2]->IsNull(i);
    Flat f = Flatten(*in[0], i);
    text.clear();
    bool first = true;
    for (int64_t j = f.begin; j < f.end; ++j) {
      if (f.leaf->IsNull(j) && !with_null) continue;
      if (!first) text.append(delimiter);
      first = false;
      if (f.leaf->IsNull(j)) {
        text.append(in[2]->BytesValue(i));
      } else {
        AppendValueText(*f.leaf, j, &text);
      }
    }
    FLOE_RETURN_NOT_OK(builder.Append(text));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  return ColumnarValue(std::move(out));
}

// string_to_array(s, delimiter [, null_string]): PostgreSQL's rules (an empty string gives
// an empty array, a NULL delimiter splits into characters, an empty one gives s whole).
Result<ColumnarValue> StringToArrayKernel(const ResolvedFunction& fn, const Args& args, int64_t n,
                                          EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
  ListBuilder builder(fn.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(n));
  auto* values = static_cast<BinaryBuilder*>(builder.value_builder());
  for (int64_t i = 0; i < n; ++i) {
    if (in[0]->IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    const std::string_view s = in[0]->BytesValue(i);
    const bool with_null = in.size() > 2 && !in[2]->IsNull(i);
    const std::string_view null_text = with_null ? in[2]->BytesValue(i) : std::string_view();
    FLOE_RETURN_NOT_OK(builder.Append());
    auto add = [&](std::string_view part) {
      if (with_null && part == null_text) return values->AppendNull();
      return values->Append(part);
    };
    if (s.empty()) continue;
    if (in[1]->IsNull(i)) {
      for (size_t k = 0; k < s.size();) {
        size_t len = 1;
        while (k + len < s.size() && (static_cast<unsigned char>(s[k + len]) & 0xC0) == 0x80) {
          ++len;
        }
        FLOE_RETURN_NOT_OK(add(s.substr(k, len)));
        k += len;
      }
      continue;
    }
    const std::string_view d = in[1]->BytesValue(i);
    if (d.empty()) {
      FLOE_RETURN_NOT_OK(add(s));
      continue;
    }
    size_t start = 0;
    while (true) {
      const size_t at = s.find(d, start);
      if (at == std::string_view::npos) {
        FLOE_RETURN_NOT_OK(add(s.substr(start)));
        break;
      }
      FLOE_RETURN_NOT_OK(add(s.substr(start, at - start)));
      start = at + d.size();
    }
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  return ColumnarValue(std::move(out));
}

// Comparison of two arrays of one type: eq ... ge and IS [NOT] DISTINCT FROM.
ScalarKernel CompareKernel(std::string op) {
  return [op](const ResolvedFunction&, const Args& args, int64_t n,
              EvalContext& ctx) -> Result<ColumnarValue> {
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
    const bool distinct = op == "is_distinct_from" || op == "is_not_distinct_from";
    BooleanBuilder builder(ctx.pool);
    FLOE_RETURN_NOT_OK(builder.Reserve(n));
    std::optional<ElementCompare> cmp;
    for (int64_t i = 0; i < n; ++i) {
      const bool na = in[0]->IsNull(i), nb = in[1]->IsNull(i);
      if (na || nb) {
        if (!distinct) {
          FLOE_RETURN_NOT_OK(builder.AppendNull());
        } else {
          builder.UnsafeAppend((na != nb) == (op == "is_distinct_from"));
        }
        continue;
      }
      Flat x = Flatten(*in[0], i), y = Flatten(*in[1], i);
      if (!cmp) {
        FLOE_ASSIGN_OR_RAISE(cmp, MakeElementCompare(*x.leaf, *y.leaf));
      }
      const int c = CompareFlat(x, y, *cmp);
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

// @> (contains), <@ (is contained by) and && (overlaps): over the innermost elements, NULL
// elements never match.
enum class SetOp { kContains, kContained, kOverlap };

ScalarKernel SetOpKernel(SetOp op) {
  return [op](const ResolvedFunction&, const Args& args, int64_t n,
              EvalContext& ctx) -> Result<ColumnarValue> {
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
    BooleanBuilder builder(ctx.pool);
    FLOE_RETURN_NOT_OK(builder.Reserve(n));
    std::optional<ElementCompare> cmp;
    for (int64_t i = 0; i < n; ++i) {
      if (in[0]->IsNull(i) || in[1]->IsNull(i)) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      Flat x = Flatten(*in[0], i), y = Flatten(*in[1], i);
      if (op == SetOp::kContained) std::swap(x, y);
      if (!cmp) {
        FLOE_ASSIGN_OR_RAISE(cmp, MakeElementCompare(*x.leaf, *y.leaf));
      }
      auto found_in_x = [&](int64_t j) {
        if (y.leaf->IsNull(j)) return false;
        for (int64_t k = x.begin; k < x.end; ++k) {
          if (!x.leaf->IsNull(k) && (*cmp)(k, j) == 0) return true;
        }
        return false;
      };
      bool v;
      if (op == SetOp::kOverlap) {
        v = false;
        for (int64_t j = y.begin; j < y.end && !v; ++j) v = found_in_x(j);
      } else {
        v = true;
        for (int64_t j = y.begin; j < y.end && v; ++j) v = found_in_x(j);
      }
      builder.UnsafeAppend(v);
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
    return ColumnarValue(std::move(out));
  };
}

// struct_field(s, i, witness): field i of a struct (NULL where the struct is); the witness,
// a NULL of the field's type, gives the call its result type.
Result<ColumnarValue> StructFieldKernel(const ResolvedFunction& fn, const Args& args, int64_t n,
                                        EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(ArrayPtr s, args[0].ToArray(n, ctx.pool));
  if (!args[1].is_scalar() || args[1].scalar().is_null()) {
    return Status::Internal("struct_field needs a constant field index");
  }
  const int32_t index = args[1].scalar().get<int32_t>();
  if (index < 0 || index >= s->num_children()) {
    return Status::Internal("struct_field: no field {} in {}", index, s->type()->ToString());
  }
  ArrayPtr field = s->field(index);
  if (s->null_count() == 0) return ColumnarValue(std::move(field));
  auto builder = MakeBuilder(fn.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    if (s->IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder->AppendNull());
    } else {
      FLOE_RETURN_NOT_OK(builder->AppendArraySlice(*field, i, 1));
    }
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder->Finish());
  return ColumnarValue(std::move(out));
}

// map_value(m, key): the value under `key`, NULL when the map has no such key.
Result<ColumnarValue> MapValueKernel(const ResolvedFunction& fn, const Args& args, int64_t n,
                                     EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> in, ToArrays(args, n, ctx.pool));
  const Array& map = *in[0];
  const Array& entries = *map.child(0);
  ArrayPtr keys = entries.field(0);
  ArrayPtr values = entries.field(1);
  FLOE_ASSIGN_OR_RAISE(ElementCompare cmp, MakeElementCompare(*keys, *in[1]));
  auto builder = MakeBuilder(fn.return_type, ctx.pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t found = -1;
    if (!map.IsNull(i) && !in[1]->IsNull(i)) {
      for (int64_t j = map.ListBegin(i); j < map.ListEnd(i); ++j) {
        if (cmp(j, i) == 0) {
          found = j;
          break;
        }
      }
    }
    if (found < 0) {
      FLOE_RETURN_NOT_OK(builder->AppendNull());
    } else {
      FLOE_RETURN_NOT_OK(builder->AppendArraySlice(*values, found, 1));
    }
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder->Finish());
  return ColumnarValue(std::move(out));
}

// ---------------------------------------------------------------------------------------
// Resolvers.

bool IsList(const TypePtr& t) { return t && t->id() == TypeId::kList; }

// f(array): the array as it is.
ScalarResolver OneArray(std::string name, TypePtr ret, bool strict = true) {
  return [name, ret, strict](const std::vector<TypePtr>& t, int*) -> Result<ResolvedFunction> {
    if (t.size() != 1 || !IsList(t[0])) return NotAnArray(name, t);
    return Resolved(name, t, ret ? ret : t[0], strict);
  };
}

// f(array, integer): lengths and bounds of a dimension.
ScalarResolver ArrayAndInt(std::string name) {
  return [name](const std::vector<TypePtr>& t, int* cost) -> Result<ResolvedFunction> {
    if (t.size() != 2 || !IsList(t[0])) return NotAnArray(name, t);
    int c = 0;
    if (!Accepts(t[1], Int64(), &c)) return NotAnArray(name, t);
    *cost += c;
    return Resolved(name, {t[0], Int64()}, Int32());
  };
}

Result<ResolvedFunction> ResolveMakeArray(const std::vector<TypePtr>& t, int*) {
  if (t.empty()) return Status::Bind("cannot determine type of empty array");
  TypePtr element = t[0];
  for (size_t i = 1; i < t.size(); ++i) {
    if (!element->Equals(*t[i])) {
      FLOE_ASSIGN_OR_RAISE(element, CommonType(element, t[i], "ARRAY"));
    }
  }
  return Resolved("make_array", std::vector<TypePtr>(t.size(), element), List(element), false);
}

// array_element(a, i1, ..., ik) with k the array's dimensions; array_slice(a, l1, u1, ...).
ScalarResolver Subscript(bool slice) {
  return [slice](const std::vector<TypePtr>& t, int* cost) -> Result<ResolvedFunction> {
    const std::string name = slice ? "array_slice" : "array_element";
    if (t.size() < 2 || !IsList(t[0])) return NotAnArray(name, t);
    const int depth = ListDepth(*t[0]);
    const size_t k = t.size() - 1;
    if (slice ? (k % 2 != 0 || static_cast<int>(k / 2) > depth) : static_cast<int>(k) != depth) {
      return Status::Bind("wrong number of array subscripts");
    }
    std::vector<TypePtr> params{t[0]};
    for (size_t i = 1; i < t.size(); ++i) {
      int c = 0;
      if (!Accepts(t[i], Int64(), &c))
        return Status::Bind("array subscript must have type integer");
      *cost += c;
      params.push_back(Int64());
    }
    return Resolved(name, std::move(params), slice ? t[0] : ListLeafType(t[0]));
  };
}

// array_cat(a, b) and || over arrays: arrays of equal dimensions, or of one dimension less.
ScalarResolver Cat(std::string name) {
  return [name](const std::vector<TypePtr>& t, int*) -> Result<ResolvedFunction> {
    if (t.size() != 2 || !IsList(t[0]) || !IsList(t[1])) return NotAnArray(name, t);
    const int da = ListDepth(*t[0]), db = ListDepth(*t[1]);
    if (std::abs(da - db) > 1) return NoSuchFunction(name, t);
    TypePtr la = ListLeafType(t[0]), lb = ListLeafType(t[1]);
    TypePtr leaf = la;
    if (!la->Equals(*lb)) {
      Result<TypePtr> common = CommonType(la, lb, name);
      if (!common.ok()) return NoSuchFunction(name, t);
      leaf = *common;
    }
    auto wrap = [&](int d) {
      TypePtr x = leaf;
      for (int i = 0; i < d; ++i) x = List(x);
      return x;
    };
    return Resolved(name, {wrap(da), wrap(db)}, wrap(std::max(da, db)), false);
  };
}

// array_append(a, e) / array_prepend(e, a) and || between an array and an element.
ScalarResolver AppendResolver(std::string name, bool prepend) {
  return [name, prepend](const std::vector<TypePtr>& t, int*) -> Result<ResolvedFunction> {
    if (t.size() != 2) return NoSuchFunction(name, t);
    const TypePtr& list = t[prepend ? 1 : 0];
    const TypePtr& element = t[prepend ? 0 : 1];
    if (!IsList(list) || IsList(element)) return NoSuchFunction(name, t);
    FLOE_ASSIGN_OR_RAISE(TypePtr e, CommonElement(name, list, element, t));
    if (e->id() == TypeId::kList) return NoSuchFunction(name, t);
    TypePtr l = List(e);
    return Resolved(name, prepend ? std::vector<TypePtr>{e, l} : std::vector<TypePtr>{l, e}, l,
                    false);
  };
}

// f(array, element [, element | integer]): the search functions.
ScalarResolver Search(std::string name, int extra_elements, bool extra_int, TypePtr ret) {
  return [=](const std::vector<TypePtr>& t, int* cost) -> Result<ResolvedFunction> {
    const size_t base = 2 + static_cast<size_t>(extra_elements);
    if (t.size() != base && !(extra_int && t.size() == base + 1)) return NoSuchFunction(name, t);
    if (!IsList(t[0])) return NoSuchFunction(name, t);
    if (ListDepth(*t[0]) > 1) {
      return Status::NotSupported("{} multidimensional arrays is not supported",
                                  name == "array_remove"    ? "removing elements from"
                                  : name == "array_replace" ? "replacing elements in"
                                                            : "searching for elements in");
    }
    TypePtr e = t[0]->field(0).type();
    for (size_t i = 1; i < base; ++i) {
      FLOE_ASSIGN_OR_RAISE(e, CommonElement(name, List(e), t[i], t));
    }
    std::vector<TypePtr> params{List(e)};
    for (size_t i = 1; i < base; ++i) params.push_back(e);
    if (t.size() > base) {
      int c = 0;
      if (!Accepts(t[base], Int64(), &c)) return NoSuchFunction(name, t);
      *cost += c;
      params.push_back(Int64());
    }
    // array_remove and array_replace return the array; NULL only for a NULL array.
    return Resolved(name, std::move(params), ret ? ret : List(e), false);
  };
}

// Comparisons and @> <@ && between two arrays, brought to one type.
ScalarResolver TwoArrays(std::string name, bool strict) {
  return [name, strict](const std::vector<TypePtr>& t, int*) -> Result<ResolvedFunction> {
    if (t.size() != 2 || !IsList(t[0]) || !IsList(t[1])) return NoSuchFunction(name, t);
    TypePtr common = t[0];
    if (!t[0]->Equals(*t[1])) {
      Result<TypePtr> c = CommonType(t[0], t[1], name);
      if (!c.ok()) return NoSuchFunction(name, t);
      common = *c;
    }
    if (ListLeafType(common)->is_nested()) {
      return Status::NotSupported("comparison of arrays of {}", SqlTypeName(*ListLeafType(common)));
    }
    return Resolved(name, {common, common}, Boolean(), strict);
  };
}

// ---------------------------------------------------------------------------------------
// array_fill(template, value, dims [, lbounds]): an array of dims' shape filled with value.
// The binder passes a NULL of the result type first (its depth is the number of dimensions,
// which a floe array has in its type; plan/bind_array.cc BindArrayFill).

constexpr int64_t kMaxArrayElements = 134217727;  // PostgreSQL's MaxArraySize

Result<ResolvedFunction> ResolveArrayFill(const std::vector<TypePtr>& t, int* cost) {
  const TypePtr ints = List(Int32());
  if ((t.size() != 3 && t.size() != 4) || !IsList(t[0]) || !t[2]->Equals(*ints) ||
      (t.size() == 4 && !t[3]->Equals(*ints))) {
    return NoSuchFunction("array_fill", t);
  }
  *cost = 0;
  return Resolution("array_fill", t, t[0], /*null_if_any_arg_null=*/false);
}

// The integers of list `i` of `lists` (a list<int32> array); kInvalidArgument for a NULL
// list or element, with PostgreSQL's messages.
Result<std::vector<int64_t>> FillBounds(const Array& lists, int64_t i) {
  if (lists.IsNull(i)) {
    return Status::Invalid("dimension array or low bound array cannot be null");
  }
  const Array& values = *lists.child(0);
  std::vector<int64_t> out;
  for (int64_t j = lists.ListBegin(i); j < lists.ListEnd(i); ++j) {
    if (values.IsNull(j)) return Status::Invalid("dimension values cannot be null");
    out.push_back(values.Value<int32_t>(j));
  }
  return out;
}

Status AppendFilled(ArrayBuilder* builder, const std::vector<int64_t>& dims, size_t level,
                    const Array& value, int64_t row) {
  auto* list = static_cast<ListBuilder*>(builder);
  FLOE_RETURN_NOT_OK(list->Append());
  for (int64_t k = 0; k < dims[level]; ++k) {
    if (level + 1 < dims.size()) {
      FLOE_RETURN_NOT_OK(AppendFilled(list->value_builder(), dims, level + 1, value, row));
    } else {
      FLOE_RETURN_NOT_OK(list->value_builder()->AppendArraySlice(value, row, 1));
    }
  }
  return Status::OK();
}

Result<ColumnarValue> ArrayFillKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                      EvalContext& ctx) {
  size_t depth = 0;
  for (TypePtr t = f.return_type; IsList(t); t = t->field(0).type()) ++depth;
  FLOE_ASSIGN_OR_RAISE(ArrayPtr value, args[1].ToArray(n, ctx.pool));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr dims, args[2].ToArray(n, ctx.pool));
  ArrayPtr lower;
  if (args.size() == 4) {
    FLOE_ASSIGN_OR_RAISE(lower, args[3].ToArray(n, ctx.pool));
  }
  std::unique_ptr<ArrayBuilder> builder = MakeBuilder(f.return_type, ctx.pool);
  for (int64_t i = 0; i < n; ++i) {
    FLOE_ASSIGN_OR_RAISE(std::vector<int64_t> shape, FillBounds(*dims, i));
    if (lower != nullptr) {
      FLOE_ASSIGN_OR_RAISE(std::vector<int64_t> bounds, FillBounds(*lower, i));
      if (bounds.size() != shape.size()) {
        return Status::Invalid(
            "wrong number of array subscripts: the low bound array has a different size than "
            "the dimensions array");
      }
      for (int64_t b : bounds) {
        if (b != 1) {
          return Status::NotSupported(
              "array_fill with a low bound of {} is not supported (floe's arrays start at 1)", b);
        }
      }
    }
    int64_t total = shape.empty() ? 0 : 1;
    for (int64_t d : shape) {
      if (d < 0 || (d > 0 && total > kMaxArrayElements / d)) {
        return Status::Invalid("array size exceeds the maximum allowed ({})", kMaxArrayElements);
      }
      total *= d;
    }
    if (total == 0) {
      // PostgreSQL's empty array, whatever the dimensions asked for.
      FLOE_RETURN_NOT_OK(static_cast<ListBuilder*>(builder.get())->Append());
      continue;
    }
    if (shape.size() != depth) {
      return Status::Invalid("array_fill: {} dimensions given where the binder expected {}",
                             shape.size(), depth);
    }
    FLOE_RETURN_NOT_OK(AppendFilled(builder.get(), shape, 0, *value, i));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder->Finish());
  return ColumnarValue(std::move(out));
}

}  // namespace

Result<ArrayPtr> ParseArrayTexts(const Array& strings, const TypePtr& to, MemoryPool* pool) {
  const int depth = ListDepth(*to);
  TypePtr text_type = String();
  for (int i = 0; i < depth; ++i) text_type = List(text_type);
  ListBuilder builder(text_type, pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(strings.length()));
  for (int64_t i = 0; i < strings.length(); ++i) {
    if (strings.IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    ArrayTextParser parser(strings.BytesValue(i), depth);
    FLOE_RETURN_NOT_OK(parser.Parse(&builder));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr texts, builder.Finish());
  return CastArrayValues(*texts, to, pool);
}

void RegisterArrayFunctions(ScalarFunctionRegistry& r) {
  r.Add({"array_fill", {}, ResolveArrayFill, ArrayFillKernel});
  r.Add({"make_array", {}, ResolveMakeArray, MakeArrayKernel});
  r.Add({"array_element", {}, Subscript(false), ElementKernel});
  r.Add({"array_slice", {}, Subscript(true), SliceKernel});
  r.Add({"cardinality",
         {},
         OneArray("cardinality", Int32()),
         FlatIntKernel([](const Flat& f, const std::vector<ArrayPtr>&, int64_t, int32_t* v) {
           *v = static_cast<int32_t>(f.end - f.begin);
           return true;
         })});
  r.Add({"array_ndims",
         {},
         OneArray("array_ndims", Int32()),
         FlatIntKernel([](const Flat& f, const std::vector<ArrayPtr>&, int64_t, int32_t* v) {
           *v = Ndims(f);
           return *v > 0;
         })});
  r.Add({"array_dims", {}, OneArray("array_dims", String()), DimsKernel});
  auto dim = [](bool lower, bool upper) {
    return FlatIntKernel(
        [lower, upper](const Flat& f, const std::vector<ArrayPtr>& in, int64_t i, int32_t* v) {
          const int64_t d = IntAt(*in[1], i);
          if (d < 1 || d > Ndims(f)) return false;
          *v = lower ? 1 : static_cast<int32_t>(f.dims[static_cast<size_t>(d - 1)]);
          (void)upper;
          return true;
        });
  };
  r.Add({"array_length", {}, ArrayAndInt("array_length"), dim(false, false)});
  r.Add({"array_lower", {}, ArrayAndInt("array_lower"), dim(true, false)});
  r.Add({"array_upper", {}, ArrayAndInt("array_upper"), dim(false, true)});
  r.Add({"array_cat", {}, Cat("array_cat"), CatKernel});
  r.Add({"array_append", {}, AppendResolver("array_append", false), AppendKernel(false)});
  r.Add({"array_prepend", {}, AppendResolver("array_prepend", true), AppendKernel(true)});
  // ||: array || array, array || element, element || array.
  r.Add({"concat_op", {}, Cat("concat_op"), CatKernel});
  r.Add({"concat_op", {}, AppendResolver("concat_op", false), AppendKernel(false)});
  r.Add({"concat_op", {}, AppendResolver("concat_op", true), AppendKernel(true)});
  r.Add({"array_position", {}, Search("array_position", 0, true, Int32()), PositionKernel(false)});
  r.Add({"array_positions",
         {},
         Search("array_positions", 0, false, List(Int32())),
         PositionKernel(true)});
  r.Add({"array_remove", {}, Search("array_remove", 0, false, nullptr), RemoveKernel(false)});
  r.Add({"array_replace", {}, Search("array_replace", 1, false, nullptr), RemoveKernel(true)});
  r.Add({"array_to_string",
         {},
         [](const std::vector<TypePtr>& t, int* cost) -> Result<ResolvedFunction> {
           if ((t.size() != 2 && t.size() != 3) || !IsList(t[0])) {
             return NoSuchFunction("array_to_string", t);
           }
           std::vector<TypePtr> params{t[0], String()};
           if (t.size() == 3) params.push_back(String());
           int c = 0;
           for (size_t i = 1; i < t.size(); ++i) {
             if (!Accepts(t[i], String(), &c)) return NoSuchFunction("array_to_string", t);
           }
           *cost += c;
           return Resolved("array_to_string", std::move(params), String(), false);
         },
         ToStringKernel});
  r.Add({"string_to_array",
         {},
         [](const std::vector<TypePtr>& t, int* cost) -> Result<ResolvedFunction> {
           if (t.size() != 2 && t.size() != 3) return NoSuchFunction("string_to_array", t);
           int c = 0;
           for (const TypePtr& x : t) {
             if (!Accepts(x, String(), &c)) return NoSuchFunction("string_to_array", t);
           }
           *cost += c;
           return Resolved("string_to_array", std::vector<TypePtr>(t.size(), String()),
                           List(String()), false);
         },
         StringToArrayKernel});
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    r.Add({op, {}, TwoArrays(op, true), CompareKernel(op)});
  }
  for (const char* op : {"is_distinct_from", "is_not_distinct_from"}) {
    r.Add({op, {}, TwoArrays(op, false), CompareKernel(op)});
  }
  r.Add({"op_contains", {}, TwoArrays("op_contains", true), SetOpKernel(SetOp::kContains)});
  r.Add({"op_contained", {}, TwoArrays("op_contained", true), SetOpKernel(SetOp::kContained)});
  r.Add({"op_overlap", {}, TwoArrays("op_overlap", true), SetOpKernel(SetOp::kOverlap)});
  r.Add({"struct_field",
         {},
         [](const std::vector<TypePtr>& t, int*) -> Result<ResolvedFunction> {
           if (t.size() != 3 || t[0]->id() != TypeId::kStruct || t[1]->id() != TypeId::kInt32) {
             return NoSuchFunction("struct_field", t);
           }
           return Resolved("struct_field", t, t[2]);
         },
         StructFieldKernel});
  r.Add({"map_value",
         {},
         [](const std::vector<TypePtr>& t, int*) -> Result<ResolvedFunction> {
           if (t.size() != 2 || t[0]->id() != TypeId::kMap ||
               !t[1]->Equals(*t[0]->field(0).type())) {
             return NoSuchFunction("map_value", t);
           }
           return Resolved("map_value", t, t[0]->field(1).type(), false);
         },
         MapValueKernel});
  // unnest(anyarray) is set-returning: per row, the list of rows it yields (the array).
  r.Add({"unnest",
         {},
         [](const std::vector<TypePtr>& t, int*) -> Result<ResolvedFunction> {
           if (t.size() != 1 || !IsList(t[0])) return NoSuchFunction("unnest", t);
           // PostgreSQL's unnest yields a multidimensional array's elements in storage
           // order; a list of lists would yield the inner lists instead.
           if (IsList(t[0]->field(0).type())) {
             return Status::NotSupported("unnest of a multidimensional array is not supported");
           }
           ResolvedFunction fn = Resolved("unnest", t, t[0]);
           fn.set_returning = true;
           return fn;
         },
         [](const ResolvedFunction&, const Args& args, int64_t,
            EvalContext&) -> Result<ColumnarValue> { return args[0]; },
         /*set_returning=*/true});
}

}  // namespace floe::expr::internal

namespace floe::expr {

int ArrayTextDimensions(std::string_view text) {
  int dims = 0;
  for (char c : text) {
    if (c == '{') {
      ++dims;
    } else if (!internal::IsArraySpace(c)) {
      break;
    }
  }
  return dims;
}

}  // namespace floe::expr
