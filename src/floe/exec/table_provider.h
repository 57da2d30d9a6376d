#pragma once

// A relation the engine can scan: the logical side (plan::TableSource: schema,
// statistics, filter pushdown) plus the physical side (a scan ExecutionPlan for a
// projection, pushed filters and a limit). read_parquet(...) and generate_series(...)
// are table providers; Iceberg tables will be too.

#include <cstdint>
#include <optional>
#include <vector>

#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"
#include "floe/exec/session_config.h"
#include "floe/plan/logical_plan.h"

namespace floe::exec {

/// What the scan must produce.
struct ScanRequest {
  std::vector<int> projection;          // source columns, in output order
  std::vector<expr::ExprPtr> filters;   // conjuncts over the source schema (the provider
                                        // said kInexact or kExact for each)
  std::optional<int64_t> limit;         // the scan may stop after this many rows
};

class TableProvider : public plan::TableSource {
 public:
  /// The scan plan; its schema is the projected columns. Partitions: at most
  /// config.target_partitions(), never zero.
  virtual Result<PlanPtr> Scan(const ScanRequest& request, const SessionConfig& config) const = 0;
};

}  // namespace floe::exec
