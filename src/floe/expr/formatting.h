#pragma once

// PostgreSQL's data type formatting functions: the template engine behind to_char,
// to_timestamp, to_date and to_number (PostgreSQL 15, "Data Type Formatting Functions").
//
// A template is parsed once into nodes: patterns (YYYY, Month, 9, PR, ...) with their
// modifiers, and literal text (everything else; double-quoted text and a backslash before a
// double quote are literal too). The same nodes format a value (to_char) and read one back
// (to_timestamp, to_date, to_number), with PostgreSQL's rules and its error messages. The
// locale is C (the currency symbol prints as a blank, the group separator as a comma) and
// the session time zone UTC, as everywhere in floe.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::expr {

/// A date/time template: to_char(timestamp | timestamptz | date, text), to_timestamp(text,
/// text) and to_date(text, text). Every text is a template (what is not a pattern is literal
/// text), so parsing cannot fail.
class DateTimeTemplate {
 public:
  /// What a pattern stands for; several spellings share one (HH and HH12, YYYY and YYY, ...).
  enum class Field : uint8_t {
    kMeridiem,       // AM PM am pm
    kMeridiemDots,   // A.M. P.M. a.m. p.m.
    kEra,            // AD BC ad bc
    kEraDots,        // A.D. B.C. a.d. b.c.
    kCentury,        // CC
    kDayName,        // DAY Day day
    kDayAbbrev,      // DY Dy dy
    kDayOfYear,      // DDD
    kDayOfMonth,     // DD
    kDayOfWeek,      // D (Sunday = 1)
    kFraction,       // FF1 .. FF6 (digits() of them)
    kFixedFormat,    // FX
    kHour24,         // HH24
    kHour12,         // HH HH12
    kIsoDayOfYear,   // IDDD
    kIsoDayOfWeek,   // ID (Monday = 1)
    kIsoWeek,        // IW
    kIsoYear,        // IYYY IYY IY I (digits() of them)
    kJulianDay,      // J
    kMinute,         // MI
    kMonth,          // MM
    kMonthName,      // MONTH Month month
    kMonthAbbrev,    // MON Mon mon
    kMillisecond,    // MS
    kOffset,         // OF
    kQuarter,        // Q
    kRomanMonth,     // RM rm
    kSecondOfDay,    // SSSS SSSSS
    kSecond,         // SS
    kZoneHour,       // TZH
    kZoneMinute,     // TZM
    kZoneName,       // TZ tz
    kMicrosecond,    // US
    kWeekOfYear,     // WW
    kWeekOfMonth,    // W
    kYearWithComma,  // Y,YYY
    kYear,           // YYYY YYY YY Y (digits() of them)
  };
  enum class LetterCase : uint8_t { kUpper, kLower, kCapitalized };

  /// One pattern spelling.
  struct Keyword {
    std::string_view text;
    Field field;
    LetterCase letter_case;
    /// The characters a fixed-width reading takes (to_timestamp); for FFn, YYY, ... also
    /// the digits the field has.
    int8_t width;
    /// Whether the field reads digits: a number field directly followed by another one is
    /// read at its fixed width.
    bool numeric;
  };

  enum class NodeKind : uint8_t {
    kPattern,
    kLiteral,    // a letter, a digit, other text or any double-quoted character
    kSeparator,  // an ASCII punctuation character outside double quotes
    kSpace,      // a white-space character outside double quotes
  };
  enum class Ordinal : uint8_t { kNone, kUpper, kLower };

  struct Node {
    NodeKind kind = NodeKind::kLiteral;
    const Keyword* keyword = nullptr;  // kPattern
    bool fill_mode = false;            // FM prefix: no padding
    bool translate = false;            // TM prefix: names without padding
    Ordinal ordinal = Ordinal::kNone;  // TH / th suffix
    std::string text;                  // other kinds: one character (UTF-8)
  };

  /// Parses `text`: at each position the longest pattern spelled there (patterns are case
  /// sensitive: YYYY, yyyy; Month, MONTH, month), after an optional FM or TM prefix and
  /// followed by an optional TH, th or SP suffix; anything else is one literal character.
  static DateTimeTemplate Parse(std::string_view text);

  const std::vector<Node>& nodes() const { return nodes_; }
  bool empty() const { return nodes_.empty(); }

  /// to_char: the value `micros` since the epoch (UTC). `with_zone` for timestamptz (and
  /// date, which PostgreSQL formats as one): TZ prints UTC, where a timestamp prints
  /// nothing. Finite values only.
  std::string Format(int64_t micros, bool with_zone) const;

  /// to_timestamp: the instant `input` names, microseconds since the epoch. An input
  /// without a zone (TZH, TZM) is read in UTC. kInvalidArgument with PostgreSQL's message
  /// ("invalid value \"x\" for \"MM\"", "date/time field value out of range: \"...\"",
  /// "conflicting values for \"MM\" field in formatting string", "timestamp out of range",
  /// ...).
  Result<int64_t> ToTimestamp(std::string_view input) const;
  /// to_date: the day `input` names (days since the epoch); the time fields are read and
  /// checked, then dropped. "date out of range: \"...\"" past PostgreSQL's dates.
  Result<int32_t> ToDate(std::string_view input) const;

 private:
  std::vector<Node> nodes_;
};

/// A numeric template: to_char(int | bigint | real | double precision | numeric, text) and
/// to_number(text, text).
class NumberTemplate {
 public:
  enum class Pattern : uint8_t {
    kDigit9,    // 9
    kDigit0,    // 0
    kPoint,     // .
    kComma,     // ,
    kDecimal,   // D (the locale's decimal point: '.')
    kGroup,     // G (the locale's group separator: ',')
    kBracket,   // PR
    kSign,      // S
    kCurrency,  // L (the locale's currency symbol: a blank)
    kMinus,     // MI
    kPlus,      // PL
    kSignAny,   // SG
    kRoman,     // RN rn
    kShift,     // V
    kExponent,  // EEEE
    kFillMode,  // FM
    kOrdinal,   // TH th
    kBlank,     // B (accepted, prints nothing)
    kSpell,     // SP (accepted, prints nothing)
    kOther,     // C: accepted, prints nothing
  };

  struct Node {
    bool is_pattern = false;
    Pattern pattern = Pattern::kOther;
    bool lower = false;  // rn, th: the lower-case spelling
    std::string text;    // literal text: one character (UTF-8)
  };

  /// Parses `text`; kInvalidArgument for the combinations PostgreSQL rejects ("multiple
  /// decimal points", "cannot use \"V\" and decimal point together", "cannot use \"S\"
  /// twice", "\"EEEE\" is incompatible with other formats", ...).
  static Result<NumberTemplate> Parse(std::string_view text);

  const std::vector<Node>& nodes() const { return nodes_; }
  bool empty() const { return nodes_.empty(); }

  /// to_char of an integer (int4 when `is_int4`, else int8: V's shift overflows as each).
  Result<std::string> FormatInteger(int64_t value, bool is_int4) const;
  /// to_char of a decimal (the unscaled value and its scale).
  Result<std::string> FormatDecimal(Int128 unscaled, int scale) const;
  /// to_char of a float: float4 keeps 6 significant digits, float8 15, as PostgreSQL does.
  Result<std::string> FormatFloat(double value, bool is_float4) const;

  /// The value to_number reads: `unscaled` at `scale` digits after the point.
  struct Number {
    Int128 unscaled = 0;
    int scale = 0;
  };
  /// to_number: reads `input` by the template. kInvalidArgument "invalid input syntax for
  /// type numeric: \"...\"" when it holds no digits, "numeric field overflow" when it has
  /// more integer digits than the template, "\"EEEE\" not supported for input", "\"RN\" not
  /// supported for input"; "value overflows numeric format" past 38 digits.
  Result<Number> ToNumber(std::string_view input) const;

  /// The digits after the point a value to_number reads can have: the digit positions
  /// after the decimal point, plus those after V.
  int fraction_digits() const;

 private:
  struct Layout;
  // Walks the template over a number's text ("123.45", "0.50"; '#' when it overflows)
  // with `blanks` digit positions before its first digit and `post` after its point.
  Result<std::string> Render(bool negative, std::string digits, int blanks, int post) const;

  std::vector<Node> nodes_;
  // The template's shape, as PostgreSQL describes it.
  int pre_ = 0;               // digit positions before the decimal point (not after V)
  int post_ = 0;              // digit positions after it
  int shift_ = 0;             // digit positions after V
  bool has_point_ = false;    // . or D
  bool fill_mode_ = false;    // FM
  bool has_zero_ = false;     // some 0 before the point
  int zero_start_ = 0;        // 1-based digit position of the first 0 before the point
  int zero_end_ = 0;          // digit position of the last 0
  bool bracket_ = false;      // PR
  bool minus_ = false;        // MI or SG
  bool plus_ = false;         // PL or SG
  bool locale_sign_ = false;  // S
  bool sign_before_ = false;  // S before the digits (else after them)
  int sign_pre_digits_ = 0;   // digit positions before S
  bool roman_ = false;        // RN
  bool exponent_ = false;     // EEEE
};

}  // namespace floe::expr
