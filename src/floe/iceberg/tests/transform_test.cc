#include "floe/iceberg/transform.h"

#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/format/parquet/reader.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

constexpr int32_t kDays20171116 = 17486;
constexpr int64_t kMicros20171116T223108 =
    int64_t{kDays20171116} * 86400 * 1000000 + int64_t{81068} * 1000000;

int32_t Hash(const Scalar& s) {
  auto r = BucketHash(s);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() ? *r : 0;
}

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

TEST(BucketHashTest, SpecAppendixBTestValues) {
  EXPECT_EQ(Hash(Scalar::I32(34)), 2017239379);
  EXPECT_EQ(Hash(Scalar::I64(34)), 2017239379);
  EXPECT_EQ(Hash(Scalar::Make(Decimal(9, 2), Int128{1420})), -500754589);
  EXPECT_EQ(Hash(Scalar::Make(Date(), kDays20171116)), -653330422);
  EXPECT_EQ(Hash(Scalar::Make(Time(), int64_t{81068} * 1000000)), -662762989);
  EXPECT_EQ(Hash(Scalar::Make(Timestamp(), kMicros20171116T223108)), -2047944441);
  EXPECT_EQ(Hash(Scalar::Make(Timestamp(), kMicros20171116T223108 + 1)), -1207196810);
  EXPECT_EQ(Hash(Scalar::Make(TimestampTz(), kMicros20171116T223108)), -2047944441);
  EXPECT_EQ(Hash(Scalar::Make(TimestampTz(), kMicros20171116T223108 + 1)), -1207196810);
  EXPECT_EQ(Hash(Scalar::Make(TimestampNs(), kMicros20171116T223108 * 1000)), -2047944441);
  EXPECT_EQ(Hash(Scalar::Make(TimestampNs(), kMicros20171116T223108 * 1000 + 1001)), -1207196810);
  EXPECT_EQ(Hash(Scalar::Make(TimestampTzNs(), kMicros20171116T223108 * 1000 + 1001)), -1207196810);
  EXPECT_EQ(Hash(Scalar::Str("iceberg")), 1210000089);
  EXPECT_EQ(Hash(Scalar::Make(Uuid(), Bytes({0xF7, 0x9C, 0x3E, 0x09, 0x67, 0x7C, 0x4B, 0xBD, 0xA4,
                                             0x79, 0x3F, 0x34, 0x9C, 0xB7, 0x85, 0xE7}))),
            1488055340);
  EXPECT_EQ(Hash(Scalar::Make(Fixed(4), Bytes({0, 1, 2, 3}))), -188683207);
  EXPECT_EQ(Hash(Scalar::Make(Binary(), Bytes({0, 1, 2, 3}))), -188683207);
  EXPECT_THAT(BucketHash(Scalar::Null(Int32())), testing::IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(BucketHash(Scalar::F64(1.0)), testing::IsError(StatusCode::kInvalidArgument));
}

TEST(TransformTest, ParseAndToString) {
  for (std::string_view text :
       {"identity", "bucket[16]", "truncate[4]", "year", "month", "day", "hour", "void"}) {
    ASSERT_OK_AND_ASSIGN(Transform t, Transform::Parse(text));
    EXPECT_EQ(t.ToString(), text);
    EXPECT_NE(t.kind(), TransformKind::kUnknown);
  }
  ASSERT_OK_AND_ASSIGN(Transform b, Transform::Parse("bucket[16]"));
  EXPECT_EQ(b, Transform::Bucket(16));
  EXPECT_EQ(b.param(), 16);
  ASSERT_OK_AND_ASSIGN(Transform z, Transform::Parse("zorder"));
  EXPECT_EQ(z.kind(), TransformKind::kUnknown);
  EXPECT_EQ(z.ToString(), "zorder");
  EXPECT_FALSE(z.CanTransform(*Int32()));
  for (std::string_view bad : {"bucket[0]", "bucket[x]", "truncate[-1]", "bucket[]", "bucket[16x]",
                               "truncate[99999999999]"}) {
    EXPECT_THAT(Transform::Parse(bad), testing::IsError(StatusCode::kInvalidArgument)) << bad;
  }
  EXPECT_EQ(Transform::Bucket(16).ToExpressionString("id"), "bucket(16, id)");
  EXPECT_EQ(Transform::Truncate(4).ToExpressionString("name"), "truncate(4, name)");
  EXPECT_EQ(Transform::Day().ToExpressionString("ts"), "day(ts)");
  EXPECT_EQ(Transform::Identity().ToExpressionString("id"), "id");
  EXPECT_EQ(Transform::Void().ToExpressionString("x"), "void(x)");
}

TEST(TransformTest, CanTransformAndResultType) {
  EXPECT_TRUE(Transform::Bucket(4).CanTransform(*Uuid()));
  EXPECT_FALSE(Transform::Bucket(4).CanTransform(*Float64()));
  EXPECT_FALSE(Transform::Bucket(4).CanTransform(*Boolean()));
  EXPECT_TRUE(Transform::Truncate(4).CanTransform(*Decimal(9, 2)));
  EXPECT_FALSE(Transform::Truncate(4).CanTransform(*Date()));
  EXPECT_TRUE(Transform::Day().CanTransform(*Date()));
  EXPECT_FALSE(Transform::Hour().CanTransform(*Date()));
  EXPECT_TRUE(Transform::Hour().CanTransform(*TimestampTzNs()));
  EXPECT_FALSE(Transform::Year().CanTransform(*String()));
  EXPECT_FALSE(Transform::Identity().CanTransform(*Struct({Field("a", Int32())})));
  EXPECT_TRUE(Transform::Void().CanTransform(*String()));

  ASSERT_OK_AND_ASSIGN(TypePtr t, Transform::Day().ResultType(Timestamp()));
  EXPECT_EQ(t->id(), TypeId::kDate);
  ASSERT_OK_AND_ASSIGN(t, Transform::Month().ResultType(Date()));
  EXPECT_EQ(t->id(), TypeId::kInt32);
  ASSERT_OK_AND_ASSIGN(t, Transform::Bucket(3).ResultType(String()));
  EXPECT_EQ(t->id(), TypeId::kInt32);
  ASSERT_OK_AND_ASSIGN(t, Transform::Truncate(3).ResultType(Decimal(9, 2)));
  EXPECT_TRUE(t->Equals(*Decimal(9, 2)));
  ASSERT_OK_AND_ASSIGN(t, Transform::Void().ResultType(Uuid()));
  EXPECT_EQ(t->id(), TypeId::kUuid);
  EXPECT_THAT(Transform::Hour().ResultType(Date()),
              testing::IsErrorWith(StatusCode::kInvalidArgument, "hour"));
}

Scalar Apply(const Transform& t, const Scalar& v) {
  auto r = t.Apply(v);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() ? *r : Scalar::Null(v.type());
}

TEST(TransformTest, TruncateSpecExamples) {
  auto t10 = Transform::Truncate(10);
  EXPECT_EQ(Apply(t10, Scalar::I32(1)).get<int32_t>(), 0);
  EXPECT_EQ(Apply(t10, Scalar::I32(-1)).get<int32_t>(), -10);
  EXPECT_EQ(Apply(t10, Scalar::I32(10)).get<int32_t>(), 10);
  EXPECT_EQ(Apply(t10, Scalar::I64(1)).get<int64_t>(), 0);
  EXPECT_EQ(Apply(t10, Scalar::I64(-1)).get<int64_t>(), -10);
  // The subtraction wraps at the minimum, as the spec's reference arithmetic does.
  EXPECT_EQ(Apply(t10, Scalar::I32(INT32_MIN)).get<int32_t>(), 2147483646);
  auto d = Apply(Transform::Truncate(50), Scalar::Make(Decimal(9, 2), Int128{1065}));
  EXPECT_EQ(d.get<Int128>(), Int128{1050});
  d = Apply(Transform::Truncate(50), Scalar::Make(Decimal(9, 2), Int128{-1065}));
  EXPECT_EQ(d.get<Int128>(), Int128{-1100});
  EXPECT_EQ(Apply(Transform::Truncate(3), Scalar::Str("iceberg")).get<std::string>(), "ice");
  // Code points, not bytes: "éé" is 4 bytes.
  EXPECT_EQ(Apply(Transform::Truncate(1), Scalar::Str("\xc3\xa9\xc3\xa9")).get<std::string>(),
            "\xc3\xa9");
  EXPECT_EQ(Apply(Transform::Truncate(5), Scalar::Str("ab")).get<std::string>(), "ab");
  EXPECT_EQ(Apply(Transform::Truncate(3), Scalar::Make(Binary(), Bytes({1, 2, 3, 4, 5})))
                .get<std::string>(),
            Bytes({1, 2, 3}));
}

TEST(TransformTest, Temporal) {
  Scalar date = Scalar::Make(Date(), kDays20171116);
  Scalar ts = Scalar::Make(Timestamp(), kMicros20171116T223108);
  Scalar ts_ns = Scalar::Make(TimestampTzNs(), kMicros20171116T223108 * 1000 + 999);
  EXPECT_EQ(Apply(Transform::Year(), date).get<int32_t>(), 47);
  EXPECT_EQ(Apply(Transform::Month(), date).get<int32_t>(), 47 * 12 + 10);
  EXPECT_EQ(Apply(Transform::Day(), date).get<int32_t>(), kDays20171116);
  EXPECT_EQ(Apply(Transform::Year(), ts).get<int32_t>(), 47);
  EXPECT_EQ(Apply(Transform::Month(), ts).get<int32_t>(), 574);
  EXPECT_EQ(Apply(Transform::Day(), ts).get<int32_t>(), kDays20171116);
  EXPECT_EQ(Apply(Transform::Day(), ts).type()->id(), TypeId::kDate);
  EXPECT_EQ(Apply(Transform::Hour(), ts).get<int32_t>(), kDays20171116 * 24 + 22);
  EXPECT_EQ(Apply(Transform::Hour(), ts_ns).get<int32_t>(), kDays20171116 * 24 + 22);
  // Floor semantics before the epoch.
  Scalar before = Scalar::Make(Timestamp(), int64_t{-1});
  EXPECT_EQ(Apply(Transform::Year(), before).get<int32_t>(), -1);
  EXPECT_EQ(Apply(Transform::Month(), before).get<int32_t>(), -1);
  EXPECT_EQ(Apply(Transform::Day(), before).get<int32_t>(), -1);
  EXPECT_EQ(Apply(Transform::Hour(), before).get<int32_t>(), -1);
  EXPECT_EQ(Apply(Transform::Hour(), Scalar::Make(TimestampNs(), int64_t{-1})).get<int32_t>(), -1);
  Scalar date_before = Scalar::Make(Date(), int32_t{-1});
  EXPECT_EQ(Apply(Transform::Year(), date_before).get<int32_t>(), -1);
  EXPECT_EQ(Apply(Transform::Month(), date_before).get<int32_t>(), -1);
  // 1969-01-01 is day -365: year -1, month -12.
  EXPECT_EQ(Apply(Transform::Month(), Scalar::Make(Date(), int32_t{-365})).get<int32_t>(), -12);
  EXPECT_EQ(Apply(Transform::Year(), Scalar::Make(Date(), int32_t{-366})).get<int32_t>(), -2);
  // 2000-02-29 = day 11016; month 30*12+1.
  EXPECT_EQ(Apply(Transform::Month(), Scalar::Make(Date(), int32_t{11016})).get<int32_t>(), 361);
}

TEST(TransformTest, NullsAndVoid) {
  EXPECT_TRUE(Apply(Transform::Bucket(4), Scalar::Null(Int32())).is_null());
  EXPECT_TRUE(Apply(Transform::Day(), Scalar::Null(Timestamp())).is_null());
  Scalar v = Apply(Transform::Void(), Scalar::I32(5));
  EXPECT_TRUE(v.is_null());
  EXPECT_EQ(v.type()->id(), TypeId::kInt32);
  EXPECT_THAT(Transform::Bucket(4).Apply(Scalar::F64(1)),
              testing::IsError(StatusCode::kInvalidArgument));
}

TEST(TransformTest, HumanStrings) {
  EXPECT_EQ(Transform::Year().ToHumanString(Scalar::I32(47)), "2017");
  EXPECT_EQ(Transform::Month().ToHumanString(Scalar::I32(574)), "2017-11");
  EXPECT_EQ(Transform::Month().ToHumanString(Scalar::I32(-1)), "1969-12");
  EXPECT_EQ(Transform::Day().ToHumanString(Scalar::Make(Date(), kDays20171116)), "2017-11-16");
  EXPECT_EQ(Transform::Hour().ToHumanString(Scalar::I32(kDays20171116 * 24 + 22)), "2017-11-16-22");
  EXPECT_EQ(Transform::Hour().ToHumanString(Scalar::I32(-1)), "1969-12-31-23");
  EXPECT_EQ(Transform::Bucket(4).ToHumanString(Scalar::I32(3)), "3");
  EXPECT_EQ(Transform::Identity().ToHumanString(Scalar::Str("a b")), "a b");
  EXPECT_EQ(Transform::Identity().ToHumanString(Scalar::Make(Binary(), "abcd")), "YWJjZA==");
  EXPECT_EQ(Transform::Identity().ToHumanString(Scalar::Null(Int32())), "null");
}

TEST(TransformTest, Order) {
  EXPECT_TRUE(Transform::Identity().PreservesOrder());
  EXPECT_TRUE(Transform::Truncate(3).PreservesOrder());
  EXPECT_TRUE(Transform::Day().PreservesOrder());
  EXPECT_FALSE(Transform::Bucket(3).PreservesOrder());
  EXPECT_FALSE(Transform::Void().PreservesOrder());
  EXPECT_TRUE(Transform::Hour().SatisfiesOrderOf(Transform::Day()));
  EXPECT_TRUE(Transform::Hour().SatisfiesOrderOf(Transform::Year()));
  EXPECT_TRUE(Transform::Day().SatisfiesOrderOf(Transform::Month()));
  EXPECT_FALSE(Transform::Month().SatisfiesOrderOf(Transform::Day()));
  EXPECT_TRUE(Transform::Identity().SatisfiesOrderOf(Transform::Truncate(2)));
  EXPECT_FALSE(Transform::Identity().SatisfiesOrderOf(Transform::Bucket(2)));
  EXPECT_TRUE(Transform::Bucket(2).SatisfiesOrderOf(Transform::Bucket(2)));
  EXPECT_FALSE(Transform::Truncate(2).SatisfiesOrderOf(Transform::Truncate(3)));
}

TEST(TransformTest, ArrayApplyMatchesScalarApply) {
  Int64Builder b(Timestamp());
  std::vector<int64_t> values = {kMicros20171116T223108, -1, 0, -86400000001LL, 1};
  for (int64_t v : values) ASSERT_OK(b.Append(v));
  ASSERT_OK(b.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr arr, b.Finish());
  for (Transform t : {Transform::Year(), Transform::Month(), Transform::Day(), Transform::Hour(),
                      Transform::Bucket(7), Transform::Identity(), Transform::Void()}) {
    ASSERT_OK_AND_ASSIGN(ArrayPtr out, t.Apply(*arr));
    ASSERT_EQ(out->length(), 6);
    EXPECT_TRUE(out->IsNull(5));
    for (size_t i = 0; i < values.size(); ++i) {
      Scalar s = Apply(t, Scalar::Make(Timestamp(), values[i]));
      if (s.is_null()) {
        EXPECT_TRUE(out->IsNull(static_cast<int64_t>(i)));
      } else if (t.kind() == TransformKind::kIdentity) {
        EXPECT_EQ(out->Value<int64_t>(static_cast<int64_t>(i)), s.get<int64_t>());
      } else {
        EXPECT_EQ(out->Value<int32_t>(static_cast<int64_t>(i)), s.get<int32_t>())
            << t.ToString() << " " << values[i];
      }
    }
  }
  BinaryBuilder sb(String());
  ASSERT_OK(sb.Append("iceberg"));
  ASSERT_OK(sb.AppendNull());
  ASSERT_OK(sb.Append("\xc3\xa9t\xc3\xa9"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr strs, sb.Finish());
  ASSERT_OK_AND_ASSIGN(ArrayPtr tr, Transform::Truncate(2).Apply(*strs));
  EXPECT_EQ(tr->BytesValue(0), "ic");
  EXPECT_TRUE(tr->IsNull(1));
  EXPECT_EQ(tr->BytesValue(2), "\xc3\xa9t");
  ASSERT_OK_AND_ASSIGN(ArrayPtr bk, Transform::Bucket(100).Apply(*strs));
  EXPECT_EQ(bk->Value<int32_t>(0), 1210000089 % 100);
  EXPECT_TRUE(bk->IsNull(1));
  DecimalBuilder db(Decimal(9, 2));
  ASSERT_OK(db.Append(1420));
  ASSERT_OK(db.Append(-1065));
  ASSERT_OK_AND_ASSIGN(ArrayPtr decs, db.Finish());
  ASSERT_OK_AND_ASSIGN(ArrayPtr dt, Transform::Truncate(50).Apply(*decs));
  EXPECT_EQ(dt->DecimalValue(0), Int128{1400});
  EXPECT_EQ(dt->DecimalValue(1), Int128{-1100});
  ASSERT_OK_AND_ASSIGN(ArrayPtr dbk, Transform::Bucket(1000).Apply(*decs));
  EXPECT_EQ(dbk->Value<int32_t>(0), (-500754589 & 0x7fffffff) % 1000);
}

// The fixture's single row was written by Trino into partition
// {0, 0, 3, 2, 2, 99, 75, 13, 5, 724} of bucket[2, 3, 4, 5, 6, 100, 123, 42, 55, 812] over
// columns 1..10 (metadata JSON of the table).
TEST(TransformFixtureTest, BucketsMatchTrinoFixture) {
  const std::string path =
      "../shared/fixtures/iceberg/iceberg-cxx/tests/tables/bucket_partitioning/data/"
      "col_int_bucket=0/col_long_bucket=0/col_decimal_bucket=3/col_date_bucket=2/"
      "col_time_bucket=2/col_timestamp_bucket=99/col_timestamptz_bucket=75/"
      "col_string_bucket=13/col_uuid_bucket=5/col_varbinary_bucket=724/"
      "20250307_163052_00008_sdejt-d3a59669-ce58-4006-b445-2f83ff3e0398.parquet";
  ASSERT_OK_AND_ASSIGN(auto reader, parquet::ParquetFileReader::OpenPath(path));
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(parquet::ReadRequest{}));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, stream->Next());
  ASSERT_NE(batch, nullptr);
  ASSERT_EQ(batch->num_rows(), 1);
  const int32_t buckets[] = {2, 3, 4, 5, 6, 100, 123, 42, 55, 812};
  const int32_t expected[] = {0, 0, 3, 2, 2, 99, 75, 13, 5, 724};
  for (int32_t id = 1; id <= 10; ++id) {
    int col = batch->schema()->GetFieldIndexById(id);
    ASSERT_GE(col, 0) << id;
    const ArrayPtr& column = batch->column(col);
    ASSERT_FALSE(column->IsNull(0)) << id;
    ASSERT_OK_AND_ASSIGN(ArrayPtr out, Transform::Bucket(buckets[id - 1]).Apply(*column));
    EXPECT_EQ(out->Value<int32_t>(0), expected[id - 1])
        << "field " << id << " " << column->type()->ToString();
  }
}

}  // namespace
}  // namespace floe::iceberg
