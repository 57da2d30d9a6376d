// PostgreSQL's text input of dates, times and timestamps (its "Date/Time Input
// Interpretation" rules with DateStyle ISO, MDY): the string is split into fields
// (numbers, dates with separators, times with colons, signed zone offsets, words), and
// each field fills the parts of the value it can, in order. Zone abbreviations come from
// a fixed table (PostgreSQL's Default set, the common ones); full zone names
// ("America/New_York") from the system's tz database.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/ascii.h"
#include "floe/expr/cast_internal.h"

namespace floe::expr::internal {

namespace {

constexpr int64_t kSecondsPerDay = 86400;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAlnum(char c) { return IsDigit(c) || IsAlpha(c); }

enum class FieldKind {
  kNumber,  // digits, maybe with one ".fraction"
  kDate,    // "1997-02-10", "02/10/1997", "feb-10-1997"
  kTime,    // "17:32:01.5"
  kOffset,  // "-0800", "+02:00", "+8"
  kWord,    // "feb", "pst", "america/new_york", "gmt+8", "-infinity"
};

struct Field {
  FieldKind kind;
  std::string text;  // lower case
};

constexpr std::string_view kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                        "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::string_view kFullMonths[] = {"january",   "february", "march",    "april",
                                            "may",       "june",     "july",     "august",
                                            "september", "october",  "november", "december"};

// 1..12 for a month's name or abbreviation ("sept" too), else 0.
int MonthNumber(std::string_view word) {
  for (int m = 0; m < 12; ++m) {
    if (word == kMonths[m] || word == kFullMonths[m]) return m + 1;
  }
  return word == "sept" ? 9 : 0;
}

bool IsWeekdayName(std::string_view word) {
  static constexpr std::string_view kDays[] = {
      "sun", "mon", "tue",    "tues",   "wed",     "wednes",    "thu",      "thur",   "thurs",
      "fri", "sat", "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"};
  for (std::string_view d : kDays) {
    if (word == d) return true;
  }
  return false;
}

// PostgreSQL's Default zone abbreviations (the common ones), as seconds east of UTC.
std::optional<int64_t> AbbreviationOffset(std::string_view word) {
  struct Abbrev {
    std::string_view name;
    int64_t seconds;
  };
  static constexpr Abbrev kAbbrevs[] = {
      {"z", 0},        {"zulu", 0},     {"utc", 0},      {"ut", 0},        {"gmt", 0},
      {"wet", 0},      {"west", 3600},  {"bst", 3600},   {"cet", 3600},    {"met", 3600},
      {"cest", 7200},  {"mest", 7200},  {"eet", 7200},   {"eest", 10800},  {"ist", 7200},
      {"msk", 10800},  {"jst", 32400},  {"kst", 32400},  {"hkt", 28800},   {"sgt", 28800},
      {"awst", 28800}, {"acst", 34200}, {"aest", 36000}, {"aedt", 39600},  {"nzst", 43200},
      {"nzdt", 46800}, {"nst", -12600}, {"ndt", -9000},  {"ast", -14400},  {"adt", -10800},
      {"est", -18000}, {"edt", -14400}, {"cst", -21600}, {"cdt", -18000},  {"mst", -25200},
      {"mdt", -21600}, {"pst", -28800}, {"pdt", -25200}, {"akst", -32400}, {"akdt", -28800},
      {"hst", -36000},
  };
  for (const Abbrev& a : kAbbrevs) {
    if (a.name == word) return a.seconds;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// Full zone names from the system's tz database (TZif files).

struct ZoneRules {
  std::vector<int64_t> transitions;  // UTC seconds, ascending
  std::vector<int64_t> offsets;      // offset in effect from transitions[i]
  int64_t initial_offset = 0;        // before the first transition
  // The file's footer (a POSIX TZ rule for the times after the last transition) has
  // daylight-saving rules, which are not read: the offset past the last transition is
  // then unknown.
  bool rule_after_last = false;

  bool Known(int64_t utc_seconds) const {
    return !rule_after_last || (!transitions.empty() && utc_seconds < transitions.back());
  }

  int64_t OffsetAtUtc(int64_t utc_seconds) const {
    size_t lo = 0, hi = transitions.size();
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (transitions[mid] <= utc_seconds) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo == 0 ? initial_offset : offsets[lo - 1];
  }
};

int64_t ReadBigEndian(const std::string& data, size_t pos, int bytes) {
  uint64_t v = 0;
  for (int k = 0; k < bytes; ++k) v = (v << 8) | static_cast<unsigned char>(data[pos + k]);
  if (bytes == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

// Parses the 64-bit part of a TZif (version 2+) file, or the 32-bit part of a version 1.
std::optional<ZoneRules> ParseTzif(const std::string& data) {
  auto header = [&](size_t pos, int64_t counts[6]) {
    if (pos + 44 > data.size() || data.compare(pos, 4, "TZif") != 0) return false;
    for (int k = 0; k < 6; ++k) {
      counts[k] = ReadBigEndian(data, pos + 20 + 4 * static_cast<size_t>(k), 4);
      if (counts[k] < 0 || counts[k] > 100000) return false;
    }
    return true;
  };
  // counts: isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt.
  int64_t c[6];
  if (!header(0, c)) return std::nullopt;
  size_t pos = 44;
  int time_bytes = 4;
  if (data[4] >= '2') {
    pos += static_cast<size_t>(c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0]);
    if (!header(pos, c)) return std::nullopt;
    pos += 44;
    time_bytes = 8;
  }
  const size_t timecnt = static_cast<size_t>(c[3]);
  const size_t typecnt = static_cast<size_t>(c[4]);
  if (typecnt == 0 || pos + timecnt * (time_bytes + 1) + typecnt * 6 > data.size()) {
    return std::nullopt;
  }
  const size_t index_pos = pos + timecnt * static_cast<size_t>(time_bytes);
  const size_t type_pos = index_pos + timecnt;
  auto type_offset = [&](size_t t) { return ReadBigEndian(data, type_pos + t * 6, 4); };
  ZoneRules rules;
  rules.initial_offset = type_offset(0);
  for (size_t k = 0; k < timecnt; ++k) {
    const auto t = static_cast<unsigned char>(data[index_pos + k]);
    if (t >= typecnt) return std::nullopt;
    rules.transitions.push_back(ReadBigEndian(data, pos + k * time_bytes, time_bytes));
    rules.offsets.push_back(type_offset(t));
  }
  if (time_bytes == 8) {
    const size_t end = type_pos + typecnt * 6 + static_cast<size_t>(c[5]) +
                       static_cast<size_t>(c[2]) * 12 + static_cast<size_t>(c[1] + c[0]);
    const size_t footer = std::min(end, data.size());
    rules.rule_after_last = data.find(',', footer) != std::string::npos;
  }
  return rules;
}

// The rules of a zone named like "America/New_York" (case-insensitive, as PostgreSQL's
// are), or null when the tz database has no such zone.
const ZoneRules* FindZone(std::string_view lower_name) {
  static std::mutex mutex;
  static std::map<std::string, std::optional<ZoneRules>> cache;
  if (lower_name.empty() || lower_name.size() > 64 || lower_name.front() == '/' ||
      lower_name.find("..") != std::string_view::npos) {
    return nullptr;
  }
  for (char ch : lower_name) {
    if (!(IsAlnum(ch) || ch == '/' || ch == '_' || ch == '-' || ch == '+')) return nullptr;
  }
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(std::string(lower_name));
  if (it != cache.end()) return it->second ? &*it->second : nullptr;
  // The database's file names are mixed case: find each path component by a
  // case-insensitive match in its directory listing is costly, so try the usual casing
  // (each word capitalized after '/', '_' and '-'), the name as written and in capitals
  // (EST5EDT).
  std::string proper(lower_name);
  bool start = true;
  for (char& ch : proper) {
    if (start && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
    start = ch == '/' || ch == '_' || ch == '-';
  }
  std::optional<ZoneRules> rules;
  std::string upper(lower_name);
  for (char& ch : upper) {
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  }
  for (const std::string& name : {proper, std::string(lower_name), upper}) {
    std::ifstream in("/usr/share/zoneinfo/" + name, std::ios::binary);
    if (!in) continue;
    std::string data(1 << 20, '\0');
    in.read(data.data(), static_cast<std::streamsize>(data.size()));
    data.resize(static_cast<size_t>(in.gcount()));
    rules = ParseTzif(data);
    if (rules) break;
  }
  auto [pos, inserted] = cache.emplace(std::string(lower_name), std::move(rules));
  (void)inserted;
  return pos->second ? &*pos->second : nullptr;
}

// The UTC offset of a zone at a local wall-clock time (seconds since the epoch as if the
// local time were UTC), as PostgreSQL resolves it: with the first transition after a day
// before it, the offset before that transition when the time read with either offset falls
// before it, the one after when both fall after; a time the transition skips (spring
// forward) takes the offset before it, one it repeats (fall back) the offset after it.
int64_t OffsetAtLocal(const ZoneRules& zone, int64_t local_seconds) {
  const int64_t earlier = local_seconds - kSecondsPerDay;
  const auto next = std::upper_bound(zone.transitions.begin(), zone.transitions.end(), earlier);
  const int64_t before = zone.OffsetAtUtc(earlier);
  if (next == zone.transitions.end()) return before;
  const int64_t boundary = *next;
  const int64_t after = zone.offsets[static_cast<size_t>(next - zone.transitions.begin())];
  const int64_t before_time = local_seconds - before;
  const int64_t after_time = local_seconds - after;
  if (before_time < boundary && after_time < boundary) return before;
  if (before_time > boundary && after_time >= boundary) return after;
  return before_time > after_time ? before : after;
}

// ---------------------------------------------------------------------------------------
// Splitting into fields.

bool SplitFields(std::string_view s, std::vector<Field>* out) {
  size_t i = 0;
  const size_t n = s.size();
  auto lower = [&](size_t from, size_t to) {
    std::string t(s.substr(from, to - from));
    for (char& ch : t) ch = AsciiToLower(ch);
    return t;
  };
  while (i < n) {
    const char c = s[i];
    if (IsSpace(c) || c == ',') {
      ++i;
      continue;
    }
    size_t j = i;
    if (IsDigit(c)) {
      while (j < n && IsDigit(s[j])) ++j;
      if (j < n && s[j] == ':') {
        while (j < n && (IsDigit(s[j]) || s[j] == ':' || s[j] == '.')) ++j;
        out->push_back({FieldKind::kTime, lower(i, j)});
      } else if (j < n && s[j] == '.' && (j + 1 >= n || IsDigit(s[j + 1]))) {
        // "1997.041" or "040506.789" (one point) or "10.02.1997" (a date).
        size_t k = j + 1;
        while (k < n && IsDigit(s[k])) ++k;
        if (k < n && s[k] == '.') {
          while (k < n && (IsDigit(s[k]) || s[k] == '.')) ++k;
          out->push_back({FieldKind::kDate, lower(i, k)});
        } else {
          out->push_back({FieldKind::kNumber, lower(i, k)});
        }
        j = k;
      } else if (j < n && (s[j] == '-' || s[j] == '/')) {
        const char sep = s[j];
        ++j;
        // After a numeric first part, a numeric second part allows digits only (so that
        // "2001-09-22T18:19:20" stops before the T); a month name allows letters.
        const bool digits_only = j < n && IsDigit(s[j]);
        while (j < n && (s[j] == sep || (digits_only ? IsDigit(s[j]) : IsAlnum(s[j])))) ++j;
        out->push_back({FieldKind::kDate, lower(i, j)});
      } else {
        out->push_back({FieldKind::kNumber, lower(i, j)});
      }
    } else if (IsAlpha(c)) {
      while (j < n && IsAlpha(s[j])) ++j;
      const std::string word = lower(i, j);
      if (j + 1 < n && (s[j] == '-' || s[j] == '/' || s[j] == '.') && MonthNumber(word) != 0 &&
          IsAlnum(s[j + 1])) {
        const char sep = s[j];
        while (j < n && (IsAlnum(s[j]) || s[j] == sep)) ++j;
        out->push_back({FieldKind::kDate, lower(i, j)});
      } else if (j < n && (s[j] == '/' || s[j] == '_')) {
        while (j < n &&
               (IsAlnum(s[j]) || s[j] == '/' || s[j] == '_' || s[j] == '-' || s[j] == '+')) {
          ++j;
        }
        out->push_back({FieldKind::kWord, lower(i, j)});
      } else if (j + 1 < n && (s[j] == '+' || s[j] == '-') && IsDigit(s[j + 1]) &&
                 MonthNumber(word) == 0 && word.size() >= 3) {
        // A POSIX zone: "GMT+8", "MST+7:00".
        ++j;
        while (j < n && (IsDigit(s[j]) || s[j] == ':')) ++j;
        out->push_back({FieldKind::kWord, lower(i, j)});
      } else {
        if (j < n && s[j] == '.') ++j;  // "a.m." is not PostgreSQL's; "sept." is noise
        out->push_back({FieldKind::kWord, word});
      }
    } else if (c == '+' || c == '-') {
      ++j;
      if (j < n && IsDigit(s[j])) {
        while (j < n && (IsDigit(s[j]) || s[j] == ':' || s[j] == '.')) ++j;
        out->push_back({FieldKind::kOffset, lower(i, j)});
      } else if (j < n && IsAlpha(s[j])) {
        while (j < n && IsAlpha(s[j])) ++j;
        out->push_back({FieldKind::kWord, lower(i, j)});
      } else {
        return false;
      }
    } else if (c == '/' || c == '(' || c == ')') {
      ++i;  // punctuation between fields separates them
      continue;
    } else {
      return false;
    }
    i = j;
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// Decoding.

enum class Special {
  kNone,
  kNow,
  kToday,
  kTomorrow,
  kYesterday,
  kEpoch,
  kInfinity,
  kMinusInfinity,
  kAllballs
};

enum class Failure { kNone, kSyntax, kRange, kZone, kDisplacement };

struct Parts {
  int64_t year = 0, month = 0, day = 0;
  bool has_year = false, has_month = false, has_day = false;
  bool year_two_digits = false;
  bool text_month = false;
  int64_t day_of_year = 0;  // 0 when not given
  int64_t julian = -1;
  bool want_julian = false;
  bool has_time = false;
  int64_t hour = 0, minute = 0, second = 0, micros = 0;
  int ampm = 0;  // 1 am, 2 pm
  bool bc = false, ad = false;
  bool has_zone = false;
  int64_t zone_seconds = 0;               // east of UTC
  const ZoneRules* zone_rules = nullptr;  // a full zone name: the offset depends on the date
  Special special = Special::kNone;
  std::string bad_zone;

  bool DateComplete() const { return has_year && has_month && has_day; }
  bool AnyDate() const { return has_year || has_month || has_day || day_of_year != 0; }
};

bool ParseInt(std::string_view digits, int64_t* out) {
  if (digits.empty() || digits.size() > 12) return false;
  int64_t v = 0;
  for (char ch : digits) {
    if (!IsDigit(ch)) return false;
    v = v * 10 + (ch - '0');
  }
  *out = v;
  return true;
}

// ".ffffff..." (without the point) as microseconds, rounded half up at the seventh digit.
bool ParseFraction(std::string_view digits, int64_t* micros) {
  int64_t v = 0;
  int n = 0;
  bool round_up = false;
  for (char ch : digits) {
    if (!IsDigit(ch)) return false;
    if (n < 6) {
      v = v * 10 + (ch - '0');
    } else if (n == 6) {
      round_up = ch >= '5';
    }
    ++n;
  }
  for (int k = n; k < 6; ++k) v *= 10;
  *micros = v + (round_up ? 1 : 0);
  return true;
}

// A date number of `len` digits placed by the fields already known (DateStyle MDY): the
// first of a numeric date is a year when it has three or more digits, else the month; a
// field after a textual month is the day unless it has 3+ digits.
Failure PlaceDateNumber(int64_t value, size_t len, Parts& p) {
  bool to_year = false;
  if (!p.has_year && !p.has_month && !p.has_day) {
    if (len >= 3) {
      to_year = true;
    } else {
      p.month = value;
      p.has_month = true;
    }
  } else if (p.has_year && !p.has_month && !p.has_day) {
    p.month = value;
    p.has_month = true;
  } else if (!p.has_year && p.has_month && !p.has_day) {
    if (p.text_month && len >= 3) {
      to_year = true;
    } else {
      p.day = value;
      p.has_day = true;
    }
  } else if (p.has_year && p.has_month && !p.has_day) {
    if (p.text_month && len >= 3 && p.year_two_digits) {
      // "10 feb 1997" read 10 as the year: it was the day.
      p.day = p.year;
      p.has_day = true;
      p.year = value;
      p.year_two_digits = false;
    } else {
      p.day = value;
      p.has_day = true;
    }
  } else if (!p.has_year && !p.has_month && p.has_day) {
    p.month = value;
    p.has_month = true;
  } else if (!p.has_year && p.has_month && p.has_day) {
    to_year = true;
  } else {
    return Failure::kSyntax;
  }
  if (to_year) {
    p.year = value;
    p.has_year = true;
    p.year_two_digits = len <= 2;
  }
  return Failure::kNone;
}

Failure SetTime(Parts& p, int64_t h, int64_t m, int64_t s, int64_t us) {
  if (p.has_time) return Failure::kSyntax;
  p.has_time = true;
  p.hour = h;
  p.minute = m;
  p.second = s;
  p.micros = us;
  return Failure::kNone;
}

// A run of digits standing for several fields: "19970210" (yyyymmdd), "970210" (yymmdd)
// before a date is known, "173201[.5]" (hhmmss) and "1732" (hhmm) after.
Failure DecodeRunTogether(std::string_view text, Parts& p, bool time_only) {
  std::string_view digits = text;
  int64_t frac = 0;
  const size_t point = text.find('.');
  if (point != std::string_view::npos) {
    digits = text.substr(0, point);
    if (!ParseFraction(text.substr(point + 1), &frac)) return Failure::kSyntax;
  }
  int64_t v = 0;
  if (!ParseInt(digits, &v)) return Failure::kSyntax;
  if (!time_only && !p.AnyDate() && point == std::string_view::npos &&
      (digits.size() == 8 || digits.size() == 6)) {
    p.day = v % 100;
    p.month = v / 100 % 100;
    p.year = v / 10000;
    p.has_year = p.has_month = p.has_day = true;
    p.year_two_digits = digits.size() == 6;
    return Failure::kNone;
  }
  if (!time_only && !p.AnyDate() && point == 4 && text.size() - point - 1 == 3) {
    // "1997.041": a year and a day of the year.
    int64_t doy = 0;
    ParseInt(text.substr(point + 1), &doy);
    p.year = v;
    p.has_year = true;
    p.day_of_year = doy;
    return doy >= 1 && doy <= 366 ? Failure::kNone : Failure::kRange;
  }
  if (digits.size() == 6) return SetTime(p, v / 10000, v / 100 % 100, v % 100, frac);
  if (digits.size() == 4 && point == std::string_view::npos) {
    return SetTime(p, v / 100, v % 100, 0, 0);
  }
  return Failure::kSyntax;
}

Failure DecodeNumber(const Field& f, Parts& p, bool time_only) {
  if (p.want_julian) {
    p.want_julian = false;
    int64_t v = 0;
    if (!ParseInt(f.text, &v)) return Failure::kSyntax;
    p.julian = v;
    return Failure::kNone;
  }
  const bool has_point = f.text.find('.') != std::string::npos;
  if (time_only || has_point || (p.DateComplete() && !p.has_time) ||
      (!p.AnyDate() && f.text.size() >= 6)) {
    if (!time_only && !has_point && f.text.size() < 4 && p.DateComplete()) {
      return Failure::kSyntax;
    }
    return DecodeRunTogether(f.text, p, time_only);
  }
  int64_t v = 0;
  if (!ParseInt(f.text, &v)) return Failure::kSyntax;
  if (f.text.size() == 3 && p.has_year && !p.has_month && !p.has_day) {
    p.day_of_year = v;
    return v >= 1 && v <= 366 ? Failure::kNone : Failure::kRange;
  }
  return PlaceDateNumber(v, f.text.size(), p);
}

Failure DecodeDate(const Field& f, Parts& p) {
  if (p.AnyDate()) return Failure::kSyntax;
  // The separator is the first non-alphanumeric character.
  char sep = 0;
  for (char ch : f.text) {
    if (!IsAlnum(ch)) {
      sep = ch;
      break;
    }
  }
  std::vector<std::string_view> parts;
  std::string_view rest = f.text;
  while (true) {
    const size_t k = rest.find(sep);
    parts.push_back(rest.substr(0, k));
    if (k == std::string_view::npos) break;
    rest.remove_prefix(k + 1);
  }
  // Month names first, so that the numbers are placed knowing of them.
  for (std::string_view part : parts) {
    if (part.empty()) return Failure::kSyntax;
    if (!IsAlpha(part[0])) continue;
    const int m = MonthNumber(part);
    if (m == 0 || p.has_month) return Failure::kSyntax;
    p.month = m;
    p.has_month = true;
    p.text_month = true;
  }
  for (std::string_view part : parts) {
    if (IsAlpha(part[0])) continue;
    int64_t v = 0;
    if (!ParseInt(part, &v)) return Failure::kSyntax;
    if (part.size() == 3 && p.has_year && !p.has_month && !p.has_day) {
      p.day_of_year = v;
      if (v < 1 || v > 366) return Failure::kRange;
      continue;
    }
    const Failure failure = PlaceDateNumber(v, part.size(), p);
    if (failure != Failure::kNone) return failure;
  }
  return Failure::kNone;
}

Failure DecodeTime(const Field& f, Parts& p) {
  std::vector<std::string_view> parts;
  std::string_view rest = f.text;
  while (true) {
    const size_t k = rest.find(':');
    parts.push_back(rest.substr(0, k));
    if (k == std::string_view::npos) break;
    rest.remove_prefix(k + 1);
  }
  if (parts.size() < 2 || parts.size() > 3) return Failure::kSyntax;
  int64_t h = 0, m = 0, s = 0, us = 0;
  std::string_view last = parts.back();
  const size_t point = last.find('.');
  if (point != std::string_view::npos) {
    if (parts.size() != 3 || !ParseFraction(last.substr(point + 1), &us)) {
      return Failure::kSyntax;
    }
    last = last.substr(0, point);
  }
  if (!ParseInt(parts[0], &h) || !ParseInt(parts.size() == 3 ? parts[1] : last, &m) ||
      (parts.size() == 3 && !ParseInt(last, &s))) {
    return Failure::kSyntax;
  }
  if (h > 24 || m > 59 || s > 60 || (h == 24 && (m != 0 || s != 0 || us != 0))) {
    return Failure::kRange;
  }
  return SetTime(p, h, m, s, us);
}

// "+hh", "+hhmm", "+hh:mm", "+hh:mm:ss" as seconds east of UTC.
Failure ParseOffset(std::string_view text, int64_t* seconds) {
  const bool negative = text[0] == '-';
  text.remove_prefix(1);
  int64_t h = 0, m = 0, s = 0;
  const size_t colon = text.find(':');
  if (colon != std::string_view::npos) {
    std::string_view rest = text.substr(colon + 1);
    const size_t colon2 = rest.find(':');
    if (!ParseInt(text.substr(0, colon), &h) || !ParseInt(rest.substr(0, colon2), &m) ||
        (colon2 != std::string_view::npos && !ParseInt(rest.substr(colon2 + 1), &s))) {
      return Failure::kSyntax;
    }
  } else {
    int64_t v = 0;
    if (!ParseInt(text, &v)) return Failure::kSyntax;
    if (text.size() <= 2) {
      h = v;
    } else if (text.size() <= 4) {
      h = v / 100;
      m = v % 100;
    } else if (text.size() <= 6) {
      h = v / 10000;
      m = v / 100 % 100;
      s = v % 100;
    } else {
      return Failure::kSyntax;
    }
  }
  if (h > 15) return Failure::kDisplacement;
  if (m > 59 || s > 59) return Failure::kRange;
  const int64_t total = h * 3600 + m * 60 + s;
  *seconds = negative ? -total : total;
  return Failure::kNone;
}

Failure SetZone(Parts& p, int64_t seconds, const ZoneRules* rules) {
  if (p.has_zone) return Failure::kSyntax;
  p.has_zone = true;
  p.zone_seconds = seconds;
  p.zone_rules = rules;
  return Failure::kNone;
}

Failure SetSpecial(Parts& p, Special s) {
  if (p.special != Special::kNone) return Failure::kSyntax;
  p.special = s;
  return Failure::kNone;
}

Failure DecodeWord(const Field& f, Parts& p) {
  const std::string& w = f.text;
  if (w == "am" || w == "pm") {
    if (p.ampm != 0) return Failure::kSyntax;
    p.ampm = w == "am" ? 1 : 2;
    return Failure::kNone;
  }
  if (w == "bc" || w == "ad") {
    if (p.bc || p.ad) return Failure::kSyntax;
    (w == "bc" ? p.bc : p.ad) = true;
    return Failure::kNone;
  }
  if (w == "t" || w == "at" || w == "on" || IsWeekdayName(w)) return Failure::kNone;
  if (w == "j" || w == "julian") {
    p.want_julian = true;
    return Failure::kNone;
  }
  if (const int m = MonthNumber(w)) {
    if (p.has_month) return Failure::kSyntax;
    p.month = m;
    p.has_month = true;
    p.text_month = true;
    return Failure::kNone;
  }
  static constexpr std::pair<std::string_view, Special> kSpecials[] = {
      {"now", Special::kNow},
      {"today", Special::kToday},
      {"tomorrow", Special::kTomorrow},
      {"yesterday", Special::kYesterday},
      {"epoch", Special::kEpoch},
      {"infinity", Special::kInfinity},
      {"+infinity", Special::kInfinity},
      {"-infinity", Special::kMinusInfinity},
      {"allballs", Special::kAllballs},
  };
  for (const auto& [name, special] : kSpecials) {
    if (w == name) return SetSpecial(p, special);
  }
  if (auto offset = AbbreviationOffset(w)) return SetZone(p, *offset, nullptr);
  // A POSIX zone ("gmt+8", "mst+7:00"): the offset counts hours west of UTC.
  const size_t sign = w.find_first_of("+-");
  if (sign != std::string::npos && sign >= 3 && w.find('/') == std::string::npos) {
    int64_t west = 0;
    const Failure failure = ParseOffset(std::string_view(w).substr(sign), &west);
    if (failure != Failure::kNone) return failure;
    return SetZone(p, -west, nullptr);
  }
  if (w.find('/') != std::string::npos || w.find('_') != std::string::npos) {
    const ZoneRules* rules = FindZone(w);
    if (rules == nullptr) {
      p.bad_zone = w;
      return Failure::kZone;
    }
    return SetZone(p, 0, rules);
  }
  if (const ZoneRules* rules = FindZone(w); rules != nullptr && w.size() > 3) {
    return SetZone(p, 0, rules);  // single-word zone names ("japan", "singapore")
  }
  return Failure::kSyntax;
}

Failure Decode(const std::vector<Field>& fields, Parts& p, bool time_only) {
  for (const Field& f : fields) {
    Failure failure = Failure::kNone;
    if (p.want_julian && f.kind != FieldKind::kNumber) return Failure::kSyntax;
    switch (f.kind) {
      case FieldKind::kNumber:
        failure = DecodeNumber(f, p, time_only && p.AnyDate() == false && !p.has_time);
        break;
      case FieldKind::kDate:
        failure = DecodeDate(f, p);
        break;
      case FieldKind::kTime:
        failure = DecodeTime(f, p);
        break;
      case FieldKind::kOffset: {
        int64_t seconds = 0;
        failure = ParseOffset(f.text, &seconds);
        if (failure == Failure::kNone) failure = SetZone(p, seconds, nullptr);
        break;
      }
      case FieldKind::kWord:
        failure = DecodeWord(f, p);
        break;
    }
    if (failure != Failure::kNone) return failure;
  }
  return p.want_julian ? Failure::kSyntax : Failure::kNone;
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The day number of the date parts (years adjusted for BC and two digits), or a failure.
Failure ResolveDate(Parts& p, int64_t* days) {
  if (p.julian >= 0) {
    if (p.AnyDate()) return Failure::kSyntax;
    *days = p.julian - 2440588;
    return Failure::kNone;
  }
  if (!p.has_year || (p.day_of_year == 0 && !(p.has_month && p.has_day))) {
    return Failure::kSyntax;
  }
  int64_t year = p.year;
  if (p.bc) {
    if (year == 0) return Failure::kRange;
    year = 1 - year;
  } else if (p.year_two_digits) {
    year += year < 70 ? 2000 : 1900;
  } else if (year == 0) {
    return Failure::kRange;
  }
  if (year > 6000000 || year < -6000000) return Failure::kRange;
  if (p.day_of_year != 0) {
    if (p.has_month || p.has_day) return Failure::kSyntax;
    *days = DaysFromCivil(year, 1, 1) + p.day_of_year - 1;
    return Failure::kNone;
  }
  if (p.month < 1 || p.month > 12 || p.day < 1 ||
      p.day > DaysInMonth(year, static_cast<int>(p.month))) {
    return Failure::kRange;
  }
  *days = DaysFromCivil(year, static_cast<int>(p.month), static_cast<int>(p.day));
  return Failure::kNone;
}

// The time of day in microseconds (AM/PM applied), or a failure.
Failure ResolveTime(const Parts& p, int64_t* micros) {
  int64_t h = p.hour;
  if (p.ampm != 0) {
    if (h > 12) return Failure::kRange;
    if (p.ampm == 1 && h == 12) h = 0;
    if (p.ampm == 2 && h != 12) h += 12;
  }
  *micros =
      h * kMicrosPerHour + p.minute * kMicrosPerMinute + p.second * kMicrosPerSecond + p.micros;
  return Failure::kNone;
}

enum class Target { kDate, kTime, kTimestamp, kTimestampTz };

std::string_view TargetName(Target t) {
  switch (t) {
    case Target::kDate:
      return "date";
    case Target::kTime:
      return "time";
    case Target::kTimestamp:
      return "timestamp";
    default:
      return "timestamp with time zone";
  }
}

Status FailureStatus(Failure f, Target t, std::string_view text, const Parts& p) {
  switch (f) {
    case Failure::kRange:
      return Status::Invalid("date/time field value out of range: \"{}\"", text);
    case Failure::kZone:
      return Status::Invalid("time zone \"{}\" not recognized", p.bad_zone);
    case Failure::kDisplacement:
      return Status::Invalid("time zone displacement out of range: \"{}\"", text);
    default:
      return Status::Invalid("invalid input syntax for type {}: \"{}\"", TargetName(t), text);
  }
}

// Parses `text` for `target`: days for a date, microseconds otherwise.
Result<int64_t> ParseDateTime(std::string_view text, Target target) {
  std::vector<Field> fields;
  Parts p;
  if (!SplitFields(text, &fields) || fields.empty()) {
    return FailureStatus(Failure::kSyntax, target, text, p);
  }
  Failure failure = Decode(fields, p, target == Target::kTime);
  if (failure != Failure::kNone) return FailureStatus(failure, target, text, p);
  auto bad = [&](Failure f) { return FailureStatus(f, target, text, p); };
  const bool alone = fields.size() == 1;
  const int64_t now = NowMicros();
  const int64_t today = FloorDiv(now, kMicrosPerDay);
  int64_t days = 0;
  switch (p.special) {
    case Special::kInfinity:
    case Special::kMinusInfinity: {
      // A time beside them is ignored, a date is not (as in PostgreSQL).
      if (p.AnyDate() || p.julian >= 0 || target == Target::kTime) return bad(Failure::kSyntax);
      const bool plus = p.special == Special::kInfinity;
      if (target == Target::kDate) return plus ? kDateInfinity : kDateMinusInfinity;
      return plus ? kTimestampInfinity : kTimestampMinusInfinity;
    }
    case Special::kEpoch:
      if (p.AnyDate() || p.julian >= 0 || target == Target::kTime) return bad(Failure::kSyntax);
      return int64_t{0};
    case Special::kNow:
      if (!alone) return bad(Failure::kSyntax);
      if (target == Target::kDate) return today;
      if (target == Target::kTime) return FloorMod(now, kMicrosPerDay);
      return now;
    case Special::kAllballs:
      if (target != Target::kTime || p.AnyDate() || p.has_time) return bad(Failure::kSyntax);
      return int64_t{0};
    case Special::kToday:
    case Special::kTomorrow:
    case Special::kYesterday:
      if (target == Target::kTime || p.AnyDate() || p.julian >= 0) return bad(Failure::kSyntax);
      days = today + (p.special == Special::kTomorrow ? 1 : 0) -
             (p.special == Special::kYesterday ? 1 : 0);
      break;
    case Special::kNone:
      if (target == Target::kTime && !p.AnyDate() && p.julian < 0) break;
      failure = ResolveDate(p, &days);
      if (failure != Failure::kNone) return bad(failure);
      break;
  }
  int64_t micros = 0;
  failure = ResolveTime(p, &micros);
  if (failure != Failure::kNone) return bad(failure);
  if (target == Target::kTime) {
    if (!p.has_time && p.special == Special::kNone) return bad(Failure::kSyntax);
    return micros;
  }
  if (target == Target::kDate) {
    if (!IsValidDate(days)) return Status::Invalid("date out of range: \"{}\"", text);
    return days;
  }
  // PostgreSQL's range, and int64 microseconds (which end in 294247).
  int64_t value = 0;
  if (days < kMinTimestampDays - 1 || days >= kEndTimestampDays ||
      __builtin_mul_overflow(days, kMicrosPerDay, &value) ||
      __builtin_add_overflow(value, micros, &value)) {
    return Status::Invalid("timestamp out of range: \"{}\"", text);
  }
  if (target == Target::kTimestampTz && p.has_zone) {
    const int64_t local = FloorDiv(value, kMicrosPerSecond);
    if (p.zone_rules != nullptr && !p.zone_rules->Known(local - kSecondsPerDay)) {
      return Status::NotSupported(
          "time zone rules past the last transition of the tz database are not supported: "
          "\"{}\"",
          text);
    }
    const int64_t offset =
        p.zone_rules != nullptr ? OffsetAtLocal(*p.zone_rules, local) : p.zone_seconds;
    if (__builtin_sub_overflow(value, offset * kMicrosPerSecond, &value)) {
      return Status::Invalid("timestamp out of range: \"{}\"", text);
    }
  }
  const int64_t final_days = FloorDiv(value, kMicrosPerDay);
  if (final_days < kMinTimestampDays || final_days >= kEndTimestampDays) {
    return Status::Invalid("timestamp out of range: \"{}\"", text);
  }
  return value;
}

}  // namespace

Result<int32_t> ParseDate(std::string_view text) {
  FLOE_ASSIGN_OR_RAISE(int64_t days, ParseDateTime(text, Target::kDate));
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTime(std::string_view text) { return ParseDateTime(text, Target::kTime); }

Result<int64_t> ParseTimestamp(std::string_view text, bool with_zone) {
  return ParseDateTime(text, with_zone ? Target::kTimestampTz : Target::kTimestamp);
}

Result<TimeZone> LookupTimeZone(std::string_view name) {
  std::string w;
  for (char c : name) {
    if (!IsSpace(c)) w.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  if (auto offset = AbbreviationOffset(w)) return TimeZone{*offset, nullptr};
  // A POSIX offset, alone or after a zone name: hours west of UTC.
  const size_t sign = w.find_first_of("+-");
  if (sign != std::string::npos && w.find('/') == std::string::npos &&
      (sign == 0 ||
       (sign >= 3 && std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(sign),
                                 [](char c) { return IsAlpha(c); })))) {
    int64_t west = 0;
    if (ParseOffset(std::string_view(w).substr(sign), &west) == Failure::kNone) {
      return TimeZone{-west, nullptr};
    }
  }
  if (const ZoneRules* rules = FindZone(w)) return TimeZone{0, rules};
  return Status::Invalid("time zone \"{}\" not recognized", name);
}

Result<int64_t> ZoneOffsetAtUtc(const TimeZone& zone, int64_t utc_seconds) {
  if (zone.rules == nullptr) return zone.fixed_seconds;
  const auto& rules = *static_cast<const ZoneRules*>(zone.rules);
  if (!rules.Known(utc_seconds)) {
    return Status::NotSupported(
        "time zone rules past the last transition of the tz database are not supported");
  }
  return rules.OffsetAtUtc(utc_seconds);
}

Result<int64_t> ZoneOffsetAtLocal(const TimeZone& zone, int64_t local_seconds) {
  if (zone.rules == nullptr) return zone.fixed_seconds;
  const auto& rules = *static_cast<const ZoneRules*>(zone.rules);
  if (!rules.Known(local_seconds - kSecondsPerDay)) {
    return Status::NotSupported(
        "time zone rules past the last transition of the tz database are not supported");
  }
  return OffsetAtLocal(rules, local_seconds);
}

}  // namespace floe::expr::internal
