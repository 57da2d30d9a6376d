#include "floe/common/interval.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "floe/common/ascii.h"
#include "floe/common/calendar.h"

namespace floe {

namespace {

constexpr int64_t kDaysPerMonth = 30;
constexpr int64_t kMonthsPerYear = 12;
constexpr double kSecondsPerDay = 86400.0;

Status OutOfRange() { return Status::Invalid("interval out of range"); }

bool FitsInt32(__int128 v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}
bool FitsInt64(__int128 v) {
  return v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max();
}

// An interval from wide parts; false when a part does not fit.
bool Narrow(__int128 months, __int128 days, __int128 micros, IntervalValue* out) {
  if (!FitsInt32(months) || !FitsInt32(days) || !FitsInt64(micros)) return false;
  out->months = static_cast<int32_t>(months);
  out->days = static_cast<int32_t>(days);
  out->micros = static_cast<int64_t>(micros);
  return true;
}

// --- input ------------------------------------------------------------------------------

// The units of interval input, each a field that may be given once.
enum class Unit {
  kMicrosecond,
  kMillisecond,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kWeek,
  kMonth,
  kYear,
  kDecade,
  kCentury,
  kMillennium,
};

std::optional<Unit> UnitNamed(std::string_view s) {
  struct Name {
    const char* text;
    Unit unit;
  };
  static constexpr Name kNames[] = {
      {"microsecond", Unit::kMicrosecond},
      {"microseconds", Unit::kMicrosecond},
      {"microsecon", Unit::kMicrosecond},
      {"us", Unit::kMicrosecond},
      {"usec", Unit::kMicrosecond},
      {"usecs", Unit::kMicrosecond},
      {"usecond", Unit::kMicrosecond},
      {"useconds", Unit::kMicrosecond},
      {"millisecond", Unit::kMillisecond},
      {"milliseconds", Unit::kMillisecond},
      {"millisecon", Unit::kMillisecond},
      {"ms", Unit::kMillisecond},
      {"msec", Unit::kMillisecond},
      {"msecs", Unit::kMillisecond},
      {"msecond", Unit::kMillisecond},
      {"mseconds", Unit::kMillisecond},
      {"second", Unit::kSecond},
      {"seconds", Unit::kSecond},
      {"sec", Unit::kSecond},
      {"secs", Unit::kSecond},
      {"s", Unit::kSecond},
      {"minute", Unit::kMinute},
      {"minutes", Unit::kMinute},
      {"min", Unit::kMinute},
      {"mins", Unit::kMinute},
      {"m", Unit::kMinute},
      {"hour", Unit::kHour},
      {"hours", Unit::kHour},
      {"hr", Unit::kHour},
      {"hrs", Unit::kHour},
      {"h", Unit::kHour},
      {"day", Unit::kDay},
      {"days", Unit::kDay},
      {"d", Unit::kDay},
      {"week", Unit::kWeek},
      {"weeks", Unit::kWeek},
      {"w", Unit::kWeek},
      {"month", Unit::kMonth},
      {"months", Unit::kMonth},
      {"mon", Unit::kMonth},
      {"mons", Unit::kMonth},
      {"year", Unit::kYear},
      {"years", Unit::kYear},
      {"yr", Unit::kYear},
      {"yrs", Unit::kYear},
      {"y", Unit::kYear},
      {"decade", Unit::kDecade},
      {"decades", Unit::kDecade},
      {"dec", Unit::kDecade},
      {"decs", Unit::kDecade},
      {"century", Unit::kCentury},
      {"centuries", Unit::kCentury},
      {"cent", Unit::kCentury},
      {"c", Unit::kCentury},
      {"millennium", Unit::kMillennium},
      {"millennia", Unit::kMillennium},
      {"mil", Unit::kMillennium},
      {"mils", Unit::kMillennium},
  };
  for (const Name& n : kNames) {
    if (s == n.text) return n.unit;
  }
  return std::nullopt;
}

// The interval being assembled: wide parts, and the fields already given.
struct Accumulator {
  __int128 months = 0;
  __int128 days = 0;
  __int128 micros = 0;
  double frac_micros = 0;  // fractions of seconds, rounded once at the end
  uint32_t given = 0;      // one bit per Unit; kTimeBits for a time field
};

constexpr uint32_t Bit(Unit u) { return 1u << static_cast<int>(u); }
constexpr uint32_t kTimeBits = Bit(Unit::kHour) | Bit(Unit::kMinute) | Bit(Unit::kSecond);

bool Limit(double v) { return std::isfinite(v) && std::fabs(v) < 9.2e18; }

// Adds `value` (a decimal number, sign included) of `unit`: whole parts exactly, the
// fraction spilling into the next smaller field as PostgreSQL does (a fraction of a year
// into whole months, rounded; of a month into days (30 a month) and on into seconds; of a
// week or a day into seconds).
bool AddField(Accumulator* acc, Unit unit, double value) {
  if (!Limit(value)) return false;
  const double whole = std::trunc(value);
  const double frac = value - whole;
  const auto w = static_cast<__int128>(whole);
  auto add_years = [&](int64_t years_per_unit) {
    acc->months += w * years_per_unit * kMonthsPerYear +
                   static_cast<__int128>(std::rint(frac * years_per_unit * kMonthsPerYear));
  };
  // A fraction of `days` days: whole days, the rest into seconds.
  auto add_day_fraction = [&](double fdays) {
    const double fd_whole = std::trunc(fdays);
    acc->days += static_cast<__int128>(fd_whole);
    acc->frac_micros += (fdays - fd_whole) * kSecondsPerDay * 1e6;
  };
  switch (unit) {
    case Unit::kMicrosecond:
      acc->frac_micros += value;
      break;
    case Unit::kMillisecond:
      acc->frac_micros += value * 1e3;
      break;
    case Unit::kSecond:
      acc->micros += w * kMicrosPerSecond;
      acc->frac_micros += frac * 1e6;
      break;
    case Unit::kMinute:
      acc->micros += w * kMicrosPerMinute;
      acc->frac_micros += frac * 60e6;
      break;
    case Unit::kHour:
      acc->micros += w * kMicrosPerHour;
      acc->frac_micros += frac * 3600e6;
      break;
    case Unit::kDay:
      acc->days += w;
      add_day_fraction(frac);
      break;
    case Unit::kWeek:
      acc->days += w * 7;
      add_day_fraction(frac * 7);
      break;
    case Unit::kMonth:
      acc->months += w;
      add_day_fraction(frac * kDaysPerMonth);
      break;
    case Unit::kYear:
      add_years(1);
      break;
    case Unit::kDecade:
      add_years(10);
      break;
    case Unit::kCentury:
      add_years(100);
      break;
    case Unit::kMillennium:
      add_years(1000);
      break;
  }
  return true;
}

// A signed decimal number at the start of `s` ("+1", "-2.5", ".5"); its length in *used.
bool ParseNumber(std::string_view s, double* value, size_t* used) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const size_t digits_start = i;
  bool any = false;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    ++i;
    any = true;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      ++i;
      any = true;
    }
  }
  if (!any || i == digits_start) return false;
  std::string text(s.substr(0, i));
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return false;
  *used = i;
  return true;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

enum class Parsed { kOk, kBadFormat, kOutOfRange };

// [+-]h[:m[:s[.f]]] (m:s[.f] when the typmod's lowest fields are minute to second).
Parsed ParseTimeField(std::string_view tok, bool minutes_first, Accumulator* acc) {
  bool negative = false;
  if (!tok.empty() && (tok[0] == '+' || tok[0] == '-')) {
    negative = tok[0] == '-';
    tok.remove_prefix(1);
  }
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = tok.find(':', start);
    parts.push_back(tok.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) return Parsed::kBadFormat;
  // Hours and minutes are whole; the last part may carry a fraction.
  for (size_t k = 0; k + 1 < parts.size(); ++k) {
    if (!AllDigits(parts[k])) return Parsed::kBadFormat;
  }
  double last = 0;
  size_t used = 0;
  if (!ParseNumber(parts.back(), &last, &used) || used != parts.back().size() ||
      parts.back()[0] == '+' || parts.back()[0] == '-') {
    return Parsed::kBadFormat;
  }
  auto whole = [](std::string_view p) -> std::optional<int64_t> {
    if (p.size() > 15) return std::nullopt;
    return std::stoll(std::string(p));
  };
  double hours = 0, minutes = 0, seconds = 0;
  if (parts.size() == 3) {
    auto h = whole(parts[0]);
    auto m = whole(parts[1]);
    if (!h || !m) return Parsed::kOutOfRange;
    hours = static_cast<double>(*h);
    minutes = static_cast<double>(*m);
    seconds = last;
  } else if (minutes_first) {
    auto m = whole(parts[0]);
    if (!m) return Parsed::kOutOfRange;
    minutes = static_cast<double>(*m);
    seconds = last;
  } else {
    auto h = whole(parts[0]);
    if (!h) return Parsed::kOutOfRange;
    hours = static_cast<double>(*h);
    minutes = last;
    // hh:mm takes no fraction of a minute.
    if (std::trunc(minutes) != minutes) return Parsed::kBadFormat;
  }
  if (minutes > 59 || seconds > 60) return Parsed::kOutOfRange;
  const double sign = negative ? -1 : 1;
  const auto h = static_cast<__int128>(hours);
  const auto m = static_cast<__int128>(minutes);
  const double whole_s = std::trunc(seconds);
  acc->micros += (negative ? -1 : 1) *
                 (h * kMicrosPerHour + m * kMicrosPerMinute +
                  static_cast<__int128>(whole_s) * kMicrosPerSecond);
  acc->frac_micros += sign * (seconds - whole_s) * 1e6;
  return Parsed::kOk;
}

// ISO 8601: P[nY][nM][nW][nD][T[nH][nM][nS]], or P<yyyy-mm-dd>T<hh:mm:ss>.
Parsed ParseIso8601(std::string_view s, Accumulator* acc) {
  s.remove_prefix(1);  // 'p'
  if (s.empty()) return Parsed::kBadFormat;
  // The alternative form: a date and a time written out.
  if (s.size() >= 4 && std::isdigit(static_cast<unsigned char>(s[0])) &&
      s.find('-') != std::string_view::npos) {
    const size_t t = s.find('t');
    std::string_view date = s.substr(0, t);
    int64_t ymd[3] = {0, 0, 0};
    size_t k = 0, start = 0;
    while (k < 3) {
      const size_t dash = date.find('-', start);
      std::string_view part =
          date.substr(start, dash == std::string_view::npos ? dash : dash - start);
      if (!AllDigits(part) || part.size() > 9) return Parsed::kBadFormat;
      ymd[k++] = std::stoll(std::string(part));
      if (dash == std::string_view::npos) break;
      start = dash + 1;
    }
    if (k != 3) return Parsed::kBadFormat;
    acc->months += static_cast<__int128>(ymd[0]) * 12 + ymd[1];
    acc->days += ymd[2];
    if (t != std::string_view::npos) {
      return ParseTimeField(s.substr(t + 1), false, acc);
    }
    return Parsed::kOk;
  }
  bool in_time = false;
  bool any = false;
  while (!s.empty()) {
    if (s[0] == 't') {
      if (in_time) return Parsed::kBadFormat;
      in_time = true;
      s.remove_prefix(1);
      continue;
    }
    double v = 0;
    size_t used = 0;
    if (!ParseNumber(s, &v, &used) || used >= s.size()) return Parsed::kBadFormat;
    const char designator = s[used];
    s.remove_prefix(used + 1);
    Unit unit;
    if (!in_time) {
      switch (designator) {
        case 'y':
          unit = Unit::kYear;
          break;
        case 'm':
          unit = Unit::kMonth;
          break;
        case 'w':
          unit = Unit::kWeek;
          break;
        case 'd':
          unit = Unit::kDay;
          break;
        default:
          return Parsed::kBadFormat;
      }
    } else {
      switch (designator) {
        case 'h':
          unit = Unit::kHour;
          break;
        case 'm':
          unit = Unit::kMinute;
          break;
        case 's':
          unit = Unit::kSecond;
          break;
        default:
          return Parsed::kBadFormat;
      }
    }
    if (acc->given & Bit(unit)) return Parsed::kBadFormat;
    acc->given |= Bit(unit);
    if (!AddField(acc, unit, v)) return Parsed::kOutOfRange;
    any = true;
  }
  return any ? Parsed::kOk : Parsed::kBadFormat;
}

// The unit a bare number has under a typmod's fields.
Unit DefaultUnit(int64_t mask) {
  if (mask == 0 || (mask & kIntervalMaskSecond)) return Unit::kSecond;
  if (mask & kIntervalMaskMinute) return Unit::kMinute;
  if (mask & kIntervalMaskHour) return Unit::kHour;
  if (mask & kIntervalMaskDay) return Unit::kDay;
  if (mask & kIntervalMaskMonth) return Unit::kMonth;
  return Unit::kYear;
}

// One whitespace-separated piece of the input.
struct Token {
  enum Kind { kNumber, kUnit, kTime, kYearMonth, kAgo };
  explicit Token(Kind k) : kind(k) {}
  Kind kind;
  double number = 0;
  Unit unit = Unit::kSecond;
  std::string_view text;
};

Parsed Tokenize(std::string_view s, std::vector<Token>* tokens) {
  size_t i = 0;
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    std::string_view word = s.substr(i, j - i);
    i = j;
    if (word == "@") continue;
    if (word[0] == '@') word.remove_prefix(1);
    if (word == "ago") {
      tokens->push_back(Token(Token::kAgo));
      continue;
    }
    if (word.find(':') != std::string_view::npos) {
      Token t(Token::kTime);
      t.text = word;
      tokens->push_back(t);
      continue;
    }
    const char c0 = word[0];
    const bool numeric_start = std::isdigit(static_cast<unsigned char>(c0)) || c0 == '.' ||
                               ((c0 == '+' || c0 == '-') && word.size() > 1);
    if (!numeric_start) {
      std::optional<Unit> unit = UnitNamed(word);
      if (!unit) return Parsed::kBadFormat;
      Token t(Token::kUnit);
      t.unit = *unit;
      tokens->push_back(t);
      continue;
    }
    // years-months: [+-]y-m.
    const size_t dash = word.find('-', 1);
    if (dash != std::string_view::npos) {
      Token t(Token::kYearMonth);
      t.text = word;
      tokens->push_back(t);
      continue;
    }
    double v = 0;
    size_t used = 0;
    if (!ParseNumber(word, &v, &used)) return Parsed::kBadFormat;
    Token t(Token::kNumber);
    t.number = v;
    tokens->push_back(t);
    if (used < word.size()) {
      // A unit written against its number: "1day", "5h".
      std::optional<Unit> unit = UnitNamed(word.substr(used));
      if (!unit) return Parsed::kBadFormat;
      Token u(Token::kUnit);
      u.unit = *unit;
      tokens->push_back(u);
    }
  }
  return Parsed::kOk;
}

Parsed ParseYearMonth(std::string_view tok, Accumulator* acc) {
  bool negative = false;
  if (tok[0] == '+' || tok[0] == '-') {
    negative = tok[0] == '-';
    tok.remove_prefix(1);
  }
  const size_t dash = tok.find('-');
  std::string_view y = tok.substr(0, dash), m = tok.substr(dash + 1);
  if (!AllDigits(y) || !AllDigits(m) || y.size() > 9 || m.size() > 9) return Parsed::kBadFormat;
  const int64_t years = std::stoll(std::string(y)), months = std::stoll(std::string(m));
  if (months > 11) return Parsed::kOutOfRange;
  const __int128 total = static_cast<__int128>(years) * 12 + months;
  acc->months += negative ? -total : total;
  return Parsed::kOk;
}

// The fields below the typmod's lowest one dropped, as PostgreSQL stores a restricted
// interval (INTERVAL '1 day 2 hours' DAY is 1 day).
void ApplyMask(int64_t mask, IntervalValue* v) {
  if (mask == 0 || (mask & kIntervalMaskSecond)) return;
  if (mask & kIntervalMaskMinute) {
    v->micros -= v->micros % kMicrosPerMinute;
  } else if (mask & kIntervalMaskHour) {
    v->micros -= v->micros % kMicrosPerHour;
  } else if (mask & kIntervalMaskDay) {
    v->micros = 0;
  } else if (mask & kIntervalMaskMonth) {
    v->days = 0;
    v->micros = 0;
  } else {
    v->months -= v->months % 12;
    v->days = 0;
    v->micros = 0;
  }
}

}  // namespace

// --- storage ----------------------------------------------------------------------------

std::string IntervalBytes(const IntervalValue& v) {
  std::string out(kIntervalBytes, '\0');
  std::memcpy(out.data(), &v.months, 4);
  std::memcpy(out.data() + 4, &v.days, 4);
  std::memcpy(out.data() + 8, &v.micros, 8);
  return out;
}

IntervalValue IntervalFromBytes(std::string_view bytes) {
  IntervalValue v;
  if (bytes.size() < static_cast<size_t>(kIntervalBytes)) return v;
  std::memcpy(&v.months, bytes.data(), 4);
  std::memcpy(&v.days, bytes.data() + 4, 4);
  std::memcpy(&v.micros, bytes.data() + 8, 8);
  return v;
}

__int128 IntervalSpan(const IntervalValue& v) {
  return (static_cast<__int128>(v.months) * kDaysPerMonth + v.days) * kMicrosPerDay + v.micros;
}

Result<IntervalValue> ParseIntervalText(std::string_view text, int64_t mask) {
  auto bad = [&]() {
    return Status::Invalid("invalid input syntax for type interval: \"{}\"", text);
  };
  auto out_of_range = [&]() {
    return Status::Invalid("interval field value out of range: \"{}\"", text);
  };
  const std::string lower = AsciiLower(text);
  std::string_view s = lower;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.empty()) return bad();
  Accumulator acc;
  bool ago = false;
  Parsed parsed = Parsed::kOk;
  if (s[0] == 'p') {
    parsed = ParseIso8601(s, &acc);
  } else {
    std::vector<Token> tokens;
    parsed = Tokenize(s, &tokens);
    if (parsed == Parsed::kOk && tokens.empty()) parsed = Parsed::kBadFormat;
    // Right to left: a unit names the number before it; a bare number before a time field
    // counts days ('1 12:00'); any other bare number takes the typmod's unit (seconds).
    std::optional<Unit> pending;
    bool after_time = false;
    for (size_t k = tokens.size(); parsed == Parsed::kOk && k-- > 0;) {
      const Token& t = tokens[k];
      switch (t.kind) {
        case Token::kAgo:
          if (pending || k + 1 != tokens.size() || ago) parsed = Parsed::kBadFormat;
          ago = true;
          break;
        case Token::kUnit:
          if (pending) parsed = Parsed::kBadFormat;
          pending = t.unit;
          break;
        case Token::kTime: {
          if (pending || (acc.given & kTimeBits)) {
            parsed = Parsed::kBadFormat;
            break;
          }
          acc.given |= kTimeBits;
          const bool minutes_first =
              mask != 0 && (mask & kIntervalMaskSecond) && (mask & kIntervalMaskMinute) &&
              !(mask & kIntervalMaskHour) && !(mask & kIntervalMaskDay);
          parsed = ParseTimeField(t.text, minutes_first, &acc);
          after_time = true;
          break;
        }
        case Token::kYearMonth: {
          const uint32_t ym = Bit(Unit::kYear) | Bit(Unit::kMonth);
          if (pending || (acc.given & ym)) {
            parsed = Parsed::kBadFormat;
            break;
          }
          acc.given |= ym;
          parsed = ParseYearMonth(t.text, &acc);
          break;
        }
        case Token::kNumber: {
          Unit unit = pending ? *pending : (after_time ? Unit::kDay : DefaultUnit(mask));
          pending.reset();
          after_time = false;
          if (acc.given & Bit(unit)) {
            parsed = Parsed::kBadFormat;
            break;
          }
          acc.given |= Bit(unit);
          if (!AddField(&acc, unit, t.number)) parsed = Parsed::kOutOfRange;
          break;
        }
      }
    }
    if (parsed == Parsed::kOk && pending) parsed = Parsed::kBadFormat;  // a unit with no number
    if (parsed == Parsed::kOk && acc.given == 0) parsed = Parsed::kBadFormat;  // 'ago' alone
  }
  if (parsed == Parsed::kBadFormat) return bad();
  if (parsed == Parsed::kOutOfRange) return out_of_range();
  if (!Limit(acc.frac_micros)) return out_of_range();
  const __int128 micros = acc.micros + static_cast<__int128>(std::llround(acc.frac_micros));
  IntervalValue v;
  if (!Narrow(acc.months, acc.days, micros, &v)) return out_of_range();
  if (ago) {
    if (!Narrow(-static_cast<__int128>(v.months), -static_cast<__int128>(v.days),
                -static_cast<__int128>(v.micros), &v)) {
      return out_of_range();
    }
  }
  ApplyMask(mask, &v);
  return v;
}

// --- output -----------------------------------------------------------------------------

void AppendIntervalText(const IntervalValue& v, std::string* out) {
  const int64_t years = v.months / 12;
  const int64_t months = v.months % 12;
  bool first = true;
  bool previous_negative = false;
  auto part = [&](int64_t value, const char* unit) {
    if (value == 0) return;
    if (!first) out->push_back(' ');
    if (previous_negative && value > 0) out->push_back('+');
    out->append(std::to_string(value));
    out->push_back(' ');
    out->append(unit);
    if (value != 1) out->push_back('s');
    previous_negative = value < 0;
    first = false;
  };
  part(years, "year");
  part(months, "mon");
  part(v.days, "day");
  if (!first && v.micros == 0) return;
  if (!first) out->push_back(' ');
  const bool negative = v.micros < 0;
  if (negative) {
    out->push_back('-');
  } else if (previous_negative) {
    out->push_back('+');
  }
  // |micros| as unsigned: INT64_MIN has no positive twin.
  const uint64_t abs = negative ? 0 - static_cast<uint64_t>(v.micros) : static_cast<uint64_t>(v.micros);
  const uint64_t hours = abs / static_cast<uint64_t>(kMicrosPerHour);
  const uint64_t minutes = abs / static_cast<uint64_t>(kMicrosPerMinute) % 60;
  const uint64_t seconds = abs / static_cast<uint64_t>(kMicrosPerSecond) % 60;
  const uint64_t fraction = abs % static_cast<uint64_t>(kMicrosPerSecond);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%02llu:%02llu:%02llu", static_cast<unsigned long long>(hours),
                static_cast<unsigned long long>(minutes),
                static_cast<unsigned long long>(seconds));
  out->append(buf);
  if (fraction != 0) {
    std::snprintf(buf, sizeof(buf), ".%06llu", static_cast<unsigned long long>(fraction));
    std::string f(buf);
    while (f.back() == '0') f.pop_back();
    out->append(f);
  }
}

std::string IntervalText(const IntervalValue& v) {
  std::string out;
  AppendIntervalText(v, &out);
  return out;
}

// --- arithmetic -------------------------------------------------------------------------

Result<IntervalValue> AddIntervals(const IntervalValue& a, const IntervalValue& b) {
  IntervalValue r;
  if (!Narrow(static_cast<__int128>(a.months) + b.months, static_cast<__int128>(a.days) + b.days,
              static_cast<__int128>(a.micros) + b.micros, &r)) {
    return OutOfRange();
  }
  return r;
}

Result<IntervalValue> SubtractIntervals(const IntervalValue& a, const IntervalValue& b) {
  IntervalValue r;
  if (!Narrow(static_cast<__int128>(a.months) - b.months, static_cast<__int128>(a.days) - b.days,
              static_cast<__int128>(a.micros) - b.micros, &r)) {
    return OutOfRange();
  }
  return r;
}

Result<IntervalValue> NegateInterval(const IntervalValue& v) {
  IntervalValue r;
  if (!Narrow(-static_cast<__int128>(v.months), -static_cast<__int128>(v.days),
              -static_cast<__int128>(v.micros), &r)) {
    return OutOfRange();
  }
  return r;
}

namespace {

// Rounded to microseconds' worth of precision (six decimals), as PostgreSQL rounds the
// spilled fractions so that 0.1 month * 10 stays 1 month.
double RoundToMicros(double x) { return std::rint(x * 1e6) / 1e6; }

// v scaled by `months_f`, `days_f` and `micros_f`, the three fields already multiplied
// (or divided): whole months, the fraction of a month as days, the fraction of a day as
// seconds, the rest in microseconds.
Result<IntervalValue> Scaled(double months_f, double days_f, double micros_f) {
  if (!std::isfinite(months_f) || !std::isfinite(days_f) || !std::isfinite(micros_f) ||
      std::fabs(months_f) > 2.2e9 || std::fabs(days_f) > 2.2e9) {
    return OutOfRange();
  }
  const double months = std::trunc(months_f);
  const double month_rest_days = RoundToMicros((months_f - months) * kDaysPerMonth);
  double days = std::trunc(days_f);
  double rest_seconds = RoundToMicros(
      (days_f - days + month_rest_days - std::trunc(month_rest_days)) * kSecondsPerDay);
  if (std::fabs(rest_seconds) >= kSecondsPerDay) {
    const double whole_days = std::trunc(rest_seconds / kSecondsPerDay);
    days += whole_days;
    rest_seconds -= whole_days * kSecondsPerDay;
  }
  days += std::trunc(month_rest_days);
  const double micros = std::rint(micros_f + rest_seconds * 1e6);
  if (!std::isfinite(micros) || std::fabs(micros) >= 9.2e18 || std::fabs(days) > 2.2e9) {
    return OutOfRange();
  }
  IntervalValue r;
  if (!Narrow(static_cast<__int128>(months), static_cast<__int128>(days),
              static_cast<__int128>(micros), &r)) {
    return OutOfRange();
  }
  return r;
}

}  // namespace

Result<IntervalValue> MultiplyInterval(const IntervalValue& v, double factor) {
  if (std::isnan(factor)) return OutOfRange();
  return Scaled(v.months * factor, v.days * factor, static_cast<double>(v.micros) * factor);
}

Result<IntervalValue> DivideInterval(const IntervalValue& v, double divisor) {
  if (divisor == 0) return Status::Invalid("division by zero");
  if (std::isnan(divisor)) return OutOfRange();
  return Scaled(v.months / divisor, v.days / divisor, static_cast<double>(v.micros) / divisor);
}

Result<IntervalValue> JustifyHours(const IntervalValue& v) {
  __int128 days = static_cast<__int128>(v.days) + v.micros / kMicrosPerDay;
  __int128 micros = v.micros % kMicrosPerDay;
  if (days > 0 && micros < 0) {
    micros += kMicrosPerDay;
    --days;
  } else if (days < 0 && micros > 0) {
    micros -= kMicrosPerDay;
    ++days;
  }
  IntervalValue r;
  if (!Narrow(v.months, days, micros, &r)) return OutOfRange();
  return r;
}

Result<IntervalValue> JustifyDays(const IntervalValue& v) {
  __int128 months = static_cast<__int128>(v.months) + v.days / kDaysPerMonth;
  __int128 days = v.days % kDaysPerMonth;
  if (months > 0 && days < 0) {
    days += kDaysPerMonth;
    --months;
  } else if (months < 0 && days > 0) {
    days -= kDaysPerMonth;
    ++months;
  }
  IntervalValue r;
  if (!Narrow(months, days, v.micros, &r)) return OutOfRange();
  return r;
}

Result<IntervalValue> JustifyInterval(const IntervalValue& v) {
  __int128 months = v.months, days = v.days, micros = v.micros;
  // Days first into months when days and time share a sign, which keeps the sum of whole
  // days from the time in range.
  if ((days > 0 && micros > 0) || (days < 0 && micros < 0)) {
    months += days / kDaysPerMonth;
    days %= kDaysPerMonth;
  }
  days += micros / kMicrosPerDay;
  micros %= kMicrosPerDay;
  months += days / kDaysPerMonth;
  days %= kDaysPerMonth;
  if (months > 0 && (days < 0 || (days == 0 && micros < 0))) {
    days += kDaysPerMonth;
    --months;
  } else if (months < 0 && (days > 0 || (days == 0 && micros > 0))) {
    days -= kDaysPerMonth;
    ++months;
  }
  if (days > 0 && micros < 0) {
    micros += kMicrosPerDay;
    --days;
  } else if (days < 0 && micros > 0) {
    micros -= kMicrosPerDay;
    ++days;
  }
  IntervalValue r;
  if (!Narrow(months, days, micros, &r)) return OutOfRange();
  return r;
}

Result<IntervalValue> TimestampDifference(int64_t a, int64_t b) {
  const __int128 diff = static_cast<__int128>(a) - b;
  if (!FitsInt64(diff)) return OutOfRange();
  IntervalValue r;
  if (!Narrow(0, diff / kMicrosPerDay, diff % kMicrosPerDay, &r)) return OutOfRange();
  return r;
}

Result<IntervalValue> TimestampAge(int64_t a, int64_t b) {
  const bool negative = a < b;
  const int64_t hi = negative ? b : a;
  const int64_t lo = negative ? a : b;
  const CivilDate dh = CivilFromDays(FloorDiv(hi, kMicrosPerDay));
  const CivilDate dl = CivilFromDays(FloorDiv(lo, kMicrosPerDay));
  int64_t micros = FloorMod(hi, kMicrosPerDay) - FloorMod(lo, kMicrosPerDay);
  int64_t days = static_cast<int64_t>(dh.day) - dl.day;
  int64_t months = static_cast<int64_t>(dh.month) - dl.month;
  int64_t years = dh.year - dl.year;
  if (micros < 0) {
    micros += kMicrosPerDay;
    --days;
  }
  // A negative day count borrows the length of the earlier timestamp's month.
  while (days < 0) {
    days += DaysInMonth(dl.year, dl.month);
    --months;
  }
  while (months < 0) {
    months += 12;
    --years;
  }
  __int128 m = static_cast<__int128>(years) * 12 + months;
  __int128 d = days, us = micros;
  if (negative) {
    m = -m;
    d = -d;
    us = -us;
  }
  IntervalValue r;
  if (!Narrow(m, d, us, &r)) return OutOfRange();
  return r;
}

}  // namespace floe
