#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace floe {

/// What went wrong. User errors (the input or the request is wrong) come first,
/// system errors (the environment or floe itself failed) after kIOError.
enum class StatusCode : unsigned char {
  kOk = 0,
  // User errors.
  kSyntax,
  kBind,
  kInvalidArgument,
  kNotFound,
  kNotSupported,
  kConstraint,
  // System errors.
  kIOError,
  kCorrupt,
  kCommitConflict,
  kInternal,
  kOutOfMemory,
  kCancelled,
  /// A commit whose outcome could not be learned (the connection to the catalog's database
  /// was lost while it committed and could not be re-established): the new metadata may be
  /// current. Nothing the commit references may be deleted; the caller reloads the table to
  /// see whether it landed. Never retried as a conflict.
  kCommitStateUnknown,
};

/// The last code; codes arriving from another process are checked against it.
inline constexpr StatusCode kLastStatusCode = StatusCode::kCommitStateUnknown;

/// The stable, human-readable name of a code ("Corrupt", "IOError", ...).
std::string_view StatusCodeName(StatusCode code);

/// True for codes that describe a mistake in the user's input or request.
inline bool IsUserError(StatusCode code) {
  return code != StatusCode::kOk && code < StatusCode::kIOError;
}

/// The outcome of an operation: OK, or a code and a message that says what failed
/// and where. A Status is a plain value: it can be copied across threads and ranks.
/// An OK status holds no allocation.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);

  Status(const Status& other)
      : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }

#define FLOE_STATUS_FACTORY(Name, Code)                                        \
  static Status Name(std::string message) {                                    \
    return Status(StatusCode::Code, std::move(message));                       \
  }                                                                            \
  template <typename... Args>                                                  \
    requires(sizeof...(Args) > 0)                                              \
  static Status Name(fmt::format_string<Args...> format, Args&&... args) {     \
    return Status(StatusCode::Code, fmt::format(format, std::forward<Args>(args)...)); \
  }
  FLOE_STATUS_FACTORY(Syntax, kSyntax)
  FLOE_STATUS_FACTORY(Bind, kBind)
  FLOE_STATUS_FACTORY(Invalid, kInvalidArgument)
  FLOE_STATUS_FACTORY(NotFound, kNotFound)
  FLOE_STATUS_FACTORY(NotSupported, kNotSupported)
  FLOE_STATUS_FACTORY(Constraint, kConstraint)
  FLOE_STATUS_FACTORY(IOError, kIOError)
  FLOE_STATUS_FACTORY(Corrupt, kCorrupt)
  FLOE_STATUS_FACTORY(CommitConflict, kCommitConflict)
  FLOE_STATUS_FACTORY(Internal, kInternal)
  FLOE_STATUS_FACTORY(OutOfMemory, kOutOfMemory)
  FLOE_STATUS_FACTORY(Cancelled, kCancelled)
  FLOE_STATUS_FACTORY(CommitStateUnknown, kCommitStateUnknown)
#undef FLOE_STATUS_FACTORY

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  /// The message without the code name; empty for OK.
  const std::string& message() const;
  /// "Corrupt: <message>", or "OK".
  std::string ToString() const;

  /// A copy whose message is `prefix` followed by this message; OK stays OK.
  Status WithPrefix(std::string_view prefix) const;

  bool operator==(const Status& other) const {
    return code() == other.code() && message() == other.message();
  }

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::unique_ptr<State> state_;
};

std::ostream& operator<<(std::ostream& os, const Status& status);

}  // namespace floe

template <>
struct fmt::formatter<floe::Status> : fmt::formatter<std::string_view> {
  auto format(const floe::Status& s, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(s.ToString(), ctx);
  }
};
