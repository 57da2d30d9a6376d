#pragma once

// COPY's options and files (PostgreSQL's COPY, with JSON lines and Parquet besides CSV):
//
//   COPY t [(a, b)] FROM 'path or glob' [WITH] (FORMAT csv, HEADER [bool], DELIMITER ',',
//        NULL '', QUOTE '"', ESCAPE '"', ON_ERROR stop | ignore, ENCODING 'UTF8')
//   COPY t FROM 'f.jsonl' (FORMAT json)    keys to columns by name
//   COPY t FROM 'f.parquet' (FORMAT parquet)    columns by name
//   COPY t [(a, b)] TO 'f.csv' (FORMAT csv, HEADER, DELIMITER, NULL, QUOTE, ESCAPE,
//        FORCE_QUOTE (a) | *)
//   COPY (query) TO 'f.parquet' (FORMAT parquet [, COMPRESSION zstd])
//   COPY (query) TO 'f.jsonl' (FORMAT json)
//
// Without FORMAT the file's extension decides (.csv, .tsv with a tab delimiter, .json,
// .jsonl, .ndjson, .parquet); PostgreSQL's text and binary formats are not supported. The
// session runs COPY FROM as an INSERT (one commit; a bad row commits nothing) and COPY TO as
// a query whose rows go to the file; both report "COPY <rows>".

#include <memory>
#include <string>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/connector/text/text_table.h"
#include "floe/io/file_io.h"
#include "floe/sql/ast.h"

namespace floe::session {

enum class CopyFormat { kCsv, kJson, kParquet };

/// The options of one COPY statement, checked.
struct CopyOptions {
  CopyFormat format = CopyFormat::kCsv;
  bool header = false;
  /// CSV: DELIMITER (default ','), QUOTE ('"'), ESCAPE (the quote), NULL ('').
  connector::CsvDialect csv;
  /// ON_ERROR ignore (COPY FROM): rows that cannot be read are left out and counted.
  bool ignore_errors = false;
  /// FORCE_QUOTE (COPY TO csv): these columns' values are always quoted; `force_quote_all`: *.
  std::vector<std::string> force_quote;
  bool force_quote_all = false;
  /// COMPRESSION (COPY TO parquet): the Parquet codec.
  std::string compression = "zstd";
};

/// The statement's options (PostgreSQL's names and messages): kInvalidArgument for a bad
/// value, a repeated option or one of another format or direction; kNotSupported for
/// PostgreSQL's options floe does not have (FORCE_NOT_NULL, FORCE_NULL, DEFAULT, FREEZE,
/// another ENCODING) and for the text and binary formats.
Result<CopyOptions> ParseCopyOptions(const sql::CopyStatement& copy);

/// What COPY FROM reads: a relation over the file(s) `path` names. CSV and JSON files are
/// read as exactly `columns` (the target columns: CSV fields by position, JSON keys by name);
/// a Parquet file as it is (see CopyColumnsByName).
Result<plan::TableSourcePtr> CopySource(const std::string& path, const CopyOptions& options,
                                        std::vector<Field> columns,
                                        std::shared_ptr<const io::FileIO> io);

/// The columns of `file_schema` (a Parquet file's) that the target `columns` read, by name
/// (exactly, else ignoring case); the file's other columns are not read. kInvalidArgument
/// naming a column the file lacks.
Result<std::vector<int>> CopyColumnsByName(const Schema& file_schema,
                                           const std::vector<Field>& columns,
                                           const std::string& path);

/// Writes a query's rows to a file in a COPY format.
class CopyFileWriter {
 public:
  virtual ~CopyFileWriter() = default;
  /// Creates (or replaces) the file at `path`: local, or on S3 through `io`.
  /// `extra_float_digits`: how floats print in CSV.
  static Result<std::unique_ptr<CopyFileWriter>> Open(const std::string& path,
                                                      const CopyOptions& options, SchemaPtr schema,
                                                      const io::FileIO* io,
                                                      int extra_float_digits);
  virtual Status Write(const RecordBatch& batch) = 0;
  /// Completes the file.
  virtual Status Close() = 0;
};

}  // namespace floe::session
