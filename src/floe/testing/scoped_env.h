#pragma once

// Environment variables set (or unset) for the lifetime of an object, and restored after.

#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace floe::testing {

class ScopedEnv {
 public:
  /// Sets `name` to `value`, or unsets it when `value` is nullopt.
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value.has_value()) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_.has_value()) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

/// Several variables at once (a null value unsets one), each restored afterwards.
class ScopedEnvironment {
 public:
  ScopedEnvironment(std::initializer_list<std::pair<const char*, const char*>> values) {
    for (const auto& [name, value] : values) {
      vars_.push_back(std::make_unique<ScopedEnv>(
          name, value ? std::optional<std::string>(value) : std::nullopt));
    }
  }

 private:
  std::vector<std::unique_ptr<ScopedEnv>> vars_;
};

}  // namespace floe::testing
