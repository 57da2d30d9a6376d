#pragma once

// The table an INSERT or CREATE TABLE AS writes, fixed on the coordinator, and the journal of
// the files a statement wrote and has not committed.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "floe/exec/execution_plan.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/partitioned_writer.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_operations.h"
#include "floe/io/file_io.h"

namespace floe::connector {

/// The table a statement writes, as planned: everything the write and the commit need,
/// fixed once on the coordinator.
struct IcebergWriteTarget {
  /// For messages and EXPLAIN ("db.events").
  std::string table_name;
  /// The table as loaded when the statement was planned: the writers use its current
  /// schema, default partition spec, default sort order and properties.
  iceberg::Table table;
  /// Where the commit goes (refreshes and validates against the current metadata).
  iceberg::TableOperationsPtr ops;
  /// One id per statement: in every data file's name, so files of one statement are
  /// recognisable and never collide with another's.
  std::string operation_id;
  /// write.fanout.enabled (default true): fanout writers (any input order) or clustered
  /// writers (input sorted by the partition tuple).
  bool fanout = true;

  /// What the commit does with the written files.
  enum class Mode {
    /// Adds them (INSERT, CREATE TABLE AS).
    kAppend,
    /// Replaces every partition they hold rows of (dynamic partition overwrite; an
    /// unpartitioned table is replaced whole); no rows change nothing.
    kReplacePartitions,
    /// Replaces every row of the table; no rows leave it empty.
    kOverwrite,
    /// A merge-on-read row-level change (DELETE, UPDATE, MERGE): adds delete files and data
    /// files in one snapshot (iceberg::RowDelta).
    kRowDelta,
    /// A copy-on-write row-level change: replaces `rewritten_files` by the files written.
    kRewriteFiles,
  };
  Mode mode = Mode::kAppend;

  /// kRowDelta and kRewriteFiles: the snapshot the statement read (concurrent commits are
  /// validated from it; none for an empty table), the isolation level
  /// (write.<op>.isolation-level: serializable, else snapshot) and, for kRewriteFiles, the
  /// data files replaced.
  std::optional<int64_t> base_snapshot_id;
  bool serializable = true;
  std::vector<std::string> rewritten_files;
  /// Format version 3 row-level changes: the rows written carry _row_id and
  /// _last_updated_sequence_number after the table's columns (kept rows keep both, updated
  /// rows keep their _row_id with a NULL sequence number, which inherits the commit's), and
  /// the data files store them.
  bool row_lineage = false;
  /// Under serializable isolation, data files appended concurrently that may hold rows
  /// matching this filter (bound to the table's current schema) fail the commit; null: any
  /// data file does. A row-level change whose WHERE reads the target alone passes the
  /// Iceberg form of its conjuncts (a superset of the rows it matched).
  iceberg::ExpressionPtr conflict_filter;
};
using IcebergWriteTargetPtr = std::shared_ptr<const IcebergWriteTarget>;

/// Loads the parts of a target from a table: the operation id is new, `fanout` comes from
/// write.fanout.enabled (kInvalidArgument for a value that is not true/false).
Result<IcebergWriteTargetPtr> MakeWriteTarget(
    std::string table_name, iceberg::Table table, iceberg::TableOperationsPtr ops,
    IcebergWriteTarget::Mode mode = IcebergWriteTarget::Mode::kAppend);

/// The partitioned-writer options of task `partition` of a write of `target` in `ctx`'s query:
/// the table's schema, spec and write properties, file names with the statement's operation
/// id and the task's partition, files registered in InFlightFiles under the query (sealed
/// by the commit), and a fanout memory budget of half the process's memory_limit shared by
/// its task slots (at least 16 MiB; the rest is for the input's exchanges and spillable
/// operators).
Result<iceberg::PartitionedWriterOptions> TaskWriterOptions(const IcebergWriteTarget& target,
                                                            int partition,
                                                            const exec::TaskContextPtr& ctx);

/// What a write node's DeleteUncommitted does: deletes the files this query's tasks
/// recorded in the journal of `target`, unless the statement committed.
Status DeleteUncommittedWrites(const IcebergWriteTarget& target, const exec::TaskContextPtr& ctx);

/// The data files of one write statement that are not (yet) part of a committed snapshot.
/// Writer tasks record what they finished; the commit marks them committed; when the
/// statement fails, DeleteUncommitted removes every recorded file. Thread-safe.
class WriteJournal {
 public:
  /// The journal of `target` in this query (one per query and target).
  static Result<std::shared_ptr<const WriteJournal>> For(const exec::TaskContextPtr& ctx,
                                                         const IcebergWriteTarget* target);

  void Record(const std::vector<std::string>& paths) const;
  void MarkCommitted() const;
  /// The commit's outcome could not be learned (kCommitStateUnknown): the files may be
  /// referenced by the table, so DeleteUncommitted keeps them.
  void MarkCommitStateUnknown() const;
  bool committed() const;
  /// Deletes every recorded file unless the statement committed (or may have); the first
  /// error, after trying them all.
  Status DeleteUncommitted(const io::FileIO& io) const;

 private:
  mutable std::mutex mutex_;
  mutable std::vector<std::string> paths_;
  mutable bool committed_ = false;
  mutable bool keep_ = false;
};

}  // namespace floe::connector
