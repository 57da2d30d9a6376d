#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/cli/command.h"
#include "floe/common/result.h"

namespace floe::cli {

/// Options of `floe parquet cat`.
struct CatOptions {
  std::string file;
  /// Top-level column names, in output order; empty selects every column.
  std::vector<std::string> columns;
  /// At most this many rows; reading stops as soon as they are printed.
  std::optional<int64_t> limit;
  /// "table" (psql-like), "csv" or "jsonl".
  std::string format = "table";
  /// Check the CRC of pages that carry one.
  bool verify_checksums = true;
};

/// Options of `floe parquet scan`.
struct ScanOptions {
  std::string file;
  std::vector<std::string> columns;
  /// Threads that decode row groups; 1 decodes everything on the calling thread.
  int threads = 0;
  /// Check the CRC of pages that carry one.
  bool verify_checksums = true;
};

/// Options of `floe parquet copy`.
struct CopyOptions {
  std::string input;
  std::string output;
  std::string compression = "zstd";
  std::optional<int64_t> row_group_rows;
  std::optional<int64_t> page_size;
  bool no_dictionary = false;
  int data_page_version = 1;
};

/// Prints the file's Parquet schema in message notation.
Status RunSchema(const std::string& file);
/// Prints the file's footer as JSON (see FooterToJson).
Status RunMeta(const std::string& file);
/// Prints rows of the file as a psql-like table, CSV or JSON lines, streaming batch by
/// batch.
Status RunCat(const CatOptions& options);
/// Decodes the selected columns of every row group (in parallel on a ThreadPool when
/// threads > 1) and prints one line: rows, bytes (compressed column chunks read),
/// decoded_bytes (Arrow buffers produced), seconds, threads.
Status RunScan(const ScanOptions& options);
/// Reads `input` with floe's reader and writes its rows to `output` with floe's
/// writer. A failed copy removes the partial output.
Status RunCopy(const CopyOptions& options);

/// Adds `floe parquet schema|meta|cat|scan|copy` to `app`. When one of them is
/// selected, parsing stores its action in `*action`. The app must outlive parsing.
void AddParquetCommands(CLI::App* app, CommandAction* action);

}  // namespace floe::cli
