#pragma once

// The text of Iceberg values: the JSON single-value form (spec appendix D: field defaults,
// partition values in metadata) and string literals bound to columns in expressions. One
// parser for both, so a value written by one reads back through the other. The printers are
// batch/value_format.h's AppendIsoDateText and AppendIsoTimestampText.
//
// Accepted forms, as the reference implementation's java.time ISO formatters read them:
//   date       YYYY-MM-DD; years outside 0000..9999 carry a sign and up to 9 digits
//              (-0001-12-31, +10000-01-01); the proleptic Gregorian calendar
//   time       HH:MM[:SS[.f]] with 1 to 9 fraction digits; seconds 0..59 (no leap second)
//   timestamp  date 'T' time (a space is read as 'T' too), then for the zoned types an
//              optional offset Z, +HH or +HH:MM (|offset| < 18:00); no offset means UTC.
//              The types without a zone take no offset.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace floe::iceberg {

/// The 16 bytes of a UUID in its 36-character hyphenated hex form (either case), or
/// nullopt.
std::optional<std::string> ParseUuidText(std::string_view text);

/// The bytes of an even-length hex string (binary and fixed values), or nullopt.
std::optional<std::string> ParseHexText(std::string_view text);

/// Days since 1970-01-01, or nullopt when `text` is not an ISO date or lies outside int32.
std::optional<int32_t> ParseIsoDate(std::string_view text);

/// Microseconds since midnight (digits past the microsecond are dropped), or nullopt.
std::optional<int64_t> ParseIsoTime(std::string_view text);

/// A parsed timestamp: nanoseconds since the epoch (UTC when `has_offset`). 128 bits, as
/// the years past 2262 do not fit int64 nanoseconds.
struct IsoTimestamp {
  __int128 nanos = 0;
  bool has_offset = false;
};

/// The timestamp in `text`, or nullopt when it is not in the form above.
std::optional<IsoTimestamp> ParseIsoTimestamp(std::string_view text);

/// `value` in units (1 for nanoseconds, 1000 for microseconds: floored), or nullopt when it
/// does not fit int64.
std::optional<int64_t> IsoTimestampUnits(const IsoTimestamp& value, bool nanos);

}  // namespace floe::iceberg
