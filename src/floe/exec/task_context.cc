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

std::shared_ptr<TaskContext> TaskContext::MakeChild(const std::shared_ptr<TaskContext>& parent) {
  auto child = std::make_shared<TaskContext>(parent->config_, parent->memory_, parent->threads_,
                                             parent->spill_directory_, parent->exchange_);
  child->seal_remote_writes_ = parent->seal_remote_writes_;
  child->parent_ = parent;
  return child;
}

void TaskContext::SetWorkTable(int id, std::shared_ptr<const WorkTable> table) {
  work_tables_[id] = std::move(table);
}

std::shared_ptr<const WorkTable> TaskContext::FindWorkTable(int id) const {
  for (const TaskContext* ctx = this; ctx != nullptr; ctx = ctx->parent_.get()) {
    auto it = ctx->work_tables_.find(id);
    if (it != ctx->work_tables_.end()) return it->second;
  }
  return nullptr;
}

void TaskContext::PublishDynamicFilter(int id, std::shared_ptr<const DynamicFilter> filter) {
  std::lock_guard<std::mutex> lock(dynamic_filters_mutex_);
  dynamic_filters_.emplace(id, std::move(filter));
}

std::shared_ptr<const DynamicFilter> TaskContext::FindDynamicFilter(int id) const {
  std::lock_guard<std::mutex> lock(dynamic_filters_mutex_);
  auto it = dynamic_filters_.find(id);
  return it == dynamic_filters_.end() ? nullptr : it->second;
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
