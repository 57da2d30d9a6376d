#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace floe::internal {
inline std::string CheckDetail() { return {}; }
template <typename T>
std::string CheckDetail(const T& value) {
  return ::fmt::format("{}", value);
}
/// Prints "file:line: check failed: cond (detail)" to stderr and aborts.
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition,
                              std::string_view detail);
}  // namespace floe::internal

/// Aborts with the condition and a detail message when `cond` is false, in every
/// build. The detail is anything fmt can format (the values that broke the invariant).
#define FLOE_CHECK(cond, ...)                                                       \
  do {                                                                              \
    if (!(cond)) [[unlikely]] {                                                     \
      ::floe::internal::CheckFailed(__FILE__, __LINE__, #cond,                      \
                                    ::floe::internal::CheckDetail(__VA_ARGS__));    \
    }                                                                               \
  } while (false)

/// Aborts when `a op b` does not hold, printing both values.
#define FLOE_CHECK_OP(a, op, b)                                                     \
  do {                                                                              \
    const auto& _floe_a = (a);                                                      \
    const auto& _floe_b = (b);                                                      \
    if (!(_floe_a op _floe_b)) [[unlikely]] {                                       \
      ::floe::internal::CheckFailed(__FILE__, __LINE__, #a " " #op " " #b,          \
                                    ::fmt::format("{} vs {}", _floe_a, _floe_b));   \
    }                                                                               \
  } while (false)

#ifdef NDEBUG
#define FLOE_DCHECK(cond, ...) \
  do {                         \
  } while (false && (cond))
#define FLOE_DCHECK_OP(a, op, b) \
  do {                           \
  } while (false && ((a)op(b)))
#else
#define FLOE_DCHECK(cond, ...) FLOE_CHECK(cond, __VA_ARGS__)
#define FLOE_DCHECK_OP(a, op, b) FLOE_CHECK_OP(a, op, b)
#endif
