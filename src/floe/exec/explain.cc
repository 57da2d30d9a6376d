#include "floe/exec/explain.h"

#include <fmt/format.h>

namespace floe::exec {

namespace {

std::string Counters(int64_t rows, int64_t batches, int64_t bytes, int64_t nanos, int64_t spilled) {
  std::string out = fmt::format("rows={} batches={} bytes={} time={:.3f}ms", rows, batches, bytes,
                                static_cast<double>(nanos) / 1e6);
  if (spilled > 0) out += fmt::format(" spilled={}", spilled);
  return out;
}

void Annotate(const ExecutionPlan& plan, const QueryMetrics& metrics, int depth, std::string* out) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  *out += pad + plan.ToString() + "  [partitions=" + std::to_string(plan.partition_count()) + "]  ";
  auto parts = metrics.Of(&plan);
  if (parts.empty()) {
    *out += "not executed\n";
  } else {
    int64_t rows = 0, batches = 0, bytes = 0, nanos = 0, spilled = 0;
    for (const auto& [p, m] : parts) {
      rows += m->rows.load();
      batches += m->batches.load();
      bytes += m->bytes.load();
      nanos += m->elapsed_nanos.load();
      spilled += m->spilled_bytes.load();
    }
    *out += Counters(rows, batches, bytes, nanos, spilled) + "\n";
    if (parts.size() > 1) {
      for (const auto& [p, m] : parts) {
        *out += pad + "    partition " + std::to_string(p) + ": " +
                Counters(m->rows.load(), m->batches.load(), m->bytes.load(),
                         m->elapsed_nanos.load(), m->spilled_bytes.load()) +
                "\n";
      }
    }
  }
  for (const PlanPtr& child : plan.children()) Annotate(*child, metrics, depth + 1, out);
}

}  // namespace

std::string AnnotatedPlanToString(const ExecutionPlan& plan, const QueryMetrics& metrics,
                                  int indent) {
  std::string out;
  Annotate(plan, metrics, indent / 2, &out);
  if (indent % 2 == 1) {
    // Odd indents are rare; keep them exact by prefixing every line.
    std::string shifted;
    size_t start = 0;
    while (start < out.size()) {
      size_t end = out.find('\n', start);
      shifted += " " + out.substr(start, end - start + 1);
      start = end + 1;
    }
    out = std::move(shifted);
  }
  return out;
}

std::string ExplainAnalyzeStages(const StagePlan& stages, const QueryMetrics& metrics) {
  std::string out;
  for (const Stage& stage : stages.stages()) {
    const int tasks = stage.partition_count();
    out += "Stage " + std::to_string(stage.id);
    if (&stage == &stages.final_stage()) out += " (final)";
    out += ", " + std::to_string(tasks) + (tasks == 1 ? " task" : " tasks") + "\n";
    out += AnnotatedPlanToString(*stage.plan, metrics, 2);
  }
  return out;
}

}  // namespace floe::exec
