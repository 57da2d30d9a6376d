#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/dynamic_filter.h"
#include "floe/exec/execution_plan.h"
#include "floe/format/parquet/reader.h"
#include "floe/io/file_io.h"

namespace floe::exec {
class PlanCodecRegistry;
}  // namespace floe::exec

namespace floe::connector {

/// What identifies the contents of a file: a local file replaced or rewritten since planning
/// has another device/inode, size or modification time; an S3 object another size.
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;

  /// The identity of the file at `path` now: an S3 location's size from a HEAD through
  /// `io` (kNotFound naming it when it is gone), else the local file's stat() (kIOError
  /// naming the path when it cannot be stat()ed, e.g. it was deleted).
  static Result<FileIdentity> Of(const std::string& path, const io::FileIO* io = nullptr);
  bool operator==(const FileIdentity&) const = default;
};

/// Opens the Parquet file at `path`: an S3 location (s3://, s3a://, s3n://) through `io`
/// (without one, through a LocalFileIO, which refuses it and suggests a path map), any
/// other path as a local file. With `identity`, also the file's identity as opened. Errors
/// name the path.
Result<std::unique_ptr<parquet::ParquetFileReader>> OpenParquetFile(
    const std::string& path, const io::FileIO* io, parquet::ReaderOptions options = {},
    FileIdentity* identity = nullptr);

/// A Parquet file opened while planning, whose decoded footer the scan reuses instead
/// of reading it again in every partition.
struct PlannedParquetFile {
  /// The open file; shared by every partition that reads it (readers are thread-safe).
  std::shared_ptr<const parquet::ParquetFileReader> reader;
  /// The ReaderOptions::batch_size `reader` was opened with. A scan with another batch
  /// size opens the file again.
  int64_t batch_size = 0;
  /// The file when it was opened. The scan fails with kIOError when the file on disk no
  /// longer matches (the plan's row groups and statistics came from this version).
  FileIdentity identity;
};

/// Row groups of one Parquet file that one scan partition reads.
struct ParquetFileRange {
  std::string path;
  std::vector<int> row_groups;  // ascending
  int64_t bytes = 0;            // compressed bytes of those row groups (or their parts)
  /// The file as opened at planning, or null (the scan then opens `path`).
  std::shared_ptr<const PlannedParquetFile> planned = nullptr;
  /// Rows [first, second) of the row group at the same position in row_groups (a row
  /// group shared with other partitions), or empty when every row group is read whole.
  std::vector<std::pair<int64_t, int64_t>> row_group_rows = {};
};

/// `conjunct` (over `file_schema`) as a predicate the Parquet reader can prune row groups
/// and pages with, or nullopt: comparisons of a top-level primitive column with a non-NULL
/// constant of the column's type (either side), IS [NOT] NULL, and IN lists of constants.
/// Floating-point columns never prune with > or >= (NaN sorts above every number and
/// footers leave NaN out of min/max).
std::optional<parquet::ColumnPredicate> ToParquetPredicate(const expr::Expr& conjunct,
                                                           const Schema& file_schema);

/// Reads Parquet files: output partition i reads groups[i] in order. Produces the
/// `projection` columns of `file_schema` (files are matched by column name), skips the
/// row groups and pages that `filters` rule out (it never evaluates them on rows: a
/// FilterExec stays above), and stops after `limit` rows per partition. Files on S3 are
/// read through `io` (nullptr when every file is local), which the codec carries with its
/// S3 settings so that other processes can read them too. With dynamic filters (a
/// broadcast join above publishes them, exec/dynamic_filter.h), each file range opened
/// after a filter was published also skips the row groups, pages and rows whose column
/// cannot hold one of the filter's keys.
class ParquetScanExec final : public exec::ExecutionPlan {
 public:
  static constexpr std::string_view kName = "ParquetScanExec";
  /// kInternal for a projection index out of range. No groups means one empty partition.
  static Result<exec::PlanPtr> Make(SchemaPtr file_schema,
                                    std::vector<std::vector<ParquetFileRange>> groups,
                                    std::vector<int> projection, std::vector<expr::ExprPtr> filters,
                                    std::optional<int64_t> limit,
                                    std::shared_ptr<const io::FileIO> io = nullptr);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<exec::PlanPtr> Decode(codec::PlanDecoder& in, std::vector<exec::PlanPtr> children);
  const exec::PlanProperties& properties() const override { return properties_; }
  std::vector<exec::PlanPtr> children() const override { return {}; }
  Result<exec::PlanPtr> WithNewChildren(std::vector<exec::PlanPtr> children) const override;
  Result<exec::BatchStreamPtr> Execute(int partition,
                                       const exec::TaskContextPtr& ctx) const override;
  std::string ToString() const override;
  /// This scan reading dynamic filter `id` over output column `column` too; null when
  /// the scan has a limit (dropping rows would change which rows it stops after).
  exec::PlanPtr WithDynamicFilter(int id, int column) const override;

  const SchemaPtr& file_schema() const { return file_schema_; }
  const std::vector<exec::DynamicFilterUse>& dynamic_filters() const { return dynamic_filters_; }
  const std::vector<std::vector<ParquetFileRange>>& groups() const { return groups_; }
  const std::vector<int>& projection() const { return projection_; }
  const std::vector<expr::ExprPtr>& filters() const { return filters_; }
  const std::optional<int64_t>& limit() const { return limit_; }
  const std::shared_ptr<const io::FileIO>& io() const { return io_; }
  /// The filters the scan prunes with, by column name of file_schema.
  struct NamedPredicate {
    std::string column;
    parquet::ColumnPredicate predicate;
  };
  const std::vector<NamedPredicate>& predicates() const { return predicates_; }

 private:
  ParquetScanExec() = default;

  SchemaPtr file_schema_;
  std::vector<std::vector<ParquetFileRange>> groups_;
  std::vector<int> projection_;
  std::vector<expr::ExprPtr> filters_;
  std::optional<int64_t> limit_;
  std::shared_ptr<const io::FileIO> io_;
  std::vector<NamedPredicate> predicates_;
  std::vector<exec::DynamicFilterUse> dynamic_filters_;
  exec::PlanProperties properties_;
};

/// Registers the codec of ParquetScanExec.
void RegisterParquetPlanCodecs(exec::PlanCodecRegistry* registry);

}  // namespace floe::connector
