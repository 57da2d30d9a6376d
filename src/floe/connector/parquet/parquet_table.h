#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/connector/parquet/parquet_scan_exec.h"
#include "floe/exec/table_provider.h"
#include "floe/plan/binder.h"

namespace floe::connector {

/// read_parquet(...): one or more Parquet files named by paths or glob(3) patterns. The
/// footers are read once per query, at Make (the scan's partitions reuse them): the schema is the
/// first file's (files sorted by path), every other file must have the same column names and types,
/// and statistics (row count, column min/max and null counts) come from the footers.
class ParquetTable final : public exec::TableProvider {
 public:
  /// kInvalidArgument for no paths; kNotFound "no files match \"x\"" for a pattern that
  /// matches nothing; kInvalidArgument naming the file and column whose schema differs;
  /// the reader's errors for files that are not Parquet.
  static Result<std::shared_ptr<const ParquetTable>> Make(std::vector<std::string> paths_or_globs);

  std::string_view kind() const override { return "parquet"; }
  /// "read_parquet('x.parquet')" for one file, "read_parquet(3 files)" otherwise.
  std::string display_name() const override;
  const SchemaPtr& schema() const override { return schema_; }
  plan::Statistics statistics() const override { return statistics_; }
  /// kInexact for what ToParquetPredicate accepts, kUnsupported otherwise.
  FilterPushdown SupportsFilter(const expr::Expr& conjunct) const override;
  /// A ParquetScanExec over the row groups the filters do not rule out, split at row
  /// groups into at most target_partitions groups of about equal compressed bytes. The
  /// request's limit is passed on only when there are no filters (they prune inexactly).
  Result<exec::PlanPtr> Scan(const exec::ScanRequest& request,
                             const exec::SessionConfig& config) const override;

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
  SchemaPtr schema_;
  plan::Statistics statistics_;
};

/// read_parquet(path_or_glob, ...): every argument positional and a string.
/// kInvalidArgument naming a bad argument.
Result<plan::TableSourcePtr> MakeReadParquet(const std::vector<plan::TableFunctionArg>& args);

}  // namespace floe::connector
