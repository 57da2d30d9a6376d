#pragma once

// Column types and names of CSV and JSON files inferred from a sample of their records, as
// DuckDB's sniffer does.
//
// A CSV value can be read as each type whose text form it has, tried in this order:
//
//   boolean      true, false, t, f, yes, no (any case)
//   bigint       -?digits that fit 64 bits, without a leading zero ("007" stays text)
//   double       decimals and exponents (1.5, -2e3, .5), NaN, Infinity, inf (any case)
//   time         HH:MM[:SS[.fraction]]
//   date         YYYY-MM-DD
//   timestamp    a date, or a date and a time separated by ' ' or 'T'
//   timestamptz  a timestamp and a zone: Z, +HH, +HH:MM, +HHMM (or -)
//   text         anything
//
// (a bigint value is a double value too; a date a timestamp, a timestamp a timestamptz).
// A column's type is the first type every non-NULL sampled value has; a column of NULLs
// only is text. Values may carry blanks around them. Integers are bigint, never integer, so
// that a larger value past the sample still fits; decimals are double, as DuckDB reads them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::expr {
struct JsonValue;
}  // namespace floe::expr

namespace floe::connector {

/// The types of the sniffing order as bits of a mask.
enum SniffedType : uint8_t {
  kSniffBoolean = 0,
  kSniffBigint,
  kSniffDouble,
  kSniffTime,
  kSniffDate,
  kSniffTimestamp,
  kSniffTimestampTz,
  kSniffText,
  kSniffTypes,
};
using SniffMask = uint16_t;
inline constexpr SniffMask kAllSniffed = (1u << kSniffTypes) - 1;

/// The types `value` can be read as (bit i for SniffedType i; text always).
SniffMask SniffValue(std::string_view value);
/// The first type of `mask` (text for an empty mask or the full one of a column that saw no
/// value).
TypePtr SniffedTypeOf(SniffMask mask);

/// One sampled CSV record: its fields, NULL as nullopt.
using SampleRow = std::vector<std::optional<std::string>>;

/// What the CSV sniffer decided.
struct CsvSniffResult {
  bool header = false;
  std::vector<std::string> names;
  std::vector<TypePtr> types;
};

/// Names and types of a CSV file's columns from its first records. The column count is the
/// first record's. `header` given: whether the first record names the columns; nullopt:
/// decided as DuckDB does (the first record is a header when a column's other values share a
/// type other than text that its first value lacks, or when every column is text and every
/// first value is text only). `all_text`: every type is text. Names are the header's (an
/// empty name is column<i>; a repeated one gets _1, _2, ...) or column0, column1, ...
CsvSniffResult SniffCsv(const std::vector<SampleRow>& rows, std::optional<bool> header,
                        bool all_text);

/// The JSON sniffer: feed it objects, then read the columns (keys in order of first
/// appearance) and their types. A key's values decide its type: booleans boolean; integers
/// bigint (double once a value is fractional or past 64 bits); strings as CSV values restricted
/// to time, date, timestamp, timestamptz and text; objects, arrays, values of different kinds
/// and only NULLs json.
class JsonSniffer {
 public:
  void Add(const expr::JsonValue& object);
  std::vector<std::string> names() const;
  std::vector<TypePtr> types() const;

 private:
  struct Column {
    std::string name;
    enum class Kind { kNone, kBoolean, kNumber, kString, kJson } kind = Kind::kNone;
    bool fractional = false;
    SniffMask strings = kAllSniffed;
  };
  std::vector<Column> columns_;
  std::unordered_map<std::string, size_t> index_;
};

/// Column names unique within `names`: a repeated name gets _1, _2, ... (DuckDB's rule).
std::vector<std::string> DeduplicateNames(std::vector<std::string> names);

}  // namespace floe::connector
