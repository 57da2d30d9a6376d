#include "floe/io/mapping_guard_internal.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mutex>

namespace floe::io::internal {

namespace {

// A slot of the table the handler searches. The handler reads it without a lock: `state`
// is published (release) after the range and the mark are written, and cleared before the
// mapping is unmapped, when no read of it can be under way any more.
struct Slot {
  std::atomic<int> state{0};  // kFree, kClaimed or kLive
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<std::atomic<bool>*> truncated{nullptr};
};
constexpr int kFree = 0;
constexpr int kClaimed = 1;
constexpr int kLive = 2;

Slot g_slots[kMaxGuardedRanges];
struct sigaction g_previous = {};
uintptr_t g_page_size = 4096;
std::once_flag g_installed;

void OnSigbus(int signal, siginfo_t* info, void* context) {
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) != kLive) continue;
    const uintptr_t begin = slot.begin.load(std::memory_order_relaxed);
    const uintptr_t end = slot.end.load(std::memory_order_relaxed);
    if (addr < begin || addr >= end) continue;
    // The file lost the page (it was truncated): zero pages from here to the end of the
    // mapping let the read finish, and the mark makes its reader fail.
    const uintptr_t page = addr & ~(g_page_size - 1);
    void* zeros = ::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (zeros == MAP_FAILED) break;
    slot.truncated.load(std::memory_order_relaxed)->store(true, std::memory_order_release);
    return;
  }
  // Not a guarded mapping: what would have happened without this handler.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction != nullptr) {
      g_previous.sa_sigaction(signal, info, context);
      return;
    }
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(signal);
    return;
  }
  // The default action: the faulting read runs again and the signal kills the process.
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGBUS, &dfl, nullptr);
}

void Install() {
  g_page_size = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  struct sigaction action = {};
  action.sa_sigaction = OnSigbus;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &g_previous);
}

}  // namespace

GuardedRange::GuardedRange(const void* base, size_t size) {
  std::call_once(g_installed, Install);
  for (int i = 0; i < kMaxGuardedRanges; ++i) {
    Slot& slot = g_slots[i];
    int expected = kFree;
    if (!slot.state.compare_exchange_strong(expected, kClaimed, std::memory_order_acquire)) {
      continue;
    }
    const auto begin = reinterpret_cast<uintptr_t>(base);
    slot.begin.store(begin, std::memory_order_relaxed);
    slot.end.store(begin + size, std::memory_order_relaxed);
    slot.truncated.store(&truncated_, std::memory_order_relaxed);
    slot.state.store(kLive, std::memory_order_release);
    slot_ = i;
    return;
  }
}

GuardedRange::~GuardedRange() {
  if (slot_ < 0) return;
  Slot& slot = g_slots[slot_];
  slot.state.store(kFree, std::memory_order_release);
}

}  // namespace floe::io::internal
