#include "floe/common/status.h"

namespace floe {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kSyntax: return "Syntax error";
    case StatusCode::kBind: return "Bind error";
    case StatusCode::kInvalidArgument: return "Invalid argument";
    case StatusCode::kNotFound: return "Not found";
    case StatusCode::kNotSupported: return "Not supported";
    case StatusCode::kConstraint: return "Constraint violation";
    case StatusCode::kIOError: return "IO error";
    case StatusCode::kCorrupt: return "Corrupt";
    case StatusCode::kCommitConflict: return "Commit conflict";
    case StatusCode::kInternal: return "Internal error";
    case StatusCode::kOutOfMemory: return "Out of memory";
    case StatusCode::kCancelled: return "Cancelled";
    case StatusCode::kCommitStateUnknown: return "Commit state unknown";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) {
    state_ = std::make_unique<State>(State{code, std::move(message)});
  }
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code()));
  out += ": ";
  out += state_->message;
  return out;
}

Status Status::WithPrefix(std::string_view prefix) const {
  if (ok()) return Status();
  return Status(code(), std::string(prefix) + state_->message);
}

std::ostream& operator<<(std::ostream& os, const Status& status) {
  return os << status.ToString();
}

}  // namespace floe
