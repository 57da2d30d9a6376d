#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"

namespace floe {

/// Options for the psql-like aligned table.
struct TableOptions {
  /// How a NULL cell reads.
  std::string null_text = "NULL";
  /// Whether Finish() writes the "(N rows)" line.
  bool footer = true;
  /// How floats print (FormatOptions::extra_float_digits).
  int extra_float_digits = 1;
};

/// Writes record batches as psql's aligned table (border 1):
///
///      id | name
///     ----+-------
///       1 | abc
///       2 | defgh
///     (2 rows)
///
/// Headers are centered; numeric columns (integers, floats, decimals) are right
/// aligned, everything else left aligned; the last column carries no trailing
/// padding in data rows. Cells use FormatValue's PostgreSQL text forms. Widths are
/// those of the first batch (and the headers); a later batch widens the columns from
/// then on, so a stream of batches stays aligned as long as later values fit. Cells
/// are measured in code points; line breaks inside values are written as they are.
class TableWriter {
 public:
  TableWriter(SchemaPtr schema, std::ostream* out, TableOptions options = {});

  /// Writes the header (on the first call) and the batch's rows. kInvalidArgument
  /// when the batch's column count differs from the schema's; kIOError when the
  /// stream fails.
  Status Write(const RecordBatch& batch);
  /// Writes the header if no batch came, then the footer.
  Status Finish();

  int64_t rows_written() const { return rows_; }

 private:
  void WriteHeader();

  SchemaPtr schema_;
  std::ostream* out_;
  TableOptions options_;
  std::vector<int64_t> widths_;
  bool header_written_ = false;
  int64_t rows_ = 0;
};

/// One batch as a complete table, footer included.
std::string PrettyPrint(const RecordBatch& batch, const TableOptions& options = {});

/// Options for CSV output.
struct CsvOptions {
  /// Whether the first line names the columns.
  bool header = true;
  char delimiter = ',';
  /// How NULL reads; the empty string by default. A value whose text equals it (the empty
  /// string, by default) is always quoted ("") so that it stays distinct from NULL, as in
  /// PostgreSQL's COPY.
  std::string null_text;
  /// The quote, and the character written before a quote (or itself) inside quotes: the
  /// quote itself doubles quotes.
  char quote = '"';
  char escape = '"';
  /// Columns whose non-NULL values are always quoted (COPY's FORCE_QUOTE); empty: none.
  std::vector<bool> force_quote;
  std::string line_ending = "\n";
  /// How floats print (FormatOptions::extra_float_digits).
  int extra_float_digits = 1;
};

/// Writes record batches as CSV (RFC 4180 quoting: fields with the delimiter, the quote,
/// CR or LF, or equal to the NULL text, are quoted and their quotes escaped). Values use
/// FormatValue's text forms.
class CsvWriter {
 public:
  CsvWriter(SchemaPtr schema, std::ostream* out, CsvOptions options = {});

  /// Writes the header (on the first call, when enabled) and the batch's rows.
  /// kInvalidArgument on a column count mismatch; kIOError when the stream fails.
  Status Write(const RecordBatch& batch);
  /// Writes the header if no batch came and none was written.
  Status Finish();

 private:
  void WriteHeader();
  void AppendField(std::string_view text, bool is_null, bool force, std::string* line) const;

  SchemaPtr schema_;
  std::ostream* out_;
  CsvOptions options_;
  bool header_written_ = false;
};

/// One batch as CSV text.
std::string FormatCsv(const RecordBatch& batch, const CsvOptions& options = {});

/// Writes record batches as JSON lines: one object per row keyed by column name, values in
/// their JSON forms (AppendJsonValue). Buffers up to 1 MiB before writing to the stream.
class JsonLinesWriter {
 public:
  JsonLinesWriter(SchemaPtr schema, std::ostream* out);

  /// kInvalidArgument on a column count mismatch; kIOError when the stream fails.
  Status Write(const RecordBatch& batch);
  /// Writes what is buffered and flushes.
  Status Finish();

 private:
  Status Flush();

  SchemaPtr schema_;
  std::ostream* out_;
  std::vector<std::string> keys_;  // "\"name\":" per column
  std::string buffer_;
};

}  // namespace floe
