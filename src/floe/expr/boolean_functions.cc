// Three-valued logic and the SQL predicates and conditional functions: and, or, not,
// is_[not_]null, is_[not_]true, is_[not_]false, in_list, like, ilike, coalesce, nullif,
// greatest, least.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "floe/batch/value_key.h"
#include "floe/expr/aggregate_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"

namespace floe::expr::internal {

namespace {

// Value ordering shared by IN, NULLIF, GREATEST and LEAST (NaN equal to NaN and above
// every number, as PostgreSQL orders floats).
template <typename T>
int Compare3(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return std::isnan(b) ? 0 : 1;
    if (std::isnan(b)) return -1;
  }
  return (a > b) - (a < b);
}

// Bitmaps -------------------------------------------------------------------------------

// The value and validity bits of a boolean argument over n rows, aligned at bit 0.
struct BoolBits {
  std::vector<uint8_t> value;
  std::vector<uint8_t> valid;
};

BoolBits ToBits(const ColumnarValue& v, int64_t n) {
  const size_t bytes = static_cast<size_t>(bit_util::BytesForBits(n));
  BoolBits out;
  if (v.is_scalar()) {
    const bool null = v.scalar().is_null();
    const bool t = !null && v.scalar().get<bool>();
    out.value.assign(bytes, t ? 0xFF : 0);
    out.valid.assign(bytes, null ? 0 : 0xFF);
    return out;
  }
  const Array& a = *v.array();
  out.value.assign(bytes, 0);
  bit_util::CopyBitmap(a.buffer(1)->data(), a.offset(), n, out.value.data(), 0);
  if (a.null_count() == 0) {
    out.valid.assign(bytes, 0xFF);
  } else if (a.validity() == nullptr) {
    out.valid.assign(bytes, 0);
  } else {
    out.valid.assign(bytes, 0);
    bit_util::CopyBitmap(a.validity(), a.offset(), n, out.valid.data(), 0);
  }
  return out;
}

// A boolean array of n rows from value and validity bytes (bits past n are ignored).
Result<ColumnarValue> FromBits(const std::vector<uint8_t>& value, const std::vector<uint8_t>& valid,
                               int64_t n, MemoryPool* pool) {
  FLOE_ASSIGN_OR_RAISE(
      BufferPtr values,
      Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(value.data()), value.size()),
                     pool));
  const int64_t nulls = n - bit_util::CountSetBits(valid.data(), 0, n);
  BufferPtr validity;
  if (nulls > 0) {
    FLOE_ASSIGN_OR_RAISE(
        validity,
        Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(valid.data()), valid.size()),
                       pool));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, Array::Make(Boolean(), n, {validity, values}, {}, nulls));
  return ColumnarValue(std::move(out));
}

// AND / OR -------------------------------------------------------------------------------

template <bool kAnd>
Result<ColumnarValue> AndOrKernel(const ResolvedFunction&, const std::vector<ColumnarValue>& args,
                                  int64_t n, EvalContext& ctx) {
  if (AllScalars(args)) {
    // AND: false wins over NULL wins over true; OR: true wins over NULL over false.
    bool any_null = false;
    for (const ColumnarValue& a : args) {
      if (a.scalar().is_null()) {
        any_null = true;
      } else if (a.scalar().get<bool>() != kAnd) {
        return ColumnarValue(Scalar::Bool(!kAnd));
      }
    }
    return ColumnarValue(any_null ? Scalar::Null(Boolean()) : Scalar::Bool(kAnd));
  }
  const size_t bytes = static_cast<size_t>(bit_util::BytesForBits(n));
  // decided: rows whose value is settled by a false (AND) / true (OR) argument.
  std::vector<uint8_t> decided(bytes, 0), all_known(bytes, 0xFF);
  for (const ColumnarValue& a : args) {
    BoolBits b = ToBits(a, n);
    for (size_t k = 0; k < bytes; ++k) {
      const uint8_t dominant = kAnd ? static_cast<uint8_t>(~b.value[k]) : b.value[k];
      decided[k] |= static_cast<uint8_t>(dominant & b.valid[k]);
      all_known[k] &= b.valid[k];
    }
  }
  std::vector<uint8_t> value(bytes), valid(bytes);
  for (size_t k = 0; k < bytes; ++k) {
    valid[k] = static_cast<uint8_t>(decided[k] | all_known[k]);
    // AND is true where nothing decided false; OR is true where something decided true.
    value[k] = kAnd ? static_cast<uint8_t>(~decided[k] & all_known[k]) : decided[k];
  }
  return FromBits(value, valid, n, ctx.pool);
}

Result<ColumnarValue> NotKernel(const ResolvedFunction& fn, const std::vector<ColumnarValue>& args,
                                int64_t n, EvalContext& ctx) {
  return Map1<bool, bool>(args[0], n, fn.return_type, ctx, [](bool b) { return !b; });
}

// IS [NOT] NULL / TRUE / FALSE --------------------------------------------------------

enum class IsKind { kNull, kNotNull, kTrue, kFalse, kNotTrue, kNotFalse };

template <IsKind kKind>
bool IsResult(bool valid, bool value) {
  switch (kKind) {
    case IsKind::kNull:
      return !valid;
    case IsKind::kNotNull:
      return valid;
    case IsKind::kTrue:
      return valid && value;
    case IsKind::kFalse:
      return valid && !value;
    case IsKind::kNotTrue:
      return !(valid && value);
    case IsKind::kNotFalse:
      return !(valid && !value);
  }
  return false;
}

template <IsKind kKind>
Result<ColumnarValue> IsKernel(const ResolvedFunction&, const std::vector<ColumnarValue>& args,
                               int64_t n, EvalContext& ctx) {
  const ColumnarValue& v = args[0];
  constexpr bool kNullTest = kKind == IsKind::kNull || kKind == IsKind::kNotNull;
  if (v.is_scalar()) {
    const bool valid = !v.scalar().is_null();
    const bool value = !kNullTest && valid && v.scalar().get<bool>();
    return ColumnarValue(Scalar::Bool(IsResult<kKind>(valid, value)));
  }
  const size_t bytes = static_cast<size_t>(bit_util::BytesForBits(n));
  std::vector<uint8_t> valid(bytes, 0xFF), value(bytes, 0);
  const Array& a = *v.array();
  if (a.null_count() == a.length()) {
    std::fill(valid.begin(), valid.end(), 0);
  } else if (a.null_count() > 0) {
    bit_util::CopyBitmap(a.validity(), a.offset(), n, valid.data(), 0);
  }
  if constexpr (!kNullTest) {
    bit_util::CopyBitmap(a.buffer(1)->data(), a.offset(), n, value.data(), 0);
  }
  std::vector<uint8_t> out(bytes), all(bytes, 0xFF);
  for (size_t k = 0; k < bytes; ++k) {
    const uint8_t vd = valid[k], vl = value[k];
    uint8_t r = 0;
    switch (kKind) {
      case IsKind::kNull:
        r = static_cast<uint8_t>(~vd);
        break;
      case IsKind::kNotNull:
        r = vd;
        break;
      case IsKind::kTrue:
        r = static_cast<uint8_t>(vd & vl);
        break;
      case IsKind::kFalse:
        r = static_cast<uint8_t>(vd & ~vl);
        break;
      case IsKind::kNotTrue:
        r = static_cast<uint8_t>(~(vd & vl));
        break;
      case IsKind::kNotFalse:
        r = static_cast<uint8_t>(~(vd & ~vl));
        break;
    }
    out[k] = r;
  }
  return FromBits(out, all, n, ctx.pool);
}

// Row selection shared by COALESCE, NULLIF, GREATEST, LEAST ----------------------------

// Builds the output where row i takes row i of args[choice[i]] (choice -1 = NULL).
Result<ColumnarValue> SelectRows(const std::vector<ColumnarValue>& args,
                                 const std::vector<int>& choice, int64_t n, const TypePtr& type,
                                 MemoryPool* pool) {
  auto builder = MakeBuilder(type, pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(n));
  int64_t start = 0;
  while (start < n) {
    const int c = choice[static_cast<size_t>(start)];
    int64_t end = start + 1;
    while (end < n && choice[static_cast<size_t>(end)] == c) ++end;
    const int64_t len = end - start;
    if (c < 0) {
      FLOE_RETURN_NOT_OK(builder->AppendNulls(len));
    } else if (args[static_cast<size_t>(c)].is_scalar()) {
      const Scalar& s = args[static_cast<size_t>(c)].scalar();
      for (int64_t i = 0; i < len; ++i) FLOE_RETURN_NOT_OK(builder->AppendScalar(s));
    } else {
      FLOE_RETURN_NOT_OK(
          builder->AppendArraySlice(*args[static_cast<size_t>(c)].array(), start, len));
    }
    start = end;
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder->Finish());
  return ColumnarValue(std::move(out));
}

bool IsNullAt(const ColumnarValue& v, int64_t i) {
  return v.is_scalar() ? v.scalar().is_null() : v.array()->IsNull(i);
}

Result<ColumnarValue> CoalesceKernel(const ResolvedFunction& fn,
                                     const std::vector<ColumnarValue>& args, int64_t n,
                                     EvalContext& ctx) {
  if (AllScalars(args)) {
    for (const ColumnarValue& a : args) {
      if (!a.scalar().is_null()) return a;
    }
    return ColumnarValue(Scalar::Null(fn.return_type));
  }
  // The first argument without NULLs (an array, or a non-NULL scalar) settles every row.
  if (!args[0].is_scalar() && args[0].array()->null_count() == 0) return args[0];
  std::vector<int> choice(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < args.size(); ++k) {
      if (!IsNullAt(args[k], i)) {
        choice[static_cast<size_t>(i)] = static_cast<int>(k);
        break;
      }
    }
  }
  return SelectRows(args, choice, n, fn.return_type, ctx.pool);
}

// The values NULLIF, GREATEST, LEAST and IN compare by their bytes: the arguments, or for
// intervals and numerics their keys (batch/value_key.h), of the same width.
Result<std::vector<ColumnarValue>> ComparedValues(const std::vector<ColumnarValue>& args,
                                                  const TypePtr& type, int64_t n,
                                                  EvalContext& ctx) {
  if (!HasValueKey(*type)) return args;
  std::vector<ColumnarValue> keys;
  for (const ColumnarValue& a : args) {
    FLOE_ASSIGN_OR_RAISE(
        ColumnarValue k,
        (Map1<std::string, std::string_view>(a, n, type, ctx, [&type](std::string_view bytes) {
          std::string key(bytes.size(), '\0');
          StoreValueKey(*type, bytes, reinterpret_cast<uint8_t*>(key.data()));
          return key;
        })));
    keys.push_back(std::move(k));
  }
  return keys;
}

Result<ColumnarValue> NullIfKernel(const ResolvedFunction& fn,
                                   const std::vector<ColumnarValue>& args, int64_t n,
                                   EvalContext& ctx) {
  const TypeId id = fn.arg_types[0]->id();
  const bool scalar = AllScalars(args);
  const int64_t rows = scalar ? 1 : n;
  FLOE_ASSIGN_OR_RAISE(std::vector<ColumnarValue> compared,
                       ComparedValues(args, fn.arg_types[0], rows, ctx));
  return VisitPhysicalType(id, [&]<typename T>(TypeTag<T>) -> Result<ColumnarValue> {
    if constexpr (std::is_same_v<T, void>) {
      return Status::NotSupported("NULLIF of {} values", fn.arg_types[0]->ToString());
    } else {
      ValueReader<T> a(compared[0]), b(compared[1]);
      std::vector<int> choice(static_cast<size_t>(rows), 0);
      for (int64_t i = 0; i < rows; ++i) {
        if (a.IsNull(i)) {
          choice[static_cast<size_t>(i)] = -1;
        } else if (!b.IsNull(i) && Compare3<T>(a[i], b[i]) == 0) {
          choice[static_cast<size_t>(i)] = -1;
        }
      }
      if (scalar) {
        return choice[0] < 0 ? ColumnarValue(Scalar::Null(fn.return_type)) : args[0];
      }
      return SelectRows(args, choice, n, fn.return_type, ctx.pool);
    }
  });
}

template <bool kGreatest>
Result<ColumnarValue> ExtremeKernel(const ResolvedFunction& fn,
                                    const std::vector<ColumnarValue>& args, int64_t n,
                                    EvalContext& ctx) {
  const TypeId id = fn.return_type->id();
  const bool scalar = AllScalars(args);
  const int64_t rows = scalar ? 1 : n;
  FLOE_ASSIGN_OR_RAISE(std::vector<ColumnarValue> compared,
                       ComparedValues(args, fn.return_type, rows, ctx));
  return VisitPhysicalType(id, [&]<typename T>(TypeTag<T>) -> Result<ColumnarValue> {
    if constexpr (std::is_same_v<T, void>) {
      return Status::NotSupported("{} of {} values", fn.name, fn.return_type->ToString());
    } else {
      std::vector<ValueReader<T>> readers;
      for (const ColumnarValue& a : compared) readers.emplace_back(a);
      std::vector<int> choice(static_cast<size_t>(rows), -1);
      for (int64_t i = 0; i < rows; ++i) {
        int best = -1;
        T best_value{};
        for (size_t k = 0; k < readers.size(); ++k) {
          if (readers[k].IsNull(i)) continue;
          const T v = readers[k][i];
          const int c = best < 0 ? 1 : Compare3<T>(v, best_value);
          if (best < 0 || (kGreatest ? c > 0 : c < 0)) {
            best = static_cast<int>(k);
            best_value = v;
          }
        }
        choice[static_cast<size_t>(i)] = best;
      }
      if (scalar) {
        return choice[0] < 0 ? ColumnarValue(Scalar::Null(fn.return_type))
                             : args[static_cast<size_t>(choice[0])];
      }
      return SelectRows(args, choice, n, fn.return_type, ctx.pool);
    }
  });
}

// IN ---------------------------------------------------------------------------------------

// A few constant strings of at most 8 bytes each, matched without calling memcmp: each as
// its bytes in one integer (zero past its end) beside its length (TPC-H Q22's country codes,
// Q19's containers and ship modes).
class ShortStringSet {
 public:
  static constexpr size_t kMaxStrings = 16;

  // nullopt when a string is longer than 8 bytes or there are too many.
  static std::optional<ShortStringSet> Make(const std::vector<std::string_view>& strings) {
    if (strings.size() > kMaxStrings) return std::nullopt;
    ShortStringSet set;
    for (std::string_view s : strings) {
      if (s.size() > 8) return std::nullopt;
      set.words_.push_back(Pack(s));
      set.sizes_.push_back(static_cast<uint8_t>(s.size()));
    }
    return set;
  }

  bool Contains(std::string_view v) const {
    if (v.size() > 8) return false;
    const uint64_t word = Pack(v);
    const auto size = static_cast<uint8_t>(v.size());
    bool hit = false;
    for (size_t i = 0; i < words_.size(); ++i) hit |= words_[i] == word && sizes_[i] == size;
    return hit;
  }

 private:
  static uint64_t Pack(std::string_view s) {
    uint64_t word = 0;
    std::memcpy(&word, s.data(), s.size());
    return word;
  }

  std::vector<uint64_t> words_;
  std::vector<uint8_t> sizes_;
};

Result<ColumnarValue> InListKernel(const ResolvedFunction& fn,
                                   const std::vector<ColumnarValue>& args, int64_t n,
                                   EvalContext& ctx) {
  const TypeId id = fn.arg_types[0]->id();
  const bool scalar = AllScalars(args);
  const int64_t rows = scalar ? 1 : n;
  bool constant_list = true;
  for (size_t k = 1; k < args.size(); ++k) constant_list &= args[k].is_scalar();
  FLOE_ASSIGN_OR_RAISE(std::vector<ColumnarValue> compared,
                       ComparedValues(args, fn.arg_types[0], rows, ctx));
  return VisitPhysicalType(id, [&]<typename T>(TypeTag<T>) -> Result<ColumnarValue> {
    if constexpr (std::is_same_v<T, void>) {
      return Status::NotSupported("IN over {} values", fn.arg_types[0]->ToString());
    } else {
      ValueReader<T> value(compared[0]);
      const size_t bytes = static_cast<size_t>(bit_util::BytesForBits(rows));
      std::vector<uint8_t> out(bytes, 0), valid(bytes, 0);
      auto set = [&](int64_t i, bool v) {
        bit_util::SetBit(valid.data(), i);
        if (v) bit_util::SetBit(out.data(), i);
      };
      auto finish = [&]() -> Result<ColumnarValue> {
        if (scalar) {
          if (!bit_util::GetBit(valid.data(), 0)) return ColumnarValue(Scalar::Null(Boolean()));
          return ColumnarValue(Scalar::Bool(bit_util::GetBit(out.data(), 0)));
        }
        return FromBits(out, valid, n, ctx.pool);
      };
      if (constant_list) {
        // A sorted list searched by binary search.
        std::vector<T> list;
        bool list_has_null = false;
        for (size_t k = 1; k < args.size(); ++k) {
          if (compared[k].scalar().is_null()) {
            list_has_null = true;
          } else {
            list.push_back(ScalarValueAs<T>(compared[k].scalar()));
          }
        }
        if constexpr (std::is_same_v<T, std::string_view>) {
          if (std::optional<ShortStringSet> strings = ShortStringSet::Make(list)) {
            for (int64_t i = 0; i < rows; ++i) {
              if (value.IsNull(i)) continue;
              if (strings->Contains(value[i])) {
                set(i, true);
              } else if (!list_has_null) {
                set(i, false);
              }
            }
            return finish();
          }
        }
        auto less = [](const T& a, const T& b) { return Compare3<T>(a, b) < 0; };
        std::sort(list.begin(), list.end(), less);
        for (int64_t i = 0; i < rows; ++i) {
          if (value.IsNull(i)) continue;
          if (std::binary_search(list.begin(), list.end(), value[i], less)) {
            set(i, true);
          } else if (!list_has_null) {
            set(i, false);
          }
        }
      } else {
        std::vector<ValueReader<T>> list;
        for (size_t k = 1; k < compared.size(); ++k) list.emplace_back(compared[k]);
        for (int64_t i = 0; i < rows; ++i) {
          if (value.IsNull(i)) continue;
          const T v = value[i];
          bool found = false, saw_null = false;
          for (const ValueReader<T>& e : list) {
            if (e.IsNull(i)) {
              saw_null = true;
            } else if (Compare3<T>(v, e[i]) == 0) {
              found = true;
              break;
            }
          }
          if (found) {
            set(i, true);
          } else if (!saw_null) {
            set(i, false);
          }
        }
      }
      return finish();
    }
  });
}

// LIKE -------------------------------------------------------------------------------------

// A compiled LIKE pattern. Patterns without '_' match by finding their literal segments
// in order; others use a backtracking matcher over characters (UTF-8 sequences).
class LikeMatcher {
 public:
  static Result<LikeMatcher> Make(std::string_view pattern, std::string_view escape,
                                  bool case_insensitive) {
    if (escape.size() > 1) {
      return Status::Invalid("invalid escape string: ESCAPE must be empty or one character");
    }
    LikeMatcher m;
    m.case_insensitive_ = case_insensitive;
    const bool has_escape = !escape.empty();
    const char esc = has_escape ? escape[0] : '\0';
    std::string literal;
    auto flush = [&]() {
      if (!literal.empty()) {
        m.tokens_.push_back({Token::kLiteral, Fold(literal, case_insensitive)});
        literal.clear();
      }
    };
    for (size_t i = 0; i < pattern.size(); ++i) {
      const char c = pattern[i];
      if (has_escape && c == esc) {
        if (i + 1 == pattern.size()) {
          return Status::Invalid("LIKE pattern must not end with escape character");
        }
        literal.push_back(pattern[++i]);
      } else if (c == '%') {
        flush();
        if (m.tokens_.empty() || m.tokens_.back().kind != Token::kAny) {
          m.tokens_.push_back({Token::kAny, {}});
        }
      } else if (c == '_') {
        flush();
        m.tokens_.push_back({Token::kOne, {}});
        m.has_one_ = true;
      } else {
        literal.push_back(c);
      }
    }
    flush();
    return m;
  }

  bool Matches(std::string_view text) const {
    std::string folded;
    if (case_insensitive_) {
      folded = Fold(text, true);
      text = folded;
    }
    if (!has_one_) return MatchSegments(text);
    return MatchFrom(text, 0, 0);
  }

 private:
  struct Token {
    enum Kind { kLiteral, kAny, kOne } kind;
    std::string text;
  };

  static std::string Fold(std::string_view s, bool fold) {
    std::string out(s);
    if (fold) {
      for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
    }
    return out;
  }

  // Tokens are literals and kAny only.
  bool MatchSegments(std::string_view text) const {
    size_t pos = 0;
    const size_t count = tokens_.size();
    for (size_t t = 0; t < count; ++t) {
      const Token& tok = tokens_[t];
      if (tok.kind == Token::kAny) continue;
      const bool anchored_start = t == 0;
      const bool anchored_end = t + 1 == count;
      if (anchored_start && anchored_end) return text == tok.text;
      if (anchored_start) {
        if (!text.starts_with(tok.text)) return false;
        pos = tok.text.size();
      } else if (anchored_end) {
        return text.size() >= pos + tok.text.size() && text.ends_with(tok.text);
      } else {
        const size_t found = text.find(tok.text, pos);
        if (found == std::string_view::npos) return false;
        pos = found + tok.text.size();
      }
    }
    // The pattern ended with '%' (or was empty, matching only the empty string).
    if (count == 0) return text.empty();
    return tokens_.back().kind == Token::kAny || pos == text.size();
  }

  static size_t CharLength(unsigned char c) {
    if (c < 0x80) return 1;
    if ((c >> 5) == 0x6) return 2;
    if ((c >> 4) == 0xE) return 3;
    if ((c >> 3) == 0x1E) return 4;
    return 1;
  }

  bool MatchFrom(std::string_view text, size_t pos, size_t t) const {
    while (t < tokens_.size()) {
      const Token& tok = tokens_[t];
      if (tok.kind == Token::kLiteral) {
        if (text.substr(pos, tok.text.size()) != tok.text) return false;
        pos += tok.text.size();
        ++t;
      } else if (tok.kind == Token::kOne) {
        if (pos >= text.size()) return false;
        pos += CharLength(static_cast<unsigned char>(text[pos]));
        ++t;
      } else {
        if (t + 1 == tokens_.size()) return true;
        for (size_t p = pos; p <= text.size();) {
          if (MatchFrom(text, p, t + 1)) return true;
          if (p == text.size()) break;
          p += CharLength(static_cast<unsigned char>(text[p]));
        }
        return false;
      }
    }
    return pos == text.size();
  }

  std::vector<Token> tokens_;
  bool has_one_ = false;
  bool case_insensitive_ = false;
};

template <bool kInsensitive>
Result<ColumnarValue> LikeKernel(const ResolvedFunction& fn, const std::vector<ColumnarValue>& args,
                                 int64_t n, EvalContext& ctx) {
  const bool has_escape = args.size() == 3;
  if (args[1].is_scalar() && (!has_escape || args[2].is_scalar())) {
    if (args[1].scalar().is_null() || (has_escape && args[2].scalar().is_null())) {
      return NullResult(Boolean(), args[0].is_scalar(), n, ctx.pool);
    }
    const std::string escape = has_escape ? args[2].scalar().get<std::string>() : "\\";
    FLOE_ASSIGN_OR_RAISE(LikeMatcher m, LikeMatcher::Make(args[1].scalar().get<std::string>(),
                                                          escape, kInsensitive));
    return Map1<bool, std::string_view>(args[0], n, Boolean(), ctx,
                                        [&m](std::string_view s) { return m.Matches(s); });
  }
  if (has_escape) {
    return Map3Fallible<bool, std::string_view, std::string_view, std::string_view>(
        args[0], args[1], args[2], n, Boolean(), ctx,
        [](std::string_view s, std::string_view p, std::string_view e, bool* out) -> Status {
          FLOE_ASSIGN_OR_RAISE(LikeMatcher m, LikeMatcher::Make(p, e, kInsensitive));
          *out = m.Matches(s);
          return Status::OK();
        });
  }
  return Map2Fallible<bool, std::string_view, std::string_view>(
      args[0], args[1], n, Boolean(), ctx,
      [](std::string_view s, std::string_view p, bool* out) -> Status {
        FLOE_ASSIGN_OR_RAISE(LikeMatcher m, LikeMatcher::Make(p, "\\", kInsensitive));
        *out = m.Matches(s);
        return Status::OK();
      });
}

// Resolvers --------------------------------------------------------------------------------

ResolvedFunction Resolved(std::string_view name, std::vector<TypePtr> args, TypePtr ret,
                          bool null_if_any_arg_null) {
  ResolvedFunction fn;
  fn.name = std::string(name);
  fn.arg_types = std::move(args);
  fn.return_type = std::move(ret);
  fn.null_if_any_arg_null = null_if_any_arg_null;
  return fn;
}

ScalarResolver BooleanArgs(std::string name, size_t min_args, size_t max_args, bool strict,
                           std::string display) {
  return [=](const std::vector<TypePtr>& t, int* cost) -> Result<ResolvedFunction> {
    if (t.size() < min_args || t.size() > max_args) {
      return Status::Bind("{} takes {} arguments", name, min_args);
    }
    for (const TypePtr& a : t) {
      if (a->id() != TypeId::kBoolean) {
        return Status::Bind("argument of {} must be type boolean, not type {}", display,
                            SqlTypeName(a));
      }
    }
    *cost = 0;
    return Resolved(name, t, Boolean(), strict);
  };
}

ScalarResolver AnyOneArg(std::string name) {
  return [=](const std::vector<TypePtr>& t, int* cost) -> Result<ResolvedFunction> {
    if (t.size() != 1) return Status::Bind("{} takes one argument", name);
    *cost = 0;
    return Resolved(name, t, Boolean(), false);
  };
}

// All arguments coerced to their common type; the result is that type (or boolean).
ScalarResolver CommonArgs(std::string name, std::string context, size_t min_args, size_t max_args,
                          bool boolean_result) {
  return [=](const std::vector<TypePtr>& t, int* cost) -> Result<ResolvedFunction> {
    if (t.size() < min_args || t.size() > max_args) {
      return Status::Bind("{} takes at least {} arguments", name, min_args);
    }
    TypePtr common = t[0];
    for (size_t i = 1; i < t.size(); ++i) {
      FLOE_ASSIGN_OR_RAISE(common, CommonType(common, t[i], context));
    }
    if (common->is_nested() && name != "coalesce") {
      return Status::Bind("{} of nested types is not supported", name);
    }
    // IN compares character(n) without its trailing spaces, as text.
    if (boolean_result && common->is_bpchar()) common = String();
    int c = 0;
    for (const TypePtr& a : t) c += CastCost(*a, *common);
    *cost = c;
    std::vector<TypePtr> args(t.size(), common);
    return Resolved(name, std::move(args), boolean_result ? Boolean() : common, false);
  };
}

ScalarResolver LikeArgs(std::string name) {
  return [=](const std::vector<TypePtr>& t, int* cost) -> Result<ResolvedFunction> {
    if (t.size() < 2 || t.size() > 3) return Status::Bind("{} takes 2 or 3 arguments", name);
    for (const TypePtr& a : t) {
      if (a->id() != TypeId::kString) return Status::Bind("{} needs text arguments", name);
    }
    *cost = 0;
    return Resolved(name, t, Boolean(), true);
  };
}

constexpr size_t kMany = 1 << 20;

// domain_check(value, ok, message, ...): the value, or an error with the message of the
// first constraint that is false (not NULL: a CHECK passes on NULL, as SQL's do) at the
// first row where one is. The binder builds it for a domain's NOT NULL and CHECK
// constraints (plan/bind_expr.cc ApplyTypeRules).
Result<ResolvedFunction> ResolveDomainCheck(const std::vector<TypePtr>& t, int* cost) {
  if (t.size() < 3 || t.size() % 2 == 0) return NoSuchFunction("domain_check", t);
  for (size_t i = 1; i < t.size(); i += 2) {
    if (t[i]->id() != TypeId::kBoolean || t[i + 1]->id() != TypeId::kString) {
      return NoSuchFunction("domain_check", t);
    }
  }
  *cost = 0;
  std::vector<TypePtr> params = t;
  for (size_t i = 2; i < params.size(); i += 2) params[i] = String();
  return Resolution("domain_check", std::move(params), t[0], /*null_if_any_arg_null=*/false);
}

Result<ColumnarValue> DomainCheckKernel(const ResolvedFunction&,
                                        const std::vector<ColumnarValue>& args, int64_t n,
                                        EvalContext&) {
  for (int64_t row = 0; row < n; ++row) {
    for (size_t k = 1; k + 1 < args.size(); k += 2) {
      const ColumnarValue& ok = args[k];
      const bool is_false = ok.is_scalar()
                                ? !ok.scalar().is_null() && !ok.scalar().get<bool>()
                                : !ok.array()->IsNull(row) && !ok.array()->BoolValue(row);
      if (!is_false) continue;
      const ColumnarValue& message = args[k + 1];
      if (!message.is_scalar() || message.scalar().is_null()) {
        return Status::Internal("domain_check needs constant messages");
      }
      return Status::Constraint("{}", message.scalar().get<std::string>());
    }
  }
  return args[0];
}

}  // namespace

void RegisterBooleanFunctions(ScalarFunctionRegistry& registry) {
  registry.Add({"and", {}, BooleanArgs("and", 2, kMany, false, "AND"), AndOrKernel<true>});
  registry.Add({"or", {}, BooleanArgs("or", 2, kMany, false, "OR"), AndOrKernel<false>});
  registry.Add({"not", {}, BooleanArgs("not", 1, 1, true, "NOT"), NotKernel});
  registry.Add({"domain_check", {}, ResolveDomainCheck, DomainCheckKernel});
  registry.Add({"is_null", {}, AnyOneArg("is_null"), IsKernel<IsKind::kNull>});
  registry.Add({"is_not_null", {}, AnyOneArg("is_not_null"), IsKernel<IsKind::kNotNull>});
  registry.Add(
      {"is_true", {}, BooleanArgs("is_true", 1, 1, false, "IS TRUE"), IsKernel<IsKind::kTrue>});
  registry.Add(
      {"is_false", {}, BooleanArgs("is_false", 1, 1, false, "IS FALSE"), IsKernel<IsKind::kFalse>});
  registry.Add({"is_not_true",
                {},
                BooleanArgs("is_not_true", 1, 1, false, "IS NOT TRUE"),
                IsKernel<IsKind::kNotTrue>});
  registry.Add({"is_not_false",
                {},
                BooleanArgs("is_not_false", 1, 1, false, "IS NOT FALSE"),
                IsKernel<IsKind::kNotFalse>});
  registry.Add({"in_list", {}, CommonArgs("in_list", "IN", 2, kMany, true), InListKernel});
  registry.Add({"like", {}, LikeArgs("like"), LikeKernel<false>});
  registry.Add({"ilike", {}, LikeArgs("ilike"), LikeKernel<true>});
  registry.Add(
      {"coalesce", {}, CommonArgs("coalesce", "COALESCE", 1, kMany, false), CoalesceKernel});
  registry.Add({"nullif", {}, CommonArgs("nullif", "NULLIF", 2, 2, false), NullIfKernel});
  registry.Add(
      {"greatest", {}, CommonArgs("greatest", "GREATEST", 1, kMany, false), ExtremeKernel<true>});
  registry.Add({"least", {}, CommonArgs("least", "LEAST", 1, kMany, false), ExtremeKernel<false>});
}

}  // namespace floe::expr::internal
