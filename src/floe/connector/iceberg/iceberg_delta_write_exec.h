#pragma once

// IcebergDeltaWriteExec: the writer of a merge-on-read row-level change (DELETE, UPDATE,
// MERGE): position delete files for the rows it removes, data files for the rows it adds.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/connector/iceberg/iceberg_write_target.h"
#include "floe/exec/execution_plan.h"
#include "floe/expr/physical_expr.h"

namespace floe::connector {

/// What a row of a change does (the _op column).
enum class RowChangeOp : int32_t {
  kDelete = 1,  // the target row (_file, _pos) goes
  kUpdate = 2,  // the target row goes and the row's values come in its place
  kInsert = 3,  // the row's values come (no target row: _file and _pos are NULL)
};

/// The position deletes (files and deletion vectors) that apply to each data file of the
/// snapshot a change read, for the data files that have any: a format-version-3 change
/// merges them into the data file's new deletion vector.
using PreviousDeletes = std::map<std::string, std::vector<iceberg::DataFilePtr>>;

/// Writes the changes of its input partition by partition. Input columns: _file (string),
/// _pos (bigint), _spec_id (int), then _partition (the table's unified partition struct) when
/// `has_partition`, then _row_id (bigint) when the target keeps row lineage, then _op (int,
/// RowChangeOp), then, when `writes_rows`, the table schema's top-level columns with the
/// table's types. With row lineage the rows written keep the _row_id of the row they update
/// (an insert's is NULL) and a NULL _last_updated_sequence_number (the commit's).
///
/// Requires Hash(_file) and the ordering (_file, _pos): each task writes one position delete
/// file per data file it deletes rows of (Iceberg's write.delete.granularity = file), sorted by
/// position, in the data file's spec and partition and with its referenced_data_file set, and
/// writes the new rows through a fanout writer into the table's default spec. In format
/// version 3 the deletes are deletion vectors instead (spec, "Deletion Vectors"): one per
/// data file, holding its earlier deletes (`previous`) and the new ones, all of a task's in
/// one Puffin file; the vectors they replace are named for removal. A target row
/// named twice is kInvalidArgument "MERGE command cannot affect row a second time" when
/// `duplicate_is_error` (MERGE), else the later rows of it are dropped (UPDATE ... FROM, where
/// PostgreSQL uses one of the joined rows).
///
/// Emits, per spec it wrote files of, one row (data_files binary, record_count bigint,
/// spec_id int, removed boolean): the files as iceberg::EncodeDataFiles encodes them, and in
/// the task's first row the number of target rows changed plus rows inserted (0 in the
/// others); rows with `removed` name the deletion vectors to remove. Any error deletes the
/// files the task wrote.
class IcebergDeltaWriteExec final : public exec::ExecutionPlan {
 public:
  static constexpr std::string_view kName = "IcebergDeltaWriteExec";

  static Result<exec::PlanPtr> Make(IcebergWriteTargetPtr target, exec::PlanPtr input,
                                    bool has_partition, bool writes_rows, bool duplicate_is_error,
                                    std::shared_ptr<const PreviousDeletes> previous = nullptr);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  Status DeleteUncommitted(const exec::TaskContextPtr& ctx) const override;
  static Result<exec::PlanPtr> Decode(codec::PlanDecoder& in, std::vector<exec::PlanPtr> children);
  const exec::PlanProperties& properties() const override { return properties_; }
  std::vector<exec::PlanPtr> children() const override { return {input_}; }
  Result<exec::PlanPtr> WithNewChildren(std::vector<exec::PlanPtr> children) const override;
  Result<exec::BatchStreamPtr> Execute(int partition,
                                       const exec::TaskContextPtr& ctx) const override;
  std::vector<exec::Distribution> RequiredInputDistribution() const override;
  std::vector<exec::Ordering> RequiredInputOrdering() const override;
  std::string ToString() const override;

  const IcebergWriteTargetPtr& target() const { return target_; }
  bool has_partition() const { return has_partition_; }
  /// The index of the _op column (the first value column follows it); _row_id precedes it
  /// when the target keeps row lineage.
  int op_column() const { return 3 + (has_partition_ ? 1 : 0) + (target_->row_lineage ? 1 : 0); }

 private:
  IcebergDeltaWriteExec() = default;

  IcebergWriteTargetPtr target_;
  exec::PlanPtr input_;
  bool has_partition_ = false;
  bool writes_rows_ = false;
  bool duplicate_is_error_ = false;
  std::shared_ptr<const PreviousDeletes> previous_;
  expr::PhysicalExprPtr file_;
  expr::PhysicalExprPtr pos_;
  exec::PlanProperties properties_;
};

}  // namespace floe::connector
