#pragma once

// The physical plan: a tree of immutable ExecutionPlan nodes (DESIGN.md section 3). Each
// node declares its properties (schema, output partitioning, output ordering) and what
// it requires of each input (a distribution and an ordering); the enforcement pass
// (enforce.h) inserts exchanges and sorts wherever a requirement is not met, so a node
// may rely on getting exactly what it declared. Execute(partition, ctx) returns a pull
// stream for one output partition; all runtime state lives in that stream.

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"
#include "floe/common/thread_pool.h"
#include "floe/exec/memory_manager.h"
#include "floe/exec/session_config.h"
#include "floe/expr/physical_expr.h"

namespace floe::codec {
class PlanEncoder;
class PlanDecoder;
}  // namespace floe::codec

namespace floe::exec {

class ExecutionPlan;
using PlanPtr = std::shared_ptr<const ExecutionPlan>;

/// One key of an ordering.
struct PhysicalSortExpr {
  expr::PhysicalExprPtr expr;
  bool descending = false;
  bool nulls_first = false;
  std::string ToString() const;  // "a DESC NULLS FIRST"
  /// Same expression (by its bound source) and direction.
  bool Equals(const PhysicalSortExpr& other) const;
};
using Ordering = std::vector<PhysicalSortExpr>;
/// "a, b DESC"; "" for no ordering.
std::string OrderingToString(const Ordering& ordering);
/// True when `provided` starts with `required` (an empty requirement is always met).
bool OrderingSatisfies(const Ordering& provided, const Ordering& required);

/// How a node's output rows are split into partitions.
class Partitioning {
 public:
  enum class Kind { kSingle, kHash, kRoundRobin, kUnknown };

  static Partitioning Single() { return Partitioning(Kind::kSingle, {}, 1); }
  /// Row r is in partition HashRows(exprs)[r] % n (expr/hash.h).
  static Partitioning Hash(std::vector<expr::PhysicalExprPtr> exprs, int n) {
    return Partitioning(Kind::kHash, std::move(exprs), n);
  }
  static Partitioning RoundRobin(int n) { return Partitioning(Kind::kRoundRobin, {}, n); }
  static Partitioning Unknown(int n) { return Partitioning(Kind::kUnknown, {}, n); }

  Kind kind() const { return kind_; }
  int partition_count() const { return n_; }
  const std::vector<expr::PhysicalExprPtr>& exprs() const { return exprs_; }
  /// "Single", "Hash([a, b], 4)", "RoundRobin(4)", "Unknown(3)".
  std::string ToString() const;

 private:
  Partitioning(Kind kind, std::vector<expr::PhysicalExprPtr> exprs, int n)
      : kind_(kind), n_(n), exprs_(std::move(exprs)) {}
  Kind kind_;
  int n_;
  std::vector<expr::PhysicalExprPtr> exprs_;
};

/// What a node requires of an input's partitioning.
class Distribution {
 public:
  enum class Kind { kUnspecified, kSingle, kHash, kBroadcast };

  static Distribution Unspecified() { return Distribution(Kind::kUnspecified, {}); }
  /// All rows in one partition.
  static Distribution Single() { return Distribution(Kind::kSingle, {}); }
  /// Rows with equal `exprs` in the same partition.
  static Distribution Hash(std::vector<expr::PhysicalExprPtr> exprs) {
    return Distribution(Kind::kHash, std::move(exprs));
  }
  /// Every partition of the consumer sees all rows (a broadcast join's build side): met
  /// by a single partition that every consumer partition reads.
  static Distribution Broadcast() { return Distribution(Kind::kBroadcast, {}); }

  Kind kind() const { return kind_; }
  const std::vector<expr::PhysicalExprPtr>& exprs() const { return exprs_; }
  std::string ToString() const;

 private:
  Distribution(Kind kind, std::vector<expr::PhysicalExprPtr> exprs)
      : kind_(kind), exprs_(std::move(exprs)) {}
  Kind kind_;
  std::vector<expr::PhysicalExprPtr> exprs_;
};

/// True when `partitioning` meets `required` (Hash(a) meets Hash(a); Single meets all).
bool PartitioningSatisfies(const Partitioning& partitioning, const Distribution& required);

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

/// Per-operator, per-partition counters for EXPLAIN ANALYZE.
struct OperatorMetrics {
  std::atomic<int64_t> rows{0};
  std::atomic<int64_t> batches{0};
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> elapsed_nanos{0};  // time inside Next(), children included
  std::atomic<int64_t> spilled_bytes{0};
};

class QueryMetrics {
 public:
  /// The counters of `node`'s partition as run on `rank` (0 in one process; under MPI,
  /// rank 0 adds the executors' counters to its own), created on first use. Thread-safe.
  OperatorMetrics& For(const ExecutionPlan* node, int partition, int rank = 0);
  /// Every partition's counters of `node` ({} when it never ran), on any rank.
  std::vector<std::pair<int, const OperatorMetrics*>> Of(const ExecutionPlan* node) const;

  struct Part {
    int partition = 0;
    int rank = 0;
    const OperatorMetrics* metrics = nullptr;
  };
  /// Every (partition, rank) that ran `node`, by partition then rank.
  std::vector<Part> PartsOf(const ExecutionPlan* node) const;

  /// The query ran on `ranks` MPI ranks (1: one process).
  void set_ranks(int ranks) { ranks_ = ranks; }
  int ranks() const { return ranks_; }
  /// Exchange bytes `rank` sent to other ranks' readers and its readers received.
  void SetExchangeBytes(int rank, int64_t served, int64_t fetched);
  struct ExchangeBytes {
    int64_t served = 0;
    int64_t fetched = 0;
  };
  std::map<int, ExchangeBytes> exchange_bytes() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::tuple<const ExecutionPlan*, int, int>, std::unique_ptr<OperatorMetrics>> metrics_;
  std::map<int, ExchangeBytes> exchange_bytes_;
  std::atomic<int> ranks_{1};
};

class ExchangeService;  // exec/exchange.h: where stage outputs live

/// What a running task needs: settings, memory, threads, spill space, metrics, the
/// exchange, and state shared by the tasks of one query (a broadcast hash table).
class TaskContext {
 public:
  TaskContext(SessionConfig config, std::shared_ptr<MemoryManager> memory, ThreadPool* threads,
              std::string spill_directory, std::shared_ptr<ExchangeService> exchange);

  const SessionConfig& config() const { return config_; }
  MemoryPool* pool() const { return DefaultMemoryPool(); }
  MemoryManager* memory() const { return memory_.get(); }
  ThreadPool* threads() const { return threads_; }
  /// A directory for this query's spill files (removed when the query ends).
  const std::string& spill_directory() const { return spill_directory_; }
  const std::shared_ptr<ExchangeService>& exchange() const { return exchange_; }

  QueryMetrics* metrics() { return collect_metrics_ ? &metrics_ : nullptr; }
  void set_collect_metrics(bool on) { collect_metrics_ = on; }

  /// Asks the query's other processes to seal their data files of the query (see
  /// iceberg::InFlightFiles) and waits until they have; a commit calls it, then seals this
  /// process's own, before it begins. Set by whoever places the query's tasks on processes.
  Status SealRemoteWrites() const { return seal_remote_writes_ ? seal_remote_writes_() : Status(); }
  void set_seal_remote_writes(std::function<Status()> seal) {
    seal_remote_writes_ = std::move(seal);
  }

  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  /// kCancelled when the query was cancelled; call between batches.
  Status CheckCancelled() const;

  /// The value for `key`, made by `make` exactly once per query; concurrent callers wait
  /// for the first one (a broadcast join's hash table is built once, shared by every
  /// probe partition). An error is returned to every caller.
  template <typename T>
  Result<std::shared_ptr<const T>> GetOrCreateShared(
      const void* key, const std::function<Result<std::shared_ptr<const T>>()>& make) {
    std::shared_future<Result<std::shared_ptr<const void>>> future;
    std::shared_ptr<std::promise<Result<std::shared_ptr<const void>>>> promise;
    {
      std::lock_guard<std::mutex> lock(shared_mutex_);
      auto it = shared_.find(key);
      if (it == shared_.end()) {
        promise = std::make_shared<std::promise<Result<std::shared_ptr<const void>>>>();
        future = promise->get_future().share();
        shared_.emplace(key, future);
      } else {
        future = it->second;
      }
    }
    if (promise) {
      Result<std::shared_ptr<const T>> made = make();
      if (made.ok()) {
        promise->set_value(std::shared_ptr<const void>(*made));
      } else {
        promise->set_value(made.status());
      }
    }
    const Result<std::shared_ptr<const void>>& value = future.get();
    if (!value.ok()) return value.status();
    return std::static_pointer_cast<const T>(*value);
  }

 private:
  SessionConfig config_;
  std::shared_ptr<MemoryManager> memory_;
  ThreadPool* threads_;
  std::string spill_directory_;
  std::shared_ptr<ExchangeService> exchange_;
  QueryMetrics metrics_;
  std::function<Status()> seal_remote_writes_;
  bool collect_metrics_ = false;
  std::atomic<bool> cancelled_{false};
  std::mutex shared_mutex_;
  std::map<const void*, std::shared_future<Result<std::shared_ptr<const void>>>> shared_;
};

/// Opens partition `partition` of `plan`, counting its rows, batches, bytes and time in
/// ctx->metrics() when metrics are on, and checking for cancellation between batches.
/// Every operator opens its inputs through this.
Result<BatchStreamPtr> ExecutePlan(const PlanPtr& plan, int partition, const TaskContextPtr& ctx);

/// Runs every partition of `plan` (in this thread, one after another) and returns all
/// batches; for tests and small results.
Result<std::vector<RecordBatchPtr>> CollectAll(const PlanPtr& plan, const TaskContextPtr& ctx);

/// A stream over batches held in memory.
BatchStreamPtr MakeVectorStream(SchemaPtr schema, std::vector<RecordBatchPtr> batches);

}  // namespace floe::exec
