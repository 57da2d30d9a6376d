#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/batch/array.h"
#include "floe/batch/scalar.h"

namespace floe {

/// How FormatValue renders a value that is NULL at the top level (nested NULLs
/// follow PostgreSQL: `NULL` inside arrays and maps, nothing inside rows).
struct FormatOptions {
  /// "NULL" for table output, "" for CSV.
  std::string_view null_text = "NULL";
  /// PostgreSQL's extra_float_digits (-15 .. 3) for float columns: above 0 the shortest
  /// exact digits, else 15 (float8) or 6 (float4) significant digits plus this, as %g prints.
  int extra_float_digits = 1;
};

/// Appends the PostgreSQL text output of value `i` of `array` to `out`:
///   boolean            t / f
///   integers           decimal digits
///   float32/float64    shortest round-trip digits, exponent form when the decimal
///                      exponent is < -4 or >= 6 (float32) / 15 (float64), as in
///                      PostgreSQL 12+: 0.1, 1e+20, 1.5e-05, NaN, Infinity, -Infinity
///   decimal(p,s)       exactly s digits after the point: -0.05, 123.40
///   date               2026-01-31; years before 1 as 0044-03-15 BC
///   time               12:00:00.5 (fraction without trailing zeros)
///   timestamp          2026-01-31 12:00:00.5; _ns types keep up to 9 digits
///   timestamptz        in UTC with +00: 2026-01-31 12:00:00.5+00
///   string             as is
///   binary, fixed      bytea hex: \x0a0b
///   uuid               canonical 8-4-4-4-12 lower-case hex
///   list               array text {1,2,NULL}, elements quoted as array_out does
///   struct             row text (1,abc), fields quoted as record_out does
///   map                {k1=>v1,k2=>v2}: hstore-like (PostgreSQL has no map type);
///                      keys and values quoted by the array rules, also when they
///                      contain '=' or '>'; NULL values as NULL
void AppendValueText(const Array& array, int64_t i, std::string* out,
                     const FormatOptions& options = {});

/// AppendValueText into a new string.
std::string FormatValue(const Array& array, int64_t i, const FormatOptions& options = {});

/// Appends value `i` as JSON: numbers and booleans as JSON numbers and booleans
/// (decimals keep their scale; NaN and infinities become the strings "NaN",
/// "Infinity", "-Infinity"), strings JSON-escaped, binary/fixed/date/time/
/// timestamps/uuid as their text forms in JSON strings, lists as arrays, structs
/// as objects keyed by field name, maps with string keys as objects and other maps
/// as arrays of {"key": ..., "value": ...}, NULL as null.
void AppendJsonValue(const Array& array, int64_t i, std::string* out);

/// The text form of a scalar, by the same rules as FormatValue.
std::string FormatScalar(const Scalar& scalar, const FormatOptions& options = {});
/// Appends the JSON form of a scalar, by the same rules as AppendJsonValue.
void AppendJsonScalar(const Scalar& scalar, std::string* out);

/// The leaf formatters, for casts to text and other callers that hold raw values.
void AppendFloat64Text(double value, std::string* out, int extra_float_digits = 1);
void AppendFloat32Text(float value, std::string* out, int extra_float_digits = 1);
void AppendInt128Text(Int128 value, std::string* out);
void AppendDecimalText(Int128 unscaled, int scale, std::string* out);
/// `days` since 1970-01-01; the int32 extremes print as "infinity" and "-infinity".
void AppendDateText(int32_t days, std::string* out);
/// Microseconds since midnight.
void AppendTimeText(int64_t micros, std::string* out);
/// `value` since the epoch in microseconds (or nanoseconds when `nanos`); with
/// `with_zone` the UTC offset "+00" is appended. The int64 extremes print as "infinity"
/// and "-infinity".
void AppendTimestampText(int64_t value, bool nanos, bool with_zone, std::string* out);
/// ISO-8601 forms (Iceberg's JSON single values; parsed by iceberg/value_text.h): years
/// 0000..9999 as four digits, others signed (-0001, +10000); timestamps joined by 'T' and,
/// with `with_zone`, ending in "+00:00".
void AppendIsoDateText(int64_t days, std::string* out);
void AppendIsoTimestampText(int64_t value, bool nanos, bool with_zone, std::string* out);
/// \x followed by two lower-case hex digits per byte.
void AppendByteaText(std::string_view bytes, std::string* out);
/// 16 bytes as 8-4-4-4-12 lower-case hex.
void AppendUuidText(std::string_view bytes, std::string* out);
/// Appends `s` as an element of an array literal, quoted as array_out quotes (when it is
/// empty or NULL, or holds braces, commas, quotes, backslashes or white space).
void AppendArrayElementText(std::string_view s, std::string* out);
/// Appends `s` as a field of a record literal, quoted as record_out quotes (when it is
/// empty, or holds parentheses, commas, quotes, backslashes or white space).
void AppendRecordFieldText(std::string_view s, std::string* out);

/// Appends `s` as a JSON string literal (quotes included) with PostgreSQL's escaping: ", \,
/// \b, \f, \n, \r, \t, and \u00xx for other control characters; everything else as it is.
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace floe
