#pragma once

// Helpers for the stateful-operator tests: in-memory sources, column expressions, task
// contexts with small budgets, and rows rendered as text for exact comparison.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/common/logging.h"
#include "floe/exec/execution_plan.h"
#include "floe/exec/union_exec.h"
#include "floe/exec/values_exec.h"
#include "floe/expr/expr.h"
#include "floe/expr/physical_expr.h"
#include "floe/testing/matchers.h"

namespace floe::exec::testing {

using OptI64 = std::optional<int64_t>;
using OptStr = std::optional<std::string>;

inline ArrayPtr I64s(const std::vector<OptI64>& values) {
  Int64Builder b(Int64());
  for (const auto& v : values) {
    if (v) {
      FLOE_CHECK(b.Append(*v).ok(), "append");
    } else {
      FLOE_CHECK(b.AppendNull().ok(), "append");
    }
  }
  return b.Finish().ValueOrDie();
}

inline ArrayPtr F64s(const std::vector<std::optional<double>>& values) {
  Float64Builder b(Float64());
  for (const auto& v : values) {
    if (v) {
      FLOE_CHECK(b.Append(*v).ok(), "append");
    } else {
      FLOE_CHECK(b.AppendNull().ok(), "append");
    }
  }
  return b.Finish().ValueOrDie();
}

inline ArrayPtr Strs(const std::vector<OptStr>& values) {
  BinaryBuilder b(String());
  for (const auto& v : values) {
    if (v) {
      FLOE_CHECK(b.Append(*v).ok(), "append");
    } else {
      FLOE_CHECK(b.AppendNull().ok(), "append");
    }
  }
  return b.Finish().ValueOrDie();
}

inline SchemaPtr SchemaOf(const std::vector<std::string>& names,
                          const std::vector<ArrayPtr>& columns) {
  std::vector<Field> fields;
  for (size_t i = 0; i < names.size(); ++i) fields.emplace_back(names[i], columns[i]->type(), true);
  return std::make_shared<Schema>(std::move(fields));
}

inline RecordBatchPtr BatchOf(const SchemaPtr& schema, std::vector<ArrayPtr> columns) {
  int64_t n = columns.empty() ? 0 : columns[0]->length();
  return RecordBatch::Make(schema, n, std::move(columns)).ValueOrDie();
}

/// One partition over `batches`.
inline PlanPtr Source(const SchemaPtr& schema, std::vector<RecordBatchPtr> batches) {
  return ValuesExec::Make(schema, std::move(batches)).ValueOrDie();
}

/// One partition per entry of `partitions`.
inline PlanPtr PartitionedSource(const SchemaPtr& schema,
                                 std::vector<std::vector<RecordBatchPtr>> partitions) {
  std::vector<PlanPtr> children;
  for (auto& p : partitions) children.push_back(Source(schema, std::move(p)));
  if (children.size() == 1) return children[0];
  return UnionExec::Make(std::move(children)).ValueOrDie();
}

inline expr::PhysicalExprPtr Col(const SchemaPtr& schema, int i) {
  const Field& f = schema->field(i);
  return expr::Compile(expr::Column(i, f.name(), f.type(), f.nullable()), schema).ValueOrDie();
}

inline PhysicalSortExpr Key(const SchemaPtr& schema, int i, bool descending = false,
                            bool nulls_first = false) {
  return PhysicalSortExpr{Col(schema, i), descending, nulls_first};
}

/// A fresh directory (for spill files), removed with what it holds.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = (std::filesystem::temp_directory_path() /
             ("floe-ops-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
                .string();
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  int64_t files() const {
    int64_t n = 0;
    for (auto& e : std::filesystem::directory_iterator(path_)) n += e.is_regular_file();
    return n;
  }

 private:
  std::string path_;
};

/// The bytes `node` spilled in every partition.
inline int64_t SpilledBytes(const TaskContextPtr& ctx, const PlanPtr& node) {
  int64_t total = 0;
  for (auto& [p, m] : ctx->metrics()->Of(node.get())) total += m->spilled_bytes.load();
  return total;
}

inline TaskContextPtr MakeContext(int64_t batch_size = 8192, int64_t memory_limit = 0,
                                  std::string spill_dir = "") {
  SessionConfig config;
  FLOE_CHECK(config.Set("batch_size", std::to_string(batch_size)).ok(), "batch_size");
  auto ctx = std::make_shared<TaskContext>(config, std::make_shared<MemoryManager>(memory_limit),
                                           nullptr, std::move(spill_dir), nullptr);
  ctx->set_collect_metrics(true);
  return ctx;
}

/// Every row of every batch as "v1|v2|..." (NULL for nulls), in order.
inline std::vector<std::string> Rows(const std::vector<RecordBatchPtr>& batches) {
  std::vector<std::string> out;
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      std::string row;
      for (int c = 0; c < b->num_columns(); ++c) {
        if (c > 0) row += "|";
        row += b->column(c)->IsNull(r) ? "NULL" : FormatValue(*b->column(c), r);
      }
      out.push_back(std::move(row));
    }
  }
  return out;
}

/// All partitions of `plan`, rendered by Rows.
inline Result<std::vector<std::string>> RunRows(const PlanPtr& plan, const TaskContextPtr& ctx) {
  FLOE_ASSIGN_OR_RAISE(auto batches, CollectAll(plan, ctx));
  return Rows(batches);
}

inline int64_t MaxBatchRows(const std::vector<RecordBatchPtr>& batches) {
  int64_t m = 0;
  for (const auto& b : batches) m = std::max(m, b->num_rows());
  return m;
}

}  // namespace floe::exec::testing
