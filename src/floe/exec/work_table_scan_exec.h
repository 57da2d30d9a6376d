#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// The rows the previous iteration of a recursive query produced (its work table): the
/// reference to a WITH RECURSIVE item inside that item's recursive term. One partition. It
/// runs only under the RecursiveQueryExec of the same work table id, which sets the table on
/// the TaskContext each iteration runs in (TaskContext::SetWorkTable); elsewhere Execute is
/// kInternal.
class WorkTableScanExec final : public ExecutionPlan {
 public:
  static constexpr std::string_view kName = "WorkTableScanExec";
  /// `name` is the WITH item's (EXPLAIN and errors); `schema` its columns.
  static Result<PlanPtr> Make(std::string name, int work_table_id, SchemaPtr schema);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<PlanPtr> Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children);
  const PlanProperties& properties() const override { return properties_; }
  std::vector<PlanPtr> children() const override { return {}; }
  Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const override;
  Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const override;
  /// "WorkTableScanExec: t (work table 1)".
  std::string ToString() const override;

  const std::string& table_name() const { return name_; }
  int work_table_id() const { return work_table_id_; }

 private:
  WorkTableScanExec(std::string name, int work_table_id, PlanProperties properties)
      : name_(std::move(name)), work_table_id_(work_table_id), properties_(std::move(properties)) {}

  std::string name_;
  int work_table_id_;
  PlanProperties properties_;
};

}  // namespace floe::exec
