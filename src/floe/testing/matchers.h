#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/common/result.h"

namespace floe::testing {

inline const Status& StatusOf(const Status& s) { return s; }
template <typename T>
Status StatusOf(const Result<T>& r) {
  return r.status();
}

/// Matches an OK Status or a Result holding a value.
MATCHER(IsOk, "is OK") {
  Status st = ::floe::testing::StatusOf(arg);
  if (!st.ok()) *result_listener << "which is " << st.ToString();
  return st.ok();
}

/// Matches a Status or Result that failed with `code`.
MATCHER_P(IsError, code, "fails with " + std::string(::floe::StatusCodeName(code))) {
  Status st = ::floe::testing::StatusOf(arg);
  *result_listener << "which is " << st.ToString();
  return st.code() == code;
}

/// Matches a failure with `code` whose message contains `substring`.
MATCHER_P2(IsErrorWith, code, substring,
           "fails with " + std::string(::floe::StatusCodeName(code)) + " mentioning '" +
               std::string(substring) + "'") {
  Status st = ::floe::testing::StatusOf(arg);
  *result_listener << "which is " << st.ToString();
  return st.code() == code && st.message().find(substring) != std::string::npos;
}

/// Matches a Result holding a value that `matcher` matches; a failure shows its status.
MATCHER_P(IsOkAndHolds, matcher,
          "holds a value that " +
              ::testing::DescribeMatcher<decltype(std::declval<arg_type>().value())>(matcher)) {
  if (!arg.ok()) {
    *result_listener << "which failed: " << arg.status().ToString();
    return false;
  }
  return ::testing::ExplainMatchResult(matcher, *arg, result_listener);
}

}  // namespace floe::testing

#define ASSERT_OK(expr) ASSERT_THAT((expr), ::floe::testing::IsOk())
#define EXPECT_OK(expr) EXPECT_THAT((expr), ::floe::testing::IsOk())

#define FLOE_ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                   \
  ASSERT_TRUE(tmp.ok()) << tmp.status().ToString();     \
  lhs = std::move(tmp).value()

/// Asserts that `rexpr` (a Result) holds a value and moves it into `lhs`.
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  FLOE_ASSERT_OK_AND_ASSIGN_IMPL(FLOE_CONCAT(_floe_test_result_, __COUNTER__), lhs, rexpr)
