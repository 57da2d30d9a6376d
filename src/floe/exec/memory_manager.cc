#include "floe/exec/memory_manager.h"

#include "fmt/format.h"

namespace floe::exec {

namespace {

std::string FormatBytes(int64_t bytes) {
  constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} bytes", bytes);
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

}  // namespace

bool MemoryManager::TryReserve(int64_t bytes) {
  if (bytes <= 0) {
    if (bytes < 0) Release(-bytes);
    return true;
  }
  int64_t current = reserved_.load(std::memory_order_relaxed);
  while (true) {
    int64_t next = current + bytes;
    if (limit_ > 0 && next > limit_) return false;
    if (reserved_.compare_exchange_weak(current, next, std::memory_order_relaxed)) {
      int64_t peak = peak_.load(std::memory_order_relaxed);
      while (next > peak && !peak_.compare_exchange_weak(peak, next, std::memory_order_relaxed)) {
      }
      return true;
    }
  }
}

void MemoryManager::Release(int64_t bytes) {
  if (bytes > 0) reserved_.fetch_sub(bytes, std::memory_order_relaxed);
}

bool MemoryReservation::TryResize(int64_t bytes) {
  if (bytes < 0) bytes = 0;
  if (bytes == size_) return true;
  if (bytes < size_) {
    manager_->Release(size_ - bytes);
    size_ = bytes;
    return true;
  }
  if (!manager_->TryReserve(bytes - size_)) return false;
  size_ = bytes;
  return true;
}

Status MemoryReservation::Resize(int64_t bytes) {
  if (TryResize(bytes)) return Status::OK();
  return OutOfMemory(bytes, consumer_);
}

Status MemoryReservation::OutOfMemory(int64_t bytes, std::string_view what) const {
  const int64_t limit = manager_->limit();
  if (bytes > limit) {
    return Status::OutOfMemory(
        "memory_limit of {} exceeded: {} needs {}, more than the whole limit", FormatBytes(limit),
        what, FormatBytes(bytes));
  }
  // What the query's other consumers hold (this reservation's own share aside).
  const int64_t others = std::max<int64_t>(0, manager_->reserved() - size_);
  return Status::OutOfMemory(
      "memory_limit of {} exceeded: {} needs {} while the rest of the "
      "query holds {}",
      FormatBytes(limit), what, FormatBytes(bytes), FormatBytes(others));
}

void MemoryReservation::Free() {
  if (size_ > 0 && manager_ != nullptr) manager_->Release(size_);
  size_ = 0;
}

}  // namespace floe::exec
