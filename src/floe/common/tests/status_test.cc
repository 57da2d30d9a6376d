#include "floe/common/result.h"

#include <gtest/gtest.h>

#include "floe/testing/matchers.h"

namespace floe {
namespace {

using testing::IsError;
using testing::IsErrorWith;
using testing::IsOk;

Result<int> ParsePositive(int v) {
  if (v <= 0) return Status::Invalid("value {} is not positive", v);
  return v;
}

Result<int> Doubled(int v) {
  FLOE_ASSIGN_OR_RAISE(int x, ParsePositive(v));
  return 2 * x;
}

Status Check(int v) {
  FLOE_RETURN_NOT_OK(ParsePositive(v));
  return Status::OK();
}

TEST(StatusTest, OkHasNoMessage) {
  Status st;
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.ToString(), "OK");
  EXPECT_EQ(st.message(), "");
}

TEST(StatusTest, ErrorsCarryCodeAndMessage) {
  Status st = Status::Corrupt("file {} byte {}", "a.parquet", 42);
  EXPECT_EQ(st.code(), StatusCode::kCorrupt);
  EXPECT_EQ(st.ToString(), "Corrupt: file a.parquet byte 42");
  Status copy = st;
  EXPECT_EQ(copy, st);
  EXPECT_EQ(st.WithPrefix("reading: ").message(), "reading: file a.parquet byte 42");
  EXPECT_FALSE(IsUserError(StatusCode::kCorrupt));
  EXPECT_TRUE(IsUserError(StatusCode::kConstraint));
  EXPECT_FALSE(IsUserError(StatusCode::kOk));
  Status unknown = Status::CommitStateUnknown("commit to table {}", "db.t");
  EXPECT_EQ(unknown.ToString(), "Commit state unknown: commit to table db.t");
  EXPECT_FALSE(IsUserError(unknown.code()));
  EXPECT_EQ(kLastStatusCode, StatusCode::kCommitStateUnknown);
}

TEST(ResultTest, PropagatesThroughMacros) {
  EXPECT_THAT(Doubled(4), IsOk());
  EXPECT_EQ(*Doubled(4), 8);
  EXPECT_THAT(Doubled(-1), IsErrorWith(StatusCode::kInvalidArgument, "-1 is not positive"));
  EXPECT_THAT(Check(3), IsOk());
  EXPECT_THAT(Check(0), IsError(StatusCode::kInvalidArgument));
}

TEST(ResultTest, HoldsMoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  ASSERT_OK_AND_ASSIGN(auto p, std::move(r));
  EXPECT_EQ(*p, 7);
}

}  // namespace
}  // namespace floe
