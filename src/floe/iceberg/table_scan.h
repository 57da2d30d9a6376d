#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/common/thread_pool.h"
#include "floe/iceberg/scan_task.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::io {
class FileIO;
}  // namespace floe::io

namespace floe::iceberg {

/// Default for the `read.split.target-size` table property (spec, "Table Properties").
inline constexpr int64_t kDefaultSplitTargetSize = 128LL << 20;

/// Which snapshot a scan reads. At most one of the selectors may be set; none means the
/// current snapshot (an empty table when there is none).
struct SnapshotSelector {
  std::optional<int64_t> snapshot_id;
  /// The snapshot that was current at this time (milliseconds since the epoch).
  std::optional<int64_t> as_of_timestamp_ms;
  /// A branch or tag name.
  std::optional<std::string> ref;
};

/// What a scan reads.
struct ScanOptions {
  SnapshotSelector snapshot;
  /// Output columns by field id, in the schema's column order whatever order they are
  /// given in (as Schema::Select keeps them); empty means every column of the scan's
  /// schema. Top-level or nested ids (a nested id keeps its ancestors).
  std::vector<int32_t> projected_field_ids;
  /// Output columns by (dotted) name, resolved against the scan's schema; used when
  /// projected_field_ids is empty.
  std::vector<std::string> projected_names;
  /// The row filter (unbound, by column name); nullptr for none.
  ExpressionPtr filter;
  bool case_sensitive = true;
  /// Overrides `read.split.target-size`; 0 uses the table property.
  int64_t split_target_size = 0;
  /// Read every column's metrics from the manifests so that Statistics() can report
  /// null counts and bounds (otherwise only the filter's columns' metrics are read, the
  /// cheaper plan).
  bool collect_column_stats = false;
  /// Field ids whose metrics (value, null and NaN counts, bounds) the planned data files
  /// keep besides the filter's columns (e.g. a sort key whose bounds order the files).
  std::vector<int32_t> metrics_field_ids;
  /// When set, only these data files (by path as the manifests name them) are planned: the
  /// files a copy-on-write change rewrites.
  std::shared_ptr<const std::set<std::string>> only_files;
  /// Threads that read manifests in parallel (planning is deterministic whatever the
  /// number); nullptr reads them on the calling thread.
  ThreadPool* pool = nullptr;
};

/// Per-column statistics aggregated from manifest metrics over the planned data files.
struct ColumnStatistics {
  /// Sum of null counts; nullopt when a file lacks the metric.
  std::optional<int64_t> null_count;
  /// Smallest lower bound and largest upper bound over the files; nullopt when any file
  /// lacks one. Truncated string and binary bounds are still bounds (the spec truncates an
  /// upper bound upwards), just not tight ones.
  std::optional<Scalar> lower_bound;
  std::optional<Scalar> upper_bound;
};

/// What a planned scan is known to produce, from manifests alone.
struct ScanStatistics {
  /// Rows in the planned data files (before deletes and the residual).
  int64_t row_count = 0;
  /// True when row_count is the scan's exact output count: no delete file applies and no
  /// residual remains on any task.
  bool row_count_exact = true;
  int64_t file_count = 0;
  int64_t total_bytes = 0;
  int64_t delete_file_count = 0;
  /// By field id, for the top-level primitive columns of the scan's schema; empty unless
  /// the scan was made with collect_column_stats.
  std::map<int32_t, ColumnStatistics> columns;
};

/// A scan of one table snapshot, planned once on the coordinator (spec, "Scan Planning"):
/// manifest list -> manifests pruned by partition summaries -> entries pruned by
/// partition values (the filter's inclusive projection through each spec) and column
/// metrics -> file tasks split at row-group offsets, with their delete files and residual.
class TableScan {
 public:
  /// Resolves the snapshot, the schema (a pinned snapshot uses its own schema, an unpinned
  /// scan the current one), the projection and binds the filter. Errors: kNotFound for an
  /// unknown snapshot/ref or a time before the first snapshot, kBind for unknown columns,
  /// kInvalidArgument for conflicting selectors.
  static Result<std::unique_ptr<TableScan>> Make(TableMetadataPtr metadata,
                                                 std::shared_ptr<const io::FileIO> io,
                                                 ScanOptions options);

  const TableMetadata& metadata() const { return *metadata_; }
  /// The snapshot read, or nullptr for a table without snapshots.
  const Snapshot* snapshot() const { return snapshot_; }
  /// The schema rows are read with.
  const SchemaPtr& schema() const { return schema_; }
  /// The output columns.
  const SchemaPtr& projected_schema() const { return projected_; }
  /// The filter bound to schema(), or nullptr.
  const ExpressionPtr& bound_filter() const { return bound_filter_; }

  /// Plans the file tasks, sorted deterministically (by data file path, then start).
  /// Reads the manifest list and the manifests (in parallel when options.pool is set).
  /// A manifest or list that cannot be read fails the plan with an error naming it.
  Result<std::vector<FileScanTask>> PlanFiles() const;

  /// PlanFiles grouped into at most max_groups groups (GroupTasks).
  /// With `parts`, tasks are cut into parts first (SplitTasksIntoParts).
  Result<std::vector<ScanTaskGroup>> PlanGroups(int max_groups, bool parts = false) const;

  /// Statistics over planned tasks.
  ScanStatistics Statistics(const std::vector<FileScanTask>& tasks) const;

 private:
  TableScan() = default;

  TableMetadataPtr metadata_;
  std::shared_ptr<const io::FileIO> io_;
  ScanOptions options_;
  const Snapshot* snapshot_ = nullptr;
  SchemaPtr schema_;
  SchemaPtr projected_;
  ExpressionPtr bound_filter_;
  int64_t split_target_size_ = kDefaultSplitTargetSize;
};

/// Splits a data file into byte ranges of about `target_size`, cutting only at its
/// split offsets (row-group starts). Offsets that are not ascending, not positive after
/// the first, or past the file size are ignored (the file is one range). Each range is
/// [offsets[i], offsets[j]) covering consecutive row groups whose total reaches the target.
std::vector<std::pair<int64_t, int64_t>> SplitRanges(const DataFile& file, int64_t target_size);

/// Groups tasks into at most `max_groups` groups balanced by bytes: tasks sorted by size
/// (largest first, ties by path and start) go one by one into the lightest group (ties
/// to the lowest index). Deterministic; within a group tasks keep that placement order.
/// Never returns zero groups: no tasks give one empty group; fewer tasks than max_groups
/// give one group per task. max_groups < 1 is treated as 1.
std::vector<ScanTaskGroup> GroupTasks(std::vector<FileScanTask> tasks, int max_groups);

/// Fewest rows a task part (FileScanTask::part) is cut to.
inline constexpr int64_t kMinRowsPerTaskPart = 32768;

/// Cuts tasks into parts (FileScanTask::part_begin...) when there are fewer of them than
/// `max_groups` groups (a table of one large file is otherwise read by one partition):
/// the groups' even shares of the estimated rows are cut from the tasks in order, no part
/// under half of kMinRowsPerTaskPart rows and no more shares than kMinRowsPerTaskPart-row
/// ones. Only for scans whose columns read are all flat (the reader cannot cut nested
/// ones).
std::vector<FileScanTask> SplitTasksIntoParts(std::vector<FileScanTask> tasks, int max_groups);

}  // namespace floe::iceberg
