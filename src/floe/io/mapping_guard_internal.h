#pragma once

// Guards memory mappings of files against truncation. A read of a mapped page that no longer
// lies within its file raises SIGBUS; for a guarded mapping, the handler maps zero pages over
// the rest of the mapping instead, and marks the mapping truncated, so the read goes on and
// the reader, which checks the mark before it hands on anything it decoded, reports an
// error. A SIGBUS at any other address goes to the handler that was installed before (or
// kills the process, as it would have).

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace floe::io::internal {

/// One guarded mapping, registered for its lifetime. Registering installs the handler once
/// per process.
class GuardedRange {
 public:
  /// Registers [base, base + size). Whether it succeeded is `registered()`: the table of
  /// guarded mappings has a fixed size (the handler cannot allocate), and a mapping that does
  /// not fit must not be used.
  GuardedRange(const void* base, size_t size);
  ~GuardedRange();
  GuardedRange(const GuardedRange&) = delete;
  GuardedRange& operator=(const GuardedRange&) = delete;

  bool registered() const { return slot_ >= 0; }
  /// Whether a read found part of the mapping past the end of its file.
  bool truncated() const { return truncated_.load(std::memory_order_acquire); }

 private:
  int slot_ = -1;
  std::atomic<bool> truncated_{false};
};

/// How many mappings can be guarded at once.
inline constexpr int kMaxGuardedRanges = 4096;

}  // namespace floe::io::internal
