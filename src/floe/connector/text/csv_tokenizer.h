#pragma once

// CSV records and fields (RFC 4180, read as PostgreSQL's COPY ... CSV reads them).
//
// A record ends at "\n" or "\r\n" outside quotes; a "\r" not followed by "\n" is data. Fields
// are separated by the delimiter. A quote character opens a quoted section anywhere in a field
// and the next lone quote closes it ("a""b" is a"b; "ab"cd is abcd); inside a quoted section
// the delimiter, newlines and CRLF are data. With an escape character other than the quote,
// escape+quote and escape+escape inside quotes are the second character, and an escape before
// anything else is itself. Outside quotes neither quote pairs nor escapes mean anything but
// the opening quote. An unquoted field equal to the NULL text is NULL; a field that was quoted
// anywhere never is (PostgreSQL's rule: "" is the empty string).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::connector {

/// How a CSV file is written.
struct CsvDialect {
  char delimiter = ',';
  /// '\0': no quoting.
  char quote = '"';
  /// Inside quotes, the character that makes the next quote (or itself) data. Equal to
  /// `quote`: a doubled quote is one quote. '\0': none (a quote inside quotes always closes).
  char escape = '"';
  /// An unquoted field with exactly this text is NULL.
  std::string null_text;

  bool operator==(const CsvDialect&) const = default;
};

/// Splits CSV text into records, one at a time, with the fields' quoting resolved.
class CsvTokenizer {
 public:
  explicit CsvTokenizer(CsvDialect dialect);

  enum class Step {
    kRecord,    // a record was read (its fields are available below)
    kNeedMore,  // the record may continue past the bytes given: give more
  };

  /// Reads the record that begins at data[0]. `at_end`: no bytes follow `data` (the last
  /// record may then end without a newline). On kRecord, `*consumed` is the record's length
  /// with its terminator. kInvalidArgument "unterminated quoted field" when `at_end` and a
  /// quote is still open. `data` must not be empty.
  Result<Step> Next(std::string_view data, bool at_end, size_t* consumed);

  int num_fields() const { return static_cast<int>(fields_.size()); }
  /// The field's value (quotes and escapes resolved).
  std::string_view field(int i) const {
    const Field& f = fields_[static_cast<size_t>(i)];
    return std::string_view(arena_).substr(f.begin, f.end - f.begin);
  }
  /// Whether the field had a quoted section.
  bool quoted(int i) const { return fields_[static_cast<size_t>(i)].quoted; }
  /// Whether the field is NULL: never quoted, and equal to the dialect's NULL text.
  bool is_null(int i) const { return !quoted(i) && field(i) == dialect_.null_text; }
  /// Line breaks inside the record (its terminator included): how many lines it spans.
  int64_t newlines() const { return newlines_; }
  /// Whether the record was an empty line (no byte before its terminator).
  bool empty_line() const { return empty_line_; }

  const CsvDialect& dialect() const { return dialect_; }

 private:
  struct Field {
    size_t begin;
    size_t end;
    bool quoted;
  };
  enum CharClass : uint8_t { kPlain = 0, kDelimiter, kQuote, kEscape, kNewline, kReturn };

  CsvDialect dialect_;
  CharClass classes_[256];
  std::string arena_;
  std::vector<Field> fields_;
  int64_t newlines_ = 0;
  bool empty_line_ = false;
};

/// Where records begin, for splitting a file into ranges read in parallel: a scan over the
/// file's bytes from its start that keeps the quoting state (so a line break inside a quoted
/// field is never taken for a record's end) and counts lines.
class CsvRecordStarts {
 public:
  /// `dialect.quote == '\0'`: every line break ends a record (JSON lines).
  explicit CsvRecordStarts(const CsvDialect& dialect);

  /// Feeds the next bytes of the file. For each offset of `wanted` (ascending, absolute
  /// file offsets) the first record start at or after it is recorded, with the line it is
  /// on (1-based).
  void Feed(std::string_view bytes);

  /// Asks for the first record start at or after `offset` (at least the current position).
  void Want(int64_t offset) { wanted_.push_back(offset); }

  struct Start {
    int64_t offset;
    int64_t line;
  };
  /// The record starts found so far, in the order they were asked for.
  const std::vector<Start>& found() const { return found_; }
  int64_t position() const { return position_; }

 private:
  char quote_;
  char escape_;
  bool in_quotes_ = false;
  bool after_escape_ = false;
  int64_t position_ = 0;
  int64_t lines_ = 0;  // line breaks outside quotes and inside them
  std::vector<int64_t> wanted_;
  size_t next_wanted_ = 0;
  std::vector<Start> found_;
};

}  // namespace floe::connector
