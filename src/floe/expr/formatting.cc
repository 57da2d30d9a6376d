// Date/time templates: to_char over timestamps, to_timestamp and to_date (formatting.h).

#include "floe/expr/formatting.h"

#include <fmt/format.h>

#include <cstdlib>
#include <limits>

#include "floe/expr/cast_internal.h"
#include "floe/expr/formatting_internal.h"

namespace floe::expr {

namespace {

using internal::CharLength;
using internal::IsAsciiDigit;
using internal::IsAsciiSpace;
using internal::IsoWeek;
using internal::IsoWeekOf;
using internal::IsoYearStart;
using internal::IsSeparatorChar;
using internal::StartsWithIgnoreCase;
using Field = DateTimeTemplate::Field;
using Keyword = DateTimeTemplate::Keyword;
using LetterCase = DateTimeTemplate::LetterCase;
using Node = DateTimeTemplate::Node;
using NodeKind = DateTimeTemplate::NodeKind;

constexpr LetterCase kU = LetterCase::kUpper;
constexpr LetterCase kL = LetterCase::kLower;
constexpr LetterCase kC = LetterCase::kCapitalized;

// Every spelling PostgreSQL knows: each pattern in upper and in lower case, and the names
// also capitalized. Numeric fields carry the width a fixed-width reading takes.
constexpr Keyword kKeywords[] = {
    {"A.D.", Field::kEraDots, kU, 0, false},
    {"a.d.", Field::kEraDots, kL, 0, false},
    {"A.M.", Field::kMeridiemDots, kU, 0, false},
    {"a.m.", Field::kMeridiemDots, kL, 0, false},
    {"AD", Field::kEra, kU, 0, false},
    {"ad", Field::kEra, kL, 0, false},
    {"AM", Field::kMeridiem, kU, 0, false},
    {"am", Field::kMeridiem, kL, 0, false},
    {"B.C.", Field::kEraDots, kU, 0, false},
    {"b.c.", Field::kEraDots, kL, 0, false},
    {"BC", Field::kEra, kU, 0, false},
    {"bc", Field::kEra, kL, 0, false},
    {"CC", Field::kCentury, kU, 2, true},
    {"cc", Field::kCentury, kL, 2, true},
    {"DAY", Field::kDayName, kU, 0, false},
    {"Day", Field::kDayName, kC, 0, false},
    {"day", Field::kDayName, kL, 0, false},
    {"DDD", Field::kDayOfYear, kU, 3, true},
    {"ddd", Field::kDayOfYear, kL, 3, true},
    {"DD", Field::kDayOfMonth, kU, 2, true},
    {"dd", Field::kDayOfMonth, kL, 2, true},
    {"DY", Field::kDayAbbrev, kU, 0, false},
    {"Dy", Field::kDayAbbrev, kC, 0, false},
    {"dy", Field::kDayAbbrev, kL, 0, false},
    {"D", Field::kDayOfWeek, kU, 1, true},
    {"d", Field::kDayOfWeek, kL, 1, true},
    {"FF1", Field::kFraction, kU, 1, true},
    {"FF2", Field::kFraction, kU, 2, true},
    {"FF3", Field::kFraction, kU, 3, true},
    {"FF4", Field::kFraction, kU, 4, true},
    {"FF5", Field::kFraction, kU, 5, true},
    {"FF6", Field::kFraction, kU, 6, true},
    {"ff1", Field::kFraction, kL, 1, true},
    {"ff2", Field::kFraction, kL, 2, true},
    {"ff3", Field::kFraction, kL, 3, true},
    {"ff4", Field::kFraction, kL, 4, true},
    {"ff5", Field::kFraction, kL, 5, true},
    {"ff6", Field::kFraction, kL, 6, true},
    {"FX", Field::kFixedFormat, kU, 0, false},
    {"fx", Field::kFixedFormat, kL, 0, false},
    {"HH24", Field::kHour24, kU, 2, true},
    {"hh24", Field::kHour24, kL, 2, true},
    {"HH12", Field::kHour12, kU, 2, true},
    {"hh12", Field::kHour12, kL, 2, true},
    {"HH", Field::kHour12, kU, 2, true},
    {"hh", Field::kHour12, kL, 2, true},
    {"IDDD", Field::kIsoDayOfYear, kU, 3, true},
    {"iddd", Field::kIsoDayOfYear, kL, 3, true},
    {"ID", Field::kIsoDayOfWeek, kU, 1, true},
    {"id", Field::kIsoDayOfWeek, kL, 1, true},
    {"IW", Field::kIsoWeek, kU, 2, true},
    {"iw", Field::kIsoWeek, kL, 2, true},
    {"IYYY", Field::kIsoYear, kU, 4, true},
    {"iyyy", Field::kIsoYear, kL, 4, true},
    {"IYY", Field::kIsoYear, kU, 3, true},
    {"iyy", Field::kIsoYear, kL, 3, true},
    {"IY", Field::kIsoYear, kU, 2, true},
    {"iy", Field::kIsoYear, kL, 2, true},
    {"I", Field::kIsoYear, kU, 1, true},
    {"i", Field::kIsoYear, kL, 1, true},
    {"J", Field::kJulianDay, kU, 1, true},
    {"j", Field::kJulianDay, kL, 1, true},
    {"MI", Field::kMinute, kU, 2, true},
    {"mi", Field::kMinute, kL, 2, true},
    {"MM", Field::kMonth, kU, 2, true},
    {"mm", Field::kMonth, kL, 2, true},
    {"MONTH", Field::kMonthName, kU, 0, false},
    {"Month", Field::kMonthName, kC, 0, false},
    {"month", Field::kMonthName, kL, 0, false},
    {"MON", Field::kMonthAbbrev, kU, 0, false},
    {"Mon", Field::kMonthAbbrev, kC, 0, false},
    {"mon", Field::kMonthAbbrev, kL, 0, false},
    {"MS", Field::kMillisecond, kU, 3, true},
    {"ms", Field::kMillisecond, kL, 3, true},
    {"OF", Field::kOffset, kU, 0, false},
    {"of", Field::kOffset, kL, 0, false},
    {"P.M.", Field::kMeridiemDots, kU, 0, false},
    {"p.m.", Field::kMeridiemDots, kL, 0, false},
    {"PM", Field::kMeridiem, kU, 0, false},
    {"pm", Field::kMeridiem, kL, 0, false},
    {"Q", Field::kQuarter, kU, 1, true},
    {"q", Field::kQuarter, kL, 1, true},
    {"RM", Field::kRomanMonth, kU, 0, false},
    {"rm", Field::kRomanMonth, kL, 0, false},
    {"SSSSS", Field::kSecondOfDay, kU, 5, true},
    {"sssss", Field::kSecondOfDay, kL, 5, true},
    {"SSSS", Field::kSecondOfDay, kU, 4, true},
    {"ssss", Field::kSecondOfDay, kL, 4, true},
    {"SS", Field::kSecond, kU, 2, true},
    {"ss", Field::kSecond, kL, 2, true},
    // TZH reads a sign first, so a number before it is never cut to its fixed width.
    {"TZH", Field::kZoneHour, kU, 2, false},
    {"tzh", Field::kZoneHour, kL, 2, false},
    {"TZM", Field::kZoneMinute, kU, 2, true},
    {"tzm", Field::kZoneMinute, kL, 2, true},
    {"TZ", Field::kZoneName, kU, 0, false},
    {"tz", Field::kZoneName, kL, 0, false},
    {"US", Field::kMicrosecond, kU, 6, true},
    {"us", Field::kMicrosecond, kL, 6, true},
    {"WW", Field::kWeekOfYear, kU, 2, true},
    {"ww", Field::kWeekOfYear, kL, 2, true},
    {"W", Field::kWeekOfMonth, kU, 1, true},
    {"w", Field::kWeekOfMonth, kL, 1, true},
    {"Y,YYY", Field::kYearWithComma, kU, 5, true},
    {"y,yyy", Field::kYearWithComma, kL, 5, true},
    {"YYYY", Field::kYear, kU, 4, true},
    {"yyyy", Field::kYear, kL, 4, true},
    {"YYY", Field::kYear, kU, 3, true},
    {"yyy", Field::kYear, kL, 3, true},
    {"YY", Field::kYear, kU, 2, true},
    {"yy", Field::kYear, kL, 2, true},
    {"Y", Field::kYear, kU, 1, true},
    {"y", Field::kYear, kL, 1, true},
};

// The longest spelling at `pos`, or null.
const Keyword* FindKeyword(std::string_view text, size_t pos) {
  const Keyword* best = nullptr;
  for (const Keyword& k : kKeywords) {
    if (text.compare(pos, k.text.size(), k.text) == 0 &&
        (best == nullptr || k.text.size() > best->text.size())) {
      best = &k;
    }
  }
  return best;
}

constexpr std::string_view kMonthNames[] = {"January",   "February", "March",    "April",
                                            "May",       "June",     "July",     "August",
                                            "September", "October",  "November", "December"};
constexpr std::string_view kMonthAbbrevs[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::string_view kDayNames[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                          "Thursday", "Friday", "Saturday"};
constexpr std::string_view kDayAbbrevs[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
// Roman month numbers, December first: no entry is a prefix of an earlier one, so the
// first match is the longest.
constexpr std::string_view kRomanMonths[] = {"XII", "XI", "X",  "IX",  "VIII", "VII",
                                             "VI",  "V",  "IV", "III", "II",   "I"};

// ---------------------------------------------------------------------------------------
// to_char.

// The fields of one instant, as the patterns print them.
struct Instant {
  int64_t days = 0;  // since 1970-01-01
  CivilDate date{};  // astronomical year
  int64_t hour = 0;
  int64_t minute = 0;
  int64_t second = 0;
  int64_t micros = 0;  // within the second
  int64_t second_of_day = 0;
  int64_t day_of_year = 0;  // 1..366
  int64_t weekday = 0;      // Sunday = 0
  IsoWeek iso{};
};

Instant Decompose(int64_t micros) {
  Instant t;
  t.days = FloorDiv(micros, kMicrosPerDay);
  const int64_t in_day = FloorMod(micros, kMicrosPerDay);
  t.date = CivilFromDays(t.days);
  t.second_of_day = in_day / kMicrosPerSecond;
  t.hour = in_day / kMicrosPerHour;
  t.minute = in_day / kMicrosPerMinute % 60;
  t.second = t.second_of_day % 60;
  t.micros = in_day % kMicrosPerSecond;
  t.day_of_year = t.days - DaysFromCivil(t.date.year, 1, 1) + 1;
  t.weekday = FloorMod(t.days + 4, 7);
  t.iso = IsoWeekOf(t.days);
  return t;
}

// A year as the patterns print it: 1 BC (astronomical 0) is 1, 2 BC is 2.
int64_t YearNumber(int64_t astronomical) {
  return astronomical > 0 ? astronomical : 1 - astronomical;
}

void AppendCased(std::string_view name, LetterCase letter_case, std::string* out) {
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (letter_case == LetterCase::kUpper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    if (letter_case == LetterCase::kLower && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    out->push_back(c);
  }
}

std::string RomanMonth(int month, bool lower) {
  std::string s(kRomanMonths[12 - month]);
  if (lower) {
    for (char& c : s) c = static_cast<char>(c + 32);
  }
  return s;
}

// Appends the number zero-padded to `width` digits (none with FM), the sign before the
// digits, then the node's ordinal suffix.
void AppendNumber(const Node& node, int64_t value, int width, std::string* out) {
  fmt::format_to(std::back_inserter(*out), "{:0{}}", value,
                 node.fill_mode ? 0 : width + (value < 0 ? 1 : 0));
  if (node.ordinal != DateTimeTemplate::Ordinal::kNone) {
    out->append(internal::Ordinal(value, node.ordinal == DateTimeTemplate::Ordinal::kUpper));
  }
}

void FormatPattern(const Node& node, const Instant& t, bool with_zone, std::string* out) {
  const Keyword& k = *node.keyword;
  const bool lower = k.letter_case == LetterCase::kLower;
  // Names are blank-padded to the longest one unless FM or TM.
  auto name = [&](std::string_view text, size_t width) {
    const size_t start = out->size();
    AppendCased(text, k.letter_case, out);
    if (!node.fill_mode && !node.translate) {
      while (out->size() - start < width) out->push_back(' ');
    }
  };
  const int64_t year = YearNumber(t.date.year);
  const int64_t iso_year = YearNumber(t.iso.year);
  const int64_t hour12 = t.hour % 12 == 0 ? 12 : t.hour % 12;
  switch (k.field) {
    case Field::kMeridiem:
      out->append(t.hour >= 12 ? (lower ? "pm" : "PM") : (lower ? "am" : "AM"));
      return;
    case Field::kMeridiemDots:
      out->append(t.hour >= 12 ? (lower ? "p.m." : "P.M.") : (lower ? "a.m." : "A.M."));
      return;
    case Field::kEra:
      out->append(t.date.year <= 0 ? (lower ? "bc" : "BC") : (lower ? "ad" : "AD"));
      return;
    case Field::kEraDots:
      out->append(t.date.year <= 0 ? (lower ? "b.c." : "B.C.") : (lower ? "a.d." : "A.D."));
      return;
    case Field::kCentury: {
      // The 21st century starts in 2001; 1 BC to 100 BC is century -1.
      const int64_t century = (year + 99) / 100;
      const int64_t signed_century = t.date.year > 0 ? century : -century;
      AppendNumber(node, signed_century, century <= 99 ? 2 : 0, out);
      return;
    }
    case Field::kDayName:
      name(kDayNames[t.weekday], 9);
      return;
    case Field::kDayAbbrev:
      name(kDayAbbrevs[t.weekday], 0);
      return;
    case Field::kDayOfYear:
      AppendNumber(node, t.day_of_year, 3, out);
      return;
    case Field::kDayOfMonth:
      AppendNumber(node, t.date.day, 2, out);
      return;
    case Field::kDayOfWeek:
      AppendNumber(node, t.weekday + 1, 1, out);
      return;
    case Field::kFraction: {
      int64_t v = t.micros;
      for (int i = k.width; i < 6; ++i) v /= 10;
      // Fractions keep their digits under FM.
      Node padded = node;
      padded.fill_mode = false;
      AppendNumber(padded, v, k.width, out);
      return;
    }
    case Field::kFixedFormat:
      return;
    case Field::kHour24:
      AppendNumber(node, t.hour, 2, out);
      return;
    case Field::kHour12:
      AppendNumber(node, hour12, 2, out);
      return;
    case Field::kIsoDayOfYear:
      AppendNumber(node, t.days - IsoYearStart(t.iso.year) + 1, 3, out);
      return;
    case Field::kIsoDayOfWeek:
      AppendNumber(node, t.weekday == 0 ? 7 : t.weekday, 1, out);
      return;
    case Field::kIsoWeek:
      AppendNumber(node, t.iso.week, 2, out);
      return;
    case Field::kIsoYear:
    case Field::kYear: {
      const int64_t y = k.field == Field::kYear ? year : iso_year;
      switch (k.width) {
        case 4:
          AppendNumber(node, y, y <= 9999 ? 4 : 0, out);
          return;
        case 3:
          AppendNumber(node, y % 1000, 3, out);
          return;
        case 2:
          AppendNumber(node, y % 100, 2, out);
          return;
        default:
          AppendNumber(node, y % 10, 1, out);
          return;
      }
    }
    case Field::kJulianDay:
      AppendNumber(node, t.days + 2440588, 0, out);
      return;
    case Field::kMinute:
      AppendNumber(node, t.minute, 2, out);
      return;
    case Field::kMonth:
      AppendNumber(node, t.date.month, 2, out);
      return;
    case Field::kMonthName:
      name(kMonthNames[t.date.month - 1], 9);
      return;
    case Field::kMonthAbbrev:
      name(kMonthAbbrevs[t.date.month - 1], 0);
      return;
    case Field::kMillisecond: {
      Node padded = node;
      padded.fill_mode = false;
      AppendNumber(padded, t.micros / 1000, 3, out);
      return;
    }
    case Field::kMicrosecond: {
      Node padded = node;
      padded.fill_mode = false;
      AppendNumber(padded, t.micros, 6, out);
      return;
    }
    case Field::kOffset:
      // The session zone is UTC: no minutes to show.
      out->append(node.fill_mode ? "+0" : "+00");
      return;
    case Field::kQuarter:
      AppendNumber(node, (t.date.month - 1) / 3 + 1, 1, out);
      return;
    case Field::kRomanMonth: {
      const std::string roman = RomanMonth(t.date.month, lower);
      out->append(roman);
      if (!node.fill_mode) out->append(4 - roman.size(), ' ');
      return;
    }
    case Field::kSecondOfDay:
      AppendNumber(node, t.second_of_day, 0, out);
      return;
    case Field::kSecond:
      AppendNumber(node, t.second, 2, out);
      return;
    case Field::kZoneHour:
      out->append("+00");
      return;
    case Field::kZoneMinute:
      out->append("00");
      return;
    case Field::kZoneName:
      if (with_zone) out->append(lower ? "utc" : "UTC");
      return;
    case Field::kWeekOfYear:
      AppendNumber(node, (t.day_of_year - 1) / 7 + 1, 2, out);
      return;
    case Field::kWeekOfMonth:
      AppendNumber(node, (t.date.day - 1) / 7 + 1, 1, out);
      return;
    case Field::kYearWithComma:
      fmt::format_to(std::back_inserter(*out), "{},{:03}", year / 1000, year % 1000);
      if (node.ordinal != DateTimeTemplate::Ordinal::kNone) {
        out->append(internal::Ordinal(year, node.ordinal == DateTimeTemplate::Ordinal::kUpper));
      }
      return;
  }
}

// ---------------------------------------------------------------------------------------
// to_timestamp and to_date.

enum class Convention : uint8_t { kNone, kGregorian, kIsoWeek };

Convention ConventionOf(Field field) {
  switch (field) {
    case Field::kDayOfYear:
    case Field::kDayOfMonth:
    case Field::kDayOfWeek:
    case Field::kMonth:
    case Field::kMonthName:
    case Field::kMonthAbbrev:
    case Field::kRomanMonth:
    case Field::kWeekOfYear:
    case Field::kWeekOfMonth:
    case Field::kYear:
    case Field::kYearWithComma:
      return Convention::kGregorian;
    case Field::kIsoDayOfYear:
    case Field::kIsoDayOfWeek:
    case Field::kIsoWeek:
    case Field::kIsoYear:
      return Convention::kIsoWeek;
    default:
      return Convention::kNone;
  }
}

// What the input gave, each field 0 while not given (as PostgreSQL's reader keeps them: a
// field given as 0 counts as not given).
struct Fields {
  Convention convention = Convention::kNone;
  bool twelve_hour = false;
  int pm = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
  int millisecond = 0;  // scaled: "5" in MS is 500
  int microsecond = 0;  // scaled likewise (US, FFn)
  int second_of_day = 0;
  int year = 0;
  int year_digits = 0;  // the digits of the year pattern that gave it (YY: 2)
  int bc = 0;
  int century = 0;
  int julian = 0;
  int month = 0;
  int day = 0;
  int day_of_year = 0;
  int weekday = 0;  // Sunday = 1 (ID's are shifted to that)
  int week = 0;
  int week_of_month = 0;
  int precision = 0;  // FFn: the fraction's digits, to which the result is rounded
  int zone_sign = 0;
  int zone_hour = 0;
  int zone_minute = 0;
};

// Reads the input against the template.
class Reader {
 public:
  Reader(const std::vector<Node>& nodes, std::string_view input) : nodes_(nodes), in_(input) {}

  Result<Fields> Read();

 private:
  bool AtEnd() const { return pos_ >= in_.size(); }
  void SkipSpaces(bool count) {
    while (!AtEnd() && IsAsciiSpace(in_[pos_])) {
      ++pos_;
      if (count) ++extra_;
    }
  }
  Status ReadPattern(size_t k);
  // Reads an integer for node k after any blanks: all its digits when the template does not
  // fix its width (FM, or no number field follows), else exactly `width` characters.
  // Returns the characters read, blanks included; stores the value through `dest` unless it
  // is null (conflicts with an earlier value are an error).
  Result<int> ReadInt(size_t k, int width, int* dest);
  Status Set(size_t k, int* dest, int value) const;
  Status SetConvention(size_t k);
  // Matches one of `names` (case-insensitive, longest first), returns its index.
  Result<int> ReadName(size_t k, const std::string_view* names, size_t count);
  bool WidthIsFree(size_t k) const;
  void SkipOrdinal(size_t k);
  std::string_view Name(size_t k) const { return nodes_[k].keyword->text; }

  const std::vector<Node>& nodes_;
  std::string_view in_;
  size_t pos_ = 0;
  bool fixed_ = false;  // FX
  // Blanks read beyond what the template asked for: a separator or literal character of
  // the template may then take nothing, and a minus sign before them is TZH's.
  int extra_ = 0;
  Fields f_;
};

Status Reader::Set(size_t k, int* dest, int value) const {
  if (*dest != 0 && *dest != value) {
    return Status::Invalid("conflicting values for \"{}\" field in formatting string", Name(k));
  }
  *dest = value;
  return Status::OK();
}

Status Reader::SetConvention(size_t k) {
  const Convention c = ConventionOf(nodes_[k].keyword->field);
  if (c == Convention::kNone) return Status::OK();
  if (f_.convention == Convention::kNone) {
    f_.convention = c;
  } else if (f_.convention != c) {
    return Status::Invalid(
        "invalid combination of date conventions: do not mix Gregorian and ISO week date "
        "conventions in a formatting template");
  }
  return Status::OK();
}

bool Reader::WidthIsFree(size_t k) const {
  if (nodes_[k].fill_mode || nodes_[k].ordinal != DateTimeTemplate::Ordinal::kNone) return true;
  if (k + 1 >= nodes_.size()) return true;
  const Node& next = nodes_[k + 1];
  if (next.kind == NodeKind::kPattern) return !next.keyword->numeric;
  return !(next.text.size() == 1 && IsAsciiDigit(next.text[0]));
}

void Reader::SkipOrdinal(size_t k) {
  if (nodes_[k].ordinal == DateTimeTemplate::Ordinal::kNone) return;
  for (int i = 0; i < 2 && !AtEnd(); ++i) pos_ += CharLength(in_, pos_);
}

// strtol over `text`: blanks, a sign, digits. The characters used (0 when no digit).
struct ParsedLong {
  size_t used = 0;
  bool overflow = false;
  int64_t value = 0;
};

ParsedLong ParseLong(std::string_view text) {
  ParsedLong r;
  size_t i = 0;
  while (i < text.size() && IsAsciiSpace(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  const size_t digits_start = i;
  __int128 v = 0;
  while (i < text.size() && IsAsciiDigit(text[i])) {
    if (v <= std::numeric_limits<int64_t>::max()) v = v * 10 + (text[i] - '0');
    ++i;
  }
  if (i == digits_start) return r;
  r.used = i;
  v = negative ? -v : v;
  if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) {
    r.overflow = true;
  } else {
    r.value = static_cast<int64_t>(v);
  }
  return r;
}

Result<int> Reader::ReadInt(size_t k, int width, int* dest) {
  const size_t start = pos_;
  SkipSpaces(false);
  const std::string_view rest = in_.substr(pos_);
  ParsedLong parsed;
  // Messages show the field's width of input.
  std::string_view shown = rest.substr(0, static_cast<size_t>(width));
  if (WidthIsFree(k)) {
    parsed = ParseLong(rest);
    if (parsed.used == 0) pos_ = start;
  } else {
    if (rest.size() < static_cast<size_t>(width)) {
      return Status::Invalid(
          "source string too short for \"{}\" formatting field: it requires {} characters, but "
          "only {} remain (if the source string is not fixed-width, try the \"FM\" modifier)",
          Name(k), width, rest.size());
    }
    parsed = ParseLong(shown);
    if (parsed.used > 0 && parsed.used < shown.size()) {
      return Status::Invalid(
          "invalid value \"{}\" for \"{}\": the field requires {} characters, but only {} could "
          "be parsed (if the source string is not fixed-width, try the \"FM\" modifier)",
          shown, Name(k), width, parsed.used);
    }
  }
  // Nothing read is an error, unless blanks were (a fixed-width field then reads 0).
  if (parsed.used == 0 && pos_ == start) {
    return Status::Invalid("invalid value \"{}\" for \"{}\": the value must be an integer", shown,
                           Name(k));
  }
  if (parsed.overflow || parsed.value < std::numeric_limits<int>::min() ||
      parsed.value > std::numeric_limits<int>::max()) {
    return Status::Invalid(
        "value for \"{}\" in source string is out of range: it must be in the range {} to {}",
        Name(k), std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
  }
  pos_ += parsed.used;
  if (dest != nullptr) FLOE_RETURN_NOT_OK(Set(k, dest, static_cast<int>(parsed.value)));
  return static_cast<int>(pos_ - start);
}

Result<int> Reader::ReadName(size_t k, const std::string_view* names, size_t count) {
  int best = -1;
  for (size_t i = 0; i < count; ++i) {
    if (StartsWithIgnoreCase(in_, pos_, names[i]) &&
        (best < 0 || names[i].size() > names[best].size())) {
      best = static_cast<int>(i);
    }
  }
  if (best < 0) {
    size_t end = pos_;
    while (end < in_.size() && !IsAsciiSpace(in_[end])) ++end;
    return Status::Invalid(
        "invalid value \"{}\" for \"{}\": the given value did not match any of the allowed "
        "values for this field",
        in_.substr(pos_, end - pos_), Name(k));
  }
  pos_ += names[best].size();
  return best;
}

// Scales a fraction read with `used` characters to microseconds (or milliseconds with
// `digits` 3): "5" is 0.5 whatever the width, "050" 0.05.
int ScaleFraction(int value, int used, int digits) {
  for (int i = used; i < digits; ++i) value *= 10;
  return value;
}

// YY, YYY, Y (and the ISO ones) read with fewer than four digits: the year nearest 2020.
int NearestTo2020(int year) {
  if (year < 70) return year + 2000;
  if (year < 100) return year + 1900;
  if (year < 520) return year + 2000;
  if (year < 1000) return year + 1000;
  return year;
}

Status Reader::ReadPattern(size_t k) {
  const Node& node = nodes_[k];
  const Keyword& key = *node.keyword;
  FLOE_RETURN_NOT_OK(SetConvention(k));
  switch (key.field) {
    case Field::kMeridiem:
    case Field::kMeridiemDots: {
      static constexpr std::string_view kShort[] = {"am", "pm"};
      static constexpr std::string_view kLong[] = {"a.m.", "p.m."};
      FLOE_ASSIGN_OR_RAISE(int i, ReadName(k, key.field == Field::kMeridiem ? kShort : kLong, 2));
      FLOE_RETURN_NOT_OK(Set(k, &f_.pm, i));
      f_.twelve_hour = true;
      return Status::OK();
    }
    case Field::kEra:
    case Field::kEraDots: {
      static constexpr std::string_view kShort[] = {"ad", "bc"};
      static constexpr std::string_view kLong[] = {"a.d.", "b.c."};
      FLOE_ASSIGN_OR_RAISE(int i, ReadName(k, key.field == Field::kEra ? kShort : kLong, 2));
      return Set(k, &f_.bc, i);
    }
    case Field::kDayName:
    case Field::kDayAbbrev: {
      FLOE_ASSIGN_OR_RAISE(int i,
                           ReadName(k, key.field == Field::kDayName ? kDayNames : kDayAbbrevs, 7));
      // PostgreSQL stores the 0-based index, then counts it from 1: a second day name
      // conflicts even with the same day.
      FLOE_RETURN_NOT_OK(Set(k, &f_.weekday, i));
      ++f_.weekday;
      return Status::OK();
    }
    case Field::kMonthName:
    case Field::kMonthAbbrev: {
      FLOE_ASSIGN_OR_RAISE(
          int i, ReadName(k, key.field == Field::kMonthName ? kMonthNames : kMonthAbbrevs, 12));
      return Set(k, &f_.month, i + 1);
    }
    case Field::kRomanMonth: {
      FLOE_ASSIGN_OR_RAISE(int i, ReadName(k, kRomanMonths, 12));
      return Set(k, &f_.month, 12 - i);
    }
    case Field::kFixedFormat:
      fixed_ = true;
      return Status::OK();
    case Field::kOffset:
    case Field::kZoneName:
      return Status::Invalid("formatting field \"{}\" is only supported in to_char", key.text);
    case Field::kYearWithComma: {
      // "%d,%03d": a thousands count, a comma, then at most three digits.
      SkipSpaces(false);
      const ParsedLong thousands = ParseLong(in_.substr(pos_));
      bool ok = thousands.used > 0 && !thousands.overflow && pos_ + thousands.used < in_.size() &&
                in_[pos_ + thousands.used] == ',';
      ParsedLong units;
      if (ok) {
        size_t start = pos_ + thousands.used + 1;
        while (start < in_.size() && IsAsciiSpace(in_[start])) ++start;
        units = ParseLong(in_.substr(start, 3));
        ok = units.used > 0;
        if (ok) units.used += start - (pos_ + thousands.used + 1);
      }
      if (!ok) return Status::Invalid("invalid input string for \"{}\"", key.text);
      const int64_t year = thousands.value * 1000 + units.value;
      pos_ += thousands.used + 1 + units.used;
      FLOE_RETURN_NOT_OK(Set(k, &f_.year, static_cast<int>(year)));
      f_.year_digits = 4;
      SkipOrdinal(k);
      return Status::OK();
    }
    case Field::kZoneHour: {
      if (!AtEnd() && (in_[pos_] == '+' || in_[pos_] == '-' || in_[pos_] == ' ')) {
        f_.zone_sign = in_[pos_] == '-' ? -1 : 1;
        ++pos_;
      } else {
        // A minus sign the template took as a separator is the zone's.
        f_.zone_sign = extra_ > 0 && pos_ > 0 && in_[pos_ - 1] == '-' ? -1 : 1;
      }
      return ReadInt(k, 2, &f_.zone_hour).status();
    }
    case Field::kZoneMinute:
      if (f_.zone_sign == 0) f_.zone_sign = 1;
      return ReadInt(k, 2, &f_.zone_minute).status();
    default:
      break;
  }
  // The number fields.
  int* dest = nullptr;
  switch (key.field) {
    case Field::kCentury:
      dest = &f_.century;
      break;
    case Field::kDayOfYear:
    case Field::kIsoDayOfYear:
      dest = &f_.day_of_year;
      break;
    case Field::kDayOfMonth:
      dest = &f_.day;
      break;
    case Field::kDayOfWeek:
    case Field::kIsoDayOfWeek:
      dest = &f_.weekday;
      break;
    case Field::kFraction:
    case Field::kMicrosecond:
      dest = &f_.microsecond;
      break;
    case Field::kHour24:
    case Field::kHour12:
      dest = &f_.hour;
      break;
    case Field::kIsoWeek:
    case Field::kWeekOfYear:
      dest = &f_.week;
      break;
    case Field::kIsoYear:
    case Field::kYear:
      dest = &f_.year;
      break;
    case Field::kJulianDay:
      dest = &f_.julian;
      break;
    case Field::kMinute:
      dest = &f_.minute;
      break;
    case Field::kMonth:
      dest = &f_.month;
      break;
    case Field::kMillisecond:
      dest = &f_.millisecond;
      break;
    case Field::kQuarter:
      // Read, and ignored: a quarter names no day.
      break;
    case Field::kSecondOfDay:
      dest = &f_.second_of_day;
      break;
    case Field::kSecond:
      dest = &f_.second;
      break;
    case Field::kWeekOfMonth:
      dest = &f_.week_of_month;
      break;
    default:
      return Status::Internal("to_timestamp: pattern {}", key.text);
  }
  if (key.field == Field::kFraction) f_.precision = key.width;
  FLOE_ASSIGN_OR_RAISE(int used, ReadInt(k, key.width, dest));
  switch (key.field) {
    case Field::kHour12:
      f_.twelve_hour = true;
      break;
    case Field::kIsoDayOfWeek:
      // ISO counts Monday = 1 .. Sunday = 7; the reader counts from Sunday = 1 (wrapping
      // as PostgreSQL's int arithmetic does).
      f_.weekday = static_cast<int>(static_cast<unsigned>(f_.weekday) + 1u);
      if (f_.weekday > 7) f_.weekday = 1;
      break;
    case Field::kFraction:
    case Field::kMicrosecond:
      f_.microsecond = ScaleFraction(f_.microsecond, used, 6);
      break;
    case Field::kMillisecond:
      f_.millisecond = ScaleFraction(f_.millisecond, used, 3);
      break;
    case Field::kIsoYear:
    case Field::kYear:
      if (key.width < 4 && used < 4) f_.year = NearestTo2020(f_.year);
      f_.year_digits = key.width;
      break;
    default:
      break;
  }
  SkipOrdinal(k);
  return Status::OK();
}

Result<Fields> Reader::Read() {
  for (size_t k = 0; k < nodes_.size() && !AtEnd(); ++k) {
    const Node& node = nodes_[k];
    const bool is_fx =
        node.kind == NodeKind::kPattern && node.keyword->field == Field::kFixedFormat;
    // Outside FX, blanks before a field (and at the start) are skipped.
    if (!fixed_ && !is_fx && (node.kind == NodeKind::kPattern || k == 0)) SkipSpaces(true);
    switch (node.kind) {
      case NodeKind::kSpace:
      case NodeKind::kSeparator:
        if (fixed_) {
          // FX: one character, whatever it is.
          if (!AtEnd()) pos_ += CharLength(in_, pos_);
        } else {
          // One blank or separator if there is one.
          --extra_;
          if (!AtEnd() && (IsAsciiSpace(in_[pos_]) || IsSeparatorChar(in_[pos_]))) {
            ++pos_;
            ++extra_;
          }
        }
        continue;
      case NodeKind::kLiteral:
        // One character, whatever it is, unless blanks were skipped for it.
        if (!fixed_ && extra_ > 0) {
          --extra_;
        } else if (!AtEnd()) {
          pos_ += CharLength(in_, pos_);
        }
        continue;
      case NodeKind::kPattern:
        break;
    }
    FLOE_RETURN_NOT_OK(ReadPattern(k));
    if (!fixed_) {
      // Blanks after a field are skipped.
      extra_ = 0;
      SkipSpaces(true);
    }
  }
  return f_;
}

// The calendar date and time the fields name.
struct Assembled {
  int64_t year = 0;  // astronomical
  int64_t month = 1;
  int64_t day = 1;
  int64_t hour = 0;
  int64_t minute = 0;
  int64_t second = 0;
  int64_t micros = 0;
  int64_t zone_seconds = 0;  // east of UTC
  int precision = 0;         // FFn: round the result to n fractional digits
};

Status FieldOutOfRange(std::string_view input) {
  return Status::Invalid("date/time field value out of range: \"{}\"", input);
}

// The Julian day range PostgreSQL's calendar routines accept: 4714-11-01 BC up to
// 5874898-06-01 (the day within the month is not checked).
bool InJulianRange(int64_t year, int64_t month) {
  return (year > -4713 || (year == -4713 && month >= 11)) &&
         (year < 5874898 || (year == 5874898 && month < 6));
}

Result<Assembled> Assemble(const Fields& f, std::string_view input) {
  Assembled a;
  // SSSS first; an hour, minute or second given as well replaces its part.
  if (f.second_of_day != 0) {
    a.hour = f.second_of_day / 3600;
    a.minute = f.second_of_day % 3600 / 60;
    a.second = f.second_of_day % 60;
  }
  if (f.hour != 0) a.hour = f.hour;
  if (f.minute != 0) a.minute = f.minute;
  if (f.second != 0) a.second = f.second;
  if (f.twelve_hour) {
    if (a.hour < 1 || a.hour > 12) {
      return Status::Invalid(
          "hour \"{}\" is invalid for the 12-hour clock: use the 24-hour clock, or give an hour "
          "between 1 and 12",
          a.hour);
    }
    if (f.pm != 0 && a.hour < 12) {
      a.hour += 12;
    } else if (f.pm == 0 && a.hour == 12) {
      a.hour = 0;
    }
  }
  bool year_set = false;
  bool month_set = false;
  bool day_set = false;
  if (f.year != 0) {
    if (f.century != 0 && f.year_digits <= 2) {
      // A two-digit year within the given century.
      const int64_t century = f.bc != 0 ? -int64_t{f.century} : f.century;
      const int64_t in_century = f.year % 100;
      if (in_century != 0) {
        a.year =
            century >= 0 ? (century - 1) * 100 + in_century : (century + 1) * 100 - in_century + 1;
      } else {
        a.year = century * 100 + (century >= 0 ? 0 : 1);
      }
    } else {
      a.year = f.bc != 0 ? -int64_t{f.year} : f.year;
      if (a.year < 0) ++a.year;  // 1 BC is year 0
    }
    year_set = true;
  } else if (f.century != 0) {
    // The century's first year.
    const int64_t century = f.bc != 0 ? -int64_t{f.century} : f.century;
    a.year = century >= 0 ? (century - 1) * 100 + 1 : century * 100 + 1;
    year_set = true;
  }
  auto set_date = [&](int64_t days) {
    const CivilDate c = CivilFromDays(days);
    a.year = c.year;
    a.month = c.month;
    a.day = c.day;
    year_set = month_set = day_set = true;
  };
  int64_t day_of_year = f.day_of_year;
  if (f.julian != 0) set_date(int64_t{f.julian} - 2440588);
  if (f.week != 0) {
    if (f.convention == Convention::kIsoWeek) {
      // The week's Monday, or its given day (Sunday = 1 counts as the week's last).
      int64_t days = IsoYearStart(a.year) + (int64_t{f.week} - 1) * 7;
      if (f.weekday != 0) days += f.weekday > 1 ? f.weekday - 2 : 6;
      set_date(days);
    } else {
      day_of_year = (int64_t{f.week} - 1) * 7 + 1;
    }
  }
  int64_t day = f.day;
  if (f.week_of_month != 0) day = (int64_t{f.week_of_month} - 1) * 7 + 1;
  if (day != 0) {
    a.day = day;
    day_set = true;
  }
  if (f.month != 0) {
    a.month = f.month;
    month_set = true;
  }
  if (day_of_year != 0 && (a.month <= 1 || a.day <= 1)) {
    if (a.year == 0 && f.bc == 0) {
      return Status::Invalid("cannot calculate day of year without year information");
    }
    if (f.convention == Convention::kIsoWeek) {
      set_date(IsoYearStart(a.year) - 1 + day_of_year);
    } else {
      // The month the day falls in (13 past the year's end, which fails below).
      static constexpr int64_t kBefore[2][13] = {
          {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365},
          {0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366}};
      const int64_t* before = kBefore[IsLeapYear(a.year) ? 1 : 0];
      int m = 1;
      while (m <= 12 && day_of_year > before[m]) ++m;
      if (a.month <= 1) a.month = m;
      if (a.day <= 1) a.day = day_of_year - before[m - 1];
      month_set = day_set = true;
    }
  }
  if (month_set && (a.month < 1 || a.month > 12)) return FieldOutOfRange(input);
  if (day_set && (a.day < 1 || a.day > 31)) return FieldOutOfRange(input);
  if (year_set && month_set && day_set && a.day > DaysInMonth(a.year, static_cast<int>(a.month))) {
    return FieldOutOfRange(input);
  }
  a.micros = int64_t{f.millisecond} * 1000 + f.microsecond;
  a.precision = f.precision;
  if (a.hour < 0 || a.hour >= 24 || a.minute < 0 || a.minute >= 60 || a.second < 0 ||
      a.second >= 60 || a.micros < 0 || a.micros >= kMicrosPerSecond) {
    return FieldOutOfRange(input);
  }
  if (f.zone_sign != 0) {
    if (f.zone_hour < -15 || f.zone_hour > 15 || f.zone_minute < 0 || f.zone_minute >= 60) {
      return Status::Invalid("time zone displacement out of range: \"{}\"", input);
    }
    // A negative hour makes the minutes negative too.
    const int64_t minutes = f.zone_hour < 0 ? -int64_t{f.zone_minute} : f.zone_minute;
    a.zone_seconds = f.zone_sign * (int64_t{f.zone_hour} * 3600 + minutes * 60);
  }
  return a;
}

}  // namespace

DateTimeTemplate DateTimeTemplate::Parse(std::string_view text) {
  DateTimeTemplate t;
  size_t i = 0;
  while (i < text.size()) {
    Node node;
    if (text.compare(i, 2, "FM") == 0 || text.compare(i, 2, "fm") == 0) {
      node.fill_mode = true;
      i += 2;
    } else if (text.compare(i, 2, "TM") == 0 || text.compare(i, 2, "tm") == 0) {
      node.translate = true;
      i += 2;
    }
    if (i >= text.size()) break;
    if (const Keyword* k = FindKeyword(text, i)) {
      node.kind = NodeKind::kPattern;
      node.keyword = k;
      i += k->text.size();
      if (text.compare(i, 2, "TH") == 0) {
        node.ordinal = Ordinal::kUpper;
        i += 2;
      } else if (text.compare(i, 2, "th") == 0) {
        node.ordinal = Ordinal::kLower;
        i += 2;
      } else if (text.compare(i, 2, "SP") == 0) {
        i += 2;  // spell mode: accepted, does nothing
      }
      t.nodes_.push_back(std::move(node));
      continue;
    }
    // Not a pattern: a prefix before it is dropped.
    for (internal::LiteralChar& c : internal::ReadLiteral(text, &i)) {
      Node lit;
      lit.text = std::move(c.text);
      if (!c.quoted && lit.text.size() == 1 && IsSeparatorChar(lit.text[0])) {
        lit.kind = NodeKind::kSeparator;
      } else if (!c.quoted && lit.text.size() == 1 && IsAsciiSpace(lit.text[0])) {
        lit.kind = NodeKind::kSpace;
      } else {
        lit.kind = NodeKind::kLiteral;
      }
      t.nodes_.push_back(std::move(lit));
    }
  }
  return t;
}

std::string DateTimeTemplate::Format(int64_t micros, bool with_zone) const {
  const Instant t = Decompose(micros);
  std::string out;
  for (const Node& node : nodes_) {
    if (node.kind == NodeKind::kPattern) {
      FormatPattern(node, t, with_zone, &out);
    } else {
      out.append(node.text);
    }
  }
  return out;
}

Result<int64_t> DateTimeTemplate::ToTimestamp(std::string_view input) const {
  FLOE_ASSIGN_OR_RAISE(Fields f, Reader(nodes_, input).Read());
  FLOE_ASSIGN_OR_RAISE(Assembled a, Assemble(f, input));
  if (!InJulianRange(a.year, a.month)) return Status::Invalid("timestamp out of range");
  const __int128 days = DaysFromCivil(a.year, static_cast<int>(a.month), static_cast<int>(a.day));
  __int128 micros = days * kMicrosPerDay + a.hour * kMicrosPerHour + a.minute * kMicrosPerMinute +
                    a.second * kMicrosPerSecond + a.micros -
                    __int128{a.zone_seconds} * kMicrosPerSecond;
  if (a.precision > 0 && a.precision < 6) {
    // FFn rounds to its digits as a timestamp(n) does: halves away from PostgreSQL's epoch,
    // 2000-01-01.
    constexpr __int128 kPostgresEpoch = 946684800 * __int128{kMicrosPerSecond};
    __int128 unit = 1;
    for (int i = a.precision; i < 6; ++i) unit *= 10;
    const __int128 since = micros - kPostgresEpoch;
    const __int128 rounded =
        since >= 0 ? (since + unit / 2) / unit * unit : -((-since + unit / 2) / unit * unit);
    micros = rounded + kPostgresEpoch;
  }
  // PostgreSQL's range (4714-11-24 BC onwards), within what int64 microseconds hold.
  if (micros < __int128{internal::kMinTimestampDays} * kMicrosPerDay ||
      micros >= __int128{internal::kEndTimestampDays} * kMicrosPerDay ||
      micros >= std::numeric_limits<int64_t>::max()) {
    return Status::Invalid("timestamp out of range");
  }
  return static_cast<int64_t>(micros);
}

Result<int32_t> DateTimeTemplate::ToDate(std::string_view input) const {
  FLOE_ASSIGN_OR_RAISE(Fields f, Reader(nodes_, input).Read());
  FLOE_ASSIGN_OR_RAISE(Assembled a, Assemble(f, input));
  if (!InJulianRange(a.year, a.month)) return Status::Invalid("date out of range: \"{}\"", input);
  const int64_t days = DaysFromCivil(a.year, static_cast<int>(a.month), static_cast<int>(a.day));
  if (!internal::IsValidDate(days)) return Status::Invalid("date out of range: \"{}\"", input);
  return static_cast<int32_t>(days);
}

}  // namespace floe::expr
