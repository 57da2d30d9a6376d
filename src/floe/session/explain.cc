#include "floe/session/explain.h"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace floe::session {

namespace {

std::string Counters(int64_t rows, int64_t batches, int64_t bytes, int64_t nanos, int64_t spilled,
                     int64_t rejected) {
  std::string out = fmt::format("rows={} batches={} bytes={} time={:.3f}ms", rows, batches, bytes,
                                static_cast<double>(nanos) / 1e6);
  if (spilled > 0) out += fmt::format(" spilled={}", spilled);
  if (rejected > 0) out += fmt::format(" rejected={}", rejected);
  return out;
}

void Annotate(const exec::ExecutionPlan& plan, const exec::QueryMetrics& metrics, int depth,
              std::string* out) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  *out += pad + plan.ToString() + "  [partitions=" + std::to_string(plan.partition_count()) + "]  ";
  const std::vector<exec::QueryMetrics::Part> parts = metrics.PartsOf(&plan);
  const bool distributed = metrics.ranks() > 1;
  if (parts.empty()) {
    *out += "not executed\n";
  } else {
    int64_t rows = 0, batches = 0, bytes = 0, nanos = 0, spilled = 0, rejected = 0;
    for (const exec::QueryMetrics::Part& part : parts) {
      rows += part.metrics->rows.load();
      batches += part.metrics->batches.load();
      bytes += part.metrics->bytes.load();
      nanos += part.metrics->elapsed_nanos.load();
      spilled += part.metrics->spilled_bytes.load();
      rejected += part.metrics->rejected_rows.load();
    }
    *out += Counters(rows, batches, bytes, nanos, spilled, rejected) + "\n";
    if (parts.size() > 1 || distributed) {
      for (const exec::QueryMetrics::Part& part : parts) {
        const exec::OperatorMetrics& m = *part.metrics;
        *out += pad + "    partition " + std::to_string(part.partition);
        if (distributed) *out += " on rank " + std::to_string(part.rank);
        *out += ": " +
                Counters(m.rows.load(), m.batches.load(), m.bytes.load(), m.elapsed_nanos.load(),
                         m.spilled_bytes.load(), m.rejected_rows.load()) +
                "\n";
      }
    }
  }
  for (const exec::PlanPtr& child : plan.children()) Annotate(*child, metrics, depth + 1, out);
}

// Under MPI, what each rank did: its tasks, the rows they produced (written to the
// exchange, or returned by the final stage), their time, and the exchange bytes it sent
// to and received from the other ranks.
std::string RankSummary(const scheduler::StagePlan& stages, const exec::QueryMetrics& metrics) {
  struct Totals {
    int64_t tasks = 0, rows = 0, nanos = 0;
  };
  std::map<int, Totals> ranks;
  for (int r = 0; r < metrics.ranks(); ++r) ranks[r];
  for (const scheduler::Stage& stage : stages.stages()) {
    // A non-final stage's root writes to the exchange and returns nothing: its rows are
    // what its input produced.
    const bool final_stage = &stage == &stages.final_stage();
    const exec::ExecutionPlan* produced = stage.plan.get();
    if (!final_stage && !stage.plan->children().empty()) produced = stage.plan->children()[0].get();
    for (const exec::QueryMetrics::Part& part : metrics.PartsOf(stage.plan.get())) {
      Totals& totals = ranks[part.rank];
      ++totals.tasks;
      totals.nanos += part.metrics->elapsed_nanos.load();
    }
    for (const exec::QueryMetrics::Part& part : metrics.PartsOf(produced)) {
      ranks[part.rank].rows += part.metrics->rows.load();
    }
  }
  const std::map<int, exec::QueryMetrics::ExchangeBytes> exchanged = metrics.exchange_bytes();
  const std::map<int, io::S3RequestCounts> s3 = metrics.s3_requests();
  std::string out = "Ranks:\n";
  for (const auto& [rank, totals] : ranks) {
    auto bytes = exchanged.find(rank);
    const exec::QueryMetrics::ExchangeBytes none;
    const exec::QueryMetrics::ExchangeBytes& b = bytes == exchanged.end() ? none : bytes->second;
    out += fmt::format("  rank {}: tasks={} rows={} time={:.3f}ms exchange sent={} received={}",
                       rank, totals.tasks, totals.rows, static_cast<double>(totals.nanos) / 1e6,
                       b.served, b.fetched);
    auto requests = s3.find(rank);
    if (requests != s3.end() && requests->second.requests() > 0) {
      out += " s3 " + requests->second.ToString();
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string AnnotatedPlanToString(const exec::ExecutionPlan& plan,
                                  const exec::QueryMetrics& metrics, int indent) {
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

std::string ExplainAnalyzeStages(const scheduler::StagePlan& stages,
                                 const exec::QueryMetrics& metrics) {
  std::string out;
  for (const scheduler::Stage& stage : stages.stages()) {
    const int tasks = stage.partition_count();
    out += "Stage " + std::to_string(stage.id);
    if (&stage == &stages.final_stage()) out += " (final)";
    out += ", " + std::to_string(tasks) + (tasks == 1 ? " task" : " tasks") + "\n";
    out += AnnotatedPlanToString(*stage.plan, metrics, 2);
  }
  if (metrics.ranks() > 1) out += RankSummary(stages, metrics);
  return out;
}

}  // namespace floe::session
