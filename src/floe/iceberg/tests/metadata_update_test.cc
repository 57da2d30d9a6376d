#include "floe/iceberg/metadata_update.h"

#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/tests/in_memory_table_ops.h"
#include "floe/iceberg/tests/reader_test_util.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::iceberg::testing::InMemoryTableOps;
using ::floe::iceberg::testing::TempDir;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

class MetadataUpdateTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeTable(2); }

  void MakeTable(int format_version) {
    auto schema = Schema::Make(0, {Field("id", Int64(), false, 1), Field("data", String(), true, 2),
                                   Field("ts", Timestamp(), true, 3)});
    ASSERT_OK(schema);
    auto spec = PartitionSpec::Make(**schema, 0, {PartitionField{2, 1000, "data"}});
    ASSERT_OK(spec);
    NewTableOptions options;
    options.schema = *schema;
    options.spec = *spec;
    options.location = dir_.Join("t" + std::to_string(format_version));
    options.format_version = format_version;
    options.properties = {{"commit.retry.min-wait-ms", "1"}};
    auto ops = InMemoryTableOps::Create(options);
    ASSERT_OK(ops);
    ops_ = *ops;
  }

  /// "1000:data:identity(2) ..." of a spec.
  static std::string Fields(const PartitionSpec& spec) {
    std::string out;
    for (const auto& f : spec.fields()) {
      if (!out.empty()) out += ' ';
      out += std::to_string(f.field_id) + ":" + f.name + ":" + f.transform.ToString() + "(" +
             std::to_string(f.source_id) + ")";
    }
    return out;
  }

  int64_t AppendSnapshot(const std::string& name) {
    auto append = FastAppend::Make(ops_);
    auto f = std::make_shared<DataFile>();
    f->file_path = dir_.Join(name);
    f->partition = {Scalar::Str("x")};
    f->record_count = 1;
    f->file_size_in_bytes = 10;
    f->spec_id = ops_->current()->default_spec_id;
    append->AppendFile(f);
    auto t = append->Commit();
    EXPECT_OK(t);
    return append->snapshot_id();
  }

  TempDir dir_;
  std::shared_ptr<InMemoryTableOps> ops_;
};

TEST_F(MetadataUpdateTest, V2SpecEvolutionKeepsFieldIds) {
  {
    auto update = UpdatePartitionSpec::Make(ops_);
    update->AddField("id", Transform::Bucket(16));
    ASSERT_OK_AND_ASSIGN(Table t, update->Commit());
    EXPECT_EQ(t.metadata->default_spec_id, 1);
    EXPECT_EQ(Fields(*t.metadata->DefaultSpec()),
              "1000:data:identity(2) 1001:id_bucket_16:bucket[16](1)");
    EXPECT_EQ(t.metadata->last_partition_id, 1001);
  }
  {
    auto update = UpdatePartitionSpec::Make(ops_);
    update->RemoveField("data").AddField("ts", Transform::Day());
    ASSERT_OK_AND_ASSIGN(Table t, update->Commit());
    EXPECT_EQ(Fields(*t.metadata->DefaultSpec()),
              "1001:id_bucket_16:bucket[16](1) 1002:ts_day:day(3)");
  }
  {
    // Re-adding (data, identity) gets its old id back; renaming keeps ids.
    auto update = UpdatePartitionSpec::Make(ops_);
    update->AddField("data", Transform::Identity()).RenameField("ts_day", "day");
    ASSERT_OK_AND_ASSIGN(Table t, update->Commit());
    EXPECT_EQ(Fields(*t.metadata->DefaultSpec()),
              "1001:id_bucket_16:bucket[16](1) 1002:day:day(3) 1000:data:identity(2)");
    EXPECT_EQ(t.metadata->last_partition_id, 1002);
    EXPECT_EQ(t.metadata->partition_specs.size(), 4u);
  }
  auto dup = UpdatePartitionSpec::Make(ops_);
  dup->AddField("ts", Transform::Month());
  EXPECT_THAT(dup->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "overlaps field 'day'"));
  auto bad = UpdatePartitionSpec::Make(ops_);
  bad->AddField("data", Transform::Day());
  EXPECT_THAT(bad->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "day(data)"));
  auto missing = UpdatePartitionSpec::Make(ops_);
  missing->RemoveField("nope");
  EXPECT_THAT(missing->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "'nope'"));
}

TEST_F(MetadataUpdateTest, V1SpecRemovalBecomesVoid) {
  MakeTable(1);
  auto update = UpdatePartitionSpec::Make(ops_);
  update->RemoveField("data").AddField("id", Transform::Bucket(4), "b");
  ASSERT_OK_AND_ASSIGN(Table t, update->Commit());
  EXPECT_EQ(Fields(*t.metadata->DefaultSpec()), "1000:data:void(2) 1001:b:bucket[4](1)");
}

TEST_F(MetadataUpdateTest, SpecEvolutionConflictIsRetried) {
  ops_->AddBeforeCommitHook([this]() -> Status {
    auto other = UpdatePartitionSpec::Make(ops_);
    other->AddField("ts", Transform::Year());
    return other->Commit().status();
  });
  auto update = UpdatePartitionSpec::Make(ops_);
  update->AddField("id", Transform::Truncate(10));
  ASSERT_OK_AND_ASSIGN(Table t, update->Commit());
  EXPECT_EQ(Fields(*t.metadata->DefaultSpec()),
            "1000:data:identity(2) 1001:ts_year:year(3) 1002:id_trunc_10:truncate[10](1)");
}

TEST_F(MetadataUpdateTest, ReplaceSortOrder) {
  auto replace = ReplaceSortOrder::Make(ops_);
  replace->Asc("data").Desc("id");
  ASSERT_OK_AND_ASSIGN(Table t, replace->Commit());
  SortOrderPtr order = t.metadata->DefaultSortOrder();
  EXPECT_EQ(order->order_id(), 1);
  ASSERT_EQ(order->fields().size(), 2u);
  EXPECT_EQ(order->fields()[0],
            (SortField{2, Transform::Identity(), SortDirection::kAsc, NullOrder::kNullsFirst}));
  EXPECT_EQ(order->fields()[1],
            (SortField{1, Transform::Identity(), SortDirection::kDesc, NullOrder::kNullsLast}));
  auto unsorted = ReplaceSortOrder::Make(ops_);
  ASSERT_OK_AND_ASSIGN(Table t2, unsorted->Commit());
  EXPECT_EQ(t2.metadata->default_sort_order_id, 0);
  auto bad = ReplaceSortOrder::Make(ops_);
  bad->Asc("nope");
  EXPECT_THAT(bad->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "'nope'"));
}

TEST_F(MetadataUpdateTest, UpdateProperties) {
  auto set = UpdateProperties::Make(ops_);
  set->Set("a", "1").Set("b", "2");
  ASSERT_OK(set->Commit());
  auto remove = UpdateProperties::Make(ops_);
  remove->Remove("a").Set("b", "3");
  ASSERT_OK_AND_ASSIGN(Table t, remove->Commit());
  EXPECT_EQ(t.metadata->properties.count("a"), 0u);
  EXPECT_EQ(t.metadata->properties.at("b"), "3");
  auto both = UpdateProperties::Make(ops_);
  both->Set("x", "1").Remove("x");
  EXPECT_THAT(both->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "'x'"));
}

TEST_F(MetadataUpdateTest, ManageBranchesAndTags) {
  int64_t s1 = AppendSnapshot("a");
  int64_t s2 = AppendSnapshot("b");
  {
    auto manage = ManageSnapshots::Make(ops_);
    manage->CreateTag("v1", s1)
        .CreateBranch("dev", s1)
        .SetMinSnapshotsToKeep("dev", 3)
        .SetMaxRefAgeMs("v1", 1000);
    ASSERT_OK_AND_ASSIGN(Table t, manage->Commit());
    EXPECT_EQ(t.metadata->refs.at("v1").snapshot_id, s1);
    EXPECT_FALSE(t.metadata->refs.at("v1").is_branch());
    EXPECT_EQ(t.metadata->refs.at("v1").max_ref_age_ms, 1000);
    EXPECT_EQ(t.metadata->refs.at("dev").min_snapshots_to_keep, 3);
  }
  {
    auto manage = ManageSnapshots::Make(ops_);
    manage->FastForwardBranch("dev", "main");
    ASSERT_OK_AND_ASSIGN(Table t, manage->Commit());
    EXPECT_EQ(t.metadata->refs.at("dev").snapshot_id, s2);
    EXPECT_EQ(t.metadata->refs.at("dev").min_snapshots_to_keep, 3);
  }
  {
    auto manage = ManageSnapshots::Make(ops_);
    manage->RollbackTo(s1).RenameBranch("dev", "feature").RemoveTag("v1");
    ASSERT_OK_AND_ASSIGN(Table t, manage->Commit());
    EXPECT_EQ(t.metadata->current_snapshot_id, s1);
    EXPECT_EQ(t.metadata->refs.count("dev"), 0u);
    EXPECT_EQ(t.metadata->refs.at("feature").snapshot_id, s2);
    EXPECT_EQ(t.metadata->refs.count("v1"), 0u);
  }
  auto not_ancestor = ManageSnapshots::Make(ops_);
  not_ancestor->RollbackTo(s2);
  EXPECT_THAT(not_ancestor->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "not an ancestor"));
  auto set_current = ManageSnapshots::Make(ops_);
  set_current->SetCurrentSnapshot(s2);
  ASSERT_OK_AND_ASSIGN(Table t, set_current->Commit());
  EXPECT_EQ(t.metadata->current_snapshot_id, s2);
  auto main = ManageSnapshots::Make(ops_);
  main->RemoveBranch("main");
  EXPECT_THAT(main->Commit(), IsError(StatusCode::kInvalidArgument));
  auto unknown = ManageSnapshots::Make(ops_);
  unknown->CreateTag("t", 12345);
  EXPECT_THAT(unknown->Commit(), IsErrorWith(StatusCode::kNotFound, "12345"));
  auto exists = ManageSnapshots::Make(ops_);
  exists->CreateBranch("feature");
  EXPECT_THAT(exists->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "already exists"));
}

TEST_F(MetadataUpdateTest, ConcurrentRefChangeIsReappliedOrRefused) {
  int64_t s1 = AppendSnapshot("a");
  // A concurrent commit to main does not stop creating a tag.
  ops_->AddBeforeCommitHook([this]() -> Status {
    AppendSnapshot("b");
    return Status::OK();
  });
  auto tag = ManageSnapshots::Make(ops_);
  tag->CreateTag("t1", s1);
  ASSERT_OK_AND_ASSIGN(Table t, tag->Commit());
  EXPECT_EQ(t.metadata->refs.at("t1").snapshot_id, s1);
  EXPECT_EQ(t.metadata->snapshots.size(), 2u);
  // A concurrent creation of the same tag makes the retry fail.
  ops_->AddBeforeCommitHook([this, s1]() -> Status {
    auto other = ManageSnapshots::Make(ops_);
    other->CreateTag("t2", s1);
    return other->Commit().status();
  });
  auto again = ManageSnapshots::Make(ops_);
  again->CreateTag("t2", s1);
  EXPECT_THAT(again->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "already exists"));
}

}  // namespace
}  // namespace floe::iceberg
