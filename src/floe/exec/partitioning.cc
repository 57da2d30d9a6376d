#include "floe/exec/partitioning.h"

#include <string>
#include <utility>

#include "fmt/format.h"

namespace floe::exec {

namespace {

bool SameSource(const expr::PhysicalExprPtr& a, const expr::PhysicalExprPtr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  const expr::ExprPtr& sa = a->source();
  const expr::ExprPtr& sb = b->source();
  if (sa && sb) return sa->Equals(*sb);
  return a->ToString() == b->ToString();
}

bool SameExprs(const std::vector<expr::PhysicalExprPtr>& a,
               const std::vector<expr::PhysicalExprPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameSource(a[i], b[i])) return false;
  }
  return true;
}

std::string ExprsToString(const std::vector<expr::PhysicalExprPtr>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i > 0) out += ", ";
    out += exprs[i]->ToString();
  }
  return out;
}

}  // namespace

std::string PhysicalSortExpr::ToString() const {
  std::string out = expr->ToString();
  if (descending) out += " DESC";
  // PostgreSQL's defaults are NULLS LAST for ASC and NULLS FIRST for DESC; only the
  // other choice is spelled out.
  if (nulls_first != descending) out += nulls_first ? " NULLS FIRST" : " NULLS LAST";
  return out;
}

bool PhysicalSortExpr::Equals(const PhysicalSortExpr& other) const {
  return descending == other.descending && nulls_first == other.nulls_first &&
         SameSource(expr, other.expr);
}

std::string OrderingToString(const Ordering& ordering) {
  std::string out;
  for (size_t i = 0; i < ordering.size(); ++i) {
    if (i > 0) out += ", ";
    out += ordering[i].ToString();
  }
  return out;
}

bool OrderingSatisfies(const Ordering& provided, const Ordering& required) {
  if (required.size() > provided.size()) return false;
  for (size_t i = 0; i < required.size(); ++i) {
    if (!provided[i].Equals(required[i])) return false;
  }
  return true;
}

std::string Partitioning::ToString() const {
  switch (kind_) {
    case Kind::kSingle:
      return "Single";
    case Kind::kHash:
      return fmt::format("Hash([{}], {})", ExprsToString(exprs_), n_);
    case Kind::kRoundRobin:
      return fmt::format("RoundRobin({})", n_);
    case Kind::kUnknown:
      return fmt::format("Unknown({})", n_);
  }
  return "?";
}

std::string Distribution::ToString() const {
  switch (kind_) {
    case Kind::kUnspecified:
      return "Unspecified";
    case Kind::kSingle:
      return "Single";
    case Kind::kHash:
      return fmt::format("Hash([{}])", ExprsToString(exprs_));
    case Kind::kBroadcast:
      return "Broadcast";
  }
  return "?";
}

bool PartitioningSatisfies(const Partitioning& partitioning, const Distribution& required) {
  switch (required.kind()) {
    case Distribution::Kind::kUnspecified:
      return true;
    case Distribution::Kind::kSingle:
    case Distribution::Kind::kBroadcast:
      return partitioning.partition_count() == 1;
    case Distribution::Kind::kHash:
      if (partitioning.partition_count() == 1) return true;
      return partitioning.kind() == Partitioning::Kind::kHash &&
             SameExprs(partitioning.exprs(), required.exprs());
  }
  return false;
}

bool PartitioningGroups(const Partitioning& partitioning, const Distribution& required) {
  if (PartitioningSatisfies(partitioning, required)) return true;
  if (required.kind() != Distribution::Kind::kHash ||
      partitioning.kind() != Partitioning::Kind::kHash || partitioning.exprs().empty()) {
    return false;
  }
  for (const expr::PhysicalExprPtr& e : partitioning.exprs()) {
    bool found = false;
    for (const expr::PhysicalExprPtr& r : required.exprs()) found = found || SameSource(e, r);
    if (!found) return false;
  }
  return true;
}

}  // namespace floe::exec
