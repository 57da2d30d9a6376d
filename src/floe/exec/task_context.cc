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
}

Status TaskContext::CheckCancelled() const {
  if (cancelled()) return Status::Cancelled("the query was cancelled");
  return Status::OK();
}

}  // namespace floe::exec
