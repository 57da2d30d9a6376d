#pragma once

// The physical plan: a tree of immutable ExecutionPlan nodes (DESIGN.md section 3). Each
// node declares its properties (schema, output partitioning, output ordering) and what
// it requires of each input (a distribution and an ordering); the enforcement pass
// (enforce.h) inserts exchanges and sorts wherever a requirement is not met, so a node
// may rely on getting exactly what it declared. Execute(partition, ctx) returns a pull
// stream for one output partition; all runtime state lives in that stream. The physical
// properties are in partitioning.h, what a task runs with in task_context.h, and the
// counters of EXPLAIN ANALYZE in metrics.h.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/exec/metrics.h"
#include "floe/exec/partitioning.h"
#include "floe/exec/task_context.h"

namespace floe::codec {
class PlanEncoder;
class PlanDecoder;
}  // namespace floe::codec

namespace floe::exec {

class ExecutionPlan;
using PlanPtr = std::shared_ptr<const ExecutionPlan>;

struct PlanProperties {
  SchemaPtr schema;
  Partitioning partitioning = Partitioning::Unknown(1);
  Ordering ordering;  // within each partition
};

class TaskContext;
using TaskContextPtr = std::shared_ptr<TaskContext>;

/// A pull stream of batches: Next() returns nullptr at the end.
using BatchStream = RecordBatchReader;
using BatchStreamPtr = std::unique_ptr<BatchStream>;

/// An immutable physical operator. See the file comment.
class ExecutionPlan : public std::enable_shared_from_this<ExecutionPlan> {
 public:
  virtual ~ExecutionPlan() = default;

  /// The stable type name ("FilterExec"), used by EXPLAIN and the plan codec.
  virtual std::string_view name() const = 0;
  virtual const PlanProperties& properties() const = 0;
  virtual std::vector<PlanPtr> children() const = 0;
  /// A node of the same type and parameters over new children (which may differ in
  /// partitioning); validates them like Make.
  virtual Result<PlanPtr> WithNewChildren(std::vector<PlanPtr> children) const = 0;
  /// The stream of output partition `partition` (0 <= partition < partition_count()).
  /// Operators open their inputs through ExecutePlan (below), never child->Execute.
  virtual Result<BatchStreamPtr> Execute(int partition, const TaskContextPtr& ctx) const = 0;

  /// Per child: the distribution and ordering it must have. Defaults: unspecified, none.
  virtual std::vector<Distribution> RequiredInputDistribution() const;
  virtual std::vector<Ordering> RequiredInputOrdering() const;
  /// Per child: whether this node keeps the child's row order within a partition (lets
  /// the enforcer push sorts below it). Default: false.
  virtual std::vector<bool> MaintainsInputOrder() const;

  /// The rows Execute(partition, ctx) will produce, when known before it runs (a
  /// ShuffleReaderExec over a complete in-process exchange); nullopt (the default)
  /// otherwise. A hint for sizing hash tables and builders up front.
  virtual std::optional<int64_t> KnownRows(int partition, const TaskContextPtr& ctx) const {
    return std::nullopt;
  }

  /// A scan that also skips the rows whose output column `column` fails the dynamic
  /// filter `id` once a join publishes it on the TaskContext (dynamic_filter.h); null
  /// (the default) for a node that cannot.
  virtual PlanPtr WithDynamicFilter(int id, int column) const { return nullptr; }

  /// One line for EXPLAIN, without the children: "FilterExec: l_quantity < 24".
  virtual std::string ToString() const = 0;

  /// Writes exactly the parts this node's Make takes, for another process to rebuild it
  /// (plan_codec.h; the children travel separately). The default is kNotSupported: a
  /// node type without a codec cannot leave its process.
  virtual Status Encode(codec::PlanEncoder& out) const;

  /// Removes what this node's tasks wrote in this process for a statement that then failed
  /// before it committed (a table writer's data files). The default has nothing to remove.
  virtual Status DeleteUncommitted(const TaskContextPtr& ctx) const;

  const SchemaPtr& schema() const { return properties().schema; }
  int partition_count() const { return properties().partitioning.partition_count(); }
};

/// The indented tree for EXPLAIN, each line with the node's partitioning:
/// "ProjectionExec: a, b  [partitions=4 Hash([a], 4)]".
std::string PlanToString(const ExecutionPlan& plan);

/// DeleteUncommitted of every node of `plan` (a process that ran tasks of a statement that
/// then failed: nothing of it was committed). The first error, after trying every node.
Status DeleteUncommittedWrites(const PlanPtr& plan, const TaskContextPtr& ctx);

/// Opens partition `partition` of `plan`, counting its rows, batches, bytes and time in
/// ctx->metrics() when metrics are on, and checking for cancellation between batches.
/// Every operator opens its inputs through this.
Result<BatchStreamPtr> ExecutePlan(const PlanPtr& plan, int partition, const TaskContextPtr& ctx);

/// `plan` reading every one of `uses` (WithDynamicFilter in turn); null when it cannot.
PlanPtr WithDynamicFilters(PlanPtr plan, const std::vector<DynamicFilterUse>& uses);

/// Runs every partition of `plan` (in this thread, one after another) and returns all
/// batches; for tests and small results.
Result<std::vector<RecordBatchPtr>> CollectAll(const PlanPtr& plan, const TaskContextPtr& ctx);

/// A stream over batches held in memory.
BatchStreamPtr MakeVectorStream(SchemaPtr schema, std::vector<RecordBatchPtr> batches);

}  // namespace floe::exec
