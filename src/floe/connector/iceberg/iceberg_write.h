#pragma once

// Writing Iceberg tables from SQL (DESIGN.md section 5): INSERT and CREATE TABLE AS plan as
//
//   IcebergCommitExec                      single partition: commits one snapshot, once
//     CoalescePartitionsExec
//       IcebergWriteExec                   one writer per input partition; emits DataFiles
//         [SortExec]                       the table's sort order (clustered: the tuple first)
//           [RepartitionExec Hash(tuple)]  rows of one partition tuple meet in one writer
//             ProjectionExec               the table's columns, in its schema's order
//               ... the input query
//
// The write node declares the distribution and ordering it needs, so the enforcement pass
// adds the exchange and the sort and no later pass can drop them. The partition tuple is
// computed by IcebergTransformExpr over the projected table columns.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "floe/exec/execution_plan.h"
#include "floe/expr/physical_expr.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_operations.h"
#include "floe/iceberg/transform.h"
#include "floe/plan/logical_plan.h"

namespace floe::connector {

/// An Iceberg partition (or sort) transform of one column as an expression, so that a
/// partition tuple can be a hash distribution's or an ordering's key. Its source() is the
/// call `iceberg_transform('<transform>', column)`; ToString() is "bucket[16](id)".
class IcebergTransformExpr final : public expr::PhysicalExpr {
 public:
  static constexpr std::string_view kName = "IcebergTransform";

  /// `column` is a column of `input_schema`. kInvalidArgument when the transform cannot
  /// apply to the column's type.
  static Result<expr::PhysicalExprPtr> Make(iceberg::Transform transform, int column,
                                            const SchemaPtr& input_schema);
  /// Rebuilds the expression from its source() against `input_schema` (its codec, which
  /// RegisterIcebergPlanCodecs registers). kCorrupt when the source is not such a call, names
  /// an unknown transform or a column that is not there with its type.
  static Result<expr::PhysicalExprPtr> Decode(const expr::ExprPtr& source,
                                              const SchemaPtr& input_schema);

  std::string_view name() const override { return kName; }
  const TypePtr& type() const override { return type_; }
  bool nullable() const override { return nullable_; }
  Result<expr::ColumnarValue> Evaluate(const RecordBatch& batch,
                                       expr::EvalContext& ctx) const override;
  std::vector<expr::PhysicalExprPtr> children() const override { return {child_}; }
  std::string ToString() const override;
  const expr::ExprPtr& source() const override { return source_; }

  const iceberg::Transform& transform() const { return transform_; }

 private:
  IcebergTransformExpr() = default;

  iceberg::Transform transform_ = iceberg::Transform::Identity();
  expr::PhysicalExprPtr child_;
  expr::ExprPtr source_;
  TypePtr type_;
  bool nullable_ = true;
};

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
  };
  Mode mode = Mode::kAppend;
};
using IcebergWriteTargetPtr = std::shared_ptr<const IcebergWriteTarget>;

/// Loads the parts of a target from a table: the operation id is new, `fanout` comes from
/// write.fanout.enabled (kInvalidArgument for a value that is not true/false).
Result<IcebergWriteTargetPtr> MakeWriteTarget(
    std::string table_name, iceberg::Table table, iceberg::TableOperationsPtr ops,
    IcebergWriteTarget::Mode mode = IcebergWriteTarget::Mode::kAppend);

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
  bool committed() const;
  /// Deletes every recorded file unless the statement committed; the first error, after
  /// trying them all.
  Status DeleteUncommitted(const io::FileIO& io) const;

 private:
  mutable std::mutex mutex_;
  mutable std::vector<std::string> paths_;
  mutable bool committed_ = false;
};

/// Writes its input partition by partition into data files of the target table and emits,
/// per partition that wrote rows, one row (data_files binary, record_count bigint):
/// data_files holds the files' DataFile records in an Avro container
/// (iceberg::EncodeDataFiles). The input's columns are the table schema's top-level columns
/// in order, with the table's types. Requires Hash(partition tuple) for a partitioned table
/// and, for clustered writers, the tuple ordering (then the table's sort order); any error
/// deletes the files of the partition that failed.
class IcebergWriteExec final : public exec::ExecutionPlan {
 public:
  static constexpr std::string_view kName = "IcebergWriteExec";

  /// kInvalidArgument when the input's columns do not match the table schema's.
  static Result<exec::PlanPtr> Make(IcebergWriteTargetPtr target, exec::PlanPtr input);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  /// Deletes the files this query's tasks of this write recorded in its journal, unless the
  /// statement committed.
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
  /// The partition tuple as expressions over the input (empty when unpartitioned).
  const std::vector<expr::PhysicalExprPtr>& partition_exprs() const { return partition_exprs_; }

 private:
  IcebergWriteExec() = default;

  IcebergWriteTargetPtr target_;
  exec::PlanPtr input_;
  std::vector<expr::PhysicalExprPtr> partition_exprs_;
  exec::Ordering sort_order_;  // the table's sort order over the input (may be empty)
  exec::PlanProperties properties_;
};

/// Commits the data files its single input partition carries (IcebergWriteExec's rows) as
/// one snapshot of the target table (append, partition replacement or overwrite, by the
/// target's mode), with optimistic concurrency (refresh, validate, retry), exactly once, and
/// emits one row: the number of rows written (count bigint). An append or a partition
/// replacement without files commits nothing. A failed commit leaves no snapshot; the statement's
/// files are then deleted by whoever runs it (WriteJournal).
class IcebergCommitExec final : public exec::ExecutionPlan {
 public:
  static constexpr std::string_view kName = "IcebergCommitExec";

  static Result<exec::PlanPtr> Make(IcebergWriteTargetPtr target, exec::PlanPtr input);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<exec::PlanPtr> Decode(codec::PlanDecoder& in, std::vector<exec::PlanPtr> children);
  const exec::PlanProperties& properties() const override { return properties_; }
  std::vector<exec::PlanPtr> children() const override { return {input_}; }
  Result<exec::PlanPtr> WithNewChildren(std::vector<exec::PlanPtr> children) const override;
  Result<exec::BatchStreamPtr> Execute(int partition,
                                       const exec::TaskContextPtr& ctx) const override;
  std::vector<exec::Distribution> RequiredInputDistribution() const override;
  std::string ToString() const override;

  const IcebergWriteTargetPtr& target() const { return target_; }

 private:
  IcebergCommitExec() = default;

  IcebergWriteTargetPtr target_;
  exec::PlanPtr input_;
  exec::PlanProperties properties_;
};

/// The rows an INSERT writes, as a logical plan: `input`'s columns assigned to the table's
/// columns by `columns` (names; empty: by position, in table order), each converted to its
/// column's type (implicit casts, else the explicit cast: a value that does not convert fails
/// the statement naming it), columns not listed NULL, in the table schema's order. kBind
/// errors as PostgreSQL's: an unknown or repeated column, more expressions than target
/// columns (or fewer for a listed column set), a type with no conversion.
Result<plan::LogicalPlanPtr> ConformInsertInput(plan::LogicalPlanPtr input,
                                                const iceberg::Schema& table_schema,
                                                const std::vector<std::string>& columns,
                                                std::string_view table_name);

/// The type of the table column each input position of an INSERT goes into (by `columns`,
/// else in table order); nullptr for a listed name the table lacks (ConformInsertInput names
/// it). Untyped VALUES literals bind to these types.
std::vector<TypePtr> InsertTargetTypes(const iceberg::Schema& table_schema,
                                       const std::vector<std::string>& columns);

/// The physical plan of a write: IcebergCommitExec over IcebergWriteExec over `input` (whose
/// columns conform to the table, see ConformInsertInput). The enforcement pass adds the
/// exchanges and sorts the write requires.
Result<exec::PlanPtr> PlanIcebergWrite(IcebergWriteTargetPtr target, exec::PlanPtr input);

}  // namespace floe::connector
