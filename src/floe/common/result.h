#pragma once

#include <utility>

#include <tl/expected.hpp>

#include "floe/common/logging.h"
#include "floe/common/status.h"

namespace floe {

/// A value or the Status that says why there is none. Built on tl::expected (the
/// interface of std::expected), with an implicit constructor from a non-OK Status so
/// that `return Status::Corrupt(...)` works in a function returning Result<T>.
template <typename T>
class [[nodiscard]] Result : public tl::expected<T, Status> {
  using Base = tl::expected<T, Status>;

 public:
  using Base::Base;
  using value_type = T;

  Result(Status status)  // NOLINT(google-explicit-constructor)
      : Base(tl::unexpected<Status>(std::move(status))) {
    FLOE_CHECK(!this->error().ok(), "Result constructed from an OK Status");
  }
  Result(const Base& base) : Base(base) {}     // NOLINT(google-explicit-constructor)
  Result(Base&& base) : Base(std::move(base)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return this->has_value(); }

  /// The error, or OK when there is a value.
  Status status() const { return this->has_value() ? Status::OK() : this->error(); }

  /// The value; aborts with the error when there is none. For tests and for places
  /// where an error is a bug.
  T& ValueOrDie() & {
    FLOE_CHECK(this->has_value(), this->error().ToString());
    return **this;
  }
  const T& ValueOrDie() const& {
    FLOE_CHECK(this->has_value(), this->error().ToString());
    return **this;
  }
  T ValueOrDie() && {
    FLOE_CHECK(this->has_value(), this->error().ToString());
    return std::move(**this);
  }
};

namespace internal {
inline Status GenericToStatus(const Status& s) { return s; }
inline Status GenericToStatus(Status&& s) { return std::move(s); }
template <typename T>
Status GenericToStatus(const Result<T>& r) {
  return r.status();
}
}  // namespace internal

}  // namespace floe

#define FLOE_CONCAT_IMPL(a, b) a##b
#define FLOE_CONCAT(a, b) FLOE_CONCAT_IMPL(a, b)

/// Returns the Status of `expr` (a Status or a Result) from the enclosing function
/// when it is not OK.
#define FLOE_RETURN_NOT_OK(expr)                                              \
  do {                                                                        \
    ::floe::Status _floe_st = ::floe::internal::GenericToStatus((expr));      \
    if (!_floe_st.ok()) return _floe_st;                                      \
  } while (false)

#define FLOE_ASSIGN_OR_RAISE_IMPL(tmp, lhs, rexpr) \
  auto&& tmp = (rexpr);                            \
  if (!tmp.has_value()) return std::move(tmp).error(); \
  lhs = std::move(tmp).value()

/// Evaluates `rexpr` (a Result); on error returns its Status from the enclosing
/// function, otherwise moves the value into `lhs` (which may be a declaration).
#define FLOE_ASSIGN_OR_RAISE(lhs, rexpr) \
  FLOE_ASSIGN_OR_RAISE_IMPL(FLOE_CONCAT(_floe_result_, __COUNTER__), lhs, rexpr)
