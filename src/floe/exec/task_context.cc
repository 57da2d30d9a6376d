#include "floe/exec/task_context.h"

#include <utility>

#include "floe/exec/exchange_service.h"

namespace floe::exec {

TaskContext::TaskContext(SessionConfig config, std::shared_ptr<MemoryManager> memory,
                         ThreadPool* threads, std::string spill_directory,
                         std::shared_ptr<ExchangeService> exchange)
    : config_(std::move(config)),
      memory_(std::move(memory)),
      threads_(threads),
      spill_directory_(std::move(spill_directory)),
      exchange_(std::move(exchange)) {
  if (!memory_) memory_ = std::make_shared<MemoryManager>(0);
  const int64_t timeout_ms = config_.GetInt("statement_timeout");
  if (timeout_ms > 0) {
    deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  }
}

Status TaskContext::CheckCancelled() const {
  if (cancelled()) return Status::Cancelled("the query was cancelled");
  if (deadline_ != std::chrono::steady_clock::time_point::max() &&
      std::chrono::steady_clock::now() >= deadline_) {
    return Status::Cancelled("canceling statement due to statement timeout");
  }
  return Status::OK();
}

}  // namespace floe::exec
