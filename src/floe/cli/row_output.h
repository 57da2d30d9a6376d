#pragma once

#include <iosfwd>
#include <memory>
#include <string_view>

#include "floe/batch/array.h"
#include "floe/common/result.h"

namespace floe::cli {

/// Prints record batches in one of the row formats the commands share: "table" (psql's
/// aligned table), "csv" (RFC 4180, with a header) or "jsonl" (one JSON object per row,
/// keyed by column name). Values use the PostgreSQL text forms (JSON forms for jsonl).
class RowPrinter {
 public:
  virtual ~RowPrinter() = default;

  /// kInvalidArgument naming the format when it is not one of the three.
  /// `extra_float_digits`: how floats print (FormatOptions::extra_float_digits).
  static Result<std::unique_ptr<RowPrinter>> Make(std::string_view format, SchemaPtr schema,
                                                  std::ostream* out, int extra_float_digits = 1);

  virtual Status Write(const RecordBatch& batch) = 0;
  /// Writes the stream's batches until it ends or `*remaining` rows have been written
  /// (the last batch is cut to fit); decrements `*remaining` by the rows written.
  Status WriteStream(RecordBatchReader& stream, int64_t* remaining);
  /// Writes what a format prints after the rows (the table's header when no row came and
  /// its row count) and flushes; an output stream that failed is kIOError.
  virtual Status Finish() = 0;
};

}  // namespace floe::cli
