#include "floe/cli/statement_runner.h"

#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <ostream>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "floe/catalog/catalog_config.h"
#include "floe/cli/row_output.h"
#include "floe/sql/parser.h"

namespace floe::cli {

namespace {

/// Shows "rows: N  elapsed: T s" on stderr while a statement runs longer than a second
/// (only when stderr is a terminal), and clears it at the end; cancels the statement
/// when `interrupt` becomes true.
class ProgressLine {
 public:
  ProgressLine(session::QueryResult* result, bool show, const std::atomic<bool>* interrupt)
      : result_(result), show_(show && isatty(STDERR_FILENO)), interrupt_(interrupt) {
    if (!show_ && interrupt_ == nullptr) return;
    thread_ = std::thread([this] { Run(); });
  }
  ~ProgressLine() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Run() {
    auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    bool shown = false;
    bool cancelled = false;
    while (!done_) {
      if (interrupt_ != nullptr && !cancelled && interrupt_->load()) {
        result_->Cancel();
        cancelled = true;
      }
      auto elapsed = std::chrono::steady_clock::now() - start;
      if (show_ && elapsed >= std::chrono::seconds(1)) {
        std::fprintf(stderr, "\rrows: %lld  elapsed: %.1f s\033[K",
                     static_cast<long long>(result_->rows_produced()),
                     std::chrono::duration<double>(elapsed).count());
        std::fflush(stderr);
        shown = true;
      }
      cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return done_; });
    }
    if (shown) {
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
    }
  }

  session::QueryResult* result_;
  bool show_;
  const std::atomic<bool>* interrupt_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
};

}  // namespace

void StatementSplitter::Append(std::string_view text) { buffer_.append(text); }

std::vector<std::string> StatementSplitter::TakeComplete() {
  std::vector<std::string> out;
  size_t consumed = 0;
  for (const sql::StatementSpan& span : sql::SplitStatements(buffer_)) {
    if (!span.terminated) break;
    out.emplace_back(std::string_view(buffer_).substr(span.begin, span.end - span.begin));
    consumed = span.next;
  }
  buffer_.erase(0, consumed);
  return out;
}

bool StatementSplitter::HasPending() const {
  const std::vector<sql::StatementSpan> spans = sql::SplitStatements(buffer_);
  return !spans.empty() && !spans.back().terminated;
}

std::string StatementSplitter::TakeRest() {
  std::string rest;
  const std::vector<sql::StatementSpan> spans = sql::SplitStatements(buffer_);
  if (!spans.empty() && !spans.back().terminated) {
    rest = buffer_.substr(spans.back().begin, spans.back().end - spans.back().begin);
  }
  buffer_.clear();
  return rest;
}

std::vector<std::string> SplitScript(std::string_view script) {
  StatementSplitter splitter;
  splitter.Append(script);
  std::vector<std::string> statements = splitter.TakeComplete();
  std::string rest = splitter.TakeRest();
  if (!rest.empty()) statements.push_back(std::move(rest));
  return statements;
}

std::string FormatTiming(std::chrono::steady_clock::time_point start) {
  const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
  return fmt::format("Time: {:.3f} ms\n", ms.count());
}

Status RunAndPrint(session::Session& session, const std::string& sql, const OutputOptions& options,
                   std::ostream* out) {
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<session::QueryResult> result, session.Execute(sql));
  ProgressLine progress(result.get(), options.progress, options.interrupt);
  const SchemaPtr& schema = result->schema();
  if (schema == nullptr || schema->num_fields() == 0) {
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, result->Next());
      if (!batch) break;
    }
    if (options.format == "table" && options.command_tags) {
      *out << result->command_tag() << '\n';
      out->flush();
    }
    return Status::OK();
  }
  FLOE_ASSIGN_OR_RAISE(
      auto printer,
      RowPrinter::Make(options.format, schema, out,
                       static_cast<int>(session.config().GetInt("extra_float_digits"))));
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, result->Next());
    if (!batch) break;
    FLOE_RETURN_NOT_OK(printer->Write(*batch));
  }
  FLOE_RETURN_NOT_OK(printer->Finish());
  if (options.format == "table") {
    *out << '\n';  // psql separates results by an empty line
    out->flush();
  }
  return Status::OK();
}

namespace {
std::shared_ptr<scheduler::QueryCluster>& ProcessCluster() {
  static std::shared_ptr<scheduler::QueryCluster> cluster;
  return cluster;
}
}  // namespace

void SetQueryCluster(std::shared_ptr<scheduler::QueryCluster> cluster) {
  ProcessCluster() = std::move(cluster);
}

const std::shared_ptr<scheduler::QueryCluster>& QueryClusterOfProcess() { return ProcessCluster(); }

Result<session::SessionOptions> SessionOptionsFor(const std::string& catalog,
                                                  const std::string& warehouse, int threads) {
  session::SessionOptions options;
  options.cluster = QueryClusterOfProcess();
  options.warehouse = warehouse.empty() ? "warehouse" : warehouse;
  options.threads = threads;
  FLOE_ASSIGN_OR_RAISE(std::optional<catalog::CatalogPtr> resolved,
                       catalog::ResolveCatalog(catalog, warehouse));
  if (resolved.has_value()) options.catalog = std::move(*resolved);
  return options;
}

}  // namespace floe::cli
