#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/connector/parquet/parquet_scan_exec.h"
#include "floe/exec/table_provider.h"
#include "floe/plan/binder.h"

namespace floe::connector {

/// read_parquet(...): one or more Parquet files named by paths or glob patterns, local or on
/// S3 (s3://, s3a://, s3n://). Patterns expand through the FileIO (io::FileIO::Glob: glob(3)
/// locally, a listing of the key prefix before the first wildcard on S3); an S3 path without
/// wildcards is used as named. The footers are read once per query, at Make (the scan's
/// partitions reuse them): the schema is the first file's (files sorted by path), every other
/// file must have the same column names and types, and statistics (row count, column min/max
/// and null counts) come from the footers.
class ParquetTable final : public exec::TableProvider {
 public:
  /// `io` reads the files on S3 (and expands every pattern); nullptr: local files only (an
  /// S3 path is then refused by a LocalFileIO). kInvalidArgument for no paths;
  /// kNotFound "no files match \"x\"" for a pattern that matches nothing; the FileIO's
  /// errors naming the path (a missing object, no S3 credentials, access denied);
  /// kInvalidArgument naming the file and column whose schema differs; the reader's errors
  /// for files that are not Parquet.
  static Result<std::shared_ptr<const ParquetTable>> Make(
      std::vector<std::string> paths_or_globs, std::shared_ptr<const io::FileIO> io = nullptr);

  std::string_view kind() const override { return "parquet"; }
  /// "read_parquet('x.parquet')" for one file, "read_parquet(3 files)" otherwise.
  std::string display_name() const override;
  const SchemaPtr& schema() const override { return schema_; }
  plan::Statistics statistics() const override { return statistics_; }
  /// Another read_parquet of the same files (paths, row groups and their sizes as the
  /// footers read at Make say), through the same FileIO, with the same schema.
  bool SameSource(const plan::TableSource& other) const override;
  /// kInexact for what ToParquetPredicate accepts, kUnsupported otherwise.
  FilterPushdown SupportsFilter(const expr::Expr& conjunct) const override;
  /// A ParquetScanExec over the row groups the filters do not rule out, split at row
  /// groups into at most target_partitions groups of about equal compressed bytes; when
  /// there are fewer row groups than partitions, every projected column is flat and the
  /// files have offset indexes (so that a part's pages are found without decompressing
  /// the others),
  /// the partitions take equal shares of the rows in file order instead, cutting row
  /// groups (no part under kMinRowsPerPart / 2 rows, no more partitions than
  /// kMinRowsPerPart-row shares). The request's limit is passed on only when there are no
  /// filters (they prune inexactly).
  Result<exec::PlanPtr> Scan(const exec::ScanRequest& request,
                             const exec::SessionConfig& config) const override;
  static constexpr int64_t kMinRowsPerPart = 32768;

  /// One file's footer facts.
  struct File {
    std::string path;
    std::vector<int64_t> row_group_rows;
    std::vector<int64_t> row_group_bytes;  // compressed
    std::shared_ptr<const parquet::ParquetFileReader> reader;
    /// The reader and the file's identity, handed to the scan so that its partitions
    /// reuse the footer decoded here.
    std::shared_ptr<const PlannedParquetFile> planned;
  };
  const std::vector<File>& files() const { return files_; }

 private:
  ParquetTable() = default;

  std::vector<File> files_;
  std::shared_ptr<const io::FileIO> io_;
  SchemaPtr schema_;
  plan::Statistics statistics_;
};

/// Gives the FileIO that reads S3 files (the session's), when one is needed.
using FileIOSource = std::function<Result<std::shared_ptr<const io::FileIO>>()>;

/// read_parquet(path_or_glob, ...): every argument positional and a string. `s3_io` is asked
/// for a FileIO only when some argument is an S3 path (empty: S3 paths are refused).
/// kInvalidArgument naming a bad argument.
Result<plan::TableSourcePtr> MakeReadParquet(const std::vector<plan::TableFunctionArg>& args,
                                             const FileIOSource& s3_io = nullptr);

}  // namespace floe::connector
