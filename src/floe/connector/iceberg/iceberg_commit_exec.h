#pragma once

// IcebergCommitExec: commits a statement's data files as one snapshot, exactly once.

#include <string>
#include <string_view>
#include <vector>

#include "floe/connector/iceberg/iceberg_write_target.h"
#include "floe/exec/execution_plan.h"

namespace floe::connector {

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

}  // namespace floe::connector
