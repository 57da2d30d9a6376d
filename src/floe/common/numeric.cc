#include "floe/common/numeric.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace floe {

namespace {

using I128 = __int128;
using U128 = unsigned __int128;
using Kind = NumericValue::Kind;

constexpr std::array<U128, 39> MakePowers() {
  std::array<U128, 39> p{};
  p[0] = 1;
  for (size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 10;
  return p;
}
constexpr std::array<U128, 39> kPow10 = MakePowers();
constexpr U128 kLimit = kPow10[kNumericMaxDigits];  // values stay below 10^38

U128 Magnitude(I128 v) { return v < 0 ? -static_cast<U128>(v) : static_cast<U128>(v); }

int DigitCount(U128 m) {
  int n = 1;
  while (n < 39 && m >= kPow10[static_cast<size_t>(n)]) ++n;
  return n;
}

Status TooManyDigits() {
  return Status::NotSupported(
      "numeric value out of range: floe's numeric holds at most {} significant digits and "
      "scale {}",
      kNumericMaxDigits, kNumericMaxScale);
}

Status DivisionByZero() { return Status::Invalid("division by zero"); }

// A finite result from a magnitude, a sign and a scale, or the range error.
Result<NumericValue> MakeFinite(U128 magnitude, bool negative, int64_t scale) {
  if (magnitude >= kLimit || scale > kNumericMaxScale || scale < 0) return TooManyDigits();
  const I128 v = static_cast<I128>(magnitude);
  return NumericValue::Finite(negative ? -v : v, static_cast<int32_t>(scale));
}

// m * 10^k within the digit limit; false when it leaves it.
bool ScaleUp(U128 m, int64_t k, U128* out) {
  if (m == 0) {
    *out = 0;
    return true;
  }
  // m * 10^k < 10^38 exactly when m < 10^(38 - k).
  if (k > kNumericMaxDigits || m >= kPow10[static_cast<size_t>(kNumericMaxDigits - k)]) {
    return false;
  }
  *out = m * kPow10[static_cast<size_t>(k)];
  return true;
}

// 256-bit unsigned arithmetic for the products and quotients that leave 128 bits.
struct U256 {
  U128 hi = 0;
  U128 lo = 0;
};

U256 Multiply(U128 a, U128 b) {
  const uint64_t a0 = static_cast<uint64_t>(a), a1 = static_cast<uint64_t>(a >> 64);
  const uint64_t b0 = static_cast<uint64_t>(b), b1 = static_cast<uint64_t>(b >> 64);
  const U128 p00 = static_cast<U128>(a0) * b0;
  const U128 p01 = static_cast<U128>(a0) * b1;
  const U128 p10 = static_cast<U128>(a1) * b0;
  const U128 p11 = static_cast<U128>(a1) * b1;
  const U128 mid = (p00 >> 64) + static_cast<uint64_t>(p01) + static_cast<uint64_t>(p10);
  U256 r;
  r.lo = (mid << 64) | static_cast<uint64_t>(p00);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

bool Less(const U256& a, const U256& b) { return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo; }

U256 Subtract(const U256& a, const U256& b) {
  U256 r;
  r.lo = a.lo - b.lo;
  r.hi = a.hi - b.hi - (a.lo < b.lo ? 1 : 0);
  return r;
}

U256 ShiftLeft1(const U256& a) { return U256{(a.hi << 1) | (a.lo >> 127), a.lo << 1}; }

U256 Add(const U256& a, const U256& b) {
  U256 r;
  r.lo = a.lo + b.lo;
  r.hi = a.hi + b.hi + (r.lo < a.lo ? 1 : 0);
  return r;
}

// a >> k for 0 < k < 128.
U256 ShiftRight(const U256& a, int k) { return U256{a.hi >> k, (a.lo >> k) | (a.hi << (128 - k))}; }

bool IsZero(const U256& a) { return a.hi == 0 && a.lo == 0; }

// floor(sqrt(n)); `n` becomes the remainder n - floor(sqrt(n))^2 (digit-by-digit in base 4).
U256 SquareRoot(U256* n) {
  U256 root;
  U256 bit{static_cast<U128>(1) << 126, 0};  // 4^127, the largest power of four
  while (!IsZero(bit) && Less(*n, bit)) bit = ShiftRight(bit, 2);
  while (!IsZero(bit)) {
    const U256 trial = Add(root, bit);
    if (!Less(*n, trial)) {
      *n = Subtract(*n, trial);
      root = Add(ShiftRight(root, 1), bit);
    } else {
      root = ShiftRight(root, 1);
    }
    bit = ShiftRight(bit, 2);
  }
  return root;
}

// n / d rounded half away from zero; false when the quotient reaches 10^38 or d is zero.
bool DivideRounded(const U256& n, const U256& d, U128* quotient) {
  if (d.hi == 0 && d.lo == 0) return false;
  if (n.hi == 0 && d.hi == 0) {
    U128 q = n.lo / d.lo;
    const U128 r = n.lo % d.lo;
    if (r >= d.lo - r) ++q;
    *quotient = q;
    return q < kLimit;
  }
  // Binary long division; the quotient must fit in 128 bits to be of any use.
  U256 r;
  U256 q;
  for (int bit = 255; bit >= 0; --bit) {
    r = ShiftLeft1(r);
    const U128 word = bit >= 128 ? n.hi : n.lo;
    r.lo |= (word >> (bit & 127)) & 1;
    q = ShiftLeft1(q);
    if (!Less(r, d)) {
      r = Subtract(r, d);
      q.lo |= 1;
    }
  }
  if (q.hi != 0) return false;
  // Round: r >= d - r.
  if (!Less(r, Subtract(d, r))) {
    if (q.lo == ~static_cast<U128>(0)) return false;
    ++q.lo;
  }
  *quotient = q.lo;
  return q.lo < kLimit;
}

// m * 10^k as 256 bits (k <= 76).
U256 ScaleWide(U128 m, int k) {
  U256 r{0, m};
  while (k > 0) {
    const int step = k > 38 ? 38 : k;
    const U256 hi_part = Multiply(r.hi, kPow10[static_cast<size_t>(step)]);
    const U256 lo_part = Multiply(r.lo, kPow10[static_cast<size_t>(step)]);
    r.lo = lo_part.lo;
    r.hi = lo_part.hi + hi_part.lo;
    k -= step;
  }
  return r;
}

// The value's base-10000 weight and first base-10000 digit, as PostgreSQL's digits are
// grouped (zero: weight 0, digit 0).
void LeadingGroup(const NumericValue& v, int* weight, int* first_digit) {
  const U128 m = Magnitude(v.unscaled);
  if (m == 0) {
    *weight = 0;
    *first_digit = 0;
    return;
  }
  const int digits = DigitCount(m);
  const int exponent = digits - 1 - v.scale;  // of the leading decimal digit
  const int w = exponent >= 0 ? exponent / 4 : -((-exponent + 3) / 4);
  const int group = exponent - 4 * w + 1;  // decimal digits in the first group, 1..4
  *weight = w;
  *first_digit = digits >= group
                     ? static_cast<int>(m / kPow10[static_cast<size_t>(digits - group)])
                     : static_cast<int>(m * kPow10[static_cast<size_t>(group - digits)]);
}

// PostgreSQL's select_div_scale: at least 16 significant digits, never fewer decimals than
// either operand has.
int DivisionScale(const NumericValue& a, const NumericValue& b) {
  int w1, d1, w2, d2;
  LeadingGroup(a, &w1, &d1);
  LeadingGroup(b, &w2, &d2);
  int qweight = w1 - w2;
  if (d1 <= d2) --qweight;
  int scale = 16 - qweight * 4;
  scale = std::max({scale, a.scale, b.scale, 0});
  return std::min(scale, kNumericMaxScale);
}

int Signum(const NumericValue& v) {
  switch (v.kind) {
    case Kind::kPositiveInfinity:
      return 1;
    case Kind::kNegativeInfinity:
      return -1;
    case Kind::kNaN:
      return 0;
    case Kind::kFinite:
      break;
  }
  return v.unscaled > 0 ? 1 : (v.unscaled < 0 ? -1 : 0);
}

// Both operands at the larger scale; false when one leaves the digit limit.
bool Align(const NumericValue& a, const NumericValue& b, I128* x, I128* y, int* scale) {
  *scale = std::max(a.scale, b.scale);
  U128 ma, mb;
  if (!ScaleUp(Magnitude(a.unscaled), *scale - a.scale, &ma) ||
      !ScaleUp(Magnitude(b.unscaled), *scale - b.scale, &mb)) {
    return false;
  }
  *x = a.unscaled < 0 ? -static_cast<I128>(ma) : static_cast<I128>(ma);
  *y = b.unscaled < 0 ? -static_cast<I128>(mb) : static_cast<I128>(mb);
  return true;
}

Result<NumericValue> AddFinite(const NumericValue& a, const NumericValue& b) {
  I128 x, y;
  int scale;
  if (!Align(a, b, &x, &y, &scale)) return TooManyDigits();
  // Both are below 10^38, but their sum can pass int128's 1.7 * 10^38.
  I128 sum;
  if (__builtin_add_overflow(x, y, &sum)) return TooManyDigits();
  return MakeFinite(Magnitude(sum), sum < 0, scale);
}

// v at `digits` decimals (fewer: rounded half away from zero, or truncated).
Result<NumericValue> Rescale(const NumericValue& v, int digits, bool round) {
  if (!v.is_finite()) return v;
  const int target = std::max(digits, 0);
  if (target > kNumericMaxScale) return TooManyDigits();
  const bool negative = v.unscaled < 0;
  const U128 m = Magnitude(v.unscaled);
  if (digits >= v.scale) {
    U128 out;
    if (!ScaleUp(m, digits - v.scale, &out)) return TooManyDigits();
    return MakeFinite(out, negative, target);
  }
  const int drop = v.scale - digits;
  U128 q = 0;
  if (drop <= kNumericMaxDigits) {
    const U128 p = kPow10[static_cast<size_t>(drop)];
    q = m / p;
    const U128 r = m % p;
    if (round && r >= p - r) ++q;
  }
  if (digits < 0) {
    U128 out;
    if (!ScaleUp(q, -digits, &out)) return TooManyDigits();
    q = out;
  }
  return MakeFinite(q, negative && q != 0, target);
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] + 32) : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

bool IsBlank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

Status BadInput(std::string_view text) {
  return Status::Invalid("invalid input syntax for type numeric: \"{}\"", text);
}

}  // namespace

void StoreNumeric(const NumericValue& v, uint8_t* out) {
  int16_t scale;
  I128 unscaled = 0;
  switch (v.kind) {
    case Kind::kNaN:
      scale = -1;
      break;
    case Kind::kPositiveInfinity:
      scale = -2;
      break;
    case Kind::kNegativeInfinity:
      scale = -3;
      break;
    case Kind::kFinite:
    default:
      scale = static_cast<int16_t>(v.scale);
      unscaled = v.unscaled;
      break;
  }
  const U128 u = static_cast<U128>(unscaled);
  for (int i = 0; i < 16; ++i) out[i] = static_cast<uint8_t>(u >> (8 * i));
  out[16] = static_cast<uint8_t>(static_cast<uint16_t>(scale));
  out[17] = static_cast<uint8_t>(static_cast<uint16_t>(scale) >> 8);
}

std::string NumericBytes(const NumericValue& v) {
  std::string out(kNumericBytes, '\0');
  StoreNumeric(v, reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

NumericValue NumericFromBytes(std::string_view bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const auto scale = static_cast<int16_t>(static_cast<uint16_t>(p[16] | (p[17] << 8)));
  if (scale == -1) return NumericValue::NaN();
  if (scale == -2) return NumericValue::Infinity(false);
  if (scale < 0) return NumericValue::Infinity(true);
  U128 u = 0;
  for (int i = 15; i >= 0; --i) u = (u << 8) | p[i];
  return NumericValue::Finite(static_cast<I128>(u), scale);
}

Result<NumericValue> ParseNumeric(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && IsBlank(text[begin])) ++begin;
  while (end > begin && IsBlank(text[end - 1])) --end;
  std::string_view s = text.substr(begin, end - begin);
  if (EqualsIgnoringCase(s, "nan")) return NumericValue::NaN();
  bool negative = false;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  const std::string_view rest = s.substr(i);
  if (EqualsIgnoringCase(rest, "infinity") || EqualsIgnoringCase(rest, "inf")) {
    return NumericValue::Infinity(negative);
  }
  U128 digits = 0;
  int significant = 0;  // digits after leading zeros
  int64_t fraction = 0;
  bool any_digit = false, point = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any_digit = true;
    if (point) ++fraction;
    if (significant > 0 || c != '0') {
      if (++significant > kNumericMaxDigits) return TooManyDigits();
      digits = digits * 10 + static_cast<U128>(c - '0');
    }
  }
  if (!any_digit) return BadInput(text);
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool exponent_negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) exponent_negative = s[i++] == '-';
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return BadInput(text);
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      exponent = exponent * 10 + (s[i] - '0');
      if (exponent > 100000) return TooManyDigits();
    }
    if (exponent_negative) exponent = -exponent;
  }
  if (i != s.size()) return BadInput(text);
  const int64_t scale = fraction - exponent;
  if (scale < 0) {
    U128 out;
    if (!ScaleUp(digits, -scale, &out)) return TooManyDigits();
    return MakeFinite(out, negative && out != 0, 0);
  }
  if (scale > kNumericMaxScale) return TooManyDigits();
  return MakeFinite(digits, negative && digits != 0, scale);
}

void AppendNumericText(const NumericValue& v, std::string* out) {
  switch (v.kind) {
    case Kind::kNaN:
      out->append("NaN");
      return;
    case Kind::kPositiveInfinity:
      out->append("Infinity");
      return;
    case Kind::kNegativeInfinity:
      out->append("-Infinity");
      return;
    case Kind::kFinite:
      break;
  }
  U128 m = Magnitude(v.unscaled);
  char buf[40];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + static_cast<int>(m % 10));
    m /= 10;
  } while (m != 0);
  if (v.unscaled < 0) out->push_back('-');
  const int scale = v.scale;
  if (n <= scale) {
    out->append("0.");
    out->append(static_cast<size_t>(scale - n), '0');
    for (int k = n - 1; k >= 0; --k) out->push_back(buf[k]);
    return;
  }
  for (int k = n - 1; k >= 0; --k) {
    out->push_back(buf[k]);
    if (k == scale && k > 0) out->push_back('.');
  }
}

std::string NumericText(const NumericValue& v) {
  std::string out;
  AppendNumericText(v, &out);
  return out;
}

void StoreNumericKey(const NumericValue& v, uint8_t* out) {
  // Two bytes of class and exponent, then 16 of mantissa, all big-endian: the class
  // (-Infinity 0, negative 1, zero 2, positive 3, Infinity 4, NaN 5) in the top three
  // bits, the exponent of the leading digit biased by 4096 below it, and the significant
  // digits left-aligned to 38 places; for negatives both inverted.
  int cls;
  uint32_t exponent_bits = 0;
  U128 mantissa = 0;
  switch (v.kind) {
    case Kind::kNegativeInfinity:
      cls = 0;
      break;
    case Kind::kPositiveInfinity:
      cls = 4;
      break;
    case Kind::kNaN:
      cls = 5;
      break;
    case Kind::kFinite:
    default: {
      U128 m = Magnitude(v.unscaled);
      if (m == 0) {
        cls = 2;
        break;
      }
      int scale = v.scale;
      while (m % 10 == 0) {
        m /= 10;
        --scale;
      }
      const int digits = DigitCount(m);
      exponent_bits = static_cast<uint32_t>(digits - 1 - scale + 4096) & 0x1FFF;
      mantissa = m * kPow10[static_cast<size_t>(kNumericMaxDigits - digits)];
      cls = 3;
      if (v.unscaled < 0) {
        cls = 1;
        exponent_bits = 0x1FFF - exponent_bits;
        mantissa = ~mantissa;
      }
      break;
    }
  }
  const uint32_t header = (static_cast<uint32_t>(cls) << 13) | exponent_bits;
  out[0] = static_cast<uint8_t>(header >> 8);
  out[1] = static_cast<uint8_t>(header);
  for (int i = 0; i < 16; ++i) out[2 + i] = static_cast<uint8_t>(mantissa >> (8 * (15 - i)));
}

int CompareNumerics(const NumericValue& a, const NumericValue& b) {
  if (a.is_finite() && b.is_finite() && a.scale == b.scale) {
    return a.unscaled < b.unscaled ? -1 : (a.unscaled > b.unscaled ? 1 : 0);
  }
  uint8_t x[kNumericBytes], y[kNumericBytes];
  StoreNumericKey(a, x);
  StoreNumericKey(b, y);
  const int c = std::memcmp(x, y, kNumericBytes);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

Result<NumericValue> AddNumerics(const NumericValue& a, const NumericValue& b) {
  if (a.is_nan() || b.is_nan()) return NumericValue::NaN();
  if (a.is_infinite() || b.is_infinite()) {
    if (a.is_infinite() && b.is_infinite() && a.kind != b.kind) return NumericValue::NaN();
    return a.is_infinite() ? a : b;
  }
  return AddFinite(a, b);
}

Result<NumericValue> SubtractNumerics(const NumericValue& a, const NumericValue& b) {
  FLOE_ASSIGN_OR_RAISE(NumericValue negated, NegateNumeric(b));
  return AddNumerics(a, negated);
}

Result<NumericValue> MultiplyNumerics(const NumericValue& a, const NumericValue& b) {
  if (a.is_nan() || b.is_nan()) return NumericValue::NaN();
  if (a.is_infinite() || b.is_infinite()) {
    const int sign = Signum(a) * Signum(b);
    if (sign == 0) return NumericValue::NaN();  // infinity times zero
    return NumericValue::Infinity(sign < 0);
  }
  const bool negative = (a.unscaled < 0) != (b.unscaled < 0);
  const U256 product = Multiply(Magnitude(a.unscaled), Magnitude(b.unscaled));
  const int64_t scale = static_cast<int64_t>(a.scale) + b.scale;
  if (product.hi != 0 || product.lo >= kLimit) return TooManyDigits();
  return MakeFinite(product.lo, negative && product.lo != 0, scale);
}

Result<NumericValue> DivideNumericsAtScale(const NumericValue& a, const NumericValue& b,
                                           int scale) {
  if (a.is_nan() || b.is_nan()) return NumericValue::NaN();
  if (a.is_infinite()) {
    if (b.is_infinite()) return NumericValue::NaN();
    const int sign = Signum(b);
    if (sign == 0) return DivisionByZero();
    return NumericValue::Infinity((a.kind == Kind::kNegativeInfinity) != (sign < 0));
  }
  if (b.is_infinite()) return NumericValue::Finite(0, 0);
  if (b.unscaled == 0) return DivisionByZero();
  if (scale > kNumericMaxScale) return TooManyDigits();
  // |a| / |b| * 10^scale = ma * 10^(scale + sb - sa) / mb.
  const int64_t k = static_cast<int64_t>(scale) + b.scale - a.scale;
  const U128 ma = Magnitude(a.unscaled), mb = Magnitude(b.unscaled);
  U256 numerator{0, ma}, denominator{0, mb};
  // 10^77 < 2^256: a scaled operand fits while it has at most 77 digits.
  if (k > 0 && ma != 0) {
    // A numerator of more digits makes a quotient of at least 10^39.
    if (DigitCount(ma) + k > 77) return TooManyDigits();
    numerator = ScaleWide(ma, static_cast<int>(k));
  } else if (k < 0) {
    // A denominator of more digits makes |a / b| * 10^scale < 10^38 / 10^77: zero.
    if (DigitCount(mb) - k > 77) return MakeFinite(0, false, scale);
    denominator = ScaleWide(mb, static_cast<int>(-k));
  }
  U128 q;
  if (!DivideRounded(numerator, denominator, &q)) return TooManyDigits();
  const bool negative = (a.unscaled < 0) != (b.unscaled < 0);
  return MakeFinite(q, negative && q != 0, scale);
}

Result<NumericValue> DivideNumerics(const NumericValue& a, const NumericValue& b) {
  const int scale = a.is_finite() && b.is_finite() ? DivisionScale(a, b) : 0;
  return DivideNumericsAtScale(a, b, scale);
}

Result<NumericValue> ModNumerics(const NumericValue& a, const NumericValue& b) {
  if (a.is_nan() || b.is_nan()) return NumericValue::NaN();
  if (a.is_infinite()) {
    if (Signum(b) == 0 && b.is_finite()) return DivisionByZero();
    return NumericValue::NaN();
  }
  if (b.is_infinite()) return a;
  if (b.unscaled == 0) return DivisionByZero();
  I128 x, y;
  int scale;
  if (!Align(a, b, &x, &y, &scale)) return TooManyDigits();
  const I128 r = x % y;
  return MakeFinite(Magnitude(r), r < 0, scale);
}

Result<NumericValue> NegateNumeric(const NumericValue& v) {
  switch (v.kind) {
    case Kind::kNaN:
      return v;
    case Kind::kPositiveInfinity:
      return NumericValue::Infinity(true);
    case Kind::kNegativeInfinity:
      return NumericValue::Infinity(false);
    case Kind::kFinite:
      break;
  }
  return NumericValue::Finite(-v.unscaled, v.scale);
}

NumericValue AbsNumeric(const NumericValue& v) {
  if (v.kind == Kind::kNegativeInfinity) return NumericValue::Infinity(false);
  if (!v.is_finite()) return v;
  return NumericValue::Finite(v.unscaled < 0 ? -v.unscaled : v.unscaled, v.scale);
}

NumericValue SignNumeric(const NumericValue& v) {
  if (v.is_nan()) return v;
  return NumericValue::Finite(Signum(v), 0);
}

Result<NumericValue> RoundNumeric(const NumericValue& v, int digits) {
  return Rescale(v, std::clamp(digits, -kNumericMaxScale, kNumericMaxScale), true);
}

Result<NumericValue> TruncNumeric(const NumericValue& v, int digits) {
  return Rescale(v, std::clamp(digits, -kNumericMaxScale, kNumericMaxScale), false);
}

Result<NumericValue> CeilNumeric(const NumericValue& v) {
  FLOE_ASSIGN_OR_RAISE(NumericValue t, Rescale(v, 0, false));
  if (!v.is_finite() || v.unscaled <= 0 || CompareNumerics(t, v) == 0) return t;
  return AddFinite(t, NumericValue::Finite(1, 0));
}

Result<NumericValue> FloorNumeric(const NumericValue& v) {
  FLOE_ASSIGN_OR_RAISE(NumericValue t, Rescale(v, 0, false));
  if (!v.is_finite() || v.unscaled >= 0 || CompareNumerics(t, v) == 0) return t;
  return AddFinite(t, NumericValue::Finite(-1, 0));
}

Result<NumericValue> SqrtNumeric(const NumericValue& v, int scale) {
  if (v.kind == Kind::kNegativeInfinity || (v.is_finite() && v.unscaled < 0)) {
    return Status::Invalid("cannot take square root of a negative number");
  }
  if (!v.is_finite()) return v;
  if (scale < 0 || scale > kNumericMaxScale) return TooManyDigits();
  // sqrt(m * 10^-s) * 10^r = sqrt(m * 10^(2r - s)).
  const U128 m = Magnitude(v.unscaled);
  const int64_t k = 2 * static_cast<int64_t>(scale) - v.scale;
  U256 n{0, m};
  if (k > 0) {
    // 10^77 < 2^256: the product fits while it has at most 77 digits.
    if (m != 0 && DigitCount(m) + k > 77) return TooManyDigits();
    n = ScaleWide(m, static_cast<int>(k));
  } else if (k < 0) {
    n.lo = -k > kNumericMaxDigits ? 0 : m / kPow10[static_cast<size_t>(-k)];
  }
  U256 remainder = n;
  const U256 root = SquareRoot(&remainder);
  if (root.hi != 0) return TooManyDigits();
  U128 q = root.lo;
  // Half away from zero: up when n >= (q + 1/2)^2, that is when n - q^2 > q.
  if (Less(U256{0, q}, remainder)) ++q;
  return MakeFinite(q, false, scale);
}

Result<NumericValue> NumericVariance(int64_t n, const NumericValue& sum,
                                     const NumericValue& sum_squares, bool sample, bool root) {
  const NumericValue count = NumericValue::Finite(n, 0);
  FLOE_ASSIGN_OR_RAISE(NumericValue n_sum_squares, MultiplyNumerics(count, sum_squares));
  FLOE_ASSIGN_OR_RAISE(NumericValue sum_squared, MultiplyNumerics(sum, sum));
  FLOE_ASSIGN_OR_RAISE(NumericValue numerator, SubtractNumerics(n_sum_squares, sum_squared));
  // Rounding cannot make an exact numerator negative, but infinities make it NaN.
  if (numerator.is_finite() && numerator.unscaled <= 0) return NumericValue::Finite(0, 0);
  const NumericValue denominator =
      NumericValue::Finite(static_cast<__int128>(n) * (sample ? n - 1 : n), 0);
  FLOE_ASSIGN_OR_RAISE(NumericValue variance, DivideNumerics(numerator, denominator));
  if (!root) return variance;
  return SqrtNumeric(variance, variance.is_finite() ? variance.scale : 0);
}

Result<NumericValue> NumericFromDouble(double v, int digits) {
  if (std::isnan(v)) return NumericValue::NaN();
  if (std::isinf(v)) return NumericValue::Infinity(v < 0);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  return ParseNumeric(buf);
}

double NumericToDouble(const NumericValue& v) {
  switch (v.kind) {
    case Kind::kNaN:
      return std::nan("");
    case Kind::kPositiveInfinity:
      return HUGE_VAL;
    case Kind::kNegativeInfinity:
      return -HUGE_VAL;
    case Kind::kFinite:
      break;
  }
  const std::string text = NumericText(v);
  return std::strtod(text.c_str(), nullptr);
}

Result<int64_t> NumericToInt64(const NumericValue& v, int64_t min, int64_t max,
                               std::string_view type_name, const Status& out_of_range) {
  if (v.is_nan()) return Status::Invalid("cannot convert NaN to {}", type_name);
  if (v.is_infinite()) return Status::Invalid("cannot convert infinity to {}", type_name);
  Result<NumericValue> rounded = Rescale(v, 0, true);
  if (!rounded.ok()) return out_of_range;
  const I128 x = rounded->unscaled;
  if (x < min || x > max) return out_of_range;
  return static_cast<int64_t>(x);
}

Result<__int128> NumericToDecimal(const NumericValue& v, int precision, int scale) {
  if (v.is_nan()) {
    return Status::NotSupported("NaN cannot be stored as numeric({},{}): it has no NaN", precision,
                                scale);
  }
  const auto overflow = [&]() {
    return Status::Invalid(
        "numeric field overflow: a field with precision {}, scale {} must round to an "
        "absolute value less than 10^{}",
        precision, scale, precision - scale);
  };
  if (v.is_infinite()) {
    return Status::Invalid(
        "numeric field overflow: a field with precision {}, scale {} cannot hold an infinite "
        "value",
        precision, scale);
  }
  Result<NumericValue> r = Rescale(v, scale, true);
  if (!r.ok()) return overflow();
  if (Magnitude(r->unscaled) >= kPow10[static_cast<size_t>(precision)]) return overflow();
  return r->unscaled;
}

}  // namespace floe
