// String functions with PostgreSQL's semantics: lengths and positions count characters
// (UTF-8), NULL arguments give NULL except in concat/concat_ws, errors name the function
// and the offending value. Regular expressions run on RE2 (Perl syntax, which shares
// PostgreSQL's \d \w \s classes, non-greedy quantifiers and (?i) flags; no back-references
// or lookaround): matching takes time linear in the input and bounded memory, and works on
// characters (UTF-8), whatever the pattern.

#include <locale.h>
#include <algorithm>
#include <clocale>
#include <cstdint>
#include <cstring>
#include <cwctype>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <re2/re2.h>

#include "floe/batch/builder.h"
#include "floe/batch/utf8.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"
#include "floe/expr/signature_internal.h"

namespace floe::expr::internal {

namespace {

using Args = std::vector<ColumnarValue>;

// ---------------------------------------------------------------------------------------
// UTF-8.

int32_t CharCount(std::string_view s) { return static_cast<int32_t>(CountCodePoints(s)); }

// Byte offset where character `k` (0-based) starts; s.size() when s has <= k characters.
size_t CharOffset(std::string_view s, int64_t k) {
  if (k <= 0) return 0;
  size_t i = 0;
  int64_t seen = 0;
  while (i < s.size()) {
    ++i;
    while (i < s.size() && IsUtf8Continuation(s[i])) ++i;
    if (++seen == k) return i;
  }
  return s.size();
}

// Length in bytes of the character starting at s[i].
size_t CharLen(std::string_view s, size_t i) {
  size_t j = i + 1;
  while (j < s.size() && IsUtf8Continuation(s[j])) ++j;
  return j - i;
}

locale_t Utf8Locale() {
  static const locale_t kLocale = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    if (l == static_cast<locale_t>(nullptr)) {
      l = newlocale(LC_CTYPE_MASK, "en_US.UTF-8", static_cast<locale_t>(nullptr));
    }
    return l;
  }();
  return kLocale;
}

void ChangeCase(std::string_view s, bool upper, std::string* out) {
  out->clear();
  out->reserve(s.size());
  const locale_t loc = Utf8Locale();
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (static_cast<uint8_t>(c) < 0x80) {
      if (upper && c >= 'a' && c <= 'z') {
        out->push_back(static_cast<char>(c - 'a' + 'A'));
      } else if (!upper && c >= 'A' && c <= 'Z') {
        out->push_back(static_cast<char>(c - 'A' + 'a'));
      } else {
        out->push_back(c);
      }
      ++i;
      continue;
    }
    const size_t len = CharLen(s, i);
    if (loc == static_cast<locale_t>(nullptr) || len > 4) {
      out->append(s.substr(i, len));
    } else {
      const wint_t cp = static_cast<wint_t>(DecodeCodePoint(s.substr(i, len)));
      const wint_t mapped = upper ? towupper_l(cp, loc) : towlower_l(cp, loc);
      AppendCodePoint(static_cast<char32_t>(mapped), out);
    }
    i += len;
  }
}

// ---------------------------------------------------------------------------------------
// Resolvers.

TypePtr Text() { return String(); }

ScalarResolver Fixed(std::string name, std::vector<TypePtr> params, TypePtr ret) {
  return Signatures(std::move(name), {std::move(params)}, std::move(ret));
}

// Every argument passed as text; at least `min_args`.
ScalarResolver Variadic(std::string name, size_t min_args) {
  return [name, min_args](const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
    if (args.size() < min_args) return NoSuchFunction(name, args);
    std::vector<TypePtr> params(args.size(), Text());
    for (size_t i = 0; i < args.size(); ++i) {
      const TypePtr& t = args[i];
      if (t == nullptr || t->id() != TypeId::kString) ++*cost;
      // character(n) is printed with its padding, as PostgreSQL's output function gives it.
      if (t != nullptr && t->is_bpchar()) params[i] = t;
    }
    return Resolution(name, std::move(params), Text(), /*null_if_any_arg_null=*/false);
  };
}

// ---------------------------------------------------------------------------------------
// Kernels.

template <typename Fn>
ScalarKernel TextToText(Fn fn) {
  return [fn](const ResolvedFunction& f, const Args& args, int64_t n,
              EvalContext& ctx) -> Result<ColumnarValue> {
    std::string buf;
    return Map1<std::string, std::string_view>(args[0], n, f.return_type, ctx,
                                               [&](std::string_view s) {
                                                 fn(s, &buf);
                                                 return buf;
                                               });
  };
}

Result<std::string_view> Substr(std::string_view s, int64_t start, std::optional<int64_t> count) {
  // PostgreSQL: characters [start, start + count) intersected with [1, length].
  int64_t end = 0;  // exclusive, 1-based; 0 = to the end
  if (count) {
    if (*count < 0) return Status::Invalid("negative substring length not allowed");
    end = start + *count;
    if (end <= 1) return std::string_view();
  }
  const int64_t first = std::max<int64_t>(start, 1);
  const size_t b = CharOffset(s, first - 1);
  if (!count) return s.substr(b);
  const size_t e = CharOffset(s, end - 1);
  return e <= b ? std::string_view() : s.substr(b, e - b);
}

Result<ColumnarValue> SubstrKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                   EvalContext& ctx) {
  if (args.size() == 2) {
    return Map2Fallible<std::string_view, std::string_view, int32_t>(
        args[0], args[1], n, f.return_type, ctx,
        [](std::string_view s, int32_t start, std::string_view* out) -> Status {
          FLOE_ASSIGN_OR_RAISE(*out, Substr(s, start, std::nullopt));
          return Status::OK();
        });
  }
  return Map3Fallible<std::string_view, std::string_view, int32_t, int32_t>(
      args[0], args[1], args[2], n, f.return_type, ctx,
      [](std::string_view s, int32_t start, int32_t count, std::string_view* out) -> Status {
        FLOE_ASSIGN_OR_RAISE(*out, Substr(s, start, count));
        return Status::OK();
      });
}

int32_t StrPos(std::string_view s, std::string_view sub) {
  const size_t at = s.find(sub);
  if (at == std::string_view::npos) return 0;
  return CharCount(s.substr(0, at)) + 1;
}

std::string Replace(std::string_view s, std::string_view from, std::string_view to) {
  if (from.empty()) return std::string(s);
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t at = s.find(from, pos);
    if (at == std::string_view::npos) break;
    out.append(s.substr(pos, at - pos));
    out.append(to);
    pos = at + from.size();
  }
  out.append(s.substr(pos));
  return out;
}

enum class TrimSide { kBoth, kLeft, kRight };

std::string_view TrimChars(std::string_view s, std::string_view chars, TrimSide side) {
  const bool ascii = [&] {
    for (char c : chars) {
      if (static_cast<uint8_t>(c) >= 0x80) return false;
    }
    return true;
  }();
  auto in_set = [&](std::string_view ch) {
    if (ascii) return ch.size() == 1 && chars.find(ch[0]) != std::string_view::npos;
    for (size_t i = 0; i < chars.size();) {
      const size_t len = CharLen(chars, i);
      if (chars.substr(i, len) == ch) return true;
      i += len;
    }
    return false;
  };
  size_t b = 0;
  size_t e = s.size();
  if (side != TrimSide::kRight) {
    while (b < e) {
      const size_t len = CharLen(s, b);
      if (!in_set(s.substr(b, len))) break;
      b += len;
    }
  }
  if (side != TrimSide::kLeft) {
    while (e > b) {
      size_t start = e - 1;
      while (start > b && IsUtf8Continuation(s[start])) --start;
      if (!in_set(s.substr(start, e - start))) break;
      e = start;
    }
  }
  return s.substr(b, e - b);
}

ScalarKernel TrimKernel(TrimSide side) {
  return [side](const ResolvedFunction& f, const Args& args, int64_t n,
                EvalContext& ctx) -> Result<ColumnarValue> {
    if (args.size() == 1) {
      return Map1<std::string_view, std::string_view>(
          args[0], n, f.return_type, ctx,
          [side](std::string_view s) { return TrimChars(s, " ", side); });
    }
    return Map2<std::string_view, std::string_view, std::string_view>(
        args[0], args[1], n, f.return_type, ctx,
        [side](std::string_view s, std::string_view chars) { return TrimChars(s, chars, side); });
  };
}

// concat / concat_ws: NULL arguments are skipped; concat_ws is NULL when the separator is.
ScalarKernel ConcatKernel(bool with_separator) {
  return [with_separator](const ResolvedFunction& f, const Args& args, int64_t n,
                          EvalContext& ctx) -> Result<ColumnarValue> {
    std::vector<ValueReader<std::string_view>> readers;
    readers.reserve(args.size());
    for (const ColumnarValue& a : args) readers.emplace_back(a);
    const bool scalar = AllScalars(args);
    const int64_t rows = scalar ? 1 : n;
    BinaryBuilder builder(f.return_type, ctx.pool);
    FLOE_RETURN_NOT_OK(builder.Reserve(rows));
    std::string buf;
    for (int64_t i = 0; i < rows; ++i) {
      buf.clear();
      size_t k = 0;
      std::string_view sep;
      if (with_separator) {
        if (readers[0].IsNull(i)) {
          FLOE_RETURN_NOT_OK(builder.AppendNull());
          continue;
        }
        sep = readers[0][i];
        k = 1;
      }
      bool first = true;
      for (; k < readers.size(); ++k) {
        if (readers[k].IsNull(i)) continue;
        if (!first) buf.append(sep);
        buf.append(readers[k][i]);
        first = false;
      }
      FLOE_RETURN_NOT_OK(builder.Append(buf));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
    if (scalar) return ColumnarValue(ScalarAt(*out, 0));
    return ColumnarValue(std::move(out));
  };
}

Result<ColumnarValue> SplitPartKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                      EvalContext& ctx) {
  return Map3Fallible<std::string_view, std::string_view, std::string_view, int32_t>(
      args[0], args[1], args[2], n, f.return_type, ctx,
      [](std::string_view s, std::string_view delim, int32_t field,
         std::string_view* out) -> Status {
        if (field == 0) return Status::Invalid("field position must not be zero");
        *out = std::string_view();
        if (s.empty()) return Status::OK();
        if (delim.empty()) {
          if (field == 1 || field == -1) *out = s;
          return Status::OK();
        }
        std::vector<std::string_view> parts;
        size_t pos = 0;
        while (true) {
          const size_t at = s.find(delim, pos);
          if (at == std::string_view::npos) {
            parts.push_back(s.substr(pos));
            break;
          }
          parts.push_back(s.substr(pos, at - pos));
          pos = at + delim.size();
        }
        const int64_t count = static_cast<int64_t>(parts.size());
        const int64_t idx = field > 0 ? field - 1 : count + field;
        if (idx >= 0 && idx < count) *out = parts[static_cast<size_t>(idx)];
        return Status::OK();
      });
}

ScalarKernel LeftRightKernel(bool left) {
  return [left](const ResolvedFunction& f, const Args& args, int64_t n,
                EvalContext& ctx) -> Result<ColumnarValue> {
    return Map2<std::string_view, std::string_view, int32_t>(
        args[0], args[1], n, f.return_type, ctx, [left](std::string_view s, int32_t k) {
          const int64_t len = CharCount(s);
          // left(s, -k): all but the last k characters; right(s, -k): all but the first k.
          const int64_t keep = k >= 0 ? std::min<int64_t>(k, len) : std::max<int64_t>(0, len + k);
          if (left) return s.substr(0, CharOffset(s, keep));
          return s.substr(CharOffset(s, len - keep));
        });
  };
}

// An assignment to a varchar(n) or char(n) column, as PostgreSQL's varchar and bpchar
// input with a typmod: a value of more than n characters is an error unless the characters
// past n are spaces, which are cut; char(n) pads to n characters with spaces.
ScalarKernel AssignCharacterKernel(bool blank_padded) {
  return [blank_padded](const ResolvedFunction& f, const Args& args, int64_t n,
                        EvalContext& ctx) -> Result<ColumnarValue> {
    return Map2Fallible<std::string, std::string_view, int32_t>(
        args[0], args[1], n, f.return_type, ctx,
        [blank_padded](std::string_view s, int32_t length, std::string* out) -> Status {
          const size_t cut = CharOffset(s, length);
          if (cut < s.size() && s.find_first_not_of(' ', cut) != std::string_view::npos) {
            return Status::Invalid("value too long for type {}({})",
                                   blank_padded ? "character" : "character varying", length);
          }
          out->assign(s.substr(0, cut));
          if (blank_padded) out->append(static_cast<size_t>(length - CharCount(*out)), ' ');
          return Status::OK();
        });
  };
}

// An explicit cast to char(n): the first n characters, padded to n with spaces.
Result<ColumnarValue> BpcharTypmodKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                         EvalContext& ctx) {
  return Map2Fallible<std::string, std::string_view, int32_t>(
      args[0], args[1], n, f.return_type, ctx,
      [](std::string_view s, int32_t length, std::string* out) -> Status {
        out->assign(s.substr(0, CharOffset(s, length)));
        const int32_t have = CharCount(*out);
        if (have < length) out->append(static_cast<size_t>(length - have), ' ');
        return Status::OK();
      });
}

// The array forms of the length functions above (char(n)[] and varchar(n)[] values): the
// function applied to the strings at the bottom of the (possibly nested) lists, whose
// offsets and validity stay.
ScalarResolver ListLengthResolver(std::string name, TypePtr element_result) {
  return
      [name, element_result](const std::vector<TypePtr>& t, int* cost) -> Result<ResolvedFunction> {
        if (t.size() != 2 || t[0]->id() != TypeId::kList || t[1]->id() != TypeId::kInt32) {
          return NoSuchFunction(name, t);
        }
        TypePtr leaf = t[0];
        TypePtr result = element_result;
        while (leaf->id() == TypeId::kList) leaf = leaf->field(0).type();
        if (leaf->id() != TypeId::kString || leaf->is_json()) return NoSuchFunction(name, t);
        for (TypePtr level = t[0]; level->id() == TypeId::kList; level = level->field(0).type()) {
          result = List(result);
        }
        *cost = 0;
        return Resolution(name, t, result);
      };
}

Result<ArrayPtr> ApplyToLeaves(const ScalarKernel& element, const std::string& name,
                               const ArrayPtr& in, const TypePtr& to, const ColumnarValue& length,
                               EvalContext& ctx) {
  if (in->type()->id() == TypeId::kList) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr child, ApplyToLeaves(element, name, in->child(0),
                                                       to->field(0).type(), length, ctx));
    return Array::Make(to, in->length(), in->buffers(), {std::move(child)}, in->null_count(),
                       in->offset());
  }
  const ResolvedFunction fn = Resolution(name, {in->type(), Int32()}, to);
  FLOE_ASSIGN_OR_RAISE(ColumnarValue out,
                       element(fn, {ColumnarValue(in), length}, in->length(), ctx));
  return out.ToArray(in->length(), ctx.pool);
}

ScalarKernel OverListLeaves(ScalarKernel element) {
  return [element](const ResolvedFunction& f, const Args& args, int64_t n,
                   EvalContext& ctx) -> Result<ColumnarValue> {
    if (!args[1].is_scalar()) return Status::Internal("{} needs a constant length", f.name);
    FLOE_ASSIGN_OR_RAISE(ArrayPtr lists, args[0].ToArray(n, ctx.pool));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out,
                         ApplyToLeaves(element, f.name, lists, f.return_type, args[1], ctx));
    return ColumnarValue(std::move(out));
  };
}

constexpr int64_t kMaxStringBytes = (int64_t{1} << 30) - 1;

Result<ColumnarValue> RepeatKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                   EvalContext& ctx) {
  return Map2Fallible<std::string, std::string_view, int32_t>(
      args[0], args[1], n, f.return_type, ctx,
      [](std::string_view s, int32_t count, std::string* out) -> Status {
        out->clear();
        if (count <= 0) return Status::OK();
        if (static_cast<int64_t>(s.size()) * count > kMaxStringBytes) {
          return Status::Invalid("requested length too large");
        }
        out->reserve(s.size() * static_cast<size_t>(count));
        for (int32_t i = 0; i < count; ++i) out->append(s);
        return Status::OK();
      });
}

// lpad/rpad(s, length[, fill]) in characters; a longer s is truncated.
Status Pad(std::string_view s, int32_t length, std::string_view fill, bool left, std::string* out) {
  out->clear();
  if (length <= 0) return Status::OK();
  const int64_t len = CharCount(s);
  if (len >= length || fill.empty()) {
    out->append(s.substr(0, CharOffset(s, length)));
    return Status::OK();
  }
  if (static_cast<int64_t>(length) * 4 > kMaxStringBytes) {
    return Status::Invalid("requested length too large");
  }
  std::string padding;
  const int64_t need = length - len;
  const int64_t fill_chars = CharCount(fill);
  for (int64_t k = 0; k < need / fill_chars; ++k) padding.append(fill);
  padding.append(fill.substr(0, CharOffset(fill, need % fill_chars)));
  if (left) {
    out->append(padding);
    out->append(s);
  } else {
    out->append(s);
    out->append(padding);
  }
  return Status::OK();
}

ScalarKernel PadKernel(bool left) {
  return [left](const ResolvedFunction& f, const Args& args, int64_t n,
                EvalContext& ctx) -> Result<ColumnarValue> {
    if (args.size() == 2) {
      return Map2Fallible<std::string, std::string_view, int32_t>(
          args[0], args[1], n, f.return_type, ctx,
          [left](std::string_view s, int32_t len, std::string* out) {
            return Pad(s, len, " ", left, out);
          });
    }
    return Map3Fallible<std::string, std::string_view, int32_t, std::string_view>(
        args[0], args[1], args[2], n, f.return_type, ctx,
        [left](std::string_view s, int32_t len, std::string_view fill, std::string* out) {
          return Pad(s, len, fill, left, out);
        });
  };
}

// ---------------------------------------------------------------------------------------
// MD5 (RFC 1321), for md5(text) and md5(bytea).

std::string Md5Hex(std::string_view input) {
  static constexpr uint32_t kK[64] = {
      0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
      0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
      0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
      0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
      0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
      0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
      0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
      0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
      0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
      0xeb86d391};
  static constexpr int kShift[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                     5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                     4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                     6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
  std::string msg(input);
  const uint64_t bit_len = static_cast<uint64_t>(input.size()) * 8;
  msg.push_back(static_cast<char>(0x80));
  while (msg.size() % 64 != 56) msg.push_back('\0');
  for (int i = 0; i < 8; ++i) msg.push_back(static_cast<char>((bit_len >> (8 * i)) & 0xFF));
  uint32_t a0 = 0x67452301, b0 = 0xefcdab89, c0 = 0x98badcfe, d0 = 0x10325476;
  for (size_t chunk = 0; chunk < msg.size(); chunk += 64) {
    uint32_t m[16];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const uint8_t*>(msg.data() + chunk + 4 * i);
      m[i] =
          uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
    }
    uint32_t a = a0, b = b0, c = c0, d = d0;
    for (int i = 0; i < 64; ++i) {
      uint32_t f;
      int g;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      f = f + a + kK[i] + m[g];
      a = d;
      d = c;
      c = b;
      b = b + ((f << kShift[i]) | (f >> (32 - kShift[i])));
    }
    a0 += a;
    b0 += b;
    c0 += c;
    d0 += d;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint32_t v : {a0, b0, c0, d0}) {
    for (int i = 0; i < 4; ++i) {
      const uint8_t byte = static_cast<uint8_t>(v >> (8 * i));
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Regular expressions.

struct RegexFlags {
  bool icase = false;
  bool global = false;
  bool newline = false;
};

Result<RegexFlags> ParseRegexFlags(std::string_view flags) {
  RegexFlags out;
  for (char c : flags) {
    switch (c) {
      case 'i':
        out.icase = true;
        break;
      case 'c':
        out.icase = false;
        break;
      case 'g':
        out.global = true;
        break;
      case 'n':
      case 'm':
        out.newline = true;
        break;
      case 's':
        out.newline = false;
        break;
      default:
        return Status::Invalid("invalid regular expression option: \"{}\"", std::string(1, c));
    }
  }
  return out;
}

// What a compiled pattern may use (RE2's automata); a pattern that needs more is an error.
constexpr int64_t kMaxRegexMemory = 64 << 20;

// A compiled pattern, recompiled only when the pattern or flags change.
class RegexCache {
 public:
  Result<const re2::RE2*> Get(std::string_view pattern, const RegexFlags& flags) {
    if (regex_ && pattern == pattern_ && flags.icase == flags_.icase &&
        flags.newline == flags_.newline) {
      return regex_.get();
    }
    re2::RE2::Options options;
    options.set_log_errors(false);
    options.set_case_sensitive(!flags.icase);
    // PostgreSQL: '.' matches a newline, and ^ $ match only at the ends of the string,
    // unless the newline-sensitive option ('n') is given.
    options.set_dot_nl(!flags.newline);
    options.set_max_mem(kMaxRegexMemory);
    const std::string text = (flags.newline ? "(?m)" : "") + std::string(pattern);
    auto compiled = std::make_unique<re2::RE2>(re2::StringPiece(text.data(), text.size()), options);
    if (!compiled->ok()) {
      regex_.reset();
      return Status::Invalid("invalid regular expression \"{}\": {}", pattern, compiled->error());
    }
    regex_ = std::move(compiled);
    pattern_ = std::string(pattern);
    flags_ = flags;
    return regex_.get();
  }

 private:
  std::string pattern_;
  RegexFlags flags_;
  std::unique_ptr<re2::RE2> regex_;
};

re2::StringPiece Piece(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }

// The first match of `re` in `s` at or after `pos`: groups[0] the whole match, then the
// capture groups (an unmatched group has a null data()). False when there is none.
bool FindMatch(const re2::RE2& re, std::string_view s, size_t pos,
               std::vector<re2::StringPiece>* groups) {
  groups->assign(static_cast<size_t>(1 + re.NumberOfCapturingGroups()), re2::StringPiece());
  return re.Match(Piece(s), pos, s.size(), re2::RE2::UNANCHORED, groups->data(),
                  static_cast<int>(groups->size()));
}

ScalarKernel RegexMatchKernel(bool force_icase) {
  return [force_icase](const ResolvedFunction& f, const Args& args, int64_t n,
                       EvalContext& ctx) -> Result<ColumnarValue> {
    auto cache = std::make_shared<RegexCache>();
    auto match = [cache](std::string_view s, std::string_view pattern, const RegexFlags& flags,
                         bool* out) -> Status {
      FLOE_ASSIGN_OR_RAISE(const re2::RE2* re, cache->Get(pattern, flags));
      *out = re->Match(Piece(s), 0, s.size(), re2::RE2::UNANCHORED, nullptr, 0);
      return Status::OK();
    };
    if (args.size() == 2) {
      RegexFlags flags;
      flags.icase = force_icase;
      return Map2Fallible<bool, std::string_view, std::string_view>(
          args[0], args[1], n, f.return_type, ctx,
          [&](std::string_view s, std::string_view p, bool* out) {
            return match(s, p, flags, out);
          });
    }
    return Map3Fallible<bool, std::string_view, std::string_view, std::string_view>(
        args[0], args[1], args[2], n, f.return_type, ctx,
        [&](std::string_view s, std::string_view p, std::string_view fl, bool* out) -> Status {
          FLOE_ASSIGN_OR_RAISE(RegexFlags flags, ParseRegexFlags(fl));
          if (flags.global) {
            return Status::Invalid("regexp_like does not support the \"global\" option");
          }
          return match(s, p, flags, out);
        });
  };
}

// regexp_replace's replacement: \1..\9 name groups, \& the whole match, \\ a backslash.
void AppendReplacement(std::string_view replacement, const std::vector<re2::StringPiece>& m,
                       std::string* out) {
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    if (c == '\\' && i + 1 < replacement.size()) {
      const char d = replacement[i + 1];
      if (d >= '1' && d <= '9') {
        const size_t g = static_cast<size_t>(d - '0');
        if (g < m.size() && m[g].data() != nullptr) out->append(m[g].data(), m[g].size());
        ++i;
        continue;
      }
      if (d == '&') {
        out->append(m[0].data(), m[0].size());
        ++i;
        continue;
      }
      if (d == '\\') {
        out->push_back('\\');
        ++i;
        continue;
      }
    }
    out->push_back(c);
  }
}

Result<ColumnarValue> RegexpReplaceKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                          EvalContext& ctx) {
  auto cache = std::make_shared<RegexCache>();
  auto replace = [cache](std::string_view s, std::string_view pattern, std::string_view repl,
                         std::string_view flag_text, std::string* out) -> Status {
    FLOE_ASSIGN_OR_RAISE(RegexFlags flags, ParseRegexFlags(flag_text));
    FLOE_ASSIGN_OR_RAISE(const re2::RE2* re, cache->Get(pattern, flags));
    out->clear();
    std::vector<re2::StringPiece> m;
    size_t pos = 0;
    while (pos <= s.size() && FindMatch(*re, s, pos, &m)) {
      const auto begin = static_cast<size_t>(m[0].data() - s.data());
      out->append(s.substr(pos, begin - pos));
      AppendReplacement(repl, m, out);
      pos = begin + m[0].size();
      if (!flags.global) break;
      if (m[0].empty()) {
        // An empty match: copy one character and continue after it.
        if (pos == s.size()) break;
        const size_t len = CharLen(s, pos);
        out->append(s.substr(pos, len));
        pos += len;
      }
    }
    if (pos < s.size()) out->append(s.substr(pos));
    return Status::OK();
  };
  if (args.size() == 3) {
    return Map3Fallible<std::string, std::string_view, std::string_view, std::string_view>(
        args[0], args[1], args[2], n, f.return_type, ctx,
        [&](std::string_view s, std::string_view p, std::string_view r, std::string* out) {
          return replace(s, p, r, "", out);
        });
  }
  return Map4Fallible<std::string, std::string_view, std::string_view, std::string_view,
                      std::string_view>(
      args[0], args[1], args[2], args[3], n, f.return_type, ctx,
      [&](std::string_view s, std::string_view p, std::string_view r, std::string_view fl,
          std::string* out) { return replace(s, p, r, fl, out); });
}

// The capture groups of a match (the whole match when the pattern has none) appended to
// `groups` as one text list.
Status AppendMatchGroups(const std::vector<re2::StringPiece>& m, ListBuilder* groups) {
  auto* values = static_cast<BinaryBuilder*>(groups->value_builder());
  FLOE_RETURN_NOT_OK(groups->Append());
  for (size_t g = m.size() == 1 ? 0 : 1; g < m.size(); ++g) {
    if (m[g].data() != nullptr) {
      FLOE_RETURN_NOT_OK(values->Append(std::string_view(m[g].data(), m[g].size())));
    } else {
      FLOE_RETURN_NOT_OK(values->AppendNull());
    }
  }
  return Status::OK();
}

// regexp_match(s, pattern[, flags]): the capture groups of the first match as a text
// list; NULL when nothing matches.
Result<ColumnarValue> RegexpMatchKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                        EvalContext& ctx) {
  ValueReader<std::string_view> s_reader(args[0]);
  ValueReader<std::string_view> p_reader(args[1]);
  std::optional<ValueReader<std::string_view>> flag_reader;
  if (args.size() == 3) flag_reader.emplace(args[2]);
  RegexCache cache;
  ListBuilder builder(f.return_type, ctx.pool);
  std::vector<re2::StringPiece> m;
  for (int64_t i = 0; i < n; ++i) {
    if (s_reader.IsNull(i) || p_reader.IsNull(i) || (flag_reader && flag_reader->IsNull(i))) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    RegexFlags flags;
    if (flag_reader) {
      FLOE_ASSIGN_OR_RAISE(flags, ParseRegexFlags((*flag_reader)[i]));
      if (flags.global) {
        return Status::Invalid("regexp_match() does not support the \"global\" option");
      }
    }
    FLOE_ASSIGN_OR_RAISE(const re2::RE2* re, cache.Get(p_reader[i], flags));
    if (!FindMatch(*re, s_reader[i], 0, &m)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
    } else {
      FLOE_RETURN_NOT_OK(AppendMatchGroups(m, &builder));
    }
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
  return ColumnarValue(std::move(out));
}

// regexp_matches(s, pattern[, flags]), set-returning: one row per match (every match with
// the 'g' flag, else the first), each the text list of the match's capture groups; no row
// when nothing matches.
Result<ColumnarValue> RegexpMatchesKernel(const ResolvedFunction& f, const Args& args, int64_t n,
                                          EvalContext& ctx) {
  ValueReader<std::string_view> s_reader(args[0]);
  ValueReader<std::string_view> p_reader(args[1]);
  std::optional<ValueReader<std::string_view>> flag_reader;
  if (args.size() == 3) flag_reader.emplace(args[2]);
  RegexCache cache;
  ListBuilder rows(f.return_type, ctx.pool);
  auto* groups = static_cast<ListBuilder*>(rows.value_builder());
  for (int64_t i = 0; i < n; ++i) {
    if (s_reader.IsNull(i) || p_reader.IsNull(i) || (flag_reader && flag_reader->IsNull(i))) {
      FLOE_RETURN_NOT_OK(rows.AppendNull());
      continue;
    }
    RegexFlags flags;
    if (flag_reader) {
      FLOE_ASSIGN_OR_RAISE(flags, ParseRegexFlags((*flag_reader)[i]));
    }
    const std::string_view pattern = p_reader[i];
    const std::string_view s = s_reader[i];
    FLOE_ASSIGN_OR_RAISE(const re2::RE2* re, cache.Get(pattern, flags));
    FLOE_RETURN_NOT_OK(rows.Append());
    std::vector<re2::StringPiece> m;
    size_t pos = 0;
    while (pos <= s.size() && FindMatch(*re, s, pos, &m)) {
      FLOE_RETURN_NOT_OK(AppendMatchGroups(m, groups));
      if (!flags.global) break;
      const auto begin = static_cast<size_t>(m[0].data() - s.data());
      pos = begin + m[0].size();
      // After an empty match, the next search starts one character further.
      if (m[0].empty()) {
        if (pos == s.size()) break;
        pos += CharLen(s, pos);
      }
    }
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr out, rows.Finish());
  return ColumnarValue(std::move(out));
}

// Whether `pattern` holds two escape-double-quote separators (bracket expressions are not
// told apart here: this only decides whether the first part is written lazy).
bool HasTwoSeparators(std::string_view pattern, std::string_view escape) {
  if (escape.empty()) return false;
  int found = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.substr(i, escape.size()) != escape) continue;
    i += escape.size();
    if (i < pattern.size() && pattern[i] == '"') ++found;
  }
  return found >= 2;
}

// SQL's regular expressions (SIMILAR TO, substring(s similar p escape e)) as a POSIX-style
// pattern for the regex engine, as PostgreSQL's similar_to_escape writes it: the whole string
// must match (^(?: ... )$), % is .*, _ is ., the escape character makes the next one literal,
// and two escape-double-quote separators split the pattern into three parts, written
// ^(?:a){1,1}?(b){1,1}(?:c)$ so that the shortest a and the longest b match and b is the first
// capture group (what substring returns). Parentheses of the pattern do not capture. `escape`
// is empty for none; more than one character is an error. With `lazy_first_part`, the
// quantifiers of the first part are written lazy (*? +? ?? {m,n}?): the regex engine here
// takes "{1,1}?" for the group alone, where PostgreSQL's makes the whole part non-greedy.
Result<std::string> SimilarToRegex(std::string_view pattern, std::string_view escape,
                                   bool lazy_first_part = false) {
  if (!escape.empty() && CharLen(escape, 0) != escape.size()) {
    return Status::Invalid("invalid escape string (it must be empty or one character)");
  }
  const bool lazy_three_parts = lazy_first_part && HasTwoSeparators(pattern, escape);
  std::string out = "^(?:";
  int separators = 0;
  bool after_escape = false;
  // Inside a bracket expression: 1 right after '[', 2 after "[^", 3 further in; 0 outside.
  int bracket = 0;
  for (size_t i = 0; i < pattern.size();) {
    const size_t len = CharLen(pattern, i);
    const std::string_view ch = pattern.substr(i, len);
    i += len;
    if (after_escape) {
      after_escape = false;
      if (ch == "\"" && bracket == 0) {
        if (separators == 2) {
          return Status::Invalid(
              "SQL regular expression may not contain more than two escape-double-quote "
              "separators");
        }
        out += ++separators == 1 ? "){1,1}?(" : "){1,1}(?:";
      } else {
        out += '\\';
        out += ch;
      }
      continue;
    }
    if (!escape.empty() && ch == escape) {
      after_escape = true;
      continue;
    }
    if (bracket > 0) {
      if (ch == "\\") out += '\\';
      out += ch;
      if (ch == "]" && bracket > 1) {
        bracket = 0;
      } else if (ch == "^" && bracket == 1) {
        bracket = 2;
      } else {
        bracket = 3;
      }
      continue;
    }
    // Lazy quantifiers in the first of three parts (PostgreSQL's non-greedy part).
    const bool lazy = lazy_three_parts && separators == 0;
    if (ch == "[") {
      out += '[';
      bracket = 1;
    } else if (ch == "%") {
      out += lazy ? ".*?" : ".*";
    } else if (lazy && (ch == "*" || ch == "+" || ch == "?" || ch == "}")) {
      out += ch;
      out += '?';
    } else if (ch == "_") {
      out += '.';
    } else if (ch == "(") {
      out += "(?:";
    } else if (ch == "\\" || ch == "." || ch == "^" || ch == "$") {
      out += '\\';
      out += ch;
    } else {
      out += ch;
    }
  }
  if (after_escape) out += '\\';
  out += ")$";
  return out;
}

// substring(s from pattern): the part of `s` that the first capture group of the first match
// covers, or the whole match when the pattern has no group; NULL when nothing (or no group)
// matched.
ScalarKernel RegexSubstringKernel(bool sql_regex) {
  return [sql_regex](const ResolvedFunction& f, const Args& args, int64_t n,
                     EvalContext& ctx) -> Result<ColumnarValue> {
    auto cache = std::make_shared<RegexCache>();
    auto substring = [cache](std::string_view s, std::string_view pattern, std::string_view* out,
                             bool* is_null) -> Status {
      FLOE_ASSIGN_OR_RAISE(const re2::RE2* re, cache->Get(pattern, RegexFlags{}));
      std::vector<re2::StringPiece> m;
      if (!FindMatch(*re, s, 0, &m)) {
        *is_null = true;
        return Status::OK();
      }
      const re2::StringPiece& part = m.size() > 1 ? m[1] : m[0];
      if (part.data() == nullptr) {
        *is_null = true;
      } else {
        *out = std::string_view(part.data(), part.size());
      }
      return Status::OK();
    };
    if (!sql_regex) {
      return Map2Nullable<std::string_view, std::string_view, std::string_view>(
          args[0], args[1], n, f.return_type, ctx, substring);
    }
    std::string regex;
    return Map3Nullable<std::string_view, std::string_view, std::string_view, std::string_view>(
        args[0], args[1], args[2], n, f.return_type, ctx,
        [&](std::string_view s, std::string_view pattern, std::string_view escape,
            std::string_view* out, bool* is_null) -> Status {
          FLOE_ASSIGN_OR_RAISE(regex, SimilarToRegex(pattern, escape, /*lazy_first_part=*/true));
          return substring(s, regex, out, is_null);
        });
  };
}

// The pieces of `s` between the matches of `re` (regexp_split_to_array/_table). As in
// PostgreSQL, an empty match at the start or the end of `s`, or right where the previous
// match ended, does not split.
Status AppendSplit(const re2::RE2& re, std::string_view s, BinaryBuilder* pieces) {
  std::vector<re2::StringPiece> m;
  size_t search = 0;
  size_t piece_start = 0;
  size_t prev_end = 0;
  while (search <= s.size() && FindMatch(re, s, search, &m)) {
    const auto begin = static_cast<size_t>(m[0].data() - s.data());
    const size_t end = begin + m[0].size();
    if (begin < end || (begin < s.size() && end > prev_end)) {
      FLOE_RETURN_NOT_OK(pieces->Append(s.substr(piece_start, begin - piece_start)));
      piece_start = end;
    }
    prev_end = end;
    search = end;
    if (begin == end) {
      if (search >= s.size()) break;
      search += CharLen(s, search);
    }
  }
  return pieces->Append(s.substr(piece_start));
}

// regexp_split_to_array(s, pattern[, flags]) and, set-returning, regexp_split_to_table: the
// pieces as one text list per row (a row of NULL input gives NULL, or no rows).
ScalarKernel RegexpSplitKernel(std::string_view name) {
  return [name = std::string(name)](const ResolvedFunction& f, const Args& args, int64_t n,
                                    EvalContext& ctx) -> Result<ColumnarValue> {
    ValueReader<std::string_view> s_reader(args[0]);
    ValueReader<std::string_view> p_reader(args[1]);
    std::optional<ValueReader<std::string_view>> flag_reader;
    if (args.size() == 3) flag_reader.emplace(args[2]);
    RegexCache cache;
    ListBuilder builder(f.return_type, ctx.pool);
    auto* pieces = static_cast<BinaryBuilder*>(builder.value_builder());
    for (int64_t i = 0; i < n; ++i) {
      if (s_reader.IsNull(i) || p_reader.IsNull(i) || (flag_reader && flag_reader->IsNull(i))) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      RegexFlags flags;
      if (flag_reader) {
        FLOE_ASSIGN_OR_RAISE(flags, ParseRegexFlags((*flag_reader)[i]));
        if (flags.global) {
          return Status::Invalid("{}() does not support the \"global\" option", name);
        }
      }
      FLOE_ASSIGN_OR_RAISE(const re2::RE2* re, cache.Get(p_reader[i], flags));
      FLOE_RETURN_NOT_OK(builder.Append());
      FLOE_RETURN_NOT_OK(AppendSplit(*re, s_reader[i], pieces));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder.Finish());
    return ColumnarValue(std::move(out));
  };
}

// translate(s, from, to): characters of `from` become the character at the same position
// of `to`, or are dropped when `to` is shorter.
std::string Translate(std::string_view s, std::string_view from, std::string_view to) {
  std::vector<std::string_view> from_chars;
  std::vector<std::string_view> to_chars;
  for (size_t i = 0; i < from.size(); i += CharLen(from, i)) {
    from_chars.push_back(from.substr(i, CharLen(from, i)));
  }
  for (size_t i = 0; i < to.size(); i += CharLen(to, i)) {
    to_chars.push_back(to.substr(i, CharLen(to, i)));
  }
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t len = CharLen(s, i);
    const std::string_view ch = s.substr(i, len);
    size_t k = 0;
    while (k < from_chars.size() && from_chars[k] != ch) ++k;
    if (k == from_chars.size()) {
      out.append(ch);
    } else if (k < to_chars.size()) {
      out.append(to_chars[k]);
    }
    i += len;
  }
  return out;
}

template <typename T>
std::string ToHex(T v) {
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(v);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kHex[u & 15]);
    u >>= 4;
  } while (u != 0);
  return out;
}

// ---------------------------------------------------------------------------------------
// bytea: PostgreSQL's byte-string forms of the text functions (positions count bytes), its
// encode/decode formats, and float4send/float8send.

// Bytes [start, start + count) of `s`, 1-based, intersected with [1, size] (bytea's substr).
Result<std::string_view> ByteSubstr(std::string_view s, int64_t start,
                                    std::optional<int64_t> count) {
  if (count && *count < 0) return Status::Invalid("negative substring length not allowed");
  const int64_t size = static_cast<int64_t>(s.size());
  const int64_t first = std::clamp<int64_t>(start, 1, size + 1);
  const int64_t end = count ? std::clamp<int64_t>(start + *count, first, size + 1) : size + 1;
  return s.substr(static_cast<size_t>(first - 1), static_cast<size_t>(end - first));
}

std::string_view TrimBytes(std::string_view s, std::string_view bytes, TrimSide side) {
  size_t b = 0;
  size_t e = s.size();
  if (side != TrimSide::kRight) {
    while (b < e && bytes.find(s[b]) != std::string_view::npos) ++b;
  }
  if (side != TrimSide::kLeft) {
    while (e > b && bytes.find(s[e - 1]) != std::string_view::npos) --e;
  }
  return s.substr(b, e - b);
}

// overlay(s placing p from start [for count]): s's first start - 1 units, p, then s from
// start + count (count defaults to p's length); `substr` cuts by characters or bytes.
template <typename SubstrFn>
Status Overlay(std::string_view s, std::string_view placing, int64_t start, int64_t count,
               SubstrFn substr, std::string* out) {
  if (start <= 0) return Status::Invalid("negative substring length not allowed");
  if (start + count > INT32_MAX || start + count < INT32_MIN) {
    return Status::Invalid("integer out of range");
  }
  FLOE_ASSIGN_OR_RAISE(std::string_view head, substr(s, 1, start - 1));
  FLOE_ASSIGN_OR_RAISE(std::string_view tail, substr(s, start + count, std::nullopt));
  out->assign(head);
  out->append(placing);
  out->append(tail);
  return Status::OK();
}

// overlay's kernel: (s, placing, from[, for]) by characters (`bytes` false) or bytes.
ScalarKernel OverlayKernel(bool bytes) {
  return [bytes](const ResolvedFunction& f, const Args& args, int64_t n,
                 EvalContext& ctx) -> Result<ColumnarValue> {
    auto substr = [bytes](std::string_view s, int64_t start, std::optional<int64_t> count) {
      return bytes ? ByteSubstr(s, start, count) : Substr(s, start, count);
    };
    if (args.size() == 3) {
      return Map3Fallible<std::string, std::string_view, std::string_view, int32_t>(
          args[0], args[1], args[2], n, f.return_type, ctx,
          [&](std::string_view s, std::string_view p, int32_t start, std::string* out) {
            const int64_t count = bytes ? static_cast<int64_t>(p.size()) : CharCount(p);
            return Overlay(s, p, start, count, substr, out);
          });
    }
    return Map4Fallible<std::string, std::string_view, std::string_view, int32_t, int32_t>(
        args[0], args[1], args[2], args[3], n, f.return_type, ctx,
        [&](std::string_view s, std::string_view p, int32_t start, int32_t count,
            std::string* out) { return Overlay(s, p, start, count, substr, out); });
  };
}

constexpr std::string_view kBase64Digits =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// encode(bytes, format): 'hex' (lower case), 'base64' (a newline after every 76 characters,
// as PostgreSQL writes it) or 'escape' (NUL and bytes >= 0x80 as \ooo, backslash doubled).
Status EncodeBytes(std::string_view in, std::string_view format, std::string* out) {
  out->clear();
  if (format == "hex") {
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char c : in) {
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
    return Status::OK();
  }
  if (format == "base64") {
    size_t line = 0;
    for (size_t i = 0; i < in.size(); i += 3) {
      uint32_t group = static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << 16;
      if (i + 1 < in.size()) {
        group |= static_cast<uint32_t>(static_cast<unsigned char>(in[i + 1])) << 8;
      }
      if (i + 2 < in.size()) group |= static_cast<unsigned char>(in[i + 2]);
      if (line == 76) {
        out->push_back('\n');
        line = 0;
      }
      out->push_back(kBase64Digits[(group >> 18) & 63]);
      out->push_back(kBase64Digits[(group >> 12) & 63]);
      out->push_back(i + 1 < in.size() ? kBase64Digits[(group >> 6) & 63] : '=');
      out->push_back(i + 2 < in.size() ? kBase64Digits[group & 63] : '=');
      line += 4;
    }
    return Status::OK();
  }
  if (format == "escape") {
    for (unsigned char c : in) {
      if (c == 0 || c >= 0x80) {
        out->push_back('\\');
        out->push_back(static_cast<char>('0' + (c >> 6)));
        out->push_back(static_cast<char>('0' + ((c >> 3) & 7)));
        out->push_back(static_cast<char>('0' + (c & 7)));
      } else if (c == '\\') {
        out->append("\\\\");
      } else {
        out->push_back(static_cast<char>(c));
      }
    }
    return Status::OK();
  }
  return Status::Invalid("unrecognized encoding: \"{}\"", format);
}

// base64 text to bytes: whitespace is skipped, '=' pads the last group of four.
Status DecodeBase64(std::string_view in, std::string* out) {
  uint32_t group = 0;
  int digits = 0;
  int padding = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    uint32_t value = 0;
    if (c == '=') {
      if (padding == 0) {
        if (digits == 2) {
          padding = 2;
        } else if (digits == 3) {
          padding = 1;
        } else {
          return Status::Invalid("unexpected \"=\" while decoding base64 sequence");
        }
      }
    } else {
      const size_t at = kBase64Digits.find(c);
      if (c == '\0' || at == std::string_view::npos) {
        const size_t len = static_cast<unsigned char>(c) < 0x80 ? 1 : CharLen(in, i);
        return Status::Invalid("invalid symbol \"{}\" found while decoding base64 sequence",
                               in.substr(i, len));
      }
      value = static_cast<uint32_t>(at);
    }
    group = (group << 6) | value;
    if (++digits == 4) {
      out->push_back(static_cast<char>((group >> 16) & 255));
      if (padding < 2) out->push_back(static_cast<char>((group >> 8) & 255));
      if (padding < 1) out->push_back(static_cast<char>(group & 255));
      group = 0;
      digits = 0;
    }
  }
  if (digits != 0) return Status::Invalid("invalid base64 end sequence");
  return Status::OK();
}

// decode(text, format): the inverse of EncodeBytes.
Status DecodeBytes(std::string_view in, std::string_view format, std::string* out) {
  out->clear();
  if (format == "hex") return ParseHexBytes(in, out);
  if (format == "base64") return DecodeBase64(in, out);
  if (format == "escape") return ParseEscapedBytes(in, out);
  return Status::Invalid("unrecognized encoding: \"{}\"", format);
}

// float4send/float8send: the IEEE 754 bits, most significant byte first.
template <typename Float>
std::string FloatSend(Float value) {
  using Bits = std::conditional_t<sizeof(Float) == 4, uint32_t, uint64_t>;
  Bits bits;
  std::memcpy(&bits, &value, sizeof(bits));
  std::string out(sizeof(bits), '\0');
  for (size_t i = 0; i < sizeof(bits); ++i) {
    out[i] = static_cast<char>((bits >> (8 * (sizeof(bits) - 1 - i))) & 0xff);
  }
  return out;
}

}  // namespace

void RegisterStringFunctions(ScalarFunctionRegistry& r) {
  const TypePtr t = Text();
  const TypePtr i4 = Int32();

  auto char_length = [](const ResolvedFunction& f, const Args& args, int64_t n,
                        EvalContext& ctx) -> Result<ColumnarValue> {
    return Map1<int32_t, std::string_view>(args[0], n, f.return_type, ctx,
                                           [](std::string_view s) { return CharCount(s); });
  };
  r.Add({"length", {"char_length", "character_length"}, Fixed("length", {t}, i4), char_length});
  r.Add({"octet_length",
         {},
         // character(n)'s padding counts, as in PostgreSQL.
         Signatures("octet_length", {{t}, {Bpchar()}, {Binary()}}, i4),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map1<int32_t, std::string_view>(
               args[0], n, f.return_type, ctx,
               [](std::string_view s) { return static_cast<int32_t>(s.size()); });
         }});
  r.Add({"bit_length",
         {},
         Signatures("bit_length", {{t}, {Binary()}}, i4),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map1<int32_t, std::string_view>(
               args[0], n, f.return_type, ctx,
               [](std::string_view s) { return static_cast<int32_t>(s.size() * 8); });
         }});
  r.Add({"translate",
         {},
         Fixed("translate", {t, t, t}, t),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map3<std::string, std::string_view, std::string_view, std::string_view>(
               args[0], args[1], args[2], n, f.return_type, ctx, Translate);
         }});
  r.Add({"to_hex",
         {},
         [](const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
           if (args.size() == 1 && args[0]->id() == TypeId::kInt64) {
             return Resolution("to_hex", {Int64()}, String());
           }
           if (AcceptsAll(args, {Int32()}, cost)) return Resolution("to_hex", {Int32()}, String());
           return NoSuchFunction("to_hex", args);
         },
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           if (f.arg_types[0]->id() == TypeId::kInt64) {
             return Map1<std::string, int64_t>(args[0], n, f.return_type, ctx, ToHex<int64_t>);
           }
           return Map1<std::string, int32_t>(args[0], n, f.return_type, ctx, ToHex<int32_t>);
         }});
  r.Add({"lower", {}, Fixed("lower", {t}, t), TextToText([](std::string_view s, std::string* out) {
           ChangeCase(s, false, out);
         })});
  r.Add({"upper", {}, Fixed("upper", {t}, t), TextToText([](std::string_view s, std::string* out) {
           ChangeCase(s, true, out);
         })});
  r.Add({"initcap",
         {},
         Fixed("initcap", {t}, t),
         TextToText([](std::string_view s, std::string* out) {
           std::string lower;
           ChangeCase(s, false, &lower);
           out->clear();
           bool word_start = true;
           for (size_t i = 0; i < lower.size();) {
             const size_t len = CharLen(lower, i);
             const std::string_view ch = std::string_view(lower).substr(i, len);
             const bool alnum = len > 1 || std::isalnum(static_cast<unsigned char>(ch[0]));
             if (word_start && alnum) {
               std::string up;
               ChangeCase(ch, true, &up);
               out->append(up);
             } else {
               out->append(ch);
             }
             word_start = !alnum;
             i += len;
           }
         })});
  r.Add({"reverse",
         {},
         Fixed("reverse", {t}, t),
         TextToText([](std::string_view s, std::string* out) {
           out->clear();
           for (size_t e = s.size(); e > 0;) {
             size_t b = e - 1;
             while (b > 0 && IsUtf8Continuation(s[b])) --b;
             out->append(s.substr(b, e - b));
             e = b;
           }
         })});
  r.Add({"md5", {}, Fixed("md5", {t}, t), TextToText([](std::string_view s, std::string* out) {
           *out = Md5Hex(s);
         })});
  r.Add({"ascii",
         {},
         Fixed("ascii", {t}, i4),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map1<int32_t, std::string_view>(
               args[0], n, f.return_type, ctx, [](std::string_view s) -> int32_t {
                 if (s.empty()) return 0;
                 return static_cast<int32_t>(DecodeCodePoint(s.substr(0, CharLen(s, 0))));
               });
         }});
  r.Add({"chr",
         {},
         Fixed("chr", {i4}, t),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map1Fallible<std::string, int32_t>(
               args[0], n, f.return_type, ctx, [](int32_t c, std::string* out) -> Status {
                 if (c == 0) return Status::Invalid("null character not permitted");
                 if (c < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
                   return Status::Invalid("requested character not valid for encoding: {}", c);
                 }
                 out->clear();
                 AppendCodePoint(static_cast<char32_t>(c), out);
                 return Status::OK();
               });
         }});
  r.Add({"substr", {"substring"}, Signatures("substr", {{t, i4}, {t, i4, i4}}, t), SubstrKernel});
  r.Add({"strpos",
         {"position"},
         Fixed("strpos", {t, t}, i4),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map2<int32_t, std::string_view, std::string_view>(args[0], args[1], n,
                                                                    f.return_type, ctx, StrPos);
         }});
  r.Add({"replace",
         {},
         Fixed("replace", {t, t, t}, t),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map3<std::string, std::string_view, std::string_view, std::string_view>(
               args[0], args[1], args[2], n, f.return_type, ctx, Replace);
         }});
  r.Add({"btrim", {"trim"}, Signatures("btrim", {{t}, {t, t}}, t), TrimKernel(TrimSide::kBoth)});
  r.Add({"ltrim", {}, Signatures("ltrim", {{t}, {t, t}}, t), TrimKernel(TrimSide::kLeft)});
  r.Add({"rtrim", {}, Signatures("rtrim", {{t}, {t, t}}, t), TrimKernel(TrimSide::kRight)});
  r.Add({"concat", {}, Variadic("concat", 1), ConcatKernel(false)});
  r.Add({"concat_ws", {}, Variadic("concat_ws", 1), ConcatKernel(true)});
  r.Add({"concat_op",
         {},
         [](const std::vector<TypePtr>& args, int* cost) -> Result<ResolvedFunction> {
           if (args.size() == 2 && args[0] && args[1] && args[0]->id() == TypeId::kBinary &&
               args[1]->id() == TypeId::kBinary) {
             return Resolution("concat_op", {Binary(), Binary()}, Binary());
           }
           if (AcceptsAll(args, {String(), String()}, cost)) {
             return Resolution("concat_op", {String(), String()}, String());
           }
           return Status::Bind("operator does not exist: {} || {}",
                               args.size() > 0 && args[0] ? SqlTypeName(*args[0]) : "unknown",
                               args.size() > 1 && args[1] ? SqlTypeName(*args[1]) : "unknown");
         },
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map2<std::string, std::string_view, std::string_view>(
               args[0], args[1], n, f.return_type, ctx, [](std::string_view a, std::string_view b) {
                 std::string out;
                 out.reserve(a.size() + b.size());
                 out.append(a);
                 out.append(b);
                 return out;
               });
         }});
  r.Add({"starts_with",
         {},
         Fixed("starts_with", {t, t}, Boolean()),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map2<bool, std::string_view, std::string_view>(
               args[0], args[1], n, f.return_type, ctx,
               [](std::string_view s, std::string_view p) { return s.starts_with(p); });
         }});
  r.Add({"split_part", {}, Fixed("split_part", {t, t, i4}, t), SplitPartKernel});
  r.Add({"left", {}, Fixed("left", {t, i4}, t), LeftRightKernel(true)});
  r.Add({"assign_varchar", {}, Fixed("assign_varchar", {t, i4}, t), AssignCharacterKernel(false)});
  r.Add({"assign_bpchar",
         {},
         Fixed("assign_bpchar", {t, i4}, Bpchar()),
         AssignCharacterKernel(true)});
  r.Add(
      {"bpchar_typmod", {}, Fixed("bpchar_typmod", {Bpchar(), i4}, Bpchar()), BpcharTypmodKernel});
  // An explicit cast to varchar(n): left(s, n).
  r.Add({"varchar_typmod", {}, Fixed("varchar_typmod", {t, i4}, t), LeftRightKernel(true)});
  r.Add({"assign_varchar",
         {},
         ListLengthResolver("assign_varchar", t),
         OverListLeaves(AssignCharacterKernel(false))});
  r.Add({"assign_bpchar",
         {},
         ListLengthResolver("assign_bpchar", Bpchar()),
         OverListLeaves(AssignCharacterKernel(true))});
  r.Add({"bpchar_typmod",
         {},
         ListLengthResolver("bpchar_typmod", Bpchar()),
         OverListLeaves(BpcharTypmodKernel)});
  r.Add({"varchar_typmod",
         {},
         ListLengthResolver("varchar_typmod", t),
         OverListLeaves(LeftRightKernel(true))});
  r.Add({"right", {}, Fixed("right", {t, i4}, t), LeftRightKernel(false)});
  r.Add({"repeat", {}, Fixed("repeat", {t, i4}, t), RepeatKernel});
  r.Add({"lpad", {}, Signatures("lpad", {{t, i4}, {t, i4, t}}, t), PadKernel(true)});
  r.Add({"rpad", {}, Signatures("rpad", {{t, i4}, {t, i4, t}}, t), PadKernel(false)});

  r.Add({"regexp_like",
         {},
         Signatures("regexp_like", {{t, t}, {t, t, t}}, Boolean()),
         RegexMatchKernel(false)});
  r.Add({"regex_match", {}, Fixed("regex_match", {t, t}, Boolean()), RegexMatchKernel(false)});
  r.Add({"regex_imatch", {}, Fixed("regex_imatch", {t, t}, Boolean()), RegexMatchKernel(true)});
  r.Add({"regexp_replace",
         {},
         Signatures("regexp_replace", {{t, t, t}, {t, t, t, t}}, t),
         RegexpReplaceKernel});
  r.Add({"regexp_match",
         {},
         Signatures("regexp_match", {{t, t}, {t, t, t}}, List(String())),
         RegexpMatchKernel});
  r.Add({"regexp_matches",
         {},
         Signatures("regexp_matches", {{t, t}, {t, t, t}}, List(List(String()))),
         RegexpMatchesKernel,
         /*set_returning=*/true});
  r.Add({"regexp_split_to_array",
         {},
         Signatures("regexp_split_to_array", {{t, t}, {t, t, t}}, List(String())),
         RegexpSplitKernel("regexp_split_to_array")});
  r.Add({"regexp_split_to_table",
         {},
         Signatures("regexp_split_to_table", {{t, t}, {t, t, t}}, List(String())),
         RegexpSplitKernel("regexp_split_to_table"),
         /*set_returning=*/true});
  // substring(s from pattern) (a POSIX regular expression) and substring(s similar pattern
  // escape e) (SQL's, the same as substring(s from pattern for e)); substring(s from n [for
  // m]) is substr's.
  r.Add({"substring", {}, Fixed("substring", {t, t}, t), RegexSubstringKernel(false)});
  r.Add({"substring", {}, Fixed("substring", {t, t, t}, t), RegexSubstringKernel(true)});
  r.Add({"similar_to_escape",
         {},
         Signatures("similar_to_escape", {{t}, {t, t}}, t),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           if (args.size() == 1) {
             return Map1Fallible<std::string, std::string_view>(
                 args[0], n, f.return_type, ctx, [](std::string_view p, std::string* out) {
                   FLOE_ASSIGN_OR_RAISE(*out, SimilarToRegex(p, "\\"));
                   return Status::OK();
                 });
           }
           return Map2Fallible<std::string, std::string_view, std::string_view>(
               args[0], args[1], n, f.return_type, ctx,
               [](std::string_view p, std::string_view escape, std::string* out) {
                 FLOE_ASSIGN_OR_RAISE(*out, SimilarToRegex(p, escape));
                 return Status::OK();
               });
         }});
  // bytea.
  const TypePtr by = Binary();
  r.Add({"md5", {}, Fixed("md5", {by}, t), TextToText([](std::string_view s, std::string* out) {
           *out = Md5Hex(s);
         })});
  r.Add(
      {"substr",
       {"substring"},
       Signatures("substr", {{by, i4}, {by, i4, i4}}, by),
       [](const ResolvedFunction& f, const Args& args, int64_t n,
          EvalContext& ctx) -> Result<ColumnarValue> {
         if (args.size() == 2) {
           return Map2Fallible<std::string_view, std::string_view, int32_t>(
               args[0], args[1], n, f.return_type, ctx,
               [](std::string_view s, int32_t start, std::string_view* out) -> Status {
                 FLOE_ASSIGN_OR_RAISE(*out, ByteSubstr(s, start, std::nullopt));
                 return Status::OK();
               });
         }
         return Map3Fallible<std::string_view, std::string_view, int32_t, int32_t>(
             args[0], args[1], args[2], n, f.return_type, ctx,
             [](std::string_view s, int32_t start, int32_t count, std::string_view* out) -> Status {
               FLOE_ASSIGN_OR_RAISE(*out, ByteSubstr(s, start, count));
               return Status::OK();
             });
       }});
  for (const auto& entry :
       {std::pair{"btrim", TrimSide::kBoth}, std::pair{"ltrim", TrimSide::kLeft},
        std::pair{"rtrim", TrimSide::kRight}}) {
    // Not a structured binding: clang 14 (the fuzz build's compiler) cannot capture one.
    const char* name = entry.first;
    const TrimSide side = entry.second;
    r.Add({name,
           name == std::string_view("btrim") ? std::vector<std::string>{"trim"}
                                             : std::vector<std::string>{},
           Fixed(name, {by, by}, by),
           [side](const ResolvedFunction& f, const Args& args, int64_t n,
                  EvalContext& ctx) -> Result<ColumnarValue> {
             return Map2<std::string_view, std::string_view, std::string_view>(
                 args[0], args[1], n, f.return_type, ctx,
                 [side](std::string_view s, std::string_view bytes) {
                   return TrimBytes(s, bytes, side);
                 });
           }});
  }
  r.Add({"overlay",
         {},
         Signatures("overlay", {{t, t, i4}, {t, t, i4, i4}}, t),
         OverlayKernel(/*bytes=*/false)});
  r.Add({"overlay",
         {},
         Signatures("overlay", {{by, by, i4}, {by, by, i4, i4}}, by),
         OverlayKernel(/*bytes=*/true)});
  r.Add({"encode",
         {},
         Fixed("encode", {by, t}, t),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map2Fallible<std::string, std::string_view, std::string_view>(
               args[0], args[1], n, f.return_type, ctx, EncodeBytes);
         }});
  r.Add({"decode",
         {},
         Fixed("decode", {t, t}, by),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map2Fallible<std::string, std::string_view, std::string_view>(
               args[0], args[1], n, f.return_type, ctx, DecodeBytes);
         }});
  r.Add({"float4send",
         {},
         Fixed("float4send", {Float32()}, by),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map1<std::string, float>(args[0], n, f.return_type, ctx, FloatSend<float>);
         }});
  r.Add({"float8send",
         {},
         Fixed("float8send", {Float64()}, by),
         [](const ResolvedFunction& f, const Args& args, int64_t n,
            EvalContext& ctx) -> Result<ColumnarValue> {
           return Map1<std::string, double>(args[0], n, f.return_type, ctx, FloatSend<double>);
         }});
}

}  // namespace floe::expr::internal
