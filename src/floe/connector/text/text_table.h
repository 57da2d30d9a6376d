#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/connector/parquet/parquet_table.h"
#include "floe/connector/text/text_scan_exec.h"
#include "floe/exec/table_provider.h"
#include "floe/plan/binder.h"

namespace floe::connector {

/// How read_csv, read_json and COPY FROM read their files.
struct TextTableOptions {
  /// The records' layout and the bad-row policy (ignore_errors; the hint is set by Make).
  TextScanOptions scan;
  /// CSV: whether the first record of each file is a header; nullopt: decided by the sniffer
  /// (no header when `columns` are given).
  std::optional<bool> header;
  /// CSV: pick the delimiter among ',', '\t', '|' and ';' from the first records.
  bool detect_delimiter = false;
  /// JSON: an array when the first file's first character is '[', else JSON lines.
  bool detect_json_layout = false;
  /// The columns, by position (CSV) or key (JSON); empty: inferred from the first records.
  std::vector<Field> columns;
  /// Records of the first file the sniffer reads (-1: all of them).
  int64_t sample_rows = 20480;
  /// Inferred columns are all text.
  bool all_text = false;
};

/// read_csv(...) / read_json(...): CSV or JSON files named by paths or glob patterns, local or
/// on S3. The files are listed and the first file's first records sampled at Make (the
/// columns' names and types, the header, the delimiter, the JSON layout); the scan splits
/// large local files into byte ranges at record starts (a pass over the file's bytes at
/// planning that keeps the quoting state and counts lines), so that partitions read them in
/// parallel and errors still name exact lines. Every file is read as the first one is.
class TextTable final : public exec::TableProvider {
 public:
  /// `io` reads the files on S3 (and expands every pattern); nullptr: local files only.
  /// kInvalidArgument for no paths; kNotFound "no files match ..."; kInvalidArgument when
  /// JSON records hold no object to take columns from (name them with columns => '...');
  /// kNotSupported for a column type text cannot be read as.
  static Result<std::shared_ptr<const TextTable>> Make(std::vector<std::string> paths_or_globs,
                                                       TextTableOptions options,
                                                       std::shared_ptr<const io::FileIO> io);

  std::string_view kind() const override { return TextFormatName(options_.scan.records.format); }
  /// "read_csv('x.csv')" for one file, "read_csv(3 files)" otherwise.
  std::string display_name() const override;
  const SchemaPtr& schema() const override { return schema_; }
  plan::Statistics statistics() const override { return statistics_; }
  /// A TextScanExec over every file: files larger than 1.5 times the split size (the larger
  /// of text_files.min_split_bytes and the bytes over target_partitions) split into ranges of
  /// about that size, the ranges in file order cut into at most target_partitions
  /// contiguous groups of about equal bytes.
  Result<exec::PlanPtr> Scan(const exec::ScanRequest& request,
                             const exec::SessionConfig& config) const override;

  /// The scan options as sniffed (header, delimiter, layout decided).
  const TextScanOptions& scan_options() const { return options_.scan; }
  struct File {
    std::string path;
    int64_t size = 0;
  };
  const std::vector<File>& files() const { return files_; }

 private:
  TextTable() = default;

  std::vector<File> files_;
  std::shared_ptr<const io::FileIO> io_;
  TextTableOptions options_;
  SchemaPtr schema_;
  plan::Statistics statistics_;
};

/// The fields of a column list as SQL writes it in CREATE TABLE: 'a integer, "B" text,
/// c numeric(10, 2)' (types bind as in casts). kInvalidArgument naming `function` and what is
/// wrong.
Result<std::vector<Field>> ParseColumnList(std::string_view text, std::string_view function);

/// read_csv(path_or_glob, ... [, header => bool] [, delim => 'c'] [, quote => 'c'] [, escape =>
/// 'c'] [, nullstr => 'text'] [, columns => 'a int, b text'] [, sample_size => n]
/// [, all_varchar => bool] [, ignore_errors => bool] [, max_line_size => bytes]).
/// kInvalidArgument naming a bad or unknown argument.
Result<plan::TableSourcePtr> MakeReadCsv(const std::vector<plan::TableFunctionArg>& args,
                                         const FileIOSource& s3_io = nullptr);

/// read_json(path_or_glob, ... [, format => 'auto' | 'newline_delimited' | 'array']
/// [, columns => 'a int, b text'] [, sample_size => n] [, ignore_errors => bool]
/// [, maximum_object_size => bytes]).
Result<plan::TableSourcePtr> MakeReadJson(const std::vector<plan::TableFunctionArg>& args,
                                          const FileIOSource& s3_io = nullptr);

}  // namespace floe::connector
