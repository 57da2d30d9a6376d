// KeyInterner: which key layouts it takes, the ids it gives, and when it gives up.

#include "floe/exec/aggregate/key_interner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "floe/batch/value_format.h"
#include "floe/exec/tests/operators_test_support.h"

namespace floe::exec {
namespace {

using testing::I64s;
using testing::OptStr;
using testing::Strs;

// The ids of an int16 column as text ("NULL" for a null).
std::vector<std::string> Ids(const Array& a) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < a.length(); ++i) out.push_back(FormatValue(a, i));
  return out;
}

TEST(KeyInternerTest, TakesStringKeysThatThenPackInto16Bytes) {
  MemoryPool* pool = DefaultMemoryPool();
  // TPC-H Q16's keys: 2 + 2 + 4 + 8 bytes once the strings are ids.
  auto q16 = KeyInterner::Make({String(), String(), Int32(), Int64()}, pool);
  ASSERT_NE(q16, nullptr);
  ASSERT_EQ(q16->mapped_types().size(), 4u);
  EXPECT_EQ(q16->mapped_types()[0]->ToString(), "int16");
  EXPECT_EQ(q16->mapped_types()[1]->ToString(), "int16");
  EXPECT_EQ(q16->mapped_types()[2]->ToString(), "int32");
  EXPECT_EQ(q16->mapped_types()[3]->ToString(), "int64");
  EXPECT_NE(KeyInterner::Make({String()}, pool), nullptr);
  EXPECT_NE(KeyInterner::Make({Binary(), Int64(), Int32()}, pool), nullptr);
  // Nothing to intern, or still too wide with ids.
  EXPECT_EQ(KeyInterner::Make({Int64(), Int32()}, pool), nullptr);
  EXPECT_EQ(KeyInterner::Make({String(), Int64(), Int64()}, pool), nullptr);
  EXPECT_EQ(KeyInterner::Make({String(), Decimal(38, 2)}, pool), nullptr);
  EXPECT_EQ(KeyInterner::Make(std::vector<TypePtr>(9, String()), pool), nullptr);
  EXPECT_EQ(KeyInterner::Make({String(), List(Int32())}, pool), nullptr);
}

TEST(KeyInternerTest, EqualStringsGetEqualIdsAcrossBatches) {
  auto interner = KeyInterner::Make({String(), Int64()}, DefaultMemoryPool());
  ASSERT_NE(interner, nullptr);
  ArrayPtr other = I64s({1, 2, 3, 4, 5, 6});
  std::vector<ArrayPtr> mapped;
  ASSERT_TRUE(*interner->Map({Strs({"a", "", std::nullopt, "a", "ab", "a"}), other}, &mapped));
  ASSERT_EQ(mapped.size(), 2u);
  EXPECT_EQ(mapped[1], other);  // not interned: passed as it is
  EXPECT_EQ(Ids(*mapped[0]), (std::vector<std::string>{"0", "1", "NULL", "0", "2", "0"}));
  // A later batch, sliced (an offset into its buffers): the same values, the same ids; a
  // value differing by a trailing zero byte is another value.
  ArrayPtr later = Strs({"zz", "ab", std::string("a\0", 2), "", "a", std::nullopt});
  ASSERT_TRUE(*interner->Map({later->Slice(1, 5), I64s({1, 2, 3, 4, 5})}, &mapped));
  EXPECT_EQ(Ids(*mapped[0]), (std::vector<std::string>{"2", "3", "1", "0", "NULL"}));
  // A column of NULLs only.
  ASSERT_TRUE(*interner->Map({Strs({std::nullopt, std::nullopt}), I64s({1, 2})}, &mapped));
  EXPECT_EQ(Ids(*mapped[0]), (std::vector<std::string>{"NULL", "NULL"}));
}

// Strings "prefix<i / every>" for i in [begin, end).
ArrayPtr Numbered(int64_t begin, int64_t end, int64_t every) {
  std::vector<OptStr> values;
  for (int64_t i = begin; i < end; ++i) values.push_back("value " + std::to_string(i / every));
  return Strs(values);
}

TEST(KeyInternerTest, GivesUpOnManyDistinctValues) {
  MemoryPool* pool = DefaultMemoryPool();
  std::vector<ArrayPtr> mapped;
  // A new value every row: kept through the first kProbationRows rows, then given up for
  // good.
  auto every_row = KeyInterner::Make({String()}, pool);
  ASSERT_TRUE(*every_row->Map({Numbered(0, 16000, 1)}, &mapped));
  EXPECT_FALSE(*every_row->Map({Numbered(16000, 17000, 1)}, &mapped));
  EXPECT_FALSE(*every_row->Map({Numbered(0, 10, 1)}, &mapped));
  // A new value every 20 rows passes the probation; the ids run out at kMaxIds values.
  auto slow = KeyInterner::Make({String()}, pool);
  int64_t rows = 0;
  const int64_t batch = 65536;
  bool fits = true;
  while (fits && rows < 40000 * 20) {
    fits = *slow->Map({Numbered(rows, rows + batch, 20)}, &mapped);
    if (fits) rows += batch;
  }
  EXPECT_FALSE(fits);
  EXPECT_EQ(rows / batch, KeyInterner::kMaxIds * 20 / batch);
  EXPECT_GT(slow->memory_size(), KeyInterner::kMaxIds * 8);
}

}  // namespace
}  // namespace floe::exec
