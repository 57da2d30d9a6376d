#pragma once

// IcebergWriteExec: writes data files of the target table, one writer per input partition.

#include <string>
#include <string_view>
#include <vector>

#include "floe/connector/iceberg/iceberg_write_target.h"
#include "floe/exec/execution_plan.h"
#include "floe/expr/physical_expr.h"

namespace floe::connector {

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

}  // namespace floe::connector
