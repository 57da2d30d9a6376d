// Numeric templates: to_char over numbers and to_number (formatting.h).

#include <cmath>
#include <cstdio>
#include <limits>

#include "floe/expr/cast_internal.h"
#include "floe/expr/formatting.h"
#include "floe/expr/formatting_internal.h"

namespace floe::expr {

namespace {

using internal::IsAsciiDigit;
using Pattern = NumberTemplate::Pattern;

struct NumberKeyword {
  std::string_view text;
  Pattern pattern;
  bool lower;
};

// Case matters: each pattern has an upper- and a lower-case spelling.
constexpr NumberKeyword kNumberKeywords[] = {
    {",", Pattern::kComma, false},       {".", Pattern::kPoint, false},
    {"0", Pattern::kDigit0, false},      {"9", Pattern::kDigit9, false},
    {"B", Pattern::kBlank, false},       {"b", Pattern::kBlank, true},
    {"C", Pattern::kOther, false},       {"c", Pattern::kOther, true},
    {"D", Pattern::kDecimal, false},     {"d", Pattern::kDecimal, true},
    {"EEEE", Pattern::kExponent, false}, {"eeee", Pattern::kExponent, true},
    {"FM", Pattern::kFillMode, false},   {"fm", Pattern::kFillMode, true},
    {"G", Pattern::kGroup, false},       {"g", Pattern::kGroup, true},
    {"L", Pattern::kCurrency, false},    {"l", Pattern::kCurrency, true},
    {"MI", Pattern::kMinus, false},      {"mi", Pattern::kMinus, true},
    {"PL", Pattern::kPlus, false},       {"pl", Pattern::kPlus, true},
    {"PR", Pattern::kBracket, false},    {"pr", Pattern::kBracket, true},
    {"RN", Pattern::kRoman, false},      {"rn", Pattern::kRoman, true},
    {"SG", Pattern::kSignAny, false},    {"sg", Pattern::kSignAny, true},
    {"SP", Pattern::kSpell, false},      {"sp", Pattern::kSpell, true},
    {"S", Pattern::kSign, false},        {"s", Pattern::kSign, true},
    {"TH", Pattern::kOrdinal, false},    {"th", Pattern::kOrdinal, true},
    {"V", Pattern::kShift, false},       {"v", Pattern::kShift, true},
};

const NumberKeyword* FindNumberKeyword(std::string_view text, size_t pos) {
  const NumberKeyword* best = nullptr;
  for (const NumberKeyword& k : kNumberKeywords) {
    if (text.compare(pos, k.text.size(), k.text) == 0 &&
        (best == nullptr || k.text.size() > best->text.size())) {
      best = &k;
    }
  }
  return best;
}

// The Roman numeral of 1..3999; fifteen '#' otherwise.
std::string ToRoman(int64_t value) {
  if (value < 1 || value > 3999) return std::string(15, '#');
  static constexpr std::string_view kThousands[] = {"", "M", "MM", "MMM"};
  static constexpr std::string_view kHundreds[] = {"",  "C",  "CC",  "CCC",  "CD",
                                                   "D", "DC", "DCC", "DCCC", "CM"};
  static constexpr std::string_view kTens[] = {"",  "X",  "XX",  "XXX",  "XL",
                                               "L", "LX", "LXX", "LXXX", "XC"};
  static constexpr std::string_view kOnes[] = {"",  "I",  "II",  "III",  "IV",
                                               "V", "VI", "VII", "VIII", "IX"};
  std::string s;
  s += kThousands[value / 1000];
  s += kHundreds[value / 100 % 10];
  s += kTens[value / 10 % 10];
  s += kOnes[value % 10];
  return s;
}

std::string Int128Digits(Int128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v != 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return std::string(s.rbegin(), s.rend());
}

// Adds one to a string of decimal digits (which may grow by one digit).
void IncrementDigits(std::string* digits) {
  for (size_t i = digits->size(); i-- > 0;) {
    if ((*digits)[i] == '9') {
      (*digits)[i] = '0';
    } else {
      ++(*digits)[i];
      return;
    }
  }
  digits->insert(digits->begin(), '1');
}

// A non-negative decimal as digits with the point `scale` digits from the right, rounded
// half away from zero to `post` digits after the point: "123.45", "0.50", "7".
std::string DecimalText(const std::string& magnitude, int scale, int post) {
  std::string whole = magnitude;
  if (static_cast<int>(whole.size()) <= scale) {
    whole.insert(0, static_cast<size_t>(scale - static_cast<int>(whole.size()) + 1), '0');
  }
  std::string int_part = whole.substr(0, whole.size() - static_cast<size_t>(scale));
  std::string frac = whole.substr(whole.size() - static_cast<size_t>(scale));
  if (static_cast<int>(frac.size()) > post) {
    const bool up = frac[static_cast<size_t>(post)] >= '5';
    frac.resize(static_cast<size_t>(post));
    if (up) {
      std::string all = int_part + frac;
      IncrementDigits(&all);
      int_part = all.substr(0, all.size() - frac.size());
      frac = all.substr(all.size() - frac.size());
    }
  } else {
    frac.append(static_cast<size_t>(post) - frac.size(), '0');
  }
  // Strip leading zeros of the integer part, keeping one.
  size_t nz = 0;
  while (nz + 1 < int_part.size() && int_part[nz] == '0') ++nz;
  int_part.erase(0, nz);
  return post > 0 ? int_part + "." + frac : int_part;
}

// A decimal in scientific notation with `post` digits after the point, rounded half away
// from zero, sign for negatives only: "1.23e+04", "-5.0e-03", "0.00e+00".
std::string DecimalScientific(const std::string& magnitude, bool negative, int scale, int post) {
  std::string digits = magnitude;
  int exponent = 0;
  if (digits == "0") {
    digits = std::string(static_cast<size_t>(post) + 1, '0');
  } else {
    exponent = static_cast<int>(digits.size()) - 1 - scale;
    const size_t keep = static_cast<size_t>(post) + 1;
    if (digits.size() > keep) {
      const bool up = digits[keep] >= '5';
      digits.resize(keep);
      // A carry makes the mantissa 10 (9.996 is 10.00e+00), as PostgreSQL prints it.
      if (up) IncrementDigits(&digits);
    } else {
      digits.append(keep - digits.size(), '0');
    }
  }
  std::string out = negative && magnitude != "0" ? "-" : "";
  out += digits.substr(0, digits.size() - static_cast<size_t>(post));
  if (post > 0) {
    out += '.';
    out += digits.substr(digits.size() - static_cast<size_t>(post));
  }
  out += exponent < 0 ? "e-" : "e+";
  const int e = exponent < 0 ? -exponent : exponent;
  if (e < 10) out += '0';
  out += std::to_string(e);
  return out;
}

// C's printf of a double.
std::string Printf(const char* format, int precision, double value) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof(buf), format, precision, value);
  if (n >= 0 && static_cast<size_t>(n) < sizeof(buf))
    return std::string(buf, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), format, precision, value);
  big.resize(static_cast<size_t>(n));
  return big;
}

// The integer conversion x86 applies to a double out of int range: INT_MIN.
int32_t DoubleToInt32(double v) {
  if (!(v >= -2147483648.0 && v < 2147483648.0)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

}  // namespace

Result<NumberTemplate> NumberTemplate::Parse(std::string_view text) {
  NumberTemplate t;
  bool shifting = false;  // after V
  bool blank = false;     // B before any digit
  size_t i = 0;
  while (i < text.size()) {
    const NumberKeyword* k = FindNumberKeyword(text, i);
    if (k == nullptr) {
      for (internal::LiteralChar& c : internal::ReadLiteral(text, &i)) {
        Node node;
        node.text = std::move(c.text);
        t.nodes_.push_back(std::move(node));
      }
      continue;
    }
    i += k->text.size();
    if (t.exponent_ && k->pattern != Pattern::kExponent) {
      return Status::Invalid("\"EEEE\" must be the last pattern used");
    }
    switch (k->pattern) {
      case Pattern::kDigit9:
        if (t.bracket_) return Status::Invalid("\"9\" must be ahead of \"PR\"");
        if (shifting) {
          ++t.shift_;
        } else if (t.has_point_) {
          ++t.post_;
        } else {
          ++t.pre_;
        }
        break;
      case Pattern::kDigit0:
        if (t.bracket_) return Status::Invalid("\"0\" must be ahead of \"PR\"");
        if (!t.has_zero_ && !t.has_point_) {
          t.has_zero_ = true;
          t.zero_start_ = t.pre_ + 1;
        }
        if (t.has_point_) {
          ++t.post_;
        } else {
          ++t.pre_;
        }
        t.zero_end_ = t.pre_ + t.post_;
        break;
      case Pattern::kBlank:
        if (t.pre_ == 0 && t.post_ == 0 && !t.has_zero_) blank = true;
        break;
      case Pattern::kDecimal:
      case Pattern::kPoint:
        if (t.has_point_) return Status::Invalid("multiple decimal points");
        if (shifting) return Status::Invalid("cannot use \"V\" and decimal point together");
        t.has_point_ = true;
        break;
      case Pattern::kFillMode:
        t.fill_mode_ = true;
        break;
      case Pattern::kSign:
        if (t.locale_sign_) return Status::Invalid("cannot use \"S\" twice");
        if (t.plus_ || t.minus_ || t.bracket_) {
          return Status::Invalid("cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together");
        }
        t.locale_sign_ = true;
        if (!t.has_point_) {
          t.sign_before_ = true;
          t.sign_pre_digits_ = t.pre_;
        }
        break;
      case Pattern::kMinus:
        if (t.locale_sign_) return Status::Invalid("cannot use \"S\" and \"MI\" together");
        t.minus_ = true;
        break;
      case Pattern::kPlus:
        if (t.locale_sign_) return Status::Invalid("cannot use \"S\" and \"PL\" together");
        t.plus_ = true;
        break;
      case Pattern::kSignAny:
        if (t.locale_sign_) return Status::Invalid("cannot use \"S\" and \"SG\" together");
        t.minus_ = t.plus_ = true;
        break;
      case Pattern::kBracket:
        if (t.locale_sign_ || t.plus_ || t.minus_) {
          return Status::Invalid("cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together");
        }
        t.bracket_ = true;
        break;
      case Pattern::kRoman:
        t.roman_ = true;
        break;
      case Pattern::kShift:
        if (t.has_point_) return Status::Invalid("cannot use \"V\" and decimal point together");
        shifting = true;
        break;
      case Pattern::kExponent:
        if (t.exponent_) return Status::Invalid("cannot use \"EEEE\" twice");
        if (blank || t.fill_mode_ || t.locale_sign_ || t.bracket_ || t.minus_ || t.plus_ ||
            t.roman_ || shifting) {
          return Status::Invalid(
              "\"EEEE\" is incompatible with other formats: it may only be used together with "
              "digit and decimal point patterns");
        }
        t.exponent_ = true;
        break;
      default:
        break;
    }
    Node node;
    node.is_pattern = true;
    node.pattern = k->pattern;
    node.lower = k->lower;
    node.text = std::string(k->text);
    t.nodes_.push_back(std::move(node));
  }
  return t;
}

int NumberTemplate::fraction_digits() const { return post_ + shift_; }

// The output of one to_char: walks the template over the number's text.
struct NumberTemplate::Layout {
  explicit Layout(const NumberTemplate& tmpl) : t(tmpl) {}

  const NumberTemplate& t;
  std::string out;
  std::string digits;  // "123.45", "0.50", "#.##": no sign
  char sign = '+';
  int post = 0;
  int blanks = 0;  // digit positions before the number's first digit
  int slot = 0;    // digit positions (and the point) done
  size_t cur = 0;  // the next character of `digits`
  bool sign_done = false;
  bool started = false;  // the last digit position wrote a digit (a group separator
                         // then prints)
  bool bracket = false;
  bool sign_before = false;
  int zero_start = -1;                // 0-based position of the first 0 before the point
  int slots = 0;                      // PostgreSQL's count of positions, for the closing sign
  std::ptrdiff_t last_relevant = -1;  // FM: the last character of `digits` to print
  bool cut = false;                   // a position past the number's text ended the output

  char DigitAt(size_t i) const { return i < digits.size() ? digits[i] : '\0'; }
  bool PredecimalZero() const {
    return zero_start < 0 && cur == 0 && DigitAt(0) == '0' && post != 0;
  }
  bool RelevantIsPoint() const {
    return last_relevant >= 0 && DigitAt(static_cast<size_t>(last_relevant)) == '.';
  }
  void DigitSlot(Pattern p);
};

void NumberTemplate::Layout::DigitSlot(Pattern p) {
  started = false;
  // The sign goes just before the first digit position that prints something.
  if (!sign_done && (slot >= blanks || (zero_start >= 0 && zero_start == slot)) &&
      (!PredecimalZero() || RelevantIsPoint())) {
    if (t.locale_sign_) {
      if (sign_before) {
        out += sign == '-' ? '-' : '+';
        sign_done = true;
      }
    } else if (bracket) {
      out += sign == '+' ? ' ' : '<';
      sign_done = true;
    } else if (sign == '+') {
      if (!t.fill_mode_) out += ' ';
      sign_done = true;
    } else {
      out += '-';
      sign_done = true;
    }
  }
  if (slot < blanks && (zero_start < 0 || zero_start > slot)) {
    if (!t.fill_mode_) out += ' ';
  } else if (zero_start >= 0 && slot < blanks && zero_start <= slot) {
    out += '0';
    started = true;
  } else {
    const char c = DigitAt(cur);
    if (c == '.') {
      out += '.';
    } else if (last_relevant >= 0 && static_cast<std::ptrdiff_t>(cur) > last_relevant &&
               p != Pattern::kDigit0) {
      // FM: a trailing zero that does not print.
    } else if (PredecimalZero()) {
      if (!t.fill_mode_) {
        out += ' ';
      } else if (RelevantIsPoint()) {
        out += '0';
      }
    } else if (c == '\0') {
      // Past the number's text: PostgreSQL writes a string terminator here, so nothing
      // after this position shows.
      cut = true;
      return;
    } else {
      out += c;
      started = true;
    }
    if (cur < digits.size()) ++cur;
  }
  int end = slots + (blanks > 0 ? 1 : 0) + (t.has_point_ ? 1 : 0);
  if (last_relevant >= 0 && static_cast<std::ptrdiff_t>(cur) == last_relevant) end = slot;
  if (slot + 1 == end) {
    if (sign_done && bracket) {
      out += sign == '+' ? ' ' : '>';
    } else if (t.locale_sign_ && !sign_before) {
      out += sign == '-' ? '-' : '+';
    }
  }
  ++slot;
}

Result<std::string> NumberTemplate::Render(bool negative, std::string digits, int blanks,
                                           int post) const {
  Layout l(*this);
  l.digits = std::move(digits);
  l.sign = negative ? '-' : '+';
  l.post = post;
  l.blanks = blanks;
  l.bracket = bracket_;
  l.sign_before = sign_before_;
  l.zero_start = has_zero_ ? zero_start_ - 1 : -1;
  if (plus_ || minus_) {
    // MI, PL and SG print the sign where they stand; PL alone leaves a minus to the number.
    l.sign_done = !(plus_ && !minus_);
  } else {
    if (l.sign != '-' && fill_mode_) l.bracket = false;
    l.sign_done = l.sign == '+' && fill_mode_ && !locale_sign_;
    if (sign_before_ && pre_ == sign_pre_digits_) l.sign_before = false;
  }
  l.slots = post + pre_ - 1;
  if (fill_mode_ && has_point_) {
    const size_t point = l.digits.find('.');
    if (point != std::string::npos) {
      size_t last = l.digits.size() - 1;
      while (last > point && l.digits[last] == '0') --last;
      l.last_relevant = static_cast<std::ptrdiff_t>(last);
      if (zero_end_ > blanks) {
        const std::ptrdiff_t last_zero = zero_end_ - blanks;
        if (l.last_relevant < last_zero) l.last_relevant = last_zero;
      }
    }
  }
  if (!l.sign_done && blanks == 0) ++l.slots;
  for (const Node& node : nodes_) {
    if (!node.is_pattern) {
      l.out += node.text;
      continue;
    }
    switch (node.pattern) {
      case Pattern::kDigit9:
      case Pattern::kDigit0:
      case Pattern::kPoint:
      case Pattern::kDecimal:
        l.DigitSlot(node.pattern);
        if (l.cut) return l.out;
        break;
      case Pattern::kComma:
      case Pattern::kGroup:
        if (l.started) {
          l.out += ',';
        } else if (!fill_mode_) {
          l.out += ' ';
        }
        break;
      case Pattern::kCurrency:
        l.out += ' ';
        break;
      case Pattern::kOrdinal:
        if (l.digits[0] != '#' && l.sign != '-' && !has_point_) {
          // The suffix of the number's last two digits.
          const size_t n = l.digits.size();
          if (!IsAsciiDigit(l.digits[n - 1])) {
            return Status::Invalid("\"{}\" is not a number", l.digits);
          }
          int v = l.digits[n - 1] - '0';
          if (n >= 2 && IsAsciiDigit(l.digits[n - 2])) v += 10 * (l.digits[n - 2] - '0');
          l.out += internal::Ordinal(v, !node.lower);
        }
        break;
      case Pattern::kMinus:
        if (l.sign == '-') {
          l.out += '-';
        } else if (!fill_mode_) {
          l.out += ' ';
        }
        break;
      case Pattern::kPlus:
        if (l.sign == '+') {
          l.out += '+';
        } else if (!fill_mode_) {
          l.out += ' ';
        }
        break;
      case Pattern::kSignAny:
        l.out += l.sign;
        break;
      default:
        break;
    }
  }
  return l.out;
}

namespace {

// The Roman form: RN prints the numeral right-aligned in 15 characters (FM: as it is); the
// digit positions print nothing; a sign position prints a blank, or (SG) ends the output.
Result<std::string> RenderRoman(const std::vector<NumberTemplate::Node>& nodes, bool fill_mode,
                                const std::string& numeral) {
  std::string out;
  for (const NumberTemplate::Node& node : nodes) {
    if (!node.is_pattern) {
      out += node.text;
      continue;
    }
    switch (node.pattern) {
      case Pattern::kRoman: {
        std::string s = numeral;
        if (node.lower) {
          for (char& c : s) c = AsciiToLower(c);
        }
        if (!fill_mode && s.size() < 15) out.append(15 - s.size(), ' ');
        out += s;
        break;
      }
      case Pattern::kComma:
      case Pattern::kGroup:
      case Pattern::kMinus:
      case Pattern::kPlus:
        if (!fill_mode) out += ' ';
        break;
      case Pattern::kCurrency:
        out += ' ';
        break;
      case Pattern::kSignAny:
        return out;
      default:
        break;
    }
  }
  return out;
}

// The text of a magnitude ("123", "12.50") against the template's digit positions: blanks
// to its left, or '#' everywhere when it has more integer digits than the template.
void FitDigits(std::string* digits, int pre, int post, int* blanks) {
  const size_t point = digits->find('.');
  const int int_len = static_cast<int>(point == std::string::npos ? digits->size() : point);
  *blanks = 0;
  if (int_len < pre) {
    *blanks = pre - int_len;
  } else if (int_len > pre) {
    *digits = std::string(static_cast<size_t>(pre + post + 1), '#');
    (*digits)[static_cast<size_t>(pre)] = '.';
  }
}

}  // namespace

Result<std::string> NumberTemplate::FormatInteger(int64_t value, bool is_int4) const {
  if (roman_) {
    if (value < std::numeric_limits<int32_t>::min() ||
        value > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid("integer out of range");
    }
    return RenderRoman(nodes_, fill_mode_, ToRoman(value));
  }
  if (exponent_) {
    if (!is_int4) {
      // bigint goes through numeric, which keeps every digit.
      const bool negative = value < 0;
      const Int128 v = value;
      std::string s = DecimalScientific(Int128Digits(negative ? -v : v), negative, 0, post_);
      if (s[0] != '-') s.insert(0, " ");
      return s;
    }
    std::string s = Printf("%+.*e", post_, static_cast<double>(value));
    if (s[0] == '+') s[0] = ' ';
    return s;
  }
  Int128 v = value;
  if (shift_ > 0) {
    if (is_int4) {
      // int4 arithmetic, wrapping as PostgreSQL's does.
      const int32_t factor = DoubleToInt32(std::pow(10.0, shift_));
      v = static_cast<int32_t>(static_cast<uint32_t>(static_cast<int32_t>(value)) *
                               static_cast<uint32_t>(factor));
    } else {
      const double factor = std::pow(10.0, shift_);
      if (!(factor < 9223372036854775808.0)) return Status::Invalid("bigint out of range");
      const Int128 product = v * static_cast<int64_t>(factor);
      if (product > std::numeric_limits<int64_t>::max() ||
          product < std::numeric_limits<int64_t>::min()) {
        return Status::Invalid("bigint out of range");
      }
      v = product;
    }
  }
  const bool negative = v < 0;
  std::string digits = Int128Digits(negative ? -v : v);
  if (post_ > 0) digits += "." + std::string(static_cast<size_t>(post_), '0');
  NumberTemplate shifted = *this;
  shifted.pre_ = pre_ + shift_;
  int blanks = 0;
  FitDigits(&digits, shifted.pre_, post_, &blanks);
  return shifted.Render(negative, std::move(digits), blanks, post_);
}

Result<std::string> NumberTemplate::FormatDecimal(Int128 unscaled, int scale) const {
  const bool negative = unscaled < 0;
  std::string magnitude = Int128Digits(negative ? -unscaled : unscaled);
  if (roman_) {
    const std::string rounded = DecimalText(magnitude, scale, 0);
    const int64_t v =
        rounded.size() > 10 ? std::numeric_limits<int64_t>::max() : std::stoll(rounded);
    if (v > int64_t{std::numeric_limits<int32_t>::max()} + (negative ? 1 : 0)) {
      return Status::Invalid("integer out of range");
    }
    return RenderRoman(nodes_, fill_mode_, ToRoman(negative ? -v : v));
  }
  if (exponent_) {
    std::string s = DecimalScientific(magnitude, negative, scale, post_);
    if (s[0] != '-') s.insert(0, " ");
    return s;
  }
  // V: the point moves right.
  if (shift_ > 0) {
    if (magnitude != "0") magnitude.append(static_cast<size_t>(shift_), '0');
  }
  std::string digits = DecimalText(magnitude, scale, post_);
  bool any_nonzero = false;
  for (char c : digits) any_nonzero |= c >= '1' && c <= '9';
  NumberTemplate shifted = *this;
  shifted.pre_ = pre_ + shift_;
  int blanks = 0;
  FitDigits(&digits, shifted.pre_, post_, &blanks);
  return shifted.Render(negative && any_nonzero, std::move(digits), blanks, post_);
}

Result<std::string> NumberTemplate::FormatFloat(double value, bool is_float4) const {
  const int max_digits = is_float4 ? 6 : 15;
  if (roman_) {
    const double r = std::nearbyint(value);
    return RenderRoman(nodes_, fill_mode_, ToRoman(DoubleToInt32(r)));
  }
  if (exponent_) {
    if (std::isnan(value) || std::isinf(value)) {
      // Room for the sign, the point, "e", the exponent's sign and two digits.
      std::string s(static_cast<size_t>(pre_ + post_ + 6), '#');
      s[0] = ' ';
      s[static_cast<size_t>(pre_ + 1)] = '.';
      return s;
    }
    std::string s = Printf("%+.*e", post_, value);
    if (s[0] == '+') s[0] = ' ';
    return s;
  }
  NumberTemplate shifted = *this;
  shifted.pre_ = pre_ + shift_;
  double v = value;
  if (shift_ > 0) {
    if (is_float4) {
      v = static_cast<float>(static_cast<float>(value) *
                             static_cast<float>(std::pow(10.0, shift_)));
    } else {
      v = value * std::pow(10.0, shift_);
    }
  }
  // NaN and the infinities print their names as the number's digits.
  const std::string_view special = std::isnan(v) ? "NaN" : std::isinf(v) ? "Infinity" : "";
  // Only the type's significant digits: fewer after the point when the integer part is long.
  const int int_len = special.empty() ? static_cast<int>(Printf("%.*f", 0, std::fabs(v)).size())
                                      : static_cast<int>(special.size());
  int post = post_;
  if (int_len >= max_digits) {
    post = 0;
  } else if (int_len + post > max_digits) {
    post = max_digits - int_len;
  }
  std::string text = special.empty() ? Printf("%.*f", post, v) : std::string(special);
  bool negative = special.empty() ? false : v < 0;
  if (text[0] == '-') {
    negative = true;
    text.erase(0, 1);
  }
  int blanks = 0;
  FitDigits(&text, shifted.pre_, post, &blanks);
  return shifted.Render(negative, std::move(text), blanks, post);
}

Result<NumberTemplate::Number> NumberTemplate::ToNumber(std::string_view input) const {
  if (exponent_) return Status::Invalid("\"EEEE\" not supported for input");
  if (roman_) return Status::Invalid("\"RN\" not supported for input");
  char sign = ' ';
  std::string digits;
  int read_pre = 0;
  int read_post = 0;
  bool read_point = false;
  size_t pos = 0;
  const size_t end = input.size();
  auto digit_slot = [&](Pattern p) {
    if (pos >= end) return;
    if (input[pos] == ' ') ++pos;
    if (pos >= end) return;
    // A sign before the first digit.
    if (sign == ' ' && (p == Pattern::kDigit0 || p == Pattern::kDigit9) &&
        read_pre + read_post == 0) {
      if (locale_sign_ && sign_before_) {
        if (input[pos] == '-' || input[pos] == '+') sign = input[pos++];
      } else if (input[pos] == '-' || (bracket_ && input[pos] == '<')) {
        sign = '-';
        ++pos;
      } else if (input[pos] == '+') {
        sign = '+';
        ++pos;
      }
    }
    if (pos >= end) return;
    bool read = false;
    if (IsAsciiDigit(input[pos])) {
      if (read_point && read_post == post_) return;
      digits += input[pos];
      if (read_point) {
        ++read_post;
      } else {
        ++read_pre;
      }
      read = true;
    } else if (has_point_ && !read_point && input[pos] == '.') {
      digits += '.';
      read_point = true;
      read = true;
    }
    if (pos >= end) return;
    // A sign after the last digit.
    if (sign == ' ' && read_pre + read_post > 0) {
      if (locale_sign_ && read && pos + 1 < end && !IsAsciiDigit(input[pos + 1])) {
        if (input[pos + 1] == '-' || input[pos + 1] == '+') sign = input[++pos];
      } else if (!read && !locale_sign_ && (plus_ || minus_)) {
        if (input[pos] == '-' || input[pos] == '+') sign = input[pos];
      }
    }
  };
  // Skips up to `count` characters that are not part of a number (digits, signs, points and
  // commas are).
  auto skip_non_data = [&](int count) {
    for (int i = 0; i < count && pos < end; ++i) {
      const char c = input[pos];
      if (IsAsciiDigit(c) || c == '.' || c == ',' || c == '+' || c == '-') return;
      pos += internal::CharLength(input, pos);
    }
  };
  for (const Node& node : nodes_) {
    if (pos >= end) break;
    if (!node.is_pattern) {
      // Literal text skips one character, whatever it is.
      pos += internal::CharLength(input, pos);
      continue;
    }
    switch (node.pattern) {
      case Pattern::kDigit9:
      case Pattern::kDigit0:
      case Pattern::kPoint:
      case Pattern::kDecimal:
        digit_slot(node.pattern);
        ++pos;
        break;
      case Pattern::kComma:
      case Pattern::kGroup:
        // The separator where the input has one.
        if (!fill_mode_ && input[pos] == ',') ++pos;
        break;
      case Pattern::kCurrency:
        if (input[pos] == ' ') {
          ++pos;
        } else {
          skip_non_data(1);
        }
        break;
      case Pattern::kOrdinal:
        if (!has_point_) skip_non_data(2);
        break;
      case Pattern::kMinus:
      case Pattern::kPlus:
      case Pattern::kSignAny:
        if ((input[pos] == '-' && node.pattern != Pattern::kPlus) ||
            (input[pos] == '+' && node.pattern != Pattern::kMinus)) {
          sign = input[pos++];
        } else {
          skip_non_data(1);
        }
        break;
      default:
        break;
    }
  }
  if (!digits.empty() && digits.back() == '.') digits.pop_back();
  // PostgreSQL hands "<sign><digits>" to numeric's input with precision pre + V + the digits
  // read after the point, and scale those digits.
  std::string text(1, sign);
  text += digits;
  if (digits.empty() || digits == ".") {
    return Status::Invalid("invalid input syntax for type numeric: \"{}\"", text);
  }
  Int128 unscaled = 0;
  int significant = 0;
  int int_digits = 0;
  bool in_fraction = false;
  for (char c : digits) {
    if (c == '.') {
      in_fraction = true;
      continue;
    }
    if (significant > 0 || c != '0') {
      ++significant;
      if (!in_fraction) ++int_digits;
    }
    if (significant > 38) return Status::Invalid("value overflows numeric format");
    unscaled = unscaled * 10 + (c - '0');
  }
  const int precision = pre_ + shift_ + read_post;
  if (int_digits > precision - read_post) {
    return Status::Invalid(
        "numeric field overflow: a field with precision {}, scale {} must round to an absolute "
        "value less than 10^{}",
        precision, read_post, precision - read_post);
  }
  Number n;
  n.unscaled = sign == '-' ? -unscaled : unscaled;
  n.scale = read_post + shift_;
  if (n.scale > 38) return Status::Invalid("value overflows numeric format");
  return n;
}

}  // namespace floe::expr
