#pragma once

// The physical properties of a node's output and of what it requires of its inputs: the
// ordering within each partition, how rows are split into partitions (Partitioning), and
// the distribution an input must have (Distribution).

#include <string>
#include <utility>
#include <vector>

#include "floe/expr/physical_expr.h"

namespace floe::exec {

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
/// Whether the rows that agree on a required hash distribution's expressions are in one
/// partition: PartitioningSatisfies, or a hash over a non-empty subset of the expressions
/// (rows equal on all of them are equal on the subset). Enough for an operator with one
/// input (an aggregation, a window, a write); inputs that must be co-partitioned with each
/// other (a partitioned join) need PartitioningSatisfies.
bool PartitioningGroups(const Partitioning& partitioning, const Distribution& required);

}  // namespace floe::exec
